//! "Meaning kept": our chapter body and the spec's expected HTML, both parsed as HTML5
//! fragments and written out canonically, compare equal. What the canonical form leaves out is
//! what a book cannot or need not keep the same (tests/suites/README.md explains each):
//! - comments, doctypes and processing instructions;
//! - white space outside `pre`: runs collapsed to one space, and none next to block tags;
//! - heading levels made relative (the chapter title is the book's `h1`, so a Markdown `#`
//!   may become `h2`, and the book skips no level): on each side the highest level becomes
//!   `h1` and none goes more than one below the heading before it, as the book does;
//! - `id` on headings and the ids we generate (`epubforge-…`: the text labelling a task-list
//!   checkbox); `epub:type`, `role` and `aria-*` (footnote markup); highlighting spans
//!   (`<span class="hl-…">`) and the spans of a task's label (`<span id="epubforge-…">`) are
//!   unwrapped;
//! - an image's `src` (ours points at the book's copy) and an empty `alt`;
//! - a link's target unless it is an absolute URL (a book cannot point at `/url` or `foo`),
//!   and absolute ones compared percent-decoded; white space inside `class` values;
//! - `align="x"` on table cells read as `style="text-align: x"`, boolean attributes' values.

use scraper::{ElementRef, Html, Node};

/// The canonical form of an HTML fragment.
pub fn canonical(html: &str) -> String {
    let doc = Html::parse_fragment(html);
    let mut out = Vec::new();
    write_children(doc.root_element(), &mut out, false);
    let mut s = out.concat();
    s = shift_headings(&s);
    trim_around_blocks(&s)
}

fn write_children(el: ElementRef<'_>, out: &mut Vec<String>, in_pre: bool) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) if in_pre => out.push(escape(t, false)),
            Node::Text(t) => {
                let collapsed: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
                let lead = t.starts_with(char::is_whitespace) && !collapsed.is_empty();
                let trail = t.ends_with(char::is_whitespace);
                let mut s = String::new();
                if lead || (collapsed.is_empty() && !t.is_empty()) {
                    s.push(' ');
                }
                s.push_str(&escape(&collapsed, false));
                if trail && !collapsed.is_empty() {
                    s.push(' ');
                }
                out.push(s);
            }
            Node::Element(_) => {
                let e = ElementRef::wrap(child).expect("element");
                write_element(e, out, in_pre);
            }
            _ => {}
        }
    }
}

fn write_element(e: ElementRef<'_>, out: &mut Vec<String>, in_pre: bool) {
    let v = e.value();
    let name = v.name();
    let ours = v.attr("class").is_some_and(|c| c.starts_with("hl-"))
        || v.attr("id").is_some_and(|id| id.starts_with("epubforge-"));
    if name == "span" && ours {
        write_children(e, out, in_pre);
        return;
    }
    let mut attrs: Vec<(String, String)> = v
        .attrs()
        .filter_map(|(k, val)| attribute(name, k, val))
        .collect();
    attrs.sort();
    let mut tag = format!("<{name}");
    for (k, val) in attrs {
        tag.push_str(&format!(" {k}=\"{}\"", escape(&val, true)));
    }
    tag.push('>');
    out.push(tag);
    if matches!(name, "br" | "hr" | "img" | "input" | "col" | "wbr") {
        return;
    }
    write_children(e, out, in_pre || name == "pre");
    out.push(format!("</{name}>"));
}

/// An attribute as compared, or None when it is left out.
fn attribute(element: &str, key: &str, value: &str) -> Option<(String, String)> {
    let heading = element.len() == 2 && element.starts_with('h') && element != "hr";
    match key {
        "id" if heading || value.starts_with("epubforge-") => None,
        "role" | "epub:type" => None,
        k if k.starts_with("aria-") => None,
        "src" if element == "img" => Some((key.into(), "*".into())),
        "alt" if value.is_empty() => None,
        "href" => href(value).map(|h| (key.into(), h)),
        "class" => Some((
            key.into(),
            value.split_whitespace().collect::<Vec<_>>().join(" "),
        )),
        "align" if matches!(element, "td" | "th") => {
            Some(("style".into(), format!("text-align: {value}")))
        }
        "disabled" | "checked" => Some((key.into(), String::new())),
        _ => Some((key.to_string(), value.to_string())),
    }
}

/// Absolute URLs compared percent-decoded; other targets not at all (nor whether a link has
/// one: a book drops a link to a file it does not hold, keeping the text).
fn href(value: &str) -> Option<String> {
    let scheme = value.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    });
    scheme.then(|| percent_decode(value))
}

/// `%XX` decoded (bytes that are not UTF-8 shown as U+FFFD).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn escape(s: &str, attr: bool) -> String {
    let s = s
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    if attr { s.replace('"', "&quot;") } else { s }
}

/// Heading levels made relative: the highest becomes `h1`, and none goes more than one below
/// the heading before it.
fn shift_headings(s: &str) -> String {
    let re = regex::Regex::new(r"<(/?)h([1-6])\b").unwrap();
    let level = |c: &regex::Captures<'_>| c[2].parse::<i32>().unwrap();
    let Some(base) = re.captures_iter(s).map(|c| level(&c)).min() else {
        return s.to_string();
    };
    let mut before = 0;
    let mut opened = Vec::new();
    re.replace_all(s, |c: &regex::Captures<'_>| {
        if &c[1] == "/" {
            let l = opened.pop().unwrap_or(1);
            return format!("</h{l}");
        }
        before = (level(c) - base + 1).min(before + 1);
        opened.push(before);
        format!("<h{before}")
    })
    .into_owned()
}

/// No white space next to a block tag (outside `pre`, where the writer kept it as it is).
fn trim_around_blocks(s: &str) -> String {
    let re = regex::Regex::new(
        r"\s*(</?(?:p|li|ul|ol|blockquote|h[1-6]|table|thead|tbody|tr|td|th|hr|div|dl|dt|dd|section|aside|figure|figcaption)\b[^>]*>)\s*",
    )
    .unwrap();
    let spaces = regex::Regex::new(r"\s+").unwrap();
    let outside = |text: &str| {
        re.replace_all(&spaces.replace_all(text, " "), "$1")
            .into_owned()
    };
    // `pre` content is protected: split on it and normalise the rest only.
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find("<pre") {
        let end = rest[start..]
            .find("</pre>")
            .map_or(rest.len(), |e| start + e + 6);
        out.push_str(&outside(&rest[..start]));
        out.push_str(&rest[start..end]);
        rest = &rest[end..];
    }
    out.push_str(&outside(rest));
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_ignores_what_a_book_changes() {
        assert_eq!(
            canonical("<h2 id=\"x\">A</h2>\n<p>b <span class=\"hl-k\">c</span></p>"),
            canonical("<h1>A</h1><p>b c</p>")
        );
        assert_ne!(canonical("<p>a</p>"), canonical("<p>b</p>"));
        assert_eq!(
            canonical("<a href=\"http://x.org/%5B\">x</a><a href=\"foo\">y</a>"),
            canonical("<a href=\"http://x.org/[\">x</a><a href=\"../text/a.xhtml\">y</a>")
        );
    }
}
