//! What the validation of `metadata.toml` has at hand while it turns raw values into a
//! [`super::Project`]: the text (for lines and excerpts), the containment check, and what it
//! learns about the input files. Its own file, so that the validators of each table
//! (`raw`, `layout`) use it without importing each other.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::boundary::{Boundary, Found, Outside};
use super::toml_error::{self, Lines};
use super::{FileId, FileStamp};
use crate::error::{Error, Result};

/// What validation needs at hand: the text (for lines and excerpts), where it came from, the
/// containment check, and what it learns about the input files on the way.
pub(super) struct Ctx<'a> {
    pub(super) text: &'a str,
    pub(super) root: &'a Path,
    pub(super) path: &'a Path,
    pub(super) boundary: Boundary,
    pub(super) lines: Lines,
    /// What the load has learnt about the inputs so far.
    pub(super) seen: Mutex<Seen>,
}

/// What the load learns about the inputs on the way, for [`Project`]'s `input_ids` and
/// `chapter_globs`.
#[derive(Default)]
pub(super) struct Seen {
    pub(super) ids: Vec<FileId>,
    pub(super) globs: Vec<String>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(text: &'a str, root: &'a Path, path: &'a Path, boundary: Boundary) -> Self {
        Ctx {
            text,
            root,
            path,
            boundary,
            lines: Lines::new(text),
            seen: Mutex::default(),
        }
    }

    pub(super) fn error_at(&self, offset: usize, message: impl Into<String>) -> Error {
        toml_error::at(self.text, offset, self.path, message.into())
    }

    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.lines.line_of(offset)
    }

    /// An error at `offset`, with what to do about it.
    pub(super) fn error_hinted(&self, offset: usize, message: String, hint: &str) -> Error {
        toml_error::at_hinted(self.text, offset, self.path, message, Some(hint.into()))
    }

    /// The refusal of `value`, written under `key` at `offset`, which leads outside.
    pub(super) fn refuse(&self, key: &str, value: &str, offset: usize, outside: &Outside) -> Error {
        self.error_hinted(
            offset,
            outside.message(key, value, self.root),
            Outside::HINT,
        )
    }

    pub(super) fn saw(&self, meta: &std::fs::Metadata) {
        if let (Some(id), Ok(mut seen)) = (FileId::of(meta), self.seen.lock()) {
            seen.ids.push(id);
        }
    }

    /// The path `value` (written under `key` at `offset`), once the containment check has let
    /// it through: it may not exist yet (the output).
    pub(super) fn admit(&self, key: &str, value: &str, offset: usize) -> Result<PathBuf> {
        self.boundary
            .admit(self.root, value)
            .map_err(|outside| self.refuse(key, value, offset, &outside))
    }

    /// The input file `value` (written under `key` at `offset`): inside the project folder
    /// and a regular file, looked at without opening it. Its stamp when it is not a symlink.
    /// What is there, when it is not a regular file, is for the caller to report.
    pub(super) fn input(&self, key: &str, value: &str, offset: usize) -> Result<(PathBuf, Found)> {
        let (path, found) = self
            .boundary
            .admit_file(self.root, value)
            .map_err(|outside| self.refuse(key, value, offset, &outside))?;
        if let Found::File { meta, .. } = &found {
            self.saw(meta);
        }
        Ok((path, found))
    }

    /// [`Ctx::input`] for a file that must be there: a missing one or one that is not a
    /// regular file is an error naming the key.
    pub(super) fn input_file(
        &self,
        key: &str,
        value: &str,
        offset: usize,
    ) -> Result<(PathBuf, Option<FileStamp>)> {
        let (path, found) = self.input(key, value, offset)?;
        match found {
            Found::File { meta, linked } => {
                let stamp = if linked { None } else { FileStamp::of(&meta) };
                Ok((path, stamp))
            }
            Found::Held(stamp) => Ok((path, Some(stamp))),
            Found::Missing => Err(self.error_hinted(
                offset,
                format!("{key}: {} does not exist", crate::escape::path(&path)),
                "paths are relative to the folder of metadata.toml",
            )),
            Found::NotRegular(kind) => Err(self.not_regular(key, &path, kind, offset)),
        }
    }

    pub(super) fn not_regular(&self, key: &str, path: &Path, kind: &str, offset: usize) -> Error {
        self.error_hinted(
            offset,
            format!(
                "{key}: {} is {kind}, not a regular file",
                crate::escape::path(path)
            ),
            "name a regular file",
        )
    }
}
