//! The text-fix stage end to end (issue 16, items 1-3): cleanup rules and the web-novel preset
//! on a downloaded novel, conversion, typography, what must never be touched, `check`'s dry
//! run, and the build cache.

use crate::common;

use std::path::Path;

use common::{Fixture, assert_valid, epubforge, run, spine, text};

const BOOK: &str = "[book]\ntitle = \"青锋录\"\nauthors = [\"林某\"]\nlanguage = \"zh-CN\"\n";

/// Every chapter document's `<h1>` (as `# title`) and paragraphs, in reading order, without
/// the generated pages.
fn chapter_text(epub: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for href in spine(epub) {
        if !href.contains("chapter-") {
            continue;
        }
        let xhtml = text(epub, &format!("EPUB/{href}"));
        let doc = roxmltree::Document::parse_with_options(
            &xhtml,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap();
        for n in doc.descendants() {
            let text = || -> String {
                n.descendants()
                    .filter(|d| d.is_text())
                    .map(|d| d.text().unwrap_or(""))
                    .collect()
            };
            if n.has_tag_name("h1") {
                out.push(format!("# {}", text()));
            } else if n.has_tag_name("p") {
                out.push(text());
            }
        }
    }
    out
}

/// The downloaded-novel fixture (GB18030, CRLF; shaped like the real downloads in the corpus):
/// a site header and footer, `正文 第N章` headings with update stamps, page-turn and
/// bookmark lines, mojibake, private-use characters, a zero-width space and half-width
/// punctuation.
fn web_novel(extra: &str) -> Fixture {
    let f = Fixture::empty();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web-novel");
    f.write("青锋录.txt", std::fs::read(dir.join("青锋录.txt")).unwrap());
    f.write(
        "metadata.toml",
        format!(
            "{BOOK}[text]\ncleanup-preset = \"web-novel\"\n{extra}\n\
             [[chapters]]\nfile = \"青锋录.txt\"\nencoding = \"gb18030\"\nsplit = \"auto\"\n"
        ),
    );
    f
}

#[test]
fn the_web_novel_preset_removes_every_boilerplate_line_and_keeps_every_paragraph() {
    let f = web_novel("");
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    let expected = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web-novel/expected.txt"),
    )
    .unwrap();
    let got = chapter_text(&out);
    // The front section (the title line) is titled by the build: drop its heading.
    let got: Vec<&str> = got
        .iter()
        .map(String::as_str)
        .filter(|l| *l != "# 简介")
        .collect();
    let want: Vec<&str> = expected.lines().collect();
    assert_eq!(got, want);
    let all = chapter_text(&out).join("\n");
    for boilerplate in [
        "TXT",
        "版权",
        "本站",
        "下载",
        "正版",
        "删除",
        "章节内容",
        "正文",
        "更新时间",
        "字数",
        "本章",
        "下一页",
        "收藏",
        "首发",
        "记住",
        "http",
        "www",
        "锟斤拷",
        "\u{E003}",
        "\u{200B}",
        "----",
    ] {
        assert!(
            !all.contains(boilerplate),
            "{boilerplate:?} is still in the book"
        );
    }
    assert_valid(&out);
}

#[test]
fn without_the_preset_and_typography_the_download_is_kept_as_it_is() {
    let f = Fixture::empty();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web-novel");
    f.write("青锋录.txt", std::fs::read(dir.join("青锋录.txt")).unwrap());
    f.write(
        "metadata.toml",
        format!("{BOOK}[text]\ntypography = false\n[[chapters]]\nfile = \"青锋录.txt\"\nencoding = \"gb18030\"\n"),
    );
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    let got = chapter_text(&out).join("\n");
    for kept in [
        "更多TXT电子书下载",
        "本章未完",
        "锟斤拷",
        "雨下了一夜,城门外",
        "漆黑...",
    ] {
        assert!(got.contains(kept), "{kept:?} missing: the stage is opt-in");
    }
}

