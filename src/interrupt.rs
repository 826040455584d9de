//! Temporary files, and cleaning up after Ctrl-C, SIGTERM and SIGKILL.
//!
//! The EPUB and the build cache's files are written to a temporary file beside their target
//! ([`TempFile`]) and renamed into place once complete, as zola does: a reader never sees half
//! a file, and the previous EPUB is never touched (a rename either happened or did not).
//! `tempfile` deletes the temporary file when it is dropped, but a signal ends the process
//! without running destructors, so the half-written file would stay behind. Each temporary
//! file is therefore registered here while it is in flight, and [`install`] sets a handler
//! (from the binary only) that deletes every registered file and exits with status 130.
//!
//! SIGKILL cannot be handled: a build killed so leaves its temporary file (as large as the
//! book). Each build holds an advisory lock on its own temporary file while it writes it
//! (`File::try_lock`, released by the system however the process ends), so the next build
//! in that folder can tell a file of a dead build from one being written and deletes the
//! former ([`remove_stale`]).
//!
//! `check BOOK.epub` runs EPUBCheck, a java process writing into a temporary folder, and
//! `build --target azw3` runs calibre's `ebook-convert`, writing a partial AZW3: the folder or
//! file is registered like a temporary file, and the process with [`spawn_registered`], so that
//! the handler stops it before deleting what it was writing.
//!
//! The handler's message tells the truth: every output moved into place by this run is
//! recorded ([`record_replaced`]) and listed, with the books of a batch not finished
//! ([`Batch`]); "no EPUB was changed" only when none was.
//!
//! Only the command line (the `cli` feature) installs the handler; without it files are still
//! registered, and the handler's half is unused.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tempfile::NamedTempFile;

/// Every temporary file of ours starts with this.
const PREFIX: &str = ".epubforge-";

/// A temporary file unlocked and untouched for this long is not being written by anyone.
/// (A build locks its file right after making it; the wait covers that moment.)
const STALE_AFTER: Duration = Duration::from_secs(10);

/// A temporary file being written, to be moved over its target by [`TempFile::persist`]:
/// registered for the interrupt handler, and locked against [`remove_stale`] in other builds.
/// Dropped, it is deleted.
#[derive(Debug)]
pub struct TempFile {
    tmp: NamedTempFile,
    _in_flight: InFlight,
}

impl TempFile {
    /// Makes `dir/.epubforge-XXXXXX<suffix>`, after deleting the stale temporary files of
    /// dead builds there.
    pub fn create(dir: &Path, suffix: &str) -> std::io::Result<TempFile> {
        remove_stale(dir);
        let (tmp, in_flight) = create_registered(|| {
            tempfile::Builder::new()
                .prefix(PREFIX)
                .suffix(suffix)
                .tempfile_in(dir)
        })?;
        // Held until the file is closed; a system without advisory locks only loses the
        // cleanup of files left by killed builds.
        let _ = tmp.as_file().try_lock();
        Ok(TempFile {
            tmp,
            _in_flight: in_flight,
        })
    }

    /// The open file.
    pub fn file(&self) -> &File {
        self.tmp.as_file()
    }

