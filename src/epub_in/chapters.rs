//! The chapter list: the spine's XHTML documents in reading order (a picture of the spine, an
//! SVG drawing or a bitmap, as the page made to show it, see [`super::files::picture_pages`];
//! the XHTML `fallback` of such pictures after the last of them, see [`fallbacks`]), each
//! titled and nested as the table of contents (the nav, else the NCX) has it.
//!
//! A document's title and level are those of the first TOC entry that points into it; further
//! entries into the same document are its `sections` (id, title and level each), which the
//! build lists in place of its headings, down to `[layout] toc-depth` (set to the deepest). A
//! document no entry points to keeps its place in the reading order, at the level of the one
//! before, and stays out of the contents (`toc = false`, a note says so): a title page, or a
//! piece of a chapter that calibre cut at a page break. Every document shows its own heading
//! (`heading = false`), so that the build adds no text the EPUB did not have. `linear="no"` stays
//! `linear = false`. The cover page (a document that shows only the cover image) is the
//! build's to make again from `cover`; the navigation document, when the spine holds it,
//! becomes `[layout] toc-page`, at its place (`toc-page-before`). A heading without a link (a
//! nav's `<span>` entry) among a chapter's entries, beside it at its depth (EbookLib's
//! `Section`) or one above it (the next volume's), is a heading-only section over the entries
//! after it (level 0 for the one above); one with no chapter before it is left out (a note),
//! its entries one level up, so that they do not nest under the chapter before. An entry that
//! points at no chapter is a note.

use std::collections::HashMap;

use super::files::{Kind, Written, kind_of};
use super::metadata::Metadata;
use crate::diagnostic::{Code, Diagnostic};
use crate::inspect::{Epub, TocEntry};

/// One chapter of the unpacked project.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnpackedChapter {
    /// Its file, relative to the project folder, with `/`.
    pub file: String,
    /// The TOC's title for it; None when no entry points to it.
    pub title: Option<String>,
    /// Its level in the table of contents, 1 at the top.
    pub level: usize,
    /// In the reading order (false: `linear="no"`).
    pub linear: bool,
    /// The contents entries that point inside it, in order: (level, fragment id, title), level
    /// 2 right under the chapter; the id is empty for a heading without a link (a nav's
    /// `<span>` entry) over the entries after it.
    pub sections: Vec<(usize, String, String)>,
}

/// The chapters and the layout keys that follow from the TOC.
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub chapters: Vec<UnpackedChapter>,
    /// `[layout] toc-depth`: 1 when no TOC entry points inside a chapter.
    pub toc_depth: usize,
    /// The spine read the navigation document as a page.
    pub toc_page: bool,
    /// The number of the chapter that page came before (past the last: it came last).
    pub toc_page_before: usize,
    /// The title the contents gave that page, when they listed it.
    pub toc_page_title: Option<String>,
    /// The text alternative of the cover page's picture, when the spine had a cover page.
    pub cover_alt: Option<String>,
    /// The largest chapter document, in bytes.
    pub largest: u64,
}

/// A TOC entry with its depth (1 at the top), flattened in order.
struct Flat<'a> {
    depth: usize,
    entry: &'a TocEntry,
}

fn flatten<'a>(toc: &'a [TocEntry], depth: usize, out: &mut Vec<Flat<'a>>) {
    for entry in toc {
        out.push(Flat { depth, entry });
        flatten(&entry.children, depth + 1, out);
    }
}

/// How many entries the table of contents has, at every level.
pub(super) fn count_entries(toc: &[TocEntry]) -> usize {
    toc.iter().map(|e| 1 + count_entries(&e.children)).sum()
}

fn path_of(href: &str) -> &str {
    href.split('#').next().unwrap_or(href)
}

