//! What a document points at, and the rules on those references: the target is in the zip and
//! listed in the manifest, a fragment names an id where it is one, a hyperlink reaches a
//! document in the spine, an image has a fallback when its format is not a core media type,
//! and the URL itself is one an EPUB may hold (not path-absolute, not `file:`, nothing that
//! must be percent-encoded, nothing fetched from the network that must be in the container).
//!
//! [`reference_kind`] sorts references while [`super::verify`] summarises each XML entry;
//! [`check`] runs once every entry is summarised. Each rule names the EPUBCheck message it
//! stands for.

use std::collections::{HashMap, HashSet};

use crate::diagnostic::{Code, Diagnostic};

use super::finding::{self, Place};
use super::fixed_layout::Viewport;
use super::href::{self, Resolved};
use super::read::Package;

/// How a document uses what a reference points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `a`/`area` href, SVG `a`, an NCX `content`: the reader goes there.
    Hyperlink,
    /// `img` src: shown in place; its format must be a core media type or fall back.
    Image,
    /// Loaded by the reading system, must be in the container (stylesheets, scripts).
    Embedded,
    /// Audio, video and everything else loaded in place (may be remote where allowed).
    Media,
    /// Any other `href` (`link rel="alternate"`, unknown elements): only that it exists.
    Other,
}

/// One reference found in a document.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Reference {
    /// Line and column of the element.
    pub at: (u32, u32),
    /// The URL as written.
    pub raw: String,
    pub kind: Kind,
}

/// Image types every reading system supports (EPUB 3.3 §3.2, core media types).
const CORE_IMAGES: &[&str] = &[
    "image/gif",
    "image/jpeg",
    "image/png",
    "image/svg+xml",
    "image/webp",
];

/// The kind of reference an attribute of an XHTML element makes, if it makes one: `element`
/// is the element's local name, `html` says it is in the XHTML namespace, `rel` is its `rel`
/// (read for a `link`); `local` is the attribute's local name and `xlink` says it is in the
/// XLink namespace.
pub(crate) fn reference_kind(
    element: &str,
    html: bool,
    rel: Option<&str>,
    local: &str,
    xlink: bool,
) -> Option<Kind> {
    let name = element;
    if xlink || (local == "href" && matches!(name, "image" | "use") && !html) {
        return (local == "href").then_some(match name {
            "a" => Kind::Hyperlink,
            "image" => Kind::Image,
            _ => Kind::Media,
        });
    }
    match (local, name) {
        ("href", "a" | "area") => Some(Kind::Hyperlink),
        ("href", "link") => Some(
            if rel.is_some_and(|r| {
                r.split_whitespace()
                    .any(|r| r.eq_ignore_ascii_case("stylesheet"))
            }) {
                Kind::Embedded
            } else {
                Kind::Other
            },
        ),
        ("href", "base") => None,
        ("href", _) => Some(Kind::Other),
        ("src", "img") => Some(Kind::Image),
        ("src", "script") => Some(Kind::Embedded),
        ("src", "audio" | "video" | "source" | "track" | "embed" | "iframe") => Some(Kind::Media),
        ("poster", "video") | ("data", "object") => Some(Kind::Media),
        _ => None,
    }
}

/// What the reference rules need from the package.
struct Listed<'p> {
    /// The package document: links to it (`package.opf#epubcfi(…)`) are not to a resource.
    opf_path: &'p str,
    /// Manifest href (entry name, or the URL as written when remote) -> its item.
    items: HashMap<&'p str, &'p super::read::ManifestItem>,
    in_spine: std::collections::HashSet<&'p str>,
}

impl<'p> Listed<'p> {
    fn new(package: &'p Package) -> Self {
        Listed {
            opf_path: &package.opf_path,
            items: package
                .manifest
                .iter()
                .map(|m| (m.href.as_str(), m))
                .collect(),
            in_spine: package
                .spine
                .iter()
                .filter_map(|s| s.href.as_deref())
                .collect(),
        }
    }
}

