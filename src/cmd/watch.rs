//! `epubforge watch`: build, then rebuild on every change; print what changed, how long the
//! build took, and errors, and keep watching.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use epubforge::{BuildOptions, Code, Diagnostic, LoadOptions, WatchEvent};

use super::term;
use crate::cli::{BuildArgs, TargetArg, WatchArgs};

/// Runs `epubforge watch` until interrupted.
pub fn run(args: WatchArgs) -> ExitCode {
    let mut projects = args.projects.clone();
    if projects.is_empty() {
        projects.push(PathBuf::from("."));
    }
    if args.output.is_some() && projects.len() > 1 {
        return usage(
            "-o/--output can only be used when watching a single project",
            "watch one project with -o, or leave -o out: each book goes to its `[output] path`, else build/TITLE.epub in its folder",
        );
    }
    if args.output.as_deref() == Some(Path::new("-")) {
        return usage(
            "watch cannot write to standard output (-o -)",
            "name a file: -o book.epub",
        );
    }
    let from_env = match BuildOptions::from_env() {
        Ok(opts) => opts,
        Err(e) => {
            term::err_styled(&term::diagnostic(&e.diagnostic(), None));
            return ExitCode::from(2);
        }
    };
    if args.targets.contains(&TargetArg::Azw3) {
        return usage(
            "watch makes EPUBs only",
            "`epubforge build --target azw3` makes the AZW3",
        );
    }
    let opts = BuildOptions {
        output: args.output.clone(),
        targets: TargetArg::targets(&args.targets),
        cache: true,
        load: LoadOptions {
            allow_outside_paths: args.allow_outside_paths,
        },
        ..from_env
    };
    let print_args = BuildArgs {
        quiet: args.quiet,
        ..BuildArgs::default()
    };
    let print = |line: String| term::err_styled_line(&line);
    let mut on_event = |event: WatchEvent<'_>| match event {
        // Printed before the build starts: its status line always comes after.
        WatchEvent::Changed { changed } => {
            if !args.quiet {
                let names: Vec<String> = changed.iter().map(|p| term::path(p)).collect();
                term::err(&format!("changed: {}", names.join(", ")));
            }
        }
        WatchEvent::Build { outcome } => {
            super::build::report(outcome, &print_args, &print);
            // Settled: an interrupt from now on has replaced nothing.
            epubforge::forget_replaced();
            if !args.quiet && outcome.result.is_err() {
                term::err("keeping the last good EPUB; watching for changes");
            }
        }
        WatchEvent::Error(problem) => term::err_styled_line(&term::diagnostic(&problem, None)),
    };
    if !args.quiet {
        term::err(&format!(
            "watching {} project(s); Ctrl-C to stop",
            projects.len()
        ));
    }
    match epubforge::watch(&projects, &opts, &mut on_event) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            term::err_styled(&term::diagnostic(&e.diagnostic(), None));
            ExitCode::FAILURE
        }
    }
}

/// A usage error (code `usage`, with what to do instead): exit status 2, as clap's own.
fn usage(message: &str, hint: &str) -> ExitCode {
    term::problem(&Diagnostic::error(Code::Usage, message).hint(hint));
    ExitCode::from(2)
}
