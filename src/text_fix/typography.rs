//! Typography: the last step of the text-fix stage, on one line (or text node) at a time.
//!
//! For Chinese and Japanese (on by default) it repairs what copying from web pages and
//! typing on a Latin keyboard leave behind, and nothing else:
//! - `, . ! ? : ;` written half-width between two CJK letters (ideographs or kana)
//!   become full-width (`，。！？：；`; a Japanese comma and full stop are `、` `。`),
//!   together with any spaces around them;
//! - half-width parentheses become full-width as a pair or not at all: `(明)` around CJK
//!   letters becomes `（明）`, and a parenthesis without its other half is left as written
//!   (converting one of a pair, as `(明）`, reads as a typo);
//! - `...` (three or more dots), `。。。` and a stray `…` next to CJK text become `……`;
//! - `--` and a single `—` next to CJK text become `——`;
//! - ASCII spaces between two ideographs go (never in a title, where they separate the
//!   parts of `第一回 宴桃园豪杰三结义 斩黄巾英雄首立功`; the ideographic space U+3000 is
//!   left alone: it separates the halves of a verse).
//!
//! For Latin-script books it is opt-in: straight quotes become curly ones (an apostrophe
//! inside or before a word becomes `’`), `---` an em dash, `--` an en dash and `...` an
//! ellipsis. Both leave URLs (`https://…`, `www.…`) as they are; the caller never hands
//! over code, markup or attribute values.

use std::borrow::Cow;

/// Which typography a book gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typography {
    /// None: the text is left as written.
    Off,
    /// Chinese and Japanese punctuation and spacing; `japanese` picks `、` and `。`.
    Cjk {
        /// Japanese (`、` for a comma) rather than Chinese (`，`).
        japanese: bool,
    },
    /// Smart quotes, dashes and ellipses for Latin-script text.
    Latin,
}

/// Where a piece of text sits: a title keeps its spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A paragraph, or a text node of one.
    Body,
    /// A chapter, part or volume title.
    Title,
}

impl Typography {
    /// Applies the typography to one line; borrowed when nothing changes.
    pub fn apply<'a>(self, line: &'a str, place: Place) -> Cow<'a, str> {
        match self {
            Typography::Off => Cow::Borrowed(line),
            Typography::Cjk { japanese } if might_need_cjk(line) => {
                outside_urls(line, |s, _| cjk(s, japanese, place))
            }
            Typography::Latin if line.contains(['"', '\'', '-', '.']) => outside_urls(line, latin),
            _ => Cow::Borrowed(line),
        }
    }
}

/// Finds, in a whole text, the places the typography might change: a line without one is left
/// as it is, so a caller fixing a whole file looks only at the lines around these.
#[derive(Debug, Clone, Copy)]
pub struct Candidates<'a> {
    text: &'a str,
    typography: Typography,
    /// Whether the text holds `。。。` anywhere (one search for the whole text): otherwise the
    /// lead byte of `。`, `「` and the ideographic space need no second look.
    dots: bool,
}

impl<'a> Candidates<'a> {
    /// The places in `text` that `typography` might change.
    pub fn new(typography: Typography, text: &'a str) -> Candidates<'a> {
        let dots = matches!(typography, Typography::Cjk { .. }) && text.contains("。。。");
        Candidates {
            text,
            typography,
            dots,
        }
    }

    /// The byte position, at or after `from`, of the first one; None when there is no more.
    pub fn next_from(&self, from: usize) -> Option<usize> {
        let rest = self.text.get(from..)?;
        match self.typography {
            Typography::Off => None,
            Typography::Cjk { .. } => next_cjk_mark(rest.as_bytes(), self.dots).map(|i| from + i),
            Typography::Latin => rest.find(['"', '\'', '-', '.']).map(|i| from + i),
        }
    }
}

/// The first byte of `bytes` that starts one of the CJK rules' marks (an ASCII mark, `…`,
/// `—` or, when `dots`, `。。。`). Eight bytes at a time: Chinese text is mostly bytes of
/// 0x80 and above other than the lead bytes 0xE2 (and 0xE3), and looking at each byte of
/// 27 MB of it cost a default build several percent of its time.
fn next_cjk_mark(bytes: &[u8], dots: bool) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // 0xE2 alone, or 0xE2 and 0xE3 together.
    let lead_mask = if dots { ONES * 0xFE } else { u64::MAX };
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    // A byte is zero in `y` when `x & mask` is `value` (the other bytes may flag it too,
    // through a borrow, only after a zero one: the first flagged byte is still looked at).
    let zero = |y: u64| y.wrapping_sub(ONES) & !y & HIGH;
    for chunk in chunks.by_ref() {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        // Some byte from 0x20 to 0x3F (every ASCII mark is; not a line break), or some lead
        // byte.
        let ascii = zero((x & (ONES * 0xE0)) ^ (ONES * 0x20));
        let lead = zero((x & lead_mask) ^ (ONES * 0xE2));
        if ascii | lead != 0
            && let Some(i) = (at..at + 8).find(|&i| is_cjk_mark_at(bytes, i))
        {
            return Some(i);
        }
        at += 8;
    }
    (at..bytes.len()).find(|&i| is_cjk_mark_at(bytes, i))
}

