//! mdBook's include directives in Markdown chapters, resolved before the Markdown is read.
//!
//! mdBook books pull their code in from other files: `{{#include file.rs}}` (the whole file),
//! `{{#include file.rs:2:5}}` (lines 2 to 5; `:2` one line, `:2:` from 2 on, `::5` up to 5),
//! `{{#include file.rs:name}}` (the lines between `ANCHOR: name` and `ANCHOR_END: name`,
//! without anchor lines), `{{#rustdoc_include file.rs:name}}` (mdBook keeps the rest of the file
//! as hidden lines for rustdoc; a book has no button to show them, so only the lines shown are
//! kept), `{{#playground file.rs}}` (the file as a Rust code block) and `{{#title …}}` (removed).
//! An anchor the file does not have inserts nothing, as in mdBook, with a warning. Any other
//! directive, `{{#name …}}` or a third-party preprocessor's `{{%name …}}` (Comprehensive Rust's
//! `{{%session outline}}`), would print as text in the book: outside code it is removed, and
//! each chapter gets one warning naming what was removed (a `{{#each …}}` shown in a code block
//! or a code span is code, and stays).
//! A directive written `\{{#include …}}` is shown as written, without the backslash. Included
//! text may include more, relative to its own folder, up to [`MAX_DEPTH`] deep; a multi-line
//! inclusion after some text on its line (an indented list item) repeats that text before each
//! following line, as mdBook does.
//!
//! Part of the convert stage: the Markdown converter never sees the directives. Which files may
//! be read is not this module's business: the caller's reader applies the project's
//! containment check and reads through `crate::fs`. A file that is missing, outside the project
//! or unreadable, an anchor that is not there, and inclusion deeper than allowed are warnings
//! naming the file and line of the directive; the directive's text is then left as it was, so
//! nothing vanishes without a word.
//!
//! Depth alone does not bound the work: a file that includes itself six times makes 6^10
//! copies ten levels down. So every inclusion is paid for from a [`Budget`] shared by the whole
//! book (its chapters convert in parallel): a count of inclusions, and the bytes they read and
//! write, prefixes repeated on every included line included. Running out is an error naming the
//! directive, not a warning: which chapter reaches the end of a shared budget first depends on
//! the threads, and a book whose content depended on that would not be reproducible.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How deep inclusions may nest (a file including itself stops here).
pub const MAX_DEPTH: usize = 10;

/// The most bytes inclusions may read and write across one book: mdBook's own books (the Rust
/// book's listings) use a tenth of it.
pub const MAX_BOOK_BYTES: usize = 32 << 20;

/// The most inclusions one book may make (the Rust book makes about a thousand).
pub const MAX_BOOK_INCLUSIONS: usize = 20_000;

/// What inclusions may still do in one book: one per conversion of a book, shared by its
/// chapters (hence atomic counters).
#[derive(Debug)]
pub struct Budget {
    bytes: AtomicUsize,
    inclusions: AtomicUsize,
    max_bytes: usize,
    max_inclusions: usize,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::new(MAX_BOOK_BYTES, MAX_BOOK_INCLUSIONS)
    }
}

impl Budget {
    /// A budget of `max_bytes` read and written and `max_inclusions` inclusions.
    pub fn new(max_bytes: usize, max_inclusions: usize) -> Budget {
        Budget {
            bytes: AtomicUsize::new(0),
            inclusions: AtomicUsize::new(0),
            max_bytes,
            max_inclusions,
        }
    }

    /// Pays for `bytes` read or written; on refusal nothing is spent.
    fn spend_bytes(&self, bytes: usize) -> Result<(), Overdrawn> {
        match charge(&self.bytes, bytes, self.max_bytes) {
            true => Ok(()),
            false => Err(Overdrawn::Bytes(self.max_bytes >> 20)),
        }
    }

    /// Pays for one more inclusion.
    fn spend_inclusion(&self) -> Result<(), Overdrawn> {
        match charge(&self.inclusions, 1, self.max_inclusions) {
            true => Ok(()),
            false => Err(Overdrawn::Inclusions(self.max_inclusions)),
        }
    }
}

