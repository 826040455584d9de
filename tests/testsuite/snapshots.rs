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
