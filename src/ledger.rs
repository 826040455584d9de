//! The text ledger: nothing the author wrote vanishes unseen. For each chapter source, the
//! letters and digits (Han characters included) of its text are counted against those of
//! the book made from it; what the cleanup rules removed and what conversion changed are
//! counted by cause, and anything else missing is a `lost-text` warning at the source line it
//! was on, with the text (an error under `build --strict`).
//!
//! Only letters and digits are counted: the documented steps that drop or change other
//! characters need no entry (blank lines, a byte-order mark, control characters, spacing,
//! punctuation changed by typography, quotation marks, scene-break lines), and a heading line
//! moved into the chapter's `<h1>` is still in the book (titles are counted). OpenCC changes
//! characters but not, as a rule, their number; where a phrase conversion changes it, the
//! difference is the conversion's. The count is one linear pass over the text in and one
//! over the XHTML out; only when the book holds fewer characters than the converter was
//! given is the text walked line by line to find what is missing.
//!
//! A leaf module of the pipeline (it imports only [`crate::diagnostic`]): the text-fix stage
//! counts what its rules removed with [`count`], and the convert stage, which alone knows a
//! chapter's text in and its XHTML out, calls [`account`]; each feeds it from its side
//! without a stage importing a later one.

use std::path::Path;

use crate::diagnostic::{Code, Diagnostic};

/// Whether `c` is a character the ledger counts: a letter (Han included) or a digit.
fn counted(c: char) -> bool {
    // Chinese punctuation first: most characters off the fast paths of [`count`] are these,
    // and Unicode's table look-up for them is slow.
    match c {
        '，' | '。' | '“' | '”' | '：' | '？' | '！' | '、' | '；' | '…' | '—' | '‘' | '’'
        | '（' | '）' | '《' | '》' | '「' | '」' | '『' | '』' | '·' | '\u{3000}' => {
            false
        }
        _ => c.is_alphanumeric(),
    }
}

/// Whether `b` leads a character of U+4000..U+9FFF (`E4`..`E9`), all of which are counted.
fn han(b: u8) -> bool {
    b.wrapping_sub(0xE4) < 6
}

/// The letters and digits of `text` (Han characters included).
pub fn count(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            n += usize::from(b.is_ascii_alphanumeric());
            i += 1;
        } else if han(b) {
            // U+4000..U+9FFF: CJK Unified Ideographs (and extension A's end), the bulk of a
            // Chinese text, counted without decoding, a run of them four at a time.
            let from = i;
            i += 3;
            while let Some(&[a, _, _, b, _, _, c, _, _, d, ..]) = bytes.get(i..i + 12)
                && han(a) & han(b) & han(c) & han(d)
            {
                i += 12;
            }
            while bytes.get(i).is_some_and(|&b| han(b)) {
                i += 3;
            }
            n += (i - from) / 3;
        } else if let Some(&[0xE0..=0xEF, b1, b2]) = bytes.get(i..i + 3) {
            // Another three-byte character (CJK punctuation, mostly), decoded by hand.
            let c = u32::from(b & 0x0F) << 12 | u32::from(b1 & 0x3F) << 6 | u32::from(b2 & 0x3F);
            n += usize::from(char::from_u32(c).is_some_and(counted));
            i += 3;
        } else {
            // `i` is always at the start of a character: every step is a whole one.
            let Some(c) = text[i..].chars().next() else {
                break;
            };
            n += usize::from(counted(c));
            i += c.len_utf8();
        }
    }
    n
}

/// The letters and digits of the text content of an XHTML fragment (tags are not text; a
/// character reference is the character it stands for; an image's `alt` is text).
pub fn count_xhtml(xhtml: &str) -> usize {
    let mut n = 0;
    text_runs(xhtml, &mut |text| n += count(text));
    n
}

