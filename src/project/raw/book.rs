//! `[book]` as written, validated into [`BookInfo`]: title, people, language, identifier,
//! dates, series and the cover.

use std::path::{Path, PathBuf};

use toml::Spanned;

use super::{Book, COVER_EXTENSIONS, FullPerson, RawPerson};
use crate::error::{Error, Result};
use crate::escape;
use crate::project::context::Ctx;
use crate::project::values::{self, Lines as ValueLines};
use crate::project::{BookInfo, Person, Series, has_extension};

/// `[book]`: the bibliographic data, cleaned and checked, and the cover (named, or the one
/// image in `covers/`).
pub(super) fn validate_book(
    raw: Book,
    ctx: &Ctx,
    book_span: usize,
) -> Result<(BookInfo, Option<PathBuf>)> {
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
        cover_alt: optional_text(raw.cover_alt.as_ref(), "cover-alt", ValueLines::One, ctx)?,
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
pub(super) fn person(raw: RawPerson, default_role: &str) -> Person {
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
pub(super) fn default_identifier(title: &str, authors: &[Person]) -> String {
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
