//! `epubforge inspect`'s report of an opened EPUB ([`render_text`]): its metadata, spine,
//! table of contents as a tree, and sizes by kind of file. Reading is [`super::read`]'s.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::read::{Epub, EpubMetadata, TocEntry, TocSource};

/// The part of a book an entry belongs to, for the size table.
fn kind_of(name: &str, media_type: Option<&str>) -> &'static str {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let mt = media_type.unwrap_or_default();
    if mt.starts_with("image/")
        || matches!(
            ext.as_str(),
            "jpg" | "jpeg" | "png" | "gif" | "svg" | "webp"
        )
    {
        "images"
    } else if mt.starts_with("font/")
        || mt.contains("font")
        || mt == "application/vnd.ms-opentype"
        || matches!(ext.as_str(), "ttf" | "otf" | "woff" | "woff2")
    {
        "fonts"
    } else if mt == "text/css" || ext == "css" {
        "styles"
    } else if mt == "application/xhtml+xml"
        || matches!(
            ext.as_str(),
            "xhtml" | "html" | "htm" | "opf" | "ncx" | "xml" | "txt"
        )
    {
        "text"
    } else {
        "other"
    }
}

/// A human report: metadata, spine, TOC tree, sizes by kind.
pub fn render_text(epub: &Epub) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "EPUB {} (package document {})",
        epub.version, epub.opf_path
    );
    render_metadata(&mut out, &epub.metadata);
    render_spine_and_toc(&mut out, epub);
    render_sizes(&mut out, epub);
    for note in &epub.notes {
        let _ = writeln!(out, "Note: {note}");
    }
    out
}

/// The metadata, a line per field. Every value is escaped ([`crate::escape::value`]): an EPUB
/// from a stranger may hold line breaks or control characters in its metadata.
fn render_metadata(out: &mut String, md: &EpubMetadata) {
    use crate::escape::value as v;
    let list = |items: &[String]| {
        if items.is_empty() {
            "-".to_string()
        } else {
            v(&items.join("; ")).into_owned()
        }
    };
    let _ = writeln!(out, "Title:       {}", list(&md.titles));
    for c in &md.creators {
        let mut extra = Vec::new();
        if let Some(r) = &c.role {
            extra.push(format!("role {}", v(r)));
        }
        if let Some(f) = &c.file_as {
            extra.push(format!("file-as {}", v(f)));
        }
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!(" ({})", extra.join(", "))
        };
        let _ = writeln!(out, "Creator:     {}{extra}", v(&c.name));
    }
    let _ = writeln!(out, "Language:    {}", list(&md.languages));
    let _ = writeln!(out, "Identifier:  {}", list(&md.identifiers));
    let opt = |o: &Option<String>| o.as_deref().map_or("-".to_string(), |o| v(o).into_owned());
    let _ = writeln!(out, "Unique id:   {}", opt(&md.unique_identifier));
    let optional = [
        ("Publisher:  ", &md.publisher),
        ("Date:       ", &md.date),
        ("Modified:   ", &md.modified),
        ("Rights:     ", &md.rights),
        ("Cover:      ", &md.cover_href),
    ];
    for (label, value) in optional {
        if let Some(value) = value {
            let _ = writeln!(out, "{label} {}", v(value));
        }
    }
    if let Some((name, pos)) = &md.series {
        let (name, pos) = (v(name), pos.as_deref().map(v));
        match pos {
            Some(p) => {
                let _ = writeln!(out, "Series:      {name} #{p}");
            }
            None => {
                let _ = writeln!(out, "Series:      {name}");
            }
        }
    }
    if !md.subjects.is_empty() {
        let _ = writeln!(out, "Subjects:    {}", list(&md.subjects));
    }
    if let Some(d) = &md.description {
        let short: String = d.chars().take(200).collect();
        let ellipsis = if d.chars().count() > 200 { "..." } else { "" };
        let _ = writeln!(out, "Description: {}{ellipsis}", v(&short));
    }
}

/// The spine in reading order, then the table of contents as a tree.
fn render_spine_and_toc(out: &mut String, epub: &Epub) {
    let _ = writeln!(out, "\nSpine ({} items):", epub.spine.len());
    for (i, s) in epub.spine.iter().enumerate() {
        let target = s
            .href
            .clone()
            .unwrap_or_else(|| format!("(no manifest item '{}')", s.idref));
        let linear = if s.linear { "" } else { "  [non-linear]" };
        let target = crate::escape::value(&target);
        let _ = writeln!(out, "  {:>3}. {target}{linear}", i + 1);
    }

    let source = match epub.toc_source {
        TocSource::Nav => "nav document",
        TocSource::Ncx => "NCX",
        TocSource::None => "none found",
    };
    let _ = writeln!(out, "\nTable of contents (from {source}):");
    let mut stack: Vec<(&TocEntry, usize)> = epub.toc.iter().rev().map(|e| (e, 1)).collect();
    while let Some((entry, depth)) = stack.pop() {
        let _ = writeln!(
            out,
            "{}{}  -> {}",
            "  ".repeat(depth),
            crate::escape::value(&entry.title),
            crate::escape::value(&entry.href)
        );
        stack.extend(entry.children.iter().rev().map(|c| (c, depth + 1)));
    }
}

/// The files and their sizes, compressed and not, by kind.
fn render_sizes(out: &mut String, epub: &Epub) {
    let media: HashMap<&str, &str> = epub
        .manifest
        .iter()
        .map(|m| (m.href.as_str(), m.media_type.as_str()))
        .collect();
    let kinds = ["text", "images", "fonts", "styles", "other"];
    let mut sums = [(0usize, 0u64, 0u64); 5];
    for e in epub.entries.iter().filter(|e| !e.name.ends_with('/')) {
        let kind = kind_of(&e.name, media.get(e.name.as_str()).copied());
        if let Some(i) = kinds.iter().position(|k| *k == kind)
            && let Some(s) = sums.get_mut(i)
        {
            s.0 += 1;
            s.1 += e.compressed_size;
            s.2 += e.size;
        }
    }
    let _ = writeln!(out, "\nSizes:");
    let _ = writeln!(
        out,
        "  {:<8} {:>6} {:>12} {:>12}",
        "part", "files", "compressed", "size"
    );
    let mut total = (0usize, 0u64, 0u64);
    for (kind, (n, c, u)) in kinds.iter().zip(sums) {
        if n > 0 {
            let _ = writeln!(out, "  {kind:<8} {n:>6} {c:>12} {u:>12}");
        }
        total = (total.0 + n, total.1 + c, total.2 + u);
    }
    let _ = writeln!(
        out,
        "  {:<8} {:>6} {:>12} {:>12}",
        "total", total.0, total.1, total.2
    );
    if total.2 > 0 {
        let _ = writeln!(
            out,
            "  compressed to {:.1}% of the uncompressed size",
            total.1 as f64 * 100.0 / total.2 as f64
        );
    }
}