/// The `url(…)`s and `@import "…"`s of a stylesheet, outside comments, with their line and
/// column. Not a CSS parser: enough to find what a stylesheet loads.
pub(crate) fn css_references(css: &str) -> Vec<Reference> {
    let mut found = Vec::new();
    let bytes = css.as_bytes();
    let (mut i, mut line, mut line_start) = (0, 1u32, 0);
    while i < bytes.len() {
        let rest = &css[i..];
        if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(css.len(), |e| i + e + 2);
            line += css[i..end].matches('\n').count() as u32;
            line_start = css[..end].rfind('\n').map_or(line_start, |n| n + 1);
            i = end;
            continue;
        }
        if bytes[i] == b'\n' {
            line += 1;
            line_start = i + 1;
        }
        let head = rest.get(..7).unwrap_or(rest).to_ascii_lowercase();
        let url = if head.starts_with("url(") {
            let inner = &rest[4..];
            let end = inner.find(')').unwrap_or(inner.len());
            Some(inner[..end].trim().trim_matches(['"', '\'']).to_string())
        } else if head.starts_with("@import") {
            let after = rest[7..].trim_start();
            after
                .strip_prefix(['"', '\''])
                .and_then(|q| q.find(['"', '\'']).map(|e| q[..e].to_string()))
        } else {
            None
        };
        if let Some(url) =
            url.filter(|u| !u.is_empty() && !u.starts_with('#') && !u.starts_with("data:"))
        {
            let column = css[line_start..i].chars().count() as u32 + 1;
            found.push(Reference {
                at: (line, column),
                raw: url,
                kind: Kind::Media,
            });
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// Every reference rule over every summarised document and stylesheet, sorted by location.
pub(crate) fn check(
    summaries: &HashMap<String, XmlSummary>,
    stylesheets: &HashMap<String, XmlSummary>,
    exists: impl Fn(&str) -> bool,
    package: Option<&Package>,
) -> Vec<Diagnostic> {
    let listed = package.map(Listed::new);
    let mut found = Vec::new();
    for (entry, summary) in summaries.iter().chain(stylesheets) {
        // A file the manifest does not list is not part of the publication (a second
        // package's documents, leftovers): it is warned about once, its links not followed.
        if listed
            .as_ref()
            .is_some_and(|l| !l.items.contains_key(entry.as_str()))
        {
            continue;
        }
        for r in &summary.links {
            let loc = || Place::at(entry, r.at.0, r.at.1);
            if let Some(message) = url_fault(&r.raw, summary.base.as_deref(), r.kind) {
                let code = if message.contains("network") {
                    Code::EpubRemoteResource
                } else {
                    Code::EpubUrl
                };
                found.push(finding::error(code, loc(), message));
                continue;
            }
            let Some(target) = href::resolve_with_base(entry, summary.base.as_deref(), &r.raw)
            else {
                continue;
            };
            let fault = if !exists(&target.path) {
                Some((
                    Code::EpubMissingResource,
                    format!(
                        "link `{}` points to `{}`, which is not in the zip",
                        r.raw, target.path
                    ),
                ))
            } else {
                listed
                    .as_ref()
                    .and_then(|l| package_fault(l, entry, r, &target))
                    .or_else(|| fragment_fault(summaries, r, &target))
            };
            if let Some((code, message)) = fault {
                found.push(finding::error(code, loc(), message));
            }
        }
    }
    found.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    found
}

/// A URL an EPUB must not hold as written: RSC-026 (path-absolute), RSC-030 (`file:`),
/// RSC-020 (characters that must be percent-encoded), RSC-006 (a stylesheet, script or image
/// from the network).
fn url_fault(raw: &str, base: Option<&str>, kind: Kind) -> Option<String> {
    let url = raw.trim();
    if url
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("file:"))
    {
        return Some(format!(
            "`{url}` is a file URL; an EPUB cannot reach the reader's files"
        ));
    }
    if href::is_external(url) {
        let remote = ["http:", "https:", "ftp:"].iter().any(|s| {
            url.get(..s.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(s))
        });
        return (remote && matches!(kind, Kind::Image | Kind::Embedded)).then(|| {
            format!("`{url}` is fetched from the network; images, stylesheets and scripts must be in the EPUB")
        });
    }
    if base.is_some_and(|b| href::is_external(b.trim())) {
        return None;
    }
    if url.starts_with('/') && !url.starts_with("//") {
        return Some(format!(
            "`{url}` is path-absolute; it leaves the EPUB's container (write it relative to this document)"
        ));
    }
    // Every such character is ASCII: a byte of a longer one is never taken for it.
    let bad = url.bytes().find(|&b| MUST_ENCODE[usize::from(b)])?;
    Some(format!(
        "`{url}` holds `{}`, which must be percent-encoded in a URL",
        char::from(bad).escape_default()
    ))
}

/// The characters a URL must not hold as they are (RSC-020): ASCII controls and
/// `` []<>"{}|\^` ``, by byte.
static MUST_ENCODE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_control()
            || matches!(
                c,
                b' ' | b'[' | b']' | b'<' | b'>' | b'"' | b'{' | b'}' | b'|' | b'\\' | b'^' | b'`'
            );
        b += 1;
    }
    table
};

