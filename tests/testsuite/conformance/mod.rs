//! Conformance: every CommonMark spec example and every GFM example (spec and extensions) as
//! a Markdown chapter, every html5lib tree-construction input as an HTML chapter, built into
//! one book per suite; each book checked by EPUBCheck (when installed; required under CI), and
//! the Markdown examples' chapters compared with the spec's expected HTML (see `normalize`).
//!
//! Prints the counts (cases run, built EPUBCheck-clean, meaning kept). Fails when a case is
//! refused by the build, when EPUBCheck reports a case not listed in
//! `tests/suites/known-unclean.txt`, or when a case changes its meaning without being listed in
//! `tests/suites/known-differences.txt` (the sanitiser's intended changes, each with its
//! reason): a ratchet, as the lists can only shrink by fixing a case. Listed cases that are
//! fine now are printed, to be taken off their list.

mod cases;
mod normalize;

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cases::{Case, Suite};

/// A built suite: the cases that made it into the book (in spine order) and the book.
struct Built<'a> {
    suite: &'a Suite,
    epub: PathBuf,
    /// Cases the build refused (with the error), left out of the book.
    refused: Vec<(String, String)>,
    /// Indexes into `suite.cases` of the chapters, in order.
    chapters: Vec<usize>,
}

#[test]
fn conformance_suites_build_clean_and_keep_their_meaning() {
    let root = common::repo().join("tests/suites");
    let suites = cases::suites(&root);
    let dir = tempfile::tempdir().unwrap();
    let built: Vec<Built<'_>> = suites.iter().map(|s| build(s, dir.path())).collect();
    let unclean = epubcheck_all(&built);
    let known = known_list(&root.join("known-differences.txt"));
    let known_unclean = known_list(&root.join("known-unclean.txt"));
    let mut failures = Vec::new();
    let mut fixed = Vec::new();
    for b in &built {
        let (ran, refused) = (b.suite.cases.len(), b.refused.len());
        let bad = unclean.get(b.suite.name).map_or(0, BTreeSet::len);
        let clean = match unclean.contains_key(b.suite.name) {
            true => format!("{}", b.chapters.len() - bad),
            false => "not checked (no EPUBCheck)".to_string(),
        };
        let mut line = format!(
            "{}: {ran} cases; built {}; EPUBCheck-clean {clean}",
            b.suite.name,
            ran - refused
        );
        if b.suite.markdown {
            let changed = meaning_changed(b);
            let kept = b.chapters.len() - changed.len();
            line.push_str(&format!("; meaning kept {kept}"));
            for (id, diff) in &changed {
                if !known.contains(id.as_str()) {
                    failures.push(format!("{id}: meaning changed\n{diff}"));
                }
            }
            let changed: BTreeSet<&str> = changed.iter().map(|(id, _)| id.as_str()).collect();
            fixed.extend(
                b.chapters
                    .iter()
                    .map(|&i| b.suite.cases[i].id.as_str())
                    .filter(|id| known.contains(*id) && !changed.contains(id)),
            );
        }
        println!("{line}");
        failures.extend(
            b.refused
                .iter()
                .map(|(id, e)| format!("{id}: refused: {e}")),
        );
        let bad = unclean.get(b.suite.name);
        for id in bad.into_iter().flatten() {
            if !known_unclean.contains(id) {
                failures.push(format!("{id}: EPUBCheck reported it"));
            }
        }
        if let Some(bad) = bad {
            fixed.extend(
                b.chapters
                    .iter()
                    .map(|&i| b.suite.cases[i].id.as_str())
                    .filter(|id| known_unclean.contains(*id) && !bad.contains(*id)),
            );
        }
    }
    if !fixed.is_empty() {
        println!("fine now, take off known-differences.txt or known-unclean.txt: {fixed:?}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Writes the suite as a project (chapters `case-NNNN`) and builds it. Chapters the build
/// would refuse are found first by `check` (which goes on past them) and left out.
fn build<'a>(suite: &'a Suite, dir: &Path) -> Built<'a> {
    let project = dir.join(suite.name);
    std::fs::create_dir_all(&project).unwrap();
    let ext = if suite.markdown { "md" } else { "html" };
    let name = |i: usize| format!("case-{:04}.{ext}", i + 1);
    for (i, case) in suite.cases.iter().enumerate() {
        let text = match suite.markdown {
            true => format!("# Example {}\n\n{}", i + 1, case.source),
            false => case.source.clone(),
        };
        std::fs::write(project.join(name(i)), text).unwrap();
        if let Some(expected) = &case.expected {
            placeholder_images(&project, expected);
        }
    }
    let refused = refused_by_check(&project, suite, &name);
    let chapters: Vec<usize> = (0..suite.cases.len())
        .filter(|i| !refused.iter().any(|(f, _)| *f == *i))
        .collect();
    let mut meta = format!(
        "[book]\ntitle = \"{}\"\nauthors = [\"suite\"]\nlanguage = \"en\"\n\n[layout]\ntitle-page = false\n\n",
        suite.name
    );
    for &i in &chapters {
        meta.push_str(&format!("[[chapters]]\nfile = \"{}\"\n", name(i)));
        if !suite.markdown {
            meta.push_str(&format!("title = \"Case {}\"\n", i + 1));
        }
    }
    std::fs::write(project.join("metadata.toml"), meta).unwrap();
    let epub = dir.join(format!("{}.epub", suite.name));
    let r = common::run(
        common::epubforge()
            .args(["build", "--no-cache", "-q", "-o"])
            .arg(&epub)
            .arg(&project),
    );
    assert!(r.ok, "{} did not build: {}", suite.name, r.stderr);
    let refused = refused
        .into_iter()
        .map(|(i, e)| (suite.cases[i].id.clone(), e))
        .collect();
    Built {
        suite,
        epub,
        refused,
        chapters,
    }
}

/// The chapters `check` finds errors in: (case index, message).
fn refused_by_check(
    project: &Path,
    suite: &Suite,
    name: &dyn Fn(usize) -> String,
) -> Vec<(usize, String)> {
    let mut meta = format!(
        "[book]\ntitle = \"{}\"\nauthors = [\"suite\"]\nlanguage = \"en\"\n\n",
        suite.name
    );
    for i in 0..suite.cases.len() {
        meta.push_str(&format!("[[chapters]]\nfile = \"{}\"\n", name(i)));
    }
    std::fs::write(project.join("metadata.toml"), meta).unwrap();
    let r = common::run(
        common::epubforge()
            .args(["check", "--format", "json", "--no-epubcheck"])
            .arg(project),
    );
    let report: serde_json::Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("check's JSON: {e}\n{}\n{}", r.stdout, r.stderr));
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .filter_map(|f| {
            let path = f["path"].as_str()?;
            let file = Path::new(path).file_name()?.to_str()?;
            let n: usize = file
                .strip_prefix("case-")?
                .split('.')
                .next()?
                .parse()
                .ok()?;
            Some((n - 1, f["message"].as_str().unwrap_or("").to_string()))
        })
        .collect()
}

