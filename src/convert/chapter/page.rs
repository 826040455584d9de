//! How a chapter's page opens: its own opening heading through the text-fix stage, the `h1` of
//! a chapter entry with `heading = false` (the page shows the heading its file opens with, and
//! the build adds none), and the entry's `sections` with their ids as the body has them.
//! Apart from `mod.rs` because `init BOOK.epub` writes these keys for pages of other tools.

use std::collections::HashMap;

use crate::convert::SourceKind;
use crate::error::Result;
use crate::project::{ChapterSource, Project};
use crate::text_fix::{FileRef, Tally};

/// The opening heading goes through the text-fix stage as the given title did, before the two
/// are compared (and when kept, it is shown converted like the rest of the text). True when it
/// was fixed.
pub(super) fn fix_opening_heading(
    project: &Project,
    given: Option<&str>,
    converted: &mut crate::convert::Converted,
    file: FileRef<'_>,
    tally: Option<&mut Tally>,
) -> Result<bool> {
    if let (Some(_), true, Some(found)) = (given, converted.title_is_heading, &converted.title) {
        converted.title = Some(project.text.title(found, Some(file), tally)?);
        return Ok(true);
    }
    Ok(false)
}

/// The chapter entry's `sections`, their ids as the body has them and their titles fixed as
/// titles are (converted with the text, `--convert s2tw` too).
pub(super) fn given_sections(
    project: &Project,
    src: &ChapterSource,
    ids: &HashMap<String, String>,
    file: FileRef<'_>,
    mut tally: Option<&mut Tally>,
) -> Result<Option<Vec<crate::book::Section>>> {
    let Some(given) = src.sections.as_deref() else {
        return Ok(None);
    };
    let mut given = given.0.clone();
    for s in &mut given {
        if let Some(now) = ids.get(&s.id) {
            s.id = now.clone();
        }
        s.title = project
            .text
            .title(&s.title, Some(file), tally.as_deref_mut())?;
    }
    Ok(Some(given))
}

/// The heading a chapter with `heading = false` shows: the one its file opens with, which the
/// conversion took out as its title, put back as its `h1` (its text fixed as titles are, unless
/// `fixed` already). None when the file opens with no heading: the build then adds none.
pub(super) fn own_heading(
    project: &Project,
    (kind, fixed): (SourceKind, bool),
    converted: &crate::convert::Converted,
    file: FileRef<'_>,
    tally: Option<&mut Tally>,
) -> Result<Option<String>> {
    let Some(found) = converted
        .title
        .as_deref()
        .filter(|_| converted.title_is_heading)
    else {
        return Ok(None);
    };
    let shown = match kind {
        _ if fixed => found.to_string(),
        SourceKind::Text => found.to_string(),
        _ => project.text.title(found, Some(file), tally)?,
    };
    let types = converted
        .title_types
        .as_deref()
        .map(|t| format!(" epub:type=\"{}\"", crate::xml::escape_attr(t)))
        .unwrap_or_default();
    // The id links to the heading were pointed at (the title's, as with a heading of ours).
    Ok(Some(format!(
        "<h1 id=\"{}chapter-title\"{types}>{}</h1>\n",
        crate::xml::GENERATED_ID_PREFIX,
        crate::xml::escape_text(&shown)
    )))
}
