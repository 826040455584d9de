//! `epubforge init`: turns a folder of chapter files into a project by writing `metadata.toml`.
//!
//! This sits before the pipeline (project -> source -> convert -> package -> archive): it
//! writes the file the project stage reads, so that a book builds right away and the author
//! only edits what no file says (often just the authors). Where the chapters come from:
//! - an mdBook book (`book.toml`, `SUMMARY.md`; [`mdbook`]): `SUMMARY.md`'s order, titles,
//!   nesting (`level`), parts and prefix and suffix chapters, the chapters in `book.toml`'s `src`,
//!   and its title, authors and language;
//! - any other folder: the chapter files (the kinds of `convert::FILE_KINDS`) at any depth, in
//!   natural order, without `SUMMARY.md` and `404.md` of an mdBook book without a summary.
//!
//! Every file is read whole and decoded by the build's own decoder, so the `encoding` written is
//! the one the build detects; its title is the one the build's conversion finds
//! (`convert::chapter::title_in`), else one from its file name. A text file in which the build
//! finds several chapter headings gets `split = "auto"` (and no title); a lone Markdown or HTML
//! file with several headings of one level gets `split = "h1"`, `"h2"`… at the highest such level. The language is guessed
//! from all the text, the cover is the image in `covers/`; title, authors and language come
//! from what a file says of its book (`convert::about`: a Project Gutenberg header; a lone HTML
//! file's `<title>`, `<meta name="author">` and `<html lang>`; a lone Markdown file's title
//! block), else a lone text file's first lines (`《书名》`, `作者：某某`) or its name
//! (`《书名》作者：某某.txt`, `书名[www.site.org].txt`; see [`names`]). A text with lines of site
//! text that the `web-novel` cleanup preset removes gets that preset. The optional keys are
//! written as comments so an author can see what exists; what init could not follow is written
//! as comments too, and reported.
//!
//! The one-command build (`epubforge 小说.txt`) is this same reading ([`draft`]): the metadata
//! `init` would write, kept in memory and loaded as the build loads any `metadata.toml`, so
//! that there is one detector, and `--save` keeps exactly what was built.

mod epub;
mod japanese;
mod markdown;
mod mdbook;
mod names;
mod opf;
mod render;
mod skip;

use std::path::{Path, PathBuf};

pub use epub::{EpubInitOptions, init_epub};

use crate::convert::about::About;
use crate::convert::chapter::{
    Headings, decode_file, headings, split_level, title_from_file_name, title_in,
};
use crate::convert::{FILE_KINDS, SourceKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::project::{Boundary, METADATA_FILE, OUTPUT_FOLDER, Project, natural_cmp};
use crate::source::{Detection, EncodingErrors};
use crate::text_fix::{FileRef, Settings, TextFix, Typography};

/// How much text, over all chapters, the language is guessed from.
const LANGUAGE_SAMPLE_BYTES: usize = 512 << 10;

/// Chapter headings a text file needs to be split at them.
const SPLIT_MIN_HEADINGS: usize = 2;

/// Options of [`init`].
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct InitOptions {
    /// Overwrite an existing `metadata.toml`.
    pub force: bool,
}

/// What [`init`] wrote.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InitReport {
    /// The metadata file written.
    pub metadata_path: PathBuf,
    /// The book's title written.
    pub title: String,
    /// The authors written; empty when none was found (a placeholder is written).
    pub authors: Vec<String>,
    /// The chapters listed, in order.
    pub chapters: Vec<ChapterGuess>,
    /// The language tag written.
    pub language: String,
    /// The cover written, relative to the folder.
    pub cover: Option<String>,
    /// What init could not follow (a draft chapter, a missing file, an undecodable one); also
    /// written as comments in the file.
    pub notes: Vec<String>,
}

/// Where a chapter goes in `metadata.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Placement {
    /// A `[[chapters]]` entry: before any part.
    Chapters,
    /// A `[[parts.chapters]]` entry of the part with this title.
    Part(String),
    /// A `[[suffix-chapters]]` entry: after the parts.
    Suffix,
}

/// One chapter file as `init` understood it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChapterGuess {
    /// Path relative to the project folder, with `/` separators.
    pub file: String,
    /// The title found, if any.
    pub title: Option<String>,
    /// The encoding label to force, when the file is not UTF-8 and the encoding was guessed.
    pub encoding: Option<String>,
    /// How the file is split into chapters, when it is: `"auto"` for a text file with chapter
    /// headings, `"h2"` (a heading level) for a lone Markdown or HTML file.
    pub split: Option<String>,
    /// `"markdown"` for a text file written in pandoc's Markdown (`format = "markdown"`).
    pub format: Option<String>,
    /// Level in the table of contents: 1 at the top, 2 for a sub-chapter.
    pub level: usize,
    /// Before, in or after the parts.
    pub placement: Placement,
    /// In the reading order; false for an EPUB source's `linear="no"` spine item.
    pub linear: bool,
}

/// Why `init` wrote nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    /// `metadata.toml` is already there.
    #[error("{}: already exists; not overwritten", crate::escape::path(path))]
    Exists {
        /// The existing file.
        path: PathBuf,
    },
    /// The folder holds no chapter files.
    #[error(
        "{}: no chapter files here ({})",
        crate::escape::path(dir),
        looked_for()
    )]
    NoChapters {
        /// The folder.
        dir: PathBuf,
    },
    /// The chapters are in a format we do not read (AsciiDoc, reStructuredText, LaTeX, DOCX,
    /// ODT…; see `project::UNSUPPORTED_KINDS`).
    #[error(
        "{}: {format} is not supported; convert it with {tool} first",
        crate::escape::path(path)
    )]
    Unsupported {
        /// The first such file.
        path: PathBuf,
        /// The format's name.
        format: &'static str,
        /// What converts it to Markdown or HTML.
        tool: &'static str,
    },
    /// The one-command build was given a file that is not a chapter file.
    #[error("{}: not a chapter file ({})", crate::escape::path(path), kinds())]
    NotChapterFile {
        /// The file.
        path: PathBuf,
    },
    /// A file or folder could not be read or written.
    #[error("{}: {action}: {source}", crate::escape::path(path))]
    Io {
        /// The path.
        path: PathBuf,
        /// What we were doing.
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The kinds of file `init` looked for.
fn looked_for() -> String {
    format!(
        "looked for {}, in folders at any depth, and an mdBook SUMMARY.md",
        kinds()
    )
}

/// The extensions of chapter files.
fn kinds() -> String {
    FILE_KINDS.map(|(ext, _)| format!(".{ext}")).join(" ")
}

const EXISTS_HINT: &str = "pass --force to replace it, or edit it by hand";

impl InitError {
    /// The error as a [`Diagnostic`].
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            InitError::Exists { path } => {
                Diagnostic::error(Code::Init, "already exists; not overwritten")
                    .at(path)
                    .hint(EXISTS_HINT)
            }
            InitError::NoChapters { dir } => {
                let message = format!("no chapter files here ({})", looked_for());
                Diagnostic::error(Code::Init, message).at(dir)
            }
            InitError::Unsupported { path, format, tool } => Diagnostic::error(
                Code::Init,
                format!("{format} is not supported; convert it with {tool} first"),
            )
            .at(path)
            .hint("then run init on the converted Markdown or HTML files"),
            InitError::NotChapterFile { path } => {
                let message = format!("not a chapter file ({})", kinds());
                Diagnostic::error(Code::Init, message)
                    .at(path)
                    .hint("give a text, Markdown or HTML file, or a folder of them")
            }
            InitError::Io {
                path,
                action,
                source,
            } => Diagnostic::error(Code::Io, format!("{action}: {source}")).at(path),
        }
    }
}

