use std::path::Path;

use super::*;
use crate::inspect::testutil::TestBook;

/// Writes `book` as `book.epub` in `dir` and returns its path.
fn epub_file(dir: &Path, book: &TestBook) -> PathBuf {
    let path = dir.join("book.epub");
    std::fs::write(&path, book.to_zip()).expect("write the EPUB");
    path
}

fn titles(toc: &[crate::inspect::TocEntry]) -> Vec<String> {
    toc.iter()
        .map(|e| {
            let inner = titles(&e.children);
            match inner.is_empty() {
                true => e.title.clone(),
                false => format!("{} [{}]", e.title, inner.join(", ")),
            }
        })
        .collect()
}

/// Builds the project in `dir` and opens the EPUB made.
fn rebuild(dir: &Path) -> crate::inspect::Epub {
    let project = crate::Project::load(dir).expect("the unpacked project loads");
    let out = dir.join("rebuilt.epub");
    let opts = crate::BuildOptions {
        output: Some(out.clone()),
        source_date_epoch: Some(1_700_000_000),
        ..crate::BuildOptions::default()
    };
    project.build(&opts).expect("the unpacked project builds");
    crate::inspect::open(&out).expect("the rebuilt EPUB opens")
}

#[test]
fn an_epub3_unpacks_into_a_project_that_builds_the_same_contents_back() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let epub = epub_file(tmp.path(), &TestBook::minimal_epub3());
    let dir = tmp.path().join("book");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let toml = std::fs::read_to_string(&unpacked.metadata_path).expect("metadata.toml");
    for line in [
        "title = \"Minimal Book\"",
        "authors = [{ name = \"Ann Writer\", file-as = \"Writer, Ann\" }]",
        "identifier = \"urn:uuid:12345678-1234-5678-1234-567812345678\"",
        "series = \"The Series\"",
        "series-index = 3",
        "cover = \"images/cover.png\"",
        "toc-depth = 2",
        "file = \"text/chapter_1.xhtml\"",
        "title = \"Chapter One\"",
    ] {
        assert!(toml.contains(line), "{line} missing from\n{toml}");
    }
    assert_eq!(unpacked.chapters.len(), 1);
    assert_eq!(unpacked.counts.images, 1);
    assert!(dir.join("images/cover.png").is_file());
    assert!(
        !dir.join("nav.xhtml").exists(),
        "the nav is the build's to make"
    );
    let rebuilt = rebuild(&dir);
    assert_eq!(titles(&rebuilt.toc), ["Chapter One [Section]"]);
    assert_eq!(rebuilt.metadata.titles, ["Minimal Book"]);
}

/// How often `needle` is in the rebuilt EPUB's chapter documents (`text/…`).
fn occurrences(epub: &Path, needle: &str) -> usize {
    let file = std::fs::File::open(epub).expect("open the EPUB");
    let mut zip = zip::ZipArchive::new(file).expect("a zip");
    let mut n = 0;
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).expect("an entry");
        if !entry.name().is_ok_and(|n| n.contains("/text/")) {
            continue;
        }
        let mut text = String::new();
        std::io::Read::read_to_string(&mut entry, &mut text).expect("UTF-8");
        n += text.matches(needle).count();
    }
    n
}

