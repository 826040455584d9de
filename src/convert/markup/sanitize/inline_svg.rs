//! Inline `<svg>` in chapters, cleaned by the allow-list that cleans SVG image files
//! ([`crate::media::svg::clean_with`]): one policy for every SVG a book carries.
//!
//! The HTML parser gives us the drawing as a tree in the SVG namespace; we write it out as an
//! XML document (foreign elements keep their namespace, so the cleaner sees and drops them),
//! let the cleaner rebuild it, and keep its output as one opaque node of the chapter. Its ids
//! are reported so that the id pass can keep them unique across the chapter: an id another
//! element already has is renamed, with the references to it inside the drawing.

use scraper::ElementRef;

use crate::media::css::{self, UrlKind};
use crate::media::svg;
use crate::xml::{escape_attr, escape_text};

const SVG_NS: &str = "http://www.w3.org/2000/svg";
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS: &str = "http://www.w3.org/2000/xmlns/";

/// A cleaned inline drawing.
pub(super) struct InlineSvg {
    /// The `<svg>` element as XML, namespaces declared on it.
    pub xml: String,
    /// The ids it holds, in document order.
    pub ids: Vec<String>,
    /// What the cleaner removed, as one sentence, if anything: pictures aside.
    pub removed: Option<String>,
    /// The `<image>`s the cleaner removed (a picture lost), by why (`a file beside the SVG
    /// (x.png)`) and how often.
    pub pictures_lost: Vec<(String, usize)>,
}

