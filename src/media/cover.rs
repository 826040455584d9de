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

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ab_glyph::{Font, FontRef, GlyphId, PxScale, point};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ImageEncoder, RgbImage};

use super::fonts::{choose_face, face_count, vertical_substitutions};

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

/// Finds a CJK font installed on this system: Noto CJK (Serif Bold first, it makes the best
/// titles), Source Han, WenQuanYi, then anything `fc-match` offers for Chinese if fontconfig is
/// installed. None when nothing is found.
pub fn find_system_cjk_font() -> Option<PathBuf> {
    find_cjk_font_in(&font_roots(), None, false, fc_match_cjk)
}

/// [`find_system_cjk_font`], remembered in the file `memo` (in the build cache) with the
/// modification time of every folder it searched. While none of them changed, no font was
/// added to or removed from them, and the answer is taken from `memo` instead of walking the
/// folders again: a desktop's font folders hold thousands of files, and without a font named
/// like a CJK one `fc-match` runs too, which every rebuild with a generated cover paid for.
/// A font installed outside these folders (where only `fc-match` finds it) is seen once the
/// cache is deleted, or with `search_again` (a clean build), which ignores the memo and
/// remembers the new answer.
pub fn find_system_cjk_font_remembered(memo: &Path, search_again: bool) -> Option<PathBuf> {
    find_cjk_font_in(&font_roots(), Some(memo), search_again, fc_match_cjk)
}

/// The folders searched for fonts, in order.
fn font_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = vec![
        PathBuf::from("/usr/share/fonts"),
        PathBuf::from("/usr/local/share/fonts"),
        PathBuf::from("/System/Library/Fonts"),
        PathBuf::from("/Library/Fonts"),
    ];
    if let Some(home) = std::env::var_os("HOME") {
        let home = PathBuf::from(home);
        roots.push(home.join(".local/share/fonts"));
        roots.push(home.join(".fonts"));
    }
    roots
}

/// The modification time of a folder, as remembered (None when it does not exist).
fn folder_time(dir: &Path) -> Option<i128> {
    let modified = std::fs::metadata(dir).and_then(|m| m.modified()).ok()?;
    Some(crate::project::nanos(modified))
}

/// The memo of [`find_cjk_font_in`], serde data: the font found (None: none), and the time of
/// every root (present or not) and every folder walked.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct FontMemo {
    /// [`FONT_MEMO_VERSION`]: a memo of any other version is searched again.
    version: u32,
    font: Option<PathBuf>,
    dirs: Vec<(Option<i128>, PathBuf)>,
}

const FONT_MEMO_VERSION: u32 = 1;

impl FontMemo {
    /// The remembered answer, while it still holds: same roots, no searched folder changed,
    /// the font still there.
    fn answer(&self, roots: &[PathBuf]) -> Option<Option<PathBuf>> {
        let same_roots = roots.iter().all(|r| self.dirs.iter().any(|(_, d)| d == r));
        let unchanged = self.dirs.iter().all(|(t, d)| folder_time(d) == *t);
        let font_there = self.font.as_deref().is_none_or(Path::is_file);
        (self.version == FONT_MEMO_VERSION && same_roots && unchanged && font_there)
            .then(|| self.font.clone())
    }
}

/// The best CJK font under `roots` (else `fallback`'s), remembered in `memo` when given and
/// taken from it unless `search_again`.
fn find_cjk_font_in(
    roots: &[PathBuf],
    memo: Option<&Path>,
    search_again: bool,
    fallback: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    // The memo is in the build cache, which may have come with the project: read guarded.
    let remembered = memo
        .filter(|_| !search_again)
        .and_then(|m| crate::fs::read_limited(m, 1_000_000, "font memo").ok())
        .and_then(|bytes| serde_json::from_slice::<FontMemo>(&bytes).ok())
        .and_then(|m| m.answer(roots));
    if let Some(font) = remembered {
        return font;
    }
    let mut dirs: Vec<(Option<i128>, PathBuf)> = Vec::new();
    let mut best: Option<(u32, PathBuf)> = None;
    for root in roots {
        if !root.is_dir() {
            dirs.push((folder_time(root), root.clone()));
            continue;
        }
        for entry in walkdir::WalkDir::new(root)
            .max_depth(6)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            if entry.file_type().is_dir() {
                dirs.push((folder_time(entry.path()), entry.path().to_path_buf()));
                continue;
            }
            let Some(score) = cjk_font_score(entry.path()) else {
                continue;
            };
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, entry.path().to_path_buf()));
            }
        }
    }
    let found = best.map(|(_, p)| p).or_else(fallback);
    if let Some(memo) = memo {
        let remember = FontMemo {
            version: FONT_MEMO_VERSION,
            font: found.clone(),
            dirs,
        };
        // Written whole: a reader never sees half a list of folders.
        if let Ok(bytes) = serde_json::to_vec(&remember) {
            let _ = crate::interrupt::write_whole(memo, &bytes);
        }
    }
    found
}

