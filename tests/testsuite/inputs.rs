//! What users really have: other encodings, whole novels in one file, Markdown and HTML.

use crate::common;

use common::{Fixture, Project, assert_valid, paragraphs, spine, text, toc_titles};

const SEEDS: [&str; 3] = [
    "000_6761ebf9337845da.txt",
    "001_c5c754fed1430e80.txt",
    "003_8771c0c4f8f01cda.txt",
];

/// The paragraphs of every chapter document, in spine order.
fn chapter_paragraphs(epub: &std::path::Path) -> Vec<Vec<String>> {
    spine(epub)
        .into_iter()
        .filter(|h| h.contains("chapter-"))
        .map(|h| paragraphs(&text(epub, &format!("EPUB/{h}"))))
        .collect()
}

#[test]
fn gbk_crlf_fullwidth_indented_seeds_give_the_same_text_as_utf8() {
    let original = Fixture::sample();
    assert!(original.build(&[]).ok);

    let f = Fixture::sample();
    for seed in SEEDS {
        let utf8 = std::fs::read_to_string(common::repo().join("seeds").join(seed)).unwrap();
        let messy: String = utf8
            .lines()
            .map(|l| format!("\u{3000}\u{3000}{l}\r\n"))
            .collect();
        let (gbk, _, unmappable) = encoding_rs::GBK.encode(&messy);
        assert!(!unmappable, "{seed} has characters GBK cannot hold");
        f.write(&format!("seeds/{seed}"), gbk.as_ref());
    }
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    for seed in SEEDS {
        assert!(
            r.stderr.contains(seed)
                && (r.stderr.contains("read as GBK") || r.stderr.contains("read as gb18030")),
            "encoding of {seed} not reported: {}",
            r.stderr
        );
    }
    assert_valid(&f.path("out.epub"));
    assert_eq!(
        chapter_paragraphs(&f.path("out.epub")),
        chapter_paragraphs(&original.path("out.epub"))
    );
}

#[test]
fn big5_file_is_read_and_reported() {
    let paras = [
        "魏軍接下來的突圍也在大汗的預料之中，東胡騎兵全部脫掉沉重的鐵甲，換上輕甲甚至不披甲。",
        "事情的發展也果如大汗所料，魏軍窮極而至十幾萬人從四面八方湧來。",
        "「四哥。」就在金兀術借酒澆愁的時候，帳外走進一人。",
    ];
    let f = Fixture::empty();
    let source = paras.join("\r\n");
    let (big5, _, unmappable) = encoding_rs::BIG5.encode(&source);
    assert!(!unmappable);
    f.write("ch.txt", big5.as_ref());
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"繁體\"\nauthors = [\"某\"]\nlanguage = \"zh-TW\"\n[[chapters]]\nfile = \"ch.txt\"\n",
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(r.stderr.contains("ch.txt: read as Big5"), "{}", r.stderr);
    assert_valid(&f.path("out.epub"));
    assert_eq!(
        chapter_paragraphs(&f.path("out.epub")),
        [paras.map(String::from).to_vec()]
    );
}

#[test]
fn forced_encoding_is_used_and_wrong_bytes_are_an_error_with_offset() {
    let f = Fixture::empty();
    let (bytes, _, _) = encoding_rs::GB18030.encode("第一段。\n第二段。\n");
    f.write("ch.txt", bytes.as_ref());
    let meta = "[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"zh-CN\"\n[[chapters]]\nfile = \"ch.txt\"\nencoding = \"ENC\"\n";
    f.write("metadata.toml", meta.replace("ENC", "gb18030"));
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert_eq!(
        chapter_paragraphs(&f.path("out.epub")),
        [["第一段。", "第二段。"]]
    );

    f.write("metadata.toml", meta.replace("ENC", "utf-8"));
    let r = f.build(&[]);
    assert!(!r.ok);
    assert!(r.stderr.contains("ch.txt"), "{}", r.stderr);
    assert!(
        r.stderr.contains("invalid UTF-8 at byte offset 0"),
        "{}",
        r.stderr
    );
}

