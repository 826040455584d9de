//! `[check] ignore`: findings of `check` an author has looked at and wants no more.
//!
//! Part of the project stage. Each entry names a [`Code`] and optionally the chapter files
//! (`files`, a glob relative to the project folder) and the `line` it applies to:
//!
//! ```toml
//! [check]
//! ignore = [
//!   "repeated-paragraph",                                   # the whole book
//!   { code = "private-use", files = "chapters/0*.txt" },    # some files
//!   { code = "doubled-punctuation", files = "ch3.txt", line = 12 },
//! ]
//! ```
//!
//! `check` applies them to every finding ([`Ignore::covers`]) and reports the entries that
//! suppressed nothing, at their line in `metadata.toml`, so that they do not outlive the text
//! they were written for.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::toml_error;
use crate::diagnostic::{Code, Diagnostic};
use crate::error::Result;

/// `[check]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawCheck {
    #[serde(default)]
    ignore: Vec<Spanned<RawIgnore>>,
}

/// One entry as written: a code, or a table.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawIgnore {
    Code(String),
    Full(FullIgnore),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct FullIgnore {
    code: String,
    files: Option<String>,
    line: Option<i64>,
}

/// One validated `[check] ignore` entry.
#[derive(Debug, Clone)]
pub struct Ignore {
    /// The code it suppresses.
    pub code: Code,
    /// Only in chapter files whose path (relative to the project folder, `/`-separated)
    /// matches.
    pub files: Option<glob::Pattern>,
    /// Only at this line.
    pub line: Option<usize>,
    /// Where the entry is in `metadata.toml`: line and column.
    pub at: (usize, usize),
}

impl Ignore {
    /// Whether it suppresses `finding`, whose file is `relative` (to the project folder).
    pub fn covers(&self, finding: &Diagnostic, relative: Option<&str>) -> bool {
        if finding.code != self.code {
            return false;
        }
        if let Some(files) = &self.files {
            let options = glob::MatchOptions {
                case_sensitive: true,
                require_literal_separator: true,
                require_literal_leading_dot: false,
            };
            if !relative.is_some_and(|r| files.matches_with(r, options)) {
                return false;
            }
        }
        self.line.is_none() || self.line == finding.line
    }

    /// The finding for an entry that suppressed nothing.
    pub fn unused(&self, metadata: &Path) -> Diagnostic {
        let mut what = format!("`[check] ignore` of {}", self.code);
        if let Some(f) = &self.files {
            what.push_str(&format!(" in {}", f.as_str()));
        }
        if let Some(l) = self.line {
            what.push_str(&format!(" at line {l}"));
        }
        Diagnostic::warning(Code::UnusedIgnore, format!("{what} matches nothing"))
            .at(metadata)
            .line(Some(self.at.0))
            .column(self.at.1)
            .hint("remove the entry: the text it was written for has changed")
    }
}

/// Validates `[check]` of the metadata `text` at `path`.
pub(super) fn validate(raw: RawCheck, text: &str, path: &Path) -> Result<Vec<Ignore>> {
    raw.ignore
        .into_iter()
        .map(|entry| {
            let start = entry.span().start;
            let (code, files, line) = match entry.into_inner() {
                RawIgnore::Code(c) => (c, None, None),
                RawIgnore::Full(f) => (f.code, f.files, f.line),
            };
            // An untagged entry keeps no spans inside: errors point at the entry.
            let error = |message: String| toml_error::at(text, start, path, message);
            let name = code.trim();
            let code = Code::from_name(name)
                .ok_or_else(|| error(format!("`{name}` is not a finding's code")))?;
            let files = match files {
                None => None,
                Some(f) => Some(
                    glob::Pattern::new(&f)
                        .map_err(|e| error(format!("`files` is not a valid glob: {e}")))?,
                ),
            };
            let line = match line {
                None => None,
                Some(l) if l >= 1 => Some(l as usize),
                Some(_) => return Err(error("`line` starts at 1".into())),
            };
            let (l, c, _) = toml_error::locate(text, start);
            Ok(Ignore {
                code,
                files,
                line,
                at: (l, c),
            })
        })
        .collect()
}
