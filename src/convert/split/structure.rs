//! The decisions about a file's headings that need the whole file, not one line.
//!
//! [`super::split`] first looks at every line alone (the `auto` rules), which gives heading
//! lines, weak candidates and heading-like lines; the passes here then look at all of them
//! together, as a reader leafing through the book would:
//! - [`accept_weak`]: a label before every heading (`警世通言第一卷`, `上卷 第一回`) or a `第`
//!   left out (`二回　…`) is a heading when the same shape recurs, numbered in sequence.
//! - [`drop_contents_lists`], [`drop_numbered_contents`], [`drop_listed_volumes`]: a contents
//!   list before the chapters is front matter, whether its entries repeat the chapters' titles
//!   or only their numbers in other numerals (`第 一 回` or `第001回` listed, `第一回` in the
//!   text).
//! - [`drop_repeated`]: a heading repeated just below itself (a site's page header between the
//!   two) counts once.
//! - [`drop_page_markers`]: a second family of headings interleaved with the chapters and
//!   numbered on its own (a site's `第1节` page markers among the `第一回` chapters) is text.
//! - [`volumes_as_chapters`]: a book whose only headings are volumes or stories (`卷一`,
//!   `第一卷　俞伯牙…`) has them as its chapters.
//!
//! Every pass is linear in the number of lines (or n log n), so that a hostile file of 100 000
//! heading lines splits as fast as a novel.

use std::collections::{HashMap, HashSet};

use super::auto::{self, Family};
use super::{
    HeadingKind, HeadingLine, SkipReason, Skipped, SplitWarning, SplitWarningKind, WeakLine,
};

/// Heading lines in a row with nothing under them that make a table of contents.
const CONTENTS_MIN: usize = 3;

/// Fewest weak headings of one shape that make it the file's way of writing headings.
const WEAK_MIN: usize = 3;

/// Most lines of text under a heading that has "nothing under it" in a contents list, none of
/// them longer than a heading: an entry's title may be set on lines of its own (`第 一 回` /
/// `甄士隱夢幻識通靈` / `賈雨村風塵懷閨秀`), and an entry that is not read as a heading
/// (`第二 十 回` in a list of `第 十九 回`) adds its lines to the one before.
const THIN_LINES: usize = 8;

/// Most non-blank lines between a heading and its repetition (a site's page header).
const REPEAT_LINES: usize = 12;

/// Most characters of those lines.
const REPEAT_CHARS: usize = 600;

/// The line-by-line result with the lines at `drop` taken out, each recorded in `skipped`.
pub(super) fn remove(
    found: &mut Vec<HeadingLine>,
    drop: &[bool],
    lines: &[&str],
    why: SkipReason,
    skipped: &mut Vec<Skipped>,
) {
    let mut k = 0;
    found.retain(|h| {
        k += 1;
        if drop[k - 1] {
            skipped.push(Skipped {
                line: h.index + 1,
                text: auto::collapse_spaces(auto::trim_line(lines[h.index])),
                why,
            });
        }
        !drop[k - 1]
    });
}

