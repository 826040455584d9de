//! Links between and inside chapters, after every way a chapter is cut (issue 15 item 2),
//! heading levels and the table of contents (item 3), built and checked with EPUBCheck.

use crate::common;

use common::{Fixture, Project, assert_valid, names, text};

/// The chapter documents of a built book, as text, by entry name.
fn documents(f: &Fixture) -> Vec<(String, String)> {
    let epub = f.epub();
    names(&epub)
        .into_iter()
        .filter(|n| n.starts_with("EPUB/text/chapter-"))
        .map(|n| (n.clone(), text(&epub, &n)))
        .collect()
}

/// Every `href` of the real links of a document (the attribute of `<a>` elements).
fn hrefs(xhtml: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse_with_options(
        xhtml,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("well-formed");
    doc.descendants()
        .filter(|n| n.tag_name().name() == "a")
        .filter_map(|n| n.attribute("href").map(str::to_string))
        .collect()
}

fn document<'d>(docs: &'d [(String, String)], name: &str) -> &'d str {
    let full = format!("EPUB/text/{name}");
    docs.iter()
        .find(|(n, _)| *n == full)
        .map(|(_, t)| t.as_str())
        .unwrap_or_else(|| {
            panic!(
                "no {name} among {:?}",
                docs.iter().map(|d| &d.0).collect::<Vec<_>>()
            )
        })
}

const METADATA: &str = "[book]\ntitle = \"Links\"\nauthors = [\"A\"]\nlanguage = \"en\"\n";

#[test]
fn markdown_links_reach_headings_in_this_and_other_chapters_and_mdbook_pages() {
    let (f, run) = Project::new(METADATA)
        .chapter(
            "src/README.md",
            "# Intro\n\nSee [the second](ch02.html#second-section) and [one](ch01.md).\n",
        )
        .chapter(
            "src/ch01.md",
            "## Getting Started\n\nJump [later](#later-on), to [the top](#getting-started), \
             [home](index.html), [two](ch02.md), [gone](ch09.html) and [nowhere](#nowhere).\n\n\
             Code shows `<a href=\"ch02.md\">` and `[x](notes.txt)` as written.\n\n\
             ### Later On\n\nText.\n",
        )
        .chapter(
            "src/ch02.md",
            "# Two\n\n## Second Section\n\nBack to [one](./ch01.md#later-on).\n",
        )
        .build(&[]);
    assert!(run.ok, "{}", run.stderr);
    assert_valid(&f.epub());
    let docs = documents(&f);
    let intro = document(&docs, "chapter-0001.xhtml");
    assert_eq!(
        hrefs(intro),
        ["chapter-0003.xhtml#second-section", "chapter-0002.xhtml"]
    );
    let one = document(&docs, "chapter-0002.xhtml");
    assert_eq!(
        hrefs(one),
        [
            "#later-on",
            "#epubforge-chapter-title",
            "chapter-0001.xhtml",
            "chapter-0003.xhtml"
        ],
        "{one}"
    );
    // The unresolvable links are text now, said so once each.
    assert!(
        one.contains("<a>gone</a>") && one.contains("<a>nowhere</a>"),
        "{one}"
    );
    assert!(run.stderr.contains("ch09.html"), "{}", run.stderr);
    assert!(run.stderr.contains("#nowhere"), "{}", run.stderr);
    // Code spans keep what they show, even beside a real link to the same file.
    assert!(
        one.contains("<code>&lt;a href=\"ch02.md\"&gt;</code>"),
        "{one}"
    );
    assert!(one.contains("<code>[x](notes.txt)</code>"), "{one}");
    let two = document(&docs, "chapter-0003.xhtml");
    assert!(
        two.contains("<h2 id=\"second-section\">Second Section</h2>"),
        "{two}"
    );
    assert_eq!(hrefs(two), ["chapter-0002.xhtml#later-on"]);
}

