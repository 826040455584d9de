//! Project Gutenberg's conventions in plain text: the header and licence around the book, and
//! `[Illustration: …]` blocks.
//!
//! Part of the convert stage, run on a text chapter's decoded text before it is split at its
//! headings and made into paragraphs. Every Gutenberg text opens with a header (title, author,
//! release date, `*** START OF THE PROJECT GUTENBERG EBOOK … ***`) and ends with
//! `*** END OF … ***` and the licence, some 350 lines. They are not the book: [`detach`] takes
//! them out (as blank lines, so line numbers in messages stay the file's) for a page of their
//! own at the end, where the licence is still "included with this eBook" as it asks, instead
//! of a "Foreword" and a tail glued to the last chapter. HTML editions are read the same way,
//! block by block ([`detach_html`]); an HTML file cut at its headings is searched whole
//! ([`detach_pieces`]), because a header holding a heading, or a licence with headings of its
//! own, runs over several pieces.
//!
//! Illustrated editions mark each picture of the printed book with `[Illustration]` or an
//! `[Illustration: caption]` block that may run over several lines and blank lines and nest
//! brackets (`[_Copyright 1894 by George Allen._]]`). [`illustrations`] puts each block on one
//! line, which the paragraph stage keeps as a paragraph of its own (class `illustration`); a
//! chapter heading that ends a caption (the 1894 edition's `[Illustration: ·PRIDE AND
//! PREJUDICE· … Chapter I.]`, a picture of the heading) is moved out in front of it, so it is
//! found as the heading it is and no bracket sticks to it. Bare `[Illustration]` markers are
//! kept too: they are the transcriber's record that the printed page had a picture there, and
//! nothing in a text vanishes on the way.

use std::borrow::Cow;
use std::collections::HashMap;

use super::markup::SplitPiece;

/// A text with its Gutenberg header and licence taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detached {
    /// The text with the header and licence lines left blank: as many lines as before.
    pub text: String,
    /// The header, then the licence, for their own page.
    pub boilerplate: String,
    /// Whether the licence (the END marker and after) was found.
    pub licence: bool,
    /// Where the licence starts in `boilerplate` (its length when there is none).
    pub licence_at: usize,
}

/// Normalised marker text of a line such as `*** START OF THE PROJECT GUTENBERG EBOOK X ***`:
/// `START` or `END` when it is one.
fn marker(line: &str) -> Option<&'static str> {
    let core = line.trim().trim_start_matches(['*', ' ']);
    let upper = core.get(..40.min(core.len()))?.to_ascii_uppercase();
    for (word, kind) in [("START OF", "START"), ("END OF", "END")] {
        for this in ["THE", "THIS"] {
            if upper.starts_with(&format!("{word} {this} PROJECT GUTENBERG")) {
                return Some(kind);
            }
        }
    }
    None
}

/// A line PG puts just before the END marker: `End of the Project Gutenberg EBook of …`,
/// `End of Project Gutenberg's …`.
fn end_note(line: &str) -> bool {
    let lower = line.trim().to_ascii_lowercase();
    lower.starts_with("end of the project gutenberg")
        || lower.starts_with("end of project gutenberg")
}

/// A credit paragraph PG puts right after the START marker.
fn credit(line: &str) -> bool {
    let lower = line.trim().to_ascii_lowercase();
    [
        "produced by",
        "e-text prepared by",
        "etext prepared by",
        "transcribed by",
        "transcribed from",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// Takes the Gutenberg header (up to the START marker and the credit paragraph after it) and
/// licence (from the END marker, or the `End of the Project Gutenberg …` line before it) out of
/// `text`. None when the text has neither marker.
pub fn detach(text: &str) -> Option<Detached> {
    let lines: Vec<&str> = text.split('\n').collect();
    let start = lines.iter().position(|l| marker(l) == Some("START"));
    let end_marker = lines.iter().rposition(|l| marker(l) == Some("END"));
    if start.is_none() && end_marker.is_none() {
        return None;
    }
    let header_end = start.map_or(0, |s| after_credit(&lines, s + 1));
    let footer = end_marker.map(|m| {
        let from = m.saturating_sub(10).max(header_end);
        (from..m).find(|&i| end_note(lines[i])).unwrap_or(m)
    });
    let footer_start = footer.unwrap_or(lines.len()).max(header_end);
    let mut kept = String::with_capacity(text.len());
    let mut boilerplate = String::new();
    let mut licence_at = None;
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            kept.push('\n');
        }
        if i < header_end || i >= footer_start {
            if i == footer_start && !boilerplate.is_empty() {
                boilerplate.push('\n');
            }
            if i == footer_start {
                licence_at = Some(boilerplate.len());
            }
            boilerplate.push_str(line);
            boilerplate.push('\n');
        } else {
            kept.push_str(line);
        }
    }
    Some(Detached {
        text: kept,
        licence_at: licence_at.unwrap_or(boilerplate.len()),
        boilerplate,
        licence: footer.is_some(),
    })
}

