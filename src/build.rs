//! Builds one book. Reads as the pipeline runs: **load** (the project, by the caller, and the
//! last build's record, [`prefetch`]) -> **plan** (what the cache allows: up to date, or which
//! chapters to reuse; [`crate::incremental::plan`]) -> **convert** (every other chapter, in
//! parallel; [`crate::convert::book`]) -> **look** (stylesheets, fonts, the generated cover;
//! [`crate::look`]) -> **package** (the entries laid out, which are rendered and which copied
//! from the previous EPUB; [`crate::write::lay_out`]) -> **write** (chapter documents packaged
//! a chunk at a time; [`crate::write::write`]) -> **commit** (the EPUB moved into place, the
//! build's record saved).
//!
//! There is one write path, with or without a cache: the bodies are set aside before the
//! layout, so the whole book's XHTML and its compressed entries are never held at once, and a
//! rebuild is byte-identical to a clean build. Problems that do not stop the build are
//! collected, not printed: only the binary prints.

use std::path::{Path, PathBuf};

use crate::archive::PackMemo;
use crate::book::Target;
use crate::convert::book::load_book_with;
pub use crate::convert::chapter::SourceReport;
use crate::convert::outline::Outline;
use crate::error::Result;
use crate::incremental::plan::{Plan, Reuse, options_key, plan, recorded_at};
use crate::incremental::quick;
use crate::incremental::quick::Handed;
use crate::incremental::record::RecordFile;
use crate::project::Project;
use crate::write::{self};
use rayon::prelude::*;
use std::sync::Arc;

mod commit;
mod layout;
mod report;

use commit::{commit, record_of};
use layout::{lay_out_all, set_aside};
pub(crate) use report::Stopwatch;
pub use report::{BuildOptions, BuildReport, BuildStatus};
use report::{combine, refuse_loss, report, up_to_date};

/// Builds a project into an EPUB.
///
/// With `opts.cache`, an up-to-date book is left alone and unchanged chapters are reused; any
/// doubt about the cache (damaged, stale, or a layout the reuse cannot vouch for) means those
/// chapters, or the whole book, are converted again, so the EPUB is always byte-identical to
/// a clean build's.
pub fn build(project: &Project, opts: &BuildOptions) -> Result<BuildReport> {
    build_with(project, opts, None)
}

impl Project {
    /// Builds this project's book as `opts` asks: the library's one way to build, the same as
    /// the command line's. With `opts.cache` (the default) an up-to-date book is found by the
    /// quick check of the build cache and left alone, and unchanged chapters are reused; the
    /// EPUB is always byte-identical to a clean build's.
    ///
    /// ```
    /// use epubforge::{BuildOptions, Project};
    ///
    /// let project = Project::load(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))?;
    /// let out = tempfile::tempdir().expect("a temporary folder");
    /// let mut opts = BuildOptions::default();
    /// opts.output = Some(out.path().join("book.epub"));
    /// let report = project.build(&opts)?;
    /// assert!(report.output.exists());
    /// # Ok::<(), epubforge::Error>(())
    /// ```
    pub fn build(&self, opts: &BuildOptions) -> Result<BuildReport> {
        if let Ok(report) = quick_up_to_date(&self.root, opts) {
            return Ok(report);
        }
        let report = build_with(self, opts, None)?;
        if opts.cache && opts.output.is_none() {
            crate::incremental::quick::remember_default(self, &report.output);
        }
        Ok(report)
    }
}

/// The report of a book that the quick check ([`crate::incremental::quick`]) finds up to date
/// without loading its project at `location`; when it cannot tell (then the project is loaded
/// and built as usual), the files it looked at on the way, if any, for that load
/// ([`Project::load_looked`]) and the record it read ([`prefetch`]).
pub(crate) fn quick_up_to_date(
    location: &Path,
    opts: &BuildOptions,
) -> std::result::Result<BuildReport, Handed> {
    let target = match opts.targets.as_slice() {
        [] => Target::Epub,
        [one] => *one,
        _ => return Err(Handed::default()),
    };
    if !opts.cache || opts.force || opts.strict {
        return Err(Handed::default());
    }
    let mut watch = Stopwatch::start();
    let options = |output: &Path| options_key(opts.source_date_epoch, output, target);
    let outside = opts.load.allow_outside_paths;
    let (output, head) = quick::up_to_date(location, opts.output.as_deref(), &options, outside)?;
    let chapters = (head.quick.as_ref())
        .ok_or_else(Handed::default)?
        .chapters()
        .iter();
    let recorded =
        recorded_at(&head, chapters.map(PathBuf::as_path)).ok_or_else(Handed::default)?;
    watch.lap("quick check");
    let mut report = up_to_date(recorded, output, target);
    report.timings = watch.take();
    Ok(report)
}

