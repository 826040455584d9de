//! Fuzz targets as property tests (stable Rust has no cargo-fuzz): metadata parsing, each
//! converter, inspect/verify on damaged EPUBs, and the budgets on work (includes, cleanup rules,
//! heading detection). Each runs `PROPTEST_CASES` cases (default 128) in `cargo test`;
//! `tools/fuzz.sh` runs them with many more. The property is always "no panic", plus
//! well-formed output where the stage promises it and output within its budget's bound where
//! there is one. Crashes found become named regression tests at the bottom.

use std::io::Cursor;
use std::path::Path;

use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// `body` must be well-formed XML content inside an XHTML root.
fn assert_well_formed(body: &str) {
    let doc = format!(
        "<section xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">{body}</section>"
    );
    if let Err(e) = roxmltree::Document::parse(&doc) {
        panic!("not well-formed ({e}):\n{body}");
    }
}

/// Lines that look like metadata.toml, to get past the TOML parser into validation.
fn toml_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[book]".to_string()),
        Just("[[chapters]]".to_string()),
        Just("[[parts]]".to_string()),
        Just("[[parts.chapters]]".to_string()),
        Just("[output]".to_string()),
        Just("title = \"T\"".to_string()),
        Just("authors = [\"A\"]".to_string()),
        Just("language = \"en\"".to_string()),
        Just("file = \"1.txt\"".to_string()),
        Just("glob = \"*.txt\"".to_string()),
        Just("cover = \"c.png\"".to_string()),
        Just("series-index = 2".to_string()),
        Just("published = 2026-01-01".to_string()),
        (
            "[a-z-]{1,12}",
            prop_oneof![
                "\"[^\"\\\\\n]{0,20}\"",
                "-?[0-9]{1,6}",
                Just("[]".to_string()),
                Just("{}".to_string()),
                Just("true".to_string()),
                "\"\\.\\./[a-z/]{0,10}\"",
                "\"/[a-z/]{0,10}\"",
            ]
        )
            .prop_map(|(k, v)| format!("{k} = {v}")),
        "\\PC{0,30}",
    ]
}

fn markup_token() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,12}",
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        "</?(p|div|em|strong|a|img|table|tr|td|ul|li|h1|h2|span|br|svg|math|script|style|ruby|rt|section|aside|blockquote|pre|code)>",
        Just("<a href=\"x.html#y\">".to_string()),
        Just("<img src=\"a.png\" alt=\"\">".to_string()),
        Just("<img src=\"javascript:x\">".to_string()),
        Just("&amp;&lt;&#0;&#x1F600;&bogus;".to_string()),
        Just("# ".to_string()),
        Just("## ".to_string()),
        Just("> ".to_string()),
        Just("- ".to_string()),
        Just("1. ".to_string()),
        Just("[^1]".to_string()),
        Just("[^1]: note".to_string()),
        Just("```".to_string()),
        Just("| a | b |\n|---|---|\n".to_string()),
        Just("![i](a.png)".to_string()),
        Just("[l](../x.md)".to_string()),
        Just("<!--".to_string()),
        Just("]]>".to_string()),
        Just("\u{0}\u{1}\u{FFFE}".to_string()),
    ]
}

fn markup_text() -> impl Strategy<Value = String> {
    prop::collection::vec(markup_token(), 0..40).prop_map(|v| v.concat())
}

/// A valid EPUB: the sample book, packaged in memory.
fn sample_epub() -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = crate::project::Project::load(root).unwrap();
    let loaded = crate::convert::book::load_book(&project, Some(0)).unwrap();
    let entries = crate::package::package(&loaded.book);
    crate::archive::write_to(&entries, Cursor::new(Vec::new()))
        .unwrap()
        .into_inner()
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Zero(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..32))
            .prop_map(|(i, v)| Mutation::Insert(i, v)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Zero(i, n)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1);
    match m {
        Mutation::Flip(i, b) => {
            if let Some(x) = bytes.get_mut(i % len) {
                *x ^= b | 1;
            }
        }
        Mutation::Truncate(i) => bytes.truncate(i % len),
        Mutation::Insert(i, v) => {
            let at = i % len;
            bytes.splice(at..at, v.iter().copied());
        }
        Mutation::Zero(i, n) => {
            let at = i % len;
            let end = (at + n).min(bytes.len());
            bytes
                .get_mut(at..end)
                .into_iter()
                .flatten()
                .for_each(|x| *x = 0);
        }
    }
}

/// A piece of an included file: text, line ends, directives naming the three files (after a
/// prefix or not, escaped, broken) and stray braces.
fn include_token() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,8}",
        Just("\n".to_string()),
        r"\{\{#include [abc]\.md\}\}",
        r"\{\{#include [abc]\.md:[0-9]{1,2}(:[0-9]{0,2})?\}\}",
        r"\{\{#playground [abc]\.md\}\}",
        Just("\\{{#include a.md}}".to_string()),
        Just("{{#include missing.md}}".to_string()),
        Just("{{ ".to_string()),
        Just("}}".to_string()),
        Just("{{#title T}}".to_string()),
    ]
}

