//! The conformance cases, read from the suites kept in `tests/suites/`.

use std::path::Path;

/// One case: an example of a Markdown spec, or an html5lib tree-construction input.
pub struct Case {
    /// `commonmark:12`, `gfm:640`, `gfm-ext:19`, `html5lib:tests1.dat#3`.
    pub id: String,
    /// The chapter's source.
    pub source: String,
    /// The HTML the spec expects (Markdown cases only).
    pub expected: Option<String>,
}

/// A suite: its cases become one book.
pub struct Suite {
    pub name: &'static str,
    pub markdown: bool,
    pub cases: Vec<Case>,
}

/// All three suites.
pub fn suites(root: &Path) -> Vec<Suite> {
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("suite file");
    let mut gfm = spec_examples(&read("gfm/spec.txt"), "gfm");
    gfm.extend(spec_examples(&read("gfm/extensions.txt"), "gfm-ext"));
    vec![
        Suite {
            name: "commonmark",
            markdown: true,
            cases: spec_examples(&read("commonmark/spec.txt"), "commonmark"),
        },
        Suite {
            name: "gfm",
            markdown: true,
            cases: gfm,
        },
        Suite {
            name: "html5lib",
            markdown: false,
            cases: html5lib_inputs(&root.join("html5lib")),
        },
    ]
}

/// The examples of a spec in the CommonMark format: a fence of 32 backticks and `example`,
/// the Markdown, a line with a dot, the HTML, the closing fence; `→` stands for a tab.
/// Examples marked `disabled` are left out, as the spec's own runner does.
fn spec_examples(text: &str, prefix: &str) -> Vec<Case> {
    let fence = "`".repeat(32);
    let mut cases = Vec::new();
    let mut number = 0;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(kind) = line.strip_prefix(&format!("{fence} example")) else {
            continue;
        };
        number += 1;
        let (mut markdown, mut html, mut in_html) = (String::new(), String::new(), false);
        for l in lines.by_ref() {
            if l == fence {
                break;
            }
            if l == "." && !in_html {
                in_html = true;
                continue;
            }
            let target = if in_html { &mut html } else { &mut markdown };
            target.push_str(&l.replace('→', "\t"));
            target.push('\n');
        }
        if kind.trim() == "disabled" {
            continue;
        }
        cases.push(Case {
            id: format!("{prefix}:{number}"),
            source: markdown,
            expected: Some(html),
        });
    }
    cases
}

/// The `#data` sections of every `.dat` file (the `scripted/` ones too), in file-name order.
fn html5lib_inputs(dir: &Path) -> Vec<Case> {
    let mut files: Vec<_> = walk(dir);
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("dat file");
        let name = file.strip_prefix(dir).unwrap().display().to_string();
        let mut k = 0;
        let mut rest = text.as_str();
        while let Some(at) = find_section(rest, "#data\n") {
            let body = &rest[at + "#data\n".len()..];
            let end = find_section(body, "#errors\n").unwrap_or(body.len());
            k += 1;
            let data = body[..end].strip_suffix('\n').unwrap_or(&body[..end]);
            cases.push(Case {
                id: format!("html5lib:{name}#{k}"),
                source: data.to_string(),
                expected: None,
            });
            rest = &body[end..];
        }
    }
    cases
}

/// Where a section header starts a line.
fn find_section(text: &str, header: &str) -> Option<usize> {
    if text.starts_with(header) {
        return Some(0);
    }
    text.find(&format!("\n{header}")).map(|i| i + 1)
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("suite folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "dat") {
            out.push(path);
        }
    }
    out
}
