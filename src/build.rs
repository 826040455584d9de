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
use std::time::{Duration, Instant};

use crate::archive::{Finished, PackMemo};
use crate::book;
use crate::book::Target;
use crate::convert::book::{Loaded, load_book_with};
pub use crate::convert::chapter::SourceReport;
use crate::convert::outline::Outline;
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::incremental::Hash;
use crate::incremental::plan::{Built, Plan, Recorded, Reuse, options_key, plan, recorded_at};
use crate::incremental::quick;
use crate::incremental::record::{self, ChapterRecord, RecordFile};
use crate::package::Look;
use crate::project::{FileStamp, Project};
use crate::write::{self, EntryPlan, Stale};
use rayon::prelude::*;
use std::sync::Arc;

/// Options for one build.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
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
    /// Refuse to build a book that loses content ([`Error::ContentRemoved`]): what the
    /// `removed-content` and `lost-text` warnings report becomes an error.
    pub strict: bool,
    /// The readers and stores to build for, each its own EPUB (`--target`); empty: those of
    /// `[output] targets`, else the plain EPUB.
    pub targets: Vec<Target>,
    /// Count the size of each entry of the report's [`BuildReport::outline`] (`build -v`
    /// shows them); off, its entries have no sizes, and the build does not read every
    /// chapter's text again for them.
    pub outline_sizes: bool,
}

impl BuildOptions {
    /// Options with `source_date_epoch` read from the `SOURCE_DATE_EPOCH` environment variable
    /// (an error when it is set to anything but seconds in the years 0 to 9999).
    pub fn from_env() -> Result<BuildOptions> {
        Ok(BuildOptions {
            output: None,
            cache: false,
            force: false,
            strict: false,
            targets: Vec::new(),
            outline_sizes: false,
            load: crate::project::LoadOptions::default(),
            source_date_epoch: crate::project::source_date_epoch()?,
        })
    }
}

/// Whether a build wrote the EPUB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildStatus {
    /// The EPUB was written.
    Built,
    /// Nothing had changed since the last build; the EPUB was left as it was.
    UpToDate,
}

/// What a build did.
#[derive(Debug, Clone)]
#[non_exhaustive]
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
    /// The reader or store the EPUB is made for.
    pub target: Target,
    /// Problems that did not stop the build.
    pub warnings: Vec<Diagnostic>,
    /// How each chapter file was decoded.
    pub sources: Vec<SourceReport>,
    /// Where the time went, stage by stage, in order (`-v` prints it).
    pub timings: Vec<(&'static str, Duration)>,
    /// The letters and digits of the chapters' sources the book does not hold, by cause (the
    /// text ledger, over the chapters this build converted).
    pub removed: crate::ledger::Removed,
    /// The EPUBs of the other targets built in the same run, in order (their warnings are
    /// only those of their own target: the book's are in this report's).
    pub also: Vec<BuildReport>,
    /// The volumes and chapters of the book as built (`build -v` prints it); None when the
    /// book was up to date, and in the reports of [`BuildReport::also`] of the same book.
    pub outline: Option<Outline>,
}

/// Times the stages of a build: each [`Stopwatch::lap`] records the time since the last.
#[derive(Debug, Clone)]
pub(crate) struct Stopwatch {
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

    /// The stages timed so far.
    pub fn take(&mut self) -> Vec<(&'static str, Duration)> {
        std::mem::take(&mut self.laps)
    }
}

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
        if let Some(report) = quick_up_to_date(&self.root, opts) {
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
/// without loading its project at `location`; None when it cannot tell (then the project is
/// loaded and built as usual).
pub(crate) fn quick_up_to_date(location: &Path, opts: &BuildOptions) -> Option<BuildReport> {
    let target = match opts.targets.as_slice() {
        [] => Target::Epub,
        [one] => *one,
        _ => return None,
    };
    if !opts.cache || opts.force || opts.strict {
        return None;
    }
    let mut watch = Stopwatch::start();
    let options = |output: &Path| options_key(opts.source_date_epoch, output, target);
    let outside = opts.load.allow_outside_paths;
    let (output, head) = quick::up_to_date(location, opts.output.as_deref(), &options, outside)?;
    let chapters = head.quick.as_ref()?.chapters().iter();
    let recorded = recorded_at(&head, chapters.map(PathBuf::as_path))?;
    watch.lap("quick check");
    let mut report = up_to_date(recorded, output, target);
    report.timings = watch.take();
    Some(report)
}

/// What a build reads before its project is loaded: the build record of its EPUB.
pub(crate) struct Prefetched {
    pub(crate) output: PathBuf,
    pub(crate) record: Option<RecordFile>,
}

/// Reads the build record that a build with `opts` of a project whose
/// [`Project::default_output`] is `default_output` will consult; meant to run while the
/// project loads ([`Project::load_alongside`]).
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn prefetch(opts: &BuildOptions, default_output: &Path) -> Prefetched {
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| default_output.to_path_buf());
    let record = (opts.cache && !opts.force)
        .then(|| RecordFile::load(&output))
        .flatten();
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
    let outputs = todo
        .iter_mut()
        .zip(&plans)
        .map(|(pending, plan)| write::Output {
            path: &pending.output,
            plan,
            target: pending.target,
            previous: pending.reuse.previous.as_mut().map(|(epub, _)| epub),
        })
        .collect();
    let finished = write::write(outputs, &mut loaded.book, &look, bodies, memo.as_ref())?;
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
    }
    Ok(reports)
}

