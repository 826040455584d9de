//! The cover's bitmap: its palette, background, frame, ornaments and glyph drawing, and the
//! PNG it is encoded to.

use ab_glyph::{Font, point};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbImage};

use super::typeset::{Placed, Typesetter};
use super::{COVER_HEIGHT, COVER_WIDTH};

/// Colors of one cover design.
pub(super) struct Palette {
    pub(super) background: [u8; 3],
    pub(super) accent: [u8; 3],
    pub(super) text: [u8; 3],
}

impl Palette {
    pub(super) fn for_title(title: &str) -> Palette {
        // Deep grounds with warm gold accents and ivory text; all keep contrast above 7:1.
        const PALETTES: [([u8; 3], [u8; 3], [u8; 3]); 5] = [
            ([24, 38, 62], [201, 169, 110], [243, 237, 224]), // midnight blue
            ([94, 30, 36], [218, 182, 124], [247, 239, 227]), // oxblood
            ([28, 60, 50], [204, 180, 124], [241, 237, 221]), // forest
            ([40, 40, 46], [194, 164, 114], [239, 235, 227]), // charcoal
            ([44, 46, 86], [206, 176, 126], [242, 238, 230]), // indigo
        ];
        // FNV-1a: stable across platforms and releases, unlike std's hasher.
        let hash = title.bytes().fold(0x811c_9dc5u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        });
        let (background, accent, text) = PALETTES[(hash % PALETTES.len() as u32) as usize];
        Palette {
            background,
            accent,
            text,
        }
    }
}

/// The cover bitmap with the drawing operations the design needs.
pub(super) struct Canvas {
    img: RgbImage,
}

impl Canvas {
    pub(super) fn new(palette: &Palette) -> Canvas {
        let [r, g, b] = palette.background;
        // Slightly lighter at the top, darker at the foot, like light falling on cloth.
        // The shade only changes down the page: work out each row's color once and repeat it.
        let width = COVER_WIDTH as usize;
        let mut raw = Vec::with_capacity(width * 3 * COVER_HEIGHT as usize);
        let mut row = vec![0u8; width * 3];
        for y in 0..COVER_HEIGHT {
            let t = y as f32 / COVER_HEIGHT as f32;
            let k = 1.10 - 0.25 * t;
            let c = |v: u8| (f32::from(v) * k).round().clamp(0.0, 255.0) as u8;
            let color = [c(r), c(g), c(b)];
            if row[..3] != color || y == 0 {
                for px in row.chunks_exact_mut(3) {
                    px.copy_from_slice(&color);
                }
            }
            raw.extend_from_slice(&row);
        }
        let img = RgbImage::from_raw(COVER_WIDTH, COVER_HEIGHT, raw)
            .expect("the buffer is sized for the cover");
        Canvas { img }
    }

    pub(super) fn blend(&mut self, x: i64, y: i64, color: [u8; 3], coverage: f32) {
        let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else {
            return;
        };
        let Some(px) = self.img.get_pixel_mut_checked(x, y) else {
            return;
        };
        let a = coverage.clamp(0.0, 1.0);
        for (dst, src) in px.0.iter_mut().zip(color) {
            *dst = (f32::from(*dst) * (1.0 - a) + f32::from(src) * a).round() as u8;
        }
    }

    pub(super) fn fill_rect(
        &mut self,
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
        color: [u8; 3],
        alpha: f32,
    ) {
        for y in y0.max(0)..y1.min(i64::from(COVER_HEIGHT)) {
            for x in x0.max(0)..x1.min(i64::from(COVER_WIDTH)) {
                self.blend(x, y, color, alpha);
            }
        }
    }

