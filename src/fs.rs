//! Reading a project's input files safely: every read of a file named by a project (chapters,
//! metadata, cover, images, stylesheets, fonts) goes through here.
//!
//! A project may come from a stranger, so a path it names may be a FIFO (opening it for reading
//! would wait forever for a writer), a device (`/dev/zero` never ends) or a folder. [`read`]
//! opens without blocking, refuses anything but a regular file, and [`read_limited`] also stops
//! at a size cap instead of reading whatever a file claims to hold. Errors name the path.
//! A file of the project is opened through the project folder's handle ([`open_beneath`], used
//! by `project::Boundary`), and read from that handle ([`read_file_limited`]). Files a caller
//! holds in memory for a folder ([`hold`]: `fix`'s chapters) are read before the folder.

#[cfg(unix)]
mod beneath;
mod held;

#[cfg(unix)]
pub use beneath::{Refusal, open_beneath};
pub use held::{Held, HeldFiles, Shared, held_in, hold, lexical, real_path};

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// Opens `path` for reading, refusing anything that is not a regular file (after following
/// symlinks) without ever blocking on a FIFO.
pub fn open_regular(path: &Path) -> Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // Opening a FIFO for reading blocks until a writer comes; non-blocking, it returns at
        // once and the type check below refuses it. A regular file ignores the flag.
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| Error::io(path, "cannot read", e))?;
    regular(file, path)
}

/// `file` (opened from `path`) when it is a regular file, looked at on the handle itself, not
/// by name: else an error naming `path` and what it is.
pub fn regular(file: File, path: &Path) -> Result<File> {
    let meta = file
        .metadata()
        .map_err(|e| Error::io(path, "cannot read", e))?;
    if let Some(kind) = irregular(&meta) {
        return Err(Error::io(
            path,
            "cannot read",
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("not a regular file but {kind}; name a regular file instead"),
            ),
        ));
    }
    Ok(file)
}

/// What a file is when it is not a regular file (`"a folder"`, `"a FIFO, socket or device"`),
/// from its metadata; None for a regular file.
pub fn irregular(meta: &std::fs::Metadata) -> Option<&'static str> {
    if meta.is_file() {
        None
    } else if meta.is_dir() {
        Some("a folder")
    } else {
        Some("a FIFO, socket or device")
    }
}

/// Refuses to have a finished file moved over `path` when something other than a regular
/// file is there: moving over a device (`-o /dev/null` as root) or a FIFO replaces it with a
/// regular file. Nothing there, a regular file or a symlink (the move replaces the link, not
/// what it points to) is fine.
pub fn check_replaceable(path: &Path) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Ok(());
    };
    match irregular(&meta) {
        Some(kind) if !meta.file_type().is_symlink() => Err(Error::io(
            path,
            "cannot write the EPUB here",
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "not a regular file but {kind}, which writing would replace; name a regular file (or write to standard output with -o -)"
                ),
            ),
        )),
        _ => Ok(()),
    }
}

/// Reads a whole regular file, naming the path on failure.
pub fn read(path: &Path) -> Result<Vec<u8>> {
    read_limited(path, u64::MAX, "file")
}

/// Reads a whole regular file of at most `limit` bytes; a larger one is an error naming `what`
/// it is (`"image"`, `"cover"`) and the limit, without reading past the limit.
pub fn read_limited(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    read_file_limited(open_regular(path)?, path, limit, what)
}

/// [`read_limited`] from a file already opened (from `path`, named in errors).
pub fn read_file_limited(file: File, path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > limit {
        return Err(too_large(path, what, limit));
    }
    let mut bytes = Vec::with_capacity(size.min(limit) as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, "cannot read", e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, what, limit));
    }
    Ok(bytes)
}

/// The error for a file over its cap: names the file, what it is and the limit.
pub fn too_large(path: &Path, what: &str, limit: u64) -> Error {
    Error::io(
        path,
        "cannot read",
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "this {what} is larger than the limit of {} MB; use a smaller file",
                limit / 1_000_000
            ),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read(&p).unwrap(), b"hello");
        assert_eq!(read_limited(&p, 5, "file").unwrap(), b"hello");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.png");
        std::fs::write(&p, [0u8; 100]).unwrap();
        let e = read_limited(&p, 99, "image").unwrap_err().to_string();
        assert!(e.contains("big.png") && e.contains("image"), "{e}");
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_and_links_may_be_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.epub");
        assert!(check_replaceable(&file).is_ok(), "nothing there yet");
        std::fs::write(&file, "x").unwrap();
        assert!(check_replaceable(&file).is_ok());
        let link = dir.path().join("null.epub");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        assert!(
            check_replaceable(&link).is_ok(),
            "a link is replaced, not its target"
        );
        for refused in [Path::new("/dev/null"), dir.path()] {
            let e = check_replaceable(refused).unwrap_err().to_string();
            assert!(
                e.contains("not a regular file") && e.contains("-o -"),
                "{e}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_instead_of_read_forever() {
        let e = read(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&p)
            .status()
            .unwrap();
        assert!(status.success());
        let e = read(&p).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }
}
