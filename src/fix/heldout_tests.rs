//! `fix` on the shapes of EPUBs other tools make, found on real books we had not seen (Project
//! Gutenberg's ebookmaker, calibre's GitBook exports): each test builds a small EPUB with
//! that shape and checks the fixed one has no problem and all the text.

use std::path::{Path, PathBuf};

use super::*;
use crate::inspect::testutil::TestBook;

/// ebookmaker's shape: the book cut into files, the first holding a CONTENTS block of links
/// into the others, each chapter opening with a heading whose anchor (`<a id="chap02"/>`) is
/// what the contents link to.
fn ebookmaker_book(dir: &Path) -> PathBuf {
    let first = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\" xml:lang=\"en\">\n<head><title>Alice</title></head>\n<body>\n<h2 id=\"start\">Alice in Wonderland</h2>\n<h3 id=\"s1\">Contents</h3>\n<blockquote><div><p class=\"toc\"><big>CONTENTS</big></p>\n<p class=\"toc\"><a href=\"chapter_2.xhtml#chap02\" class=\"pginternal\">CHAPTER II.</a></p>\n<p class=\"toc\"><a href=\"chapter_2.xhtml#tears\" class=\"pginternal\">CHAPTER III.</a></p>\n</div></blockquote>\n</body>\n</html>\n";
    let second = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\" xml:lang=\"en\">\n<head><title>II</title></head>\n<body>\n<div class=\"chapter\">\n<h2><a id=\"chap02\"></a>CHAPTER II.<br/>\nThe Pool of Tears</h2>\n<p>Curiouser and curiouser, cried Alice.</p>\n<h2 id=\"tears\">CHAPTER III.</h2>\n<p>They were a queer-looking party.</p>\n</div>\n</body>\n</html>\n";
    let mut book = TestBook::minimal_epub3()
        .edit(
            "EPUB/package.opf",
            "<item id=\"c1\"",
            "<item id=\"c2\" href=\"text/chapter_2.xhtml\" media-type=\"application/xhtml+xml\"/>\n    <item id=\"c1\"",
        )
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c1\"/>",
            "<itemref idref=\"c1\"/><itemref idref=\"c2\"/>",
        )
        .add("EPUB/text/chapter_2.xhtml", second.as_bytes());
    book.entry_mut("EPUB/text/chapter_1.xhtml").data = first.as_bytes().to_vec();
    let path = dir.join("pg.epub");
    std::fs::write(&path, book.to_zip()).unwrap();
    path
}

#[test]
fn an_ebookmaker_contents_block_stays_and_its_links_reach_the_headings() {
    let dir = tempfile::tempdir().unwrap();
    let epub = ebookmaker_book(dir.path());
    let opts = FixOptions {
        force: true,
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    assert_eq!(report.status, FixStatus::Fixed);
    // The links to `#chap02` (an anchor inside the heading the page opens with) went to the
    // heading's new id, which the heading did not carry: an RSC-012 EPUBCheck error each.
    let left = crate::inspect::verify_path(&report.outputs[0]);
    assert_eq!(left, [], "the fixed EPUB has problems");
    // The CONTENTS block was dropped as a site's link bar: its 30 letters lost.
    assert!(
        report.chars_after >= report.chars_before,
        "{:?} → {:?}: {:#?}",
        report.chars_before,
        report.chars_after,
        report.diagnostics
    );
    assert!(
        !report
            .diagnostics
            .iter()
            .any(|d| matches!(d.code, Code::SiteNavigation | Code::LostText)),
        "{:#?}",
        report.diagnostics
    );
}

#[test]
fn a_package_without_a_spine_is_read_in_the_manifests_order() {
    // ebooklib writes `<spine toc="ncx"/>` when a downloader never fills it (a qidian
    // downloader's 凡人修仙之仙界篇): fix refused it, "nothing to make a book of".
    let dir = tempfile::tempdir().unwrap();
    let second = crate::inspect::testutil::CHAPTER
        .replace("Chapter One", "Chapter Two")
        .replace("id=\"start\"", "id=\"two\"");
    let book = TestBook::minimal_epub3()
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"c1\"/>\n    <itemref idref=\"nav\" linear=\"no\"/>",
            "",
        )
        .edit(
            "EPUB/package.opf",
            "<dc:language>en</dc:language>",
            "<dc:language>en_GB</dc:language>",
        )
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"c2\" href=\"text/two.xhtml\" media-type=\"text/html\"/>\n    <item id=\"cover\"",
        )
        .add("EPUB/text/two.xhtml", second.as_bytes());
    let epub = dir.path().join("nospine.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    let report = fix(&epub, &FixOptions::default()).unwrap();
    assert_eq!(
        crate::inspect::verify_path(&report.outputs[0]),
        [],
        "the fixed EPUB has problems"
    );
    let order: Vec<String> = review::spine_documents(&report.outputs[0])
        .unwrap()
        .into_iter()
        .map(|(_, x)| x)
        .collect();
    // And its locale-shaped language (ebooklib's `zh_Hans`) stopped the build.
    let out = crate::inspect::open(&report.outputs[0]).unwrap();
    assert_eq!(out.metadata.languages, ["en-GB"]);
    let one = order.iter().position(|x| x.contains("Chapter One"));
    let two = order.iter().position(|x| x.contains("Chapter Two"));
    assert!(one.is_some() && one < two, "{order:#?}");
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code == Code::EpubInChapter && d.message.contains("the spine lists no")),
        "{:#?}",
        report.diagnostics
    );
}

