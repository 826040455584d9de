//! Incremental and batch builds through the CLI (correctness: their speed is bench/run.sh's):
//! a rebuild after an edit is byte-identical to a clean build, an unchanged book is not rebuilt, a damaged or stale cache means a clean
//! build, and a batch rebuilds only the book that changed.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

const EPOCH: &str = "1700000000";

/// A copy of the sample book in a fresh temporary folder.
fn sample() -> tempfile::TempDir {
    common::Fixture::sample().dir
}

struct Run {
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn epubforge(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_epubforge"));
    cmd.env("SOURCE_DATE_EPOCH", EPOCH);
    for a in args {
        cmd.arg(a);
    }
    let out = cmd.output().unwrap();
    Run {
        ok: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn build(project: &Path, out: &Path, extra: &[&str]) -> Run {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"build", &project, &"-o", &out];
    for e in extra {
        args.push(e);
    }
    let r = epubforge(&args);
    assert!(r.ok, "{}", r.stderr);
    r
}

fn first_chapter(project: &Path) -> PathBuf {
    project.join("seeds/001_c5c754fed1430e80.txt")
}

fn append(path: &Path, text: &str) {
    let mut s = std::fs::read_to_string(path).unwrap();
    s.push_str(text);
    std::fs::write(path, s).unwrap();
}

/// Builds `project` from scratch, without cache, into a new path; returns the bytes.
fn clean_build(project: &Path) -> Vec<u8> {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("clean.epub");
    build(project, &path, &["--no-cache"]);
    std::fs::read(path).unwrap()
}

#[test]
fn rebuild_after_editing_one_chapter_reuses_the_rest_and_matches_a_clean_build() {
    let book = sample();
    let out = book.path().join("out/book.epub");
    let first = build(book.path(), &out, &[]);
    assert_eq!(first.stdout.trim(), out.display().to_string());
    let before = std::fs::read(&out).unwrap();

    append(&first_chapter(book.path()), "\n新加的一段。\n");
    let r = build(book.path(), &out, &[]);
    assert!(r.stderr.contains("2 of 3 chapters reused"), "{}", r.stderr);
    assert_eq!(r.stdout.trim(), out.display().to_string());
    let after = std::fs::read(&out).unwrap();
    assert_ne!(before, after);
    assert_eq!(after, clean_build(book.path()));
}

#[test]
fn rebuild_without_source_date_epoch_matches_a_clean_build_too() {
    let book = sample();
    let out = book.path().join("book.epub");
    let run = |extra: &[&str], out: &Path| {
        let r = Command::new(env!("CARGO_BIN_EXE_epubforge"))
            .env_remove("SOURCE_DATE_EPOCH")
            .arg("build")
            .arg(book.path())
            .arg("-o")
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        assert!(r.status.success());
        String::from_utf8_lossy(&r.stderr).into_owned()
    };
    run(&[], &out);
    append(&first_chapter(book.path()), "\n又一段。\n");
    let stderr = run(&[], &out);
    assert!(stderr.contains("reused"), "{stderr}");
    let clean = book.path().join("clean.epub");
    run(&["--no-cache"], &clean);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&clean).unwrap());
}

#[test]
fn an_unchanged_book_is_up_to_date_and_left_alone() {
    let book = sample();
    let out = book.path().join("book.epub");
    build(book.path(), &out, &[]);
    let stamp = std::fs::metadata(&out).unwrap().modified().unwrap();
    let r = build(book.path(), &out, &[]);
    assert!(r.stderr.contains("up to date"), "{}", r.stderr);
    assert_eq!(r.stdout.trim(), out.display().to_string());
    assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), stamp);

    let r = build(book.path(), &out, &["--force"]);
    assert!(!r.stderr.contains("up to date"), "{}", r.stderr);
    assert!(!r.stderr.contains("reused"), "{}", r.stderr);
}

