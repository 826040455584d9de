//! SVG images from a project (chapter images and the cover), rebuilt from what an allow-list
//! keeps.
//!
//! An SVG file is a document that can hold script (`<script>`, `onload=`, a script element
//! under any prefix), foreign content (`foreignObject`), animations that rewrite links, and
//! references that fetch from the network (`<image href="http…">`, `fill="url(http…)"`,
//! `@import` in a `<style>`). Copied into an EPUB, EPUBCheck reports them and a reader may run
//! or fetch them. So the file is parsed with a real XML parser (`roxmltree`: entities expanded
//! with its billion-laughs limits, nothing external loaded) and written anew:
//! - elements of the SVG namespace on the allow-list ([`element_policy`]) are kept; `<a>` is
//!   unwrapped (an image's links cannot be followed); everything else goes with its content;
//! - attributes on the allow-list (SVG 1.1 and 2 geometry, presentation and filter attributes,
//!   `aria-*`, `role`) are kept when every `url()` in them points inside the document; `href`
//!   (plain or `xlink:`) only as `#id`, or as a `data:` URL of a raster image on `<image>`;
//!   `style` attributes and `<style>` elements are cleaned by [`super::css`];
//! - comments, processing instructions, the doctype, `<metadata>` and the private data of
//!   drawing programs (Inkscape, Sodipodi, Adobe, Sketch, Affinity) go without a word;
//!   everything else dropped is listed in [`CleanSvg::removed`] for one warning per file.
//!
//! The output is UTF-8 with the SVG and XLink namespaces declared on the root, every name
//! unprefixed but `xlink:href`, `xml:space` and `xml:lang`, and text and attribute values
//! escaped here. An `href` is written as `xlink:href`, which SVG 1.1 readers (Adobe's RMSDK,
//! older WebKit) need and SVG 2 readers still read.

use roxmltree::{Document, Node, NodeType, ParsingOptions};

use super::css::{self, UrlKind};
use crate::xml::{escape_attr, escape_text};

const SVG_NS: &str = "http://www.w3.org/2000/svg";
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// The most elements an SVG file may hold (about 100 MB in the parser), far above the most
/// detailed maps and diagrams.
pub const MAX_NODES: u32 = 1_000_000;
/// The deepest nesting of elements kept; readers and validators recurse on it.
pub const MAX_DEPTH: usize = 256;

/// A cleaned SVG file.
#[derive(Debug, Clone)]
pub struct CleanSvg {
    /// The file as written anew.
    pub bytes: Vec<u8>,
    /// What was dropped, each with how often, in the order first met.
    pub removed: Vec<(String, usize)>,
}

impl CleanSvg {
    /// "removed from the SVG: <script> ×1, onload= ×2" or None when nothing was.
    pub fn summary(&self) -> Option<String> {
        summary(&self.removed)
    }
}

/// [`CleanSvg::summary`] of a list of removals (what, how often).
pub fn summary(removed: &[(String, usize)]) -> Option<String> {
    if removed.is_empty() {
        return None;
    }
    let items: Vec<String> = removed
        .iter()
        .map(|(what, n)| format!("{what} ×{n}"))
        .collect();
    Some(format!(
        "removed from the SVG (scripts, remote files and foreign content cannot be in a book): {}",
        items.join(", ")
    ))
}

/// Why an SVG file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SvgError {
    /// Not UTF-8 text.
    #[error("it is not UTF-8 text")]
    NotUtf8,
    /// Not well-formed XML (or over the parser's limits).
    #[error("it is not well-formed XML: {0}")]
    Xml(String),
    /// The root element is not `<svg>`.
    #[error("its root element is <{0}>, not <svg>")]
    NotSvg(String),
    /// Elements nested deeper than [`MAX_DEPTH`].
    #[error("its elements are nested more than {MAX_DEPTH} deep")]
    TooDeep,
}

/// What happens to an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    Keep,
    /// Dropped, content kept (links).
    Unwrap,
    /// Dropped with its content, without a word (metadata, editors' data).
    Quiet,
    /// Dropped with its content, and named in the warning.
    Drop,
}

