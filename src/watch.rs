//! Watch mode: rebuild books whenever their inputs change.
//!
//! Sits above [`crate::batch`]: each project folder is watched recursively (the `notify`
//! crate, events debounced by [`DEBOUNCE`]); after a burst of changes, every affected project
//! is loaded again from its `metadata.toml` (so a new chapter file matched by a glob is picked
//! up) and built incrementally. Changes to the output folder, the build cache and temporary
//! files are ignored, so a build never triggers the next. A failed build leaves the last good
//! EPUB in place (the archive stage writes atomically) and watching goes on.

use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::RecursiveMode;

use crate::batch::{self, Outcome};
use crate::build::BuildOptions;
use crate::incremental::CACHE_DIR;
use crate::project::Project;

/// How long the folder must be quiet before a rebuild starts.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// Why watching could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The file-system watcher failed.
    #[error("{}: cannot watch: {source}", path.display())]
    Notify {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        source: notify::Error,
    },
}

/// What watch mode reports.
#[derive(Debug)]
pub enum WatchEvent<'a> {
    /// A build ran (the first one, or after `changed` changed).
    Build {
        /// The files that changed (empty for the first build).
        changed: &'a [PathBuf],
        /// How it went.
        outcome: &'a Outcome,
    },
    /// The watcher reported an error; watching goes on.
    Error(String),
}

/// One watched project.
struct Watched {
    /// As given on the command line.
    location: PathBuf,
    /// The folder watched.
    root: PathBuf,
    /// The EPUB, as far as the last successful load knew.
    output: Option<PathBuf>,
}

impl Watched {
    fn new(location: &Path, opts: &BuildOptions) -> Watched {
        let root = if location.is_dir() {
            location.to_path_buf()
        } else {
            location
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf()
        };
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        let mut w = Watched {
            location: location.to_path_buf(),
            root,
            output: None,
        };
        w.refresh_output(opts);
        w
    }

    fn refresh_output(&mut self, opts: &BuildOptions) {
        if let Ok(p) = Project::load_with(&self.location, &opts.load) {
            let out = opts.output.clone().unwrap_or_else(|| p.default_output());
            let out = absolute(&out);
            self.output = Some(out);
        }
    }

    /// Whether a change to `path` should trigger a rebuild of this project.
    fn cares_about(&self, path: &Path) -> bool {
        if !path.starts_with(&self.root) {
            return false;
        }
        let ignored_component = path.components().any(|c| match c {
            Component::Normal(n) => {
                n == CACHE_DIR || n == ".git" || n == "target" || n == "node_modules"
            }
            _ => false,
        });
        let temp = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(".epubforge-") || n.ends_with('~'));
        if ignored_component || temp {
            return false;
        }
        match &self.output {
            Some(out) => {
                let dir = out.parent().unwrap_or(Path::new("/"));
                // The output folder is ignored as a whole unless it is the project folder.
                path != out && !(dir != self.root && path.starts_with(dir))
            }
            None => !path.starts_with(self.root.join("build")),
        }
    }
}

fn absolute(p: &Path) -> PathBuf {
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    // The folder may not exist yet; canonicalize what does.
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or(p),
        _ => p,
    }
}

/// Builds every project, then rebuilds the affected ones after each change, forever (until
/// the watcher stops). `report` sees every build and watcher error.
pub fn watch(
    projects: &[PathBuf],
    opts: &BuildOptions,
    report: &mut dyn FnMut(WatchEvent<'_>),
) -> Result<(), WatchError> {
    let mut watched: Vec<Watched> = projects.iter().map(|p| Watched::new(p, opts)).collect();
    for w in &mut watched {
        let outcome = batch::build_one(&w.location, opts);
        report(WatchEvent::Build {
            changed: &[],
            outcome: &outcome,
        });
        w.refresh_output(opts);
    }

    let (tx, rx) = mpsc::channel();
    let mut debouncer = notify_debouncer_mini::new_debouncer(DEBOUNCE, tx).map_err(|source| {
        WatchError::Notify {
            path: PathBuf::from("."),
            source,
        }
    })?;
    for w in &watched {
        debouncer
            .watcher()
            .watch(&w.root, RecursiveMode::Recursive)
            .map_err(|source| WatchError::Notify {
                path: w.root.clone(),
                source,
            })?;
    }

    for events in rx {
        let events = match events {
            Ok(e) => e,
            Err(e) => {
                report(WatchEvent::Error(e.to_string()));
                continue;
            }
        };
        let mut paths: Vec<PathBuf> = events.into_iter().map(|e| e.path).collect();
        paths.sort();
        paths.dedup();
        for w in &mut watched {
            let changed: Vec<PathBuf> =
                paths.iter().filter(|p| w.cares_about(p)).cloned().collect();
            if changed.is_empty() {
                continue;
            }
            let outcome = batch::build_one(&w.location, opts);
            report(WatchEvent::Build {
                changed: &changed,
                outcome: &outcome,
            });
            w.refresh_output(opts);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_cache_and_temporary_files_do_not_trigger_builds() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = Watched {
            location: root.clone(),
            root: root.clone(),
            output: Some(root.join("build/书.epub")),
        };
        assert!(w.cares_about(&root.join("metadata.toml")));
        assert!(w.cares_about(&root.join("chapters/001.txt")));
        assert!(!w.cares_about(&root.join("build/书.epub")));
        assert!(!w.cares_about(&root.join("build/.epubforge-x.epub.tmp")));
        assert!(!w.cares_about(&root.join(".epubforge-cache/书.epub.manifest")));
        assert!(!w.cares_about(&root.join(".git/index")));
        assert!(!w.cares_about(Path::new("/elsewhere/metadata.toml")));

        // Output in the project folder itself: only the EPUB and its temporaries are ignored.
        let w = Watched {
            output: Some(root.join("book.epub")),
            ..w
        };
        assert!(!w.cares_about(&root.join("book.epub")));
        assert!(!w.cares_about(&root.join(".epubforge-abc.epub.tmp")));
        assert!(w.cares_about(&root.join("a.txt")));
    }
}
