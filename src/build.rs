//! Orchestrates the pipeline for one book: project -> source -> convert -> package -> archive.
//!
//! [`load_book`] runs every stage up to a packaged-ready [`Book`] (chapters are read, decoded and
//! converted in parallel); [`build`] then packages and writes it. Warnings are collected, not
//! printed: only the CLI prints.
//!
//! Writing streams (see [`build`]): chapter documents are packaged and compressed a few
//! megabytes at a time, so the whole book's XHTML and its compressed entries are never held
//! at once. With [`BuildOptions::cache`], [`build`] also keeps a manifest beside the EPUB
//! ([`crate::incremental`]): an unchanged book is not rebuilt, and unchanged chapters are
//! neither read nor converted; their compressed documents are copied from the previous EPUB.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use rayon::prelude::*;

use crate::archive::{self, EpubWriter, PreviousEpub};
use crate::convert;
use crate::error::{Error, Result};
use crate::fs::read;
use crate::incremental::{
    self, ChapterLine, ChapterRecord, Hash, Manifest, ManifestParts, ManifestText, Stamp, Summary,
};
use crate::package::{self, Book, Chapter, Entry, Image, Node, Part};
use crate::project::{ChapterSource, ContentEntry, Project};
use crate::source::{self, Detection};
use sha2::Digest;

/// Options for one build.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Where to write the EPUB; default: [`Project::default_output`].
    pub output: Option<PathBuf>,
    /// Seconds since the epoch for `dcterms:modified` (`SOURCE_DATE_EPOCH`); default: the
    /// newest input file's modification time.
    pub source_date_epoch: Option<i64>,
    /// Keep a build cache beside the EPUB and use it: skip an unchanged book, reuse unchanged
    /// chapters. Off by default for library callers; the CLI turns it on.
    pub cache: bool,
    /// Ignore the cache (but write a fresh one when `cache` is on): a clean build.
    pub force: bool,
    /// How to load projects (batch and watch): whether paths may leave the project folder.
    pub load: crate::project::LoadOptions,
}

impl BuildOptions {
    /// Options with `source_date_epoch` read from the `SOURCE_DATE_EPOCH` environment variable.
    pub fn from_env() -> BuildOptions {
        BuildOptions {
            output: None,
            cache: false,
            force: false,
            load: crate::project::LoadOptions::default(),
            source_date_epoch: std::env::var("SOURCE_DATE_EPOCH")
                .ok()
                .and_then(|v| v.trim().parse().ok()),
        }
    }
}

/// A problem that did not stop the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The file it is about.
    pub path: PathBuf,
    /// The 1-based line, where known.
    pub line: Option<usize>,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// How one chapter file was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceReport {
    /// The chapter file.
    pub path: PathBuf,
    /// The encoding used (WHATWG name).
    pub encoding: &'static str,
    /// How it was chosen.
    pub detection: Detection,
}

/// Whether a build wrote the EPUB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildStatus {
    /// The EPUB was written.
    Built,
    /// Nothing had changed since the last build; the EPUB was left as it was.
    UpToDate,
}

/// What a build did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// Built or up to date.
    pub status: BuildStatus,
    /// Chapters copied from the previous EPUB rather than converted again.
    pub reused: usize,
    /// The EPUB written.
    pub output: PathBuf,
    /// Number of chapter documents.
    pub chapters: usize,
    /// Size of the EPUB in bytes.
    pub bytes: u64,
    /// Problems that did not stop the build.
    pub warnings: Vec<Warning>,
    /// How each chapter file was decoded.
    pub sources: Vec<SourceReport>,
    /// Where the time went, stage by stage, in order (see [`Stopwatch`]).
    pub timings: Vec<(&'static str, Duration)>,
}

/// Times the stages of a build: each [`Stopwatch::lap`] records the time since the last.
#[derive(Debug, Clone)]
pub struct Stopwatch {
    last: Instant,
    laps: Vec<(&'static str, Duration)>,
}

impl Stopwatch {
    /// Starts timing now.
    pub fn start() -> Stopwatch {
        Stopwatch {
            last: Instant::now(),
            laps: Vec::new(),
        }
    }

    /// Ends the stage `name` now; the next stage starts.
    pub fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.laps.push((name, now - self.last));
        self.last = now;
    }

    fn take(&mut self) -> Vec<(&'static str, Duration)> {
        std::mem::take(&mut self.laps)
    }
}

/// A book converted and ready to package, with what was learnt on the way.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The book.
    pub book: Book,
    /// Problems that did not stop the build.
    pub warnings: Vec<Warning>,
    /// How each chapter file was decoded.
    pub sources: Vec<SourceReport>,
}

/// Builds a project into an EPUB.
///
/// With `opts.cache`, an up-to-date book is left alone and unchanged chapters are reused; any
/// doubt about the cache (damaged, stale, or a package layout the reuse cannot vouch for)
/// means a clean build, so the EPUB is always byte-identical to a clean build's.
pub fn build(project: &Project, opts: &BuildOptions) -> Result<BuildReport> {
    build_with(project, opts, None)
}

/// What a build reads before its project is loaded: the build cache of its EPUB.
pub struct Prefetched {
    output: PathBuf,
    manifest: Option<ManifestText>,
}

/// Reads the build cache that a build with `opts` of a project whose
/// [`Project::default_output`] is `default_output` will consult; meant to run while the
/// project loads ([`Project::load_alongside`]).
pub fn prefetch(opts: &BuildOptions, default_output: &Path) -> Prefetched {
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| default_output.to_path_buf());
    let manifest = (opts.cache && !opts.force)
        .then(|| ManifestText::load(&output))
        .flatten();
    Prefetched { output, manifest }
}

