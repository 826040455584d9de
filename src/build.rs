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
    /// Each stage and how long it took, in order, for `-v`.
    pub timings: Vec<(&'static str, std::time::Duration)>,
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
    let mut timings = Vec::new();
    let mut clock = std::time::Instant::now();
    let mut lap = |stage: &'static str| {
        timings.push((stage, clock.elapsed()));
        clock = std::time::Instant::now();
    };
    let loaded = load_book(project, opts)?;
    lap("read, decode and convert chapters");
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| project.default_output());
    let entries = package::package(&loaded.book);
    lap("package");
    crate::archive::write_epub(&entries, &output)?;
    lap("write archive");
    let bytes = std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0);
    Ok(BuildReport {
        output,
        chapters: count_chapters(&loaded.book.contents),
        bytes,
        warnings: loaded.warnings,
        sources: loaded.sources,
        timings,
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
    let converted: Vec<ConvertedChapter> = sources
        .par_iter()
        .enumerate()
        .map(|(i, src)| convert_chapter(project, src, i + 1))
        .collect::<Result<_>>()?;

    let mut warnings = Vec::new();
    let mut reports = Vec::new();
    let mut converted = converted.into_iter();
    let mut contents = Vec::new();
    let mut take = |warnings: &mut Vec<Warning>, reports: &mut Vec<SourceReport>| {
        let c = converted
            .next()
            .expect("one converted chapter per chapter source");
        warnings.extend(c.warnings);
        reports.push(c.report);
        Node::Chapter(c.chapter)
    };
    for entry in &project.contents {
        match entry {
            ContentEntry::Chapter(_) => contents.push(take(&mut warnings, &mut reports)),
            ContentEntry::Part { title, chapters } => {
                let children = chapters
                    .iter()
                    .map(|_| take(&mut warnings, &mut reports))
                    .collect();
                contents.push(Node::Part(Part {
                    title: title.clone(),
                    intro: String::new(),
                    children,
                }));
            }
        }
    }

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
            images: Vec::new(),
        },
        warnings,
        sources: reports,
    })
}

struct ConvertedChapter {
    chapter: Chapter,
    warnings: Vec<Warning>,
    report: SourceReport,
}

fn convert_chapter(project: &Project, src: &ChapterSource, n: usize) -> Result<ConvertedChapter> {
    let bytes = read(&src.path)?;
    let decoded =
        source::decode(&bytes, src.encoding.as_deref(), src.encoding_errors).map_err(|e| {
            Error::Decode {
                path: src.path.clone(),
                message: e.to_string(),
            }
        })?;
    let mut warnings = Vec::new();
    if decoded.dropped_controls > 0 {
        warnings.push(Warning {
            path: src.path.clone(),
            line: decoded.first_dropped_line,
            message: format!(
                "dropped {} control character(s) that XML does not allow",
                decoded.dropped_controls
            ),
        });
    }
    if decoded.replaced > 0 {
        warnings.push(Warning {
            path: src.path.clone(),
            line: None,
            message: format!(
                "replaced {} invalid byte sequence(s) with U+FFFD (encoding-errors = \"replace\")",
                decoded.replaced
            ),
        });
    }
    let converted = convert::convert_text(&decoded.text);
    if converted.paragraphs == 0 {
        warnings.push(Warning {
            path: src.path.clone(),
            line: None,
            message: "chapter is empty".into(),
        });
    }
    let title = src
        .title
        .clone()
        .or(converted.title)
        .or_else(|| title_from_file_name(&src.path))
        .unwrap_or_else(|| package::chapter_title(&project.book.language, n));
    Ok(ConvertedChapter {
        chapter: Chapter {
            title,
            body: converted.body,
        },
        warnings,
        report: SourceReport {
            path: src.path.clone(),
            encoding: decoded.encoding.name(),
            detection: decoded.detection,
        },
    })
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
