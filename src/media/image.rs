//! Images that go into the EPUB: recognise them and make a user's cover fit for readers.
//!
//! The packager calls [`sniff`] on every image it adds (to pick the manifest media type from the
//! bytes, not the file name) and [`prepare_cover`] on the cover. `prepare_cover` rejects files
//! that are not real images, warns about shapes and sizes readers display badly, and shrinks
//! covers that are larger than stores and readers accept.
//!
//! Re-encoding policy when a cover must shrink (longest side over [`MAX_SIDE`] px or file over
//! [`MAX_BYTES`]): the image is scaled (Lanczos3, aspect kept) so its longest side is at most
//! [`TARGET_SIDE`], then
//! - JPEG stays JPEG (quality [`JPEG_QUALITY`]);
//! - PNG and GIF become PNG (lossless, keeps transparency and crisp artwork), unless that PNG is
//!   still over [`MAX_BYTES`]: then it is a photo saved as PNG, and it becomes JPEG with any
//!   transparency flattened onto white;
//! - WebP becomes JPEG when opaque, PNG when it has alpha (the `image` crate writes only
//!   lossless WebP, which would be far larger than the input).
//!
//! A cover within the limits is passed through byte for byte. Output is deterministic: same
//! bytes in, same bytes out.
//!
//! Every image from the project, cover or not, is read with a size cap
//! ([`super::MAX_IMAGE_BYTES`]), refused when its header claims more pixels than
//! [`super::raster`] allows or its file is cut short, and, when it is SVG, rebuilt by
//! [`super::svg`] without scripts or remote references. [`load_image`] does this for the images
//! chapters and stylesheets use.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use super::{MAX_IMAGE_BYTES, raster, svg};

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{CompressionType, FilterType as PngFilter, PngEncoder};
use image::imageops::FilterType;
use image::{DynamicImage, ImageDecoder, ImageEncoder, ImageReader};

/// Longest side, in pixels, above which a cover is scaled down.
pub const MAX_SIDE: u32 = 3200;
/// Longest side, in pixels, of a scaled-down cover (1600x2560 for a 1:1.6 cover).
pub const TARGET_SIDE: u32 = 2560;
/// File size above which a cover is re-encoded.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;
/// JPEG quality for re-encoded covers: visually lossless for photos at cover size.
pub const JPEG_QUALITY: u8 = 88;
/// Covers narrower than this look blurry on current readers.
pub const MIN_WIDTH: u32 = 500;

/// An image format EPUB 3.3 lists as a core media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// JPEG (JFIF/Exif).
    Jpeg,
    /// PNG.
    Png,
    /// GIF.
    Gif,
    /// WebP.
    Webp,
    /// SVG (XML).
    Svg,
}

impl ImageFormat {
    /// The media type for the manifest item.
    pub fn media_type(self) -> &'static str {
        match self {
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Png => "image/png",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
            ImageFormat::Svg => "image/svg+xml",
        }
    }

    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Jpeg => "jpg",
            ImageFormat::Png => "png",
            ImageFormat::Gif => "gif",
            ImageFormat::Webp => "webp",
            ImageFormat::Svg => "svg",
        }
    }

    fn name(self) -> &'static str {
        match self {
            ImageFormat::Jpeg => "JPEG",
            ImageFormat::Png => "PNG",
            ImageFormat::Gif => "GIF",
            ImageFormat::Webp => "WebP",
            ImageFormat::Svg => "SVG",
        }
    }

    fn codec(self) -> Option<image::ImageFormat> {
        match self {
            ImageFormat::Jpeg => Some(image::ImageFormat::Jpeg),
            ImageFormat::Png => Some(image::ImageFormat::Png),
            ImageFormat::Gif => Some(image::ImageFormat::Gif),
            ImageFormat::Webp => Some(image::ImageFormat::WebP),
            ImageFormat::Svg => None,
        }
    }
}

/// What [`sniff`] learns from an image's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageInfo {
    /// The format, from the magic bytes.
    pub format: ImageFormat,
    /// Width in pixels (SVG: from `width` or the `viewBox`, 0 if neither says).
    pub width: u32,
    /// Height in pixels (SVG: from `height` or the `viewBox`, 0 if neither says).
    pub height: u32,
}

/// A cover ready to be stored in the EPUB.
#[derive(Debug, Clone)]
pub struct PreparedImage {
    /// The bytes to store: the input unchanged, or a scaled re-encoding.
    pub bytes: Vec<u8>,
    /// Format and size of `bytes`.
    pub info: ImageInfo,
    /// What was done, for the build log (e.g. "scaled 6000x9600 -> 1600x2560").
    #[cfg_attr(not(test), allow(dead_code))] // not yet reported by the build: tests read it
    pub notes: Vec<String>,
    /// Problems the user may want to fix; the book still builds.
    pub warnings: Vec<String>,
}