/// The lines under heading `k` up to the next heading (after its wrapped title).
fn under<'a>(found: &[HeadingLine], k: usize, lines: &'a [&'a str]) -> &'a [&'a str] {
    let start = (found[k].index + found[k].span).min(lines.len());
    let end = found.get(k + 1).map_or(lines.len(), |next| next.index);
    &lines[start..end.max(start)]
}

/// Accepts the weak headings whose shape recurs: at least [`WEAK_MIN`] of one shape, numbered
/// mostly one after another (nine steps of ten; a volume may start the numbering over), as a
/// file writes all its headings the same way; prose that happens to look like one
/// (`他翻到第三章`) does not recur in sequence. A decorated line that is not taken is reported.
pub(super) fn accept_weak(
    found: &mut Vec<HeadingLine>,
    weak: Vec<WeakLine>,
    lines: &[&str],
    skipped: &mut Vec<Skipped>,
) {
    let mut numbers: HashMap<&str, Vec<u64>> = HashMap::new();
    for w in &weak {
        if let Some(n) = w.heading.found.first().and_then(|f| f.number) {
            numbers.entry(&w.shape).or_default().push(n);
        }
    }
    let in_sequence = |ns: &Vec<u64>| {
        let steps = ns
            .windows(2)
            .filter(|w| w[1] == w[0] + 1 || (w[1] <= 1 && w[0] > 1))
            .count();
        ns.len() >= WEAK_MIN && steps * 10 >= (ns.len() - 1) * 9
    };
    let taken: HashSet<String> = numbers
        .into_iter()
        .filter(|(_, ns)| in_sequence(ns))
        .map(|(shape, _)| shape.to_string())
        .collect();
    let mut confirmed = Vec::new();
    for w in weak {
        let opens = w.shape == super::volumes::OPENER && starts_over(found, w.heading.index);
        if opens || taken.contains(&w.shape) {
            confirmed.push(w.heading);
        } else if let Some(why) = w.unless {
            skipped.push(Skipped {
                line: w.heading.index + 1,
                text: auto::collapse_spaces(auto::trim_line(lines[w.heading.index])),
                why,
            });
        }
    }
    if confirmed.is_empty() {
        return;
    }
    let strong = std::mem::take(found);
    *found = merge(strong, confirmed);
}

/// Whether a volume opener at line `index` (see `super::volumes::opener`) stands where the chapter
/// numbering starts over: the heading line before it is a chapter numbered 2 or more, the one
/// after it chapter 1 (the opener repeated without its volume) or 2.
fn starts_over(found: &[HeadingLine], index: usize) -> bool {
    let number = |h: &HeadingLine| {
        h.found
            .last()
            .filter(|f| f.kind == HeadingKind::Chapter)
            .and_then(|f| f.number)
    };
    let at = found.partition_point(|h| h.index < index);
    let before = at.checked_sub(1).and_then(|k| number(&found[k]));
    let after = found.get(at).and_then(number);
    before.is_some_and(|n| n >= 2) && matches!(after, Some(1 | 2))
}

/// Two lists of heading lines in line order, merged in line order.
fn merge(a: Vec<HeadingLine>, b: Vec<HeadingLine>) -> Vec<HeadingLine> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.index <= y.index => a.next(),
            (Some(_), Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        };
        match next {
            Some(h) => out.push(h),
            None => return out,
        }
    }
}

/// A book's own table of contents, printed at its start (Project Gutenberg texts keep it:
/// `CHAPTER 1. Loomings.` … on lines of their own), is a run of headings with nothing under
/// them that starts over later with the same headings. Its lines are text, not headings: they
/// stay in the section before (the front matter), and the chapters they list are found where
/// they really start.
///
/// A run counts when it is at least [`CONTENTS_MIN`] heading lines long, every one but the last
/// with nothing under it but blank lines and a wrapped title, and the heading lines right after
/// it repeat its first [`CONTENTS_MIN`] titles.
pub(super) fn drop_contents_lists(
    found: &mut Vec<HeadingLine>,
    lines: &[&str],
    skipped: &mut Vec<Skipped>,
) {
    if found.len() < 2 * CONTENTS_MIN {
        return;
    }
    // A line holding a volume and a chapter is listed by its chapter (`第一回 …` in the list,
    // `第一卷：木兰歌 第一回 …` where the text starts).
    let titles: Vec<String> = found
        .iter()
        .map(|h| {
            let last = h.found.last().map(|f| f.title.to_lowercase());
            last.unwrap_or_default()
        })
        .collect();
    // For each heading line, the first one at or after it with text under it. A list entry
    // may wrap onto a second line (`CHAPTER 56. Of the Less Erroneous Pictures of Whales,
    // and the True` / `Pictures of Whaling Scenes.`): one short line is not text.
    let mut texted = vec![found.len(); found.len() + 1];
    for k in (0..found.len()).rev() {
        let end = found.get(k + 1).map_or(lines.len(), |next| next.index);
        let mut under = lines[found[k].index + 1..end]
            .iter()
            .map(|l| auto::trim_line(l))
            .filter(|l| !l.is_empty());
        let bare = match (under.next(), under.next()) {
            (None, _) => true,
            (Some(wrapped), None) => wrapped.chars().count() <= auto::MAX_HEADING_WIDTH,
            _ => false,
        };
        texted[k] = if bare { texted[k + 1] } else { k };
    }
    // Where each run of CONTENTS_MIN titles occurs, in order.
    let mut at: HashMap<&[String], Vec<usize>> = HashMap::new();
    for (k, window) in titles.windows(CONTENTS_MIN).enumerate() {
        at.entry(window).or_default().push(k);
    }
    let mut drop = vec![false; found.len()];
    let mut i = 0;
    while i + CONTENTS_MIN <= found.len() {
        // The run may end with one heading that has text under it.
        let longest = texted[i] + 1;
        // The first repetition far enough on, found by halving: a file of one title
        // repeated would make a walk from the start quadratic.
        let end = at.get(&titles[i..i + CONTENTS_MIN]).and_then(|starts| {
            let from = starts.partition_point(|&j| j < i + CONTENTS_MIN);
            starts.get(from).filter(|&&j| j <= longest)
        });
        match end {
            Some(&end) => {
                drop[i..end].fill(true);
                i = end;
            }
            None => i += 1,
        }
    }
    remove(found, &drop, lines, SkipReason::ContentsList, skipped);
}

