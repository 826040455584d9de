//! pandoc's Markdown, as pandoc users write it, read by rewriting the source into what the
//! CommonMark renderer ([`super::markdown`]) reads: simple, multiline and grid tables become
//! HTML table markup around Markdown cells ([`table`]), fenced divs (`::: {#id .class}`)
//! `<div>` markup around Markdown, raw blocks (`{=html}`) raw HTML; bracketed spans, inline
//! notes and attribute blocks are rewritten in a second pass ([`inline`]). Definition lists,
//! pipe tables and heading attributes are pulldown-cmark's own.
//!
//! What is not supported (citations, example lists, raw blocks for other formats) is counted
//! per kind and comes back to be warned once per chapter with its count: never printed as if
//! it were text without a word. Sits in the convert stage, before the Markdown renderer; two
//! passes of the Markdown parser find code (left alone) and are linear, as is every scan here.

mod attrs;
mod inline;
mod table;

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

use super::Note;

/// The source rewritten, and what it holds that is not supported.
pub(super) struct Rewritten<'s> {
    pub text: Cow<'s, str>,
    /// One note per kind of construct left unsupported, counting them.
    pub unsupported: Vec<Note>,
    /// The source line (1-based) of each line of `text`; empty when `text` is the source.
    lines: Vec<u32>,
}

impl Rewritten<'_> {
    /// The source line that line `line` (1-based) of the rewritten text comes from: warnings
    /// about the text the renderer reads cite the line the author wrote.
    pub fn source_line(&self, line: usize) -> usize {
        match self.lines.get(line.saturating_sub(1)).or(self.lines.last()) {
            Some(&l) => l as usize,
            None => line,
        }
    }
}

/// Constructs not supported, by kind: how many and the first line (when known).
#[derive(Default)]
pub(super) struct Found(Vec<(String, usize, Option<usize>)>);

impl Found {
    fn add(&mut self, what: &str, line: Option<usize>) {
        match self.0.iter_mut().find(|(w, _, _)| w == what) {
            Some((_, count, _)) => *count += 1,
            None => self.0.push((what.to_string(), 1, line)),
        }
    }

    fn notes(self) -> Vec<Note> {
        self.0
            .into_iter()
            .map(|(what, count, line)| Note {
                line,
                message: format!("pandoc Markdown not supported: {count} × {what}"),
            })
            .collect()
    }
}

/// Rewrites pandoc's constructs in `src` (see the module doc); `opts` are the options the
/// Markdown is rendered with.
pub(super) fn rewrite(src: &str, opts: Options) -> Rewritten<'_> {
    if !may_hold_pandoc(src) {
        return Rewritten {
            text: Cow::Borrowed(src),
            unsupported: Vec::new(),
            lines: Vec::new(),
        };
    }
    let mut found = Found::default();
    let (blocks, block_lines) = blocks(src, opts, &mut found);
    let (text, inline_lines) = inline::rewrite(&blocks, opts, &mut found);
    let lines = inline_lines
        .iter()
        .map(|&l| block_lines.get(l as usize - 1).copied().unwrap_or(l))
        .collect();
    Rewritten {
        text: Cow::Owned(text),
        unsupported: found.notes(),
        lines,
    }
}

/// Whether anything pandoc's own can be in `src` (a cheap test that spares plain CommonMark
/// the extra passes).
fn may_hold_pandoc(src: &str) -> bool {
    [
        "--", ":::", "{", "^", "\n+", "[@", "(@", "~", "\n:", "|", "Table:",
    ]
    .iter()
    .any(|t| src.contains(t))
        || src.starts_with('+')
}

/// A fenced code block: its byte range and info string.
struct Fence {
    range: Range<usize>,
    info: String,
}

/// Code blocks as the Markdown parser sees them: their lines are copied untouched.
fn code_blocks(src: &str, opts: Options) -> Vec<Fence> {
    let mut out = Vec::new();
    for (e, range) in Parser::new_ext(src, opts).into_offset_iter() {
        if let Event::Start(Tag::CodeBlock(kind)) = e {
            let info = match kind {
                CodeBlockKind::Fenced(info) => info.trim().to_string(),
                CodeBlockKind::Indented => String::new(),
            };
            out.push(Fence { range, info });
        }
    }
    out
}

