//! Emphasis as plain text writes it: `_italic_`, the way Project Gutenberg marks the italics
//! of the printed book (`We are not in a way to know _what_ Mr. Bingley likes`).
//!
//! Part of the convert stage: a text paragraph, already joined from its lines, becomes XHTML
//! with `<em>` for each balanced pair. The rules are CommonMark's for a single `_`, so that
//! nothing but emphasis changes: an opening `_` is followed by a non-space and not preceded by
//! a letter or digit, a closing one is preceded by a non-space and not followed by a letter or
//! digit (`snake_case` and `file_name_here` stay as they are), a run of several underscores is
//! literal, and pairs never span paragraphs (an unbalanced `_` stays literal).

use crate::xml::escape_text;

/// The paragraph `text` as escaped XHTML, with balanced `_…_` as `<em>…</em>`.
pub fn paragraph_xhtml(text: &str) -> String {
    if !text.contains('_') {
        return escape_text(text);
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = String::with_capacity(text.len() + 32);
    let mut written = 0;
    let mut open: Option<usize> = None;
    for (k, &(at, c)) in chars.iter().enumerate() {
        if c != '_' {
            continue;
        }
        let before = k.checked_sub(1).map(|j| chars[j].1);
        let after = chars.get(k + 1).map(|&(_, c)| c);
        if before == Some('_') || after == Some('_') {
            continue;
        }
        let opens = after.is_some_and(|a| !a.is_whitespace())
            && before.is_none_or(|b| !b.is_alphanumeric());
        let closes = before.is_some_and(|b| !b.is_whitespace())
            && after.is_none_or(|a| !a.is_alphanumeric());
        match open {
            Some(from) if closes => {
                out.push_str(&escape_text(&text[written..from]));
                out.push_str("<em>");
                out.push_str(&escape_text(&text[from + 1..at]));
                out.push_str("</em>");
                written = at + 1;
                open = None;
            }
            _ if opens => open = Some(at),
            _ => {}
        }
    }
    out.push_str(&escape_text(&text[written..]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_underscores_become_emphasis() {
        assert_eq!(
            paragraph_xhtml("“We are not in a way to know _what_ Mr. Bingley likes,”"),
            "“We are not in a way to know <em>what</em> Mr. Bingley likes,”"
        );
        assert_eq!(
            paragraph_xhtml("“_You_ want to tell me.” [_Copyright 1894._]"),
            "“<em>You</em> want to tell me.” [<em>Copyright 1894.</em>]"
        );
        assert_eq!(
            paragraph_xhtml(
                "_Walt Whitman has a distinction. To some the humour of_ Northanger Abbey, _its completeness._"
            ),
            "<em>Walt Whitman has a distinction. To some the humour of</em> Northanger Abbey, <em>its completeness.</em>"
        );
    }

    #[test]
    fn underscores_inside_words_runs_and_unbalanced_ones_stay() {
        for text in [
            "call snake_case_names here",
            "a __double__ run",
            "an _unclosed opener",
            "a closer_ without opener",
            "spaced _ out _ marks",
            "_",
            "他_说_了",
        ] {
            assert_eq!(paragraph_xhtml(text), escape_text(text), "{text}");
        }
    }

    #[test]
    fn text_around_and_inside_emphasis_is_escaped() {
        assert_eq!(
            paragraph_xhtml("a < _b & c_ > d"),
            "a &lt; <em>b &amp; c</em> &gt; d"
        );
    }
}
