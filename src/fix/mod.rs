//! `epubforge fix`: an EPUB someone already has, repaired and converted by the build.
//!
//! A fix is the build, not a second writer: the EPUB is unpacked into a project in a temporary
//! folder ([`crate::epub_in::unpack`]), the options are written into its `metadata.toml` as
//! the keys the build already reads ([`options`]), the project is built as any other, and the
//! EPUB (one per target) is moved beside the input. So every option the build has (targets,
//! OpenCC, typography, cleanup rules, writing mode, fonts) works on an EPUB, and the result is
//! as valid as anything we build.
//!
//! Around the build, [`review`] runs inspect's rules (and EPUBCheck, when asked and
//! installed) on the input and on the result: every kind of problem the input had that the
//! result no longer has is reported as fixed, what is left is listed with why; and the text of
//! the spine is counted before and after (the text ledger across the whole fix).
//!
//! Sits beside `build` and `batch` at the top of the pipeline: it imports them, nothing
//! imports it but the binary.

#[cfg(feature = "cli")]
mod all;
#[cfg(test)]
mod heldout_tests;
mod options;
mod review;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::book::Target;
use crate::build::{BuildOptions, BuildReport};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::inspect::archive::Archive;
use crate::project::{LoadOptions, Project};

#[cfg(feature = "cli")]
pub use all::{FixOutcome, find_epubs, fix_all};
pub use options::Cleanup;

/// What `fix` is asked to do besides repairing.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct FixOptions {
    /// Where the EPUB goes (one target); default: `BOOK.fixed.epub` beside the input.
    pub output: Option<PathBuf>,
    /// Replace the input with the result (atomically, and only when the fix succeeds).
    pub in_place: bool,
    /// The readers and stores to build for, each its own EPUB (`--target`); empty: the
    /// plain EPUB.
    pub targets: Vec<Target>,
    /// An OpenCC configuration applied to the text, the metadata and the TOC (`[book] convert`).
    pub convert: Option<String>,
    /// Turn typography on (`[text] typography = true`); off otherwise, so that a fix leaves
    /// the punctuation as it was.
    pub typography: bool,
    /// Cleanup rules: a preset or a file of `[[cleanup]]` rules.
    pub cleanup: Option<Cleanup>,
    /// Vertical or horizontal text (`[layout] writing-mode`), with the quotes that go with it.
    pub writing_mode: Option<crate::book::WritingMode>,
    /// Fonts to embed (subset); the first becomes the body font.
    pub fonts: Vec<PathBuf>,
    /// Run EPUBCheck (when installed) before and after, with this time limit.
    pub epubcheck: Option<Duration>,
    /// Seconds since the epoch for `dcterms:modified` (`SOURCE_DATE_EPOCH`).
    pub source_date_epoch: Option<i64>,
    /// Rebuild an EPUB even when it is already clean and nothing else is asked.
    pub force: bool,
}

impl FixOptions {
    /// Whether anything besides repairs is asked for: then even a clean EPUB is rebuilt.
    pub fn converts(&self) -> bool {
        self.targets.iter().any(|t| *t != Target::Epub)
            || self.convert.is_some()
            || self.typography
            || self.cleanup.is_some()
            || self.writing_mode.is_some()
            || !self.fonts.is_empty()
    }

    /// Checks what the build would only find inside the temporary project: an unknown OpenCC
    /// configuration or preset, a missing font or rules file, `--in-place` with `-o` or with
    /// several targets.
    pub fn validate(&self) -> Result<(), FixError> {
        let bad = |m: String| Err(FixError::Options(m));
        if self.in_place && self.output.is_some() {
            return bad("--in-place and -o cannot be used together".into());
        }
        if (self.in_place || self.output.is_some()) && self.targets.len() > 1 {
            return bad("-o and --in-place take one target; several go beside the input".into());
        }
        if let Some(name) = &self.convert
            && crate::text_fix::Conversion::named(name).is_none()
        {
            return bad(format!(
                "--convert {name}: not an OpenCC configuration (s2t, s2tw, s2twp, s2hk, t2s, tw2s, tw2sp, hk2s, t2tw, t2hk, t2jp, jp2t, …)"
            ));
        }
        options::validate(self)
    }
}

