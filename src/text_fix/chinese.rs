//! Simplified/traditional conversion (`[book] convert`) and quotation marks (`[text] quotes`).
//!
//! Conversion is OpenCC 1.4.2's, in pure Rust (`super::opencc`: its dictionaries and its
//! algorithm): never a program run on the side. One converter per configuration is made on
//! first use and shared by every book and thread of the process (building its tables takes a
//! few milliseconds). Text with no character outside ASCII is not handed over at all.

use std::borrow::Cow;

use super::LineReading;
use super::opencc::Converter;

/// An OpenCC configuration, by the name of its `.json` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conversion {
    name: &'static str,
    language: &'static str,
}

/// The configurations `convert` accepts: OpenCC's name, and the language tag the converted
/// book gets.
const CONVERSIONS: [(&str, &str); 14] = [
    ("s2t", "zh-Hant"),
    ("t2s", "zh-CN"),
    ("s2tw", "zh-TW"),
    ("tw2s", "zh-CN"),
    ("s2twp", "zh-TW"),
    ("tw2sp", "zh-CN"),
    ("s2hk", "zh-HK"),
    ("hk2s", "zh-CN"),
    ("t2tw", "zh-TW"),
    ("tw2t", "zh-Hant"),
    ("t2hk", "zh-HK"),
    ("hk2t", "zh-Hant"),
    ("t2jp", "ja"),
    ("jp2t", "zh-Hant"),
];

impl Conversion {
    /// The configuration named `name` (`"s2tw"`, or `"s2tw.json"`), or None.
    pub fn named(name: &str) -> Option<Conversion> {
        let name = name.trim();
        let name = name.strip_suffix(".json").unwrap_or(name);
        CONVERSIONS
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(name, language)| Conversion { name, language })
    }

    /// Every name `convert` accepts, for messages.
    pub fn names() -> Vec<&'static str> {
        CONVERSIONS.iter().map(|(n, _)| *n).collect()
    }

    /// The configuration's name.
    #[cfg(test)]
    pub(crate) fn name(self) -> &'static str {
        self.name
    }

    /// The language tag a book in `current` has once converted: the conversion's when both
    /// are Chinese (`zh-CN` → `zh-TW` for `s2tw`) or the book names none, else `current`
    /// unchanged: an English book with a few Chinese names stays English, a Japanese one
    /// stays Japanese.
    pub fn language_of(self, current: &str) -> &str {
        let primary = |tag: &str| {
            let end = tag.find(['-', '_']).unwrap_or(tag.len());
            tag[..end].to_ascii_lowercase()
        };
        match current.trim().is_empty()
            || (primary(current) == "zh" && primary(self.language) == "zh")
        {
            true => self.language,
            false => current,
        }
    }

    /// Converts the book's metadata (title, subtitle, authors, contributors, description,
    /// subjects, series, the cover's alt text) and sets its language to the conversion's.
    pub fn metadata(self, info: &mut crate::book::BookInfo) {
        let convert = |s: &mut String| {
            if let Cow::Owned(o) = self.convert(s) {
                *s = o;
            }
        };
        convert(&mut info.title);
        info.subtitle.iter_mut().for_each(convert);
        for p in info.authors.iter_mut().chain(info.contributors.iter_mut()) {
            convert(&mut p.name);
            p.file_as.iter_mut().for_each(convert);
        }
        info.description.iter_mut().for_each(convert);
        info.subjects.iter_mut().for_each(convert);
        info.cover_alt.iter_mut().for_each(convert);
        if let Some(s) = info.series.as_mut() {
            convert(&mut s.name);
        }
        info.language = self.language_of(&info.language).to_string();
    }

    /// Converts `text`; borrowed when it has nothing to convert.
    pub fn convert(self, text: &str) -> Cow<'_, str> {
        match self.converter_for(text) {
            Some(converter) => unless_same(text, converter.convert(text)),
            None => Cow::Borrowed(text),
        }
    }

    /// The converter, unless `text` is ASCII (it has nothing to convert).
    fn converter_for(self, text: &str) -> Option<&'static Converter> {
        if text.is_ascii() {
            return None;
        }
        // Every name in CONVERSIONS is one of the converter's.
        Converter::named(self.name)
    }
}

/// `converted`, the conversion of `text`; `text` borrowed when they are the same.
fn unless_same(text: &str, converted: String) -> Cow<'_, str> {
    if converted == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(converted)
    }
}

