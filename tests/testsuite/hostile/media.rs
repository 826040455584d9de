//! Hostile media: images, covers, fonts, SVG and CSS from the project.
//!
//! Each test is a project a stranger could send: a build must end in a valid EPUB (checked with
//! EPUBCheck when `EPUBCHECK_JAR` is set) or a clear error naming the file, at once. Issue 13
//! items 4 (reading), 5 (decompression bombs), 6 (hostile SVG and CSS) and 11 (font counts).

use std::path::Path;

use image::ImageEncoder;

use crate::common::{Fixture, Run, assert_valid, entries};

/// A Markdown book with one chapter, `extra` appended to `[book]`, and `style` as `[style]`.
fn book(chapter: &str, extra: &str, style: &str) -> Fixture {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        format!(
            "[book]\ntitle = \"Hostile\"\nauthors = [\"A\"]\nlanguage = \"en\"\n{extra}\n\
             [style]\n{style}\n[[chapters]]\nfile = \"one.md\"\n"
        ),
    );
    f.write("one.md", chapter);
    f
}

/// The build failed with a message naming `file` and saying `what`, without crashing.
fn refused(run: &Run, file: &str, what: &str) {
    assert!(
        !run.ok,
        "built although it should not have:\n{}",
        run.stderr
    );
    assert!(
        matches!(run.code, Some(1 | 2)),
        "exit status {:?} (a crash, not an error):\n{}",
        run.code,
        run.stderr
    );
    assert!(
        run.stderr.contains(file) && run.stderr.contains(what),
        "the error does not name {file} and say {what:?}:\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

fn built(run: &Run) {
    assert!(run.ok, "build failed:\n{}", run.stderr);
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(status.success());
}

/// A sparse file of `bytes` bytes (no disk space, no time).
fn sparse(path: &Path, bytes: u64) {
    std::fs::File::create(path).unwrap().set_len(bytes).unwrap();
}

fn picture(w: u32, h: u32) -> image::RgbImage {
    image::RgbImage::from_fn(w, h, |x, y| image::Rgb([(x * 3) as u8, (y * 2) as u8, 90]))
}

fn png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(picture(w, h).as_raw(), w, h, image::ExtendedColorType::Rgb8)
        .unwrap();
    out
}

fn jpeg(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85)
        .encode_image(&picture(w, h))
        .unwrap();
    out
}

/// A small PNG whose header claims `w` x `h` pixels: a decompression bomb's header.
fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    let mut out = png(64, 64);
    out[16..20].copy_from_slice(&w.to_be_bytes());
    out[20..24].copy_from_slice(&h.to_be_bytes());
    let crc = crc32fast::hash(&out[12..29]);
    out[29..33].copy_from_slice(&crc.to_be_bytes());
    out
}

/// A small JPEG whose frame header claims `w` x `h` pixels.
fn jpeg_claiming(w: u16, h: u16) -> Vec<u8> {
    let mut out = jpeg(64, 64);
    let sof = out.windows(2).position(|m| m == [0xFF, 0xC0]).unwrap();
    out[sof + 5..sof + 7].copy_from_slice(&h.to_be_bytes());
    out[sof + 7..sof + 9].copy_from_slice(&w.to_be_bytes());
    out
}

// Item 4: what a project names is read only when it is a regular file of sensible size.

