//! XML decoding and parsing with our safety settings, and node positions for messages.
//!
//! DOCTYPEs are allowed (EPUB 2 XHTML and NCX carry them) but entity declarations are refused
//! before parsing, so no entity can expand; the node count is capped too.

use std::borrow::Cow;

use roxmltree::{Document, Node, ParsingOptions};

use super::InspectError;
use super::container::Entry;
use super::finding::Place;

/// Most XML nodes we build for one entry (bounds memory on huge flat documents).
pub(crate) const MAX_NODES: u32 = 4_000_000;

/// An XML entry, as [`Container::read_entry`](super::container::Container::read_entry) gives
/// it, to text: UTF-8 (BOM stripped; text found UTF-8 already is not checked again) or UTF-16
/// with a BOM; XHTML 1.x named entities made numeric (see [`super::entities`]).
pub(crate) fn decode_entry(
    entry: &str,
    content: super::container::Entry,
) -> Result<String, InspectError> {
    let text = match content {
        super::container::Entry::Text(text) => match text.strip_prefix('\u{FEFF}') {
            Some(rest) => rest.to_string(),
            None => text,
        },
        super::container::Entry::Bytes(bytes) => decode_bytes(entry, &bytes)?,
    };
    Ok(super::entities::expand(&text).unwrap_or(text))
}

/// An entry as [`Container::lend_held`](super::container::Container::lend_held) gives it, to
/// text as [`decode_entry`] makes it: borrowed when it was inflated ahead as text that needs
/// no change.
pub(crate) fn decode_lent<'e>(
    entry: &str,
    content: Cow<'e, Entry>,
) -> Result<Cow<'e, str>, InspectError> {
    match content {
        Cow::Borrowed(Entry::Text(text)) => {
            let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
            Ok(super::entities::expand(text).map_or(Cow::Borrowed(text), Cow::Owned))
        }
        content => decode_entry(entry, content.into_owned()).map(Cow::Owned),
    }
}

fn decode_bytes(entry: &str, bytes: &[u8]) -> Result<String, InspectError> {
    match encoding_rs::Encoding::for_bom(bytes) {
        Some((enc, _)) if enc != encoding_rs::UTF_8 => {
            // `decode` sniffs and strips the BOM itself.
            let (text, _, had_errors) = enc.decode(bytes);
            if had_errors {
                return Err(structure(entry, "malformed UTF-16"));
            }
            Ok(text.into_owned())
        }
        Some((_, bom_len)) => utf8(entry, bytes.get(bom_len..).unwrap_or_default()),
        None => utf8(entry, bytes),
    }
}

fn utf8(entry: &str, bytes: &[u8]) -> Result<String, InspectError> {
    // The SIMD check first (several times faster on CJK text); std's only to place an error.
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        return Ok(s.to_string());
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let (line, col) = line_col(bytes, e.valid_up_to());
            Err(InspectError::Xml {
                entry: entry.to_string(),
                line,
                col,
                message: "not valid UTF-8".to_string(),
            })
        }
    }
}

