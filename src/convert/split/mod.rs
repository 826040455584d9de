//! Splitting one big novel text into volumes and chapters by finding its heading lines.
//!
//! Web novels often come as a single .txt holding the whole book, with headings such as
//! `第一卷 潜龙在渊` and `第一章 风起`. After the source stage has decoded the file and
//! normalised its newlines, [`split`] takes its lines and returns a flat, ordered list of
//! [`Section`]s (each a heading and the line range of its body) plus numbering
//! [`SplitWarning`]s. The convert stage turns the sections into XHTML files and the package
//! stage into a nested table of contents; neither has to look at the text again to find
//! headings.
//!
//! Headings are found either by the built-in rules ([`SplitMode::Auto`], described in the
//! `auto` submodule: `第…章`, `第…卷`, `卷三`, `序章`, `番外`, `Chapter XII`, `Part One`,
//! `Prologue` … with guards against prose such as `第一次见面` or `他翻到第三章，看了很久。`)
//! or by user regexes from metadata.toml ([`SplitMode::Pattern`]). Each line is looked at once,
//! so a 30 MB book splits in well under a second. A table of contents printed at the start of
//! the text (headings with nothing under them, repeated later where the chapters start) is
//! front matter, not chapters. A heading number with two readings (`第一百一回`: 110 as spoken,
//! 101 in a classical novel) takes the one its sequence continues with.
//!
//! What a heading is, is decided by the whole file, not line by line (the `structure`
//! submodule): a contents list at the top is front matter whatever its numerals; a site's page
//! markers (`第1节` mixed with the `第一回` chapters) are text; the pages a site cut a chapter
//! into (`第一回 天涯思君不可忘(1)`, `(2)`…) are one chapter (the `pages` submodule); a label before every heading
//! (`警世通言第一卷`) or a `第` left out (`二回　…`) is read when it recurs in sequence; a book
//! whose only headings are volumes or stories (`卷一`, `第一卷　俞伯牙…`) has them as
//! chapters. A book's volumes are decided the same way (the `volumes` submodule): a volume
//! written on every chapter line of it opens once, and where the chapter numbering starts
//! over with no volume heading, a volume is implied ([`Heading::implied`]). What the split
//! left out, and why, is in [`Split::skipped`] for `check`'s outline.

mod auto;
mod japanese;
mod label;
mod missed;
mod numerals;
mod pages;
mod structure;
mod volumes;

use std::collections::HashMap;
use std::ops::Range;

use regex::Regex;

pub use crate::book::SplitMode;
pub(crate) use auto::collapse_spaces;

/// The level of a heading in the table of contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeadingKind {
    /// A volume (`第一卷`, `Part One`), which groups the chapters after it.
    Volume,
    /// A chapter, including unnumbered ones such as `序章` or `Prologue`.
    Chapter,
}

/// One heading line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// Volume or chapter.
    pub kind: HeadingKind,
    /// The trimmed heading text with inner runs of white space (including U+3000) collapsed to
    /// one ASCII space. When a line holds a volume and a chapter, each gets its own part.
    pub title: String,
    /// 1-based line number in the input.
    pub line: usize,
    /// Lines the heading takes: 1, or 2 for a title wrapped onto the next line (its text is
    /// then part of `title`).
    pub lines: usize,
    /// The heading's number (`第十二章` -> 12), `None` for unnumbered sections such as `序章`.
    pub number: Option<u64>,
    /// The number was read through a typo (`第十—回`: a dash for 一; `第一○八回`: a circle for
    /// 〇): `check` points at the line so that the author can fix the source.
    pub repaired: bool,
    /// A volume the text has no heading for: the chapter numbering starts over there, so a
    /// volume starts. Its title is the short lines standing above the new run (then `line`
    /// and `lines` are theirs), or is made up (then `lines` is 0 and `line` is the first
    /// chapter's).
    pub implied: bool,
    /// The text written on the heading's line after the heading (a heading glued to its
    /// chapter's first sentence, see `auto::glued`): the body's first paragraph.
    pub glued: Option<String>,
}

/// A heading and the lines that follow it up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// `None` only for the front section: the text before the first heading.
    pub heading: Option<Heading>,
    /// 0-based indices of the body lines, excluding the heading line. Empty for a volume
    /// heading directly followed by a chapter heading, and for the volume half of a line that
    /// holds both.
    pub body: Range<usize>,
}

