//! Watching the processes a test starts: waiting for a condition, and whether a process is
//! still running. Shared by the tests of signals and of EPUBCheck runs.

use std::time::{Duration, Instant};

/// Waits until `done` holds, failing the test with `what` after `limit` (a hang guard, not a
/// timing: the condition is looked at again every few milliseconds).
pub fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what} within {limit:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Whether process `pid` exists and has not ended: on Linux a zombie (ended, not yet waited
/// for by its parent) counts as ended; elsewhere `kill -0` cannot tell one apart.
#[cfg(unix)]
pub fn is_running(pid: &str) -> bool {
    if cfg!(target_os = "linux") {
        return std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z')
        });
    }
    std::process::Command::new("kill")
        .args(["-0", pid])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}