fn structure(entry: &str, message: &str) -> InspectError {
    InspectError::Structure {
        entry: entry.to_string(),
        message: message.to_string(),
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(bytes: &[u8], offset: usize) -> (u32, u32) {
    let head = bytes.get(..offset).unwrap_or(bytes);
    let line = head.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = head.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(head.get(line_start..).unwrap_or_default())
        .chars()
        .count()
        + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

/// Parse text as XML; errors name the entry and line:col.
pub(crate) fn parse<'a>(entry: &str, text: &'a str) -> Result<Document<'a>, InspectError> {
    if let Some(at) = entity_declaration(text) {
        let (line, col) = line_col(text.as_bytes(), at);
        return Err(InspectError::Xml {
            entry: entry.to_string(),
            line,
            col,
            message: "entity declarations are refused (they could expand without bound)"
                .to_string(),
        });
    }
    let options = ParsingOptions {
        allow_dtd: true,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    Document::parse_with_options(text, options).map_err(|e| {
        let pos = e.pos();
        let full = e.to_string();
        let suffix = format!(" at {}:{}", pos.row, pos.col);
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        InspectError::Xml {
            entry: entry.to_string(),
            line: pos.row,
            col: pos.col,
            message,
        }
    })
}

/// Where `text` declares an entity, when it has a DOCTYPE (what [`parse`] refuses).
pub(crate) fn entity_declaration(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    memchr::memmem::find(bytes, b"<!DOCTYPE")?;
    memchr::memmem::find(bytes, b"<!ENTITY")
}

/// Turns node positions into [`Place`]s (entry, line, column). roxmltree's own `text_pos_at` scans from the
/// start of the text on every call, which is quadratic over a big document with many links;
/// this walks forward from the previous answer (queries come mostly in document order) and
/// falls back to a line-start index for backward ones, built on the first of them.
pub(crate) struct Locator<'t> {
    entry: String,
    text: &'t str,
    /// Byte offsets where the lines start; empty until a query goes backward.
    line_starts: Vec<usize>,
    /// Last answer: byte offset, line, column.
    last: (usize, u32, u32),
}

impl<'t> Locator<'t> {
    pub(crate) fn new(entry: &str, doc: &Document<'t>) -> Self {
        Self::of_text(entry, doc.input_text())
    }

    /// A locator over `text` (the text a document was parsed from).
    pub(crate) fn of_text(entry: &str, text: &'t str) -> Self {
        Locator {
            entry: entry.to_string(),
            text,
            line_starts: Vec::new(),
            last: (0, 1, 1),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn line_col(&mut self, pos: usize) -> (u32, u32) {
        let pos = pos.min(self.text.len());
        let (mut from, mut line, mut col) = self.last;
        if pos < from {
            if self.line_starts.is_empty() {
                self.line_starts.push(0);
                let newlines = memchr::memchr_iter(b'\n', self.text.as_bytes());
                self.line_starts.extend(newlines.map(|i| i + 1));
            }
            let index = self
                .line_starts
                .partition_point(|&s| s <= pos)
                .saturating_sub(1);
            from = self.line_starts.get(index).copied().unwrap_or(0);
            line = u32::try_from(index + 1).unwrap_or(u32::MAX);
            col = 1;
        }
        let between = self.text.get(from..pos).unwrap_or_default();
        let mut rest = between;
        if let Some(last) = memchr::memrchr(b'\n', between.as_bytes()) {
            let newlines = memchr::memchr_iter(b'\n', between.as_bytes()).count();
            line = line.saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
            col = 1;
            rest = between.get(last + 1..).unwrap_or_default();
        }
        let chars = u32::try_from(rest.chars().count()).unwrap_or(u32::MAX);
        col = col.saturating_add(chars);
        self.last = (pos, line, col);
        (line, col)
    }

    /// The entry, line and column of a node, for findings.
    pub(crate) fn at(&mut self, node: Node<'_, '_>) -> Place {
        self.place(node.range().start)
    }

    /// The entry, line and column of a byte offset, for findings.
    pub(crate) fn place(&mut self, pos: usize) -> Place {
        let (line, col) = self.line_col(pos);
        Place::at(&self.entry, line, col)
    }
}

/// The node's text content with runs of whitespace collapsed to one space.
pub(crate) fn text_of(node: Node<'_, '_>) -> String {
    let mut out = String::new();
    for d in node.descendants().filter(|n| n.is_text()) {
        if let Some(t) = d.text() {
            out.push_str(t);
        }
    }
    // Most texts (a title, a name) are collapsed already: kept, not split and joined again.
    match is_collapsed(&out) {
        true => out,
        false => out.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// Whether `text` is what collapsing its whitespace would make it: no whitespace at either
/// end, and each run of it a single space.
fn is_collapsed(text: &str) -> bool {
    let mut after_space = true;
    for c in text.chars() {
        match c.is_whitespace() {
            true if c != ' ' || after_space => return false,
            true => after_space = true,
            false => after_space = false,
        }
    }
    !after_space || text.is_empty()
}

/// Whether an element has this local name (namespace ignored: EPUBs in the wild vary).
pub(crate) fn is(node: Node<'_, '_>, local: &str) -> bool {
    node.is_element() && node.tag_name().name() == local
}

/// Attribute by local name, without namespace.
pub(crate) fn attr<'a>(node: Node<'a, '_>, local: &str) -> Option<&'a str> {
    node.attributes()
        .find(|a| a.namespace().is_none() && a.name() == local)
        .map(|a| a.value())
}

/// Attribute by namespace and local name.
pub(crate) fn attr_ns<'a>(node: Node<'a, '_>, ns: &str, local: &str) -> Option<&'a str> {
    node.attributes()
        .find(|a| a.namespace() == Some(ns) && a.name() == local)
        .map(|a| a.value())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::container::Entry;

    #[test]
    fn text_left_as_it_is_is_text_whose_whitespace_is_collapsed_already() {
        let texts = [
            "",
            "a",
            "a b",
            "第一章 风起",
            " a",
            "a ",
            "a  b",
            "a\tb",
            "a\nb",
            " ",
            "a\u{3000}b",
            "a\u{a0}b",
            "\u{2003}",
        ];
        for text in texts {
            let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(is_collapsed(text), collapsed == text, "{text:?}");
        }
    }

    #[test]
    fn billion_laughs_is_refused_before_parsing() {
        let text = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
]>
<lolz>&lol2;</lolz>"#;
        let err = parse("bomb.xml", text).unwrap_err();
        assert_eq!(err.place(), Place::at("bomb.xml", 3, 2));
        assert!(err.to_string().contains("entity declarations are refused"));
    }

    #[test]
    fn external_doctype_without_entities_parses() {
        let text = r#"<?xml version="1.0"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>"#;
        assert!(parse("a.xhtml", text).is_ok());
    }

    #[test]
    fn parse_error_names_entry_line_and_column() {
        let err = parse("EPUB/c.xhtml", "<a>\n  <b></a>").unwrap_err();
        let InspectError::Xml {
            entry,
            line,
            message,
            ..
        } = &err
        else {
            panic!("expected an XML error, got {err:?}");
        };
        assert_eq!(entry, "EPUB/c.xhtml");
        assert_eq!(*line, 2);
        assert!(!message.contains(" at 2:"), "position repeated: {message}");
    }

    #[test]
    fn locator_agrees_with_roxmltree_in_any_query_order() {
        let text = "<a>\n  <b>é</b>\n<c/>\n  <d/></a>";
        let doc = parse("x.xml", text).unwrap();
        let nodes: Vec<Node> = doc.descendants().filter(|n| n.is_element()).collect();
        let mut locator = Locator::new("x.xml", &doc);
        for node in nodes.iter().chain(nodes.iter().rev()) {
            let expected = doc.text_pos_at(node.range().start);
            assert_eq!(
                locator.at(*node),
                Place::at("x.xml", expected.row, expected.col)
            );
        }
    }

    #[test]
    fn utf16_with_bom_decodes_and_bad_utf8_is_located() {
        let mut bytes = vec![0xFF, 0xFE];
        for u in "<a/>".encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        assert_eq!(decode("x.xml", &bytes).unwrap(), "<a/>");
        assert_eq!(decode("z.xml", b"\xEF\xBB\xBF<a/>").unwrap(), "<a/>");
        let err = decode("y.xml", b"<a>\n\xFF</a>").unwrap_err();
        assert_eq!(err.place(), Place::at("y.xml", 2, 1));
    }

    fn decode(entry: &str, bytes: &[u8]) -> Result<String, InspectError> {
        decode_entry(entry, Entry::Bytes(bytes.to_vec()))
    }

    #[test]
    fn text_checked_already_decodes_as_its_bytes_do() {
        for text in [
            "\u{FEFF}<a>&eacute;</a>",
            "<a>第一章</a>",
            "\u{FEFF}\u{FEFF}<a/>",
        ] {
            let as_text = decode_entry("t.xml", Entry::Text(text.to_string())).unwrap();
            assert_eq!(
                as_text,
                decode("t.xml", text.as_bytes()).unwrap(),
                "{text:?}"
            );
        }
    }
}
