//! The shared HTML -> XHTML sanitiser behind both converters.
//!
//! Input is a tree from the HTML5 parser (`scraper`, which wraps `html5ever` in an arena tree,
//! so walking and dropping a 10,000-deep tree needs no recursion). We copy the parts we keep
//! into our own small arena, then run a few iterative passes:
//!
//! 1. **build**: allow-list of elements and attributes; unwrap or remove the rest (what is
//!    removed with its content is counted for one warning per chapter, [`Fragment::removed`]);
//!    resolve local images, and `<object>`/`<embed>` of a local image as an `<img>`; keep
//!    Presentation MathML ([`mathml`]) and inline SVG cleaned like SVG files ([`inline_svg`]);
//!    cap the nesting depth. MathML is then repaired to its schema.
//! 2. **title**: take a leading heading (any level) out as the chapter title.
//! 3. **structure**: heading levels under the chapter's `h1` with no gap, give list items, table parts, `dt`/`dd` and
//!    `figcaption` the parents the schema wants.
//! 4. **content models**: blocks inside phrasing-only elements become `span`, inline
//!    elements wrapping blocks become `div` (the HTML5 parser leaves e.g. `<b><p>` alone).
//! 5. **ids and links**: every heading gets an id (GitHub's slug of its text), ids become
//!    unique NCNames; `#fragment` links that point nowhere lose their href (EPUBCheck reports
//!    dangling fragments).
//! 6. **serialise** as XHTML with an explicit stack.

mod inline_svg;
mod mathml;
mod semantics;
mod split;

pub(crate) use split::self_href;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use scraper::ElementRef;
use scraper::Node as PNode;
use scraper::node::Element as PElement;

use super::ids::{Assigned, Ids};
use super::parse::{MAX_PARSE_DEPTH, NodeId};
use super::{
    Fragment, ImageResolver, ImageUse, MarkupError, Note, escape_attr, escape_text, is_xml_char,
};

const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";
const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// Deepest element nesting written. libxml2-based readers refuse documents deeper than 256;
/// the packager adds three levels and list repair can add one per list level.
pub(crate) const MAX_DEPTH: usize = 120;

/// What the body-walking passes need from the caller.
pub(crate) struct Options<'a> {
    /// Fallback title (HTML `<title>`) when the body does not start with an `<h1>`.
    pub head_title: Option<String>,
    /// Rewrites the text of the body outside code (the text-fix stage); None when it
    /// changes nothing.
    pub text: Option<&'a mut super::TextFixer<'a>>,
    /// Where the source nested too deep, for the warnings that say what was flattened.
    pub deep: Deep<'a>,
    /// What the Markdown renderer put before the ids it wrote (see [`super::ids::marker`]).
    pub marker: Option<&'a str>,
    /// Cut the document into pieces at its headings.
    pub split: Option<super::SplitAt<'a>>,
}

/// What the stages before the sanitiser know about deep nesting in the source.
pub(crate) struct Deep<'a> {
    /// The source line of an element, where known (the parser records the deep ones).
    pub line_of: &'a dyn Fn(NodeId) -> Option<usize>,
    /// Nesting already flattened before parsing (the Markdown renderer does its own), with
    /// the source line where it began, if known.
    pub flattened: Option<Option<usize>>,
    /// The parser closed elements nested past its own limit: the source line of the first,
    /// where known, and how many.
    pub cut: Option<(Option<usize>, usize)>,
}

/// Elements whose text is code or notation, which the text-fix stage never touches.
const VERBATIM: [&str; 9] = [
    "code", "pre", "kbd", "samp", "var", "tt", "math", "svg", "script",
];

/// The `epub:type` values of a source's `<body>` the book carries (see
/// [`Fragment::body_types`]).
pub(crate) fn body_types(value: &str) -> Vec<String> {
    semantics::epub_types("body", value).0
}

/// Runs the whole sanitiser over `root`'s children and returns the finished fragment.
pub(crate) fn sanitize(
    root: ElementRef<'_>,
    opts: Options,
    images: &mut dyn ImageResolver,
    warnings: Warnings,
) -> Result<Fragment, MarkupError> {
    let mut b = Builder {
        nodes: vec![Node {
            kind: Kind::Root,
            parent: 0,
            children: Vec::new(),
        }],
        images,
        image_hrefs: HashMap::new(),
        image_uses: Vec::new(),
        warnings,
        dropped_attrs: BTreeSet::new(),
        dropped_types: BTreeMap::new(),
        removed: Vec::new(),
        line_of: opts.deep.line_of,
        flattened: None,
        site_nav: 0,
    };
    b.build(root)?;
    b.deep_notes(&opts.deep);
    b.summary_notes();
    let Builder {
        nodes,
        image_uses,
        mut warnings,
        removed,
        site_nav,
        ..
    } = b;
    let mut tree = Tree {
        nodes,
        title_ids: Vec::new(),
        title_types: None,
        wrapper_types: Vec::new(),
    };
    tree.fix_mathml();
    tree.space_section_numbers();
    let cuts = opts.split.map(|at| tree.cut(at.level));
    let title = match cuts {
        Some(_) => None,
        None => tree.take_title(),
    };
    if let Some(fix) = opts.text {
        tree.fix_text(fix);
    }
    let tops: Vec<usize> = cuts
        .as_ref()
        .map_or(vec![0], |cuts| cuts.iter().map(|c| c.node).collect());
    for top in tops {
        tree.level_headings(top);
    }
    tree.fix_structure();
    tree.fix_content_models();
    let homes = match (&cuts, opts.split) {
        (Some(cuts), Some(at)) => tree.link_pieces(cuts, at.file),
        _ => HashMap::new(),
    };
    let (links, ids) = tree.fix_ids_and_links(opts.marker, &mut warnings);
    let title_types = tree.title_types.take().filter(|_| title.is_some());
    let wrapper_types = std::mem::take(&mut tree.wrapper_types);
    let (body, pieces) = tree.bodies(cuts);
    Ok(Fragment {
        title_types,
        title_is_heading: title.is_some(),
        title: title.or(opts.head_title),
        body,
        images: image_uses,
        links,
        ids,
        warnings: warnings.finish(),
        removed,
        pieces,
        homes,
        site_navigation: site_nav,
        unsupported: Vec::new(),
        hidden_letters: 0,
        body_types: wrapper_types,
        stylesheets: Vec::new(),
    })
}

/// Ordered, de-duplicated warnings with repeat counts.
#[derive(Default)]
pub(crate) struct Warnings {
    list: Vec<(Option<usize>, String, usize)>,
    index: HashMap<(Option<usize>, String), usize>,
}

impl Warnings {
    pub(crate) fn add(&mut self, msg: String) {
        self.add_at(None, msg);
    }

    /// A warning about source line `line`, where known.
    pub(crate) fn add_at(&mut self, line: Option<usize>, msg: String) {
        let key = (line, msg);
        if let Some(&i) = self.index.get(&key) {
            if let Some(entry) = self.list.get_mut(i) {
                entry.2 += 1;
            }
            return;
        }
        self.index.insert(key.clone(), self.list.len());
        self.list.push((key.0, key.1, 1));
    }

    pub(crate) fn finish(self) -> Vec<Note> {
        self.list
            .into_iter()
            .map(|(line, m, n)| Note {
                line,
                message: if n > 1 { format!("{m} ({n} times)") } else { m },
            })
            .collect()
    }
}

enum Kind {
    Root,
    Element(Elem),
    Text(String),
    /// Finished XML kept as it is (an inline SVG), with the ids it holds.
    Raw {
        xml: String,
        ids: Vec<String>,
    },
    Removed,
}

struct Elem {
    name: &'static str,
    attrs: Vec<(&'static str, String)>,
}

struct Node {
    kind: Kind,
    parent: usize,
    children: Vec<usize>,
}

/// Elements allowed inside phrasing-only content (plus `rt`/`rp`, which pass 3 keeps inside
/// `ruby` only).
fn is_phrasing(name: &str) -> bool {
    matches!(
        name,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "br"
            | "cite"
            | "code"
            | "del"
            | "dfn"
            | "em"
            | "i"
            | "img"
            | "input"
            | "ins"
            | "kbd"
            | "mark"
            | "math"
            | "q"
            | "ruby"
            | "rt"
            | "rp"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "u"
            | "var"
            | "wbr"
    )
}

/// Elements whose content model is their parent's.
fn is_transparent(name: &str) -> bool {
    matches!(name, "a" | "ins" | "del")
}

fn is_heading(name: &str) -> bool {
    heading_level(name).is_some()
}

const HEADINGS: [&str; 6] = ["h1", "h2", "h3", "h4", "h5", "h6"];

/// 1 to 6 for `h1` to `h6`.
fn heading_level(name: &str) -> Option<usize> {
    HEADINGS.iter().position(|h| *h == name).map(|i| i + 1)
}

/// A section number as headings print them: `1.1`, `3.5.2.`, `A.3` (a digit in it: a lone
/// capital is a drop cap, `<span>T</span>he`).
fn is_section_number(s: &str) -> bool {
    let s = s.trim();
    s.contains(|c: char| c.is_ascii_digit())
        && s.split('.').all(|p| {
            p.chars().all(|c| c.is_ascii_digit())
                || (p.len() <= 4 && p.chars().all(|c| c.is_ascii_uppercase()))
        })
}

/// Whether an element with attribute `key="value"` holds no words of the heading it is in:
/// a footnote mark, a page number.
fn not_heading_text(key: &str, value: &str) -> bool {
    let words = || value.split_ascii_whitespace();
    match key {
        "epub:type" => words().any(|w| matches!(w, "noteref" | "pagebreak")),
        "role" => words().any(|w| w == "doc-pagebreak"),
        "class" => words().any(|w| w == "pagenum"),
        _ => false,
    }
}

/// The id GitHub (and mdBook, and pandoc's `gfm`) give a heading: its text in lower case,
/// letters and digits of any script, `-` and `_` kept, each space a `-`, the rest left out.
/// `section` when nothing is left.
pub(crate) fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            out.push('-');
        }
    }
    if out.is_empty() {
        out.push_str("section");
    }
    out
}

fn is_void(name: &str) -> bool {
    matches!(name, "br" | "hr" | "img" | "input" | "wbr" | "col")
}

/// Attributes every kept element may carry.
fn is_global_attr(name: &str) -> bool {
    matches!(name, "id" | "class" | "lang" | "dir" | "title" | "style")
}

/// Output order of attributes, so serialisation does not depend on the parser's order.
fn attr_rank(name: &str) -> usize {
    const ORDER: [&str; 20] = [
        "epub:type",
        "role",
        "id",
        "href",
        "src",
        "alt",
        "class",
        "lang",
        "dir",
        "title",
        "style",
        "start",
        "reversed",
        "type",
        "colspan",
        "rowspan",
        "scope",
        "span",
        "width",
        "height",
    ];
    ORDER.iter().position(|n| *n == name).unwrap_or(ORDER.len())
}

