//! What an EPUB holds besides its text reaches the rebuilt book: its own fonts (obfuscated
//! ones made readable).

use std::path::{Path, PathBuf};

use super::*;
use crate::inspect::testutil::TestBook;

/// Unpacks `book` into `tmp/book`, builds it, and returns the rebuilt EPUB's path.
fn unpack_and_build(tmp: &Path, book: &TestBook) -> (Unpacked, PathBuf) {
    let epub = tmp.join("in.epub");
    std::fs::write(&epub, book.to_zip()).expect("write the EPUB");
    let dir = tmp.join("book");
    let unpacked = unpack(&epub, &dir, &UnpackOptions::new()).expect("unpacked");
    let project = crate::Project::load(&dir).expect("the unpacked project loads");
    let out = tmp.join("out.epub");
    let opts = crate::BuildOptions {
        output: Some(out.clone()),
        source_date_epoch: Some(1_700_000_000),
        ..crate::BuildOptions::default()
    };
    project.build(&opts).expect("the unpacked project builds");
    (unpacked, out)
}

/// The entry `name` of the EPUB at `epub`.
fn entry(epub: &Path, name: &str) -> Option<Vec<u8>> {
    let file = std::fs::File::open(epub).ok()?;
    let mut zip = crate::inspect::container::Container::new(std::io::BufReader::new(file)).ok()?;
    zip.read_capped(name, 1 << 24).ok()
}

/// The minimal book with a stylesheet whose `@font-face` names `fonts/body.otf` (its bytes
/// `font`), obfuscated the IDPF's way when `obfuscated`.
fn book_with_font(font: &[u8], obfuscated: bool) -> TestBook {
    let css = "@font-face { font-family: Body; src: url(../fonts/body.otf) format(\"opentype\"); }\nbody { font-family: Body, serif }\n";
    let mut stored = font.to_vec();
    let mut book = TestBook::minimal_epub3()
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"css\" href=\"styles/book.css\" media-type=\"text/css\"/>\n    <item id=\"f\" href=\"fonts/body.otf\" media-type=\"font/otf\"/>\n    <item id=\"cover\"",
        )
        .add("EPUB/styles/book.css", css.as_bytes());
    if obfuscated {
        let key = sha1_smol::Sha1::from("urn:uuid:12345678-1234-5678-1234-567812345678")
            .digest()
            .bytes();
        for (i, b) in stored.iter_mut().take(1040).enumerate() {
            *b ^= key[i % key.len()];
        }
        let xml = "<?xml version=\"1.0\"?>\n<encryption xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" xmlns:enc=\"http://www.w3.org/2001/04/xmlenc#\">\n<enc:EncryptedData><enc:EncryptionMethod Algorithm=\"http://www.idpf.org/2008/embedding\"/><enc:CipherData><enc:CipherReference URI=\"EPUB/fonts/body.otf\"/></enc:CipherData></enc:EncryptedData>\n</encryption>\n";
        book = book.add("META-INF/encryption.xml", xml.as_bytes());
    }
    book.add("EPUB/fonts/body.otf", &stored)
}

#[test]
fn an_epubs_own_font_is_carried_and_an_obfuscated_one_made_readable() {
    let font: Vec<u8> = b"OTTO"
        .iter()
        .copied()
        .chain((0..2000u32).map(|i| (i % 253) as u8))
        .collect();
    for obfuscated in [false, true] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let (unpacked, out) = unpack_and_build(tmp.path(), &book_with_font(&font, obfuscated));
        assert_eq!(unpacked.counts.fonts, 1);
        // The font was dropped from the `@font-face` (not a font of `[style] fonts`).
        let carried = entry(&out, "EPUB/fonts/css-body.otf");
        assert_eq!(
            carried.as_deref(),
            Some(&font[..]),
            "obfuscated: {obfuscated}"
        );
        let opf = String::from_utf8(entry(&out, "EPUB/package.opf").unwrap()).unwrap();
        assert!(
            opf.contains("href=\"fonts/css-body.otf\" media-type=\"font/otf\""),
            "{opf}"
        );
        let css = String::from_utf8(entry(&out, "EPUB/styles/user-1.css").unwrap()).unwrap();
        assert!(
            css.contains("url(\"../fonts/css-body.otf\")")
                || css.contains("url(../fonts/css-body.otf)"),
            "{css}"
        );
        assert!(entry(&out, "META-INF/encryption.xml").is_none());
        let noted = unpacked.diagnostics.iter().any(|d| {
            d.code == crate::diagnostic::Code::EpubInFile && d.message.contains("obfuscated")
        });
        assert_eq!(noted, obfuscated, "{:#?}", unpacked.diagnostics);
        assert_eq!(
            crate::inspect::verify_path(&out),
            [],
            "the rebuilt EPUB has problems"
        );
    }
}

