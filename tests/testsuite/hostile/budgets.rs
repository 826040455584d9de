//! Work that was not bounded (issue 27): inputs of a few kilobytes that made a build run for
//! minutes or abort out of memory. Each test builds one such project and asserts that the
//! build ends, with a clear message naming the file, the directive or rule and the budget
//! where a budget is what stops it, and never with an abort. The time limit is a hang guard,
//! far above what the fixed code takes; memory is held to 200 MB ([`super::bounded`]), and
//! `tools/stress.sh` measures both on a release build.

use std::time::Duration;

use super::bounded_build;
use crate::common::{Fixture, Run};

const BOOK: &str = "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n";

/// Longer than any of these builds takes on a loaded machine; reached only by a hang.
const HANG: Duration = Duration::from_secs(30);

/// A project of `files` whose one chapter is `chapter`, with `extra` metadata.
fn project(chapter: &str, extra: &str, files: &[(&str, &str)]) -> Fixture {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        format!("{BOOK}{extra}\n[[chapters]]\nfile = \"{chapter}\"\n"),
    );
    for (path, text) in files {
        f.write(path, text);
    }
    f
}

/// Builds `f` under the hang guard and the memory limit.
fn build(f: &Fixture, what: &str) -> Run {
    bounded_build(f, HANG, what)
}

/// The build stopped with an error (exit status 1, not a signal or a panic) whose message
/// holds every one of `words`.
fn assert_stopped_by_budget(r: &Run, words: &[&str]) {
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    for w in words {
        assert!(r.stderr.contains(w), "{w:?} not in:\n{}", r.stderr);
    }
}

/// Issue 27: only the depth of inclusion was capped, so a file including itself six times per
/// level made 6^10 copies and aborted out of memory. The book's budget of inclusions stops it.
#[test]
fn an_include_of_itself_six_times_per_level_stops_at_the_books_budget() {
    let six = "x {{#include loop.md}}\n".repeat(6);
    let f = project(
        "ch.md",
        "",
        &[
            ("ch.md", "# Loop\n\n{{#include loop.md}}\n"),
            ("loop.md", &six),
        ],
    );
    let r = build(&f, "a self-including file");
    assert_stopped_by_budget(
        &r,
        &[
            "loop.md:",
            "{{#include loop.md}}",
            "budget of 20000 inclusions",
        ],
    );
    assert!(!f.path("out.epub").exists());
}

/// Issue 27: an inclusion after a long prefix on its line repeats the prefix before every
/// included line, after the size check: 50,000 lines after 50 KB made 2.5 GB. What the
/// repetition writes is paid for before it is written.
#[test]
fn an_include_after_a_long_prefix_pays_for_the_prefix_on_every_line() {
    let lines = "\n".repeat(50_000) + "end\n";
    let chapter = format!(
        "# Prefix\n\n{}{{{{#include lines.md}}}}\n",
        "p".repeat(50_000)
    );
    let f = project("ch.md", "", &[("ch.md", &chapter), ("lines.md", &lines)]);
    let r = build(&f, "an include after a long prefix");
    assert_stopped_by_budget(&r, &["ch.md:3", "{{#include lines.md}}", "32 MB"]);
}

/// Issue 27: each `{{` was searched to the next `}}`, so `{{ ` repeated with one `}}` at the
/// end took over a minute for 900 KB. The text is no directive and builds as written.
#[test]
fn many_openings_and_one_close_build_in_one_scan() {
    let chapter = format!("# Braces\n\n{}}}}}\n", "{{ ".repeat(300_000));
    let f = project("ch.md", "", &[("ch.md", &chapter)]);
    let r = build(&f, "900 KB of `{{ `");
    assert!(r.ok, "{}", r.stderr);
}

/// Issue 27: 20,000 headings with one text had their ids numbered by trying every number from
/// 1 for each: quadratic, over a minute.
#[test]
fn twenty_thousand_identical_headings_are_numbered_in_linear_time() {
    let chapter = format!("# Same\n\n{}", "## Same\n\nText.\n\n".repeat(20_000));
    let f = project("ch.md", "", &[("ch.md", &chapter)]);
    let r = build(&f, "20,000 identical headings");
    assert!(r.ok, "{}", r.stderr);
    // The title holds `same`; the long chapter is cut into several documents.
    let epub = crate::common::entries(&f.path("out.epub"));
    let ids = |id: &str| {
        let id = format!("id=\"{id}\"");
        epub.values()
            .filter(|d| String::from_utf8_lossy(d).contains(&id))
            .count()
    };
    assert_eq!(
        (ids("same-1"), ids("same-20000"), ids("same-20001")),
        (1, 1, 0)
    );
}

/// Issue 27: cleanup rules whose replacement repeats the match, chained, doubled the text at
/// every rule: 40 rules on 1,000 characters would make a terabyte. The chain may make a text
/// at most four times as long (plus 1 KB); the third doubling passes that.
#[test]
fn chained_rules_that_repeat_the_match_stop_at_the_growth_budget() {
    let rule = "[[cleanup]]\npattern = '甲'\nreplace = '$0$0'\n\n";
    let f = project(
        "ch.txt",
        "",
        &[
            ("ch.txt", &"甲".repeat(1000)),
            ("cleanup.toml", &rule.repeat(40)),
        ],
    );
    let r = build(&f, "chained doubling rules");
    // The third rule's pattern is on line 10 of cleanup.toml.
    assert_stopped_by_budget(&r, &["ch.txt", "cleanup.toml:10", "`甲`", "4 times"]);
}

/// Issue 27: a look-around pattern's backtracking was capped per search, not per text: a
/// pattern that backtracks a little less than the cap for every match of a 190 KB text ran
/// for minutes. Its searches over one text have a budget.
#[test]
fn a_look_around_rule_that_backtracks_at_every_match_stops_at_its_budget() {
    // For each run of 20 `a`s the first alternative tries every way to cut it into `a` and
    // `aa` (tens of thousands of steps, under the limit of one search) before the second
    // matches: 9,000 times, over 100 s before the fix.
    let rule = "[[cleanup]]\npattern = '(?:(?:(?=a)(?:a|aa))+x|a+)(?=b)'\nreplace = 'c'\n";
    let text = format!("{}\n", format!("{}b", "a".repeat(20)).repeat(9_000));
    let f = project("ch.txt", "", &[("ch.txt", &text), ("cleanup.toml", rule)]);
    let r = build(&f, "a backtracking look-around rule");
    assert_stopped_by_budget(&r, &["ch.txt", "cleanup.toml:2", "budget"]);
}
