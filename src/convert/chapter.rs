//! One chapter file converted: read, decoded, dispatched on its kind (plain text, Markdown,
//! HTML), split at its headings when asked, titled, and its images resolved.
//!
//! The one conversion of a chapter source: the build uses it for every chapter it does not take
//! from the cache.

use std::path::{Path, PathBuf};

use crate::diagnostic::Warning;
use crate::error::{Error, Result};
use crate::fs::read;
use crate::package::{self, Chapter, Image, Node, Part};
use crate::project::{ChapterSource, Project};
use crate::source::{self, Detection};
use sha2::Digest;

/// How one chapter file was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceReport {
    /// The chapter file.
    pub path: PathBuf,
    /// The encoding used (WHATWG name).
    pub encoding: &'static str,
    /// How it was chosen.
    pub detection: Detection,
}

/// One chapter source converted: one chapter, or the volumes and chapters of a split file.
pub(crate) struct ConvertedChapter {
    pub nodes: Vec<Node>,
    pub images: Vec<Image>,
    pub links: Vec<String>,
    pub warnings: Vec<Warning>,
    pub report: SourceReport,
}

pub(crate) fn convert_chapter(
    project: &Project,
    src: &ChapterSource,
    n: usize,
) -> Result<ConvertedChapter> {
    let bytes = read(&src.path)?;
    let decoded =
        source::decode(&bytes, src.encoding.as_deref(), src.encoding_errors).map_err(|e| {
            Error::Decode {
                path: src.path.clone(),
                message: e.to_string(),
            }
        })?;
    let warn = |line: Option<usize>, message: String| Warning {
        path: src.path.clone(),
        line,
        message,
    };
    let mut warnings = Vec::new();
    if decoded.dropped_controls > 0 {
        warnings.push(warn(
            decoded.first_dropped_line,
            format!(
                "dropped {} control character(s) that XML does not allow",
                decoded.dropped_controls
            ),
        ));
    }
    if decoded.replaced > 0 {
        warnings.push(warn(
            None,
            format!(
                "replaced {} invalid byte sequence(s) with U+FFFD (encoding-errors = \"replace\")",
                decoded.replaced
            ),
        ));
    }
    let report = SourceReport {
        path: src.path.clone(),
        encoding: decoded.encoding.name(),
        detection: decoded.detection,
    };
    let lang = &project.book.language;

    if let Some(mode) = &src.split {
        if crate::convert::SourceKind::of(&src.path) != crate::convert::SourceKind::Text {
            return Err(Error::Convert {
                path: src.path.clone(),
                message: "`split` works on plain-text files only\n  hint: give Markdown and HTML chapters one file each".into(),
            });
        }
        let (pieces, split_warnings) = crate::convert::split_text(&decoded.text, mode);
        warnings.extend(
            split_warnings
                .into_iter()
                .map(|w| warn(Some(w.line), w.message)),
        );
        let nodes = pieces_to_nodes(pieces, project, &mut |line, message| {
            warnings.push(warn(line, message))
        });
        if nodes.is_empty() {
            warnings.push(warn(None, "chapter file is empty".into()));
        }
        return Ok(ConvertedChapter {
            nodes,
            images: Vec::new(),
            links: Vec::new(),
            warnings,
            report,
        });
    }

    let mut images = Vec::new();
    let converted = match crate::convert::SourceKind::of(&src.path) {
        crate::convert::SourceKind::Text => {
            // A heading line repeating the title given in metadata.toml (as `init` writes it)
            // is the title; a different one is text.
            let c = crate::convert::convert_text(&decoded.text, true);
            match (&src.title, &c.title) {
                (Some(given), Some(found)) if given != found => {
                    crate::convert::convert_text(&decoded.text, false)
                }
                _ => c,
            }
        }
        kind => {
            let mut resolver = |s: &str| resolve_image(project, &src.path, s, &mut images);
            let result = if kind == crate::convert::SourceKind::Markdown {
                crate::convert::convert_markdown(&decoded.text, &mut resolver)
            } else {
                crate::convert::convert_html(&decoded.text, &mut resolver)
            };
            result.map_err(|e| Error::Convert {
                path: src.path.clone(),
                message: e.to_string(),
            })?
        }
    };
    warnings.extend(converted.warnings.iter().map(|w| warn(None, w.clone())));
    if converted.paragraphs == 0 {
        warnings.push(warn(None, "chapter is empty".into()));
    }
    let title = src
        .title
        .clone()
        .or(converted.title)
        .or_else(|| title_from_file_name(&src.path))
        .unwrap_or_else(|| package::chapter_title(lang, n));
    Ok(ConvertedChapter {
        nodes: vec![Node::Chapter(Chapter::new(
            title,
            converted.body,
            &project.layout,
        ))],
        images,
        links: converted.links,
        warnings,
        report,
    })
}

