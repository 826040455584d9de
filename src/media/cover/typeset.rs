//! Setting the cover's words in a font: glyphs placed in lines or in vertical columns, and
//! the ink they cover.

use std::collections::{BTreeMap, BTreeSet};

use ab_glyph::{Font, FontRef, GlyphId, PxScale, point};

use super::super::fonts::{choose_face, face_count, vertical_substitutions};
use super::CoverText;

/// A glyph at a pen position (baseline origin), before the block is moved into place.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placed {
    pub(super) id: GlyphId,
    pub(super) em: f32,
    pub(super) x: f32,
    pub(super) y: f32,
    pub(super) color: [u8; 3],
}

/// A font face ready to set text, with its vertical substitutions.
pub(super) struct Typesetter<'f> {
    pub(super) font: FontRef<'f>,
    upem: f32,
    vert: BTreeMap<u16, u16>,
}

impl<'f> Typesetter<'f> {
    pub(super) fn new(bytes: &'f [u8], text: &CoverText<'_>) -> Option<Typesetter<'f>> {
        let sample: String = std::iter::once(text.title)
            .chain(text.subtitle)
            .chain(text.authors.iter().map(String::as_str))
            .collect();
        // A collection's header is checked before the parsers believe it (ttf-parser panics
        // on one claiming billions of faces).
        face_count(bytes).ok()?;
        let index = choose_face(bytes, &sample);
        let font = FontRef::try_from_slice_and_index(bytes, index).ok()?;
        let upem = font.units_per_em().filter(|u| *u > 0.0)?;
        let mut vert = BTreeMap::new();
        if text.vertical
            && let Ok(face) = ttf_parser::Face::parse(bytes, index)
        {
            let glyphs: BTreeSet<u16> = sample
                .chars()
                .filter_map(|c| face.glyph_index(c).map(|g| g.0))
                .collect();
            vert = vertical_substitutions(&face, &glyphs);
        }
        Some(Typesetter { font, upem, vert })
    }

    /// ab_glyph scales by ascent-to-descent height; book typography thinks in ems.
    pub(super) fn px_scale(&self, em: f32) -> PxScale {
        PxScale::from(em * self.font.height_unscaled() / self.upem)
    }

    /// The glyph for `c`, or None if the font lacks it (such characters are left out rather
    /// than drawn as boxes).
    pub(super) fn glyph(&self, c: char) -> Option<GlyphId> {
        let id = self.font.glyph_id(c);
        (id.0 != 0).then_some(id)
    }

    pub(super) fn advance(&self, id: GlyphId, em: f32) -> f32 {
        self.font.h_advance_unscaled(id) * em / self.upem
    }

    pub(super) fn line_width(&self, line: &str, em: f32) -> f32 {
        let mut width = 0.0;
        let mut prev: Option<GlyphId> = None;
        for id in line.chars().filter_map(|c| self.glyph(c)) {
            if let Some(p) = prev {
                width += self.font.kern_unscaled(p, id) * em / self.upem;
            }
            width += self.advance(id, em);
            prev = Some(id);
        }
        width
    }

    pub(super) fn has_any_glyph(&self, s: &str) -> bool {
        s.chars()
            .any(|c| !c.is_whitespace() && self.glyph(c).is_some())
    }

    /// Lines centered on x = 0, first baseline at y = 0.
    pub(super) fn set_lines(
        &self,
        lines: &[String],
        em: f32,
        leading: f32,
        color: [u8; 3],
    ) -> Vec<Placed> {
        let mut placed = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let mut x = -self.line_width(line, em) / 2.0;
            let y = i as f32 * em * leading;
            let mut prev: Option<GlyphId> = None;
            for id in line.chars().filter_map(|c| self.glyph(c)) {
                if let Some(p) = prev {
                    x += self.font.kern_unscaled(p, id) * em / self.upem;
                }
                placed.push(Placed {
                    id,
                    em,
                    x,
                    y,
                    color,
                });
                x += self.advance(id, em);
                prev = Some(id);
            }
        }
        placed
    }

    /// Columns from x = 0 leftwards, top of the first character cell at y = 0; each column is
    /// `pitch * em` apart, characters advance by one em and a little.
    pub(super) fn set_columns(
        &self,
        columns: &[String],
        em: f32,
        pitch: f32,
        color: [u8; 3],
    ) -> Vec<Placed> {
        let mut placed = Vec::new();
        for (i, column) in columns.iter().enumerate() {
            let center = -(i as f32) * em * pitch;
            let mut top = 0.0;
            for c in column.chars() {
                let Some(id) = self.glyph(c) else { continue };
                let id = self.vert.get(&id.0).map_or(id, |&v| GlyphId(v));
                placed.push(Placed {
                    id,
                    em,
                    x: center - self.advance(id, em) / 2.0,
                    // The ideographic em box sits 0.88 em above the baseline in CJK fonts.
                    y: top + em * 0.88,
                    color,
                });
                top += em * VERTICAL_ADVANCE;
            }
        }
        placed
    }

    /// Ink bounds (min x, min y, max x, max y) of placed glyphs.
    pub(super) fn ink_bounds(&self, glyphs: &[Placed]) -> Option<(f32, f32, f32, f32)> {
        glyphs
            .iter()
            .filter_map(|g| {
                let glyph =
                    g.id.with_scale_and_position(self.px_scale(g.em), point(g.x, g.y));
                self.font.outline_glyph(glyph).map(|o| o.px_bounds())
            })
            .fold(None, |acc, r| {
                let (x0, y0, x1, y1) = acc.unwrap_or((r.min.x, r.min.y, r.max.x, r.max.y));
                Some((
                    x0.min(r.min.x),
                    y0.min(r.min.y),
                    x1.max(r.max.x),
                    y1.max(r.max.y),
                ))
            })
    }
}

pub(super) const VERTICAL_ADVANCE: f32 = 1.04;
