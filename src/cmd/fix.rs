//! `epubforge fix`: repair (and convert) an EPUB, or every EPUB under a folder; print each
//! repair by kind, what is left and why, the text counted before and after, and for a folder a
//! summary. The path of each EPUB written goes to stdout.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use epubforge::{Cleanup, FixOptions, FixOutcome, FixReport, FixStatus, Severity};
use indicatif::{ProgressBar, ProgressStyle};

use super::term;
use crate::cli::{FixArgs, TargetArg};

/// Runs `epubforge fix`.
pub fn run(args: FixArgs) -> ExitCode {
    let opts = match options(&args) {
        Ok(opts) => opts,
        Err(code) => return code,
    };
    if let Err(e) = opts.validate() {
        term::problem(&e.diagnostic());
        return ExitCode::from(2);
    }
    match (&args.all, &args.epub) {
        (Some(dir), _) => fix_library(dir, &opts, &args),
        (None, Some(epub)) => {
            let start = Instant::now();
            let outcome = FixOutcome {
                input: epub.clone(),
                result: epubforge::fix(epub, &opts),
                elapsed: start.elapsed(),
            };
            report(&outcome, &args, &|line| term::err_styled_line(&line));
            match outcome.result {
                Ok(_) => ExitCode::SUCCESS,
                Err(_) => ExitCode::FAILURE,
            }
        }
        (None, None) => ExitCode::from(2),
    }
}

/// The options the arguments and the environment ask for.
fn options(args: &FixArgs) -> Result<FixOptions, ExitCode> {
    let source_date_epoch = epubforge::BuildOptions::from_env()
        .map_err(|e| {
            term::problem(&e.diagnostic());
            ExitCode::from(2)
        })?
        .source_date_epoch;
    Ok(FixOptions {
        output: args.output.clone(),
        in_place: args.in_place,
        targets: TargetArg::targets(&args.targets),
        convert: args.convert.clone(),
        typography: args.typography,
        cleanup: args.cleanup.as_deref().map(Cleanup::parse),
        writing_mode: args.writing_mode,
        fonts: args.font.clone(),
        epubcheck: (!args.no_epubcheck).then(|| Duration::from_secs(args.epubcheck_timeout)),
        source_date_epoch,
        force: args.force,
    })
}

/// `fix --all DIR`: every EPUB under DIR, a progress bar, a line per book and a summary.
fn fix_library(dir: &std::path::Path, opts: &FixOptions, args: &FixArgs) -> ExitCode {
    let epubs = epubforge::find_epubs(dir);
    if epubs.is_empty() {
        let d = epubforge::Diagnostic::error(epubforge::Code::Usage, "no EPUB found")
            .at(dir)
            .hint("name a folder holding .epub files, or one EPUB without --all");
        term::problem(&d);
        return ExitCode::FAILURE;
    }
    let bar = progress_bar(epubs.len(), args.quiet);
    // Lines come escaped (and a problem with colours), as `build` prints them.
    let print = |line: String| match bar.is_hidden() {
        true => term::err_styled_line(&line),
        false => bar.println(term::for_bar(&line)),
    };
    let start = Instant::now();
    let done = |o: &FixOutcome| {
        report(o, args, &print);
        bar.inc(1);
    };
    let outcomes = epubforge::fix_all(&epubs, opts, args.jobs.unwrap_or(0), &done);
    bar.finish_and_clear();
    let status = |s: FixStatus| {
        outcomes
            .iter()
            .filter(|o| o.result.as_ref().is_ok_and(|r| r.status == s))
            .count()
    };
    let failed: Vec<&FixOutcome> = outcomes.iter().filter(|o| o.result.is_err()).collect();
    term::err(&format!(
        "{} EPUBs: {} fixed, {} already clean, {} could not be fixed ({:.2} s)",
        outcomes.len(),
        status(FixStatus::Fixed),
        status(FixStatus::AlreadyClean),
        failed.len(),
        start.elapsed().as_secs_f64()
    ));
    for o in &failed {
        if let Err(e) = &o.result {
            let why = e.diagnostic().message;
            term::err(&format!("  {}: {why}", term::path(&o.input)));
        }
    }
    match failed.is_empty() {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    }
}

/// Text for `print`: escaped for a terminal.
fn plain(line: &str) -> String {
    epubforge::escape::text(line).into_owned()
}

