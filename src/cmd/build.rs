//! `epubforge build`: build each project (in parallel for several), print the path of each
//! EPUB on stdout and one status line per book on stderr, then a summary for a batch.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use epubforge::{BuildOptions, BuildStatus, Code, Detection, Diagnostic, LoadOptions, Outcome};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{BuildArgs, TargetArg};

/// Runs `epubforge build`.
pub fn run(args: BuildArgs) -> ExitCode {
    let mut projects = args.projects.clone();
    if let Some(dir) = &args.all {
        let found = epubforge::find_projects(dir);
        if found.is_empty() {
            eprintln!(
                "error: {}: no folder holding a metadata.toml found",
                dir.display()
            );
            return ExitCode::FAILURE;
        }
        projects.extend(found);
    } else if projects.is_empty() {
        projects.push(PathBuf::from("."));
    }
    if args.output.is_some() && projects.len() > 1 {
        eprintln!("error: -o/--output can only be used when building a single project");
        return ExitCode::from(2);
    }
    let opts = match options(&args) {
        Ok(opts) => opts,
        Err(code) => return code,
    };
    if to_stdout(&args) {
        return build_to_stdout(&projects[0], opts, &args);
    }
    note_jobs(&args, projects.len());
    let many = projects.len() > 1;
    let bar = progress_bar(projects.len(), many, args.quiet);
    let print = |line: String| {
        if bar.is_hidden() {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
    };
    let start = Instant::now();
    let done = |o: &Outcome| {
        report(o, &args, &print);
        bar.inc(1);
    };
    let outcomes = epubforge::build_all(&projects, &opts, args.jobs.unwrap_or(0), &done);
    bar.finish_and_clear();

    let mut failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    if args.targets.contains(&TargetArg::Azw3) {
        failed += super::azw3::convert_all(&outcomes, args.quiet);
    }
    if many && !args.quiet {
        let up_to_date = outcomes
            .iter()
            .filter(|o| {
                o.result
                    .as_ref()
                    .is_ok_and(|r| r.status == BuildStatus::UpToDate)
            })
            .count();
        eprintln!(
            "{} books: {} built, {} up to date, {} failed ({})",
            outcomes.len(),
            outcomes.len() - failed - up_to_date,
            up_to_date,
            failed,
            seconds(start.elapsed())
        );
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The build options the arguments and the environment ask for; a bad environment is exit
/// status 2, as bad arguments are.
fn options(args: &BuildArgs) -> Result<BuildOptions, ExitCode> {
    let from_env = BuildOptions::from_env().map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })?;
    Ok(BuildOptions {
        output: args
            .output
            .as_deref()
            .map(|o| epub_for_azw3(o, &args.targets)),
        targets: TargetArg::targets(&args.targets),
        cache: !args.no_cache,
        force: args.force,
        strict: args.strict,
        load: LoadOptions {
            allow_outside_paths: args.allow_outside_paths,
        },
        ..from_env
    })
}

/// `-o BOOK.azw3` with `--target azw3` names the AZW3: the Kindle EPUB it is made from goes
/// beside it as `BOOK.epub` (the AZW3 is named after that EPUB), never into the AZW3's name.
fn epub_for_azw3(output: &Path, targets: &[TargetArg]) -> PathBuf {
    let azw3 = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("azw3"));
    match azw3 && targets.contains(&TargetArg::Azw3) {
        true => output.with_extension("epub"),
        false => output.to_path_buf(),
    }
}

/// Says so when `-j` asks for more threads than can help ([`epubforge::pool_size`]).
fn note_jobs(args: &BuildArgs, books: usize) {
    let Some(jobs) = args.jobs.filter(|&j| j > 0 && !args.quiet) else {
        return;
    };
    let threads = epubforge::pool_size(jobs, books);
    if threads < jobs {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        eprintln!(
            "note: -j {jobs} is more than {books} book(s) on {cores} core(s) can use; building with {threads} threads"
        );
    }
}

/// Whether the EPUB goes to standard output (`-o -`).
fn to_stdout(args: &BuildArgs) -> bool {
    args.output.as_deref() == Some(Path::new("-"))
}

