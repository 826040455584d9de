//! One chapter file converted: read, decoded, dispatched on its kind (plain text, Markdown,
//! HTML), split at its headings when asked, titled, and its images resolved.
//!
//! The one conversion of a chapter source: the build uses it for every chapter it does not take
//! from the cache.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::SourceKind;
use super::includes::Budget;
use super::markup::LeftOut;
use super::notes::ShortCandidates;
use super::split::SplitMode;
use crate::book::{self, Chapter, Image, Node};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::project::{ChapterSource, Project};
use crate::source::{Decoded, Detection};
use crate::text_fix::{FileRef, Tally};

mod boilerplate;
mod entries;
mod files;
mod page;
mod pieces;
mod probe;
mod read;

pub(crate) use probe::{Headings, headings, split_level, title_in, volumes_in};
pub(crate) use read::{decode_file, read_chapter};

/// How one chapter file was read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SourceReport {
    /// The chapter file.
    pub path: PathBuf,
    /// The encoding used (WHATWG name).
    pub encoding: &'static str,
    /// How it was chosen.
    pub detection: Detection,
}

/// One chapter source converted: one chapter, or the volumes and chapters of a split file.
pub(crate) struct ConvertedChapter {
    pub nodes: Vec<Node>,
    pub images: Vec<Image>,
    pub links: Vec<String>,
    /// The ids of a markup chapter as written -> as its body has them.
    pub ids: HashMap<String, String>,
    /// A markup file cut at its headings: which of its chapters (0-based) holds each id as
    /// written. Empty for any other.
    pub homes: HashMap<String, usize>,
    pub warnings: Vec<Diagnostic>,
    /// Its notes that may be too short for Kobo's pop-ups, warned about once the book's notes
    /// are numbered ([`super::notes::finish`]).
    pub short_notes: ShortCandidates,
    pub report: SourceReport,
    /// Converting it read files besides the chapter (images, included files), which the build
    /// cache does not track.
    pub reads_other_files: bool,
    /// The 1-based source line where each of its nodes starts, in reading order (a part
    /// before its chapters; None where unknown); empty when it was not converted but taken
    /// from the build cache. For the outline ([`super::outline`]).
    pub lines: Vec<Option<usize>>,
    /// The letters and digits of its text that the book does not hold, by cause (the text
    /// ledger).
    pub removed: crate::ledger::Removed,
    /// A split text file's heading-like lines left out and headings read through a typo,
    /// as the split found them, for `check`'s warnings; empty for any other.
    pub headings: super::HeadingNotes,
    /// Its first node is the text before the first heading of a split text file: front
    /// matter, which the outline does not count as a chapter.
    pub front: bool,
}

/// Reads, decodes and converts chapter source `src`, the `n`th (1-based) of the book, its
/// inclusions paid for from the book's `budget`.
pub(crate) fn convert_chapter(
    project: &Project,
    src: &ChapterSource,
    n: usize,
    budget: &Budget,
) -> Result<ConvertedChapter> {
    let decoded = read_chapter(&project.boundary, src)?;
    convert_decoded(project, src, n, &decoded, (budget, None))
}

