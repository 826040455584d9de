//! What the cache allows a build: up to date (nothing to do), or which chapter sources to take
//! as recorded instead of converting them. A source's key says everything its conversion
//! depends on; a source is reused only when its key is the one recorded.

use std::path::Path;
use std::time::SystemTime;

use super::inputs::{Inputs, check_inputs};
use super::record::Quick;
use super::record::{self, Body, Head, InputRecord, Record, RecordFile, SourceRecord};
use super::{Hash, hash_fields, inputs_digest, trusted_before};
use crate::archive::{self, PreviousEpub};
use crate::book::{Chapter, Node};
use crate::convert::SourceKind;
use crate::convert::book::SourceOutcome;
use crate::convert::chapter::{ConvertedChapter, SourceReport};
use crate::diagnostic::Diagnostic;
use crate::project::{ChapterSource, FileStamp, Project, nanos};

/// What the cache allows this build.
pub(crate) enum Plan {
    /// Nothing changed: report what the last build reported.
    UpToDate(Recorded),
    /// Build, taking what [`Reuse`] allows.
    Build(Box<Reuse>),
}

/// What the last build of an up-to-date book reported, to report again.
pub(crate) struct Recorded {
    /// Number of chapter documents.
    pub chapters: usize,
    /// Size of the EPUB.
    pub bytes: u64,
    /// The warnings of that build.
    pub warnings: Vec<Diagnostic>,
    /// How each chapter file was decoded.
    pub sources: Vec<SourceReport>,
}

/// What a build that writes may take from the last one, and what it needs to record itself.
pub(crate) struct Reuse {
    options: Hash,
    started: i128,
    /// The quick check's key of the project as loaded, for the record.
    quick: Option<Quick>,
    inputs: Vec<InputRecord>,
    /// The cache key of each chapter source.
    keys: Vec<Hash>,
    /// Whether each chapter source is taken from the cache as the last build recorded it.
    reused: Vec<bool>,
    /// What converting each chapter source reported in the last build.
    reports: Vec<record::SourceReport>,
    /// The previous EPUB, to copy entries from, and the last build's records (when some
    /// source is reused).
    pub previous: Option<(PreviousEpub, Body)>,
}

/// The inputs a build records, in order: metadata, the shared cleanup rules, an mdBook's
/// `book.toml` (the settings every chapter's conversion reads), cover, stylesheets, fonts,
/// then chapters (with the stamp the project's listing saw, when it has
/// one); and where the chapters start.
pub(crate) fn input_paths(project: &Project) -> (Vec<(&Path, Option<FileStamp>)>, usize) {
    let mut paths: Vec<(&Path, Option<FileStamp>)> = vec![(&project.metadata_path, None)];
    paths.extend(project.cleanup_file.as_deref().map(|p| (p, None)));
    paths.extend(project.mdbook.as_ref().map(|m| (m.toml.as_path(), None)));
    paths.extend(project.cover.as_deref().map(|p| (p, None)));
    paths.extend(project.style.css.iter().map(|p| (p.as_path(), None)));
    paths.extend(project.style.fonts.iter().map(|f| (f.path.as_path(), None)));
    let first_chapter = paths.len();
    paths.extend(project.chapters().map(|s| (s.path.as_path(), s.stamp)));
    (paths, first_chapter)
}

/// Hash of what, besides the inputs, decides the EPUB's bytes: the program, the build options
/// and the target the EPUB is made for.
pub(crate) fn options_key(
    source_date_epoch: Option<i64>,
    output: &Path,
    target: crate::book::Target,
) -> Hash {
    hash_fields(&[
        super::program_id(),
        format!("{source_date_epoch:?}").as_bytes(),
        output.to_string_lossy().as_bytes(),
        format!("{} {} {}", archive::LEVEL, archive::FORMAT, record::VERSION).as_bytes(),
        target.name().as_bytes(),
    ])
}

