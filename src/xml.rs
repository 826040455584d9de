//! XML escaping shared by every stage that writes markup: one place that knows which
//! characters XML 1.0 forbids.

/// Escapes text content: `&`, `<`, `>`; drops characters XML 1.0 forbids.
pub fn escape_text(s: &str) -> String {
    escape(s, false)
}

/// Escapes an attribute value (double-quoted): like [`escape_text`], plus `"`, and tab and
/// newline as character references (attribute-value normalisation would turn them to spaces).
pub fn escape_attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, attr: bool) -> String {
    let needs_work = |c: char| {
        matches!(c, '&' | '<' | '>' | '\r')
            || (attr && matches!(c, '"' | '\t' | '\n'))
            || !is_xml_char(c)
    };
    if !s.chars().any(needs_work) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + s.len() / 8);
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
}

/// True for characters allowed in XML 1.0 documents (the `Char` production).
pub fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
