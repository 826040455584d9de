//! The archive stage: the package's entries in, an EPUB file on disk out.
//!
//! The last stage of the pipeline. `mimetype` is the first entry, stored, with no extra field;
//! every entry gets the same fixed time and permissions so the same entries always give the
//! same bytes. Entries are compressed in parallel, then appended in order. The file is written
//! to a temporary file in the target's folder and renamed over the target only once complete,
//! so a failed or interrupted build never leaves a broken EPUB where a good one was.

use std::io::{Seek, Write};
use std::path::Path;

use rayon::prelude::*;
use zip::write::{PreparedZipFile, SimpleFileOptions};
use zip::{CompressionMethod, ZipWriter};

use crate::error::{Error, Result};
use crate::package::Entry;

/// The deflate level: zip's usual default, the best trade of size for time on text.
const LEVEL: i64 = 6;

fn options(compress: bool) -> SimpleFileOptions {
    let method = if compress {
        CompressionMethod::Deflated
    } else {
        CompressionMethod::Stored
    };
    SimpleFileOptions::default()
        .compression_method(method)
        .compression_level(compress.then_some(LEVEL))
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
}

/// Compresses every entry (in parallel) and writes the archive to `out`.
pub fn write_to<W: Write + Seek>(entries: &[Entry], out: W) -> zip::result::ZipResult<W> {
    let prepared: Vec<PreparedZipFile> = entries
        .par_iter()
        .map(|e| PreparedZipFile::from_data(&e.name, options(e.compress), &e.data))
        .collect::<zip::result::ZipResult<_>>()?;
    let mut zip = ZipWriter::new(out);
    for file in prepared {
        zip.add_prepared_file(file)?;
    }
    zip.finish()
}

/// Writes the EPUB atomically: to a temporary file beside `path`, then renamed over it.
pub fn write_epub(entries: &[Entry], path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(dir, "cannot create the output folder", e))?;
    let tmp = tempfile::Builder::new()
        .prefix(".epubforge-")
        .suffix(".epub.tmp")
        .tempfile_in(dir)
        .map_err(|e| {
            Error::io(
                dir,
                "cannot create a temporary file in the output folder",
                e,
            )
        })?;
    // A signal skips `tmp`'s destructor; the interrupt handler deletes the file instead.
    let _in_flight = crate::interrupt::register(tmp.path());
    let file = std::io::BufWriter::with_capacity(1 << 20, tmp);
    let file = write_to(entries, file).map_err(|source| Error::Archive {
        path: path.to_path_buf(),
        source,
    })?;
    let tmp = file
        .into_inner()
        .map_err(|e| Error::io(path, "cannot write", e.into_error()))?;
    // A temporary file is private (0600); a book is an ordinary document.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = tmp
            .as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644));
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io(path, "cannot write", e))?;
    tmp.persist(path)
        .map_err(|e| Error::io(path, "cannot move the finished EPUB into place", e.error))?;
    Ok(())
}
