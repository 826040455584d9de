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
use super::notes::ShortCandidates;
use super::split::SplitMode;
use crate::book::{self, Chapter, Image, Node, Part};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::project::{Boundary, ChapterSource, Found, Project};
use crate::source::{self, Decoded, Detection};
use crate::text_fix::{FileRef, Tally};

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

/// Reads and decodes a chapter file, opened through the project folder's `boundary`; a
/// decoding error points at the first bad byte.
pub(crate) fn read_chapter(boundary: &Boundary, src: &ChapterSource) -> Result<Decoded> {
    decode_file(
        boundary,
        &src.path,
        src.encoding.as_deref(),
        src.encoding_errors,
    )
}

/// Reads and decodes the chapter file at `path` (the encoding forced or, when None, detected):
/// the one way chapter text is read, by the build, `check` and `init`, always opened through
/// the project folder's `boundary`.
pub(crate) fn decode_file(
    boundary: &Boundary,
    path: &Path,
    encoding: Option<&str>,
    errors: source::EncodingErrors,
) -> Result<Decoded> {
    let bytes = boundary.read_limited(path, u64::MAX, "file")?;
    source::decode(&bytes, encoding, errors).map_err(|e| decode_error(path, &bytes, &e))
}

/// A decoding error with the line and column (in characters) of the first bad byte.
fn decode_error(path: &Path, bytes: &[u8], e: &source::DecodeError) -> Error {
    let (line, column) = match *e {
        source::DecodeError::Malformed { offset, line, .. } => {
            let before = bytes.get(..offset).unwrap_or(bytes);
            let start = before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
            let prefix = String::from_utf8_lossy(&before[start..]);
            (Some(line), Some(prefix.chars().count() + 1))
        }
        _ => (None, None),
    };
    Error::Decode {
        path: path.to_path_buf(),
        line,
        column,
        message: e.to_string(),
        hint: e.hint(),
    }
}

