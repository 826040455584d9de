//! The reading order as written (`[[chapters]]`, `[[parts]]`, `[[suffix-chapters]]`),
//! validated into [`ContentEntry`]s: each entry's settings checked, its file admitted through
//! the project's boundary, its glob expanded.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use toml::Spanned;

use super::{Chapter, Part};
use crate::book::SplitMode;
use crate::error::{Error, Result};
use crate::project::boundary::Found;
use crate::project::context::Ctx;
use crate::project::glob::{GlobError, Skip};
use crate::project::values::{self, Lines as ValueLines};
use crate::project::{ChapterSource, ContentEntry, FileStamp};
use crate::source::EncodingErrors;

/// The reading order: every chapter entry expanded, parts with theirs.
pub(super) fn contents(
    chapters: Vec<Spanned<Chapter>>,
    parts: Vec<Spanned<Part>>,
    suffix_chapters: Vec<Spanned<Chapter>>,
    ctx: &Ctx<'_>,
    skip: &Skip,
) -> Result<Vec<ContentEntry>> {
    let mut contents: Vec<ContentEntry> = expand_all(chapters, ctx, skip)?
        .into_iter()
        .map(ContentEntry::Chapter)
        .collect();
    for part in parts {
        let offset = part.span().start;
        let part = part.into_inner();
        let title = values::clean(&part.title, ValueLines::One);
        if title.is_empty() && !part.title.trim().is_empty() {
            let message = format!("a [[parts]] entry's {}", values::nothing_left("title"));
            return Err(ctx.error_hinted(offset, message, values::NOTHING_LEFT_HINT));
        }
        if title.is_empty() {
            return Err(ctx.error_at(offset, "a [[parts]] entry has an empty `title`"));
        }
        let chapters = expand_all(part.chapters, ctx, skip)?;
        if chapters.is_empty() {
            return Err(ctx.error_hinted(
                offset,
                format!("part \"{title}\" has no chapters"),
                "add [[parts.chapters]] entries under it",
            ));
        }
        contents.push(ContentEntry::Part { title, chapters });
    }
    contents.extend(
        expand_all(suffix_chapters, ctx, skip)?
            .into_iter()
            .map(ContentEntry::Chapter),
    );
    if contents.is_empty() {
        return Err(Error::Metadata {
            path: ctx.path.to_path_buf(),
            message: "the book has no chapters".into(),
            hint: Some(
                "add entries such as\n\n  [[chapters]]\n  file = \"chapters/001.txt\"\n".into(),
            ),
        });
    }
    Ok(contents)
}

/// Every entry of a list of chapter entries expanded, in order; the first entry's error in
/// order is the one reported, as when they are expanded one by one. A list of files only (a
/// hand-kept book lists thousands) is checked on every core: each entry looks at its file;
/// a list with globs is expanded in order, one entry after the other.
fn expand_all(
    entries: Vec<Spanned<Chapter>>,
    ctx: &Ctx,
    skip: &Skip,
) -> Result<Vec<ChapterSource>> {
    if entries.iter().any(|e| e.get_ref().glob.is_some()) {
        let mut out = Vec::new();
        for entry in entries {
            // Extended at once, not pushed one by one: a glob can bring thousands of entries.
            out.extend(expand(entry, ctx, skip)?);
        }
        return Ok(out);
    }
    let expanded: Vec<Result<Vec<ChapterSource>>> = entries
        .into_par_iter()
        .with_min_len(64)
        .map(|entry| expand(entry, ctx, skip))
        .collect();
    let mut out = Vec::with_capacity(expanded.len());
    for one in expanded {
        out.extend(one?);
    }
    Ok(out)
}

