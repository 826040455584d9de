//! A chapter heading glued to its chapter's first sentence, as some downloads of classical
//! novels write every `回`: the couplet title (回目) and then the text on the same line.
//!
//! ```text
//! 第一回    望成名學究訓頑兒　講制藝鄉紳勖後進話說陝西同州府朝邑縣，城南三十四地方…
//!     第二回 俏潘娘帘下勾情老王婆茶坊说技诗曰：芙蓉面，冰雪肌，生来娉婷年已笄。…
//! ```
//!
//! Where the title ends is read from the couplet: its two halves are as long as each other.
//! With a space between them (官場現形記), the second half is as long as the first and the
//! text starts after it; without one (金瓶梅), the title is an even number of characters
//! followed by the words a chapter of a classical novel opens with (`诗曰` `词曰` `话说`
//! `却说` `且说` …). The text must then read as a sentence (a comma, a colon or a full stop
//! soon). Anything else stays text: `第二回忘记了哪一年，…` (prose), a heading with halves of
//! different lengths and nothing glued on (which [`super::detect`] takes on its own).

use super::numbered::di_number_unit;
use super::{Found, collapse_spaces, is_space};
use crate::convert::split::HeadingKind;

/// Characters in each half of a couplet title.
const HALF: std::ops::RangeInclusive<usize> = 5..=12;

/// The words a classical novel's chapter opens with, which end a title written without a
/// space between its halves.
const OPENERS: [&str; 17] = [
    "诗曰", "詩曰", "词曰", "詞曰", "诗云", "詩云", "词云", "詞云", "话说", "話說", "却说", "卻說",
    "且说", "且說", "上回", "话表", "話表",
];

/// How far into the glued text a sentence's punctuation must come, in characters.
const SENTENCE_WITHIN: usize = 40;

/// A heading glued to text on a trimmed line: the heading, and the byte where the text glued
/// to it starts.
pub(crate) fn glued(line: &str) -> Option<(Found, usize)> {
    let di = di_number_unit(line)?;
    if !matches!(di.unit, '回' | '章') {
        return None;
    }
    let after = di.rest.trim_start_matches(is_space);
    let start = line.len() - after.len();
    let end = start + spaced_halves(after).or_else(|| opener_after(after))?;
    let rest = line[end..].trim_start_matches(is_space);
    if !reads_as_sentence(rest) {
        return None;
    }
    let found = Found {
        kind: HeadingKind::Chapter,
        title: collapse_spaces(&line[..end]),
        number: Some(di.number.0),
        other: di.number.1,
        repaired: di.repaired,
    };
    Some((found, line.len() - rest.len()))
}

/// Whether a character is a CJK ideograph (no punctuation, no letter of another script).
fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FFFF}')
}

/// The bytes of the leading run of ideographs of `text`, and how many they are.
fn ideographs(text: &str) -> (usize, usize) {
    let mut count = 0;
    for (i, c) in text.char_indices() {
        if !is_ideograph(c) {
            return (i, count);
        }
        count += 1;
    }
    (text.len(), count)
}

/// Two halves of a title with white space between them: the bytes of `text` they take, the
/// second half as long as the first.
fn spaced_halves(text: &str) -> Option<usize> {
    let (first, n) = ideographs(text);
    if !HALF.contains(&n) {
        return None;
    }
    let second = text[first..].trim_start_matches(is_space);
    if second.len() == text.len() - first {
        return None;
    }
    let (_, m) = ideographs(second);
    if m < n {
        return None;
    }
    let at = second
        .char_indices()
        .nth(n)
        .map_or(second.len(), |(i, _)| i);
    Some(text.len() - second.len() + at)
}

/// A title of two halves written together, followed by an opening word: its bytes.
fn opener_after(text: &str) -> Option<usize> {
    let (run, _) = ideographs(text);
    let run = &text[..run];
    let starts: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
    HALF.map(|n| 2 * n).find_map(|k| {
        let at = *starts.get(k)?;
        OPENERS
            .iter()
            .any(|o| run[at..].starts_with(o))
            .then_some(at)
    })
}

/// Whether the text glued to a heading reads as the start of the chapter: it starts with an
/// ideograph and has a sentence's punctuation soon.
fn reads_as_sentence(rest: &str) -> bool {
    rest.starts_with(is_ideograph)
        && rest
            .chars()
            .take(SENTENCE_WITHIN)
            .any(|c| matches!(c, '，' | '。' | '：' | '；' | '！' | '？' | '、'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str) -> Option<(String, &str)> {
        glued(line).map(|(f, at)| (f.title, &line[at..]))
    }

    #[test]
    fn a_couplet_with_a_space_between_its_halves_ends_where_the_second_does() {
        let line =
            "第一回\u{a0}\u{a0}望成名學究訓頑兒\u{3000}講制藝鄉紳勖後進話說陝西同州府朝邑縣，城南";
        let (title, rest) = split(line).unwrap();
        assert_eq!(title, "第一回 望成名學究訓頑兒 講制藝鄉紳勖後進");
        assert_eq!(rest, "話說陝西同州府朝邑縣，城南");
        let (f, _) = glued(line).unwrap();
        assert_eq!(f.number, Some(1));
        assert_eq!(f.kind, HeadingKind::Chapter);
    }

    #[test]
    fn a_couplet_written_together_ends_at_the_opening_words() {
        let line =
            "第五十二回 应伯爵山洞戏春娇潘金莲花园调爱婿诗曰：春楼晓日珠帘映，红粉春妆宝镜催。";
        let (title, rest) = split(line).unwrap();
        assert_eq!(title, "第五十二回 应伯爵山洞戏春娇潘金莲花园调爱婿");
        assert_eq!(rest, "诗曰：春楼晓日珠帘映，红粉春妆宝镜催。");
        let (f, _) = glued(line).unwrap();
        assert_eq!(f.number, Some(52));
        // No space after the number either.
        let (title, _) = split("第五十八回潘金莲打狗伤人孟玉楼周贫磨镜诗曰：愁").unwrap();
        assert_eq!(title, "第五十八回潘金莲打狗伤人孟玉楼周贫磨镜");
    }

    #[test]
    fn prose_and_plain_headings_are_not_glued() {
        for line in [
            "第二回忘记了哪一年，总之是募集湖北水灾捐而谭叫天",
            "第一回合他就输了，输得很惨。",
            // Halves of different lengths, nothing glued on: a heading of its own.
            "第四十一回 燕云十八飞骑 奔腾如虎风烟举",
            "第十九回 骏马嘶风倩影 惊鸿掠水未留痕",
            "第一回 恩仇未了相思债 利害云何骨肉情(上)",
            "第一回 西门庆热结十弟兄 武二郎冷遇亲哥嫂",
            "第五章奋斗(1927-1935) 111几个扎根于泥土的共产党员，或许会像",
            "第一章中讨论的经济学十大原理之一是；市场通常是一种组织经济活动的好方法。",
            "第八章\u{3000}战争的第三年。普拉提亚之围。佛米奥在海战中获胜。",
            "第三节 课上他说，诗曰：床前明月光。",
        ] {
            assert_eq!(split(line), None, "{line}");
        }
    }
}