/// A contents list whose entries are written in other numerals than the chapters (`第 一 回`
/// or `第001回` listed, `第一回` in the text), so that only the numbers tell it: a run of at
/// least [`CONTENTS_MIN`] heading lines with little under each (at most [`THIN_LINES`] lines
/// no longer than a heading: an entry's title on lines of its own), possibly ending with one entry that has text
/// under it (a foreword after the list), after which the headings of the list's kind start
/// over at or below its first number and go on for at least [`CONTENTS_MIN`] headings.
pub(super) fn drop_numbered_contents(
    found: &mut Vec<HeadingLine>,
    lines: &[&str],
    skipped: &mut Vec<Skipped>,
) {
    let n = found.len();
    if n < 2 * CONTENTS_MIN {
        return;
    }
    let thin: Vec<bool> = (0..n)
        .map(|k| {
            let mut text = under(found, k, lines)
                .iter()
                .map(|l| auto::trim_line(l))
                .filter(|l| !l.is_empty());
            text.by_ref()
                .take(THIN_LINES + 1)
                .enumerate()
                .all(|(i, l)| i < THIN_LINES && auto::short_enough(l))
        })
        .collect();
    let numbers: Vec<Option<(HeadingKind, u64)>> = found
        .iter()
        .map(|h| h.found.first().and_then(|f| Some((f.kind, f.number?))))
        .collect();
    // For each position and kind, the next numbered heading of that kind at or after it.
    let mut next = vec![[n; 2]; n + 1];
    for k in (0..n).rev() {
        next[k] = next[k + 1];
        if let Some((kind, _)) = numbers[k] {
            next[k][kind_slot(kind)] = k;
        }
    }
    let mut drop = vec![false; n];
    let mut i = 0;
    while i < n {
        if !thin[i] {
            i += 1;
            continue;
        }
        let j = (i..n).find(|&k| !thin[k]).unwrap_or(n);
        match list_end(i, j, &numbers, &next) {
            Some((start, end)) => {
                drop[start..end].fill(true);
                i = end;
            }
            None => i = j,
        }
    }
    remove(found, &drop, lines, SkipReason::ContentsList, skipped);
}

/// Index of a heading kind in the `next` table of [`drop_numbered_contents`].
fn kind_slot(kind: HeadingKind) -> usize {
    match kind {
        HeadingKind::Volume => 0,
        HeadingKind::Chapter => 1,
    }
}

