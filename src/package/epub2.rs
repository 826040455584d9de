//! EPUB 2.0.1 output (`[output] epub-version = 2`) for old devices: an OPF 2.0 package document
//! with `opf:role`/`opf:file-as` attributes, the NCX as the table of contents, a guide, and
//! content documents downgraded to XHTML 1.1 (no HTML5 sectioning elements, no `epub:type`,
//! ARIA or other attributes XHTML 1.1 does not define).

use std::fmt::Write;
use std::sync::LazyLock;

use regex::Regex;

use super::{Book, Doc, Look, opf};
use crate::xml::{escape_attr as attr, escape_text as text};

/// Writes the OPF 2.0 `package.opf`.
pub(super) fn package_document(book: &Book, look: &Look, docs: &[Doc]) -> String {
    let info = &book.info;
    let mut o = String::with_capacity(4096 + docs.len() * 160);
    let _ = write!(
        o,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="book-id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
"#
    );
    dublin_core(&mut o, book);
    if let Some(series) = &info.series {
        opf::calibre_series(&mut o, series);
    }
    if book.cover.is_some() {
        o.push_str("    <meta name=\"cover\" content=\"cover-image\"/>\n");
    }
    o.push_str("  </metadata>\n  <manifest>\n");
    opf::manifest_common(&mut o, book, look, docs, true);
    o.push_str("  </manifest>\n  <spine toc=\"ncx\">\n");
    if book.cover.is_some() {
        o.push_str("    <itemref idref=\"cover\" linear=\"yes\"/>\n");
    }
    for doc in docs {
        let linear = if doc.linear() { "" } else { " linear=\"no\"" };
        let _ = writeln!(o, "    <itemref idref=\"{}\"{linear}/>", doc.id);
    }
    o.push_str("  </spine>\n");
    opf::guide(&mut o, book, docs, None);
    o.push_str("</package>\n");
    o
}

/// The Dublin Core elements, with OPF 2.0's attributes for identifier scheme, roles, sort
/// names and date events.
fn dublin_core(o: &mut String, book: &Book) {
    let info = &book.info;
    let scheme = match info.identifier.split(':').nth(1) {
        Some(s) if info.identifier.starts_with("urn:") => {
            format!(" opf:scheme=\"{}\"", attr(&s.to_ascii_uppercase()))
        }
        _ => " opf:scheme=\"URI\"".to_string(),
    };
    let _ = writeln!(
        o,
        "    <dc:identifier id=\"book-id\"{scheme}>{}</dc:identifier>",
        text(&info.identifier)
    );
    let _ = writeln!(o, "    <dc:title>{}</dc:title>", text(&info.title));
    let _ = writeln!(o, "    <dc:language>{}</dc:language>", text(&info.language));
    for (element, people) in [
        ("creator", &info.authors),
        ("contributor", &info.contributors),
    ] {
        for p in people {
            let file_as = p
                .file_as
                .as_ref()
                .map(|f| format!(" opf:file-as=\"{}\"", attr(f)))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "    <dc:{element} opf:role=\"{}\"{file_as}>{}</dc:{element}>",
                attr(&p.role),
                text(&p.name)
            );
        }
    }
    for (element, value) in [
        ("publisher", &info.publisher),
        ("description", &info.description),
        ("rights", &info.rights),
    ] {
        if let Some(v) = value {
            let _ = writeln!(o, "    <dc:{element}>{}</dc:{element}>", text(v));
        }
    }
    for s in &info.subjects {
        let _ = writeln!(o, "    <dc:subject>{}</dc:subject>", text(s));
    }
    if let Some(v) = &info.published {
        let _ = writeln!(
            o,
            "    <dc:date opf:event=\"publication\">{}</dc:date>",
            text(v)
        );
    }
    let _ = writeln!(
        o,
        "    <dc:date opf:event=\"modification\">{}</dc:date>",
        text(book.modified.get(..10).unwrap_or(&book.modified))
    );
}

