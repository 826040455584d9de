//! Embedded fonts, cut down to the characters the book uses.
//!
//! The packager collects the set of characters in the book's text and hands it here with the
//! font the user asked to embed. A CJK font is 15-25 MB; a subset for a novel's ~1-10k distinct
//! characters is a few hundred KB, which keeps the EPUB small enough for stores and readers.
//!
//! Subsetting uses `allsorts` (it handles TrueType and CFF outlines, reads collections, and,
//! unlike PDF-oriented subsetters, writes a fresh Unicode `cmap`, which EPUB reading systems need
//! to map text to glyphs). What the subset keeps:
//! - glyph 0 (`.notdef`), one glyph per used character, with `cmap`, `head`, `hhea`, `hmtx`,
//!   `maxp`, `name`, `OS/2`, `post` and the outlines (`CFF ` or `glyf`/`loca`; `cvt`/`fpgm`/`prep`
//!   hinting for TrueType);
//! - for vertical text: the glyphs that the font's `vert`/`vrt2` features substitute for those
//!   characters (rotated brackets, dashes, small kana...), a minimal `GSUB` holding those single
//!   substitutions under `vert` and `vrt2` (for DFLT, hani, kana, hang and latn scripts), and
//!   `vhea`/`vmtx`/`VORG` rebuilt for the kept glyphs, so vertical layout matches the full font.
//!
//! Everything else (`GPOS` kerning, other `GSUB` features such as ligatures or locale forms,
//! `BASE`, `DSIG`...) is dropped: body text in CJK books does not need it, and a stale table
//! pointing at removed glyphs would be worse than none.

use std::collections::{BTreeMap, BTreeSet};

use allsorts::binary::read::ReadScope;
use allsorts::font_data::FontData;
use allsorts::subset::{CmapTarget, SubsetProfile, subset};
use ttf_parser::gsub::{SingleSubstitution, SubstitutionSubtable};
use ttf_parser::{Face, GlyphId, Tag};

/// A font file format, as written into the EPUB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FontFormat {
    /// OpenType with CFF outlines (`OTTO`).
    Otf,
    /// OpenType/TrueType with `glyf` outlines.
    Ttf,
}

impl FontFormat {
    /// The media type EPUBCheck 5.3 accepts for this format in the manifest.
    pub fn media_type(self) -> &'static str {
        match self {
            FontFormat::Otf => "font/otf",
            FontFormat::Ttf => "font/ttf",
        }
    }

    /// File extension without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            FontFormat::Otf => "otf",
            FontFormat::Ttf => "ttf",
        }
    }

    /// The `format()` hint used in a CSS `src` descriptor.
    fn css_format(self) -> &'static str {
        match self {
            FontFormat::Otf => "opentype",
            FontFormat::Ttf => "truetype",
        }
    }
}

/// A font cut down to the characters a book uses, ready to be stored in the EPUB.
#[derive(Debug, Clone)]
pub struct SubsetFont {
    /// The subset font file (a single face, never a collection).
    pub bytes: Vec<u8>,
    /// Format of `bytes`.
    pub format: FontFormat,
    /// Family name (typographic family when the font has one), for `font-family` in CSS.
    pub family: String,
    /// Weight class from `OS/2` (400 regular, 700 bold).
    pub weight: u16,
    /// Whether the face is italic or oblique.
    pub italic: bool,
    /// Number of glyphs in the subset, `.notdef` included.
    pub glyphs: usize,
    /// Characters the book uses that the font has no glyph for (control characters are never
    /// listed: they are not drawn). Readers fall back to another font for these.
    pub missing: Vec<char>,
}

impl SubsetFont {
    /// The media type for the manifest item.
    pub fn media_type(&self) -> &'static str {
        self.format.media_type()
    }
}

/// Why a font could not be subset. The caller adds the font's path.
#[derive(Debug, thiserror::Error)]
pub enum FontError {
    /// The bytes are not an OpenType/TrueType font or collection this code can read.
    #[error("not a readable OpenType/TrueType font (face {face_index}): {reason}")]
    Unreadable {
        /// Face asked for.
        face_index: u32,
        /// What the parser said.
        reason: String,
    },
    /// The collection has fewer faces than the index asked for.
    #[error("font face index {face_index} is out of range: the file has {faces} face(s)")]
    NoSuchFace {
        /// Face asked for.
        face_index: u32,
        /// Faces in the file.
        faces: u32,
    },
    /// The subsetter failed on this font.
    #[error("could not subset the font: {0}")]
    Subset(String),
    /// The subset came out unreadable or lost characters; embedding it would show tofu.
    #[error("the subset font failed its self-check: {0}")]
    Check(String),
}

