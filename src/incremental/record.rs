//! The build record: what the last successful build of an EPUB read and wrote, as serde data
//! (postcard: compact and fast to read, since a rebuild of a 3000-chapter book reads thousands
//! of records), with a version and a checksum.
//!
//! The file is the magic line, the format version, the [`Head`] and the [`Body`], then a BLAKE3
//! checksum of everything before it. The head is all an up-to-date check needs (options, the
//! EPUB's stamp, a digest of every input's stamp, what the build reported), so a no-op rebuild
//! decodes no record of a chapter. Anything unexpected (another version, a bad checksum, a
//! record that does not decode) means no record: the cache is thrown away, as cargo does.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Hash;
use crate::diagnostic::Diagnostic;
use crate::project::FileStamp;
use crate::source::Detection;

const MAGIC: &[u8; 16] = b"epubforge-cache\n";

/// The version of the record's layout: a record of any other version is thrown away.
pub const VERSION: u32 = 9;

/// What an up-to-date check reads, and what the build reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Head {
    /// Hash of the epubforge version and the build options.
    pub options: Hash,
    /// When that build started (ns since the epoch).
    pub started: i128,
    /// The EPUB as that build left it.
    pub output: Option<FileStamp>,
    /// Number of input records.
    pub inputs: usize,
    /// [`super::inputs_digest`] of the input records.
    pub digest: Hash,
    /// The newest input stamp recorded ([`FileStamp::newest`]).
    pub newest: i128,
    /// The inputs whose stamps were too recent to trust when that build started (see
    /// [`super::RACY_SECS`]): their place among the inputs and the hash of their bytes, so
    /// that a no-op rebuild re-reads only those files, without decoding the body.
    pub racy: Vec<(u32, Hash)>,
    /// Number of chapter documents in the EPUB.
    pub chapters: usize,
    /// What converting each chapter source reported, in reading order.
    pub sources: Vec<SourceReport>,
    /// The other problems the build reported (cover, fonts, links).
    pub warnings: Vec<Diagnostic>,
    /// What the next build's quick check compares, for a project it serves.
    pub quick: Option<Quick>,
}

/// What converting one chapter source reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceReport {
    /// The encoding it was read with (WHATWG name).
    pub encoding: String,
    /// How the encoding was chosen.
    pub detection: Detection,
    /// Problems that did not stop its conversion.
    pub warnings: Vec<Diagnostic>,
    /// Its conversion read files the record does not list (images, mdBook includes): a book
    /// with such a chapter is never taken as up to date, since one of them may have changed.
    pub reads_other_files: bool,
}

/// The records of every input, chapter and entry: read only when a build is not up to date.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Body {
    /// Every input file: metadata, cover, stylesheets, fonts, then chapter files in order.
    pub inputs: Vec<InputRecord>,
    /// One record per chapter source, in reading order.
    pub sources: Vec<SourceRecord>,
    /// Name and hash of every entry of the EPUB that is not a chapter document.
    pub entries: Vec<(String, Hash)>,
    /// [`crate::package::frame_key`] of that build's book.
    pub frame: String,
    /// That book's `dcterms:modified`, which the frame key leaves out.
    pub modified: String,
}

/// One input file as the last build saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputRecord {
    /// The file.
    pub path: PathBuf,
    /// Its stamp when read.
    pub stamp: FileStamp,
    /// BLAKE3 of its bytes (empty when it could not be read).
    pub hash: Hash,
}

/// What the last build learnt about one chapter source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRecord {
    /// Hash of everything its conversion depends on (see [`super::plan`]).
    pub key: Hash,
    /// The chapters it made, in order.
    pub chapters: Vec<ChapterRecord>,
}

/// One chapter as packaged by the last build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChapterRecord {
    /// The chapter title.
    pub title: String,
    /// Its documents (more than one when split for size): entry name, and the hash of what
    /// the package stage puts around the body (title, language, position...).
    pub docs: Vec<(String, Hash)>,
}

/// A whole record.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// What an up-to-date check reads.
    pub head: Head,
    /// The rest.
    pub body: Body,
}

impl Record {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        file_bytes(&self.head, &body_bytes(&self.body))
    }

    /// Writes the record of the EPUB at `output` (whole, so a reader never sees half).
    pub fn save(&self, output: &Path) -> std::io::Result<()> {
        super::write_whole(&super::record_path(output), &self.to_bytes())
    }
}

/// The body, serialised: the bulk of a record, which a build serialises while it flushes the
/// EPUB, before it knows the EPUB's final stamp (which is in the head).
pub fn body_bytes(body: &Body) -> Vec<u8> {
    postcard::to_stdvec(body).unwrap_or_default()
}

/// Writes the record of the EPUB at `output` from its head and its serialised body.
pub fn save_parts(output: &Path, head: &Head, body: &[u8]) -> std::io::Result<()> {
    super::write_whole(&super::record_path(output), &file_bytes(head, body))
}