/// The Gutenberg header and licence of an HTML chapter, from its converted XHTML body: the
/// top-level blocks up to the one holding the START marker, and from the one holding the END
/// marker (or the `End of the Project Gutenberg …` note before it) on. When one block holds
/// both (a wrapper `<div>`), its children are looked at instead, and the main text keeps the
/// wrapper. None when the body has no marker.
pub fn detach_html(body: &str) -> Option<Detached> {
    // Most bodies are chapters: no parse for those.
    if !may_name_gutenberg(body) {
        return None;
    }
    let wrapped = format!("{OPEN}{body}{CLOSE}");
    let doc = roxmltree::Document::parse_with_options(&wrapped, parse_options()).ok()?;
    let mut parent = doc.root_element();
    // Up to a few wrappers deep, while one child holds everything.
    for _ in 0..8 {
        let children: Vec<roxmltree::Node<'_, '_>> = parent.children().collect();
        let start = children
            .iter()
            .position(|c| holds(c, |l| marker(l) == Some("START")));
        let end = children
            .iter()
            .rposition(|c| holds(c, |l| marker(l) == Some("END")));
        match (start, end) {
            (None, None) => return None,
            (Some(s), Some(e)) if s == e => match children[s].is_element() {
                true => parent = children[s],
                false => return None,
            },
            (start, end) => return Some(cut(&wrapped, &children, start, end)),
        }
    }
    None
}

/// The Project Gutenberg header and licence of an HTML file cut into pieces at its headings,
/// found in the whole file, whatever the level it was cut at: the pieces before the one
/// holding the START marker are header, and so is the heading of that one (the marker comes
/// after it); the pieces after the one holding the END marker are licence. They leave
/// `pieces` (so do the START piece when nothing but the header was in it, and a credit
/// heading with nothing under it right after), and `homes` (which piece holds each id)
/// follows: an id that left is on the page of the header and licence, which comes right
/// after the pieces. Returns that page's body and whether the licence was found; None when
/// no piece holds a marker.
pub fn detach_pieces(
    pieces: &mut Vec<SplitPiece>,
    homes: &mut HashMap<String, usize>,
) -> Option<(String, bool)> {
    let marks: Vec<(bool, bool)> = pieces.iter().map(|p| markers_in(&p.body)).collect();
    let start = marks.iter().position(|m| m.0);
    let end = marks
        .iter()
        .rposition(|m| m.1)
        .filter(|&e| start.is_none_or(|s| e >= s));
    if start.is_none() && end.is_none() {
        return None;
    }
    let (first, last) = (start.unwrap_or(0), end.unwrap_or(pieces.len() - 1));
    // A credit under a heading of its own right after the START piece (`<h3>E-text prepared
    // by …</h3>` over empty paragraphs) is header too, as the credit paragraph is.
    let credit_piece = start.map(|s| s + 1).filter(|&c| {
        Some(c) != end
            && pieces
                .get(c)
                .is_some_and(|p| p.title.as_deref().is_some_and(credit) && !has_text(&p.body))
    });
    let (mut header, mut licence_text, mut licence) = (String::new(), String::new(), false);
    let mut kept = vec![true; pieces.len()];
    for (i, piece) in pieces.iter_mut().enumerate() {
        let whole = (start.is_some() && i < first)
            || (end.is_some() && i > last)
            || Some(i) == credit_piece;
        let marked = Some(i) == start || Some(i) == end;
        if !whole && !marked {
            continue;
        }
        let out = if end.is_some_and(|e| i > e) {
            &mut licence_text
        } else {
            &mut header
        };
        if whole {
            out.push_str(&heading_of(piece));
            out.push_str(&piece.body);
            kept[i] = false;
            continue;
        }
        let Some(d) = detach_html(&piece.body) else {
            continue;
        };
        if Some(i) == start {
            // Its heading came before the marker: header too.
            header.push_str(&heading_of(piece));
            piece.title = None;
            piece.level = None;
        }
        let (head, tail) = d.boilerplate.split_at(d.licence_at);
        header.push_str(head);
        licence_text.insert_str(0, tail);
        licence |= d.licence;
        piece.body = d.text;
        // A heading with nothing under it (`THE END` over the licence) stays.
        if piece.title.is_none() && !has_text(&piece.body) {
            header.push_str(&piece.body);
            kept[i] = false;
        }
    }
    licence |= end.is_some_and(|e| e + 1 < pieces.len());
    renumber(pieces, homes, &kept);
    Some((format!("{header}\n{licence_text}"), licence))
}

