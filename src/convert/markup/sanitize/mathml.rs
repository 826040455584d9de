//! MathML in chapters: which Presentation MathML elements and attributes are kept, and the
//! repairs that make what the HTML parser built valid against EPUBCheck's MathML 3 schema.
//!
//! EPUB 3 content documents may carry Presentation MathML (the package marks them with the
//! `mathml` property); Content MathML is allowed only inside `annotation-xml`, which we drop
//! (an alternative encoding the reader does not show). Elements come from the HTML parser in
//! the MathML namespace (`<math>…`), or, in XHTML read as HTML, as prefixed names (`<m:math>`)
//! that [`local_name`] maps back. Each element has its own attribute list from the schema:
//! an attribute valid on `mo` is an error on `mrow`.
//!
//! The repair pass ([`Tree::fix_mathml`]) runs top-down once: fixed-arity elements (`mfrac`,
//! `msub`…) with the wrong number of children, and tables whose rows are not rows, become
//! `mrow`s; text outside token elements is wrapped in `mtext`; tokens keep only their text.
//! The reader sees the same characters, if not the same layout, and EPUBCheck sees valid MathML.

use super::{Elem, Kind, Node, Tree};

/// The MathML namespace.
pub(super) const MATHML_NS: &str = "http://www.w3.org/1998/Math/MathML";

/// Presentation MathML elements kept, with `semantics` and `annotation`; sorted.
const ELEMENTS: [&str; 35] = [
    "annotation",
    "maction",
    "maligngroup",
    "malignmark",
    "math",
    "menclose",
    "merror",
    "mfenced",
    "mfrac",
    "mi",
    "mlabeledtr",
    "mmultiscripts",
    "mn",
    "mo",
    "mover",
    "mpadded",
    "mphantom",
    "mprescripts",
    "mroot",
    "mrow",
    "ms",
    "mspace",
    "msqrt",
    "mstyle",
    "msub",
    "msubsup",
    "msup",
    "mtable",
    "mtd",
    "mtext",
    "mtr",
    "munder",
    "munderover",
    "none",
    "semantics",
];

/// The kept element named `local`, as a static name; None for anything else (Content
/// MathML, `annotation-xml`, `mglyph` and its image, elementary math `mstack`…).
pub(super) fn element(local: &str) -> Option<&'static str> {
    ELEMENTS
        .binary_search(&local)
        .ok()
        .and_then(|i| ELEMENTS.get(i).copied())
}

/// Whether `name` is one of the kept MathML elements.
pub(super) fn is_mathml(name: &str) -> bool {
    // Every kept name but three starts with `m` (a test holds it so): a `p`, `section` or
    // `span`, most of a chapter's elements, is ruled out without the search.
    match name.as_bytes().first() {
        Some(b'm') => ELEMENTS.binary_search(&name).is_ok(),
        _ => matches!(name, "annotation" | "none" | "semantics"),
    }
}

/// The local name of an element the HTML parser left in the XHTML namespace with a prefix
/// (`m:mfrac`), when the prefix stands for MathML: bound so by an `xmlns:m` on the element or
/// an ancestor (`bindings`), or, unbound, the usual `m` and `mml`.
pub(super) fn local_name<'a>(qualified: &'a str, binding: Option<&str>) -> Option<&'a str> {
    let (prefix, local) = qualified.split_once(':')?;
    let mathml = match binding {
        Some(ns) => ns == MATHML_NS,
        None => matches!(prefix, "m" | "mml" | "math"),
    };
    mathml.then_some(local)
}

