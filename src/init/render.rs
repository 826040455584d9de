//! The text of the `metadata.toml` that `init` writes: `[book]`, the optional keys as
//! comments, `[text]` with the cleanup preset when the text has site lines, what init could
//! not follow as comments, then the chapters: `[[chapters]]`, each
//! part's `[[parts]]` and `[[parts.chapters]]`, and `[[suffix-chapters]]`, in reading order.

use std::fmt::Write as _;

use super::{ChapterGuess, Placement};

/// What goes into the file.
pub(super) struct Book<'a> {
    pub title: &'a str,
    /// Empty: a placeholder to replace.
    pub authors: &'a [String],
    pub language: &'a str,
    pub cover: Option<&'a str>,
    /// The package document of an EPUB source tree: its identifier, description and
    /// stylesheets are written too.
    pub package: Option<&'a super::opf::OpfBook>,
    /// A lone Markdown file's front matter `description`.
    pub description: Option<&'a str>,
    /// A lone Markdown file's front matter `date`, `YYYY-MM-DD`.
    pub published: Option<&'a str>,
    /// The cleanup preset to turn on, and how many lines of the text it removes.
    pub preset: Option<(&'a str, usize)>,
    pub chapters: &'a [ChapterGuess],
    pub notes: &'a [String],
    /// What a Japanese file's header block adds: a subtitle, translators and editors.
    pub japanese: Option<&'a super::japanese::AozoraHeader>,
    /// Japanese fiction in plain text: `[layout] writing-mode = "vertical-rl"` is written.
    pub vertical: bool,
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A text value found in the files (a title, a name), cleaned as the load cleans it
/// ([`crate::project::values`]); None when nothing is left.
fn text(s: &str) -> Option<String> {
    let cleaned = crate::project::values::clean(s, crate::project::values::Lines::One);
    (!cleaned.is_empty()).then(|| quote(&cleaned))
}

/// The text of the metadata file.
pub(super) fn metadata(book: &Book<'_>) -> String {
    let mut out = String::new();
    out.push_str("# Written by `epubforge init`. Edit freely; `epubforge check` reviews it,\n");
    out.push_str(
        "# `epubforge build` makes the EPUB. Paths are relative to this file's folder.\n\n",
    );
    out.push_str("[book]\n");
    let title = text(book.title).unwrap_or_else(|| quote("Untitled"));
    let _ = writeln!(out, "title = {title}");
    let authors: Vec<String> = book.authors.iter().filter_map(|a| text(a)).collect();
    if authors.is_empty() {
        let placeholder = if book.language.starts_with("zh") {
            "佚名"
        } else if book.language.starts_with("ja") {
            "作者不詳"
        } else {
            "Unknown"
        };
        let _ = writeln!(
            out,
            "authors = [{}]  # replace with the real author(s)",
            quote(placeholder)
        );
    } else {
        let _ = writeln!(out, "authors = [{}]", authors.join(", "));
    }
    let _ = writeln!(out, "language = {}", quote(book.language));
    if let Some(h) = book.japanese {
        japanese_keys(&mut out, h);
    }
    if let Some(cover) = book.cover {
        let _ = writeln!(out, "cover = {}", quote(cover));
    }
    // A package's description wins: its keys are written after these (once each).
    let own = book.package.is_none_or(|p| p.description.is_none());
    if let Some(description) = book.description.filter(|_| own).and_then(text) {
        let _ = writeln!(out, "description = {description}");
    }
    if let Some(date) = book
        .published
        .filter(|d| d.parse::<toml::value::Datetime>().is_ok())
    {
        let _ = writeln!(out, "published = {date}");
    }
    if let Some(p) = book.package {
        package_keys(&mut out, p);
    }
    out.push_str(OPTIONAL_KEYS);
    if book.vertical {
        out.push_str(VERTICAL);
    }
    if let Some((preset, lines)) = book.preset {
        let _ = writeln!(
            out,
            "\n[text]\ncleanup-preset = {}   # {lines} lines of site text found; `epubforge check` lists them",
            quote(preset)
        );
    }
    if !book.notes.is_empty() {
        out.push_str("\n# Not followed:\n");
        for note in book.notes {
            // A comment holds no control character (TOML refuses them): a file name may.
            let note = crate::escape::value(&note.replace('\n', " ")).into_owned();
            let _ = writeln!(out, "#   {note}");
        }
    }
    chapters(&mut out, book.chapters);
    out
}

/// What an EPUB source tree's package document says beyond title, authors, language and
/// cover: its identifier and description under `[book]`, its stylesheets as `[style] css`.
fn package_keys(out: &mut String, p: &super::opf::OpfBook) {
    if let Some(id) = p.identifier.as_deref().and_then(text) {
        let _ = writeln!(out, "identifier = {id}");
    }
    if let Some(d) = p.description.as_deref().and_then(text) {
        let _ = writeln!(out, "description = {d}");
    }
    let _ = writeln!(out, "# read from {}", p.opf);
    if !p.stylesheets.is_empty() {
        let css: Vec<String> = p.stylesheets.iter().map(|c| quote(c)).collect();
        let _ = writeln!(out, "\n[style]\ncss = [{}]", css.join(", "));
    }
}

/// Japanese fiction's layout: vertical, pages turning to the left.
const VERTICAL: &str = "
[layout]
writing-mode = \"vertical-rl\"   # Japanese text, set vertically (pages turn right to left); \"horizontal-tb\" for horizontal
";

/// A Japanese header block's subtitle and its translators and editors as `contributors`.
fn japanese_keys(out: &mut String, h: &super::japanese::AozoraHeader) {
    if let Some(subtitle) = h.subtitle.as_deref().and_then(text) {
        let _ = writeln!(out, "subtitle = {subtitle}");
    }
    let people: Vec<String> = h
        .contributors
        .iter()
        .filter_map(|(name, role)| {
            text(name).map(|n| format!("{{ name = {n}, role = {} }}", quote(role)))
        })
        .collect();
    if !people.is_empty() {
        let _ = writeln!(out, "contributors = [{}]", people.join(", "));
    }
}

/// The keys an author may add, as comments.
const OPTIONAL_KEYS: &str = "\
# Optional keys:
# subtitle = \"...\"
# description = \"A blurb; reading apps and stores show it.\"
# publisher = \"...\"
# published = 2026-01-31
# subjects = [\"fiction\"]
# identifier = \"urn:isbn:9780306406157\"   # default: a stable urn:uuid from title and authors
# series = \"...\"
# series-index = 1
# rights = \"...\"
# contributors = [{ name = \"...\", role = \"trl\" }]   # trl translator, edt editor, ill illustrator
# cover = \"covers/cover.jpg\"

# [output]
# path = \"build/book.epub\"

# Each chapter: `file` (or `glob = \"chapters/*.txt\"`), optional `title`, `level = 2` to nest
# it under the chapter before, and for files that are not UTF-8 `encoding = \"gb18030\"` (and
# `encoding-errors = \"replace\"` for damaged bytes); `split = \"auto\"` makes chapters of a text
# file at its headings, `split = \"h2\"` of a Markdown or HTML file at its h2 (and h1). Chapters can also be grouped: [[parts]] title = \"...\" with
# [[parts.chapters]] under it, and [[suffix-chapters]] come after the parts.
";

/// The chapter entries, grouped into parts.
fn chapters(out: &mut String, chapters: &[ChapterGuess]) {
    let mut part: Option<&str> = None;
    for c in chapters {
        let table = match &c.placement {
            Placement::Chapters => "[[chapters]]",
            Placement::Part(title) => {
                if part != Some(title.as_str()) {
                    let shown = text(title).unwrap_or_else(|| quote("Part"));
                    let _ = write!(out, "\n[[parts]]\ntitle = {shown}\n");
                    part = Some(title);
                }
                "[[parts.chapters]]"
            }
            Placement::Suffix => "[[suffix-chapters]]",
        };
        let _ = write!(out, "\n{table}\nfile = {}\n", quote(&c.file));
        if let Some(t) = c.title.as_deref().and_then(text) {
            let _ = writeln!(out, "title = {t}");
        }
        if c.level > 1 {
            let _ = writeln!(out, "level = {}", c.level);
        }
        if let Some(split) = &c.split {
            let _ = writeln!(out, "split = {}", quote(split));
        }
        if let Some(format) = &c.format {
            let _ = writeln!(out, "format = {}", quote(format));
        }
        if let Some(e) = &c.encoding {
            let _ = writeln!(out, "encoding = {}", quote(e));
        }
        if !c.linear {
            out.push_str("linear = false\n");
        }
    }
}
