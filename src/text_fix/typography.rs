//! Typography: the last step of the text-fix stage, on one line (or text node) at a time.
//!
//! For Chinese and Japanese (on by default) it repairs what copying from web pages and
//! typing on a Latin keyboard leave behind, and nothing else:
//! - `, . ! ? : ; ( )` written half-width between two CJK letters (ideographs or kana)
//!   become full-width (`，。！？：；（）`; a Japanese comma and full stop are `、` `。`),
//!   together with any spaces around them;
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

/// A cheap test: does the line hold anything the CJK rules could change?
fn might_need_cjk(line: &str) -> bool {
    const ASCII: [bool; 256] = {
        let mut table = [false; 256];
        let marks = b".,!?:;() -";
        let mut i = 0;
        while i < marks.len() {
            table[marks[i] as usize] = true;
            i += 1;
        }
        table
    };
    line.bytes().any(|b| ASCII[b as usize])
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
        '(' => '（',
        ')' => '）',
        _ => return None,
    })
}

/// The CJK rules over one piece of text without URLs; None when nothing changes.
fn cjk(text: &str, japanese: bool, place: Place) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
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
            '—' if run == 1 && near_cjk => Some("——".into()),
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