/// Decides what the cache allows a build of `project` into `output`, given the last build's
/// record (None: a clean build).
pub(crate) fn plan(
    project: &Project,
    output: &Path,
    options: Hash,
    last: Option<RecordFile>,
) -> Plan {
    let started = nanos(SystemTime::now());
    let sources: Vec<&ChapterSource> = project.chapters().collect();
    let (paths, first_chapter) = input_paths(project);
    let last = last.filter(|r| {
        r.head.options == options
            && r.head.output.is_some()
            && FileStamp::of_path(output) == r.head.output
    });
    let quick = |stamps: &[(&Path, FileStamp)]| Quick::of(project, stamps, first_chapter);
    if let Some(r) = &last
        && let Some(stamps) = stamps_now(&paths)
        && let Some(recorded) = up_to_date(&r.head, &stamps, &sources)
    {
        keep_quick(r, quick(&stamps), (started, &stamps), output);
        return Plan::UpToDate(recorded);
    }
    // Not obviously up to date: compare input by input (a touched file may still hold the
    // same bytes) and see which chapters can be reused. Meanwhile, the previous EPUB's
    // directory is read on another core, in case some can.
    let ((last, inputs), epub) = rayon::join(
        || {
            let body = last.as_ref().and_then(RecordFile::body);
            let last = last.zip(body).map(|(file, body)| (file.head, body));
            let inputs = check_inputs(&paths, last.as_ref().map(|(h, b)| (h, b)));
            (last, inputs)
        },
        || archive::open_previous(output).ok(),
    );
    let key = quick(&inputs.stamps());
    if let Some((head, body)) = &last
        && unchanged(head, body, &inputs, &sources)
    {
        refresh_racy(head, body, started, output, key.clone());
        if let Some(recorded) = recorded(head, &sources) {
            return Plan::UpToDate(recorded);
        }
    }
    let settings =
        usize::from(project.cleanup_file.is_some()) + usize::from(project.mdbook.is_some()) + 1;
    let keys = keys(&sources, &inputs, settings, first_chapter, last.as_ref());
    let Some((epub, (head, body))) = epub.zip(last) else {
        return Plan::Build(Box::new(Reuse {
            options,
            started,
            quick: key,
            inputs: inputs.records,
            reused: vec![false; keys.len()],
            keys,
            reports: Vec::new(),
            previous: None,
        }));
    };
    let reused = reused(project, &sources, &keys, &head, &body);
    let any = reused.iter().any(|&r| r);
    Plan::Build(Box::new(Reuse {
        options,
        started,
        quick: key,
        inputs: inputs.records,
        keys,
        reused,
        reports: head.sources,
        previous: any.then_some((epub, body)),
    }))
}

/// Which chapter sources are taken as the last build recorded them: those whose key is the
/// one recorded and that make one chapter of plain text.
fn reused(
    project: &Project,
    sources: &[&ChapterSource],
    keys: &[Hash],
    head: &Head,
    body: &Body,
) -> Vec<bool> {
    // An embedded font is subset to the characters of every chapter, so a chapter whose body
    // is not read cannot be vouched for: no reuse (an unchanged book is still up to date).
    if !project.style.fonts.is_empty()
        || body.sources.len() != sources.len()
        || head.sources.len() != sources.len()
    {
        return vec![false; sources.len()];
    }
    (sources.iter().zip(keys).zip(&body.sources))
        .map(|((src, key), rec)| {
            !key.is_empty() && *key == rec.key && reusable(src) && rec.chapters.len() == 1
        })
        .collect()
}

/// Whether every input is as recorded, stamps included.
fn unchanged(head: &Head, body: &Body, inputs: &Inputs, sources: &[&ChapterSource]) -> bool {
    !reads_other_files(head)
        && body.inputs.len() == inputs.records.len()
        && body.sources.len() == sources.len()
        && head.sources.len() == sources.len()
        && inputs.unchanged.iter().all(|&u| u)
        && inputs
            .records
            .iter()
            .zip(&body.inputs)
            .all(|(now, then)| now.stamp == then.stamp)
}

/// Whether the last build read files its record does not list: then it is built again.
fn reads_other_files(head: &Head) -> bool {
    head.sources.iter().any(|s| s.reads_other_files)
}

/// Files changed just before the last build had to be read again to be sure; once they are
/// old enough, a fresh start time lets the next check trust their stamps. The record is saved
/// again then, and when the quick check's key of the project as loaded now (`quick`) is new.
fn refresh_racy(head: &Head, body: &Body, started: i128, output: &Path, quick: Option<Quick>) {
    let racy = |started: i128| {
        let trusted = trusted_before(started);
        body.inputs.iter().any(|r| r.stamp.newest() >= trusted)
    };
    let fresh = racy(head.started) && !racy(started);
    if fresh || head.quick != quick {
        let record = Record {
            head: Head {
                started: if fresh { started } else { head.started },
                racy: if fresh { Vec::new() } else { head.racy.clone() },
                quick,
                ..head.clone()
            },
            body: body.clone(),
        };
        let _ = record.save(output);
    }
}