/// [`build`], with the build cache read beforehand by [`prefetch`] (ignored when it is not
/// for this build's EPUB).
pub fn build_with(
    project: &Project,
    opts: &BuildOptions,
    prefetched: Option<Prefetched>,
) -> Result<BuildReport> {
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| project.default_output());
    let mut watch = Stopwatch::start();
    if !opts.cache {
        let none = vec![None; project.chapters().count()];
        let fresh = Previous::none(&none);
        return match build_streaming(project, opts, &output, fresh, None, None, &mut watch)? {
            Some((mut report, written)) => {
                written.finished.commit()?;
                watch.lap("commit");
                report.timings = watch.take();
                Ok(report)
            }
            None => build_plain(project, opts, &output, &mut watch),
        };
    }
    let started = incremental::nanos(SystemTime::now());
    let options_key = options_key(opts, &output);
    let text = match prefetched {
        _ if opts.force => None,
        Some(p) if p.output == output => p.manifest,
        _ => ManifestText::load(&output),
    };
    let summary = text.as_ref().and_then(ManifestText::summary).filter(|m| {
        m.options == options_key && m.output.is_some() && incremental::stamp(&output) == m.output
    });
    let sources: Vec<&ChapterSource> = project.chapters().collect();
    let mut paths: Vec<(&Path, Option<Stamp>)> = vec![(&project.metadata_path, None)];
    paths.extend(project.cover.as_deref().map(|p| (p, None)));
    paths.extend(project.style.css.iter().map(|p| (p.as_path(), None)));
    paths.extend(project.style.fonts.iter().map(|f| (f.path.as_path(), None)));
    let first_chapter = paths.len();
    paths.extend(
        sources
            .iter()
            .map(|s| (s.path.as_path(), s.stamp.map(Stamp::from))),
    );
    if let Some(summary) = &summary
        && let Some(mut report) = up_to_date(summary, &paths, &sources, &output)
    {
        watch.lap("check cache");
        report.timings = watch.take();
        return Ok(report);
    }
    // Not obviously up to date: compare input by input (a touched file may still hold the
    // same bytes) and see which chapters can be reused. Meanwhile, the previous EPUB's
    // directory is read on another core, in case some can.
    let had_summary = summary.is_some();
    let ((previous, inputs), previous_epub) = rayon::join(
        || {
            let previous = summary.and(text).and_then(|t| t.parse());
            let inputs = incremental::check_inputs(&paths, previous.as_ref());
            (previous, inputs)
        },
        || {
            had_summary
                .then(|| archive::open_previous(&output).ok())
                .flatten()
        },
    );

    if let Some(prev) = &previous
        && prev.inputs.len() == paths.len()
        && prev.chapters.len() == sources.len()
        && inputs.unchanged.iter().all(|&u| u)
        && inputs
            .records
            .iter()
            .zip(&prev.inputs)
            .all(|(now, then)| now.stamp == then.stamp)
    {
        // Files modified just before the last build had to be read again to be sure; once
        // they are old enough, a fresh start time lets the next check trust their stamps.
        let racy = |started: i128| {
            let trusted = incremental::trusted_before(started);
            prev.inputs.iter().any(|r| r.stamp.mtime >= trusted)
        };
        if racy(prev.started) && !racy(started) {
            let _ = Manifest {
                started,
                ..prev.clone()
            }
            .save(&output);
        }
        watch.lap("check cache");
        return Ok(BuildReport {
            status: BuildStatus::UpToDate,
            reused: prev.chapters.len(),
            bytes: prev.output.map(|o| o.size).unwrap_or(0),
            output,
            chapters: prev.chapters.len(),
            warnings: recorded_warnings(prev, &sources),
            sources: recorded_sources(prev, &sources),
            timings: watch.take(),
        });
    }
    // This build writes: the EPUB the last one replaced can be written over, or go.
    let spare = spare_for(&output);

    let meta_hash = inputs
        .records
        .first()
        .map(|r| r.hash.as_str())
        .unwrap_or("");
    // With the same metadata and the same files in the same places, every chapter source is
    // what it was (sources are made from the metadata and the file list alone), so an
    // unchanged file's key is the one recorded.
    let same_sources = previous.as_ref().filter(|prev| {
        prev.inputs.len() == paths.len()
            && prev.chapters.len() == sources.len()
            && inputs.unchanged.first() == Some(&true)
            && prev
                .inputs
                .iter()
                .zip(&inputs.records)
                .all(|(then, now)| then.path == now.path)
    });
    let keys: Vec<Hash> = sources
        .par_iter()
        .enumerate()
        .map(|(i, src)| {
            if let Some(prev) = same_sources
                && inputs.unchanged.get(first_chapter + i) == Some(&true)
            {
                return prev.chapters[i].key;
            }
            let content = inputs
                .records
                .get(first_chapter + i)
                .map(|r| r.hash.as_str())
                .unwrap_or("");
            if content.is_empty() {
                return Hash::default();
            }
            chapter_key(meta_hash, content, src, i)
        })
        .collect();
    // An embedded font is subset to the characters of every chapter, so a chapter whose body
    // is not read cannot be vouched for: no reuse (an unchanged book is still up to date).
    let reuse: Vec<Option<&ChapterRecord>> = match &previous {
        Some(prev) if prev.chapters.len() == sources.len() && project.style.fonts.is_empty() => {
            keys.iter()
                .zip(&prev.chapters)
                .zip(&sources)
                .map(|((k, rec), src)| {
                    (!k.is_empty() && *k == rec.key && reusable_source(src)).then_some(rec)
                })
                .collect()
        }
        _ => vec![None; sources.len()],
    };
    let previous_epub = previous_epub.filter(|_| reuse.iter().any(Option::is_some));
    let reuse = if previous_epub.is_some() {
        reuse
    } else {
        vec![None; sources.len()]
    };

    watch.lap("check cache");
    let last = Previous {
        reuse: &reuse,
        epub: previous_epub,
        manifest: previous.as_ref(),
    };
    let render = |laid: LaidOut<'_>| -> String {
        let chapters = laid
            .chapters
            .iter()
            .zip(&keys)
            .zip(laid.sources)
            .map(|((c, key), src)| ChapterLine {
                key,
                entry: &c.entry,
                shell: &c.shell,
                title: &c.title,
                encoding: src.encoding,
                detection: src.detection,
                warnings: laid
                    .warnings
                    .iter()
                    .filter(|w| w.path == src.path)
                    .map(|w| (w.line, w.message.as_str()))
                    .collect(),
            })
            .collect();
        ManifestParts {
            options: &options_key,
            started,
            inputs: &inputs.records,
            chapters,
            entries: laid.frame,
            frame: laid.frame_key,
            modified: laid.modified,
        }
        .body_text()
    };
    let attempt = build_streaming(
        project,
        opts,
        &output,
        last,
        Some(spare),
        Some(&render),
        &mut watch,
    )?;
    let (mut report, written) = match attempt {
        Some(done) => done,
        None if reuse.iter().any(Option::is_some) => {
            // The reuse could not be vouched for: build everything again.
            let none = vec![None; sources.len()];
            let fresh = Previous::none(&none);
            let again = build_streaming(
                project,
                opts,
                &output,
                fresh,
                Some(spare_for(&output)),
                Some(&render),
                &mut watch,
            )?;
            match again {
                Some(done) => done,
                None => {
                    Manifest::remove(&output);
                    return build_plain(project, opts, &output, &mut watch);
                }
            }
        }
        None => {
            Manifest::remove(&output);
            return build_plain(project, opts, &output, &mut watch);
        }
    };

    let Written {
        cache_body,
        finished,
    } = written;
    let stamp = crate::project::FileStamp::of(finished.metadata()).map(Stamp::from);
    let text = cache_body.map(|body| Manifest::text_with(&body, stamp));
    // The manifest is written while the EPUB is flushed to disk. Should the EPUB not make it
    // into place, the manifest describes a file that is not there, and the next build ignores
    // it; a manifest that cannot be written only costs the next build its speed.
    let (committed, saved) = std::thread::scope(|scope| {
        let commit = scope.spawn(|| finished.commit());
        let saved = match &text {
            Some(text) => Manifest::save_text(text, &output),
            None => Err(std::io::Error::other("no manifest was rendered")),
        };
        (commit.join(), saved)
    });
    let committed = committed.unwrap_or_else(|_| {
        Err(Error::io(
            &output,
            "cannot write",
            std::io::Error::other("the writing thread panicked"),
        ))
    });
    if committed.is_err() || saved.is_err() {
        Manifest::remove(&output);
    }
    committed?;
    watch.lap("commit");
    report.timings = watch.take();
    Ok(report)
}