/// Converts a decoded chapter file: the text-fix stage first (recording what its cleanup
/// rules did in `tally`, for `check`), then a Markdown file's inclusions (paid for from the
/// book's `budget`), then the converter of its kind.
pub(crate) fn convert_decoded(
    project: &Project,
    src: &ChapterSource,
    n: usize,
    decoded: &Decoded,
    (budget, mut tally): (&Budget, Option<&mut Tally>),
) -> Result<ConvertedChapter> {
    let kind = SourceKind::of_chapter(src);
    let mut warnings = decode_warnings(&src.path, decoded, kind);
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
    // Aozora Bunko's notation, translated, is read as HTML cut at its 見出し.
    let aozora = (kind == SourceKind::Text && super::aozora::is_aozora(&decoded.text))
        .then(|| super::aozora::translate(&decoded.text));
    let (kind, split) = match &aozora {
        Some(a) if a.deepest > 0 && src.split.is_some() => {
            (SourceKind::Html, Some(SplitMode::Headings(a.deepest)))
        }
        Some(_) => (SourceKind::Html, None),
        None => (kind, src.split.clone()),
    };
    let (text, back_matter) = match &aozora {
        Some(a) => {
            warnings.extend(super::aozora::diagnostics(&src.path, a));
            let colophon = a
                .colophon
                .clone()
                .map(|body| Node::Chapter(Chapter::new("奥付".to_string(), body, &project.layout)));
            (Cow::Owned(a.html.clone()), colophon)
        }
        None => gutenberg_text(&decoded.text, kind, &project.layout),
    };
    let mut after_rules = crate::text_fix::AfterRules::default();
    let fixed = match kind {
        SourceKind::Text => {
            let fixing = (tally.as_deref_mut(), &mut after_rules);
            fix_text_file(project, src, file, &text, fixing)?
        }
        _ => Cow::Borrowed(&*text),
    };
    let resolved = match kind {
        SourceKind::Markdown => Cow::Owned(resolve_includes(
            project,
            &src.path,
            &fixed,
            budget,
            &mut warnings,
        )?),
        _ => Cow::Borrowed(&*fixed),
    };
    let mut images = Vec::new();
    let sinks = (&mut images, &mut warnings);
    let mut lines = vec![Some(1)];
    // The text nodes of a Markdown or HTML file, as written and fixed: the ledger's input.
    let mut text_nodes = Vec::new();
    let fixing = (tally, &mut text_nodes);
    let mut headings = super::HeadingNotes::default();
    let mut front = false;
    let (nodes, markup) = match &split {
        Some(SplitMode::Headings(level)) => {
            let (mut nodes, markup, more) =
                split_markup(project, src, (kind, *level), &resolved, sinks, fixing)?;
            nodes.extend(back_matter.or(more));
            lines.clear();
            (nodes, markup)
        }
        Some(mode) => {
            let traced = (&*fixed, &after_rules);
            let (mut nodes, found, notes) = split_file(project, src, traced, mode, sinks)?;
            nodes.extend(back_matter);
            front = notes.front;
            (lines, headings) = (found, notes);
            (nodes, super::Converted::default())
        }
        None => one_chapter(
            project,
            src,
            (kind, n),
            &resolved,
            back_matter,
            sinks,
            fixing,
        )?,
    };
    lines.resize(super::outline::node_count(&nodes), None);
    let given = match kind {
        // When no cleanup rule changed the text and nothing converts it, the text-fix stage
        // changed punctuation only (typography, quotation marks), which the ledger does not
        // count: the source itself is what the book must hold, read once, not twice.
        SourceKind::Text if after_rules.count.is_none() && project.text.conversion().is_none() => {
            crate::ledger::Given::Text(&text)
        }
        SourceKind::Text => crate::ledger::Given::Text(&fixed),
        _ => crate::ledger::Given::Nodes(&text_nodes),
    };
    let sheet = crate::ledger::Sheet {
        path: &src.path,
        source: &text,
        after_rules: after_rules.count,
        given,
    };
    let (mut removed, lost) = account(&sheet, &nodes);
    removed.hidden_code = markup.hidden_letters;
    removed.notation += aozora.as_ref().map_or(0, |a| a.legend + a.report.letters);
    warnings.extend(lost);
    let includes = kind == SourceKind::Markdown && super::includes::reads_files(&fixed);
    let short_notes = match kind {
        SourceKind::Text => Vec::new(),
        _ => short_note_sites(&nodes, &fixed, kind == SourceKind::Html, &markup.ids),
    };
    Ok(ConvertedChapter {
        short_notes,
        nodes,
        reads_other_files: includes || !images.is_empty(),
        images,
        links: markup.links,
        ids: markup.ids,
        homes: markup.homes,
        warnings,
        report,
        lines,
        removed,
        headings,
        front,
    })
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
    if let crate::ledger::Given::Text(text) = sheet.given {
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
        with_pictures(project, src, (fixed, images, warnings), |p| {
            convert_plain(fixed, given.as_deref(), p)
        })?
    } else {
        let fixing = (tally.as_deref_mut(), text_nodes);
        convert_markup(project, src, kind, fixed, sinks, fixing, None)?
    };
    if kind == SourceKind::Html {
        back_matter = back_matter.or_else(|| gutenberg_html(&mut converted, &project.layout));
    }
    warnings.extend(conversion_warnings(project, &src.path, &converted));
    let own = match src.heading {
        true => {
            keep_replaced_heading(given.as_deref(), &mut converted);
            None
        }
        false => own_heading(project, kind, &converted, file, tally.as_deref_mut())?,
    };
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
    let chapter = Chapter::new(title, body, &project.layout)
        .at_level(src.level)
        .with_types(std::mem::take(&mut converted.body_types))
        .with_linear(src.linear)
        .with_page(src.toc, src.heading)
        .with_sections(given_sections(src, &converted.ids))
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
    path: &Path,
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
    if converted.site_navigation > 0 {
        let message = format!(
            "left out {} site navigation block(s) (<nav>, links to the previous and next pages)",
            converted.site_navigation
        );
        warnings.push(warn(Code::SiteNavigation, &message).hint(
            "the book's own table of contents and page turns replace them; nothing else is lost",
        ));
    }
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
/// The chapter entry's `sections`, their ids as the body has them.
fn given_sections(
    src: &ChapterSource,
    ids: &HashMap<String, String>,
) -> Option<Vec<crate::book::Section>> {
    let mut given = src.sections.as_deref()?.0.clone();
    for s in &mut given {
        if let Some(now) = ids.get(&s.id) {
            s.id = now.clone();
        }
    }
    Some(given)
}

/// The heading a chapter with `heading = false` shows: the one its file opens with, which the
/// conversion took out as its title, put back as its `h1` (its text fixed as titles are). None
/// when the file opens with no heading: the build then adds none.
fn own_heading(
    project: &Project,
    kind: SourceKind,
    converted: &super::Converted,
    file: FileRef<'_>,
    tally: Option<&mut Tally>,
) -> Result<Option<String>> {
    let Some(found) = converted
        .title
        .as_deref()
        .filter(|_| converted.title_is_heading)
    else {
        return Ok(None);
    };
    let shown = match kind {
        SourceKind::Text => found.to_string(),
        _ => project.text.title(found, Some(file), tally)?,
    };
    let types = converted
        .title_types
        .as_deref()
        .map(|t| format!(" epub:type=\"{}\"", crate::xml::escape_attr(t)))
        .unwrap_or_default();
    Ok(Some(format!(
        "<h1{types}>{}</h1>\n",
        crate::xml::escape_text(&shown)
    )))
}

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

/// The title a chapter file's text gives itself, found as the build finds it (a heading line
/// in text, a leading heading of any level in Markdown and HTML, else HTML's `<title>`): what
/// `init` writes into `metadata.toml`. Images are not looked at.
pub(crate) fn title_in(kind: SourceKind, text: &str) -> Option<String> {
    let mut no_images = |_: &str| -> std::result::Result<String, String> { Ok(String::new()) };
    match kind {
        SourceKind::Text => super::convert_text(text, true).title,
        SourceKind::Markdown => {
            let opts = super::markup::MarkdownOptions {
                highlight: false,
                ..Default::default()
            };
            super::convert_markdown(text, &mut no_images, opts, None, None)
                .ok()?
                .title
        }
        SourceKind::Html => {
            let title = super::convert_html(text, &mut no_images, None, None)
                .ok()?
                .title?;
            Some(super::gutenberg::book_title(&title).unwrap_or(title))
        }
    }
}

/// The heading level a lone Markdown or HTML file is to be split at (`split = "h2"`): the
/// highest level at which the build's cut (`split = "h6"` cuts at every heading) finds
/// several headings and no chapter holds half the text (else the highest with several);
/// None when no level has two, or for plain text. What `init` writes.
pub(crate) fn split_level(kind: SourceKind, text: &str) -> Option<usize> {
    let mut no_images = |_: &str| -> std::result::Result<String, String> { Ok(String::new()) };
    let at = Some(super::markup::SplitAt {
        level: 6,
        file: "./file",
    });
    let converted = match kind {
        SourceKind::Text => return None,
        SourceKind::Markdown => {
            let opts = super::markup::MarkdownOptions {
                highlight: false,
                ..Default::default()
            };
            super::convert_markdown(text, &mut no_images, opts, None, at).ok()?
        }
        SourceKind::Html => super::convert_html(text, &mut no_images, None, at).ok()?,
    };
    let mut counts = [0usize; 7];
    for level in converted.pieces.iter().filter_map(|p| p.level) {
        if let Some(n) = counts.get_mut(level) {
            *n += 1;
        }
    }
    let candidates = || (1..=6).filter(|&l| counts[l] >= 2);
    // Headings that divide the book, not a title page's lines (Gutenberg's `<h2>KATRINE</h2>
    // <h2>A Novel</h2>` over chapters in `<h3>`): no chapter holds half the text.
    let total: usize = converted.pieces.iter().map(|p| p.body.len()).sum();
    let divides = |l: usize| {
        let mut largest = 0;
        let mut current = 0;
        for p in &converted.pieces {
            if p.level.is_some_and(|pl| pl <= l) {
                largest = largest.max(current);
                current = 0;
            }
            current += p.body.len();
        }
        largest.max(current) * 2 <= total
    };
    candidates()
        .find(|&l| divides(l))
        .or_else(|| candidates().next())
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

/// What the text-fix stage of a Markdown or HTML file records: the cleanup rules' changes
/// (for `check`) and its text nodes as written and fixed (for the text ledger).
type Fixing<'t, 'n> = (Option<&'t mut Tally>, &'n mut Vec<(String, Option<String>)>);

/// The titles of the volumes that the chapter source `src` (a text file with `split`) is cut
/// into, read, fixed and split as its conversion does it; empty for any other source.
pub(crate) fn volumes_in(project: &Project, src: &ChapterSource) -> Result<Vec<String>> {
    let kind = SourceKind::of_chapter(src);
    let Some(mode) = src.split.as_ref().filter(|_| kind == SourceKind::Text) else {
        return Ok(Vec::new());
    };
    if matches!(mode, SplitMode::Headings(_)) {
        return Ok(Vec::new());
    }
    let decoded = read_chapter(&project.boundary, src)?;
    if super::aozora::is_aozora(&decoded.text) {
        return Ok(Vec::new());
    }
    let (text, _) = gutenberg_text(&decoded.text, kind, &project.layout);
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    let fixed = fix_text_file(project, src, file, &text, (None, &mut Default::default()))?;
    let lines: Vec<&str> = fixed.split('\n').collect();
    Ok(super::split::split(&lines, mode)
        .sections
        .into_iter()
        .filter_map(|s| s.heading)
        .filter(|h| h.kind == super::split::HeadingKind::Volume)
        .map(|h| h.title)
        .collect())
}

/// How many volume and chapter headings `split = "auto"` finds in a text file, read as the
/// build reads it (without its Project Gutenberg header and licence): `init` splits a file with
/// several chapters, and the one-command build says how many it found.
pub(crate) fn headings(text: &str) -> Headings {
    if super::aozora::is_aozora(text) {
        let translated = super::aozora::translate(text);
        return Headings {
            volumes: 0,
            chapters: translated.headings,
        };
    }
    let (text, _) = gutenberg_text(text, SourceKind::Text, &crate::project::Layout::default());
    let lines: Vec<&str> = text.split('\n').collect();
    let mut counts = Headings::default();
    let split = super::split::split(&lines, &super::split::SplitMode::Auto);
    for h in split.sections.iter().filter_map(|s| s.heading.as_ref()) {
        match h.kind {
            super::split::HeadingKind::Volume => counts.volumes += 1,
            super::split::HeadingKind::Chapter => counts.chapters += 1,
        }
    }
    counts
}

/// The headings [`headings`] counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Headings {
    /// Volume headings (`第一卷`).
    pub volumes: usize,
    /// Chapter headings (`第一章`, `序章`).
    pub chapters: usize,
}

/// A text chapter with Project Gutenberg's conventions read: its header and licence as a page
/// of their own to follow it, its illustration blocks on one line each.
fn gutenberg_text<'a>(
    text: &'a str,
    kind: SourceKind,
    layout: &crate::project::Layout,
) -> (Cow<'a, str>, Option<Node>) {
    if kind != SourceKind::Text {
        return (Cow::Borrowed(text), None);
    }
    let Some(g) = super::gutenberg::detach(text) else {
        return (super::gutenberg::illustrations(text), None);
    };
    let body = super::convert_text(&g.boilerplate, false).body;
    let page = gutenberg_page(g.licence, body, layout);
    let text = super::gutenberg::illustrations(&g.text).into_owned();
    (Cow::Owned(text), Some(page))
}

