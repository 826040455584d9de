//! `epubforge init`: write a metadata.toml for a folder of chapter files.

use std::process::ExitCode;

use epubforge::epub_in::Error as EpubInError;
use epubforge::{Code, Diagnostic, EpubInitOptions, InitOptions};

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
        let d = Diagnostic::error(
            Code::Init,
            "a second folder is only taken with an EPUB to unpack",
        )
        .at(into)
        .hint("give the chapters' folder alone, or an EPUB and the folder to unpack it into");
        term::err_styled(&term::diagnostic(&d, None));
        return ExitCode::from(2);
    }
    match epubforge::init(&args.dir, &InitOptions { force: args.force }) {
        Ok(report) => {
            // Paths shown from the folder, as `build` and `check` show them.
            let base = term::base_of(&args.dir);
            for note in &report.notes {
                term::err_styled(&term::diagnostic(note, base));
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
            term::err_styled(&term::diagnostic(&epub_in_diagnostic(&e), None));
            ExitCode::from(2)
        }
    }
}

/// Why `init BOOK.epub` wrote nothing, as a problem: at the EPUB (inside it, for what could
/// not be read) or the folder, with what to do.
fn epub_in_diagnostic(e: &EpubInError) -> Diagnostic {
    match e {
        EpubInError::Read { epub, source } => source.diagnostic(epub),
        EpubInError::Write { path, source } => {
            Diagnostic::error(Code::Io, source.to_string()).at(path)
        }
        EpubInError::NotEmpty { dir } => {
            Diagnostic::error(Code::Init, "not empty; nothing written")
                .at(dir)
                .hint("name an empty or new folder, or pass --force")
        }
    }
}