/// Adds `amount` to `counter` unless the sum would pass `max` (or overflow), then nothing is
/// spent: whether it was paid.
fn charge(counter: &AtomicUsize, amount: usize, max: usize) -> bool {
    counter
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
            used.checked_add(amount).filter(|&total| total <= max)
        })
        .is_ok()
}

/// The book's inclusion budget ([`Budget`]) would be passed: what would have passed it, with
/// the likely cause. Stops the build, naming the directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Overdrawn {
    /// More bytes read and written than the budget's (in MB).
    #[error(
        "inclusions would read and write more than the book's budget of {0} MB (does a file include itself several times?); the build stops"
    )]
    Bytes(usize),
    /// More inclusions than the budget's.
    #[error(
        "the book makes more than its budget of {0} inclusions (does a file include itself several times?); the build stops"
    )]
    Inclusions(usize),
}

/// Why the file a directive names was not read, said in the directive's warning (the
/// directive then stays as written).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The path leads outside the project folder.
    #[error("{written} {sentence}")]
    Outside {
        /// The path as the directive writes it.
        written: String,
        /// The containment check's refusal, with what to do.
        sentence: String,
    },
    /// No file is there.
    #[error("{} does not exist", crate::escape::path(.0))]
    Missing(PathBuf),
    /// The file could not be read, or is larger than an included file may be.
    #[error(transparent)]
    Unreadable(crate::error::Error),
    /// The file is not text in an encoding we can tell.
    #[error("{}: {source}", crate::escape::path(path))]
    Undecodable {
        /// The file.
        path: PathBuf,
        /// Why its bytes are not text.
        source: crate::source::DecodeError,
    },
}

/// Reads the file a directive names: given the folder of the file holding the directive and the
/// path as written, the file's path and text, or why not.
pub type Reader<'a> = dyn FnMut(&Path, &str) -> Result<(PathBuf, String), ReadError> + 'a;

/// A problem with one directive: the file holding it, its 1-based line, what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncludeWarning {
    /// A directive no preprocessor here knows, removed (else an include that failed).
    pub unknown: bool,
    /// The chapter, or the included file, that holds the directive.
    pub path: PathBuf,
    /// The directive's line in that file.
    pub line: usize,
    /// What went wrong, naming the directive.
    pub message: String,
}

/// `text` (the content of the file `path`) with its directives replaced, and what could not be;
/// Err (naming the directive) when the book's `budget` runs out.
pub fn resolve(
    text: &str,
    path: &Path,
    read: &mut Reader<'_>,
    budget: &Budget,
) -> Result<(String, Vec<IncludeWarning>), IncludeWarning> {
    if !text.contains("{{") {
        return Ok((text.to_string(), Vec::new()));
    }
    let mut state = State {
        read,
        budget,
        files: HashMap::new(),
        warnings: Vec::new(),
        unknown: super::directives::Unknown::default(),
    };
    let out = state.expand(text, path, 0)?;
    if let Some((path, line, message)) = state.unknown.warning() {
        state.warnings.push(IncludeWarning {
            unknown: true,
            path,
            line,
            message,
        });
    }
    Ok((out, state.warnings))
}

/// Whether `text` has a directive that reads another file.
pub fn reads_files(text: &str) -> bool {
    let mut at = 0;
    while let Some(d) = next_directive(text, at) {
        if matches!(
            d.kind,
            Some("include" | "rustdoc_include" | "playground" | "playpen")
        ) {
            return true;
        }
        at = d.end;
    }
    false
}

struct State<'r, 'a> {
    read: &'r mut Reader<'a>,
    budget: &'r Budget,
    /// The files read so far, by folder and path as written: a file included a thousand times
    /// is read once.
    files: HashMap<(PathBuf, String), Result<(PathBuf, String), ReadError>>,
    warnings: Vec<IncludeWarning>,
    /// Directives removed because nothing here knows them: one warning for them all.
    unknown: super::directives::Unknown,
}

/// Why a directive was not replaced.
enum Failure {
    /// Warned about; the directive stays as written.
    Warn(String),
    /// Warned about; the directive is replaced by nothing (an anchor not found, as mdBook).
    Empty(String),
    /// The book's budget ran out: the resolution stops.
    Budget(Overdrawn),
    /// The budget ran out in an included file, at the directive named.
    Nested(IncludeWarning),
}

