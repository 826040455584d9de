//! Watch mode: rebuild books when, and only when, their inputs change.
//!
//! Sits above [`crate::batch`]. Each project folder is watched recursively (the `notify`
//! crate), and a change counts only when it changes content (a file created, written, removed
//! or renamed) and its path is one of the project's inputs ([`Inputs`]): `metadata.toml`, the
//! shared `cleanup.toml` beside it (there or not: a new one changes the book), a chapter, the
//! cover, a stylesheet, a font, a file one of its globs would match (a new chapter), an image
//! when chapters are Markdown or HTML, an image in `covers/` when the cover is found there.
//! Reading a file is no change (the system reports every open, and each build opens every
//! input: counting them made watch rebuild forever), nor is a new modification time alone; the
//! output, its folder, the build cache and temporary files never count. After the first change
//! that counts, changes are gathered until there has been none for [`DEBOUNCE`]; the project
//! is then loaded again from its `metadata.toml` (so a new chapter file is picked up, and what
//! to watch is learnt again) and built incrementally. A failed build leaves the last good EPUB
//! in place and watching goes on; until a project loads, any change in its folder (but the
//! output) counts, so that the fix of a missing file is seen.

use std::collections::{BTreeSet, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher, event::ModifyKind};

use crate::batch::{self, Outcome};
use crate::build::BuildOptions;
use crate::diagnostic::{Code, Diagnostic};
use crate::project::CACHE_DIR;
use crate::project::{COVER_EXTENSIONS, Project, has_extension};

/// How long the inputs must be left alone before a rebuild starts.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// Why watching could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The file-system watcher failed.
    #[error("{}: cannot watch: {source}", crate::escape::path(path))]
    Notify {
        /// The folder.
        path: PathBuf,
        /// The underlying error.
        source: notify::Error,
    },
}

impl WatchError {
    /// The error as a [`Diagnostic`] (code `io`), for the one renderer.
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            WatchError::Notify { path, source } => {
                Diagnostic::error(Code::Io, format!("cannot watch: {source}")).at(path)
            }
        }
    }
}

/// What watch mode reports.
#[derive(Debug)]
pub enum WatchEvent<'a> {
    /// Inputs of a project changed; its build starts now.
    Changed {
        /// The inputs that changed.
        changed: &'a [PathBuf],
    },
    /// A build ran (the first one, or after a change).
    Build {
        /// How it went.
        outcome: &'a Outcome,
    },
    /// The watcher reported a problem (a warning, code `io`); watching goes on.
    Error(Diagnostic),
}

/// What a project reads, as the last load of it found: the changes that call for a rebuild.
#[derive(Debug, Default)]
struct Inputs {
    /// Every input file (metadata, chapters, cover, stylesheets, fonts), and where the
    /// symlinks among them lead.
    files: HashSet<PathBuf>,
    /// The chapter globs, relative to the project folder.
    globs: Vec<glob::Pattern>,
    /// `covers/`, when the cover is the image found there.
    covers: Option<PathBuf>,
    /// Whether chapters are Markdown or HTML, which may show any image of the project.
    images: bool,
}

/// One watched project.
struct Watched {
    /// As given on the command line.
    location: PathBuf,
    /// The folder watched, symlinks resolved (the form events come in).
    root: PathBuf,
    /// The EPUB, as far as the last successful load knew.
    output: Option<PathBuf>,
    /// What to watch; None until the project has loaded once.
    inputs: Option<Inputs>,
}

impl Watched {
    fn new(location: &Path) -> Watched {
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
        Watched {
            location: location.to_path_buf(),
            root,
            output: None,
            inputs: None,
        }
    }

    /// Loads and builds the project, learning from the load what to watch.
    fn build(&mut self, opts: &BuildOptions) -> Outcome {
        let root = self.root.clone();
        let mut learnt = None;
        let outcome = batch::build_one_seeing(&self.location, opts, &mut |project| {
            let output = opts
                .output
                .clone()
                .unwrap_or_else(|| project.default_output());
            learnt = Some((absolute(&output), Inputs::of(project, &root)));
        });
        if let Some((output, inputs)) = learnt {
            self.output = Some(output);
            self.inputs = Some(inputs);
        }
        outcome
    }

    /// Whether a change to `path` should trigger a rebuild of this project.
    fn cares_about(&self, path: &Path) -> bool {
        let inside = path.starts_with(&self.root);
        if is_ours(path) || self.is_output(path) {
            return false;
        }
        match &self.inputs {
            Some(inputs) => inputs.count(path, &self.root),
            None => inside,
        }
    }

    /// Whether `path` is the EPUB, or in its folder (unless that is the project folder).
    fn is_output(&self, path: &Path) -> bool {
        match &self.output {
            Some(out) => {
                let dir = out.parent().unwrap_or(Path::new("/"));
                let beside = || {
                    crate::book::Target::ALL
                        .iter()
                        .any(|t| path == t.output_beside(out))
                };
                path == out || beside() || (dir != self.root && path.starts_with(dir))
            }
            None => path.starts_with(self.root.join(crate::project::OUTPUT_FOLDER)),
        }
    }

