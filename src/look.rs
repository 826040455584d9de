//! Gets the look of a book ready: reads the user stylesheets, subsets the embedded fonts to the
//! characters the book shows, and draws a cover when the book has none.
//!
//! Runs between `load_book` (chapters converted) and `package` in [`crate::build`]: it needs
//! the converted text (to know which characters a font must keep) and it does I/O (fonts, CSS),
//! which the package stage does not.

use std::path::Path;

use crate::build::Warning;
use crate::error::{Error, Result, read};
use crate::media::{cover, fonts};
use crate::package::{self, Asset, Book, Image, Look};
use crate::project::{Project, WritingMode};

/// Builds the [`Look`] for `project`; gives `book` a generated cover when it has none.
pub fn prepare(project: &Project, book: &mut Book, warnings: &mut Vec<Warning>) -> Result<Look> {
    let mut look = Look {
        style: project.style.clone(),
        layout: project.layout.clone(),
        version: project.epub_version,
        user_css: user_css(&project.style.css)?,
        fonts: Vec::new(),
    };
    if book.cover.is_none() {
        book.cover = Some(generated_cover(project, book));
    }
    if project.style.fonts.is_empty() {
        return Ok(look);
    }
    let chars = package::used_chars(book, &look);
    let sample: String = chars.iter().collect();
    for source in &project.style.fonts {
        let bytes = read(&source.path)?;
        let face = source
            .face
            .unwrap_or_else(|| fonts::choose_face(&bytes, &sample));
        let subset = fonts::subset_font(&bytes, face, &chars).map_err(|e| Error::Metadata {
            path: project.metadata_path.clone(),
            message: format!(
                "line {}: font {}: {e}\n  hint: use a TrueType or OpenType font (.ttf, .otf, .ttc)",
                source.line,
                source.path.display()
            ),
        })?;
        if !subset.missing.is_empty() {
            warnings.push(Warning {
                path: source.path.clone(),
                line: None,
                message: missing_message(&subset.missing),
            });
        }
        look.fonts.push(subset);
    }
    Ok(look)
}

/// "the font lacks 3 characters the book uses: 'a' (U+0061), ..." listing the first few.
fn missing_message(missing: &[char]) -> String {
    const SHOWN: usize = 8;
    let listed: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|c| format!("'{c}' (U+{:04X})", *c as u32))
        .collect();
    let more = if missing.len() > SHOWN { ", ..." } else { "" };
    format!(
        "the font lacks {} character(s) the book uses: {}{more}; readers show them in another font",
        missing.len(),
        listed.join(", ")
    )
}

/// Copies of the user stylesheets, with file names that are safe and unique in `styles/`.
fn user_css(paths: &[std::path::PathBuf]) -> Result<Vec<Asset>> {
    let mut out: Vec<Asset> = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let data = read(path)?;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| {
                n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
                    && *n != "book.css"
                    && !out.iter().any(|a| a.name == *n)
            })
            .map_or_else(|| format!("user-{}.css", i + 1), str::to_string);
        out.push(Asset { name, data });
    }
    Ok(out)
}

/// A typographic cover: with the first configured font, else a CJK font found on the system,
/// else without text. Deterministic for the same font.
fn generated_cover(project: &Project, book: &Book) -> Image {
    let font = project
        .style
        .fonts
        .first()
        .map(|f| f.path.clone())
        .or_else(cover::find_system_cjk_font)
        .and_then(|p: std::path::PathBuf| std::fs::read(Path::new(&p)).ok());
    let authors: Vec<String> = book.info.authors.iter().map(|a| a.name.clone()).collect();
    let text = cover::CoverText {
        title: &book.info.title,
        subtitle: book.info.subtitle.as_deref(),
        authors: &authors,
        vertical: project.layout.writing_mode == WritingMode::VerticalRl,
    };
    Image {
        name: "cover.png".into(),
        media_type: "image/png",
        data: cover::generate_cover(&text, font.as_deref()),
        width: cover::COVER_WIDTH,
        height: cover::COVER_HEIGHT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_characters_are_listed_first_few_with_code_points() {
        let m = missing_message(&['甲', 'a']);
        assert!(
            m.contains("2 character(s)") && m.contains("'甲' (U+7532)"),
            "{m}"
        );
        let many: Vec<char> = ('a'..='z').collect();
        let m = missing_message(&many);
        assert!(
            m.contains("'h'") && !m.contains("'i'") && m.ends_with("another font"),
            "{m}"
        );
    }
}
