//! pandoc's inline constructs, rewritten into what the Markdown renderer reads: bracketed
//! spans `[text]{#id .class}` become `<span>` markup around the text (still Markdown), inline
//! notes `^[text]` become footnotes (a reference where the note was, its definition at the
//! end), attribute blocks after links, pictures and code are taken off, raw inline code
//! (`` `<br>`{=html} ``) is kept for HTML and left out for other formats, `^sup^` and
//! `~sub~` become `<sup>` and `<sub>` (pandoc's rule: no space inside, `\ ` for one; `~sub~`
//! after a letter or digit only, GFM's `~strike~` otherwise).
//!
//! One forward pass over the text with a stack of open brackets, cleared at every blank line
//! (brackets never span paragraphs), so the cost is linear; code, raw HTML and math, as the
//! Markdown parser finds them, are skipped.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};

use super::Found;
use super::attrs;

/// What a bracket opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Plain,
    Image,
    Note,
}

/// One edit of the text, at a byte range of it.
#[derive(Debug)]
enum Mark {
    /// `^[`: what follows, to the matching `]`, is a note's text.
    NoteOpen,
    NoteClose,
    /// Replace the range with this.
    Put(String),
}

/// The text with its inline constructs rewritten, and the line of `src` (1-based) each of its
/// lines comes from; what is not supported is counted in `found`.
pub(super) fn rewrite(src: &str, opts: Options, found: &mut Found) -> (String, Vec<u32>) {
    let skip = verbatim(src, opts);
    let mut marks = scan(src, &skip, found);
    if marks.is_empty() {
        let lines = memchr::memchr_iter(b'\n', src.as_bytes()).count();
        return (src.to_string(), (1..=lines as u32).collect());
    }
    marks.sort_by_key(|(range, _)| range.start);
    apply(src, marks)
}

/// Byte ranges of code, raw HTML and math, where nothing is rewritten; each with whether an
/// attribute block may follow it (inline code).
fn verbatim(src: &str, opts: Options) -> Vec<(Range<usize>, bool)> {
    let mut out: Vec<(Range<usize>, bool)> = Vec::new();
    let mut depth = 0usize;
    for (e, range) in Parser::new_ext(src, opts).into_offset_iter() {
        let taken = match &e {
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock) => {
                depth += 1;
                depth == 1
            }
            Event::End(pulldown_cmark::TagEnd::CodeBlock | pulldown_cmark::TagEnd::HtmlBlock) => {
                depth = depth.saturating_sub(1);
                false
            }
            Event::Code(_) => true,
            Event::InlineHtml(_) | Event::InlineMath(_) | Event::DisplayMath(_) => depth == 0,
            _ => false,
        };
        if taken {
            out.push((range, matches!(e, Event::Code(_))));
        }
    }
    out.sort_by_key(|(r, _)| r.start);
    out
}

/// Finds the constructs: the edits to make, sorted later.
fn scan(src: &str, skip: &[(Range<usize>, bool)], found: &mut Found) -> Vec<(Range<usize>, Mark)> {
    let bytes = src.as_bytes();
    let mut marks = Vec::new();
    let mut stack: Vec<(usize, Open)> = Vec::new();
    let mut next_skip = 0;
    let mut link_seen = false;
    let mut i = 0;
    while i < bytes.len() {
        if let Some((range, code)) = skip.get(next_skip).filter(|(r, _)| r.start <= i) {
            let end = range.end.max(i + 1);
            if *code {
                code_attrs(src, range.clone(), &mut marks, found);
            }
            next_skip += 1;
            i = end;
            continue;
        }
        match bytes[i] {
            b'\\' => i += 1,
            b'\n' if blank_line_follows(bytes, i) => {
                stack.clear();
                link_seen = false;
            }
            b'^' if bytes.get(i + 1) == Some(&b'[') => {
                stack.push((i, Open::Note));
                i += 1;
            }
            b'!' if bytes.get(i + 1) == Some(&b'[') => {
                stack.push((i + 1, Open::Image));
                i += 1;
            }
            b'[' => {
                if matches!(bytes.get(i + 1), Some(b'@')) || src[i + 1..].starts_with("-@") {
                    found.add("citations [@key] (left as written)", None);
                }
                stack.push((i, Open::Plain));
            }
            b']' => {
                if let Some((open, kind)) = stack.pop() {
                    link_seen |= bytes.get(i + 1) == Some(&b'(');
                    close(src, (open, kind, i), &mut marks);
                }
            }
            b')' if link_seen => drop_attrs(src, i + 1, &mut marks),
            b'^' | b'~' => {
                let next = skip.get(next_skip).map_or(bytes.len(), |(r, _)| r.start);
                if let Some(close) = script_close(bytes, i, next) {
                    script(src, i..close, &mut marks);
                    i = close;
                }
            }
            _ => {}
        }
        i += 1;
    }
    marks
}

