//! `epubforge inspect`: print any EPUB's metadata, spine, table of contents and sizes.

use std::process::ExitCode;

use super::term;
use crate::cli::InspectArgs;

/// Runs `epubforge inspect`.
pub fn run(args: InspectArgs) -> ExitCode {
    match epubforge::inspect::open(&args.epub) {
        Ok(epub) => {
            // What a stranger's EPUB says is escaped: it may hold control characters.
            let text = epubforge::inspect::render_text(&epub);
            term::out_bytes(epubforge::escape::text(&text).as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            let path = term::path(&args.epub);
            let hint = format!("is this an EPUB? `epubforge check {path}` lists every problem");
            let d = e.diagnostic(&args.epub).hint(hint);
            term::err_styled(&term::diagnostic(&d, None));
            ExitCode::from(2)
        }
    }
}
