//! Targets (issue 17): one build writes an EPUB per reader or store, each valid, each rebuilt
//! incrementally on its own; the kepub spans every sentence, the Kindle EPUB converts to AZW3
//! when calibre is installed, the Apple EPUB asks for the embedded fonts.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{Fixture, entries, text};

const ALL: &str = "epub,kobo,kindle,apple";
const EPOCH: &str = "1700000000";

/// The four outputs beside `out.epub` in the fixture, in target order.
fn outputs(f: &Fixture) -> Vec<PathBuf> {
    [
        "out.epub",
        "out.kepub.epub",
        "out.kindle.epub",
        "out.apple.epub",
    ]
    .iter()
    .map(|n| f.path(n))
    .collect()
}

fn build(f: &Fixture, extra: &[&str]) -> common::Run {
    let mut cmd = common::epubforge();
    cmd.env("SOURCE_DATE_EPOCH", EPOCH)
        .arg("build")
        .arg(f.dir.path())
        .arg("-o")
        .arg(f.path("out.epub"))
        .args(extra);
    let r = common::run(&mut cmd);
    assert!(r.ok, "{}", r.stderr);
    r
}

/// The content documents of an EPUB (not the navigation document).
fn content_documents(epub: &Path) -> Vec<(String, String)> {
    entries(epub)
        .into_iter()
        .filter(|(n, _)| n.ends_with(".xhtml") && !n.ends_with("nav.xhtml"))
        .map(|(n, d)| (n, String::from_utf8(d).unwrap()))
        .collect()
}

/// For each paragraph of a kepub document: its number of koboSpans; panics on a text node of
/// a paragraph outside a span, or on an id used twice.
fn spans_per_paragraph(name: &str, xhtml: &str) -> Vec<usize> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(xhtml, opts).expect("well-formed");
    let is_span =
        |n: &roxmltree::Node| n.has_tag_name("span") && n.attribute("class") == Some("koboSpan");
    let mut ids = BTreeSet::new();
    for span in doc.descendants().filter(is_span) {
        let id = span.attribute("id").expect("a koboSpan has an id");
        assert!(id.starts_with("kobo."), "{name}: {id}");
        assert!(ids.insert(id), "{name}: id {id} twice");
    }
    let mut counts = Vec::new();
    for p in doc.descendants().filter(|n| n.has_tag_name("p")) {
        for t in p.descendants().filter(|d| d.is_text()) {
            let inside = t.ancestors().any(|a| is_span(&a));
            assert!(inside, "{name}: text {:?} outside a koboSpan", t.text());
        }
        counts.push(p.descendants().filter(is_span).count());
    }
    let body = doc.descendants().find(|n| n.has_tag_name("body")).unwrap();
    let columns = body.first_element_child().expect("a wrapper");
    assert_eq!(columns.attribute("id"), Some("book-columns"), "{name}");
    counts
}

#[test]
fn the_sample_book_for_every_target_is_valid_and_the_kepub_spans_every_sentence() {
    let f = Fixture::sample();
    let r = build(&f, &["--target", ALL]);
    for out in outputs(&f) {
        assert!(
            r.stdout.contains(&out.display().to_string()),
            "{}",
            r.stdout
        );
        common::assert_valid(&out);
    }
    let kepub = f.path("out.kepub.epub");
    let mut paragraphs = 0;
    let mut split = 0;
    for (name, doc) in content_documents(&kepub) {
        if name.contains("chapter-") {
            let counts = spans_per_paragraph(&name, &doc);
            assert!(counts.iter().all(|&c| c > 0), "{name}: {counts:?}");
            paragraphs += counts.len();
            split += counts.iter().filter(|&&c| c > 1).count();
        }
    }
    // The sample's Chinese paragraphs hold several sentences each: split at 。！？.
    assert!(
        paragraphs > 50 && split * 4 > paragraphs,
        "{split} of {paragraphs}"
    );
    // The plain EPUB has no spans; the other targets leave the chapters' text alone.
    for out in [f.path("out.epub"), f.path("out.kindle.epub")] {
        for (name, doc) in content_documents(&out) {
            assert!(!doc.contains("koboSpan"), "{name}");
        }
    }
}

