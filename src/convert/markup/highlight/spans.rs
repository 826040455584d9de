//! The highlighter's output: the token classes and the XHTML they are written as.
//!
//! The lexers ([`super::lexer`], [`super::tags`]) hand over the block's text a token at a time
//! with its class; this joins adjacent tokens of one class into one `<span class>`, so that a
//! document holds few, short spans, and escapes the text. The text itself is never changed:
//! the tokens are the block cut into pieces, in order.

use crate::xml::push_escaped_text;

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
/// them; white space between different classes stays outside). Written straight into one
/// string: a block is thousands of small tokens.
#[derive(Default)]
pub(super) struct Spans {
    out: String,
    /// The class of the text last written: its span is still open when it has one.
    class: Option<Class>,
    /// White space not yet written: it joins the next token's span if that is of the same
    /// class, else it goes between the spans.
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
            push_escaped_text(&mut self.out, &self.space);
        } else {
            self.close();
            push_escaped_text(&mut self.out, &self.space);
            if let Some(class) = class {
                self.out.push_str("<span class=\"");
                self.out.push_str(class.name());
                self.out.push_str("\">");
            }
            self.class = class;
        }
        self.space.clear();
        push_escaped_text(&mut self.out, text);
    }

    /// Ends the open span, if one is.
    fn close(&mut self) {
        if self.class.take().is_some() {
            self.out.push_str("</span>");
        }
    }

    /// The XHTML.
    pub(super) fn finish(mut self) -> String {
        self.close();
        push_escaped_text(&mut self.out, &self.space);
        self.out
    }
}