#[test]
fn a_corrupt_cache_gives_a_clean_build() {
    let book = sample();
    let out = book.path().join("book.epub");
    build(book.path(), &out, &[]);
    let record = book.path().join(".epubforge-cache/book.epub.record");
    let mut bytes = std::fs::read(&record).unwrap();
    // One bit of one record: only the checksum can tell.
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(&record, bytes).unwrap();

    append(&first_chapter(book.path()), "\n再加一段。\n");
    let r = build(book.path(), &out, &[]);
    assert!(!r.stderr.contains("reused"), "{}", r.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(book.path()));

    std::fs::write(&record, "garbage").unwrap();
    let r = build(book.path(), &out, &[]);
    assert!(!r.stderr.contains("up to date"), "{}", r.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(book.path()));
}

#[test]
fn a_replaced_epub_is_rebuilt_not_trusted() {
    let book = sample();
    let out = book.path().join("book.epub");
    build(book.path(), &out, &[]);
    std::fs::write(&out, b"not an epub").unwrap();
    let r = build(book.path(), &out, &[]);
    assert!(!r.stderr.contains("up to date"), "{}", r.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(book.path()));
}

#[test]
fn a_new_chapter_file_matched_by_the_glob_is_built_in() {
    let book = sample();
    let out = book.path().join("book.epub");
    build(book.path(), &out, &[]);
    std::fs::write(book.path().join("seeds/004_new.txt"), "第四章的第一段。\n").unwrap();
    build(book.path(), &out, &[]);
    let built = std::fs::read(&out).unwrap();
    assert_eq!(built, clean_build(book.path()));
    let zip = zip::ZipArchive::new(std::io::Cursor::new(built)).unwrap();
    assert!(zip.index_for_name("EPUB/text/chapter-0004.xhtml").is_some());
}