/// One directive found in a text.
struct Directive<'t> {
    /// Byte range of the whole `{{#…}}` (with its escaping backslash, if any).
    start: usize,
    end: usize,
    /// `include`, `rustdoc_include`, `playground`, `title`; None for an escaped directive.
    kind: Option<&'t str>,
    /// Written `{{%name …}}` (a third-party preprocessor's), not `{{#name …}}`.
    percent: bool,
    /// What follows the name: the path and its range or anchor, and properties.
    args: &'t str,
}

impl State<'_, '_> {
    fn expand(&mut self, text: &str, path: &Path, depth: usize) -> Result<String, IncludeWarning> {
        let dir = path.parent().unwrap_or(Path::new(""));
        let mut out = Output::with_capacity(text.len());
        let mut written = 0;
        let mut at = 0;
        // The line of `counted`, kept as the directives are met (counting from the top for
        // each would be quadratic in a file of many directives).
        let (mut line, mut counted) = (1, 0);
        let mut code = super::directives::CodeTracker::default();
        while let Some(d) = next_directive(text, at) {
            at = d.end;
            line += text[counted..d.start].matches('\n').count();
            counted = d.start;
            let Some(kind) = d.kind else {
                // `\{{#include x}}`: shown as written, without the backslash.
                out.push(&text[written..d.start]);
                out.push(&text[d.start + 1..d.end]);
                written = d.end;
                continue;
            };
            let warning = |message: String| IncludeWarning {
                unknown: false,
                path: path.to_path_buf(),
                line,
                message: format!("{}: {message}", &text[d.start..d.end]),
            };
            if d.percent || !is_known(kind) {
                if code.inside(text, d.start) {
                    continue;
                }
                self.unknown.add(&text[d.start..d.end], path, line);
                out.push(&text[written..d.start]);
                written = d.end;
                continue;
            }
            let replacement = match self.render(kind, d.args, dir, depth) {
                Ok(Some(content)) => content,
                Ok(None) => continue,
                Err(Failure::Warn(message)) => {
                    self.warnings.push(warning(message));
                    continue;
                }
                Err(Failure::Empty(message)) => {
                    self.warnings.push(warning(message));
                    String::new()
                }
                Err(Failure::Budget(overdrawn)) => return Err(warning(overdrawn.to_string())),
                Err(Failure::Nested(inner)) => return Err(inner),
            };
            out.push(&text[written..d.start]);
            out.insert_lines(&replacement, self.budget)
                .map_err(|overdrawn| warning(overdrawn.to_string()))?;
            written = d.end;
        }
        out.push(&text[written..]);
        Ok(out.text)
    }

    /// The text a directive stands for; None for a directive this module leaves alone.
    fn render(
        &mut self,
        kind: &str,
        args: &str,
        dir: &Path,
        depth: usize,
    ) -> Result<Option<String>, Failure> {
        if kind == "title" {
            return Ok(Some(String::new()));
        }
        if !matches!(
            kind,
            "include" | "rustdoc_include" | "playground" | "playpen"
        ) {
            return Ok(None);
        }
        if depth >= MAX_DEPTH {
            return Err(Failure::Warn(format!(
                "included more than {MAX_DEPTH} deep (does a file include itself?); left as written"
            )));
        }
        self.budget.spend_inclusion().map_err(Failure::Budget)?;
        let mut words = args.split_whitespace();
        let target = words.next().unwrap_or("");
        let (file, selection) = match target.split_once(':') {
            Some((file, rest)) if !matches!(kind, "playground" | "playpen") => (file, rest),
            _ => (target, ""),
        };
        let (found, content) = self.read(dir, file)?;
        let selection = Selection::parse(selection);
        let taken = selection.take(content).ok_or_else(|| {
            Failure::Empty(format!(
                "{} has no anchor {:?}; nothing was inserted (as mdBook does)",
                found.display(),
                selection.anchor()
            ))
        })?;
        let found = found.clone();
        let expanded = self
            .expand(&taken, &found, depth + 1)
            .map_err(Failure::Nested)?;
        Ok(Some(match kind {
            "playground" | "playpen" => {
                let props: Vec<&str> = words.collect();
                let info = if props.is_empty() {
                    "rust".to_string()
                } else {
                    format!("rust,{}", props.join(","))
                };
                format!("```{info}\n{}\n```", expanded.trim_end_matches('\n'))
            }
            _ => expanded,
        }))
    }

