//! The convert stage: decoded chapter text in, XHTML body fragments out.
//!
//! Sits between `source` (clean text) and `package` (which wraps each fragment in a document).
//! [`SourceKind::of`] picks the converter from the file extension: plain text ([`text`]: line
//! joining, scene breaks), Markdown and HTML (the `markup` module). A plain-text file may also
//! be split into volumes and chapters at its headings ([`split_text`], driven by `split`).

pub(crate) mod about;
pub mod aozora;
pub mod book;
pub mod chapter;
mod directives;
mod emphasis;
mod empty_runs;
pub mod gutenberg;
pub mod includes;
pub(crate) mod links;
pub mod markup;
pub(crate) mod notes;
pub mod outline;
pub mod split;
pub mod text;
pub mod title_format;

use std::collections::HashMap;
use std::path::Path;

use self::markup::{ImageResolver, MarkupError};
use self::split::{HeadingKind, SplitMode, SplitWarning};
use crate::xml::{escape_attr, escape_text};

/// The kinds of chapter file we read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// Plain text, one paragraph per line.
    Text,
    /// CommonMark with tables, strikethrough and footnotes.
    Markdown,
    /// HTML or XHTML; only the body content is kept.
    Html,
}

/// The one table of chapter file kinds, by extension (compared without case): the build,
/// `check` and `init` all decide a file's kind here.
pub const FILE_KINDS: [(&str, SourceKind); 9] = [
    ("txt", SourceKind::Text),
    ("md", SourceKind::Markdown),
    ("markdown", SourceKind::Markdown),
    ("mdown", SourceKind::Markdown),
    ("mkd", SourceKind::Markdown),
    ("html", SourceKind::Html),
    ("htm", SourceKind::Html),
    ("xhtml", SourceKind::Html),
    ("xht", SourceKind::Html),
];

impl SourceKind {
    /// The kind of a chapter file, from its extension; anything unknown is read as text.
    pub fn of(path: &Path) -> SourceKind {
        SourceKind::known(path).unwrap_or(SourceKind::Text)
    }

    /// The kind of a chapter: its entry's `format` when it has one, else its extension's.
    pub fn of_chapter(src: &crate::project::ChapterSource) -> SourceKind {
        use crate::project::ChapterFormat;
        match src.format {
            Some(ChapterFormat::Text) => SourceKind::Text,
            Some(ChapterFormat::Markdown) => SourceKind::Markdown,
            Some(ChapterFormat::Html) => SourceKind::Html,
            None => SourceKind::of(&src.path),
        }
    }

    /// Whether a text file is pandoc's Markdown, as pandoc's manual and the books made with it
    /// are written (`MANUAL.txt`): a title block (`% Title`, or front matter with a `title:`)
    /// and `#` headings. What `init` writes `format = "markdown"` for.
    pub fn is_pandoc_text(text: &str) -> bool {
        let text = text.trim_start_matches('\u{feff}').trim_start();
        let block = text.starts_with("% ")
            || (text.starts_with("---\n")
                && text
                    .lines()
                    .skip(1)
                    .take_while(|l| l.trim_end() != "---")
                    .any(|l| l.starts_with("title:")));
        block
            && text.lines().any(|l| {
                let hashes = l.len() - l.trim_start_matches('#').len();
                (1..=6).contains(&hashes) && l[hashes..].starts_with(' ')
            })
    }

    /// The kind of a file whose extension is in [`FILE_KINDS`]; None for any other file.
    pub fn known(path: &Path) -> Option<SourceKind> {
        let ext = path.extension()?.to_str()?;
        FILE_KINDS
            .iter()
            .find(|(name, _)| ext.eq_ignore_ascii_case(name))
            .map(|&(_, kind)| kind)
    }
}