/// The block pass: tables, line blocks, fenced divs and raw blocks rewritten, line by line;
/// with the source line of each line written.
fn blocks(src: &str, opts: Options, found: &mut Found) -> (String, Vec<u32>) {
    let code = code_blocks(src, opts);
    let raw_lines: Vec<&str> = src.split_inclusive('\n').collect();
    let lines: Vec<&str> = raw_lines
        .iter()
        .map(|l| l.trim_end_matches(['\n', '\r']))
        .collect();
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    let mut map = LineMap::default();
    let (mut start, mut next_code, mut divs) = (0usize, 0usize, 0usize);
    let mut block_start = true;
    let mut i = 0;
    while i < lines.len() {
        while code.get(next_code).is_some_and(|c| c.range.end <= start) {
            next_code += 1;
        }
        // An indented block's range begins after its indentation: within the line.
        let end = start + raw_lines[i].len();
        let used = match code.get(next_code).filter(|c| c.range.start < end) {
            Some(fence) => code_lines(fence, &raw_lines[i..], start, &mut out, found, i + 1),
            None => match div_fence(lines[i], &mut divs, &mut out, found, i + 1) {
                Some(n) => n,
                None => block(&lines, i, block_start, &mut out).unwrap_or_else(|| {
                    line_notes(lines[i], found, i + 1);
                    out.push_str(raw_lines[i]);
                    0
                }),
            },
        };
        // 0: the line was copied as it is.
        block_start = used > 0 || lines[i].trim().is_empty();
        let used = used.max(1);
        map.follow(&out, i + 1, used);
        for l in &raw_lines[i..i + used] {
            start += l.len();
        }
        i += used;
    }
    for _ in 0..divs {
        out.push_str("\n\n</div>\n");
    }
    map.follow(&out, lines.len().max(1), 1);
    (out, map.lines)
}

/// The source line of each line written, kept up with the text as it grows.
#[derive(Default)]
struct LineMap {
    lines: Vec<u32>,
    /// How much of the text has been looked at.
    seen: usize,
}

impl LineMap {
    /// The lines written since the last call came from `used` source lines from `line`: one
    /// for one when as many were written, else all from `line` (a table, a div's markup).
    fn follow(&mut self, out: &str, line: usize, used: usize) {
        let written = memchr::memchr_iter(b'\n', &out.as_bytes()[self.seen..]).count();
        self.seen = out.len();
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        let one_for_one = written == used;
        self.lines.extend((0..written).map(|k| match one_for_one {
            true => line.saturating_add(k as u32),
            false => line,
        }));
    }
}

/// The block that line `i` opens, outside code and div fences: written to `out`, with how
/// many lines it took (None: the line is copied as it is).
fn block(lines: &[&str], i: usize, block_start: bool, out: &mut String) -> Option<usize> {
    let line = lines[i];
    if block_start {
        let table = table::captioned_before(lines, i)
            .or_else(|| table::indented(lines, i))
            .or_else(|| table::at(lines, i).map(|(t, n)| (t.html(), n)));
        if let Some((html, n)) = table {
            out.push_str(&html);
            return Some(n);
        }
        if let Some(n) = line_block(lines, i, out) {
            return Some(n);
        }
    }
    if matches!(line.trim(), ":" | "~") {
        // A lone colon is text to pandoc, an empty definition to pulldown-cmark.
        out.push_str(&format!("\\{}\n", line.trim()));
        return Some(1);
    }
    let rest = tilde_definition(line)?;
    out.push_str(":   ");
    out.push_str(rest);
    out.push('\n');
    Some(1)
}

/// Most lines a line block may take.
const MAX_LINE_BLOCK: usize = 2000;

/// A line block (`| line`, each line kept, leading spaces kept; a line starting with a space
/// continues the one before), at `lines[i]`: written as a `line-block` div holding one
/// paragraph whose lines end in hard breaks. How many lines it took.
fn line_block(lines: &[&str], i: usize, out: &mut String) -> Option<usize> {
    line_block_text(lines[i])?;
    // `| a | b` over a delimiter row is a pipe table.
    if lines.get(i + 1).is_some_and(|l| is_delimiter_row(l)) {
        return None;
    }
    let mut kept: Vec<String> = Vec::new();
    let mut j = i;
    while j < lines.len() && j - i < MAX_LINE_BLOCK {
        match (line_block_text(lines[j]), kept.last_mut()) {
            (Some(text), _) => kept.push(text),
            (None, Some(last)) if lines[j].starts_with(' ') && !lines[j].trim().is_empty() => {
                last.push(' ');
                last.push_str(lines[j].trim());
            }
            _ => break,
        }
        j += 1;
    }
    out.push_str("\n<div class=\"line-block\">\n\n");
    out.push_str(&kept.join("\\\n"));
    out.push_str("\n\n</div>\n\n");
    Some(j - i)
}

