//! Two steps in one pass: where a configuration segments in its first step and its second
//! step has few keys longer than one character (`s2tw`), the second step is composed into the
//! first one's candidates, so that the text is walked once instead of twice.
//!
//! The second step converts each segment apart. A segment that is a phrase of the first step
//! becomes the phrase's candidate with the second step applied to it, worked out when the
//! tables are built. A run of characters that no phrase starts becomes each character's
//! candidate with the second step's candidate for it, which is what the second step makes of
//! the run unless one of its longer keys matches there; so a character whose first candidate
//! starts such a key is watched, and where the next character's could go on with it the
//! text is converted in two passes after all (rare: the keys of `TWVariantsPhrases` are
//! names such as 張棟樑). Composition keeps marks where the two passes put them only when the
//! second step keeps the number of characters of every key, which it is built to check.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{
    CANDIDATE, Chars, Dict, FIRST, Found, LEAD, LOOK, Lookup, Matcher, Output, Pairs, SINGLE,
    Table, arity, decode, entries, files, output, source, step,
};

/// A character's flag in the fused [`Chars`]: its first candidate starts a longer key of the
/// second step (with [`LOOK`], so that the walk stops there).
const WATCH: u32 = 1 << 28;
/// A character's flag in the fused [`Chars`]: the first step makes more than one character of
/// it, which the second step may then read as part of a longer key (with [`LOOK`]).
const DIRTY: u32 = 1 << 27;

/// The first and second steps of a configuration as one.
#[derive(Debug)]
pub(super) struct Fused {
    /// The first step with the second composed into its characters' candidates.
    lookup: Lookup,
    /// The phrases' candidates that the second step changes, by where they are (their
    /// address and length), with what it makes of them.
    phrases: FxHashMap<(usize, usize), &'static str>,
    /// What the first step alone makes of each character below U+10000.
    first: Chars,
    /// The pairs of characters that start the second step's longer keys.
    second: Pairs,
}

impl Fused {
    /// The fusion of `first` (a step that segments: a `First` group of a table of phrases
    /// and tables of single characters) and `second` (the step `dict` names); None when the
    /// composition would not give what two passes give.
    pub(super) fn of(first: &Lookup, second: &Lookup, dict: &Dict) -> Option<Fused> {
        let Matcher::First(members) = &first.matcher else {
            return None;
        };
        let (Some(Matcher::Table(phrases)), singles) = (members.first(), &members[1..]) else {
            return None;
        };
        if !composable(dict) {
            return None;
        }
        let mut chars = first.chars.clone();
        let (mut keys, mut made) = (Vec::new(), Vec::new());
        for (c, flags) in (0..).zip(chars.0.iter_mut()) {
            if let Some(to) = compose(c, flags, second)? {
                keys.push(char_string(c));
                made.push(char_string(to));
            }
        }
        let mut far: Vec<char> = singles.iter().flat_map(far_keys).collect();
        far.sort_unstable();
        far.dedup();
        // After every key below U+10000: the keys stay in order.
        for far in far {
            let key = far.to_string();
            made.push(far_value(first, second, &key)?);
            keys.push(key);
        }
        let touched = touched_values(phrases, second);
        made.extend(touched.iter().map(|&v| convert_segment(second, v)));
        let made = leak_all(&made);
        let (singles_made, phrases_made) = made.split_at(keys.len());
        let keys = keys.iter().map(String::as_str);
        let entries = keys.zip(singles_made.iter().copied());
        let singles = Table::from_sorted(entries, singles_made.len());
        let matcher = Matcher::First(vec![
            Matcher::Table(phrases.clone()),
            Matcher::Table(Arc::new(singles)),
        ]);
        let place = |v: &str| (v.as_ptr() as usize, v.len());
        Some(Fused {
            lookup: Lookup {
                dense: chars.dense(),
                phrases: super::phrases_then_chars(&matcher),
                matcher,
                chars,
                pairs: first.pairs.clone(),
                stops: None,
            },
            phrases: touched
                .iter()
                .map(|&v| place(v))
                .zip(phrases_made.iter().copied())
                .collect(),
            first: first.chars.clone(),
            second: second.pairs.clone(),
        })
    }

    /// `text` converted in one pass, with `marks` moved; None (and `marks` as they were)
    /// where it must be converted in two.
    pub(super) fn convert(&self, text: &str, marks: &mut [usize]) -> Option<String> {
        let saved = marks.to_vec();
        let mut out = String::with_capacity(text.len() + text.len() / 5);
        if self.walk(text, &mut out, marks) {
            return Some(out);
        }
        marks.copy_from_slice(&saved);
        None
    }

    /// The one pass; false where it stops at a character whose first candidate and the next
    /// character's may start a longer key of the second step.
    fn walk(&self, text: &str, out: &mut String, marks: &mut [usize]) -> bool {
        let mut out = Output::new(&self.lookup, text, out, marks);
        let mut at = 0;
        while let Some((found, what)) = self.lookup.next(text, at, text.len(), Some(&mut out)) {
            if self.breaks(text, found) {
                return false;
            }
            let what = match what {
                Found::Key(len, value) => Found::Key(len, self.composed(value)),
                other => other,
            };
            at = found + out.found(found, what);
        }
        out.finish();
        true
    }

