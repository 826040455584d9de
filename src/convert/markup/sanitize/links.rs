//! Pass 5, ids and links: ids become unique NCNames (an inline drawing's with the references
//! to them), notes are typed, checkboxes labelled, and every `#fragment` link must hit an id
//! (EPUBCheck reports dangling fragments: one that points nowhere loses its href). Returns the
//! relative links to other files and the map of the source's ids to ours.

use std::collections::{HashMap, HashSet};

use super::super::ids::{Assigned, Ids};
use super::attrs::IDREF_ATTRS;
use super::urls::{percent_decode, url_scheme};
use super::{Kind, Node, Tree, Warnings, inline_svg, shorten};

impl Tree<'_> {
    /// Pass 5: unique NCName ids, none looking generated but the renderer's (marked with
    /// `marker`); internal links must hit one. Returns the relative links and the ids.
    pub(super) fn fix_ids_and_links(
        &mut self,
        marker: Option<&str>,
        warnings: &mut Warnings,
    ) -> (Vec<String>, HashMap<String, String>) {
        // Every step below reads elements (and drawings) only.
        let order = self.elements_in_order();
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
        // Links to the heading taken out as the title go to the chapter's own heading.
        let title_id = format!("{}chapter-title", super::super::ids::GENERATED_ID_PREFIX);
        for raw in &self.title_ids {
            ids.alias(raw, &title_id);
        }
        self.resolve_idrefs(&order, &ids);
        self.type_notes(&order);
        self.label_checkboxes(&order);
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

impl Tree<'_> {
    /// Points the ids that `aria-labelledby` and `aria-describedby` name at the ids as they are
    /// now; one no element has is dropped (EPUBCheck wants them in the same document), and the
    /// attribute with it when it names none.
    fn resolve_idrefs(&mut self, order: &[usize], ids: &Ids<'_>) {
        for &i in order {
            let Some(Kind::Element(e)) = self.nodes.get_mut(i).map(|n| &mut n.kind) else {
                continue;
            };
            if e.attrs.is_empty() {
                continue;
            }
            e.attrs.retain_mut(|(k, v)| {
                if !IDREF_ATTRS.contains(k) {
                    return true;
                }
                let kept: Vec<&str> = v.split_whitespace().filter_map(|r| ids.target(r)).collect();
                *v = kept.join(" ");
                !v.is_empty()
            });
        }
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
    use super::super::super::test_support::Recorder;
    use super::super::super::{SplitAt, html_to_xhtml, html_to_xhtml_fixed};

    #[test]
    fn aria_labels_stay_and_name_only_ids_the_document_has() {
        let f = html_to_xhtml(
            "<body><h1>T</h1><figure aria-labelledby=\"c gone\" aria-describedby=\"gone\">\
             <figcaption id=\"c\">Cap</figcaption></figure>\
             <span aria-label=\" Mark \" aria-hidden=\"TRUE\" aria-busy=\"x\">x</span>\
             <p aria-labelledby=\"1 dup\" id=\"1\">a</p><p id=\"dup\">b</p><p id=\"dup\">c</p></body>",
            &mut Recorder::default(),
        )
        .expect("converts");
        let b = &f.body;
        assert!(b.contains("<figure aria-labelledby=\"c\">"), "{b}");
        assert!(
            b.contains("<span aria-label=\"Mark\" aria-hidden=\"true\">"),
            "{b}"
        );
        // Ids renamed to NCNames are followed; a duplicate names the first of them.
        assert!(
            b.contains("<p id=\"id-1\" aria-labelledby=\"id-1 dup\">"),
            "{b}"
        );
        let notes: Vec<&str> = f.warnings.iter().map(|n| n.message.as_str()).collect();
        assert!(
            notes.contains(&"dropped unsupported attributes: aria-busy"),
            "{notes:?}"
        );
        assert!(!notes.iter().any(|n| n.contains("aria-label")), "{notes:?}");
    }

    #[test]
    fn a_piece_names_no_id_of_another_piece() {
        let at = SplitAt {
            level: 2,
            file: "book.html",
        };
        let f = html_to_xhtml_fixed(
            "<body><h2>A</h2><p id=\"a\">a</p><h2>B</h2>\
             <p aria-describedby=\"a b\" id=\"b\">b</p><p aria-labelledby=\"a\">c</p></body>",
            &mut Recorder::default(),
            None,
            Some(at),
        )
        .expect("converts");
        let b = &f.pieces.get(1).expect("two pieces").body;
        assert!(b.contains("<p id=\"b\" aria-describedby=\"b\">"), "{b}");
        assert!(b.contains("<p>c</p>"), "{b}");
    }
}