impl Conversion {
    /// Converts a plain-text file as OpenCC converts the paragraphs the build makes of it: a
    /// break between two lines that one paragraph will hold (see [`closed_breaks`]) is taken
    /// out while converting, so that a phrase broken across lines (`燕颔虎` / `须`) is
    /// converted as one. The breaks are put back where they were, so the lines stay as they
    /// are for the stages after this one. The path of a picture line (`![猫](图/猫.png)`) is
    /// kept as it is in the same way: it names a file. `lines` says whether a line is a
    /// heading and which lines a paragraph joins.
    pub fn convert_file<'t>(self, text: &'t str, lines: &LineReading<'_>) -> Cow<'t, str> {
        let Some(converter) = self.converter_for(text) else {
            return Cow::Borrowed(text);
        };
        // Which lines a paragraph will hold matters only where a key could run across the
        // break, and a picture line needs a bracket.
        // The memchr crate's searches: the standard library's look at a word at a time.
        if memchr::memchr(b'[', text.as_bytes()).is_none() && !may_join_lines(text, converter) {
            return unless_same(text, converter.convert(text));
        }
        convert_joined(text, lines, converter)
    }
}

/// [`Conversion::convert_file`] with the breaks that paragraphs close up taken out.
fn convert_joined<'t>(
    text: &'t str,
    lines: &LineReading<'_>,
    converter: &Converter,
) -> Cow<'t, str> {
    let mut breaks = closed_breaks(text, lines);
    breaks.extend(picture_paths(text));
    breaks.sort_unstable();
    if breaks.is_empty() {
        return unless_same(text, converter.convert(text));
    }
    let mut compact = String::with_capacity(text.len());
    let mut marks = Vec::with_capacity(breaks.len());
    let mut copied = 0;
    for &(from, to) in &breaks {
        compact.push_str(&text[copied..from]);
        marks.push(compact.len());
        copied = to;
    }
    compact.push_str(&text[copied..]);
    let converted = converter.convert_marking(&compact, &mut marks);
    let mut out = String::with_capacity(text.len() + converted.len() - compact.len());
    let mut at = 0;
    for (&mark, &(from, to)) in marks.iter().zip(&breaks) {
        out.push_str(&converted[at..mark]);
        out.push_str(&text[from..to]);
        at = mark;
    }
    out.push_str(&converted[at..]);
    unless_same(text, out)
}

/// Whether the conversion may treat some two adjacent lines of `text` differently joined
/// than apart ([`Converter::may_join`] on the last character of one and the first of the
/// next, as [`closed_breaks`] would close them up).
fn may_join_lines(text: &str, converter: &Converter) -> bool {
    let mut last: Option<char> = None;
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain([text.len()]);
    for end in ends {
        let line = crate::lines::trim_line(&text[start..end]);
        start = end + 1;
        if let (Some(a), Some(b)) = (last, line.chars().next())
            && converter.may_join(a, b)
        {
            return true;
        }
        last = line.chars().next_back();
    }
    false
}

/// The byte ranges of `text` (the end of one line's text to the start of the next's: white
/// space and the newline) between lines that one paragraph will hold, closed up with nothing
/// between them (either side is CJK), as `convert::text` makes paragraphs: in a file of
/// blank-line separated blocks, any two adjacent lines of which neither is a heading or a
/// scene break; otherwise the lines its join rule joins (`joined_lines`, on the whole file).
fn closed_breaks(text: &str, reading: &LineReading<'_>) -> Vec<(usize, usize)> {
    use crate::lines::{blank_line_separated, is_cjk, is_scene_break, trim_line};
    let heading = reading.heading;
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    let lines: Vec<(usize, &str)> = starts
        .iter()
        .enumerate()
        .map(|(i, &from)| {
            let end = starts.get(i + 1).map_or(text.len(), |&s| s - 1);
            let raw = &text[from..end];
            let trimmed = trim_line(raw);
            // trim_line gives a slice of raw: its offset is where the line's text starts.
            (
                from + (trimmed.as_ptr() as usize - raw.as_ptr() as usize),
                trimmed,
            )
        })
        .collect();
    let trimmed: Vec<&str> = lines.iter().map(|l| l.1).collect();
    let continuing: Vec<usize> = if blank_line_separated(&trimmed) {
        let plain = |l: &str| !l.is_empty() && !is_scene_break(l) && !heading(l);
        (1..lines.len())
            .filter(|&i| plain(trimmed[i - 1]) && plain(trimmed[i]))
            .collect()
    } else {
        (reading.joined)(text).into_iter().map(|n| n - 1).collect()
    };
    let mut out = Vec::new();
    for i in continuing {
        let ((prev_from, prev), (from, this)) = (lines[i - 1], lines[i]);
        let (Some(a), Some(b)) = (prev.chars().next_back(), this.chars().next()) else {
            continue;
        };
        if is_cjk(a) || is_cjk(b) || a == '-' && b.is_alphabetic() {
            out.push((prev_from + prev.len(), from));
        }
    }
    out
}