/// Attributes every MathML element may carry.
const COMMON: [&str; 4] = ["class", "id", "mathbackground", "mathcolor"];
/// Token elements' style attributes (current and deprecated ones, both in the schema).
const TOKEN: [&str; 9] = [
    "background",
    "color",
    "dir",
    "fontfamily",
    "fontsize",
    "fontstyle",
    "fontweight",
    "mathsize",
    "mathvariant",
];
/// Line-breaking and indentation attributes of `mo` and `mspace`.
const BREAKS: [&str; 8] = [
    "indentalign",
    "indentalignfirst",
    "indentalignlast",
    "indentshift",
    "indentshiftfirst",
    "indentshiftlast",
    "indenttarget",
    "linebreak",
];
const MO: [&str; 15] = [
    "accent",
    "fence",
    "form",
    "largeop",
    "linebreakmultchar",
    "linebreakstyle",
    "lineleading",
    "lspace",
    "maxsize",
    "minsize",
    "movablelimits",
    "rspace",
    "separator",
    "stretchy",
    "symmetric",
];
const MFRAC: [&str; 4] = ["bevelled", "denomalign", "linethickness", "numalign"];
const MTABLE: [&str; 18] = [
    "align",
    "alignmentscope",
    "columnalign",
    "columnlines",
    "columnspacing",
    "columnwidth",
    "displaystyle",
    "equalcolumns",
    "equalrows",
    "frame",
    "framespacing",
    "groupalign",
    "minlabelspacing",
    "rowalign",
    "rowlines",
    "rowspacing",
    "side",
    "width",
];
/// `mstyle`'s (and `math`'s) own attributes; they also take every other element's.
const MSTYLE: [&str; 6] = [
    "decimalpoint",
    "displaystyle",
    "infixlinebreakstyle",
    "scriptlevel",
    "scriptminsize",
    "scriptsizemultiplier",
];

/// The attribute `name` as kept on MathML element `element` (a static name), or None when the
/// schema does not allow it there. `style` and `href` are not kept: our styles and links are
/// HTML's.
pub(super) fn attribute(element: &str, name: &str) -> Option<&'static str> {
    let own: &[&[&'static str]] = match element {
        "mi" | "mn" | "mtext" => &[&TOKEN],
        "mo" => &[&TOKEN, &MO, &BREAKS],
        "ms" => &[&TOKEN, &["lquote", "rquote"]],
        "mspace" => &[&TOKEN, &BREAKS, &["depth", "height", "width"]],
        "mrow" => &[&["dir"]],
        "mfrac" => &[&MFRAC],
        "mpadded" => &[&["depth", "height", "lspace", "voffset", "width"]],
        "mfenced" => &[&["close", "open", "separators"]],
        "menclose" => &[&["notation"]],
        "msub" => &[&["subscriptshift"]],
        "msup" => &[&["superscriptshift"]],
        "msubsup" | "mmultiscripts" => &[&["subscriptshift", "superscriptshift"]],
        "munder" => &[&["accentunder", "align"]],
        "mover" => &[&["accent", "align"]],
        "munderover" => &[&["accent", "accentunder", "align"]],
        "mtable" => &[&MTABLE],
        "mtr" | "mlabeledtr" => &[&["columnalign", "groupalign", "rowalign"]],
        "mtd" => &[&[
            "columnalign",
            "columnspan",
            "groupalign",
            "rowalign",
            "rowspan",
        ]],
        "maligngroup" => &[&["groupalign"]],
        "malignmark" => &[&["edge"]],
        "maction" => &[&["actiontype", "selection"]],
        "annotation" | "semantics" => &[&["definitionURL", "encoding"]],
        "mstyle" => &[&MSTYLE, &TOKEN, &MO, &BREAKS, &MFRAC, &MTABLE],
        "math" => &[
            &MSTYLE,
            &TOKEN,
            &MO,
            &BREAKS,
            &MFRAC,
            &MTABLE,
            &["alttext", "display", "maxwidth", "overflow"],
        ],
        _ => &[],
    };
    std::iter::once(&COMMON[..])
        .chain(own.iter().copied())
        .flat_map(|list| list.iter())
        .find(|a| **a == name)
        .copied()
}

/// Token elements: their content is text.
fn is_token(name: &str) -> bool {
    matches!(name, "mi" | "mn" | "mo" | "ms" | "mtext" | "annotation")
}

