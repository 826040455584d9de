//! A project set up in one expression, for the many tests whose setup is "these chapters, this
//! `[book]` table, build it":
//!
//! ```ignore
//! let f = Project::new(BOOK).file("a.jpg", cover()).chapter("ch1.txt", "第一章\n").build_ok();
//! assert_valid(&f.epub());
//! ```
//!
//! `metadata.toml` is written as `book`, then the tables given to [`Project::metadata`], then a
//! `[[chapters]]` entry per chapter in the order they were given.

use std::path::PathBuf;

use super::{Fixture, Run};

/// A book project being set up in a temporary folder.
pub struct Project {
    fixture: Fixture,
    book: String,
    tables: String,
    chapters: String,
}

impl Project {
    /// An empty folder whose `metadata.toml` starts with `book` (a `[book]` table).
    pub fn new(book: &str) -> Project {
        Project {
            fixture: Fixture::empty(),
            book: book.to_string(),
            tables: String::new(),
            chapters: String::new(),
        }
    }

    /// A file that is not a chapter (a picture, a stylesheet), at `rel`.
    pub fn file(self, rel: &str, contents: impl AsRef<[u8]>) -> Project {
        self.fixture.write(rel, contents);
        self
    }

    /// A chapter: the file at `rel`, listed after the chapters before it.
    pub fn chapter(self, rel: &str, contents: impl AsRef<[u8]>) -> Project {
        self.chapter_with(rel, contents, "")
    }

    /// A chapter whose entry has more keys (`split = "h2"\n`).
    pub fn chapter_with(mut self, rel: &str, contents: impl AsRef<[u8]>, keys: &str) -> Project {
        self.fixture.write(rel, contents);
        self.chapters += &format!("[[chapters]]\nfile = {rel:?}\n{keys}");
        self
    }

    /// Tables of `metadata.toml` between the `[book]` table and the chapters
    /// (`[layout]\ntoc-depth = 3\n`, `[[cleanup]]…`).
    pub fn metadata(mut self, tables: &str) -> Project {
        self.tables += tables;
        self
    }

    /// Writes `metadata.toml`; the folder, to build or change further.
    pub fn write(self) -> Fixture {
        let metadata = format!("{}{}{}", self.book, self.tables, self.chapters);
        self.fixture.write("metadata.toml", metadata);
        self.fixture
    }

    /// Writes the project and builds it to `out.epub` with `extra` arguments.
    pub fn build(self, extra: &[&str]) -> (Fixture, Run) {
        let f = self.write();
        let run = f.build(extra);
        (f, run)
    }

    /// Writes the project and builds it, which must succeed; the folder, holding `out.epub`.
    pub fn build_ok(self) -> Fixture {
        let (f, run) = self.build(&[]);
        assert!(run.ok, "{}", run.stderr);
        f
    }
}

impl Fixture {
    /// Where [`Fixture::build`] writes the book.
    pub fn epub(&self) -> PathBuf {
        self.path("out.epub")
    }
}
