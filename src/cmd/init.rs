//! `epubforge init`: write a metadata.toml for a folder of chapter files.

use std::process::ExitCode;

use epubforge::InitOptions;

use crate::cli::InitArgs;

/// Runs `epubforge init`.
pub fn run(args: InitArgs) -> ExitCode {
    match epubforge::init(&args.dir, &InitOptions { force: args.force }) {
        Ok(report) => {
            for note in &report.notes {
                eprintln!("note: {note}");
            }
            eprintln!(
                "wrote {} with {} chapter(s), language {}{}",
                report.metadata_path.display(),
                report.chapters.len(),
                report.language,
                report
                    .cover
                    .map(|c| format!(", cover {c}"))
                    .unwrap_or_default()
            );
            let next = if report.authors.is_empty() {
                "next: edit the authors (and the rest), then `epubforge check` and `epubforge build`"
            } else {
                "next: review it, then `epubforge check` and `epubforge build`"
            };
            eprintln!("{next}");
            println!("{}", report.metadata_path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            anstream::eprint!("{}", e.diagnostic().render(None, true));
            ExitCode::from(2)
        }
    }
}
