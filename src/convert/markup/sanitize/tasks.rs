//! Task lists: each checkbox labelled by its item's own text, since a form control needs a
//! label (Ace) and `<label>` is not kept. Part of pass 5.

use super::policy::is_phrasing;
use super::{Elem, Kind, Node, Tree};

impl Tree<'_> {
    /// A task list's checkbox is labelled, through `aria-labelledby`, by its item's own text:
    /// the phrasing content after it, wrapped in a `span` with a generated id, so that a task
    /// holding a nested list is not named by the nested tasks' text too. A checkbox with no
    /// text after it is labelled by the element it opens (which gets a generated id when it has
    /// none). A form control needs a label (Ace), and `<label>` is not kept.
    pub(super) fn label_checkboxes(&mut self, order: &[usize]) {
        let mut made = 0;
        for &i in order {
            let parent = self.nodes.get(i).map(|n| n.parent);
            let is_box = self.elem(i).is_some_and(|e| e.name == "input");
            let Some(p) = parent.filter(|&p| is_box && p != 0) else {
                continue;
            };
            made += 1;
            let id = format!("{}task-{made}", super::super::ids::GENERATED_ID_PREFIX);
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
}
