//! The `epubforge` binary. The command line lives in the library (`src/cli.rs` for the
//! arguments, `src/cmd/` for each command's glue, behind the default `cli` feature), so that
//! the library's own parts need not be public for it.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    epubforge::run_cli()
}
