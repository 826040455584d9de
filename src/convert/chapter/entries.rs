//! The contents entries (`sections`) of a page whose id its body does not hold: a
//! downloader's contents pointing at `#h1-0`, `#h2-3`… in a page whose headings had no id (the
//! build gives every heading one), or at a file the zip lacked. An entry is linked to the
//! heading of the same words after the one before it; one with no such heading opens where
//! the entry before it does (the chapter's top for the first, where a reader of the input
//! opens it). So no entry is left out unsaid and the contents stay in reading order.

use std::collections::HashMap;
use std::path::Path;

use crate::Diagnostic;
use crate::book::Section;
use crate::diagnostic::Code;

/// A heading of the body with an id: where its start tag is, and its id.
struct Heading {
    start: usize,
    id: String,
}

/// The body's headings ([`crate::book::pieces::headings`]), and which have which words.
struct Headings {
    all: Vec<Heading>,
    by_words: HashMap<String, Vec<usize>>,
}

/// `sections` with every id the body holds, as the module documentation says. One note for
/// the entries linked to a heading, one warning for those that could not be.
pub(super) fn resolve(
    sections: Option<Vec<Section>>,
    body: &str,
    path: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Option<Vec<Section>> {
    let mut sections = sections?;
    // Most pages' entries have no id (a chapter's own entry): the body is not read then.
    if sections.iter().all(|s| s.id.is_empty()) {
        return Some(sections);
    }
    let ids = crate::book::pieces::ids(body);
    let mut headings: Option<Headings> = None;
    let (mut linked, mut unfound) = (Vec::new(), Vec::new());
    // The entry before: its id and where its target is.
    let (mut before, mut floor) = (String::new(), None);
    for s in sections.iter_mut().filter(|s| !s.id.is_empty()) {
        if let Some(&at) = ids.get(crate::xml::escape_attr(&s.id).as_str()) {
            (before, floor) = (s.id.clone(), Some(at));
            continue;
        }
        let found = headings
            .get_or_insert_with(|| Headings::of(body))
            .after(&s.title, floor);
        let said = format!("\"{}\" (#{})", s.title, s.id);
        match found {
            Some(h) => {
                (s.id, floor) = (h.id.clone(), Some(h.start));
                before.clone_from(&s.id);
                linked.push(said);
            }
            None => {
                s.id.clone_from(&before);
                unfound.push(said);
            }
        }
    }
    warnings.extend(said(&linked, &unfound, path));
    Some(sections)
}

/// The note and the warning of [`resolve`].
fn said(linked: &[String], unfound: &[String], path: &Path) -> Vec<Diagnostic> {
    let list = |entries: &[String]| match entries {
        [] => None,
        [one] => Some(one.clone()),
        [first, rest @ ..] => Some(format!("{first} and {} more", rest.len())),
    };
    let mut out = Vec::new();
    if let Some(entries) = list(linked) {
        let message = format!(
            "contents entry {entries}: the page has no such id; linked to the heading of the same words"
        );
        out.push(Diagnostic::note(Code::RemovedLink, message).at(path));
    }
    if let Some(entries) = list(unfound) {
        let message = format!(
            "contents entry {entries}: the page has no such id nor a heading of those words; the entry opens where the one before it does"
        );
        let hint = "give the heading that id in the file, or correct `sections` in metadata.toml";
        out.push(
            Diagnostic::warning(Code::RemovedLink, message)
                .at(path)
                .hint(hint),
        );
    }
    out
}

impl Headings {
    /// The headings of `body` with an id that is written without escapes (it becomes a
    /// section's id as it is).
    fn of(body: &str) -> Headings {
        let mut all = Vec::new();
        let mut by_words: HashMap<String, Vec<usize>> = HashMap::new();
        for (start, heading) in crate::book::pieces::headings(body) {
            if heading.id.contains('&') {
                continue;
            }
            by_words.entry(heading.title).or_default().push(all.len());
            all.push(Heading {
                start,
                id: heading.id,
            });
        }
        Headings { all, by_words }
    }

    /// The first heading with the words of `title` that starts after `floor` (anywhere when
    /// None).
    fn after(&self, title: &str, floor: Option<usize>) -> Option<&Heading> {
        let words = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let found = self.by_words.get(&words)?;
        let first = found.partition_point(|&i| floor.is_some_and(|f| self.all[i].start <= f));
        found.get(first).map(|&i| &self.all[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_is_found_by_its_words_after_the_entry_before() {
        let body = "<h2 id=\"a\">Tom &amp; <em>Jerry</em></h2><p>x</p><h3 id=\"b\">Tom &amp; Jerry</h3>\
                    <h2 id=\"c&amp;d\">Odd</h2><h2>No id</h2>";
        let h = Headings::of(body);
        assert_eq!(
            h.after("Tom & Jerry", None).map(|h| h.id.as_str()),
            Some("a")
        );
        let first = h.after("Tom  &  Jerry", None).unwrap().start;
        assert_eq!(
            h.after("Tom & Jerry", Some(first)).map(|h| h.id.as_str()),
            Some("b")
        );
        assert!(h.after("Odd", None).is_none() && h.after("No id", None).is_none());
    }
}
