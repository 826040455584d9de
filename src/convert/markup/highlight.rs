//! Syntax highlighting of fenced code blocks that name their language (```` ```rust ````).
//!
//! The grammars are Sublime Text's, as `syntect` parses them, from `two-face` (bat's set:
//! syntect's defaults plus TOML, TypeScript, Dockerfile and some 150 more), with the pure-Rust
//! regex engine so that no C library is built. Each token's scope stack is reduced to one of a
//! few classes (`hl-k` keyword, `hl-s` string, `hl-c` comment, `hl-n` number or constant,
//! `hl-f` function or macro, `hl-t` type, `hl-a` attribute), written as `<span class>`:
//! the stylesheet colours them for light and dark reading modes ([`crate::package`]), and a
//! reader with its own colours may ignore them. Fewer, shorter spans than one per scope keep the
//! documents small.
//!
//! A block that is very large, has very long lines, or that the grammar fails on is written
//! plain: highlighting is decoration and never costs a build its time.

use std::sync::LazyLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

#[cfg(test)]
use crate::book::CODE_CLASSES;
use crate::xml::escape_text;

/// Largest block highlighted, in bytes.
const MAX_BLOCK: usize = 256 * 1024;
/// Longest line highlighted, in bytes: minified code makes the grammars crawl.
const MAX_LINE: usize = 4096;

static SYNTAXES: LazyLock<SyntaxSet> = LazyLock::new(two_face::syntax::extra_newlines);

/// The scope prefixes that give each highlighting class (the classes and their colours are the
/// stylesheet's, [`crate::book::CODE_CLASSES`]); the first match wins, the innermost scope first.
const SCOPES: [(&str, &[&str]); 7] = [
    ("hl-c", &["comment"]),
    ("hl-s", &["string", "constant.character", "markup.raw"]),
    (
        "hl-f",
        &[
            "entity.name.function",
            "support.function",
            "variable.function",
            "support.macro",
            "entity.name.macro",
        ],
    ),
    (
        "hl-t",
        &[
            "entity.name.type",
            "entity.name.class",
            "entity.name.struct",
            "entity.name.enum",
            "entity.name.trait",
            "entity.name.tag",
            "support.type",
            "support.class",
            "storage.type.primitive",
        ],
    ),
    (
        "hl-a",
        &["entity.other.attribute-name", "variable.parameter"],
    ),
    (
        "hl-n",
        &["constant.numeric", "constant.language", "constant.other"],
    ),
    (
        "hl-k",
        &["keyword", "storage", "variable.language", "markup.heading"],
    ),
];

/// The grammar for a fence's language word (`rust`, `toml`, `py`…), if there is one worth
/// using (plain text has none).
fn syntax_for(lang: &str) -> Option<&'static SyntaxReference> {
    let lang = lang.trim().to_ascii_lowercase();
    if lang.is_empty() || matches!(lang.as_str(), "text" | "txt" | "plain" | "plaintext") {
        return None;
    }
    let set = &*SYNTAXES;
    set.find_syntax_by_token(&lang)
        .or_else(|| set.find_syntax_by_name(&lang))
}

/// `code` as XHTML with highlighting spans, or None when the language is unknown or the block
/// is not to be highlighted (see the module docs).
pub fn highlight(code: &str, lang: &str) -> Option<String> {
    if code.len() > MAX_BLOCK || code.lines().any(|l| l.len() > MAX_LINE) {
        return None;
    }
    let syntax = syntax_for(lang)?;
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = Spans::default();
    for line in code.split_inclusive('\n') {
        let ops = state.parse_line(line, &SYNTAXES).ok()?;
        let mut at = 0;
        for (pos, op) in ops {
            out.push(line.get(at..pos)?, class_of(&stack));
            at = pos;
            stack.apply(&op).ok()?;
        }
        out.push(line.get(at..)?, class_of(&stack));
    }
    Some(out.finish())
}

/// The class of a token with this scope stack.
fn class_of(stack: &ScopeStack) -> Option<&'static str> {
    stack
        .as_slice()
        .iter()
        .rev()
        .find_map(|scope| class_of_scope(*scope))
}