/// A problem found while splitting; splitting itself still succeeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitWarning {
    /// 1-based line number of the heading that looks wrong (for page markers, the first).
    pub line: usize,
    /// What looks wrong, in words, ending with the line number.
    pub message: String,
    /// What kind of problem, which decides the diagnostic code.
    pub kind: SplitWarningKind,
}

/// The kinds of [`SplitWarning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SplitWarningKind {
    /// A heading number skips, repeats or goes back (`heading-numbering`).
    Numbering,
    /// Heading-like lines of a second numbering interleaved with the chapters (a site's page
    /// markers) were kept as text (`page-markers`); one warning per file, counting them.
    PageMarkers,
}

impl SplitWarningKind {
    /// The diagnostic code the warning is reported under.
    pub fn code(self) -> crate::diagnostic::Code {
        match self {
            SplitWarningKind::Numbering => crate::diagnostic::Code::HeadingNumbering,
            SplitWarningKind::PageMarkers => crate::diagnostic::Code::PageMarkers,
        }
    }
}

/// A heading-like line that the split did not make a heading, and why: for `check`'s outline,
/// which lists these beside the headings so that nothing is left out unseen. The line stays
/// in the book as text (of the front matter, or of the chapter it falls in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skipped {
    /// 1-based line number in the input.
    pub line: usize,
    /// The trimmed line, inner white space collapsed to one space.
    pub text: String,
    /// Why it is not a heading.
    pub why: SkipReason,
}

/// Why a heading-like line is not a heading (see [`Skipped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SkipReason {
    /// An entry of a contents list printed before the chapters: a run of headings with no
    /// text under them, which the chapters repeat (by title or by number, whatever their
    /// numerals: `第001回` listed, `第一回` in the text). Front matter.
    ContentsList,
    /// A site's page marker: a second family of headings (`第1节`, `第2节`…) interleaved with
    /// the chapters (`第一回`…), numbered on its own or starting over, so not the book's
    /// chapters. Counted in a [`SplitWarningKind::PageMarkers`] warning.
    PageMarker,
    /// A heading repeated a few short lines below itself (a site's page header between the
    /// two): the second one starts the chapter.
    Repeated,
    /// A later page of a chapter a site cut into pages (`第一回 天涯思君不可忘(2)` after
    /// `(1)`): the chapter's text goes on, so the line stays text in it.
    PagePiece,
    /// A heading inside decoration (`===第一章===`, `【第一章】`, `[0001] 标题`): text, as
    /// decorated lines are often emphasis inside a chapter; fix the source if it is a heading.
    Decorated,
    /// `第` + number + unit whose number cannot be read (`第十x回`), even through the typos
    /// [`Heading::repaired`] reads.
    UnreadableNumber,
    /// A heading like the ones a user's `split` pattern takes (`第十二章` in a book whose
    /// `第十一章` it matched, or `上卷 第一回` where it matched `第二回`), which the pattern
    /// does not match: it stays text in the chapter before it.
    PatternMissed,
}

/// The result of [`split`]: the outline of a file and what was left out of it.
///
/// The outline is `sections`: each heading carries its 1-based source line
/// ([`Heading::line`]) and its body's line range ([`Section::body`], 0-based), from which a
/// size follows. `skipped` lists the heading-like lines that are not in the outline, with
/// their line and reason, in line order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// Sections in book order.
    pub sections: Vec<Section>,
    /// Numbering gaps, duplicates and backward steps, in line order, then page markers.
    pub warnings: Vec<SplitWarning>,
    /// Heading-like lines left out of the outline, in line order.
    pub(crate) skipped: Vec<Skipped>,
}

/// Splits a book's lines into sections at its heading lines.
///
/// Lines before the first heading become a front section without a heading if any of them is
/// not blank; otherwise they are dropped. Every other line is either a heading line or in
/// exactly one section's body, in order. Lines need not be trimmed.
pub fn split(lines: &[&str], mode: &SplitMode) -> Split {
    split_traced(lines, mode, &|line| line)
}