/// One `[[chapters]]` entry: a file, or the files a glob matches in natural order.
fn expand(entry: Spanned<Chapter>, ctx: &Ctx, skip: &Skip) -> Result<Vec<ChapterSource>> {
    let offset = entry.span().start;
    let line = Some(ctx.line_of(offset));
    let entry = entry.into_inner();
    let title = chapter_title(entry.title.as_deref(), ctx, offset)?;
    if let Some(enc) = &entry.encoding
        && encoding_rs::Encoding::for_label(enc.trim().as_bytes()).is_none()
    {
        return Err(ctx.error_hinted(
            offset,
            format!("unknown encoding \"{enc}\""),
            "use a WHATWG label such as \"utf-8\", \"gb18030\", \"gbk\", \"big5\", \"shift_jis\"",
        ));
    }
    let encoding_errors = match entry.encoding_errors.as_deref().map(str::trim) {
        None | Some("fail") => EncodingErrors::Fail,
        Some("replace") => EncodingErrors::Replace,
        Some(other) => {
            return Err(ctx.error_at(
                offset,
                format!("`encoding-errors` = \"{other}\" is not one of \"fail\", \"replace\""),
            ));
        }
    };
    let split = match (&entry.split, &entry.volume_split) {
        (None, None) => None,
        (None, Some(_)) => {
            return Err(ctx.error_at(
                offset,
                "`volume-split` needs `split` too, e.g. split = \"第.+章\"",
            ));
        }
        (Some(split), volume) => Some(
            SplitMode::from_config(split, volume.as_deref())
                .map_err(|e| ctx.error_at(offset, format!("{e}")))?,
        ),
    };
    // A file cut at heading levels may name the text before its first heading.
    if split.is_some() && title.is_some() && !matches!(split, Some(SplitMode::Headings(_))) {
        return Err(ctx.error_at(
            offset,
            "`title` cannot be used with `split` (each chapter found in the file gets its heading as title)",
        ));
    }
    let level = chapter_level(entry.level.as_ref(), split.is_some(), ctx)?;
    let format = chapter_format(entry.format.as_deref(), ctx, offset)?;
    let template = ChapterSource {
        path: PathBuf::new(),
        title,
        line,
        encoding: entry.encoding.clone(),
        encoding_errors,
        split,
        level,
        format,
        stamp: None,
        volume: None,
        linear: entry.linear.unwrap_or(true),
        toc: entry.toc.unwrap_or(true),
        heading: entry.heading.unwrap_or(true),
        sections: chapter_sections(entry.sections, ctx, offset)?,
    };
    match (&entry.file, &entry.glob) {
        (Some(file), None) => chapter_file(ctx, file, template).map(|c| vec![c]),
        (None, Some(_)) if template.title.is_some() => Err(ctx.error_at(
            offset,
            "`title` cannot be used with `glob` (each matched file gets its own title)",
        )),
        (None, Some(pattern)) => chapter_glob(ctx, skip, pattern, offset, &template),
        (Some(_), Some(_)) => Err(ctx.error_at(
            offset,
            "a chapter entry has both `file` and `glob`; use one of them",
        )),
        (None, None) => Err(ctx.error_at(
            offset,
            "a chapter entry needs `file = \"...\"` or `glob = \"...\"`",
        )),
    }
}

/// A chapter entry's `title` (at `offset`), cleaned: None when written empty; an error when
/// it had text and nothing is left.
fn chapter_title(title: Option<&str>, ctx: &Ctx, offset: usize) -> Result<Option<String>> {
    let Some(written) = title.filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    match values::clean(written, ValueLines::One) {
        t if t.is_empty() => {
            let message = format!("a chapter entry's {}", values::nothing_left("title"));
            Err(ctx.error_hinted(offset, message, values::NOTHING_LEFT_HINT))
        }
        t => Ok(Some(t)),
    }
}

/// A chapter entry's `sections`: each an id (none: a heading-only entry), a title and a level
/// from 1 (beside the chapter) or 2 (right under it) to 6, 2 when not given; a heading-only
/// entry may be 0, a level above the chapter (an EPUB's volume heading after a chapter of the
/// volume before).
fn chapter_sections(
    sections: Option<Vec<super::RawSection>>,
    ctx: &Ctx,
    offset: usize,
) -> Result<Option<Box<crate::project::Sections>>> {
    let Some(sections) = sections else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(sections.len());
    for s in sections {
        let level = s.level.unwrap_or(2);
        // Without an id, a heading-only entry: it needs a title to show.
        let blank_id = s.id.as_deref().is_some_and(|i| i.trim().is_empty());
        let id = s.id.unwrap_or_default();
        let nameless = blank_id || (id.is_empty() && s.title.trim().is_empty());
        let lowest = i64::from(!id.is_empty());
        if !(lowest..=MAX_LEVEL).contains(&level) || nameless {
            return Err(ctx.error_at(
                offset,
                format!(
                    "a `sections` entry needs an id (or, heading only, a title) and a level from 1 (0 heading only) to {MAX_LEVEL} (\"{id}\", level {level})"
                ),
            ));
        }
        out.push(crate::book::Section {
            level: level as usize,
            id,
            title: values::clean(&s.title, ValueLines::One),
        });
    }
    Ok(Some(Box::new(crate::project::Sections(out))))
}

