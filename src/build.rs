//! Orchestrates the pipeline for one book: project -> source -> convert -> package -> archive.
//!
//! [`load_book`] runs every stage up to a packaged-ready [`Book`] (chapters are read, decoded and
//! converted in parallel); [`build`] then packages and writes it. Warnings are collected, not
//! printed: only the CLI prints.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

use crate::convert;
use crate::error::{Error, Result, read};
use crate::package::{self, Book, Chapter, Image, Node, Part};
use crate::project::{ChapterSource, ContentEntry, Project};
use crate::source::{self, Detection};
use sha2::Digest;

/// Options for one build.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Where to write the EPUB; default: [`Project::default_output`].
    pub output: Option<PathBuf>,
    /// Seconds since the epoch for `dcterms:modified` (`SOURCE_DATE_EPOCH`); default: the
    /// newest input file's modification time.
    pub source_date_epoch: Option<i64>,
}

impl BuildOptions {
    /// Options with `source_date_epoch` read from the `SOURCE_DATE_EPOCH` environment variable.
    pub fn from_env() -> BuildOptions {
        BuildOptions {
            output: None,
            source_date_epoch: std::env::var("SOURCE_DATE_EPOCH")
                .ok()
                .and_then(|v| v.trim().parse().ok()),
        }
    }
}

/// A problem that did not stop the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file it is about.
    pub path: PathBuf,
    /// The 1-based line, where known.
    pub line: Option<usize>,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}

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

/// What a build did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// The EPUB written.
    pub output: PathBuf,
    /// Number of chapter documents.
    pub chapters: usize,
    /// Size of the EPUB in bytes.
    pub bytes: u64,
    /// Problems that did not stop the build.
    pub warnings: Vec<Warning>,
    /// How each chapter file was decoded.
    pub sources: Vec<SourceReport>,
}

/// A book converted and ready to package, with what was learnt on the way.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The book.
    pub book: Book,
    /// Problems that did not stop the build.
    pub warnings: Vec<Warning>,
    /// How each chapter file was decoded.
    pub sources: Vec<SourceReport>,
}

/// Builds a project into an EPUB.
pub fn build(project: &Project, opts: &BuildOptions) -> Result<BuildReport> {
    let loaded = load_book(project, opts)?;
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| project.default_output());
    let entries = package::package(&loaded.book);
    crate::archive::write_epub(&entries, &output)?;
    let bytes = std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0);
    Ok(BuildReport {
        output,
        chapters: count_chapters(&loaded.book.contents),
        bytes,
        warnings: loaded.warnings,
        sources: loaded.sources,
    })
}

fn count_chapters(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Chapter(_) => 1,
            Node::Part(p) => count_chapters(&p.children),
        })
        .sum()
}

/// Reads, decodes and converts every chapter, and reads the cover.
pub fn load_book(project: &Project, opts: &BuildOptions) -> Result<Loaded> {
    let sources: Vec<&ChapterSource> = project.chapters().collect();
    let converted: Vec<ConvertedSource> = sources
        .par_iter()
        .enumerate()
        .map(|(i, src)| convert_source(project, src, i + 1))
        .collect::<Result<_>>()?;

    let mut warnings = Vec::new();
    let mut reports = Vec::new();
    let mut images: Vec<Image> = Vec::new();
    let mut links = LinkMap::default();
    let mut converted = converted.into_iter();
    let mut take = |out: &mut Vec<Node>| {
        let c = converted
            .next()
            .expect("one converted source per chapter source");
        warnings.extend(c.warnings);
        reports.push(c.report);
        for image in c.images {
            if !images.iter().any(|i| i.name == image.name) {
                images.push(image);
            }
        }
        links.add(&c.path, c.links, &c.nodes);
        out.extend(c.nodes);
    };
    let mut contents = Vec::new();
    for entry in &project.contents {
        match entry {
            ContentEntry::Chapter(_) => take(&mut contents),
            ContentEntry::Part { title, chapters } => {
                let mut children = Vec::new();
                for _ in chapters {
                    take(&mut children);
                }
                contents.push(Node::Part(Part {
                    title: title.clone(),
                    intro: String::new(),
                    children,
                }));
            }
        }
    }
    links.rewrite(&mut contents, &mut warnings);

    let cover = match &project.cover {
        Some(path) => Some(read_cover(path, &mut warnings)?),
        None => None,
    };
    let modified = modified_time(project, opts)?;
    Ok(Loaded {
        book: Book {
            info: project.book.clone(),
            modified,
            cover,
            contents,
            images,
        },
        warnings,
        sources: reports,
    })
}

