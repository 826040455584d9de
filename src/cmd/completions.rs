//! `epubforge completions SHELL`: the completion script, generated from the clap definitions.

use std::process::ExitCode;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

/// Runs `epubforge completions`.
pub fn run(args: CompletionsArgs) -> ExitCode {
    let mut cmd = Cli::command();
    // Made in memory first: clap_complete panics when it cannot write.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "epubforge", &mut script);
    super::term::out_bytes(&script);
    ExitCode::SUCCESS
}