/// Every pending output laid out (each for its target), the chapter bodies set aside in
/// `bodies`. A chapter that one output's layout converts again (its record refuted) changes the
/// book the others were laid out for: then they are all laid out again.
fn lay_out_all(
    project: &Project,
    loaded: &mut Loaded,
    look: &mut Look,
    todo: &mut [Pending],
    bodies: &mut [String],
) -> Result<Vec<EntryPlan>> {
    loop {
        let mut plans = Vec::with_capacity(todo.len());
        let mut converted = false;
        for pending in todo.iter_mut() {
            look.target = pending.target;
            let (plan, again) = lay_out(
                project,
                loaded,
                look,
                &mut pending.reuse,
                &pending.output,
                bodies,
            )?;
            converted |= again;
            plans.push(plan);
        }
        look.target = Target::Epub;
        if !converted || todo.len() == 1 {
            return Ok(plans);
        }
    }
}

/// How many chapters an output laid out by `plan` copies and of how many, and with a cache,
/// the record of the output.
fn record_of(
    project: &Project,
    opts: &BuildOptions,
    loaded: &mut Loaded,
    pending: &mut Pending,
    plan: EntryPlan,
) -> ((usize, usize), Option<record::Record>) {
    let counts = (plan.copied_chapters(), plan.docs.len());
    let record = opts.cache.then(|| {
        let titles = chapter_titles(&mut loaded.book);
        let reuse = std::mem::replace(&mut pending.reuse, Box::new(Reuse::none(project)));
        reuse.into_record(built(loaded, plan, titles))
    });
    (counts, record)
}

/// The report of an output written and committed, `bytes` long, with `reused` of its
/// `chapters` copied.
fn report(
    loaded: &Loaded,
    pending: &Pending,
    (reused, chapters): (usize, usize),
    bytes: u64,
) -> BuildReport {
    let mut warnings = loaded.all_warnings();
    let language = &loaded.book.info.language;
    warnings.extend(crate::stores::output_warnings(
        pending.target,
        &pending.output,
        bytes,
        language,
    ));
    BuildReport {
        status: BuildStatus::Built,
        reused,
        output: pending.output.clone(),
        target: pending.target,
        chapters,
        bytes,
        warnings,
        sources: loaded.sources.iter().map(|s| s.report.clone()).collect(),
        timings: Vec::new(),
        removed: loaded.removed(),
        also: Vec::new(),
        outline: None,
    }
}

