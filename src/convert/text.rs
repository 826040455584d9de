//! Plain text to paragraphs.
//!
//! One paragraph per line is the norm for Chinese web novels, but files are often hard-broken in
//! the middle of a sentence (copied from a web page or a fixed-width export). This module decides,
//! for each pair of adjacent lines, whether the first continues into the second, and joins them
//! (without a space between CJK characters, with one between Latin words). Files whose paragraphs
//! are separated by blank lines (Project Gutenberg style) are read as blocks instead.
//!
//! The join rule, for adjacent non-blank lines A and B:
//! - never when either is a scene break, or B opens with a quote, bracket or dash;
//! - always when A ends with a comma or enumeration comma (`，` `、` `,`);
//! - never when A ends with closing punctuation (`。！？…”」』）` and the like, or a colon);
//! - otherwise (A ends with a letter, digit or ideograph): join unless A is a short line without
//!   any punctuation, which is a standalone line such as a scene title (`金军大营`), or a
//!   chapter heading. "Short" is at most 12 characters, or at most 20 and under a third of the
//!   file's median line length. For Latin text B must also start with a lower-case letter.

/// A block of chapter text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A paragraph, trimmed, with broken lines joined.
    Paragraph(String),
    /// A scene break line (`***`, `◇◇◇`...), kept as written.
    SceneBreak(String),
}

/// Punctuation that ends a paragraph.
const CLOSING: &[char] = &[
    '。', '！', '？', '!', '?', '…', '”', '’', '」', '』', '）', ')', '】', '》', '〉', '］', ']',
    '"', '\'', '.', '；', ';', '：', ':', '～', '~', '—', '–', '｝', '}', '＂', '〕', '〗', '〙',
];

/// Punctuation after which a sentence certainly goes on.
const CONTINUING: &[char] = &['，', '、', ',', '‚', '﹐', '﹑'];

/// Characters that open a new utterance: a line starting with one is its own paragraph.
const OPENING: &[char] = &[
    '“', '‘', '「', '『', '（', '(', '【', '《', '〈', '［', '[', '"', '\'', '—', '－', '-', '＂',
    '〔', '〖', '〘', '｛', '{', '·', '•', '*', '#',
];

/// Characters a scene-break line is made of.
const SCENE_BREAK: &[char] = &[
    '*', '＊', '-', '－', '—', '–', '_', '~', '～', '·', '•', '◇', '◆', '○', '●', '□', '■', '☆',
    '★', '※', '=', '＝', '#', '＃', '✲', '❖', '§', '⁂',
];

/// Trims white space, including the ideographic space used as indent and stray BOMs.
pub fn trim_line(line: &str) -> &str {
    line.trim_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}' || c == '\u{200B}')
}

/// True for a line made only of scene-break characters (and spaces).
pub fn is_scene_break(line: &str) -> bool {
    let mut n = 0;
    for c in line.chars() {
        if c.is_whitespace() {
            continue;
        }
        if !SCENE_BREAK.contains(&c) {
            return false;
        }
        n += 1;
    }
    (1..=60).contains(&n)
}

/// CJK ideographs, kana and hangul: text written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FDF | 0x3000..=0x303F | 0x3040..=0x30FF | 0x3100..=0x312F | 0x3190..=0x31FF
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF
        | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
}

/// Splits decoded text into blocks. `text` has `\n` newlines.
pub fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.split('\n').map(trim_line).collect();
    if blank_line_separated(&lines) {
        return block_mode(&lines);
    }
    line_mode(&lines)
}

/// 1-based numbers of the lines that [`blocks`] joins onto the line before them, i.e. where the
/// file looks hard-broken mid-sentence. Empty for blank-line separated text, where paragraphs
/// spanning several lines are the norm. Used by `epubforge check`.
pub fn joined_lines(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.split('\n').map(trim_line).collect();
    if blank_line_separated(&lines) {
        return Vec::new();
    }
    let typical = median_len(&lines);
    let mut out = Vec::new();
    let mut prev: Option<&str> = None;
    // The same walk as `line_mode`, recording joins instead of building paragraphs.
    for (i, &line) in lines.iter().enumerate() {
        if line.is_empty() || is_scene_break(line) {
            prev = None;
            continue;
        }
        if prev.is_some_and(|p| continues(p, line, typical)) {
            out.push(i + 1);
        }
        prev = Some(line);
    }
    out
}

/// True when paragraphs are separated by blank lines and usually span several lines. `lines`
/// are trimmed.
pub(crate) fn blank_line_separated(lines: &[&str]) -> bool {
    let mut runs = 0usize;
    let mut multi = 0usize;
    let mut current = 0usize;
    for line in lines.iter().chain(std::iter::once(&"")) {
        if line.is_empty() {
            if current > 0 {
                runs += 1;
                if current > 1 {
                    multi += 1;
                }
            }
            current = 0;
        } else {
            current += 1;
        }
    }
    runs >= 2 && multi * 2 >= runs
}