/// The cache key of chapter `i` (0-based) read from `src`: everything its converted document
/// depends on.
fn chapter_key(meta_hash: &str, content: &str, src: &ChapterSource, i: usize) -> Hash {
    incremental::hash_fields(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        meta_hash.as_bytes(),
        content.as_bytes(),
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
        stamp: _,
    } = src;
    let rest = format!("{title:?} {line:?} {encoding:?} {encoding_errors:?} {split:?}");
    let path = path.as_os_str().as_encoded_bytes();
    let mut key = Vec::with_capacity(path.len() + rest.len() + 8);
    key.extend_from_slice(&(path.len() as u64).to_le_bytes());
    key.extend_from_slice(path);
    key.extend_from_slice(rest.as_bytes());
    key
}

/// The report of an up-to-date book, when the summary of its last build shows that no input
/// was touched since: same files, same stamps, none modified too close to that build.
fn up_to_date(
    summary: &Summary,
    paths: &[(&Path, Option<Stamp>)],
    sources: &[&ChapterSource],
    output: &Path,
) -> Option<BuildReport> {
    if summary.inputs != paths.len()
        || summary.chapters != sources.len()
        || summary.newest >= incremental::trusted_before(summary.started)
    {
        return None;
    }
    let stamps = paths
        .iter()
        .map(|&(path, known)| Some((path, known.or_else(|| incremental::stamp(path))?)))
        .collect::<Option<Vec<_>>>()?;
    if incremental::inputs_digest(stamps) != summary.digest {
        return None;
    }
    let mut encodings = summary.encodings.iter().peekable();
    let mut reports = Vec::with_capacity(sources.len());
    for (i, src) in sources.iter().enumerate() {
        let (encoding, detection) = match encodings.next_if(|(at, _, _)| *at == i) {
            Some(&(_, encoding, detection)) => (encoding, detection),
            None => incremental::PLAIN,
        };
        reports.push(SourceReport {
            path: src.path.clone(),
            encoding,
            detection,
        });
    }
    let warnings = summary
        .warnings
        .iter()
        .map(|(chapter, line, message)| {
            Some(Warning {
                path: sources.get(*chapter)?.path.clone(),
                line: *line,
                message: message.clone(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(BuildReport {
        status: BuildStatus::UpToDate,
        reused: summary.chapters,
        bytes: summary.output.map(|o| o.size).unwrap_or(0),
        output: output.to_path_buf(),
        chapters: summary.chapters,
        warnings,
        sources: reports,
        timings: Vec::new(),
    })
}

/// Hash of what, besides the inputs, decides the EPUB's bytes.
fn options_key(opts: &BuildOptions, output: &Path) -> Hash {
    incremental::hash_fields(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        format!("{:?}", opts.source_date_epoch).as_bytes(),
        output.to_string_lossy().as_bytes(),
        format!("{} {}", archive::LEVEL, archive::FORMAT).as_bytes(),
    ])
}

/// The warnings of the last build, so an up-to-date book reports what a build would.
fn recorded_warnings(prev: &Manifest, sources: &[&ChapterSource]) -> Vec<Warning> {
    prev.chapters
        .iter()
        .zip(sources)
        .flat_map(|(rec, src)| {
            rec.warnings.iter().map(|(line, message)| Warning {
                path: src.path.clone(),
                line: *line,
                message: message.clone(),
            })
        })
        .collect()
}

fn recorded_sources(prev: &Manifest, sources: &[&ChapterSource]) -> Vec<SourceReport> {
    prev.chapters
        .iter()
        .zip(sources)
        .map(|(rec, src)| recorded_report(rec, src))
        .collect()
}

/// The generated cover for a book without one, kept in the build cache when there is one.
fn generated_cover(project: &Project, opts: &BuildOptions, output: &Path) -> Option<Image> {
    if project.cover.is_some() {
        return None;
    }
    let cache_dir = opts.cache.then(|| {
        output
            .parent()
            .unwrap_or(Path::new("."))
            .join(incremental::CACHE_DIR)
    });
    Some(crate::look::generated_cover(
        project,
        cache_dir.as_deref(),
        opts.force,
    ))
}

/// The whole book in memory, packaged and written at once: no cache, no streaming.
fn build_plain(
    project: &Project,
    opts: &BuildOptions,
    output: &Path,
    watch: &mut Stopwatch,
) -> Result<BuildReport> {
    // Drawn before the chapters are loaded, so its buffers never add to their memory.
    let cover = generated_cover(project, opts, output);
    let mut loaded = load_book(project, opts)?;
    if cover.is_some() {
        loaded.book.cover = cover;
    }
    watch.lap("read and convert");
    let look = crate::look::prepare(project, &mut loaded.book, &mut loaded.warnings)?;
    let entries = package::package_with(&loaded.book, &look);
    drop(loaded.book.contents);
    watch.lap("lay out");
    archive::write_epub(&entries, output)?;
    watch.lap("write");
    let bytes = std::fs::metadata(output).map(|m| m.len()).unwrap_or(0);
    Ok(BuildReport {
        status: BuildStatus::Built,
        reused: 0,
        output: output.to_path_buf(),
        chapters: entries_chapters(&entries),
        bytes,
        warnings: loaded.warnings,
        sources: loaded.sources,
        timings: watch.take(),
    })
}

fn entries_chapters(entries: &[Entry]) -> usize {
    entries
        .iter()
        .filter(|e| e.name.contains("/chapter-"))
        .count()
}

/// The EPUB the last build replaced, kept in the build cache: written over by this build, or
/// deleted in the background (see [`archive::Spare`]).
fn spare_for(output: &Path) -> archive::Spare {
    archive::Spare::prepare(incremental::spare_path(output))
}

/// What the streaming writer leaves for the build cache.
struct Written {
    /// The build cache's text but for the EPUB's stamp, when asked for (see [`CacheText`]).
    cache_body: Option<String>,
    /// The EPUB, written but not yet moved into place.
    finished: archive::Finished,
}

/// What the layout decided, for the build cache's text.
#[derive(Clone, Copy)]
struct LaidOut<'a> {
    chapters: &'a [WrittenChapter],
    frame: &'a [(String, Hash)],
    frame_key: &'a str,
    modified: &'a str,
    warnings: &'a [Warning],
    sources: &'a [SourceReport],
}

/// Renders the build cache's body ([`Manifest::body_text`]) from the layout, while the EPUB
/// is written.
type CacheText<'a> = &'a (dyn Fn(LaidOut<'_>) -> String + Sync);

/// What the layout decided about one chapter document.
struct WrittenChapter {
    entry: String,
    shell: Hash,
    title: String,
}

/// Chapter documents are packaged at most this many body bytes at a time: small enough to
/// bound memory, large enough that re-running the package stage per chunk costs little.
/// (Tiny under test, so that small books exercise the chunked path.)
const CHUNK_BYTES: usize = if cfg!(test) { 2048 } else { 2 << 20 };

/// What a streaming build may take from the last one.
struct Previous<'a> {
    /// For each chapter, its record when its document can be copied.
    reuse: &'a [Option<&'a ChapterRecord>],
    /// The EPUB to copy from.
    epub: Option<PreviousEpub>,
    /// What the last build recorded of it: its other entries, frame key and chapters.
    manifest: Option<&'a Manifest>,
}

impl<'a> Previous<'a> {
    /// Nothing to take: every chapter is built.
    fn none(reuse: &'a [Option<&'a ChapterRecord>]) -> Previous<'a> {
        Previous {
            reuse,
            epub: None,
            manifest: None,
        }
    }
}

/// Where every entry of the EPUB goes and which can be copied from the previous one.
struct Plan {
    /// Every entry in order, chapter documents (and entries to copy) without their data.
    skeleton: Vec<Entry>,
    /// Each chapter's document name, shell hash and position in `skeleton`.
    names: Vec<String>,
    shells: Vec<Hash>,
    pos: Vec<usize>,
    /// Name and hash of every entry other than chapter documents.
    frame: Vec<(String, Hash)>,
    /// Whether each entry of `skeleton` is copied from the previous EPUB.
    copy: Vec<bool>,
}

/// Each entry's position, by name.
fn entry_index(entries: &[Entry]) -> HashMap<&str, usize> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect()
}