/// Preference for a font file by its name; None if it does not look like a CJK font.
fn cjk_font_score(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let ext_ok = [".ttc", ".otc", ".otf", ".ttf"]
        .iter()
        .any(|e| name.ends_with(e));
    if !ext_ok {
        return None;
    }
    let family = if name.starts_with("noto") && name.contains("cjk") {
        40
    } else if name.starts_with("sourcehan") || name.starts_with("source-han") {
        35
    } else if name.starts_with("wqy") {
        20
    } else {
        return None;
    };
    let serif = if name.contains("serif") { 4 } else { 0 };
    let weight = if name.contains("-bold.") {
        3
    } else if name.contains("-regular.") {
        2
    } else if name.contains("medium") || name.contains("semibold") {
        1
    } else {
        0
    };
    // A collection carries every regional face; a single-region file may be the wrong one.
    let collection = if name.ends_with(".ttc") || name.ends_with(".otc") {
        1
    } else {
        0
    };
    Some(family * 100 + serif * 10 + weight * 2 + collection)
}

fn fc_match_cjk() -> Option<PathBuf> {
    let out = std::process::Command::new("fc-match")
        .args(["-f", "%{file}", ":lang=zh-cn"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // fc-match always answers something; only take it if it can set Chinese.
    let bytes = super::FontFile::open(&path).ok()?;
    face_count(&bytes).ok()?;
    let face = ttf_parser::Face::parse(&bytes, 0).ok()?;
    face.glyph_index('中').map(|_| path)
}

/// Colors of one cover design.
struct Palette {
    background: [u8; 3],
    accent: [u8; 3],
    text: [u8; 3],
}

impl Palette {
    fn for_title(title: &str) -> Palette {
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
struct Canvas {
    img: RgbImage,
}

impl Canvas {
    fn new(palette: &Palette) -> Canvas {
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

    fn blend(&mut self, x: i64, y: i64, color: [u8; 3], coverage: f32) {
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

    fn fill_rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, color: [u8; 3], alpha: f32) {
        for y in y0.max(0)..y1.min(i64::from(COVER_HEIGHT)) {
            for x in x0.max(0)..x1.min(i64::from(COVER_WIDTH)) {
                self.blend(x, y, color, alpha);
            }
        }
    }

    fn stroke_rect(&mut self, inset: i64, width: i64, color: [u8; 3], alpha: f32) {
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
    fn diamond(&mut self, cx: f32, cy: f32, r: f32, color: [u8; 3]) {
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
    fn ornament_rule(&mut self, cy: f32, half_width: f32, palette: &Palette) {
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

    fn frame(&mut self, palette: &Palette) {
        self.stroke_rect(64, 4, palette.accent, 0.9);
        self.stroke_rect(82, 1, palette.accent, 0.6);
    }

    /// The design's fallback when no text can be set: an empty title plate between two
    /// ornaments, so the cover still looks intentional.
    fn blank_plate(&mut self, palette: &Palette) {
        let (w, h) = (i64::from(COVER_WIDTH), i64::from(COVER_HEIGHT));
        self.fill_rect(260, 820, w - 260, 1420, [0, 0, 0], 0.18);
        self.fill_rect(260, 820, w - 260, 823, palette.accent, 0.9);
        self.fill_rect(260, 1417, w - 260, 1420, palette.accent, 0.9);
        self.ornament_rule(700.0, 300.0, palette);
        self.ornament_rule(1540.0, 300.0, palette);
        self.diamond(w as f32 / 2.0, (h - 420) as f32, 18.0, palette.accent);
    }

    fn draw(&mut self, setter: &Typesetter<'_>, glyphs: &[Placed], dx: f32, dy: f32) {
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

    fn encode(&self) -> Vec<u8> {
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

/// A glyph at a pen position (baseline origin), before the block is moved into place.
#[derive(Debug, Clone, Copy)]
struct Placed {
    id: GlyphId,
    em: f32,
    x: f32,
    y: f32,
    color: [u8; 3],
}

/// A font face ready to set text, with its vertical substitutions.
struct Typesetter<'f> {
    font: FontRef<'f>,
    upem: f32,
    vert: BTreeMap<u16, u16>,
}

impl<'f> Typesetter<'f> {
    fn new(bytes: &'f [u8], text: &CoverText<'_>) -> Option<Typesetter<'f>> {
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
    fn px_scale(&self, em: f32) -> PxScale {
        PxScale::from(em * self.font.height_unscaled() / self.upem)
    }

    /// The glyph for `c`, or None if the font lacks it (such characters are left out rather
    /// than drawn as boxes).
    fn glyph(&self, c: char) -> Option<GlyphId> {
        let id = self.font.glyph_id(c);
        (id.0 != 0).then_some(id)
    }

    fn advance(&self, id: GlyphId, em: f32) -> f32 {
        self.font.h_advance_unscaled(id) * em / self.upem
    }

    fn line_width(&self, line: &str, em: f32) -> f32 {
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

    fn has_any_glyph(&self, s: &str) -> bool {
        s.chars()
            .any(|c| !c.is_whitespace() && self.glyph(c).is_some())
    }

    /// Lines centered on x = 0, first baseline at y = 0.
    fn set_lines(&self, lines: &[String], em: f32, leading: f32, color: [u8; 3]) -> Vec<Placed> {
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
    fn set_columns(&self, columns: &[String], em: f32, pitch: f32, color: [u8; 3]) -> Vec<Placed> {
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
    fn ink_bounds(&self, glyphs: &[Placed]) -> Option<(f32, f32, f32, f32)> {
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

const VERTICAL_ADVANCE: f32 = 1.04;

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x2E80..=0x2FDF | 0x3000..=0x30FF | 0x3100..=0x312F
        | 0x3190..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
}

/// Characters that may not start a line (closing brackets, stops, small kana marks).
fn no_line_start(c: char) -> bool {
    "、。，．・：；？！ー」』）》〉】〕〗〙〟…‥—–-～々ゝゞヽヾぁぃぅぇぉっゃゅょァィゥェォッャュョ),.!?:;]}”’"
        .contains(c)
}

/// Characters that may not end a line (opening brackets).
fn no_line_end(c: char) -> bool {
    "「『（《〈【〔〖〘〝([{“‘".contains(c)
}

/// A Latin word may break after a hyphen or a slash ("Self-|Reliance", "Input/|Output").
fn breaks_after(previous: char, c: char) -> bool {
    matches!(previous, '-' | '/') && c.is_alphanumeric()
}

/// Break opportunities: one token per CJK character, one per Latin word (or part of a
/// hyphenated one), with kinsoku rules gluing punctuation to its neighbour. The flag says
/// whether a space precedes the token.
fn tokens(text: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut space = false;
    let mut glue_next = false;
    for c in text.chars() {
        if c.is_whitespace() && c != '\u{3000}' {
            space = !out.is_empty();
            glue_next = false;
            continue;
        }
        let joins_prev = !space
            && (glue_next
                || no_line_start(c)
                || out
                    .last()
                    .and_then(|(t, _)| t.chars().last())
                    .is_some_and(|p| {
                        !is_cjk(p) && !is_cjk(c) && !no_line_end(p) && !breaks_after(p, c)
                    }));
        match out.last_mut() {
            Some((t, _)) if joins_prev => t.push(c),
            _ => out.push((c.to_string(), space)),
        }
        glue_next = no_line_end(c);
        space = false;
    }
    out
}

/// Greedy line breaking of `tokens` into lines no longer than `max` (by `measure`); a token
/// longer than `max` on its own is split per character.
fn wrap(tokens: &[(String, bool)], max: f32, measure: &dyn Fn(&str) -> f32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for (token, space) in tokens {
        let candidate = if line.is_empty() {
            token.clone()
        } else if *space {
            format!("{line} {token}")
        } else {
            format!("{line}{token}")
        };
        if measure(&candidate) <= max || line.is_empty() && measure(token) <= max {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if measure(token) <= max {
            line = token.clone();
        } else {
            for c in token.chars() {
                let mut next = line.clone();
                next.push(c);
                if !line.is_empty() && measure(&next) > max {
                    lines.push(std::mem::take(&mut line));
                    next = c.to_string();
                }
                line = next;
            }
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Like [`wrap`], but with the same number of lines made as even as possible, so a title does
/// not end with one orphaned character.
fn wrap_balanced(
    tokens: &[(String, bool)],
    max: f32,
    measure: &dyn Fn(&str) -> f32,
) -> Vec<String> {
    let greedy = wrap(tokens, max, measure);
    if greedy.len() < 2 {
        return greedy;
    }
    let n = greedy.len();
    let total: f32 = greedy.iter().map(|l| measure(l)).sum();
    // Never narrower than the widest word: a narrower trial would break it in the middle.
    let mut width = (total / n as f32).max(widest(tokens, measure));
    while width < max {
        let trial = wrap(tokens, width, measure);
        if trial.len() <= n {
            return trial;
        }
        width += max * 0.02;
    }
    greedy
}

/// The smallest type a title, subtitle or author line is set in, whatever `fit` is asked for:
/// below it a word that still does not fit is broken (a 60-letter word, a URL).
const SMALLEST_EM: f32 = 28.0;

/// The widest single token, by `measure`.
fn widest(tokens: &[(String, bool)], measure: &dyn Fn(&str) -> f32) -> f32 {
    tokens.iter().map(|(t, _)| measure(t)).fold(0.0, f32::max)
}

/// The em size and lines for `text` in lines of `width`: fewer lines are preferred as long as
/// the size stays above 60% of `start` (a title reads better on one line at 150 px than on two
/// at 200), then sizes go down to `min` with up to `max_lines` lines. Below `min` the text is
/// set at `min` however many lines it takes. Lines break at spaces, after hyphens and between
/// CJK characters, never inside a word: the type starts no larger than the size at which the
/// longest word fits the width, and shrinks below `min` when it must (down to
/// [`SMALLEST_EM`]).
fn fit(
    text: &str,
    start: f32,
    min: f32,
    width: f32,
    max_lines: usize,
    measure: &dyn Fn(&str, f32) -> f32,
) -> (f32, Vec<String>) {
    let toks = tokens(text);
    // `measure` is linear in the size, so the size at which the widest word just fits is one
    // division away.
    let at_one = widest(&toks, &|s: &str| measure(s, 1.0));
    let word_fits = if at_one > 0.0 {
        width / at_one * 0.999
    } else {
        start
    };
    let start = start.min(word_fits).max(SMALLEST_EM.min(start));
    let min = min.min(start);
    let floor = (start * 0.6).max(min);
    for allowed in 1..=max_lines.max(1) {
        let last = allowed == max_lines.max(1);
        let mut em = start;
        loop {
            let m = |s: &str| measure(s, em);
            let lines = wrap_balanced(&toks, width, &m);
            let fits = lines.len() <= allowed && lines.iter().all(|l| m(l) <= width + 0.5);
            if fits || last && em <= min {
                return (em, lines);
            }
            let lowest = if last { min } else { floor };
            if em <= lowest {
                break;
            }
            em = (em * 0.92).max(lowest);
        }
    }
    (min, wrap(&toks, width, &|s: &str| measure(s, min)))
}

fn join_authors(authors: &[String]) -> String {
    let names: Vec<&str> = authors
        .iter()
        .map(|a| a.trim())
        .filter(|a| !a.is_empty())
        .collect();
    if names.iter().any(|n| n.chars().any(is_cjk)) {
        names.join("　")
    } else {
        match names.as_slice() {
            [] => String::new(),
            [one] => (*one).to_string(),
            [rest @ .., last] => format!("{} & {last}", rest.join(", ")),
        }
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
mod tests {
    use super::*;
    use std::time::Instant;

    const SERIF_BOLD: &str = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc";

    #[test]
    fn the_font_search_is_remembered_until_a_searched_folder_changes() {
        let dir = tempfile::tempdir().unwrap();
        let (fonts, missing) = (dir.path().join("fonts"), dir.path().join("none"));
        let memo = dir.path().join("cache/cover-font");
        std::fs::create_dir_all(fonts.join("noto")).unwrap();
        let sans = fonts.join("noto/NotoSansCJK-Regular.ttc");
        std::fs::write(&sans, b"").unwrap();
        let roots = [fonts.clone(), missing.clone()];
        let search_again = |calls: &std::cell::Cell<u32>, again: bool| {
            find_cjk_font_in(&roots, Some(&memo), again, || {
                calls.set(calls.get() + 1);
                None
            })
        };
        let search = |calls: &std::cell::Cell<u32>| search_again(calls, false);
        let calls = std::cell::Cell::new(0);
        assert_eq!(search(&calls), Some(sans.clone()));
        assert!(memo.is_file());

        // Remembered: a font named in the memo is taken without walking (a decoy proves it).
        let decoy = dir.path().join("decoy.ttc");
        std::fs::write(&decoy, b"").unwrap();
        let mut remembered: FontMemo =
            serde_json::from_slice(&std::fs::read(&memo).unwrap()).unwrap();
        remembered.font = Some(decoy.clone());
        std::fs::write(&memo, serde_json::to_vec(&remembered).unwrap()).unwrap();
        assert_eq!(search(&calls), Some(decoy.clone()));
        // A clean build searches again, and remembers what it found.
        assert_eq!(search_again(&calls, true), Some(sans.clone()));
        assert!(!std::fs::read_to_string(&memo).unwrap().contains("decoy"));

        // A better font in a new folder changes a searched folder: searched again. (Each
        // change waits out the file system's timestamp granularity first.)
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::create_dir_all(fonts.join("serif")).unwrap();
        let serif = fonts.join("serif/NotoSerifCJK-Bold.ttc");
        std::fs::write(&serif, b"").unwrap();
        assert_eq!(search(&calls), Some(serif.clone()));

        // A root that appears, and one that goes, are seen too; nothing found asks fc-match
        // (here a stub), and that answer is remembered as well.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::remove_dir_all(&fonts).unwrap();
        assert_eq!(search(&calls), None);
        assert_eq!(calls.get(), 1);
        assert_eq!(search(&calls), None);
        assert_eq!(calls.get(), 1, "an unchanged search was run again");
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::create_dir_all(&missing).unwrap();
        std::fs::write(missing.join("wqy-zenhei.ttc"), b"").unwrap();
        assert_eq!(search(&calls), Some(missing.join("wqy-zenhei.ttc")));

        // A damaged memo is searched again, never trusted.
        let other_version = format!(
            "{{\"version\":{},\"font\":null,\"dirs\":[]}}",
            FONT_MEMO_VERSION + 1
        );
        for damaged in ["{\"version\":1,\"font\":\"/nowhere\"", "", &other_version] {
            std::fs::write(&memo, damaged).unwrap();
            assert_eq!(search(&calls), Some(missing.join("wqy-zenhei.ttc")));
        }
    }

    fn system_font() -> Option<Vec<u8>> {
        let found = find_system_cjk_font();
        let path = found.as_deref().unwrap_or(Path::new(SERIF_BOLD));
        match std::fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(_) => {
                eprintln!("skipping: no CJK system font found");
                None
            }
        }
    }

    fn decode(png: &[u8]) -> RgbImage {
        image::load_from_memory_with_format(png, image::ImageFormat::Png)
            .expect("valid PNG")
            .to_rgb8()
    }

    /// Pixels far from the background color in a band: where text was drawn.
    fn ink_in(img: &RgbImage, x0: u32, y0: u32, x1: u32, y1: u32, text: [u8; 3]) -> usize {
        let mut n = 0;
        for y in y0..y1 {
            for x in x0..x1 {
                let p = img.get_pixel(x, y).0;
                let d: i32 = p
                    .iter()
                    .zip(text)
                    .map(|(a, b)| (i32::from(*a) - i32::from(b)).abs())
                    .sum();
                if d < 40 {
                    n += 1;
                }
            }
        }
        n
    }

    fn authors(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn cover_without_font_is_a_valid_deterministic_1600x2560_png() {
        let names = authors(&["Anon"]);
        let text = CoverText {
            title: "A Title",
            subtitle: None,
            authors: &names,
            vertical: false,
        };
        let a = generate_cover(&text, None);
        let b = generate_cover(&text, None);
        assert_eq!(a, b);
        std::fs::write(std::env::temp_dir().join("epubforge-cover-nofont.png"), &a).ok();
        let img = decode(&a);
        assert_eq!(img.dimensions(), (COVER_WIDTH, COVER_HEIGHT));
        // The frame is drawn in the accent color, the middle of the plate is background-ish.
        let palette = Palette::for_title("A Title");
        let frame = img.get_pixel(COVER_WIDTH / 2, 65).0;
        let close = |p: [u8; 3], q: [u8; 3]| p.iter().zip(q).all(|(a, b)| a.abs_diff(b) < 40);
        assert!(close(frame, palette.accent), "{frame:?}");
        assert_eq!(
            ink_in(&img, 0, 0, COVER_WIDTH, COVER_HEIGHT, palette.text),
            0
        );
    }

    #[test]
    fn garbage_font_bytes_still_give_a_cover() {
        let text = CoverText {
            title: "书名",
            subtitle: Some("副标题"),
            authors: &[],
            vertical: true,
        };
        let png = generate_cover(&text, Some(b"definitely not a font"));
        assert_eq!(decode(&png).dimensions(), (COVER_WIDTH, COVER_HEIGHT));
        // A collection claiming four billion faces: ttf-parser would panic on it.
        let mut ttc = b"ttcf\0\x01\0\0\xFF\xFF\xFF\xFF".to_vec();
        ttc.extend_from_slice(&[0; 8]);
        let png = generate_cover(&text, Some(&ttc));
        assert_eq!(decode(&png).dimensions(), (COVER_WIDTH, COVER_HEIGHT));
    }

    #[test]
    fn huge_title_is_clipped_and_still_drawn_quickly() {
        let Some(font) = system_font() else { return };
        let title = "长".repeat(20_000);
        let names: Vec<String> = (0..1000).map(|i| format!("Author {i}")).collect();
        let text = CoverText {
            title: &title,
            subtitle: Some(&title),
            authors: &names,
            vertical: false,
        };
        let started = Instant::now();
        let img = decode(&generate_cover(&text, Some(&font)));
        assert_eq!(img.dimensions(), (COVER_WIDTH, COVER_HEIGHT));
        assert!(started.elapsed().as_secs() < 120, "{:?}", started.elapsed());
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("长歌", 3), "长歌");
    }

    #[test]
    fn palette_depends_on_title_only_and_varies() {
        let colors: BTreeSet<[u8; 3]> = ["北境长歌", "Moby Dick", "红楼梦", "a", "b", "c", "d"]
            .iter()
            .map(|t| Palette::for_title(t).background)
            .collect();
        assert!(colors.len() >= 3, "{colors:?}");
        assert_eq!(
            Palette::for_title("x").background,
            Palette::for_title("x").background
        );
    }

    #[test]
    fn tokens_follow_kinsoku_and_keep_latin_words_whole() {
        let t: Vec<String> = tokens("「北境」长歌，上")
            .into_iter()
            .map(|t| t.0)
            .collect();
        assert_eq!(t, ["「北", "境」", "长", "歌，", "上"]);
        let t = tokens("The Old Man");
        assert_eq!(
            t,
            [
                ("The".into(), false),
                ("Old".into(), true),
                ("Man".into(), true)
            ]
        );
    }

    #[test]
    fn balanced_wrap_avoids_an_orphan_character() {
        let toks = tokens("一二三四五六七八九");
        let count = |s: &str| s.chars().count() as f32;
        let greedy = wrap(&toks, 8.0, &count);
        assert_eq!(greedy, ["一二三四五六七八", "九"]);
        let balanced = wrap_balanced(&toks, 8.0, &count);
        assert_eq!(balanced, ["一二三四五", "六七八九"]);
        // An over-long word is split rather than overflowing.
        let long = wrap(&tokens("abcdefghij"), 4.0, &count);
        assert_eq!(long, ["abcd", "efgh", "ij"]);
    }

    /// Whole words back from `lines`: what the lines hold, split at spaces.
    fn words(lines: &[String]) -> Vec<String> {
        lines
            .iter()
            .flat_map(|l| l.split(' '))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn long_words_shrink_the_type_instead_of_breaking() {
        // A stand-in for a serif: every character 0.6 em wide.
        let measure = |s: &str, em: f32| s.chars().count() as f32 * em * 0.6;
        for title in [
            "The Rust Programming Language",
            "Internationalization and Localization in Practice",
            "Programming",
            "Antidisestablishmentarianism",
        ] {
            let (em, lines) = fit(title, 200.0, 72.0, 1140.0, 4, &measure);
            let expected: Vec<String> = title.split(' ').map(str::to_string).collect();
            assert_eq!(words(&lines), expected, "{title}: {lines:?} at {em}");
            assert!(
                lines.iter().all(|l| measure(l, em) <= 1140.5),
                "{title}: {lines:?} at {em} overflows"
            );
        }
        // 28 letters at 0.6 em in 1140 px: below the usual minimum of 72, not broken.
        let (em, _) = fit(
            "Antidisestablishmentarianism",
            200.0,
            72.0,
            1140.0,
            4,
            &measure,
        );
        assert!(em < 72.0 && em > 60.0, "{em}");
        // A word that cannot fit even at the smallest size is broken, as a last resort.
        let endless = "x".repeat(100);
        let (em, lines) = fit(&endless, 200.0, 72.0, 1140.0, 4, &measure);
        assert_eq!(em, SMALLEST_EM);
        assert!(lines.len() > 1 && lines.concat() == endless);
    }

    #[test]
    fn cjk_titles_wrap_between_characters_and_hyphens_break_latin_words() {
        let measure = |s: &str, em: f32| s.chars().count() as f32 * em;
        let title = "中华人民共和国国家通用语言文字法实施细则与释义汇编";
        let (em, lines) = fit(title, 200.0, 72.0, 1140.0, 4, &measure);
        assert_eq!(lines.concat(), title);
        assert!(lines.len() > 1 && lines.iter().all(|l| measure(l, em) <= 1140.5));
        let t: Vec<String> = tokens("Self-Reliance and/or Input/Output")
            .into_iter()
            .map(|t| t.0)
            .collect();
        assert_eq!(t, ["Self-", "Reliance", "and/", "or", "Input/", "Output"]);
    }

    #[test]
    fn authors_are_joined_by_script() {
        assert_eq!(join_authors(&authors(&["A", "B", "C"])), "A, B & C");
        assert_eq!(join_authors(&authors(&["张三", "李四"])), "张三　李四");
        assert_eq!(join_authors(&authors(&[" ", ""])), "");
    }

    #[test]
    fn cjk_cover_draws_title_in_upper_area_and_authors_below() {
        let Some(font) = system_font() else { return };
        let names = authors(&["佚名"]);
        let text = CoverText {
            title: "北境长歌",
            subtitle: Some("第一卷 风起"),
            authors: &names,
            vertical: false,
        };
        let started = Instant::now();
        let png = generate_cover(&text, Some(&font));
        eprintln!(
            "horizontal CJK cover: {} KB in {} ms",
            png.len() / 1024,
            started.elapsed().as_millis()
        );
        std::fs::write(std::env::temp_dir().join("epubforge-cover-h.png"), &png).ok();
        assert_eq!(png, generate_cover(&text, Some(&font)), "deterministic");
        let img = decode(&png);
        let p = Palette::for_title(text.title);
        let title_ink = ink_in(
            &img,
            0,
            TITLE_TOP as u32,
            COVER_WIDTH,
            TITLE_BOTTOM as u32,
            p.text,
        );
        let author_ink = ink_in(&img, 0, RULE_Y as u32 + 20, COVER_WIDTH, 2400, p.text);
        assert!(title_ink > 20_000, "title ink {title_ink}");
        assert!(author_ink > 1_000, "author ink {author_ink}");
        // Centered: the title's ink is about as much left of the middle as right of it.
        let left = ink_in(&img, 0, 380, COVER_WIDTH / 2, 1780, p.text) as f64;
        let right = ink_in(&img, COVER_WIDTH / 2, 380, COVER_WIDTH, 1780, p.text) as f64;
        assert!(
            (left / right - 1.0).abs() < 0.25,
            "left {left} right {right}"
        );
    }

    #[test]
    fn vertical_cover_sets_title_in_a_right_column() {
        let Some(font) = system_font() else { return };
        let names = authors(&["佚名"]);
        let text = CoverText {
            title: "北境长歌「上」",
            subtitle: None,
            authors: &names,
            vertical: true,
        };
        let started = Instant::now();
        let png = generate_cover(&text, Some(&font));
        eprintln!(
            "vertical CJK cover: {} KB in {} ms",
            png.len() / 1024,
            started.elapsed().as_millis()
        );
        std::fs::write(std::env::temp_dir().join("epubforge-cover-v.png"), &png).ok();
        let img = decode(&png);
        let p = Palette::for_title(text.title);
        let right = ink_in(&img, COVER_WIDTH / 2, 300, COVER_WIDTH, 2300, p.text);
        let left_top = ink_in(&img, 0, 300, COVER_WIDTH / 2, 1200, p.text);
        assert!(right > 20_000, "right {right}");
        assert_eq!(left_top, 0, "nothing at the top left");
    }

    #[test]
    fn long_latin_title_wraps_by_word_within_margins() {
        let Some(font) = system_font() else { return };
        let names = authors(&["Herman Melville"]);
        let text = CoverText {
            title: "The Extraordinarily Long Title of a Very Patient Novel",
            subtitle: Some("or, The Whale"),
            authors: &names,
            vertical: false,
        };
        let png = generate_cover(&text, Some(&font));
        std::fs::write(std::env::temp_dir().join("epubforge-cover-latin.png"), &png).ok();
        let img = decode(&png);
        let p = Palette::for_title(text.title);
        let margin = (MARGIN_X - 10.0) as u32;
        assert_eq!(
            ink_in(&img, 90, 90, margin, 2470, p.text),
            0,
            "left margin clear"
        );
        assert_eq!(
            ink_in(
                &img,
                COVER_WIDTH - margin,
                90,
                COVER_WIDTH - 90,
                2470,
                p.text
            ),
            0
        );
        assert!(ink_in(&img, 0, 380, COVER_WIDTH, 1780, p.text) > 20_000);
    }

    #[test]
    fn real_titles_keep_their_words_whole_in_the_real_font() {
        let Some(font) = system_font() else { return };
        let titles = [
            "The Rust Programming Language",
            "Internationalization and Localization: A Practitioner's Handbook",
            "Structure and Interpretation of Computer Programs",
            "Antidisestablishmentarianism",
            "三国演义：全本校注插图珍藏版附人物谱系与年表",
        ];
        for (i, title) in titles.iter().enumerate() {
            let names = authors(&["Harold Abelson", "Gerald Jay Sussman"]);
            let text = CoverText {
                title,
                subtitle: Some("Second Edition, Revised"),
                authors: &names,
                vertical: false,
            };
            let setter = Typesetter::new(&font, &text).expect("font");
            let measure = |s: &str, em: f32| setter.line_width(s, em);
            let width = COVER_WIDTH as f32 - 2.0 * MARGIN_X;
            let (em, lines) = fit(title, 200.0, 72.0, width, 4, &measure);
            if title.is_ascii() {
                let expected: Vec<&str> = title.split(' ').collect();
                assert_eq!(words(&lines), expected, "{title}: {lines:?} at {em}");
            } else {
                assert_eq!(lines.concat(), *title);
            }
            assert!(
                lines.iter().all(|l| measure(l, em) <= width + 0.5),
                "{lines:?}"
            );
            let png = generate_cover(&text, Some(&font));
            let file = std::env::temp_dir().join(format!("epubforge-cover-title-{i}.png"));
            std::fs::write(file, &png).ok();
        }
    }

    #[test]
    fn title_in_chars_the_font_lacks_falls_back_to_plain_cover() {
        let Some(font) = system_font() else { return };
        let text = CoverText {
            title: "\u{E000}\u{E001}",
            subtitle: None,
            authors: &[],
            vertical: false,
        };
        let img = decode(&generate_cover(&text, Some(&font)));
        let p = Palette::for_title(text.title);
        assert_eq!(ink_in(&img, 0, 0, COVER_WIDTH, COVER_HEIGHT, p.text), 0);
    }

    #[test]
    fn cjk_font_names_are_ranked_serif_bold_first() {
        let s = |n: &str| cjk_font_score(Path::new(n));
        assert!(s("NotoSerifCJK-Bold.ttc") > s("NotoSerifCJK-Regular.ttc"));
        assert!(s("NotoSerifCJK-Regular.ttc") > s("NotoSansCJK-Bold.ttc"));
        assert!(s("NotoSansCJK-Regular.ttc") > s("wqy-microhei.ttc"));
        assert_eq!(s("DejaVuSans.ttf"), None);
        assert_eq!(s("NotoSerifCJK-Bold.txt"), None);
    }
}