/// [`split`] of lines that are not the file's lines as written (cleanup rules removed some):
/// `at` gives the file's line (1-based) for a line of `lines` (1-based), and every line the
/// split reports (headings, skipped lines, warnings and their messages) is the file's. The
/// sections' bodies stay indices into `lines`.
pub fn split_traced(lines: &[&str], mode: &SplitMode, at: &dyn Fn(usize) -> usize) -> Split {
    let auto = matches!(mode, SplitMode::Auto);
    let blocks = auto && {
        let trimmed: Vec<&str> = lines.iter().map(|l| auto::trim_line(l)).collect();
        crate::lines::blank_line_separated(&trimmed)
    };
    let Candidates {
        mut found,
        weak,
        mut skipped,
    } = find_headings(lines, mode, blocks);
    let mut warnings = Vec::new();
    if auto {
        structure::accept_weak(&mut found, weak, lines, &mut skipped);
    }
    structure::drop_contents_lists(&mut found, lines, &mut skipped);
    if auto {
        structure::drop_numbered_contents(&mut found, lines, &mut skipped);
    }
    structure::drop_listed_volumes(&mut found, lines, &mut skipped);
    pages::join_pages(&mut found, lines, &mut skipped);
    if auto {
        structure::drop_repeated(&mut found, lines, &mut skipped);
        warnings.extend(structure::drop_page_markers(
            &mut found,
            lines,
            &mut skipped,
        ));
        volumes::one_volume_per_label(&mut found);
        volumes::implied_volumes(&mut found, lines);
        structure::volumes_as_chapters(&mut found);
    }
    if blocks {
        add_subtitles(&mut found, lines);
    }
    let (sections, mut numbering) = sections(found, lines, at);
    for w in &mut warnings {
        w.line = at(w.line);
    }
    numbering.append(&mut warnings);
    for s in &mut skipped {
        s.line = at(s.line);
    }
    skipped.sort_by_key(|s| s.line);
    Split {
        sections,
        warnings: numbering,
        skipped,
    }
}

/// The sections the heading lines cut `lines` into, with the numbering warnings.
fn sections(
    found: Vec<HeadingLine>,
    lines: &[&str],
    at: &dyn Fn(usize) -> usize,
) -> (Vec<Section>, Vec<SplitWarning>) {
    let mut sections: Vec<Section> = Vec::new();
    let mut numbering = Numbering::default();
    let first_heading = found.first().map_or(lines.len(), |h| h.index);
    if lines[..first_heading]
        .iter()
        .any(|l| !auto::trim_line(l).is_empty())
    {
        sections.push(Section {
            heading: None,
            body: 0..first_heading,
        });
    }
    for HeadingLine {
        index,
        mut found,
        wrapped,
        span,
        implied,
        glued,
    } in found
    {
        if glued.is_none() {
            label::keep_whole_line(lines[index], &mut found);
        }
        if let Some(last) = sections.last_mut() {
            last.body.end = index;
        }
        let body_start = index + span;
        let count = found.len();
        for (k, f) in found.into_iter().enumerate() {
            let mut title = f.title;
            if let Some(more) = wrapped.as_deref().filter(|_| k + 1 == count) {
                title.push_str(more);
            }
            let heading = Heading {
                kind: f.kind,
                number: numbering.reading(f.kind, f.number, f.other),
                title,
                line: at(index + 1),
                lines: body_start - index,
                repaired: f.repaired,
                implied,
                glued: glued.clone().filter(|_| k + 1 == count),
            };
            numbering.check(&heading);
            sections.push(Section {
                heading: Some(heading),
                body: body_start..body_start,
            });
        }
    }
    if let Some(last) = sections.last_mut() {
        last.body.end = lines.len();
    }
    (sections, numbering.warnings)
}

/// What the line-by-line look finds, before the whole file decides.
struct Candidates {
    /// Heading lines, in order.
    found: Vec<HeadingLine>,
    /// Headings that need the whole file to confirm them, in order.
    weak: Vec<WeakLine>,
    /// Heading-like lines that are not headings, in order.
    skipped: Vec<Skipped>,
}

/// A heading line that the whole file must confirm (see [`auto::Weak`]).
struct WeakLine {
    /// The heading line, if confirmed.
    heading: HeadingLine,
    /// How it is written.
    shape: String,
    /// How it is reported when not confirmed.
    unless: Option<SkipReason>,
}

