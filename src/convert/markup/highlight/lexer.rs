//! The lexer for programming and data languages: one pass over a block, driven by a
//! [`Lang`]'s table, that cuts it into comments, strings, numbers, words and punctuation.
//!
//! Every token is consumed as it is scanned and every look-ahead is bounded (a closing mark
//! is searched for once, from where the token starts, and what was searched is the token),
//! so a block of any shape is read in time linear in its length: a hostile block cannot make
//! it crawl as a backtracking grammar can. Tokens end only after an ASCII byte or at the end
//! of the block, so they never split a character.

use super::langs::{Lang, Words};
use super::spans::{Class, Spans};

/// Longest run of `#` in a Rust raw string's delimiter (Rust's own limit).
const MAX_RAW_HASHES: usize = 255;

/// Cuts `code` into tokens of `lang` and hands them to `out`; None if a token would not end
/// on a character boundary (not expected: the caller then writes the block plain).
pub(super) fn lex(code: &str, lang: &Lang, words: &Words, out: &mut Spans) -> Option<()> {
    let mut lexer = Lexer {
        b: code.as_bytes(),
        code,
        lang,
        words,
        i: 0,
        line_start: true,
        pending: None,
    };
    while lexer.i < lexer.b.len() {
        let start = lexer.i;
        let class = lexer.token();
        if lexer.i <= start {
            return None;
        }
        out.push(code.get(start..lexer.i)?, class);
    }
    Some(())
}