#[test]
fn check_lists_each_rule_with_its_matches_at_file_and_line() {
    let f = web_novel("");
    let r = run(epubforge()
        .args(["check", "--format", "json", "--no-epubcheck"])
        .arg(f.path("")));
    let report: serde_json::Value = serde_json::from_str(&r.stdout).expect(&r.stderr);
    let findings = report["findings"].as_array().unwrap();
    let notes = |code: &str| -> Vec<&serde_json::Value> {
        findings.iter().filter(|f| f["code"] == code).collect()
    };
    let rules = notes("cleanup-rule");
    assert_eq!(rules.len(), 21, "{rules:#?}");
    let page_turns = rules
        .iter()
        .find(|f| f["message"].as_str().unwrap().contains("page turns"))
        .unwrap();
    // Two 本章未完 lines and one (本章完).
    assert!(
        page_turns["message"]
            .as_str()
            .unwrap()
            .ends_with("makes 3 changes"),
        "{page_turns}"
    );
    let matches = notes("cleanup-match");
    let page_turn_lines: Vec<u64> = matches
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("page turns"))
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    assert_eq!(page_turn_lines, [23, 26, 40]);
    for m in &matches {
        assert!(m["path"].as_str().unwrap().ends_with("青锋录.txt"), "{m}");
        assert_eq!(m["severity"], "note");
    }
    // Notes are not problems: a strict check of this book has nothing to fail on for them.
    assert!(
        findings
            .iter()
            .filter(|f| f["severity"] != "note")
            .all(|f| !f["code"].as_str().unwrap().starts_with("cleanup"))
    );
}

#[test]
fn code_spans_code_blocks_urls_and_markup_are_never_touched() {
    let f = Fixture::empty();
    let md = "# 第一章 测试\n\n他说,好...见`a,b...c--d`和http://example.com/a,b...c--d--e。\n\n\
              ```\n中文,代码...不--改\n```\n\n[链接,文字](http://example.com/x...y)广告\n";
    let html = "<html><head><title>页</title></head><body><p title=\"属性,不改...\">正文,改...广告</p>\
                <pre>预,格式...</pre><p><code>代,码...</code><kbd>键,盘</kbd></p></body></html>";
    f.write("1.md", md);
    f.write("2.html", html);
    f.write(
        "metadata.toml",
        format!(
            "{BOOK}[[cleanup]]\npattern = \"广告|代码|格式|属性|x[.]{{3}}y\"\nreplace = \"\"\n\
             [[chapters]]\nfile = \"1.md\"\n[[chapters]]\nfile = \"2.html\"\n"
        ),
    );
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    let one = text(&out, "EPUB/text/chapter-0001.xhtml");
    assert!(
        one.contains("他说，好……见<code>a,b...c--d</code>和http://example.com/a,b...c--d--e。"),
        "{one}"
    );
    assert!(one.contains("<code>中文,代码...不--改\n</code>"), "{one}");
    assert!(
        one.contains("href=\"http://example.com/x...y\">链接，文字</a></p>"),
        "{one}"
    );
    let two = text(&out, "EPUB/text/chapter-0002.xhtml");
    assert!(
        two.contains("title=\"属性,不改...\">正文，改……</p>"),
        "{two}"
    );
    assert!(two.contains("<pre>预,格式...</pre>"), "{two}");
    assert!(
        two.contains("<code>代,码...</code><kbd>键,盘</kbd>"),
        "{two}"
    );
    assert_valid(&out);
}

/// A Markdown chapter (a highlighted block, a plain block, a code span) and an HTML one
/// (`pre`, `code`) with Chinese comments and strings, converted to traditional; `metadata`
/// the extra `[text]` lines.
fn converted_code(text_table: &str) -> (String, String) {
    let f = Fixture::empty();
    let md = "# 第一章 转码\n\n见`var 转码 = \"规则\"`。\n\n```js\n// 转码前,规则...\nlet a = \"转码后\";\n```\n\n\
              ```\n输出到标准,输出...\n```\n";
    let html = "<html><body><h1>第二章</h1><pre>// 报错,执行...</pre><p><code>可执行</code></p></body></html>";
    f.write("1.md", md);
    f.write("2.html", html);
    f.write(
        "metadata.toml",
        format!(
            "{}convert = \"s2tw\"\n{text_table}[[cleanup]]\npattern = \"规则\"\nreplace = \"\"\n\
             [[chapters]]\nfile = \"1.md\"\n[[chapters]]\nfile = \"2.html\"\n",
            BOOK.replace("zh-CN", "zh-TW")
        ),
    );
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("lost-text"), "{}", r.stderr);
    assert_valid(&out);
    let one = text(&out, "EPUB/text/chapter-0001.xhtml");
    let two = text(&out, "EPUB/text/chapter-0002.xhtml");
    (one, two)
}

#[test]
fn conversion_reaches_chinese_inside_code_and_nothing_else_does() {
    // OpenCC and calibre convert a program's Chinese comments and strings; cleanup rules and
    // typography still leave code as written.
    let (one, two) = converted_code("");
    for code in ["轉碼", "轉碼前,規則...", "轉碼後", "輸出到標準,輸出..."] {
        assert!(one.contains(code), "{code} in {one}");
    }
    assert!(!one.contains("转码"), "{one}");
    assert!(two.contains("// 報錯,執行...</pre>"), "{two}");
    assert!(two.contains("<code>可執行</code>"), "{two}");
}

