//! Pictures an unpack must not lose: bitmaps that are pages of the spine (a comic's JPEGs,
//! with an XHTML fallback), and pictures, stylesheets and fonts the zip holds where a
//! document points but the manifest does not list.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::*;
use crate::inspect::testutil::{CHAPTER, TestBook};

/// A 1x1 PNG of the grey `shade` (the build keeps one file of pictures with the same bytes).
fn png(shade: u8) -> Vec<u8> {
    let picture = image::GrayImage::from_pixel(1, 1, image::Luma([shade]));
    let mut bytes = std::io::Cursor::new(Vec::new());
    (picture.write_to(&mut bytes, image::ImageFormat::Png)).expect("a PNG");
    bytes.into_inner()
}

/// Unpacks `book` into `tmp/project`, builds it into `tmp/project/rebuilt.epub`.
fn unpack_and_build(tmp: &Path, book: &TestBook) -> (Unpacked, PathBuf) {
    let epub = tmp.join("book.epub");
    std::fs::write(&epub, book.to_zip()).expect("write the EPUB");
    let dir = tmp.join("project");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let project = crate::Project::load(&dir).expect("the unpacked project loads");
    let out = dir.join("rebuilt.epub");
    let opts = crate::BuildOptions {
        output: Some(out.clone()),
        source_date_epoch: Some(1_700_000_000),
        ..crate::BuildOptions::default()
    };
    project.build(&opts).expect("the unpacked project builds");
    (unpacked, out)
}

/// The spine's documents of the EPUB at `epub`, as text, in order.
fn spine_texts(epub: &Path) -> Vec<String> {
    let book = crate::inspect::open(epub).expect("opens");
    let mut zip = zip::ZipArchive::new(std::fs::File::open(epub).expect("open")).expect("zip");
    let mut texts = Vec::new();
    for href in book.spine.iter().filter_map(|s| s.href.as_deref()) {
        let mut text = String::new();
        let mut entry = zip.by_name(href).expect("a spine entry");
        entry.read_to_string(&mut text).expect("text");
        texts.push(text);
    }
    texts
}

/// The names of the zip's entries.
fn names(epub: &Path) -> Vec<String> {
    let zip = zip::ZipArchive::new(std::fs::File::open(epub).expect("open")).expect("zip");
    (zip.file_names())
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .collect()
}

/// haruko-jpeg's shape: the spine is pictures only, each with the same XHTML `fallback`
/// (which transcribes their words), the contents pointing at the first picture.
fn comic() -> TestBook {
    let fallback = CHAPTER
        .replace("Chapter One</h1>", "Transcript</h1>")
        .replace("See <a", "Haruko says hello. See <a");
    let items = "<item id=\"p1\" href=\"pages/one.png\" media-type=\"image/png\" fallback=\"fb\"/>\n    \
                 <item id=\"p2\" href=\"pages/two.png\" media-type=\"image/png\" fallback=\"fb\"/>\n    \
                 <item id=\"fb\" href=\"text/fallback.xhtml\" media-type=\"application/xhtml+xml\"/>";
    let chapter =
        "<item id=\"c1\" href=\"text/chapter%5F1.xhtml\" media-type=\"application/xhtml+xml\"/>";
    TestBook::minimal_epub3()
        .remove("EPUB/text/chapter_1.xhtml")
        .edit("EPUB/package.opf", chapter, items)
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c1\"/>",
            "<itemref idref=\"p1\"/><itemref idref=\"p2\"/>",
        )
        .edit(
            "EPUB/nav.xhtml",
            "<li><a href=\"text/chapter%5F1.xhtml#start\">Chapter  One</a>\n        <ol><li><a href=\"text/chapter%5F1.xhtml#s1\">Section</a></li></ol>\n      </li>",
            "<li><a href=\"pages/one.png\">The Comic</a></li>",
        )
        .add("EPUB/pages/one.png", &png(10))
        .add("EPUB/pages/two.png", &png(20))
        .add("EPUB/text/fallback.xhtml", fallback.as_bytes())
}

