//! The `[style]` and `[layout]` sections of `metadata.toml` and `[output] epub-version`: how the
//! book looks, as written (raw) and validated.
//!
//! Part of the project stage. Every value that ends up in CSS is checked against a small
//! grammar (a length, a number or a keyword), so nothing a user writes can break out of its
//! declaration; an invalid value is an error naming the key and its line.

use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

use super::context::Ctx;
use crate::book::{
    DEFAULT_SPLIT_KB, DEFAULT_TOC_DEPTH, EpubVersion, FontSource, Layout, Style, Theme,
    TitleFormat, WritingMode,
};
use crate::error::Result;

/// `[style]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawStyle {
    theme: Option<Spanned<String>>,
    #[serde(default)]
    css: Vec<Spanned<String>>,
    #[serde(default)]
    fonts: Vec<Spanned<RawFont>>,
    indent: Option<Spanned<String>>,
    paragraph_spacing: Option<Spanned<String>>,
    line_height: Option<Spanned<toml::Value>>,
    heading_align: Option<Spanned<String>>,
    highlight: Option<bool>,
}

/// One `fonts` entry: a path, or `{ file = "...", face = 2 }` for a collection.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawFont {
    Path(String),
    Full(FullFont),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct FullFont {
    file: String,
    face: Option<u32>,
}

/// `[layout]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawLayout {
    writing_mode: Option<Spanned<String>>,
    generated_cover: Option<bool>,
    title_page: Option<bool>,
    toc_page: Option<bool>,
    toc_page_before: Option<Spanned<i64>>,
    toc_page_title: Option<String>,
    colophon: Option<bool>,
    split_size: Option<Spanned<i64>>,
    toc_depth: Option<Spanned<i64>>,
    title_format: Option<Spanned<String>>,
}

/// `[layout] title-format` without control characters; an error when it had text and none is
/// left.
fn title_format(f: &Spanned<String>, ctx: &Ctx) -> Result<String> {
    use super::values::{self, Lines};
    let cleaned = values::clean(f.get_ref(), Lines::One);
    if cleaned.is_empty() && !f.get_ref().trim().is_empty() {
        return Err(ctx.error_hinted(
            f.span().start,
            values::nothing_left("[layout] title-format"),
            values::NOTHING_LEFT_HINT,
        ));
    }
    Ok(cleaned)
}

/// Validates `[style]`.
pub(super) fn validate_style(raw: RawStyle, ctx: &Ctx) -> Result<Style> {
    Ok(Style {
        theme: raw.theme.map(|t| theme(t, ctx)).transpose()?,
        css: stylesheets(raw.css, ctx)?,
        fonts: fonts(raw.fonts, ctx)?,
        indent: length(raw.indent, "indent", ctx)?,
        paragraph_spacing: length(raw.paragraph_spacing, "paragraph-spacing", ctx)?,
        line_height: raw.line_height.map(|v| line_height(v, ctx)).transpose()?,
        heading_align: raw
            .heading_align
            .map(|v| heading_align(v, ctx))
            .transpose()?,
        highlight: raw.highlight.unwrap_or(true),
    })
}

/// `[style] theme`: one of the built-in themes.
fn theme(t: Spanned<String>, ctx: &Ctx) -> Result<Theme> {
    match t.get_ref().trim() {
        "cjk" => Ok(Theme::Cjk),
        "latin" => Ok(Theme::Latin),
        other => Err(ctx.error_at(
            t.span().start,
            format!("`[style] theme` = \"{other}\" is not one of \"cjk\", \"latin\""),
        )),
    }
}

/// `[style] css`: `.css` files inside the project (the containment check of every input).
fn stylesheets(raw: Vec<Spanned<String>>, ctx: &Ctx) -> Result<Vec<PathBuf>> {
    let mut css = Vec::with_capacity(raw.len());
    for c in raw {
        let (p, _) = ctx.input_file("`[style] css`", c.get_ref(), c.span().start)?;
        if !super::has_extension(&p, &["css"]) {
            return Err(ctx.error_at(
                c.span().start,
                format!(
                    "`[style] css`: {} is not a .css file",
                    crate::escape::path(&p)
                ),
            ));
        }
        css.push(p);
    }
    Ok(css)
}

/// `[style] fonts`: font files inside the project, with the face of a collection.
fn fonts(raw: Vec<Spanned<RawFont>>, ctx: &Ctx) -> Result<Vec<FontSource>> {
    let mut fonts = Vec::with_capacity(raw.len());
    for f in raw {
        let offset = f.span().start;
        let (file, face) = match f.into_inner() {
            RawFont::Path(p) => (p, None),
            RawFont::Full(full) => (full.file, full.face),
        };
        let (path, _) = ctx.input_file("`[style] fonts`", &file, offset)?;
        fonts.push(FontSource {
            path,
            face,
            line: ctx.line_of(offset),
        });
    }
    Ok(fonts)
}