/// One chapter source converted: one chapter, or the volumes and chapters of a split file.
struct ConvertedSource {
    path: PathBuf,
    nodes: Vec<Node>,
    images: Vec<Image>,
    links: Vec<String>,
    warnings: Vec<Warning>,
    report: SourceReport,
}

fn convert_source(project: &Project, src: &ChapterSource, n: usize) -> Result<ConvertedSource> {
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
        if convert::SourceKind::of(&src.path) != convert::SourceKind::Text {
            return Err(Error::Convert {
                path: src.path.clone(),
                message: "`split` works on plain-text files only\n  hint: give Markdown and HTML chapters one file each".into(),
            });
        }
        let (pieces, split_warnings) = convert::split_text(&decoded.text, mode);
        warnings.extend(
            split_warnings
                .into_iter()
                .map(|w| warn(Some(w.line), w.message)),
        );
        let nodes = pieces_to_nodes(pieces, lang, &mut |line, message| {
            warnings.push(warn(line, message))
        });
        if nodes.is_empty() {
            warnings.push(warn(None, "chapter file is empty".into()));
        }
        return Ok(ConvertedSource {
            path: src.path.clone(),
            nodes,
            images: Vec::new(),
            links: Vec::new(),
            warnings,
            report,
        });
    }

    let mut images = Vec::new();
    let converted = match convert::SourceKind::of(&src.path) {
        convert::SourceKind::Text => convert::convert_text(&decoded.text, src.title.is_none()),
        kind => {
            let mut resolver = |s: &str| resolve_image(project, &src.path, s, &mut images);
            let result = if kind == convert::SourceKind::Markdown {
                convert::convert_markdown(&decoded.text, &mut resolver)
            } else {
                convert::convert_html(&decoded.text, &mut resolver)
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
    Ok(ConvertedSource {
        path: src.path.clone(),
        nodes: vec![Node::Chapter(Chapter {
            title,
            body: converted.body,
        })],
        images,
        links: converted.links,
        warnings,
        report,
    })
}

/// Turns the pieces of a split file into nodes: a volume opens a part that takes the
/// chapters after it.
fn pieces_to_nodes(
    pieces: Vec<convert::Piece>,
    lang: &str,
    warn: &mut dyn FnMut(Option<usize>, String),
) -> Vec<Node> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut volume: Option<Part> = None;
    for piece in pieces {
        match piece {
            convert::Piece::Front(body) => {
                let (title, body) = front_matter(body, lang);
                nodes.push(Node::Chapter(Chapter { title, body }));
            }
            convert::Piece::Volume { title, intro } => {
                nodes.extend(volume.take().map(Node::Part));
                volume = Some(Part {
                    title,
                    intro: intro.body,
                    children: Vec::new(),
                });
            }
            convert::Piece::Chapter { title, body, line } => {
                if body.paragraphs == 0 {
                    warn(Some(line), format!("chapter \"{title}\" is empty"));
                }
                let chapter = Node::Chapter(Chapter {
                    title,
                    body: body.body,
                });
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
fn front_matter(body: convert::Converted, lang: &str) -> (String, String) {
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

/// Links between chapter files (`[next](ch2.md#scene)`), rewritten to the documents those
/// files became. Links to anything else inside the book folder cannot work in an EPUB and are
/// removed with a warning.
#[derive(Default)]
struct LinkMap {
    /// Canonical source path -> number of its first chapter document.
    targets: Vec<(PathBuf, usize)>,
    /// Chapter number -> (source path, links in its body).
    pending: Vec<(usize, PathBuf, Vec<String>)>,
    chapters: usize,
}

impl LinkMap {
    fn add(&mut self, path: &Path, links: Vec<String>, nodes: &[Node]) {
        let first = self.chapters + 1;
        self.chapters += count_chapters(nodes);
        if let Ok(real) = path.canonicalize() {
            self.targets.push((real, first));
        }
        if !links.is_empty() {
            self.pending.push((first, path.to_path_buf(), links));
        }
    }

    fn rewrite(&self, contents: &mut [Node], warnings: &mut Vec<Warning>) {
        if self.pending.is_empty() {
            return;
        }
        let mut n = 0;
        rewrite_nodes(contents, &mut n, &mut |number, chapter| {
            let Some((_, path, links)) = self.pending.iter().find(|p| p.0 == number) else {
                return;
            };
            for link in links {
                let (file, fragment) = match link.split_once('#') {
                    Some((f, frag)) => (f, Some(frag)),
                    None => (link.as_str(), None),
                };
                let target = path
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(file)
                    .canonicalize()
                    .ok()
                    .and_then(|real| self.targets.iter().find(|t| t.0 == real));
                let old = format!("href=\"{}\"", crate::xml::escape_attr(link));
                let new = match target {
                    Some((_, doc)) => {
                        let mut href = package::chapter_file_name(*doc);
                        if let Some(frag) = fragment {
                            href.push('#');
                            href.push_str(frag);
                        }
                        format!("href=\"{}\"", crate::xml::escape_attr(&href))
                    }
                    None => {
                        warnings.push(Warning {
                            path: path.clone(),
                            line: None,
                            message: format!(
                                "removed link to \"{link}\": it is not a chapter of the book"
                            ),
                        });
                        String::new()
                    }
                };
                chapter.body = chapter.body.replace(&old, &new);
            }
        });
    }
}

fn rewrite_nodes(nodes: &mut [Node], n: &mut usize, f: &mut dyn FnMut(usize, &mut Chapter)) {
    for node in nodes {
        match node {
            Node::Chapter(c) => {
                *n += 1;
                f(*n, c);
            }
            Node::Part(p) => rewrite_nodes(&mut p.children, n, f),
        }
    }
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

fn read_cover(path: &Path, warnings: &mut Vec<Warning>) -> Result<Image> {
    let data = read(path)?;
    let prepared = crate::media::image::prepare_cover(&data, path).map_err(|e| Error::Cover {
        path: path.to_path_buf(),
        message: format!(
            "{}\n  hint: use a JPEG, PNG, GIF, WebP or SVG image as the cover",
            e.to_string()
                .trim_start_matches(&format!("{}: ", path.display()))
        ),
    })?;
    for message in prepared.warnings {
        warnings.push(Warning {
            path: path.to_path_buf(),
            line: None,
            message,
        });
    }
    let info = prepared.info;
    Ok(Image {
        name: format!("cover.{}", info.format.extension()),
        media_type: info.format.media_type(),
        data: prepared.bytes,
        width: info.width,
        height: info.height,
    })
}

/// `dcterms:modified`: from `SOURCE_DATE_EPOCH`, else the newest input's modification time.
fn modified_time(project: &Project, opts: &BuildOptions) -> Result<String> {
    let secs = match opts.source_date_epoch {
        Some(s) => s,
        None => {
            let inputs = std::iter::once(&project.metadata_path)
                .chain(project.chapters().map(|c| &c.path))
                .chain(project.cover.iter());
            let mut newest = SystemTime::UNIX_EPOCH;
            for path in inputs {
                let meta =
                    std::fs::metadata(path).map_err(|e| Error::io(path, "cannot read", e))?;
                if let Ok(m) = meta.modified() {
                    newest = newest.max(m);
                }
            }
            newest
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        }
    };
    let time = chrono::DateTime::<chrono::Utc>::from_timestamp(secs, 0).unwrap_or_default();
    Ok(time.format("%Y-%m-%dT%H:%M:%SZ").to_string())
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
