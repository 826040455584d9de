//! One walk over the elements of a well-formed XML entry, in document order, gathering its
//! [`XmlSummary`]: the same walk whether the elements come from roxmltree's tree
//! ([`of_tree`]) or from the lean scan of the text ([`super::lean`]).

use super::ncx::{NcxFacts, NcxWalk};
use super::walk::{Element, each_element};
use super::*;
use crate::inspect::fixed_layout::Viewport;

const NS_XHTML: &str = "http://www.w3.org/1999/xhtml";

/// Where the walk is with respect to the root's first `<head>`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Head {
    Before,
    In,
    After,
}

/// The summary of one entry, built an element at a time.
pub(super) struct Summarizer<'t> {
    locator: Locator<'t>,
    xhtml: bool,
    ncx: bool,
    ids: HashSet<String>,
    links: Vec<Reference>,
    /// Some once the first `<base>` was met: its `href`, if it has one.
    base: Option<Option<String>>,
    viewport: Option<Viewport>,
    head: Head,
    head_semantics: Vec<(Place, String)>,
    html_root: Option<(Place, bool, bool)>,
    /// An NCX's walk for its rules.
    ncx_walk: Option<NcxWalk<'t>>,
}

/// The summary of an entry, and what the NCX rules read of it when it is an NCX (an entry
/// named `.ncx`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Summary {
    pub xml: XmlSummary,
    pub ncx: Option<NcxFacts>,
}

impl<'t> Summarizer<'t> {
    /// A summary of the entry `entry` whose text is `text`, before its first element.
    pub(super) fn new(entry: &str, text: &'t str) -> Self {
        let ncx = has_extension(entry, &["ncx"]);
        Summarizer {
            locator: Locator::of_text(entry, text),
            xhtml: is_xhtml_name(entry),
            ncx,
            ids: HashSet::new(),
            links: Vec::new(),
            base: None,
            viewport: None,
            head: Head::Before,
            head_semantics: Vec::new(),
            html_root: None,
            ncx_walk: ncx.then(|| NcxWalk::new(entry, text)),
        }
    }

    /// Takes in the next element in document order.
    pub(super) fn element(&mut self, e: &Element) {
        if !e.attrs.is_empty() {
            self.attributes(e);
        }
        if self.xhtml {
            self.xhtml_element(e);
        }
        if let Some(walk) = &mut self.ncx_walk {
            walk.element(e);
        }
        if e.depth == 0 && e.local == "html" {
            self.html_root = Some((
                self.locator.place(e.pos),
                e.attr("lang").is_some_and(|l| !l.trim().is_empty()),
                e.attr_ns(NS_XML, "lang")
                    .is_some_and(|l| !l.trim().is_empty()),
            ));
        }
    }

    /// The ids and references among the attributes of `e`.
    fn attributes(&mut self, e: &Element) {
        let rel = (e.local == "link").then(|| e.attr("rel")).flatten();
        let html = e.ns == Some(NS_XHTML);
        for a in e.attrs {
            if a.local == "id" && matches!(a.ns, None | Some(NS_XML)) {
                self.ids.insert(a.value.to_string());
            }
            let kind = match a.ns {
                None if self.xhtml => {
                    references::reference_kind(e.local, html, rel, a.local, false)
                }
                Some(NS_XLINK) if self.xhtml => {
                    references::reference_kind(e.local, html, rel, a.local, true)
                }
                None if self.ncx && a.local == "src" && e.local == "content" => {
                    Some(Kind::Hyperlink)
                }
                _ => None,
            };
            if let Some(kind) = kind
                && !a.value.trim().is_empty()
            {
                self.links.push(Reference {
                    at: self.locator.line_col(e.pos),
                    raw: a.value.to_string(),
                    kind,
                });
            }
        }
    }

    /// The first `<base>`, the first viewport `<meta>`, `epub:type` in the root's `<head>`.
    fn xhtml_element(&mut self, e: &Element) {
        if self.base.is_none() && e.local == "base" {
            self.base = Some(e.attr("href").map(str::to_string));
        }
        if self.viewport.is_none()
            && e.local == "meta"
            && e.attr("name").is_some_and(fixed_layout::is_viewport)
        {
            self.viewport = Some(Viewport {
                location: self.locator.place(e.pos),
                content: e.attr("content").unwrap_or_default().to_string(),
            });
        }
        match self.head {
            Head::Before if e.depth == 1 && e.local == "head" => self.head = Head::In,
            Head::In if e.depth <= 1 => self.head = Head::After,
            _ => {}
        }
        if self.head == Head::In && e.attr_ns(NS_OPS, "type").is_some() {
            let at = self.locator.place(e.pos);
            self.head_semantics.push((at, e.local.to_string()));
        }
    }

    /// The summary of every element taken in.
    pub(super) fn finish(self) -> Summary {
        let xml = XmlSummary {
            ids: self.ids,
            links: self.links,
            base: self.base.flatten(),
            viewport: self.viewport,
            head_semantics: self.head_semantics,
            html_root: self.html_root,
        };
        let ncx = self.ncx_walk.map(NcxWalk::finish);
        Summary { xml, ncx }
    }
}

/// The summary of the entry `entry`, parsed into `doc`.
pub(super) fn of_tree(entry: &str, doc: &Document) -> Summary {
    let mut summary = Summarizer::new(entry, doc.input_text());
    each_element(doc, |e| summary.element(e));
    summary.finish()
}
