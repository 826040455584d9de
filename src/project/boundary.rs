//! The project folder's boundary: the one containment check that every path a project names
//! goes through (chapters, globs' matches, the cover, stylesheets, fonts, images referenced by
//! chapters, the output folder).
//!
//! A book project may come from a stranger, so none of its paths may lead out of its folder
//! unless the user says `--allow-outside-paths`: not by being absolute, not by climbing with
//! `..`, and not through a symlink (to a file or to any folder on the way). A path is
//! resolved before anything is opened, so a refused file is never read; a path that does not
//! exist yet (the output) is resolved as far as it exists, so that a symlinked folder on the
//! way counts too. The messages built on [`Outside`] name the key and say how to get out.
//!
//! Checking a path is not enough to read it safely: the file may be swapped for a symlink
//! before it is opened by name. So every file of the project is opened once, by
//! [`Boundary::open`], through the project folder's handle with no symlink followed out (see
//! `crate::fs::open_beneath`), and read from that handle; the checks by path above remain for
//! early messages that name the key.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// How many symlinks in a row a path may go through before it is taken as a loop.
const MAX_LINKS: u32 = 40;

/// What is at a path a project names, looked at without opening it.
#[derive(Debug)]
pub enum Found {
    /// A regular file: its metadata (its target's, when `linked` through a symlink).
    File {
        /// The file's metadata.
        meta: std::fs::Metadata,
        /// Whether the path is a symlink.
        linked: bool,
    },
    /// A file held in memory for the project folder (see [`crate::fs::hold`]): its stamp.
    Held(super::FileStamp),
    /// Nothing, or a symlink to nothing.
    Missing,
    /// Something else: what it is (`"a folder"`, `"a FIFO, socket or device"`).
    NotRegular(&'static str),
}

/// The folder that every path of a project must stay in.
#[derive(Debug, Clone)]
pub struct Boundary {
    /// The project folder, as given.
    root: PathBuf,
    /// The project folder with symlinks resolved; None when outside paths are allowed.
    real_root: Option<PathBuf>,
    /// Folders already resolved, and whether they are inside: a book lists thousands of files
    /// in a handful of folders, and resolving each file's whole path would cost a system call
    /// per folder on the way, per file.
    /// Keyed by the folder's bytes: hashing a path hashes it component by component.
    folders: Arc<Mutex<HashMap<OsString, bool>>>,
    /// Files held in memory for the folder ([`crate::fs::hold`]), read before the folder.
    held: Option<Arc<crate::fs::HeldFiles>>,
    /// Regular files looked at just before the load ([`Boundary::with_looked`]).
    looked: Option<Arc<LookedAt>>,
}

/// Regular files (not symlinks) with their metadata, as the quick check of the build cache
/// found them just before the project is loaded: the load takes these instead of looking at
/// each file again (a hand-kept list of 3000 chapters is 3000 system calls). Keyed by the
/// path's bytes, as `folders` is.
pub(crate) type LookedAt = HashMap<OsString, std::fs::Metadata>;

/// A path that leads out of the project folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outside {
    /// Where it leads, symlinks resolved, when that could be found out.
    pub leads_to: Option<PathBuf>,
}

impl Outside {
    /// What to do about a refused path.
    pub const HINT: &str = "keep the book's files inside the folder of metadata.toml; pass --allow-outside-paths only for a project you trust";

    /// The refusal of `key = "value"` in `metadata.toml`: what it is and where it leads (the
    /// hint is [`Outside::HINT`]).
    pub fn message(&self, key: &str, value: &str, root: &Path) -> String {
        format!("{key} = \"{value}\" {}", self.describe(value, root))
    }

    /// The refusal of a path that is not a key of `metadata.toml` (an image a chapter or a
    /// stylesheet shows), in one sentence with what to do, for a caller that names the path.
    pub fn sentence(&self, value: &str, root: &Path) -> String {
        format!("{}; {}", self.describe(value, root), Outside::HINT)
    }

