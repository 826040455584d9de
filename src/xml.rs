//! XML escaping shared by every stage that writes markup: one place that knows which
//! characters XML 1.0 forbids.

/// How every id that epubforge writes into a document holding the author's content begins
/// (the chapter heading's, Markdown notes'); the sanitiser renames any author id that begins
/// so (see `convert::markup::ids`), so the two can never collide.
pub(crate) const GENERATED_ID_PREFIX: &str = "epubforge-";

/// The prefixed `epub:type` vocabularies a book may carry, with the URI each is declared by
/// (`epub:prefix` on a document's root: EPUBCheck refuses an undeclared prefix). Z39.98 is
/// the DAISY vocabulary; `se:` is Standard Ebooks' own (its source trees type names, vessels
/// and letters with it, and its stylesheets select on those values), declared as its
/// toolchain declares it.
pub(crate) const EPUB_TYPE_PREFIXES: [(&str, &str); 2] = [
    ("z3998", "http://www.daisy.org/z3998/2012/vocab/structure/#"),
    ("se", "https://standardebooks.org/vocab/1.0"),
];

/// Escapes text content: `&`, `<`, `>`; drops characters XML 1.0 forbids.
pub fn escape_text(s: &str) -> String {
    escape(s, false)
}

/// Escapes an attribute value (double-quoted): like [`escape_text`], plus `"`, and tab and
/// newline as character references (attribute-value normalisation would turn them to spaces).
pub fn escape_attr(s: &str) -> String {
    escape(s, true)
}

/// Bytes that may start a character [`escape`] changes (in text or in attribute values).
static MAYBE_ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'&' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'"' as usize] = true;
    t[0xEF] = true;
    t
};

/// Works on bytes: every character it changes is ASCII or, for U+FFFE and U+FFFF, starts
/// with the byte 0xEF, which in UTF-8 only ever begins a character.
fn escape(s: &str, attr: bool) -> String {
    let mut out = String::new();
    escape_into(&mut out, s, attr);
    out
}

/// Appends `s` escaped as text to `out`: [`escape_text`] without a string of its own, for
/// writers that build a document from many small pieces (the code highlighter).
pub fn push_escaped_text(out: &mut String, s: &str) {
    escape_into(out, s, false);
}

/// Appends `s`, which holds only XML characters ([`only_xml_chars`]), escaped as text: what
/// [`push_escaped_text`] appends, found with fewer passes, since only `&`, `<`, `>` and a
/// carriage return can change (the sanitiser's text, checked when it was read).
pub fn push_escaped_xml_text(out: &mut String, s: &str) {
    debug_assert!(only_xml_chars(s), "{s:?}");
    let bytes = s.as_bytes();
    // A short text (a line break between two tags) is read as quickly byte by byte as a
    // search is set up.
    if bytes.len() < 32 || memchr::memchr(b'\r', bytes).is_some() {
        escape_into(out, s, false);
        return;
    }
    let mut kept = 0;
    for i in memchr::memchr3_iter(b'&', b'<', b'>', bytes) {
        out.push_str(s.get(kept..i).unwrap_or_default());
        out.push_str(match bytes.get(i) {
            Some(b'&') => "&amp;",
            Some(b'<') => "&lt;",
            _ => "&gt;",
        });
        kept = i + 1;
    }
    out.push_str(s.get(kept..).unwrap_or_default());
}

/// [`escape`], appending to `out`.
fn escape_into(out: &mut String, s: &str, attr: bool) {
    let bytes = s.as_bytes();
    if !changes(bytes, attr) {
        out.push_str(s);
        return;
    }
    let mut kept = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !MAYBE_ESCAPED[usize::from(b)] {
            i += 1;
            continue;
        }
        let (replacement, len): (&str, usize) = match b {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'\r' => ("&#13;", 1),
            b'"' if attr => ("&quot;", 1),
            b'\t' if attr => ("&#9;", 1),
            b'\n' if attr => ("&#10;", 1),
            b'\t' | b'\n' => {
                i += 1;
                continue;
            }
            // Other C0 controls are not XML characters: dropped.
            0..0x20 => ("", 1),
            0xEF if matches!(bytes.get(i + 1..i + 3), Some([0xBF, 0xBE | 0xBF])) => ("", 3),
            _ => {
                i += 1;
                continue;
            }
        };
        if kept == 0 {
            out.reserve(s.len() + s.len() / 8);
        }
        out.push_str(&s[kept..i]);
        out.push_str(replacement);
        i += len;
        kept = i;
    }
    out.push_str(&s[kept..]);
}

/// Whether [`escape`] changes anything in `bytes`: read without stopping at the first hit,
/// so that the loop is vectorised (a chapter's text is mostly left as it is, and its CJK
/// punctuation starts with the `EF` that the byte-by-byte loop stops at).
fn changes(bytes: &[u8], attr: bool) -> bool {
    let escaped = |b: u8| {
        matches!(b, b'&' | b'<' | b'>')
            || (b < 0x20 && (attr || !matches!(b, b'\t' | b'\n')))
            || (attr && b == b'"')
    };
    bytes.iter().fold(false, |any, &b| any | escaped(b)) || has_nonchar(bytes)
}

