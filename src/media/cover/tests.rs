use super::font_search::{FONT_MEMO_VERSION, FontMemo, cjk_font_score, find_cjk_font_in};
use super::wrap::{SMALLEST_EM, tokens, wrap, wrap_balanced};
use super::*;
use image::RgbImage;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

const SERIF_BOLD: &str = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc";

#[test]
fn the_font_search_is_remembered_until_a_searched_folder_changes() {
    let dir = tempfile::tempdir().unwrap();
    let (fonts, missing) = (dir.path().join("fonts"), dir.path().join("none"));
    let memo = dir.path().join("cache/cover-font");
    std::fs::create_dir_all(fonts.join("noto")).unwrap();
    let sans = fonts.join("noto/NotoSansCJK-Regular.ttc");
    std::fs::write(&sans, b"").unwrap();
    let roots = [fonts.clone(), missing.clone()];
    let search_again = |calls: &std::cell::Cell<u32>, again: bool| {
        find_cjk_font_in(&roots, Some(&memo), again, || {
            calls.set(calls.get() + 1);
            None
        })
    };
    let search = |calls: &std::cell::Cell<u32>| search_again(calls, false);
    let calls = std::cell::Cell::new(0);
    assert_eq!(search(&calls), Some(sans.clone()));
    assert!(memo.is_file());

    // Remembered: a font named in the memo is taken without walking (a decoy proves it).
    let decoy = dir.path().join("decoy.ttc");
    std::fs::write(&decoy, b"").unwrap();
    let mut remembered: FontMemo = serde_json::from_slice(&std::fs::read(&memo).unwrap()).unwrap();
    remembered.font = Some(decoy.clone());
    std::fs::write(&memo, serde_json::to_vec(&remembered).unwrap()).unwrap();
    assert_eq!(search(&calls), Some(decoy.clone()));
    // A clean build searches again, and remembers what it found.
    assert_eq!(search_again(&calls, true), Some(sans.clone()));
    assert!(!std::fs::read_to_string(&memo).unwrap().contains("decoy"));

    // A better font in a new folder changes a searched folder: searched again. (Each
    // change waits out the file system's timestamp granularity first.)
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::create_dir_all(fonts.join("serif")).unwrap();
    let serif = fonts.join("serif/NotoSerifCJK-Bold.ttc");
    std::fs::write(&serif, b"").unwrap();
    assert_eq!(search(&calls), Some(serif.clone()));

    // A root that appears, and one that goes, are seen too; nothing found asks fc-match
    // (here a stub), and that answer is remembered as well.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::remove_dir_all(&fonts).unwrap();
    assert_eq!(search(&calls), None);
    assert_eq!(calls.get(), 1);
    assert_eq!(search(&calls), None);
    assert_eq!(calls.get(), 1, "an unchanged search was run again");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::create_dir_all(&missing).unwrap();
    std::fs::write(missing.join("wqy-zenhei.ttc"), b"").unwrap();
    assert_eq!(search(&calls), Some(missing.join("wqy-zenhei.ttc")));

    // A damaged memo is searched again, never trusted.
    let other_version = format!(
        "{{\"version\":{},\"font\":null,\"dirs\":[]}}",
        FONT_MEMO_VERSION + 1
    );
    for damaged in ["{\"version\":1,\"font\":\"/nowhere\"", "", &other_version] {
        std::fs::write(&memo, damaged).unwrap();
        assert_eq!(search(&calls), Some(missing.join("wqy-zenhei.ttc")));
    }
}

fn system_font() -> Option<Vec<u8>> {
    let found = find_system_cjk_font();
    let path = found.as_deref().unwrap_or(Path::new(SERIF_BOLD));
    match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("skipping: no CJK system font found");
            None
        }
    }
}

fn decode(png: &[u8]) -> RgbImage {
    image::load_from_memory_with_format(png, image::ImageFormat::Png)
        .expect("valid PNG")
        .to_rgb8()
}

/// Pixels far from the background color in a band: where text was drawn.
fn ink_in(img: &RgbImage, x0: u32, y0: u32, x1: u32, y1: u32, text: [u8; 3]) -> usize {
    let mut n = 0;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = img.get_pixel(x, y).0;
            let d: i32 = p
                .iter()
                .zip(text)
                .map(|(a, b)| (i32::from(*a) - i32::from(b)).abs())
                .sum();
            if d < 40 {
                n += 1;
            }
        }
    }
    n
}