    /// [`Outside::message`] without the key and value, for a caller that names them itself.
    pub fn describe(&self, value: &str, root: &Path) -> String {
        let leads = match &self.leads_to {
            Some(to) if Path::new(value) != to => format!(", to {}", to.display()),
            _ => String::new(),
        };
        format!(
            "points outside the project folder ({}){leads}",
            root.display()
        )
    }
}

impl Boundary {
    /// The boundary of the project folder `root`; with `allow_outside`, every path passes.
    pub fn new(root: &Path, allow_outside: bool) -> Boundary {
        let real_root = (!allow_outside).then(|| {
            resolve(root, MAX_LINKS)
                .or_else(|| std::path::absolute(root).ok())
                .unwrap_or_else(|| root.to_path_buf())
        });
        Boundary {
            root: root.to_path_buf(),
            real_root,
            folders: Arc::default(),
            held: crate::fs::held_in(root),
            looked: None,
        }
    }

    /// This boundary, taking the metadata of the files in `looked` (looked at just before)
    /// instead of looking at them again.
    pub(crate) fn with_looked(self, looked: Option<Arc<LookedAt>>) -> Boundary {
        Boundary { looked, ..self }
    }

    /// The project folder, as given.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether paths outside the project folder are allowed (`--allow-outside-paths`).
    pub fn is_open(&self) -> bool {
        self.real_root.is_none()
    }

    /// Joins `written` (a path as the project wrote it) to the folder `base` and checks the
    /// result: refused when `written` is absolute, climbs above the project folder with `..`,
    /// or resolves outside it through a symlink.
    pub fn admit(&self, base: &Path, written: &str) -> Result<PathBuf, Outside> {
        let joined = base.join(written);
        if self.is_open() {
            return Ok(joined);
        }
        if climbs_out(base.strip_prefix(&self.root).ok(), written) {
            let shown = std::path::absolute(&joined).unwrap_or(joined);
            return Err(Outside {
                leads_to: Some(crate::fs::lexical(&shown)),
            });
        }
        self.check(&joined).map(|()| joined)
    }

    /// Checks a path already joined to the project folder (a glob's match, the default cover
    /// or output): refused when, symlinks resolved, it lies outside.
    pub fn check(&self, path: &Path) -> Result<(), Outside> {
        if self.is_open() {
            return Ok(());
        }
        match std::fs::symlink_metadata(path) {
            Ok(meta) => self.check_entry(path, meta.file_type().is_symlink()),
            Err(_) => self.check_resolved(path),
        }
    }

    /// [`Boundary::check`] for a path the caller has looked at already (in a folder listing,
    /// say): a file that is not a symlink (`is_link`) lies where its folder does.
    pub fn check_entry(&self, path: &Path, is_link: bool) -> Result<(), Outside> {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if self.is_open() || (!is_link && self.holds_folder(folder)) {
            return Ok(());
        }
        self.check_resolved(path)
    }

    /// Joins `written` to `base`, checks it as [`Boundary::admit`] does, and looks at what is
    /// there without opening it: a regular file, nothing, or something else.
    pub fn admit_file(&self, base: &Path, written: &str) -> Result<(PathBuf, Found), Outside> {
        let joined = base.join(written);
        if !self.is_open() && climbs_out(base.strip_prefix(&self.root).ok(), written) {
            let shown = std::path::absolute(&joined).unwrap_or_else(|_| joined.clone());
            return Err(Outside {
                leads_to: Some(crate::fs::lexical(&shown)),
            });
        }
        if let Some(stamp) = self.held_stamp(&joined) {
            return Ok((joined, Found::Held(stamp)));
        }
        if let Some(meta) = self
            .looked
            .as_ref()
            .and_then(|looked| looked.get(joined.as_os_str()))
        {
            self.check_entry(&joined, false)?;
            let meta = meta.clone();
            return Ok((
                joined,
                Found::File {
                    meta,
                    linked: false,
                },
            ));
        }
        let Ok(meta) = std::fs::symlink_metadata(&joined) else {
            return Ok((joined, Found::Missing));
        };
        let linked = meta.file_type().is_symlink();
        self.check_entry(&joined, linked)?;
        let meta = if linked {
            match std::fs::metadata(&joined) {
                Ok(target) => target,
                Err(_) => return Ok((joined, Found::Missing)),
            }
        } else {
            meta
        };
        let found = match crate::fs::irregular(&meta) {
            None => Found::File { meta, linked },
            Some(kind) => Found::NotRegular(kind),
        };
        Ok((joined, found))
    }

