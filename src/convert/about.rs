//! What a chapter file says about its book: the title, authors and language that `init`
//! writes into `metadata.toml`, so that a book made of one file builds with the right names.
//!
//! Read beside the convert stage, from the decoded text, for `init` (the build takes these
//! from `metadata.toml`). The one place that decides what a file says about its book:
//! - a Project Gutenberg header (`Title:`, `Author:`) in text or HTML, in any file
//!   ([`super::gutenberg`]);
//! - a book that is one HTML file: its `<title>` (PG's `The Project Gutenberg eBook of …, by
//!   …` read as title and author), else its first `<h1>`; its `<meta name="author">` and
//!   `<meta name="dc.creator">`; its `<html lang>` or `xml:lang`;
//! - a book that is one Markdown file: front matter, YAML (`---`, `title:`, `author:`, `lang:`,
//!   `date:`, `description:`, `---`) or TOML (`+++`), with any other keys ignored, or pandoc's
//!   `%` lines (title, then authors separated by `;`), as pandoc reads them.
//!
//! What one file of several says of itself (its `<title>`, a title block) names that chapter,
//! not the book, and is left to the chapter's title. A Markdown title block is metadata, not
//! text: the Markdown converter reads the file without it ([`take_title_block`]), its title
//! the chapter's when no heading opens the file.

use std::borrow::Cow;

use super::SourceKind;

/// What a file says about its book; empty where it says nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct About {
    /// The book's title.
    pub title: Option<String>,
    /// Its authors, in order.
    pub authors: Vec<String>,
    /// Its language, as the file writes it (a BCP 47 tag).
    pub language: Option<String>,
    /// Its date of publication, `YYYY-MM-DD` (a front matter's `date`).
    pub date: Option<String>,
    /// Its description (a front matter's `description`).
    pub description: Option<String>,
}

impl About {
    /// Whether the file said anything.
    pub fn is_empty(&self) -> bool {
        self.title.is_none() && self.authors.is_empty() && self.language.is_none()
    }

    /// Fills what `self` lacks from `other`.
    fn or(mut self, other: About) -> About {
        self.title = self.title.or(other.title);
        if self.authors.is_empty() {
            self.authors = other.authors;
        }
        self.language = self.language.or(other.language);
        self.date = self.date.or(other.date);
        self.description = self.description.or(other.description);
        self
    }
}

/// What a file of `kind` (its decoded `text`) says about its book; `lone` when it is the
/// book's only file, so that its own title and metadata are the book's.
pub(crate) fn about(kind: SourceKind, text: &str, lone: bool) -> About {
    match kind {
        SourceKind::Text => match super::gutenberg::detach(text) {
            Some(g) => header(super::gutenberg::about(&g.boilerplate)),
            None => About::default(),
        },
        SourceKind::Html => {
            let pg = header(super::gutenberg::about_html(text));
            match lone {
                true => pg.or(html_document(text)),
                false => pg,
            }
        }
        SourceKind::Markdown if lone => title_block(text).unwrap_or_default(),
        SourceKind::Markdown => About::default(),
    }
}

/// A Project Gutenberg header's title and author.
fn header((title, author): (Option<String>, Option<String>)) -> About {
    About {
        title,
        authors: author.into_iter().collect(),
        ..About::default()
    }
}

/// What an HTML document's head (and first `<h1>`) says.
fn html_document(text: &str) -> About {
    let doc = super::markup::document_about(text);
    // PG's `<title>` names the author too (`… of Pride and Prejudice, by Jane Austen`).
    let pg_author = doc.title.as_deref().and_then(super::gutenberg::book_author);
    let title = doc
        .title
        .map(|t| super::gutenberg::book_title(&t).unwrap_or(t))
        .or(doc.h1);
    let authors = match doc.authors.is_empty() {
        true => pg_author.into_iter().collect(),
        false => doc.authors,
    };
    About {
        title,
        authors,
        language: doc.language.filter(|l| crate::project::is_language_tag(l)),
        ..About::default()
    }
}

/// Most lines a YAML title block may take before it is taken for text.
const MAX_BLOCK_LINES: usize = 200;

/// A Markdown file's title block: front matter (YAML between `---` and `---` or `...`, TOML
/// between `+++` lines) on its first lines, with any keys, or pandoc's `% title` /
/// `% author; author` lines. None without one.
pub(crate) fn title_block(text: &str) -> Option<About> {
    block(text).map(|(about, _)| about)
}

