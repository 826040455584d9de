//! `epubforge check`: review a project or an EPUB and print compiler-style findings, or JSON.
//! Exit status: 0 clean, 1 warnings only with `--strict`, 2 errors.

use std::path::Path;
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
    let value = serde_json::json!({
        "target": report.target.to_string_lossy(),
        "errors": report.errors(),
        "warnings": report.warnings(),
        "exit_code": code,
        "outline": report.outline,
        "findings": report.findings,
    });
    // serde escapes every control character in a string: JSON needs no more.
    let mut json = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "{}".into());
    json.push('\n');
    super::term::out_bytes(json.as_bytes());
}

fn print_text(report: &CheckReport, args: &CheckArgs, is_epub: bool) {
    let base = if is_epub {
        None
    } else if args.target.is_dir() {
        Some(args.target.as_path())
    } else {
        args.target.parent()
    };
    let base = base.filter(|b| !b.as_os_str().is_empty() && *b != Path::new("."));
    if let Some(outline) = &report.outline {
        term::out(outline.render(base).trim_end_matches('\n'));
    }
    for f in &report.findings {
        // Rendered escaped (colours are added after escaping).
        term::err_styled(&format!("{}\n", f.render(base, true)));
    }
    if args.verbose {
        for (stage, time) in &report.timings {
            term::err(&format!("  {stage}: {:.1} ms", time.as_secs_f64() * 1000.0));
        }
    }
    let (e, w) = (report.errors(), report.warnings());
    let target = term::path(&report.target);
    if e == 0 && w == 0 {
        term::err(&format!("{target}: no problems found"));
    } else {
        term::err(&format!("{target}: {e} error(s), {w} warning(s)"));
    }
}

/// `error:` in bold red (anstream strips it off a terminal or under NO_COLOR).
pub fn error_label() -> String {
    let style = anstyle::AnsiColor::Red.on_default().bold();
    format!("{style}error:{style:#}")
}