/// Parses and rebuilds `bytes` (see the module docs). An `<image>` that draws a file beside
/// the SVG (a relative `href`) keeps it when `pictures` gives the URL to put in its place:
/// for an SVG image file, the `data:` URL of a raster image the project holds (an SVG image
/// cannot load files, so what it draws must be inside it); for a drawing inline in a
/// chapter, the href of the picture carried into the book beside the chapter.
pub fn clean_with(
    bytes: &[u8],
    pictures: &dyn Fn(&str) -> Option<String>,
) -> Result<CleanSvg, SvgError> {
    let text = std::str::from_utf8(bytes).map_err(|_| SvgError::NotUtf8)?;
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let options = ParsingOptions {
        allow_dtd: true,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc =
        Document::parse_with_options(text, options).map_err(|e| SvgError::Xml(e.to_string()))?;
    let root = doc.root_element();
    if root.tag_name().name() != "svg" || !in_svg(root) {
        return Err(SvgError::NotSvg(root.tag_name().name().to_string()));
    }
    // An `href="#id"` whose element is gone (dropped here, or never there) is EPUBCheck's
    // RSC-012: the file is written again without what points to nothing, until nothing does.
    let mut dangling = std::collections::HashSet::new();
    for round in 1.. {
        let mut writer = Writer {
            out: String::new(),
            removed: Vec::new(),
            dangling: &dangling,
            pictures,
        };
        writer
            .out
            .push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        writer.document(root)?;
        let more: Vec<String> = dangling_targets(&writer.out)
            .into_iter()
            .filter(|id| !dangling.contains(id))
            .collect();
        // Each round drops what pointed at the last round's gaps; a chain of `<use>` of
        // `<use>` deeper than a few is left as it is.
        if more.is_empty() || round == 4 {
            return Ok(CleanSvg {
                bytes: writer.out.into_bytes(),
                removed: writer.removed,
            });
        }
        dangling.extend(more);
    }
    unreachable!("the rounds end at 4")
}

/// The `#id` targets of `href`s in a written SVG that no element's `id` holds.
fn dangling_targets(svg: &str) -> Vec<String> {
    let Ok(doc) = Document::parse(svg) else {
        return Vec::new();
    };
    let ids: std::collections::HashSet<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    doc.descendants()
        .filter_map(|n| n.attribute((XLINK_NS, "href")))
        .filter_map(|h| h.strip_prefix('#'))
        .filter(|id| !ids.contains(id))
        .map(str::to_string)
        .collect()
}

/// An SVG element: in the SVG namespace, or in none (a file that forgot `xmlns`).
fn in_svg(node: Node<'_, '_>) -> bool {
    matches!(node.tag_name().namespace(), None | Some(SVG_NS))
}

/// Namespaces of drawing programs' private data, dropped without a word.
fn editor_namespace(ns: &str) -> bool {
    [
        "http://www.inkscape.org/namespaces/inkscape",
        "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
        "http://ns.adobe.com/",
        "http://www.bohemiancoding.com/sketch/ns",
        "http://www.serif.com/",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
        "http://creativecommons.org/ns#",
        "http://purl.org/dc/elements/1.1/",
    ]
    .iter()
    .any(|prefix| ns.starts_with(prefix))
}

/// SVG elements kept, sorted for binary search: structure, shapes, text, paint servers,
/// clipping, masking, markers, filters and `<style>` (its CSS cleaned).
const ELEMENTS: [&str; 54] = [
    "circle",
    "clipPath",
    "defs",
    "desc",
    "ellipse",
    "feBlend",
    "feColorMatrix",
    "feComponentTransfer",
    "feComposite",
    "feConvolveMatrix",
    "feDiffuseLighting",
    "feDisplacementMap",
    "feDistantLight",
    "feDropShadow",
    "feFlood",
    "feFuncA",
    "feFuncB",
    "feFuncG",
    "feFuncR",
    "feGaussianBlur",
    "feImage",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
    "fePointLight",
    "feSpecularLighting",
    "feSpotLight",
    "feTile",
    "feTurbulence",
    "filter",
    "g",
    "image",
    "line",
    "linearGradient",
    "marker",
    "mask",
    "path",
    "pattern",
    "polygon",
    "polyline",
    "radialGradient",
    "rect",
    "stop",
    "style",
    "svg",
    "switch",
    "symbol",
    "text",
    "textPath",
    "title",
    "tspan",
    "use",
    "view",
];

/// Attributes kept (when their `url()`s point inside the document), sorted for binary search:
/// SVG 1.1 and SVG 2 geometry, structure, text, paint server, filter and presentation
/// attributes.
const ATTRIBUTES: [&str; 180] = [
    "alignment-baseline",
    "amplitude",
    "azimuth",
    "baseFrequency",
    "baseProfile",
    "baseline-shift",
    "bias",
    "class",
    "clip",
    "clip-path",
    "clip-rule",
    "clipPathUnits",
    "color",
    "color-interpolation",
    "color-interpolation-filters",
    "color-profile",
    "color-rendering",
    "contentStyleType",
    "cursor",
    "cx",
    "cy",
    "d",
    "diffuseConstant",
    "direction",
    "display",
    "divisor",
    "dominant-baseline",
    "dx",
    "dy",
    "edgeMode",
    "elevation",
    "enable-background",
    "exponent",
    "externalResourcesRequired",
    "fill",
    "fill-opacity",
    "fill-rule",
    "filter",
    "filterRes",
    "filterUnits",
    "flood-color",
    "flood-opacity",
    "focusable",
    "font",
    "font-family",
    "font-size",
    "font-size-adjust",
    "font-stretch",
    "font-style",
    "font-variant",
    "font-weight",
    "fr",
    "fx",
    "fy",
    "glyph-orientation-horizontal",
    "glyph-orientation-vertical",
    "gradientTransform",
    "gradientUnits",
    "height",
    "id",
    "image-rendering",
    "in",
    "in2",
    "intercept",
    "isolation",
    "k1",
    "k2",
    "k3",
    "k4",
    "kernelMatrix",
    "kernelUnitLength",
    "kerning",
    "lang",
    "lengthAdjust",
    "letter-spacing",
    "lighting-color",
    "limitingConeAngle",
    "marker",
    "marker-end",
    "marker-mid",
    "marker-start",
    "markerHeight",
    "markerUnits",
    "markerWidth",
    "mask",
    "mask-type",
    "maskContentUnits",
    "maskUnits",
    "media",
    "method",
    "mix-blend-mode",
    "mode",
    "numOctaves",
    "offset",
    "opacity",
    "operator",
    "order",
    "orient",
    "overflow",
    "paint-order",
    "pathLength",
    "patternContentUnits",
    "patternTransform",
    "patternUnits",
    "pointer-events",
    "points",
    "pointsAtX",
    "pointsAtY",
    "pointsAtZ",
    "preserveAlpha",
    "preserveAspectRatio",
    "primitiveUnits",
    "r",
    "radius",
    "refX",
    "refY",
    "requiredExtensions",
    "requiredFeatures",
    "result",
    "role",
    "rotate",
    "rx",
    "ry",
    "scale",
    "seed",
    "shape-rendering",
    "side",
    "slope",
    "spacing",
    "specularConstant",
    "specularExponent",
    "spreadMethod",
    "startOffset",
    "stdDeviation",
    "stitchTiles",
    "stop-color",
    "stop-opacity",
    "stroke",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-miterlimit",
    "stroke-opacity",
    "stroke-width",
    "surfaceScale",
    "systemLanguage",
    "tabindex",
    "tableValues",
    "targetX",
    "targetY",
    "text-anchor",
    "text-decoration",
    "text-rendering",
    "textLength",
    "title",
    "transform",
    "transform-origin",
    "type",
    "unicode-bidi",
    "values",
    "vector-effect",
    "version",
    "viewBox",
    "viewTarget",
    "visibility",
    "white-space",
    "width",
    "word-spacing",
    "writing-mode",
    "x",
    "x1",
    "x2",
    "xChannelSelector",
    "y",
    "y1",
    "y2",
    "yChannelSelector",
    "z",
    "zoomAndPan",
];

/// The policy for an element.
fn element_policy(node: Node<'_, '_>) -> Policy {
    let name = node.tag_name().name();
    match node.tag_name().namespace() {
        _ if name == "script" => Policy::Drop,
        Some(ns) if ns != SVG_NS && editor_namespace(ns) => Policy::Quiet,
        Some(ns) if ns != SVG_NS => Policy::Drop,
        _ => match name {
            "a" => Policy::Unwrap,
            "metadata" => Policy::Quiet,
            _ if ELEMENTS.binary_search(&name).is_ok() => Policy::Keep,
            _ => Policy::Drop,
        },
    }
}

/// How a dropped or unwrapped element is named in the warning.
fn dropped_element(node: Node<'_, '_>) -> String {
    let name = node.tag_name().name();
    match (name, node.tag_name().namespace()) {
        ("script", _) => "<script>".to_string(),
        (_, Some(ns)) if ns != SVG_NS => format!("<{name}> of {ns}"),
        ("a", _) => "<a> link (its content kept)".to_string(),
        (
            "animate" | "animateColor" | "animateMotion" | "animateTransform" | "set" | "mpath",
            _,
        ) => {
            format!("<{name}> animation")
        }
        _ => format!("<{name}>"),
    }
}

/// Whether an attribute (other than `href`, `style` and event handlers) is on the allow-list.
fn allowed_attribute(name: &str) -> bool {
    name.starts_with("aria-") || ATTRIBUTES.binary_search(&name).is_ok()
}

/// Elements that mean nothing without their `href`: dropped when it cannot stay.
fn needs_href(element: &str) -> bool {
    matches!(element, "image" | "use" | "feImage" | "textPath")
}

/// Every `url(…)` target in an attribute value.
fn url_targets(value: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.to_ascii_lowercase().find("url(") {
        let after = &rest[at + 4..];
        let end = after.find(')').unwrap_or(after.len());
        targets.push(after[..end].trim().trim_matches(['"', '\'']));
        rest = &after[end..];
    }
    targets
}

/// The rebuilt document and what was dropped.
struct Writer<'d> {
    out: String,
    removed: Vec<(String, usize)>,
    /// `#id` targets no element holds: what points to them goes.
    dangling: &'d std::collections::HashSet<String>,
    /// The `data:` URL of a picture beside the SVG, for an `<image>` that draws it.
    pictures: &'d dyn Fn(&str) -> Option<String>,
}