/// Relative images an example shows get a tiny PNG (or JPEG) in the project, as an author's
/// images would be there; absolute ones (`/url`) cannot, and the build decides about them.
fn placeholder_images(project: &Path, expected: &str) {
    let re = regex::Regex::new(r#"<img src="([^"]*)""#).unwrap();
    for c in re.captures_iter(expected) {
        let src = c[1].replace("&amp;", "&");
        let path = src.split(['?', '#']).next().unwrap_or("");
        let decoded = normalize::percent_decode(path);
        if decoded.is_empty()
            || decoded.starts_with('/')
            || decoded.contains("..")
            || decoded.contains(':')
        {
            continue;
        }
        let file = project.join(&decoded);
        if file.exists() {
            continue;
        }
        let jpeg = decoded.ends_with(".jpg") || decoded.ends_with(".jpeg");
        let format = match jpeg {
            true => image::ImageFormat::Jpeg,
            false => image::ImageFormat::Png,
        };
        let mut bytes = std::io::Cursor::new(Vec::new());
        image::RgbImage::from_pixel(2, 2, image::Rgb([90, 90, 90]))
            .write_to(&mut bytes, format)
            .unwrap();
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(file, bytes.into_inner()).unwrap();
    }
}

/// EPUBCheck on every book (in the suite's shared JVM, see `common::batch`): suite name to the
/// ids of the cases whose documents it reported. Empty when EPUBCheck is not installed (outside CI).
fn epubcheck_all(built: &[Built<'_>]) -> BTreeMap<&'static str, BTreeSet<String>> {
    // SUITES_EPUBCHECK=0 skips it while working on the normalisation (never under CI).
    let skip = std::env::var("SUITES_EPUBCHECK").is_ok_and(|v| v == "0")
        && std::env::var("CI").map_or(true, |v| v != "true");
    let found = common::epubcheck::installed();
    let Some(checker) = found.filter(|_| !skip) else {
        eprintln!("note: EPUBCheck not installed; the suites were built but not checked");
        return BTreeMap::new();
    };
    let reports: Vec<_> = built
        .iter()
        .map(|b| common::batch::check(&checker, &b.epub))
        .collect();
    let mut out = BTreeMap::new();
    for (b, report) in built.iter().zip(reports) {
        let mut bad = BTreeSet::new();
        for m in &report.messages {
            let doc = m.path.as_deref().and_then(chapter_number);
            let id = match doc.and_then(|n| b.chapters.get(n - 1)) {
                Some(&i) => b.suite.cases[i].id.clone(),
                None => format!("{} (book-wide): {} {}", b.suite.name, m.id, m.message),
            };
            bad.insert(id);
        }
        if !report.is_clean() && bad.is_empty() {
            bad.insert(format!(
                "{}: fatal={} errors={} warnings={}",
                b.suite.name, report.fatal, report.errors, report.warnings
            ));
        }
        out.insert(b.suite.name, bad);
    }
    out
}

/// `EPUB/text/chapter-0012.xhtml` → 12.
fn chapter_number(entry: &str) -> Option<usize> {
    let file = entry.split("chapter-").nth(1)?;
    file.get(..4)?.parse().ok()
}

/// The Markdown cases whose chapter body does not match the expected HTML: (id, both
/// canonical forms).
fn meaning_changed(b: &Built<'_>) -> Vec<(String, String)> {
    let entries = common::entries(&b.epub);
    let mut out = Vec::new();
    for (n, &i) in b.chapters.iter().enumerate() {
        let case: &Case = &b.suite.cases[i];
        let name = format!("EPUB/text/chapter-{:04}.xhtml", n + 1);
        let doc = String::from_utf8(entries[&name].clone()).unwrap();
        let ours = normalize::canonical(&chapter_body(&doc));
        let expected = normalize::canonical(case.expected.as_deref().unwrap_or(""));
        if ours != expected {
            out.push((
                case.id.clone(),
                format!("  expected: {expected}\n  ours:     {ours}"),
            ));
        }
    }
    out
}

/// The chapter's content: inside its `<section>`, after its `<h1>`.
fn chapter_body(doc: &str) -> String {
    let start = doc.find("</h1>").map_or(0, |i| i + 5);
    let end = doc.rfind("</section>").unwrap_or(doc.len());
    doc.get(start..end).unwrap_or("").to_string()
}

/// The ids listed in a known-differences file (first word of each line; `#` comments).
fn known_list(path: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}
