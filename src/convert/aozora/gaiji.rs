//! 外字: the characters Aozora Bunko writes as a description with their JIS X 0213
//! plane-row-cell number (`※［＃「てへん＋劣」、第3水準1-84-77］`) or their Unicode code point
//! (`※［＃「口＋世」、U+546D、ページ数-行数］`), back to the character.
//!
//! The table `jisx0213.txt` holds JIS X 0213:2004 as one line per plane and row (`1-84 `
//! followed by the row's 94 cells in order, U+E000 for a cell the standard leaves empty and
//! U+E001 for one of the few cells that are two code points, listed in [`PAIRS`]). It was made
//! from aozora2html's `yml/jis2ucs.yml` (CC0), itself from the JIS X 0213:2004 mapping table
//! published at w3.kcua.ac.jp/~fujiwara/jis2000/jis2004/.

const TABLE: &str = include_str!("jisx0213.txt");

/// The cells that are a base letter and a combining mark.
const PAIRS: &[((u8, u8, u8), &str)] = &[
    ((1, 4, 87), "\u{304B}\u{309A}"),
    ((1, 4, 88), "\u{304D}\u{309A}"),
    ((1, 4, 89), "\u{304F}\u{309A}"),
    ((1, 4, 90), "\u{3051}\u{309A}"),
    ((1, 4, 91), "\u{3053}\u{309A}"),
    ((1, 5, 87), "\u{30AB}\u{309A}"),
    ((1, 5, 88), "\u{30AD}\u{309A}"),
    ((1, 5, 89), "\u{30AF}\u{309A}"),
    ((1, 5, 90), "\u{30B1}\u{309A}"),
    ((1, 5, 91), "\u{30B3}\u{309A}"),
    ((1, 5, 92), "\u{30BB}\u{309A}"),
    ((1, 5, 93), "\u{30C4}\u{309A}"),
    ((1, 5, 94), "\u{30C8}\u{309A}"),
    ((1, 6, 88), "\u{31F7}\u{309A}"),
    ((1, 11, 36), "\u{00E6}\u{0300}"),
    ((1, 11, 40), "\u{0254}\u{0300}"),
    ((1, 11, 41), "\u{0254}\u{0301}"),
    ((1, 11, 42), "\u{028C}\u{0300}"),
    ((1, 11, 43), "\u{028C}\u{0301}"),
    ((1, 11, 44), "\u{0259}\u{0300}"),
    ((1, 11, 45), "\u{0259}\u{0301}"),
    ((1, 11, 46), "\u{025A}\u{0300}"),
    ((1, 11, 47), "\u{025A}\u{0301}"),
    ((1, 11, 69), "\u{02E9}\u{02E5}"),
    ((1, 11, 70), "\u{02E5}\u{02E9}"),
];

/// The character at JIS X 0213 plane `p`, row `r`, cell `c`; None for an empty cell or a
/// number outside the standard.
pub fn jis(p: u8, r: u8, c: u8) -> Option<String> {
    if !(1..=94).contains(&c) {
        return None;
    }
    let key = format!("{p}-{r:02} ");
    let row = TABLE.lines().find_map(|l| l.strip_prefix(key.as_str()))?;
    match row.chars().nth(usize::from(c) - 1)? {
        '\u{e000}' => None,
        '\u{e001}' => PAIRS
            .iter()
            .find(|(k, _)| *k == (p, r, c))
            .map(|(_, s)| s.to_string()),
        ch => Some(ch.to_string()),
    }
}

/// The character an annotation's text names: a JIS X 0213 number (`1-84-77`, with or without
/// `第3水準`) or a code point (`U+546D`). None when it names neither or the number is empty.
pub fn named(note: &str) -> Option<String> {
    if let Some(at) = note.find("U+").or_else(|| note.find("u+")) {
        let hex: String = note[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        return u32::from_str_radix(&hex, 16)
            .ok()
            .and_then(char::from_u32)
            .map(String::from);
    }
    let numbers = jis_number(note)?;
    jis(numbers.0, numbers.1, numbers.2)
}

/// The first `p-r-c` number in `note` whose plane is 1 or 2 (a page-line reference,
/// `ページ数-行数`, has two parts, never three).
fn jis_number(note: &str) -> Option<(u8, u8, u8)> {
    let chars: Vec<char> = note.chars().collect();
    (0..chars.len()).find_map(|i| {
        if i > 0 && chars[i - 1].is_ascii_digit() {
            return None;
        }
        let rest: String = chars[i..].iter().collect();
        let mut parts = rest.splitn(4, '-');
        let p = digits(parts.next()?, false)?;
        let r = digits(parts.next()?, false)?;
        let c = digits(parts.next()?, true)?;
        (matches!(p, 1 | 2) && (1..=94).contains(&r)).then_some((p, r, c))
    })
}

/// The number `s` starts with (all of `s` unless `prefix`), one or two digits.
fn digits(s: &str, prefix: bool) -> Option<u8> {
    let d: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    let whole = prefix || d.len() == s.len();
    (whole && (1..=2).contains(&d.len())).then(|| d.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plane_row_cell_numbers_name_their_characters() {
        assert_eq!(jis(1, 1, 1).as_deref(), Some("\u{3000}"));
        assert_eq!(
            named("「てへん＋劣」、第3水準1-84-77").as_deref(),
            Some("\u{6318}")
        );
        assert_eq!(named("二の字点、1-2-22").as_deref(), Some("〻"));
        assert_eq!(
            named("「口＋世」、U+546D、ページ数-行数").as_deref(),
            Some("呭")
        );
        assert_eq!(jis(1, 4, 87).as_deref(), Some("\u{304B}\u{309A}"));
        assert_eq!(named("第4水準2-14-63").as_deref(), Some("\u{6844}"));
    }

    #[test]
    fn page_references_and_empty_cells_name_nothing() {
        assert_eq!(named("「低のへん＋舌」、ページ数-行数"), None);
        assert_eq!(named("「木＋世」、12-3"), None);
        assert_eq!(jis(1, 1, 95), None);
        assert_eq!(jis(3, 1, 1), None);
    }
}
