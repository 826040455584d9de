//! What EPUBCheck's own CSS grammar refuses in a stylesheet, found so that the cleaner can cut
//! it (EPUBCheck reports each as an error, `CSS-008`).
//!
//! EPUBCheck does not read CSS as browsers do (CSS Syntax Level 3, which recovers from
//! errors): its parser (w3c/epubcheck, `org.idpf.epubcheck.util.css`, read for version 5.3.0)
//! knows a stylesheet as at-rules and style rules, and refuses:
//! - a selector outside its grammar: text that is no selector (`-@font-face`, a stray `}`),
//!   a comment inside a selector (`h1/* x */{`), arguments of a functional pseudo-class other
//!   than names, numbers, strings, `+` and `-` (`:-webkit-any(a, b)`; `:not()`, `:is()`,
//!   `:where()` and `:has()` take selectors);
//! - in a style rule's block, anything but declarations: a nested rule (CSS nesting), an
//!   at-rule, a stray `;`, a declaration whose name is not a name (`*zoom`), with no `:`, with
//!   no value (custom properties aside), or whose value holds an at-keyword, a `{…}` block,
//!   an attribute matcher (`*=`), `<!--` or `-->`, or a function left open before its `;`;
//! - in an at-rule's prelude, the same things as in a value, and a `}`;
//! - in an at-rule's block, a mix of declarations and rules: the block holds rules when a
//!   `{` comes before any `;` or `}`, declarations otherwise (so `@page` reads margin boxes
//!   only before its declarations);
//! - a string broken by a line break or left open, a comment left open, text after the string
//!   of a `url("…")`.
//!
//! Each refused piece is found as browsers delimit it (a declaration up to its `;`, a rule
//! with its whole block), so that cutting it leaves a stylesheet EPUBCheck reads without error
//! and that browsers read as before, the piece aside. The blocks of `@media`, `@supports`,
//! `@keyframes` and the other rules of rules hold rules whatever comes first: a declaration
//! among them is cut (browsers ignore it too).

mod tokens;

use std::borrow::Cow;

use tokens::{Kind, Tok, tokens};

/// A piece of the stylesheet EPUBCheck refuses: where it is and what it is, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// Byte offsets of the piece in the stylesheet.
    pub start: usize,
    pub end: usize,
    /// What the piece is and why EPUBCheck refuses it.
    pub what: String,
    /// What to put in its place (nothing but for the `}` that closes blocks left open).
    pub insert: String,
}

impl Refused {
    /// Whether this closes blocks left open at the end (rather than cutting a piece).
    pub(crate) fn closes(&self) -> bool {
        self.start == self.end && self.insert.starts_with('}')
    }
}

/// Every piece of `css` that EPUBCheck's CSS grammar refuses, in order.
pub(crate) fn refused(css: &str) -> Vec<Refused> {
    let mut check = Check {
        src: css,
        toks: tokens(css),
        out: Vec::new(),
        depth: 0,
    };
    check.rules(0, Nest::Top);
    let mut out = check.out;
    respell(&check.toks, &mut out);
    let open = open_blocks(&check.toks, &out);
    if open > 0 {
        out.push(Refused {
            start: css.len(),
            end: css.len(),
            what: format!(
                "nothing, but closed the block left open at the end with `{}` (EPUBCheck \
                 refuses a stylesheet that ends inside a block; browsers close it)",
                "}".repeat(open)
            ),
            insert: "}".repeat(open),
        });
    }
    out
}

/// Writes the escaped backslash that ends a string (`"\\"`) as `\5c `, the same character,
/// which EPUBCheck's scanner reads as browsers do, in the strings of `toks` that stay.
fn respell(toks: &[Tok], out: &mut Vec<Refused>) {
    for t in toks.iter().filter(|t| t.respell) {
        if out.iter().any(|r| r.start <= t.start && t.end <= r.end) {
            continue;
        }
        out.push(Refused {
            start: t.end - 3,
            end: t.end - 1,
            what: "nothing, but wrote the `\\\\` that ends a string as `\\5c `, the same \
                backslash (EPUBCheck's CSS scanner reads on past the quote after `\\\\`)"
                .to_string(),
            insert: "\\5c ".to_string(),
        });
    }
    out.sort_by_key(|r| r.start);
}

