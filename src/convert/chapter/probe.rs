//! What `init` and `check` ask of a chapter file without building it: the title its text
//! gives itself, the heading level to split it at, how many headings a split finds, and the
//! volumes it is cut into.
//!
//! Kept apart from the conversion because each answers from the same readers the build uses
//! (so `init` writes what the build will find) but builds no chapter.

use super::{boilerplate, fix_text_file, read, relative_path};
use crate::convert::{self, SourceKind, split::SplitMode};
use crate::error::Result;
use crate::project::{ChapterSource, Project};
use crate::text_fix::FileRef;

/// The title a chapter file's text gives itself, found as the build finds it (a heading line
/// in text, a leading heading of any level in Markdown and HTML, else HTML's `<title>`): what
/// `init` writes into `metadata.toml`. Images are not looked at.
pub(crate) fn title_in(kind: SourceKind, text: &str) -> Option<String> {
    let mut no_images = convert::no_images();
    match kind {
        SourceKind::Text => convert::convert_text(text, true).title,
        SourceKind::Markdown => {
            let opts = convert::markup::MarkdownOptions {
                highlight: false,
                ..Default::default()
            };
            convert::convert_markdown(text, &mut no_images, opts, None, None)
                .ok()?
                .title
        }
        SourceKind::Html => {
            let title = convert::convert_html(text, &mut no_images, None, None)
                .ok()?
                .title?;
            Some(convert::gutenberg::book_title(&title).unwrap_or(title))
        }
    }
}

/// The heading level a lone Markdown or HTML file is to be split at (`split = "h2"`): the
/// highest level at which the build's cut (`split = "h6"` cuts at every heading) finds
/// several headings and no chapter holds half the text (else the highest with several);
/// None when no level has two, or for plain text. What `init` writes.
pub(crate) fn split_level(kind: SourceKind, text: &str) -> Option<usize> {
    let mut no_images = convert::no_images();
    let at = Some(convert::markup::SplitAt {
        level: 6,
        file: "./file",
    });
    let converted = match kind {
        SourceKind::Text => return None,
        SourceKind::Markdown => {
            let opts = convert::markup::MarkdownOptions {
                highlight: false,
                ..Default::default()
            };
            convert::convert_markdown(text, &mut no_images, opts, None, at).ok()?
        }
        SourceKind::Html => convert::convert_html(text, &mut no_images, None, at).ok()?,
    };
    let mut counts = [0usize; 7];
    for level in converted.pieces.iter().filter_map(|p| p.level) {
        if let Some(n) = counts.get_mut(level) {
            *n += 1;
        }
    }
    let candidates = || (1..=6).filter(|&l| counts[l] >= 2);
    // Headings that divide the book, not a title page's lines (Gutenberg's `<h2>KATRINE</h2>
    // <h2>A Novel</h2>` over chapters in `<h3>`): no chapter holds half the text.
    let total: usize = converted.pieces.iter().map(|p| p.body.len()).sum();
    let divides = |l: usize| {
        let mut largest = 0;
        let mut current = 0;
        for p in &converted.pieces {
            if p.level.is_some_and(|pl| pl <= l) {
                largest = largest.max(current);
                current = 0;
            }
            current += p.body.len();
        }
        largest.max(current) * 2 <= total
    };
    candidates()
        .find(|&l| divides(l))
        .or_else(|| candidates().next())
}

/// The titles of the volumes that the chapter source `src` (a text file with `split`) is cut
/// into, read, fixed and split as its conversion does it; empty for any other source.
pub(crate) fn volumes_in(project: &Project, src: &ChapterSource) -> Result<Vec<String>> {
    let kind = SourceKind::of_chapter(src);
    let Some(mode) = src.split.as_ref().filter(|_| kind == SourceKind::Text) else {
        return Ok(Vec::new());
    };
    if matches!(mode, SplitMode::Headings(_)) {
        return Ok(Vec::new());
    }
    let decoded = read::read_chapter(&project.boundary, src)?;
    if convert::aozora::is_aozora(&decoded.text) {
        return Ok(Vec::new());
    }
    let (text, _) = boilerplate::text(&decoded.text, kind, &project.layout);
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    let fixed = fix_text_file(project, src, file, &text, (None, &mut Default::default()))?;
    let lines: Vec<&str> = fixed.split('\n').collect();
    Ok(convert::split::split(&lines, mode)
        .sections
        .into_iter()
        .filter_map(|s| s.heading)
        .filter(|h| h.kind == convert::split::HeadingKind::Volume)
        .map(|h| h.title)
        .collect())
}

/// How many volume and chapter headings `split = "auto"` finds in a text file, read as the
/// build reads it (without its Project Gutenberg header and licence): `init` splits a file with
/// several chapters, and the one-command build says how many it found.
pub(crate) fn headings(text: &str) -> Headings {
    if convert::aozora::is_aozora(text) {
        let translated = convert::aozora::translate(text);
        return Headings {
            volumes: 0,
            chapters: translated.headings,
        };
    }
    let (text, _) = boilerplate::text(text, SourceKind::Text, &crate::project::Layout::default());
    let lines: Vec<&str> = text.split('\n').collect();
    let mut counts = Headings::default();
    let split = convert::split::split(&lines, &convert::split::SplitMode::Auto);
    for h in split.sections.iter().filter_map(|s| s.heading.as_ref()) {
        match h.kind {
            convert::split::HeadingKind::Volume => counts.volumes += 1,
            convert::split::HeadingKind::Chapter => counts.chapters += 1,
        }
    }
    counts
}

/// The headings [`headings`] counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Headings {
    /// Volume headings (`第一卷`).
    pub volumes: usize,
    /// Chapter headings (`第一章`, `序章`).
    pub chapters: usize,
}
