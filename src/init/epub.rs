//! `epubforge init BOOK.epub [DIR]`: an EPUB unpacked into an editable project
//! ([`crate::epub_in::unpack`]), in `DIR` or a folder named after the EPUB beside it, its
//! chapters rewritten as Markdown with `--markdown` where Markdown says all they hold.

use std::path::{Path, PathBuf};

use crate::epub_in::{self, UnpackOptions, Unpacked};

/// Options of [`init_epub`].
#[derive(Debug, Clone, Copy, Default)]
pub struct EpubInitOptions {
    /// Write into a folder that is not empty.
    pub force: bool,
    /// Chapters as Markdown where that is faithful.
    pub markdown: bool,
}

/// The folder an EPUB is unpacked into by default: its name without `.epub`, beside it.
pub fn default_folder(epub: &Path) -> PathBuf {
    let stem = epub
        .file_stem()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "book".into());
    epub.with_file_name(stem)
}

/// Unpacks `epub` into `dir` (default: [`default_folder`]).
pub fn init_epub(
    epub: &Path,
    dir: Option<&Path>,
    opts: &EpubInitOptions,
) -> Result<Unpacked, epub_in::Error> {
    let dir = dir.map_or_else(|| default_folder(epub), Path::to_path_buf);
    let unpacked = epub_in::unpack(epub, &dir, &UnpackOptions::new().force(opts.force))?;
    Ok(unpacked)
}
