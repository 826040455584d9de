//! How the book is laid out and styled (`[style]`, `[layout]`, `[output] epub-version`), as
//! validated by `project` and read by the converter, the look and the package.

use std::path::PathBuf;

use super::TitleFormat;

/// A built-in stylesheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Theme {
    /// Chinese, Japanese, Korean: two-character indent, no paragraph gap, generous leading.
    Cjk,
    /// Latin scripts: smaller indent, hyphenation, first paragraph unindented.
    Latin,
}

/// How the book looks: `[style]`, validated.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Style {
    /// The built-in theme; None: chosen from the book's language.
    pub theme: Option<Theme>,
    /// User stylesheets, linked after ours in this order.
    pub css: Vec<PathBuf>,
    /// Fonts to embed, the first one the body font.
    pub fonts: Vec<FontSource>,
    /// Paragraph indent, a CSS length.
    pub indent: Option<String>,
    /// Space between paragraphs, a CSS length.
    pub paragraph_spacing: Option<String>,
    /// Line height, a CSS number, length or `normal`.
    pub line_height: Option<String>,
    /// Heading alignment keyword.
    pub heading_align: Option<String>,
    /// Highlight fenced code blocks that name their language (default true).
    pub highlight: bool,
}

impl Default for Style {
    fn default() -> Style {
        Style {
            theme: None,
            css: Vec::new(),
            fonts: Vec::new(),
            indent: None,
            paragraph_spacing: None,
            line_height: None,
            heading_align: None,
            highlight: true,
        }
    }
}

/// A font file to embed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FontSource {
    /// The font file (absolute, or joined to the project folder).
    pub path: PathBuf,
    /// The face of a collection; None: chosen from the book's text.
    pub face: Option<u32>,
    /// The line of the entry in `metadata.toml`, for messages.
    pub line: usize,
}

/// The direction lines run in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum WritingMode {
    /// Lines left to right, top to bottom.
    #[default]
    HorizontalTb,
    /// Lines top to bottom, columns right to left, pages turning leftwards.
    VerticalRl,
}

/// The book's structure: `[layout]`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Layout {
    /// Horizontal or vertical text.
    pub writing_mode: WritingMode,
    /// A typographic cover drawn when the book names none (`[layout] generated-cover`).
    pub generated_cover: bool,
    /// A generated title page after the cover.
    pub title_page: bool,
    /// A generated table-of-contents page in the reading order.
    pub toc_page: bool,
    /// Where that page stands: before the chapter of this number in reading order (1, the
    /// default: at the front, after the title page); past the last chapter, after it.
    pub toc_page_before: usize,
    /// That page's heading, and its entry in the table of contents under it (`None`: headed
    /// in the book's language, "Contents", and not listed).
    pub toc_page_title: Option<String>,
    /// A generated colophon at the end.
    pub colophon: bool,
    /// Chapters above this many bytes of XHTML are split into several documents.
    pub split_size: usize,
    /// Heading levels in the table of contents: 1 lists chapters only, 2 also their `h2`
    /// sections, up to 6.
    pub toc_depth: usize,
    /// Chapter titles numbered again in reading order (`第{n}章 {title}`).
    pub title_format: Option<TitleFormat>,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            writing_mode: WritingMode::HorizontalTb,
            generated_cover: true,
            title_page: true,
            toc_page: false,
            toc_page_before: 1,
            toc_page_title: None,
            colophon: false,
            split_size: DEFAULT_SPLIT_KB * 1024,
            toc_depth: DEFAULT_TOC_DEPTH,
            title_format: None,
        }
    }
}

/// Default `[layout] toc-depth`: chapters and their sections (`h2`), as calibre's
/// `--level2-toc` gives; pandoc's 3 makes 428 entries of the Rust book, too many to find a
/// chapter in on a reader's contents screen.
pub const DEFAULT_TOC_DEPTH: usize = 2;

/// Default `[layout] split-size`, in KB.
pub const DEFAULT_SPLIT_KB: usize = 300;

/// The EPUB version to write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum EpubVersion {
    /// EPUB 2.0.1 for old devices.
    V2,
    /// EPUB 3.3.
    #[default]
    V3,
}
