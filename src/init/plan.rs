//! Which chapter files `init` reads, in which order: an mdBook's `SUMMARY.md`, a package
//! document's spine, or the folder's chapter files in natural order; what it could not follow
//! becomes a note. Apart from the reading of each file (`examine`), which this only lists.

use std::path::Path;

use super::*;

/// A chapter to list, before its file is read.
pub(super) struct Planned {
    /// Path relative to the project folder, with `/` separators.
    pub(super) file: String,
    /// The title `SUMMARY.md` gives it.
    pub(super) title: Option<String>,
    pub(super) level: usize,
    pub(super) placement: Placement,
    /// False for an EPUB source's `linear="no"` spine item.
    pub(super) linear: bool,
}

/// The chapter files to read: `file` alone, an mdBook's (its `SUMMARY.md`, else its folder), a
/// package document's spine, or the folder's chapter files. An error when there are none.
pub(super) fn plan(
    dir: &Path,
    file: Option<&str>,
    boundary: &Boundary,
    (book, package): (Option<&mdbook::MdBook>, Option<&opf::OpfBook>),
    notes: &mut Vec<Diagnostic>,
) -> Result<Vec<Planned>, InitError> {
    let planned = match (book, file, package) {
        (_, Some(f), _) => vec![Planned::top(f.to_string())],
        (Some(b), None, _) => match &b.summary {
            Some(summary) => from_summary(boundary, &b.src, summary, notes),
            None => listed(dir, &b.src, true, notes)?,
        },
        (None, None, Some(p)) => from_spine(boundary, p, notes),
        (None, None, None) => {
            let found = listed(dir, Path::new(""), false, notes)?;
            refuse_or_note_unsupported(dir, found.len(), notes)?;
            found
        }
    };
    if planned.is_empty() {
        return Err(InitError::NoChapters {
            dir: dir.to_path_buf(),
        });
    }
    Ok(planned)
}

/// The chapters of `SUMMARY.md` whose files exist inside the folder of `boundary`, paths made
/// relative to it; drafts, files leading out, missing files and repeats become notes.
pub(super) fn from_summary(
    boundary: &Boundary,
    src: &Path,
    summary: &[mdbook::Entry],
    notes: &mut Vec<Diagnostic>,
) -> Vec<Planned> {
    let has_parts = summary
        .iter()
        .any(|e| matches!(&e.place, mdbook::Place::Numbered(Some(_))));
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let summary_path = boundary.root().join(src).join("SUMMARY.md");
    for entry in summary {
        let note = |message: String| {
            super::note(&summary_path, Some(entry.line), message).column(entry.column)
        };
        let Some(file) = &entry.file else {
            notes.push(note(format!(
                "draft chapter \"{}\" has no file; left out",
                entry.title
            )));
            continue;
        };
        let rel = slash_path(&src.join(file));
        let dir = boundary.root();
        if let Err(outside) = boundary.admit(dir, &rel) {
            notes.push(note(format!(
                "\"{}\" ({rel}) {}; left out",
                entry.title,
                outside.describe(&rel, dir)
            )));
            continue;
        }
        if !dir.join(&rel).is_file() || SourceKind::known(Path::new(&rel)).is_none() {
            notes.push(note(format!(
                "\"{}\" ({rel}) is not a chapter file here; left out",
                entry.title
            )));
            continue;
        }
        if !seen.insert(rel.clone()) {
            notes.push(note(format!("{rel} is listed twice; kept the first")));
            continue;
        }
        let placement = match &entry.place {
            mdbook::Place::Numbered(Some(part)) => Placement::Part(part.clone()),
            mdbook::Place::Suffix if has_parts => Placement::Suffix,
            _ => Placement::Chapters,
        };
        out.push(Planned {
            file: rel,
            title: Some(entry.title.clone()).filter(|t| !t.is_empty()),
            level: entry.level,
            placement,
            linear: true,
        });
    }
    out
}