/// Saves the record of an up-to-date book again when the quick check's key of the project as
/// loaded now (`quick`) is not the one recorded, or is only trusted from this build's start
/// on, or some racy input is old enough now to be trusted (every input's stamp was found as
/// recorded, `stamps`, and the racy ones their bytes: `started` may replace the recorded
/// start).
fn keep_quick(
    file: &RecordFile,
    quick: Option<Quick>,
    (started, stamps): (i128, &[(&Path, FileStamp)]),
    output: &Path,
) {
    let head = &file.head;
    let trusted =
        |q: &Option<Quick>, at: i128| q.as_ref().is_some_and(|q| q.newest < trusted_before(at));
    // The racy inputs were read again just now and held their bytes: those older than the
    // racy window from this start on need not be read again.
    let racy: Vec<(u32, Hash)> = (head.racy.iter().copied())
        .filter(|&(i, _)| {
            stamps
                .get(i as usize)
                .is_some_and(|(_, s)| s.newest() >= trusted_before(started))
        })
        .collect();
    let gains = head.quick != quick
        || (!trusted(&quick, head.started) && trusted(&quick, started))
        || racy.len() < head.racy.len();
    if quick.is_none() && head.quick.is_none() && racy.len() == head.racy.len() || !gains {
        return;
    }
    let head = Head {
        started,
        quick,
        racy,
        ..head.clone()
    };
    let _ = record::save_parts(output, &head, file.body_bytes());
}

/// The stamp of every input now (the listing's where it has one); None when one is missing.
fn stamps_now<'a>(paths: &[(&'a Path, Option<FileStamp>)]) -> Option<Vec<(&'a Path, FileStamp)>> {
    paths
        .iter()
        .map(|&(path, known)| Some((path, known.or_else(|| FileStamp::of_path(path))?)))
        .collect()
}

/// The cache key of every chapter source: recorded for unchanged files when the metadata is
/// the same (sources are made from the metadata and the file list alone), computed otherwise.
/// The first `settings` inputs are the files a chapter's conversion depends on besides its
/// own: `metadata.toml`, the shared cleanup rules and `book.toml`.
fn keys(
    sources: &[&ChapterSource],
    inputs: &Inputs,
    settings: usize,
    first_chapter: usize,
    last: Option<&(Head, Body)>,
) -> Vec<Hash> {
    use rayon::prelude::*;
    let settings = settings.min(inputs.records.len());
    let hashes: Vec<&[u8]> = inputs.records[..settings]
        .iter()
        .map(|r| &r.hash.0[..])
        .collect();
    let meta_hash = hash_fields(&hashes);
    let same_sources = last.map(|(_, body)| body).filter(|body| {
        body.inputs.len() == inputs.records.len()
            && body.sources.len() == sources.len()
            && inputs.unchanged[..settings].iter().all(|&u| u)
            && body
                .inputs
                .iter()
                .zip(&inputs.records)
                .all(|(then, now)| then.path == now.path)
    });
    sources
        .par_iter()
        .enumerate()
        .map(|(i, src)| {
            if let Some(body) = same_sources
                && inputs.unchanged.get(first_chapter + i) == Some(&true)
            {
                return body.sources[i].key;
            }
            match inputs.records.get(first_chapter + i) {
                Some(r) if !r.hash.is_empty() => chapter_key(meta_hash, r.hash, src, i),
                _ => Hash::default(),
            }
        })
        .collect()
}

/// The cache key of chapter source `i` (0-based) read from `src`: everything its conversion
/// depends on.
fn chapter_key(meta_hash: Hash, content: Hash, src: &ChapterSource, i: usize) -> Hash {
    hash_fields(&[
        super::program_id(),
        &meta_hash.0,
        &content.0,
        &source_key(src),
        (i + 1).to_string().as_bytes(),
    ])
}

/// How a chapter source is to be read, for its cache key: every field of [`ChapterSource`]
/// except the stamp (a touched but unchanged file is still reused). The path goes in as its
/// bytes (formatting thousands of paths with `{:?}` was a noticeable part of a rebuild).
fn source_key(src: &ChapterSource) -> Vec<u8> {
    let ChapterSource {
        path,
        title,
        line,
        encoding,
        encoding_errors,
        split,
        level,
        format,
        stamp: _,
        volume,
        linear,
        toc,
        heading,
        sections,
    } = src;
    let rest = format!(
        "{title:?} {line:?} {encoding:?} {encoding_errors:?} {split:?} {level} {volume:?} {format:?} {linear} {toc} {heading} {sections:?}"
    );
    let path = path.as_os_str().as_encoded_bytes();
    let mut key = Vec::with_capacity(path.len() + rest.len() + 8);
    key.extend_from_slice(&(path.len() as u64).to_le_bytes());
    key.extend_from_slice(path);
    key.extend_from_slice(rest.as_bytes());
    key
}

