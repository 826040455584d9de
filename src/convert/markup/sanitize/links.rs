//! Pass 5, ids and links: ids become unique NCNames (an inline drawing's with the references
//! to them), notes are typed, checkboxes labelled, and every `#fragment` link must hit an id
//! (EPUBCheck reports dangling fragments: one that points nowhere loses its href). Returns the
//! relative links to other files and the map of the source's ids to ours.

use std::collections::{HashMap, HashSet};

use super::super::ids::{Assigned, Ids};
use super::urls::{percent_decode, url_scheme};
use super::{Kind, Node, Tree, Warnings, inline_svg, shorten};

impl Tree {
    /// Pass 5: unique NCName ids, none looking generated but the renderer's (marked with
    /// `marker`); internal links must hit one. Returns the relative links and the ids.
    pub(super) fn fix_ids_and_links(
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
        let title_id = format!("{}chapter-title", super::super::ids::GENERATED_ID_PREFIX);
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
