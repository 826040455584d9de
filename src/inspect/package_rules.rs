//! Rules on the package document alone that EPUBCheck applies and a reading system depends on:
//! the version, the spine listing a document once, manifest and spine properties from the
//! package vocabulary, and the `rendition:` properties of fixed layout (EPUB 3.3 §5.6, §5.7,
//! §D.3; EPUB Fixed Layout §3 (`rendition:layout`, `orientation`, `spread`, `flow`)).
//!
//! They run with the other package rules in [`super::verify`] and give [`Finding`]s with codes
//! of their own; each rule says which EPUBCheck message it stands for.

use std::collections::HashSet;

use roxmltree::{Document, Node};

use crate::diagnostic::{Code, Diagnostic};

use super::finding;
use super::read::Package;
use super::xml::{Locator, attr, is, text_of};

/// Manifest item properties of the package vocabulary (EPUB 3.3 §D.3.2), and those the EPUB
/// extension specs define, which EPUBCheck accepts too (`data-nav`: Region-Based Navigation;
/// `dictionary`, `glossary`, `search-key-map`: Dictionaries and Glossaries; `index`: Indexes;
/// `xmp`: EPUB 3.3's metadata record).
const MANIFEST_PROPERTIES: &[&str] = &[
    "cover-image",
    "mathml",
    "nav",
    "remote-resources",
    "scripted",
    "svg",
    "switch",
    "data-nav",
    "dictionary",
    "glossary",
    "index",
    "search-key-map",
    "xmp",
];

/// Spine itemref properties without a prefix (EPUB 3.3 §D.3.3).
const SPINE_PROPERTIES: &[&str] = &["page-spread-left", "page-spread-right"];

/// The `rendition:` properties an itemref may set, in groups of which at most one applies
/// (EPUB 3.3 §D.3.3 and §8.2: "mutually exclusive").
const RENDITION_SPINE_GROUPS: &[&[&str]] = &[
    &["layout-pre-paginated", "layout-reflowable"],
    &[
        "orientation-auto",
        "orientation-landscape",
        "orientation-portrait",
    ],
    &[
        "spread-auto",
        "spread-both",
        "spread-landscape",
        "spread-none",
        "spread-portrait",
    ],
    &[
        "page-spread-center",
        "page-spread-left",
        "page-spread-right",
    ],
    &[
        "flow-auto",
        "flow-paginated",
        "flow-scrolled-continuous",
        "flow-scrolled-doc",
    ],
    &["align-x-center"],
];

/// The package-wide `rendition:` properties and their values (EPUB 3.3 §8.2).
const RENDITION_META: &[(&str, &[&str])] = &[
    ("rendition:layout", &["reflowable", "pre-paginated"]),
    ("rendition:orientation", &["auto", "landscape", "portrait"]),
    (
        "rendition:spread",
        &["auto", "both", "landscape", "none", "portrait"],
    ),
    (
        "rendition:flow",
        &["auto", "paginated", "scrolled-continuous", "scrolled-doc"],
    ),
];

/// Prefixes a package may use without declaring them (EPUB 3.3 §D.2.1, reserved prefixes).
const RESERVED_PREFIXES: &[&str] = &[
    "a11y",
    "dcterms",
    "marc",
    "media",
    "onix",
    "rendition",
    "schema",
    "xsd",
    "msv",
    "prism",
];

/// The Dublin Core elements namespace: its terms are elements (`dc:title`), never a prefix
/// for property values (EPUB 3.3 §D.2.3).
const DC_ELEMENTS: &str = "http://purl.org/dc/elements/1.1/";

/// All rules of this module, in document order of what they look at.
pub(crate) fn check(opf_path: &str, doc: &Document, package: &Package) -> Vec<Diagnostic> {
    let mut rules = Rules {
        findings: Vec::new(),
        locator: Locator::new(opf_path, doc),
    };
    let root = doc.root_element();
    if !rules.check_version(root, package) {
        return rules.findings;
    }
    if package.is_epub3() {
        rules.check_prefixes(root);
        rules.check_rendition_meta(root);
        rules.check_manifest_properties(root);
    }
    rules.check_spine(root, package.is_epub3());
    rules.findings
}

