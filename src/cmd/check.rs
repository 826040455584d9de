//! `epubforge check`: review a project or an EPUB and print compiler-style findings, or JSON.
//! Exit status: 0 clean, 1 warnings only with `--strict`, 2 errors.

use std::process::ExitCode;
use std::time::Duration;

use epubforge::{CheckReport, LoadOptions};

use super::term;
use crate::cli::{CheckArgs, Format};

/// Runs `epubforge check`.
pub fn run(args: CheckArgs) -> ExitCode {
    let is_epub = args
        .target
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("epub"))
        && args.target.is_file();
    let report = if is_epub {
        let epubcheck = (!args.no_epubcheck).then(|| Duration::from_secs(args.epubcheck_timeout));
        let mut report = epubforge::check_epub(&args.target, epubcheck);
        epubforge::check_epub_stores(&args.target, &args.stores, &mut report);
        report
    } else {
        let opts = LoadOptions {
            allow_outside_paths: args.allow_outside_paths,
        };
        let mut report = epubforge::check_project(&args.target, &opts);
        epubforge::check_project_stores(&args.target, &opts, &args.stores, &mut report);
        report
    };
    let code = report.exit_code(args.strict);
    match args.format {
        Format::Json => print_json(&report, code),
        Format::Text => print_text(&report, &args, is_epub),
    }
    ExitCode::from(code)
}

fn print_json(report: &CheckReport, code: u8) {
    let outline = serde_json::json!({ "outline": report.outline });
    let json = epubforge::render::json(&report.target, &report.findings, code, &outline);
    super::term::out_bytes(json.as_bytes());
}

fn print_text(report: &CheckReport, args: &CheckArgs, is_epub: bool) {
    let base = match is_epub {
        true => None,
        false => term::base_of(&args.target),
    };
    if let Some(outline) = &report.outline {
        term::out(outline.render(base).trim_end_matches('\n'));
    }
    for f in &report.findings {
        // Rendered escaped (colours are added after escaping).
        term::err_styled_line(&term::diagnostic(f, base));
    }
    if args.verbose {
        for (stage, time) in &report.timings {
            term::err(&format!("  {stage}: {:.1} ms", time.as_secs_f64() * 1000.0));
        }
    }
    term::err(&epubforge::render::summary(
        &report.target,
        &report.findings,
    ));
}