enum Action {
    Keep(&'static str),
    Unwrap,
    /// Drop the element and its content; `true` adds a warning.
    Remove(bool),
    Img,
    /// `<object>`, `<embed>`: an image, or removed.
    Embedded,
    /// `<input>`: a checkbox, or removed.
    Input,
}

/// Where the children of an element just built go.
enum Next {
    /// Nowhere: it was removed with its content, or is void, or was written whole.
    Skip,
    /// Under this parent, at this depth.
    Into(usize, usize),
}

/// The elements kept as they are, in sorted order (for a binary search).
const KEPT: [&str; 57] = [
    "a",
    "address",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "cite",
    "col",
    "colgroup",
    "dd",
    "del",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "q",
    "rp",
    "rt",
    "ruby",
    "samp",
    "section",
    "small",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "var",
    "wbr",
];

fn classify(local: &str) -> Action {
    use Action::*;
    if let Ok(i) = KEPT.binary_search(&local) {
        return Keep(KEPT[i]);
    }
    match local {
        "abbr" | "acronym" => Keep("abbr"),
        "code" | "tt" => Keep("code"),
        "pre" | "listing" | "xmp" | "plaintext" => Keep("pre"),
        "s" | "strike" => Keep("s"),
        "span" | "big" | "blink" | "nobr" | "label" | "button" | "output" | "meter"
        | "progress" | "data" => Keep("span"),
        "ul" | "dir" | "menu" => Keep("ul"),
        // Sectioning and interactive wrappers whose content-model rules (no nested header,
        // one main, summary first in details, ...) we do not want to police: a div is always valid.
        "center" | "main" | "header" | "footer" | "nav" | "hgroup" | "search" | "dialog"
        | "details" | "summary" | "fieldset" | "legend" | "form" | "marquee" | "multicol" => {
            Keep("div")
        }
        "img" | "image" => Img,
        "object" | "embed" => Embedded,
        "input" => Input,
        "font" | "html" | "body" | "picture" | "canvas" | "map" | "slot" => Unwrap,
        "script" | "style" | "iframe" | "applet" | "noscript" | "noembed" | "template"
        | "frame" | "frameset" | "noframes" | "link" | "select" | "textarea" | "datalist"
        | "keygen" | "video" | "audio" | "title" => Remove(true),
        "meta" | "base" | "basefont" | "head" | "area" | "source" | "track" | "param"
        | "option" | "optgroup" | "spacer" => Remove(false),
        _ => Unwrap,
    }
}

/// A web page's navigation: a `<nav>` (SICP's `Next: 1.2, Prev: Chapter 1, Up: …` bars), an
/// element with `role="navigation"`, or DocBook's `navheader`/`navfooter` blocks. Links to the
/// site's other pages mean nothing in a book, whose reader pages on and has a contents list.
fn is_site_navigation(el: ElementRef<'_>) -> bool {
    let e = el.value();
    e.name() == "nav"
        || e.attr("role") == Some("navigation")
        || e.classes().any(|c| matches!(c, "navheader" | "navfooter"))
        || is_link_bar(el)
}

/// Words of a bar of links between a site's pages (`Next: 1.2, Previous: 1, Up: 1
/// [Contents][Index]`), outside its links.
const NAV_WORDS: [&str; 10] = [
    "next", "previous", "prev", "up", "home", "contents", "index", "top", "back", "forward",
];

/// A block of links to a site's other pages and nothing else but the words that name them
/// ([`NAV_WORDS`]) and punctuation: what a generated page repeats at its top and bottom when
/// it has no `<nav>` (Texinfo's older `<div class="header">`). At least two links, one of the
/// words, no picture, heading or formula.
fn is_link_bar(el: ElementRef<'_>) -> bool {
    if !matches!(
        el.value().name(),
        "p" | "div" | "header" | "footer" | "table" | "ul" | "center"
    ) {
        return false;
    }
    let (mut links, mut named) = (0, false);
    for node in el.descendants() {
        match node.value() {
            PNode::Element(e) if e.name() == "a" => {
                let other_page = e
                    .attr("href")
                    .is_some_and(|h| !h.starts_with('#') && url_scheme(h).is_none());
                if !other_page {
                    return false;
                }
                links += 1;
            }
            PNode::Element(e)
                if is_heading(e.name()) || matches!(e.name(), "img" | "svg" | "math") =>
            {
                return false;
            }
            PNode::Text(t)
                if !node
                    .ancestors()
                    .any(|a| ElementRef::wrap(a).is_some_and(|a| a.value().name() == "a")) =>
            {
                for word in t
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    if !NAV_WORDS.contains(&word.to_lowercase().as_str()) {
                        return false;
                    }
                    named = true;
                }
            }
            _ => {}
        }
    }
    links >= 2 && named
}

struct Builder<'r> {
    nodes: Vec<Node>,
    images: &'r mut dyn ImageResolver,
    image_hrefs: HashMap<String, String>,
    image_uses: Vec<ImageUse>,
    warnings: Warnings,
    dropped_attrs: BTreeSet<String>,
    /// `epub:type` and `role` values of no vocabulary the book carries (or on an element
    /// that may not take them), with how often.
    dropped_types: BTreeMap<String, usize>,
    /// Elements removed with their content, `<name>` and how often, in order of first removal.
    removed: Vec<(String, usize)>,
    /// The source line of an element, where known (see [`Deep::line_of`]).
    line_of: &'r dyn Fn(NodeId) -> Option<usize>,
    /// Whether elements nested too deep were flattened, and the source line of the first.
    flattened: Option<Option<usize>>,
    /// Site navigation blocks left out (see [`is_site_navigation`]).
    site_nav: usize,
}