/// Drops the pieces not `kept`, and moves each id's home with its piece; an id of a piece
/// dropped goes to the page after the pieces.
fn renumber(pieces: &mut Vec<SplitPiece>, homes: &mut HashMap<String, usize>, kept: &[bool]) {
    let mut new_index = Vec::with_capacity(kept.len());
    let mut n = 0;
    for &k in kept {
        new_index.push(k.then_some(n));
        n += usize::from(k);
    }
    for home in homes.values_mut() {
        *home = new_index.get(*home).copied().flatten().unwrap_or(n);
    }
    let mut keep = kept.iter();
    pieces.retain(|_| keep.next().copied().unwrap_or(true));
}

/// A piece's heading as it stands on the page of the header and licence.
fn heading_of(piece: &SplitPiece) -> String {
    match &piece.title {
        Some(t) => format!("<h2>{}</h2>\n", crate::xml::escape_text(t)),
        None => String::new(),
    }
}

/// Whether an XHTML body may hold a marker: it names Gutenberg (in any ASCII case), or holds
/// a character reference, which could spell a letter of it. A body that does neither holds
/// no marker, so it need not be parsed to look for one.
fn may_name_gutenberg(body: &str) -> bool {
    const NAME: &[u8] = b"gutenberg";
    let bytes = body.as_bytes();
    memchr::memmem::find(bytes, b"&#").is_some()
        || memchr::memchr2_iter(b'g', b'G', bytes).any(|at| {
            bytes
                .get(at..at + NAME.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(NAME))
        })
}

/// Whether an XHTML body holds the START and the END marker.
fn markers_in(body: &str) -> (bool, bool) {
    // Most pieces are chapters: no parse for those.
    if !may_name_gutenberg(body) {
        return (false, false);
    }
    let wrapped = format!("{OPEN}{body}{CLOSE}");
    let Ok(doc) = roxmltree::Document::parse_with_options(&wrapped, parse_options()) else {
        return (false, false);
    };
    let root = doc.root_element();
    (
        holds(&root, |l| marker(l) == Some("START")),
        holds(&root, |l| marker(l) == Some("END")),
    )
}

/// Whether an XHTML body has any text or picture in it.
fn has_text(body: &str) -> bool {
    let wrapped = format!("{OPEN}{body}{CLOSE}");
    let Ok(doc) = roxmltree::Document::parse_with_options(&wrapped, parse_options()) else {
        return true;
    };
    shows_anything(&doc.root())
}

/// Whether a node holds text or a picture (not only white space and empty elements).
fn shows_anything(node: &roxmltree::Node<'_, '_>) -> bool {
    node.descendants().any(|n| {
        (n.is_text() && n.text().is_some_and(|t| !t.trim().is_empty()))
            || matches!(
                n.tag_name().name(),
                "img" | "svg" | "math" | "video" | "audio"
            )
    })
}

/// Whether a node's text opens with a credit ([`credit`]).
fn opens_with_credit(node: &roxmltree::Node<'_, '_>) -> bool {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .find(|t| !t.trim().is_empty())
        .is_some_and(|t| credit(t.trim_start()))
}

/// How XHTML bodies are parsed here: no DTD, no cap on their size.
fn parse_options<'a>() -> roxmltree::ParsingOptions<'a> {
    roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: u32::MAX,
        ..Default::default()
    }
}