impl Writer<'_> {
    fn note(&mut self, what: impl Into<String>) {
        let what = what.into();
        match self.removed.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => self.removed.push((what, 1)),
        }
    }

    /// Writes the kept part of the tree under `root`, iteratively (a file may nest deeply).
    fn document(&mut self, root: Node<'_, '_>) -> Result<(), SvgError> {
        // Nodes to open, and elements to close: (node, Some(tag written)).
        let mut stack: Vec<(Node<'_, '_>, Option<bool>)> = vec![(root, None)];
        let mut depth = 0;
        while let Some((node, close)) = stack.pop() {
            if let Some(written) = close {
                depth -= 1;
                if written {
                    self.out.push_str("</");
                    self.out.push_str(node.tag_name().name());
                    self.out.push('>');
                }
                continue;
            }
            match node.node_type() {
                NodeType::Element => {
                    if depth >= MAX_DEPTH {
                        return Err(SvgError::TooDeep);
                    }
                    // None: the element goes with its content.
                    if let Some(written) = self.open(node, depth == 0) {
                        depth += 1;
                        stack.push((node, Some(written)));
                        stack.extend(node.children().rev().map(|child| (child, None)));
                    }
                }
                NodeType::Text => self.out.push_str(&escape_text(node.text().unwrap_or(""))),
                _ => {}
            }
        }
        Ok(())
    }

    /// Opens `node`: Some(true) when its tag was written, Some(false) when only its content
    /// is kept, None when it goes with its content. A `<style>` is written whole here.
    fn open(&mut self, node: Node<'_, '_>, root: bool) -> Option<bool> {
        match element_policy(node) {
            Policy::Keep => {}
            Policy::Unwrap => {
                self.note(dropped_element(node));
                return Some(false);
            }
            Policy::Quiet => return None,
            Policy::Drop => {
                self.note(dropped_element(node));
                return None;
            }
        }
        let name = node.tag_name().name();
        let attributes = self.attributes(node)?;
        if name == "style" {
            self.style_element(node, &attributes);
            return None;
        }
        self.start_tag(name, &attributes, root);
        Some(true)
    }

    /// `<name attributes>`, with the namespaces declared on the `root`.
    fn start_tag(&mut self, name: &str, attributes: &[(String, String)], root: bool) {
        self.out.push('<');
        self.out.push_str(name);
        if root {
            self.out.push_str(" xmlns=\"");
            self.out.push_str(SVG_NS);
            self.out.push_str("\" xmlns:xlink=\"");
            self.out.push_str(XLINK_NS);
            self.out.push('"');
        }
        for (key, value) in attributes {
            self.out.push(' ');
            self.out.push_str(key);
            self.out.push_str("=\"");
            self.out.push_str(&escape_attr(value));
            self.out.push('"');
        }
        self.out.push('>');
    }

    /// The attributes to write for `node` (names as written), or None when the element must
    /// go because its `href` cannot stay.
    fn attributes(&mut self, node: Node<'_, '_>) -> Option<Vec<(String, String)>> {
        let element = node.tag_name().name();
        let mut kept = Vec::new();
        for attribute in node.attributes() {
            let (name, value) = (attribute.name(), attribute.value());
            let key = match attribute.namespace() {
                None if name == "href" => "xlink:href".to_string(),
                None => name.to_string(),
                Some(XLINK_NS) if name == "href" => "xlink:href".to_string(),
                Some(XML_NS) if name == "space" || name == "lang" => format!("xml:{name}"),
                Some(XML_NS) => {
                    self.note(format!("xml:{name}="));
                    continue;
                }
                Some(XLINK_NS) => continue,
                Some(ns) if editor_namespace(ns) => continue,
                Some(ns) => {
                    self.note(format!("{name}= of {ns}"));
                    continue;
                }
            };
            if key == "xlink:href" {
                let missing = value
                    .strip_prefix('#')
                    .is_some_and(|id| self.dangling.contains(id));
                let refusal = match missing {
                    true => Some(format!("a link to a missing element ({})", short(value))),
                    false => href_refusal(element, value),
                };
                let inlined = (refusal.is_some()
                    && element == "image"
                    && css::url_kind(value) == UrlKind::Relative)
                    .then(|| (self.pictures)(value))
                    .flatten();
                if let Some(url) = inlined {
                    kept.push((key, url));
                    continue;
                }
                match refusal {
                    None => kept.push((key, value.to_string())),
                    Some(why) if needs_href(element) => {
                        self.note(format!("<{element}> with {why}"));
                        return None;
                    }
                    Some(why) => self.note(format!("href= with {why}")),
                }
            } else if name.len() > 2 && name[..2].eq_ignore_ascii_case("on") {
                self.note(format!("{name}= event handler"));
            } else if key == "style" {
                let cleaned = css::clean_declarations(value, &mut no_files);
                for removal in &cleaned.removed {
                    self.note(format!("style= {}", removal.what));
                }
                if !cleaned.css.trim().is_empty() {
                    kept.push((key, cleaned.css.trim().to_string()));
                }
            } else if !key.starts_with("xml:") && !allowed_attribute(&key) {
                self.note(format!("{key}="));
            } else if let Some(url) = url_targets(value)
                .into_iter()
                .find(|u| css::url_kind(u) != UrlKind::Fragment)
            {
                self.note(format!("{key}= with url({url})"));
            } else {
                kept.push((key, value.to_string()));
            }
        }
        Some(kept)
    }

    /// A `<style>` element with its CSS cleaned (none of another type is kept).
    fn style_element(&mut self, node: Node<'_, '_>, attributes: &[(String, String)]) {
        let css_type = attributes
            .iter()
            .find(|(k, _)| k == "type")
            .is_none_or(|(_, v)| v.trim().eq_ignore_ascii_case("text/css"));
        if !css_type {
            self.note("<style> not of type text/css");
            return;
        }
        let text: String = node
            .children()
            .filter(|c| c.is_text())
            .filter_map(|c| c.text())
            .collect();
        let cleaned = css::clean_stylesheet(&text, &mut no_files);
        for removal in &cleaned.removed {
            self.note(format!("<style> {}", removal.what));
        }
        self.start_tag("style", attributes, false);
        self.out.push_str(&escape_text(&cleaned.css));
        self.out.push_str("</style>");
    }
}

