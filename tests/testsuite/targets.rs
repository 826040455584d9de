//! Targets (issue 17): one build writes an EPUB per reader or store, each valid, each rebuilt
//! incrementally on its own; the kepub spans every sentence, the Kindle EPUB converts to AZW3
//! when calibre is installed, the Apple EPUB asks for the embedded fonts.

use crate::common;

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
        "# One\n\nA claim.[^1] Again.[^1]\n\n[^1]: The note, long enough.\n",
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

/// Issue 31: ruby survives the Kobo and Kindle targets of a vertical Japanese book; the kepub
/// puts the whole `<ruby>` in one span, never a span between a base and its reading.
#[test]
fn ruby_is_kept_whole_by_the_kobo_and_kindle_targets() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"羅生門\"\nauthors = [\"芥川龍之介\"]\nlanguage = \"ja\"\n[layout]\nwriting-mode = \"vertical-rl\"\n[[chapters]]\nfile = \"a.html\"\n",
    );
    f.write(
        "a.html",
        "<html><body><h1>一</h1><p>ある日の暮方の事である。<ruby>漢字<rt>かんじ</rt></ruby>を読む。</p><p><ruby>下人<rp>（</rp><rt>げにん</rt><rp>）</rp></ruby>が雨やみを待っていた。</p></body></html>",
    );
    build(&f, &["--target", "kobo,kindle"]);
    let whole = |doc: &str| {
        doc.contains("<ruby>漢字<rt>かんじ</rt></ruby>")
            && doc.contains("<ruby>下人<rp>（</rp><rt>げにん</rt><rp>）</rp></ruby>")
    };
    for out in ["out.kepub.epub", "out.kindle.epub"] {
        let epub = f.path(out);
        let docs = content_documents(&epub);
        let chapter = docs
            .iter()
            .find(|(_, d)| d.contains("<ruby>"))
            .map(|(_, d)| d.as_str())
            .unwrap_or_else(|| panic!("{out}: no ruby left"));
        assert!(whole(chapter), "{out}: {chapter}");
        common::assert_valid(&epub);
    }
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

/// A novel downloaded as one text file: a synopsis, then three volumes of two chapters each.
fn one_file_three_volume_novel() -> Fixture {
    let f = Fixture::empty();
    let mut text = String::from("简介：三卷的故事。\n\n");
    for (v, name) in ["一", "二", "三"].iter().enumerate() {
        text.push_str(&format!("第{name}卷 卷名{name}\n\n"));
        for c in 1..=2 {
            let n = v * 2 + c;
            text.push_str(&format!(
                "第{n}章 标题{n}\n\n　　正文{n}。他说：「好。」又一句！\n\n"
            ));
        }
    }
    f.write("小说.txt", text);
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"长篇\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
         [output]\nsplit = \"parts\"\n\n[[chapters]]\nfile = \"小说.txt\"\nsplit = \"auto\"\n",
    );
    f
}

