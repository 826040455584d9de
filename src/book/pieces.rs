//! Splitting a large chapter into several documents at paragraph boundaries.
//!
//! Readers (Kobo, older Kindles, e-ink devices) slow down badly on content documents of
//! several hundred KB, so the packager cuts a chapter body that is larger than
//! `[layout] split-size` between top-level elements: never inside a paragraph or any other
//! element, so every piece is well-formed on its own.
//!
//! A link to an id of the chapter then may point into another piece: [`anchors`] records which
//! piece holds each id (past the first), and [`link_across`] rewrites such links, within the
//! chapter (`#id`) and from other chapters (`chapter-0007.xhtml#id`), to the right document.
//! Bodies are our own serialised XHTML: `<` and `>` only ever open and close tags, and attribute
//! values are double-quoted, so tags can be read without a parser.

use std::borrow::Cow;

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

/// The tags of a body fragment, in order: the text between `<` and `>`.
fn tags(body: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    std::iter::from_fn(move || {
        // memchr's search, vectorised, over a body that is mostly text between its tags.
        let open = at + memchr::memchr(b'<', body.as_bytes().get(at..)?)?;
        let close = open + memchr::memchr(b'>', body.as_bytes().get(open..)?)?;
        at = close + 1;
        Some((open, body.get(open..=close)?))
    })
}

/// The value of attribute `name` in a tag, and where it starts in the tag.
fn attribute<'t>(tag: &'t str, name: &str) -> Option<(usize, &'t str)> {
    // The first ` name="` in the tag, found without building that string.
    let bytes = tag.as_bytes();
    let mut from = 0;
    let start = loop {
        let at = from + tag.get(from..)?.find(name)?;
        let end = at + name.len();
        if at > 0 && bytes[at - 1] == b' ' && bytes.get(end..end + 2) == Some(b"=\"") {
            break end + 2;
        }
        from = at + 1;
    };
    let len = tag.get(start..)?.find('"')?;
    Some((start, tag.get(start..start + len)?))
}

/// Which piece holds each id that is not in the first piece: `(id, piece)`, sorted by id.
pub(crate) fn anchors(pieces: &[&str]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (i, piece) in pieces.iter().enumerate().skip(1) {
        for (_, tag) in tags(piece) {
            if let Some((_, id)) = attribute(tag, "id") {
                out.push((id.to_string(), i));
            }
        }
    }
    // Ids are unique in a body; should one repeat, its first piece wins.
    out.sort();
    out.dedup_by(|b, a| a.0 == b.0);
    out
}

/// The piece that holds `id`, given a chapter's [`anchors`]: 0 when it is not past the first.
pub(crate) fn piece_of(anchors: &[(String, usize)], id: &str) -> usize {
    anchors
        .binary_search_by(|(a, _)| a.as_str().cmp(id))
        .ok()
        .and_then(|i| anchors.get(i))
        .map_or(0, |(_, piece)| *piece)
}

/// Rewrites the links of one piece of a body. `retarget(chapter, id)` gets each link to an id,
/// with the chapter file number of `chapter-NNNN.xhtml#id` links (None for `#id`), and returns
/// the href to write instead, or None to keep it.
pub(crate) fn link_across<'b>(
    body: &'b str,
    retarget: &dyn Fn(Option<usize>, &str) -> Option<String>,
) -> Cow<'b, str> {
    rewrite_hrefs(body, &mut |href| {
        let (file, id) = href.split_once('#')?;
        let chapter = match file {
            "" => None,
            f => Some(chapter_number(f)?),
        };
        retarget(chapter, id).map(Href::To)
    })
}

/// What becomes of a link's target in [`rewrite_hrefs`].
pub(crate) enum Href {
    /// Point it here instead.
    To(String),
    /// Take the `href` away: the link's text stays, as plain text.
    Remove,
}

/// Rewrites the `href` of every element of a body: `f` gets each one as written (unescaped)
/// and says what to do, None to keep it. Text is never touched, whatever it shows: a code
/// span reading `<a href="two.md">` holds `&lt;a href=…`, never a tag.
pub(crate) fn rewrite_hrefs<'b>(
    body: &'b str,
    f: &mut dyn FnMut(&str) -> Option<Href>,
) -> Cow<'b, str> {
    if !body.contains(" href=\"") {
        return Cow::Borrowed(body);
    }
    let mut out = String::new();
    let mut copied = 0;
    for (at, tag) in tags(body) {
        let Some((start, href)) = attribute(tag, "href") else {
            continue;
        };
        let (from, to) = (at + start, at + start + href.len());
        match f(&unescape_attr(href)) {
            None => continue,
            Some(Href::To(new)) => {
                out.push_str(&body[copied..from]);
                out.push_str(&crate::xml::escape_attr(&new));
                copied = to;
            }
            Some(Href::Remove) => {
                // ` href="` before the value and `"` after it go with it.
                out.push_str(&body[copied..from - " href=\"".len()]);
                copied = to + 1;
            }
        }
    }
    if copied == 0 {
        return Cow::Borrowed(body);
    }
    out.push_str(&body[copied..]);
    Cow::Owned(out)
}

