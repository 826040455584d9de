//! Automatic recognition of one heading line, for [`super::SplitMode::Auto`].
//!
//! [`detect`] looks at one trimmed line and says whether it is a volume heading, a chapter
//! heading, both (`第一卷 第一章 风起`), or text. It is called once per line by
//! [`super::split`], so it rejects almost every prose line after looking at its first character
//! and its length, and never runs a regex.
//!
//! The rules, all on the trimmed line:
//! - **Short.** Display width at most [`MAX_HEADING_WIDTH`] (a CJK character counts 2, so 40
//!   Chinese characters or 80 Latin ones).
//! - **Numbered Chinese headings.** `第` + number + unit, spaces allowed around the number.
//!   The number is Chinese (`十二`, `两千`, `一百零八`), financial (`壹贰`), Arabic or full-width
//!   digits, and must parse. Chapter units: 章 回 节 節 話 话 集 幕. Volume units: 卷 部 册 冊 篇
//!   季. `卷` + number (`卷三`, `卷三 北伐`, `卷之三`) is a volume too. Measure words such as 封
//!   本 次 天 个 名 are not units, so `第一次见面` stays text.
//! - **Numerals with typos.** A dash typed for 一 next to a unit (`第十—回`, `第—百回`), a circle
//!   or a letter O for 〇 (`第一○八回`), a Kangxi radical for its digit, a letter O or l in an
//!   Arabic number (`第1O章`), and `廿` `卅` `卌` are read (see `numerals::leading_number`); the
//!   heading is marked as read through a typo.
//! - **Titles.** After the unit comes nothing, or a separator (white space, `：` `:` `、` `.` `．`
//!   `-` `—` `·`) and a title. Only 章 回 卷 may have a title glued on without a separator
//!   (`第一章风起`); the other units double as measure words (`第一节课`, `第一部手机`).
//!   A title is refused when it reads like a sentence: it contains `。`; it ends with a full
//!   stop; it ends with `！` `？` `…` (closing quotes ignored) and is longer than 12 CJK
//!   characters or has a comma; a glued title has any comma or sentence ending, or starts with
//!   a particle that continues a sentence (`第一章的…`, `第一章里…`).
//! - **Volume + chapter on one line.** When a volume heading's title holds a numbered chapter
//!   heading after a separator (`第一卷 潜龙在渊 第一章 风起`), the line gives two headings:
//!   the volume (`第一卷 潜龙在渊`) and the chapter (`第一章 风起`), both on that line.
//! - **Unnumbered sections** (chapter level, no number): 序章 序言 序幕 序 楔子 引子 引言 前言
//!   番外 尾声 尾聲 后记 後記 终章 終章 完本感言 上架感言, as the whole line or followed by a
//!   separator and a title of at most 20 CJK characters. `番外` may carry a number or `篇`
//!   (`番外一`, `番外篇`), which is kept in the title but not used for numbering. `作者的话` is
//!   left out on purpose: authors use it for notes inside chapters.
//! - **English.** `Chapter`, `Letter` or `Stave` + number (digits, Roman `XII`, words
//!   `Twelve`, `Twenty-One`, ordinals `the First`) is a chapter; `Part`, `Book`, `Volume` or
//!   `Epoch` + number is a volume (Roman numerals must be all upper
//!   or all lower case, so `Part Mix` is text), and so is `First Epilogue` (War and Peace's
//!   epilogues hold chapters), unnumbered; `Prologue` and `Epilogue` are unnumbered chapters.
//!   Case does not matter. A title after a plain space must not start with a lower-case
//!   letter, which keeps `Chapter 5 is where it starts` as prose. A title ending with a full
//!   stop is a sentence unless it is in title case (`CHAPTER 1. Loomings.`, as Project
//!   Gutenberg writes headings).
//! - **Site labels.** Downloads put a label before every heading (`正文 第一回 …`,
//!   `《西游记》目录 第一回 …`); the heading is what follows, and the title leaves the label out.
//! - **Bare numbers** (`1、风起`, `001 风起`, `12. 风起`; [`bare_numbered`]): 1 to 4 digits, then
//!   `、` `.` `．` or white space, then a short title that does not read like a sentence (no
//!   `，。；：` inside, at most [`MAX_BARE_TITLE_WIDTH`] columns). Numbered list items look the
//!   same, so the split module takes these only from a file without other chapter headings and
//!   only when they read as a book's chapters (see `super::bare_chapters`).
//! - **Weak headings** ([`weak`]): a label before the heading (`警世通言第一卷`, `上卷 第一回`)
//!   or a `第` left out (`二回　救贫女…`); the split module takes them when they recur in
//!   sequence through the file.
//! - **Not handled:** headings wrapped in brackets (`【第一章】`) or quotes (`“第一章”他说`)
//!   stay text, as does anything starting with another character; [`not_taken`] says which
//!   such lines look like headings, for `check` to report.

