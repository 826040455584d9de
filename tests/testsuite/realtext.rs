//! Real-book shapes through the binary (issue 15, items 7 to 9): `init` then `build`, as a new
//! user would, on small fixtures written in the shape of the corpus's real files (Project
//! Gutenberg texts, 三国演义 and 水浒传 downloads, an mdBook book). The real books are not in
//! the repository; these fixtures copy their structure, not their text.

use crate::common;

use common::{Fixture, assert_valid, epubforge, paragraphs, run, spine, text};

/// `init` on the fixture, which must succeed; the metadata written.
fn init(f: &Fixture) -> String {
    let r = run(epubforge().arg("init").arg(f.dir.path()));
    assert!(r.ok, "init failed: {}", r.stderr);
    std::fs::read_to_string(f.path("metadata.toml")).unwrap()
}

/// The chapter documents' XHTML, in reading order (the generated title page left out).
fn chapters(epub: &std::path::Path) -> Vec<String> {
    spine(epub)
        .iter()
        .filter(|h| h.contains("chapter-") || h.contains("part-"))
        .map(|h| text(epub, &format!("EPUB/{h}")))
        .collect()
}

/// The `<h1>` of a chapter document.
fn heading(xhtml: &str) -> String {
    let start = xhtml.find("<h1").expect("a heading");
    let open_end = xhtml[start..].find('>').unwrap() + start + 1;
    let end = xhtml[open_end..].find("</h1>").unwrap() + open_end;
    xhtml[open_end..end].to_string()
}

/// A Project Gutenberg text in the shape of Pride and Prejudice's (pg1342.txt): header, START
/// marker, an illustrated title page, a chapter heading that is the caption of an
/// illustration, `_italics_`, bare `[Illustration]` markers, END marker and licence.
fn gutenberg_text(chapters: usize) -> String {
    let mut t = String::from(
        "The Project Gutenberg eBook of A Small Novel\n\nThis eBook is for the use of anyone anywhere in the United States and\nmost other parts of the world at no cost.\n\nTitle: A Small Novel\n\nAuthor: Ann Author\n\nRelease date: June 1, 1998 [eBook #99999]\n\nLanguage: English\n\n*** START OF THE PROJECT GUTENBERG EBOOK A SMALL NOVEL ***\n\n\n\n                            [Illustration:\n\n                             GEORGE ALLEN\n                               PUBLISHER\n                                   ]\n\n\n                                A SMALL\n                                 NOVEL\n\n",
    );
    for n in 1..=chapters {
        let roman = ["I", "II", "III", "IV", "V"][n - 1];
        if n == 1 {
            t.push_str("[Illustration: ·A SMALL NOVEL·\n\n\n\n\nChapter I.]\n\n\n");
        } else {
            t.push_str(&format!("\n\nCHAPTER {roman}.\n\n\n[Illustration]\n\n"));
        }
        t.push_str(&format!(
            "It is a truth universally acknowledged, that a single man in\npossession of chapter {n} must want _what_ he has not.\n\n“_You_ want to tell me, and I have no objection to hearing\nit,” she said of file_name_here.\n\n[Illustration:\n\n“He came down to see the place”\n\n[_Copyright 1894 by George Allen._]]\n\nThis was invitation enough.\n"
        ));
    }
    t.push_str("\n\n\n*** END OF THE PROJECT GUTENBERG EBOOK A SMALL NOVEL ***\n\nUpdated editions will replace the previous one--the old editions will\nbe renamed.\n\nSTART: FULL LICENSE\n\nTHE FULL PROJECT GUTENBERG LICENSE\n");
    t
}