/// Whether one of the CJK rules' marks starts at byte `i`.
fn is_cjk_mark_at(bytes: &[u8], i: usize) -> bool {
    let rest = &bytes[i..];
    match rest[0] {
        b @ 0..0x80 => CJK_ASCII_MARKS[b as usize],
        0xE2 => rest.starts_with("…".as_bytes()) || rest.starts_with("—".as_bytes()),
        0xE3 => rest.starts_with("。。。".as_bytes()),
        _ => false,
    }
}

/// The ASCII bytes the CJK rules may change (or that may be part of what they change).
const CJK_ASCII_MARKS: [bool; 128] = {
    let mut table = [false; 128];
    let marks = b".,!?:;() -";
    let mut i = 0;
    while i < marks.len() {
        table[marks[i] as usize] = true;
        i += 1;
    }
    table
};

/// A cheap test: does the line hold anything the CJK rules could change?
fn might_need_cjk(line: &str) -> bool {
    line.bytes()
        .any(|b| b < 0x80 && CJK_ASCII_MARKS[b as usize])
        || line.contains("。。。")
        || has_lone(line, '…')
        || has_lone(line, '—')
}

/// Whether `c` occurs in `line` without the same character on either side.
fn has_lone(line: &str, c: char) -> bool {
    if !line.contains(c) {
        return false;
    }
    let mut prev = None;
    let mut chars = line.chars().peekable();
    while let Some(x) = chars.next() {
        if x == c && prev != Some(c) && chars.peek() != Some(&c) {
            return true;
        }
        prev = Some(x);
    }
    false
}

/// Runs `fix` on the parts of `line` that are not URLs, with the character before each part.
fn outside_urls<'a>(
    line: &'a str,
    fix: impl Fn(&str, Option<char>) -> Option<String>,
) -> Cow<'a, str> {
    let urls = url_spans(line);
    if urls.is_empty() {
        return fix(line, None).map_or(Cow::Borrowed(line), Cow::Owned);
    }
    let mut out = String::with_capacity(line.len());
    let mut pos = 0;
    let mut changed = false;
    for (start, end) in urls {
        let part = &line[pos..start];
        match fix(part, line[..pos].chars().next_back()) {
            Some(fixed) => {
                changed = true;
                out.push_str(&fixed);
            }
            None => out.push_str(part),
        }
        out.push_str(&line[start..end]);
        pos = end;
    }
    match fix(&line[pos..], line[..pos].chars().next_back()) {
        Some(fixed) => {
            changed = true;
            out.push_str(&fixed);
        }
        None => out.push_str(&line[pos..]),
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(line)
    }
}

