//! Command-line definitions (clap derive types only).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Build valid EPUB 3 books from chapter files and a metadata.toml.
///
/// `epubforge 小说.txt` builds the book in one go: the encoding, title, author, language,
/// chapters, volumes and a cover beside the file are found as `epubforge init` finds them, the
/// EPUB is written beside the file (`小说.epub`), and `--save` keeps the settings in a
/// metadata.toml to edit. The same for a `.md` or `.html` file, or a folder of chapter files
/// without a metadata.toml (its EPUB goes inside it, named after it). Without a path, builds
/// the project in the current folder. A subcommand's name always means the subcommand: for a
/// file named `build`, write `./build`.
#[derive(Debug, Parser)]
#[command(
    name = "epubforge",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do; without a command, builds the paths given (see `build`), else the project
    /// in the current folder.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// `epubforge [PATHS]… [OPTIONS]`: the same as `epubforge build`.
    #[command(flatten)]
    pub build: BuildArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build one or more books (skipping those that are up to date).
    Build(BuildArgs),
    /// Build, then rebuild whenever a book's files change.
    Watch(WatchArgs),
    /// Write a metadata.toml for a folder of chapter files.
    Init(InitArgs),
    /// Review a project (or an EPUB) without writing a book.
    Check(CheckArgs),
    /// Print an EPUB's metadata, spine, table of contents and sizes.
    Inspect(InspectArgs),
    /// Repair an EPUB (or every EPUB under a folder) for every store, and convert it with the
    /// build's options.
    Fix(FixArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Print the man page (roff).
    Man,
}

/// Arguments of `epubforge init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder of chapter files, or an EPUB to unpack into a project.
    #[arg(default_value = ".")]
    pub dir: PathBuf,

    /// With an EPUB: the folder to unpack it into (default: the EPUB's name without `.epub`,
    /// beside it).
    #[arg(value_name = "INTO")]
    pub into: Option<PathBuf>,

    /// Overwrite an existing metadata.toml (with an EPUB: write into a folder that is not
    /// empty).
    #[arg(long)]
    pub force: bool,

    /// With an EPUB: write the chapters as Markdown where that says all they hold (the others
    /// stay XHTML, with a note).
    #[arg(long)]
    pub markdown: bool,
}

/// Output format of `epubforge check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Compiler-style messages.
    Text,
    /// One JSON object with every finding, for scripts.
    Json,
}

/// Arguments of `epubforge check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A project folder, a metadata .toml file, a chapter file (checked as `epubforge FILE`
    /// builds it), or an .epub file.
    #[arg(default_value = ".")]
    pub target: PathBuf,

    /// Exit with status 1 when there are warnings (errors always give 2).
    #[arg(long)]
    pub strict: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Accept paths in metadata.toml that leave the project folder.
    #[arg(long)]
    pub allow_outside_paths: bool,

    /// Do not run EPUBCheck on an .epub, even when it is installed.
    #[arg(long)]
    pub no_epubcheck: bool,

    /// Also check the limits stores publish, on the EPUB each gets (kobo, kindle, apple,
    /// google; separate with commas): each warning names its source.
    #[arg(long = "target", value_name = "STORE", value_delimiter = ',', value_parser = parse_store)]
    pub stores: Vec<epubforge::Store>,

    /// Stop EPUBCheck if it runs longer than this (it is then reported as not run).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = epubforge::inspect::DEFAULT_EPUBCHECK_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub epubcheck_timeout: u64,

    /// Show each stage and its time.
    #[arg(short, long)]
    pub verbose: bool,
}

/// Arguments of `epubforge inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The EPUB to inspect.
    pub epub: PathBuf,
}

/// Arguments of `epubforge fix`.
#[derive(Debug, Args)]
pub struct FixArgs {
    /// The EPUB to fix.
    #[arg(value_name = "BOOK.epub", required_unless_present = "all")]
    pub epub: Option<PathBuf>,

    /// Fix every EPUB under DIR in parallel, each beside itself (hidden folders and the
    /// `*.fixed.epub` a fix wrote are skipped).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["epub", "output"])]
    pub all: Option<PathBuf>,

    /// Write the fixed EPUB here [default: BOOK.fixed.epub beside the input].
    #[arg(short, long, value_name = "OUT.epub")]
    pub output: Option<PathBuf>,

    /// Replace the input with the fixed EPUB (atomically, and only when the fix succeeds).
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,

    /// Build for these readers and stores, each its own EPUB beside the output: epub (plain),
    /// kobo (`.kepub.epub`), kindle (`.kindle.epub`), apple (`.apple.epub`), azw3 (the Kindle
    /// EPUB converted by calibre's `ebook-convert`); repeat or separate with commas
    /// [default: epub].
    #[arg(long = "target", value_name = "TARGET", value_delimiter = ',', value_parser = parse_target)]
    pub targets: Vec<TargetArg>,