#[test]
fn image_at_dev_zero_is_a_site_url_removed_never_read() {
    let f = book("# One\n\n![zero](/dev/zero)\n", "", "");
    // A URL path from the root points into a web site, never at this machine's /dev: the
    // image is removed with a warning naming it, as a remote one is (an error with --strict),
    // and nothing is read.
    let run = f.build(&["--strict"]);
    refused(&run, "one.md", "removed 1 element: <img>");
    let run = f.build(&[]);
    built(&run);
    assert!(
        run.stderr
            .contains("removed image with a path from a site's root /dev/zero"),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn image_that_is_a_fifo_is_refused_without_waiting_for_a_writer() {
    let f = book("# One\n\n![pipe](img/pipe.png)\n", "", "");
    std::fs::create_dir_all(f.path("img")).unwrap();
    mkfifo(&f.path("img/pipe.png"));
    // A picture that cannot be read is a warning (its alt text stays); --strict refuses it.
    built(&f.build(&[]));
    refused(&f.build(&["--strict"]), "pipe.png", "not a regular file");
}

#[test]
fn image_and_cover_over_50_mb_are_errors_naming_the_file() {
    let f = book("# One\n\n![big](big.png)\n", "", "");
    sparse(&f.path("big.png"), 50_000_001);
    refused(
        &f.build(&["--strict"]),
        "big.png",
        "larger than the limit of 50 MB",
    );

    let f = book("# One\n\nText.\n", "cover = \"cover.png\"", "");
    sparse(&f.path("cover.png"), 50_000_001);
    refused(&f.build(&[]), "cover.png", "larger than the limit of 50 MB");
}

#[test]
fn font_and_stylesheet_over_their_caps_are_errors_naming_the_file() {
    let f = book("# One\n\nText.\n", "", "fonts = [\"huge.ttf\"]");
    sparse(&f.path("huge.ttf"), 256_000_001);
    refused(&f.build(&[]), "huge.ttf", "larger than the limit of 256 MB");

    let f = book("# One\n\nText.\n", "", "css = [\"huge.css\"]");
    sparse(&f.path("huge.css"), 10_000_001);
    refused(&f.build(&[]), "huge.css", "larger than the limit of 10 MB");
}

#[cfg(unix)]
#[test]
fn fifo_in_a_build_cache_that_came_with_the_project_does_not_hang_the_cover() {
    // No cover: one is drawn, and the font search remembered in the cache is read first.
    let f = book("# One\n\nText.\n", "", "");
    std::fs::create_dir_all(f.path(".epubforge-cache")).unwrap();
    mkfifo(&f.path(".epubforge-cache/cover-font"));
    built(&f.build(&[]));
}

// Item 5: decompression bombs and truncated files are refused from the header, at once.

#[test]
fn png_claiming_30000_pixels_a_side_is_refused_as_cover_and_as_chapter_image() {
    let f = book("# One\n\nText.\n", "cover = \"bomb.png\"", "");
    f.write("bomb.png", png_claiming(30_000, 30_000));
    refused(&f.build(&[]), "bomb.png", "30000x30000");

    let f = book("# One\n\n![bomb](bomb.png)\n", "", "");
    f.write("bomb.png", png_claiming(30_000, 30_000));
    refused(&f.build(&["--strict"]), "bomb.png", "30000x30000");
}

#[test]
fn jpeg_claiming_60000_pixels_a_side_is_an_error_not_an_abort() {
    let f = book("# One\n\nText.\n", "cover = \"bomb.jpg\"", "");
    f.write("bomb.jpg", jpeg_claiming(60_000, 60_000));
    refused(&f.build(&[]), "bomb.jpg", "60000x60000");
}

#[test]
fn truncated_jpeg_cover_and_image_are_errors() {
    let whole = jpeg(640, 1024);
    let cut = &whole[..whole.len() * 2 / 3];
    let f = book("# One\n\nText.\n", "cover = \"cover.jpg\"", "");
    f.write("cover.jpg", cut);
    refused(&f.build(&[]), "cover.jpg", "truncated");

    let f = book("# One\n\n![cut](cut.jpg)\n", "", "");
    f.write("cut.jpg", cut);
    refused(&f.build(&["--strict"]), "cut.jpg", "truncated");
}

// Item 6: hostile SVG and CSS are cleaned, with a warning, and the book passes EPUBCheck.

const HOSTILE_SVG: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:evil="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 160 256" width="160" height="256" onload="alert('onload')">
  <script>alert('script')</script>
  <evil:script>alert('prefixed')</evil:script>
  <foreignObject width="100" height="50"><h:div>alert('foreign')</h:div></foreignObject>
  <image x="0" y="0" width="10" height="10" xlink:href="http://evil.example/track.png"/>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#335"/><stop offset="1" stop-color="#aab"/></linearGradient>
  <circle id="dot" r="8" fill="#fc0"/></defs>
  <rect width="160" height="256" fill="url(#g)"/>
  <use xlink:href="#dot" x="80" y="128"/>
  <text x="80" y="40" text-anchor="middle" onclick="alert('click')">Kept text</text>
</svg>
"##;

const SCRIPT_WORDS: [&str; 7] = [
    "alert",
    "script",
    "onload",
    "onclick",
    "foreignObject",
    "evil.example",
    "<h:",
];

#[test]
fn hostile_svg_image_and_cover_are_cleaned_and_pass_epubcheck() {
    let f = book(
        "# One\n\n![drawing](art/drawing.svg)\n",
        "cover = \"art/cover.svg\"",
        "",
    );
    f.write("art/drawing.svg", HOSTILE_SVG);
    f.write("art/cover.svg", HOSTILE_SVG.replace("Kept text", "Cover"));
    let run = f.build(&[]);
    built(&run);
    for file in ["drawing.svg", "cover.svg"] {
        assert!(
            crate::common::flat(&run.stderr)
                .lines()
                .any(|l| l.contains(file) && l.contains("<script> ×2")),
            "no warning naming {file} and what was removed:\n{}",
            run.stderr
        );
    }
    let epub = f.path("out.epub");
    let svgs: Vec<(String, String)> = entries(&epub)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".svg"))
        .map(|(name, data)| (name, String::from_utf8(data).unwrap()))
        .collect();
    assert_eq!(
        svgs.len(),
        2,
        "{:?}",
        svgs.iter().map(|s| &s.0).collect::<Vec<_>>()
    );
    for (name, svg) in &svgs {
        for word in SCRIPT_WORDS {
            assert!(!svg.contains(word), "{word} left in {name}:\n{svg}");
        }
        assert!(
            svg.contains("fill=\"url(#g)\"") && svg.contains("xlink:href=\"#dot\""),
            "{svg}"
        );
    }
    assert_valid(&epub);
}

