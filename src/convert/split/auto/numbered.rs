//! Sure headings: numbered (`第一章`, `卷三`, `Chapter XII`, `Part Two`), a volume and a
//! chapter on one line, and the unnumbered sections named by a keyword (`序章`, `楔子`,
//! `Prologue`).
//!
//! Apart from the entry point because these are the rules of the words themselves (units,
//! keywords, English numbers and title case); the entry point only orders them.

use super::{
    Found, MAX_KEYWORD_TITLE_WIDTH, accept_rest, collapse_spaces, is_separator, is_space,
    split_title, title_reads_as_title, width,
};
use crate::convert::split::HeadingKind;
use crate::convert::split::numerals::{
    Readings, english_ones, english_tens, is_numeral_char, is_numeral_like, leading_number,
    parse_english_number, parse_english_ordinal, parse_roman,
};

/// `第` + number + unit at the start of `text`.
pub(super) struct DiNumber<'a> {
    /// The unit after the number (`章`, `回`, `卷`).
    pub(super) unit: char,
    /// The number, with its other reading if it has one.
    pub(super) number: Readings,
    /// The number was read through a typo (`第十—回`).
    pub(super) repaired: bool,
    /// The text after the unit.
    pub(super) rest: &'a str,
}

/// The number after `第`, which some downloads space out (`第二 十 回`, `第 一 百 回`): its
/// readings, whether a typo was read, and the bytes it takes in `text`.
pub(super) fn spaced_number(text: &str) -> Option<(Readings, bool, usize)> {
    let (readings, repaired, end) = leading_number(text)?;
    let tail = text.get(end..)?;
    if !tail
        .trim_start_matches(is_space)
        .starts_with(is_numeral_like)
        || !tail.starts_with(is_space)
    {
        return Some((readings, repaired, end));
    }
    let mut joined = String::new();
    let mut rest = text;
    let taken = loop {
        let run = rest
            .find(|c: char| !is_numeral_like(c))
            .unwrap_or(rest.len());
        joined.push_str(rest.get(..run)?);
        let after = rest.get(run..)?.trim_start_matches(is_space);
        if run == 0 || !after.starts_with(is_numeral_like) {
            break text.len() - rest.len() + run;
        }
        rest = after;
    };
    let (readings, repaired, used) = leading_number(&joined)?;
    (used == joined.len()).then_some((readings, repaired, taken))
}

/// `第` + number + unit at the start of `text`, the number read through the typos of
/// [`leading_number`].
pub(super) fn di_number_unit(text: &str) -> Option<DiNumber<'_>> {
    let rest = text.strip_prefix('第')?.trim_start_matches(is_space);
    let (number, repaired, end) = spaced_number(rest)?;
    let after = rest.get(end..)?.trim_start_matches(is_space);
    let unit = after.chars().next()?;
    Some(DiNumber {
        unit,
        number,
        repaired,
        rest: after.get(unit.len_utf8()..)?,
    })
}

pub(super) fn is_chapter_unit(c: char) -> bool {
    matches!(c, '章' | '回' | '节' | '節' | '話' | '话' | '集' | '幕')
}

pub(super) fn is_volume_unit(c: char) -> bool {
    matches!(c, '卷' | '部' | '册' | '冊' | '篇' | '季')
}

/// Units that are never measure words, so a title may be glued on.
pub(super) fn allows_glued_title(unit: char) -> bool {
    matches!(unit, '章' | '回' | '卷')
}

/// An English keyword followed by white space and a number: the number and the text after it.
pub(super) fn english_numbered<'a>(text: &'a str, keyword: &str) -> Option<(u64, &'a str)> {
    let head = text.get(..keyword.len())?;
    if !head.eq_ignore_ascii_case(keyword) {
        return None;
    }
    let after = text.get(keyword.len()..)?;
    let rest = after.trim_start_matches(is_space);
    if rest.len() == after.len() {
        return None;
    }
    // `Book the First`, `EPOCH THE SECOND`: the ordinal is the number.
    let rest = match rest.get(..4) {
        Some(the) if the.eq_ignore_ascii_case("the ") => rest[4..].trim_start_matches(is_space),
        _ => rest,
    };
    let number_of = |token: &str| {
        token
            .parse::<u64>()
            .ok()
            .filter(|_| token.bytes().all(|b| b.is_ascii_digit()))
            .or_else(|| parse_roman(token))
            .or_else(|| parse_english_number(token))
            .or_else(|| parse_english_ordinal(token))
    };
    // `Twenty-One` keeps its hyphen; otherwise a hyphen ends the number (`Chapter 3-Storm`).
    let token_end = |hyphen_ends: bool| {
        rest.find(|c: char| (is_separator(c) && (hyphen_ends || c != '-')) || c == ',')
            .unwrap_or(rest.len())
    };
    let (end, n) = [token_end(false), token_end(true)]
        .into_iter()
        .find_map(|end| Some((end, number_of(rest.get(..end)?)?)))?;
    let token = rest.get(..end)?;
    let after_token = rest.get(end..)?;
    // `Twenty One` spelled with a space: take the second word into the number.
    if english_tens(token).is_some() {
        let next = after_token.trim_start_matches(is_space);
        if next.len() != after_token.len() {
            let word_end = next.find(is_separator).unwrap_or(next.len());
            if let Some(ones) = next
                .get(..word_end)
                .and_then(english_ones)
                .filter(|o| *o < 10)
            {
                return Some((n + ones, next.get(word_end..)?));
            }
        }
    }
    Some((n, after_token))
}

