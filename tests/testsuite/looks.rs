//! How the book looks, end to end: themes and settings, vertical writing, generated pages,
//! chapter splitting, embedded fonts, generated covers, accessibility metadata and EPUB 2.

use crate::common;

use std::path::Path;

use common::{Fixture, assert_valid, entries, spine, text};

/// The sample book with extra TOML appended (new sections only).
fn sample_with(extra: &str) -> Fixture {
    let f = Fixture::sample();
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    f.write("metadata.toml", format!("{meta}\n{extra}\n"));
    f
}

fn build_ok(f: &Fixture) -> std::path::PathBuf {
    let r = f.build(&[]);
    assert!(r.ok, "build failed: {}", r.stderr);
    f.path("out.epub")
}

/// EPUBCheck 0/0/0 when installed (for EPUB 2, where the XHTML 1.1 root has no `lang`).
fn assert_epubcheck_clean(epub: &Path) {
    if let Some(r) = common::epubcheck(epub) {
        assert_eq!(
            (r.fatal, r.errors, r.warnings),
            (0, 0, 0),
            "{:#?}",
            r.messages
        );
    }
}

#[test]
fn horizontal_sample_has_title_page_accessibility_metadata_and_landmarks() {
    let f = Fixture::sample();
    let epub = build_ok(&f);
    assert_valid(&epub);
    let order = spine(&epub);
    assert_eq!(order[0], "text/cover.xhtml");
    assert_eq!(order[1], "text/titlepage.xhtml");
    let title_page = text(&epub, "EPUB/text/titlepage.xhtml");
    assert!(title_page.contains("<h1 class=\"title\">安西烽火</h1>"));
    assert!(title_page.contains("<p class=\"authors\">佚名</p>"));
    let opf = text(&epub, "EPUB/package.opf");
    for needle in [
        "<meta property=\"schema:accessMode\">textual</meta>",
        "<meta property=\"schema:accessMode\">visual</meta>",
        "<meta property=\"schema:accessModeSufficient\">textual</meta>",
        "<meta property=\"schema:accessibilityFeature\">structuralNavigation</meta>",
        "<meta property=\"schema:accessibilityFeature\">tableOfContents</meta>",
        "<meta property=\"schema:accessibilityFeature\">alternativeText</meta>",
        "<meta property=\"schema:accessibilityHazard\">none</meta>",
        "<meta property=\"schema:accessibilitySummary\">",
        "<reference type=\"title-page\"",
    ] {
        assert!(opf.contains(needle), "missing {needle}");
    }
    assert!(!opf.contains("page-progression-direction"));
    let nav = text(&epub, "EPUB/nav.xhtml");
    assert!(!nav.contains("epub:type=\"toc\" href=\"nav.xhtml"));
    assert!(nav.contains("<a epub:type=\"bodymatter\" href=\"text/chapter-0001.xhtml\">"));
    let css = text(&epub, "EPUB/styles/book.css");
    assert!(css.contains("text-indent: 2em") && !css.contains("vertical-rl"));
}

#[test]
fn vertical_switch_sets_css_spine_direction_metadata_and_tate_chu_yoko() {
    let f = sample_with("[layout]\nwriting-mode = \"vertical-rl\"\ntoc-page = true\n");
    let epub = build_ok(&f);
    assert_valid(&epub);
    let opf = text(&epub, "EPUB/package.opf");
    assert!(opf.contains("<spine toc=\"ncx\" page-progression-direction=\"rtl\">"));
    assert!(opf.contains("<meta name=\"primary-writing-mode\" content=\"vertical-rl\"/>"));
    let css = text(&epub, "EPUB/styles/book.css");
    for needle in [
        "writing-mode: vertical-rl",
        "-epub-writing-mode: vertical-rl",
        "-webkit-writing-mode: vertical-rl",
        "text-combine-upright: all",
    ] {
        assert!(css.contains(needle), "{needle}");
    }
    let chapter = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(
        chapter.contains("第<span class=\"tcy\">1</span>章"),
        "{chapter}"
    );
    // Every document links the stylesheet, so every document is vertical.
    for (name, data) in entries(&epub) {
        if name.ends_with(".xhtml") {
            let s = String::from_utf8(data).unwrap();
            assert!(s.contains("styles/book.css"), "{name}");
        }
    }
}

