//! Pass 6: the tree written out as XHTML, with an explicit stack (no recursion however deep).

use super::super::{escape_attr, escape_text};
use super::policy::is_void;
use super::{Kind, Tree, mathml};

impl Tree {
    /// Pass 6: XHTML text of `top`'s children, without recursion.
    pub(super) fn serialize(&self, top: usize) -> String {
        enum Step {
            Open(usize),
            Close(&'static str),
        }
        let mut out = String::new();
        let mut stack: Vec<Step> = self
            .children(top)
            .into_iter()
            .rev()
            .map(Step::Open)
            .collect();
        while let Some(step) = stack.pop() {
            match step {
                Step::Close(name) => {
                    out.push_str("</");
                    out.push_str(name);
                    out.push('>');
                }
                Step::Open(i) => match self.nodes.get(i).map(|n| &n.kind) {
                    Some(Kind::Text(t)) => out.push_str(&escape_text(t)),
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
                            stack.extend(self.children(i).into_iter().rev().map(Step::Open));
                        }
                    }
                    _ => {}
                },
            }
        }
        out
    }
}