#[test]
fn convert_code_false_leaves_code_as_written() {
    let (one, two) = converted_code("[text]\nconvert-code = false\n");
    assert!(one.contains("<h1"), "{one}");
    assert!(one.contains("轉碼</h1>"), "{one}");
    for code in [
        "var 转码 = \"规则\"",
        "转码前,规则...",
        "输出到标准,输出...",
    ] {
        assert!(one.contains(code), "{code} in {one}");
    }
    assert!(two.contains("// 报错,执行...</pre>"), "{two}");
}

#[test]
fn the_sample_book_converted_to_taiwan_traditional_says_zh_tw() {
    let f = Fixture::sample();
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    f.write(
        "metadata.toml",
        meta.replacen("[book]\n", "[book]\nconvert = \"s2tw\"\n", 1),
    );
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    let opf = text(&out, "EPUB/package.opf");
    assert!(opf.contains("<dc:language>zh-TW</dc:language>"), "{opf}");
    assert!(opf.contains("安西烽火"), "{opf}");
    let chapter = text(&out, "EPUB/text/chapter-0001.xhtml");
    assert!(chapter.contains("xml:lang=\"zh-TW\""), "{chapter}");
    // Simplified forms of the original are gone: 军 (軍), 东 (東), 这 (這).
    let body = chapter_text(&out).join("");
    for simplified in ['军', '东', '这'] {
        assert!(
            !body.contains(simplified),
            "{simplified} left in {body:.200}"
        );
    }
    assert!(body.contains('軍'));
    // Every heading and paragraph as OpenCC 1.4.2's s2tw makes them of the book built
    // without conversion (tools/opencc-expected.py wrote the file).
    assert_eq!(
        chapter_text(&out).join("\n") + "\n",
        opencc_expected("sample-s2tw.txt")
    );
    assert_valid(&out);
}

/// What OpenCC 1.4.2 makes of a book, one heading or paragraph a line
/// (tests/fixtures/opencc, written by tools/opencc-expected.py).
fn opencc_expected(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencc");
    std::fs::read_to_string(dir.join(name)).unwrap()
}

#[test]
fn a_hard_wrapped_big5_file_converted_to_simplified_equals_opencc() {
    let f = Fixture::empty();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencc");
    f.write("big5.txt", std::fs::read(dir.join("big5.txt")).unwrap());
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"安西烽火\"\nauthors = [\"佚名\"]\nlanguage = \"zh-TW\"\n\
         convert = \"t2s\"\n[[chapters]]\nfile = \"big5.txt\"\nencoding = \"big5\"\n",
    );
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    let opf = text(&out, "EPUB/package.opf");
    assert!(opf.contains("<dc:language>zh-CN</dc:language>"), "{opf}");
    // Phrases broken across the wrapped lines convert as in the whole paragraph.
    assert_eq!(
        chapter_text(&out).join("\n") + "\n",
        opencc_expected("big5-t2s.txt")
    );
    assert_valid(&out);
}

#[test]
fn a_bad_pattern_is_an_error_at_its_place_in_cleanup_toml() {
    let f = Fixture::empty();
    f.write("1.txt", "第一段。\n");
    f.write(
        "metadata.toml",
        format!("{BOOK}[[chapters]]\nfile = \"1.txt\"\n"),
    );
    f.write(
        "cleanup.toml",
        "[[cleanup]]\npattern = '广告'\n\n[[cleanup]]\npattern = '本章(未完'\n",
    );
    let r = run(epubforge()
        .arg("build")
        .arg(f.path(""))
        .arg("-o")
        .arg(f.path("b.epub")));
    assert!(!r.ok);
    assert!(r.stderr.contains("cleanup.toml:5:14"), "{}", r.stderr);
    assert!(
        r.stderr.contains("at character 3 of the pattern"),
        "{}",
        r.stderr
    );
}

