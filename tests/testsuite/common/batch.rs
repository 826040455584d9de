//! EPUBCheck for many books in one JVM. A JVM start costs EPUBCheck about 10 s of CPU on a busy
//! two-core machine, and the suite checks dozens of books: one long-lived JVM
//! (`EpubcheckBatch.java`, beside this file) checks them one after another, each exactly as
//! `java -jar epubcheck.jar BOOK --json REPORT` would (the same entry point, a fresh checker per
//! book), and the report is read as the tests read every report ([`super::epubcheck`]). Tests running in parallel take
//! turns (a mutex per JVM; a second JVM starts while the first is busy); each waits for its own
//! answer, within a time limit.
//!
//! The batch JVM runs the Java file through the source-file launcher, which needs a JDK. When it
//! cannot start, or stops answering, the suite falls back to one JVM per book
//! ([`Epubcheck::run`]): slower, never a different verdict.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Mutex, OnceLock, PoisonError, TryLockError};
use std::time::Duration;

use super::epubcheck::{Epubcheck, Report, TIMEOUT, parse};

/// How long the JVM may take to compile the batch program and say it is ready.
const START_TIMEOUT: Duration = Duration::from_secs(300);

/// How long one book may take: four times the limit for one `check`, since a
/// conformance book of 3000 chapters on a loaded machine takes minutes, and a JVM that stops
/// answering is what this guards against (its books then go to JVMs of their own).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(4 * TIMEOUT.as_secs());

/// How many batch JVMs a test run may start: a second one starts only while the first is busy
/// (a conformance book takes minutes, and the small books of other tests need not wait).
const JVMS: usize = 2;

/// A batch JVM of this test run, once asked for.
enum Slot {
    /// Not started yet.
    Idle,
    /// Running.
    Up(Server),
    /// Could not start, or failed: books go to a JVM of their own.
    Down,
}

/// The batch JVMs of this test run.
static SLOTS: OnceLock<[Mutex<Slot>; JVMS]> = OnceLock::new();

