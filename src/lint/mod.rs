//! The source linter of `epubforge check`: what a download or a careless edit left in a
//! chapter's text that the build will faithfully copy into the book.
//!
//! Runs on the decoded text of each chapter (the build's own reading, see
//! [`crate::convert::chapter::read_chapter`]), so every finding is at the file, line and
//! column the author edits. Each rule has its own stable [`Code`]:
//!
//! - character rules, on every chapter: mojibake signatures ([`Code::Mojibake`]), U+FFFD
//!   ([`Code::ReplacementCharacter`]), private-use ([`Code::PrivateUse`]) and zero-width
//!   ([`Code::ZeroWidth`]) characters, one finding per line;
//! - paragraph rules, on plain-text chapters (in Markdown and HTML the markup would be taken
//!   for text): quotes and brackets left open or closed without opening in a paragraph
//!   ([`Code::UnmatchedBracket`]), doubled punctuation ([`Code::DoubledPunctuation`]),
//!   paragraphs so long a line break was probably lost ([`Code::LongParagraph`]), lines that
//!   look like a site's boilerplate ([`Code::Boilerplate`]) and the same paragraph seen before
//!   in the book ([`Code::RepeatedParagraph`], one hash per paragraph: linear in the book).
//!
//! Paragraphs are the build's: blank-line separated runs in a file paragraphed that way, else
//! lines, joined where the build joins them ([`crate::convert::text::joined_lines`]). The rules
//! were tuned on the corpus's real books so that a clean classic gets next to nothing; a rule
//! finding more than [`SHOWN`] times in one file lists the first ones and counts the rest.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::convert::SourceKind;
use crate::convert::text;
use crate::diagnostic::{Code, Diagnostic};

/// Every code the linter reports.
#[cfg(test)]
pub(crate) const LINT_CODES: [Code; 9] = [
    Code::UnmatchedBracket,
    Code::Mojibake,
    Code::ReplacementCharacter,
    Code::PrivateUse,
    Code::ZeroWidth,
    Code::DoubledPunctuation,
    Code::RepeatedParagraph,
    Code::LongParagraph,
    Code::Boilerplate,
];

/// Findings listed per rule and file; the rest are counted in one more finding.
pub const SHOWN: usize = 5;

/// A paragraph with more characters than this (CJK text) probably lost its line breaks: a
/// web novel's paragraphs rarely pass a few hundred characters.
const LONG_CJK: usize = 2000;
/// The same for other scripts, whose long paragraphs (Melville, Tolstoy) are longer.
const LONG_LATIN: usize = 8000;
/// A paragraph this short (visible characters) may repeat by right (`“是。”`, a refrain).
const REPEAT_MIN_CJK: usize = 30;
/// The same for other scripts.
const REPEAT_MIN_LATIN: usize = 80;

/// Opening and closing marks checked for balance within a paragraph.
const PAIRS: [(char, char); 5] = [
    ('“', '”'),
    ('「', '」'),
    ('『', '』'),
    ('（', '）'),
    ('《', '》'),
];

/// Quotation marks: a quotation running over several paragraphs opens each and closes only in
/// the last, so one left open is fine when the next paragraph opens the same one.
const QUOTES: [char; 3] = ['“', '「', '『'];

/// Substrings that only a wrong decoding makes: GBK's rendering of UTF-8's replacement
/// character, MSVC's fill bytes read as GBK, UTF-8 curly quotes read as Windows-1252.
const MOJIBAKE: [&str; 4] = ["锟斤拷", "烫烫烫", "屯屯屯", "â€"];

/// Phrases of web-novel sites, never of a story's text.
const BOILERPLATE: [&str; 16] = [
    "请收藏",
    "首发",
    "本章未完",
    "点击下一页",
    "最新章节",
    "手机阅读",
    "手机用户请",
    "TXT电子书",
    "txt电子书",
    "电子书下载",
    "下载24小时",
    "求月票",
    "求推荐票",
    "求收藏",
    "笔趣阁",
    "本站",
];

/// Punctuation that never doubles in good text (an ellipsis is three or six of `.`/`。`).
const SINGLE: [char; 10] = ['，', '、', '；', '：', '。', ',', ';', ':', '.', '．'];

/// The linter's memory across the chapters of one book.
#[derive(Debug, Default)]
pub struct Linter {
    /// Hash of a paragraph's visible characters -> where it was first seen.
    seen: HashMap<u64, (PathBuf, usize)>,
}

/// One finding before it becomes a [`Diagnostic`].
struct Hit {
    code: Code,
    line: usize,
    column: usize,
    message: String,
}