    /// Whether a folder, symlinks resolved, lies inside the project folder: its files that are
    /// not symlinks themselves then do too. Remembered for the next file of the folder.
    pub fn holds_folder(&self, folder: &Path) -> bool {
        let key = folder.as_os_str();
        let known = self.folders.lock().ok().and_then(|f| f.get(key).copied());
        if let Some(inside) = known {
            return inside;
        }
        let inside = self.check_resolved(folder).is_ok();
        if let Ok(mut folders) = self.folders.lock() {
            folders.insert(key.to_os_string(), inside);
        }
        inside
    }

    /// Opens a file of the project for reading, once: `path` (joined to the project folder) is
    /// opened through the project folder's handle with no symlink followed out of it, and the
    /// opened file is checked to be a regular file (see [`crate::fs::open_beneath`]); so a
    /// file swapped for a symlink after a check by name cannot be read in its place. Without
    /// the boundary (`--allow-outside-paths`), or off Unix, the path is checked and opened by
    /// name. Errors name the path; a refusal says where it leads and what to do.
    pub fn open(&self, path: &Path) -> crate::error::Result<std::fs::File> {
        if self.is_open() {
            return crate::fs::open_regular(path);
        }
        #[cfg(unix)]
        {
            match crate::fs::open_beneath(&self.root, path) {
                Ok(file) => crate::fs::regular(file, path),
                Err(crate::fs::Refusal::Failed(e)) => {
                    Err(crate::error::Error::io(path, "cannot read", e))
                }
                Err(crate::fs::Refusal::Outside) => Err(self.refusal(path)),
            }
        }
        #[cfg(not(unix))]
        {
            self.check(path).map_err(|_| self.refusal(path))?;
            crate::fs::open_regular(path)
        }
    }

    /// Reads a whole file of the project opened by [`Boundary::open`], of at most `limit`
    /// bytes (see [`crate::fs::read_limited`]).
    pub fn read_limited(
        &self,
        path: &Path,
        limit: u64,
        what: &str,
    ) -> crate::error::Result<Vec<u8>> {
        self.read_lent(path, limit, what).map(Cow::into_owned)
    }

    /// [`Boundary::read_limited`], a file held in memory lent rather than copied.
    pub fn read_lent(
        &self,
        path: &Path,
        limit: u64,
        what: &str,
    ) -> crate::error::Result<Cow<'_, [u8]>> {
        if let Some(bytes) = self.held.as_ref().and_then(|h| h.get(path)) {
            if bytes.len() as u64 > limit {
                return Err(crate::fs::too_large(path, what, limit));
            }
            return Ok(Cow::Borrowed(bytes));
        }
        crate::fs::read_file_limited(self.open(path)?, path, limit, what).map(Cow::Owned)
    }

    /// The stamp of a file held in memory at `path` (see [`crate::fs::hold`]), if it is one.
    fn held_stamp(&self, path: &Path) -> Option<super::FileStamp> {
        let held = self.held.as_ref()?;
        let bytes = held.get(path)?;
        let mtime = held
            .modified
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        Some(super::FileStamp {
            size: bytes.len() as u64,
            mtime,
            ctime: mtime,
            inode: 0,
        })
    }

    /// The error for a file of the project refused when opened: where it leads and what to do.
    fn refusal(&self, path: &Path) -> crate::error::Error {
        let outside = Outside {
            leads_to: resolve(path, MAX_LINKS),
        };
        let shown = path.strip_prefix(&self.root).unwrap_or(path);
        let sentence = outside.sentence(&shown.to_string_lossy(), &self.root);
        crate::error::Error::io(
            path,
            "cannot read",
            std::io::Error::new(std::io::ErrorKind::PermissionDenied, sentence),
        )
    }

    /// The check itself: `path`, symlinks resolved, lies inside the real project folder.
    fn check_resolved(&self, path: &Path) -> Result<(), Outside> {
        let Some(root) = &self.real_root else {
            return Ok(());
        };
        match resolve(path, MAX_LINKS) {
            Some(real) if real.starts_with(root) => Ok(()),
            leads_to => Err(Outside { leads_to }),
        }
    }
}