impl Builder<'_> {
    /// One warning for all the ways deep nesting was undone, at the first place known.
    fn deep_notes(&mut self, deep: &Deep<'_>) {
        match (deep.flattened.or(self.flattened), deep.cut) {
            (Some(line), _) => self.warnings.add_at(
                line,
                format!("flattened elements nested deeper than {MAX_DEPTH} levels"),
            ),
            (None, Some((line, count))) => self.warnings.add_at(
                line,
                format!(
                    "closed {count} element(s) nested more than {MAX_PARSE_DEPTH} levels deep \
                     where they opened; their text is kept"
                ),
            ),
            (None, None) => {}
        }
    }

    /// The notes that sum up the whole body: attributes dropped.
    fn summary_notes(&mut self) {
        if !self.dropped_attrs.is_empty() {
            let names: Vec<&str> = self.dropped_attrs.iter().map(String::as_str).collect();
            let message = format!("dropped unsupported attributes: {}", names.join(", "));
            self.warnings.add(message);
        }
        if !self.dropped_types.is_empty() {
            let total: usize = self.dropped_types.values().sum();
            let listed: Vec<String> = self
                .dropped_types
                .iter()
                .take(12)
                .map(|(v, n)| format!("{v} ({n})"))
                .collect();
            let more = if self.dropped_types.len() > 12 {
                ", …"
            } else {
                ""
            };
            self.warnings.add(format!(
                "dropped {total} epub:type/role value(s) outside the EPUB, z3998 and DPUB-ARIA \
                 vocabularies or not allowed where they stand: {}{more}",
                listed.join(", ")
            ));
        }
    }

    fn push(&mut self, parent: usize, kind: Kind) -> usize {
        let i = self.nodes.len();
        self.nodes.push(Node {
            kind,
            parent,
            children: Vec::new(),
        });
        if let Some(p) = self.nodes.get_mut(parent) {
            p.children.push(i);
        }
        i
    }

    fn push_text(&mut self, parent: usize, text: &str) {
        let clean: String = text.chars().filter(|&c| is_xml_char(c)).collect();
        if clean.is_empty() {
            return;
        }
        // Unwrapping leaves neighbouring text nodes; merging keeps the tree small.
        let last = self
            .nodes
            .get(parent)
            .and_then(|p| p.children.last().copied());
        if let Some(Node {
            kind: Kind::Text(t),
            ..
        }) = last.and_then(|l| self.nodes.get_mut(l))
        {
            t.push_str(&clean);
            return;
        }
        self.push(parent, Kind::Text(clean));
    }

    /// Pass 1. When it flattens deep nesting, [`Builder::flattened`] says where that began
    /// (if the parser recorded it).
    fn build(&mut self, root: ElementRef<'_>) -> Result<(), MarkupError> {
        let mut stack: Vec<_> = root.children().rev().map(|c| (c, 0, 0)).collect();
        while let Some((node, parent, depth)) = stack.pop() {
            let next = match ElementRef::wrap(node) {
                Some(el) => self.element(el, parent, depth)?,
                None => {
                    if let PNode::Text(t) = node.value() {
                        self.push_text(parent, &t.text);
                    }
                    Next::Skip
                }
            };
            if let Next::Into(parent, depth) = next {
                stack.extend(node.children().rev().map(|c| (c, parent, depth)));
            }
        }
        Ok(())
    }

    /// Copies (or unwraps, or drops) one element; says where its children go.
    fn element(
        &mut self,
        el: ElementRef<'_>,
        parent: usize,
        depth: usize,
    ) -> Result<Next, MarkupError> {
        let e = el.value();
        let (ns, local): (&str, &str) = (&e.name.ns, &e.name.local);
        let in_math = self.parent_name(parent).is_some_and(mathml::is_mathml);
        let math_local = match ns {
            mathml::MATHML_NS => Some(local),
            XHTML_NS if local.contains(':') => mathml::local_name(local, prefix_binding(el)),
            _ => None,
        };
        if let Some(math_local) = math_local {
            return Ok(self.mathml(el, math_local, parent, depth));
        }
        if ns == SVG_NS && local == "svg" && !in_math {
            return Ok(self.inline_svg(el, parent));
        }
        if ns != XHTML_NS {
            self.removed(local);
            return Ok(Next::Skip);
        }
        if in_math {
            // HTML inside MathML (mtext may hold it, no other token may): its text stays.
            return Ok(Next::Into(parent, depth));
        }
        if is_site_navigation(el) {
            self.site_nav += 1;
            return Ok(Next::Skip);
        }
        Ok(match classify(local) {
            Action::Remove(warn) => {
                if warn {
                    self.removed(local);
                }
                Next::Skip
            }
            Action::Unwrap => {
                if !matches!(
                    local,
                    "font" | "html" | "body" | "picture" | "canvas" | "map"
                ) {
                    self.warnings.add(format!(
                        "unwrapped unknown element <{}>",
                        shorten(local, 40)
                    ));
                }
                Next::Into(parent, depth)
            }
            Action::Img => {
                let src = e.attr("src").unwrap_or("").trim();
                self.image(e, src, e.attr("alt").unwrap_or(""), parent)?;
                Next::Skip
            }
            Action::Embedded => self.embedded(el, parent, depth)?,
            Action::Input => self.input(el, parent, depth),
            Action::Keep("time") => {
                let elem = time_element(self.filter_attrs("time", e), el);
                self.keep(elem, el.id(), parent, depth)
            }
            Action::Keep(name) => {
                let elem = self.filter_attrs(name, e);
                self.keep(elem, el.id(), parent, depth)
            }
        })
    }

    /// Adds `elem` (from the source's `node`) under `parent`, unless the nesting is too deep
    /// (then only its content is kept).
    fn keep(&mut self, elem: Elem, node: NodeId, parent: usize, depth: usize) -> Next {
        if depth >= MAX_DEPTH && !is_void(elem.name) {
            if self.flattened.is_none() {
                self.flattened = Some((self.line_of)(node));
            }
            return Next::Into(parent, depth);
        }
        let void = is_void(elem.name);
        let i = self.push(parent, Kind::Element(elem));
        if void {
            Next::Skip
        } else {
            Next::Into(i, depth + 1)
        }
    }

    fn parent_name(&self, i: usize) -> Option<&'static str> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Element(e)) => Some(e.name),
            _ => None,
        }
    }

    /// Counts an element removed with its content, for the chapter's one warning.
    fn removed(&mut self, local: &str) {
        let what = format!("<{}>", shorten(local, 40));
        match self.removed.iter_mut().find(|(w, _)| *w == what) {
            Some((_, n)) => *n += 1,
            None => self.removed.push((what, 1)),
        }
    }

    /// A MathML element: kept from the allow-list, its attributes from the schema's lists.
    fn mathml(&mut self, el: ElementRef<'_>, local: &str, parent: usize, depth: usize) -> Next {
        let Some(name) = mathml::element(local) else {
            if matches!(local, "annotation-xml" | "mglyph") {
                self.removed(local);
                return Next::Skip;
            }
            self.warnings
                .add(format!("unwrapped MathML element <{}>", shorten(local, 40)));
            return Next::Into(parent, depth);
        };
        let mut attrs = Vec::new();
        for (key, raw) in el.value().attrs.iter() {
            let (key, value): (&str, String) = (
                &key.local,
                raw.chars().filter(|&c| is_xml_char(c)).collect(),
            );
            match mathml::attribute(name, key) {
                Some("id") if value.trim().is_empty() => {}
                Some(k) => attrs.push((k, value)),
                None if key.len() > 2 && key.starts_with("on") => self.warnings.add(format!(
                    "removed event-handler attribute {}",
                    shorten(key, 40)
                )),
                None if key.starts_with("xmlns") => {}
                None => {
                    if self.dropped_attrs.len() < 30 {
                        self.dropped_attrs.insert(shorten(key, 40));
                    }
                }
            }
        }
        attrs.sort_by_key(|(n, _)| attr_rank(n));
        self.keep(Elem { name, attrs }, el.id(), parent, depth)
    }

    /// An inline drawing, cleaned like an SVG image file.
    fn inline_svg(&mut self, el: ElementRef<'_>, parent: usize) -> Next {
        match inline_svg::clean(el) {
            Ok(svg) => {
                if let Some(removed) = svg.removed {
                    self.warnings.add(removed);
                }
                self.push(
                    parent,
                    Kind::Raw {
                        xml: svg.xml,
                        ids: svg.ids,
                    },
                );
            }
            Err(_) => self.removed("svg"),
        }
        Next::Skip
    }

    /// `<object>` or `<embed>` of a local image becomes an `<img>` (an object's fallback
    /// content as its `alt`); anything else is removed, an object's fallback content kept.
    fn embedded(
        &mut self,
        el: ElementRef<'_>,
        parent: usize,
        depth: usize,
    ) -> Result<Next, MarkupError> {
        let e = el.value();
        let object = &*e.name.local == "object";
        let src = e.attr(if object { "data" } else { "src" }).unwrap_or("");
        if is_local_image(src.trim(), e.attr("type")) {
            let alt = if object {
                fallback_text(el)
            } else {
                e.attr("title").unwrap_or("").to_string()
            };
            self.image(e, src.trim(), &alt, parent)?;
            return Ok(Next::Skip);
        }
        self.removed(&e.name.local);
        Ok(if object {
            Next::Into(parent, depth)
        } else {
            Next::Skip
        })
    }

    /// A checkbox stays, disabled (GFM task lists; a book is not a form); other inputs go.
    fn input(&mut self, el: ElementRef<'_>, parent: usize, depth: usize) -> Next {
        let e = el.value();
        if !e
            .attr("type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("checkbox"))
        {
            self.removed("input");
            return Next::Skip;
        }
        let mut attrs = vec![("type", "checkbox".to_string())];
        if e.attr("checked").is_some() {
            attrs.push(("checked", String::new()));
        }
        attrs.push(("disabled", String::new()));
        self.keep(
            Elem {
                name: "input",
                attrs,
            },
            el.id(),
            parent,
            depth,
        )
    }

    /// An `<img>` of `src` with `alt`, its other attributes from `el`. A remote, embedded or
    /// empty `src` leaves the alt text (and a warning).
    fn image(
        &mut self,
        el: &PElement,
        src: &str,
        alt: &str,
        parent: usize,
    ) -> Result<(), MarkupError> {
        let alt: String = alt.chars().filter(|&c| is_xml_char(c)).collect();
        let lower = src.to_ascii_lowercase();
        let reason = if src.is_empty() {
            Some("removed <img> without src".to_string())
        } else if lower.starts_with("http:")
            || lower.starts_with("https:")
            || lower.starts_with("//")
        {
            Some(format!("removed remote image {}", shorten(src, 200)))
        } else if lower.starts_with("data:") {
            Some(format!("removed embedded image {}", shorten(src, 40)))
        } else if url_scheme(src).is_some() {
            Some(format!(
                "removed image with unsupported URL {}",
                shorten(src, 200)
            ))
        } else if src.starts_with(['/', '\\']) {
            // A path from a web site's root names no file of the project (and reading it
            // would leave the project folder).
            Some(format!(
                "removed image with a path from a site's root {} (write it relative to the chapter)",
                shorten(src, 200)
            ))
        } else {
            None
        };
        if let Some(reason) = reason {
            self.warnings.add(reason);
            self.removed("img");
            self.push_text(parent, &alt);
            return Ok(());
        }
        let path = src.split(['?', '#']).next().unwrap_or(src);
        let decoded = percent_decode(path);
        let href = match self.image_hrefs.get(&decoded) {
            Some(h) => h.clone(),
            None => {
                let Ok(href) = self.images.resolve(&decoded) else {
                    // A picture that cannot be read: the resolver has said so (where, and
                    // why); its alt text stands in, as a browser shows it.
                    self.push_text(parent, &alt);
                    return Ok(());
                };
                self.image_hrefs.insert(decoded.clone(), href.clone());
                self.image_uses.push(ImageUse {
                    src: decoded,
                    href: href.clone(),
                });
                href
            }
        };
        let mut elem = self.filter_attrs("img", el);
        elem.attrs.push(("src", href));
        elem.attrs.push(("alt", alt));
        elem.attrs.sort_by_key(|(n, _)| attr_rank(n));
        self.push(parent, Kind::Element(elem));
        Ok(())
    }

    /// Counts the values of `attr` dropped, for the chapter's one warning.
    fn count_dropped(&mut self, attr: &str, dropped: Vec<String>) {
        for value in dropped {
            let key = format!("{attr}=\"{}\"", shorten(&value, 40));
            if self.dropped_types.len() < 200 || self.dropped_types.contains_key(&key) {
                *self.dropped_types.entry(key).or_default() += 1;
            }
        }
    }

    fn filter_attrs(&mut self, name: &'static str, el: &PElement) -> Elem {
        let mut attrs: Vec<(&'static str, String)> = Vec::new();
        let (mut lang, mut xml_lang) = (None, None);
        let (mut align, mut style) = (None, None);
        let mut anchor_name = None;
        for (key, raw) in el.attrs() {
            let value: String = raw.chars().filter(|&c| is_xml_char(c)).collect();
            let kept: Option<(&'static str, String)> = match key {
                "id" => non_empty(value.trim()).map(|v| ("id", v)),
                // An HTML 4 anchor: links to it name it by `name`, which XHTML 5 lacks.
                "name" if name == "a" => {
                    anchor_name = non_empty(value.trim());
                    continue;
                }
                "epub:type" => {
                    let (kept, dropped) = semantics::epub_types(name, &value);
                    self.count_dropped("epub:type", dropped);
                    non_empty(&kept.join(" ")).map(|v| ("epub:type", v))
                }
                "role" => {
                    let (kept, dropped) = semantics::role(name, &value);
                    self.count_dropped("role", dropped);
                    kept.map(|v| ("role", v))
                }
                "datetime" if name == "time" => {
                    semantics::is_datetime(&value).then(|| ("datetime", value.trim().to_string()))
                }
                "class" => non_empty(&value.split_whitespace().collect::<Vec<_>>().join(" "))
                    .map(|v| ("class", v)),
                "title" => Some(("title", value)),
                "lang" | "xml:lang" => {
                    let slot = if key == "lang" {
                        &mut lang
                    } else {
                        &mut xml_lang
                    };
                    *slot = valid_lang(&value);
                    continue;
                }
                "dir" => {
                    let v = value.trim().to_ascii_lowercase();
                    matches!(v.as_str(), "ltr" | "rtl" | "auto").then_some(("dir", v))
                }
                "style" => {
                    style = kept_style(name, &value);
                    continue;
                }
                "align"
                    if matches!(name, "p" | "div" | "td" | "th" | "caption")
                        || is_heading(name) =>
                {
                    align = text_align_value(&value);
                    continue;
                }
                "href" if name == "a" => match classify_href(&value) {
                    Href::Keep(v) => Some(("href", v)),
                    Href::Drop(reason) => {
                        self.warnings.add(reason);
                        continue;
                    }
                },
                _ if let Some(kept) = element_attr(name, key, &value) => kept,
                // Set by the caller (from an object's `data` too).
                "alt" | "src" | "data" | "type" if name == "img" => continue,
                k if k.len() > 2 && k.starts_with("on") => {
                    self.warnings.add(format!(
                        "removed event-handler attribute {}",
                        shorten(k, 40)
                    ));
                    continue;
                }
                k => {
                    if self.dropped_attrs.len() < 30 {
                        self.dropped_attrs.insert(shorten(k, 40));
                    }
                    continue;
                }
            };
            if let Some(kv) = kept {
                attrs.push(kv);
            }
        }
        if let Some(l) = lang.or(xml_lang) {
            attrs.push(("lang", l));
        }
        if let Some(id) = anchor_name.filter(|_| !attrs.iter().any(|(k, _)| *k == "id")) {
            attrs.push(("id", id));
        }
        if let Some(s) = style.or_else(|| align.map(|a| format!("text-align: {a}"))) {
            attrs.push(("style", s));
        }
        attrs.sort_by_key(|(n, _)| attr_rank(n));
        // bdo means nothing without a direction; the schema requires one.
        let name = if name == "bdo" && !attrs.iter().any(|(k, _)| *k == "dir") {
            "span"
        } else {
            name
        };
        Elem { name, attrs }
    }
}

/// The `epub:type` a note's markup keeps: `noteref` on a link; `footnote` and `endnote` on a
/// note (`aside` or list item), which is what Kobo's readers open as a pop-up (its EPUB
/// guidelines, "Footnotes/Endnotes"); `footnotes`/`endnotes` on the list or section holding
/// them. The deprecated `rearnote(s)` some tools still write become `endnote(s)`.
fn note_type(name: &str, value: &str) -> Option<&'static str> {
    match (name, value) {
        ("a", "noteref") => Some("noteref"),
        ("aside" | "li", "footnote") => Some("footnote"),
        ("aside" | "li", "endnote" | "rearnote") => Some("endnote"),
        ("section" | "ol" | "ul", "footnotes") => Some("footnotes"),
        ("section" | "ol" | "ul", "endnotes" | "rearnotes") => Some("endnotes"),
        _ => None,
    }
}

