//! `epubforge build`: build each project, print the path of each EPUB written.

use std::process::ExitCode;

use epubforge::build::{self, BuildOptions};
use epubforge::project::Project;
use epubforge::source::Detection;

use crate::cli::BuildArgs;

/// Runs `epubforge build`.
pub fn run(args: BuildArgs) -> ExitCode {
    if args.output.is_some() && args.projects.len() > 1 {
        eprintln!("error: -o/--output can only be used when building a single project");
        return ExitCode::from(2);
    }
    let mut failed = 0;
    for location in &args.projects {
        let mut opts = BuildOptions::from_env();
        opts.output = args.output.clone();
        let result = Project::load(location).and_then(|p| build::build(&p, &opts));
        match result {
            Ok(report) => {
                if !args.quiet {
                    for w in &report.warnings {
                        eprintln!("warning: {w}");
                    }
                    for s in &report.sources {
                        if args.verbose || s.detection == Detection::Guessed {
                            eprintln!("{}: read as {}", s.path.display(), s.encoding);
                        }
                    }
                }
                println!("{}", report.output.display());
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
