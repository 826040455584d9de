//! Expanding a `[[chapters]] glob` into chapter files, in natural order.
//!
//! Part of the project stage. A pattern whose wildcards are all in its last component
//! (`chapters/*.txt`, the usual case) is matched against one folder listing: one `lstat` per
//! file, and the folder resolved once for the containment check ([`Boundary`]); rebuilds of a
//! book of thousands of chapters start here. Other patterns (`**/*.md`, `part*/*.txt`) walk
//! the folders under the pattern's literal start, never through a symlinked folder: three
//! links to `.` would make the walk exponential, and a link out of the project would take it
//! outside. Either way a glob never takes what is not the author's: `metadata.toml`, the
//! book's own output and output folder, the build cache and our temporary files.

use std::path::{Path, PathBuf};

use super::boundary::{Boundary, Outside};
use super::{FileId, FileStamp};
use crate::project::CACHE_DIR;

/// Names of our own temporary files start with this (the EPUB being written, cache files).
const OURS: &str = ".epubforge-";

/// How patterns match: `*` and `?` never cross a `/`, `**` spans folders, hidden names match.
const OPTIONS: glob::MatchOptions = glob::MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

/// What a glob must never take, relative to the project folder.
pub(super) struct Skip {
    /// The project folder.
    pub root: PathBuf,
    /// The metadata file's name (it is in the project folder).
    pub metadata: String,
    /// The book's default output, relative to the project folder with `/` between names, when
    /// it lies inside.
    pub output: Option<String>,
}

impl Skip {
    /// Whether a walk should stay out of the folder `rel`: the cache, and the output's folder
    /// (unless that is the project folder itself).
    fn folder(&self, rel: &str) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        name == CACHE_DIR
            || self
                .output
                .as_deref()
                .and_then(|o| o.rsplit_once('/'))
                .is_some_and(|(dir, _)| dir == rel)
    }

    /// Whether the file `rel` (named `name`) is ours rather than the author's.
    fn file(&self, rel: &str, name: &str) -> bool {
        name.starts_with(OURS) || rel == self.metadata || self.output.as_deref() == Some(rel)
    }
}

/// One file a glob matched.
pub(super) struct Match {
    /// The file, joined to the project folder.
    pub path: PathBuf,
    /// Size and time from the listing; None for a symlink, whose target is looked at later.
    pub stamp: Option<FileStamp>,
    /// Which file it is.
    pub id: Option<FileId>,
}

/// Why a glob could not be expanded.
pub(super) enum GlobError {
    /// The pattern is not a valid glob.
    Syntax(glob::PatternError),
    /// A match leads out of the project folder: the match as shown, and where it leads.
    Outside(String, Outside),
}

/// `rel` as text with `/` between names, as patterns write it (on Windows too).
pub(super) fn slashed(rel: &Path) -> String {
    let text = rel.to_string_lossy();
    match std::path::MAIN_SEPARATOR {
        '/' => text.into_owned(),
        sep => text.replace(sep, "/"),
    }
}

/// The files `pattern` (relative to the project folder) matches, in natural order.
pub(super) fn expand(
    pattern: &str,
    skip: &Skip,
    boundary: &Boundary,
) -> Result<Vec<Match>, GlobError> {
    let wild = |s: &str| s.contains(['*', '?', '[']);
    let (folder, name) = pattern.rsplit_once('/').unwrap_or(("", pattern));
    if wild(folder) || pattern.contains('\\') || name == "**" {
        walk(pattern, skip, boundary)
    } else {
        list(folder, name, skip, boundary)
    }
}

/// A match seen in a listing, before its containment check.
enum Kind {
    Link,
    File(Option<FileStamp>, Option<FileId>),
    Other,
}

impl Kind {
    fn of(meta: &std::fs::Metadata) -> Kind {
        if meta.file_type().is_symlink() {
            Kind::Link
        } else if meta.is_file() {
            Kind::File(FileStamp::of(meta), FileId::of(meta))
        } else {
            Kind::Other
        }
    }
}

