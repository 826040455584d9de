//! The one place a problem is put into words, whichever command found it (`build`, `check`,
//! `init`, `inspect`, `watch`): [`text`] lays a [`Diagnostic`] out like a compiler message,
//! [`json`] writes a report's fields as they are, and [`summary`] counts them. A problem reads
//! the same from every command because no command formats one itself; the layout is described
//! in the guide (`guide/src/diagnostics.md`).
//!
//! ```text
//! error[metadata-syntax]: unknown field `autors`, expected one of `title`, `authors`, …
//!   --> metadata.toml:3:1
//!     |
//!   3 | autors = ["Lu Xun"]
//!     | ^
//!   = hint: did you mean `authors`?
//! ```

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[cfg(feature = "cli")]
use serde::Serialize;

use super::{Diagnostic, Severity};

/// Largest file whose lines a message quotes.
const EXCERPT_FILE_LIMIT: u64 = 256 << 20;

/// Longest excerpt of a line, in characters.
const EXCERPT_CHARS: usize = 200;

impl Diagnostic {
    /// The diagnostic as a compiler-style message: severity and code, message, location, the
    /// line of the file with a caret under the column (read from the file, when it is one), and
    /// the hint, one line each. With `color` severity and gutter carry ANSI styles; `base` is
    /// stripped from paths. Everything the user or a file wrote is escaped for a terminal.
    ///
    /// ```
    /// use epubforge::{Code, Diagnostic};
    ///
    /// let d = Diagnostic::warning(Code::Io, "cannot read the cover")
    ///     .at("/book/covers/front.png")
    ///     .hint("is the file there?");
    /// let shown = d.render(Some(std::path::Path::new("/book")), false);
    /// assert!(shown.starts_with("warning[io]: cannot read the cover\n"));
    /// assert!(shown.contains("covers/front.png"));
    /// assert!(shown.contains("hint: is the file there?"));
    /// ```
    pub fn render(&self, base: Option<&Path>, color: bool) -> String {
        text(self, base, color)
    }
}

/// `path:line:column` of `d`, as far as known, with `base` stripped from the path; escaped for a
/// terminal.
pub(crate) fn location(d: &Diagnostic, base: Option<&Path>) -> Option<String> {
    let path = d.path.as_ref()?;
    let shown = base
        .and_then(|b| path.strip_prefix(b).ok())
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(path);
    let mut loc = crate::escape::path(shown);
    if let Some(l) = d.line {
        let _ = write!(loc, ":{l}");
        if let Some(c) = d.column {
            let _ = write!(loc, ":{c}");
        }
    }
    Some(loc)
}

/// Formats `d` like a compiler message: severity and code, message, location, the line of the
/// file with a caret under the column (read from the file, when it is one), and the hint; one
/// line each, the last ending in a line break. With `color`, severity and gutter carry ANSI
/// styles (the caller's stream strips them when it is not a terminal or `NO_COLOR` is set).
/// `base` is stripped from paths to keep them short. Everything the user or a file wrote is
/// escaped for a terminal (`crate::escape`).
pub fn text(d: &Diagnostic, base: Option<&Path>, color: bool) -> String {
    use anstyle::{AnsiColor, Style};
    let paint = |style: Style, s: &str| match color {
        true => format!("{style}{s}{style:#}"),
        false => s.to_string(),
    };
    let (sev_style, sev) = match d.severity {
        Severity::Error => (AnsiColor::Red.on_default().bold(), "error"),
        Severity::Warning => (AnsiColor::Yellow.on_default().bold(), "warning"),
        Severity::Note => (AnsiColor::Cyan.on_default().bold(), "note"),
    };
    let blue = AnsiColor::Blue.on_default().bold();
    let bold = Style::new().bold();
    let mut out = format!(
        "{}{} {}\n",
        paint(sev_style, &format!("{sev}[{}]", d.code)),
        paint(bold, ":"),
        paint(bold, &crate::escape::text(&beneath(&d.message, base)))
    );
    if let Some(loc) = location(d, base) {
        let _ = writeln!(out, "  {} {loc}", paint(blue, "-->"));
    }
    if let Some(excerpt) = excerpt(d) {
        for row in excerpt.lines() {
            let (gutter, rest) = row.split_once('|').unwrap_or((row, ""));
            let _ = writeln!(out, "  {}{rest}", paint(blue, &format!("{gutter}|")));
        }
    }
    if let Some(h) = &d.hint {
        let h = crate::escape::text(h);
        let _ = writeln!(out, "  {} {h}", paint(blue, "= hint:"));
    }
    out
}

