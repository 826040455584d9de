//! TeX math in Markdown chapters -> Presentation MathML.
//!
//! pulldown-cmark finds `$…$` and `$$…$$` (its math option); `\(…\)`, `\[…\]` and mdBook's
//! MathJax spelling `\\(…\\)`, `\\[…\\]` are turned into those first ([`delimiters`]), outside
//! code. Each formula is converted by `math-core` (pure Rust; chosen against `pulldown-latex`
//! and `latex2mathml` on two real math books, see `guide/src/design-notes.md`) into a `<math>`
//! element whose `alttext` is the TeX, for readers that speak it and for text-only readers.
//! The MathML then goes through the sanitiser like MathML written in an HTML chapter, so its
//! elements and attributes are held to EPUBCheck's schema there, in one place.
//!
//! A formula the converter cannot take (an unknown command, a macro of the book's own) stays
//! as written, as `code`, with a warning at its line: never as Markdown, whose emphasis and
//! links would eat its text.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};
use pulldown_cmark::{Event, Options, Parser, Tag};

use super::{escape_attr, escape_text};

/// A formula as the chapter gets it: MathML, or the TeX as code with why it stayed so.
pub(super) struct Formula {
    /// The HTML written in its place.
    pub html: String,
    /// Why the TeX stayed as written, when it did.
    pub failure: Option<Refused>,
}

/// Why a formula stayed as written: said inside the warning's message
/// ([`failure_message`]).
#[derive(Debug, thiserror::Error)]
pub(super) enum Refused {
    /// Nothing between the delimiters.
    #[error("it is empty")]
    Empty,
    /// The converter could not be made (its configuration refused).
    #[error("the converter could not start")]
    NoConverter,
    /// The book's macros could not be expanded ([`super::tex_macros`]).
    #[error(transparent)]
    Macros(super::tex_macros::Overrun),
    /// math-core refused the TeX.
    #[error("{0}")]
    Converter(Box<math_core::LatexError>),
    /// math-core panicked on it (caught; see [`convert_guarded`]).
    #[error("the converter failed on it")]
    Panicked,
}

impl Refused {
    /// Whether math-core refused something KaTeX takes in math mode (a size switch).
    fn not_in_math_mode(&self) -> bool {
        matches!(self, Refused::Converter(e) if e.to_string().contains("math mode"))
    }
}

/// The converter, made once: its configuration is the same for every book.
fn converter() -> Option<&'static LatexToMathML> {
    static CONVERTER: OnceLock<Option<LatexToMathML>> = OnceLock::new();
    CONVERTER
        .get_or_init(|| {
            // The commands math-core marks "unreliable" (`\widetilde`, `\widecheck`) still make
            // valid MathML, which a reader draws less well than a browser might: better than the
            // TeX as code (a real book, Jolt's, writes `\widetilde` 197 times).
            let config = MathCoreConfig {
                allow_unreliable_rendering: true,
                ..MathCoreConfig::default()
            };
            LatexToMathML::new(config).ok()
        })
        .as_ref()
}

/// The formula `tex` (without its delimiters), inline or `display`, as MathML, the book's own
/// `macros` expanded first ([`super::tex_macros`]); as code when the converter refuses it.
pub(super) fn formula(tex: &str, display: bool, macros: &[(String, String)]) -> Formula {
    let mode = match display {
        true => MathDisplay::Block,
        false => MathDisplay::Inline,
    };
    // The blank lines of a display formula, kept from Markdown by `guard_display`.
    let tex: Cow<'_, str> = match tex.contains(BLANK) {
        true => Cow::Owned(
            tex.split('\n')
                .map(|l| if l.trim() == BLANK { "" } else { l })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        false => Cow::Borrowed(tex),
    };
    let tex = tex.as_ref();
    let expanded = super::tex_macros::expand(tex, macros);
    let converted = match (converter(), expanded) {
        (_, Err(why)) => Err(Refused::Macros(why)),
        (Some(c), Ok(expanded)) if !tex.trim().is_empty() => convert_guarded(c, &expanded, mode),
        (Some(_), Ok(_)) => Err(Refused::Empty),
        (None, Ok(_)) => Err(Refused::NoConverter),
    };
    match converted {
        Ok(result) => Formula {
            html: with_alttext(&result, tex),
            failure: None,
        },
        Err(why) => Formula {
            html: as_code(tex, display),
            failure: Some(why),
        },
    }
}

