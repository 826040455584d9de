//! One module per subcommand: turn parsed arguments into library calls and print the outcome.
//! Only this layer prints; it returns the process exit code.

pub mod azw3;
pub mod build;
pub mod check;
pub mod completions;
pub mod draft;
pub mod fix;
pub mod init;
pub mod inspect;
pub mod man;
pub mod term;
pub mod watch;
