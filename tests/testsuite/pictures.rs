//! Pictures inside text files (issue 16 item 6): a line `![alt](path)` or `[img:path]` in a
//! `.txt` chapter becomes a figure with the image carried into the book, through the same
//! containment check and image readers as a Markdown chapter's images.

use crate::common;

use common::{Fixture, Project, assert_valid, names, text};

const BOOK: &str = "[book]\ntitle = \"图\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n";

fn cover() -> Vec<u8> {
    std::fs::read(common::repo().join("covers/cover.jpg")).unwrap()
}

/// Every chapter document's text, concatenated.
fn chapters(f: &Fixture) -> String {
    let epub = f.epub();
    names(&epub)
        .iter()
        .filter(|n| n.contains("chapter-"))
        .map(|n| text(&epub, n))
        .collect()
}

#[test]
fn picture_lines_become_figures_with_the_image_carried_in() {
    let f = Project::new(BOOK)
        .file("images/插图.jpg", cover())
        .chapter_with(
            "book.txt",
            "第一章 雨夜\n雨下了一夜。\n![城门](images/插图.jpg)\n他走了。\n\
             第二章 出城\n天还没亮。\n  [img:images/插图.jpg]\n",
            "split = \"auto\"\n",
        )
        .build_ok();
    let body = chapters(&f);
    assert_eq!(
        body.matches("<figure class=\"picture\"><img src=\"../images/")
            .count(),
        2,
        "{body}"
    );
    assert!(body.contains("alt=\"城门\""), "{body}");
    assert!(!body.contains("img:"), "{body}");
    assert!(!body.contains("!["), "{body}");
    // One image, stored once.
    let images: Vec<String> = names(&f.epub())
        .into_iter()
        .filter(|n| n.ends_with(".jpg") && n.contains("images/img-"))
        .collect();
    assert_eq!(images.len(), 1, "{images:?}");
    assert_valid(&f.epub());
}

#[test]
fn a_chapter_file_not_split_carries_its_pictures_too() {
    let f = Project::new(BOOK)
        .file("a.png.jpg", cover())
        .chapter(
            "ch1.txt",
            "第一章 风起\n\n风起了。\n\n![](a.png.jpg \"标题\")\n",
        )
        .build_ok();
    let body = chapters(&f);
    assert!(
        body.contains("<figure class=\"picture\"><img src=\"../images/"),
        "{body}"
    );
    assert_valid(&f.epub());
}

#[test]
fn a_missing_or_outside_picture_is_a_warning_at_its_line_and_an_error_under_strict() {
    for (path, why) in [("nope.jpg", "nope.jpg"), ("../../etc/passwd", "outside")] {
        let (f, r) = Project::new(BOOK)
            .chapter("ch1.txt", format!("第一章 风起\n风起了。\n![图]({path})\n"))
            .build(&[]);
        assert!(r.ok, "{path}: {}", r.stderr);
        assert!(r.stderr.contains("ch1.txt:3"), "{}", r.stderr);
        assert!(r.stderr.contains(why), "{path}: {}", r.stderr);
        assert!(chapters(&f).contains(path), "the line stays text");
        let r = f.build(&["--strict"]);
        assert!(!r.ok, "{path}: {}", r.stdout);
        assert!(r.stderr.contains(why), "{path}: {}", r.stderr);
    }
}

#[test]
fn web_addresses_and_prose_in_brackets_stay_text() {
    let f = Project::new(BOOK)
        .chapter(
            "ch1.txt",
            "第一章 风起\n![远方](https://example.com/a.jpg)\n[img:]\n他说![不]是这样。\n",
        )
        .build_ok();
    let body = chapters(&f);
    assert!(!body.contains("<figure"), "{body}");
    assert!(body.contains("https://example.com/a.jpg"), "{body}");
    assert!(body.contains("[img:]"), "{body}");
}

#[test]
fn conversion_and_typography_leave_picture_paths_alone() {
    // s2t would make 图/猫 into 圖/貓, and typography the `,` between Han characters full-width:
    // either way the file would not be found.
    let f = Project::new(&BOOK.replace("[book]\n", "[book]\nconvert = \"s2t\"\n"))
        .file("图/猫,图.jpg", cover())
        .chapter(
            "ch1.txt",
            "第一章 猫\n\n猫来了。\n\n![猫](图/猫,图.jpg)\n\n[img:图/猫,图.jpg]\n",
        )
        .build_ok();
    let body = chapters(&f);
    assert_eq!(
        body.matches("<figure class=\"picture\">").count(),
        2,
        "{body}"
    );
    // The text and the alt text are converted all the same.
    assert!(body.contains("alt=\"貓\""), "{body}");
    assert!(body.contains("貓來了"), "{body}");
    assert_valid(&f.epub());
}