fn small_book(dir: &Path, title: &str) {
    std::fs::create_dir_all(dir.join("text")).unwrap();
    for n in 1..=3 {
        std::fs::write(
            dir.join(format!("text/{n:02}.txt")),
            format!("第{n}章\n\n{title}的第{n}章，第一段。\n"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("metadata.toml"),
        format!(
            "[book]\ntitle = \"{title}\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
             [[chapters]]\nglob = \"text/*.txt\"\n"
        ),
    )
    .unwrap();
}

#[test]
fn a_batch_rebuilds_only_the_book_that_changed_and_reports_failures() {
    let shelf = tempfile::tempdir().unwrap();
    for name in ["甲", "乙", "丙"] {
        small_book(&shelf.path().join(name), name);
    }
    let r = epubforge(&[&"build", &"--all", &shelf.path(), &"-j", &"2"]);
    assert!(r.ok, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 3, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("3 books: 3 built, 0 up to date, 0 failed"),
        "{}",
        r.stderr
    );

    append(&shelf.path().join("乙/text/02.txt"), "新的一段。\n");
    let r = epubforge(&[&"build", &"--all", &shelf.path()]);
    assert!(r.ok, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("3 books: 1 built, 2 up to date, 0 failed"),
        "{}",
        r.stderr
    );
    let built: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("built"))
        .collect();
    assert_eq!(built.len(), 1, "{}", r.stderr);
    assert!(built[0].contains("乙.epub"), "{}", r.stderr);

    std::fs::write(shelf.path().join("甲/metadata.toml"), "[book\n").unwrap();
    let r = epubforge(&[&"build", &"--all", &shelf.path()]);
    assert!(!r.ok);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stderr
            .contains("3 books: 0 built, 2 up to date, 1 failed"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("failed"), "{}", r.stderr);
}

#[test]
fn output_is_refused_with_several_projects() {
    let shelf = tempfile::tempdir().unwrap();
    small_book(&shelf.path().join("a"), "a");
    small_book(&shelf.path().join("b"), "b");
    let r = epubforge(&[
        &"build",
        &shelf.path().join("a"),
        &shelf.path().join("b"),
        &"-o",
        &"x.epub",
    ]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
}

/// Regression: Markdown chapters bring images and links, and a split text file makes several
/// documents; none of them may be taken from the cache as a bare chapter, or the rebuilt EPUB
/// would lose images or differ from a clean build.
#[test]
fn mixed_markdown_and_split_book_rebuilds_identically_after_edits() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let img = image::RgbImage::from_pixel(8, 8, image::Rgb([10, 120, 200]));
    std::fs::create_dir_all(p.join("img")).unwrap();
    img.save(p.join("img/a.png")).unwrap();
    std::fs::write(
        p.join("a.md"),
        "# A\n\n![pic](img/a.png)\n\nSee [b](b.txt).\n",
    )
    .unwrap();
    std::fs::write(p.join("b.txt"), "第一段。\n").unwrap();
    std::fs::write(
        p.join("novel.txt"),
        "第一卷 甲\n第一章 一\n正文。\n第二章 二\n正文。\n",
    )
    .unwrap();
    std::fs::write(
        p.join("metadata.toml"),
        "[book]\ntitle = \"混合\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
         [[chapters]]\nfile = \"a.md\"\n[[chapters]]\nfile = \"b.txt\"\n\
         [[chapters]]\nfile = \"novel.txt\"\nsplit = \"auto\"\n",
    )
    .unwrap();
    let out = p.join("out/book.epub");
    let clean = p.join("clean.epub");
    build(p, &out, &[]);
    for (file, text) in [
        ("b.txt", "第二段。\n"),
        ("a.md", "\nMore.\n"),
        ("novel.txt", "又一段。\n"),
    ] {
        append(&p.join(file), text);
        build(p, &out, &[]);
        build(p, &clean, &["--no-cache"]);
        let rebuilt = std::fs::read(&out).unwrap();
        assert_eq!(
            rebuilt,
            std::fs::read(&clean).unwrap(),
            "after editing {file}"
        );
        let zip = zip::ZipArchive::new(std::io::Cursor::new(rebuilt)).unwrap();
        assert!(
            zip.file_names()
                .any(|n| n.is_ok_and(|n| n.starts_with("EPUB/images/img-")))
        );
    }
}

/// A book without a cover gets a generated one, kept in the cache so that a rebuild does not
/// draw it again; the rebuilt EPUB still equals a clean build.
#[test]
fn generated_cover_is_cached_and_rebuilds_stay_identical() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("a.txt"), "第一段。\n").unwrap();
    std::fs::write(p.join("b.txt"), "第二段。\n").unwrap();
    std::fs::write(
        p.join("metadata.toml"),
        "[book]\ntitle = \"无封面\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n[[chapters]]\nglob = \"*.txt\"\n",
    )
    .unwrap();
    let out = p.join("out/book.epub");
    build(p, &out, &[]);
    let cached: Vec<_> = std::fs::read_dir(p.join("out/.epubforge-cache"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("cover-") && name.ends_with(".png")
        })
        .collect();
    assert_eq!(cached.len(), 1, "one cached cover");
    append(&p.join("b.txt"), "又一段。\n");
    build(p, &out, &[]);
    let clean = p.join("clean.epub");
    build(p, &clean, &["--no-cache"]);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&clean).unwrap());
    // A damaged cached cover is not used: the book is still the clean one.
    std::fs::write(cached[0].path(), b"\x89PNG\r\n\x1a\ntruncated").unwrap();
    append(&p.join("a.txt"), "再一段。\n");
    build(p, &out, &[]);
    build(p, &clean, &["--no-cache"]);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&clean).unwrap());
}

