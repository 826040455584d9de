//! The core pipeline, end to end: the sample book and fixture books through the real binary.

use crate::common;

use common::{Fixture, Project, assert_valid, paragraphs, spine, text};

/// The seed files' paragraphs as the book must show them: one per line, trimmed, with the two
/// mid-sentence breaks of the sample joined.
fn expected_paragraphs(seed: &str) -> Vec<String> {
    let raw = std::fs::read_to_string(common::repo().join("seeds").join(seed)).unwrap();
    let mut out: Vec<String> = Vec::new();
    let mut join_next = false;
    for line in raw.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if join_next {
            out.last_mut().unwrap().push_str(line);
        } else {
            out.push(line.to_string());
        }
        join_next = line.ends_with("与左侧后的") || line.ends_with("十四万余人，加");
    }
    out
}

const SEEDS: [&str; 3] = [
    "000_6761ebf9337845da.txt",
    "001_c5c754fed1430e80.txt",
    "003_8771c0c4f8f01cda.txt",
];

#[test]
fn sample_book_is_valid_epub3_with_ncx() {
    let f = Fixture::sample();
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), f.path("out.epub").display().to_string());
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let opf = text(&epub, "EPUB/package.opf");
    assert!(opf.contains("version=\"3.0\""));
    assert!(opf.contains("application/x-dtbncx+xml"));
}

#[test]
fn sample_text_out_equals_seed_text_in_with_the_two_joins() {
    let f = Fixture::sample();
    assert!(f.build(&[]).ok);
    let epub = f.path("out.epub");
    let chapters: Vec<String> = spine(&epub)
        .into_iter()
        .filter(|h| h.contains("chapter-"))
        .collect();
    assert_eq!(chapters.len(), 3);
    for (seed, href) in SEEDS.iter().zip(&chapters) {
        let got = paragraphs(&text(&epub, &format!("EPUB/{href}")));
        assert_eq!(got, expected_paragraphs(seed), "{seed} vs {href}");
    }
}

#[test]
fn sample_joins_broken_lines_and_keeps_standalone_line() {
    let f = Fixture::sample();
    assert!(f.build(&[]).ok);
    let epub = f.path("out.epub");
    let all: Vec<String> = (1..=3)
        .flat_map(|i| paragraphs(&text(&epub, &format!("EPUB/text/chapter-000{i}.xhtml"))))
        .collect();
    assert!(all.iter().any(|p| p.contains("与左侧后的禁军残部互为犄角")));
    assert!(
        all.iter()
            .any(|p| p.contains("十四万余人，加上几万厢军民夫"))
    );
    assert!(all.iter().any(|p| p == "金军大营"));
    assert!(
        !all.iter()
            .any(|p| p.ends_with("与左侧后的") || p.starts_with("上几万厢军"))
    );
}

