//! Headings: a section number in an element of its own spaced from its title (pass 1b), the
//! heading that opens the body taken out as the chapter's title (pass 2), levels put under the
//! chapter's `h1` with no gap, and the id every heading gets, GitHub's slug of its text.

use std::collections::{HashMap, HashSet};

use super::policy::{HEADINGS, heading_level, is_heading};
use super::{Kind, Node, Tree};

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

impl Tree<'_> {
    /// A heading's text, white space collapsed, without its footnote marks and page numbers
    /// (`epub:type="pagebreak"`, Project Gutenberg's `<span class="pagenum">{ix}</span>`).
    pub(super) fn heading_text(&self, heading: usize) -> String {
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

    /// Whether any element of the arena is a heading (one taken out as the title is not).
    pub(super) fn has_heading(&self) -> bool {
        self.nodes.iter().any(|n| match &n.kind {
            Kind::Element(e) => is_heading(e.name),
            _ => false,
        })
    }

    /// Pass 1b: a section number in an element of its own inside a heading
    /// (`<span>1.1</span><span>The Elements</span>`, as Texinfo writes them) is followed by the
    /// space the page's style gave it, in the text and in the title.
    pub(super) fn space_section_numbers(&mut self) {
        // Only a heading of two children or more can need a space: most chapters have none.
        let any = self.nodes.iter().any(|n| match &n.kind {
            Kind::Element(e) => is_heading(e.name) && n.children.len() > 1,
            _ => false,
        });
        if !any {
            return;
        }
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
                    kind: Kind::Text(" ".into()),
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
    pub(super) fn level_headings(&mut self, top: usize) {
        let order = self.preorder_from(top);
        let level = |t: &Tree<'_>, i: usize| t.name(i).and_then(heading_level);
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
    /// not stop it from opening the body; text, pictures, formulas, a contents list's heading
    /// do.
    pub(super) fn take_title(&mut self) -> Option<String> {
        let found = self.first_in_order(|i| match self.nodes.get(i).map(|n| &n.kind) {
            Some(Kind::Text(t)) => !t.trim().is_empty() && !self.in_link(i),
            Some(Kind::Element(e)) if is_heading(e.name) => true,
            Some(Kind::Element(e)) => {
                matches!(e.name, "img" | "math" | "hr" | "pre") && !self.in_link(i)
            }
            Some(Kind::Raw { .. }) => true,
            _ => false,
        })?;
        if !self.name(found).is_some_and(is_heading) || self.in_element(found, "nav") {
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

    /// Every heading without an id gets its [`slug`], numbered `-1`, `-2`… past the first as
    /// GitHub numbers them, and never one the author gave another element (or the title).
    pub(super) fn give_headings_ids(&mut self, order: &[usize]) {
        let without_id =
            |e: &super::Elem| is_heading(e.name) && !e.attrs.iter().any(|(k, _)| *k == "id");
        if !order.iter().any(|&i| self.elem(i).is_some_and(without_id)) {
            return; // every heading has its id (or the title was the only one)
        }
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
            if !without_id(e) {
                continue;
            }
            let base = slug(&self.heading_text(i));
            let id = match taken.contains(&base) {
                false => base,
                true => super::super::ids::next_free(&base, 1, &taken, &mut next),
            };
            taken.insert(id.clone());
            if let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) {
                e.attrs.insert(0, ("id", id));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_levels_are_read_from_the_name() {
        for (i, h) in HEADINGS.iter().enumerate() {
            assert_eq!(heading_level(h), Some(i + 1), "{h}");
        }
        for other in ["h", "h0", "h7", "hr", "h10", "th", "H1", ""] {
            assert_eq!(heading_level(other), None, "{other}");
        }
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
}
