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
//! - never when B opens with a header label (`作者：`, `内容简介：`);
//! - otherwise (A ends with a letter, digit or ideograph): join unless A is a download's header
//!   line (`作者：某某`), a short line without any punctuation, which is a standalone line such
//!   as a scene title (`金军大营`) or a contents line, or a chapter heading. "Short" is at most
//!   12 characters, or at most 20 and under a third of the file's median line length. For
//!   Latin text B must also start with a lower-case letter.
//!
//! In a file that marks paragraphs by indenting their first line, a flush line continues the
//! line before it, unless that line is short (and does not end with a comma) or the flush
//! line opens with a header label.

use crate::lines::{blank_line_separated, is_cjk, is_scene_break, picture, trim_line};

/// A block of chapter text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A paragraph, trimmed, with broken lines joined.
    Paragraph(String),
    /// A scene break line (`***`, `◇◇◇`...), kept as written.
    SceneBreak(String),
    /// A Project Gutenberg `[Illustration: caption]` marker, on one line (see
    /// [`super::gutenberg::illustrations`]).
    Illustration(String),
    /// A picture line, `![alt](path)` or `[img:path]` (see [`picture`]), as written.
    Picture(String),
    /// A web novel's page break, `［newpage］` or `【改ページ】` (see
    /// [`super::aozora::is_page_break`]): the next block starts a page.
    PageBreak,
}

/// A line that is a block of its own whatever its neighbours: a scene break, an illustration
/// marker or a picture (unless the line is an example: see [`Lines::example`]).
fn standalone(line: &str, example: bool) -> Option<Block> {
    if super::aozora::is_page_break(line) {
        Some(Block::PageBreak)
    } else if is_scene_break(line) {
        Some(Block::SceneBreak(line.to_string()))
    } else if super::gutenberg::is_illustration(line) {
        Some(Block::Illustration(line.to_string()))
    } else if !example && picture(line).is_some() {
        Some(Block::Picture(line.to_string()))
    } else {
        None
    }
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

/// Splits decoded text into blocks. `text` has `\n` newlines; `plain`: the caller found it
/// plain ([`super::aozora::marks::is_plain`]: no kana, so not Japanese), which saves looking
/// for kana line by line (false: look).
pub fn blocks(text: &str, plain: bool) -> Vec<Block> {
    let lines = Lines::of(text, plain);
    if blank_line_separated(&lines.text) && !lines.japanese {
        return block_mode(&lines);
    }
    line_mode(&lines)
}

/// A text's lines, trimmed, with whether each was indented.
struct Lines<'a> {
    text: Vec<&'a str>,
    indented: Vec<bool>,
    /// Lines a manual shows as examples: indented as Markdown indents code (four spaces or a
    /// tab, in a file where most lines are not), or between ``` fences. A picture written
    /// there is shown, not loaded.
    example: Vec<bool>,
    /// The file marks paragraphs by indenting their first line (see [`indent_marks_paragraphs`]).
    indent_marks: bool,
    /// Japanese text written the Japanese way (see [`japanese_paragraphs`]): every line is a
    /// paragraph, never joined to the next.
    japanese: bool,
}

