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

use std::path::{Path, PathBuf};

use std::time::SystemTime;

use rayon::prelude::*;

use super::record::{Head, InputRecord, Quick, RecordFile};
use super::{CACHE_DIR, Hash, inputs_digest, trusted_before};
use crate::project::{FileStamp, OUTPUT_FOLDER, Project, locate, nanos};

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

    /// Whether every path still has the stamp recorded, none of them too new to be trusted by
    /// a build that started at `started`.
    fn holds(&self, started: i128) -> bool {
        if self.newest >= trusted_before(started) {
            return false;
        }
        // Stamped on every core: a hand-kept list of 3000 chapters is 3000 stats, the bulk of
        // a no-op rebuild, and of the work an edit's rebuild throws away here.
        let stamps: Vec<FileStamp> = (self.paths.par_iter().with_min_len(256))
            .map(|p| stamp(p))
            .collect();
        inputs_digest(self.paths.iter().map(PathBuf::as_path).zip(stamps)) == self.digest
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

/// The record of an up-to-date book found without loading it: the project at `location` (a
/// folder or its metadata file), building to `output` (None: the default output, found
/// through the pointer), with `options` (the key of the build options) and `outside`
/// (`--allow-outside-paths`). None whenever the quick check cannot vouch for it.
pub(crate) fn up_to_date(
    location: &Path,
    output: Option<&Path>,
    options: &dyn Fn(&Path) -> Hash,
    outside: bool,
) -> Option<(PathBuf, Head)> {
    let (root, metadata) = locate(location);
    let output = match output {
        Some(o) => o.to_path_buf(),
        None => default_output(&root, outside)?,
    };
    let record = RecordFile::load(&output)?;
    let head = &record.head;
    let quick = head.quick.as_ref()?;
    let trusted = head.options == options(&output)
        && head.output.is_some()
        && FileStamp::of_path(&output) == head.output
        && !head.sources.iter().any(|s| s.reads_other_files)
        && quick.outside == outside
        && quick.paths.first() == Some(&metadata)
        && quick.chapters().len() == head.sources.len()
        && quick.holds(head.started)
        && racy_files_hold(&record, &output);
    trusted.then_some((output, record.head))
}

/// Whether the inputs changed too close to the recorded build to trust their stamps (a chapter
/// edited just before the last build: the first no-op after an edit) still hold the bytes that
/// build hashed. Only those files are read, as the full check would read them; the rest are
/// vouched for by their stamps ([`Quick::holds`]). Once every stamp is old enough to trust, the
/// record is saved again with this check's start, so that later no-ops read nothing.
fn racy_files_hold(record: &RecordFile, output: &Path) -> bool {
    let head = &record.head;
    let racy_after = trusted_before(head.started);
    if head.newest < racy_after {
        return true;
    }
    let Some(body) = record.body() else {
        return false;
    };
    let racy: Vec<&InputRecord> = (body.inputs.iter())
        .filter(|r| r.stamp.newest() >= racy_after)
        .collect();
    let hold = racy.iter().all(|r| {
        let now = crate::fs::read(&r.path).map(|bytes| super::hash(&bytes));
        !r.hash.is_empty() && now.is_ok_and(|h| h == r.hash)
    });
    let started = nanos(SystemTime::now());
    if hold && head.newest < trusted_before(started) {
        let head = Head {
            started,
            ..head.clone()
        };
        let _ = super::record::save_parts(output, &head, record.body_bytes());
    }
    hold
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
    use crate::incremental::record::{Body, Record};

    /// A record of one input, `file`, hashed as `recorded`, by a build that started at `started`.
    fn record(file: &Path, recorded: &[u8], started: i128) -> RecordFile {
        let stamp = FileStamp::of_path(file).unwrap();
        let head = Head {
            options: Hash::default(),
            started,
            output: None,
            inputs: 1,
            digest: Hash::default(),
            newest: stamp.newest(),
            chapters: 0,
            sources: Vec::new(),
            warnings: Vec::new(),
            quick: None,
        };
        let body = Body {
            inputs: vec![InputRecord {
                path: file.to_path_buf(),
                stamp,
                hash: super::super::hash(recorded),
            }],
            ..Body::default()
        };
        RecordFile::from_bytes(Record { head, body }.to_bytes()).unwrap()
    }

    #[test]
    fn a_racy_input_is_vouched_for_by_its_bytes_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (file, output) = (dir.path().join("a.txt"), dir.path().join("out.epub"));
        std::fs::write(&file, "now").unwrap();
        let changed = FileStamp::of_path(&file).unwrap().newest();
        // Recorded by a build that started as the file was written: its stamp proves nothing,
        // its bytes decide.
        assert!(racy_files_hold(&record(&file, b"now", changed), &output));
        assert!(!racy_files_hold(&record(&file, b"then", changed), &output));
        // Long after the write the stamp is trusted, and the file is not read.
        let later = changed + 10 * 1_000_000_000;
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, "now").unwrap();
        let trusted = record(&file, b"then", later);
        std::fs::remove_file(&file).unwrap();
        assert!(racy_files_hold(&trusted, &output));
    }
}