/// A chapter to list, before its file is read.
struct Planned {
    /// Path relative to the project folder, with `/` separators.
    file: String,
    /// The title `SUMMARY.md` gives it.
    title: Option<String>,
    level: usize,
    placement: Placement,
    /// False for an EPUB source's `linear="no"` spine item.
    linear: bool,
}

/// Writes `dir/metadata.toml` for the chapter files in `dir`.
///
/// ```
/// use epubforge::{InitOptions, init};
///
/// let dir = tempfile::tempdir().expect("a temporary folder");
/// std::fs::write(dir.path().join("01.md"), "# The first\n\nText.\n").unwrap();
/// std::fs::write(dir.path().join("02.md"), "# The second\n\nMore.\n").unwrap();
/// let report = init(dir.path(), &InitOptions::default())?;
/// assert_eq!(report.chapters.len(), 2);
/// assert!(report.metadata_path.exists());
/// # Ok::<(), epubforge::InitError>(())
/// ```
pub fn init(dir: &Path, opts: &InitOptions) -> Result<InitReport, InitError> {
    let metadata_path = dir.join(METADATA_FILE);
    if metadata_path.exists() && !opts.force {
        return Err(InitError::Exists {
            path: metadata_path,
        });
    }
    let draft = detect(dir, None, false)?;
    draft.write_metadata()?;
    Ok(draft.report)
}

/// A book as `init` reads it, nothing written yet: the `metadata.toml` it would write, and
/// where the one-command build (`epubforge FILE`) puts the EPUB. The one-command build makes
/// its project from exactly this text ([`Draft::project`]), so that `--save` keeps what was
/// built.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Draft {
    /// What was found; `metadata_path` is where the metadata goes when saved.
    pub report: InitReport,
    /// The text of the `metadata.toml`.
    pub metadata: String,
    /// Where the EPUB goes by default: `FILE-stem.epub` beside a file, `FOLDER/FOLDER.epub`
    /// inside a folder (never outside the folder that holds the chapters).
    pub output: PathBuf,
    /// The volume headings the build will split the text files at.
    pub volumes: usize,
    /// The chapters: the headings the text files are split at, and one for each file not
    /// split; None when a Markdown or HTML file is split at its headings (the build counts).
    pub chapters: Option<usize>,
    /// Lines of site text (names, addresses, download notices) found: the metadata turns the
    /// `web-novel` cleanup preset on, which removes them.
    pub site_lines: usize,
}

impl Draft {
    /// The project the metadata describes, loaded as `build` loads a `metadata.toml`.
    pub fn project(&self, opts: &crate::project::LoadOptions) -> crate::error::Result<Project> {
        let meta = &self.report.metadata_path;
        let root = meta.parent().unwrap_or(Path::new("."));
        Project::from_str_with(&self.metadata, root, meta, opts)
    }

    /// Writes the metadata file (`--save`), unless one is there and `force` is off.
    pub fn save(&self, force: bool) -> Result<PathBuf, InitError> {
        let path = &self.report.metadata_path;
        if path.exists() && !force {
            return Err(InitError::Exists { path: path.clone() });
        }
        self.write_metadata()?;
        Ok(path.clone())
    }

    fn write_metadata(&self) -> Result<(), InitError> {
        let path = &self.report.metadata_path;
        std::fs::write(path, &self.metadata).map_err(|source| InitError::Io {
            path: path.clone(),
            action: "cannot write",
            source,
        })
    }
}

/// The book in `input` as `init` would read it: a chapter file (the book is that file alone,
/// whatever else its folder holds) or a folder of chapter files.
///
/// ```
/// let dir = tempfile::tempdir().expect("a temporary folder");
/// let novel = dir.path().join("novel.txt");
/// std::fs::write(&novel, "第一章 开始\n\n正文。\n\n第二章 继续\n\n更多正文。\n").unwrap();
/// let draft = epubforge::draft(&novel)?;
/// // One file, split into chapters by its headings.
/// assert_eq!(draft.chapters, Some(2));
/// # Ok::<(), epubforge::InitError>(())
/// ```
pub fn draft(input: &Path) -> Result<Draft, InitError> {
    draft_with(input, false)
}

/// [`draft`] for a book built at once and not saved (`epubforge FILE`): a text file is read
/// only for what the metadata needs (its first MiB: title, author, language, whether it has
/// headings, a site header), not decoded and split whole, which the build then does; the
/// encoding is left to the build to guess, and [`Draft::chapters`] is None (the build's outline
/// counts them).
pub fn draft_to_build(input: &Path) -> Result<Draft, InitError> {
    draft_with(input, true)
}

fn draft_with(input: &Path, quick: bool) -> Result<Draft, InitError> {
    let meta = std::fs::metadata(input).map_err(|source| InitError::Io {
        path: input.to_path_buf(),
        action: "cannot read",
        source,
    })?;
    if meta.is_dir() {
        return detect(input, None, quick);
    }
    if let Some((format, tool)) = crate::project::unsupported_kind(input) {
        return Err(InitError::Unsupported {
            path: input.to_path_buf(),
            format,
            tool,
        });
    }
    let name = input.file_name().and_then(|n| n.to_str());
    let Some(name) = name.filter(|_| SourceKind::known(input).is_some()) else {
        return Err(InitError::NotChapterFile {
            path: input.to_path_buf(),
        });
    };
    let dir = match input.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    detect(dir, Some(name), quick)
}

/// Reads the chapter files in `dir` (only `file` when given) and makes the metadata for them.
fn detect(dir: &Path, file: Option<&str>, quick: bool) -> Result<Draft, InitError> {
    // The files init reads go through the same boundary as the build's: a `SUMMARY.md` entry
    // or a chapter that leads out of `dir` is never read.
    let boundary = Boundary::new(dir, false);
    let book = file
        .is_none()
        .then(|| mdbook::find(dir, &boundary))
        .flatten();
    let mut notes = book.as_ref().map(|b| b.notes.clone()).unwrap_or_default();
    let package = (file.is_none() && book.is_none())
        .then(|| opf::find(dir))
        .flatten();
    let planned = plan(
        dir,
        file,
        &boundary,
        (book.as_ref(), package.as_ref()),
        &mut notes,
    )?;
    let stem = lone_text_stem(&planned);
    let mut found = Found {
        quick: quick && file.is_some(),
        ..Found::default()
    };
    let lone = planned.len() == 1;
    let chapters: Vec<ChapterGuess> = planned
        .into_iter()
        .map(|p| examine(&boundary, dir, p, lone, &mut found, &mut notes))
        .collect();
    let language = book_language(book.as_ref(), package.as_ref(), &mut found);
    let fallback = match (file, &stem) {
        (Some(_), Some(stem)) => names::book_name(stem),
        _ => folder_title(dir),
    };
    if let Some(p) = &package {
        found.about.title = p.title.clone().or(found.about.title.take());
        if !p.authors.is_empty() {
            found.about.authors = p.authors.clone();
        }
    }
    let (title, authors) = title_and_authors(book.as_ref(), &mut found, stem.as_deref(), fallback);
    // The preset is made for Chinese sites' downloads (an English Gutenberg text's licence
    // names its site too, and stays).
    if !language.starts_with("zh") {
        found.site_lines = 0;
    }
    let cover = book_cover(dir, file, package.as_ref());
    let metadata = render::metadata(&render::Book {
        title: &title,
        authors: &authors,
        language: &language,
        cover: cover.as_deref(),
        package: package.as_ref(),
        description: found.about.description.as_deref(),
        published: found.about.date.as_deref(),
        preset: (found.site_lines > 0).then_some((PRESET, found.site_lines)),
        chapters: &chapters,
        notes: &notes,
        japanese: found.aozora.as_ref(),
        vertical: japanese_fiction(&language, &chapters, dir),
    });
    Ok(Draft {
        output: default_output(dir, file),
        volumes: found.headings.volumes,
        chapters: (!found.uncounted && !found.quick).then_some(found.headings.chapters),
        site_lines: found.site_lines,
        metadata,
        report: InitReport {
            metadata_path: dir.join(METADATA_FILE),
            title,
            authors,
            chapters,
            language,
            cover,
            notes,
        },
    })
}