impl<'a> Lines<'a> {
    /// The lines of `text`; `plain`: it holds no kana, so it is not Japanese.
    fn of(text: &'a str, plain: bool) -> Lines<'a> {
        let raw: Vec<&str> = text.split('\n').collect();
        let text: Vec<&str> = raw.iter().map(|l| trim_line(l)).collect();
        let indented: Vec<bool> = raw.iter().zip(&text).map(|(r, t)| indented(r, t)).collect();
        let indent_marks = indent_marks_paragraphs(&text, &indented);
        // Where most lines are indented so, the indent marks paragraphs, not examples.
        let code_like = |r: &str| r.starts_with("    ") || r.starts_with('\t');
        let written = text.iter().filter(|t| !t.is_empty()).count();
        let code_indent = raw.iter().filter(|r| code_like(r)).count() * 2 < written;
        let mut fenced = false;
        let example = raw
            .iter()
            .zip(&text)
            .map(|(r, t)| {
                let fence = t.starts_with("```");
                fenced ^= fence;
                fence || fenced || (code_indent && code_like(r))
            })
            .collect();
        Lines {
            japanese: !plain && japanese_paragraphs(&raw),
            text,
            indented,
            example,
            indent_marks,
        }
    }

    /// Line `i` as a block of its own (see [`standalone`]), if it is one.
    fn standalone(&self, i: usize) -> Option<Block> {
        standalone(self.text[i], self.example[i])
    }

    /// Whether line `i` starts a paragraph of its own because of its indent.
    fn opens_paragraph(&self, i: usize) -> bool {
        self.indent_marks && self.indented.get(i).copied().unwrap_or(false)
    }

    /// Whether line `i` continues the line `prev` before it: in a file that marks paragraphs
    /// by indenting their first line, a flush line always does (it was wrapped, whatever the
    /// line before ends with); elsewhere the join rule of the module doc decides.
    fn continues(&self, prev: &str, i: usize, typical: usize) -> bool {
        if self.japanese {
            return false;
        }
        let line = self.text[i];
        if self.indent_marks && !self.indented[i] {
            // Unless the line before is well short of the wrap width (a header or contents
            // line, not a wrapped one), or the flush line is a header line.
            let short = prev.chars().count() * 2 < typical;
            return prev.ends_with(CONTINUING) || !(short || starts_with_label(line));
        }
        continues(prev, line, typical)
    }
}

/// Japanese prose as Aozora Bunko and web novels write it: a paragraph is one line, opening
/// with an ideographic space (U+3000) or, for dialogue, a corner bracket `「『`, and a line
/// break is the author's (a verse, a line of a play). Taken when kana is in at least a fifth
/// of the lines and at least a third open so. Such lines are never joined, and blank lines
/// between them do not make blocks of several lines.
fn japanese_paragraphs(raw: &[&str]) -> bool {
    let (mut lines, mut kana, mut opened) = (0usize, 0usize, 0usize);
    for line in raw.iter().filter(|l| !l.trim().is_empty()) {
        lines += 1;
        kana += usize::from(
            line.chars()
                .any(|c| matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}')),
        );
        opened += usize::from(line.starts_with(['\u{3000}', '「', '『']));
    }
    lines > 0 && kana * 5 >= lines && opened * 3 >= lines
}

/// A line that starts with white space: two spaces, a tab, an ideographic space.
fn indented(raw: &str, trimmed: &str) -> bool {
    let lead = &raw[..raw.len() - raw.trim_start().len()];
    !trimmed.is_empty() && (lead.contains(['\t', '\u{3000}']) || lead.chars().count() >= 2)
}

/// A file hard-wrapped with the first line of each paragraph indented and the others flush
/// (水浒传 from rain8.com): indented and flush lines each make at least a fifth of the text,
/// and the lines a flush line follows are wrapped, mostly of one length. A file indenting
/// every line, or none, or some paragraphs and not others, says nothing by it.
fn indent_marks_paragraphs(lines: &[&str], indented: &[bool]) -> bool {
    let total = lines.iter().filter(|l| !l.is_empty()).count();
    let deep = indented.iter().filter(|&&i| i).count();
    let flush = total - deep;
    if deep < 3 || flush < 3 || deep * 5 < total || flush * 5 < total {
        return false;
    }
    // The lengths of the lines that run on into a flush line: the wrap width, give or take a
    // wide character or punctuation that did not fit.
    let mut lengths: Vec<usize> = (1..lines.len())
        .filter(|&i| !indented[i] && !lines[i].is_empty() && !lines[i - 1].is_empty())
        .map(|i| lines[i - 1].chars().count() + usize::from(indented[i - 1]) * 2)
        .collect();
    if lengths.len() < 3 {
        return false;
    }
    lengths.sort_unstable();
    let width = lengths[lengths.len() * 3 / 4];
    let wrapped = lengths
        .iter()
        .filter(|&&n| n + 3 >= width && n <= width + 3)
        .count();
    // And that width is the longest lines': nothing runs past a wrap.
    let mut all: Vec<usize> = lines
        .iter()
        .zip(indented)
        .filter(|(l, _)| !l.is_empty())
        .map(|(l, &i)| l.chars().count() + usize::from(i) * 2)
        .collect();
    all.sort_unstable();
    let longest = all[all.len() * 9 / 10];
    wrapped * 5 >= lengths.len() * 3 && width + 3 >= longest
}

/// 1-based numbers of the lines that [`blocks`] joins onto the line before them, i.e. where the
/// file looks hard-broken mid-sentence. Empty for blank-line separated text, where paragraphs
/// spanning several lines are the norm. Used by `epubforge check`.
pub fn joined_lines(text: &str) -> Vec<usize> {
    let lines = Lines::of(text, false);
    if blank_line_separated(&lines.text) {
        return Vec::new();
    }
    let typical = median_len(&lines.text);
    let mut out = Vec::new();
    let mut prev: Option<&str> = None;
    // The same walk as `line_mode`, recording joins instead of building paragraphs.
    for (i, &line) in lines.text.iter().enumerate() {
        if line.is_empty() || lines.standalone(i).is_some() {
            prev = None;
            continue;
        }
        if prev.is_some_and(|p| !lines.opens_paragraph(i) && lines.continues(p, i, typical)) {
            out.push(i + 1);
        }
        prev = Some(line);
    }
    out
}

/// Paragraphs separated by blank lines: the lines of each are joined. A block whose first line
/// is indented and which indents other lines too holds several paragraphs, each starting at
/// an indented line (a hard-wrapped chapter with blank lines only around its poems).
fn block_mode(lines: &Lines<'_>) -> Vec<Block> {
    let mut out = Vec::new();
    let mut start = 0;
    let n = lines.text.len();
    while start < n {
        let line = lines.text[start];
        if line.is_empty() {
            start += 1;
            continue;
        }
        if let Some(block) = lines.standalone(start) {
            out.push(block);
            start += 1;
            continue;
        }
        let end = (start..n)
            .find(|&i| lines.text[i].is_empty() || lines.standalone(i).is_some())
            .unwrap_or(n);
        let indents = &lines.indented[start..end];
        let several = indents[0]
            && indents.iter().filter(|&&i| i).count() >= 2
            && indents.iter().any(|&i| !i);
        let mut para = String::new();
        for i in start..end {
            if several && lines.indented[i] && !para.is_empty() {
                out.push(Block::Paragraph(std::mem::take(&mut para)));
            }
            push_joined(&mut para, lines.text[i]);
        }
        out.push(Block::Paragraph(para));
        start = end;
    }
    out
}

fn line_mode(lines: &Lines<'_>) -> Vec<Block> {
    let typical = median_len(&lines.text);
    let mut out = Vec::new();
    let mut para = String::new();
    let mut prev: Option<&str> = None;
    for (i, &line) in lines.text.iter().enumerate() {
        if line.is_empty() {
            if !para.is_empty() {
                out.push(Block::Paragraph(std::mem::take(&mut para)));
            }
            prev = None;
            continue;
        }
        if let Some(block) = lines.standalone(i) {
            if !para.is_empty() {
                out.push(Block::Paragraph(std::mem::take(&mut para)));
            }
            out.push(block);
            prev = None;
            continue;
        }
        match prev {
            Some(p) if !lines.opens_paragraph(i) && lines.continues(p, i, typical) => {
                push_joined(&mut para, line)
            }
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
    crate::convert::split::split(&[line], &crate::book::SplitMode::Auto)
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

/// A short line: at most 12 characters, or at most 20 and under a third of the file's typical
/// (median) line. A hard-broken line runs to the wrap width, so a short line ends its
/// paragraph (unless it ends with a comma): a header line (`作者：某某`), a contents line, a
/// scene title.
fn is_short(line: &str, typical: usize) -> bool {
    let len = line.chars().count();
    len <= 12 || (len <= 20 && len * 3 < typical)
}

/// Labels of a download's header lines (`作者：某某`, `内容简介：`).
const HEADER_LABELS: [&str; 16] = [
    "作者",
    "书名",
    "書名",
    "内容简介",
    "內容簡介",
    "简介",
    "簡介",
    "内容提要",
    "文案",
    "类别",
    "类型",
    "字数",
    "状态",
    "标签",
    "主角",
    "译者",
];

/// A line that opens with a header label and a colon (`作者：某某`): never part of the
/// paragraph before it.
fn starts_with_label(line: &str) -> bool {
    HEADER_LABELS.iter().any(|label| {
        line.strip_prefix(label)
            .is_some_and(|rest| rest.trim_start().starts_with(['：', ':']))
    })
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
    if CLOSING.contains(&last) || !(last.is_alphanumeric()) || starts_with_label(b) {
        return false;
    }
    // A header line (`作者：（明）罗贯中`) ends its paragraph; so does a short line without
    // punctuation (a scene title, a contents line). A short line with a comma inside is the
    // head of a hard-broken sentence (`方阵斜拉，与左侧后的`) and goes on.
    let has_punctuation = a
        .chars()
        .any(|c| CONTINUING.contains(&c) || CLOSING.contains(&c));
    if starts_with_label(a) || (is_short(a, typical) && !has_punctuation) {
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
        blocks(text, false)
            .into_iter()
            .map(|b| match b {
                Block::Paragraph(p) => p,
                Block::SceneBreak(s) => format!("<break {s}>"),
                Block::Illustration(s) => format!("<illustration {s}>"),
                Block::Picture(s) => format!("<picture {s}>"),
                Block::PageBreak => "<page break>".into(),
            })
            .collect()
    }

    #[test]
    fn picture_lines_are_whole_lines_with_a_local_path() {
        assert_eq!(
            picture("![城门](images/a.jpg)"),
            Some(("城门", "images/a.jpg"))
        );
        assert_eq!(picture("　　![](a.png \"title\")  "), Some(("", "a.png")));
        assert_eq!(picture("[img:pics/1.jpg]"), Some(("", "pics/1.jpg")));
        assert_eq!(picture("[IMG：pics/1.jpg]"), Some(("", "pics/1.jpg")));
        assert_eq!(picture("![x](https://e.com/a.jpg)"), None);
        assert_eq!(picture("他说![不](a.jpg)"), None);
        assert_eq!(picture("[img:]"), None);
        assert_eq!(picture("[Illustration: x]"), None);
        assert_eq!(
            paragraphs("一段。\n![图](a.jpg)\n二段。"),
            ["一段。", "<picture ![图](a.jpg)>", "二段。"]
        );
    }

    #[test]
    fn a_picture_line_shown_as_an_example_is_text() {
        // pandoc's manual as a `.txt`: example lines, which failed the build as missing
        // pictures (the indent reached `picture` trimmed).
        let manual = "Text.\n\n    ![la lune](lalune.jpg \"Voyage\")\n\n\t![x](y.jpg)\n\n```\n![x](y.jpg \"t\")\n```\n\n![real](a.jpg)\n";
        let pictures: Vec<Block> = blocks(manual, false)
            .into_iter()
            .filter(|b| matches!(b, Block::Picture(_)))
            .collect();
        assert_eq!(pictures, [Block::Picture("![real](a.jpg)".to_string())]);
        // A file that indents every paragraph so keeps its pictures.
        let novel = "    第一段。\n\n    ![图](a.jpg \"t\")\n\n    第二段。\n";
        assert!(
            blocks(novel, false)
                .iter()
                .any(|b| matches!(b, Block::Picture(_)))
        );
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
    fn header_lines_of_a_download_are_never_joined_to_the_prose_after_them() {
        let prose = "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。及秦灭之后，楚、汉分争，又并入于汉。";
        let header = "《三国演义》\n作者：罗贯中\n内容简介：\n";
        let text = format!("{header}{prose}\n{LONG}\n");
        assert_eq!(
            paragraphs(&text)[..4],
            ["《三国演义》", "作者：罗贯中", "内容简介：", prose]
        );
        // A header line with punctuation inside, and a contents line, ending with an ideograph.
        let text = format!("作者：（明）罗贯中\n{prose}\n目录 第一回至第十回\n{prose}\n{LONG}\n");
        assert_eq!(paragraphs(&text).len(), 5, "{:?}", paragraphs(&text));
        // A long line ending mid-sentence does not take a header label line after it.
        let broken = prose.trim_end_matches('。');
        let text = format!("{broken}\n作者：罗贯中\n{LONG}\n");
        assert_eq!(paragraphs(&text)[1], "作者：罗贯中");
        assert!(joined_lines(&text).is_empty());
    }

    #[test]
    fn flush_header_lines_in_a_file_indenting_its_paragraphs_stay_apart() {
        let wrapped = "　　话说天下大势，分久必合，合久必分。周末七国分\n争，并入于秦。及秦灭之后，楚、汉分争，又并\n入于汉。\n";
        let text = format!("《三国演义》\n作者：罗贯中\n{}", wrapped.repeat(4));
        let p = paragraphs(&text);
        assert_eq!(p[..2], ["《三国演义》", "作者：罗贯中"], "{p:?}");
        assert_eq!(
            p[2],
            "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。及秦灭之后，楚、汉分争，又并入于汉。"
        );
        assert_eq!(p.len(), 6);
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
    fn indented_first_lines_mark_paragraphs_in_a_hard_wrapped_file() {
        // 水浒传 (rain8.com GBK): 4-space indents, lines wrapped at 38 characters, blank lines
        // only around headings and poems; lines end with ASCII quotes or mid-sentence.
        let text = "    话说当时史进道：\"却怎生是好？\"\n    朱武等三个头领跪下道：\"哥哥，你是干净的人，休为我等连累了。大郎可把\n索来绑缚我三个出去请赏，免得负累了你不好看。\"\n    史进道：\"如何使得！恁地时，是我赚你们来，捉你请赏，枉惹天下人笑。若\n是死时，我与你们同死；活时同活。\"\n\n    诗曰：\n\n    两个都头口里叫道：\"不要走了强贼！\"\n    不是这伙人来捉史并三个头领，怎地教史进先杀了一二个人，结识了十数个好\n汉？直教∶芦花深处屯兵士，荷叶阴中治战船。\n";
        let p = paragraphs(text);
        assert_eq!(
            p,
            [
                "话说当时史进道：\"却怎生是好？\"",
                "朱武等三个头领跪下道：\"哥哥，你是干净的人，休为我等连累了。大郎可把索来绑缚我三个出去请赏，免得负累了你不好看。\"",
                "史进道：\"如何使得！恁地时，是我赚你们来，捉你请赏，枉惹天下人笑。若是死时，我与你们同死；活时同活。\"",
                "诗曰：",
                "两个都头口里叫道：\"不要走了强贼！\"",
                "不是这伙人来捉史并三个头领，怎地教史进先杀了一二个人，结识了十数个好汉？直教∶芦花深处屯兵士，荷叶阴中治战船。",
            ]
        );
        let no_blank = text.replace("\n\n", "\n");
        assert_eq!(paragraphs(&no_blank), p, "line mode reads the indents too");
        // A flush line continues its paragraph even after a full stop.
        let wrapped_after_stop = "    甲说：“好。”\n乙也说好。\n    丙说：“走。”\n";
        assert_eq!(
            paragraphs(&wrapped_after_stop.repeat(3)).len(),
            6,
            "{:?}",
            paragraphs(wrapped_after_stop)
        );
    }

    #[test]
    fn a_chapter_of_one_line_paragraphs_with_a_blank_line_after_its_first_is_not_one_block() {
        // 三国演义 from a web download: the update-stamp line, a blank line, then a paragraph
        // a line; blank lines separate only a few of the long runs.
        let para = "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。";
        let text = format!(
            "更新时间:2007-11-16 7:55:51 本章字数:4804\n\n\n{}\n\n{}",
            [para; 40].join("\n"),
            [para; 30].join("\n")
        );
        assert_eq!(paragraphs(&text).len(), 71);
    }

    #[test]
    fn indents_in_a_file_that_is_not_wrapped_mark_nothing() {
        // One paragraph a line, some indented and some not (copied from several pages).
        let lines = [
            "    他走了。",
            "她留在原地，望着那条长长的路，很久很久没有说话。",
            "    天黑了。",
            "远处传来了钟声，一下又一下，像是在数着什么。",
            "    风起了。",
            "树叶沙沙作响。",
        ];
        assert_eq!(paragraphs(&lines.join("\n")).len(), 6);
    }

    #[test]
    fn long_unwrapped_lines_between_blank_lines_are_paragraphs_of_their_own() {
        // 三国演义 from a web download: a stamp line, then lines of hundreds of characters.
        let line = "且说董卓字仲颖，陇西临洮人也，官拜河东太守，自来骄傲。".repeat(20);
        let text = format!("更新时间:2007-11-16\n\n{}\n", [line.as_str(); 5].join("\n"));
        assert_eq!(paragraphs(&text).len(), 6);
    }

    #[test]
    fn indented_blocks_without_flush_lines_stay_one_paragraph() {
        let poem = "    Line one of a poem\n    line two of it\n\nProse after the poem, wrapped\nonto a second line.\n";
        assert_eq!(
            paragraphs(poem),
            [
                "Line one of a poem line two of it",
                "Prose after the poem, wrapped onto a second line."
            ]
        );
    }

    #[test]
    fn indents_and_whitespace_only_lines_are_trimmed() {
        let p =
            paragraphs("\u{3000}\u{3000}第一段。\n \u{3000} \n\u{3000}\u{3000}第二段。\u{3000}\n");
        assert_eq!(p, ["第一段。", "第二段。"]);
    }

    /// Japanese prose (an Aozora text, a web novel): one line one paragraph, dialogue flush,
    /// narration indented with U+3000; a long narration line ending in kana is not joined to
    /// the dialogue or narration after it, with or without blank lines between.
    #[test]
    fn japanese_lines_are_never_joined() {
        let narration = "　たまたまこの家の前を通りかかった、髪の毛の長い画学生は細長い絵の具箱を小脇にしたまま";
        let lines = [
            narration,
            "「玄鶴山房――玄鶴と云うのは何だろう？」",
            narration,
            "言ったりした",
            "　彼等は二人とも笑いながら、気軽にこの家の前を通って行った。",
        ];
        let text = lines.join("\n");
        assert_eq!(paragraphs(&text).len(), 5, "{:?}", paragraphs(&text));
        assert!(joined_lines(&text).is_empty());
        let spaced = lines.join("\n\n") + "\n" + &lines.join("\n");
        assert_eq!(paragraphs(&spaced).len(), 10, "{:?}", paragraphs(&spaced));
        // The same lines without kana (Chinese) are joined as before.
        let chinese =
            "　　他说这个东西很好看但是他没有钱买所以他只好站在那里看了很久很久的时间\n然后走了";
        assert_eq!(paragraphs(chinese).len(), 1);
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
