//! The library's error type.
//!
//! Every variant names the file it is about, and where there is one the line and column, so the
//! CLI can print it as it is: one screen, what went wrong, where, and what to do about it.

use std::path::{Path, PathBuf};

/// Everything that can stop a build.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file or folder could not be read or written.
    #[error("{}: {action}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What we were doing, e.g. "cannot read".
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },

    /// `metadata.toml` is not valid TOML, or has an unknown or mistyped key.
    #[error("{}:{line}:{column}: {message}\n{snippet}", path.display())]
    MetadataSyntax {
        /// The metadata file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong, with a hint where we have one.
        message: String,
        /// The offending line with a caret under the column.
        snippet: String,
    },

    /// `metadata.toml` parsed, but its content is not usable.
    #[error("{}: {message}", path.display())]
    Metadata {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },

    /// A chapter listed in the metadata does not exist.
    #[error(
        "{}: chapter file not found (listed in {}{})\n  hint: check the `file` entry, or remove it from [[chapters]]",
        path.display(), metadata.display(), line.map(|l| format!(":{l}")).unwrap_or_default()
    )]
    MissingChapter {
        /// The chapter path as resolved.
        path: PathBuf,
        /// The metadata file that lists it.
        metadata: PathBuf,
        /// The line of the entry in the metadata file.
        line: Option<usize>,
    },

    /// A chapter file's bytes could not be turned into text.
    #[error("{}: {message}", path.display())]
    Decode {
        /// The chapter file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },

    /// A chapter could not be converted to XHTML (for example a missing image).
    #[error("{}: {message}", path.display())]
    Convert {
        /// The chapter file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },

    /// The cover is missing or not an image.
    #[error("{}: {message}", path.display())]
    Cover {
        /// The cover file.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },

    /// Writing the EPUB archive failed.
    #[error("{}: cannot write the EPUB: {source}", path.display())]
    Archive {
        /// The output file.
        path: PathBuf,
        /// The underlying zip error.
        source: zip::result::ZipError,
    },
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An I/O error that names its path.
    pub fn io(path: impl AsRef<Path>, action: &'static str, source: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            action,
            source,
        }
    }
}
