//! The `epubforge` binary: parses arguments, runs the command, maps its result to an exit code.
//! The logic lives in the library; each command's glue lives in `cmd/`.

mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

use cli::{BuildArgs, Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or_else(|| Command::Build(BuildArgs::default()));
    match command {
        Command::Build(args) => cmd::build::run(args),
        Command::Watch(args) => cmd::watch::run(args),
    }
}
