//! `check`'s review of the book's outline ([`crate::convert::outline`]): what in the volumes
//! and chapters the build is about to make looks wrong to a reader, each finding at its file
//! and line.
//!
//! - a line that looks like a chapter heading but was not taken as one (a contents-list
//!   entry, a repeated heading, decorated `===第一章===`, `【第一章】`, `[0001] 标题`, a
//!   number that cannot be read), as the split reported it ([`Skipped`]); page markers are
//!   counted by the split's own `page-markers` warning;
//! - a heading taken through a typo in its number (`第十—回` read as 11): the source should
//!   be fixed;
//! - a chapter far longer than the others ([`LONG_FACTOR`] times the median and more than
//!   [`LONG_CHARS`] characters): often two or more chapters whose headings were missed;
//! - the headings of one file following two numbering sequences that interleave (a site's
//!   page markers `第1节` among the book's `第一回`).
//!
//! Empty chapters are reported by the conversion itself (`empty-chapter`), for `build` too.
//! These rules read only the outline and what the split reported, never detect headings
//! again: what was taken, and what was left out, is what the conversion's one detection
//! decided.

use std::collections::HashMap;
use std::path::Path;

use super::{CheckReport, shorten};
use crate::convert::outline::{EntryKind, Outline};
use crate::convert::split::{Heading, SkipReason, Skipped};
use crate::diagnostic::{Code, Diagnostic};

/// A chapter is far longer than the others above this many times the median chapter...
pub const LONG_FACTOR: usize = 8;
/// ... and above this many characters (white space not counted).
pub const LONG_CHARS: usize = 50_000;
/// The median needs this many chapters to mean something.
const LONG_MIN_CHAPTERS: usize = 4;
/// Headings not taken, listed per file (the rest are counted).
const UNTAKEN_SHOWN: usize = 10;
/// Longest label a title may keep before its `第` (`警世通言第一卷`, `《陆小凤传奇之金鹏王朝》
/// 第一回`), in characters.
const LABEL_CHARS: usize = 16;
/// Two sequences interleave when the headings switch from one to the other this many times.
const INTERLEAVE_SWITCHES: usize = 4;
/// ... and each has at least this many headings.
const INTERLEAVE_MIN: usize = 3;

/// Chapters far longer than the others, and files whose headings interleave two numbering
/// sequences.
pub(super) fn review(outline: &Outline, report: &mut CheckReport) {
    long_chapters(outline, report);
    interleaved(outline, report);
}

fn long_chapters(outline: &Outline, report: &mut CheckReport) {
    let chapters: Vec<_> = (outline.iter())
        .filter(|e| e.kind == EntryKind::Chapter)
        .filter_map(|e| Some((e, e.chars?)))
        .collect();
    let mut sizes: Vec<usize> = chapters
        .iter()
        .map(|&(_, n)| n)
        .filter(|&n| n > 0)
        .collect();
    if sizes.len() < LONG_MIN_CHAPTERS {
        return;
    }
    sizes.sort_unstable();
    let median = sizes[sizes.len() / 2];
    let limit = median.saturating_mul(LONG_FACTOR).max(LONG_CHARS);
    for (e, n) in chapters.into_iter().filter(|&(_, n)| n > limit) {
        let message = format!(
            "chapter \"{}\" has {n} characters, {}x the median chapter ({median})",
            shorten(&e.title, 40),
            n / median.max(1)
        );
        report.push(
            Diagnostic::warning(Code::LongChapter, message)
                .at(&e.path)
                .line(e.line)
                .hint("look inside it for chapter headings the build did not take (decorated, or with a typo in the number)"),
        );
    }
}

