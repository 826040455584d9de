//! The build cache: what the last successful build of a book read and wrote, so the next build
//! can skip a book whose inputs have not changed, and reuse the compressed chapters of the
//! previous EPUB whose sources have not changed.
//!
//! Sits beside the pipeline: [`crate::build`] asks [`plan`] what the cache allows before
//! `convert` (to skip unchanged chapters), and hands the write stage the entries to copy raw
//! from the previous EPUB. The cache is one file per EPUB,
//! `<output folder>/.epubforge-cache/<file>.record` ([`record`]), safe to delete: serde data
//! with a version and a checksum. A record that is damaged, from another version, for other
//! options, or for an EPUB that has since been changed or replaced is thrown away, and the
//! build is a clean one.
//!
//! Change detection ([`inputs`]): a file whose stamp (size, modification and status change
//! times, inode: what git's index compares) is the one recorded is taken as unchanged without
//! reading it. Otherwise, and for "racy" files (changed less than [`RACY_SECS`] before the
//! recorded build started, when a later write could keep the same times, as git handles it),
//! the file is read and its BLAKE3 hash compared, so touching a file without changing it
//! rebuilds nothing.

pub(crate) mod inputs;
pub(crate) mod plan;
pub(crate) mod quick;
pub(crate) mod record;

use std::path::{Path, PathBuf};

use crate::interrupt::write_whole;
use crate::project::FileStamp;
use crate::project::{CACHE_DIR, RECORD_SUFFIX};

/// A file changed this close before a build started is re-read by the next build.
pub const RACY_SECS: i128 = 2;

/// The first 16 bytes of a BLAKE3 hash: 128 bits are far beyond what telling thousands of
/// files and settings apart needs (cargo's fingerprints have 64), and a record holds a few
/// per chapter. [`Hash::default`] (all zeros) is the empty hash: a file that could not be read.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize)]
pub struct Hash([u8; 16]);

impl Hash {
    /// Whether this is the empty hash.
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 16]
    }
}

impl std::fmt::Display for Hash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl std::fmt::Debug for Hash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Hash({self})")
    }
}

fn short(hash: blake3::Hash) -> Hash {
    let mut bytes = [0; 16];
    bytes.copy_from_slice(&hash.as_bytes()[..16]);
    Hash(bytes)
}

/// Hashes bytes (BLAKE3).
pub fn hash(data: &[u8]) -> Hash {
    short(blake3::hash(data))
}

/// Hashes several fields, each length-prefixed so that no two lists give the same input.
pub fn hash_fields(fields: &[&[u8]]) -> Hash {
    let mut h = blake3::Hasher::new();
    for f in fields {
        h.update(&(f.len() as u64).to_le_bytes());
        h.update(f);
    }
    short(h.finalize())
}

/// One hash of every input's path and stamp, in order: equal digests mean no input was
/// touched, which lets an up-to-date book be recognised without comparing record by record.
pub fn inputs_digest<'a>(inputs: impl IntoIterator<Item = (&'a Path, FileStamp)>) -> Hash {
    // Laid out in one buffer and hashed at once: BLAKE3 hashes a long input many chunks at a
    // time (6000 short updates took about 3% of a no-op rebuild's CPU).
    let inputs = inputs.into_iter();
    let mut bytes = Vec::with_capacity(inputs.size_hint().0 * 112);
    for (path, stamp) in inputs {
        let path = path.as_os_str().as_encoded_bytes();
        bytes.extend_from_slice(&(path.len() as u64).to_le_bytes());
        bytes.extend_from_slice(path);
        bytes.extend_from_slice(&stamp.size.to_le_bytes());
        bytes.extend_from_slice(&stamp.mtime.to_le_bytes());
        bytes.extend_from_slice(&stamp.ctime.to_le_bytes());
        bytes.extend_from_slice(&stamp.inode.to_le_bytes());
    }
    hash(&bytes)
}

/// What identifies the program that made a record: its version and, because a development
/// build keeps the version of the last release, the size and modification time of its
/// executable. A record made by another build of epubforge is not trusted.
pub(crate) fn program_id() -> &'static [u8] {
    static ID: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().and_then(std::fs::metadata).ok();
        let stamp = exe.map(|m| (m.len(), m.modified().ok()));
        format!("{} {stamp:?}", env!("CARGO_PKG_VERSION")).into_bytes()
    })
}

/// The folder of the build cache of the EPUB at `output`.
pub fn cache_dir(output: &Path) -> PathBuf {
    match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join(CACHE_DIR),
        _ => PathBuf::from(CACHE_DIR),
    }
}

/// Where the record of the EPUB at `output` lives.
pub fn record_path(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "book.epub".into());
    cache_dir(output).join(format!("{name}{RECORD_SUFFIX}"))
}

/// Stamps changed at or after this time are not trusted by a build that started at `started`
/// (both nanoseconds since the epoch): such files are compared by content (see [`RACY_SECS`]).
pub fn trusted_before(started: i128) -> i128 {
    started - RACY_SECS * 1_000_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_differ_by_content_and_field_boundaries() {
        assert_eq!(hash(b"x"), hash(b"x"));
        assert_ne!(hash(b"x"), hash(b"y"));
        assert_eq!(hash(b"x").to_string(), blake3::hash(b"x").to_hex()[..32]);
        assert!(Hash::default().is_empty() && !hash(b"").is_empty());
        assert_ne!(hash_fields(&[b"ab", b"c"]), hash_fields(&[b"a", b"bc"]));
    }

    #[test]
    fn the_inputs_digest_follows_every_field_of_every_stamp() {
        let stamp = FileStamp {
            size: 12,
            mtime: -3,
            ctime: 5,
            inode: 7,
        };
        let base = inputs_digest([(Path::new("a"), stamp)]);
        let changes = [
            FileStamp { size: 13, ..stamp },
            FileStamp { mtime: 4, ..stamp },
            FileStamp { ctime: 6, ..stamp },
            FileStamp { inode: 8, ..stamp },
        ];
        for changed in changes {
            assert_ne!(
                inputs_digest([(Path::new("a"), changed)]),
                base,
                "{changed:?}"
            );
        }
        assert_ne!(inputs_digest([(Path::new("b"), stamp)]), base);
        assert_ne!(
            inputs_digest([(Path::new("a"), stamp), (Path::new("a"), stamp)]),
            base
        );
    }
}