/// A line holding one heading, or a volume and a chapter.
struct HeadingLine {
    /// 0-based index of the line.
    index: usize,
    /// The headings on it.
    found: Vec<auto::Found>,
    /// The rest of the title, with the separator before it: wrapped onto the next line, or a
    /// title of its own a paragraph below (see [`add_subtitles`]).
    wrapped: Option<String>,
    /// Lines from the heading line to the last line of its title (0 for a volume the
    /// text does not write).
    span: usize,
    /// A volume found by the numbering, not by a heading (see [`Heading::implied`]).
    implied: bool,
    /// The text glued to the heading on its line (see [`Heading::glued`]).
    glued: Option<String>,
}

/// The heading lines, in order, and the weak and skipped ones (Auto mode only).
fn find_headings(lines: &[&str], mode: &SplitMode, blocks: bool) -> Candidates {
    let mut out = Vec::new();
    let mut bare = Vec::new();
    let mut weak = Vec::new();
    let mut skipped = Vec::new();
    // Lines a user's pattern did not match that the built-in rules would take.
    let mut missed = Vec::new();
    for (index, raw) in lines.iter().enumerate() {
        let line = auto::trim_line(raw);
        if line.is_empty() {
            continue;
        }
        let found = match mode {
            SplitMode::Auto => auto::detect(line),
            SplitMode::Pattern { chapter, volume } => {
                pattern_heading(line, chapter, volume.as_ref())
            }
            SplitMode::Headings(_) => Vec::new(),
        };
        if found.is_empty() {
            match mode {
                SplitMode::Auto => match auto::glued(line) {
                    Some((f, at)) => out.push(HeadingLine {
                        index,
                        found: vec![f],
                        wrapped: None,
                        span: 1,
                        implied: false,
                        glued: Some(line[at..].to_string()),
                    }),
                    None => not_found(index, line, (&mut bare, &mut weak, &mut skipped)),
                },
                _ => missed.extend(missed::pattern_missed(index, line)),
            }
            continue;
        }
        let latin = found[0]
            .title
            .starts_with(|c: char| c.is_ascii_alphabetic());
        let wrapped = if blocks && latin {
            match stands_alone(lines, index, line) {
                Some(wrapped) => wrapped,
                None => continue,
            }
        } else {
            None
        };
        out.push(HeadingLine {
            index,
            span: 1 + usize::from(wrapped.is_some()),
            wrapped: wrapped.map(|w| format!(" {w}")),
            found,
            implied: false,
            glued: None,
        });
    }
    // Unnumbered sections (`后记` after Jin Yong's `一 灭门` … `四十 曲谐`) do not count.
    let chapters = out.iter().any(|h| {
        h.found
            .iter()
            .any(|f| f.kind == HeadingKind::Chapter && f.number.is_some())
    });
    // Bare numbers before the first chapter (`MCMIX` on a title page) are front matter.
    let first = bare.iter().position(|h| {
        h.found
            .first()
            .is_some_and(|f| f.number.is_some_and(|n| n <= 1))
    });
    bare.drain(..first.unwrap_or(bare.len()));
    skipped.extend(missed::like_the_headings(missed, &out, lines));
    if !chapters && bare_chapters(&bare, lines) {
        out.extend(bare);
        out.sort_by_key(|h| h.index);
    }
    Candidates {
        found: out,
        weak,
        skipped,
    }
}

/// Where a line that is not a heading by the line alone goes: a bare-numbered heading, a weak
/// one, a heading-like line to report, or nowhere (text).
fn not_found(
    index: usize,
    line: &str,
    (bare, weak, skipped): (&mut Vec<HeadingLine>, &mut Vec<WeakLine>, &mut Vec<Skipped>),
) {
    let one = |found| HeadingLine {
        index,
        found,
        wrapped: None,
        span: 1,
        implied: false,
        glued: None,
    };
    if let Some(f) = auto::bare_numbered(line) {
        bare.push(one(vec![f]));
    } else if let Some(w) = volumes::weak(line) {
        weak.push(WeakLine {
            heading: one(w.found),
            shape: w.shape,
            unless: w.unless,
        });
    } else if let Some(why) = auto::not_taken(line) {
        skipped.push(Skipped {
            line: index + 1,
            text: auto::collapse_spaces(line),
            why,
        });
    }
}

