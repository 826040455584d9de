//! An EPUB taken in as a project: [`unpack`] writes the files of any EPUB 2 or 3 (ours,
//! pandoc's, calibre's, a downloader's) into a folder, with a `metadata.toml` that lists its
//! spine documents as chapters, so that the normal build (`project` → … → `archive`) makes the
//! book again. `epubforge init BOOK.epub` is this; `epubforge fix` unpacks into a temporary
//! folder and builds from there.
//!
//! This sits before `project`: it writes the file the project stage reads. It reads the EPUB
//! only through `inspect` (the container, the package document, the nav or NCX, with their
//! caps on entries and inflated sizes) and writes nothing outside the folder it is given: an
//! entry name is taken only when each of its parts is a plain name (no `..`, no root, no drive,
//! no control character), and no folder on the way may be a symlink.
//!
//! What it keeps: the spine's XHTML documents (and a page showing each picture of the spine,
//! an SVG drawing or a bitmap) as chapter files under their own names (the
//! EPUB's layout below the package document's folder, so links between them and to images
//! and stylesheets stay as written; the build resolves links between chapters), images,
//! stylesheets and fonts beside them (those the manifest forgot too, when a document uses
//! them: see `unlisted`), the cover, and in `metadata.toml` what the package
//! document says (see `metadata`) and the chapter list in spine order with the table of
//! contents' titles and nesting (see `chapters`). What it cannot carry is a [`Diagnostic`]
//! with an `epub-in-…` code at the entry (and line) it comes from.

mod chapters;
mod css_check;
mod files;
pub(crate) mod links;
mod metadata;
mod obfuscation;
mod order;
mod render;
mod unlisted;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};
use crate::inspect::{self, InspectError};

pub use chapters::UnpackedChapter;

/// Options of [`unpack`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct UnpackOptions {
    /// Write into a folder that already holds files (they may be overwritten).
    pub force: bool,
}

impl UnpackOptions {
    /// The defaults: refuse a folder that is not empty.
    pub fn new() -> UnpackOptions {
        UnpackOptions::default()
    }

    /// With `force` set.
    pub fn force(mut self, force: bool) -> UnpackOptions {
        self.force = force;
        self
    }
}

/// What [`init_epub`](crate::init_epub) found in an EPUB and wrote.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Unpacked {
    /// The `metadata.toml` written.
    pub metadata_path: PathBuf,
    /// The package's version (`3.0`, `2.0`).
    pub version: String,
    /// The book's title as written.
    pub title: String,
    /// The chapters listed, in spine order.
    pub chapters: Vec<UnpackedChapter>,
    /// Entries of the table of contents read (at every level).
    pub toc_entries: usize,
    /// Files written, by kind.
    pub counts: Counts,
    /// The cover, relative to the folder.
    pub cover: Option<String>,
    /// The folder of the EPUB (`OEBPS/`, with its `/`) whose entries the folder holds: the
    /// file `css/a.css` written is the entry `OEBPS/css/a.css`. Empty when the entries were
    /// written with their whole names (some lay outside the package document's folder).
    pub entries_from: String,
    /// What could not be carried, or was changed on the way.
    pub diagnostics: Vec<Diagnostic>,
}

/// How many files of each kind were written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// Chapter documents.
    pub chapters: usize,
    /// Pictures.
    pub images: usize,
    /// Stylesheets.
    pub stylesheets: usize,
    /// Fonts.
    pub fonts: usize,
    /// Anything else the manifest lists (audio, scripts, data).
    pub other: usize,
}

/// Why [`init_epub`](crate::init_epub) wrote nothing (or stopped).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The EPUB could not be read (no zip, no package document, a zip bomb).
    #[error("{}: {source}", crate::escape::path(epub))]
    Read {
        /// The EPUB.
        epub: PathBuf,
        /// What went wrong.
        source: InspectError,
    },
    /// A file could not be written.
    #[error("{}: {source}", crate::escape::path(path))]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The folder already holds files.
    #[error(
        "{}: not empty; nothing written (name an empty or new folder, or pass --force)",
        crate::escape::path(dir)
    )]
    NotEmpty {
        /// The folder.
        dir: PathBuf,
    },
}

