//! The sanitiser's own tree, an arena of nodes every pass after the build works on, and the
//! helpers they share to read and edit it: names, children, document order, text, renaming an
//! element to one of another kind.

use std::borrow::Cow;

use super::attrs::is_global_attr;

/// What a node of the tree is.
pub(super) enum Kind<'a> {
    /// The document (or, after a split, a piece of it): serialised as its children only.
    Root,
    Element(Elem),
    /// Text, unescaped: borrowed from the parser's tree while unchanged (most text is),
    /// so that it is copied once, into the output.
    Text(Cow<'a, str>),
    /// Finished XML kept as it is (an inline SVG), with the ids it holds.
    Raw {
        xml: String,
        ids: Vec<String>,
    },
    /// Taken out by a pass (the arena keeps its slot).
    Removed,
}

/// An element kept: its output name and attributes, in output order.
pub(super) struct Elem {
    pub(super) name: &'static str,
    pub(super) attrs: Vec<(&'static str, String)>,
}

/// A node of the arena, with its parent (the root is its own) and its children in order.
pub(super) struct Node<'a> {
    pub(super) kind: Kind<'a>,
    pub(super) parent: usize,
    pub(super) children: Vec<usize>,
}

/// The tree the passes after the build work on.
pub(super) struct Tree<'a> {
    /// The arena, node 0 the root.
    pub(super) nodes: Vec<Node<'a>>,
    /// The ids of the heading taken out as the title, and its slug: links to them go to the
    /// chapter's own heading.
    pub(super) title_ids: Vec<String>,
    /// The `epub:type` of the heading taken out as the title (`z3998:ordinal z3998:roman`):
    /// the chapter's own heading carries it.
    pub(super) title_types: Option<String>,
    /// The `epub:type` of the section the whole body is, when the title came from it (see
    /// `Tree::wrapper_types_of`).
    pub(super) wrapper_types: Vec<String>,
    /// Every text node holds only XML characters: the build keeps no other, and the passes
    /// make text only of theirs; false once the text-fix stage returns a text that holds
    /// another (written out, it is then escaped character by character).
    pub(super) text_is_xml: bool,
}

impl Tree<'_> {
    pub(super) fn elem(&self, i: usize) -> Option<&Elem> {
        match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Element(e)) => Some(e),
            _ => None,
        }
    }

    pub(super) fn name(&self, i: usize) -> Option<&'static str> {
        self.elem(i).map(|e| e.name)
    }

    pub(super) fn children(&self, i: usize) -> Vec<usize> {
        self.nodes
            .get(i)
            .map(|n| n.children.clone())
            .unwrap_or_default()
    }

    pub(super) fn is_blank_text(&self, i: usize) -> bool {
        match self.nodes.get(i).map(|n| &n.kind) {
            // Only ASCII whitespace is inter-element whitespace; a no-break space is text.
            Some(Kind::Text(t)) => t.chars().all(|c| c.is_ascii_whitespace()),
            Some(Kind::Removed) => true,
            _ => false,
        }
    }

    /// Renames an element, keeping only attributes valid on any element (the old name's
    /// specific ones, like `colspan` or `start`, would be invalid on the new one).
    pub(super) fn rename(&mut self, i: usize, name: &'static str) {
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

    pub(super) fn remove(&mut self, i: usize) {
        if let Some(n) = self.nodes.get_mut(i) {
            n.kind = Kind::Removed;
        }
    }

    /// Nodes in document order (pre-order), skipping removed ones.
    pub(super) fn preorder(&self) -> Vec<usize> {
        self.preorder_from(0)
    }

    /// The nodes of `top`'s subtree in document order, skipping removed ones.
    pub(super) fn preorder_from(&self, top: usize) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.nodes.len());
        // The whole tree's never grows: it holds at most every node once.
        let mut stack = Vec::with_capacity(if top == 0 { self.nodes.len() } else { 64 });
        stack.push(top);
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

    /// The elements and finished XML (inline drawings) in document order, skipping removed
    /// nodes and text: what the passes over ids and links read, without the text nodes
    /// (most of a chapter's nodes) they would skip one by one.
    pub(super) fn elements_in_order(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = Vec::with_capacity(self.nodes.len());
        stack.push(0);
        while let Some(i) = stack.pop() {
            let Some(n) = self.nodes.get(i) else { continue };
            match n.kind {
                Kind::Removed | Kind::Text(_) => continue,
                Kind::Element(_) | Kind::Raw { .. } => out.push(i),
                Kind::Root => {}
            }
            stack.extend(n.children.iter().rev().copied());
        }
        out
    }

    /// The nodes among `children` that are not text, last first (for a stack that takes
    /// them in order): a pass that reads elements only does not stack every text node.
    pub(super) fn elements_of<'s>(
        &'s self,
        children: &'s [usize],
    ) -> impl Iterator<Item = usize> + 's {
        children.iter().rev().copied().filter(|&c| {
            self.nodes
                .get(c)
                .is_some_and(|n| !matches!(n.kind, Kind::Text(_)))
        })
    }

    /// The first node in document order (removed ones skipped) that `pred` holds for,
    /// without listing the nodes after it.
    pub(super) fn first_in_order(&self, mut pred: impl FnMut(usize) -> bool) -> Option<usize> {
        let mut stack = Vec::with_capacity(self.nodes.len());
        stack.push(0);
        while let Some(i) = stack.pop() {
            let Some(n) = self.nodes.get(i) else { continue };
            if matches!(n.kind, Kind::Removed) {
                continue;
            }
            if pred(i) {
                return Some(i);
            }
            stack.extend(n.children.iter().rev().copied());
        }
        None
    }

    /// The nodes of `i`'s subtree, `i` first, in document order.
    pub(super) fn subtree(&self, i: usize) -> Vec<usize> {
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

    /// The text of `i`'s subtree as written.
    pub(super) fn raw_text(&self, i: usize) -> String {
        self.subtree(i)
            .into_iter()
            .filter_map(|n| match self.nodes.get(n).map(|n| &n.kind) {
                Some(Kind::Text(t)) => Some(&**t),
                _ => None,
            })
            .collect()
    }

    /// Whether node `i` is inside a link (`a` element).
    pub(super) fn in_link(&self, i: usize) -> bool {
        self.in_element(i, "a")
    }

    /// Whether node `i` is inside an element named `name`.
    pub(super) fn in_element(&self, i: usize, name: &str) -> bool {
        let mut node = i;
        while let Some(parent) = self
            .nodes
            .get(node)
            .map(|n| n.parent)
            .filter(|&p| p != node)
        {
            if self.name(parent) == Some(name) {
                return true;
            }
            if parent == 0 {
                return false;
            }
            node = parent;
        }
        false
    }
}