/// Why an image cannot be used. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The file could not be read: not a regular file, over the size cap, or an I/O error.
    #[error("{0}")]
    Read(#[source] crate::error::Error),
    /// The bytes are no JPEG, PNG, GIF, WebP or SVG, whatever the file name says.
    #[error(
        "{}: not an image (JPEG, PNG, GIF, WebP or SVG)",
        crate::escape::path(path)
    )]
    NotAnImage {
        /// The image file.
        path: PathBuf,
    },
    /// The header claims more pixels than [`raster`] allows (a decompression bomb, or a
    /// scan far too large for a book).
    #[error("{}: {reason}", crate::escape::path(path))]
    TooLarge {
        /// The image file.
        path: PathBuf,
        /// What the header claims, and the limit.
        reason: raster::TooLarge,
    },
    /// The file ends before its format's end marker.
    #[error(
        "{}: the {format} image is truncated (the file ends before the image does); use the whole file",
        crate::escape::path(path)
    )]
    Truncated {
        /// The image file.
        path: PathBuf,
        /// Format from the header.
        format: &'static str,
    },
    /// The header looks right but the image does not decode (truncated or damaged file).
    #[error(
        "{}: the {format} image is damaged or truncated: {source}",
        crate::escape::path(path)
    )]
    Damaged {
        /// The image file.
        path: PathBuf,
        /// Format from the header.
        format: &'static str,
        /// What the decoder said.
        source: image::ImageError,
    },
    /// An SVG file that cannot be read as SVG.
    #[error("{}: the SVG is not usable: {reason}", crate::escape::path(path))]
    BadSvg {
        /// The image file.
        path: PathBuf,
        /// What is wrong.
        reason: svg::SvgError,
    },
    /// Scaling worked but writing the smaller image failed.
    #[error(
        "{}: could not re-encode the scaled cover: {source}",
        crate::escape::path(path)
    )]
    Encode {
        /// The cover file.
        path: PathBuf,
        /// What the encoder said.
        source: image::ImageError,
    },
}

/// An image a chapter or stylesheet uses, checked and ready for the book.
#[derive(Debug, Clone)]
pub struct BookImage {
    /// File name in the book, from the content (`img-<hash>.<ext>`), so that the same image
    /// used twice is stored once.
    pub name: String,
    /// Format and size.
    pub info: ImageInfo,
    /// The bytes to store (an SVG as rebuilt by [`svg::clean_with`]).
    pub bytes: Vec<u8>,
    /// What was removed from an SVG, for the build log.
    pub warnings: Vec<String>,
}

impl From<BookImage> for crate::book::Image {
    fn from(image: BookImage) -> Self {
        crate::book::Image {
            name: image.name,
            media_type: image.info.format.media_type(),
            data: image.bytes,
            width: image.info.width,
            height: image.info.height,
        }
    }
}

/// Loads the image at `path` for the book and adds it to `images` unless the same image is
/// there already; what was removed from an SVG goes to `warnings`. Returns the image's file
/// name in the book. `path` is one a project names: the caller has let it through the
/// project's containment check (`project::Boundary`) first.
pub fn carry(
    boundary: &crate::project::Boundary,
    path: &Path,
    images: &mut Vec<crate::book::Image>,
    warnings: &mut Vec<crate::diagnostic::Diagnostic>,
) -> Result<String, ImageError> {
    use crate::diagnostic::{Code, Diagnostic};
    let image = load_image(boundary, path)?;
    warnings.extend(
        image
            .warnings
            .iter()
            .map(|message| Diagnostic::warning(Code::Svg, message.as_str()).at(path)),
    );
    let name = image.name.clone();
    if !images.iter().any(|i| i.name == name) {
        images.push(image.into());
    }
    Ok(name)
}

/// Reads the image at `path` (at most [`MAX_IMAGE_BYTES`], a regular file) and checks it: a
/// JPEG, PNG, GIF, WebP or SVG image whose header claims no more than [`raster`] allows and
/// whose file is whole; an SVG is rebuilt without scripts or remote references. It is opened
/// through the project folder's `boundary`, as every file of the project is.
pub fn load_image(
    boundary: &crate::project::Boundary,
    path: &Path,
) -> Result<BookImage, ImageError> {
    let data = boundary
        .read_limited(path, MAX_IMAGE_BYTES, "image")
        .map_err(ImageError::Read)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let pictures = |href: &str| picture_data_url(boundary, dir, href);
    let (bytes, info, warnings) = check(data, path, &pictures)?;
    let hex = blake3::hash(&bytes).to_hex();
    Ok(BookImage {
        name: format!("img-{}.{}", &hex[..12], info.format.extension()),
        info,
        bytes,
        warnings,
    })
}

