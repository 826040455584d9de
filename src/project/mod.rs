//! The project stage: `metadata.toml` in, a validated [`Project`] out.
//!
//! This is the first stage of the pipeline (see the crate documentation's chain of stages).
//! The TOML is parsed into raw types that mirror the file (`raw`), then checked and resolved
//! into the types the rest of the code uses: paths made absolute against the project folder,
//! globs expanded in natural order, the identifier and cover defaulted. Nothing downstream sees
//! the raw form.

mod boundary;
mod context;
mod glob;
#[cfg(test)]
pub(crate) mod guide_keys;
mod ignore;
mod layout;
mod mdbook;
mod modified;
mod output;
mod raw;
mod text;
pub(crate) mod toml_error;
pub(crate) mod values;

pub(crate) use boundary::{Boundary, Found, LookedAt};
pub(crate) use modified::{SOURCE_DATE_EPOCH, modified_date, source_date_epoch};
pub(crate) use raw::{COVER_EXTENSIONS, is_language_tag};
pub(crate) use text::CLEANUP_FILE;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub use crate::book::{BookInfo, EpubVersion, Layout, Person, Series, Style, Theme, WritingMode};
pub use ignore::Ignore;
pub use mdbook::{MdBookSettings, TexMacros};

/// The name of the metadata file in a project folder.
pub const METADATA_FILE: &str = "metadata.toml";

/// The largest `metadata.toml` read: a list of 100,000 chapters with titles takes about 7 MB.
pub const METADATA_LIMIT: u64 = 16_000_000;

/// A book project, validated and resolved.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Project {
    /// The folder that holds `metadata.toml`; every relative path is resolved against it.
    pub(crate) root: PathBuf,
    /// The metadata file itself.
    pub(crate) metadata_path: PathBuf,
    /// Bibliographic data.
    pub(crate) book: BookInfo,
    /// The reading order: chapters, possibly grouped into parts.
    pub(crate) contents: Vec<ContentEntry>,
    /// The cover image, if any.
    pub(crate) cover: Option<PathBuf>,
    /// Where the EPUB goes when the command line does not say (`[output] path`).
    pub(crate) output: Option<PathBuf>,
    /// How the book looks (`[style]`).
    pub(crate) style: Style,
    /// Title page, TOC page, colophon, writing mode, chapter splitting (`[layout]`).
    pub(crate) layout: Layout,
    /// EPUB 3 (default) or EPUB 2 (`[output] epub-version`).
    pub(crate) epub_version: EpubVersion,
    /// The readers and stores to build for (`[output] targets`); empty: the plain EPUB.
    pub(crate) targets: Vec<crate::book::Target>,
    /// How the book is cut into volumes, each its own EPUB (`[output] split`); None: one book.
    pub(crate) volumes: Option<Volumes>,
    /// The containment check for paths found later: images chapters refer to, the output.
    pub(crate) boundary: Boundary,
    /// Where the value of `[output] path` starts in `metadata.toml`, for messages about it.
    pub(crate) output_at: Option<usize>,
    /// Which files the inputs are (metadata, chapters, cover, stylesheets, fonts), sorted:
    /// the output must not be one of them, however it is spelled.
    pub(crate) input_ids: Vec<FileId>,
    /// The chapter globs as written: a new file they match is a new chapter (watch mode).
    pub(crate) chapter_globs: Vec<String>,
    /// What the text-fix stage does to the chapters (cleanup rules, conversion, typography).
    pub(crate) text: crate::text_fix::TextFix,
    /// The `cleanup.toml` beside the metadata, when there is one (an input of the build).
    pub(crate) cleanup_file: Option<PathBuf>,
    /// `[check] ignore`: findings `check` does not report.
    pub(crate) ignore: Vec<Ignore>,
    /// The mdBook `book.toml` beside the metadata, when there is one: its site root and
    /// line-hiding prefixes.
    pub(crate) mdbook: Option<MdBookSettings>,
}

/// How a book is cut into volumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Volumes {
    /// One volume per `[[parts]]` entry.
    Parts,
    /// A volume every so many chapter entries.
    Chapters(usize),
}