    /// Folders outside the project holding inputs (`--allow-outside-paths`): watched too.
    fn outside_folders(&self) -> Vec<PathBuf> {
        let Some(inputs) = &self.inputs else {
            return Vec::new();
        };
        let folders: BTreeSet<PathBuf> = inputs
            .files
            .iter()
            .filter(|f| !f.starts_with(&self.root))
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        folders.into_iter().collect()
    }
}

impl Inputs {
    /// What `project` reads; paths are made absolute under `root` (the project folder,
    /// resolved), where events name them.
    fn of(project: &Project, root: &Path) -> Inputs {
        let here = |p: &Path| match p.strip_prefix(&project.root) {
            Ok(rel) => root.join(rel),
            Err(_) => absolute(p),
        };
        let mut files = HashSet::new();
        let mut add = |p: &Path, linked: bool| {
            let path = here(p);
            if linked && let Ok(real) = path.canonicalize() {
                files.insert(real);
            }
            files.insert(path);
        };
        add(&project.metadata_path, true);
        add(&project.root.join(crate::project::CLEANUP_FILE), true);
        for p in project.cover.iter().chain(&project.style.css) {
            add(p, true);
        }
        for f in &project.style.fonts {
            add(&f.path, true);
        }
        let mut images = false;
        for c in project.chapters() {
            add(&c.path, c.stamp.is_none());
            images |= crate::convert::SourceKind::of_chapter(c) != crate::convert::SourceKind::Text;
        }
        let covers = project.cover.is_none().then(|| root.join("covers"));
        Inputs {
            files,
            globs: (project.chapter_globs.iter())
                .filter_map(|g| glob::Pattern::new(g).ok())
                .collect(),
            covers,
            images,
        }
    }

    /// Whether a change to `path` changes the book.
    fn count(&self, path: &Path, root: &Path) -> bool {
        if self.files.contains(path) {
            return true;
        }
        let Ok(rel) = path.strip_prefix(root) else {
            return false;
        };
        let image = has_extension(path, &COVER_EXTENSIONS);
        self.globs
            .iter()
            .any(|g| g.matches_path_with(rel, GLOB_OPTIONS))
            || (image && self.images)
            || (image
                && self
                    .covers
                    .as_deref()
                    .is_some_and(|c| path.parent() == Some(c)))
    }
}

/// How a chapter glob matches (as the project stage matches it).
const GLOB_OPTIONS: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// Whether `path` is one of ours: the build cache, a temporary file, an editor's backup.
fn is_ours(path: &Path) -> bool {
    let cache = path
        .components()
        .any(|c| matches!(c, Component::Normal(n) if n == CACHE_DIR));
    let temp = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(".epubforge-") || n.ends_with('~'));
    cache || temp
}

/// Whether an event changes content: reads and changes of metadata alone do not.
fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
        EventKind::Other => false,
    }
}

fn absolute(p: &Path) -> PathBuf {
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
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
    let mut watched: Vec<Watched> = projects.iter().map(|p| Watched::new(p)).collect();
    for w in &mut watched {
        let outcome = w.build(opts);
        report(WatchEvent::Build { outcome: &outcome });
    }
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx).map_err(|source| WatchError::Notify {
        path: PathBuf::from("."),
        source,
    })?;
    let mut extra = BTreeSet::new();
    for w in &watched {
        watcher
            .watch(&w.root, RecursiveMode::Recursive)
            .map_err(|source| WatchError::Notify {
                path: w.root.clone(),
                source,
            })?;
    }
    watch_outside(&mut watcher, &watched, &mut extra, report);
    while let Some(changed) = next_changes(&rx, &watched, report) {
        for (w, changed) in watched.iter_mut().zip(changed) {
            if changed.is_empty() {
                continue;
            }
            let changed: Vec<PathBuf> = changed.into_iter().collect();
            report(WatchEvent::Changed { changed: &changed });
            let outcome = w.build(opts);
            report(WatchEvent::Build { outcome: &outcome });
        }
        watch_outside(&mut watcher, &watched, &mut extra, report);
    }
    Ok(())
}

