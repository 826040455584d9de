//! Automatic recognition of one heading line, for [`super::SplitMode::Auto`].
//!
//! [`detect`] looks at one trimmed line and says whether it is a volume heading, a chapter
//! heading, both (`第一卷 第一章 风起`), or text. It is called once per line by
//! [`super::split`], so it rejects almost every prose line after looking at its first character
//! and its length, and never runs a regex.
//!
//! The rules, all on the trimmed line:
//! - **Short.** Display width at most [`MAX_HEADING_WIDTH`] (a CJK character counts 2, so 40
//!   Chinese characters or 80 Latin ones).
//! - **Numbered Chinese headings.** `第` + number + unit, spaces allowed around the number.
//!   The number is Chinese (`十二`, `两千`, `一百零八`), financial (`壹贰`), Arabic or full-width
//!   digits, and must parse. Chapter units: 章 回 节 節 話 话 集 幕. Volume units: 卷 部 册 冊 篇
//!   季. `卷` + number (`卷三`, `卷三 北伐`, `卷之三`) is a volume too. Measure words such as 封
//!   本 次 天 个 名 are not units, so `第一次见面` stays text.
//! - **Numerals with typos.** A dash typed for 一 next to a unit (`第十—回`, `第—百回`), a circle
//!   or a letter O for 〇 (`第一○八回`), a Kangxi radical for its digit, a letter O or l in an
//!   Arabic number (`第1O章`), and `廿` `卅` `卌` are read (see `numerals::leading_number`); the
//!   heading is marked as read through a typo.
//! - **Titles.** After the unit comes nothing, or a separator (white space, `：` `:` `、` `.` `．`
//!   `-` `—` `·`) and a title. Only 章 回 卷 may have a title glued on without a separator
//!   (`第一章风起`); the other units double as measure words (`第一节课`, `第一部手机`).
//!   A title is refused when it reads like a sentence: it contains `。`; it ends with a full
//!   stop; it ends with `！` `？` `…` (closing quotes ignored) and is longer than 12 CJK
//!   characters or has a comma; a glued title has any comma or sentence ending, or starts with
//!   a particle that continues a sentence (`第一章的…`, `第一章里…`).
//! - **Volume + chapter on one line.** When a volume heading's title holds a numbered chapter
//!   heading after a separator (`第一卷 潜龙在渊 第一章 风起`), the line gives two headings:
//!   the volume (`第一卷 潜龙在渊`) and the chapter (`第一章 风起`), both on that line.
//! - **Unnumbered sections** (chapter level, no number): 序章 序言 序幕 序 楔子 引子 引言 前言
//!   番外 尾声 尾聲 后记 後記 终章 終章 完本感言 上架感言, as the whole line or followed by a
//!   separator and a title of at most 20 CJK characters. `番外` may carry a number or `篇`
//!   (`番外一`, `番外篇`), which is kept in the title but not used for numbering. `作者的话` is
//!   left out on purpose: authors use it for notes inside chapters.
//! - **English.** `Chapter`, `Letter` or `Stave` + number (digits, Roman `XII`, words
//!   `Twelve`, `Twenty-One`, ordinals `the First`) is a chapter; `Part`, `Book`, `Volume` or
//!   `Epoch` + number is a volume (Roman numerals must be all upper
//!   or all lower case, so `Part Mix` is text), and so is `First Epilogue` (War and Peace's
//!   epilogues hold chapters), unnumbered; `Prologue` and `Epilogue` are unnumbered chapters.
//!   Case does not matter. A title after a plain space must not start with a lower-case
//!   letter, which keeps `Chapter 5 is where it starts` as prose. A title ending with a full
//!   stop is a sentence unless it is in title case (`CHAPTER 1. Loomings.`, as Project
//!   Gutenberg writes headings).
//! - **Site labels.** Downloads put a label before every heading (`正文 第一回 …`,
//!   `《西游记》目录 第一回 …`); the heading is what follows, and the title leaves the label out.
//! - **Bare numbers** (`1、风起`, `001 风起`, `12. 风起`; [`bare_numbered`]): 1 to 4 digits, then
//!   `、` `.` `．` or white space, then a short title that does not read like a sentence (no
//!   `，。；：` inside, at most [`MAX_BARE_TITLE_WIDTH`] columns). Numbered list items look the
//!   same, so the split module takes these only from a file without other chapter headings and
//!   only when they read as a book's chapters (see `super::bare_chapters`).
//! - **Weak headings** ([`weak`]): a label before the heading (`警世通言第一卷`, `上卷 第一回`)
//!   or a `第` left out (`二回　救贫女…`); the split module takes them when they recur in
//!   sequence through the file.
//! - **Glued headings** ([`glued`]): a `第…回` couplet title with its chapter's first sentence
//!   on the same line (`第一回 望成名學究訓頑兒　講制藝鄉紳勖後進話說…`); the title ends where the
//!   couplet does, the rest is the chapter's first paragraph.
//! - **Not handled:** headings wrapped in brackets (`【第一章】`) or quotes (`“第一章”他说`)
//!   stay text, as does anything starting with another character; [`not_taken`] says which
//!   such lines look like headings, for `check` to report.