/// Byte ranges of the URLs in `line`: `scheme://…` or `www.…` up to white space or a
/// character that cannot be part of a URL as people write them in prose.
pub(crate) fn url_spans(line: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while let Some(found) = next_url_start(line, i) {
        let end = found
            + line[found..]
                .find(|c: char| c.is_whitespace() || !c.is_ascii() || "<>\"`".contains(c))
                .unwrap_or(line.len() - found);
        spans.push((found, end));
        i = end.max(found + 1);
        while i < bytes.len() && !line.is_char_boundary(i) {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
    }
    spans
}

fn next_url_start(line: &str, from: usize) -> Option<usize> {
    let rest = line.get(from..)?;
    let scheme = rest.find("://").and_then(|k| {
        let start = rest[..k]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'))
            .map_or(0, |(p, c)| p + c.len_utf8());
        (start < k).then_some(start)
    });
    let www = rest
        .match_indices("www.")
        .map(|(k, _)| k)
        .find(|&k| k == 0 || !rest.as_bytes()[k - 1].is_ascii_alphanumeric());
    match (scheme, www) {
        (Some(a), Some(b)) => Some(from + a.min(b)),
        (a, b) => a.or(b).map(|k| from + k),
    }
}

/// Ideographs and kana: the letters of CJK text.
fn is_cjk_letter(c: char) -> bool {
    is_ideograph(c) || matches!(c as u32, 0x3040..=0x30FF | 0x31F0..=0x31FF)
}

/// Han ideographs (and `〇`, which stands among them as a numeral).
fn is_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3007 | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3FFFF)
}

/// CJK letters and the CJK punctuation and symbols blocks: text a `...` or `—` belongs to.
fn is_cjk_context(c: char) -> bool {
    is_cjk_letter(c) || matches!(c as u32, 0x3000..=0x303F | 0xFF00..=0xFFEF | 0x2018..=0x201F)
}

fn full_width(c: char, japanese: bool) -> Option<char> {
    Some(match c {
        ',' if japanese => '、',
        ',' => '，',
        '.' => '。',
        '!' => '！',
        '?' => '？',
        ':' => '：',
        ';' => '；',
        _ => return None,
    })
}

/// Whether the character at `i` stands inside a chapter numeral (`第十—回`, `第—百回`): a
/// dash typed for 一, which the split reads as such and `check` reports; doubled, it would
/// hide the heading.
fn in_numeral(chars: &[char], i: usize) -> bool {
    let numeral = |c: char| "〇零一二三四五六七八九十百千两".contains(c);
    let before = i.checked_sub(1).and_then(|b| chars.get(b));
    let after = chars.get(i + 1);
    before.is_some_and(|&c| c == '第' || numeral(c))
        && after.is_some_and(|&c| numeral(c) || "章回节節卷集部篇".contains(c))
}

/// The CJK rules over one piece of text without URLs; None when nothing changes.
fn cjk(text: &str, japanese: bool, place: Place) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let pairs = cjk_pairs(&chars);
    let mut out = String::with_capacity(text.len() + 8);
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        let before = last_non_space(&chars[..i]);
        let after = chars[i + run..].iter().copied().find(|&x| x != ' ');
        let near_cjk = before.is_some_and(is_cjk_context) || after.is_some_and(is_cjk_context);
        let replacement: Option<String> = match c {
            '.' if run >= 3 && near_cjk => Some("……".into()),
            '。' if run >= 3 => Some("……".into()),
            '…' if run == 1 && near_cjk => Some("……".into()),
            '-' if run == 2 && near_cjk => Some("——".into()),
            '—' if run == 1 && near_cjk && !in_numeral(&chars, i) => Some("——".into()),
            '(' | ')' if pairs.binary_search(&i).is_ok() => {
                // Spaces around the mark go with it.
                while out.ends_with(' ') {
                    out.pop();
                }
                let full = if c == '(' { "（" } else { "）" };
                changed = true;
                out.push_str(full);
                i += 1;
                while chars.get(i) == Some(&' ') {
                    i += 1;
                }
                continue;
            }
            '(' | ')' => None,
            ' ' if place == Place::Body
                && chars
                    .get(i.wrapping_sub(1))
                    .copied()
                    .is_some_and(is_ideograph)
                && chars.get(i + run).copied().is_some_and(is_ideograph) =>
            {
                Some(String::new())
            }
            _ if run == 1
                && before.is_some_and(is_cjk_letter)
                && after.is_some_and(is_cjk_letter) =>
            {
                full_width(c, japanese).map(|f| {
                    // Spaces around the mark go with it.
                    while out.ends_with(' ') {
                        out.pop();
                    }
                    f.to_string()
                })
            }
            _ => None,
        };
        match replacement {
            Some(r) => {
                changed = true;
                out.push_str(&r);
                i += run;
                if r.chars().all(|x| "，、。！？：；（）".contains(x)) && !r.is_empty() {
                    while chars.get(i) == Some(&' ') {
                        i += 1;
                    }
                }
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    changed.then_some(out)
}

/// The positions of the half-width parentheses that become full-width: both halves of each
/// matched pair whose inside begins and ends with a CJK letter (`(明)`, `(第一回)`), never
/// one without the other. Nesting is followed with a stack; an unmatched half is left.
fn cjk_pairs(chars: &[char]) -> Vec<usize> {
    let mut open = Vec::new();
    let mut pairs = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '(' => open.push(i),
            ')' => {
                let Some(start) = open.pop() else {
                    continue;
                };
                let inside = &chars[start + 1..i];
                let first = inside.iter().copied().find(|&x| x != ' ');
                let last = last_non_space(inside);
                if first.is_some_and(is_cjk_letter) && last.is_some_and(is_cjk_letter) {
                    pairs.push(start);
                    pairs.push(i);
                }
            }
            _ => {}
        }
    }
    pairs.sort_unstable();
    pairs
}

