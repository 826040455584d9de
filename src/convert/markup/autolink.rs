//! GFM's extended autolinks: bare `www.` addresses, `http://`, `https://` and `ftp://` URLs and e-mail
//! addresses in Markdown text become links, as on GitHub (pulldown-cmark has no such option).
//!
//! The rules are the GFM spec's ("Autolinks (extension)"): an autolink starts at the beginning
//! of a text run, after white space, or after `*`, `_`, `~`, `(` or a quote; a domain is made
//! of letters, digits, `-` and `_` (none in its last two labels); the link runs to white space
//! or `<`, then gives back trailing punctuation (`?!.,:*_~'"`), a `)` that does not close a `(`
//! inside it, and an entity-like `&name;`. `www.` links get `http://`, addresses `mailto:`.

use std::ops::Range;

/// One autolink found in a text: where it is, and where it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Autolink {
    /// Byte range of the link text.
    pub range: Range<usize>,
    /// The link target.
    pub href: String,
}

/// Every autolink in `text`, in order, not overlapping.
pub(super) fn find(text: &str) -> Vec<Autolink> {
    let mut found = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let link = url_at(text, at).or_else(|| email_at(text, at));
        match link {
            Some(link) => {
                at = link.range.end;
                found.push(link);
            }
            None => {
                at += text
                    .get(at..)
                    .and_then(|r| r.chars().next())
                    .map_or(1, char::len_utf8);
            }
        }
    }
    found
}

/// Whether a link may start at byte `at`.
fn boundary(text: &str, at: usize) -> bool {
    match text.get(..at).and_then(|before| before.chars().next_back()) {
        None => true,
        Some(c) => c.is_whitespace() || matches!(c, '*' | '_' | '~' | '(' | '"' | '\''),
    }
}

/// A `www.`, `http://`, `https://` or `ftp://` link starting at `at`.
fn url_at(text: &str, at: usize) -> Option<Autolink> {
    let rest = text.get(at..)?;
    let (scheme, domain_start) = if rest.starts_with("www.") {
        ("http://", 0)
    } else if rest.starts_with("http://") {
        ("", 7)
    } else if rest.starts_with("https://") {
        ("", 8)
    } else if rest.starts_with("ftp://") {
        ("", 6)
    } else {
        return None;
    };
    if !boundary(text, at) {
        return None;
    }
    let domain_len = rest
        .get(domain_start..)?
        .find(|c: char| !is_domain_char(c))
        .unwrap_or(rest.len() - domain_start);
    let domain = rest.get(domain_start..domain_start + domain_len)?;
    if !valid_domain(domain, scheme.is_empty()) {
        return None;
    }
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '<')
        .unwrap_or(rest.len());
    let link = trim_trailing(rest.get(..end)?);
    if link.len() <= domain_start || link.ends_with("www.") {
        return None;
    }
    Some(Autolink {
        range: at..at + link.len(),
        href: format!("{scheme}{link}"),
    })
}

fn is_domain_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Labels separated by dots, no `_` in the last two; `www.` domains need a dot after `www`.
fn valid_domain(domain: &str, has_scheme: bool) -> bool {
    let domain = domain.trim_end_matches('.');
    let labels: Vec<&str> = domain.split('.').collect();
    let underscore_at_end = labels.iter().rev().take(2).any(|l| l.contains('_'));
    // `www.x` is a domain; after a scheme a single label (`http://localhost`) is one too.
    let enough = has_scheme || labels.len() >= 2;
    !domain.is_empty() && !underscore_at_end && enough && labels.iter().all(|l| !l.is_empty())
}

/// Gives back what the GFM rules leave outside a link.
fn trim_trailing(mut link: &str) -> &str {
    let opens = link.matches('(').count();
    let mut closes = link.matches(')').count();
    loop {
        let Some(last) = link.chars().next_back() else {
            return link;
        };
        let unbalanced = last == ')' && closes > opens;
        if unbalanced
            || matches!(
                last,
                '?' | '!' | '.' | ',' | ':' | '*' | '_' | '~' | '\'' | '"'
            )
        {
            closes -= usize::from(last == ')');
            link = &link[..link.len() - 1];
        } else if last == ';' {
            let body = &link[..link.len() - 1];
            let name_start = body
                .rfind(|c: char| !c.is_ascii_alphanumeric())
                .filter(|&i| body[i..].starts_with('&') && i + 1 < body.len());
            match name_start {
                Some(i) => link = &link[..i],
                None => return link,
            }
        } else {
            return link;
        }
    }
}