/// Subsets face `face_index` of `font` (a TTF, OTF or TTC/OTC collection; WOFF input works too)
/// to the glyphs needed for `chars`.
///
/// The result is a single-face OTF (CFF outlines) or TTF (`glyf` outlines). It is checked before
/// it is returned: it must parse, and every kept character must map to a glyph through its
/// `cmap`.
pub fn subset_font(
    font: &[u8],
    face_index: u32,
    chars: &BTreeSet<char>,
) -> Result<SubsetFont, FontError> {
    let face = parse_face(font, face_index)?;

    let mut kept_chars: Vec<(char, u16)> = Vec::new();
    let mut missing = Vec::new();
    for &c in chars {
        match face.glyph_index(c) {
            Some(gid) if gid.0 != 0 => kept_chars.push((c, gid.0)),
            _ if c.is_control() => {}
            _ => missing.push(c),
        }
    }

    let base_glyphs: BTreeSet<u16> = kept_chars.iter().map(|&(_, g)| g).collect();
    let vert = vertical_substitutions(&face, &base_glyphs);

    // New glyph ids are the positions in this list: .notdef, then the kept glyphs in their
    // original order, so the subset's glyph order is predictable and deterministic.
    let mut all: BTreeSet<u16> = base_glyphs.clone();
    all.extend(vert.values().copied());
    all.remove(&0);
    let glyph_ids: Vec<u16> = std::iter::once(0).chain(all).collect();
    let new_id: BTreeMap<u16, u16> = glyph_ids
        .iter()
        .enumerate()
        .filter_map(|(i, &old)| u16::try_from(i).ok().map(|n| (old, n)))
        .collect();
    if new_id.len() != glyph_ids.len() {
        return Err(FontError::Subset(format!(
            "{} glyphs needed, more than a font can hold",
            glyph_ids.len()
        )));
    }

    let data = ReadScope::new(font)
        .read::<FontData<'_>>()
        .map_err(|e| unreadable(face_index, format!("{e:?}")))?;
    let provider = data
        .table_provider(face_index as usize)
        .map_err(|e| unreadable(face_index, format!("{e:?}")))?;
    // Hinting tables are kept for TrueType fonts (allsorts adds them only if present).
    let profile = SubsetProfile::parse_custom("cvt,fpgm,prep".to_string())
        .map_err(|e| FontError::Subset(format!("{e:?}")))?;
    let base = subset(&provider, &glyph_ids, &profile, CmapTarget::Unicode)
        .map_err(|e| FontError::Subset(format!("{e:?}")))?;

    let bytes = with_vertical_tables(base, &face, &vert, &new_id, &glyph_ids)?;

    let format = if bytes.starts_with(b"OTTO") {
        FontFormat::Otf
    } else {
        FontFormat::Ttf
    };
    check_subset(&bytes, &kept_chars)?;

    Ok(SubsetFont {
        bytes,
        format,
        family: family_name(&face).unwrap_or_else(|| "Embedded".to_string()),
        weight: face.weight().to_number(),
        italic: face.is_italic() || face.is_oblique(),
        glyphs: glyph_ids.len(),
        missing,
    })
}

/// The subset with what vertical text needs added: the `vert` substitutions (GSUB), vertical
/// metrics (vhea, vmtx) and origins (VORG), where the font has them.
fn with_vertical_tables(
    base: Vec<u8>,
    face: &Face<'_>,
    vert: &BTreeMap<u16, u16>,
    new_id: &BTreeMap<u16, u16>,
    glyph_ids: &[u16],
) -> Result<Vec<u8>, FontError> {
    let mut extra: Vec<([u8; 4], Vec<u8>)> = Vec::new();
    if let Some(gsub) = build_vert_gsub(vert, new_id) {
        extra.push((*b"GSUB", gsub));
    }
    if let Some((vhea, vmtx)) = build_vertical_metrics(face, glyph_ids) {
        extra.push((*b"vhea", vhea));
        extra.push((*b"vmtx", vmtx));
    }
    if let Some(vorg) = build_vorg(face, glyph_ids) {
        extra.push((*b"VORG", vorg));
    }
    if extra.is_empty() {
        Ok(base)
    } else {
        add_tables(&base, extra)
    }
}