/// Lays out the chapters of `book` (whose files are `written`).
pub(super) fn plan(
    book: &Epub,
    written: &Written,
    meta: &Metadata,
    dir: &std::path::Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Plan {
    let mut flat = Vec::new();
    flatten(&book.toc, 1, &mut flat);
    let items: HashMap<&str, &crate::inspect::ManifestItem> =
        book.manifest.iter().map(|i| (i.href.as_str(), i)).collect();
    let mut plan = Plan {
        toc_depth: 1,
        ..Plan::default()
    };
    let mut docs: Vec<&str> = Vec::new();
    // The documents listed so far, looked up rather than searched in `docs` (quadratic: 4.5
    // million comparisons for a spine of 3000).
    let mut listed: std::collections::HashSet<&str> =
        std::collections::HashSet::with_capacity(book.spine.len());
    let mut nav: Option<&str> = None;
    // A cover page the contents name stays a page, so that its entry stays too.
    let named: std::collections::HashSet<&str> =
        flat.iter().map(|f| path_of(&f.entry.href)).collect();
    for s in &book.spine {
        let Some((href, item)) = spine_document(s, &items, written, diagnostics) else {
            continue;
        };
        if item.properties.iter().any(|p| p == "nav") {
            if s.linear && !plan.toc_page {
                plan.toc_page = true;
                plan.toc_page_before = plan.chapters.len() + 1;
                nav = Some(href);
            }
            continue;
        }
        let Some(local) = (written.pages.get(href)).or_else(|| written.local.get(href)) else {
            continue;
        };
        let cover_alt = match named.contains(href) {
            true => None,
            false => cover_page_alt(written, dir, meta.cover.as_deref(), local),
        };
        if let Some(alt) = cover_alt {
            diagnostics.push(note(format!(
                "{href} shows only the cover; the build makes the cover page from `cover` (and `cover-alt`)"
            )));
            plan.cover_alt = plan
                .cover_alt
                .take()
                .or(Some(alt).filter(|a| !a.is_empty()));
            continue;
        }
        let size = written.size(dir, local);
        plan.largest = plan.largest.max(size);
        if !listed.insert(href) {
            diagnostics.push(note(format!("{href} is in the spine twice; listed once")));
            continue;
        }
        docs.push(href);
        plan.chapters.push(UnpackedChapter {
            file: local.clone(),
            title: None,
            level: 1,
            linear: s.linear,
            sections: Vec::new(),
        });
    }
    fallbacks(book, &items, written, &mut docs, &mut plan, diagnostics);
    title_and_nest(&flat, &docs, nav, &mut plan, diagnostics);
    untitled_entries(&mut plan, written, dir, diagnostics);
    plan
}

/// The XHTML `fallback` of the spine's pictures (haruko-jpeg's one document that transcribes
/// the words of all 13 pages): a chapter after the last picture page that falls back to it,
/// unless the spine holds it already or it is the navigation document (page-blanche's).
///
/// The pictures are the book as its author made it (pages laid out, spread by spread); the
/// fallback stands in for them in a reader that cannot show a picture as a page, which the
/// build's pages, XHTML that show the picture, no longer need. But its words are the author's
/// too (a transcription, a colophon): they stay, as a page after the pictures, with a note.
fn fallbacks<'a>(
    book: &'a Epub,
    items: &HashMap<&str, &'a crate::inspect::ManifestItem>,
    written: &Written,
    docs: &mut Vec<&'a str>,
    plan: &mut Plan,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if written.pages.is_empty() {
        return;
    }
    let by_id: HashMap<&str, &crate::inspect::ManifestItem> =
        book.manifest.iter().map(|i| (i.id.as_str(), i)).collect();
    let in_spine: std::collections::HashSet<&str> = book
        .spine
        .iter()
        .filter_map(|s| s.href.as_deref())
        .collect();
    // Each fallback document, with the last chapter (index) that falls back to it.
    let mut after: Vec<(usize, &str)> = Vec::new();
    for (i, href) in docs.iter().enumerate() {
        let Some(item) = items
            .get(href)
            .filter(|_| written.pages.contains_key(*href))
        else {
            continue;
        };
        let Some(fallback) = (item.fallback.as_deref()).and_then(|id| by_id.get(id)) else {
            continue;
        };
        let usable = kind_of(fallback) == Kind::Document
            && !fallback.properties.iter().any(|p| p == "nav")
            && !in_spine.contains(fallback.href.as_str())
            && written.local.contains_key(&fallback.href);
        if !usable {
            continue;
        }
        match after.iter_mut().find(|(_, f)| *f == fallback.href) {
            Some(last) => last.0 = i,
            None => after.push((i, fallback.href.as_str())),
        }
    }
    after.sort_by_key(|&(i, _)| std::cmp::Reverse(i));
    for (i, href) in after {
        let before = plan.chapters[i].clone();
        let file = written.local[href].clone();
        diagnostics.push(note(format!(
            "{href} is the fallback of the spine's pictures (the last: {}); the pictures are the pages, and its words follow them as a page of their own",
            docs[i]
        )));
        docs.insert(i + 1, href);
        plan.chapters.insert(
            i + 1,
            UnpackedChapter {
                file,
                title: None,
                level: 1,
                linear: before.linear,
                sections: Vec::new(),
            },
        );
    }
}

