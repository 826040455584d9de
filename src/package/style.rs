//! The default stylesheet, chosen by the book's language.
//!
//! Chinese and Japanese: paragraphs indented two characters, justified, no gap between
//! paragraphs, a generous line height for dense ideographs, strict line breaking so that closing
//! punctuation never starts a line. Latin scripts: a smaller indent, first paragraph after a
//! heading unindented, hyphenation on.

use super::locale;

const COMMON: &str = r#"@charset "UTF-8";
body { margin: 0 4%; padding: 0; }
h1 { font-size: 1.4em; font-weight: bold; text-align: center; text-indent: 0; line-height: 1.4; margin: 2em 0 1.5em; page-break-after: avoid; break-after: avoid; }
h2 { font-size: 1.2em; font-weight: bold; text-indent: 0; margin: 1.5em 0 1em; page-break-after: avoid; break-after: avoid; }
h3, h4, h5, h6 { font-size: 1em; font-weight: bold; text-indent: 0; margin: 1.2em 0 0.8em; }
p.scene-break { text-indent: 0; text-align: center; margin: 1em 0; }
img { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #999; padding: 0.2em 0.5em; }
body.cover { margin: 0; padding: 0; text-align: center; }
section.cover { margin: 0; padding: 0; height: 100%; }
section.cover svg { display: block; margin: 0; padding: 0; }
body.part h1.part-title { margin-top: 30%; font-size: 1.8em; }
nav ol { list-style-type: none; }
"#;

const CJK: &str = r#"html { line-break: strict; -epub-line-break: strict; word-break: normal; }
body { line-height: 1.8; text-align: justify; font-family: serif; }
p { text-indent: 2em; margin: 0; widows: 2; orphans: 2; }
"#;

const LATIN: &str = r#"body { line-height: 1.5; text-align: justify; font-family: serif; -epub-hyphens: auto; hyphens: auto; }
p { text-indent: 1.5em; margin: 0; widows: 2; orphans: 2; }
h1 + p, h2 + p, h3 + p, p.scene-break + p { text-indent: 0; }
"#;

/// The default stylesheet for a BCP 47 language tag.
pub fn default_css(lang: &str) -> String {
    let script = match locale::primary(lang).as_str() {
        "zh" | "ja" | "ko" => CJK,
        _ => LATIN,
    };
    format!("{COMMON}{script}")
}
