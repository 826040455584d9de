//! `epubforge build`: build each project (in parallel for several), print the path of each
//! EPUB on stdout and one status line per book on stderr, then a summary for a batch.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use epubforge::{BuildOptions, BuildStatus, Code, Detection, Diagnostic, LoadOptions, Outcome};
use indicatif::{ProgressBar, ProgressStyle};

use super::term;
use crate::cli::{BuildArgs, TargetArg};

/// Runs `epubforge build`.
pub fn run(args: BuildArgs) -> ExitCode {
    // A chapter file, or a folder without metadata.toml, is built in one go (`cmd::draft`).
    let (drafts, mut projects): (Vec<PathBuf>, Vec<PathBuf>) = args
        .projects
        .iter()
        .cloned()
        .partition(|p| super::draft::is_draft(p, args.bare));
    if let Some(dir) = &args.all {
        let found = epubforge::find_projects(dir);
        if found.is_empty() {
            let d = Diagnostic::error(Code::Usage, "no folder holding a metadata.toml found")
                .at(dir)
                .hint("`epubforge init` writes one in a folder of chapters");
            term::problem(&d);
            return ExitCode::FAILURE;
        }
        projects.extend(found);
    } else if projects.is_empty() && drafts.is_empty() {
        projects.push(PathBuf::from("."));
    }
    if args.output.is_some() && projects.len() + drafts.len() > 1 {
        let d = Diagnostic::error(
            Code::Usage,
            "-o/--output can only be used when building a single project",
        )
        .hint("build one project with -o, or leave -o out: each book goes to its `[output] path`, else build/TITLE.epub in its folder");
        term::problem(&d);
        return ExitCode::from(2);
    }
    if args.save && drafts.is_empty() && !args.quiet {
        term::problem(&Diagnostic::note(
            Code::Usage,
            "--save only applies to a chapter file or a folder without metadata.toml",
        ));
    }
    let opts = match options(&args) {
        Ok(opts) => opts,
        Err(code) => return code,
    };
    if to_stdout(&args) {
        return match drafts.first() {
            Some(draft) => build_to_stdout(opts, &args, |o| super::draft::build(draft, o, &args)),
            None => build_to_stdout(opts, &args, |o| Some(epubforge::build_one(&projects[0], o))),
        };
    }
    let (drafted, unread) = super::draft::build_all(&drafts, &opts, &args);
    let drafts_failed = unread + drafted.iter().filter(|o| o.result.is_err()).count();
    if projects.is_empty() {
        let mut failed = drafts_failed;
        if args.targets.contains(&TargetArg::Azw3) {
            failed += super::azw3::convert_all(&drafted, args.quiet);
        }
        return exit_code(failed);
    }
    build_projects(&projects, &opts, &args, drafts_failed)
}

/// Success when nothing failed.
fn exit_code(failed: usize) -> ExitCode {
    match failed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// Builds the projects (in parallel for several) with a progress bar and, for a batch, a
/// summary; `failed` books of the run failed before.
fn build_projects(
    projects: &[PathBuf],
    opts: &BuildOptions,
    args: &BuildArgs,
    failed_before: usize,
) -> ExitCode {
    note_jobs(args, projects.len());
    let many = projects.len() > 1;
    let bar = progress_bar(projects.len(), many, args.quiet);
    // Lines come escaped (and a problem with colours): see [`report`].
    let print = |line: String| {
        if bar.is_hidden() {
            term::err_styled_line(&line);
        } else {
            bar.println(term::for_bar(&line));
        }
    };
    let start = Instant::now();
    let done = |o: &Outcome| {
        report(o, args, &print);
        bar.inc(1);
    };
    let outcomes = epubforge::build_all(projects, opts, args.jobs.unwrap_or(0), &done);
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
        term::err(&format!(
            "{} books: {} built, {} up to date, {} failed ({})",
            outcomes.len(),
            outcomes.len() - failed - up_to_date,
            up_to_date,
            failed,
            seconds(start.elapsed())
        ));
    }
    exit_code(failed + failed_before)
}