/// `cleanup.toml` goes through the project's one containment check: a symlink to rules
/// outside the project is refused (naming the way out) and read only with
/// `--allow-outside-paths`; a folder by that name is an error, not silently skipped.
#[cfg(unix)]
#[test]
fn cleanup_toml_leading_outside_is_refused_unless_outside_paths_are_allowed() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(
        outer.path().join("rules.toml"),
        "[[cleanup]]\npattern = '^广告.*$'\n",
    )
    .unwrap();
    let f = Fixture::empty();
    f.write("1.txt", "第一段。\n广告一行\n");
    f.write(
        "metadata.toml",
        format!("{BOOK}[[chapters]]\nfile = \"1.txt\"\n"),
    );
    std::os::unix::fs::symlink(outer.path().join("rules.toml"), f.path("cleanup.toml")).unwrap();
    let out = f.path("book.epub");
    let build = |extra: &[&str]| {
        run(epubforge()
            .arg("build")
            .arg(f.path(""))
            .arg("-o")
            .arg(&out)
            .args(extra))
    };
    let r = build(&[]);
    assert!(!r.ok, "{}", r.stderr);
    assert!(r.stderr.contains("cleanup.toml"), "{}", r.stderr);
    assert!(r.stderr.contains("--allow-outside-paths"), "{}", r.stderr);
    assert!(!out.exists());
    let r = build(&["--allow-outside-paths"]);
    assert!(r.ok, "{}", r.stderr);
    assert!(!chapter_text(&out).join("").contains("广告"));

    std::fs::remove_file(f.path("cleanup.toml")).unwrap();
    std::fs::create_dir(f.path("cleanup.toml")).unwrap();
    let r = build(&[]);
    assert!(!r.ok, "{}", r.stderr);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
}

#[test]
fn shared_rules_in_cleanup_toml_apply_and_a_changed_rule_rebuilds() {
    let f = Fixture::empty();
    f.write("1.txt", "第一段。\n广告一行\n第二段。\n");
    f.write("2.txt", "第三段。\n");
    f.write(
        "metadata.toml",
        format!("{BOOK}[[chapters]]\nglob = \"*.txt\"\n"),
    );
    f.write("cleanup.toml", "[[cleanup]]\npattern = '^广告.*$'\n");
    let out = f.path("book.epub");
    let build = || run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    let r = build();
    assert!(r.ok, "{}", r.stderr);
    assert!(!chapter_text(&out).join("").contains("广告"));
    // Nothing changed: up to date.
    let r = build();
    assert!(r.stderr.contains("up to date"), "{}", r.stderr);
    // The shared rules changed: the chapters are converted again with them.
    f.write(
        "cleanup.toml",
        "[[cleanup]]\npattern = '第一段'\nreplace = '首段'\n",
    );
    let r = build();
    assert!(r.ok && !r.stderr.contains("up to date"), "{}", r.stderr);
    let now = chapter_text(&out).join("\n");
    assert!(now.contains("首段") && now.contains("广告一行"), "{now}");
    // A rule in metadata.toml likewise.
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    f.write(
        "metadata.toml",
        format!("{meta}[[cleanup]]\npattern = '第三段'\nreplace = '末段'\n"),
    );
    let r = build();
    assert!(r.ok && !r.stderr.contains("up to date"), "{}", r.stderr);
    let now = chapter_text(&out).join("\n");
    assert!(now.contains("末段") && now.contains("首段"), "{now}");
}

#[test]
fn latin_smart_punctuation_is_opt_in() {
    let f = Fixture::empty();
    f.write("1.txt", "\"Wait--it's late...\" she said.\n");
    let meta = "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n[[chapters]]\nfile = \"1.txt\"\n";
    f.write("metadata.toml", meta);
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    assert!(chapter_text(&out).contains(&"\"Wait--it's late...\" she said.".to_string()));
    f.write(
        "metadata.toml",
        meta.replace("[[chapters]]", "[text]\ntypography = true\n[[chapters]]"),
    );
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    assert!(
        chapter_text(&out).contains(&"“Wait–it’s late…” she said.".to_string()),
        "{:?}",
        chapter_text(&out)
    );
}

#[test]
fn a_vertical_book_gets_corner_quotes_by_default() {
    let f = Fixture::empty();
    f.write("1.txt", "他说：“她说‘好’。”\n");
    f.write(
        "metadata.toml",
        format!("{BOOK}[layout]\nwriting-mode = \"vertical-rl\"\n[[chapters]]\nfile = \"1.txt\"\n"),
    );
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    assert!(chapter_text(&out).contains(&"他说：「她说『好』。」".to_string()));
}

