//! `metadata.toml` as written, and its validation into [`Project`].

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::boundary::{Boundary, Found, Outside};
use super::context::{Ctx, Seen};
use super::glob::{GlobError, Skip};
use super::values::{self, Lines as ValueLines};
use super::{
    BookInfo, ChapterSource, ContentEntry, FileStamp, Person, Project, Series, has_extension,
};
use crate::book::SplitMode;
use crate::book::Target;
use crate::error::{Error, Result};
use crate::escape;
use crate::project::Volumes;
use crate::source::EncodingErrors;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct Metadata {
    book: Spanned<Book>,
    #[serde(default)]
    chapters: Vec<Spanned<Chapter>>,
    #[serde(default)]
    parts: Vec<Spanned<Part>>,
    #[serde(default)]
    suffix_chapters: Vec<Spanned<Chapter>>,
    #[serde(default)]
    output: Output,
    #[serde(default)]
    style: super::layout::RawStyle,
    #[serde(default)]
    layout: super::layout::RawLayout,
    #[serde(default)]
    text: super::text::RawText,
    #[serde(default)]
    cleanup: Vec<Spanned<super::text::RawRule>>,
    #[serde(default)]
    check: super::ignore::RawCheck,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Book {
    title: Spanned<String>,
    subtitle: Option<Spanned<String>>,
    authors: Spanned<Vec<RawPerson>>,
    contributors: Option<Spanned<Vec<RawPerson>>>,
    language: Spanned<String>,
    identifier: Option<Spanned<String>>,
    publisher: Option<Spanned<String>>,
    description: Option<Spanned<String>>,
    #[serde(default)]
    subjects: Vec<Spanned<String>>,
    rights: Option<Spanned<String>>,
    published: Option<Spanned<toml::value::Datetime>>,
    series: Option<Spanned<String>>,
    series_index: Option<Spanned<toml::Value>>,
    cover: Option<Spanned<String>>,
    convert: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawPerson {
    Name(String),
    Full(FullPerson),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct FullPerson {
    name: String,
    file_as: Option<String>,
    role: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Chapter {
    file: Option<Spanned<String>>,
    glob: Option<Spanned<String>>,
    title: Option<String>,
    encoding: Option<String>,
    encoding_errors: Option<String>,
    split: Option<String>,
    volume_split: Option<String>,
    level: Option<Spanned<i64>>,
    format: Option<String>,
    linear: Option<bool>,
    toc: Option<bool>,
    heading: Option<bool>,
    sections: Option<Vec<RawSection>>,
}

/// One entry of a chapter's `sections`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSection {
    id: String,
    title: String,
    level: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Part {
    title: String,
    #[serde(default)]
    chapters: Vec<Spanned<Chapter>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Output {
    path: Option<Spanned<String>>,
    epub_version: Option<Spanned<i64>>,
    targets: Option<Vec<Spanned<String>>>,
    split: Option<Spanned<RawSplit>>,
}

/// `[output] split`: `"parts"` or `{ chapters = N }`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawSplit {
    Name(String),
    Chapters { chapters: i64 },
}

/// Image extensions we accept as a cover, lower case.
pub(crate) const COVER_EXTENSIONS: [&str; 6] = ["jpg", "jpeg", "png", "gif", "webp", "svg"];

pub(super) fn validate<T: Send>(
    raw: Metadata,
    text: &str,
    root: &Path,
    path: &Path,
    opts: &super::LoadOptions,
    alongside: impl FnOnce(&Path) -> T + Send,
) -> Result<(Project, Option<T>)> {
    let boundary = Boundary::new(root, opts.allow_outside_paths);
    let ctx = Ctx::new(text, root, path, boundary);
    if let Ok(meta) = std::fs::metadata(path) {
        ctx.saw(&meta);
    }
    let book_span = raw.book.span().start;
    let mut raw_book = raw.book.into_inner();
    let convert = raw_book.convert.take();
    let mut book = validate_book(raw_book, &ctx, book_span)?;
    // Checked by the build, and only when the command line names no output of its own.
    let output_at = raw.output.path.as_ref().map(|p| p.span().start);
    let output = raw.output.path.map(|p| root.join(p.into_inner()));
    // The layout and the text settings come first: a converted book's title names its EPUB.
    let layout = super::layout::validate_layout(raw.layout, &ctx)?;
    let raw_text = (raw.cleanup, raw.text, convert);
    let chapters = (raw.chapters, raw.parts, raw.suffix_chapters);
    let TextAndContents {
        text_fix,
        cleanup_file,
        contents,
        beside,
    } = text_and_contents(
        raw_text,
        chapters,
        &ctx,
        &mut book.0,
        &layout,
        output.as_deref(),
        alongside,
    )?;
    let ignore = super::ignore::validate(raw.check, ctx.text, ctx.path)?;

    let style = super::layout::validate_style(raw.style, &ctx)?;
    let epub_version = super::layout::validate_version(raw.output.epub_version, &ctx)?;
    let targets = validate_targets(raw.output.targets.unwrap_or_default(), &ctx)?;
    let volumes = raw
        .output
        .split
        .map(|s| validate_split(s, &ctx))
        .transpose()?;
    let Seen {
        ids: mut input_ids,
        globs: chapter_globs,
    } = ctx.seen.into_inner().unwrap_or_default();
    input_ids.sort_unstable();
    input_ids.dedup();
    let mdbook = super::mdbook::read(root, &ctx.boundary);
    let project = Project {
        mdbook,
        text: text_fix,
        cleanup_file,
        ignore,
        style,
        layout,
        epub_version,
        targets,
        volumes,
        root: root.to_path_buf(),
        metadata_path: path.to_path_buf(),
        book: book.0,
        contents,
        cover: book.1,
        output,
        output_at,
        boundary: ctx.boundary,
        input_ids,
        chapter_globs,
    };
    Ok((project, beside))
}

impl Skip {
    /// What globs never take in the project at `root`: its metadata file `path`, and the
    /// default output when it lies `inside` the project.
    fn of(root: &Path, path: &Path, default_output: &Path, inside: bool) -> Skip {
        Skip {
            root: root.to_path_buf(),
            metadata: path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into(),
            output: default_output
                .strip_prefix(root)
                .ok()
                .filter(|_| inside)
                .map(super::glob::slashed),
        }
    }
}

/// The text-fix stage and the chapters, with what `alongside` makes of the default output
/// when that lies inside the project. A conversion builds its tables (some milliseconds)
/// before it converts the title that names the EPUB: the chapters are listed meanwhile (what
/// globs skip does not depend on the title: they skip the default output's folder whole).
fn text_and_contents<T: Send>(
    raw_text: RawTextFix,
    chapters: RawContents,
    ctx: &Ctx,
    book: &mut BookInfo,
    layout: &super::Layout,
    output: Option<&Path>,
    alongside: impl FnOnce(&Path) -> T + Send,
) -> Result<TextAndContents<T>> {
    let mut chapters = Some(chapters);
    let list = |chapters: Option<RawContents>, skip: &Skip| {
        let (chapters, parts, suffix) = chapters.expect("the chapters are listed once");
        contents(chapters, parts, suffix, ctx, skip)
    };
    let early_skip = raw_text.2.is_some().then(|| {
        let output = super::default_output(ctx.root, &book.title, output);
        Skip::of(
            ctx.root,
            ctx.path,
            &output,
            ctx.boundary.check(&output).is_ok(),
        )
    });
    let (fixed, early) = rayon::join(
        || text_fix(raw_text, ctx, book, layout),
        || early_skip.as_ref().map(|skip| list(chapters.take(), skip)),
    );
    let (text_fix, cleanup_file) = fixed?;
    let default_output = super::default_output(ctx.root, &book.title, output);
    // The build cache beside an output that leads outside is not read: the build refuses it.
    let inside = ctx.boundary.check(&default_output).is_ok();
    let (contents, beside) = match early {
        Some(listed) => (listed, inside.then(|| alongside(&default_output))),
        None => {
            let skip = Skip::of(ctx.root, ctx.path, &default_output, inside);
            rayon::join(
                || list(chapters.take(), &skip),
                || inside.then(|| alongside(&default_output)),
            )
        }
    };
    Ok(TextAndContents {
        text_fix,
        cleanup_file,
        contents: contents?,
        beside,
    })
}

/// What [`text_and_contents`] makes.
struct TextAndContents<T> {
    text_fix: crate::text_fix::TextFix,
    cleanup_file: Option<PathBuf>,
    contents: Vec<ContentEntry>,
    beside: Option<T>,
}

/// The chapters, parts and chapters after the parts, as written.
type RawContents = (
    Vec<Spanned<Chapter>>,
    Vec<Spanned<Part>>,
    Vec<Spanned<Chapter>>,
);

/// `[[cleanup]]`, `[text]` and `[book] convert`, as written.
type RawTextFix = (
    Vec<Spanned<super::text::RawRule>>,
    super::text::RawText,
    Option<Spanned<String>>,
);

/// The text-fix stage from `[[cleanup]]`, `[text]` and `[book] convert` (`raw`), with the
/// shared `cleanup.toml` when there is one; converts `book`'s metadata when the book is.
fn text_fix(
    raw: RawTextFix,
    ctx: &Ctx,
    book: &mut BookInfo,
    layout: &super::Layout,
) -> Result<(crate::text_fix::TextFix, Option<PathBuf>)> {
    let cleanup_file = cleanup_file(ctx)?;
    let (rules, settings, convert) = raw;
    let input = super::text::Input {
        text: ctx.text,
        path: ctx.path,
        rules,
        settings,
        convert,
        cleanup_file: cleanup_file.clone(),
        boundary: &ctx.boundary,
    };
    Ok((super::text::validate(input, book, layout)?, cleanup_file))
}

/// The shared `cleanup.toml` beside `metadata.toml`, when there is one: through the same
/// containment check as every path the project names (it may be a symlink leading out), and a
/// regular file (a FIFO or a folder by that name is an error, not a file silently skipped).
fn cleanup_file(ctx: &Ctx) -> Result<Option<PathBuf>> {
    let name = super::text::CLEANUP_FILE;
    let error = |message: String, hint: &str| Error::Metadata {
        path: ctx.root.join(name),
        message,
        hint: Some(hint.into()),
    };
    let (path, found) = (ctx.boundary.admit_file(ctx.root, name)).map_err(|outside| {
        let leads = outside.describe(name, ctx.root);
        error(
            format!("the shared cleanup rules file {leads}"),
            Outside::HINT,
        )
    })?;
    match found {
        Found::File { meta, .. } => {
            ctx.saw(&meta);
            Ok(Some(path))
        }
        Found::Missing => Ok(None),
        Found::NotRegular(kind) => Err(error(
            format!(
                "{} is {kind}, not a regular file",
                crate::escape::path(&path)
            ),
            "make cleanup.toml a file of [[cleanup]] rules, or remove it",
        )),
    }
}

/// `[output] split`: `"parts"` or `{ chapters = N }` with N at least 1.
fn validate_split(raw: Spanned<RawSplit>, ctx: &Ctx) -> Result<Volumes> {
    let at = raw.span().start;
    match raw.into_inner() {
        RawSplit::Name(name) if name == "parts" => Ok(Volumes::Parts),
        RawSplit::Chapters { chapters } if chapters >= 1 => Ok(Volumes::Chapters(
            usize::try_from(chapters).unwrap_or(usize::MAX),
        )),
        _ => Err(ctx.error_at(
            at,
            "`[output] split` is \"parts\" (a volume per [[parts]] entry) or \
             { chapters = N } (a volume every N chapters, N at least 1)",
        )),
    }
}

/// `[output] targets`: each a target's name.
fn validate_targets(raw: Vec<Spanned<String>>, ctx: &Ctx) -> Result<Vec<Target>> {
    raw.into_iter()
        .map(|name| {
            Target::parse(name.get_ref()).ok_or_else(|| {
                ctx.error_at(
                    name.span().start,
                    format!(
                        "`[output] targets`: \"{}\" is not a target (epub, kobo, kindle, apple)",
                        name.get_ref()
                    ),
                )
            })
        })
        .collect()
}

/// The reading order: every chapter entry expanded, parts with theirs.
fn contents(
    chapters: Vec<Spanned<Chapter>>,
    parts: Vec<Spanned<Part>>,
    suffix_chapters: Vec<Spanned<Chapter>>,
    ctx: &Ctx<'_>,
    skip: &Skip,
) -> Result<Vec<ContentEntry>> {
    let mut contents = Vec::new();
    for chapter in chapters {
        // Extended at once, not pushed one by one: a glob can bring thousands of 192-byte
        // entries, and growing a vector by doubling copies them again and again.
        contents.extend(
            expand(chapter, ctx, skip)?
                .into_iter()
                .map(ContentEntry::Chapter),
        );
    }
    for part in parts {
        let offset = part.span().start;
        let part = part.into_inner();
        let title = values::clean(&part.title, ValueLines::One);
        if title.is_empty() && !part.title.trim().is_empty() {
            let message = format!("a [[parts]] entry's {}", values::nothing_left("title"));
            return Err(ctx.error_hinted(offset, message, values::NOTHING_LEFT_HINT));
        }
        if title.is_empty() {
            return Err(ctx.error_at(offset, "a [[parts]] entry has an empty `title`"));
        }
        let mut chapters = Vec::new();
        for chapter in part.chapters {
            chapters.extend(expand(chapter, ctx, skip)?);
        }
        if chapters.is_empty() {
            return Err(ctx.error_hinted(
                offset,
                format!("part \"{title}\" has no chapters"),
                "add [[parts.chapters]] entries under it",
            ));
        }
        contents.push(ContentEntry::Part { title, chapters });
    }
    for chapter in suffix_chapters {
        contents.extend(
            expand(chapter, ctx, skip)?
                .into_iter()
                .map(ContentEntry::Chapter),
        );
    }
    if contents.is_empty() {
        return Err(Error::Metadata {
            path: ctx.path.to_path_buf(),
            message: "the book has no chapters".into(),
            hint: Some(
                "add entries such as\n\n  [[chapters]]\n  file = \"chapters/001.txt\"\n".into(),
            ),
        });
    }
    Ok(contents)
}

fn validate_book(raw: Book, ctx: &Ctx, book_span: usize) -> Result<(BookInfo, Option<PathBuf>)> {
    let title = required_text(&raw.title, "title", ctx)?;
    let authors_at = raw.authors.span().start;
    let authors = people(raw.authors, "authors", "aut", ctx)?;
    if authors.is_empty() {
        return Err(ctx.error_at(
            authors_at,
            "`authors` needs at least one name, e.g. authors = [\"佚名\"]",
        ));
    }
    let contributors = match raw.contributors {
        Some(c) => people(c, "contributors", "ctb", ctx)?,
        None => Vec::new(),
    };

    let language = raw.language.get_ref().trim().to_string();
    if !is_language_tag(&language) {
        return Err(ctx.error_hinted(
            raw.language.span().start,
            format!(
                "`language` = \"{}\" is not a BCP 47 tag",
                escape::value(&language)
            ),
            "use e.g. \"zh-CN\", \"zh-TW\", \"ja\" or \"en\"",
        ));
    }

    let identifier = match &raw.identifier {
        Some(id) => identifier(id, ctx)?,
        None => default_identifier(&title, &authors),
    };

    let published = raw.published.map(|d| published(d, ctx)).transpose()?;
    let series_name = optional_text(raw.series.as_ref(), "series", ValueLines::One, ctx)?;
    let series = series(series_name, raw.series_index, ctx)?;
    let cover = cover(raw.cover, ctx, book_span)?;
    let subjects = (raw.subjects.iter())
        .map(|s| optional_text(Some(s), "subjects", ValueLines::One, ctx))
        .filter_map(Result::transpose)
        .collect::<Result<Vec<String>>>()?;

    let info = BookInfo {
        title,
        subtitle: optional_text(raw.subtitle.as_ref(), "subtitle", ValueLines::One, ctx)?,
        authors,
        contributors,
        language,
        identifier,
        publisher: optional_text(raw.publisher.as_ref(), "publisher", ValueLines::One, ctx)?,
        description: optional_text(
            raw.description.as_ref(),
            "description",
            ValueLines::Many,
            ctx,
        )?,
        subjects,
        rights: optional_text(raw.rights.as_ref(), "rights", ValueLines::Many, ctx)?,
        published,
        series,
    };
    Ok((info, cover))
}

/// A value that must have text: cleaned ([`values::clean`]); an error naming `key` when
/// nothing is left.
fn required_text(raw: &Spanned<String>, key: &str, ctx: &Ctx) -> Result<String> {
    let value = values::clean(raw.get_ref(), ValueLines::One);
    if value.is_empty() {
        return Err(empty_value(raw, key, ctx));
    }
    Ok(value)
}

/// An optional value, cleaned: None when written empty; an error naming `key` when it had
/// text and nothing is left once cleaned.
fn optional_text(
    raw: Option<&Spanned<String>>,
    key: &str,
    lines: ValueLines,
    ctx: &Ctx,
) -> Result<Option<String>> {
    let Some(raw) = raw else {
        return Ok(None);
    };
    if raw.get_ref().trim().is_empty() {
        return Ok(None);
    }
    let value = values::clean(raw.get_ref(), lines);
    if value.is_empty() {
        return Err(empty_value(raw, key, ctx));
    }
    Ok(Some(value))
}

/// `key` (at `raw`) is empty, or has nothing once cleaned.
fn empty_value(raw: &Spanned<String>, key: &str, ctx: &Ctx) -> Error {
    let at = raw.span().start;
    if raw.get_ref().trim().is_empty() {
        return ctx.error_at(at, format!("`{key}` is empty"));
    }
    ctx.error_hinted(at, values::nothing_left(key), values::NOTHING_LEFT_HINT)
}

/// `identifier`: cleaned, then checked by its scheme.
fn identifier(raw: &Spanned<String>, ctx: &Ctx) -> Result<String> {
    let value = required_text(raw, "identifier", ctx)?;
    values::check_identifier(&value)
        .map_err(|bad| ctx.error_hinted(raw.span().start, bad.message, bad.hint))?;
    Ok(value)
}

/// `authors` or `contributors` (under `key`): names cleaned, empty ones left out; an error
/// when a name written with text has none once cleaned.
fn people(
    raw: Spanned<Vec<RawPerson>>,
    key: &str,
    default_role: &str,
    ctx: &Ctx,
) -> Result<Vec<Person>> {
    let at = raw.span().start;
    let mut people = Vec::new();
    for p in raw.into_inner() {
        let written = match &p {
            RawPerson::Name(name) | RawPerson::Full(FullPerson { name, .. }) => name.clone(),
        };
        let person = person(p, default_role);
        if person.name.is_empty() && !written.trim().is_empty() {
            let message = format!("{} (a name)", values::nothing_left(key));
            return Err(ctx.error_hinted(at, message, values::NOTHING_LEFT_HINT));
        }
        if !person.name.is_empty() {
            people.push(person);
        }
    }
    Ok(people)
}

/// `published`: a date (a time of day alone is refused), as `YYYY-MM-DD`.
fn published(date: Spanned<toml::value::Datetime>, ctx: &Ctx) -> Result<String> {
    let span = date.span().start;
    match date.into_inner().date {
        Some(d) => Ok(format!("{:04}-{:02}-{:02}", d.year, d.month, d.day)),
        None => Err(ctx.error_at(span, "`published` must be a date, e.g. 2026-11-29")),
    }
}

/// `series` (cleaned) and `series-index`: an index needs a series name.
fn series(
    name: Option<String>,
    index: Option<Spanned<toml::Value>>,
    ctx: &Ctx,
) -> Result<Option<Series>> {
    match name {
        Some(name) => Ok(Some(Series {
            name,
            index: index.map(|v| series_index(&v, ctx)).transpose()?,
        })),
        _ => match index {
            Some(v) => Err(ctx.error_hinted(
                v.span().start,
                "`series-index` is set but `series` is not".to_string(),
                "add series = \"...\"",
            )),
            None => Ok(None),
        },
    }
}

/// `cover`, or the image found in `covers/`: a regular file inside the project either way
/// (the default one may be a symlink that points anywhere).
fn cover(raw: Option<Spanned<String>>, ctx: &Ctx, book_span: usize) -> Result<Option<PathBuf>> {
    if let Some(c) = raw {
        return Ok(Some(
            ctx.input_file("`cover`", c.get_ref(), c.span().start)?.0,
        ));
    }
    let found = default_cover(ctx.root).map_err(|(m, h)| ctx.error_hinted(book_span, m, h))?;
    if let Some(p) = &found {
        let shown = p.strip_prefix(ctx.root).unwrap_or(p).to_string_lossy();
        ctx.input_file("`cover`", &shown, book_span)?;
    }
    Ok(found)
}

/// A value cleaned as a line ([`values::clean`]), None when nothing is left.
fn non_empty(s: Option<String>) -> Option<String> {
    s.map(|s| values::clean(&s, ValueLines::One))
        .filter(|s| !s.is_empty())
}

/// A person, every value cleaned as a line ([`values::clean`]).
fn person(raw: RawPerson, default_role: &str) -> Person {
    match raw {
        RawPerson::Name(name) => Person {
            name: values::clean(&name, ValueLines::One),
            file_as: None,
            role: default_role.to_string(),
        },
        RawPerson::Full(p) => Person {
            name: values::clean(&p.name, ValueLines::One),
            file_as: non_empty(p.file_as),
            role: non_empty(p.role).unwrap_or_else(|| default_role.to_string()),
        },
    }
}

fn series_index(v: &Spanned<toml::Value>, ctx: &Ctx) -> Result<String> {
    match v.get_ref() {
        toml::Value::Integer(i) if *i >= 0 => Ok(i.to_string()),
        toml::Value::Float(f) if *f >= 0.0 && f.is_finite() => Ok(f.to_string()),
        toml::Value::String(s) if s.trim().parse::<f64>().is_ok() => Ok(s.trim().to_string()),
        _ => Err(ctx.error_at(
            v.span().start,
            "`series-index` must be a non-negative number, e.g. series-index = 2",
        )),
    }
}

/// A syntactic check of a BCP 47 tag: letters for the language, then subtags of 1-8 letters or
/// digits.
pub(crate) fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let Some(first) = parts.next() else {
        return false;
    };
    (2..=8).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// A UUID derived from title and authors, so that rebuilding keeps the same identifier.
fn default_identifier(title: &str, authors: &[Person]) -> String {
    let mut key = format!("epubforge:{title}");
    for a in authors {
        key.push('\n');
        key.push_str(&a.name);
    }
    let id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, key.as_bytes());
    format!("urn:uuid:{id}")
}

/// The one image in `covers/`, if there is exactly one.
fn default_cover(root: &Path) -> std::result::Result<Option<PathBuf>, (String, &'static str)> {
    let dir = root.join("covers");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(None);
    };
    let mut images: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && has_extension(p, &COVER_EXTENSIONS))
        .collect();
    images.sort();
    match images.len() {
        0 => Ok(None),
        1 => Ok(images.pop()),
        _ => Err((
            format!(
                "covers/ holds {} images and `cover` does not say which is the cover",
                images.len()
            ),
            "add cover = \"covers/<file>\" to [book]",
        )),
    }
}

/// One `[[chapters]]` entry: a file, or the files a glob matches in natural order.
fn expand(entry: Spanned<Chapter>, ctx: &Ctx, skip: &Skip) -> Result<Vec<ChapterSource>> {
    let offset = entry.span().start;
    let line = Some(ctx.line_of(offset));
    let entry = entry.into_inner();
    let title = chapter_title(entry.title.as_deref(), ctx, offset)?;
    if let Some(enc) = &entry.encoding
        && encoding_rs::Encoding::for_label(enc.trim().as_bytes()).is_none()
    {
        return Err(ctx.error_hinted(
            offset,
            format!("unknown encoding \"{enc}\""),
            "use a WHATWG label such as \"utf-8\", \"gb18030\", \"gbk\", \"big5\", \"shift_jis\"",
        ));
    }
    let encoding_errors = match entry.encoding_errors.as_deref().map(str::trim) {
        None | Some("fail") => EncodingErrors::Fail,
        Some("replace") => EncodingErrors::Replace,
        Some(other) => {
            return Err(ctx.error_at(
                offset,
                format!("`encoding-errors` = \"{other}\" is not one of \"fail\", \"replace\""),
            ));
        }
    };
    let split = match (&entry.split, &entry.volume_split) {
        (None, None) => None,
        (None, Some(_)) => {
            return Err(ctx.error_at(
                offset,
                "`volume-split` needs `split` too, e.g. split = \"第.+章\"",
            ));
        }
        (Some(split), volume) => Some(
            SplitMode::from_config(split, volume.as_deref())
                .map_err(|e| ctx.error_at(offset, format!("{e}")))?,
        ),
    };
    // A file cut at heading levels may name the text before its first heading.
    if split.is_some() && title.is_some() && !matches!(split, Some(SplitMode::Headings(_))) {
        return Err(ctx.error_at(
            offset,
            "`title` cannot be used with `split` (each chapter found in the file gets its heading as title)",
        ));
    }
    let level = chapter_level(entry.level.as_ref(), split.is_some(), ctx)?;
    let format = chapter_format(entry.format.as_deref(), ctx, offset)?;
    let template = ChapterSource {
        path: PathBuf::new(),
        title,
        line,
        encoding: entry.encoding.clone(),
        encoding_errors,
        split,
        level,
        format,
        stamp: None,
        volume: None,
        linear: entry.linear.unwrap_or(true),
        toc: entry.toc.unwrap_or(true),
        heading: entry.heading.unwrap_or(true),
        sections: chapter_sections(entry.sections, ctx, offset)?,
    };
    match (&entry.file, &entry.glob) {
        (Some(file), None) => chapter_file(ctx, file, template).map(|c| vec![c]),
        (None, Some(_)) if template.title.is_some() => Err(ctx.error_at(
            offset,
            "`title` cannot be used with `glob` (each matched file gets its own title)",
        )),
        (None, Some(pattern)) => chapter_glob(ctx, skip, pattern, offset, &template),
        (Some(_), Some(_)) => Err(ctx.error_at(
            offset,
            "a chapter entry has both `file` and `glob`; use one of them",
        )),
        (None, None) => Err(ctx.error_at(
            offset,
            "a chapter entry needs `file = \"...\"` or `glob = \"...\"`",
        )),
    }
}

/// A chapter entry's `title` (at `offset`), cleaned: None when written empty; an error when
/// it had text and nothing is left.
fn chapter_title(title: Option<&str>, ctx: &Ctx, offset: usize) -> Result<Option<String>> {
    let Some(written) = title.filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    match values::clean(written, ValueLines::One) {
        t if t.is_empty() => {
            let message = format!("a chapter entry's {}", values::nothing_left("title"));
            Err(ctx.error_hinted(offset, message, values::NOTHING_LEFT_HINT))
        }
        t => Ok(Some(t)),
    }
}

/// A chapter entry's `sections`: each an id, a title and a level from 2 (right under the
/// chapter) to 6, 2 when not given.
fn chapter_sections(
    sections: Option<Vec<RawSection>>,
    ctx: &Ctx,
    offset: usize,
) -> Result<Option<Box<super::Sections>>> {
    let Some(sections) = sections else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(sections.len());
    for s in sections {
        let level = s.level.unwrap_or(2);
        if !(2..=MAX_LEVEL).contains(&level) || s.id.trim().is_empty() {
            return Err(ctx.error_at(
                offset,
                format!(
                    "a `sections` entry needs an id and a level from 2 to {MAX_LEVEL} (\"{}\", level {level})",
                    s.id
                ),
            ));
        }
        out.push(crate::book::Section {
            level: level as usize,
            id: s.id,
            title: values::clean(&s.title, ValueLines::One),
        });
    }
    Ok(Some(Box::new(super::Sections(out))))
}

/// A chapter entry's `format`: what the file holds, whatever its extension.
fn chapter_format(
    format: Option<&str>,
    ctx: &Ctx,
    offset: usize,
) -> Result<Option<super::ChapterFormat>> {
    use super::ChapterFormat;
    match format.map(str::trim) {
        None => Ok(None),
        Some("markdown") => Ok(Some(ChapterFormat::Markdown)),
        Some("text") => Ok(Some(ChapterFormat::Text)),
        Some("html") => Ok(Some(ChapterFormat::Html)),
        Some(other) => Err(ctx.error_at(
            offset,
            format!("`format` = \"{other}\" is not one of \"markdown\", \"text\", \"html\""),
        )),
    }
}

/// Deepest `level` of a chapter in the table of contents.
const MAX_LEVEL: i64 = 6;

/// A chapter entry's `level`: 1 (the default) at the top of the contents, 2 under the chapter
/// before it, and so on, as mdBook's `SUMMARY.md` nests sub-chapters.
fn chapter_level(level: Option<&Spanned<i64>>, split: bool, ctx: &Ctx) -> Result<usize> {
    let Some(level) = level else {
        return Ok(1);
    };
    let at = level.span().start;
    if split {
        return Err(ctx.error_at(
            at,
            "`level` cannot be used with `split` (the headings found in the file give the levels)",
        ));
    }
    match usize::try_from(*level.get_ref()) {
        Ok(n) if (1..=MAX_LEVEL as usize).contains(&n) => Ok(n),
        _ => Err(ctx.error_hinted(
            at,
            format!(
                "`level` = {} is not between 1 and {MAX_LEVEL}",
                level.get_ref()
            ),
            "1 is the top of the table of contents, 2 a chapter under the one before",
        )),
    }
}

/// The chapter `file = "..."`: inside the project folder and a regular file, with the stamp
/// of the one look at it that the load takes.
fn chapter_file(
    ctx: &Ctx,
    file: &Spanned<String>,
    template: ChapterSource,
) -> Result<ChapterSource> {
    let (path, found) = ctx.input("`file`", file.get_ref(), file.span().start)?;
    refuse_unsupported(&path)?;
    match found {
        Found::File { meta, linked } => Ok(ChapterSource {
            path,
            stamp: if linked { None } else { FileStamp::of(&meta) },
            ..template
        }),
        Found::Missing => Err(Error::MissingChapter {
            path,
            metadata: ctx.path.to_path_buf(),
            line: template.line,
        }),
        Found::NotRegular(kind) => Err(ctx.not_regular("`file`", &path, kind, file.span().start)),
    }
}

/// A chapter in a format we do not read is refused by name, not read as text.
fn refuse_unsupported(path: &Path) -> Result<()> {
    match crate::project::unsupported_kind(path) {
        Some((format, tool)) => Err(Error::UnsupportedFormat {
            path: path.to_path_buf(),
            format,
            tool,
        }),
        None => Ok(()),
    }
}

/// The chapters `glob = "..."` (the entry at `offset`) matches, in natural order.
fn chapter_glob(
    ctx: &Ctx,
    skip: &Skip,
    pattern: &Spanned<String>,
    offset: usize,
    template: &ChapterSource,
) -> Result<Vec<ChapterSource>> {
    let pattern_offset = pattern.span().start;
    let pattern = pattern.get_ref();
    ctx.admit("`glob`", pattern, pattern_offset)?;
    let files = super::glob::expand(pattern, skip, &ctx.boundary).map_err(|e| match e {
        GlobError::Syntax(e) => ctx.error_at(offset, format!("invalid glob \"{pattern}\": {e}")),
        GlobError::Outside(shown, outside) => {
            ctx.refuse("`glob`", &shown, pattern_offset, &outside)
        }
    })?;
    if files.is_empty() {
        return Err(ctx.error_hinted(
            offset,
            format!("glob \"{pattern}\" matches no files"),
            "paths are relative to the folder of metadata.toml",
        ));
    }
    for m in &files {
        refuse_unsupported(&m.path)?;
    }
    if let Ok(mut seen) = ctx.seen.lock() {
        seen.ids.extend(files.iter().filter_map(|m| m.id));
        seen.globs.push(pattern.clone());
    }
    Ok(files
        .into_iter()
        .map(|m| ChapterSource {
            path: m.path,
            stamp: m.stamp,
            ..template.clone()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::LoadOptions;

    const BOOK: &str = "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n";

    fn load(dir: &Path, chapters: &str, allow: bool) -> Result<Project> {
        let text = format!("{BOOK}{chapters}");
        let opts = LoadOptions {
            allow_outside_paths: allow,
        };
        Project::from_str_with(&text, dir, &dir.join("metadata.toml"), &opts)
    }

    fn message(e: Error) -> String {
        e.to_string()
    }

    #[test]
    fn a_chapter_format_overrides_the_extension_and_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "% A\n\n# A").unwrap();
        let p = load(
            dir.path(),
            "[[chapters]]\nfile = \"a.txt\"\nformat = \"markdown\"\n",
            false,
        )
        .unwrap();
        let formats: Vec<_> = p.chapters().map(|c| c.format).collect();
        assert_eq!(formats, [Some(super::super::ChapterFormat::Markdown)]);
        let e = load(
            dir.path(),
            "[[chapters]]\nfile = \"a.txt\"\nformat = \"rst\"\n",
            false,
        )
        .unwrap_err();
        assert!(message(e).contains("\"markdown\", \"text\", \"html\""));
    }

    #[test]
    fn a_chapter_in_a_format_we_do_not_read_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("one.rst"), "One\n===\n").unwrap();
        std::fs::write(d.join("two.tex"), "\\chapter{Two}\n").unwrap();
        let err = load(d, "[[chapters]]\nfile = \"one.rst\"\n", false).unwrap_err();
        assert!(
            err.to_string().ends_with(
                "one.rst: reStructuredText is not supported; convert it with pandoc or docutils (rst2html) first"
            ),
            "{err}"
        );
        let err = load(d, "[[chapters]]\nglob = \"*.tex\"\n", false).unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnsupportedFormat {
                    format: "LaTeX",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn a_chapter_level_nests_it_and_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A").unwrap();
        let p = load(
            dir.path(),
            "[[chapters]]\nfile = \"a.md\"\n[[chapters]]\nfile = \"a.md\"\nlevel = 2\n",
            false,
        )
        .unwrap();
        let levels: Vec<usize> = p.chapters().map(|c| c.level).collect();
        assert_eq!(levels, [1, 2]);
        for (bad, says) in [
            ("level = 0", "`level` = 0 is not between 1 and 6"),
            ("level = 7", "`level` = 7 is not between 1 and 6"),
            (
                "level = 2\nsplit = \"auto\"",
                "`level` cannot be used with `split`",
            ),
        ] {
            let chapters = format!("[[chapters]]\nfile = \"a.md\"\n{bad}\n");
            let m = message(load(dir.path(), &chapters, false).unwrap_err());
            assert!(m.contains(says) && m.contains("metadata.toml:7:"), "{m}");
        }
    }

    #[test]
    fn chapter_path_leaving_project_is_refused_with_key_and_line() {
        let outer = tempfile::tempdir().unwrap();
        let dir = outer.path().join("book");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(outer.path().join("secret.txt"), "secret").unwrap();
        let err = load(&dir, "[[chapters]]\nfile = \"../secret.txt\"\n", false).unwrap_err();
        // The hint is a field of its own, not part of the message.
        let hint = err.diagnostic().hint.unwrap_or_default();
        let m = message(err);
        assert!(m.contains("metadata.toml:6:"), "{m}");
        assert!(
            m.contains("`file` = \"../secret.txt\" points outside"),
            "{m}"
        );
        assert!(hint.contains("--allow-outside-paths"), "{hint}");
        let p = load(&dir, "[[chapters]]\nfile = \"../secret.txt\"\n", true).unwrap();
        assert_eq!(p.chapters().count(), 1);
    }

    #[test]
    fn etc_passwd_absolute_and_relative_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for value in ["../../etc/passwd", "/etc/passwd"] {
            let chapters = format!("[[chapters]]\nfile = \"{value}\"\n");
            let m = message(load(dir.path(), &chapters, false).unwrap_err());
            assert!(
                m.contains("points outside the project folder"),
                "{value}: {m}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlink_pointing_out_is_refused_for_file_glob_and_cover() {
        let outer = tempfile::tempdir().unwrap();
        let dir = outer.path().join("book");
        std::fs::create_dir_all(dir.join("ch")).unwrap();
        std::fs::create_dir_all(dir.join("covers")).unwrap();
        std::fs::write(outer.path().join("secret.txt"), "secret").unwrap();
        std::fs::write(dir.join("ch/1.txt"), "one").unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret.txt"), dir.join("ch/2.txt")).unwrap();
        let m = message(load(&dir, "[[chapters]]\nfile = \"ch/2.txt\"\n", false).unwrap_err());
        assert!(m.contains("points outside"), "{m}");
        let m = message(load(&dir, "[[chapters]]\nglob = \"ch/*.txt\"\n", false).unwrap_err());
        assert!(m.contains("`glob` = \"ch/2.txt\" points outside"), "{m}");
        assert!(load(&dir, "[[chapters]]\nfile = \"ch/1.txt\"\n", false).is_ok());

        std::fs::write(outer.path().join("img.png"), "x").unwrap();
        std::os::unix::fs::symlink(outer.path().join("img.png"), dir.join("covers/c.png")).unwrap();
        let m = message(load(&dir, "[[chapters]]\nfile = \"ch/1.txt\"\n", false).unwrap_err());
        assert!(m.contains("`cover`"), "{m}");
    }

    #[test]
    fn folder_listing_globs_match_what_the_glob_crate_matches() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ch")).unwrap();
        let names = [
            "1.txt",
            "10.txt",
            "2.txt",
            ".hidden.txt",
            "a.TXT",
            "b.txt.bak",
            "c.md",
            "ctxt",
            "[x].txt",
        ];
        for name in names {
            std::fs::write(dir.path().join("ch").join(name), "x").unwrap();
        }
        for pattern in ["*.txt", "*", "*txt", "c*", "?.txt", "[0-9]*.txt", "*.[tm]*"] {
            let project = load(
                dir.path(),
                &format!("[[chapters]]\nglob = \"ch/{pattern}\"\n"),
                false,
            );
            let mut listed: Vec<String> = match project {
                Ok(p) => p
                    .chapters()
                    .map(|c| c.path.file_name().unwrap().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => Vec::new(),
            };
            let glob = glob::Pattern::new(pattern).unwrap();
            let mut expected: Vec<String> = names
                .iter()
                .filter(|n| glob.matches_with(n, glob::MatchOptions::new()))
                .map(|n| n.to_string())
                .collect();
            listed.sort();
            expected.sort();
            assert_eq!(listed, expected, "{pattern}");
        }
    }

    #[test]
    fn output_path_outside_is_refused_when_it_is_used() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.txt"), "one").unwrap();
        let meta = "[[chapters]]\nfile = \"1.txt\"\n[output]\npath = \"../out.epub\"\n";
        std::fs::write(dir.path().join("metadata.toml"), format!("{BOOK}{meta}")).unwrap();
        let project = load(dir.path(), meta, false).unwrap();
        let m = message(project.output_for(None).unwrap_err());
        assert!(m.contains("metadata.toml:8:"), "{m}");
        assert!(m.contains("`[output] path` = \"../out.epub\""), "{m}");
        let typed = dir.path().join("typed.epub");
        assert_eq!(project.output_for(Some(&typed)).unwrap(), typed);
    }

    #[test]
    fn language_tags_accept_bcp47_shapes_and_reject_junk() {
        for ok in ["zh", "zh-CN", "zh-Hant-TW", "en", "ja", "yue-HK"] {
            assert!(is_language_tag(ok), "{ok}");
        }
        for bad in ["", "chinese!", "z", "zh_CN", "zh-", "中文"] {
            assert!(!is_language_tag(bad), "{bad}");
        }
    }

    #[test]
    fn default_identifier_is_stable_and_depends_on_title_and_authors() {
        let a = vec![person(RawPerson::Name("甲".into()), "aut")];
        let b = vec![person(RawPerson::Name("乙".into()), "aut")];
        assert_eq!(default_identifier("书", &a), default_identifier("书", &a));
        assert_ne!(default_identifier("书", &a), default_identifier("书", &b));
        assert_ne!(default_identifier("书", &a), default_identifier("书二", &a));
        assert!(default_identifier("书", &a).starts_with("urn:uuid:"));
    }
}
