//! Line helpers that every stage reading plain text shares: trimming, scene breaks, CJK
//! characters, picture lines, blank-line paragraphing. They sit below `project`, `text_fix` and
//! `convert` (which makes paragraphs of them, in `convert::text`) so that those stages read a
//! line the same way without importing each other.

/// Characters a scene-break line is made of.
const SCENE_BREAK: &[char] = &[
    '*', '＊', '-', '－', '—', '–', '_', '~', '～', '·', '•', '◇', '◆', '○', '●', '□', '■', '☆',
    '★', '※', '=', '＝', '#', '＃', '✲', '❖', '§', '⁂', '×',
];

/// Trims white space, including the ideographic space used as indent and stray BOMs.
pub fn trim_line(line: &str) -> &str {
    line.trim_matches(is_line_space)
}

/// What [`trim_line`] trims: white space (U+3000 and NBSP too), a BOM, a zero-width space.
pub fn is_line_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{FEFF}' || c == '\u{200B}'
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

/// A line that is a picture and nothing else: `![alt](path)` (a Markdown image, an optional
/// `"title"` after the path ignored) or `[img:path]`; as (alt, path). A web address is not a
/// picture of the book (the line stays text). Whether the line is an example of the syntax
/// in a manual, shown and not loaded, its neighbours decide (`convert::text::blocks`).
pub fn picture(line: &str) -> Option<(&str, &str)> {
    let line = trim_line(line);
    let (alt, src) = if let Some(rest) = line.strip_prefix("![") {
        let (alt, rest) = rest.split_once("](")?;
        let src = rest.strip_suffix(')')?;
        let src = src.split_once(" \"").map_or(src, |(s, _)| s);
        (alt, src.trim())
    } else {
        let inner = line.strip_prefix('[')?.strip_suffix(']')?;
        let src = ["img:", "IMG:", "img：", "IMG："]
            .iter()
            .find_map(|p| inner.strip_prefix(p))?;
        ("", src.trim())
    };
    let plain = !src.is_empty()
        && !src.contains("://")
        && !src.starts_with("data:")
        && !src.contains(['(', ')', '[', ']', '<', '>'])
        && !alt.contains(['[', ']']);
    plain.then_some((alt.trim(), src))
}

/// True when paragraphs are separated by blank lines and usually span several lines (a few
/// each on average: a chapter of one-line paragraphs with a blank line only after its heading
/// or around a poem is not paragraphed by blank lines). `lines` are trimmed.
pub fn blank_line_separated(lines: &[&str]) -> bool {
    let mut runs = 0usize;
    let mut multi = 0usize;
    let mut multi_lines = 0usize;
    let mut multi_chars = 0usize;
    let (mut current, mut current_chars) = (0usize, 0usize);
    for line in lines.iter().chain(std::iter::once(&"")) {
        if line.is_empty() {
            if current > 0 {
                runs += 1;
                if current > 1 {
                    multi += 1;
                    multi_lines += current;
                    multi_chars += current_chars;
                }
            }
            (current, current_chars) = (0, 0);
        } else {
            current += 1;
            current_chars += line.chars().count();
        }
    }
    runs >= 2
        && multi * 2 >= runs
        && multi_lines <= multi * MAX_MEAN_BLOCK_LINES
        && multi_chars <= multi_lines * MAX_MEAN_WRAPPED_CHARS
}

/// Most lines a blank-line separated paragraph has on average: Gutenberg's run to a few lines,
/// the longest to about thirty.
const MAX_MEAN_BLOCK_LINES: usize = 25;

/// Most characters the lines of such paragraphs have on average: they are wrapped (at 70
/// columns in Gutenberg texts, 40 characters in Chinese ones), not paragraphs of their own
/// (a web download's lines of a thousand characters, merged from several paragraphs).
const MAX_MEAN_WRAPPED_CHARS: usize = 120;