/// [`SCOPES`] and the scopes that have no class, parsed once: a token's scopes are matched
/// against them by syntect's bitwise prefix test. Naming each scope instead
/// (`Scope::build_string`) takes a lock shared by every thread and allocates, for every scope
/// of every token: that made highlighting most of a code-heavy book's build time.
struct Classes {
    none: Vec<Scope>,
    classes: Vec<(&'static str, Vec<Scope>)>,
}

static CLASSES: LazyLock<Classes> = LazyLock::new(|| {
    // The names are constants that parse; one that did not would match nothing.
    let scopes = |names: &[&str]| names.iter().filter_map(|n| Scope::new(n).ok()).collect();
    Classes {
        none: scopes(&["keyword.operator", "punctuation"]),
        classes: SCOPES
            .iter()
            .map(|(class, prefixes)| (*class, scopes(prefixes)))
            .collect(),
    }
});

fn class_of_scope(scope: Scope) -> Option<&'static str> {
    let classes = &*CLASSES;
    if classes.none.iter().any(|p| p.is_prefix_of(scope)) {
        return None;
    }
    classes.classes.iter().find_map(|(class, prefixes)| {
        prefixes
            .iter()
            .any(|p| p.is_prefix_of(scope))
            .then_some(*class)
    })
}

/// The output, adjacent text of one class joined in one span (with the white space between
/// them; white space between different classes stays outside).
#[derive(Default)]
struct Spans {
    out: String,
    run: String,
    class: Option<&'static str>,
    space: String,
}

impl Spans {
    fn push(&mut self, text: &str, class: Option<&'static str>) {
        if text.is_empty() {
            return;
        }
        if text.trim().is_empty() {
            self.space.push_str(text);
            return;
        }
        if class == self.class {
            self.run.push_str(&self.space);
        } else {
            self.flush();
            self.out.push_str(&escape_text(&self.space));
            self.class = class;
        }
        self.space.clear();
        self.run.push_str(text);
    }

    fn flush(&mut self) {
        if self.run.is_empty() {
            return;
        }
        let text = escape_text(&self.run);
        match self.class {
            Some(class) => {
                self.out.push_str("<span class=\"");
                self.out.push_str(class);
                self.out.push_str("\">");
                self.out.push_str(&text);
                self.out.push_str("</span>");
            }
            None => self.out.push_str(&text),
        }
        self.run.clear();
    }

    fn finish(mut self) -> String {
        self.flush();
        self.out.push_str(&escape_text(&self.space));
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_and_toml_get_classes_and_keep_their_text() {
        let code = "// hi\nfn main() {\n    let x = \"s\" + 1;\n    println!(\"{x}\");\n}\n";
        let out = highlight(code, "rust").expect("rust is known");
        assert!(out.contains("<span class=\"hl-c\">// hi\n</span>"), "{out}");
        assert!(out.contains("<span class=\"hl-k\">fn</span>"), "{out}");
        assert!(
            out.contains("<span class=\"hl-s\">&quot;s&quot;</span>")
                || out.contains("<span class=\"hl-s\">\"s\"</span>"),
            "{out}"
        );
        assert!(out.contains("<span class=\"hl-n\">1</span>"), "{out}");
        let text: String = out
            .split('<')
            .map(|part| part.split_once('>').map_or(part, |(_, t)| t))
            .collect();
        assert_eq!(text.replace("&quot;", "\""), code);
        let toml = highlight("[package]\nname = \"x\"\n", "TOML").expect("toml is known");
        assert!(toml.contains("hl-s"), "{toml}");
    }

    #[test]
    fn every_class_written_has_colours_in_the_stylesheet() {
        for (class, _) in SCOPES {
            assert!(CODE_CLASSES.iter().any(|(c, ..)| *c == class), "{class}");
        }
    }

    #[test]
    fn unknown_languages_and_huge_blocks_are_left_plain() {
        assert_eq!(highlight("x", "no-such-language"), None);
        assert_eq!(highlight("x", "text"), None);
        assert_eq!(highlight(&"a".repeat(MAX_LINE + 1), "rust"), None);
    }
}