/// A `[style]` value that must be a CSS length (`indent`, `paragraph-spacing`).
fn length(v: Option<Spanned<String>>, key: &str, ctx: &Ctx) -> Result<Option<String>> {
    let Some(v) = v else {
        return Ok(None);
    };
    let s = v.get_ref().trim();
    if is_css_length(s) {
        return Ok(Some(s.to_string()));
    }
    Err(ctx.error_hinted(
        v.span().start,
        format!("`[style] {key}` = \"{s}\" is not a CSS length"),
        "write e.g. \"2em\", \"0.5em\", \"12px\" or \"0\"",
    ))
}

/// `[style] line-height`: `normal`, a CSS number or a length (a TOML number is taken too).
fn line_height(v: Spanned<toml::Value>, ctx: &Ctx) -> Result<String> {
    let s = match v.get_ref() {
        toml::Value::String(s) => s.trim().to_string(),
        toml::Value::Float(f) if f.is_finite() && *f > 0.0 => f.to_string(),
        toml::Value::Integer(i) if *i > 0 => i.to_string(),
        _ => String::new(),
    };
    if s == "normal" || is_css_number(&s) || is_css_length(&s) {
        return Ok(s);
    }
    Err(ctx.error_hinted(
        v.span().start,
        format!("`[style] line-height` = \"{s}\" is not a CSS number or length"),
        "write e.g. \"1.8\" or \"1.5em\"",
    ))
}

/// `[style] heading-align`: a CSS `text-align` keyword.
fn heading_align(v: Spanned<String>, ctx: &Ctx) -> Result<String> {
    const ALIGN: [&str; 6] = ["left", "center", "right", "start", "end", "justify"];
    let s = v.get_ref().trim();
    if ALIGN.contains(&s) {
        return Ok(s.to_string());
    }
    Err(ctx.error_at(
        v.span().start,
        format!("`[style] heading-align` = \"{s}\" is not one of \"left\", \"center\", \"right\", \"start\", \"end\", \"justify\""),
    ))
}

/// Validates `[layout]`.
pub(super) fn validate_layout(raw: RawLayout, ctx: &Ctx) -> Result<Layout> {
    let defaults = Layout::default();
    let writing_mode = match raw.writing_mode {
        None => WritingMode::HorizontalTb,
        Some(m) => match m.get_ref().trim() {
            "horizontal-tb" | "horizontal" => WritingMode::HorizontalTb,
            "vertical-rl" | "vertical" => WritingMode::VerticalRl,
            other => {
                return Err(ctx.error_at(
                    m.span().start,
                    format!("`[layout] writing-mode` = \"{other}\" is not one of \"horizontal-tb\", \"vertical-rl\""),
                ));
            }
        },
    };
    let split_size = match raw.split_size {
        None => defaults.split_size,
        Some(s) => {
            let kb = *s.get_ref();
            if !(10..=100_000).contains(&kb) {
                return Err(ctx.error_hinted(
                    s.span().start,
                    format!("`[layout] split-size` = {kb} is out of range"),
                    "a size in KB of XHTML between 10 and 100000, e.g. 300",
                ));
            }
            usize::try_from(kb).unwrap_or(DEFAULT_SPLIT_KB) * 1024
        }
    };
    let toc_depth = match raw.toc_depth {
        None => defaults.toc_depth,
        Some(d) => {
            let depth = *d.get_ref();
            if !(1..=6).contains(&depth) {
                return Err(ctx.error_hinted(
                    d.span().start,
                    format!("`[layout] toc-depth` = {depth} is out of range"),
                    "1 lists the chapters only, 2 also their sections, up to 6",
                ));
            }
            usize::try_from(depth).unwrap_or(DEFAULT_TOC_DEPTH)
        }
    };
    let title_format = match raw.title_format {
        None => None,
        // Cleaned as a title is ([`super::values`]): it makes the chapters' titles.
        Some(f) => Some(TitleFormat::parse(&title_format(&f, ctx)?).map_err(|e| {
            ctx.error_hinted(
                f.span().start,
                format!("`[layout] title-format` = {:?}: {e}", f.get_ref()),
                "e.g. \"第{n}章 {title}\" ({n:zh} for Chinese numerals)",
            )
        })?),
    };
    Ok(Layout {
        writing_mode,
        generated_cover: raw.generated_cover.unwrap_or(defaults.generated_cover),
        title_page: raw.title_page.unwrap_or(defaults.title_page),
        toc_page: raw.toc_page.unwrap_or(defaults.toc_page),
        toc_page_before: toc_page_before(raw.toc_page_before, ctx)?,
        toc_page_title: (raw.toc_page_title.as_deref())
            .map(|t| super::values::clean(t, super::values::Lines::One))
            .filter(|t| !t.is_empty()),
        colophon: raw.colophon.unwrap_or(defaults.colophon),
        split_size,
        toc_depth,
        title_format,
    })
}