/// Sets every file under `dir` to have been modified an hour ago, so that a build's stamps
/// are trusted at once (files changed within two seconds of a build are always re-read).
fn age(dir: &Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for entry in walkdir(dir) {
        if let Ok(f) = std::fs::File::options().write(true).open(&entry) {
            f.set_modified(past).unwrap();
        }
    }
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn an_up_to_date_book_reports_the_warnings_and_encodings_of_its_build() {
    let book = sample();
    // A GBK chapter, so that an encoding other than UTF-8 is reported too.
    let (gbk, _, _) = encoding_rs::GBK.encode("第一段。\n第二段\n");
    std::fs::write(book.path().join("seeds/004_gbk.txt"), gbk).unwrap();
    // And two chapters with warnings.
    std::fs::write(book.path().join("seeds/005_empty.txt"), "").unwrap();
    std::fs::write(book.path().join("seeds/006_ctl.txt"), "一\n二\u{7}三\n").unwrap();
    age(book.path());
    let out = book.path().join("book.epub");
    let built = build(book.path(), &out, &["-v"]);
    assert!(built.stderr.contains("read as GBK"), "{}", built.stderr);
    let noop = build(book.path(), &out, &["-v"]);
    assert!(noop.stderr.contains("up to date"), "{}", noop.stderr);
    // The outline is printed by the build that converts the book: the no-op has none.
    let outline = |l: &str| {
        l.starts_with("outline: ")
            || (l.starts_with("  ") && [" chars)", ", empty)"].iter().any(|e| l.ends_with(e)))
    };
    assert!(built.stderr.lines().any(outline), "{}", built.stderr);
    let report = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| {
                !l.starts_with("built")
                    && !l.starts_with("up to date")
                    && !l.starts_with("timings:")
                    && !outline(l)
            })
            .map(str::to_string)
            .collect()
    };
    let lines = report(&built.stderr);
    assert!(
        lines.iter().any(|l| l.contains("005_empty.txt")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("006_ctl.txt:2")),
        "{lines:?}"
    );
    assert_eq!(report(&built.stderr), report(&noop.stderr));
}

/// The stage names of the `timings:` line of a verbose build's stderr.
fn stages(stderr: &str) -> Vec<String> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("timings: "))
        .unwrap_or_else(|| panic!("no timings line in {stderr}"));
    line.split(", ")
        .map(|stage| {
            let (name, time) = stage.rsplit_once(' ').unwrap().0.rsplit_once(' ').unwrap();
            assert!(time.parse::<f64>().is_ok(), "{stage}");
            name.to_string()
        })
        .collect()
}

#[test]
fn verbose_builds_time_their_stages() {
    let book = sample();
    age(book.path());
    let out = book.path().join("book.epub");
    let all = [
        "load project",
        "check cache",
        "read and convert",
        "lay out",
        "write",
        "commit",
    ];
    assert_eq!(stages(&build(book.path(), &out, &["-v"]).stderr), all);
    assert_eq!(
        stages(&build(book.path(), &out, &["-v"]).stderr),
        ["load project", "check cache"]
    );
    append(&first_chapter(book.path()), "又一段。\n");
    assert_eq!(stages(&build(book.path(), &out, &["-v"]).stderr), all);
    let uncached = build(book.path(), &out, &["-v", "--no-cache"]);
    assert_eq!(
        stages(&uncached.stderr),
        [
            "load project",
            "read and convert",
            "lay out",
            "write",
            "commit"
        ]
    );
    // Without -v, no timings.
    let quiet = build(book.path(), &out, &["--force"]);
    assert!(!quiet.stderr.contains("timings"), "{}", quiet.stderr);
}

#[test]
fn deleting_the_cache_is_always_safe_and_it_holds_no_copy_of_the_epub() {
    let book = sample();
    let out = book.path().join("book.epub");
    build(book.path(), &out, &[]);
    append(&first_chapter(book.path()), "\n一。\n");
    build(book.path(), &out, &[]);
    let epub_size = std::fs::metadata(&out).unwrap().len();
    let cache = book.path().join(".epubforge-cache");
    let cached: u64 = walkdir(&cache)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert!(
        cached < epub_size / 4,
        "{cached} bytes cached for a {epub_size}-byte EPUB"
    );
    std::fs::remove_dir_all(&cache).unwrap();
    append(&first_chapter(book.path()), "\n三。\n");
    build(book.path(), &out, &[]);
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(book.path()));
}

