//! What reaches the book or the terminal, and what a signal leaves behind (issue 27): values
//! checked where they enter, every printed path and value escaped, a closed or full stdout
//! ended cleanly, and an interrupt that stops child processes and tells the truth.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::common::{Fixture, Run, epubforge};
use super::finishes_within;

const BOOK: &str = "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n";
const CHAPTER: &str = "[[chapters]]\nfile = \"1.txt\"\n";

/// Longer than any of these commands takes on a loaded machine; reached only by a hang.
const HANG: Duration = Duration::from_secs(60);

fn book(f: &Fixture, book_keys: &str) -> Run {
    f.write(
        "metadata.toml",
        format!("[book]\nlanguage = \"en\"\n{book_keys}\n{CHAPTER}"),
    );
    f.write("1.txt", "Some text of the first chapter.\n");
    let mut cmd = epubforge();
    cmd.arg("build")
        .arg(f.dir.path())
        .arg("-o")
        .arg(f.path("out.epub"));
    finishes_within(&mut cmd, HANG, "build")
}

// Issue 27, "What reaches the book": metadata made only of control characters gave empty
// `dc:title`, `dc:creator`… elements (EPUBCheck errors).
#[test]
fn metadata_made_of_control_characters_is_refused_naming_the_key_and_line() {
    let f = Fixture::empty();
    for (keys, key) in [
        ("title = \"\\u0001\"\nauthors = [\"A\"]", "`title`"),
        ("title = \"T\"\nauthors = [\"\\u0007\\u001b\"]", "`authors`"),
        (
            "title = \"T\"\nauthors = [\"A\"]\npublisher = \"\\u0002\"",
            "`publisher`",
        ),
        (
            "title = \"T\"\nauthors = [\"A\"]\ndescription = \"\\u007f\"",
            "`description`",
        ),
        (
            "title = \"T\"\nauthors = [\"A\"]\nsubjects = [\"\\u009b\"]",
            "`subjects`",
        ),
    ] {
        let _ = std::fs::remove_file(f.path("out.epub"));
        let r = book(&f, keys);
        assert_eq!(r.code, Some(1), "{keys}: {}", r.stderr);
        assert!(r.stderr.contains(key), "{keys}: {}", r.stderr);
        assert!(r.stderr.contains("metadata.toml:"), "{keys}: {}", r.stderr);
        assert!(r.stderr.contains("no text once"), "{keys}: {}", r.stderr);
        assert!(!f.path("out.epub").exists(), "{keys}");
    }
    // Control characters among text are taken out; the text stays.
    let r = book(&f, "title = \"A\\u001b[2JB\"\nauthors = [\"X\\u0007Y\"]");
    assert!(r.ok, "{}", r.stderr);
    let epub = epubforge::inspect::open(&f.path("out.epub")).unwrap();
    assert_eq!(epub.metadata.titles, ["A[2JB"]);
    assert_eq!(epub.metadata.creators[0].name, "XY");
}

// Issue 27: `identifier = "urn:uuid:not-a-uuid"` was written as it is (EPUBCheck OPF-085).
#[test]
fn an_identifier_invalid_in_its_scheme_is_refused_with_what_to_write() {
    let f = Fixture::empty();
    let base = "title = \"T\"\nauthors = [\"A\"]\nidentifier = ";
    for (id, says) in [
        ("urn:uuid:not-a-uuid", "not a valid urn:uuid"),
        ("urn:isbn:9780306406158", "ISBN-13 check digit"),
        ("urn:isbn:0-306-40615-3", "ISBN-10 check digit"),
        ("https://exa mple.com/b", "not a valid URL"),
    ] {
        let r = book(&f, &format!("{base}\"{id}\""));
        assert_eq!(r.code, Some(1), "{id}: {}", r.stderr);
        assert!(r.stderr.contains("metadata.toml:5:"), "{id}: {}", r.stderr);
        assert!(r.stderr.contains("`identifier`"), "{id}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{id}: {}", r.stderr);
        assert!(r.stderr.contains("hint:"), "{id}: {}", r.stderr);
    }
    for id in [
        "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e",
        "urn:isbn:9780306406157",
        "urn:isbn:080442957X",
        "https://example.com/books/1",
    ] {
        let r = book(&f, &format!("{base}\"{id}\""));
        assert!(r.ok, "{id}: {}", r.stderr);
    }
}

/// Control characters that must never reach the terminal raw.
fn raw_controls(s: &str) -> Vec<char> {
    s.chars().filter(|&c| c.is_control() && c != '\n').collect()
}