#[test]
fn split_parts_makes_a_book_per_volume_heading_inside_one_text_file() {
    // Regression: the volumes of a novel in one text file made one EPUB.
    let f = one_file_three_volume_novel();
    let r = build(&f, &[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(!f.path("out.epub").exists(), "{}", r.stderr);
    for n in 1..=3 {
        let epub = f.path(&format!("out.vol{n}.epub"));
        common::assert_valid(&epub);
        let book = epubforge::inspect::open(&epub).unwrap();
        let (series, index) = book.metadata.series.clone().unwrap();
        assert_eq!(
            (series.as_str(), index.as_deref()),
            ("长篇", Some(&*n.to_string()))
        );
        let name = ["一", "二", "三"][n - 1];
        // The volume's heading is its subtitle.
        let titles = [format!("长篇 卷{name}"), format!("第{name}卷 卷名{name}")];
        assert_eq!(book.metadata.titles, titles);
        // The volume's own heading and its two chapters, the synopsis with the first.
        let toc: Vec<String> = book.toc.iter().map(|e| e.title.clone()).collect();
        let volume = book
            .toc
            .iter()
            .find(|e| e.title == format!("第{name}卷 卷名{name}"));
        let volume = volume.unwrap_or_else(|| panic!("{toc:?}"));
        let chapters: Vec<&str> = volume.children.iter().map(|c| c.title.as_str()).collect();
        let (a, b) = (2 * n - 1, 2 * n);
        assert_eq!(
            chapters,
            [format!("第{a}章 标题{a}"), format!("第{b}章 标题{b}")]
        );
        assert_eq!(toc.iter().any(|t| t == "简介"), n == 1, "{toc:?}");
        let body: String = entries(&epub)
            .into_iter()
            .filter(|(name, _)| name.contains("chapter-"))
            .map(|(_, data)| String::from_utf8(data).unwrap())
            .collect();
        for k in 1..=6 {
            let here = k == a || k == b;
            assert_eq!(body.contains(&format!("正文{k}。")), here, "{k}: {body}");
        }
    }
    assert!(!f.path("out.vol4.epub").exists());
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

#[test]
fn notes_keep_kobos_endnote_semantics_and_short_ones_are_warned_about_where_written() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Notes\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\
         [[chapters]]\nfile = \"a.md\"\n[[chapters]]\nfile = \"b.html\"\n",
    );
    f.write(
        "a.md",
        "# One\n\nA claim.[^1] Another.[^2]\n\n[^1]: Ibid.\n[^2]: A note long enough for a pop-up.\n",
    );
    f.write(
        "b.html",
        "<h1>Two</h1>\n<p>Text.<a epub:type=\"noteref\" href=\"#n1\">1</a></p>\n\
         <section epub:type=\"rearnotes\"><ol>\n<li id=\"n1\" epub:type=\"rearnote\">Yes.</li>\n</ol></section>\n",
    );
    let r = build(&f, &["--target", "epub,kobo"]);
    for out in &outputs(&f)[..2] {
        common::assert_valid(out);
    }
    let two = text(&f.path("out.epub"), "EPUB/text/chapter-0002.xhtml");
    assert!(two.contains("epub:type=\"endnote\""), "{two}");
    assert!(two.contains("epub:type=\"endnotes\""), "{two}");
    assert!(!two.contains("rearnote"), "{two}");
    // The HTML note opens with its number, a link back to its reference (given an id).
    assert!(
        two.contains("<a id=\"n1-ref\" epub:type=\"noteref\" href=\"#n1\">1</a>"),
        "{two}"
    );
    assert!(
        two.contains("<a href=\"#n1-ref\" role=\"doc-backlink\">1</a> Yes."),
        "{two}"
    );
    assert!(r.stderr.contains("a.md:5"), "{}", r.stderr);
    assert!(r.stderr.contains("b.html:4"), "{}", r.stderr);
    assert_eq!(
        r.stderr.matches("Kobo shows a note").count(),
        2,
        "{}",
        r.stderr
    );
}

/// The chapter documents of `epub` holding `needle`, by name.
fn documents_with(epub: &Path, needle: &str) -> Vec<String> {
    entries(epub)
        .into_iter()
        .filter(|(name, data)| {
            name.starts_with("EPUB/text/chapter-") && String::from_utf8_lossy(data).contains(needle)
        })
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn notes_in_the_pieces_of_a_file_split_at_h2_are_numbered_across_pieces_and_warned_about() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Split notes\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\
         [[chapters]]\nfile = \"novel.html\"\nsplit = \"h2\"\n",
    );
    f.write(
        "novel.html",
        "<html><head><title>Split notes</title></head><body>\n<h2>Chapter I</h2>\n\
         <p>One<a epub:type=\"noteref\" href=\"#fn1\">1</a>.</p>\n\
         <aside epub:type=\"footnote\" id=\"fn1\"><p>A note in its own chapter.</p></aside>\n\
         <h2>Chapter II</h2>\n<p>Two<a epub:type=\"noteref\" href=\"#fn2\">2</a> and\
         <a epub:type=\"noteref\" href=\"#fn3\">3</a>, Gutenberg's\
         <a id=\"FNanchor_4\" href=\"#Footnote_4\" class=\"fnanchor\">[4]</a>.</p>\n<h2>Footnotes</h2>\n\
         <ol epub:type=\"footnotes\">\n<li epub:type=\"footnote\" id=\"fn2\">A note in the notes \
         chapter.</li>\n<li epub:type=\"footnote\" id=\"fn3\">Ibid.</li>\n</ol>\n\
         <div class=\"footnote\"><p><a id=\"Footnote_4\"></a><a href=\"#FNanchor_4\">\
         <span class=\"label\">[4]</span></a> Id.</p></div>\n</body></html>\n",
    );
    let r = build(&f, &["--target", "epub,kobo,kindle"]);
    for out in &outputs(&f)[..3] {
        common::assert_valid(out);
    }
    let epub = f.path("out.epub");
    let [one] = &documents_with(&epub, "Chapter I<")[..] else {
        panic!("no single chapter I");
    };
    let [two] = &documents_with(&epub, "Chapter II<")[..] else {
        panic!("no single chapter II");
    };
    let one = text(&epub, one);
    let notes_doc = documents_with(&epub, "epub:type=\"footnotes\"");
    let [notes_doc] = &notes_doc[..] else {
        panic!("no single notes chapter: {notes_doc:?}");
    };
    let notes = text(&epub, notes_doc);
    // A note in the reference's own piece links back in the document.
    assert!(
        one.contains("<p><a href=\"#fn1-ref\" role=\"doc-backlink\">1</a> A note in its own"),
        "{one}"
    );
    // A note in another piece links back to the reference's document.
    let two_file = two.trim_start_matches("EPUB/text/");
    for (n, what) in [(2, "A note in the notes"), (3, "Ibid.")] {
        let back = format!("<a href=\"{two_file}#fn{n}-ref\" role=\"doc-backlink\">{n}</a> {what}");
        assert!(notes.contains(&back), "{back}\n{notes}");
    }
    let two = text(&epub, two);
    assert!(
        two.contains("<a id=\"fn2-ref\" epub:type=\"noteref\""),
        "{two}"
    );
    // Project Gutenberg's note, typed by its classes; it opens with its own link back.
    assert!(
        two.contains("<a epub:type=\"noteref\" id=\"FNanchor_4\" href=\"chapter-"),
        "{two}"
    );
    assert!(
        notes.contains("<aside epub:type=\"footnote\" id=\"Footnote_4\" class=\"footnote\"><p><a href=\"chapter-"),
        "{notes}"
    );
    // The short notes, numbered ("3 Ibid.", "[4] Id.", 7 characters), are warned about
    // where written, by the build and by `check`.
    let check = common::run(common::epubforge().arg("check").arg(f.dir.path()));
    for out in [&r.stderr, &format!("{}{}", check.stdout, check.stderr)] {
        assert_eq!(out.matches("Kobo shows a note").count(), 2, "{out}");
        assert!(out.contains("novel.html:10"), "{out}");
        assert!(out.contains("\"3 Ibid.\""), "{out}");
        assert!(out.contains("novel.html:12"), "{out}");
        assert!(out.contains("\"[4] Id.\""), "{out}");
    }
}