/// Calls `f` on each run of text between the tags and references of an XHTML fragment, on
/// the character each character reference stands for (`&#x6253;` is 打: a page written all in
/// references has its letters counted, and a loss of them is seen), and on the `alt` text of
/// its images, in order.
fn text_runs(xhtml: &str, f: &mut dyn FnMut(&str)) {
    let mut buf = [0u8; 4];
    let mut rest = xhtml;
    while let Some(stop) = memchr::memchr2(b'<', b'&', rest.as_bytes()) {
        if stop > 0 {
            f(&rest[..stop]);
        }
        let after = &rest[stop..];
        let end = match after.as_bytes()[0] {
            // A comment ends at `-->`, not at a `>` inside it (`<!-- a > b -->`).
            b'<' if after.starts_with("<!--") => {
                after[4..].find("-->").map_or(after.len(), |k| k + 7)
            }
            b'<' => memchr::memchr(b'>', after.as_bytes()).map_or(after.len(), |k| k + 1),
            _ => {
                let (len, c) = reference(after);
                if let Some(c) = c {
                    f(c.encode_utf8(&mut buf));
                }
                len
            }
        };
        let tag = &after[..end];
        if tag.starts_with("<img")
            && let Some(k) = tag.find(" alt=\"")
        {
            let alt = &tag[k + 6..];
            let mut alt = &alt[..alt.find('"').unwrap_or(alt.len())];
            // A reference is read as in the text (`alt="&#x6253;"` is 打, not "x6253").
            while let Some(at) = alt.find('&') {
                f(&alt[..at]);
                let (len, c) = reference(&alt[at..]);
                if let Some(c) = c {
                    f(c.encode_utf8(&mut buf));
                }
                alt = &alt[at + len..];
            }
            f(alt);
        }
        rest = &after[end..];
        // A script's or a style sheet's content is no text a reader sees (pandoc and
        // mdBook pages carry `<style>` in the body; the sanitiser removes it, with its word).
        if let Some(close) = raw_text_end(tag) {
            rest = rest.find(close).map_or("", |k| &rest[k..]);
        }
    }
    if !rest.is_empty() {
        f(rest);
    }
}

/// The reference at the start of `s` (which starts with `&`): its length, and the character
/// a character reference (`&#25171;`, `&#x6253;`) stands for. An entity reference (`&amp;`)
/// stands for no letter here; an `&` that starts no reference is one byte, and the text after
/// it is text.
fn reference(s: &str) -> (usize, Option<char>) {
    let b = s.as_bytes();
    let (from, radix) = match (b.get(1), b.get(2)) {
        (Some(b'#'), Some(b'x' | b'X')) => (3, 16),
        (Some(b'#'), _) => (2, 10),
        (Some(c), _) if c.is_ascii_alphabetic() => {
            let n = b[1..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric())
                .count();
            return match b.get(1 + n) {
                Some(b';') => (n + 2, None),
                _ => (1, None),
            };
        }
        _ => return (1, None),
    };
    let digits = (b[from..].iter())
        .take_while(|&&c| char::from(c).is_digit(radix))
        .count();
    if digits == 0 || b.get(from + digits) != Some(&b';') {
        return (1, None);
    }
    // Past U+10FFFF (or past what u32 holds) a reference stands for no character.
    let c = (digits <= 8)
        .then(|| u32::from_str_radix(&s[from..from + digits], radix).ok())
        .flatten()
        .and_then(char::from_u32);
    (from + digits + 1, c)
}

/// The end tag to skip to when `tag` opens a `<script>` or `<style>` (not self-closed).
fn raw_text_end(tag: &str) -> Option<&'static str> {
    let name = tag.get(1..)?;
    let end = |n: &str| {
        name.len() > n.len()
            && name.as_bytes()[..n.len()].eq_ignore_ascii_case(n.as_bytes())
            && matches!(
                name.as_bytes()[n.len()],
                b' ' | b'>' | b'\t' | b'\n' | b'\r'
            )
    };
    match () {
        _ if tag.ends_with("/>") => None,
        _ if end("script") => Some("</script"),
        _ if end("style") => Some("</style"),
        _ => None,
    }
}

/// The letters and digits of `text`, in order.
fn letters(text: &str) -> String {
    text.chars().filter(|&c| counted(c)).collect()
}