/// A title a paragraph below an English heading that has none (`CHAPTER I.`, a bare `IV`,
/// `BOOK THE FIRST`), as Project Gutenberg texts often set them:
///
/// ```text
/// CHAPTER I.
///
/// The Widow and her Child.
///
/// On the night of Friday, …
/// ```
///
/// The title is a paragraph of one short line, in capitals or mostly capitalised words, not
/// a heading itself, with more text after it.
fn add_subtitles(found: &mut [HeadingLine], lines: &[&str]) {
    for k in 0..found.len() {
        let h = &found[k];
        let end = found.get(k + 1).map_or(lines.len(), |next| next.index);
        let untitled = h.wrapped.is_none()
            && h.found.last().is_some_and(|f| {
                f.title.starts_with(|c: char| c.is_ascii_alphanumeric())
                    && auto::untitled_english(&f.title)
            });
        if !untitled {
            continue;
        }
        let trimmed = |i: usize| auto::trim_line(lines[i]);
        let Some(at) = (h.index + 1..end).find(|&i| !trimmed(i).is_empty()) else {
            continue;
        };
        let alone = at + 1 >= end || trimmed(at + 1).is_empty();
        let more_text = (at + 1..end).any(|i| !trimmed(i).is_empty());
        if alone && more_text && auto::is_subtitle(trimmed(at)) {
            let ends = h
                .found
                .last()
                .is_some_and(|f| f.title.ends_with(['.', ':']));
            let sep = if ends { " " } else { ". " };
            let span = at + 1 - h.index;
            let h = &mut found[k];
            h.wrapped = Some(format!("{sep}{}", auto::collapse_spaces(trimmed(at))));
            h.span = span;
        }
    }
}

/// Fewest bare-numbered headings (`1、风起`) that make a file's chapters.
const BARE_MIN: usize = 3;
/// Fewest non-blank lines under each bare-numbered heading but the last: a numbered list has
/// its items on consecutive lines, a chapter has text.
const BARE_BODY_LINES: usize = 3;
/// Or fewest characters under it: a story set as one or two long paragraphs (三十三剑客图's
/// `一 赵处女`), or a section of one long paragraph, as Japanese essays write one line per
/// paragraph (芥川's 文芸的な、余りに文芸的な), is text too, where a list item is a line.
const BARE_BODY_CHARS: usize = 200;

/// Whether the bare-numbered lines of a file without other chapter headings are its chapters:
/// at least [`BARE_MIN`], numbered from 0 or 1 and going up by one (a slip or two allowed), each
/// with text under it before the next, nine in ten at least [`BARE_BODY_LINES`] lines or
/// [`BARE_BODY_CHARS`] characters of it.
fn bare_chapters(bare: &[HeadingLine], lines: &[&str]) -> bool {
    // A heading set two or three times over with nothing between (Jin Yong's downloads repeat
    // `二十 悄立雁门…`) counts once here; the repeats are dropped later.
    let number = |h: &HeadingLine| h.found.first().and_then(|f| f.number);
    let bare: Vec<&HeadingLine> = bare
        .iter()
        .enumerate()
        .filter(|&(k, h)| {
            !bare.get(k + 1).is_some_and(|next| {
                number(next) == number(h)
                    && lines[h.index + 1..next.index]
                        .iter()
                        .all(|l| auto::trim_line(l).is_empty())
            })
        })
        .map(|(_, h)| h)
        .collect();
    if bare.len() < BARE_MIN {
        return false;
    }
    let numbers: Vec<u64> = bare
        .iter()
        .filter_map(|h| h.found.first().and_then(|f| f.number))
        .collect();
    let starts = numbers.first().is_some_and(|&n| n <= 1);
    let steps = numbers.windows(2).filter(|w| w[1] == w[0] + 1).count();
    let in_order = steps * 10 >= (numbers.len() - 1) * 9;
    // Every heading has text under it, and nine in ten have a chapter's worth (a short
    // story of one line among long ones, as 三十三剑客图's `二十一 寺行者`, is one too).
    let bodies: Vec<(usize, usize)> = bare
        .windows(2)
        .map(|w| {
            let body = lines[w[0].index + 1..w[1].index]
                .iter()
                .map(|l| auto::trim_line(l))
                .filter(|l| !l.is_empty());
            body.fold((0, 0), |(n, chars), l| (n + 1, chars + l.chars().count()))
        })
        .collect();
    let long = bodies
        .iter()
        .filter(|&&(n, chars)| n >= BARE_BODY_LINES || chars >= BARE_BODY_CHARS)
        .count();
    let texted = bodies.iter().all(|&(n, _)| n > 0) && long * 10 >= bodies.len() * 9;
    starts && in_order && texted
}

