//! pandoc's attribute blocks, `{#id .class key=value}`, as fenced divs, bracketed spans and
//! headings carry them: parsed so that ids and classes reach the XHTML and everything else is
//! known to be an attribute block (never text to print).

use crate::xml::escape_attr;

/// The longest attribute block looked for: a `{` further from its `}` is text.
const MAX_LEN: usize = 1024;

/// One attribute block.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Attrs {
    pub id: Option<String>,
    pub classes: Vec<String>,
    /// `key=value` pairs, quotes taken off.
    pub pairs: Vec<(String, String)>,
    /// `{=latex}`: raw content for that output format.
    pub raw: Option<String>,
}

/// Parses the attribute block `s` starts with (`{…}`); returns it and its length in bytes.
/// None when `s` does not start with one (so `{` stays text).
pub(super) fn parse(s: &str) -> Option<(Attrs, usize)> {
    let rest = s.strip_prefix('{')?;
    let window = &rest[..floor(rest, MAX_LEN)];
    let end = window.find(['}', '\n'])?;
    if !window[end..].starts_with('}') {
        return None;
    }
    let inner = &window[..end];
    let attrs = parse_inner(inner)?;
    Some((attrs, end + 2))
}

fn floor(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn parse_inner(inner: &str) -> Option<Attrs> {
    let mut a = Attrs::default();
    let trimmed = inner.trim();
    if let Some(format) = trimmed.strip_prefix('=') {
        let ok = !format.is_empty() && format.chars().all(|c| c.is_ascii_alphanumeric());
        a.raw = Some(format.to_ascii_lowercase());
        return ok.then_some(a);
    }
    let mut tokens = Tokens(trimmed);
    while let Some(token) = tokens.next_token()? {
        if let Some(id) = token.strip_prefix('#') {
            a.id = Some(name(id)?.to_string());
        } else if let Some(class) = token.strip_prefix('.') {
            a.classes.push(name(class)?.to_string());
        } else if token == "-" {
            a.classes.push("unnumbered".to_string());
        } else if let Some((key, value)) = token.split_once('=') {
            let value = value.trim_matches('"');
            a.pairs.push((name(key)?.to_string(), value.to_string()));
        } else {
            return None;
        }
    }
    let empty = a.id.is_none() && a.classes.is_empty() && a.pairs.is_empty();
    (!empty).then_some(a)
}

/// An identifier, class or key: letters, digits and `-_:.`, not empty.
fn name(s: &str) -> Option<&str> {
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'));
    ok.then_some(s)
}

/// Whitespace-separated tokens, a quoted value (`key="a b"`) being one.
struct Tokens<'s>(&'s str);

impl<'s> Tokens<'s> {
    /// The next token; Some(None) at the end; None on an unclosed quote.
    fn next_token(&mut self) -> Option<Option<&'s str>> {
        let s = self.0.trim_start();
        if s.is_empty() {
            return Some(None);
        }
        let mut quoted = false;
        let mut end = s.len();
        for (i, c) in s.char_indices() {
            match c {
                '"' => quoted = !quoted,
                c if c.is_whitespace() && !quoted => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        if quoted {
            return None;
        }
        self.0 = &s[end..];
        Some(Some(&s[..end]))
    }
}

impl Attrs {
    /// The block as XHTML attributes (with a leading space): id, class, `lang`/`dir` as
    /// they are, other keys as `data-` attributes, as pandoc's own EPUB writer does.
    pub fn html(&self) -> String {
        let mut s = String::new();
        if let Some(id) = &self.id {
            s.push_str(&format!(" id=\"{}\"", escape_attr(id)));
        }
        if !self.classes.is_empty() {
            let classes = escape_attr(&self.classes.join(" "));
            s.push_str(&format!(" class=\"{classes}\""));
        }
        for (key, value) in &self.pairs {
            let key = key.to_ascii_lowercase();
            let key = match key.as_str() {
                "lang" | "dir" | "title" => key,
                _ => format!("data-{key}"),
            };
            s.push_str(&format!(" {}=\"{}\"", key, escape_attr(value)));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_classes_and_pairs_are_read() {
        let (a, len) = parse("{#intro .note .wide lang=fr title=\"a b\"} rest").unwrap();
        assert_eq!(len, "{#intro .note .wide lang=fr title=\"a b\"}".len());
        assert_eq!(a.id.as_deref(), Some("intro"));
        assert_eq!(a.classes, ["note", "wide"]);
        assert_eq!(
            a.html(),
            " id=\"intro\" class=\"note wide\" lang=\"fr\" title=\"a b\""
        );
    }

    #[test]
    fn prose_in_braces_is_not_an_attribute_block() {
        assert!(parse("{a set}").is_none());
        assert!(parse("{}").is_none());
        assert!(parse("{#x\n}").is_none());
        assert_eq!(parse("{=latex}").unwrap().0.raw.as_deref(), Some("latex"));
    }
}