impl Linter {
    /// Lints one chapter's decoded `text` (from `path`, of `kind`). `removed` says whether the
    /// book's cleanup rules remove a line: what they remove is not reported again.
    pub fn chapter(
        &mut self,
        path: &Path,
        text: &str,
        kind: SourceKind,
        removed: &dyn Fn(&str) -> bool,
    ) -> Vec<Diagnostic> {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut hits = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            characters(line, i + 1, &mut hits);
        }
        if kind == SourceKind::Text {
            let found: Vec<Option<(usize, &str)>> = lines.iter().map(|l| boilerplate(l)).collect();
            for (i, line) in lines.iter().enumerate() {
                if let Some((column, what)) = found[i].filter(|_| !removed(line)) {
                    let message = format!("this line looks like a site's boilerplate ({what})");
                    hits.push(Hit::new(Code::Boilerplate, i + 1, column, message));
                }
                doubled(line, i + 1, &mut hits);
            }
            let paras = paragraphs(text, &lines);
            for (k, para) in paras.iter().enumerate() {
                if para.lines.iter().any(|&l| found[l].is_some()) {
                    continue;
                }
                let body: Vec<&str> = para.lines.iter().map(|&l| lines[l]).collect();
                let next = paras
                    .get(k + 1)
                    .and_then(|p| crate::lines::trim_line(lines[p.first()]).chars().next());
                brackets(para, &body, next, &mut hits);
                self.repeated(path, para, &body, &mut hits);
                long(para, &body, &mut hits);
            }
        }
        report(path, hits)
    }

    /// The same paragraph seen earlier in the book.
    fn repeated(&mut self, path: &Path, para: &Paragraph, body: &[&str], hits: &mut Vec<Hit>) {
        use std::hash::{Hash, Hasher};
        let visible = body
            .iter()
            .flat_map(|l| l.chars())
            .filter(|c| !c.is_whitespace());
        let (mut count, mut cjk) = (0usize, 0usize);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for c in visible {
            count += 1;
            cjk += usize::from(crate::lines::is_cjk(c));
            c.hash(&mut h);
        }
        let min = if cjk * 2 > count {
            REPEAT_MIN_CJK
        } else {
            REPEAT_MIN_LATIN
        };
        if count < min {
            return;
        }
        let line = para.first() + 1;
        match self.seen.get(&h.finish()) {
            Some((first, at)) => {
                let where_ = if first == path {
                    format!("line {at}")
                } else {
                    format!("{}:{at}", crate::escape::path(first))
                };
                let message = format!("this paragraph already appears at {where_}");
                hits.push(Hit::new(Code::RepeatedParagraph, line, 1, message));
            }
            None => {
                self.seen.insert(h.finish(), (path.to_path_buf(), line));
            }
        }
    }
}

impl Hit {
    fn new(code: Code, line: usize, column: usize, message: String) -> Hit {
        Hit {
            code,
            line,
            column,
            message,
        }
    }
}

/// The hits as diagnostics: the first [`SHOWN`] per code, then a count of the rest.
fn report(path: &Path, hits: Vec<Hit>) -> Vec<Diagnostic> {
    let mut shown: HashMap<Code, usize> = HashMap::new();
    let mut out = Vec::new();
    for h in hits {
        let n = shown.entry(h.code).or_default();
        *n += 1;
        if *n <= SHOWN {
            out.push(
                Diagnostic::warning(h.code, h.message)
                    .at(path)
                    .line(Some(h.line))
                    .column(h.column)
                    .hint(hint(h.code)),
            );
        }
    }
    let mut codes: Vec<(Code, usize)> = shown.into_iter().filter(|&(_, n)| n > SHOWN).collect();
    codes.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
    for (code, n) in codes {
        let message = format!("{} more {code} findings in this file", n - SHOWN);
        out.push(Diagnostic::warning(code, message).at(path).hint(hint(code)));
    }
    out
}

/// What to do about a finding of `code`.
fn hint(code: Code) -> &'static str {
    match code {
        Code::UnmatchedBracket => "add the missing mark, or remove the stray one",
        Code::Mojibake => {
            "the text was decoded with the wrong encoding somewhere before it reached you: find a better copy, or fix the words by hand"
        }
        Code::ReplacementCharacter => {
            "a character was lost in a conversion before this file: restore it from another copy"
        }
        Code::PrivateUse => {
            "private-use characters show as boxes outside the font they were made for: replace them with the characters meant"
        }
        Code::ZeroWidth => "remove the invisible character (it breaks search and line breaking)",
        Code::DoubledPunctuation => "remove one of the marks",
        Code::RepeatedParagraph => {
            "remove the copy if the download repeated a page; or add an `[check] ignore` for it"
        }
        Code::LongParagraph => {
            "the line breaks of this paragraph were probably lost: split it where paragraphs begin"
        }
        Code::Boilerplate => {
            "delete the line, or remove such lines with a `[[cleanup]]` rule or `cleanup-preset = \"web-novel\"`"
        }
        _ => "",
    }
}

