//! Japanese heading lines in plain text (web novels, texts without Aozora's 見出し
//! annotations), beside the Chinese and English rules of the `auto` submodule, which already
//! read `第一章`, `第1話`, `第一話`, `序章` and `終章`:
//! - `プロローグ`, `エピローグ`, `幕間`, `閑話`, `間章`, `断章`, `番外編`, `あとがき`, `外伝`,
//!   alone or with a title after a separator (`プロローグ　出会い`, `閑話：勇者の休日`);
//! - `[0001] 出会い`, `【12】旅立ち`, `［１］`: a number in brackets and a title with kana, as
//!   web-novel downloaders number their episodes (a Chinese site's `[0001] 标题` stays one of
//!   the decorated lines the split reports);
//! - a line that is only a kanji number (`一`, `二十三`), as Aozora texts without annotations
//!   and many novels head their chapters: a weak heading, taken only where the whole file
//!   numbers such lines in sequence.
//!
//! Scene breaks (`＊＊＊`, `◇◇◇`, `×`) are breaks, not chapters (`crate::lines::is_scene_break`).

use super::numerals::leading_number;

/// A Japanese heading line's number: `Some(n)` for `[0001] 出会い` or a kanji number, `None`
/// for a keyword heading (`プロローグ`). The caller makes the chapter heading of the line.
pub(super) type Number = Option<u64>;

/// Unnumbered chapter-level headings of Japanese novels.
const KEYWORDS: [&str; 10] = [
    "プロローグ",
    "エピローグ",
    "幕間",
    "閑話",
    "間章",
    "断章",
    "番外編",
    "あとがき",
    "外伝",
    "インターミッション",
];

/// Longest heading line, in characters.
const LONGEST: usize = 40;

/// Separators between a keyword or number and its title.
const SEPARATORS: [char; 8] = ['　', ' ', '：', ':', '・', '－', '-', '—'];

/// A Japanese heading on a trimmed line (a keyword heading or a bracketed number), or None.
pub(super) fn detect(line: &str) -> Option<Number> {
    let first = line.chars().next()?;
    if !matches!(
        first,
        'プ' | 'エ' | '幕' | '閑' | '間' | '断' | '番' | 'あ' | '外' | 'イ' | '[' | '【' | '［'
    ) || line.chars().count() > LONGEST
    {
        return None;
    }
    keyword(line).or_else(|| bracketed(line))
}

/// `プロローグ`, `閑話　勇者の休日`: a keyword alone or with a title after a separator (a
/// sentence that starts with the word, `あとがきを書いた。`, is text).
fn keyword(line: &str) -> Option<Number> {
    let rest = KEYWORDS.iter().find_map(|k| line.strip_prefix(k))?;
    let title = rest.trim_start_matches(SEPARATORS);
    let separated = title.len() < rest.len();
    let numbered = rest.starts_with(|c: char| c.is_ascii_digit() || is_kanji_digit(c));
    let ok = rest.is_empty() || ((separated || numbered) && !sentence(title));
    ok.then_some(None)
}

/// `[0001] 出会い`, `【12】旅立ち`: a number of at most five digits in brackets, then a title
/// with kana in it.
fn bracketed(line: &str) -> Option<Number> {
    let inner = line.strip_prefix(['[', '【', '［'])?;
    let close = inner.find([']', '】', '］'])?;
    let (number, rest) = inner.split_at(close);
    let title = rest
        .get(rest.chars().next()?.len_utf8()..)?
        .trim_start_matches(SEPARATORS);
    let digits = number.chars().count();
    if !(1..=5).contains(&digits) || !number.chars().all(is_digit) {
        return None;
    }
    let kana = title
        .chars()
        .any(|c| matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}'));
    let n = number
        .chars()
        .fold(0u64, |n, c| n * 10 + u64::from(digit(c)));
    (kana && !sentence(title)).then_some(Some(n))
}

