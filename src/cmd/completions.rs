//! `epubforge completions SHELL`: the completion script, generated from the clap definitions.

use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

/// Runs `epubforge completions`.
pub fn run(args: CompletionsArgs) -> ExitCode {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "epubforge", &mut std::io::stdout());
    ExitCode::SUCCESS
}