/// Checks one match and adds it when it is a regular file: a symlink is looked through (not
/// opened) first, so that a link to a folder or to nothing is passed over like one, and only
/// a link to a file outside is refused. The error wants the match as shown.
fn admit(
    found: &mut Vec<Match>,
    path: PathBuf,
    kind: Kind,
    boundary: &Boundary,
) -> Result<(), impl FnOnce(String) -> GlobError> {
    let (stamp, id, linked) = match kind {
        Kind::Other => return Ok(()),
        Kind::File(stamp, id) => (stamp, id, false),
        Kind::Link => match std::fs::metadata(&path) {
            Ok(target) if target.is_file() => (None, FileId::of(&target), true),
            _ => return Ok(()),
        },
    };
    if let Err(outside) = boundary.check_entry(&path, linked) {
        return Err(move |shown| GlobError::Outside(shown, outside));
    }
    found.push(Match { path, stamp, id });
    Ok(())
}

/// The names matching `name` in the folder `folder`: one listing, one `lstat` per match.
fn list(
    folder: &str,
    name: &str,
    skip: &Skip,
    boundary: &Boundary,
) -> Result<Vec<Match>, GlobError> {
    let matcher = glob::Pattern::new(name).map_err(GlobError::Syntax)?;
    // `*.txt` and the like, by far the most common: a suffix test says the same.
    let suffix = name
        .strip_prefix('*')
        .filter(|rest| !rest.contains(['*', '?', '[', ']']));
    let matches = |name: &str| match suffix {
        Some(suffix) => name.ends_with(suffix),
        None => matcher.matches_with(name, OPTIONS),
    };
    let dir = skip.root.join(folder);
    let Ok(listing) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let rel = |name: &str| match folder {
        "" => name.to_string(),
        _ => format!("{folder}/{name}"),
    };
    // What is ours in this folder, by name: compared as text, for every file of a chapter
    // folder on every rebuild.
    let output = skip
        .output
        .as_deref()
        .and_then(|o| match o.rsplit_once('/') {
            Some((dir, name)) => (dir == folder).then_some(name),
            None => folder.is_empty().then_some(o),
        });
    let ours = |name: &str| {
        name.starts_with(OURS)
            || (folder.is_empty() && name == skip.metadata)
            || output == Some(name)
    };
    let mut entries: Vec<(Vec<u8>, std::fs::DirEntry)> = listing
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            (matches(&name) && !ours(&name)).then(|| (super::natural_key(&name), e))
        })
        .collect();
    // Every match is in one folder, so ordering the names orders the paths.
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    // Thousands of `lstat`s: spread over the cores, keeping only what is needed (a whole
    // `Metadata` takes 176 bytes, and thousands of them are pages to fault in).
    let kinds: Vec<Kind> = {
        use rayon::prelude::*;
        entries
            .par_iter()
            .map(|(_, e)| e.metadata().map_or(Kind::Other, |m| Kind::of(&m)))
            .collect()
    };
    // The folder is resolved once: its files that are not symlinks lie where it does.
    let inside = boundary.holds_folder(&dir);
    let mut found = Vec::with_capacity(entries.len());
    for ((_, entry), kind) in entries.into_iter().zip(kinds) {
        let shown = || rel(&entry.file_name().to_string_lossy());
        match kind {
            Kind::File(stamp, id) if inside => found.push(Match {
                path: entry.path(),
                stamp,
                id,
            }),
            kind => admit(&mut found, entry.path(), kind, boundary).map_err(|o| o(shown()))?,
        }
    }
    Ok(found)
}