/// One conversion, a panic of the converter caught: math-core 0.7 panics on some formulas a
/// real book holds (`ColumnSeparator node should be handled in emit_table`, on a Mina book
/// page). Its conversion keeps no state between formulas (`convert_with_local_state`), so a
/// caught panic costs that formula, kept as code with a warning, not the book; the panic's
/// own message is kept off the terminal ([`quiet_converter_panics`]).
fn convert_guarded(c: &LatexToMathML, tex: &str, mode: MathDisplay) -> Result<String, Refused> {
    match convert_once(c, tex, mode) {
        // KaTeX takes the size switches in math (`{\small \mathsf{AND}}`, a book's macros
        // are full of them); math-core refuses them there. The formula is then converted
        // without them, at the size around it: its content whole, its `alttext` as written.
        Err(why) if why.not_in_math_mode() => match without_size_switches(tex) {
            Some(plain) => convert_once(c, &plain, mode).map_err(|_| why),
            None => Err(why),
        },
        other => other,
    }
}

/// The TeX size switches (`\small`, `\Large`…), which KaTeX allows in math.
const SIZE_SWITCHES: [&str; 10] = [
    "tiny",
    "scriptsize",
    "footnotesize",
    "small",
    "normalsize",
    "large",
    "Large",
    "LARGE",
    "huge",
    "Huge",
];

/// `tex` without its size switches; None when it has none.
fn without_size_switches(tex: &str) -> Option<String> {
    let mut out = String::with_capacity(tex.len());
    let mut rest = tex;
    let mut found = false;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name_len = after.bytes().take_while(u8::is_ascii_alphabetic).count();
        let skip = match name_len {
            0 => after.chars().next().map_or(0, char::len_utf8),
            n => n,
        };
        if SIZE_SWITCHES.contains(&&after[..name_len]) && name_len > 0 {
            found = true;
        } else {
            out.push('\\');
            out.push_str(&after[..skip]);
        }
        rest = &after[skip..];
    }
    out.push_str(rest);
    found.then_some(out)
}

/// One call of the converter, its panics caught.
fn convert_once(c: &LatexToMathML, tex: &str, mode: MathDisplay) -> Result<String, Refused> {
    quiet_converter_panics();
    let run = std::panic::AssertUnwindSafe(|| c.convert_with_local_state(tex, mode));
    match std::panic::catch_unwind(run) {
        Ok(Ok(converted)) => Ok(converted.mathml),
        Ok(Err(e)) => Err(Refused::Converter(e)),
        Err(_) => Err(Refused::Panicked),
    }
}

/// Installs, once, a panic hook that says nothing for panics inside the math converter's
/// crates (caught by [`convert_guarded`]) and hands every other panic to the hook before it.
fn quiet_converter_panics() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_converter = info
                .location()
                .is_some_and(|l| l.file().contains("math-core"));
            if !in_converter {
                before(info);
            }
        }));
    });
}

/// `mathml` (which starts `<math`) with the TeX it came from as its `alttext`, white space
/// run together (an attribute value keeps no line breaks anyway).
fn with_alttext(mathml: &str, tex: &str) -> String {
    let alt = tex.split_whitespace().collect::<Vec<_>>().join(" ");
    let rest = mathml.strip_prefix("<math").unwrap_or(mathml);
    format!("<math alttext=\"{}\"{rest}", escape_attr(&alt))
}

/// The TeX as written, as code: a block for display math.
fn as_code(tex: &str, display: bool) -> String {
    let code = escape_text(tex.trim());
    match display {
        true => format!("<pre><code class=\"language-tex\">{code}</code></pre>"),
        false => format!("<code class=\"language-tex\">{code}</code>"),
    }
}

/// The warning for a formula left as code, shown with its first characters.
pub(super) fn failure_message(tex: &str, why: &Refused) -> String {
    let one = tex.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut shown: String = one.chars().take(50).collect();
    if one.chars().count() > 50 {
        shown.push('…');
    }
    format!("TeX math `{shown}` could not be converted to MathML ({why}): kept as code")
}

/// Counts lines up to byte offsets that mostly grow, so that locating every formula of a
/// chapter stays linear.
#[derive(Default)]
pub(super) struct Lines {
    at: usize,
    line: usize,
}

impl Lines {
    /// The 1-based line of byte `offset` of `src`.
    pub(super) fn line(&mut self, src: &str, offset: usize) -> usize {
        if offset < self.at {
            *self = Lines::default();
        }
        let between = src.get(self.at..offset).unwrap_or_default();
        self.line += memchr::memchr_iter(b'\n', between.as_bytes()).count();
        self.at = offset;
        self.line + 1
    }
}

