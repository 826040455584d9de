//! Snapshots of the sample book's package document, navigation document, NCX and first
//! chapter, built with `SOURCE_DATE_EPOCH` fixed: any change to the bytes the build writes
//! shows as a diff (`cargo insta review`, or `INSTA_UPDATE=always cargo test --test testsuite snapshots`
//! once the change is intended).

use crate::common;

use common::{Fixture, run, text};

const DOCUMENTS: [&str; 4] = [
    "EPUB/package.opf",
    "EPUB/nav.xhtml",
    "EPUB/toc.ncx",
    "EPUB/text/chapter-0001.xhtml",
];

#[test]
fn the_sample_books_documents_are_as_pinned() {
    let f = Fixture::sample();
    let built = run(common::epubforge()
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .arg("build")
        .arg(f.dir.path())
        .arg("-o")
        .arg(f.path("book.epub"))
        .arg("--no-cache"));
    assert!(built.ok, "{}", built.stderr);
    let epub = f.path("book.epub");
    for name in DOCUMENTS {
        let snapshot = name.rsplit('/').next().unwrap_or(name).replace('.', "_");
        insta::assert_snapshot!(snapshot, text(&epub, name));
    }
}

/// The metadata of the broken projects below, before each breaks it.
const BOOK: &str = "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n\n[[chapters]]\nfile = \"a.txt\"\n";
/// A chapter that is fine.
const CHAPTER: &str = "第一章 起\n\n话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。\n";

/// A project broken in one way: its name (the snapshots'), metadata.toml, and its files.
struct Broken {
    name: &'static str,
    metadata: String,
    files: Vec<(&'static str, Vec<u8>)>,
}

/// One broken project per kind of problem an author makes, each otherwise a good book.
fn broken_projects() -> Vec<Broken> {
    let text = |s: &str| s.as_bytes().to_vec();
    let md_book = BOOK.replace("a.txt", "a.md");
    let mut bad_utf8 = "第一段。第二句。第三句。\n第二段，第四句。\n"
        .as_bytes()
        .to_vec();
    bad_utf8.insert(15, 0xFF);
    let case = |name, metadata: String, files| Broken {
        name,
        metadata,
        files,
    };
    vec![
        case(
            "metadata_typo",
            BOOK.replace("authors", "autors"),
            vec![("a.txt", text(CHAPTER))],
        ),
        case(
            "unquoted_value",
            BOOK.replace("\"zh-CN\"", "zh-CN"),
            vec![("a.txt", text(CHAPTER))],
        ),
        case(
            "unknown_table_key",
            format!("{BOOK}\n[output]\nsplitt = \"none\"\n"),
            vec![("a.txt", text(CHAPTER))],
        ),
        case(
            "missing_chapter",
            BOOK.replace("a.txt", "missing/b.txt"),
            vec![],
        ),
        case("bad_encoding", BOOK.to_string(), vec![("a.txt", bad_utf8)]),
        case(
            "broken_markdown_link",
            md_book.clone(),
            vec![("a.md", text("# 起\n\n见[下一章](gone.md)。\n"))],
        ),
        case(
            "missing_picture",
            md_book.clone(),
            vec![("a.md", text("# 起\n\n正文。\n\n![地图](images/map.png)\n"))],
        ),
        case(
            "empty_chapter",
            format!("{BOOK}\n[[chapters]]\nfile = \"b.txt\"\n"),
            vec![("a.txt", text(CHAPTER)), ("b.txt", Vec::new())],
        ),
    ]
}

/// Runs `epubforge ARGS` in `dir` (paths relative, so that no temporary folder shows) and
/// returns its exit status and stderr with the durations (`in 0.02 s`) replaced by `<time>`.
fn stderr_of(dir: &std::path::Path, args: &[&str]) -> String {
    let r = run(common::epubforge()
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .args(args));
    let time = regex::Regex::new(r"\b\d+\.\d+ s\b").unwrap();
    let stderr = time.replace_all(&r.stderr, "<time>");
    format!("exit status: {:?}\n{stderr}", r.code)
}

/// Writes the broken project `b` into `book/` under `root`.
fn write_broken(root: &std::path::Path, b: &Broken) {
    let book = root.join("book");
    std::fs::create_dir_all(&book).unwrap();
    std::fs::write(book.join("metadata.toml"), &b.metadata).unwrap();
    for (name, bytes) in &b.files {
        std::fs::write(book.join(name), bytes).unwrap();
    }
}

#[test]
fn build_and_check_stderr_on_broken_projects_are_as_pinned() {
    for b in broken_projects() {
        let root = tempfile::tempdir().unwrap();
        write_broken(root.path(), &b);
        let build = stderr_of(
            root.path(),
            &["build", "book", "-o", "book.epub", "--no-cache"],
        );
        insta::assert_snapshot!(format!("stderr_build_{}", b.name), build);
        let check = stderr_of(root.path(), &["check", "book"]);
        insta::assert_snapshot!(format!("stderr_check_{}", b.name), check);
    }
}

/// The problems of a stderr (blocks that start `error[` or `warning[`, up to the blank line
/// that ends each), as the renderer laid them out.
fn problems(stderr: &str) -> Vec<String> {
    stderr
        .split("\n\n")
        .filter_map(|chunk| {
            let start = chunk.find("error[").or_else(|| chunk.find("warning["))?;
            Some(chunk[start..].to_string())
        })
        .collect()
}

#[test]
fn a_problem_reads_the_same_from_build_and_from_check() {
    let mut compared = 0;
    for b in broken_projects() {
        let root = tempfile::tempdir().unwrap();
        write_broken(root.path(), &b);
        let build = stderr_of(
            root.path(),
            &["build", "book", "-o", "book.epub", "--no-cache"],
        );
        let check = stderr_of(root.path(), &["check", "book"]);
        let from_build = problems(&build);
        assert!(
            !from_build.is_empty(),
            "{}: build found nothing\n{build}",
            b.name
        );
        for problem in from_build {
            assert!(
                check.contains(&problem),
                "{}: build's\n{problem}\nis not in check's\n{check}",
                b.name
            );
            compared += 1;
        }
    }
    assert!(compared >= broken_projects().len(), "{compared}");
}
