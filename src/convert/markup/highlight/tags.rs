//! The lexer for HTML and XML: tags, their names, attributes and values, comments, entities.
//!
//! One pass with a little state (inside a tag or not, after `=` or not); every token is
//! consumed as it is scanned, so the time is linear in the block's length. What a tag holds
//! (a `<script>`'s code) is written as text.

use super::lexer::find;
use super::spans::{Class, Spans};

/// Where the lexer is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between tags.
    Text,
    /// After `<` or `</`: the tag's name.
    Name,
    /// Inside a tag, after its name.
    Tag,
    /// Inside a tag, after `=`: an unquoted value.
    Value,
}

/// Cuts `code` into tokens and hands them to `out`; None if a token would not end on a
/// character boundary (not expected: the caller then writes the block plain).
pub(super) fn lex(code: &str, out: &mut Spans) -> Option<()> {
    let b = code.as_bytes();
    let (mut i, mut state) = (0, State::Text);
    while i < b.len() {
        let (end, class, next) = match state {
            State::Text => text(b, i),
            State::Name => match run(b, i, |c| {
                !c.is_ascii_whitespace() && !b"/>=\"'".contains(&c)
            }) {
                end if end > i => (end, Some(Class::Type), State::Tag),
                _ => tag(b, i, State::Tag),
            },
            State::Tag | State::Value => tag(b, i, state),
        };
        if end <= i {
            return None;
        }
        out.push(code.get(i..end)?, class);
        (i, state) = (end, next);
    }
    Some(())
}

/// The index of the first byte from `from` that `keep` refuses.
fn run(b: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    b[from..]
        .iter()
        .position(|&c| !keep(c))
        .map_or(b.len(), |n| from + n)
}

/// Just past `mark` from `from`, or the end.
fn past(b: &[u8], from: usize, mark: &[u8]) -> usize {
    find(b, from, mark).map_or(b.len(), |at| at + mark.len())
}

/// A token between tags: a comment, a CDATA section, a declaration or processing
/// instruction, a tag's opening, an entity, or a run of text.
fn text(b: &[u8], i: usize) -> (usize, Option<Class>, State) {
    let rest = &b[i..];
    if rest.starts_with(b"<!--") {
        return (past(b, i + 4, b"-->"), Some(Class::Comment), State::Text);
    }
    if rest.starts_with(b"<![CDATA[") {
        return (past(b, i + 9, b"]]>"), Some(Class::String), State::Text);
    }
    if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
        return (past(b, i + 2, b">"), Some(Class::Keyword), State::Text);
    }
    if rest.starts_with(b"</") {
        return (i + 2, None, State::Name);
    }
    if rest.len() > 1 && rest[0] == b'<' && (rest[1].is_ascii_alphabetic() || rest[1] >= 0x80) {
        return (i + 1, None, State::Name);
    }
    if rest[0] == b'&' {
        let name = run(b, i + 1, |c| c.is_ascii_alphanumeric() || c == b'#');
        if name > i + 1 && name - i <= 32 && b.get(name) == Some(&b';') {
            return (name + 1, Some(Class::Number), State::Text);
        }
        return (i + 1, None, State::Text);
    }
    (run(b, i + 1, |c| c != b'<' && c != b'&'), None, State::Text)
}

/// A token inside a tag: blanks, its end, `=`, a value, an attribute's name.
fn tag(b: &[u8], i: usize, state: State) -> (usize, Option<Class>, State) {
    let c = b[i];
    if c.is_ascii_whitespace() {
        return (run(b, i, |c| c.is_ascii_whitespace()), None, state);
    }
    if c == b'>' {
        return (i + 1, None, State::Text);
    }
    if b[i..].starts_with(b"/>") || b[i..].starts_with(b"?>") {
        return (i + 2, None, State::Text);
    }
    if c == b'=' {
        return (i + 1, None, State::Value);
    }
    if c == b'"' || c == b'\'' {
        return (past(b, i + 1, &[c]), Some(Class::String), State::Tag);
    }
    let end = run(b, i, |c| !c.is_ascii_whitespace() && !b"=>\"'".contains(&c)).max(i + 1);
    if state == State::Value {
        return (end, Some(Class::String), State::Tag);
    }
    let end = run(b, i, |c| {
        !c.is_ascii_whitespace() && !b"/=>\"'".contains(&c)
    })
    .max(i + 1);
    (end, Some(Class::Attribute), State::Tag)
}
