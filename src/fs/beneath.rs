//! Opening a file of the project through the project folder's handle, so that what is checked
//! is what is read.
//!
//! Checking a path and then opening it again by name leaves a gap: a synced or shared folder
//! can swap a chapter for a symlink to `~/.ssh/id_rsa` in between, and the book gets the
//! secret. Here every folder on the way is opened from the one before it with `O_NOFOLLOW`
//! (`O_DIRECTORY` for folders), starting at the project folder's handle, so the kernel never
//! follows a symlink on its own: each one met is read (`readlinkat`) and walked the same way,
//! from the handle of the folder that holds it. The file is inside when the project folder is
//! among the folders the walk holds at the end (compared by device and inode, as opened, not by
//! name); a symlink or `..` that leads out and comes back in is then fine, as it was when paths
//! were resolved by name. The file opened this way is the one read; whether it is a regular file
//! is decided on the open handle (`fstat`), by the caller ([`super::regular`]).
//!
//! Unix only (rustix's safe `openat` and `readlinkat`); elsewhere the boundary checks the path
//! as it did before ([`crate::project::Boundary`]).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path};

use rustix::fs::{CWD, Mode, OFlags, openat, readlinkat};
use rustix::io::Errno;

/// How many symlinks one opening may go through before it is taken as a loop (Linux's limit).
const MAX_LINKS: u32 = 40;

/// Why a file of the project could not be opened beneath its folder.
#[derive(Debug)]
pub enum Refusal {
    /// The path, its symlinks followed, leads out of the project folder.
    Outside,
    /// It could not be opened (missing, not searchable, a loop of symlinks...).
    Failed(io::Error),
}

impl From<io::Error> for Refusal {
    fn from(e: io::Error) -> Refusal {
        Refusal::Failed(e)
    }
}

impl From<Errno> for Refusal {
    fn from(e: Errno) -> Refusal {
        Refusal::Failed(e.into())
    }
}

/// One step of a walk: a name to open in the folder held last, `..`, or the file system's root
/// (a symlink with an absolute target).
enum Step {
    Name(OsString),
    Up,
    Root,
}

/// A folder the walk holds open, and whether it is the project folder.
struct Held {
    dir: File,
    is_root: bool,
}

/// The walk's state: the folders held from where it started, the steps still to take (last
/// first), and the symlinks it may still go through.
struct Walk {
    held: Vec<Held>,
    steps: Vec<Step>,
    links: u32,
    root_id: (u64, u64),
}

/// Opens `path` (a path joined to the project folder `root`, or any other path) for reading,
/// without blocking on a FIFO, refusing it when, its symlinks followed, it does not lie under
/// `root`. The project folder itself is opened by name, symlinks and all: it is the user's.
pub fn open_beneath(root: &Path, path: &Path) -> Result<File, Refusal> {
    let named = if root.as_os_str().is_empty() {
        OsStr::new(".")
    } else {
        root.as_os_str()
    };
    let root_dir = open_dir(CWD, named, true)?;
    let root_id = id(&root_dir)?;
    let (start, rest) = match path.strip_prefix(root) {
        Ok(rest) => (root_dir, rest),
        Err(_) if path.has_root() => (open_dir(CWD, OsStr::new("/"), true)?, path),
        Err(_) => (open_dir(CWD, OsStr::new("."), true)?, path),
    };
    let is_root = id(&start)? == root_id;
    let mut walk = Walk {
        held: vec![Held {
            dir: start,
            is_root,
        }],
        steps: Vec::new(),
        links: MAX_LINKS,
        root_id,
    };
    walk.push_steps(rest);
    let file = walk.run()?;
    if walk.held.iter().any(|h| h.is_root) {
        Ok(file)
    } else {
        Err(Refusal::Outside)
    }
}

impl Walk {
    /// Queues the components of `path`, to be taken before the steps already queued.
    fn push_steps(&mut self, path: &Path) {
        let at = self.steps.len();
        for c in path.components() {
            let step = match c {
                Component::Normal(name) => Step::Name(name.to_os_string()),
                Component::ParentDir => Step::Up,
                Component::RootDir | Component::Prefix(_) => Step::Root,
                Component::CurDir => continue,
            };
            self.steps.insert(at, step);
        }
    }

    /// Takes every step; the file the last one opens.
    fn run(&mut self) -> Result<File, Refusal> {
        while let Some(step) = self.steps.pop() {
            match step {
                Step::Root => {
                    let dir = open_dir(CWD, OsStr::new("/"), true)?;
                    self.held.clear();
                    self.hold(dir)?;
                }
                Step::Up if self.held.len() > 1 => {
                    self.held.pop();
                }
                Step::Up => {
                    let up = open_dir(&self.last().dir, OsStr::new(".."), false)?;
                    self.held.clear();
                    self.hold(up)?;
                }
                Step::Name(name) if self.steps.is_empty() => {
                    match openat(
                        &self.last().dir,
                        name.as_os_str(),
                        file_flags(),
                        Mode::empty(),
                    ) {
                        Ok(fd) => return Ok(File::from(fd)),
                        Err(e) => self.follow(name, e)?,
                    }
                }
                Step::Name(name) => match open_dir(&self.last().dir, &name, false) {
                    Ok(dir) => self.hold(dir)?,
                    Err(e) => self.follow(name, e)?,
                },
            }
        }
        Err(Refusal::Failed(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file but a folder; name a regular file instead",
        )))
    }

    /// The folder held last.
    fn last(&self) -> &Held {
        // The walk always holds a folder: every step that drops them holds another.
        &self.held[self.held.len() - 1]
    }

    /// Holds a folder just opened below the last one (or after dropping them all).
    fn hold(&mut self, dir: File) -> Result<(), Refusal> {
        // Within the project folder every folder is inside: its identity matters only outside.
        let is_root = !self.held.iter().any(|h| h.is_root) && id(&dir)? == self.root_id;
        self.held.push(Held { dir, is_root });
        Ok(())
    }

    /// After `name` failed to open with `error`: when it is a symlink, queues its target in its
    /// place; else the error stands. One that stopped being a symlink in between is tried again.
    fn follow(&mut self, name: OsString, error: Errno) -> Result<(), Refusal> {
        let maybe_link = matches!(error, Errno::LOOP | Errno::MLINK | Errno::NOTDIR);
        if !maybe_link {
            return Err(error.into());
        }
        self.links = self.links.checked_sub(1).ok_or(Errno::LOOP)?;
        match readlinkat(&self.last().dir, name.as_os_str(), Vec::new()) {
            Ok(target) if !target.as_bytes().is_empty() => {
                self.push_steps(Path::new(OsStr::from_bytes(target.as_bytes())));
                Ok(())
            }
            Err(Errno::INVAL) if error != Errno::NOTDIR => {
                self.steps.push(Step::Name(name));
                Ok(())
            }
            _ => Err(error.into()),
        }
    }
}