/// One entry of the reading order.
#[derive(Debug, Clone)]
#[non_exhaustive]
// A chapter is the common entry: boxing it would cost every book an allocation per chapter.
#[allow(clippy::large_enum_variant)]
pub enum ContentEntry {
    /// A chapter at the top level.
    Chapter(ChapterSource),
    /// A part (volume) with a title page and chapters under it.
    Part {
        /// The part's title.
        title: String,
        /// Its chapters.
        chapters: Vec<ChapterSource>,
    },
}

/// What a chapter entry's `format` says the file holds, whatever its extension (a `.txt`
/// written in pandoc's Markdown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChapterFormat {
    /// `format = "text"`: plain text.
    Text,
    /// `format = "markdown"`: Markdown (CommonMark, GFM's and pandoc's extensions).
    Markdown,
    /// `format = "html"`: HTML or XHTML.
    Html,
}

/// A chapter file and how to read it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChapterSource {
    /// Absolute (project-relative, joined) path of the file.
    pub path: PathBuf,
    /// The title given in the metadata, if any.
    pub title: Option<String>,
    /// The line of the `[[chapters]]` entry in `metadata.toml`, for messages.
    pub line: Option<usize>,
    /// Encoding forced by the entry (`encoding = "gb18030"`), by its WHATWG label.
    pub encoding: Option<String>,
    /// What to do with bytes invalid in the encoding (`encoding-errors`).
    pub encoding_errors: crate::source::EncodingErrors,
    /// Split the file into chapters (and volumes) at headings (`split = "auto"` or a regex).
    pub split: Option<crate::book::SplitMode>,
    /// Level in the table of contents (`level`): 1 at the top (or at the top of its part), 2
    /// under the chapter before it, and so on.
    pub level: usize,
    /// How the file is read when its entry says (`format = "markdown"`); None: its extension
    /// decides.
    pub format: Option<ChapterFormat>,
    /// Size and modification time from the folder listing, when the file was found by a glob
    /// (a rebuild then need not look at the file again). Not part of how to read the file.
    pub stamp: Option<FileStamp>,
    /// Only the `n`th (1-based) volume that `split` finds in the file, with the text before
    /// the first going with the first: a volume's own book when `[output] split = "parts"`
    /// cuts a novel at the volume headings inside it. None: the whole file.
    pub volume: Option<std::num::NonZeroU16>,
    /// In the reading order (`linear = false`: out of it, reached by links only, as an EPUB
    /// source's `linear="no"` spine item).
    pub linear: bool,
    /// Listed in the table of contents (`toc = false`: a page the contents do not name, as an
    /// EPUB source's spine document that no contents entry points to).
    pub toc: bool,
    /// The build writes the chapter's heading (`heading = false`: the file shows its own, or
    /// none, as an EPUB source's page does; `title` then names it in the contents only).
    pub heading: bool,
    /// The entries the table of contents lists under the chapter (`sections`), in place of its
    /// headings: an EPUB source's contents entries that point inside the document.
    pub sections: Option<Box<Sections>>,
}

/// A chapter entry's `sections`, in order (boxed in [`ChapterSource`], which most chapters
/// leave without).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sections(pub Vec<crate::book::Section>);

/// What a file's metadata says about its content, as git's index compares it: size,
/// modification time, status change time and inode. A rewrite that keeps the size and puts the
/// old modification time back still changes the status change time (and a new file written
/// over the name changes the inode), so the build cache never takes it as unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct FileStamp {
    /// Size in bytes.
    pub size: u64,
    /// Last modification, nanoseconds since the epoch (negative before it).
    pub mtime: i128,
    /// Last status change (`ctime`), nanoseconds since the epoch; 0 where the system has none.
    pub ctime: i128,
    /// The inode number; 0 where the system has none.
    pub inode: u64,
}

impl FileStamp {
    /// The stamp of a file's metadata; None where the system keeps no modification time.
    pub fn of(meta: &std::fs::Metadata) -> Option<FileStamp> {
        let mtime = nanos(meta.modified().ok()?);
        #[cfg(unix)]
        let (ctime, inode) = {
            use std::os::unix::fs::MetadataExt;
            let ctime = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
            (ctime, meta.ino())
        };
        #[cfg(not(unix))]
        let (ctime, inode) = (0, 0);
        Some(FileStamp {
            size: meta.len(),
            mtime,
            ctime,
            inode,
        })
    }