/// Converts a decoded chapter file: the text-fix stage first (recording what its cleanup
/// rules did in `tally`, for `check`), then a Markdown file's inclusions (paid for from the
/// book's `budget`), then the converter of its kind; last, the text ledger of what it holds.
pub(crate) fn convert_decoded(
    project: &Project,
    src: &ChapterSource,
    n: usize,
    decoded: &Decoded,
    (budget, mut tally): (&Budget, Option<&mut Tally>),
) -> Result<ConvertedChapter> {
    let kind = SourceKind::of_chapter(src);
    let mut warnings = read::decode_warnings(&src.path, decoded, kind);
    let report = SourceReport {
        path: src.path.clone(),
        encoding: decoded.encoding.name(),
        detection: decoded.detection,
    };
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    split_fits_kind(src, kind)?;
    let prepared = prepare(project, src, kind, &decoded.text, &mut warnings);
    let (kind, text) = (prepared.kind, &*prepared.text);
    let mut after_rules = crate::text_fix::AfterRules::default();
    let fixed = match kind {
        SourceKind::Text => {
            let fixing = (tally.as_deref_mut(), &mut after_rules);
            fix_text_file(project, src, file, text, fixing)?
        }
        _ => Cow::Borrowed(text),
    };
    let resolved = match kind {
        SourceKind::Markdown => Cow::Owned(files::resolve_includes(
            project,
            &src.path,
            &fixed,
            budget,
            &mut warnings,
        )?),
        _ => Cow::Borrowed(&*fixed),
    };
    let mut images = Vec::new();
    let mut text_nodes = text_nodes_for(kind, resolved.len());
    let body = convert_body(
        project,
        (src, n),
        (kind, prepared.split.as_ref(), prepared.back_matter),
        (&resolved, &fixed, &after_rules),
        (&mut images, &mut warnings),
        (tally, &mut text_nodes),
    )?;
    let texts = (text, &*fixed, &after_rules, &text_nodes);
    let (removed, lost) = ledger(project, src, kind, texts, &body, prepared.notation);
    warnings.extend(lost);
    let includes = kind == SourceKind::Markdown && super::includes::reads_files(&fixed);
    let short_notes = match kind {
        SourceKind::Text => Vec::new(),
        _ => short_note_sites(
            &body.nodes,
            &fixed,
            kind == SourceKind::Html,
            &body.markup.ids,
        ),
    };
    Ok(ConvertedChapter {
        short_notes,
        nodes: body.nodes,
        reads_other_files: includes || !images.is_empty(),
        images,
        links: body.markup.links,
        ids: body.markup.ids,
        homes: body.markup.homes,
        warnings,
        report,
        lines: body.lines,
        removed,
        headings: body.headings,
        front: body.front,
    })
}

/// A chapter file as its converter reads it: Aozora Bunko's notation translated into HTML
/// (cut at its 見出し when the file is split), a Project Gutenberg text without its header
/// and licence.
struct Prepared<'t> {
    /// The kind its converter reads it as (an Aozora Bunko text is HTML).
    kind: SourceKind,
    split: Option<SplitMode>,
    text: Cow<'t, str>,
    /// The page after its chapters: Gutenberg's header and licence, or an Aozora colophon.
    back_matter: Option<Node>,
    /// The letters of Aozora Bunko's legend and annotations, which the ledger counts as
    /// notation.
    notation: usize,
}

/// Reads Aozora Bunko's notation (warning about what it cannot show) and Project Gutenberg's
/// conventions in a chapter file's `text`, for its converter.
fn prepare<'t>(
    project: &Project,
    src: &ChapterSource,
    kind: SourceKind,
    text: &'t str,
    warnings: &mut Vec<Diagnostic>,
) -> Prepared<'t> {
    if kind == SourceKind::Text && super::aozora::is_aozora(text) {
        let a = super::aozora::translate(text);
        warnings.extend(super::aozora::diagnostics(&src.path, &a));
        let split =
            (a.deepest > 0 && src.split.is_some()).then_some(SplitMode::Headings(a.deepest));
        let notation = a.legend + a.report.letters;
        let colophon = a
            .colophon
            .map(|body| Node::Chapter(Chapter::new("奥付".to_string(), body, &project.layout)));
        return Prepared {
            kind: SourceKind::Html,
            split,
            text: Cow::Owned(a.html),
            back_matter: colophon,
            notation,
        };
    }
    let (text, back_matter) = boilerplate::text(text, kind, &project.layout);
    Prepared {
        kind,
        split: src.split.clone(),
        text,
        back_matter,
        notation: 0,
    }
}

/// What a chapter file's converter made of it.
struct Body {
    /// Its chapters (and parts), and the pages after them.
    nodes: Vec<Node>,
    /// A Markdown or HTML file's conversion: its links, ids and hidden code.
    markup: super::Converted,
    /// The source line where each node starts ([`ConvertedChapter::lines`]).
    lines: Vec<Option<usize>>,
    /// A split text file's heading notes.
    headings: super::HeadingNotes,
    /// Its first node is front matter.
    front: bool,
}

