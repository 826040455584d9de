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
    /// Build one or more books.
    Build(BuildArgs),
}

/// Arguments of `epubforge build`.
#[derive(Debug, Args, Default)]
pub struct BuildArgs {
    /// Project folders (holding metadata.toml) or metadata .toml files.
    #[arg(default_value = ".")]
    pub projects: Vec<PathBuf>,

    /// Write the EPUB here (only with a single project).
    #[arg(short, long, value_name = "OUT.epub")]
    pub output: Option<PathBuf>,

    /// Print only errors.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print how each chapter file was decoded.
    #[arg(short, long)]
    pub verbose: bool,
}