#[test]
fn a_gutenberg_text_is_split_by_init_and_its_licence_gets_a_page_of_its_own() {
    let f = Fixture::empty();
    f.write("pg99999.txt", gutenberg_text(3));
    let meta = init(&f);
    assert!(meta.contains("split = \"auto\""), "{meta}");
    assert!(meta.contains("title = \"A Small Novel\""), "{meta}");
    assert!(meta.contains("authors = [\"Ann Author\"]"), "{meta}");
    let b = f.build(&[]);
    assert!(b.ok, "{}", b.stderr);
    assert!(!b.stderr.contains("warning"), "{}", b.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let docs = chapters(&epub);
    let titles: Vec<String> = docs.iter().map(|d| heading(d)).collect();
    assert_eq!(
        titles,
        [
            "Foreword",
            "Chapter I.",
            "CHAPTER II.",
            "CHAPTER III.",
            "The Project Gutenberg License"
        ]
    );
    let last_chapter = &docs[3];
    assert!(!last_chapter.contains("Gutenberg") && !last_chapter.contains("LICENSE"));
    let licence = docs.last().unwrap();
    assert!(licence.contains("*** START OF THE PROJECT GUTENBERG"));
    assert!(licence.contains("*** END OF THE PROJECT GUTENBERG"));
    assert!(licence.contains("FULL PROJECT GUTENBERG LICENSE"));
    assert!(!docs[0].contains("Gutenberg"), "{}", docs[0]);
    // Italics, illustrations, and underscores inside a word left alone.
    let first = &docs[1];
    assert!(first.contains("want <em>what</em> he"), "{first}");
    assert!(first.contains("“<em>You</em> want"), "{first}");
    assert!(first.contains("file_name_here"), "{first}");
    assert!(
        first.contains("<p class=\"illustration\">[Illustration: ·A SMALL NOVEL·]</p>"),
        "{first}"
    );
    assert!(first.contains(
        "<p class=\"illustration\">[Illustration: “He came down to see the place” [<em>Copyright 1894 by George Allen.</em>]]</p>"
    ));
    assert!(docs[2].contains("<p class=\"illustration\">[Illustration]</p>"));
    for d in &docs {
        let paras = paragraphs(d).concat();
        assert!(!paras.contains("Chapter I.]"));
        assert!(!paras.contains(" _what_ "));
    }
}

#[test]
fn a_gutenberg_novel_with_a_contents_list_and_books_makes_volumes_not_empty_chapters() {
    // War and Peace's shape: CRLF, an indented contents list, BOOK ... : year over CHAPTER I…,
    // an epilogue holding chapters of its own.
    let mut t = String::from(
        "The Project Gutenberg eBook of War and Peace, by Leo Tolstoy\n\nTitle: War and Peace\n\nAuthor: Leo Tolstoy\n\n*** START OF THE PROJECT GUTENBERG EBOOK WAR AND PEACE ***\n\nWAR AND PEACE\n\n    Contents\n\n",
    );
    let books = [
        ("BOOK ONE: 1805", 3),
        ("BOOK TWO: 1805", 2),
        ("FIRST EPILOGUE: 1813 - 20", 2),
    ];
    for (book, n) in books {
        t.push_str(&format!("    {book}\n\n"));
        for c in ["I", "II", "III"].iter().take(n) {
            t.push_str(&format!("    CHAPTER {c}\n\n"));
        }
    }
    t.push_str("\n\n\n");
    for (book, n) in books {
        t.push_str(&format!("{book}\n\n\n\n"));
        for c in ["I", "II", "III"].iter().take(n) {
            t.push_str(&format!(
                "CHAPTER {c}\n\n“Well, Prince, so Genoa and Lucca are now just family estates\nof the Buonapartes,” said she in chapter {c} of {book}.\n\nHe spoke.\n\n"
            ));
        }
    }
    t.push_str("*** END OF THE PROJECT GUTENBERG EBOOK WAR AND PEACE ***\n\nLicence.\n");
    let f = Fixture::empty();
    f.write("2600-0.txt", t.replace('\n', "\r\n"));
    let meta = init(&f);
    assert!(meta.contains("split = \"auto\""), "{meta}");
    let b = f.build(&[]);
    assert!(b.ok, "{}", b.stderr);
    assert!(!b.stderr.contains("warning"), "{}", b.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let nav = text(&epub, "EPUB/nav.xhtml");
    let toc = nav.split("landmarks").next().unwrap();
    assert_eq!(toc.matches("BOOK ONE: 1805").count(), 1, "{toc}");
    assert_eq!(toc.matches("CHAPTER I<").count(), 3, "{toc}");
    assert_eq!(toc.matches("<li>").count(), 1 + 3 + 7 + 1, "{toc}");
    let ncx = text(&epub, "EPUB/toc.ncx");
    assert!(ncx.contains("dtb:depth\" content=\"2\""));
}

#[test]
fn moby_dicks_headings_are_found_once_and_cetology_stays_text() {
    // BOM, CRLF, the contents list at the top, `CHAPTER 1. Loomings.` headings ending in a
    // full stop, a title wrapped onto two lines, and Cetology's paragraphs opening with
    // `BOOK I. (Folio), CHAPTER I.`.
    let list = "CHAPTER 1. Loomings.\n\nCHAPTER 2. The Carpet-Bag.\n\nCHAPTER 3. Of the Less Erroneous Pictures of Whales, and the True\nPictures of Whaling Scenes.\n\nEpilogue\n\n";
    let prose = "Call me Ishmael. Some years ago--never mind how long precisely--having\nlittle or no money in my purse, and nothing particular to interest me on\nshore, I thought I would sail about a little and see the watery part of\nthe world.\n\n";
    let body = format!(
        "CHAPTER 1. Loomings.\n\n{p}{p}{p}CHAPTER 2. The Carpet-Bag.\n\n{p}{p}BOOK I. (_Folio_), CHAPTER I. (_Sperm Whale_).--This whale, among the\nEnglish of old vaguely known as the Trumpa whale, and the Physeter\nwhale, is the present Cachalot of the French.\n\n{p}CHAPTER 3. Of the Less Erroneous Pictures of Whales, and the True\nPictures of Whaling Scenes.\n\n{p}{p}{p}Epilogue\n\n{p}{p}",
        p = prose
    );
    let t = format!(
        "\u{feff}The Project Gutenberg EBook of Moby Dick\n\n*** START OF THIS PROJECT GUTENBERG EBOOK MOBY DICK ***\n\nProduced by Daniel Lazarus\n\nMOBY-DICK;\n\nCONTENTS\n\nETYMOLOGY.\n\n{list}  ETYMOLOGY.\n\nWhile you take in hand to school others.\n\n{body}End of Project Gutenberg's Moby Dick\n\n*** END OF THIS PROJECT GUTENBERG EBOOK MOBY DICK ***\n"
    );
    let f = Fixture::empty();
    f.write("2701-0.txt", t.replace('\n', "\r\n"));
    init(&f);
    let b = f.build(&[]);
    assert!(b.ok, "{}", b.stderr);
    assert!(!b.stderr.contains("warning"), "{}", b.stderr);
    let docs = chapters(&f.path("out.epub"));
    let titles: Vec<String> = docs.iter().map(|d| heading(d)).collect();
    assert_eq!(
        titles,
        [
            "Foreword",
            "CHAPTER 1. Loomings.",
            "CHAPTER 2. The Carpet-Bag.",
            "CHAPTER 3. Of the Less Erroneous Pictures of Whales, and the True Pictures of Whaling Scenes.",
            "Epilogue",
            "The Project Gutenberg License",
        ]
    );
    assert!(docs[2].contains("<em>Sperm Whale</em>"), "{}", docs[2]);
    assert!(
        docs[0].contains("CHAPTER 2. The Carpet-Bag."),
        "the list stays text"
    );
    assert!(
        !docs[0].contains("Daniel Lazarus"),
        "the credit is boilerplate"
    );
}

/// GBK bytes of `text`.
fn gbk(text: &str) -> Vec<u8> {
    encoding_rs::GBK.encode(text).0.into_owned()
}

#[test]
fn classical_numbering_is_read_from_its_sequence_and_the_real_duplicate_is_warned() {
    // 三国演义 (GBK download): 第一百一回 follows 第一百回, 第一百十回 is 110; 第三十五回 twice.
    let mut t = String::from("三国演义\n\n");
    let numbers = [
        "三十四",
        "三十五",
        "三十五",
        "三十六",
        "一百",
        "一百一",
        "一百二",
        "一百三",
        "一百四",
        "一百五",
        "一百六",
        "一百七",
        "一百八",
        "一百九",
        "一百十",
        "一百十一",
    ];
    for n in numbers {
        t.push_str(&format!(
            "第{n}回　某某某某某某某 某某某某某某某\n\n    话说正文一句，正文又一句，正文再一句，正文还有一句，正文的最后一句。\n\n"
        ));
    }
    let f = Fixture::empty();
    f.write("三国演义.txt", gbk(&t));
    let meta = init(&f);
    assert!(meta.contains("split = \"auto\""), "{meta}");
    assert!(meta.contains("encoding = \"gbk\""), "{meta}");
    assert!(meta.contains("language = \"zh-CN\""), "{meta}");
    let b = f.build(&["-v"]);
    assert!(b.ok, "{}", b.stderr);
    assert!(
        b.stderr.contains("GBK"),
        "the build reads GBK too: {}",
        b.stderr
    );
    let numbering: Vec<&str> = b
        .stderr
        .lines()
        .filter(|l| l.contains("chapter number"))
        .collect();
    assert_eq!(numbering.len(), 2, "{numbering:?}");
    assert!(numbering[0].contains("35 appears again"), "{numbering:?}");
    assert!(
        numbering[1].contains("jumps from 36 to 100"),
        "the file's own gap is still warned: {numbering:?}"
    );
}

#[test]
fn a_hard_wrapped_file_with_indented_first_lines_keeps_its_paragraphs() {
    // 水浒传 (rain8.com GBK): 4-space first-line indents, lines wrapped at 38 characters, ASCII
    // quotes, blank lines only around headings and a poem.
    let chapter = "    话说当时史进道：\"却怎生是好？\"\n    朱武等三个头领跪下道：\"哥哥，你是干净的人，休为我等连累了。大郎可把\n索来绑缚我三个出去请赏，免得负累了你不好看。\"\n    史进道：\"如何使得！恁地时，是我赚你们来，捉你请赏，枉惹天下人笑。若\n是死时，我与你们同死；活时同活。你等起来，放心，别作圆便。且等我问个来历\n情繇。\"\n\n    诗曰：\n\n    史进上梯子问道：\"你两个何故半夜三更来劫我庄上？\"\n";
    let t = format!(
        "第一回  王教头私走延安府  九纹龙大闹史家村\n\n{chapter}\n第二回  史大郎夜走华阴县  鲁提辖拳打镇关西\n\n{chapter}"
    );
    let f = Fixture::empty();
    f.write("水浒传.txt", gbk(&t));
    init(&f);
    let b = f.build(&[]);
    assert!(b.ok, "{}", b.stderr);
    let docs = chapters(&f.path("out.epub"));
    assert_eq!(docs.len(), 2);
    let p = paragraphs(&docs[1]);
    assert_eq!(p.len(), 5, "{p:?}");
    assert!(p[1].ends_with("大郎可把索来绑缚我三个出去请赏，免得负累了你不好看。\""));
    assert!(p[2].ends_with("且等我问个来历情繇。\""), "{p:?}");
}

#[test]
fn a_web_download_s_labelled_headings_are_found() {
    // 三国演义 from a web site: `正文 第一回 …` and an update stamp under each heading.
    let mut t = String::from(
        "    [三国演义 / 罗贯中 著 ]\n    作品仅供读者预览,请在下载24小时内删除。\n\n ------章节内容开始-------\n\n",
    );
    // A paragraph a line, a chapter's worth of them, a blank line only after the stamp.
    let text = "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。\n".repeat(40);
    for (n, title) in [("一", "宴桃园豪杰三结义"), ("二", "张翼德怒鞭督邮")] {
        t.push_str(&format!(
            "    正文 第{n}回 {title}\n    更新时间:2007-11-16 7:55:51 本章字数:4804\n\n\n{text}\n"
        ));
    }
    let f = Fixture::empty();
    f.write("三国演义.txt", &t);
    init(&f);
    let b = f.build(&[]);
    assert!(b.ok, "{}", b.stderr);
    let docs = chapters(&f.path("out.epub"));
    let titles: Vec<String> = docs.iter().map(|d| heading(d)).collect();
    assert_eq!(
        titles,
        ["简介", "第一回 宴桃园豪杰三结义", "第二回 张翼德怒鞭督邮"]
    );
    // The site's lines (the notice, the update stamps) turn init's web-novel cleanup preset
    // on, which removes the stamp under each heading: forty paragraphs are left.
    let metadata = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    assert!(
        metadata.contains("cleanup-preset = \"web-novel\""),
        "{metadata}"
    );
    let p = paragraphs(&docs[1]);
    assert_eq!(
        p.len(),
        40,
        "forty paragraphs, the stamp line removed: {p:?}"
    );
    assert!(!p.iter().any(|p| p.contains("更新时间")), "{p:?}");
}

/// An mdBook book in the shape of the mdBook guide and the Rust book: book.toml with `src`,
/// SUMMARY.md with a title, a prefix chapter, parts, nesting, a draft and a suffix chapter;
/// chapters opening with `##`; includes by range, anchor and rustdoc_include.
fn mdbook(f: &Fixture) {
    f.write(
        "book.toml",
        "[book]\ntitle = \"A Guide\"\nauthors = [\"Ann\", \"Bob\"]\nlanguage = \"en\"\nsrc = \"text\"\n\n[output.html]\nsmart-punctuation = true\n",
    );
    f.write(
        "text/SUMMARY.md",
        "# Summary\n\n[Introduction](README.md)\n\n# User guide\n\n- [Installation](guide/installation.md)\n    - [The `init` *command*](guide/cli/init.md)\n        - [Draft chapter]()\n- [Appendix](appendix.md)\n\n# Reference\n\n- [Format](format/README.md)\n\n-----------\n\n[Contributors](misc/contributors.md)\n",
    );
    f.write("text/README.md", "# Introduction\n\nWelcome.\n");
    f.write("text/404.md", "# Not found\n");
    f.write(
        "text/guide/installation.md",
        "## Installation\n\n```rust\n{{#rustdoc_include ../../listings/main.rs:here}}\n```\n\nLine three: {{#include ../../listings/main.rs:3}}\n",
    );
    f.write(
        "text/guide/cli/init.md",
        "## The init command\n\n{{#include ../../../listings/missing.rs}}\n\n\\{{#include shown.rs}}\n",
    );
    f.write("text/appendix.md", "# Appendix\n\nA.\n");
    f.write(
        "text/format/README.md",
        "Format text.\n\n{{#include ../../../outside.rs}}\n",
    );
    f.write("text/misc/contributors.md", "# Contributors\n\nMany.\n");
    f.write(
        "listings/main.rs",
        "use std::io;\n// ANCHOR: here\nfn main() {\n    println!(\"hi\");\n}\n// ANCHOR_END: here\n",
    );
}

#[test]
fn init_on_an_mdbook_book_follows_its_summary_and_build_resolves_includes() {
    let f = Fixture::empty();
    mdbook(&f);
    let meta = init(&f);
    let value: toml::Table = toml::from_str(&meta).unwrap();
    assert_eq!(value["book"]["title"].as_str(), Some("A Guide"));
    assert_eq!(value["book"]["authors"].as_array().unwrap().len(), 2);
    let prefix = value["chapters"].as_array().unwrap();
    assert_eq!(prefix.len(), 1);
    assert_eq!(prefix[0]["file"].as_str(), Some("text/README.md"));
    let parts = value["parts"].as_array().unwrap();
    let part_titles: Vec<&str> = parts.iter().map(|p| p["title"].as_str().unwrap()).collect();
    assert_eq!(part_titles, ["User guide", "Reference"]);
    let guide = parts[0]["chapters"].as_array().unwrap();
    let shape: Vec<(&str, &str, i64)> = guide
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap(),
                c["title"].as_str().unwrap(),
                c.get("level").and_then(|l| l.as_integer()).unwrap_or(1),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("text/guide/installation.md", "Installation", 1),
            ("text/guide/cli/init.md", "The init command", 2),
            ("text/appendix.md", "Appendix", 1),
        ]
    );
    assert_eq!(
        value["suffix-chapters"][0]["file"].as_str(),
        Some("text/misc/contributors.md")
    );
    assert!(!meta.contains("404.md") && !meta.contains("file = \"text/SUMMARY.md\""));
    assert!(meta.contains("draft chapter \"Draft chapter\""), "{meta}");

    let b = f.build(&[]);
    assert!(b.ok, "{}", b.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let docs = chapters(&epub);
    let install = docs.iter().find(|d| heading(d) == "Installation").unwrap();
    // Code is highlighted: its text is read without the highlighting's spans.
    let install = &without_tags(install);
    assert!(
        install.contains("fn main() {\n    println!(\"hi\");\n}"),
        "{install}"
    );
    assert!(!install.contains("ANCHOR") && !install.contains("use std::io"));
    assert!(install.contains("Line three: fn main() {"), "{install}");
    assert_eq!(
        install.matches("Installation").count(),
        2,
        "title and <title>"
    );
    let init_doc = docs
        .iter()
        .find(|d| heading(d) == "The init command")
        .unwrap();
    assert!(init_doc.contains("{{#include shown.rs}}"), "escaped stays");
    assert!(init_doc.contains("{{#include ../../../listings/missing.rs}}"));
    let flat = common::flat(&b.stderr);
    let warnings: Vec<&str> = flat.lines().filter(|l| l.starts_with("warning")).collect();
    assert_eq!(warnings.len(), 2, "{}", b.stderr);
    assert!(
        warnings[0].contains("text/guide/cli/init.md:3:")
            && warnings[0].contains("missing.rs does not exist"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("text/format/README.md:3:") && warnings[1].contains("does not exist")
            || warnings[1].contains("outside the project folder"),
        "{warnings:?}"
    );
    let nav = text(&epub, "EPUB/nav.xhtml");
    let order: Vec<&str> = [
        "Introduction",
        "User guide",
        "Installation",
        "The init command",
        "Appendix",
        "Reference",
        "Format",
        "Contributors",
    ]
    .into_iter()
    .collect();
    let at: Vec<usize> = order.iter().map(|t| nav.find(t).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{nav}");
}

#[test]
fn an_include_leaving_the_project_is_refused_with_a_warning() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("secret.rs"), "SECRET").unwrap();
    let book = outer.path().join("book");
    std::fs::create_dir(&book).unwrap();
    std::fs::write(book.join("a.md"), "# A\n\n{{#include ../secret.rs}}\n").unwrap();
    std::fs::write(
        book.join("metadata.toml"),
        "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"a.md\"\n",
    )
    .unwrap();
    let out = outer.path().join("out.epub");
    let r = run(epubforge().arg("build").arg(&book).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    assert!(
        common::flat(&r.stderr).contains("a.md:3:")
            && r.stderr.contains("outside the project folder"),
        "{}",
        r.stderr
    );
    let body = text(&out, "EPUB/text/chapter-0001.xhtml");
    assert!(!body.contains("SECRET"));
    assert!(body.contains("{{#include ../secret.rs}}"));
    // The same one check as images: a symlink pointing out is refused too, and
    // --allow-outside-paths lets both in.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outer.path().join("secret.rs"), book.join("link.rs")).unwrap();
        std::fs::write(book.join("a.md"), "# A\n\n{{#include link.rs}}\n").unwrap();
        let r = run(epubforge().arg("build").arg(&book).arg("-o").arg(&out));
        assert!(
            common::flat(&r.stderr).contains("a.md:3:")
                && r.stderr.contains("--allow-outside-paths"),
            "{}",
            r.stderr
        );
        assert!(!text(&out, "EPUB/text/chapter-0001.xhtml").contains("SECRET"));
        std::fs::write(
            book.join("a.md"),
            "# A\n\n{{#include ../secret.rs}}\n\n{{#include link.rs}}\n",
        )
        .unwrap();
    }
    let r = run(epubforge()
        .args(["build", "--allow-outside-paths"])
        .arg(&book)
        .arg("-o")
        .arg(&out));
    assert!(r.ok && !r.stderr.contains("warning"), "{}", r.stderr);
    assert!(text(&out, "EPUB/text/chapter-0001.xhtml").contains("SECRET"));
}

#[test]
fn init_in_an_mdbook_chapter_folder_uses_its_summary() {
    let f = Fixture::empty();
    f.write(
        "SUMMARY.md",
        "- [One](one.md)\n- [Two](sub/two.md)\n    - [Deep](sub/deeper/three.md)\n",
    );
    f.write("one.md", "## One\n");
    f.write("sub/two.md", "# Two\n");
    f.write("sub/deeper/three.md", "# Three\n");
    f.write("404.md", "# Lost\n");
    let meta = init(&f);
    let files: Vec<&str> = meta.lines().filter(|l| l.starts_with("file = ")).collect();
    assert_eq!(
        files,
        [
            "file = \"one.md\"",
            "file = \"sub/two.md\"",
            "file = \"sub/deeper/three.md\""
        ]
    );
    assert!(f.build(&[]).ok);
}

#[test]
fn init_without_a_summary_lists_files_at_any_depth_in_natural_order_titled_by_headings() {
    let f = Fixture::empty();
    f.write("ch10/part.md", "## Tenth: `code` **bold**\n");
    f.write("ch2/deep/part.md", "### Second\n");
    f.write("ch1.md", "# First\n");
    let meta = init(&f);
    let (_, entries) = meta.split_once("\n[[chapters]]").unwrap();
    let titles: Vec<&str> = entries
        .lines()
        .filter(|l| l.starts_with("title = "))
        .collect();
    assert_eq!(
        titles,
        [
            "title = \"First\"",
            "title = \"Second\"",
            "title = \"Tenth: code bold\""
        ],
        "{meta}"
    );
    let files: Vec<&str> = meta.lines().filter(|l| l.starts_with("file = ")).collect();
    assert_eq!(files[1], "file = \"ch2/deep/part.md\"");
}

#[test]
fn editing_an_included_file_rebuilds_a_cached_book() {
    // The build cache lists the chapter files, not what they include: a book whose chapters
    // read other files is built again every time rather than taken as up to date.
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"a.md\"\n",
    );
    f.write("a.md", "# A\n\n```rust\n{{#include code.rs}}\n```\n");
    f.write("code.rs", "fn one() {}\n");
    let build = || {
        let mut cmd = epubforge();
        cmd.arg("build")
            .arg(f.dir.path())
            .arg("-o")
            .arg(f.path("out.epub"));
        run(&mut cmd)
    };
    let first = build();
    assert!(first.ok, "{}", first.stderr);
    f.write("code.rs", "fn two() {}\n");
    let second = build();
    assert!(second.ok, "{}", second.stderr);
    assert!(!second.stderr.contains("up to date"), "{}", second.stderr);
    let body = without_tags(&text(&f.path("out.epub"), "EPUB/text/chapter-0001.xhtml"));
    assert!(
        body.contains("fn two()") && !body.contains("fn one()"),
        "{body}"
    );
}