/// Files an SVG image names cannot come along: only what is inside it can be used.
fn no_files(_: &str) -> Result<String, css::NotCarried> {
    Err(css::NotCarried::InsideSvg)
}

/// Why an `href` cannot stay on `element`, or None: `#id` anywhere, a raster `data:` URL on
/// `<image>`.
fn href_refusal(element: &str, value: &str) -> Option<String> {
    let kind = css::url_kind(value);
    match kind {
        UrlKind::Fragment => None,
        UrlKind::Data { allowed: true } if element == "image" => None,
        UrlKind::Relative => Some(format!("a file beside the SVG ({})", short(value))),
        other => Some(format!(
            "{} href ({})",
            other.refusal().unwrap_or("a data:"),
            short(value)
        )),
    }
}

fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(bytes: &[u8]) -> Result<CleanSvg, SvgError> {
        clean_with(bytes, &|_| None)
    }

    fn cleaned(svg: &str) -> (String, Vec<(String, usize)>) {
        let c = clean(svg.as_bytes()).expect("cleans");
        (String::from_utf8(c.bytes).expect("utf-8"), c.removed)
    }

    fn parses(svg: &str) {
        Document::parse(svg).expect("output is well-formed XML");
    }

    #[test]
    fn legitimate_drawing_is_kept() {
        let svg = r##"<?xml version="1.0"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 160" width="100" height="160">
  <title>A &amp; B</title>
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#000"/></linearGradient>
    <circle id="dot" r="3"/>
  </defs>
  <rect width="100" height="160" fill="url(#g)" style="stroke: red; stroke-width: 2"/>
  <use xlink:href="#dot" x="10" y="10"/>
  <use href="#dot" x="20" y="20"/>
  <text x="5" y="150" xml:space="preserve" font-family="serif">1 &lt; 2</text>
  <image width="1" height="1" xlink:href="data:image/png;base64,iVBORw0KGgo="/>
</svg>"##;
        let (out, removed) = cleaned(svg);
        parses(&out);
        assert!(removed.is_empty(), "{removed:?}");
        assert!(out.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 100 160\""), "{out}");
        for kept in [
            "<title>A &amp; B</title>",
            "fill=\"url(#g)\"",
            "style=\"stroke: red; stroke-width: 2\"",
            "<use xlink:href=\"#dot\" x=\"10\"",
            "<use xlink:href=\"#dot\" x=\"20\"",
            "xml:space=\"preserve\"",
            ">1 &lt; 2</text>",
            "xlink:href=\"data:image/png;base64,iVBORw0KGgo=\"",
            "<stop offset=\"1\" stop-color=\"#000\"></stop>",
        ] {
            assert!(out.contains(kept), "{kept} missing from\n{out}");
        }
        assert!(!out.contains("DOCTYPE"));
    }

    #[test]
    fn references_to_what_is_gone_go_with_it() {
        // Readium's SVG_Animation sample: a `<use>` of an `<image>` of a file beside the SVG,
        // dropped here, and one of an id the file never had; then a `<use>` of that `<use>`.
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
  <defs><image id="pic" width="5" height="5" xlink:href="../images/title.png"/><circle id="dot" r="1"/></defs>
  <use id="u1" xlink:href="#pic"/><use xlink:href="#u1" x="3"/><use xlink:href="#never"/>
  <use xlink:href="#dot" x="2"/>
</svg>"##;
        let (out, removed) = cleaned(svg);
        parses(&out);
        assert!(dangling_targets(&out).is_empty(), "{out}");
        assert!(out.contains("<use xlink:href=\"#dot\" x=\"2\">"), "{out}");
        assert!(!out.contains("u1") && !out.contains("never"), "{out}");
        let missing = removed
            .iter()
            .filter(|(w, _)| w.starts_with("<use> with a link to a missing element"));
        assert_eq!(missing.count(), 3, "{removed:?}");
    }

    #[test]
    fn a_picture_beside_the_svg_goes_inside_it_when_it_can_be_read() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
  <defs><image id="pic" width="5" height="5" xlink:href="../images/title.png"/></defs>
  <use xlink:href="#pic"/><image href="gone.png" width="1" height="1"/>
