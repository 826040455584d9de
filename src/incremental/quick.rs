//! The quick check: a no-op rebuild decided before `metadata.toml` is parsed.
//!
//! Parsing the metadata and resolving every chapter path through the project's boundary is
//! most of a no-op rebuild of a book that lists its chapters one by one (3000 `[[chapters]]`
//! tables take longer to parse than the rest of the no-op). When nothing the project's loading
//! looked at has changed, its result cannot have changed either, so the last build's record
//! keeps a [`Quick`] key: every file the build read, and every folder whose listing decides
//! what it reads (the project folder, where a `cleanup.toml` or a `covers/` folder may appear;
//! `covers/` when no cover is named; the folder of every input), with a digest of their
//! stamps. The next build stats those paths and, when the digest, the options and the EPUB's
//! own stamp are the ones recorded, reports the book up to date without loading it.
//!
//! A file whose stamp is racy (see [`super::RACY_SECS`]: the chapter edited just before the
//! last build, so the first no-op after an edit) is read and its hash compared with the
//! recorded one, as the full check would; only those files are read. Once they are old enough
//! to trust, the record is saved again with a fresh start, so that later no-ops read nothing.
//!
//! Anything else falls back to the full check, which is always right: a changed stamp, a racy
//! folder, another spelling of the project's path, chapter globs (a glob's folders are many and
//! it already lists them fast), chapters that read other files (images, includes), `--strict`,
//! `--force`. Besides those racy files the quick check reads nothing of the project but
//! stamps. A build without `-o` finds its EPUB through a small pointer file in
//! `build/.epubforge-cache/` (the default output's file name depends on the title), written
//! only when the EPUB goes to the default `build/` folder.

use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use rayon::prelude::*;

use super::record::{Head, Quick, RecordFile};
use super::{CACHE_DIR, Hash, inputs_digest, trusted_before};
use crate::project::{FileStamp, LookedAt, OUTPUT_FOLDER, Project, locate, nanos};

/// The name of the pointer file to the default output's EPUB, in its cache folder.
const POINTER: &str = "default-output";

/// The stamp of a path that is not there (no real file has inode 0 and a zero mtime).
const MISSING: FileStamp = FileStamp {
    size: 0,
    mtime: 0,
    ctime: 0,
    inode: 0,
};

impl Quick {
    /// The key of `project` as loaded now, the files' stamps as the build saw them (`inputs`,
    /// in [`super::plan::input_paths`] order, chapters from `first_chapter`); None for a
    /// project the quick check does not serve (chapter globs).
    pub fn of(
        project: &Project,
        inputs: &[(&Path, FileStamp)],
        first_chapter: usize,
    ) -> Option<Quick> {
        if !serves(project) {
            return None;
        }
        let mut folders: Vec<PathBuf> = vec![project.root.clone()];
        if project.cover.is_none() {
            folders.push(project.root.join("covers"));
        }
        folders.extend(
            inputs
                .iter()
                .filter_map(|(p, _)| p.parent().map(Path::to_path_buf)),
        );
        folders.sort();
        folders.dedup();
        let folder_stamps: Vec<FileStamp> = folders.iter().map(|f| stamp(f)).collect();
        let mut paths: Vec<PathBuf> = inputs.iter().map(|(p, _)| p.to_path_buf()).collect();
        let stamps = inputs
            .iter()
            .map(|&(_, s)| s)
            .chain(folder_stamps.iter().copied());
        paths.extend(folders);
        let digest = inputs_digest(paths.iter().map(PathBuf::as_path).zip(stamps));
        Some(Quick {
            chapters: (first_chapter, inputs.len()),
            digest,
            newest: folder_stamps
                .iter()
                .map(FileStamp::newest)
                .max()
                .unwrap_or(0),
            outside: project.boundary.is_open(),
            paths,
        })
    }

    /// The stamps of the paths, when every path still has the stamp recorded and no folder's
    /// is too new to be trusted by a build that started at `started`; otherwise what was
    /// looked at, for the load that follows (None when nothing was).
    fn holds(&self, started: i128) -> Result<Vec<FileStamp>, Option<Arc<LookedAt>>> {
        if self.newest >= trusted_before(started) {
            return Err(None);
        }
        // Looked at on every core: a hand-kept list of 3000 chapters is 3000 stats, the bulk
        // of a no-op rebuild, and what an edit's rebuild hands to the load.
        let looks: Vec<(FileStamp, Option<Metadata>)> = (self.paths.par_iter().with_min_len(256))
            .map(|p| look(p))
            .collect();
        let stamps = looks.iter().map(|(s, _)| *s);
        if inputs_digest(self.paths.iter().map(PathBuf::as_path).zip(stamps)) == self.digest {
            return Ok(looks.into_iter().map(|(s, _)| s).collect());
        }
        let looked = (self.paths.iter().zip(looks))
            .filter_map(|(path, (_, meta))| Some((path.as_os_str().to_owned(), meta?)))
            .collect();
        Err(Some(Arc::new(looked)))
    }