#[test]
fn a_page_missing_from_the_contents_stays_a_page_without_an_entry_or_a_heading_of_ours() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let two = crate::inspect::testutil::CHAPTER
        .replace("Chapter One", "Chapter Two")
        .replace("id=\"start\"", "id=\"two\"");
    let three = crate::inspect::testutil::CHAPTER
        .replace("<h1 id=\"start\">Chapter One</h1>", "<p>Interlude</p>")
        .replace("id=\"s1\"", "id=\"i1\"");
    let book = TestBook::minimal_epub3()
        .add("EPUB/text/two.xhtml", two.as_bytes())
        .add("EPUB/text/three.xhtml", three.as_bytes())
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"c2\" href=\"text/two.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"c3\" href=\"text/three.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"cover\"",
        )
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c1\"/>",
            "<itemref idref=\"c1\"/><itemref idref=\"c3\"/><itemref idref=\"c2\" linear=\"no\"/>",
        )
        .edit(
            "EPUB/nav.xhtml",
            "<ol><li><a href=\"text/chapter%5F1.xhtml#s1\">Section</a></li></ol>",
            "<ol><li><a href=\"text/chapter%5F1.xhtml#s1\">The section</a></li></ol></li><li><a href=\"text/two.xhtml\">Second</a>",
        );
    let epub = epub_file(tmp.path(), &book);
    let dir = tmp.path().join("out");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let got: Vec<(&str, Option<&str>, bool, usize)> = unpacked
        .chapters
        .iter()
        .map(|c| {
            (
                c.file.as_str(),
                c.title.as_deref(),
                c.linear,
                c.sections.len(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("text/chapter_1.xhtml", Some("Chapter One"), true, 1),
            ("text/three.xhtml", None, true, 0),
            ("text/two.xhtml", Some("Second"), false, 0),
        ]
    );
    let source = crate::inspect::open(&epub).expect("the source opens");
    let rebuilt = rebuild(&dir);
    // The same contents: the nav's titles, not the headings', and no entry for the page.
    assert_eq!(titles(&rebuilt.toc), titles(&source.toc));
    assert_eq!(
        titles(&rebuilt.toc),
        ["Chapter One [The section]", "Second"]
    );
    // The cover page (the build's, from `cover`), then the three pages.
    assert_eq!(rebuilt.spine.len(), 4, "{:?}", rebuilt.spine);
    // No text of ours: each heading once (its own), the page's text once, no heading made
    // from the nav's titles.
    let out = dir.join("rebuilt.epub");
    assert_eq!(occurrences(&out, ">Chapter One</h1>"), 1);
    assert_eq!(
        occurrences(&out, ">Section</h"),
        3,
        "one in each of the three files"
    );
    assert_eq!(occurrences(&out, ">Interlude<"), 1);
    assert_eq!(
        occurrences(&out, ">The section<"),
        0,
        "the nav's title is no heading"
    );
}

#[test]
fn a_folder_that_holds_files_is_refused_without_force() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let epub = epub_file(tmp.path(), &TestBook::minimal_epub3());
    let dir = tmp.path().join("busy");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(dir.join("notes.txt"), "mine").expect("write");
    let err = unpack(&epub, &dir, &UnpackOptions::new()).expect_err("refused");
    assert!(matches!(err, Error::NotEmpty { .. }), "{err}");
    assert!(!dir.join(crate::project::METADATA_FILE).exists());
    unpack(&epub, &dir, &UnpackOptions::new().force(true)).expect("forced");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).expect("kept"),
        "mine"
    );
}

#[test]
fn an_entry_named_to_climb_out_of_the_folder_is_not_written() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let book = TestBook::minimal_epub3()
        .add("evil.xhtml", crate::inspect::testutil::CHAPTER.as_bytes())
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"evil\" href=\"../../evil.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"cover\"",
        );
    let epub = epub_file(tmp.path(), &book);
    let dir = tmp.path().join("a/b");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    assert!(!tmp.path().join("evil.xhtml").exists());
    assert!(!tmp.path().join("a/evil.xhtml").exists());
    let inside: Vec<_> = walkdir::WalkDir::new(tmp.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "evil.xhtml")
        .map(|e| e.into_path())
        .collect();
    assert!(inside.iter().all(|p| p.starts_with(&dir)), "{inside:?}");
    assert_eq!(unpacked.chapters.len(), 1);
}