</svg>"##;
        let pictures = |href: &str| {
            (href == "../images/title.png")
                .then(|| "data:image/png;base64,iVBORw0KGgo=".to_string())
        };
        let cleaned = clean_with(svg.as_bytes(), &pictures).expect("cleaned");
        let out = String::from_utf8(cleaned.bytes).expect("UTF-8");
        parses(&out);
        assert!(
            out.contains("<image id=\"pic\" width=\"5\" height=\"5\" xlink:href=\"data:image/png;base64,iVBORw0KGgo=\">"),
            "{out}"
        );
        assert!(out.contains("<use xlink:href=\"#pic\">"), "{out}");
        assert!(!out.contains("gone.png"), "{out}");
        assert_eq!(
            cleaned.removed,
            [(
                "<image> with a file beside the SVG (gone.png)".to_string(),
                1
            )]
        );
    }

    #[test]
    fn scripts_handlers_foreign_content_and_remote_references_go() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:s="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" onload="alert(1)" width="10" height="16">
  <script>alert(1)</script>
  <s:script>alert(2)</s:script>
  <h:script>alert(3)</h:script>
  <foreignObject width="10" height="10"><h:iframe src="http://evil.example/"/></foreignObject>
  <image width="5" height="5" href="http://evil.example/track.png"/>
  <image width="5" height="5" xlink:href="side.png"/>
  <use xlink:href="http://evil.example/sprite.svg#x"/>
  <a xlink:href="javascript:alert(4)"><rect width="1" height="1" onclick="alert(5)" fill="url(http://evil.example/p.svg#q)"/></a>
  <set attributeName="xlink:href" to="javascript:alert(6)"/>
  <style>@import url(http://evil.example/x.css); rect { fill: blue }</style>
  <circle r="1" style="fill: url(http://evil.example/#g); stroke: red"/>
</svg>"##;
        let (out, removed) = cleaned(svg);
        parses(&out);
        for gone in [
            "script",
            "alert",
            "evil",
            "foreignObject",
            "iframe",
            "side.png",
            "<a",
            "onload",
            "onclick",
            "<set",
        ] {
            assert!(!out.contains(gone), "{gone} left in\n{out}");
        }
        assert!(
            out.contains("<style>  rect { fill: blue }</style>")
                || out.contains("rect { fill: blue }"),
            "{out}"
        );
        assert!(out.contains("<rect width=\"1\" height=\"1\">"), "{out}");
        assert!(out.contains("style=\"stroke: red\""), "{out}");
        let names: Vec<&str> = removed.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            removed.iter().find(|(w, _)| w == "<script>").map(|r| r.1),
            Some(3),
            "{names:?}"
        );
        for expected in [
            "onload= event handler",
            "<foreignObject>",
            "<image> with remote href (http://evil.example/track.png)",
            "<image> with a file beside the SVG (side.png)",
            "<use> with remote href (http://evil.example/sprite.svg#x)",
            "<a> link (its content kept)",
            "onclick= event handler",
            "fill= with url(http://evil.example/p.svg#q)",
            "<set> animation",
        ] {
            assert!(names.contains(&expected), "{expected} not in {names:#?}");
        }
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("<style> @import (remote")),
            "{names:#?}"
        );
        assert!(
            names.iter().any(|n| n.starts_with("style= `fill` (remote")),
            "{names:#?}"
        );
        let summary = clean(svg.as_bytes()).unwrap().summary().unwrap();
        assert!(summary.contains("<script> ×3"), "{summary}");
    }

    #[test]
    fn editor_data_and_metadata_go_quietly() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" inkscape:version="1.2">
  <metadata><rdf:RDF/></metadata>
  <sodipodi:namedview pagecolor="#fff"/>
  <!-- a comment --><?pi x?>
  <g inkscape:label="Layer 1" inkscape:groupmode="layer"><path d="M0 0L1 1"/></g>