/// Dispatches a prepared chapter file (`kind`, `split`) to its converter: one chapter, or a
/// file split at its headings (`resolved`: with its inclusions; `fixed` and `after_rules`: a
/// text file through its cleanup rules), followed by its `back_matter`.
fn convert_body(
    project: &Project,
    (src, n): (&ChapterSource, usize),
    (kind, split, back_matter): (SourceKind, Option<&SplitMode>, Option<Node>),
    (resolved, fixed, after_rules): (&str, &str, &crate::text_fix::AfterRules),
    sinks: (&mut Vec<Image>, &mut Vec<Diagnostic>),
    fixing: Fixing<'_, '_>,
) -> Result<Body> {
    let mut body = match split {
        Some(SplitMode::Headings(level)) => {
            let (mut nodes, markup, more) =
                pieces::split_markup(project, src, (kind, *level), resolved, sinks, fixing)?;
            nodes.extend(back_matter.or(more));
            Body::new(nodes, markup, Vec::new())
        }
        Some(mode) => {
            let traced = (fixed, after_rules);
            let (mut nodes, lines, headings) =
                pieces::split_file(project, src, traced, mode, sinks)?;
            nodes.extend(back_matter);
            Body {
                front: headings.front,
                headings,
                ..Body::new(nodes, super::Converted::default(), lines)
            }
        }
        None => {
            let at = (kind, n);
            let (nodes, markup) =
                one_chapter(project, src, at, resolved, back_matter, sinks, fixing)?;
            Body::new(nodes, markup, vec![Some(1)])
        }
    };
    body.lines
        .resize(super::outline::node_count(&body.nodes), None);
    Ok(body)
}

impl Body {
    fn new(nodes: Vec<Node>, markup: super::Converted, lines: Vec<Option<usize>>) -> Body {
        Body {
            nodes,
            markup,
            lines,
            headings: super::HeadingNotes::default(),
            front: false,
        }
    }
}

/// What a chapter file's converter was given: its text as read and as fixed, what its cleanup
/// rules left, and a Markdown or HTML file's text nodes as written and fixed.
type Given<'a> = (
    &'a str,
    &'a str,
    &'a crate::text_fix::AfterRules,
    &'a crate::ledger::Nodes,
);

/// The text ledger of a converted chapter file: what its `body` holds against what its
/// converter was given (`text` as read, `fixed` by the text-fix stage, a markup file's
/// `text_nodes`), and the `lost-text` warnings.
fn ledger(
    project: &Project,
    src: &ChapterSource,
    kind: SourceKind,
    (text, fixed, after_rules, text_nodes): Given<'_>,
    body: &Body,
    notation: usize,
) -> (crate::ledger::Removed, Vec<Diagnostic>) {
    let given = match kind {
        // When no cleanup rule changed the text and nothing converts it, the text-fix stage
        // changed punctuation only (typography, quotation marks), which the ledger does not
        // count: the source itself is what the book must hold, read once, not twice.
        SourceKind::Text if after_rules.count.is_none() && project.text.conversion().is_none() => {
            crate::ledger::Given::Text(text)
        }
        SourceKind::Text => crate::ledger::Given::Text(fixed),
        _ => crate::ledger::Given::Nodes(text_nodes),
    };
    let sheet = crate::ledger::Sheet {
        path: &src.path,
        source: text,
        after_rules: after_rules.count,
        given,
    };
    let (mut removed, lost) = account(&sheet, &body.nodes);
    removed.hidden_code = body.markup.hidden_letters;
    removed.site_navigation = (body.markup.site_navigation.iter())
        .map(|nav| nav.letters)
        .sum();
    removed.notation += notation;
    (removed, lost)
}