use super::numerals::{
    Readings, english_ones, english_tens, is_numeral_char, is_numeral_like, leading_number,
    parse_english_number, parse_english_ordinal, parse_roman,
};
use super::{HeadingKind, SkipReason};

/// Longest heading line, in display columns (CJK characters count 2).
pub(super) const MAX_HEADING_WIDTH: usize = 80;

/// A title that ends like a sentence (`你是谁？`) is only a heading up to this width.
const MAX_EXCLAIMED_TITLE_WIDTH: usize = 24;

/// Longest title after an unnumbered keyword such as `番外：`.
const MAX_KEYWORD_TITLE_WIDTH: usize = 40;

/// One heading found on a line; the caller adds the line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    pub kind: HeadingKind,
    pub title: String,
    pub number: Option<u64>,
    /// The other reading of a number that has two (`一百一`: 110, or 101 in a classical
    /// novel's sequence); the split module picks the one the sequence continues with.
    pub other: Option<u64>,
    /// The number was read through a typo: a dash for 一, a circle for 〇 (see
    /// [`super::numerals::leading_number`]).
    pub repaired: bool,
}

/// White space inside or around a heading, including U+3000 and NBSP: what a line is
/// trimmed of.
pub(super) use crate::lines::is_line_space as is_space;

/// Characters allowed between a heading's number and its title.
fn is_separator(c: char) -> bool {
    is_space(c)
        || matches!(
            c,
            '：' | ':' | '、' | '.' | '．' | '-' | '—' | '–' | '·' | '・'
        )
}

/// Trims white space (including U+3000, NBSP, BOM and zero-width space) from both ends.
pub(super) use crate::lines::trim_line;

/// The trimmed text with every inner run of white space replaced by one ASCII space.
pub(crate) fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if is_space(c) {
            in_space = true;
        } else {
            if in_space && !out.is_empty() {
                out.push(' ');
            }
            in_space = false;
            out.push(c);
        }
    }
    out
}

/// Display width, counting characters from U+1100 up (CJK, full-width forms) as 2.
fn width(text: &str) -> usize {
    text.chars()
        .map(|c| if c < '\u{1100}' { 1 } else { 2 })
        .sum()
}

/// Whether a trimmed line is short enough to be a heading. Checks bytes first so that long
/// prose lines are rejected without walking their characters (no character takes more than
/// two bytes per column).
pub(super) fn short_enough(text: &str) -> bool {
    text.len() <= 2 * MAX_HEADING_WIDTH && width(text) <= MAX_HEADING_WIDTH
}

/// Longest title after a bare number (`1、风起`), in display columns.
pub(super) const MAX_BARE_TITLE_WIDTH: usize = 40;

