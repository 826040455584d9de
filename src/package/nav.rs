//! The two tables of contents: the EPUB 3 navigation document and the EPUB 2 NCX.

use std::fmt::Write;

use super::{Book, Doc, DocKind, Look, Matter, locale, pieces};
use crate::xml::{escape_attr as attr, escape_text as text};

/// The body of `nav.xhtml`: the nested table of contents and the landmarks (`docs` puts it
/// in the document shell).
pub(super) fn nav_body(book: &Book, look: &Look, docs: &[Doc]) -> String {
    let words = locale::words(&book.info.language);
    let listed = entries(docs, look);
    let mut body = String::with_capacity(1024 + listed.len() * 96);
    let _ = write!(
        body,
        "<nav epub:type=\"toc\" role=\"doc-toc\" id=\"toc\">\n<h1>{}</h1>\n",
        text(words.contents)
    );
    nested_list(&mut body, &listed, |d| link_or_heading(d, &d.href));
    body.push_str("</nav>\n");
    let _ = write!(
        body,
        "<nav epub:type=\"landmarks\" id=\"landmarks\" hidden=\"hidden\">\n<h2>{}</h2>\n<ol>\n",
        text(words.landmarks)
    );
    if book.cover.is_some() {
        let _ = writeln!(
            body,
            "<li><a epub:type=\"cover\" href=\"text/cover.xhtml\">{}</a></li>",
            text(words.cover)
        );
    }
    let find = |pred: fn(&DocKind) -> bool| docs.iter().find(|d| pred(&d.kind));
    if let Some(t) = find(|k| matches!(k, DocKind::TitlePage)) {
        let _ = writeln!(
            body,
            "<li><a epub:type=\"titlepage\" href=\"{}\">{}</a></li>",
            t.href,
            text(words.title_page)
        );
    }
    // The TOC landmark points at the TOC page when it is in the reading order. Landmarks may
    // only point at spine items, and the navigation document is not one.
    if let Some(t) = find(|k| matches!(k, DocKind::TocPage)) {
        let _ = writeln!(
            body,
            "<li><a epub:type=\"toc\" href=\"{}\">{}</a></li>",
            t.href,
            text(words.contents)
        );
    }
    if let Some(first) = docs.iter().find(|d| d.is_matter(Matter::Front)) {
        let _ = writeln!(
            body,
            "<li><a epub:type=\"frontmatter\" href=\"{}\">{}</a></li>",
            first.href,
            text(words.front_matter)
        );
    }
    if let Some(first) = docs.iter().find(|d| d.is_body()) {
        let _ = writeln!(
            body,
            "<li><a epub:type=\"bodymatter\" href=\"{}\">{}</a></li>",
            first.href,
            text(words.start)
        );
    }
    if let Some(first) = docs.iter().find(|d| d.is_matter(Matter::Back)) {
        let _ = writeln!(
            body,
            "<li><a epub:type=\"backmatter\" href=\"{}\">{}</a></li>",
            first.href,
            text(words.back_matter)
        );
    }
    body.push_str("</ol>\n</nav>\n");
    body
}

/// An entry of the table of contents: a document, or a section of a chapter.
pub(super) struct Entry {
    /// Path relative to the package document, e.g. `text/chapter-0001.xhtml#usage`.
    pub href: String,
    pub title: String,
    /// Nesting depth, 1 for top level; never more than one below the entry before.
    pub depth: usize,
    /// A heading without a target of its own (a section without an id): shown as `<span>`
    /// over the entries nested under it; `href` is then its first entry's, for the NCX.
    pub heading_only: bool,
}

/// An entry's label: a link to `href`, or a `<span>` for a heading-only entry.
pub(super) fn link_or_heading(d: &Entry, href: &str) -> String {
    match d.heading_only {
        true => format!("<span>{}</span>", text(&d.title)),
        false => format!("<a href=\"{}\">{}</a>", attr(href), text(&d.title)),
    }
}