/// The plan of a rebuild whose frame is the last one's (same [`package::frame_key`]): the
/// previous EPUB's entries in their order, every one copied but the chapters to package
/// again, and the package document when the modified date moved. None when the previous
/// EPUB or its records do not allow it.
fn same_frame(
    last: &Previous<'_>,
    key: &str,
    book: &Book,
    look: &package::Look,
    chapters: usize,
) -> Option<Plan> {
    let (epub, manifest) = (last.epub.as_ref()?, last.manifest?);
    if key.is_empty() || key != manifest.frame || manifest.chapters.len() != chapters {
        return None;
    }
    let mut skeleton: Vec<Entry> = epub
        .names()?
        .map(|name| Entry {
            name: name.to_string(),
            data: Vec::new(),
            compress: true,
        })
        .collect();
    let index = entry_index(&skeleton);
    let pos = manifest
        .chapters
        .iter()
        .map(|r| index.get(r.entry.as_str()).copied())
        .collect::<Option<Vec<usize>>>()?;
    if pos.windows(2).any(|w| w[0] >= w[1])
        || skeleton.len() != chapters + manifest.entries.len()
        || manifest
            .entries
            .iter()
            .any(|(name, _)| !index.contains_key(name.as_str()))
    {
        return None;
    }
    let mut copy = vec![true; skeleton.len()];
    for (k, rec) in last.reuse.iter().enumerate() {
        if rec.is_none() {
            copy[pos[k]] = false;
        }
    }
    let mut frame = manifest.entries.clone();
    if book.modified != manifest.modified {
        let opf = package::package_document(book, look);
        let at = *index.get(opf.name.as_str())?;
        let (_, hash) = frame.iter_mut().find(|(name, _)| *name == opf.name)?;
        *hash = incremental::hash(&opf.data);
        copy[at] = false;
        drop(index);
        skeleton[at] = opf;
    }
    Some(Plan {
        names: manifest.chapters.iter().map(|r| r.entry.clone()).collect(),
        shells: manifest.chapters.iter().map(|r| r.shell).collect(),
        pos,
        frame,
        copy,
        skeleton,
    })
}

/// The plan of a build whose frame is rendered: copies only what provably has the bytes the
/// last build wrote. None when a reused chapter's document would not be packaged the same.
fn fresh_frame(book: &Book, look: &package::Look, last: &Previous<'_>) -> Option<Plan> {
    let package::Frame {
        entries: skeleton,
        chapters: chapter_docs,
    } = package::frame(book, look);
    let (names, shells): (Vec<String>, Vec<Hash>) = chapter_docs
        .into_par_iter()
        .map(|(name, shell)| (name, incremental::hash(shell.as_bytes())))
        .unzip();
    let index = entry_index(&skeleton);
    let pos = names
        .iter()
        .map(|n| index.get(n.as_str()).copied())
        .collect::<Option<Vec<usize>>>()?;
    if names.len() != last.reuse.len() || pos.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    for (k, rec) in last.reuse.iter().enumerate() {
        if let Some(rec) = rec
            && (rec.entry != names[k] || rec.shell != shells[k] || last.epub.is_none())
        {
            return None;
        }
    }
    let chapter_positions: HashSet<usize> = pos.iter().copied().collect();
    // The other entries (package document, navigation, stylesheet, images...) are copied too
    // when their bytes are those the last build wrote.
    let frame: Vec<(String, Hash)> = skeleton
        .par_iter()
        .enumerate()
        .filter(|(idx, _)| !chapter_positions.contains(idx))
        .map(|(_, e)| (e.name.clone(), incremental::hash(&e.data)))
        .collect();
    let mut copy = vec![false; skeleton.len()];
    if let Some(prev) = &last.epub {
        for (k, rec) in last.reuse.iter().enumerate() {
            if rec.is_some() {
                copy[pos[k]] = true;
            }
        }
        let before: HashMap<&str, &str> = last
            .manifest
            .map_or(&[][..], |m| &m.entries[..])
            .iter()
            .map(|(name, hash)| (name.as_str(), hash.as_str()))
            .collect();
        for (name, hash) in &frame {
            if before.get(name.as_str()) == Some(&hash.as_str())
                && let Some(&idx) = index.get(name.as_str())
            {
                copy[idx] = true;
            }
        }
        if (0..skeleton.len()).any(|i| copy[i] && !prev.contains(&skeleton[i].name)) {
            return None;
        }
    }
    drop(index);
    Some(Plan {
        skeleton,
        names,
        shells,
        pos,
        frame,
        copy,
    })
}