#[test]
fn a_rebuild_after_one_edit_is_incremental_for_every_target_and_matches_clean_builds() {
    let f = Fixture::sample();
    build(&f, &["--target", ALL]);
    let noop = build(&f, &["--target", ALL]);
    assert_eq!(
        noop.stderr.matches("up to date").count(),
        4,
        "{}",
        noop.stderr
    );

    let chapter = f.path("seeds/001_c5c754fed1430e80.txt");
    let mut s = std::fs::read_to_string(&chapter).unwrap();
    s.push_str("\n新加的一段。又一句！\n");
    std::fs::write(&chapter, s).unwrap();
    let r = build(&f, &["--target", ALL]);
    assert_eq!(
        r.stderr.matches("2 of 3 chapters reused").count(),
        4,
        "{}",
        r.stderr
    );
    assert_like_clean_builds(&f);
}

/// Each output of `f` built for every target is byte-identical to a clean build of its target
/// alone.
fn assert_like_clean_builds(f: &Fixture) {
    for (i, target) in ["epub", "kobo", "kindle", "apple"].iter().enumerate() {
        let clean = Fixture::empty();
        let out = clean.path("clean.epub");
        let mut cmd = common::epubforge();
        cmd.env("SOURCE_DATE_EPOCH", EPOCH)
            .args(["build", "--no-cache", "--target", target, "-o"])
            .arg(&out)
            .arg(f.dir.path());
        let c = common::run(&mut cmd);
        assert!(c.ok, "{}", c.stderr);
        let rebuilt = std::fs::read(&outputs(f)[i]).unwrap();
        assert!(
            std::fs::read(&out).unwrap() == rebuilt,
            "{target}: the rebuild differs from a clean build"
        );
    }
}

#[test]
fn outputs_that_reuse_different_chapters_are_written_together_each_like_a_clean_build() {
    // The outputs are written in step, each chapter rendered once for those that package it:
    // here the kepub, gone, packages every chapter while the others package one.
    let f = Fixture::sample();
    build(&f, &["--target", ALL]);
    let chapter = f.path("seeds/001_c5c754fed1430e80.txt");
    let mut s = std::fs::read_to_string(&chapter).unwrap();
    s.push_str("\n新加的一段。又一句！\n");
    std::fs::write(&chapter, s).unwrap();
    std::fs::remove_file(&outputs(&f)[1]).unwrap();
    let r = build(&f, &["--target", ALL]);
    assert_eq!(
        r.stderr.matches("2 of 3 chapters reused").count(),
        3,
        "{}",
        r.stderr
    );
    assert_like_clean_builds(&f);
}

#[test]
fn targets_come_from_the_metadata_and_name_their_files_after_the_book() {
    let f = Fixture::sample();
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    std::fs::write(
        f.path("metadata.toml"),
        format!("{meta}\n[output]\ntargets = [\"kobo\", \"apple\"]\n"),
    )
    .unwrap();
    let mut cmd = common::epubforge();
    cmd.arg("build").arg(f.dir.path());
    let r = common::run(&mut cmd);
    assert!(r.ok, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines[0].ends_with("安西烽火.kepub.epub"), "{}", r.stdout);
    assert!(lines[1].ends_with("安西烽火.apple.epub"), "{}", r.stdout);
    assert!(!f.path("build/安西烽火.epub").exists());

    std::fs::write(
        f.path("metadata.toml"),
        format!("{meta}\n[output]\ntargets = [\"mobi\"]\n"),
    )
    .unwrap();
    let r = common::run(common::epubforge().arg("build").arg(f.dir.path()));
    assert!(!r.ok);
    assert!(
        r.stderr.contains("\"mobi\" is not a target"),
        "{}",
        r.stderr
    );
    let r = common::run(common::epubforge().args(["build", "--target", "mobi"]));
    assert_eq!(r.code, Some(2), "{}", r.stderr);
}

