//! Notes that work everywhere, on a converted chapter body (Markdown footnotes and HTML notes
//! alike). An HTML note gets its number as the link back to its reference, first in the note
//! ([`number_notes`]), as the Markdown converter writes its own: Kindle's pop-ups want it, and
//! readers without pop-ups show the note in line with a way back. Notes too short for Kobo's
//! pop-ups are found ([`short_notes`]): Kobo's readers open a linked note in a pop-up only when
//! it holds at least nine characters once its tags are stripped (Kobo's EPUB guidelines,
//! "Footnotes/Endnotes"); a shorter one ("1. Ibid.") makes the reader jump to it instead. No
//! I/O.

use crate::diagnostic::{Code, Diagnostic};

/// Kobo opens a note in a pop-up from this many characters on.
pub(crate) const KOBO_POP_UP_CHARS: usize = 9;

/// Where Kobo documents the rule.
const SOURCE: &str =
    "Kobo's EPUB guidelines, Footnotes/Endnotes: https://github.com/kobolabs/epub-spec";

/// A note of a body shorter than Kobo's pop-ups need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShortNote {
    /// The note's id in the body.
    pub id: String,
    /// Its text as Kobo counts it: all of it, number and back links included.
    pub text: String,
    /// The author's part of it: without our number and back links.
    pub own: String,
}

/// The notes (`epub:type` `footnote` or `endnote`) of a well-formed body fragment whose text
/// is under [`KOBO_POP_UP_CHARS`] characters.
pub(crate) fn short_notes(body: &str) -> Vec<ShortNote> {
    if !body.contains("epub:type=\"footnote\"") && !body.contains("epub:type=\"endnote\"") {
        return Vec::new();
    }
    let xml =
        format!("<body xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"{EPUB}\">{body}</body>");
    let Ok(doc) = roxmltree::Document::parse(&xml) else {
        return Vec::new();
    };
    let is_note =
        |n: &roxmltree::Node| matches!(n.attribute((EPUB, "type")), Some("footnote" | "endnote"));
    doc.descendants()
        .filter(is_note)
        .filter_map(|note| {
            let text = words(note, &|_| true);
            if text.chars().count() >= KOBO_POP_UP_CHARS {
                return None;
            }
            let own = words(note, &|t| !t.ancestors().any(|a| is_ours(&a)));
            let own = own.trim_start_matches(['.', ' ']).to_string();
            Some(ShortNote {
                id: note.attribute("id").unwrap_or_default().to_string(),
                text,
                own,
            })
        })
        .collect()
}

const EPUB: &str = "http://www.idpf.org/2007/ops";

