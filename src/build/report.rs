//! What a build is asked and what it reports: [`BuildOptions`] in, [`BuildReport`] out, and
//! the [`Stopwatch`] that times its stages.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::Pending;
use crate::book::Target;
use crate::convert::book::Loaded;
pub use crate::convert::chapter::SourceReport;
use crate::convert::outline::Outline;
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::incremental::plan::Recorded;

/// Options for one build.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct BuildOptions {
    /// Where to write the EPUB; default: `[output] path` of the project's `metadata.toml`, else
    /// `build/<title>.epub` in the project folder.
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
    /// Hold the contents of the first EPUB's entries as they are written, and hand them back
    /// in [`BuildReport::held`] (`fix` reviews its result from them).
    pub(crate) hold_entries: bool,
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
            hold_entries: false,
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
    /// The contents of the EPUB's entries as written, when [`BuildOptions::hold_entries`]
    /// asked for them and this EPUB was written (not up to date, not a later volume's).
    pub(crate) held: Option<crate::inspect::archive::Held>,
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

/// The report of an output written and committed, `bytes` long, with `reused` of its
/// `chapters` copied.
pub(super) fn report(
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
        held: None,
    }
}

/// The first report with the others as its [`BuildReport::also`] (their warnings, the same
/// as the first's, left out) and the build's timings.
pub(super) fn combine(
    mut reports: Vec<BuildReport>,
    timings: Vec<(&'static str, Duration)>,
) -> BuildReport {
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
pub(super) fn refuse_loss(opts: &BuildOptions, warnings: &[Diagnostic]) -> Result<()> {
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

/// The report of a book left as it was.
pub(super) fn up_to_date(recorded: Recorded, output: PathBuf, target: Target) -> BuildReport {
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
        held: None,
    }
}
