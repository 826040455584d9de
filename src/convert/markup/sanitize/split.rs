//! Cutting one document into chapters at its headings (`split = "h2"` on a Markdown or HTML
//! chapter), as pandoc's `--epub-chapter-level` does.
//!
//! The cut is made in the sanitiser's tree, after the build pass and before the passes that
//! level headings and give ids: every heading of the split level or above that sits only in
//! grouping containers (`div`, `section`…; not in a list, a table or a quotation) is brought
//! up to the top level by splitting the containers around it (the first part keeps their id),
//! and the top-level nodes are grouped into pieces: the text before the first such heading,
//! then one per heading, which is the piece's title. The later passes run on the whole tree,
//! so ids stay unique across the document; a link from one piece to an id in another becomes
//! a link to the file itself (`./book.html#id`), which the book's link resolution sends to
//! the chapter that holds the id (the document's `homes`).

use std::collections::HashMap;

use super::super::SplitPiece;
use super::attrs::IDREF_ATTRS;
use super::policy::heading_level;
use super::{Elem, Kind, Node, Tree, percent_decode, slug};

/// One piece of a document cut at its headings.
pub(super) struct Cut {
    /// The piece's holder: a child of the root that is a root itself (serialised as its
    /// children only).
    pub node: usize,
    /// The source level of its heading (1 for `h1`); None for the text before the first.
    pub level: Option<usize>,
    /// The heading's text, once taken out.
    pub title: Option<String>,
    /// The ids of the heading taken out, and its slug: links to them go to the piece's title.
    pub title_ids: Vec<String>,
}

/// Containers a cut may go through: splitting them in two changes no meaning.
fn is_cuttable(name: &str) -> bool {
    matches!(
        name,
        "div" | "section" | "article" | "main" | "header" | "footer"
    )
}

impl<'a> Tree<'a> {
    /// Cuts the document before every heading of `level` or above that has a text and sits
    /// only in [`is_cuttable`] containers; returns the pieces in order, their headings taken
    /// out as their titles. The text before the first heading is a piece when it has content.
    pub(super) fn cut(&mut self, level: usize) -> Vec<Cut> {
        let headings: Vec<usize> = self
            .preorder()
            .into_iter()
            .filter(|&i| self.is_cut_point(i, level))
            .collect();
        let starts: Vec<usize> = headings.iter().map(|&h| self.hoist(h)).collect();
        let front = self.push_holder();
        let mut cuts = vec![(front, None)];
        let mut next = 0;
        for child in self.children(0) {
            if starts.get(next) == Some(&child) {
                cuts.push((self.push_holder(), headings.get(next).copied()));
                next += 1;
            }
            if let Some(&(holder, _)) = cuts.last() {
                self.adopt(holder, child);
            }
        }
        if !self.has_content(front) {
            cuts.remove(0);
        }
        if let Some(root) = self.nodes.get_mut(0) {
            root.children = cuts.iter().map(|&(holder, _)| holder).collect();
        }
        cuts.into_iter()
            .map(|(node, heading)| {
                let level = heading.and_then(|h| self.name(h)).and_then(heading_level);
                let (title, title_ids) = match heading {
                    Some(h) => self.take_heading(h),
                    None => (None, Vec::new()),
                };
                Cut {
                    node,
                    level,
                    title,
                    title_ids,
                }
            })
            .collect()
    }

    /// A heading of `level` or above with a title, in nothing but cuttable containers.
    fn is_cut_point(&self, i: usize, level: usize) -> bool {
        let Some(l) = self.name(i).and_then(heading_level) else {
            return false;
        };
        if l > level || self.heading_title(i).is_empty() {
            return false;
        }
        let mut node = i;
        while let Some(parent) = self.nodes.get(node).map(|n| n.parent).filter(|&p| p != 0) {
            if !self.name(parent).is_some_and(is_cuttable) {
                return false;
            }
            node = parent;
        }
        true
    }