/// An HTML chapter's Project Gutenberg header and licence blocks, taken out of its body for a
/// page of their own; its title, when it is the `<title>` PG gives its pages (`The Project
/// Gutenberg eBook of Pride and Prejudice, by Jane Austen`, also in copies without the header),
/// made the book's title.
fn gutenberg_html(
    converted: &mut super::Converted,
    layout: &crate::project::Layout,
) -> Option<Node> {
    gutenberg_title(converted);
    let g = super::gutenberg::detach_html(&converted.body)?;
    converted.body = g.text;
    Some(gutenberg_page(g.licence, g.boilerplate, layout))
}

/// Makes the document's title the book's when it is the `<title>` Project Gutenberg gives its
/// pages (`The Project Gutenberg eBook of Pride and Prejudice, by Jane Austen`).
fn gutenberg_title(converted: &mut super::Converted) {
    if let Some(title) = converted
        .title
        .as_deref()
        .and_then(super::gutenberg::book_title)
    {
        converted.title = Some(title);
    }
}

/// The page that holds a Project Gutenberg header and licence.
fn gutenberg_page(licence: bool, body: String, layout: &crate::project::Layout) -> Node {
    let title = if licence {
        "The Project Gutenberg License"
    } else {
        "Project Gutenberg"
    };
    Node::Chapter(Chapter::new(title.to_string(), body, layout))
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

/// What decoding changed: control characters dropped, bad bytes replaced; and what becomes of
/// NUL characters in a file of `kind` (plain text drops them like other controls).
fn decode_warnings(path: &Path, decoded: &Decoded, kind: SourceKind) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let (nuls, nul_line) = decoded.nuls;
    let (dropped, line) = match kind {
        SourceKind::Text => (
            decoded.dropped_controls + nuls,
            decoded.first_dropped_line.into_iter().chain(nul_line).min(),
        ),
        _ => (decoded.dropped_controls, decoded.first_dropped_line),
    };
    if dropped > 0 {
        let message = format!("dropped {dropped} control character(s) that XML does not allow");
        warnings.push(
            Diagnostic::warning(Code::ControlCharacters, message)
                .at(path)
                .line(line),
        );
    }
    let nul_fate = match kind {
        SourceKind::Text => None,
        SourceKind::Markdown => Some("replaced with U+FFFD, as CommonMark requires"),
        SourceKind::Html => Some("dropped or replaced with U+FFFD, as HTML parsing does"),
    };
    if let Some(fate) = nul_fate.filter(|_| nuls > 0) {
        let message = format!("{nuls} NUL character(s) {fate}");
        warnings.push(
            Diagnostic::warning(Code::ControlCharacters, message)
                .at(path)
                .line(nul_line),
        );
    }
    warnings.extend(damage_warnings(path, decoded));
    warnings
}