/// A spine with no `<itemref>`, or only the navigation document's (EbookLib's `spine =
/// ['nav']`), with the chapters in the manifest: the reading order is the contents' (the
/// manifest lists the second chapter first), the same way in both cases, and a warning says so.
#[test]
fn a_spine_of_only_the_nav_or_nothing_reads_in_the_contents_order() {
    let nav = "<li><a href=\"text/chapter%5F1.xhtml\">Chapter One</a></li>\
        <li><a href=\"text/two.xhtml\">Second</a></li>";
    let spines = [
        (
            "<itemref idref=\"nav\"/>",
            "lists only the navigation document",
        ),
        ("", "lists no document"),
    ];
    for (spine, said) in spines {
        let tmp = tempfile::tempdir().expect("temp dir");
        let book = book_with_two_chapters(nav)
            .edit("EPUB/package.opf", "<itemref idref=\"c1\"/><itemref idref=\"c2\"/>", "")
            .edit("EPUB/package.opf", "<itemref idref=\"nav\" linear=\"no\"/>", spine)
            // The manifest lists the second chapter before the first.
            .edit("EPUB/package.opf", "<item id=\"c1\" href=\"text/chapter%5F1.xhtml\" media-type=\"application/xhtml+xml\"/>", "")
            .edit("EPUB/package.opf", "<item id=\"cover\"", "<item id=\"c1\" href=\"text/chapter%5F1.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"cover\"");
        let epub = epub_file(tmp.path(), &book);
        let source = crate::inspect::open(&epub).expect("the source opens");
        assert!(
            source.spine.iter().all(|s| s.idref == "nav"),
            "{:?}",
            source.spine
        );
        let dir = tmp.path().join("book");
        let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
        let files: Vec<&str> = unpacked.chapters.iter().map(|c| c.file.as_str()).collect();
        assert_eq!(files, ["text/chapter_1.xhtml", "text/two.xhtml"]);
        assert!(
            (unpacked.diagnostics.iter())
                .any(|d| d.severity == crate::diagnostic::Severity::Warning
                    && d.message.contains(said)
                    && d.message.contains("order of the table of contents")),
            "{:?}",
            unpacked.diagnostics
        );
        assert_eq!(titles(&rebuild(&dir).toc), ["Chapter One", "Second"]);
    }
}

/// A downloader's empty book (the spine holds only the navigation document, the manifest no
/// page of text): the book is one page with the navigation document's heading, not an error,
/// and a warning says the EPUB had no text.
#[test]
fn an_epub_without_a_page_of_text_is_a_page_of_its_navs_heading() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let book = TestBook::minimal_epub3()
        .edit("EPUB/package.opf", "<itemref idref=\"c1\"/>", "")
        .edit("EPUB/package.opf", "<itemref idref=\"nav\" linear=\"no\"/>", "<itemref idref=\"nav\"/>")
        .edit("EPUB/package.opf", "<item id=\"c1\" href=\"text/chapter%5F1.xhtml\" media-type=\"application/xhtml+xml\"/>", "")
        .edit("EPUB/nav.xhtml", "<nav epub:type=\"toc\" id=\"toc\">", "<nav epub:type=\"toc\" id=\"toc\"><h2>Eva &amp; Anima</h2>");
    let epub = epub_file(tmp.path(), &book);
    let dir = tmp.path().join("x");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("a book, not an error");
    assert_eq!(unpacked.chapters.len(), 1);
    assert_eq!(unpacked.chapters[0].title.as_deref(), Some("Eva & Anima"));
    assert!(
        (unpacked.diagnostics.iter()).any(|d| d.message.contains("has no page of text")),
        "{:?}",
        unpacked.diagnostics
    );
    let rebuilt = rebuild(&dir);
    assert_eq!(titles(&rebuilt.toc), ["Eva & Anima"]);
    assert_eq!(
        occurrences(&dir.join("rebuilt.epub"), "Eva &amp; Anima</h"),
        1
    );
    assert_eq!(crate::inspect::verify_path(&dir.join("rebuilt.epub")), []);
}

/// The minimal EPUB with a cover page first, a contents page between two chapters, a nav
/// heading without a link over a section, and an entry beside the chapter's own into its file.
fn book_with_contents_page_heading_and_cover() -> TestBook {
    // Its link to the first chapter's heading (which the page shows as its own) holds.
    let two = crate::inspect::testutil::CHAPTER
        .replace("Chapter One", "Chapter Two")
        .replace("id=\"start\"", "id=\"two\"")
        .replace(
            "</body>",
            "<p><a href=\"chapter%5F1.xhtml#start\">Back</a></p></body>",
        );
    let cover = r#"<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en"><head><title>Cover</title></head>
<body><div><img src="../images/cover.png" alt="A red door, half open"/></div></body></html>"#;
    let nav = r#"<ol>
      <li><a href="text/chapter%5F1.xhtml#start">Chapter One</a>
        <ol><li><span>Group</span><ol><li><a href="text/chapter%5F1.xhtml#s1">Section</a></li></ol></li></ol>
      </li>
      <li><a href="text/chapter%5F1.xhtml#s2">Beside</a></li>
      <li><a href="nav.xhtml">Contents page</a></li>
      <li><a href="text/two.xhtml">Second</a></li>
    </ol>"#;
    let book = TestBook::minimal_epub3()
        .add("EPUB/text/two.xhtml", two.as_bytes())
        .add("EPUB/text/cover.xhtml", cover.as_bytes())
        .edit("EPUB/text/chapter_1.xhtml", "</body>", "<p id=\"s2\">Beside</p></body>")
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"c2\" href=\"text/two.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"cp\" href=\"text/cover.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"cover\"",
        )
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c1\"/>\n    <itemref idref=\"nav\" linear=\"no\"/>",
            "<itemref idref=\"cp\"/><itemref idref=\"c1\"/><itemref idref=\"nav\"/><itemref idref=\"c2\"/>",
        );
    let mut book = book;
    let entry = book.entry_mut("EPUB/nav.xhtml");
    let text = String::from_utf8(entry.data.clone()).expect("UTF-8");
    let (head, rest) = text.split_once("<ol>").expect("a list");
    let tail = rest.rsplit_once("</ol>").expect("a list").1;
    entry.data = format!("{head}{nav}{tail}").into_bytes();
    book
}

