//! `check`'s review of the book's outline ([`crate::convert::outline`]): what in the volumes
//! and chapters the build is about to make looks wrong to a reader, each finding at its file
//! and line.
//!
//! - a line that looks like a chapter heading but was not taken as one (decorated
//!   `===第一章===`, `【第一章】`, a number in brackets `[0001] 标题`, a stray character inside
//!   the numeral `第十—回`): it stays a paragraph of the chapter before it;
//! - a chapter far longer than the others ([`LONG_FACTOR`] times the median and more than
//!   [`LONG_CHARS`] characters): often two or more chapters whose headings were missed;
//! - the headings of one file following two numbering sequences that interleave (a site's
//!   page markers `第1节` among the book's `第一回`).
//!
//! Empty chapters are reported by the conversion itself (`empty-chapter`), for `build` too.
//! These rules read only the outline and the decoded text, never detect headings again: what
//! was taken is what the conversion took.

use std::collections::HashMap;
use std::path::Path;

use super::{CheckReport, shorten};
use crate::convert::outline::{EntryKind, Outline};
use crate::diagnostic::{Code, Diagnostic};

/// A chapter is far longer than the others above this many times the median chapter...
pub const LONG_FACTOR: usize = 8;
/// ... and above this many characters (white space not counted).
pub const LONG_CHARS: usize = 50_000;
/// The median needs this many chapters to mean something.
const LONG_MIN_CHAPTERS: usize = 4;
/// Headings not taken, listed per file (the rest are counted).
const UNTAKEN_SHOWN: usize = 10;
/// A heading line is at most this many characters long.
const HEADING_MAX_CHARS: usize = 40;
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

/// Lines of a split text file that look like chapter headings but were not taken as headings
/// (`taken`: the lines where the conversion's entries start).
pub(super) fn untaken_headings(
    path: &Path,
    text: &str,
    taken: &[Option<usize>],
    report: &mut CheckReport,
) {
    let taken: std::collections::HashSet<usize> = taken.iter().flatten().copied().collect();
    let mut found = 0;
    for (i, line) in text.split('\n').enumerate() {
        let Some(why) = heading_like(line).filter(|_| !taken.contains(&(i + 1))) else {
            continue;
        };
        found += 1;
        if found > UNTAKEN_SHOWN {
            continue;
        }
        let message = format!(
            "this line looks like a chapter heading ({why}) but was not taken as one; it stays text in the chapter before it"
        );
        report.push(
            Diagnostic::warning(Code::HeadingNotTaken, message)
                .at(path)
                .line(Some(i + 1))
                .column(1)
                .hint("write it as the other headings are written, or give `split` a regex that matches it"),
        );
    }
    if found > UNTAKEN_SHOWN {
        let message = format!(
            "{} more lines look like chapter headings but were not taken as ones",
            found - UNTAKEN_SHOWN
        );
        report.push(Diagnostic::warning(Code::HeadingNotTaken, message).at(path));
    }
}

/// Characters written around a heading to make it stand out.
const DECORATION: &[char] = &[
    '=', '＝', '-', '－', '—', '_', '*', '＊', '#', '＃', '~', '～', '【', '】', '[', ']', '〖',
    '〗', '『', '』', '「', '」', '《', '》', '<', '>', '〈', '〉', '(', ')', '（', '）', '·', '•',
    '…', '☆', '★', '◆', '◇', '○', '●', '■', '□', '◎', ' ', '\u{3000}', '\t',
];

/// Characters typed inside a numeral by mistake: dashes for `一`, letters for `〇`.
const NUMERAL_TYPOS: &[char] = &[
    '—', '－', '-', '―', '‐', '‑', '‒', '–', 'ー', '一', 'O', 'o', 'Ｏ', 'ｏ', 'l', 'I', '丨',
];

/// Units that follow the numeral of a chapter or volume heading.
const UNITS: &str = "章回节節卷集部篇";

/// Why `line` looks like a chapter heading the built-in rules pass over; None when it does
/// not.
fn heading_like(line: &str) -> Option<&'static str> {
    let t = line.trim_matches(|c: char| c.is_whitespace());
    if t.is_empty()
        || t.chars().count() > HEADING_MAX_CHARS
        || t.ends_with(['。', '！', '？', '；', '，', '、', '.', ',', '!', '?', ';'])
    {
        return None;
    }
    if bracketed_number(t) {
        return Some("a number in brackets");
    }
    // `◆ 《书名》 第一回 题 ◆`: the book's name before a decorated heading is decoration too.
    let framed = t.trim_matches(|c: char| DECORATION.contains(&c) && !"《》".contains(c));
    let core = match framed.strip_prefix('《').and_then(|r| r.split_once('》')) {
        Some((_, rest)) if framed.len() != t.len() => rest.trim_matches(DECORATION),
        _ => t.trim_matches(DECORATION),
    };
    if core.len() != t.len() && numbered_heading(core).is_some_and(|typo| !typo) {
        return Some("decorated");
    }
    if numbered_heading(core) == Some(true) {
        return Some("a stray character inside its number");
    }
    None
}