/// Most damaged places warned about one by one in a file; the rest are counted in the last.
const MAX_DAMAGE_WARNINGS: usize = 20;

/// One `encoding` warning at each line where bad bytes became U+FFFD (a line once): the
/// build goes on, `--strict` stops it.
fn damage_warnings(path: &Path, decoded: &Decoded) -> Vec<Diagnostic> {
    let mut lines = decoded.damaged_lines.clone();
    lines.dedup();
    let encoding = decoded.encoding.name();
    let shown = lines.len().min(MAX_DAMAGE_WARNINGS);
    lines
        .iter()
        .take(shown)
        .enumerate()
        .map(|(k, &line)| {
            let here = decoded.damaged_lines.iter().filter(|&&l| l == line).count();
            let mut message =
                format!("{here} damaged byte sequence(s), not valid {encoding}, read as U+FFFD");
            if k + 1 == shown && lines.len() > shown {
                let more = lines.len() - shown;
                message.push_str(&format!(" ({more} more line(s) like it in this file)"));
            }
            Diagnostic::warning(Code::Encoding, message)
                .at(path)
                .line(Some(line))
                .hint("find an undamaged copy, or mend the character by hand; `--strict` stops the build here")
        })
        .collect()
}

/// A file split at its headings into chapters (and volumes), with the line each starts at:
/// the line of the file as written, before cleanup rules removed any (`after_rules`).
fn split_file(
    project: &Project,
    src: &ChapterSource,
    (text, after_rules): (&str, &crate::text_fix::AfterRules),
    mode: &super::split::SplitMode,
    (images, warnings): (&mut Vec<Image>, &mut Vec<Diagnostic>),
) -> Result<(Vec<Node>, Vec<Option<usize>>, super::HeadingNotes)> {
    let warn = |code, line, message| Diagnostic::warning(code, message).at(&src.path).line(line);
    let sinks = (text, &mut *images, &mut *warnings);
    let (pieces, split_warnings, notes) = with_pictures(project, src, sinks, |p| {
        let at = |line| after_rules.source_line(line);
        super::split_text(text, mode, (src.volume, &at), p)
    })?;
    warnings.extend(
        split_warnings
            .into_iter()
            .map(|w| warn(w.kind.code(), Some(w.line), w.message)),
    );
    let pieces = super::empty_runs::join(pieces, &mut |line, message| {
        warnings.push(warn(Code::EmptyChapter, line, message))
    });
    let lines = pieces
        .iter()
        .map(|p| match p {
            // The text before the first heading starts the file.
            super::Piece::Front(_) => Some(1),
            super::Piece::Volume { line, .. } | super::Piece::Chapter { line, .. } => Some(*line),
        })
        .collect();
    let nodes = pieces_to_nodes(pieces, project);
    if nodes.is_empty() {
        warnings.push(warn(
            Code::EmptyChapter,
            None,
            "the chapter file is empty".into(),
        ));
    }
    Ok((nodes, lines, notes))
}