#[test]
fn hostile_user_css_is_cleaned_and_passes_epubcheck() {
    let f = book(
        "# One\n\nText with <span class=\"hero\">a hero</span>.\n",
        "",
        "css = [\"style/book.css\"]\nfonts = [\"fonts/Body.ttf\"]",
    );
    let Ok(font) = std::fs::read("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf") else {
        eprintln!("skipping: DejaVu Serif is not installed");
        return;
    };
    f.write("fonts/Body.ttf", font);
    f.write("style/hero.png", png(32, 32));
    f.write(
        "style/book.css",
        "@import url(http://evil.example/a.css);\n\
         @font-face { font-family: \"Body\"; src: url(../fonts/Body.ttf) format(\"truetype\"), url(https://evil.example/b.woff) format(\"woff\"); }\n\
         @font-face { font-family: \"Remote\"; src: url(https://evil.example/r.woff2); }\n\
         body { font-family: \"Body\", serif; background: linear-gradient(#fff, #eee); }\n\
         .hero { background: url(hero.png) no-repeat; color: #333 }\n\
         p { width: expression(alert(1)); margin: 0 }\n\
         div { -moz-binding: url(http://evil.example/x.xml#b); behavior: url(x.htc) }\n\
         a { background: url(\"javascript:alert(1)\") }\n\
         i { background: url(file:///etc/passwd) }\n\
         @media (max-width: 40em) { body { margin: 0 } }\n\
         .dot { background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==) }\n",
    );
    let run = f.build(&[]);
    built(&run);
    let warned = |what: &str, line: usize| {
        assert!(
            crate::common::flat(&run.stderr)
                .lines()
                .any(|l| l.contains(&format!("book.css:{line}")) && l.contains(what)),
            "no warning naming book.css:{line} and {what:?}:\n{}",
            run.stderr
        );
    };
    warned("@import (remote", 1);
    warned("src entry (remote", 2);
    warned("`src` (remote", 3);
    warned("expression()", 6);
    warned("`-moz-binding`", 7);
    warned("`behavior`", 7);
    warned("script url(javascript:", 8);
    warned("file: URL", 9);
    // `check` reports the same, before any build.
    let checked = crate::common::run(crate::common::epubforge().arg("check").arg(f.dir.path()));
    let said = format!("{}{}", checked.stdout, checked.stderr);
    assert!(
        said.contains("warning[css]: removed @import (remote") && said.contains("book.css:1:1"),
        "{said}"
    );
    let epub = f.path("out.epub");
    let css = common_text(&epub, "EPUB/styles/user-1.css");
    for gone in [
        "evil",
        "expression",
        "binding",
        "behavior",
        "javascript",
        "file:",
        "@import",
    ] {
        assert!(!css.contains(gone), "{gone} left in:\n{css}");
    }
    for kept in [
        "src: url(\"../fonts/font-1.ttf\") format(\"truetype\");",
        "linear-gradient(#fff, #eee)",
        "url(\"../images/img-",
        "@media (max-width: 40em) { body { margin: 0 } }",
        "url(data:image/png;base64,iVBOR",
        "margin: 0 }",
    ] {
        assert!(css.contains(kept), "{kept} missing from:\n{css}");
    }
    assert!(
        entries(&epub)
            .keys()
            .any(|n| n.starts_with("EPUB/images/img-") && n.ends_with(".png")),
        "the stylesheet's image is not in the book"
    );
    assert_valid(&epub);
}