/// An English title after a plain space must not start lower-case (`Chapter 5 is where`).
/// A title in title case may end with a full stop, as Project Gutenberg texts write them
/// (`CHAPTER 1. Loomings.`, `CHAPTER 120. The Deck Towards the End of the First Night Watch.`).
pub(super) fn english_rest_ok(rest: &str) -> bool {
    let (_, title) = split_title(rest);
    let plain_space = rest.chars().take_while(|c| is_separator(*c)).all(is_space);
    if plain_space && title.starts_with(|c: char| c.is_ascii_lowercase()) {
        return false;
    }
    accept_rest(rest, false) || title_case_ending_a_sentence(title)
}

/// Words an English title leaves in lower case.
pub(super) const SMALL_WORDS: [&str; 22] = [
    "a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor", "of", "on",
    "or", "over", "the", "to", "upon", "vs", "with", "without",
];

/// `Loomings.`, `The Chase.—Third Day.` or `Does the Whale’s Magnitude Diminish?—Will He
/// Perish?`: every word capitalised but the small ones (not the first), ending with one full
/// stop or a question or exclamation mark; not `That was all.`
pub(super) fn title_case_ending_a_sentence(title: &str) -> bool {
    let Some(core) = title.strip_suffix(['.', '?', '!']) else {
        return false;
    };
    let words: Vec<&str> = core.split(is_space).filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > 14 || core.ends_with(['.', '?', '!']) {
        return false;
    }
    words.iter().enumerate().all(|(i, word)| {
        let Some(first) = word.chars().find(|c| c.is_alphabetic()) else {
            return true;
        };
        let bare = word.trim_matches(|c: char| !c.is_alphabetic());
        first.is_uppercase() || (i > 0 && SMALL_WORDS.contains(&bare))
    })
}

/// A numbered chapter heading: `第…章` or `Chapter …`.
pub(super) fn numbered_chapter(text: &str) -> Option<Found> {
    let ((number, other), repaired) = if let Some(di) = di_number_unit(text) {
        if !is_chapter_unit(di.unit) || !accept_rest(di.rest, allows_glued_title(di.unit)) {
            return None;
        }
        (di.number, di.repaired)
    } else {
        let (number, rest) = ENGLISH_CHAPTER_KEYWORDS
            .iter()
            .find_map(|keyword| english_numbered(text, keyword))?;
        if !english_rest_ok(rest) {
            return None;
        }
        ((number, None), false)
    };
    Some(Found {
        kind: HeadingKind::Chapter,
        title: collapse_spaces(text),
        number: Some(number),
        other,
        repaired,
    })
}

/// English words for a chapter: `Chapter XII`, and the letters of an epistolary novel
/// (`Letter 4`, Frankenstein) and the staves of A Christmas Carol (`Stave One`).
pub(super) const ENGLISH_CHAPTER_KEYWORDS: [&str; 3] = ["chapter", "letter", "stave"];

/// English words for a volume: `Part Two`, `Book One: 1805`, `Volume III`, `Book the First`,
/// `Epoch the Second` (Jack Sheppard).
pub(super) const ENGLISH_VOLUME_KEYWORDS: [&str; 4] = ["part", "book", "volume", "epoch"];

/// `First Epilogue`, `Second Epilogue`: a volume of its own (War and Peace), unnumbered so that
/// its chapters may start again at 1 without breaking the volumes' numbering.
pub(super) fn ordinal_epilogue(text: &str) -> Option<Found> {
    const ORDINALS: [&str; 5] = ["first", "second", "third", "fourth", "fifth"];
    let (word, rest) = text.split_once(is_space)?;
    if !ORDINALS.iter().any(|o| o.eq_ignore_ascii_case(word)) {
        return None;
    }
    let rest = rest.trim_start_matches(is_space);
    let after = rest
        .get(..8)
        .filter(|h| h.eq_ignore_ascii_case("epilogue"))?;
    let title_rest = rest.get(after.len()..)?;
    if !title_rest.is_empty() && !title_rest.starts_with(is_separator) {
        return None;
    }
    english_rest_ok(title_rest).then(|| Found {
        kind: HeadingKind::Volume,
        title: collapse_spaces(text),
        number: None,
        other: None,
        repaired: false,
    })
}

