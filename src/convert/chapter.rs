//! One chapter file converted: read, decoded, dispatched on its kind (plain text, Markdown,
//! HTML), split at its headings when asked, titled, and its images resolved.
//!
//! The one conversion of a chapter source: the build uses it for every chapter it does not take
//! from the cache.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::SourceKind;
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::fs::read;
use crate::package::{self, Chapter, Image, Node, Part};
use crate::project::{ChapterSource, Project};
use crate::source::{self, Decoded, Detection};

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
    /// The ids of a markup chapter as written -> as its body has them.
    pub ids: HashMap<String, String>,
    pub warnings: Vec<Diagnostic>,
    pub report: SourceReport,
}

/// Reads, decodes and converts chapter source `src`, the `n`th (1-based) of the book.
pub(crate) fn convert_chapter(
    project: &Project,
    src: &ChapterSource,
    n: usize,
) -> Result<ConvertedChapter> {
    let decoded = read_chapter(src)?;
    convert_decoded(project, src, n, &decoded)
}

/// Reads and decodes a chapter file; a decoding error points at the first bad byte.
pub(crate) fn read_chapter(src: &ChapterSource) -> Result<Decoded> {
    let bytes = read(&src.path)?;
    source::decode(&bytes, src.encoding.as_deref(), src.encoding_errors)
        .map_err(|e| decode_error(&src.path, &bytes, &e))
}

/// A decoding error with the line and column (in characters) of the first bad byte.
fn decode_error(path: &Path, bytes: &[u8], e: &source::DecodeError) -> Error {
    let (line, column) = match *e {
        source::DecodeError::Malformed { offset, line, .. } => {
            let before = bytes.get(..offset).unwrap_or(bytes);
            let start = before
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
            let prefix = String::from_utf8_lossy(&before[start..]);
            (Some(line), Some(prefix.chars().count() + 1))
        }
        _ => (None, None),
    };
    Error::Decode {
        path: path.to_path_buf(),
        line,
        column,
        message: e.to_string(),
        hint: e.hint(),
    }
}

/// Converts a decoded chapter file.
pub(crate) fn convert_decoded(
    project: &Project,
    src: &ChapterSource,
    n: usize,
    decoded: &Decoded,
) -> Result<ConvertedChapter> {
    let kind = SourceKind::of(&src.path);
    let mut warnings = decode_warnings(&src.path, decoded, kind);
    let report = SourceReport {
        path: src.path.clone(),
        encoding: decoded.encoding.name(),
        detection: decoded.detection,
    };
    if let Some(mode) = &src.split {
        if kind != SourceKind::Text {
            return Err(Error::Convert {
                path: src.path.clone(),
                message: "`split` works on plain-text files only".into(),
                hint: Some("give Markdown and HTML chapters one file each".into()),
            });
        }
        let nodes = split_file(project, src, &decoded.text, mode, &mut warnings);
        return Ok(ConvertedChapter {
            nodes,
            images: Vec::new(),
            links: Vec::new(),
            ids: HashMap::new(),
            warnings,
            report,
        });
    }
    let mut images = Vec::new();
    let converted = convert_one(
        project,
        src,
        kind,
        &decoded.text,
        &mut images,
        &mut warnings,
    )?;
    let warn = |code, message: &str| Diagnostic::warning(code, message).at(&src.path);
    warnings.extend(
        converted
            .warnings
            .iter()
            .map(|w| warn(Code::Markup, &w.message).line(w.line)),
    );
    if let Some(message) = removed_summary(&converted.removed) {
        warnings.push(warn(Code::RemovedContent, &message).hint(
            "a book cannot carry them; replace them with text or images, or build with --strict to refuse the loss",
        ));
    }
    if converted.paragraphs == 0 {
        warnings.push(
            warn(Code::EmptyChapter, "the chapter is empty")
                .hint("it builds as an empty page; add its text or remove the entry"),
        );
    }
    let title = src
        .title
        .clone()
        .or(converted.title)
        .or_else(|| title_from_file_name(&src.path))
        .unwrap_or_else(|| package::chapter_title(&project.book.language, n));
    Ok(ConvertedChapter {
        nodes: vec![Node::Chapter(Chapter::new(
            title,
            converted.body,
            &project.layout,
        ))],
        images,
        links: converted.links,
        ids: converted.ids,
        warnings,
        report,
    })
}

/// The title a chapter file's text gives itself, found as the build finds it (a heading line
/// in text, a leading `# Title` in Markdown, the first `<h1>` or `<title>` in HTML): what
/// `init` writes into `metadata.toml`. Images are not looked at.
pub(crate) fn title_in(path: &Path, text: &str) -> Option<String> {
    let mut no_images = |_: &str| -> std::result::Result<String, String> { Ok(String::new()) };
    match SourceKind::of(path) {
        SourceKind::Text => super::convert_text(text, true).title,
        SourceKind::Markdown => {
            let opts = super::markup::MarkdownOptions { highlight: false };
            super::convert_markdown(text, &mut no_images, opts)
                .ok()?
                .title
        }
        SourceKind::Html => super::convert_html(text, &mut no_images).ok()?.title,
    }
}

/// "removed 3 elements: <video> ×2, <iframe>", or None when nothing was.
fn removed_summary(removed: &[(String, usize)]) -> Option<String> {
    let total: usize = removed.iter().map(|(_, n)| n).sum();
    let items: Vec<String> = removed
        .iter()
        .map(|(what, n)| match n {
            1 => what.clone(),
            n => format!("{what} ×{n}"),
        })
        .collect();
    let noun = if total == 1 { "element" } else { "elements" };
    (total > 0).then(|| format!("removed {total} {noun}: {}", items.join(", ")))
}