/// What a fix found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FixStatus {
    /// The EPUB was rebuilt: repaired, converted, or both.
    Fixed,
    /// Nothing was wrong and nothing was asked: no EPUB was written.
    AlreadyClean,
}

/// The report of one fix.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FixReport {
    /// The EPUB fixed.
    pub input: PathBuf,
    /// Fixed, or already clean.
    pub status: FixStatus,
    /// The EPUBs written, one per target, in order.
    pub outputs: Vec<PathBuf>,
    /// Errors and warnings the input had (our rules, EPUBCheck when run, Send-to-Kindle's).
    pub found: usize,
    /// Of those, how many the result no longer has, by kind.
    pub fixed: Vec<(Code, usize)>,
    /// Errors and warnings the result still has.
    pub remaining: usize,
    /// Letters and digits of the input's spine (see `review::spine_chars_of`); None when unreadable.
    pub chars_before: Option<usize>,
    /// The same of the result's.
    pub chars_after: Option<usize>,
    /// Every repair (code `fixed`), every problem left, and what the unpacking and the build
    /// reported, in that order.
    pub diagnostics: Vec<Diagnostic>,
    /// Where the time went.
    pub timings: Vec<(&'static str, Duration)>,
}

/// Why a fix failed: nothing was written or replaced.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FixError {
    /// The options cannot be used.
    #[error("{0}")]
    Options(String),
    /// A file or folder could not be read or written.
    #[error("{}: {action}: {source}", crate::escape::path(path))]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What we were doing.
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The EPUB could not be read as a book: the problem as `inspect` and `init` report it
    /// (its code and place: `epub-xml` at the package document's line, `epub-zip`…).
    #[error("{}", .0.render(None, false))]
    Unreadable(Box<Diagnostic>),
    /// The book could not be built from what the EPUB holds.
    #[error("{}", .0.render(None, false))]
    Build(Box<Diagnostic>),
}

impl FixError {
    /// The error as a diagnostic (code `usage` for options, `io`, inspect's for an EPUB that
    /// cannot be read, or the build's).
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            FixError::Build(d) | FixError::Unreadable(d) => (**d).clone(),
            FixError::Io { path, .. } => Diagnostic::error(Code::Io, self.to_string()).at(path),
            FixError::Options(m) => Diagnostic::error(Code::Usage, m.clone()),
        }
    }
}