/// HTML5 elements XHTML 1.1 lacks, and what they become.
static BLOCKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<(/?)(?:section|article|aside|header|footer|nav|figure|figcaption|main|details|summary)\b")
        .expect("valid regex")
});
static INLINES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<(/?)(?:mark|time|data|bdi|wbr)\b").expect("valid regex"));
/// MathML, which OPS 2.0.1 content documents cannot carry: what the reader gets instead is its
/// text (its `alttext` when it has one).
static MATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?s)<math\b([^>]*)>(.*?)</math>"#).expect("valid regex"));
static ALTTEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\salttext="([^"]*)""#).expect("valid regex"));
static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[^>]*>").expect("valid regex"));
/// A task list's checkbox (XHTML 1.1 has no forms in OPS 2): a ballot box character.
static CHECKBOX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"<input type="checkbox"( checked="")?[^>]*/>"#).expect("valid regex")
});
/// Attributes XHTML 1.1 does not define, inside a start tag.
static ATTRIBUTES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\s(?:epub:type|role|aria-[a-z]+|hidden|lang|datetime|data-[a-z0-9-]+)="[^"]*""#)
        .expect("valid regex")
});

/// Rewrites an XHTML5 body fragment into XHTML 1.1: sectioning elements become `div`, HTML5
/// inline elements `span`, and attributes XHTML 1.1 lacks are dropped (`lang` becomes
/// `xml:lang`'s job, which is kept).
pub(super) fn downgrade(body: &str) -> String {
    let body = MATH.replace_all(body, |c: &regex::Captures<'_>| {
        let text = match ALTTEXT.captures(&c[1]) {
            Some(alt) => alt[1].to_string(),
            None => TAG
                .replace_all(&c[2], " ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        };
        format!("<span class=\"math\">{text}</span>")
    });
    let body = CHECKBOX.replace_all(&body, |c: &regex::Captures<'_>| {
        if c.get(1).is_some() {
            "\u{2611}"
        } else {
            "\u{2610}"
        }
    });
    let body = BLOCKS.replace_all(&body, "<${1}div");
    let body = INLINES.replace_all(&body, "<${1}span");
    // Only inside tags: text never has `name="..."` after a space and inside `<...>`, but we
    // still restrict the attribute pass to tag text to be safe.
    let mut out = String::with_capacity(body.len());
    let mut rest: &str = &body;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let end = rest[open..].find('>').map_or(rest.len(), |e| open + e + 1);
        out.push_str(&ATTRIBUTES.replace_all(&rest[open..end], ""));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html5_markup_becomes_xhtml11() {
        let got = downgrade(
            "<section epub:type=\"chapter\" role=\"doc-chapter\" aria-labelledby=\"t\">\n<h1 id=\"t\">A</h1><p>x=\"1\" <mark>y</mark></p></section>",
        );
        assert_eq!(
            got,
            "<div>\n<h1 id=\"t\">A</h1><p>x=\"1\" <span>y</span></p></div>"
        );
    }

    #[test]
    fn mathml_and_checkboxes_become_text() {
        let got = downgrade(
            "<p><math xmlns=\"http://www.w3.org/1998/Math/MathML\"><mi>x</mi><mo>+</mo><mn>1</mn></math> \
             <math xmlns=\"http://www.w3.org/1998/Math/MathML\" alttext=\"y &lt; 2\"><mi>y</mi></math></p>\
             <ul><li><input type=\"checkbox\" checked=\"\" disabled=\"\"/> a</li><li><input type=\"checkbox\" disabled=\"\"/> b</li></ul>",
        );
        assert_eq!(
            got,
            "<p><span class=\"math\">x + 1</span> <span class=\"math\">y &lt; 2</span></p><ul><li>\u{2611} a</li><li>\u{2610} b</li></ul>"
        );
    }
}