/// The files matching a pattern with wildcards in its folders, or `**`: a walk from the
/// pattern's literal start that never follows a symlinked folder.
fn walk(pattern: &str, skip: &Skip, boundary: &Boundary) -> Result<Vec<Match>, GlobError> {
    let matcher = glob::Pattern::new(pattern).map_err(GlobError::Syntax)?;
    let parts: Vec<&str> = pattern.split(['/', '\\']).collect();
    let literal = parts
        .iter()
        .take(parts.len() - 1)
        .take_while(|p| !p.contains(['*', '?', '[']))
        .count();
    let start = skip.root.join(parts[..literal].join("/"));
    let depth = if parts.contains(&"**") {
        usize::MAX
    } else {
        parts.len() - literal
    };
    let walker = walkdir::WalkDir::new(&start)
        .follow_links(false)
        .min_depth(1)
        .max_depth(depth);
    let relative = |path: &Path| {
        let rel = path.strip_prefix(&skip.root).unwrap_or(path);
        slashed(rel)
    };
    let mut found = Vec::new();
    let entries = walker
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && skip.folder(&relative(e.path()))));
    for entry in entries.filter_map(|e| e.ok()) {
        let rel = relative(entry.path());
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_dir()
            || skip.file(&rel, &name)
            || !matcher.matches_with(&rel, OPTIONS)
        {
            continue;
        }
        let kind = entry.metadata().map_or(Kind::Other, |m| Kind::of(&m));
        let mut one = Vec::with_capacity(1);
        admit(&mut one, entry.into_path(), kind, boundary).map_err(|o| o(rel.clone()))?;
        found.extend(one.into_iter().map(|m| (rel.clone(), m)));
    }
    found.sort_by_cached_key(|(rel, _)| super::natural_key(rel));
    Ok(found.into_iter().map(|(_, m)| m).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(root: &Path) -> Skip {
        Skip {
            root: root.to_path_buf(),
            metadata: "metadata.toml".into(),
            output: Some("build/T.epub".into()),
        }
    }

    fn names(root: &Path, pattern: &str) -> Vec<String> {
        let boundary = Boundary::new(root, false);
        let Ok(found) = expand(pattern, &skip(root), &boundary) else {
            panic!("{pattern} failed");
        };
        found
            .into_iter()
            .map(|m| relative_name(root, &m.path))
            .collect()
    }

    fn relative_name(root: &Path, path: &Path) -> String {
        path.strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn walks_match_what_the_glob_crate_matches_in_natural_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "a/1.txt",
            "a/10.txt",
            "a/2.txt",
            "b/c/3.txt",
            "b/x.md",
            "4.txt",
            ".h/5.txt",
        ] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "x").unwrap();
        }
        assert_eq!(
            names(root, "**/*.txt"),
            [
                ".h/5.txt",
                "4.txt",
                "a/1.txt",
                "a/2.txt",
                "a/10.txt",
                "b/c/3.txt"
            ]
        );
        assert_eq!(
            names(root, "*/*.txt"),
            [".h/5.txt", "a/1.txt", "a/2.txt", "a/10.txt"]
        );
        assert_eq!(names(root, "b/**"), ["b/c/3.txt", "b/x.md"]);
        assert_eq!(names(root, "[ab]/?.txt"), ["a/1.txt", "a/2.txt"]);
        assert_eq!(names(root, "a/*.txt"), ["a/1.txt", "a/2.txt", "a/10.txt"]);
    }

    #[test]
    fn metadata_output_cache_and_temporary_files_are_never_taken() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in [
            "metadata.toml",
            "1.txt",
            "build/T.epub",
            "build/other.txt",
            "ch/.epubforge-cache/T.epub.manifest",
            ".epubforge-abc.epub.tmp",
            "ch/2.txt",
        ] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "x").unwrap();
        }
        assert_eq!(names(root, "*"), ["1.txt"]);
        assert_eq!(names(root, "**/*"), ["1.txt", "ch/2.txt"]);
        // A glob that names the output folder itself still skips the EPUB.
        assert_eq!(names(root, "build/*"), ["build/other.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn walks_never_follow_folder_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("ch")).unwrap();
        std::fs::write(root.join("ch/1.txt"), "x").unwrap();
        for link in ["a", "b", "c", "ch/d"] {
            std::os::unix::fs::symlink(".", root.join(link)).unwrap();
        }
        std::os::unix::fs::symlink("ch/1.txt", root.join("one.txt")).unwrap();
        assert_eq!(names(root, "**/*.txt"), ["ch/1.txt", "one.txt"]);
        assert_eq!(names(root, "**/*"), ["ch/1.txt", "one.txt"]);
    }
}