    /// A heading's text, or when it has none (a picture of the words, as Project Gutenberg's
    /// illustrated editions have), the text of its images.
    pub(super) fn heading_title(&self, heading: usize) -> String {
        let text = self.heading_text(heading);
        if !text.is_empty() {
            return text;
        }
        let alts: Vec<String> = self
            .subtree(heading)
            .into_iter()
            .filter_map(|i| self.elem(i))
            .filter(|e| e.name == "img")
            .filter_map(|e| e.attrs.iter().find(|(k, _)| *k == "alt"))
            .map(|(_, v)| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
            .collect();
        alts.join(" ")
    }

    /// Splits the containers around `heading` until it opens a child of the root; returns
    /// that child.
    fn hoist(&mut self, heading: usize) -> usize {
        let mut node = heading;
        loop {
            let Some(parent) = self.nodes.get(node).map(|n| n.parent).filter(|&p| p != 0) else {
                return node;
            };
            let siblings = self.children(parent);
            let pos = siblings.iter().position(|&c| c == node).unwrap_or(0);
            if siblings[..pos].iter().all(|&c| self.is_blank_text(c)) {
                node = parent;
                continue;
            }
            node = self.split_after(parent, pos);
        }
    }

    /// Moves the children of `parent` from `pos` on into a copy of it (without its id) placed
    /// right after it; returns the copy.
    fn split_after(&mut self, parent: usize, pos: usize) -> usize {
        let grand = self.nodes.get(parent).map_or(0, |n| n.parent);
        let copy = match self.nodes.get(parent).map(|n| &n.kind) {
            Some(Kind::Element(e)) => Kind::Element(Elem {
                name: e.name,
                attrs: e
                    .attrs
                    .iter()
                    .filter(|(k, _)| *k != "id")
                    .cloned()
                    .collect(),
            }),
            _ => Kind::Root,
        };
        let moved = self
            .nodes
            .get_mut(parent)
            .map(|n| n.children.split_off(pos.min(n.children.len())))
            .unwrap_or_default();
        let copy = self.push_node(grand, copy);
        for &c in &moved {
            if let Some(n) = self.nodes.get_mut(c) {
                n.parent = copy;
            }
        }
        if let Some(n) = self.nodes.get_mut(copy) {
            n.children = moved;
        }
        if let Some(g) = self.nodes.get_mut(grand) {
            let at = g
                .children
                .iter()
                .position(|&c| c == parent)
                .map_or(0, |p| p + 1);
            g.children.insert(at, copy);
        }
        copy
    }

    /// A new node under `parent`, not yet among its children.
    fn push_node(&mut self, parent: usize, kind: Kind<'a>) -> usize {
        self.nodes.push(Node {
            kind,
            parent,
            children: Vec::new(),
        });
        self.nodes.len() - 1
    }

    /// A new piece holder under the root, not yet among its children.
    fn push_holder(&mut self) -> usize {
        self.push_node(0, Kind::Root)
    }

    /// Makes `child` the last child of `holder` (the caller rebuilds the old parent's list).
    fn adopt(&mut self, holder: usize, child: usize) {
        if let Some(n) = self.nodes.get_mut(child) {
            n.parent = holder;
        }
        if let Some(h) = self.nodes.get_mut(holder) {
            h.children.push(child);
        }
    }

    /// Whether a subtree holds anything a reader sees: text, a picture, a formula, a rule.
    fn has_content(&self, node: usize) -> bool {
        self.subtree(node)
            .into_iter()
            .any(|i| match self.nodes.get(i).map(|n| &n.kind) {
                Some(Kind::Text(t)) => !t.trim().is_empty(),
                Some(Kind::Raw { .. }) => true,
                Some(Kind::Element(e)) => matches!(e.name, "img" | "math" | "hr"),
                _ => false,
            })
    }

    /// Which piece holds each id as written (the first element that has it, else the heading
    /// taken out as a piece's title), and links from one piece to an id in another made links
    /// to `file`, the document itself, for the book's link resolution. Call after the other
    /// passes but before ids are made unique.
    pub(super) fn link_pieces(&mut self, cuts: &[Cut], file: &str) -> HashMap<String, usize> {
        let order = self.preorder();
        self.give_headings_ids(&order);
        let mut homes: HashMap<String, usize> = HashMap::new();
        for (k, cut) in cuts.iter().enumerate() {
            for i in self.subtree(cut.node) {
                let ids = match self.nodes.get(i).map(|n| &n.kind) {
                    Some(Kind::Element(e)) => e
                        .attrs
                        .iter()
                        .filter(|(key, _)| *key == "id")
                        .map(|(_, v)| v.clone())
                        .collect(),
                    Some(Kind::Raw { ids, .. }) => ids.clone(),
                    _ => Vec::new(),
                };
                for id in ids {
                    homes.entry(id).or_insert(k);
                }
            }
        }
        for (k, cut) in cuts.iter().enumerate() {
            for id in &cut.title_ids {
                homes.entry(id.clone()).or_insert(k);
            }
        }
        for (k, cut) in cuts.iter().enumerate() {
            for i in self.subtree(cut.node) {
                self.link_across(i, k, &homes, file);
                self.idrefs_at_home(i, k, &homes);
            }
        }
        homes
    }

    /// Points `i`'s `#id` link at `file#id` when the id is in another piece than `k`.
    fn link_across(&mut self, i: usize, k: usize, homes: &HashMap<String, usize>, file: &str) {
        let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) else {
            return;
        };
        let Some(slot) = e.attrs.iter_mut().find(|(key, _)| *key == "href") else {
            return;
        };
        let Some(frag) = slot.1.strip_prefix('#') else {
            return;
        };
        let home = homes.get(frag).or_else(|| homes.get(&percent_decode(frag)));
        if home.is_some_and(|&h| h != k) {
            slot.1 = format!("{file}#{frag}");
        }
    }

