//! Bad input: each gets a one-screen message naming the file (and line and column where there
//! is one), a non-zero exit, and never a damaged EPUB in place of a good one.

use crate::common;

use common::Fixture;

const GOOD: &str = "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\n[[chapters]]\nfile = \"a.txt\"\n";

fn good_book() -> Fixture {
    let f = Fixture::empty();
    f.write("a.txt", "第一段。\n");
    f.write("metadata.toml", GOOD);
    f
}

/// Builds once successfully, then breaks the book, builds again into the same path and
/// returns the failed run after checking the earlier EPUB is untouched and no temp file is left.
fn fails_keeping_previous(f: &Fixture, break_it: impl FnOnce(&Fixture)) -> common::Run {
    let first = f.build(&[]);
    assert!(first.ok, "{}", first.stderr);
    let before = std::fs::read(f.path("out.epub")).unwrap();
    break_it(f);
    let r = f.build(&[]);
    assert!(!r.ok, "build should fail");
    assert_ne!(r.code, Some(0));
    assert_eq!(
        std::fs::read(f.path("out.epub")).unwrap(),
        before,
        "earlier EPUB changed"
    );
    let leftovers: Vec<_> = std::fs::read_dir(f.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    r
}

#[test]
fn missing_chapter_file_is_named_and_existing_output_is_unchanged() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        f.write("metadata.toml", GOOD.replace("a.txt", "missing/b.txt"));
    });
    assert!(r.stderr.contains("missing/b.txt"), "{}", r.stderr);
    assert!(r.stderr.contains("not found"), "{}", r.stderr);
    assert!(r.stderr.contains("metadata.toml:6"), "{}", r.stderr);
}

#[test]
fn invalid_toml_reports_line_and_column_with_caret() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        f.write(
            "metadata.toml",
            GOOD.replace("language = \"zh-CN\"", "language = zh-CN"),
        );
    });
    assert!(r.stderr.contains("metadata.toml:4:"), "{}", r.stderr);
    assert!(r.stderr.contains("4 | language = zh-CN"), "{}", r.stderr);
    assert!(r.stderr.contains('^'), "{}", r.stderr);
}

#[test]
fn unknown_key_names_key_line_and_closest_valid_key() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        f.write("metadata.toml", GOOD.replace("authors", "autors"));
    });
    assert!(r.stderr.contains("unknown field `autors`"), "{}", r.stderr);
    assert!(r.stderr.contains("metadata.toml:3:1"), "{}", r.stderr);
    assert!(r.stderr.contains("did you mean `authors`?"), "{}", r.stderr);
}

#[test]
fn missing_required_key_is_named() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        f.write("metadata.toml", GOOD.replace("language = \"zh-CN\"\n", ""));
    });
    assert!(
        r.stderr.contains("missing field `language`"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("metadata.toml:"), "{}", r.stderr);
}

#[test]
fn cover_that_is_not_an_image_is_refused() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        f.write("covers/cover.jpg", "this is text, not a JPEG");
    });
    assert!(r.stderr.contains("cover.jpg"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("not an image (JPEG, PNG, GIF, WebP or SVG)"),
        "{}",
        r.stderr
    );
}

#[test]
fn empty_chapter_list_is_refused() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        f.write("metadata.toml", GOOD.split("[[chapters]]").next().unwrap());
    });
    assert!(r.stderr.contains("no chapters"), "{}", r.stderr);
    assert!(r.stderr.contains("[[chapters]]"), "{}", r.stderr);
}

#[test]
fn damaged_utf8_names_file_offset_and_remedy() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        let mut bytes = "第一段。第二句。第三句。\n第二段，第四句。\n"
            .as_bytes()
            .to_vec();
        bytes.insert(15, 0xFF);
        f.write("a.txt", bytes);
    });
    assert!(r.stderr.contains("a.txt"), "{}", r.stderr);
    assert!(
        r.stderr.contains("invalid UTF-8 at byte offset 15"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("encoding-errors"), "{}", r.stderr);
}

#[test]
fn glob_matching_nothing_is_an_error() {
    let f = good_book();
    let r = fails_keeping_previous(&f, |f| {
        f.write(
            "metadata.toml",
            GOOD.replace("file = \"a.txt\"", "glob = \"none/*.txt\""),
        );
    });
    assert!(r.stderr.contains("matches no files"), "{}", r.stderr);
}

#[test]
fn missing_project_folder_is_a_clear_error() {
    let f = Fixture::empty();
    let r = f.build(&[]);
    assert!(!r.ok);
    assert!(r.stderr.contains("metadata.toml"), "{}", r.stderr);
    assert!(!f.path("out.epub").exists());
}

#[test]
fn output_with_several_projects_is_refused() {
    let f = good_book();
    let r = common::run(
        common::epubforge()
            .arg("build")
            .arg(f.dir.path())
            .arg(f.dir.path())
            .arg("-o")
            .arg(f.path("x.epub")),
    );
    assert!(!r.ok);
    assert!(r.stderr.contains("-o"), "{}", r.stderr);
}

#[test]
fn a_folder_without_metadata_names_the_file_and_points_at_init() {
    let f = Fixture::empty();
    f.write("a.txt", "第一段。\n");
    for command in ["build", "check"] {
        let r = common::run(common::epubforge().arg(command).arg(f.dir.path()));
        assert!(!r.ok, "{command}: {}", r.stderr);
        assert!(
            r.stderr.contains("metadata.toml"),
            "{command}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("epubforge init"),
            "{command}: {}",
            r.stderr
        );
    }
}
