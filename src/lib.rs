//! epubforge turns a folder of chapter files and a `metadata.toml` into an EPUB 3 that passes
//! EPUBCheck, with an EPUB 2 NCX for older readers.
//!
//! The pipeline runs one way, one module per stage:
//!
//! ```text
//! metadata.toml ─► project ─► source ─► convert ─► package ─► archive ─► book.epub
//!                  (what)     (bytes →   (text →    (OPF, nav,  (zip, atomic
//!                              text)      XHTML)     NCX, CSS)   rename)
//! ```
//!
//! [`build::build`] runs the whole chain for one [`project::Project`]:
//!
//! ```no_run
//! use epubforge::{build, project::Project};
//! let project = Project::load(std::path::Path::new("my-book"))?;
//! let report = build::build(&project, &build::BuildOptions::default())?;
//! println!("{}", report.output.display());
//! # Ok::<(), epubforge::Error>(())
//! ```

pub mod archive;
pub mod batch;
pub mod build;
pub mod check;
pub mod convert;
pub mod diagnostic;
pub mod error;
pub mod fs;
pub mod incremental;
pub mod init;
pub mod inspect;
pub mod interrupt;
pub mod look;
pub mod media;
pub mod package;
pub mod project;
pub mod source;
pub mod watch;
mod write;
pub mod xml;

pub use error::{Error, Result};