use super::HeadingKind;

mod bare;
mod glued;
mod near;
mod numbered;

use bare::label_end;
pub(super) use bare::{Weak, bare_numbered, before_di, is_decoration, weak};
pub(crate) use glued::glued;
pub(super) use near::{Family, family, is_subtitle, not_taken, untitled_english};
use numbered::{
    DiNumber, allows_glued_title, di_number_unit, english_numbered, english_rest_ok,
    is_chapter_unit, numbered_chapter, unnumbered_chapter, volume_line,
};

/// Longest heading line, in display columns (CJK characters count 2).
pub(super) const MAX_HEADING_WIDTH: usize = 80;

/// A title that ends like a sentence (`你是谁？`) is only a heading up to this width.
const MAX_EXCLAIMED_TITLE_WIDTH: usize = 24;

/// Longest title after an unnumbered keyword such as `番外：`.
const MAX_KEYWORD_TITLE_WIDTH: usize = 40;

/// One heading found on a line; the caller adds the line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    pub kind: HeadingKind,
    pub title: String,
    pub number: Option<u64>,
    /// The other reading of a number that has two (`一百一`: 110, or 101 in a classical
    /// novel's sequence); the split module picks the one the sequence continues with.
    pub other: Option<u64>,
    /// The number was read through a typo: a dash for 一, a circle for 〇 (see
    /// [`super::numerals::leading_number`]).
    pub repaired: bool,
}

/// White space inside or around a heading, including U+3000 and NBSP: what a line is
/// trimmed of.
pub(super) use crate::lines::is_line_space as is_space;

/// Characters allowed between a heading's number and its title.
fn is_separator(c: char) -> bool {
    is_space(c)
        || matches!(
            c,
            '：' | ':' | '、' | '.' | '．' | '-' | '—' | '–' | '·' | '・'
        )
}

/// Trims white space (including U+3000, NBSP, BOM and zero-width space) from both ends.
pub(super) use crate::lines::trim_line;

/// The trimmed text with every inner run of white space replaced by one ASCII space.
pub(crate) fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if is_space(c) {
            in_space = true;
        } else {
            if in_space && !out.is_empty() {
                out.push(' ');
            }
            in_space = false;
            out.push(c);
        }
    }
    out
}

/// Display width, counting characters from U+1100 up (CJK, full-width forms) as 2.
fn width(text: &str) -> usize {
    text.chars()
        .map(|c| if c < '\u{1100}' { 1 } else { 2 })
        .sum()
}

/// Whether a trimmed line is short enough to be a heading. Checks bytes first so that long
/// prose lines are rejected without walking their characters (no character takes more than
/// two bytes per column).
pub(super) fn short_enough(text: &str) -> bool {
    text.len() <= 2 * MAX_HEADING_WIDTH && width(text) <= MAX_HEADING_WIDTH
}

/// Recognises the headings on one trimmed, non-empty line. Returns nothing for text, one entry
/// for a heading, and volume then chapter for a line that holds both.
pub(super) fn detect(line: &str) -> Vec<Found> {
    if let Some(number) = super::japanese::detect(line) {
        return vec![Found {
            kind: HeadingKind::Chapter,
            title: collapse_spaces(line),
            number,
            other: None,
            repaired: false,
        }];
    }
    match strip_site_label(line) {
        Some(rest) => detect_heading(rest),
        None => detect_heading(line),
    }
}

