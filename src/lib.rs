//! epubforge: chapter files + metadata.toml -> a valid EPUB 3.

pub mod markup;
