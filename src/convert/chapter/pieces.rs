//! A chapter file cut into many chapters: a text file at its heading lines (volumes opening
//! parts), a Markdown or HTML file at its headings of a level.
//!
//! Apart from the one-chapter conversion because a cut file titles, nests and numbers its
//! pieces itself, and says where each starts for the outline.

use super::{
    Fixing, boilerplate, conversion_warnings, convert_markup, files, relative_path,
    title_from_file_name,
};
use crate::book::{self, Chapter, Image, Node, Part};
use crate::convert::{self, SourceKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::Result;
use crate::project::{ChapterSource, Project};
use crate::text_fix::{FileRef, Tally};

/// A file split at its headings into chapters (and volumes), with the line each starts at:
/// the line of the file as written, before cleanup rules removed any (`after_rules`).
pub(super) fn split_file(
    project: &Project,
    src: &ChapterSource,
    (text, after_rules): (&str, &crate::text_fix::AfterRules),
    mode: &convert::split::SplitMode,
    (images, warnings): (&mut Vec<Image>, &mut Vec<Diagnostic>),
) -> Result<(Vec<Node>, Vec<Option<usize>>, convert::HeadingNotes)> {
    let warn = |code, line, message| Diagnostic::warning(code, message).at(&src.path).line(line);
    let sinks = (text, &mut *images, &mut *warnings);
    let (pieces, split_warnings, notes) = files::with_pictures(project, src, sinks, |p| {
        let at = |line| after_rules.source_line(line);
        convert::split_text(text, mode, (src.volume, &at), p)
    })?;
    warnings.extend(
        split_warnings
            .into_iter()
            .map(|w| warn(w.kind.code(), Some(w.line), w.message)),
    );
    let pieces = convert::empty_runs::join(pieces, &mut |line, message| {
        warnings.push(warn(Code::EmptyChapter, line, message))
    });
    let lines = pieces
        .iter()
        .map(|p| match p {
            // The text before the first heading starts the file.
            convert::Piece::Front(_) => Some(1),
            convert::Piece::Volume { line, .. } | convert::Piece::Chapter { line, .. } => {
                Some(*line)
            }
        })
        .collect();
    let nodes = pieces_to_nodes(pieces, project);
    if nodes.is_empty() {
        warnings.push(warn(
            Code::EmptyChapter,
            None,
            "the chapter file is empty".into(),
        ));
    }
    Ok((nodes, lines, notes))
}

/// A Markdown or HTML file cut into chapters before its headings of `level` and above: the
/// text before the first (titled by the entry's `title`, the document's `<title>`, the file
/// name or the book's word for a foreword), then a chapter per heading, titled by it, nested
/// in the table of contents under the chapters of higher headings. Returns the chapters, the
/// conversion (its links, ids and which chapter holds each) and an HTML file's Project
/// Gutenberg header and licence as a page of their own.
pub(super) fn split_markup(
    project: &Project,
    src: &ChapterSource,
    (kind, level): (SourceKind, usize),
    text: &str,
    (images, warnings): (&mut Vec<Image>, &mut Vec<Diagnostic>),
    (mut tally, text_nodes): Fixing<'_, '_>,
) -> Result<(Vec<Node>, convert::Converted, Option<Node>)> {
    let name = src.path.file_name().unwrap_or_default().to_string_lossy();
    let file = convert::markup::self_href(&name);
    let at = convert::markup::SplitAt { level, file: &file };
    let sinks = (&mut *images, &mut *warnings);
    let mut converted = convert_markup(
        project,
        src,
        kind,
        text,
        sinks,
        (tally.as_deref_mut(), text_nodes),
        Some(at),
    )?;
    let back_matter = match kind {
        SourceKind::Html => boilerplate::pieces(&mut converted, &project.layout),
        _ => None,
    };
    warnings.extend(conversion_warnings(project, (&src.path, text), &converted));
    let relative = relative_path(project, &src.path);
    let file = FileRef {
        path: &src.path,
        relative: &relative,
    };
    let top = converted
        .pieces
        .iter()
        .filter_map(|p| p.level)
        .min()
        .unwrap_or(1);
    let mut nodes = Vec::with_capacity(converted.pieces.len());
    for piece in std::mem::take(&mut converted.pieces) {
        let title = match piece.title {
            Some(t) => project.text.title(&t, Some(file), tally.as_deref_mut())?,
            None => front_piece_title(
                project,
                src,
                converted.title.clone(),
                file,
                tally.as_deref_mut(),
            )?,
        };
        let nested = piece.level.map_or(0, |l| l - top);
        let chapter = Chapter::new(title, piece.body, &project.layout).at_level(src.level + nested);
        nodes.push(Node::Chapter(chapter));
    }
    Ok((nodes, converted, back_matter))
}

/// The title of the text before the first heading of a file cut at its headings.
pub(super) fn front_piece_title(
    project: &Project,
    src: &ChapterSource,
    found: Option<String>,
    file: FileRef<'_>,
    tally: Option<&mut Tally>,
) -> Result<String> {
    let t = src
        .title
        .clone()
        .or(found)
        .or_else(|| title_from_file_name(&src.path))
        .unwrap_or_else(|| book::front_title(&project.book.language));
    project.text.title(&t, Some(file), tally)
}

/// Turns the pieces of a split file into nodes: a volume opens a part that takes the
/// chapters after it.
pub(super) fn pieces_to_nodes(pieces: Vec<convert::Piece>, project: &Project) -> Vec<Node> {
    let (lang, layout) = (&project.book.language, &project.layout);
    let mut nodes: Vec<Node> = Vec::new();
    let mut volume: Option<Part> = None;
    for piece in pieces {
        match piece {
            convert::Piece::Front(body) => {
                let (title, body) = front_matter(body, lang);
                nodes.push(Node::Chapter(Chapter::new(title, body, layout)));
            }
            convert::Piece::Volume { title, intro, .. } => {
                nodes.extend(volume.take().map(Node::Part));
                volume = Some(Part {
                    title,
                    intro: intro.body,
                    children: Vec::new(),
                });
            }
            convert::Piece::Chapter { title, body, .. } => {
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
pub(super) fn front_matter(body: convert::Converted, lang: &str) -> (String, String) {
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
    (book::front_title(lang), body.body)
}
