//! Apple Books: the display-options file without which Apple Books ignores embedded fonts, and
//! the footnote backlink arrow (↩, U+21A9) followed by U+FE0E, the text presentation selector,
//! so that it is never drawn as a coloured emoji.

use crate::book::Entry;

/// Where Apple Books looks for its display options.
pub(crate) const DISPLAY_OPTIONS: &str = "META-INF/com.apple.ibooks.display-options.xml";

/// The display options: the book's own fonts are used (`specified-fonts`).
const OPTIONS: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
<display_options>\n\
<platform name=\"*\">\n\
<option name=\"specified-fonts\">true</option>\n\
</platform>\n\
</display_options>\n";

/// The files Apple Books needs beside the package: the display options when the book embeds
/// fonts.
pub(crate) fn extras(fonts: bool) -> Vec<Entry> {
    if !fonts {
        return Vec::new();
    }
    vec![Entry {
        name: DISPLAY_OPTIONS.to_string(),
        data: OPTIONS.as_bytes().to_vec(),
        compress: true,
    }]
}

/// The backlink arrow.
const ARROW: char = '\u{21A9}';
/// The text presentation selector.
const TEXT_STYLE: char = '\u{FE0E}';

/// A content document whose every ↩ is followed by U+FE0E; None when none needs it.
pub(crate) fn text_arrows(doc: &str) -> Option<String> {
    let needs = doc
        .match_indices(ARROW)
        .any(|(i, _)| !doc[i + ARROW.len_utf8()..].starts_with(TEXT_STYLE));
    if !needs {
        return None;
    }
    let mut out = String::with_capacity(doc.len() + 16);
    let mut chars = doc.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == ARROW && chars.peek() != Some(&TEXT_STYLE) {
            out.push(TEXT_STYLE);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_are_drawn_as_text() {
        let once = text_arrows("<a>\u{21A9}</a> <a>\u{21A9}\u{FE0E}</a>").unwrap();
        assert_eq!(once, "<a>\u{21A9}\u{FE0E}</a> <a>\u{21A9}\u{FE0E}</a>");
        assert_eq!(text_arrows(&once), None);
    }

    #[test]
    fn display_options_only_with_fonts() {
        assert!(extras(false).is_empty());
        let e = extras(true);
        assert_eq!(e[0].name, DISPLAY_OPTIONS);
        assert!(
            std::str::from_utf8(&e[0].data)
                .unwrap()
                .contains("specified-fonts")
        );
    }
}