/// A converted chapter body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Converted {
    /// A title found in the content itself (a heading at the top), removed from `body`.
    pub title: Option<String>,
    /// Whether `title` was a heading of the body (not an HTML `<title>`).
    pub title_is_heading: bool,
    /// Well-formed XHTML content for the chapter's `<section>`.
    pub body: String,
    /// Number of paragraphs (or, for markup, top-level blocks) written; 0 means empty.
    pub paragraphs: usize,
    /// Local images the body refers to (markup only).
    pub images: Vec<markup::ImageUse>,
    /// Relative links to other files left in the body (markup only).
    pub links: Vec<String>,
    /// The body's ids as the source wrote them -> as the body has them (markup only).
    pub ids: HashMap<String, String>,
    /// What was removed or changed on the way (markup only).
    pub warnings: Vec<markup::Note>,
    /// Elements removed with their content, with counts (markup only; see
    /// [`markup::Fragment::removed`]).
    pub removed: Vec<(String, usize)>,
    /// A markup file cut at its headings: its pieces (see [`markup::Fragment::pieces`]).
    pub pieces: Vec<markup::SplitPiece>,
    /// Which piece holds each id as written (see [`markup::Fragment::homes`]).
    pub homes: HashMap<String, usize>,
    /// Site navigation blocks left out (markup only; see
    /// [`markup::Fragment::site_navigation`]).
    pub site_navigation: Vec<markup::LeftOut>,
    /// Markdown constructs not supported, one note per kind with its count (see
    /// [`markup::Fragment::unsupported`]).
    pub unsupported: Vec<markup::Note>,
    /// Letters and digits of the code lines mdBook hides, left out (Markdown only).
    pub hidden_letters: usize,
    /// The `epub:type` values of an HTML source's `<body>` (see
    /// [`markup::Fragment::body_types`]).
    pub body_types: Vec<String>,
    /// The `epub:type` of the heading taken out as the title (see
    /// [`markup::Fragment::title_types`]).
    pub title_types: Option<String>,
    /// The stylesheets an HTML source's head links (see [`markup::Fragment::stylesheets`]).
    pub stylesheets: Vec<String>,
}

/// Converts plain text (already decoded and normalised) to XHTML paragraphs. With
/// `detect_title`, a first line that is a chapter heading (`第一章 风起`, `Chapter 1`) becomes
/// the title and leaves the body.
pub fn convert_text(text: &str, detect_title: bool) -> Converted {
    convert_text_with(text, detect_title, &mut |_| Err(PictureError::NotRead))
}

/// Resolves the path of a picture line of a text chapter to the href of the image in the book
/// (as [`markup::ImageResolver`] does for Markdown and HTML); a refused picture stays text.
pub type Pictures<'a> = &'a mut dyn FnMut(&str) -> Result<String, PictureError>;

/// Why a picture a chapter shows is not in the book (its alt text or line stands in its
/// place): said in the chapter's `unreadable-image` warning.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The path leads outside the project folder: the containment check's refusal, with what
    /// to do.
    #[error("{0}")]
    Outside(String),
    /// The file is missing, unreadable, or not an image a book can carry.
    #[error(transparent)]
    Image(#[from] crate::media::image::ImageError),
    /// This conversion reads no pictures (a title looked for, a heading counted).
    #[error("pictures are not read here")]
    NotRead,
}

/// An image resolver for the conversions that read no pictures (a title looked for, a
/// heading level chosen): every image gets an empty href and no file is opened.
pub(crate) fn no_images() -> impl FnMut(&str) -> Result<String, std::convert::Infallible> {
    |_| Ok(String::new())
}

/// [`convert_text`], with picture lines made figures through `pictures`.
pub fn convert_text_with(text: &str, detect_title: bool, pictures: Pictures<'_>) -> Converted {
    if !detect_title {
        return paragraphs_to_xhtml(text, pictures);
    }
    let mut lines = text.split('\n');
    let mut title = None;
    let mut rest = text;
    let mut offset = 0;
    for line in lines.by_ref() {
        if crate::lines::trim_line(line).is_empty() {
            offset += line.len() + 1;
            continue;
        }
        let found = split::split(&[line], &SplitMode::Auto);
        if let Some(h) = found.sections.first().and_then(|s| s.heading.as_ref())
            && h.kind == HeadingKind::Chapter
        {
            title = Some(h.title.clone());
            rest = text.get(offset + line.len()..).unwrap_or("");
            // A heading glued to its first sentence: that sentence opens the text.
            if let Some(g) = &h.glued {
                let joined = format!("{g}{rest}");
                let mut converted = paragraphs_to_xhtml(&joined, pictures);
                converted.title = title;
                return converted;
            }
        }
        break;
    }
    let mut converted = paragraphs_to_xhtml(rest, pictures);
    converted.title = title;
    converted
}