/// The flags a file is opened with: read only, no symlink followed, and without waiting for a
/// writer when it is a FIFO (the caller refuses it after looking at the handle).
fn file_flags() -> OFlags {
    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY
}

/// Opens the folder `name` in `dir`, following a symlink only when `follow` (the project
/// folder as the user named it, `/`, `.`: none is a link of the project).
fn open_dir<Fd: std::os::fd::AsFd>(dir: Fd, name: &OsStr, follow: bool) -> Result<File, Errno> {
    let mut flags = OFlags::DIRECTORY | OFlags::CLOEXEC;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        // Only searched, never listed: a folder that may be searched but not read still works.
        flags |= OFlags::PATH;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        flags |= OFlags::RDONLY;
    }
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    openat(dir, name, flags, Mode::empty()).map(File::from)
}

/// The device and inode of an open folder: its identity, whatever it is called.
fn id(dir: &File) -> io::Result<(u64, u64)> {
    let meta = dir.metadata()?;
    Ok((meta.dev(), meta.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, symlink};

    /// What `rel` under `root` reads as, or whether it was refused as outside.
    fn read(root: &Path, rel: &str) -> Result<String, Refusal> {
        let mut file = open_beneath(root, &root.join(rel))?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        Ok(text)
    }

    /// Why `rel` under `root` could not be opened, when it could be and is not outside.
    fn failure(root: &Path, rel: &str) -> String {
        match read(root, rel) {
            Err(Refusal::Failed(e)) => e.to_string(),
            other => panic!("{rel}: {other:?}"),
        }
    }

    #[test]
    fn links_that_stay_inside_are_followed_and_links_out_are_refused() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("book");
        std::fs::create_dir_all(root.join("ch/deep")).unwrap();
        std::fs::write(root.join("ch/1.txt"), "one").unwrap();
        std::fs::write(root.join("ch/deep/2.txt"), "two").unwrap();
        std::fs::write(outer.path().join("secret"), "secret").unwrap();
        std::fs::create_dir(outer.path().join("elsewhere")).unwrap();
        std::fs::write(outer.path().join("elsewhere/x.txt"), "x").unwrap();
        let link = |target: &Path, name: &str| symlink(target, root.join(name)).unwrap();
        link(Path::new("ch/1.txt"), "relative");
        link(&root.join("ch/deep/2.txt"), "absolute");
        link(Path::new("ch/deep"), "folder");
        link(Path::new("../book/ch/1.txt"), "out-and-back");
        link(Path::new("../secret"), "up");
        link(&outer.path().join("secret"), "out");
        link(&outer.path().join("elsewhere"), "out-folder");
        link(Path::new("loop"), "loop");
        link(Path::new("relative"), "chain");
        for (rel, text) in [
            ("ch/1.txt", "one"),
            ("ch/deep/../1.txt", "one"),
            ("relative", "one"),
            ("chain", "one"),
            ("absolute", "two"),
            ("folder/2.txt", "two"),
            // `..` after a linked folder goes up from where the link leads, as the kernel's.
            ("folder/../1.txt", "one"),
            ("out-and-back", "one"),
        ] {
            assert_eq!(read(&root, rel).ok().as_deref(), Some(text), "{rel}");
        }
        for rel in [
            "up",
            "out",
            "out-folder/x.txt",
            "../secret",
            "ch/../../secret",
        ] {
            assert!(matches!(read(&root, rel), Err(Refusal::Outside)), "{rel}");
        }
        let e = failure(&root, "loop");
        assert!(e.contains("symbolic links"), "{e}");
        let e = failure(&root, "missing.txt");
        assert!(e.contains("No such file"), "{e}");
        // A path given from elsewhere (the current folder, or absolute) is held to the same
        // folder.
        let secret = outer.path().join("secret");
        assert!(matches!(
            open_beneath(&root, &secret),
            Err(Refusal::Outside)
        ));
        let inside = root.canonicalize().unwrap().join("ch/1.txt");
        assert!(open_beneath(&root, &inside).is_ok());
    }

    #[test]
    fn a_fifo_is_opened_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join("pipe"))
            .status()
            .unwrap();
        assert!(status.success());
        let file = open_beneath(dir.path(), &dir.path().join("pipe")).unwrap();
        assert!(file.metadata().unwrap().file_type().is_fifo());
    }
}