/// The wrapper [`detach_html`] parses a body in: the namespaces the packager declares.
const OPEN: &str =
    "<div xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">";
const CLOSE: &str = "</div>";

/// Whether any line of the text in a node passes `test` (each text node on its own: the text
/// of `<p>` elements side by side is not one line).
fn holds(node: &roxmltree::Node<'_, '_>, test: impl Fn(&str) -> bool) -> bool {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .any(|t| t.lines().any(&test))
}

/// `wrapped` with `children[..=start]` and `children[end..]` (an END note just before `end`
/// included) taken out into the boilerplate.
fn cut(
    wrapped: &str,
    children: &[roxmltree::Node<'_, '_>],
    start: Option<usize>,
    end: Option<usize>,
) -> Detached {
    // After the START marker: empty blocks (an anchor), then a credit paragraph, as in text.
    let blank = |i: usize| !shows_anything(&children[i]);
    let skip_blank = |mut i: usize| {
        while i < children.len() && blank(i) {
            i += 1;
        }
        i
    };
    let mut first_kept = start.map_or(0, |s| skip_blank(s + 1));
    if start.is_some() && first_kept < children.len() && opens_with_credit(&children[first_kept]) {
        first_kept = skip_blank(first_kept + 1);
    }
    let mut end = end.unwrap_or(children.len()).max(first_kept);
    if let Some(note) = (first_kept..end)
        .rev()
        .take(6)
        .find(|&i| holds(&children[i], end_note))
    {
        end = note;
    }
    let span = |from: usize, to: usize| -> &str {
        match (
            children.get(from),
            to.checked_sub(1).and_then(|t| children.get(t)),
        ) {
            (Some(a), Some(b)) if from < to => &wrapped[a.range().start..b.range().end],
            _ => "",
        }
    };
    let (kept_start, kept_end) = match (
        children.get(first_kept),
        end.checked_sub(1).and_then(|e| children.get(e)),
    ) {
        (Some(a), Some(b)) if first_kept < end => (a.range().start, b.range().end),
        _ => (0, 0),
    };
    // The text kept is everything but the cut children, wrappers and all.
    let (outer_start, outer_end) = (
        children.first().map_or(0, |c| c.range().start),
        children.last().map_or(0, |c| c.range().end),
    );
    let text = format!(
        "{}{}{}",
        &wrapped[OPEN.len()..outer_start],
        &wrapped[kept_start..kept_end],
        &wrapped[outer_end..wrapped.len() - CLOSE.len()]
    );
    let header = span(0, first_kept);
    let boilerplate = format!("{header}\n{}", span(end, children.len()));
    Detached {
        text,
        boilerplate,
        licence: end < children.len(),
        licence_at: header.len() + 1,
    }
}

/// `Pride and Prejudice` from `The Project Gutenberg eBook of Pride and Prejudice, by Jane
/// Austen` (the `<title>` of PG's HTML); None for any other title.
pub fn book_title(title: &str) -> Option<String> {
    const PREFIXES: [&str; 2] = ["the project gutenberg ebook of ", "project gutenberg's "];
    let lower = title.to_lowercase();
    let prefix = PREFIXES.iter().find(|p| lower.starts_with(*p))?;
    let rest = title.get(prefix.len()..)?;
    let rest = rest.rsplit_once(", by ").map_or(rest, |(t, _)| t);
    let rest = rest.trim().trim_end_matches('.').trim_end();
    (!rest.is_empty()).then(|| rest.to_string())
}

/// `Jane Austen` from `The Project Gutenberg eBook of Pride and Prejudice, by Jane Austen`
/// (the `<title>` of PG's HTML, also in copies without the header); None for any other title.
pub fn book_author(title: &str) -> Option<String> {
    book_title(title)?;
    let (_, author) = title.rsplit_once(", by ")?;
    let author = author.trim().trim_end_matches('.').trim_end();
    (!author.is_empty()).then(|| author.to_string())
}

/// The book's title and author as a Gutenberg header gives them (`Title: …`, `Author: …`).
pub fn about(boilerplate: &str) -> (Option<String>, Option<String>) {
    let field = |name: &str| {
        boilerplate.lines().find_map(|l| {
            let value = l.trim().strip_prefix(name)?.trim();
            (!value.is_empty()).then(|| value.to_string())
        })
    };
    (field("Title:"), field("Author:"))
}

