//! Numeral parsing for heading numbers: Chinese (ordinary and financial), Arabic and full-width
//! digits, Roman numerals and small English number words.
//!
//! Heading detection in [`super`] uses these to read the `12` out of `第十二章`, `Chapter XII` or
//! `Chapter Twelve`. Every parser returns `None` for anything it does not fully understand and
//! uses checked arithmetic, so no input can make it panic or overflow.

/// Value of a Chinese digit character, `零`/`〇` through `九`, `两`, and financial forms.
fn chinese_digit(c: char) -> Option<u64> {
    Some(match c {
        '零' | '〇' => 0,
        '一' | '壹' | '弌' => 1,
        '二' | '贰' | '貳' | '两' | '兩' => 2,
        '三' | '叁' | '參' => 3,
        '四' | '肆' => 4,
        '五' | '伍' => 5,
        '六' | '陆' | '陸' => 6,
        '七' | '柒' => 7,
        '八' | '捌' => 8,
        '九' | '玖' => 9,
        _ => return None,
    })
}

/// Value of a unit below ten thousand: `十`, `百`, `千` and financial forms.
fn small_unit(c: char) -> Option<u64> {
    Some(match c {
        '十' | '拾' => 10,
        '百' | '佰' => 100,
        '千' | '仟' => 1000,
        _ => return None,
    })
}

/// Value of a unit that closes a group: `万` (10^4) and `亿` (10^8).
fn big_unit(c: char) -> Option<u64> {
    Some(match c {
        '万' | '萬' => 10_000,
        '亿' | '億' => 100_000_000,
        _ => return None,
    })
}

/// Value of an ASCII or full-width decimal digit.
fn decimal_digit(c: char) -> Option<u64> {
    match c {
        '0'..='9' => Some(u64::from(c) - u64::from('0')),
        '０'..='９' => Some(u64::from(c) - u64::from('０')),
        _ => None,
    }
}

/// Whether `c` can be part of a number in a `第…章` heading.
pub(super) fn is_numeral_char(c: char) -> bool {
    chinese_digit(c).is_some()
        || small_unit(c).is_some()
        || big_unit(c).is_some()
        || decimal_digit(c).is_some()
}

/// A character typed by mistake for a numeral: a dash for 一 (`第十—回`, `第—百回`), a circle
/// or a letter O for 〇 (`第一○八回`), a Kangxi radical for the digit it looks like (`第⼗回`,
/// as PDF and OCR conversions leave them), a letter for a digit in an Arabic number
/// (`第1O章`, `第l2章`).
fn is_lookalike(c: char) -> bool {
    is_dash(c) || as_chinese(c).is_some() || as_arabic(c).is_some()
}

/// The dashes and strokes that stand for 一 when typed inside a number.
fn is_dash(c: char) -> bool {
    matches!(
        c,
        '-' | '\u{2010}'
            ..='\u{2015}'
                | '\u{2500}'
                | '\u{2501}'
                | '\u{30FC}'
                | '\u{31D0}'
                | '\u{FE63}'
                | '\u{FF0D}'
                | '\u{FF70}'
    )
}

/// The Chinese numeral a look-alike stands for inside a Chinese number (dashes are handled
/// apart: see [`mend`]).
fn as_chinese(c: char) -> Option<char> {
    Some(match c {
        '○' | '◯' | '〇' | 'O' | 'o' | 'Ｏ' | 'ｏ' | 'О' | 'о' | '0' | '０' => '〇',
        '\u{2F00}' => '一',
        '\u{2F06}' => '二',
        '\u{2F0B}' => '八',
        '\u{2F17}' => '十',
        _ => return None,
    })
}

/// The digit a letter stands for inside an Arabic number.
fn as_arabic(c: char) -> Option<char> {
    Some(match c {
        'O' | 'o' | 'Ｏ' | 'ｏ' | 'О' | 'о' => '0',
        'l' | 'I' | '|' | 'ｌ' | 'Ｉ' => '1',
        _ => return None,
    })
}

/// Whether `c` may be part of a heading number as written: a numeral, `廿` `卅` `卌`, or a
/// look-alike typed for one.
pub(super) fn is_numeral_like(c: char) -> bool {
    is_numeral_char(c) || matches!(c, '廿' | '卅' | '卌') || is_lookalike(c)
}

