//! A book's own TeX macros (`\GG` for `\mathbb{G}`, `\relPCS{n}` with an argument), expanded
//! in a formula's TeX before it is converted to MathML, as KaTeX expands them in the browser.
//!
//! Part of the Markdown converter's math (see [`super::math`]). mdBook books declare them in
//! a file `book.toml` names (`[preprocessor.katex] macros = "macros.txt"`, read by the
//! project stage). A macro may use another, or itself: expansion is budgeted like KaTeX's
//! `maxExpand` (1000 expansions a formula) and by size, so a macro that calls itself ends in
//! a refusal (the formula stays as code with a warning), never in a hang or unbounded memory.

use std::borrow::Cow;

/// Most macro expansions in one formula (KaTeX's default `maxExpand`).
const MAX_EXPANSIONS: usize = 1000;

/// Most passes over a formula: how deep macros may use macros.
const MAX_PASSES: usize = 64;

/// The largest an expanded formula may grow: this many times its written size, plus
/// [`GROWTH_SLACK`] bytes.
const MAX_GROWTH: usize = 16;
const GROWTH_SLACK: usize = 16 << 10;

/// Why a formula's macros could not be expanded: a budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum Overrun {
    /// More than [`MAX_EXPANSIONS`] expansions.
    #[error("its macros expand more than {MAX_EXPANSIONS} times")]
    Expansions,
    /// Macros still called after [`MAX_PASSES`] passes.
    #[error("its macros still call macros after {MAX_PASSES} rounds")]
    Passes,
    /// Grown past [`MAX_GROWTH`] times its size.
    #[error("its macros grow it past any formula's size")]
    Growth,
}

/// `tex` with the book's `macros` (name without its backslash, definition with `#1`…`#9` for
/// its arguments) expanded, or why it could not be.
pub(super) fn expand<'t>(
    tex: &'t str,
    macros: &[(String, String)],
) -> Result<Cow<'t, str>, Overrun> {
    if macros.is_empty() || !tex.contains('\\') {
        return Ok(Cow::Borrowed(tex));
    }
    let limit = tex.len().saturating_mul(MAX_GROWTH) + GROWTH_SLACK;
    let mut budget = MAX_EXPANSIONS;
    let mut text = Cow::Borrowed(tex);
    for _ in 0..MAX_PASSES {
        match pass(&text, macros, &mut budget, limit)? {
            Some(next) => text = Cow::Owned(next),
            None => return Ok(text),
        }
    }
    Err(Overrun::Passes)
}

/// One pass over `tex`: every call of a macro replaced by its definition; None when there was
/// none.
fn pass(
    tex: &str,
    macros: &[(String, String)],
    budget: &mut usize,
    limit: usize,
) -> Result<Option<String>, Overrun> {
    let mut out = String::with_capacity(tex.len());
    let mut changed = false;
    let mut rest = tex;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name_len = control_name_len(after);
        let name = &after[..name_len];
        rest = &after[name_len..];
        let Some((_, definition)) = macros.iter().find(|(n, _)| n == name) else {
            out.push('\\');
            out.push_str(name);
            continue;
        };
        *budget = budget.checked_sub(1).ok_or(Overrun::Expansions)?;
        let wanted = arity(definition);
        let mut args = Vec::with_capacity(wanted);
        for _ in 0..wanted {
            let (arg, left) = argument(rest);
            args.push(arg);
            rest = left;
        }
        substitute(definition, &args, &mut out);
        if out.len() > limit {
            return Err(Overrun::Growth);
        }
        changed = true;
    }
    out.push_str(rest);
    Ok(changed.then_some(out))
}

/// The length of the control sequence name at the start of `s` (after its backslash): a run of
/// letters, else one character (`\$`, `\\`), else nothing.
fn control_name_len(s: &str) -> usize {
    let letters = s.bytes().take_while(u8::is_ascii_alphabetic).count();
    match letters {
        0 => s.chars().next().map_or(0, char::len_utf8),
        n => n,
    }
}

/// How many arguments a definition takes: its highest `#n`.
fn arity(definition: &str) -> usize {
    let bytes = definition.as_bytes();
    bytes
        .windows(2)
        .filter(|w| w[0] == b'#' && (b'1'..=b'9').contains(&w[1]))
        .map(|w| usize::from(w[1] - b'0'))
        .max()
        .unwrap_or(0)
}

/// The argument at the start of `s` (spaces before it skipped): a `{…}` group's content, a
/// control sequence or one character; and what follows it. An unclosed group takes the rest.
fn argument(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    if let Some(inner) = s.strip_prefix('{') {
        let mut depth = 1usize;
        let mut escaped = false;
        for (i, c) in inner.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return (&inner[..i], &inner[i + 1..]);
                    }
                }
                _ => {}
            }
        }
        return (inner, "");
    }
    if let Some(after) = s.strip_prefix('\\') {
        let n = 1 + control_name_len(after);
        return s.split_at(n.min(s.len()));
    }
    let n = s.chars().next().map_or(0, char::len_utf8);
    s.split_at(n)
}

/// `definition` with `#n` replaced by the `n`th of `args`, written to `out`.
fn substitute(definition: &str, args: &[&str], out: &mut String) {
    let mut chars = definition.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        let digit = chars
            .peek()
            .and_then(|&(_, d)| d.to_digit(10))
            .filter(|d| (1..=9).contains(d));
        match (c, digit) {
            ('#', Some(d)) => {
                chars.next();
                out.push_str(args.get(d as usize - 1).copied().unwrap_or_default());
            }
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book() -> Vec<(String, String)> {
        [
            ("GG", r"{\mathbb{G}}"),
            ("relation", r"\mathcal{R}"),
            ("relPCS", r"{\relation_{\mathsf{PCD},#1}}"),
            ("pair", r"\langle #1, #2 \rangle"),
        ]
        .iter()
        .map(|(n, d)| (n.to_string(), d.to_string()))
        .collect()
    }

    #[test]
    fn macros_expand_with_arguments_and_through_each_other() {
        let m = book();
        assert_eq!(expand(r"x \in \GG^n", &m).unwrap(), r"x \in {\mathbb{G}}^n");
        assert_eq!(
            expand(r"\relPCS{k} \pair a{b c}", &m).unwrap(),
            r"{\mathcal{R}_{\mathsf{PCD},k}} \langle a, b c \rangle"
        );
        // A longer name is another command; `\\` is a line break, not `\` + a macro.
        assert_eq!(expand(r"\GGx \\GG", &m).unwrap(), r"\GGx \\GG");
        assert!(matches!(expand("a + b", &m).unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn a_macro_that_calls_itself_is_refused_not_followed() {
        let loops = vec![("a".to_string(), r"\a\a".to_string())];
        let why = expand(r"\a", &loops).unwrap_err();
        assert!(
            matches!(why, Overrun::Expansions | Overrun::Growth),
            "{why}"
        );
        assert!(why.to_string().contains("1000") || why.to_string().contains("size"));
        let deep = vec![("b".to_string(), r"x\b".to_string())];
        assert!(expand(r"\b", &deep).is_err());
    }
}
