//! Problems that do not stop a build, as data: the build, `check` and `init` report them and
//! only the binary prints them.

use std::path::PathBuf;

/// A problem that did not stop the build.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Warning {
    /// The file it is about.
    pub path: PathBuf,
    /// The 1-based line, where known.
    pub line: Option<usize>,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}
