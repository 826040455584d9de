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

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::archive;
use crate::convert::book::{load_book, load_book_with};
pub use crate::convert::chapter::SourceReport;
pub use crate::diagnostic::Warning;
use crate::error::{Error, Result};
use crate::incremental::plan::{
    chapter_key, options_key, recorded_sources, recorded_warnings, reusable_source, reused,
    up_to_date,
};
use crate::incremental::{
    self, ChapterLine, ChapterRecord, Hash, Manifest, ManifestParts, ManifestText, Stamp,
};
use crate::package::{self, Entry};
use crate::project::{ChapterSource, Project};
use crate::write::{
    CacheText, LaidOut, Layout, Plan, Previous, Written, WrittenChapter, entry_index, fresh_frame,
    same_frame, write_streaming,
};
use rayon::prelude::*;

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
    let options_key = options_key(opts.source_date_epoch, &output);
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
        && let Some(recorded) = up_to_date(summary, &paths, &sources)
    {
        watch.lap("check cache");
        return Ok(BuildReport {
            status: BuildStatus::UpToDate,
            reused: recorded.chapters,
            output,
            chapters: recorded.chapters,
            bytes: recorded.bytes,
            warnings: recorded.warnings,
            sources: recorded.sources,
            timings: watch.take(),
        });
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

/// The whole book in memory, packaged and written at once: no cache, no streaming.
fn build_plain(
    project: &Project,
    opts: &BuildOptions,
    output: &Path,
    watch: &mut Stopwatch,
) -> Result<BuildReport> {
    // Drawn before the chapters are loaded, so its buffers never add to their memory.
    let cover = crate::look::cover_for(project, opts.cache, opts.force, output);
    let mut loaded = load_book(project, opts.source_date_epoch)?;
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
        || crate::look::cover_for(project, opts.cache, opts.force, output),
        || {
            load_book_with(project, opts.source_date_epoch, &|i, src| {
                reuse.get(i).copied().flatten().and_then(|r| reused(r, src))
            })
        },
    );
    let mut loaded = loaded?;
    if cover.is_some() {
        loaded.book.cover = cover;
    }
    watch.lap("read and convert");
    let look = crate::look::prepare(project, &mut loaded.book, &mut loaded.warnings)?;
    let mut book = loaded.book;
    let chapters = package::count_chapters(&book.contents);
    if chapters != reuse.len() {
        return Ok(None);
    }
    let mut bodies: Vec<String> = package::chapters_mut(&mut book.contents)
        .into_iter()
        .map(|c| std::mem::take(&mut c.body))
        .collect();
    let titles: Vec<String> = package::chapters_mut(&mut book.contents)
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
}