#[test]
fn links_to_ids_in_later_pieces_of_a_chapter_split_for_size_follow_them() {
    let filler = format!("<p>{}</p>\n", "word ".repeat(400));
    let mut html = String::from(
        "<html><head><title>Big</title></head><body><h1>Big</h1>\
         <p><a href=\"#far\">far</a> <a href=\"#far-heading\">heading</a></p>\n",
    );
    for _ in 0..30 {
        html.push_str(&filler);
    }
    html.push_str(
        "<p id=\"far\">Far away.</p>\n<h2>Far Heading</h2>\n<p><a href=\"#big\">top</a></p>\n",
    );
    let f = Project::new(METADATA)
        .metadata("[layout]\nsplit-size = 20\n")
        .chapter("big.html", &html)
        .chapter(
            "next.md",
            "# Next\n\n[far](big.html#far) [h](big.html#far-heading)\n",
        )
        .build_ok();
    assert_valid(&f.epub());
    let docs = documents(&f);
    let last = docs
        .iter()
        .filter(|(n, _)| n.starts_with("EPUB/text/chapter-0001"))
        .find(|(_, t)| t.contains("id=\"far\""))
        .map(|(n, _)| n.trim_start_matches("EPUB/text/").to_string())
        .expect("a piece holds #far");
    assert_ne!(last, "chapter-0001.xhtml", "the chapter was not split");
    let first = document(&docs, "chapter-0001.xhtml");
    assert_eq!(
        hrefs(first),
        [format!("{last}#far"), format!("{last}#far-heading")]
    );
    let next = document(&docs, "chapter-0002.xhtml");
    assert_eq!(
        hrefs(next),
        [format!("{last}#far"), format!("{last}#far-heading")]
    );
}

#[test]
fn urls_with_characters_not_valid_as_written_are_percent_encoded() {
    let f = Project::new(METADATA)
        .chapter(
            "a.md",
            "# A\n\n[s](https://example.com/search?tags[]=a&q=100%) <https://example.com/\\[\\>\n",
        )
        .build_ok();
    assert_valid(&f.epub());
    let docs = documents(&f);
    assert_eq!(
        hrefs(document(&docs, "chapter-0001.xhtml")),
        [
            "https://example.com/search?tags%5B%5D=a&q=100%25",
            "https://example.com/%5C%5B%5C"
        ]
    );
}

/// The nav document's entries as (depth, href, text), from its nested lists.
fn nav_entries(nav: &str) -> Vec<(usize, String, String)> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(nav, opts).expect("well-formed nav");
    let toc = doc
        .descendants()
        .find(|n| n.attribute(("http://www.idpf.org/2007/ops", "type")) == Some("toc"))
        .expect("a toc nav");
    toc.descendants()
        .filter(|n| n.tag_name().name() == "a")
        .map(|a| {
            let depth = a
                .ancestors()
                .filter(|n| n.tag_name().name() == "ol")
                .count();
            let text: String = a
                .descendants()
                .filter(|t| t.is_text())
                .filter_map(|t| t.text())
                .collect();
            (depth, a.attribute("href").unwrap_or("").to_string(), text)
        })
        .collect()
}

fn toc_book(depth: Option<usize>) -> Fixture {
    let layout = depth.map_or(String::new(), |d| format!("[layout]\ntoc-depth = {d}\n"));
    // The Rust book's shape: sections open with `##`, their parts are `###`.
    Project::new(METADATA)
        .metadata(&layout)
        .chapter(
            "a.md",
            "## Installation\n\nText.\n\n### On Linux\n\nx\n\n#### Deeper\n\ny\n\n### On Windows\n\nz\n",
        )
        .chapter("b.md", "# Two\n\n## Only *one*\n\nText.\n")
        .write()
}

