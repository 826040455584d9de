//! Fixed-layout documents and their viewport (EPUB 3.3 §8.2.2 (`rendition:layout`) and
//! §8.3.1: an XHTML document laid out `pre-paginated` gives its initial containing block in a
//! `<meta name="viewport" content="width=…, height=…">`).
//!
//! [`pre_paginated`] finds the spine documents whose layout is fixed (the package default, or
//! their own itemref override); [`check_viewport`] checks one such document's viewport, as
//! EPUBCheck does (HTM-046, HTM-056, HTM-057, HTM-059).

use std::collections::HashSet;

use roxmltree::Document;

use crate::diagnostic::{Code, Diagnostic};

use super::finding::{self, Place};
use super::read::Package;
use super::xml::{attr, is, text_of};

/// The first `<meta name="viewport">` of an XHTML document: where it is and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Viewport {
    pub location: Place,
    pub content: String,
}

/// The XHTML spine documents laid out `pre-paginated`.
pub(crate) fn pre_paginated(doc: &Document, package: &Package) -> HashSet<String> {
    let root = doc.root_element();
    let global_fixed = root
        .children()
        .filter(|n| is(*n, "metadata"))
        .flat_map(|m| m.children().filter(|n| is(*n, "meta")))
        .any(|m| {
            attr(m, "refines").is_none()
                && attr(m, "property").map(str::trim) == Some("rendition:layout")
                && text_of(m) == "pre-paginated"
        });
    let itemrefs = root
        .children()
        .filter(|n| is(*n, "spine"))
        .flat_map(|s| s.children().filter(|n| is(*n, "itemref")));
    let mut fixed = HashSet::new();
    for itemref in itemrefs {
        let props = attr(itemref, "properties").unwrap_or_default();
        let has = |p: &str| props.split_whitespace().any(|q| q == p);
        let is_fixed = if has("rendition:layout-pre-paginated") {
            true
        } else {
            global_fixed && !has("rendition:layout-reflowable")
        };
        let item = attr(itemref, "idref").and_then(|id| package.item(id.trim()));
        if let Some(item) = item.filter(|i| is_fixed && i.media_type == "application/xhtml+xml") {
            fixed.insert(item.href.clone());
        }
    }
    fixed
}

/// Whether a `<meta>`'s `name` makes it the viewport meta.
pub(crate) fn is_viewport(name: &str) -> bool {
    name.trim().eq_ignore_ascii_case("viewport")
}

/// The rules on a fixed-layout document's viewport.
pub(crate) fn check_viewport(entry: &str, viewport: Option<&Viewport>) -> Vec<Diagnostic> {
    let Some(viewport) = viewport else {
        return vec![finding::error(
            Code::EpubViewport,
            entry,
            "fixed-layout document has no <meta name=\"viewport\"> giving its width and height",
        )];
    };
    let mut findings = Vec::new();
    let mut error = |message: String| {
        findings.push(finding::error(
            Code::EpubViewport,
            viewport.location.clone(),
            message,
        ));
    };
    let pairs: Vec<(String, String)> = viewport
        .content
        .split([',', ';'])
        .filter(|p| !p.trim().is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim().to_string()),
            None => (p.trim().to_ascii_lowercase(), String::new()),
        })
        .collect();
    for (dimension, keyword) in [("width", "device-width"), ("height", "device-height")] {
        let values: Vec<&str> = pairs
            .iter()
            .filter(|(k, _)| k == dimension)
            .map(|(_, v)| v.as_str())
            .collect();
        match values.as_slice() {
            [] => error(format!("the viewport gives no `{dimension}`")),
            [value] => {
                let positive = value.parse::<f64>().is_ok_and(|v| v > 0.0 && v.is_finite());
                if !positive && *value != keyword {
                    error(format!(
                        "the viewport `{dimension}` is `{value}`; it must be a positive number (of CSS pixels, no unit) or `{keyword}`"
                    ));
                }
            }
            _ => error(format!(
                "the viewport sets `{dimension}` more than once ({})",
                values.join(", ")
            )),
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::TestBook;
    use crate::inspect::verify::verify_bytes;

    const OPF: &str = "EPUB/package.opf";
    const CHAPTER: &str = "EPUB/text/chapter_1.xhtml";
    const MODIFIED: &str = r#"<meta property="dcterms:modified">"#;

    fn fixed(viewport: &str) -> TestBook {
        TestBook::minimal_epub3()
            .edit(
                OPF,
                MODIFIED,
                &format!(r#"<meta property="rendition:layout">pre-paginated</meta>{MODIFIED}"#),
            )
            .edit(CHAPTER, "<head>", &format!("<head>{viewport}"))
    }

    fn messages(book: TestBook) -> Vec<String> {
        verify_bytes(&book.to_zip())
            .into_iter()
            .inspect(|f| assert_eq!(f.code, Code::EpubViewport, "{f}"))
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn fixed_layout_document_without_viewport_is_an_error() {
        // The nav is pre-paginated too: it lacks a viewport as well.
        let found = messages(fixed(""));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].contains("no <meta name=\"viewport\">"));
    }

    #[test]
    fn viewport_with_units_or_repeated_dimensions_is_an_error() {
        let nav_ok = |b: TestBook| {
            b.edit(
                "EPUB/nav.xhtml",
                "<head>",
                r#"<head><meta name="viewport" content="width=10, height=10"/>"#,
            )
        };
        let units = messages(nav_ok(fixed(
            r#"<meta name="viewport" content="width=1000px, height=600mm"/>"#,
        )));
        assert_eq!(units.len(), 2, "{units:#?}");
        assert!(units[0].contains("`1000px`"), "{units:#?}");
        let twice = messages(nav_ok(fixed(
            r#"<meta name="viewport" content="width=900, height=600, width=1000"/>"#,
        )));
        assert_eq!(twice.len(), 1, "{twice:#?}");
        assert!(twice[0].contains("more than once"), "{twice:#?}");
        let fine = messages(nav_ok(fixed(
            r#"<meta name="viewport" content="width=device-width, height=600.5"/>"#,
        )));
        assert_eq!(fine, Vec::<String>::new());
    }

    #[test]
    fn reflowable_override_needs_no_viewport() {
        let book = fixed("")
            .edit(
                OPF,
                r#"<itemref idref="c1"/>"#,
                r#"<itemref idref="c1" properties="rendition:layout-reflowable"/>"#,
            )
            .edit(
                OPF,
                r#"<itemref idref="nav" linear="no"/>"#,
                r#"<itemref idref="nav" linear="no" properties="rendition:layout-reflowable"/>"#,
            );
        assert_eq!(messages(book), Vec::<String>::new());
    }
}