/// Loads the book (reusing the chapters in `last.reuse`) and writes it chunk by chunk. None
/// when the package layout does not allow it: a chapter document whose name or surroundings
/// changed although its source did not, or other files that depend on chapter bodies.
fn build_streaming(
    project: &Project,
    opts: &BuildOptions,
    output: &Path,
    last: Previous<'_>,
    spare: Option<archive::Spare>,
    cache_text: Option<CacheText<'_>>,
    watch: &mut Stopwatch,
) -> Result<Option<(BuildReport, Written)>> {
    let reuse = last.reuse;
    // The cover is drawn while the chapters load: its canvas is freed long before the
    // chapters' packaging, where memory peaks.
    let (cover, loaded) = rayon::join(
        || generated_cover(project, opts, output),
        || load_book_with(project, opts, reuse),
    );
    let mut loaded = loaded?;
    if cover.is_some() {
        loaded.book.cover = cover;
    }
    watch.lap("read and convert");
    let look = crate::look::prepare(project, &mut loaded.book, &mut loaded.warnings)?;
    let mut book = loaded.book;
    let chapters = count_chapters(&book.contents);
    if chapters != reuse.len() {
        return Ok(None);
    }
    let mut bodies: Vec<String> = chapters_mut(&mut book.contents)
        .into_iter()
        .map(|c| std::mem::take(&mut c.body))
        .collect();
    let titles: Vec<String> = chapters_mut(&mut book.contents)
        .into_iter()
        .map(|c| c.title.clone())
        .collect();

    let frame_key = package::frame_key(&book, &look);
    let modified = book.modified.clone();
    let plan = match same_frame(&last, &frame_key, &book, &look, chapters) {
        Some(plan) => plan,
        None => match fresh_frame(&book, &look, &last) {
            Some(plan) => plan,
            None => return Ok(None),
        },
    };
    let Plan {
        skeleton,
        names,
        shells,
        pos,
        frame,
        copy,
    } = plan;
    let index = entry_index(&skeleton);
    let Previous {
        reuse,
        epub: mut previous,
        ..
    } = last;
    watch.lap("lay out");
    let written: Vec<WrittenChapter> = names
        .into_iter()
        .zip(shells)
        .zip(titles)
        .map(|((entry, shell), title)| WrittenChapter {
            entry,
            shell,
            title,
        })
        .collect();
    let todo: Vec<usize> = (0..chapters).filter(|&k| reuse[k].is_none()).collect();
    let layout = Layout {
        todo: &todo,
        pos: &pos,
        index: &index,
        skeleton: &skeleton,
        copy: &copy,
    };
    let laid = LaidOut {
        chapters: &written,
        frame: &frame,
        frame_key: &frame_key,
        modified: &modified,
        warnings: &loaded.warnings,
        sources: &loaded.sources,
    };
    // When most of the EPUB is copied from the last one, the build cache's text is rendered on
    // another core meanwhile (the copy keeps one core busy in the kernel). A build that
    // compresses everything keeps both cores busy and its memory at its peak: the text waits.
    let alongside = cache_text.filter(|_| previous.is_some());
    let (finished, cache_body) = std::thread::scope(|scope| {
        let body = alongside.map(|render| scope.spawn(|| render(laid)));
        let finished = write_streaming(
            output,
            &layout,
            &mut book,
            &look,
            &mut bodies,
            &mut previous,
            spare,
        );
        (finished, body.and_then(|h| h.join().ok()))
    });
    let Some(finished) = finished? else {
        return Ok(None);
    };
    let cache_body = match alongside {
        Some(_) => cache_body,
        None => cache_text.map(|render| render(laid)),
    };
    watch.lap("write");
    let bytes = finished.metadata().len();
    Ok(Some((
        BuildReport {
            status: BuildStatus::Built,
            reused: reuse.iter().filter(|r| r.is_some()).count(),
            output: output.to_path_buf(),
            chapters,
            bytes,
            warnings: loaded.warnings,
            sources: loaded.sources,
            timings: Vec::new(),
        },
        Written {
            cache_body,
            finished,
        },
    )))
}

/// Where the streaming writer puts each entry.
struct Layout<'a> {
    /// The chapters to package (the others are copied), in reading order.
    todo: &'a [usize],
    /// Each chapter's position among the entries.
    pos: &'a [usize],
    /// Each entry's position, by name.
    index: &'a HashMap<&'a str, usize>,
    /// Every entry, chapter documents empty.
    skeleton: &'a [Entry],
    /// Whether each entry is copied from the previous EPUB (where it has the same name).
    copy: &'a [bool],
}

/// Packages the chapters to do a chunk at a time and writes every entry, new or copied. None
/// when a chapter turns out split for size, which the layout did not foresee.
fn write_streaming(
    output: &Path,
    layout: &Layout<'_>,
    book: &mut Book,
    look: &package::Look,
    bodies: &mut [String],
    previous: &mut Option<PreviousEpub>,
    spare: Option<archive::Spare>,
) -> Result<Option<archive::Finished>> {
    let Layout {
        todo,
        pos,
        index,
        skeleton,
        copy,
    } = *layout;
    let mut writer = match spare {
        Some(spare) => EpubWriter::create_with_spare(output, spare)?,
        None => EpubWriter::create(output)?,
    };
    let mut cursor = 0;
    let mut i = 0;
    while i < todo.len() {
        let mut j = i;
        let mut bytes = 0;
        while let Some(&k) = todo.get(j) {
            let len = bodies.get(k).map_or(0, String::len);
            if j > i && bytes + len > CHUNK_BYTES {
                break;
            }
            bytes += len;
            j += 1;
        }
        let chunk = &todo[i..j];
        {
            let mut slots = chapters_mut(&mut book.contents);
            for &k in chunk {
                if let (Some(slot), Some(body)) = (slots.get_mut(k), bodies.get_mut(k)) {
                    slot.body = std::mem::take(body);
                }
            }
        }
        // On a pool thread, so its allocations reuse the memory freed by earlier chunks'
        // bodies (which were allocated by pool threads) rather than growing another arena.
        let docs = rayon::scope(|_| package::chapter_documents(book, look, chunk));
        {
            // Each body is needed only for its own document: free it now.
            let mut slots = chapters_mut(&mut book.contents);
            for &k in chunk {
                if let Some(slot) = slots.get_mut(k) {
                    slot.body = String::new();
                }
            }
        }
        // A body split for size adds documents: the frame no longer holds.
        let Some(docs) = docs.filter(|d| d.len() == chunk.len()) else {
            return Ok(None);
        };
        let mut fresh: HashMap<usize, Entry> = HashMap::with_capacity(docs.len());
        for doc in docs {
            match index.get(doc.name.as_str()) {
                Some(&idx) => fresh.insert(idx, doc),
                None => return Ok(None),
            };
        }
        let last = chunk.last().map_or(cursor, |&k| pos[k] + 1);
        write_range(
            &mut writer,
            cursor..last,
            |idx| fresh.get(&idx).unwrap_or(&skeleton[idx]),
            copy,
            previous,
        )?;
        cursor = last;
        i = j;
    }
    write_range(
        &mut writer,
        cursor..skeleton.len(),
        |idx| &skeleton[idx],
        copy,
        previous,
    )?;
    writer.finish_writing().map(Some)
}

