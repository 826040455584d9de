//! The text of the `metadata.toml` that [`super::unpack`] writes: `[book]` with everything the
//! package document said, `[layout]` (no generated title page, since the EPUB's own pages are
//! the chapters; the contents' depth; vertical text), `[text] typography = false` (the EPUB's
//! punctuation as it is), `[style] css` with the EPUB's
//! stylesheets, then one `[[chapters]]` entry per spine document, in reading order.

use std::fmt::Write as _;

use super::chapters::Plan;
use super::metadata::{Metadata, Person};

/// A TOML string.
fn quote(s: &str) -> String {
    // A value with no quote, backslash or control character (a title, a file name) is written
    // by toml between double quotes as it is; its writer costs about 2000 instructions a
    // value, 20 M for the 3000 chapters of a web novel.
    if !s
        .bytes()
        .any(|b| b <= 0x1f || b == 0x7f || matches!(b, b'"' | b'\\' | b'\''))
    {
        let mut quoted = String::with_capacity(s.len() + 2);
        quoted.push('"');
        quoted.push_str(s);
        quoted.push('"');
        return quoted;
    }
    toml::Value::String(s.to_string()).to_string()
}

/// A value written as the project load reads it: one line, no control characters.
fn one_line(s: &str) -> String {
    quote(&s.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn person(p: &Person, default_role: &str) -> String {
    let mut out = format!("{{ name = {}", one_line(&p.name));
    if let Some(f) = p.file_as.as_deref().filter(|f| !f.trim().is_empty()) {
        let _ = write!(out, ", file-as = {}", one_line(f));
    }
    let role = p.role.as_deref().map(str::trim).filter(|r| is_role(r));
    if let Some(r) = role.filter(|r| *r != default_role) {
        let _ = write!(out, ", role = {}", quote(r));
    }
    out.push_str(" }");
    out
}

/// A MARC relator code: three ASCII letters.
fn is_role(r: &str) -> bool {
    r.len() == 3 && r.bytes().all(|b| b.is_ascii_lowercase())
}

/// The whole file.
pub(super) fn metadata_toml(meta: &Metadata, plan: &Plan, stylesheets: &[String]) -> String {
    let mut out = String::new();
    out.push_str("# Written by `epubforge init` from an EPUB. Edit freely; `epubforge build`\n");
    out.push_str("# makes the book again. Paths are relative to this file's folder.\n\n[book]\n");
    let _ = writeln!(out, "title = {}", one_line(&meta.title));
    if let Some(s) = &meta.subtitle {
        let _ = writeln!(out, "subtitle = {}", one_line(s));
    }
    let authors: Vec<String> = meta
        .authors
        .iter()
        .filter(|p| !p.name.trim().is_empty())
        .map(|p| person(p, "aut"))
        .collect();
    if authors.is_empty() {
        out.push_str(
            "authors = [\"Unknown\"]  # the EPUB names none: replace with the real author(s)\n",
        );
    } else {
        let _ = writeln!(out, "authors = [{}]", authors.join(", "));
    }
    let contributors: Vec<String> = meta
        .contributors
        .iter()
        .filter(|p| !p.name.trim().is_empty())
        .map(|p| person(p, "ctb"))
        .collect();
    if !contributors.is_empty() {
        let _ = writeln!(out, "contributors = [{}]", contributors.join(", "));
    }
    let _ = writeln!(out, "language = {}", quote(meta.language.trim()));
    let strings = [
        ("identifier", &meta.identifier),
        ("publisher", &meta.publisher),
        ("rights", &meta.rights),
        ("series", &meta.series),
    ];
    for (key, value) in strings {
        if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
            let _ = writeln!(out, "{key} = {}", one_line(v));
        }
    }
    if let (Some(_), Some(i)) = (&meta.series, &meta.series_index) {
        let _ = writeln!(out, "series-index = {}", i.trim());
    }
    if let Some(d) = meta.description.as_deref().filter(|d| !d.trim().is_empty()) {
        let _ = writeln!(out, "description = {}", quote(d.trim()));
    }
    if let Some(p) = &meta.published {
        let _ = writeln!(out, "published = {p}");
    }
    if !meta.subjects.is_empty() {
        let subjects: Vec<String> = meta.subjects.iter().map(|s| one_line(s)).collect();
        let _ = writeln!(out, "subjects = [{}]", subjects.join(", "));
    }
    if let Some(c) = &meta.cover {
        let _ = writeln!(out, "cover = {}", quote(c));
        if let Some(alt) = &plan.cover_alt {
            let _ = writeln!(out, "cover-alt = {}", one_line(alt));
        }
    }
    layout(&mut out, meta, plan);
    // An EPUB is a finished book: its punctuation is kept as it is (`true` to change it).
    out.push_str("\n[text]\ntypography = false   # the EPUB's punctuation as it is\n");
    if !stylesheets.is_empty() {
        let css: Vec<String> = stylesheets.iter().map(|c| quote(c)).collect();
        let _ = writeln!(out, "\n[style]\ncss = [{}]", css.join(", "));
    }
    chapters(&mut out, plan);
    out
}

fn layout(out: &mut String, meta: &Metadata, plan: &Plan) {
    out.push_str("\n[layout]\ntitle-page = false   # the EPUB's own pages are chapters\n");
    let _ = writeln!(out, "toc-depth = {}", plan.toc_depth);
    if plan.toc_page {
        out.push_str("toc-page = true\n");
        if let Some(title) = &plan.toc_page_title {
            let _ = writeln!(out, "toc-page-title = {}", one_line(title));
        }
        if plan.toc_page_before > 1 {
            let _ = writeln!(
                out,
                "toc-page-before = {}   # where the EPUB's contents page stood",
                plan.toc_page_before
            );
        }
    }
    // A round trip does not cut what the EPUB had as one document: the split size is twice
    // the largest one's (the build's XHTML of it may grow a little: ids, attributes).
    let kb = plan.largest.div_ceil(1024) * 2;
    if kb > crate::book::DEFAULT_SPLIT_KB as u64 {
        let kb = kb.min(100_000);
        let _ = writeln!(out, "split-size = {kb}   # no document of the EPUB is cut");
    }
    if let Some(mode) = meta.writing_mode {
        let _ = writeln!(out, "writing-mode = {}", quote(mode));
    }
}

const HTML_EXTENSIONS: [&str; 4] = ["html", "htm", "xhtml", "xht"];

fn chapters(out: &mut String, plan: &Plan) {
    for c in &plan.chapters {
        let _ = write!(out, "\n[[chapters]]\nfile = {}\n", quote(&c.file));
        match c.title.as_deref().filter(|t| !t.trim().is_empty()) {
            Some(t) => {
                let _ = writeln!(out, "title = {}", one_line(t));
            }
            // A page the contents do not name stays out of them.
            None => out.push_str("toc = false\n"),
        }
        // The page shows its own heading, or none, as the EPUB had it.
        out.push_str("heading = false\n");
        if c.level > 1 {
            let _ = writeln!(out, "level = {}", c.level);
        }
        let ext = c
            .file
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        if !HTML_EXTENSIONS.contains(&ext.as_str()) {
            out.push_str("format = \"html\"\n");
        }
        if !c.linear {
            out.push_str("linear = false\n");
        }
        // The contents list what the EPUB's did under the chapter, not its headings; and
        // `sections` says the chapter is a page of an EPUB, which the build leaves as it is
        // (a Project Gutenberg header or licence where it stands), even with none.
        let listed: Vec<String> = c
            .sections
            .iter()
            .map(|(level, id, title)| {
                // A heading-only entry has no id.
                let id = match id.is_empty() {
                    true => String::new(),
                    false => format!("id = {}, ", quote(id)),
                };
                format!(
                    "  {{ {id}title = {}, level = {level} }},\n",
                    one_line(title)
                )
            })
            .collect();
        match listed.is_empty() {
            true => out.push_str("sections = []\n"),
            false => {
                let _ = writeln!(out, "sections = [\n{}]", listed.concat());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn a_value_quoted_without_toml_s_writer_is_what_toml_writes() {
        let values = [
            "",
            "Chapter 1",
            "第一章 风起",
            "Text/ch_0001.xhtml",
            " leading and trailing ",
            "emoji 📖, \u{2028} and \u{a0}",
            "a\tb",
            "it's",
            "say \"hi\"",
            "back\\slash",
            "line\nbreak",
            "bell\u{7}",
            "del\u{7f}",
        ];
        for value in values {
            let toml = toml::Value::String(value.to_string()).to_string();
            assert_eq!(quote(value), toml, "{value:?}");
        }
    }
}