/// A Markdown or HTML file cut into chapters before its headings of `level` and above: the
/// text before the first (titled by the entry's `title`, the document's `<title>`, the file
/// name or the book's word for a foreword), then a chapter per heading, titled by it, nested
/// in the table of contents under the chapters of higher headings. Returns the chapters, the
/// conversion (its links, ids and which chapter holds each) and an HTML file's Project
/// Gutenberg header and licence as a page of their own.
fn split_markup(
    project: &Project,
    src: &ChapterSource,
    (kind, level): (SourceKind, usize),
    text: &str,
    (images, warnings): (&mut Vec<Image>, &mut Vec<Diagnostic>),
    (mut tally, text_nodes): Fixing<'_, '_>,
) -> Result<(Vec<Node>, super::Converted, Option<Node>)> {
    let name = src.path.file_name().unwrap_or_default().to_string_lossy();
    let file = super::markup::self_href(&name);
    let at = super::markup::SplitAt { level, file: &file };
    let sinks = (&mut *images, &mut *warnings);
    let mut converted = convert_markup(
        project,
        src,
        kind,
        text,
        sinks,
        (tally.as_deref_mut(), text_nodes),
        Some(at),
    )?;
    let back_matter = match kind {
        SourceKind::Html => gutenberg_pieces(&mut converted, &project.layout),
        _ => None,
    };
    warnings.extend(conversion_warnings(project, &src.path, &converted));
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    let top = converted
        .pieces
        .iter()
        .filter_map(|p| p.level)
        .min()
        .unwrap_or(1);
    let mut nodes = Vec::with_capacity(converted.pieces.len());
    for piece in std::mem::take(&mut converted.pieces) {
        let title = match piece.title {
            Some(t) => project.text.title(&t, Some(file), tally.as_deref_mut())?,
            None => front_piece_title(
                project,
                src,
                converted.title.clone(),
                file,
                tally.as_deref_mut(),
            )?,
        };
        let nested = piece.level.map_or(0, |l| l - top);
        let chapter = Chapter::new(title, piece.body, &project.layout).at_level(src.level + nested);
        nodes.push(Node::Chapter(chapter));
    }
    Ok((nodes, converted, back_matter))
}

