//! The convert stage: decoded chapter text in, an XHTML body fragment out.
//!
//! Sits between `source` (clean text) and `package` (which wraps each fragment in a document).
//! One submodule per input kind; [`SourceKind::of`] picks it from the file extension.

pub mod text;

use std::path::Path;

use crate::xml::escape_text;

/// The kinds of chapter file we read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// Plain text, one paragraph per line.
    Text,
}

impl SourceKind {
    /// The kind of a chapter file, from its extension; anything unknown is read as text.
    pub fn of(_path: &Path) -> SourceKind {
        SourceKind::Text
    }
}

/// A converted chapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// A title found in the content itself (a heading line at the top), removed from `body`.
    pub title: Option<String>,
    /// Well-formed XHTML content for the chapter's `<section>`.
    pub body: String,
    /// Number of paragraphs written.
    pub paragraphs: usize,
}

/// Converts plain text (already decoded and normalised) to XHTML paragraphs.
pub fn convert_text(text: &str) -> Converted {
    let mut body = String::with_capacity(text.len() + text.len() / 8);
    let mut paragraphs = 0;
    for block in text::blocks(text) {
        match block {
            text::Block::Paragraph(p) => {
                paragraphs += 1;
                body.push_str("<p>");
                body.push_str(&escape_text(&p));
                body.push_str("</p>\n");
            }
            text::Block::SceneBreak(s) => {
                body.push_str("<p class=\"scene-break\">");
                body.push_str(&escape_text(&s));
                body.push_str("</p>\n");
            }
        }
    }
    Converted {
        title: None,
        body,
        paragraphs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_paragraphs_are_escaped_and_wrapped() {
        let c = convert_text("a < b & c\n\u{3000}\u{3000}二\n");
        assert_eq!(c.body, "<p>a &lt; b &amp; c</p>\n<p>二</p>\n");
        assert_eq!(c.paragraphs, 2);
    }
}
