//! Preprocessor directives nothing here knows (`{{#each …}}`, Comprehensive Rust's
//! `{{%session outline}}`), for [`super::includes`]: whether one stands in code (then it is the
//! book's subject and stays), and the one warning per chapter naming those removed.
//!
//! mdBook runs third-party preprocessors that epubforge does not: their directives would
//! print as raw `{{%…}}` text in the book. Removing them is the book mdBook's reader sees;
//! saying so, once per chapter with what was removed, keeps the removal seen.

use std::path::{Path, PathBuf};

/// Most distinct directives named in the warning; the rest are counted.
const NAMED: usize = 5;

/// The unknown directives removed from one chapter (and the files it includes).
#[derive(Debug, Default)]
pub(crate) struct Unknown {
    /// Each distinct directive as written (shortened), with how often it was removed.
    seen: Vec<(String, usize)>,
    /// Where the first one was.
    first: Option<(PathBuf, usize)>,
    total: usize,
}

impl Unknown {
    /// Records `directive` (as written), removed from `path` at `line`.
    pub(crate) fn add(&mut self, directive: &str, path: &Path, line: usize) {
        let shown = shorten(directive);
        self.total += 1;
        self.first.get_or_insert_with(|| (path.to_path_buf(), line));
        if let Some((_, n)) = self.seen.iter_mut().find(|(d, _)| *d == shown) {
            *n += 1;
        } else if self.seen.len() < 1000 {
            self.seen.push((shown, 1));
        }
    }

    /// The one warning for them all: the file and line of the first, and the message; None
    /// when there were none.
    pub(crate) fn warning(&self) -> Option<(PathBuf, usize, String)> {
        let (path, line) = self.first.clone()?;
        let mut named: Vec<String> = self
            .seen
            .iter()
            .take(NAMED)
            .map(|(d, n)| match n {
                1 => d.clone(),
                n => format!("{d} ×{n}"),
            })
            .collect();
        let more = self.seen.len().saturating_sub(NAMED);
        if more > 0 {
            named.push(format!("and {more} other(s)"));
        }
        let message = format!(
            "removed {} preprocessor directive(s) that epubforge does not run: {}",
            self.total,
            named.join(", ")
        );
        Some((path, line, message))
    }
}

/// A directive as shown in a message: at most 60 characters.
fn shorten(directive: &str) -> String {
    let mut shown: String = directive.chars().take(60).collect();
    if shown.len() < directive.len() {
        shown.push('…');
    }
    shown
}

/// Whether offsets of one text fall in a fenced code block or a code span, asked in
/// increasing order: the fences are followed line by line once over the text (linear).
#[derive(Debug, Default)]
pub(crate) struct CodeTracker {
    /// Where the next line to read starts.
    next: usize,
    /// The open fence: its character and length.
    fence: Option<(u8, usize)>,
}

impl CodeTracker {
    /// Whether byte `at` of `text` is code: inside a fenced block (opened by three or more
    /// backticks or tildes, as CommonMark) or, on its line, after an odd number of backticks.
    pub(crate) fn inside(&mut self, text: &str, at: usize) -> bool {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        while self.next < line_start {
            let end = text[self.next..]
                .find('\n')
                .map_or(text.len(), |i| self.next + i);
            self.fence = next_fence(&text[self.next..end], self.fence);
            self.next = end + 1;
        }
        if self.fence.is_some() {
            return true;
        }
        let before = &text[line_start..at];
        // The directive's own line may open a fence (```{{#x}}): that is the info string.
        fence_of(before).is_none() && before.bytes().filter(|&b| b == b'`').count() % 2 == 1
    }
}

/// The fence open after `line`, given the one open before it.
fn next_fence(line: &str, open: Option<(u8, usize)>) -> Option<(u8, usize)> {
    match (open, fence_of(line)) {
        (None, Some((c, n, _))) => Some((c, n)),
        (Some((c, n)), Some((c2, n2, rest))) if c == c2 && n2 >= n && rest.trim().is_empty() => {
            None
        }
        (open, _) => open,
    }
}

/// A fence line's character, length and the rest of the line (its info string).
fn fence_of(line: &str) -> Option<(u8, usize, &str)> {
    // Inside list items and quotes too: the marker before the fence is left aside.
    let trimmed = line.trim_start_matches([' ', '\t', '>', '-', '*', '+']);
    let c = *trimmed.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = trimmed.bytes().take_while(|&b| b == c).count();
    let rest = &trimmed[n..];
    (n >= 3 && !(c == b'`' && rest.contains('`'))).then_some((c, n, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_and_spans_are_code_and_prose_is_not() {
        let text = "a {{%x}}\n```hbs\n{{#each y}}\n```\nb `{{#each z}}` {{#w}}\n";
        let mut code = CodeTracker::default();
        let at = |s: &str| text.find(s).unwrap();
        assert!(!code.inside(text, at("{{%x}}")));
        assert!(code.inside(text, at("{{#each y}}")));
        assert!(code.inside(text, at("{{#each z}}")));
        assert!(!code.inside(text, at("{{#w}}")));
    }

    #[test]
    fn one_warning_names_each_directive_once_with_its_count() {
        let mut u = Unknown::default();
        u.add("{{%session outline}}", Path::new("a.md"), 3);
        u.add("{{%segment outline}}", Path::new("a.md"), 9);
        u.add("{{%session outline}}", Path::new("a.md"), 12);
        let (path, line, message) = u.warning().unwrap();
        assert_eq!((path.as_path(), line), (Path::new("a.md"), 3));
        assert_eq!(
            message,
            "removed 3 preprocessor directive(s) that epubforge does not run: \
             {{%session outline}} ×2, {{%segment outline}}"
        );
        assert!(Unknown::default().warning().is_none());
    }
}