fn authors(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn cover_without_font_is_a_valid_deterministic_1600x2560_png() {
    let names = authors(&["Anon"]);
    let text = CoverText {
        title: "A Title",
        subtitle: None,
        authors: &names,
        vertical: false,
    };
    let a = generate_cover(&text, None);
    let b = generate_cover(&text, None);
    assert_eq!(a, b);
    std::fs::write(std::env::temp_dir().join("epubforge-cover-nofont.png"), &a).ok();
    let img = decode(&a);
    assert_eq!(img.dimensions(), (COVER_WIDTH, COVER_HEIGHT));
    // The frame is drawn in the accent color, the middle of the plate is background-ish.
    let palette = Palette::for_title("A Title");
    let frame = img.get_pixel(COVER_WIDTH / 2, 65).0;
    let close = |p: [u8; 3], q: [u8; 3]| p.iter().zip(q).all(|(a, b)| a.abs_diff(b) < 40);
    assert!(close(frame, palette.accent), "{frame:?}");
    assert_eq!(
        ink_in(&img, 0, 0, COVER_WIDTH, COVER_HEIGHT, palette.text),
        0
    );
}

#[test]
fn garbage_font_bytes_still_give_a_cover() {
    let text = CoverText {
        title: "书名",
        subtitle: Some("副标题"),
        authors: &[],
        vertical: true,
    };
    let png = generate_cover(&text, Some(b"definitely not a font"));
    assert_eq!(decode(&png).dimensions(), (COVER_WIDTH, COVER_HEIGHT));
    // A collection claiming four billion faces: ttf-parser would panic on it.
    let mut ttc = b"ttcf\0\x01\0\0\xFF\xFF\xFF\xFF".to_vec();
    ttc.extend_from_slice(&[0; 8]);
    let png = generate_cover(&text, Some(&ttc));
    assert_eq!(decode(&png).dimensions(), (COVER_WIDTH, COVER_HEIGHT));
}

#[test]
fn huge_title_is_clipped_and_still_drawn_quickly() {
    let Some(font) = system_font() else { return };
    let title = "长".repeat(20_000);
    let names: Vec<String> = (0..1000).map(|i| format!("Author {i}")).collect();
    let text = CoverText {
        title: &title,
        subtitle: Some(&title),
        authors: &names,
        vertical: false,
    };
    let started = Instant::now();
    let img = decode(&generate_cover(&text, Some(&font)));
    assert_eq!(img.dimensions(), (COVER_WIDTH, COVER_HEIGHT));
    assert!(started.elapsed().as_secs() < 120, "{:?}", started.elapsed());
    assert_eq!(clip("abcdef", 3), "abc…");
    assert_eq!(clip("长歌", 3), "长歌");
}

#[test]
fn palette_depends_on_title_only_and_varies() {
    let colors: BTreeSet<[u8; 3]> = ["北境长歌", "Moby Dick", "红楼梦", "a", "b", "c", "d"]
        .iter()
        .map(|t| Palette::for_title(t).background)
        .collect();
    assert!(colors.len() >= 3, "{colors:?}");
    assert_eq!(
        Palette::for_title("x").background,
        Palette::for_title("x").background
    );
}

#[test]
fn tokens_follow_kinsoku_and_keep_latin_words_whole() {
    let t: Vec<String> = tokens("「北境」长歌，上")
        .into_iter()
        .map(|t| t.0)
        .collect();
    assert_eq!(t, ["「北", "境」", "长", "歌，", "上"]);
    let t = tokens("The Old Man");
    assert_eq!(
        t,
        [
            ("The".into(), false),
            ("Old".into(), true),
            ("Man".into(), true)
        ]
    );
}

#[test]
fn balanced_wrap_avoids_an_orphan_character() {
    let toks = tokens("一二三四五六七八九");
    let count = |s: &str| s.chars().count() as f32;
    let greedy = wrap(&toks, 8.0, &count);
    assert_eq!(greedy, ["一二三四五六七八", "九"]);
    let balanced = wrap_balanced(&toks, 8.0, &count);
    assert_eq!(balanced, ["一二三四五", "六七八九"]);
    // An over-long word is split rather than overflowing.
    let long = wrap(&tokens("abcdefghij"), 4.0, &count);
    assert_eq!(long, ["abcd", "efgh", "ij"]);
}

/// Whole words back from `lines`: what the lines hold, split at spaces.
fn words(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| l.split(' '))
        .map(str::to_string)
        .collect()
}