/// A chapter longer than `split-size` makes several documents. Regression: the streaming
/// writer gave up on it, the book was read and converted twice on every build, it was never
/// up to date, and its cache was deleted.
#[test]
fn a_chapter_split_for_size_is_converted_once_up_to_date_after_and_reused() {
    let book = sample();
    let long = book.path().join("seeds/004_long.txt");
    let line = "这是一段很长的正文，用来让这一章超过分割的大小。\n";
    std::fs::write(&long, line.repeat(1500)).unwrap();
    let meta = book.path().join("metadata.toml");
    append(&meta, "\n[layout]\nsplit-size = 20\n");
    age(book.path());
    let out = book.path().join("book.epub");
    let first = build(book.path(), &out, &["-v"]);
    let converted = stages(&first.stderr);
    assert_eq!(
        converted
            .iter()
            .filter(|s| *s == "read and convert")
            .count(),
        1,
        "{}",
        first.stderr
    );
    let zip = zip::ZipArchive::new(std::fs::File::open(&out).unwrap()).unwrap();
    assert!(
        zip.index_for_name("EPUB/text/chapter-0004-2.xhtml")
            .is_some()
    );
    let again = build(book.path(), &out, &[]);
    assert!(again.stderr.contains("up to date"), "{}", again.stderr);
    append(&first_chapter(book.path()), "\n新加的一段。\n");
    let edited = build(book.path(), &out, &[]);
    assert!(
        edited.stderr.contains("3 of 4 chapters reused"),
        "{}",
        edited.stderr
    );
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(book.path()));
}

/// A book built from one file split at its headings, with the last build's record: it used
/// to fall back to the in-memory writer and delete its cache on every build.
#[test]
fn a_book_split_at_headings_is_up_to_date_on_the_second_build() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("novel.txt"), "第一章 甲\n一。\n第二章 乙\n二。\n").unwrap();
    std::fs::write(p.join("after.txt"), "后记。\n").unwrap();
    std::fs::write(
        p.join("metadata.toml"),
        "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\
         [[chapters]]\nfile = \"novel.txt\"\nsplit = \"auto\"\n[[chapters]]\nfile = \"after.txt\"\n",
    )
    .unwrap();
    age(p);
    let out = p.join("book.epub");
    build(p, &out, &[]);
    assert!(build(p, &out, &[]).stderr.contains("up to date"));
    // A chapter more in the split file moves the last chapter's document: it is converted
    // again rather than copied under its old name.
    append(&p.join("novel.txt"), "第三章 丙\n三。\n");
    build(p, &out, &[]);
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(p));
}

/// Regression (issue 13, item 15): a build killed with SIGKILL left its temporary EPUB, as
/// large as the book, and no later build removed it. Files no running build holds go; a file
/// a build holds (locked) stays.
#[test]
fn stale_temporary_files_of_killed_builds_are_removed() {
    let book = sample();
    let out = book.path().join("out/book.epub");
    std::fs::create_dir_all(book.path().join("out/.epubforge-cache")).unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let stale = book.path().join("out/.epubforge-AbC123.epub.tmp");
    let held = book.path().join("out/.epubforge-XyZ789.epub.tmp");
    let cache_stale = book
        .path()
        .join("out/.epubforge-cache/.epubforge-QqQ111.tmp");
    let other = book.path().join("out/notes.epub.tmp");
    for p in [&stale, &held, &cache_stale, &other] {
        std::fs::write(p, vec![b'x'; 4096]).unwrap();
        std::fs::File::options()
            .write(true)
            .open(p)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }
    let holder = std::fs::File::options().write(true).open(&held).unwrap();
    holder.lock().unwrap();
    build(book.path(), &out, &[]);
    assert!(!stale.exists(), "the stale temporary EPUB is still there");
    assert!(!cache_stale.exists(), "the stale cache file is still there");
    assert!(held.exists(), "a file another build holds was deleted");
    assert!(other.exists(), "a file not ours was deleted");
    drop(holder);
}