/// The sequence a heading's number belongs to: `第1节` and `第一回` are two, `第一章` and
/// `第二章` one, `Chapter 3` another; None for a heading without a number (`序章`).
fn family(title: &str) -> Option<String> {
    let t = title.trim();
    // A label the title keeps before its heading (`上卷 第一回`, `《书名》 第一回`).
    let t = match t.find('第') {
        Some(i) if i > 0 && t[..i].chars().count() <= LABEL_CHARS => {
            let rest = &t[i + '第'.len_utf8()..];
            let unit = rest.chars().find(|&c| !is_numeral(c));
            match unit {
                Some(u) if "章回节節話话集幕卷部册冊篇季".contains(u) => &t[i..],
                _ => t,
            }
        }
        _ => t,
    };
    if let Some(rest) = t.strip_prefix('第') {
        let numeral: String = rest.chars().take_while(|&c| is_numeral(c)).collect();
        let unit = rest[numeral.len()..].chars().next()?;
        if numeral.is_empty() || unit.is_whitespace() {
            return None;
        }
        let digits = numeral
            .chars()
            .any(|c| c.is_ascii_digit() || is_wide_digit(c));
        return Some(format!("第{}{unit}", if digits { "1" } else { "一" }));
    }
    let word: String = t.chars().take_while(char::is_ascii_alphabetic).collect();
    let rest = t[word.len()..].trim_start();
    rest.starts_with(|c: char| c.is_ascii_digit() || is_wide_digit(c))
        .then(|| format!("{} 1", word.to_ascii_lowercase()))
}

fn is_wide_digit(c: char) -> bool {
    ('０'..='９').contains(&c)
}

/// Digits and the characters of Chinese numerals.
fn is_numeral(c: char) -> bool {
    c.is_ascii_digit()
        || is_wide_digit(c)
        || "〇零一二三四五六七八九十百千万两壹贰叁肆伍陆柒捌玖拾佰仟".contains(c)
}

/// A numbered heading: its sequence ([`family`]), title and line.
type Numbered<'a> = (String, &'a str, Option<usize>);

/// Per file, headings of two numbering sequences that take turns.
fn interleaved(outline: &Outline, report: &mut CheckReport) {
    let mut by_file: HashMap<&Path, Vec<Numbered<'_>>> = HashMap::new();
    let mut files: Vec<&Path> = Vec::new();
    for e in outline.iter().filter(|e| e.kind == EntryKind::Chapter) {
        let Some(f) = family(&e.title) else {
            continue;
        };
        let list = by_file.entry(e.path.as_path()).or_insert_with(|| {
            files.push(e.path.as_path());
            Vec::new()
        });
        list.push((f, e.title.as_str(), e.line));
    }
    for path in files {
        if let Some(d) = interleaving(path, &by_file[path]) {
            report.push(d);
        }
    }
}

/// The finding for one file's numbered headings (family, title, line), when its two biggest
/// sequences interleave: at the first heading of the smaller that comes after one of the
/// bigger.
fn interleaving(path: &Path, headings: &[Numbered<'_>]) -> Option<Diagnostic> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for (f, ..) in headings {
        match counts.iter_mut().find(|(g, _)| *g == f.as_str()) {
            Some((_, n)) => *n += 1,
            None => counts.push((f.as_str(), 1)),
        }
    }
    counts.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    let (&(main, main_n), &(other, other_n)) = (counts.first()?, counts.get(1)?);
    if other_n < INTERLEAVE_MIN {
        return None;
    }
    let two: Vec<&Numbered<'_>> = headings
        .iter()
        .filter(|(f, ..)| f == main || f == other)
        .collect();
    let switches = two.windows(2).filter(|w| w[0].0 != w[1].0).count();
    if switches < INTERLEAVE_SWITCHES {
        return None;
    }
    let first = two.windows(2).find(|w| w[0].0 == main && w[1].0 == other)?[1];
    let main_title = two.iter().find(|h| h.0 == main)?.1;
    let message = format!(
        "the headings follow two numbering sequences that take turns: {other_n} like \"{}\" among {main_n} like \"{}\"; each was made a chapter",
        shorten(first.1, 30),
        shorten(main_title, 30)
    );
    Some(
        Diagnostic::warning(Code::InterleavedNumbering, message)
            .at(path)
            .line(first.2)
            .hint("if one sequence is a site's page markers, remove those lines with a cleanup rule, or give `split` a regex that matches the real headings only"),
    )
}