/// True when `written`, taken relative to `from` (a folder given relative to the project
/// folder, None when it is not under it), is absolute or climbs above the project folder.
fn climbs_out(from: Option<&Path>, written: &str) -> bool {
    let path = Path::new(written);
    if path.has_root() || written.starts_with(['/', '\\']) {
        return true;
    }
    let Some(from) = from else {
        return true;
    };
    let mut depth: i64 = 0;
    for c in from.components().chain(path.components()) {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::Prefix(_) | Component::RootDir => return true,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// `path` with symlinks resolved, as far as it exists: the part that does not exist yet is
/// kept as written (a dangling symlink is followed to its target). None when it cannot be
/// resolved: a loop of links, or a part that cannot be looked at.
fn resolve(path: &Path, links: u32) -> Option<PathBuf> {
    if let Ok(real) = path.canonicalize() {
        return Some(real);
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = std::fs::read_link(path).ok()?;
            let folder = parent(path);
            resolve(&folder.join(target), links.checked_sub(1)?)
        }
        // It exists, and still cannot be resolved (a folder on the way is not searchable).
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match path.components().next_back()? {
                Component::Normal(name) => Some(resolve(&parent(path), links)?.join(name)),
                Component::CurDir => resolve(&parent(path), links),
                Component::ParentDir => {
                    Some(resolve(&parent(path), links)?.parent()?.to_path_buf())
                }
                Component::RootDir | Component::Prefix(_) => None,
            }
        }
        Err(_) => None,
    }
}