/// Why an inline drawing could not be kept (it is then removed, and counted as removed).
#[derive(Debug, thiserror::Error)]
pub(super) enum Unkept {
    /// The SVG cleaner refused it.
    #[error("{0}")]
    Clean(String),
    /// The cleaner's output is not UTF-8.
    #[error(transparent)]
    Utf8(#[from] std::string::FromUtf8Error),
    /// Nothing of the drawing is left after cleaning.
    #[error("nothing of the drawing is left")]
    Empty,
    /// The cleaned drawing does not parse.
    #[error(transparent)]
    Xml(#[from] roxmltree::Error),
}

/// Cleans the drawing rooted at `el` (an `svg` element in the SVG namespace). An `<image>`
/// of a local picture keeps it when `pictures` gives its href in the book (see
/// [`local_pictures`]); others go, counted in [`InlineSvg::pictures_lost`].
pub(super) fn clean(
    el: ElementRef<'_>,
    pictures: &dyn Fn(&str) -> Option<String>,
) -> Result<InlineSvg, Unkept> {
    let cleaned = svg::clean_with(to_xml(el).as_bytes(), pictures)
        .map_err(|e| Unkept::Clean(e.to_string()))?;
    let (mut pictures_lost, mut others) = (Vec::new(), Vec::new());
    for (what, n) in cleaned.removed {
        match what.strip_prefix("<image> with ") {
            Some(why) => pictures_lost.push((why.to_string(), n)),
            None => others.push((what, n)),
        }
    }
    let removed = svg::summary(&others);
    let text = String::from_utf8(cleaned.bytes)?;
    let xml = match text.find("<svg") {
        Some(at) => text.get(at..).unwrap_or_default().to_string(),
        None => return Err(Unkept::Empty),
    };
    let ids = roxmltree::Document::parse(&xml).map(|doc| {
        doc.descendants()
            .filter_map(|n| n.attribute("id").map(str::to_string))
            .collect()
    })?;
    Ok(InlineSvg {
        xml,
        ids,
        removed,
        pictures_lost,
    })
}

/// The relative URLs of the pictures the drawing's `<image>` elements draw (`href` or
/// `xlink:href`, as written: what [`clean`] asks its `pictures` about), in document order:
/// files of the project, to be carried into the book. Fragments, `data:` URLs, remote and
/// root-relative ones are not.
pub(super) fn local_pictures(el: ElementRef<'_>) -> Vec<String> {
    el.descendants()
        .filter_map(ElementRef::wrap)
        .filter(|e| &*e.value().name.local == "image" && &*e.value().name.ns == SVG_NS)
        .filter_map(|e| {
            e.value()
                .attrs
                .iter()
                .find(|(name, _)| &*name.local == "href" && matches!(&*name.ns, "" | XLINK_NS))
                .map(|(_, value)| value.to_string())
        })
        .filter(|href| !href.trim().is_empty() && css::url_kind(href) == UrlKind::Relative)
        .collect()
}

/// Renames id `old` to `new` in a cleaned drawing: the attribute and the local references to
/// it (`href="#old"`, `url(#old)`), as the cleaner writes them.
pub(super) fn rename_id(xml: &str, old: &str, new: &str) -> String {
    let (old, new) = (escape_attr(old), escape_attr(new));
    xml.replace(&format!(" id=\"{old}\""), &format!(" id=\"{new}\""))
        .replace(&format!("\"#{old}\""), &format!("\"#{new}\""))
        .replace(&format!("(#{old})"), &format!("(#{new})"))
        .replace(&format!("#{old}&quot;"), &format!("#{new}&quot;"))
        .replace(&format!("'#{old}'"), &format!("'#{new}'"))
}

/// What is written while turning the tree into XML.
enum Step<'a> {
    Open(ElementRef<'a>),
    Text(&'a str),
    Close(String),
}

/// The subtree as an XML document, without recursion. Names XML cannot hold are left out
/// (an element's content stays).
fn to_xml(root: ElementRef<'_>) -> String {
    let mut out = String::new();
    let mut stack = vec![Step::Open(root)];
    let mut first = true;
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(t) => out.push_str(&escape_text(t)),
            Step::Close(name) => {
                out.push_str("</");
                out.push_str(&name);
                out.push('>');
            }
            Step::Open(el) => {
                let name = &*el.value().name.local;
                if is_xml_name(name) {
                    open_tag(&mut out, el, first);
                    stack.push(Step::Close(name.to_string()));
                }
                first = false;
                for child in el.children().rev() {
                    if let Some(e) = ElementRef::wrap(child) {
                        stack.push(Step::Open(e));
                    } else if let Some(t) = child.value().as_text() {
                        stack.push(Step::Text(t));
                    }
                }
            }
        }
    }
    out
}

fn open_tag(out: &mut String, el: ElementRef<'_>, root: bool) {
    let e = el.value();
    out.push('<');
    out.push_str(&e.name.local);
    let ns = &*e.name.ns;
    if root {
        out.push_str(" xmlns=\"");
        out.push_str(SVG_NS);
        out.push_str("\" xmlns:xlink=\"");
        out.push_str(XLINK_NS);
        out.push('"');
    } else if ns != SVG_NS {
        out.push_str(" xmlns=\"");
        out.push_str(&escape_attr(ns));
        out.push('"');
    }
    for (name, value) in e.attrs.iter() {
        let local = &*name.local;
        let key = match &*name.ns {
            XLINK_NS => format!("xlink:{local}"),
            XML_NS => format!("xml:{local}"),
            XMLNS_NS => continue,
            _ if local == "xmlns" || local.starts_with("xmlns:") => continue,
            _ => local.to_string(),
        };
        if !is_xml_name(local) {
            continue;
        }
        out.push(' ');
        out.push_str(&key);
        out.push_str("=\"");
        out.push_str(&escape_attr(value));
        out.push('"');
    }
    out.push('>');
}

/// A name the XML writer may use as it is: ASCII letters, digits, `-`, `_`, `.`.
fn is_xml_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_references_are_renamed_together() {
        let xml = "<svg xmlns=\"http://www.w3.org/2000/svg\"><linearGradient id=\"g\"></linearGradient><rect fill=\"url(#g)\"></rect><use xlink:href=\"#g\"></use><rect id=\"gg\"></rect></svg>";
        let out = rename_id(xml, "g", "svg2-g");
        assert!(out.contains("id=\"svg2-g\"") && out.contains("url(#svg2-g)"));
        assert!(out.contains("xlink:href=\"#svg2-g\"") && out.contains("id=\"gg\""));
    }
}