/// A Markdown file's text without its title block ([`title_block`]), each of its lines left
/// blank so that line numbers stay the file's, and the block: it is metadata, which `init`
/// writes into `metadata.toml` and whose title names the chapter, not text (as pandoc reads
/// it). A YAML block is one only when every line at its left edge is a `key:` or a list item,
/// so a rule over a setext heading stays text.
pub(crate) fn take_title_block(text: &str) -> (Cow<'_, str>, Option<About>) {
    match block(text) {
        Some((about, lines)) => {
            let rest: Vec<&str> = text.split('\n').skip(lines).collect();
            let text = format!("{}{}", "\n".repeat(lines), rest.join("\n"));
            (Cow::Owned(text), Some(about))
        }
        None => (Cow::Borrowed(text), None),
    }
}

/// The title block at the start of `text` and how many lines it takes.
fn block(text: &str) -> Option<(About, usize)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.split('\n').next()?.trim_end();
    let (about, lines) = if first == "---" {
        let body: Vec<&str> = text.split('\n').skip(1).take(MAX_BLOCK_LINES).collect();
        let close = body
            .iter()
            .position(|l| matches!(l.trim_end(), "---" | "..."))?;
        let body = &body[..close];
        let mapping = body.iter().all(|l| {
            l.trim().is_empty()
                || l.starts_with([' ', '\t', '#'])
                || l.starts_with("- ")
                || l.contains(':')
        });
        if !mapping || body.first().is_none_or(|l| l.trim().is_empty()) {
            return None;
        }
        // Front matter with any keys (`minutes: 5`) is metadata, not a rule and a heading.
        return Some((yaml_block(body), close + 2));
    } else if first == "+++" {
        return toml_block(text);
    } else if first.starts_with('%') {
        percent_block(text)
    } else {
        return None;
    };
    (!about.is_empty()).then_some((about, lines))
}

/// Zola's and Hugo's TOML front matter between `+++` lines, whatever its keys (an invalid
/// one too: it is still no text), and how many lines it takes.
fn toml_block(text: &str) -> Option<(About, usize)> {
    let body: Vec<&str> = text.split('\n').skip(1).take(MAX_BLOCK_LINES).collect();
    let close = body.iter().position(|l| l.trim_end() == "+++")?;
    let table: toml::Table = body[..close].join("\n").parse().unwrap_or_default();
    let string = |key: &str| table.get(key).and_then(|v| v.as_str()).and_then(scalar);
    let extra = table.get("extra").and_then(|e| e.as_table());
    let authors = ["authors", "author"]
        .iter()
        .find_map(|k| table.get(*k).or_else(|| extra.and_then(|e| e.get(*k))))
        .map(|v| match v {
            toml::Value::Array(list) => list
                .iter()
                .filter_map(|a| a.as_str())
                .filter_map(scalar)
                .collect(),
            other => other.as_str().and_then(scalar).into_iter().collect(),
        })
        .unwrap_or_default();
    let about = About {
        title: string("title"),
        authors,
        language: string("lang")
            .or_else(|| string("language"))
            .filter(|l| crate::project::is_language_tag(l)),
        date: table.get("date").and_then(|d| date(&d.to_string())),
        description: string("description"),
    };
    Some((about, close + 2))
}

/// A date as `YYYY-MM-DD`, from a value that starts with one (`2020-05-01`,
/// `"2020-05-01T10:00:00Z"`); None otherwise.
fn date(value: &str) -> Option<String> {
    let v = value.trim().trim_matches(['"', '\'']);
    let day = v.get(..10)?;
    let b = day.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    (digits(0..4) && b[4] == b'-' && digits(5..7) && b[7] == b'-' && digits(8..10))
        .then(|| day.to_string())
}

/// The `title`, `author` (a string, a `[a, b]` list or `- a` lines), `lang`, `date` and
/// `description` keys of a YAML title block, read as pandoc's simple blocks write them; the
/// other keys say nothing about the book.
fn yaml_block(lines: &[&str]) -> About {
    let mut about = About::default();
    let mut in_authors = false;
    for line in lines {
        if in_authors && let Some(item) = line.trim_start().strip_prefix("- ") {
            about.authors.extend(scalar(item));
            continue;
        }
        in_authors = false;
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "title" if about.title.is_none() => about.title = scalar(value),
            "author" | "authors" if about.authors.is_empty() => {
                in_authors = value.is_empty();
                about.authors = match value.strip_prefix('[') {
                    Some(list) => list
                        .trim_end_matches(']')
                        .split(',')
                        .filter_map(scalar)
                        .collect(),
                    None => scalar(value).into_iter().collect(),
                };
            }
            "lang" | "language" => {
                about.language = scalar(value).filter(|l| crate::project::is_language_tag(l));
            }
            "date" => about.date = date(value),
            "description" => about.description = scalar(value),
            _ => {}
        }
    }
    about
}