/// The EPUB's NCX, with how many play orders and how many targets its entries have.
fn ncx_play_orders(out: &std::path::Path) -> (String, usize, usize) {
    let file = std::fs::File::open(out).expect("open the EPUB");
    let mut zip = zip::ZipArchive::new(file).expect("a zip");
    let mut ncx = String::new();
    std::io::Read::read_to_string(&mut zip.by_name("EPUB/toc.ncx").expect("an NCX"), &mut ncx)
        .expect("UTF-8");
    let pairs: std::collections::HashSet<(&str, &str)> = ncx
        .split("playOrder=\"")
        .skip(1)
        .map(|p| {
            let order = p.split('"').next().unwrap_or("");
            let src = p.split("src=\"").nth(1).and_then(|s| s.split('"').next());
            (order, src.unwrap_or(""))
        })
        .collect();
    let orders: std::collections::HashSet<&str> = pairs.iter().map(|p| p.0).collect();
    let srcs: std::collections::HashSet<&str> = pairs.iter().map(|p| p.1).collect();
    (ncx.clone(), orders.len(), srcs.len())
}

/// A contents page in the middle of the spine that the contents list, a heading without a link
/// over a section, an entry beside the chapter's own into its file, and a cover page with an
/// `alt`: each comes back where and as the EPUB had it.
#[test]
fn the_contents_page_headings_without_links_and_the_cover_alt_come_back_in_place() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let book = book_with_contents_page_heading_and_cover();
    let epub = epub_file(tmp.path(), &book);
    let dir = tmp.path().join("out");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let toml = std::fs::read_to_string(&unpacked.metadata_path).expect("metadata.toml");
    for line in [
        "cover-alt = \"A red door, half open\"",
        "toc-page = true",
        "toc-page-title = \"Contents page\"",
        "toc-page-before = 2",
        "{ title = \"Group\", level = 2 }",
        "{ id = \"s1\", title = \"Section\", level = 3 }",
        "{ id = \"s2\", title = \"Beside\", level = 1 }",
    ] {
        assert!(toml.contains(line), "{line} missing from\n{toml}");
    }
    let source = crate::inspect::open(&epub).expect("the source opens");
    let rebuilt = rebuild(&dir);
    assert_eq!(
        titles(&source.toc),
        [
            "Chapter One [Group [Section]]",
            "Beside",
            "Contents page",
            "Second"
        ]
    );
    assert_eq!(titles(&rebuilt.toc), titles(&source.toc));
    // The reading order: the build's cover page, the chapter, the contents page, the second.
    let spine: Vec<&str> = rebuilt
        .spine
        .iter()
        .filter_map(|s| s.href.as_deref())
        .collect();
    let toc_at = spine.iter().position(|h| h.ends_with("toc.xhtml"));
    assert_eq!(toc_at, Some(2), "{spine:?}");
    let out = dir.join("rebuilt.epub");
    assert_eq!(occurrences(&out, "aria-label=\"A red door, half open\""), 1);
    assert_eq!(
        occurrences(&out, "<span>Group</span>"),
        1,
        "on the contents page"
    );
    let report = crate::check::check_epub(&out, None);
    let broken: Vec<&str> = (report.findings.iter())
        .filter(|d| d.code == crate::diagnostic::Code::EpubFragment)
        .map(|d| d.message.as_str())
        .collect();
    assert!(broken.is_empty(), "{broken:?}");
    assert_eq!(occurrences(&out, "#epubforge-chapter-title\""), 1);
    // In the NCX, the heading shares its first entry's target, and so its play order.
    let (ncx, orders, srcs) = ncx_play_orders(&out);
    assert_eq!(ncx.matches("<navPoint").count(), 6, "{ncx}");
    assert_eq!((orders, srcs), (5, 5), "{ncx}");
}