/// The level of a heading tag (`<h3 id="x">` or `</h3>`): 1 to 6.
fn heading_tag_level(tag: &str) -> Option<usize> {
    let name = tag.trim_start_matches('<').trim_start_matches('/');
    let rest = name.strip_prefix('h')?;
    let digit = rest.chars().next()?.to_digit(10)?;
    let after = rest.get(1..)?;
    let ends = after.starts_with([' ', '>', '/']);
    ((1..=6).contains(&digit) && ends).then_some(digit as usize)
}

/// A continuation piece of a chapter split for size, its headings moved up so that the first
/// is an `h2`, none above it: a document whose headings start at `h3` skips a level (what
/// Ace's heading-order rule reports), while the outline inside the piece is kept. The table
/// of contents keeps the chapter's own levels.
pub(crate) fn headings_from_h2(body: &str) -> Cow<'_, str> {
    let Some(first) = tags(body).find_map(|(_, tag)| heading_tag_level(tag)) else {
        return Cow::Borrowed(body);
    };
    if first <= 2 {
        return Cow::Borrowed(body);
    }
    let shift = first - 2;
    let mut out = String::with_capacity(body.len());
    let mut copied = 0;
    for (at, tag) in tags(body) {
        let Some(level) = heading_tag_level(tag) else {
            continue;
        };
        // The digit is right after `<h` or `</h`.
        let digit = at + tag.find('h').unwrap_or(0) + 1;
        out.push_str(&body[copied..digit]);
        out.push_str(&level.saturating_sub(shift).max(2).to_string());
        copied = digit + 1;
    }
    out.push_str(&body[copied..]);
    Cow::Owned(out)
}

/// How the id of an empty chapter's heading begins, when the heading is in the body of the
/// first of a run of empty chapters (`convert::empty_runs`): such an `h1` is a chapter of its
/// own in the table of contents, beside the one whose document holds it.
pub(crate) const EMPTY_CHAPTER_ID: &str = "epubforge-empty-";

/// The headings of a body that have an id, in order: `h2` to `h6` (the chapter's own `h1` is
/// not in the body), with their text, and the `h1` of an empty chapter ([`EMPTY_CHAPTER_ID`])
/// at level 1. A footnote mark inside a heading is not part of it.
pub(crate) fn sections(body: &str) -> Vec<super::Section> {
    (headings(body).into_iter())
        .filter(|(_, s)| s.level > 1 || s.id.starts_with(EMPTY_CHAPTER_ID))
        .map(|(_, s)| s)
        .collect()
}

/// Every heading (`h1` to `h6`) of a body that has an id, in order, as a section (its id as
/// written, its text without footnote marks, the white space folded), with where its start
/// tag is.
pub(crate) fn headings(body: &str) -> Vec<(usize, super::Section)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, usize, String, String)> = None;
    let mut in_note = false;
    let mut after = 0;
    for (at, tag) in tags(body) {
        if let Some((_, _, _, text)) = open.as_mut()
            && !in_note
        {
            text.push_str(&unescape_attr(body.get(after..at).unwrap_or("")));
        }
        after = at + tag.len();
        match &open {
            None => {
                if let Some(level) = heading_start_level(tag)
                    && let Some((_, id)) = attribute(tag, "id")
                {
                    open = Some((at, level, id.to_string(), String::new()));
                }
            }
            Some((_, l, _, _)) => {
                if tag.starts_with("<a ") && tag.contains("epub:type=\"noteref\"") {
                    in_note = true;
                } else if in_note && tag == "</a>" {
                    in_note = false;
                } else if tag == format!("</h{l}>") {
                    let (start, level, id, text) = open.take().unwrap_or_default();
                    let title = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    out.push((start, super::Section { level, id, title }));
                }
            }
        }
    }
    out
}

/// The level of a heading's start tag (`<h3 id="x">`): 1 to 6.
fn heading_start_level(tag: &str) -> Option<usize> {
    let b = tag.as_bytes();
    (b.len() > 3 && b.get(1) == Some(&b'h') && matches!(b.get(2), Some(b'1'..=b'6')))
        .then(|| usize::from(b[2] - b'0'))
        .filter(|_| matches!(b.get(3), Some(b' ' | b'>')))
}