/// Where the contents list made of the thin headings `i..j` starts (a volume heading before
/// a list of chapters is not in it) and ends (the list may take heading `j` too), or None
/// when the headings after it do not start over.
fn list_end(
    i: usize,
    j: usize,
    numbers: &[Option<(HeadingKind, u64)>],
    next: &[[usize; 2]],
) -> Option<(usize, usize)> {
    let n = numbers.len();
    // The list's kind is the one most of its entries have: a volume's own contents list
    // starts with the volume heading (`第二卷`, then `第七回`… listed).
    let listed_kind = |kind| {
        numbers[i..j]
            .iter()
            .flatten()
            .filter(|e| e.0 == kind)
            .count()
    };
    let kind = match listed_kind(HeadingKind::Chapter) >= listed_kind(HeadingKind::Volume) {
        true => HeadingKind::Chapter,
        false => HeadingKind::Volume,
    };
    let start = i + numbers[i..j]
        .iter()
        .position(|e| e.is_some_and(|e| e.0 == kind))?;
    let first = numbers[start]?.1;
    let i = start;
    let slot = kind_slot(kind);
    for end in [j, j + 1] {
        if end > n || end - i < CONTENTS_MIN {
            continue;
        }
        let listed = numbers[i..end].iter().flatten().count();
        // The chapters after the list: CONTENTS_MIN of its kind, the first starting over.
        let mut at = next[end][slot];
        let mut after = Vec::with_capacity(CONTENTS_MIN);
        while at < n && after.len() < CONTENTS_MIN {
            after.extend(numbers[at].map(|(_, number)| number));
            at = next[at + 1][slot];
        }
        let starts_over = after.first().is_some_and(|&restart| restart <= first);
        if listed >= CONTENTS_MIN && after.len() >= CONTENTS_MIN && starts_over {
            return Some((start, end));
        }
    }
    None
}

/// A table of contents that lists a book's volumes with their chapters under them as lines
/// that are not headings (`EPOCH THE FIRST, 1703.` / `CHAPTER I. The Widow and her Child  1`)
/// leaves volume headings with no chapter and no prose under them, which the same volumes
/// repeat later. Such a volume heading is text of the front matter.
pub(super) fn drop_listed_volumes(
    found: &mut Vec<HeadingLine>,
    lines: &[&str],
    skipped: &mut Vec<Skipped>,
) {
    // The volume a line opens with (alone, or before its first chapter).
    let volume = |h: &HeadingLine| match h.found.first() {
        Some(f) if f.kind == HeadingKind::Volume => f.number.map(|n| {
            // A Chinese list may write its volumes otherwise than the text (`卷一：木兰歌`
            // listed, `第一卷：木兰歌` in the text): the number tells them.
            let latin = f.title.starts_with(|c: char| c.is_ascii_alphabetic());
            let keyword = match latin {
                true => f.title.split(auto::is_space).next().unwrap_or_default(),
                false => "",
            };
            (keyword.to_lowercase(), n)
        }),
        _ => None,
    };
    let keys: Vec<Option<(String, u64)>> = found.iter().map(volume).collect();
    // Where each volume last appears: a later repeat is one lookup, not a walk.
    let mut last: HashMap<&(String, u64), usize> = HashMap::new();
    for (k, key) in keys.iter().enumerate() {
        if let Some(key) = key {
            last.insert(key, k);
        }
    }
    let listed: Vec<bool> = (0..found.len())
        .map(|k| {
            let Some(key) = keys[k].as_ref().filter(|_| found[k].found.len() == 1) else {
                return false;
            };
            let next = found.get(k + 1);
            let no_chapter = next.is_none_or(|_| keys[k + 1].is_some());
            let again = last.get(key).is_some_and(|&l| l > k);
            no_chapter
                && again
                && under(found, k, lines)
                    .iter()
                    .all(|l| auto::trim_line(l).chars().count() <= auto::MAX_HEADING_WIDTH)
        })
        .collect();
    remove(found, &listed, lines, SkipReason::ContentsList, skipped);
}

/// A heading repeated a few lines below itself (`下卷 第一一九回 中乡魁…`, a site's page
/// header, then `第一一九回 中乡魁…` again) is one heading. The lines between must be few,
/// short and not prose (no `。`): a chapter that really repeats a number keeps it, and the
/// numbering warning says so. The copy left out stays text (see [`repeat_to_drop`] for which).
pub(super) fn drop_repeated(
    found: &mut Vec<HeadingLine>,
    lines: &[&str],
    skipped: &mut Vec<Skipped>,
) {
    let mut drop = vec![false; found.len()];
    for k in 0..found.len().saturating_sub(1) {
        let text: Vec<&str> = under(found, k, lines)
            .iter()
            .map(|l| auto::trim_line(l))
            .filter(|l| !l.is_empty())
            .take(REPEAT_LINES + 1)
            .collect();
        let Some(second) = repeat_to_drop(&found[k], &found[k + 1], text.is_empty()) else {
            continue;
        };
        let chars: usize = text.iter().map(|l| l.chars().count()).sum();
        let prose = text.iter().any(|l| l.contains('。'));
        if text.len() <= REPEAT_LINES && chars <= REPEAT_CHARS && !prose {
            drop[k + usize::from(second)] = true;
        }
    }
    remove(found, &drop, lines, SkipReason::Repeated, skipped);
}