    /// Drops from `i`'s `aria-labelledby` and `aria-describedby` the ids in another piece than
    /// `k`: they must name elements of the same document.
    fn idrefs_at_home(&mut self, i: usize, k: usize, homes: &HashMap<String, usize>) {
        let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) else {
            return;
        };
        e.attrs.retain_mut(|(key, v)| {
            if !IDREF_ATTRS.contains(key) {
                return true;
            }
            let home = |r: &&str| homes.get(*r).is_none_or(|&h| h == k);
            *v = v
                .split_whitespace()
                .filter(home)
                .collect::<Vec<_>>()
                .join(" ");
            !v.is_empty()
        });
    }

    /// The body, or when cut, the pieces (and an empty body).
    pub(super) fn bodies(&self, cuts: Option<Vec<Cut>>) -> (String, Vec<SplitPiece>) {
        let Some(cuts) = cuts else {
            return (self.serialize(0), Vec::new());
        };
        let pieces = cuts
            .into_iter()
            .map(|c| SplitPiece {
                body: self.serialize(c.node),
                title: c.title,
                level: c.level,
            })
            .collect();
        (String::new(), pieces)
    }

    /// Takes `heading` out as a title: its text and the ids links to it may use (its own and
    /// its descendants', and its slug).
    pub(super) fn take_heading(&mut self, heading: usize) -> (Option<String>, Vec<String>) {
        let title = self.heading_title(heading);
        if title.is_empty() {
            return (None, Vec::new());
        }
        let ids: Vec<String> = self
            .subtree(heading)
            .into_iter()
            .filter_map(|i| self.elem(i)?.attrs.iter().find(|(k, _)| *k == "id"))
            .map(|(_, v)| v.clone())
            .chain(std::iter::once(slug(&title)))
            .collect();
        self.title_ids.extend(ids.iter().cloned());
        if !self.keep_pictures(heading) {
            self.remove(heading);
        }
        // The line break after the heading would otherwise open the body.
        let parent = self.nodes.get(heading).map_or(0, |n| n.parent);
        let next = self.nodes.get(parent).and_then(|n| {
            let at = n.children.iter().position(|&c| c == heading)?;
            n.children.get(at + 1).copied()
        });
        if let Some(next) = next
            && self.is_blank_text(next)
        {
            self.remove(next);
        }
        (Some(title), ids)
    }
}

impl Tree<'_> {
    /// Turns a heading taken out as a title into a `div` of the pictures and formulas it held
    /// (Project Gutenberg's illustrated chapter headings), which its title cannot carry; false
    /// when it held none.
    fn keep_pictures(&mut self, heading: usize) -> bool {
        let pictures: Vec<usize> = self
            .subtree(heading)
            .into_iter()
            .filter(|&i| match self.nodes.get(i).map(|n| &n.kind) {
                Some(Kind::Element(e)) => matches!(e.name, "img" | "math"),
                Some(Kind::Raw { .. }) => true,
                _ => false,
            })
            .collect();
        if pictures.is_empty() {
            return false;
        }
        for &p in &pictures {
            if let Some(n) = self.nodes.get_mut(p) {
                n.parent = heading;
            }
        }
        if let Some(n) = self.nodes.get_mut(heading) {
            n.kind = Kind::Element(Elem {
                name: "div",
                attrs: vec![("class", "heading-picture".to_string())],
            });
            n.children = pictures;
        }
        true
    }
}

/// How a file names itself in a link from one of its pieces to another: `./` and its name,
/// percent-encoded where a URL needs it.
pub(crate) fn self_href(file_name: &str) -> String {
    let mut out = String::from("./");
    for b in file_name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