const NOTO: &str = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc";

#[test]
fn the_apple_epub_asks_for_embedded_fonts_and_draws_the_arrow_as_text() {
    const OPTIONS: &str = "META-INF/com.apple.ibooks.display-options.xml";
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Notes\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"a.md\"\n",
    );
    f.write(
        "a.md",
        "# One\n\nA claim.[^1]\n\n[^1]: The note, long enough.\n",
    );
    build(&f, &["--target", "epub,apple"]);
    let apple = f.path("out.apple.epub");
    common::assert_valid(&apple);
    assert!(
        !entries(&apple).contains_key(OPTIONS),
        "no font, no options"
    );
    let chapter = text(&apple, "EPUB/text/chapter-0001.xhtml");
    assert!(chapter.contains("\u{21A9}\u{FE0E}"), "{chapter}");
    let plain = text(&f.path("out.epub"), "EPUB/text/chapter-0001.xhtml");
    assert!(!plain.contains('\u{FE0E}'));

    if !Path::new(NOTO).exists() {
        eprintln!("note: {NOTO} not installed; the display options were not checked");
        return;
    }
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    f.write(
        "metadata.toml",
        format!("{meta}[style]\nfonts = [{{ file = \"{NOTO}\", face = 2 }}]\n"),
    );
    build(&f, &["--target", "epub,apple", "--allow-outside-paths"]);
    assert!(!entries(&f.path("out.epub")).contains_key(OPTIONS));
    let all = entries(&apple);
    let options = String::from_utf8(all[OPTIONS].clone()).unwrap();
    assert!(options.contains("<option name=\"specified-fonts\">true</option>"));
    common::assert_valid(&apple);
}

#[test]
fn the_kindle_epub_has_no_empty_alt() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Pictures\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"a.md\"\n",
    );
    std::fs::copy(
        common::repo().join("covers/cover.jpg"),
        f.path("the-map.jpg"),
    )
    .unwrap();
    f.write("a.md", "# One\n\nText.\n\n![](the-map.jpg)\n");
    build(&f, &["--target", "epub,kindle"]);
    let plain = text(&f.path("out.epub"), "EPUB/text/chapter-0001.xhtml");
    assert!(plain.contains("alt=\"\""), "{plain}");
    let kindle = f.path("out.kindle.epub");
    let chapter = text(&kindle, "EPUB/text/chapter-0001.xhtml");
    assert!(
        !chapter.contains("alt=\"\"") && chapter.contains("alt=\"image\""),
        "{chapter}"
    );
    common::assert_valid(&kindle);
}

#[test]
fn azw3_is_made_by_calibre_or_refused_clearly() {
    let f = Fixture::sample();
    let mut cmd = common::epubforge();
    cmd.env("EBOOK_CONVERT", f.path("no-such-ebook-convert"))
        .args(["build", "--target", "azw3", "-o"])
        .arg(f.path("out.epub"))
        .arg(f.dir.path());
    let r = common::run(&mut cmd);
    assert!(!r.ok);
    assert!(
        r.stderr.contains("AZW3 needs calibre's `ebook-convert`"),
        "{}",
        r.stderr
    );
    assert!(
        f.path("out.epub").exists(),
        "the Kindle EPUB is still written"
    );
    if which("ebook-convert").is_none() {
        eprintln!("note: calibre not installed; the AZW3 was not made");
        return;
    }
    let mut cmd = common::epubforge();
    cmd.args(["build", "--target", "azw3", "-o"])
        .arg(f.path("out.epub"))
        .arg(f.dir.path());
    let r = common::run(&mut cmd);
    assert!(r.ok, "{}", r.stderr);
    let azw3 = f.path("out.azw3");
    let bytes = std::fs::read(&azw3).unwrap();
    assert_eq!(&bytes[60..68], b"BOOKMOBI", "a Mobipocket/KF8 file");
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(tool))
        .find(|p| p.is_file())
}