/// The attributes an element keeps that only some elements have (note references, list
/// numbering, table cells, image sizes), checked: Some(kept or dropped) when `key` is one of
/// them for `name`, None otherwise.
fn element_attr(name: &str, key: &str, value: &str) -> Option<Option<(&'static str, String)>> {
    let value = value.to_string();
    Some(match key {
        "start" if name == "ol" => value
            .trim()
            .parse::<i64>()
            .ok()
            .map(|n| ("start", n.to_string())),
        "reversed" if name == "ol" => Some(("reversed", "reversed".to_string())),
        "type" if name == "ol" => matches!(value.trim(), "1" | "a" | "A" | "i" | "I")
            .then(|| ("type", value.trim().to_string())),
        "colspan" if matches!(name, "td" | "th") => {
            bounded_int(&value, 1, 1000).map(|n| ("colspan", n.to_string()))
        }
        "rowspan" if matches!(name, "td" | "th") => {
            bounded_int(&value, 0, 65534).map(|n| ("rowspan", n.to_string()))
        }
        "scope" if name == "th" => {
            let v = value.trim().to_ascii_lowercase();
            matches!(v.as_str(), "row" | "col" | "rowgroup" | "colgroup").then_some(("scope", v))
        }
        "span" if name == "col" => bounded_int(&value, 1, 1000).map(|n| ("span", n.to_string())),
        "width" | "height" if name == "img" => {
            let k = if key == "width" { "width" } else { "height" };
            bounded_int(&value, 0, 100_000).map(|n| (k, n.to_string()))
        }
        _ => return None,
    })
}

/// The namespace the prefix of an element named `p:local` is bound to by an `xmlns:p`
/// attribute on it or an ancestor (the HTML parser keeps such names whole).
fn prefix_binding(el: ElementRef<'_>) -> Option<&str> {
    let (prefix, _) = el.value().name.local.split_once(':')?;
    let attr = format!("xmlns:{prefix}");
    std::iter::once(el)
        .chain(el.ancestors().filter_map(ElementRef::wrap))
        .find_map(|a| a.value().attr(&attr))
}

/// A `<time>` with a `datetime` HTML accepts, or whose text is one (`<time>1813</time>`:
/// written out, so that the text-fix stage may change the text); a `<span>` otherwise.
fn time_element(mut elem: Elem, el: ElementRef<'_>) -> Elem {
    if elem.attrs.iter().any(|(k, _)| *k == "datetime") {
        return elem;
    }
    let text: String = el.text().collect();
    if semantics::is_datetime(&text) {
        elem.attrs.push(("datetime", text.trim().to_string()));
    } else {
        elem.name = "span";
    }
    elem
}

/// Whether an `<object>`'s `data` or an `<embed>`'s `src` names an image in the project: a
/// relative URL with an image type or extension.
fn is_local_image(src: &str, media_type: Option<&str>) -> bool {
    let path = src
        .split(['?', '#'])
        .next()
        .unwrap_or(src)
        .to_ascii_lowercase();
    let typed = media_type.is_some_and(|t| t.trim().to_ascii_lowercase().starts_with("image/"));
    let named = [".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"]
        .iter()
        .any(|ext| path.ends_with(ext));
    !path.is_empty() && url_scheme(src).is_none() && !src.starts_with("//") && (typed || named)
}

/// An object's fallback content as text: what it says, and the alt text of its images.
fn fallback_text(el: ElementRef<'_>) -> String {
    let mut words = Vec::new();
    for node in el.descendants() {
        match node.value() {
            PNode::Text(t) => words.push(t.text.to_string()),
            PNode::Element(e) if &*e.name.local == "img" => {
                words.push(format!(" {} ", e.attr("alt").unwrap_or("")));
            }
            _ => {}
        }
    }
    words
        .concat()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// What an element keeps of its style attribute: its `text-align`, or an image's width.
fn kept_style(name: &str, style: &str) -> Option<String> {
    let align = text_align_from_style(style).map(|a| format!("text-align: {a}"));
    match name {
        "img" => align.or_else(|| width_from_style(style).map(|w| format!("width: {w}"))),
        _ => align,
    }
}

/// The `width` of a style attribute when it is a plain length (an object's size in `ex`
/// carried to the image that replaces it); other CSS is not kept.
fn width_from_style(style: &str) -> Option<String> {
    style.split(';').rev().find_map(|decl| {
        let (prop, value) = decl.split_once(':')?;
        let value = value.trim().to_ascii_lowercase();
        let number_end = value
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(value.len());
        let (number, unit) = value.split_at(number_end);
        let length = number.parse::<f32>().is_ok_and(|n| n > 0.0)
            && ["px", "em", "ex", "rem", "%", "pt", "cm", "mm", "in", "vw"].contains(&unit);
        (prop.trim().eq_ignore_ascii_case("width") && length).then_some(value)
    })
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

fn bounded_int(v: &str, min: u32, max: u32) -> Option<u32> {
    v.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (min..=max).contains(n))
}

/// BCP 47-shaped tags only; EPUBCheck rejects malformed language tags.
fn valid_lang(v: &str) -> Option<String> {
    let v = v.trim();
    let mut parts = v.split('-');
    let first = parts.next()?;
    let first_ok = (1..=8).contains(&first.len()) && first.chars().all(|c| c.is_ascii_alphabetic());
    let rest_ok =
        parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    (first_ok && rest_ok).then(|| v.to_string())
}

fn text_align_value(v: &str) -> Option<&'static str> {
    match v.trim().to_ascii_lowercase().as_str() {
        "left" => Some("left"),
        "right" => Some("right"),
        "center" | "middle" => Some("center"),
        "justify" => Some("justify"),
        _ => None,
    }
}

/// Keeps only `text-align` from a style attribute: arbitrary CSS (Word's `mso-*`) is noise at
/// best and a CSS error for EPUBCheck at worst.
fn text_align_from_style(style: &str) -> Option<&'static str> {
    style.split(';').rev().find_map(|decl| {
        let (prop, value) = decl.split_once(':')?;
        if prop.trim().eq_ignore_ascii_case("text-align") {
            text_align_value(value.trim_end_matches("!important"))
        } else {
            None
        }
    })
}

/// The scheme of a URL, lower-cased, if it has one.
fn url_scheme(url: &str) -> Option<String> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then(|| scheme.to_ascii_lowercase())
}

enum Href {
    Keep(String),
    Drop(String),
}

fn classify_href(raw: &str) -> Href {
    // Browsers ignore ASCII whitespace inside URLs ("java\nscript:"), so judge without it.
    let compact: String = raw
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .collect();
    if compact.is_empty() || compact == "#" {
        return Href::Drop("removed empty link target".to_string());
    }
    match url_scheme(&compact).as_deref() {
        Some("http" | "https") if !valid_host(&compact) => Href::Drop(format!(
            "removed link to {}: its host is not a valid domain name",
            shorten(&compact, 200)
        )),
        Some("http" | "https" | "mailto") => Href::Keep(encode_url(raw.trim())),
        Some("javascript") => Href::Drop("removed javascript: URL".to_string()),
        Some(s) => Href::Drop(format!(
            "removed link with unsupported URL scheme {}:",
            shorten(s, 20)
        )),
        None if compact.starts_with("//") => Href::Drop(format!(
            "removed scheme-relative link {}",
            shorten(&compact, 200)
        )),
        None => Href::Keep(encode_url(raw.trim())),
    }
}

/// Whether the host of an `http(s)` URL is one a URL parser takes (EPUBCheck reports RSC-020
/// for `https://../`): an IPv6 literal in brackets, or a domain whose labels but the last are
/// not empty, without the code points the URL standard forbids in a domain.
fn valid_host(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let authority = &rest[..rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len())];
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if let Some(literal) = host_port.strip_prefix('[') {
        return literal.split_once(']').is_some_and(|(ip, _)| {
            !ip.is_empty()
                && ip
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || ":.".contains(c))
        });
    }
    let host = host_port.split_once(':').map_or(host_port, |(h, _)| h);
    let forbidden = |c: char| c.is_control() || " #%/:<>?@[\\]^|".contains(c);
    let labels: Vec<&str> = host.split('.').collect();
    let (last, others) = labels.split_last().unwrap_or((&"", &[]));
    !host.is_empty()
        && !host.contains(forbidden)
        && others.iter().all(|l| !l.is_empty())
        && (!last.is_empty() || !others.is_empty())
}