/// Whether heading lines `a` and `b` (next to each other) hold the same chapter, and if so,
/// whether the second copy is the one to leave out (else the first). They hold the same
/// chapter when their chapters have one unit and number and one title says all the other
/// says (letters compared, brackets and spaces not): `第五章 【很有“创意”的骗子】` then a bare
/// `第五章`. The copy kept is the one that says more: the line that also opens a volume
/// (`张居正3－金缕曲第 一 回 …`), else the longer title, else (the same title) the second,
/// where the text starts; but a title that holds a second heading (`第一章庶女代嫁 第二章中毒`,
/// one line for two chapters, each headed again below) is a list, and the repeat is kept.
fn repeat_to_drop(a: &HeadingLine, b: &HeadingLine, nothing_between: bool) -> Option<bool> {
    let (fa, fb) = (a.found.last()?, b.found.last()?);
    let number = fa.number?;
    let titled = auto::family(&fa.title).1 || auto::family(&fb.title).1;
    let same = titled
        && fa.kind == fb.kind
        && fb.number == Some(number)
        && (a.found.len() == 1 || b.found.len() == 1)
        && auto::family(&fa.title).0.unit == auto::family(&fb.title).0.unit;
    if !same {
        return None;
    }
    if a.found.len() != b.found.len() {
        return Some(a.found.len() > b.found.len());
    }
    let (la, lb) = (core_letters(&fa.title), core_letters(&fb.title));
    if !la.starts_with(&lb) && !lb.starts_with(&la) {
        // Two titles for one number with nothing at all between: the first heads nothing.
        return nothing_between.then_some(false);
    }
    if holds_second_heading(&fa.title) {
        return Some(false);
    }
    Some(la.len() > lb.len())
}

