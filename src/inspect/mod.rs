//! Reading and checking finished EPUBs: ours, pandoc's, calibre's, EPUB 2 or 3.
//!
//! This sits after the pipeline (see the crate documentation's chain of stages): it opens the
//! zip that `archive` wrote (or any other EPUB), and
//! - [`open`] parses it into an [`Epub`] (metadata, manifest, spine, table of contents, zip
//!   entries), and `report` renders it for `epubforge inspect`;
//! - `verify` runs our own structural rules and returns them as
//!   [`Diagnostic`](crate::Diagnostic)s, for [`check_epub`](crate::check_epub);
//! - `epubcheck` finds the real EPUBCheck, when it is installed, and runs it.
//!
//! Everything here treats the EPUB as hostile input: entries are inflated with a size cap that
//! counts the bytes actually produced, the entry count is capped, XML entity declarations are
//! refused (so nothing can expand), and TOC nesting is cut at a fixed depth.

pub(crate) mod archive;
pub(crate) mod container;
mod entities;
pub(crate) mod epubcheck;
pub(crate) mod facts;
mod finding;
mod fixed_layout;
pub(crate) mod href;
mod package_rules;
pub(crate) mod read;
mod references;
#[cfg(any(feature = "cli", test))]
pub(crate) mod report;
pub(crate) mod verify;
pub(crate) mod xml;

pub use container::EntryInfo;
#[cfg(feature = "cli")]
pub(crate) use epubcheck::DEFAULT_TIMEOUT as DEFAULT_EPUBCHECK_TIMEOUT;
use finding::Place;
#[cfg(test)]
pub(crate) use read::open_bytes;
pub use read::{Creator, Epub, EpubMetadata, ManifestItem, SpineItem, TocEntry, TocSource, open};
#[cfg(any(feature = "cli", test))]
pub(crate) use report::render_text;
#[cfg(test)]
pub(crate) use verify::{verify_bytes, verify_path};

use thiserror::Error;

/// Largest inflated size we accept for one XML (or other text) entry: 64 MiB.
pub(crate) const MAX_XML_ENTRY_BYTES: u64 = 64 * 1024 * 1024;
/// The buffer for reading an EPUB file. Reading an entry seeks to it, which empties the
/// buffer: a small one wastes little on the many small entries of a book, and large entries
/// are read past it.
const READ_BUFFER: usize = 2048;
/// Most zip entries we accept in one EPUB.
pub(crate) const MAX_ENTRIES: usize = 100_000;
/// Deepest table-of-contents nesting we follow; deeper levels are dropped with a note.
pub(crate) const MAX_TOC_DEPTH: usize = 64;

/// What can go wrong while opening, reading or checking an EPUB.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum InspectError {
    /// The EPUB file (or a report file) could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file that could not be read.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The bytes are not a readable zip archive.
    #[error("not a readable zip archive: {0}")]
    Zip(#[from] zip::result::ZipError),
    /// More zip entries than we accept (100,000).
    #[error("the zip holds {count} entries, more than the {cap} we accept")]
    TooManyEntries {
        /// Entries in the central directory.
        count: usize,
        /// The cap.
        cap: usize,
    },
    /// A needed entry is not in the zip.
    #[error("{name}: no such entry in the zip")]
    MissingEntry {
        /// The entry name that was looked up.
        name: String,
    },
    /// An entry inflates to more than the cap.
    #[error("{name}: inflates to more than {cap} bytes; refused")]
    EntryTooLarge {
        /// The entry name.
        name: String,
        /// The cap in bytes.
        cap: u64,
    },
    /// An entry could not be inflated (corrupt data, bad CRC, unsupported method).
    #[error("{name}: cannot be read: {source}")]
    EntryRead {
        /// The entry name.
        name: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An XML entry is not well-formed, or uses something we refuse (entity declarations).
    #[error("{entry}:{line}:{col}: {message}")]
    Xml {
        /// The entry name.
        entry: String,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
        /// What is wrong.
        message: String,
    },
    /// The EPUB's structure does not let us go on (no rootfile, no package element, ...).
    #[error("{entry}: {message}")]
    Structure {
        /// The entry (or location) at fault.
        entry: String,
        /// What is wrong.
        message: String,
    },
    /// EPUBCheck could not be run or gave no usable report.
    #[error("epubcheck: {0}")]
    Epubcheck(String),
}

impl InspectError {
    /// Where the problem is: an entry, its line and column, or the zip as a whole.
    pub(crate) fn place(&self) -> Place {
        match self {
            InspectError::Io { .. }
            | InspectError::Zip(_)
            | InspectError::TooManyEntries { .. }
            | InspectError::Epubcheck(_) => Place::zip(),
            InspectError::MissingEntry { name }
            | InspectError::EntryTooLarge { name, .. }
            | InspectError::EntryRead { name, .. } => Place::from(name),
            InspectError::Xml {
                entry, line, col, ..
            } => Place::at(entry, *line, *col),
            InspectError::Structure { entry, .. } => Place::from(entry),
        }
    }

    /// Whether the EPUB cannot be read safely at all: the zip is unreadable, holds more
    /// entries than we accept, or an entry inflates past our cap (a zip bomb).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            InspectError::Zip(_)
                | InspectError::TooManyEntries { .. }
                | InspectError::EntryTooLarge { .. }
        )
    }

    /// The message without the location prefix, for findings.
    pub fn message(&self) -> String {
        match self {
            InspectError::Xml { message, .. } | InspectError::Structure { message, .. } => {
                message.clone()
            }
            InspectError::MissingEntry { .. } => "no such entry in the zip".to_string(),
            InspectError::EntryTooLarge { cap, .. } => {
                format!("inflates to more than {cap} bytes; refused")
            }
            InspectError::EntryRead { source, .. } => format!("cannot be read: {source}"),
            InspectError::Io { source, .. } => source.to_string(),
            other => other.to_string(),
        }
    }
}

#[cfg(test)]
pub(crate) mod testutil;