/// A YAML scalar on one line, its quotes taken off; None when empty.
fn scalar(value: &str) -> Option<String> {
    let v = value.trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|&q| v.strip_prefix(q).and_then(|v| v.strip_suffix(q)))
        .unwrap_or(v);
    let one = unquoted.split_whitespace().collect::<Vec<_>>().join(" ");
    (!one.is_empty()).then_some(one)
}

/// Pandoc's title block: `% title`, then `% authors` separated by `;` (a line starting with a
/// space continues the one before); and how many lines it takes.
fn percent_block(text: &str) -> (About, usize) {
    let mut fields: Vec<String> = Vec::new();
    let mut lines = 0;
    for line in text.split('\n').take(MAX_BLOCK_LINES) {
        let line = line.trim_end_matches('\r');
        if let Some(field) = line.strip_prefix('%') {
            fields.push(field.trim().to_string());
        } else if let (true, Some(last)) = (
            line.starts_with([' ', '\t']) && !line.trim().is_empty(),
            fields.last_mut(),
        ) {
            last.push(' ');
            last.push_str(line.trim());
        } else {
            break;
        }
        lines += 1;
    }
    let mut fields = fields.into_iter();
    let about = About {
        title: fields.next().filter(|t| !t.is_empty()),
        authors: fields
            .next()
            .map(|a| a.split(';').filter_map(scalar).collect())
            .unwrap_or_default(),
        ..About::default()
    };
    (about, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_lone_html_book_is_named_by_its_head() {
        let html = "<!DOCTYPE html><html lang=\"fr-CA\"><head><title>  Le   Livre </title>\
                    <meta name=\"author\" content=\"Anne Autrice\">\
                    <meta name=\"DC.Creator\" content=\"Bea Co\"></head>\
                    <body><h1>Chapitre un</h1><p>Texte.</p></body></html>";
        let about = about(SourceKind::of(Path::new("book.html")), html, true);
        assert_eq!(about.title.as_deref(), Some("Le Livre"));
        assert_eq!(about.authors, ["Anne Autrice", "Bea Co"]);
        assert_eq!(about.language.as_deref(), Some("fr-CA"));
        // A chapter of several names itself, not the book.
        assert!(super::about(SourceKind::of(Path::new("book.html")), html, false).is_empty());
    }

    #[test]
    fn without_a_title_the_first_h1_names_an_html_book_and_xml_lang_gives_its_language() {
        let xhtml = "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\" \
                     xml:lang=\"de\"><head><title> </title></head><body>\
                     <svg><title>Bild</title></svg><h2>Vorwort</h2><h1>Das <em>Buch</em></h1>\
                     <h1>Zwei</h1></body></html>";
        let about = about(SourceKind::of(Path::new("b.xhtml")), xhtml, true);
        assert_eq!(about.title.as_deref(), Some("Das Buch"));
        assert_eq!(about.language.as_deref(), Some("de"));
        assert!(about.authors.is_empty());
        let junk = "<html lang=\"not a tag!\"><body><p>x</p></body></html>";
        assert_eq!(
            super::about(SourceKind::of(Path::new("b.html")), junk, true),
            About::default()
        );
    }

    #[test]
    fn a_gutenberg_header_comes_before_the_head() {
        let html = "<html lang=\"en\"><head><title>The Project Gutenberg eBook of Katrine, by \
                    Elinor Macartney Lane</title><meta name=\"dc.creator\" content=\"Lane, \
                    Elinor Macartney\"></head><body><pre>The Project Gutenberg EBook of \
                    Katrine\n\nTitle: Katrine: A Novel\n\nAuthor: Elinor Macartney Lane\n</pre>\
                    </body></html>";
        let about = about(SourceKind::of(Path::new("k.html")), html, true);
        assert_eq!(about.title.as_deref(), Some("Katrine: A Novel"));
        assert_eq!(about.authors, ["Elinor Macartney Lane"]);
        assert_eq!(about.language.as_deref(), Some("en"));
        let no_header = html.replace("Title: Katrine: A Novel", "");
        let about = super::about(SourceKind::of(Path::new("k.html")), &no_header, true);
        assert_eq!(about.title.as_deref(), Some("Katrine"));
        // A copy without the header or a meta author: the PG <title> names the author.
        let bare = "<html><head><title>The Project Gutenberg eBook of Pride and prejudice, by                     Jane Austen.</title></head><body><p>It is a truth.</p></body></html>";
        let about = super::about(SourceKind::of(Path::new("p.html")), bare, true);
        assert_eq!(about.title.as_deref(), Some("Pride and prejudice"));
        assert_eq!(about.authors, ["Jane Austen"]);
    }

    #[test]
    fn markdown_title_blocks_name_the_book() {
        let yaml = "---\ntitle: \"The Book: A Tale\"\nauthor:\n  - Ann One\n  - 'Bob Two'\n\
                    lang: en-GB\ndate: 2020\n---\n\n# One\n";
        let about = title_block(yaml).unwrap();
        assert_eq!(about.title.as_deref(), Some("The Book: A Tale"));
        assert_eq!(about.authors, ["Ann One", "Bob Two"]);
        assert_eq!(about.language.as_deref(), Some("en-GB"));
        let inline = title_block("---\ntitle: T\nauthor: [A, \"B\"]\n...\ntext").unwrap();
        assert_eq!(inline.authors, ["A", "B"]);
        let pandoc = title_block("% My Book\n  Continued\n% Ann One; Bob Two\n% 2020\n\nText");
        let pandoc = pandoc.unwrap();
        assert_eq!(pandoc.title.as_deref(), Some("My Book Continued"));
        assert_eq!(pandoc.authors, ["Ann One", "Bob Two"]);
        assert_eq!(title_block("# Heading\n\n---\ntitle: x\n---\n"), None);
        assert_eq!(title_block("---\n\nA rule, then text.\n"), None);
        assert_eq!(title_block("---\nFoo\n---\nBar\n"), None);
        assert_eq!(title_block("---\ntitle: never closed\n"), None);
        // The build reads the file without it, its lines blank.
        let (body, block) = take_title_block(yaml);
        assert_eq!(block, title_block(yaml));
        assert_eq!(body.split('\n').count(), yaml.split('\n').count());
        assert!(body.trim_start().starts_with("# One"), "{body}");
        let (body, _) = take_title_block("% T\n% A\n\nText\n");
        assert_eq!(body, "\n\n\nText\n");
        assert_eq!(take_title_block("---\nFoo\n---\n").0, "---\nFoo\n---\n");
        // Nor does the Markdown converter make a rule and a heading of it; its title is the
        // chapter's when no heading opens the file.
        let mut no_images = crate::convert::no_images();
        let opts = crate::convert::markup::MarkdownOptions {
            highlight: false,
            ..Default::default()
        };
        let c = crate::convert::convert_markdown(
            "% Mine\n\nText.\n",
            &mut no_images,
            opts.clone(),
            None,
            None,
        );
        let c = c.unwrap();
        assert_eq!(
            (c.title.as_deref(), c.body.as_str()),
            (Some("Mine"), "<p>Text.</p>\n")
        );
        let c = crate::convert::convert_markdown(yaml, &mut no_images, opts, None, None).unwrap();
        assert_eq!(c.title.as_deref(), Some("One"));
        assert!(
            !c.body.contains("title:") && !c.body.contains("<hr"),
            "{}",
            c.body
        );
        // A chapter of several: its block names the chapter.
        assert!(super::about(SourceKind::of(Path::new("a.md")), yaml, false).is_empty());
    }

    #[test]
    fn front_matter_with_any_keys_is_metadata_not_a_rule_and_a_heading() {
        // Issue 28: `minutes: 5` between `---` lines became <hr/> and an <h2> in the TOC.
        let mut no_images = crate::convert::no_images();
        let opts = crate::convert::markup::MarkdownOptions {
            highlight: false,
            ..Default::default()
        };
        let src = "---\nminutes: 5\n---\n\nText.\n";
        let c = crate::convert::convert_markdown(src, &mut no_images, opts.clone(), None, None)
            .unwrap();
        assert_eq!(
            (c.title.as_deref(), c.body.as_str()),
            (None, "<p>Text.</p>\n")
        );
        let yaml = "---\ntitle: Ch\ndate: \"2021-03-04\"\ndescription: 'A tale'\ntags: [a]\n---\n";
        let about = title_block(yaml).unwrap();
        assert_eq!(about.date.as_deref(), Some("2021-03-04"));
        assert_eq!(about.description.as_deref(), Some("A tale"));
        let toml = "+++\ntitle = \"Zola Page\"\ndate = 2021-03-04T10:00:00Z\nweight = 3\n\
                    description = \"A page\"\n[extra]\nauthors = [\"Ann One\"]\n+++\n\nText.\n";
        let about = title_block(toml).unwrap();
        assert_eq!(about.title.as_deref(), Some("Zola Page"));
        assert_eq!(about.authors, ["Ann One"]);
        assert_eq!(about.date.as_deref(), Some("2021-03-04"));
        assert_eq!(about.description.as_deref(), Some("A page"));
        let c = crate::convert::convert_markdown(toml, &mut no_images, opts, None, None).unwrap();
        assert_eq!(
            (c.title.as_deref(), c.body.as_str()),
            (Some("Zola Page"), "<p>Text.</p>\n")
        );
        // Only keys: `+++` with any keys, invalid TOML too, is still no text.
        let (body, _) = take_title_block("+++\nnot = [valid\n+++\nText\n");
        assert_eq!(body, "\n\n\nText\n");
    }
}
