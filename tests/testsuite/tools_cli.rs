//! The author tools through the real binary: init, check, inspect, diagnostics, completions, man.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Fixture, assert_valid, epubforge, run};

fn sample_seeds() -> Fixture {
    let f = Fixture::empty();
    for entry in std::fs::read_dir(common::repo().join("seeds")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "txt") {
            std::fs::copy(&p, f.path(p.file_name().unwrap().to_str().unwrap())).unwrap();
        }
    }
    f
}

#[test]
fn init_on_sample_seeds_builds_a_valid_book_and_refuses_a_second_time() {
    let f = sample_seeds();
    let r = run(epubforge().arg("init").arg(f.dir.path()));
    assert!(r.ok, "{}", r.stderr);
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    assert!(meta.contains("language = \"zh-CN\""), "{meta}");
    let files: Vec<&str> = meta.lines().filter(|l| l.starts_with("file = ")).collect();
    assert_eq!(
        files,
        [
            "file = \"000_6761ebf9337845da.txt\"",
            "file = \"001_c5c754fed1430e80.txt\"",
            "file = \"003_8771c0c4f8f01cda.txt\""
        ]
    );
    let b = f.build(&[]);
    assert!(b.ok, "{}", b.stderr);
    assert_valid(&f.path("out.epub"));

    let again = run(epubforge().arg("init").arg(f.dir.path()));
    assert_eq!(again.code, Some(2));
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(f.path("metadata.toml")).unwrap(),
        meta
    );
    assert!(run(epubforge().arg("init").arg("--force").arg(f.dir.path())).ok);
}

#[test]
fn check_on_sample_reports_missing_002_and_exit_codes_follow_strict() {
    let f = Fixture::sample();
    let r = run(epubforge().arg("check").arg(f.dir.path()));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr.contains("from 001")
            && r.stderr.contains("to 003")
            && r.stderr.contains("002 is missing"),
        "{}",
        r.stderr
    );
    let strict = run(epubforge().args(["check", "--strict"]).arg(f.dir.path()));
    assert_eq!(strict.code, Some(1));
    let json = run(epubforge()
        .args(["check", "--format", "json"])
        .arg(f.dir.path()));
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["errors"], 0);
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "numbering-gap")
    );
}

#[test]
fn check_errors_exit_2_and_verbose_shows_stage_times() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"1.txt\"\n",
    );
    // A byte that is not UTF-8 in a text that is: an error of the chapter, found after the
    // load (an invalid ISBN is refused by the load itself).
    let mut bytes = "好的一行\n".repeat(200).into_bytes();
    bytes.extend_from_slice(b"\xff\xfe byte\n");
    f.write("1.txt", bytes);
    let r = run(epubforge().args(["check", "-v"]).arg(f.dir.path()));
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("error[encoding]"), "{}", r.stderr);
    assert!(
        r.stderr.contains("read and analyse chapters:"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains('\u{1b}'), "colour with NO_COLOR set");
}

#[test]
fn typo_in_metadata_shows_location_line_caret_and_suggestion() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"T\"\nautors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"1.txt\"\n",
    );
    f.write("1.txt", "text\n");
    for cmd in ["build", "check"] {
        let r = run(epubforge().arg(cmd).arg(f.dir.path()));
        assert!(!r.ok);
        assert!(
            r.stderr.contains("metadata.toml:3:1"),
            "{cmd}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("3 | autors = [\"A\"]"),
            "{cmd}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("| ^"), "{cmd}: {}", r.stderr);
        assert!(
            r.stderr.contains("did you mean `authors`?"),
            "{cmd}: {}",
            r.stderr
        );
    }
}

#[test]
fn chapter_path_to_etc_passwd_is_refused() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"../../etc/passwd\"\n",
    );
    for cmd in ["build", "check"] {
        let r = run(epubforge().arg(cmd).arg(f.dir.path()));
        assert!(!r.ok, "{cmd} accepted ../../etc/passwd");
        assert!(r.stderr.contains("metadata.toml:6:8"), "{}", r.stderr);
        assert!(
            r.stderr
                .contains("`file` = \"../../etc/passwd\" points outside the project folder"),
            "{}",
            r.stderr
        );
    }
    assert!(!f.path("out.epub").exists());
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `check` and `inspect` of a foreign EPUB. `check` runs EPUBCheck (a JVM of its own, tens of
/// seconds on a busy machine) only where `epubcheck` says: once in the suite is enough to show
/// that a foreign book goes through it; the other books show our own reading of them.
fn check_and_inspect(epub: &Path, toc_titles: &[&str], epubcheck: bool) {
    let mut check = epubforge();
    check.arg("check");
    if !epubcheck {
        check.arg("--no-epubcheck");
    }
    let c = run(check.arg(epub));
    assert!(matches!(c.code, Some(0..=2)), "{}", c.stderr);
    assert!(
        c.stderr.contains("error(s)") || c.stderr.contains("no problems"),
        "{}",
        c.stderr
    );
    let i = run(epubforge().arg("inspect").arg(epub));
    assert!(i.ok, "{}", i.stderr);
    for t in toc_titles {
        assert!(i.stdout.contains(t), "{t} not in\n{}", i.stdout);
    }
}

#[test]
fn check_and_inspect_read_pandoc_epub3_and_epub2() {
    if !have("pandoc") {
        eprintln!("note: pandoc not installed; skipped");
        return;
    }
    let f = Fixture::empty();
    f.write(
        "in.md",
        "# Part One\n\n## Chapter 1\n\nHello.\n\n## Chapter 2\n\nWorld.\n",
    );
    for (to, name) in [("epub3", "p3.epub"), ("epub2", "p2.epub")] {
        let ok = Command::new("pandoc")
            .args([
                "-t",
                to,
                "--metadata",
                "title=T",
                "--metadata",
                "lang=en",
                "-o",
            ])
            .arg(f.path(name))
            .arg(f.path("in.md"))
            .status()
            .unwrap()
            .success();
        assert!(ok);
        check_and_inspect(
            &f.path(name),
            &["Part One", "    Chapter 1", "    Chapter 2"],
            to == "epub3",
        );
    }
}

#[test]
fn check_and_inspect_read_calibre_epub() {
    if !have("ebook-convert") {
        eprintln!("note: calibre not installed; skipped");
        return;
    }
    let f = Fixture::empty();
    f.write(
        "in.txt",
        "Chapter 1\n\nHello there.\n\nChapter 2\n\nWorld.\n",
    );
    let ok = Command::new("ebook-convert")
        .arg(f.path("in.txt"))
        .arg(f.path("c.epub"))
        .env("QTWEBENGINE_DISABLE_SANDBOX", "1")
        .env("QT_QPA_PLATFORM", "offscreen")
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok);
    check_and_inspect(&f.path("c.epub"), &["Table of contents"], false);
}

#[test]
fn completions_and_man_page_are_generated_from_the_cli() {
    let bash = run(epubforge().args(["completions", "bash"]));
    assert!(bash.ok);
    assert!(bash.stdout.contains("epubforge") && bash.stdout.contains("inspect"));
    let man = run(epubforge().arg("man"));
    assert!(man.ok);
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH"),
        "{}",
        &man.stdout[..200.min(man.stdout.len())]
    );
    assert!(man.stdout.contains("epubforge"));
}
