//! What a user's `split` pattern leaves out: the lines it did not match that the book writes
//! like the headings it did (`第十—回` missed by `^第[一二…]+回`, a label before one, a
//! decorated one), for `check`'s `heading-not-taken` warnings at their lines. With
//! `split = "auto"` the built-in rules report such lines themselves; with a pattern, the same
//! rules look at the lines it did not match, and only those of a heading family the pattern's
//! own headings have are listed (a `第五章` in a book split at its `第…回` is the user's
//! choice, not a miss).

use super::auto;
use super::{HeadingLine, SkipReason, Skipped};

/// A line a user's `split` pattern did not match, and the family of the heading the built-in
/// rules read in it (None for a heading-like line they do not take: decorated, an unreadable
/// number).
pub(super) fn pattern_missed(index: usize, line: &str) -> Option<(Skipped, Option<auto::Family>)> {
    let skipped = |why| Skipped {
        line: index + 1,
        text: auto::collapse_spaces(line),
        why,
    };
    if let Some(why) = auto::not_taken(line) {
        return Some((skipped(why), None));
    }
    let family = auto_family(line)?;
    Some((skipped(SkipReason::PatternMissed), Some(family)))
}

/// The family of the numbered heading the built-in rules read in a trimmed line, if any.
fn auto_family(line: &str) -> Option<auto::Family> {
    let found = match auto::detect(line) {
        found if !found.is_empty() => found,
        _ => super::volumes::weak(line)?.found,
    };
    let numbered = found.iter().find(|f| f.number.is_some())?;
    Some(auto::family(&numbered.title).0)
}

/// Of the lines a pattern missed, those that look like the headings it took: decorated or
/// unreadable heading-like lines, and headings of a family the pattern's headings have
/// (`第十二章` missed by a pattern that took `第十一章`), not a heading of another kind the
/// user chose not to split at.
pub(super) fn like_the_headings(
    missed: Vec<(Skipped, Option<auto::Family>)>,
    taken: &[HeadingLine],
    lines: &[&str],
) -> Vec<Skipped> {
    if missed.is_empty() {
        return Vec::new();
    }
    let families: std::collections::HashSet<auto::Family> = taken
        .iter()
        .filter_map(|h| auto_family(auto::trim_line(lines[h.index])))
        .collect();
    missed
        .into_iter()
        .filter(|(_, family)| family.is_none_or(|f| families.contains(&f)))
        .map(|(s, _)| s)
        .collect()
}