/// Where the `^sup^` or `~sub~` opened at `open` closes (before `limit`, where code begins):
/// the same mark on the same word, nothing inside or a space making it text, as pandoc
/// reads it; `[^` is a note's label, `~~` strikethrough. A `~sub~` follows a letter or digit
/// (H~2~O): a `~word~` of its own is GFM's strikethrough, as mdBook and GitHub show it.
fn script_close(bytes: &[u8], open: usize, limit: usize) -> Option<usize> {
    let mark = bytes[open];
    let before = open.checked_sub(1).map(|k| bytes[k]);
    let refused = match mark {
        b'^' => before == Some(b'['),
        _ => {
            !before.is_some_and(|b| b.is_ascii_alphanumeric() || b >= 0x80)
                || bytes.get(open + 1) == Some(&b'~')
        }
    };
    if refused || before == Some(b'/') {
        return None;
    }
    let mut j = open + 1;
    while j < bytes.len().min(limit) {
        match bytes[j] {
            b if b == mark => break,
            b'\\' => j += 2,
            b if b.is_ascii_whitespace() => return None,
            _ => j += 1,
        }
    }
    let closes = j < bytes.len().min(limit) && j > open + 1 && bytes[j] == mark;
    (closes && bytes.get(j + 1) != Some(&b'~')).then_some(j)
}

/// The marks of a `^sup^` or `~sub~` over `range` (its two marks): the element around the
/// text, an escaped space a no-break space.
fn script(src: &str, range: Range<usize>, marks: &mut Vec<(Range<usize>, Mark)>) {
    let tag = match src.as_bytes()[range.start] {
        b'^' => "sup",
        _ => "sub",
    };
    marks.push((range.start..range.start + 1, Mark::Put(format!("<{tag}>"))));
    let inner = &src[range.start + 1..range.end];
    for (k, _) in inner.match_indices("\\ ") {
        let at = range.start + 1 + k;
        marks.push((at..at + 2, Mark::Put("\u{A0}".to_string())));
    }
    marks.push((range.end..range.end + 1, Mark::Put(format!("</{tag}>"))));
}

fn blank_line_follows(bytes: &[u8], newline: usize) -> bool {
    let rest = &bytes[newline + 1..];
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    rest[..end].iter().all(|b| b.is_ascii_whitespace())
}

/// A closing bracket: a note ends, a span's attributes follow, or a picture's are dropped.
fn close(src: &str, (open, kind, at): (usize, Open, usize), marks: &mut Vec<(Range<usize>, Mark)>) {
    match kind {
        Open::Note => {
            marks.push((open..open + 2, Mark::NoteOpen));
            marks.push((at..at + 1, Mark::NoteClose));
        }
        Open::Plain => {
            let Some((a, len)) = attrs::parse(&src[at + 1..]).filter(|(a, _)| a.raw.is_none())
            else {
                return;
            };
            marks.push((open..open + 1, Mark::Put(format!("<span{}>", a.html()))));
            marks.push((at..at + 1 + len, Mark::Put("</span>".to_string())));
        }
        Open::Image => drop_attrs(src, at + 1, marks),
    }
}

/// An attribute block at `at` (after a link or a picture) is taken off: their ids and
/// sizes have no place in a reflowable book.
fn drop_attrs(src: &str, at: usize, marks: &mut Vec<(Range<usize>, Mark)>) {
    if let Some((_, len)) = attrs::parse(&src[at..]).filter(|(a, _)| a.raw.is_none()) {
        marks.push((at..at + len, Mark::Put(String::new())));
    }
}

