//! Syntax highlighting of fenced code blocks that name their language (```` ```rust ````).
//!
//! A hand-written lexer per family of languages ([`lexer`] for programming and data
//! languages, driven by the table in [`langs`]; [`tags`] for HTML and XML) cuts a block into
//! keywords, strings, comments, numbers, functions, types and attributes, written as
//! `<span class="hl-…">` ([`spans`]): the stylesheet colours them for light and dark reading
//! modes ([`crate::package`]), and a reader with its own colours may ignore them. On e-ink
//! readers the colours are greys: what matters is that the classes are right, not the fine
//! scopes a full grammar tells apart.
//!
//! Why not Sublime grammars (syntect with two-face's set, as before): measured on the
//! benchmark's code book (`bench/run.sh`, section 9), they made the clean build about 150
//! times the instructions of the same build without highlighting (loading the grammars and
//! running backtracking regexes line by line); this lexer reads a block once, in linear time,
//! whatever its shape. Languages not in [`langs`] are written plain.
//!
//! A block that is very large or has very long lines is written plain: highlighting is
//! decoration and never costs a build its time.

mod langs;
mod lexer;
mod spans;
mod tags;

use langs::Family;
use spans::Spans;

/// Largest block highlighted, in bytes.
const MAX_BLOCK: usize = 256 * 1024;
/// Longest line highlighted, in bytes: minified code is not worth colouring.
const MAX_LINE: usize = 4096;

/// `code` as XHTML with highlighting spans, or None when the language is unknown or the block
/// is not to be highlighted (see the module docs).
pub fn highlight(code: &str, lang: &str) -> Option<String> {
    if code.len() > MAX_BLOCK || code.lines().any(|l| l.len() > MAX_LINE) {
        return None;
    }
    let (index, lang) = langs::find(lang)?;
    let mut out = Spans::with_capacity(code.len());
    match lang.family {
        Family::Code => lexer::lex(code, lang, langs::words(index), &mut out)?,
        Family::Tags => tags::lex(code, &mut out)?,
    }
    Some(out.finish())
}

/// A placeholder's opening and closing marks, and its first digit: private-use characters,
/// which are neither letters nor digits (the text ledger counts those) and which nothing in
/// the pipeline between the Markdown renderer and [`restore`] changes.
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';
const DIGIT0: u32 = 0xE010;

/// Whether placeholders may be used for a source: not if it holds their marks itself.
pub fn placeholders_safe(src: &str) -> bool {
    !src.contains([OPEN, CLOSE])
}

/// The text that stands for the `n`th highlighted block until [`restore`].
pub fn placeholder(n: usize) -> String {
    let mut out = String::from(OPEN);
    for digit in n.to_string().bytes() {
        out.extend(char::from_u32(DIGIT0 + u32::from(digit - b'0')));
    }
    out.push(CLOSE);
    out
}

/// `body` with each placeholder replaced by its block, in one pass.
pub fn restore(body: &str, blocks: &[String]) -> String {
    let mut out = String::with_capacity(body.len() + blocks.iter().map(String::len).sum::<usize>());
    let mut rest = body;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        rest = &rest[at + OPEN.len_utf8()..];
        let digits = rest.find(|c: char| !(DIGIT0..DIGIT0 + 10).contains(&u32::from(c)));
        let found = digits
            .filter(|&end| end > 0 && rest[end..].starts_with(CLOSE))
            .and_then(|end| {
                let n = rest[..end].chars().try_fold(0usize, |n, c| {
                    n.checked_mul(10)?
                        .checked_add((u32::from(c) - DIGIT0) as usize)
                })?;
                Some((end, blocks.get(n)?))
            });
        match found {
            Some((end, block)) => {
                out.push_str(block);
                rest = &rest[end + CLOSE.len_utf8()..];
            }
            // Not ours (the check before rendering keeps this from happening): left as it was.
            None => out.push(OPEN),
        }
    }
    out.push_str(rest);
    out
}