    /// The file `written` names from `dir`, read once per chapter and paid for then.
    fn read(&mut self, dir: &Path, written: &str) -> Result<(&PathBuf, &str), Failure> {
        let key = (dir.to_path_buf(), written.to_string());
        if !self.files.contains_key(&key) {
            let read = (self.read)(dir, written);
            if let Ok((_, content)) = &read {
                self.budget
                    .spend_bytes(content.len())
                    .map_err(Failure::Budget)?;
            }
            self.files.insert(key.clone(), read);
        }
        match &self.files[&key] {
            Ok((found, content)) => Ok((found, content)),
            Err(why) => Err(Failure::Warn(why.to_string())),
        }
    }
}

/// The text a directive's file is written into, knowing where its last line starts (an
/// inclusion repeats that line's text before each line it adds).
struct Output {
    text: String,
    line_start: usize,
}

impl Output {
    fn with_capacity(n: usize) -> Output {
        Output {
            text: String::with_capacity(n),
            line_start: 0,
        }
    }

    fn push(&mut self, s: &str) {
        if let Some(i) = s.rfind('\n') {
            self.line_start = self.text.len() + i + 1;
        }
        self.text.push_str(s);
    }

    /// Writes `replacement`'s lines, each after the first preceded by the text of the line it
    /// is written into; the bytes this writes, prefixes and all, are paid for first.
    fn insert_lines(&mut self, replacement: &str, budget: &Budget) -> Result<(), Overdrawn> {
        let prefix_len = self.text.len() - self.line_start;
        let lines = replacement.lines();
        let (count, bytes) = lines
            .clone()
            .fold((0usize, 0usize), |(n, b), l| (n + 1, b + l.len()));
        let repeated = count.saturating_sub(1).saturating_mul(prefix_len + 1);
        budget.spend_bytes(bytes.saturating_add(repeated))?;
        let prefix = match count > 1 {
            true => self.text[self.line_start..].to_string(),
            false => String::new(),
        };
        for (i, l) in lines.enumerate() {
            if i > 0 {
                self.text.push('\n');
                self.line_start = self.text.len();
                self.text.push_str(&prefix);
            }
            self.text.push_str(l);
        }
        Ok(())
    }
}

/// The next `{{#name args}}` (or escaped `\{{#…}}`) at or after byte `from`.
///
/// Linear in the text however its braces fall: a directive holds no brace or line end, so the
/// search for its end stops at the first of them, and the next search starts before it (a
/// search that went on to the next `}}` would read to the end of the text for every `{{`).
fn next_directive(text: &str, from: usize) -> Option<Directive<'_>> {
    let bytes = text.as_bytes();
    let mut search = from;
    loop {
        let open = search + text.get(search..)?.find("{{")?;
        search = open + 2;
        let stop = search + memchr::memchr3(b'{', b'}', b'\n', &bytes[search..])?;
        if !text[stop..].starts_with("}}") {
            continue;
        }
        let close = stop;
        let inner = &text[open + 2..close];
        let escaped = open > 0 && bytes[open - 1] == b'\\';
        let inner = inner.trim_start();
        let percent = inner.starts_with('%');
        let Some(rest) = inner.strip_prefix(['#', '%']) else {
            continue;
        };
        let rest = if percent { rest.trim_start() } else { rest };
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        let (name, args) = rest.split_at(name_end);
        // A known directive needs its argument (`{{#include}}` alone is text, as in mdBook);
        // an unknown one is a directive with or without (`{{#toc}}`, `{{% shortcode %}}`).
        let known = !percent && is_known(name);
        let bare = args.trim().is_empty() || (percent && args.trim() == "%");
        if name.is_empty()
            || !(args.is_empty() || args.starts_with(char::is_whitespace) || percent)
            || (known && bare)
        {
            continue;
        }
        let end = close + 2;
        return Some(if escaped {
            Directive {
                start: open - 1,
                end,
                kind: None,
                percent,
                args: "",
            }
        } else {
            Directive {
                start: open,
                end,
                kind: Some(name),
                percent,
                args: args.trim(),
            }
        });
    }
}