#[test]
fn long_words_shrink_the_type_instead_of_breaking() {
    // A stand-in for a serif: every character 0.6 em wide.
    let measure = |s: &str, em: f32| s.chars().count() as f32 * em * 0.6;
    for title in [
        "The Rust Programming Language",
        "Internationalization and Localization in Practice",
        "Programming",
        "Antidisestablishmentarianism",
    ] {
        let (em, lines) = fit(title, 200.0, 72.0, 1140.0, 4, &measure);
        let expected: Vec<String> = title.split(' ').map(str::to_string).collect();
        assert_eq!(words(&lines), expected, "{title}: {lines:?} at {em}");
        assert!(
            lines.iter().all(|l| measure(l, em) <= 1140.5),
            "{title}: {lines:?} at {em} overflows"
        );
    }
    // 28 letters at 0.6 em in 1140 px: below the usual minimum of 72, not broken.
    let (em, _) = fit(
        "Antidisestablishmentarianism",
        200.0,
        72.0,
        1140.0,
        4,
        &measure,
    );
    assert!(em < 72.0 && em > 60.0, "{em}");
    // A word that cannot fit even at the smallest size is broken, as a last resort.
    let endless = "x".repeat(100);
    let (em, lines) = fit(&endless, 200.0, 72.0, 1140.0, 4, &measure);
    assert_eq!(em, SMALLEST_EM);
    assert!(lines.len() > 1 && lines.concat() == endless);
}

#[test]
fn cjk_titles_wrap_between_characters_and_hyphens_break_latin_words() {
    let measure = |s: &str, em: f32| s.chars().count() as f32 * em;
    let title = "中华人民共和国国家通用语言文字法实施细则与释义汇编";
    let (em, lines) = fit(title, 200.0, 72.0, 1140.0, 4, &measure);
    assert_eq!(lines.concat(), title);
    assert!(lines.len() > 1 && lines.iter().all(|l| measure(l, em) <= 1140.5));
    let t: Vec<String> = tokens("Self-Reliance and/or Input/Output")
        .into_iter()
        .map(|t| t.0)
        .collect();
    assert_eq!(t, ["Self-", "Reliance", "and/", "or", "Input/", "Output"]);
}

#[test]
fn authors_are_joined_by_script() {
    assert_eq!(join_authors(&authors(&["A", "B", "C"])), "A, B & C");
    assert_eq!(join_authors(&authors(&["张三", "李四"])), "张三　李四");
    assert_eq!(join_authors(&authors(&[" ", ""])), "");
}

#[test]
fn cjk_cover_draws_title_in_upper_area_and_authors_below() {
    let Some(font) = system_font() else { return };
    let names = authors(&["佚名"]);
    let text = CoverText {
        title: "北境长歌",
        subtitle: Some("第一卷 风起"),
        authors: &names,
        vertical: false,
    };
    let started = Instant::now();
    let png = generate_cover(&text, Some(&font));
    eprintln!(
        "horizontal CJK cover: {} KB in {} ms",
        png.len() / 1024,
        started.elapsed().as_millis()
    );
    std::fs::write(std::env::temp_dir().join("epubforge-cover-h.png"), &png).ok();
    assert_eq!(png, generate_cover(&text, Some(&font)), "deterministic");
    let img = decode(&png);
    let p = Palette::for_title(text.title);
    let title_ink = ink_in(
        &img,
        0,
        TITLE_TOP as u32,
        COVER_WIDTH,
        TITLE_BOTTOM as u32,
        p.text,
    );
    let author_ink = ink_in(&img, 0, RULE_Y as u32 + 20, COVER_WIDTH, 2400, p.text);
    assert!(title_ink > 20_000, "title ink {title_ink}");
    assert!(author_ink > 1_000, "author ink {author_ink}");
    // Centered: the title's ink is about as much left of the middle as right of it.
    let left = ink_in(&img, 0, 380, COVER_WIDTH / 2, 1780, p.text) as f64;
    let right = ink_in(&img, COVER_WIDTH / 2, 380, COVER_WIDTH, 1780, p.text) as f64;
    assert!(
        (left / right - 1.0).abs() < 0.25,
        "left {left} right {right}"
    );
}