/// Labels that download sites put before every heading line: `正文 第一回 …`,
/// `《西游记》目录 第一回 …`, `《》目录 第一回 …`. The heading is what follows (a line that is
/// only a label stays text).
fn strip_site_label(line: &str) -> Option<&str> {
    const LABELS: [&str; 5] = ["正文卷", "正文", "目录", "目錄", "章节目录"];
    let mut rest = line;
    if let Some(after) = rest.strip_prefix('《') {
        let (book, tail) = after.split_once('》')?;
        if book.chars().count() > 20 {
            return None;
        }
        rest = tail.trim_start_matches(is_space);
    }
    if let Some(label) = LABELS.iter().find(|l| rest.starts_with(*l)) {
        rest = rest.get(label.len()..)?.trim_start_matches(is_space);
    }
    (rest.len() < line.len() && !rest.is_empty()).then_some(rest)
}

/// [`detect`] on a line without a site label.
pub(super) fn detect_heading(line: &str) -> Vec<Found> {
    let Some(first) = line.chars().next() else {
        return Vec::new();
    };
    if !matches!(
        first,
        '第' | '卷'
            | '序'
            | '楔'
            | '引'
            | '前'
            | '番'
            | '尾'
            | '后'
            | '後'
            | '终'
            | '終'
            | '完'
            | '上'
            | 'C'
            | 'c'
            | 'P'
            | 'p'
            | 'E'
            | 'e'
            | 'B'
            | 'b'
            | 'V'
            | 'v'
            | 'F'
            | 'f'
            | 'S'
            | 's'
            | 'T'
            | 't'
            | 'L'
            | 'l'
    ) || !short_enough(line)
    {
        return Vec::new();
    }
    if let Some(found) = volume_line(line) {
        return found;
    }
    if let Some(found) = numbered_chapter(line).or_else(|| unnumbered_chapter(line)) {
        return vec![found];
    }
    Vec::new()
}

/// What follows a heading's number: whether a separator came first, and the title after it.
fn split_title(rest: &str) -> (bool, &str) {
    let title = rest.trim_start_matches(is_separator);
    // `第二部【青云路】`: a title in square brackets is set apart as by a space.
    let bracketed = title.starts_with(['【', '〖', '［']);
    (title.len() != rest.len() || bracketed, title)
}

/// Whether `rest` (the text after a heading's number) is an acceptable title. `glue_ok` says
/// whether the title may follow the number without a separator.
fn accept_rest(rest: &str, glue_ok: bool) -> bool {
    let (separated, title) = split_title(rest);
    if title.is_empty() {
        return true;
    }
    if !separated && !glue_ok {
        return false;
    }
    title_reads_as_title(title, !separated)
}

/// The sentence tests of the module doc, applied to a title.
fn title_reads_as_title(title: &str, glued: bool) -> bool {
    if title.contains('。') {
        return false;
    }
    // `【好人，我配么？】`, `【桃花运太强也不是好事！】（上）`: a title set in square brackets
    // is a title, whatever punctuation it holds.
    if !glued && title.starts_with('【') && title.contains('】') {
        return true;
    }
    let core = title.trim_end_matches(|c: char| {
        matches!(
            c,
            '”' | '’' | '」' | '』' | '"' | '\'' | '）' | ')' | '》' | '〉' | '】' | ']'
        )
    });
    let ellipsis = core.ends_with("...") || core.ends_with('…');
    if !ellipsis && core.ends_with(['.', '．']) {
        return false;
    }
    let ends_sentence = ellipsis || core.ends_with(['！', '？', '!', '?']);
    let has_comma = title.contains(['，', ',', '；', ';']);
    if glued {
        let continues_sentence = title.starts_with([
            '的', '了', '是', '里', '裡', '就', '也', '都', '还', '還', '又', '和', '与', '與',
            '呢', '吗', '嗎', '吧', '啊', '，', ',',
            // `第一回合` is a round of a fight, not chapter 1 titled 合.
            '合',
        ]);
        // `第五回完`, `第五回完 Typed by …`: the end of a chapter, not a chapter titled 完.
        let ends_chapter = title
            .strip_prefix(['完', '终', '終'])
            .is_some_and(|rest| !rest.starts_with(|c: char| is_han(c)));
        if has_comma || ends_sentence || continues_sentence || ends_chapter {
            return false;
        }
    }
    !(ends_sentence && (has_comma || width(title) > MAX_EXCLAIMED_TITLE_WIDTH))
}

