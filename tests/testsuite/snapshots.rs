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

/// A small EPUB 3 broken in several ways our rules and EPUBCheck report at an entry, a line and
/// a column: a chapter that is not well-formed XML, a link to a missing file and a fragment
/// that names no id, an `<html>` without `lang`, a file the manifest does not list.
fn broken_epub(path: &std::path::Path) {
    use std::io::Write as _;
    use zip::write::SimpleFileOptions;
    let opf = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"id\" xml:lang=\"zh\">\n<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n<dc:identifier id=\"id\">urn:uuid:12345678-1234-5678-1234-567812345678</dc:identifier>\n<dc:title>书</dc:title>\n<dc:language>zh</dc:language>\n<meta property=\"dcterms:modified\">2020-01-01T00:00:00Z</meta>\n</metadata>\n<manifest>\n<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\n<item id=\"a\" href=\"a.xhtml\" media-type=\"application/xhtml+xml\"/>\n<item id=\"b\" href=\"b.xhtml\" media-type=\"application/xhtml+xml\"/>\n</manifest>\n<spine>\n<itemref idref=\"nav\"/>\n<itemref idref=\"a\"/>\n<itemref idref=\"b\"/>\n</spine>\n</package>\n";
    let nav = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" lang=\"zh\" xml:lang=\"zh\">\n<head><title>目录</title></head>\n<body>\n<nav epub:type=\"toc\"><ol>\n<li><a href=\"a.xhtml\">一</a></li>\n<li><a href=\"b.xhtml\">二</a></li>\n</ol></nav>\n</body>\n</html>\n";
    let a = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head><title>一</title></head>\n<body>\n<p>见<a href=\"gone.xhtml\">下一章</a>与<a href=\"b.xhtml#nowhere\">二</a>。</p>\n</body>\n</html>\n";
    let b = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"zh\" xml:lang=\"zh\">\n<head><title>二</title></head>\n<body>\n<p>话说天下大势<b>分久必合。</p>\n</body>\n</html>\n";
    let container = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\n<rootfiles><rootfile full-path=\"EPUB/package.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles>\n</container>\n";
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, text) in [
        ("mimetype", "application/epub+zip"),
        ("META-INF/container.xml", container),
        ("EPUB/package.opf", opf),
        ("EPUB/nav.xhtml", nav),
        ("EPUB/a.xhtml", a),
        ("EPUB/b.xhtml", b),
        ("EPUB/notes.txt", "a file the manifest does not list\n"),
    ] {
        zip.start_file(name, stored).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

/// `check BOOK.epub` (our rules; EPUBCheck too where it is installed, in a snapshot of its own)
/// and `inspect BOOK.epub` on a broken EPUB and on a file that is no zip: every problem an
/// entry, line and column of the EPUB, read as the project's problems read.
#[test]
fn check_and_inspect_output_on_broken_epubs_is_as_pinned() {
    let root = tempfile::tempdir().unwrap();
    broken_epub(&root.path().join("broken.epub"));
    std::fs::write(root.path().join("nozip.epub"), "not a zip at all\n").unwrap();
    for book in ["broken", "nozip"] {
        let epub = format!("{book}.epub");
        let check = stderr_of(root.path(), &["check", &epub, "--no-epubcheck"]);
        insta::assert_snapshot!(format!("stderr_check_epub_{book}"), check);
        let inspect = run(common::epubforge()
            .current_dir(root.path())
            .args(["inspect", &epub]));
        let shown = format!(
            "exit status: {:?}\n--- stdout\n{}--- stderr\n{}",
            inspect.code, inspect.stdout, inspect.stderr
        );
        insta::assert_snapshot!(format!("inspect_epub_{book}"), shown);
    }
    let installed = common::epubcheck::installed();
    if installed.is_some() {
        let check = stderr_of(root.path(), &["check", "broken.epub"]);
        insta::assert_snapshot!("stderr_check_epub_broken_epubcheck", check);
    }
}

/// The command line's own problems (options that cannot go together, a folder holding no
/// book) and `init`'s notes (a `SUMMARY.md` entry it cannot follow, a `book.toml` that is not
/// TOML) read as every other problem does: `SEVERITY[CODE]: message`, the place with its
/// excerpt, the hint; never a hand-made `error:` line.
#[test]
fn usage_errors_and_init_notes_are_rendered_as_every_problem_is() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let write = |rel: &str, text: &str| {
        let path = r.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "book/book.toml",
        "[book]\ntitle = \"Book\"\nsrc = \"src\"\n",
    );
    write(
        "book/src/SUMMARY.md",
        "# Summary\n\n- [One](one.md)\n- [Draft]()\n- [Gone](gone.md)\n- [One again](one.md)\n",
    );
    write("book/src/one.md", "# One\n\nText.\n");
    write("bad/book.toml", "[book]\ntitle = = \"x\"\n");
    write("bad/src/SUMMARY.md", "- [One](one.md)\n");
    write("bad/src/one.md", "# One\n\nText.\n");
    std::fs::create_dir_all(r.join("empty")).unwrap();
    let runs: [&[&str]; 8] = [
        &["build", "book", "empty", "-o", "x.epub"],
        &["build", "--all", "empty"],
        &["watch", "book", "-o", "-"],
        &["watch", "book", "--target", "azw3"],
        &["fix", "--all", "empty"],
        &[
            "fix", "a.epub", "-o", "b.epub", "--target", "kobo", "--target", "kindle",
        ],
        &["init", "book"],
        &["init", "bad"],
    ];
    let mut shown = String::new();
    for args in runs {
        let stderr = stderr_of(r, args);
        assert!(!stderr.contains("\nerror: "), "{args:?}: {stderr}");
        shown.push_str(&format!("$ epubforge {}\n{stderr}\n", args.join(" ")));
    }
    insta::assert_snapshot!("stderr_usage_and_init_notes", shown);
}