#[test]
fn vertical_cover_sets_title_in_a_right_column() {
    let Some(font) = system_font() else { return };
    let names = authors(&["佚名"]);
    let text = CoverText {
        title: "北境长歌「上」",
        subtitle: None,
        authors: &names,
        vertical: true,
    };
    let started = Instant::now();
    let png = generate_cover(&text, Some(&font));
    eprintln!(
        "vertical CJK cover: {} KB in {} ms",
        png.len() / 1024,
        started.elapsed().as_millis()
    );
    std::fs::write(std::env::temp_dir().join("epubforge-cover-v.png"), &png).ok();
    let img = decode(&png);
    let p = Palette::for_title(text.title);
    let right = ink_in(&img, COVER_WIDTH / 2, 300, COVER_WIDTH, 2300, p.text);
    let left_top = ink_in(&img, 0, 300, COVER_WIDTH / 2, 1200, p.text);
    assert!(right > 20_000, "right {right}");
    assert_eq!(left_top, 0, "nothing at the top left");
}

#[test]
fn long_latin_title_wraps_by_word_within_margins() {
    let Some(font) = system_font() else { return };
    let names = authors(&["Herman Melville"]);
    let text = CoverText {
        title: "The Extraordinarily Long Title of a Very Patient Novel",
        subtitle: Some("or, The Whale"),
        authors: &names,
        vertical: false,
    };
    let png = generate_cover(&text, Some(&font));
    std::fs::write(std::env::temp_dir().join("epubforge-cover-latin.png"), &png).ok();
    let img = decode(&png);
    let p = Palette::for_title(text.title);
    let margin = (MARGIN_X - 10.0) as u32;
    assert_eq!(
        ink_in(&img, 90, 90, margin, 2470, p.text),
        0,
        "left margin clear"
    );
    assert_eq!(
        ink_in(
            &img,
            COVER_WIDTH - margin,
            90,
            COVER_WIDTH - 90,
            2470,
            p.text
        ),
        0
    );
    assert!(ink_in(&img, 0, 380, COVER_WIDTH, 1780, p.text) > 20_000);
}

#[test]
fn real_titles_keep_their_words_whole_in_the_real_font() {
    let Some(font) = system_font() else { return };
    let titles = [
        "The Rust Programming Language",
        "Internationalization and Localization: A Practitioner's Handbook",
        "Structure and Interpretation of Computer Programs",
        "Antidisestablishmentarianism",
        "三国演义：全本校注插图珍藏版附人物谱系与年表",
    ];
    for (i, title) in titles.iter().enumerate() {
        let names = authors(&["Harold Abelson", "Gerald Jay Sussman"]);
        let text = CoverText {
            title,
            subtitle: Some("Second Edition, Revised"),
            authors: &names,
            vertical: false,
        };
        let setter = Typesetter::new(&font, &text).expect("font");
        let measure = |s: &str, em: f32| setter.line_width(s, em);
        let width = COVER_WIDTH as f32 - 2.0 * MARGIN_X;
        let (em, lines) = fit(title, 200.0, 72.0, width, 4, &measure);
        if title.is_ascii() {
            let expected: Vec<&str> = title.split(' ').collect();
            assert_eq!(words(&lines), expected, "{title}: {lines:?} at {em}");
        } else {
            assert_eq!(lines.concat(), *title);
        }
        assert!(
            lines.iter().all(|l| measure(l, em) <= width + 0.5),
            "{lines:?}"
        );
        let png = generate_cover(&text, Some(&font));
        let file = std::env::temp_dir().join(format!("epubforge-cover-title-{i}.png"));
        std::fs::write(file, &png).ok();
    }
}

#[test]
fn title_in_chars_the_font_lacks_falls_back_to_plain_cover() {
    let Some(font) = system_font() else { return };
    let text = CoverText {
        title: "\u{E000}\u{E001}",
        subtitle: None,
        authors: &[],
        vertical: false,
    };
    let img = decode(&generate_cover(&text, Some(&font)));
    let p = Palette::for_title(text.title);
    assert_eq!(ink_in(&img, 0, 0, COVER_WIDTH, COVER_HEIGHT, p.text), 0);
}

#[test]
fn cjk_font_names_are_ranked_serif_bold_first() {
    let s = |n: &str| cjk_font_score(Path::new(n));
    assert!(s("NotoSerifCJK-Bold.ttc") > s("NotoSerifCJK-Regular.ttc"));
    assert!(s("NotoSerifCJK-Regular.ttc") > s("NotoSansCJK-Bold.ttc"));
    assert!(s("NotoSansCJK-Regular.ttc") > s("wqy-microhei.ttc"));
    assert_eq!(s("DejaVuSans.ttf"), None);
    assert_eq!(s("NotoSerifCJK-Bold.txt"), None);
}