/// Watches the folders outside the projects that hold inputs, each once.
fn watch_outside(
    watcher: &mut impl Watcher,
    watched: &[Watched],
    done: &mut BTreeSet<PathBuf>,
    report: &mut dyn FnMut(WatchEvent<'_>),
) {
    for folder in watched.iter().flat_map(Watched::outside_folders) {
        if done.insert(folder.clone())
            && let Err(e) = watcher.watch(&folder, RecursiveMode::NonRecursive)
        {
            let problem = Diagnostic::warning(Code::Io, format!("cannot watch: {e}")).at(&folder);
            report(WatchEvent::Error(problem));
        }
    }
}

/// Waits for the next change that counts, then gathers the ones that follow until there has
/// been none for [`DEBOUNCE`]: for each project, the inputs that changed. None when the
/// watcher has stopped.
fn next_changes(
    rx: &mpsc::Receiver<notify::Result<notify::Event>>,
    watched: &[Watched],
    report: &mut dyn FnMut(WatchEvent<'_>),
) -> Option<Vec<BTreeSet<PathBuf>>> {
    let mut changed = vec![BTreeSet::new(); watched.len()];
    let mut quiet_from: Option<Instant> = None;
    loop {
        let event = match quiet_from {
            // Blocking: an idle watcher costs no CPU.
            None => rx.recv().ok()?,
            Some(last) => match rx.recv_timeout(DEBOUNCE.saturating_sub(last.elapsed())) {
                Ok(event) => event,
                Err(mpsc::RecvTimeoutError::Timeout) => return Some(changed),
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            },
        };
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                let problem = Diagnostic::warning(Code::Io, format!("watcher: {e}"));
                report(WatchEvent::Error(problem));
                continue;
            }
        };
        if !changes_content(&event.kind) {
            continue;
        }
        for path in &event.paths {
            for (w, changed) in watched.iter().zip(&mut changed) {
                if w.cares_about(path) {
                    changed.insert(path.clone());
                    quiet_from = Some(Instant::now());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, MetadataKind};

    fn project(root: &Path, extra: &str) -> Project {
        std::fs::create_dir_all(root.join("ch")).unwrap();
        std::fs::write(root.join("ch/1.txt"), "one").unwrap();
        std::fs::write(root.join("my.css"), "p {}").unwrap();
        let text = format!(
            "[book]\ntitle = \"书\"\nauthors = [\"A\"]\nlanguage = \"zh\"\n\
             [[chapters]]\nglob = \"ch/*.txt\"\n{extra}[style]\ncss = [\"my.css\"]\n"
        );
        std::fs::write(root.join("metadata.toml"), &text).unwrap();
        Project::load(root).unwrap()
    }

    fn watched(root: &Path, project: &Project) -> Watched {
        Watched {
            location: root.to_path_buf(),
            root: root.to_path_buf(),
            output: Some(absolute(&project.default_output())),
            inputs: Some(Inputs::of(project, root)),
        }
    }

    #[test]
    fn only_inputs_count_never_the_output_cache_or_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = watched(&root, &project(&root, ""));
        for input in [
            "metadata.toml",
            "cleanup.toml",
            "ch/1.txt",
            "ch/2.txt",
            "my.css",
            "covers/c.jpg",
        ] {
            assert!(w.cares_about(&root.join(input)), "{input}");
        }
        for other in [
            "build/书.epub",
            "build/.epubforge-x.epub.tmp",
            "build/.epubforge-cache/书.epub.manifest",
            ".git/index",
            "notes.md",
            "ch/1.txt~",
            "ch/sub/3.txt",
            "other.css",
            "pic.png",
        ] {
            assert!(!w.cares_about(&root.join(other)), "{other}");
        }
        assert!(!w.cares_about(Path::new("/elsewhere/metadata.toml")));
    }

    #[test]
    fn markdown_chapters_make_images_count_and_an_output_beside_them_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a.md"), "# A").unwrap();
        let p = project(
            &root,
            "[[chapters]]\nfile = \"a.md\"\n[output]\npath = \"a.epub\"\n",
        );
        let w = watched(&root, &p);
        assert!(w.cares_about(&root.join("a.md")));
        assert!(w.cares_about(&root.join("img/pic.png")));
        assert!(!w.cares_about(&root.join("a.epub")));
        assert!(!w.cares_about(&root.join(".epubforge-abc.epub.tmp")));
        assert!(!w.cares_about(&root.join("notes.txt")));
    }

    #[test]
    fn until_a_project_loads_any_change_in_its_folder_but_the_output_counts() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let w = Watched::new(&root);
        assert!(w.cares_about(&root.join("ch/new.txt")));
        assert!(!w.cares_about(&root.join("build/x.epub")));
        assert!(!w.cares_about(&root.join(".epubforge-cache/x")));
    }

    #[test]
    fn reads_and_metadata_changes_are_not_changes() {
        assert!(!changes_content(&EventKind::Access(AccessKind::Open(
            AccessMode::Read
        ))));
        assert!(!changes_content(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(!changes_content(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::WriteTime
        ))));
        assert!(changes_content(&EventKind::Modify(ModifyKind::Data(
            DataChange::Content
        ))));
        assert!(changes_content(&EventKind::Create(CreateKind::File)));
        assert!(changes_content(&EventKind::Modify(ModifyKind::Name(
            notify::event::RenameMode::To
        ))));
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_inputs_count_where_they_lead() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/2.txt"), "two").unwrap();
        std::fs::create_dir_all(root.join("ch")).unwrap();
        std::os::unix::fs::symlink("../src/2.txt", root.join("ch/2.txt")).unwrap();
        let w = watched(&root, &project(&root, ""));
        assert!(w.cares_about(&root.join("ch/2.txt")));
        assert!(
            w.cares_about(&root.join("src/2.txt")),
            "the file the link leads to"
        );
        assert!(!w.cares_about(&root.join("src/3.txt")));
    }
}