/// The directives mdBook itself (and this module) knows.
fn is_known(name: &str) -> bool {
    matches!(
        name,
        "include" | "rustdoc_include" | "playground" | "playpen" | "title"
    )
}

/// Which lines of an included file to take.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Selection {
    /// 0-based start, and end (exclusive) when bounded.
    Lines(usize, Option<usize>),
    /// Between `ANCHOR: name` and `ANCHOR_END: name`.
    Anchor(String),
}

impl Selection {
    /// `2:5`, `2`, `2:`, `:5`, ``, or an anchor name; line numbers are 1-based as written.
    fn parse(s: &str) -> Selection {
        let mut parts = s.splitn(2, ':');
        let first = parts.next().unwrap_or("");
        let start = match first.parse::<usize>() {
            Ok(n) => Some(n.saturating_sub(1)),
            Err(_) if first.is_empty() => None,
            Err(_) => return Selection::Anchor(first.to_string()),
        };
        let end = parts.next().map(|e| e.parse::<usize>().ok());
        match (start, end) {
            (Some(s), Some(Some(e))) => Selection::Lines(s, Some(e)),
            (Some(s), Some(None)) => Selection::Lines(s, None),
            (Some(s), None) => Selection::Lines(s, Some(s + 1)),
            (None, Some(Some(e))) => Selection::Lines(0, Some(e)),
            (None, _) => Selection::Lines(0, None),
        }
    }

    fn anchor(&self) -> &str {
        match self {
            Selection::Anchor(name) => name,
            Selection::Lines(..) => "",
        }
    }

    /// The selected lines of `content`, joined; None when an anchor is not found.
    fn take(&self, content: &str) -> Option<String> {
        match self {
            Selection::Lines(start, end) => {
                let lines = content.lines().skip(*start);
                let taken: Vec<&str> = match end {
                    Some(end) => lines.take(end.saturating_sub(*start)).collect(),
                    None => lines.collect(),
                };
                Some(taken.join("\n"))
            }
            Selection::Anchor(name) => {
                let mut lines = content.lines();
                lines.find(|l| anchor_name(l, "ANCHOR:") == Some(name))?;
                let taken: Vec<&str> = lines
                    .take_while(|l| anchor_name(l, "ANCHOR_END:") != Some(name))
                    .filter(|l| {
                        anchor_name(l, "ANCHOR:").is_none()
                            && anchor_name(l, "ANCHOR_END:").is_none()
                    })
                    .collect();
                Some(taken.join("\n"))
            }
        }
    }
}