/// A problem for `print`: rendered as every command renders one, one line or block.
fn problem(d: &epubforge::Diagnostic) -> String {
    term::diagnostic(d, None).trim_end().to_string()
}

/// Prints what one fix did: its repairs and what is left (all of it, or the first few of
/// each kind for a library), a status line, and the outputs' paths on stdout. `print` takes a
/// line (or a rendered problem) that is escaped already and may carry colours.
fn report(o: &FixOutcome, args: &FixArgs, print: &dyn Fn(String)) {
    let r = match &o.result {
        Ok(r) => r,
        Err(e) => {
            let d = e.diagnostic();
            let d = match d.path {
                Some(_) => d,
                None => d.at(&o.input),
            };
            print(problem(&d));
            return;
        }
    };
    if !args.quiet {
        for line in shown(r, args.verbose) {
            print(line);
        }
        print(plain(&status_line(r, o.elapsed)));
        if args.verbose {
            let stages: Vec<String> = r
                .timings
                .iter()
                .map(|(stage, d)| format!("{stage} {:.1} ms", d.as_secs_f64() * 1e3))
                .collect();
            print(plain(&format!("timings: {}", stages.join(", "))));
        }
    }
    for out in &r.outputs {
        term::out(&term::path(out));
    }
    if args.targets.contains(&TargetArg::Azw3) {
        azw3(r, print);
    }
}

/// `--target azw3`: the Kindle EPUB converted by calibre, beside it.
fn azw3(r: &FixReport, print: &dyn Fn(String)) {
    let kindle = r
        .outputs
        .iter()
        .find(|p| p.to_string_lossy().ends_with(".kindle.epub"))
        .or(r.outputs.first().filter(|_| r.outputs.len() == 1));
    let Some(kindle) = kindle else { return };
    match super::azw3::convert(kindle) {
        Ok(azw3) => {
            print(plain(&format!("converted   {}", term::path(&azw3))));
            term::out(&term::path(&azw3));
        }
        Err(e) => print(problem(&e.diagnostic(kindle))),
    }
}

/// The diagnostics printed: all of them with -v, else every repair and at most three of each
/// other kind, then how many more of each kind were not shown.
fn shown(r: &FixReport, all: bool) -> Vec<String> {
    let mut seen: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut lines = Vec::new();
    for d in &r.diagnostics {
        let n = seen.entry(d.code.to_string()).or_default();
        *n += 1;
        if all || d.code == epubforge::Code::Fixed || *n <= SHOWN {
            lines.push(problem(d));
        }
    }
    for (code, n) in seen.into_iter().filter(|(_, n)| !all && *n > SHOWN) {
        lines.push(plain(&format!(
            "… and {} more [{code}] (-v shows them)",
            n - SHOWN
        )));
    }
    lines
}

/// Problems of one kind shown without -v.
const SHOWN: usize = 3;

/// `fixed  OUT (…)` or `clean  BOOK (…)`.
fn status_line(r: &FixReport, elapsed: Duration) -> String {
    let time = format!("{:.2} s", elapsed.as_secs_f64());
    if r.status == FixStatus::AlreadyClean {
        return format!(
            "clean       {} (no problems found, nothing asked: nothing written; {time})",
            term::path(&r.input)
        );
    }
    let repaired: usize = r.fixed.iter().map(|(_, n)| n).sum();
    let text = match (r.chars_before, r.chars_after) {
        (Some(a), Some(b)) => format!("; text {a} → {b} letters and digits"),
        _ => String::new(),
    };
    // The rebuild's own repairs (markup the sanitiser mended, files it could not carry) are
    // notes, not problems an EPUB checker finds: counted apart so that "0 found" does not read
    // as "nothing changed".
    let notes = (r.diagnostics.iter())
        .filter(|d| d.code != epubforge::Code::Fixed && d.severity == Severity::Note)
        .count();
    let notes = match notes {
        0 => String::new(),
        n => format!(", {n} changes noted"),
    };
    let outputs: Vec<String> = r.outputs.iter().map(|p| term::path(p)).collect();
    format!(
        "fixed       {} ({} problems found, {repaired} repaired in {} kinds, {} left{notes}{text}; {time})",
        outputs.join(", "),
        r.found,
        r.fixed.len(),
        r.remaining,
    )
}

/// A bar for a library; nothing when stderr is not a terminal.
fn progress_bar(len: usize, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} EPUBs {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar
}