/// The character rules on one line.
fn characters(line: &str, n: usize, hits: &mut Vec<Hit>) {
    if line.is_ascii() {
        return;
    }
    if let Some(col) = mojibake(line) {
        let message = "this line holds text decoded with the wrong encoding (mojibake)";
        hits.push(Hit::new(Code::Mojibake, n, col, message.into()));
    }
    let chars: Vec<char> = line.chars().collect();
    let mut found: [(usize, usize); 3] = [(0, 0); 3];
    for (i, &c) in chars.iter().enumerate() {
        let kind = if c == '\u{fffd}' {
            0
        } else if private_use(c) {
            1
        } else if zero_width(&chars, i) {
            2
        } else {
            continue;
        };
        let (count, first) = &mut found[kind];
        if *count == 0 {
            *first = i + 1;
        }
        *count += 1;
    }
    let rules = [
        (Code::ReplacementCharacter, "U+FFFD replacement character"),
        (Code::PrivateUse, "private-use character"),
        (Code::ZeroWidth, "zero-width character"),
    ];
    for ((code, what), (count, first)) in rules.into_iter().zip(found) {
        if count > 0 {
            let plural = if count == 1 { "" } else { "s" };
            let message = format!("{count} {what}{plural} on this line");
            hits.push(Hit::new(code, n, first, message));
        }
    }
}

/// The column of the first mojibake signature in `line`.
fn mojibake(line: &str) -> Option<usize> {
    let mut at: Option<usize> = MOJIBAKE.iter().filter_map(|m| line.find(m)).min();
    // Latin-1 read as UTF-8 and written again: Ã or Â before a character of U+0080..U+00BF
    // (`Ã©` for é, `Â ` for a no-break space).
    let mut prev: Option<(usize, char)> = None;
    for (i, c) in line.char_indices() {
        if let Some((p, pc)) = prev
            && ((pc == 'Ã' && ('\u{80}'..='\u{bf}').contains(&c))
                || (pc == 'Â' && ('\u{a0}'..='\u{bf}').contains(&c)))
        {
            at = Some(at.map_or(p, |a| a.min(p)));
            break;
        }
        prev = Some((i, c));
    }
    at.map(|b| line[..b].chars().count() + 1)
}

/// A character of a private-use area.
fn private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD)
}

/// An invisible character nobody types on purpose: zero-width space, word joiner, a byte-order
/// mark inside the text; zero-width (non-)joiners only between Han or Latin letters (in other
/// scripts and emoji sequences they are spelling).
fn zero_width(chars: &[char], i: usize) -> bool {
    match chars[i] {
        '\u{200b}' | '\u{2060}' | '\u{feff}' => true,
        '\u{200c}' | '\u{200d}' => {
            let plain = |c: Option<&char>| {
                c.is_some_and(|&c| c.is_ascii_alphanumeric() || crate::lines::is_cjk(c))
            };
            plain(i.checked_sub(1).and_then(|p| chars.get(p))) && plain(chars.get(i + 1))
        }
        _ => false,
    }
}

/// Whether `line` looks like boilerplate: the column of what gave it away and what it is.
fn boilerplate(line: &str) -> Option<(usize, &'static str)> {
    let col = |b: usize| line[..b].chars().count() + 1;
    if let Some(b) = url(line) {
        return Some((col(b), "a web address"));
    }
    if line.is_ascii() {
        return None;
    }
    // The same look-alike folding as the web-novel preset's (`ｗωｗ奇Qisuu書com网`).
    if let Some(r) = crate::text_fix::disguise::find(line).first() {
        return Some((col(r.start), "a web address in disguise"));
    }
    BOILERPLATE
        .iter()
        .filter_map(|p| line.find(p))
        .min()
        .map(|b| (col(b), "a web-novel site's phrase"))
}

/// Where a web address starts in `line`: `http://`, `https://` or `www.` and a domain, in
/// any case (`Www.Qisuu.Com`).
fn url(line: &str) -> Option<usize> {
    // Lower case in ASCII keeps every byte where it was.
    let lower = line.to_ascii_lowercase();
    let line = lower.as_str();
    let lower_at = |p: &str| {
        line.match_indices(p)
            .map(|(i, _)| i)
            .find(|&i| !line[..i].ends_with(|c: char| c.is_ascii_alphanumeric()))
    };
    let scheme = ["http://", "https://"]
        .iter()
        .filter_map(|p| lower_at(p))
        .min();
    let www = line.match_indices("www.").map(|(i, _)| i).find(|&i| {
        !line[..i].ends_with(|c: char| c.is_ascii_alphanumeric())
            && line[i + 4..]
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
                .next()
                .is_some_and(|d| d.contains('.') && d.len() >= 4)
    });
    scheme.into_iter().chain(www).min()
}