/// RSC-008: the target is not in the manifest; RSC-011: a hyperlink reaches a document that
/// is not in the spine; RSC-032: an image in a format that is not a core media type has no
/// manifest fallback.
fn package_fault(
    listed: &Listed,
    entry: &str,
    r: &Reference,
    target: &Resolved,
) -> Option<(Code, String)> {
    if target.path == entry || target.path == listed.opf_path {
        return None;
    }
    let Some(item) = listed.items.get(target.path.as_str()) else {
        return Some((
            Code::EpubUnlistedResource,
            format!(
                "`{}` is used here but not listed in the manifest",
                target.path
            ),
        ));
    };
    let document = matches!(
        item.media_type.as_str(),
        "application/xhtml+xml" | "image/svg+xml"
    );
    if r.kind == Kind::Hyperlink && document && !listed.in_spine.contains(target.path.as_str()) {
        return Some((
            Code::EpubOutsideSpine,
            format!(
                "link `{}` points to `{}`, which is not in the spine",
                r.raw, target.path
            ),
        ));
    }
    if r.kind == Kind::Image
        && !CORE_IMAGES.contains(&item.media_type.as_str())
        && item.fallback.is_none()
    {
        return Some((
            Code::EpubForeignResource,
            format!(
                "image `{}` is `{}`, which reading systems need not support, and has no manifest fallback",
                target.path, item.media_type
            ),
        ));
    }
    None
}

/// RSC-012: a fragment that is an id names no element of its (XML) target.
fn fragment_fault(
    summaries: &HashMap<String, XmlSummary>,
    r: &Reference,
    target: &Resolved,
) -> Option<(Code, String)> {
    let fragment = target.fragment.as_deref().filter(|f| !f.is_empty())?;
    // Fragments into non-XML resources (images, media) are not ids, nor are media fragments
    // and pointer schemes (`#xywh=…`, `#epubcfi(…)`): not checked.
    let ids = &summaries.get(&target.path)?.ids;
    (!ids.contains(fragment) && href::fragment_is_id(fragment)).then(|| {
        (
            Code::EpubFragment,
            format!("link `{}`: `{}` has no id `{fragment}`", r.raw, target.path),
        )
    })
}