/// An e-mail address whose `@` is at or after `at`, starting exactly at `at`.
fn email_at(text: &str, at: usize) -> Option<Autolink> {
    // Only where a local part can start, so that a long word is scanned once, not at every
    // one of its characters.
    let before = text.get(..at).and_then(|b| b.chars().next_back());
    if before.is_some_and(is_local_char) {
        return None;
    }
    let rest = text.get(at..)?;
    let local_len = rest.find(|c: char| !is_local_char(c)).unwrap_or(rest.len());
    if local_len == 0 || !rest.get(local_len..)?.starts_with('@') {
        return None;
    }
    let domain_part = rest.get(local_len + 1..)?;
    let domain_len = domain_part
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
        .unwrap_or(domain_part.len());
    let domain = domain_part.get(..domain_len)?.trim_end_matches('.');
    let labels: Vec<&str> = domain.split('.').collect();
    let ok =
        labels.len() >= 2 && labels.iter().all(|l| !l.is_empty()) && !domain.ends_with(['-', '_']);
    if !ok {
        return None;
    }
    let len = local_len + 1 + domain.len();
    let address = rest.get(..len)?;
    Some(Autolink {
        range: at..at + len,
        href: format!("mailto:{address}"),
    })
}

fn is_local_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-' | '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links(text: &str) -> Vec<(&str, String)> {
        find(text)
            .into_iter()
            .map(|l| (&text[l.range.clone()], l.href))
            .collect()
    }

    #[test]
    fn www_and_http_links_follow_the_gfm_examples() {
        assert_eq!(
            links("Visit www.commonmark.org/help for more."),
            [(
                "www.commonmark.org/help",
                "http://www.commonmark.org/help".into()
            )]
        );
        assert_eq!(
            links("Visit www.commonmark.org.")[0].0,
            "www.commonmark.org"
        );
        assert_eq!(
            links("www.google.com/search?q=Markup+(business)))")[0].0,
            "www.google.com/search?q=Markup+(business)"
        );
        assert_eq!(
            links("www.google.com/search?q=commonmark&hl;")[0].0,
            "www.google.com/search?q=commonmark"
        );
        assert_eq!(
            links("www.commonmark.org/he<lp")[0].0,
            "www.commonmark.org/he"
        );
        assert_eq!(
            links("(Visit https://encrypted.google.com/search?q=Markup+(business))")[0].0,
            "https://encrypted.google.com/search?q=Markup+(business)"
        );
        assert_eq!(links("\"http://google.com\"")[0].0, "http://google.com");
        assert_eq!(links("at ftp://foo.bar.baz.")[0].0, "ftp://foo.bar.baz");
        assert!(links("xwww.a.com and www.a_b.c_d").is_empty());
        assert!(links("www.").is_empty() && links("http://").is_empty());
    }

    #[test]
    fn email_addresses_follow_the_gfm_examples() {
        assert_eq!(
            links("hello@mail+xyz.example isn't valid, but hello+xyz@mail.example is."),
            [(
                "hello+xyz@mail.example",
                "mailto:hello+xyz@mail.example".into()
            )]
        );
        assert_eq!(links("a.b-c_d@a.b.")[0].0, "a.b-c_d@a.b");
        assert!(links("a.b-c_d@a.b-").is_empty() && links("a.b-c_d@a.b_").is_empty());
        assert!(links("@a.b.c@. x n@.  b").is_empty());
    }

    #[test]
    fn long_words_are_scanned_in_linear_time() {
        let word = "a".repeat(2_000_000);
        assert!(find(&word).is_empty());
        assert!(find(&format!("({})", "www.(".repeat(200_000))).is_empty());
        let parens = format!("www.a.org/{}", ")".repeat(1_000_000));
        assert_eq!(find(&parens)[0].range.len(), "www.a.org/".len());
    }
}
