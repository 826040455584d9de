//! Notes that work everywhere (Markdown footnotes and HTML notes alike), finished for the whole
//! book once every chapter is converted ([`finish`]). A note gets its number as the link back
//! to its reference, first in the note ([`number`]), as the Markdown converter writes its own:
//! Kindle's pop-ups want it, and readers without pop-ups show the note in line with a way back.
//! This is a book-level pass, after the link map has pointed links between chapter files at
//! chapter documents, because a note's reference may be in another document: another piece of
//! a file cut at its headings, or another chapter file (a separate `notes.html`, as calibre and
//! pandoc books often have). Notes too short for Kobo's pop-ups are found ([`short_notes`]):
//! Kobo's readers open a linked note in a pop-up only when it holds at least nine characters
//! once its tags are stripped (Kobo's EPUB guidelines, "Footnotes/Endnotes"); a shorter one
//! ("1. Ibid.") makes the reader jump to it instead. The conversion of a chapter keeps the
//! lines of its short notes (it has the source), the book-level pass counts them numbered.
//! No I/O.

use std::sync::LazyLock;

use memchr::memmem::Finder;

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
    // Every chapter body is searched: memchr's searchers, made once, not `str::contains`.
    static FOOTNOTE: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new("epub:type=\"footnote\""));
    static ENDNOTE: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new("epub:type=\"endnote\""));
    let has = |f: &Finder<'_>| f.find(body.as_bytes()).is_some();
    if !has(&FOOTNOTE) && !has(&ENDNOTE) {
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

/// A source's notes that were under [`KOBO_POP_UP_CHARS`] characters before the book's notes
/// were numbered: each note's id in its chapter's body, and the line of the source where it was
/// written. Numbering only lengthens a note, so no other note can be short once numbered.
pub(crate) type ShortCandidates = Vec<(String, Option<usize>)>;

/// The notes of one source of the book, for [`finish`].
pub(crate) struct NoteSource<'a> {
    /// The chapter file.
    pub path: &'a std::path::Path,
    /// How many chapters (in reading order, after the previous source's) it made.
    pub chapters: usize,
    /// Its notes that may be too short.
    pub short: &'a ShortCandidates,
}