#[test]
fn a_font_obfuscated_with_a_key_that_does_not_fit_is_dropped_with_a_warning() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let font: Vec<u8> = b"OTTO".iter().copied().chain([7u8; 1500]).collect();
    let book = book_with_font(&font, true).edit(
        "EPUB/package.opf",
        "urn:uuid:12345678-1234-5678-1234-567812345678",
        "urn:uuid:00000000-1234-5678-1234-567812345678",
    );
    let (unpacked, out) = unpack_and_build(tmp.path(), &book);
    assert!(entry(&out, "EPUB/fonts/css-body.otf").is_none());
    assert!(
        unpacked
            .diagnostics
            .iter()
            .any(|d| d.severity == crate::diagnostic::Severity::Warning
                && d.message.contains("not undone")),
        "{:#?}",
        unpacked.diagnostics
    );
}

/// The titles of `toc`, nested entries after their parent.
fn flat_titles(toc: &[crate::inspect::TocEntry], out: &mut Vec<String>) {
    for e in toc {
        out.push(e.title.split_whitespace().collect::<Vec<_>>().join(" "));
        flat_titles(&e.children, out);
    }
}

#[test]
fn a_gutenberg_header_stays_on_its_page_and_the_outline_stays_the_epubs() {
    // ebookmaker's Sherlock Holmes: the header (START marker) opens the first page; the
    // build took it out for a page of its own, "Project Gutenberg", one contents entry more,
    // and cut "The Project Gutenberg eBook of" from the page's heading (Moby Dick: 3 letters
    // fewer after the fix). Flat contents too (Frankenstein's: no `sections` were written).
    let nested = || {
        TestBook::minimal_epub3().edit(
        "EPUB/text/chapter_1.xhtml",
        "<h1 id=\"start\">",
        "<h2>The Project Gutenberg eBook of <span>Minimal Book</span></h2>\n  <p>*** START OF THE PROJECT GUTENBERG EBOOK MINIMAL BOOK ***</p>\n  <h1 id=\"start\">",
        )
    };
    // The nav is what an EPUB 3's contents are read from.
    let flat = nested().edit(
        "EPUB/nav.xhtml",
        "<ol><li><a href=\"text/chapter%5F1.xhtml#s1\">Section</a></li></ol>",
        "",
    );
    for book in [nested(), flat] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let input = crate::inspect::open_bytes(&book.to_zip()).expect("the EPUB reads");
        let (_, out) = unpack_and_build(tmp.path(), &book);
        let output = crate::inspect::open(&out).expect("the rebuilt EPUB reads");
        let (mut before, mut after) = (Vec::new(), Vec::new());
        flat_titles(&input.toc, &mut before);
        flat_titles(&output.toc, &mut after);
        assert_eq!(after, before);
        let text: String = (output.spine.iter())
            .filter_map(|s| s.href.as_deref())
            .filter_map(|href| entry(&out, href))
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .collect();
        let header = text
            .find("START OF THE PROJECT GUTENBERG")
            .expect("the header kept");
        assert!(
            header < text.find("the section").expect("the text"),
            "moved after the text"
        );
        assert!(
            text.contains("The Project Gutenberg eBook of Minimal Book<"),
            "{text}"
        );
    }
}

