//! The items of a block: declarations in a style rule (and in `@font-face`, `@page` …), or
//! rules in an at-rule whose block EPUBCheck reads as rules.

use super::tokens::Kind;
use super::{Allowed, Check, Filter, Limit, Mode, Nest, Verdict, Walk, construct};

impl Check<'_> {
    /// The block whose `{` is at `open`, as `mode` says, in the at-rule `at` (None: a style
    /// rule).
    pub(super) fn block(&mut self, open: usize, mode: Mode, at: Option<&str>) {
        let (end, closed) = self.component(open);
        let close = if closed { end - 1 } else { end };
        let mut i = open + 1;
        let mut first = true;
        loop {
            i = self.skip(i, Nest::Block);
            if i >= close {
                return;
            }
            let t = self.toks[i];
            if t.is(';') {
                let why = "a stray `;`, which EPUBCheck's CSS grammar refuses; it had no effect";
                self.refuse_item(i, i + 1, why);
                i += 1;
                continue;
            }
            let (item_end, has_block) = self.item_end(i, close);
            let refusals = self.out.len();
            match (mode, t.kind == Kind::AtKeyword, has_block) {
                (Mode::Rules, true, _) => {
                    self.at_rule(i, first);
                }
                (Mode::Rules, false, true) => {
                    self.qualified(i, Nest::Block);
                }
                (Mode::Rules, false, false) => self.declaration_among_rules(i, item_end, at),
                (Mode::Declarations, true, _) => self.rule_among_declarations(i, item_end, at),
                (Mode::Declarations, false, true) => {
                    let why = "a rule nested in a rule (CSS nesting), which EPUBCheck's CSS \
                        grammar refuses; readers without nesting ignored it";
                    self.refuse_item(i, item_end, why);
                }
                (Mode::Declarations, false, false) => {
                    if let Some(why) = self.bad_token(i, item_end) {
                        self.refuse_item(i, item_end, why);
                    } else if let Err(at) = self.declaration(i, item_end, close) {
                        let why = format!("a declaration that {}", self.at_token(at));
                        self.refuse_item(i, item_end, &why);
                    }
                }
            }
            let kept = self.out.get(refusals).is_none_or(|r| r.start != t.start);
            if kept && has_block {
                first = false;
            }
            i = item_end;
        }
    }

    /// Where the item at `i` ends, before `close`: past its `;`, past its `{…}` block, or at
    /// `close`; and whether it has a block.
    /// A custom property's value may hold a block (`--x: { a: b };`): it ends at its `;`.
    fn item_end(&self, i: usize, close: usize) -> (usize, bool) {
        let custom = self.toks[i].kind == Kind::Ident && self.text(i).starts_with("--");
        let mut j = i;
        while j < close {
            let t = self.toks[j];
            if t.is(';') {
                return (j + 1, false);
            }
            if t.is('{') && !custom {
                return (self.component_end(j).min(close), true);
            }
            j = self.component_end(j);
        }
        (close, false)
    }

    fn declaration_among_rules(&mut self, i: usize, end: usize, at: Option<&str>) {
        let why = match at {
            Some(name) => format!(
                "a declaration in `@{name}` after a rule, which EPUBCheck's CSS grammar \
                 refuses: it reads declarations there only before any rule"
            ),
            None => "a declaration among rules, which EPUBCheck's CSS grammar refuses".to_string(),
        };
        self.refuse_item(i, end, &why);
    }

    fn rule_among_declarations(&mut self, i: usize, end: usize, at: Option<&str>) {
        let name = self.text(i).to_string();
        let why = match at {
            Some(outer) => format!(
                "`{name}` after a declaration in `@{outer}`, which EPUBCheck's CSS grammar \
                 refuses: it reads rules there only before any declaration"
            ),
            None => format!(
                "`{name}` inside a style rule, which EPUBCheck's CSS grammar refuses; \
                 readers without CSS nesting ignored it"
            ),
        };
        self.refuse_item(i, end, &why);
    }

    /// A declaration, tokens `i..end` (past its `;`, or up to the block's `}` at `close`).
    fn declaration(&self, i: usize, end: usize, close: usize) -> Verdict {
        if self.toks[i].kind != Kind::Ident {
            return Err(Some(i));
        }
        let hi = if end == close {
            (close + 1).min(self.toks.len())
        } else {
            end
        };
        let mut walk = Walk {
            src: self.src,
            toks: &self.toks,
            next: i + 1,
            last: i,
            hi,
            depth: 0,
        };
        let colon = walk.next(Filter::Blank).ok_or(None)?;
        if !walk.tok(colon).is(':') {
            return Err(Some(colon));
        }
        let custom = self.text(i).starts_with("--");
        let mut parts = 0;
        loop {
            // The end of the tokens is the end of a block left open: taken as its `}`.
            let v = match walk.next(Filter::Blank) {
                Some(v) if !Limit::SemiOrClose.stops(&walk.tok(v)) => v,
                end => {
                    return if parts == 0 && !custom {
                        Err(end)
                    } else {
                        Ok(())
                    };
                }
            };
            if walk.tok(v).kind != Kind::Important {
                construct(&mut walk, v, Limit::SemiOrClose, Allowed::Any)?;
                parts += 1;
            }
            let ends = walk
                .peek(Filter::Blank)
                .is_none_or(|p| Limit::SemiOrClose.stops(&walk.tok(p)));
            if ends && parts == 0 {
                return Err(Some(walk.last));
            }
        }
    }
}
