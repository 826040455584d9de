//! Reading outside the project (issue 27): `metadata.toml` that is a symlink out, `init`
//! following `SUMMARY.md` entries out of the folder, and a chapter swapped for a symlink
//! between the check of its path and its reading. Every file of the project is opened once,
//! through the project folder's handle, so none of them can lead out.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::common::{self, epubforge};

/// Longer than any of these commands takes on a loaded machine; reached only by a hang.
const HANG: Duration = Duration::from_secs(60);

/// What the files outside the project hold: found in a book or a metadata file, it leaked.
const SECRET: &str = "SECRET-6b1f0c2e-outside-the-project";

/// A project folder `outer/a/book`, with files outside it in `outer` and `outer/a`.
struct Nest {
    outer: tempfile::TempDir,
}

impl Nest {
    fn new() -> Nest {
        Nest {
            outer: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.outer.path().join(rel)
    }

    fn book(&self) -> PathBuf {
        self.path("a/book")
    }

    fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, contents).unwrap();
        p
    }

    fn link(&self, target: impl AsRef<Path>, rel: &str) {
        std::os::unix::fs::symlink(target, self.path(rel)).unwrap();
    }
}

fn run(args: &[&dyn AsRef<std::ffi::OsStr>]) -> common::Run {
    let mut cmd = epubforge();
    for a in args {
        cmd.arg(a);
    }
    super::finishes_within(&mut cmd, HANG, "the command")
}

const METADATA: &str = "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\n[[chapters]]\nfile = \"ch/1.txt\"\n";

// 27: `metadata.toml` that was a symlink to a file outside the project was followed.
#[test]
fn a_metadata_file_linking_out_of_the_project_is_refused_unless_allowed() {
    let n = Nest::new();
    n.write("a/book/ch/1.txt", "Inside the project.\n");
    let outside = n.write("elsewhere.toml", METADATA);
    n.link(&outside, "a/book/metadata.toml");
    let out = n.path("out.epub");
    for r in [
        run(&[&"build", &n.book(), &"-o", &out]),
        run(&[&"build", &n.book().join("metadata.toml"), &"-o", &out]),
        run(&[&"check", &n.book()]),
    ] {
        assert!(!r.ok, "accepted:\n{}", r.stderr);
        assert!(
            r.stderr.contains("metadata.toml")
                && r.stderr.contains("outside the project folder")
                && r.stderr.contains("--allow-outside-paths"),
            "{}",
            r.stderr
        );
    }
    assert!(!out.exists());
    let r = run(&[&"build", &n.book(), &"-o", &out, &"--allow-outside-paths"]);
    assert!(r.ok, "{}", r.stderr);
    // A link that stays inside the project is the project's own file.
    std::fs::remove_file(n.path("a/book/metadata.toml")).unwrap();
    n.write("a/book/meta/real.toml", METADATA);
    n.link("meta/real.toml", "a/book/metadata.toml");
    let r = run(&[&"build", &n.book(), &"-o", &out]);
    assert!(r.ok, "{}", r.stderr);
}