struct Lexer<'a> {
    b: &'a [u8],
    code: &'a str,
    lang: &'a Lang,
    words: &'a Words,
    /// Where the next token starts.
    i: usize,
    /// Only white space since the last line break.
    line_start: bool,
    /// The class of the next word, set by a keyword such as `fn` (its name follows).
    pending: Option<Class>,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn word_byte(&self, c: u8) -> bool {
        c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 || self.lang.word_extra.contains(&c)
    }

    fn word_start(c: u8) -> bool {
        c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
    }

    /// Whether the byte before `i` ends no word: a comment or quote may start there in a
    /// language where they start only words (`#` in shell, `'` in YAML).
    fn after_break(&self, i: usize) -> bool {
        i == 0 || is_space(self.b[i - 1]) || b"([{,;=|&!".contains(&self.b[i - 1])
    }

    /// The next token's class; moves past it.
    fn token(&mut self) -> Option<Class> {
        let c = self.b[self.i];
        if is_space(c) {
            let start = self.i;
            self.skip_while(is_space);
            if self.b[start..self.i].contains(&b'\n') {
                self.line_start = true;
            }
            return None;
        }
        let pending = self.pending.take();
        let class = self.token_at(c, pending);
        self.line_start = false;
        class
    }

    fn token_at(&mut self, c: u8, pending: Option<Class>) -> Option<Class> {
        let lang = self.lang;
        if self.comment() {
            return Some(Class::Comment);
        }
        if let Some(class) = self.hash_line(c) {
            return Some(class);
        }
        if lang.quotes.contains(&c) && (!lang.word_start_only || self.after_break(self.i)) {
            self.string(self.i, c, lang.raw_quotes.contains(&c));
            return Some(self.key_or(Class::String));
        }
        if c == b'\'' && lang.char_literals {
            return self.apostrophe();
        }
        if c.is_ascii_digit() || (c == b'.' && self.at(self.i + 1).is_ascii_digit()) {
            self.number();
            return Some(Class::Number);
        }
        if Self::word_start(c) {
            return self.word(pending);
        }
        if lang.sigils.contains(&c) && self.sigil(c) {
            return Some(Class::Attribute);
        }
        if c == b':' && lang.symbols && self.symbol() {
            return Some(Class::Number);
        }
        // Punctuation: one ASCII byte (every byte from 0x80 starts a word).
        self.i += 1;
        None
    }

    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) {
        while self.i < self.b.len() && keep(self.b[self.i]) {
            self.i += 1;
        }
    }

    /// The first `mark` at or after `from`, as the index just past it.
    fn past(&self, from: usize, mark: &[u8]) -> Option<usize> {
        find(self.b, from, mark).map(|at| at + mark.len())
    }

    /// A comment at the token's start: moves past it and says so.
    fn comment(&mut self) -> bool {
        let (lang, rest) = (self.lang, &self.b[self.i..]);
        if lang.word_start_only && !self.after_break(self.i) {
            return false;
        }
        if let Some((open, close)) = lang.block_comment
            && rest.starts_with(open.as_bytes())
        {
            self.i = if lang.nested_comments {
                self.nested_end(open.as_bytes(), close.as_bytes())
            } else {
                self.past(self.i + open.len(), close.as_bytes())
                    .unwrap_or(self.b.len())
            };
            return true;
        }
        if lang
            .line_comments
            .iter()
            .any(|mark| rest.starts_with(mark.as_bytes()))
        {
            self.skip_while(|c| c != b'\n');
            return true;
        }
        false
    }

    /// The end of a comment that nests (`/* /* */ */`): a count of the marks, in one pass.
    fn nested_end(&self, open: &[u8], close: &[u8]) -> usize {
        let (mut depth, mut j) = (1usize, self.i + open.len());
        while j < self.b.len() {
            if self.b[j..].starts_with(close) {
                depth -= 1;
                j += close.len();
                if depth == 0 {
                    return j;
                }
            } else if self.b[j..].starts_with(open) {
                depth += 1;
                j += open.len();
            } else {
                j += 1;
            }
        }
        self.b.len()
    }

    /// What starts with `#` or `[` at the start of a line: a preprocessor line's directive
    /// (`#include`), a Rust attribute (`#[derive(Debug)]`), a TOML or INI `[section]`.
    fn hash_line(&mut self, c: u8) -> Option<Class> {
        let lang = self.lang;
        if c == b'#' && lang.preprocessor && self.line_start {
            self.i += 1;
            self.skip_while(|c| c == b' ' || c == b'\t');
            self.skip_while(|c| c.is_ascii_alphanumeric() || c == b'_');
            return Some(Class::Keyword);
        }
        if c == b'#' && lang.hash_attributes && matches!(self.at(self.i + 1), b'[' | b'!') {
            self.i = self.brackets_end(self.i + 1);
            return Some(Class::Attribute);
        }
        if c == b'[' && lang.sections && self.line_start {
            self.i = self.brackets_end(self.i);
            return Some(Class::Type);
        }
        None
    }

    /// Just past the `]` that closes the first `[` from `from`, or the end of the line.
    fn brackets_end(&self, from: usize) -> usize {
        let mut depth = 0usize;
        let mut j = from;
        while j < self.b.len() && self.b[j] != b'\n' {
            match self.b[j] {
                b'[' => depth += 1,
                b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return j + 1;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        j
    }

    /// A string opened by `quote` at `at` (after any prefix, which is part of the token).
    fn string(&mut self, at: usize, quote: u8, raw: bool) {
        let triple = [quote; 3];
        if self.lang.triple_quotes && self.b[at..].starts_with(&triple) {
            self.i = self.string_end(at + 3, &triple, raw, true);
            return;
        }
        let multiline = self.lang.multiline_quotes.contains(&quote);
        self.i = self.string_end(at + 1, &[quote], raw, multiline);
    }

    /// Just past `close` from `from`, skipping escaped bytes unless `raw`; an unclosed string
    /// ends at the end of its line (or of the block, if strings may run over lines).
    fn string_end(&self, from: usize, close: &[u8], raw: bool, multiline: bool) -> usize {
        let mut j = from;
        while j < self.b.len() {
            let c = self.b[j];
            if self.b[j..].starts_with(close) {
                return j + close.len();
            }
            if c == b'\\' && !raw {
                j += 2;
            } else if c == b'\n' && !multiline {
                return j;
            } else {
                j += 1;
            }
        }
        self.b.len()
    }

    /// Rust's `r#"…"#`: the hashes count, and the string ends at a quote followed by as many.
    fn raw_hashed(&mut self, at: usize) -> bool {
        let hashes = self.b[at..].iter().take_while(|&&c| c == b'#').count();
        if hashes == 0 || hashes > MAX_RAW_HASHES || self.at(at + hashes) != b'"' {
            return false;
        }
        let mut close = vec![b'"'];
        close.resize(hashes + 1, b'#');
        self.i = self.past(at + hashes + 1, &close).unwrap_or(self.b.len());
        true
    }

    /// `'` where it opens a one-character literal (`'a'`, `'\n'`), a lifetime (`'a`) or
    /// nothing.
    fn apostrophe(&mut self) -> Option<Class> {
        let i = self.i;
        let next = self.at(i + 1);
        if next == b'\\' {
            let end = (i + 2..self.b.len().min(i + 14))
                .find(|&j| self.b[j] == b'\'' || self.b[j] == b'\n');
            if let Some(end) = end.filter(|&j| self.b[j] == b'\'') {
                self.i = end + 1;
                return Some(Class::String);
            }
        } else if next != b'\n' && next != 0 {
            let len = utf8_len(next);
            if self.at(i + 1 + len) == b'\'' {
                self.i = i + 2 + len;
                return Some(Class::String);
            }
        }
        if self.lang.lifetimes && Self::word_start(next) {
            self.i += 1;
            self.skip_while(|c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80);
            return Some(Class::Keyword);
        }
        self.i += 1;
        None
    }

    /// A number: digits, a fraction, an exponent and a suffix (`0x1F`, `1_000u32`, `2.5e-3`,
    /// `12px`).
    fn number(&mut self) {
        let digits = |c: u8| c.is_ascii_digit() || c == b'_';
        if self.b[self.i] == b'0'
            && matches!(self.at(self.i + 1), b'x' | b'X' | b'b' | b'B' | b'o' | b'O')
        {
            self.i += 2;
        } else {
            self.skip_while(digits);
            if self.at(self.i) == b'.' && self.at(self.i + 1).is_ascii_digit() {
                self.i += 1;
                self.skip_while(digits);
            }
            let (e, sign, digit) = (self.at(self.i), self.at(self.i + 1), self.at(self.i + 2));
            if matches!(e, b'e' | b'E')
                && (sign.is_ascii_digit()
                    || (matches!(sign, b'+' | b'-') && digit.is_ascii_digit()))
            {
                self.i += 2;
                self.skip_while(digits);
            }
        }
        self.skip_while(|c| c.is_ascii_alphanumeric() || c == b'_');
    }

    /// A word: a string's prefix, a key, a keyword, a name after `fn`, a macro, a call, a type.
    fn word(&mut self, pending: Option<Class>) -> Option<Class> {
        let start = self.i;
        while self.i < self.b.len() && self.word_byte(self.b[self.i]) {
            self.i += 1;
        }
        let word = self.code.get(start..self.i)?;
        let lang = self.lang;
        let next = self.at(self.i);
        if lang.quotes.contains(&next) {
            let raw = lang.raw_prefixes.contains(&word);
            if raw || lang.string_prefixes.contains(&word) {
                self.string(self.i, next, raw || lang.raw_quotes.contains(&next));
                return Some(self.key_or(Class::String));
            }
        }
        if next == b'#' && lang.raw_prefixes.contains(&word) && self.raw_hashed(self.i) {
            return Some(Class::String);
        }
        if lang.keys.is_some() && self.key_follows(false) {
            return Some(Class::Attribute);
        }
        if let Some(found) = self.lookup(word) {
            self.pending = found.then;
            return Some(found.class);
        }
        if pending.is_some() {
            return pending;
        }
        if lang.macros && next == b'!' && self.at(self.i + 1) != b'=' {
            self.i += 1;
            return Some(Class::Function);
        }
        if lang.calls && next == b'(' {
            return Some(Class::Function);
        }
        let first = word.as_bytes()[0];
        if lang.caps_types && first.is_ascii_uppercase() {
            let caps = word.len() > 1 && !word.bytes().any(|c| c.is_ascii_lowercase());
            return Some(if caps { Class::Number } else { Class::Type });
        }
        None
    }

    fn lookup(&self, word: &str) -> Option<super::langs::Word> {
        if !self.lang.ignore_case {
            return self.words.get(word).copied();
        }
        // No keyword is long: a longer word is not looked up (and not copied).
        let mut lower = [0u8; 32];
        let bytes = word.as_bytes();
        let lower = lower.get_mut(..bytes.len())?;
        for (l, c) in lower.iter_mut().zip(bytes) {
            *l = c.to_ascii_lowercase();
        }
        self.words.get(std::str::from_utf8(lower).ok()?).copied()
    }

    /// `class`, or a key's if the token just read is a key (`name =` in TOML, `"name":` in
    /// JSON, `name: ` in YAML).
    fn key_or(&self, class: Class) -> Class {
        if self.lang.keys.is_some() && self.key_follows(true) {
            Class::Attribute
        } else {
            class
        }
    }

    /// Whether the language's key mark follows on this line, after blanks. After a bare word
    /// a `:` must be followed by a blank (`a: 1`, not `http://`).
    fn key_follows(&self, quoted: bool) -> bool {
        let Some(mark) = self.lang.keys else {
            return false;
        };
        let mut j = self.i;
        // Bounded by the blanks before the next token, which the next token then consumes.
        while matches!(self.at(j), b' ' | b'\t') {
            j += 1;
        }
        if self.at(j) != mark {
            return false;
        }
        mark != b':' || quoted || matches!(self.at(j + 1), b' ' | b'\t' | b'\n' | b'\r' | 0)
    }

    /// A variable, decorator or anchor (`$name`, `${name}`, `$1`, `@decorator`, `&anchor`).
    fn sigil(&mut self, c: u8) -> bool {
        let mut j = self.i + 1;
        if self.at(j) == c && c == b'@' {
            j += 1; // Ruby's class variables, `@@x`.
        }
        let next = self.at(j);
        if c == b'$' && next == b'{' {
            let end = (j..self.b.len()).find(|&k| self.b[k] == b'}' || self.b[k] == b'\n');
            self.i = end.map_or(self.b.len(), |k| k + usize::from(self.b[k] == b'}'));
            return true;
        }
        if Self::word_start(next) {
            self.i = j;
            self.skip_while(|c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80);
            return true;
        }
        if c == b'$' && (next.is_ascii_digit() || b"?#@*!$-".contains(&next)) {
            self.i = j + 1;
            return true;
        }
        false
    }

    /// A Ruby symbol, `:name` (not `a::b` nor `a ? b : c`).
    fn symbol(&mut self) -> bool {
        let prev = if self.i == 0 {
            b' '
        } else {
            self.b[self.i - 1]
        };
        if prev == b':' || self.word_byte(prev) || !Self::word_start(self.at(self.i + 1)) {
            return false;
        }
        self.i += 1;
        self.skip_while(|c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80);
        true
    }
}

/// The length of the UTF-8 character whose first byte is `lead`.
fn utf8_len(lead: u8) -> usize {
    match lead {
        0xF0.. => 4,
        0xE0.. => 3,
        0xC0.. => 2,
        _ => 1,
    }
}

/// The first `mark` in `b` at or after `from`, scanning once (marks are a few bytes long).
pub(super) fn find(b: &[u8], from: usize, mark: &[u8]) -> Option<usize> {
    let (&first, _) = mark.split_first()?;
    let mut j = from;
    while j < b.len() {
        let at = j + b[j..].iter().position(|&c| c == first)?;
        if b[at..].starts_with(mark) {
            return Some(at);
        }
        j = at + 1;
    }
    None
}