/// `xhtml` with its tags taken out (entities left as they are).
fn without_tags(xhtml: &str) -> String {
    let mut out = String::with_capacity(xhtml.len());
    let mut in_tag = false;
    for c in xhtml.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// A Project Gutenberg HTML edition in the shape of Pride and Prejudice's (1342-h.htm): a
/// title page with the book's `h1` in a `div`, chapters as `h2` with page numbers and
/// pictures in them, a contents list linking to the chapters.
fn gutenberg_html(chapters: usize) -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html><head><title>Pride and Prejudice | Project Gutenberg</title></head>\
         <body>\n<div class=\"blk\"><h1><i>PRIDE. and PREJUDICE</i></h1><p>by Jane Austen</p></div>\n\
         <h2><a id=\"CONTENTS\"></a>CONTENTS.</h2>\n<p>",
    );
    for n in 1..=chapters {
        html.push_str(&format!("<a href=\"#CHAPTER_{n}\">{n}</a> "));
    }
    html.push_str("</p>\n");
    for n in 1..=chapters {
        html.push_str(&format!(
            "<p><span class=\"pagenum\"><a id=\"page_{n}\">{{{n}}}</a></span></p>\n\
             <h2><a id=\"CHAPTER_{n}\"></a><img src=\"i_{n}.png\" alt=\"\"/><br/>CHAPTER {n}.</h2>\n\
             <p>It is a truth universally acknowledged, number {n}.</p>\n"
        ));
    }
    html.push_str("</body></html>\n");
    html
}

