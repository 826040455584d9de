//! mdBook's conventions inside a Markdown chapter, for the Markdown renderer
//! ([`super::markdown`]): hidden lines of code blocks, and admonitions (mdbook-admonish's
//! `` ```admonish note `` fences; GitHub's `> [!NOTE]` quotes are pulldown-cmark's, written
//! the same way).
//!
//! Hidden lines are what mdBook (and rustdoc) hide behind an eye button: in a Rust block a line
//! `#` alone or `# …` (after any indent) is hidden and `##…` shows as `#…`; in a block of
//! another language, lines starting with the prefix `book.toml` names for it
//! (`[output.html.code.hidelines] python = "~"`) or the block itself names (`hidelines=~` in
//! its info string). A book has no eye button: the lines are left out, and their letters
//! counted for the text ledger as a documented removal (not lost text).
//!
//! An admonition becomes `<aside class="admonition KIND">` opened by
//! `<p class="admonition-title">Title</p>`; an aside with no `epub:type` is a sidebar to reading
//! systems, shown in place.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::escape_text;

/// Line-hiding prefixes by language (`book.toml`'s `[output.html.code.hidelines]`); Rust's rule
/// applies to `rust` blocks whatever this says.
pub type HideLines = BTreeMap<String, String>;

/// How lines of one code block are hidden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hide {
    /// rustdoc's rule: `#` alone or `# …` hidden, `##` shown as `#`.
    Rust,
    /// Lines starting (after their indent) with this prefix are hidden.
    Prefix(String),
}

/// The rule for a fenced block with info string `info`: the block's own `hidelines=` first,
/// then Rust's, then the book's prefix for its language.
pub(crate) fn hide_rule(info: &str, book: &HideLines) -> Option<Hide> {
    let mut words = info.split([' ', '\t', ',']).filter(|w| !w.is_empty());
    let lang = info.split([' ', '\t', ',']).next().unwrap_or("");
    if let Some(prefix) = words.find_map(|w| w.strip_prefix("hidelines=")) {
        return (!prefix.is_empty()).then(|| Hide::Prefix(prefix.to_string()));
    }
    if lang == "rust" {
        return Some(Hide::Rust);
    }
    book.get(lang)
        .filter(|p| !p.is_empty())
        .map(|p| Hide::Prefix(p.clone()))
}

/// `code` without its hidden lines, and the letters and digits those held (for the ledger).
pub(crate) fn hide_lines<'c>(code: &'c str, rule: &Hide) -> (Cow<'c, str>, usize) {
    let mut out = String::new();
    let mut hidden = 0;
    let mut changed = false;
    for line in code.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start();
        let indent = &line[..body.len() - trimmed.len()];
        match rule {
            Hide::Rust if trimmed.starts_with("##") => {
                out.push_str(indent);
                out.push_str(&line[indent.len() + 1..]);
                changed = true;
            }
            Hide::Rust if trimmed == "#" || trimmed.starts_with("# ") => {
                hidden += crate::ledger::count(trimmed);
                changed = true;
            }
            Hide::Prefix(p) if trimmed.starts_with(p.as_str()) => {
                hidden += crate::ledger::count(&trimmed[p.len()..]);
                changed = true;
            }
            _ => out.push_str(line),
        }
    }
    match changed {
        true => (Cow::Owned(out), hidden),
        false => (Cow::Borrowed(code), 0),
    }
}