/// The first report with the others as its [`BuildReport::also`] (their warnings, the same
/// as the first's, left out) and the build's timings.
fn combine(mut reports: Vec<BuildReport>, timings: Vec<(&'static str, Duration)>) -> BuildReport {
    let mut first = reports.remove(0);
    for r in &mut reports {
        r.warnings
            .retain(|w| crate::stores::is_output_warning(w.code));
        r.sources.clear();
    }
    first.also = reports;
    first.timings = timings;
    first
}

/// Under `opts.strict`, a chapter that lost content (damaged bytes read as U+FFFD too) stops
/// the build.
fn refuse_loss(opts: &BuildOptions, warnings: &[Diagnostic]) -> Result<()> {
    if !opts.strict {
        return Ok(());
    }
    let mut lost = warnings.iter().filter(|w| {
        matches!(
            w.code,
            Code::RemovedContent | Code::LostText | Code::UnreadableImage | Code::Encoding
        )
    });
    match lost.next() {
        Some(first) => Err(Error::ContentRemoved {
            path: first.path.clone().unwrap_or_default(),
            message: first.message.clone(),
            more: lost.count(),
        }),
        None => Ok(()),
    }
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

/// The report of a book left as it was.
fn up_to_date(recorded: Recorded, output: PathBuf, target: Target) -> BuildReport {
    BuildReport {
        status: BuildStatus::UpToDate,
        reused: recorded.chapters,
        output,
        target,
        chapters: recorded.chapters,
        bytes: recorded.bytes,
        warnings: recorded.warnings,
        sources: recorded.sources,
        timings: Vec::new(),
        removed: Default::default(),
        also: Vec::new(),
        outline: None,
    }
}

/// Lays the book's entries out, its chapter bodies set aside in `bodies` (by chapter). A chapter
/// taken from the cache whose recorded documents the layout refutes (its name moved: a split
/// file before it gained a chapter) is converted after all, and the book laid out again; true
/// when that happened.
fn lay_out(
    project: &Project,
    loaded: &mut Loaded,
    look: &Look,
    reuse: &mut Reuse,
    output: &Path,
    bodies: &mut [String],
) -> Result<(EntryPlan, bool)> {
    let mut converted = false;
    for _ in 0..2 {
        let mut reused: Vec<Option<&[(String, Hash)]>> = vec![None; bodies.len()];
        for (i, &k) in loaded.first_chapter.iter().enumerate() {
            if let (Some(slot), Some(docs)) = (reused.get_mut(k), reuse.docs(i)) {
                *slot = Some(docs);
            }
        }
        let stale = match write::lay_out(&loaded.book, look, &reused, reuse.previous.as_ref()) {
            Ok(plan) => return Ok((plan, converted)),
            Err(Stale(stale)) => stale,
        };
        let again: Vec<usize> = (0..loaded.first_chapter.len())
            .filter(|&i| reuse.is_reused(i) && stale.contains(&loaded.first_chapter[i]))
            .collect();
        if again.is_empty() {
            break;
        }
        again.iter().for_each(|&i| reuse.forget(i));
        loaded.convert_again(project, &again)?;
        converted = true;
        for (slot, body) in bodies.iter_mut().zip(set_aside(&mut loaded.book)) {
            if !body.is_empty() {
                *slot = body;
            }
        }
    }
    Err(Error::io(
        output,
        "cannot write",
        std::io::Error::other("the chapters' documents could not be laid out"),
    ))
}

/// Takes every chapter's body out of the book, in reading order.
fn set_aside(book: &mut book::Book) -> Vec<String> {
    book::chapters_mut(&mut book.contents)
        .into_iter()
        .map(|c| std::mem::take(&mut c.body))
        .collect()
}

fn chapter_titles(book: &mut book::Book) -> Vec<String> {
    book::chapters_mut(&mut book.contents)
        .into_iter()
        .map(|c| c.title.clone())
        .collect()
}

/// What this build wrote, for its record.
fn built(loaded: &Loaded, plan: EntryPlan, titles: Vec<String>) -> Built<'_> {
    let chapters = titles
        .into_iter()
        .zip(plan.docs)
        .map(|(title, docs)| ChapterRecord { title, docs })
        .collect();
    Built {
        sources: &loaded.sources,
        first_chapter: &loaded.first_chapter,
        warnings: &loaded.warnings,
        chapters,
        entries: plan.frame,
        frame: plan.frame_key,
        modified: loaded.book.modified.clone(),
    }
}

/// Moves the EPUB into place and, with a build cache, saves the build's record (its body
/// serialised while the EPUB is moved); returns the EPUB's size. Should the EPUB not
/// make it into place, or the record not be saved, there is no record: the next build is a
/// clean one.
fn commit(finished: Finished, output: &Path, record: Option<record::Record>) -> Result<u64> {
    let (committed, record) = std::thread::scope(|scope| {
        let commit = scope.spawn(|| finished.commit());
        let record = record.map(|r| {
            let body = record::body_bytes(&r.body);
            (r.head, body)
        });
        (commit.join(), record)
    });
    let committed = committed.unwrap_or_else(|_| {
        Err(Error::io(
            output,
            "cannot write",
            std::io::Error::other("the writing thread panicked"),
        ))
    });
    // Stamped once in place: the move itself changes the file's status change time.
    let stamp = FileStamp::of_path(output);
    if let Some((mut head, body)) = record {
        head.output = stamp;
        if committed.is_err()
            || stamp.is_none()
            || record::save_parts(output, &head, &body).is_err()
        {
            record::remove(output);
        }
    }
    committed?;
    Ok(stamp.map_or(0, |s| s.size))
}
