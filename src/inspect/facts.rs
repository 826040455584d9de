//! Reads what the stores' limits look at ([`crate::stores::limits::Facts`]) from any EPUB:
//! sizes of its content documents, pixel sizes of its images and cover, how the cover page
//! shows the cover, the spine against the NCX, the table of contents' depth, empty `alt`s and
//! CSS custom properties, MathML. Entries are read with the same caps as the rest of `inspect`.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;
use std::sync::{Arc, LazyLock};

use memchr::memmem::Finder;

use super::archive::Archive;
use super::container::{Container, Entry};
use super::read::{self, Epub, NCX_MEDIA_TYPE, TocEntry};
use super::{InspectError, MAX_XML_ENTRY_BYTES, href, xml};
use crate::stores::limits::{Facts, Picture};

/// The searchers run over every content document, made once.
static EMPTY_ALT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b" alt=\"\""));
static BODY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"<body"));

/// Images larger than this are not measured (no store takes them anyway).
const MAX_IMAGE_BYTES: u64 = 64 * 1024 * 1024;

/// The facts of the EPUB at `path`.
pub(crate) fn facts(path: &Path) -> Result<Facts, InspectError> {
    facts_of(&Archive::lazy(path))
}

/// The facts of the EPUB of `archive`, its entries read from what was inflated ahead.
pub(crate) fn facts_of(archive: &Archive) -> Result<Facts, InspectError> {
    let (mut facts, epub, mut container) = facts_but_ncx_in(archive)?;
    facts.ncx = ncx_order(archive, &epub, |name, cap| container.lend(name, cap));
    Ok(facts)
}

/// [`facts_of`] but the NCX's order ([`Facts::ncx`] left empty): for a reader that runs
/// beside `verify`'s rules and asks for [`ncx_of`] once they are done, so that the NCX they
/// parsed is not parsed again.
pub(crate) fn facts_but_ncx(archive: &Archive) -> Result<Facts, InspectError> {
    facts_but_ncx_in(archive).map(|(facts, ..)| facts)
}

/// The NCX's targets in document order ([`Facts::ncx`]), as [`facts_of`] reads them: those
/// a reader that parsed the same NCX text kept in `archive` ([`Archive::offer_ncx`]), else
/// parsed here. Empty without a readable NCX.
pub(crate) fn ncx_of(archive: &Archive) -> Vec<String> {
    match archive.package() {
        Ok(epub) => ncx_order(archive, &epub, |name, cap| archive.lend(name, cap)),
        Err(_) => Vec::new(),
    }
}

/// What [`facts_but_ncx_in`] read: the facts, the package and the zip (for the NCX after).
type Gathered = (Facts, Arc<Epub>, Container<BufReader<File>>);

/// [`facts_but_ncx`], with the package and the zip it read.
fn facts_but_ncx_in(archive: &Archive) -> Result<Gathered, InspectError> {
    let epub = archive.package()?;
    let reader = archive.reader().map_err(|source| InspectError::Io {
        path: archive.path().display().to_string(),
        source,
    })?;
    let bytes = reader
        .get_ref()
        .metadata()
        .map_err(|source| InspectError::Io {
            path: archive.path().display().to_string(),
            source,
        })?;
    let bytes = bytes.len();
    let mut container = archive.container_of(reader)?;
    let mut facts = Facts {
        bytes,
        languages: epub.metadata.languages.clone(),
        spine: epub.spine.iter().filter_map(|s| s.href.clone()).collect(),
        toc_depth: depth(&epub.toc),
        ..Facts::default()
    };
    measure_images(&epub, &mut container, &mut facts);
    read_documents(&epub, &mut container, &mut facts);
    Ok((facts, epub, container))
}

/// How deep `toc` nests (0 when empty).
fn depth(toc: &[TocEntry]) -> usize {
    toc.iter()
        .map(|e| 1 + depth(&e.children))
        .max()
        .unwrap_or(0)
}