/// Doubled punctuation on one line (not an ellipsis: three or more in a row are left alone).
fn doubled(line: &str, n: usize, hits: &mut Vec<Hit>) {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i + 1 < chars.len() {
        let run = chars[i..].iter().take_while(|c| SINGLE.contains(c)).count();
        let (a, b) = (chars[i], chars.get(i + 1).copied().unwrap_or(' '));
        // `etc.,` and `a.m.;` are English; two of the same ASCII mark are not.
        let ascii_mix = a.is_ascii() && b.is_ascii() && a != b;
        if run == 2 && !ascii_mix && !(a == '.' && url(line).is_some()) {
            let message = format!("doubled punctuation `{a}{b}`");
            hits.push(Hit::new(Code::DoubledPunctuation, n, i + 1, message));
        }
        i += run.max(1);
    }
}

/// A paragraph: the 0-based numbers of its lines.
struct Paragraph {
    lines: Vec<usize>,
}

impl Paragraph {
    fn first(&self) -> usize {
        self.lines[0]
    }
}

/// The paragraphs of a plain-text chapter, as the build makes them.
fn paragraphs(text: &str, lines: &[&str]) -> Vec<Paragraph> {
    let trimmed: Vec<&str> = lines.iter().map(|l| crate::lines::trim_line(l)).collect();
    let by_blanks = crate::lines::blank_line_separated(&trimmed);
    let joined: HashSet<usize> = if by_blanks {
        HashSet::new()
    } else {
        text::joined_lines(text)
            .into_iter()
            .map(|l| l - 1)
            .collect()
    };
    let mut out: Vec<Paragraph> = Vec::new();
    let mut open = false;
    for (i, l) in trimmed.iter().enumerate() {
        if l.is_empty() {
            open = false;
            continue;
        }
        let goes_on = open && (by_blanks || joined.contains(&i));
        match out.last_mut() {
            Some(p) if goes_on => p.lines.push(i),
            _ => out.push(Paragraph { lines: vec![i] }),
        }
        open = true;
    }
    out
}

/// Quotes and brackets of a paragraph left open, or closed without being opened; `next` is
/// the first character of the next paragraph.
fn brackets(para: &Paragraph, body: &[&str], next: Option<char>, hits: &mut Vec<Hit>) {
    // Per pair: where each still-open mark is, as (line, column).
    let mut open: [Vec<(usize, usize)>; PAIRS.len()] = Default::default();
    for (k, line) in body.iter().enumerate() {
        let n = para.lines[k] + 1;
        for (col, c) in line.chars().enumerate() {
            if let Some(p) = PAIRS.iter().position(|&(o, _)| o == c) {
                open[p].push((n, col + 1));
            } else if let Some(p) = PAIRS.iter().position(|&(_, e)| e == c)
                && open[p].pop().is_none()
            {
                let message = format!("`{c}` closes a `{}` that was not opened", PAIRS[p].0);
                hits.push(Hit::new(Code::UnmatchedBracket, n, col + 1, message));
                return;
            }
        }
    }
    for (p, still) in open.iter().enumerate() {
        let Some(&(n, col)) = still.first() else {
            continue;
        };
        let (o, e) = PAIRS[p];
        // A quotation that goes on in the next paragraph, which opens it again.
        if QUOTES.contains(&o) && still.len() == 1 && next == Some(o) {
            continue;
        }
        let message = format!("`{o}` is not closed by a `{e}` in this paragraph");
        hits.push(Hit::new(Code::UnmatchedBracket, n, col, message));
        return;
    }
}

/// A paragraph too long to be one.
fn long(para: &Paragraph, body: &[&str], hits: &mut Vec<Hit>) {
    let (mut count, mut cjk) = (0usize, 0usize);
    for c in body.iter().flat_map(|l| l.chars()) {
        count += 1;
        cjk += usize::from(crate::lines::is_cjk(c));
    }
    let limit = if cjk * 2 > count {
        LONG_CJK
    } else {
        LONG_LATIN
    };
    if count > limit {
        let message = format!("a paragraph of {count} characters");
        hits.push(Hit::new(Code::LongParagraph, para.first() + 1, 1, message));
    }
}

#[cfg(test)]
mod tests;
