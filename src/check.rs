//! `epubforge check`: review a project or an EPUB without writing a book.
//!
//! For a project this runs the first stages of the pipeline (`project`, `source`, `text_fix`, `convert`) far
//! enough to find what an author should fix: missing or unreadable files, encoding problems,
//! gaps and duplicates in chapter numbering (file names and heading lines), empty or very short
//! chapters, lines the text converter will join because they look hard-broken, chapters that
//! look like copies of each other, and metadata that reading apps and stores dislike. For an
//! EPUB it runs [`crate::inspect::verify`] and, when installed, EPUBCheck, folding both into
//! one list. Findings are [`Diagnostic`]s.
//!
//! A project's chapters and cover go through the build's own conversion
//! ([`crate::convert::chapter`], [`crate::convert::book::read_cover`]), so `check` reports what
//! `build` would; what it adds is review only a human acts on (numbering, short, broken-looking
//! or duplicated chapters, metadata, and the source linter's findings, [`crate::lint`]),
//! listed in [`REVIEW_CODES`]. Last, `[check] ignore` takes out what the author asked not to
//! see, and reports the entries that took out nothing.

mod outline;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::book::SplitMode;
use crate::convert::chapter::{ConvertedChapter, convert_decoded, read_chapter, relative_path};
use crate::convert::outline::Outline;
use crate::convert::split;
use crate::convert::{SourceKind, text};
use crate::diagnostic::{Code, Diagnostic, Severity};
#[cfg(test)]
use crate::lint::LINT_CODES;
use crate::lint::Linter;
use crate::project::toml_error::locate;
use crate::project::{ChapterSource, LoadOptions, Project};
use crate::text_fix::{Origin, Tally};

/// The codes only `check` reports: review of what builds but an author may want to fix.
/// Everything else it reports is what `build` reports for the same project.
#[cfg(test)]
pub(crate) const REVIEW_CODES: [Code; 23] = [
    Code::NoDescription,
    Code::HeadingNotTaken,
    Code::HeadingRepaired,
    Code::LongChapter,
    Code::InterleavedNumbering,
    Code::InvalidIsbn,
    Code::NumberingGap,
    Code::NumberingDuplicate,
    Code::HeadingNumbering,
    Code::ShortChapter,
    Code::BrokenLine,
    Code::DuplicateChapter,
    Code::SimilarChapter,
    Code::UnusedIgnore,
    LINT_CODES[0],
    LINT_CODES[1],
    LINT_CODES[2],
    LINT_CODES[3],
    LINT_CODES[4],
    LINT_CODES[5],
    LINT_CODES[6],
    LINT_CODES[7],
    LINT_CODES[8],
];

/// A chapter with fewer non-blank characters than this is reported as very short.
pub const SHORT_CHAPTER_CHARS: usize = 200;
/// At most this many suspected broken lines are listed per chapter.
const BROKEN_LINES_SHOWN: usize = 3;
/// Near-duplicate chapters: estimated shingle similarity at or above this.
const NEAR_DUPLICATE: f64 = 0.9;
/// Characters per shingle.
const SHINGLE: usize = 8;
/// Only the first this many characters of a chapter feed its similarity sketch.
const SKETCH_CHARS: usize = 200_000;
/// Hash functions in a MinHash sketch.
const SKETCH_SIZE: usize = 32;

/// What a check found, and how long each stage took.
#[derive(Debug, Clone, Default, Serialize)]
#[non_exhaustive]
pub struct CheckReport {
    /// The project folder or EPUB checked.
    pub target: PathBuf,
    /// Every finding, in the order found.
    pub findings: Vec<Diagnostic>,
    /// A project's volumes and chapters as the build will make them (None for an EPUB, or a
    /// project that could not be loaded).
    pub outline: Option<Outline>,
    /// Stage name and duration, for `-v`.
    #[serde(skip)]
    pub timings: Vec<(&'static str, Duration)>,
}

impl CheckReport {
    /// Number of errors.
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// Number of warnings.
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }

    /// The exit status: 2 with errors, 1 with warnings under `strict`, else 0.
    pub fn exit_code(&self, strict: bool) -> u8 {
        if self.errors() > 0 {
            2
        } else if strict && self.warnings() > 0 {
            1
        } else {
            0
        }
    }

    fn push(&mut self, f: Diagnostic) {
        self.findings.push(f);
    }
}

/// Checks a project folder (or metadata file): every problem the build would meet, and the
/// outline it would make, without writing a book.
///
/// ```
/// use epubforge::{LoadOptions, check_project};
///
/// let report = check_project(env!("CARGO_MANIFEST_DIR").as_ref(), &LoadOptions::default());
/// assert_eq!(report.errors(), 0);
/// let outline = report.outline.expect("the sample project loads");
/// assert_eq!(outline.chapters, 3);
/// ```
pub fn check_project(location: &Path, opts: &LoadOptions) -> CheckReport {
    let mut report = CheckReport {
        target: location.to_path_buf(),
        ..CheckReport::default()
    };
    let start = Instant::now();
    let project = match load_for_check(location, opts) {
        Ok(p) => p,
        Err(d) => {
            report.push(*d);
            report.timings.push(("load metadata", start.elapsed()));
            return report;
        }
    };
    report.timings.push(("load metadata", start.elapsed()));

    let start = Instant::now();
    check_metadata(&project, &mut report);
    report
        .timings
        .push(("check metadata and cover", start.elapsed()));

    let start = Instant::now();
    check_file_numbering(&project, &mut report);
    let mut sketches = Vec::new();
    let mut tally = Tally::default();
    let mut converted = Vec::new();
    let mut linter = (Linter::default(), Duration::ZERO);
    let includes = crate::convert::includes::Budget::default();
    for (i, chapter) in project.chapters().enumerate() {
        let sinks = (&mut tally, &mut linter, &mut report, &mut converted);
        if let Some(s) = check_chapter(&project, (chapter, &includes), i + 1, sinks) {
            sketches.push((chapter.path.clone(), s));
        }
    }
    report_cleanup(&project, &tally, &mut report);
    assemble(&project, converted, &mut report);
    report
        .timings
        .push(("read and analyse chapters", start.elapsed() - linter.1));
    report.timings.push(("lint the source", linter.1));

    let start = Instant::now();
    check_duplicates(&sketches, &mut report);
    report.timings.push(("compare chapters", start.elapsed()));
    apply_ignores(&project, &mut report);
    report
}

/// The project to check: a `metadata.toml` or the folder holding one; or a chapter file
/// (`check 作品.txt`), checked as the one-command build builds it, from the metadata `init`
/// would write for it.
fn load_for_check(location: &Path, opts: &LoadOptions) -> Result<Project, Box<Diagnostic>> {
    let boxed = |d: Diagnostic| Box::new(d);
    if location.is_file() && SourceKind::known(location).is_some() {
        let draft = crate::init::draft_to_build(location).map_err(|e| boxed(e.diagnostic()))?;
        return draft.project(opts).map_err(|e| boxed(e.diagnostic()));
    }
    Project::load_with(location, opts).map_err(|e| boxed(e.diagnostic()))
}

/// Takes out the findings `[check] ignore` names; reports the entries that took out nothing.
fn apply_ignores(project: &Project, report: &mut CheckReport) {
    if project.ignore.is_empty() {
        return;
    }
    let mut used = vec![false; project.ignore.len()];
    report.findings.retain(|f| {
        let relative = f.path.as_deref().map(|p| relative_path(project, p));
        let hit = project
            .ignore
            .iter()
            .position(|i| i.covers(f, relative.as_deref()));
        if let Some(k) = hit {
            used[k] = true;
        }
        hit.is_none()
    });
    for (entry, used) in project.ignore.iter().zip(used) {
        if !used {
            report.push(entry.unused(&project.metadata_path));
        }
    }
}