/// The name after `marker` (`ANCHOR:` or `ANCHOR_END:`) on a line, if the line has one.
fn anchor_name<'l>(line: &'l str, marker: &str) -> Option<&'l str> {
    let at = line.find(marker)?;
    let rest = line[at + marker.len()..].trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Resolves `text` (from `src/ch.md`) against in-memory files keyed by their joined path.
    fn resolve_with(text: &str, files: &[(&str, &str)]) -> (String, Vec<IncludeWarning>) {
        let files: HashMap<PathBuf, String> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        let mut read = |dir: &Path, written: &str| {
            let path = normalise(&dir.join(written));
            files
                .get(&path)
                .map(|t| (path.clone(), t.clone()))
                .ok_or_else(|| ReadError::Missing(path.clone()))
        };
        resolve(text, Path::new("src/ch.md"), &mut read, &Budget::default())
            .expect("within the budget")
    }

    fn normalise(p: &Path) -> PathBuf {
        let mut out = PathBuf::new();
        for c in p.components() {
            match c {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                std::path::Component::CurDir => {}
                other => out.push(other),
            }
        }
        out
    }

    const MAIN: &str = "use std::io;\n// ANCHOR: here\nfn main() {\n    // ANCHOR: inner\n    println!(\"hi\");\n    // ANCHOR_END: inner\n}\n// ANCHOR_END: here\n";

    #[test]
    fn whole_files_line_ranges_and_anchors_are_taken() {
        let files = [("listings/main.rs", MAIN)];
        let cases = [
            ("{{#include ../listings/main.rs}}", MAIN.trim_end()),
            ("{{#include ../listings/main.rs:3}}", "fn main() {"),
            (
                "{{#include ../listings/main.rs:3:5}}",
                "fn main() {\n    // ANCHOR: inner\n    println!(\"hi\");",
            ),
            (
                "{{#include ../listings/main.rs:7:}}",
                "}\n// ANCHOR_END: here",
            ),
            ("{{#include ../listings/main.rs::1}}", "use std::io;"),
            (
                "{{#include ../listings/main.rs:here}}",
                "fn main() {\n    println!(\"hi\");\n}",
            ),
            (
                "{{#rustdoc_include ../listings/main.rs:inner}}",
                "    println!(\"hi\");",
            ),
            ("{{ #include   ../listings/main.rs:3 }}", "fn main() {"),
        ];
        for (directive, want) in cases {
            let (out, warnings) = resolve_with(&format!("```rust\n{directive}\n```\n"), &files);
            assert!(warnings.is_empty(), "{directive}: {warnings:?}");
            assert_eq!(out, format!("```rust\n{want}\n```\n"), "{directive}");
        }
    }

    #[test]
    fn only_directives_that_read_files_count_as_reading() {
        assert!(reads_files("a {{#include x.rs:2}} b"));
        assert!(reads_files("{{#playground x.rs}}"));
        for text in [
            "plain",
            "\\{{#include x.rs}}",
            "{{#title T}}",
            "{{#unknown x}}",
            "{{%session outline}}",
        ] {
            assert!(!reads_files(text), "{text}");
        }
    }

    #[test]
    fn escaped_directives_stay_unknown_ones_go_with_one_warning_and_title_goes() {
        let (out, w) = resolve_with(
            "a \\{{#include x.rs}} b {{#unknown x}} {{#title T}}c\n{{%session outline}}\n",
            &[],
        );
        assert_eq!(out, "a {{#include x.rs}} b  c\n\n");
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].unknown);
        assert_eq!(w[0].line, 1);
        assert!(w[0].message.contains("{{#unknown x}}"), "{}", w[0].message);
        assert!(
            w[0].message.contains("{{%session outline}}"),
            "{}",
            w[0].message
        );
        let text = "{{ not a directive }} {{#}} {{#include}} {{ #include }}";
        let (out, w) = resolve_with(text, &[]);
        assert_eq!(out, text);
        assert!(w.is_empty());
    }

    #[test]
    fn unknown_directives_in_code_stay_as_code() {
        let text = "```hbs\n{{#each items}}\n{{% raw %}}\n```\nuse `{{#if x}}` here\n";
        let (out, w) = resolve_with(text, &[]);
        assert_eq!(out, text);
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_missing_file_is_a_warning_and_stays_a_missing_anchor_inserts_nothing() {
        let text = "intro\n\n{{#include missing.rs}}\n{{#include ../listings/main.rs:nowhere}}\n";
        let (out, w) = resolve_with(text, &[("listings/main.rs", MAIN)]);
        assert_eq!(out, "intro\n\n{{#include missing.rs}}\n\n");
        assert_eq!(w.len(), 2);
        assert_eq!((w[0].line, w[1].line), (3, 4));
        assert!(
            w[0].message.starts_with("{{#include missing.rs}}: "),
            "{}",
            w[0].message
        );
        assert!(w[0].message.contains("does not exist"));
        assert!(
            w[1].message
                .contains("no anchor \"nowhere\"; nothing was inserted"),
            "{}",
            w[1].message
        );
    }

    #[test]
    fn nested_inclusion_is_relative_to_the_included_file_and_bounded() {
        let files = [
            ("src/a.md", "A {{#include sub/b.md}}"),
            ("src/sub/b.md", "B {{#include ../c.md}}"),
            ("src/c.md", "C"),
            ("src/loop.md", "x{{#include loop.md}}"),
        ];
        let (out, w) = resolve_with("{{#include a.md}}", &files);
        assert_eq!(out, "A B C");
        assert!(w.is_empty());
        let (out, w) = resolve_with("{{#include loop.md}}", &files);
        assert_eq!(
            out,
            format!("{}{{{{#include loop.md}}}}", "x".repeat(MAX_DEPTH))
        );
        assert_eq!(w.len(), 1);
        assert!(w[0].message.contains("deep"), "{}", w[0].message);
        assert_eq!(w[0].path, PathBuf::from("src/loop.md"));
    }

    #[test]
    fn an_inclusion_in_an_indented_line_keeps_the_indent_and_playground_fences() {
        let files = [("src/two.rs", "one\ntwo\n")];
        let (out, _) = resolve_with("- item\n\n    {{#include two.rs}}\n", &files);
        assert_eq!(out, "- item\n\n    one\n    two\n");
        let (out, _) = resolve_with("{{#playground two.rs editable}}", &files);
        assert_eq!(out, "```rust,editable\none\ntwo\n```");
    }

    /// Resolves `text` against `files` with a budget of `bytes` and `inclusions`.
    fn resolve_within(
        text: &str,
        files: &[(&str, &str)],
        (bytes, inclusions): (usize, usize),
    ) -> Result<(String, Vec<IncludeWarning>), IncludeWarning> {
        let files: HashMap<PathBuf, String> = files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.to_string()))
            .collect();
        let mut read = |dir: &Path, written: &str| {
            let path = normalise(&dir.join(written));
            let text = files.get(&path).cloned().unwrap_or_default();
            Ok((path, text))
        };
        let budget = Budget::new(bytes, inclusions);
        resolve(text, Path::new("src/ch.md"), &mut read, &budget)
    }

    #[test]
    fn a_file_including_itself_six_times_runs_out_of_inclusions_not_memory() {
        let six = "x {{#include self.md}}\n".repeat(6);
        let files = [("src/self.md", six.as_str())];
        let e = resolve_within("{{#include self.md}}", &files, (MAX_BOOK_BYTES, 500)).unwrap_err();
        assert!(e.message.contains("budget of 500 inclusions"), "{e:?}");
        assert!(e.message.starts_with("{{#include self.md}}"), "{e:?}");
        assert_eq!(e.path, PathBuf::from("src/self.md"));
        assert!((1..=6).contains(&e.line), "{e:?}");
    }

    #[test]
    fn doubling_includes_stop_at_the_byte_budget() {
        let big = "x".repeat(1 << 20);
        let files = [
            ("src/big.md", big.as_str()),
            ("src/d0.md", "{{#include big.md}}{{#include big.md}}"),
        ];
        let text = "{{#include d0.md}}\n".repeat(40);
        let e = resolve_within(&text, &files, (8 << 20, 1000)).unwrap_err();
        assert!(e.message.contains("budget of 8 MB"), "{e:?}");
    }

    #[test]
    fn a_prefix_repeated_on_every_included_line_is_paid_for() {
        let lines = "l\n".repeat(1000);
        let files = [("src/lines.md", lines.as_str())];
        let prefix = "p".repeat(10_000);
        let text = format!("{prefix}{{{{#include lines.md}}}}");
        // 1000 lines of one byte fit in 64 KB; with 10 KB before each they do not.
        let e = resolve_within(&text, &files, (64 << 10, 1000)).unwrap_err();
        assert!(e.message.contains("budget"), "{e:?}");
        let (out, _) = resolve_within(&text, &files, (16 << 20, 1000)).unwrap();
        assert_eq!(out.len(), 999 * (prefix.len() + 1) + 1000 + prefix.len());
    }

    #[test]
    fn many_openings_and_one_close_are_scanned_once() {
        // Quadratic scanning took minutes on this; linear, it is instant even unoptimised.
        let text = format!("{}}}}}", "{{ ".repeat(300_000));
        assert!(!reads_files(&text));
        let (out, w) = resolve_with(&text, &[]);
        assert_eq!(out, text);
        assert!(w.is_empty());
        assert!(reads_files("{{ {{ {{#include a.md}}"));
    }
}