/// A highlighted block with `fix` run on each run of text between its tags (entities
/// included: they are ASCII, which the conversion leaves alone); None when nothing changes.
pub fn fix_text(block: &str, fix: &mut dyn FnMut(&str) -> Option<String>) -> Option<String> {
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while at < block.len() {
        let end = block[at..].find('<').map_or(block.len(), |i| at + i);
        if end > at
            && let Some(fixed) = fix(&block[at..end])
        {
            let o = out.get_or_insert_with(|| String::with_capacity(block.len()));
            o.push_str(&block[copied..at]);
            o.push_str(&fixed);
            copied = end;
        }
        at = block[end..].find('>').map_or(block.len(), |i| end + i + 1);
    }
    out.map(|mut o| {
        o.push_str(&block[copied..]);
        o
    })
}

#[cfg(test)]
mod tests {
    use super::spans::Class;
    use super::*;
    use crate::book::CODE_CLASSES;
    use crate::xml::escape_text;

    /// The text of highlighted XHTML, the spans taken out; panics unless every tag is a
    /// highlighting span's opening or closing, unnested.
    fn text_of(out: &str) -> String {
        let mut text = String::new();
        let mut open = false;
        let mut rest = out;
        while let Some(at) = rest.find('<') {
            text.push_str(&rest[..at]);
            let end = rest[at..].find('>').expect("a tag ends") + at;
            let tag = &rest[at..=end];
            if tag == "</span>" {
                assert!(open, "a closing span without an opening one: {out}");
                open = false;
            } else {
                assert!(!open, "nested spans: {out}");
                let class = tag
                    .strip_prefix("<span class=\"")
                    .and_then(|t| t.strip_suffix("\">"))
                    .unwrap_or_else(|| panic!("not a span: {tag}"));
                assert!(Class::ALL.iter().any(|c| c.name() == class), "{class}");
                open = true;
            }
            rest = &rest[end + 1..];
        }
        assert!(!open, "an unclosed span: {out}");
        text + rest
    }

    /// Highlights `code`, checks that its text is kept, and returns the XHTML.
    fn lit(code: &str, lang: &str) -> String {
        let out = highlight(code, lang).unwrap_or_else(|| panic!("{lang} is known"));
        assert_eq!(text_of(&out), escape_text(code), "{lang}");
        out
    }

    fn span(class: &str, text: &str) -> String {
        format!("<span class=\"{class}\">{text}</span>")
    }

    /// A language, a block of it, and spans the block must hold (class, text).
    type Case = (
        &'static str,
        &'static str,
        &'static [(&'static str, &'static str)],
    );

