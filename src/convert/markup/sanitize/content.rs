//! Pass 4, content models: blocks inside phrasing-only elements become `span`, inline
//! elements wrapping blocks become `div` (the HTML5 parser leaves `<b><p>` alone), links in
//! links and headings where only plain flow content may stand are renamed, as EPUBCheck's
//! schema and Schematron require.

use super::Tree;
use super::policy::{is_heading, is_phrasing, is_transparent, is_void};

impl Tree<'_> {
    /// For each node, whether it has a block child, directly or through phrasing or
    /// transparent children (`order` is the preorder). MathML is phrasing whatever it holds.
    fn block_holders(&self, order: &[usize]) -> Vec<bool> {
        let mut has_block = vec![false; self.nodes.len()];
        for &i in order.iter().rev() {
            let Some(n) = self.nodes.get(i) else { continue };
            let math = self.name(i) == Some("math");
            let any = !math
                && n.children.iter().any(|&c| match self.name(c) {
                    Some(cn) if !is_phrasing(cn) => true,
                    Some(_) => has_block.get(c).copied().unwrap_or(false),
                    None => false,
                });
            if let Some(slot) = has_block.get_mut(i) {
                *slot = any;
            }
        }
        has_block
    }

    /// Pass 4: phrasing/flow content models.
    pub(super) fn fix_content_models(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Ctx {
            Flow,
            /// Flow content without headings, sectioning or `address` (inside th, dt, address).
            FlowPlain,
            Phrasing,
        }
        // Only an element can hold a block, or be one, or be renamed.
        let order = self.elements_in_order();
        let has_block = self.block_holders(&order);
        // Sized for every node at once: a chapter's section pushes all its paragraphs.
        let mut stack = Vec::with_capacity(self.nodes.len());
        stack.push((0usize, Ctx::Flow, 0u8));
        while let Some((i, ctx, anc)) = stack.pop() {
            let mut child_ctx = ctx;
            let mut child_anc = anc;
            if let Some(mut name) = self.name(i) {
                let blocky = has_block.get(i).copied().unwrap_or(false);
                let parent = self.nodes.get(i).map(|n| n.parent).unwrap_or(0);
                // The parser nests links (and dfn) through table cells; renaming a ruby leaves
                // its rt. EPUBCheck's Schematron rejects a-in-a and dfn-in-dfn at any depth.
                if (name == "a" && anc & IN_A != 0)
                    || (name == "dfn" && anc & IN_DFN != 0)
                    || (matches!(name, "rb" | "rt" | "rp") && self.name(parent) != Some("ruby"))
                {
                    name = if blocky && ctx != Ctx::Phrasing {
                        "div"
                    } else {
                        "span"
                    };
                    self.rename(i, name);
                }
                if ctx == Ctx::Phrasing {
                    if !is_phrasing(name) {
                        if is_void(name) {
                            self.remove(i);
                            continue;
                        }
                        self.rename(i, "span");
                    }
                } else {
                    if ctx == Ctx::FlowPlain && is_heading(name) {
                        self.rename(i, "p");
                        name = "p";
                    }
                    if ctx == Ctx::FlowPlain
                        && matches!(name, "section" | "article" | "aside" | "nav" | "address")
                    {
                        self.rename(i, "div");
                        name = "div";
                    }
                    if blocky && (name == "p" || (is_phrasing(name) && !is_transparent(name))) {
                        self.rename(i, "div");
                        name = "div";
                    }
                    child_ctx = match name {
                        "p" | "pre" => Ctx::Phrasing,
                        n if is_heading(n) => Ctx::Phrasing,
                        n if is_transparent(n) => ctx,
                        n if is_phrasing(n) => Ctx::Phrasing,
                        "th" | "dt" | "address" => Ctx::FlowPlain,
                        _ => ctx,
                    };
                }
                child_anc = anc | ancestry(self.name(i));
            }
            if self.name(i) == Some("math") {
                continue;
            }
            if let Some(n) = self.nodes.get(i) {
                stack.extend(
                    self.elements_of(&n.children)
                        .map(|c| (c, child_ctx, child_anc)),
                );
            }
        }
    }
}

/// Inside a link, for [`Tree::fix_content_models`]'s ancestry bits.
const IN_A: u8 = 1;
/// Inside a `dfn`.
const IN_DFN: u8 = 2;

/// The ancestry bit an element named `name` adds for its descendants.
fn ancestry(name: Option<&str>) -> u8 {
    match name {
        Some("a") => IN_A,
        Some("dfn") => IN_DFN,
        _ => 0,
    }
}