/// The number a heading starts with (`十二回`, `1O章`, `十—回`): its readings, whether a typo
/// was read for the numeral it stands for, and the byte length of the number. None when the
/// leading run of numeral-like characters does not read as a number.
pub(super) fn leading_number(text: &str) -> Option<(Readings, bool, usize)> {
    let end = text
        .char_indices()
        .find(|&(_, c)| !is_numeral_like(c))
        .map_or(text.len(), |(i, _)| i);
    let run = text.get(..end).filter(|r| !r.is_empty())?;
    if let Some(readings) = chinese_readings(run) {
        return Some((readings, false, end));
    }
    let (mended, repaired) = mend(run)?;
    chinese_readings(&mended).map(|readings| (readings, repaired, end))
}

/// A number with its look-alikes replaced by the numerals they stand for, and `廿` `卅` `卌`
/// written out (二十, 三十, 四十); whether a look-alike was replaced. Which numeral a look-alike
/// stands for depends on the number's other characters: Chinese (a dash is 一 next to a unit
/// or alone, never between two digits, where it reads as a range) or Arabic.
fn mend(run: &str) -> Option<(String, bool)> {
    let chars: Vec<char> = run.chars().collect();
    let is_unit = |c: &char| small_unit(*c).is_some() || big_unit(*c).is_some();
    let chinese = chars.iter().any(|&c| {
        chinese_digit(c).is_some()
            || is_unit(&c)
            || matches!(c, '廿' | '卅' | '卌')
            || as_chinese(c).is_some_and(|m| m != '〇')
    });
    let arabic = !chinese && chars.iter().any(|&c| decimal_digit(c).is_some());
    let mut out = String::with_capacity(run.len() + 6);
    let mut repaired = false;
    for (i, &c) in chars.iter().enumerate() {
        let mended = match c {
            '廿' => {
                out.push_str("二十");
                continue;
            }
            '卅' => {
                out.push_str("三十");
                continue;
            }
            '卌' => {
                out.push_str("四十");
                continue;
            }
            _ if is_numeral_char(c) && !(chinese && decimal_digit(c).is_some()) => {
                out.push(c);
                continue;
            }
            _ if is_dash(c) => {
                let by_unit = i
                    .checked_sub(1)
                    .and_then(|p| chars.get(p))
                    .is_some_and(is_unit)
                    || chars.get(i + 1).is_some_and(is_unit);
                let alone = chars.len() == 1 && c != '-';
                (by_unit || alone).then_some('一')
            }
            _ if chinese => as_chinese(c),
            _ if arabic => as_arabic(c),
            _ => None,
        }?;
        out.push(mended);
        repaired = true;
    }
    Some((out, repaired))
}

/// A number as spoken, and its other reading when it has one (see [`chinese_readings`]).
pub(super) type Readings = (u64, Option<u64>);

/// The spoken reading of [`chinese_readings`].
#[cfg(test)]
pub fn parse_chinese_number(s: &str) -> Option<u64> {
    chinese_readings(s).map(|(n, _)| n)
}

/// Parses a number written in Chinese numerals, financial numerals, ASCII digits or full-width
/// digits, with the other reading of a number that has two.
///
/// Accepted forms: `一`, `十二`, `一百零八`, `两千`, `一千二百零五`, `三万`, `零`/`〇`, `壹佰`,
/// positional digit strings such as `一〇八` (108), `1205` and `１２０５`. Mixed scripts (`1万`),
/// malformed orders (`一十百`) and overflow give `None`.
///
/// A digit right after 百, 千 or 万 with no 零 between (`一百一`, `两千五`) is read first as
/// spoken today, a multiple of the unit below (110, 2500); classical novels write their
/// chapters that way for the ones (`第一百一回` follows `第一百回` in 三国演义 and 红楼梦), which
/// is the second reading. Only the sequence a number stands in can tell them apart (see the
/// split module's numbering).
pub(super) fn chinese_readings(s: &str) -> Option<Readings> {
    if s.is_empty() {
        return None;
    }
    if s.chars().all(|c| decimal_digit(c).is_some()) {
        return positional(s.chars().map(decimal_digit)).map(|n| (n, None));
    }
    if s.chars().all(|c| chinese_digit(c).is_some()) {
        return positional(s.chars().map(chinese_digit)).map(|n| (n, None));
    }
    with_units(s)
}