/// The `@font-face` rule for `font`, stored at `href` (relative to the style sheet).
pub fn font_face_css(font: &SubsetFont, href: &str) -> String {
    format!(
        "@font-face {{\n  font-family: \"{}\";\n  font-weight: {};\n  font-style: {};\n  src: url(\"{}\") format(\"{}\");\n}}\n",
        css_escape(&font.family),
        font.weight,
        if font.italic { "italic" } else { "normal" },
        css_escape(href),
        font.format.css_format(),
    )
}

/// Picks the face of a CJK collection (Noto/Source Han ship JP, KR, SC, TC, HK faces in one
/// `.ttc`) whose regional glyph forms suit `sample` text: Japanese when it has kana, Korean
/// when it has Hangul, Simplified Chinese otherwise. Returns 0 for single fonts or when the
/// names say nothing.
pub fn choose_face(font: &[u8], sample: &str) -> u32 {
    let faces = face_count(font).unwrap_or(1);
    if faces <= 1 {
        return 0;
    }
    let has = |lo: u32, hi: u32| sample.chars().any(|c| (lo..=hi).contains(&(c as u32)));
    let wanted: &[&str] = if has(0x3040, 0x30FF) {
        &[" JP", " J"]
    } else if has(0xAC00, 0xD7AF) || has(0x1100, 0x11FF) {
        &[" KR", " K"]
    } else {
        &[" SC", " CN", " GB"]
    };
    for index in 0..faces {
        let Ok(face) = Face::parse(font, index) else {
            continue;
        };
        if let Some(name) = family_name(&face)
            && wanted.iter().any(|w| name.ends_with(w))
        {
            return index;
        }
    }
    0
}

fn parse_face(font: &[u8], face_index: u32) -> Result<Face<'_>, FontError> {
    let faces = face_count(font)?;
    if face_index >= faces {
        return Err(FontError::NoSuchFace { face_index, faces });
    }
    Face::parse(font, face_index).map_err(|e| unreadable(face_index, e.to_string()))
}

/// The most faces a collection may hold. Real collections hold a few dozen (Noto CJK's with
/// every weight: 70); each face costs a parse when one is chosen for the text.
pub const MAX_FACES: u32 = 1024;

/// The number of faces in `font`: 1 for a single font; for a collection (`ttcf`), the count its
/// header gives, once checked against the file: the header must hold that many offsets, each
/// pointing at a face's table directory inside the file. A collection's header is trusted by
/// nothing else: a 20-byte file claiming four billion faces would otherwise be searched face by
/// face for minutes.
pub fn face_count(font: &[u8]) -> Result<u32, FontError> {
    if !font.starts_with(b"ttcf") {
        return Ok(1);
    }
    let bad = |reason: String| unreadable(0, format!("damaged font collection: {reason}"));
    let faces = read_u32(font, 8).ok_or_else(|| bad("the header is cut short".into()))?;
    if faces == 0 || faces > MAX_FACES {
        return Err(bad(format!(
            "it claims {faces} faces; a collection holds 1 to {MAX_FACES}"
        )));
    }
    let needed = 12 + 4 * u64::from(faces);
    if needed > font.len() as u64 {
        return Err(bad(format!(
            "it claims {faces} faces, whose offsets alone need {needed} bytes, but the file has {}",
            font.len()
        )));
    }
    for i in 0..faces as usize {
        let offset = read_u32(font, 12 + 4 * i).unwrap_or(u32::MAX) as usize;
        // A face starts with a 12-byte table directory header.
        if offset.checked_add(12).is_none_or(|end| end > font.len()) {
            return Err(bad(format!(
                "face {i} starts at byte {offset}, past the end of the {}-byte file",
                font.len()
            )));
        }
    }
    Ok(faces)
}

fn unreadable(face_index: u32, reason: String) -> FontError {
    FontError::Unreadable { face_index, reason }
}

