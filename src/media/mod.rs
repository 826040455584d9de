//! Media that goes into the EPUB besides the text: the cover image and embedded fonts.
//!
//! This sits beside the package stage of the pipeline (project -> source -> convert ->
//! package -> archive): the packager asks [`image::prepare_cover`] to check and, when needed,
//! shrink a user-supplied cover, [`cover::generate_cover`] to draw one when the book has none,
//! and [`fonts::subset_font`] to cut an embedded font down to the characters the book uses.
//! Nothing here touches the file system except [`cover::find_system_cjk_font`], which only
//! looks, and [`cover::find_system_cjk_font_remembered`], which also keeps its answer in the
//! build cache; every function is deterministic (same input bytes, same output bytes) so
//! that builds are reproducible.

pub mod cover;
pub mod fonts;
pub mod image;

use std::path::Path;

/// The bytes of a font file, memory-mapped where the system allows it.
///
/// CJK fonts are 20-30 MB, and drawing a cover or cutting a subset reads only a few tables and
/// glyphs: mapped, only those pages are ever loaded, which keeps a build's peak memory near the
/// size of its text rather than its fonts. Falls back to reading the whole file.
pub struct FontFile(Backing);

enum Backing {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl FontFile {
    /// Opens and maps (or reads) `path`.
    pub fn open(path: &Path) -> std::io::Result<FontFile> {
        let file = std::fs::File::open(path)?;
        // SAFETY: the map is read-only and private to this build. Someone truncating the font
        // while it is mapped would fault the process, the same risk every program that maps
        // fonts (browsers, font rasterisers, ripgrep for searched files) takes.
        match unsafe { memmap2::Mmap::map(&file) } {
            Ok(map) => Ok(FontFile(Backing::Mapped(map))),
            Err(_) => std::fs::read(path).map(|bytes| FontFile(Backing::Read(bytes))),
        }
    }
}

impl std::ops::Deref for FontFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Backing::Mapped(map) => map,
            Backing::Read(bytes) => bytes,
        }
    }
}