/// The report of an up-to-date book, when the head of its last record shows that no input was
/// touched since: same files, same stamps (`stamps`, now), none changed too close to that build.
fn up_to_date(
    head: &Head,
    stamps: &[(&Path, FileStamp)],
    sources: &[&ChapterSource],
) -> Option<Recorded> {
    if head.inputs != stamps.len()
        || reads_other_files(head)
        || inputs_digest(stamps.iter().copied()) != head.digest
        || !racy_hold(head, |i| stamps.get(i).map(|&(path, stamp)| (path, stamp)))
    {
        return None;
    }
    recorded(head, sources)
}

/// The inputs whose stamps a build that started at `started` cannot trust, with their hashes,
/// for the record's head ([`Head::racy`]).
pub(crate) fn racy_inputs(inputs: &[InputRecord], started: i128) -> Vec<(u32, Hash)> {
    let trusted = trusted_before(started);
    (inputs.iter().enumerate())
        .filter(|(_, r)| r.stamp.newest() >= trusted)
        .map(|(i, r)| (i as u32, r.hash))
        .collect()
}

/// Whether the inputs recorded as racy in `head` ([`Head::racy`]: changed too close to its
/// build to trust their stamps, such as the chapter edited just before it) still hold the bytes
/// that build hashed. Only those files are read (as git re-reads only its racy files); the rest
/// are vouched for by their stamps, which the caller found as recorded. `input(i)` gives the
/// path and the recorded stamp of input `i`. A list that does not account for every racy
/// stamp (a record made otherwise) vouches for nothing.
pub(crate) fn racy_hold<'a>(
    head: &Head,
    input: impl Fn(usize) -> Option<(&'a Path, FileStamp)>,
) -> bool {
    if head.newest < trusted_before(head.started) {
        return head.racy.is_empty();
    }
    let trusted = trusted_before(head.started);
    let listed = head
        .racy
        .iter()
        .all(|&(i, _)| input(i as usize).is_some_and(|(_, stamp)| stamp.newest() >= trusted));
    let all = (0..head.inputs)
        .filter(|&i| input(i).is_some_and(|(_, stamp)| stamp.newest() >= trusted))
        .count();
    listed
        && all == head.racy.len()
        && head.racy.iter().all(|&(i, recorded)| {
            let Some((path, _)) = input(i as usize) else {
                return false;
            };
            let now = crate::fs::read(path).map(|bytes| super::hash(&bytes));
            !recorded.is_empty() && now.is_ok_and(|h| h == recorded)
        })
}

/// What the build recorded in `head` reported, for `sources`.
fn recorded(head: &Head, sources: &[&ChapterSource]) -> Option<Recorded> {
    recorded_at(head, sources.iter().map(|s| s.path.as_path()))
}

/// What the build recorded in `head` reported, for the chapter sources read from `paths`.
pub(crate) fn recorded_at<'a>(
    head: &Head,
    paths: impl ExactSizeIterator<Item = &'a Path>,
) -> Option<Recorded> {
    if head.sources.len() != paths.len() {
        return None;
    }
    let reports = head
        .sources
        .iter()
        .zip(paths)
        .map(|(r, path)| report(r, path))
        .collect::<Option<Vec<_>>>()?;
    let warnings = head.sources.iter().flat_map(|r| r.warnings.iter());
    Some(Recorded {
        chapters: head.chapters,
        bytes: head.output.map_or(0, |o| o.size),
        warnings: warnings.chain(&head.warnings).cloned().collect(),
        sources: reports,
    })
}

/// What converting the chapter source read from `path` reported, as recorded.
fn report(r: &record::SourceReport, path: &Path) -> Option<SourceReport> {
    Some(SourceReport {
        path: path.to_path_buf(),
        encoding: encoding_rs::Encoding::for_label(r.encoding.as_bytes())?.name(),
        detection: r.detection,
    })
}

/// Only a plain-text chapter that is not split can be reused from the cache: it makes exactly
/// one chapter (one document, or several when split for size) and brings no images or links
/// along.
fn reusable(src: &ChapterSource) -> bool {
    src.split.is_none() && SourceKind::of_chapter(src) == SourceKind::Text
}

impl Reuse {
    /// No cache: everything is built.
    pub fn none(project: &Project) -> Reuse {
        Reuse {
            options: Hash::default(),
            started: 0,
            quick: None,
            inputs: Vec::new(),
            keys: Vec::new(),
            reused: vec![false; project.chapters().count()],
            reports: Vec::new(),
            previous: None,
        }
    }

