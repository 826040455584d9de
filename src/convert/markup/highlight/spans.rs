//! The highlighter's output: the token classes and the XHTML they are written as.
//!
//! The lexers ([`super::lexer`], [`super::tags`]) hand over the block's text a token at a time
//! with its class; this joins adjacent tokens of one class into one `<span class>`, so that a
//! document holds few, short spans, and escapes the text. The text itself is never changed:
//! the tokens are the block cut into pieces, in order.

use crate::xml::escape_text;

/// What a token is, as far as a reader's colours go: the classes and their colours are the
/// stylesheet's ([`crate::book::CODE_CLASSES`]). On e-ink these are mostly greys: the
/// classes, not the hues, are what matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    Comment,
    String,
    Function,
    Type,
    Attribute,
    Number,
    Keyword,
}

impl Class {
    /// Every class, for the test that the stylesheet colours each.
    #[cfg(test)]
    pub(super) const ALL: [Class; 7] = [
        Class::Comment,
        Class::String,
        Class::Function,
        Class::Type,
        Class::Attribute,
        Class::Number,
        Class::Keyword,
    ];

    /// The `class` attribute's value.
    pub(super) fn name(self) -> &'static str {
        match self {
            Class::Comment => "hl-c",
            Class::String => "hl-s",
            Class::Function => "hl-f",
            Class::Type => "hl-t",
            Class::Attribute => "hl-a",
            Class::Number => "hl-n",
            Class::Keyword => "hl-k",
        }
    }
}

/// The output, adjacent text of one class joined in one span (with the white space between
/// them; white space between different classes stays outside).
#[derive(Default)]
pub(super) struct Spans {
    out: String,
    run: String,
    class: Option<Class>,
    space: String,
}

impl Spans {
    /// An output for a block of `len` bytes (spans make it longer).
    pub(super) fn with_capacity(len: usize) -> Spans {
        Spans {
            out: String::with_capacity(len + len / 2),
            ..Spans::default()
        }
    }

    /// The next piece of the block's text, of this class (None: no class).
    pub(super) fn push(&mut self, text: &str, class: Option<Class>) {
        if text.is_empty() {
            return;
        }
        if text.bytes().all(|b| b.is_ascii_whitespace()) {
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
                self.out.push_str(class.name());
                self.out.push_str("\">");
                self.out.push_str(&text);
                self.out.push_str("</span>");
            }
            None => self.out.push_str(&text),
        }
        self.run.clear();
    }

    /// The XHTML.
    pub(super) fn finish(mut self) -> String {
        self.flush();
        self.out.push_str(&escape_text(&self.space));
        self.out
    }
}
