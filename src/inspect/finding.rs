//! How inspect's rules report a problem: as a [`Diagnostic`], the one problem type every
//! command reports and the one renderer prints, at a [`Place`] of the EPUB (its entry, line and
//! column as fields). In a file of its own so that the rule families (package, references,
//! fixed layout) and the verifier that runs them import it without importing each other.
//!
//! A rule's diagnostic names its entry as a path relative to the EPUB's root
//! (`EPUB/nav.xhtml`), or no path for the zip as a whole; [`in_epub`] puts it inside the EPUB
//! file the user named (`book.epub/EPUB/nav.xhtml`).

use std::path::{Path, PathBuf};

use super::InspectError;
use crate::diagnostic::{Code, Diagnostic, Severity};

/// Where in an EPUB a problem is: an entry (none for the zip as a whole), and the line and
/// column in it where known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Place {
    /// The entry's name in the zip.
    pub entry: Option<String>,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column, in characters.
    pub column: Option<usize>,
}

impl Place {
    /// The zip as a whole.
    pub(crate) fn zip() -> Place {
        Place::default()
    }

    /// Line `line`, column `column` of `entry`.
    pub(crate) fn at(entry: &str, line: u32, column: u32) -> Place {
        Place {
            entry: Some(entry.to_string()),
            line: usize::try_from(line).ok(),
            column: usize::try_from(column).ok(),
        }
    }
}

/// `entry:line:column` as far as known, for a message that names a place in words.
impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.entry.as_deref().unwrap_or("(zip)"))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        Ok(())
    }
}

impl From<&str> for Place {
    fn from(entry: &str) -> Place {
        Place {
            entry: Some(entry.to_string()),
            ..Place::default()
        }
    }
}

impl From<&String> for Place {
    fn from(entry: &String) -> Place {
        Place::from(entry.as_str())
    }
}

impl From<String> for Place {
    fn from(entry: String) -> Place {
        Place {
            entry: Some(entry),
            ..Place::default()
        }
    }
}

/// A problem of `severity` at `place`.
fn at(code: Code, severity: Severity, place: Place, message: String) -> Diagnostic {
    let mut d = Diagnostic::new(code, severity, message);
    d.path = place.entry.map(PathBuf::from);
    d.line = place.line;
    d.column = place.column;
    d
}

/// An error at `place`.
pub(super) fn error(code: Code, place: impl Into<Place>, message: impl Into<String>) -> Diagnostic {
    at(code, Severity::Error, place.into(), message.into())
}

/// A warning at `place`.
pub(super) fn warning(
    code: Code,
    place: impl Into<Place>,
    message: impl Into<String>,
) -> Diagnostic {
    at(code, Severity::Warning, place.into(), message.into())
}

impl InspectError {
    /// The error as a problem of the EPUB, at its entry (an error: the EPUB could not be read
    /// past it).
    pub(crate) fn finding(&self) -> Diagnostic {
        let code = match self {
            InspectError::Xml { .. } => Code::EpubXml,
            InspectError::Structure { .. } => Code::EpubPackage,
            InspectError::Epubcheck(_) => Code::Epubcheck,
            _ => Code::EpubZip,
        };
        error(code, self.place(), self.message())
    }

    /// The error as a [`Diagnostic`] about the EPUB at `epub` (what `inspect` prints when it
    /// cannot open one), with the code and place `check` gives it.
    pub fn diagnostic(&self, epub: &Path) -> Diagnostic {
        in_epub(self.finding(), epub)
    }
}

/// `d`, whose path is an entry of the EPUB at `epub` (or none, for the EPUB as a whole), about
/// that entry inside `epub`: `book.epub/EPUB/nav.xhtml`.
pub(crate) fn in_epub(mut d: Diagnostic, epub: &Path) -> Diagnostic {
    d.path = Some(match d.path.take() {
        Some(entry) => epub.join(entry),
        None => epub.to_path_buf(),
    });
    d
}