// Issue 27: control characters from file names and metadata were printed raw: a project could
// set the terminal's title, clear the screen or erase the warnings above.
#[cfg(unix)]
#[test]
fn file_names_and_values_print_escaped_in_every_command() {
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        format!("{BOOK}[[chapters]]\nglob = \"ch/*.txt\"\n"),
    );
    // A NUL in the text: a control-characters warning that names the file.
    f.write("ch/1\u{1b}]0;pwned\u{7}.txt", "One.\u{0} Two.\n");
    let odd = f
        .path("ch")
        .join(std::ffi::OsStr::from_bytes(b"2\n\x1b[2J\xff.txt"));
    std::fs::write(&odd, "Three.\u{0}\n").unwrap();
    let out = f.path("out\u{1b}[1A.epub");
    let run = |args: &[&std::ffi::OsStr]| {
        let mut cmd = epubforge();
        cmd.args(args);
        finishes_within(&mut cmd, HANG, "a command")
    };
    let dir = f.dir.path().as_os_str();
    let b = run(&["build".as_ref(), dir, "-o".as_ref(), out.as_os_str()]);
    assert!(b.ok, "{}", b.stderr);
    let c = run(&["check".as_ref(), dir, "--no-epubcheck".as_ref()]);
    for (what, text) in [
        ("build stderr", &b.stderr),
        ("build stdout", &b.stdout),
        ("check", &c.stderr),
    ] {
        assert_eq!(raw_controls(text), [], "{what}: {text:?}");
        assert!(text.contains("\\u{1b}"), "{what}: {text:?}");
    }
    assert!(
        b.stderr.contains("ch/1\\u{1b}]0;pwned\\u{7}.txt"),
        "{}",
        b.stderr
    );
    // A line break in a file name cannot fake a line of its own; bytes not UTF-8 show as such.
    assert!(
        b.stderr.contains("ch/2\\n\\u{1b}[2J\\xFF.txt"),
        "{}",
        b.stderr
    );
    assert!(b.stdout.contains("out\\u{1b}[1A.epub"), "{}", b.stdout);
    // JSON stays JSON, whatever the file names.
    let j = run(&[
        "check".as_ref(),
        dir,
        "--no-epubcheck".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).expect("valid JSON");
    assert!(
        v["findings"].as_array().is_some_and(|f| !f.is_empty()),
        "{}",
        j.stdout
    );
    // An error naming a file: a chapter that is not there.
    f.write(
        "metadata.toml",
        format!("{BOOK}[[chapters]]\nfile = \"gone\\u001b]2;x\\u0007.txt\"\n"),
    );
    let e = run(&[
        "build".as_ref(),
        dir,
        "-o".as_ref(),
        f.path("e.epub").as_os_str(),
    ]);
    assert!(!e.ok);
    assert_eq!(raw_controls(&e.stderr), [], "{:?}", e.stderr);
    assert!(
        e.stderr.contains("gone\\u{1b}]2;x\\u{7}.txt"),
        "{}",
        e.stderr
    );
}

/// Runs `args`, its stdout a pipe whose reading end is already closed, as `| head -0` would
/// leave it.
fn into_closed_pipe(args: &[&std::ffi::OsStr]) -> Run {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let logs = tempfile::tempdir().unwrap();
    let err = logs.path().join("err");
    let status = epubforge()
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(std::fs::File::create(&err).unwrap())
        .status()
        .unwrap();
    Run {
        ok: status.success(),
        code: status.code(),
        stdout: String::new(),
        stderr: std::fs::read_to_string(&err).unwrap(),
    }
}

/// Runs `args` with stdout on a full disk.
fn into_full_disk(args: &[&std::ffi::OsStr]) -> Run {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut cmd = epubforge();
    cmd.args(args);
    let logs = tempfile::tempdir().unwrap();
    let err = logs.path().join("err");
    let status = cmd
        .stdin(Stdio::null())
        .stdout(full)
        .stderr(std::fs::File::create(&err).unwrap())
        .status()
        .unwrap();
    Run {
        ok: status.success(),
        code: status.code(),
        stdout: String::new(),
        stderr: std::fs::read_to_string(&err).unwrap(),
    }
}