/// Checks a finished EPUB: our structural rules, then EPUBCheck when it is installed and
/// `epubcheck` gives its time limit, unless our rules found the EPUB dangerous to read.
///
/// ```
/// use epubforge::{BuildOptions, Project, check_epub};
///
/// let out = tempfile::tempdir().expect("a temporary folder");
/// let mut opts = BuildOptions::default();
/// opts.output = Some(out.path().join("book.epub"));
/// let report = Project::load(env!("CARGO_MANIFEST_DIR").as_ref())?.build(&opts)?;
/// // Our own rules only; `Some(timeout)` runs EPUBCheck too when it is installed.
/// assert_eq!(check_epub(&report.output, None).errors(), 0);
/// # Ok::<(), epubforge::Error>(())
/// ```
pub fn check_epub(path: &Path, epubcheck: Option<Duration>) -> CheckReport {
    check_archive(
        &crate::inspect::archive::Archive::lazy(path),
        epubcheck,
        None,
    )
}

/// [`check_epub`] on the EPUB of `archive`, its entries read from what was inflated ahead;
/// the package rules' findings from `ahead` when they were run ahead
/// ([`crate::inspect::verify::check_package_ahead`]).
pub(crate) fn check_archive(
    archive: &crate::inspect::archive::Archive,
    epubcheck: Option<Duration>,
    ahead: Option<crate::inspect::verify::PackageChecked>,
) -> CheckReport {
    let path = archive.path();
    let mut report = CheckReport {
        target: path.to_path_buf(),
        ..CheckReport::default()
    };
    let start = Instant::now();
    let verified = crate::inspect::verify::verify_archive_with(archive, ahead);
    let fatal = verified.fatal;
    report.findings.extend(verified.findings);
    report.timings.push(("structural rules", start.elapsed()));
    let Some(timeout) = epubcheck else {
        return report;
    };
    if fatal {
        report.push(
            Diagnostic::warning(Code::Epubcheck, "EPUBCheck was not run")
                .at(path)
                .hint("the EPUB cannot be read safely (see the errors above); it is not handed to another tool"),
        );
        return report;
    }
    let start = Instant::now();
    match crate::inspect::epubcheck::find_epubcheck() {
        None => {}
        Some(checker) => match checker.run_with(path, Some(timeout)) {
            Ok(r) => {
                let findings = r.messages.iter().filter_map(|m| m.diagnostic(path));
                report.findings.extend(findings);
            }
            Err(e) => report.push(
                Diagnostic::warning(Code::Epubcheck, e.to_string())
                    .at(path)
                    .hint("EPUBCheck could not be run; only our own rules were applied"),
            ),
        },
    }
    report.timings.push(("EPUBCheck", start.elapsed()));
    report
}

