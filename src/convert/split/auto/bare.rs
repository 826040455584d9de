//! Headings with neither `第` nor a keyword, which a prose line can look like: a bare number
//! and title (`1. Title`, `一 赵处女`), a lone number, and the weak headings (a label before
//! the heading, a decoration around it, a `第` left out).
//!
//! Apart from the sure headings because none of these is taken on its own line's word: the
//! split module takes them only when they recur in sequence through the file.

use super::numbered::numbered_chapter;
use super::{
    Found, collapse_spaces, detect, detect_heading, is_space, short_enough, split_title, width,
};
use crate::convert::split::numerals::{is_numeral_char, leading_number, parse_roman};
use crate::convert::split::{HeadingKind, SkipReason};

/// Longest title after a bare number (`1、风起`), in display columns.
pub(super) const MAX_BARE_TITLE_WIDTH: usize = 40;

/// A chapter heading made of a bare number and a title (`1、风起`, `001 风起`, `十一 聚气` as
/// Jin Yong's novels head theirs): the weak kind of heading, which the split module confirms
/// on the whole file.
pub(in crate::convert::split) fn bare_numbered(line: &str) -> Option<Found> {
    if let Some(n) = lone_number(line) {
        return Some(Found {
            kind: HeadingKind::Chapter,
            title: line.to_string(),
            number: Some(n),
            other: None,
            repaired: false,
        });
    }
    let first = line.chars().next()?;
    if is_numeral_char(first) && !first.is_ascii_digit() && !('０'..='９').contains(&first) {
        return bare_chinese(line).or_else(|| {
            let number = crate::convert::split::japanese::lone_kanji_number(line)
                .or_else(|| crate::convert::split::japanese::numbered_title(line));
            number.map(|n| Found {
                kind: HeadingKind::Chapter,
                title: collapse_spaces(line),
                number: Some(n),
                other: None,
                repaired: false,
            })
        });
    }
    let digits = line
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || ('０'..='９').contains(c))
        .last()
        .map(|(i, c)| i + c.len_utf8())?;
    let (number, rest) = line.split_at(digits);
    if number.chars().count() > 4 {
        return None;
    }
    let sep = rest.chars().next()?;
    if !(matches!(sep, '、' | '.' | '．') || is_space(sep)) {
        return None;
    }
    let title = rest[sep.len_utf8()..].trim_start_matches(is_space);
    let sentence = reads_as_sentence(title);
    let starts_ok = title
        .chars()
        .next()
        .is_some_and(|c| !c.is_ascii_digit() && !c.is_ascii_punctuation());
    if sentence || !starts_ok || width(title) > MAX_BARE_TITLE_WIDTH {
        return None;
    }
    let n: u64 = number
        .chars()
        .map(|c| c.to_digit(10).unwrap_or_else(|| c as u32 - '０' as u32))
        .fold(0, |n, d| n * 10 + u64::from(d));
    Some(Found {
        kind: HeadingKind::Chapter,
        title: collapse_spaces(line),
        number: Some(n),
        other: None,
        repaired: false,
    })
}

/// `十一 聚气`, `三、风起`: a Chinese number of at most [`MAX_BARE_CHINESE_CHARS`] characters,
/// white space or `、`, and a short title that does not read like a sentence; or the number
/// alone (`十一`).
pub(super) fn bare_chinese(line: &str) -> Option<Found> {
    let (readings, repaired, end) = leading_number(line)?;
    let number = line.get(..end)?;
    if repaired || number.chars().count() > MAX_BARE_CHINESE_CHARS {
        return None;
    }
    let rest = line.get(end..)?;
    let Some(sep) = rest.chars().next() else {
        // A numeral alone on its line (`一`, `二十三`, as 雪山飞狐 heads its chapters).
        return Some(Found {
            kind: HeadingKind::Chapter,
            title: line.to_string(),
            number: Some(readings.0),
            other: readings.1,
            repaired: false,
        });
    };
    if sep != '、' && !is_space(sep) {
        return None;
    }
    let title = rest[sep.len_utf8()..].trim_start_matches(is_space);
    let sentence = reads_as_sentence(title);
    // A title may open with a numeral (`二十七 三战`, `十 五霸冈`) but is not one (`一 二`,
    // `十 三 …`): a list of numbers or a number spaced out is no heading.
    let lead = title.chars().take_while(|&c| is_numeral_char(c)).count();
    let starts_ok = title
        .chars()
        .next()
        .is_some_and(|c| !c.is_ascii_punctuation())
        && title.chars().nth(lead).is_some_and(|c| !is_space(c));
    if sentence || !starts_ok || width(title) > MAX_BARE_TITLE_WIDTH {
        return None;
    }
    Some(Found {
        kind: HeadingKind::Chapter,
        title: collapse_spaces(line),
        number: Some(readings.0),
        other: readings.1,
        repaired: false,
    })
}

/// Whether a bare-numbered heading's title reads like a sentence: a comma, a full stop, a
/// colon, or a quotation; a title quoted whole is a title (Jin Yong's `九  “梁山泊、祝英台”`).
pub(super) fn reads_as_sentence(title: &str) -> bool {
    let inner = title
        .strip_prefix(['“', '「'])
        .and_then(|t| t.strip_suffix(['”', '」']))
        .filter(|t| !t.contains(['“', '”', '「', '」']))
        .unwrap_or(title);
    inner.contains(['，', '。', '；', '：', ',', ';', ':', '“', '”', '「', '」'])
}

/// Longest Chinese number heading a bare-numbered chapter (`一百二十三`).
pub(super) const MAX_BARE_CHINESE_CHARS: usize = 6;