// Issue 27: `inspect BOOK | head`, or stdout on a full disk: a panic (exit 101).
#[cfg(target_os = "linux")]
#[test]
fn a_closed_pipe_ends_quietly_and_a_full_disk_is_one_line_in_every_command() {
    let f = Fixture::empty();
    f.write("metadata.toml", format!("{BOOK}{CHAPTER}"));
    f.write("1.txt", "Text.\n");
    let epub = f.path("book.epub");
    let built = finishes_within(
        epubforge()
            .arg("build")
            .arg(f.dir.path())
            .arg("-o")
            .arg(&epub),
        HANG,
        "build",
    );
    assert!(built.ok, "{}", built.stderr);
    let dir = f.dir.path().as_os_str();
    let other = f.path("o.epub");
    let s = std::ffi::OsStr::new;
    // Each command, and the status it fails with (guide/src/commands.md, "Exit status").
    let commands: Vec<(Vec<&std::ffi::OsStr>, i32)> = vec![
        (vec![s("inspect"), epub.as_os_str()], 2),
        (vec![s("man")], 2),
        (vec![s("completions"), s("bash")], 2),
        (
            vec![
                s("check"),
                dir,
                s("--format"),
                s("json"),
                s("--no-epubcheck"),
            ],
            2,
        ),
        (
            vec![s("build"), dir, s("--force"), s("-o"), other.as_os_str()],
            1,
        ),
        (vec![s("build"), dir, s("-o"), s("-")], 1),
    ];
    for (args, failure) in &commands {
        let r = into_closed_pipe(args);
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
        assert_ne!(r.code, Some(101), "{args:?}: {}", r.stderr);
        assert!(
            !r.stderr.contains("cannot write to standard output"),
            "{args:?}: a closed pipe is not an error: {}",
            r.stderr
        );
        let r = into_full_disk(args);
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
        assert_eq!(r.code, Some(*failure), "{args:?}: {}", r.stderr);
        let said: Vec<&str> = (r.stderr.lines())
            .filter(|l| l.contains("cannot write to standard output"))
            .collect();
        assert_eq!(said.len(), 1, "{args:?}: {}", r.stderr);
        assert!(said[0].contains("No space left"), "{args:?}: {}", r.stderr);
    }
}

/// Waits until `ready` holds, failing the test if the build ends first or after `HANG`.
fn wait_until(what: &str, child: &mut Child, mut ready: impl FnMut() -> bool) {
    super::process::wait_until(HANG, what, || {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the build ended ({status}) before {what}");
        }
        ready()
    });
}

fn send(signal: &str, child: &Child) {
    let ok = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

fn partial_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".partial-"))
        .collect()
}

// Issue 27: SIGTERM during `--target azw3`: calibre's ebook-convert kept running, its
// `*.partial-PID.azw3` stayed for good, and the message said "no EPUB was changed".
#[cfg(target_os = "linux")]
#[test]
fn sigterm_during_azw3_stops_ebook_convert_removes_its_partial_file_and_says_what_changed() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::empty();
    f.write("metadata.toml", format!("{BOOK}{CHAPTER}"));
    f.write("1.txt", "Text.\n");
    // A stand-in for calibre: writes part of its output, says who it is, then works forever.
    let tool = f.write(
        "ebook-convert",
        format!(
            "#!/bin/sh\necho partial > \"$2\"\necho $$ > '{}'\nexec sleep 120\n",
            f.path("tool.pid").display()
        ),
    );
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir(f.path("out")).unwrap();
    let mut child = epubforge()
        .env("EBOOK_CONVERT", &tool)
        .args(["build", "--target", "azw3", "-o"])
        .arg(f.path("out/book.azw3"))
        .arg(f.dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = || std::fs::read_to_string(f.path("tool.pid")).unwrap_or_default();
    wait_until("ebook-convert started", &mut child, || {
        !pid().trim().is_empty() && !partial_files(&f.path("out")).is_empty()
    });
    let pid = pid().trim().to_string();
    send("-TERM", &child);
    let out = child.wait_with_output().unwrap();
    let stopped = (0..500).find(|_| {
        let gone = !super::process::is_running(&pid);
        if !gone {
            std::thread::sleep(Duration::from_millis(10));
        }
        gone
    });
    if stopped.is_none() {
        let _ = Command::new("kill").arg(&pid).status();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stopped.is_some(), "ebook-convert kept running: {stderr}");
    assert_eq!(partial_files(&f.path("out")), Vec::<PathBuf>::new());
    // The Kindle EPUB was written before the conversion: the message says so.
    assert!(f.path("out/book.epub").is_file());
    assert!(!stderr.contains("no EPUB was changed"), "{stderr}");
    assert!(stderr.contains("book.epub"), "{stderr}");
}