// 27: `init` followed `SUMMARY.md` entries leading out of the folder (`../..`, absolute, a
// symlink) and copied their headings into `metadata.toml`.
#[test]
fn init_never_reads_summary_entries_leading_out_of_the_folder() {
    let n = Nest::new();
    // Each outside file has a heading of its own, so that each way out is seen on its own.
    let secret = |way: &str| format!("# {SECRET}-{way}\n\nWhat the outside file says.\n");
    n.write("climbed.md", secret("climbed"));
    let absolute = n.write("absolute.md", secret("absolute"));
    let linked = n.write("a/linked.md", secret("linked"));
    n.write("a/book/one.md", "# One\n\nThe first chapter.\n");
    n.link(&linked, "a/book/link.md");
    let summary = format!(
        "# Summary\n\n- [](one.md)\n- [](../../climbed.md)\n- []({})\n- [](link.md)\n",
        absolute.display()
    );
    n.write("a/book/SUMMARY.md", summary);
    let r = run(&[&"init", &n.book()]);
    assert!(r.ok, "{}", r.stderr);
    let meta = std::fs::read_to_string(n.path("a/book/metadata.toml")).unwrap();
    let copied: Vec<&str> = ["climbed", "absolute", "linked"]
        .into_iter()
        .filter(|way| meta.contains(&format!("{SECRET}-{way}")))
        .collect();
    assert!(
        copied.is_empty(),
        "outside headings copied: {copied:?}\n{meta}"
    );
    let files: Vec<&str> = meta.lines().filter(|l| l.starts_with("file = ")).collect();
    assert_eq!(files, ["file = \"one.md\""], "{meta}");
    for name in ["climbed.md", "absolute.md", "link.md"] {
        assert!(
            meta.lines()
                .any(|l| l.contains(name) && l.contains("outside the project folder")),
            "{name} not reported:\n{meta}\n{}",
            r.stderr
        );
    }
}

/// Swaps `chapter` for a symlink to `outside` and back, again and again, until `stop`. Each
/// state lasts about as long as the other (writing a file in each), so that builds see both.
fn swap_until(stop: &AtomicBool, stage: &Path, chapter: &Path, outside: &Path) -> usize {
    let (link, real, pad) = (stage.join("link"), stage.join("real"), stage.join("pad"));
    let mut swaps = 0;
    while !stop.load(Ordering::Relaxed) {
        std::fs::write(&real, "Inside the project.\n").unwrap();
        std::fs::rename(&real, chapter).unwrap();
        std::os::unix::fs::symlink(outside, &link).unwrap();
        std::fs::write(&pad, "Inside the project.\n").unwrap();
        std::fs::rename(&link, chapter).unwrap();
        swaps += 1;
    }
    std::fs::write(&real, "Inside the project.\n").unwrap();
    std::fs::rename(&real, chapter).unwrap();
    swaps
}

/// Whether any entry of the EPUB at `epub` holds `needle`, unpacked.
fn holds(epub: &Path, needle: &str) -> bool {
    common::entries(epub)
        .values()
        .any(|data| data.windows(needle.len()).any(|w| w == needle.as_bytes()))
}

// 27: a path was checked, then opened again by name: a chapter swapped for a symlink between
// the two (a synced or shared folder) put an outside file into the book (129 of 297 racing
// builds). Builds for 10 s while another thread swaps; no book may hold the outside file.
#[test]
fn a_chapter_swapped_for_a_link_out_while_building_never_reaches_the_book() {
    let n = Nest::new();
    let outside = n.write("secret.txt", format!("{SECRET}\n"));
    let chapter = n.write("a/book/ch/1.txt", "Inside the project.\n");
    n.write("a/book/metadata.toml", METADATA);
    let stage = n.path("a/book/stage");
    std::fs::create_dir_all(&stage).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, chapter, outside) = (stop.clone(), chapter.clone(), outside.clone());
        std::thread::spawn(move || swap_until(&stop, &stage, &chapter, &outside))
    };
    let out = n.path("out.epub");
    let (mut built, mut refused, mut leaked) = (0, 0, 0);
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        let _ = std::fs::remove_file(&out);
        let r = run(&[&"build", &n.book(), &"-o", &out, &"--no-cache", &"-q"]);
        if !r.ok {
            refused += 1;
            continue;
        }
        built += 1;
        leaked += usize::from(holds(&out, SECRET));
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    eprintln!("{built} books built, {refused} builds refused, {swaps} swaps, {leaked} leaked");
    assert_eq!(leaked, 0, "{leaked} of {built} books held the outside file");
    // Once the swapping stops, the book builds, with the chapter's own text.
    let r = run(&[&"build", &n.book(), &"-o", &out, &"--no-cache"]);
    assert!(r.ok, "{}", r.stderr);
    assert!(holds(&out, "Inside the project.") && !holds(&out, SECRET));
}