/// The line of `key = ...` in the metadata text, as (line, column, text).
fn key_line<'a>(text: &'a str, key: &str) -> Option<(usize, usize, &'a str)> {
    let offset = text
        .lines()
        .scan(0usize, |pos, l| {
            let start = *pos;
            *pos += l.len() + 1;
            Some((start, l))
        })
        .find(|(_, l)| {
            l.trim_start()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map(|(start, l)| start + (l.len() - l.trim_start().len()))?;
    Some(locate(text, offset))
}

fn check_metadata(project: &Project, report: &mut CheckReport) {
    // Read as the load read it (a regular file, capped): it may have changed since.
    let meta_text = (project.boundary)
        .read_limited(
            &project.metadata_path,
            crate::project::METADATA_LIMIT,
            "metadata file",
        )
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default();
    let at_key = |d: Diagnostic, key: &str| match key_line(&meta_text, key) {
        Some((line, column, _)) => d.line(Some(line)).column(column),
        None => d,
    };
    let meta = &project.metadata_path;
    if project.book.description.is_none() {
        let d = Diagnostic::warning(Code::NoDescription, "the book has no description")
            .at(meta)
            .hint("add description = \"...\" to [book]: reading apps and stores show it");
        report.push(at_key(d, "title"));
    }
    // An identifier invalid in its scheme (an ISBN's check digit) is refused by the load.
    // The cover as the build reads it: the same errors and warnings.
    if let Some(cover) = &project.cover {
        let mut warnings = Vec::new();
        match crate::convert::book::read_cover(&project.boundary, cover, &mut warnings) {
            Ok(_) => report.findings.extend(warnings),
            Err(e) => report.push(e.diagnostic()),
        }
    }
    // The user stylesheets as the build cleans them.
    match crate::look::check_user_css(project) {
        Ok(warnings) => report.findings.extend(warnings),
        Err(e) => report.push(e.diagnostic()),
    }
}

/// The leading number of a file name (`003_x.txt` -> 3, with its width 3).
fn file_number(path: &Path) -> Option<(u64, usize)> {
    let stem = path.file_stem()?.to_str()?;
    let digits: String = stem.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    Some((digits.parse().ok()?, digits.len()))
}

fn check_file_numbering(project: &Project, report: &mut CheckReport) {
    // Numbering restarts in each folder (volume1/01.txt, volume2/01.txt).
    let mut prev: Option<(PathBuf, u64, usize, PathBuf)> = None;
    let mut seen: HashMap<(PathBuf, u64), PathBuf> = HashMap::new();
    for chapter in project.chapters() {
        let path = &chapter.path;
        let Some((n, width)) = file_number(path) else {
            continue;
        };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        if let Some(first) = seen.get(&(dir.clone(), n)) {
            let message = format!(
                "chapter file number {n:0width$} is used twice: {} and {}",
                name(first),
                name(path)
            );
            report.push(
                Diagnostic::warning(Code::NumberingDuplicate, message)
                    .at(path)
                    .hint("rename one of them, or remove the copy"),
            );
        } else {
            seen.insert((dir.clone(), n), path.clone());
        }
        if let Some((pdir, pn, pwidth, ppath)) = &prev
            && *pdir == dir
            && n > pn + 1
        {
            let w = (*pwidth).max(width);
            let missing = if n == pn + 2 {
                format!("{:0w$} is missing", pn + 1)
            } else {
                format!("{:0w$} to {:0w$} are missing", pn + 1, n - 1)
            };
            let message = format!(
                "chapter files jump from {pn:0w$} ({}) to {n:0w$} ({}): {missing}",
                name(ppath),
                name(path)
            );
            report.push(
                Diagnostic::warning(Code::NumberingGap, message)
                    .at(path)
                    .hint(
                        "add the missing chapter, or ignore this if the numbers are not chapters",
                    ),
            );
        }
        prev = Some((dir, n, width, path.clone()));
    }
}

fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

/// Where checking a chapter puts what it finds: the cleanup rules' tally, the linter (and
/// the time it took), the report, and the converted chapter (None when it could not be) for
/// assembling the book.
type Sinks<'a> = (
    &'a mut Tally,
    &'a mut (Linter, Duration),
    &'a mut CheckReport,
    &'a mut Vec<Option<ConvertedChapter>>,
);

/// Converts one chapter as the build does (reporting what the build would), then reviews its
/// text; returns its similarity sketch.
fn check_chapter(
    project: &Project,
    (src, includes): (&ChapterSource, &crate::convert::includes::Budget),
    n: usize,
    (tally, linter, report, converted): Sinks<'_>,
) -> Option<Sketch> {
    let decoded = match read_chapter(&project.boundary, src) {
        Ok(d) => d,
        Err(e) => {
            report.push(e.diagnostic());
            converted.push(None);
            return None;
        }
    };
    match convert_decoded(project, src, n, &decoded, (includes, Some(tally))) {
        Ok(mut c) => {
            report.findings.append(&mut c.warnings);
            if src.split.is_some() && SourceKind::of_chapter(src) == SourceKind::Text {
                outline::untaken_headings(&src.path, &c.headings.skipped, report);
                outline::repaired_headings(&src.path, &c.headings.repaired, report);
            }
            converted.push(Some(c));
        }
        Err(e) => {
            report.push(e.diagnostic());
            converted.push(None);
        }
    }
    let start = Instant::now();
    lint_chapter(project, src, &decoded.text, &mut linter.0, report);
    linter.1 += start.elapsed();
    let text = &decoded.text;
    let visible = text.chars().filter(|c| !c.is_whitespace()).count();
    if visible == 0 {
        // The conversion reported it empty.
        return None;
    }
    let path = &src.path;
    if visible < SHORT_CHAPTER_CHARS {
        let message = format!("the chapter has only {visible} characters of text");
        report.push(
            Diagnostic::warning(Code::ShortChapter, message)
                .at(path)
                .hint("check that the file is complete"),
        );
    }
    // Line joining and heading numbers are rules of plain text; a file split at its
    // headings had its numbering reported by the conversion.
    if SourceKind::of_chapter(src) == SourceKind::Text && src.split.is_none() {
        let lines: Vec<&str> = text.split('\n').collect();
        review_lines(path, text, &lines, report);
    }
    Some(Sketch::of(text))
}

/// The source linter on one chapter's decoded text: a plain-text file without its Project
/// Gutenberg header and licence (blanked, so the lines keep their numbers), which the build
/// puts on a page of its own; lines the cleanup rules remove are not boilerplate to report.
fn lint_chapter(
    project: &Project,
    src: &ChapterSource,
    text: &str,
    linter: &mut Linter,
    report: &mut CheckReport,
) {
    let kind = SourceKind::of_chapter(src);
    let detached = match kind {
        SourceKind::Text => crate::convert::gutenberg::detach(text),
        _ => None,
    };
    let text = detached.as_ref().map_or(text, |d| d.text.as_str());
    let relative = relative_path(project, &src.path);
    let file = crate::text_fix::FileRef {
        path: &src.path,
        relative: &relative,
    };
    let removed = |line: &str| project.text.removes_line(line, file);
    let found = linter.chapter(&src.path, text, kind, &removed);
    report.findings.extend(found);
}

/// The cleanup rules' dry run: per rule, how many changes it makes in the book (a note at the
/// rule), and the first few of them where they are (a note at the chapter's line).
fn report_cleanup(project: &Project, tally: &Tally, report: &mut CheckReport) {
    for (i, rule) in project.text.rules().iter().enumerate() {
        let hits = tally.hits.get(i).cloned().unwrap_or_default();
        let label = match &rule.origin {
            Origin::Preset { preset, what } => format!("preset {preset}: {what}"),
            Origin::File { .. } => format!("`{}`", shorten(&rule.source, 60)),
        };
        let count = match hits.count {
            0 => "matches nothing".to_string(),
            1 => "makes 1 change".to_string(),
            n => format!("makes {n} changes"),
        };
        let mut note = Diagnostic::note(Code::CleanupRule, format!("cleanup rule {label} {count}"));
        if let Origin::File { path, line } = &rule.origin {
            note = note.at(path).line(Some(*line));
        }
        report.push(note);
        for e in &hits.examples {
            let what = if e.replaced.is_empty() {
                format!("removes `{}`", shorten(&e.matched, 60))
            } else {
                format!(
                    "replaces `{}` with `{}`",
                    shorten(&e.matched, 60),
                    shorten(&e.replaced, 60)
                )
            };
            let mut example =
                Diagnostic::note(Code::CleanupMatch, format!("cleanup rule {label} {what}"))
                    .at(&e.path)
                    .line(e.line);
            if let Some(c) = e.column {
                example = example.column(c);
            }
            report.push(example);
        }
    }
}

/// The first `max` characters of `s` on one line, with `…` when cut.
fn shorten(s: &str, max: usize) -> String {
    let one_line = s.replace('\n', "⏎");
    let mut out: String = one_line.chars().take(max).collect();
    if one_line.chars().count() > max {
        out.push('…');
    }
    out
}

/// The book assembled from its converted chapters as the build assembles it
/// ([`crate::convert::book::assemble`]): the links between chapters it could not make (to a
/// file that is not a chapter, or to an id its target does not have) and the notes too short
/// for Kobo's pop-ups once numbered, as the build finds them; and the outline of the volumes
/// and chapters the build will make, with what looks wrong in it.
fn assemble(project: &Project, converted: Vec<Option<ConvertedChapter>>, report: &mut CheckReport) {
    let assembled = match crate::convert::book::assemble(project, converted) {
        Ok(assembled) => assembled,
        Err(e) => return report.push(e.diagnostic()),
    };
    report.findings.extend(assembled.warnings);
    for outcome in assembled.outcomes {
        report.findings.extend(outcome.warnings);
    }
    let outline = Outline::of(&assembled.contents, &assembled.origins);
    outline::review(&outline, report);
    report.outline = Some(outline);
}

/// Lines the build will join because they look broken mid-sentence, and gaps in the numbers
/// of the headings inside one plain-text file.
fn review_lines(path: &Path, text: &str, lines: &[&str], report: &mut CheckReport) {
    let joined = text::joined_lines(text);
    for &l in joined.iter().take(BROKEN_LINES_SHOWN) {
        let prev = lines.get(l.saturating_sub(2)).copied().unwrap_or("");
        let column = prev.trim_end().chars().count() + 1;
        report.push(
            Diagnostic::warning(
                Code::BrokenLine,
                "this line seems to break mid-sentence; the build joins it with the next",
            )
            .at(path)
            .line(Some(l - 1))
            .column(column)
            .hint("join the lines in the source if this is right, or end the line with punctuation if it is not"),
        );
    }
    if joined.len() > BROKEN_LINES_SHOWN {
        let more = joined.len() - BROKEN_LINES_SHOWN;
        let message = format!("{more} more lines seem broken mid-sentence");
        report.push(Diagnostic::warning(Code::BrokenLine, message).at(path));
    }
    // Only numbering: a file that is not split keeps its page markers as text anyway.
    let numbering = split::split(lines, &SplitMode::Auto).warnings.into_iter();
    for w in numbering.filter(|w| w.kind == split::SplitWarningKind::Numbering) {
        report.push(
            Diagnostic::warning(Code::HeadingNumbering, w.message)
                .at(path)
                .line(Some(w.line))
                .column(1),
        );
    }
}

/// A fingerprint of a chapter's text: an exact hash of the text without white space, and a
/// MinHash sketch over character shingles for near-duplicates.
#[derive(Debug, Clone)]
struct Sketch {
    exact: u64,
    minhash: Option<[u64; SKETCH_SIZE]>,
}

impl Sketch {
    fn of(text: &str) -> Sketch {
        let chars: Vec<char> = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .take(SKETCH_CHARS)
            .collect();
        let exact = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            text.chars()
                .filter(|c| !c.is_whitespace())
                .for_each(|c| c.hash(&mut h));
            h.finish()
        };
        // Short texts share shingles by chance; only compare real chapters.
        let minhash = (chars.len() >= SHORT_CHAPTER_CHARS).then(|| {
            let mut mins = [u64::MAX; SKETCH_SIZE];
            for w in chars.windows(SHINGLE) {
                let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                for &c in w {
                    h = (h ^ u64::from(c as u32)).wrapping_mul(0x0100_0000_01b3);
                }
                for (i, m) in mins.iter_mut().enumerate() {
                    let v = mix(h ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                    if v < *m {
                        *m = v;
                    }
                }
            }
            mins
        });
        Sketch { exact, minhash }
    }

    fn similarity(&self, other: &Sketch) -> f64 {
        match (&self.minhash, &other.minhash) {
            (Some(a), Some(b)) => {
                a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / SKETCH_SIZE as f64
            }
            _ => 0.0,
        }
    }
}

/// A 64-bit finaliser (splitmix64): spreads a hash so each seed gives an independent order.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn check_duplicates(sketches: &[(PathBuf, Sketch)], report: &mut CheckReport) {
    let mut by_hash: HashMap<u64, &Path> = HashMap::new();
    let mut exact_dups = std::collections::HashSet::new();
    for (i, (path, s)) in sketches.iter().enumerate() {
        match by_hash.get(&s.exact) {
            Some(first) => {
                exact_dups.insert(i);
                let message = format!("same text as {}", crate::escape::path(first));
                report.push(
                    Diagnostic::warning(Code::DuplicateChapter, message)
                        .at(path)
                        .hint("remove one of the entries if the chapter was listed twice"),
                );
            }
            None => {
                by_hash.insert(s.exact, path);
            }
        }
    }
    // Locality-sensitive hashing: chapters that agree on a whole band of the sketch are
    // candidates, so a 100 000-chapter book is not compared pair by pair.
    const BAND: usize = 4;
    let mut buckets: HashMap<(usize, [u64; BAND]), Vec<usize>> = HashMap::new();
    for (i, (_, s)) in sketches.iter().enumerate() {
        if exact_dups.contains(&i) {
            continue;
        }
        if let Some(m) = &s.minhash {
            for (b, band) in m.chunks_exact(BAND).enumerate() {
                let mut key = [0u64; BAND];
                key.copy_from_slice(band);
                buckets.entry((b, key)).or_default().push(i);
            }
        }
    }
    let mut reported = std::collections::HashSet::new();
    for members in buckets.values() {
        for (k, &j) in members.iter().enumerate().skip(1) {
            // Compare against a few earlier members only: bounded work per bucket.
            for &i in members.iter().take(k).rev().take(8) {
                if !reported.insert((i, j)) {
                    continue;
                }
                let (Some((pi, si)), Some((pj, sj))) = (sketches.get(i), sketches.get(j)) else {
                    continue;
                };
                let sim = si.similarity(sj);
                if sim >= NEAR_DUPLICATE {
                    let message = format!(
                        "about {:.0}% the same text as {}",
                        sim * 100.0,
                        crate::escape::path(pi)
                    );
                    report.push(
                        Diagnostic::warning(Code::SimilarChapter, message)
                            .at(pj)
                            .hint("check that the chapter was not saved twice with small edits"),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(r: &CheckReport) -> Vec<&str> {
        r.findings.iter().map(|f| f.code.as_str()).collect()
    }

    #[test]
    fn sample_book_gap_names_001_and_003() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let r = check_project(root, &LoadOptions::default());
        let gap: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.code == Code::NumberingGap)
            .collect();
        assert_eq!(gap.len(), 1, "{:?}", r.findings);
        assert!(gap[0].message.contains("from 001"), "{}", gap[0].message);
        assert!(gap[0].message.contains("to 003"), "{}", gap[0].message);
        assert!(
            gap[0].message.contains("002 is missing"),
            "{}",
            gap[0].message
        );
        assert_eq!(r.errors(), 0, "{:?}", r.findings);
        assert!(codes(&r).contains(&"broken-line"));
        assert_eq!(r.exit_code(false), 0);
        assert_eq!(r.exit_code(true), 1);
    }

    fn project(files: &[(&str, &str)], extra: &str) -> (tempfile::TempDir, CheckReport) {
        let dir = tempfile::tempdir().unwrap();
        let mut meta =
            format!("[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n{extra}\n");
        for (name, body) in files {
            std::fs::write(dir.path().join(name), body).unwrap();
            meta.push_str(&format!("[[chapters]]\nfile = \"{name}\"\n"));
        }
        std::fs::write(dir.path().join("metadata.toml"), meta).unwrap();
        let r = check_project(dir.path(), &LoadOptions::default());
        (dir, r)
    }

    #[test]
    fn empty_short_duplicate_and_similar_chapters_are_reported() {
        let long: String = (0..60)
            .map(|i| format!("Sentence number {i} of a long chapter that goes on. "))
            .collect();
        let similar = long.replacen("number 5 ", "number five ", 1);
        let (_d, r) = project(
            &[
                ("1.txt", &long),
                ("2.txt", ""),
                ("3.txt", "Too short."),
                ("4.txt", &long),
                ("5.txt", &similar),
            ],
            "description = \"d\"",
        );
        let c = codes(&r);
        assert!(c.contains(&"empty-chapter"), "{c:?}");
        assert!(c.contains(&"short-chapter"), "{c:?}");
        assert!(c.contains(&"duplicate-chapter"), "{c:?}");
        assert!(c.contains(&"similar-chapter"), "{c:?}");
        assert!(!c.contains(&"no-description"), "{c:?}");
        assert!(!c.contains(&"numbering-gap"), "{c:?}");
    }

    #[test]
    fn unrelated_chapters_are_not_similar() {
        let a: String = (0..60).map(|i| format!("Alpha line {i} here. ")).collect();
        let b: String = (0..60)
            .map(|i| format!("Other words {i} there! "))
            .collect();
        let (_d, r) = project(&[("a.txt", &a), ("b.txt", &b)], "");
        let c = codes(&r);
        assert!(!c.contains(&"similar-chapter"), "{c:?}");
        assert!(c.contains(&"no-description"), "{c:?}");
    }

    #[test]
    fn bad_isbn_and_bad_encoding_are_errors_with_lines() {
        let (_d, r) = project(
            &[("1.txt", "ok text\nline two \u{0}\n")],
            "identifier = \"urn:isbn:9780306406158\"",
        );
        // Refused where it enters, by the load (src/project/values.rs).
        let isbn = (r.findings.iter())
            .find(|f| f.message.contains("not a valid ISBN"))
            .unwrap();
        assert_eq!(isbn.code, Code::MetadataSyntax);
        assert_eq!(isbn.line, Some(5));
        assert_eq!(r.exit_code(false), 2);

        let dir = tempfile::tempdir().unwrap();
        let mut bytes = "好的一行\n".repeat(200).into_bytes();
        bytes.extend_from_slice("坏 ".as_bytes());
        bytes.extend_from_slice(b"\xff\xfe byte\n");
        std::fs::write(dir.path().join("1.txt"), &bytes).unwrap();
        std::fs::write(
            dir.path().join("metadata.toml"),
            "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"1.txt\"\n",
        )
        .unwrap();
        let r = check_project(dir.path(), &LoadOptions::default());
        let enc = r.findings.iter().find(|f| f.code == Code::Encoding);
        let enc = enc.unwrap_or_else(|| panic!("{:?}", r.findings));
        assert_eq!(enc.line, Some(201), "{enc:?}");
        assert_eq!(enc.column, Some(3), "{enc:?}");
        let shown = enc.render(Some(dir.path()), false);
        assert!(shown.contains("--> 1.txt:201:3"), "{shown}");
        assert!(shown.contains("201 | 坏 "), "{shown}");
        // The caret sits under the bad byte: "坏" is two columns wide, then a space.
        assert!(shown.contains("\n      |    ^\n"), "{shown}");
    }

    #[test]
    fn missing_chapter_is_an_error_pointing_at_the_metadata_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("metadata.toml"),
            "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"nope.txt\"\n",
        )
        .unwrap();
        let r = check_project(dir.path(), &LoadOptions::default());
        assert_eq!(codes(&r), ["missing-file"]);
        assert_eq!(r.findings[0].line, Some(5));
        assert_eq!(r.exit_code(false), 2);
    }
}
