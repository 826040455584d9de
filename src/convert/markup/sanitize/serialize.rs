//! Pass 6: the tree written out as XHTML, with an explicit stack (no recursion however deep).

use super::super::escape_attr;
use super::policy::is_void;
use super::{Kind, Tree, mathml};
use crate::xml::{push_escaped_text, push_escaped_xml_text};

impl Kind<'_> {
    /// The length of the text or finished XML the node holds (0 for the others).
    fn text_len(&self) -> usize {
        match self {
            Kind::Text(t) => t.len(),
            Kind::Raw { xml, .. } => xml.len(),
            _ => 0,
        }
    }
}

impl Tree<'_> {
    /// Pass 6: XHTML text of `top`'s children, without recursion.
    pub(super) fn serialize(&self, top: usize) -> String {
        enum Step {
            Open(usize),
            Close(&'static str),
        }
        let kids = |i: usize| self.nodes.get(i).map_or(&[][..], |n| &n.children[..]);
        // The whole tree's text is most of its output: room for it and its tags (a piece of
        // a split tree grows as it goes).
        let text: usize = match top {
            0 => self.nodes.iter().map(|n| n.kind.text_len()).sum(),
            _ => 0,
        };
        let mut out = String::with_capacity(text + text / 8 + 64);
        // Each node opens once and each element closes once: the whole tree's never grows
        // (a piece's starts small).
        let room = if top == 0 { 2 * self.nodes.len() } else { 64 };
        let mut stack: Vec<Step> = Vec::with_capacity(room);
        stack.extend(kids(top).iter().rev().map(|&c| Step::Open(c)));
        while let Some(step) = stack.pop() {
            match step {
                Step::Close(name) => {
                    out.push_str("</");
                    out.push_str(name);
                    out.push('>');
                }
                Step::Open(i) => match self.nodes.get(i).map(|n| &n.kind) {
                    Some(Kind::Text(t)) if self.text_is_xml => push_escaped_xml_text(&mut out, t),
                    Some(Kind::Text(t)) => push_escaped_text(&mut out, t),
                    Some(Kind::Raw { xml, .. }) => out.push_str(xml),
                    Some(Kind::Element(e)) => {
                        out.push('<');
                        out.push_str(e.name);
                        if e.name == "math" {
                            out.push_str(" xmlns=\"");
                            out.push_str(mathml::MATHML_NS);
                            out.push('"');
                        }
                        for (k, v) in &e.attrs {
                            out.push(' ');
                            out.push_str(k);
                            out.push_str("=\"");
                            out.push_str(&escape_attr(v));
                            out.push('"');
                        }
                        if is_void(e.name) {
                            out.push_str("/>");
                        } else {
                            out.push('>');
                            stack.push(Step::Close(e.name));
                            stack.extend(kids(i).iter().rev().map(|&c| Step::Open(c)));
                        }
                    }
                    _ => {}
                },
            }
        }
        out
    }
}
