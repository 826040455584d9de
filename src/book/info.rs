//! Bibliographic data from `[book]`: what the project reads and every later stage shows.

/// Bibliographic data from `[book]`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct BookInfo {
    /// The title.
    pub title: String,
    /// An optional subtitle.
    pub subtitle: Option<String>,
    /// Authors, at least one.
    pub authors: Vec<Person>,
    /// Translators, editors, illustrators...
    pub contributors: Vec<Person>,
    /// BCP 47 language tag, e.g. `zh-CN`.
    pub language: String,
    /// `urn:isbn:...`, `urn:uuid:...` or a URL.
    pub identifier: String,
    /// The publisher.
    pub publisher: Option<String>,
    /// A description (blurb).
    pub description: Option<String>,
    /// Subjects or tags.
    pub subjects: Vec<String>,
    /// Rights statement.
    pub rights: Option<String>,
    /// Publication date, `YYYY-MM-DD`.
    pub published: Option<String>,
    /// Series name and position.
    pub series: Option<Series>,
    /// The cover picture's text alternative, when the source gave one (`cover-alt`); else
    /// the cover page says "Cover: TITLE".
    pub cover_alt: Option<String>,
}

/// A person credited in the book.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Person {
    /// The name as displayed.
    pub name: String,
    /// The name as sorted, e.g. "Tolkien, J. R. R.".
    pub file_as: Option<String>,
    /// MARC relator code: `aut`, `trl`, `edt`, `ill`...
    pub role: String,
}

/// A series the book belongs to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Series {
    /// The series name.
    pub name: String,
    /// The book's position in the series, as written (e.g. `1` or `2.5`).
    pub index: Option<String>,
}
