//! Link and image URLs: which link targets are kept (percent-encoded where they are not valid
//! as written, EPUBCheck's RSC-020) and which are dropped with a warning (scripts, unsupported
//! schemes, scheme-relative links, hosts no URL parser takes), and `%XX` decoding of the local
//! paths images and fragments are looked up by.

use super::shorten;

/// The scheme of a URL, lower-cased, if it has one.
pub(super) fn url_scheme(url: &str) -> Option<String> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then(|| scheme.to_ascii_lowercase())
}

pub(super) enum Href {
    Keep(String),
    Drop(String),
}

pub(super) fn classify_href(raw: &str) -> Href {
    // Browsers ignore ASCII whitespace inside URLs ("java\nscript:"), so judge without it.
    let compact: String = raw
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .collect();
    if compact.is_empty() || compact == "#" {
        return Href::Drop("removed empty link target".to_string());
    }
    match url_scheme(&compact).as_deref() {
        Some("http" | "https") if !valid_host(&compact) => Href::Drop(format!(
            "removed link to {}: its host is not a valid domain name",
            shorten(&compact, 200)
        )),
        Some("http" | "https" | "mailto") => Href::Keep(encode_url(raw.trim())),
        Some("javascript") => Href::Drop("removed javascript: URL".to_string()),
        Some(s) => Href::Drop(format!(
            "removed link with unsupported URL scheme {}:",
            shorten(s, 20)
        )),
        None if compact.starts_with("//") => Href::Drop(format!(
            "removed scheme-relative link {}",
            shorten(&compact, 200)
        )),
        None => Href::Keep(encode_url(raw.trim())),
    }
}

/// Whether the host of an `http(s)` URL is one a URL parser takes (EPUBCheck reports RSC-020
/// for `https://../`): an IPv6 literal in brackets, or a domain whose labels but the last are
/// not empty, without the code points the URL standard forbids in a domain.
fn valid_host(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let authority = &rest[..rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len())];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if let Some(literal) = host_port.strip_prefix('[') {
        return literal.split_once(']').is_some_and(|(ip, _)| {
            !ip.is_empty()
                && ip
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || ":.".contains(c))
        });
    }
    let host = host_port.split_once(':').map_or(host_port, |(h, _)| h);
    let forbidden = |c: char| c.is_control() || " #%/:<>?@[\\]^|".contains(c);
    let labels: Vec<&str> = host.split('.').collect();
    let (last, others) = labels.split_last().unwrap_or((&"", &[]));
    !host.is_empty()
        && !host.contains(forbidden)
        && others.iter().all(|l| !l.is_empty())
        && (!last.is_empty() || !others.is_empty())
}

/// Percent-encodes characters that are not allowed in a URL as written (spaces, `[` and `]`
/// outside an IPv6 host, a `%` that starts no escape, and the like: EPUBCheck's RSC-020);
/// non-ASCII stays, as IRIs allow it.
fn encode_url(s: &str) -> String {
    // `[…]` is allowed in the host only: `http://[::1]/`.
    let host_end = s
        .find("://")
        .map(|i| i + 3)
        .map(|h| h + s[h..].find(['/', '?', '#']).unwrap_or(s.len() - h))
        .unwrap_or(0);
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        let bad_percent = c == '%'
            && !s
                .get(i + 1..i + 3)
                .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        let bracket = matches!(c, '[' | ']') && i >= host_end;
        if c.is_ascii_control() || " \"<>\\^`{|}".contains(c) || bad_percent || bracket {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `%XX` decoding; input that does not decode to UTF-8 is returned unchanged.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes.get(i).copied().unwrap_or(0);
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decode_handles_bad_escapes() {
        assert_eq!(percent_decode("a%20b.png"), "a b.png");
        assert_eq!(percent_decode("100%.png"), "100%.png");
        assert_eq!(percent_decode("%C3%A9"), "é");
        assert_eq!(percent_decode("%FF"), "%FF");
    }

    #[test]
    fn href_classification() {
        assert!(matches!(
            classify_href(" java\tscript:alert(1)"),
            Href::Drop(_)
        ));
        assert!(matches!(classify_href("vbscript:x"), Href::Drop(_)));
        assert!(matches!(classify_href("//evil.com/x"), Href::Drop(_)));
        match classify_href("other file.html#a") {
            Href::Keep(v) => assert_eq!(v, "other%20file.html#a"),
            Href::Drop(r) => panic!("dropped: {r}"),
        }
        assert!(matches!(
            classify_href("https://example.com/"),
            Href::Keep(_)
        ));
    }

    #[test]
    fn urls_are_encoded_where_not_valid_as_written() {
        assert_eq!(
            encode_url("https://e.com/s?tags[]=a&q=100%&r=%41"),
            "https://e.com/s?tags%5B%5D=a&q=100%25&r=%41"
        );
        assert_eq!(
            encode_url("http://[::1]:80/a[1]"),
            "http://[::1]:80/a%5B1%5D"
        );
        assert_eq!(encode_url("my file.md#x y"), "my%20file.md#x%20y");
        assert_eq!(encode_url("a[b].md"), "a%5Bb%5D.md");
    }

    #[test]
    fn links_to_hosts_no_url_parser_takes_are_removed() {
        for good in [
            "https://example.com/a",
            "http://example.com.",
            "https://user@例子.测试:8080/x?q#f",
            "http://[::1]/",
            "https://a_b.example/",
        ] {
            assert!(valid_host(good), "{good}");
        }
        for bad in [
            "https://../",
            "https://",
            "http://a..b/",
            "http://.x/",
            "http://a b/",
            "http://[]/",
        ] {
            assert!(!valid_host(bad), "{bad}");
        }
        assert!(matches!(classify_href("https://../"), Href::Drop(_)));
    }
}