#[test]
fn init_splits_a_lone_html_book_at_its_chapter_headings_and_the_contents_links_work() {
    let f = Fixture::empty();
    f.write("1342-h.htm", gutenberg_html(5));
    for n in 1..=5 {
        let img = image::RgbImage::from_pixel(4, 4, image::Rgb([20, 30, 200]));
        let mut png = std::io::Cursor::new(Vec::new());
        img.write_to(&mut png, image::ImageFormat::Png).unwrap();
        f.write(&format!("i_{n}.png"), png.into_inner());
    }
    let meta = init(&f);
    assert!(meta.contains("split = \"h2\""), "{meta}");
    let r = run(epubforge()
        .arg("build")
        .arg(f.dir.path())
        .arg("-o")
        .arg(f.path("out.epub")));
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let docs = chapters(&epub);
    let titles: Vec<String> = docs.iter().map(|d| heading(d)).collect();
    assert_eq!(
        titles,
        [
            "PRIDE. and PREJUDICE",
            "CONTENTS.",
            "CHAPTER 1.",
            "CHAPTER 2.",
            "CHAPTER 3.",
            "CHAPTER 4.",
            "CHAPTER 5."
        ]
    );
    // The contents list links to each chapter's own document.
    let contents = &docs[1];
    for n in 1..=5 {
        let href = format!(
            "href=\"chapter-{:04}.xhtml#epubforge-chapter-title\"",
            n + 2
        );
        assert!(contents.contains(&href), "{href} in {contents}");
    }
}