/// The `data:` URL of the raster picture (JPEG, PNG, GIF, WebP, checked as any picture is)
/// that an SVG file in `dir` names with `href`; None when it is outside the project, cannot
/// be read, or is not such a picture (the `<image>` then goes, with the SVG's warning). The
/// name is a URL's: its `%` escapes are decoded (`cover%20art.png` is `cover art.png`; the
/// picture was removed), and one that decodes to no UTF-8 names no file.
fn picture_data_url(boundary: &crate::project::Boundary, dir: &Path, href: &str) -> Option<String> {
    let end = href.find(['?', '#']).unwrap_or(href.len());
    let file = url_path(&href[..end])?;
    if file.is_empty() {
        return None;
    }
    let target = boundary.admit(dir, &file).ok()?;
    let data = boundary
        .read_limited(&target, MAX_IMAGE_BYTES, "image")
        .ok()?;
    let (bytes, info, _) = check(data, &target, &|_| None).ok()?;
    (info.format != ImageFormat::Svg).then(|| {
        let media_type = info.format.media_type();
        format!("data:{media_type};base64,{}", super::base64::encode(&bytes))
    })
}

/// A URL's path with its `%XX` escapes decoded (a `%` not followed by two hex digits stays);
/// None when the bytes are no UTF-8.
fn url_path(path: &str) -> Option<String> {
    if !path.contains('%') {
        return Some(path.to_string());
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Recognises `bytes`, checks a raster image's header and completeness, and rebuilds an SVG
/// (keeping the pictures beside it that `pictures` puts inside, see [`svg::clean_with`]).
/// Returns the bytes to use, their format and size, and what was removed from an SVG.
fn check(
    bytes: Vec<u8>,
    path: &Path,
    pictures: &dyn Fn(&str) -> Option<String>,
) -> Result<(Vec<u8>, ImageInfo, Vec<String>), ImageError> {
    let info = sniff(&bytes).ok_or_else(|| ImageError::NotAnImage {
        path: path.to_path_buf(),
    })?;
    if info.format == ImageFormat::Svg {
        let cleaned = svg::clean_with(&bytes, pictures).map_err(|reason| ImageError::BadSvg {
            path: path.to_path_buf(),
            reason,
        })?;
        let warnings = cleaned.summary().into_iter().collect();
        let info = sniff(&cleaned.bytes).unwrap_or(info);
        return Ok((cleaned.bytes, info, warnings));
    }
    raster::check_dimensions(info.width, info.height).map_err(|reason| ImageError::TooLarge {
        path: path.to_path_buf(),
        reason,
    })?;
    if !is_complete(info.format, &bytes) {
        return Err(ImageError::Truncated {
            path: path.to_path_buf(),
            format: info.format.name(),
        });
    }
    Ok((bytes, info, Vec::new()))
}

/// Recognises an image by its magic bytes and reads its size from the header, without
/// decoding the pixels. None when the bytes are not a supported image.
pub fn sniff(bytes: &[u8]) -> Option<ImageInfo> {
    let format = if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        ImageFormat::Jpeg
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        ImageFormat::Png
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        ImageFormat::Gif
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        ImageFormat::Webp
    } else {
        let (width, height) = svg_size(bytes)?;
        return Some(ImageInfo {
            format: ImageFormat::Svg,
            width,
            height,
        });
    };
    let codec = format.codec()?;
    let (width, height) = ImageReader::with_format(Cursor::new(bytes), codec)
        .into_dimensions()
        .ok()?;
    Some(ImageInfo {
        format,
        width,
        height,
    })
}

/// Checks a cover and, when it is too large, scales and re-encodes it (see the module docs for
/// the policy). `path` is used only in messages.
pub fn prepare_cover(bytes: &[u8], path: &Path) -> Result<PreparedImage, ImageError> {
    let (checked, info, mut warnings) = check(bytes.to_vec(), path, &|_| None)?;
    let Some(codec) = info.format.codec() else {
        return Ok(svg_cover(checked, info, warnings));
    };
    let mut decoded = decode_cover(bytes, &info, codec, path)?;
    let longest = info.width.max(info.height);
    if longest <= MAX_SIDE && bytes.len() <= MAX_BYTES {
        shape_warnings(&info, &mut warnings);
        return Ok(PreparedImage {
            bytes: bytes.to_vec(),
            info,
            notes: Vec::new(),
            warnings,
        });
    }
    let mut notes = Vec::new();
    let (w, h) = (decoded.width(), decoded.height());
    if w.max(h) > TARGET_SIDE {
        decoded = decoded.resize(TARGET_SIDE, TARGET_SIDE, FilterType::Lanczos3);
        notes.push(format!(
            "scaled {w}x{h} -> {}x{}",
            decoded.width(),
            decoded.height()
        ));
    }
    let (out, format) = reencode(&decoded, info.format, path)?;
    if out.len() >= bytes.len() && format == info.format && notes.is_empty() {
        // Re-encoding a file that was only over the byte limit did not make it smaller: keep
        // the original rather than lose quality for nothing.
        shape_warnings(&info, &mut warnings);
        warnings.push(format!(
            "cover is {} KB; readers and stores prefer under {} KB",
            bytes.len() / 1024,
            MAX_BYTES / 1024
        ));
        return Ok(PreparedImage {
            bytes: bytes.to_vec(),
            info,
            notes,
            warnings,
        });
    }
    let quality = if format == ImageFormat::Jpeg {
        format!(" (quality {JPEG_QUALITY})")
    } else {
        String::new()
    };
    notes.push(format!(
        "re-encoded {} {} KB -> {}{quality} {} KB",
        info.format.name(),
        bytes.len() / 1024,
        format.name(),
        out.len() / 1024
    ));
    let out_info = ImageInfo {
        format,
        width: decoded.width(),
        height: decoded.height(),
    };
    shape_warnings(&out_info, &mut warnings);
    Ok(PreparedImage {
        bytes: out,
        info: out_info,
        notes,
        warnings,
    })
}

/// An SVG cover, kept as checked (and cleaned).
fn svg_cover(checked: Vec<u8>, info: ImageInfo, mut warnings: Vec<String>) -> PreparedImage {
    shape_warnings(&info, &mut warnings);
    if info.width == 0 || info.height == 0 {
        warnings.push(
            "SVG cover has no width/height or viewBox; readers may size it oddly".to_string(),
        );
    }
    PreparedImage {
        bytes: checked,
        info,
        notes: Vec::new(),
        warnings,
    }
}

/// True when the file of a raster image runs to its format's end marker ([`raster`] walks
/// each format); SVG is checked by parsing it (see [`svg`]), so it is always true here.
pub(super) fn is_complete(format: ImageFormat, bytes: &[u8]) -> bool {
    match format {
        ImageFormat::Jpeg => raster::jpeg_complete(bytes),
        ImageFormat::Png => raster::png_complete(bytes),
        ImageFormat::Gif => raster::gif_complete(bytes),
        ImageFormat::Webp => raster::webp_complete(bytes),
        ImageFormat::Svg => true,
    }
}

/// Decodes a raster cover fully, under the decoding limits, turned as a camera's Exif says.
/// Even a cover small enough to keep is decoded: a damaged file has a valid header and would
/// show as a broken image in every reader.
fn decode_cover(
    bytes: &[u8],
    info: &ImageInfo,
    codec: image::ImageFormat,
    path: &Path,
) -> Result<DynamicImage, ImageError> {
    let damaged = |source| ImageError::Damaged {
        path: path.to_path_buf(),
        format: info.format.name(),
        source,
    };
    let mut reader = ImageReader::with_format(Cursor::new(bytes), codec);
    reader.limits(raster::limits());
    let mut decoder = reader.into_decoder().map_err(damaged)?;
    let orientation = decoder.orientation().ok();
    let mut decoded = DynamicImage::from_decoder(decoder).map_err(damaged)?;
    // A re-encoded file carries no Exif, so the rotation a camera recorded is applied now
    // (a cover kept as it is keeps its Exif).
    if let Some(orientation) = orientation {
        decoded.apply_orientation(orientation);
    }
    Ok(decoded)
}

/// The cover re-encoded: PNG for PNG, GIF and transparent WebP (JPEG when the PNG is too
/// large), JPEG otherwise.
fn reencode(
    decoded: &DynamicImage,
    from: ImageFormat,
    path: &Path,
) -> Result<(Vec<u8>, ImageFormat), ImageError> {
    let encode_err = |source| ImageError::Encode {
        path: path.to_path_buf(),
        source,
    };
    let has_alpha = decoded.color().has_alpha() && !is_opaque(decoded);
    let wants_png = match from {
        ImageFormat::Png | ImageFormat::Gif => true,
        ImageFormat::Webp => has_alpha,
        ImageFormat::Jpeg | ImageFormat::Svg => false,
    };
    if wants_png {
        let png = encode_png(decoded).map_err(encode_err)?;
        if png.len() <= MAX_BYTES {
            return Ok((png, ImageFormat::Png));
        }
    }
    Ok((encode_jpeg(decoded).map_err(encode_err)?, ImageFormat::Jpeg))
}

fn is_opaque(img: &DynamicImage) -> bool {
    match img {
        DynamicImage::ImageLumaA8(i) => i.pixels().all(|p| p.0[1] == u8::MAX),
        DynamicImage::ImageRgba8(i) => i.pixels().all(|p| p.0[3] == u8::MAX),
        DynamicImage::ImageLumaA16(i) => i.pixels().all(|p| p.0[1] == u16::MAX),
        DynamicImage::ImageRgba16(i) => i.pixels().all(|p| p.0[3] == u16::MAX),
        other => !other.color().has_alpha() || other.to_rgba8().pixels().all(|p| p.0[3] == 255),
    }
}

fn encode_png(img: &DynamicImage) -> Result<Vec<u8>, image::ImageError> {
    let mut out = Vec::new();
    let img = match img {
        DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => {
            img.clone()
        }
        other if other.color().has_alpha() => DynamicImage::ImageRgba8(other.to_rgba8()),
        other => DynamicImage::ImageRgb8(other.to_rgb8()),
    };
    PngEncoder::new_with_quality(&mut out, CompressionType::Best, PngFilter::Adaptive)
        .write_image(
            img.as_bytes(),
            img.width(),
            img.height(),
            img.color().into(),
        )?;
    Ok(out)
}

fn encode_jpeg(img: &DynamicImage) -> Result<Vec<u8>, image::ImageError> {
    let rgb = if img.color().has_alpha() {
        // Flatten onto white: JPEG has no alpha, and readers show covers on light pages.
        let rgba = img.to_rgba8();
        let mut rgb = image::RgbImage::new(rgba.width(), rgba.height());
        for (dst, src) in rgb.pixels_mut().zip(rgba.pixels()) {
            let a = u16::from(src.0[3]);
            for (d, s) in dst.0.iter_mut().zip(src.0.iter()) {
                *d = ((u16::from(*s) * a + 255 * (255 - a) + 127) / 255) as u8;
            }
        }
        rgb
    } else {
        img.to_rgb8()
    };
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY).encode_image(&rgb)?;
    Ok(out)
}