/// A CJK ideograph.
fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3FFFF}')
}

/// The title of a numbered chapter heading without its numbering: `第十二章 风起` gives `风起`,
/// `Chapter 3: Storm` gives `Storm`, `12、风起` gives `风起`, `第十二章` gives an empty title.
/// None when the line is not a numbered chapter heading (a site label before it is left out).
pub(super) fn title_without_number(line: &str) -> Option<&str> {
    let line = trim_line(line);
    let text = strip_site_label(line).unwrap_or(line);
    // A label the title keeps (`警世通言第一卷 …`, `上卷 第一回 …`: see `super::label`).
    let text = match label_end(text) {
        Some(at) if di_number_unit(text).is_none() => &text[at..],
        _ => text,
    };
    if !short_enough(text) {
        return None;
    }
    let rest = if let Some(DiNumber { unit, rest, .. }) = di_number_unit(text) {
        (is_chapter_unit(unit) && accept_rest(rest, allows_glued_title(unit))).then_some(rest)?
    } else if let Some((_, rest)) = english_numbered(text, "chapter") {
        english_rest_ok(rest).then_some(rest)?
    } else {
        bare_numbered(text)?;
        text.trim_start_matches(|c: char| c.is_ascii_digit() || ('０'..='９').contains(&c))
    };
    Some(trim_line(split_title(rest).1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Option<Found> {
        let mut found = detect(trim_line(line));
        match found.len() {
            0 => None,
            1 => found.pop(),
            n => panic!("{line:?} gave {n} headings: {found:?}"),
        }
    }

    fn chapter(title: &str, number: Option<u64>) -> Option<Found> {
        Some(Found {
            kind: HeadingKind::Chapter,
            title: title.to_string(),
            number,
            other: None,
            repaired: false,
        })
    }

    fn volume(title: &str, number: Option<u64>) -> Option<Found> {
        Some(Found {
            kind: HeadingKind::Volume,
            title: title.to_string(),
            number,
            other: None,
            repaired: false,
        })
    }

    #[test]
    fn chapter_headings_from_the_brief_are_recognised_with_numbers() {
        assert_eq!(one("第一章"), chapter("第一章", Some(1)));
        assert_eq!(one("第十二回 夜战"), chapter("第十二回 夜战", Some(12)));
        assert_eq!(
            one("第1205章 大结局"),
            chapter("第1205章 大结局", Some(1205))
        );
        assert_eq!(one("第一百零八节"), chapter("第一百零八节", Some(108)));
        assert_eq!(one("第两千章"), chapter("第两千章", Some(2000)));
        assert_eq!(
            one("　　第三章　风起云涌"),
            chapter("第三章 风起云涌", Some(3))
        );
    }

    #[test]
    fn every_chapter_unit_and_separator_is_accepted() {
        for unit in ['章', '回', '节', '節', '話', '话', '集', '幕'] {
            let line = format!("第七{unit}");
            assert_eq!(one(&line), chapter(&line, Some(7)), "{line}");
        }
        for sep in [" ", "\u{3000}", "：", ":", "、", ".", "\u{a0}"] {
            let line = format!("第七节{sep}夜谈");
            assert!(one(&line).is_some(), "{line:?}");
        }
        assert_eq!(one("第１２章：归来"), chapter("第１２章：归来", Some(12)));
        assert_eq!(one("第 12 章  归来"), chapter("第 12 章 归来", Some(12)));
        assert_eq!(one("第壹佰章"), chapter("第壹佰章", Some(100)));
        assert_eq!(one("第〇章 起源"), chapter("第〇章 起源", Some(0)));
    }

    #[test]
    fn glued_titles_are_accepted_only_after_unambiguous_units() {
        assert_eq!(one("第一章风起"), chapter("第一章风起", Some(1)));
        assert_eq!(one("第三回大闹天宫"), chapter("第三回大闹天宫", Some(3)));
        assert_eq!(one("第一节课"), None);
        assert_eq!(one("第一部手机"), None);
        assert_eq!(one("第二集结号"), None);
    }

    #[test]
    fn volume_headings_are_recognised() {
        assert_eq!(one("第一卷 潜龙在渊"), volume("第一卷 潜龙在渊", Some(1)));
        assert_eq!(one("第二部"), volume("第二部", Some(2)));
        assert_eq!(one("第三册：归途"), volume("第三册：归途", Some(3)));
        assert_eq!(one("第四篇 终局"), volume("第四篇 终局", Some(4)));
        assert_eq!(one("卷三"), volume("卷三", Some(3)));
        assert_eq!(one("卷三 北伐"), volume("卷三 北伐", Some(3)));
        assert_eq!(one("第一卷潜龙在渊"), volume("第一卷潜龙在渊", Some(1)));
        assert_eq!(one("卷三北伐"), None);
        assert_eq!(one("卷起千堆雪"), None);
    }

    #[test]
    fn a_line_with_volume_and_chapter_gives_both_headings() {
        let found = detect("第一卷 第一章 风起");
        assert_eq!(
            found,
            vec![
                volume("第一卷", Some(1)).unwrap(),
                chapter("第一章 风起", Some(1)).unwrap()
            ]
        );
        let found = detect("第二卷：潜龙在渊　第十章 夜雨");
        assert_eq!(
            found,
            vec![
                volume("第二卷：潜龙在渊", Some(2)).unwrap(),
                chapter("第十章 夜雨", Some(10)).unwrap()
            ]
        );
        let found = detect("第三卷第一章");
        assert_eq!(
            found,
            vec![
                volume("第三卷", Some(3)).unwrap(),
                chapter("第一章", Some(1)).unwrap()
            ]
        );
        let found = detect("Part Two Chapter 3");
        assert_eq!(
            found,
            vec![
                volume("Part Two", Some(2)).unwrap(),
                chapter("Chapter 3", Some(3)).unwrap()
            ]
        );
    }

    #[test]
    fn unnumbered_sections_are_chapters_without_number() {
        for line in [
            "序章",
            "序",
            "序言",
            "楔子",
            "引子",
            "前言",
            "番外",
            "番外一",
            "番外：江湖",
            "尾声",
            "后记",
            "终章",
            "完本感言",
            "上架感言",
            "序章 少年",
            "楔子：雨夜",
            "番外篇",
            "番外12 重逢",
        ] {
            assert_eq!(one(line), chapter(line, None), "{line}");
        }
    }

    #[test]
    fn unnumbered_keywords_inside_prose_stay_text() {
        for line in [
            "序言写得很好",
            "前言不搭后语",
            "尾声渐近，人群散去。",
            "后记里他写了很多。",
            "番外：他在那一年里走遍了大江南北，见过无数的人，也终于明白了很多事情",
            "作者的话",
            "序章里，他写道：",
        ] {
            assert_eq!(one(line), None, "{line}");
        }
    }

    #[test]
    fn english_headings_are_recognised() {
        assert_eq!(one("Chapter 12"), chapter("Chapter 12", Some(12)));
        assert_eq!(one("CHAPTER XII"), chapter("CHAPTER XII", Some(12)));
        assert_eq!(one("Chapter Twelve"), chapter("Chapter Twelve", Some(12)));
        assert_eq!(
            one("Chapter Twenty-One: Home"),
            chapter("Chapter Twenty-One: Home", Some(21))
        );
        assert_eq!(
            one("Chapter Twenty One"),
            chapter("Chapter Twenty One", Some(21))
        );
        assert_eq!(
            one("chapter 3. The Storm"),
            chapter("chapter 3. The Storm", Some(3))
        );
        assert_eq!(one("Part One"), volume("Part One", Some(1)));
        assert_eq!(one("PART II"), volume("PART II", Some(2)));
        assert_eq!(one("Prologue"), chapter("Prologue", None));
        assert_eq!(one("EPILOGUE"), chapter("EPILOGUE", None));
        assert_eq!(
            one("Prologue: The Storm"),
            chapter("Prologue: The Storm", None)
        );
    }

    #[test]
    fn gutenberg_headings_with_a_full_stop_are_recognised() {
        assert_eq!(
            one("CHAPTER 1. Loomings."),
            chapter("CHAPTER 1. Loomings.", Some(1))
        );
        for line in [
            "CHAPTER 120. The Deck Towards the End of the First Night Watch.",
            "CHAPTER 121. Midnight.—The Forecastle Bulwarks.",
            "CHAPTER 135. The Chase.—Third Day.",
            "CHAPTER II.",
        ] {
            assert!(one(line).is_some(), "{line}");
        }
        for prose in [
            "Chapter 1. It was a dark night.",
            "Chapter 2. Then he went home.",
            "Chapter 3. The End..",
        ] {
            assert_eq!(one(prose), None, "{prose}");
        }
    }

    #[test]
    fn books_volumes_and_numbered_epilogues_are_volumes() {
        assert_eq!(one("BOOK ONE: 1805"), volume("BOOK ONE: 1805", Some(1)));
        assert_eq!(
            one("BOOK FIFTEEN: 1812 - 13"),
            volume("BOOK FIFTEEN: 1812 - 13", Some(15))
        );
        assert_eq!(one("Volume III"), volume("Volume III", Some(3)));
        assert_eq!(
            one("FIRST EPILOGUE: 1813 - 20"),
            volume("FIRST EPILOGUE: 1813 - 20", None)
        );
        assert_eq!(one("SECOND EPILOGUE"), volume("SECOND EPILOGUE", None));
        assert!(one("CHAPTER 105. Does the Whale’s Magnitude Diminish?—Will He Perish?").is_some());
        for prose in [
            "Book two was better.",
            "Booking a room",
            "First epilogue was long",
            "Second Epilogues",
            "Volume control",
        ] {
            assert_eq!(one(prose), None, "{prose}");
        }
    }

    #[test]
    fn english_prose_stays_text() {
        for line in [
            "Chapter one was boring.",
            "Chapter 5 is where it starts",
            "Part of me wanted to stay",
            "Partly cloudy",
            "Prologues are overrated",
            "Chapters",
            "Chapter12",
            "Epilogue. That was all.",
        ] {
            assert_eq!(one(line), None, "{line}");
        }
    }

    #[test]
    fn prose_traps_from_the_brief_stay_text() {
        for line in [
            "他翻到第三章，看了很久。",
            "第一封信",
            "第四本书",
            "第一次见面",
            "第二天",
            "第三个人",
            "第一名",
            "第一章写得很好，但是第二章……",
            "第一章 写得很好，但是第二章……",
            "第一章的时候他还很年轻",
            "第三章里写到了他。",
            "“第一章”他说",
            "「第一章」",
            "第一回合",
            "第三部分",
            "第一篇文章",
            "第一集团军",
            "第一章 这一章写的是他在山中的十年岁月里所经历的种种磨难和奇遇，一直到他终于离开了那座大山为止",
            "第五章 他终于明白了当年师父留下的那句话究竟是什么意思！",
        ] {
            assert_eq!(one(line), None, "{line}");
        }
    }

    #[test]
    fn short_titles_may_end_like_a_question_or_exclamation() {
        assert_eq!(one("第十章 你是谁？"), chapter("第十章 你是谁？", Some(10)));
        assert_eq!(one("第十一章 杀！"), chapter("第十一章 杀！", Some(11)));
        assert_eq!(
            one("第十二章 “走吧！”"),
            chapter("第十二章 “走吧！”", Some(12))
        );
    }

    #[test]
    fn site_labels_before_a_heading_are_left_out_of_it() {
        assert_eq!(
            one("正文 第一回 宴桃园豪杰三结义 斩黄巾英雄首立功"),
            chapter("第一回 宴桃园豪杰三结义 斩黄巾英雄首立功", Some(1))
        );
        assert_eq!(
            one("《》目录 第一回　灵根育孕源流出　心性修持大道生"),
            chapter("第一回 灵根育孕源流出 心性修持大道生", Some(1))
        );
        assert_eq!(one("《西游记》 第二回"), chapter("第二回", Some(2)));
        assert_eq!(one("正文卷 第一章 风起"), chapter("第一章 风起", Some(1)));
        for text in [
            "正文",
            "《水浒传》",
            "《》目录",
            "正文写得很好",
            "目录第一页",
        ] {
            assert_eq!(one(text), None, "{text}");
        }
    }

    #[test]
    fn collapse_spaces_joins_runs_and_drops_edges() {
        assert_eq!(collapse_spaces("  a \u{3000}\u{a0} b  "), "a b");
        assert_eq!(collapse_spaces(""), "");
    }

    #[test]
    fn trim_line_removes_ideographic_space_nbsp_and_bom() {
        assert_eq!(trim_line("\u{feff}\u{3000}\u{a0} 第一章 \t"), "第一章");
    }
}
