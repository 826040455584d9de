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
        eprintln!("warning: cannot install the interrupt handler: {e}");
    }
    // `epubforge [PATHS] [OPTIONS]` is `epubforge build [PATHS] [OPTIONS]`.
    let command = cli.command.unwrap_or(Command::Build(cli::BuildArgs {
        bare: true,
        ..cli.build
    }));
    match command {
        Command::Build(args) => cmd::build::run(args),
        Command::Watch(args) => cmd::watch::run(args),
        Command::Init(args) => cmd::init::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Inspect(args) => cmd::inspect::run(args),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Man => cmd::man::run(),
    }
}