    #[test]
    fn keywords_strings_comments_and_numbers_get_their_classes() {
        let cases: &[Case] = &[
            (
                "rust",
                "// hi\n#[derive(Debug)]\nfn main() {\n    let x = \"s\" + 1;\n    println!(\"{x}\", 'c', r#\"a\"b\"#);\n}\n",
                &[
                    ("hl-c", "// hi"),
                    ("hl-a", "#[derive(Debug)]"),
                    ("hl-k", "fn"),
                    ("hl-f", "main"),
                    ("hl-s", "\"s\""),
                    ("hl-n", "1"),
                    ("hl-f", "println!"),
                    ("hl-s", "'c'"),
                    ("hl-s", "r#\"a\"b\"#"),
                ],
            ),
            (
                "py",
                "@cache\ndef f(x):\n    \"\"\"Doc\n    string\"\"\"\n    return x + 0x1F  # done\n",
                &[
                    ("hl-a", "@cache"),
                    ("hl-k", "def"),
                    ("hl-f", "f"),
                    ("hl-s", "\"\"\"Doc\n    string\"\"\""),
                    ("hl-k", "return"),
                    ("hl-n", "0x1F"),
                    ("hl-c", "# done"),
                ],
            ),
            (
                "c",
                "#include <stdio.h>\n/* a\n b */\nint main(void) { return 2.5e-3; }\n",
                &[
                    ("hl-k", "#include"),
                    ("hl-c", "/* a\n b */"),
                    ("hl-t", "int"),
                    ("hl-f", "main"),
                    ("hl-n", "2.5e-3"),
                ],
            ),
            (
                "JavaScript",
                "const s = `a\nb`; // c\nclass A extends B {}\n",
                &[
                    ("hl-k", "const"),
                    ("hl-s", "`a\nb`"),
                    ("hl-c", "// c"),
                    ("hl-t", "A"),
                ],
            ),
            (
                "go",
                "func Run(n int) error { return nil }\n",
                &[
                    ("hl-k", "func"),
                    ("hl-f", "Run"),
                    ("hl-t", "int"),
                    ("hl-n", "nil"),
                ],
            ),
            (
                "bash",
                "# count\nn=$(wc -l < \"$f\") # don't\necho ${n} done\n",
                &[
                    ("hl-c", "# count"),
                    ("hl-s", "\"$f\""),
                    ("hl-c", "# don't"),
                    ("hl-f", "echo"),
                    ("hl-a", "${n}"),
                ],
            ),
            (
                "toml",
                "[package]\nname = \"x\" # n\nedition = 2021\n",
                &[
                    ("hl-t", "[package]"),
                    ("hl-a", "name"),
                    ("hl-s", "\"x\""),
                    ("hl-c", "# n"),
                    ("hl-n", "2021"),
                ],
            ),
            (
                "yaml",
                "key: It's a value\nlist:\n  - true\n  - 'q'\nurl: http://x\n",
                &[("hl-a", "key"), ("hl-n", "true"), ("hl-s", "'q'")],
            ),
            (
                "json",
                "{\"a\": [1, true, null, \"s\"]}",
                &[
                    ("hl-a", "\"a\""),
                    ("hl-n", "1"),
                    ("hl-n", "true"),
                    ("hl-s", "\"s\""),
                ],
            ),
            (
                "sql",
                "SELECT name FROM users -- all\nWHERE id = 'x''y';\n",
                &[
                    ("hl-k", "SELECT"),
                    ("hl-k", "FROM"),
                    ("hl-c", "-- all"),
                    ("hl-s", "'x''y'"),
                ],
            ),
            (
                "html",
                "<!-- c -->\n<p class=\"x\" hidden>a &amp; b</p>\n",
                &[
                    ("hl-c", "<!-- c -->"),
                    ("hl-t", "p"),
                    ("hl-a", "class"),
                    ("hl-s", "\"x\""),
                    ("hl-a", "hidden"),
                    ("hl-n", "&amp;"),
                ],
            ),
            (
                "ruby",
                "class Foo < Bar\n  def go = @x.map(&:to_s) # c\nend\n",
                &[
                    ("hl-k", "class"),
                    ("hl-t", "Foo"),
                    ("hl-f", "go"),
                    ("hl-a", "@x"),
                    ("hl-n", ":to_s"),
                    ("hl-c", "# c"),
                ],
            ),
            (
                "lua",
                "--[[ block ]]\nlocal function f() return nil end -- c\n",
                &[
                    ("hl-c", "--[[ block ]]"),
                    ("hl-k", "local function"),
                    ("hl-f", "f"),
                    ("hl-n", "nil"),
                    ("hl-c", "-- c"),
                ],
            ),
            (
                "haskell",
                "{- a {- nested -} b -}\ndata T = T { x' :: Int } -- c\n",
                &[
                    ("hl-c", "{- a {- nested -} b -}"),
                    ("hl-k", "data"),
                    ("hl-t", "T"),
                    ("hl-t", "Int"),
                    ("hl-c", "-- c"),
                ],
            ),
            (
                "java",
                "@Override\npublic String toString() { return \"s\"; }\n",
                &[
                    ("hl-a", "@Override"),
                    ("hl-k", "public"),
                    ("hl-t", "String"),
                    ("hl-f", "toString"),
                    ("hl-s", "\"s\""),
                ],
            ),
        ];
        for (lang, code, expected) in cases {
            let out = lit(code, lang);
            for (class, text) in *expected {
                let want = span(class, &escape_text(text));
                assert!(out.contains(&want), "{lang}: no {want} in {out}");
            }
        }
    }