/// Regression (issue 13, item 16): a chapter rewritten with the same size and its old
/// modification time put back stayed "up to date" with its old text.
#[test]
fn a_same_size_rewrite_with_the_old_mtime_is_rebuilt() {
    let book = sample();
    age(book.path());
    let out = book.path().join("book.epub");
    build(book.path(), &out, &[]);
    let chapter = first_chapter(book.path());
    let old = std::fs::metadata(&chapter).unwrap();
    let text = std::fs::read_to_string(&chapter).unwrap();
    let first = text.chars().next().unwrap();
    let swapped = text.replacen(first, if first == '甲' { "乙" } else { "甲" }, 1);
    assert_eq!(swapped.len(), text.len());
    std::fs::write(&chapter, &swapped).unwrap();
    let file = std::fs::File::options().write(true).open(&chapter).unwrap();
    file.set_modified(old.modified().unwrap()).unwrap();
    drop(file);
    let r = build(book.path(), &out, &[]);
    assert!(!r.stderr.contains("up to date"), "{}", r.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(book.path()));
}

/// Regression (issue 13, item 16): an EPUB damaged in place with its size and modification
/// time unchanged had its bad bytes copied into the next rebuild (a CRC error).
#[test]
fn a_previous_epub_damaged_in_place_is_not_copied_from() {
    use std::io::{Seek, Write};
    let book = sample();
    age(book.path());
    let out = book.path().join("book.epub");
    build(book.path(), &out, &[]);
    let old = std::fs::metadata(&out).unwrap();
    let mut file = std::fs::File::options().write(true).open(&out).unwrap();
    // Inside the second chapter's compressed data, whatever its offset: the middle third.
    file.seek(std::io::SeekFrom::Start(old.len() / 2)).unwrap();
    file.write_all(&[0x55; 64]).unwrap();
    file.set_modified(old.modified().unwrap()).unwrap();
    drop(file);
    assert_eq!(std::fs::metadata(&out).unwrap().len(), old.len());
    append(&first_chapter(book.path()), "\n新加的一段。\n");
    build(book.path(), &out, &[]);
    assert_eq!(std::fs::read(&out).unwrap(), clean_build(book.path()));
}

#[test]
fn edits_to_titles_metadata_and_bodies_rebuild_identically() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    small_book(p, "框架");
    let out = p.join("out/book.epub");
    let clean = p.join("clean.epub");
    build(p, &out, &[]);
    let meta = p.join("metadata.toml");
    type Edit<'a> = (&'a str, Box<dyn Fn() + 'a>, &'a str);
    let edits: [Edit; 5] = [
        (
            "a heading",
            Box::new(|| {
                let ch = p.join("text/02.txt");
                let text = std::fs::read_to_string(&ch).unwrap();
                std::fs::write(&ch, text.replacen("第2章", "第2章 改名", 1)).unwrap();
            }),
            "2 of 3 chapters reused",
        ),
        (
            "the metadata",
            Box::new(|| {
                let text = std::fs::read_to_string(&meta).unwrap();
                let text = text.replace("language", "description = \"简介\"\nlanguage");
                std::fs::write(&meta, text).unwrap();
            }),
            "built",
        ),
        (
            "the chapter list",
            Box::new(|| std::fs::write(p.join("text/04.txt"), "第4章\n\n新的一章。\n").unwrap()),
            "built",
        ),
        (
            "a body",
            Box::new(|| append(&p.join("text/03.txt"), "又一段。\n")),
            "3 of 4 chapters reused",
        ),
        (
            "a body again",
            Box::new(|| append(&p.join("text/01.txt"), "再一段。\n")),
            "3 of 4 chapters reused",
        ),
    ];
    for (what, edit, expect) in &edits {
        let before = std::fs::read(&out).unwrap();
        edit();
        let r = build(p, &out, &["-v"]);
        assert!(
            r.stderr.contains(expect),
            "after editing {what}: {}",
            r.stderr
        );
        build(p, &clean, &["--no-cache"]);
        let rebuilt = std::fs::read(&out).unwrap();
        assert!(
            rebuilt != before,
            "after editing {what}: the EPUB did not change"
        );
        assert!(
            rebuilt == std::fs::read(&clean).unwrap(),
            "after editing {what}: the rebuild differs from a clean build"
        );
    }
}

