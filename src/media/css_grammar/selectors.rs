//! EPUBCheck's grammar of selectors and of the constructs of values and preludes (in its
//! `CssGrammar`): what it accepts, token by token, as its parser walks them.

use super::tokens::Kind;
use super::{Allowed, Construct, Filter, Limit, MAX_DEPTH, Verdict, Walk};

/// A list of selectors from `start` up to the token `end` stops at (a rule's `{`, the `)` of
/// `:not(`); `relative` for `:has(`, whose selectors may start with a combinator.
pub(super) fn selector_list(
    walk: &mut Walk<'_>,
    start: usize,
    end: Limit,
    relative: bool,
) -> Verdict {
    let mut start = start;
    let mut relative = relative;
    loop {
        let first = walk.last;
        loop {
            if !relative || walk.last > first {
                sequence(walk, start)?;
                start = walk.next(Filter::Blank).ok_or(None)?;
            }
            let t = walk.tok(start);
            if ends(end, &t) {
                return Ok(());
            }
            if t.is(',') {
                break;
            }
            if t.is('>') || t.is('+') || t.is('~') {
                start = walk.next(Filter::Blank).ok_or(None)?;
            } else if start > 0 && matches!(walk.tok(start - 1).kind, Kind::Space | Kind::Function)
            {
                // A descendant combinator: what comes next is the next sequence.
                relative = false;
            } else {
                return Err(Some(start));
            }
        }
        start = walk.next(Filter::Blank).ok_or(None)?;
    }
}

fn ends(end: Limit, t: &super::Tok) -> bool {
    match end {
        Limit::Open => t.is('{'),
        _ => t.is(')'),
    }
}

/// A sequence of simple selectors (`p.a:hover`) from `start`.
fn sequence(walk: &mut Walk<'_>, start: usize) -> Verdict {
    simple(walk, start)?;
    loop {
        let next = walk.peek(Filter::None).ok_or(None)?;
        let t = walk.tok(next);
        let stop = t.kind == Kind::Space || [',', '{', ')', '>', '+', '~'].iter().any(|&c| t.is(c));
        if stop {
            return Ok(());
        }
        walk.next(Filter::None);
        simple(walk, next)?;
    }
}

/// One simple selector from `start`.
fn simple(walk: &mut Walk<'_>, start: usize) -> Verdict {
    let t = walk.tok(start);
    match t.kind {
        Kind::Ident | Kind::Char('*' | '|') => type_selector(walk, start),
        Kind::Hash | Kind::Class | Kind::Percent => Ok(()),
        Kind::Char('[') => {
            let first = walk.next(Filter::Blank).ok_or(None)?;
            attribute(walk, first)
        }
        Kind::Char(':') => pseudo(walk),
        _ => Err(Some(start)),
    }
}

/// `E`, `*`, `ns|E`, `*|E`, `|E`.
fn type_selector(walk: &mut Walk<'_>, start: usize) -> Verdict {
    let t = walk.tok(start);
    if t.is('|') {
        let next = walk.peek(Filter::None).ok_or(None)?;
        if walk.tok(next).kind != Kind::Ident {
            return Err(Some(next));
        }
        walk.next(Filter::Blank);
        return Ok(());
    }
    let Some(next) = walk.peek(Filter::None) else {
        return Ok(());
    };
    if walk.tok(next).is('|') {
        walk.next(Filter::Blank);
        let name = walk.next(Filter::None).ok_or(None)?;
        let n = walk.tok(name);
        if n.kind != Kind::Ident && !n.is('*') {
            return Err(Some(name));
        }
    } else if walk.tok(next).kind == Kind::Ident {
        walk.next(Filter::Blank);
    }
    Ok(())
}

/// `[name]`, `[name=value]` and the other matchers, from the token after `[`.
fn attribute(walk: &mut Walk<'_>, start: usize) -> Verdict {
    if walk.tok(start).kind != Kind::Ident && !walk.tok(start).is('*') && !walk.tok(start).is('|') {
        return Err(Some(start));
    }
    type_selector(walk, start)?;
    let next = walk.next(Filter::Blank).ok_or(None)?;
    let t = walk.tok(next);
    if t.is(']') {
        return Ok(());
    }
    if !(t.is('=') || t.kind == Kind::Matcher) {
        return Err(Some(next));
    }
    let value = walk.next(Filter::Blank).ok_or(None)?;
    construct(walk, value, Limit::Bracket, Allowed::NameOrString)?;
    // EPUBCheck takes the next token as the `]`, whatever it is.
    walk.next(Filter::Blank).ok_or(None)?;
    Ok(())
}

