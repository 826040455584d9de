//! One problem found in an EPUB by our own rules ([`super::verify`]), and how bad it is: the
//! record every rule family (package, references, fixed layout) returns, in a file of its own so
//! that the families and the verifier that runs them import it without importing each other.
//! It leaves inspect as a [`Diagnostic`] ([`Finding::diagnostic`]), the one problem type every
//! command reports and the one renderer prints; EPUBCheck's messages take the same way
//! ([`located`]).

use std::fmt;
use std::path::Path;

use super::InspectError;
use crate::diagnostic::{self, Code, Diagnostic};

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The EPUB cannot be read safely (an unreadable zip, more entries than we accept, an
    /// entry that inflates past our caps): what it holds was not checked, and no other tool
    /// should be handed it (`check` does not run EPUBCheck on it).
    Fatal,
    /// The EPUB is broken or invalid.
    Error,
    /// Legal, but worth fixing.
    Warning,
}

/// One problem found in an EPUB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Which rule: a stable `epub-…` code.
    pub code: Code,
    /// How bad it is.
    pub severity: Severity,
    /// `entry:line:col` for XML, or the entry name, or `(zip)` for the archive as a whole.
    pub location: String,
    /// What is wrong, in words a user can act on.
    pub message: String,
}

impl Finding {
    pub(super) fn error(
        code: Code,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            severity: Severity::Error,
            location: location.into(),
            message: message.into(),
        }
    }

    pub(super) fn warning(
        code: Code,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            severity: Severity::Warning,
            location: location.into(),
            message: message.into(),
        }
    }

    pub(super) fn from_error(e: &InspectError) -> Self {
        let code = match e {
            InspectError::Xml { .. } => Code::EpubXml,
            InspectError::Structure { .. } => Code::EpubPackage,
            InspectError::Epubcheck(_) => Code::Epubcheck,
            _ => Code::EpubZip,
        };
        let mut finding = Finding::error(code, e.location(), e.message());
        if e.is_fatal() {
            finding.severity = Severity::Fatal;
        }
        finding
    }
}

impl Finding {
    /// The finding as a [`Diagnostic`] about the EPUB at `epub`: its entry as a path inside
    /// the EPUB (`book.epub/EPUB/nav.xhtml`) with line and column, a fatal finding an error.
    pub fn diagnostic(&self, epub: &Path) -> Diagnostic {
        let severity = match self.severity {
            Severity::Fatal | Severity::Error => diagnostic::Severity::Error,
            Severity::Warning => diagnostic::Severity::Warning,
        };
        located(
            Diagnostic::new(self.code, severity, self.message.clone()),
            epub,
            &self.location,
        )
    }
}

impl InspectError {
    /// The error as a [`Diagnostic`] about the EPUB at `epub` (what `inspect` prints when it
    /// cannot open one), with the code and place `check` gives it.
    pub fn diagnostic(&self, epub: &Path) -> Diagnostic {
        Finding::from_error(self).diagnostic(epub)
    }
}

/// `d` at `location` inside the EPUB at `epub`: `entry:line:col`, `entry`, or the EPUB as a
/// whole for `(zip)` and the like.
pub(crate) fn located(mut d: Diagnostic, epub: &Path, location: &str) -> Diagnostic {
    let mut parts = location.rsplitn(3, ':');
    let (col, line, entry) = (parts.next(), parts.next(), parts.next());
    let (entry, line, col) = match (entry, line.and_then(|l| l.parse().ok()), col) {
        (Some(e), Some(l), Some(c)) => (e, Some(l), c.parse().ok()),
        _ => (location, None, None),
    };
    d.path = Some(if entry.starts_with('(') || entry.is_empty() {
        epub.to_path_buf()
    } else {
        epub.join(entry)
    });
    d.line = line;
    d.column = col;
    d
}

/// `severity: location: message`, for a test's failure message; what a user reads is the
/// [`Finding::diagnostic`], rendered by [`crate::diagnostic::render`].
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Fatal => "fatal",
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}: {}: {}", self.location, self.message)
    }
}
