//! Pass 2b: the text-fix stage (typography, the project's cleanup rules, conversion) on every
//! text node outside notation; inside code, the fixer is told so (only the conversion may
//! change code).

use super::Tree;
use super::tree::Kind;

/// Elements whose text is code: the fixer is called on it with `code` set (the conversion
/// alone runs there).
fn is_code(name: &str) -> bool {
    matches!(name, "code" | "pre" | "kbd" | "samp" | "var" | "tt")
}

/// Elements whose text is notation or program, which the text-fix stage never touches.
fn is_notation(name: &str) -> bool {
    matches!(name, "math" | "svg" | "script")
}

impl Tree<'_> {
    /// Pass 2b: the text-fix stage on every text node outside notation, telling it which are
    /// code.
    pub(super) fn fix_text(&mut self, fix: &mut super::super::TextFixer<'_>) {
        let mut stack = Vec::with_capacity(self.nodes.len());
        stack.push((0, false));
        while let Some((i, code)) = stack.pop() {
            let Some(n) = self.nodes.get_mut(i) else {
                continue;
            };
            let inner = match &mut n.kind {
                Kind::Text(t) => {
                    if let Some(fixed) = fix(t, code) {
                        self.text_is_xml &= crate::xml::only_xml_chars(&fixed);
                        *t = fixed.into();
                    }
                    continue;
                }
                Kind::Element(e) if is_notation(e.name) => continue,
                Kind::Element(e) => code || is_code(e.name),
                Kind::Removed => continue,
                _ => code,
            };
            stack.extend(n.children.iter().rev().map(|&c| (c, inner)));
        }
    }
}