/// `css` with the `refused` pieces turned into spaces (line breaks kept), byte for byte, so
/// that the browsers' reading of the rest sees the same offsets and lines.
pub(crate) fn blank<'a>(css: &'a str, refused: &[Refused]) -> Cow<'a, str> {
    if refused.is_empty() {
        return Cow::Borrowed(css);
    }
    let mut out = String::with_capacity(css.len());
    let mut at = 0;
    for r in refused {
        if r.start < at {
            continue;
        }
        out.push_str(&css[at..r.start]);
        for c in css[r.start..r.end].chars() {
            match c {
                '\n' => out.push('\n'),
                c => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
            }
        }
        at = r.end;
    }
    out.push_str(&css[at..]);
    Cow::Owned(out)
}

/// How many blocks are left open at the end of `toks` once the `refused` pieces (sorted) are
/// cut.
fn open_blocks(toks: &[Tok], refused: &[Refused]) -> usize {
    let mut depth: usize = 0;
    let mut cuts = refused.iter().peekable();
    for t in toks {
        while cuts.next_if(|r| r.end <= t.start).is_some() {}
        if cuts.peek().is_some_and(|r| r.start <= t.start) {
            continue;
        }
        match t.kind {
            Kind::Char('{') => depth += 1,
            Kind::Char('}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth
}

/// At-rules whose block holds rules (browsers ignore a declaration there).
const RULE_BLOCKS: [&str; 12] = [
    "media",
    "supports",
    "document",
    "-moz-document",
    "layer",
    "container",
    "scope",
    "starting-style",
    "keyframes",
    "-webkit-keyframes",
    "-moz-keyframes",
    "-o-keyframes",
];

/// Where a list of rules is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nest {
    /// The top of the stylesheet.
    Top,
    /// The block of a rule of rules (`@media`), ended by `}`.
    Block,
}

/// What the items of an at-rule's or style rule's block must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Declarations,
    Rules,
}

/// Tokens skipped between items and inside values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    /// Spaces and comments skipped.
    Blank,
    /// Nothing skipped (inside a selector).
    None,
}

/// What stops the tokens of a construct (a value's `;` or `}`, a prelude's `;` or `{` …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    SemiOrClose,
    SemiOrOpen,
    Bracket,
    Open,
}

impl Limit {
    fn stops(self, t: &Tok) -> bool {
        match self {
            Limit::SemiOrClose => t.is(';') || t.is('}'),
            Limit::SemiOrOpen => t.is(';') || t.is('{'),
            Limit::Bracket => t.is(']'),
            Limit::Open => t.is('{'),
        }
    }
}

/// What may stand in a place (EPUBCheck's context restrictions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Allowed {
    /// Anything its grammar builds (values, preludes, function arguments).
    Any,
    /// A name or a string (an attribute selector's value).
    NameOrString,
    /// A name, string, number, `+` or `-` (`:nth-child(…)`).
    PseudoArgument,
}

/// What a construct of a value is, for [`Allowed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Construct {
    Name,
    Str,
    Number,
    Symbol(char),
    Other,
}

impl Allowed {
    fn takes(self, c: Construct) -> bool {
        match self {
            Allowed::Any => true,
            Allowed::NameOrString => matches!(c, Construct::Name | Construct::Str),
            Allowed::PseudoArgument => matches!(
                c,
                Construct::Name | Construct::Str | Construct::Number | Construct::Symbol('+' | '-')
            ),
        }
    }
}

/// A walk over tokens `..hi` as EPUBCheck's token iterator walks them.
struct Walk<'c> {
    src: &'c str,
    toks: &'c [Tok],
    /// The next token to look at.
    next: usize,
    /// The last token returned.
    last: usize,
    hi: usize,
    /// How many functions, parentheses and pseudo-classes the walk is inside.
    depth: usize,
}

impl Walk<'_> {
    fn skipped(&self, i: usize, filter: Filter) -> bool {
        filter == Filter::Blank && matches!(self.toks[i].kind, Kind::Space | Kind::Comment)
    }

    fn peek(&self, filter: Filter) -> Option<usize> {
        (self.next..self.hi).find(|&i| !self.skipped(i, filter))
    }

    fn next(&mut self, filter: Filter) -> Option<usize> {
        let i = self.peek(filter)?;
        self.next = i + 1;
        self.last = i;
        Some(i)
    }

    fn tok(&self, i: usize) -> Tok {
        self.toks[i]
    }

    /// The text of token `i`.
    fn name(&self, i: usize) -> &str {
        let t = &self.toks[i];
        &self.src[t.start..t.end]
    }
}