/// A contents entry without words (pandoc's EPUB 2 of a page with an empty `<h1>`: `<navLabel>
/// <text></text>`) names its page by the page's own words: its first heading with text, else
/// its `<title>`; a note says so. A page with neither stays out of the contents, as one no
/// entry points to. `fix` and `init` both go through here, so they agree.
fn untitled_entries(
    plan: &mut Plan,
    written: &Written,
    dir: &std::path::Path,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for chapter in &mut plan.chapters {
        if !chapter
            .title
            .as_deref()
            .is_some_and(|t| t.trim().is_empty())
        {
            continue;
        }
        let own = written
            .text(dir, &chapter.file, 16 << 20)
            .and_then(|text| own_title(&text));
        match &own {
            Some(title) => diagnostics.push(note(format!(
                "the contents entry for {} has no words; it is named by the page's own \"{title}\"",
                chapter.file
            ))),
            None => diagnostics.push(note(format!(
                "the contents entry for {} has no words, nor has the page a heading or title; it stays out of the contents (`toc = false`)",
                chapter.file
            ))),
        }
        chapter.title = own;
    }
}

/// A page's first heading with words, else its `<title>` (spaces run together).
fn own_title(text: &str) -> Option<String> {
    let html = scraper::Html::parse_document(text);
    let words = |e: scraper::ElementRef| {
        let t = e.text().collect::<String>();
        Some(t.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|t| !t.is_empty())
    };
    let headings =
        scraper::Selector::parse("body h1, body h2, body h3, body h4, body h5, body h6").ok()?;
    let title = scraper::Selector::parse("head title").ok()?;
    (html.select(&headings).find_map(words)).or_else(|| html.select(&title).find_map(words))
}