/// [`about`] for a Project Gutenberg HTML file, from the text of its first 64 KB (the header's
/// `Title: …` and `Author: …`, in a `<pre>` or as `<p><strong>Title</strong>: …</p>`).
pub fn about_html(html: &str) -> (Option<String>, Option<String>) {
    let end = (0..=html.len().min(64 * 1024))
        .rev()
        .find(|&i| html.is_char_boundary(i))
        .unwrap_or(0);
    let head = &html[..end];
    if !head.contains("Project Gutenberg") {
        return (None, None);
    }
    // The text, each block element on lines of its own.
    let mut text = String::with_capacity(head.len());
    let mut tag: Option<String> = None;
    for c in head.chars() {
        match (&mut tag, c) {
            (None, '<') => tag = Some(String::new()),
            (Some(t), '>') => {
                let name = t.trim_start_matches('/').split([' ', '/', '\n']).next();
                let name = name.unwrap_or_default().to_ascii_lowercase();
                if matches!(
                    name.as_str(),
                    "p" | "div" | "br" | "pre" | "li" | "tr" | "h1" | "h2"
                ) {
                    text.push('\n');
                }
                tag = None;
            }
            (Some(t), c) => t.push(c),
            (None, c) => text.push(c),
        }
    }
    let decode = |v: String| {
        v.replace("&nbsp;", " ")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    };
    let (title, author) = about(&text);
    (title.map(decode), author.map(decode))
}

/// The line after the header: past `from`'s blank lines and a credit paragraph if one opens
/// there, else `from` itself.
fn after_credit(lines: &[&str], from: usize) -> usize {
    let Some(first) = (from..lines.len()).find(|&i| !lines[i].trim().is_empty()) else {
        return from;
    };
    if !credit(lines[first]) {
        return from;
    }
    (first..lines.len())
        .find(|&i| lines[i].trim().is_empty())
        .unwrap_or(lines.len())
}

/// The most lines an `[Illustration: …]` block may take; an opening bracket never closed
/// within them is left as text.
const MAX_BLOCK_LINES: usize = 40;

/// Whether a (trimmed) line is an illustration put on one line by [`illustrations`].
pub fn is_illustration(line: &str) -> bool {
    line.starts_with("[Illustration") && line.ends_with(']')
}

/// Puts every `[Illustration …]` block on the line it starts on (the others left blank), and a
/// chapter heading ending its caption in front of it. The text is returned as it was when it
/// has no block spanning lines or holding a heading.
pub fn illustrations(text: &str) -> Cow<'_, str> {
    if !text.contains("[Illustration") {
        return Cow::Borrowed(text);
    }
    let mut lines: Vec<Cow<'_, str>> = text.split('\n').map(Cow::Borrowed).collect();
    let mut changed = false;
    let mut i = 0;
    while i < lines.len() {
        let Some(end) = block_end(&lines, i) else {
            i += 1;
            continue;
        };
        let (heading, caption) = caption_and_heading(&lines[i..=end]);
        if end > i || heading.is_some() {
            changed = true;
            for line in &mut lines[i..=end] {
                *line = Cow::Borrowed("");
            }
            match heading {
                // The heading where the block starts, the picture after it.
                Some(h) if end > i => {
                    lines[i] = Cow::Owned(h);
                    lines[end] = Cow::Owned(caption);
                }
                Some(h) if lines.get(i + 1).is_some_and(|l| l.trim().is_empty()) => {
                    lines[i] = Cow::Owned(h);
                    lines[i + 1] = Cow::Owned(caption);
                }
                Some(h) => lines[i] = Cow::Owned(format!("{h}\n{caption}")),
                None => lines[i] = Cow::Owned(caption),
            }
        }
        i = end + 1;
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    Cow::Owned(lines.join("\n"))
}