/// How many fonts of `epub` a stylesheet of it names (by file name) that are fonts as they
/// are stored (not obfuscated): what a fix must carry.
fn named_fonts(epub: &Path) -> usize {
    let book = crate::inspect::open(epub).unwrap();
    let file = std::fs::File::open(epub).unwrap();
    let mut zip = crate::inspect::container::Container::new(std::io::BufReader::new(file)).unwrap();
    let mut read = |name: &str| zip.read_capped(name, 1 << 28).unwrap_or_default();
    let sheets: Vec<Vec<u8>> = (book.manifest.iter())
        .filter(|i| i.media_type == "text/css")
        .map(|i| read(&i.href))
        .collect();
    let named = |name: &str| {
        sheets
            .iter()
            .any(|css| String::from_utf8_lossy(css).contains(name))
    };
    (book.manifest.iter())
        .filter(|i| named(i.href.rsplit('/').next().unwrap_or(&i.href)))
        .filter(|i| crate::media::CarriedFont::sniff(&read(&i.href)).is_some())
        .count()
}

/// The EPUBs in the folder `EPUBFORGE_HELDOUT` names (made by other tools; see
/// guide/src/fixing-epubs.md), or none: the test then skips.
fn heldout_epubs() -> Option<Vec<PathBuf>> {
    let dir = PathBuf::from(std::env::var_os("EPUBFORGE_HELDOUT")?);
    let mut epubs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "epub"))
        .collect();
    epubs.sort();
    Some(epubs)
}

#[test]
fn every_heldout_epub_is_fixed_with_its_fonts_and_no_problem_of_ours() {
    let Some(epubs) = heldout_epubs() else {
        eprintln!("skipping: EPUBFORGE_HELDOUT names no folder of EPUBs");
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for epub in &epubs {
        let name = epub.file_stem().unwrap().to_string_lossy().to_string();
        let opts = FixOptions {
            force: true,
            output: Some(out.path().join(format!("{name}.epub"))),
            ..FixOptions::default()
        };
        let report = match fix(epub, &opts) {
            Ok(report) => report,
            // A book of SVG pages (IDPF's sous-le-vent_svg-in-spine) has no XHTML to rebuild.
            Err(e) if e.to_string().contains("nothing to make a book of") => continue,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let left = crate::inspect::verify_path(&report.outputs[0]);
        if !left.is_empty() {
            failures.push(format!("{name}: {left:?}"));
        }
        // Every font the input's stylesheets name, plain and a font by its bytes, is carried.
        let carried = (crate::inspect::open(&report.outputs[0])
            .unwrap()
            .manifest
            .iter())
        .filter(|i| i.href.starts_with("EPUB/fonts/"))
        .count();
        if carried < named_fonts(epub) {
            failures.push(format!("{name}: {carried} fonts of {}", named_fonts(epub)));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