/// Writes entries `range` in order: those marked in `copy` copied raw from the previous EPUB
/// (under the same name), the rest compressed in parallel batches.
fn write_range<'a>(
    writer: &mut EpubWriter,
    range: std::ops::Range<usize>,
    entry: impl Fn(usize) -> &'a Entry,
    copy: &[bool],
    previous: &mut Option<PreviousEpub>,
) -> Result<()> {
    let mut batch: Vec<&Entry> = Vec::new();
    for idx in range {
        match (copy.get(idx), previous.as_mut()) {
            (Some(true), Some(prev)) => {
                writer.add_refs(&batch)?;
                batch.clear();
                writer.copy_raw(prev, &entry(idx).name)?;
            }
            _ => batch.push(entry(idx)),
        }
    }
    writer.add_refs(&batch)
}

/// The chapters of `nodes`, depth-first: the order of [`package::documents`].
fn chapters_mut(nodes: &mut [Node]) -> Vec<&mut Chapter> {
    let mut out = Vec::new();
    let mut stack: Vec<std::slice::IterMut<'_, Node>> = vec![nodes.iter_mut()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(Node::Chapter(c)) => out.push(c),
            Some(Node::Part(p)) => stack.push(p.children.iter_mut()),
            None => {
                stack.pop();
            }
        }
    }
    out
}

fn count_chapters(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Chapter(_) => 1,
            Node::Part(p) => count_chapters(&p.children),
        })
        .sum()
}

/// Reads, decodes and converts every chapter, and reads the cover.
pub fn load_book(project: &Project, opts: &BuildOptions) -> Result<Loaded> {
    load_book_with(project, opts, &[])
}

/// [`load_book`], except that chapter `i` with `reuse[i]` set is not read: its title, warnings
/// and encoding come from the record, and its body is left empty.
fn load_book_with(
    project: &Project,
    opts: &BuildOptions,
    reuse: &[Option<&ChapterRecord>],
) -> Result<Loaded> {
    let sources: Vec<&ChapterSource> = project.chapters().collect();
    let converted: Vec<ConvertedSource> = sources
        .par_iter()
        .enumerate()
        .map(
            |(i, src)| match reuse.get(i).copied().flatten().and_then(|r| reused(r, src)) {
                Some(c) => Ok(c),
                None => convert_source(project, src, i + 1),
            },
        )
        .collect::<Result<_>>()?;

    let mut warnings = Vec::new();
    let mut reports = Vec::new();
    let mut images: Vec<Image> = Vec::new();
    let mut links = LinkMap::default();
    let mut converted = converted.into_iter().zip(&sources);
    let mut take = |out: &mut Vec<Node>| {
        let (c, src) = converted
            .next()
            .expect("one converted source per chapter source");
        warnings.extend(c.warnings);
        reports.push(c.report);
        for image in c.images {
            if !images.iter().any(|i| i.name == image.name) {
                images.push(image);
            }
        }
        links.add(&src.path, c.links, &c.nodes);
        out.extend(c.nodes);
    };
    let mut contents = Vec::new();
    for entry in &project.contents {
        match entry {
            ContentEntry::Chapter(_) => take(&mut contents),
            ContentEntry::Part { title, chapters } => {
                let mut children = Vec::new();
                for _ in chapters {
                    take(&mut children);
                }
                contents.push(Node::Part(Part {
                    title: title.clone(),
                    intro: String::new(),
                    children,
                }));
            }
        }
    }
    links.rewrite(&mut contents, &mut warnings);

    let cover = match &project.cover {
        Some(path) => Some(read_cover(path, &mut warnings)?),
        None => None,
    };
    let modified = modified_time(project, opts)?;
    Ok(Loaded {
        book: Book {
            info: project.book.clone(),
            modified,
            cover,
            contents,
            images,
        },
        warnings,
        sources: reports,
    })
}

/// One chapter source converted: one chapter, or the volumes and chapters of a split file.
struct ConvertedSource {
    nodes: Vec<Node>,
    images: Vec<Image>,
    links: Vec<String>,
    warnings: Vec<Warning>,
    report: SourceReport,
}

/// Only a plain-text chapter that is not split can be reused from the cache: it makes exactly
/// one document and brings no images or links along.
fn reusable_source(src: &ChapterSource) -> bool {
    src.split.is_none() && convert::SourceKind::of(&src.path) == convert::SourceKind::Text
}

/// A chapter as the cache recorded it, with an empty body; None if its source cannot be reused.
fn reused(rec: &ChapterRecord, src: &ChapterSource) -> Option<ConvertedSource> {
    if !reusable_source(src) {
        return None;
    }
    Some(ConvertedSource {
        nodes: vec![Node::Chapter(Chapter {
            title: rec.title.clone(),
            body: String::new(),
        })],
        images: Vec::new(),
        links: Vec::new(),
        warnings: rec
            .warnings
            .iter()
            .map(|(line, message)| Warning {
                path: src.path.clone(),
                line: *line,
                message: message.clone(),
            })
            .collect(),
        report: recorded_report(rec, src),
    })
}

fn recorded_report(rec: &ChapterRecord, src: &ChapterSource) -> SourceReport {
    SourceReport {
        path: src.path.clone(),
        encoding: rec.encoding,
        detection: rec.detection,
    }
}

