//! Notes too short for Kobo's pop-ups. Kobo's readers open a linked note in a pop-up only when
//! the note holds at least nine characters once its tags are stripped (Kobo's EPUB
//! guidelines, "Footnotes/Endnotes"); a shorter one ("1. Ibid.") makes the reader jump to it
//! instead. This finds them in a converted chapter body, Markdown footnotes and HTML notes
//! alike, and says where the author wrote them. No I/O.

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