    /// The chapter files, in reading order.
    pub fn chapters(&self) -> &[PathBuf] {
        self.paths
            .get(self.chapters.0..self.chapters.1)
            .unwrap_or(&[])
    }
}

/// Whether the quick check serves `project`: not one that makes several EPUBs (targets or
/// volumes named in its metadata: it is loaded to know which), nor one whose chapters a glob
/// finds.
fn serves(project: &Project) -> bool {
    project.targets.len() <= 1 && project.volumes.is_none() && project.chapter_globs.is_empty()
}

/// A path's stamp, [`MISSING`] when it is not there.
fn stamp(path: &Path) -> FileStamp {
    FileStamp::of_path(path).unwrap_or(MISSING)
}

/// A path's stamp (its target's, through a symlink; [`MISSING`] when it is not there), and its
/// metadata when it is a regular file, not a symlink: what the project's loading would look
/// at ([`LookedAt`]).
fn look(path: &Path) -> (FileStamp, Option<Metadata>) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() => {
            (FileStamp::of(&meta).unwrap_or(MISSING), Some(meta))
        }
        Ok(meta) if !meta.file_type().is_symlink() => {
            (FileStamp::of(&meta).unwrap_or(MISSING), None)
        }
        Ok(_) => (stamp(path), None),
        Err(_) => (MISSING, None),
    }
}

/// What a quick check that cannot vouch for a book hands to the build that follows, so that
/// it is not done twice: the files it looked at (for the project's loading), and the record it
/// read, with the EPUB it is for.
#[derive(Default)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) struct Handed {
    /// The regular files looked at, when the key's stamps were.
    pub(crate) looked: Option<Arc<LookedAt>>,
    /// The record read, and the EPUB it is for.
    pub(crate) record: Option<Box<(PathBuf, RecordFile)>>,
}

impl Handed {
    fn of(output: PathBuf, record: RecordFile, looked: Option<Arc<LookedAt>>) -> Handed {
        Handed {
            looked,
            record: Some(Box::new((output, record))),
        }
    }
}

/// The record of an up-to-date book found without loading it: the project at `location` (a
/// folder or its metadata file), building to `output` (None: the default output, found
/// through the pointer), with `options` (the key of the build options) and `outside`
/// (`--allow-outside-paths`). Whenever the quick check cannot vouch for it, what it read and
/// looked at on the way, for the build that follows.
pub(crate) fn up_to_date(
    location: &Path,
    output: Option<&Path>,
    options: &dyn Fn(&Path) -> Hash,
    outside: bool,
) -> Result<(PathBuf, Head), Handed> {
    let (root, metadata) = locate(location);
    let output = match output {
        Some(o) => o.to_path_buf(),
        None => default_output(&root, outside).ok_or_else(Handed::default)?,
    };
    let record = RecordFile::load(&output).ok_or_else(Handed::default)?;
    let head = &record.head;
    let trusted = head.quick.as_ref().is_some_and(|quick| {
        head.options == options(&output)
            && head.output.is_some()
            && FileStamp::of_path(&output) == head.output
            && !head.sources.iter().any(|s| s.reads_other_files)
            && quick.outside == outside
            && quick.paths.first() == Some(&metadata)
            && quick.chapters().len() == head.sources.len()
    });
    let Some(quick) = head.quick.as_ref().filter(|_| trusted) else {
        return Err(Handed::of(output, record, None));
    };
    match quick.holds(head.started) {
        Ok(stamps) if racy_files_hold(&record, &output, &stamps) => Ok((output, record.head)),
        Ok(_) => Err(Handed::of(output, record, None)),
        Err(looked) => Err(Handed::of(output, record, looked)),
    }
}

/// Whether the inputs changed too close to the recorded build to trust their stamps (a chapter
/// edited just before the last build: the first no-op after an edit) still hold the bytes that
/// build hashed ([`super::plan::racy_hold`]: only those files are read, and the record's body
/// is not decoded); `stamps` are those of the key's paths, found as recorded. Once every stamp
/// is old enough to trust, the record is saved again with this check's start, so that later
/// no-ops read nothing.
fn racy_files_hold(record: &RecordFile, output: &Path, stamps: &[FileStamp]) -> bool {
    let head = &record.head;
    let Some(quick) = &head.quick else {
        return false;
    };
    let input = |i: usize| {
        (i < head.inputs)
            .then(|| Some((quick.paths.get(i)?.as_path(), *stamps.get(i)?)))
            .flatten()
    };
    if !super::plan::racy_hold(head, input) {
        return false;
    }
    let started = nanos(SystemTime::now());
    if !head.racy.is_empty() && head.newest < trusted_before(started) {
        let head = Head {
            started,
            racy: Vec::new(),
            ..head.clone()
        };
        let _ = super::record::save_parts(output, &head, record.body_bytes());
    }
    true
}