/// The line on which the illustration block opening at line `i` closes.
fn block_end(lines: &[Cow<'_, str>], i: usize) -> Option<usize> {
    let first = lines[i].trim_start();
    if !first.starts_with("[Illustration") {
        return None;
    }
    let mut depth = 0usize;
    for (k, line) in lines.iter().enumerate().skip(i).take(MAX_BLOCK_LINES) {
        let text = if k == i { first } else { line.as_ref() };
        for (at, c) in text.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        // Text after the closing bracket on its line: not a block of its own.
                        return text[at + 1..].trim().is_empty().then_some(k);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// A block's chapter heading, when its caption's last line is one, and its caption on one line
/// (without the heading).
fn caption_and_heading(block: &[Cow<'_, str>]) -> (Option<String>, String) {
    let lines: Vec<&str> = block
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    // `]` alone on the last line closes the caption without a space before it.
    let collapse = |lines: &[&str]| {
        let one = crate::convert::split::collapse_spaces(&lines.join(" "));
        match one.strip_suffix(" ]") {
            Some(open) => format!("{open}]"),
            None => one,
        }
    };
    let last = lines.last().copied().unwrap_or("");
    let candidate = last.strip_suffix(']').unwrap_or(last);
    let candidate = match candidate.strip_prefix("[Illustration") {
        Some(rest) => rest.trim_start_matches(':').trim(),
        None => candidate,
    };
    if !is_chapter_heading(candidate) {
        return (None, collapse(&lines));
    }
    let rest = &lines[..lines.len() - 1];
    let caption = if rest.is_empty() || rest == ["[Illustration:"] {
        "[Illustration]".to_string()
    } else {
        format!("{}]", collapse(rest))
    };
    (Some(candidate.to_string()), caption)
}

/// A line that is a chapter heading and nothing else.
fn is_chapter_heading(line: &str) -> bool {
    use super::split::{HeadingKind, SplitMode, split};
    let found = split(&[line], &SplitMode::Auto);
    found
        .sections
        .first()
        .and_then(|s| s.heading.as_ref())
        .is_some_and(|h| h.kind == HeadingKind::Chapter && h.title == line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_html_header_names_the_book_and_its_author() {
        let old = "<html><body><pre>\nThe Project Gutenberg EBook of Katrine\n\nTitle: Katrine\n\n\
                   Author: Elinor Macartney Lane\n</pre><h1>KATRINE</h1></body></html>";
        assert_eq!(
            about_html(old),
            (Some("Katrine".into()), Some("Elinor Macartney Lane".into()))
        );
        let new = "<div id=\"pg-header\">The Project Gutenberg eBook of X<p><strong>Title</strong>: \
                   Pride &amp; Prejudice</p>\n<p><strong>Author</strong>: Jane Austen</p></div>";
        assert_eq!(
            about_html(new),
            (Some("Pride & Prejudice".into()), Some("Jane Austen".into()))
        );
        assert_eq!(about_html("<p>Title: Mine</p>"), (None, None));
    }

    const HEADER: &str = "The Project Gutenberg eBook of Pride and Prejudice\n\nThis eBook is for the use of anyone anywhere.\n\nTitle: Pride and Prejudice\n\nAuthor: Jane Austen\n\n*** START OF THE PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\n\n\n";
    const LICENCE: &str = "*** END OF THE PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\n\nUpdated editions will replace the previous one.\n\nSTART: FULL LICENSE\n";

    #[test]
    fn header_and_licence_leave_the_text_but_not_its_line_numbers() {
        let text = format!("{HEADER}CHAPTER I.\n\nIt is a truth.\n\n{LICENCE}");
        let d = detach(&text).unwrap();
        assert_eq!(d.text.split('\n').count(), text.split('\n').count());
        assert!(d.text.contains("CHAPTER I.\n\nIt is a truth."));
        assert!(!d.text.contains("Gutenberg") && !d.text.contains("LICENSE"));
        assert!(d.boilerplate.starts_with("The Project Gutenberg eBook"));
        assert!(d.boilerplate.contains("*** START OF"));
        assert!(d.boilerplate.contains("*** END OF") && d.boilerplate.contains("FULL LICENSE"));
        assert!(d.licence);
        assert_eq!(
            about(&d.boilerplate),
            (
                Some("Pride and Prejudice".into()),
                Some("Jane Austen".into())
            )
        );
        let nothing_lost: usize = text.split_whitespace().count();
        assert_eq!(
            d.text.split_whitespace().count() + d.boilerplate.split_whitespace().count(),
            nothing_lost
        );
    }

    #[test]
    fn the_credit_after_start_and_the_end_note_before_end_are_boilerplate() {
        let text = "Title: Moby Dick\n\n*** START OF THIS PROJECT GUTENBERG EBOOK MOBY DICK ***\n\nProduced by Daniel Lazarus, Jonesey,\nand David Widger\n\nMOBY-DICK;\n\nCall me Ishmael.\n\nEnd of Project Gutenberg's Moby Dick\n\n*** END OF THIS PROJECT GUTENBERG EBOOK MOBY DICK ***\n";
        let d = detach(text).unwrap();
        assert_eq!(d.text.trim(), "MOBY-DICK;\n\nCall me Ishmael.");
        assert!(d.boilerplate.contains("David Widger"));
        assert!(
            d.boilerplate
                .contains("End of Project Gutenberg's Moby Dick")
        );
    }

    #[test]
    fn an_html_chapter_loses_its_header_and_licence_blocks() {
        // The 2018 Gutenberg HTML: the header and the licence in <pre> blocks of the body.
        let body = "<pre>The Project Gutenberg EBook of Pride and Prejudice\n\n*** START OF THIS PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\n</pre>\n<h1>PRIDE AND PREJUDICE</h1>\n<p>It is a truth.</p>\n<pre>End of the Project Gutenberg EBook of Pride and Prejudice\n\n*** END OF THIS PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\n\nUpdated editions will replace the previous one.</pre>\n";
        let d = detach_html(body).unwrap();
        assert_eq!(
            d.text,
            "<h1>PRIDE AND PREJUDICE</h1>\n<p>It is a truth.</p>\n"
        );
        assert!(
            d.boilerplate.starts_with("<pre>The Project Gutenberg"),
            "{}",
            d.boilerplate
        );
        assert!(d.boilerplate.contains("Updated editions"));
        assert!(d.licence);
        // Newer ones: sections pg-header and pg-footer, here inside a wrapper.
        let body = "<div class=\"book\"><section id=\"pg-header\"><p>*** START OF THE PROJECT GUTENBERG EBOOK X ***</p></section><p>Text.</p><div><p>End of the Project Gutenberg eBook of X</p></div><section id=\"pg-footer\"><p>*** END OF THE PROJECT GUTENBERG EBOOK X ***</p></section></div>";
        let d = detach_html(body).unwrap();
        assert_eq!(d.text, "<div class=\"book\"><p>Text.</p></div>");
        assert!(
            d.boilerplate
                .contains("End of the Project Gutenberg eBook of X")
        );
        assert_eq!(detach_html("<p>No markers.</p>"), None);
        // A marker whose letters are character references is found too.
        let spelt = "<pre>*** START OF THE PROJECT &#71;UTENBERG EBOOK X ***</pre><p>Text.</p>";
        assert_eq!(detach_html(spelt).unwrap().text, "<p>Text.</p>");
        assert!(!may_name_gutenberg("<p>第一章 Gute nberg</p>"));
        assert!(may_name_gutenberg("<p>x gUTENBERg</p>"));
        assert_eq!(
            book_title("The Project Gutenberg EBook of Pride and Prejudice, by Jane Austen")
                .as_deref(),
            Some("Pride and Prejudice")
        );
        assert_eq!(book_title("Pride and Prejudice"), None);
        assert_eq!(
            book_author("The Project Gutenberg eBook of Pride and prejudice, by Jane Austen.")
                .as_deref(),
            Some("Jane Austen")
        );
        assert_eq!(book_author("Pride and Prejudice, by Jane Austen"), None);
        assert_eq!(
            book_title("The Project Gutenberg eBook of Pride and prejudice, by Jane Austen.")
                .as_deref(),
            Some("Pride and prejudice")
        );
    }

    #[test]
    fn a_split_files_header_and_licence_leave_its_pieces_and_ids_follow() {
        let piece = |title: Option<&str>, level, body: &str| SplitPiece {
            title: title.map(str::to_string),
            level,
            body: body.to_string(),
        };
        let mut pieces = vec![
            piece(None, None, "<p>The Project Gutenberg eBook of X</p>"),
            piece(
                Some("X, by Y"),
                Some(2),
                "<pre>*** START OF THE PROJECT GUTENBERG EBOOK X ***</pre><p id=\"s\"/>",
            ),
            piece(
                Some("E-text prepared by A Volunteer"),
                Some(3),
                "<p>\u{a0}</p><hr/>",
            ),
            piece(Some("One"), Some(2), "<p id=\"a\">Text.</p>"),
            piece(
                Some("Two"),
                Some(2),
                "<p id=\"b\">More.</p><p>*** END OF THE PROJECT GUTENBERG EBOOK X ***</p>",
            ),
            piece(Some("Section 1."), Some(2), "<p id=\"l\">Terms.</p>"),
        ];
        let mut homes: HashMap<String, usize> = [("s", 1), ("a", 3), ("b", 4), ("l", 5)]
            .map(|(k, v)| (k.to_string(), v))
            .into();
        let (page, licence) = detach_pieces(&mut pieces, &mut homes).unwrap();
        assert!(licence);
        let titles: Vec<_> = pieces.iter().map(|p| p.title.as_deref()).collect();
        assert_eq!(titles, [Some("One"), Some("Two")]);
        assert_eq!(pieces[1].body, "<p id=\"b\">More.</p>");
        let order = [
            "eBook of X",
            "<h2>X, by Y</h2>",
            "START OF",
            "E-text prepared",
            "END OF",
            "Section 1.",
            "Terms.",
        ];
        let at: Vec<usize> = order.iter().map(|w| page.find(w).expect(w)).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{page}");
        // Ids of the pieces that left are on the page after the two chapters.
        let home = |id: &str| homes[id];
        assert_eq!([home("s"), home("a"), home("b"), home("l")], [2, 0, 1, 2]);
        let mut none = vec![piece(None, None, "<p>No markers.</p>")];
        assert_eq!(detach_pieces(&mut none, &mut HashMap::new()), None);
    }

    #[test]
    fn text_without_markers_is_not_touched() {
        assert_eq!(detach("第一章\n正文，提到 Project Gutenberg。\n"), None);
        assert_eq!(
            detach("The START OF THE PROJECT GUTENBERG EBOOK is mentioned."),
            None
        );
    }

    #[test]
    fn an_illustration_block_goes_on_one_line_and_a_heading_ending_it_in_front() {
        let text = "intro\n\n[Illustration: ·PRIDE AND PREJUDICE·\n\n\n\n\nChapter I.]\n\n\nIt is a truth.\n";
        let out = illustrations(text);
        assert_eq!(out.split('\n').count(), text.split('\n').count());
        let lines: Vec<&str> = out.split('\n').filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines,
            [
                "intro",
                "Chapter I.",
                "[Illustration: ·PRIDE AND PREJUDICE·]",
                "It is a truth."
            ]
        );
    }

    #[test]
    fn nested_brackets_close_the_block_and_captions_stay_whole() {
        let text = "[Illustration:\n\n“He came down to see the place”\n\n[_Copyright 1894 by George Allen._]]\n\nThis was invitation enough.\n[Illustration]\nNext.\n   [Illustration:\n\n   THE END\n   ]\n";
        let out = illustrations(text);
        let lines: Vec<&str> = out.split('\n').filter(|l| !l.is_empty()).collect();
        assert_eq!(
            lines,
            [
                "[Illustration: “He came down to see the place” [_Copyright 1894 by George Allen._]]",
                "This was invitation enough.",
                "[Illustration]",
                "Next.",
                "[Illustration: THE END]",
            ]
        );
        assert!(is_illustration(lines[0]) && is_illustration(lines[2]));
    }

    #[test]
    fn an_unclosed_illustration_bracket_is_text() {
        let text = format!("[Illustration: never closed\n{}", "line\n".repeat(60));
        assert_eq!(illustrations(&text), text);
        assert_eq!(illustrations("no pictures"), "no pictures");
    }

    #[test]
    fn a_caption_that_is_only_a_heading_leaves_a_bare_marker() {
        let out = illustrations("[Illustration: CHAPTER XVIII.]\n\nText.");
        assert_eq!(out, "CHAPTER XVIII.\n[Illustration]\nText.");
        let out = illustrations("[Illustration: CHAPTER XVIII.]\nText.");
        assert_eq!(out, "CHAPTER XVIII.\n[Illustration]\nText.");
    }
}
