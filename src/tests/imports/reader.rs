//! Imports run one way: no module imports a module that imports it back, between files or
//! between the top-level modules (`project`, `convert`, `package`…). The source is read as
//! Rust tokens (comments, strings and character literals passed over), and every path form
//! Rust allows counts: `use` trees with nested groups (`use crate::{a::{b, c}, d}`,
//! `use super::{x, y}`, `use {crate::a, super::b}`, `self`, `as`, globs), `super::super::`,
//! `self::`, `$crate::` and paths in code (`crate::a::f()`, `super::b::T`), and a name a `use`
//! binds followed by `::` (`use crate::convert; convert::text::f()` reaches `convert::text`).
//! Items under `#[cfg(test)]` (a `mod tests {…}`, a test-only `mod helpers;` file, a test
//! function) are left out, so that `cargo test` holds the line without Python.

use std::collections::BTreeMap;

use super::Module;

/// One token of Rust source: a word (identifier, keyword, `$crate`), a `::`, or any other
/// single character. Literals, comments and white space make no token.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Colons,
    Punct(char),
}

/// The tokens of `src`.
fn lex(src: &str) -> Vec<Tok> {
    let s: Vec<char> = src.chars().collect();
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            i = block_comment_end(&s, i);
        } else if c == '"' {
            i = string_end(&s, i + 1);
        } else if c == '\'' {
            i = quote_end(&s, i);
        } else if c.is_alphabetic() || c == '_' || (c == '$' && is_word(at(i + 1))) {
            let start = i;
            i += 1;
            while i < s.len() && is_word(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            match (word.as_str(), at(i)) {
                ("r" | "br" | "cr", '"' | '#') if raw_string(&s, i).is_some() => {
                    i = raw_string(&s, i).unwrap_or(i);
                }
                ("b" | "c", '"') => i = string_end(&s, i + 1),
                ("b", '\'') => i = quote_end(&s, i),
                ("r", '#') => i += 1, // a raw identifier: `r#type` reads as `type` next
                _ => out.push(Tok::Word(word)),
            }
        } else if c.is_ascii_digit() {
            while i < s.len() && is_word(s[i]) {
                i += 1;
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push(Tok::Colons);
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(Tok::Punct(c));
            }
            i += 1;
        }
    }
    out
}