fn include_file() -> impl Strategy<Value = String> {
    prop::collection::vec(include_token(), 0..12).prop_map(|v| v.concat())
}

/// A cleanup rule's pattern: linear ones, look-around and back-references (fancy-regex), and
/// ones that match everywhere.
fn rule_pattern() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "a+",
        "b",
        "(?s).+",
        "^",
        "$",
        "\\n",
        "(a|aa)+",
        "(?<=a)b",
        "(?=b)a*",
        "(a)\\1",
        "(?:(?=a)(?:a|aa))+x|a+",
        "^.*$",
        "(?<!a)b+",
    ])
}

/// A replacement: nothing, text, the match once or many times, a group.
fn rule_replacement() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "x",
        "$0",
        "$0$0",
        "$0$0$0$0$0$0$0$0",
        "${1}",
        "\n$0\n",
    ])
}

proptest! {
    #![proptest_config(config())]

    /// Includes of three files that include each other in every way: whatever they are, the
    /// output is bounded by the text plus the byte budget, and the reads by the inclusions'
    /// (steps counted, not time).
    #[test]
    fn fuzz_includes_stay_within_their_budget(
        chapter in include_file(),
        files in prop::collection::vec(include_file(), 3),
        max_bytes in 0usize..20_000,
        max_inclusions in 0usize..200,
    ) {
        use crate::convert::includes::{Budget, resolve};
        use std::path::PathBuf;
        let mut reads = 0usize;
        let mut read = |_: &Path, written: &str| {
            reads += 1;
            let k = ["a.md", "b.md", "c.md"].iter().position(|n| *n == written);
            k.map(|k| (PathBuf::from(written), files[k].clone()))
                .ok_or_else(|| crate::convert::includes::ReadError::Missing(PathBuf::from(written)))
        };
        let budget = Budget::new(max_bytes, max_inclusions);
        match resolve(&chapter, Path::new("ch.md"), &mut read, &budget) {
            Ok((out, _)) => prop_assert!(out.len() <= chapter.len() + max_bytes),
            Err(e) => prop_assert!(e.message.contains("budget"), "{e:?}"),
        }
        // Each file is read once per chapter: three files and the missing one.
        prop_assert!(reads <= 4.min(max_inclusions), "{reads} reads");
    }

    /// A chain of cleanup rules that grow the text, match everywhere or backtrack: the text
    /// comes out at most its budget long, or the build stops naming a budget; the changes
    /// made (the work, counted by the tally) are at most one per byte of each rule's input.
    #[test]
    fn fuzz_cleanup_rules_stay_within_their_budget(
        rules in prop::collection::vec((rule_pattern(), rule_replacement()), 1..8),
        text in "[ab\n]{0,300}",
    ) {
        use crate::text_fix::{FileRef, Origin, Rule, Scope, Settings, TextFix, Typography};
        let origin = Origin::File { path: "cleanup.toml".into(), line: 1 };
        let rules: Vec<Rule> = rules
            .iter()
            .map(|(p, r)| Rule::new(p, r, Scope::Text, None, origin.clone()).unwrap())
            .collect();
        let count = rules.len();
        let fix = TextFix::new(Settings {
            rules,
            conversion: None,
            quotes: None,
            typography: Typography::Off,
        });
        let file = FileRef { path: Path::new("ch.txt"), relative: "ch.txt" };
        let mut tally = crate::text_fix::Tally::default();
        let max = crate::text_fix::rules::max_len(text.len());
        let no_headings = crate::text_fix::LineReading {
            heading: &|_| false,
            joined: crate::convert::text::joined_lines,
        };
        match fix.text_file(&text, file, &no_headings, false, Some(&mut tally)) {
            Ok(out) => prop_assert!(out.len() <= max, "{} > {max}", out.len()),
            Err(e) => prop_assert!(e.to_string().contains("budget"), "{e}"),
        }
        let changes: usize = tally.hits.iter().map(|h| h.count).sum();
        prop_assert!(changes <= count * (max + 1), "{changes} changes");
        match fix.text_node(&text, file, None, &mut crate::text_fix::Clock::default()) {
            Ok(out) => prop_assert!(out.map_or(0, |o| o.len()) <= max),
            Err(e) => prop_assert!(e.to_string().contains("budget"), "{e}"),
        }
    }

    /// Heading detection on lines made of heading words: every line is in at most one
    /// section, as a heading or in a body, and no title is longer than its lines (volumes
    /// implied by a numbering that starts over aside).
    #[test]
    fn fuzz_heading_detection_output_is_bounded_by_its_input(
        lines in prop::collection::vec("(第[一二三十百0-9]{1,3}[章卷回]|卷[一二三]|序章|Chapter [0-9]{1,2})? ?[\u{4e00}-\u{4e10}a-z]{0,6}", 0..60),
    ) {
        use crate::convert::split::split;
        use crate::book::SplitMode;
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        let found = split(&lines, &SplitMode::Auto);
        // A volume implied by numbering that starts over has no line of its own, and a title
        // made from its place (`第二卷`): it is left out of both bounds.
        let implied = |s: &&crate::convert::split::Section| s.heading.as_ref().is_some_and(|h| h.implied);
        let written = found.sections.iter().filter(|s| !implied(s));
        prop_assert!(written.count() <= lines.len() + 1);
        let titles: usize = found
            .sections
            .iter()
            .filter(|s| !implied(s))
            .filter_map(|s| s.heading.as_ref())
            .map(|h| h.title.len())
            .sum();
        prop_assert!(titles <= bytes, "{titles} > {bytes}");
        for s in &found.sections {
            prop_assert!(s.body.start <= s.body.end && s.body.end <= lines.len());
        }
    }

    #[test]
    fn fuzz_metadata_parsing_never_panics(lines in prop::collection::vec(toml_line(), 0..24)) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.txt"), "x").unwrap();
        let text = lines.join("\n");
        let meta = dir.path().join("metadata.toml");
        if let Err(e) = crate::project::Project::from_str(&text, dir.path(), &meta) {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn fuzz_metadata_raw_text_never_panics(text in "\\PC{0,200}") {
        let meta = Path::new("/nonexistent/metadata.toml");
        let _ = crate::project::Project::from_str(&text, Path::new("/nonexistent"), meta);
    }

    #[test]
    fn fuzz_decode_and_text_converter(
        bytes in prop::collection::vec(any::<u8>(), 0..4096),
        forced in prop_oneof![Just(None), Just(Some("gb18030")), Just(Some("big5")), Just(Some("shift_jis"))],
        replace in any::<bool>(),
    ) {
        let errors = if replace {
            crate::source::EncodingErrors::Replace
        } else {
            crate::source::EncodingErrors::Fail
        };
        if let Ok(d) = crate::source::decode(&bytes, forced, errors) {
            let c = crate::convert::convert_text(&d.text, replace);
            assert_well_formed(&c.body);
            let _ = crate::convert::text::joined_lines(&d.text);
        }
    }

    #[test]
    fn fuzz_text_converter_on_cjk_lines(text in "([\u{4e00}-\u{4e20}，。“”…]{0,30}\n{0,2}){0,30}") {
        let c = crate::convert::convert_text(&text, true);
        assert_well_formed(&c.body);
        let nonblank = text.split('\n').filter(|l| !l.trim().is_empty()).count();
        let joined = crate::convert::text::joined_lines(&text).len();
        prop_assert!(joined <= nonblank);
    }

    #[test]
    fn fuzz_markdown_converter(src in markup_text()) {
        let mut resolve = |s: &str| -> Result<String, String> { Ok(format!("images/{}", s.len())) };
        if let Ok(f) = crate::convert::markup::markdown_to_xhtml(&src, &mut resolve) {
            assert_well_formed(&f.body);
        }
    }

    #[test]
    fn fuzz_html_converter(src in markup_text()) {
        let mut resolve = |s: &str| -> Result<String, String> { Ok(format!("images/{}", s.len())) };
        if let Ok(f) = crate::convert::markup::html_to_xhtml(&src, &mut resolve) {
            assert_well_formed(&f.body);
        }
    }

    #[test]
    fn fuzz_inspect_and_verify_on_damaged_epubs(muts in prop::collection::vec(mutation(), 1..6)) {
        thread_local!(static SAMPLE: Vec<u8> = sample_epub());
        let mut bytes = SAMPLE.with(|s| s.clone());
        for m in &muts {
            apply(&mut bytes, m);
        }
        if let Ok(epub) = crate::inspect::open_bytes(&bytes) {
            let _ = crate::inspect::render_text(&epub);
        }
        let _ = crate::inspect::verify_bytes(&bytes);
    }

    #[test]
    fn fuzz_isbn_validation(s in "[0-9Xx -]{0,20}") {
        let _ = crate::project::values::check_isbn(&s);
    }
}

#[test]
fn undamaged_sample_epub_reads_and_verifies_clean() {
    let bytes = sample_epub();
    let epub = crate::inspect::open_bytes(&bytes).unwrap();
    assert!(crate::inspect::render_text(&epub).contains("安西烽火"));
    let findings = crate::inspect::verify_bytes(&bytes);
    assert!(findings.is_empty(), "{findings:?}");
}
