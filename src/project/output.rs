//! Where the EPUB goes, and what it must never replace.
//!
//! Part of the project stage, asked by the build before it writes. `-o` typed on the command
//! line may go anywhere: that is the user's own choice. The project's own output (`[output]
//! path`, or `build/<title>.epub`) must stay in the project folder, symlinks resolved: a
//! `build/` linking to `~/Books` would otherwise have a stranger's project overwrite a book
//! there (and write a cache beside it). Either way the output is never one of the book's own
//! inputs, however it is spelled (`seeds/../metadata.toml`, a symlink or a hard link to a
//! chapter), and never something other than a regular file: a finished EPUB moved over
//! `/dev/null` as root replaces the device.

use std::path::{Path, PathBuf};

use super::boundary::Outside;
use super::{FileId, Project, toml_error};
use crate::error::{Error, Result};

/// See [`Project::output_for`].
pub(super) fn output_for(project: &Project, given: Option<&Path>) -> Result<PathBuf> {
    let output = match given {
        Some(path) => path.to_path_buf(),
        None => {
            let output = project.default_output();
            if let Err(outside) = project.boundary.check(&output) {
                return Err(refused(project, &output, &outside));
            }
            output
        }
    };
    crate::fs::check_replaceable(&output)?;
    if let Some(input) = same_as_input(project, &output) {
        return Err(Error::io(
            &output,
            "cannot write the EPUB here",
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "it is one of the book's own inputs ({}); write the EPUB somewhere else",
                    crate::escape::path(&input)
                ),
            ),
        ));
    }
    Ok(output)
}

/// The refusal of the project's own output, which leads outside: at the `[output] path` line
/// when that key set it.
fn refused(project: &Project, output: &Path, outside: &Outside) -> Error {
    let hint = format!("{}; or name the EPUB with -o", Outside::HINT);
    let meta = &project.metadata_path;
    let text = (project.boundary)
        .read_limited(meta, super::METADATA_LIMIT, "metadata file")
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    let shown = output.strip_prefix(&project.root).unwrap_or(output);
    let shown = shown.to_string_lossy();
    if let (Some(at), Some(text)) = (project.output_at, text) {
        // The output is the value joined to the project folder: `shown` is the value.
        let message = outside.message("`[output] path`", &shown, &project.root);
        return toml_error::at_hinted(&text, at, meta, message, Some(hint));
    }
    Error::Metadata {
        path: meta.clone(),
        message: format!(
            "the output \"{shown}\" {}",
            outside.describe(&shown, &project.root)
        ),
        hint: Some(hint),
    }
}

/// The input that `output` is, if it is one: the same file (device and inode, which every
/// spelling and every link share), or where the system tells no identity, the same path
/// once resolved. An output that is not there yet is no input.
fn same_as_input(project: &Project, output: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(output).ok()?;
    let id = FileId::of(&meta);
    // The inputs' identities were gathered as they were loaded: no look at thousands of
    // chapters on every build, only on the way to the error.
    if let Some(id) = id
        && project.input_ids.binary_search(&id).is_err()
    {
        return None;
    }
    let real = output.canonicalize().ok();
    let same = |input: &Path| match id {
        Some(id) => std::fs::metadata(input)
            .ok()
            .and_then(|m| FileId::of(&m))
            .is_some_and(|other| other == id),
        None => real.is_some() && input.canonicalize().ok() == real,
    };
    let style = &project.style;
    std::iter::once(project.metadata_path.as_path())
        .chain(project.cover.as_deref())
        .chain(style.css.iter().map(PathBuf::as_path))
        .chain(style.fonts.iter().map(|f| f.path.as_path()))
        .chain(project.chapters().map(|c| c.path.as_path()))
        .find(|input| same(input))
        .map(Path::to_path_buf)
}
