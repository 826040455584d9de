//! The text values of `metadata.toml` (and of what `init` imports), checked once, where they
//! enter: control characters are taken out, and an identifier is checked by its scheme. The
//! rest of the build sees only cleaned values: the package writer never meets a title that is
//! a control character and writes an empty `dc:title`, nor an `urn:uuid:` that is no UUID.
//!
//! Single-line values (title, names, subjects…) lose every control character; a line break or
//! tab in one becomes a space, as it separated words. Multi-line values (the description and
//! the rights statement) keep their line breaks and tabs (`\r\n` becomes `\n`). Characters XML
//! forbids (U+FFFE, U+FFFF) go too. What is left is trimmed; a value written with text but
//! left with none is an error naming the key, not a silently empty element.

/// How a value is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lines {
    /// One line: line breaks and tabs become spaces.
    One,
    /// Several lines: line breaks and tabs are kept.
    Many,
}

/// `value` without control characters (as `lines` says) and trimmed.
pub(crate) fn clean(value: &str, lines: Lines) -> String {
    let keep = |c: char| !(c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}'));
    if value.chars().all(keep) {
        return value.trim().to_string();
    }
    let cleaned: String = value
        .chars()
        .filter_map(|c| match (c, lines) {
            ('\n' | '\t', Lines::Many) => Some(c),
            ('\n' | '\t' | '\r', Lines::One) => Some(' '),
            (c, _) if keep(c) => Some(c),
            _ => None,
        })
        .collect();
    cleaned.trim().to_string()
}

/// Why a value written with text is refused once cleaned: it had none but control characters.
pub(crate) fn nothing_left(key: &str) -> String {
    format!("`{key}` has no text once its control characters are taken out")
}

/// What to do about [`nothing_left`].
pub(crate) const NOTHING_LEFT_HINT: &str =
    "write the text itself (escapes such as \\u0001 are control characters, not text)";

/// Why an identifier is refused, and what to write instead.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct BadIdentifier {
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub hint: &'static str,
}

/// Checks `identifier` by its scheme: `urn:uuid:` a UUID (8-4-4-4-12 hex digits), `urn:isbn:`
/// (or `isbn:`, or 13 bare digits starting 978 or 979) an ISBN-10 or ISBN-13 with its check
/// digit, `scheme://…` a well-formed URL. Anything else is taken as it is: the EPUB standard
/// allows any string.
pub(crate) fn check_identifier(identifier: &str) -> Result<(), BadIdentifier> {
    let lower = identifier.to_ascii_lowercase();
    if let Some(uuid) = lower.strip_prefix("urn:uuid:") {
        return check_uuid(uuid).map_err(|why| BadIdentifier {
            message: format!("`identifier` = \"{identifier}\" is not a valid urn:uuid: {why}"),
            hint: "write urn:uuid: and a UUID (e.g. urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e), \
                   or leave `identifier` out to get a stable one from the title and authors",
        });
    }
    let isbn = (lower.strip_prefix("urn:isbn:"))
        .or_else(|| lower.strip_prefix("isbn:"))
        .or_else(|| looks_like_isbn13(&lower).then_some(lower.as_str()));
    if let Some(isbn) = isbn {
        return check_isbn(isbn).map_err(|why| BadIdentifier {
            message: format!("`identifier` = \"{identifier}\" is not a valid ISBN: {why}"),
            hint: "check the digits (e.g. urn:isbn:9780306406157), or leave `identifier` out to \
                   get a stable urn:uuid from the title and authors",
        });
    }
    if let Some((scheme, rest)) = identifier.split_once("://") {
        return check_url(scheme, rest).map_err(|why| BadIdentifier {
            message: format!("`identifier` = \"{identifier}\" is not a valid URL: {why}"),
            hint: "write a whole URL such as https://example.com/books/1 (spaces and other \
                   characters percent-encoded)",
        });
    }
    Ok(())
}

/// Why an identifier is not valid in its scheme (the message says it to the author).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Invalid {
    /// A UUID not in its standard form.
    #[error("a UUID is 32 hex digits in groups of 8-4-4-4-12")]
    Uuid,
    /// A character of an ISBN that is not a digit.
    #[error("`{0}` is not a digit")]
    NotDigit(char),
    /// The check digit of an ISBN-10 or ISBN-13 (the number) is wrong.
    #[error("the ISBN-{0} check digit does not match")]
    CheckDigit(u8),
    /// An ISBN of this many digits.
    #[error("it has {0} digits, not 10 or 13")]
    IsbnLength(usize),
    /// A URL whose scheme is not one.
    #[error("`{0}` is not a URL scheme")]
    Scheme(String),
    /// A URL without a host.
    #[error("it names no host")]
    NoHost,
    /// A character a URL must percent-encode.
    #[error("{0:?} must be percent-encoded")]
    Unencoded(char),
}

/// A UUID in its one standard form, 8-4-4-4-12 hex digits (RFC 9562).
fn check_uuid(uuid: &str) -> Result<(), Invalid> {
    let groups: Vec<&str> = uuid.split('-').collect();
    let lengths: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let hex = groups
        .iter()
        .all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()));
    if lengths == [8, 4, 4, 4, 12] && hex {
        Ok(())
    } else {
        Err(Invalid::Uuid)
    }
}