#[test]
fn toc_depth_puts_sections_into_nav_and_ncx_nested_and_headings_keep_no_gap() {
    let f = toc_book(None);
    let run = f.build(&[]);
    assert!(run.ok, "{}", run.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let a = text(&epub, "EPUB/text/chapter-0001.xhtml");
    // `###` right under the chapter's h1 is an h2, `####` an h3: no level skipped.
    assert!(a.contains("<h2 id=\"on-linux\">On Linux</h2>"), "{a}");
    assert!(a.contains("<h3 id=\"deeper\">Deeper</h3>"), "{a}");
    let e = |d: usize, h: &str, t: &str| (d, h.to_string(), t.to_string());
    assert_eq!(
        nav_entries(&text(&epub, "EPUB/nav.xhtml")),
        [
            e(1, "text/chapter-0001.xhtml", "Installation"),
            e(2, "text/chapter-0001.xhtml#on-linux", "On Linux"),
            e(2, "text/chapter-0001.xhtml#on-windows", "On Windows"),
            e(1, "text/chapter-0002.xhtml", "Two"),
            e(2, "text/chapter-0002.xhtml#only-one", "Only one"),
        ]
    );
    let ncx = text(&epub, "EPUB/toc.ncx");
    assert!(
        ncx.contains("<meta name=\"dtb:depth\" content=\"2\"/>"),
        "{ncx}"
    );
    assert!(
        ncx.contains("src=\"text/chapter-0001.xhtml#on-windows\""),
        "{ncx}"
    );

    let f = toc_book(Some(3));
    assert!(f.build(&[]).ok);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let entries = nav_entries(&text(&epub, "EPUB/nav.xhtml"));
    assert!(
        entries.contains(&e(3, "text/chapter-0001.xhtml#deeper", "Deeper")),
        "{entries:?}"
    );

    let f = toc_book(Some(1));
    assert!(f.build(&[]).ok);
    let entries = nav_entries(&text(&f.path("out.epub"), "EPUB/nav.xhtml"));
    assert_eq!(entries.len(), 2, "{entries:?}");
}

#[test]
fn warnings_are_grouped_by_kind_with_a_summary_and_v_lists_them_all() {
    let links: String = (1..=13).map(|n| format!("[l{n}](gone{n}.md) ")).collect();
    let (f, run) = Project::new(METADATA)
        .chapter("a.md", format!("# A\n\n{links}\n"))
        .build(&[]);
    assert!(run.ok, "{}", run.stderr);
    let shown = run.stderr.matches("warning[removed-link]: ").count();
    assert_eq!(shown, 10, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("… and 3 more removed-link warnings (-v lists them all)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("13 warnings: 13 removed-link"),
        "{}",
        run.stderr
    );
    let run = f.build(&["-v"]);
    assert_eq!(
        run.stderr.matches("warning[removed-link]: ").count(),
        13,
        "{}",
        run.stderr
    );
}

#[test]
fn a_heading_the_entry_title_replaces_is_kept_in_the_chapter() {
    let given = "title = \"Given\"\n";
    let f = Project::new(METADATA)
        .chapter_with(
            "a.md",
            "# Original *words*\n\nText.\n\n## Part\n\nMore.\n",
            "title = \"Custom\"\n",
        )
        .chapter_with("b.md", "# Same title\n\nText.\n", "title = \"Same  title\"\n")
        // HTML the same way; a page's <title> is not text of the page.
        .chapter_with(
            "c.html",
            "<html><head><title>Site</title></head><body><h1>Page <b>heading</b></h1><p>Text.</p></body></html>",
            given,
        )
        .chapter_with(
            "d.html",
            "<html><head><title>Site</title></head><body><p>Text.</p></body></html>",
            given,
        )
        .build_ok();
    let epub = f.epub();
    assert_valid(&epub);
    let a = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(
        a.contains(">Custom</h1>\n<h2>Original words</h2>\n<p>Text.</p>"),
        "{a}"
    );
    let b = text(&epub, "EPUB/text/chapter-0002.xhtml");
    assert!(!b.contains("<h2>"), "{b}");
    let c = text(&epub, "EPUB/text/chapter-0003.xhtml");
    assert!(
        c.contains(">Given</h1>\n<h2>Page heading</h2>\n<p>Text.</p>"),
        "{c}"
    );
    let d = text(&epub, "EPUB/text/chapter-0004.xhtml");
    assert!(!d.contains("<h2>") && !d.contains("Site"), "{d}");
}

#[test]
fn check_reports_links_the_build_cannot_make_before_any_build() {
    let f = Project::new(METADATA)
        .chapter(
            "a.md",
            "# A\n\n[x](b.md#nope) [y](c.md) [z](b.md#real-one) [t](b.html)\n",
        )
        .chapter("b.md", "# B\n\n## Real One\n\ntext\n")
        .write();
    let run = common::run(common::epubforge().arg("check").arg(f.dir.path()));
    let out = format!("{}{}", run.stdout, run.stderr);
    assert!(out.contains("b.md has no id \"nope\""), "{out}");
    assert!(out.contains("removed link to \"c.md\""), "{out}");
    assert!(
        !out.contains("real-one") && !out.contains("b.html"),
        "{out}"
    );
    assert!(!f.path("out.epub").exists());
}

/// One HTML file as a site or Project Gutenberg writes it: a title page before the first
/// heading, chapters in `div`s, a contents list linking to them, a heading that is a picture.
const ONE_FILE_HTML: &str = "<html><head><title>The Whole Book</title></head><body>\n\
    <p>Title page. <a href=\"#ch2\">Go to two</a> <a href=\"#one\">one</a></p>\n\
    <div class=\"chapter\"><h2 id=\"one\"><span class=\"pagenum\">{1}</span>Chapter One</h2>\n\
    <p>First.</p>\n<h3>A Scene</h3>\n<p>In one. <a href=\"#later\">later</a></p>\n\
    <h4>Deep</h4>\n<p>deeper</p>\n</div>\n\
    <div class=\"chapter\"><h2><a id=\"ch2\"></a>Chapter Two</h2>\n\
    <p id=\"later\">Second. <a href=\"#a-scene\">back</a></p></div>\n\
    <h2><img src=\"pic.png\" alt=\"Chapter Three.\"/></h2><p>Third.</p>\n</body></html>\n";

#[test]
fn one_html_file_split_at_h2_makes_a_chapter_per_heading_with_links_between_them() {
    let img = image::RgbImage::from_pixel(8, 8, image::Rgb([200, 30, 30]));
    let mut png = std::io::Cursor::new(Vec::new());
    img.write_to(&mut png, image::ImageFormat::Png).unwrap();
    let f = Project::new(METADATA)
        .metadata("[layout]\ntoc-depth = 3\n")
        .file("pic.png", png.into_inner())
        .chapter_with("book.html", ONE_FILE_HTML, "split = \"h2\"\n")
        .chapter(
            "after.md",
            "# After\n\n[two](book.html#ch2) [scene](book.html#a-scene)\n",
        )
        .build_ok();
    let epub = f.epub();
    assert_valid(&epub);
    let e = |d: usize, h: &str, t: &str| (d, h.to_string(), t.to_string());
    assert_eq!(
        nav_entries(&text(&epub, "EPUB/nav.xhtml")),
        [
            e(1, "text/chapter-0001.xhtml", "The Whole Book"),
            e(1, "text/chapter-0002.xhtml", "Chapter One"),
            e(2, "text/chapter-0002.xhtml#a-scene", "A Scene"),
            e(3, "text/chapter-0002.xhtml#deep", "Deep"),
            e(1, "text/chapter-0003.xhtml", "Chapter Two"),
            e(1, "text/chapter-0004.xhtml", "Chapter Three."),
            e(1, "text/chapter-0005.xhtml", "After"),
        ]
    );
    let docs = documents(&f);
    let front = document(&docs, "chapter-0001.xhtml");
    assert!(front.contains("Title page."), "{front}");
    assert_eq!(
        hrefs(front),
        [
            "chapter-0003.xhtml#epubforge-chapter-title",
            "chapter-0002.xhtml#epubforge-chapter-title"
        ]
    );
    let one = document(&docs, "chapter-0002.xhtml");
    // The section headings keep their ids, under the chapter's h1 with no gap.
    assert!(one.contains("<h2 id=\"a-scene\">A Scene</h2>"), "{one}");
    assert!(one.contains("<h3 id=\"deep\">Deep</h3>"), "{one}");
    assert!(
        !one.contains("Chapter Two") && !one.contains("{1}"),
        "{one}"
    );
    assert_eq!(hrefs(one), ["chapter-0003.xhtml#later"]);
    let two = document(&docs, "chapter-0003.xhtml");
    assert_eq!(hrefs(two), ["chapter-0002.xhtml#a-scene"]);
    // A heading that is a picture titles its chapter and the picture stays.
    let three = document(&docs, "chapter-0004.xhtml");
    assert!(three.contains("<img src=\"../images/"), "{three}");
    let after = document(&docs, "chapter-0005.xhtml");
    assert_eq!(
        hrefs(after),
        [
            "chapter-0003.xhtml#epubforge-chapter-title",
            "chapter-0002.xhtml#a-scene"
        ]
    );
}

#[test]
fn one_markdown_file_split_at_h2_nests_its_h2_chapters_under_h1_parts_and_keeps_notes_reachable() {
    let f = Project::new(METADATA)
        .chapter_with(
            "book.md",
            "Before any heading.\n\n# Part One\n\n## First\n\nSee [the second](#second) and a note.[^n]\n\n\
             ## Second\n\nText.\n\n# Part Two\n\nLast.\n\n[^n]: The note.\n",
            "split = \"h2\"\ntitle = \"Opening\"\n",
        )
        .build_ok();
    let epub = f.epub();
    assert_valid(&epub);
    let e = |d: usize, h: &str, t: &str| (d, h.to_string(), t.to_string());
    assert_eq!(
        nav_entries(&text(&epub, "EPUB/nav.xhtml")),
        [
            e(1, "text/chapter-0001.xhtml", "Opening"),
            e(1, "text/chapter-0002.xhtml", "Part One"),
            e(2, "text/chapter-0003.xhtml", "First"),
            e(2, "text/chapter-0004.xhtml", "Second"),
            e(1, "text/chapter-0005.xhtml", "Part Two"),
        ]
    );
    let docs = documents(&f);
    let first = document(&docs, "chapter-0003.xhtml");
    let links = hrefs(first);
    assert_eq!(
        links.first().map(String::as_str),
        Some("chapter-0004.xhtml#epubforge-chapter-title")
    );
    // The note is defined at the end of the file, in the last piece: the reference follows it.
    assert!(
        links.iter().any(|l| l.starts_with("chapter-0005.xhtml#")),
        "{links:?}"
    );
    assert!(document(&docs, "chapter-0005.xhtml").contains("The note."));
}

#[test]
fn split_at_a_heading_level_is_refused_on_text_and_a_regex_on_markup() {
    let (f, run) = Project::new(METADATA)
        .chapter_with("a.txt", "Chapter 1\n\nText.\n", "split = \"h2\"\n")
        .build(&[]);
    assert!(!run.ok);
    assert!(
        run.stderr.contains("a.txt") && run.stderr.contains("Markdown and HTML"),
        "{}",
        run.stderr
    );
    f.write("a.md", "# One\n\n# Two\n");
    f.write(
        "metadata.toml",
        format!("{METADATA}\n[[chapters]]\nfile = \"a.md\"\nsplit = \"auto\"\n"),
    );
    let run = f.build(&[]);
    assert!(!run.ok);
    assert!(
        run.stderr.contains("a.md") && run.stderr.contains("split = \"h1\""),
        "{}",
        run.stderr
    );
}
