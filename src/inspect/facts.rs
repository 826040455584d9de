//! Reads what the stores' limits look at ([`crate::stores::limits::Facts`]) from any EPUB:
//! sizes of its content documents, pixel sizes of its images and cover, how the cover page
//! shows the cover, the spine against the NCX, the table of contents' depth, empty `alt`s and
//! CSS custom properties, MathML. Entries are read with the same caps as the rest of `inspect`.

use std::io::{Read, Seek};
use std::path::Path;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::archive::Archive;
use super::container::Container;
use super::read::{Epub, NCX_MEDIA_TYPE, TocEntry};
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
    facts.ncx = ncx_order(&epub, &mut container);
    Ok(facts)
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

/// The value of attribute `name` in start tag `tag`, in either quotes.
fn attr_of<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}="))? + name.len() + 2;
    let quote = tag[at..]
        .chars()
        .next()
        .filter(|q| *q == '"' || *q == '\'')?;
    let rest = &tag[at + 1..];
    Some(&rest[..rest.find(quote)?])
}

/// The NCX's targets in document order, as entry names; empty without an NCX.
fn ncx_order<R: Read + Seek>(epub: &Epub, c: &mut Container<R>) -> Vec<String> {
    let Some(ncx) = epub
        .manifest
        .iter()
        .find(|i| i.media_type == NCX_MEDIA_TYPE)
    else {
        return Vec::new();
    };
    let Ok(bytes) = c.read_capped(&ncx.href, MAX_XML_ENTRY_BYTES) else {
        return Vec::new();
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Vec::new();
    };
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let Ok(doc) = roxmltree::Document::parse_with_options(text, opts) else {
        return Vec::new();
    };
    doc.descendants()
        .filter(|n| n.has_tag_name("content"))
        .filter_map(|n| href::resolve(&ncx.href, n.attribute("src")?))
        .map(|r| r.path)
        .collect()
}