/// What a build reads before its project is loaded: the build record of its EPUB.
pub(crate) struct Prefetched {
    pub(crate) output: PathBuf,
    pub(crate) record: Option<RecordFile>,
}

/// Reads the build record that a build with `opts` of a project whose
/// [`Project::default_output`] is `default_output` will consult (unless `read`, read by the
/// quick check just before, is that EPUB's); meant to run while the project loads
/// ([`Project::load_alongside`]).
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn prefetch(
    opts: &BuildOptions,
    default_output: &Path,
    read: Option<Box<(PathBuf, RecordFile)>>,
) -> Prefetched {
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| default_output.to_path_buf());
    if !opts.cache || opts.force {
        return Prefetched {
            output,
            record: None,
        };
    }
    let record = match read {
        Some(read) if read.0 == output => Some(read.1),
        _ => RecordFile::load(&output),
    };
    Prefetched { output, record }
}

/// [`build`], with the build record read beforehand by [`prefetch`] (ignored when it is not
/// for this build's first EPUB).
///
/// Several targets share one reading and conversion of the book: each output is then laid
/// out on its own, all are written in step ([`crate::write::write`]), then each is committed
/// with its own build record, so that each is rebuilt incrementally on its own. A chapter is converted unless every output still to write takes
/// it from its previous EPUB.
pub(crate) fn build_with(
    project: &Project,
    opts: &BuildOptions,
    prefetched: Option<Prefetched>,
) -> Result<BuildReport> {
    let volumes = project
        .volumes
        .and_then(|how| crate::volumes::split(project, how));
    let Some(volumes) = volumes else {
        return build_book(project, opts, prefetched);
    };
    // Each volume is a book of its own, with its own outputs and build records.
    let count = volumes.len();
    let mut reports = Vec::with_capacity(count);
    for (i, volume) in volumes.iter().enumerate() {
        let opts = BuildOptions {
            output: opts
                .output
                .as_deref()
                .map(|o| crate::volumes::volume_path(o, i + 1, count)),
            hold_entries: opts.hold_entries && i == 0,
            ..opts.clone()
        };
        let mut report = build_book(volume, &opts, None)?;
        let also = std::mem::take(&mut report.also);
        reports.push(report);
        reports.extend(also);
    }
    // The volumes' own warnings are kept: each volume read different chapters.
    let timings = reports
        .iter_mut()
        .flat_map(|r| std::mem::take(&mut r.timings))
        .collect();
    let mut first = reports.remove(0);
    first.also = reports;
    first.timings = timings;
    Ok(first)
}

/// Builds one book (the whole project, or one volume) for every target.
fn build_book(
    project: &Project,
    opts: &BuildOptions,
    prefetched: Option<Prefetched>,
) -> Result<BuildReport> {
    let outputs = outputs(project, opts)?;
    let mut watch = Stopwatch::start();
    let mut prefetched = prefetched;
    let mut reports: Vec<Option<BuildReport>> = Vec::with_capacity(outputs.len());
    let mut todo: Vec<Pending> = Vec::new();
    for (target, output) in outputs {
        match plan_build(project, opts, (target, &output), prefetched.take()) {
            Plan::UpToDate(recorded) => {
                refuse_loss(opts, &recorded.warnings)?;
                reports.push(Some(up_to_date(recorded, output, target)));
            }
            Plan::Build(reuse) => {
                reports.push(None);
                todo.push(Pending {
                    target,
                    output,
                    reuse,
                });
            }
        }
    }
    if opts.cache {
        watch.lap("check cache");
    }
    if !todo.is_empty() {
        let built = build_outputs(project, opts, &mut todo, &mut watch)?;
        let mut built = built.into_iter();
        for slot in reports.iter_mut().filter(|r| r.is_none()) {
            *slot = built.next();
        }
    }
    Ok(combine(
        reports.into_iter().flatten().collect(),
        watch.take(),
    ))
}

/// An output still to write: its target, its path and what its cache allows.
struct Pending {
    target: Target,
    output: PathBuf,
    reuse: Box<Reuse>,
}

