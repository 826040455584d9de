//! `fix --all DIR`: every EPUB under a folder fixed in parallel, each beside itself; a book
//! that cannot be fixed is reported and the others go on.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{FixError, FixOptions, FixReport, fix};

/// How the fix of one EPUB of a batch went.
#[derive(Debug)]
pub struct FixOutcome {
    /// The EPUB.
    pub input: PathBuf,
    /// The fix's report, or why it failed.
    pub result: Result<FixReport, FixError>,
    /// Wall-clock time of this book.
    pub elapsed: Duration,
}

/// Every `.epub` under `dir` (itself a file is taken alone), sorted by path; hidden folders
/// and files, and what a fix writes (`*.fixed.epub`, `*.fixed.kepub.epub`…), are left out.
pub fn find_epubs(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| is_input(p))
        .collect();
    found.sort();
    found
}

/// An EPUB that is not a fix's output.
fn is_input(path: &Path) -> bool {
    let name = path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_ascii_lowercase();
    let Some(stem) = name.strip_suffix(".epub") else {
        return false;
    };
    let stem = [".kepub", ".kindle", ".apple"]
        .iter()
        .find_map(|s| stem.strip_suffix(s))
        .unwrap_or(stem);
    !stem.ends_with(".fixed")
}

/// Fixes every EPUB of `epubs` with up to `jobs` threads (0: one per core; capped by
/// [`crate::pool_size`]), each output beside its input (`opts.output` is not used), calling
/// `done` as each finishes. Returns the outcomes in the order given.
pub fn fix_all(
    epubs: &[PathBuf],
    opts: &FixOptions,
    jobs: usize,
    done: &(dyn Fn(&FixOutcome) + Sync),
) -> Vec<FixOutcome> {
    let opts = FixOptions {
        output: None,
        ..opts.clone()
    };
    let each = |epub: &PathBuf| {
        let start = Instant::now();
        FixOutcome {
            input: epub.clone(),
            result: fix(epub, &opts),
            elapsed: start.elapsed(),
        }
    };
    crate::batch::each_in_parallel(epubs, jobs, each, done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_is_every_epub_below_but_not_hidden_ones_or_what_a_fix_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "a.epub",
            "b/c.EPUB",
            "b/c.fixed.epub",
            "b/c.fixed.kepub.epub",
            "d.kepub.epub",
            ".hidden/e.epub",
            "notes.txt",
        ] {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"").unwrap();
        }
        let found = find_epubs(root);
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.epub", "b/c.EPUB", "d.kepub.epub"]);
    }
}