/// The build options the arguments and the environment ask for; a bad environment is exit
/// status 2, as bad arguments are.
fn options(args: &BuildArgs) -> Result<BuildOptions, ExitCode> {
    let from_env = BuildOptions::from_env().map_err(|e| {
        term::err_styled(&term::diagnostic(&e.diagnostic(), None));
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
        outline_sizes: args.verbose,
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
        term::problem(&Diagnostic::note(
            Code::Usage,
            format!(
                "-j {jobs} is more than {books} book(s) on {cores} core(s) can use; building with {threads} threads"
            ),
        ));
    }
}

/// Whether the EPUB goes to standard output (`-o -`).
fn to_stdout(args: &BuildArgs) -> bool {
    args.output.as_deref() == Some(Path::new("-"))
}

/// `-o -`: `build` builds into a temporary folder of its own, without a cache, and the EPUB is
/// copied to standard output; the status goes to stderr as usual.
fn build_to_stdout(
    opts: BuildOptions,
    args: &BuildArgs,
    build: impl FnOnce(&BuildOptions) -> Option<Outcome>,
) -> ExitCode {
    let tmp = match tempfile::Builder::new().prefix("epubforge-").tempdir() {
        Ok(tmp) => tmp,
        Err(source) => {
            let e = epubforge::Error::Io {
                path: std::env::temp_dir(),
                action: "cannot create a temporary folder",
                source,
            };
            term::problem(&e.diagnostic());
            return ExitCode::FAILURE;
        }
    };
    let opts = BuildOptions {
        output: Some(tmp.path().join("book.epub")),
        cache: false,
        ..opts
    };
    let Some(outcome) = build(&opts) else {
        return ExitCode::FAILURE;
    };
    report(&outcome, args, &|line| term::err_styled_line(&line));
    let Ok(built) = &outcome.result else {
        return ExitCode::FAILURE;
    };
    // A closed pipe or a full disk on stdout is [`term::finish`]'s to report.
    let copied =
        std::fs::File::open(&built.output).and_then(|mut epub| term::copy_to_stdout(&mut epub));
    match copied {
        Ok(_) => ExitCode::SUCCESS,
        Err(source) => {
            let e = epubforge::Error::Io {
                path: built.output.clone(),
                action: "cannot read the EPUB built",
                source,
            };
            term::problem(&e.diagnostic());
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
        false => term::path(&r.output),
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
        print(plain(&format!("timings: {}", stages.join(", "))));
    }
    if r.timings.is_empty() {
        print(plain(&status));
    } else {
        print(plain(&format!("{status} in {}", seconds(o.elapsed))));
    }
    // The text ledger: what of the chapters' text is not in the book, and why.
    if let Some(removed) = r.removed.summary() {
        print(plain(&format!("            {removed}")));
    }
}

/// How many warnings of one kind are printed before the rest are only counted (`-v` prints all).
const SHOWN_PER_KIND: usize = 10;

/// Text for `print`: escaped for a terminal.
fn plain(line: &str) -> String {
    epubforge::escape::text(line).into_owned()
}

/// Prints warnings grouped by kind (code), in the order kinds first appear: the first few of
/// each (rendered as `check` renders them, paths shown from `base`), a line counting the rest,
/// and a summary line; with `verbose`, every one.
fn print_warnings(
    warnings: &[Diagnostic],
    base: Option<&Path>,
    verbose: bool,
    print: &dyn Fn(String),
) {
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
            print(term::diagnostic(w, base));
        }
        if list.len() > shown {
            print(plain(&format!(
                "  … and {} more {} warnings (-v lists them all)",
                list.len() - shown,
                code.as_str()
            )));
        }
    }
    if warnings.len() > 1 {
        let counts: Vec<String> = kinds
            .iter()
            .map(|(code, list)| format!("{} {}", list.len(), code.as_str()))
            .collect();
        print(plain(&format!(
            "{} warnings: {}",
            warnings.len(),
            counts.join(", ")
        )));
    }
}

/// With `-v`, the volumes and chapters of the book as built, paths shown from its folder.
fn print_outline(
    r: &epubforge::BuildReport,
    o: &Outcome,
    args: &BuildArgs,
    print: &dyn Fn(String),
) {
    if let Some(outline) = r.outline.as_ref().filter(|_| args.verbose) {
        let base = o.project.is_dir().then_some(o.project.as_path());
        print(plain(outline.render(base).trim_end()));
    }
}

/// Prints one book's outcome: warnings and the status line on stderr, the EPUB's path on
/// stdout (scripts read it). `print` takes one line (or a rendered problem) that is escaped
/// already and may carry colours.
pub(crate) fn report(o: &Outcome, args: &BuildArgs, print: &dyn Fn(String)) {
    let base = term::base_of(&o.project);
    match &o.result {
        Ok(r) => {
            if !args.quiet {
                print_outline(r, o, args, print);
                print_warnings(&r.warnings, base, args.verbose, print);
                for s in &r.sources {
                    if args.verbose || s.detection == Detection::Guessed {
                        print(plain(&format!(
                            "{}: read as {}",
                            term::path(&s.path),
                            s.encoding
                        )));
                    }
                }
                status_line(r, o, args, print);
                for other in &r.also {
                    print_outline(other, o, args, print);
                    print_warnings(&other.warnings, base, args.verbose, print);
                    status_line(other, o, args, print);
                }
            }
            if !to_stdout(args) {
                term::out(&term::path(&r.output));
                for other in &r.also {
                    term::out(&term::path(&other.output));
                }
            }
        }
        Err(e) => {
            print(plain(&format!(
                "failed      {} in {}",
                term::path(&o.project),
                seconds(o.elapsed)
            )));
            print(term::diagnostic(&e.diagnostic(), base));
        }
    }
}