/// The chapter files to read: `file` alone, an mdBook's (its `SUMMARY.md`, else its folder), a
/// package document's spine, or the folder's chapter files. An error when there are none.
fn plan(
    dir: &Path,
    file: Option<&str>,
    boundary: &Boundary,
    (book, package): (Option<&mdbook::MdBook>, Option<&opf::OpfBook>),
    notes: &mut Vec<String>,
) -> Result<Vec<Planned>, InitError> {
    let planned = match (book, file, package) {
        (_, Some(f), _) => vec![Planned::top(f.to_string())],
        (Some(b), None, _) => match &b.summary {
            Some(summary) => from_summary(boundary, &b.src, summary, notes),
            None => listed(dir, &b.src, true, notes)?,
        },
        (None, None, Some(p)) => from_spine(boundary, p, notes),
        (None, None, None) => {
            let found = listed(dir, Path::new(""), false, notes)?;
            refuse_or_note_unsupported(dir, found.len(), notes)?;
            found
        }
    };
    if planned.is_empty() {
        return Err(InitError::NoChapters {
            dir: dir.to_path_buf(),
        });
    }
    Ok(planned)
}

/// The stem of the one text file of a book made of one (its name may give the title and
/// author: `《书名》作者：某某.txt`).
fn lone_text_stem(planned: &[Planned]) -> Option<String> {
    match planned {
        [one] if SourceKind::of(Path::new(&one.file)) == SourceKind::Text => Path::new(&one.file)
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string),
        _ => None,
    }
}

/// The book's language: the mdBook's, else the package document's, else what the files say
/// of themselves, else guessed from their text.
fn book_language(
    book: Option<&mdbook::MdBook>,
    package: Option<&opf::OpfBook>,
    found: &mut Found,
) -> String {
    book.and_then(|b| b.language.clone())
        .or_else(|| package.and_then(|p| p.language.clone()))
        .filter(|l| !l.trim().is_empty())
        .or(found.about.language.take())
        .unwrap_or_else(|| guess_language(&found.sample).to_string())
}

/// The cover: the package document's, when its file is there, else a picture found beside
/// the chapters.
fn book_cover(dir: &Path, file: Option<&str>, package: Option<&opf::OpfBook>) -> Option<String> {
    package
        .and_then(|p| p.cover.clone())
        .filter(|c| dir.join(c).is_file())
        .or_else(|| find_cover(dir, file))
}

/// Whether the book is Japanese fiction in plain text, set vertically by default: the
/// language is Japanese and every chapter file is a text file (Markdown, HTML and EPUB
/// sources keep their own layout).
fn japanese_fiction(language: &str, chapters: &[ChapterGuess], dir: &Path) -> bool {
    crate::book::primary_language(language) == "ja"
        && chapters
            .iter()
            .all(|c| c.format.is_none() && SourceKind::of(&dir.join(&c.file)) == SourceKind::Text)
}

/// The book's title and authors, from the first source that gives them: an mdBook's
/// `book.toml`; what the files say (a Project Gutenberg header, a lone file's own metadata, a
/// lone text file's first lines); a lone text file's name; else `fallback` for the title.
fn title_and_authors(
    book: Option<&mdbook::MdBook>,
    found: &mut Found,
    stem: Option<&str>,
    fallback: String,
) -> (String, Vec<String>) {
    let named =
        stem.and_then(|s| japanese::web_novel_name(s).or_else(|| names::title_and_author(s)));
    let title = book
        .and_then(|b| b.title.clone())
        .or(found.about.title.take())
        .or(found.header.title.take())
        .or_else(|| named.as_ref().map(|n| n.0.clone()))
        .unwrap_or(fallback);
    let authors = match book {
        Some(b) if !b.authors.is_empty() => b.authors.clone(),
        _ if !found.about.authors.is_empty() => std::mem::take(&mut found.about.authors),
        _ => found
            .header
            .author
            .take()
            .or_else(|| named.and_then(|n| n.1))
            .into_iter()
            .collect(),
    };
    (title, authors)
}

/// Where the one-command build writes the EPUB: beside the file, named after it; for a folder,
/// inside it, named after the folder.
fn default_output(dir: &Path, file: Option<&str>) -> PathBuf {
    let name = match file {
        Some(f) => Path::new(f)
            .file_stem()
            .map_or_else(|| "book".into(), |s| s.to_string_lossy().into_owned()),
        None => folder_title(dir),
    };
    match dir == Path::new(".") && file.is_some() {
        // `epubforge 小说.txt` writes `小说.epub`, not `./小说.epub`.
        true => PathBuf::from(format!("{name}.epub")),
        false => dir.join(format!("{name}.epub")),
    }
}

/// What reading the chapters told about the book.
#[derive(Default)]
struct Found {
    /// Text to guess the language from.
    sample: String,
    /// What the first file that says anything says about the book (a Project Gutenberg
    /// header; a lone file's own title and metadata).
    about: About,
    /// What a lone text file's first lines say (`《书名》`, `作者：某某`).
    header: names::Header,
    /// A lone Japanese text file's Aozora header block (title, subtitle, author, translator).
    aozora: Option<japanese::AozoraHeader>,
    /// The headings the split text files are cut at; a file not split is one chapter.
    headings: Headings,
    /// A Markdown or HTML file is split at its headings: `headings` does not count its pieces.
    uncounted: bool,
    /// Lines of the text files that the `web-novel` cleanup preset removes whole.
    site_lines: usize,
    /// That preset, compiled when the first text file is read.
    preset: Option<TextFix>,
    /// One file built in one go (`epubforge FILE`): only what the metadata needs is read off
    /// it, not what the build itself finds (its chapters, every site line), so that the
    /// one-command build costs little more than the build ([`quick_headings`]).
    quick: bool,
}

/// The chapters of `SUMMARY.md` whose files exist inside the folder of `boundary`, paths made
/// relative to it; drafts, files leading out, missing files and repeats become notes.
fn from_summary(
    boundary: &Boundary,
    src: &Path,
    summary: &[mdbook::Entry],
    notes: &mut Vec<String>,
) -> Vec<Planned> {
    let has_parts = summary
        .iter()
        .any(|e| matches!(&e.place, mdbook::Place::Numbered(Some(_))));
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for entry in summary {
        let Some(file) = &entry.file else {
            notes.push(format!(
                "SUMMARY.md: draft chapter \"{}\" has no file; left out",
                entry.title
            ));
            continue;
        };
        let rel = slash_path(&src.join(file));
        let dir = boundary.root();
        if let Err(outside) = boundary.admit(dir, &rel) {
            notes.push(format!(
                "SUMMARY.md: \"{}\" ({rel}) {}; left out",
                entry.title,
                outside.describe(&rel, dir)
            ));
            continue;
        }
        if !dir.join(&rel).is_file() || SourceKind::known(Path::new(&rel)).is_none() {
            notes.push(format!(
                "SUMMARY.md: \"{}\" ({rel}) is not a chapter file here; left out",
                entry.title
            ));
            continue;
        }
        if !seen.insert(rel.clone()) {
            notes.push(format!("SUMMARY.md: {rel} is listed twice; kept the first"));
            continue;
        }
        let placement = match &entry.place {
            mdbook::Place::Numbered(Some(part)) => Placement::Part(part.clone()),
            mdbook::Place::Suffix if has_parts => Placement::Suffix,
            _ => Placement::Chapters,
        };
        out.push(Planned {
            file: rel,
            title: Some(entry.title.clone()).filter(|t| !t.is_empty()),
            level: entry.level,
            placement,
            linear: true,
        });
    }
    out
}

