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

/// The body's headings, and which have which words (as the body writes them, escaped, the
/// white space folded).
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
    let holds = |id: &str| body.find(&format!("id=\"{}\"", crate::xml::escape_attr(id)));
    let mut headings: Option<Headings> = None;
    let (mut linked, mut unfound) = (Vec::new(), Vec::new());
    // The entry before: its id and where its target is.
    let (mut before, mut floor) = (String::new(), None);
    for s in sections.iter_mut().filter(|s| !s.id.is_empty()) {
        if let Some(at) = holds(&s.id) {
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
    /// One pass over `body`'s `h1`-`h6` start tags.
    fn of(body: &str) -> Headings {
        let mut all = Vec::new();
        let mut by_words: HashMap<String, Vec<usize>> = HashMap::new();
        let mut at = 0;
        while let Some(k) = body[at..].find("<h") {
            let start = at + k;
            at = start + 2;
            let Some((heading, words, end)) = heading_at(body, start) else {
                continue;
            };
            by_words.entry(words).or_default().push(all.len());
            all.push(heading);
            at = end;
        }
        Headings { all, by_words }
    }

    /// The first heading with the words of `title` that starts after `floor` (anywhere when
    /// None).
    fn after(&self, title: &str, floor: Option<usize>) -> Option<&Heading> {
        let found = self
            .by_words
            .get(&folded(&crate::xml::escape_text(title)))?;
        let first = found.partition_point(|&i| floor.is_some_and(|f| self.all[i].start <= f));
        found.get(first).map(|&i| &self.all[i])
    }
}

/// The heading whose start tag opens at `start`, its words, and where its end tag ends; None
/// when no heading with an id (as written, without escapes: it is compared) opens there.
fn heading_at(body: &str, start: usize) -> Option<(Heading, String, usize)> {
    let bytes = body.as_bytes();
    let level = *bytes.get(start + 2)?;
    if !(b'1'..=b'6').contains(&level) || !matches!(bytes.get(start + 3)?, b' ' | b'>') {
        return None;
    }
    let tag_end = start + body[start..].find('>')?;
    let close = format!("</h{}>", level as char);
    let end = tag_end + body[tag_end..].find(&close)?;
    let tag = &body[start..tag_end];
    let id = tag[tag.find(" id=\"")? + 5..].split('"').next()?;
    if id.contains('&') {
        return None;
    }
    let heading = Heading {
        start,
        id: id.to_string(),
    };
    Some((
        heading,
        folded(&strip_tags(&body[tag_end + 1..end])),
        end + close.len(),
    ))
}

/// `xhtml` without its tags.
fn strip_tags(xhtml: &str) -> String {
    let mut out = String::with_capacity(xhtml.len());
    let mut rest = xhtml;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        rest = rest[open..]
            .find('>')
            .map_or("", |close| &rest[open + close + 1..]);
    }
    out.push_str(rest);
    out
}

/// `s` with its white space folded to single spaces, trimmed.
fn folded(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
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