/// A chapter entry's `format`: what the file holds, whatever its extension.
fn chapter_format(
    format: Option<&str>,
    ctx: &Ctx,
    offset: usize,
) -> Result<Option<crate::project::ChapterFormat>> {
    use crate::project::ChapterFormat;
    match format.map(str::trim) {
        None => Ok(None),
        Some("markdown") => Ok(Some(ChapterFormat::Markdown)),
        Some("text") => Ok(Some(ChapterFormat::Text)),
        Some("html") => Ok(Some(ChapterFormat::Html)),
        Some(other) => Err(ctx.error_at(
            offset,
            format!("`format` = \"{other}\" is not one of \"markdown\", \"text\", \"html\""),
        )),
    }
}

/// Deepest `level` of a chapter in the table of contents.
const MAX_LEVEL: i64 = 6;

/// A chapter entry's `level`: 1 (the default) at the top of the contents, 2 under the chapter
/// before it, and so on, as mdBook's `SUMMARY.md` nests sub-chapters.
fn chapter_level(level: Option<&Spanned<i64>>, split: bool, ctx: &Ctx) -> Result<usize> {
    let Some(level) = level else {
        return Ok(1);
    };
    let at = level.span().start;
    if split {
        return Err(ctx.error_at(
            at,
            "`level` cannot be used with `split` (the headings found in the file give the levels)",
        ));
    }
    match usize::try_from(*level.get_ref()) {
        Ok(n) if (1..=MAX_LEVEL as usize).contains(&n) => Ok(n),
        _ => Err(ctx.error_hinted(
            at,
            format!(
                "`level` = {} is not between 1 and {MAX_LEVEL}",
                level.get_ref()
            ),
            "1 is the top of the table of contents, 2 a chapter under the one before",
        )),
    }
}

/// The chapter `file = "..."`: inside the project folder and a regular file, with the stamp
/// of the one look at it that the load takes.
fn chapter_file(
    ctx: &Ctx,
    file: &Spanned<String>,
    template: ChapterSource,
) -> Result<ChapterSource> {
    let (path, found) = ctx.input("`file`", file.get_ref(), file.span().start)?;
    refuse_unsupported(&path)?;
    match found {
        Found::File { meta, linked } => Ok(ChapterSource {
            path,
            stamp: if linked { None } else { FileStamp::of(&meta) },
            ..template
        }),
        Found::Held(stamp) => Ok(ChapterSource {
            path,
            stamp: Some(stamp),
            ..template
        }),
        Found::Missing => Err(Error::MissingChapter {
            path,
            metadata: ctx.path.to_path_buf(),
            line: template.line,
        }),
        Found::NotRegular(kind) => Err(ctx.not_regular("`file`", &path, kind, file.span().start)),
    }
}

/// A chapter in a format we do not read is refused by name, not read as text.
fn refuse_unsupported(path: &Path) -> Result<()> {
    match crate::project::unsupported_kind(path) {
        Some((format, tool)) => Err(Error::UnsupportedFormat {
            path: path.to_path_buf(),
            format,
            tool,
        }),
        None => Ok(()),
    }
}

/// The chapters `glob = "..."` (the entry at `offset`) matches, in natural order.
fn chapter_glob(
    ctx: &Ctx,
    skip: &Skip,
    pattern: &Spanned<String>,
    offset: usize,
    template: &ChapterSource,
) -> Result<Vec<ChapterSource>> {
    let pattern_offset = pattern.span().start;
    let pattern = pattern.get_ref();
    ctx.admit("`glob`", pattern, pattern_offset)?;
    let files =
        crate::project::glob::expand(pattern, skip, &ctx.boundary).map_err(|e| match e {
            GlobError::Syntax(e) => {
                ctx.error_at(offset, format!("invalid glob \"{pattern}\": {e}"))
            }
            GlobError::Outside(shown, outside) => {
                ctx.refuse("`glob`", &shown, pattern_offset, &outside)
            }
        })?;
    if files.is_empty() {
        return Err(ctx.error_hinted(
            offset,
            format!("glob \"{pattern}\" matches no files"),
            "paths are relative to the folder of metadata.toml",
        ));
    }
    for m in &files {
        refuse_unsupported(&m.path)?;
    }
    if let Ok(mut seen) = ctx.seen.lock() {
        seen.ids.extend(files.iter().filter_map(|m| m.id));
        seen.globs.push(pattern.clone());
    }
    Ok(files
        .into_iter()
        .map(|m| ChapterSource {
            path: m.path,
            stamp: m.stamp,
            ..template.clone()
        })
        .collect())
}