/// The chapters of an EPUB source tree's spine whose files exist inside the folder of
/// `boundary`; the rest become notes.
fn from_spine(
    boundary: &Boundary,
    package: &opf::OpfBook,
    notes: &mut Vec<String>,
) -> Vec<Planned> {
    notes.extend(package.notes.iter().cloned());
    let dir = boundary.root();
    let mut out = Vec::new();
    for (file, linear) in &package.spine {
        if boundary.admit(dir, file).is_err() || !dir.join(file).is_file() {
            notes.push(format!(
                "{}: {file} is not a chapter file here; left out",
                package.opf
            ));
            continue;
        }
        out.push(Planned {
            linear: *linear,
            ..Planned::top(file.clone())
        });
    }
    out
}

/// Files in `dir` of formats we do not read: refused when they are as many as the chapter
/// files found (`chapters`: the book is written in that format, and a stray HTML file is not
/// it), else each noted as left out.
fn refuse_or_note_unsupported(
    dir: &Path,
    chapters: usize,
    notes: &mut Vec<String>,
) -> Result<(), InitError> {
    let other = files_where(dir, Path::new(""), |p| {
        crate::project::unsupported_kind(p).is_some()
    })?;
    let Some(first) = other.first() else {
        return Ok(());
    };
    let (format, tool) =
        crate::project::unsupported_kind(Path::new(first)).unwrap_or(("this format", "pandoc"));
    if other.len() >= chapters {
        return Err(InitError::Unsupported {
            path: dir.join(first),
            format,
            tool,
        });
    }
    for f in other {
        let (format, tool) =
            crate::project::unsupported_kind(Path::new(&f)).unwrap_or((format, tool));
        notes.push(format!(
            "{f}: {format} is not supported (convert it with {tool}); left out"
        ));
    }
    Ok(())
}

/// A relative path with `/` separators and no `.` components.
fn slash_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// The chapter files under `dir/sub`, in natural order (an mdBook book's `SUMMARY.md` and
/// `404.md` left out, and files that are no chapter: a licence, a change log, a navigation
/// document, each noted).
fn listed(
    dir: &Path,
    sub: &Path,
    mdbook: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<Planned>, InitError> {
    let files = find_chapter_files(dir, sub)?;
    Ok(files
        .into_iter()
        .filter(|f| {
            let name = f.rsplit('/').next().unwrap_or(f);
            !(mdbook && (name.eq_ignore_ascii_case("SUMMARY.md") || name == "404.md"))
        })
        .filter(|f| match skip::not_a_chapter(dir, f) {
            Some(why) => {
                notes.push(format!("{f}: {why}, not a chapter; left out"));
                false
            }
            None => true,
        })
        .map(Planned::top)
        .collect())
}

/// Reads a planned chapter whole, as the build reads it: its encoding, title and whether it is
/// to be split (a text file with chapter headings; a Markdown or HTML file that is the book's
/// only chapter, at the level of its headings).
fn examine(
    boundary: &Boundary,
    dir: &Path,
    p: Planned,
    lone: bool,
    found: &mut Found,
    notes: &mut Vec<String>,
) -> ChapterGuess {
    let path = dir.join(&p.file);
    let mut kind = SourceKind::of(&path);
    let (text, encoding) = match kind {
        // The build decodes the whole file and guesses its encoding itself.
        SourceKind::Text if found.quick => (read_head(boundary, &path, &p.file, notes), None),
        _ => read_whole(boundary, &path, &p.file, notes),
    };
    // A `.txt` in pandoc's Markdown (a title block and `#` headings) is read as Markdown.
    let format = (kind == SourceKind::Text && SourceKind::is_pandoc_text(&text)).then(|| {
        kind = SourceKind::Markdown;
        "markdown".to_string()
    });
    if found.about.is_empty() {
        found.about = crate::convert::about::about(kind, &text, lone);
    }
    sample_language(found, &text);
    if kind == SourceKind::Text {
        read_text_header(found, (&text, &path, &p.file), lone);
    }
    let counted = match kind {
        SourceKind::Text if p.title.is_none() && found.quick => quick_headings(&text),
        SourceKind::Text if p.title.is_none() => headings(&text),
        _ => Headings::default(),
    };
    let split = match kind {
        _ if p.title.is_some() => None,
        SourceKind::Text => (counted.chapters >= SPLIT_MIN_HEADINGS).then(|| "auto".to_string()),
        _ if lone => split_level(kind, &text).map(|l| format!("h{l}")),
        _ => None,
    };
    match &split {
        Some(_) if kind == SourceKind::Text => {
            found.headings.volumes += counted.volumes;
            found.headings.chapters += counted.chapters;
        }
        // A Markdown or HTML file cut at its headings: only the build counts the pieces.
        Some(_) => found.uncounted = true,
        None => found.headings.chapters += 1,
    }
    let title = if split.is_some() {
        None
    } else {
        p.title
            .or_else(|| title_in(kind, &text))
            .or_else(|| title_from_file_name(&path))
    };
    ChapterGuess {
        file: p.file,
        title,
        encoding,
        split,
        format,
        level: p.level,
        placement: p.placement,
        linear: p.linear,
    }
}

/// Adds the start of `text` to the sample the book's language is guessed from, up to
/// `LANGUAGE_SAMPLE_BYTES` in all.
fn sample_language(found: &mut Found, text: &str) {
    if found.sample.len() < LANGUAGE_SAMPLE_BYTES {
        let room = LANGUAGE_SAMPLE_BYTES - found.sample.len();
        let end = (0..=room.min(text.len()))
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        found.sample.push_str(&text[..end]);
    }
}

/// What a text chapter file says of the book: a lone file's first lines (title, author, an
/// Aozora Bunko header) and the site lines a download's cleanup preset would remove.
fn read_text_header(found: &mut Found, (text, path, file): (&str, &Path, &str), lone: bool) {
    if lone {
        found.header = names::from_first_lines(text);
        if let Some(h) = japanese::aozora_header(text) {
            found.header.title = Some(h.title.clone());
            found.header.author = h.author.clone().or(found.header.author.take());
            found.aozora = Some(h);
        }
    }
    let preset = found.preset.get_or_insert_with(web_novel_preset);
    found.site_lines += site_lines(text, path, file, preset, found.quick);
}

/// The preset a download with site lines gets.
const PRESET: &str = "web-novel";

/// The `web-novel` cleanup preset alone, as the build runs it.
fn web_novel_preset() -> TextFix {
    TextFix::new(Settings {
        rules: TextFix::preset(PRESET).unwrap_or_default(),
        conversion: None,
        quotes: None,
        typography: Typography::Off,
    })
}

/// How many lines of `text` holding an address (a dot or a colon) the preset removes whole: a
/// site's name or address, a download notice. Longer lines are paragraphs, which no line rule
/// removes, and are not looked at.
/// With `quick` (a file built in one go, where only whether the preset is wanted matters: the
/// build's summary says what it removed), only the first and last [`QUICK_SITE_LINES`] lines
/// are tried, where a download's site header and footer are.
fn site_lines(text: &str, path: &Path, rel: &str, preset: &TextFix, quick: bool) -> usize {
    let file = FileRef {
        path,
        relative: rel,
    };
    // Only lines holding an address are tried: running the rules on every line of a novel
    // cost more than the build itself.
    let tried = |l: &&str| l.len() <= SITE_LINE_BYTES && l.contains(['.', '．', ':', '：']);
    let count = |lines: &mut dyn Iterator<Item = &str>| {
        lines
            .filter(tried)
            .filter(|l| preset.removes_line(l, file))
            .count()
    };
    let lines = text.lines().count();
    if !quick || lines <= 2 * QUICK_SITE_LINES {
        return count(&mut text.lines());
    }
    count(&mut text.lines().take(QUICK_SITE_LINES))
        + count(&mut text.lines().skip(lines - QUICK_SITE_LINES))
}

/// How many lines at each end of a file built in one go [`site_lines`] tries.
const QUICK_SITE_LINES: usize = 1000;

/// Whether a text file built in one go has chapter headings to be split at: the line test of
/// the split ([`crate::convert::split::is_heading`], which names every line the whole file may
/// make a heading), stopping at the [`SPLIT_MIN_HEADINGS`]th. The build's own split decides
/// and counts them (its outline says how many); a second whole split here would cost as much
/// as the build's.
fn quick_headings(text: &str) -> Headings {
    let mode = crate::book::SplitMode::Auto;
    let chapters = text
        .split('\n')
        .filter(|l| crate::convert::split::is_heading(l, &mode))
        .take(SPLIT_MIN_HEADINGS)
        .count();
    Headings {
        volumes: 0,
        chapters,
    }
}

/// The longest line [`site_lines`] looks at, in bytes (the preset's 120 characters, in UTF-8).
const SITE_LINE_BYTES: usize = 120 * 4;

/// How much of a text file built in one go is read for its metadata.
const QUICK_HEAD_BYTES: u64 = 1 << 20;

/// The first [`QUICK_HEAD_BYTES`] of a text file built in one go, decoded (the encoding guessed
/// from them, cut after a line break so that no character is cut: a line break is never part
/// of a multi-byte character in UTF-8, GBK, Big5 or Shift_JIS), or the whole file when
/// shorter: what its metadata needs (title, author, language, whether it has headings, a site
/// header). The build reads and decodes the whole file itself; reading it twice cost the
/// one-command build a fifth of its time.
fn read_head(boundary: &Boundary, path: &Path, rel: &str, notes: &mut Vec<String>) -> String {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = boundary.open(path).and_then(|file| {
        file.take(QUICK_HEAD_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| crate::error::Error::io(path, "cannot read", e))
    });
    if let Err(e) = read {
        notes.push(format!("{rel}: {e}"));
        return String::new();
    }
    let utf16 = bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]);
    let cut = bytes.len() as u64 == QUICK_HEAD_BYTES;
    if cut {
        let end = match utf16 {
            true => bytes.len() & !1,
            false => memchr::memrchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1),
        };
        bytes.truncate(end);
    }
    let Ok(head) = crate::source::decode(&bytes, None, EncodingErrors::Replace) else {
        return String::new();
    };
    let mut text = head.text;
    if cut && !utf16 {
        text.push_str(&read_tail(boundary, path, head.encoding.name()));
    }
    text
}