/// Paragraphs and scene breaks of plain text as XHTML, without title detection.
fn paragraphs_to_xhtml(text: &str, pictures: Pictures<'_>) -> Converted {
    let mut body = String::with_capacity(text.len() + text.len() / 8);
    let mut paragraphs = 0;
    let mut page_break = false;
    // Text without notation or kana (most books) skips the checks for them, paragraph by
    // paragraph, after one fast scan.
    let plain = aozora::marks::is_plain(text);
    for block in text::blocks(text, plain) {
        if std::mem::take(&mut page_break) && !matches!(block, text::Block::PageBreak) {
            body.push_str("<div class=\"ao-newpage\"></div>\n");
        }
        match block {
            text::Block::PageBreak => page_break = paragraphs > 0,
            text::Block::Paragraph(p) => {
                paragraphs += 1;
                body.push_str("<p>");
                body.push_str(&match plain {
                    true => emphasis::paragraph_xhtml(&p),
                    false => aozora::paragraph_xhtml(&p),
                });
                body.push_str("</p>\n");
            }
            text::Block::SceneBreak(s) => {
                body.push_str("<p class=\"scene-break\">");
                body.push_str(&escape_text(&s));
                body.push_str("</p>\n");
            }
            text::Block::Illustration(s) => {
                body.push_str("<p class=\"illustration\">");
                body.push_str(&emphasis::paragraph_xhtml(&s));
                body.push_str("</p>\n");
            }
            text::Block::Picture(line) => {
                let (alt, src) = crate::lines::picture(&line).unwrap_or_default();
                match pictures(src) {
                    Ok(href) => {
                        // Content: a chapter of pictures is not empty.
                        paragraphs += 1;
                        body.push_str("<figure class=\"picture\"><img src=\"");
                        body.push_str(&escape_attr(&href));
                        body.push_str("\" alt=\"");
                        body.push_str(&escape_attr(alt));
                        body.push_str("\"/></figure>\n");
                    }
                    Err(_) => {
                        paragraphs += 1;
                        body.push_str("<p>");
                        body.push_str(&escape_text(crate::lines::trim_line(&line)));
                        body.push_str("</p>\n");
                    }
                }
            }
        }
    }
    Converted {
        body,
        paragraphs,
        ..Converted::default()
    }
}

/// Converts Markdown (without its title block, whose title is the chapter's when no heading
/// opens it: see [`about::take_title_block`]); images go through `images`, the body's text
/// through `fix`; cut into pieces at its headings when `split` says where.
pub fn convert_markdown<'a>(
    text: &str,
    images: &mut dyn ImageResolver,
    opts: markup::MarkdownOptions,
    fix: Option<&'a mut markup::TextFixer<'a>>,
    split: Option<markup::SplitAt<'_>>,
) -> Result<Converted, MarkupError> {
    let (text, block) = about::take_title_block(text);
    let mut converted =
        markup::markdown_to_xhtml_with(&text, images, opts, fix, split).map(from_fragment)?;
    if converted.title.is_none() {
        converted.title = block.and_then(|b| b.title);
    }
    Ok(converted)
}

/// Converts HTML; images go through `images`, the body's text through `fix`; cut into pieces
/// at its headings when `split` says where.
pub fn convert_html<'a>(
    text: &str,
    images: &mut dyn ImageResolver,
    fix: Option<&'a mut markup::TextFixer<'a>>,
    split: Option<markup::SplitAt<'_>>,
) -> Result<Converted, MarkupError> {
    markup::html_to_xhtml_fixed(text, images, fix, split).map(from_fragment)
}

fn from_fragment(f: markup::Fragment) -> Converted {
    let has_content = !f.body.trim().is_empty() || !f.pieces.is_empty();
    Converted {
        title: f.title,
        title_is_heading: f.title_is_heading,
        paragraphs: usize::from(has_content),
        body: f.body,
        images: f.images,
        links: f.links,
        ids: f.ids,
        warnings: f.warnings,
        removed: f.removed,
        pieces: f.pieces,
        homes: f.homes,
        site_navigation: f.site_navigation,
        unsupported: f.unsupported,
        hidden_letters: f.hidden_letters,
        body_types: f.body_types,
        title_types: f.title_types,
        stylesheets: f.stylesheets,
    }
}