#[test]
fn notes_in_a_notes_file_link_back_to_their_references_in_other_chapters() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Endnotes\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\
         [[chapters]]\nfile = \"a.html\"\n[[chapters]]\nfile = \"b.html\"\n\
         [[chapters]]\nfile = \"notes.html\"\n",
    );
    f.write(
        "a.html",
        "<h1>One</h1>\n<p>A claim<a epub:type=\"noteref\" href=\"notes.html#en1\">1</a>.</p>\n",
    );
    f.write(
        "b.html",
        "<h1>Two</h1>\n<p>Another<a epub:type=\"noteref\" id=\"r2\" \
         href=\"notes.html#en2\">2</a>, and the first again\
         <a epub:type=\"noteref\" href=\"notes.html#en1\">1</a>.</p>\n",
    );
    f.write(
        "notes.html",
        "<h1>Notes</h1>\n<section epub:type=\"endnotes\"><ol>\n\
         <li epub:type=\"endnote\" id=\"en1\"><p>The source of the first claim.</p></li>\n\
         <li epub:type=\"endnote\" id=\"en2\">Op. cit.</li>\n</ol></section>\n",
    );
    let r = build(&f, &["--target", "epub,kobo,kindle"]);
    for out in &outputs(&f)[..3] {
        common::assert_valid(out);
    }
    let epub = f.path("out.epub");
    let one = text(&epub, "EPUB/text/chapter-0001.xhtml");
    let two = text(&epub, "EPUB/text/chapter-0002.xhtml");
    let notes = text(&epub, "EPUB/text/chapter-0003.xhtml");
    assert!(
        one.contains("<a id=\"en1-ref\" epub:type=\"noteref\" href=\"chapter-0003.xhtml#en1\">"),
        "{one}"
    );
    // The first reference is the one the note links back to.
    assert!(!two.contains("en1-ref"), "{two}");
    assert!(
        notes.contains(
            "<p><a href=\"chapter-0001.xhtml#en1-ref\" role=\"doc-backlink\">1</a> The source"
        ),
        "{notes}"
    );
    assert!(
        notes.contains("<a href=\"chapter-0002.xhtml#r2\" role=\"doc-backlink\">2</a> Op. cit."),
        "{notes}"
    );
    assert!(notes.contains("epub:type=\"endnote\""), "{notes}");
    // "2 Op. cit." has 10 characters once numbered: not short.
    assert!(!r.stderr.contains("Kobo shows a note"), "{}", r.stderr);
    // `check` numbers them as the build does, and finds nothing to say about them.
    let c = common::run(common::epubforge().arg("check").arg(f.dir.path()));
    assert!(
        !c.stderr.contains("short-note") && !c.stdout.contains("short-note"),
        "{}",
        c.stdout
    );
}

