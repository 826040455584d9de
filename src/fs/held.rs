//! Files of a project folder held in memory instead of written into it: `fix` unpacks an
//! EPUB's chapters here rather than into its temporary folder (writing, reading and deleting
//! thousands of small files was most of a fix's time), and the project's boundary
//! (`crate::project::Boundary`) reads a held file before the folder.
//!
//! [`hold`] registers the files under the folder's path for as long as its [`Holding`] lives;
//! a boundary made for that folder meanwhile ([`held_in`]) sees them. Only the folder that
//! registered them is concerned: another project never sees them, and nothing is ever
//! written.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The files held for one folder, by their full path (the folder joined to their name).
#[derive(Debug)]
pub struct HeldFiles {
    files: HashMap<PathBuf, Vec<u8>>,
    /// When they were registered: their modification time.
    pub modified: SystemTime,
}

impl HeldFiles {
    /// The bytes of the held file at `path` (`.` and `..` folded away first), if held.
    pub fn get(&self, path: &Path) -> Option<&[u8]> {
        self.files.get(&lexical(path)).map(Vec::as_slice)
    }
}

/// The folders holding files, with them.
static HELD: Mutex<Vec<(PathBuf, Arc<HeldFiles>)>> = Mutex::new(Vec::new());

/// The registration of [`hold`]: the files are released when it is dropped.
#[derive(Debug)]
pub struct Holding {
    root: PathBuf,
}

impl Drop for Holding {
    fn drop(&mut self) {
        if let Ok(mut held) = HELD.lock() {
            held.retain(|(root, _)| *root != self.root);
        }
    }
}

/// Holds `files` (name relative to `root`, with `/` → bytes) as if they were in the folder
/// `root`, until the returned [`Holding`] is dropped. A name that is not a plain relative path
/// (a root, `..`) is left out. A second holding for the same folder replaces the first.
pub fn hold(root: &Path, files: HashMap<String, Vec<u8>>) -> Holding {
    let root = lexical(root);
    let files = files
        .into_iter()
        .filter(|(name, _)| {
            Path::new(name)
                .components()
                .all(|c| matches!(c, Component::Normal(_)))
        })
        .map(|(name, bytes)| (root.join(name), bytes))
        .collect();
    let held = Arc::new(HeldFiles {
        files,
        modified: SystemTime::now(),
    });
    if let Ok(mut all) = HELD.lock() {
        all.retain(|(r, _)| *r != root);
        all.push((root.clone(), held));
    }
    Holding { root }
}

/// The files held for the folder `root`, if any.
pub fn held_in(root: &Path) -> Option<Arc<HeldFiles>> {
    let all = HELD.lock().ok()?;
    if all.is_empty() {
        return None;
    }
    let root = lexical(root);
    all.iter().find(|(r, _)| *r == root).map(|(_, h)| h.clone())
}

/// `path` canonicalized (symlinks resolved, absolute), as `canonicalize` gives it; for a file
/// that is not on the disk in a folder that is (a file held in memory), the folder's
/// canonical path joined to its name. Paths are compared so to find which chapter a link
/// names.
pub fn real_path(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = path.canonicalize() {
        return Some(real);
    }
    let name = path.file_name()?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(folder.canonicalize().ok()?.join(name))
}

/// `path` with `.` and `..` folded away, without looking at the disk (for a path that may not
/// exist, or one refused before it was looked at).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_files_are_seen_in_their_folder_only_while_held() {
        let root = Path::new("/nowhere/held-test/book");
        let files = HashMap::from([
            ("Text/ch1.xhtml".to_string(), b"one".to_vec()),
            ("../out.xhtml".to_string(), b"out".to_vec()),
        ]);
        let holding = hold(root, files);
        let held = held_in(Path::new("/nowhere/held-test/./book")).expect("held");
        assert_eq!(held.files.len(), 1, "a name climbing out is left out");
        assert_eq!(
            held.get(&root.join("Text/../Text/ch1.xhtml")),
            Some(&b"one"[..])
        );
        assert_eq!(held.get(&root.join("Text/ch2.xhtml")), None);
        assert!(held_in(Path::new("/nowhere/held-test/other")).is_none());
        drop(holding);
        assert!(held_in(root).is_none());
    }

    #[test]
    fn a_missing_file_in_a_real_folder_has_a_real_path_and_one_in_a_missing_folder_none() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("there.xhtml"), "x").expect("write");
        let real = dir.path().canonicalize().expect("real");
        let of = |name: &str| real_path(&dir.path().join(name));
        assert_eq!(of("there.xhtml"), Some(real.join("there.xhtml")));
        assert_eq!(of("held.xhtml"), Some(real.join("held.xhtml")));
        assert_eq!(of("no-folder/held.xhtml"), None);
    }
}
