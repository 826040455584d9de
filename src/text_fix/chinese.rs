//! Simplified/traditional conversion (`[book] convert`) and quotation marks (`[text] quotes`).
//!
//! Conversion is OpenCC's, in pure Rust (the `ferrous-opencc` crate and its built-in
//! dictionaries): never a program run on the side. One converter per configuration is made
//! on first use and shared by every book and thread of the process (building the
//! dictionaries takes a few milliseconds). Text with no character outside ASCII is not
//! handed over at all.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use ferrous_opencc::OpenCC;
use ferrous_opencc::config::BuiltinConfig;

/// An OpenCC configuration, by the name of its `.json` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conversion {
    name: &'static str,
    config: BuiltinConfig,
    language: &'static str,
}

/// The configurations `convert` accepts: name, OpenCC's configuration, and the language tag
/// the converted book gets.
const CONVERSIONS: [(&str, BuiltinConfig, &str); 14] = [
    ("s2t", BuiltinConfig::S2t, "zh-Hant"),
    ("t2s", BuiltinConfig::T2s, "zh-CN"),
    ("s2tw", BuiltinConfig::S2tw, "zh-TW"),
    ("tw2s", BuiltinConfig::Tw2s, "zh-CN"),
    ("s2twp", BuiltinConfig::S2twp, "zh-TW"),
    ("tw2sp", BuiltinConfig::Tw2sp, "zh-CN"),
    ("s2hk", BuiltinConfig::S2hk, "zh-HK"),
    ("hk2s", BuiltinConfig::Hk2s, "zh-CN"),
    ("t2tw", BuiltinConfig::T2tw, "zh-TW"),
    ("tw2t", BuiltinConfig::Tw2t, "zh-Hant"),
    ("t2hk", BuiltinConfig::T2hk, "zh-HK"),
    ("hk2t", BuiltinConfig::Hk2t, "zh-Hant"),
    ("t2jp", BuiltinConfig::T2jp, "ja"),
    ("jp2t", BuiltinConfig::Jp2t, "zh-Hant"),
];

impl Conversion {
    /// The configuration named `name` (`"s2tw"`, or `"s2tw.json"`), or None.
    pub fn named(name: &str) -> Option<Conversion> {
        let name = name.trim();
        let name = name.strip_suffix(".json").unwrap_or(name);
        CONVERSIONS
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
            .map(|&(name, config, language)| Conversion {
                name,
                config,
                language,
            })
    }

    /// Every name `convert` accepts, for messages.
    pub fn names() -> Vec<&'static str> {
        CONVERSIONS.iter().map(|(n, _, _)| *n).collect()
    }

    /// The configuration's name.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// The language tag of the converted text (`zh-TW` for `s2tw`).
    pub fn language(self) -> &'static str {
        self.language
    }

    /// Converts `text`; borrowed when it has nothing to convert.
    pub fn convert(self, text: &str) -> Cow<'_, str> {
        if text.is_ascii() {
            return Cow::Borrowed(text);
        }
        let converted = converter(self).convert(text);
        if converted == text {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(converted)
        }
    }
}

/// The shared converter of a configuration, made on first use.
fn converter(c: Conversion) -> Arc<OpenCC> {
    static MADE: OnceLock<Vec<OnceLock<Arc<OpenCC>>>> = OnceLock::new();
    let slots = MADE.get_or_init(|| CONVERSIONS.iter().map(|_| OnceLock::new()).collect());
    let index = CONVERSIONS
        .iter()
        .position(|(n, _, _)| *n == c.name)
        .unwrap_or(0);
    slots[index]
        .get_or_init(|| {
            // The dictionaries are compiled into the crate: making a built-in configuration
            // cannot fail short of a broken build of it.
            Arc::new(OpenCC::from_config(c.config).expect("built-in OpenCC configuration"))
        })
        .clone()
}

/// Which quotation marks a book's CJK text uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quotes {
    /// Corner brackets: “” → 「」 and ‘’ → 『』.
    Corner,
    /// Curly quotes: 「」 → “” and 『』 → ‘’.
    Curly,
}

impl Quotes {
    /// Converts the quotation marks of `text`; borrowed when there are none to convert. A
    /// `’` between two letters is an apostrophe and stays.
    pub fn apply(self, text: &str) -> Cow<'_, str> {
        let wanted: &[char] = match self {
            Quotes::Corner => &['“', '”', '‘', '’'],
            Quotes::Curly => &['「', '」', '『', '』'],
        };
        if !text.contains(wanted) {
            return Cow::Borrowed(text);
        }
        let chars: Vec<char> = text.chars().collect();
        let mut out = String::with_capacity(text.len());
        for (i, &c) in chars.iter().enumerate() {
            let between_letters = || {
                let letter = |k: Option<usize>| {
                    k.and_then(|k| chars.get(k))
                        .is_some_and(|x| x.is_alphanumeric() && x.is_ascii())
                };
                letter(i.checked_sub(1)) && letter(Some(i + 1))
            };
            out.push(match (self, c) {
                (Quotes::Corner, '“') => '「',
                (Quotes::Corner, '”') => '」',
                (Quotes::Corner, '‘') => '『',
                (Quotes::Corner, '’') if !between_letters() => '』',
                (Quotes::Curly, '「') => '“',
                (Quotes::Curly, '」') => '”',
                (Quotes::Curly, '『') => '‘',
                (Quotes::Curly, '』') => '’',
                _ => c,
            });
        }
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_opencc_configurations_with_their_languages() {
        let c = Conversion::named("s2tw.json").unwrap();
        assert_eq!((c.name(), c.language()), ("s2tw", "zh-TW"));
        assert_eq!(Conversion::named(" T2S ").unwrap().language(), "zh-CN");
        assert_eq!(Conversion::named("s2hk").unwrap().language(), "zh-HK");
        assert!(Conversion::named("s2x").is_none());
        assert!(Conversion::names().contains(&"tw2sp"));
    }

    #[test]
    fn simplified_to_taiwan_and_back() {
        let s2tw = Conversion::named("s2tw").unwrap();
        assert_eq!(s2tw.convert("开放中文转换"), "開放中文轉換");
        let t2s = Conversion::named("t2s").unwrap();
        assert_eq!(t2s.convert("開放中文轉換"), "开放中文转换");
        // ASCII and text without anything to convert come back borrowed.
        assert!(matches!(s2tw.convert("plain text"), Cow::Borrowed(_)));
        assert!(matches!(t2s.convert("开放"), Cow::Borrowed(_)));
    }

    #[test]
    fn quotes_convert_both_ways_and_keep_apostrophes() {
        assert_eq!(
            Quotes::Corner.apply("他说：“她说‘好’。”"),
            "他说：「她说『好』。」"
        );
        assert_eq!(
            Quotes::Curly.apply("他说：「她说『好』。」"),
            "他说：“她说‘好’。”"
        );
        assert_eq!(Quotes::Corner.apply("“Don’t”"), "「Don’t」");
        assert!(matches!(Quotes::Corner.apply("没有引号"), Cow::Borrowed(_)));
    }
}
