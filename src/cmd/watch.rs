//! `epubforge watch`: build, then rebuild on every change; print what changed, how long the
//! build took, and errors, and keep watching.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use epubforge::{BuildOptions, LoadOptions, WatchEvent};

use crate::cli::{BuildArgs, TargetArg, WatchArgs};

/// Runs `epubforge watch` until interrupted.
pub fn run(args: WatchArgs) -> ExitCode {
    let mut projects = args.projects.clone();
    if projects.is_empty() {
        projects.push(PathBuf::from("."));
    }
    if args.output.is_some() && projects.len() > 1 {
        eprintln!("error: -o/--output can only be used when watching a single project");
        return ExitCode::from(2);
    }
    if args.output.as_deref() == Some(Path::new("-")) {
        eprintln!("error: watch cannot write to standard output (-o -); name a file");
        return ExitCode::from(2);
    }
    let from_env = match BuildOptions::from_env() {
        Ok(opts) => opts,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if args.targets.contains(&TargetArg::Azw3) {
        eprintln!("error: watch makes EPUBs only; build --target azw3 makes the AZW3");
        return ExitCode::from(2);
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
    let print = |line: String| eprintln!("{line}");
    let mut on_event = |event: WatchEvent<'_>| match event {
        // Printed before the build starts: its status line always comes after.
        WatchEvent::Changed { changed, .. } => {
            if !args.quiet {
                let names: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
                eprintln!("changed: {}", names.join(", "));
            }
        }
        WatchEvent::Build { outcome, .. } => {
            super::build::report(outcome, &print_args, &print);
            if !args.quiet && outcome.result.is_err() {
                eprintln!("keeping the last good EPUB; watching for changes");
            }
        }
        WatchEvent::Error(e) => eprintln!("watch error: {e}"),
    };
    if !args.quiet {
        eprintln!("watching {} project(s); Ctrl-C to stop", projects.len());
    }
    match epubforge::watch(&projects, &opts, &mut on_event) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
