//! A chapter file read from disk and decoded, and what decoding changed, as warnings.
//!
//! Apart from the conversion because `init`, `check` and the lint read chapter files this same
//! way without converting them: one reading, so that every command sees the same text at the
//! same lines.

use std::path::Path;

use crate::convert::SourceKind;
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::project::{Boundary, ChapterSource};
use crate::source::{self, Decoded};

/// Reads and decodes a chapter file, opened through the project folder's `boundary`; a
/// decoding error points at the first bad byte.
pub(crate) fn read_chapter(boundary: &Boundary, src: &ChapterSource) -> Result<Decoded> {
    decode_file(
        boundary,
        &src.path,
        src.encoding.as_deref(),
        src.encoding_errors,
    )
}

/// Reads and decodes the chapter file at `path` (the encoding forced or, when None, detected):
/// the one way chapter text is read, by the build, `check` and `init`, always opened through
/// the project folder's `boundary`.
pub(crate) fn decode_file(
    boundary: &Boundary,
    path: &Path,
    encoding: Option<&str>,
    errors: source::EncodingErrors,
) -> Result<Decoded> {
    let bytes = boundary.read_lent(path, u64::MAX, "file")?;
    source::decode(&bytes, encoding, errors).map_err(|e| decode_error(path, &bytes, &e))
}

/// A decoding error with the line and column (in characters) of the first bad byte.
pub(super) fn decode_error(path: &Path, bytes: &[u8], e: &source::DecodeError) -> Error {
    let (line, column) = match *e {
        source::DecodeError::Malformed { offset, line, .. } => {
            let before = bytes.get(..offset).unwrap_or(bytes);
            let start = before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
            let prefix = String::from_utf8_lossy(&before[start..]);
            (Some(line), Some(prefix.chars().count() + 1))
        }
        _ => (None, None),
    };
    Error::Decode {
        path: path.to_path_buf(),
        line,
        column,
        message: e.to_string(),
        hint: e.hint(),
    }
}

/// What decoding changed: control characters dropped, bad bytes replaced; and what becomes of
/// NUL characters in a file of `kind` (plain text drops them like other controls).
pub(super) fn decode_warnings(path: &Path, decoded: &Decoded, kind: SourceKind) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let (nuls, nul_line) = decoded.nuls;
    let (dropped, line) = match kind {
        SourceKind::Text => (
            decoded.dropped_controls + nuls,
            decoded.first_dropped_line.into_iter().chain(nul_line).min(),
        ),
        _ => (decoded.dropped_controls, decoded.first_dropped_line),
    };
    if dropped > 0 {
        let message = format!("dropped {dropped} control character(s) that XML does not allow");
        warnings.push(
            Diagnostic::warning(Code::ControlCharacters, message)
                .at(path)
                .line(line),
        );
    }
    let nul_fate = match kind {
        SourceKind::Text => None,
        SourceKind::Markdown => Some("replaced with U+FFFD, as CommonMark requires"),
        SourceKind::Html => Some("dropped or replaced with U+FFFD, as HTML parsing does"),
    };
    if let Some(fate) = nul_fate.filter(|_| nuls > 0) {
        let message = format!("{nuls} NUL character(s) {fate}");
        warnings.push(
            Diagnostic::warning(Code::ControlCharacters, message)
                .at(path)
                .line(nul_line),
        );
    }
    warnings.extend(damage_warnings(path, decoded));
    warnings
}

/// Most damaged places warned about one by one in a file; the rest are counted in the last.
pub(super) const MAX_DAMAGE_WARNINGS: usize = 20;

/// One `encoding` warning at each line where bad bytes became U+FFFD (a line once): the
/// build goes on, `--strict` stops it.
pub(super) fn damage_warnings(path: &Path, decoded: &Decoded) -> Vec<Diagnostic> {
    let mut lines = decoded.damaged_lines.clone();
    lines.dedup();
    let encoding = decoded.encoding.name();
    let shown = lines.len().min(MAX_DAMAGE_WARNINGS);
    lines
        .iter()
        .take(shown)
        .enumerate()
        .map(|(k, &line)| {
            let here = decoded.damaged_lines.iter().filter(|&&l| l == line).count();
            let mut message =
                format!("{here} damaged byte sequence(s), not valid {encoding}, read as U+FFFD");
            if k + 1 == shown && lines.len() > shown {
                let more = lines.len() - shown;
                message.push_str(&format!(" ({more} more line(s) like it in this file)"));
            }
            Diagnostic::warning(Code::Encoding, message)
                .at(path)
                .line(Some(line))
                .hint("find an undamaged copy, or mend the character by hand; `--strict` stops the build here")
        })
        .collect()
}
