//! mdBook books as mdBook builds them (issue 28, item 3): hidden code lines, links from the
//! site's root, directives of preprocessors epubforge does not run, admonitions, `init`
//! reading `book.toml`. Small books written here imitate Comprehensive Rust and the Rust
//! book; each is built and checked with EPUBCheck.

use crate::common;

use common::{Fixture, assert_valid, epubforge, names, run, text};

/// An mdBook whose chapters use every convention at once.
fn book() -> Fixture {
    let f = Fixture::empty();
    f.write(
        "book.toml",
        "[book]\ntitle = \"Course\"\nauthor = \"Solo Author\"\nlanguage = \"en\"\n\
         [output.html.code.hidelines]\npython = \"~\"\n",
    );
    f.write(
        "src/SUMMARY.md",
        "# Summary\n\n- [Intro](intro.md)\n- [Arrays](basic/array.md)\n",
    );
    f.write(
        "src/intro.md",
        "# Intro\n\n{{%session outline}}\n\nSee [slices](/basic/array.html#slices).\n\n\
         ```rust,editable\n# use std::fmt;\nfn main() {\n    ## keep\n}\n```\n\n\
         ```python\n~import secret\nprint(1)\n```\n\n\
         ```admonish warning\nMind *this*.\n```\n\n> [!NOTE]\n> Noted.\n\n\
         {{#include listing.rs:nowhere}}\n",
    );
    f.write("src/listing.rs", "fn f() {}\n");
    f.write("src/basic/array.md", "# Arrays\n\n## Slices\n\nText.\n");
    f
}

#[test]
fn an_mdbook_builds_without_hidden_lines_or_directives_and_with_its_site_links() {
    let f = book();
    let init = run(epubforge().arg("init").arg(f.path("")));
    assert!(init.ok, "{}", init.stderr);
    let metadata = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    assert!(metadata.contains("\"Solo Author\""), "{metadata}");
    let r = run(epubforge()
        .arg("build")
        .arg(f.path(""))
        .arg("-o")
        .arg(f.path("out.epub")));
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let chapters: Vec<String> = names(&epub)
        .into_iter()
        .filter(|n| n.starts_with("EPUB/text/chapter-"))
        .collect();
    let intro = text(&epub, &chapters[0]);
    for gone in ["{{", "std::fmt", "secret", "[!NOTE]", "admonish", "nowhere"] {
        assert!(!intro.contains(gone), "{gone}: {intro}");
    }
    assert!(
        intro.contains("# keep") && intro.contains(">print<"),
        "{intro}"
    );
    assert!(
        intro.contains("href=\"chapter-0002.xhtml#slices\""),
        "{intro}"
    );
    assert!(
        intro.contains("<aside class=\"admonition warning\">"),
        "{intro}"
    );
    assert!(
        intro.contains("<aside class=\"admonition note\">"),
        "{intro}"
    );
    // One warning names the directive removed; the missing anchor inserted nothing, said so;
    // the ledger counts the hidden lines as such, and nothing as lost.
    assert_eq!(
        common::flat(&r.stderr)
            .matches("{{%session outline}}")
            .count(),
        1,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("intro.md:3"), "{}", r.stderr);
    assert!(r.stderr.contains("no anchor \"nowhere\""), "{}", r.stderr);
    assert!(
        r.stderr.contains("in hidden code lines (mdBook)"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("LOST"), "{}", r.stderr);
    assert!(!r.stderr.contains("removed link"), "{}", r.stderr);
}

/// The user guide (`guide/`, an mdBook) builds with epubforge in one command, with no warning
/// (a broken link between its chapters, a directive it shows that would be run) and
/// EPUBCheck 0/0; nothing is written into the guide's folder.
#[test]
fn the_guide_builds_in_one_command_without_warnings_and_passes_epubcheck() {
    let out = Fixture::empty();
    let epub = out.path("guide.epub");
    let guide = common::repo().join("guide");
    let r = run(epubforge().arg(&guide).arg("-o").arg(&epub));
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    assert_valid(&epub);
    let chapters = names(&epub)
        .into_iter()
        .filter(|n| n.starts_with("EPUB/text/chapter-"))
        .count();
    let summary = std::fs::read_to_string(guide.join("src/SUMMARY.md")).unwrap();
    assert_eq!(chapters, summary.matches("](").count(), "{summary}");
    let mut left: Vec<String> = std::fs::read_dir(&guide)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["book.toml", "src"]);
}

#[test]
fn editing_book_toml_rebuilds_and_links_under_site_url_resolve() {
    let f = Fixture::empty();
    let toml = "[book]\ntitle = \"Course\"\nauthors = [\"A\"]\n[output.html]\nsite-url = \"/course/\"\n\
                [output.html.code.hidelines]\npython = \"~\"\n";
    f.write("book.toml", toml);
    f.write(
        "src/SUMMARY.md",
        "# Summary\n\n- [Intro](intro.md)\n- [Arrays](basic/array.md)\n",
    );
    f.write(
        "src/intro.md",
        "# Intro\n\nSee [slices](/course/basic/array.html#slices).\n\n```python\n~import secret\nprint(1)\n```\n",
    );
    f.write("src/basic/array.md", "# Arrays\n\n## Slices\n\nText.\n");
    assert!(run(epubforge().arg("init").arg(f.path(""))).ok);
    let epub = f.path("out.epub");
    let build = || {
        run(epubforge()
            .arg("build")
            .arg(f.path(""))
            .arg("-o")
            .arg(&epub))
    };
    let intro = |epub: &std::path::Path| text(epub, "EPUB/text/chapter-0001.xhtml");
    let r = build();
    assert!(r.ok, "{}", r.stderr);
    assert_valid(&epub);
    assert!(
        intro(&epub).contains("href=\"chapter-0002.xhtml#slices\""),
        "{}",
        intro(&epub)
    );
    assert!(!r.stderr.contains("removed link"), "{}", r.stderr);
    assert!(!intro(&epub).contains("secret"), "{}", intro(&epub));
    assert!(build().stderr.contains("up to date"));
    // Python's lines are no longer hidden: every chapter is converted again.
    f.write(
        "book.toml",
        toml.replace("python = \"~\"", "python = \"@\""),
    );
    let r = build();
    assert!(r.ok && !r.stderr.contains("up to date"), "{}", r.stderr);
    assert!(intro(&epub).contains("secret"), "{}", intro(&epub));
}
