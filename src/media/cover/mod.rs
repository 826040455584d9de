//! A typographic cover for books that have no cover image.
//!
//! The packager calls [`generate_cover`] when metadata names no cover, and stores the PNG as the
//! cover image. The design is calm and fixed: a deep background with a soft vertical gradient,
//! a thin double frame, the title large in the upper two thirds (wrapped per character for CJK,
//! per word for Latin, lines balanced), an optional subtitle, a short rule with a diamond, and the
//! authors below. With `vertical`, the title is set top to bottom in columns from the right, as
//! on a Japanese or traditional Chinese book, using the font's vertical glyph forms (`vert`).
//! The palette is picked from the title, so different books look different but a book always
//! gets the same cover.
//!
//! Without a font (or with one that has none of the title's characters) the cover is drawn
//! without text: it never fails. [`find_system_cjk_font`] looks for a CJK font to use.

mod canvas;
mod font_search;
mod typeset;
mod wrap;

use canvas::{Canvas, Palette};
pub use font_search::{find_system_cjk_font, find_system_cjk_font_remembered};
use typeset::{Placed, Typesetter, VERTICAL_ADVANCE};
use wrap::{fit, is_cjk, join_authors};

/// Width of a generated cover in pixels.
pub const COVER_WIDTH: u32 = 1600;
/// Height of a generated cover in pixels (1:1.6, what stores ask for).
pub const COVER_HEIGHT: u32 = 2560;

/// The words on a generated cover.
#[derive(Debug, Clone)]
pub struct CoverText<'a> {
    /// Book title.
    pub title: &'a str,
    /// Subtitle, set smaller below (or beside, when vertical) the title.
    pub subtitle: Option<&'a str>,
    /// Authors in display order.
    pub authors: &'a [String],
    /// Set the title top to bottom (vertical CJK) instead of left to right.
    pub vertical: bool,
}

/// Draws a 1600x2560 PNG cover for `text` with `font` (TTF/OTF, or a TTC/OTC collection whose
/// face is picked for the text's language). Same input, same bytes. Never fails: without a
/// usable font the cover has no text.
pub fn generate_cover(text: &CoverText<'_>, font: Option<&[u8]>) -> Vec<u8> {
    let palette = Palette::for_title(text.title);
    let mut canvas = Canvas::new(&palette);
    canvas.frame(&palette);

    // Longer texts would not fit legibly anyway, and line fitting is quadratic in length.
    let (title, subtitle) = (clip(text.title, 120), text.subtitle.map(|s| clip(s, 160)));
    let authors: Vec<String> = text.authors.iter().take(12).map(|a| clip(a, 80)).collect();
    let text = &CoverText {
        title: &title,
        subtitle: subtitle.as_deref(),
        authors: &authors,
        vertical: text.vertical,
    };
    let setter = font.and_then(|bytes| Typesetter::new(bytes, text));
    let drew_text = match &setter {
        Some(setter) if text.vertical => vertical_layout(&mut canvas, setter, text, &palette),
        Some(setter) => horizontal_layout(&mut canvas, setter, text, &palette),
        None => false,
    };
    if !drew_text {
        canvas.blank_plate(&palette);
    }
    canvas.encode()
}

/// `s` cut to at most `max` characters, with an ellipsis when cut.
fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

const MARGIN_X: f32 = 230.0;
const TITLE_TOP: f32 = 380.0;
const TITLE_BOTTOM: f32 = 1780.0;
const RULE_Y: f32 = 1930.0;
const AUTHORS_CENTER_Y: f32 = 2150.0;

/// Moves `glyphs` so their ink is centered on (cx, cy) and draws them; returns the ink height.
fn draw_centered(
    canvas: &mut Canvas,
    setter: &Typesetter<'_>,
    glyphs: &[Placed],
    cx: f32,
    cy: f32,
) -> bool {
    let Some((x0, y0, x1, y1)) = setter.ink_bounds(glyphs) else {
        return false;
    };
    let dx = (cx - (x0 + x1) / 2.0).round();
    let dy = (cy - (y0 + y1) / 2.0).round();
    canvas.draw(setter, glyphs, dx, dy);
    true
}

