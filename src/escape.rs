//! Text on its way to a terminal, escaped as ripgrep and cargo escape it: a control character
//! shows as `\u{1b}` (`\n`, `\t`, `\r`, `\0` in short), so that a file name, a metadata value
//! or an EPUB from a stranger cannot set the terminal's title, clear the screen or erase the
//! warnings above. Ordinary Unicode (Chinese, accents, emoji) is shown as it is.
//!
//! A leaf module: the diagnostics' renderer, the error messages and the binary's printing all
//! use it; nothing here imports a stage.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

/// Whether `c` must not reach a terminal as it is: a control character (C0, DEL, C1), or a
/// bidirectional control that reorders what follows it on the line ("Trojan Source").
pub fn is_control_like(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// A message of several lines: every control-like character escaped except the line breaks and
/// tabs that shape it.
pub fn text(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| is_control_like(c) && c != '\n' && c != '\t')
}

/// One value on one line (a title, a file name): every control-like character escaped, line breaks
/// and tabs included, so that a value cannot fake a line of its own.
pub fn value(s: &str) -> Cow<'_, str> {
    escape_where(s, is_control_like)
}

/// A path as [`value`] shows it; bytes that are not UTF-8 show as `\xFF`, as ripgrep shows
/// them (not as U+FFFD, which would hide what the name is).
pub fn path(p: impl AsRef<Path>) -> String {
    let p = p.as_ref();
    let mut out = String::new();
    for chunk in p.as_os_str().as_encoded_bytes().utf8_chunks() {
        out.push_str(&value(chunk.valid()));
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02X}");
        }
    }
    out
}

/// `s` with the characters `escape` picks escaped; borrowed when there are none.
fn escape_where(s: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !escape(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            _ => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_ordinary_unicode_is_kept() {
        assert_eq!(value("第一章 Café ✓"), "第一章 Café ✓");
        assert!(matches!(value("plain"), Cow::Borrowed(_)));
        assert_eq!(value("a\u{1b}]0;pwned\u{7}b"), "a\\u{1b}]0;pwned\\u{7}b");
        assert_eq!(value("x\u{1b}[2Jy"), "x\\u{1b}[2Jy");
        assert_eq!(value("a\nb\tc\rd\0"), "a\\nb\\tc\\rd\\0");
        assert_eq!(value("\u{7f}\u{9b}"), "\\u{7f}\\u{9b}");
        assert_eq!(value("abc\u{202e}def"), "abc\\u{202e}def");
    }

    #[test]
    fn a_message_keeps_its_line_breaks_and_tabs() {
        assert_eq!(text("line\n\tnext\u{1b}[1A\r"), "line\n\tnext\\u{1b}[1A\\r");
    }

    #[test]
    fn a_path_shows_bytes_that_are_not_utf8_as_hex() {
        assert_eq!(path(Path::new("书/a\nb.txt")), "书/a\\nb.txt");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let p = Path::new(std::ffi::OsStr::from_bytes(b"bad\xff\xfe.txt"));
            assert_eq!(path(p), "bad\\xFF\\xFE.txt");
        }
    }
}
