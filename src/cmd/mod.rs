//! One module per subcommand: turn parsed arguments into library calls and print the outcome.
//! Only this layer prints; it returns the process exit code. [`run`] is the whole command line
//! (the binary calls nothing else), built with the default `cli` feature.

pub mod azw3;
pub mod build;
pub mod check;
pub mod completions;
pub mod draft;
pub mod fix;
pub mod init;
pub mod inspect;
pub mod man;
pub mod term;
pub mod watch;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{self, Cli, Command};

/// Parses the process's arguments, runs the command, and maps its result to an exit code:
/// what the `epubforge` binary does.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C or SIGTERM mid-build: delete the temporary EPUB, leave the old one alone.
    if let Err(e) = epubforge::install_interrupt_handler() {
        let d = epubforge::Diagnostic::warning(
            epubforge::Code::Environment,
            format!("cannot install the interrupt handler: {e}"),
        )
        .hint("Ctrl-C then stops the build without removing its temporary file");
        term::problem(&d);
    }
    // `epubforge [PATHS] [OPTIONS]` is `epubforge build [PATHS] [OPTIONS]`.
    let command = cli.command.unwrap_or(Command::Build(cli::BuildArgs {
        bare: true,
        ..cli.build
    }));
    // The status a command fails with, as the guide gives them (`guide/src/commands.md`): also
    // the status when its standard output cannot be written.
    let (code, failure) = match command {
        Command::Build(args) => (build::run(args), 1),
        Command::Watch(args) => (watch::run(args), 1),
        Command::Init(args) => (init::run(args), 2),
        Command::Check(args) => (check::run(args), 2),
        Command::Inspect(args) => (inspect::run(args), 2),
        Command::Fix(args) => (fix::run(args), 1),
        Command::Completions(args) => (completions::run(args), 2),
        Command::Man => (man::run(), 2),
    };
    term::finish(code, failure)
}
