//! Spine documents that continue a chapter, joined to it.
//!
//! calibre cuts a chapter into files at page breaks and at a size (`index_split_003.html`),
//! and many EPUBs put a long chapter into several documents; the contents name only the first.
//! Made chapters of their own, each would get a title and an entry in the contents that the
//! EPUB did not have. So a document no contents entry points to, after a chapter in the same
//! folder and with the same `linear`, is appended to that chapter's file (its body inside a
//! `<div>` that carries an id for links to its top), its own file removed, and every link to it
//! in the book's chapters pointed at the chapter that now holds it. A document before the
//! first titled chapter (a title page) stays a chapter of its own.

use std::collections::HashMap;
use std::path::Path;

use super::Error;
use super::chapters::UnpackedChapter;
use crate::diagnostic::{Code, Diagnostic};

/// Joins the continuation documents among `chapters` (files in `dir`) to the chapter before.
pub(super) fn continuations(
    dir: &Path,
    chapters: &mut Vec<UnpackedChapter>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), Error> {
    let mut moved: HashMap<String, (String, String)> = HashMap::new();
    let mut kept: Vec<UnpackedChapter> = Vec::new();
    let mut bodies: HashMap<String, String> = HashMap::new();
    for c in chapters.drain(..) {
        let host = kept.last().filter(|h| {
            c.title.is_none()
                && h.title.is_some()
                && h.linear == c.linear
                && folder(&h.file) == folder(&c.file)
        });
        let body = host.and_then(|_| {
            read(dir, &c.file)
                .as_deref()
                .and_then(inner_body)
                .map(str::to_string)
        });
        match (host, body) {
            (Some(h), Some(body)) => {
                let anchor = anchor_for(&c.file);
                bodies
                    .entry(h.file.clone())
                    .or_default()
                    .push_str(&format!("<div id=\"{anchor}\">\n{body}\n</div>\n"));
                moved.insert(c.file.clone(), (h.file.clone(), anchor));
            }
            _ => kept.push(c),
        }
    }
    for (host, extra) in &bodies {
        let path = dir.join(host);
        let Some(text) = read(dir, host) else {
            continue;
        };
        let Some(end) = text.rfind("</body>") else {
            continue;
        };
        let joined = format!("{}{extra}{}", &text[..end], &text[end..]);
        super::files::write_file(dir, &path, joined.as_bytes())?;
    }
    for file in moved.keys() {
        let path = dir.join(file);
        std::fs::remove_file(&path).map_err(|source| Error::Write { path, source })?;
    }
    if !moved.is_empty() {
        diagnostics.push(Diagnostic::note(
            Code::EpubInChapter,
            format!(
                "{} document(s) without an entry in the contents continue the chapter before; joined to it",
                moved.len()
            ),
        ));
        for c in &kept {
            relink_file(dir, &c.file, &moved)?;
        }
    }
    *chapters = kept;
    Ok(())
}

fn folder(file: &str) -> &str {
    crate::inspect::href::dir_of(file)
}

fn read(dir: &Path, file: &str) -> Option<String> {
    std::fs::read_to_string(dir.join(file)).ok()
}

/// What is between `<body…>` and `</body>`.
fn inner_body(text: &str) -> Option<&str> {
    let open = text.find("<body")?;
    let start = open + text[open..].find('>')? + 1;
    let end = text.rfind("</body>")?;
    (start <= end).then(|| &text[start..end])
}

/// The id that marks where a joined document starts: its file name, made an XML name.
fn anchor_for(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("joined-{clean}")
}

/// Points the links of the chapter `file` that lead into a joined document at its host.
fn relink_file(
    dir: &Path,
    file: &str,
    moved: &HashMap<String, (String, String)>,
) -> Result<(), Error> {
    let Some(text) = read(dir, file) else {
        return Ok(());
    };
    let link = |href: &str| -> String {
        let Some(target) = crate::inspect::href::resolve(file, href) else {
            return href.to_string();
        };
        let Some((host, anchor)) = moved.get(&target.path) else {
            return href.to_string();
        };
        let fragment = target.fragment.unwrap_or_else(|| anchor.clone());
        format!("{}#{fragment}", relative(file, host))
    };
    let relinked = relink(&text, &link);
    if relinked != text {
        super::files::write_file(dir, &dir.join(file), relinked.as_bytes())?;
    }
    Ok(())
}

/// The href from the file `from` to the file `to` (both relative to one folder).
pub(crate) fn relative(from: &str, to: &str) -> String {
    let from_dirs: Vec<&str> = folder(from).split('/').filter(|s| !s.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dirs
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: Vec<String> = vec!["..".to_string(); from_dirs.len() - common];
    out.extend(to_parts[common..].iter().map(|p| percent_encode(p)));
    out.join("/")
}

fn percent_encode(part: &str) -> String {
    let mut out = String::new();
    for b in part.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b))
            }
            _ if b >= 0x80 => out.push_str(&format!("%{b:02X}")),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A document's `href="…"` values passed through `link` (each value replaced where it is
/// written as an attribute).
pub(crate) fn relink(text: &str, link: &dyn Fn(&str) -> String) -> String {
    let html = scraper::Html::parse_document(text);
    let mut out = text.to_string();
    let mut seen = std::collections::HashSet::new();
    for e in html
        .root_element()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
    {
        let Some(href) = e.value().attr("href") else {
            continue;
        };
        let new = link(href);
        if new != href && seen.insert(href.to_string()) {
            let written = crate::xml::escape_attr(href);
            let new = crate::xml::escape_attr(&new);
            for q in ['"', '\''] {
                out = out.replace(
                    &format!("href={q}{written}{q}"),
                    &format!("href={q}{new}{q}"),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_href_between_folders_climbs_as_far_as_it_must() {
        assert_eq!(relative("text/a.xhtml", "text/b.xhtml"), "b.xhtml");
        assert_eq!(
            relative("text/a.xhtml", "other/b c.xhtml"),
            "../other/b%20c.xhtml"
        );
        assert_eq!(relative("a.html", "x/y.html"), "x/y.html");
    }

    #[test]
    fn the_body_of_a_document_is_what_lies_between_its_body_tags() {
        let doc = "<html><head/><body class=\"x\">\n<p>a</p>\n</body></html>";
        assert_eq!(inner_body(doc), Some("\n<p>a</p>\n"));
        assert_eq!(inner_body("<html/>"), None);
    }
}
