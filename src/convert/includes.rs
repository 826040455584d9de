//! mdBook's include directives in Markdown chapters, resolved before the Markdown is read.
//!
//! mdBook books pull their code in from other files: `{{#include file.rs}}` (the whole file),
//! `{{#include file.rs:2:5}}` (lines 2 to 5; `:2` one line, `:2:` from 2 on, `::5` up to 5),
//! `{{#include file.rs:name}}` (the lines between `ANCHOR: name` and `ANCHOR_END: name`,
//! without anchor lines), `{{#rustdoc_include file.rs:name}}` (mdBook keeps the rest of the file
//! as hidden lines for rustdoc; a book has no button to show them, so only the lines shown are
//! kept), `{{#playground file.rs}}` (the file as a Rust code block) and `{{#title …}}` (removed).
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

use std::path::{Path, PathBuf};

/// How deep inclusions may nest (a file including itself stops here).
pub const MAX_DEPTH: usize = 10;

/// The most text inclusions may add to one chapter: 10 files including each other twice over
/// would otherwise make a thousand copies.
const MAX_ADDED_BYTES: usize = 64 << 20;

/// Reads the file a directive names: given the folder of the file holding the directive and the
/// path as written, the file's path and text, or why not.
pub type Reader<'a> = dyn FnMut(&Path, &str) -> Result<(PathBuf, String), String> + 'a;

/// A problem with one directive: the file holding it, its 1-based line, what went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncludeWarning {
    /// The chapter, or the included file, that holds the directive.
    pub path: PathBuf,
    /// The directive's line in that file.
    pub line: usize,
    /// What went wrong, naming the directive.
    pub message: String,
}

/// `text` (the content of the file `path`) with its directives replaced, and what could not be.
pub fn resolve(text: &str, path: &Path, read: &mut Reader<'_>) -> (String, Vec<IncludeWarning>) {
    if !text.contains("{{") {
        return (text.to_string(), Vec::new());
    }
    let mut state = State {
        read,
        warnings: Vec::new(),
        added: 0,
    };
    let out = state.expand(text, path, 0);
    (out, state.warnings)
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
    warnings: Vec<IncludeWarning>,
    added: usize,
}

/// One directive found in a text.
struct Directive<'t> {
    /// Byte range of the whole `{{#…}}` (with its escaping backslash, if any).
    start: usize,
    end: usize,
    /// `include`, `rustdoc_include`, `playground`, `title`; None for an escaped directive.
    kind: Option<&'t str>,
    /// What follows the name: the path and its range or anchor, and properties.
    args: &'t str,
}

impl State<'_, '_> {
    fn expand(&mut self, text: &str, path: &Path, depth: usize) -> String {
        let dir = path.parent().unwrap_or(Path::new(""));
        let mut out = String::with_capacity(text.len());
        let mut written = 0;
        let mut at = 0;
        // The line of `counted`, kept as the directives are met (counting from the top for
        // each would be quadratic in a file of many directives).
        let (mut line, mut counted) = (1, 0);
        while let Some(d) = next_directive(text, at) {
            at = d.end;
            line += text[counted..d.start].matches('\n').count();
            counted = d.start;
            let Some(kind) = d.kind else {
                // `\{{#include x}}`: shown as written, without the backslash.
                out.push_str(&text[written..d.start]);
                out.push_str(&text[d.start + 1..d.end]);
                written = d.end;
                continue;
            };
            let warn = |message: String| IncludeWarning {
                path: path.to_path_buf(),
                line,
                message: format!("{}: {message}", &text[d.start..d.end]),
            };
            let replacement = match self.render(kind, d.args, dir, depth) {
                Ok(Some(content)) => content,
                Ok(None) => continue,
                Err(message) => {
                    self.warnings.push(warn(message));
                    continue;
                }
            };
            out.push_str(&text[written..d.start]);
            let prefix = out.rsplit('\n').next().unwrap_or("").to_string();
            let lines: Vec<&str> = replacement.lines().collect();
            out.push_str(&lines.join(&format!("\n{prefix}")));
            written = d.end;
        }
        out.push_str(&text[written..]);
        out
    }

