//! A chapter cut into pages by the site it was downloaded from: `第一回 天涯思君不可忘(1)`,
//! `第一回 天涯思君不可忘(2)`… each page headed again with the chapter's heading and its page
//! number. The pages of one chapter are one chapter: the first heading starts it (its title
//! keeps the page number as written, so that the text ledger finds every character of the
//! line in the book), the others stay text in it, listed in `skipped`, and the numbering sees
//! one heading, so it warns about nothing.

use super::auto;
use super::{HeadingKind, HeadingLine, SkipReason, Skipped};

/// The title without a page number at its end (`天涯思君不可忘(2)` gives `天涯思君不可忘` and
/// 2): Arabic or full-width digits in ASCII or full-width parentheses, at most three digits.
fn page_of(title: &str) -> Option<(&str, u64)> {
    let open = title.strip_suffix([')', '）'])?;
    let at = open.rfind(['(', '（'])?;
    let digits = &open[at + open[at..].chars().next()?.len_utf8()..];
    if digits.is_empty() || digits.chars().count() > 3 {
        return None;
    }
    let mut n = 0u64;
    for c in digits.chars() {
        let d = match c {
            '0'..='9' => c as u64 - '0' as u64,
            '０'..='９' => c as u64 - '０' as u64,
            _ => return None,
        };
        n = n * 10 + d;
    }
    Some((open[..at].trim_end_matches(auto::is_space), n))
}

/// The chapter number, title without its page number, and page number (1 when there is none)
/// of a line that holds one numbered chapter heading.
fn piece(h: &HeadingLine) -> Option<(u64, &str, u64)> {
    let [f] = h.found.as_slice() else {
        return None;
    };
    if f.kind != HeadingKind::Chapter {
        return None;
    }
    let number = f.number?;
    Some(match page_of(&f.title) {
        Some((base, page)) => (number, base, page),
        None => (number, f.title.as_str(), 1),
    })
}

/// Joins the pages of each chapter (see the module docs): a heading line is a later page of
/// the one before it when both are one numbered chapter heading with the same number and
/// title, and its page number is the next. Returns how many page headings were joined.
pub(super) fn join_pages(
    found: &mut Vec<HeadingLine>,
    lines: &[&str],
    skipped: &mut Vec<Skipped>,
) -> usize {
    let mut drop = vec![false; found.len()];
    // The heading that opens the run each line continues, and the page it is on.
    let mut open: Option<(usize, u64)> = None;
    for k in 0..found.len() {
        let Some((number, base, page)) = piece(&found[k]) else {
            open = None;
            continue;
        };
        let continues = open.is_some_and(|(start, last)| {
            piece(&found[start]).is_some_and(|(n, b, _)| n == number && b == base)
                && page == last + 1
        });
        match open {
            Some((start, _)) if continues => {
                drop[k] = true;
                open = Some((start, page));
            }
            _ => open = Some((k, page)),
        }
    }
    let joined = drop.iter().filter(|d| **d).count();
    if joined > 0 {
        super::structure::remove(found, &drop, lines, SkipReason::PagePiece, skipped);
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_at_the_end_of_a_title_are_read() {
        assert_eq!(page_of("第一回 天涯(1)"), Some(("第一回 天涯", 1)));
        assert_eq!(page_of("第一回 天涯（１２）"), Some(("第一回 天涯", 12)));
        assert_eq!(page_of("第一回 天涯 (3)"), Some(("第一回 天涯", 3)));
        assert_eq!(page_of("第一回 天涯(上)"), None);
        assert_eq!(page_of("第一回 天涯()"), None);
        assert_eq!(page_of("第一回 天涯(2024)"), None);
        assert_eq!(page_of("第一回 天涯"), None);
    }
}