fn io(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> FixError + use<> {
    let path = path.to_path_buf();
    move |source| FixError::Io {
        path,
        action,
        source,
    }
}

/// Where the plain EPUB of a fix goes: `-o`, the input itself with `--in-place`, else
/// `BOOK.fixed.epub` beside the input.
pub fn default_output(epub: &Path, opts: &FixOptions) -> PathBuf {
    if let Some(out) = &opts.output {
        return out.clone();
    }
    if opts.in_place {
        return epub.to_path_buf();
    }
    let name = epub.file_name().unwrap_or_default().to_string_lossy();
    let stem = match name.len().checked_sub(5) {
        Some(at) if name.is_char_boundary(at) && name[at..].eq_ignore_ascii_case(".epub") => {
            &name[..at]
        }
        _ => &name,
    };
    epub.with_file_name(format!("{stem}.fixed.epub"))
}

/// Where the EPUB of `target` goes: the output asked for when there is one target (or it is
/// the plain EPUB), else beside it named by [`Target::output_beside`].
fn output_for(epub: &Path, opts: &FixOptions, target: Target) -> PathBuf {
    let base = default_output(epub, opts);
    let single = opts.targets.len() <= 1 && (opts.output.is_some() || opts.in_place);
    match single || target == Target::Epub {
        true => base,
        false => target.output_beside(&base),
    }
}

/// Repairs (and converts) the EPUB at `epub`; see the module documentation.
///
/// ```no_run
/// use epubforge::{FixOptions, FixStatus, fix};
///
/// let mut opts = FixOptions::default();
/// opts.output = Some("book.fixed.epub".into());
/// let report = fix(std::path::Path::new("book.epub"), &opts)?;
/// if report.status == FixStatus::Fixed {
///     println!("{} kinds repaired, {} problems left", report.fixed.len(), report.remaining);
/// }
/// # Ok::<(), epubforge::FixError>(())
/// ```
pub fn fix(epub: &Path, opts: &FixOptions) -> Result<FixReport, FixError> {
    opts.validate()?;
    if !opts.in_place && is_same_file(&default_output(epub, opts), epub) {
        return Err(FixError::Options(format!(
            "{}: -o names the input; use --in-place to replace it",
            crate::escape::path(epub)
        )));
    }
    let mut clock = Clock::new();
    let work = tempfile::Builder::new()
        .prefix("epubforge-fix-")
        .tempdir()
        .map_err(io(Path::new("(temporary folder)"), "cannot create"))?;
    let dirs = Dirs {
        project: work.path().join("book"),
        staged: work.path().join("out"),
        entries: OnceLock::new(),
    };
    // The input is inflated once for its review and its unpacking, and reviewed while it is
    // unpacked. When the book is built whatever the review finds (`--force`, a conversion
    // asked), it is built meanwhile too.
    let input = Archive::inflate(epub);
    let ahead = opts.force || opts.converts();
    let (before, prepared) = rayon::join(
        || review::review(&input, opts.epubcheck),
        || prepare(&input, &dirs, opts, ahead),
    );
    // Freeing what was inflated takes a few milliseconds: it is done beside the result's review
    // when the book is built already, before the build otherwise.
    let mut input = Some(input);
    let (mut diagnostics, mut built) = match prepared {
        Ok(Prepared::Built(diagnostics, built)) => {
            clock.lap("review input, unpack, build");
            (diagnostics, *built)
        }
        _ if before.problems.is_empty() && !ahead => {
            clock.lap("review input, unpack");
            return Ok(already_clean(epub, before.chars, clock.timings));
        }
        Ok(Prepared::Unpacked(diagnostics, chapters)) => {
            input = None;
            clock.lap("review input, unpack");
            let built = build(epub, &dirs, opts, chapters)?;
            clock.lap("build");
            (diagnostics, *built)
        }
        Err(e) => return Err(e),
    };
    let mut outputs = Vec::new();
    for report in std::iter::once(&built).chain(&built.also) {
        let to = output_for(epub, opts, report.target);
        place(&report.output, &to, opts.in_place)?;
        outputs.push(to);
    }
    clock.lap("write");
    // The result is reviewed from the entries the build held as it wrote them: its zip is read
    // from the file, its entries are not inflated again.
    let result = match built.held.take() {
        Some(held) => Archive::with_entries(&outputs[0], held),
        None => Archive::inflate(&outputs[0]),
    };
    // The temporary folder (the project, its pictures and fonts) is removed meanwhile.
    let (after, ()) = rayon::join(
        || review::review(&result, opts.epubcheck),
        || drop((work, input)),
    );
    drop(result);
    let mut report = compared(epub, &before, &after, outputs, &built.removed);
    let warnings = built
        .warnings
        .iter()
        .chain(built.also.iter().flat_map(|r| &r.warnings));
    diagnostics.extend(warnings.map(|d| review::as_repair(relocate(d.clone(), &dirs, epub))));
    report.diagnostics.append(&mut diagnostics);
    report
        .diagnostics
        .extend(review::stores(&report.outputs, opts));
    clock.lap("review result");
    report.timings = clock.timings;
    Ok(report)
}

/// Where a fix's stages go: the project unpacked, the EPUBs built.
struct Dirs {
    project: PathBuf,
    staged: PathBuf,
    /// What the project's folder stands for, once unpacked: the input's path joined with the
    /// package's folder its files came from (`BOOK.epub/OEBPS`; [`Unpacked::entries_from`]).
    ///
    /// [`Unpacked::entries_from`]: crate::epub_in::Unpacked::entries_from
    entries: OnceLock<PathBuf>,
}

/// The stages' times, each from the end of the one before.
struct Clock {
    last: Instant,
    timings: Vec<(&'static str, Duration)>,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            last: Instant::now(),
            timings: Vec::new(),
        }
    }

    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.timings.push((name, now - self.last));
        self.last = now;
    }
}