/// How much of the end of a long text file built in one go is read for its site lines: a
/// download's footer (`Txt66.com`, `声明：本电子书仅供…`) is as telling as its header.
const QUICK_TAIL_BYTES: u64 = 64 << 10;

/// The last [`QUICK_TAIL_BYTES`] of a text file, from its first line break on, decoded as
/// `encoding` (the head's), after a line break; empty when it cannot be read.
fn read_tail(boundary: &Boundary, path: &Path, encoding: &str) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut bytes = Vec::new();
    let read = boundary.open(path).ok().and_then(|mut file| {
        let len = file.metadata().ok()?.len();
        let from = len.saturating_sub(QUICK_TAIL_BYTES).max(QUICK_HEAD_BYTES);
        file.seek(SeekFrom::Start(from)).ok()?;
        file.take(QUICK_TAIL_BYTES).read_to_end(&mut bytes).ok()
    });
    let Some(start) = read.and_then(|_| memchr::memchr(b'\n', &bytes)) else {
        return String::new();
    };
    crate::source::decode(&bytes[start..], Some(encoding), EncodingErrors::Replace)
        .map(|d| d.text)
        .unwrap_or_default()
}

/// A chapter file's text, decoded as the build decodes it (`convert::chapter::decode_file`),
/// and the encoding to write when the build guesses it (the same guess, from the same bytes).
/// A file the build could not decode is read with its bad bytes replaced, for its title, and
/// noted.
fn read_whole(
    boundary: &Boundary,
    path: &Path,
    rel: &str,
    notes: &mut Vec<String>,
) -> (String, Option<String>) {
    match decode_file(boundary, path, None, EncodingErrors::Fail) {
        Ok(d) => {
            let guessed = d.detection == Detection::Guessed;
            (
                d.text,
                guessed.then(|| d.encoding.name().to_ascii_lowercase()),
            )
        }
        Err(e) => {
            let replaced = decode_file(boundary, path, None, EncodingErrors::Replace);
            let message = e.to_string();
            let message = message
                .strip_prefix(&format!("{}: ", crate::escape::path(path)))
                .unwrap_or(&message);
            notes.push(format!("{rel}: {message}"));
            (replaced.map(|d| d.text).unwrap_or_default(), None)
        }
    }
}

impl Planned {
    /// A chapter at the top level, titled by what its file says.
    fn top(file: String) -> Planned {
        Planned {
            file,
            title: None,
            level: 1,
            placement: Placement::Chapters,
            linear: true,
        }
    }
}

/// Chapter files under `dir/sub` at any depth (not in hidden folders, nor in `build/`,
/// `covers/`, `target/` or `node_modules/`), as paths relative to `dir` with `/` separators, in
/// natural order.
pub fn find_chapter_files(dir: &Path, sub: &Path) -> Result<Vec<String>, InitError> {
    files_where(dir, sub, |p| SourceKind::known(p).is_some())
}

/// The files under `dir/sub` that `keep` accepts, as [`find_chapter_files`] looks for them.
fn files_where(
    dir: &Path,
    sub: &Path,
    keep: impl Fn(&Path) -> bool,
) -> Result<Vec<String>, InitError> {
    let root = dir.join(sub);
    let io = |source| InitError::Io {
        path: root.clone(),
        action: "cannot list",
        source,
    };
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(&root)
        .min_depth(1)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            let skipped = e.file_type().is_dir()
                && [OUTPUT_FOLDER, "covers", "target", "node_modules"].contains(&name.as_ref());
            !name.starts_with('.') && !skipped
        });
    for entry in walker {
        let entry = entry.map_err(|e| io(e.into()))?;
        if !entry.file_type().is_file() || !keep(entry.path()) {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(dir) {
            out.push(slash_path(rel));
        }
    }
    out.sort_by(|a, b| natural_cmp(a, b));
    Ok(out)
}

