//! Media that goes into the EPUB besides the text: the cover image and embedded fonts.
//!
//! This sits beside the package stage of the pipeline (project -> source -> convert ->
//! package -> archive): the packager asks [`image::prepare_cover`] to check and, when needed,
//! shrink a user-supplied cover, [`cover::generate_cover`] to draw one when the book has none,
//! and [`fonts::subset_font`] to cut an embedded font down to the characters the book uses.
//! Nothing here touches the file system except [`cover::find_system_cjk_font`], which only
//! looks; every function is deterministic (same input bytes, same output bytes) so that
//! builds are reproducible.

pub mod cover;
pub mod fonts;
pub mod image;