/// Reads a run of digit values as a base-ten number.
fn positional(mut digits: impl Iterator<Item = Option<u64>>) -> Option<u64> {
    digits.try_fold(0u64, |acc, d| acc.checked_mul(10)?.checked_add(d?))
}

/// Reads a Chinese number that uses the units 十 百 千 万 亿: the spoken reading, and the ones
/// reading when a trailing digit follows a unit of a hundred or more directly.
fn with_units(s: &str) -> Option<Readings> {
    // Completed 亿 groups, the completed 万 group, and the part below 万 being built.
    let mut yi_total: u64 = 0;
    let mut wan_total: u64 = 0;
    let mut section: u64 = 0;
    // A digit read but not yet multiplied by a unit.
    let mut pending: Option<u64> = None;
    // Units must shrink left to right inside a group (`一百二十`, not `一十百`).
    let mut last_small = u64::MAX;
    let mut last_big = u64::MAX;
    // The unit just before the trailing digit decides how `两千五` is read; a `零` in between
    // means the digit is plain ones (`两千零五`).
    let mut prev_unit: Option<u64> = None;
    let mut zero_since_unit = false;

    for c in s.chars() {
        if let Some(d) = chinese_digit(c) {
            if d == 0 {
                if pending.is_some() {
                    return None;
                }
                zero_since_unit = true;
                continue;
            }
            if pending.is_some() {
                return None;
            }
            pending = Some(d);
        } else if let Some(u) = small_unit(c) {
            if u >= last_small {
                return None;
            }
            // `十二` and `一百十` leave out the 一 before 十; other units need their digit.
            let m = match pending.take() {
                Some(d) => d,
                None if u == 10 => 1,
                None => return None,
            };
            section = section.checked_add(m.checked_mul(u)?)?;
            last_small = u;
            prev_unit = Some(u);
            zero_since_unit = false;
        } else if let Some(b) = big_unit(c) {
            if b >= last_big {
                return None;
            }
            let group = section.checked_add(pending.take().unwrap_or(0))?;
            if group == 0 {
                return None;
            }
            if b == 10_000 {
                wan_total = group.checked_mul(b)?;
            } else {
                yi_total = group.checked_mul(b)?;
            }
            section = 0;
            last_small = u64::MAX;
            last_big = b;
            prev_unit = Some(b);
            zero_since_unit = false;
        } else {
            return None;
        }
    }

    let tail = match (pending, prev_unit) {
        (None, _) => 0,
        (Some(d), _) if zero_since_unit => d,
        (Some(d), Some(u)) => d.checked_mul(u / 10)?,
        (Some(d), None) => d,
    };
    let head = yi_total.checked_add(wan_total)?.checked_add(section)?;
    let ones = match (pending, prev_unit) {
        (Some(d), Some(u)) if u >= 100 && !zero_since_unit => head.checked_add(d),
        _ => None,
    };
    Some((head.checked_add(tail)?, ones))
}

/// Parses a Roman numeral (`XII`, `xii`) in canonical form, 1 to 3999.
///
/// Non-canonical spellings such as `IIII` or `IC` and mixed case (`Mix`) are rejected so that
/// ordinary words made of the letters I, V, X, L, C, D, M (`Mix`, `did`) are not taken for
/// numbers. The all-lower-case `mix` is canonical 1009 and still accepted.
pub(super) fn parse_roman(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 15 {
        return None;
    }
    let upper = s.bytes().all(|b| b.is_ascii_uppercase());
    let lower = s.bytes().all(|b| b.is_ascii_lowercase());
    if !upper && !lower {
        return None;
    }
    let value_of = |c: char| -> Option<i64> {
        Some(match c.to_ascii_uppercase() {
            'I' => 1,
            'V' => 5,
            'X' => 10,
            'L' => 50,
            'C' => 100,
            'D' => 500,
            'M' => 1000,
            _ => return None,
        })
    };
    let values: Vec<i64> = s.chars().map(value_of).collect::<Option<_>>()?;
    // At most 15 letters of at most 1000 each: the sum cannot overflow i64.
    let mut total: i64 = 0;
    for (i, &v) in values.iter().enumerate() {
        let next = values.get(i + 1).copied().unwrap_or(0);
        if v < next {
            total -= v;
        } else {
            total += v;
        }
    }
    let total = u64::try_from(total).ok()?;
    if total == 0 || total > 3999 || to_roman(total) != s.to_ascii_uppercase() {
        return None;
    }
    Some(total)
}

