//! The default stylesheet, chosen by the book's language.
//!
//! Chinese and Japanese: paragraphs indented two characters, justified, no gap between
//! paragraphs, a generous line height for dense ideographs, strict line breaking so that closing
//! punctuation never starts a line. Latin scripts: a smaller indent, first paragraph after a
//! heading unindented, hyphenation on.
//!
//! [`stylesheet`] puts together the whole `book.css`: the theme (from `[style] theme` or the
//! language), the generated pages, the simple `[style]` settings, vertical writing and
//! tate-chu-yoko, and the `@font-face` rules of embedded fonts. User stylesheets are separate
//! files linked after it, so they win. A note that is a list item shows no list number: it
//! opens with its own, the link back to its reference (`convert::notes`).

use std::fmt::Write;

use super::{Look, locale};
use crate::book::CODE_CLASSES;
use crate::project::Theme;

const COMMON: &str = r#"@charset "UTF-8";
@namespace epub "http://www.idpf.org/2007/ops";
body { margin: 0 4%; padding: 0; }
h1 { font-size: 1.4em; font-weight: bold; text-align: center; text-indent: 0; line-height: 1.4; margin: 2em 0 1.5em; page-break-after: avoid; break-after: avoid; }
h2 { font-size: 1.2em; font-weight: bold; text-indent: 0; margin: 1.5em 0 1em; page-break-after: avoid; break-after: avoid; }
h3, h4, h5, h6 { font-size: 1em; font-weight: bold; text-indent: 0; margin: 1.2em 0 0.8em; }
p.scene-break { text-indent: 0; text-align: center; margin: 1em 0; }
p.illustration { text-indent: 0; text-align: center; font-size: 0.9em; margin: 1em 0; }
img { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #999; padding: 0.2em 0.5em; }
body.cover { margin: 0; padding: 0; text-align: center; }
section.cover { margin: 0; padding: 0; height: 100%; }
section.cover svg { display: block; margin: 0; padding: 0; }
body.part h1.part-title { margin-top: 30%; font-size: 1.8em; }
nav ol { list-style-type: none; }
li[epub|type~="footnote"], li[epub|type~="endnote"] { list-style-type: none; }
li[epub\:type~="footnote"], li[epub\:type~="endnote"] { list-style-type: none; }
body.titlepage { text-align: center; text-indent: 0; }
section.titlepage { margin-top: 25%; }
section.titlepage h1.title { font-size: 2em; margin: 0 0 0.8em; }
section.titlepage p { text-indent: 0; text-align: center; margin: 0.6em 0; }
section.titlepage p.subtitle { font-size: 1.2em; }
section.titlepage p.publisher { margin-top: 4em; font-size: 0.9em; }
body.toc-page ol { padding-left: 0; margin: 0; }
body.toc-page ol ol { padding-left: 1.5em; }
body.toc-page li { margin: 0.3em 0; text-indent: 0; }
body.toc-page a { text-decoration: none; }
section.colophon { margin-top: 30%; font-size: 0.9em; }
section.colophon h1 { font-size: 1.1em; }
section.colophon p { text-indent: 0; margin: 0.3em 0; }
section.colophon span.label { font-weight: bold; }
"#;

const CJK: &str = r#"html { line-break: strict; -epub-line-break: strict; word-break: normal; }
body { line-height: 1.8; text-align: justify; font-family: serif; }
p { text-indent: 2em; margin: 0; widows: 2; orphans: 2; }
"#;

const LATIN: &str = r#"body { line-height: 1.5; text-align: justify; font-family: serif; -epub-hyphens: auto; hyphens: auto; }
p { text-indent: 1.5em; margin: 0; widows: 2; orphans: 2; }
h1 + p, h2 + p, h3 + p, p.scene-break + p, p.illustration + p { text-indent: 0; }
"#;

const VERTICAL: &str = r#"html { writing-mode: vertical-rl; -epub-writing-mode: vertical-rl; -webkit-writing-mode: vertical-rl; }
body { margin: 4% 0; }
h1 { margin: 0 2em 0 1.5em; }
span.tcy { text-combine-upright: all; -epub-text-combine: horizontal; -webkit-text-combine: horizontal; }
section.titlepage { margin: 0 25% 0 0; }
body.toc-page h1 { text-align: start; }
section.colophon { margin: 0 30% 0 0; }
body.cover { writing-mode: horizontal-tb; -epub-writing-mode: horizontal-tb; -webkit-writing-mode: horizontal-tb; }
"#;

/// Ruby and the classes of Aozora Bunko's and web novels' notation (`convert::aozora`): 傍点 as
/// `text-emphasis`, 傍線 as underlines (over the line in vertical writing: its right side),
/// 字下げ and 地付き as margins, sizes, boxes. Written for CJK books.
const NOTATION: &str = r#"ruby rt { font-size: 0.5em; }
em.sesame_dot, em.white_sesame_dot, em.black_circle, em.white_circle, em.black_up-pointing_triangle, em.white_up-pointing_triangle, em.bullseye, em.fisheye, em.saltire { font-style: normal; }
em.sesame_dot { -epub-text-emphasis-style: filled sesame; -webkit-text-emphasis-style: filled sesame; text-emphasis-style: filled sesame; }
em.white_sesame_dot { -epub-text-emphasis-style: open sesame; -webkit-text-emphasis-style: open sesame; text-emphasis-style: open sesame; }
em.black_circle { -epub-text-emphasis-style: filled circle; -webkit-text-emphasis-style: filled circle; text-emphasis-style: filled circle; }
em.white_circle { -epub-text-emphasis-style: open circle; -webkit-text-emphasis-style: open circle; text-emphasis-style: open circle; }
em.black_up-pointing_triangle { -epub-text-emphasis-style: filled triangle; -webkit-text-emphasis-style: filled triangle; text-emphasis-style: filled triangle; }
em.white_up-pointing_triangle { -epub-text-emphasis-style: open triangle; -webkit-text-emphasis-style: open triangle; text-emphasis-style: open triangle; }
em.bullseye { -epub-text-emphasis-style: "◎"; -webkit-text-emphasis-style: "◎"; text-emphasis-style: "◎"; }
em.fisheye { -epub-text-emphasis-style: "◉"; -webkit-text-emphasis-style: "◉"; text-emphasis-style: "◉"; }
em.saltire { -epub-text-emphasis-style: "×"; -webkit-text-emphasis-style: "×"; text-emphasis-style: "×"; }
em.underline_solid, em.underline_double, em.underline_dotted, em.underline_dashed, em.underline_wave { font-style: normal; text-decoration-line: underline; }
em.underline_double { text-decoration-style: double; }
em.underline_dotted { text-decoration-style: dotted; }
em.underline_dashed { text-decoration-style: dashed; }
em.underline_wave { text-decoration-style: wavy; }
.futoji { font-weight: bold; }
.shatai { font-style: italic; }
.keigakomi { border: 1px solid; }
.warichu, .caption { font-size: 0.8em; }
.ao-big-1 { font-size: 1.2em; } .ao-big-2 { font-size: 1.44em; } .ao-big-3 { font-size: 1.73em; }
.ao-small-1 { font-size: 0.83em; } .ao-small-2 { font-size: 0.69em; } .ao-small-3 { font-size: 0.58em; }
sub.kaeriten, sup.okurigana { font-size: 0.6em; }
p.ao-flush, p.ao-title, p.ao-head { text-indent: 0; }
p.ao-title { font-size: 1.4em; font-weight: bold; }
p.ao-newpage, h1.ao-newpage, h2.ao-newpage, h3.ao-newpage { page-break-before: always; break-before: page; }
div.ao-newpage { page-break-after: always; break-after: page; }
"#;

/// The stylesheet rules for [`NOTATION`]'s indents (字下げ, `jisage_N`; a hanging indent,
/// `hang_N`; a first line further in, `ti_N`) and feet (地付き, `chitsuki_N`): on the left and
/// right, or, in vertical writing, on the top and bottom.
fn notation_steps(vertical: bool, o: &mut String) {
    let (start, end) = if vertical {
        ("top", "bottom")
    } else {
        ("left", "right")
    };
    for n in 1..=10 {
        let _ = writeln!(o, ".jisage_{n} {{ margin-{start}: {n}em; }}");
        let _ = writeln!(o, "p.hang_{n} {{ text-indent: -{n}em; }}");
        let _ = writeln!(o, "p.ti_{n} {{ text-indent: {n}em; }}");
    }
    for n in 0..=10 {
        let _ = writeln!(
            o,
            "p.chitsuki_{n} {{ text-align: right; text-indent: 0; margin-{end}: {n}em; }}"
        );
    }
}

/// Code: monospace, wrapped rather than running off the page (e-readers cannot scroll a block
/// sideways), never hyphenated. Written only for books that show code.
const CODE: &str = r#"pre { font-family: monospace; white-space: pre-wrap; overflow-wrap: break-word; word-wrap: break-word; text-align: left; text-indent: 0; -epub-hyphens: none; hyphens: none; font-size: 0.85em; line-height: 1.4; margin: 1em 0; }
code, kbd, samp { font-family: monospace; -epub-hyphens: none; hyphens: none; }
pre code { font-size: 1em; }
"#;

/// The code rules, with colours for the highlighting classes in `code` only.
fn code_css(code: super::CodeUse, o: &mut String) {
    if !code.any {
        return;
    }
    o.push_str(CODE);
    let used: Vec<(&str, &str, &str)> = CODE_CLASSES
        .iter()
        .enumerate()
        .filter(|(i, _)| code.classes & (1 << i) != 0)
        .map(|(_, c)| *c)
        .collect();
    if used.is_empty() {
        return;
    }
    for (class, light, _) in &used {
        let italic = if *class == "hl-c" {
            " font-style: italic;"
        } else {
            ""
        };
        let _ = writeln!(o, "span.{class} {{ color: {light};{italic} }}");
    }
    // Dark reading modes: the system's (prefers-color-scheme) and Apple Books' night theme.
    o.push_str("@media (prefers-color-scheme: dark) {\n");
    for (class, _, dark) in &used {
        let _ = writeln!(o, "  span.{class} {{ color: {dark}; }}");
    }
    o.push_str("}\n");
    for (class, _, dark) in &used {
        let _ = writeln!(
            o,
            ":root[__ibooks_internal_theme*=\"Night\"] span.{class} {{ color: {dark}; }}"
        );
    }
}

/// The theme for a BCP 47 language tag when `[style] theme` does not say.
pub fn theme_for(lang: &str) -> Theme {
    match locale::primary(lang).as_str() {
        "zh" | "ja" | "ko" => Theme::Cjk,
        _ => Theme::Latin,
    }
}

/// The default stylesheet for a BCP 47 language tag.
#[cfg(test)]
fn default_css(lang: &str) -> String {
    stylesheet(lang, &Look::default())
}

/// The book's stylesheet: theme, generated pages, settings, vertical writing, fonts.
pub fn stylesheet(lang: &str, look: &Look) -> String {
    let style = &look.style;
    let theme = match style.theme.unwrap_or_else(|| theme_for(lang)) {
        Theme::Cjk => CJK,
        Theme::Latin => LATIN,
    };
    let mut o = format!("{COMMON}{theme}");
    if theme == CJK {
        o.push_str(NOTATION);
        notation_steps(look.vertical(), &mut o);
    }
    code_css(look.code, &mut o);
    if look.vertical() {
        o.push_str(VERTICAL);
    }
    // Settings come after the theme so they override it. Their values were validated against
    // a CSS length/number/keyword grammar when the metadata was read.
    if let Some(v) = &style.indent {
        let _ = writeln!(o, "p {{ text-indent: {v}; }}");
    }
    if let Some(v) = &style.paragraph_spacing {
        // The gap goes before each paragraph: above it, or to its right in vertical text.
        let side = if look.vertical() { "right" } else { "top" };
        let _ = writeln!(o, "p {{ margin: 0; margin-{side}: {v}; }}");
    }
    if let Some(v) = &style.line_height {
        let _ = writeln!(o, "body {{ line-height: {v}; }}");
    }
    if let Some(v) = &style.heading_align {
        let _ = writeln!(o, "h1, h2, h3, h4, h5, h6 {{ text-align: {v}; }}");
    }
    let families: Vec<String> = look
        .fonts
        .iter()
        .map(|f| format!("\"{}\"", f.family.replace(['"', '\\', '\n'], "")))
        .collect();
    for (i, font) in look.fonts.iter().enumerate() {
        if let Some(name) = look.font_name(i) {
            o.push_str(&crate::media::fonts::font_face_css(
                font,
                &format!("../fonts/{name}"),
            ));
        }
    }
    if !families.is_empty() {
        let _ = writeln!(o, "body {{ font-family: {}, serif; }}", families.join(", "));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{Layout, WritingMode};

    #[test]
    fn language_picks_the_theme_and_settings_override_it() {
        assert!(default_css("zh-CN").contains("text-indent: 2em"));
        assert!(default_css("en").contains("hyphens: auto"));
        let mut look = Look::default();
        look.style.theme = Some(Theme::Latin);
        look.style.indent = Some("0".into());
        look.style.line_height = Some("2".into());
        let css = stylesheet("zh-CN", &look);
        assert!(css.contains("hyphens: auto") && !css.contains("line-break: strict"));
        let indent_at = css.rfind("text-indent: 0;").unwrap();
        assert!(indent_at > css.find("text-indent: 1.5em").unwrap());
        assert!(css.contains("body { line-height: 2; }"));
    }

    #[test]
    fn code_rules_only_with_code_and_colours_only_for_classes_used() {
        assert!(!default_css("en").contains("pre-wrap"));
        let look = Look {
            code: crate::book::CodeUse {
                any: true,
                classes: 0b100_0001,
            },
            ..Look::default()
        };
        let css = stylesheet("en", &look);
        assert!(css.contains("white-space: pre-wrap") && css.contains("overflow-wrap: break-word"));
        assert!(css.contains("span.hl-c { color:") && css.contains("span.hl-k { color:"));
        assert!(!css.contains("hl-s") && !css.contains("hl-f"), "{css}");
        assert!(css.contains("@media (prefers-color-scheme: dark)"));
    }

    #[test]
    fn notation_classes_are_styled_for_cjk_books_in_their_writing_mode() {
        let css = default_css("ja");
        assert!(css.contains("em.sesame_dot { -epub-text-emphasis-style: filled sesame;"));
        assert!(css.contains(".jisage_3 { margin-left: 3em; }"));
        assert!(css.contains("p.chitsuki_0 { text-align: right;"));
        assert!(!default_css("en").contains("sesame"));
        let look = Look {
            layout: Layout {
                writing_mode: WritingMode::VerticalRl,
                ..Layout::default()
            },
            ..Look::default()
        };
        let css = stylesheet("ja", &look);
        assert!(css.contains(".jisage_3 { margin-top: 3em; }"), "{css}");
        assert!(css.contains("margin-bottom: 2em; }"));
    }

    #[test]
    fn vertical_writing_sets_all_three_properties_and_tcy() {
        let look = Look {
            layout: Layout {
                writing_mode: WritingMode::VerticalRl,
                ..Layout::default()
            },
            ..Look::default()
        };
        let css = stylesheet("ja", &look);
        for needle in [
            "writing-mode: vertical-rl",
            "-epub-writing-mode: vertical-rl",
            "-webkit-writing-mode: vertical-rl",
            "text-combine-upright: all",
            "-epub-text-combine: horizontal",
            "-webkit-text-combine: horizontal",
        ] {
            assert!(css.contains(needle), "{needle}");
        }
        assert!(!default_css("ja").contains("vertical-rl"));
    }
}