#[test]
fn sample_toc_lists_chapters_in_reading_order_in_nav_and_ncx() {
    let f = Fixture::sample();
    assert!(f.build(&[]).ok);
    let epub = f.path("out.epub");
    let nav = text(&epub, "EPUB/nav.xhtml");
    let doc = roxmltree::Document::parse_with_options(
        &nav,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let toc = doc
        .descendants()
        .find(|n| n.attribute(("http://www.idpf.org/2007/ops", "type")) == Some("toc"))
        .unwrap();
    let links: Vec<(String, String)> = toc
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .map(|a| {
            (
                a.text().unwrap().to_string(),
                a.attribute("href").unwrap().to_string(),
            )
        })
        .collect();
    let chapter_spine: Vec<String> = spine(&epub)
        .into_iter()
        .filter(|h| h.contains("chapter-"))
        .collect();
    assert_eq!(
        links.iter().map(|l| l.0.as_str()).collect::<Vec<_>>(),
        ["第1章", "第2章", "第3章"]
    );
    assert_eq!(
        links.iter().map(|l| l.1.clone()).collect::<Vec<_>>(),
        chapter_spine
    );

    let ncx = text(&epub, "EPUB/toc.ncx");
    let ncx = roxmltree::Document::parse(&ncx).unwrap();
    let labels: Vec<&str> = ncx
        .descendants()
        .filter(|n| n.has_tag_name("navPoint"))
        .map(|p| {
            p.descendants()
                .find(|n| n.has_tag_name("text"))
                .and_then(|t| t.text())
                .unwrap()
        })
        .collect();
    assert_eq!(labels, ["第1章", "第2章", "第3章"]);
}

#[test]
fn same_inputs_give_byte_identical_epubs() {
    let f = Fixture::sample();
    let a = f.path("a.epub");
    let b = f.path("b.epub");
    for out in [&a, &b] {
        let r = common::run(
            common::epubforge()
                .arg("build")
                .arg(f.dir.path())
                .arg("-o")
                .arg(out),
        );
        assert!(r.ok, "{}", r.stderr);
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn source_date_epoch_sets_modified_time() {
    let f = Fixture::sample();
    let r = common::run(
        common::epubforge()
            .env("SOURCE_DATE_EPOCH", "1764374400")
            .arg("build")
            .arg(f.dir.path())
            .arg("-o")
            .arg(f.path("out.epub")),
    );
    assert!(r.ok, "{}", r.stderr);
    let opf = text(&f.path("out.epub"), "EPUB/package.opf");
    assert!(
        opf.contains("<meta property=\"dcterms:modified\">2025-11-29T00:00:00Z</meta>"),
        "{opf}"
    );
}

#[test]
fn metadata_fields_reach_the_package_document() {
    let f = Fixture::empty();
    f.write("c/1.txt", "第一段。\n");
    f.write(
        "metadata.toml",
        r#"
[book]
title = "Tom & Jerry <The Book>"
subtitle = "A Story"
authors = [{ name = "J. R. R. Tolkien", file-as = "Tolkien, J. R. R." }, "Second Author"]
contributors = [{ name = "A Translator", role = "trl" }]
language = "en-GB"
identifier = "urn:isbn:9780306406157"
publisher = "Pub"
description = "Desc"
subjects = ["Fantasy", "Adventure"]
rights = "CC BY 4.0"
published = 2026-11-29
series = "The Series"
series-index = 2

[[chapters]]
file = "c/1.txt"
title = "Opening"
"#,
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let opf = text(&epub, "EPUB/package.opf");
    for needle in [
        "<dc:title id=\"title\">Tom &amp; Jerry &lt;The Book&gt;</dc:title>",
        "<dc:title id=\"subtitle\">A Story</dc:title>",
        "<dc:identifier id=\"book-id\">urn:isbn:9780306406157</dc:identifier>",
        "<meta refines=\"#creator-1\" property=\"file-as\">Tolkien, J. R. R.</meta>",
        "<dc:creator id=\"creator-2\">Second Author</dc:creator>",
        "<meta refines=\"#contributor-1\" property=\"role\" scheme=\"marc:relators\">trl</meta>",
        "<dc:language>en-GB</dc:language>",
        "<dc:publisher>Pub</dc:publisher>",
        "<dc:subject>Adventure</dc:subject>",
        "<dc:rights>CC BY 4.0</dc:rights>",
        "<dc:date>2026-11-29</dc:date>",
        "<meta refines=\"#series\" property=\"group-position\">2</meta>",
        "<meta name=\"calibre:series_index\" content=\"2\"/>",
    ] {
        assert!(opf.contains(needle), "missing {needle} in\n{opf}");
    }
    let chapter = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(chapter.contains("<h1 id=\"epubforge-chapter-title\">Opening</h1>"));
    assert!(chapter.contains("lang=\"en-GB\" xml:lang=\"en-GB\""));
}

#[test]
fn parts_give_a_nested_toc_with_correct_ncx_depth() {
    let f = Fixture::empty();
    for i in 1..=4 {
        f.write(&format!("ch/{i}.txt"), format!("正文{i}。\n"));
    }
    f.write("front.txt", "前言。\n");
    f.write(
        "metadata.toml",
        r#"
[book]
title = "分卷"
authors = ["某"]
language = "zh-CN"

[[chapters]]
file = "front.txt"
title = "前言"

[[parts]]
title = "第一卷"
[[parts.chapters]]
glob = "ch/[12].txt"

[[parts]]
title = "第二卷"
[[parts.chapters]]
glob = "ch/[34].txt"
"#,
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let ncx = text(&epub, "EPUB/toc.ncx");
    assert!(ncx.contains("<meta name=\"dtb:depth\" content=\"2\"/>"));
    let ncx = roxmltree::Document::parse(&ncx).unwrap();
    let top: Vec<usize> = ncx
        .descendants()
        .find(|n| n.has_tag_name("navMap"))
        .unwrap()
        .children()
        .filter(|n| n.has_tag_name("navPoint"))
        .map(|p| p.children().filter(|n| n.has_tag_name("navPoint")).count())
        .collect();
    assert_eq!(top, [0, 2, 2]);
    let nav = text(&epub, "EPUB/nav.xhtml");
    assert!(nav.contains("<li><a href=\"text/part-01.xhtml\">第一卷</a>\n<ol>"));
}

#[test]
fn glob_expands_in_natural_order() {
    let f = Fixture::empty();
    for n in [10, 2, 1] {
        f.write(&format!("c/{n}.txt"), format!("第{n}段。\n"));
    }
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"zh\"\n[[chapters]]\nglob = \"c/*.txt\"\n",
    );
    assert!(f.build(&[]).ok);
    let epub = f.path("out.epub");
    let order: Vec<Vec<String>> = (1..=3)
        .map(|i| paragraphs(&text(&epub, &format!("EPUB/text/chapter-000{i}.xhtml"))))
        .collect();
    assert_eq!(order, [["第1段。"], ["第2段。"], ["第10段。"]]);
}

#[test]
fn markup_characters_are_escaped_and_control_characters_dropped_with_warning() {
    let (f, r) = Project::new("[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"en\"\n")
        .chapter("c.txt", "a < b && c > d\u{1}\u{2}。\n")
        .build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(
        r.stderr.contains("dropped 2 control character"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("c.txt:1"), "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    assert_eq!(
        paragraphs(&text(&epub, "EPUB/text/chapter-0001.xhtml")),
        ["a < b && c > d。"]
    );
}

#[test]
fn default_output_goes_to_build_folder_named_after_title() {
    let f = Fixture::sample();
    let r = common::run(common::epubforge().arg("build").arg(f.dir.path()));
    assert!(r.ok, "{}", r.stderr);
    let expected = f.path("build/安西烽火.epub");
    assert!(expected.is_file());
    assert_eq!(r.stdout.trim(), expected.display().to_string());
}

#[test]
fn no_arguments_builds_the_project_in_the_current_folder() {
    let f = Fixture::sample();
    let r = common::run(common::epubforge().current_dir(f.dir.path()));
    assert!(r.ok, "{}", r.stderr);
    assert!(f.path("build/安西烽火.epub").is_file());
}

#[test]
fn cover_is_declared_three_ways_and_shown_first() {
    let f = Fixture::sample();
    assert!(f.build(&[]).ok);
    let epub = f.path("out.epub");
    let opf = text(&epub, "EPUB/package.opf");
    assert!(opf.contains("properties=\"cover-image\""));
    assert!(opf.contains("<meta name=\"cover\" content=\"cover-image\"/>"));
    assert_eq!(spine(&epub)[0], "text/cover.xhtml");
    let cover = text(&epub, "EPUB/text/cover.xhtml");
    assert!(cover.contains("xlink:href=\"../images/cover.jpg\""));
    assert!(cover.contains("viewBox=\"0 0 1600 2560\""));
}

#[test]
fn heading_line_equal_to_the_metadata_title_is_not_repeated_as_text() {
    let f = Fixture::empty();
    f.write("a.txt", "第一章 风起\n正文。\n");
    f.write("b.txt", "第二章 云涌\n正文。\n");
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"zh-CN\"\n\
         [[chapters]]\nfile = \"a.txt\"\ntitle = \"第一章 风起\"\n\
         [[chapters]]\nfile = \"b.txt\"\ntitle = \"别的标题\"\n",
    );
    assert!(f.build(&[]).ok);
    let epub = f.path("out.epub");
    assert_eq!(
        paragraphs(&text(&epub, "EPUB/text/chapter-0001.xhtml")),
        ["正文。"]
    );
    assert_eq!(
        paragraphs(&text(&epub, "EPUB/text/chapter-0002.xhtml")),
        ["第二章 云涌", "正文。"]
    );
}
