//! `build --target azw3`: the Kindle EPUB converted to AZW3 by calibre's `ebook-convert`.
//! We write no MOBI/KF8 ourselves: calibre's converter is the one Kindle users trust, and the
//! Kindle EPUB is made for it (two-level TOC, numbered note backlinks, no constructs it
//! garbles). `EBOOK_CONVERT` names another `ebook-convert` than the one on the PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use epubforge::{BuildReport, Code, Diagnostic, Outcome, Target};

use super::term;

/// Converts the Kindle EPUB of every book (and volume) built; prints what it did; returns how
/// many failed.
pub fn convert_all(outcomes: &[Outcome], quiet: bool) -> usize {
    let mut failed = 0;
    let kindle = outcomes
        .iter()
        .filter_map(|o| o.result.as_ref().ok())
        .flat_map(kindle_epubs);
    for kindle in kindle {
        match convert(kindle) {
            Ok(azw3) => {
                if !quiet {
                    term::err(&format!("converted   {}", term::path(&azw3)));
                }
                term::out(&term::path(&azw3));
            }
            Err(e) => {
                term::err_styled(&term::diagnostic(&e.diagnostic(kindle), None));
                failed += 1;
            }
        }
    }
    failed
}

/// Why no AZW3 was made of a Kindle EPUB.
#[derive(Debug, thiserror::Error)]
pub enum Azw3Error {
    /// `ebook-convert` is not there.
    #[error("AZW3 needs calibre's `ebook-convert` ({} not found)", term::path(.0))]
    NoConverter(PathBuf),
    /// It could not be started or waited for.
    #[error("cannot run {}: {source}", term::path(tool))]
    Run {
        /// The converter.
        tool: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// It ended without success.
    #[error("ebook-convert failed ({status}): {last_lines}")]
    Failed {
        /// Its exit status.
        status: std::process::ExitStatus,
        /// The last lines it wrote to stderr.
        last_lines: String,
    },
    /// It was stopped (by an interrupt).
    #[error("ebook-convert was stopped")]
    Stopped,
    /// Its temporary files could not be made, or the AZW3 not moved into place.
    #[error("{action}: {source}")]
    Files {
        /// What we were doing.
        action: &'static str,
        /// What went wrong.
        source: std::io::Error,
    },
}

impl Azw3Error {
    /// The error as a problem of the Kindle EPUB at `kindle`, with what to do about it.
    pub fn diagnostic(&self, kindle: &Path) -> Diagnostic {
        let d = Diagnostic::error(Code::Azw3, self.to_string()).at(kindle);
        match self {
            Azw3Error::NoConverter(_) => d.hint(
                "install calibre (https://calibre-ebook.com) or set EBOOK_CONVERT to its path; \
                 the Kindle EPUB was written, and Send to Kindle takes it as it is",
            ),
            _ => d,
        }
    }
}

/// The Kindle EPUBs among a build's outputs (one per volume).
fn kindle_epubs(report: &BuildReport) -> impl Iterator<Item = &Path> {
    std::iter::once(report)
        .chain(&report.also)
        .filter(|r| r.target == Target::Kindle)
        .map(|r| r.output.as_path())
}

/// `BOOK.kindle.epub` -> `BOOK.azw3`, beside it.
fn azw3_path(epub: &Path) -> PathBuf {
    let name = epub.file_name().unwrap_or_default().to_string_lossy();
    let stem = name
        .strip_suffix(".kindle.epub")
        .or_else(|| name.strip_suffix(".epub"))
        .unwrap_or(&name);
    epub.with_file_name(format!("{stem}.azw3"))
}

/// Converts `epub` to AZW3 beside it (left alone when it is newer than the EPUB); written to
/// a temporary name and moved into place, so a failed conversion leaves the last good one.
/// `ebook-convert` runs registered with the interrupt handler, and so does its partial file:
/// a signal stops the one and removes the other.
pub fn convert(epub: &Path) -> Result<PathBuf, Azw3Error> {
    let out = azw3_path(epub);
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(a), Some(e)) = (modified(&out), modified(epub))
        && a > e
    {
        return Ok(out);
    }
    let tool =
        std::env::var_os("EBOOK_CONVERT").map_or(PathBuf::from("ebook-convert"), PathBuf::from);
    // Not a hidden name: ebook-convert takes an output starting with `.` for a format.
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    let tmp = out.with_file_name(format!("{stem}.partial-{}.azw3", std::process::id()));
    let files = |action| move |source| Azw3Error::Files { action, source };
    let (_, partial) =
        epubforge::create_registered(|| Ok(&tmp)).map_err(files("cannot make the partial AZW3"))?;
    let logs = tempfile::tempfile().map_err(files("cannot make a temporary file"))?;
    let status = run_converter(&tool, epub, &tmp, &logs);
    let result = status.and_then(|status| {
        if status.success() {
            return Ok(());
        }
        Err(Azw3Error::Failed {
            status,
            last_lines: last_lines(logs),
        })
    });
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    epubforge::record_replaced(&out, || std::fs::rename(&tmp, &out))
        .map_err(files("cannot move the AZW3 into place"))?;
    drop(partial);
    Ok(out)
}

/// Runs `tool` on `epub` to make `tmp`, its stderr into `logs` (a file: a pipe nobody reads
/// while we wait would stall a chatty run), until it ends.
fn run_converter(
    tool: &Path,
    epub: &Path,
    tmp: &Path,
    logs: &std::fs::File,
) -> Result<std::process::ExitStatus, Azw3Error> {
    let run = |source| Azw3Error::Run {
        tool: tool.to_path_buf(),
        source,
    };
    let stderr = logs.try_clone().map_err(run)?;
    let mut command = Command::new(tool);
    command
        .arg(epub)
        .arg(tmp)
        // calibre may start QtWebEngine, which needs these without a display or as root.
        .env("QT_QPA_PLATFORM", "offscreen")
        .env("QTWEBENGINE_DISABLE_SANDBOX", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let child = match epubforge::spawn_registered(&mut command) {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Azw3Error::NoConverter(tool.to_path_buf()));
        }
        Err(e) => return Err(run(e)),
    };
    match child.wait_for(None) {
        Ok(Some(status)) => Ok(status),
        Ok(None) => Err(Azw3Error::Stopped),
        Err(e) => Err(run(e)),
    }
}

/// The last five lines `ebook-convert` wrote to stderr (from its last 64 KB), joined with
/// ` / `.
fn last_lines(mut logs: std::fs::File) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let len = logs.metadata().map_or(0, |m| m.len());
    let mut text = Vec::new();
    let _ = logs.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let _ = logs.read_to_end(&mut text);
    let text = String::from_utf8_lossy(&text);
    let last: Vec<&str> = text.lines().rev().take(5).collect();
    last.into_iter().rev().collect::<Vec<_>>().join(" / ")
}