/// [`SIMPLIFIED_ONLY`] and [`TRADITIONAL_ONLY`] as sets, made once: searching the strings for
/// every Han character of the sample cost more than the rest of reading a download.
fn variant_sets() -> &'static (rustc_hash::FxHashSet<char>, rustc_hash::FxHashSet<char>) {
    static SETS: std::sync::OnceLock<(rustc_hash::FxHashSet<char>, rustc_hash::FxHashSet<char>)> =
        std::sync::OnceLock::new();
    SETS.get_or_init(|| {
        (
            SIMPLIFIED_ONLY.chars().collect(),
            TRADITIONAL_ONLY.chars().collect(),
        )
    })
}

/// A BCP 47 tag guessed from the text: `ja` when there is kana, `ko` for hangul, `zh-CN` or
/// `zh-TW` for Chinese (by characters that exist only in simplified or in traditional script),
/// else `en`.
pub fn guess_language(text: &str) -> &'static str {
    let (mut han, mut kana, mut hangul, mut latin) = (0usize, 0usize, 0usize, 0usize);
    let (mut simplified, mut traditional) = (0usize, 0usize);
    for c in text.chars() {
        match c as u32 {
            0x3040..=0x30FF | 0x31F0..=0x31FF => kana += 1,
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => hangul += 1,
            0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => {
                han += 1;
                let (simplified_only, traditional_only) = variant_sets();
                if simplified_only.contains(&c) {
                    simplified += 1;
                } else if traditional_only.contains(&c) {
                    traditional += 1;
                }
            }
            _ if c.is_alphabetic() => latin += 1,
            _ => {}
        }
    }
    let east_asian = han + kana + hangul;
    // Latin words are counted per letter, CJK per character (about one word each): weigh the
    // letters down so a CJK text quoting some English stays CJK.
    if east_asian == 0 || east_asian * 4 < latin / 2 {
        return "en";
    }
    if hangul > han && hangul >= kana {
        "ko"
    } else if kana * 20 >= east_asian {
        "ja"
    } else if traditional > simplified {
        "zh-TW"
    } else {
        "zh-CN"
    }
}

/// Common characters written only in simplified Chinese.
const SIMPLIFIED_ONLY: &str = "这们说时来国会为对发后还过经与东马军长门见问间让从书开关头话样现实学无电进车给语听将战阵气师岁边远处条认识该这里么个们爷丝两严丧临为乐买乱争于亏云亚产亲亿仅从仑仓仪们价众优伙会伞伟传伤伦伪体余佣侠侣侥侦侧侨侩侪侬俣俦俨俩俪俭债倾偬偻偾偿傥傧储傩儿兑兖党兰关兴兹养兽冁内冈册写军农冢冯冲决况冻净凄凉凌减凑凛几凤凫凭凯击凿刍划刘则刚创删别刬刭刽刿剀剂剐剑剥剧劝办务劢动励劲劳势勋勐勚匀匦匮区医华协单卖卢卤卧卫却卺厂厅历厉压厌厍厕厢厣厦厨厩厮县参";

/// Common characters written only in traditional Chinese.
const TRADITIONAL_ONLY: &str = "這們說時來國會為對發後還過經與東馬軍長門見問間讓從書開關頭話樣現實學無電進車給語聽將戰陣氣師歲邊遠處條認識該裏麼個爺絲兩嚴喪臨樂買亂爭於虧雲亞產親億僅崙倉儀價眾優夥傘偉傳傷倫偽體餘傭俠侶僥偵側僑儈儕儂儔儼倆儷儉債傾傯僂僨償儻儐儲儺兒兌兗黨蘭興茲養獸囅內岡冊寫農塚馮衝決況凍淨淒涼淩減湊凜幾鳳鳧憑凱擊鑿芻劃劉則剛創刪別剗剄劊劌剴劑剮劍剝劇勸辦務勱動勵勁勞勢勳勩勻匭匱區醫華協單賣盧鹵臥衛卻巹廠廳曆厲壓厭厙廁廂厴廈廚廄廝縣參";

/// The cover: for one file, an image beside it named like it (`小说.jpg`) or `cover.*`;
/// else the image in `covers/`: the only one, or the one named `cover.*` among several.
fn find_cover(dir: &Path, file: Option<&str>) -> Option<String> {
    if let Some(stem) = file.and_then(|f| Path::new(f).file_stem())
        && let Some(beside) = images_in(dir).into_iter().find(|n| {
            let image = Path::new(n).file_stem();
            image == Some(stem) || image.is_some_and(|s| s.eq_ignore_ascii_case("cover"))
        })
    {
        return Some(beside);
    }
    let mut images = images_in(&dir.join("covers"));
    let chosen = if images.len() == 1 {
        images.pop()
    } else {
        images
            .into_iter()
            .find(|n| n.to_ascii_lowercase().starts_with("cover."))
    }?;
    Some(format!("covers/{chosen}"))
}

/// The names of the cover images in `dir`, in natural order.
fn images_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut images: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| crate::project::has_extension(Path::new(n), &crate::project::COVER_EXTENSIONS))
        .collect();
    images.sort_by(|a, b| natural_cmp(a, b));
    images
}

