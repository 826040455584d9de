//! Element ids: the author's, made valid and unique, and the ones epubforge writes.
//!
//! Every id we generate in a document that also holds the author's content (the chapter's
//! heading, Markdown notes and the references to them) starts with [`GENERATED_ID_PREFIX`], and
//! no id of the author's may: one that does is renamed, and the author's links to it follow. So
//! the two can never collide, whatever the author wrote (EPUBCheck rejects a duplicate id, and a
//! note reference would jump to the author's element). A reserved prefix rather than ids chosen
//! around the author's: the packager writes the heading's id without reading the body, and the
//! Markdown renderer writes its note ids before the author's raw HTML has even been parsed.
//!
//! The renderer tells its ids from the author's by a [`marker`] derived from the source: raw
//! HTML cannot contain it, as it would have to contain a hash of itself. The sanitiser turns
//! marked ids into generated ones and renames every other id that looks generated.

use std::collections::{HashMap, HashSet};

pub(crate) use crate::xml::GENERATED_ID_PREFIX;

/// What the Markdown renderer puts before its ids in `src`'s HTML: a letter and the first 64
/// bits of the source's BLAKE3 hash, then `-`.
pub(crate) fn marker(src: &str) -> String {
    let hash = blake3::hash(src.as_bytes()).to_hex();
    format!("m{}-", &hash.as_str()[..16])
}

/// The ids of one document, as they are assigned in document order.
pub(crate) struct Ids<'m> {
    /// The renderer's marker, when it wrote ids of its own.
    marker: Option<&'m str>,
    used: HashSet<String>,
    /// Id as written -> id as it is now.
    map: HashMap<String, String>,
    /// For an id taken, the first number to try after it: every `{id}-{n}` below is taken, so
    /// 20,000 elements with one id are numbered in linear time, not quadratic.
    next: HashMap<String, usize>,
}

/// What became of an id.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Assigned {
    /// Kept as it was.
    Same,
    /// Written differently: not a valid name, taken by an earlier one, or looking generated.
    Renamed(String),
    /// The same id as an earlier element's: links go to the earlier one, this one loses it.
    Duplicate,
}

impl<'m> Ids<'m> {
    pub(crate) fn new(marker: Option<&'m str>) -> Ids<'m> {
        Ids {
            marker,
            used: HashSet::new(),
            map: HashMap::new(),
            next: HashMap::new(),
        }
    }

    /// Takes the next id in document order.
    pub(crate) fn assign(&mut self, raw: &str) -> Assigned {
        if self.map.contains_key(raw) {
            return Assigned::Duplicate;
        }
        let generated = self.marker.and_then(|m| raw.strip_prefix(m));
        let mut id = match generated {
            Some(ours) => format!("{GENERATED_ID_PREFIX}{ours}"),
            None => author_id(raw),
        };
        if self.used.contains(&id) {
            id = next_free(&id, 2, &self.used, &mut self.next);
        }
        self.used.insert(id.clone());
        self.map.insert(raw.to_string(), id.clone());
        if id == raw {
            Assigned::Same
        } else {
            Assigned::Renamed(id)
        }
    }

    /// Makes links to `raw`, when no element has it, point at `id` (an id written elsewhere).
    pub(crate) fn alias(&mut self, raw: &str, id: &str) {
        self.map
            .entry(raw.to_string())
            .or_insert_with(|| id.to_string());
    }

    /// The id that a link to `raw` now points at.
    pub(crate) fn target(&self, raw: &str) -> Option<&str> {
        self.map.get(raw).map(String::as_str)
    }

    /// Every id as written -> as it is now.
    pub(crate) fn into_map(self) -> HashMap<String, String> {
        self.map
    }
}

/// The first `{base}-{n}` (n from `first`) not in `used`, starting where the last search for
/// `base` ended (ids are only ever added to `used`, so the numbers skipped stay taken).
pub(crate) fn next_free(
    base: &str,
    first: usize,
    used: &HashSet<String>,
    next: &mut HashMap<String, usize>,
) -> String {
    let from = next.get(base).copied().unwrap_or(first);
    let (n, id) = (from..)
        .map(|n| (n, format!("{base}-{n}")))
        .find(|(_, candidate)| !used.contains(candidate))
        .unwrap_or_default();
    next.insert(base.to_string(), n + 1);
    id
}

/// An author's id as an NCName (what EPUBCheck's schema wants for `xsd:ID`) that does not
/// look generated, deterministically.
fn author_id(raw: &str) -> String {
    let id = to_ncname(raw);
    if id.starts_with(GENERATED_ID_PREFIX) {
        format!("id-{id}")
    } else {
        id
    }
}

/// Makes an id a valid NCName, deterministically.
fn to_ncname(raw: &str) -> String {
    let mut out: String = raw
        .chars()
        .map(|c| if is_name_char(c) { c } else { '-' })
        .collect();
    if !out.chars().next().is_some_and(is_name_start_char) {
        out.insert_str(0, "id-");
    }
    out
}

fn is_name_start_char(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}'
        | '\u{F8}'..='\u{2FF}' | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}'
        | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}'
        | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
        | '\u{10000}'..='\u{EFFFF}')
}