/// The input unpacked (what it could not carry, as diagnostics), its chapters held in memory;
/// or built already.
enum Prepared {
    Unpacked(Vec<Diagnostic>, Chapters),
    Built(Vec<Diagnostic>, Box<BuildReport>),
}

/// Unpacks the input into `dirs.project`, writes the options into its metadata, and builds it
/// when `build_now`.
fn prepare(
    input: &Archive,
    dirs: &Dirs,
    opts: &FixOptions,
    build_now: bool,
) -> Result<Prepared, FixError> {
    let (diagnostics, chapters) = unpack(input, dirs)?;
    options::apply(&dirs.project, opts).map_err(FixError::Build)?;
    if !build_now {
        return Ok(Prepared::Unpacked(diagnostics, chapters));
    }
    let built = build(input.path(), dirs, opts, chapters)?;
    Ok(Prepared::Built(diagnostics, built))
}

/// The report of an EPUB with no problem and nothing asked: nothing written.
fn already_clean(
    epub: &Path,
    chars: Option<usize>,
    timings: Vec<(&'static str, Duration)>,
) -> FixReport {
    FixReport {
        input: epub.to_path_buf(),
        status: FixStatus::AlreadyClean,
        outputs: Vec::new(),
        found: 0,
        fixed: Vec::new(),
        remaining: 0,
        chars_before: chars,
        chars_after: chars,
        diagnostics: Vec::new(),
        timings,
    }
}

/// The report of a fix written to `outputs`: the input's problems against the result's, and
/// the text ledger across it.
fn compared(
    epub: &Path,
    before: &review::Review,
    after: &review::Review,
    outputs: Vec<PathBuf>,
    removed: &crate::ledger::Removed,
) -> FixReport {
    let compared = review::compare(&before.problems, &after.problems);
    let mut report = FixReport {
        input: epub.to_path_buf(),
        status: FixStatus::Fixed,
        found: before.problems.len(),
        fixed: compared.fixed,
        remaining: after.problems.len(),
        chars_before: before.chars,
        chars_after: after.chars,
        diagnostics: compared.diagnostics,
        outputs,
        timings: Vec::new(),
    };
    report.diagnostics.extend(review::ledger(&report, removed));
    report
}

/// The chapters of an unpacked EPUB, held in memory: path in the project → bytes.
type Chapters = std::collections::HashMap<String, crate::fs::Held>;

/// Unpacks the EPUB into a project at `dir`, its chapters held in memory rather than written
/// (see [`crate::epub_in::unpack_holding`]); what it could not carry, as diagnostics.
fn unpack(input: &Archive, dirs: &Dirs) -> Result<(Vec<Diagnostic>, Chapters), FixError> {
    let epub = input.path();
    let options = crate::epub_in::UnpackOptions::default();
    let (unpacked, chapters) =
        crate::epub_in::unpack_holding(input, &dirs.project, &options).map_err(unpack_failed)?;
    let from = unpacked.entries_from.trim_end_matches('/');
    let _ = dirs.entries.set(match from.is_empty() {
        true => epub.to_path_buf(),
        false => epub.join(from),
    });
    let diagnostics = (unpacked.diagnostics.into_iter())
        .map(|d| relocate(d, dirs, epub))
        .collect();
    Ok((diagnostics, chapters))
}

/// Why the unpacking failed, as `init BOOK.epub` reports it: an EPUB that cannot be read with
/// inspect's code and place (the same problem was `epub-zip` in a fix, `epub-xml` in init).
fn unpack_failed(e: crate::epub_in::Error) -> FixError {
    use crate::epub_in::Error;
    match e {
        Error::Read { epub, source } => FixError::Unreadable(Box::new(source.diagnostic(&epub))),
        Error::Write { path, source } => FixError::Io {
            path,
            action: "cannot write",
            source,
        },
        Error::NotEmpty { dir } => FixError::Io {
            path: dir,
            action: "cannot unpack into",
            source: std::io::Error::other("the folder is not empty"),
        },
    }
}

/// Loads the unpacked project, its `chapters` held in memory, and builds it into `dirs.staged`.
fn build(
    epub: &Path,
    dirs: &Dirs,
    opts: &FixOptions,
    chapters: Chapters,
) -> Result<Box<BuildReport>, FixError> {
    let failed =
        |e: crate::error::Error| FixError::Build(Box::new(relocate(e.diagnostic(), dirs, epub)));
    // The chapters are read from memory for as long as this build runs.
    let _holding = crate::fs::hold(&dirs.project, chapters);
    let project = Project::load_with(&dirs.project, &LoadOptions::default()).map_err(failed)?;
    let name = default_output(epub, opts);
    let name = name.file_name().unwrap_or_default();
    let build_opts = BuildOptions {
        output: Some(dirs.staged.join(name)),
        targets: opts.targets.clone(),
        source_date_epoch: opts.source_date_epoch,
        hold_entries: true,
        ..BuildOptions::default()
    };
    (crate::build::build(&project, &build_opts).map(Box::new)).map_err(failed)
}

/// Moves the EPUB built at `from` to `to` atomically: when both are on the same disk, swapped
/// with an EPUB already at `to` (which is left at `from`, in the temporary folder, deleted
/// with it: ext4 flushes a file renamed over another first, 2 to 15 ms for the benchmark's
/// 20 MB book), else renamed to `to`; on another disk, copied into a temporary file in `to`'s
/// folder then renamed over `to`. When it replaces the input (`durable`: `--in-place`), it is
/// copied and flushed to the disk first, so that a crash leaves the old EPUB or the new one.
/// A failure leaves `to` as it was.
fn place(from: &Path, to: &Path, durable: bool) -> Result<(), FixError> {
    crate::fs::check_replaceable(to).map_err(|e| FixError::Build(Box::new(e.diagnostic())))?;
    if !durable
        && (crate::interrupt::exchange(from, to).is_ok() || std::fs::rename(from, to).is_ok())
    {
        return Ok(());
    }
    let folder = match to.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".epubforge-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(io(folder, "cannot write in"))?;
    let mut source = std::fs::File::open(from).map_err(io(from, "cannot read"))?;
    std::io::copy(&mut source, temp.as_file_mut()).map_err(io(to, "cannot write"))?;
    if let Ok(meta) = source.metadata() {
        let _ = temp.as_file().set_permissions(meta.permissions());
    }
    if durable {
        temp.as_file().sync_all().map_err(io(to, "cannot write"))?;
    }
    temp.persist(to).map_err(|e| FixError::Io {
        path: to.to_path_buf(),
        action: "cannot replace",
        source: e.error,
    })?;
    Ok(())
}

/// A diagnostic about a file of the temporary project, made about the same file in the EPUB
/// `epub` (`css/a.css` of the project is `BOOK.epub/OEBPS/css/a.css`: [`Dirs::entries`]), so
/// that nothing points into a folder that is gone. The project's folder itself and its
/// `metadata.toml`, which the unpacking wrote from the package, stand for the EPUB.
fn relocate(mut d: Diagnostic, dirs: &Dirs, epub: &Path) -> Diagnostic {
    let entries = dirs.entries.get().map_or(epub, PathBuf::as_path);
    if let Some(path) = &d.path
        && let Ok(rel) = path.strip_prefix(&dirs.project)
    {
        d.path = Some(
            match rel.as_os_str().is_empty() || rel == Path::new("metadata.toml") {
                true => epub.to_path_buf(),
                false => entries.join(rel),
            },
        );
    }
    let shown = dirs.project.display().to_string();
    if d.message.contains(&shown) {
        d.message = d.message.replace(&shown, &entries.display().to_string());
    }
    d
}

/// Whether `a` and `b` are the same existing file, however spelled.
fn is_same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether `d` counts as a problem of the book (errors and warnings; notes do not).
fn is_problem(d: &Diagnostic) -> bool {
    matches!(d.severity, Severity::Error | Severity::Warning)
}
