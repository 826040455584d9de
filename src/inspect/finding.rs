//! One problem found in an EPUB by our own rules ([`super::verify`]), and how bad it is: the
//! type every rule family (package, references, fixed layout) returns, in a file of its own so
//! that the families and the verifier that runs them import it without importing each other.

use std::fmt;

use super::InspectError;
use crate::diagnostic::Code;

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