/// A record file's bytes: magic, version, head length, head, body, checksum.
fn file_bytes(head: &Head, body: &[u8]) -> Vec<u8> {
    let head = postcard::to_stdvec(head).unwrap_or_default();
    let mut out = Vec::with_capacity(MAGIC.len() + 8 + head.len() + body.len() + 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(body);
    let sum = super::hash(&out);
    out.extend_from_slice(&sum.0);
    out
}

/// Removes the record of the EPUB at `output`, if any.
pub fn remove(output: &Path) {
    let _ = std::fs::remove_file(super::record_path(output));
}

/// A record file read and verified, its head decoded and its body not yet.
#[derive(Debug)]
pub struct RecordFile {
    bytes: Vec<u8>,
    body: Range<usize>,
    /// The head.
    pub head: Head,
}

impl RecordFile {
    /// Reads the record of the EPUB at `output`; None when there is none, or any doubt.
    pub fn load(output: &Path) -> Option<RecordFile> {
        // A project may come with a FIFO by that name: never block on it.
        RecordFile::from_bytes(crate::fs::read(&super::record_path(output)).ok()?)
    }

    /// Verifies and splits a record file's bytes.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<RecordFile> {
        let end = bytes.len().checked_sub(16)?;
        let (content, sum) = bytes.split_at(end);
        if super::hash(content).0 != sum || !content.starts_with(MAGIC) {
            return None;
        }
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(
                content.get(at..at + 4)?.try_into().ok()?,
            ))
        };
        if word(MAGIC.len())? != VERSION {
            return None;
        }
        let head_at = MAGIC.len() + 8;
        let body_at = head_at.checked_add(word(MAGIC.len() + 4)? as usize)?;
        let head = postcard::from_bytes(content.get(head_at..body_at)?).ok()?;
        Some(RecordFile {
            body: body_at..end,
            bytes,
            head,
        })
    }

    /// The body as saved, to save again with another head ([`save_parts`]).
    pub fn body_bytes(&self) -> &[u8] {
        &self.bytes[self.body.clone()]
    }

    /// The records (the checksum was verified on loading); None if they do not decode.
    pub fn body(&self) -> Option<Body> {
        postcard::from_bytes(&self.bytes[self.body.clone()]).ok()
    }
}

/// What the next build's quick check compares ([`super::quick`] makes and reads it; it is
/// kept here, in the record that stores it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quick {
    /// The files the build read, then the folders whose listings decide what it reads; the
    /// metadata first. The chapter files are `paths[chapters.0..chapters.1]`, one per source.
    pub paths: Vec<PathBuf>,
    /// Where the chapter files are in `paths`.
    pub chapters: (usize, usize),
    /// [`super::inputs_digest`] of `paths` with their stamps (a missing path has `MISSING`).
    pub digest: Hash,
    /// The newest of the folders' stamps: a folder changed too close to the build is not
    /// trusted, as racy files are not.
    pub newest: i128,
    /// Whether the project was loaded with `--allow-outside-paths`.
    pub outside: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    pub(crate) fn sample() -> Record {
        let stamp = FileStamp {
            size: 1,
            mtime: -2,
            ctime: 3,
            inode: 4,
        };
        let warning = Diagnostic::warning(Code::ControlCharacters, "dropped\t\n")
            .at("/a b/1.txt")
            .line(Some(3))
            .hint("a hint");
        Record {
            head: Head {
                options: super::super::hash(b"o"),
                started: 1_700_000_000_000_000_000,
                output: Some(FileStamp { size: 10, ..stamp }),
                inputs: 1,
                digest: super::super::hash(b"d"),
                newest: 3,
                racy: vec![(0, super::super::hash(b"x"))],
                chapters: 1,
                sources: vec![SourceReport {
                    encoding: "GBK".into(),
                    detection: Detection::Guessed,
                    warnings: vec![warning.clone()],
                    reads_other_files: true,
                }],
                warnings: vec![warning],
                quick: None,
            },
            body: Body {
                inputs: vec![InputRecord {
                    path: "/a b/metadata.toml".into(),
                    stamp,
                    hash: super::super::hash(b"x"),
                }],
                sources: vec![SourceRecord {
                    key: super::super::hash(b"k"),
                    chapters: vec![ChapterRecord {
                        title: "第1章 风起".into(),
                        docs: vec![
                            (
                                "EPUB/text/chapter-0001.xhtml".into(),
                                super::super::hash(b"s"),
                            ),
                            (
                                "EPUB/text/chapter-0001-2.xhtml".into(),
                                super::super::hash(b"t"),
                            ),
                        ],
                    }],
                }],
                entries: vec![("EPUB/nav.xhtml".into(), super::super::hash(b"n"))],
                frame: "f".into(),
                modified: "2024-01-01T00:00:00Z".into(),
            },
        }
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let r = sample();
        let file = RecordFile::from_bytes(r.to_bytes()).unwrap();
        assert_eq!(file.head, r.head);
        assert_eq!(file.body(), Some(r.body));
    }

    #[test]
    fn a_damaged_or_foreign_record_is_thrown_away() {
        let bytes = sample().to_bytes();
        for at in [0, 16, 20, 30, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert!(RecordFile::from_bytes(damaged).is_none(), "byte {at}");
        }
        assert!(RecordFile::from_bytes(bytes[..bytes.len() - 1].to_vec()).is_none());
        assert!(RecordFile::from_bytes(Vec::new()).is_none());
        // Another version, checksummed as it should be: still thrown away.
        let mut other = bytes[..bytes.len() - 16].to_vec();
        other[16..20].copy_from_slice(&(VERSION + 1).to_le_bytes());
        let sum = super::super::hash(&other);
        other.extend_from_slice(&sum.0);
        assert!(RecordFile::from_bytes(other).is_none());
    }
}