/// A project of one Markdown chapter showing `pictures` (name, width, height), the first of
/// them its cover.
fn picture_book(language: &str, pictures: &[(&str, u32, u32)]) -> Fixture {
    let f = Fixture::empty();
    let mut chapter = String::from("# One\n\nSome text to read before the pictures.\n\n");
    for (name, w, h) in pictures {
        image::RgbImage::from_pixel(*w, *h, image::Rgb([200, 180, 160]))
            .save(f.path(name))
            .unwrap();
        chapter.push_str(&format!("![{name}]({name})\n\n"));
    }
    f.write("a.md", chapter);
    f.write(
        "metadata.toml",
        format!(
            "[book]\ntitle = \"Pictures\"\nauthors = [\"A\"]\nlanguage = \"{language}\"\n\
             cover = \"{}\"\n[[chapters]]\nfile = \"a.md\"\n",
            pictures[0].0
        ),
    );
    f
}

fn check(args: &[&std::ffi::OsStr]) -> common::Run {
    common::run(common::epubforge().arg("check").args(args))
}

#[test]
fn check_target_reports_each_stores_published_limit_with_its_source() {
    let big = picture_book("ka", &[("small.png", 600, 600), ("big.png", 2400, 2400)]);
    let stores = ["--target", "kobo,kindle,apple,google"].map(std::ffi::OsStr::new);
    let r = check(&[big.dir.path().as_os_str(), stores[0], stores[1]]);
    assert!(r.ok, "{}", r.stderr);
    for (code, source) in [
        ("apple-image-pixels", "help.apple.com"),
        ("google-cover-size", "support.google.com/books/partner"),
        ("kindle-language", "kdp.amazon.com"),
    ] {
        let line = r.stderr.lines().find(|l| l.contains(code));
        assert!(
            line.is_some_and(|l| l.contains(source)),
            "{code}: {}",
            r.stderr
        );
    }
    assert!(
        r.stderr.contains("Pictures.apple.epub/EPUB/images/"),
        "{}",
        r.stderr
    );
    // The kepub shows its cover with an <img>; nothing here is near Kobo's 10 MB.
    assert!(!r.stderr.contains("kobo-"), "{}", r.stderr);

    let fine = picture_book("en", &[("cover.png", 1600, 2560), ("map.png", 1200, 1600)]);
    let r = check(&[fine.dir.path().as_os_str(), stores[0], stores[1]]);
    assert!(r.ok, "{}", r.stderr);
    for code in [
        "apple-image-pixels",
        "google-cover-size",
        "kindle-",
        "kobo-",
        "store-limit",
    ] {
        assert!(!r.stderr.contains(code), "{code}: {}", r.stderr);
    }
}