/// `src` made ready for pulldown-cmark's math option with `options`: bracketed formulas
/// written with dollars ([`delimiters`]), and the lines of display formulas that Markdown
/// would read as a list item, a heading or a quote indented so that they stay in the formula
/// ([`guard_display`]). Code and raw HTML stay as they are.
pub(super) fn prepare(src: &str, options: Options) -> Cow<'_, str> {
    let mut text = Cow::Borrowed(src);
    if src.contains("\\(") || src.contains("\\[") {
        let code = code_ranges(src, options);
        if let Cow::Owned(changed) = delimiters(src, &code) {
            text = Cow::Owned(changed);
        }
    }
    if text.contains("$$") {
        let code = code_ranges(&text, options);
        if let Cow::Owned(changed) = guard_display(&text, &code) {
            text = Cow::Owned(changed);
        }
    }
    text
}

/// The byte ranges of the code spans, code blocks and raw HTML of `src`, in order.
fn code_ranges(src: &str, options: Options) -> Vec<Range<usize>> {
    Parser::new_ext(src, options)
        .into_offset_iter()
        .filter(|(e, _)| {
            matches!(
                e,
                Event::Code(_)
                    | Event::Html(_)
                    | Event::InlineHtml(_)
                    | Event::Start(Tag::CodeBlock(_))
            )
        })
        .map(|(_, range)| range)
        .collect()
}

/// Stands for a blank line inside a display formula, so that the paragraph goes on: not
/// white space to Markdown, and taken out again before the formula is converted.
const BLANK: &str = "\u{A0}";

/// Most lines a display formula may take for its blank lines to be bridged.
const MAX_DISPLAY_LINES: usize = 400;

/// `src` with the inner lines of display formulas (`$$` opening a line, up to the next `$$`)
/// that would open a block and end the paragraph (`1. x`, `- x`, `# x`, `> x`, a fence, a
/// setext underline) indented by four spaces (a paragraph's continuation line may be, and in
/// TeX the spaces change nothing), and their blank lines made [`BLANK`]. mdbook-katex reads
/// the formula before Markdown does, so books written for it have such lines.
fn guard_display<'s>(src: &'s str, code: &[Range<usize>]) -> Cow<'s, str> {
    let mut out = String::new();
    let mut last = 0;
    let mut code = code.iter().peekable();
    let mut at = 0;
    while at < src.len() {
        let line_end = src[at..].find('\n').map_or(src.len(), |k| at + k + 1);
        while code.peek().is_some_and(|r| r.end <= at) {
            code.next();
        }
        let in_code = code.peek().is_some_and(|r| r.start <= at);
        let trimmed = in_quote(&src[at..line_end]);
        let opens = !in_code && trimmed.starts_with("$$") && !trimmed[2..].contains("$$");
        if !opens {
            at = line_end;
            continue;
        }
        let Some(close) = src[line_end..].find("$$").map(|k| line_end + k) else {
            break;
        };
        let inner = &src[line_end..close];
        if inner.matches('\n').count() > MAX_DISPLAY_LINES {
            at = line_end;
            continue;
        }
        let mut start = line_end;
        for line in inner.split_inclusive('\n') {
            let trimmed = in_quote(line);
            let indent = start + (line.len() - trimmed.len());
            if trimmed.trim().is_empty() && line.ends_with('\n') {
                out.push_str(&src[last..start]);
                out.push_str(BLANK);
                last = indent;
            } else if opens_block(trimmed) {
                out.push_str(&src[last..indent]);
                out.push_str("    ");
                last = indent;
            }
            start += line.len();
        }
        at = src[close..].find('\n').map_or(src.len(), |k| close + k + 1);
    }
    if last == 0 {
        return Cow::Borrowed(src);
    }
    out.push_str(&src[last..]);
    Cow::Owned(out)
}

/// A line without its indentation and block quote markers (`> > `).
fn in_quote(line: &str) -> &str {
    let mut rest = line.trim_start();
    while let Some(inner) = rest.strip_prefix('>') {
        rest = inner.trim_start();
    }
    rest
}

/// Whether a line (its leading white space taken off) opens a Markdown block that ends a
/// paragraph, or underlines it into a heading.
fn opens_block(line: &str) -> bool {
    let b = line.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let after = |k: usize| b.get(k).is_none_or(|c| c.is_ascii_whitespace());
    match b.first() {
        Some(b'#' | b'>' | b'<' | b'=' | b'|') => true,
        Some(b'-' | b'+' | b'*') => after(1) || line.trim_end().bytes().all(|c| c == b'-'),
        Some(b'`') => line.starts_with("```"),
        Some(b'~') => line.starts_with("~~~"),
        Some(_) if (1..=9).contains(&digits) => {
            matches!(b.get(digits), Some(b'.' | b')')) && after(digits + 1)
        }
        _ => false,
    }
}

