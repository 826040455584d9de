//! Many books at once: find the projects under a folder, build them in parallel, keep going
//! past failures.
//!
//! Sits above [`crate::build`]: each book runs the whole pipeline (with its own parallel
//! conversion and compression, sharing the same thread pool). Results come back in the order
//! the projects were given; a callback sees each one as it finishes, for progress output.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::build::{self, BuildOptions, BuildReport};
use crate::error::Result;
use crate::incremental::quick::Handed;
use crate::project::CACHE_DIR;
use crate::project::{METADATA_FILE, OUTPUT_FOLDER, Project};

/// Folders never searched for projects: build output, caches, version control.
const SKIP: &[&str] = &["target", OUTPUT_FOLDER, ".git", CACHE_DIR, "node_modules"];

/// Every folder under `dir` (itself included) holding a `metadata.toml`, sorted by path.
pub fn find_projects(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && e.file_name()
                        .to_str()
                        .is_some_and(|n| SKIP.contains(&n) || n.starts_with('.')))
        })
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_dir() && e.path().join(METADATA_FILE).is_file())
        .map(|e| e.into_path())
        .collect();
    found.sort();
    found
}

/// How one book of a batch went.
#[derive(Debug)]
pub struct Outcome {
    /// The project as given.
    pub project: PathBuf,
    /// The build's report, or why it failed.
    pub result: Result<BuildReport>,
    /// Wall-clock time of this book.
    pub elapsed: Duration,
}

/// Loads and builds one project, timing it. An up-to-date book is found by the quick check without loading its project, when it can
/// tell (the quick check of the build cache).
pub fn build_one(project: &Path, opts: &BuildOptions) -> Outcome {
    let start = Instant::now();
    let handed = match build::quick_up_to_date(project, opts) {
        Ok(report) => {
            return Outcome {
                project: project.to_path_buf(),
                result: Ok(report),
                elapsed: start.elapsed(),
            };
        }
        Err(handed) => handed,
    };
    build_one_looked(project, opts, handed, &mut |_| ())
}

/// [`build_one`], showing `seen` the project once it has loaded, before it is built (watch
/// mode learns from it what to watch).
pub fn build_one_seeing(
    project: &Path,
    opts: &BuildOptions,
    seen: &mut dyn FnMut(&Project),
) -> Outcome {
    build_one_looked(project, opts, Handed::default(), seen)
}

/// [`build_one_seeing`], taking what the quick check read and looked at (`handed`).
fn build_one_looked(
    project: &Path,
    opts: &BuildOptions,
    handed: Handed,
    seen: &mut dyn FnMut(&Project),
) -> Outcome {
    let start = Instant::now();
    let Handed { looked, record } = handed;
    // The build cache is read while the chapter files are listed.
    let prefetch = |output: &Path| build::prefetch(opts, output, record);
    let loading = Project::load_looked(project, (&opts.load, looked), prefetch);
    let result = loading.and_then(|(p, prefetched)| {
        seen(&p);
        let loaded = start.elapsed();
        build::build_with(&p, opts, prefetched).map(|mut r| {
            if opts.cache && opts.output.is_none() {
                crate::incremental::quick::remember_default(&p, &r.output);
            }
            r.timings.insert(0, ("load project", loaded));
            r
        })
    });
    Outcome {
        project: project.to_path_buf(),
        result,
        elapsed: start.elapsed(),
    }
}

/// How many threads build `books` books when `jobs` are asked for (0: one per core). A book
/// converts and compresses its chapters on the same threads, so up to one per core is useful
/// even for one book; beyond that only one per book, and never more than four per core:
/// `-j 100000` once started a hundred thousand threads (and took a minute) for one book.
pub fn pool_size(jobs: usize, books: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if jobs == 0 {
        return cores;
    }
    jobs.min(books.max(cores)).min(4 * cores).max(1)
}

/// Builds every project with up to `jobs` threads (0: one per core; capped by
/// [`pool_size`]), calling `done` as each finishes. Returns the outcomes in the order of
/// `projects`.
pub fn build_all(
    projects: &[PathBuf],
    opts: &BuildOptions,
    jobs: usize,
    done: &(dyn Fn(&Outcome) + Sync),
) -> Vec<Outcome> {
    each_in_parallel(projects, jobs, |p| build_one(p, opts), done)
}

/// Runs `each` on every path of `paths` with up to `jobs` threads (0: one per core; capped by
/// [`pool_size`]), calling `done` as each finishes; an interrupt meanwhile says which were not
/// finished. Returns the outcomes in the order of `paths`. Many books built, or many EPUBs
/// fixed, at once.
pub(crate) fn each_in_parallel<O: Send>(
    paths: &[PathBuf],
    jobs: usize,
    each: impl Fn(&PathBuf) -> O + Sync,
    done: &(dyn Fn(&O) + Sync),
) -> Vec<O> {
    let batch = crate::interrupt::Batch::begin(paths);
    let run = || -> Vec<O> {
        paths
            .par_iter()
            .map(|p| {
                let outcome = each(p);
                batch.finished(p);
                done(&outcome);
                outcome
            })
            .collect()
    };
    let threads = pool_size(jobs, paths.len());
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_are_found_below_the_folder_but_not_in_build_or_hidden_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in [
            "a",
            "b/c",
            "build/x",
            "target/y",
            ".git/z",
            "b/c/.epubforge-cache",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
            std::fs::write(root.join(d).join(METADATA_FILE), "").unwrap();
        }
        std::fs::create_dir_all(root.join("empty")).unwrap();
        let found = find_projects(root);
        assert_eq!(found, vec![root.join("a"), root.join("b/c")]);
    }

    #[test]
    fn the_pool_is_capped_by_books_and_cores_but_not_below_what_is_asked() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(pool_size(0, 1), cores);
        assert_eq!(pool_size(100_000, 1), cores);
        assert_eq!(pool_size(100_000, 1_000_000), 4 * cores);
        assert_eq!(pool_size(1, 50), 1);
        assert_eq!(pool_size(cores + 1, 50), cores + 1);
        assert_eq!(pool_size(3 * cores, cores + 1), cores + 1);
    }

    #[test]
    fn a_failing_book_does_not_stop_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good");
        std::fs::create_dir_all(&good).unwrap();
        std::fs::write(good.join("a.txt"), "第一段。\n").unwrap();
        std::fs::write(
            good.join(METADATA_FILE),
            "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n[[chapters]]\nfile = \"a.txt\"\n",
        )
        .unwrap();
        let bad = dir.path().join("bad");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(bad.join(METADATA_FILE), "not toml [").unwrap();
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let outcomes = build_all(
            &[bad.clone(), good.clone()],
            &BuildOptions::default(),
            2,
            &|_| {
                seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            },
        );
        assert_eq!(seen.into_inner(), 2);
        assert_eq!(outcomes[0].project, bad);
        assert!(outcomes[0].result.is_err());
        assert!(outcomes[1].result.is_ok());
        assert!(good.join("build").join("书.epub").is_file());
    }
}
