//! In-memory EPUBs for the unit tests: a minimal valid EPUB 3, and small edits that break
//! exactly one rule.

use std::io::{Cursor, Write};

use zip::CompressionMethod;
use zip::write::{FullFileOptions, ZipWriter};

use super::verify::verify_bytes;
use crate::diagnostic::Code;

pub(crate) struct TestEntry {
    pub name: String,
    pub data: Vec<u8>,
    pub stored: bool,
    pub extra_field: bool,
}

pub(crate) struct TestBook {
    pub entries: Vec<TestEntry>,
}

pub(crate) const CONTAINER: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"##;

pub(crate) const OPF: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid" xml:lang="en">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:12345678-1234-5678-1234-567812345678</dc:identifier>
    <dc:title>Minimal Book</dc:title>
    <dc:creator id="author">Ann Writer</dc:creator>
    <meta refines="#author" property="role" scheme="marc:relators">aut</meta>
    <meta refines="#author" property="file-as">Writer, Ann</meta>
    <dc:language>en</dc:language>
    <meta property="belongs-to-collection" id="series">The Series</meta>
    <meta refines="#series" property="group-position">3</meta>
    <meta property="dcterms:modified">2024-01-02T03:04:05Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="c1" href="text/chapter%5F1.xhtml" media-type="application/xhtml+xml"/>
    <item id="cover" href="images/cover.png" media-type="image/png" properties="cover-image"/>
  </manifest>
  <spine toc="ncx">
    <itemref idref="c1"/>
    <itemref idref="nav" linear="no"/>
  </spine>
</package>
"##;

pub(crate) const NAV: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en" xml:lang="en">
<head><title>Contents</title></head>
<body>
  <nav epub:type="toc" id="toc">
    <ol>
      <li><a href="text/chapter%5F1.xhtml#start">Chapter  One</a>
        <ol><li><a href="text/chapter%5F1.xhtml#s1">Section</a></li></ol>
      </li>
    </ol>
  </nav>
</body>
</html>
"##;

pub(crate) const NCX: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
  <head>
    <meta name="dtb:uid" content="urn:uuid:12345678-1234-5678-1234-567812345678"/>
    <meta name="dtb:depth" content="2"/>
  </head>
  <docTitle><text>Minimal Book</text></docTitle>
  <navMap>
    <navPoint id="p1" playOrder="1">
      <navLabel><text>Chapter One</text></navLabel>
      <content src="text/chapter%5F1.xhtml#start"/>
      <navPoint id="p2" playOrder="2">
        <navLabel><text>Section</text></navLabel>
        <content src="text/chapter%5F1.xhtml#s1"/>
      </navPoint>
    </navPoint>
  </navMap>
</ncx>
"##;

pub(crate) const CHAPTER: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en" xml:lang="en">
<head><title>Chapter One</title></head>
<body>
  <h1 id="start">Chapter One</h1>
  <p>See <a href="#s1">the section</a> and <a href="https://example.org/">the web</a>.</p>
  <h2 id="s1">Section</h2>
  <p><img src="../images/cover.png" alt="cover"/> <a href="../nav.xhtml">Contents</a></p>
</body>
</html>
"##;

/// A valid 1x1 grey PNG (EPUBCheck decodes images).
const PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00\x3a\x7e\x9b\x55\x00\x00\x00\x0a\x49\x44\x41\x54\x78\x9c\x63\xf8\x0f\x00\x01\x01\x01\x00\xb1\x38\xf6\x14\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

impl TestBook {
    /// A small EPUB 3 that breaks none of our rules.
    pub fn minimal_epub3() -> Self {
        let mut book = TestBook {
            entries: Vec::new(),
        };
        book.entries.push(TestEntry {
            name: "mimetype".into(),
            data: b"application/epub+zip".to_vec(),
            stored: true,
            extra_field: false,
        });
        for (name, text) in [
            ("META-INF/container.xml", CONTAINER),
            ("EPUB/package.opf", OPF),
            ("EPUB/nav.xhtml", NAV),
            ("EPUB/toc.ncx", NCX),
            ("EPUB/text/chapter_1.xhtml", CHAPTER),
        ] {
            book = book.add(name, text.as_bytes());
        }
        book.add("EPUB/images/cover.png", PNG)
    }

    /// Replace `from` with `to` in one entry; panics (test bug) if `from` is not there.
    pub fn edit(mut self, name: &str, from: &str, to: &str) -> Self {
        let entry = self
            .entries
            .iter_mut()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("test book has no entry {name}"));
        let text = String::from_utf8(entry.data.clone()).expect("test entry is UTF-8");
        assert!(text.contains(from), "{name} does not contain {from:?}");
        entry.data = text.replacen(from, to, 1).into_bytes();
        self
    }

    pub fn add(mut self, name: &str, data: &[u8]) -> Self {
        self.entries.push(TestEntry {
            name: name.into(),
            data: data.to_vec(),
            stored: false,
            extra_field: false,
        });
        self
    }

    pub fn remove(mut self, name: &str) -> Self {
        let before = self.entries.len();
        self.entries.retain(|e| e.name != name);
        assert!(self.entries.len() < before, "no entry {name} to remove");
        self
    }

    pub fn entry_mut(&mut self, name: &str) -> &mut TestEntry {
        self.entries
            .iter_mut()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("test book has no entry {name}"))
    }

    pub fn to_zip(&self) -> Vec<u8> {
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        for e in &self.entries {
            let method = if e.stored {
                CompressionMethod::Stored
            } else {
                CompressionMethod::Deflated
            };
            let mut options = FullFileOptions::default().compression_method(method);
            if e.extra_field {
                // Alignment padding is written as an extra field in the local header.
                options = options.with_alignment(512);
            }
            zip.start_file(e.name.as_str(), options).expect("start");
            zip.write_all(&e.data).expect("write");
        }
        zip.finish().expect("finish").into_inner()
    }
}

/// The findings our own rules give on `book`, as code and message, but those on viewports,
/// which the test book lacks when an edit makes it fixed layout.
pub(crate) fn codes(book: TestBook) -> Vec<(Code, String)> {
    verify_bytes(&book.to_zip())
        .into_iter()
        .filter(|f| f.code != Code::EpubViewport)
        .map(|f| (f.code, f.message))
        .collect()
}

/// Asserts that `book` gives exactly one finding, of `code`, whose message holds `message`.
pub(crate) fn assert_only(book: TestBook, code: Code, message: &str) {
    let found = codes(book);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, code, "{found:#?}");
    assert!(found[0].1.contains(message), "{found:#?}");
}

/// [`TestBook::minimal_epub3`], the book the rule tests edit.
pub(crate) fn minimal() -> TestBook {
    TestBook::minimal_epub3()
}
