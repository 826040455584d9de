//! The few words the package writes itself (the TOC heading, "Cover"), in the book's language,
//! and numbers as the language writes them. Part of the book model: the converter names
//! untitled chapters with them, the project reads language tags with them.

/// Words for one language.
pub(crate) struct Words {
    pub contents: &'static str,
    pub cover: &'static str,
    pub landmarks: &'static str,
    pub start: &'static str,
    /// The front matter landmark.
    pub front_matter: &'static str,
    /// The back matter landmark.
    pub back_matter: &'static str,
    pub title_page: &'static str,
    pub colophon: &'static str,
    pub publisher: &'static str,
    pub rights: &'static str,
    pub identifier: &'static str,
    pub published: &'static str,
    pub made_with: &'static str,
    pub summary: &'static str,
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
        "zh" if is_traditional(lang) => TRADITIONAL_CHINESE,
        "zh" => SIMPLIFIED_CHINESE,
        "ja" => JAPANESE,
        "ko" => KOREAN,
        _ => ENGLISH,
    }
}

/// Traditional Chinese (`zh-TW`, `zh-HK`, `zh-Hant`).
const TRADITIONAL_CHINESE: Words = Words {
    contents: "目錄",
    cover: "封面",
    landmarks: "導覽",
    start: "正文",
    front_matter: "前言",
    back_matter: "附錄",
    title_page: "書名頁",
    colophon: "版權頁",
    publisher: "出版",
    rights: "版權",
    identifier: "標識",
    published: "出版日期",
    made_with: "以 epubforge 製作",
    summary: "本書含結構化導覽、目錄和規範的閱讀順序，文字可調整字型與大小。",
};

/// Simplified Chinese (any other `zh`).
const SIMPLIFIED_CHINESE: Words = Words {
    contents: "目录",
    cover: "封面",
    landmarks: "导览",
    start: "正文",
    front_matter: "前言",
    back_matter: "附录",
    title_page: "书名页",
    colophon: "版权页",
    publisher: "出版",
    rights: "版权",
    identifier: "标识",
    published: "出版日期",
    made_with: "以 epubforge 制作",
    summary: "本书含结构化导航、目录和规范的阅读顺序，文字可调整字体与大小。",
};

/// Japanese.
const JAPANESE: Words = Words {
    contents: "目次",
    cover: "表紙",
    landmarks: "ランドマーク",
    start: "本文",
    front_matter: "前付",
    back_matter: "後付",
    title_page: "扉",
    colophon: "奥付",
    publisher: "発行",
    rights: "権利",
    identifier: "識別子",
    published: "発行日",
    made_with: "epubforge で制作",
    summary: "構造化されたナビゲーション、目次、既定の読み順を備え、文字の表示は変更できます。",
};

/// Korean.
const KOREAN: Words = Words {
    contents: "목차",
    cover: "표지",
    landmarks: "랜드마크",
    start: "본문",
    front_matter: "앞부분",
    back_matter: "뒷부분",
    title_page: "속표지",
    colophon: "판권",
    publisher: "출판",
    rights: "저작권",
    identifier: "식별자",
    published: "출판일",
    made_with: "epubforge로 제작",
    summary: "구조화된 탐색, 목차, 정해진 읽기 순서를 갖추었으며 글꼴과 크기를 바꿀 수 있습니다.",
};

/// English, for every language without words of its own.
const ENGLISH: Words = Words {
    contents: "Contents",
    cover: "Cover",
    landmarks: "Landmarks",
    start: "Start",
    front_matter: "Front Matter",
    back_matter: "Back Matter",
    title_page: "Title Page",
    colophon: "Colophon",
    publisher: "Publisher",
    rights: "Rights",
    identifier: "Identifier",
    published: "Published",
    made_with: "Made with epubforge",
    summary: "Structured navigation, a table of contents and a defined reading order; the text can be restyled and resized.",
};

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

/// 1 -> 一, 10 -> 十, 12 -> 十二, 20 -> 二十, 105 -> 一百零五 (up to 9999; beyond, digits).
pub(crate) fn chinese_number(n: usize) -> String {
    const DIGITS: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
    if n == 0 || n > 9999 {
        return n.to_string();
    }
    let units = [(1000, '千'), (100, '百'), (10, '十'), (1, ' ')];
    let mut out = String::new();
    let mut zero = false;
    for (unit, name) in units {
        let d = n / unit % 10;
        if d == 0 {
            zero = !out.is_empty();
            continue;
        }
        if zero {
            out.push('零');
            zero = false;
        }
        if !(d == 1 && unit == 10 && out.is_empty()) {
            out.push(DIGITS[d]);
        }
        if unit > 1 {
            out.push(name);
        }
    }
    out
}