fn convert_source(project: &Project, src: &ChapterSource, n: usize) -> Result<ConvertedSource> {
    let bytes = read(&src.path)?;
    let decoded =
        source::decode(&bytes, src.encoding.as_deref(), src.encoding_errors).map_err(|e| {
            Error::Decode {
                path: src.path.clone(),
                message: e.to_string(),
            }
        })?;
    let warn = |line: Option<usize>, message: String| Warning {
        path: src.path.clone(),
        line,
        message,
    };
    let mut warnings = Vec::new();
    if decoded.dropped_controls > 0 {
        warnings.push(warn(
            decoded.first_dropped_line,
            format!(
                "dropped {} control character(s) that XML does not allow",
                decoded.dropped_controls
            ),
        ));
    }
    if decoded.replaced > 0 {
        warnings.push(warn(
            None,
            format!(
                "replaced {} invalid byte sequence(s) with U+FFFD (encoding-errors = \"replace\")",
                decoded.replaced
            ),
        ));
    }
    let report = SourceReport {
        path: src.path.clone(),
        encoding: decoded.encoding.name(),
        detection: decoded.detection,
    };
    let lang = &project.book.language;

    if let Some(mode) = &src.split {
        if convert::SourceKind::of(&src.path) != convert::SourceKind::Text {
            return Err(Error::Convert {
                path: src.path.clone(),
                message: "`split` works on plain-text files only\n  hint: give Markdown and HTML chapters one file each".into(),
            });
        }
        let (pieces, split_warnings) = convert::split_text(&decoded.text, mode);
        warnings.extend(
            split_warnings
                .into_iter()
                .map(|w| warn(Some(w.line), w.message)),
        );
        let nodes = pieces_to_nodes(pieces, lang, &mut |line, message| {
            warnings.push(warn(line, message))
        });
        if nodes.is_empty() {
            warnings.push(warn(None, "chapter file is empty".into()));
        }
        return Ok(ConvertedSource {
            nodes,
            images: Vec::new(),
            links: Vec::new(),
            warnings,
            report,
        });
    }

    let mut images = Vec::new();
    let converted = match convert::SourceKind::of(&src.path) {
        convert::SourceKind::Text => {
            // A heading line repeating the title given in metadata.toml (as `init` writes it)
            // is the title; a different one is text.
            let c = convert::convert_text(&decoded.text, true);
            match (&src.title, &c.title) {
                (Some(given), Some(found)) if given != found => {
                    convert::convert_text(&decoded.text, false)
                }
                _ => c,
            }
        }
        kind => {
            let mut resolver = |s: &str| resolve_image(project, &src.path, s, &mut images);
            let result = if kind == convert::SourceKind::Markdown {
                convert::convert_markdown(&decoded.text, &mut resolver)
            } else {
                convert::convert_html(&decoded.text, &mut resolver)
            };
            result.map_err(|e| Error::Convert {
                path: src.path.clone(),
                message: e.to_string(),
            })?
        }
    };
    warnings.extend(converted.warnings.iter().map(|w| warn(None, w.clone())));
    if converted.paragraphs == 0 {
        warnings.push(warn(None, "chapter is empty".into()));
    }
    let title = src
        .title
        .clone()
        .or(converted.title)
        .or_else(|| title_from_file_name(&src.path))
        .unwrap_or_else(|| package::chapter_title(lang, n));
    Ok(ConvertedSource {
        nodes: vec![Node::Chapter(Chapter {
            title,
            body: converted.body,
        })],
        images,
        links: converted.links,
        warnings,
        report,
    })
}

/// Turns the pieces of a split file into nodes: a volume opens a part that takes the
/// chapters after it.
fn pieces_to_nodes(
    pieces: Vec<convert::Piece>,
    lang: &str,
    warn: &mut dyn FnMut(Option<usize>, String),
) -> Vec<Node> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut volume: Option<Part> = None;
    for piece in pieces {
        match piece {
            convert::Piece::Front(body) => {
                let (title, body) = front_matter(body, lang);
                nodes.push(Node::Chapter(Chapter { title, body }));
            }
            convert::Piece::Volume { title, intro } => {
                nodes.extend(volume.take().map(Node::Part));
                volume = Some(Part {
                    title,
                    intro: intro.body,
                    children: Vec::new(),
                });
            }
            convert::Piece::Chapter { title, body, line } => {
                if body.paragraphs == 0 {
                    warn(Some(line), format!("chapter \"{title}\" is empty"));
                }
                let chapter = Node::Chapter(Chapter {
                    title,
                    body: body.body,
                });
                match volume.as_mut() {
                    Some(v) => v.children.push(chapter),
                    None => nodes.push(chapter),
                }
            }
        }
    }
    nodes.extend(volume.map(Node::Part));
    nodes
}

/// The title of the text before the first heading: its own first line when that is a label
/// such as `内容简介` (then removed from the body), else a word for "synopsis" in the book's
/// language.
fn front_matter(body: convert::Converted, lang: &str) -> (String, String) {
    const LABELS: [&str; 12] = [
        "简介",
        "內容簡介",
        "内容简介",
        "作品简介",
        "作品簡介",
        "簡介",
        "文案",
        "前言",
        "序言",
        "引言",
        "Foreword",
        "Synopsis",
    ];
    if let Some(rest) = body.body.strip_prefix("<p>")
        && let Some((first, after)) = rest.split_once("</p>\n")
    {
        let label = first.trim_end_matches(['：', ':']);
        if LABELS.contains(&label) {
            return (label.to_string(), after.to_string());
        }
    }
    (package::front_title(lang), body.body)
}

/// Resolves an image referenced by a Markdown or HTML chapter: a real image inside the project,
/// named after its content so the same image used twice is stored once.
fn resolve_image(
    project: &Project,
    chapter: &Path,
    src: &str,
    images: &mut Vec<Image>,
) -> std::result::Result<String, String> {
    let dir = chapter.parent().unwrap_or(Path::new("."));
    let path = dir.join(src);
    let data = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if let (Ok(root), Ok(real)) = (project.root.canonicalize(), path.canonicalize())
        && !real.starts_with(&root)
    {
        return Err(format!(
            "{} is outside the project folder; copy the image into the project",
            path.display()
        ));
    }
    let info = crate::media::image::sniff(&data).ok_or_else(|| {
        format!(
            "{} is not a JPEG, PNG, GIF, WebP or SVG image",
            path.display()
        )
    })?;
    let digest = sha2::Sha256::digest(&data);
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let name = format!("img-{hex}.{}", info.format.extension());
    let href = format!("../images/{name}");
    if !images.iter().any(|i| i.name == name) {
        images.push(Image {
            name,
            media_type: info.format.media_type(),
            data,
            width: info.width,
            height: info.height,
        });
    }
    Ok(href)
}