    /// The one chapter of source `i` as recorded, when it is reused.
    fn recorded(&self, i: usize) -> Option<&record::ChapterRecord> {
        if !self.reused.get(i).copied().unwrap_or(false) {
            return None;
        }
        self.previous.as_ref()?.1.sources.get(i)?.chapters.first()
    }

    /// Chapter source `i` as the last build recorded it, with an empty body; None when it is to
    /// be converted.
    pub fn converted(&self, i: usize, src: &ChapterSource) -> Option<ConvertedChapter> {
        let chapter = self.recorded(i)?;
        let r = self.reports.get(i)?;
        Some(ConvertedChapter {
            nodes: vec![Node::Chapter(Chapter {
                title: chapter.title.clone(),
                body: String::new(),
                pieces: chapter.docs.len(),
                // A plain-text chapter has no ids to link to.
                anchors: Vec::new(),
                level: src.level,
                // Plain text holds no MathML or SVG, nor headings inside.
                features: Vec::new(),
                sections: Vec::new(),
                // Only a plain-text chapter is reused, and its source types nothing.
                types: Vec::new(),
                linear: src.linear,
                in_toc: src.toc,
                heading: src.heading,
                sections_given: false,
                title_types: None,
            })],
            images: Vec::new(),
            links: Vec::new(),
            ids: Default::default(),
            homes: Default::default(),
            warnings: r.warnings.clone(),
            short_notes: Vec::new(),
            report: report(r, &src.path)?,
            reads_other_files: false,
            // Not converted: the outline knows its title, not its size.
            lines: Vec::new(),
            // Not converted again: the ledger counts what this build converts.
            removed: Default::default(),
            headings: Default::default(),
            // Only a file of one chapter is taken from the cache: no front matter.
            front: false,
        })
    }

    /// The recorded documents of source `i`'s one chapter, when it is reused.
    pub fn docs(&self, i: usize) -> Option<&[(String, Hash)]> {
        Some(&self.recorded(i)?.docs)
    }

    /// Whether source `i` is taken from the cache.
    pub fn is_reused(&self, i: usize) -> bool {
        self.recorded(i).is_some()
    }

    /// Converts source `i` after all.
    pub fn forget(&mut self, i: usize) {
        if let Some(slot) = self.reused.get_mut(i) {
            *slot = false;
        }
    }

    /// The record of this build, once written (the EPUB's stamp is set at the commit).
    pub fn into_record(self, built: Built<'_>) -> Record {
        let count = built.chapters.len();
        let mut chapters = built.chapters.into_iter();
        let mut records = Vec::with_capacity(self.keys.len());
        for (i, key) in self.keys.iter().enumerate() {
            let start = built.first_chapter.get(i).copied().unwrap_or(count);
            let end = built.first_chapter.get(i + 1).copied().unwrap_or(count);
            records.push(SourceRecord {
                key: *key,
                chapters: chapters.by_ref().take(end.saturating_sub(start)).collect(),
            });
        }
        let reports = built
            .sources
            .iter()
            .map(|s| record::SourceReport {
                encoding: s.report.encoding.to_string(),
                detection: s.report.detection,
                warnings: s.warnings.clone(),
                reads_other_files: s.reads_other_files,
            })
            .collect();
        let newest = self
            .inputs
            .iter()
            .map(|i| i.stamp.newest())
            .max()
            .unwrap_or(0);
        let digest = inputs_digest(self.inputs.iter().map(|i| (i.path.as_path(), i.stamp)));
        let racy = racy_inputs(&self.inputs, self.started);
        Record {
            head: Head {
                options: self.options,
                started: self.started,
                output: None,
                inputs: self.inputs.len(),
                digest,
                newest,
                racy,
                chapters: count,
                sources: reports,
                warnings: built.warnings.to_vec(),
                quick: self.quick,
            },
            body: Body {
                inputs: self.inputs,
                sources: records,
                entries: built.entries,
                frame: built.frame,
                modified: built.modified,
            },
        }
    }
}

/// What a build wrote, for its record.
pub(crate) struct Built<'a> {
    /// What converting each source reported.
    pub sources: &'a [SourceOutcome],
    /// Where each source's chapters start among `chapters`.
    pub first_chapter: &'a [usize],
    /// The other warnings.
    pub warnings: &'a [Diagnostic],
    /// Every chapter's title and documents.
    pub chapters: Vec<record::ChapterRecord>,
    /// Name and hash of every other entry.
    pub entries: Vec<(String, Hash)>,
    /// [`crate::package::frame_key`] of the book.
    pub frame: String,
    /// Its `dcterms:modified`.
    pub modified: String,
}
