//! Pass 1, the build: copies the parser's tree into the sanitiser's own arena, element by
//! element with an explicit stack (no recursion however deep the source), as the element
//! policy says ([`super::policy`]): Presentation MathML and inline SVG kept, cleaned; local
//! images resolved, `<object>`/`<embed>` of one made an `<img>`; checkboxes disabled; the
//! nesting capped at [`MAX_DEPTH`]. What it removes is counted for the chapter's warnings.

use std::borrow::Cow;
use std::collections::HashMap;

use html5ever::{LocalName, ns};
use rustc_hash::FxHashMap;
use scraper::ElementRef;
use scraper::Node as PNode;
use scraper::node::Element as PElement;

use super::super::parse::{MAX_PARSE_DEPTH, NodeId};
use super::super::{ImageResolver, ImageUse, LeftOut, MarkupError, is_xml_char};
use super::attrs::{self, Dropped, attr_rank};
use super::policy::{Action, classify, is_site_navigation, is_void};
use super::urls::{percent_decode, url_scheme};
use super::{Deep, Elem, Kind, MAX_DEPTH, Node, Warnings, inline_svg, mathml, semantics, shorten};

mod light;

pub(crate) use light::{is_light, is_light_element, run_light};

/// What the build pass hands the passes after it.
pub(super) struct Built<'a> {
    /// The arena, node 0 the root (its text borrowed from the source's tree).
    pub nodes: Vec<Node<'a>>,
    /// The images the body shows, each once.
    pub image_uses: Vec<ImageUse>,
    /// The warnings so far, the build's summary among them.
    pub warnings: Warnings,
    /// Elements removed with their content, `<name>` and how often.
    pub removed: Vec<(String, usize)>,
    /// Site navigation blocks left out (see [`is_site_navigation`]).
    pub site_nav: Vec<LeftOut>,
}

/// Pass 1 over `root`'s children, with the warnings that sum it up.
pub(super) fn run<'a>(
    root: ElementRef<'a>,
    deep: &Deep<'_>,
    images: &mut dyn ImageResolver,
    warnings: Warnings,
) -> Result<Built<'a>, MarkupError> {
    // The arena and the root's list sized for the source's nodes (the whole document's,
    // counted without a walk), most of which are kept.
    let room = root.tree().values().len() + 1;
    let mut b = Builder::new(room, root.children().count(), deep, images, warnings);
    b.build(root, room)?;
    Ok(b.finish(deep))
}

impl<'r, 'a> Builder<'r, 'a> {
    /// A builder with room for `room` nodes, `top` of them at the top.
    fn new(
        room: usize,
        top: usize,
        deep: &Deep<'r>,
        images: &'r mut dyn ImageResolver,
        warnings: Warnings,
    ) -> Builder<'r, 'a> {
        let mut nodes = Vec::with_capacity(room);
        nodes.push(Node {
            kind: Kind::Root,
            parent: 0,
            children: Vec::with_capacity(top),
        });
        Builder {
            nodes,
            images,
            image_hrefs: HashMap::new(),
            image_uses: Vec::new(),
            warnings,
            dropped: Dropped::default(),
            removed: Vec::new(),
            line_of: deep.line_of,
            flattened: None,
            site_nav: Vec::new(),
            actions: FxHashMap::default(),
        }
    }

    /// What the build made, with the warnings that sum it up.
    fn finish(mut self, deep: &Deep<'_>) -> Built<'a> {
        self.deep_notes(deep);
        self.dropped.notes(&mut self.warnings);
        Built {
            nodes: self.nodes,
            image_uses: self.image_uses,
            warnings: self.warnings,
            removed: self.removed,
            site_nav: self.site_nav,
        }
    }
}

/// Where the children of an element just built go.
enum Next {
    /// Nowhere: it was removed with its content, or is void, or was written whole.
    Skip,
    /// Under this parent, at this depth.
    Into(usize, usize),
}

/// The state of the build pass: the arena it fills and what it counts on the way.
struct Builder<'r, 'a> {
    nodes: Vec<Node<'a>>,
    images: &'r mut dyn ImageResolver,
    image_hrefs: HashMap<String, String>,
    image_uses: Vec<ImageUse>,
    warnings: Warnings,
    /// Attributes and `epub:type`/`role` values dropped, for the chapter's summary.
    dropped: Dropped,
    /// Elements removed with their content, `<name>` and how often, in order of first removal.
    removed: Vec<(String, usize)>,
    /// The source line of an element, where known (see [`Deep::line_of`]).
    line_of: &'r dyn Fn(NodeId) -> Option<usize>,
    /// Whether elements nested too deep were flattened, and the source line of the first.
    flattened: Option<Option<usize>>,
    /// Site navigation blocks left out (see [`is_site_navigation`]).
    site_nav: Vec<LeftOut>,
    /// What [`classify`] said of each element name met so far: a chapter names a few kinds
    /// of element many times, and an interned name is hashed and compared as a number.
    actions: FxHashMap<LocalName, Action>,
}

impl<'a> Builder<'_, 'a> {
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

