//! Command-line definitions (clap derive types only).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Build valid EPUB 3 books from chapter files and a metadata.toml.
#[derive(Debug, Parser)]
#[command(name = "epubforge", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command, builds the project in the current folder.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build one or more books (skipping those that are up to date).
    Build(BuildArgs),
    /// Build, then rebuild whenever a book's files change.
    Watch(WatchArgs),
}

/// Arguments of `epubforge build`.
#[derive(Debug, Args, Default)]
pub struct BuildArgs {
    /// Project folders (holding metadata.toml) or metadata .toml files [default: .].
    pub projects: Vec<PathBuf>,

    /// Also build every project found under DIR (folders holding a metadata.toml; build/,
    /// target/ and hidden folders are skipped).
    #[arg(long, value_name = "DIR")]
    pub all: Option<PathBuf>,

    /// Write the EPUB here (only with a single project).
    #[arg(short, long, value_name = "OUT.epub")]
    pub output: Option<PathBuf>,

    /// Build up to N books at once [default: one per core].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Rebuild everything, ignoring the build cache (a fresh cache is written).
    #[arg(short, long)]
    pub force: bool,

    /// Neither use nor write the build cache.
    #[arg(long)]
    pub no_cache: bool,

    /// Print only errors.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print how each chapter file was decoded.
    #[arg(short, long)]
    pub verbose: bool,
}

/// Arguments of `epubforge watch`.
#[derive(Debug, Args, Default)]
pub struct WatchArgs {
    /// Project folders (holding metadata.toml) or metadata .toml files [default: .].
    pub projects: Vec<PathBuf>,

    /// Write the EPUB here (only with a single project).
    #[arg(short, long, value_name = "OUT.epub")]
    pub output: Option<PathBuf>,

    /// Print only errors.
    #[arg(short, long)]
    pub quiet: bool,
}