/// What the link and id rules need from one well-formed XML entry.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct XmlSummary {
    pub(crate) ids: HashSet<String>,
    /// Every reference the document makes (XHTML) or the NCX's `content` targets.
    pub(crate) links: Vec<Reference>,
    /// The `href` of an XHTML document's `<base>`: relative links resolve against it.
    pub(crate) base: Option<String>,
    /// An XHTML document's first viewport meta.
    pub(crate) viewport: Option<Viewport>,
    /// Where an element of an XHTML `<head>` carries `epub:type`, and which element.
    pub(crate) head_semantics: Vec<(Place, String)>,
    /// `<html>` root: location, has `lang`, has `xml:lang`.
    pub(crate) html_root: Option<(Place, bool, bool)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::{assert_only, codes, minimal};

    const OPF: &str = "EPUB/package.opf";
    const CHAPTER: &str = "EPUB/text/chapter_1.xhtml";
    const LINK: &str = r##"href="#s1""##;
    const IMG: &str = r#"src="../images/cover.png""#;

    #[test]
    fn path_absolute_url_is_an_error() {
        let book = minimal().edit(CHAPTER, IMG, r#"src="/EPUB/images/cover.png""#);
        assert_only(book, Code::EpubUrl, "path-absolute");
    }

    #[test]
    fn file_url_is_an_error() {
        let book = minimal().edit(CHAPTER, LINK, r#"href="file:///var/log/lastlog""#);
        assert_only(book, Code::EpubUrl, "file URL");
    }

    #[test]
    fn characters_that_must_be_percent_encoded_are_an_error() {
        let book = minimal().edit(
            CHAPTER,
            LINK,
            r##"href="chapter%5F1.xhtml#epubcfi(/4[s1])""##,
        );
        assert_only(book, Code::EpubUrl, "`[`");
        // Encoded, the same pointer passes (a pointer scheme is not an id).
        let encoded = minimal().edit(
            CHAPTER,
            LINK,
            r##"href="chapter%5F1.xhtml#epubcfi(/4%5Bs1%5D)""##,
        );
        assert_eq!(codes(encoded), vec![]);
    }

    #[test]
    fn each_character_that_must_be_percent_encoded_is_named_and_no_other() {
        for c in " []<>\"{}|\\^`\u{1}\u{1f}\u{7f}".chars() {
            let message = url_fault(&format!("a{c}b.png"), None, Kind::Image);
            let named = format!("holds `{}`", c.escape_default());
            assert!(message.is_some_and(|m| m.contains(&named)), "{c:?}");
        }
        for url in ["é.png", "第一章.xhtml#注", "a%20b.png?x=1&y=2#f"] {
            assert_eq!(url_fault(url, None, Kind::Hyperlink), None, "{url}");
        }
    }

    #[test]
    fn resource_in_the_zip_but_not_in_the_manifest_is_an_error_where_used() {
        let book = minimal().add("EPUB/images/red.png", b"png").edit(
            CHAPTER,
            IMG,
            r#"src="../images/red.png""#,
        );
        let found = codes(book);
        assert!(
            found.iter().any(|(c, m)| *c == Code::EpubUnlistedResource && m.contains("EPUB/images/red.png")),
            "{found:#?}"
        );
        // The file itself is warned about as unlisted, once.
        assert_eq!(found.len(), 2, "{found:#?}");
    }

    #[test]
    fn hyperlink_to_a_document_outside_the_spine_is_an_error() {
        let book = minimal().edit(OPF, r#"<itemref idref="nav" linear="no"/>"#, "");
        assert_only(
            book,
            Code::EpubOutsideSpine,
            "`EPUB/nav.xhtml`, which is not in the spine",
        );
    }

    #[test]
    fn image_in_a_foreign_format_needs_a_manifest_fallback() {
        let avif = |fallback: &str| {
            minimal()
                .add("EPUB/images/a.avif", b"avif")
                .edit(
                    OPF,
                    "</manifest>",
                    &format!(r#"<item id="a" href="images/a.avif" media-type="image/avif"{fallback}/></manifest>"#),
                )
                .edit(CHAPTER, IMG, r#"src="../images/a.avif""#)
        };
        assert_only(avif(""), Code::EpubForeignResource, "`image/avif`");
        assert_eq!(codes(avif(r#" fallback="cover""#)), vec![]);
    }

    #[test]
    fn remote_image_or_stylesheet_is_an_error_and_remote_links_are_not() {
        let img = minimal().edit(CHAPTER, IMG, r#"src="https://example.org/a.png""#);
        assert_only(img, Code::EpubRemoteResource, "network");
        let css = minimal().edit(
            CHAPTER,
            "<head>",
            r#"<head><link rel="stylesheet" href="https://example.org/a.css"/>"#,
        );
        assert_only(css, Code::EpubRemoteResource, "network");
        let alternate = minimal().edit(
            CHAPTER,
            "<head>",
            r#"<head><link rel="alternate" href="https://example.org/a.html"/>"#,
        );
        assert_eq!(codes(alternate), vec![]);
    }

    #[test]
    fn links_of_files_outside_the_manifest_are_not_followed() {
        let decoy = minimal().add(
            "OTHER/page.xhtml",
            br#"<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><body><a href="gone.xhtml">x</a></body></html>"#,
        );
        let found = codes(decoy);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].0, Code::EpubUnlistedFile);
    }

    #[test]
    fn stylesheet_urls_must_exist() {
        let css = "/* url(commented.png) */\n@import 'more.css';\nh1 { background: url( \"../images/cover.png\" ) }\n@font-face { src: url(fonts/gone.otf) }\n.x { filter: url(#f); b: url(data:x) }";
        let found: Vec<_> = css_references(css)
            .into_iter()
            .map(|r| (r.at, r.raw))
            .collect();
        assert_eq!(
            found,
            vec![
                ((2, 1), "more.css".to_string()),
                ((3, 18), "../images/cover.png".to_string()),
                ((4, 19), "fonts/gone.otf".to_string()),
            ]
        );
        let book = minimal()
            .add(
                "EPUB/style.css",
                css.replace("@import 'more.css';", "")
                    .replace("../images", "images")
                    .as_bytes(),
            )
            .edit(
                OPF,
                "</manifest>",
                r#"<item id="css" href="style.css" media-type="text/css"/></manifest>"#,
            );
        assert_only(
            book,
            Code::EpubMissingResource,
            "`EPUB/fonts/gone.otf`, which is not in the zip",
        );
    }

    #[test]
    fn media_and_scripts_are_checked_for_existence() {
        let book = minimal().edit(CHAPTER, "<p>See", r#"<audio src="../audio/a.mp3"/><p>See"#);
        assert_only(book, Code::EpubMissingResource, "not in the zip");
    }
}
