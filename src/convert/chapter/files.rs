//! The files a chapter reads besides itself: the pictures it shows and the files its mdBook
//! `{{#include}}` directives name.
//!
//! Apart because these are the reads that go through the project's containment check one by
//! one, and whose failures are warnings at the chapter's line (the build goes on without the
//! picture, or with the directive as written), never a stop, except a spent include budget.

use std::path::{Path, PathBuf};

use crate::book::Image;
use crate::convert::includes::{Budget, ReadError};
use crate::convert::{self, PictureError};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::project::{ChapterSource, Found, Project};
use crate::source;

/// Converts with picture lines resolved through [`readable_image`] (a picture that cannot be
/// read is warned about and stays text).
pub(super) fn with_pictures<T>(
    project: &Project,
    src: &ChapterSource,
    (text, images, warnings): (&str, &mut Vec<Image>, &mut Vec<Diagnostic>),
    convert: impl FnOnce(convert::Pictures<'_>) -> T,
) -> Result<T> {
    let mut warned = std::collections::HashSet::new();
    let mut resolve = |path: &str| {
        let sinks = (&mut *images, &mut *warnings, &mut warned);
        readable_image(project, (&src.path, text), path, sinks)
    };
    Ok(convert(&mut resolve))
}

/// [`resolve_image`]; a picture that cannot be read (missing, outside the project,
/// unreadable) is an `unreadable-image` warning at its line of the chapter's `text`, once per
/// path (`warned`), and the caller keeps its alt text: mdBook and pandoc build such a book.
pub(super) fn readable_image(
    project: &Project,
    (chapter, text): (&Path, &str),
    path: &str,
    (images, warnings, warned): (
        &mut Vec<Image>,
        &mut Vec<Diagnostic>,
        &mut std::collections::HashSet<String>,
    ),
) -> std::result::Result<String, PictureError> {
    let resolved = resolve_image(project, chapter, path, images, warnings);
    if let Err(why) = &resolved
        && warned.insert(path.to_string())
    {
        let line = text
            .find(path)
            .map(|at| text[..at].matches('\n').count() + 1);
        let message = format!("picture {path:?} cannot be read: {why}; its alt text is kept");
        warnings.push(
            Diagnostic::warning(Code::UnreadableImage, message)
                .at(chapter)
                .line(line)
                .hint("fix the path (relative to the chapter file); build --strict refuses the book until then"),
        );
    }
    resolved
}

/// Largest file an mdBook `{{#include}}` may pull in.
pub(super) const MAX_INCLUDED_BYTES: u64 = 16 << 20;

/// A Markdown chapter's text with its mdBook `{{#include}}` directives resolved; what could not
/// be is warned about where it is written and left as it was. Running out of the book's
/// `budget` stops the build, naming the directive.
pub(super) fn resolve_includes(
    project: &Project,
    chapter: &Path,
    text: &str,
    budget: &Budget,
    warnings: &mut Vec<Diagnostic>,
) -> Result<String> {
    let mut read = |dir: &Path, written: &str| include_file(project, dir, written);
    let (text, problems) =
        convert::includes::resolve(text, chapter, &mut read, budget).map_err(|w| {
            Error::Budget {
                path: w.path,
                line: Some(w.line),
                message: w.message,
                hint: Some(INCLUDE_BUDGET_HINT.into()),
            }
        })?;
    warnings.extend(problems.into_iter().map(|w| match w.unknown {
        true => Diagnostic::warning(Code::UnknownDirective, w.message)
            .at(&w.path)
            .line(Some(w.line))
            .hint("they belong to mdBook preprocessors epubforge does not run; write their output into the chapter if the book needs it"),
        false => Diagnostic::warning(Code::Include, w.message)
            .at(&w.path)
            .line(Some(w.line))
            .hint("mdBook resolves an include's path from the folder of the file that includes it"),
    }));
    Ok(text)
}

pub(super) const INCLUDE_BUDGET_HINT: &str = "a file that includes itself (or a file that includes it) several times grows exponentially; include each listing once";

/// The file an include names, read (and decoded as chapters are) when the project's one
/// containment check admits it, as an image is (`--allow-outside-paths` lets it out the same way).
pub(super) fn include_file(
    project: &Project,
    dir: &Path,
    written: &str,
) -> std::result::Result<(PathBuf, String), ReadError> {
    let (path, found) = (project.boundary)
        .admit_file(dir, written)
        .map_err(|outside| ReadError::Outside {
            written: written.to_string(),
            sentence: outside.sentence(written, &project.root),
        })?;
    if let Found::Missing = found {
        return Err(ReadError::Missing(path));
    }
    let bytes = (project.boundary)
        .read_limited(&path, MAX_INCLUDED_BYTES, "included file")
        .map_err(ReadError::Unreadable)?;
    match source::decode(&bytes, None, source::EncodingErrors::Fail) {
        Ok(decoded) => Ok((path, decoded.text)),
        Err(source) => Err(ReadError::Undecodable { path, source }),
    }
}

/// Resolves an image referenced by a Markdown or HTML chapter: a real image inside the project
/// (the project's containment check, before anything is opened: a FIFO or `/dev/zero` outside
/// is never read), read, checked and named by `media::image::carry`, so the same image used
/// twice is stored once. What was removed from an SVG is added to `warnings`.
pub(super) fn resolve_image(
    project: &Project,
    chapter: &Path,
    src: &str,
    images: &mut Vec<Image>,
    warnings: &mut Vec<Diagnostic>,
) -> std::result::Result<String, PictureError> {
    let dir = chapter.parent().unwrap_or(Path::new("."));
    let path = (project.boundary)
        .admit(dir, src)
        .map_err(|outside| PictureError::Outside(outside.sentence(src, &project.root)))?;
    let name = crate::media::image::carry(&project.boundary, &path, images, warnings)?;
    Ok(format!("../images/{name}"))
}