/// Canonical upper-case Roman numeral for 1..=3999.
fn to_roman(mut n: u64) -> String {
    const TABLE: [(u64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, letters) in TABLE {
        while n >= value {
            out.push_str(letters);
            n -= value;
        }
    }
    out
}

/// Parses an English number word from `one` to `ninety-nine` (`Twelve`, `twenty-one`).
pub(super) fn parse_english_number(s: &str) -> Option<u64> {
    let lower = s.to_ascii_lowercase();
    if let Some((tens, ones)) = lower.split_once('-') {
        let t = english_tens(tens)?;
        let o = english_ones(ones).filter(|&o| (1..=9).contains(&o))?;
        return Some(t + o);
    }
    english_ones(&lower).or_else(|| english_tens(&lower))
}

/// `one` to `nineteen`.
pub(super) fn english_ones(s: &str) -> Option<u64> {
    const WORDS: [&str; 19] = [
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    let lower = s.to_ascii_lowercase();
    let pos = WORDS.iter().position(|w| *w == lower)?;
    u64::try_from(pos + 1).ok()
}

/// `first` to `ninety-ninth` (`First`, `TWENTY-FIRST`), as in `Book the First`.
pub(super) fn parse_english_ordinal(s: &str) -> Option<u64> {
    const ONES: [&str; 19] = [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
    ];
    const TENS: [&str; 8] = [
        "twentieth",
        "thirtieth",
        "fortieth",
        "fiftieth",
        "sixtieth",
        "seventieth",
        "eightieth",
        "ninetieth",
    ];
    let lower = s.to_ascii_lowercase();
    let ones = |w: &str| ONES.iter().position(|o| *o == w).map(|p| p as u64 + 1);
    if let Some((tens, rest)) = lower.split_once('-') {
        return Some(english_tens(tens)? + ones(rest).filter(|&o| o <= 9)?);
    }
    ones(&lower).or_else(|| {
        TENS.iter()
            .position(|t| *t == lower)
            .map(|p| p as u64 * 10 + 20)
    })
}

/// `twenty`, `thirty` … `ninety`.
pub(super) fn english_tens(s: &str) -> Option<u64> {
    const WORDS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let lower = s.to_ascii_lowercase();
    let pos = WORDS.iter().position(|w| *w == lower)?;
    u64::try_from(pos + 2).ok().map(|t| t * 10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn chinese_numbers_from_the_brief_parse_to_their_values() {
        let cases = [
            ("一", 1),
            ("二", 2),
            ("十", 10),
            ("十一", 11),
            ("二十", 20),
            ("一百零八", 108),
            ("一千二百零五", 1205),
            ("两千", 2000),
            ("三万", 30_000),
            ("零", 0),
            ("〇", 0),
            ("壹佰", 100),
            ("贰拾叁", 23),
            ("一百一十一", 111),
            ("一万零五百", 10_500),
            ("十万零三", 100_003),
            ("一〇八", 108),
            ("二〇二三", 2023),
            ("1205", 1205),
            ("１２０５", 1205),
            ("两千五", 2500),
            ("一百二", 120),
            ("两千零五", 2005),
            ("三亿", 300_000_000),
        ];
        for (text, want) in cases {
            assert_eq!(parse_chinese_number(text), Some(want), "{text}");
        }
    }

    #[test]
    fn a_digit_right_after_a_hundred_or_more_has_a_second_reading() {
        assert_eq!(chinese_readings("一百一"), Some((110, Some(101))));
        assert_eq!(chinese_readings("两千五"), Some((2500, Some(2005))));
        assert_eq!(chinese_readings("一万三"), Some((13_000, Some(10_003))));
        for one_reading in [
            "一百十",
            "一百零一",
            "一百一十",
            "十二",
            "一百",
            "101",
            "一〇一",
        ] {
            assert_eq!(
                chinese_readings(one_reading).unwrap().1,
                None,
                "{one_reading}"
            );
        }
    }

    #[test]
    fn malformed_or_foreign_numbers_are_rejected() {
        for text in [
            "",
            "一十百",
            "百",
            "万",
            "一二百",
            "1万",
            "abc",
            "第一",
            "十十",
            "千百",
            "一万万",
        ] {
            assert_eq!(parse_chinese_number(text), None, "{text}");
        }
    }

    #[test]
    fn digit_strings_that_overflow_u64_give_none() {
        assert_eq!(parse_chinese_number(&"9".repeat(30)), None);
        assert_eq!(parse_chinese_number(&"九".repeat(30)), None);
    }

    #[test]
    fn roman_numerals_parse_only_in_canonical_form() {
        assert_eq!(parse_roman("XII"), Some(12));
        assert_eq!(parse_roman("xii"), Some(12));
        assert_eq!(parse_roman("IV"), Some(4));
        assert_eq!(parse_roman("MCMXCIV"), Some(1994));
        assert_eq!(parse_roman("IIII"), None);
        assert_eq!(parse_roman("IC"), None);
        assert_eq!(parse_roman("Mix"), None);
        assert_eq!(parse_roman("did"), None);
        assert_eq!(parse_roman("dim"), None);
        assert_eq!(parse_roman(""), None);
    }

    #[test]
    fn english_number_words_parse_up_to_ninety_nine() {
        assert_eq!(parse_english_number("Twelve"), Some(12));
        assert_eq!(parse_english_number("one"), Some(1));
        assert_eq!(parse_english_number("twenty"), Some(20));
        assert_eq!(parse_english_number("Twenty-One"), Some(21));
        assert_eq!(parse_english_number("twenty-ten"), None);
        assert_eq!(parse_english_number("dozen"), None);
    }

    /// Writes `n` the way Chinese headings do, independently of the parser, to check it.
    fn to_chinese(n: u64) -> String {
        const DIGITS: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
        fn below_wan(n: u64, leading: bool) -> String {
            let mut out = String::new();
            let parts = [(n / 1000, '千'), (n / 100 % 10, '百'), (n / 10 % 10, '十')];
            let mut zero = false;
            let mut started = false;
            for (d, unit) in parts {
                if d == 0 {
                    zero = started;
                    continue;
                }
                if zero {
                    out.push('零');
                    zero = false;
                }
                if !(unit == '十' && d == 1 && !started && leading) {
                    out.push(DIGITS[d as usize]);
                }
                out.push(unit);
                started = true;
            }
            let ones = n % 10;
            if ones != 0 {
                if zero || (started && n % 100 / 10 == 0) {
                    out.push('零');
                }
                out.push(DIGITS[ones as usize]);
            }
            out
        }
        if n == 0 {
            return "零".to_string();
        }
        let wan = n / 10_000;
        let rest = n % 10_000;
        let mut out = String::new();
        if wan > 0 {
            out.push_str(&below_wan(wan, true));
            out.push('万');
            if rest > 0 && rest < 1000 {
                out.push('零');
            }
            if rest > 0 {
                out.push_str(&below_wan(rest, false));
            }
        } else {
            out.push_str(&below_wan(rest, true));
        }
        out
    }

    #[test]
    fn the_test_encoder_writes_known_forms() {
        assert_eq!(to_chinese(108), "一百零八");
        assert_eq!(to_chinese(1205), "一千二百零五");
        assert_eq!(to_chinese(12), "十二");
        assert_eq!(to_chinese(10_500), "一万零五百");
        assert_eq!(to_chinese(110), "一百一十");
    }

    proptest! {
        #[test]
        fn chinese_numbers_round_trip(n in 0u64..100_000_000) {
            prop_assert_eq!(parse_chinese_number(&to_chinese(n)), Some(n), "{}", to_chinese(n));
        }

        #[test]
        fn arabic_numbers_round_trip(n in any::<u64>()) {
            prop_assert_eq!(parse_chinese_number(&n.to_string()), Some(n));
        }

        #[test]
        fn roman_numerals_round_trip(n in 1u64..4000) {
            prop_assert_eq!(parse_roman(&to_roman(n)), Some(n));
        }

        #[test]
        fn arbitrary_text_never_panics_the_parsers(s in "\\PC{0,20}") {
            let _ = parse_chinese_number(&s);
            let _ = parse_roman(&s);
            let _ = parse_english_number(&s);
        }
    }
}
