//! `build --target azw3`: the Kindle EPUB converted to AZW3 by calibre's `ebook-convert`.
//! We write no MOBI/KF8 ourselves: calibre's converter is the one Kindle users trust, and the
//! Kindle EPUB is made for it (two-level TOC, numbered note backlinks, no constructs it
//! garbles). `EBOOK_CONVERT` names another `ebook-convert` than the one on the PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use epubforge::{BuildReport, Outcome, Target};

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
                    eprintln!("converted   {}", azw3.display());
                }
                println!("{}", azw3.display());
            }
            Err(e) => {
                eprintln!("error: {}: {e}", kindle.display());
                failed += 1;
            }
        }
    }
    failed
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
fn convert(epub: &Path) -> Result<PathBuf, String> {
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
    let run = Command::new(&tool)
        .arg(epub)
        .arg(&tmp)
        // calibre may start QtWebEngine, which needs these without a display or as root.
        .env("QT_QPA_PLATFORM", "offscreen")
        .env("QTWEBENGINE_DISABLE_SANDBOX", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let output = match run {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "AZW3 needs calibre's `ebook-convert` ({} not found): install calibre \
                 (https://calibre-ebook.com) or set EBOOK_CONVERT to its path; the Kindle EPUB \
                 was written, and Send to Kindle takes it as it is",
                tool.display()
            ));
        }
        Err(e) => return Err(format!("cannot run {}: {e}", tool.display())),
    };
    if !output.status.success() {
        let _ = std::fs::remove_file(&tmp);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(format!(
            "ebook-convert failed ({}): {}",
            output.status,
            last.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ));
    }
    std::fs::rename(&tmp, &out).map_err(|e| format!("cannot move the AZW3 into place: {e}"))?;
    Ok(out)
}
