//! The integration tests, as one test binary (mdBook's `tests/testsuite` layout): each file
//! was once a binary of its own that linked the whole crate; as modules of one binary the
//! crate is linked once and the tests share one harness (`common`). Fixtures stay in
//! `tests/fixtures` and `tests/suites`; `cargo test --test testsuite NAME` runs a part.

mod common;

mod build;
mod cleanup;
mod conformance;
mod errors;
mod hostile;
mod incremental;
mod inputs;
mod japanese;
mod links;
mod lint;
mod looks;
mod mdbook;
mod pictures;
mod realtext;
mod robustness;
mod snapshots;
mod targets;
mod tools_cli;
mod watch;