fn block_mode(lines: &[&str]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut para = String::new();
    for line in lines.iter().chain(std::iter::once(&"")) {
        if line.is_empty() || is_scene_break(line) {
            if !para.is_empty() {
                out.push(Block::Paragraph(std::mem::take(&mut para)));
            }
            if !line.is_empty() {
                out.push(Block::SceneBreak(line.to_string()));
            }
            continue;
        }
        if !para.is_empty() {
            push_joined(&mut para, line);
        } else {
            para.push_str(line);
        }
    }
    out
}

fn line_mode(lines: &[&str]) -> Vec<Block> {
    let typical = median_len(lines);
    let mut out = Vec::new();
    let mut para = String::new();
    let mut prev: Option<&str> = None;
    for &line in lines {
        if line.is_empty() {
            if !para.is_empty() {
                out.push(Block::Paragraph(std::mem::take(&mut para)));
            }
            prev = None;
            continue;
        }
        if is_scene_break(line) {
            if !para.is_empty() {
                out.push(Block::Paragraph(std::mem::take(&mut para)));
            }
            out.push(Block::SceneBreak(line.to_string()));
            prev = None;
            continue;
        }
        match prev {
            Some(p) if continues(p, line, typical) => push_joined(&mut para, line),
            _ => {
                if !para.is_empty() {
                    out.push(Block::Paragraph(std::mem::take(&mut para)));
                }
                para.push_str(line);
            }
        }
        prev = Some(line);
    }
    if !para.is_empty() {
        out.push(Block::Paragraph(para));
    }
    out
}

/// A chapter or volume heading line stands alone even without punctuation.
fn is_heading(line: &str) -> bool {
    crate::convert::split::split(&[line], &crate::convert::split::SplitMode::Auto)
        .sections
        .first()
        .is_some_and(|s| s.heading.is_some())
}

/// Appends `line` to `para`: directly after or before CJK, with a space between Latin words.
fn push_joined(para: &mut String, line: &str) {
    let last = para.chars().next_back();
    let first = line.chars().next();
    let needs_space = match (last, first) {
        (Some(a), Some(b)) => !(is_cjk(a) || is_cjk(b) || a == '-' && b.is_alphabetic()),
        _ => false,
    };
    if needs_space {
        para.push(' ');
    }
    para.push_str(line);
}

/// Median line length in characters over non-blank lines.
fn median_len(lines: &[&str]) -> usize {
    let mut lens: Vec<usize> = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().count())
        .collect();
    if lens.is_empty() {
        return 0;
    }
    let mid = lens.len() / 2;
    *lens.select_nth_unstable(mid).1
}