/// Typographic family (name ID 16) if present, else the legacy family (name ID 1).
pub(crate) fn family_name(face: &Face<'_>) -> Option<String> {
    let names = face.names();
    let pick = |id: u16| {
        let mut fallback = None;
        for name in names {
            if name.name_id != id || !name.is_unicode() {
                continue;
            }
            let Some(s) = name.to_string() else { continue };
            // English (US) first: it is the name CSS authors and readers expect.
            if name.language_id == 0x0409 {
                return Some(s);
            }
            fallback.get_or_insert(s);
        }
        fallback
    };
    pick(ttf_parser::name_id::TYPOGRAPHIC_FAMILY).or_else(|| pick(ttf_parser::name_id::FAMILY))
}

/// Single substitutions that the font's `vert`/`vrt2` features apply to `glyphs`
/// (original glyph id -> vertical-form glyph id).
pub(crate) fn vertical_substitutions(
    face: &Face<'_>,
    glyphs: &BTreeSet<u16>,
) -> BTreeMap<u16, u16> {
    let mut map = BTreeMap::new();
    let Some(gsub) = face.tables().gsub else {
        return map;
    };
    let mut lookups = BTreeSet::new();
    for feature in gsub.features {
        if feature.tag == Tag::from_bytes(b"vert") || feature.tag == Tag::from_bytes(b"vrt2") {
            lookups.extend(feature.lookup_indices);
        }
    }
    for index in lookups {
        let Some(lookup) = gsub.lookups.get(index) else {
            continue;
        };
        for sub in lookup.subtables.into_iter::<SubstitutionSubtable<'_>>() {
            let SubstitutionSubtable::Single(single) = sub else {
                continue;
            };
            for &g in glyphs {
                // The first lookup that substitutes a glyph wins, as in a shaper.
                if map.contains_key(&g) {
                    continue;
                }
                if let Some(to) = apply_single(&single, g)
                    && to != g
                {
                    map.insert(g, to);
                }
            }
        }
    }
    map
}

fn apply_single(single: &SingleSubstitution<'_>, glyph: u16) -> Option<u16> {
    match single {
        SingleSubstitution::Format1 { coverage, delta } => {
            coverage.get(GlyphId(glyph))?;
            Some((i32::from(glyph) + i32::from(*delta)).rem_euclid(65536) as u16)
        }
        SingleSubstitution::Format2 {
            coverage,
            substitutes,
        } => {
            let i = coverage.get(GlyphId(glyph))?;
            substitutes.get(i).map(|g| g.0)
        }
    }
}

fn push16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// A minimal GSUB: one single-substitution lookup reached by `vert` and `vrt2` from the DFLT,
/// hani, hang, kana and latn scripts (shapers fall back to DFLT for other scripts).
fn build_vert_gsub(vert: &BTreeMap<u16, u16>, new_id: &BTreeMap<u16, u16>) -> Option<Vec<u8>> {
    let pairs: Vec<(u16, u16)> = vert
        .iter()
        .filter_map(|(from, to)| Some((*new_id.get(from)?, *new_id.get(to)?)))
        .collect();
    if pairs.is_empty() {
        return None;
    }
    // BTreeMap order of old ids equals the order of new ids (new ids keep the old order),
    // which is what a Coverage table needs.
    let scripts: [&[u8; 4]; 5] = [b"DFLT", b"hang", b"hani", b"kana", b"latn"];

    let mut script_list = Vec::new();
    push16(&mut script_list, scripts.len() as u16);
    let script_table_offset = 2 + 6 * scripts.len() as u16;
    for tag in scripts {
        script_list.extend_from_slice(tag);
        push16(&mut script_list, script_table_offset);
    }
    // Script table: default LangSys right after its 4-byte header, no other languages.
    push16(&mut script_list, 4);
    push16(&mut script_list, 0);
    // LangSys: no lookup order, no required feature, features 0 (vert) and 1 (vrt2).
    push16(&mut script_list, 0);
    push16(&mut script_list, 0xFFFF);
    push16(&mut script_list, 2);
    push16(&mut script_list, 0);
    push16(&mut script_list, 1);

    let mut feature_list = Vec::new();
    push16(&mut feature_list, 2);
    let feature_offset = 2 + 6 * 2;
    for tag in [b"vert", b"vrt2"] {
        feature_list.extend_from_slice(tag);
        push16(&mut feature_list, feature_offset);
    }
    push16(&mut feature_list, 0);
    push16(&mut feature_list, 1);
    push16(&mut feature_list, 0);

    let mut lookup_list = Vec::new();
    push16(&mut lookup_list, 1);
    push16(&mut lookup_list, 4);
    // Lookup: type 1, no flags, one subtable right after the 8-byte header.
    push16(&mut lookup_list, 1);
    push16(&mut lookup_list, 0);
    push16(&mut lookup_list, 1);
    push16(&mut lookup_list, 8);
    // SingleSubstFormat2 with the Coverage table after the substitute array.
    let n = pairs.len() as u16;
    push16(&mut lookup_list, 2);
    push16(&mut lookup_list, 6 + 2 * n);
    push16(&mut lookup_list, n);
    for &(_, to) in &pairs {
        push16(&mut lookup_list, to);
    }
    push16(&mut lookup_list, 1);
    push16(&mut lookup_list, n);
    for &(from, _) in &pairs {
        push16(&mut lookup_list, from);
    }

    let mut gsub = Vec::new();
    push16(&mut gsub, 1);
    push16(&mut gsub, 0);
    let script_at = 10u16;
    let feature_at = script_at.checked_add(u16::try_from(script_list.len()).ok()?)?;
    let lookup_at = feature_at.checked_add(u16::try_from(feature_list.len()).ok()?)?;
    u16::try_from(usize::from(lookup_at) + lookup_list.len()).ok()?;
    push16(&mut gsub, script_at);
    push16(&mut gsub, feature_at);
    push16(&mut gsub, lookup_at);
    gsub.extend(script_list);
    gsub.extend(feature_list);
    gsub.extend(lookup_list);
    Some(gsub)
}