#[test]
fn bitmaps_of_the_spine_are_pages_showing_them_and_their_fallback_follows() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (unpacked, out) = unpack_and_build(tmp.path(), &comic());
    let files: Vec<&str> = unpacked.chapters.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(
        files,
        ["pages/one.xhtml", "pages/two.xhtml", "text/fallback.xhtml"]
    );
    assert_eq!(unpacked.chapters[0].title.as_deref(), Some("The Comic"));
    // `fix` holds the spine's pages in memory: the same chapters, the pages held, not written.
    let archive = crate::inspect::archive::Archive::lazy(&tmp.path().join("book.epub"));
    let held_dir = tmp.path().join("held");
    let (held, pages) =
        unpack_holding(&archive, &held_dir, &UnpackOptions::new()).expect("unpacked, held");
    assert_eq!(held.chapters, unpacked.chapters);
    assert!(pages.contains_key("pages/one.xhtml") && !held_dir.join("pages/one.xhtml").exists());
    assert!(held_dir.join("pages/one.png").is_file());
    let texts = spine_texts(&out);
    // The cover page, the two picture pages (each its own picture), the fallback.
    let shown = |t: &String| {
        t.split("<img src=\"")
            .nth(1)
            .map(|s| s[..s.find('"').unwrap_or(0)].to_string())
    };
    let pages: Vec<Option<String>> = texts.iter().map(shown).collect();
    assert_eq!(pages.len(), 4, "{texts:?}");
    assert!(
        pages[1].is_some() && pages[2].is_some() && pages[1] != pages[2],
        "{pages:?}"
    );
    let pictures = names(&out);
    // The cover, its copy the fallback's text shows, the two pages.
    assert_eq!(
        pictures.iter().filter(|n| n.ends_with(".png")).count(),
        4,
        "{pictures:?}"
    );
    let words = texts
        .iter()
        .filter(|t| t.contains("Haruko says hello"))
        .count();
    assert_eq!(words, 1, "the fallback's words");
    assert_eq!(crate::inspect::verify_path(&out), []);
}

/// d-gyakutenryoku's shape: the chapter shows a picture, and links a stylesheet that draws
/// another, that the zip holds where they point but the manifest does not list; a stylesheet
/// that does not parse; and a script nobody uses.
fn unlisted_files() -> TestBook {
    let css = "body { background-image: url(\"../images/paper.png\"); }\n";
    TestBook::minimal_epub3()
        .edit(
            "EPUB/text/chapter_1.xhtml",
            "<head><title>Chapter One</title>",
            "<head><title>Chapter One</title><link rel=\"stylesheet\" type=\"text/css\" href=\"../styles/extra.css\"/>\
             <link rel=\"stylesheet\" type=\"text/css\" href=\"../styles/broken.css\"/>",
        )
        .edit(
            "EPUB/text/chapter_1.xhtml",
            "<h2 id=\"s1\">",
            "<p><img src=\"../images/logo.png\" alt=\"the logo\"/></p>\n  <h2 id=\"s1\">",
        )
        .add("EPUB/images/logo.png", &png(30))
        .add("EPUB/images/paper.png", &png(40))
        .add("EPUB/styles/extra.css", css.as_bytes())
        .add("EPUB/styles/broken.css", b"p {!important; color: red}")
        .add("EPUB/misc/unused.js", b"var x = 1;")
}

#[test]
fn files_the_manifest_forgot_but_a_document_uses_are_carried() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (unpacked, out) = unpack_and_build(tmp.path(), &unlisted_files());
    let dir = tmp.path().join("project");
    for file in ["images/logo.png", "images/paper.png", "styles/extra.css"] {
        assert!(dir.join(file).is_file(), "{file} not written");
        let noted = (unpacked.diagnostics.iter())
            .filter(|d| d.message.contains("not in the manifest, but"))
            .any(|d| d.path.as_ref().is_some_and(|p| p.ends_with(file)));
        assert!(noted, "no note for {file}");
    }
    assert!(!dir.join("misc/unused.js").exists());
    // EPUBCheck read no unlisted file of the input: one that does not parse stays out.
    assert!(!dir.join("styles/broken.css").exists());
    let refused = (unpacked.diagnostics.iter())
        .filter(|d| d.message.contains("does not parse as CSS"))
        .count();
    assert_eq!(refused, 1);
    let rest = (unpacked.diagnostics.iter())
        .filter(|d| {
            d.message
                .starts_with("1 file(s) in the zip are not in the manifest")
        })
        .count();
    assert_eq!(rest, 1, "{:?}", unpacked.diagnostics);
    assert_eq!(
        (unpacked.counts.images, unpacked.counts.stylesheets),
        (3, 1)
    );
    let texts = spine_texts(&out);
    let shown = texts.iter().any(|t| t.contains("alt=\"the logo\""));
    assert!(shown, "{texts:?}");
    // The cover, its copy the chapter shows, the logo and the stylesheet's paper.
    let entries = names(&out);
    let pictures = entries.iter().filter(|n| n.ends_with(".png")).count();
    assert_eq!(pictures, 4, "{entries:?}");
    assert_eq!(crate::inspect::verify_path(&out), []);
}