/// The text of a line of a line block (`|` alone or `| text`): its leading spaces made
/// no-break spaces, a character that would open a block escaped. A line that also ends
/// with `|` is a table's row to GFM (a table short of its delimiter row is text).
fn line_block_text(line: &str) -> Option<String> {
    if line.len() > 1 && line.trim_end().ends_with('|') {
        return None;
    }
    let rest = match line.strip_prefix('|')? {
        "" => return Some("\u{A0}".to_string()),
        r => r.strip_prefix(' ')?,
    };
    let text = rest.trim_start_matches(' ');
    let lead = rest.len() - text.len();
    let mut s = "\u{A0}".repeat(lead);
    if lead == 0 && text.starts_with(['#', '-', '+', '*', '>', '=', '`', '~', '|', '<']) {
        s.push('\\');
    }
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match digits > 0 && lead == 0 && text[digits..].starts_with(['.', ')']) {
        true => s.push_str(&format!("{}\\{}", &text[..digits], &text[digits..])),
        false => s.push_str(text),
    }
    if s.is_empty() {
        s.push('\u{A0}');
    }
    Some(s)
}

/// A pipe table's delimiter row (`|---|:--:|`).
fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    t.contains('-') && t.contains('|') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// The lines of a code block from `lines[0]` (at byte `start`): copied, except a raw block
/// (`{=html}` kept as HTML, other formats left out and counted). How many lines it took
/// (0 for a line copied as it is).
fn code_lines(
    fence: &Fence,
    lines: &[&str],
    start: usize,
    out: &mut String,
    found: &mut Found,
    line: usize,
) -> usize {
    let raw = fence
        .info
        .strip_prefix("{=")
        .and_then(|f| f.strip_suffix('}'))
        .map(str::to_ascii_lowercase);
    let opens_here = (start..start + lines[0].len()).contains(&fence.range.start);
    let Some(format) = raw.filter(|_| opens_here) else {
        out.push_str(lines[0]);
        return 0;
    };
    let mut end = start;
    let mut n = 0usize;
    while n < lines.len() && end < fence.range.end {
        end += lines[n].len();
        n += 1;
    }
    if matches!(format.as_str(), "html" | "html5" | "epub" | "epub3") && n >= 2 {
        let closed = lines[n - 1].trim_start().starts_with(['`', '~']);
        let inner = &lines[1..if closed { n - 1 } else { n }];
        out.push('\n');
        inner.iter().for_each(|l| out.push_str(l));
        out.push('\n');
    } else {
        found.add(&format!("raw {{={format}}} blocks (left out)"), Some(line));
    }
    n.max(1)
}

/// A fenced div's fence (`::: {#id .class}`, `::: note`, or a closing `:::`): written as
/// `<div>` markup with blank lines around, so that what is inside stays Markdown. None when
/// the line is not a fence.
fn div_fence(
    line: &str,
    divs: &mut usize,
    out: &mut String,
    found: &mut Found,
    n: usize,
) -> Option<usize> {
    // Indented, the fence is inside a list item or a definition (a line of code is never
    // looked at here): the markup keeps the indentation, so it stays there.
    let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
    let rest = line[indent.len()..].strip_prefix(":::")?;
    let rest = rest.trim_start_matches(':').trim();
    if rest.is_empty() {
        if *divs == 0 {
            found.add("::: fences closing no div (left out)", Some(n));
        } else {
            *divs -= 1;
            out.push_str(&format!("\n{indent}</div>\n\n"));
        }
        return Some(1);
    }
    let spec = rest.trim_end_matches(':').trim_end();
    let attrs = match spec.starts_with('{') {
        true => attrs::parse(spec).filter(|(_, len)| *len == spec.len())?.0,
        false if !spec.contains(char::is_whitespace) => attrs::Attrs {
            classes: vec![spec.to_string()],
            ..attrs::Attrs::default()
        },
        false => return None,
    };
    *divs += 1;
    out.push_str(&format!("\n{indent}<div{}>\n\n", attrs.html()));
    Some(1)
}

/// A definition opened with pandoc's other marker, `~` (pulldown-cmark knows `:`): its text.
fn tilde_definition(line: &str) -> Option<&str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = line[indent..].strip_prefix('~').filter(|_| indent < 3)?;
    let text = rest.trim_start_matches([' ', '\t']);
    let gap = rest.len() - text.len();
    ((1..=4).contains(&gap) && !text.is_empty()).then_some(text)
}

/// Counts the block-level constructs of a line that are not supported.
fn line_notes(line: &str, found: &mut Found, n: usize) {
    let t = line.trim_start();
    if t.starts_with("(@") && t.contains(')') {
        found.add("example list items (@) (numbered as written)", Some(n));
    }
}

#[cfg(test)]
mod tests;