struct Rules<'t> {
    findings: Vec<Diagnostic>,
    locator: Locator<'t>,
}

fn children<'a, 'i>(node: Node<'a, 'i>, name: &'static str) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(move |n| is(*n, name))
}

impl Rules<'_> {
    fn error(&mut self, code: Code, node: Node, message: String) {
        let location = self.locator.at(node);
        self.findings.push(finding::error(code, location, message));
    }

    /// OPF-001: only EPUB 2 (`2.0`, `2.0.1`) and EPUB 3 (`3.0`, `3.3`, …) packages exist;
    /// nothing else of the package is checked against a version we do not know.
    fn check_version(&mut self, root: Node, package: &Package) -> bool {
        let version = package.version.trim();
        let known = |major: &str| {
            version.strip_prefix(major).is_some_and(|rest| {
                rest.split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            })
        };
        if known("2.") || known("3.") {
            return true;
        }
        self.error(
            Code::EpubVersion,
            root,
            format!("package version `{version}` is neither EPUB 2 (`2.0`) nor EPUB 3 (`3.0`)"),
        );
        false
    }

    /// OPF-007c: no prefix maps to the Dublin Core elements namespace; OPF-028: every prefix a
    /// property value uses is reserved or declared in `package@prefix`.
    fn check_prefixes(&mut self, root: Node) {
        let declared = attr(root, "prefix").unwrap_or_default();
        let mut tokens = declared.split_whitespace();
        let mut prefixes = Vec::new();
        while let Some(name) = tokens.next() {
            let Some(prefix) = name.strip_suffix(':') else {
                continue;
            };
            if tokens.next() == Some(DC_ELEMENTS) {
                self.error(
                    Code::EpubPrefix,
                    root,
                    format!("prefix `{prefix}` maps to the Dublin Core elements namespace, which must not be a prefix"),
                );
            }
            prefixes.push(prefix);
        }
        let valued: [(&str, &[&str]); 4] = [
            ("meta", &["property", "scheme"]),
            ("link", &["rel", "properties"]),
            ("item", &["properties"]),
            ("itemref", &["properties"]),
        ];
        for node in root.descendants().filter(|n| n.is_element()) {
            let Some((_, names)) = valued.iter().find(|(e, _)| is(node, e)) else {
                continue;
            };
            for value in names.iter().filter_map(|a| attr(node, a)) {
                for token in value.split_whitespace().filter(|t| !t.contains("://")) {
                    let Some((prefix, _)) = token.split_once(':') else {
                        continue;
                    };
                    if !RESERVED_PREFIXES.contains(&prefix) && !prefixes.contains(&prefix) {
                        self.error(
                            Code::EpubPrefix,
                            node,
                            format!("`{token}` uses the prefix `{prefix}`, which is neither reserved nor declared in package@prefix"),
                        );
                    }
                }
            }
        }
    }

    /// RSC-005: `rendition:layout` (and its siblings) at most once in the metadata, with one
    /// of the values the spec defines.
    fn check_rendition_meta(&mut self, root: Node) {
        let metas: Vec<Node> = children(root, "metadata")
            .flat_map(|m| children(m, "meta"))
            .filter(|m| attr(*m, "refines").is_none())
            .collect();
        for (property, values) in RENDITION_META {
            let mut seen = false;
            for meta in metas
                .iter()
                .filter(|m| attr(**m, "property").map(str::trim) == Some(*property))
            {
                let value = text_of(*meta);
                if seen {
                    self.error(
                        Code::EpubRendition,
                        *meta,
                        format!("`{property}` is set more than once in the package metadata"),
                    );
                } else if !values.contains(&value.as_str()) {
                    self.error(
                        Code::EpubRendition,
                        *meta,
                        format!(
                            "`{property}` is `{value}`; it must be one of {}",
                            values.join(", ")
                        ),
                    );
                }
                seen = true;
            }
        }
    }

    /// OPF-027: manifest properties come from the package vocabulary (prefixed ones from
    /// other vocabularies are not checked).
    fn check_manifest_properties(&mut self, root: Node) {
        for item in children(root, "manifest").flat_map(|m| children(m, "item")) {
            let unknown: Vec<&str> = attr(item, "properties")
                .unwrap_or_default()
                .split_whitespace()
                .filter(|p| !p.contains(':') && !MANIFEST_PROPERTIES.contains(p))
                .collect();
            for p in unknown {
                self.error(
                    Code::EpubUnknownProperty,
                    item,
                    format!("manifest item property `{p}` is not defined by EPUB 3"),
                );
            }
        }
    }

    /// RSC-005: the spine lists a document once; OPF-027 and RSC-005: itemref properties are
    /// defined ones, at most one of each `rendition:` group.
    fn check_spine(&mut self, root: Node, epub3: bool) {
        let mut seen = HashSet::new();
        for itemref in children(root, "spine").flat_map(|s| children(s, "itemref")) {
            let idref = attr(itemref, "idref").unwrap_or_default().trim();
            if !idref.is_empty() && !seen.insert(idref) {
                self.error(
                    Code::EpubSpineDuplicate,
                    itemref,
                    format!(
                        "spine itemref `{idref}` lists the same manifest item as an earlier one"
                    ),
                );
            }
            if epub3 {
                self.check_itemref_properties(itemref);
            }
        }
    }

    fn check_itemref_properties(&mut self, itemref: Node) {
        let properties: Vec<&str> = attr(itemref, "properties")
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        let mut groups: Vec<(usize, &str)> = Vec::new();
        for p in &properties {
            // `page-spread-left` and `rendition:page-spread-left` are one property.
            let (name, rendition) = match p.strip_prefix("rendition:") {
                Some(name) => (name, true),
                None if SPINE_PROPERTIES.contains(p) => (*p, false),
                None if p.contains(':') => continue,
                None => ("", false),
            };
            let group = RENDITION_SPINE_GROUPS
                .iter()
                .position(|g| g.contains(&name))
                .filter(|&g| rendition || g == 3);
            let Some(group) = group else {
                self.error(
                    Code::EpubUnknownProperty,
                    itemref,
                    format!("spine itemref property `{p}` is not defined by EPUB 3"),
                );
                continue;
            };
            if let Some((_, earlier)) = groups.iter().find(|(g, _)| *g == group) {
                self.error(
                    Code::EpubRendition,
                    itemref,
                    format!("spine itemref properties `{earlier}` and `{p}` exclude each other"),
                );
            }
            groups.push((group, p));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::{assert_only, codes, minimal};

    const OPF: &str = "EPUB/package.opf";

    #[test]
    fn a_document_twice_in_the_spine_is_an_error() {
        let book = minimal().edit(
            OPF,
            r#"<itemref idref="nav""#,
            r#"<itemref idref="c1"/><itemref idref="nav""#,
        );
        assert_only(
            book,
            Code::EpubSpineDuplicate,
            "`c1` lists the same manifest item",
        );
    }

    #[test]
    fn unknown_manifest_property_is_an_error_and_prefixed_ones_pass() {
        let book = minimal().edit(
            OPF,
            r#"properties="cover-image""#,
            r#"properties="cover-image incandescent""#,
        );
        assert_only(book, Code::EpubUnknownProperty, "`incandescent`");
        let prefixed = minimal()
            .edit(
                OPF,
                r#"properties="cover-image""#,
                r#"properties="cover-image my:glow data-nav""#,
            )
            .edit(
                OPF,
                "<package ",
                r#"<package prefix="my: http://example.org/my#" "#,
            );
        assert_eq!(codes(prefixed), vec![]);
    }

    #[test]
    fn unknown_spine_property_is_an_error() {
        let book = minimal().edit(
            OPF,
            r#"<itemref idref="c1"/>"#,
            r#"<itemref idref="c1" properties="untrustworthy"/>"#,
        );
        assert_only(book, Code::EpubUnknownProperty, "`untrustworthy`");
        let bad_rendition = minimal().edit(
            OPF,
            r#"<itemref idref="c1"/>"#,
            r#"<itemref idref="c1" properties="rendition:layout-scrolled"/>"#,
        );
        assert_only(
            bad_rendition,
            Code::EpubUnknownProperty,
            "`rendition:layout-scrolled`",
        );
    }

    #[test]
    fn defined_spine_properties_pass() {
        let book = minimal().edit(
            OPF,
            r#"<itemref idref="c1"/>"#,
            r#"<itemref idref="c1" properties="page-spread-left rendition:layout-pre-paginated rendition:spread-none rendition:flow-paginated rendition:align-x-center ibooks:x"/>"#,
        ).edit(OPF, "<package ", r#"<package prefix="ibooks: http://vocabulary.itunes.apple.com/rdf/ibooks/vocabulary-extensions-1.0/" "#);
        assert_eq!(codes(book), vec![]);
    }

    #[test]
    fn mutually_exclusive_spine_properties_are_an_error() {
        let book = minimal().edit(
            OPF,
            r#"<itemref idref="c1"/>"#,
            r#"<itemref idref="c1" properties="rendition:layout-reflowable rendition:layout-pre-paginated"/>"#,
        );
        assert_only(book, Code::EpubRendition, "exclude each other");
        let spread = minimal().edit(
            OPF,
            r#"<itemref idref="c1"/>"#,
            r#"<itemref idref="c1" properties="page-spread-left rendition:page-spread-center"/>"#,
        );
        assert_only(spread, Code::EpubRendition, "exclude each other");
    }

    #[test]
    fn repeated_or_invalid_rendition_metadata_is_an_error() {
        let layout = r#"<meta property="rendition:layout">pre-paginated</meta>"#;
        let modified = r#"<meta property="dcterms:modified">"#;
        let twice = minimal().edit(OPF, modified, &format!("{layout}{layout}{modified}"));
        assert_only(twice, Code::EpubRendition, "more than once");
        let invalid = minimal().edit(
            OPF,
            modified,
            &format!(r#"<meta property="rendition:layout">scrolling</meta>{modified}"#),
        );
        assert_only(invalid, Code::EpubRendition, "`scrolling`");
        let once = minimal().edit(OPF, modified, &format!("{layout}{modified}"));
        assert_eq!(codes(once), vec![]);
    }

    #[test]
    fn undeclared_prefixes_and_a_dc_prefix_are_errors() {
        let publisher =
            r#"<meta property="dc:publisher">Anon</meta><meta property="dcterms:modified">"#;
        let undeclared = minimal().edit(OPF, r#"<meta property="dcterms:modified">"#, publisher);
        assert_only(
            undeclared,
            Code::EpubPrefix,
            "`dc:publisher` uses the prefix `dc`",
        );
        let dc = minimal()
            .edit(OPF, r#"<meta property="dcterms:modified">"#, publisher)
            .edit(
                OPF,
                "<package ",
                r#"<package prefix="dc: http://purl.org/dc/elements/1.1/" "#,
            );
        assert_only(dc, Code::EpubPrefix, "Dublin Core elements namespace");
        let reserved = minimal().edit(
            OPF,
            r#"<meta property="dcterms:modified">"#,
            r#"<meta property="schema:accessMode">textual</meta><meta property="a11y:certifiedBy">X</meta><meta property="dcterms:modified">"#,
        );
        assert_eq!(codes(reserved), vec![]);
    }

    #[test]
    fn unknown_package_version_is_an_error() {
        let book = minimal().edit(OPF, r#"version="3.0""#, r#"version="0""#);
        assert_only(book, Code::EpubVersion, "`0`");
        for fine in ["3.3", "2.0.1"] {
            let v = minimal().edit(OPF, r#"version="3.0""#, &format!(r#"version="{fine}""#));
            assert!(
                codes(v).iter().all(|(c, _)| *c != Code::EpubVersion),
                "{fine}"
            );
        }
    }
}