/// `src` with `\(…\)` and `\\(…\\)` written `$…$`, `\[…\]` and `\\[…\\]` written `$$…$$`,
/// outside code spans, code blocks and raw HTML (`code` gives their byte ranges, in order).
/// The one-backslash forms are math only when what they hold looks like TeX (a backslash,
/// `^`, `_`, `=` or a brace): `\[1\]` is an escaped bracket. Line breaks stay where they
/// were, so lines of warnings are the file's.
pub(super) fn delimiters<'s>(src: &'s str, code: &[Range<usize>]) -> Cow<'s, str> {
    if !src.contains("\\(") && !src.contains("\\[") {
        return Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len());
    let mut code = code.iter().peekable();
    let mut last = 0;
    let mut i = 0;
    let bytes = src.as_bytes();
    while let Some(k) = memchr::memchr(b'\\', &bytes[i..]) {
        let at = i + k;
        while code.peek().is_some_and(|r| r.end <= at) {
            code.next();
        }
        if let Some(r) = code.peek().filter(|r| r.start <= at) {
            i = r.end.max(at + 1);
            continue;
        }
        match formula_at(src, at) {
            Some(found) => {
                out.push_str(&src[last..at]);
                out.push_str(&found.dollars);
                last = found.end;
                i = found.end;
            }
            None => i = at + 1 + usize::from(bytes.get(at + 1) == Some(&b'\\')),
        }
        if i >= bytes.len() {
            break;
        }
    }
    if last == 0 {
        return Cow::Borrowed(src);
    }
    out.push_str(&src[last..]);
    Cow::Owned(out)
}

/// A bracketed formula found at a backslash: its `$` spelling and where it ends.
struct Bracketed {
    dollars: String,
    end: usize,
}

/// The formula opened by the backslash at `at` (`\(`, `\[`, `\\(`, `\\[`), up to its closing
/// delimiter in the same paragraph (no blank line between).
fn formula_at(src: &str, at: usize) -> Option<Bracketed> {
    let rest = &src[at..];
    let (double, open) = match rest.as_bytes() {
        [b'\\', b'\\', b @ (b'(' | b'['), ..] => (true, *b),
        [b'\\', b @ (b'(' | b'['), ..] => (false, *b),
        _ => return None,
    };
    let close = match (double, open) {
        (true, b'(') => "\\\\)",
        (true, _) => "\\\\]",
        (false, b'(') => "\\)",
        (false, _) => "\\]",
    };
    let start = if double { 3 } else { 2 };
    let end = rest[start..].find(close)? + start;
    let inner = &rest[start..end];
    if inner.contains("\n\n") || inner.contains("\n\r\n") || inner.contains('$') {
        return None;
    }
    let tex = match double {
        // What MathJax sees after Markdown took its escapes.
        true => unescape(inner),
        // An escaped bracket or parenthesis (`\[\\\]` in CommonMark's spec) holds no letter nor digit.
        false
            if inner.contains(['\\', '^', '_', '=', '{'])
                && inner.bytes().any(|b| b.is_ascii_alphanumeric()) =>
        {
            inner.to_string()
        }
        false => return None,
    };
    let trimmed = tex.trim();
    if trimmed.is_empty() {
        return None;
    }
    let dollars = match open {
        b'(' => format!("${trimmed}$"),
        _ => format!("$${tex}$$"),
    };
    Some(Bracketed {
        dollars,
        end: at + end + close.len(),
    })
}