fn shape_warnings(info: &ImageInfo, warnings: &mut Vec<String>) {
    let (w, h) = (info.width, info.height);
    if w == 0 || h == 0 {
        return;
    }
    let ratio = f64::from(h) / f64::from(w);
    if ratio < 1.0 {
        warnings.push(format!(
            "cover is landscape ({w}x{h}); readers expect portrait ~1:1.6"
        ));
    } else if ratio < 1.2 {
        warnings.push(format!(
            "cover is nearly square ({w}x{h}); readers expect portrait ~1:1.6"
        ));
    } else if ratio > 2.0 {
        warnings.push(format!(
            "cover is very tall ({w}x{h}, 1:{ratio:.2}); readers expect portrait ~1:1.6"
        ));
    }
    if info.format != ImageFormat::Svg && w < MIN_WIDTH {
        warnings.push(format!(
            "cover is small ({w}x{h}); it will look blurry, {MIN_WIDTH} px wide or more is better (1600x2560 is ideal)"
        ));
    }
}

/// Size of an SVG document from its root element, or None if the bytes are not SVG.
///
/// Only the prolog (XML declaration, comments, doctype, processing instructions) may come
/// before `<svg`, so an HTML page with an inline SVG is not taken for an SVG file.
fn svg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let head = bytes.get(..bytes.len().min(64 * 1024))?;
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // The cut may split a character: keep the valid prefix.
        Err(e) => std::str::from_utf8(head.get(..e.valid_up_to())?).ok()?,
    };
    let mut rest = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("<?") {
            rest = r.split_once("?>")?.1;
        } else if let Some(r) = rest.strip_prefix("<!--") {
            rest = r.split_once("-->")?.1;
        } else if let Some(r) = rest.strip_prefix("<!DOCTYPE") {
            // A doctype may have an internal subset in brackets.
            let end = match (r.find('['), r.find('>')) {
                (Some(b), Some(g)) if b < g => r.find("]>").map(|i| i + 2)?,
                (_, Some(g)) => g + 1,
                _ => return None,
            };
            rest = r.get(end..)?;
        } else {
            break;
        }
    }
    let r = rest.strip_prefix("<svg")?;
    if !r.starts_with(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/') {
        return None;
    }
    let tag = &r[..r.find('>')?];
    let attr = |name: &str| svg_attr(tag, name);
    let view_box: Option<Vec<f64>> = attr("viewBox").map(|v| {
        v.split(|c: char| c.is_ascii_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse().ok())
            .collect()
    });
    let (vb_w, vb_h) = match view_box.as_deref() {
        Some([_, _, w, h]) if *w > 0.0 && *h > 0.0 => (Some(*w), Some(*h)),
        _ => (None, None),
    };
    let width = attr("width").and_then(svg_length).or(vb_w).unwrap_or(0.0);
    let height = attr("height").and_then(svg_length).or(vb_h).unwrap_or(0.0);
    let px = |v: f64| {
        if v.is_finite() && v > 0.0 {
            v.round().min(f64::from(u32::MAX)) as u32
        } else {
            0
        }
    };
    Some((px(width), px(height)))
}

