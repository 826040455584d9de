//! Hostile plain text for the heading split: every pass over the headings must be linear.

use std::time::Duration;

use crate::common::{Fixture, epubforge};
use crate::finishes_within;

/// Issue 27: `split = "auto"` on a file where every line is a volume heading was quadratic
/// (each volume looked for itself again through all the later ones: 100 000 lines took 20 s
/// in a release build, minutes in a debug one). `init` splits such a file to decide whether
/// to write `split`; it must take well under the limit, and find the volumes as chapters.
#[test]
fn a_hundred_thousand_volume_headings_split_in_linear_time() {
    let f = Fixture::empty();
    let text: String = (1..=100_000).map(|k| format!("第{k}卷\n")).collect();
    f.write("volumes.txt", text);
    let run = finishes_within(
        epubforge().arg("init").arg(f.dir.path()),
        Duration::from_secs(120),
        "init of 100 000 volume headings",
    );
    assert!(run.ok, "{}", run.stderr);
    let metadata = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    assert!(metadata.contains("split = \"auto\""), "{metadata}");
}