    /// Convert the text, the metadata and the table of contents with this OpenCC
    /// configuration (s2t, s2tw, s2twp, s2hk, t2s, tw2s, tw2sp, hk2s, t2tw, t2hk, t2jp, jp2t…).
    #[arg(long, value_name = "CONFIG")]
    pub convert: Option<String>,

    /// Apply typography (CJK punctuation and spacing, or Latin smart quotes); off by default,
    /// so that a fix leaves the punctuation as it was.
    #[arg(long)]
    pub typography: bool,

    /// Run cleanup rules: a file of `[[cleanup]]` rules (as in cleanup.toml) or a preset
    /// (web-novel).
    #[arg(long, value_name = "FILE|PRESET")]
    pub cleanup: Option<String>,

    /// Turn the book vertical or horizontal, with the page direction and the quotation marks
    /// (corner brackets vertical, curly quotes horizontal) that go with it.
    #[arg(long, value_name = "MODE", value_parser = parse_writing_mode)]
    pub writing_mode: Option<epubforge::WritingMode>,

    /// Embed this font (subset to the characters the book shows); repeat for more; the first
    /// becomes the body font.
    #[arg(long, value_name = "FILE")]
    pub font: Vec<PathBuf>,

    /// Do not run EPUBCheck before and after, even when it is installed.
    #[arg(long)]
    pub no_epubcheck: bool,

    /// Stop EPUBCheck if it runs longer than this (it is then reported as not run).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = epubforge::inspect::DEFAULT_EPUBCHECK_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub epubcheck_timeout: u64,

    /// Rebuild an EPUB even when it is already clean and nothing else is asked.
    #[arg(short, long)]
    pub force: bool,

    /// With --all: fix up to N books at once [default: one per core].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Print only errors (and, with --all, the summary).
    #[arg(short, long)]
    pub quiet: bool,

    /// Also print every problem left, and the time of each stage.
    #[arg(short, long)]
    pub verbose: bool,
}

/// A value of an option that names one of a few words, and is none of them: clap prints it
/// as its usage error for the option.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// `--writing-mode` got something else.
    #[error("\"{0}\" is not a writing mode: vertical-rl or horizontal-tb")]
    WritingMode(String),
    /// `--target` (build, fix) got something else.
    #[error("\"{0}\" is not a target: epub, kobo, kindle, apple or azw3")]
    Target(String),
    /// `check --target` got something else.
    #[error("\"{0}\" is not a store: kobo, kindle, apple or google")]
    Store(String),
}

fn parse_writing_mode(name: &str) -> Result<epubforge::WritingMode, ValueError> {
    match name.trim() {
        "vertical-rl" | "vertical" => Ok(epubforge::WritingMode::VerticalRl),
        "horizontal-tb" | "horizontal" => Ok(epubforge::WritingMode::HorizontalTb),
        _ => Err(ValueError::WritingMode(name.to_string())),
    }
}

/// Arguments of `epubforge completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `epubforge build`.
#[derive(Debug, Args, Default)]
pub struct BuildArgs {
    /// Project folders (holding metadata.toml) or metadata .toml files [default: .]; or a
    /// chapter file (.txt, .md, .html), built in one go with what `init` detects (the EPUB
    /// beside it); `epubforge FOLDER` (without `build`) builds a folder of chapter files
    /// without metadata.toml that way too (the EPUB inside it).
    #[arg(value_name = "PATH")]
    pub projects: Vec<PathBuf>,

    /// Set for `epubforge PATH` without `build`: a folder without metadata.toml is built in one
    /// go too (`build FOLDER` wants a project there, and points at `init`).
    #[arg(skip)]
    pub bare: bool,

    /// With a chapter file or a folder without metadata.toml: also write the metadata.toml
    /// that was built from (what `init` writes), to edit and build again with `build`.
    #[arg(long)]
    pub save: bool,

    /// Also build every project found under DIR (folders holding a metadata.toml; build/,
    /// target/ and hidden folders are skipped).
    #[arg(long, value_name = "DIR")]
    pub all: Option<PathBuf>,

    /// Write the EPUB here (only with a single project); `-o -` writes it to standard output.
    /// Anywhere you like: only the project's own output must stay in its folder.
    #[arg(short, long, value_name = "OUT.epub")]
    pub output: Option<PathBuf>,

    /// Build for these readers and stores, each its own EPUB beside the output: epub (plain),
    /// kobo (`.kepub.epub`), kindle (`.kindle.epub`), apple (`.apple.epub`), azw3 (the Kindle
    /// EPUB converted by calibre's `ebook-convert`, which must be installed). Repeat or
    /// separate with commas [default: `[output] targets`, else epub].
    #[arg(long = "target", value_name = "TARGET", value_delimiter = ',', value_parser = parse_target)]
    pub targets: Vec<TargetArg>,

    /// Build up to N books at once [default: one per core; at most one per book, or one per
    /// core for fewer books, and four per core].
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,

    /// Rebuild everything, ignoring the build cache (a fresh cache is written).
    #[arg(short, long)]
    pub force: bool,

    /// Neither use nor write the build cache.
    #[arg(long)]
    pub no_cache: bool,