/// The same for books with parts, vertical text, a stylesheet, a table-of-contents page and a
/// colophon, in EPUB 3 and EPUB 2, without SOURCE_DATE_EPOCH (so every edit moves the modified
/// date, which the EPUB 3 package document alone shows): body edits reuse the frame, a part
/// title edit renders it again, and every rebuild equals a clean build.
#[test]
fn books_with_parts_and_every_layout_option_rebuild_identically() {
    for version in [3, 2] {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("ch")).unwrap();
        for i in 1..=4 {
            std::fs::write(
                p.join(format!("ch/{i}.txt")),
                format!("第{i}章 起\n\n正文{i}。\n"),
            )
            .unwrap();
        }
        std::fs::write(p.join("my.css"), "p { margin: 0 }\n").unwrap();
        let meta = |part: &str| {
            format!(
                "[book]\ntitle = \"分卷\"\nauthors = [\"某\"]\nlanguage = \"zh-TW\"\n\
                 [output]\nepub-version = {version}\n[style]\ncss = [\"my.css\"]\n\
                 [layout]\nwriting-mode = \"vertical-rl\"\ncolophon = true\ntoc-page = true\n\
                 [[parts]]\ntitle = \"{part}\"\n[[parts.chapters]]\nglob = \"ch/[12].txt\"\n\
                 [[parts]]\ntitle = \"第二卷\"\n[[parts.chapters]]\nglob = \"ch/[34].txt\"\n"
            )
        };
        std::fs::write(p.join("metadata.toml"), meta("第一卷")).unwrap();
        let run = |out: &Path, extra: &[&str]| {
            let r = Command::new(env!("CARGO_BIN_EXE_epubforge"))
                .env_remove("SOURCE_DATE_EPOCH")
                .arg("build")
                .arg(p)
                .arg("-o")
                .arg(out)
                .args(extra)
                .output()
                .unwrap();
            assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
            String::from_utf8_lossy(&r.stderr).into_owned()
        };
        let out = p.join("out/book.epub");
        let clean = p.join("clean.epub");
        run(&out, &[]);
        for step in 0..3 {
            // Past the next second, so that the modified date moves.
            std::thread::sleep(std::time::Duration::from_millis(1100));
            match step {
                1 => std::fs::write(p.join("metadata.toml"), meta("第一卷 改")).unwrap(),
                _ => append(&p.join(format!("ch/{}.txt", step + 1)), "又一段。\n"),
            }
            let stderr = run(&out, &["-v"]);
            if step != 1 {
                assert!(
                    stderr.contains("3 of 4 chapters reused"),
                    "EPUB {version}, step {step}: {stderr}"
                );
            }
            run(&clean, &["--no-cache"]);
            assert!(
                std::fs::read(&out).unwrap() == std::fs::read(&clean).unwrap(),
                "EPUB {version}, step {step}: the rebuild differs from a clean build"
            );
        }
    }
}

/// Waits (up to a minute) until a no-op build of `project` (with `extra` arguments) is decided
/// by the quick check, before metadata.toml is parsed: it is once nothing the build looked at
/// changed within the last two seconds (racy stamps are never trusted). Returns its stderr.
fn until_quick(project: &Path, extra: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"build", &project, &"-v"];
        args.extend_from_slice(extra);
        let r = epubforge(&args);
        assert!(r.ok, "{}", r.stderr);
        assert!(r.stderr.contains("up to date"), "{}", r.stderr);
        if r.stderr.contains("quick check") {
            return r.stderr;
        }
        assert!(std::time::Instant::now() < deadline, "{}", r.stderr);
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

/// The sample book with its chapters listed one by one (the quick check serves no glob).
fn listed_sample() -> tempfile::TempDir {
    let book = sample();
    let meta = book.path().join("metadata.toml");
    let text = std::fs::read_to_string(&meta).unwrap();
    let listed = "[[chapters]]\nfile = \"seeds/000_6761ebf9337845da.txt\"\n\n\
        [[chapters]]\nfile = \"seeds/001_c5c754fed1430e80.txt\"\n\n\
        [[chapters]]\nfile = \"seeds/003_8771c0c4f8f01cda.txt\"\n";
    std::fs::write(
        &meta,
        text.replace("[[chapters]]\nglob = \"seeds/*.txt\"\n", listed),
    )
    .unwrap();
    book
}