/// `vhea` and `vmtx` for the kept glyphs, with one long metric per glyph, copied from the
/// original font. None when the font has no vertical metrics.
fn build_vertical_metrics(face: &Face<'_>, glyph_ids: &[u16]) -> Option<(Vec<u8>, Vec<u8>)> {
    let raw = face.raw_face().table(Tag::from_bytes(b"vhea"))?;
    face.raw_face().table(Tag::from_bytes(b"vmtx"))?;
    let mut vhea = raw.get(..36)?.to_vec();
    let count = u16::try_from(glyph_ids.len()).ok()?;
    vhea.get_mut(34..36)?.copy_from_slice(&count.to_be_bytes());
    let mut vmtx = Vec::with_capacity(glyph_ids.len() * 4);
    for &g in glyph_ids {
        let advance = face.glyph_ver_advance(GlyphId(g)).unwrap_or(0);
        let tsb = face.glyph_ver_side_bearing(GlyphId(g)).unwrap_or(0);
        push16(&mut vmtx, advance);
        vmtx.extend_from_slice(&tsb.to_be_bytes());
    }
    Some((vhea, vmtx))
}

/// `VORG` (vertical origins of CFF glyphs) for the kept glyphs. None when the font has none.
fn build_vorg(face: &Face<'_>, glyph_ids: &[u16]) -> Option<Vec<u8>> {
    let raw = face.raw_face().table(Tag::from_bytes(b"VORG"))?;
    let default = i16::from_be_bytes([*raw.get(4)?, *raw.get(5)?]);
    let records: Vec<(u16, i16)> = glyph_ids
        .iter()
        .enumerate()
        .filter_map(|(new, &old)| {
            let y = face.glyph_y_origin(GlyphId(old))?;
            (y != default).then_some((u16::try_from(new).ok()?, y))
        })
        .collect();
    let mut vorg = Vec::new();
    push16(&mut vorg, 1);
    push16(&mut vorg, 0);
    vorg.extend_from_slice(&default.to_be_bytes());
    push16(&mut vorg, u16::try_from(records.len()).ok()?);
    for (g, y) in records {
        push16(&mut vorg, g);
        vorg.extend_from_slice(&y.to_be_bytes());
    }
    Some(vorg)
}

fn read_u16(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]))
}