/// The byte ranges of `text` that hold the path of a picture line ([`picture`]).
///
/// [`picture`]: crate::lines::picture
fn picture_paths(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let base = text.as_ptr() as usize;
    text.lines().filter_map(move |line| {
        let (_, path) = crate::lines::picture(line)?;
        // `picture` gives a slice of the line, itself a slice of `text`.
        let from = path.as_ptr() as usize - base;
        Some((from, from + path.len()))
    })
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

    /// The converter's reading of lines, with `heading` for its headings.
    fn reading<'a>(heading: &'a dyn Fn(&str) -> bool) -> LineReading<'a> {
        LineReading {
            heading,
            joined: crate::convert::text::joined_lines,
        }
    }

    #[test]
    fn only_a_chinese_book_takes_the_conversions_language() {
        let s2tw = Conversion::named("s2tw").unwrap();
        assert_eq!(s2tw.language_of("zh-CN"), "zh-TW");
        assert_eq!(s2tw.language_of("zh_Hans"), "zh-TW");
        assert_eq!(s2tw.language_of(""), "zh-TW");
        assert_eq!(s2tw.language_of("en"), "en");
        assert_eq!(s2tw.language_of("ja"), "ja");
        assert_eq!(Conversion::named("jp2t").unwrap().language_of("ja"), "ja");
        assert_eq!(
            Conversion::named("t2jp").unwrap().language_of("zh-TW"),
            "zh-TW"
        );
    }

    #[test]
    fn names_are_opencc_configurations_with_their_languages() {
        let c = Conversion::named("s2tw.json").unwrap();
        assert_eq!((c.name(), c.language_of("")), ("s2tw", "zh-TW"));
        assert_eq!(Conversion::named(" T2S ").unwrap().language_of(""), "zh-CN");
        assert_eq!(Conversion::named("s2hk").unwrap().language_of(""), "zh-HK");
        assert!(Conversion::named("s2x").is_none());
        assert!(Conversion::names().contains(&"tw2sp"));
        // Each has its OpenCC configuration (else `convert` would leave the text alone).
        for name in Conversion::names() {
            assert!(Converter::named(name).is_some(), "{name}");
        }
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
    fn a_phrase_broken_across_the_lines_of_a_paragraph_converts_as_one() {
        let s2tw = Conversion::named("s2tw").unwrap();
        let no_heading = |_: &str| false;
        // 虎须 is 虎鬚 (STPhrases), 须 alone 須: the lines join into one paragraph.
        let text = "　　玄德回视其人，身长八尺，豹头环眼，燕颔虎\n须，声若巨雷，势如奔马。\n";
        assert_eq!(
            s2tw.convert_file(text, &reading(&no_heading)),
            "　　玄德回視其人，身長八尺，豹頭環眼，燕頷虎\n鬚，聲若巨雷，勢如奔馬。\n"
        );
        // After a full stop the next line is another paragraph: 须知 stays apart from 虎.
        let text = "　　玄德回视其人，身长八尺，豹头环眼，燕颔虎。\n　　须知其人。\n";
        assert!(
            s2tw.convert_file(text, &reading(&no_heading))
                .contains("\n　　須知")
        );
        // In blank-line separated blocks a heading stays out of the paragraph after it.
        let blocks =
            "第一回 燕颔虎\n须知其人，身长八尺，豹头环眼，燕颔\n虎须\n\n身长八尺，\n豹头环眼\n";
        let heading = |l: &str| l.starts_with("第一回");
        let out = s2tw.convert_file(blocks, &reading(&heading));
        assert!(out.starts_with("第一回 燕頷虎\n須知"), "{out}");
        assert!(out.contains("燕頷\n虎鬚"), "{out}");
    }

    #[test]
    fn lines_that_no_key_runs_across_convert_as_they_would_joined() {
        // Keys of every dictionary, with line breaks at random places (many inside a key)
        // and between them: where no break is looked at, the result is what closing up the
        // breaks gives.
        let data = include_str!("opencc/data/STPhrases.txt").lines();
        let keys: Vec<&str> = data.filter_map(|l| l.split('\t').next()).collect();
        let mut seed = 7u64;
        let mut random = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let no_heading = |_: &str| false;
        let mut fast = 0;
        for _ in 0..300 {
            let mut text = String::new();
            for _ in 0..8 {
                let key = keys[random(keys.len())];
                let cut = key
                    .char_indices()
                    .nth(random(3))
                    .map_or(key.len(), |(i, _)| i);
                text.push_str(&key[..cut]);
                text.push_str(["\n", "", "。\n", "\n　　"][random(4)]);
                text.push_str(&key[cut..]);
            }
            for name in ["s2tw", "s2hk", "t2s"] {
                let c = Conversion::named(name).unwrap();
                let converter = Converter::named(name).unwrap();
                assert_eq!(
                    c.convert_file(&text, &reading(&no_heading)),
                    convert_joined(&text, &reading(&no_heading), converter),
                    "{name} {text:?}"
                );
                fast += usize::from(!may_join_lines(&text, converter));
            }
        }
        // Both ways were taken.
        assert!(fast > 10 && fast < 800, "{fast}");
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
