//! Kindle: an EPUB that Send-to-Kindle's converter (and calibre, for AZW3) takes as it is.
//! Amazon's converter rejects or garbles a few constructs that EPUBCheck accepts: tables of
//! contents deeper than two levels (flattened by the package stage, [`TOC_DEPTH`]), images
//! with an empty `alt` (given their file name), and CSS custom properties (declarations that
//! define or use one are dropped, so the rule keeps its other declarations).

/// How deep a Kindle table of contents may nest.
pub(crate) const TOC_DEPTH: usize = crate::book::KINDLE_TOC_DEPTH;

/// A content document with every empty `alt` filled in; None when it has none.
pub(crate) fn alts(doc: &str) -> Option<String> {
    const EMPTY: &str = " alt=\"\"";
    if !doc.contains(EMPTY) {
        return None;
    }
    let mut out = String::with_capacity(doc.len() + 64);
    let mut rest = doc;
    while let Some(at) = rest.find(EMPTY) {
        let tag_start = rest[..at].rfind('<').unwrap_or(0);
        let tag_end = rest[at..].find('>').map_or(rest.len(), |i| at + i);
        let tag = &rest[tag_start..tag_end];
        out.push_str(&rest[..at]);
        if tag.starts_with("<img") {
            let name = attribute(tag, "src").map_or("image", file_stem);
            out.push_str(" alt=\"");
            out.push_str(name);
            out.push('"');
        } else {
            out.push_str(EMPTY);
        }
        rest = &rest[at + EMPTY.len()..];
    }
    out.push_str(rest);
    Some(out)
}

/// The value of attribute `name` in a start tag (as we write them: double quotes).
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

/// `images/the-map.png` -> `the-map` (already escaped as the attribute it came from); the
/// names we give images (`img-` and a hash) say nothing: `image`.
fn file_stem(src: &str) -> &str {
    let name = src.rsplit('/').next().unwrap_or(src);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let hashed = stem
        .strip_prefix("img-")
        .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()));
    if stem.is_empty() || hashed {
        "image"
    } else {
        stem
    }
}

/// A stylesheet without CSS custom properties; None when it has none.
pub(crate) fn no_custom_properties(css: &str) -> Option<String> {
    if !css.contains("--") {
        return None;
    }
    let mut out = String::with_capacity(css.len());
    let mut changed = false;
    // Declarations end at `;` or `}`; a custom property's name starts with `--`, its use is
    // `var(--…)`. Strings and comments holding `;` are rare enough in our sheets, and user
    // sheets were cleaned and re-serialised (one declaration per `;`) before this.
    let mut rest = css;
    while !rest.is_empty() {
        let end = rest.find([';', '{', '}']).map_or(rest.len(), |i| i + 1);
        let piece = &rest[..end];
        let decl = piece.trim_end_matches([';', '{', '}']);
        let custom = !piece.ends_with('{')
            && (decl.trim_start().starts_with("--") || decl.contains("var(--"));
        if custom {
            changed = true;
            if piece.ends_with('}') {
                out.push('}');
            }
        } else {
            out.push_str(piece);
        }
        rest = &rest[end..];
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_alts_get_the_file_name() {
        let doc = "<p><img src=\"images/the-map.png\" alt=\"\"/><img alt=\"x\" src=\"a.png\"/></p>";
        assert_eq!(
            alts(doc).unwrap(),
            "<p><img src=\"images/the-map.png\" alt=\"the-map\"/><img alt=\"x\" src=\"a.png\"/></p>"
        );
        assert_eq!(alts("<p>no images</p>"), None);
        let ours = alts("<img src=\"../images/img-ac7ad3760fba.jpg\" alt=\"\"/>").unwrap();
        assert_eq!(
            ours,
            "<img src=\"../images/img-ac7ad3760fba.jpg\" alt=\"image\"/>"
        );
    }

    #[test]
    fn custom_properties_are_dropped_with_their_uses() {
        let css = ":root { --ink: #333; }\np { color: var(--ink); margin: 0 }\nh1 { a: b; --x: 1 }";
        assert_eq!(
            no_custom_properties(css).unwrap(),
            ":root { }\np { margin: 0 }\nh1 { a: b;}"
        );
        assert_eq!(no_custom_properties("p { margin: 0 }"), None);
    }
}
