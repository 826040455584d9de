//! Turning hrefs found in OPF, nav, NCX and XHTML into zip entry names.
//!
//! EPUB hrefs are URLs relative to the file that holds them; zip entries are plain paths from
//! the container root. Percent-decoding and `..` resolution happen here, once.

/// Percent-decode a URL path or fragment; malformed escapes are kept as written.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(v) = hex {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether the href names something outside the container (`http:`, `mailto:`, ...).
pub(crate) fn is_external(href: &str) -> bool {
    let mut chars = href.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    for c in chars {
        if c == ':' {
            return true;
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) {
            return false;
        }
    }
    false
}

/// The folder part of an entry name, with its trailing slash (`""` at the root).
pub(crate) fn dir_of(entry: &str) -> &str {
    match memchr::memrchr(b'/', entry.as_bytes()) {
        Some(i) => &entry[..=i],
        None => "",
    }
}

/// An href inside the container, resolved to an entry name plus an optional fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// The entry the href points to (may not exist; may start with `../` if it climbs out).
    pub path: String,
    /// The decoded fragment, without `#`.
    pub fragment: Option<String>,
}

/// Resolve `href` found in `base_entry`; `None` for external URLs. An href already normal
/// (no `%`, no empty, `.` or `..` segment: most) costs one allocation, its entry name.
pub(crate) fn resolve(base_entry: &str, href: &str) -> Option<Resolved> {
    let href = href.trim();
    if is_external(href) {
        return None;
    }
    let (rest, fragment) = match memchr::memchr(b'#', href.as_bytes()) {
        Some(at) => (&href[..at], Some(percent_decode(&href[at + 1..]))),
        None => (href, None),
    };
    let path_part = match memchr::memchr(b'?', rest.as_bytes()) {
        Some(at) => &rest[..at],
        None => rest,
    };
    let path = if path_part.is_empty() {
        base_entry.to_string()
    } else if let Some(abs) = path_part.strip_prefix('/') {
        normalized(percent_decode(abs))
    } else {
        let dir = dir_of(base_entry);
        let mut joined = String::with_capacity(dir.len() + path_part.len());
        joined.push_str(dir);
        match memchr::memchr(b'%', path_part.as_bytes()) {
            Some(_) => joined.push_str(&percent_decode(path_part)),
            None => joined.push_str(path_part),
        }
        normalized(joined)
    };
    Some(Resolved { path, fragment })
}

/// Resolve `href` found in `base_entry` whose document sets `<base href="base">`: relative
/// links then resolve against the base, not the entry. `None` when the base (or the href) is
/// external: every relative link of the document then leaves the container.
pub(crate) fn resolve_with_base(
    base_entry: &str,
    base: Option<&str>,
    href: &str,
) -> Option<Resolved> {
    match base.map(str::trim).filter(|b| !b.is_empty()) {
        None => resolve(base_entry, href),
        Some(_) if is_external(href.trim()) => None,
        Some(b) => {
            let base = resolve(base_entry, b)?;
            // A base naming a folder (`text/`) keeps its slash, so links resolve inside it.
            let base_path = if b.split(['#', '?']).next().is_some_and(|p| p.ends_with('/')) {
                format!("{}/x", base.path)
            } else {
                base.path
            };
            resolve(&base_path, href)
        }
    }
}

/// Whether a fragment can name an element by its id. Fragment schemes are not ids: media
/// fragments (`#xywh=…`, `#t=10,20`, `#track=…`: `name=value` pairs), scheme-based pointers
/// (`#epubcfi(…)`, `#svgView(…)`, `#xpointer(…)`), and text fragments (`#:~:text=`).
pub(crate) fn fragment_is_id(fragment: &str) -> bool {
    let name_end = fragment
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(fragment.len());
    let scheme = fragment[..name_end]
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && matches!(fragment[name_end..].chars().next(), Some('(' | '='));
    !(scheme || fragment.starts_with(":~:"))
}

/// [`normalize`], keeping `path` as it is when it has no empty, `.` or `..` segment (most
/// hrefs), so that nothing is allocated again.
fn normalized(path: String) -> String {
    match is_normal(&path) {
        true => path,
        false => normalize(&path),
    }
}

/// Whether no segment of `path` is empty, `.` or `..` (one pass over its bytes).
fn is_normal(path: &str) -> bool {
    let mut segments = path.as_bytes().split(|&b| b == b'/');
    !segments.any(|seg| matches!(seg, b"" | b"." | b".."))
}