/// The raster images of the manifest with their sizes, and the cover among them.
fn measure_images<R: Read + Seek>(epub: &Epub, c: &mut Container<R>, facts: &mut Facts) {
    for item in &epub.manifest {
        if !item.media_type.starts_with("image/") || item.media_type == "image/svg+xml" {
            continue;
        }
        let Ok(bytes) = c.read_capped(&item.href, MAX_IMAGE_BYTES) else {
            continue;
        };
        let Some(info) = crate::media::image::sniff(&bytes) else {
            continue;
        };
        let picture = Picture {
            name: item.href.clone(),
            width: info.width,
            height: info.height,
        };
        if epub.metadata.cover_href.as_deref() == Some(item.href.as_str()) {
            facts.cover = Some(picture.clone());
        }
        facts.images.push(picture);
    }
}

/// Sizes of the content documents, the cover page, empty `alt`s and custom properties.
fn read_documents<R: Read + Seek>(epub: &Epub, c: &mut Container<R>, facts: &mut Facts) {
    let cover = epub.metadata.cover_href.as_deref();
    // What was inflated ahead is read in place, not copied.
    let held = c.inflated.clone();
    let sizes: std::collections::HashMap<&str, u64> = (epub.entries.iter().rev())
        .map(|e| (e.name.as_str(), e.size))
        .collect();
    for item in &epub.manifest {
        let xhtml = item.media_type == "application/xhtml+xml";
        let css = item.media_type == "text/css";
        if !xhtml && !css {
            continue;
        }
        let lent = c.lend_held(held.as_deref(), &item.href, MAX_XML_ENTRY_BYTES);
        let Ok(text) = lent.and_then(|entry| xml::decode_lent(&item.href, entry)) else {
            continue;
        };
        if css {
            if crate::stores::kindle::no_custom_properties(&text).is_some() {
                facts.custom_properties.push(item.href.clone());
            }
            continue;
        }
        if item.properties.iter().any(|p| p == "nav") {
            continue;
        }
        let size = (sizes.get(item.href.as_str()).copied()).unwrap_or(text.len() as u64);
        facts.documents.push((item.href.clone(), size));
        if item.properties.iter().any(|p| p == "mathml") {
            facts.mathml.push(item.href.clone());
        }
        if EMPTY_ALT.find(text.as_bytes()).is_some() {
            facts.empty_alts.push(item.href.clone());
        }
        let body = BODY
            .find(text.as_bytes())
            .map(|at| &text[at..text[at..].find('>').map_or(at, |e| at + e)]);
        if body.and_then(|tag| attr_of(tag, "id")).is_some() {
            facts.body_ids.push(item.href.clone());
        }
        if let Some(cover) = cover
            && facts.cover_page.is_none()
        {
            facts.cover_page = shows(&item.href, &text, cover).map(|img| (item.href.clone(), img));
        }
    }
}

/// Whether the document `name` shows the image `cover`: Some(true) with an `<img>`,
/// Some(false) otherwise (an SVG `image`, a CSS background), None when it does not refer to it.
fn shows(name: &str, text: &str, cover: &str) -> Option<bool> {
    let file = cover.rsplit('/').next().unwrap_or(cover);
    memchr::memmem::find(text.as_bytes(), file.as_bytes())?;
    let by_img = text.match_indices("<img").any(|(at, _)| {
        let tag = &text[at..text[at..].find('>').map_or(text.len(), |e| at + e)];
        attr_of(tag, "src")
            .and_then(|src| href::resolve(name, src))
            .is_some_and(|r| r.path == cover)
    });
    Some(by_img)
}