/// Markdown's backslash escapes taken out: `\\` -> `\`, `\_` -> `_` (any ASCII punctuation).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && next.is_ascii_punctuation()
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::markup::markdown_to_xhtml;
    use crate::convert::markup::test_support::*;

    fn convert(src: &str) -> crate::convert::markup::Fragment {
        let f = markdown_to_xhtml(src, &mut Recorder::default()).expect("converts");
        assert_well_formed(&f);
        f
    }

    fn squeezed(s: &str) -> String {
        s.split_whitespace().collect()
    }

    #[test]
    fn regression_bracketed_tex_is_math_not_a_link() {
        // Issue 28: `([b]G)` was read as a link and lost.
        let f = convert("Intro.\n\n$$K = [a]([b]G) \\pmod p$$\n");
        assert!(!f.body.contains("<a"), "{}", f.body);
        assert_eq!(f.body.matches("<math").count(), 1, "{}", f.body);
        assert!(
            f.body.contains("alttext=\"K = [a]([b]G) \\pmod p\""),
            "{}",
            f.body
        );
        assert!(
            squeezed(&body_text(&f)).contains("K=[a]([b]G)"),
            "{}",
            f.body
        );
        assert!(notes(&f).is_empty(), "{:?}", notes(&f));
    }

    #[test]
    fn every_delimiter_gives_mathml_and_no_emphasis() {
        let f = convert(
            "Let $a_1 * b_1 * c$ and \\(x_1 * y_1\\) and \\\\(p_1 * q_1\\\\) be.\n\n\\[\nz^2\n\\]\n\n`$kept$`\n",
        );
        assert_eq!(f.body.matches("<math").count(), 4, "{}", f.body);
        assert_eq!(f.body.matches("display=\"block\"").count(), 1, "{}", f.body);
        assert!(!f.body.contains("<em>"), "{}", f.body);
        assert!(f.body.contains("<code>$kept$</code>"), "{}", f.body);
        assert!(
            !body_text(&f).replace("$kept$", "").contains('$'),
            "{}",
            f.body
        );
    }

    #[test]
    fn a_formula_the_converter_refuses_is_code_with_a_warning_at_its_line() {
        let f = convert("Intro.\n\nSee $\\field_a * b_c *$ here.\n");
        assert!(
            f.body
                .contains("<code class=\"language-tex\">\\field_a * b_c *</code>"),
            "{}",
            f.body
        );
        assert!(!f.body.contains("<em>"), "{}", f.body);
        let notes = notes(&f);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("line 3: TeX math `\\field_a * b_c *` could not"),
            "{notes:?}"
        );
    }

    #[test]
    fn a_formula_becomes_mathml_with_its_tex_as_alttext() {
        let f = formula("K = [a]([b]G) \\pmod p", true, &[]);
        assert!(f.failure.is_none());
        assert!(
            f.html
                .starts_with("<math alttext=\"K = [a]([b]G) \\pmod p\" display=\"block\">"),
            "{}",
            f.html
        );
        assert!(f.html.contains("<mi>G</mi>"), "{}", f.html);
    }

    #[test]
    fn a_formula_the_converter_refuses_stays_as_code() {
        let f = formula("\\field^n <x>", false, &[]);
        assert_eq!(
            f.html,
            "<code class=\"language-tex\">\\field^n &lt;x&gt;</code>"
        );
        let why = f.failure.unwrap();
        assert!(matches!(why, Refused::Converter(_)), "{why:?}");
        assert!(why.to_string().contains("field"), "{why}");
        let msg = failure_message("\\field^n", &why);
        assert!(msg.starts_with("TeX math `\\field^n` could not"), "{msg}");
    }

    #[test]
    fn bracket_delimiters_become_dollars_outside_code() {
        let src = "a \\( x^2 \\) b \\[\ny_1\n\\] `\\(c^2\\)` \\[1\\] \\\\(\\frac{a}{b}\\_1\\\\)";
        let code_at = src.find('`').unwrap();
        let code = [Range {
            start: code_at,
            end: code_at + 12,
        }];
        assert_eq!(
            delimiters(src, &code),
            "a $x^2$ b $$\ny_1\n$$ `\\(c^2\\)` \\[1\\] $\\frac{a}{b}_1$"
        );
        assert!(matches!(delimiters("no math", &[]), Cow::Borrowed(_)));
        // Not across a blank line.
        assert_eq!(delimiters("\\(a^2\n\nb\\)", &[]), "\\(a^2\n\nb\\)");
    }

    #[test]
    fn display_lines_that_would_open_a_block_are_indented() {
        let src = "Text\n\n$$\n\\begin{array}{rl}\n1. & x = 0 \\\\\n - y \\\\\n\\end{array}\n$$\n\n1. a list\n\n```\n$$\n1. code\n```\n";
        let code_at = src.find("```").unwrap();
        let code = [Range {
            start: code_at,
            end: src.len(),
        }];
        assert_eq!(
            guard_display(src, &code),
            "Text\n\n$$\n\\begin{array}{rl}\n    1. & x = 0 \\\\\n     - y \\\\\n\\end{array}\n$$\n\n1. a list\n\n```\n$$\n1. code\n```\n"
        );
        assert!(matches!(
            guard_display("$$x$$\n1. y\n", &[]),
            Cow::Borrowed(_)
        ));
        let blank = convert("$$a =\n\n- b\n$$\n");
        assert_eq!(blank.body.matches("<math").count(), 1, "{}", blank.body);
        assert!(blank.body.contains("alttext=\"a = - b\""), "{}", blank.body);
        // In a quote: the opening `$$` follows the marker; the closing one pairs with it.
        let quoted = convert("> $$\n> 1. a\n> $$\n\n$$\n1. b\n$$\n");
        assert_eq!(quoted.body.matches("<math").count(), 2, "{}", quoted.body);
        assert!(!quoted.body.contains("<li>"), "{}", quoted.body);
        let f = convert(src);
        assert_eq!(f.body.matches("<math").count(), 1, "{}", f.body);
        assert_eq!(f.body.matches("<li>").count(), 1, "{}", f.body);
    }

    #[test]
    fn headings_with_math_give_readable_titles() {
        let f =
            convert("# The field $\\mathbb{F}_p$ and $h(X)$\n\ntext\n\n## Committing to $h(X)$\n");
        assert_eq!(f.title.as_deref(), Some("The field 𝔽p and h(X)"));
        assert!(
            f.body.contains("<h2 id=\"committing-to-hx\">"),
            "{}",
            f.body
        );
    }

    /// The Mina book's `macros.txt` (mdbook-katex): `\GG`, and `\and`, which uses `\small`.
    #[test]
    fn a_chapter_uses_the_books_macros_and_their_size_switches() {
        let opts = crate::convert::markup::MarkdownOptions {
            macros: std::sync::Arc::new(vec![
                ("GG".to_string(), r"{\mathbb{G}}".to_string()),
                ("and".to_string(), r"{\small \mathsf{AND}}".to_string()),
                ("loop".to_string(), r"\loop\loop".to_string()),
            ]),
            ..Default::default()
        };
        let src = "Let $g \\in \\GG$ and $a \\and b$.\n\nBad: $\\loop$.\n";
        let f = crate::convert::markup::markdown_to_xhtml_with(
            src,
            &mut Recorder::default(),
            opts,
            None,
            None,
        )
        .expect("converts");
        assert_well_formed(&f);
        assert_eq!(f.body.matches("<math").count(), 2, "{}", f.body);
        assert!(f.body.contains("alttext=\"g \\in \\GG\""), "{}", f.body);
        assert!(f.body.contains("alttext=\"a \\and b\""), "{}", f.body);
        assert!(
            f.body
                .contains("<code class=\"language-tex\">\\loop</code>"),
            "{}",
            f.body
        );
        let warned: Vec<&str> = f.warnings.iter().map(|n| n.message.as_str()).collect();
        assert!(
            warned
                .iter()
                .any(|w| w.contains("`\\loop`") && w.contains("1000")),
            "{warned:?}"
        );
    }

    /// math-core 0.7 panics on `&\color{…}` in an aligned row (a Mina book page): the formula
    /// stays as code with a warning, and the book goes on.
    #[test]
    fn a_formula_the_converter_panics_on_stays_as_code() {
        let tex = "\\begin{align*}\na &\\equiv 0\\\\\n\\color{green}b &\\color{green}\\equiv 0\n\\end{align*}";
        let f = formula(tex, true, &[]);
        assert!(
            matches!(f.failure, Some(Refused::Panicked)),
            "{:?}",
            f.failure
        );
        assert!(
            f.html.starts_with("<pre><code class=\"language-tex\">"),
            "{}",
            f.html
        );
    }

    #[test]
    fn wide_accents_become_mathml() {
        let f = formula(r"\widetilde{\textsf{ra}}", false, &[]);
        assert!(f.failure.is_none(), "{:?}", f.failure);
        assert!(f.html.starts_with("<math"), "{}", f.html);
    }

    #[test]
    fn prices_are_not_math() {
        let f = convert("It costs $5 and $10, or $ 3 $.\n");
        assert!(!f.body.contains("<math"), "{}", f.body);
        assert_eq!(f.body, "<p>It costs $5 and $10, or $ 3 $.</p>\n");
    }

    #[test]
    fn lines_are_counted_forward_and_again_when_offsets_go_back() {
        let src = "a\nb\nc\n";
        let mut lines = Lines::default();
        assert_eq!(lines.line(src, 0), 1);
        assert_eq!(lines.line(src, 4), 3);
        assert_eq!(lines.line(src, 2), 2);
    }
}
