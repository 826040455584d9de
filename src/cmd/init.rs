//! `epubforge init`: write a metadata.toml for a folder of chapter files.

use std::process::ExitCode;

use epubforge::{EpubInitOptions, InitOptions};

use super::term;
use crate::cli::InitArgs;

/// Runs `epubforge init`.
pub fn run(args: InitArgs) -> ExitCode {
    let is_epub = args
        .dir
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("epub"))
        && args.dir.is_file();
    if is_epub {
        return run_epub(&args);
    }
    if let Some(into) = &args.into {
        term::err(&format!(
            "error: {}: a second folder is only taken with an EPUB to unpack",
            term::path(into)
        ));
        return ExitCode::from(2);
    }
    match epubforge::init(&args.dir, &InitOptions { force: args.force }) {
        Ok(report) => {
            for note in &report.notes {
                // One line each, whatever file names it holds.
                term::err(&format!("note: {}", epubforge::escape::value(note)));
            }
            term::err(&format!(
                "wrote {} with {} chapter(s), language {}{}",
                term::path(&report.metadata_path),
                report.chapters.len(),
                report.language,
                report
                    .cover
                    .map(|c| format!(", cover {}", epubforge::escape::value(&c)))
                    .unwrap_or_default()
            ));
            let next = if report.authors.is_empty() {
                "next: edit the authors (and the rest), then `epubforge check` and `epubforge build`"
            } else {
                "next: review it, then `epubforge check` and `epubforge build`"
            };
            term::err(next);
            term::out(&term::path(&report.metadata_path));
            ExitCode::SUCCESS
        }
        Err(e) => {
            term::err_styled(&term::diagnostic(&e.diagnostic(), None));
            ExitCode::from(2)
        }
    }
}

/// `epubforge init BOOK.epub [DIR]`: unpack the EPUB into a project.
fn run_epub(args: &InitArgs) -> ExitCode {
    let opts = EpubInitOptions {
        force: args.force,
        markdown: args.markdown,
    };
    match epubforge::init_epub(&args.dir, args.into.as_deref(), &opts) {
        Ok(unpacked) => {
            for d in &unpacked.diagnostics {
                term::err_styled(&d.render(None, true));
            }
            let c = unpacked.counts;
            term::err(&format!(
                "wrote {}: {} chapter(s), {} image(s), {} stylesheet(s), {} font(s), {} contents entr(ies) read",
                term::path(&unpacked.metadata_path),
                unpacked.chapters.len(),
                c.images,
                c.stylesheets,
                c.fonts,
                unpacked.toc_entries
            ));
            term::err("next: review it, then `epubforge build` in that folder");
            term::out(&term::path(&unpacked.metadata_path));
            ExitCode::SUCCESS
        }
        Err(e) => {
            term::err(&format!("error: {e}"));
            ExitCode::from(2)
        }
    }
}