/// Unpacks the EPUB at `epub` into the folder `dir` (made when missing): its files, and a
/// `metadata.toml` that builds it again.
pub fn unpack(epub: &Path, dir: &Path, options: &UnpackOptions) -> Result<Unpacked, Error> {
    let archive = inspect::archive::Archive::lazy(epub);
    unpack_in(&archive, dir, options, files::Mode::Write).map(|(unpacked, _)| unpacked)
}

/// [`unpack`], but the spine's XHTML documents are not written into `dir`: they are returned
/// (path relative to `dir`, with `/` → bytes), for a build that holds them in memory
/// ([`crate::fs::hold`]); everything else is written as [`unpack`] writes it. `fix` unpacks so:
/// thousands of chapters written, read and deleted again were most of its time. The EPUB is
/// read from `epub` (whose entries `fix` inflated once for its checks too).
pub(crate) fn unpack_holding(
    epub: &inspect::archive::Archive,
    dir: &Path,
    options: &UnpackOptions,
) -> Result<(Unpacked, HashMap<String, crate::fs::Held>), Error> {
    unpack_in(epub, dir, options, files::Mode::Hold)
}

/// [`unpack`] with the spine's documents written or held (`mode`).
fn unpack_in(
    archive: &inspect::archive::Archive,
    dir: &Path,
    options: &UnpackOptions,
    mode: files::Mode,
) -> Result<(Unpacked, HashMap<String, crate::fs::Held>), Error> {
    let epub = archive.path();
    let read = |source| Error::Read {
        epub: epub.to_path_buf(),
        source,
    };
    let shared = archive.package().map_err(read)?;
    files::prepare(dir, options.force)?;
    let mut diagnostics = Vec::new();
    // The package its readers share, copied only when its spine is filled in.
    let filled = order::fill_spine(&shared, &mut diagnostics).map(|added| {
        let mut book = inspect::Epub::clone(&shared);
        book.spine.extend(added);
        book
    });
    let book: &inspect::Epub = filled.as_ref().unwrap_or(&shared);
    let shown = |entry: &str| epub.join(entry);
    for note in &book.notes {
        diagnostics
            .push(Diagnostic::note(Code::EpubInToc, note.clone()).at(epub.join(&book.opf_path)));
    }
    let layout = files::Layout::new(book);
    let mut written = files::write(archive, dir, book, &layout, mode, &mut diagnostics)?;
    let carried_css = unlisted::carry(archive, dir, book, &layout, &mut written, &mut diagnostics)?;
    files::unnamed_fonts(epub, dir, book, &written, &mut diagnostics);
    files::picture_pages(dir, book, &mut written, mode, &mut diagnostics)?;
    let mut meta = metadata::Metadata::new(book, &written, &mut diagnostics);
    meta.keep_usable_cover(dir, &mut diagnostics);
    let mut plan = chapters::plan(book, &written, &meta, dir, &mut diagnostics);
    if plan.chapters.is_empty() {
        let page = order::heading_page(
            archive,
            book,
            &layout,
            dir,
            &written,
            &meta,
            &mut diagnostics,
        )?;
        plan.chapters.push(page);
    }
    let stylesheets: Vec<String> = book
        .manifest
        .iter()
        .filter(|i| files::kind_of(i) == files::Kind::Stylesheet)
        .filter_map(|i| written.local.get(&i.href).cloned())
        .chain(carried_css)
        .collect();
    let text = render::metadata_toml(&meta, &plan, &stylesheets);
    let metadata_path = dir.join(crate::project::METADATA_FILE);
    files::write_file(dir, &metadata_path, text.as_bytes())?;
    for d in &mut diagnostics {
        if d.path.is_none() {
            *d = d.clone().at(shown(&book.opf_path));
        }
    }
    let held = std::mem::take(&mut written.held);
    let unpacked = Unpacked {
        metadata_path,
        version: book.version.clone(),
        title: meta.title.clone(),
        toc_entries: chapters::count_entries(&book.toc),
        counts: written.counts,
        cover: meta.cover.clone(),
        entries_from: layout.base().to_string(),
        chapters: plan.chapters,
        diagnostics,
    };
    Ok((unpacked, held))
}

#[cfg(test)]
mod keep_tests;
#[cfg(test)]
mod picture_tests;
#[cfg(test)]
mod tests;