/// The book's notes finished, once every chapter is converted and the links between chapter
/// files point at chapter documents: each note opens with its reference's number as a link
/// back ([`number`]), wherever the reference is (the same file, another piece of a file cut
/// at its headings, another chapter file such as a `notes.html`), and the notes still too
/// short for Kobo's pop-ups are warned about, each as the `(source index, warning)` of the
/// source that wrote it. A chapter whose body changed is measured again under `layout`.
pub(crate) fn finish(
    contents: &mut [crate::book::Node],
    layout: &crate::project::Layout,
    sources: &[NoteSource<'_>],
) -> Vec<(usize, Diagnostic)> {
    let mut chapters = crate::book::chapters_mut(contents);
    let bodies: Vec<&str> = chapters.iter().map(|c| c.body.as_str()).collect();
    let as_written: Vec<bool> = chapters.iter().map(|c| !c.heading).collect();
    let numbered = number(&bodies, &as_written);
    for (chapter, body) in chapters.iter_mut().zip(numbered) {
        if let Some(body) = body {
            chapter.body = body;
            chapter.reflow(layout);
        }
    }
    let mut warnings = Vec::new();
    let mut first = 0;
    for (i, source) in sources.iter().enumerate() {
        let end = first + source.chapters;
        if !source.short.is_empty() {
            for chapter in chapters.get(first..end).unwrap_or_default() {
                for note in short_notes(&chapter.body) {
                    let site = source.short.iter().find(|(id, _)| *id == note.id);
                    if let Some((_, line)) = site {
                        warnings.push((i, warning(&note, source.path, *line)));
                    }
                }
            }
        }
        first = end;
    }
    warnings
}

/// The book's chapter bodies (in reading order: body `i` is `chapter_file_name(i + 1)`) with
/// every note (`epub:type` `footnote` or `endnote`, referenced by a `noteref` link to `#id` in
/// its own body or to `chapter-NNNN.xhtml#id` in another) opening with its first reference's
/// number as a link back to that reference, which gets an id when it has none; None for a
/// body that needs no change. A note that already opens with a link, or links back anywhere
/// (pandoc's `↩︎` at its end), is left as it is: its number would be text its source lacks.
/// A note of a body shown `as_written` (a page of an EPUB, `heading = false`: the book as
/// another tool made it) gains no number, which would be a letter its book did not have: it
/// ends with a back arrow `↩` linking to its reference instead, as pandoc's notes do.
pub(crate) fn number(bodies: &[&str], as_written: &[bool]) -> Vec<Option<String>> {
    use rayon::prelude::*;
    let scans: Vec<Option<Scan>> = bodies.par_iter().map(|b| scan(b)).collect();
    let mut edits: Vec<Vec<(usize, String)>> = vec![Vec::new(); bodies.len()];
    let mut made: Vec<std::collections::HashSet<String>> = vec![Default::default(); bodies.len()];
    let mut numbered = std::collections::HashSet::new();
    for (k, scan) in scans.iter().enumerate() {
        for r in scan.iter().flat_map(|s| &s.refs) {
            let t = r.chapter.unwrap_or(k);
            let note = scans.get(t).and_then(|s| s.as_ref()?.notes.get(&r.target));
            let Some(&(start, end)) = note else {
                continue;
            };
            if !numbered.insert((t, r.target.as_str())) {
                continue;
            }
            let ref_id = match &r.id {
                Some(id) => id.clone(),
                None => {
                    let taken = |id: &str| {
                        made[k].contains(id) || scan.as_ref().is_some_and(|s| s.ids.contains(id))
                    };
                    let id = free_id(&taken, &format!("{}-ref", r.target));
                    made[k].insert(id.clone());
                    edits[k].push((r.at, format!(" id=\"{}\"", crate::xml::escape_attr(&id))));
                    id
                }
            };
            let file = match t == k {
                true => String::new(),
                false => crate::book::chapter_file_name(k + 1),
            };
            let href = format!("{file}#{}", crate::xml::escape_attr(&ref_id));
            let edit = match as_written.get(t).copied().unwrap_or(false) {
                true => (
                    end,
                    format!(" <a href=\"{href}\" role=\"doc-backlink\">\u{21A9}</a>"),
                ),
                false => (
                    start,
                    format!(
                        "<a href=\"{href}\" role=\"doc-backlink\">{}</a> ",
                        crate::xml::escape_text(&r.number)
                    ),
                ),
            };
            edits[t].push(edit);
        }
    }
    bodies
        .iter()
        .zip(edits)
        .map(|(body, mut edits)| {
            if edits.is_empty() {
                return None;
            }
            edits.sort_by_key(|e| std::cmp::Reverse(e.0));
            let mut out = body.to_string();
            for (at, text) in edits {
                out.insert_str(at, &text);
            }
            Some(out)
        })
        .collect()
}

/// What numbering the notes needs from one body.
struct Scan {
    /// Every id of the body.
    ids: std::collections::HashSet<String>,
    /// Its note references, in order.
    refs: Vec<NoteRef>,
    /// Its notes that do not open with a link yet -> where their number goes in the body, and
    /// where a back arrow goes at their end.
    notes: std::collections::HashMap<String, (usize, usize)>,
}

/// A `noteref` link of a body.
struct NoteRef {
    /// Where an id goes in the body (right after `<a`).
    at: usize,
    /// Its id, when it has one.
    id: Option<String>,
    /// The book's chapter (0-based) holding its note; None for its own body.
    chapter: Option<usize>,
    /// The note's id.
    target: String,
    /// Its text: the note's number.
    number: String,
}

const OPEN: &str =
    "<body xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">";

/// One body's references and unnumbered notes; None when it has neither, or is not
/// well-formed.
fn scan(body: &str) -> Option<Scan> {
    let has_notes =
        body.contains("epub:type=\"footnote\"") || body.contains("epub:type=\"endnote\"");
    if !has_notes && !body.contains("epub:type=\"noteref\"") {
        return None;
    }
    let xml = format!("{OPEN}{body}</body>");
    let doc = roxmltree::Document::parse(&xml).ok()?;
    let is_note =
        |n: &roxmltree::Node| matches!(n.attribute((EPUB, "type")), Some("footnote" | "endnote"));
    let is_ref =
        |n: &roxmltree::Node| n.has_tag_name("a") && n.attribute((EPUB, "type")) == Some("noteref");
    let mut out = Scan {
        ids: doc
            .descendants()
            .filter_map(|n| Some(n.attribute("id")?.to_string()))
            .collect(),
        refs: Vec::new(),
        notes: Default::default(),
    };
    for n in doc.descendants() {
        if is_note(&n) && !opens_with_link(&n) && !links_back(&n) {
            if let Some(id) = n.attribute("id") {
                let at = content_start(&xml, n) - OPEN.len();
                let end = content_end(&xml, n) - OPEN.len();
                out.notes.entry(id.to_string()).or_insert((at, end));
            }
        } else if is_ref(&n) {
            let Some((file, target)) = n.attribute("href").and_then(|h| h.split_once('#')) else {
                continue;
            };
            let chapter = match file {
                "" => None,
                f => match crate::book::chapter_number(f).and_then(|c| c.checked_sub(1)) {
                    Some(c) => Some(c),
                    None => continue,
                },
            };
            let number = words(n, &|_| true);
            if target.is_empty() || number.is_empty() {
                continue;
            }
            out.refs.push(NoteRef {
                at: n.range().start + 2 - OPEN.len(),
                id: n.attribute("id").map(str::to_string),
                chapter,
                target: target.to_string(),
                number,
            });
        }
    }
    Some(out)
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

/// Where a back arrow goes in `note` (of the wrapped body `xml`): at the end of its last
/// paragraph when it ends with one, else right before its end tag (after its start tag when
/// it is written empty).
fn content_end(xml: &str, note: roxmltree::Node) -> usize {
    let last = note.last_element_child().filter(|c| {
        c.has_tag_name("p")
            && c.next_siblings()
                .skip(1)
                .all(|n| n.is_text() && n.text().unwrap_or_default().trim().is_empty())
    });
    let element = last.unwrap_or(note);
    let range = element.range();
    let close = format!("</{}>", element.tag_name().name());
    match xml[..range.end].ends_with(&close) {
        true => range.end - close.len(),
        false => content_start(xml, element),
    }
}

/// `wanted`, or `wanted-2`, `wanted-3`… when an id is `taken` already.
fn free_id(taken: &dyn Fn(&str) -> bool, wanted: &str) -> String {
    (1..)
        .map(|i| match i {
            1 => wanted.to_string(),
            _ => format!("{wanted}-{i}"),
        })
        .find(|id| !taken(id))
        .unwrap_or_default()
}

/// Whether a note holds a link back to its reference (`role="doc-backlink"`) of its own.
fn links_back(note: &roxmltree::Node) -> bool {
    note.descendants()
        .any(|n| n.has_tag_name("a") && n.attribute("role") == Some("doc-backlink"))
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
        let out = number(&[body], &[false]).remove(0).unwrap();
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
        assert_eq!(number(&[&out], &[false]), [None]);
        assert_eq!(number(&["<p>no notes</p>"], &[false]), [None]);
    }

    #[test]
    fn a_note_in_another_chapter_links_back_to_its_reference_there() {
        let bodies = [
            "<p>A<a epub:type=\"noteref\" href=\"chapter-0003.xhtml#n1\">1</a>\
             B<a epub:type=\"noteref\" href=\"chapter-0003.xhtml#n1\">1</a></p>",
            "<p>C<a epub:type=\"noteref\" href=\"chapter-0003.xhtml#n2\">2</a>\
             <a epub:type=\"noteref\" href=\"chapter-0009.xhtml#n2\">9</a></p>",
            "<p id=\"n1-ref\">x</p><ol><li epub:type=\"endnote\" id=\"n1\">One.</li>\
             <li epub:type=\"endnote\" id=\"n2\"><p>Two.</p></li></ol>",
        ];
        let out = number(&bodies, &[false; 3]);
        let [Some(a), Some(b), Some(notes)] = &out[..] else {
            panic!("{out:?}");
        };
        // The first reference gets the id, the second none.
        assert_eq!(
            a,
            "<p>A<a id=\"n1-ref\" epub:type=\"noteref\" href=\"chapter-0003.xhtml#n1\">1</a>\
             B<a epub:type=\"noteref\" href=\"chapter-0003.xhtml#n1\">1</a></p>"
        );
        assert!(b.contains("<a id=\"n2-ref\" epub:type"), "{b}");
        assert!(
            notes.contains(
                "id=\"n1\"><a href=\"chapter-0001.xhtml#n1-ref\" role=\"doc-backlink\">1</a> One."
            ),
            "{notes}"
        );
        assert!(
            notes.contains(
                "<p><a href=\"chapter-0002.xhtml#n2-ref\" role=\"doc-backlink\">2</a> Two.</p>"
            ),
            "{notes}"
        );
    }

    #[test]
    fn a_note_of_a_page_as_written_gains_a_back_arrow_and_no_number() {
        // IDPF moby-dick-mo's preface: the note has no number; a number would be a new letter.
        let body = "<p>currency.<a epub:type=\"noteref\" href=\"#n1\">1</a></p>\n\
                    <aside epub:type=\"footnote\" id=\"n1\">\n<p>These have been corrected.</p>\n\
                    </aside><ol><li epub:type=\"endnote\" id=\"n2\">Bare.</li></ol>\
                    <p><a epub:type=\"noteref\" href=\"#n2\">2</a></p>";
        let out = number(&[body], &[true]).remove(0).unwrap();
        assert!(
            out.contains(
                "<p>These have been corrected. <a href=\"#n1-ref\" role=\"doc-backlink\">\u{21A9}</a></p>\n</aside>"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "id=\"n2\">Bare. <a href=\"#n2-ref\" role=\"doc-backlink\">\u{21A9}</a></li>"
            ),
            "{out}"
        );
        let digits = |s: &str| s.chars().filter(char::is_ascii_digit).count();
        let tags_out = |s: &str| {
            s.split('<')
                .map(|t| t.split_once('>').map_or(t, |x| x.1))
                .collect::<String>()
        };
        assert_eq!(digits(&tags_out(&out)), digits(&tags_out(body)));
        // Linking back now: a second pass leaves it.
        assert_eq!(number(&[&out], &[true]), [None]);
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