/// Collapse `.` and `..` segments; `..` that climbs above the root is kept so the result
/// cannot accidentally name a real entry. Built in one string: the segments kept are joined
/// by `/` as they come, and a `..` cuts the last one off.
pub(crate) fn normalize(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut climbs = 0usize;
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => match out.rfind('/') {
                Some(at) => out.truncate(at),
                None if !out.is_empty() => out.clear(),
                None => climbs += 1,
            },
            s => {
                if !out.is_empty() {
                    out.push('/');
                }
                out.push_str(s);
            }
        }
    }
    if climbs > 0 {
        out.insert_str(0, &"../".repeat(climbs));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_decodes_percent_and_climbs_relative_to_base() {
        let r = resolve("EPUB/text/ch1.xhtml", "../images/a%20b.png#x%2Dy").unwrap();
        assert_eq!(r.path, "EPUB/images/a b.png");
        assert_eq!(r.fragment.as_deref(), Some("x-y"));
    }

    #[test]
    fn resolve_fragment_only_points_to_the_base_entry() {
        let r = resolve("EPUB/nav.xhtml", "#toc").unwrap();
        assert_eq!(r.path, "EPUB/nav.xhtml");
        assert_eq!(r.fragment.as_deref(), Some("toc"));
    }

    #[test]
    fn resolve_leaves_external_urls_alone() {
        assert!(resolve("a.xhtml", "https://example.org/x").is_none());
        assert!(resolve("a.xhtml", "mailto:me@example.org").is_none());
        assert!(resolve("a.xhtml", "c:d.xhtml").is_none());
        assert!(resolve("a.xhtml", "text/c:d.xhtml").is_some());
    }

    #[test]
    fn media_fragments_and_pointer_schemes_are_not_ids() {
        for f in [
            "xywh=percent:0,0,100,43.04",
            "xyn=percent:72.5,63.4",
            "t=10,20",
            "track=audio&t=5",
            "epubcfi(/6/4!/4/2)",
            "svgView(viewBox(0,0,10,10))",
            ":~:text=hello",
        ] {
            assert!(!fragment_is_id(f), "{f}");
        }
        for f in ["s1", "chapter-2", "a.b_c", "第一章", "_x", "1st"] {
            assert!(fragment_is_id(f), "{f}");
        }
    }

    #[test]
    fn base_href_changes_what_relative_links_resolve_against() {
        let base = Some("https://ja.wikipedia.org/wiki/Page");
        assert_eq!(resolve_with_base("OEBPS/a.xhtml", base, "/wiki/x"), None);
        assert_eq!(resolve_with_base("OEBPS/a.xhtml", base, "#note"), None);
        let r = resolve_with_base("OEBPS/a.xhtml", Some("../other/"), "b.xhtml#n").unwrap();
        assert_eq!(r.path, "other/b.xhtml");
        let r = resolve_with_base("OEBPS/a.xhtml", Some("text/c.xhtml"), "d.xhtml").unwrap();
        assert_eq!(r.path, "OEBPS/text/d.xhtml");
        let r = resolve_with_base("OEBPS/a.xhtml", None, "d.xhtml").unwrap();
        assert_eq!(r.path, "OEBPS/d.xhtml");
    }

    #[test]
    fn climbing_above_the_root_stays_visible() {
        assert_eq!(normalize("a/../../b"), "../b");
        assert_eq!(normalize("../a/./b//../../../c/"), "../../c");
    }

    /// The segments kept, as a list joined at the end (how `normalize` was first written).
    fn normalize_by_list(path: &str) -> String {
        let mut parts: Vec<&str> = Vec::new();
        let mut climbs = 0usize;
        for seg in path.split('/') {
            match seg {
                "" | "." => {}
                ".." if parts.pop().is_none() => climbs += 1,
                ".." => {}
                s => parts.push(s),
            }
        }
        "../".repeat(climbs) + &parts.join("/")
    }

    proptest::proptest! {
        /// Any path of short segments, dots and slashes is normalised as the list would.
        #[test]
        fn normalize_agrees_with_the_list_of_segments(path in "((\\.\\.|\\.|[ab]{0,2})/?){0,9}") {
            proptest::prop_assert_eq!(normalize(&path), normalize_by_list(&path));
        }
    }

    #[test]
    fn malformed_percent_escapes_are_kept() {
        assert_eq!(percent_decode("100%zz%4"), "100%zz%4");
        assert_eq!(percent_decode("%C3%A9"), "é");
    }
}