    /// The open file, to write.
    pub fn file_mut(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// Moves the file over `path` (atomically, on the same file system): swapped with the
    /// file there, which is then deleted, as [`TempFile::persist_output`] does.
    pub fn persist(self, path: &Path) -> std::io::Result<()> {
        if exchange(self.tmp.path(), path).is_ok() {
            return Ok(());
        }
        self.tmp.persist(path).map(drop).map_err(|e| e.error)
    }

    /// [`TempFile::persist`] for an output the user reads (an EPUB), recorded with
    /// [`record_replaced`] so that an interrupt can say it was replaced.
    ///
    /// An output already at `path` is swapped with this file in one atomic step (Linux's
    /// `RENAME_EXCHANGE`) rather than renamed over: at every moment one complete EPUB or the
    /// other is at `path`, as with a rename, but ext4 does not flush the new file first (it does
    /// for a rename over an existing file: 10 to 40 ms for a 20 MB book on this project's
    /// benchmark machine). The replaced file is then under the temporary name, returned as
    /// [`Replaced`] for the caller to drop beside other work (freeing a big file's blocks takes
    /// a while too). Where the swap is not available, or nothing is at `path`, a plain rename.
    pub fn persist_output(self, path: &Path) -> std::io::Result<Replaced> {
        let TempFile {
            tmp,
            _in_flight: in_flight,
        } = self;
        // The guard is dropped after the record's lock is let go (the handler takes both).
        let moved = record_replaced(path, || {
            if exchange(tmp.path(), path).is_ok() {
                return Ok(Some(tmp));
            }
            tmp.persist(path).map(|_| None).map_err(|e| e.error)
        });
        match moved {
            Ok(Some(tmp)) => Ok(Replaced {
                _file: Some(TempFile {
                    tmp,
                    _in_flight: in_flight,
                }),
            }),
            Ok(None) => Ok(Replaced { _file: None }),
            Err(e) => Err(e),
        }
    }
}

/// The file an output replaced ([`TempFile::persist_output`]), under its temporary name and
/// still registered for the interrupt handler: deleted when dropped.
#[derive(Debug)]
#[must_use = "the replaced file is deleted as soon as this is dropped"]
pub struct Replaced {
    _file: Option<TempFile>,
}

/// Swaps the files at `a` and `b` atomically (both must exist, on one file system).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(std::io::Error::from)
}

/// Swaps the files at `a` and `b`: not available here, the caller renames instead.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

impl std::io::Write for TempFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tmp.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

/// Deletes the temporary files of ours in `dir` that no running build holds: files left by a
/// build killed with SIGKILL (or a power cut). Symbolic links, folders and anything else not
/// a regular file are left alone, and a file is never opened in a way that could block.
pub fn remove_stale(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(PREFIX) || !name.ends_with(".tmp") {
            continue;
        }
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = crate::fs::open_regular(&path) else {
            continue;
        };
        let stale = file.try_lock().is_ok()
            && file
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_AFTER));
        if stale {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Temporary files (and folders) being written right now.
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Child processes running right now.
static CHILDREN: Mutex<Vec<Arc<Mutex<Child>>>> = Mutex::new(Vec::new());
/// Outputs moved into place by this run ([`record_replaced`]), for the interrupted message.
static REPLACED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// The projects of a batch not finished yet ([`Batch`]), for the interrupted message.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// How often [`RunningChild::wait_for`] looks whether its child has exited.
const POLL: Duration = Duration::from_millis(20);

/// The exit status after an interrupt, as shells report a SIGINT death (128 + 2).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Keeps a temporary file registered until dropped.
#[derive(Debug)]
#[must_use = "the file is unregistered as soon as the guard is dropped"]
pub struct InFlight {
    path: PathBuf,
}

/// Runs `create`, which makes a temporary file or folder (or moves one to a temporary name) and
/// returns it or its path, and registers that path to delete if the process is interrupted,
/// before an interrupt can be handled: the handler waits for the registration, so there is no
/// moment at which the file exists unregistered.
pub fn create_registered<T: AsRef<Path>>(
    create: impl FnOnce() -> std::io::Result<T>,
) -> std::io::Result<(T, InFlight)> {
    let mut files = lock();
    let made = create()?;
    let path = made.as_ref().to_path_buf();
    files.push(path.clone());
    Ok((made, InFlight { path }))
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut files = lock();
        if let Some(i) = files.iter().position(|p| p == &self.path) {
            files.swap_remove(i);
        }
    }
}

/// The files currently registered.
#[cfg(test)]
pub fn in_flight() -> Vec<PathBuf> {
    lock().clone()
}

fn remove_all(paths: &[PathBuf]) -> usize {
    paths
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok() || std::fs::remove_dir_all(p).is_ok())
        .count()
}