fn read_u32(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

fn table_checksum(data: &[u8]) -> u32 {
    data.chunks(4).fold(0u32, |sum, chunk| {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        sum.wrapping_add(u32::from_be_bytes(word))
    })
}

/// Re-assembles the sfnt `base` with `extra` tables added (replacing same-tagged ones), with
/// sorted table records, 4-byte alignment, fresh checksums and `head.checkSumAdjustment`.
fn add_tables(base: &[u8], extra: Vec<([u8; 4], Vec<u8>)>) -> Result<Vec<u8>, FontError> {
    let bad = || FontError::Check("the subsetter wrote a malformed table directory".to_string());
    let version = read_u32(base, 0).ok_or_else(bad)?;
    let count = usize::from(read_u16(base, 4).ok_or_else(bad)?);
    let mut tables: BTreeMap<[u8; 4], Vec<u8>> = BTreeMap::new();
    for i in 0..count {
        let rec = 12 + 16 * i;
        let tag: [u8; 4] = base
            .get(rec..rec + 4)
            .and_then(|t| t.try_into().ok())
            .ok_or_else(bad)?;
        let offset = read_u32(base, rec + 8).ok_or_else(bad)? as usize;
        let length = read_u32(base, rec + 12).ok_or_else(bad)? as usize;
        let data = base
            .get(offset..offset.saturating_add(length))
            .ok_or_else(bad)?;
        tables.insert(tag, data.to_vec());
    }
    tables.extend(extra);

    // The directory's binary-search fields are u16 values of 16 * 2^floor(log2(n)).
    let n = u16::try_from(tables.len())
        .ok()
        .filter(|n| (1..4096).contains(n))
        .ok_or_else(bad)?;
    let pow2 = 1u16 << (15 - n.leading_zeros());
    let mut out = Vec::new();
    out.extend_from_slice(&version.to_be_bytes());
    push16(&mut out, n);
    push16(&mut out, pow2 * 16);
    push16(&mut out, pow2.trailing_zeros() as u16);
    push16(&mut out, (n - pow2) * 16);
    let mut offset = 12 + 16 * tables.len();
    let mut head_at = None;
    for (tag, data) in &mut tables {
        if tag == b"head" {
            // checkSumAdjustment is zero while checksums are computed.
            data.get_mut(8..12).ok_or_else(bad)?.fill(0);
            head_at = Some(offset);
        }
        out.extend_from_slice(tag);
        out.extend_from_slice(&table_checksum(data).to_be_bytes());
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        offset += data.len().div_ceil(4) * 4;
    }
    for data in tables.values() {
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(4) * 4, 0);
    }
    let head_at =
        head_at.ok_or_else(|| FontError::Check("the subset has no head table".to_string()))?;
    let adjust = 0xB1B0_AFBAu32.wrapping_sub(table_checksum(&out));
    out.get_mut(head_at + 8..head_at + 12)
        .ok_or_else(bad)?
        .copy_from_slice(&adjust.to_be_bytes());
    Ok(out)
}

fn check_subset(bytes: &[u8], kept: &[(char, u16)]) -> Result<(), FontError> {
    let face = Face::parse(bytes, 0)
        .map_err(|e| FontError::Check(format!("the subset does not parse: {e}")))?;
    let lost: String = kept
        .iter()
        .filter(|(c, _)| face.glyph_index(*c).is_none_or(|g| g.0 == 0))
        .map(|(c, _)| *c)
        .take(20)
        .collect();
    if lost.is_empty() {
        Ok(())
    } else {
        Err(FontError::Check(format!(
            "characters lost from the cmap: {lost}"
        )))
    }
}