/// A whole novel in one file: a synopsis, 3 volumes of 100 chapters with numbers written three
/// ways, and prose lines that look like headings but are not.
fn novel() -> (String, Vec<String>) {
    const NUM: [&str; 10] = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    fn chinese(n: usize) -> String {
        let (h, t, o) = (n / 100, n / 10 % 10, n % 10);
        let mut s = String::new();
        if h > 0 {
            s.push_str(NUM[h]);
            s.push('百');
        }
        if t > 0 {
            if !(h == 0 && t == 1) {
                s.push_str(NUM[t]);
            }
            s.push('十');
        } else if h > 0 && o > 0 {
            s.push('零');
        }
        if o > 0 {
            s.push_str(NUM[o]);
        }
        s
    }
    let traps = [
        "他翻到第三章，看了很久。",
        "第一封信",
        "第四本书",
        "第一次见面",
        "第二天",
        "第三个人走了进来，没有说话。",
        "“第一章”他说。",
    ];
    let mut out = String::from("内容简介：\n这是一部测试用的长篇小说。\n\n");
    let mut titles = Vec::new();
    let mut n = 0;
    for (v, volume_number) in ["一", "二", "三"].iter().enumerate() {
        let v = v + 1;
        out.push_str(&format!("第{volume_number}卷 卷名{v}\n"));
        for c in 1..=100 {
            n += 1;
            let heading = match v {
                1 => format!("第{}章 标题{n}", chinese(n)),
                2 => format!("第{n}章 标题{n}"),
                _ => format!(
                    "第{}章　标题{n}",
                    n.to_string()
                        .chars()
                        .map(|d| char::from_u32(d as u32 - '0' as u32 + '０' as u32).unwrap())
                        .collect::<String>()
                ),
            };
            titles.push(heading.replace('\u{3000}', " "));
            out.push_str(&format!("\u{3000}\u{3000}{heading}\n"));
            out.push_str(&format!("第{n}章的正文，第{c}段。\n"));
            out.push_str(traps[n % traps.len()]);
            out.push('\n');
        }
    }
    (out, titles)
}

#[test]
fn gb18030_novel_splits_into_3_volumes_and_300_chapters() {
    let (novel, titles) = novel();
    let f = Fixture::empty();
    let crlf = novel.replace('\n', "\r\n");
    let (bytes, _, unmappable) = encoding_rs::GB18030.encode(&crlf);
    assert!(!unmappable);
    f.write("novel.txt", bytes.as_ref());
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"长篇\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n[[chapters]]\nfile = \"novel.txt\"\nsplit = \"auto\"\n",
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);

    let ncx = text(&epub, "EPUB/toc.ncx");
    assert!(ncx.contains("<meta name=\"dtb:depth\" content=\"2\"/>"));
    let ncx = roxmltree::Document::parse(&ncx).unwrap();
    let label = |p: roxmltree::Node| {
        p.descendants()
            .find(|n| n.has_tag_name("text"))
            .and_then(|t| t.text())
            .unwrap()
            .to_string()
    };
    let top: Vec<roxmltree::Node> = ncx
        .descendants()
        .find(|n| n.has_tag_name("navMap"))
        .unwrap()
        .children()
        .filter(|n| n.has_tag_name("navPoint"))
        .collect();
    assert_eq!(
        top.iter().map(|p| label(*p)).collect::<Vec<_>>(),
        ["内容简介", "第一卷 卷名1", "第二卷 卷名2", "第三卷 卷名3"]
    );
    let chapters: Vec<String> = top[1..]
        .iter()
        .flat_map(|v| v.children().filter(|n| n.has_tag_name("navPoint")))
        .map(label)
        .collect();
    assert_eq!(chapters, titles);

    // Each chapter holds its own text and its prose trap, and nothing else.
    let bodies = chapter_paragraphs(&epub);
    assert_eq!(bodies.len(), 301);
    assert_eq!(bodies[0], ["这是一部测试用的长篇小说。"]);
    for (i, body) in bodies[1..].iter().enumerate() {
        assert_eq!(body.len(), 2, "chapter {}: {body:?}", i + 1);
        assert!(body[0].starts_with(&format!("第{}章的正文", i + 1)));
    }
    let volume_page = text(&epub, "EPUB/text/part-02.xhtml");
    assert!(volume_page.contains("第二卷 卷名2"));
}