/// The minimal EPUB with an SVG drawing in the spine after its chapter, named in the contents;
/// with `only`, the drawing is the whole spine.
fn book_with_svg_page(only: bool) -> TestBook {
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"100%\" height=\"100%\" \
               viewBox=\"0 0 10 10\"><rect width=\"10\" height=\"10\" fill=\"#888\"/></svg>";
    let spine = match only {
        true => "<itemref idref=\"p\"/>",
        false => "<itemref idref=\"c1\"/>\n    <itemref idref=\"p\"/>",
    };
    TestBook::minimal_epub3()
        .add("EPUB/images/page one.svg", svg.as_bytes())
        .edit(
            "EPUB/package.opf",
            "<item id=\"ncx\"",
            "<item id=\"p\" href=\"images/page%20one.svg\" media-type=\"image/svg+xml\"/>\n    <item id=\"ncx\"",
        )
        .edit("EPUB/package.opf", "<itemref idref=\"c1\"/>", spine)
        .edit(
            "EPUB/nav.xhtml",
            "    </ol>\n  </nav>",
            "    <li><a href=\"images/page%20one.svg\">A Drawing</a></li>\n    </ol>\n  </nav>",
        )
}

#[test]
fn an_svg_document_of_the_spine_is_a_page_showing_it_in_its_place() {
    for only in [false, true] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let epub = epub_file(tmp.path(), &book_with_svg_page(only));
        let dir = tmp.path().join("project");
        let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacks");
        let last = unpacked.chapters.last().expect("a chapter");
        assert_eq!(last.file, "images/page one.xhtml");
        assert_eq!(last.title.as_deref(), Some("A Drawing"));
        assert_eq!(unpacked.chapters.len(), if only { 1 } else { 2 });
        let noted = unpacked
            .diagnostics
            .iter()
            .filter(|d| d.message.contains("is an SVG document in the spine"))
            .count();
        assert_eq!(noted, 1);
        let rebuilt = rebuild(&dir);
        assert_eq!(
            titles(&rebuilt.toc).last().map(String::as_str),
            Some("A Drawing")
        );
        let out = std::fs::File::open(dir.join("rebuilt.epub")).expect("rebuilt");
        let mut zip = zip::ZipArchive::new(out).expect("a zip");
        let page = rebuilt
            .spine
            .last()
            .and_then(|s| s.href.clone())
            .expect("a page");
        let mut xhtml = String::new();
        std::io::Read::read_to_string(&mut zip.by_name(&page).expect("the page"), &mut xhtml)
            .expect("reads");
        assert!(xhtml.contains("alt=\"A Drawing\""), "{xhtml}");
        assert!(xhtml.contains("<img src=\"../images/"), "{xhtml}");
    }
}

#[test]
fn a_cover_page_drawing_the_cover_in_svg_is_the_builds_to_make_again() {
    // The cover page our build writes: the picture drawn by an SVG `<image>` (`xlink:href`).
    let page = r#"<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en"><head><title>Cover</title></head>
<body><section epub:type="cover"><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" viewBox="0 0 1 1" role="img" aria-label="Cover: Minimal Book"><title>Cover: Minimal Book</title><image width="1" height="1" xlink:href="../images/cover.png"/></svg></section></body></html>"#;
    let book = TestBook::minimal_epub3()
        .add("EPUB/text/cover.xhtml", page.as_bytes())
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"cp\" href=\"text/cover.xhtml\" media-type=\"application/xhtml+xml\" properties=\"svg\"/><item id=\"cover\"",
        )
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c1\"/>",
            "<itemref idref=\"cp\"/><itemref idref=\"c1\"/>",
        );
    let tmp = tempfile::tempdir().expect("temp dir");
    let epub = epub_file(tmp.path(), &book);
    let dir = tmp.path().join("project");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacks");
    let files: Vec<&str> = unpacked.chapters.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(files, ["text/chapter_1.xhtml"]);
    let toml = std::fs::read_to_string(&unpacked.metadata_path).expect("metadata.toml");
    assert!(
        toml.contains("cover-alt = \"Cover: Minimal Book\""),
        "{toml}"
    );
}