/// Links between chapter files (`[next](ch2.md#scene)`), rewritten to the documents those
/// files became. Links to anything else inside the book folder cannot work in an EPUB and are
/// removed with a warning.
#[derive(Default)]
struct LinkMap<'a> {
    /// Source path -> number of its first chapter document. Made canonical only when some
    /// chapter has links to resolve: most books have none, and resolving thousands of paths
    /// costs a noticeable part of a rebuild.
    targets: Vec<(&'a Path, usize)>,
    /// Chapter number -> (source path, links in its body).
    pending: Vec<(usize, &'a Path, Vec<String>)>,
    chapters: usize,
}

impl<'a> LinkMap<'a> {
    fn add(&mut self, path: &'a Path, links: Vec<String>, nodes: &[Node]) {
        let first = self.chapters + 1;
        self.chapters += count_chapters(nodes);
        self.targets.push((path, first));
        if !links.is_empty() {
            self.pending.push((first, path, links));
        }
    }

    fn rewrite(&self, contents: &mut [Node], warnings: &mut Vec<Warning>) {
        if self.pending.is_empty() {
            return;
        }
        let targets: Vec<(PathBuf, usize)> = self
            .targets
            .iter()
            .filter_map(|(path, doc)| Some((path.canonicalize().ok()?, *doc)))
            .collect();
        let mut n = 0;
        rewrite_nodes(contents, &mut n, &mut |number, chapter| {
            let Some((_, path, links)) = self.pending.iter().find(|p| p.0 == number) else {
                return;
            };
            for link in links {
                let (file, fragment) = match link.split_once('#') {
                    Some((f, frag)) => (f, Some(frag)),
                    None => (link.as_str(), None),
                };
                let target = path
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(file)
                    .canonicalize()
                    .ok()
                    .and_then(|real| targets.iter().find(|t| t.0 == real));
                let old = format!("href=\"{}\"", crate::xml::escape_attr(link));
                let new = match target {
                    Some((_, doc)) => {
                        let mut href = package::chapter_file_name(*doc);
                        if let Some(frag) = fragment {
                            href.push('#');
                            href.push_str(frag);
                        }
                        format!("href=\"{}\"", crate::xml::escape_attr(&href))
                    }
                    None => {
                        warnings.push(Warning {
                            path: path.to_path_buf(),
                            line: None,
                            message: format!(
                                "removed link to \"{link}\": it is not a chapter of the book"
                            ),
                        });
                        String::new()
                    }
                };
                chapter.body = chapter.body.replace(&old, &new);
            }
        });
    }
}

fn rewrite_nodes(nodes: &mut [Node], n: &mut usize, f: &mut dyn FnMut(usize, &mut Chapter)) {
    for node in nodes {
        match node {
            Node::Chapter(c) => {
                *n += 1;
                f(*n, c);
            }
            Node::Part(p) => rewrite_nodes(&mut p.children, n, f),
        }
    }
}

/// A title from a file name: the stem without a leading number and separators, `_` and `-`
/// read as spaces. None when nothing meaningful is left (only a number, or a hex hash such
/// as `000_6761ebf9337845da`).
pub fn title_from_file_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let rest = stem
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['_', '-', '.', ' ']);
    let is_hash = rest.len() >= 6 && rest.chars().all(|c| c.is_ascii_hexdigit());
    if rest.is_empty() || is_hash {
        return None;
    }
    let title = rest.replace(['_', '-'], " ");
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

fn read_cover(path: &Path, warnings: &mut Vec<Warning>) -> Result<Image> {
    let data = read(path)?;
    let prepared = crate::media::image::prepare_cover(&data, path).map_err(|e| Error::Cover {
        path: path.to_path_buf(),
        message: format!(
            "{}\n  hint: use a JPEG, PNG, GIF, WebP or SVG image as the cover",
            e.to_string()
                .trim_start_matches(&format!("{}: ", path.display()))
        ),
    })?;
    for message in prepared.warnings {
        warnings.push(Warning {
            path: path.to_path_buf(),
            line: None,
            message,
        });
    }
    let info = prepared.info;
    Ok(Image {
        name: format!("cover.{}", info.format.extension()),
        media_type: info.format.media_type(),
        data: prepared.bytes,
        width: info.width,
        height: info.height,
    })
}

/// `dcterms:modified`: from `SOURCE_DATE_EPOCH`, else the newest input's modification time.
fn modified_time(project: &Project, opts: &BuildOptions) -> Result<String> {
    let secs = match opts.source_date_epoch {
        Some(s) => s,
        None => {
            // Chapters found by a glob come with the stamp of the folder listing.
            let inputs = std::iter::once((&project.metadata_path, None))
                .chain(project.chapters().map(|c| (&c.path, c.stamp)))
                .chain(project.cover.iter().map(|p| (p, None)))
                .chain(project.style.css.iter().map(|p| (p, None)))
                .chain(project.style.fonts.iter().map(|f| (&f.path, None)));
            let mut newest = SystemTime::UNIX_EPOCH;
            for (path, stamp) in inputs {
                let modified = match stamp {
                    Some(stamp) => Some(stamp.modified),
                    None => std::fs::metadata(path)
                        .map_err(|e| Error::io(path, "cannot read", e))?
                        .modified()
                        .ok(),
                };
                if let Some(m) = modified {
                    newest = newest.max(m);
                }
            }
            newest
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        }
    };
    let time = chrono::DateTime::<chrono::Utc>::from_timestamp(secs, 0).unwrap_or_default();
    Ok(time.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefetched_cache_serves_only_the_epub_it_was_read_for() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.txt"), "第一段。\n").unwrap();
        std::fs::write(
            dir.path().join("metadata.toml"),
            "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
             [[chapters]]\nfile = \"1.txt\"\n",
        )
        .unwrap();
        let project = Project::load(dir.path()).unwrap();
        let opts = |output: &str| BuildOptions {
            output: Some(dir.path().join(output)),
            cache: true,
            source_date_epoch: Some(1_700_000_000),
            ..BuildOptions::default()
        };
        let default = project.default_output();
        assert_eq!(
            build(&project, &opts("a.epub")).unwrap().status,
            BuildStatus::Built
        );
        // Read for a.epub: it is up to date.
        let for_a = prefetch(&opts("a.epub"), &default);
        assert!(for_a.manifest.is_some());
        let r = build_with(&project, &opts("a.epub"), Some(for_a)).unwrap();
        assert_eq!(r.status, BuildStatus::UpToDate);
        // Read for another EPUB (none there): a.epub's own cache is read instead.
        let for_b = prefetch(&opts("b.epub"), &default);
        assert!(for_b.manifest.is_none());
        let r = build_with(&project, &opts("a.epub"), Some(for_b)).unwrap();
        assert_eq!(r.status, BuildStatus::UpToDate);
        // The default output when the options name none; nothing read for --force.
        assert_eq!(prefetch(&BuildOptions::default(), &default).output, default);
        let force = BuildOptions {
            force: true,
            ..opts("a.epub")
        };
        assert!(prefetch(&force, &default).manifest.is_none());
    }

    #[test]
    fn file_name_titles_skip_numbers_and_hashes() {
        assert_eq!(
            title_from_file_name(Path::new("000_6761ebf9337845da.txt")),
            None
        );
        assert_eq!(title_from_file_name(Path::new("012.txt")), None);
        assert_eq!(
            title_from_file_name(Path::new("003_第三章 风起.txt")).as_deref(),
            Some("第三章 风起")
        );
        assert_eq!(
            title_from_file_name(Path::new("01-the_long_night.md")).as_deref(),
            Some("the long night")
        );
    }
}