/// A chapter title without its numbering (`第十二章 风起` gives `风起`), for
/// `[layout] title-format`; None when the title is not a numbered chapter heading.
pub fn title_without_number(title: &str) -> Option<&str> {
    auto::title_without_number(title)
}

/// Whether a title is an unnumbered section heading (`序章`, `楔子 缘起`, `Prologue`), which
/// `[layout] title-format` leaves as it is.
pub fn is_unnumbered_section(title: &str) -> bool {
    let line = auto::trim_line(title);
    auto::detect(line)
        .iter()
        .any(|f| f.kind == HeadingKind::Chapter && f.number.is_none())
}

/// Whether `line` is a volume or chapter heading by `mode`, or (with `Auto`) may be one once
/// the whole file is seen (`一 灭门`, `二回　救贫女…`, `警世通言第一卷`): the text-fix stage
/// leaves such lines as they are written (no spaces taken out), so that the split finds them.
pub fn is_heading(line: &str, mode: &SplitMode) -> bool {
    let line = auto::trim_line(line);
    !line.is_empty()
        && match mode {
            SplitMode::Auto => {
                crate::convert::aozora::is_heading_line(line)
                    || !auto::detect(line).is_empty()
                    || auto::glued(line).is_some()
                    || auto::bare_numbered(line).is_some()
                    || volumes::weak(line).is_some()
            }
            SplitMode::Pattern { chapter, volume } => {
                !pattern_heading(line, chapter, volume.as_ref()).is_empty()
            }
            SplitMode::Headings(_) => false,
        }
}

/// In text whose paragraphs are separated by blank lines, an English heading is a paragraph
/// of its own: `BOOK I. (Folio), CHAPTER I. (Sperm Whale).—This whale, among the` opening a
/// paragraph of Moby-Dick is text. One more line before the blank line is the rest of a title
/// too long for one line when the heading does not end like a sentence
/// (`CHAPTER 56. Of the Less Erroneous Pictures of Whales, and the True` /
/// `Pictures of Whaling Scenes.`), returned; None when the line is not a heading.
fn stands_alone(lines: &[&str], index: usize, line: &str) -> Option<Option<String>> {
    let mut after = lines[index + 1..].iter().map(|l| auto::trim_line(l));
    let next = match after.next() {
        None | Some("") => return Some(None),
        Some(next) => next,
    };
    if !auto::detect(next).is_empty() {
        return Some(None);
    }
    if !matches!(after.next(), None | Some("")) {
        return None;
    }
    let open = !line.ends_with(['.', '!', '?', ':', ')', ']']);
    let short = next.chars().count() <= auto::MAX_HEADING_WIDTH;
    Some((open && short).then(|| auto::collapse_spaces(next)))
}

/// A heading found by user patterns. The number comes from a capture group named `num` when
/// the pattern has one, else from the built-in rules when they recognise the line, else from
/// the first run of digits or Chinese numerals after `第`, else from the first run of digits.
fn pattern_heading(line: &str, chapter: &Regex, volume: Option<&Regex>) -> Vec<auto::Found> {
    let (kind, regex) = match volume {
        Some(v) if v.is_match(line) => (HeadingKind::Volume, v),
        _ if chapter.is_match(line) => (HeadingKind::Chapter, chapter),
        _ => return Vec::new(),
    };
    let (number, other) = pattern_number(line, kind, regex).unzip();
    vec![auto::Found {
        kind,
        title: auto::collapse_spaces(line),
        number,
        other: other.flatten(),
        repaired: false,
    }]
}

/// The number of a heading found by a pattern, with its other reading (see
/// [`numerals::chinese_readings`]).
fn pattern_number(line: &str, kind: HeadingKind, regex: &Regex) -> Option<numerals::Readings> {
    if regex.capture_names().flatten().any(|n| n == "num")
        && let Some(m) = regex.captures(line).and_then(|c| c.name("num"))
    {
        let text = auto::trim_line(m.as_str());
        return numerals::chinese_readings(text)
            .or_else(|| numerals::parse_roman(text).map(|n| (n, None)))
            .or_else(|| numerals::parse_english_number(text).map(|n| (n, None)));
    }
    if let Some(f) = auto::detect(line).into_iter().find(|f| f.kind == kind)
        && let Some(n) = f.number
    {
        return Some((n, f.other));
    }
    let run = |text: &str, is_part: fn(char) -> bool| {
        let start = text.find(is_part)?;
        let rest = text.get(start..)?;
        let end = rest.find(|c: char| !is_part(c)).unwrap_or(rest.len());
        numerals::chinese_readings(rest.get(..end)?)
    };
    line.split_once('第')
        .and_then(|(_, after)| {
            after
                .starts_with(numerals::is_numeral_char)
                .then(|| run(after, numerals::is_numeral_char))?
        })
        .or_else(|| run(line, |c| c.is_ascii_digit() || ('０'..='９').contains(&c)))
}

