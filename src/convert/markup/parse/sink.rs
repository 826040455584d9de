//! Where the XHTML reader ([`super::xml`]) puts the nodes it reads: scraper's tree (what
//! html5ever would have built), or a [`Light`] tree of the same nodes whose texts are the
//! source's own slices, for the converter's reading of a tidy chapter that needs no more.

use std::borrow::Cow;

use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, LocalName, QualName, local_name, ns};
use scraper::HtmlTreeSink;

use super::NodeId;

/// A tree the XHTML reader builds, node by node in document order.
pub(super) trait Sink<'s> {
    /// A node made.
    type Handle: Copy;
    /// The document node.
    fn document(&self) -> Self::Handle;
    /// Makes an HTML element named `name` and appends it to `parent`.
    fn element(
        &mut self,
        parent: Self::Handle,
        name: LocalName,
        attrs: Vec<Attribute>,
    ) -> Self::Handle;
    /// Appends text to `parent`: to its last child when that is text.
    fn text(&mut self, parent: Self::Handle, text: Cow<'s, str>);
    /// Appends a comment to `parent`.
    fn comment(&mut self, parent: Self::Handle, data: &str);
    /// Appends the doctype to the document.
    fn doctype(&mut self, name: &str, public: &str, system: &str);
    /// Sets the document's quirks mode.
    fn quirks(&mut self, mode: QuirksMode);
    /// Whether the tree wants no more of the page (its reader then declines it).
    fn refused(&self) -> bool {
        false
    }
}

impl Sink<'_> for HtmlTreeSink {
    type Handle = NodeId;

    fn document(&self) -> NodeId {
        self.get_document()
    }

    fn element(&mut self, parent: NodeId, name: LocalName, attrs: Vec<Attribute>) -> NodeId {
        let qual = QualName::new(None, ns!(html), name);
        let node = self.create_element(qual, attrs, ElementFlags::default());
        self.append(&parent, NodeOrText::AppendNode(node));
        node
    }

    fn text(&mut self, parent: NodeId, text: Cow<'_, str>) {
        let text = StrTendril::from_slice(&text);
        self.append(&parent, NodeOrText::AppendText(text));
    }

    fn comment(&mut self, parent: NodeId, data: &str) {
        let comment = self.create_comment(StrTendril::from_slice(data));
        self.append(&parent, NodeOrText::AppendNode(comment));
    }

    fn doctype(&mut self, name: &str, public: &str, system: &str) {
        self.append_doctype_to_document(
            StrTendril::from_slice(name),
            StrTendril::from_slice(public),
            StrTendril::from_slice(system),
        );
    }

    fn quirks(&mut self, mode: QuirksMode) {
        self.set_quirks_mode(mode);
    }
}

/// What a node of a [`Light`] tree is.
pub(crate) enum LightKind<'s> {
    /// The document.
    Document,
    /// An HTML element: its name and attributes as the reader read them.
    Element {
        name: LocalName,
        attrs: Vec<Attribute>,
    },
    /// Text: the source's own slice while no reference was decoded in it.
    Text(Cow<'s, str>),
    /// A comment or the doctype: nothing the converter reads.
    Other,
}

/// A node of a [`Light`] tree, linked to its first and last child and its next sibling
/// (0 for none: the document is nobody's child), so that no node holds a list of its own.
pub(crate) struct LightNode<'s> {
    pub kind: LightKind<'s>,
    first: usize,
    last: usize,
    next: usize,
    /// How many children it has.
    pub count: usize,
}

/// The tree the XHTML reader reads a tidy page into when only the converter reads it: the
/// nodes html5ever would make, in an arena, node 0 the document, texts not copied.
pub(crate) struct Light<'s> {
    pub nodes: Vec<LightNode<'s>>,
    /// Which elements of a body its reader takes: one it does not (a link, a picture, whose
    /// conversion looks around it) ends the reading, and the page is read the other way.
    takes: fn(&LocalName) -> bool,
    /// The body is open: every element made from now on is in it.
    in_body: bool,
    /// An element of the body it does not take was met.
    refused: bool,
    /// What `takes` said of each name met in the body.
    seen: Vec<(LocalName, bool)>,
}