/// EPUBCheck's verdict on `epub`, from a batch JVM when one runs, else from a JVM of its own.
pub fn check(checker: &Epubcheck, epub: &Path) -> Report {
    let slots = SLOTS.get_or_init(|| std::array::from_fn(|_| Mutex::new(Slot::Idle)));
    // A free JVM, else wait for the first (whoever holds it answers within its time limit).
    let mut slot = slots
        .iter()
        .find_map(|s| match s.try_lock() {
            Ok(free) => Some(free),
            Err(TryLockError::Poisoned(free)) => Some(free.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        })
        .unwrap_or_else(|| slots[0].lock().unwrap_or_else(PoisonError::into_inner));
    if matches!(*slot, Slot::Idle) {
        *slot = Server::start(checker).map_or(Slot::Down, Slot::Up);
    }
    if let Slot::Up(server) = &mut *slot {
        match server.check(epub) {
            Ok(Some(report)) => return report,
            // EPUBCheck failed on this book only: ask the command line, as before.
            Ok(None) => {}
            Err(why) => {
                eprintln!("note: an EPUBCheck batch JVM failed ({why}); one JVM per book now");
                server.stop();
                *slot = Slot::Down;
            }
        }
    }
    drop(slot);
    checker.run(epub)
}

/// The batch JVM: its stdin for requests, a channel of its answer lines (read by a thread, so
/// that a wait can time out), and a folder for the JSON reports.
struct Server {
    child: Child,
    requests: ChildStdin,
    answers: Receiver<String>,
    reports: tempfile::TempDir,
    asked: u64,
}

impl Server {
    /// Starts the JVM and waits for its `ready`; `None` (with a note) when it does not come.
    fn start(checker: &Epubcheck) -> Option<Server> {
        let source = super::repo().join("tests/testsuite/common/EpubcheckBatch.java");
        let mut child = Command::new(&checker.java)
            .arg("-XX:TieredStopAtLevel=1")
            .arg("-cp")
            .arg(&checker.jar)
            .arg(&source)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .ok()?;
        let requests = child.stdin.take()?;
        let stdout = child.stdout.take()?;
        let (send, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let ready = answers.recv_timeout(START_TIMEOUT);
        if ready.as_deref() != Ok("ready") {
            eprintln!("note: no EPUBCheck batch JVM (needs a JDK); one JVM per book");
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        let reports = tempfile::tempdir().ok()?;
        Some(Server {
            child,
            requests,
            answers,
            reports,
            asked: 0,
        })
    }

    /// Ends the JVM.
    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// One book: `Ok(Some)` with its report, `Ok(None)` when EPUBCheck threw on this book (or
    /// its path cannot travel on one line), `Err` when the JVM itself is gone or stuck.
    fn check(&mut self, epub: &Path) -> Result<Option<Report>, String> {
        self.asked += 1;
        let report = self.reports.path().join(format!("{}.json", self.asked));
        let (Some(book), Some(out)) = (epub.to_str(), report.to_str()) else {
            return Ok(None);
        };
        if [book, out].iter().any(|p| p.contains(['\t', '\n', '\r'])) {
            return Ok(None);
        }
        writeln!(self.requests, "{book}\t{out}")
            .and_then(|()| self.requests.flush())
            .map_err(|e| format!("cannot write to it: {e}"))?;
        let answer = match self.answers.recv_timeout(ANSWER_TIMEOUT) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => return Err(format!("no answer on {book}")),
            Err(RecvTimeoutError::Disconnected) => return Err("it exited".to_string()),
        };
        if !answer.starts_with("ok\t") {
            eprintln!("note: EPUBCheck batch on {book}: {answer}");
            return Ok(None);
        }
        // No report (EPUBCheck gave up on the file early): ask the command line, as before.
        let Ok(json) = std::fs::read(&report) else {
            return Ok(None);
        };
        let _ = std::fs::remove_file(&report);
        parse(&json).map(Some)
    }
}

/// A minimal EPUB 3 at `path`, with or without its title (EPUBCheck requires one).
fn tiny_epub(path: &Path, title: bool) {
    use zip::write::SimpleFileOptions;
    let title = if title { "<dc:title>T</dc:title>" } else { "" };
    let opf = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id" xml:lang="en"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:12345678-1234-5678-1234-567812345678</dc:identifier>{title}<dc:language>en</dc:language><meta property="dcterms:modified">2020-01-01T00:00:00Z</meta></metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/></manifest><spine><itemref idref="nav"/></spine></package>"#
    );
    let nav = r#"<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en" xml:lang="en"><head><title>T</title></head><body><nav epub:type="toc"><ol><li><a href="nav.xhtml">T</a></li></ol></nav></body></html>"#;
    let container = r#"<?xml version="1.0" encoding="UTF-8"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#;
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, text) in [
        ("mimetype", "application/epub+zip"),
        ("META-INF/container.xml", container),
        ("EPUB/package.opf", opf.as_str()),
        ("EPUB/nav.xhtml", nav),
    ] {
        zip.start_file(name, stored).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

/// The batch checks each book afresh: a broken book's errors are found, the same book
/// mended is clean after them, and broken again it reads as it did the first time, and as
/// EPUBCheck in a JVM of its own reads it.
#[test]
fn each_book_in_the_batch_is_checked_on_its_own() {
    let Some(checker) = super::epubcheck::installed() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (broken, mended) = (
        dir.path().join("broken.epub"),
        dir.path().join("mended.epub"),
    );
    tiny_epub(&broken, false);
    tiny_epub(&mended, true);
    let first = check(&checker, &broken);
    assert!(first.errors > 0, "{first:#?}");
    assert!(
        first.messages.iter().any(|m| m.message.contains("title")),
        "{first:#?}"
    );
    let clean = check(&checker, &mended);
    assert!(clean.is_clean(), "{clean:#?}");
    assert_eq!(check(&checker, &broken), first);
    // The fallback, a JVM of its own for the book, gives the same verdict.
    assert_eq!(checker.run(&broken), first);
}
