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
        eprintln!("error: cannot render the man page: {e}");
        return ExitCode::from(2);
    }
    if let Err(e) = std::io::Write::write_all(&mut std::io::stdout(), &out) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