/// Does line `a` continue into the next line `b`?
fn continues(a: &str, b: &str, typical: usize) -> bool {
    let (Some(last), Some(first)) = (a.chars().next_back(), b.chars().next()) else {
        return false;
    };
    if OPENING.contains(&first) {
        return false;
    }
    if CONTINUING.contains(&last) {
        return true;
    }
    if CLOSING.contains(&last) || !(last.is_alphanumeric()) {
        return false;
    }
    let has_punctuation = a
        .chars()
        .any(|c| CONTINUING.contains(&c) || CLOSING.contains(&c));
    let len = a.chars().count();
    let short = len <= 12 || (len <= 20 && len * 3 < typical);
    if short && !has_punctuation {
        return false;
    }
    if is_heading(a) {
        return false;
    }
    // A CJK sentence may break before a Latin word or a number, but a Latin line does not run
    // on into a CJK one.
    if is_cjk(last) || (is_cjk(first) && a.chars().any(is_cjk)) {
        return true;
    }
    first.is_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paragraphs(text: &str) -> Vec<String> {
        blocks(text)
            .into_iter()
            .map(|b| match b {
                Block::Paragraph(p) => p,
                Block::SceneBreak(s) => format!("<break {s}>"),
            })
            .collect()
    }

    #[test]
    fn joined_lines_names_the_continuation_lines_blocks_joins() {
        let text = format!(
            "{LONG}\n眼前的魏军阵列俨然，方阵斜拉，与左侧后的\n禁军残部互为犄角，相隔三百余步。\n{LONG}"
        );
        assert_eq!(joined_lines(&text), [3]);
        let nonblank = text
            .split('\n')
            .filter(|l| !trim_line(l).is_empty())
            .count();
        assert_eq!(
            paragraphs(&text).len(),
            nonblank - joined_lines(&text).len()
        );
        assert!(joined_lines("para one\nline two\n\npara two\nmore\n\nthree\nx\n").is_empty());
    }

    const LONG: &str = "魏军接下来的突围也在大汗的预料之中，东胡骑兵全部脱掉沉重的铁甲，换上轻甲甚至不披甲，因为魏军已经是急归的穷兽。";

    #[test]
    fn sample_book_break_in_000_is_joined() {
        let text = format!(
            "{LONG}\n眼前的魏军阵列俨然，方阵斜拉，与左侧后的\n禁军残部互为犄角，相隔三百余步。\n{LONG}"
        );
        let p = paragraphs(&text);
        assert_eq!(p.len(), 3);
        assert_eq!(
            p[1],
            "眼前的魏军阵列俨然，方阵斜拉，与左侧后的禁军残部互为犄角，相隔三百余步。"
        );
    }

    #[test]
    fn sample_book_break_in_001_after_single_character_is_joined() {
        let text = format!(
            "{LONG}\n者被抛弃等死，逃奔的将士有十四万余人，加\n上几万厢军民夫一类，还是堪堪有二十万人。\n{LONG}"
        );
        let p = paragraphs(&text);
        assert_eq!(p.len(), 3);
        assert!(p[1].contains("十四万余人，加上几万厢军"));
    }

    #[test]
    fn short_standalone_line_in_003_stays_a_paragraph() {
        let text = format!("{LONG}\n金军大营\n金兀术正在喝闷酒，一步错，步步错。\n{LONG}");
        let p = paragraphs(&text);
        assert_eq!(p.len(), 4);
        assert_eq!(p[1], "金军大营");
    }

    #[test]
    fn line_ending_with_comma_joins_even_when_short() {
        let p = paragraphs(&format!("{LONG}\n他说，\n今天不走了。"));
        assert_eq!(p[1], "他说，今天不走了。");
    }

    #[test]
    fn closing_punctuation_and_quotes_end_paragraphs() {
        let text = format!(
            "{LONG}\n“四哥。”就在金兀术借酒浇愁的时候\n“七弟，非是四哥贪酒。”\n他问：\n“你想走”"
        );
        let p = paragraphs(&text);
        assert_eq!(p.len(), 5, "{p:?}");
    }

    #[test]
    fn next_line_opening_with_quote_is_not_joined() {
        let p = paragraphs(&format!("{LONG}\n金兀术沉声道\n“七弟，你想多了。”"));
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn long_line_without_punctuation_at_end_is_joined_to_next() {
        let a = "这是一段很长的话没有任何标点符号因为作者写得太快了而且这行被硬生生地截断在了中间的位置上";
        let p = paragraphs(&format!("{LONG}\n{a}\n后面还有半句。"));
        assert_eq!(p.len(), 2);
        assert_eq!(p[1], format!("{a}后面还有半句。"));
    }

    #[test]
    fn latin_lines_join_with_a_space_only_before_lower_case() {
        let text = "The quick brown fox jumps over the lazy dog and then keeps running until the\nnight falls over the hills.\nA new paragraph starts here.";
        let p = paragraphs(text);
        assert_eq!(
            p,
            [
                "The quick brown fox jumps over the lazy dog and then keeps running until the night falls over the hills.",
                "A new paragraph starts here."
            ]
        );
    }

    #[test]
    fn blank_line_separated_files_are_read_as_blocks() {
        let text =
            "It was a dark\nand stormy night.\n\nThe rain fell in\ntorrents.\n\n第一行\n第二行\n";
        assert_eq!(
            paragraphs(text),
            [
                "It was a dark and stormy night.",
                "The rain fell in torrents.",
                "第一行第二行"
            ]
        );
    }

    #[test]
    fn indents_and_whitespace_only_lines_are_trimmed() {
        let p =
            paragraphs("\u{3000}\u{3000}第一段。\n \u{3000} \n\u{3000}\u{3000}第二段。\u{3000}\n");
        assert_eq!(p, ["第一段。", "第二段。"]);
    }

    #[test]
    fn scene_breaks_are_recognised_and_kept() {
        let p = paragraphs(&format!("{LONG}\n＊＊＊\n{LONG}\n◇ ◇ ◇\n{LONG}"));
        assert_eq!(p[1], "<break ＊＊＊>");
        assert_eq!(p[3], "<break ◇ ◇ ◇>");
        assert!(!is_scene_break("……"));
        assert!(!is_scene_break("*重要*"));
    }

    #[test]
    fn joining_never_loses_characters() {
        let text = format!("{LONG}\n与左侧后的\n禁军\n金军大营\n加\n上。\n");
        let joined: String = paragraphs(&text).concat();
        let original: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(joined, original);
    }
}
