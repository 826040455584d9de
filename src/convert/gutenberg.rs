//! Project Gutenberg's conventions in plain text: the header and licence around the book, and
//! `[Illustration: …]` blocks.
//!
//! Part of the convert stage, run on a text chapter's decoded text before it is split at its
//! headings and made into paragraphs. Every Gutenberg text opens with a header (title, author,
//! release date, `*** START OF THE PROJECT GUTENBERG EBOOK … ***`) and ends with
//! `*** END OF … ***` and the licence, some 350 lines. They are not the book: [`detach`] takes
//! them out (as blank lines, so line numbers in messages stay the file's) for a page of their
//! own at the end, where the licence is still "included with this eBook" as it asks, instead
//! of a "Foreword" and a tail glued to the last chapter.
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

/// A text with its Gutenberg header and licence taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detached {
    /// The text with the header and licence lines left blank: as many lines as before.
    pub text: String,
    /// The header, then the licence, for their own page.
    pub boilerplate: String,
    /// Whether the licence (the END marker and after) was found.
    pub licence: bool,
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
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            kept.push('\n');
        }
        if i < header_end || i >= footer_start {
            if i == footer_start && !boilerplate.is_empty() {
                boilerplate.push('\n');
            }
            boilerplate.push_str(line);
            boilerplate.push('\n');
        } else {
            kept.push_str(line);
        }
    }
    Some(Detached {
        text: kept,
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
    let wrapped = format!("{OPEN}{body}{CLOSE}");
    let opts = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: u32::MAX,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&wrapped, opts).ok()?;
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
    let blank = |i: usize| children[i].text().is_some_and(|t| t.trim().is_empty());
    let mut first_kept = start.map_or(0, |s| s + 1);
    while start.is_some() && first_kept < children.len() && blank(first_kept) {
        first_kept += 1;
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
    let boilerplate = format!("{}\n{}", span(0, first_kept), span(end, children.len()));
    Detached {
        text,
        boilerplate,
        licence: end < children.len(),
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
        assert_eq!(
            book_title("The Project Gutenberg EBook of Pride and Prejudice, by Jane Austen")
                .as_deref(),
            Some("Pride and Prejudice")
        );
        assert_eq!(book_title("Pride and Prejudice"), None);
        assert_eq!(
            book_title("The Project Gutenberg eBook of Pride and prejudice, by Jane Austen.")
                .as_deref(),
            Some("Pride and prejudice")
        );
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
