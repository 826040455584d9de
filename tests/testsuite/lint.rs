//! The source linter of `check` end to end (issue 16 item 4): each code at file:line:col on
//! the downloaded-novel fixture, read through the build's own decoding, and `[check] ignore`
//! with the report of entries that suppress nothing.

use crate::common;

use std::path::Path;

use common::{Fixture, epubforge, run};

const BOOK: &str =
    "[book]\ntitle = \"青锋录\"\nauthors = [\"林某\"]\nlanguage = \"zh-CN\"\ndescription = \"d\"\n";

/// The downloaded-novel fixture (GB18030, CRLF) with `extra` metadata before its chapter.
fn web_novel(extra: &str) -> Fixture {
    let f = Fixture::empty();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web-novel");
    f.write("青锋录.txt", std::fs::read(dir.join("青锋录.txt")).unwrap());
    f.write(
        "metadata.toml",
        format!(
            "{BOOK}{extra}\n[[chapters]]\nfile = \"青锋录.txt\"\nencoding = \"gb18030\"\nsplit = \"auto\"\n"
        ),
    );
    f
}

/// `check --format json`'s findings as (code, line, column, message), without the cleanup
/// dry run's notes.
fn findings(f: &Fixture) -> Vec<(String, Option<u64>, Option<u64>, String)> {
    let r = run(epubforge()
        .args(["check", "--format", "json", "--no-epubcheck"])
        .arg(f.path("")));
    let report: serde_json::Value = serde_json::from_str(&r.stdout).expect(&r.stderr);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] != "note")
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["line"].as_u64(),
                f["column"].as_u64(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn at(found: &[(String, Option<u64>, Option<u64>, String)], code: &str) -> Vec<(u64, u64)> {
    found
        .iter()
        .filter(|f| f.0 == code)
        .map(|f| (f.1.unwrap_or(0), f.2.unwrap_or(0)))
        .collect()
}

#[test]
fn check_lists_each_lint_code_at_its_line_on_the_downloaded_novel() {
    let found = findings(&web_novel("[text]\ncleanup-preset = \"web-novel\"\n"));
    // 锟斤拷 in line 24, a zero-width space before `。` in line 25, two private-use
    // characters in line 35: columns in characters of the decoded line.
    assert_eq!(at(&found, "mojibake"), [(24, 21)], "{found:#?}");
    assert_eq!(at(&found, "zero-width"), [(25, 25)], "{found:#?}");
    assert_eq!(at(&found, "private-use"), [(35, 22)], "{found:#?}");
    // The preset removes every boilerplate line: none is reported again.
    assert_eq!(at(&found, "boilerplate"), [], "{found:#?}");
    // Nothing else of the linter's: the story's paragraphs are clean.
    for code in [
        "unmatched-bracket",
        "doubled-punctuation",
        "repeated-paragraph",
        "long-paragraph",
        "replacement-character",
    ] {
        assert_eq!(at(&found, code), [], "{code}: {found:#?}");
    }
}

#[test]
fn without_the_preset_the_boilerplate_lines_are_reported() {
    let found = findings(&web_novel(""));
    let lines: Vec<u64> = at(&found, "boilerplate").iter().map(|a| a.0).collect();
    // The first five, then a count of the rest.
    assert_eq!(lines, [3, 4, 20, 23, 36, 0], "{found:#?}");
    let more = found.iter().find(|f| f.0 == "boilerplate" && f.1.is_none());
    assert!(more.unwrap().3.starts_with("5 more"), "{more:?}");
}

#[test]
fn ignore_by_code_file_and_line_and_unused_entries_are_reported() {
    let ignore = "[check]\nignore = [\n  \"mojibake\",\n  { code = \"zero-width\", files = \"*.txt\" },\n  { code = \"private-use\", files = \"青锋录.txt\", line = 35 },\n  { code = \"doubled-punctuation\", files = \"other/*.txt\" },\n  { code = \"private-use\", files = \"青锋录.txt\", line = 34 },\n]\n";
    let f = web_novel(&format!("[text]\ncleanup-preset = \"web-novel\"\n{ignore}"));
    let found = findings(&f);
    for code in ["mojibake", "zero-width", "private-use"] {
        assert_eq!(at(&found, code), [], "{code}: {found:#?}");
    }
    // The entries at lines 13 and 14 of metadata.toml suppressed nothing.
    let unused = at(&found, "unused-ignore");
    assert_eq!(unused, [(13, 3), (14, 3)], "{found:#?}");
    let message = &found.iter().find(|f| f.0 == "unused-ignore").unwrap().3;
    assert!(message.contains("doubled-punctuation"), "{message}");
}

#[test]
fn an_unknown_code_in_ignore_is_an_error_at_its_place() {
    let f = web_novel("[check]\nignore = [\"mojibak\"]\n");
    let r = run(epubforge()
        .args(["check", "--no-epubcheck"])
        .arg(f.path("")));
    assert!(
        r.stderr.contains("metadata.toml:7:11") || r.stdout.contains("metadata.toml:7:11"),
        "{}{}",
        r.stdout,
        r.stderr
    );
    assert!(
        (r.stdout.clone() + &r.stderr).contains("`mojibak` is not a finding's code"),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

/// A novel in one GBK text file with the traps of real downloads planted: a decorated
/// heading (line 7), an empty chapter (line 10) and a dash typed inside a numeral (line 15).
fn trapped_novel() -> Fixture {
    let body = "　　话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。";
    let lines = [
        "第一卷 起",
        "",
        "第一回 甲",
        "",
        body,
        "",
        "===第二回 乙===",
        "",
        body,
        "第三回 丙",
        "第四回 丁",
        "",
        body,
        "",
        "第十—回 戊",
        body,
        "第二卷 承",
        "第五回 己",
        body,
    ];
    let text = lines.join("\r\n");
    let (gbk, _, bad) = encoding_rs::GBK.encode(&text);
    assert!(!bad);
    let f = Fixture::empty();
    f.write("小说.txt", gbk);
    f.write(
        "metadata.toml",
        format!("{BOOK}\n[[chapters]]\nfile = \"小说.txt\"\nsplit = \"auto\"\n"),
    );
    f
}

/// (depth, title) of each entry of a nested outline or table of contents.
fn flatten<T>(
    entries: &[T],
    children: &dyn Fn(&T) -> &[T],
    title: &dyn Fn(&T) -> String,
) -> Vec<(usize, String)> {
    fn walk<T>(
        entries: &[T],
        depth: usize,
        children: &dyn Fn(&T) -> &[T],
        title: &dyn Fn(&T) -> String,
        out: &mut Vec<(usize, String)>,
    ) {
        for e in entries {
            out.push((depth, title(e)));
            walk(children(e), depth + 1, children, title, out);
        }
    }
    let mut out = Vec::new();
    walk(entries, 1, children, title, &mut out);
    out
}

#[test]
fn check_prints_the_outline_the_build_then_makes_and_warns_at_each_trap() {
    let f = trapped_novel();
    let r = run(epubforge()
        .args(["check", "--format", "json", "--no-epubcheck"])
        .arg(f.path("")));
    let report: serde_json::Value = serde_json::from_str(&r.stdout).expect(&r.stderr);
    let outline = report["outline"]["entries"].as_array().unwrap().clone();
    let none = Vec::new();
    let printed = flatten(
        &outline,
        &|e| e["children"].as_array().map_or(&[][..], |c| c.as_slice()),
        &|e| e["title"].as_str().unwrap().to_string(),
    );
    let lines: Vec<u64> = outline
        .iter()
        .flat_map(|v| std::iter::once(v).chain(v["children"].as_array().unwrap_or(&none)))
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    // `第十—回` (line 15) is read as 第十一回, its dash a typo for 一: a chapter of its own.
    let want = vec![1, 3, 10, 11, 15, 17, 18];
    assert_eq!(lines, want, "{outline:#?} {:#?}", findings(&f));

    let build = f.build(&[]);
    assert!(build.ok, "{}", build.stderr);
    let epub = epubforge::inspect::open(&f.path("out.epub")).unwrap();
    let listed: Vec<_> = epub.toc.clone();
    let nav = flatten(&listed, &|e| &e.children, &|e| e.title.clone());
    assert_eq!(printed, nav);
    let titles: Vec<&str> = printed.iter().map(|(_, t)| t.as_str()).collect();
    for title in [
        "第一卷 起",
        "第一回 甲",
        "第三回 丙",
        "第四回 丁",
        "第二卷 承",
        "第五回 己",
    ] {
        assert!(titles.contains(&title), "{title}: {printed:?}");
    }

    let found = findings(&f);
    let not_taken: Vec<u64> = at(&found, "heading-not-taken")
        .iter()
        .map(|a| a.0)
        .collect();
    // The decorated line is warned about where it is, and so is the heading read through
    // its typo, with the number it was read as; the empty chapter at its heading.
    assert_eq!(not_taken, [7], "{found:#?}");
    let decorated = found.iter().find(|f| f.0 == "heading-not-taken").unwrap();
    assert!(decorated.3.contains("decoration"), "{decorated:?}");
    assert_eq!(at(&found, "heading-repaired"), [(15, 1)], "{found:#?}");
    let repaired = found.iter().find(|f| f.0 == "heading-repaired").unwrap();
    assert!(repaired.3.contains("read as 11"), "{repaired:?}");
    assert_eq!(at(&found, "empty-chapter"), [(10, 0)], "{found:#?}");

    // The text report: the outline with file:line and sizes, and the excerpt of the GBK
    // file decoded as the build decodes it.
    let r = run(epubforge()
        .args(["check", "--no-epubcheck"])
        .arg(f.path("")));
    let head = "outline: 2 volume(s), 5 chapter(s)\n";
    assert!(r.stdout.starts_with(head), "{}", r.stdout);
    assert!(
        r.stdout.contains("\n    第三回 丙  (小说.txt:10, empty)\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("\n  第二卷 承  (小说.txt:17, 29 chars)\n"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains(" 7 | ===第二回 乙===\n"), "{}", r.stderr);
    assert!(!r.stderr.contains('\u{fffd}'), "{}", r.stderr);
}

/// Regression: the outline and the split's warnings cited lines of the text the cleanup rules
/// had left, so every line the preset removed shifted the lines after it; they cite the file.
#[test]
fn check_cites_the_source_files_lines_after_the_preset_removed_some() {
    let body = "　　话说天下大势，分久必合，合久必分。";
    let lines = [
        "第一章 甲",
        body,
        "www.example-novels.com",
        "请收藏本站：https://www.example-novels.com",
        "",
        "第二章 乙",
        body,
        "☆☆☆正文结束[75txt.com];更多章节请查看尾部网址☆☆☆",
        "Txt66.com",
        "第四章 丁",
        body,
    ];
    let f = Fixture::empty();
    f.write("小说.txt", lines.join("\n"));
    f.write(
        "metadata.toml",
        format!(
            "{BOOK}\n[text]\ncleanup-preset = \"web-novel\"\n\n[[chapters]]\nfile = \"小说.txt\"\nsplit = \"auto\"\n"
        ),
    );
    let r = run(epubforge()
        .args(["check", "--format", "json", "--no-epubcheck"])
        .arg(f.path("")));
    let report: serde_json::Value = serde_json::from_str(&r.stdout).expect(&r.stderr);
    let outline: Vec<u64> = report["outline"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    assert_eq!(outline, [1, 6, 10], "{:#}", report["outline"]);
    let found = findings(&f);
    let gap = found.iter().find(|f| f.3.contains("jumps from 2 to 4"));
    assert_eq!(gap.and_then(|g| g.1), Some(10), "{found:#?}");
    assert!(gap.unwrap().3.contains("(line 10)"), "{gap:?}");
}
