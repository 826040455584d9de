//! `check --target kobo|kindle|apple|google`: the stores' published limits
//! ([`crate::stores::limits`]) applied to the EPUB that store gets. For a project that is the
//! EPUB `build --target` makes (the plain one for Google Play), built into a temporary folder
//! with the build's own code and reported under the name the build would give it; the book is
//! built once for all the stores asked, as `build --target kobo,kindle` builds it (each chapter
//! converted once). An `.epub` is reviewed as it is.

use std::path::{Path, PathBuf};

use crate::book::Target;
use crate::build::{BuildOptions, build};
use crate::check::CheckReport;
use crate::diagnostic::{Code, Diagnostic};
use crate::inspect::archive::Archive;
use crate::project::{LoadOptions, Project};
use crate::stores::limits::{self, Store};

/// Adds to `report` what the limits of each of `stores` find in the EPUB at `epub`.
///
/// ```no_run
/// use epubforge::{Store, check_epub, check_epub_stores};
///
/// let epub = std::path::Path::new("book.epub");
/// let mut report = check_epub(epub, None);
/// check_epub_stores(epub, &[Store::Kindle, Store::Kobo], &mut report);
/// println!("{} findings", report.findings.len());
/// ```
pub fn check_epub_stores(epub: &Path, stores: &[Store], report: &mut CheckReport) {
    check_archive_stores(&Archive::lazy(epub), stores, report);
}

/// [`check_epub_stores`] on the EPUB of `archive`, read once for all the stores.
pub(crate) fn check_archive_stores(archive: &Archive, stores: &[Store], report: &mut CheckReport) {
    if stores.is_empty() {
        return;
    }
    let facts = crate::inspect::facts::facts_of(archive);
    review_stores(&facts, archive.path(), stores, report);
}

/// The limits of each of `stores` on the facts of the EPUB at `epub` (or why it could not be
/// read), added to `report`.
pub(crate) fn review_stores(
    facts: &Result<crate::stores::limits::Facts, crate::inspect::InspectError>,
    epub: &Path,
    stores: &[Store],
    report: &mut CheckReport,
) {
    for &store in stores {
        review_facts(store, facts, epub, report);
    }
}

/// Adds to `report` what the limits of each of `stores` find in the EPUBs a build of the
/// project at `location` makes for them. Nothing when the project has errors: the build
/// would not get that far.
///
/// ```
/// use epubforge::{LoadOptions, Store, check_project, check_project_stores};
///
/// let sample = env!("CARGO_MANIFEST_DIR").as_ref();
/// let opts = LoadOptions::default();
/// let mut report = check_project(sample, &opts);
/// let before = report.findings.len();
/// check_project_stores(sample, &opts, &[Store::Kobo, Store::Kindle], &mut report);
/// // The sample book is within every limit of both stores.
/// assert_eq!(report.findings.len(), before);
/// ```
pub fn check_project_stores(
    location: &Path,
    opts: &LoadOptions,
    stores: &[Store],
    report: &mut CheckReport,
) {
    if stores.is_empty() || report.errors() > 0 {
        return;
    }
    let Ok(project) = Project::load_with(location, opts) else {
        return;
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            report.findings.push(Diagnostic::error(
                Code::Io,
                format!("no temporary folder for the store check: {e}"),
            ));
            return;
        }
    };
    let built = match build_for(&project, opts, stores, dir.path()) {
        Ok(built) => built,
        Err(e) => {
            report.findings.push(e.diagnostic());
            return;
        }
    };
    let books = book_outputs(&project);
    for &store in stores {
        let target = store.target();
        let files = built.iter().filter(|(t, _)| *t == target).map(|(_, f)| f);
        for (file, book) in files.zip(&books) {
            let shown = match target {
                Target::Epub => book.clone(),
                t => t.output_beside(book),
            };
            review_file(store, file, &shown, report);
        }
    }
}

/// Builds the project once for the targets of every one of `stores` (the book read and
/// converted once, as `build --target a,b` does) into `dir`; returns each EPUB's target and
/// path, in order (volume by volume when it is split into volumes).
fn build_for(
    project: &Project,
    opts: &LoadOptions,
    stores: &[Store],
    dir: &Path,
) -> crate::Result<Vec<(Target, PathBuf)>> {
    let asked: Vec<Target> = stores.iter().map(|s| s.target()).collect();
    let options = BuildOptions {
        output: Some(dir.join("book.epub")),
        targets: crate::stores::chosen(&asked, &[]),
        load: *opts,
        ..BuildOptions::default()
    };
    let report = build(project, &options)?;
    let also = report.also.iter().map(|r| (r.target, r.output.clone()));
    Ok(std::iter::once((report.target, report.output.clone()))
        .chain(also)
        .collect())
}

/// Where `build` puts the plain EPUB of the book, or of each of its volumes in order: the
/// names findings are reported under (a store's EPUB beside it, as `build --target` names it).
fn book_outputs(project: &Project) -> Vec<PathBuf> {
    let volumes = project
        .volumes
        .and_then(|how| crate::volumes::split(project, how));
    match volumes {
        Some(volumes) => volumes.iter().map(Project::default_output).collect(),
        None => vec![project.default_output()],
    }
}

/// The limits of `store` on the EPUB at `file`, reported as `shown`.
fn review_file(store: Store, file: &Path, shown: &Path, report: &mut CheckReport) {
    let facts = crate::inspect::facts::facts(file);
    review_facts(store, &facts, shown, report);
}

/// The limits of `store` on the facts of an EPUB (or why it could not be read), reported as
/// `shown`.
fn review_facts(
    store: Store,
    facts: &Result<crate::stores::limits::Facts, crate::inspect::InspectError>,
    shown: &Path,
    report: &mut CheckReport,
) {
    match facts {
        Ok(facts) => report.findings.extend(limits::review(store, facts, shown)),
        Err(e) => report.findings.push(
            Diagnostic::error(
                Code::EpubZip,
                format!("the {store} EPUB cannot be read: {e}"),
            )
            .at(shown),
        ),
    }
}