/// One piece of a split text file, in reading order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text before the first heading (a synopsis or foreword).
    Front(Converted),
    /// A volume heading and the text between it and its first chapter.
    Volume {
        /// The heading line.
        title: String,
        /// Text under the heading (may be empty).
        intro: Converted,
        /// 1-based line of the heading, for messages and the outline.
        line: usize,
        /// The text has no heading for it (see [`split::Heading::implied`]).
        implied: bool,
    },
    /// A chapter heading and its text.
    Chapter {
        /// The heading line.
        title: String,
        /// The chapter text.
        body: Converted,
        /// 1-based line of the heading, for messages.
        line: usize,
    },
}

/// Splits plain text into volumes and chapters at their headings, converting each part;
/// with `volume`, only that volume (1-based; the text before the first volume goes with the
/// first), and the warnings about its lines; and for `check`, the heading-like lines left
/// out and the headings whose number was read through a typo.
pub(crate) fn split_text(
    text: &str,
    mode: &SplitMode,
    (volume, at): (Option<std::num::NonZeroU16>, &dyn Fn(usize) -> usize),
    pictures: Pictures<'_>,
) -> (Vec<Piece>, Vec<SplitWarning>, HeadingNotes) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut found = split::split_traced(&lines, mode, at);
    if let Some(k) = volume {
        keep_volume(&mut found, usize::from(k.get()), at);
    }
    let body_text = |range: std::ops::Range<usize>| -> String {
        lines
            .get(range.start..range.end.min(lines.len()))
            .map(|l| l.join("\n"))
            .unwrap_or_default()
    };
    let notes = HeadingNotes {
        front: found.sections.first().is_some_and(|s| s.heading.is_none()),
        skipped: std::mem::take(&mut found.skipped),
        repaired: (found.sections.iter())
            .filter_map(|s| s.heading.clone().filter(|h| h.repaired))
            .collect(),
        implied: (found.sections.iter())
            .filter_map(|s| s.heading.as_ref().filter(|h| h.implied).map(|h| h.line))
            .collect(),
    };
    let pieces = found
        .sections
        .into_iter()
        .map(|section| {
            // A heading glued to its first sentence: that sentence opens the body.
            let glued = section.heading.as_ref().and_then(|h| h.glued.as_deref());
            let text = match glued {
                Some(g) => format!("{g}\n{}", body_text(section.body)),
                None => body_text(section.body),
            };
            let body = paragraphs_to_xhtml(&text, &mut *pictures);
            match section.heading {
                None => Piece::Front(body),
                Some(h) if h.kind == HeadingKind::Volume => Piece::Volume {
                    title: h.title,
                    intro: body,
                    line: h.line,
                    implied: h.implied,
                },
                Some(h) => Piece::Chapter {
                    title: h.title,
                    body,
                    line: h.line,
                },
            }
        })
        .collect();
    (pieces, found.warnings, notes)
}

/// What `check` says about a split text file's headings beside its outline.
#[derive(Debug, Clone, Default)]
pub(crate) struct HeadingNotes {
    /// Heading-like lines the split left out, and why.
    pub skipped: Vec<split::Skipped>,
    /// Headings whose number was read through a typo ([`split::Heading::repaired`]).
    pub repaired: Vec<split::Heading>,
    /// The pieces start with the text before the first heading ([`Piece::Front`]).
    pub front: bool,
    /// The lines of the volumes implied by the numbering ([`split::Heading::implied`]).
    pub implied: Vec<usize>,
}