/// A refusal found inside an item: the token EPUBCheck stops at (None: the item ended first).
type Verdict = Result<(), Option<usize>>;

/// The state of one check: the source, its tokens and what was refused.
struct Check<'a> {
    src: &'a str,
    toks: Vec<Tok>,
    out: Vec<Refused>,
    /// How many at-rule blocks the check is inside.
    depth: usize,
}

/// How deep blocks, parentheses and functions may nest before the piece holding them is
/// refused (no stylesheet needs a tenth of it; the check must not run out of stack).
const MAX_DEPTH: usize = 128;

impl Check<'_> {
    fn text(&self, i: usize) -> &str {
        let t = &self.toks[i];
        &self.src[t.start..t.end]
    }

    /// The first token at or after `i` that is not blank (comments, spaces; at the top also
    /// `<!--` and `-->`). A comment left open is refused on the way.
    fn skip(&mut self, mut i: usize, nest: Nest) -> usize {
        while let Some(t) = self.toks.get(i).copied() {
            let blank = match t.kind {
                Kind::Space | Kind::Comment => true,
                Kind::Cdo | Kind::Cdc => nest == Nest::Top,
                _ => false,
            };
            if !blank {
                break;
            }
            if t.bad {
                self.refuse(
                    i,
                    i + 1,
                    "a comment left open, which EPUBCheck refuses".to_string(),
                );
            }
            i += 1;
        }
        i
    }

    /// The index just past the component value at `i`: a `{…}`, `(…)`, `[…]` or function
    /// with all it holds (a `}` with no `{` ends a parenthesis as it ends the block around).
    fn component_end(&self, i: usize) -> usize {
        self.component(i).0
    }

    /// [`Self::component_end`], and whether the block or parenthesis was closed. A loop with
    /// a stack of what closes each level, not a recursion: a stylesheet may nest deeply.
    fn component(&self, i: usize) -> (usize, bool) {
        let closer = |k: Kind| match k {
            Kind::Char('{') => Some('}'),
            Kind::Char('(') | Kind::Function => Some(')'),
            Kind::Char('[') => Some(']'),
            _ => None,
        };
        let Some(first) = closer(self.toks[i].kind) else {
            return (i + 1, true);
        };
        let mut open = vec![first];
        for (j, t) in self.toks.iter().enumerate().skip(i + 1) {
            if open.last().is_some_and(|&c| t.is(c)) {
                open.pop();
            } else if t.is('}') {
                // It closes the nearest block, and what is open inside it; with no block
                // open, it ends the parenthesis (and is not part of it).
                match open.iter().rposition(|&c| c == '}') {
                    Some(at) => open.truncate(at),
                    None => return (j, false),
                }
            } else if let Some(c) = closer(t.kind) {
                open.push(c);
            }
            if open.is_empty() {
                return (j + 1, true);
            }
        }
        (self.toks.len(), false)
    }

    /// Refuses tokens `from..to`, but for spaces at the end.
    fn refuse(&mut self, from: usize, mut to: usize, what: String) {
        while to > from + 1 && self.toks[to - 1].kind == Kind::Space {
            to -= 1;
        }
        let start = self.toks[from].start;
        let end = self.toks.get(to.saturating_sub(1)).map_or(start, |t| t.end);
        self.out.push(Refused {
            start,
            end,
            what,
            insert: String::new(),
        });
    }

    /// Refuses the item `from..to`, quoting it, with `why`.
    fn refuse_item(&mut self, from: usize, mut to: usize, why: &str) {
        while to > from + 1 && self.toks[to - 1].kind == Kind::Space {
            to -= 1;
        }
        let start = self.toks[from].start;
        let end = self.toks.get(to.saturating_sub(1)).map_or(start, |t| t.end);
        let piece = &self.src[start..end.max(start)];
        let quoted = quote(piece);
        let what = match piece.lines().count() {
            0 | 1 => format!("`{quoted}` ({why})"),
            n => format!("`{quoted}` ({n} lines: {why})"),
        };
        self.refuse(from, to, what);
    }

    /// The words for a verdict's stopping token.
    fn at_token(&self, verdict: Option<usize>) -> String {
        match verdict {
            Some(i) => format!(
                "has `{}` where EPUBCheck's CSS grammar refuses it",
                quote(self.text(i))
            ),
            None => "ends where EPUBCheck's CSS grammar expects more".to_string(),
        }
    }

    /// The first token of `from..to` the scanner refuses, in words.
    fn bad_token(&self, from: usize, to: usize) -> Option<&'static str> {
        let t = self.toks[from..to.min(self.toks.len())]
            .iter()
            .find(|t| t.bad)?;
        Some(match t.kind {
            Kind::Str => "a string broken by a line break or left open, which EPUBCheck refuses",
            Kind::Url => "a malformed url(), which EPUBCheck refuses",
            _ => "a comment left open, which EPUBCheck refuses",
        })
    }

    /// A list of rules from `i` (at the top, or in a rule of rules' block): the index past
    /// its end (past the `}` in a block).
    fn rules(&mut self, mut i: usize, nest: Nest) -> usize {
        let mut first = true;
        loop {
            i = self.skip(i, nest);
            let Some(t) = self.toks.get(i).copied() else {
                return i;
            };
            if nest == Nest::Block && t.is('}') {
                return i + 1;
            }
            let refusals = self.out.len();
            let (end, block) = if t.kind == Kind::AtKeyword {
                self.at_rule(i, nest == Nest::Block && first)
            } else {
                (self.qualified(i, nest), true)
            };
            // The first rule that stays with a block makes EPUBCheck read rules.
            let kept = self.out.get(refusals).is_none_or(|r| r.start != t.start);
            if block && kept {
                first = false;
            }
            i = end;
        }
    }

    /// The end of a rule's prelude from `i`: the index of its `{` or `;`, or of the `}` that
    /// ends the block around, or the end of the tokens.
    fn prelude_end(&self, mut i: usize, semicolon: bool) -> usize {
        while let Some(t) = self.toks.get(i) {
            if t.is('{') || t.is('}') || semicolon && t.is(';') {
                return i;
            }
            i = self.component_end(i);
        }
        i
    }

    /// A style rule from `i`: its selector checked, then its block. The index past it.
    fn qualified(&mut self, i: usize, nest: Nest) -> usize {
        let mut brace = self.prelude_end(i, false);
        while nest == Nest::Top && self.toks.get(brace).is_some_and(|t| t.is('}')) {
            // A stray `}` at the top is part of the prelude (browsers' reading).
            brace = self.prelude_end(brace + 1, false);
        }
        if !self.toks.get(brace).is_some_and(|t| t.is('{')) {
            let why = "text that is no rule, which EPUBCheck's CSS grammar refuses; browsers ignore it too";
            self.refuse_item(i, brace, why);
            return brace;
        }
        let end = self.component_end(brace);
        if let Some(why) = self.bad_token(i, brace) {
            self.refuse_item(i, end, why);
            return end;
        }
        if let Err(at) = self.selectors_of(i, brace)
            && !self.comments_in_selector(i, brace)
        {
            let why = format!("a rule whose selector {}", self.at_token(at));
            self.refuse_item(i, end, &why);
            return end;
        }
        self.block(brace, Mode::Declarations, None);
        end
    }

    /// Whether the selector `from..brace` is refused only for comments in it (`h1/* x */{`,
    /// `html>/**/body`): then they are refused, not the rule. Not when taking a comment out
    /// would join two names (`a/**/b`, which browsers read as two).
    fn comments_in_selector(&mut self, from: usize, brace: usize) -> bool {
        let comments: Vec<usize> = (from..brace)
            .filter(|&i| self.toks[i].kind == Kind::Comment)
            .collect();
        let joins = |i: usize| {
            let t = self.toks[i];
            let before = self.src[..t.start].chars().next_back();
            let after = self.src[t.end..].chars().next();
            let name = |c: Option<char>| c.is_some_and(|c| tokens::name_char(c) || c == '\\');
            name(before) && name(after)
        };
        if comments.is_empty() || comments.iter().any(|&i| joins(i)) {
            return false;
        }
        let text: String = (from..=brace)
            .filter(|i| !comments.contains(i))
            .map(|i| self.text(i))
            .collect();
        let toks = tokens(&text);
        let mut walk = Walk {
            src: &text,
            toks: &toks,
            next: 1,
            last: 0,
            hi: toks.len(),
            depth: 0,
        };
        if selector_list(&mut walk, 0, Limit::Open, false).is_err() {
            return false;
        }
        for i in comments {
            let why = "a comment inside a selector, which EPUBCheck's CSS grammar refuses there";
            self.refuse_item(i, i + 1, why);
        }
        true
    }

    /// The selector list of tokens `from..brace` (the `{` at `brace`).
    fn selectors_of(&self, from: usize, brace: usize) -> Verdict {
        let mut walk = Walk {
            src: self.src,
            toks: &self.toks,
            next: from + 1,
            last: from,
            hi: brace + 1,
            depth: 0,
        };
        selector_list(&mut walk, from, Limit::Open, false)
    }

    /// An at-rule from `i`; `first` when it is the first item of a rule of rules' block.
    /// The index past it, and whether it has a block.
    fn at_rule(&mut self, i: usize, first: bool) -> (usize, bool) {
        let stop = self.prelude_end(i + 1, true);
        let block = self.toks.get(stop).is_some_and(|t| t.is('{'));
        let end = match self.toks.get(stop) {
            Some(t) if t.is(';') => stop + 1,
            Some(t) if t.is('{') => self.component_end(stop),
            _ => stop,
        };
        let name = self.text(i)[1..].to_ascii_lowercase();
        if let Some(why) = self.bad_token(i, stop) {
            self.refuse_item(i, end, why);
        } else if stop == self.toks.len() || self.toks[stop].is('}') {
            let why = "an at-rule with neither `;` nor a block, which EPUBCheck refuses";
            self.refuse_item(i, end, why);
        } else if let Err(at) = self.prelude(i + 1, stop) {
            let why = format!("an at-rule whose prelude {}", self.at_token(at));
            self.refuse_item(i, end, &why);
        } else if first && !block {
            let why = "a rule without a block first in a block of rules, where EPUBCheck then \
                reads declarations";
            self.refuse_item(i, end, why);
        } else if block && self.depth >= MAX_DEPTH {
            self.refuse_item(i, end, "blocks nested too deeply");
        } else if block {
            self.depth += 1;
            self.at_block(&name, stop);
            self.depth -= 1;
        }
        (end, block)
    }

    /// An at-rule's prelude, tokens `from..stop` (`;` or `{` at `stop`).
    fn prelude(&self, from: usize, stop: usize) -> Verdict {
        let mut walk = Walk {
            src: self.src,
            toks: &self.toks,
            next: from,
            last: from,
            hi: stop + 1,
            depth: 0,
        };
        loop {
            let i = walk.next(Filter::Blank).ok_or(None)?;
            if Limit::SemiOrOpen.stops(&walk.tok(i)) {
                return Ok(());
            }
            construct(&mut walk, i, Limit::SemiOrOpen, Allowed::Any)?;
        }
    }

    /// The block of the at-rule `name`, its `{` at `open`.
    fn at_block(&mut self, name: &str, open: usize) {
        if RULE_BLOCKS.contains(&name) {
            self.rules(open + 1, Nest::Block);
            return;
        }
        // EPUBCheck reads rules when a `{` comes before any `;` or `}`.
        let first = self.toks[open + 1..]
            .iter()
            .find(|t| t.is('{') || t.is(';') || t.is('}'));
        let mode = match first {
            Some(t) if t.is('{') => Mode::Rules,
            _ => Mode::Declarations,
        };
        self.block(open, mode, Some(name));
    }
}

/// A piece of the stylesheet quoted in a message: its first line, shortened.
fn quote(text: &str) -> String {
    const MAX: usize = 60;
    let line = text.trim().lines().next().unwrap_or("");
    let invisible =
        |c: char| c.is_control() || ('\u{200B}'..='\u{200F}').contains(&c) || c == '\u{FEFF}';
    if line.contains(invisible) {
        return line
            .chars()
            .take(MAX)
            .map(|c| {
                if invisible(c) {
                    c.escape_unicode().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
    }
    let more = line.len() < text.trim().len();
    match line.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None if more => format!("{line} …"),
        None => line.to_string(),
    }
}

mod block;
mod selectors;

use selectors::{construct, selector_list};

#[cfg(test)]
mod tests;