#[test]
fn toc_page_and_colophon_are_in_the_reading_order_and_the_toc_landmark_points_at_the_page() {
    let f = sample_with("[layout]\ntoc-page = true\ncolophon = true\n");
    let epub = build_ok(&f);
    assert_valid(&epub);
    let order = spine(&epub);
    assert_eq!(
        &order[..3],
        ["text/cover.xhtml", "text/titlepage.xhtml", "text/toc.xhtml"]
    );
    assert_eq!(order.last().unwrap(), "text/colophon.xhtml");
    let toc = text(&epub, "EPUB/text/toc.xhtml");
    assert!(toc.contains("<a href=\"chapter-0001.xhtml\">第1章</a>"));
    assert!(toc.contains("<a href=\"chapter-0003.xhtml\">第3章</a>"));
    let nav = text(&epub, "EPUB/nav.xhtml");
    assert!(nav.contains("<a epub:type=\"toc\" href=\"text/toc.xhtml\">"));
    let colophon = text(&epub, "EPUB/text/colophon.xhtml");
    for needle in ["epubforge 示例", "2026-11-29", "urn:uuid:", "epubforge"] {
        assert!(colophon.contains(needle), "{needle}");
    }
}

#[test]
fn title_page_can_be_turned_off() {
    let f = sample_with("[layout]\ntitle-page = false\n");
    let epub = build_ok(&f);
    assert_eq!(spine(&epub)[1], "text/chapter-0001.xhtml");
}

#[test]
fn large_chapters_split_at_paragraphs_with_toc_at_the_start_and_one_heading() {
    let f = Fixture::empty();
    let para = "长夜漫漫，烽火连天，安西军在城头守望了一整夜。".repeat(8);
    f.write("c/1.txt", format!("{para}\n").repeat(200));
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"长\"\nauthors = [\"甲\"]\nlanguage = \"zh-CN\"\n\n[layout]\nsplit-size = 20\n\n[[chapters]]\nfile = \"c/1.txt\"\ntitle = \"第一章\"\n",
    );
    let epub = build_ok(&f);
    assert_valid(&epub);
    let pieces: Vec<String> = spine(&epub)
        .into_iter()
        .filter(|h| h.contains("chapter-0001"))
        .collect();
    assert!(pieces.len() >= 4, "{pieces:?}");
    let all = entries(&epub);
    let mut paragraphs = 0;
    for (i, href) in pieces.iter().enumerate() {
        let data = &all[&format!("EPUB/{href}")];
        assert!(data.len() < 20 * 1024, "{href}: {} bytes", data.len());
        let s = String::from_utf8(data.clone()).unwrap();
        assert_eq!(s.contains("<h1"), i == 0, "{href}");
        paragraphs += common::paragraphs(&s).len();
    }
    assert_eq!(paragraphs, 200);
    let nav = text(&epub, "EPUB/nav.xhtml");
    assert!(nav.contains("<a href=\"text/chapter-0001.xhtml\">第一章</a>"));
    assert!(!nav.contains("chapter-0001-2"));
}

#[test]
fn user_css_comes_after_ours_and_settings_reach_the_stylesheet() {
    let f = sample_with(
        "[style]\ntheme = \"latin\"\ncss = [\"my.css\"]\nindent = \"1em\"\nparagraph-spacing = \"0.5em\"\nline-height = \"1.6\"\nheading-align = \"left\"\n",
    );
    f.write("my.css", "p { color: #333; }\n");
    let epub = build_ok(&f);
    assert_valid(&epub);
    assert_eq!(text(&epub, "EPUB/styles/my.css"), "p { color: #333; }\n");
    let chapter = text(&epub, "EPUB/text/chapter-0001.xhtml");
    let ours = chapter.find("styles/book.css").unwrap();
    let theirs = chapter.find("styles/my.css").unwrap();
    assert!(ours < theirs);
    let css = text(&epub, "EPUB/styles/book.css");
    for needle in [
        "hyphens: auto",
        "p { text-indent: 1em; }",
        "margin-top: 0.5em",
        "body { line-height: 1.6; }",
        "text-align: left; }",
    ] {
        assert!(css.contains(needle), "{needle}");
    }
}

#[test]
fn a_setting_that_could_inject_css_is_an_error_naming_key_and_line() {
    let f = sample_with("[style]\nindent = \"2em; } body { display: none\"\n");
    let r = f.build(&[]);
    assert!(!r.ok);
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    let line = meta.lines().position(|l| l.starts_with("indent")).unwrap() + 1;
    assert!(
        r.stderr.contains(&format!("metadata.toml:{line}:")),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("`[style] indent`"), "{}", r.stderr);
}