#[test]
fn check_target_kobo_wants_the_cover_as_an_img_which_the_kepub_has() {
    let f = picture_book("en", &[("cover.png", 1600, 2560)]);
    build(&f, &["--target", "epub,kobo"]);
    let kobo = ["--target", "kobo", "--no-epubcheck"].map(std::ffi::OsStr::new);
    let plain = f.path("out.epub");
    let r = check(&[plain.as_os_str(), kobo[0], kobo[1], kobo[2]]);
    assert!(
        r.stderr.contains("warning[kobo-cover-image]"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("kobolabs/epub-spec"), "{}", r.stderr);
    let kepub = f.path("out.kepub.epub");
    common::assert_valid(&kepub);
    let r = check(&[kepub.as_os_str(), kobo[0], kobo[1], kobo[2]]);
    assert!(!r.stderr.contains("kobo-cover-image"), "{}", r.stderr);
}

#[test]
fn a_kindle_build_warns_about_a_language_amazon_does_not_list_and_keeps_the_spine_order() {
    let f = three_part_novel("\"parts\"");
    // Chinese is on the list.
    let r = build(&f, &["--target", "epub,kindle"]);
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("Amazon's list"), "{}", r.stderr);
    let metadata = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    f.write("metadata.toml", metadata.replace("\"zh-CN\"", "\"ka\""));
    let r = build(&f, &["--target", "epub,kindle"]);
    assert!(
        r.stderr.contains("`ka` is not on Amazon's list"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("kdp.amazon.com"), "{}", r.stderr);
    let kindle = ["--target", "kindle", "--no-epubcheck"].map(std::ffi::OsStr::new);
    let volumes: Vec<PathBuf> = std::fs::read_dir(f.dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.to_string_lossy().ends_with(".epub") && p.to_string_lossy().contains("kindle")
        })
        .collect();
    assert_eq!(volumes.len(), 3, "{volumes:?}");
    for v in &volumes {
        let r = check(&[v.as_os_str(), kindle[0], kindle[1], kindle[2]]);
        assert!(!r.stderr.contains("kindle-spine-order"), "{}", r.stderr);
        assert!(!r.stderr.contains("kindle-construct"), "{}", r.stderr);
        assert!(r.stderr.contains("kindle-language"), "{}", r.stderr);
    }
    // The plain EPUB says nothing about Kindle's language.
    let r = build(&f, &["--target", "epub"]);
    assert!(!r.stderr.contains("Amazon's list"), "{}", r.stderr);
}

#[test]
fn azw3_with_a_relative_output_from_another_folder_lands_there_and_keeps_the_epub_apart() {
    let f = Fixture::sample();
    std::fs::create_dir_all(f.path("elsewhere/out")).unwrap();
    let run = |tool: Option<PathBuf>| {
        let mut cmd = common::epubforge();
        if let Some(tool) = tool {
            cmd.env("EBOOK_CONVERT", tool);
        }
        cmd.current_dir(f.path("elsewhere"))
            .args(["build", "--target", "azw3", "-o", "out/book.azw3"])
            .arg(f.dir.path());
        common::run(&mut cmd)
    };
    // Without calibre: the Kindle EPUB is written beside where the AZW3 would go, as an EPUB.
    let r = run(Some(f.path("no-such-ebook-convert")));
    assert!(!r.ok);
    let epub = f.path("elsewhere/out/book.epub");
    assert_eq!(&std::fs::read(&epub).unwrap()[..2], b"PK", "{}", r.stderr);
    assert!(!f.path("elsewhere/out/book.azw3").exists());
    if which("ebook-convert").is_none() {
        eprintln!("note: calibre not installed; the AZW3 was not made");
        return;
    }
    let r = run(None);
    assert!(r.ok, "{}", r.stderr);
    let bytes = std::fs::read(f.path("elsewhere/out/book.azw3")).unwrap();
    assert_eq!(&bytes[60..68], b"BOOKMOBI", "a Mobipocket/KF8 file");
    assert!(r.stdout.contains("out/book.azw3"), "{}", r.stdout);
    common::assert_valid(&epub);
}

