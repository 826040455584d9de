//! Pass 1 over a [`Light`] tree, the XHTML reader's own reading of a tidy chapter: the same
//! build as over scraper's tree, for a body of the elements whose building needs no look
//! around them ([`is_light`]): no link (so no site navigation to look ahead for), no
//! picture, embedded object, form control or `<time>`.

use std::borrow::Cow;

use html5ever::{Attribute, LocalName};

use super::super::super::ImageResolver;
use super::super::super::parse::{Light, LightKind};
use super::super::policy::{Action, classify};
use super::super::{Deep, Elem, Warnings, attrs, mathml};
use super::{Builder, Built, Next};

/// Whether every element under `body` is one [`run_light`] builds as [`super::run`] would
/// build it from scraper's tree: kept (but `<time>`), unwrapped or removed by the policy, and
/// no link. Every element after `body` in the arena is in it (the reader declines an element
/// after the body), so the arena is read from there in order, each name classified once.
pub(crate) fn is_light(light: &Light<'_>, body: usize) -> bool {
    let mut seen: Vec<(&LocalName, bool)> = Vec::new();
    let after = light.nodes.get(body + 1..).unwrap_or_default();
    after.iter().all(|n| {
        let LightKind::Element { name, .. } = &n.kind else {
            return true;
        };
        if let Some(&(_, simple)) = seen.iter().find(|(s, _)| *s == name) {
            return simple;
        }
        let simple = is_light_element(name);
        seen.push((name, simple));
        simple
    })
}

/// Whether an HTML element named `name` in a body is one [`run_light`] builds (see
/// [`is_light`]).
pub(crate) fn is_light_element(name: &LocalName) -> bool {
    let simple = match classify(name) {
        Action::Keep(kept) => kept != "time" && kept != "a",
        Action::Unwrap | Action::Remove(_) => true,
        _ => false,
    };
    simple && &**name != "a"
}

/// Pass 1 over the children of `body` in `light` (which [`is_light`] accepts).
pub(crate) fn run_light<'a>(
    light: &'a Light<'_>,
    body: usize,
    deep: &Deep<'_>,
    images: &mut dyn ImageResolver,
    warnings: Warnings,
) -> Built<'a> {
    let room = light.nodes.len() + 1;
    let top = light.nodes.get(body).map_or(0, |n| n.count);
    let mut b = Builder::new(room, top, deep, images, warnings);
    b.build_light(light, body, room);
    b.finish(deep)
}

impl<'a> Builder<'_, 'a> {
    fn build_light(&mut self, light: &'a Light<'_>, body: usize, room: usize) {
        // (node, where it goes, its depth); the node's next sibling is stacked under its
        // children, so that it comes after them (0: no node).
        let mut stack = Vec::with_capacity(room);
        stack.push((light.first_child(body), 0, 0));
        while let Some((node, parent, depth)) = stack.pop() {
            let Some(n) = light.nodes.get(node).filter(|_| node != 0) else {
                continue;
            };
            stack.push((light.next_sibling(node), parent, depth));
            let next = match &n.kind {
                LightKind::Element { name, attrs } => {
                    self.light_element(name, attrs, n.count, parent, depth)
                }
                LightKind::Text(t) => {
                    self.push_text(parent, Cow::Borrowed(&**t));
                    Next::Skip
                }
                _ => Next::Skip,
            };
            if let Next::Into(parent, depth) = next {
                stack.push((light.first_child(node), parent, depth));
            }
        }
    }

    /// [`Builder::element`] of an HTML element of a light tree, of `children` children.
    fn light_element(
        &mut self,
        local: &LocalName,
        attrs: &[Attribute],
        children: usize,
        parent: usize,
        depth: usize,
    ) -> Next {
        if self.parent_name(parent).is_some_and(mathml::is_mathml) {
            // HTML inside MathML: its text stays.
            return Next::Into(parent, depth);
        }
        match self.action(local) {
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
            Action::Keep(name) => {
                let elem = self.light_attrs(name, attrs);
                self.keep_at(elem, || None, children, parent, depth)
            }
            // Not met: `is_light` refuses a body that holds them.
            Action::Img | Action::Embedded | Action::Input | Action::Media => Next::Skip,
        }
    }

    /// [`Builder::filter_attrs`] of a light tree's element: its attributes taken in the order
    /// scraper keeps them (by name), as the build over scraper's tree takes them.
    fn light_attrs(&mut self, name: &'static str, attrs: &[Attribute]) -> Elem {
        if attrs.is_empty() && name != "bdo" {
            return Elem {
                name,
                attrs: Vec::new(),
            };
        }
        let mut pairs: Vec<(&str, &str)> = (attrs.iter())
            .map(|a| (&*a.name.local, &*a.value))
            .collect();
        pairs.sort_unstable_by(|a, b| a.0.cmp(b.0));
        attrs::filter(
            name,
            pairs.into_iter(),
            &mut self.dropped,
            &mut self.warnings,
        )
    }
}
