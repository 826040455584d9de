//! `epubforge watch` as a child process: it rebuilds once after an edit and then settles (no
//! rebuild without an edit, however long it is left alone), survives a broken metadata.toml
//! without losing the last good EPUB (and says so once), and recovers when it is fixed.
//!
//! The test waits for the lines watch prints, never for the EPUB alone: the EPUB is replaced
//! before the status line is printed, and a test that looked at the file first raced the log.

use crate::common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Longer than anything here takes on a loaded machine; reached only when watch is stuck.
const WAIT: Duration = Duration::from_secs(60);

/// How long watch is left alone to show it has settled: many times its debounce. A loop of
/// rebuilds shows within it; a machine too slow to show one only makes the test pass.
const SETTLE: Duration = Duration::from_secs(3);

/// Kills the child even when an assertion fails.
struct Watcher(Child);

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Polls `check` until it holds or `WAIT` passes.
fn wait_for(what: &str, log: &Path, mut check: impl FnMut(&str) -> bool) {
    let start = Instant::now();
    while start.elapsed() < WAIT {
        if check(&std::fs::read_to_string(log).unwrap_or_default()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "timed out waiting for {what}; watch printed:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// The lines of the log that start with `prefix`.
fn count(log: &str, prefix: &str) -> usize {
    log.lines().filter(|l| l.starts_with(prefix)).count()
}

/// One status line per build: built, up to date or failed.
fn builds(log: &str) -> usize {
    count(log, "built ") + count(log, "up to date ") + count(log, "failed ")
}

/// Waits for `changed:` number `n`, and for the status line of the build it started.
fn wait_for_rebuild(what: &str, log: &Path, n: usize) {
    wait_for(what, log, |text| {
        count(text, "changed:") >= n && builds(text) > n
    });
}

/// Leaves watch alone for [`SETTLE`] and checks it printed nothing more.
fn assert_settled(log: &Path) {
    let before = std::fs::read_to_string(log).unwrap();
    std::thread::sleep(SETTLE);
    let after = std::fs::read_to_string(log).unwrap();
    assert_eq!(before, after, "watch went on without an edit");
}

#[test]
fn watch_rebuilds_once_per_edit_settles_survives_a_broken_metadata_file_and_recovers() {
    // The log lives outside the watched book, or writing it would be a change in the book.
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

    wait_for("the first build", &log, |text| builds(text) == 1);
    assert!(epub.is_file());
    let first = std::fs::read(&epub).unwrap();
    // The first build read every input: none of those reads is a change.
    assert_settled(&log);

    let chapter = book.join("seeds/003_8771c0c4f8f01cda.txt");
    let mut text = std::fs::read_to_string(&chapter).unwrap();
    text.push_str("\n监视模式加的一段。\n");
    std::fs::write(&chapter, text).unwrap();
    wait_for_rebuild("a rebuild after the edit", &log, 1);
    let second = std::fs::read(&epub).unwrap();
    assert_ne!(first, second);
    let printed = std::fs::read_to_string(&log).unwrap();
    assert!(printed.contains("changed: ") && printed.contains("003_8771c0c4f8f01cda.txt"));
    assert_settled(&log);
    let printed = std::fs::read_to_string(&log).unwrap();
    assert_eq!((count(&printed, "changed:"), builds(&printed)), (1, 2));

    std::fs::write(book.join("metadata.toml"), "[book\ntitle = ").unwrap();
    // The status line comes first, the problem and what watch does next after it.
    wait_for("the error of the broken metadata", &log, |text| {
        count(text, "changed:") >= 2
            && builds(text) > 2
            && text.contains("keeping the last good EPUB")
    });
    assert_settled(&log);
    let printed = std::fs::read_to_string(&log).unwrap();
    assert_eq!(count(&common::flat(&printed), "error:"), 1, "{printed}");
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
    wait_for_rebuild("a rebuild after the fix", &log, 3);
    let fixed = std::fs::read(&epub).unwrap();
    assert!(fixed != second && fixed != first);
    let zip = zip::ZipArchive::new(std::io::Cursor::new(fixed)).unwrap();
    assert!(zip.index_for_name("EPUB/package.opf").is_some());
    assert_settled(&log);
}
