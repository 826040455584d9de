//! The tokens of a stylesheet as EPUBCheck's CSS scanner cuts them (w3c/epubcheck,
//! `org.idpf.epubcheck.util.css.CssScanner`), which differ from CSS Syntax Level 3's: a class
//! name (`.x`) and `!important` are single tokens, comments are tokens (a selector trips on
//! them), an unquoted `url(` runs to the first `)`, and a string with a line break in it runs
//! on to the next `;`, `{` or `}`. A string ends where browsers end it; one that EPUBCheck
//! reads on past its quote (it ends in an escaped backslash) is marked.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Spaces, tabs and line breaks (only `" \t\n\r\f"`).
    Space,
    /// `/* … */`.
    Comment,
    /// `<!--`.
    Cdo,
    /// `-->`.
    Cdc,
    /// A name.
    Ident,
    /// `only`, `not` or `and` followed by a space: a media query word.
    Word,
    /// `name(`.
    Function,
    /// `@name`.
    AtKeyword,
    /// `#name`.
    Hash,
    /// `.name`.
    Class,
    /// A quoted string.
    Str,
    /// `url(…)`.
    Url,
    /// `U+0-7F`.
    Range,
    /// A number, with or without a unit.
    Number,
    /// A number with `%`.
    Percent,
    /// `!important` (spaces allowed after the `!`).
    Important,
    /// `~=`, `|=`, `^=`, `$=` or `*=`.
    Matcher,
    /// Any other single character.
    Char(char),
}

/// A token and where it is in the source.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tok {
    pub kind: Kind,
    /// Byte offsets of the token in the source.
    pub start: usize,
    pub end: usize,
    /// The scanner reports an error for it (a string or comment left open, a string with a
    /// line break, text after the quoted string of a `url(`).
    pub bad: bool,
    /// A string that ends in an escaped backslash, which EPUBCheck's scanner reads on past
    /// the quote: its last `\\` is to be written `\5c `.
    pub respell: bool,
}

impl Tok {
    /// Whether the token is the single character `c`.
    pub fn is(&self, c: char) -> bool {
        self.kind == Kind::Char(c)
    }
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0C')
}

/// A name's first character (escapes aside): ASCII letters, `_`, and everything past ASCII.
fn name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c as u32 >= 0x80
}

pub(super) fn name_char(c: char) -> bool {
    name_start(c) || c.is_ascii_digit() || c == '-'
}

/// The scanner's state: the source and where it is.
struct Scanner<'a> {
    src: &'a str,
    at: usize,
    out: Vec<Tok>,
    /// The string just read ends in an escaped backslash.
    respell: bool,
}

/// Cuts `src` into EPUBCheck's tokens.
pub(super) fn tokens(src: &str) -> Vec<Tok> {
    let mut s = Scanner {
        src,
        at: 0,
        out: Vec::new(),
        respell: false,
    };
    while s.at < src.len() {
        let start = s.at;
        let (kind, bad) = s.token();
        s.out.push(Tok {
            kind,
            start,
            end: s.at,
            bad,
            respell: std::mem::take(&mut s.respell),
        });
    }
    s.out
}