    /// Accept paths in metadata.toml that leave the project folder (`..`, absolute paths,
    /// symlinks pointing out); refused by default.
    #[arg(long)]
    pub allow_outside_paths: bool,

    /// Fail a book that would lose content: elements of a Markdown or HTML chapter that an
    /// EPUB cannot carry (video, frames, remote images…) are an error, not a warning.
    #[arg(long)]
    pub strict: bool,

    /// Print only errors.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print how each chapter file was decoded, and how long each stage of the build took.
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

    /// Build for these readers and stores, each its own EPUB beside the output: epub (plain),
    /// kobo (`.kepub.epub`), kindle (`.kindle.epub`), apple (`.apple.epub`). Repeat or
    /// separate with commas [default: `[output] targets`, else epub].
    #[arg(long = "target", value_name = "TARGET", value_delimiter = ',', value_parser = parse_target)]
    pub targets: Vec<TargetArg>,

    /// Accept paths in metadata.toml that leave the project folder (`..`, absolute paths,
    /// symlinks pointing out); refused by default.
    #[arg(long)]
    pub allow_outside_paths: bool,

    /// Print only errors.
    #[arg(short, long)]
    pub quiet: bool,
}

/// A `--target` value: a target, or `azw3` (the Kindle EPUB, then converted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetArg {
    /// One of the EPUB targets.
    Epub(epubforge::Target),
    /// An AZW3 made from the Kindle EPUB.
    Azw3,
}

fn parse_target(name: &str) -> Result<TargetArg, ValueError> {
    if name.trim().eq_ignore_ascii_case("azw3") {
        return Ok(TargetArg::Azw3);
    }
    epubforge::Target::parse(name)
        .map(TargetArg::Epub)
        .ok_or_else(|| ValueError::Target(name.to_string()))
}

fn parse_store(name: &str) -> Result<epubforge::Store, ValueError> {
    epubforge::Store::parse(name).ok_or_else(|| ValueError::Store(name.to_string()))
}

impl TargetArg {
    /// The EPUB targets `args` ask for (azw3 asks for the Kindle EPUB).
    pub fn targets(args: &[TargetArg]) -> Vec<epubforge::Target> {
        args.iter()
            .map(|a| match a {
                TargetArg::Epub(t) => *t,
                TargetArg::Azw3 => epubforge::Target::Kindle,
            })
            .collect()
    }
}

/// The guide's chapter on the command line (`guide/src/commands.md`) names every subcommand,
/// option and value clap knows, each in its subcommand's section: the guide cannot fall behind
/// a new flag.
#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// The section of `text` under the `## `epubforge NAME`` heading, to the next `## `.
    fn section<'a>(text: &'a str, name: &str) -> Option<&'a str> {
        let heading = format!("\n## `epubforge {name}`");
        let start = text.find(&heading)? + 1;
        let end = text[start + 2..]
            .find("\n## ")
            .map_or(text.len(), |i| start + 2 + i);
        Some(&text[start..end])
    }

    /// What of `cmd`'s arguments `text` does not name.
    fn unnamed(cmd: &clap::Command, text: &str) -> Vec<String> {
        let mut missing = Vec::new();
        for arg in cmd.get_arguments() {
            if matches!(arg.get_id().as_str(), "help" | "version") || arg.is_hide_set() {
                continue;
            }
            let mut names = Vec::new();
            if let Some(long) = arg.get_long() {
                names.push((format!("--{long}"), vec![format!("`--{long}")]));
            }
            if let Some(short) = arg.get_short() {
                let spelled = vec![format!("`-{short}`"), format!("`-{short} ")];
                names.push((format!("-{short}"), spelled));
            }
            if arg.is_positional() {
                for value in arg.get_value_names().into_iter().flatten() {
                    names.push((value.to_string(), vec![value.to_string()]));
                }
            }
            // A flag's possible values are clap's `true` and `false`, never typed.
            let values = arg.get_action().takes_values();
            for value in arg.get_possible_values().into_iter().filter(|_| values) {
                let name = value.get_name();
                names.push((name.to_string(), vec![format!("`{name}`")]));
            }
            for (name, spelled) in names {
                if !spelled.iter().any(|s| text.contains(s.as_str())) {
                    missing.push(format!("{} {name}", cmd.get_name()));
                }
            }
        }
        missing
    }

    #[test]
    fn every_subcommand_and_option_is_in_the_guide() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/guide/src/commands.md");
        let guide = std::fs::read_to_string(path).expect("guide/src/commands.md");
        let cli = super::Cli::command();
        let build = section(&guide, "build").expect("a `epubforge build` section");
        let mut missing = unnamed(&cli, build);
        for sub in cli.get_subcommands() {
            match section(&guide, sub.get_name()) {
                Some(text) => missing.extend(unnamed(sub, text)),
                None => missing.push(format!("a `epubforge {}` section", sub.get_name())),
            }
        }
        assert!(
            missing.is_empty(),
            "not in guide/src/commands.md: {missing:?}"
        );
    }
}
