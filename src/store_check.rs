//! `check --target kobo|kindle|apple|google`: the stores' published limits
//! ([`crate::target::limits`]) applied to the EPUB that store gets. For a project that is the
//! EPUB `build --target` makes (the plain one for Google Play), built into a temporary folder
//! with the build's own code and reported under the name the build would give it; an `.epub`
//! is reviewed as it is.

use std::path::{Path, PathBuf};

use crate::build::{BuildOptions, build};
use crate::check::CheckReport;
use crate::diagnostic::{Code, Diagnostic};
use crate::project::{LoadOptions, Project};
use crate::target::limits::{self, Store};

/// Adds to `report` what the limits of each of `stores` find in the EPUB at `epub`.
pub fn check_epub_stores(epub: &Path, stores: &[Store], report: &mut CheckReport) {
    for &store in stores {
        review_file(store, epub, epub, report);
    }
}

/// Adds to `report` what the limits of each of `stores` find in the EPUBs a build of the
/// project at `location` makes for them. Nothing when the project has errors: the build
/// would not get that far.
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
    let shown = project.default_output();
    for &store in stores {
        let built = match build_for(&project, opts, store, dir.path(), &shown) {
            Ok(built) => built,
            Err(e) => {
                report.findings.push(e.diagnostic());
                continue;
            }
        };
        for file in built {
            let name = shown.with_file_name(file.file_name().unwrap_or_default());
            review_file(store, &file, &name, report);
        }
    }
}

/// Builds the project's EPUB(s) for `store` into `dir`, named as `build --target` names
/// them beside `shown` (the plain EPUB's path); returns their paths.
fn build_for(
    project: &Project,
    opts: &LoadOptions,
    store: Store,
    dir: &Path,
    shown: &Path,
) -> crate::Result<Vec<PathBuf>> {
    let named = store.target().output_beside(shown);
    let output = dir.join(named.file_name().unwrap_or_default());
    let options = BuildOptions {
        output: Some(output),
        targets: vec![store.target()],
        load: *opts,
        ..BuildOptions::default()
    };
    let report = build(project, &options)?;
    let mut files = vec![report.output];
    files.extend(report.also.into_iter().map(|r| r.output));
    Ok(files)
}

/// The limits of `store` on the EPUB at `file`, reported as `shown`.
fn review_file(store: Store, file: &Path, shown: &Path, report: &mut CheckReport) {
    match crate::inspect::facts::facts(file) {
        Ok(facts) => report.findings.extend(limits::review(store, &facts, shown)),
        Err(e) => report.findings.push(
            Diagnostic::error(
                Code::EpubZip,
                format!("the {store} EPUB cannot be read: {e}"),
            )
            .at(shown),
        ),
    }
}