/// The chapters of an EPUB source tree's spine whose files exist inside the folder of
/// `boundary`; the rest become notes.
pub(super) fn from_spine(
    boundary: &Boundary,
    package: &opf::OpfBook,
    notes: &mut Vec<Diagnostic>,
) -> Vec<Planned> {
    let dir = boundary.root();
    let opf = dir.join(&package.opf);
    notes.extend(
        package
            .notes
            .iter()
            .map(|n| super::note(&opf, None, n.clone())),
    );
    let mut out = Vec::new();
    for (file, linear) in &package.spine {
        if boundary.admit(dir, file).is_err() || !dir.join(file).is_file() {
            let message = format!("{file} is not a chapter file here; left out");
            notes.push(super::note(&opf, None, message));
            continue;
        }
        out.push(Planned {
            linear: *linear,
            ..Planned::top(file.clone())
        });
    }
    out
}

/// Files in `dir` of formats we do not read: refused when they are as many as the chapter
/// files found (`chapters`: the book is written in that format, and a stray HTML file is not
/// it), else each noted as left out.
pub(super) fn refuse_or_note_unsupported(
    dir: &Path,
    chapters: usize,
    notes: &mut Vec<Diagnostic>,
) -> Result<(), InitError> {
    let other = files_where(dir, Path::new(""), |p| {
        crate::project::unsupported_kind(p).is_some()
    })?;
    let Some(first) = other.first() else {
        return Ok(());
    };
    let (format, tool) =
        crate::project::unsupported_kind(Path::new(first)).unwrap_or(("this format", "pandoc"));
    if other.len() >= chapters {
        return Err(InitError::Unsupported {
            path: dir.join(first),
            format,
            tool,
        });
    }
    for f in other {
        let (format, tool) =
            crate::project::unsupported_kind(Path::new(&f)).unwrap_or((format, tool));
        notes.push(super::note(
            dir.join(&f),
            None,
            format!("{format} is not supported (convert it with {tool}); left out"),
        ));
    }
    Ok(())
}

/// A relative path with `/` separators and no `.` components.
pub(super) fn slash_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// The chapter files under `dir/sub`, in natural order (an mdBook book's `SUMMARY.md` and
/// `404.md` left out, and files that are no chapter: a licence, a change log, a navigation
/// document, each noted).
pub(super) fn listed(
    dir: &Path,
    sub: &Path,
    mdbook: bool,
    notes: &mut Vec<Diagnostic>,
) -> Result<Vec<Planned>, InitError> {
    let files = find_chapter_files(dir, sub)?;
    Ok(files
        .into_iter()
        .filter(|f| {
            let name = f.rsplit('/').next().unwrap_or(f);
            !(mdbook && (name.eq_ignore_ascii_case("SUMMARY.md") || name == "404.md"))
        })
        .filter(|f| match skip::not_a_chapter(dir, f) {
            Some(why) => {
                notes.push(super::note(
                    dir.join(f),
                    None,
                    format!("{why}, not a chapter; left out"),
                ));
                false
            }
            None => true,
        })
        .map(Planned::top)
        .collect())
}

impl Planned {
    /// A chapter at the top level, titled by what its file says.
    fn top(file: String) -> Planned {
        Planned {
            file,
            title: None,
            level: 1,
            placement: Placement::Chapters,
            linear: true,
        }
    }
}

/// Chapter files under `dir/sub` at any depth (not in hidden folders, nor in `build/`,
/// `covers/`, `target/` or `node_modules/`), as paths relative to `dir` with `/` separators, in
/// natural order.
pub(super) fn find_chapter_files(dir: &Path, sub: &Path) -> Result<Vec<String>, InitError> {
    files_where(dir, sub, |p| SourceKind::known(p).is_some())
}

/// The files under `dir/sub` that `keep` accepts, as [`find_chapter_files`] looks for them.
pub(super) fn files_where(
    dir: &Path,
    sub: &Path,
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<String>, InitError> {
    let root = dir.join(sub);
    let io = |source| InitError::Io {
        path: root.clone(),
        action: "cannot list",
        source,
    };
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(&root)
        .min_depth(1)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            let skipped = e.file_type().is_dir()
                && [OUTPUT_FOLDER, "covers", "target", "node_modules"].contains(&name.as_ref());
            !name.starts_with('.') && !skipped
        });
    for entry in walker {
        let entry = entry.map_err(|e| io(e.into()))?;
        if !entry.file_type().is_file() || !keep(entry.path()) {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(dir) {
            out.push(slash_path(rel));
        }
    }
    out.sort_by(|a, b| natural_cmp(a, b));
    Ok(out)
}