/// mdbook-admonish's fences (`` ```admonish warning "Title" ``) rewritten as `<aside>` blocks
/// around their Markdown (which then renders as the rest of the chapter); other fenced code
/// is left alone, admonish fences inside it included. Linear in the text.
pub(crate) fn admonitions(src: &str) -> Cow<'_, str> {
    if !src.contains("admonish") {
        return Cow::Borrowed(src);
    }
    let mut out = String::with_capacity(src.len() + 256);
    // The open fence: its indent, character and length, and whether it is an admonition.
    let mut open: Option<(usize, u8, usize, bool)> = None;
    for line in src.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start_matches(' ');
        let indent = body.len() - trimmed.len();
        let fence = fence(trimmed).filter(|_| indent < 4 || open.is_some());
        match (open, fence) {
            (None, Some((c, n, info))) => {
                let kind = admonish(info);
                open = Some((indent, c, n, kind.is_some()));
                match kind {
                    Some((kind, title)) => out.push_str(&opening(&body[..indent], kind, &title)),
                    None => out.push_str(line),
                }
            }
            (Some((at, c, n, aside)), Some((c2, n2, info)))
                if c == c2 && n2 >= n && info.trim().is_empty() =>
            {
                open = None;
                match aside {
                    true => out.push_str(&format!("\n{}</aside>\n", " ".repeat(at))),
                    false => out.push_str(line),
                }
            }
            _ => out.push_str(line),
        }
    }
    if let Some((at, _, _, true)) = open {
        out.push_str(&format!("\n\n{}</aside>\n", " ".repeat(at)));
    }
    Cow::Owned(out)
}

/// A fence line (already without its indent): its character, length and info string.
fn fence(line: &str) -> Option<(u8, usize, &str)> {
    let c = *line.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = line.bytes().take_while(|&b| b == c).count();
    let info = &line[n..];
    (n >= 3 && !(c == b'`' && info.contains('`'))).then_some((c, n, info))
}

/// An admonish fence's kind (mdbook-admonish's directive, its aliases made one) and title:
/// `admonish`, `admonish tip`, `admonish tip "Title"`, `admonish tip title="Title"`; an empty
/// title is none.
fn admonish(info: &str) -> Option<(&'static str, String)> {
    let rest = info.trim().strip_prefix("admonish")?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t', ','])) {
        return None;
    }
    let rest = rest.trim_start_matches([' ', '\t', ',']);
    let word = rest
        .split([' ', '\t', ','])
        .next()
        .filter(|w| !w.contains(['=', '"']))
        .unwrap_or("");
    let kind = kind_of(word);
    let title = match (rest.find("title=\""), rest.find('"')) {
        (Some(t), _) => quoted(&rest[t + 6..]),
        (None, Some(q)) => quoted(&rest[q..]),
        (None, None) => Some(default_title(kind)),
    };
    Some((kind, title.unwrap_or_default()))
}

/// The text between the quotes `s` opens with, its `\"` unescaped.
fn quoted(s: &str) -> Option<String> {
    let inner = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    Some(out)
}

/// mdbook-admonish's directives with their aliases, by the class written.
fn kind_of(word: &str) -> &'static str {
    match word.to_ascii_lowercase().as_str() {
        "abstract" | "summary" | "tldr" => "abstract",
        "info" | "todo" => "info",
        "tip" | "hint" | "important" => "tip",
        "success" | "check" | "done" => "success",
        "question" | "help" | "faq" => "question",
        "warning" | "caution" | "attention" => "warning",
        "failure" | "fail" | "missing" => "failure",
        "danger" | "error" => "danger",
        "bug" => "bug",
        "example" => "example",
        "quote" | "cite" => "quote",
        _ => "note",
    }
}