#[test]
fn the_kindle_toc_is_two_levels_deep_with_sections_of_chapters_in_parts() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Deep\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[layout]\ntoc-depth = 3\n\
         [[parts]]\ntitle = \"Part One\"\n[[parts.chapters]]\nfile = \"a.md\"\n",
    );
    f.write(
        "a.md",
        "# Chapter\n\nText.\n\n## Section\n\nMore text.\n\n### Sub\n\nLast text.\n",
    );
    build(&f, &["--target", "epub,kindle"]);
    let kindle = ["--target", "kindle", "--no-epubcheck"].map(std::ffi::OsStr::new);
    let plain = f.path("out.epub");
    let r = check(&[plain.as_os_str(), kindle[0], kindle[1], kindle[2]]);
    assert!(r.stderr.contains("4 levels deep"), "{}", r.stderr);
    let epub = f.path("out.kindle.epub");
    common::assert_valid(&epub);
    let r = check(&[epub.as_os_str(), kindle[0], kindle[1], kindle[2]]);
    assert!(!r.stderr.contains("kindle-construct"), "{}", r.stderr);
    assert!(!r.stderr.contains("kindle-spine-order"), "{}", r.stderr);
    let ncx = text(&epub, "EPUB/toc.ncx");
    assert!(
        ncx.contains("<meta name=\"dtb:depth\" content=\"2\"/>"),
        "{ncx}"
    );
    assert!(
        ncx.contains("Sub"),
        "the deepest heading is still listed: {ncx}"
    );
}

#[test]
fn check_target_of_four_stores_reports_what_each_store_reports_alone() {
    let pictures = picture_book("ka", &[("small.png", 600, 600), ("big.png", 2400, 2400)]);
    // Three volumes in a language Amazon does not list: a finding for each Kindle EPUB.
    let novel = three_part_novel("\"parts\"");
    let metadata = std::fs::read_to_string(novel.path("metadata.toml")).unwrap();
    novel.write("metadata.toml", metadata.replace("\"zh-CN\"", "\"ka\""));
    for f in [&pictures, &novel] {
        let dir = f.dir.path().as_os_str();
        let run = |stores: &str| {
            let args = ["--target", stores, "-v", "--no-epubcheck"].map(std::ffi::OsStr::new);
            check(&[dir, args[0], args[1], args[2], args[3]])
        };
        let all = run("kobo,kindle,apple,google");
        let mut alone = Vec::new();
        for store in ["kobo", "kindle", "apple", "google"] {
            let r = run(store);
            assert_eq!(r.code, all.code, "{store}: {}", r.stderr);
            alone.extend(store_findings(&r.stderr));
        }
        assert!(!alone.is_empty(), "{}", all.stderr);
        assert_eq!(store_findings(&all.stderr), alone, "{}", all.stderr);
        // Each finding names an EPUB that `build` writes (a volume's is named after it).
        let mut cmd = common::epubforge();
        cmd.args(["build", "--target", "kobo,kindle,apple,epub"])
            .arg(dir);
        let built = common::run(&mut cmd);
        assert!(built.ok, "{}", built.stderr);
        for finding in &alone {
            let at = finding.split("--> ").nth(1).unwrap();
            let epub = &at[..at.find(".epub").unwrap() + 5];
            assert!(f.path(epub).is_file(), "{epub}: {}", built.stderr);
        }
    }
}

/// The lines (with their detail lines) of a check's output about the stores' limits.
fn store_findings(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut inside = false;
    for line in stderr.lines() {
        if line.starts_with("warning[") || line.starts_with("error[") {
            inside = ["apple-", "google-", "kobo-", "kindle-", "store-limit"]
                .iter()
                .any(|c| line.contains(c));
            if inside {
                out.push(line.to_string());
            }
        } else if inside && line.starts_with(' ') {
            out.last_mut().unwrap().push_str(line);
        } else {
            inside = false;
        }
    }
    out
}
