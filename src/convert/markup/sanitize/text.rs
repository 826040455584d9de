//! Pass 2b: the text-fix stage (typography, the project's cleanup rules) on every text node
//! outside code and notation, which it must never change.

use super::Tree;
use super::tree::Kind;

/// Elements whose text is code or notation, which the text-fix stage never touches.
const VERBATIM: [&str; 9] = [
    "code", "pre", "kbd", "samp", "var", "tt", "math", "svg", "script",
];

impl Tree {
    /// Pass 2b: the text-fix stage on every text node outside code and notation.
    pub(super) fn fix_text(&mut self, fix: &mut super::super::TextFixer<'_>) {
        let mut stack = vec![0];
        while let Some(i) = stack.pop() {
            let Some(n) = self.nodes.get_mut(i) else {
                continue;
            };
            match &mut n.kind {
                Kind::Text(t) => {
                    if let Some(fixed) = fix(t) {
                        *t = fixed;
                    }
                }
                Kind::Element(e) if VERBATIM.contains(&e.name) => {}
                Kind::Removed => {}
                _ => stack.extend(n.children.iter().rev().copied()),
            }
        }
    }
}
