//! `epubforge watch` as a child process: it rebuilds after an edit, survives a broken
//! metadata.toml without losing the last good EPUB, and recovers when it is fixed.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(20);

/// Kills the child even when an assertion fails.
struct Watcher(Child);

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls `check` until it holds or `WAIT` passes.
fn wait_for(what: &str, log: &Path, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while start.elapsed() < WAIT {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "timed out waiting for {what}; watch printed:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

#[test]
fn watch_rebuilds_on_edit_survives_a_broken_metadata_file_and_recovers() {
    // The log lives outside the watched book, or writing it would trigger rebuilds.
    let dir = tempfile::tempdir().unwrap();
    let fixture = common::Fixture::sample();
    let book = fixture.dir.path().to_path_buf();
    let metadata = std::fs::read_to_string(book.join("metadata.toml")).unwrap();
    let epub = book.join("build/安西烽火.epub");
    let log = dir.path().join("watch.log");

    let child = Command::new(env!("CARGO_BIN_EXE_epubforge"))
        .arg("watch")
        .arg(&book)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
        .spawn()
        .unwrap();
    let _watcher = Watcher(child);
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();

    wait_for("the first build", &log, || {
        epub.is_file() && read_log().contains("built")
    });
    let first = std::fs::read(&epub).unwrap();

    let chapter = book.join("seeds/003_8771c0c4f8f01cda.txt");
    let mut text = std::fs::read_to_string(&chapter).unwrap();
    text.push_str("\n监视模式加的一段。\n");
    std::fs::write(&chapter, text).unwrap();
    wait_for("a rebuild after the edit", &log, || {
        std::fs::read(&epub).is_ok_and(|b| b != first)
    });
    let second = std::fs::read(&epub).unwrap();
    assert!(read_log().contains("changed:"), "{}", read_log());

    std::fs::write(book.join("metadata.toml"), "[book\ntitle = ").unwrap();
    wait_for("the error of the broken metadata", &log, || {
        read_log().contains("error:")
    });
    assert_eq!(
        std::fs::read(&epub).unwrap(),
        second,
        "the last good EPUB changed"
    );

    std::fs::write(
        book.join("metadata.toml"),
        metadata.replace("用作 epubforge 的示例书", "修好了"),
    )
    .unwrap();
    wait_for("a rebuild after the fix", &log, || {
        std::fs::read(&epub).is_ok_and(|b| b != second && b != first)
    });
    let fixed = std::fs::read(&epub).unwrap();
    let zip = zip::ZipArchive::new(std::io::Cursor::new(fixed)).unwrap();
    assert!(zip.index_for_name("EPUB/package.opf").is_some());
}