/// Percent-encodes characters that are not allowed in a URL as written (spaces, `[` and `]`
/// outside an IPv6 host, a `%` that starts no escape, and the like: EPUBCheck's RSC-020);
/// non-ASCII stays, as IRIs allow it.
fn encode_url(s: &str) -> String {
    // `[…]` is allowed in the host only: `http://[::1]/`.
    let host_end = s
        .find("://")
        .map(|i| i + 3)
        .map(|h| h + s[h..].find(['/', '?', '#']).unwrap_or(s.len() - h))
        .unwrap_or(0);
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        let bad_percent = c == '%'
            && !s
                .get(i + 1..i + 3)
                .is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        let bracket = matches!(c, '[' | ']') && i >= host_end;
        if c.is_ascii_control() || " \"<>\\^`{|}".contains(c) || bad_percent || bracket {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `%XX` decoding; input that does not decode to UTF-8 is returned unchanged.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes.get(i).copied().unwrap_or(0);
        if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

struct Tree {
    nodes: Vec<Node>,
    /// The ids of the heading taken out as the title, and its slug: links to them go to the
    /// chapter's own heading.
    title_ids: Vec<String>,
    /// The `epub:type` of the heading taken out as the title (`z3998:ordinal z3998:roman`):
    /// the chapter's own heading carries it.
    title_types: Option<String>,
    /// The `epub:type` of the section the whole body is, when the title came from it (see
    /// [`Tree::wrapper_types_of`]).
    wrapper_types: Vec<String>,
}

impl Tree {
    fn elem(&self, i: usize) -> Option<&Elem> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Element(e)) => Some(e),
            _ => None,
        }
    }

    fn name(&self, i: usize) -> Option<&'static str> {
        self.elem(i).map(|e| e.name)
    }

    fn children(&self, i: usize) -> Vec<usize> {
        self.nodes
            .get(i)
            .map(|n| n.children.clone())
            .unwrap_or_default()
    }

    fn is_blank_text(&self, i: usize) -> bool {
        match self.nodes.get(i).map(|n| &n.kind) {
            // Only ASCII whitespace is inter-element whitespace; a no-break space is text.
            Some(Kind::Text(t)) => t.chars().all(|c| c.is_ascii_whitespace()),
            Some(Kind::Removed) => true,
            _ => false,
        }
    }

    /// Renames an element, keeping only attributes valid on any element (the old name's
    /// specific ones, like `colspan` or `start`, would be invalid on the new one).
    fn rename(&mut self, i: usize, name: &'static str) {
        if let Some(Node {
            kind: Kind::Element(e),
            ..
        }) = self.nodes.get_mut(i)
        {
            e.name = name;
            // Structural semantics stay (a note's type goes: what holds a note is fixed).
            e.attrs
                .retain(|(k, v)| is_global_attr(k) || (*k == "epub:type" && !v.contains("note")));
        }
    }

    fn remove(&mut self, i: usize) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.kind = Kind::Removed;
        }
    }

    /// Nodes in document order (pre-order), skipping removed ones.
    fn preorder(&self) -> Vec<usize> {
        self.preorder_from(0)
    }

    /// The nodes of `top`'s subtree in document order, skipping removed ones.
    fn preorder_from(&self, top: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![top];
        while let Some(i) = stack.pop() {
            let Some(n) = self.nodes.get(i) else { continue };
            if matches!(n.kind, Kind::Removed) {
                continue;
            }
            out.push(i);
            stack.extend(n.children.iter().rev().copied());
        }
        out
    }

    /// The nodes of `i`'s subtree, `i` first, in document order.
    fn subtree(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            out.push(i);
            if let Some(n) = self.nodes.get(i) {
                stack.extend(n.children.iter().rev().copied());
            }
        }
        out
    }

    /// A heading's text, white space collapsed, without its footnote marks and page numbers
    /// (`epub:type="pagebreak"`, Project Gutenberg's `<span class="pagenum">{ix}</span>`).
    fn heading_text(&self, heading: usize) -> String {
        let mut text = String::new();
        let mut stack = vec![heading];
        while let Some(i) = stack.pop() {
            let Some(n) = self.nodes.get(i) else { continue };
            match &n.kind {
                Kind::Text(t) => text.push_str(t),
                Kind::Element(e) if e.attrs.iter().any(|(k, v)| not_heading_text(k, v)) => {
                    continue;
                }
                _ => {}
            }
            stack.extend(n.children.iter().rev().copied());
        }
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The text of `i`'s subtree as written.
    fn raw_text(&self, i: usize) -> String {
        self.subtree(i)
            .into_iter()
            .filter_map(|n| match self.nodes.get(n).map(|n| &n.kind) {
                Some(Kind::Text(t)) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Pass 1b: a section number in an element of its own inside a heading
    /// (`<span>1.1</span><span>The Elements</span>`, as Texinfo writes them) is followed by the
    /// space the page's style gave it, in the text and in the title.
    fn space_section_numbers(&mut self) {
        let headings: Vec<usize> = self
            .preorder()
            .into_iter()
            .filter(|&i| self.name(i).is_some_and(is_heading))
            .collect();
        for h in headings {
            let children = self.children(h);
            for pair in children.windows(2) {
                let (number, next) = (pair[0], pair[1]);
                let text = self.raw_text(number);
                if self.elem(number).is_none()
                    || !is_section_number(&text)
                    || text.ends_with(char::is_whitespace)
                    || self.raw_text(next).starts_with(char::is_whitespace)
                {
                    continue;
                }
                let space = self.nodes.len();
                self.nodes.push(Node {
                    kind: Kind::Text(" ".to_string()),
                    parent: h,
                    children: Vec::new(),
                });
                if let Some(n) = self.nodes.get_mut(h)
                    && let Some(at) = n.children.iter().position(|&c| c == number)
                {
                    n.children.insert(at + 1, space);
                }
            }
        }
    }

    /// Heading levels under the chapter's `h1`: the body's highest level becomes `h2`, the
    /// author's steps down are kept, and none goes more than one below the heading before it
    /// (a skipped level is what Ace's heading-order rule reports), capped at `h6`.
    fn level_headings(&mut self, top: usize) {
        let order = self.preorder_from(top);
        let level = |t: &Tree, i: usize| t.name(i).and_then(heading_level);
        let Some(base) = order.iter().filter_map(|&i| level(self, i)).min() else {
            return;
        };
        let mut before = 1;
        for &i in &order {
            let Some(l) = level(self, i) else { continue };
            let wanted = (l + 2).saturating_sub(base).clamp(2, 6);
            before = wanted.min(before + 1);
            self.rename(i, HEADINGS.get(before - 1).copied().unwrap_or("h6"));
        }
    }

    /// Takes out the heading that opens the body, if any, and returns its text: of any level,
    /// since chapters of a book often open with `## Title` (the Rust book's sections) or an
    /// `<h3>` (SICP's pages). Links before it (a page's "jump to top" arrow, a breadcrumb) do
    /// not stop it from opening the body; text, pictures, formulas do.
    fn take_title(&mut self) -> Option<String> {
        let found =
            self.preorder()
                .into_iter()
                .find(|&i| match self.nodes.get(i).map(|n| &n.kind) {
                    Some(Kind::Text(t)) => !t.trim().is_empty() && !self.in_link(i),
                    Some(Kind::Element(e)) if is_heading(e.name) => true,
                    Some(Kind::Element(e)) => {
                        matches!(e.name, "img" | "math" | "hr" | "pre") && !self.in_link(i)
                    }
                    Some(Kind::Raw { .. }) => true,
                    _ => false,
                })?;
        if !self.name(found).is_some_and(is_heading) {
            return None;
        }
        let types = self
            .elem(found)
            .and_then(|e| e.attrs.iter().find(|(k, _)| *k == "epub:type"))
            .map(|(_, v)| v.clone());
        let wrapper = self.wrapper_types_of(found);
        let title = self.take_heading(found).0;
        if title.is_some() {
            self.title_types = types;
            self.wrapper_types = wrapper;
        }
        title
    }

    /// The `epub:type` values of the `<section>` (or `<article>`) that holds `heading` and is
    /// the whole body, as Standard Ebooks wraps every file (`<section epub:type="titlepage">`).
    /// The chapter's own section takes them with the heading, so that the source's
    /// stylesheets still find the heading where they look for it (SE's hide the title page's
    /// heading, which its picture shows: kept visible, the title came out twice).
    fn wrapper_types_of(&self, heading: usize) -> Vec<String> {
        let Some(parent) = self.nodes.get(heading).map(|n| n.parent) else {
            return Vec::new();
        };
        let is_wrapper = matches!(self.name(parent), Some("section" | "article"))
            && self.nodes.get(parent).is_some_and(|n| n.parent == 0)
            && self
                .children(0)
                .into_iter()
                .all(|c| c == parent || self.is_blank_text(c));
        let value = self
            .elem(parent)
            .filter(|_| is_wrapper)
            .and_then(|e| e.attrs.iter().find(|(k, _)| *k == "epub:type"));
        value.map_or_else(Vec::new, |(_, v)| {
            v.split_ascii_whitespace().map(str::to_string).collect()
        })
    }

    /// Whether node `i` is inside a link (`a` element).
    fn in_link(&self, i: usize) -> bool {
        let mut node = i;
        while let Some(parent) = self
            .nodes
            .get(node)
            .map(|n| n.parent)
            .filter(|&p| p != node)
        {
            if self.name(parent) == Some("a") {
                return true;
            }
            if parent == 0 {
                return false;
            }
            node = parent;
        }
        false
    }

    /// Pass 2b: the text-fix stage on every text node outside code and notation.
    fn fix_text(&mut self, fix: &mut super::TextFixer<'_>) {
        let mut stack = vec![0];
        while let Some(i) = stack.pop() {
            let Some(n) = self.nodes.get_mut(i) else {
                continue;
            };
            match &mut n.kind {
                Kind::Text(t) => {
                    if let Some(fixed) = fix(t) {
                        *t = fixed;
                    }
                }
                Kind::Element(e) if VERBATIM.contains(&e.name) => {}
                Kind::Removed => {}
                _ => stack.extend(n.children.iter().rev().copied()),
            }
        }
    }

    /// Pass 3: parent/child rules of lists, tables, figures, ruby.
    fn fix_structure(&mut self) {
        // (node, inside a caption): the Schematron forbids tables in captions.
        let mut stack = vec![(0usize, false)];
        while let Some((i, in_caption)) = stack.pop() {
            if self.name(i) == Some("math") {
                continue; // repaired by its own pass
            }
            if self.name(i) == Some("table") && in_caption {
                self.rename(i, "div");
            }
            if let Some(name) = self.name(i) {
                let parent = self.nodes.get(i).map(|n| n.parent).unwrap_or(0);
                let pname = self.name(parent).unwrap_or("");
                let wrong_parent = match name {
                    "li" => !matches!(pname, "ul" | "ol"),
                    "dt" | "dd" => pname != "dl",
                    "tr" => !matches!(pname, "thead" | "tbody" | "tfoot" | "table"),
                    "td" | "th" => pname != "tr",
                    "thead" | "tbody" | "tfoot" | "caption" | "colgroup" => pname != "table",
                    "col" => pname != "colgroup",
                    "figcaption" => pname != "figure",
                    "rt" | "rp" => pname != "ruby",
                    _ => false,
                };
                if wrong_parent {
                    match name {
                        "col" => self.remove(i),
                        "rt" | "rp" => self.rename(i, "span"),
                        _ => self.rename(i, "div"),
                    }
                }
                match self.name(i) {
                    Some("ul" | "ol") => self.wrap_list_items(i),
                    Some("dl") => self.check_dl(i),
                    Some("table") => self.order_table(i),
                    Some("thead" | "tbody" | "tfoot") => self.keep_only(i, &["tr"]),
                    Some("tr") => self.keep_only(i, &["td", "th"]),
                    Some("colgroup") => self.keep_only(i, &["col"]),
                    Some("figure") => self.check_figure(i),
                    Some("ruby") => self.check_ruby(i),
                    _ => {}
                }
            }
            let child_in_caption = in_caption || self.name(i) == Some("caption");
            stack.extend(
                self.children(i)
                    .into_iter()
                    .rev()
                    .map(|c| (c, child_in_caption)),
            );
        }
    }

    /// Wraps each run of non-`li` content in a list into its own `li`.
    fn wrap_list_items(&mut self, list: usize) {
        let old = self.children(list);
        let mut new = Vec::with_capacity(old.len());
        let mut run: Vec<usize> = Vec::new();
        for c in old {
            if self.name(c) == Some("li") {
                self.flush_run(list, &mut run, &mut new);
                new.push(c);
            } else if run.is_empty() && self.is_blank_text(c) {
                new.push(c);
            } else {
                run.push(c);
            }
        }
        self.flush_run(list, &mut run, &mut new);
        if let Some(n) = self.nodes.get_mut(list) {
            n.children = new;
        }
    }

    fn flush_run(&mut self, list: usize, run: &mut Vec<usize>, new: &mut Vec<usize>) {
        if run.is_empty() {
            return;
        }
        if run.iter().all(|&c| self.is_blank_text(c)) {
            new.append(run);
            return;
        }
        let li = self.nodes.len();
        for &c in run.iter() {
            if let Some(n) = self.nodes.get_mut(c) {
                n.parent = li;
            }
        }
        self.nodes.push(Node {
            kind: Kind::Element(Elem {
                name: "li",
                attrs: Vec::new(),
            }),
            parent: list,
            children: std::mem::take(run),
        });
        new.push(li);
    }

    /// A `dl` must be groups of `dt`+ then `dd`+; anything else becomes plain `div`s.
    fn check_dl(&mut self, dl: usize) {
        let mut seen_dt = false;
        let mut last: Option<&str> = None;
        let mut ok = true;
        for c in self.children(dl) {
            if self.is_blank_text(c) {
                continue;
            }
            match self.name(c) {
                Some("dt") => seen_dt = true,
                Some("dd") if seen_dt => {}
                _ => ok = false,
            }
            last = self.name(c);
        }
        if ok && (last.is_none() || last == Some("dd")) {
            return;
        }
        self.rename(dl, "div");
        for c in self.children(dl) {
            if matches!(self.name(c), Some("dt" | "dd")) {
                self.rename(c, "div");
            }
        }
    }

    /// Table children in schema order: caption, colgroup*, thead, tbody*/tr*, tfoot.
    fn order_table(&mut self, table: usize) {
        let mut caption = Vec::new();
        let mut colgroups = Vec::new();
        let mut thead = Vec::new();
        let mut body = Vec::new();
        let mut tfoot = Vec::new();
        let mut has_tbody = false;
        let mut has_tr = false;
        for c in self.children(table) {
            match self.name(c) {
                Some("caption") if caption.is_empty() => caption.push(c),
                Some("colgroup") => colgroups.push(c),
                Some("thead") if thead.is_empty() => thead.push(c),
                Some("tfoot") if tfoot.is_empty() => tfoot.push(c),
                Some("thead" | "tfoot" | "tbody") => {
                    self.rename(c, "tbody");
                    has_tbody = true;
                    body.push(c);
                }
                Some("tr") => {
                    has_tr = true;
                    body.push(c);
                }
                _ if self.is_blank_text(c) => {}
                _ => self.remove(c),
            }
        }
        if has_tbody && has_tr {
            // Mixing bare rows and row groups is invalid; bare rows cannot occur from the
            // HTML5 parser, so dropping them only guards against our own renaming.
            body.retain(|&c| self.name(c) != Some("tr"));
        }
        let mut new = caption;
        new.extend(colgroups);
        new.extend(thead);
        new.extend(body);
        new.extend(tfoot);
        if let Some(n) = self.nodes.get_mut(table) {
            n.children = new;
        }
    }

    fn keep_only(&mut self, i: usize, allowed: &[&str]) {
        for c in self.children(i) {
            let ok = self.name(c).is_some_and(|n| allowed.contains(&n)) || self.is_blank_text(c);
            if !ok {
                self.remove(c);
            }
        }
    }

    /// `figcaption` must be the first or last child of its `figure`, and only one.
    fn check_figure(&mut self, fig: usize) {
        let kids: Vec<usize> = self
            .children(fig)
            .into_iter()
            .filter(|&c| !self.is_blank_text(c))
            .collect();
        let first = kids.first().copied();
        let last = kids.last().copied();
        let mut kept = false;
        for &c in &kids {
            if self.name(c) == Some("figcaption") {
                if !kept && (Some(c) == first || Some(c) == last) {
                    kept = true;
                } else {
                    self.rename(c, "div");
                }
            }
        }
    }

    /// `ruby` must be groups of base text followed by `rt` or `rp rt rp` annotations;
    /// anything else loses its ruby markup (the text stays).
    fn check_ruby(&mut self, ruby: usize) {
        let mut state = 0u8;
        for c in self.children(ruby) {
            if self.is_blank_text(c) {
                continue;
            }
            state = match (state, self.name(c)) {
                (1 | 2, Some("rt")) | (4, Some("rp")) => 2,
                (1 | 2, Some("rp")) => 3,
                (3, Some("rt")) => 4,
                (0..=2, Some(n)) if n != "rt" && n != "rp" => 1,
                (0..=2, None) => 1,
                _ => 5,
            };
        }
        if state == 2 {
            return;
        }
        self.rename(ruby, "span");
        for c in self.children(ruby) {
            if matches!(self.name(c), Some("rt" | "rp")) {
                self.rename(c, "span");
            }
        }
    }

    /// For each node, whether it has a block child, directly or through phrasing or
    /// transparent children (`order` is the preorder). MathML is phrasing whatever it holds.
    fn block_holders(&self, order: &[usize]) -> Vec<bool> {
        let mut has_block = vec![false; self.nodes.len()];
        for &i in order.iter().rev() {
            let Some(n) = self.nodes.get(i) else { continue };
            let math = self.name(i) == Some("math");
            let any = !math
                && n.children.iter().any(|&c| match self.name(c) {
                    Some(cn) if !is_phrasing(cn) => true,
                    Some(_) => has_block.get(c).copied().unwrap_or(false),
                    None => false,
                });
            if let Some(slot) = has_block.get_mut(i) {
                *slot = any;
            }
        }
        has_block
    }

    /// Pass 4: phrasing/flow content models.
    fn fix_content_models(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Ctx {
            Flow,
            /// Flow content without headings, sectioning or `address` (inside th, dt, address).
            FlowPlain,
            Phrasing,
        }
        let order = self.preorder();
        let has_block = self.block_holders(&order);
        const IN_A: u8 = 1;
        const IN_DFN: u8 = 2;
        let mut stack = vec![(0usize, Ctx::Flow, 0u8)];
        while let Some((i, ctx, anc)) = stack.pop() {
            let mut child_ctx = ctx;
            let mut child_anc = anc;
            if let Some(mut name) = self.name(i) {
                let blocky = has_block.get(i).copied().unwrap_or(false);
                let parent = self.nodes.get(i).map(|n| n.parent).unwrap_or(0);
                // The parser nests links (and dfn) through table cells; renaming a ruby leaves
                // its rt. EPUBCheck's Schematron rejects a-in-a and dfn-in-dfn at any depth.
                if (name == "a" && anc & IN_A != 0)
                    || (name == "dfn" && anc & IN_DFN != 0)
                    || (matches!(name, "rt" | "rp") && self.name(parent) != Some("ruby"))
                {
                    name = if blocky && ctx != Ctx::Phrasing {
                        "div"
                    } else {
                        "span"
                    };
                    self.rename(i, name);
                }
                if ctx == Ctx::Phrasing {
                    if !is_phrasing(name) {
                        if is_void(name) {
                            self.remove(i);
                            continue;
                        }
                        self.rename(i, "span");
                    }
                } else {
                    if ctx == Ctx::FlowPlain && is_heading(name) {
                        self.rename(i, "p");
                        name = "p";
                    }
                    if ctx == Ctx::FlowPlain
                        && matches!(name, "section" | "article" | "aside" | "address")
                    {
                        self.rename(i, "div");
                        name = "div";
                    }
                    if blocky && (name == "p" || (is_phrasing(name) && !is_transparent(name))) {
                        self.rename(i, "div");
                        name = "div";
                    }
                    child_ctx = match name {
                        "p" | "pre" => Ctx::Phrasing,
                        n if is_heading(n) => Ctx::Phrasing,
                        n if is_transparent(n) => ctx,
                        n if is_phrasing(n) => Ctx::Phrasing,
                        "th" | "dt" | "address" => Ctx::FlowPlain,
                        _ => ctx,
                    };
                }
                child_anc = anc
                    | match self.name(i) {
                        Some("a") => IN_A,
                        Some("dfn") => IN_DFN,
                        _ => 0,
                    };
            }
            if self.name(i) == Some("math") {
                continue;
            }
            for c in self.children(i).into_iter().rev() {
                stack.push((c, child_ctx, child_anc));
            }
        }
    }

    /// Pass 5: unique NCName ids, none looking generated but the renderer's (marked with
    /// `marker`); internal links must hit one. Returns the relative links and the ids.
    fn fix_ids_and_links(
        &mut self,
        marker: Option<&str>,
        warnings: &mut Warnings,
    ) -> (Vec<String>, HashMap<String, String>) {
        let order = self.preorder();
        self.give_headings_ids(&order);
        let mut ids = Ids::new(marker);
        for &i in &order {
            let e = match self.nodes.get_mut(i).map(|n| &mut n.kind) {
                Some(Kind::Element(e)) => e,
                Some(Kind::Raw { xml, ids: svg_ids }) => {
                    unique_svg_ids(xml, svg_ids, i, &mut ids);
                    continue;
                }
                _ => continue,
            };
            let Some(pos) = e.attrs.iter().position(|(k, _)| *k == "id") else {
                continue;
            };
            let raw = e.attrs.get(pos).map(|(_, v)| v.clone()).unwrap_or_default();
            match ids.assign(&raw) {
                Assigned::Same => {}
                Assigned::Renamed(id) => {
                    if let Some(slot) = e.attrs.get_mut(pos) {
                        slot.1 = id;
                    }
                }
                Assigned::Duplicate => {
                    warnings.add(format!("dropped duplicate id {}", shorten(&raw, 60)));
                    e.attrs.remove(pos);
                }
            }
        }
        self.type_notes(&order);
        self.label_checkboxes(&order);
        // Links to the heading taken out as the title go to the chapter's own heading.
        let title_id = format!("{}chapter-title", super::ids::GENERATED_ID_PREFIX);
        for raw in &self.title_ids {
            ids.alias(raw, &title_id);
        }
        let mut links = Vec::new();
        let mut seen_links = HashSet::new();
        for &i in &order {
            let Some(Node {
                kind: Kind::Element(e),
                ..
            }) = self.nodes.get_mut(i)
            else {
                continue;
            };
            let Some(pos) = e.attrs.iter().position(|(k, _)| *k == "href") else {
                continue;
            };
            let href = e.attrs.get(pos).map(|(_, v)| v.clone()).unwrap_or_default();
            if let Some(frag) = href.strip_prefix('#') {
                let decoded = percent_decode(frag);
                match ids.target(frag).or_else(|| ids.target(&decoded)) {
                    Some(id) => {
                        if let Some(slot) = e.attrs.get_mut(pos) {
                            slot.1 = format!("#{id}");
                        }
                    }
                    None => {
                        warnings.add(format!(
                            "removed link to missing target {}",
                            shorten(&href, 60)
                        ));
                        e.attrs.remove(pos);
                    }
                }
            } else if url_scheme(&href).is_none() && seen_links.insert(href.clone()) {
                links.push(href);
            }
        }
        (links, ids.into_map())
    }

    /// Notes marked only by what holds them, typed as the notes they are so that readers open
    /// them as pop-ups and the book numbers them: an item with an id of a list in a
    /// `footnotes`/`endnotes` container (Standard Ebooks' `<section epub:type="endnotes"><ol>
    /// <li id="note-1">`, pandoc's `<section role="doc-endnotes">`) becomes a `footnote` or
    /// `endnote`, and a link whose role is `doc-noteref` (pandoc's) a `noteref`; Project
    /// Gutenberg's by their classes ([`Self::type_gutenberg_notes`]).
    fn type_notes(&mut self, order: &[usize]) {
        self.type_gutenberg_notes(order);
        for &i in order {
            let Some(e) = self.elem(i) else {
                continue;
            };
            let attr = |key: &str| e.attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
            if attr("epub:type").is_some() {
                continue;
            }
            let kind = match e.name {
                "a" if attr("role").is_some_and(|r| r == "doc-noteref") => Some("noteref"),
                "li" if attr("id").is_some() => self.notes_list(i),
                _ => None,
            };
            if let (Some(kind), Some(Kind::Element(e))) =
                (kind, self.nodes.get_mut(i).map(|n| &mut n.kind))
            {
                e.attrs.push(("epub:type", kind.to_string()));
                e.attrs.sort_by_key(|(n, _)| attr_rank(n));
            }
        }
    }

    /// Project Gutenberg's notes, marked by class only: a link of class `fnanchor` is a
    /// `noteref`, and a `div` of class `footnote` holding the one element such a link points
    /// at (`<div class="footnote"><p><a id="Footnote_1" href="#FNanchor_1" class="label">[1]
    /// </a> …`) becomes an `aside` typed `footnote` that takes over that element's id.
    fn type_gutenberg_notes(&mut self, order: &[usize]) {
        let has_class = |e: &Elem, class: &str| {
            e.attrs
                .iter()
                .any(|(k, v)| *k == "class" && v.split_whitespace().any(|c| c == class))
        };
        let untyped = |e: &Elem| !e.attrs.iter().any(|(k, _)| *k == "epub:type");
        let mut targets = HashSet::new();
        for &i in order {
            let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) else {
                continue;
            };
            if e.name != "a" || !has_class(e, "fnanchor") || !untyped(e) {
                continue;
            }
            let href = e.attrs.iter().find(|(k, _)| *k == "href");
            if let Some((_, frag)) = href.and_then(|(_, h)| h.split_once('#')) {
                targets.insert(frag.to_string());
                e.attrs.push(("epub:type", "noteref".to_string()));
                e.attrs.sort_by_key(|(n, _)| attr_rank(n));
            }
        }
        for &i in order {
            let is_note = self
                .elem(i)
                .is_some_and(|e| e.name == "div" && has_class(e, "footnote") && untyped(e));
            if is_note && let Some(id) = self.take_only_id(i, &targets) {
                self.rename(i, "aside");
                if let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) {
                    e.attrs.retain(|(k, _)| *k != "id");
                    e.attrs.push(("id", id));
                    e.attrs.push(("epub:type", "footnote".to_string()));
                    e.attrs.sort_by_key(|(n, _)| attr_rank(n));
                }
            }
        }
    }

    /// The id under `node` (itself included) that is one of `targets`, taken off the element
    /// that has it (an empty link left with nothing is removed); None (and nothing taken)
    /// unless there is exactly one.
    fn take_only_id(&mut self, node: usize, targets: &HashSet<String>) -> Option<String> {
        let found: Vec<usize> = self
            .subtree(node)
            .into_iter()
            .filter(|&i| {
                self.elem(i).is_some_and(|e| {
                    e.attrs
                        .iter()
                        .any(|(k, v)| *k == "id" && targets.contains(v))
                })
            })
            .collect();
        let [only] = found[..] else {
            return None;
        };
        let Some(Kind::Element(e)) = self.nodes.get_mut(only).map(|n| &mut n.kind) else {
            return None;
        };
        let at = e.attrs.iter().position(|(k, _)| *k == "id")?;
        let id = e.attrs.remove(at).1;
        // Gutenberg's `<a id="Footnote_1"></a>` is then nothing at all.
        let empty = e.name == "a" && e.attrs.is_empty();
        if empty && self.children(only).iter().all(|&c| self.is_blank_text(c)) {
            self.remove(only);
        }
        Some(id)
    }

    /// `footnote` or `endnote` when list item `li` is an item (not one nested in another) of
    /// a list that is, or is in, a `footnotes` or `endnotes` container (up to the nearest
    /// section).
    fn notes_list(&self, li: usize) -> Option<&'static str> {
        let mut node = self.nodes.get(li)?.parent;
        while node != 0 {
            let e = self.elem(node)?;
            let attr = |key: &str| e.attrs.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
            match (
                attr("epub:type").map(String::as_str),
                attr("role").map(String::as_str),
            ) {
                (Some("footnotes"), _) => return Some("footnote"),
                (Some("endnotes"), _) | (_, Some("doc-endnotes")) => return Some("endnote"),
                _ if matches!(e.name, "li" | "section" | "aside" | "body") => return None,
                _ => node = self.nodes.get(node)?.parent,
            }
        }
        None
    }

    /// A task list's checkbox is labelled, through `aria-labelledby`, by its item's own text:
    /// the phrasing content after it, wrapped in a `span` with a generated id, so that a task
    /// holding a nested list is not named by the nested tasks' text too. A checkbox with no
    /// text after it is labelled by the element it opens (which gets a generated id when it has
    /// none). A form control needs a label (Ace), and `<label>` is not kept.
    fn label_checkboxes(&mut self, order: &[usize]) {
        let mut made = 0;
        for &i in order {
            let parent = self.nodes.get(i).map(|n| n.parent);
            let is_box = self.elem(i).is_some_and(|e| e.name == "input");
            let Some(p) = parent.filter(|&p| is_box && p != 0) else {
                continue;
            };
            made += 1;
            let id = format!("{}task-{made}", super::ids::GENERATED_ID_PREFIX);
            let own = self.own_text_after(p, i);
            let id = match own.iter().all(|&c| self.is_blank_text(c)) {
                true => self.id_or(p, id),
                false => self.wrap_in_span(p, &own, id),
            };
            if let Some(Kind::Element(input)) = self.nodes.get_mut(i).map(|n| &mut n.kind) {
                input.attrs.push(("aria-labelledby", id));
            }
        }
    }

    /// The children of `parent` after `child` up to its first block: the text `child` opens.
    fn own_text_after(&self, parent: usize, child: usize) -> Vec<usize> {
        let siblings = self.children(parent);
        let from = siblings
            .iter()
            .position(|&c| c == child)
            .map_or(0, |p| p + 1);
        siblings
            .get(from..)
            .unwrap_or_default()
            .iter()
            .copied()
            .take_while(|&c| match self.nodes.get(c).map(|n| &n.kind) {
                Some(Kind::Element(e)) => is_phrasing(e.name),
                _ => true,
            })
            .collect()
    }

    /// The id of element `i`, given `id` first when it has none.
    fn id_or(&mut self, i: usize, id: String) -> String {
        let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) else {
            return id;
        };
        match e.attrs.iter().find(|(k, _)| *k == "id") {
            Some((_, had)) => had.clone(),
            None => {
                e.attrs.insert(0, ("id", id.clone()));
                id
            }
        }
    }

    /// Puts `run`, consecutive children of `parent`, into a new `span` with `id`; returns the id.
    fn wrap_in_span(&mut self, parent: usize, run: &[usize], id: String) -> String {
        let span = self.nodes.len();
        self.nodes.push(Node {
            kind: Kind::Element(Elem {
                name: "span",
                attrs: vec![("id", id.clone())],
            }),
            parent,
            children: run.to_vec(),
        });
        for &c in run {
            if let Some(n) = self.nodes.get_mut(c) {
                n.parent = span;
            }
        }
        if let Some(n) = self.nodes.get_mut(parent) {
            let at = n.children.iter().position(|c| run.first() == Some(c));
            n.children.retain(|c| !run.contains(c));
            n.children.insert(at.unwrap_or(n.children.len()), span);
        }
        id
    }

    /// Every heading without an id gets its [`slug`], numbered `-1`, `-2`… past the first as
    /// GitHub numbers them, and never one the author gave another element (or the title).
    fn give_headings_ids(&mut self, order: &[usize]) {
        let mut taken: HashSet<String> = order
            .iter()
            .filter_map(|&i| match self.nodes.get(i).map(|n| &n.kind) {
                Some(Kind::Element(e)) => e
                    .attrs
                    .iter()
                    .find(|(k, _)| *k == "id")
                    .map(|a| vec![a.1.clone()]),
                Some(Kind::Raw { ids, .. }) => Some(ids.clone()),
                _ => None,
            })
            .flatten()
            .chain(self.title_ids.iter().cloned())
            .collect();
        // Where the numbering of each slug goes on: linear in the headings, however many
        // have one text.
        let mut next = HashMap::new();
        for &i in order {
            let Some(e) = self.elem(i) else { continue };
            if !is_heading(e.name) || e.attrs.iter().any(|(k, _)| *k == "id") {
                continue;
            }
            let base = slug(&self.heading_text(i));
            let id = match taken.contains(&base) {
                false => base,
                true => super::ids::next_free(&base, 1, &taken, &mut next),
            };
            taken.insert(id.clone());
            if let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) {
                e.attrs.insert(0, ("id", id));
            }
        }
    }

    /// Pass 6: XHTML text of `top`'s children, without recursion.
    fn serialize(&self, top: usize) -> String {
        enum Step {
            Open(usize),
            Close(&'static str),
        }
        let mut out = String::new();
        let mut stack: Vec<Step> = self
            .children(top)
            .into_iter()
            .rev()
            .map(Step::Open)
            .collect();
        while let Some(step) = stack.pop() {
            match step {
                Step::Close(name) => {
                    out.push_str("</");
                    out.push_str(name);
                    out.push('>');
                }
                Step::Open(i) => match self.nodes.get(i).map(|n| &n.kind) {
                    Some(Kind::Text(t)) => out.push_str(&escape_text(t)),
                    Some(Kind::Raw { xml, .. }) => out.push_str(xml),
                    Some(Kind::Element(e)) => {
                        out.push('<');
                        out.push_str(e.name);
                        if e.name == "math" {
                            out.push_str(" xmlns=\"");
                            out.push_str(mathml::MATHML_NS);
                            out.push('"');
                        }
                        for (k, v) in &e.attrs {
                            out.push(' ');
                            out.push_str(k);
                            out.push_str("=\"");
                            out.push_str(&escape_attr(v));
                            out.push('"');
                        }
                        if is_void(e.name) {
                            out.push_str("/>");
                        } else {
                            out.push('>');
                            stack.push(Step::Close(e.name));
                            stack.extend(self.children(i).into_iter().rev().map(Step::Open));
                        }
                    }
                    _ => {}
                },
            }
        }
        out
    }
}

