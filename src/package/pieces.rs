//! Splitting a large chapter into several documents at paragraph boundaries.
//!
//! Readers (Kobo, older Kindles, e-ink devices) slow down badly on content documents of
//! several hundred KB, so the packager cuts a chapter body that is larger than
//! `[layout] split-size` between top-level elements: never inside a paragraph or any other
//! element, so every piece is well-formed on its own.

/// Cuts `body` (an XHTML fragment) into pieces of at most about `limit` bytes, at the ends of
/// top-level elements. A single element larger than `limit` stays whole. Always returns at
/// least one piece; the pieces concatenated give `body` back.
pub(crate) fn split_body(body: &str, limit: usize) -> Vec<&str> {
    if body.len() <= limit {
        return vec![body];
    }
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut last_boundary = None;
    for boundary in boundaries(body) {
        if boundary - start > limit
            && let Some(b) = last_boundary
            && b > start
        {
            pieces.push(&body[start..b]);
            start = b;
        }
        last_boundary = Some(boundary);
    }
    if start < body.len() {
        pieces.push(&body[start..]);
    }
    if pieces.is_empty() {
        pieces.push(body);
    }
    pieces
}

/// Byte offsets just after each top-level element ends (and the newline after it), in order.
/// The last one is `body.len()` when the fragment ends at top level.
fn boundaries(body: &str) -> Vec<usize> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut depth: usize = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'<') {
            i += 1;
            continue;
        }
        let rest = &body[i..];
        let (len, delta) = if rest.starts_with("<!--") {
            (rest.find("-->").map_or(rest.len(), |e| e + 3), 0)
        } else if rest.starts_with("<![CDATA[") {
            (rest.find("]]>").map_or(rest.len(), |e| e + 3), 0)
        } else {
            let end = rest.find('>').map_or(rest.len(), |e| e + 1);
            let tag = &rest[..end];
            let delta = if tag.starts_with("</") {
                -1
            } else if tag.ends_with("/>") || tag.starts_with("<?") || tag.starts_with("<!") {
                0
            } else {
                1
            };
            (end, delta)
        };
        i += len;
        match delta {
            1 => depth += 1,
            -1 => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth == 0 && delta != 1 {
            while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
                i += 1;
            }
            out.push(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_bodies_stay_whole() {
        assert_eq!(split_body("<p>a</p>\n", 100), ["<p>a</p>\n"]);
    }

    #[test]
    fn large_bodies_split_between_paragraphs_under_the_limit() {
        let para = format!("<p>{}</p>\n", "字".repeat(100));
        let body = para.repeat(50);
        let pieces = split_body(&body, 2000);
        assert!(pieces.len() > 1);
        assert_eq!(pieces.concat(), body);
        for p in &pieces {
            assert!(p.len() <= 2000, "{}", p.len());
            assert!(p.starts_with("<p>") && p.ends_with("</p>\n"));
        }
    }

    #[test]
    fn nested_elements_are_never_cut() {
        let block = format!(
            "<blockquote><p>{}</p><p>b<br/>c</p></blockquote>\n<!-- x -->\n",
            "x".repeat(50)
        );
        let body = block.repeat(20);
        let pieces = split_body(&body, 300);
        assert_eq!(pieces.concat(), body);
        for p in pieces {
            assert_eq!(
                p.matches("<blockquote>").count(),
                p.matches("</blockquote>").count(),
                "{p}"
            );
        }
    }

    #[test]
    fn one_huge_element_stays_whole() {
        let body = format!("<p>{}</p>", "x".repeat(5000));
        assert_eq!(split_body(&body, 100), [body.as_str()]);
    }
}
