//! The library's error type.
//!
//! Every variant names the file it is about, and where there is one the line and column. Its
//! `Display` is one line, `path:line:column: message`; the hint is a field of its own, never part
//! of the message, and the excerpt of the line is read by the renderer: [`Error::diagnostic`]
//! gives the error in the form every other problem takes ([`Diagnostic`](crate::Diagnostic)),
//! which the CLI prints (`crate::diagnostic::render`).

use std::path::{Path, PathBuf};

/// Everything that can stop a build.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read or written.
    #[error("{}: {action}: {source}", crate::escape::path(path))]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What we were doing, e.g. "cannot read".
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },

    /// `metadata.toml` is not valid TOML, has an unknown or mistyped key, or a value that is
    /// not usable.
    #[error("{}:{line}:{column}: {message}", crate::escape::path(path))]
    MetadataSyntax {
        /// The metadata file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        column: usize,
        /// What is wrong.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },

    /// `metadata.toml` parsed, but its content is not usable (and no one place is to blame).
    #[error("{}: {message}", crate::escape::path(path))]
    Metadata {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },

    /// A chapter listed in the metadata does not exist.
    #[error(
        "{}: chapter file not found (listed in {}{})",
        crate::escape::path(path), crate::escape::path(metadata), line.map(|l| format!(":{l}")).unwrap_or_default()
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
    #[error("{}{}: {message}", crate::escape::path(path), at_line(*line, *column))]
    Decode {
        /// The chapter file.
        path: PathBuf,
        /// 1-based line of the first bad byte, where known.
        line: Option<usize>,
        /// 1-based column (in characters) of the first bad byte, where known.
        column: Option<usize>,
        /// What is wrong.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },

    /// A chapter could not be converted to XHTML (for example a missing image).
    #[error("{}: {message}", crate::escape::path(path))]
    Convert {
        /// The chapter file.
        path: PathBuf,
        /// What is wrong.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },

    /// A chapter file is in a format we do not read (AsciiDoc, reStructuredText, LaTeX, DOCX,
    /// ODT…; see `project::UNSUPPORTED_KINDS`).
    #[error(
        "{}: {format} is not supported; convert it with {tool} first",
        crate::escape::path(path)
    )]
    UnsupportedFormat {
        /// The chapter file.
        path: PathBuf,
        /// The format's name.
        format: &'static str,
        /// What converts it to Markdown or HTML.
        tool: &'static str,
    },

    /// The cover is missing or not an image.
    #[error("{}: {message}", crate::escape::path(path))]
    Cover {
        /// The cover file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },

    /// An embedded font cannot be read as a font or subset.
    #[error(
        "{}: {message} (listed in {}:{line})",
        crate::escape::path(path),
        crate::escape::path(metadata)
    )]
    Font {
        /// The font file.
        path: PathBuf,
        /// The metadata file that lists it.
        metadata: PathBuf,
        /// The line of the entry in the metadata file.
        line: usize,
        /// What is wrong.
        message: String,
    },

    /// An environment variable the build reads has a value it cannot use.
    #[error("{variable}: {message}")]
    Environment {
        /// The variable, e.g. `SOURCE_DATE_EPOCH`.
        variable: &'static str,
        /// What is wrong.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },

    /// An input asked for more work than its budget allows: inclusions past the book's
    /// budget, a cleanup rule whose output or steps pass theirs on one text.
    #[error("{}{}: {message}", crate::escape::path(path), at_line(*line, None))]
    Budget {
        /// The file holding the directive, or the chapter the rule ran on.
        path: PathBuf,
        /// The directive's line, or the first line of the text the rule ran on, where known.
        line: Option<usize>,
        /// What ran out, naming the directive or rule and the budget.
        message: String,
        /// What to do about it.
        hint: Option<String>,
    },

    /// `build --strict`: a chapter lost content on the way (elements removed with their
    /// content, [`Code::RemovedContent`](crate::Code::RemovedContent)).
    #[error("{}: {message}{}", crate::escape::path(path), more_line(*more))]
    ContentRemoved {
        /// The first chapter that lost content.
        path: PathBuf,
        /// What it lost.
        message: String,
        /// How many other chapters lost content too.
        more: usize,
    },
}

const STRICT_HINT: &str = "replace what cannot be in a book with text or images, or build without --strict to accept the loss";

fn more_line(more: usize) -> String {
    match more {
        0 => String::new(),
        n => format!(" (and {n} more chapter(s) lost content)"),
    }
}

/// What to do with a chapter in a format we do not read.
const UNSUPPORTED_HINT: &str = "list the converted .md or .html file in metadata.toml instead";

const MISSING_CHAPTER_HINT: &str = "check the `file` entry, or remove it from [[chapters]]";
const COVER_HINT: &str = "use a JPEG, PNG, GIF, WebP or SVG image as the cover";
const FONT_HINT: &str = "use a TrueType or OpenType font (.ttf, .otf, .ttc)";

fn at_line(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
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

    /// The file to point at (the metadata for a missing chapter or an unusable font; none for
    /// the environment), and the line and column where known.
    pub(crate) fn place(&self) -> (Option<&Path>, Option<usize>, Option<usize>) {
        match self {
            Error::Io { path, .. }
            | Error::Metadata { path, .. }
            | Error::Convert { path, .. }
            | Error::UnsupportedFormat { path, .. }
            | Error::Cover { path, .. }
            | Error::ContentRemoved { path, .. } => (Some(path), None, None),
            Error::MetadataSyntax {
                path, line, column, ..
            } => (Some(path), Some(*line), Some(*column)),
            Error::MissingChapter { metadata, line, .. } => (Some(metadata), *line, None),
            Error::Decode {
                path, line, column, ..
            } => (Some(path), *line, *column),
            Error::Font { metadata, line, .. } => (Some(metadata), Some(*line), None),
            Error::Budget { path, line, .. } => (Some(path), *line, None),
            Error::Environment { .. } => (None, None, None),
        }
    }

    /// What is wrong, without the place, and what to do.
    pub(crate) fn message_and_hint(&self) -> (String, Option<&str>) {
        match self {
            Error::Io { action, source, .. } => (format!("{action}: {source}"), None),
            Error::MetadataSyntax { message, hint, .. }
            | Error::Metadata { message, hint, .. }
            | Error::Decode { message, hint, .. }
            | Error::Convert { message, hint, .. }
            | Error::Budget { message, hint, .. } => (message.clone(), hint.as_deref()),
            Error::MissingChapter { path, metadata, .. } => {
                // Named as the metadata's entry names it: from the project's folder.
                let folder = metadata.parent().unwrap_or(Path::new(""));
                let shown = path.strip_prefix(folder).unwrap_or(path);
                let shown = crate::escape::path(shown);
                (
                    format!("chapter file {shown} not found"),
                    Some(MISSING_CHAPTER_HINT),
                )
            }
            Error::Cover { message, .. } => (message.clone(), Some(COVER_HINT)),
            Error::UnsupportedFormat { format, tool, .. } => (
                format!("{format} is not supported; convert it with {tool} first"),
                Some(UNSUPPORTED_HINT),
            ),
            Error::Font { path, message, .. } => (
                format!("font {}: {message}", crate::escape::path(path)),
                Some(FONT_HINT),
            ),
            Error::Environment {
                variable,
                message,
                hint,
            } => (format!("{variable}: {message}"), hint.as_deref()),
            Error::ContentRemoved { message, more, .. } => {
                (format!("{message}{}", more_line(*more)), Some(STRICT_HINT))
            }
        }
    }
}