/// The title of the text before the first heading of a file cut at its headings.
fn front_piece_title(
    project: &Project,
    src: &ChapterSource,
    found: Option<String>,
    file: FileRef<'_>,
    tally: Option<&mut Tally>,
) -> Result<String> {
    let t = src
        .title
        .clone()
        .or(found)
        .or_else(|| title_from_file_name(&src.path))
        .unwrap_or_else(|| book::front_title(&project.book.language));
    project.text.title(&t, Some(file), tally)
}

/// The Project Gutenberg header and licence of an HTML file cut at its headings, found in the
/// whole file ([`super::gutenberg::detach_pieces`]), taken out for a page of their own; the
/// document's title, when it is the `<title>` PG gives its pages, made the book's title.
fn gutenberg_pieces(
    converted: &mut super::Converted,
    layout: &crate::project::Layout,
) -> Option<Node> {
    gutenberg_title(converted);
    let (boilerplate, licence) =
        super::gutenberg::detach_pieces(&mut converted.pieces, &mut converted.homes)?;
    Some(gutenberg_page(licence, boilerplate, layout))
}

/// Converts with picture lines resolved through [`readable_image`] (a picture that cannot be
/// read is warned about and stays text).
fn with_pictures<T>(
    project: &Project,
    src: &ChapterSource,
    (text, images, warnings): (&str, &mut Vec<Image>, &mut Vec<Diagnostic>),
    convert: impl FnOnce(super::Pictures<'_>) -> T,
) -> Result<T> {
    let mut warned = std::collections::HashSet::new();
    let mut resolve = |path: &str| {
        let sinks = (&mut *images, &mut *warnings, &mut warned);
        readable_image(project, (&src.path, text), path, sinks)
    };
    Ok(convert(&mut resolve))
}

/// [`resolve_image`]; a picture that cannot be read (missing, outside the project,
/// unreadable) is an `unreadable-image` warning at its line of the chapter's `text`, once per
/// path (`warned`), and the caller keeps its alt text: mdBook and pandoc build such a book.
fn readable_image(
    project: &Project,
    (chapter, text): (&Path, &str),
    path: &str,
    (images, warnings, warned): (
        &mut Vec<Image>,
        &mut Vec<Diagnostic>,
        &mut std::collections::HashSet<String>,
    ),
) -> std::result::Result<String, String> {
    let resolved = resolve_image(project, chapter, path, images, warnings);
    if let Err(why) = &resolved
        && warned.insert(path.to_string())
    {
        let line = text
            .find(path)
            .map(|at| text[..at].matches('\n').count() + 1);
        let message = format!("picture {path:?} cannot be read: {why}; its alt text is kept");
        warnings.push(
            Diagnostic::warning(Code::UnreadableImage, message)
                .at(chapter)
                .line(line)
                .hint("fix the path (relative to the chapter file); build --strict refuses the book until then"),
        );
    }
    resolved
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
    let mut resolver = |s: &str| {
        let sinks = (&mut *images, &mut *warnings, &mut warned);
        readable_image(project, (&src.path, text), s, sinks)
    };
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    // The converter takes text back or nothing: a rule past its budget is kept here, and
    // no rule runs after it.
    let (mut overrun, mut clock) = (None, crate::text_fix::Clock::default());
    let mut fixer = |t: &str| {
        if overrun.is_some() {
            return None;
        }
        match project
            .text
            .text_node(t, file, tally.as_deref_mut(), &mut clock)
        {
            Ok(fixed) => {
                text_nodes.push((t.to_string(), fixed.clone()));
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

/// Largest file an mdBook `{{#include}}` may pull in.
const MAX_INCLUDED_BYTES: u64 = 16 << 20;

/// A Markdown chapter's text with its mdBook `{{#include}}` directives resolved; what could not
/// be is warned about where it is written and left as it was. Running out of the book's
/// `budget` stops the build, naming the directive.
fn resolve_includes(
    project: &Project,
    chapter: &Path,
    text: &str,
    budget: &Budget,
    warnings: &mut Vec<Diagnostic>,
) -> Result<String> {
    let mut read = |dir: &Path, written: &str| include_file(project, dir, written);
    let (text, problems) =
        super::includes::resolve(text, chapter, &mut read, budget).map_err(|w| Error::Budget {
            path: w.path,
            line: Some(w.line),
            message: w.message,
            hint: Some(INCLUDE_BUDGET_HINT.into()),
        })?;
    warnings.extend(problems.into_iter().map(|w| match w.unknown {
        true => Diagnostic::warning(Code::UnknownDirective, w.message)
            .at(&w.path)
            .line(Some(w.line))
            .hint("they belong to mdBook preprocessors epubforge does not run; write their output into the chapter if the book needs it"),
        false => Diagnostic::warning(Code::Include, w.message)
            .at(&w.path)
            .line(Some(w.line))
            .hint("mdBook resolves an include's path from the folder of the file that includes it"),
    }));
    Ok(text)
}

const INCLUDE_BUDGET_HINT: &str = "a file that includes itself (or a file that includes it) several times grows exponentially; include each listing once";

/// The file an include names, read (and decoded as chapters are) when the project's one
/// containment check admits it, as an image is (`--allow-outside-paths` lets it out the same way).
fn include_file(
    project: &Project,
    dir: &Path,
    written: &str,
) -> std::result::Result<(PathBuf, String), String> {
    let (path, found) = (project.boundary)
        .admit_file(dir, written)
        .map_err(|outside| format!("{written} {}", outside.sentence(written, &project.root)))?;
    if let Found::Missing = found {
        return Err(format!("{} does not exist", crate::escape::path(&path)));
    }
    let bytes = (project.boundary)
        .read_limited(&path, MAX_INCLUDED_BYTES, "included file")
        .map_err(|e| e.to_string())?;
    let decoded = source::decode(&bytes, None, source::EncodingErrors::Fail)
        .map_err(|e| format!("{}: {e}", crate::escape::path(&path)))?;
    Ok((path, decoded.text))
}

/// Turns the pieces of a split file into nodes: a volume opens a part that takes the
/// chapters after it.
fn pieces_to_nodes(pieces: Vec<super::Piece>, project: &Project) -> Vec<Node> {
    let (lang, layout) = (&project.book.language, &project.layout);
    let mut nodes: Vec<Node> = Vec::new();
    let mut volume: Option<Part> = None;
    for piece in pieces {
        match piece {
            super::Piece::Front(body) => {
                let (title, body) = front_matter(body, lang);
                nodes.push(Node::Chapter(Chapter::new(title, body, layout)));
            }
            super::Piece::Volume { title, intro, .. } => {
                nodes.extend(volume.take().map(Node::Part));
                volume = Some(Part {
                    title,
                    intro: intro.body,
                    children: Vec::new(),
                });
            }
            super::Piece::Chapter { title, body, .. } => {
                let chapter = Node::Chapter(Chapter::new(title, body.body, layout));
                match volume.as_mut() {
                    Some(v) => v.children.push(chapter),
                    None => nodes.push(chapter),
                }
            }
        }
    }
    nodes.extend(volume.map(Node::Part));
    nodes
}

/// The title of the text before the first heading: its own first line when that is a label
/// such as `内容简介` (then removed from the body), else a word for "synopsis" in the book's
/// language.
fn front_matter(body: super::Converted, lang: &str) -> (String, String) {
    const LABELS: [&str; 12] = [
        "简介",
        "內容簡介",
        "内容简介",
        "作品简介",
        "作品簡介",
        "簡介",
        "文案",
        "前言",
        "序言",
        "引言",
        "Foreword",
        "Synopsis",
    ];
    if let Some(rest) = body.body.strip_prefix("<p>")
        && let Some((first, after)) = rest.split_once("</p>\n")
    {
        let label = first.trim_end_matches(['：', ':']);
        if LABELS.contains(&label) {
            return (label.to_string(), after.to_string());
        }
    }
    (book::front_title(lang), body.body)
}

/// Resolves an image referenced by a Markdown or HTML chapter: a real image inside the project
/// (the project's containment check, before anything is opened: a FIFO or `/dev/zero` outside
/// is never read), read, checked and named by `media::image::carry`, so the same image used
/// twice is stored once. What was removed from an SVG is added to `warnings`.
fn resolve_image(
    project: &Project,
    chapter: &Path,
    src: &str,
    images: &mut Vec<Image>,
    warnings: &mut Vec<Diagnostic>,
) -> std::result::Result<String, String> {
    let dir = chapter.parent().unwrap_or(Path::new("."));
    let path = (project.boundary)
        .admit(dir, src)
        .map_err(|outside| outside.sentence(src, &project.root))?;
    let name = crate::media::image::carry(&project.boundary, &path, images, warnings)
        .map_err(|e| e.to_string())?;
    Ok(format!("../images/{name}"))
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