/// The heading-like lines the split of a text file left out ([`Skipped`]), each at its line
/// with the reason in words: the first [`UNTAKEN_SHOWN`], then a count by reason. A site's
/// page markers are left out of the list: the split's `page-markers` warning counts them; the
/// page headings of chapters cut into pages are counted in one warning.
pub(super) fn untaken_headings(path: &Path, skipped: &[Skipped], report: &mut CheckReport) {
    let listed: Vec<&Skipped> = (skipped.iter())
        .filter(|s| !matches!(s.why, SkipReason::PageMarker | SkipReason::PagePiece))
        .collect();
    let pages: Vec<&Skipped> = (skipped.iter())
        .filter(|s| s.why == SkipReason::PagePiece)
        .collect();
    if let Some(first) = pages.first() {
        let message = format!(
            "{} heading(s) such as \"{}\" head later pages of a chapter a site cut into pages: joined into their chapters, the lines kept as text",
            pages.len(),
            shorten(&first.text, 40)
        );
        report.push(
            Diagnostic::warning(Code::HeadingNotTaken, message)
                .at(path)
                .line(Some(first.line))
                .hint(reason(SkipReason::PagePiece).1),
        );
    }
    for s in listed.iter().take(UNTAKEN_SHOWN) {
        let (why, hint) = reason(s.why);
        let message = format!(
            "\"{}\" looks like a heading but was not taken as one: {why}",
            shorten(&s.text, 40)
        );
        report.push(
            Diagnostic::warning(Code::HeadingNotTaken, message)
                .at(path)
                .line(Some(s.line))
                .column(1)
                .hint(hint),
        );
    }
    let rest = listed.get(UNTAKEN_SHOWN..).unwrap_or_default();
    if rest.is_empty() {
        return;
    }
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in rest {
        let name = reason_name(s.why);
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, k)) => *k += 1,
            None => counts.push((name, 1)),
        }
    }
    let by: Vec<String> = counts.iter().map(|(n, k)| format!("{k} {n}")).collect();
    let message = format!(
        "{} more lines look like headings but were not taken as ones ({})",
        rest.len(),
        by.join(", ")
    );
    report.push(Diagnostic::warning(Code::HeadingNotTaken, message).at(path));
}

/// Why a line was left out, in words, and what the author can do.
fn reason(why: SkipReason) -> (&'static str, &'static str) {
    match why {
        SkipReason::ContentsList => (
            "it is an entry of a contents list before the chapters, kept as front matter",
            "nothing to do if it is the book's contents list; the table of contents lists the chapters",
        ),
        SkipReason::PageMarker => (
            "it is a site's page marker among the chapters, kept as text",
            "remove page markers with a cleanup rule",
        ),
        SkipReason::Repeated => (
            "it repeats the heading a few lines below, which starts the chapter; it stays text",
            "remove the repeated line if it is a site's page header",
        ),
        SkipReason::PagePiece => (
            "it heads a later page of the chapter before it (a site cut the chapter into pages), so it stays text in that chapter",
            "remove the page headings with a cleanup rule if you do not want them in the text",
        ),
        SkipReason::Decorated => (
            "it is set in decoration, so it stays text in the chapter before it",
            "if it is a heading, write it as the other headings are written, or give `split` a regex that matches it",
        ),
        SkipReason::UnreadableNumber => (
            "its number cannot be read, so it stays text in the chapter before it",
            "correct the number in the source",
        ),
        SkipReason::PatternMissed => (
            "it is written like the headings `split` takes, but the pattern does not match it, so it stays text in the chapter before it",
            "if it is a heading, widen the `split` pattern to match it, or correct the line",
        ),
    }
}

/// A short name for a reason, for the count of the lines not listed.
fn reason_name(why: SkipReason) -> &'static str {
    match why {
        SkipReason::ContentsList => "contents-list entries",
        SkipReason::PageMarker => "page markers",
        SkipReason::Repeated => "repeated headings",
        SkipReason::PagePiece => "page headings of a chapter",
        SkipReason::Decorated => "decorated",
        SkipReason::UnreadableNumber => "unreadable numbers",
        SkipReason::PatternMissed => "missed by the pattern",
    }
}

