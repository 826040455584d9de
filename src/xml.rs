//! XML escaping shared by every stage that writes markup.

/// Escapes text content: `&`, `<`, `>`.
pub fn escape_text(s: &str) -> String {
    escape(s, false)
}

/// Escapes an attribute value (double-quoted): `&`, `<`, `>`, `"`.
pub fn escape_attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, attr: bool) -> String {
    if !s.contains(['&', '<', '>', '"']) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attr => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
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
    }
}
