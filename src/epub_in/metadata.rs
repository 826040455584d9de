//! What the package document says of the book, as `metadata.toml`'s keys: titles (the first as
//! `title`, one typed `subtitle` as `subtitle`), creators with their roles and sort names
//! (`aut` as `authors`, others as `contributors`, `dc:contributor` too), language, identifier,
//! publisher, date (`published`, its day), description, subjects, series and its index (an
//! EPUB 3 collection or calibre's), rights, the cover, and the page direction and writing mode
//! (`[layout] writing-mode`). `inspect` reads most of it; the rest (subtitles, contributors,
//! the spine's direction, `primary-writing-mode`, the Dublin Core elements we have no key for)
//! is read in the same pass over the package document
//! ([`PackageExtra`](crate::inspect::read::PackageExtra)), which is not parsed again for it.

use super::files::Written;
use crate::diagnostic::{Code, Diagnostic};
use crate::inspect::Epub;
use crate::inspect::read::PackageExtra;

/// A person: name, sort name, MARC role.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Person {
    pub name: String,
    pub file_as: Option<String>,
    pub role: Option<String>,
}

/// The book's metadata as it will be written.
#[derive(Debug, Clone, Default)]
pub(super) struct Metadata {
    pub title: String,
    pub subtitle: Option<String>,
    pub authors: Vec<Person>,
    pub contributors: Vec<Person>,
    pub language: String,
    pub identifier: Option<String>,
    pub publisher: Option<String>,
    /// `YYYY-MM-DD`.
    pub published: Option<String>,
    pub description: Option<String>,
    pub subjects: Vec<String>,
    pub rights: Option<String>,
    pub series: Option<String>,
    pub series_index: Option<String>,
    pub cover: Option<String>,
    /// `vertical-rl` when the book is written so.
    pub writing_mode: Option<&'static str>,
}