/// Inline code followed by attributes: `{.lang}` is taken off; `{=html}` makes the code raw
/// HTML; another format's raw code is left out, counted.
fn code_attrs(
    src: &str,
    code: Range<usize>,
    marks: &mut Vec<(Range<usize>, Mark)>,
    found: &mut Found,
) {
    let Some((a, len)) = attrs::parse(&src[code.end..]) else {
        return;
    };
    let whole = code.start..code.end + len;
    match a.raw.as_deref() {
        None => marks.push((code.end..code.end + len, Mark::Put(String::new()))),
        Some("html" | "html5" | "epub" | "epub3") => {
            let inner = src[code].trim_matches('`').trim().to_string();
            marks.push((whole, Mark::Put(inner)));
        }
        Some(format) => {
            found.add(&format!("raw inline {{={format}}} code (left out)"), None);
            marks.push((whole, Mark::Put(String::new())));
        }
    }
}

/// Makes the edits, in order; a note's text goes to a definition at the end. With the text,
/// the line of `src` each of its lines comes from.
fn apply(src: &str, marks: Vec<(Range<usize>, Mark)>) -> (String, Vec<u32>) {
    let mut w = Writer {
        bufs: vec![String::with_capacity(src.len() + 64)],
        lines: Vec::new(),
        line: 1,
    };
    // Each note's definition, with the line where the note began.
    let mut defs: Vec<(u32, String)> = Vec::new();
    let mut opened: Vec<u32> = Vec::new();
    let mut at = 0;
    for (range, mark) in marks {
        if range.start < at {
            continue;
        }
        w.copy(&src[at..range.start]);
        w.line += newlines(&src[range.clone()]);
        at = range.end;
        match mark {
            Mark::NoteOpen => {
                opened.push(w.line);
                w.bufs.push(String::new());
            }
            Mark::NoteClose if w.bufs.len() < 2 => w.put("]"),
            Mark::NoteClose => {
                let text = w.bufs.pop().unwrap_or_default();
                let label = format!("epubforge-inline-{}", defs.len() + 1);
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let line = opened.pop().unwrap_or(w.line);
                defs.push((line, format!("\n[^{label}]: {text}\n")));
                w.put(&format!("[^{label}]"));
            }
            Mark::Put(s) => w.put(&s),
        }
    }
    // An open note (its close fell into a skipped range) keeps its text where it was.
    while w.bufs.len() > 1 {
        let text = w.bufs.pop().unwrap_or_default();
        w.put("^[");
        w.put(&text);
    }
    w.copy(&src[at..]);
    let last = w.line;
    if !defs.is_empty() {
        w.bufs[0].push_str("\n\n");
        w.lines.extend([last, last]);
    }
    for (line, def) in defs {
        w.lines.extend((0..newlines(&def)).map(|_| line));
        w.bufs[0].push_str(&def);
    }
    let out = w.bufs.pop().unwrap_or_default();
    (out, w.lines)
}

fn newlines(s: &str) -> u32 {
    memchr::memchr_iter(b'\n', s.as_bytes()).count() as u32
}

/// The text being written: the body, then one buffer per open note; the source line of each
/// line of the body so far, and the source line being read.
struct Writer {
    bufs: Vec<String>,
    lines: Vec<u32>,
    line: u32,
}

impl Writer {
    /// Copies source text: its lines, in the body, keep their source lines; a note's are
    /// joined into one.
    fn copy(&mut self, text: &str) {
        let n = newlines(text);
        if self.bufs.len() == 1 {
            self.lines.extend(self.line..self.line + n);
        }
        self.line += n;
        if let Some(top) = self.bufs.last_mut() {
            top.push_str(text);
        }
    }

    /// Writes new text, which stands where the source line being read is.
    fn put(&mut self, text: &str) {
        if self.bufs.len() == 1 {
            self.lines.extend((0..newlines(text)).map(|_| self.line));
        }
        if let Some(top) = self.bufs.last_mut() {
            top.push_str(text);
        }
    }
}