/// A child process that the interrupt handler kills, registered until dropped; dropping it
/// kills the child if it is still running.
#[derive(Debug)]
#[must_use = "the child is killed as soon as this is dropped"]
pub struct RunningChild {
    child: Arc<Mutex<Child>>,
}

/// Spawns `command` and registers the child before an interrupt can be handled (the handler
/// waits for the registration), so no signal can leave it running unregistered.
pub fn spawn_registered(command: &mut Command) -> std::io::Result<RunningChild> {
    let mut children = relock(&CHILDREN);
    let child = Arc::new(Mutex::new(command.spawn()?));
    children.push(Arc::clone(&child));
    Ok(RunningChild { child })
}

impl RunningChild {
    /// Waits until the child exits, or until `limit` has passed: then kills it and returns
    /// `None`. `None` for `limit` waits as long as it takes.
    pub fn wait_for(&self, limit: Option<Duration>) -> std::io::Result<Option<ExitStatus>> {
        let start = Instant::now();
        loop {
            if let Some(status) = relock(&self.child).try_wait()? {
                return Ok(Some(status));
            }
            if limit.is_some_and(|limit| start.elapsed() >= limit) {
                stop(&self.child);
                return Ok(None);
            }
            std::thread::sleep(POLL);
        }
    }
}

impl Drop for RunningChild {
    fn drop(&mut self) {
        stop(&self.child);
        relock(&CHILDREN).retain(|c| !Arc::ptr_eq(c, &self.child));
    }
}

/// Kills a child that is still running and reaps it, so that no process is left behind.
fn stop(child: &Mutex<Child>) {
    let mut child = relock(child);
    if matches!(child.try_wait(), Ok(None)) {
        let _ = child.kill();
    }
    let _ = child.wait();
}

fn stop_all(children: &[Arc<Mutex<Child>>]) -> usize {
    let mut running = 0;
    for child in children {
        if matches!(relock(child).try_wait(), Ok(None)) {
            running += 1;
        }
        stop(child);
    }
    running
}

/// Runs `rename`, which moves a finished output (an EPUB, an AZW3) over `path`, and records
/// `path` as replaced when it succeeds. An interrupt handled meanwhile waits for both, so the
/// interrupted message never misses an output replaced, nor lists one that was not.
pub fn record_replaced<T>(
    path: &Path,
    rename: impl FnOnce() -> std::io::Result<T>,
) -> std::io::Result<T> {
    let mut replaced = relock(&REPLACED);
    let moved = rename()?;
    replaced.push(path.to_path_buf());
    Ok(moved)
}

/// Forgets the outputs replaced so far: they are settled (watch mode, after each build).
pub fn forget_replaced() {
    relock(&REPLACED).clear();
}

/// The projects of a batch, registered until each is finished ([`Batch::finished`]) or the
/// guard is dropped, so that an interrupt can say which were not finished.
#[derive(Debug)]
#[must_use = "the projects are unregistered as soon as the guard is dropped"]
pub(crate) struct Batch;

impl Batch {
    /// Registers `projects` as not finished.
    pub(crate) fn begin(projects: &[PathBuf]) -> Batch {
        relock(&UNFINISHED).extend_from_slice(projects);
        Batch
    }

    /// `project` is finished (built, up to date or failed).
    pub(crate) fn finished(&self, project: &Path) {
        let mut unfinished = relock(&UNFINISHED);
        if let Some(i) = unfinished.iter().position(|p| p == project) {
            unfinished.remove(i);
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        relock(&UNFINISHED).clear();
    }
}

/// Installs the Ctrl-C / SIGTERM / SIGHUP handler: stop child processes, delete in-flight
/// files and folders, say which outputs were replaced and which projects not finished, exit
/// 130. Call once, from the binary; a second call (or a handler set by someone else) is an
/// error.
#[cfg(feature = "cli")]
pub fn install() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        // Each lock is held until the exit: no child starts, no file is registered and no
        // output is moved into place after the handler has looked.
        let children = relock(&CHILDREN);
        stop_all(&children);
        let files = lock();
        remove_all(&files);
        let replaced = relock(&REPLACED);
        let unfinished = relock(&UNFINISHED);
        let message = interrupted_message(&replaced, &unfinished);
        let _ = std::io::Write::write_all(&mut std::io::stderr(), message.as_bytes());
        std::process::exit(EXIT_INTERRUPTED);
    })
}