    /// The stamp of the file at `path` (following symlinks), or None when it cannot be read.
    pub fn of_path(path: &Path) -> Option<FileStamp> {
        FileStamp::of(&std::fs::metadata(path).ok()?)
    }

    /// The later of the modification and status change times: a stamp this recent may not
    /// yet tell two versions of the file apart (see the build cache's racy files).
    pub fn newest(&self) -> i128 {
        self.mtime.max(self.ctime)
    }

    /// The modification time.
    pub fn modified(&self) -> std::time::SystemTime {
        let since = std::time::Duration::from_nanos(self.mtime.unsigned_abs() as u64);
        if self.mtime >= 0 {
            std::time::UNIX_EPOCH + since
        } else {
            std::time::UNIX_EPOCH - since
        }
    }
}

/// Nanoseconds since the epoch (negative before it).
pub fn nanos(t: std::time::SystemTime) -> i128 {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// Which file a path leads to (device and inode): the same for every spelling of the path,
/// every symlink to the file and every hard link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct FileId(u64, u64);

impl FileId {
    /// The identity of the file `meta` describes; None where the system does not tell.
    pub(crate) fn of(meta: &std::fs::Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId(meta.dev(), meta.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }
}

/// How a project is loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Accept paths in `metadata.toml` that leave the project folder (absolute paths, `..`,
    /// symlinks pointing out). Off by default: a project from someone else must not be able to
    /// pull `~/.ssh/id_rsa` into a book.
    pub allow_outside_paths: bool,
}

impl Project {
    /// Loads a project from a folder holding `metadata.toml`, or from the path of a `.toml` file,
    /// refusing paths that leave the project folder.
    ///
    /// ```
    /// use epubforge::{BuildOptions, Project};
    ///
    /// // The sample book that ships with the crate; `Project::build` makes its EPUB.
    /// let project = Project::load(env!("CARGO_MANIFEST_DIR").as_ref())?;
    /// let out = tempfile::tempdir().expect("a temporary folder");
    /// let mut opts = BuildOptions::default();
    /// opts.output = Some(out.path().join("book.epub"));
    /// assert_eq!(project.build(&opts)?.chapters, 3);
    /// // A folder without a metadata.toml is no project.
    /// assert!(Project::load(out.path()).is_err());
    /// # Ok::<(), epubforge::Error>(())
    /// ```
    pub fn load(location: &Path) -> Result<Project> {
        Project::load_with(location, &LoadOptions::default())
    }

    /// [`Project::load`] with options.
    ///
    /// ```
    /// use epubforge::{LoadOptions, Project};
    ///
    /// let root = tempfile::tempdir().expect("a temporary folder");
    /// let book = root.path().join("book");
    /// std::fs::create_dir(&book).unwrap();
    /// std::fs::write(root.path().join("shared.txt"), "Text.\n").unwrap();
    /// let text = "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\n[[chapters]]\nfile = \"../shared.txt\"\n";
    /// std::fs::write(book.join("metadata.toml"), text).unwrap();
    /// // A chapter outside the project folder is refused unless the options allow it.
    /// assert!(Project::load(&book).is_err());
    /// let mut opts = LoadOptions::default();
    /// opts.allow_outside_paths = true;
    /// assert!(Project::load_with(&book, &opts).is_ok());
    /// ```
    pub fn load_with(location: &Path, opts: &LoadOptions) -> Result<Project> {
        Project::load_alongside(location, opts, |_| ()).map(|(project, _)| project)
    }

    /// [`Project::load_with`], running `alongside` on another core while the chapter files
    /// are listed, with the path [`Project::default_output`] will give. Its result is None
    /// when the metadata was refused before the listing started.
    pub(crate) fn load_alongside<T: Send>(
        location: &Path,
        opts: &LoadOptions,
        alongside: impl FnOnce(&Path) -> T + Send,
    ) -> Result<(Project, Option<T>)> {
        Project::load_looked(location, (opts, None), alongside)
    }

    /// [`Project::load_alongside`], taking the metadata of the files in `looked` (looked at
    /// just before, by the quick check of the build cache) instead of looking again.
    pub(crate) fn load_looked<T: Send>(
        location: &Path,
        (opts, looked): (&LoadOptions, Option<std::sync::Arc<LookedAt>>),
        alongside: impl FnOnce(&Path) -> T + Send,
    ) -> Result<(Project, Option<T>)> {
        let (root, metadata_path) = locate(location);
        let boundary = Boundary::new(&root, opts.allow_outside_paths);
        let text = read_metadata(&boundary, &metadata_path)?;
        let raw: raw::Metadata =
            toml::from_str(&text).map_err(|e| toml_error::to_error(&e, &text, &metadata_path))?;
        raw::validate(raw, &text, &root, &metadata_path, (opts, looked), alongside)
    }

    /// Parses and validates metadata text; `root` is the folder paths are relative to. Paths
    /// that leave `root` are refused.
    #[cfg(test)]
    pub(crate) fn from_str(text: &str, root: &Path, metadata_path: &Path) -> Result<Project> {
        Project::from_str_with(text, root, metadata_path, &LoadOptions::default())
    }

    /// [`Project::from_str`] with options.
    pub(crate) fn from_str_with(
        text: &str,
        root: &Path,
        metadata_path: &Path,
        opts: &LoadOptions,
    ) -> Result<Project> {
        Project::parse_alongside(text, root, metadata_path, opts, |_| ())
            .map(|(project, _)| project)
    }

    /// [`Project::from_str_with`], with work alongside the listing ([`Project::load_alongside`]).
    fn parse_alongside<T: Send>(
        text: &str,
        root: &Path,
        metadata_path: &Path,
        opts: &LoadOptions,
        alongside: impl FnOnce(&Path) -> T + Send,
    ) -> Result<(Project, Option<T>)> {
        let raw: raw::Metadata =
            toml::from_str(text).map_err(|e| toml_error::to_error(&e, text, metadata_path))?;
        raw::validate(raw, text, root, metadata_path, (opts, None), alongside)
    }

    /// Every chapter in reading order, flattened out of parts.
    pub(crate) fn chapters(&self) -> impl Iterator<Item = &ChapterSource> {
        self.contents.iter().flat_map(|entry| match entry {
            ContentEntry::Chapter(c) => std::slice::from_ref(c).iter(),
            ContentEntry::Part { chapters, .. } => chapters.iter(),
        })
    }

    /// The output path used when the command line gives none: `[output] path`, else
    /// `build/<title>.epub` under the project folder.
    pub(crate) fn default_output(&self) -> PathBuf {
        default_output(&self.root, &self.book.title, self.output.as_deref())
    }

    /// Where the EPUB goes: `given` on the command line (anywhere the user likes), else
    /// [`Project::default_output`], which must stay in the project folder. Refused either way:
    /// one of the book's own inputs, or something that is not a regular file.
    pub(crate) fn output_for(&self, given: Option<&Path>) -> Result<PathBuf> {
        output::output_for(self, given)
    }
}

/// The project folder and metadata file of `location` (a folder holding `metadata.toml`, or
/// the path of a `.toml` file), spelled as the command line spells them.
pub(crate) fn locate(location: &Path) -> (PathBuf, PathBuf) {
    let metadata = if location.is_dir() {
        location.join(METADATA_FILE)
    } else {
        location.to_path_buf()
    };
    let root = metadata
        .parent()
        .map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    (root, metadata)
}

/// The folder, under the project folder, where a book goes when neither the command line nor
/// `[output] path` says where.
pub(crate) const OUTPUT_FOLDER: &str = "build";

/// The text of `metadata.toml`: a regular file (a FIFO would block the read forever) of at
/// most [`METADATA_LIMIT`] bytes, in UTF-8, opened through the project folder's `boundary`
/// like every other file of the project (a symlink to a file outside is refused).
pub(crate) fn read_metadata(boundary: &Boundary, path: &Path) -> Result<String> {
    let bytes = boundary
        .read_limited(path, METADATA_LIMIT, "metadata file")
        .map_err(|e| match e {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => Error::io(
                path,
                "no metadata file here (`epubforge init` writes one from the chapter files; or point at a folder that has metadata.toml)",
                source,
            ),
            other => other,
        })?;
    String::from_utf8(bytes).map_err(|e| Error::Metadata {
        path: path.to_path_buf(),
        message: format!(
            "not UTF-8 text (invalid bytes at byte {})",
            e.utf8_error().valid_up_to()
        ),
        hint: Some("save metadata.toml as UTF-8".into()),
    })
}

/// [`Project::default_output`] from its parts.
fn default_output(root: &Path, title: &str, output: Option<&Path>) -> PathBuf {
    match output {
        Some(path) => path.to_path_buf(),
        None => root
            .join(OUTPUT_FOLDER)
            .join(format!("{}.epub", file_name_for(title))),
    }
}

/// The folder, beside the EPUB, that holds the build cache (`crate::incremental`): part of
/// the project folder's layout, which globs and batch runs skip.
pub const CACHE_DIR: &str = ".epubforge-cache";

/// What the record of an EPUB adds to the EPUB's file name (the default output's name leaves
/// room for it).
pub const RECORD_SUFFIX: &str = ".record";

/// Document formats books are written in that we do not read, by extension (compared without
/// case): their name and what converts them to Markdown or HTML. A file of one of them is
/// refused by name (by `init`, `build` and `check`), never read as text.
pub const UNSUPPORTED_KINDS: [(&str, &str, &str); 9] = [
    ("adoc", "AsciiDoc", "asciidoctor or pandoc"),
    ("asc", "AsciiDoc", "asciidoctor or pandoc"),
    ("asciidoc", "AsciiDoc", "asciidoctor or pandoc"),
    ("rst", "reStructuredText", "pandoc or docutils (rst2html)"),
    ("tex", "LaTeX", "pandoc"),
    ("docx", "DOCX (Word)", "pandoc"),
    ("odt", "ODT (OpenDocument text)", "pandoc"),
    (
        "doc",
        "Word 97-2003 (.doc)",
        "LibreOffice (soffice --convert-to docx), then pandoc",
    ),
    ("rtf", "RTF", "LibreOffice or pandoc"),
];

/// The name of the format of a file we do not read (see [`UNSUPPORTED_KINDS`]) and what
/// converts it; None for any other file.
pub fn unsupported_kind(path: &Path) -> Option<(&'static str, &'static str)> {
    let ext = path.extension()?.to_str()?;
    UNSUPPORTED_KINDS
        .iter()
        .find(|(name, _, _)| ext.eq_ignore_ascii_case(name))
        .map(|&(_, format, tool)| (format, tool))
}

/// The longest file name, in bytes, that common file systems take (ext4, XFS, Btrfs, APFS,
/// NTFS in UTF-16 units).
const NAME_MAX: usize = 255;

/// What the build cache adds to the EPUB's name for its record: the EPUB's name is cut so
/// that the record's fits too.
const CACHE_SUFFIX: usize = RECORD_SUFFIX.len();

/// Turns a title into a file name that every file system accepts, keeping CJK as it is, cut
/// on a character boundary so that `<name>.epub` and its cache files fit [`NAME_MAX`] bytes.
fn file_name_for(title: &str) -> String {
    let cleaned: String = title
        .trim()
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    let cleaned = cleaned.trim_matches(|c: char| c == '.' || c.is_whitespace());
    let room = NAME_MAX - ".epub".len() - CACHE_SUFFIX;
    let mut end = cleaned.len().min(room);
    while !cleaned.is_char_boundary(end) {
        end -= 1;
    }
    let cut = cleaned[..end].trim_end_matches(|c: char| c == '.' || c.is_whitespace());
    if cut.is_empty() {
        "book".to_string()
    } else {
        cut.to_string()
    }
}

/// Compares file names so that numbers sort by value: `2.txt` before `10.txt`.
///
/// Runs of digits compare by value, then (between equal values) the one with fewer leading
/// zeros first; everything else compares by character.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    natural_key(a).cmp(&natural_key(b))
}