/// The title an admonition of `kind` has when it names none: its kind, capitalised.
pub(crate) fn default_title(kind: &str) -> String {
    let mut chars = kind.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The opening of an admonition, indented as its fence was; a blank line ends the raw HTML
/// so that what follows is read as Markdown.
fn opening(indent: &str, kind: &str, title: &str) -> String {
    format!("{indent}{}\n\n", open_aside(kind, title))
}

/// The opening of a GitHub alert (`> [!NOTE]`): an admonition of its kind.
pub(crate) fn alert(kind: pulldown_cmark::BlockQuoteKind) -> String {
    use pulldown_cmark::BlockQuoteKind as K;
    let kind = match kind {
        K::Note => "note",
        K::Tip => "tip",
        K::Important => "important",
        K::Warning => "warning",
        K::Caution => "caution",
    };
    format!("{}\n", open_aside(kind, &default_title(kind)))
}

/// `<aside class="admonition KIND">` and its title paragraph (none when `title` is empty).
pub(crate) fn open_aside(kind: &str, title: &str) -> String {
    let mut s = format!("<aside class=\"admonition {kind}\">");
    if !title.trim().is_empty() {
        s.push_str(&format!(
            "<p class=\"admonition-title\">{}</p>",
            escape_text(title.trim())
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hide(code: &str, info: &str) -> (String, usize) {
        let mut book = HideLines::new();
        book.insert("python".into(), "~".into());
        let rule = hide_rule(info, &book).expect("a rule");
        let (out, n) = hide_lines(code, &rule);
        (out.into_owned(), n)
    }

    #[test]
    fn rust_hidden_lines_go_as_in_mdbook_and_are_counted() {
        let code = "# fn main() {\n    let x = 5;\n#\n    ## not hidden\n#[derive(Debug)]\n    # let y = 6;\n# }\n";
        let (out, n) = hide(code, "rust,ignore");
        assert_eq!(out, "    let x = 5;\n    # not hidden\n#[derive(Debug)]\n");
        assert_eq!(n, "fnmainlety6".len());
    }

    #[test]
    fn other_languages_hide_by_the_book_prefix_or_the_block_own() {
        let (out, n) = hide("~hidden()\nshown():\n    ~hidden()\n", "python");
        assert_eq!((out.as_str(), n), ("shown():\n", 12));
        let (out, _) = hide("!!!x\ny\n", "python hidelines=!!!");
        assert_eq!(out, "y\n");
        assert!(hide_rule("js", &HideLines::new()).is_none());
        assert!(hide_rule("", &HideLines::new()).is_none());
    }

    #[test]
    fn admonish_fences_become_asides_around_markdown() {
        let src = "a\n\n```admonish warning \"Be *careful*\"\nText **here**.\n```\n\n````md\n```admonish\nx\n```\n````\n";
        let out = admonitions(src);
        assert_eq!(
            out,
            "a\n\n<aside class=\"admonition warning\"><p class=\"admonition-title\">Be *careful*</p>\n\nText **here**.\n\n</aside>\n\n````md\n```admonish\nx\n```\n````\n"
        );
        let out = admonitions("```admonish tip title=\"\"\nx\n```\n```admonish\ny\n```\n");
        assert!(
            out.starts_with("<aside class=\"admonition tip\">\n\nx\n"),
            "{out}"
        );
        assert!(
            out.contains("<p class=\"admonition-title\">Note</p>"),
            "{out}"
        );
    }

    fn markdown(src: &str, highlight: bool) -> super::super::Fragment {
        let mut no_images = |_: &str| -> Result<String, String> { Err("no".into()) };
        let opts = super::super::MarkdownOptions {
            highlight,
            ..Default::default()
        };
        let f = super::super::markdown_to_xhtml_with(src, &mut no_images, opts, None, None)
            .expect("converts");
        super::super::test_support::assert_well_formed(&f);
        f
    }

    #[test]
    fn a_chapter_shows_no_hidden_line_and_counts_their_letters() {
        let src = "# T\n\n```rust\n# use std::io;\nfn main() {}\n```\n\n```\n# kept\n```\n";
        for highlight in [false, true] {
            let f = markdown(src, highlight);
            assert!(!f.body.contains("std"), "{}", f.body);
            assert!(f.body.contains("main"), "{}", f.body);
            assert!(f.body.contains("# kept"), "{}", f.body);
            assert_eq!(f.hidden_letters, "usestdio".len());
        }
    }

    #[test]
    fn admonitions_and_github_alerts_are_asides_with_a_title() {
        let src =
            "# T\n\n```admonish tip\nUse *this*.\n```\n\n> [!WARNING]\n> Careful.\n\n> plain\n";
        let f = markdown(src, false);
        assert!(
            f.body
                .contains("<aside class=\"admonition tip\"><p class=\"admonition-title\">Tip</p>"),
            "{}",
            f.body
        );
        assert!(f.body.contains("<em>this</em>"), "{}", f.body);
        assert!(
            f.body.contains(
                "<aside class=\"admonition warning\"><p class=\"admonition-title\">Warning</p>"
            ),
            "{}",
            f.body
        );
        assert!(!f.body.contains("[!WARNING]"), "{}", f.body);
        assert!(f.body.contains("<blockquote>"), "{}", f.body);
    }
}