/// Value of attribute `name` in the text of a start tag (without the `<name`).
fn svg_attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut rest = tag;
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim_end();
        let key = key
            .rsplit(|c: char| c.is_ascii_whitespace())
            .next()
            .unwrap_or("");
        let after = rest[eq + 1..].trim_start();
        let quote = after.chars().next()?;
        if quote != '"' && quote != '\'' {
            return None;
        }
        let body = &after[1..];
        let end = body.find(quote)?;
        if key == name {
            return Some(&body[..end]);
        }
        rest = &body[end + 1..];
    }
    None
}

/// An SVG length in CSS pixels; None for relative units (%, em), which give no size.
fn svg_length(v: &str) -> Option<f64> {
    let v = v.trim();
    let split = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: f64 = num.parse().ok()?;
    let scale = match unit.trim() {
        "" | "px" => 1.0,
        "pt" => 96.0 / 72.0,
        "pc" => 16.0,
        "in" => 96.0,
        "cm" => 96.0 / 2.54,
        "mm" => 96.0 / 25.4,
        _ => return None,
    };
    Some(n * scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage, Rgba, RgbaImage};

    /// A photo-like image: smooth gradients plus some texture, so JPEG sizes are realistic.
    fn photo(w: u32, h: u32) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            let t = ((x * 7 + y * 13) % 17) as u8;
            Rgb([
                (x * 255 / w.max(1)) as u8 ^ t,
                (y * 255 / h.max(1)) as u8,
                ((x + y) % 256) as u8,
            ])
        })
    }

    fn jpeg(img: &RgbImage, q: u8) -> Vec<u8> {
        let mut out = Vec::new();
        JpegEncoder::new_with_quality(&mut out, q)
            .encode_image(img)
            .expect("encode");
        out
    }

    fn png_rgba(img: &RgbaImage) -> Vec<u8> {
        let mut out = Vec::new();
        PngEncoder::new(&mut out)
            .write_image(
                img.as_raw(),
                img.width(),
                img.height(),
                image::ExtendedColorType::Rgba8,
            )
            .expect("encode");
        out
    }

    fn png(img: &RgbImage) -> Vec<u8> {
        let mut out = Vec::new();
        PngEncoder::new(&mut out)
            .write_image(
                img.as_raw(),
                img.width(),
                img.height(),
                image::ExtendedColorType::Rgb8,
            )
            .expect("encode");
        out
    }

    #[test]
    fn sniff_reads_format_and_size_from_headers() {
        let j = sniff(&jpeg(&photo(64, 100), 80)).expect("jpeg");
        assert_eq!((j.format, j.width, j.height), (ImageFormat::Jpeg, 64, 100));
        let p = sniff(&png(&photo(30, 48))).expect("png");
        assert_eq!((p.format, p.width, p.height), (ImageFormat::Png, 30, 48));

        let mut gif = Vec::new();
        image::codecs::gif::GifEncoder::new(&mut gif)
            .encode(&[0u8; 4 * 5 * 8], 5, 8, image::ExtendedColorType::Rgba8)
            .expect("gif");
        let g = sniff(&gif).expect("gif");
        assert_eq!((g.format, g.width, g.height), (ImageFormat::Gif, 5, 8));

        let mut webp = Vec::new();
        image::codecs::webp::WebPEncoder::new_lossless(&mut webp)
            .encode(&[9u8; 3 * 7 * 11], 7, 11, image::ExtendedColorType::Rgb8)
            .expect("webp");
        let w = sniff(&webp).expect("webp");
        assert_eq!((w.format, w.width, w.height), (ImageFormat::Webp, 7, 11));
        assert_eq!(w.format.media_type(), "image/webp");
        assert_eq!(ImageFormat::Jpeg.extension(), "jpg");
    }

    #[test]
    fn sniff_reads_svg_size_from_attributes_or_viewbox() {
        let s = sniff(b"<?xml version=\"1.0\"?>\n<!-- c -->\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"960px\"></svg>")
            .expect("svg");
        assert_eq!((s.format, s.width, s.height), (ImageFormat::Svg, 600, 960));
        let s = sniff(b"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1600 2560'/>")
            .expect("svg");
        assert_eq!((s.width, s.height), (1600, 2560));
        let s = sniff(b"<svg width=\"100%\" height=\"100%\" viewBox=\"0,0,10.4,20\"></svg>")
            .expect("svg");
        assert_eq!((s.width, s.height), (10, 20));
        let s = sniff(
            b"\xEF\xBB\xBF<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"x\"><svg></svg>",
        )
        .expect("svg");
        assert_eq!((s.width, s.height), (0, 0));
        assert!(sniff(b"<html><body><svg width=\"1\"></svg></body></html>").is_none());
        assert!(sniff(b"<svgfoo/>").is_none());
    }

    #[test]
    fn sniff_rejects_non_images_and_never_panics_on_short_input() {
        for bytes in [
            &b""[..],
            b"\xFF",
            b"\xFF\xD8\xFF",
            b"\x89PNG\r\n\x1a\n",
            b"RIFF\0\0\0\0WEBP",
            b"GIF89a",
            b"Chapter 1\nIt was a dark night.",
            b"<svg",
            b"<?xml",
        ] {
            assert!(sniff(bytes).is_none(), "{bytes:?}");
        }
    }

    #[test]
    fn text_file_named_jpg_is_an_error_naming_the_path() {
        let err = prepare_cover(b"this is not a picture", Path::new("book/cover.jpg"))
            .expect_err("not an image");
        assert!(matches!(err, ImageError::NotAnImage { .. }));
        assert!(err.to_string().contains("book/cover.jpg"), "{err}");
    }

    #[test]
    fn truncated_png_is_an_error_even_though_its_header_is_fine() {
        let full = png(&photo(600, 960));
        let cut = &full[..full.len() / 2];
        assert!(sniff(cut).is_some(), "header alone still sniffs");
        let err = prepare_cover(cut, Path::new("cover.png")).expect_err("truncated");
        assert!(
            matches!(err, ImageError::Truncated { format: "PNG", .. }),
            "{err}"
        );
        assert!(err.to_string().contains("cover.png"));
    }

    #[test]
    fn good_cover_passes_through_unchanged_without_warnings() {
        let bytes = jpeg(&photo(800, 1280), 85);
        let out = prepare_cover(&bytes, Path::new("c.jpg")).expect("ok");
        assert_eq!(out.bytes, bytes);
        assert!(out.notes.is_empty() && out.warnings.is_empty(), "{out:?}");
        assert_eq!((out.info.width, out.info.height), (800, 1280));
    }

    #[test]
    fn landscape_and_tiny_covers_are_warned_about() {
        let out = prepare_cover(&png(&photo(1000, 500)), Path::new("c.png")).expect("ok");
        assert!(
            out.warnings
                .iter()
                .any(|w| w.contains("landscape (1000x500)")),
            "{:?}",
            out.warnings
        );
        let out = prepare_cover(&png(&photo(300, 480)), Path::new("c.png")).expect("ok");
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
        assert!(out.warnings[0].contains("small (300x480)"));
    }

    #[test]
    fn huge_jpeg_is_scaled_to_target_and_stays_jpeg_deterministically() {
        // Narrow, so the test stays quick in unoptimised builds.
        let input = jpeg(&photo(400, 3300), 90);
        let a = prepare_cover(&input, Path::new("big.jpg")).expect("ok");
        assert_eq!(a.info.format, ImageFormat::Jpeg);
        assert_eq!((a.info.width, a.info.height), (310, 2560));
        let sniffed = sniff(&a.bytes).expect("output sniffs");
        assert_eq!(sniffed, a.info);
        assert!(
            a.notes.iter().any(|n| n == "scaled 400x3300 -> 310x2560"),
            "{:?}",
            a.notes
        );
        let b = prepare_cover(&input, Path::new("big.jpg")).expect("ok");
        assert_eq!(a.bytes, b.bytes, "same input, same output");
    }

    #[test]
    fn huge_png_with_transparency_stays_png() {
        let img = RgbaImage::from_fn(3300, 400, |x, _| Rgba([200, 10, 10, (x % 256) as u8]));
        let out = prepare_cover(&png_rgba(&img), Path::new("wide.png")).expect("ok");
        assert_eq!(out.info.format, ImageFormat::Png);
        assert_eq!((out.info.width, out.info.height), (2560, 310));
        assert!(out.warnings.iter().any(|w| w.contains("landscape")));
        let back = image::load_from_memory(&out.bytes).expect("decodes");
        assert!(back.color().has_alpha());
    }

    #[test]
    fn svg_cover_is_kept_and_truncated_svg_rejected() {
        let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1600 2560\"><rect width=\"10\" height=\"10\"/></svg>\n";
        let out = prepare_cover(svg, Path::new("c.svg")).expect("ok");
        let text = String::from_utf8(out.bytes).expect("utf-8");
        assert!(
            text.ends_with(
                "viewBox=\"0 0 1600 2560\"><rect width=\"10\" height=\"10\"></rect></svg>"
            ),
            "{text}"
        );
        assert_eq!(out.info.format, ImageFormat::Svg);
        assert_eq!((out.info.width, out.info.height), (1600, 2560));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let err = prepare_cover(&svg[..80], Path::new("c.svg")).expect_err("truncated");
        assert!(matches!(err, ImageError::BadSvg { .. }));
    }

    #[test]
    fn scripted_svg_cover_is_cleaned_with_a_warning() {
        let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1600 2560\" onload=\"alert(1)\"><script>alert(2)</script><rect width=\"10\" height=\"10\"/></svg>";
        let out = prepare_cover(svg, Path::new("c.svg")).expect("ok");
        let text = String::from_utf8(out.bytes).expect("utf-8");
        assert!(!text.contains("alert"), "{text}");
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
        assert!(out.warnings[0].contains("<script> ×1") && out.warnings[0].contains("onload="));
    }

    /// `png` with its header claiming `w` x `h` pixels (the pixel data is left as it was).
    fn claiming_png(png: &[u8], w: u32, h: u32) -> Vec<u8> {
        let mut out = png.to_vec();
        out[16..20].copy_from_slice(&w.to_be_bytes());
        out[20..24].copy_from_slice(&h.to_be_bytes());
        let crc = crc32fast::hash(&out[12..29]);
        out[29..33].copy_from_slice(&crc.to_be_bytes());
        out
    }

    /// `jpeg` with its frame header claiming `w` x `h` pixels.
    fn claiming_jpeg(jpeg: &[u8], w: u16, h: u16) -> Vec<u8> {
        let mut out = jpeg.to_vec();
        let sof = out
            .windows(2)
            .position(|m| m == [0xFF, 0xC0])
            .expect("baseline JPEG");
        out[sof + 5..sof + 7].copy_from_slice(&h.to_be_bytes());
        out[sof + 7..sof + 9].copy_from_slice(&w.to_be_bytes());
        out
    }

    #[test]
    fn decompression_bombs_are_refused_from_the_header() {
        let small = png(&photo(64, 64));
        let bomb = claiming_png(&small, 30_000, 30_000);
        let err = prepare_cover(&bomb, Path::new("bomb.png")).expect_err("bomb");
        assert!(matches!(err, ImageError::TooLarge { .. }), "{err}");
        assert!(
            err.to_string().contains("bomb.png: it claims 30000x30000"),
            "{err}"
        );
        let jpeg = claiming_jpeg(&jpeg(&photo(64, 64), 80), 60_000, 60_000);
        assert_eq!(
            sniff(&jpeg).map(|i| (i.width, i.height)),
            Some((60_000, 60_000))
        );
        let err = prepare_cover(&jpeg, Path::new("bomb.jpg")).expect_err("bomb");
        assert!(matches!(err, ImageError::TooLarge { .. }), "{err}");
        // Within the side limit, over the area limit.
        let wide = claiming_png(&small, 9000, 9000);
        assert!(matches!(
            prepare_cover(&wide, Path::new("big.png")),
            Err(ImageError::TooLarge { .. })
        ));
    }

    #[test]
    fn truncated_jpeg_is_an_error_although_its_decoder_would_fill_in_grey() {
        let full = jpeg(&photo(600, 960), 85);
        let cut = &full[..full.len() * 2 / 3];
        let err = prepare_cover(cut, Path::new("cover.jpg")).expect_err("truncated");
        assert!(
            matches!(err, ImageError::Truncated { format: "JPEG", .. }),
            "{err}"
        );
        assert!(err.to_string().contains("cover.jpg"));
    }

    #[test]
    fn book_images_are_read_checked_and_named_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let boundary = crate::project::Boundary::new(dir.path(), false);
        let a = dir.path().join("a.png");
        std::fs::write(&a, png(&photo(30, 20))).unwrap();
        let image = load_image(&boundary, &a).expect("loads");
        assert!(image.name.starts_with("img-") && image.name.ends_with(".png"));
        assert_eq!((image.info.width, image.info.height), (30, 20));
        let b = dir.path().join("b.svg");
        std::fs::write(
            &b,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"5\" height=\"8\"><script/></svg>",
        )
        .unwrap();
        let image = load_image(&boundary, &b).expect("loads");
        assert_eq!(image.warnings.len(), 1);
        assert_eq!((image.info.width, image.info.height), (5, 8));
        let big = dir.path().join("big.png");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_IMAGE_BYTES + 1)
            .unwrap();
        let err = load_image(&boundary, &big)
            .expect_err("too large")
            .to_string();
        assert!(err.contains("big.png") && err.contains("50 MB"), "{err}");
    }
}
