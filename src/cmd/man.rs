//! `epubforge man`: the man page in roff, generated from the clap definitions.
//! Install with `epubforge man > /usr/local/share/man/man1/epubforge.1`.

use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::Cli;

/// Runs `epubforge man`.
pub fn run() -> ExitCode {
    let man = clap_mangen::Man::new(Cli::command());
    let mut out = Vec::new();
    if let Err(e) = man.render(&mut out) {
        let d = epubforge::Diagnostic::error(
            epubforge::Code::Io,
            format!("cannot render the man page: {e}"),
        );
        super::term::problem(&d);
        return ExitCode::from(2);
    }
    // A closed pipe or a full disk is `term::finish`'s to report.
    super::term::out_bytes(&out);
    ExitCode::SUCCESS
}
