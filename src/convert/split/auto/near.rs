//! Lines that look like headings but are not taken (`【第一章】`, a number that does not
//! read), for `check` to report; and what families of heading a title belongs to, so that a
//! file's missed headings can be told from its text.
//!
//! Apart because none of this decides a heading: it explains the lines the split passed over.

use super::bare::{bare_numbered, is_decoration, lone_number};
use super::numbered::{
    ENGLISH_CHAPTER_KEYWORDS, ENGLISH_VOLUME_KEYWORDS, allows_glued_title, is_chapter_unit,
    is_volume_unit,
};
use super::{accept_rest, detect, is_space, short_enough, split_title};
use crate::convert::split::SkipReason;
use crate::convert::split::numerals::{
    is_numeral_like, leading_number, parse_english_number, parse_english_ordinal,
};

/// Why a line that looks like a heading is not one, when it does: a heading inside
/// decoration (`===第一章===`, `【第一章】`, `[0001] 标题`), or `第` + number + unit whose
/// number cannot be read (`第十x回`). None for text and for headings. Called only on lines
/// [`detect`] did not take; cheap for prose, which starts with neither.
pub(in crate::convert::split) fn not_taken(line: &str) -> Option<SkipReason> {
    let first = line.chars().next()?;
    if !short_enough(line) {
        return None;
    }
    if is_decoration(first) {
        let inner = line.trim_matches(|c: char| is_decoration(c) || is_space(c));
        let heading = !inner.is_empty() && !detect(inner).is_empty();
        return (heading || bracketed_number(line)).then_some(SkipReason::Decorated);
    }
    (first == '第' && unreadable_number(line)).then_some(SkipReason::UnreadableNumber)
}

/// `[0001] 标题`, `【12】风起`: a number in brackets, then a title as a bare-numbered heading
/// has one.
pub(super) fn bracketed_number(line: &str) -> bool {
    let Some(inner) = line.strip_prefix(['[', '【', '［', '〖', '(', '（']) else {
        return false;
    };
    let Some(close) = inner.find([']', '】', '］', '〗', ')', '）']) else {
        return false;
    };
    let (number, rest) = inner.split_at(close);
    let after = rest.chars().next().map_or(rest.len(), char::len_utf8);
    let title = rest[after..].trim_start_matches(is_space);
    !number.is_empty()
        && number
            .chars()
            .all(|c| c.is_ascii_digit() || ('０'..='９').contains(&c))
        && !title.is_empty()
        && bare_numbered(&format!("{number} {title}")).is_some()
}

/// `第十x回 标题`: `第`, at most six characters with a numeral among them and no other
/// Chinese character (`第三次回到家` is text), a unit and an acceptable title; the number
/// does not read.
pub(super) fn unreadable_number(line: &str) -> bool {
    let after = line['第'.len_utf8()..].trim_start_matches(is_space);
    let Some((at, unit)) = after
        .char_indices()
        .take(7)
        .find(|&(_, c)| is_chapter_unit(c) || is_volume_unit(c))
    else {
        return false;
    };
    let between = after[..at].trim_end_matches(is_space);
    let han = |c: char| ('\u{3400}'..='\u{9FFF}').contains(&c) && !is_numeral_like(c);
    let reads = leading_number(between).is_some_and(|(_, _, end)| end == between.len());
    !between.is_empty()
        && between.chars().any(is_numeral_like)
        && !between.chars().any(han)
        && !reads
        && accept_rest(&after[at + unit.len_utf8()..], allows_glued_title(unit))
}

/// How a numbered chapter heading is written, to tell a site's page markers (`第1节`) from
/// the chapters (`第一回`) they are mixed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(in crate::convert::split) struct Family {
    /// The unit (`回`, `节`), `E` for an English heading, the separator of a bare number.
    pub unit: char,
    /// The number is in Arabic or full-width digits.
    pub arabic: bool,
}

/// The family of a numbered heading's title, and whether the title says more than the
/// number (`第一回 宴桃园` does, `第1节` does not).
pub(in crate::convert::split) fn family(title: &str) -> (Family, bool) {
    if title.starts_with(|c: char| c.is_ascii_alphabetic()) {
        let titled = title.split(is_space).filter(|w| !w.is_empty()).count() > 2;
        let family = Family {
            unit: 'E',
            arabic: false,
        };
        return (family, titled);
    }
    let text = title.strip_prefix('第').unwrap_or(title);
    let text = text.trim_start_matches(is_space);
    let arabic = text.starts_with(|c: char| c.is_ascii_digit() || ('０'..='９').contains(&c));
    let Some((_, _, end)) = leading_number(text) else {
        let family = Family { unit: '?', arabic };
        return (family, true);
    };
    let rest = text[end..].trim_start_matches(is_space);
    let unit = rest.chars().next().unwrap_or(' ');
    let titled = !split_title(&rest[unit.len_utf8().min(rest.len())..])
        .1
        .is_empty();
    (Family { unit, arabic }, titled)
}

/// Whether an English heading's text is only its keyword and number (`CHAPTER I.`,
/// `Book the First`, a bare `IV`): its title, if it has one, is a paragraph below.
pub(in crate::convert::split) fn untitled_english(title: &str) -> bool {
    let core = title.trim_end_matches(['.', ':']);
    let number = |w: &str| {
        lone_number(w).is_some()
            || parse_english_number(w).is_some()
            || parse_english_ordinal(w).is_some()
    };
    let mut words = core.split(is_space).filter(|w| !w.is_empty());
    let Some(first) = words.next() else {
        return false;
    };
    let keyword = ENGLISH_CHAPTER_KEYWORDS
        .iter()
        .chain(&ENGLISH_VOLUME_KEYWORDS)
        .any(|k| k.eq_ignore_ascii_case(first));
    if !keyword {
        return number(first) && words.next().is_none();
    }
    let rest: Vec<&str> = words.filter(|w| !w.eq_ignore_ascii_case("the")).collect();
    matches!(rest.as_slice(), [n] if number(n))
}

/// Longest title a paragraph below its heading, in characters.
pub(super) const MAX_SUBTITLE_CHARS: usize = 70;

/// Whether a line reads as a title rather than a sentence: short, starting with a capital,
/// and either in capitals (`UNDER THE SOUTHERN PINES`) or with at least half its words
/// capitalised (`The Widow and her Child.`), not `It was late.`
pub(in crate::convert::split) fn is_subtitle(line: &str) -> bool {
    if line.chars().count() > MAX_SUBTITLE_CHARS
        || !line.starts_with(|c: char| c.is_uppercase())
        || !detect(line).is_empty()
        || line
            .trim_end_matches(['.', '!', '?'])
            .contains(['.', '!', '?', ';'])
    {
        return false;
    }
    let words: Vec<&str> = line.split(is_space).filter(|w| !w.is_empty()).collect();
    let capitalised = words
        .iter()
        .filter(|w| w.starts_with(|c: char| c.is_uppercase()))
        .count();
    let letters = line.chars().filter(|c| c.is_alphabetic());
    let shouting = letters.clone().count() > 1 && letters.clone().all(|c| c.is_uppercase());
    words.len() <= 12 && (shouting || (words.len() > 1 && capitalised * 2 >= words.len()))
}
