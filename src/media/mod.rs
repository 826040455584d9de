//! Media that goes into the EPUB besides the text: images, the cover, embedded fonts and user
//! stylesheets.
//!
//! This sits beside the package stage of the pipeline (see the crate documentation's chain of
//! stages): the packager asks [`image::prepare_cover`] to check and, when needed,
//! shrink a user-supplied cover, [`image::load_image`] to read an image a chapter or stylesheet
//! uses, [`cover::generate_cover`] to draw a cover when the book has none, and
//! [`fonts::subset_font`] to cut an embedded font down to the characters the book uses.
//!
//! Every file here may come from a stranger, so each is read through [`crate::fs`] (regular
//! files only, never blocking, at most the caps below), images are checked against
//! [`raster`]'s limits before a pixel is decoded, and SVG and CSS are rebuilt from what an
//! allow-list keeps ([`svg`], [`css`]): nothing scripted or remote reaches the book.
//!
//! Nothing here touches the file system except the readers named above,
//! [`cover::find_system_cjk_font`], which only looks, and
//! [`cover::find_system_cjk_font_remembered`], which also keeps its answer in the build cache;
//! every function is deterministic (same input bytes, same output bytes) so that builds are
//! reproducible.

pub mod base64;
pub mod cover;
pub mod css;
mod css_grammar;
mod css_url;
pub mod fonts;
pub mod image;
pub mod raster;
pub mod svg;

use std::path::Path;

use crate::error::{Error, Result};

/// The largest image or cover file read, in bytes (50 MB). A 6000x9000 photo saved at high
/// JPEG quality is about 20 MB; anything larger is not a book illustration.
pub const MAX_IMAGE_BYTES: u64 = 50_000_000;

/// The largest font file read, in bytes (256 MB). The biggest fonts in use are CJK collections
/// with every weight in one file (Noto Sans CJK's "Super OTC" is about 120 MB); the font is
/// read whole, once per build, so the cap also bounds the memory a font can take.
pub const MAX_FONT_BYTES: u64 = 256_000_000;

/// The largest user stylesheet read, in bytes (10 MB). Whole CSS frameworks are under 1 MB.
pub const MAX_CSS_BYTES: u64 = 10_000_000;

/// The bytes of a font file, read whole.
///
/// Mapping the file instead would keep only the touched pages in memory, but needs `unsafe`,
/// and a font truncated while mapped would fault the process: the price of reading is one
/// CJK font's 20-30 MB for the length of the build, well inside the memory budget.
pub struct FontFile(Vec<u8>);

impl FontFile {
    /// Opens and reads `path`: a regular file of at most [`MAX_FONT_BYTES`], opened
    /// without blocking (see [`crate::fs::open_regular`]). Errors name the path.
    pub fn open(path: &Path) -> Result<FontFile> {
        FontFile::from_file(crate::fs::open_regular(path)?, path)
    }

    /// [`FontFile::open`] for a font of the project, opened through the project folder's
    /// `boundary` as every file of the project is.
    pub fn open_in(boundary: &crate::project::Boundary, path: &Path) -> Result<FontFile> {
        FontFile::from_file(boundary.open(path)?, path)
    }

    /// Reads `file`, a regular file opened from `path`.
    fn from_file(file: std::fs::File, path: &Path) -> Result<FontFile> {
        let size = file
            .metadata()
            .map_err(|e| Error::io(path, "cannot read", e))?
            .len();
        if size > MAX_FONT_BYTES {
            return Err(crate::fs::too_large(path, "font", MAX_FONT_BYTES));
        }
        crate::fs::read_file_limited(file, path, MAX_FONT_BYTES, "font").map(FontFile)
    }
}

impl std::ops::Deref for FontFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// A font file a book's stylesheet names, carried as it is (not subset): what its first bytes
/// say it is. Only the formats EPUB 3 lists as core media types are carried (TrueType and
/// OpenType, WOFF, WOFF 2); a collection (`ttcf`) or anything else is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CarriedFont {
    /// TrueType outlines (`00 01 00 00` or `true`).
    Ttf,
    /// OpenType with CFF outlines (`OTTO`).
    Otf,
    /// WOFF 1 (`wOFF`).
    Woff,
    /// WOFF 2 (`wOF2`).
    Woff2,
}

impl CarriedFont {
    /// The format of `bytes`, when they start as a font EPUB carries.
    pub fn sniff(bytes: &[u8]) -> Option<CarriedFont> {
        match bytes.get(..4)? {
            [0, 1, 0, 0] | b"true" => Some(CarriedFont::Ttf),
            b"OTTO" => Some(CarriedFont::Otf),
            b"wOFF" => Some(CarriedFont::Woff),
            b"wOF2" => Some(CarriedFont::Woff2),
            _ => None,
        }
    }

    /// The file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            CarriedFont::Ttf => "ttf",
            CarriedFont::Otf => "otf",
            CarriedFont::Woff => "woff",
            CarriedFont::Woff2 => "woff2",
        }
    }

    /// The manifest's media type: EPUB 3's core media types, or for EPUB 2 the older names
    /// its readers know.
    pub fn media_type(self, epub2: bool) -> &'static str {
        match (self, epub2) {
            (CarriedFont::Ttf, false) => "font/ttf",
            (CarriedFont::Otf, false) => "font/otf",
            (CarriedFont::Woff, false) => "font/woff",
            (CarriedFont::Woff2, false) => "font/woff2",
            (CarriedFont::Ttf, true) => "application/x-font-truetype",
            (CarriedFont::Otf, true) => "application/vnd.ms-opentype",
            (CarriedFont::Woff, true) => "application/font-woff",
            (CarriedFont::Woff2, true) => "font/woff2",
        }
    }
}