/// Issue 16 item 5: `[layout] title-format` numbers the chapters again in reading order, in
/// the headings, the nav and the NCX; an unnumbered section keeps its title; a rebuild after
/// an edit that adds a chapter numbers the ones after it again.
#[test]
fn title_format_numbers_chapters_in_reading_order_everywhere() {
    let f = Fixture::empty();
    f.write(
        "book.txt",
        "楔子\n\n　　天下大势。\n\n第十二章 风起\n\n　　风起于青萍之末。\n\n\
         第13章：云涌\n\n　　云涌于山川之间。\n\n第十二章\n\n　　又是一章。\n",
    );
    f.write(
        "metadata.toml",
        format!(
            "{BOOK}[layout]\ntitle-format = \"第{{n:zh}}章 {{title}}\"\n\n\
             [[chapters]]\nfile = \"book.txt\"\nsplit = \"auto\"\n"
        ),
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let headings: Vec<String> = chapter_text(&epub)
        .into_iter()
        .filter(|l| l.starts_with("# "))
        .collect();
    assert_eq!(
        headings,
        ["# 楔子", "# 第一章 风起", "# 第二章 云涌", "# 第三章"]
    );
    let nav = text(&epub, "EPUB/nav.xhtml");
    let ncx = text(&epub, "EPUB/toc.ncx");
    for want in ["楔子", "第一章 风起", "第二章 云涌", "第三章"] {
        assert!(
            nav.contains(&format!(">{want}<")),
            "nav lacks {want}: {nav}"
        );
        assert!(
            ncx.contains(&format!("<text>{want}</text>")),
            "ncx lacks {want}"
        );
    }
    assert!(!nav.contains("第十二章") && !ncx.contains("第13章"));

    // A chapter added before the others: the rebuild numbers them again.
    f.write(
        "book.txt",
        "楔子\n\n　　天下大势。\n\n第一章 初见\n\n　　初见于长安。\n\n第十二章 风起\n\n　　风起于青萍之末。\n\n\
         第13章：云涌\n\n　　云涌于山川之间。\n\n第十二章\n\n　　又是一章。\n",
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let headings: Vec<String> = chapter_text(&epub)
        .into_iter()
        .filter(|l| l.starts_with("# "))
        .collect();
    assert_eq!(
        headings,
        [
            "# 楔子",
            "# 第一章 初见",
            "# 第二章 风起",
            "# 第三章 云涌",
            "# 第四章"
        ]
    );
}

#[test]
fn a_bad_title_format_is_an_error_at_its_line() {
    let f = Fixture::empty();
    f.write("a.txt", "第一章 风起\n\n正文。\n");
    f.write(
        "metadata.toml",
        format!("{BOOK}[layout]\ntitle-format = \"第{{x}}章\"\n\n[[chapters]]\nfile = \"a.txt\"\n"),
    );
    let r = f.build(&[]);
    assert!(!r.ok);
    assert!(r.stderr.contains("title-format"), "{}", r.stderr);
    assert!(r.stderr.contains("{x}"), "{}", r.stderr);
    assert!(r.stderr.contains(":6"), "{}", r.stderr);
}

#[test]
fn the_text_ledger_accounts_for_every_letter_of_the_download() {
    // Issue 26, item 6: the preset, conversion and typography remove and change text; the
    // ledger counts what the rules removed and finds nothing lost, so --strict builds.
    let f = web_novel("");
    let metadata = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    let converted = "language = \"zh-CN\"\nconvert = \"s2tw\"\n";
    f.write(
        "metadata.toml",
        metadata.replacen("language = \"zh-CN\"\n", converted, 1),
    );
    let out = f.path("book.epub");
    let r = run(epubforge()
        .arg("build")
        .arg(f.path(""))
        .arg("--strict")
        .arg("-o")
        .arg(&out));
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("lost-text"), "{}", r.stderr);
    assert!(
        r.stderr.contains("letters and digits of the source:")
            && r.stderr.contains("by cleanup rules"),
        "{}",
        r.stderr
    );
}

#[test]
fn the_text_ledger_finds_nothing_lost_in_markdown_and_html_chapters() {
    // What the converters drop on purpose (scripts, site navigation, the `<title>` when the
    // `<h1>` titles the chapter) is no text of the book; every letter of the rest is there.
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        format!("{BOOK}[[chapters]]\nfile = \"1.md\"\n[[chapters]]\nfile = \"2.html\"\n"),
    );
    f.write(
        "1.md",
        "# 第一章 风起\n\n天黑了，*他*走了[^1]。\n\n> 引文\n\n- 甲\n- 乙\n\n```\ncode 代码\n```\n\n\
         [链接](https://example.com)\n\n[^1]: 注释的内容在这里。\n",
    );
    f.write(
        "2.html",
        "<html><head><title>网页标题</title><style>p{}</style></head><body>\
         <nav><a href=\"a.html\">上一章</a></nav><h1>第二章 云涌</h1><p>雨停了。</p>\
         <script>var x = 1;</script><table><tr><td>表格</td></tr></table></body></html>",
    );
    let out = f.path("book.epub");
    let r = run(epubforge().arg("build").arg(f.path("")).arg("-o").arg(&out));
    assert!(r.ok, "{}", r.stderr);
    assert!(!r.stderr.contains("lost-text"), "{}", r.stderr);
}