/// `[layout] toc-page-before`: the number of the chapter the contents page comes before, 1
/// (the front) when not given.
fn toc_page_before(raw: Option<Spanned<i64>>, ctx: &Ctx) -> Result<usize> {
    let Some(n) = raw else {
        return Ok(Layout::default().toc_page_before);
    };
    match usize::try_from(*n.get_ref()) {
        Ok(before) if before >= 1 => Ok(before),
        _ => Err(ctx.error_hinted(
            n.span().start,
            format!(
                "`[layout] toc-page-before` = {} is out of range",
                n.get_ref()
            ),
            "the number of a chapter in reading order, 1 for the first",
        )),
    }
}

/// Validates `[output] epub-version`.
pub(super) fn validate_version(raw: Option<Spanned<i64>>, ctx: &Ctx) -> Result<EpubVersion> {
    match raw {
        None => Ok(EpubVersion::V3),
        Some(v) => match v.get_ref() {
            2 => Ok(EpubVersion::V2),
            3 => Ok(EpubVersion::V3),
            other => Err(ctx.error_at(
                v.span().start,
                format!("`[output] epub-version` = {other} is not 2 or 3"),
            )),
        },
    }
}

/// A plain CSS number: digits with an optional fraction, no sign, no exponent.
fn is_css_number(s: &str) -> bool {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    !(int.is_empty() && frac.is_empty())
        && int.chars().all(|c| c.is_ascii_digit())
        && frac.chars().all(|c| c.is_ascii_digit())
        && s.contains('.') != frac.is_empty()
}

/// A CSS length: `0`, or a non-negative number followed by a unit we know.
fn is_css_length(s: &str) -> bool {
    const UNITS: [&str; 12] = [
        "em", "rem", "ex", "ch", "px", "pt", "pc", "%", "vw", "vh", "mm", "cm",
    ];
    if s == "0" {
        return true;
    }
    UNITS.iter().any(|u| {
        s.strip_suffix(u)
            .is_some_and(|n| is_css_number(n) && !n.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn css_lengths_accept_units_and_reject_declarations() {
        for ok in ["0", "2em", "1.5em", "0.5rem", "12px", "10%", "1ch"] {
            assert!(is_css_length(ok), "{ok}");
        }
        for bad in [
            "",
            "em",
            "2",
            "2em;",
            "2em; color: red",
            "}body{",
            "-2em",
            "2 em",
            "2.em",
            "1e3px",
            "url(x)",
        ] {
            assert!(!is_css_length(bad), "{bad}");
        }
        assert!(is_css_number("1.8") && is_css_number("2") && !is_css_number("1.8;"));
    }

    fn parse_style(toml_text: &str) -> Result<Style> {
        #[derive(Deserialize)]
        struct Wrap {
            style: RawStyle,
        }
        let w: Wrap = toml::from_str(toml_text).unwrap();
        let root = Path::new(".");
        let boundary = super::super::Boundary::new(root, false);
        let ctx = Ctx::new(toml_text, root, Path::new("metadata.toml"), boundary);
        validate_style(w.style, &ctx)
    }

    #[test]
    fn injected_css_is_rejected_naming_key_and_line() {
        let err =
            parse_style("[style]\nindent = \"2em\"\nline-height = \"1.8; } body { color: red\"\n")
                .unwrap_err()
                .to_string();
        assert!(err.contains("metadata.toml:3:"), "{err}");
        assert!(err.contains("`[style] line-height`"), "{err}");
        let err = parse_style("[style]\nheading-align = \"center;\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(":2:") && err.contains("heading-align"),
            "{err}"
        );
    }

    #[test]
    fn valid_settings_are_kept_as_written() {
        let s = parse_style(
            "[style]\ntheme = \"latin\"\nindent = \"0\"\nparagraph-spacing = \"0.5em\"\nline-height = 1.6\nheading-align = \"left\"\n",
        )
        .unwrap();
        assert_eq!(s.theme, Some(Theme::Latin));
        assert_eq!(s.indent.as_deref(), Some("0"));
        assert_eq!(s.paragraph_spacing.as_deref(), Some("0.5em"));
        assert_eq!(s.line_height.as_deref(), Some("1.6"));
        assert_eq!(s.heading_align.as_deref(), Some("left"));
    }
}
