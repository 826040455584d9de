//! `epubforge init`: write a metadata.toml for a folder of chapter files.

use std::process::ExitCode;

use epubforge::InitOptions;

use super::term;
use crate::cli::InitArgs;

/// Runs `epubforge init`.
pub fn run(args: InitArgs) -> ExitCode {
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