#[test]
fn css_epubchecks_grammar_refuses_is_cut_and_the_rest_kept_as_written() {
    // One piece of each kind EPUBCheck 5.3.0 reports as CSS-008 (the Fidus Writer manual's
    // `-@font-face` and margin boxes after a declaration of `@page`, the zh vertical sample's
    // comment closed early), and constructs it accepts, which must stay byte for byte.
    let f = book("# One\n\nText.\n", "", "css = [\"style/book.css\"]");
    let kept = [
        "@media (max-width: 40em) { body { margin: 0 } }",
        "@supports (display: grid) { .g { display: grid } }",
        "@page { @top-left { content: \"x\" } }",
        ":root { --main: #333; --empty:; }",
        "p { color: red !important }",
        "h1 /* a comment */ , h2 { margin: 0 }",
        "@keyframes fade { from { opacity: 0 } 50% { opacity: .5 } to { opacity: 1 } }",
        "q { color: green }",
    ];
    let refused = [
        (
            2,
            "-@font-face {\n  font-family: X;\n}",
            "has `-` where EPUBCheck",
        ),
        (
            6,
            "@bottom-left { content: normal; }",
            "after a declaration in `@page`",
        ),
        (8, ".c { color: red }", "CSS nesting"),
        (9, "*zoom: 1;", "has `*` where EPUBCheck"),
        (9, ";", "a stray `;`"),
        (
            10,
            "c \\\n d */ .v { writing-mode: vertical-rl }",
            "has `\\` where EPUBCheck",
        ),
        (14, "font-size: 2em;", "no rule, which EPUBCheck"),
    ];
    let css = format!(
        "{}\n{}\n@page :first {{ margin: 0;\n  {}\n}}\n.b {{ color: blue; {} }}\n\
         .d {{ {} color: red;{} }}\n/* a /* b */ {}\n{}\n{}\n@media print {{ {} }}\n{}\n{}\n{}\n",
        kept[0],
        refused[0].1,
        refused[1].1,
        refused[2].1,
        refused[3].1,
        refused[4].1,
        refused[5].1,
        kept[1],
        kept[2],
        refused[6].1,
        kept[3],
        kept[4],
        kept[5..].join("\n"),
    );
    f.write("style/book.css", &css);
    let run = f.build(&[]);
    built(&run);
    let flat = crate::common::flat(&run.stderr);
    for (line, text, why) in refused {
        let first = text.lines().next().unwrap_or(text);
        assert!(
            flat.lines()
                .any(|l| l.contains(&format!("book.css:{line}:"))
                    && l.contains(first)
                    && l.contains(why)),
            "no warning at book.css:{line} for {first:?} ({why}):\n{}",
            run.stderr
        );
    }
    let epub = f.path("out.epub");
    let out = common_text(&epub, "EPUB/styles/user-1.css");
    for piece in kept {
        assert!(out.contains(piece), "{piece} missing from:\n{out}");
    }
    for (_, text, _) in refused.iter().filter(|(_, t, _)| *t != ";") {
        assert!(!out.contains(text), "{text} left in:\n{out}");
    }
    assert_valid(&epub);
}

fn common_text(epub: &Path, name: &str) -> String {
    crate::common::text(epub, name)
}

// Item 11: a font collection's header is checked against the file before it is believed.

#[test]
fn font_collection_claiming_four_billion_faces_is_refused_at_once() {
    let f = book("# One\n\nText.\n", "", "fonts = [\"evil.ttc\"]");
    let mut ttc = b"ttcf\0\x01\0\0\xFF\xFF\xFF\xFF".to_vec();
    ttc.extend_from_slice(&[0; 8]);
    f.write("evil.ttc", ttc);
    refused(&f.build(&[]), "evil.ttc", "4294967295 faces");
}