/// The outputs a build writes, in order: one per target (`opts.targets`, else the project's
/// `[output] targets`, else the plain EPUB). A single target writes to the output asked for;
/// several write beside it, named by [`Target::output_beside`].
fn outputs(project: &Project, opts: &BuildOptions) -> Result<Vec<(Target, PathBuf)>> {
    let base = project.output_for(opts.output.as_deref())?;
    let targets = crate::stores::chosen(&opts.targets, &project.targets);
    if targets.len() == 1 && (opts.output.is_some() || targets[0] == Target::Epub) {
        return Ok(vec![(targets[0], base)]);
    }
    Ok(targets
        .into_iter()
        .map(|t| (t, t.output_beside(&base)))
        .collect())
}

/// Reads and converts the book once, then writes every pending output; their reports, in
/// order.
fn build_outputs(
    project: &Project,
    opts: &BuildOptions,
    todo: &mut [Pending],
    watch: &mut Stopwatch,
) -> Result<Vec<BuildReport>> {
    // The cover is drawn while the chapters load: its canvas is freed long before the
    // chapters' packaging, where memory peaks.
    let (cover, loaded) = rayon::join(
        || crate::look::cover_for(project, opts.cache, opts.force, &todo[0].output),
        || {
            load_book_with(project, opts.source_date_epoch, &|i, s| {
                // A recorded title is numbered by its place among the chapters before it,
                // which another chapter's edit can change: numbered books convert it again.
                if project.layout.title_format.is_some() {
                    return None;
                }
                let mut plans = todo.iter().map(|p| &p.reuse);
                let first = plans.next()?;
                if plans.all(|r| r.is_reused(i)) {
                    first.converted(i, s)
                } else {
                    None
                }
            })
        },
    );
    let mut loaded = loaded?;
    refuse_loss(opts, &loaded.all_warnings())?;
    if cover.is_some() {
        loaded.book.cover = cover;
    }
    let outline = Outline::measured(&loaded.book.contents, &loaded.origins, opts.outline_sizes);
    watch.lap("read and convert");
    let mut look = crate::look::prepare(project, &mut loaded.book, &mut loaded.warnings)?;
    let mut bodies = set_aside(&mut loaded.book);
    let plans = lay_out_all(project, &mut loaded, &mut look, todo, &mut bodies)?;
    watch.lap("lay out");
    // The frame's entries that are the same in several outputs are compressed once.
    let memo = (todo.len() > 1).then(|| Arc::new(PackMemo::default()));
    let outputs = (todo.iter_mut().zip(&plans).enumerate())
        .map(|(i, (pending, plan))| write::Output {
            path: &pending.output,
            plan,
            target: pending.target,
            previous: pending.reuse.previous.as_mut().map(|(epub, _)| epub),
            hold: opts.hold_entries && i == 0,
        })
        .collect();
    let written = write::write(outputs, &mut loaded.book, &look, bodies, memo.as_ref())?;
    let (finished, mut held): (Vec<_>, Vec<_>) = written.into_iter().unzip();
    watch.lap("write");
    let mut records = Vec::with_capacity(todo.len());
    for (pending, plan) in todo.iter_mut().zip(plans) {
        records.push(record_of(project, opts, &mut loaded, pending, plan));
    }
    // Each EPUB moved into place beside the others: replacing a big file takes a while.
    let committed: Vec<Result<u64>> = finished
        .into_par_iter()
        .zip(records.par_iter_mut())
        .zip(todo.par_iter())
        .map(|((finished, (_, record)), pending)| commit(finished, &pending.output, record.take()))
        .collect();
    watch.lap("commit");
    let mut reports = Vec::with_capacity(todo.len());
    for ((pending, (reused, _)), bytes) in todo.iter().zip(records).zip(committed) {
        reports.push(report(&loaded, pending, reused, bytes?));
    }
    if let Some(first) = reports.first_mut() {
        first.outline = Some(outline);
        first.held = held.swap_remove(0);
    }
    Ok(reports)
}

/// What the cache allows this build (everything is built without one).
fn plan_build(
    project: &Project,
    opts: &BuildOptions,
    (target, output): (Target, &Path),
    prefetched: Option<Prefetched>,
) -> Plan {
    if !opts.cache {
        return Plan::Build(Box::new(Reuse::none(project)));
    }
    let last = match prefetched {
        _ if opts.force => None,
        Some(p) if p.output == output => p.record,
        _ => RecordFile::load(output),
    };
    plan(
        project,
        output,
        options_key(opts.source_date_epoch, output, target),
        last,
    )
}
