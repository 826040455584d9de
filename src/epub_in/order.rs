//! The reading order of an EPUB whose spine gives none: a spine that lists no document, or only
//! the navigation document (EbookLib writes `spine = ['nav']` when its user forgot the chapters,
//! and a spine without `<itemref>` when they gave it none). The documents are in the manifest
//! all the same, and a reader expects the book: the order is the one the table of contents
//! (nav, else NCX) gives them, each document where its first entry points; a document no
//! entry points to comes right after the document before it in the manifest (first, when none
//! is before it). The navigation document keeps its place in the spine. A warning says so; the
//! chapters then follow as for any spine ([`super::chapters::plan`]).

use std::collections::{HashMap, HashSet};

use super::files::{Kind, kind_of};
use crate::diagnostic::{Code, Diagnostic};
use crate::inspect::{Epub, SpineItem, TocEntry};

/// When the spine of `book` holds no document of the manifest but the navigation document,
/// the items that fill it in (see the module, to be appended to it), said in `diagnostics`.
/// A spine that holds a page of text is left as it is (None), and so is one the manifest has
/// nothing to add to.
pub(super) fn fill_spine(book: &Epub, diagnostics: &mut Vec<Diagnostic>) -> Option<Vec<SpineItem>> {
    let is_nav = |href: &str| {
        (book.manifest.iter()).any(|m| m.href == href && m.properties.iter().any(|p| p == "nav"))
    };
    let documents: Vec<&str> = (book.manifest.iter())
        .filter(|m| kind_of(m) == Kind::Document && !m.properties.iter().any(|p| p == "nav"))
        .map(|m| m.href.as_str())
        .collect();
    let spined: Vec<&str> = (book.spine.iter())
        .filter_map(|s| s.href.as_deref())
        .collect();
    if spined.iter().any(|h| !is_nav(h)) || documents.is_empty() {
        return None;
    }
    let order = toc_order(&book.toc, &documents);
    let ids: HashMap<&str, &str> = (book.manifest.iter())
        .map(|m| (m.href.as_str(), m.id.as_str()))
        .collect();
    let added: Vec<SpineItem> = order
        .iter()
        .map(|href| SpineItem {
            idref: ids.get(href).copied().unwrap_or_default().to_string(),
            href: Some(href.to_string()),
            linear: true,
        })
        .collect();
    let message = match spined.is_empty() {
        true => "the spine lists no document",
        false => "the spine lists only the navigation document",
    };
    diagnostics.push(Diagnostic::warning(
        Code::EpubInChapter,
        format!(
            "{message}; the reading order is the manifest's {} XHTML documents in the order of the table of contents (those it does not list after the document before them in the manifest)",
            added.len()
        ),
    ));
    Some(added)
}

/// `documents` (the manifest's, in its order) in the order the contents point to them; the ones
/// the contents do not name right after the named document before them in the manifest (in
/// the manifest's order, first when no named one is before them).
fn toc_order<'a>(toc: &[TocEntry], documents: &[&'a str]) -> Vec<&'a str> {
    let known: HashMap<&str, &'a str> = documents.iter().map(|d| (*d, *d)).collect();
    let mut named: Vec<&'a str> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&TocEntry> = toc.iter().rev().collect();
    while let Some(entry) = stack.pop() {
        let path = entry.href.split('#').next().unwrap_or_default();
        if let Some(&doc) = known.get(path)
            && seen.insert(doc)
        {
            named.push(doc);
        }
        stack.extend(entry.children.iter().rev());
    }
    let mut after: HashMap<Option<&str>, Vec<&'a str>> = HashMap::new();
    let mut previous: Option<&str> = None;
    for &doc in documents {
        match seen.contains(doc) {
            true => previous = Some(doc),
            false => after.entry(previous).or_default().push(doc),
        }
    }
    let mut order: Vec<&'a str> = after.remove(&None).unwrap_or_default();
    for doc in named {
        order.push(doc);
        order.extend(after.remove(&Some(doc)).unwrap_or_default());
    }
    order
}

/// The page an EPUB without any page of text becomes (a downloader's empty book: a spine of
/// the navigation document and a cover page at most): the headings of its navigation document
/// (`<h2>eva anima</h2>` over an empty list), else the book's title, written beside the
/// navigation document (or at the top of the folder) as `title-page.xhtml`. A warning says
/// the book has no text; None when the page cannot be written.
pub(super) fn heading_page(
    archive: &crate::inspect::archive::Archive,
    book: &Epub,
    layout: &super::files::Layout,
    dir: &std::path::Path,
    written: &super::files::Written,
    meta: &super::metadata::Metadata,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<super::UnpackedChapter, super::Error> {
    let nav = (book.manifest.iter()).find(|m| m.properties.iter().any(|p| p == "nav"));
    let mut headings = nav
        .and_then(|m| archive.container().ok()?.read_capped(&m.href, 1 << 20).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .map(|text| headings_of(&text))
        .unwrap_or_default();
    let from_nav = !headings.is_empty();
    if headings.is_empty() {
        headings.push((1, meta.title.clone()));
    }
    let nav = nav.and_then(|m| layout.local(&m.href));
    let folder = (nav.as_deref())
        .and_then(|n| n.rsplit_once('/'))
        .map(|(f, _)| format!("{f}/"));
    let mut file = format!("{}title-page.xhtml", folder.unwrap_or_default());
    while written.local.values().any(|l| *l == file) {
        file = file.replace(".xhtml", "-1.xhtml");
    }
    let page = page_of(&headings, &meta.language);
    super::files::write_file(dir, &dir.join(&file), page.as_bytes())?;
    diagnostics.push(Diagnostic::warning(
        Code::EpubInChapter,
        format!(
            "the EPUB has no page of text (its spine holds at most the navigation document and a cover page); the book is one page, {file}, with {}",
            match from_nav {
                true => "the navigation document's headings",
                false => "the book's title",
            }
        ),
    ));
    Ok(super::UnpackedChapter {
        file,
        title: Some(headings[0].1.clone()),
        level: 1,
        linear: true,
        sections: Vec::new(),
    })
}

/// The headings (level, text) of an XHTML document, in order; empty ones left out.
fn headings_of(text: &str) -> Vec<(usize, String)> {
    let html = scraper::Html::parse_document(text);
    let Ok(selector) =
        scraper::Selector::parse("body h1, body h2, body h3, body h4, body h5, body h6")
    else {
        return Vec::new();
    };
    html.select(&selector)
        .filter_map(|h| {
            let level = h.value().name()[1..].parse().ok()?;
            let text = h.text().collect::<String>();
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            (!text.is_empty()).then_some((level, text))
        })
        .collect()
}

/// An XHTML page of `headings` in the language `lang`, titled by the first.
fn page_of(headings: &[(usize, String)], lang: &str) -> String {
    let esc = crate::xml::escape_text;
    let body: String = headings
        .iter()
        .map(|(level, text)| format!("<h{level}>{}</h{level}>\n", esc(text)))
        .collect();
    let lang = crate::xml::escape_attr(lang);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"{lang}\" xml:lang=\"{lang}\">\n<head>\n<title>{}</title>\n</head>\n<body>\n{body}</body>\n</html>\n",
        esc(&headings[0].1)
    )
}
