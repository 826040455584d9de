//! Cleaning up after Ctrl-C and SIGTERM.
//!
//! The archive stage writes the EPUB to a temporary file beside the target and renames it into
//! place once complete (see [`crate::archive`]). `tempfile` deletes that file when it is dropped,
//! but a signal ends the process without running destructors, so the half-written file would
//! stay behind. The archive stage therefore registers each temporary file here while it is in
//! flight, and [`install`] sets a handler (from the binary only) that deletes every registered
//! file and exits with status 130. The previous EPUB is never touched: only the rename replaces
//! it, and a rename either happened or did not.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files being written right now.
static IN_FLIGHT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The exit status after an interrupt, as shells report a SIGINT death (128 + 2).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Keeps a temporary file registered until dropped.
#[derive(Debug)]
#[must_use = "the file is unregistered as soon as the guard is dropped"]
pub struct InFlight {
    path: PathBuf,
}

/// Runs `create`, which makes a temporary file (or moves one to a temporary name) and returns
/// it or its path, and registers that path as a file to delete if the process is interrupted,
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

/// Deletes every registered temporary file; returns how many were deleted.
pub fn remove_in_flight() -> usize {
    let files = lock();
    files
        .iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// Installs the Ctrl-C / SIGTERM / SIGHUP handler: delete in-flight files, exit 130.
/// Call once, from the binary; a second call (or a handler set by someone else) is an error.
pub fn install() -> Result<(), ctrlc::Error> {
    ctrlc::set_handler(|| {
        remove_in_flight();
        eprintln!("interrupted; no EPUB was changed");
        std::process::exit(EXIT_INTERRUPTED);
    })
}

fn lock() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock leaves the list itself valid; keep using it.
    IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(remove_in_flight() >= 1);
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
        remove_in_flight();
        assert!(!c.exists(), "registered file survived cleanup");
        drop(guard);
        assert!(!in_flight().contains(&c));
        // A failed creation registers nothing.
        let missing = dir.path().join("no/such/folder");
        let failed = create_registered(|| std::fs::write(&missing, b"x").map(|()| &missing));
        assert!(failed.is_err());
        assert!(!in_flight().contains(&missing));
    }
}
