//! Turns a TOML parse error into an [`Error::MetadataSyntax`]: file, line, column, and for an
//! unknown key the closest valid one (the renderer quotes the line with a caret).

use std::path::Path;

use crate::error::Error;

/// Converts a `toml` error on `text` into our error.
pub(super) fn to_error(err: &toml::de::Error, text: &str, path: &Path) -> Error {
    let offset = err.span().map(|s| s.start).unwrap_or(0);
    let message = err.message().trim().to_string();
    let hint = unknown_field_hint(&message);
    at_hinted(text, offset, path, message, hint)
}

/// An [`Error::MetadataSyntax`] pointing at byte `offset` of `text`.
pub(super) fn at(text: &str, offset: usize, path: &Path, message: String) -> Error {
    at_hinted(text, offset, path, message, None)
}

/// [`at`], with what to do about it.
pub(super) fn at_hinted(
    text: &str,
    offset: usize,
    path: &Path,
    message: String,
    hint: Option<String>,
) -> Error {
    let (line, column, _) = locate(text, offset);
    Error::MetadataSyntax {
        path: path.to_path_buf(),
        line,
        column,
        message,
        hint,
    }
}

/// 1-based line and column (in characters) of a byte offset, and the text of that line.
pub(crate) fn locate(text: &str, offset: usize) -> (usize, usize, &str) {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = text[offset..]
        .find('\n')
        .map(|i| offset + i)
        .unwrap_or(text.len());
    let line = text[..offset].matches('\n').count() + 1;
    let column = text[line_start..offset].chars().count() + 1;
    (
        line,
        column,
        text[line_start..line_end].trim_end_matches('\r'),
    )
}

/// Where each line of a text starts, to find the line of many offsets without counting the
/// lines before each one again (a `metadata.toml` listing thousands of chapters asks for the
/// line of every entry: counting from the top each time made its loading quadratic).
pub(crate) struct Lines {
    /// Byte offset of the start of every line after the first.
    starts: Vec<usize>,
}

impl Lines {
    /// Indexes `text`.
    pub(crate) fn new(text: &str) -> Lines {
        Lines {
            starts: text.match_indices('\n').map(|(i, _)| i + 1).collect(),
        }
    }

    /// The 1-based line of byte `offset`, as [`locate`] gives it.
    pub(crate) fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset) + 1
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// For serde's "unknown field `x`, expected one of `a`, `b`" message: "; did you mean `a`?".
fn unknown_field_hint(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, rest) = rest.split_once('`')?;
    let expected: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    let best = closest(unknown, &expected)?;
    Some(format!("did you mean `{best}`?"))
}

/// The candidate closest to `word` by edit distance, if it is close enough to be a likely typo.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= (c.chars().count().max(word.chars().count()) / 2).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_counts_lines_and_character_columns() {
        let text = "a = 1\n书名 = 2\n";
        let offset = text.rfind('=').unwrap();
        assert_eq!(locate(text, offset), (2, 4, "书名 = 2"));
    }

    #[test]
    fn indexed_lines_agree_with_locate_everywhere() {
        let text = "a = 1\n书名 = 2\n\n\nx = [\n  3,\n]\nlast";
        let lines = Lines::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(lines.line_of(offset), locate(text, offset).0, "{offset}");
        }
    }

    #[test]
    fn closest_suggests_typo_fix_and_nothing_for_unrelated_words() {
        let keys = ["title", "authors", "language"];
        assert_eq!(closest("titel", &keys), Some("title"));
        assert_eq!(closest("langauge", &keys), Some("language"));
        assert_eq!(closest("zzzzzzzz", &keys), None);
    }

    #[test]
    fn unknown_field_message_gets_did_you_mean() {
        let msg = "unknown field `autors`, expected one of `title`, `authors`, `language`";
        assert_eq!(
            unknown_field_hint(msg).as_deref(),
            Some("did you mean `authors`?")
        );
    }
}
