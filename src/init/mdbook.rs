//! mdBook books for `init`: `book.toml` (title, authors, language, the folder of the chapters)
//! and `SUMMARY.md` (the reading order, titles, nesting and parts).
//!
//! A folder is an mdBook book when it holds `book.toml` (the book root; the chapters are in its
//! `src`, `src/` by default) or `SUMMARY.md` (the chapter folder itself). `SUMMARY.md` is read
//! as mdBook reads it: an optional `# Title` first, then prefix chapters (links in paragraphs),
//! then numbered chapters (list items, nested for sub-chapters) under optional `# Part`
//! headings, then suffix chapters (links after the lists); `---` separators are ignored, and a
//! draft chapter (`[Title]()`) has no file. Link texts are the titles, as plain text: the
//! Markdown that mdBook renders in its sidebar (`` `match` ``, `*emphasis*`) is left out.

use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;

use crate::diagnostic::Diagnostic;

/// Largest `book.toml` or `SUMMARY.md` read.
const MAX_FILE_BYTES: u64 = 4 << 20;

/// What `book.toml` says (the keys `init` uses; the rest of the file is mdBook's business).
#[derive(Debug, Default, Deserialize)]
struct BookToml {
    #[serde(default)]
    book: BookSection,
}

#[derive(Debug, Default, Deserialize)]
struct BookSection {
    title: Option<String>,
    #[serde(default)]
    authors: Vec<String>,
    /// `author = "Name"`, which books write for `authors` (mdBook's config reads only the
    /// list, so such a book's author was lost): read as a list of one.
    author: Option<String>,
    language: Option<String>,
    src: Option<String>,
}

/// An mdBook book found in a folder.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MdBook {
    /// The chapter folder, relative to the folder `init` runs in (empty when it is that one).
    pub src: PathBuf,
    /// `[book] title`.
    pub title: Option<String>,
    /// `[book] authors` (or `author`).
    pub authors: Vec<String>,
    /// `[book] language`.
    pub language: Option<String>,
    /// The reading order from `SUMMARY.md`, when there is one.
    pub summary: Option<Vec<Entry>>,
    /// What `book.toml` or `SUMMARY.md` said that `init` could not follow.
    pub notes: Vec<Diagnostic>,
}

/// Where a chapter of `SUMMARY.md` stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Before the numbered chapters (`[Introduction](README.md)`).
    Prefix,
    /// A numbered chapter, in the part titled so if any.
    Numbered(Option<String>),
    /// After the numbered chapters (`[Contributors](misc/contributors.md)`).
    Suffix,
}

/// One chapter of `SUMMARY.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The link text, as plain text.
    pub title: String,
    /// The file, relative to the chapter folder; None for a draft chapter.
    pub file: Option<String>,
    /// 1 for a top-level chapter, 2 for a sub-chapter, and so on.
    pub level: usize,
    /// Prefix, numbered (in a part) or suffix.
    pub place: Place,
    /// The 1-based line of `SUMMARY.md` its link starts on.
    pub line: usize,
    /// The 1-based column (in characters) of that line its link starts at.
    pub column: usize,
}

/// The mdBook book in `dir` (the folder of `boundary`, which its files are read through), if
/// it is one.
pub fn find(dir: &Path, boundary: &crate::project::Boundary) -> Option<MdBook> {
    let toml_path = dir.join("book.toml");
    let mut book = MdBook::default();
    if toml_path.is_file() {
        let config = match read_text(boundary, &toml_path).and_then(|t| {
            toml::from_str::<BookToml>(&t).map_err(|e| Unusable::Toml {
                message: e.message().to_string(),
                at: e.span().map(|s| place_of(&t, s.start)),
            })
        }) {
            Ok(config) => config,
            Err(e) => {
                let mut note = e.note(&toml_path);
                note.message.push_str("; its settings were not used");
                book.notes.push(note);
                BookToml::default()
            }
        };
        book.src = chapter_folder(dir, config.book.src.as_deref(), &mut book.notes);
        book.title = config.book.title.filter(|t| !t.trim().is_empty());
        book.authors = config.book.authors;
        if book.authors.is_empty() {
            book.authors
                .extend(config.book.author.filter(|a| !a.trim().is_empty()));
        }
        book.language = config.book.language;
    } else if !dir.join("SUMMARY.md").is_file() {
        return None;
    }
    let summary_path = dir.join(&book.src).join("SUMMARY.md");
    if summary_path.is_file() {
        match read_text(boundary, &summary_path) {
            Ok(text) => book.summary = Some(parse_summary(&text)),
            Err(e) => book.notes.push(e.note(&summary_path)),
        }
    }
    Some(book)
}