/// A line that is only a kanji number (`一`, `十二`, `二十三`): a weak chapter heading.
pub(super) fn lone_kanji_number(line: &str) -> Option<u64> {
    let first = line.chars().next()?;
    if !is_kanji_digit(first) || line.chars().count() > 4 {
        return None;
    }
    let (readings, repaired, end) = leading_number(line)?;
    (end == line.len() && !repaired).then_some(readings.0)
}

/// A title that reads as a sentence: a full stop, a comma, or a closing bracket of speech.
fn sentence(title: &str) -> bool {
    title.contains(['。', '、', '」', '，'])
}

/// `一　「話」らしい話のない小説`: a kanji number, an ideographic space (U+3000, Japanese
/// typesetting's separator) and a title that may quote (a Chinese bare heading with a
/// quotation reads as a sentence); no full stop, not ending with a comma. A weak heading.
pub(super) fn numbered_title(line: &str) -> Option<u64> {
    let (number, title) = line.split_once('\u{3000}')?;
    let title = title.trim_start_matches('\u{3000}');
    let n = number.chars().count();
    if !(1..=4).contains(&n) || !number.chars().all(is_kanji_digit) || title.is_empty() {
        return None;
    }
    let (readings, repaired, end) = leading_number(number)?;
    let fits = title.chars().count() <= 30
        && !title.contains('。')
        && !title.ends_with(['、', '，'])
        && !title.starts_with(is_kanji_digit);
    (end == number.len() && !repaired && fits).then_some(readings.0)
}

fn is_kanji_digit(c: char) -> bool {
    "〇一二三四五六七八九十百千".contains(c)
}

fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || ('０'..='９').contains(&c)
}

fn digit(c: char) -> u32 {
    c.to_digit(10).unwrap_or_else(|| c as u32 - '０' as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heading(line: &str) -> Option<Number> {
        detect(line)
    }

    #[test]
    fn keyword_headings_alone_or_with_a_title() {
        for line in [
            "プロローグ",
            "エピローグ",
            "閑話　勇者の休日",
            "幕間：王都にて",
            "番外編",
            "あとがき",
            "閑話1",
        ] {
            assert!(heading(line).is_some(), "{line}");
        }
        assert_eq!(heading("プロローグ　出会い"), Some(None));
    }

    #[test]
    fn prose_starting_with_a_keyword_stays_text() {
        for line in [
            "あとがきを書いた。",
            "幕間に彼女は言った、もう帰ると。",
            "エピローグのような日々が続いた",
            "外伝、それは本編の外の話だ。",
        ] {
            assert_eq!(heading(line), None, "{line}");
        }
    }

    #[test]
    fn bracketed_numbers_with_a_japanese_title() {
        assert_eq!(heading("[0001] 出会い"), Some(Some(1)));
        assert_eq!(heading("【12】旅立ち"), Some(Some(12)));
        assert_eq!(heading("［１２］はじまりの朝"), Some(Some(12)));
        // A Chinese site's numbered line, a footnote mark, a long number: not taken here.
        assert_eq!(heading("[0001] 标题"), None);
        assert_eq!(heading("[1] 彼は言った、そうだと。"), None);
        assert_eq!(heading("[123456] ある日"), None);
    }

    #[test]
    fn a_lone_kanji_number_is_a_weak_heading() {
        assert_eq!(lone_kanji_number("一"), Some(1));
        assert_eq!(lone_kanji_number("二十三"), Some(23));
        assert!(lone_kanji_number("一人").is_none());
        assert!(lone_kanji_number("一二三四五").is_none());
        assert!(lone_kanji_number("いち").is_none());
    }

    #[test]
    fn a_kanji_number_and_a_title_after_an_ideographic_space() {
        assert_eq!(numbered_title("一　「話」らしい話のない小説"), Some(1));
        assert_eq!(numbered_title("三十一　「西洋の呼び声」"), Some(31));
        assert_eq!(numbered_title("一　彼は言った。"), None);
        assert_eq!(numbered_title("一　二　三"), None);
        assert_eq!(numbered_title("一 half-width space"), None);
    }
}