/// A novel in three parts of two chapters each, cut into volumes by `split`.
fn three_part_novel(split: &str) -> Fixture {
    let f = Fixture::empty();
    for i in 1..=6 {
        f.write(
            &format!("ch/{i}.txt"),
            format!("第{i}章 标题\n\n　　正文{i}。他说：「好。」又一句！\n"),
        );
    }
    let parts: String = (0..3)
        .map(|p| {
            format!(
                "[[parts]]\ntitle = \"第{}部\"\n[[parts.chapters]]\nglob = \"ch/[{}{}].txt\"\n",
                p + 1,
                2 * p + 1,
                2 * p + 2
            )
        })
        .collect();
    f.write(
        "metadata.toml",
        format!(
            "[book]\ntitle = \"长篇\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
             [output]\nsplit = {split}\n\n{parts}"
        ),
    );
    f
}

#[test]
fn split_parts_makes_a_volume_per_part_each_its_own_book_rebuilt_alone() {
    let f = three_part_novel("\"parts\"");
    let r = build(&f, &["--target", "epub,kobo"]);
    let mut ids = BTreeSet::new();
    for n in 1..=3 {
        let epub = f.path(&format!("out.vol{n}.epub"));
        assert!(
            r.stdout.contains(&epub.display().to_string()),
            "{}",
            r.stdout
        );
        common::assert_valid(&epub);
        common::assert_valid(&f.path(&format!("out.vol{n}.kepub.epub")));
        let opf = text(&epub, "EPUB/package.opf");
        let title = ["一", "二", "三"][n - 1];
        assert!(
            opf.contains(&format!(">长篇 卷{title}</dc:title>")),
            "{opf}"
        );
        assert!(
            opf.contains(&format!("property=\"group-position\">{n}</meta>")),
            "{opf}"
        );
        assert!(opf.contains("property=\"belongs-to-collection\" id=\"series\">长篇<"));
        let id = opf.split("urn:uuid:").nth(1).unwrap()[..36].to_string();
        assert!(ids.insert(id), "identifiers differ");
        assert_eq!(
            common::spine(&epub)
                .iter()
                .filter(|s| s.contains("chapter-"))
                .count(),
            2
        );
    }
    assert!(!f.path("out.epub").exists());

    let mut s = std::fs::read_to_string(f.path("ch/3.txt")).unwrap();
    s.push_str("　　新的一段。\n");
    std::fs::write(f.path("ch/3.txt"), s).unwrap();
    let r = build(&f, &["--target", "epub,kobo"]);
    let built: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("built"))
        .collect();
    assert_eq!(built.len(), 2, "{}", r.stderr);
    assert!(built.iter().all(|l| l.contains(".vol2.")), "{}", r.stderr);
    assert_eq!(r.stderr.matches("up to date").count(), 4, "{}", r.stderr);
}

#[test]
fn split_by_chapters_counts_chapter_entries() {
    let f = three_part_novel("{ chapters = 4 }");
    build(&f, &[]);
    assert_eq!(
        common::spine(&f.path("out.vol1.epub"))
            .iter()
            .filter(|s| s.contains("chapter-"))
            .count(),
        4
    );
    assert_eq!(
        common::spine(&f.path("out.vol2.epub"))
            .iter()
            .filter(|s| s.contains("chapter-"))
            .count(),
        2
    );
    assert!(!f.path("out.vol3.epub").exists());
    let bad = three_part_novel("{ chapters = 0 }");
    let r = common::run(common::epubforge().arg("build").arg(bad.dir.path()));
    assert!(
        !r.ok && r.stderr.contains("`[output] split`"),
        "{}",
        r.stderr
    );
}