impl Metadata {
    pub(super) fn new(
        book: &Epub,
        written: &Written,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Metadata {
        let (m, extra) = (&book.metadata, &book.extra);
        let mut lost = |what: String| {
            diagnostics.push(Diagnostic::note(Code::EpubInMetadata, what));
        };
        let (authors, mut contributors) = people(&m.creators);
        contributors.extend(extra.contributors.iter().map(person));
        let mut language = m.languages.first().cloned().unwrap_or_else(|| {
            lost("the package names no language; `und` written: set `language`".into());
            "und".to_string()
        });
        if language.contains('_') {
            // A locale's name (ebooklib's `zh_Hans`), which no store and no build accepts.
            let tag = language.replace('_', "-");
            lost(format!(
                "dc:language \"{language}\" is a locale name, not a BCP 47 tag; written as \"{tag}\""
            ));
            language = tag;
        }
        for other in m.languages.iter().skip(1) {
            lost(format!("a further dc:language \"{other}\" is not carried"));
        }
        for t in &extra.other_titles {
            lost(format!("a further dc:title \"{t}\" is not carried"));
        }
        for (what, at) in &extra.unkept {
            lost(format!(
                "{what} at {at} has no key in metadata.toml; not carried"
            ));
        }
        let identifier = kept_identifier(m, &mut lost);
        let published = m.date.as_deref().and_then(|d| kept_day(d, &mut lost));
        let cover = m
            .cover_href
            .as_ref()
            .and_then(|c| written.local.get(c))
            .cloned();
        Metadata {
            title: m
                .titles
                .first()
                .cloned()
                .unwrap_or_else(|| "Untitled".into()),
            subtitle: extra.subtitle.clone(),
            authors,
            contributors,
            writing_mode: writing_mode(extra, &language),
            language,
            identifier,
            publisher: m.publisher.clone(),
            published,
            description: m.description.clone(),
            subjects: m.subjects.clone(),
            rights: m.rights.clone(),
            series: m.series.as_ref().map(|(s, _)| s.clone()),
            series_index: m
                .series
                .as_ref()
                .and_then(|(_, i)| i.clone())
                .filter(|i| i.trim().parse::<f64>().is_ok_and(f64::is_finite)),
            cover,
        }
    }
}

impl Metadata {
    /// Drops `cover` when its file (in `dir`) is no picture the build can use (a JPEG, PNG, GIF,
    /// WebP or SVG by its bytes, whatever its name says): a Royal Road archiver wrote raw
    /// pixels as `cover.jpg`, and the build refused the whole book for it. The file stays in
    /// the folder; a warning says why the book has no cover.
    pub(super) fn keep_usable_cover(
        &mut self,
        dir: &std::path::Path,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let Some(cover) = self.cover.as_deref() else {
            return;
        };
        let bytes = std::fs::read(dir.join(cover)).unwrap_or_default();
        if crate::media::image::sniff(&bytes).is_some() {
            return;
        }
        diagnostics.push(Diagnostic::warning(
            Code::EpubInMetadata,
            format!(
                "the cover {cover} is not a picture (no JPEG, PNG, GIF, WebP or SVG by its bytes); the book has no cover, the file is kept"
            ),
        ));
        self.cover = None;
    }
}

/// The package's creators: authors (no role, or `aut`) and contributors (any other role).
fn people(creators: &[crate::inspect::Creator]) -> (Vec<Person>, Vec<Person>) {
    let (mut authors, mut contributors) = (Vec::new(), Vec::new());
    for c in creators {
        match c.role.as_deref() {
            None | Some("aut") => authors.push(person(c)),
            Some(_) => contributors.push(person(c)),
        }
    }
    (authors, contributors)
}

/// A creator or contributor of the package as `metadata.toml` writes them.
fn person(c: &crate::inspect::Creator) -> Person {
    Person {
        name: c.name.clone(),
        file_as: c.file_as.clone(),
        role: c.role.clone(),
    }
}

/// The package's unique identifier (else its first), when a build accepts it; else a note
/// through `lost`, and None (a stable one is made).
fn kept_identifier(
    m: &crate::inspect::EpubMetadata,
    lost: &mut impl FnMut(String),
) -> Option<String> {
    let identifier = m
        .unique_identifier
        .clone()
        .or_else(|| m.identifiers.first().cloned());
    identifier.filter(|id| {
        let ok = crate::project::values::check_identifier(id).is_ok() && identifier_scheme(id);
        if !ok {
            lost(format!(
                "the identifier \"{id}\" is not one a build accepts (urn:uuid:, urn:isbn:, another URN or a URL); a stable one is made from the title and authors"
            ));
        }
        ok
    })
}

/// The day `dc:date` names, or a note through `lost` and None.
fn kept_day(d: &str, lost: &mut impl FnMut(String)) -> Option<String> {
    let day = day_of(d);
    if day.is_none() {
        lost(format!(
            "the date \"{d}\" is not a day (YYYY-MM-DD); not carried"
        ));
    }
    day
}

/// Whether an identifier names its scheme (the load takes any URN or URL; a bare word such as
/// calibre's `calibre:123` or a raw UUID is not one).
fn identifier_scheme(id: &str) -> bool {
    let lower = id.to_ascii_lowercase();
    lower.starts_with("urn:") || lower.starts_with("isbn:") || id.contains("://")
}

/// The day a `dc:date` names (`2020-05-01`, `2020-05-01T00:00:00+00:00`).
fn day_of(date: &str) -> Option<String> {
    let day = date.trim().get(..10)?;
    day.parse::<toml::value::Datetime>()
        .ok()
        .filter(|d| d.date.is_some() && d.time.is_none())
        .map(|_| day.to_string())
}

/// `vertical-rl` when the package says so (`primary-writing-mode`), or turns its pages right to
/// left in Chinese, Japanese or Korean (a vertical book); otherwise none.
fn writing_mode(extra: &PackageExtra, language: &str) -> Option<&'static str> {
    let cjk = ["zh", "ja", "ko"]
        .iter()
        .any(|l| language.get(..2).is_some_and(|p| p.eq_ignore_ascii_case(l)));
    let said = extra.writing_mode.as_deref().map(str::trim);
    match said {
        Some(m) if m.starts_with("vertical") => Some("vertical-rl"),
        Some(m) if m.starts_with("horizontal") => None,
        _ if cjk && extra.direction.as_deref() == Some("rtl") => Some("vertical-rl"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_gives_its_day_and_a_year_alone_gives_none() {
        assert_eq!(day_of("2020-05-01").as_deref(), Some("2020-05-01"));
        assert_eq!(
            day_of("2020-05-01T00:00:00+00:00").as_deref(),
            Some("2020-05-01")
        );
        assert_eq!(day_of("2020"), None);
        assert_eq!(day_of("2020-13-45"), None);
    }

    #[test]
    fn a_right_to_left_chinese_book_is_vertical_but_an_arabic_one_is_not() {
        let rtl = PackageExtra {
            direction: Some("rtl".into()),
            ..PackageExtra::default()
        };
        assert_eq!(writing_mode(&rtl, "zh-TW"), Some("vertical-rl"));
        assert_eq!(writing_mode(&rtl, "ar"), None);
        let said = PackageExtra {
            writing_mode: Some("horizontal-lr".into()),
            ..rtl
        };
        assert_eq!(writing_mode(&said, "ja"), None);
    }
}