/// The chapter folder `book.toml` names (`src/` by default), relative to `dir`, through the
/// same containment check as every path a project names: one leaving `dir` (climbing out,
/// absolute, or a symlink pointing out) is noted and `src/` used instead, or `dir` itself when
/// `src/` leads out too.
fn chapter_folder(dir: &Path, src: Option<&str>, notes: &mut Vec<Diagnostic>) -> PathBuf {
    let boundary = crate::project::Boundary::new(dir, false);
    let written = src.unwrap_or("src");
    let Err(outside) = boundary.admit(dir, written) else {
        return PathBuf::from(written);
    };
    let (used, shown) = if written != "src" && boundary.admit(dir, "src").is_ok() {
        (PathBuf::from("src"), "src/")
    } else {
        (PathBuf::new(), "the folder itself")
    };
    let leads = outside.describe(written, dir);
    notes.push(super::note(
        dir.join("book.toml"),
        None,
        format!("src = \"{written}\" {leads}; {shown} was used"),
    ));
    used
}

/// Why a file of an mdBook was not used; its message becomes one of `init`'s notes.
#[derive(Debug, thiserror::Error)]
enum Unusable {
    /// It could not be read (refused by the project's boundary, too large…).
    #[error(transparent)]
    Read(#[from] crate::error::Error),
    /// Its bytes are not UTF-8.
    #[error("{}: not UTF-8", crate::escape::path(.0))]
    NotUtf8(PathBuf),
    /// `book.toml` is not one (the parser's message, and its line where it gives one).
    #[error("book.toml: {message}")]
    Toml {
        /// The parser's message.
        message: String,
        /// The 1-based line and column (in characters) it points at.
        at: Option<(usize, usize)>,
    },
}

impl Unusable {
    /// The note `init` gives for `path`: at the error's own place (the bad byte, the line the
    /// TOML parser points at) where it has one.
    fn note(&self, path: &Path) -> Diagnostic {
        match self {
            Unusable::Read(e) => super::note_of(e),
            Unusable::NotUtf8(p) => super::note(p, None, "not UTF-8"),
            Unusable::Toml { message, at } => {
                let note = super::note(path, at.map(|a| a.0), message.clone());
                match at {
                    Some((_, column)) => note.column(*column),
                    None => note,
                }
            }
        }
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn place_of(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = memchr::memchr_iter(b'\n', before.as_bytes()).count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

/// A file of the book as UTF-8 text, opened through `boundary`.
fn read_text(boundary: &crate::project::Boundary, path: &Path) -> Result<String, Unusable> {
    let bytes = boundary.read_limited(path, MAX_FILE_BYTES, "file")?;
    String::from_utf8(bytes).map_err(|_| Unusable::NotUtf8(path.to_path_buf()))
}

/// Reads `SUMMARY.md` into its chapters, in order.
pub fn parse_summary(text: &str) -> Vec<Entry> {
    let mut reader = SummaryReader::default();
    // Links start in order: the line of each is counted on from the last.
    let (mut at, mut line) = (0, 1);
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        if matches!(event, Event::Start(Tag::Link { .. })) && range.start >= at {
            let between = text.get(at..range.start).unwrap_or_default();
            line += memchr::memchr_iter(b'\n', between.as_bytes()).count();
            at = range.start;
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            reader.at = (line, text[line_start..at].chars().count() + 1);
        }
        reader.event(event);
    }
    reader.entries
}

#[derive(Default)]
struct SummaryReader {
    entries: Vec<Entry>,
    /// Anything but the summary's own title seen yet.
    started: bool,
    /// A list seen: links in paragraphs are suffix chapters from now on.
    numbered: bool,
    /// The current part's title.
    part: Option<String>,
    /// List nesting: 1 inside a top-level list.
    depth: usize,
    /// Inside a level-1 heading: its text so far.
    heading: Option<String>,
    /// Inside a link: its destination and text so far.
    link: Option<(String, String)>,
    /// The item at each depth already has its link (only an item's first link is a chapter).
    item_linked: Vec<bool>,
    /// The line and column the last link started at.
    at: (usize, usize),
}

impl SummaryReader {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) => self.heading = Some(String::new()),
            Event::End(TagEnd::Heading(HeadingLevel::H1)) => {
                let title = self.heading.take().unwrap_or_default();
                // The first heading before anything else is the summary's title.
                if self.started {
                    self.part = Some(collapse(&title));
                    self.numbered = true;
                }
                self.started = true;
            }
            Event::Start(Tag::List(_)) => {
                self.depth += 1;
                self.numbered = true;
                self.started = true;
            }
            Event::End(TagEnd::List(_)) => self.depth = self.depth.saturating_sub(1),
            Event::Start(Tag::Item) => {
                self.item_linked.truncate(self.depth.saturating_sub(1));
                self.item_linked.push(false);
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                self.link = Some((dest_url.to_string(), String::new()));
                self.started = true;
            }
            Event::End(TagEnd::Link) => self.end_link(),
            Event::Text(t) | Event::Code(t) => self.text(&t),
            Event::SoftBreak | Event::HardBreak => self.text(" "),
            _ => {}
        }
    }