fn horizontal_layout(
    canvas: &mut Canvas,
    setter: &Typesetter<'_>,
    text: &CoverText<'_>,
    palette: &Palette,
) -> bool {
    let width = COVER_WIDTH as f32 - 2.0 * MARGIN_X;
    let measure = |s: &str, em: f32| setter.line_width(s, em);
    let center_x = COVER_WIDTH as f32 / 2.0;

    let mut block: Vec<Placed> = Vec::new();
    if setter.has_any_glyph(text.title) {
        let latin = !text.title.chars().any(is_cjk);
        let (em, lines) = fit(text.title.trim(), 200.0, 72.0, width, 4, &measure);
        let leading = if latin { 1.18 } else { 1.3 };
        block = setter.set_lines(&lines, em, leading, palette.text);
        if let Some(sub) = text.subtitle.filter(|s| setter.has_any_glyph(s)) {
            let sub_em = (em * 0.36).clamp(44.0, 76.0);
            let (sub_em, sub_lines) = fit(sub.trim(), sub_em, 36.0, width, 3, &measure);
            let offset = (lines.len() as f32 - 1.0) * em * leading + em * 0.5 + sub_em * 1.5;
            block.extend(
                setter
                    .set_lines(&sub_lines, sub_em, 1.4, palette.accent)
                    .into_iter()
                    .map(|p| Placed {
                        y: p.y + offset,
                        ..p
                    }),
            );
        }
    }
    let title_center = (TITLE_TOP + TITLE_BOTTOM) / 2.0;
    let drew_title = draw_centered(canvas, setter, &block, center_x, title_center);

    let authors = join_authors(text.authors);
    let mut drew_authors = false;
    if setter.has_any_glyph(&authors) {
        let (em, lines) = fit(&authors, 72.0, 40.0, width, 3, &measure);
        let placed = setter.set_lines(&lines, em, 1.45, palette.text);
        drew_authors = draw_centered(canvas, setter, &placed, center_x, AUTHORS_CENTER_Y);
    }
    if drew_title || drew_authors {
        canvas.ornament_rule(RULE_Y, 150.0, palette);
    }
    drew_title || drew_authors
}

fn vertical_layout(
    canvas: &mut Canvas,
    setter: &Typesetter<'_>,
    text: &CoverText<'_>,
    palette: &Palette,
) -> bool {
    let top = 330.0;
    let bottom = 2230.0;
    let column_measure = |s: &str, em: f32| {
        s.chars().filter(|c| setter.glyph(*c).is_some()).count() as f32 * em * VERTICAL_ADVANCE
    };
    let right = COVER_WIDTH as f32 - 360.0;

    let mut drew = false;
    let mut next_x = right;
    if setter.has_any_glyph(text.title) {
        let (em, columns) = fit(text.title.trim(), 210.0, 90.0, 1500.0, 3, &column_measure);
        let pitch = 1.35;
        let placed = setter.set_columns(&columns, em, pitch, palette.text);
        if let Some((x0, y0, x1, _)) = setter.ink_bounds(&placed) {
            // Right edge of the title on the right axis, top of the ink at `top`.
            let dx = (right + em / 2.0 - x1).round();
            let dy = (top - y0).round();
            canvas.draw(setter, &placed, dx, dy);
            drew = true;
            next_x = x0 + dx - em * 0.55;
        }
        if let Some(sub) = text.subtitle.filter(|s| setter.has_any_glyph(s)) {
            let sub_em = (em * 0.34).clamp(48.0, 80.0);
            let (sub_em, columns) = fit(sub.trim(), sub_em, 36.0, 1500.0 - em, 2, &column_measure);
            let placed = setter.set_columns(&columns, sub_em, 1.5, palette.accent);
            if let Some((_, y0, x1, _)) = setter.ink_bounds(&placed) {
                let dx = (next_x - sub_em * 0.4 - x1).round();
                let dy = (top + em * 1.2 - y0).round();
                canvas.draw(setter, &placed, dx, dy);
                next_x -= sub_em * 1.6 * columns.len() as f32;
            }
        }
    }

    let authors = join_authors(text.authors);
    if setter.has_any_glyph(&authors) {
        let (em, columns) = fit(&authors, 76.0, 40.0, 900.0, 3, &column_measure);
        let placed = setter.set_columns(&columns, em, 1.5, palette.text);
        if let Some((x0, _, x1, y1)) = setter.ink_bounds(&placed) {
            // Bottom-aligned just left of the title, like a signature under a scroll's text.
            let target_right = (next_x - em * 0.8).max(MARGIN_X + (x1 - x0));
            let dx = (target_right - x1).round();
            let dy = (bottom - y1).round();
            canvas.draw(setter, &placed, dx, dy);
            drew = true;
        }
    }
    drew
}

#[cfg(test)]
mod tests;
