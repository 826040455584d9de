//! `check` and `build` agree (issue 14): on the same project, every code the build reports
//! `check` reports too, and what `check` adds is review only ([`crate::check::REVIEW_CODES`]). Each
//! project holds one of the cases where they used to disagree: an HTML chapter (check warned
//! of broken lines the build never joins), a small cover (the build warned, check said
//! nothing), a damaged UTF-8 file, and a gap in the chapter numbers.

use std::collections::HashSet;
use std::path::Path;

use crate::check::REVIEW_CODES;
use crate::diagnostic::Code;
use crate::{BuildOptions, LoadOptions, Project};

fn write_project(dir: &Path, files: &[(&str, Vec<u8>)], book: &str) {
    let mut meta = format!(
        "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\ndescription = \"d\"\n{book}\n"
    );
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
        if !name.ends_with(".png") {
            meta.push_str(&format!("[[chapters]]\nfile = \"{name}\"\n"));
        }
    }
    std::fs::write(dir.join("metadata.toml"), meta).unwrap();
}

fn build_codes(dir: &Path) -> HashSet<Code> {
    let project = Project::load(dir).unwrap();
    let opts = BuildOptions {
        output: Some(dir.join("out/book.epub")),
        source_date_epoch: Some(1_700_000_000),
        ..BuildOptions::default()
    };
    match project.build(&opts) {
        Ok(report) => report.warnings.iter().map(|d| d.code).collect(),
        Err(e) => HashSet::from([e.diagnostic().code]),
    }
}

fn check_codes(dir: &Path) -> HashSet<Code> {
    let report = crate::check_project(dir, &LoadOptions::default());
    report.findings.iter().map(|d| d.code).collect()
}

/// Both sets of codes for one project, checked to agree.
fn agree(files: &[(&str, Vec<u8>)], book: &str) -> (HashSet<Code>, HashSet<Code>) {
    let dir = tempfile::tempdir().unwrap();
    write_project(dir.path(), files, book);
    let (built, checked) = (build_codes(dir.path()), check_codes(dir.path()));
    assert!(
        built.is_subset(&checked),
        "build reports {built:?}, check only {checked:?}"
    );
    let extra: Vec<&Code> = checked
        .difference(&built)
        .filter(|c| !REVIEW_CODES.contains(c))
        .collect();
    assert!(extra.is_empty(), "check alone reports {extra:?}");
    (built, checked)
}

fn small_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image::RgbImage::from_pixel(width, height, image::Rgb([200, 30, 30]))
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn long_text(words: &str) -> String {
    (0..40)
        .map(|i| format!("{words} {i}, and more.\n"))
        .collect()
}

#[test]
fn an_html_chapter_gets_no_broken_line_warnings_from_either() {
    let html = "<p>This paragraph is written\nover two lines in the source</p>\n".repeat(20);
    let (built, checked) = agree(&[("a.html", html.into_bytes())], "");
    assert!(!checked.contains(&Code::BrokenLine), "{checked:?}");
    assert!(built.is_empty(), "{built:?}");
}

#[test]
fn a_small_cover_is_reported_by_both() {
    let files = [
        ("cover.png", small_png(300, 480)),
        ("1.txt", long_text("Some text").into_bytes()),
    ];
    let (built, checked) = agree(&files, "cover = \"cover.png\"");
    assert!(built.contains(&Code::Cover), "{built:?}");
    assert!(checked.contains(&Code::Cover), "{checked:?}");
}

#[test]
fn a_damaged_utf8_file_is_an_encoding_error_for_both() {
    let mut bytes = "好的一行。\n".repeat(200).into_bytes();
    bytes.extend_from_slice(b"\xff\xfe bad\n");
    let (built, checked) = agree(&[("1.txt", bytes)], "");
    assert_eq!(built, HashSet::from([Code::Encoding]));
    assert!(checked.contains(&Code::Encoding), "{checked:?}");
}

#[test]
fn a_numbering_gap_is_review_for_check_alone() {
    let files = [
        ("001.txt", long_text("First chapter").into_bytes()),
        ("003.txt", long_text("Third chapter").into_bytes()),
    ];
    let (built, checked) = agree(&files, "");
    assert!(checked.contains(&Code::NumberingGap), "{checked:?}");
    assert!(!built.contains(&Code::NumberingGap), "{built:?}");
}