/// A volume heading, possibly followed by a chapter heading on the same line.
pub(super) fn volume_line(text: &str) -> Option<Vec<Found>> {
    let (number, rest, glue_ok, english) = if let Some(di) = di_number_unit(text) {
        if !is_volume_unit(di.unit) {
            return None;
        }
        (
            (di.number, di.repaired),
            di.rest,
            allows_glued_title(di.unit),
            false,
        )
    } else if let Some(after) = text.strip_prefix('卷') {
        // `卷三`, and `卷之三` as older books write it.
        let after = after.trim_start_matches(is_space);
        let after = after.strip_prefix('之').unwrap_or(after);
        let (number, repaired, end) = leading_number(after)?;
        ((number, repaired), after.get(end..)?, false, false)
    } else if let Some(found) = ordinal_epilogue(text) {
        return Some(vec![found]);
    } else {
        let (number, rest) = ENGLISH_VOLUME_KEYWORDS
            .iter()
            .find_map(|keyword| english_numbered(text, keyword))?;
        (((number, None), false), rest, false, true)
    };
    let ((number, other), repaired) = number;

    // Where the volume's own text ends and an embedded chapter heading begins, if any.
    let rest_start = text.len() - rest.len();
    let mut chapter: Option<(usize, Found)> = None;
    // The chapter may follow the volume's unit directly (`第一卷第一章`) or after a separator.
    let mut prev_separator = true;
    for (i, c) in rest.char_indices() {
        if prev_separator
            && matches!(c, '第' | 'C' | 'c')
            && let Some(found) = rest.get(i..).and_then(numbered_chapter)
        {
            chapter = Some((rest_start + i, found));
            break;
        }
        prev_separator = is_separator(c);
    }

    let volume_text = match &chapter {
        Some((at, _)) => text.get(..*at)?.trim_end_matches(is_separator),
        None => text,
    };
    let volume_rest = volume_text.get(rest_start.min(volume_text.len())..)?;
    let rest_ok = if english {
        english_rest_ok(volume_rest)
    } else {
        accept_rest(volume_rest, glue_ok)
    };
    // `第三卷终`, `第一部 完`: the end of a volume, not its heading.
    let ending = split_title(volume_rest)
        .1
        .trim_end_matches(|c: char| !c.is_alphanumeric());
    if !rest_ok
        || matches!(
            ending,
            "终" | "終" | "完" | "完结" | "完結" | "终了" | "结束" | "結束"
        )
    {
        return None;
    }
    let mut found = vec![Found {
        kind: HeadingKind::Volume,
        title: collapse_spaces(volume_text),
        number: Some(number),
        other,
        repaired,
    }];
    found.extend(chapter.map(|(_, c)| c));
    Some(found)
}

/// Chinese keywords for unnumbered chapter-level sections, longest first so that `序章` wins
/// over `序`.
pub(super) const CHINESE_KEYWORDS: [&str; 17] = [
    "完本感言",
    "上架感言",
    "序章",
    "序言",
    "序幕",
    "楔子",
    "引子",
    "引言",
    "前言",
    "番外",
    "尾声",
    "尾聲",
    "后记",
    "後記",
    "终章",
    "終章",
    "序",
];

/// `text` after keyword `kw`, which may be spaced out as headings are centred by hand
/// (`尾　声`, `楔 子`): white space between its characters, none inside a character.
pub(super) fn strip_keyword<'a>(text: &'a str, kw: &str) -> Option<&'a str> {
    let mut rest = text;
    for (i, c) in kw.chars().enumerate() {
        if i > 0 {
            rest = rest.trim_start_matches(is_space);
        }
        rest = rest.strip_prefix(c)?;
    }
    Some(rest)
}

/// English keywords for unnumbered chapter-level sections.
pub(super) const ENGLISH_KEYWORDS: [&str; 2] = ["prologue", "epilogue"];

/// An unnumbered chapter-level heading such as `楔子`, `番外一：xx` or `Prologue`.
pub(super) fn unnumbered_chapter(text: &str) -> Option<Found> {
    let rest = if let Some(rest) = CHINESE_KEYWORDS
        .iter()
        .find_map(|kw| strip_keyword(text, kw).map(|r| (*kw, r)))
        .map(|(kw, rest)| {
            if kw == "番外" {
                rest.trim_start_matches(is_numeral_char)
                    .trim_start_matches('篇')
            } else {
                rest
            }
        }) {
        rest
    } else {
        ENGLISH_KEYWORDS.iter().find_map(|kw| {
            let head = text.get(..kw.len())?;
            head.eq_ignore_ascii_case(kw)
                .then(|| text.get(kw.len()..))?
        })?
    };
    let (separated, title) = split_title(rest);
    let ok = title.is_empty()
        || (separated
            && width(title) <= MAX_KEYWORD_TITLE_WIDTH
            && title_reads_as_title(title, false)
            && english_rest_ok(rest));
    ok.then(|| Found {
        kind: HeadingKind::Chapter,
        title: collapse_spaces(text),
        number: None,
        other: None,
        repaired: false,
    })
}