#[test]
fn init_splits_a_lone_markdown_book_but_not_a_book_of_several_markdown_files() {
    let f = Fixture::empty();
    f.write(
        "book.md",
        "# My Book\n\nIntro.\n\n## One\n\nText.\n\n### Aside\n\nMore.\n\n## Two\n\nText.\n",
    );
    let meta = init(&f);
    assert!(meta.contains("split = \"h2\""), "{meta}");
    let f = Fixture::empty();
    f.write("a.md", "# A\n\n## One\n\nx\n\n## Two\n\ny\n");
    f.write("b.md", "# B\n\ntext\n");
    let meta = init(&f);
    assert!(!meta.lines().any(|l| l.starts_with("split")), "{meta}");
}

#[test]
fn init_splits_at_the_headings_that_divide_the_book_not_at_a_title_pages_lines() {
    // Project Gutenberg's Katrine: the title page in <h2>s, the chapters in <h3>s.
    let mut html = String::from(
        "<html><head><title>Katrine</title></head><body>\n<h2>KATRINE</h2>\n<h2>A Novel</h2>\n\
         <h2>BY</h2>\n<h2>ELINOR MACARTNEY LANE</h2>\n",
    );
    for n in ["I", "II", "III", "IV"] {
        html.push_str(&format!("<h3>{n}<br/>A CHAPTER</h3>\n"));
        for _ in 0..20 {
            html.push_str("<p>Ravenel Plantation occupies a singular rise of wooded land.</p>\n");
        }
    }
    html.push_str("</body></html>\n");
    let f = Fixture::empty();
    f.write("14263-h.htm", html);
    let meta = init(&f);
    assert!(meta.contains("split = \"h3\""), "{meta}");
}