/// A chapter heading made of a bare number and a title (`1、风起`, `001 风起`, `十一 聚气` as
/// Jin Yong's novels head theirs): the weak kind of heading, which the split module confirms
/// on the whole file.
pub(super) fn bare_numbered(line: &str) -> Option<Found> {
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
            let number = super::japanese::lone_kanji_number(line)
                .or_else(|| super::japanese::numbered_title(line));
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
fn bare_chinese(line: &str) -> Option<Found> {
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
fn reads_as_sentence(title: &str) -> bool {
    let inner = title
        .strip_prefix(['“', '「'])
        .and_then(|t| t.strip_suffix(['”', '」']))
        .filter(|t| !t.contains(['“', '”', '「', '」']))
        .unwrap_or(title);
    inner.contains(['，', '。', '；', '：', ',', ';', ':', '“', '”', '「', '」'])
}

/// Longest Chinese number heading a bare-numbered chapter (`一百二十三`).
const MAX_BARE_CHINESE_CHARS: usize = 6;

/// A heading that only the whole file can confirm, and how it is written (its shape): the
/// split module takes the ones whose shape recurs in sequence (`super::structure`).
pub(super) struct Weak {
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
const MAX_LABEL_CHARS: usize = 12;

/// A heading written with a label before it (`警世通言第一卷　俞伯牙…`, `上卷 第一回 …`) or
/// with its `第` left out (`二回　救贫女馈赠金瓜子`), as some downloads write every heading
/// after the first. Prose can look the same once (`他翻到第三章`), so these are headings only
/// when their shape recurs in sequence through the file.
pub(super) fn weak(line: &str) -> Option<Weak> {
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
fn decorated(line: &str) -> Option<Weak> {
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
fn missing_di(line: &str) -> Option<Weak> {
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
fn labelled(line: &str) -> Option<Weak> {
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
fn label_end(line: &str) -> Option<usize> {
    let (at, _) = line
        .char_indices()
        .take(MAX_LABEL_CHARS + 1)
        .skip(1)
        .find(|&(_, c)| c == '第')?;
    let label = line.get(..at)?.trim_end_matches(is_space);
    let letters = !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || is_space(c));
    letters.then_some(at)
}

/// Characters that decorate a heading-like line: `===第一章===`, `【第一章】`, `[0001] 标题`,
/// `★第一章★`.
pub(super) fn is_decoration(c: char) -> bool {
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

/// Why a line that looks like a heading is not one, when it does: a heading inside
/// decoration (`===第一章===`, `【第一章】`, `[0001] 标题`), or `第` + number + unit whose
/// number cannot be read (`第十x回`). None for text and for headings. Called only on lines
/// [`detect`] did not take; cheap for prose, which starts with neither.
pub(super) fn not_taken(line: &str) -> Option<SkipReason> {
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
fn bracketed_number(line: &str) -> bool {
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
fn unreadable_number(line: &str) -> bool {
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
pub(super) struct Family {
    /// The unit (`回`, `节`), `E` for an English heading, the separator of a bare number.
    pub unit: char,
    /// The number is in Arabic or full-width digits.
    pub arabic: bool,
}

/// The family of a numbered heading's title, and whether the title says more than the
/// number (`第一回 宴桃园` does, `第1节` does not).
pub(super) fn family(title: &str) -> (Family, bool) {
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

/// A line that is only a number, as some books head their chapters (`IV`, `IV.`, `12`): 1 to 4
/// digits, or a Roman numeral in capitals.
fn lone_number(line: &str) -> Option<u64> {
    let core = line.strip_suffix('.').unwrap_or(line);
    if core.is_empty() || core.len() > 9 {
        return None;
    }
    if core.bytes().all(|b| b.is_ascii_digit()) {
        return core.parse().ok().filter(|_| core.len() <= 4);
    }
    parse_roman(core).filter(|_| core.bytes().all(|b| b.is_ascii_uppercase()))
}

/// Whether an English heading's text is only its keyword and number (`CHAPTER I.`,
/// `Book the First`, a bare `IV`): its title, if it has one, is a paragraph below.
pub(super) fn untitled_english(title: &str) -> bool {
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
const MAX_SUBTITLE_CHARS: usize = 70;

/// Whether a line reads as a title rather than a sentence: short, starting with a capital,
/// and either in capitals (`UNDER THE SOUTHERN PINES`) or with at least half its words
/// capitalised (`The Widow and her Child.`), not `It was late.`
pub(super) fn is_subtitle(line: &str) -> bool {
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

/// Recognises the headings on one trimmed, non-empty line. Returns nothing for text, one entry
/// for a heading, and volume then chapter for a line that holds both.
pub(super) fn detect(line: &str) -> Vec<Found> {
    if let Some(number) = super::japanese::detect(line) {
        return vec![Found {
            kind: HeadingKind::Chapter,
            title: collapse_spaces(line),
            number,
            other: None,
            repaired: false,
        }];
    }
    match strip_site_label(line) {
        Some(rest) => detect_heading(rest),
        None => detect_heading(line),
    }
}

/// Labels that download sites put before every heading line: `正文 第一回 …`,
/// `《西游记》目录 第一回 …`, `《》目录 第一回 …`. The heading is what follows (a line that is
/// only a label stays text).
fn strip_site_label(line: &str) -> Option<&str> {
    const LABELS: [&str; 5] = ["正文卷", "正文", "目录", "目錄", "章节目录"];
    let mut rest = line;
    if let Some(after) = rest.strip_prefix('《') {
        let (book, tail) = after.split_once('》')?;
        if book.chars().count() > 20 {
            return None;
        }
        rest = tail.trim_start_matches(is_space);
    }
    if let Some(label) = LABELS.iter().find(|l| rest.starts_with(*l)) {
        rest = rest.get(label.len()..)?.trim_start_matches(is_space);
    }
    (rest.len() < line.len() && !rest.is_empty()).then_some(rest)
}

/// [`detect`] on a line without a site label.
pub(super) fn detect_heading(line: &str) -> Vec<Found> {
    let Some(first) = line.chars().next() else {
        return Vec::new();
    };
    if !matches!(
        first,
        '第' | '卷'
            | '序'
            | '楔'
            | '引'
            | '前'
            | '番'
            | '尾'
            | '后'
            | '後'
            | '终'
            | '終'
            | '完'
            | '上'
            | 'C'
            | 'c'
            | 'P'
            | 'p'
            | 'E'
            | 'e'
            | 'B'
            | 'b'
            | 'V'
            | 'v'
            | 'F'
            | 'f'
            | 'S'
            | 's'
            | 'T'
            | 't'
            | 'L'
            | 'l'
    ) || !short_enough(line)
    {
        return Vec::new();
    }
    if let Some(found) = volume_line(line) {
        return found;
    }
    if let Some(found) = numbered_chapter(line).or_else(|| unnumbered_chapter(line)) {
        return vec![found];
    }
    Vec::new()
}

/// What follows a heading's number: whether a separator came first, and the title after it.
fn split_title(rest: &str) -> (bool, &str) {
    let title = rest.trim_start_matches(is_separator);
    // `第二部【青云路】`: a title in square brackets is set apart as by a space.
    let bracketed = title.starts_with(['【', '〖', '［']);
    (title.len() != rest.len() || bracketed, title)
}

/// Whether `rest` (the text after a heading's number) is an acceptable title. `glue_ok` says
/// whether the title may follow the number without a separator.
fn accept_rest(rest: &str, glue_ok: bool) -> bool {
    let (separated, title) = split_title(rest);
    if title.is_empty() {
        return true;
    }
    if !separated && !glue_ok {
        return false;
    }
    title_reads_as_title(title, !separated)
}

/// The sentence tests of the module doc, applied to a title.
fn title_reads_as_title(title: &str, glued: bool) -> bool {
    if title.contains('。') {
        return false;
    }
    // `【好人，我配么？】`, `【桃花运太强也不是好事！】（上）`: a title set in square brackets
    // is a title, whatever punctuation it holds.
    if !glued && title.starts_with('【') && title.contains('】') {
        return true;
    }
    let core = title.trim_end_matches(|c: char| {
        matches!(
            c,
            '”' | '’' | '」' | '』' | '"' | '\'' | '）' | ')' | '》' | '〉' | '】' | ']'
        )
    });
    let ellipsis = core.ends_with("...") || core.ends_with('…');
    if !ellipsis && core.ends_with(['.', '．']) {
        return false;
    }
    let ends_sentence = ellipsis || core.ends_with(['！', '？', '!', '?']);
    let has_comma = title.contains(['，', ',', '；', ';']);
    if glued {
        let continues_sentence = title.starts_with([
            '的', '了', '是', '里', '裡', '就', '也', '都', '还', '還', '又', '和', '与', '與',
            '呢', '吗', '嗎', '吧', '啊', '，', ',',
            // `第一回合` is a round of a fight, not chapter 1 titled 合.
            '合',
        ]);
        // `第五回完`, `第五回完 Typed by …`: the end of a chapter, not a chapter titled 完.
        let ends_chapter = title
            .strip_prefix(['完', '终', '終'])
            .is_some_and(|rest| !rest.starts_with(|c: char| is_han(c)));
        if has_comma || ends_sentence || continues_sentence || ends_chapter {
            return false;
        }
    }
    !(ends_sentence && (has_comma || width(title) > MAX_EXCLAIMED_TITLE_WIDTH))
}

/// A CJK ideograph.
fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}')
}

/// `第` + number + unit at the start of `text`.
struct DiNumber<'a> {
    unit: char,
    /// The number, with its other reading if it has one.
    number: Readings,
    /// The number was read through a typo (`第十—回`).
    repaired: bool,
    /// The text after the unit.
    rest: &'a str,
}

/// The number after `第`, which some downloads space out (`第二 十 回`, `第 一 百 回`): its
/// readings, whether a typo was read, and the bytes it takes in `text`.
fn spaced_number(text: &str) -> Option<(Readings, bool, usize)> {
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
fn di_number_unit(text: &str) -> Option<DiNumber<'_>> {
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

fn is_chapter_unit(c: char) -> bool {
    matches!(c, '章' | '回' | '节' | '節' | '話' | '话' | '集' | '幕')
}

fn is_volume_unit(c: char) -> bool {
    matches!(c, '卷' | '部' | '册' | '冊' | '篇' | '季')
}

/// Units that are never measure words, so a title may be glued on.
fn allows_glued_title(unit: char) -> bool {
    matches!(unit, '章' | '回' | '卷')
}

/// An English keyword followed by white space and a number: the number and the text after it.
fn english_numbered<'a>(text: &'a str, keyword: &str) -> Option<(u64, &'a str)> {
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
fn english_rest_ok(rest: &str) -> bool {
    let (_, title) = split_title(rest);
    let plain_space = rest.chars().take_while(|c| is_separator(*c)).all(is_space);
    if plain_space && title.starts_with(|c: char| c.is_ascii_lowercase()) {
        return false;
    }
    accept_rest(rest, false) || title_case_ending_a_sentence(title)
}

/// Words an English title leaves in lower case.
const SMALL_WORDS: [&str; 22] = [
    "a", "an", "and", "as", "at", "but", "by", "for", "from", "in", "into", "nor", "of", "on",
    "or", "over", "the", "to", "upon", "vs", "with", "without",
];

/// `Loomings.`, `The Chase.—Third Day.` or `Does the Whale’s Magnitude Diminish?—Will He
/// Perish?`: every word capitalised but the small ones (not the first), ending with one full
/// stop or a question or exclamation mark; not `That was all.`
fn title_case_ending_a_sentence(title: &str) -> bool {
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

/// The title of a numbered chapter heading without its numbering: `第十二章 风起` gives `风起`,
/// `Chapter 3: Storm` gives `Storm`, `12、风起` gives `风起`, `第十二章` gives an empty title.
/// None when the line is not a numbered chapter heading (a site label before it is left out).
pub(super) fn title_without_number(line: &str) -> Option<&str> {
    let line = trim_line(line);
    let text = strip_site_label(line).unwrap_or(line);
    // A label the title keeps (`警世通言第一卷 …`, `上卷 第一回 …`: see `super::label`).
    let text = match label_end(text) {
        Some(at) if di_number_unit(text).is_none() => &text[at..],
        _ => text,
    };
    if !short_enough(text) {
        return None;
    }
    let rest = if let Some(DiNumber { unit, rest, .. }) = di_number_unit(text) {
        (is_chapter_unit(unit) && accept_rest(rest, allows_glued_title(unit))).then_some(rest)?
    } else if let Some((_, rest)) = english_numbered(text, "chapter") {
        english_rest_ok(rest).then_some(rest)?
    } else {
        bare_numbered(text)?;
        text.trim_start_matches(|c: char| c.is_ascii_digit() || ('０'..='９').contains(&c))
    };
    Some(trim_line(split_title(rest).1))
}

/// A numbered chapter heading: `第…章` or `Chapter …`.
fn numbered_chapter(text: &str) -> Option<Found> {
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
const ENGLISH_CHAPTER_KEYWORDS: [&str; 3] = ["chapter", "letter", "stave"];

/// English words for a volume: `Part Two`, `Book One: 1805`, `Volume III`, `Book the First`,
/// `Epoch the Second` (Jack Sheppard).
const ENGLISH_VOLUME_KEYWORDS: [&str; 4] = ["part", "book", "volume", "epoch"];

/// `First Epilogue`, `Second Epilogue`: a volume of its own (War and Peace), unnumbered so that
/// its chapters may start again at 1 without breaking the volumes' numbering.
fn ordinal_epilogue(text: &str) -> Option<Found> {
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
fn volume_line(text: &str) -> Option<Vec<Found>> {
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
const CHINESE_KEYWORDS: [&str; 17] = [
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
fn strip_keyword<'a>(text: &'a str, kw: &str) -> Option<&'a str> {
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
const ENGLISH_KEYWORDS: [&str; 2] = ["prologue", "epilogue"];

/// An unnumbered chapter-level heading such as `楔子`, `番外一：xx` or `Prologue`.
fn unnumbered_chapter(text: &str) -> Option<Found> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Option<Found> {
        let mut found = detect(trim_line(line));
        match found.len() {
            0 => None,
            1 => found.pop(),
            n => panic!("{line:?} gave {n} headings: {found:?}"),
        }
    }

    fn chapter(title: &str, number: Option<u64>) -> Option<Found> {
        Some(Found {
            kind: HeadingKind::Chapter,
            title: title.to_string(),
            number,
            other: None,
            repaired: false,
        })
    }

    fn volume(title: &str, number: Option<u64>) -> Option<Found> {
        Some(Found {
            kind: HeadingKind::Volume,
            title: title.to_string(),
            number,
            other: None,
            repaired: false,
        })
    }

    #[test]
    fn chapter_headings_from_the_brief_are_recognised_with_numbers() {
        assert_eq!(one("第一章"), chapter("第一章", Some(1)));
        assert_eq!(one("第十二回 夜战"), chapter("第十二回 夜战", Some(12)));
        assert_eq!(
            one("第1205章 大结局"),
            chapter("第1205章 大结局", Some(1205))
        );
        assert_eq!(one("第一百零八节"), chapter("第一百零八节", Some(108)));
        assert_eq!(one("第两千章"), chapter("第两千章", Some(2000)));
        assert_eq!(
            one("　　第三章　风起云涌"),
            chapter("第三章 风起云涌", Some(3))
        );
    }

    #[test]
    fn every_chapter_unit_and_separator_is_accepted() {
        for unit in ['章', '回', '节', '節', '話', '话', '集', '幕'] {
            let line = format!("第七{unit}");
            assert_eq!(one(&line), chapter(&line, Some(7)), "{line}");
        }
        for sep in [" ", "\u{3000}", "：", ":", "、", ".", "\u{a0}"] {
            let line = format!("第七节{sep}夜谈");
            assert!(one(&line).is_some(), "{line:?}");
        }
        assert_eq!(one("第１２章：归来"), chapter("第１２章：归来", Some(12)));
        assert_eq!(one("第 12 章  归来"), chapter("第 12 章 归来", Some(12)));
        assert_eq!(one("第壹佰章"), chapter("第壹佰章", Some(100)));
        assert_eq!(one("第〇章 起源"), chapter("第〇章 起源", Some(0)));
    }

    #[test]
    fn glued_titles_are_accepted_only_after_unambiguous_units() {
        assert_eq!(one("第一章风起"), chapter("第一章风起", Some(1)));
        assert_eq!(one("第三回大闹天宫"), chapter("第三回大闹天宫", Some(3)));
        assert_eq!(one("第一节课"), None);
        assert_eq!(one("第一部手机"), None);
        assert_eq!(one("第二集结号"), None);
    }

    #[test]
    fn volume_headings_are_recognised() {
        assert_eq!(one("第一卷 潜龙在渊"), volume("第一卷 潜龙在渊", Some(1)));
        assert_eq!(one("第二部"), volume("第二部", Some(2)));
        assert_eq!(one("第三册：归途"), volume("第三册：归途", Some(3)));
        assert_eq!(one("第四篇 终局"), volume("第四篇 终局", Some(4)));
        assert_eq!(one("卷三"), volume("卷三", Some(3)));
        assert_eq!(one("卷三 北伐"), volume("卷三 北伐", Some(3)));
        assert_eq!(one("第一卷潜龙在渊"), volume("第一卷潜龙在渊", Some(1)));
        assert_eq!(one("卷三北伐"), None);
        assert_eq!(one("卷起千堆雪"), None);
    }

    #[test]
    fn a_line_with_volume_and_chapter_gives_both_headings() {
        let found = detect("第一卷 第一章 风起");
        assert_eq!(
            found,
            vec![
                volume("第一卷", Some(1)).unwrap(),
                chapter("第一章 风起", Some(1)).unwrap()
            ]
        );
        let found = detect("第二卷：潜龙在渊　第十章 夜雨");
        assert_eq!(
            found,
            vec![
                volume("第二卷：潜龙在渊", Some(2)).unwrap(),
                chapter("第十章 夜雨", Some(10)).unwrap()
            ]
        );
        let found = detect("第三卷第一章");
        assert_eq!(
            found,
            vec![
                volume("第三卷", Some(3)).unwrap(),
                chapter("第一章", Some(1)).unwrap()
            ]
        );
        let found = detect("Part Two Chapter 3");
        assert_eq!(
            found,
            vec![
                volume("Part Two", Some(2)).unwrap(),
                chapter("Chapter 3", Some(3)).unwrap()
            ]
        );
    }

    #[test]
    fn unnumbered_sections_are_chapters_without_number() {
        for line in [
            "序章",
            "序",
            "序言",
            "楔子",
            "引子",
            "前言",
            "番外",
            "番外一",
            "番外：江湖",
            "尾声",
            "后记",
            "终章",
            "完本感言",
            "上架感言",
            "序章 少年",
            "楔子：雨夜",
            "番外篇",
            "番外12 重逢",
        ] {
            assert_eq!(one(line), chapter(line, None), "{line}");
        }
    }

    #[test]
    fn unnumbered_keywords_inside_prose_stay_text() {
        for line in [
            "序言写得很好",
            "前言不搭后语",
            "尾声渐近，人群散去。",
            "后记里他写了很多。",
            "番外：他在那一年里走遍了大江南北，见过无数的人，也终于明白了很多事情",
            "作者的话",
            "序章里，他写道：",
        ] {
            assert_eq!(one(line), None, "{line}");
        }
    }

    #[test]
    fn english_headings_are_recognised() {
        assert_eq!(one("Chapter 12"), chapter("Chapter 12", Some(12)));
        assert_eq!(one("CHAPTER XII"), chapter("CHAPTER XII", Some(12)));
        assert_eq!(one("Chapter Twelve"), chapter("Chapter Twelve", Some(12)));
        assert_eq!(
            one("Chapter Twenty-One: Home"),
            chapter("Chapter Twenty-One: Home", Some(21))
        );
        assert_eq!(
            one("Chapter Twenty One"),
            chapter("Chapter Twenty One", Some(21))
        );
        assert_eq!(
            one("chapter 3. The Storm"),
            chapter("chapter 3. The Storm", Some(3))
        );
        assert_eq!(one("Part One"), volume("Part One", Some(1)));
        assert_eq!(one("PART II"), volume("PART II", Some(2)));
        assert_eq!(one("Prologue"), chapter("Prologue", None));
        assert_eq!(one("EPILOGUE"), chapter("EPILOGUE", None));
        assert_eq!(
            one("Prologue: The Storm"),
            chapter("Prologue: The Storm", None)
        );
    }

    #[test]
    fn gutenberg_headings_with_a_full_stop_are_recognised() {
        assert_eq!(
            one("CHAPTER 1. Loomings."),
            chapter("CHAPTER 1. Loomings.", Some(1))
        );
        for line in [
            "CHAPTER 120. The Deck Towards the End of the First Night Watch.",
            "CHAPTER 121. Midnight.—The Forecastle Bulwarks.",
            "CHAPTER 135. The Chase.—Third Day.",
            "CHAPTER II.",
        ] {
            assert!(one(line).is_some(), "{line}");
        }
        for prose in [
            "Chapter 1. It was a dark night.",
            "Chapter 2. Then he went home.",
            "Chapter 3. The End..",
        ] {
            assert_eq!(one(prose), None, "{prose}");
        }
    }

    #[test]
    fn books_volumes_and_numbered_epilogues_are_volumes() {
        assert_eq!(one("BOOK ONE: 1805"), volume("BOOK ONE: 1805", Some(1)));
        assert_eq!(
            one("BOOK FIFTEEN: 1812 - 13"),
            volume("BOOK FIFTEEN: 1812 - 13", Some(15))
        );
        assert_eq!(one("Volume III"), volume("Volume III", Some(3)));
        assert_eq!(
            one("FIRST EPILOGUE: 1813 - 20"),
            volume("FIRST EPILOGUE: 1813 - 20", None)
        );
        assert_eq!(one("SECOND EPILOGUE"), volume("SECOND EPILOGUE", None));
        assert!(one("CHAPTER 105. Does the Whale’s Magnitude Diminish?—Will He Perish?").is_some());
        for prose in [
            "Book two was better.",
            "Booking a room",
            "First epilogue was long",
            "Second Epilogues",
            "Volume control",
        ] {
            assert_eq!(one(prose), None, "{prose}");
        }
    }

    #[test]
    fn english_prose_stays_text() {
        for line in [
            "Chapter one was boring.",
            "Chapter 5 is where it starts",
            "Part of me wanted to stay",
            "Partly cloudy",
            "Prologues are overrated",
            "Chapters",
            "Chapter12",
            "Epilogue. That was all.",
        ] {
            assert_eq!(one(line), None, "{line}");
        }
    }

    #[test]
    fn prose_traps_from_the_brief_stay_text() {
        for line in [
            "他翻到第三章，看了很久。",
            "第一封信",
            "第四本书",
            "第一次见面",
            "第二天",
            "第三个人",
            "第一名",
            "第一章写得很好，但是第二章……",
            "第一章 写得很好，但是第二章……",
            "第一章的时候他还很年轻",
            "第三章里写到了他。",
            "“第一章”他说",
            "「第一章」",
            "第一回合",
            "第三部分",
            "第一篇文章",
            "第一集团军",
            "第一章 这一章写的是他在山中的十年岁月里所经历的种种磨难和奇遇，一直到他终于离开了那座大山为止",
            "第五章 他终于明白了当年师父留下的那句话究竟是什么意思！",
        ] {
            assert_eq!(one(line), None, "{line}");
        }
    }

    #[test]
    fn short_titles_may_end_like_a_question_or_exclamation() {
        assert_eq!(one("第十章 你是谁？"), chapter("第十章 你是谁？", Some(10)));
        assert_eq!(one("第十一章 杀！"), chapter("第十一章 杀！", Some(11)));
        assert_eq!(
            one("第十二章 “走吧！”"),
            chapter("第十二章 “走吧！”", Some(12))
        );
    }

    #[test]
    fn site_labels_before_a_heading_are_left_out_of_it() {
        assert_eq!(
            one("正文 第一回 宴桃园豪杰三结义 斩黄巾英雄首立功"),
            chapter("第一回 宴桃园豪杰三结义 斩黄巾英雄首立功", Some(1))
        );
        assert_eq!(
            one("《》目录 第一回　灵根育孕源流出　心性修持大道生"),
            chapter("第一回 灵根育孕源流出 心性修持大道生", Some(1))
        );
        assert_eq!(one("《西游记》 第二回"), chapter("第二回", Some(2)));
        assert_eq!(one("正文卷 第一章 风起"), chapter("第一章 风起", Some(1)));
        for text in [
            "正文",
            "《水浒传》",
            "《》目录",
            "正文写得很好",
            "目录第一页",
        ] {
            assert_eq!(one(text), None, "{text}");
        }
    }

    #[test]
    fn collapse_spaces_joins_runs_and_drops_edges() {
        assert_eq!(collapse_spaces("  a \u{3000}\u{a0} b  "), "a b");
        assert_eq!(collapse_spaces(""), "");
    }

    #[test]
    fn trim_line_removes_ideographic_space_nbsp_and_bom() {
        assert_eq!(trim_line("\u{feff}\u{3000}\u{a0} 第一章 \t"), "第一章");
    }
}
