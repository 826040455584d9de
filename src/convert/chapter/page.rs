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
/// `fixed` already). A heading that was only pictures (IDPF mymedia_lite's
/// `<h1><img alt="ガリ版の話"/></h1>`) stays pictures: they move from the body back into the
/// `h1`, and their text alternative names the chapter in the contents only. None when the file
/// opens with no heading: the build then adds none.
pub(super) fn own_heading(
    project: &Project,
    (kind, fixed): (SourceKind, bool),
    converted: &mut crate::convert::Converted,
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
    let shown = match (picture_heading(&converted.body, found), kind) {
        (Some((pictures, after)), _) => {
            let shown = pictures.to_string();
            converted.body.replace_range(..after, "");
            shown
        }
        _ if fixed => crate::xml::escape_text(found),
        (_, SourceKind::Text) => crate::xml::escape_text(found),
        _ => crate::xml::escape_text(&project.text.title(found, Some(file), tally)?),
    };
    let types = converted
        .title_types
        .as_deref()
        .map(|t| format!(" epub:type=\"{}\"", crate::xml::escape_attr(t)))
        .unwrap_or_default();
    // The id the conversion gave the links to this heading (`#chap01` of a heading taken out
    // as the title); the build writes no h1 of its own that could hold it too.
    Ok(Some(format!(
        "<h1{types} id=\"{}chapter-title\">{shown}</h1>\n",
        crate::xml::GENERATED_ID_PREFIX,
    )))
}

/// When `title` is the text alternative of the pictures the sanitiser kept first in `body` of
/// a heading it took out (a `div.heading-picture`, its `keep_pictures`): the heading held
/// nothing else. Then the pictures' markup, and where the body goes on after them.
fn picture_heading<'b>(body: &'b str, title: &str) -> Option<(&'b str, usize)> {
    const OPEN: &str = "<div class=\"heading-picture\">";
    let start = body.len() - body.trim_start().len();
    let inner_at = start + OPEN.len();
    let rest = body.get(start..)?.strip_prefix(OPEN)?;
    let end = rest.find("</div>")?;
    let pictures = &rest[..end];
    let alts: Vec<String> = (pictures.split(" alt=\"").skip(1))
        .filter_map(|a| {
            a.split_once('"')
                .map(|(v, _)| v.replace("&#10;", " ").replace("&#9;", " "))
        })
        .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|v| !v.is_empty())
        .collect();
    let escaped = crate::xml::escape_attr(title);
    let said = escaped.split_whitespace().collect::<Vec<_>>().join(" ");
    let after = inner_at + end + "</div>".len();
    let after = after + body[after..].len() - body[after..].trim_start().len();
    (!alts.is_empty() && alts.join(" ") == said).then_some((pictures, after))
}