#[test]
fn a_quick_no_op_still_sees_every_change_that_matters() {
    let book = listed_sample();
    let p = book.path();
    let out = p.join("out/book.epub");
    build(p, &out, &[]);
    let quick = until_quick(p, &[&"-o", &out]);
    // It reports what the build reported.
    assert!(quick.contains("up to date"), "{quick}");
    let changes: [(&str, &dyn Fn()); 4] = [
        ("a chapter edited", &|| {
            append(&first_chapter(p), "新的一段。\n")
        }),
        ("a cleanup.toml beside the metadata", &|| {
            std::fs::write(
                p.join("cleanup.toml"),
                "[[cleanup]]\npattern = \"安西\"\nreplace = \"\"\n",
            )
            .unwrap()
        }),
        ("the metadata edited", &|| {
            append(&p.join("metadata.toml"), "\n# a comment\n")
        }),
        ("the EPUB replaced", &|| {
            std::fs::write(p.join("out/book.epub"), std::fs::read(&out).unwrap()).unwrap()
        }),
    ];
    for (what, change) in changes {
        change();
        let r = build(p, &out, &["-v"]);
        assert!(!r.stderr.contains("quick check"), "{what}: {}", r.stderr);
        until_quick(p, &[&"-o", &out]);
    }
    // Loaded with other options, the project is loaded again.
    let r = build(p, &out, &["-v", "--allow-outside-paths"]);
    assert!(!r.stderr.contains("quick check"), "{}", r.stderr);
    let r = build(p, &out, &["-v", "--strict"]);
    assert!(!r.stderr.contains("quick check"), "{}", r.stderr);
}

#[test]
fn the_first_no_op_after_an_edit_is_quick() {
    let book = listed_sample();
    let p = book.path();
    let out = p.join("out/book.epub");
    build(p, &out, &[]);
    // Until the new project's folders are old enough to trust, as a project's usually are.
    until_quick(p, &[&"-o", &out]);
    append(&first_chapter(p), "新的一段。\n");
    let edited = build(p, &out, &["-v"]);
    assert!(!edited.stderr.contains("up to date"), "{}", edited.stderr);
    // The edited chapter's stamp is too close to that build's start to trust: the quick check
    // reads that one file again instead of sending the no-op to the full check.
    let r = build(p, &out, &["-v"]);
    assert!(
        r.stderr.contains("up to date") && r.stderr.contains("quick check"),
        "{}",
        r.stderr
    );
    // Another edit is still seen.
    append(&first_chapter(p), "又一段。\n");
    let r = build(p, &out, &["-v"]);
    assert!(!r.stderr.contains("up to date"), "{}", r.stderr);
}

#[test]
fn a_quick_no_op_finds_the_default_output_and_its_new_cover() {
    let book = listed_sample();
    let p = book.path();
    let meta = p.join("metadata.toml");
    let text = std::fs::read_to_string(&meta).unwrap();
    std::fs::write(&meta, text.replace("cover = \"covers/cover.jpg\"\n", "")).unwrap();
    let cover = std::fs::read(p.join("covers/cover.jpg")).unwrap();
    std::fs::remove_dir_all(p.join("covers")).unwrap();
    let r = epubforge(&[&"build", &p]);
    assert!(r.ok, "{}", r.stderr);
    until_quick(p, &[]);
    // A cover put in covers/ is the book's cover: the book is built again, with it.
    std::fs::create_dir(p.join("covers")).unwrap();
    std::fs::write(p.join("covers/new.jpg"), &cover).unwrap();
    let r = epubforge(&[&"build", &p, &"-v"]);
    assert!(r.ok && !r.stderr.contains("up to date"), "{}", r.stderr);
    let epub = PathBuf::from(r.stdout.trim());
    let names = common::names(&epub);
    assert!(
        names
            .iter()
            .any(|n| n.contains("cover") && n.ends_with(".jpg")),
        "{names:?}"
    );
    until_quick(p, &[]);
}