/// The EPUB the pointer in the default output folder names, when that folder lies inside the
/// project (or `outside` allows it) and the pointer holds a bare file name.
fn default_output(root: &Path, outside: bool) -> Option<PathBuf> {
    let folder = root.join(OUTPUT_FOLDER);
    let boundary = crate::project::Boundary::new(root, outside);
    boundary.check(&folder).ok()?;
    let pointer = folder.join(CACHE_DIR).join(POINTER);
    let name = boundary.read_limited(&pointer, 4096, "build cache").ok()?;
    let name = String::from_utf8(name).ok()?;
    let bare = Path::new(&name).file_name() == Some(name.as_ref()) && name != "..";
    bare.then(|| folder.join(name))
}

/// Points the quick check of a build without `-o` at `output`, when it is the project's
/// default output in `build/` (a build with `[output] path` elsewhere leaves no pointer).
pub(crate) fn remember_default(project: &Project, output: &Path) {
    let folder = project.root.join(OUTPUT_FOLDER);
    let (Some(parent), Some(name)) = (output.parent(), output.file_name()) else {
        return;
    };
    let Some(name) = name.to_str() else {
        return;
    };
    if parent != folder || !serves(project) {
        return;
    }
    let pointer = folder.join(CACHE_DIR).join(POINTER);
    if std::fs::read(&pointer).is_ok_and(|held| held == name.as_bytes()) {
        return;
    }
    let _ = super::write_whole(&pointer, name.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::incremental::plan::racy_inputs;
    use crate::incremental::record::{Body, InputRecord, Record};

    /// A record of one input, `file`, hashed as `recorded`, by a build that started at
    /// `started`; its head lists the input as racy when its stamp is too recent for that start.
    fn record(file: &Path, recorded: &[u8], started: i128) -> (RecordFile, FileStamp) {
        let stamp = FileStamp::of_path(file).unwrap();
        let inputs = vec![InputRecord {
            path: file.to_path_buf(),
            stamp,
            hash: super::super::hash(recorded),
        }];
        let head = Head {
            options: Hash::default(),
            started,
            output: None,
            inputs: 1,
            digest: Hash::default(),
            newest: stamp.newest(),
            racy: racy_inputs(&inputs, started),
            chapters: 0,
            sources: Vec::new(),
            warnings: Vec::new(),
            quick: Some(Quick {
                paths: vec![file.to_path_buf()],
                chapters: (1, 1),
                digest: Hash::default(),
                newest: 0,
                outside: false,
            }),
        };
        let body = Body {
            inputs,
            ..Body::default()
        };
        let bytes = Record { head, body }.to_bytes();
        (RecordFile::from_bytes(bytes).unwrap(), stamp)
    }

    /// [`racy_files_hold`] of a record made by [`record`].
    fn holds((record, stamp): (RecordFile, FileStamp), output: &Path) -> bool {
        racy_files_hold(&record, output, &[stamp])
    }

    #[test]
    fn a_key_that_no_longer_holds_hands_its_regular_files_to_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "a").unwrap();
        let paths = vec![
            file.clone(),
            dir.path().to_path_buf(),
            dir.path().join("gone"),
        ];
        let stamps: Vec<FileStamp> = paths.iter().map(|p| stamp(p)).collect();
        let mut key = Quick {
            digest: inputs_digest(paths.iter().map(PathBuf::as_path).zip(stamps.clone())),
            paths,
            chapters: (0, 1),
            newest: 0,
            outside: false,
        };
        let later = nanos(SystemTime::now()) + 10 * 1_000_000_000;
        assert_eq!(key.holds(later).ok(), Some(stamps));
        key.digest = Hash::default();
        let looked = key.holds(later).unwrap_err().unwrap();
        // The file, not the folder, nor what is not there.
        assert_eq!(looked.keys().collect::<Vec<_>>(), [file.as_os_str()]);
        // A folder too new to trust: nothing is looked at.
        key.newest = later;
        assert!(key.holds(later).unwrap_err().is_none());
    }

    #[test]
    fn a_racy_input_is_vouched_for_by_its_bytes_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (file, output) = (dir.path().join("a.txt"), dir.path().join("out.epub"));
        std::fs::write(&file, "now").unwrap();
        let changed = FileStamp::of_path(&file).unwrap().newest();
        // Recorded by a build that started as the file was written: its stamp proves nothing,
        // its bytes decide.
        assert!(holds(record(&file, b"now", changed), &output));
        assert!(!holds(record(&file, b"then", changed), &output));
        // A head that does not list the racy file vouches for nothing.
        let (mut unlisted, stamp) = record(&file, b"now", changed);
        unlisted.head.racy.clear();
        assert!(!racy_files_hold(&unlisted, &output, &[stamp]));
        // Long after the write the stamp is trusted, and the file is not read.
        let later = changed + 10 * 1_000_000_000;
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, "now").unwrap();
        let trusted = record(&file, b"then", later);
        std::fs::remove_file(&file).unwrap();
        assert!(trusted.0.head.racy.is_empty());
        assert!(holds(trusted, &output));
    }
}