/// The body with every note (`epub:type` `footnote` or `endnote`, referenced by a `noteref`
/// link of the same document) opening with its reference's number as a link back to that
/// reference, which gets an id when it has none; None when no note needs it. A note that
/// already opens with a link is left as it is.
pub(crate) fn number_notes(body: &str) -> Option<String> {
    if !body.contains("epub:type=\"noteref\"") {
        return None;
    }
    let open =
        "<body xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">";
    let xml = format!("{open}{body}</body>");
    let doc = roxmltree::Document::parse(&xml).ok()?;
    let ids: std::collections::HashSet<&str> = doc
        .descendants()
        .filter_map(|n| n.attribute("id"))
        .collect();
    let mut edits: Vec<(usize, String)> = Vec::new();
    let mut numbered = std::collections::HashSet::new();
    let is_ref =
        |n: &roxmltree::Node| n.has_tag_name("a") && n.attribute((EPUB, "type")) == Some("noteref");
    for r in doc.descendants().filter(is_ref) {
        let Some(target) = r.attribute("href").and_then(|h| h.strip_prefix('#')) else {
            continue;
        };
        let note = doc.descendants().find(|n| {
            n.attribute("id") == Some(target)
                && matches!(n.attribute((EPUB, "type")), Some("footnote" | "endnote"))
        });
        let Some(note) = note.filter(|n| !opens_with_link(n)) else {
            continue;
        };
        let number = words(r, &|_| true);
        if number.is_empty() || !numbered.insert(target) {
            continue;
        }
        let ref_id = match r.attribute("id") {
            Some(id) => id.to_string(),
            None => {
                let id = free_id(&ids, &format!("{target}-ref"));
                edits.push((r.range().start + 2, format!(" id=\"{id}\"")));
                id
            }
        };
        let link = format!(
            "<a href=\"#{}\" role=\"doc-backlink\">{}</a> ",
            crate::xml::escape_attr(&ref_id),
            crate::xml::escape_text(&number)
        );
        edits.push((content_start(&xml, note), link));
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = xml;
    for (at, text) in edits {
        out.insert_str(at, &text);
    }
    let end = out.len() - "</body>".len();
    Some(out[open.len()..end].to_string())
}

/// True when the first thing in `note` with text is a link (a number linking back already).
fn opens_with_link(note: &roxmltree::Node) -> bool {
    let first = note
        .descendants()
        .find(|d| d.is_text() && !d.text().unwrap_or_default().trim().is_empty());
    first.is_some_and(|t| {
        t.ancestors()
            .take_while(|a| a != note)
            .any(|a| a.has_tag_name("a"))
    })
}

/// Where the number goes in `note` (of the wrapped body `xml`): inside its first paragraph
/// when it opens with one, else right after its start tag.
fn content_start(xml: &str, note: roxmltree::Node) -> usize {
    let first = note.first_element_child().filter(|c| {
        c.has_tag_name("p")
            && note
                .children()
                .take_while(|n| n != c)
                .all(|n| n.is_text() && n.text().unwrap_or_default().trim().is_empty())
    });
    let element = first.unwrap_or(note);
    let start = element.range().start;
    start + xml[start..].find('>').map_or(0, |i| i + 1)
}

/// `wanted`, or `wanted-2`, `wanted-3`… when an id of the body already has it.
fn free_id(ids: &std::collections::HashSet<&str>, wanted: &str) -> String {
    (1..)
        .map(|i| match i {
            1 => wanted.to_string(),
            _ => format!("{wanted}-{i}"),
        })
        .find(|id| !ids.contains(id.as_str()))
        .unwrap_or_default()
}

/// The number and back links the Markdown converter writes into a note.
fn is_ours(n: &roxmltree::Node) -> bool {
    n.attribute("role") == Some("doc-backlink") || n.attribute("class") == Some("footnote-label")
}

/// The text under `node` of the text nodes `keep` takes, white space collapsed (tags
/// stripped, as Kobo counts).
fn words(node: roxmltree::Node, keep: &dyn Fn(&roxmltree::Node) -> bool) -> String {
    let mut all = String::new();
    for t in node.descendants().filter(|d| d.is_text() && keep(d)) {
        all.push_str(t.text().unwrap_or_default());
    }
    all.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The warning for a short note of the chapter at `path`, at `line` of its source when known.
pub(crate) fn warning(note: &ShortNote, path: &std::path::Path, line: Option<usize>) -> Diagnostic {
    Diagnostic::warning(
        Code::ShortNote,
        format!(
            "the note \"{}\" has {} characters: Kobo shows a note in a pop-up from {KOBO_POP_UP_CHARS} \
             on, and jumps to a shorter one ({SOURCE})",
            note.text,
            note.text.chars().count()
        ),
    )
    .at(path)
    .line(line)
    .hint("say a little more in the note, or put it in the text")
}

/// The line of `source` where a short note was written: for a note of our Markdown
/// (`own` text) the first footnote definition (`[^label]:`) holding that text; for an HTML
/// note the line of its id as the source wrote it (`source_id`).
pub(crate) fn line_in(source: &str, note: &ShortNote, source_id: Option<&str>) -> Option<usize> {
    let found = match source_id {
        Some(id) => [format!("id=\"{id}\""), format!("id='{id}'")]
            .iter()
            .filter_map(|needle| source.find(needle.as_str()))
            .min(),
        None => {
            let mut at = 0;
            source.split_inclusive('\n').find_map(|line| {
                let start = at;
                at += line.len();
                let def = line.trim_start();
                (def.starts_with("[^") && def.contains("]:") && def.contains(note.own.as_str()))
                    .then_some(start)
            })
        }
    }?;
    Some(source[..found].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_html_note_opens_with_its_number_linking_back() {
        let body = "<p>A<a epub:type=\"noteref\" href=\"#n1\">[1]</a> B<a epub:type=\"noteref\" \
                    id=\"r2\" href=\"#n2\">2</a> C<a epub:type=\"noteref\" href=\"#n3\">3</a></p>\
                    <aside epub:type=\"footnote\" id=\"n1\">\n<p>First note.</p></aside>\
                    <ol><li epub:type=\"endnote\" id=\"n2\">Second.</li>\
                    <li epub:type=\"endnote\" id=\"n3\"><a href=\"#x\">3</a> Third.</li></ol>";
        let out = number_notes(body).unwrap();
        assert!(
            out.contains("<a id=\"n1-ref\" epub:type=\"noteref\" href=\"#n1\">[1]</a>"),
            "{out}"
        );
        assert!(
            out.contains("<p><a href=\"#n1-ref\" role=\"doc-backlink\">[1]</a> First note.</p>"),
            "{out}"
        );
        assert!(
            out.contains("id=\"n2\"><a href=\"#r2\" role=\"doc-backlink\">2</a> Second."),
            "{out}"
        );
        // Already opening with a link: left alone.
        assert!(
            out.contains("id=\"n3\"><a href=\"#x\">3</a> Third."),
            "{out}"
        );
        assert_eq!(number_notes(&out), None);
        assert_eq!(number_notes("<p>no notes</p>"), None);
    }

    #[test]
    fn a_note_under_nine_characters_is_short_the_whole_note_counting() {
        let body = "<p>x</p><aside epub:type=\"footnote\" id=\"fn-1\"><p><a class=\"footnote-label\" \
                    href=\"#r\" role=\"doc-backlink\">1</a>. Ibid.</p></aside>\
                    <aside epub:type=\"footnote\" id=\"fn-2\"><p><a class=\"footnote-label\" \
                    href=\"#r\" role=\"doc-backlink\">2</a>. Op. cit.</p></aside>\
                    <ol><li epub:type=\"endnote\" id=\"e\">Yes.</li></ol>";
        let short = short_notes(body);
        assert_eq!(short.len(), 2, "{short:?}");
        assert_eq!(short[0].text, "1. Ibid.");
        assert_eq!(short[0].own, "Ibid.");
        assert_eq!(short[1].id, "e");
        assert!(short_notes("<p>no notes</p>").is_empty());
    }

    #[test]
    fn short_notes_are_found_where_they_were_written() {
        let md = "Text.[^a]\n\n[^a]: Ibid.\n";
        let note = ShortNote {
            id: "fn-1".into(),
            text: "1. Ibid.".into(),
            own: "Ibid.".into(),
        };
        assert_eq!(line_in(md, &note, None), Some(3));
        let html = "<p>x</p>\n\n<aside id='n1' epub:type=\"footnote\">Yes.</aside>";
        assert_eq!(line_in(html, &note, Some("n1")), Some(3));
        assert_eq!(line_in(html, &note, Some("n2")), None);
    }
}