    fn text(&mut self, t: &str) {
        if let Some((_, text)) = &mut self.link {
            text.push_str(t);
        } else if let Some(heading) = &mut self.heading {
            heading.push_str(t);
        }
    }

    fn end_link(&mut self) {
        let Some((dest, text)) = self.link.take() else {
            return;
        };
        if self.heading.is_some() {
            // A link in a part heading is part of its title.
            self.text(&text);
            return;
        }
        let place = if self.depth > 0 {
            match self.item_linked.last_mut() {
                Some(linked) if !*linked => *linked = true,
                _ => return,
            }
            Place::Numbered(self.part.clone())
        } else if self.numbered {
            Place::Suffix
        } else {
            Place::Prefix
        };
        let file = dest.split('#').next().unwrap_or("").trim();
        self.entries.push(Entry {
            title: collapse(&text),
            file: (!file.is_empty()).then(|| percent_decode(file)),
            level: self.depth.max(1),
            place,
            line: self.at.0,
            column: self.at.1,
        });
    }
}

/// The text with runs of white space made one space.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `%20` and the like decoded, as mdBook reads link paths; anything malformed kept as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|&b| hex(b)),
                bytes.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of the mdBook guide's SUMMARY.md.
    const GUIDE: &str = "# Summary\n\n[Introduction](README.md)\n\n# User guide\n\n- [Installation](guide/installation.md)\n- [Reading books](guide/reading.md)\n\n# Reference guide\n\n- [Command-line tool](cli/README.md)\n    - [init](cli/init.md)\n- [Format](format/README.md)\n    - [SUMMARY.md](format/summary.md)\n        - [Draft chapter]()\n    - [`mdbook`-specific *features*](format/mdbook.md)\n- [Continuous integration](continuous%20integration.md#top)\n\n-----------\n\n[Contributors](misc/contributors.md)\n";

    #[test]
    fn summary_gives_prefix_parts_nesting_drafts_and_suffix() {
        let entries = parse_summary(GUIDE);
        // Each at the line of SUMMARY.md its link is on (for init's notes).
        let lines: Vec<usize> = entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, [3, 7, 8, 12, 13, 14, 15, 16, 17, 18, 22]);
        let columns: Vec<usize> = entries.iter().map(|e| e.column).collect();
        assert_eq!(columns, [1, 3, 3, 3, 7, 3, 7, 11, 7, 3, 1]);
        let shape: Vec<(&str, Option<&str>, usize, Place)> = entries
            .iter()
            .map(|e| {
                (
                    e.title.as_str(),
                    e.file.as_deref(),
                    e.level,
                    e.place.clone(),
                )
            })
            .collect();
        let user = || Place::Numbered(Some("User guide".into()));
        let reference = || Place::Numbered(Some("Reference guide".into()));
        assert_eq!(
            shape,
            [
                ("Introduction", Some("README.md"), 1, Place::Prefix),
                ("Installation", Some("guide/installation.md"), 1, user()),
                ("Reading books", Some("guide/reading.md"), 1, user()),
                ("Command-line tool", Some("cli/README.md"), 1, reference()),
                ("init", Some("cli/init.md"), 2, reference()),
                ("Format", Some("format/README.md"), 1, reference()),
                ("SUMMARY.md", Some("format/summary.md"), 2, reference()),
                ("Draft chapter", None, 3, reference()),
                (
                    "mdbook-specific features",
                    Some("format/mdbook.md"),
                    2,
                    reference()
                ),
                (
                    "Continuous integration",
                    Some("continuous integration.md"),
                    1,
                    reference()
                ),
                (
                    "Contributors",
                    Some("misc/contributors.md"),
                    1,
                    Place::Suffix
                ),
            ]
        );
    }

    #[test]
    fn a_summary_without_parts_numbers_its_lists_and_a_title_is_no_part() {
        // The Rust book's shape: a title, prefix chapters, lists separated by blank lines.
        let text = "# The Rust Programming Language\n\n[The Rust Programming Language](title-page.md)\n[Foreword](foreword.md)\n\n- [Getting Started](ch01-00-getting-started.md)\n  - [Installation](ch01-01-installation.md)\n  - [Hello, World!](ch01-02-hello-world.md)\n\n- [Programming a Guessing Game](ch02-00-guessing-game-tutorial.md)\n";
        let entries = parse_summary(text);
        let shape: Vec<(&str, usize, Place)> = entries
            .iter()
            .map(|e| (e.title.as_str(), e.level, e.place.clone()))
            .collect();
        assert_eq!(
            shape,
            [
                ("The Rust Programming Language", 1, Place::Prefix),
                ("Foreword", 1, Place::Prefix),
                ("Getting Started", 1, Place::Numbered(None)),
                ("Installation", 2, Place::Numbered(None)),
                ("Hello, World!", 2, Place::Numbered(None)),
                ("Programming a Guessing Game", 1, Place::Numbered(None)),
            ]
        );
    }

    #[test]
    fn book_toml_gives_metadata_and_the_chapter_folder() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("book.toml"),
            "[book]\ntitle = \"T\"\nauthors = [\"A\", \"B\"]\nlanguage = \"en\"\nsrc = \"text\"\n[output.html]\nx = 1\n",
        )
        .unwrap();
        std::fs::create_dir(d.join("text")).unwrap();
        std::fs::write(d.join("text/SUMMARY.md"), "- [One](one.md)\n").unwrap();
        let book = find(d, &crate::project::Boundary::new(d, false)).unwrap();
        assert_eq!(book.src, PathBuf::from("text"));
        assert_eq!(book.title.as_deref(), Some("T"));
        assert_eq!(book.authors, ["A", "B"]);
        assert_eq!(book.language.as_deref(), Some("en"));
        assert_eq!(book.summary.unwrap().len(), 1);
        // The singular `author` many books write is their author too.
        std::fs::write(
            d.join("book.toml"),
            "[book]\nauthor = \"Solo\"\nsrc = \"text\"\n",
        )
        .unwrap();
        let book = find(d, &crate::project::Boundary::new(d, false)).unwrap();
        assert_eq!(book.authors, ["Solo"]);
        std::fs::write(d.join("book.toml"), "[book]\nsrc = \"../elsewhere\"\n").unwrap();
        let book = find(d, &crate::project::Boundary::new(d, false)).unwrap();
        assert_eq!(book.src, PathBuf::from("src"));
        assert!(
            book.notes[0]
                .message
                .contains("points outside the project folder"),
            "{:?}",
            book.notes
        );
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(outside.path(), d.join("out")).unwrap();
            std::fs::write(d.join("book.toml"), "[book]\nsrc = \"out\"\n").unwrap();
            let book = find(d, &crate::project::Boundary::new(d, false)).unwrap();
            assert_eq!(book.src, PathBuf::from("src"), "{:?}", book.notes);
        }
        std::fs::remove_file(d.join("book.toml")).unwrap();
        assert_eq!(find(d, &crate::project::Boundary::new(d, false)), None);
    }
}