/// What the converter was given of one chapter source.
#[derive(Debug, Clone, Copy)]
pub enum Given<'a> {
    /// A plain-text file's text after the text-fix stage.
    Text(&'a str),
    /// A Markdown or HTML file's text nodes as written and after the text-fix stage.
    Nodes(&'a Nodes),
}

/// A Markdown or HTML file's text nodes, in order, each as written and as the text-fix stage
/// left it (None: unchanged). The written texts share one buffer: a chapter has a text node
/// for about every paragraph, and a String each was an allocation each (150,000 in a
/// 3000-chapter book).
#[derive(Debug, Default, Clone)]
pub struct Nodes {
    written: String,
    /// Where each node's written text ends in `written`, and what the text fix made of it.
    nodes: Vec<(usize, Option<String>)>,
}

impl Nodes {
    /// Room for the text nodes of a file of `len` bytes (a node in each 128 bytes, so that
    /// the list seldom grows).
    pub fn for_file(len: usize) -> Nodes {
        Nodes {
            written: String::with_capacity(len),
            nodes: Vec::with_capacity(len / 128),
        }
    }

    /// Adds a node: its text as written, and as fixed.
    pub fn push(&mut self, written: &str, fixed: Option<String>) {
        self.written.push_str(written);
        self.nodes.push((self.written.len(), fixed));
    }

    /// The nodes in order: as written, as fixed (None: unchanged).
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&str>)> {
        let starts = std::iter::once(0).chain(self.nodes.iter().map(|n| n.0));
        starts
            .zip(&self.nodes)
            .map(|(from, (to, fixed))| (&self.written[from..*to], fixed.as_deref()))
    }
}

/// What the book holds of a chapter source, in reading order.
#[derive(Debug, Clone, Copy)]
pub enum Out<'a> {
    /// Plain text: a title.
    Plain(&'a str),
    /// An XHTML fragment: a body.
    Xhtml(&'a str),
}

/// One chapter source, as the build saw it.
#[derive(Debug, Clone, Copy)]
pub struct Sheet<'a> {
    /// The chapter file.
    pub path: &'a Path,
    /// Its text as decoded (for the lines of what went missing).
    pub source: &'a str,
    /// For a plain-text file: the letters and digits its cleanup rules left, when they changed
    /// it (None: they changed nothing).
    pub after_rules: Option<usize>,
    /// What the converter was given.
    pub given: Given<'a>,
}

/// Letters and digits removed, by cause: one chapter's, or a book's summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Removed {
    /// By the cleanup rules (the preset's, `cleanup.toml`'s, the book's own); in a Markdown
    /// or HTML chapter, with what conversion changed in its text nodes.
    pub cleanup: usize,
    /// By simplified/traditional conversion (phrases of another length, `s2twp`).
    pub conversion: usize,
    /// Picture lines of a plain-text chapter (their path; the picture is in the book).
    pub pictures: usize,
    /// Code lines mdBook hides (`# ` lines of Rust blocks): mdBook's reader does not see them.
    pub hidden_code: usize,
    /// Aozora Bunko's legend of its marks and the annotations not supported (see
    /// `convert::aozora`): notation, not the author's text.
    pub notation: usize,
    /// A web page's site navigation left out (links to its site's other pages), each block
    /// named in a `site-navigation` warning.
    pub site_navigation: usize,
    /// By nothing documented: reported as `lost-text`.
    pub lost: usize,
}

impl Removed {
    /// Adds another chapter's counts.
    pub fn add(&mut self, other: &Removed) {
        self.cleanup += other.cleanup;
        self.conversion += other.conversion;
        self.pictures += other.pictures;
        self.hidden_code += other.hidden_code;
        self.notation += other.notation;
        self.site_navigation += other.site_navigation;
        self.lost += other.lost;
    }

    /// The letters and digits removed for a documented cause: every count but `lost`.
    pub(crate) fn explained(&self) -> usize {
        self.causes().iter().map(|c| c.0).sum::<usize>() - self.lost
    }

    /// Every count with what [`Removed::summary`] says of it, `lost` last.
    fn causes(&self) -> [(usize, &'static str); 7] {
        [
            (self.cleanup, "by cleanup rules"),
            (self.conversion, "by conversion"),
            (self.pictures, "picture paths"),
            (self.hidden_code, "in hidden code lines (mdBook)"),
            (
                self.notation,
                "of Aozora notation (its legend, annotations not supported)",
            ),
            (
                self.site_navigation,
                "in site navigation (see the site-navigation warnings)",
            ),
            (self.lost, "LOST (see the lost-text warnings)"),
        ]
    }

    /// The build's summary of what was removed and why; None when nothing was.
    pub fn summary(&self) -> Option<String> {
        let causes = self.causes();
        let parts: Vec<String> = causes
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, why)| format!("{n} {why}"))
            .collect();
        let total: usize = causes.iter().map(|c| c.0).sum();
        (total > 0).then(|| {
            format!(
                "removed {total} letters and digits of the source: {}",
                parts.join(", ")
            )
        })
    }
}