/// The headings taken through a typo in their number ([`Heading::repaired`]), each at its line
/// with the number it was read as.
pub(super) fn repaired_headings(path: &Path, repaired: &[Heading], report: &mut CheckReport) {
    for h in repaired {
        let read = h
            .number
            .map_or_else(|| "a number".to_string(), |n| n.to_string());
        let message = format!(
            "heading \"{}\" has a typo in its number (a dash or other character for a digit); it was read as {read}",
            shorten(&h.title, 40)
        );
        report.push(
            Diagnostic::warning(Code::HeadingRepaired, message)
                .at(path)
                .line(Some(h.line))
                .column(1)
                .hint(format!(
                    "correct the number in the source so that it reads {read}"
                )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::outline::Entry;

    fn chapter(title: &str, line: usize, chars: usize) -> Entry {
        Entry {
            kind: EntryKind::Chapter,
            title: title.into(),
            path: "a.txt".into(),
            line: Some(line),
            chars: Some(chars),
            implied: false,
            children: Vec::new(),
        }
    }

    fn reviewed(entries: Vec<Entry>) -> Vec<(Code, Option<usize>)> {
        let outline = Outline {
            entries,
            ..Outline::default()
        };
        let mut report = CheckReport::default();
        review(&outline, &mut report);
        report.findings.iter().map(|f| (f.code, f.line)).collect()
    }

    #[test]
    fn page_markers_among_chapters_are_two_sequences_taking_turns() {
        let numerals = ["一", "二", "三", "四", "五"];
        let mut entries = Vec::new();
        for (i, n) in numerals.iter().enumerate() {
            entries.push(chapter(&format!("第{n}回 题"), 100 * i + 1, 3000));
            entries.push(chapter(&format!("第{}节", i + 1), 100 * i + 50, 3000));
        }
        assert_eq!(reviewed(entries), [(Code::InterleavedNumbering, Some(50))]);
        // One sequence after the other (a book that changed its numerals) is not.
        let mut entries = Vec::new();
        for (i, n) in numerals.iter().enumerate() {
            entries.push(chapter(&format!("第{n}章"), i + 1, 3000));
        }
        for i in 6..=10 {
            entries.push(chapter(&format!("第{i}章"), i + 1, 3000));
        }
        assert_eq!(reviewed(entries), []);
    }

    #[test]
    fn a_chapter_far_longer_than_the_median_is_reported_at_its_line() {
        let mut entries: Vec<Entry> = (1..=6).map(|i| chapter("第一章", i, 5000)).collect();
        entries.push(chapter("第七章", 7, 60_000));
        entries.push(chapter("第八章", 8, 45_000));
        assert_eq!(reviewed(entries), [(Code::LongChapter, Some(7))]);
        // Long everywhere: nothing stands out.
        let entries: Vec<Entry> = (1..=6).map(|i| chapter("第一章", i, 90_000)).collect();
        assert_eq!(reviewed(entries), []);
    }

    #[test]
    fn lines_the_split_left_out_are_listed_up_to_the_cap_then_counted_by_reason() {
        let skipped = |line, why| Skipped {
            line,
            text: "第一回 甲".into(),
            why,
        };
        let mut list: Vec<Skipped> = (1..=12)
            .map(|i| skipped(i, SkipReason::ContentsList))
            .collect();
        list.push(skipped(20, SkipReason::PageMarker));
        list.push(skipped(30, SkipReason::Decorated));
        let mut report = CheckReport::default();
        untaken_headings(Path::new("a.txt"), &list, &mut report);
        let lines: Vec<_> = report.findings.iter().map(|f| f.line).collect();
        let mut want: Vec<_> = (1..=10).map(Some).collect();
        want.push(None);
        assert_eq!(lines, want);
        let last = &report.findings[10].message;
        assert!(last.contains("3 more") && last.contains("2 contents-list entries, 1 decorated"));
    }

    #[test]
    fn heading_families_tell_page_markers_from_chapters() {
        assert_eq!(family("第1节").as_deref(), Some("第1节"));
        assert_eq!(family("第12节 xx").as_deref(), Some("第1节"));
        assert_eq!(family("第一百回 xx").as_deref(), Some("第一回"));
        assert_eq!(family("Chapter 12").as_deref(), Some("chapter 1"));
        assert_eq!(family("序章"), None);
        assert_eq!(family("上卷 第十二回 xx").as_deref(), Some("第一回"));
        assert_eq!(
            family("《陆小凤传奇之金鹏王朝》 第一回 有四条眉毛的人").as_deref(),
            Some("第一回")
        );
        assert_eq!(family("《陆小凤传奇》 楔子 熊姥姥的糖炒栗子"), None);
        assert_eq!(family("楔子 第一个人"), None);
    }
}