/// `-o -`: builds into a temporary folder of its own, without a cache, and copies the EPUB to
/// standard output; the status goes to stderr as usual.
fn build_to_stdout(project: &Path, opts: BuildOptions, args: &BuildArgs) -> ExitCode {
    let tmp = match tempfile::Builder::new().prefix("epubforge-").tempdir() {
        Ok(tmp) => tmp,
        Err(e) => {
            eprintln!("error: cannot create a temporary folder: {e}");
            return ExitCode::FAILURE;
        }
    };
    let opts = BuildOptions {
        output: Some(tmp.path().join("book.epub")),
        cache: false,
        ..opts
    };
    let outcome = epubforge::build_one(project, &opts);
    report(&outcome, args, &|line| eprintln!("{line}"));
    let Ok(built) = &outcome.result else {
        return ExitCode::FAILURE;
    };
    let copied = std::fs::File::open(&built.output)
        .and_then(|mut epub| std::io::copy(&mut epub, &mut std::io::stdout().lock()));
    match copied {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the EPUB to standard output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A bar for a batch, a spinner for one book; nothing when stderr is not a terminal.
fn progress_bar(len: usize, many: bool, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = if many {
        ProgressBar::new(len as u64).with_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} books {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        )
    } else {
        let s = ProgressBar::new_spinner().with_message("building");
        s.enable_steady_tick(Duration::from_millis(100));
        s
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar
}

pub(crate) fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// The status line of one EPUB of a book (and the build's timings with `-v`).
fn status_line(r: &epubforge::BuildReport, o: &Outcome, args: &BuildArgs, print: &dyn Fn(String)) {
    let output = match to_stdout(args) {
        true => "(standard output)".to_string(),
        false => r.output.display().to_string(),
    };
    let status = match r.status {
        BuildStatus::Built if r.reused > 0 => format!(
            "built       {output} ({} of {} chapters reused)",
            r.reused, r.chapters
        ),
        BuildStatus::Built => format!("built       {output}"),
        BuildStatus::UpToDate => format!("up to date  {output}"),
    };
    if args.verbose && !r.timings.is_empty() {
        let stages: Vec<String> = r
            .timings
            .iter()
            .map(|(stage, d)| format!("{stage} {:.1} ms", d.as_secs_f64() * 1e3))
            .collect();
        print(format!("timings: {}", stages.join(", ")));
    }
    if r.timings.is_empty() {
        print(status);
    } else {
        print(format!("{status} in {}", seconds(o.elapsed)));
    }
    // The text ledger: what of the chapters' text is not in the book, and why.
    if let Some(removed) = r.removed.summary() {
        print(format!("            {removed}"));
    }
}

/// How many warnings of one kind are printed before the rest are only counted (`-v` prints all).
const SHOWN_PER_KIND: usize = 10;

/// Prints warnings grouped by kind (code), in the order kinds first appear: the first few of
/// each, a line counting the rest, and a summary line; with `verbose`, every one.
fn print_warnings(warnings: &[Diagnostic], verbose: bool, print: &dyn Fn(String)) {
    let mut kinds: Vec<(Code, Vec<&Diagnostic>)> = Vec::new();
    for w in warnings {
        match kinds.iter_mut().find(|(code, _)| *code == w.code) {
            Some((_, list)) => list.push(w),
            None => kinds.push((w.code, vec![w])),
        }
    }
    for (code, list) in &kinds {
        let shown = if verbose { list.len() } else { SHOWN_PER_KIND };
        for w in list.iter().take(shown) {
            print(format!("warning: {w}"));
        }
        if list.len() > shown {
            print(format!(
                "  … and {} more {} warnings (-v lists them all)",
                list.len() - shown,
                code.as_str()
            ));
        }
    }
    if warnings.len() > 1 {
        let counts: Vec<String> = kinds
            .iter()
            .map(|(code, list)| format!("{} {}", list.len(), code.as_str()))
            .collect();
        print(format!(
            "{} warnings: {}",
            warnings.len(),
            counts.join(", ")
        ));
    }
}

/// Prints one book's outcome: warnings and the status line on stderr, the EPUB's path on
/// stdout (scripts read it).
pub(crate) fn report(o: &Outcome, args: &BuildArgs, print: &dyn Fn(String)) {
    match &o.result {
        Ok(r) => {
            if !args.quiet {
                print_warnings(&r.warnings, args.verbose, print);
                for s in &r.sources {
                    if args.verbose || s.detection == Detection::Guessed {
                        print(format!("{}: read as {}", s.path.display(), s.encoding));
                    }
                }
                status_line(r, o, args, print);
                for other in &r.also {
                    print_warnings(&other.warnings, args.verbose, print);
                    status_line(other, o, args, print);
                }
            }
            if !to_stdout(args) {
                println!("{}", r.output.display());
                for other in &r.also {
                    println!("{}", other.output.display());
                }
            }
        }
        Err(e) => {
            print(format!(
                "failed      {} in {}\nerror: {e}",
                o.project.display(),
                seconds(o.elapsed)
            ));
        }
    }
}
