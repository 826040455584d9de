//! Links between and inside chapters, after every way a chapter is cut (issue 15 item 2),
//! heading levels and the table of contents (item 3), built and checked with EPUBCheck.

mod common;

use common::{Fixture, assert_valid, names, text};

/// The chapter documents of a built book, as text, by entry name.
fn documents(f: &Fixture) -> Vec<(String, String)> {
    let epub = f.path("out.epub");
    names(&epub)
        .into_iter()
        .filter(|n| n.starts_with("EPUB/text/chapter-"))
        .map(|n| (n.clone(), text(&epub, &n)))
        .collect()
}

/// Every `href` of the real links of a document (the attribute of `<a>` elements).
fn hrefs(xhtml: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse_with_options(
        xhtml,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("well-formed");
    doc.descendants()
        .filter(|n| n.tag_name().name() == "a")
        .filter_map(|n| n.attribute("href").map(str::to_string))
        .collect()
}

fn document<'d>(docs: &'d [(String, String)], name: &str) -> &'d str {
    let full = format!("EPUB/text/{name}");
    docs.iter()
        .find(|(n, _)| *n == full)
        .map(|(_, t)| t.as_str())
        .unwrap_or_else(|| {
            panic!(
                "no {name} among {:?}",
                docs.iter().map(|d| &d.0).collect::<Vec<_>>()
            )
        })
}

const METADATA: &str = "[book]\ntitle = \"Links\"\nauthors = [\"A\"]\nlanguage = \"en\"\n";

#[test]
fn markdown_links_reach_headings_in_this_and_other_chapters_and_mdbook_pages() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        format!(
            "{METADATA}\n[[chapters]]\nfile = \"src/README.md\"\n\n[[chapters]]\nfile = \"src/ch01.md\"\n\n\
             [[chapters]]\nfile = \"src/ch02.md\"\n"
        ),
    );
    f.write(
        "src/README.md",
        "# Intro\n\nSee [the second](ch02.html#second-section) and [one](ch01.md).\n",
    );
    f.write(
        "src/ch01.md",
        "## Getting Started\n\nJump [later](#later-on), to [the top](#getting-started), \
         [home](index.html), [gone](ch09.html) and [nowhere](#nowhere).\n\n\
         Code shows `<a href=\"ch02.md\">` and `[x](notes.txt)` as written.\n\n\
         ### Later On\n\nText.\n",
    );
    f.write(
        "src/ch02.md",
        "# Two\n\n## Second Section\n\nBack to [one](./ch01.md#later-on).\n",
    );
    let run = f.build(&[]);
    assert!(run.ok, "{}", run.stderr);
    assert_valid(&f.path("out.epub"));
    let docs = documents(&f);
    let intro = document(&docs, "chapter-0001.xhtml");
    assert_eq!(
        hrefs(intro),
        ["chapter-0003.xhtml#second-section", "chapter-0002.xhtml"]
    );
    let one = document(&docs, "chapter-0002.xhtml");
    assert_eq!(
        hrefs(one),
        [
            "#later-on",
            "#epubforge-chapter-title",
            "chapter-0001.xhtml"
        ],
        "{one}"
    );
    // The unresolvable links are text now, said so once each.
    assert!(
        one.contains("<a>gone</a>") && one.contains("<a>nowhere</a>"),
        "{one}"
    );
    assert!(run.stderr.contains("ch09.html"), "{}", run.stderr);
    assert!(run.stderr.contains("#nowhere"), "{}", run.stderr);
    // Code spans keep what they show.
    assert!(
        one.contains("<code>&lt;a href=\"ch02.md\"&gt;</code>"),
        "{one}"
    );
    assert!(one.contains("<code>[x](notes.txt)</code>"), "{one}");
    let two = document(&docs, "chapter-0003.xhtml");
    assert!(
        two.contains("<h2 id=\"second-section\">Second Section</h2>"),
        "{two}"
    );
    assert_eq!(hrefs(two), ["chapter-0002.xhtml#later-on"]);
}

#[test]
fn links_to_ids_in_later_pieces_of_a_chapter_split_for_size_follow_them() {
    let f = Fixture::empty();
    let filler = format!("<p>{}</p>\n", "word ".repeat(400));
    let mut html = String::from(
        "<html><head><title>Big</title></head><body><h1>Big</h1>\
         <p><a href=\"#far\">far</a> <a href=\"#far-heading\">heading</a></p>\n",
    );
    for _ in 0..30 {
        html.push_str(&filler);
    }
    html.push_str(
        "<p id=\"far\">Far away.</p>\n<h2>Far Heading</h2>\n<p><a href=\"#big\">top</a></p>\n",
    );
    f.write("big.html", &html);
    f.write(
        "next.md",
        "# Next\n\n[far](big.html#far) [h](big.html#far-heading)\n",
    );
    f.write(
        "metadata.toml",
        format!(
            "{METADATA}\n[layout]\nsplit-size = 20\n\n[[chapters]]\nfile = \"big.html\"\n\n\
             [[chapters]]\nfile = \"next.md\"\n"
        ),
    );
    let run = f.build(&[]);
    assert!(run.ok, "{}", run.stderr);
    assert_valid(&f.path("out.epub"));
    let docs = documents(&f);
    let last = docs
        .iter()
        .filter(|(n, _)| n.starts_with("EPUB/text/chapter-0001"))
        .find(|(_, t)| t.contains("id=\"far\""))
        .map(|(n, _)| n.trim_start_matches("EPUB/text/").to_string())
        .expect("a piece holds #far");
    assert_ne!(last, "chapter-0001.xhtml", "the chapter was not split");
    let first = document(&docs, "chapter-0001.xhtml");
    assert_eq!(
        hrefs(first),
        [format!("{last}#far"), format!("{last}#far-heading")]
    );
    let next = document(&docs, "chapter-0002.xhtml");
    assert_eq!(
        hrefs(next),
        [format!("{last}#far"), format!("{last}#far-heading")]
    );
}

#[test]
fn urls_with_characters_not_valid_as_written_are_percent_encoded() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        format!("{METADATA}\n[[chapters]]\nfile = \"a.md\"\n"),
    );
    f.write(
        "a.md",
        "# A\n\n[s](https://example.com/search?tags[]=a&q=100%) <https://example.com/\\[\\>\n",
    );
    let run = f.build(&[]);
    assert!(run.ok, "{}", run.stderr);
    assert_valid(&f.path("out.epub"));
    let docs = documents(&f);
    assert_eq!(
        hrefs(document(&docs, "chapter-0001.xhtml")),
        [
            "https://example.com/search?tags%5B%5D=a&q=100%25",
            "https://example.com/%5C%5B%5C"
        ]
    );
}
