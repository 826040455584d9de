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
