//! The few words the package writes itself (the TOC heading, "Cover"), in the book's language.

/// Words for one language.
pub(crate) struct Words {
    pub contents: &'static str,
    pub cover: &'static str,
    pub landmarks: &'static str,
    pub start: &'static str,
}

/// The primary language subtag, lower-cased: `zh-Hant-TW` -> `zh`.
pub(crate) fn primary(lang: &str) -> String {
    lang.split('-').next().unwrap_or("").to_ascii_lowercase()
}

/// True for Traditional Chinese tags (`zh-TW`, `zh-HK`, `zh-Hant`...).
pub(crate) fn is_traditional(lang: &str) -> bool {
    let l = lang.to_ascii_lowercase();
    l.starts_with("zh") && ["-tw", "-hk", "-mo", "-hant"].iter().any(|s| l.contains(s))
}

/// Words for a BCP 47 tag.
pub(crate) fn words(lang: &str) -> Words {
    match primary(lang).as_str() {
        "zh" if is_traditional(lang) => Words {
            contents: "目錄",
            cover: "封面",
            landmarks: "導覽",
            start: "正文",
        },
        "zh" => Words {
            contents: "目录",
            cover: "封面",
            landmarks: "导览",
            start: "正文",
        },
        "ja" => Words {
            contents: "目次",
            cover: "表紙",
            landmarks: "ランドマーク",
            start: "本文",
        },
        "ko" => Words {
            contents: "목차",
            cover: "표지",
            landmarks: "랜드마크",
            start: "본문",
        },
        _ => Words {
            contents: "Contents",
            cover: "Cover",
            landmarks: "Landmarks",
            start: "Start",
        },
    }
}

/// Default title for the `n`th chapter (1-based) when neither metadata nor file gives one.
pub fn chapter_title(lang: &str, n: usize) -> String {
    match primary(lang).as_str() {
        "zh" | "ja" => format!("第{n}章"),
        "ko" => format!("제{n}장"),
        _ => format!("Chapter {n}"),
    }
}

/// Title of the text before a split file's first heading (a synopsis or foreword).
pub fn front_title(lang: &str) -> String {
    match primary(lang).as_str() {
        "zh" if is_traditional(lang) => "簡介",
        "zh" => "简介",
        "ja" => "はじめに",
        "ko" => "소개",
        _ => "Foreword",
    }
    .to_string()
}