#[test]
fn a_document_twice_in_the_spine_is_one_chapter_and_a_note() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let book = TestBook::minimal_epub3().edit(
        "EPUB/package.opf",
        "<itemref idref=\"c1\"/>",
        "<itemref idref=\"c1\"/><itemref idref=\"c1\"/>",
    );
    let epub = epub_file(tmp.path(), &book);
    let unpacked =
        unpack(&epub, &tmp.path().join("book"), &UnpackOptions::new()).expect("unpacked");
    assert_eq!(unpacked.chapters.len(), 1);
    let twice: Vec<&str> = (unpacked.diagnostics.iter())
        .map(|d| d.message.as_str())
        .filter(|m| m.contains("in the spine twice"))
        .collect();
    assert_eq!(
        twice,
        ["EPUB/text/chapter_1.xhtml is in the spine twice; listed once"]
    );
}

/// The minimal EPUB with a second chapter and the contents list `nav` (an `<ol>`'s items).
fn book_with_two_chapters(nav: &str) -> TestBook {
    let two = crate::inspect::testutil::CHAPTER
        .replace("Chapter One", "Chapter Two")
        .replace("id=\"start\"", "id=\"two\"");
    let mut book = TestBook::minimal_epub3()
        .add("EPUB/text/two.xhtml", two.as_bytes())
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"c2\" href=\"text/two.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"cover\"",
        )
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c1\"/>",
            "<itemref idref=\"c1\"/><itemref idref=\"c2\"/>",
        );
    let entry = book.entry_mut("EPUB/nav.xhtml");
    let text = String::from_utf8(entry.data.clone()).expect("UTF-8");
    let (head, rest) = text.split_once("<ol>").expect("a list");
    let tail = rest.rsplit_once("</ol>").expect("a list").1;
    entry.data = format!("{head}<ol>{nav}</ol>{tail}").into_bytes();
    book
}

/// EbookLib's `Section`: a heading without a link beside a chapter, over the entries after
/// it. The next chapter stays under it, not under the chapter before; a heading without a
/// link that opens the contents, with no chapter before it, is left out and its entries move
/// up a level (they nested under the first chapter).
#[test]
fn a_heading_without_a_link_beside_a_chapter_keeps_the_entries_under_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let beside = "<li><a href=\"text/chapter%5F1.xhtml\">Chapter One</a></li>\
        <li><span>Languages</span><ol><li><a href=\"text/two.xhtml\">Second</a></li></ol></li>";
    let epub = epub_file(tmp.path(), &book_with_two_chapters(beside));
    let dir = tmp.path().join("beside");
    unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let source = crate::inspect::open(&epub).expect("the source opens");
    assert_eq!(titles(&source.toc), ["Chapter One", "Languages [Second]"]);
    assert_eq!(titles(&rebuild(&dir).toc), titles(&source.toc));
}

/// Volumes after a first chapter (qidian's `Copyright`, then `正文卷`): each next volume heads
/// its own chapters, one level above the chapter before it (a `sections` entry of level 0).
#[test]
fn each_volume_heading_heads_its_own_chapters() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let volumes = "<li><a href=\"text/chapter%5F1.xhtml\">Chapter One</a></li>\
        <li><span>Volume 1</span><ol><li><a href=\"text/two.xhtml\">Second</a></li></ol></li>\
        <li><span>Volume 2</span><ol><li><a href=\"text/three.xhtml\">Third</a></li></ol></li>";
    let book = book_with_two_chapters(volumes)
        .add("EPUB/text/three.xhtml", &third())
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c2\"/>",
            "<itemref idref=\"c2\"/><itemref idref=\"c3\"/>",
        )
        .edit("EPUB/package.opf", "<item id=\"cover\"", THIRD_ITEM);
    let epub = epub_file(tmp.path(), &book);
    let dir = tmp.path().join("three");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let toml = std::fs::read_to_string(&unpacked.metadata_path).expect("metadata.toml");
    assert!(
        toml.contains("{ title = \"Volume 2\", level = 0 }"),
        "{toml}"
    );
    let source = crate::inspect::open(&epub).expect("the source opens");
    assert_eq!(
        titles(&source.toc),
        ["Chapter One", "Volume 1 [Second]", "Volume 2 [Third]"]
    );
    assert_eq!(titles(&rebuild(&dir).toc), titles(&source.toc));
    assert_eq!(crate::inspect::verify_path(&dir.join("rebuilt.epub")), []);
}

