//! `epubforge inspect`: print any EPUB's metadata, spine, table of contents and sizes.

use std::process::ExitCode;

use crate::cli::InspectArgs;

/// Runs `epubforge inspect`.
pub fn run(args: InspectArgs) -> ExitCode {
    match epubforge::inspect::open(&args.epub) {
        Ok(epub) => {
            print!("{}", epubforge::inspect::render_text(&epub));
            ExitCode::SUCCESS
        }
        Err(e) => {
            anstream::eprintln!(
                "{} {}: {e}\n  hint: is this an EPUB? `epubforge check {}` lists every problem",
                crate::cmd::check::error_label(),
                args.epub.display(),
                args.epub.display()
            );
            ExitCode::from(2)
        }
    }
}