#[test]
fn numbering_gaps_in_a_split_file_are_warned_with_line_numbers() {
    let (_f, r) = Project::new("[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"zh-CN\"\n")
        .chapter_with(
            "n.txt",
            "第1章\n甲。\n第2章\n乙。\n第4章\n丙。\n",
            "split = \"auto\"\n",
        )
        .build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(r.stderr.contains("n.txt:5"), "{}", r.stderr);
    assert!(r.stderr.contains("from 2 to 4"), "{}", r.stderr);
}

#[test]
fn regex_split_uses_the_users_pattern() {
    let (f, r) = Project::new("[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"zh-CN\"\n")
        .chapter_with(
            "n.txt",
            "== 开端 ==\n甲。\n== 发展 ==\n乙。\n",
            "split = '^== .+ ==$'\n",
        )
        .build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let nav = text(&f.path("out.epub"), "EPUB/nav.xhtml");
    assert!(
        nav.contains(">== 开端 ==</a>") && nav.contains(">== 发展 ==</a>"),
        "{nav}"
    );
    assert_eq!(
        chapter_paragraphs(&f.path("out.epub")),
        [["甲。"], ["乙。"]]
    );
}

fn png(width: u32, height: u32) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(width, height, image::Rgb([200, 30, 30]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

#[test]
fn markdown_and_html_chapters_build_clean_with_images_footnotes_and_links() {
    let f = Fixture::empty();
    f.write("img/map.png", png(40, 30));
    f.write(
        "md/01-intro.md",
        "# The Beginning\n\nText with a note.[^1] See [the next part](02-next.html#later).\n\n\
         | Name | Value |\n|:-----|------:|\n| a    | 1     |\n| b    | 2     |\n\n\
         ~~gone~~ and **bold**.\n\n![A small map](../img/map.png)\n\n[^1]: The note text.\n",
    );
    f.write(
        "md/02-next.html",
        "<html><head><title>Next</title><script>alert(1)</script></head><body>\
         <h1>The Next Part</h1><p>Unclosed <b>bold &amp; &nbsp;nbsp<p id=later onclick=\"x()\">Later&mdash;on\
         <img src=\"../img/map.png\"><br><div>div</body></html>",
    );
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Mixed\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nglob = \"md/*\"\n",
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(
        r.stderr.contains("script"),
        "removal of <script> not reported: {}",
        r.stderr
    );
    let epub = f.path("out.epub");
    assert_valid(&epub);

    let all = common::entries(&epub);
    let images: Vec<&String> = all
        .keys()
        .filter(|k| k.starts_with("EPUB/images/img-"))
        .collect();
    assert_eq!(
        images.len(),
        1,
        "the image used twice is stored once: {images:?}"
    );
    assert_eq!(all[images[0]], png(40, 30));

    let one = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(one.contains("<h1 id=\"epubforge-chapter-title\">The Beginning</h1>"));
    assert!(one.contains("epub:type=\"noteref\""));
    assert!(one.contains("epub:type=\"footnote\""));
    assert!(one.contains("<table"));
    assert!(one.contains("<del>gone</del>") || one.contains("<s>gone</s>"));
    assert!(one.contains("href=\"chapter-0002.xhtml#later\""), "{one}");
    assert!(one.contains("alt=\"A small map\""));
    let two = text(&epub, "EPUB/text/chapter-0002.xhtml");
    assert!(two.contains("The Next Part"));
    assert!(!two.contains("onclick") && !two.contains("alert"));
    assert!(two.contains("Later—on"));
}

#[test]
fn missing_markdown_image_is_a_warning_at_its_line_keeping_the_alt_and_strict_refuses() {
    let (f, r) = Project::new("[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"en\"\n")
        .chapter("c.md", "# T\n\nText.\n\n![the map](pics/none.png)\n")
        .build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(
        r.stderr.contains("warning[unreadable-image]: picture"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--> c.md:5\n"), "{}", r.stderr);
    assert!(r.stderr.contains("pics/none.png"), "{}", r.stderr);
    let doc = text(&f.path("out.epub"), "EPUB/text/chapter-0001.xhtml");
    assert!(doc.contains("the map"), "{doc}");
    assert_valid(&f.path("out.epub"));
    let r = f.build(&["--strict"]);
    assert!(!r.ok, "{}", r.stderr);
    assert!(r.stderr.contains("pics/none.png"), "{}", r.stderr);
}

#[test]
fn scene_breaks_become_separators_and_keep_their_marks() {
    let f = Project::new("[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"zh-CN\"\n")
        .chapter("c.txt", "第一段。\n＊＊＊\n第二段。\n◇\n第三段。\n")
        .build_ok();
    let doc = text(&f.path("out.epub"), "EPUB/text/chapter-0001.xhtml");
    assert!(doc.contains("<p class=\"scene-break\">＊＊＊</p>"));
    assert!(doc.contains("<p class=\"scene-break\">◇</p>"));
}

const FIGURE_SVG: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 20 10\"><title>Fig</title><rect width=\"20\" height=\"10\" fill=\"#369\"/></svg>";

/// A chapter like SICP's pages: MathML, a figure in an `<object>`, an inline drawing.
fn math_and_figures(f: &Fixture, extra: &str) {
    f.write("html/fig/f1.svg", FIGURE_SVG);
    f.write(
        "html/1.1.xhtml",
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>1.1</title></head><body>\
             <h3>1.1 Elements</h3><p>For example, <math xmlns=\"http://www.w3.org/1998/Math/MathML\"><mrow><msup><mi>x</mi><mn>2</mn></msup>\
             <mo>+</mo><mn>1</mn></mrow></math> is positive.</p>\
             <figure><object data=\"fig/f1.svg\" type=\"image/svg+xml\">SVG</object><figcaption>Figure 1.1</figcaption></figure>\
             <p>Inline: <svg viewBox=\"0 0 4 4\"><circle cx=\"2\" cy=\"2\" r=\"2\"/></svg></p>{extra}</body></html>"
        ),
    );
    f.write(
        "html/plain.xhtml",
        "<html><body><h1>Plain</h1><p>No math.</p></body></html>",
    );
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Math\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\
         [[chapters]]\nfile = \"html/1.1.xhtml\"\n[[chapters]]\nfile = \"html/plain.xhtml\"\n",
    );
}

#[test]
fn mathml_object_figures_and_inline_svg_reach_the_book_declared_in_the_manifest() {
    let f = Fixture::empty();
    math_and_figures(&f, "");
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("removed"), "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let one = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(
        one.contains("<math xmlns=\"http://www.w3.org/1998/Math/MathML\"><mrow><msup><mi>x</mi>"),
        "{one}"
    );
    assert!(
        one.contains("<img src=\"../images/") && one.contains("alt=\"SVG\""),
        "{one}"
    );
    assert!(one.contains("<circle cx=\"2\""), "{one}");
    let opf = text(&epub, "EPUB/package.opf");
    assert!(
        opf.contains("href=\"text/chapter-0001.xhtml\" media-type=\"application/xhtml+xml\" properties=\"mathml svg\"/>"),
        "{opf}"
    );
    assert!(
        opf.contains("href=\"text/chapter-0002.xhtml\" media-type=\"application/xhtml+xml\"/>"),
        "{opf}"
    );
    assert!(opf.contains("media-type=\"image/svg+xml\""), "{opf}");
    assert!(!opf.contains("scripted"), "{opf}");
}

#[test]
fn removed_content_is_one_warning_per_chapter_and_an_error_with_strict() {
    let f = Fixture::empty();
    math_and_figures(
        &f,
        "<video src=\"a.mp4\"></video><video></video><iframe src=\"x.html\"></iframe>",
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let lines: Vec<&str> = r.stderr.lines().filter(|l| l.contains("removed")).collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(
        lines[0].contains("removed 3 elements: <video> ×2, <iframe>"),
        "{}",
        r.stderr
    );
    assert_valid(&f.path("out.epub"));
    std::fs::remove_file(f.path("out.epub")).unwrap();
    let r = f.build(&["--strict"]);
    assert!(!r.ok, "{}", r.stderr);
    assert!(r.stderr.contains("1.1.xhtml"), "{}", r.stderr);
    assert!(r.stderr.contains("removed 3 elements"), "{}", r.stderr);
    assert!(!f.path("out.epub").exists());
    let check = common::run(
        common::epubforge()
            .args(["check", "--format", "json", "--no-epubcheck"])
            .arg(f.dir.path()),
    );
    assert!(
        check.stdout.contains("\"removed-content\""),
        "{}",
        check.stdout
    );
}

#[test]
fn code_is_wrapped_and_highlighted_with_css_for_the_classes_used_only() {
    let f = Fixture::empty();
    f.write(
        "c.md",
        "# Code\n\n```rust\nfn main() {\n    let s = \"a very long string that would run off the page of any e-reader if it were not wrapped\";\n}\n```\n\n- [x] done\n- [ ] to do, see www.example.com\n",
    );
    let meta = "[book]\ntitle = \"Code\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"c.md\"\n";
    f.write("metadata.toml", meta);
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let doc = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(doc.contains("<span class=\"hl-k\">fn</span>"), "{doc}");
    assert!(
        doc.contains(
            "<li><input type=\"checkbox\" checked=\"\" disabled=\"\" \
             aria-labelledby=\"epubforge-task-1\"/><span id=\"epubforge-task-1\"> done</span>"
        ),
        "{doc}"
    );
    assert!(
        doc.contains("<a href=\"http://www.example.com\">www.example.com</a>"),
        "{doc}"
    );
    let css = text(&epub, "EPUB/styles/book.css");
    assert!(css.contains("white-space: pre-wrap"), "{css}");
    assert!(
        css.contains("span.hl-k {") && css.contains("span.hl-s {"),
        "{css}"
    );
    assert!(!css.contains("span.hl-t {"), "a class no code uses: {css}");
    assert!(css.contains("prefers-color-scheme: dark"), "{css}");

    f.write(
        "metadata.toml",
        format!("{meta}[style]\nhighlight = false\n"),
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert_valid(&epub);
    let doc = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(!doc.contains("hl-"), "{doc}");
    let css = text(&epub, "EPUB/styles/book.css");
    assert!(
        css.contains("white-space: pre-wrap") && !css.contains("hl-"),
        "{css}"
    );
}

/// A download as sites ship it: header lines naming the book and its author, a blurb, then
/// three chapters.
fn download(title: &str, author: &str, chapters: [&str; 3]) -> String {
    let mut text =
        format!("《{title}》\n作者：{author}\n内容简介：\n一段简介，说的是一个人的故事。\n\n");
    for (i, heading) in chapters.iter().enumerate() {
        text.push_str(&format!(
            "{heading}\n　　这是第{}章的正文，写得很长很长，一直写到这一行的末尾才停下来。\n",
            i + 1
        ));
    }
    text
}

/// [`download`]'s text in traditional characters (Big5 holds no simplified ones).
fn traditional(text: &str) -> String {
    const PAIRS: [(char, char); 8] = [
        ('内', '內'),
        ('简', '簡'),
        ('说', '說'),
        ('个', '個'),
        ('这', '這'),
        ('写', '寫'),
        ('长', '長'),
        ('来', '來'),
    ];
    text.chars()
        .map(|c| PAIRS.iter().find(|p| p.0 == c).map_or(c, |p| p.1))
        .collect()
}

#[test]
fn one_command_builds_a_gbk_big5_or_utf8_download_into_an_epub_beside_it() {
    let simplified = ["第一章 开端", "第二章 中途", "第三章 结尾"];
    let big5 = ["第一章 開端", "第二章 中途", "第三章 結尾"];
    for (encoding, title, author, chapters) in [
        (encoding_rs::GBK, "青锋录", "林某", simplified),
        (encoding_rs::BIG5, "青鋒錄", "林某", big5),
        (encoding_rs::UTF_8, "青锋录", "林某", simplified),
    ] {
        let f = Fixture::empty();
        let mut text = download(title, author, chapters);
        if encoding == encoding_rs::BIG5 {
            text = traditional(&text);
        }
        let (bytes, _, unmappable) = encoding.encode(&text);
        assert!(!unmappable, "{text}");
        f.write("小说.txt", bytes.as_ref());
        let r = common::run(
            common::epubforge()
                .arg("小说.txt")
                .current_dir(f.dir.path()),
        );
        assert!(r.ok, "{}: {}", encoding.name(), r.stderr);
        let epub = f.path("小说.epub");
        assert_eq!(r.stdout.trim(), "小说.epub", "the path as given, beside it");
        // The summary names what was detected.
        let found = r.stderr.lines().find(|l| l.starts_with("found")).unwrap();
        for said in [encoding.name(), title, author] {
            assert!(found.contains(said), "{said} not in {found}");
        }
        assert!(r.stderr.contains("--save"), "{}", r.stderr);
        assert!(
            !f.path("metadata.toml").exists(),
            "nothing but the EPUB is written"
        );

        let book = epubforge::inspect::open(&epub).unwrap();
        assert_eq!(book.metadata.titles, [title]);
        let authors: Vec<&str> = book
            .metadata
            .creators
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(authors, [author]);
        let toc = toc_titles(&epub);
        assert_eq!(toc[toc.len() - 3..], chapters, "{toc:?}");
        // The count is the book's, as built: the three chapters, the front section (the
        // download's header) apart, as it is no chapter.
        let count = format!(" {} chapters + front matter", toc.len() - 1);
        assert!(found.contains(&count), "{count} not in {found}");
        assert_valid(&epub);
    }
}

#[test]
fn build_of_a_text_file_builds_it_and_save_keeps_what_was_built() {
    let f = Fixture::empty();
    let text = download(
        "青锋录",
        "林某",
        ["第一章 开端", "第二章 中途", "第三章 结尾"],
    );
    f.write(
        "books/青锋录[www.qisuu.org].txt",
        encoding_rs::GBK.encode(&text).0.as_ref(),
    );
    f.write("books/other.txt", "不是这本书的文件。\n");
    let r = common::run(
        common::epubforge()
            .args(["build", "books/青锋录[www.qisuu.org].txt", "--save"])
            .current_dir(f.dir.path()),
    );
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("books/青锋录[www.qisuu.org].epub");
    assert!(epub.is_file(), "{}", r.stderr);
    // The settings kept are the ones the book was built with: the project builds the same.
    let meta = std::fs::read_to_string(f.path("books/metadata.toml")).unwrap();
    assert!(meta.contains("encoding = \"gbk\""), "{meta}");
    assert!(!meta.contains("other.txt"), "only the file given: {meta}");
    let r = f.build(&[]);
    assert!(!r.ok, "the fixture root holds no project");
    let r = common::run(
        common::epubforge()
            .arg("build")
            .arg(f.path("books"))
            .arg("-o")
            .arg(f.path("again.epub")),
    );
    assert!(r.ok, "{}", r.stderr);
    let first = epubforge::inspect::open(&epub).unwrap();
    let again = epubforge::inspect::open(&f.path("again.epub")).unwrap();
    assert_eq!(first.metadata.titles, again.metadata.titles);
    assert_eq!(toc_titles(&epub), toc_titles(&f.path("again.epub")));
    // --save never overwrites.
    let r = common::run(
        common::epubforge()
            .args(["books/青锋录[www.qisuu.org].txt", "--save"])
            .current_dir(f.dir.path()),
    );
    assert!(!r.ok);
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
}

/// Issue 26 (held-out 鹿鼎记, 飞狐外传, 书剑恩仇录): a GBK or Big5 download with a few
/// damaged byte sequences failed ("not in this encoding"). It builds, with an `encoding`
/// warning at each damaged line; `--strict` refuses it.
#[test]
fn one_command_builds_a_damaged_gbk_or_big5_download_and_warns_at_each_damaged_line() {
    for (encoding, chapters) in [
        (
            encoding_rs::GBK,
            ["第一章 开端", "第二章 中途", "第三章 结尾"],
        ),
        (
            encoding_rs::BIG5,
            ["第一章 開端", "第二章 中途", "第三章 結尾"],
        ),
    ] {
        let f = Fixture::empty();
        let title = match encoding == encoding_rs::BIG5 {
            true => "青鋒錄",
            false => "青锋录",
        };
        let mut text = download(title, "林某", chapters);
        if encoding == encoding_rs::BIG5 {
            text = traditional(&text);
        }
        // A long novel: at most one damaged place per thousand characters is damage.
        let body = "　　这是正文，写得很长很长，一直写到这一行的末尾才停下来。\n".repeat(120);
        let body = if encoding == encoding_rs::BIG5 {
            traditional(&body)
        } else {
            body
        };
        let text = text.replace("\n第二章", &format!("\n{body}第二章"));
        let (good, _, unmappable) = encoding.encode(&text);
        assert!(!unmappable);
        // Two damaged places: a lead byte cut off before the line end.
        let mut bytes = Vec::new();
        let mut damaged = Vec::new();
        for (n, line) in good.split(|&b| b == b'\n').enumerate() {
            bytes.extend_from_slice(line);
            if n == 9 || n == 30 {
                bytes.push(0x81);
                damaged.push(n + 1);
            }
            bytes.push(b'\n');
        }
        bytes.pop();
        f.write("小说.txt", &bytes);
        let r = common::run(
            common::epubforge()
                .arg("小说.txt")
                .current_dir(f.dir.path()),
        );
        assert!(r.ok, "{}: {}", encoding.name(), r.stderr);
        for line in &damaged {
            let at = format!(
                "小说.txt:{line}: 1 damaged byte sequence(s), not valid {}",
                encoding.name()
            );
            assert!(
                common::flat(&r.stderr).contains(&at),
                "{at} not in {}",
                r.stderr
            );
        }
        assert_valid(&f.path("小说.epub"));
        let r = common::run(
            common::epubforge()
                .args(["小说.txt", "--strict", "-o", "strict.epub"])
                .current_dir(f.dir.path()),
        );
        assert!(!r.ok, "{}", r.stderr);
        assert!(!f.path("strict.epub").exists());
    }
}

#[test]
fn one_command_takes_a_folder_of_chapters_and_the_build_options() {
    let f = Fixture::empty();
    f.write("青锋录/001.txt", "第一章 开端\n他们说了很多话。\n");
    f.write("青锋录/002.txt", "第二章 结尾\n他们说完了。\n");
    let r = common::run(common::epubforge().arg(f.path("青锋录")));
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("青锋录/青锋录.epub");
    assert!(
        epub.is_file(),
        "the EPUB goes inside the folder: {}",
        r.stderr
    );
    assert!(r.stderr.contains("2 chapters"), "{}", r.stderr);
    assert_valid(&epub);

    // -o and --target apply as to any build.
    let out = f.path("elsewhere/book.epub");
    let r = common::run(
        common::epubforge()
            .arg(f.path("青锋录/001.txt"))
            .arg("-o")
            .arg(&out)
            .args(["--target", "epub,kobo"]),
    );
    assert!(r.ok, "{}", r.stderr);
    assert!(
        f.path("elsewhere/book.kepub.epub").is_file(),
        "{}",
        r.stdout
    );
    // Not a chapter file: said so, nothing built.
    f.write("notes.pdf", "%PDF");
    let r = common::run(common::epubforge().arg(f.path("notes.pdf")));
    assert!(!r.ok);
    assert!(r.stderr.contains("not a chapter file"), "{}", r.stderr);
}

/// pandoc's manual as its readers have it: a `.txt` in pandoc's Markdown, with an example of
/// the picture syntax indented as code, which failed the whole build as a missing picture.
const PANDOC_TXT: &str = "% A Manual\n% Jo Writer\n\n# Synopsis\n\nTerm\n\n:   Its definition, with a note.^[Inline *note*.]\n\nA picture is written so:\n\n    ![la lune](lalune.jpg \"Voyage\")\n\n# Tables\n\n  Right     Left\n-------     ------\n     12     *a*\n\n::: {#box .warning}\nA [span]{.smallcaps} in a div.\n:::\n\n+-----+-----+\n| a   | b   |\n+=====+=====+\n| 1   | 2   |\n+-----+-----+\n";

#[test]
fn init_reads_a_pandoc_txt_as_markdown_and_the_build_keeps_no_raw_syntax() {
    let f = Fixture::empty();
    f.write("manual.txt", PANDOC_TXT);
    let r = common::run(common::epubforge().arg("init").arg(f.dir.path()));
    assert!(r.ok, "{}", r.stderr);
    let metadata = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    assert!(metadata.contains("format = \"markdown\""), "{metadata}");
    assert!(metadata.contains("A Manual"), "{metadata}");
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path(
        &std::fs::read_dir(f.dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|n| n.ends_with(".epub"))
            .expect("an epub"),
    );
    let bodies: String = spine(&epub)
        .iter()
        .map(|h| text(&epub, &format!("EPUB/{h}")))
        .collect();
    for element in [
        "<dl>",
        "<table>",
        "class=\"warning\"",
        "class=\"smallcaps\"",
        "doc-noteref",
    ] {
        assert!(bodies.contains(element), "{element} missing");
    }
    for raw in [":::", "]{", "^[", "+---", ":   "] {
        assert!(!bodies.contains(raw), "{raw} left in the book");
    }
    assert!(
        bodies.contains("![la lune](lalune.jpg"),
        "the example stays code"
    );
    assert_valid(&epub);
}

/// A Standard Ebooks source tree in miniature (`src/epub/content.opf`, a title page whose
/// heading SE's stylesheet hides, `se:` values, links to the tree's stylesheets): `init` then
/// `build` keeps the values, declares `se:`, types the title page's section so the heading
/// stays hidden, and says nothing of the stylesheet links (the book carries those sheets).
#[test]
fn a_standard_ebooks_tree_keeps_se_values_and_its_title_page_heading_hidden() {
    let f = Fixture::empty();
    f.write(
        "src/META-INF/container.xml",
        r#"<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="epub/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#,
    );
    f.write(
        "src/epub/content.opf",
        r#"<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="uid" version="3.0" prefix="se: https://standardebooks.org/vocab/1.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">https://standardebooks.org/ebooks/a/b</dc:identifier><dc:title>The Ship</dc:title><dc:creator>Ann Author</dc:creator><dc:language>en-GB</dc:language></metadata>
<manifest><item href="css/se.css" id="se.css" media-type="text/css"/><item href="text/titlepage.xhtml" id="titlepage.xhtml" media-type="application/xhtml+xml"/><item href="text/chapter-1.xhtml" id="chapter-1.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="titlepage.xhtml"/><itemref idref="chapter-1.xhtml"/></spine></package>"#,
    );
    f.write(
        "src/epub/css/se.css",
        "@namespace epub \"http://www.idpf.org/2007/ops\";\nsection[epub|type~=\"titlepage\"] h1{\n\tleft: -999em;\n\tposition: absolute;\n}\n",
    );
    let head = r#"<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" epub:prefix="z3998: http://www.daisy.org/z3998/2012/vocab/structure/, se: https://standardebooks.org/vocab/1.0" xml:lang="en-GB"><head><title>T</title><link href="../css/se.css" rel="stylesheet" type="text/css"/></head>"#;
    f.write(
        "src/epub/text/titlepage.xhtml",
        format!(
            "{head}<body epub:type=\"frontmatter\"><section id=\"titlepage\" epub:type=\"titlepage\"><h1 epub:type=\"title\">The Ship</h1><p>By <b epub:type=\"z3998:author z3998:personal-name\">Ann Author</b>.</p></section></body></html>"
        ),
    );
    f.write(
        "src/epub/text/chapter-1.xhtml",
        format!(
            "{head}<body epub:type=\"bodymatter z3998:fiction\"><section id=\"chapter-1\" epub:type=\"chapter\"><h2 epub:type=\"title\">One</h2><p>They sailed on the <i epub:type=\"se:name.vessel.ship\">Nautilus</i>.</p></section></body></html>"
        ),
    );
    let init = common::run(common::epubforge().arg("init").arg(f.dir.path()));
    assert!(init.ok, "{}", init.stderr);
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let docs: Vec<String> = spine(&epub)
        .into_iter()
        .filter(|h| h.contains("chapter-"))
        .map(|h| text(&epub, &format!("EPUB/{h}")))
        .collect();
    assert_eq!(docs.len(), 2);
    assert!(
        docs[0].contains("<section epub:type=\"frontmatter titlepage\""),
        "{}",
        docs[0]
    );
    assert!(
        docs[1].contains("<i epub:type=\"se:name.vessel.ship\">Nautilus</i>"),
        "{}",
        docs[1]
    );
    assert!(
        docs[1].contains("se: https://standardebooks.org/vocab/1.0"),
        "{}",
        docs[1]
    );
    assert!(
        !docs[1].contains("epub:type=\"chapter chapter"),
        "{}",
        docs[1]
    );
}