/// A volume heading that opens the contents has no chapter to go with: left out, a note says
/// so, and its chapters move up a level rather than nest under the first.
#[test]
fn a_volume_heading_that_opens_the_contents_is_left_out_and_its_chapters_move_up() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let volumes = "<li><span>Volume 1</span><ol><li><a href=\"text/chapter%5F1.xhtml\">Chapter One</a></li></ol></li>\
        <li><span>Volume 2</span><ol><li><a href=\"text/two.xhtml\">Second</a></li></ol></li>";
    let epub = epub_file(tmp.path(), &book_with_two_chapters(volumes));
    let dir = tmp.path().join("volumes");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    assert!(
        (unpacked.diagnostics.iter()).any(|d| d.message.contains("\"Volume 1\" links nowhere")),
        "{:?}",
        unpacked.diagnostics
    );
    assert_eq!(
        titles(&rebuild(&dir).toc),
        ["Chapter One", "Volume 2 [Second]"]
    );
}

/// The manifest item of [`third`], before the cover's.
const THIRD_ITEM: &str = "<item id=\"c3\" href=\"text/three.xhtml\" media-type=\"application/xhtml+xml\"/><item id=\"cover\"";

/// A third chapter's document.
fn third() -> Vec<u8> {
    crate::inspect::testutil::CHAPTER
        .replace("Chapter One", "Chapter Three")
        .replace("id=\"start\"", "id=\"three\"")
        .into_bytes()
}

/// A contents entry without words (pandoc's EPUB 2 of a page whose `<h1>` is empty): the page
/// is named by its own first heading with words, in the plan (`fix`) and the rebuilt book.
#[test]
fn a_contents_entry_without_words_is_named_by_its_pages_heading() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let nav = "<li><a href=\"text/chapter%5F1.xhtml\">Chapter One</a></li>\
        <li><a href=\"text/two.xhtml\"> </a></li>";
    let book = book_with_two_chapters(nav).edit(
        "EPUB/text/two.xhtml",
        "<h1 id=\"two\">Chapter Two</h1>",
        "<h1 id=\"two\"></h1><h2>The Singer</h2>",
    );
    let epub = epub_file(tmp.path(), &book);
    let dir = tmp.path().join("book");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let titles_of: Vec<Option<&str>> = (unpacked.chapters.iter())
        .map(|c| c.title.as_deref())
        .collect();
    assert_eq!(titles_of, [Some("Chapter One"), Some("The Singer")]);
    assert!(
        (unpacked.diagnostics.iter()).any(|d| d.message.contains("has no words")),
        "{:?}",
        unpacked.diagnostics
    );
    assert_eq!(titles(&rebuild(&dir).toc), ["Chapter One", "The Singer"]);
}

/// A second contents entry into the top of a page (EbookLib's `Section` listing its first
/// chapter again, novel-tools-py's `Introduction`; tweetebook's two months on one page) stays
/// an entry of the rebuilt contents, beside or under the one before.
#[test]
fn a_second_entry_into_the_top_of_a_page_stays_in_the_contents() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let nav = "<li><a href=\"text/chapter%5F1.xhtml\">Introduction</a></li>\
        <li><span>Languages</span><ol><li><a href=\"text/chapter%5F1.xhtml\">Introduction</a></li>\
        <li><a href=\"text/two.xhtml\">About</a></li></ol></li>\
        <li><a href=\"text/two.xhtml\">About again</a></li>";
    let epub = epub_file(tmp.path(), &book_with_two_chapters(nav));
    let dir = tmp.path().join("again");
    unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let source = crate::inspect::open(&epub).expect("the source opens");
    assert_eq!(
        titles(&source.toc),
        [
            "Introduction",
            "Languages [Introduction, About]",
            "About again"
        ]
    );
    let rebuilt = rebuild(&dir);
    assert_eq!(titles(&rebuilt.toc), titles(&source.toc));
    let last = rebuilt.toc.last().expect("an entry");
    assert!(last.href.ends_with(".xhtml"), "{}", last.href);
    assert_eq!(crate::inspect::verify_path(&dir.join("rebuilt.epub")), []);
}
