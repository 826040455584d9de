//! Japanese plain text as a whole (issue 31): `epubforge 作品.txt` on a real Aozora Bunko file
//! (Shift_JIS bytes as distributed) and on a web novel named as downloaders name them: title,
//! author, `ja`, vertical, headings, scene breaks, lines never joined, EPUBCheck.

use crate::common;

use std::path::Path;

use common::{Fixture, assert_valid, entries, text, toc_titles};

/// Builds `name` in the fixture with the one command and returns the EPUB beside it.
fn one_command(f: &Fixture, name: &str) -> std::path::PathBuf {
    let r = common::run(common::epubforge().arg(name).current_dir(f.dir.path()));
    assert!(r.ok, "{}", r.stderr);
    f.path(&format!("{}.epub", name.trim_end_matches(".txt")))
}

/// Asserts the book's title and author, and that it is in Japanese.
fn assert_named(epub: &Path, title: &str, author: &str) {
    let book = epubforge::inspect::open(epub).unwrap();
    assert_eq!(book.metadata.titles, [title]);
    let authors: Vec<&str> = (book.metadata.creators.iter())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(authors, [author]);
    assert_eq!(book.metadata.languages, ["ja"]);
}

fn opf(epub: &Path) -> String {
    let (_, bytes) = entries(epub)
        .into_iter()
        .find(|(n, _)| n.ends_with(".opf"))
        .expect("a package document");
    String::from_utf8(bytes).unwrap()
}

/// The head of 玄鶴山房 exactly as Aozora Bunko distributes it (Shift_JIS, CRLF): the first
/// two lines name the book, the language is Japanese and the book is vertical.
#[test]
fn a_real_aozora_file_is_named_by_its_first_lines_and_set_vertically() {
    let f = Fixture::empty();
    let bytes =
        std::fs::read(common::repo().join("tests/fixtures/japanese/genkaku_sanbo.sjis.txt"))
            .unwrap();
    f.write("genkaku_sanbo.txt", bytes);
    let epub = one_command(&f, "genkaku_sanbo.txt");
    assert_named(&epub, "玄鶴山房", "芥川龍之介");
    let package = opf(&epub);
    assert!(
        package.contains("page-progression-direction=\"rtl\""),
        "{package}"
    );
    assert_valid(&epub);
}

const WEB_NOVEL: &str = "\
プロローグ

　目が覚めると、知らない森の中だった。見上げた空はどこまでも青く、風が木々の梢をゆらしていた
「ここは、どこだ？」
　誰も答えなかった。

第1話　出会い

　森を抜けると小さな村があった。村の入り口には、赤い髪の少女が立っていて、こちらをじっと見ていた
「あなた、どこから来たの？」
「わからない」

◇◇◇

　その夜、少女の家に泊めてもらうことになった。

第2話　旅立ち

　翌朝、二人は村を出た。
「行こう」

エピローグ

　旅はまだ始まったばかりだ。
";

/// A web novel named `[作者] タイトル.txt`: its name gives title and author, its Japanese
/// headings make the chapters, `◇◇◇` is a break inside a chapter, and a dialogue line is never
/// joined to the long narration line before it.
#[test]
fn a_web_novel_is_named_by_its_file_and_split_at_japanese_headings() {
    let f = Fixture::empty();
    f.write("[山田太郎] 森の向こうの村.txt", WEB_NOVEL);
    let epub = one_command(&f, "[山田太郎] 森の向こうの村.txt");
    assert_named(&epub, "森の向こうの村", "山田太郎");
    let toc = toc_titles(&epub);
    assert_eq!(
        toc[toc.len() - 4..],
        ["プロローグ", "第1話 出会い", "第2話 旅立ち", "エピローグ"],
        "{toc:?}"
    );
    let paragraphs: Vec<String> = entries(&epub)
        .keys()
        .filter(|n| n.ends_with(".xhtml") && !n.ends_with("nav.xhtml"))
        .flat_map(|n| common::paragraphs(&text(&epub, n)))
        .collect();
    assert!(
        paragraphs.iter().any(|p| p == "「ここは、どこだ？」"),
        "{paragraphs:?}"
    );
    assert!(
        paragraphs
            .iter()
            .any(|p| p == "「あなた、どこから来たの？」"),
        "{paragraphs:?}"
    );
    assert!(opf(&epub).contains("page-progression-direction=\"rtl\""));
    assert_valid(&epub);
}

/// `check 作品.txt` reviews the file as the one command builds it: the outline of its Japanese
/// headings, each at its file and line, and writes nothing.
#[test]
fn check_on_a_japanese_text_file_prints_its_outline() {
    let f = Fixture::empty();
    f.write("[山田太郎] 森の向こうの村.txt", WEB_NOVEL);
    let r = common::run(
        common::epubforge()
            .args(["check", "[山田太郎] 森の向こうの村.txt"])
            .current_dir(f.dir.path()),
    );
    assert!(r.ok, "{}", r.stderr);
    assert!(
        r.stdout.contains("4 chapter(s)"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    for (title, line) in [("プロローグ", 1), ("第1話 出会い", 7), ("エピローグ", 22)]
    {
        let at = format!("{title}  (./[山田太郎] 森の向こうの村.txt:{line},");
        assert!(r.stdout.contains(&at), "{at}\n{}", r.stdout);
    }
    assert!(!f.path("metadata.toml").exists());
    assert!(!f.path("[山田太郎] 森の向こうの村.epub").exists());
}