/// Titles and levels from the TOC entries, sections as `toc_depth`.
fn title_and_nest(
    flat: &[Flat<'_>],
    docs: &[&str],
    nav: Option<&str>,
    plan: &mut Plan,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let index: HashMap<&str, usize> = docs.iter().enumerate().map(|(i, d)| (*d, i)).collect();
    let mut depth_of: Vec<Option<usize>> = vec![None; docs.len()];
    // The chapter the last entry pointed into, and its depth.
    let mut current: Option<(usize, usize)> = None;
    // The depths (as written) of the headings without a link left out, whose entries move
    // up a level each.
    let mut lifted: Vec<usize> = Vec::new();
    for f in flat {
        let path = path_of(&f.entry.href);
        while lifted.last().is_some_and(|&d| d >= f.depth) {
            lifted.pop();
        }
        let depth = f.depth - lifted.len();
        if let Some((i, d)) = current.filter(|&(_, d)| path.is_empty() && depth + 1 >= d) {
            // A heading without a link among, beside or one above a chapter's entries
            // (EbookLib's `Section`, a volume after the last chapter of the one before): a
            // heading-only section, over the entries nested after it.
            let level = (depth + 1 - d).min(6);
            plan.toc_depth = plan.toc_depth.max(level);
            let title = f.entry.title.clone();
            plan.chapters[i]
                .sections
                .push((level, String::new(), title));
            continue;
        }
        if path.is_empty() {
            diagnostics.push(note(format!(
                "the contents entry \"{}\" links nowhere and has no chapter before it at its level; left out, its entries move up a level",
                f.entry.title
            )));
            lifted.push(f.depth);
            continue;
        }
        if nav == Some(path) && plan.toc_page_title.is_none() {
            // The contents list their own page: it is listed again, under this title.
            plan.toc_page_title = Some(f.entry.title.clone());
            continue;
        }
        let Some(&i) = index.get(path) else {
            diagnostics.push(note(format!(
                "the contents entry \"{}\" points at {path}, which is not a chapter; left out",
                f.entry.title
            )));
            continue;
        };
        match depth_of[i] {
            None => {
                depth_of[i] = Some(depth);
                current = Some((i, depth));
                plan.chapters[i].title = Some(f.entry.title.clone());
            }
            Some(d) => another_entry(plan, i, depth + 1, d, f),
        }
    }
    set_levels(&depth_of, plan, diagnostics);
}

/// A further contents entry `f` into chapter `i` (whose own entry sits at depth `d`), at
/// `below` = its depth + 1: a section of the chapter.
fn another_entry(plan: &mut Plan, i: usize, below: usize, d: usize, f: &Flat<'_>) {
    // An entry beside the chapter's own (the same depth) is listed beside it.
    let level = below.saturating_sub(d).clamp(1, 6);
    plan.toc_depth = plan.toc_depth.max(level);
    // One without a fragment (a second entry into the page's top: EbookLib's `Section`
    // listing its first chapter again) is an entry without an id, which the build links to
    // the chapter when nothing nests under it.
    let id = (f.entry.href.split_once('#'))
        .map(|(_, id)| crate::inspect::href::percent_decode(id))
        .unwrap_or_default();
    if !id.is_empty() {
        plan.chapters[i]
            .sections
            .push((level, id, f.entry.title.clone()));
    } else if !f.entry.title.trim().is_empty() {
        // Without an id it may sit a level above the chapter (level 0).
        let level = below.saturating_sub(d).min(6);
        plan.chapters[i]
            .sections
            .push((level, id, f.entry.title.clone()));
    }
}

/// Each chapter's level from its entry's depth (one below the chapter before at most); a
/// chapter without an entry keeps the level of the one before and stays out of the contents.
fn set_levels(depth_of: &[Option<usize>], plan: &mut Plan, diagnostics: &mut Vec<Diagnostic>) {
    let mut prev = 0;
    for (i, chapter) in plan.chapters.iter_mut().enumerate() {
        let wanted = match depth_of[i] {
            Some(d) => d,
            None => {
                diagnostics.push(note(format!(
                    "{} has no entry in the contents; it stays out of them (`toc = false`)",
                    chapter.file
                )));
                prev.max(1)
            }
        };
        chapter.level = wanted.clamp(1, prev + 1).min(6);
        prev = chapter.level;
    }
}

/// The spine item's document and its manifest entry; None (said why) when the manifest does
/// not list it or it is neither XHTML nor an SVG drawing given a page ([`Written::pages`]).
fn spine_document<'a>(
    s: &'a crate::inspect::SpineItem,
    items: &HashMap<&str, &'a crate::inspect::ManifestItem>,
    written: &Written,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(&'a str, &'a crate::inspect::ManifestItem)> {
    let Some(href) = s.href.as_deref() else {
        diagnostics.push(Diagnostic::warning(
            Code::EpubInChapter,
            format!(
                "the spine names \"{}\", which the manifest does not list; left out",
                s.idref
            ),
        ));
        return None;
    };
    let item = *items.get(href)?;
    if kind_of(item) != Kind::Document && !written.pages.contains_key(href) {
        diagnostics.push(note(format!(
            "{href} ({}) is in the spine but is neither XHTML nor a picture: it is no chapter, and comes into the book only if a chapter uses it",
            item.media_type
        )));
        return None;
    }
    Some((href, item))
}

fn note(message: String) -> Diagnostic {
    Diagnostic::note(Code::EpubInChapter, message)
}

/// When the document `local` (held or written in `dir`) shows nothing but the cover picture
/// (`cover`, relative to the project folder): its picture's text alternative (its `alt` or
/// `aria-label`), empty when it has none. None for any other document.
fn cover_page_alt(
    written: &Written,
    dir: &std::path::Path,
    cover: Option<&str>,
    local: &str,
) -> Option<String> {
    let cover = cover?;
    let text = written.text(dir, local, 64 << 10)?;
    if !may_name(&text, cover) {
        return None;
    }
    let html = scraper::Html::parse_document(&text);
    let body = scraper::Selector::parse("body").ok()?;
    let body = html.select(&body).next()?;
    // A drawn cover's SVG names itself in its `<title>`: a label, not words on the page.
    let words = (body.descendants())
        .filter(|n| {
            !n.ancestors()
                .any(|a| a.value().as_element().is_some_and(|e| e.name() == "svg"))
        })
        .filter_map(|n| n.value().as_text().map(|t| t.to_string()))
        .any(|t| !t.trim().is_empty());
    if words {
        return None;
    }
    let pictures: Vec<String> = body
        .descendants()
        .filter_map(|n| n.value().as_element())
        // By local name: an SVG `<image>`'s `xlink:href` is `href` in the XLink namespace.
        .filter_map(|e| {
            e.attr("src")
                .or_else(|| e.attrs().find(|(k, _)| *k == "href").map(|(_, v)| v))
        })
        .filter_map(|src| crate::inspect::href::resolve(local, src).map(|r| r.path))
        .collect();
    if pictures.is_empty() || pictures.iter().any(|p| p != cover) {
        return None;
    }
    let alt = (body.descendants())
        .filter_map(|n| n.value().as_element())
        .find_map(|e| e.attr("alt").or_else(|| e.attr("aria-label")))
        .unwrap_or_default();
    Some(alt.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The cheap test before parsing: a document that shows the cover names its file, as written
/// or escaped (`%` or `&` somewhere); one that does not cannot be the cover page.
fn may_name(text: &str, cover: &str) -> bool {
    let name = cover.rsplit('/').next().unwrap_or(cover);
    text.contains(name) || text.contains(['%', '&'])
}