#[test]
fn a_picture_a_standalone_svg_draws_from_beside_it_is_carried_inside_it() {
    // An SVG image cannot load files: the `<image href="cover.png">` of a title page drawn in
    // SVG was removed (an `svg` warning), and the page lost its picture.
    for name in ["cover.png", "c%6Fver.png"] {
        svg_draws_from_beside_it(name);
    }
}

/// [`a_picture_a_standalone_svg_draws_from_beside_it_is_carried_inside_it`] with the picture
/// named `name` in the SVG (a `%` escape is decoded: such a picture was removed).
fn svg_draws_from_beside_it(name: &str) {
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"10\" height=\"10\" viewBox=\"0 0 10 10\"><image width=\"10\" height=\"10\" xlink:href=\"{name}\"/></svg>"
    );
    let png = TestBook::minimal_epub3()
        .entry_mut("EPUB/images/cover.png")
        .data
        .clone();
    let book = TestBook::minimal_epub3()
        .edit(
            "EPUB/package.opf",
            "<item id=\"cover\"",
            "<item id=\"t\" href=\"images/title.svg\" media-type=\"image/svg+xml\"/>\n    <item id=\"cover\"",
        )
        .edit(
            "EPUB/text/chapter_1.xhtml",
            "<h2 id=\"s1\">",
            "<p><img src=\"../images/title.svg\" alt=\"The title\"/></p>\n  <h2 id=\"s1\">",
        )
        .add("EPUB/images/title.svg", svg.as_bytes());
    let tmp = tempfile::tempdir().expect("temp dir");
    let (_, out) = unpack_and_build(tmp.path(), &book);
    let output = crate::inspect::open(&out).expect("the rebuilt EPUB reads");
    let svgs: Vec<String> = (output.manifest.iter())
        .filter(|i| i.media_type == "image/svg+xml")
        .filter_map(|i| entry(&out, &i.href))
        .map(|b| String::from_utf8(b).expect("UTF-8"))
        .collect();
    let data = format!(
        "data:image/png;base64,{}",
        crate::media::base64::encode(&png)
    );
    assert!(
        svgs.iter().any(|s| s.contains(&format!(
            "<image width=\"10\" height=\"10\" xlink:href=\"{data}\">"
        ))),
        "{svgs:#?}"
    );
    assert_eq!(
        crate::inspect::verify_path(&out),
        [],
        "the rebuilt EPUB has problems"
    );
}

#[test]
fn a_font_no_stylesheet_names_is_left_with_a_note_saying_so() {
    // pandoc's `--epub-embed-font` without an `@font-face` of the user's: listed, never shown.
    let font: Vec<u8> = b"OTTO".iter().copied().chain([1u8; 64]).collect();
    let book = book_with_font(&font, false).edit(
        "EPUB/styles/book.css",
        "@font-face { font-family: Body; src: url(../fonts/body.otf) format(\"opentype\"); }\n",
        "",
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let (unpacked, out) = unpack_and_build(tmp.path(), &book);
    assert!(entry(&out, "EPUB/fonts/css-body.otf").is_none());
    let noted: Vec<_> = (unpacked.diagnostics.iter())
        .filter(|d| {
            d.message
                .contains("no stylesheet of the book names this font")
        })
        .collect();
    assert_eq!(noted.len(), 1, "{:#?}", unpacked.diagnostics);
    assert!(
        noted[0]
            .path
            .as_ref()
            .is_some_and(|p| p.ends_with("EPUB/fonts/body.otf"))
    );
    // Named, it is not noted.
    let tmp = tempfile::tempdir().expect("temp dir");
    let (unpacked, _) = unpack_and_build(tmp.path(), &book_with_font(&font, false));
    assert!(
        !unpacked
            .diagnostics
            .iter()
            .any(|d| d.message.contains("names this font"))
    );
}