#[test]
fn epub2_output_is_opf2_with_ncx_guide_and_xhtml11() {
    let f = sample_with("[output]\nepub-version = 2\n[layout]\ntoc-page = true\ncolophon = true\n");
    let epub = build_ok(&f);
    for (name, data) in entries(&epub) {
        if name.ends_with(".xhtml") || name.ends_with(".opf") || name.ends_with(".ncx") {
            let s = String::from_utf8(data).unwrap();
            let opts = roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            };
            roxmltree::Document::parse_with_options(&s, opts)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
    assert_epubcheck_clean(&epub);
    let all = entries(&epub);
    assert!(!all.contains_key("EPUB/nav.xhtml"));
    let opf = text(&epub, "EPUB/package.opf");
    assert!(opf.contains("version=\"2.0\""));
    assert!(opf.contains("<dc:creator opf:role=\"aut\">佚名</dc:creator>"));
    assert!(opf.contains("<reference type=\"toc\""));
    let chapter = text(&epub, "EPUB/text/chapter-0001.xhtml");
    assert!(chapter.contains("-//W3C//DTD XHTML 1.1//EN"));
    assert!(!chapter.contains("<section") && !chapter.contains("epub:type"));
}

#[test]
fn without_a_cover_one_is_generated_valid_and_byte_identical_on_rebuild() {
    let f = Fixture::sample();
    let meta = std::fs::read_to_string(f.path("metadata.toml")).unwrap();
    f.write(
        "metadata.toml",
        meta.replace("cover = \"covers/cover.jpg\"\n", ""),
    );
    std::fs::remove_dir_all(f.path("covers")).unwrap();
    let epub = build_ok(&f);
    assert_valid(&epub);
    let all = entries(&epub);
    let png = &all["EPUB/images/cover.png"];
    assert!(png.starts_with(b"\x89PNG"));
    let opf = text(&epub, "EPUB/package.opf");
    assert!(
        opf.contains(
            "href=\"images/cover.png\" media-type=\"image/png\" properties=\"cover-image\""
        )
    );
    let first = std::fs::read(&epub).unwrap();
    let epub = build_ok(&f);
    assert_eq!(std::fs::read(&epub).unwrap(), first);
}

const NOTO: &str = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc";

#[test]
fn embedded_cjk_font_is_subset_small_valid_and_covers_every_character() {
    if !Path::new(NOTO).is_file() {
        eprintln!("note: {NOTO} not installed; skipping");
        return;
    }
    let f = sample_with(&format!(
        "[style]\nfonts = [{{ file = \"{NOTO}\", face = 2 }}]\n"
    ));
    // A system font, outside the project folder: allowed only when asked for.
    assert!(!f.build(&[]).ok, "a font outside the project was read");
    let r = f.build(&["--allow-outside-paths"]);
    assert!(r.ok, "build failed: {}", r.stderr);
    let epub = f.path("out.epub");
    assert_valid(&epub);
    let size = std::fs::metadata(&epub).unwrap().len();
    eprintln!("sample + subset Noto Serif CJK: {size} bytes");
    assert!(size < 2 * 1024 * 1024, "{size} bytes");
    let all = entries(&epub);
    let (name, font) = all
        .iter()
        .find(|(n, _)| n.starts_with("EPUB/fonts/"))
        .expect("an embedded font");
    let opf = text(&epub, "EPUB/package.opf");
    let href = name.trim_start_matches("EPUB/");
    assert!(
        opf.contains(&format!("href=\"{href}\" media-type=\"font/otf\"")),
        "{opf}"
    );
    let css = text(&epub, "EPUB/styles/book.css");
    assert!(css.contains("@font-face") && css.contains(&format!("../{href}")));
    assert!(
        css.contains("body { font-family: \"Noto Serif CJK SC\""),
        "{css}"
    );
    let face = ttf_parser::Face::parse(font, 0).expect("the subset font parses");
    let mut checked = 0;
    for (name, data) in &all {
        if !name.starts_with("EPUB/text/") {
            continue;
        }
        let xhtml = std::str::from_utf8(data).unwrap();
        let opts = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        let doc = roxmltree::Document::parse_with_options(xhtml, opts).unwrap();
        let body = doc
            .descendants()
            .find(|n| n.has_tag_name("body"))
            .expect("a body");
        for node in body.descendants().filter(|n| n.is_text()) {
            for c in node
                .text()
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_control())
            {
                assert!(
                    face.glyph_index(c).is_some_and(|g| g.0 != 0),
                    "{c:?} (U+{:04X}) in {name} has no glyph",
                    c as u32
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 8_000, "only {checked} characters checked");
}