/// A byte string whose plain order is [`natural_cmp`]'s, to sort many names by (each key is
/// built once instead of at every comparison).
///
/// A run of digits becomes `'0'`, its length without leading zeros (4 bytes, big-endian), the
/// digits without leading zeros, and its full length: a digit sorts against other characters
/// as `'0'` would (every other character is below `'0'` or above `'9'`), and numbers compare
/// by length first, then digits, then zeros. Other characters are kept as UTF-8, whose byte
/// order is character order.
pub fn natural_key(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut key = Vec::with_capacity(bytes.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let end = bytes[i..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map_or(bytes.len(), |n| i + n);
            let run = &bytes[i..end];
            let value = &run[run.iter().take_while(|&&b| b == b'0').count()..];
            key.push(b'0');
            key.extend_from_slice(&(value.len() as u32).to_be_bytes());
            key.extend_from_slice(value);
            key.extend_from_slice(&(run.len() as u32).to_be_bytes());
            i = end;
        } else {
            key.push(bytes[i]);
            i += 1;
        }
    }
    key
}

/// Whether `path` ends in one of `extensions`, in any case.
pub(crate) fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_alongside_the_listing_gets_the_default_output() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.txt"), "一").unwrap();
        let book = "[book]\ntitle = \"书: 一\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
                    [[chapters]]\nglob = \"*.txt\"\n";
        for extra in ["", "[output]\npath = \"out/x.epub\"\n"] {
            std::fs::write(dir.path().join(METADATA_FILE), format!("{book}{extra}")).unwrap();
            let (project, seen) =
                Project::load_alongside(dir.path(), &LoadOptions::default(), |p| p.to_path_buf())
                    .unwrap();
            assert_eq!(seen, Some(project.default_output()), "{extra}");
            assert_eq!(
                project.chapters().count(),
                1,
                "the listing is not disturbed"
            );
        }
        // Refused before the listing: nothing runs alongside.
        std::fs::write(
            dir.path().join(METADATA_FILE),
            book.replace("zh-CN", "chinese!"),
        )
        .unwrap();
        let ran = std::sync::atomic::AtomicBool::new(false);
        assert!(
            Project::load_alongside(dir.path(), &LoadOptions::default(), |_| ran
                .store(true, std::sync::atomic::Ordering::SeqCst))
            .is_err()
        );
        assert!(!ran.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[test]
    fn natural_order_puts_2_before_10_and_keeps_text_order() {
        let mut names = vec![
            "c10.txt", "c2.txt", "c1.txt", "b.txt", "c02.txt", "a100.txt",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "a100.txt", "b.txt", "c1.txt", "c2.txt", "c02.txt", "c10.txt"
            ]
        );
    }

    #[test]
    fn natural_order_compares_numbers_whole_across_a_shared_prefix() {
        let mut names = vec![
            "ch/0019.txt",
            "ch/0101.txt",
            "ch/2.txt",
            "ch/0100.txt",
            "ch/10.txt",
            "第10章.txt",
            "第1章.txt",
            "第九章.txt",
            "ch/1000.txt",
            "ch/100a.txt",
            "ch/100.txt",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "ch/2.txt",
                "ch/10.txt",
                "ch/0019.txt",
                "ch/100.txt",
                "ch/100a.txt",
                "ch/0100.txt",
                "ch/0101.txt",
                "ch/1000.txt",
                "第1章.txt",
                "第10章.txt",
                "第九章.txt",
            ]
        );
    }

    #[test]
    fn file_name_for_keeps_cjk_and_replaces_separators() {
        assert_eq!(file_name_for("安西/烽火: 卷一"), "安西_烽火_ 卷一");
        assert_eq!(file_name_for(" .. "), "book");
    }

    #[test]
    fn file_name_for_cuts_long_titles_on_a_character_boundary_within_the_limit() {
        for title in [
            "长".repeat(100),
            "a".repeat(400),
            format!("x{}", "é".repeat(200)),
        ] {
            let name = format!("{}.epub", file_name_for(&title));
            assert!(
                name.len() + CACHE_SUFFIX <= NAME_MAX,
                "{} bytes",
                name.len()
            );
            assert!(
                name.len() + CACHE_SUFFIX > NAME_MAX - 4,
                "cut too short: {name}"
            );
            assert!(title.starts_with(name.trim_end_matches(".epub")));
        }
        assert_eq!(file_name_for(&"长".repeat(20)), "长".repeat(20));
    }
}