/// The folder's own name as the book title.
fn folder_title(dir: &Path) -> String {
    let real = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    real.file_name()
        .map(|n| n.to_string_lossy().trim().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "Untitled".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_guess_tells_scripts_apart() {
        assert_eq!(guess_language("这是一个关于战争的故事，他们说。"), "zh-CN");
        assert_eq!(guess_language("這是一個關於戰爭的故事，他們說。"), "zh-TW");
        assert_eq!(guess_language("これは戦争の物語です。彼らは言った。"), "ja");
        assert_eq!(guess_language("이것은 전쟁에 관한 이야기입니다."), "ko");
        assert_eq!(guess_language("It was a dark and stormy night."), "en");
        assert_eq!(guess_language(""), "en");
        assert_eq!(
            guess_language("他说：“OK, let's go.” 然后离开了这里。"),
            "zh-CN"
        );
    }

    #[test]
    fn titles_are_found_as_the_build_finds_them() {
        let txt = Path::new("a.txt");
        assert_eq!(
            title_in(SourceKind::of(txt), "\n\n  第一章　风起\n正文").as_deref(),
            Some("第一章 风起")
        );
        assert_eq!(
            title_in(SourceKind::of(txt), "他翻到第三章，看了很久。\n"),
            None
        );
        assert_eq!(title_in(SourceKind::of(txt), "正文\n第二章 云涌"), None);
        assert_eq!(
            title_in(
                SourceKind::of(Path::new("a.md")),
                "## The `Start` *here*\n\ntext"
            )
            .as_deref(),
            Some("The Start here")
        );
        assert_eq!(
            title_in(
                SourceKind::of(Path::new("a.html")),
                "<h2>The Start</h2><p>text</p>"
            )
            .as_deref(),
            Some("The Start")
        );
        assert_eq!(title_in(SourceKind::of(txt), ""), None);
    }

    #[test]
    fn chapter_files_are_listed_at_any_depth_in_natural_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "10.txt",
            "2.txt",
            "1.md",
            "notes.pdf",
            "covers/c.txt",
            "build/x.txt",
            ".git/x.md",
            "part2/3.html",
            "a/b/c/deep.md",
            "a/b/target/x.md",
        ] {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::write(d.join(f), "x").unwrap();
        }
        assert_eq!(
            find_chapter_files(d, Path::new("")).unwrap(),
            ["1.md", "2.txt", "10.txt", "a/b/c/deep.md", "part2/3.html"]
        );
        assert_eq!(
            find_chapter_files(d, Path::new("a")).unwrap(),
            ["a/b/c/deep.md"]
        );
    }

    #[test]
    fn a_lone_text_file_names_the_book_and_its_author() {
        let body = "第一章 开端\n正文。\n第二章 中途\n正文。\n第三章 结尾\n正文。\n";
        for (name, title, author) in [
            ("《青锋录》作者：林某.txt", "青锋录", Some("林某")),
            ("青锋录 作者：林某.txt", "青锋录", Some("林某")),
            ("青锋录-林某.txt", "青锋录", Some("林某")),
        ] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(name), body).unwrap();
            let report = init(dir.path(), &InitOptions::default()).unwrap();
            assert_eq!(report.title, title, "{name}");
            let authors: Vec<&str> = report.authors.iter().map(String::as_str).collect();
            assert_eq!(authors, author.into_iter().collect::<Vec<_>>(), "{name}");
            let project = crate::project::Project::load(dir.path()).unwrap();
            assert_eq!(project.book.title, title);
        }
        // Two files: their names are chapters', not the book's.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("青锋录-林某.txt"), body).unwrap();
        std::fs::write(dir.path().join("外传-林某.txt"), body).unwrap();
        let report = init(dir.path(), &InitOptions::default()).unwrap();
        assert!(report.authors.is_empty(), "{:?}", report.authors);
    }

    #[test]
    fn a_draft_of_one_file_reads_only_it_and_names_the_book_from_its_first_lines() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let text = "《青锋录》\n作者：（明）林某\n更多好书请访问www.qisuu.com\n\
                    第一章 开端\n正文。\n第二章 中途\n正文。\n第一卷 下\n第三章 结尾\n正文。\n";
        let file = d.join("010 - 别的名字[www.site.org].txt");
        std::fs::write(&file, encoding_rs::GBK.encode(text).0).unwrap();
        std::fs::write(d.join("other.txt"), "另一本书。\n").unwrap();
        std::fs::write(d.join("010 - 别的名字[www.site.org].jpg"), b"not read").unwrap();
        let draft = draft(&file).unwrap();
        let r = &draft.report;
        assert_eq!(
            (r.title.as_str(), r.authors.as_slice()),
            ("青锋录", &["林某".to_string()][..])
        );
        assert_eq!(r.chapters.len(), 1, "only the file given: {:?}", r.chapters);
        assert_eq!(r.cover.as_deref(), Some("010 - 别的名字[www.site.org].jpg"));
        assert_eq!((draft.volumes, draft.chapters), (1, Some(3)));
        assert!(
            draft.metadata.contains("encoding = \"gbk\""),
            "{}",
            draft.metadata
        );
        // Built at once and not saved, it is only looked at for whether it is split: the
        // build counts, and guesses the encoding.
        let quick = draft_to_build(&file).unwrap();
        assert_eq!((quick.volumes, quick.chapters), (0, None));
        assert!(
            quick.metadata.contains("split = \"auto\""),
            "{}",
            quick.metadata
        );
        assert!(
            !quick.metadata.contains("\nencoding ="),
            "{}",
            quick.metadata
        );
        assert_eq!(quick.report.title, draft.report.title);
        assert_eq!(quick.report.authors, draft.report.authors);
        assert_eq!(draft.site_lines, 1);
        assert_eq!(draft.output, d.join("010 - 别的名字[www.site.org].epub"));
        assert!(!d.join(METADATA_FILE).exists(), "a draft writes nothing");
        let project = draft.project(&Default::default()).unwrap();
        assert_eq!(project.book.title, "青锋录");
        assert_eq!(project.chapters().count(), 1);
        assert_eq!(
            project.text.rules().len(),
            TextFix::preset(PRESET).unwrap().len()
        );
        // Saved, it is the text built from; a second save does not overwrite it.
        draft.save(false).unwrap();
        let saved = std::fs::read_to_string(d.join(METADATA_FILE)).unwrap();
        assert_eq!(saved, draft.metadata);
        assert!(matches!(draft.save(false), Err(InitError::Exists { .. })));
        // Without header lines, the name without its tags and number.
        std::fs::write(&file, "第一章 开端\n正文。\n第二章 结尾\n正文。\n").unwrap();
        assert_eq!(super::draft(&file).unwrap().report.title, "别的名字");
    }

    #[test]
    fn a_draft_of_what_is_not_a_chapter_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("book.pdf");
        std::fs::write(&pdf, "%PDF").unwrap();
        assert!(matches!(draft(&pdf), Err(InitError::NotChapterFile { .. })));
        assert!(matches!(
            draft(&dir.path().join("missing.txt")),
            Err(InitError::Io { .. })
        ));
    }

    #[test]
    fn a_lone_html_or_markdown_book_is_named_by_what_it_says_not_by_its_folder() {
        let html = "<html lang=\"fr\"><head><title>Le Grand Livre</title>\
                    <meta name=\"author\" content=\"Anne Autrice\"></head><body>\
                    <h1>Un</h1><p>Il était une fois.</p><h1>Deux</h1><p>Fin.</p></body></html>";
        let yaml = "---\ntitle: The Long Road\nauthor: [Ann One, Bob Two]\nlang: en-GB\n---\n\n\
                    # One\n\nText.\n\n# Two\n\nMore.\n";
        let pandoc = "% The Long Road\n% Ann One; Bob Two\n\n# One\n\nText.\n";
        for (file, text, title, authors, language) in [
            (
                "book.html",
                html,
                "Le Grand Livre",
                &["Anne Autrice"][..],
                "fr",
            ),
            (
                "book.md",
                yaml,
                "The Long Road",
                &["Ann One", "Bob Two"][..],
                "en-GB",
            ),
            (
                "book.md",
                pandoc,
                "The Long Road",
                &["Ann One", "Bob Two"][..],
                "en",
            ),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let d = dir.path().join("some-folder");
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join(file), text).unwrap();
            let report = init(&d, &InitOptions::default()).unwrap();
            assert_eq!(report.title, title, "{text}");
            assert_eq!(report.authors, authors, "{text}");
            assert_eq!(report.language, language, "{text}");
            let project = crate::project::Project::load(&d).unwrap();
            assert_eq!(project.book.title, title);
            assert_eq!(project.book.language, language);
        }
        // One file of several: its <title> names its chapter, not the book.
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("some-folder");
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("1.html"), html).unwrap();
        std::fs::write(d.join("2.html"), html).unwrap();
        let report = init(&d, &InitOptions::default()).unwrap();
        assert_eq!(report.title, "some-folder");
        assert!(report.authors.is_empty());
    }

    #[test]
    fn an_epub_source_tree_is_read_in_its_spine_order_with_its_metadata_cover_and_styles() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let epub = d.join("src/epub");
        for sub in ["text", "css", "images"] {
            std::fs::create_dir_all(epub.join(sub)).unwrap();
        }
        std::fs::write(d.join("LICENSE.md"), "# License\n\nCC0.\n").unwrap();
        std::fs::write(epub.join("images/cover.jpg"), b"\xFF\xD8\xFF").unwrap();
        std::fs::write(epub.join("css/core.css"), "p { margin: 0 }").unwrap();
        for (name, heading) in [("b-first", "First"), ("a-second", "Second")] {
            std::fs::write(
                epub.join(format!("text/{name}.xhtml")),
                format!(
                    "<html><body><section><h2>{heading}</h2><p>Text.</p></section></body></html>"
                ),
            )
            .unwrap();
        }
        std::fs::write(
            epub.join("toc.xhtml"),
            "<html><body><nav epub:type=\"toc\"><ol><li><a href=\"text/b-first.xhtml\">First</a></li></ol></nav></body></html>",
        )
        .unwrap();
        std::fs::write(
            epub.join("content.opf"),
            r#"<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">urn:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427</dc:identifier>
<dc:title>Spine Book</dc:title><dc:creator>Ann Author</dc:creator><dc:language>en-GB</dc:language></metadata>
<manifest><item id="css" href="css/core.css" media-type="text/css"/>
<item id="cover" href="images/cover.jpg" media-type="image/jpeg" properties="cover-image"/>
<item id="a" href="text/a-second.xhtml" media-type="application/xhtml+xml"/>
<item id="b" href="text/b-first.xhtml" media-type="application/xhtml+xml"/>
<item id="toc" href="toc.xhtml" media-type="application/xhtml+xml" properties="nav"/></manifest>
<spine><itemref idref="b"/><itemref idref="a" linear="no"/></spine></package>"#,
        )
        .unwrap();
        let report = init(d, &InitOptions::default()).unwrap();
        assert_eq!(report.title, "Spine Book");
        assert_eq!(report.authors, ["Ann Author"]);
        assert_eq!(report.language, "en-GB");
        assert_eq!(report.cover.as_deref(), Some("src/epub/images/cover.jpg"));
        let files: Vec<&str> = report.chapters.iter().map(|c| c.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "src/epub/text/b-first.xhtml",
                "src/epub/text/a-second.xhtml"
            ]
        );
        let written = std::fs::read_to_string(d.join(METADATA_FILE)).unwrap();
        assert!(
            written.contains("css = [\"src/epub/css/core.css\"]"),
            "{written}"
        );
        assert!(
            written.contains("identifier = \"urn:uuid:1b4e28ba"),
            "{written}"
        );
        let project = crate::project::Project::load(d).unwrap();
        let linear: Vec<bool> = project.chapters().map(|c| c.linear).collect();
        assert_eq!(linear, [true, false]);
    }

    #[test]
    fn a_folder_without_a_package_never_takes_its_licence_or_navigation_document() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("LICENSE.md"), "# License\n\nCC0.\n").unwrap();
        std::fs::write(d.join("CHANGELOG"), "").unwrap();
        std::fs::write(d.join("CHANGELOG.txt"), "v1\n").unwrap();
        std::fs::write(
            d.join("nav.xhtml"),
            "<html><body><nav role=\"doc-toc\"><ol><li><a href=\"one.md\">One</a></li></ol></nav></body></html>",
        )
        .unwrap();
        std::fs::write(d.join("one.md"), "# One\n\nText.\n").unwrap();
        let report = init(d, &InitOptions::default()).unwrap();
        let files: Vec<&str> = report.chapters.iter().map(|c| c.file.as_str()).collect();
        assert_eq!(files, ["one.md"]);
        assert_eq!(report.notes.len(), 3, "{:?}", report.notes);
    }

    #[test]
    fn a_book_in_a_format_we_do_not_read_is_refused_by_name_not_replaced_by_a_stray_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("book.adoc"), "= Book\n\n== One\n\nText.\n").unwrap();
        std::fs::write(d.join("chapter-two.asc"), "== Two\n").unwrap();
        std::fs::write(d.join("stray.html"), "<p>An export.</p>").unwrap();
        let err = init(d, &InitOptions::default()).unwrap_err();
        assert!(
            err.to_string().ends_with(
                "book.adoc: AsciiDoc is not supported; convert it with asciidoctor or pandoc first"
            ),
            "{err}"
        );
        let single = draft(&d.join("book.adoc")).unwrap_err();
        assert!(matches!(
            single,
            InitError::Unsupported {
                format: "AsciiDoc",
                ..
            }
        ));
        std::fs::write(d.join("notes.rst"), "Notes\n=====\n").unwrap();
        std::fs::write(d.join("one.md"), "# One\n").unwrap();
        std::fs::write(d.join("two.md"), "# Two\n").unwrap();
        std::fs::write(d.join("three.md"), "# Three\n").unwrap();
        std::fs::remove_file(d.join("chapter-two.asc")).unwrap();
        let report = init(d, &InitOptions::default()).unwrap();
        assert_eq!(report.chapters.len(), 4);
        assert!(
            report
                .notes
                .iter()
                .any(|n| n.starts_with("notes.rst: reStructuredText is not supported")),
            "{:?}",
            report.notes
        );
    }

    #[test]
    fn init_writes_loadable_metadata_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("001.txt"), "第一章 开端\n这是第一章的正文。\n").unwrap();
        std::fs::write(d.join("002_the_end.txt"), "他们说完了。\n").unwrap();
        let report = init(d, &InitOptions::default()).unwrap();
        assert_eq!(report.language, "zh-CN");
        let project = crate::project::Project::load(d).unwrap();
        let titles: Vec<_> = project.chapters().map(|c| c.title.clone()).collect();
        assert_eq!(
            titles,
            [Some("第一章 开端".to_string()), Some("the end".to_string())]
        );
        assert_eq!(project.book.language, "zh-CN");
        let before = std::fs::read(d.join(METADATA_FILE)).unwrap();
        assert!(matches!(
            init(d, &InitOptions::default()),
            Err(InitError::Exists { .. })
        ));
        assert_eq!(std::fs::read(d.join(METADATA_FILE)).unwrap(), before);
        assert!(init(d, &InitOptions { force: true }).is_ok());
    }

    #[test]
    fn init_writes_the_encoding_the_build_detects_and_notes_what_it_cannot_decode() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let gbk = encoding_rs::GBK
            .encode("第一章 开端\n这是第一章的正文，他们说了很多话。\n")
            .0;
        std::fs::write(d.join("1.txt"), &gbk).unwrap();
        let mut damaged = "第二章 结束\n正文。".repeat(20).into_bytes();
        damaged.insert(30, 0xFF);
        std::fs::write(d.join("2.txt"), &damaged).unwrap();
        let report = init(d, &InitOptions::default()).unwrap();
        let boundary = Boundary::new(d, false);
        let built = decode_file(&boundary, &d.join("1.txt"), None, EncodingErrors::Fail).unwrap();
        assert_eq!(
            report.chapters[0].encoding.as_deref(),
            Some(built.encoding.name().to_ascii_lowercase().as_str())
        );
        assert_eq!(report.chapters[0].title.as_deref(), Some("第一章 开端"));
        assert_eq!(report.chapters[1].encoding, None);
        assert!(report.notes[0].starts_with("2.txt: "), "{:?}", report.notes);
        let meta = std::fs::read_to_string(d.join(METADATA_FILE)).unwrap();
        assert!(meta.contains("#   2.txt: "), "{meta}");
    }

    #[test]
    fn titles_with_quotes_are_escaped() {
        let c = ChapterGuess {
            file: "a\"b.txt".into(),
            title: Some("He said \"hi\"\\".into()),
            encoding: None,
            split: None,
            format: None,
            level: 1,
            placement: Placement::Chapters,
            linear: true,
        };
        let text = render::metadata(&render::Book {
            title: "T \"x\"",
            authors: &[],
            language: "en",
            cover: None,
            package: None,
            description: Some("A \"blurb\""),
            published: Some("2021-03-04"),
            preset: Some(("web-novel", 3)),
            chapters: &[c],
            notes: &["a note\nover two lines".to_string()],
            japanese: None,
            vertical: false,
        });
        let v: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(v["book"]["title"].as_str(), Some("T \"x\""));
        assert_eq!(v["book"]["description"].as_str(), Some("A \"blurb\""));
        assert_eq!(v["book"]["published"].to_string(), "2021-03-04");
        assert_eq!(v["chapters"][0]["title"].as_str(), Some("He said \"hi\"\\"));
        assert!(text.contains("#   a note over two lines"), "{text}");
        assert_eq!(v["text"]["cleanup-preset"].as_str(), Some("web-novel"));
    }
}