    pub(super) fn stroke_rect(&mut self, inset: i64, width: i64, color: [u8; 3], alpha: f32) {
        let (w, h) = (i64::from(COVER_WIDTH), i64::from(COVER_HEIGHT));
        self.fill_rect(inset, inset, w - inset, inset + width, color, alpha);
        self.fill_rect(inset, h - inset - width, w - inset, h - inset, color, alpha);
        self.fill_rect(
            inset,
            inset + width,
            inset + width,
            h - inset - width,
            color,
            alpha,
        );
        self.fill_rect(
            w - inset - width,
            inset + width,
            w - inset,
            h - inset - width,
            color,
            alpha,
        );
    }

    /// An anti-aliased diamond (a square on its corner) of half-diagonal `r`.
    pub(super) fn diamond(&mut self, cx: f32, cy: f32, r: f32, color: [u8; 3]) {
        let reach = r.ceil() as i64 + 1;
        let (ix, iy) = (cx.round() as i64, cy.round() as i64);
        for y in iy - reach..=iy + reach {
            for x in ix - reach..=ix + reach {
                let d = (x as f32 + 0.5 - cx).abs() + (y as f32 + 0.5 - cy).abs();
                let coverage = (r - d + 0.5).clamp(0.0, 1.0);
                if coverage > 0.0 {
                    self.blend(x, y, color, coverage);
                }
            }
        }
    }

    /// A centered horizontal rule with a diamond in the middle.
    pub(super) fn ornament_rule(&mut self, cy: f32, half_width: f32, palette: &Palette) {
        let cx = COVER_WIDTH as f32 / 2.0;
        let y = cy.round() as i64;
        let gap = 26.0;
        self.fill_rect(
            (cx - half_width) as i64,
            y - 1,
            (cx - gap) as i64,
            y + 2,
            palette.accent,
            1.0,
        );
        self.fill_rect(
            (cx + gap) as i64,
            y - 1,
            (cx + half_width) as i64,
            y + 2,
            palette.accent,
            1.0,
        );
        self.diamond(cx, cy + 0.5, 12.0, palette.accent);
    }

    pub(super) fn frame(&mut self, palette: &Palette) {
        self.stroke_rect(64, 4, palette.accent, 0.9);
        self.stroke_rect(82, 1, palette.accent, 0.6);
    }

    /// The design's fallback when no text can be set: an empty title plate between two
    /// ornaments, so the cover still looks intentional.
    pub(super) fn blank_plate(&mut self, palette: &Palette) {
        let (w, h) = (i64::from(COVER_WIDTH), i64::from(COVER_HEIGHT));
        self.fill_rect(260, 820, w - 260, 1420, [0, 0, 0], 0.18);
        self.fill_rect(260, 820, w - 260, 823, palette.accent, 0.9);
        self.fill_rect(260, 1417, w - 260, 1420, palette.accent, 0.9);
        self.ornament_rule(700.0, 300.0, palette);
        self.ornament_rule(1540.0, 300.0, palette);
        self.diamond(w as f32 / 2.0, (h - 420) as f32, 18.0, palette.accent);
    }

    pub(super) fn draw(&mut self, setter: &Typesetter<'_>, glyphs: &[Placed], dx: f32, dy: f32) {
        for g in glyphs {
            let glyph =
                g.id.with_scale_and_position(setter.px_scale(g.em), point(g.x + dx, g.y + dy));
            let Some(outline) = setter.font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            let (ox, oy) = (bounds.min.x as i64, bounds.min.y as i64);
            outline.draw(|x, y, coverage| {
                self.blend(ox + i64::from(x), oy + i64::from(y), g.color, coverage);
            });
        }
    }

    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let written =
            PngEncoder::new_with_quality(&mut out, CompressionType::Default, FilterType::Adaptive)
                .write_image(
                    self.img.as_raw(),
                    self.img.width(),
                    self.img.height(),
                    image::ExtendedColorType::Rgb8,
                );
        if written.is_err() {
            // Encoding an in-memory buffer whose size matches its dimensions does not fail; if
            // it ever did, an empty result is caught by the packager's `sniff` of the cover.
            out.clear();
        }
        out
    }
}
