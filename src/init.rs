//! `epubforge init`: turns a folder of chapter files into a project by writing `metadata.toml`.
//!
//! This sits before the pipeline (see the crate documentation's chain of stages): it writes
//! the file the project stage reads, so that a book builds right away and the author only
//! edits what no file says (often just the authors). Where the chapters come from:
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
mod examine;
mod japanese;
mod language;
mod markdown;
mod mdbook;
mod names;
mod opf;
mod plan;
mod render;
mod skip;

use std::path::{Path, PathBuf};

pub use epub::{EpubInitOptions, init_epub};
pub use language::guess_language;

use examine::{Found, PRESET, examine};
use plan::{Planned, plan};

use crate::convert::about::About;
use crate::convert::chapter::{
    Headings, decode_file, headings, split_level, title_from_file_name, title_in,
};
use crate::convert::{FILE_KINDS, SourceKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::project::{Boundary, METADATA_FILE, OUTPUT_FOLDER, Project, natural_cmp};
use crate::source::{Detection, EncodingErrors};
use crate::text_fix::{FileRef, Settings, TextFix, Typography};

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
    /// What init could not follow (a draft chapter, a missing file, an undecodable one): notes
    /// of code [`Code::Init`] at the file (and line) they are about; also written as comments
    /// in the file.
    pub notes: Vec<Diagnostic>,
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
        notes: &notes.iter().map(|n| comment(n, dir)).collect::<Vec<_>>(),
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

/// A note of `init`'s (code `init`) about the file at `path`, at `line` where known.
pub(super) fn note(
    path: impl Into<PathBuf>,
    line: Option<usize>,
    message: impl Into<String>,
) -> Diagnostic {
    Diagnostic::note(Code::Init, message).at(path).line(line)
}

/// An error `init` went on past (a file it could not read or decode), as one of its notes: at
/// the error's place, with its message and hint.
pub(super) fn note_of(e: &crate::error::Error) -> Diagnostic {
    Diagnostic {
        code: Code::Init,
        severity: crate::diagnostic::Severity::Note,
        ..e.diagnostic()
    }
}

/// A note as a comment of `metadata.toml`: `FILE:LINE: message`, the file named from `dir`.
fn comment(note: &Diagnostic, dir: &Path) -> String {
    let mut out = String::new();
    if let Some(path) = &note.path {
        let shown = path.strip_prefix(dir).unwrap_or(path);
        out.push_str(&plan::slash_path(shown));
        if let Some(line) = note.line {
            out.push_str(&format!(":{line}"));
        }
        out.push_str(": ");
    }
    out.push_str(&note.message);
    out
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
    use super::plan::find_chapter_files;
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
        // Each a note of code `init` at the file it is about.
        for n in &report.notes {
            assert_eq!((n.code, n.severity), (Code::Init, crate::Severity::Note));
            assert!(n.path.as_ref().is_some_and(|p| p.is_file()), "{n:?}");
        }
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
                .any(|n| n.path == Some(d.join("notes.rst"))
                    && n.message.starts_with("reStructuredText is not supported")),
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
        // At the first bad byte, as the build would report it.
        let n = &report.notes[0];
        assert_eq!(n.path, Some(d.join("2.txt")), "{:?}", report.notes);
        assert_eq!((n.code, n.line), (Code::Init, Some(2)), "{n:?}");
        let meta = std::fs::read_to_string(d.join(METADATA_FILE)).unwrap();
        assert!(meta.contains("#   2.txt:2: invalid UTF-8"), "{meta}");
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
