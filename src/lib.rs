//! epubforge turns a folder of chapter files and a `metadata.toml` into an EPUB 3 that passes
//! EPUBCheck, with an EPUB 2 NCX for older readers.
//!
//! The pipeline runs one way, one module per stage (the guide's *Architecture* chapter,
//! `guide/src/architecture.md`, says what each does):
//!
//! ```text
//! project → source → text_fix → convert → look → package → write → archive
//! ```
//!
//! What one stage hands the next lives in `book`, a leaf that imports no stage: the converted
//! book (`Book`, `Node`, `Chapter`, `Part`, `Image`), the container's files (`Entry`), and the
//! values read from `metadata.toml` (`BookInfo`, `Layout`, `Style`, [`Target`], `SplitMode`). Imports point down these layers only, never back up, and inside a layer
//! only along an arrow. This is the guide's diagram, which a unit test (`tests::layers`) reads
//! and checks against every import of the code, and another keeps this copy the same;
//! `tests::imports` fails on any import cycle between files or top-level modules:
//!
//! ```text
//! fix · watch                                             many books: fixing, watching
//! batch · store_check                                     builds side by side; a book per store
//! build · check → init                                    one command each
//! write → incremental · look · volumes · lint · epub_in   the writer and its cache; the look;
//!                                                         a book as volumes; EPUBs read in
//! package · convert · inspect                             the book's structure; chapters to
//!                                                         XHTML; any EPUB read
//! media → project → text_fix                              pictures, fonts, CSS; what to build;
//!                                                         cleanup rules
//! archive · stores · ledger                               the zip; what each reader needs; removals
//! diagnostic · interrupt                                  problems; Ctrl-C
//! book → xml · fs → error → escape · source · lines       leaves: the model, paths, bytes
//! ```
//!
//! [`Project::load`] reads a project and [`Project::build`] runs the whole chain for it; the
//! build cache (`incremental`) decides beforehand what it may skip. [`check_project`] runs the
//! same conversion without writing a book and [`check_epub`] reviews a finished one; [`init`]
//! writes a `metadata.toml` for a folder of chapters, [`draft`] the one for a single file, and
//! [`init_epub`] unpacks an EPUB into a project; [`fix`] rebuilds an EPUB so that it passes
//! EPUBCheck; [`inspect::open`] reads any EPUB. Problems that do not stop a command are
//! [`Diagnostic`]s ([`Diagnostic::render`] puts one into words); those that do are an
//! [`Error`]. Nothing here prints: the binary does. The rest of the crate is its own: these
//! and the types their options and reports name are all that is public.
//!
//! Building the sample book that ships with the crate:
//!
//! ```
//! use epubforge::{BuildOptions, BuildStatus, Project};
//!
//! let project = Project::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))?;
//! let out = tempfile::tempdir().expect("a temporary folder");
//! let mut opts = BuildOptions::default();
//! opts.output = Some(out.path().join("book.epub"));
//! opts.source_date_epoch = Some(1_700_000_000);
//! let report = project.build(&opts)?;
//! assert_eq!(report.status, BuildStatus::Built);
//! assert_eq!(report.chapters, 3);
//! let epub = epubforge::inspect::open(&report.output).expect("a readable EPUB");
//! assert_eq!(epub.metadata.titles, ["安西烽火"]);
//! # Ok::<(), epubforge::Error>(())
//! ```

// Every public item is documented, and no public field or signature hands out a type a user of
// the crate cannot name (the front door is all there is).
#![forbid(unsafe_code)]
#![warn(missing_docs, unnameable_types)]

// The command line calls the library by its public name, as a user of the crate would.
extern crate self as epubforge;

mod archive;
#[cfg(feature = "cli")]
mod batch;
mod book;
mod build;
mod check;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
mod cmd;
mod convert;
mod diagnostic;
mod epub_in;
mod error;
mod escape;
mod fix;
mod fs;
mod incremental;
mod init;
pub mod inspect;
mod interrupt;
mod ledger;
mod lines;
mod lint;
mod look;
mod media;
mod package;
mod project;
mod source;
mod store_check;
mod stores;
mod text_fix;
mod volumes;
#[cfg(feature = "cli")]
mod watch;
mod write;
mod xml;

#[cfg(test)]
mod tests;

// The front door: load a project and build it, check it (or the EPUB a store gets), write its
// metadata.toml from a folder, a text file or an EPUB, fix an EPUB, read any EPUB; the problems
// they report (`Diagnostic::render` puts one into words); and the types their options and
// reports name. Everything else is the crate's own.
pub use book::{Target, WritingMode};
pub use build::{BuildOptions, BuildReport, BuildStatus, SourceReport};
pub use check::{CheckReport, check_epub, check_project};
pub use convert::outline::{Entry as OutlineEntry, EntryKind, Outline};
pub use diagnostic::{Code, Diagnostic, MessageId, Severity};
pub use epub_in::{Counts as UnpackCounts, Error as UnpackError, Unpacked, UnpackedChapter};
pub use error::{Error, Result};
pub use fix::{Cleanup, FixError, FixOptions, FixReport, FixStatus, fix};
pub use init::{
    ChapterGuess, Draft, EpubInitOptions, InitError, InitOptions, InitReport, Placement, draft,
    init, init_epub,
};
pub use ledger::Removed;
pub use project::{LoadOptions, Project};
pub use source::Detection;
pub use store_check::{check_epub_stores, check_project_stores};
pub use stores::limits::Store;

// What only the command line reads besides: the report forms of the problem renderer, the name
// of the metadata file.
#[cfg(feature = "cli")]
pub(crate) use diagnostic::render;
#[cfg(feature = "cli")]
pub(crate) use project::METADATA_FILE;

/// The whole command line: parses the process's arguments, runs the command, and returns its
/// exit code (what the `epubforge` binary does; the default `cli` feature).
#[cfg(feature = "cli")]
pub use cmd::run as run_cli;

// What only the command line uses: many books at once, watch mode, the interrupt handler.
#[cfg(feature = "cli")]
pub(crate) use batch::{Outcome, build_all, build_one, find_projects, pool_size};
#[cfg(feature = "cli")]
pub(crate) use fix::{FixOutcome, find_epubs, fix_all};
#[cfg(feature = "cli")]
pub(crate) use init::draft_to_build;
#[cfg(feature = "cli")]
pub(crate) use interrupt::install as install_interrupt_handler;
#[cfg(feature = "cli")]
pub(crate) use interrupt::{create_registered, forget_replaced, record_replaced, spawn_registered};
#[cfg(feature = "cli")]
pub(crate) use watch::{WatchEvent, watch};
