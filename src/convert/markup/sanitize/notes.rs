//! Notes marked only by what holds them or by their classes (Standard Ebooks', pandoc's,
//! Project Gutenberg's) typed as the notes they are, so that readers open them as pop-ups and
//! the book numbers them. Part of pass 5.

use std::collections::HashSet;

use super::attrs::attr_rank;
use super::{Elem, Kind, Tree};

impl Tree<'_> {
    /// Notes marked only by what holds them, typed as the notes they are so that readers open
    /// them as pop-ups and the book numbers them: an item with an id of a list in a
    /// `footnotes`/`endnotes` container (Standard Ebooks' `<section epub:type="endnotes"><ol>
    /// <li id="note-1">`, pandoc's `<section role="doc-endnotes">`) becomes a `footnote` or
    /// `endnote`, and a link whose role is `doc-noteref` (pandoc's) a `noteref`; Project
    /// Gutenberg's by their classes ([`Self::type_gutenberg_notes`]).
    pub(super) fn type_notes(&mut self, order: &[usize]) {
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
        if targets.is_empty() {
            return; // no note to look for
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
}