impl Scanner<'_> {
    /// The character `n` characters ahead.
    fn peek(&self, n: usize) -> Option<char> {
        self.src[self.at..].chars().nth(n)
    }

    fn rest(&self) -> &str {
        &self.src[self.at..]
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += c.len_utf8();
        Some(c)
    }

    /// Whether an escape (`\` and anything but a line break) starts `n` characters ahead.
    fn escape_at(&self, n: usize) -> bool {
        self.peek(n) == Some('\\') && self.peek(n + 1).is_some_and(|c| !"\n\r\x0C".contains(c))
    }

    /// Whether the rest starts with `word` (ASCII, any case) and then a space or the end.
    fn word_then_space(&self, word: &str) -> bool {
        let rest = self.rest().as_bytes();
        rest.len() >= word.len()
            && rest[..word.len()].eq_ignore_ascii_case(word.as_bytes())
            && rest.get(word.len()).is_none_or(|&b| is_space(b as char))
    }

    /// Consumes name characters and escapes.
    fn name(&mut self) {
        loop {
            // ASCII name characters one byte at a time; the rest by character.
            let ascii = self.src.as_bytes()[self.at..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
                .count();
            self.at += ascii;
            if self.escape_at(0) {
                self.escape();
            } else if self.peek(0).is_some_and(name_char) {
                self.bump();
            } else {
                return;
            }
        }
    }

    /// Consumes one escape: up to six hex digits and one space after, or one character.
    fn escape(&mut self) {
        self.bump();
        let hex = self
            .rest()
            .chars()
            .take(6)
            .take_while(char::is_ascii_hexdigit);
        let n = hex.count();
        if n == 0 {
            self.bump();
        } else {
            self.at += n;
            if self.peek(0).is_some_and(is_space) {
                self.bump();
            }
        }
    }

    fn token(&mut self) -> (Kind, bool) {
        let c = self.peek(0).unwrap_or(' ');
        let next = self.peek(1);
        if is_space(c) {
            let rest = &self.src.as_bytes()[self.at..];
            self.at += rest.iter().take_while(|&&b| is_space(b as char)).count();
            return (Kind::Space, false);
        }
        if self.rest().starts_with("-->") {
            self.at += 3;
            return (Kind::Cdc, false);
        }
        if matches!(c, 'o' | 'O' | 'n' | 'N' | 'a' | 'A') {
            for word in ["only", "not", "and"] {
                if self.word_then_space(word) {
                    self.at += word.len();
                    return (Kind::Word, false);
                }
            }
        }
        let rest = self.rest().as_bytes();
        if matches!(c, 'u' | 'U') && rest.len() >= 4 && rest[..4].eq_ignore_ascii_case(b"url(") {
            return self.url();
        }
        if matches!(c, 'u' | 'U')
            && next == Some('+')
            && self
                .peek(2)
                .is_some_and(|c| c.is_ascii_hexdigit() || c == '?')
        {
            self.at += 2;
            while self
                .peek(0)
                .is_some_and(|c| c.is_ascii_hexdigit() || c == '?' || c == '-')
            {
                self.bump();
            }
            return (Kind::Range, false);
        }
        self.token_rest(c, next)
    }

    fn token_rest(&mut self, c: char, next: Option<char>) -> (Kind, bool) {
        let ident = name_start(c)
            || c == '-' && (next.is_some_and(name_start) || next == Some('-') || self.escape_at(1))
            || self.escape_at(0);
        if ident {
            if c == '-' {
                self.bump();
            }
            self.name();
            if self.peek(0) == Some('(') {
                self.bump();
                return (Kind::Function, false);
            }
            return (Kind::Ident, false);
        }
        let at_keyword = c == '@'
            && (next.is_some_and(name_start)
                || self.escape_at(1)
                || next == Some('-') && self.peek(2).is_some_and(name_start)
                || self.escape_at(2));
        if at_keyword {
            self.bump();
            self.name();
            return (Kind::AtKeyword, false);
        }
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        if c.is_ascii_digit()
            || "+-.".contains(c) && digit(next)
            || "+-".contains(c) && next == Some('.') && digit(self.peek(2))
        {
            return self.number();
        }
        self.token_punct(c, next)
    }

    fn token_punct(&mut self, c: char, next: Option<char>) -> (Kind, bool) {
        if self.rest().starts_with("<!--") {
            self.at += 4;
            return (Kind::Cdo, false);
        }
        if self.rest().starts_with("/*") {
            return self.comment();
        }
        if c == '"' || c == '\'' {
            self.bump();
            let (bad, respell) = self.string(c);
            self.respell = respell;
            return (Kind::Str, bad);
        }
        if (c == '#' || c == '.') && (next.is_some_and(name_char) || self.escape_at(1)) {
            self.bump();
            self.name();
            return (if c == '#' { Kind::Hash } else { Kind::Class }, false);
        }
        if c == '!' {
            let after = self.rest()[1..].trim_start_matches(is_space);
            if after.len() >= 9 && after.as_bytes()[..9].eq_ignore_ascii_case(b"important") {
                self.at = self.src.len() - after.len() + 9;
                return (Kind::Important, false);
            }
        }
        if "~|^$*".contains(c) && next == Some('=') {
            self.at += 2;
            return (Kind::Matcher, false);
        }
        self.bump();
        (Kind::Char(c), false)
    }

    fn comment(&mut self) -> (Kind, bool) {
        match self.rest()[2..].find("*/") {
            Some(end) => {
                self.at += 2 + end + 2;
                (Kind::Comment, false)
            }
            None => {
                self.at = self.src.len();
                (Kind::Comment, true)
            }
        }
    }

    /// After the opening quote: the string up to its end (as browsers end it); whether the
    /// scanner refuses it, and whether it ends in an escaped backslash (`"\\"`), after which
    /// EPUBCheck's scanner does not see the quote as the end.
    fn string(&mut self, quote: char) -> (bool, bool) {
        let mut prev = quote;
        let mut escaped = false;
        loop {
            let Some(c) = self.bump() else {
                return (true, false);
            };
            if c == '\\' && matches!(self.peek(0), Some('\n' | '\r' | '\x0C')) {
                let crlf = self.rest().starts_with("\r\n");
                self.at += if crlf { 2 } else { 1 };
                prev = '\n';
                escaped = false;
                continue;
            }
            if matches!(c, '\n' | '\r' | '\x0C') {
                // The scanner runs on to the next `;`, `{` or `}`.
                let stop = self.rest().find([';', '{', '}']);
                self.at = stop.map_or(self.src.len(), |n| self.at + n);
                return (true, false);
            }
            if c == quote && !escaped {
                return (false, prev == '\\');
            }
            escaped = c == '\\' && !escaped;
            prev = c;
        }
    }

    fn url(&mut self) -> (Kind, bool) {
        self.at += 4;
        while self.peek(0).is_some_and(is_space) {
            self.bump();
        }
        match self.peek(0) {
            None => (Kind::Url, true),
            Some(q @ ('"' | '\'')) => {
                self.bump();
                let (mut bad, respell) = self.string(q);
                bad |= respell;
                while self.peek(0).is_some_and(is_space) {
                    self.bump();
                }
                bad |= self.bump().is_some_and(|c| c != ')');
                (Kind::Url, bad)
            }
            Some(_) => match self.rest().find(')') {
                Some(n) => {
                    self.at += n + 1;
                    (Kind::Url, false)
                }
                None => {
                    self.at = self.src.len();
                    (Kind::Url, true)
                }
            },
        }
    }

    fn number(&mut self) -> (Kind, bool) {
        self.bump();
        loop {
            match self.peek(0) {
                Some(c) if c.is_ascii_digit() => {}
                Some('.') if self.peek(1).is_some_and(|c| c.is_ascii_digit()) => {}
                _ => break,
            }
            self.bump();
        }
        let unit_start = self.at;
        if self.peek(0).is_some_and(|c| name_start(c) || c == '%') || self.escape_at(0) {
            while self.peek(0).is_some_and(|c| name_start(c) || c == '%') {
                self.bump();
            }
            if !self.src[..self.at].ends_with('%') {
                self.name();
            }
        }
        if &self.src[unit_start..self.at] == "%" {
            (Kind::Percent, false)
        } else {
            (Kind::Number, false)
        }
    }
}
