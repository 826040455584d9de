//! An element as the walks over an XML entry's elements take it ([`super::element`]'s summary,
//! [`super::ncx`]'s NCX rules): the same whether it comes from the lean scan of the text
//! ([`super::lean`]) or from roxmltree's tree ([`each_element`]).

use std::borrow::Cow;

use roxmltree::Document;

/// An attribute as the rules read it (namespace declarations are not attributes).
#[derive(Debug, Clone)]
pub(super) struct Attr<'a> {
    /// Its namespace URI; None when unprefixed.
    pub ns: Option<&'a str>,
    pub local: &'a str,
    /// Its value, normalised as XML says.
    pub value: Cow<'a, str>,
}

/// An element: where its start tag begins (a byte offset into the text), how deep it is (the
/// root element is 0), its namespace URI, local name and attributes in document order.
pub(super) struct Element<'a, 'e> {
    pub pos: usize,
    pub depth: usize,
    pub ns: Option<&'a str>,
    pub local: &'a str,
    pub attrs: &'e [Attr<'a>],
}

impl Element<'_, '_> {
    /// An unprefixed attribute by local name.
    pub(super) fn attr(&self, local: &str) -> Option<&str> {
        (self.attrs.iter())
            .find(|a| a.ns.is_none() && a.local == local)
            .map(|a| a.value.as_ref())
    }

    /// An attribute by namespace and local name.
    pub(super) fn attr_ns(&self, ns: &str, local: &str) -> Option<&str> {
        (self.attrs.iter())
            .find(|a| a.ns == Some(ns) && a.local == local)
            .map(|a| a.value.as_ref())
    }
}

/// Hands each element of `doc` to `take`, in document order.
pub(super) fn each_element(doc: &Document, mut take: impl FnMut(&Element)) {
    // The element ancestors of the element at hand, outermost first.
    let mut ancestors = Vec::new();
    let mut attrs = Vec::new();
    for node in doc.descendants().filter(|n| n.is_element()) {
        let parent = node.parent().map(|p| p.id());
        while ancestors.last().is_some() && ancestors.last() != parent.as_ref() {
            ancestors.pop();
        }
        attrs.clear();
        attrs.extend(node.attributes().map(|a| Attr {
            ns: a.namespace(),
            local: a.name(),
            value: Cow::Borrowed(a.value()),
        }));
        take(&Element {
            pos: node.range().start,
            depth: ancestors.len(),
            ns: node.tag_name().namespace(),
            local: node.tag_name().name(),
            attrs: &attrs,
        });
        ancestors.push(node.id());
    }
}
