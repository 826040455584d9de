//! The `epubforge` binary: parses arguments, runs the command, maps its result to an exit code.
//! The logic lives in the library; each command's glue lives in `cmd/`.

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C or SIGTERM mid-build: delete the temporary EPUB, leave the old one alone.
    if let Err(e) = epubforge::install_interrupt_handler() {
        cmd::term::err(&format!(
            "warning: cannot install the interrupt handler: {e}"
        ));
    }
    // `epubforge [PATHS] [OPTIONS]` is `epubforge build [PATHS] [OPTIONS]`.
    let command = cli.command.unwrap_or(Command::Build(cli::BuildArgs {
        bare: true,
        ..cli.build
    }));
    // The status a command fails with, as the guide gives them (`guide/src/commands.md`): also
    // the status when its standard output cannot be written.
    let (code, failure) = match command {
        Command::Build(args) => (cmd::build::run(args), 1),
        Command::Watch(args) => (cmd::watch::run(args), 1),
        Command::Init(args) => (cmd::init::run(args), 2),
        Command::Check(args) => (cmd::check::run(args), 2),
        Command::Inspect(args) => (cmd::inspect::run(args), 2),
        Command::Fix(args) => (cmd::fix::run(args), 1),
        Command::Completions(args) => (cmd::completions::run(args), 2),
        Command::Man => (cmd::man::run(), 2),
    };
    cmd::term::finish(code, failure)
}