/// A heading that only the whole file can confirm, and how it is written (its shape): the
/// split module takes the ones whose shape recurs in sequence (`super::structure`).
pub(in crate::convert::split) struct Weak {
    /// The headings on the line, as [`detect`] gives them.
    pub found: Vec<Found>,
    /// How the heading is written: its label, its decoration, or the unit of a heading
    /// without `第`.
    pub shape: String,
    /// How to report the line when the file does not confirm it (a decorated heading is
    /// worth a look; a label may well be prose).
    pub unless: Option<SkipReason>,
}

/// Longest text before `第` that may be a label repeated before every heading
/// (`警世通言第一卷`, `上卷 第一回`), in characters.
pub(super) const MAX_LABEL_CHARS: usize = 12;

/// A heading written with a label before it (`警世通言第一卷　俞伯牙…`, `上卷 第一回 …`) or
/// with its `第` left out (`二回　救贫女馈赠金瓜子`), as some downloads write every heading
/// after the first. Prose can look the same once (`他翻到第三章`), so these are headings only
/// when their shape recurs in sequence through the file.
pub(in crate::convert::split) fn weak(line: &str) -> Option<Weak> {
    if !short_enough(line) {
        return None;
    }
    decorated(line)
        .or_else(|| missing_di(line))
        .or_else(|| labelled(line))
}

/// `◆ 《陆小凤传奇之金鹏王朝》 第一回　有四条眉毛的人 ◆`, `===第一章===`, `【第一章】`: a
/// heading inside decoration, which a download may put around every heading (or an author
/// around one line of emphasis).
pub(super) fn decorated(line: &str) -> Option<Weak> {
    let first = line.chars().next().filter(|&c| is_decoration(c))?;
    let inner = line.trim_matches(|c: char| is_decoration(c) || is_space(c));
    let found = detect(inner);
    (!inner.is_empty() && !found.is_empty()).then(|| Weak {
        found,
        shape: format!("decorated {first}"),
        unless: Some(SkipReason::Decorated),
    })
}

/// `二回　救贫女馈赠金瓜子`: a 回 or 章 heading with its `第` left out, and a title after a
/// separator (a bare `三回` is as likely text).
pub(super) fn missing_di(line: &str) -> Option<Weak> {
    let first = line.chars().next()?;
    if !is_numeral_char(first) || first.is_ascii_digit() || ('０'..='９').contains(&first) {
        return None;
    }
    let (_, _, end) = leading_number(line)?;
    let unit = line.get(end..)?.chars().next()?;
    if !matches!(unit, '回' | '章') {
        return None;
    }
    let (separated, title) = split_title(line.get(end + unit.len_utf8()..)?);
    if !separated || title.is_empty() {
        return None;
    }
    let mut found = numbered_chapter(&format!("第{line}"))?;
    found.title = collapse_spaces(line);
    Some(Weak {
        found: vec![found],
        shape: format!("{unit} without 第"),
        unless: None,
    })
}

/// `警世通言第一卷　俞伯牙摔琴謝知音`: a label of letters (a book's name, `上卷`) and a heading.
pub(super) fn labelled(line: &str) -> Option<Weak> {
    let at = label_end(line)?;
    let label = line.get(..at)?.trim_end_matches(is_space);
    let found = detect_heading(line.get(at..)?);
    (!found.is_empty()).then(|| Weak {
        found,
        shape: format!("label {}", collapse_spaces(label)),
        unless: None,
    })
}

/// Where the `第` after a label of letters (`警世通言`, `上卷 `) starts, if the line has one.
pub(super) fn label_end(line: &str) -> Option<usize> {
    let (at, label) = before_di(line, 1..=MAX_LABEL_CHARS)?;
    let letters = !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || is_space(c));
    letters.then_some(at)
}

/// The first `第` of `line` at a character position in `within`: its byte offset, and the text
/// before it without its trailing spaces (a label, a volume's name). What a heading after a
/// label ([`label_end`]) and a volume's opener line (`split::volumes::opener`) both look for.
pub(in crate::convert::split) fn before_di(
    line: &str,
    within: std::ops::RangeInclusive<usize>,
) -> Option<(usize, &str)> {
    let (at, _) = line
        .char_indices()
        .take(within.end() + 1)
        .skip(*within.start())
        .find(|&(_, c)| c == '第')?;
    Some((at, line.get(..at)?.trim_end_matches(is_space)))
}

/// Characters that decorate a heading-like line: `===第一章===`, `【第一章】`, `[0001] 标题`,
/// `★第一章★`.
pub(in crate::convert::split) fn is_decoration(c: char) -> bool {
    matches!(
        c,
        '=' | '*'
            | '#'
            | '~'
            | '-'
            | '—'
            | '─'
            | '－'
            | '＝'
            | '＊'
            | '＃'
            | '～'
            | '【'
            | '】'
            | '['
            | ']'
            | '［'
            | '］'
            | '〖'
            | '〗'
            | '『'
            | '』'
            | '「'
            | '」'
            | '〔'
            | '〕'
            | '('
            | ')'
            | '（'
            | '）'
            | '<'
            | '>'
            | '〈'
            | '〉'
            | '★'
            | '☆'
            | '◆'
            | '◇'
            | '■'
            | '□'
            | '●'
            | '◎'
            | '※'
    )
}

/// A line that is only a number, as some books head their chapters (`IV`, `IV.`, `12`): 1 to 4
/// digits, or a Roman numeral in capitals.
pub(super) fn lone_number(line: &str) -> Option<u64> {
    let core = line.strip_suffix('.').unwrap_or(line);
    if core.is_empty() || core.len() > 9 {
        return None;
    }
    if core.bytes().all(|b| b.is_ascii_digit()) {
        return core.parse().ok().filter(|_| core.len() <= 4);
    }
    parse_roman(core).filter(|_| core.bytes().all(|b| b.is_ascii_uppercase()))
}