/// Whether `c` continues an identifier.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The index after a (nested) block comment opening at `i`.
fn block_comment_end(s: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < s.len() {
        if s[i] == '/' && s.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// The index after the closing quote of a string whose text starts at `i`.
fn string_end(s: &[char], mut i: usize) -> usize {
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The index after a character literal at `i` (`'a'`, `'\n'`, `'\u{1F600}'`), or after the
/// quote of a lifetime (`'a`), whose name then reads as a word.
fn quote_end(s: &[char], i: usize) -> usize {
    match (s.get(i + 1), s.get(i + 2)) {
        (Some('\\'), _) => {
            let mut j = i + 3;
            while j < s.len() && s[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        (Some(_), Some('\'')) => i + 3,
        _ => i + 1,
    }
}

/// The index after a raw string whose hashes or quote start at `i` (`r#"…"#`), if one does.
fn raw_string(s: &[char], i: usize) -> Option<usize> {
    let hashes = s[i..].iter().take_while(|&&c| c == '#').count();
    if s.get(i + hashes) != Some(&'"') {
        return None;
    }
    let mut j = i + hashes + 1;
    while j < s.len() {
        if s[j] == '"'
            && s[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(j)
}

/// A path as written, with the module it is written in: `(["convert", "text"],
/// ["super", "split", "Piece"])`.
type Written = (Module, Vec<String>);

/// What one file says about imports.
#[derive(Debug, Default)]
pub(super) struct Imports {
    /// Every path that starts at `crate`, `super`, `self`, `$crate` or a name a `use` binds.
    paths: Vec<Written>,
    /// The names `use` declarations bind, with the path each stands for.
    bindings: BTreeMap<String, Written>,
    /// The child modules declared under `#[cfg(test)]` (`mod helpers;`), by their path.
    pub(super) test_only: Vec<Module>,
}

/// Reads tokens into [`Imports`], tracking the inline module (`mod a { … }`) each is in.
struct Reader<'a> {
    toks: &'a [Tok],
    at: usize,
    /// The inline modules open, each with the brace depth its body closes at.
    scopes: Vec<(Module, usize)>,
    depth: usize,
    out: Imports,
}

impl Reader<'_> {
    fn peek(&self, ahead: usize) -> Option<&Tok> {
        self.toks.get(self.at + ahead)
    }

    fn word(&self, ahead: usize) -> Option<&str> {
        match self.peek(ahead) {
            Some(Tok::Word(w)) => Some(w),
            _ => None,
        }
    }

    fn is(&self, ahead: usize, c: char) -> bool {
        self.peek(ahead) == Some(&Tok::Punct(c))
    }

    fn scope(&self) -> Module {
        self.scopes.last().map(|s| s.0.clone()).unwrap_or_default()
    }

    /// Reads the whole file.
    fn run(&mut self) {
        while self.at < self.toks.len() {
            if self.is(0, '#') {
                self.attribute();
            } else if self.word(0) == Some("use") {
                self.at += 1;
                self.use_tree(Vec::new());
            } else if self.word(0) == Some("mod") && self.word(1).is_some() && self.is(2, '{') {
                let mut inner = self.scope();
                inner.push(self.word(1).unwrap_or_default().to_string());
                self.depth += 1;
                self.scopes.push((inner, self.depth));
                self.at += 3;
            } else if self.is(0, '{') {
                self.depth += 1;
                self.at += 1;
            } else if self.is(0, '}') {
                if self.scopes.last().is_some_and(|s| s.1 == self.depth) {
                    self.scopes.pop();
                }
                self.depth = self.depth.saturating_sub(1);
                self.at += 1;
            } else if self.word(0).is_some()
                && self.peek(1) == Some(&Tok::Colons)
                && (self.at == 0 || self.toks[self.at - 1] != Tok::Colons)
            {
                self.code_path();
            } else {
                self.at += 1;
            }
        }
    }

    /// A path in code: `super::b::T`, `crate::a::f`, `name::x` (up to `::<`, `::{` or `::*`).
    fn code_path(&mut self) {
        let mut segments = Vec::new();
        while let Some(w) = self.word(0) {
            segments.push(w.to_string());
            self.at += 1;
            if self.peek(0) == Some(&Tok::Colons) && self.word(1).is_some() {
                self.at += 1;
            } else {
                break;
            }
        }
        self.out.paths.push((self.scope(), segments));
    }

    /// One `use` tree after `prefix`, up to its `;`, `,` or `}`; each leaf is a path, and binds a
    /// name unless it is a glob or `as _`.
    fn use_tree(&mut self, mut prefix: Vec<String>) {
        if self.peek(0) == Some(&Tok::Colons) {
            prefix.push("::".to_string());
            self.at += 1;
        }
        loop {
            match self.peek(0).cloned() {
                Some(Tok::Word(w)) if w != "as" => {
                    prefix.push(w);
                    self.at += 1;
                }
                Some(Tok::Colons) => self.at += 1,
                Some(Tok::Punct('{')) => {
                    self.at += 1;
                    while self.peek(0).is_some() && !self.is(0, '}') {
                        let before = self.at;
                        self.use_tree(prefix.clone());
                        if self.is(0, ',') || self.at == before {
                            self.at += 1;
                        }
                    }
                    self.at += 1;
                    return;
                }
                Some(Tok::Punct('*')) => {
                    self.at += 1;
                    self.out.paths.push((self.scope(), prefix));
                    return;
                }
                _ => break,
            }
        }
        let mut name = prefix.last().cloned();
        if prefix.last().is_some_and(|l| l == "self") {
            prefix.pop();
            name = prefix.last().cloned();
        }
        if self.word(0) == Some("as") {
            name = self.word(1).map(str::to_string);
            self.at += 2;
        }
        if let Some(name) = name.filter(|n| n != "_" && n != "super" && n != "crate") {
            self.out
                .bindings
                .insert(name, (self.scope(), prefix.clone()));
        }
        self.out.paths.push((self.scope(), prefix));
    }

    /// An attribute `#[…]` or `#![…]`: under `#[cfg(test)]` the item it marks is passed over,
    /// else its paths are read.
    fn attribute(&mut self) {
        let inner = self.is(1, '!');
        self.at += if inner { 2 } else { 1 };
        let start = self.at;
        self.skip_group();
        let body = &self.toks[start..self.at];
        let test_only = matches!(body, [Tok::Punct('['), Tok::Word(cfg), Tok::Punct('('), rest @ ..]
            if cfg == "cfg" && (rest.first() == Some(&Tok::Word("test".into()))
                || rest.starts_with(&[Tok::Word("all".into()), Tok::Punct('('), Tok::Word("test".into())])));
        if test_only && inner && self.scopes.len() == 1 {
            self.at = self.toks.len();
        } else if test_only {
            self.skip_item();
        } else {
            // Paths inside an attribute are code too (`#[error("{}", crate::escape::path(p))]`).
            self.at = start + 1;
        }
    }

    /// Passes over one bracketed group starting at the current token.
    fn skip_group(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek(0).cloned() {
            self.at += 1;
            match t {
                Tok::Punct('(' | '[' | '{') => depth += 1,
                Tok::Punct(')' | ']' | '}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ if depth == 0 => return,
                _ => {}
            }
        }
    }

    /// Passes over the item after a `#[cfg(test)]` (its further attributes too); a `mod name;`
    /// there is a test-only file.
    fn skip_item(&mut self) {
        while self.is(0, '#') {
            self.at += if self.is(1, '!') { 2 } else { 1 };
            self.skip_group();
        }
        const ITEMS: [&str; 14] = [
            "fn",
            "mod",
            "impl",
            "struct",
            "enum",
            "use",
            "const",
            "static",
            "trait",
            "type",
            "extern",
            "unsafe",
            "async",
            "macro_rules",
        ];
        let mut first = self.at;
        if self.word(0) == Some("pub") {
            first += if self.is(1, '(') { 4 } else { 1 };
        }
        let item =
            matches!(self.toks.get(first), Some(Tok::Word(w)) if ITEMS.contains(&w.as_str()));
        if let [Tok::Word(m), Tok::Word(name), Tok::Punct(';'), ..] =
            &self.toks[first.min(self.toks.len())..]
            && m == "mod"
        {
            let mut child = self.scope();
            child.push(name.clone());
            self.out.test_only.push(child);
        }
        while let Some(t) = self.peek(0).cloned() {
            match t {
                Tok::Punct(';') => {
                    self.at += 1;
                    return;
                }
                Tok::Punct(',') if !item => {
                    self.at += 1;
                    return;
                }
                Tok::Punct(')' | ']' | '}') => return,
                Tok::Punct('{') => {
                    self.skip_group();
                    if item {
                        return;
                    }
                }
                Tok::Punct('(' | '[') => self.skip_group(),
                _ => self.at += 1,
            }
        }
    }
}

/// What the file that is module `module` says about imports.
pub(super) fn read(module: &Module, src: &str) -> Imports {
    let toks = lex(src);
    let mut reader = Reader {
        toks: &toks,
        at: 0,
        scopes: vec![(module.clone(), 0)],
        depth: 0,
        out: Imports::default(),
    };
    reader.run();
    reader.out
}

impl Imports {
    /// Every path written, from the crate's root (`["convert", "text", "Block"]`); paths into
    /// other crates are left out.
    pub(super) fn resolved(&self) -> Vec<Module> {
        (self.paths.iter())
            .filter_map(|w| self.resolve(w, 8))
            .collect()
    }

    fn resolve(&self, (scope, segments): &Written, fuel: u8) -> Option<Module> {
        let (first, rest) = segments.split_first()?;
        let mut base = match first.as_str() {
            "crate" | "$crate" => Vec::new(),
            "self" => scope.clone(),
            "super" => scope[..scope.len().checked_sub(1)?].to_vec(),
            _ => {
                let bound = self.bindings.get(first).filter(|b| b.1 != *segments)?;
                self.resolve(bound, fuel.checked_sub(1)?)?
            }
        };
        let mut rest = rest.iter().peekable();
        while first == "super" && rest.peek().is_some_and(|s| *s == "super") {
            base.pop()?;
            rest.next();
        }
        base.extend(rest.cloned());
        Some(base)
    }
}

#[cfg(test)]
mod tests {
    use super::read;

    /// The paths `src`, the file that is module `module` (`"p::q"`), imports, as `a::b`.
    fn paths(module: &str, src: &str) -> Vec<String> {
        let module: Vec<String> = module.split("::").map(str::to_string).collect();
        let mut out: Vec<String> = (read(&module, src).resolved().iter())
            .map(|p| p.join("::"))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn crate_paths_with_nested_groups_self_and_renames() {
        assert_eq!(paths("p", "use crate::a::b;"), ["a::b"]);
        assert_eq!(
            paths("p", "pub(crate) use crate::{a::b, c};"),
            ["a::b", "c"]
        );
        assert_eq!(
            paths("p", "use crate::a::{b::{c, d::{e}}, f as g, self, h::*};"),
            ["a", "a::b::c", "a::b::d::e", "a::f", "a::h"]
        );
        assert_eq!(paths("p", "use crate::{a::{b}, c as _};"), ["a::b", "c"]);
    }

    /// `modcycles.py` reads neither `super::{…}` groups nor `super::super::`.
    #[test]
    fn super_groups_super_super_and_self() {
        assert_eq!(paths("p::q", "use super::{x, y::z};"), ["p::x", "p::y::z"]);
        assert_eq!(paths("p::q::r", "use super::super::z;"), ["p::z"]);
        assert_eq!(
            paths("p::q::r", "use super::super::{s, t};"),
            ["p::s", "p::t"]
        );
        assert_eq!(paths("p", "use self::inner::k;"), ["p::inner::k"]);
        assert_eq!(
            paths("p::q", "use {crate::a, super::b, ::std::fs};"),
            ["a", "p::b"]
        );
        assert_eq!(
            paths("p", "use super::x;"),
            ["x"],
            "super of a top-level module"
        );
    }

    /// Paths in code, and names a `use` binds (which `modcycles.py` does not follow).
    #[test]
    fn paths_in_code_and_through_bound_names() {
        let code = "fn f() { crate::a::f(); super::b::T::new(); super::super::c::g(); }";
        assert_eq!(
            paths("p::q::r", code),
            ["a::f", "p::c::g", "p::q::b::T::new"]
        );
        assert_eq!(
            paths("p", "macro_rules! m { () => { $crate::m::x!() } }"),
            ["m::x"]
        );
        let bound = "use crate::convert;\nfn f() { convert::text::lines(); }";
        assert_eq!(paths("p", bound), ["convert", "convert::text::lines"]);
        let renamed = "use super::x as y;\nfn f() -> y::z::W { todo!() }";
        assert_eq!(paths("p::q", renamed), ["p::x", "p::x::z::W"]);
        let external =
            "use std::fs;\nuse regex::Regex;\nfn f() { fs::read(\"a\"); Regex::new(\"\"); }";
        assert_eq!(paths("p", external), Vec::<String>::new());
    }

    /// Comments, strings and characters hold no paths; `modcycles.py` reads a path inside a
    /// string or a `/* */` comment as an import.
    #[test]
    fn comments_strings_and_characters_are_not_code() {
        let src = r####"
            // use crate::line;
            /// crate::doc
            /* crate::block /* nested crate::inner */ crate::after */
            const S: &str = "crate::string \" crate::escaped";
            const R: &str = r#"crate::raw " crate::raw2"#;
            const B: &[u8] = b"crate::bytes";
            const C: char = '"';
            const D: u8 = b'\'';
            fn f<'a>(x: &'a str, r#type: u8) -> crate::ok::T { let _ = '{'; todo!() }
        "####;
        assert_eq!(paths("p", src), ["ok::T"]);
    }

    /// Test-only items are left out, whatever their form; `modcycles.py` leaves out only what
    /// follows a `#[cfg(test)]\nmod tests {`.
    #[test]
    fn test_only_items_are_left_out() {
        let src = "
            #[cfg(test)]
            use crate::u;
            #[cfg(test)]
            #[allow(unused)]
            pub(crate) fn helper() { crate::v::w(); }
            #[cfg(all(test, unix))]
            use crate::x;
            #[cfg(any(test, unix))]
            use crate::kept;
            struct S { #[cfg(test)] field: crate::y::Y, other: crate::z::Z }
            #[cfg(test)]
            mod helpers;
            #[cfg(test)]
            mod tests { use crate::t; }
            fn after() { crate::later::f(); }
        ";
        assert_eq!(paths("p", src), ["kept", "later::f", "z::Z"]);
        let read = read(&vec!["p".to_string()], src);
        assert_eq!(
            read.test_only,
            [vec!["p".to_string(), "helpers".to_string()]]
        );
        assert_eq!(
            paths("p", "#![cfg(test)]\nuse crate::a;"),
            Vec::<String>::new()
        );
        let whole_file = "#![cfg(test)]\nuse crate::a;\nfn f() { crate::b::g(); }";
        assert_eq!(paths("p", whole_file), Vec::<String>::new());
        let attribute = "#[derive(Debug)]\n#[error(\"{}\", crate::escape::path(p))]\nstruct E;";
        assert_eq!(
            paths("p", attribute),
            ["escape::path"],
            "modcycles.py reads it too"
        );
    }

    /// `super` inside an inline `mod a { … }` is the file's own module.
    #[test]
    fn inline_modules_shift_super_and_self() {
        let src = "mod inner { use super::sibling; mod deeper { use super::super::x::y; } }\nuse self::inner::z;";
        assert_eq!(
            paths("p::q", src),
            ["p::q::inner::z", "p::q::sibling", "p::q::x::y"]
        );
    }
}