/// Elements that must be empty.
fn is_empty(name: &str) -> bool {
    matches!(
        name,
        "mspace" | "none" | "mprescripts" | "malignmark" | "maligngroup"
    )
}

/// How many children an element of fixed arity has.
fn arity(name: &str) -> Option<usize> {
    match name {
        "mfrac" | "mroot" | "msub" | "msup" | "munder" | "mover" => Some(2),
        "msubsup" | "munderover" => Some(3),
        _ => None,
    }
}

impl Tree<'_> {
    /// Repairs every MathML element, top-down (see the module docs).
    pub(super) fn fix_mathml(&mut self) {
        // Most chapters hold no formula: nothing to walk for.
        let any = self.nodes.iter().any(|n| match &n.kind {
            Kind::Element(e) => is_mathml(e.name),
            _ => false,
        });
        if !any {
            return;
        }
        for i in self.preorder() {
            let Some(name) = self.name(i).filter(|n| is_mathml(n)) else {
                continue;
            };
            let parent = self.nodes.get(i).map_or(0, |n| n.parent);
            let pname = self.name(parent).unwrap_or("");
            if !is_mathml(pname) && name != "math" {
                // A MathML element outside math (a stray prefixed element): its text stays.
                self.rename(i, "span");
                continue;
            }
            self.fix_mathml_element(i, name, pname);
        }
    }

    fn fix_mathml_element(&mut self, i: usize, mut name: &'static str, pname: &str) {
        let wrong_parent = match name {
            "math" => is_mathml(pname),
            "mtr" | "mlabeledtr" => pname != "mtable",
            "mtd" => !matches!(pname, "mtr" | "mlabeledtr"),
            "none" | "mprescripts" => pname != "mmultiscripts",
            "annotation" => pname != "semantics",
            _ => false,
        };
        if wrong_parent {
            if matches!(name, "none" | "mprescripts" | "annotation") && !self.has_text(i) {
                self.remove(i);
                return;
            }
            name = self.rename_mathml(i, "mrow");
        }
        let kids = self.element_children(i);
        let loose_text = self.has_loose_text(i);
        let broken = match name {
            _ if is_empty(name) => loose_text || !kids.is_empty(),
            n if arity(n).is_some() => loose_text || Some(kids.len()) != arity(n),
            "mmultiscripts" => loose_text || kids.is_empty(),
            "mtable" => !self.is_table(i),
            "semantics" => !self.is_semantics(i),
            _ => false,
        };
        if broken {
            name = self.rename_mathml(i, "mrow");
        }
        if is_token(name) {
            self.flatten(i);
        } else {
            self.wrap_loose_text(i);
        }
    }

    /// Renames a MathML element, keeping the attributes valid on the new name.
    fn rename_mathml(&mut self, i: usize, name: &'static str) -> &'static str {
        if let Some(Node {
            kind: Kind::Element(e),
            ..
        }) = self.nodes.get_mut(i)
        {
            e.name = name;
            e.attrs.retain(|(k, _)| attribute(name, k).is_some());
        }
        name
    }

    fn element_children(&self, i: usize) -> Vec<usize> {
        self.children(i)
            .into_iter()
            .filter(|&c| self.name(c).is_some() || matches!(self.kind(c), Some(Kind::Raw { .. })))
            .collect()
    }

    fn kind(&self, i: usize) -> Option<&Kind<'_>> {
        self.nodes.get(i).map(|n| &n.kind)
    }

    /// A child text node that is not white space.
    fn has_loose_text(&self, i: usize) -> bool {
        self.children(i)
            .into_iter()
            .any(|c| matches!(self.kind(c), Some(Kind::Text(_))) && !self.is_blank_text(c))
    }

    /// Any text under `i`.
    fn has_text(&self, i: usize) -> bool {
        !self.text_of(i).trim().is_empty()
    }

    fn text_of(&self, i: usize) -> String {
        let mut text = String::new();
        let mut stack = vec![i];
        while let Some(n) = stack.pop() {
            let Some(node) = self.nodes.get(n) else {
                continue;
            };
            match &node.kind {
                Kind::Text(t) => text.push_str(t),
                Kind::Removed | Kind::Raw { .. } => continue,
                _ => {}
            }
            stack.extend(node.children.iter().rev().copied());
        }
        text
    }

    /// An `mtable` whose rows are rows of cells; otherwise its rows and cells become `mrow`s
    /// (which the pass then meets as children of an `mrow`).
    fn is_table(&self, table: usize) -> bool {
        if self.has_loose_text(table) {
            return false;
        }
        self.element_children(table).into_iter().all(|row| {
            let cells = self.element_children(row);
            matches!(self.name(row), Some("mtr" | "mlabeledtr"))
                && !self.has_loose_text(row)
                && cells.iter().all(|&c| self.name(c) == Some("mtd"))
                && (self.name(row) == Some("mtr") || !cells.is_empty())
        })
    }

    /// `semantics`: one expression, then annotations.
    fn is_semantics(&self, i: usize) -> bool {
        let kids = self.element_children(i);
        !self.has_loose_text(i)
            && kids
                .first()
                .is_some_and(|&f| self.name(f).is_some_and(|n| n != "annotation"))
            && kids
                .iter()
                .skip(1)
                .all(|&k| self.name(k) == Some("annotation"))
    }

    /// A token keeps only its text.
    fn flatten(&mut self, i: usize) {
        if self.element_children(i).is_empty() {
            return;
        }
        let text = self.text_of(i);
        let t = self.nodes.len();
        self.nodes.push(Node {
            kind: Kind::Text(text.into()),
            parent: i,
            children: Vec::new(),
        });
        if let Some(n) = self.nodes.get_mut(i) {
            n.children = vec![t];
        }
    }

    /// Text directly inside a layout element goes into an `mtext`.
    fn wrap_loose_text(&mut self, i: usize) {
        for c in self.children(i) {
            if !matches!(self.kind(c), Some(Kind::Text(_))) || self.is_blank_text(c) {
                continue;
            }
            let t = self.nodes.len();
            let Some(node) = self.nodes.get_mut(c) else {
                continue;
            };
            let mtext = Kind::Element(Elem {
                name: "mtext",
                attrs: Vec::new(),
            });
            let text = std::mem::replace(&mut node.kind, mtext);
            node.children = vec![t];
            self.nodes.push(Node {
                kind: text,
                parent: c,
                children: Vec::new(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_lists_are_sorted_and_per_element() {
        assert!(ELEMENTS.windows(2).all(|w| w[0] < w[1]));
        // is_mathml's first-letter check lets every kept name through, and no other.
        assert!(ELEMENTS.iter().all(|e| is_mathml(e)));
        let not_m: Vec<&str> = ELEMENTS
            .into_iter()
            .filter(|e| !e.starts_with('m'))
            .collect();
        assert_eq!(not_m, ["annotation", "none", "semantics"]);
        assert!(!is_mathml("p") && !is_mathml("span") && !is_mathml("mglyph"));
        assert_eq!(attribute("mo", "stretchy"), Some("stretchy"));
        assert_eq!(attribute("mrow", "stretchy"), None);
        assert_eq!(attribute("math", "display"), Some("display"));
        assert_eq!(attribute("mi", "display"), None);
        assert_eq!(attribute("mrow", "class"), Some("class"));
        assert_eq!(attribute("mi", "style"), None);
        assert_eq!(element("mfrac"), Some("mfrac"));
        assert_eq!(element("apply"), None);
        assert_eq!(local_name("m:mi", None), Some("mi"));
        assert_eq!(local_name("x:mi", Some(MATHML_NS)), Some("mi"));
        assert_eq!(local_name("m:mi", Some("urn:other")), None);
        assert_eq!(local_name("mi", None), None);
    }
}