/// The value of attribute `name` in start tag `tag`, in either quotes: after the first
/// ` name=` (found without making that string: asked of every document's `<body>`).
fn attr_of<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let (found, _) = (tag.match_indices(name))
        .find(|&(i, _)| tag[..i].ends_with(' ') && tag[i + name.len()..].starts_with('='))?;
    let at = found + name.len() + 1;
    let quote = tag[at..]
        .chars()
        .next()
        .filter(|q| *q == '"' || *q == '\'')?;
    let rest = &tag[at + 1..];
    Some(&rest[..rest.find(quote)?])
}

/// The NCX's targets in document order, as entry names ([`read::ncx_targets`]), its entry
/// read by `lend` (with [`Container::lend`]'s cap and answers); empty without an NCX.
fn ncx_order<'a>(
    archive: &Archive,
    epub: &Epub,
    lend: impl FnOnce(&str, u64) -> Result<Cow<'a, Entry>, InspectError>,
) -> Vec<String> {
    let Some(ncx) = epub
        .manifest
        .iter()
        .find(|i| i.media_type == NCX_MEDIA_TYPE)
    else {
        return Vec::new();
    };
    let Ok(entry) = lend(&ncx.href, MAX_XML_ENTRY_BYTES) else {
        return Vec::new();
    };
    let text = match &*entry {
        // Found UTF-8 when it was inflated ahead.
        Entry::Text(text) => text.as_str(),
        Entry::Bytes(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return Vec::new(),
        },
    };
    if let Some(targets) = archive.ncx_targets(&ncx.href, text) {
        return targets;
    }
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    match roxmltree::Document::parse_with_options(text, opts) {
        Ok(doc) => read::ncx_targets(&ncx.href, &doc),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::{NCX, TestBook};

    #[test]
    fn an_attribute_is_read_after_its_own_name_only() {
        let body = r#"<body data-id="a" idx="c" class='id=d' id='b' id="e">"#;
        assert_eq!(attr_of(body, "id"), Some("b"));
        assert_eq!(
            attr_of(r#"<img alt="src=" src="a.png"/>"#, "src"),
            Some("a.png")
        );
        assert_eq!(attr_of("<body id=b>", "id"), None);
        assert_eq!(attr_of(r#"<body xid="b">"#, "id"), None);
    }

    /// The NCX order of `book` as [`facts`] reads it alone, and as a `fix`'s review reads it
    /// after the rules ran on an [`Archive::inflate`]: with what they kept, whether they kept
    /// it for the text the entry holds.
    fn orders(book: &TestBook) -> (Vec<String>, Vec<String>, bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.epub");
        std::fs::write(&path, book.to_zip()).unwrap();
        let alone = facts(&path).unwrap().ncx;
        let archive = Archive::inflate(&path);
        crate::inspect::verify::verify_archive_with(&archive, None);
        let text = match &*archive.lend("EPUB/toc.ncx", MAX_XML_ENTRY_BYTES).unwrap() {
            Entry::Text(text) => text.clone(),
            Entry::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        };
        let kept = archive.ncx_targets("EPUB/toc.ncx", &text).is_some();
        (alone, ncx_of(&archive), kept)
    }

    #[test]
    fn the_ncx_order_the_rules_kept_is_the_order_parsed_alone() {
        let (alone, shared, kept) = orders(&TestBook::minimal_epub3());
        assert_eq!(
            alone,
            ["EPUB/text/chapter_1.xhtml", "EPUB/text/chapter_1.xhtml"]
        );
        assert_eq!(shared, alone);
        assert!(kept, "the rules kept no NCX order for the entry's text");
    }

    #[test]
    fn an_ncx_whose_text_the_rules_changed_is_parsed_again_as_it_is() {
        // A BOM is stripped before the rules parse the NCX: what they kept is not for the
        // text the entry holds, and the order is read from the entry itself.
        let with_bom = format!("\u{FEFF}{NCX}");
        let book = TestBook::minimal_epub3().edit("EPUB/toc.ncx", NCX, &with_bom);
        let (alone, shared, kept) = orders(&book);
        assert!(!kept);
        assert_eq!(shared, alone);
    }
}