/// The text ledger of one chapter source: what the book holds of it (`nodes`: titles and
/// bodies in reading order) against what its converter was given.
fn account(
    sheet: &crate::ledger::Sheet<'_>,
    nodes: &[Node],
) -> (crate::ledger::Removed, Vec<Diagnostic>) {
    fn walk<'a>(nodes: &'a [Node], out: &mut Vec<crate::ledger::Out<'a>>) {
        use crate::ledger::Out;
        for node in nodes {
            match node {
                Node::Chapter(c) => out.extend([Out::Plain(&c.title), Out::Xhtml(&c.body)]),
                Node::Part(p) => {
                    out.extend([Out::Plain(&p.title), Out::Xhtml(&p.intro)]);
                    walk(&p.children, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(nodes, &mut out);
    let picture =
        |line: &str| crate::lines::picture(line).is_some() || super::aozora::is_page_break(line);
    let (mut removed, lost) = crate::ledger::account(sheet, &out, &picture);
    // A web novel's page-break lines are notation, not picture paths.
    if let crate::ledger::Given::Text(text) = sheet.given
        && removed.pictures > 0
    {
        let breaks = super::aozora::page_break_letters(text).min(removed.pictures);
        removed.pictures -= breaks;
        removed.notation += breaks;
    }
    (removed, lost)
}

/// A chapter file that is not split, the `n`th of the book: its chapter (titled by the entry,
/// else its text, else its file name) and the page of its Project Gutenberg header and
/// licence; the conversion, for its links and ids.
fn one_chapter(
    project: &Project,
    src: &ChapterSource,
    (kind, n): (SourceKind, usize),
    fixed: &str,
    mut back_matter: Option<Node>,
    (images, warnings): (&mut Vec<Image>, &mut Vec<Diagnostic>),
    (mut tally, text_nodes): Fixing<'_, '_>,
) -> Result<(Vec<Node>, super::Converted)> {
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    let given = src
        .title
        .as_deref()
        .map(|t| project.text.title(t, Some(file), tally.as_deref_mut()))
        .transpose()?;
    let sinks = (&mut *images, &mut *warnings);
    let mut converted = if kind == SourceKind::Text {
        let (images, warnings) = sinks;
        files::with_pictures(project, src, (fixed, images, warnings), |p| {
            convert_plain(fixed, given.as_deref(), p)
        })?
    } else {
        let fixing = (tally.as_deref_mut(), text_nodes);
        convert_markup(project, src, kind, fixed, sinks, fixing, None)?
    };
    // A page of an EPUB (it has `sections`) keeps its Gutenberg header, licence and heading.
    if kind == SourceKind::Html && src.sections.is_none() {
        back_matter = back_matter.or_else(|| boilerplate::html(&mut converted, &project.layout));
    }
    warnings.extend(conversion_warnings(project, (&src.path, fixed), &converted));
    let fixed = page::fix_opening_heading(
        project,
        given.as_deref(),
        &mut converted,
        file,
        tally.as_deref_mut(),
    )?;
    let own = match src.heading {
        true => {
            keep_replaced_heading(given.as_deref(), &mut converted);
            None
        }
        false => {
            let how = (kind, fixed);
            page::own_heading(project, how, &mut converted, file, tally.as_deref_mut())?
        }
    };
    let sections = page::given_sections(project, src, &converted.ids, file, tally.as_deref_mut())?;
    // The `h1` carries the source heading's types only when it shows that heading's text.
    let same = |g: &str, t: &str| g.split_whitespace().eq(t.split_whitespace());
    let title_kept = converted.title_is_heading
        && match (given.as_deref(), converted.title.as_deref()) {
            (Some(g), Some(t)) => same(g, t),
            (None, found) => found.is_some(),
            _ => false,
        };
    let title = match (given, converted.title.take()) {
        (Some(t), _) => t,
        // Fixed with the text of its file.
        (None, Some(t)) if kind == SourceKind::Text => t,
        (None, found) => fallback_title(project, src, n, found, file, tally)?,
    };
    let body = own.unwrap_or_default() + &std::mem::take(&mut converted.body);
    let sections = entries::resolve(sections, &body, &src.path, warnings);
    let chapter = Chapter::new(title, body, &project.layout)
        .at_level(src.level)
        .with_types(std::mem::take(&mut converted.body_types))
        .with_linear(src.linear)
        .with_page(src.toc, src.heading)
        .with_sections(sections)
        .with_title_types(converted.title_types.take().filter(|_| title_kept));
    let nodes = std::iter::once(Node::Chapter(chapter))
        .chain(back_matter)
        .collect();
    Ok((nodes, converted))
}

/// `split` at a heading level is for Markdown and HTML files, and only that: headings of
/// plain text are found by their words.
fn split_fits_kind(src: &ChapterSource, kind: SourceKind) -> Result<()> {
    let refuse = |message: &str, hint: &str| {
        Err(Error::Convert {
            path: src.path.clone(),
            message: message.into(),
            hint: Some(hint.into()),
        })
    };
    match (&src.split, kind) {
        (None, _) => Ok(()),
        (Some(SplitMode::Headings(_)), SourceKind::Text) => refuse(
            "`split = \"h1\"`…`\"h6\"` cuts Markdown and HTML files at their headings",
            "split a text file with split = \"auto\" or a regex matching its heading lines",
        ),
        (Some(SplitMode::Headings(_)), _) | (Some(_), SourceKind::Text) => Ok(()),
        (Some(_), _) => refuse(
            "a Markdown or HTML file is split at a heading level, not by \"auto\" or a regex",
            "write split = \"h1\" or \"h2\": the level of the headings that start chapters",
        ),
    }
}

/// The notes of a Markdown or HTML source's chapters (`nodes`) too short for Kobo's pop-ups
/// before the book's notes are numbered, each with the line of `source` where it was written:
/// an HTML note by its id as written there (`ids`: as written -> as the body has it), a
/// Markdown footnote by its definition.
fn short_note_sites(
    nodes: &[Node],
    source: &str,
    html: bool,
    ids: &HashMap<String, String>,
) -> ShortCandidates {
    let short: Vec<super::notes::ShortNote> = nodes
        .iter()
        .filter_map(|n| match n {
            Node::Chapter(c) => Some(super::notes::short_notes(&c.body)),
            Node::Part(_) => None,
        })
        .flatten()
        .collect();
    if short.is_empty() {
        return Vec::new();
    }
    // Markdown's notes get ids the source never wrote.
    let written: HashMap<&str, &str> = match html {
        true => ids
            .iter()
            .map(|(from, to)| (to.as_str(), from.as_str()))
            .collect(),
        false => HashMap::new(),
    };
    short
        .into_iter()
        .map(|note| {
            let source_id = written.get(note.id.as_str()).copied();
            let line = super::notes::line_in(source, &note, source_id);
            (note.id, line)
        })
        .collect()
}

/// The converter's warnings about a chapter, and one when it came out empty.
fn conversion_warnings(
    project: &Project,
    (path, source): (&Path, &str),
    converted: &super::Converted,
) -> Vec<Diagnostic> {
    let warn = |code, message: &str| Diagnostic::warning(code, message).at(path);
    let mut warnings: Vec<Diagnostic> = converted
        .warnings
        .iter()
        .map(|w| warn(Code::Markup, &w.message).line(w.line))
        .collect();
    warnings.extend(converted.unsupported.iter().map(|w| {
        warn(Code::UnsupportedMarkup, &w.message)
            .line(w.line)
            .hint("it is kept as written (or left out where it says so); rewrite it in Markdown the book supports")
    }));
    if let Some(message) = removed_summary(&converted.removed) {
        warnings.push(warn(Code::RemovedContent, &message).hint(
            "a book cannot carry them; replace them with text or images, or build with --strict to refuse the loss",
        ));
    }
    warnings.extend(site_navigation_warnings(
        path,
        source,
        &converted.site_navigation,
    ));
    let lost_css =
        super::markup::stylesheets_not_carried(path, &converted.stylesheets, &project.style.css);
    if !lost_css.is_empty() {
        let message = format!(
            "its stylesheet(s) {} are not the book's: left out",
            lost_css.join(", ")
        );
        warnings.push(warn(Code::Css, &message).hint(
            "add them to `[style] css` in metadata.toml to style the book with them (`init` does so for an EPUB source tree's own)",
        ));
    }
    if converted.paragraphs == 0 {
        warnings.push(
            warn(Code::EmptyChapter, "the chapter is empty")
                .hint("it builds as an empty page; add its text or remove the entry"),
        );
    }
    warnings
}

/// A Markdown or HTML chapter's opening heading, when the entry's `title` says something
/// else: put back at the top of the body (as the `h2` under the chapter's title), never lost.
/// One that says the same (as `init` writes titles) is the title; an HTML `<title>` is not
/// text of the page.
fn keep_replaced_heading(given: Option<&str>, converted: &mut super::Converted) {
    let words = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    if let (true, Some(given), Some(found)) = (
        converted.title_is_heading,
        given,
        converted.title.as_deref(),
    ) && words(given) != words(found)
    {
        let heading = format!("<h2>{}</h2>\n", crate::xml::escape_text(found));
        converted.body.insert_str(0, &heading);
    }
}

/// The title of a chapter without one in the metadata or its text: a Markdown or HTML
/// chapter's heading, else one from the file name, else `第N章` or the like; through the
/// text-fix stage.
fn fallback_title(
    project: &Project,
    src: &ChapterSource,
    n: usize,
    found: Option<String>,
    file: FileRef<'_>,
    tally: Option<&mut Tally>,
) -> Result<String> {
    let t = found
        .or_else(|| title_from_file_name(&src.path))
        .unwrap_or_else(|| book::chapter_title(&project.book.language, n));
    project.text.title(&t, Some(file), tally)
}

/// A plain-text file through the text-fix stage: its title lines are its headings (by its
/// `split` rules, or the built-in ones for the first line of a file that is not split).
fn fix_text_file<'a>(
    project: &Project,
    src: &ChapterSource,
    file: FileRef<'_>,
    text: &'a str,
    (tally, after_rules): (Option<&mut Tally>, &mut crate::text_fix::AfterRules),
) -> Result<std::borrow::Cow<'a, str>> {
    let mode = src.split.as_ref().unwrap_or(&SplitMode::Auto);
    let heading = |line: &str| super::split::is_heading(line, mode);
    let lines = crate::text_fix::LineReading {
        heading: &heading,
        joined: super::text::joined_lines,
    };
    let split = src.split.is_some();
    project
        .text
        .text_file_counted(text, file, (&lines, split), tally, after_rules)
}

/// Room for the text nodes of a Markdown or HTML file of `len` bytes: the ledger's input.
fn text_nodes_for(kind: SourceKind, len: usize) -> crate::ledger::Nodes {
    match kind {
        SourceKind::Text => crate::ledger::Nodes::default(),
        _ => crate::ledger::Nodes::for_file(len),
    }
}

/// What the text-fix stage of a Markdown or HTML file records: the cleanup rules' changes
/// (for `check`) and its text nodes as written and fixed (for the text ledger).
type Fixing<'t, 'n> = (Option<&'t mut Tally>, &'n mut crate::ledger::Nodes);

/// A `site-navigation` warning for each block left out of chapter file `path` (whose text is
/// `source`): where it stood (the parser's line, else where its first text is found, in order)
/// and what it said.
fn site_navigation_warnings(path: &Path, source: &str, navs: &[LeftOut]) -> Vec<Diagnostic> {
    let (mut from, mut line) = (0, 1);
    navs.iter()
        .map(|nav| {
            let found = (!nav.first.is_empty())
                .then(|| source.get(from..)?.find(&nav.first))
                .flatten();
            let at = found.map(|p| {
                line += source[from..from + p].matches('\n').count();
                from += p + nav.first.len();
                line
            });
            let message = format!(
                "left out site navigation (<nav>, links to the previous and next pages): \"{}\" ({} letters and digits)",
                nav.text, nav.letters
            );
            Diagnostic::warning(Code::SiteNavigation, message)
                .at(path)
                .line(nav.line.or(at))
                .hint("the book's own table of contents and page turns replace it; the text ledger counts its letters as site navigation")
        })
        .collect()
}

/// "removed 3 elements: <video> ×2, <iframe>", or None when nothing was.
fn removed_summary(removed: &[(String, usize)]) -> Option<String> {
    let total: usize = removed.iter().map(|(_, n)| n).sum();
    let items: Vec<String> = removed
        .iter()
        .map(|(what, n)| match n {
            1 => what.clone(),
            n => format!("{what} ×{n}"),
        })
        .collect();
    let noun = if total == 1 { "element" } else { "elements" };
    (total > 0).then(|| format!("removed {total} {noun}: {}", items.join(", ")))
}

/// A plain-text chapter's text (through the text-fix stage) converted; `given` is the
/// entry's title, fixed. A heading line repeating it (as `init` writes it) is the title; a
/// different one is text.
fn convert_plain(
    text: &str,
    given: Option<&str>,
    pictures: super::Pictures<'_>,
) -> super::Converted {
    // The title first, without pictures: a second conversion would carry them twice.
    let title = super::convert_text(
        text.split('\n')
            .find(|l| !l.trim().is_empty())
            .unwrap_or(""),
        true,
    )
    .title;
    let detect = !matches!((given, &title), (Some(given), Some(found)) if given != found);
    super::convert_text_with(text, detect, pictures)
}

/// A Markdown or HTML chapter converted, its text nodes through the text-fix stage; its
/// images and their warnings go to `sinks`.
fn convert_markup(
    project: &Project,
    src: &ChapterSource,
    kind: SourceKind,
    text: &str,
    sinks: (&mut Vec<Image>, &mut Vec<Diagnostic>),
    (mut tally, text_nodes): Fixing<'_, '_>,
    split: Option<super::markup::SplitAt<'_>>,
) -> Result<super::Converted> {
    let (images, warnings) = sinks;
    let mut warned = std::collections::HashSet::new();
    // The markup layer keeps the alt text of a picture refused here and leaves the saying to
    // `readable_image`'s warning.
    let mut resolver = |s: &str| {
        let sinks = (&mut *images, &mut *warnings, &mut warned);
        files::readable_image(project, (&src.path, text), s, sinks)
    };
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    // The converter takes text back or nothing: a rule past its budget is kept here, and
    // no rule runs after it.
    let (mut overrun, mut clock) = (None, crate::text_fix::Clock::default());
    let mut fixer = |t: &str, code: bool| {
        if overrun.is_some() {
            return None;
        }
        // Code: the conversion alone, which changes no letter count (the ledger's nodes are
        // the prose the rules may cut).
        if code {
            return project.text.code_node(t);
        }
        match project
            .text
            .text_node(t, file, tally.as_deref_mut(), &mut clock)
        {
            Ok(fixed) => {
                text_nodes.push(t, fixed.clone());
                fixed
            }
            Err(e) => {
                overrun = Some(e);
                None
            }
        }
    };
    let result = if kind == SourceKind::Markdown {
        let mdbook = project.mdbook.as_ref();
        let opts = super::markup::MarkdownOptions {
            highlight: project.style.highlight,
            hidelines: mdbook.map(|m| m.hidelines.clone()).unwrap_or_default(),
            macros: mdbook.map(|m| m.macros.clone()).unwrap_or_default(),
        };
        super::convert_markdown(text, &mut resolver, opts, Some(&mut fixer), split)
    } else {
        super::convert_html(text, &mut resolver, Some(&mut fixer), split)
    };
    if let Some(e) = overrun {
        return Err(e);
    }
    result.map_err(|e| Error::Convert {
        path: src.path.clone(),
        message: e.to_string(),
        hint: None,
    })
}

/// A chapter file's path relative to the project folder, `/`-separated (what `files` globs
/// of cleanup rules match).
pub(crate) fn relative_path(project: &Project, path: &Path) -> String {
    let rel = path.strip_prefix(&project.root).unwrap_or(path);
    let rel = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        rel.into_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// A title from a file name: the stem without a leading number and separators, `_` and `-`
/// read as spaces. None when nothing meaningful is left (only a number, or a hex hash such
/// as `000_6761ebf9337845da`).
pub fn title_from_file_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let rest = stem
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['_', '-', '.', ' ']);
    let is_hash = rest.len() >= 6 && rest.chars().all(|c| c.is_ascii_hexdigit());
    if rest.is_empty() || is_hash {
        return None;
    }
    let title = rest.replace(['_', '-'], " ");
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_name_titles_skip_numbers_and_hashes() {
        assert_eq!(
            title_from_file_name(Path::new("000_6761ebf9337845da.txt")),
            None
        );
        assert_eq!(title_from_file_name(Path::new("012.txt")), None);
        assert_eq!(
            title_from_file_name(Path::new("003_第三章 风起.txt")).as_deref(),
            Some("第三章 风起")
        );
        assert_eq!(
            title_from_file_name(Path::new("01-the_long_night.md")).as_deref(),
            Some("the long night")
        );
    }
}