/// Tracks heading numbers per level to warn about gaps, repeats and backward steps.
#[derive(Default)]
struct Numbering {
    warnings: Vec<SplitWarning>,
    last_volume: Option<u64>,
    volumes_seen: HashMap<u64, usize>,
    last_chapter: Option<u64>,
    /// Chapter numbers of the current volume, with the line each first appeared on.
    chapters_seen: HashMap<u64, usize>,
    /// A volume heading came and no numbered chapter since: the next chapter may restart at 1.
    volume_just_started: bool,
}

impl Numbering {
    /// Of a heading number's two readings, the one nearer the number that comes next at its
    /// level (`一百一` after 100 is 101; after 109, `一百十` is 110 anyway); the spoken reading
    /// when there is no sequence yet, or when both are as near.
    fn reading(&self, kind: HeadingKind, number: Option<u64>, other: Option<u64>) -> Option<u64> {
        let (Some(n), Some(other)) = (number, other) else {
            return number;
        };
        let last = match kind {
            HeadingKind::Volume => self.last_volume,
            HeadingKind::Chapter => self.last_chapter,
        };
        let Some(next) = last.map(|l| l.saturating_add(1)) else {
            return number;
        };
        if other.abs_diff(next) < n.abs_diff(next) {
            Some(other)
        } else {
            Some(n)
        }
    }

    fn check(&mut self, heading: &Heading) {
        match heading.kind {
            HeadingKind::Volume => {
                self.volume_just_started = true;
                self.chapters_seen.clear();
                if let Some(n) = heading.number {
                    let last = self.last_volume.replace(n);
                    Self::compare(
                        &mut self.warnings,
                        &mut self.volumes_seen,
                        "volume",
                        last,
                        n,
                        heading.line,
                    );
                }
            }
            HeadingKind::Chapter => {
                let Some(n) = heading.number else { return };
                let mut last = self.last_chapter.replace(n);
                if std::mem::take(&mut self.volume_just_started) {
                    match last {
                        // Numbering restarts in the new volume, or carries on from the last one.
                        _ if n <= 1 => last = None,
                        Some(prev) if prev.checked_add(1) == Some(n) => last = None,
                        Some(prev) if n <= prev => {
                            self.warnings.push(SplitWarning {
                                line: heading.line,
                                message: format!(
                                    "chapter numbering in the new volume starts at {n}, not 1 \
                                     (line {})",
                                    heading.line
                                ),
                                kind: SplitWarningKind::Numbering,
                            });
                            last = None;
                        }
                        _ => {}
                    }
                }
                Self::compare(
                    &mut self.warnings,
                    &mut self.chapters_seen,
                    "chapter",
                    last,
                    n,
                    heading.line,
                );
            }
        }
    }

    fn compare(
        warnings: &mut Vec<SplitWarning>,
        seen: &mut HashMap<u64, usize>,
        level: &str,
        last: Option<u64>,
        n: u64,
        line: usize,
    ) {
        let message = if let Some(&first) = seen.get(&n) {
            Some(format!(
                "{level} number {n} appears again (line {line}; first at line {first})"
            ))
        } else {
            match last {
                Some(prev) if n < prev => Some(format!(
                    "{level} number goes back from {prev} to {n} (line {line})"
                )),
                Some(prev) if n > prev.saturating_add(1) => Some(format!(
                    "{level} number jumps from {prev} to {n} (line {line})"
                )),
                _ => None,
            }
        };
        seen.entry(n).or_insert(line);
        if let Some(message) = message {
            warnings.push(SplitWarning {
                line,
                message,
                kind: SplitWarningKind::Numbering,
            });
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod volume_tests;