/// `[0001] 标题`, `【12】标题`: a number alone in brackets, then a title.
fn bracketed_number(t: &str) -> bool {
    let Some(open) = t.chars().next().filter(|c| "[【〔(（〖".contains(*c)) else {
        return false;
    };
    let rest = &t[open.len_utf8()..];
    let digits = rest
        .chars()
        .take_while(|&c| c.is_ascii_digit() || is_wide_digit(c))
        .count();
    let after = rest.chars().skip(digits).collect::<String>();
    let title = after.trim_start_matches(|c: char| "]】〕)）〗".contains(c));
    // `(1)` and `[2]` also number the items of a list: a heading's number is padded
    // (`[0001]`) or set in lenticular brackets.
    let heading_number = digits >= 3 || "【〖".contains(open);
    heading_number && title.len() < after.len() && !title.trim().is_empty()
}

/// Some when `core` starts `第`, a numeral and a unit (`第十二章`), followed by a title or
/// nothing, not by `完`/`终` (`第一章完` closes a chapter): Some(true) when the numeral holds
/// a stray character (`第十—回`, `第—百回`), Some(false) when it is clean.
fn numbered_heading(core: &str) -> Option<bool> {
    let rest = core.strip_prefix('第')?;
    let mut typo = false;
    let mut numeral = 0;
    let mut chars = rest.char_indices();
    let unit_at = loop {
        let (i, c) = chars.next()?;
        if UNITS.contains(c) && numeral > 0 {
            break i + c.len_utf8();
        }
        if is_numeral(c) {
            numeral += 1;
        } else if NUMERAL_TYPOS.contains(&c) {
            typo = true;
        } else {
            return None;
        }
        if numeral > 12 {
            return None;
        }
    };
    let title = rest[unit_at..].trim_matches(DECORATION);
    if title.starts_with(['完', '终', '終']) {
        return None;
    }
    // A dash between numeral characters only: `第十—回`, not `第十回—风起`.
    Some(typo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::outline::Entry;

    #[test]
    fn decorated_bracketed_and_mistyped_headings_are_heading_like() {
        for (line, why) in [
            ("===第一章===", "decorated"),
            ("【第一章】", "decorated"),
            ("【第一章 风起】", "decorated"),
            ("  ★第十二回 大闹天宫★", "decorated"),
            (
                "  ◆ 《陆小凤传奇之金鹏王朝》 第一回　有四条眉毛的人 ◆",
                "decorated",
            ),
            ("[0001] 风起云涌", "a number in brackets"),
            ("【12】标题", "a number in brackets"),
            ("第十—回 某某", "a stray character inside its number"),
            ("第—百回", "a stray character inside its number"),
        ] {
            assert_eq!(heading_like(line), Some(why), "{line}");
        }
    }

    #[test]
    fn prose_and_chapter_ends_are_not_heading_like() {
        for line in [
            "第一章 风起",
            "他翻到第三章，看了很久。",
            "（第一章完）",
            "===第一卷 终===",
            "==========",
            "[注释]",
            "(1) 首先看这里",
            "第一次见面",
            "（本章完）",
            "第十回—风起",
            "《三国演义》第一回",
        ] {
            assert_eq!(heading_like(line), None, "{line}");
        }
    }

    fn chapter(title: &str, line: usize, chars: usize) -> Entry {
        Entry {
            kind: EntryKind::Chapter,
            title: title.into(),
            path: "a.txt".into(),
            line: Some(line),
            chars: Some(chars),
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
    fn heading_families_tell_page_markers_from_chapters() {
        assert_eq!(family("第1节").as_deref(), Some("第1节"));
        assert_eq!(family("第12节 xx").as_deref(), Some("第1节"));
        assert_eq!(family("第一百回 xx").as_deref(), Some("第一回"));
        assert_eq!(family("Chapter 12").as_deref(), Some("chapter 1"));
        assert_eq!(family("序章"), None);
    }
}