    /// Element `name` (the name it is kept under) with the attributes of the source's `el`
    /// it keeps (see [`attrs::filter`]).
    fn filter_attrs(&mut self, name: &'static str, el: &PElement) -> Elem {
        // Most elements have no attribute, and keep their name (a `bdo` without one does not).
        if el.attrs().next().is_none() && name != "bdo" {
            return Elem {
                name,
                attrs: Vec::new(),
            };
        }
        attrs::filter(name, el.attrs(), &mut self.dropped, &mut self.warnings)
    }

    fn push(&mut self, parent: usize, kind: Kind<'a>) -> usize {
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

    /// Adds text under `parent`, without the characters XML forbids; borrowed from the
    /// source when it has none.
    fn push_text(&mut self, parent: usize, text: Cow<'a, str>) {
        let clean = match crate::xml::only_xml_chars(&text) {
            true => text,
            false => text.chars().filter(|&c| is_xml_char(c)).collect(),
        };
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
            t.to_mut().push_str(&clean);
            return;
        }
        self.push(parent, Kind::Text(clean));
    }

    /// Pass 1. When it flattens deep nesting, [`Builder::flattened`] says where that began
    /// (if the parser recorded it).
    /// `room`: how many nodes the stack may hold at most (the document's).
    fn build(&mut self, root: ElementRef<'a>, room: usize) -> Result<(), MarkupError> {
        let mut stack = Vec::with_capacity(room);
        stack.extend(root.children().rev().map(|c| (c, 0, 0)));
        while let Some((node, parent, depth)) = stack.pop() {
            let next = match ElementRef::wrap(node) {
                Some(el) => self.element(el, parent, depth)?,
                None => {
                    if let PNode::Text(t) = node.value() {
                        self.push_text(parent, Cow::Borrowed(&t.text));
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
        let local: &str = &e.name.local;
        // The parser's namespaces are interned: compared as numbers, not as URLs.
        let (html, ns) = (e.name.ns == ns!(html), &e.name.ns);
        let in_math = self.parent_name(parent).is_some_and(mathml::is_mathml);
        let math_local = match html {
            false if *ns == ns!(mathml) => Some(local),
            true if local.contains(':') => mathml::local_name(local, prefix_binding(el)),
            _ => None,
        };
        if let Some(math_local) = math_local {
            return Ok(self.mathml(el, math_local, parent, depth));
        }
        if *ns == ns!(svg) && local == "svg" && !in_math {
            return Ok(self.inline_svg(el, parent));
        }
        if !html {
            self.removed(local);
            return Ok(Next::Skip);
        }
        if in_math {
            // HTML inside MathML (mtext may hold it, no other token may): its text stays.
            return Ok(Next::Into(parent, depth));
        }
        if is_site_navigation(el) {
            self.left_out(el);
            return Ok(Next::Skip);
        }
        Ok(match self.action(&e.name.local) {
            Action::Remove(warn) => {
                if warn {
                    self.removed(local);
                }
                Next::Skip
            }
            Action::Unwrap => {
                self.unwrapped(local);
                Next::Into(parent, depth)
            }
            Action::Img => {
                let src = e.attr("src").unwrap_or("").trim();
                self.image(e, src, e.attr("alt"), parent)?;
                Next::Skip
            }
            Action::Embedded => self.embedded(el, parent, depth)?,
            Action::Input => self.input(el, parent, depth),
            Action::Media => {
                // A book carries no sound or film: the player goes (a removed-content
                // warning), the text its author wrote for readers without one stays.
                self.removed(local);
                Next::Into(parent, depth)
            }
            Action::Keep("time") => {
                let elem = time_element(self.filter_attrs("time", e), el);
                self.keep(elem, el, parent, depth)
            }
            Action::Keep(name) => {
                let elem = self.filter_attrs(name, e);
                self.keep(elem, el, parent, depth)
            }
        })
    }

    /// Warns of an element unwrapped, unless it is one whose loss means nothing.
    fn unwrapped(&mut self, local: &str) {
        if !matches!(
            local,
            "font" | "html" | "body" | "picture" | "canvas" | "map"
        ) {
            self.warnings.add(format!(
                "unwrapped unknown element <{}>",
                shorten(local, 40)
            ));
        }
    }

    /// What the policy does with an HTML element named `local`: classified once per name.
    fn action(&mut self, local: &LocalName) -> Action {
        if let Some(&action) = self.actions.get(local) {
            return action;
        }
        let action = classify(local);
        self.actions.insert(local.clone(), action);
        action
    }

    /// Adds `elem` (from the source's `el`) under `parent`, unless the nesting is too deep
    /// (then only its content is kept).
    fn keep(&mut self, elem: Elem, el: ElementRef<'_>, parent: usize, depth: usize) -> Next {
        let line_of = self.line_of;
        let line = move || line_of(el.id());
        self.keep_at(elem, line, el.children().count(), parent, depth)
    }

    /// [`Builder::keep`] of an element of `children` children, written at `line()`.
    fn keep_at(
        &mut self,
        elem: Elem,
        line: impl FnOnce() -> Option<usize>,
        children: usize,
        parent: usize,
        depth: usize,
    ) -> Next {
        if depth >= MAX_DEPTH && !is_void(elem.name) {
            if self.flattened.is_none() {
                self.flattened = Some(line());
            }
            return Next::Into(parent, depth);
        }
        let void = is_void(elem.name);
        let i = self.push(parent, Kind::Element(elem));
        // Room for the children it will most likely have (a chapter's section holds every
        // paragraph): its list is not grown one doubling at a time.
        if !void && let Some(n) = self.nodes.get_mut(i) {
            n.children.reserve_exact(children);
        }
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

    /// Records a site navigation block left out: where, what it said and its letters, for
    /// the chapter's warning and the text ledger.
    fn left_out(&mut self, el: ElementRef<'_>) {
        let text: String = el.text().collect();
        let said = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let first = el.text().map(str::trim).find(|t| !t.is_empty());
        self.site_nav.push(LeftOut {
            line: (self.line_of)(el.id()),
            text: shorten(&said, 80),
            first: first.unwrap_or_default().to_string(),
            letters: crate::ledger::count(&text),
        });
    }

    /// Counts an element removed with its content, for the chapter's one warning.
    fn removed(&mut self, local: &str) {
        self.removed_as(format!("<{}>", shorten(local, 40)), 1);
    }

    /// Counts `n` removals of what `what` names, for the chapter's one warning.
    fn removed_as(&mut self, what: String, n: usize) {
        match self.removed.iter_mut().find(|(w, _)| *w == what) {
            Some((_, count)) => *count += n,
            None => self.removed.push((what, n)),
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
                None => self.dropped.name(key),
            }
        }
        attrs.sort_by_key(|(n, _)| attr_rank(n));
        self.keep(Elem { name, attrs }, el, parent, depth)
    }

    /// An inline drawing, cleaned like an SVG image file; the local pictures its `<image>`s
    /// draw are carried into the book as an `<img>`'s are, their hrefs rewritten. A picture
    /// that cannot be carried is a removed element (a warning), not a repair of the markup.
    fn inline_svg(&mut self, el: ElementRef<'_>, parent: usize) -> Next {
        let mut carried = HashMap::new();
        for src in inline_svg::local_pictures(el) {
            if !carried.contains_key(&src)
                && let Some(href) = self.picture_href(src.trim())
            {
                carried.insert(src, href);
            }
        }
        match inline_svg::clean(el, &|src| carried.get(src).cloned()) {
            Ok(svg) => {
                if let Some(removed) = svg.removed {
                    self.warnings.add(removed);
                }
                for (what, n) in svg.pictures_lost {
                    self.removed_as(format!("<image> of an <svg> with {what}"), n);
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

    /// The href in the book of the local picture `src` (a relative URL as written), carried
    /// into the book once however often the chapter shows it; None when it cannot be read
    /// (the resolver has said where and why).
    fn picture_href(&mut self, src: &str) -> Option<String> {
        let decoded = percent_decode(picture_path(src));
        if let Some(href) = self.image_hrefs.get(&decoded) {
            return Some(href.clone());
        }
        let href = self.images.resolve(&decoded)?;
        self.image_hrefs.insert(decoded.clone(), href.clone());
        self.image_uses.push(ImageUse {
            src: decoded,
            href: href.clone(),
        });
        Some(href)
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
            self.image(e, src.trim(), Some(&alt), parent)?;
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
            el,
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
        given: Option<&str>,
        parent: usize,
    ) -> Result<(), MarkupError> {
        let alt: String = (given.unwrap_or("").chars())
            .filter(|&c| is_xml_char(c))
            .collect();
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
            self.push_text(parent, alt.into());
            return Ok(());
        }
        let stem = given
            .is_none()
            .then(|| file_stem(&percent_decode(picture_path(src))));
        let Some(href) = self.picture_href(src) else {
            // A picture that cannot be read: the resolver has said so (where, and why); its
            // alt text stands in, as a browser shows it.
            self.push_text(parent, alt.into());
            return Ok(());
        };
        let alt = match stem {
            None => alt,
            Some(stem) => {
                // An `<img>` without `alt` (EPUB requires one): an empty one would say the
                // picture is decoration, and Send-to-Kindle rejects it; its file's name says
                // what it is, as the Kindle target names an empty one.
                self.warnings
                    .add("gave pictures without alt their file's name as alt".to_string());
                stem
            }
        };
        let mut elem = self.filter_attrs("img", el);
        elem.attrs.push(("src", href));
        elem.attrs.push(("alt", alt));
        elem.attrs.sort_by_key(|(n, _)| attr_rank(n));
        self.push(parent, Kind::Element(elem));
        Ok(())
    }
}

/// The path part of a picture's relative URL: without its query and fragment.
fn picture_path(src: &str) -> &str {
    src.split(['?', '#']).next().unwrap_or(src)
}

/// `../img/the map.png` -> `the map`: the alt of a picture that has none; `image` when the
/// name is empty.
fn file_stem(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let stem: String = stem.chars().filter(|&c| is_xml_char(c)).collect();
    match stem.trim() {
        "" => "image".to_string(),
        s => s.to_string(),
    }
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