// Issue 27: SIGTERM during `--all`: "interrupted; no EPUB was changed" after several books
// were already replaced. Whatever moment the signal lands on, the message must match what is
// on disk: each book's EPUB is listed as replaced exactly when it was.
#[cfg(unix)]
#[test]
fn sigterm_during_all_says_which_epubs_were_replaced_and_which_not() {
    let root = tempfile::tempdir().unwrap();
    let names = ["a", "b", "c"];
    for name in names {
        let dir = root.path().join(name);
        std::fs::create_dir_all(dir.join("build")).unwrap();
        let meta = format!(
            "[book]\ntitle = \"{name}\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nglob = \"ch/*.txt\"\n"
        );
        std::fs::write(dir.join("metadata.toml"), meta).unwrap();
        std::fs::write(dir.join(format!("build/{name}.epub")), b"previous book").unwrap();
        std::fs::create_dir(dir.join("ch")).unwrap();
        // The last book is big enough to be under way when the signal comes.
        let (chapters, words) = if name == "c" { (30, 20_000) } else { (1, 10) };
        for i in 0..chapters {
            let text = format!("w{i} ").repeat(words);
            std::fs::write(dir.join(format!("ch/{i:03}.txt")), text).unwrap();
        }
    }
    let epub = |name: &str| root.path().join(name).join(format!("build/{name}.epub"));
    let replaced = |name: &str| std::fs::read(epub(name)).is_ok_and(|b| b != b"previous book");
    let mut child = epubforge()
        .args(["build", "-j", "1", "--all"])
        .arg(root.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("two books were replaced", &mut child, || {
        replaced("a") && replaced("b")
    });
    send("-TERM", &child);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let message = &stderr[stderr.find("interrupted").expect("the interrupted message")..];
    for name in names {
        let shown = epub(name).display().to_string();
        let listed = message
            .lines()
            .any(|l| l.contains("replaced") && l.contains(&shown));
        assert_eq!(listed, replaced(name), "{name}: {message}");
        if !replaced(name) {
            let project = root.path().join(name).display().to_string();
            assert!(
                message.lines().any(|l| l.contains("not built")
                    && l.ends_with(&format!("{project} (its EPUB was left as it was)"))),
                "{name}: {message}"
            );
        }
    }
}

/// A small valid EPUB whose title is `title` (XML text, character references allowed).
fn epub_titled(path: &Path, title: &str) {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut put = |name: &str, data: &str| {
        zip.start_file(name, stored).unwrap();
        zip.write_all(data.as_bytes()).unwrap();
    };
    put("mimetype", "application/epub+zip");
    put(
        "META-INF/container.xml",
        r#"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#,
    );
    put(
        "EPUB/package.opf",
        &format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:12345678-1234-5678-1234-567812345678</dc:identifier><dc:title>{title}</dc:title><dc:language>en</dc:language><meta property="dcterms:modified">2024-01-01T00:00:00Z</meta></metadata>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/></manifest>
<spine><itemref idref="nav"/></spine>
</package>"#
        ),
    );
    put(
        "EPUB/nav.xhtml",
        &format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en" xml:lang="en"><head><title>C</title></head><body><nav epub:type="toc" id="toc"><ol><li><a href="nav.xhtml">{title}</a></li></ol></nav></body></html>"#
        ),
    );
    zip.finish().unwrap();
}

// Issue 27: what an EPUB from a stranger says reached the terminal raw through `inspect`.
#[test]
fn inspect_escapes_what_the_epub_says() {
    let dir = tempfile::tempdir().unwrap();
    let epub = dir.path().join("b.epub");
    // XML 1.0 allows the C1 controls: an 8-bit OSC ... ST sets a terminal's title, an 8-bit
    // CSI clears its screen.
    epub_titled(&epub, "Real&#x9d;0;pwned&#x9c;&#x9b;2J");
    let r = finishes_within(epubforge().arg("inspect").arg(&epub), HANG, "inspect");
    assert!(r.ok, "{}", r.stderr);
    assert_eq!(raw_controls(&r.stdout), [], "{:?}", r.stdout);
    assert!(
        r.stdout.contains("Real\\u{9d}0;pwned\\u{9c}\\u{9b}2J"),
        "{}",
        r.stdout
    );
}

// Issue 27: `init` took the title from a folder name made of control characters as it was,
// and printed paths raw.
#[test]
fn init_cleans_what_it_imports_and_prints_escaped() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("book\u{1b}]0;pwned\u{7}");
    std::fs::create_dir_all(dir.join("ch")).unwrap();
    std::fs::write(dir.join("ch/1\u{1b}[2J.txt"), "第一章 开始\n\n正文。\n").unwrap();
    let init = finishes_within(epubforge().arg("init").arg(&dir), HANG, "init");
    assert!(init.ok, "{}", init.stderr);
    assert_eq!(raw_controls(&init.stderr), [], "{:?}", init.stderr);
    assert_eq!(raw_controls(&init.stdout), [], "{:?}", init.stdout);
    let meta = std::fs::read_to_string(dir.join("metadata.toml")).unwrap();
    assert!(meta.contains("title = \"book]0;pwned\""), "{meta}");
    let build = finishes_within(epubforge().arg("build").arg(&dir), HANG, "build");
    assert!(build.ok, "{}", build.stderr);
    assert_eq!(raw_controls(&build.stderr), [], "{:?}", build.stderr);
    assert_eq!(raw_controls(&build.stdout), [], "{:?}", build.stdout);
}