/// 13 digits (with hyphens or spaces) starting 978 or 979: an ISBN-13 written bare.
fn looks_like_isbn13(value: &str) -> bool {
    let digits: Vec<u8> = (value.bytes())
        .filter(|b| !matches!(b, b'-' | b' '))
        .collect();
    digits.len() == 13
        && digits.iter().all(u8::is_ascii_digit)
        && (digits.starts_with(b"978") || digits.starts_with(b"979"))
}

/// Checks an ISBN-10 or ISBN-13 (hyphens and spaces allowed) and its check digit.
pub(crate) fn check_isbn(isbn: &str) -> Result<(), Invalid> {
    let chars: Vec<char> = isbn.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
    match chars.len() {
        10 => {
            let mut sum = 0u32;
            for (i, c) in chars.iter().enumerate() {
                let v = match c {
                    '0'..='9' => c.to_digit(10).unwrap_or(0),
                    'X' | 'x' if i == 9 => 10,
                    _ => return Err(Invalid::NotDigit(*c)),
                };
                sum += v * (10 - i as u32);
            }
            match sum.is_multiple_of(11) {
                true => Ok(()),
                false => Err(Invalid::CheckDigit(10)),
            }
        }
        13 => {
            let mut sum = 0u32;
            for (i, c) in chars.iter().enumerate() {
                let v = c.to_digit(10).ok_or(Invalid::NotDigit(*c))?;
                sum += if i % 2 == 0 { v } else { 3 * v };
            }
            match sum.is_multiple_of(10) {
                true => Ok(()),
                false => Err(Invalid::CheckDigit(13)),
            }
        }
        n => Err(Invalid::IsbnLength(n)),
    }
}

/// `scheme://rest`: a scheme of letters, digits, `+`, `-` and `.` starting with a letter; a
/// host; no character a URL must percent-encode (space, `<`, `"`, control characters…).
fn check_url(scheme: &str, rest: &str) -> Result<(), Invalid> {
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && (scheme.chars()).all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return Err(Invalid::Scheme(scheme.to_string()));
    }
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() {
        return Err(Invalid::NoHost);
    }
    let bad = rest.chars().find(|&c| {
        c.is_whitespace()
            || c.is_control()
            || matches!(c, '<' | '>' | '"' | '{' | '}' | '|' | '\\' | '^' | '`')
    });
    match bad {
        Some(c) => Err(Invalid::Unencoded(c)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_taken_out_of_values() {
        assert_eq!(clean("  书名  ", Lines::One), "书名");
        assert_eq!(clean("\u{1}", Lines::One), "");
        assert_eq!(clean("a\u{1b}[2Jb", Lines::One), "a[2Jb");
        assert_eq!(clean("one\ntwo\tthree", Lines::One), "one two three");
        assert_eq!(clean("x\u{7f}\u{85}\u{fffe}y", Lines::One), "xy");
        assert_eq!(
            clean("first\r\n\tsecond\u{7}", Lines::Many),
            "first\n\tsecond"
        );
        assert_eq!(
            clean("Ünïcödé 中文 ‏עברית", Lines::One),
            "Ünïcödé 中文 ‏עברית"
        );
    }

    #[test]
    fn isbn_checksums_are_checked_both_ways() {
        for good in [
            "978-0-306-40615-7",
            "9780306406157",
            "0-306-40615-2",
            "080442957X",
        ] {
            assert_eq!(check_isbn(good), Ok(()), "{good}");
        }
        for bad in [
            "978-0-306-40615-8",
            "0-306-40615-3",
            "12345",
            "97803064061X7",
        ] {
            assert!(check_isbn(bad).is_err(), "{bad}");
        }
        assert!(check_identifier("urn:isbn:9780306406157").is_ok());
        assert!(check_identifier("URN:ISBN:0-306-40615-2").is_ok());
        assert!(check_identifier("urn:isbn:9780306406158").is_err());
        assert!(check_identifier("isbn:0306406153").is_err());
        assert!(check_identifier("978-0-306-40615-8").is_err());
        // Thirteen bare digits not starting 978/979 are not taken for an ISBN.
        assert!(check_identifier("1234567890123").is_ok());
    }

    #[test]
    fn uuids_are_checked_in_their_standard_form() {
        assert!(check_identifier("urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e").is_ok());
        assert!(check_identifier("urn:uuid:0F8FAD5B-D9CB-469F-A165-70867728950E").is_ok());
        for bad in [
            "urn:uuid:not-a-uuid",
            "urn:uuid:",
            "urn:uuid:0f8fad5bd9cb469fa16570867728950e",
            "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950",
            "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950g",
            "urn:uuid:{0f8fad5b-d9cb-469f-a165-70867728950e}",
        ] {
            let e = check_identifier(bad).unwrap_err();
            assert!(e.message.contains("not a valid urn:uuid"), "{bad}: {e:?}");
        }
    }

    #[test]
    fn urls_must_be_well_formed_and_other_identifiers_pass() {
        assert!(check_identifier("https://example.com/books/1?x=2#y").is_ok());
        for bad in [
            "https://",
            "https:///path",
            "http://exa mple.com",
            "1http://x.org",
        ] {
            assert!(check_identifier(bad).is_err(), "{bad}");
        }
        for other in ["my-book-2024", "urn:doi:10.1000/182", "书号 42"] {
            assert!(check_identifier(other).is_ok(), "{other}");
        }
    }
}