/// A Project Gutenberg HTML edition in the shape of News from Nowhere's (3261-h.htm): the
/// header opens with an `h2` (a link to the start of the text) over a `<pre>` holding the
/// START marker, a transcriber's credit follows it; the END marker sits in the last chapter
/// and the licence after it has headings of its own.
fn gutenberg_html_with_header_heading() -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html><head><title>The Project Gutenberg eBook of A Small Novel, by \
         Ann Author</title></head><body>\n<h2><a href=\"#startoftext\">A Small Novel, by Ann \
         Author</a></h2>\n<pre>\nThe Project Gutenberg eBook, A Small Novel, by Ann Author\n\n\
         Title: A Small Novel\n\nAuthor: Ann Author\n\n\
         ***START OF THE PROJECT GUTENBERG EBOOK A SMALL NOVEL***\n</pre>\n\
         <p><a name=\"startoftext\"></a></p>\n<p>Transcribed from the 1908 edition by A \
         Volunteer.</p>\n<h1>A SMALL NOVEL</h1>\n<p>by Ann Author</p>\n",
    );
    for n in ["I", "II", "III"] {
        html.push_str(&format!(
            "<h2>CHAPTER {n}</h2>\n<p>It is a truth universally acknowledged, {n}.</p>\n"
        ));
    }
    html.push_str(
        "<p>***END OF THE PROJECT GUTENBERG EBOOK A SMALL NOVEL***</p>\n<pre>\nUpdated editions \
         will replace the previous one.\n</pre>\n<h2>Section 1. General Terms of Use</h2>\n\
         <p>By reading or using any part of this work you agree.</p>\n\
         <h3>1.A.</h3>\n<p>More of the licence.</p>\n</body></html>\n",
    );
    html
}