/// Most `lost-text` warnings per chapter source; the rest are counted in the last.
const WARNINGS: usize = 5;

/// Accounts for one chapter source: `out` is what the book holds of it, in reading order;
/// `picture` says whether a line of a plain-text file is a picture line. Returns what was
/// removed, by cause, and a `lost-text` warning for each piece of text missing for no
/// documented cause.
pub fn account(
    sheet: &Sheet<'_>,
    out: &[Out<'_>],
    picture: &dyn Fn(&str) -> bool,
) -> (Removed, Vec<Diagnostic>) {
    let mut removed = Removed::default();
    let given = match sheet.given {
        Given::Text(text) => {
            let given = count(text);
            let source = if std::ptr::eq(text, sheet.source) {
                given
            } else {
                count(sheet.source)
            };
            let after_rules = sheet.after_rules.unwrap_or(source);
            removed.cleanup = source.saturating_sub(after_rules);
            removed.conversion = after_rules.saturating_sub(given);
            given
        }
        Given::Nodes(nodes) => {
            // A node the text fix left alone (None) is counted once, for both.
            let (written, given) = nodes.iter().fold((0, 0), |(w, g), (a, b)| {
                let as_written = count(a);
                (w + as_written, g + b.map_or(as_written, count))
            });
            removed.cleanup = written.saturating_sub(given);
            given
        }
    };
    let made: usize = out
        .iter()
        .map(|o| match o {
            Out::Plain(t) => count(t),
            Out::Xhtml(x) => count_xhtml(x),
        })
        .sum();
    if made >= given {
        return (removed, Vec::new());
    }
    let missing = find_missing(sheet, out, picture);
    let mut warnings = Vec::new();
    for m in &missing {
        match m.picture {
            true => removed.pictures += m.count,
            false => {
                removed.lost += m.count;
                warnings.push(m);
            }
        }
    }
    (removed, lost_text(sheet.path, &warnings))
}

/// A piece of the given text that is not in the book.
struct Missing {
    /// 1-based line of the source, where found.
    line: Option<usize>,
    text: String,
    count: usize,
    picture: bool,
}

/// The lines (plain text) or text nodes (markup) whose letters and digits are not found, in
/// order, in the book's.
fn find_missing(
    sheet: &Sheet<'_>,
    out: &[Out<'_>],
    picture: &dyn Fn(&str) -> bool,
) -> Vec<Missing> {
    let mut made = String::new();
    for o in out {
        match o {
            Out::Plain(t) => made.push_str(&letters(t)),
            Out::Xhtml(x) => text_runs(x, &mut |r| made.push_str(&letters(r))),
        }
    }
    let pieces: Vec<(&str, &str)> = match sheet.given {
        Given::Text(text) => text.split('\n').map(|l| (l, l)).collect(),
        Given::Nodes(nodes) => nodes.iter().map(|(a, b)| (a, b.unwrap_or(a))).collect(),
    };
    let mut at = 0;
    let mut missing = Vec::new();
    for (k, &(written, given)) in pieces.iter().enumerate() {
        let want = letters(given);
        if want.is_empty() {
            continue;
        }
        // Near where the last piece ended: a title the build added, or a heading that was
        // taken as one, may stand between.
        let mut end = made.len().min(at + want.len() + WINDOW);
        while !made.is_char_boundary(end) {
            end -= 1;
        }
        let window = &made[at..end];
        if let Some(p) = window.find(&want) {
            at += p + want.len();
            continue;
        }
        let is_picture = matches!(sheet.given, Given::Text(_)) && picture(given);
        missing.push(Missing {
            line: line_of(sheet, written, k),
            text: given.trim().to_string(),
            count: want.chars().count(),
            picture: is_picture,
        });
    }
    missing
}

/// How far (bytes of letters) past the last piece found the next is looked for.
const WINDOW: usize = 4096;

/// The 1-based source line of `written`: where the source holds it, else (a plain-text file)
/// its line in the text given to the converter.
fn line_of(sheet: &Sheet<'_>, written: &str, k: usize) -> Option<usize> {
    let needle = written.trim();
    if let Some(p) = (!needle.is_empty())
        .then(|| sheet.source.find(needle))
        .flatten()
    {
        return Some(sheet.source[..p].matches('\n').count() + 1);
    }
    matches!(sheet.given, Given::Text(_)).then_some(k + 1)
}

/// The `lost-text` warnings for the pieces missing from chapter file `path`.
fn lost_text(path: &Path, missing: &[&Missing]) -> Vec<Diagnostic> {
    let hint = "no cleanup rule or documented step removed it: this is a bug of epubforge's \
                conversion; please report it with the chapter file";
    let mut warnings: Vec<Diagnostic> = missing
        .iter()
        .take(WARNINGS)
        .map(|m| {
            let shown: String = m.text.chars().take(60).collect();
            let more = if m.text.chars().count() > 60 {
                "…"
            } else {
                ""
            };
            let message = format!(
                "{} letters and digits of the source are not in the book: `{shown}{more}`",
                m.count
            );
            Diagnostic::warning(Code::LostText, message)
                .at(path)
                .line(m.line)
                .hint(hint)
        })
        .collect();
    if missing.len() > WARNINGS {
        let rest: usize = missing[WARNINGS..].iter().map(|m| m.count).sum();
        let message = format!(
            "{} more pieces of text ({rest} letters and digits) are not in the book",
            missing.len() - WARNINGS
        );
        warnings.push(
            Diagnostic::warning(Code::LostText, message)
                .at(path)
                .hint(hint),
        );
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet<'a>(source: &'a str, given: &'a str) -> Sheet<'a> {
        Sheet {
            path: Path::new("ch1.txt"),
            source,
            after_rules: None,
            given: Given::Text(given),
        }
    }

    #[test]
    fn count_agrees_with_the_character_definition() {
        // Han counted by its lead byte (U+4000..U+9FFF), the rest by `counted`.
        let by_chars = |t: &str| {
            t.chars()
                .filter(|&c| ('\u{4000}'..='\u{9FFF}').contains(&c) || counted(c))
                .count()
        };
        let long = "第一章，风起。“好！”ab12 ＡＢ ω 𝒊 é ䷀ 〇 ｶ カ 가".repeat(7);
        for t in [
            "",
            "a",
            "，",
            "a，b",
            &long,
            &long[3..],
            &long[..long.len() - 4],
        ] {
            assert_eq!(count(t), by_chars(t), "{t:?}");
        }
        for cut in 0..64 {
            let t = long.get(cut..).unwrap_or("");
            assert_eq!(count(t), by_chars(t), "{cut}");
        }
    }

    proptest::proptest! {
        /// Runs of Han (read four at a time), punctuation decoded by hand, any other
        /// character: the count is the characters' own definition.
        #[test]
        fn count_of_any_text_agrees_with_the_character_definition(
            t in "([第一章乙丙䷀鿿]{0,9}[，。“”、〇々０Ａ\\u{3001}-\\u{30FF}\\u{FF00}-\\u{FFEF}\\u{E000}-\\u{FFFD}]?[a-z0-9 <>&é𝒊ω]?.?){0,24}",
        ) {
            let by_chars = t
                .chars()
                .filter(|&c| ('\u{4000}'..='\u{9FFF}').contains(&c) || counted(c))
                .count();
            proptest::prop_assert_eq!(count(&t), by_chars);
        }
    }

    #[test]
    fn counts_letters_digits_and_han_not_punctuation_or_markup() {
        assert_eq!(count("第1章 风起，“好！”ab"), 8);
        assert_eq!(count("ＡＢ１２ ω 𝒊"), 6);
        assert_eq!(count_xhtml("<p class=\"x\">甲&amp;乙</p><h1>b</h1>"), 3);
        assert_eq!(count_xhtml("<p>甲<img src=\"a.png\" alt=\"乙丙\"/></p>"), 3);
        // A character reference is its character, in the body as in an alt (calibre writes
        // `alt="&#x6253;&#x8D4F;"`, a downloader whole pages of them): not the letters of
        // "x6253", and not nothing, or a loss of such a page would go unseen.
        assert_eq!(
            count_xhtml("<p>&#x7532;<img src=\"a.png\" alt=\"&#x6253;&#x8D4F;b\"/></p>"),
            4
        );
        assert_eq!(
            count_xhtml("<p>&#25171;&#X8d4f;&#12290;&#xFFFFFFFFF;&#;</p>"),
            2
        );
        // An entity reference is no letter; a lone `&` starts none, the text after it counts.
        assert_eq!(count_xhtml("<p>a&amp;b &lt;c&gt; & d; &x y;</p>"), 6);
        // Nor are a body's style sheet and script (mdBook's pages, pandoc's of them).
        assert_eq!(
            count_xhtml(
                "<style>\n.x { color: red }</style><p>ab</p><script type=\"t\">var q</script><style/>c"
            ),
            3
        );
        // A tag whose name is cut inside a character (a comment `<!-- ∫ -->` in MathML,
        // Readium's Tiny-MathML sample): the check for `script` panicked.
        assert_eq!(
            count_xhtml("<math><!-- ∫ --><mi>x</mi></math><!--∫∫--><p>b</p>"),
            2
        );
    }

    #[test]
    fn a_comment_is_no_text_even_with_a_greater_than_sign_inside() {
        // IDPF's hefty-water: `<!-- … <code>ruby</code> to render the captions … -->`.
        assert_eq!(
            count_xhtml("<p>ab</p><!-- x > yz <code>w</code> --><p>c</p>"),
            3
        );
        assert_eq!(count_xhtml("<p>ab</p><!-- unclosed > yz"), 2);
        assert_eq!(count_xhtml("<!---->d<!-- -->e"), 2);
    }

    #[test]
    fn a_book_holding_every_character_has_no_loss() {
        let text = "第一章 风起\n\n天黑了。\n他走了，\n没回头。";
        let out = [
            Out::Plain("第一章 风起"),
            Out::Xhtml("<p>天黑了。</p><p>他走了，没回头。</p>"),
        ];
        let (removed, warnings) = account(&sheet(text, text), &out, &|_| false);
        assert_eq!(removed, Removed::default());
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_converter_that_drops_a_line_is_caught_at_that_line() {
        // A planted converter bug: the third paragraph never reaches the XHTML.
        let text = "第一章 风起\n\n天黑了。\n\n他走了。\n\n没回头。";
        let out = [
            Out::Plain("第一章 风起"),
            Out::Xhtml("<p>天黑了。</p><p>没回头。</p>"),
        ];
        let (removed, warnings) = account(&sheet(text, text), &out, &|_| false);
        assert_eq!(removed.lost, 3);
        assert_eq!(warnings.len(), 1);
        let w = &warnings[0];
        assert_eq!(w.code, Code::LostText);
        assert_eq!(w.line, Some(5));
        assert!(w.message.contains("他走了"), "{}", w.message);
    }

    #[test]
    fn one_character_missing_is_caught() {
        let text = "甲乙丙\n丁戊己";
        let out = [Out::Xhtml("<p>甲乙丙</p><p>丁己</p>")];
        let (removed, warnings) = account(&sheet(text, text), &out, &|_| false);
        assert_eq!(removed.lost, 3, "the line is reported whole");
        assert_eq!(warnings[0].line, Some(2));
    }

    #[test]
    fn cleanup_and_conversion_are_causes_not_losses() {
        let source = "天黑了。\n本章完\n他走了。";
        let given = "天黑了。\n他走了。";
        let sheet = Sheet {
            after_rules: Some(count(given)),
            ..sheet(source, given)
        };
        let out = [Out::Xhtml("<p>天黑了。</p><p>他走了。</p>")];
        let (removed, warnings) = account(&sheet, &out, &|_| false);
        assert_eq!(removed.cleanup, 3);
        assert_eq!(removed.lost, 0);
        assert!(warnings.is_empty());
        let summary = removed.summary().unwrap();
        assert!(summary.contains("3 by cleanup rules"), "{summary}");
    }

    #[test]
    fn picture_lines_are_a_documented_cause() {
        let text = "天黑了。\n![](a.png)";
        let out = [Out::Xhtml(
            "<p>天黑了。</p><figure><img src=\"a.png\" alt=\"\"/></figure>",
        )];
        let (removed, warnings) = account(&sheet(text, text), &out, &|l| l.starts_with("!["));
        assert_eq!(removed.pictures, 4);
        assert!(warnings.is_empty());
    }

    #[test]
    fn markup_text_nodes_are_accounted() {
        let mut nodes = Nodes::default();
        nodes.push("天黑了。", None);
        nodes.push("他走了。", None);
        let source = "<p>天黑了。</p>\n<p>他走了。</p>";
        let sheet = Sheet {
            path: Path::new("ch1.html"),
            source,
            after_rules: None,
            given: Given::Nodes(&nodes),
        };
        let (_, warnings) = account(&sheet, &[Out::Xhtml("<p>天黑了。</p>")], &|_| false);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(2));
    }
}
