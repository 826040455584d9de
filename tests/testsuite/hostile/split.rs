//! Hostile plain text for the heading split: every pass over the headings must be linear, and
//! what the headings make must stay bounded.

use std::time::Duration;

use super::{bounded, bounded_build};
use crate::common::{Fixture, entries, epubforge, spine};

/// 100 000 lines, each a volume heading and nothing else.
fn volume_headings() -> Fixture {
    let f = Fixture::empty();
    let text: String = (1..=100_000).map(|k| format!("第{k}卷\n")).collect();
    f.write("volumes.txt", text);
    f
}

/// Issue 27: `split = "auto"` on a file where every line is a volume heading was quadratic
/// (each volume looked for itself again through all the later ones: 100 000 lines took 20 s
/// in a release build, minutes in a debug one). `init` splits such a file to decide whether
/// to write `split`; it must take well under the limit, and find the volumes as chapters.
#[test]
fn a_hundred_thousand_volume_headings_split_in_linear_time() {
    let f = volume_headings();
    let run = bounded(
        epubforge().arg("init").arg(f.dir.path()),
        Duration::from_secs(120),
        "init of 100 000 volume headings",
    );
    assert!(run.ok, "{}", run.stderr);
    let metadata = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    assert!(metadata.contains("split = \"auto\""), "{metadata}");
}

/// Issue 27: building that file made 100 000 documents of one heading each; laying them out
/// was quadratic (each entry of the EPUB looked for in every chapter's range: minutes in a
/// debug build) and took 300 MB. A run of empty chapters now shares one document (cut for
/// size as any long chapter): every heading is still in the book and in the table of contents,
/// in order, and the warnings say what was done.
#[test]
fn a_hundred_thousand_empty_chapters_share_documents_and_keep_their_entries() {
    let f = volume_headings();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"卷\"\nauthors = [\"A\"]\nlanguage = \"zh\"\n\
         [[chapters]]\nfile = \"volumes.txt\"\nsplit = \"auto\"\n",
    );
    let out = f.path("out.epub");
    let run = bounded_build(
        &f,
        Duration::from_secs(120),
        "a build of 100 000 empty chapters",
    );
    assert!(run.ok, "{}", run.stderr);
    assert!(
        crate::common::flat(&run.stderr).contains(
            "volumes.txt:1: chapter \"第1卷\" is empty, and so are the 99999 after it: their \
             headings share a document"
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("100000 empty-chapter"),
        "{}",
        run.stderr
    );
    let documents = spine(&out).len();
    assert!(documents < 200, "{documents} documents in the spine");
    let book = entries(&out);
    let nav = String::from_utf8_lossy(&book["EPUB/nav.xhtml"]);
    let listed = nav.matches("<li>").count();
    assert!(
        listed >= 100_000,
        "{listed} entries in the table of contents"
    );
    for k in [1, 2, 50_000, 100_000] {
        assert!(nav.contains(&format!(">第{k}卷</a>")), "第{k}卷 not listed");
    }
    let headings: usize = (book.iter())
        .filter(|(name, _)| name.starts_with("EPUB/text/chapter-"))
        .map(|(_, data)| String::from_utf8_lossy(data).matches("卷</h1>").count())
        .sum();
    assert_eq!(headings, 100_000, "headings in the chapter documents");
}

/// A book with empty chapters alone and in runs, in two volumes: the runs share a document, a
/// lone one keeps its own, the book passes EPUBCheck, and `check`'s outline (the table of
/// contents the EPUB gets) lists every chapter at its line, the empty ones as empty.
#[test]
fn runs_of_empty_chapters_keep_their_place_in_the_outline_and_the_book_is_valid() {
    let f = Fixture::empty();
    f.write(
        "book.txt",
        "第一卷 起\n\n第1章 甲\n\n正文一。\n\n第2章 乙\n\n第3章 丙\n\n第4章 丁\n\n正文四。\n\n\
         第5章 戊\n\n第二卷 承\n\n第6章 己\n\n正文六。\n\n第7章 庚\n\n第8章 辛\n",
    );
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"混合\"\nauthors = [\"A\"]\nlanguage = \"zh-CN\"\n\
         [[chapters]]\nfile = \"book.txt\"\nsplit = \"auto\"\n",
    );
    let out = f.path("out.epub");
    let built = bounded_build(
        &f,
        Duration::from_secs(60),
        "a build with runs of empty chapters",
    );
    assert!(built.ok, "{}", built.stderr);
    crate::common::assert_valid(&out);
    // 第2章 and 第3章 share one document, 第7章 and 第8章 another; 第5章 keeps its own.
    let chapters = spine(&out)
        .iter()
        .filter(|d| d.starts_with("text/chapter-"))
        .count();
    assert_eq!(chapters, 6, "{:?}", spine(&out));
    let check = bounded(
        epubforge()
            .args(["check", "--no-epubcheck"])
            .arg(f.dir.path()),
        Duration::from_secs(60),
        "check with runs of empty chapters",
    );
    for line in [
        "outline: 2 volume(s), 8 chapter(s)",
        "第2章 乙  (book.txt:7, empty)",
        "第3章 丙  (book.txt:9, empty)",
        "第4章 丁  (book.txt:11, 4 chars)",
        "第5章 戊  (book.txt:15, empty)",
        "第7章 庚  (book.txt:23, empty)",
        "第8章 辛  (book.txt:25, empty)",
    ] {
        assert!(
            check.stdout.contains(line),
            "no {line:?} in:\n{}",
            check.stdout
        );
    }
}