fn is_name_char(c: char) -> bool {
    is_name_start_char(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ncname_fixes_leading_digit_and_spaces() {
        assert_eq!(to_ncname("1 intro"), "id-1-intro");
        assert_eq!(to_ncname("a:b"), "a-b");
        assert_eq!(to_ncname("ok_id.2"), "ok_id.2");
        assert_eq!(to_ncname(""), "id-");
    }

    #[test]
    fn author_ids_never_look_generated_and_never_collide() {
        let mut ids = Ids::new(None);
        let generated = format!("{GENERATED_ID_PREFIX}chapter-title");
        assert_eq!(
            ids.assign(&generated),
            Assigned::Renamed(format!("id-{generated}"))
        );
        assert_eq!(ids.assign("a b"), Assigned::Renamed("a-b".into()));
        assert_eq!(ids.assign("a-b"), Assigned::Renamed("a-b-2".into()));
        assert_eq!(ids.assign("a-b-2"), Assigned::Renamed("a-b-2-2".into()));
        assert_eq!(ids.assign("a b"), Assigned::Duplicate);
        assert_eq!(ids.assign("plain"), Assigned::Same);
        assert_eq!(ids.target("a-b"), Some("a-b-2"));
        assert_eq!(ids.target("a b"), Some("a-b"));
    }

    #[test]
    fn ids_that_collide_are_numbered_past_the_taken_ones_in_order() {
        let mut ids = Ids::new(None);
        assert_eq!(ids.assign("a-b-3"), Assigned::Same);
        let got: Vec<Assigned> = ["a b", "a?b", "a!b", "a;b"]
            .iter()
            .map(|r| ids.assign(r))
            .collect();
        let want = ["a-b", "a-b-2", "a-b-4", "a-b-5"].map(|w| Assigned::Renamed(w.into()));
        assert_eq!(got, want);
        let mut used = HashSet::from(["a".to_string(), "a-2".into(), "a-4".into()]);
        let mut next = HashMap::new();
        let mut take = |used: &mut HashSet<String>| {
            let id = next_free("a", 2, used, &mut next);
            used.insert(id.clone());
            id
        };
        let taken: Vec<String> = (0..3).map(|_| take(&mut used)).collect();
        assert_eq!(taken, ["a-3", "a-5", "a-6"]);
    }

    #[test]
    fn marked_ids_become_generated_ones() {
        let m = marker("source");
        let mut ids = Ids::new(Some(&m));
        assert_eq!(
            ids.assign(&format!("{m}fn-1")),
            Assigned::Renamed(format!("{GENERATED_ID_PREFIX}fn-1"))
        );
        // The author's look-alike, written before or after, is renamed.
        let look_alike = format!("{GENERATED_ID_PREFIX}fn-1");
        assert_eq!(
            ids.assign(&look_alike),
            Assigned::Renamed(format!("id-{look_alike}"))
        );
        assert_ne!(marker("source"), marker("source "));
    }
}