/// Whether any byte of `bytes` is below U+0020 (a control, tab and line breaks among them):
/// their minimum, which is vectorised.
fn has_control(bytes: &[u8]) -> bool {
    bytes.iter().fold(u8::MAX, |min, &b| min.min(b)) < 0x20
}

/// Whether `bytes` hold U+FFFE or U+FFFF (`EF BF BE`, `EF BF BF`). A vectorised pass looks
/// for the pair `EF BF` first: it starts only U+FFC0..U+FFFF, rare, where `EF` alone (CJK
/// punctuation) is not; and a short text is not worth a `memmem` searcher's set-up.
fn has_nonchar(bytes: &[u8]) -> bool {
    let next = bytes.get(1..).unwrap_or_default();
    let pair = bytes
        .iter()
        .zip(next)
        .fold(false, |any, (&a, &b)| any | (a == 0xEF && b == 0xBF));
    pair && bytes
        .windows(3)
        .any(|w| matches!(w, [0xEF, 0xBF, 0xBE | 0xBF]))
}

/// True for characters allowed in XML 1.0 documents (the `Char` production).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Whether every character of `s` is an XML character ([`is_xml_char`]), read byte by byte:
/// a C0 control other than tab, line feed and carriage return, or U+FFFE or U+FFFF (`EF BF BE`,
/// `EF BF BF`), is not (a `str` holds no surrogate).
pub fn only_xml_chars(s: &str) -> bool {
    let bytes = s.as_bytes();
    // A text of a line or a few (a text node) mostly holds no byte below U+0020 at all, not
    // even a line break: its smallest byte says so in a fraction of the instructions of the
    // test for the controls XML forbids (which a document's many line breaks leave to do).
    match has_control(bytes) {
        true => only_xml_bytes(bytes),
        false => !has_nonchar(bytes),
    }
}

/// [`only_xml_chars`] of UTF-8 bytes (a slice of a document, not cut inside a character).
pub fn only_xml_bytes(bytes: &[u8]) -> bool {
    // Without stopping at the first, so that the loop is vectorised.
    let control = |b: u8| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r');
    if bytes.iter().fold(false, |any, &b| any | control(b)) {
        return false;
    }
    !has_nonchar(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_xml_chars_says_what_is_xml_char_says_of_each() {
        for s in [
            "plain",
            "第一章\t\n\r",
            "\u{FFFD}\u{E000}\u{10000}",
            "a\u{1}b",
            "x\u{FFFE}",
            "\u{FFFF}",
            "\u{EFFF}\u{FBFF}",
        ] {
            assert_eq!(only_xml_chars(s), s.chars().all(is_xml_char), "{s:?}");
        }
    }

    #[test]
    fn escapes_markup_characters_only_where_needed() {
        assert_eq!(
            escape_text("a < b & \"c\" > d"),
            "a &lt; b &amp; \"c\" &gt; d"
        );
        assert_eq!(
            escape_attr("say \"hi\" & go"),
            "say &quot;hi&quot; &amp; go"
        );
        assert_eq!(escape_text("纯文本"), "纯文本");
        assert_eq!(escape_text("a\u{1}b\u{FFFE}"), "ab");
        assert_eq!(escape_attr("a\tb\nc"), "a&#9;b&#10;c");
    }

    #[test]
    fn byte_escaping_agrees_with_the_character_definition() {
        let by_chars = |s: &str, attr: bool| {
            let mut out = String::new();
            for c in s.chars() {
                match c {
                    '&' => out.push_str("&amp;"),
                    '<' => out.push_str("&lt;"),
                    '>' => out.push_str("&gt;"),
                    '"' if attr => out.push_str("&quot;"),
                    '\t' if attr => out.push_str("&#9;"),
                    '\n' if attr => out.push_str("&#10;"),
                    '\r' => out.push_str("&#13;"),
                    c if is_xml_char(c) => out.push(c),
                    _ => {}
                }
            }
            out
        };
        let cases = [
            "",
            "纯文本",
            "<p>&amp;</p>",
            "\u{FFFE}头\u{FFFF}\u{FFFD}\u{FEFF}\u{FFEE}尾\u{EFFF}\u{F000}",
            "\u{0}\u{1F}\t\n\r\"'",
            "末\u{7F}\u{80}\u{10FFFF}>",
            "一\r二",
            "一\t二\n",
            "\u{FFC0}，\u{FFFF}",
            "\u{FFC0}，\"",
            "a & b < c > d",
            "&<>",
            "一\r\n<二>",
        ];
        for case in cases {
            assert_eq!(escape_text(case), by_chars(case, false), "{case:?}");
            assert_eq!(escape_attr(case), by_chars(case, true), "{case:?}");
            for attr in [false, true] {
                assert_eq!(changes(case.as_bytes(), attr), by_chars(case, attr) != case);
            }
            if only_xml_chars(case) {
                let mut out = String::from("x");
                push_escaped_xml_text(&mut out, case);
                assert_eq!(out, format!("x{}", by_chars(case, false)), "{case:?}");
            }
        }
    }
}
