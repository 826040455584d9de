//! Files of a project folder held in memory instead of written into it: `fix` unpacks an
//! EPUB's chapters here rather than into its temporary folder (writing, reading and deleting
//! thousands of small files was most of a fix's time), and the project's boundary
//! (`crate::project::Boundary`) reads a held file before the folder.
//!
//! [`hold`] registers the files under the folder's path for as long as its [`Holding`] lives;
//! a boundary made for that folder meanwhile ([`held_in`]) sees them. Only the folder that
//! registered them is concerned: another project never sees them, and nothing is ever
//! written. A file is held as its own bytes or as an entry of something that holds many
//! ([`Shared`]: the EPUB's entries `fix` inflated), lent from there rather than copied.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// Files kept together elsewhere (an EPUB's inflated entries), each lent by its name.
pub trait Shared: Send + Sync {
    /// The bytes of the entry `name`, if there is one.
    fn bytes(&self, name: &str) -> Option<&[u8]>;
}

/// The bytes of one held file: its own, or an entry of a [`Shared`] store.
#[derive(Clone)]
pub enum Held {
    /// The file's own bytes.
    Bytes(Vec<u8>),
    /// The entry of this name in the store (which holds it: see [`Held::shared`]).
    Shared(Arc<dyn Shared>, String),
}

impl Held {
    /// The entry `name` of `store`, when the store has it.
    pub fn shared(store: Arc<dyn Shared>, name: &str) -> Option<Held> {
        store.bytes(name)?;
        Some(Held::Shared(store, name.to_string()))
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Held::Bytes(bytes) => bytes,
            Held::Shared(store, name) => store.bytes(name).unwrap_or_default(),
        }
    }
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Held::Bytes(bytes) => write!(f, "Bytes({} bytes)", bytes.len()),
            Held::Shared(_, name) => write!(f, "Shared({name:?})"),
        }
    }
}

/// The files held for one folder, by their full path (the folder joined to their name).
#[derive(Debug)]
pub struct HeldFiles {
    files: HashMap<PathBuf, Held>,
    /// When they were registered: their modification time.
    pub modified: SystemTime,
}

impl HeldFiles {
    /// The bytes of the held file at `path` (`.` and `..` folded away first), if held.
    pub fn get(&self, path: &Path) -> Option<&[u8]> {
        let plain = path
            .components()
            .all(|c| !matches!(c, Component::CurDir | Component::ParentDir));
        let held = match plain {
            true => self.files.get(path),
            false => self.files.get(&lexical(path)),
        };
        held.map(Held::bytes)
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
pub fn hold(root: &Path, files: HashMap<String, Held>) -> Holding {
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
            ("Text/ch1.xhtml".to_string(), Held::Bytes(b"one".to_vec())),
            ("../out.xhtml".to_string(), Held::Bytes(b"out".to_vec())),
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

    /// A store of entries by name.
    struct Store(HashMap<String, Vec<u8>>);

    impl Shared for Store {
        fn bytes(&self, name: &str) -> Option<&[u8]> {
            self.0.get(name).map(Vec::as_slice)
        }
    }

    #[test]
    fn a_shared_file_is_lent_from_its_store_and_one_the_store_lacks_is_not_held() {
        let store: Arc<dyn Shared> = Arc::new(Store(HashMap::from([
            ("OEBPS/a.xhtml".to_string(), b"alpha".to_vec()),
            ("OEBPS/b.xhtml".to_string(), b"beta".to_vec()),
        ])));
        assert!(Held::shared(store.clone(), "OEBPS/none.xhtml").is_none());
        let a = Held::shared(store.clone(), "OEBPS/a.xhtml").expect("in the store");
        assert_eq!(a.bytes(), b"alpha");
        let root = Path::new("/nowhere/held-shared/book");
        let holding = hold(root, HashMap::from([("a.xhtml".to_string(), a)]));
        let held = held_in(root).expect("held");
        let lent = held.get(&root.join("a.xhtml")).expect("lent");
        let stored = store.bytes("OEBPS/a.xhtml").expect("stored");
        assert!(std::ptr::eq(lent, stored), "copied instead of lent");
        assert_eq!(held.get(&root.join("b.xhtml")), None);
        drop(holding);
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