#[test]
fn a_gutenberg_html_header_and_licence_are_found_in_the_whole_file_at_every_split_level() {
    let html = gutenberg_html_with_header_heading();
    let chapters_at = |level: &str| -> Vec<&str> {
        match level {
            "h1" => vec!["A SMALL NOVEL"],
            _ => vec!["A SMALL NOVEL", "CHAPTER I", "CHAPTER II", "CHAPTER III"],
        }
    };
    for level in ["h1", "h2", "h3"] {
        let f = Fixture::empty();
        f.write("3261-h.htm", &html);
        f.write(
            "metadata.toml",
            format!(
                "[book]\ntitle = \"A Small Novel\"\nauthors = [\"Ann Author\"]\nlanguage = \"en\"\n\
                 [[chapters]]\nfile = \"3261-h.htm\"\nsplit = \"{level}\"\n"
            ),
        );
        let b = f.build(&[]);
        assert!(b.ok, "{level}: {}", b.stderr);
        let epub = f.path("out.epub");
        assert_valid(&epub);
        let docs = chapters(&epub);
        let titles: Vec<String> = docs.iter().map(|d| heading(d)).collect();
        let mut expected = chapters_at(level);
        expected.push("The Project Gutenberg License");
        assert_eq!(titles, expected, "{level}");
        let (licence, book) = docs.split_last().unwrap();
        for d in book {
            let text = without_tags(d);
            for boilerplate in [
                "Gutenberg",
                "Transcribed",
                "General Terms",
                "1.A.",
                "Updated",
            ] {
                assert!(!text.contains(boilerplate), "{level}: {boilerplate} in {d}");
            }
        }
        let licence = without_tags(licence);
        for kept in [
            "A Small Novel, by Ann Author",
            "***START OF THE PROJECT GUTENBERG",
            "Transcribed from the 1908 edition",
            "***END OF THE PROJECT GUTENBERG",
            "Section 1. General Terms of Use",
            "1.A.",
            "More of the licence.",
        ] {
            assert!(licence.contains(kept), "{level}: {kept} in {licence}");
        }
        assert!(
            licence.find("START OF").unwrap() < licence.find("END OF").unwrap(),
            "{licence}"
        );
    }
}