    /// The text a directive stands for; None for a directive this module leaves alone.
    fn render(
        &mut self,
        kind: &str,
        args: &str,
        dir: &Path,
        depth: usize,
    ) -> Result<Option<String>, String> {
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
            return Err(format!(
                "included more than {MAX_DEPTH} deep (does a file include itself?); left as written"
            ));
        }
        let mut words = args.split_whitespace();
        let target = words.next().unwrap_or("");
        let (file, selection) = match target.split_once(':') {
            Some((file, rest)) if !matches!(kind, "playground" | "playpen") => (file, rest),
            _ => (target, ""),
        };
        let (found, content) = (self.read)(dir, file)?;
        let selection = Selection::parse(selection);
        let taken = selection
            .take(&content)
            .ok_or_else(|| format!("{} has no anchor {:?}", found.display(), selection.anchor()))?;
        let expanded = self.expand(&taken, &found, depth + 1);
        self.added = self.added.saturating_add(expanded.len());
        if self.added > MAX_ADDED_BYTES {
            return Err(format!(
                "inclusions add more than {} MB to this chapter; left as written",
                MAX_ADDED_BYTES >> 20
            ));
        }
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
}

/// The next `{{#name args}}` (or escaped `\{{#…}}`) at or after byte `from`.
fn next_directive(text: &str, from: usize) -> Option<Directive<'_>> {
    let mut search = from;
    loop {
        let open = search + text.get(search..)?.find("{{")?;
        search = open + 2;
        let close = open + text[open..].find("}}")?;
        let inner = &text[open + 2..close];
        let escaped = open > 0 && text.as_bytes()[open - 1] == b'\\';
        let Some(rest) = inner.trim_start().strip_prefix('#') else {
            continue;
        };
        if inner.contains('{') || inner.contains('}') || inner.contains('\n') {
            continue;
        }
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, args) = rest.split_at(name_end);
        if name.is_empty() || !args.starts_with(char::is_whitespace) || args.trim().is_empty() {
            continue;
        }
        let end = close + 2;
        return Some(if escaped {
            Directive {
                start: open - 1,
                end,
                kind: None,
                args: "",
            }
        } else {
            Directive {
                start: open,
                end,
                kind: Some(name),
                args: args.trim(),
            }
        });
    }
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
                .ok_or_else(|| format!("{} does not exist", path.display()))
        };
        resolve(text, Path::new("src/ch.md"), &mut read)
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
        ] {
            assert!(!reads_files(text), "{text}");
        }
    }

    #[test]
    fn escaped_and_unknown_directives_stay_and_title_goes() {
        let (out, w) = resolve_with("a \\{{#include x.rs}} b {{#unknown x}} {{#title T}}c", &[]);
        assert_eq!(out, "a {{#include x.rs}} b {{#unknown x}} c");
        assert!(w.is_empty());
        let text = "{{ not a directive }} {{#}} {{#include}} {{ #include }}";
        let (out, w) = resolve_with(text, &[]);
        assert_eq!(out, text);
        assert!(w.is_empty());
    }

    #[test]
    fn a_missing_file_or_anchor_is_a_warning_with_the_line_and_the_directive_stays() {
        let text = "intro\n\n{{#include missing.rs}}\n{{#include ../listings/main.rs:nowhere}}\n";
        let (out, w) = resolve_with(text, &[("listings/main.rs", MAIN)]);
        assert_eq!(out, text);
        assert_eq!(w.len(), 2);
        assert_eq!((w[0].line, w[1].line), (3, 4));
        assert!(
            w[0].message.starts_with("{{#include missing.rs}}: "),
            "{}",
            w[0].message
        );
        assert!(w[0].message.contains("does not exist"));
        assert!(
            w[1].message.contains("no anchor \"nowhere\""),
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

    #[test]
    fn doubling_includes_stop_at_the_size_cap() {
        let big = "x".repeat(1 << 20);
        let files = [
            ("src/big.md", big.as_str()),
            ("src/d0.md", "{{#include big.md}}{{#include big.md}}"),
        ];
        let text = "{{#include d0.md}}\n".repeat(40);
        let (out, w) = resolve_with(&text, &files);
        assert!(out.len() <= MAX_ADDED_BYTES + text.len(), "{}", out.len());
        assert!(w.iter().any(|w| w.message.contains("MB")), "{w:?}");
    }
}