/// `message` with the paths in it that lie under `base` (the project's folder) written from
/// there, as the location is: `/home/me/book/images/map.png` reads `images/map.png`. A path
/// is taken where `base/` starts a word (after a space, a quote or a bracket), not inside one.
fn beneath<'m>(message: &'m str, base: Option<&Path>) -> std::borrow::Cow<'m, str> {
    let Some(base) = base
        .and_then(Path::to_str)
        .filter(|b| !b.is_empty() && *b != ".")
    else {
        return message.into();
    };
    let prefix = format!("{}/", base.trim_end_matches('/'));
    if !message.contains(&prefix) {
        return message.into();
    }
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(&prefix) {
        let starts_word = rest[..i]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "\"'`(<[{“‘「".contains(c));
        out.push_str(&rest[..i]);
        if !starts_word {
            out.push_str(&prefix);
        }
        rest = &rest[i + prefix.len()..];
    }
    out.push_str(rest);
    out.into()
}

/// The excerpt under a message: the diagnostic's line of its file with a caret under its column,
/// when the path is a readable file with that line. A control character shows as one
/// replacement character (a tab as a space), so that the caret stays under its column.
fn excerpt(d: &Diagnostic) -> Option<String> {
    let (line, path) = (d.line?, d.path.as_deref()?);
    let src = source_line(path, line)?;
    let shown: String = (src.chars().take(EXCERPT_CHARS))
        .map(|c| match c {
            '\t' => ' ',
            c if crate::escape::is_control_like(c) => '\u{fffd}',
            c => c,
        })
        .collect();
    let column = d.column.unwrap_or(1).min(EXCERPT_CHARS + 1);
    Some(snippet(line, column, &shown))
}

/// The last line of a command's problem report: `TARGET: no problems found`, or how many errors
/// and warnings (notes are not counted); escaped for a terminal.
#[cfg(feature = "cli")]
pub(crate) fn summary(target: &Path, findings: &[Diagnostic]) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let (e, w) = (count(Severity::Error), count(Severity::Warning));
    let target = crate::escape::path(target);
    if e == 0 && w == 0 {
        format!("{target}: no problems found")
    } else {
        format!("{target}: {e} error(s), {w} warning(s)")
    }
}

/// A report for scripts (`--format json`): the target, the counts, the exit status, `extra`'s
/// fields (a project's outline…) and every finding with its fields as they are, pretty-printed
/// and ending in a line break. serde escapes every control character in a string: JSON needs no
/// more.
#[cfg(feature = "cli")]
pub(crate) fn json(
    target: &Path,
    findings: &[Diagnostic],
    exit_code: u8,
    extra: &impl Serialize,
) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let mut value = serde_json::json!({
        "target": target.to_string_lossy(),
        "errors": count(Severity::Error),
        "warnings": count(Severity::Warning),
        "exit_code": exit_code,
    });
    if let (Some(map), Ok(serde_json::Value::Object(more))) =
        (value.as_object_mut(), serde_json::to_value(extra))
    {
        map.extend(more);
    }
    if let Some(map) = value.as_object_mut() {
        map.insert(
            "findings".into(),
            serde_json::to_value(findings).unwrap_or_default(),
        );
    }
    let mut json = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "{}".into());
    json.push('\n');
    json
}

/// Line `line` (1-based) of the file at `path`, decoded as the build decodes a chapter
/// ([`crate::source::decode`]: the same encoding detection and newlines, bad bytes replaced),
/// so that a line of a GBK or Big5 file reads as its text, not as bytes taken for UTF-8;
/// None when it is not a readable regular file or has fewer lines. Findings come file by
/// file, so the last file decoded is kept (while its size and modification time stay).
fn source_line(path: &Path, line: usize) -> Option<String> {
    use std::cell::RefCell;
    use std::rc::Rc;
    type Kept = (PathBuf, u64, Option<std::time::SystemTime>, Rc<str>);
    thread_local! {
        static LAST: RefCell<Option<Kept>> = const { RefCell::new(None) };
    }
    let meta = std::fs::metadata(path).ok()?;
    let (size, modified) = (meta.len(), meta.modified().ok());
    let kept = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|(p, s, m, _)| p == path && *s == size && *m == modified)
            .map(|(.., text)| Rc::clone(text))
    });
    let text = match kept {
        Some(text) => text,
        None => {
            let bytes = crate::fs::read_limited(path, EXCERPT_FILE_LIMIT, "file").ok()?;
            let text: Rc<str> =
                match crate::source::decode(&bytes, None, crate::source::EncodingErrors::Replace) {
                    Ok(decoded) => decoded.text.into(),
                    Err(_) => String::from_utf8_lossy(&bytes).into(),
                };
            let kept = (path.to_path_buf(), size, modified, Rc::clone(&text));
            LAST.with_borrow_mut(|last| *last = Some(kept));
            text
        }
    };
    let found = text.split('\n').nth(line.checked_sub(1)?)?;
    Some(found.trim_end_matches(['\n', '\r']).to_string())
}

