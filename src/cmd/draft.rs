//! `epubforge FILE` (and `build FILE`): a chapter file, or a folder of them without a
//! `metadata.toml`, built in one go. The library reads it as `init` does ([`epubforge::draft`])
//! into the metadata `init` would write, loads the project from that text and builds it as
//! `build` builds any project; this layer prints what was found and how to keep it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use epubforge::{BuildOptions, Draft, Outcome};

use crate::cli::BuildArgs;

/// Whether `path`, given on the command line, is built in one go rather than loaded as a
/// project: any file but a `.toml` one (a missing path with an extension too, so that a typo
/// is "cannot read", not "no metadata.toml"), and with `folders` a folder without
/// `metadata.toml`.
pub fn is_draft(path: &Path, folders: bool) -> bool {
    let toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => folders && !path.join(epubforge::METADATA_FILE).exists(),
        Ok(_) => !toml,
        Err(_) => path.extension().is_some() && !toml,
    }
}

/// Reads `path` as `init` would and builds it: the outcome, or None when `path` could not be
/// read as a book or its settings not saved (said on stderr).
pub fn build(path: &Path, opts: &BuildOptions, args: &BuildArgs) -> Option<Outcome> {
    let start = Instant::now();
    // Saved, the metadata is what `init` writes (the whole file read); built at once, only
    // what the build does not find itself is read.
    let read = match args.save {
        true => epubforge::draft,
        false => epubforge::draft_to_build,
    };
    let draft = read(path)
        .and_then(|draft| match args.save {
            true => draft.save(false).map(|saved| {
                if !args.quiet {
                    super::term::err(&format!("saved       {}", super::term::path(&saved)));
                }
                draft
            }),
            false => Ok(draft),
        })
        .map_err(|e| super::term::err_styled(&super::term::diagnostic(&e.diagnostic(), None)))
        .ok()?;
    let opts = BuildOptions {
        output: opts.output.clone().or_else(|| Some(draft.output.clone())),
        // No cache beside a download: nothing is written but the EPUB (and what --save asks).
        cache: false,
        ..opts.clone()
    };
    let result = draft
        .project(&opts.load)
        .and_then(|project| project.build(&opts));
    if !args.quiet
        && let Ok(report) = &result
    {
        for note in &draft.report.notes {
            super::term::err_styled(&super::term::diagnostic(note, super::term::base_of(path)));
        }
        super::term::err(&summary(path, &draft, report));
        if !args.save {
            super::term::err(&format!(
                "  keep these settings to edit: add --save (writes {})",
                super::term::path(&draft.report.metadata_path)
            ));
        }
    }
    Some(Outcome {
        project: path.to_path_buf(),
        result,
        elapsed: start.elapsed(),
    })
}

/// One line saying what was found: the encoding, title, author, language, volumes and
/// chapters, cover.
fn summary(path: &Path, draft: &Draft, report: &epubforge::BuildReport) -> String {
    let found = &draft.report;
    let mut encodings: Vec<&str> = report.sources.iter().map(|s| s.encoding).collect();
    encodings.dedup();
    let author = match found.authors.as_slice() {
        [] => "author unknown".to_string(),
        names => format!("by {}", names.join(", ")),
    };
    let mut parts = vec![
        encodings.join("/"),
        format!("《{}》 {author}", found.title),
        found.language.clone(),
    ];
    // The build's outline counts what it made; the draft's count only where it has none.
    let (volumes, chapters) = report.outline.as_ref().map_or_else(
        || {
            let n = draft.chapters.unwrap_or(report.chapters);
            (draft.volumes, plural(n, "chapter"))
        },
        |o| (o.volumes, o.chapters_summary()),
    );
    parts.push(match volumes {
        0 => chapters,
        n => format!("{} / {chapters}", plural(n, "volume")),
    });
    if let Some(cover) = &found.cover {
        parts.push(format!("cover {cover}"));
    }
    // What the preset removed, the build's own summary line counts (the text ledger).
    if draft.site_lines > 0 {
        parts.push("site lines found: web-novel cleanup preset on".to_string());
    }
    format!(
        "found       {}: {}",
        super::term::path(path),
        parts.join(", ")
    )
}

fn plural(n: usize, word: &str) -> String {
    match n {
        1 => format!("1 {word}"),
        _ => format!("{n} {word}s"),
    }
}

/// Builds each path in one go, one after another (each book converts on every core), printing
/// each outcome as `build` does: the outcomes of those built, and how many could not be read.
pub fn build_all(
    paths: &[PathBuf],
    opts: &BuildOptions,
    args: &BuildArgs,
) -> (Vec<Outcome>, usize) {
    let mut unread = 0;
    let mut outcomes = Vec::new();
    for path in paths {
        match build(path, opts, args) {
            Some(outcome) => {
                super::build::report(&outcome, args, &|line| super::term::err_styled_line(&line));
                outcomes.push(outcome);
            }
            None => unread += 1,
        }
    }
    (outcomes, unread)
}
