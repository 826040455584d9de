//! The book's modification date (`dcterms:modified`), and `SOURCE_DATE_EPOCH`, which sets it.
//!
//! Part of the project stage: the date is part of what the book says about itself. The
//! package document can only hold a date of the form `CCYY-MM-DDThh:mm:ssZ`, so a time before
//! the year 0 or after 9999 is refused rather than written as `+10000-01-01` (which EPUBCheck
//! rejects); a `SOURCE_DATE_EPOCH` that is not a whole number of seconds is an error naming
//! the variable rather than silently ignored (the reproducible-builds specification asks for
//! that).

use crate::error::{Error, Result};

/// The environment variable that fixes the date of a reproducible build.
pub const SOURCE_DATE_EPOCH: &str = "SOURCE_DATE_EPOCH";

/// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z, in seconds since 1970.
const EARLIEST: i64 = -62_167_219_200;
const LATEST: i64 = 253_402_300_799;

/// `SOURCE_DATE_EPOCH` from the environment: None when unset or empty, an error when it is
/// not a whole number of seconds in the years 0 to 9999.
pub fn source_date_epoch() -> Result<Option<i64>> {
    match std::env::var_os(SOURCE_DATE_EPOCH) {
        None => Ok(None),
        Some(value) => match value.to_str() {
            Some(v) if v.trim().is_empty() => Ok(None),
            Some(v) => parse_epoch(v).map(Some),
            None => Err(bad_epoch("is not text")),
        },
    }
}

/// A `SOURCE_DATE_EPOCH` value: decimal digits, optionally signed, within the years 0..=9999.
fn parse_epoch(value: &str) -> Result<i64> {
    let v = value.trim();
    let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_epoch(&format!(
            "\"{value}\" is not a whole number of seconds"
        )));
    }
    match v.parse::<i64>() {
        Ok(secs) if (EARLIEST..=LATEST).contains(&secs) => Ok(secs),
        _ => Err(bad_epoch(&format!(
            "{value} is not in the years 0 to 9999 (from {EARLIEST} to {LATEST})"
        ))),
    }
}

fn bad_epoch(what: &str) -> Error {
    Error::Environment {
        variable: SOURCE_DATE_EPOCH,
        message: what.to_string(),
        hint: Some(
            "set it to seconds since 1970-01-01 UTC, e.g. the output of `date +%s`, or unset it"
                .into(),
        ),
    }
}

/// `secs` since 1970 as `dcterms:modified` writes it; None outside the years 0 to 9999.
pub fn modified_date(secs: i64) -> Option<String> {
    if !(EARLIEST..=LATEST).contains(&secs) {
        return None;
    }
    let time = chrono::DateTime::<chrono::Utc>::from_timestamp(secs, 0)?;
    Some(time.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_are_whole_seconds_within_the_years_0_to_9999() {
        assert_eq!(parse_epoch("1700000000").unwrap(), 1_700_000_000);
        assert_eq!(parse_epoch(" 0 ").unwrap(), 0);
        assert_eq!(parse_epoch("253402300799").unwrap(), LATEST);
        assert_eq!(parse_epoch("-62167219200").unwrap(), EARLIEST);
        for bad in [
            "abc",
            "1.5",
            "1e9",
            "-",
            "253402300800",
            "-62167219201",
            "99999999999999999999",
        ] {
            let e = parse_epoch(bad).unwrap_err().to_string();
            assert!(e.starts_with("SOURCE_DATE_EPOCH: "), "{bad}: {e}");
        }
    }

    #[test]
    fn dates_are_written_with_four_digit_years_only() {
        assert_eq!(modified_date(0).as_deref(), Some("1970-01-01T00:00:00Z"));
        assert_eq!(
            modified_date(LATEST).as_deref(),
            Some("9999-12-31T23:59:59Z")
        );
        assert_eq!(
            modified_date(EARLIEST).as_deref(),
            Some("0000-01-01T00:00:00Z")
        );
        assert_eq!(modified_date(LATEST + 1), None);
        assert_eq!(modified_date(EARLIEST - 1), None);
    }
}