/// The folder holding `path`: `.` for a bare name.
fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_and_climbs_above_the_project_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let b = Boundary::new(dir.path(), false);
        for bad in [
            "../x.txt",
            "../../etc/passwd",
            "a/../../x",
            "/etc/passwd",
            "./../x",
        ] {
            assert!(b.admit(dir.path(), bad).is_err(), "{bad}");
        }
        for ok in ["x.txt", "a/../x.txt", "./a/b.txt", "a/b/../../c"] {
            assert_eq!(b.admit(dir.path(), ok), Ok(dir.path().join(ok)), "{ok}");
        }
        // Relative to a chapter's folder, one level down.
        let ch = dir.path().join("ch");
        assert!(b.admit(&ch, "../img.png").is_ok());
        assert!(b.admit(&ch, "../../img.png").is_err());
        let open = Boundary::new(dir.path(), true);
        assert!(open.admit(dir.path(), "/etc/passwd").is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_resolved_for_files_folders_and_paths_not_there_yet() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("book");
        std::fs::create_dir_all(root.join("inside")).unwrap();
        std::fs::create_dir_all(outer.path().join("elsewhere")).unwrap();
        std::fs::write(outer.path().join("secret"), "x").unwrap();
        let link = |target: &Path, name: &str| std::os::unix::fs::symlink(target, root.join(name));
        link(&outer.path().join("secret"), "file").unwrap();
        link(&outer.path().join("elsewhere"), "out").unwrap();
        link(&outer.path().join("nothing-here"), "dangling").unwrap();
        link(Path::new("inside"), "in").unwrap();
        link(&root.join("loop"), "loop").unwrap();
        let b = Boundary::new(&root, false);
        let refused = |p: &str| b.check(&root.join(p)).is_err();
        assert!(refused("file"));
        assert!(refused("out"));
        assert!(
            refused("out/book.epub"),
            "through a symlinked folder, not there yet"
        );
        assert!(refused("out/new/deeper/book.epub"));
        assert!(refused("dangling"), "a dangling link leading out");
        assert!(refused("loop"), "a loop of links");
        assert!(!refused("in/x.txt"));
        assert!(!refused("inside/new/book.epub"));
        assert!(!refused("new/../book.epub"));
        assert!(b.holds_folder(&root.join("in")) && !b.holds_folder(&root.join("out")));
        let e = b.check(&root.join("out/x.epub")).unwrap_err();
        assert_eq!(
            e.leads_to,
            Some(
                outer
                    .path()
                    .canonicalize()
                    .unwrap()
                    .join("elsewhere/x.epub")
            )
        );
        let m = e.message("`[output] path`", "out/x.epub", &root);
        assert!(m.contains("elsewhere") && m.contains("out/x.epub"), "{m}");
        assert!(Outside::HINT.contains("--allow-outside-paths"));
    }

    #[test]
    fn a_file_looked_at_before_the_load_is_not_looked_at_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "four").unwrap();
        let meta = std::fs::symlink_metadata(&file).unwrap();
        std::fs::write(&file, "eight ch").unwrap();
        let looked = Arc::new(LookedAt::from([(file.clone().into_os_string(), meta)]));
        let b = Boundary::new(dir.path(), false).with_looked(Some(looked));
        let (path, found) = b.admit_file(dir.path(), "a.txt").unwrap();
        assert_eq!(path, file);
        // The metadata looked at before, not the file's now.
        assert!(
            matches!(&found, Found::File { meta, linked: false } if meta.len() == 4),
            "{found:?}"
        );
        // Other files are looked at, and the boundary still holds.
        std::fs::write(dir.path().join("b.txt"), "b").unwrap();
        let (_, found) = b.admit_file(dir.path(), "b.txt").unwrap();
        assert!(matches!(&found, Found::File { meta, .. } if meta.len() == 1));
        assert!(b.admit_file(dir.path(), "../a.txt").is_err());
    }

    #[test]
    fn a_held_file_is_found_and_read_before_the_folder_and_only_in_its_own() {
        use crate::fs::Held;
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("disk.xhtml"), "on disk").unwrap();
        let files = std::collections::HashMap::from([
            ("Text/ch1.xhtml".to_string(), Held::Bytes(b"held".to_vec())),
            (
                "disk.xhtml".to_string(),
                Held::Bytes(b"held instead".to_vec()),
            ),
        ]);
        let holding = crate::fs::hold(dir.path(), files);
        let b = Boundary::new(dir.path(), false);
        let (path, found) = b.admit_file(&dir.path().join("Text"), "ch1.xhtml").unwrap();
        assert!(matches!(found, Found::Held(s) if s.size == 4), "{found:?}");
        assert_eq!(b.read_limited(&path, 100, "file").unwrap(), b"held");
        let lent = b.read_lent(&path, 100, "file").unwrap();
        assert!(matches!(lent, Cow::Borrowed(b"held")), "{lent:?}");
        assert!(b.read_lent(&path, 3, "file").is_err(), "the cap holds");
        assert!(b.read_limited(&path, 3, "file").is_err(), "the cap holds");
        let disk = dir.path().join("disk.xhtml");
        assert_eq!(b.read_limited(&disk, 100, "file").unwrap(), b"held instead");
        assert!(b.admit_file(dir.path(), "../Text/ch1.xhtml").is_err());
        let other = tempfile::tempdir().unwrap();
        let (_, found) = Boundary::new(other.path(), false)
            .admit_file(other.path(), "Text/ch1.xhtml")
            .unwrap();
        assert!(
            matches!(found, Found::Missing),
            "another folder sees nothing held"
        );
        drop(holding);
        let b = Boundary::new(dir.path(), false);
        assert!(matches!(
            b.admit_file(dir.path(), "Text/ch1.xhtml").unwrap().1,
            Found::Missing
        ));
        assert_eq!(b.read_limited(&disk, 100, "file").unwrap(), b"on disk");
    }

    #[test]
    fn a_relative_root_works_like_an_absolute_one() {
        let b = Boundary::new(Path::new("."), false);
        assert!(b.admit(Path::new("."), "Cargo.toml").is_ok());
        assert!(b.admit(Path::new("."), "../x").is_err());
        assert!(b.check(Path::new("./target/none/x.epub")).is_ok());
    }
}