fn css_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            // A raw newline would end the string token; CSS escapes it as a code point.
            '\n' | '\r' => out.push_str("\\a "),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::time::Instant;

    const SERIF_CJK: &str = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc";

    fn system_font(path: &str) -> Option<Vec<u8>> {
        match std::fs::read(Path::new(path)) {
            Ok(bytes) => Some(bytes),
            Err(_) => {
                eprintln!("skipping: system font {path} is not installed");
                None
            }
        }
    }

    /// About 1000 distinct CJK characters from the sample chapters, plus ASCII.
    fn book_chars() -> BTreeSet<char> {
        let mut chars: BTreeSet<char> = (' '..='~').collect();
        let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
        let mut cjk = BTreeSet::new();
        if let Ok(dir) = std::fs::read_dir(&seeds) {
            let mut paths: Vec<_> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
            paths.sort();
            for p in paths {
                let text =
                    String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()).into_owned();
                cjk.extend(
                    text.chars()
                        .filter(|c| ('\u{4E00}'..='\u{9FFF}').contains(c)),
                );
            }
        }
        // Top up from the URO block so the set is ~1000 even without the seeds.
        let mut c = 0x4E00u32;
        while cjk.len() < 1000 {
            if let Some(ch) = char::from_u32(c) {
                cjk.insert(ch);
            }
            c += 7;
        }
        chars.extend(cjk.into_iter().take(1000));
        chars.extend("「」『』（）《》、。，！？…—".chars());
        chars
    }

    #[test]
    fn noto_serif_cjk_subset_keeps_cmap_and_outlines_for_every_char() {
        let Some(font) = system_font(SERIF_CJK) else {
            return;
        };
        let mut chars = book_chars();
        chars.insert('\u{E000}'); // private use: no glyph in Noto
        chars.insert('\n'); // control: never reported missing
        let face_index = choose_face(&font, "中文");
        let started = Instant::now();
        let sub = subset_font(&font, face_index, &chars).expect("subset");
        let elapsed = started.elapsed();
        eprintln!(
            "NotoSerifCJK face {face_index} ({}), {} chars -> {} glyphs, {} KB in {} ms",
            sub.family,
            chars.len(),
            sub.glyphs,
            sub.bytes.len() / 1024,
            elapsed.as_millis()
        );
        std::fs::write(
            std::env::temp_dir().join("epubforge-subset.otf"),
            &sub.bytes,
        )
        .ok();
        assert_eq!(sub.format, FontFormat::Otf);
        assert_eq!(sub.media_type(), "font/otf");
        assert!(
            sub.bytes.len() < 2 * 1024 * 1024,
            "{} bytes",
            sub.bytes.len()
        );
        assert_eq!(sub.missing, vec!['\u{E000}']);
        assert_eq!(sub.family, "Noto Serif CJK SC");
        assert_eq!(sub.weight, 400);

        let face = Face::parse(&sub.bytes, 0).expect("subset parses");
        assert_eq!(usize::from(face.number_of_glyphs()), sub.glyphs);
        for &c in chars
            .iter()
            .filter(|c| !c.is_control() && **c != '\u{E000}')
        {
            let gid = face.glyph_index(c).unwrap_or(GlyphId(0));
            assert_ne!(gid.0, 0, "{c:?} has no glyph in the subset");
            if !c.is_whitespace() {
                let bbox = face.glyph_bounding_box(gid);
                assert!(bbox.is_some(), "{c:?} (glyph {}) has no outline", gid.0);
            }
            assert!(
                face.glyph_hor_advance(gid).unwrap_or(0) > 0,
                "{c:?} advance"
            );
        }
    }

    #[test]
    fn vertical_forms_survive_in_subset_gsub() {
        let Some(font) = system_font(SERIF_CJK) else {
            return;
        };
        let chars: BTreeSet<char> = "「」。、永".chars().collect();
        let sub = subset_font(&font, choose_face(&font, "中"), &chars).expect("subset");
        let face = Face::parse(&sub.bytes, 0).expect("parses");
        let gid = |c| face.glyph_index(c).expect("mapped");
        let all: BTreeSet<u16> = chars.iter().map(|&c| gid(c).0).collect();
        let vert = vertical_substitutions(&face, &all);
        // The corner brackets and the ideographic full stop have vertical forms in Noto CJK;
        // the ideograph does not.
        for c in ['「', '」', '。'] {
            let to = vert.get(&gid(c).0).copied();
            assert!(to.is_some(), "{c} lost its vert substitution");
            let to = GlyphId(to.unwrap_or(0));
            assert!(
                face.glyph_bounding_box(to).is_some(),
                "{c} vertical form has no outline"
            );
        }
        assert!(!vert.contains_key(&gid('永').0));
        assert!(face.glyph_ver_advance(gid('永')).is_some_and(|a| a > 0));
        assert!(face.glyph_y_origin(gid('永')).is_some());
    }

    #[test]
    fn latin_truetype_subset_is_small_ttf_with_working_cmap() {
        let path = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf";
        let Some(font) = system_font(path) else {
            return;
        };
        let chars: BTreeSet<char> = "Hello, world! Épreuve".chars().collect();
        let sub = subset_font(&font, 0, &chars).expect("subset");
        assert_eq!(sub.format, FontFormat::Ttf);
        assert!(sub.bytes.len() < font.len() / 10);
        let face = Face::parse(&sub.bytes, 0).expect("parses");
        for c in chars.iter().filter(|c| !c.is_whitespace()) {
            let g = face.glyph_index(*c).expect("mapped");
            assert!(face.glyph_bounding_box(g).is_some(), "{c}");
        }
        assert!(face.glyph_index('Z').is_none(), "unused chars are dropped");
    }

    #[test]
    fn garbage_and_bad_face_index_are_errors_not_panics() {
        let chars: BTreeSet<char> = "a".chars().collect();
        assert!(matches!(
            subset_font(b"not a font at all", 0, &chars),
            Err(FontError::Unreadable { .. })
        ));
        let mut truncated_ttc = b"ttcf\0\x01\0\0\0\0\0\x02".to_vec();
        truncated_ttc.extend_from_slice(&[0, 0, 0, 20, 0, 0, 0, 40]);
        assert!(subset_font(&truncated_ttc, 5, &chars).is_err());
        assert!(subset_font(&[], 0, &chars).is_err());
    }

    #[test]
    fn a_collection_header_is_checked_against_the_file_size() {
        // 20 bytes claiming 0xFFFFFFFF faces: refused at once, never searched face by face.
        let mut huge = b"ttcf\0\x01\0\0\xFF\xFF\xFF\xFF".to_vec();
        huge.extend_from_slice(&[0; 8]);
        let e = face_count(&huge).unwrap_err().to_string();
        assert!(e.contains("4294967295 faces"), "{e}");
        assert_eq!(choose_face(&huge, "中文"), 0);
        assert!(subset_font(&huge, 0, &BTreeSet::from(['a'])).is_err());

        // A count the file could hold, but offsets pointing past its end.
        let mut past = b"ttcf\0\x01\0\0\0\0\0\x02".to_vec();
        past.extend_from_slice(&[0, 0, 0, 20, 0, 0x10, 0, 0]);
        past.extend_from_slice(&[0; 12]);
        let e = face_count(&past).unwrap_err().to_string();
        assert!(e.contains("face 1 starts at byte 1048576"), "{e}");

        // Enough offsets for a small count, and in range: accepted.
        let mut two = b"ttcf\0\x01\0\0\0\0\0\x02".to_vec();
        two.extend_from_slice(&[0, 0, 0, 20, 0, 0, 0, 20]);
        two.extend_from_slice(&[0; 12]);
        assert_eq!(face_count(&two).unwrap(), 2);
        assert_eq!(face_count(b"\0\x01\0\0").unwrap(), 1, "a single font");
    }

    #[test]
    fn css_rule_names_family_weight_style_and_format() {
        let font = SubsetFont {
            bytes: Vec::new(),
            format: FontFormat::Otf,
            family: "Noto \"Serif\" CJK".to_string(),
            weight: 700,
            italic: false,
            glyphs: 1,
            missing: Vec::new(),
        };
        let css = font_face_css(&font, "../fonts/body.otf");
        assert!(css.starts_with("@font-face {"));
        assert!(css.contains("font-family: \"Noto \\\"Serif\\\" CJK\";"));
        assert!(css.contains("font-weight: 700;"));
        assert!(css.contains("font-style: normal;"));
        assert!(css.contains("src: url(\"../fonts/body.otf\") format(\"opentype\");"));
        assert_eq!(FontFormat::Otf.media_type(), "font/otf");
        assert_eq!(FontFormat::Ttf.extension(), "ttf");
    }

    #[test]
    fn added_tables_keep_a_valid_checksummed_directory() {
        let Some(font) = system_font("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf") else {
            return;
        };
        let chars: BTreeSet<char> = "ab".chars().collect();
        let sub = subset_font(&font, 0, &chars).expect("subset");
        let out = add_tables(&sub.bytes, vec![(*b"zzzz", vec![1, 2, 3])]).expect("adds");
        let face = Face::parse(&out, 0).expect("parses");
        assert_eq!(
            face.raw_face().table(Tag::from_bytes(b"zzzz")),
            Some(&[1u8, 2, 3][..])
        );
        assert!(face.glyph_index('a').is_some());
        // The whole-file checksum of a font with a correct checkSumAdjustment is 0xB1B0AFBA.
        assert_eq!(table_checksum(&out), 0xB1B0_AFBA);
    }
}