    #[test]
    fn words_inside_strings_and_comments_are_not_keywords() {
        let out = lit("let s = \"fn if\"; // let\n", "rust");
        assert!(!out.contains(&span("hl-k", "fn")), "{out}");
        assert_eq!(out.matches(&span("hl-k", "let")).count(), 1, "{out}");
    }

    /// Every language keeps every byte of awkward input (unclosed strings and comments, lone
    /// quotes and sigils, characters of every width, marks cut in half) and writes only
    /// well-formed spans.
    #[test]
    fn every_language_keeps_the_text_of_any_input() {
        let pieces = [
            "\"", "'", "`", "\\", "/*", "*/", "{-", "-}", "--[[", "]]", "<!--", "-->", "<", ">",
            "&", "&amp;", "#", "#[", "$", "${", "@", ":", "=", "r#\"", "\"#", "'''", "\"\"\"",
            "\n", " ", "\t", "é", "字", "😀", "x", "fn", "0x", "1.5e", "[", "]", "</", "/>",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..60 {
            let mut code = String::new();
            for _ in 0..200 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                code.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            for lang in langs::LANGS.iter() {
                lit(&code, lang.names[0]);
            }
        }
    }

    /// Issue 28: a backtracking grammar could take seconds on one hostile block; the lexers
    /// read any block once. The limit is a hang guard, far above what a linear pass takes.
    #[test]
    fn hostile_blocks_of_the_largest_size_are_read_in_one_pass() {
        let patterns = [
            "r#######\"",
            "\"\\",
            "/*/*",
            "{-{-",
            "'''\"\"\"",
            "<a b=",
            "<!--",
            "${{{",
            "#[[[",
            "[[[",
            "'\\'",
            "0.0.0e",
            "@@@",
            "&&&&",
            "--[[",
        ];
        let started = std::time::Instant::now();
        let line: String = patterns.iter().map(|p| p.repeat(260 / p.len())).collect();
        let line = line + "\n";
        let code = line.repeat(MAX_BLOCK / line.len());
        for lang in langs::LANGS.iter() {
            lit(&code, lang.names[0]);
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(300));
    }

    #[test]
    fn every_class_written_has_colours_in_the_stylesheet() {
        for class in Class::ALL {
            assert!(
                CODE_CLASSES.iter().any(|(c, ..)| *c == class.name()),
                "{class:?}"
            );
        }
    }

    #[test]
    fn every_fence_word_names_one_language() {
        let mut seen = std::collections::HashSet::new();
        for lang in langs::LANGS.iter() {
            for name in lang.names {
                assert!(seen.insert(*name), "{name} twice");
                assert_eq!(*name, name.to_ascii_lowercase());
            }
        }
    }

    #[test]
    fn unknown_languages_and_huge_blocks_are_left_plain() {
        assert_eq!(highlight("x", "no-such-language"), None);
        assert_eq!(highlight("x", "text"), None);
        assert_eq!(highlight(&"a".repeat(MAX_LINE + 1), "rust"), None);
        assert_eq!(highlight(&"a\n".repeat(MAX_BLOCK), "rust"), None);
    }

    #[test]
    fn placeholders_are_replaced_by_their_blocks() {
        let blocks = vec!["<b>zero</b>".to_string(); 12];
        let body = format!("a{}b{}c", placeholder(0), placeholder(11));
        assert_eq!(restore(&body, &blocks), "a<b>zero</b>b<b>zero</b>c");
        assert!(!placeholders_safe("x\u{E000}"));
        assert_eq!(restore("x\u{E000}y", &blocks), "x\u{E000}y");
    }
}