</svg>"##;
        let (out, removed) = cleaned(svg);
        parses(&out);
        assert!(removed.is_empty(), "{removed:?}");
        assert!(out.contains("<g><path d=\"M0 0L1 1\"></path></g>"), "{out}");
        assert!(!out.contains("inkscape") && !out.contains("metadata") && !out.contains("comment"));
    }

    #[test]
    fn entities_expand_once_and_bombs_are_refused() {
        let ok = r#"<!DOCTYPE svg [<!ENTITY who "World">]><svg xmlns="http://www.w3.org/2000/svg"><text>Hello &who;</text></svg>"#;
        let (out, _) = cleaned(ok);
        assert!(out.contains("<text>Hello World</text>"), "{out}");
        let mut laughs = String::from("<!DOCTYPE svg [<!ENTITY l0 \"ha\">");
        for i in 1..10 {
            laughs.push_str(&format!(
                "<!ENTITY l{i} \"{}\">",
                format!("&l{};", i - 1).repeat(10)
            ));
        }
        laughs.push_str("]><svg xmlns=\"http://www.w3.org/2000/svg\"><text>&l9;</text></svg>");
        assert!(matches!(clean(laughs.as_bytes()), Err(SvgError::Xml(_))));
        let xxe = r#"<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>"#;
        if let Ok(c) = clean(xxe.as_bytes()) {
            assert!(!String::from_utf8(c.bytes).unwrap().contains("root:"));
        }
    }

    #[test]
    fn broken_and_non_svg_files_are_errors() {
        assert!(matches!(
            clean(b"<svg xmlns=\"http://www.w3.org/2000/svg\"><rect"),
            Err(SvgError::Xml(_))
        ));
        assert!(matches!(clean(b"<html/>"), Err(SvgError::NotSvg(_))));
        assert!(matches!(clean(b"\xFF\xFE<\0s\0"), Err(SvgError::NotUtf8)));
        let deep = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\">{}{}</svg>",
            "<g>".repeat(10_000),
            "</g>".repeat(10_000)
        );
        assert!(matches!(clean(deep.as_bytes()), Err(SvgError::TooDeep)));
        // Without a namespace (a hand-written file), it is still taken as SVG, and gets one.
        let (out, _) =
            cleaned("<svg width=\"1\" height=\"1\"><rect width=\"1\" height=\"1\"/></svg>");
        assert!(out.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    }

    #[test]
    fn allow_lists_are_sorted_for_binary_search() {
        assert!(ELEMENTS.windows(2).all(|w| w[0] < w[1]));
        assert!(ATTRIBUTES.windows(2).all(|w| w[0] < w[1]));
        assert!(allowed_attribute("stroke-width") && allowed_attribute("aria-label"));
        assert!(!allowed_attribute("onload") && !allowed_attribute("href"));
    }

    #[test]
    fn attribute_values_are_escaped() {
        let (out, _) = cleaned(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text id=\"a\" class=\"x&amp;&quot;&lt;&#10;y\">&amp;&lt;&gt;</text></svg>",
        );
        parses(&out);
        assert!(out.contains("class=\"x&amp;&quot;&lt;&#10;y\""), "{out}");
        assert!(out.contains(">&amp;&lt;&gt;</text>"), "{out}");
    }
}