    /// What the second step makes of `value`, a candidate of the first.
    #[inline]
    fn composed(&self, value: &'static str) -> &'static str {
        let place = (value.as_ptr() as usize, value.len());
        self.phrases.get(&place).copied().unwrap_or(value)
    }

    /// Whether the character at `at` may start a longer key of the second step, or cannot be
    /// composed.
    fn breaks(&self, text: &str, at: usize) -> bool {
        let b = text.as_bytes();
        let (c, len) = decode(b, at);
        let flags = self.lookup.chars.get(c);
        if flags & DIRTY != 0 {
            return true;
        }
        if flags & WATCH == 0 || at + len >= b.len() {
            return false;
        }
        let (next, _) = decode(b, at + len);
        next as usize >= FIRST
            || self.second.may(
                output(self.first.get(c), c),
                output(self.first.get(next), next),
            )
    }
}

/// Composes the second step into the flags of `c` in the first step's table (`flags`):
/// its candidate when it is not `c`, and [`WATCH`] or [`DIRTY`] where the walk must look
/// further. None when the second step makes more than one character of the first's
/// candidate (no fusion).
fn compose(c: u32, flags: &mut u32, second: &Lookup) -> Option<Option<u32>> {
    if *flags & LOOK != 0 {
        if arity(char::from_u32(c).unwrap_or('\0')) == 0 {
            *flags |= DIRTY;
        }
        return Some(None);
    }
    let o = output(*flags, c);
    let mut to = o;
    // The second step has no key from U+10000 (see composable).
    if (o as usize) < FIRST {
        let then = second.chars.get(o);
        if then & LOOK != 0 {
            return None;
        }
        to = output(then, o);
        if then & LEAD != 0 {
            *flags |= WATCH | LOOK;
        }
    }
    *flags &= !(SINGLE | CANDIDATE);
    if to == c {
        return Some(None);
    }
    *flags |= SINGLE | to;
    Some(Some(to))
}

/// `c` as a string (U+FFFD where it is not a character).
fn char_string(c: u32) -> String {
    char::from_u32(c)
        .unwrap_or(char::REPLACEMENT_CHARACTER)
        .to_string()
}

/// What the two steps make of `key`, a key of one character from U+10000 of the first
/// step; None when its candidate is not one character, or starts a longer key of the
/// second step (the walk cannot watch for it).
fn far_value(first: &Lookup, second: &Lookup, key: &str) -> Option<String> {
    let (_, value) = first.matcher.longest(key.as_bytes(), 0, key.len())?;
    let mut one = value.chars().map(u32::from);
    let (Some(o), None) = (one.next(), one.next()) else {
        return None;
    };
    if (o as usize) < FIRST && second.chars.get(o) & (LEAD | LOOK) != 0 {
        return None;
    }
    Some(convert_segment(second, value))
}

/// The keys of one character from U+10000 of a single-character table.
fn far_keys(m: &Matcher) -> Vec<char> {
    let mut tables = Vec::new();
    m.tables(&mut tables);
    let far = tables.iter().flat_map(|t| t.far.iter());
    far.filter_map(|&c| char::from_u32(c)).collect()
}

/// The candidates of `phrases` that hold a character the second step may change.
fn touched_values(phrases: &Table, second: &Lookup) -> Vec<&'static str> {
    let touched = |v: &&str| v.chars().any(|c| second.chars.get(c.into()) != 0);
    phrases.values.iter().copied().filter(touched).collect()
}

/// What the step `lookup` makes of `text` as one segment.
fn convert_segment(lookup: &Lookup, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    step(lookup, text, &mut out, &mut [], &mut []);
    out
}

/// The most keys longer than one character a second step may have to be fused. Each is
/// watched for: `TWVariantsPhrases` has 12 (names such as 張棟樑, rare in text), while the
/// 272 of `HKVariantsPhrases` start with characters such as 大, 山 and 東, and would send
/// most chapters back to two passes.
const MOST_WATCHED: usize = 32;

/// Whether the second step `dict` can be composed into the first: every key is as many
/// characters as its candidate (so that marks move as two passes move them), below U+10000
/// and without an ideographic description character (so that the watch sees every key that
/// could match), and few keys are longer than one character.
fn composable(dict: &Dict) -> bool {
    let mut longer = 0;
    let plain = |c: char| (c as usize) < FIRST && arity(c) == 0;
    let mut entries = files(dict).into_iter().flat_map(|f| entries(source(f)));
    let keeps = entries.all(|(key, value)| {
        let len = key.chars().count();
        longer += usize::from(len > 1);
        len == value.chars().count() && key.chars().all(plain)
    });
    keeps && longer <= MOST_WATCHED
}

/// `values` as strings that live as long as the process, as the tables holding them do (a
/// configuration is built once per process): one allocation, leaked.
fn leak_all(values: &[String]) -> Vec<&'static str> {
    let all: &'static str = Box::leak(values.concat().into_boxed_str());
    let mut at = 0;
    let mut slice = |len: usize| {
        at += len;
        &all[at - len..at]
    };
    values.iter().map(|v| slice(v.len())).collect()
}