/// Turns the pieces of a split file into nodes: a volume opens a part that takes the
/// chapters after it.
fn pieces_to_nodes(
    pieces: Vec<crate::convert::Piece>,
    project: &Project,
    warn: &mut dyn FnMut(Option<usize>, String),
) -> Vec<Node> {
    let (lang, layout) = (&project.book.language, &project.layout);
    let mut nodes: Vec<Node> = Vec::new();
    let mut volume: Option<Part> = None;
    for piece in pieces {
        match piece {
            crate::convert::Piece::Front(body) => {
                let (title, body) = front_matter(body, lang);
                nodes.push(Node::Chapter(Chapter::new(title, body, layout)));
            }
            crate::convert::Piece::Volume { title, intro } => {
                nodes.extend(volume.take().map(Node::Part));
                volume = Some(Part {
                    title,
                    intro: intro.body,
                    children: Vec::new(),
                });
            }
            crate::convert::Piece::Chapter { title, body, line } => {
                if body.paragraphs == 0 {
                    warn(Some(line), format!("chapter \"{title}\" is empty"));
                }
                let chapter = Node::Chapter(Chapter::new(title, body.body, layout));
                match volume.as_mut() {
                    Some(v) => v.children.push(chapter),
                    None => nodes.push(chapter),
                }
            }
        }
    }
    nodes.extend(volume.map(Node::Part));
    nodes
}

/// The title of the text before the first heading: its own first line when that is a label
/// such as `内容简介` (then removed from the body), else a word for "synopsis" in the book's
/// language.
fn front_matter(body: crate::convert::Converted, lang: &str) -> (String, String) {
    const LABELS: [&str; 12] = [
        "简介",
        "內容簡介",
        "内容简介",
        "作品简介",
        "作品簡介",
        "簡介",
        "文案",
        "前言",
        "序言",
        "引言",
        "Foreword",
        "Synopsis",
    ];
    if let Some(rest) = body.body.strip_prefix("<p>")
        && let Some((first, after)) = rest.split_once("</p>\n")
    {
        let label = first.trim_end_matches(['：', ':']);
        if LABELS.contains(&label) {
            return (label.to_string(), after.to_string());
        }
    }
    (package::front_title(lang), body.body)
}

/// Resolves an image referenced by a Markdown or HTML chapter: a real image inside the project,
/// named after its content so the same image used twice is stored once.
fn resolve_image(
    project: &Project,
    chapter: &Path,
    src: &str,
    images: &mut Vec<Image>,
) -> std::result::Result<String, String> {
    let dir = chapter.parent().unwrap_or(Path::new("."));
    let path = dir.join(src);
    let data = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if let (Ok(root), Ok(real)) = (project.root.canonicalize(), path.canonicalize())
        && !real.starts_with(&root)
    {
        return Err(format!(
            "{} is outside the project folder; copy the image into the project",
            path.display()
        ));
    }
    let info = crate::media::image::sniff(&data).ok_or_else(|| {
        format!(
            "{} is not a JPEG, PNG, GIF, WebP or SVG image",
            path.display()
        )
    })?;
    let digest = sha2::Sha256::digest(&data);
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let name = format!("img-{hex}.{}", info.format.extension());
    let href = format!("../images/{name}");
    if !images.iter().any(|i| i.name == name) {
        images.push(Image {
            name,
            media_type: info.format.media_type(),
            data,
            width: info.width,
            height: info.height,
        });
    }
    Ok(href)
}

/// A title from a file name: the stem without a leading number and separators, `_` and `-`
/// read as spaces. None when nothing meaningful is left (only a number, or a hex hash such
/// as `000_6761ebf9337845da`).
pub fn title_from_file_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let rest = stem
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['_', '-', '.', ' ']);
    let is_hash = rest.len() >= 6 && rest.chars().all(|c| c.is_ascii_hexdigit());
    if rest.is_empty() || is_hash {
        return None;
    }
    let title = rest.replace(['_', '-'], " ");
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_name_titles_skip_numbers_and_hashes() {
        assert_eq!(
            title_from_file_name(Path::new("000_6761ebf9337845da.txt")),
            None
        );
        assert_eq!(title_from_file_name(Path::new("012.txt")), None);
        assert_eq!(
            title_from_file_name(Path::new("003_第三章 风起.txt")).as_deref(),
            Some("第三章 风起")
        );
        assert_eq!(
            title_from_file_name(Path::new("01-the_long_night.md")).as_deref(),
            Some("the long night")
        );
    }
}