/// The table of contents: the documents listed, each chapter followed by its sections down
/// to `[layout] toc-depth` heading levels (1: chapters only), nested under it by level, each
/// pointing at the piece of the chapter that holds it. A target that nests its table of
/// contents less deep (Kindle: two levels) gets the deeper entries one level up, in order.
pub(super) fn entries(docs: &[Doc], look: &Look) -> Vec<Entry> {
    let toc_depth = look.layout.toc_depth;
    let max = look.target.toc_depth().unwrap_or(usize::MAX);
    let mut out: Vec<Entry> = Vec::new();
    for doc in docs.iter().filter(|d| d.in_toc) {
        out.push(Entry {
            href: doc.href.clone(),
            title: doc.title.clone(),
            depth: doc.depth,
            heading_only: false,
        });
        let DocKind::Chapter {
            chapter, number, ..
        } = &doc.kind
        else {
            continue;
        };
        let mut before = doc.depth;
        // A heading of only an image has no text to list.
        let listed = chapter.sections.iter();
        for s in listed.filter(|s| s.level <= toc_depth && !s.title.is_empty()) {
            // Level 0 (a heading only): a level above the chapter, never above the top.
            before = (doc.depth + s.level)
                .saturating_sub(1)
                .max(1)
                .min(before + 1);
            let href = match s.id.is_empty() {
                true => doc.href.clone(),
                false => {
                    let piece = pieces::piece_of(&chapter.anchors, &s.id);
                    format!("text/{}.xhtml#{}", super::piece_id(*number, piece), s.id)
                }
            };
            out.push(Entry {
                href,
                title: s.title.clone(),
                depth: before.min(max),
                heading_only: s.id.is_empty(),
            });
        }
    }
    settle_headings(&mut out);
    out
}

/// A heading-only entry heads the entries nested under it: it takes the first one's target
/// (for the NCX, whose entries all need one). One with nothing under it (its entries cut off
/// by `toc-depth` or a target's shallower contents) becomes a link to its chapter, as the
/// navigation document allows a `<span>` only over a list.
fn settle_headings(out: &mut [Entry]) {
    for i in (0..out.len()).rev() {
        if !out[i].heading_only {
            continue;
        }
        match out.get(i + 1).filter(|next| next.depth > out[i].depth) {
            Some(next) => out[i].href = next.href.clone(),
            None => out[i].heading_only = false,
        }
    }
}

/// Writes `<ol>` lists nested by each entry's depth.
pub(super) fn nested_list(out: &mut String, docs: &[Entry], item: impl Fn(&Entry) -> String) {
    let mut depth = 0;
    for (i, doc) in docs.iter().enumerate() {
        while depth < doc.depth {
            out.push_str("<ol>\n");
            depth += 1;
        }
        out.push_str("<li>");
        out.push_str(&item(doc));
        let next_depth = docs.get(i + 1).map_or(1, |n| n.depth);
        if next_depth > doc.depth {
            out.push('\n');
            continue;
        }
        out.push_str("</li>\n");
        while depth > next_depth {
            out.push_str("</ol>\n</li>\n");
            depth -= 1;
        }
    }
    while depth > 0 {
        out.push_str("</ol>\n");
        depth -= 1;
    }
}

/// Writes `toc.ncx` for EPUB 2 readers.
pub(super) fn ncx(book: &Book, look: &Look, docs: &[Doc]) -> String {
    let info = &book.info;
    let docs = entries(docs, look);
    let depth = docs.iter().map(|d| d.depth).max().unwrap_or(1);
    let mut o = String::with_capacity(1024 + docs.len() * 200);
    let _ = write!(
        o,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="{lang}">
  <head>
    <meta name="dtb:uid" content="{uid}"/>
    <meta name="dtb:depth" content="{depth}"/>
    <meta name="dtb:totalPageCount" content="0"/>
    <meta name="dtb:maxPageNumber" content="0"/>
  </head>
  <docTitle><text>{title}</text></docTitle>
"#,
        lang = attr(&info.language),
        uid = attr(&info.identifier),
        title = text(&info.title),
    );
    for a in &info.authors {
        let _ = writeln!(o, "  <docAuthor><text>{}</text></docAuthor>", text(&a.name));
    }
    o.push_str("  <navMap>\n");
    let mut open = 0;
    // Entries with one target share its play order (a heading-only entry has its first
    // entry's target): the NCX requires it.
    let mut orders: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, doc) in docs.iter().enumerate() {
        let next = orders.len() + 1;
        let order = *orders.entry(doc.href.as_str()).or_insert(next);
        let _ = write!(
            o,
            "{indent}<navPoint id=\"nav-{n}\" playOrder=\"{order}\"><navLabel><text>{title}</text></navLabel><content src=\"{src}\"/>",
            indent = "  ".repeat(doc.depth + 1),
            n = i + 1,
            title = text(&doc.title),
            src = attr(&doc.href),
        );
        open += 1;
        let next_depth = docs.get(i + 1).map_or(1, |n| n.depth);
        if next_depth > doc.depth {
            o.push('\n');
            continue;
        }
        o.push_str("</navPoint>\n");
        open -= 1;
        for d in (next_depth..doc.depth).rev() {
            let _ = writeln!(o, "{}</navPoint>", "  ".repeat(d + 1));
            open -= 1;
        }
    }
    debug_assert_eq!(open, 0);
    o.push_str("  </navMap>\n</ncx>\n");
    o
}