/// Keeps the sections of volume `k` (1-based) of a split, those before the first volume
/// going with the first, and the warnings about their lines.
fn keep_volume(found: &mut split::Split, k: usize, at: &dyn Fn(usize) -> usize) {
    let mut volume = 0;
    let mut kept = Vec::new();
    found.sections.retain(|s| {
        if s.heading
            .as_ref()
            .is_some_and(|h| h.kind == HeadingKind::Volume)
        {
            volume += 1;
        }
        let keep = volume == k || (volume == 0 && k == 1);
        if keep {
            // Headings and warnings cite the file's lines, the bodies index the text split.
            let first = s.heading.as_ref().map_or(at(s.body.start + 1), |h| h.line);
            kept.push(first..at(s.body.end.max(1)).max(first) + 1);
        }
        keep
    });
    found
        .warnings
        .retain(|w| kept.iter().any(|r| r.contains(&w.line)));
    found
        .skipped
        .retain(|s| kept.iter().any(|r| r.contains(&s.line)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_paragraphs_are_escaped_and_wrapped() {
        let c = convert_text("a < b & c\n\u{3000}\u{3000}二\n", true);
        assert_eq!(c.body, "<p>a &lt; b &amp; c</p>\n<p>二</p>\n");
        assert_eq!(c.paragraphs, 2);
        assert_eq!(c.title, None);
    }

    #[test]
    fn leading_chapter_heading_becomes_the_title() {
        let c = convert_text("\n\u{3000}第十二章 夜战\n正文。\n", true);
        assert_eq!(c.title.as_deref(), Some("第十二章 夜战"));
        assert_eq!(c.body, "<p>正文。</p>\n");
        let kept = convert_text("第十二章 夜战\n正文。\n", false);
        assert_eq!(kept.title, None);
        assert_eq!(kept.paragraphs, 2);
    }

    #[test]
    fn first_line_of_prose_is_not_a_title() {
        let c = convert_text("第一次见面，他就笑了。\n", true);
        assert_eq!(c.title, None);
        assert_eq!(c.paragraphs, 1);
    }

    #[test]
    fn a_text_file_with_a_title_block_and_hash_headings_is_pandoc_markdown() {
        assert!(SourceKind::is_pandoc_text(
            "% Manual\n% Me\n\n# Synopsis\n\ntext\n"
        ));
        assert!(SourceKind::is_pandoc_text(
            "---\ntitle: M\n---\n\n# Synopsis\n"
        ));
        assert!(!SourceKind::is_pandoc_text("% Manual\n\n第一章 风起\n"));
        assert!(!SourceKind::is_pandoc_text("第一章\n# not a title block\n"));
        assert!(!SourceKind::is_pandoc_text("% Manual\n\n#hashtag\n"));
    }

    #[test]
    fn source_kind_follows_extension() {
        assert_eq!(SourceKind::of(Path::new("a/b.MD")), SourceKind::Markdown);
        assert_eq!(SourceKind::of(Path::new("c.xhtml")), SourceKind::Html);
        assert_eq!(SourceKind::of(Path::new("c.htm")), SourceKind::Html);
        assert_eq!(SourceKind::of(Path::new("c.txt")), SourceKind::Text);
        assert_eq!(SourceKind::of(Path::new("noext")), SourceKind::Text);
    }

    #[test]
    fn split_text_gives_front_volumes_and_chapters_in_order() {
        let text = "简介：一个故事。\n第一卷 潜龙\n卷首语。\n第一章 风起\n甲。\n第二章 云涌\n乙。\n第二卷 在渊\n第一章 雨落\n丙。\n";
        let (pieces, warnings, _) = split_text(text, &SplitMode::Auto, (None, &|l| l), &mut |_| {
            Err(PictureError::NotRead)
        });
        assert!(warnings.is_empty(), "{warnings:?}");
        let shape: Vec<String> = pieces
            .iter()
            .map(|p| match p {
                Piece::Front(c) => format!("front:{}", c.body.trim()),
                Piece::Volume { title, .. } => format!("vol:{title}"),
                Piece::Chapter { title, body, .. } => format!("ch:{title}:{}", body.body.trim()),
            })
            .collect();
        assert_eq!(
            shape,
            [
                "front:<p>简介：一个故事。</p>",
                "vol:第一卷 潜龙",
                "ch:第一章 风起:<p>甲。</p>",
                "ch:第二章 云涌:<p>乙。</p>",
                "vol:第二卷 在渊",
                "ch:第一章 雨落:<p>丙。</p>",
            ]
        );
        match &pieces[1] {
            Piece::Volume { intro, .. } => assert_eq!(intro.body, "<p>卷首语。</p>\n"),
            other => panic!("{other:?}"),
        }
    }
}