/// A title's letters and digits in lower case, without a part mark in brackets at its end
/// (`（下）`, `（全）`), to compare two copies of one heading.
fn core_letters(title: &str) -> String {
    let core = match title.trim_end().strip_suffix(['）', ')']) {
        Some(open) => open.rfind(['（', '(']).map_or(title, |at| &open[..at]),
        None => title,
    };
    core.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a chapter title holds a second chapter heading after its own (`第一章庶女代嫁
/// 第二章中毒`).
fn holds_second_heading(title: &str) -> bool {
    title
        .char_indices()
        .skip(1)
        .filter(|&(_, c)| c == '第')
        .any(|(i, _)| {
            auto::detect(&title[i..])
                .iter()
                .any(|f| f.kind == HeadingKind::Chapter && f.number.is_some())
        })
}

/// Chapter units by rank, to tell the book's chapters from a second family: a site's page
/// markers and sections (节) rank below chapters (章, 回).
fn unit_rank(unit: char) -> u8 {
    match unit {
        '章' | '回' | 'E' => 3,
        '話' | '话' | '集' | '幕' => 2,
        '节' | '節' => 1,
        _ => 0,
    }
}

/// A site's page markers (`第1节`, `第2节`… flush left, between and inside the real `第一回`
/// chapters) are a second family of chapter headings, written another way (another unit or
/// other digits), interleaved with the book's main family, and numbered on their own or
/// starting over. They are text: each marker is left in the chapter it falls in, listed in
/// `skipped`, and one warning counts them.
///
/// The main family is the one whose headings mostly have titles, then the higher unit, then
/// the larger. Another family is markers when it is interleaved with the main one (it changes
/// places with it at least three times, and at least once per four of the smaller family's
/// headings: not a block of chapters written another way) and merging the two breaks the
/// main family's sequence (one sequence written in two scripts, `第一章`, `第2章`, `第三章`,
/// is kept).
pub(super) fn drop_page_markers(
    found: &mut Vec<HeadingLine>,
    lines: &[&str],
    skipped: &mut Vec<Skipped>,
) -> Option<SplitWarning> {
    let families: Vec<Option<(Family, bool, u64)>> = found
        .iter()
        .map(|h| match h.found.as_slice() {
            [f] if f.kind == HeadingKind::Chapter => {
                let (family, titled) = auto::family(&f.title);
                f.number.map(|n| (family, titled, n))
            }
            _ => None,
        })
        .collect();
    let mut sizes: HashMap<Family, (usize, usize)> = HashMap::new();
    for (family, titled, _) in families.iter().flatten() {
        let size = sizes.entry(*family).or_default();
        size.0 += 1;
        size.1 += usize::from(*titled);
    }
    let main = *sizes
        .iter()
        .max_by_key(|(f, (size, titled))| {
            (
                titled * 2 >= *size,
                unit_rank(f.unit),
                *size,
                f.unit,
                f.arabic,
            )
        })?
        .0;
    let markers: Vec<Family> = sizes
        .iter()
        .filter(|(f, (size, _))| **f != main && *size >= 2)
        .map(|(f, _)| *f)
        .filter(|&f| interleaved_apart(&families, main, f))
        .collect();
    if markers.is_empty() {
        return None;
    }
    let drop: Vec<bool> = families
        .iter()
        .map(|f| f.is_some_and(|(family, _, _)| markers.contains(&family)))
        .collect();
    let first = found.iter().zip(&drop).find(|(_, d)| **d)?.0;
    let (line, example) = (first.index + 1, first.found[0].title.clone());
    let count = drop.iter().filter(|d| **d).count();
    remove(found, &drop, lines, SkipReason::PageMarker, skipped);
    Some(SplitWarning {
        line,
        message: format!(
            "{count} heading-like line(s) such as `{example}` are a second numbering mixed \
             with the chapters (a site's page markers): kept as text, not chapters"
        ),
        kind: SplitWarningKind::PageMarkers,
    })
}

/// Whether family `other` is interleaved with `main` and numbered apart from it (see
/// [`drop_page_markers`]).
fn interleaved_apart(
    families: &[Option<(Family, bool, u64)>],
    main: Family,
    other: Family,
) -> bool {
    let seq: Vec<(bool, u64)> = families
        .iter()
        .flatten()
        .filter(|(f, _, _)| *f == main || *f == other)
        .map(|(f, _, n)| (*f == main, *n))
        .collect();
    let switches = seq.windows(2).filter(|w| w[0].0 != w[1].0).count();
    let (mains, others) = (
        seq.iter().filter(|s| s.0).count(),
        seq.iter().filter(|s| !s.0).count(),
    );
    if switches < 3 || switches * 4 < mains.min(others) {
        return false;
    }
    // Steps that continue a sequence, in the main family alone (where a volume may start it
    // over) and in the two merged.
    let main_only: Vec<u64> = seq.iter().filter(|s| s.0).map(|s| s.1).collect();
    let main_steps = main_only
        .windows(2)
        .filter(|w| w[1] == w[0] + 1 || w[1] <= 1)
        .count();
    let merged_steps = seq.windows(2).filter(|w| w[1].1 == w[0].1 + 1).count();
    let ratio = |steps: usize, len: usize| steps as f64 / len.saturating_sub(1).max(1) as f64;
    ratio(merged_steps, seq.len()) + 0.25 < ratio(main_steps, main_only.len())
}

/// A book whose only headings are volumes or stories (`第一卷　俞伯牙摔琴謝知音` … `第四十卷`,
/// `卷一` `卷二` `卷三`, with no numbered chapter under them) has them as its chapters: one
/// chapter per volume, rather than volumes without chapters.
pub(super) fn volumes_as_chapters(found: &mut [HeadingLine]) {
    let chapters = found
        .iter()
        .flat_map(|h| &h.found)
        .any(|f| f.kind == HeadingKind::Chapter && f.number.is_some());
    let volumes = found
        .iter()
        .filter(|h| h.found.iter().any(|f| f.kind == HeadingKind::Volume))
        .count();
    if chapters || volumes < 2 {
        return;
    }
    for f in found.iter_mut().flat_map(|h| &mut h.found) {
        f.kind = HeadingKind::Chapter;
    }
}