/// Keeps an inline drawing's ids unique in the chapter: one already used is renamed (with
/// the references to it in the drawing); the others are assigned like any element's.
fn unique_svg_ids(xml: &mut String, svg_ids: &[String], node: usize, ids: &mut Ids<'_>) {
    for id in svg_ids {
        let mut n = 0;
        let new = loop {
            let raw = match n {
                0 => id.clone(),
                _ => format!("svg{node}-{n}-{id}"),
            };
            match ids.assign(&raw) {
                Assigned::Same => break raw,
                Assigned::Renamed(new) => break new,
                Assigned::Duplicate => n += 1,
            }
        };
        if new != *id {
            *xml = inline_svg::rename_id(xml, id, &new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_elements_are_sorted_for_the_binary_search() {
        assert!(KEPT.windows(2).all(|w| w[0] < w[1]));
        assert!(matches!(classify("blockquote"), Action::Keep("blockquote")));
        assert!(matches!(classify("tt"), Action::Keep("code")));
    }

    #[test]
    fn percent_decode_handles_bad_escapes() {
        assert_eq!(percent_decode("a%20b.png"), "a b.png");
        assert_eq!(percent_decode("100%.png"), "100%.png");
        assert_eq!(percent_decode("%C3%A9"), "é");
        assert_eq!(percent_decode("%FF"), "%FF");
    }

    #[test]
    fn href_classification() {
        assert!(matches!(
            classify_href(" java\tscript:alert(1)"),
            Href::Drop(_)
        ));
        assert!(matches!(classify_href("vbscript:x"), Href::Drop(_)));
        assert!(matches!(classify_href("//evil.com/x"), Href::Drop(_)));
        match classify_href("other file.html#a") {
            Href::Keep(v) => assert_eq!(v, "other%20file.html#a"),
            Href::Drop(r) => panic!("dropped: {r}"),
        }
        assert!(matches!(
            classify_href("https://example.com/"),
            Href::Keep(_)
        ));
    }

    #[test]
    fn style_keeps_only_text_align() {
        assert_eq!(
            text_align_from_style("mso-x: 1; TEXT-ALIGN : Center"),
            Some("center")
        );
        assert_eq!(text_align_from_style("color: red"), None);
    }

    fn md(src: &str) -> Fragment {
        let f = super::super::markdown_to_xhtml(
            src,
            &mut super::super::test_support::Recorder::default(),
        )
        .expect("converts");
        super::super::test_support::assert_well_formed(&f);
        f
    }

    #[test]
    fn urls_are_encoded_where_not_valid_as_written() {
        assert_eq!(
            encode_url("https://e.com/s?tags[]=a&q=100%&r=%41"),
            "https://e.com/s?tags%5B%5D=a&q=100%25&r=%41"
        );
        assert_eq!(
            encode_url("http://[::1]:80/a[1]"),
            "http://[::1]:80/a%5B1%5D"
        );
        assert_eq!(encode_url("my file.md#x y"), "my%20file.md#x%20y");
        assert_eq!(encode_url("a[b].md"), "a%5Bb%5D.md");
    }

    #[test]
    fn site_navigation_is_left_out_with_one_note() {
        let f = super::super::html_to_xhtml(
            "<body><nav class=\"header\"><a href=\"1.2.html\">Next: 1.2</a></nav><h3>1.1 T</h3>\
             <p>Text.</p><div class=\"navfooter\"><a href=\"x.html\">Prev</a></div>\
             <div role=\"navigation\">Up</div></body>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("1.1 T"));
        assert_eq!(f.body, "<p>Text.</p>");
        assert!(f.links.is_empty());
        assert_eq!(f.site_navigation, 3);
        assert!(f.removed.is_empty(), "not content the reader loses");
        // Without <nav>: a bar of links to the site's pages, as older Texinfo writes it.
        let f = super::super::html_to_xhtml(
            "<body><div class=\"header\"><p>Next: <a href=\"1.2.html\">1.2</a>, Previous: \
             <a href=\"1.html\">1</a> [<a href=\"index.html\">Contents</a>]</p></div><h3>1.1 T</h3>\
             <p>Next: <a href=\"a.html\">the story</a> and <a href=\"b.html\">more</a>.</p>\
             <p><a href=\"#x\">Up</a> <a href=\"c.html\">Next</a></p></body>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.site_navigation, 1);
        assert_eq!(f.title.as_deref(), Some("1.1 T"));
        assert!(
            f.body.contains("the story") && f.body.contains(">Up<"),
            "{}",
            f.body
        );
    }

    #[test]
    fn a_page_opening_with_links_is_titled_by_its_first_heading_and_numbers_stay_words() {
        // SICP's pages: a "jump to top" arrow and anchors before the heading, the section number
        // and title in spans of their own.
        let f = super::super::html_to_xhtml(
            "<head><title>SICP 2e: 1.1</title></head><body><section>\
             <span class=\"top jump\" title=\"Jump to top\"><a href=\"#pagetop\">⇡</a></span>\
             <a id=\"pagetop\"></a><h3><span class=\"secnum\">1.1</span>\
             <span class=\"sectitle\">The Elements</span></h3><p>Text.</p></section></body>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("1.1 The Elements"));
        assert!(f.title_is_heading);
        // A drop cap is no number; text before the heading keeps the page's <title>.
        let f = super::super::html_to_xhtml(
            "<title>Site</title><h1><span>T</span>he End</h1>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("The End"));
        let f = super::super::html_to_xhtml(
            "<title>Site</title><p>Intro.</p><h1>Late</h1>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("Site"));
        assert!(!f.title_is_heading);
    }

    #[test]
    fn links_to_hosts_no_url_parser_takes_are_removed() {
        for good in [
            "https://example.com/a",
            "http://example.com.",
            "https://user@例子.测试:8080/x?q#f",
            "http://[::1]/",
            "https://a_b.example/",
        ] {
            assert!(valid_host(good), "{good}");
        }
        for bad in [
            "https://../",
            "https://",
            "http://a..b/",
            "http://.x/",
            "http://a b/",
            "http://[]/",
        ] {
            assert!(!valid_host(bad), "{bad}");
        }
        assert!(matches!(classify_href("https://../"), Href::Drop(_)));
    }

    #[test]
    fn slugs_are_githubs() {
        assert_eq!(
            slug("Sending Data Between Two Tasks"),
            "sending-data-between-two-tasks"
        );
        assert_eq!(slug("The `Option<T>` Enum!"), "the-optiont-enum");
        assert_eq!(slug("第一章 风起"), "第一章-风起");
        assert_eq!(slug("Ünïcode_ok-1"), "ünïcode_ok-1");
        assert_eq!(slug("?!"), "section");
    }

    #[test]
    fn every_heading_gets_a_unique_id_clear_of_the_authors() {
        let f = md(
            "# Title\n\n## Usage\n\n## Usage\n\n<p id=\"notes\">x</p>\n\n## Notes\n\n\
             ## Title\n\n## 第二节\n\n[u](#usage-1) [t](#title) [n](#notes-1) [c](#第二节)\n",
        );
        assert!(f.body.contains("<h2 id=\"usage\">Usage</h2>"), "{}", f.body);
        assert!(f.body.contains("<h2 id=\"usage-1\">Usage</h2>"));
        assert!(f.body.contains("<p id=\"notes\">x</p>"));
        assert!(f.body.contains("<h2 id=\"notes-1\">Notes</h2>"));
        // The title's slug is taken by the title: a later heading like it is numbered.
        assert!(f.body.contains("<h2 id=\"title-1\">Title</h2>"));
        assert!(f.body.contains("<h2 id=\"第二节\">第二节</h2>"));
        assert!(f.body.contains("href=\"#usage-1\""));
        assert!(f.body.contains("href=\"#notes-1\""));
        assert!(f.body.contains("href=\"#第二节\""));
        // A link to the heading taken out as the title goes to the chapter's own heading.
        assert!(
            f.body.contains("href=\"#epubforge-chapter-title\""),
            "{}",
            f.body
        );
        assert_eq!(
            f.ids.get("title").map(String::as_str),
            Some("epubforge-chapter-title")
        );
        assert!(
            super::super::test_support::notes(&f).is_empty(),
            "{:?}",
            f.warnings
        );
    }

    #[test]
    fn a_heading_id_of_the_authors_is_kept_and_a_digit_slug_made_valid() {
        let f = md("Intro\n\n<h2 id=\"mine\">Mine</h2>\n\n## 1.2 Two\n\n[a](#mine) [b](#12-two)\n");
        assert!(f.body.contains("<h2 id=\"mine\">Mine</h2>"), "{}", f.body);
        assert!(f.body.contains("<h2 id=\"id-12-two\">1.2 Two</h2>"));
        assert!(f.body.contains("href=\"#id-12-two\""));
    }
}