/// The compiler-style excerpt: a gutter with the line number, the line, a caret under the
/// (1-based, in characters) column, counting wide CJK characters as two terminal columns.
fn snippet(line: usize, column: usize, source_line: &str) -> String {
    let gutter = line.to_string();
    format!(
        "{pad} |\n{gutter} | {source_line}\n{pad} | {caret}^",
        pad = " ".repeat(gutter.len()),
        caret = " ".repeat(display_width(
            &source_line
                .chars()
                .take(column.saturating_sub(1))
                .collect::<String>()
        )),
    )
}

/// Terminal columns taken by `s`: CJK and other wide characters take two.
fn display_width(s: &str) -> usize {
    s.chars()
        .map(|c| match c as u32 {
            0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF => 2,
            0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x20000..=0x3FFFD => 2,
            _ => 1,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    #[test]
    fn excerpt_of_a_gbk_file_is_decoded_as_the_build_decodes_it() {
        // Regression: the line was read as bytes taken for UTF-8, and a GBK file showed U+FFFD.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.txt");
        let text = "第一章 风起\r\n".to_string()
            + &"话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。\r\n".repeat(20)
            + "他说：我们走吧。\r\n";
        let (bytes, _, bad) = encoding_rs::GBK.encode(&text);
        assert!(!bad);
        std::fs::write(&path, &bytes).unwrap();
        let d = Diagnostic::warning(Code::BrokenLine, "msg")
            .at(&path)
            .line(Some(22))
            .column(3);
        let shown = d.render(Some(dir.path()), false);
        assert!(shown.contains("22 | 他说：我们走吧。\n"), "{shown}");
        assert!(!shown.contains('\u{fffd}'), "{shown}");
        // The file kept for the next finding is read again once it changes.
        std::fs::write(&path, "one\ntwo\n").unwrap();
        let d = Diagnostic::warning(Code::BrokenLine, "msg")
            .at(&path)
            .line(Some(2));
        assert!(d.render(None, false).contains("2 | two\n"));
    }

    #[test]
    fn paths_under_the_project_in_a_message_are_written_from_it() {
        let base = Path::new("/home/me/book");
        let message = "picture \"images/map.png\" cannot be read: /home/me/book/images/map.png: \
             gone; not /home/me/bookends/x nor /x/home/me/book/y (/home/me/book/a.txt)";
        assert_eq!(
            beneath(message, Some(base)),
            "picture \"images/map.png\" cannot be read: images/map.png: gone; not \
             /home/me/bookends/x nor /x/home/me/book/y (a.txt)"
        );
        assert_eq!(beneath(message, None), message);
        let d =
            Diagnostic::warning(Code::Include, "see /home/me/book/b.md").at("/home/me/book/a.md");
        assert!(
            d.render(Some(base), false)
                .starts_with("warning[include]: see b.md\n  --> a.md\n")
        );
    }

    #[test]
    fn render_without_color_has_no_escape_codes_and_with_color_has_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.txt");
        std::fs::write(&path, "one\ntwo\nabc\n").unwrap();
        let d = Diagnostic::warning(Code::BrokenLine, "msg")
            .at(&path)
            .line(Some(3))
            .column(2)
            .hint("do");
        let plain = d.render(Some(dir.path()), false);
        assert_eq!(
            plain,
            "warning[broken-line]: msg\n  --> c.txt:3:2\n    |\n  3 | abc\n    |  ^\n  = hint: do\n"
        );
        assert!(d.render(None, true).contains('\u{1b}'));
        // Display is the location and the message: the hint and excerpt are fields.
        assert_eq!(d.to_string(), format!("{}:3:2: msg", path.display()));
    }
}