/// `:name`, `::name`, `:name(…)` after the `:`.
fn pseudo(walk: &mut Walk<'_>) -> Verdict {
    let mut next = walk.next(Filter::None).ok_or(None)?;
    if walk.tok(next).is(':') {
        next = walk.next(Filter::None).ok_or(None)?;
    }
    let t = walk.tok(next);
    if t.kind != Kind::Function {
        // A name, or anything else, which EPUBCheck takes without a word.
        return Ok(());
    }
    if walk.depth >= MAX_DEPTH {
        return Err(Some(next));
    }
    walk.depth += 1;
    let verdict = pseudo_function(walk, next);
    walk.depth -= 1;
    verdict
}

/// The arguments of the functional pseudo-class at `next` (`:not(`, `:nth-child(` …).
fn pseudo_function(walk: &mut Walk<'_>, next: usize) -> Verdict {
    let name = walk.name(next).to_ascii_lowercase();
    match name.as_str() {
        "not(" | "is(" | "where(" | "has(" => {
            let first = walk.next(Filter::Blank).ok_or(None)?;
            selector_list(walk, first, Limit::Bracket, name == "has(")
        }
        _ => loop {
            let tk = walk.next(Filter::Blank).ok_or(None)?;
            if walk.tok(tk).is(')') {
                return Ok(());
            }
            if walk.tok(tk).is('{') {
                return Err(Some(tk));
            }
            construct(walk, tk, Limit::Open, Allowed::PseudoArgument)?;
        },
    }
}

/// One construct of a value or prelude from `start` (a name, a number, a function with its
/// arguments, a parenthesis with what it holds …), which must be `allowed`; `limit` stops a
/// function or parenthesis left open.
pub(super) fn construct(
    walk: &mut Walk<'_>,
    start: usize,
    limit: Limit,
    allowed: Allowed,
) -> Verdict {
    let t = walk.tok(start);
    let made = match t.kind {
        Kind::Function => {
            group(walk, ')', limit, allowed)?;
            // A function itself is taken anywhere.
            return Ok(());
        }
        Kind::Char('{' | '}' | ';') => return Err(Some(start)),
        Kind::Char(open @ ('(' | '[')) => {
            group(walk, if open == '(' { ')' } else { ']' }, limit, allowed)?;
            Construct::Other
        }
        Kind::Char(c) => Construct::Symbol(c),
        Kind::Ident | Kind::Word => Construct::Name,
        Kind::Str => Construct::Str,
        Kind::Number | Kind::Percent => Construct::Number,
        Kind::Url | Kind::Range | Kind::Hash | Kind::Class => Construct::Other,
        _ => return Err(Some(start)),
    };
    if allowed.takes(made) {
        Ok(())
    } else {
        Err(Some(start))
    }
}

/// What a function or parenthesis holds, up to its `close`.
fn group(walk: &mut Walk<'_>, close: char, limit: Limit, allowed: Allowed) -> Verdict {
    if walk.depth >= MAX_DEPTH {
        return Err(Some(walk.last));
    }
    walk.depth += 1;
    let verdict = group_items(walk, close, limit, allowed);
    walk.depth -= 1;
    verdict
}

fn group_items(walk: &mut Walk<'_>, close: char, limit: Limit, allowed: Allowed) -> Verdict {
    loop {
        let tk = walk.next(Filter::Blank).ok_or(None)?;
        let t = walk.tok(tk);
        if t.is(close) {
            return Ok(());
        }
        if limit.stops(&t) {
            return Err(Some(tk));
        }
        construct(walk, tk, limit, Allowed::Any)?;
        if allowed != Allowed::Any {
            // The construct inside must also be allowed where the group stands.
            let inner = kind_of(walk.tok(tk).kind);
            if !allowed.takes(inner) {
                return Err(Some(tk));
            }
        }
    }
}

fn kind_of(kind: Kind) -> Construct {
    match kind {
        Kind::Ident | Kind::Word => Construct::Name,
        Kind::Str => Construct::Str,
        Kind::Number | Kind::Percent => Construct::Number,
        Kind::Char(c) if c != '(' && c != '[' => Construct::Symbol(c),
        _ => Construct::Other,
    }
}
