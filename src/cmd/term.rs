//! Every line the binary prints goes through here, for two reasons.
//!
//! - Escaping: text is escaped for the terminal ([`epubforge::escape`]) in this one place, so a
//!   file name, a metadata value or an EPUB from a stranger cannot send the terminal control
//!   sequences (set its title, clear the screen, erase the warnings above) through any message
//!   of any command. Paths printed alone escape line breaks too ([`path`]).
//! - Closed or full streams: `println!` panics when stdout is a closed pipe (`inspect BOOK |
//!   head -1`) or a full disk. Here, as in ripgrep, a closed pipe ends the output quietly (the
//!   reader wanted no more; the command ends with the status it would have had), and any other
//!   failure to write stdout is one line on stderr and the command's failure status
//!   ([`finish`]). A failure to write stderr has nowhere to be reported and is ignored.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout cannot take more: nothing more is written to it.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
/// The first failure to write stdout that is not a closed pipe, reported by [`finish`].
static STDOUT_FAILED: Mutex<Option<std::io::Error>> = Mutex::new(None);

/// A path for a message or a line of its own: control characters, line breaks included, and
/// bytes that are not UTF-8 escaped.
pub fn path(p: &Path) -> String {
    epubforge::escape::path(p)
}

/// Prints a line of text on stdout, escaped.
pub fn out(line: &str) {
    let mut text = epubforge::escape::text(line).into_owned();
    text.push('\n');
    out_bytes(text.as_bytes());
}

/// Writes `bytes` to stdout as they are (an EPUB for `-o -`, a man page, a script); false once
/// stdout cannot take them.
pub fn out_bytes(bytes: &[u8]) -> bool {
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return false;
    }
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes) {
        Ok(()) => true,
        Err(e) => {
            stdout_failed(e);
            false
        }
    }
}

/// Copies `reader` to stdout as it is; false once stdout cannot take it. A failure to read is
/// the caller's: `Err`.
pub fn copy_to_stdout(reader: &mut impl std::io::Read) -> std::io::Result<bool> {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(true),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if !out_bytes(&buf[..n]) {
            return Ok(false);
        }
    }
}

/// Stdout failed with `e`: nothing more goes to it, and [`finish`] reports `e` unless it is a
/// closed pipe.
fn stdout_failed(e: std::io::Error) {
    STDOUT_GONE.store(true, Ordering::Relaxed);
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        let mut failed = STDOUT_FAILED.lock().unwrap_or_else(|p| p.into_inner());
        failed.get_or_insert(e);
    }
}

/// Prints a line of text on stderr, escaped.
pub fn err(line: &str) {
    let mut text = epubforge::escape::text(line).into_owned();
    text.push('\n');
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// Prints text that is already escaped and may carry colours (a rendered diagnostic) on
/// stderr, through `anstream`, which strips the colours off a terminal or under `NO_COLOR`.
pub fn err_styled(rendered: &str) {
    let _ = anstream::stderr().write_all(rendered.as_bytes());
}

/// Prints a line that is already escaped and may carry colours on stderr (see [`err_styled`]).
pub fn err_styled_line(line: &str) {
    err_styled(&format!("{line}\n"));
}

/// A styled line for a progress bar's `println`, which writes to the terminal itself: the
/// colours are taken off where stderr would not show them (`NO_COLOR`).
pub fn for_bar(line: &str) -> String {
    match anstream::AutoStream::choice(&std::io::stderr()) {
        anstream::ColorChoice::Never => anstream::adapter::strip_str(line).to_string(),
        _ => line.to_string(),
    }
}

/// A problem, rendered by the library's one renderer ([`epubforge::render::text`]) with
/// colours (which [`err_styled`] strips where they do not belong); `base` is the folder paths
/// are shown from.
pub fn diagnostic(d: &epubforge::Diagnostic, base: Option<&Path>) -> String {
    epubforge::render::text(d, base, true)
}

/// Prints a problem of the command line itself (a usage error, a failure to write) on stderr,
/// rendered as every other problem is ([`diagnostic`]), paths as given.
pub fn problem(d: &epubforge::Diagnostic) {
    err_styled(&diagnostic(d, None));
}

/// The folder that paths of findings about `target` (a project folder or its metadata file)
/// are shown from: the folder itself, or the file's folder; None for the current folder.
pub fn base_of(target: &Path) -> Option<&Path> {
    let base = match target.is_dir() {
        true => Some(target),
        false => target.parent(),
    };
    base.filter(|b| !b.as_os_str().is_empty() && *b != Path::new("."))
}

/// The exit status of a command that returned `code`: `failure` instead when its stdout could
/// not be written (a full disk), said in one line on stderr. A closed pipe is no failure.
pub fn finish(code: ExitCode, failure: u8) -> ExitCode {
    if !STDOUT_GONE.load(Ordering::Relaxed)
        && let Err(e) = std::io::stdout().lock().flush()
    {
        stdout_failed(e);
    }
    let failed = STDOUT_FAILED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    match failed {
        Some(e) => {
            let d = epubforge::Diagnostic::error(
                epubforge::Code::Io,
                format!("cannot write to standard output: {e}"),
            );
            problem(&d);
            ExitCode::from(failure)
        }
        None => code,
    }
}