/// What decoding changed: control characters dropped, bad bytes replaced; and what becomes of
/// NUL characters in a file of `kind` (plain text drops them like other controls).
fn decode_warnings(path: &Path, decoded: &Decoded, kind: SourceKind) -> Vec<Diagnostic> {
    let mut warnings = Vec::new();
    let (nuls, nul_line) = decoded.nuls;
    let (dropped, line) = match kind {
        SourceKind::Text => (
            decoded.dropped_controls + nuls,
            decoded.first_dropped_line.into_iter().chain(nul_line).min(),
        ),
        _ => (decoded.dropped_controls, decoded.first_dropped_line),
    };
    if dropped > 0 {
        let message = format!("dropped {dropped} control character(s) that XML does not allow");
        warnings.push(
            Diagnostic::warning(Code::ControlCharacters, message)
                .at(path)
                .line(line),
        );
    }
    let nul_fate = match kind {
        SourceKind::Text => None,
        SourceKind::Markdown => Some("replaced with U+FFFD, as CommonMark requires"),
        SourceKind::Html => Some("dropped or replaced with U+FFFD, as HTML parsing does"),
    };
    if let Some(fate) = nul_fate.filter(|_| nuls > 0) {
        let message = format!("{nuls} NUL character(s) {fate}");
        warnings.push(
            Diagnostic::warning(Code::ControlCharacters, message)
                .at(path)
                .line(nul_line),
        );
    }
    if decoded.replaced > 0 {
        let message = format!(
            "replaced {} invalid byte sequence(s) with U+FFFD (encoding-errors = \"replace\")",
            decoded.replaced
        );
        warnings.push(Diagnostic::warning(Code::Encoding, message).at(path));
    }
    warnings
}

/// A file split at its headings into chapters (and volumes).
fn split_file(
    project: &Project,
    src: &ChapterSource,
    text: &str,
    mode: &super::split::SplitMode,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<Node> {
    let warn = |code, line, message| Diagnostic::warning(code, message).at(&src.path).line(line);
    let (pieces, split_warnings) = super::split_text(text, mode);
    warnings.extend(
        split_warnings
            .into_iter()
            .map(|w| warn(Code::HeadingNumbering, Some(w.line), w.message)),
    );
    let nodes = pieces_to_nodes(pieces, project, &mut |line, message| {
        warnings.push(warn(Code::EmptyChapter, line, message))
    });
    if nodes.is_empty() {
        warnings.push(warn(
            Code::EmptyChapter,
            None,
            "the chapter file is empty".into(),
        ));
    }
    nodes
}

/// One chapter file's text converted by its kind.
fn convert_one(
    project: &Project,
    src: &ChapterSource,
    kind: SourceKind,
    text: &str,
    images: &mut Vec<Image>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<super::Converted> {
    if kind == SourceKind::Text {
        // A heading line repeating the title given in metadata.toml (as `init` writes it)
        // is the title; a different one is text.
        let c = super::convert_text(text, true);
        return Ok(match (&src.title, &c.title) {
            (Some(given), Some(found)) if given != found => super::convert_text(text, false),
            _ => c,
        });
    }
    let mut resolver = |s: &str| resolve_image(project, &src.path, s, images, warnings);
    let result = if kind == SourceKind::Markdown {
        let opts = super::markup::MarkdownOptions {
            highlight: project.style.highlight,
        };
        super::convert_markdown(text, &mut resolver, opts)
    } else {
        super::convert_html(text, &mut resolver)
    };
    result.map_err(|e| Error::Convert {
        path: src.path.clone(),
        message: e.to_string(),
        hint: None,
    })
}

/// Turns the pieces of a split file into nodes: a volume opens a part that takes the
/// chapters after it.
fn pieces_to_nodes(
    pieces: Vec<super::Piece>,
    project: &Project,
    warn: &mut dyn FnMut(Option<usize>, String),
) -> Vec<Node> {
    let (lang, layout) = (&project.book.language, &project.layout);
    let mut nodes: Vec<Node> = Vec::new();
    let mut volume: Option<Part> = None;
    for piece in pieces {
        match piece {
            super::Piece::Front(body) => {
                let (title, body) = front_matter(body, lang);
                nodes.push(Node::Chapter(Chapter::new(title, body, layout)));
            }
            super::Piece::Volume { title, intro } => {
                nodes.extend(volume.take().map(Node::Part));
                volume = Some(Part {
                    title,
                    intro: intro.body,
                    children: Vec::new(),
                });
            }
            super::Piece::Chapter { title, body, line } => {
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
fn front_matter(body: super::Converted, lang: &str) -> (String, String) {
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

/// Resolves an image referenced by a Markdown or HTML chapter: a real image inside the project
/// (the project's containment check, before anything is opened: a FIFO or `/dev/zero` outside
/// is never read), read, checked and named by `media::image::carry`, so the same image used
/// twice is stored once. What was removed from an SVG is added to `warnings`.
fn resolve_image(
    project: &Project,
    chapter: &Path,
    src: &str,
    images: &mut Vec<Image>,
    warnings: &mut Vec<Diagnostic>,
) -> std::result::Result<String, String> {
    let dir = chapter.parent().unwrap_or(Path::new("."));
    let path = (project.boundary)
        .admit(dir, src)
        .map_err(|outside| outside.sentence(src, &project.root))?;
    let name = crate::media::image::carry(&path, images, warnings).map_err(|e| e.to_string())?;
    Ok(format!("../images/{name}"))
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
