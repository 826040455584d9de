//! Hostile and unlucky projects (issue: nothing gets out, nothing hangs): each test pins one
//! hole a project from a stranger could open, and fails if it opens again. A build must end in
//! a valid EPUB or a clear error naming the file: never a panic, an abort, a hang, unbounded
//! memory, or a read or write outside the project folder.

#[path = "../common/mod.rs"]
mod common;

mod boundary;
mod budgets;
mod markup;
mod media;
mod paths;
mod sealed;
mod split;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::Run;

/// Runs `cmd` to its end, killing it and failing the test if it is still running after
/// `limit`. The limit guards against a hang: many times what the fixed code needs even on a
/// loaded machine, and reached only by the code it guards against. Output goes to files, so a
/// chatty child never blocks on a full pipe, and is read lossily (`-o -` writes a zip).
fn finishes_within(cmd: &mut Command, limit: Duration, what: &str) -> Run {
    let logs = tempfile::tempdir().unwrap();
    let (out, err) = (logs.path().join("out"), logs.path().join("err"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{what} was still running after {limit:?} (a hang); stderr so far:\n{}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let lossy =
        |p: &std::path::Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    Run {
        ok: status.success(),
        code: status.code(),
        stdout: lossy(&out),
        stderr: lossy(&err),
    }
}