/// What the interrupted run changed, and what it left as it was.
fn interrupted_message(replaced: &[PathBuf], unfinished: &[PathBuf]) -> String {
    if replaced.is_empty() {
        return "interrupted; no EPUB was changed\n".into();
    }
    let mut m = format!(
        "interrupted; {} file(s) were replaced before the interrupt, and no other:\n",
        replaced.len()
    );
    for p in replaced {
        m.push_str(&format!("  replaced  {}\n", crate::escape::path(p)));
    }
    for p in unfinished {
        let shown = crate::escape::path(p);
        m.push_str(&format!(
            "  not built {shown} (its EPUB was left as it was)\n"
        ));
    }
    m
}

fn lock() -> MutexGuard<'static, Vec<PathBuf>> {
    relock(&IN_FLIGHT)
}

/// A panic while holding a lock leaves the data itself valid; keep using it.
fn relock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes a file whole (the build cache's records, the cover's font memo): to a temporary file beside it (creating the folder),
/// then moved into place, so that a reader never sees half of it.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = TempFile::create(dir, ".tmp")?;
    std::io::Write::write_all(tmp.file_mut(), bytes)?;
    tmp.persist(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The handler's [`remove_all`] on what is registered under `dir` only: other tests of this
    /// process register files and folders (EPUBCheck's) that they still use.
    fn remove_in_flight_under(dir: &Path) -> usize {
        let ours: Vec<PathBuf> = in_flight()
            .into_iter()
            .filter(|p| p.starts_with(dir))
            .collect();
        remove_all(&ours)
    }

    #[test]
    fn registered_file_is_deleted_by_cleanup_and_unregistered_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join(".epubforge-a.epub.tmp");
        let b = dir.path().join(".epubforge-b.epub.tmp");
        std::fs::write(&a, b"x").unwrap();
        std::fs::write(&b, b"x").unwrap();
        let (_, guard_a) = create_registered(|| Ok(&a)).unwrap();
        {
            let (_, _guard_b) = create_registered(|| Ok(&b)).unwrap();
            assert!(in_flight().contains(&b));
        }
        assert!(!in_flight().contains(&b), "dropped guard stays registered");
        assert_eq!(remove_in_flight_under(dir.path()), 1);
        assert!(!a.exists(), "registered file survived cleanup");
        assert!(b.exists(), "unregistered file was deleted");
        drop(guard_a);
        assert!(!in_flight().contains(&a));
    }

    #[test]
    fn a_file_created_registered_is_deleted_by_cleanup() {
        let dir = tempfile::tempdir().unwrap();
        let c = dir.path().join(".epubforge-c.epub.tmp");
        let (made, guard) = create_registered(|| std::fs::write(&c, b"x").map(|()| &c)).unwrap();
        assert_eq!(made, &c);
        assert!(in_flight().contains(&c));
        remove_in_flight_under(dir.path());
        assert!(!c.exists(), "registered file survived cleanup");
        drop(guard);
        assert!(!in_flight().contains(&c));
        // A failed creation registers nothing.
        let missing = dir.path().join("no/such/folder");
        let failed = create_registered(|| std::fs::write(&missing, b"x").map(|()| &missing));
        assert!(failed.is_err());
        assert!(!in_flight().contains(&missing));
    }

    /// The files under `dir` other than `keep`.
    fn others(dir: &Path, keep: &Path) -> Vec<PathBuf> {
        let all = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path());
        all.filter(|p| p != keep).collect()
    }

    #[test]
    fn an_output_moved_into_place_replaces_the_old_one_which_goes_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("book.epub");
        let write = |bytes: &[u8]| {
            let mut tmp = TempFile::create(dir.path(), ".epub.tmp").unwrap();
            std::io::Write::write_all(tmp.file_mut(), bytes).unwrap();
            tmp
        };
        // Nothing there yet: a plain rename, nothing replaced.
        let replaced = write(b"first").persist_output(&out).unwrap();
        assert!(replaced._file.is_none());
        assert_eq!(std::fs::read(&out).unwrap(), b"first");
        assert!(others(dir.path(), &out).is_empty());
        // Over the first: the new bytes at once; the old ones, until dropped, under the
        // temporary name, registered for the interrupt handler.
        let replaced = write(b"second").persist_output(&out).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"second");
        if replaced._file.is_some() {
            let left = others(dir.path(), &out);
            assert_eq!(left.len(), 1, "{left:?}");
            assert_eq!(std::fs::read(&left[0]).unwrap(), b"first");
            assert!(in_flight().contains(&left[0]));
        }
        drop(replaced);
        assert!(others(dir.path(), &out).is_empty());
        assert_eq!(std::fs::read(&out).unwrap(), b"second");
        // A cache file the same way, the old one deleted at once.
        let record = dir.path().join("a.record");
        write_whole(&record, b"one").unwrap();
        write_whole(&record, b"two").unwrap();
        assert_eq!(std::fs::read(&record).unwrap(), b"two");
        assert_eq!(others(dir.path(), &out), vec![record]);
    }

    #[cfg(unix)]
    #[test]
    fn a_registered_child_is_stopped_at_its_limit_and_by_cleanup() {
        let slow = || {
            let mut cmd = Command::new("sleep");
            cmd.arg("30");
            spawn_registered(&mut cmd).unwrap()
        };
        let child = slow();
        assert_eq!(
            child.wait_for(Some(Duration::from_millis(50))).unwrap(),
            None
        );
        assert!(
            relock(&child.child).try_wait().unwrap().is_some(),
            "still running"
        );
        drop(child);
        // Not the global list: other tests' children run in this process too.
        let child = slow();
        assert_eq!(stop_all(std::slice::from_ref(&child.child)), 1);
        assert!(
            relock(&child.child).try_wait().unwrap().is_some(),
            "still running"
        );
        let registered = Arc::clone(&child.child);
        drop(child);
        assert!(
            !relock(&CHILDREN)
                .iter()
                .any(|c| Arc::ptr_eq(c, &registered))
        );
        let mut quick = Command::new("true");
        let status = spawn_registered(&mut quick)
            .unwrap()
            .wait_for(None)
            .unwrap();
        assert!(status.is_some_and(|s| s.success()));
    }

    #[test]
    fn the_interrupted_message_lists_what_was_replaced_and_what_was_not_built() {
        assert_eq!(
            interrupted_message(&[], &[PathBuf::from("c")]),
            "interrupted; no EPUB was changed\n"
        );
        let replaced = [
            PathBuf::from("a/build/A.epub"),
            PathBuf::from("b/B\u{1b}.epub"),
        ];
        let m = interrupted_message(&replaced, &[PathBuf::from("c")]);
        assert_eq!(
            m,
            "interrupted; 2 file(s) were replaced before the interrupt, and no other:\n  \
             replaced  a/build/A.epub\n  replaced  b/B\\u{1b}.epub\n  \
             not built c (its EPUB was left as it was)\n"
        );
    }

    #[test]
    fn a_registered_folder_is_removed_by_cleanup() {
        let dir = tempfile::tempdir().unwrap();
        let (made, guard) = create_registered(|| {
            let d = dir.path().join("scratch");
            std::fs::create_dir(&d).map(|()| d)
        })
        .unwrap();
        std::fs::write(made.join("report.json"), b"{}").unwrap();
        assert!(in_flight().contains(&made));
        assert_eq!(remove_all(std::slice::from_ref(&made)), 1);
        assert!(!made.exists(), "registered folder survived cleanup");
        drop(guard);
    }
}