impl<'s> Light<'s> {
    /// An empty document with room for `room` nodes, whose body takes the elements `takes`
    /// accepts.
    pub(super) fn with_capacity(room: usize, takes: fn(&LocalName) -> bool) -> Light<'s> {
        let mut nodes = Vec::with_capacity(room);
        nodes.push(LightNode {
            kind: LightKind::Document,
            first: 0,
            last: 0,
            next: 0,
            count: 0,
        });
        Light {
            nodes,
            takes,
            in_body: false,
            refused: false,
            seen: Vec::new(),
        }
    }

    /// Notes an element named `name` about to be made.
    fn meet(&mut self, name: &LocalName) {
        if !self.in_body {
            self.in_body = *name == local_name!("body");
            return;
        }
        let taken = match self.seen.iter().find(|(s, _)| s == name) {
            Some(&(_, taken)) => taken,
            None => {
                let taken = (self.takes)(name);
                self.seen.push((name.clone(), taken));
                taken
            }
        };
        self.refused |= !taken;
    }

    fn push(&mut self, parent: usize, kind: LightKind<'s>) -> usize {
        let i = self.nodes.len();
        self.nodes.push(LightNode {
            kind,
            first: 0,
            last: 0,
            next: 0,
            count: 0,
        });
        let last = self.nodes.get_mut(parent).map(|p| {
            p.count += 1;
            let last = std::mem::replace(&mut p.last, i);
            if last == 0 {
                p.first = i;
            }
            last
        });
        if let Some(prev) = last.filter(|&l| l != 0).and_then(|l| self.nodes.get_mut(l)) {
            prev.next = i;
        }
        i
    }

    /// The element `i`'s name and attributes; None for any other node.
    pub(crate) fn element(&self, i: usize) -> Option<(&LocalName, &[Attribute])> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(LightKind::Element { name, attrs }) => Some((name, attrs)),
            _ => None,
        }
    }

    /// The first child of node `i` (0 when it has none).
    pub(crate) fn first_child(&self, i: usize) -> usize {
        self.nodes.get(i).map_or(0, |n| n.first)
    }

    /// The sibling after node `i` (0 when it is the last).
    pub(crate) fn next_sibling(&self, i: usize) -> usize {
        self.nodes.get(i).map_or(0, |n| n.next)
    }

    /// The children of node `i`, in order.
    pub(crate) fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let first = self.first_child(i);
        std::iter::successors(Some(first).filter(|&c| c != 0), |&c| {
            Some(self.next_sibling(c)).filter(|&n| n != 0)
        })
    }

    /// The text of `i`'s subtree, in document order.
    pub(crate) fn text_of(&self, i: usize) -> String {
        let mut out = String::new();
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            if let Some(LightKind::Text(t)) = self.nodes.get(i).map(|n| &n.kind) {
                out.push_str(t);
            }
            let at = stack.len();
            stack.extend(self.children(i));
            if let Some(added) = stack.get_mut(at..) {
                added.reverse();
            }
        }
        out
    }
}

impl<'s> Sink<'s> for Light<'s> {
    type Handle = usize;

    fn document(&self) -> usize {
        0
    }

    fn element(&mut self, parent: usize, name: LocalName, attrs: Vec<Attribute>) -> usize {
        self.meet(&name);
        self.push(parent, LightKind::Element { name, attrs })
    }

    fn text(&mut self, parent: usize, text: Cow<'s, str>) {
        let last = self.nodes.get(parent).map_or(0, |p| p.last);
        let last = (last != 0).then(|| self.nodes.get_mut(last)).flatten();
        if let Some(LightKind::Text(t)) = last.map(|n| &mut n.kind) {
            t.to_mut().push_str(&text);
            return;
        }
        self.push(parent, LightKind::Text(text));
    }

    fn comment(&mut self, parent: usize, _data: &str) {
        self.push(parent, LightKind::Other);
    }

    fn doctype(&mut self, _name: &str, _public: &str, _system: &str) {
        self.push(0, LightKind::Other);
    }

    fn quirks(&mut self, _mode: QuirksMode) {}

    fn refused(&self) -> bool {
        self.refused
    }
}