fn last_non_space(chars: &[char]) -> Option<char> {
    chars.iter().rev().copied().find(|&x| x != ' ')
}

/// Smart quotes, dashes and ellipses (`before` is the character before `text`, if any);
/// None when nothing changes.
fn latin(text: &str, before: Option<char>) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev = i.checked_sub(1).map(|k| chars[k]).or(before);
        let next = chars.get(i + 1).copied();
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        let replacement: Option<(&str, usize)> = match c {
            '-' if run == 3 => Some(("—", 3)),
            '-' if run == 2 => Some(("–", 2)),
            '.' if run == 3 => Some(("…", 3)),
            '"' => Some((if opens(prev) { "“" } else { "”" }, 1)),
            '\'' => {
                let apostrophe = prev.is_some_and(char::is_alphanumeric)
                    || (opens(prev) && next.is_some_and(|n| n.is_ascii_digit()));
                Some((
                    if apostrophe || !opens(prev) {
                        "’"
                    } else {
                        "‘"
                    },
                    1,
                ))
            }
            _ => None,
        };
        match replacement {
            Some((r, n)) => {
                changed = true;
                out.push_str(r);
                i += n;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    changed.then_some(out)
}

/// A quote after this character (or at the start) opens.
fn opens(prev: Option<char>) -> bool {
    prev.is_none_or(|p| p.is_whitespace() || "([{<—–-/“‘".contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_candidate_is_the_first_mark_wherever_it_falls_in_a_chunk() {
        let cjk = Typography::Cjk { japanese: false };
        let ascii = [".", ",", "!", "?", ":", ";", "(", ")", " ", "-"];
        for mark in ascii.into_iter().chain(["…", "—", "。。。"]) {
            for pad in 0..20 {
                // Ideographs (3 bytes), 。 (a lone lead byte 0xE3), “ (lead byte 0xE2), digits,
                // a line break.
                let text = format!("{}“。7\n{mark}好", "中".repeat(pad));
                let naive = (0..text.len()).find(|&i| is_cjk_mark_at(text.as_bytes(), i));
                let found = Candidates::new(cjk, &text).next_from(0);
                assert_eq!(found, naive, "{text}");
                assert_eq!(naive, text.find(mark), "{text}");
            }
        }
        assert_eq!(Candidates::new(cjk, "中文。。字“”").next_from(0), None);
        assert_eq!(Candidates::new(cjk, "a.b").next_from(2), None);
        assert_eq!(Candidates::new(cjk, "a.b.").next_from(2), Some(3));
    }

    const ZH: Typography = Typography::Cjk { japanese: false };

    fn zh(s: &str) -> String {
        ZH.apply(s, Place::Body).into_owned()
    }

    #[test]
    fn half_width_punctuation_between_han_becomes_full_width() {
        assert_eq!(zh("他说,我来了.你呢?好!"), "他说，我来了。你呢？好!");
        assert_eq!(zh("甲:乙;丙(丁)戊"), "甲：乙；丙（丁）戊");
        assert_eq!(zh("他说, 我来了"), "他说，我来了");
        let ja = Typography::Cjk { japanese: true };
        assert_eq!(ja.apply("これは,ペンです", Place::Body), "これは、ペンです");
    }

    #[test]
    fn parentheses_become_full_width_as_a_pair_or_not_at_all() {
        // Regression: `(明)` became `(明）`, only the half between two ideographs converted.
        assert_eq!(zh("(明)冯梦龙"), "（明）冯梦龙");
        assert_eq!(zh("作者(明)"), "作者（明）");
        assert_eq!(zh("他说 (笑) 好"), "他说（笑）好");
        assert_eq!(zh("甲(乙(丙)丁)戊"), "甲（乙（丙）丁）戊");
        // A half without its other half is left as written.
        for s in ["他说)好", "他说(好", "甲(乙)丙)丁"] {
            let out = zh(s);
            let full = out.matches(['（', '）']).count();
            assert_eq!(full % 2, 0, "{s} -> {out}");
        }
        assert_eq!(zh("他说)好"), "他说)好");
        assert_eq!(zh("甲(乙)丙)丁"), "甲（乙）丙)丁");
        // Latin or digits inside: the pair stays half-width.
        assert_eq!(zh("函数f(x)的值(1)项"), "函数f(x)的值(1)项");
        assert_eq!(zh("他(Tom)说"), "他(Tom)说");
    }

    #[test]
    fn punctuation_next_to_latin_or_digits_is_left_alone() {
        for s in [
            "版本1.0发布",
            "他用Rust, Go写",
            "共3,000人",
            "f(x)的值",
            "好!",
            "Hello, world.",
            "他说:“走。”",
        ] {
            assert_eq!(zh(s), s, "{s}");
        }
    }

    #[test]
    fn dots_and_stray_ellipses_become_a_double_ellipsis() {
        assert_eq!(zh("他想了想...走了"), "他想了想……走了");
        assert_eq!(zh("他想了想。。。走了"), "他想了想……走了");
        assert_eq!(zh("他想了想…走了"), "他想了想……走了");
        assert_eq!(zh("他想了想……走了"), "他想了想……走了");
        assert_eq!(zh("Wait... what"), "Wait... what");
    }

    #[test]
    fn double_hyphens_and_single_dashes_become_a_double_dash() {
        assert_eq!(zh("他--不，是她"), "他——不，是她");
        assert_eq!(zh("他—不，是她"), "他——不，是她");
        assert_eq!(zh("他——不"), "他——不");
        // A dash typed for 一 inside a chapter numeral stays for the split to read.
        assert_eq!(zh("第十—回"), "第十—回");
        assert_eq!(zh("第—百回"), "第—百回");
        assert_eq!(zh("----"), "----");
        assert_eq!(zh("a--b"), "a--b");
        assert_eq!(zh("-----分割线-----"), "-----分割线-----");
    }

    #[test]
    fn spaces_between_ideographs_go_in_the_body_only() {
        assert_eq!(zh("他 说 话"), "他说话");
        assert_eq!(zh("用 Rust 写"), "用 Rust 写");
        assert_eq!(
            zh("滚滚长江东逝水\u{3000}浪花淘尽英雄"),
            "滚滚长江东逝水\u{3000}浪花淘尽英雄"
        );
        let title = "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功";
        assert_eq!(ZH.apply(title, Place::Title), title);
    }

    #[test]
    fn urls_are_never_touched() {
        let s = "请访问http://www.example.com/a,b...c/--d 下载";
        assert_eq!(zh(s), s);
        assert_eq!(
            zh("见www.example.com/x...y,再说...好"),
            "见www.example.com/x...y,再说……好"
        );
        assert_eq!(
            Typography::Latin.apply("see \"https://a.org/it's\" now", Place::Body),
            "see “https://a.org/it's” now"
        );
    }

    #[test]
    fn latin_smart_quotes_dashes_and_ellipses() {
        let l = |s: &str| Typography::Latin.apply(s, Place::Body).into_owned();
        assert_eq!(l("\"Hello,\" she said."), "“Hello,” she said.");
        assert_eq!(l("it's 'quoted' in the '90s"), "it’s ‘quoted’ in the ’90s");
        assert_eq!(l("wait--no---stop..."), "wait–no—stop…");
        assert_eq!(l("plain text"), "plain text");
        assert_eq!(l("a - b"), "a - b");
        assert_eq!(l("...."), "....");
    }

    #[test]
    fn off_changes_nothing() {
        assert_eq!(
            Typography::Off.apply("他说,我来了...", Place::Body),
            "他说,我来了..."
        );
    }
}