/// The ids of a body's elements, each with where its element's start tag is (the first, should
/// one repeat).
pub(crate) fn ids(body: &str) -> std::collections::HashMap<&str, usize> {
    let mut out = std::collections::HashMap::new();
    for (at, tag) in tags(body) {
        if let Some((_, id)) = attribute(tag, "id") {
            out.entry(id).or_insert(at);
        }
    }
    out
}

/// An attribute value as written by `xml::escape_attr`, unescaped.
fn unescape_attr(v: &str) -> Cow<'_, str> {
    if !v.contains('&') {
        return Cow::Borrowed(v);
    }
    Cow::Owned(
        v.replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

/// `n` for `chapter-NNNN.xhtml`, the first document of a chapter.
pub(crate) fn chapter_number(file: &str) -> Option<usize> {
    let digits = file.strip_prefix("chapter-")?.strip_suffix(".xhtml")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_continuation_s_headings_start_at_h2_and_keep_their_steps() {
        let body =
            "<p>x</p><h3 id=\"a\">A</h3><h4>B <em>b</em></h4><h3>C</h3><hr/><header>h</header>";
        assert_eq!(
            headings_from_h2(body),
            "<p>x</p><h2 id=\"a\">A</h2><h3>B <em>b</em></h3><h2>C</h2><hr/><header>h</header>"
        );
        // Deeper first, shallower later: none above h2.
        assert_eq!(
            headings_from_h2("<h4>a</h4><h3>b</h3><h2>c</h2>"),
            "<h2>a</h2><h2>b</h2><h2>c</h2>"
        );
        let fine = "<h2>a</h2><h3>b</h3>";
        assert!(matches!(headings_from_h2(fine), Cow::Borrowed(_)));
    }

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

    #[test]
    fn anchors_name_the_piece_of_each_id_past_the_first() {
        let pieces = [
            "<p id=\"a\">x</p>\n",
            "<p id=\"c\">y <span id=\"b\">z</span></p>\n",
            "<p>id=\"in-text\"</p><p id=\"d\">w</p>\n",
        ];
        let anchors = anchors(&pieces);
        let expected = [("b", 1), ("c", 1), ("d", 2)].map(|(id, n)| (id.to_string(), n));
        assert_eq!(anchors, expected);
        assert_eq!(piece_of(&anchors, "c"), 1);
        assert_eq!(piece_of(&anchors, "d"), 2);
        assert_eq!(piece_of(&anchors, "a"), 0);
        assert_eq!(piece_of(&anchors, "in-text"), 0);
    }

    #[test]
    fn an_attribute_is_the_first_written_with_its_whole_name() {
        let tags = [
            ("<a xid=\"1\" id=\"2\">", Some((15, "2"))),
            ("<p id=\"x\">", Some((7, "x"))),
            ("<p data-id=\"x\" id = \"y\">", None),
            ("<p id=\"\" id=\"z\">", Some((7, ""))),
            ("<pid=\"x\">", None),
            ("<p  id=\"open", None),
        ];
        for (tag, want) in tags {
            assert_eq!(attribute(tag, "id"), want, "{tag}");
        }
    }

    #[test]
    fn sections_are_the_headings_with_ids() {
        let body = "<p>a</p><h2 id=\"one\">One &amp; <code>Two</code><sup><a epub:type=\"noteref\" href=\"#n\">1</a></sup></h2>\
                    <h3>no id</h3><h3 id=\"x\" class=\"c\">Deep\n  er</h3><h1 id=\"t\">not</h1>";
        let got: Vec<(usize, String, String)> = sections(body)
            .into_iter()
            .map(|s| (s.level, s.id, s.title))
            .collect();
        assert_eq!(
            got,
            [
                (2, "one".to_string(), "One & Two".to_string()),
                (3, "x".to_string(), "Deep er".to_string())
            ]
        );
    }

    #[test]
    fn links_are_retargeted_in_tags_only() {
        let body = "<p>a href=\"#x\" in text</p><p><a href=\"#x\">in</a> \
                    <a href=\"chapter-0012.xhtml#y\">out</a> <a href=\"https://e.org/#x\">web</a> \
                    <a href=\"chapter-0012.xhtml\">top</a></p>";
        let out = link_across(body, &|chapter, id| Some(format!("{chapter:?}&{id}")));
        assert_eq!(
            out,
            "<p>a href=\"#x\" in text</p><p><a href=\"None&amp;x\">in</a> \
             <a href=\"Some(12)&amp;y\">out</a> <a href=\"https://e.org/#x\">web</a> \
             <a href=\"chapter-0012.xhtml\">top</a></p>"
        );
        let same = link_across(body, &|_, _| None);
        assert!(matches!(same, Cow::Borrowed(_)));
    }
}
