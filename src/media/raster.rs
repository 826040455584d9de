//! What a raster image (JPEG, PNG, GIF, WebP) may claim, and whether its file is whole.
//!
//! An image's header says how large it is before a single pixel is decoded, and decoders
//! allocate for what the header says: a 3.5 MB PNG claiming 30000x30000 pixels made a build
//! take 4.75 GB, and a JPEG header claiming 60000x60000 aborted the process. So the header is
//! checked against [`MAX_SIDE`] and [`MAX_PIXELS`] first ([`check_dimensions`]), and every
//! decode runs under [`limits`] as well, in case a decoder finds more than the header said.
//!
//! A truncated file has a valid header, and some decoders (JPEG's) fill the missing part with
//! grey instead of failing: `jpeg_complete` and its siblings walk the file's structure to its end marker
//! (JPEG's EOI, PNG's IEND chunk, GIF's trailer, the RIFF size of WebP) without decoding, cheap
//! enough for every chapter image of every build.
//!
//! The limits: a real cover is a few thousand pixels a side (stores ask for 1600x2560), and
//! illustrations are smaller. [`MAX_SIDE`] is 16384 (WebP's own maximum is 16383), and
//! [`MAX_PIXELS`] is 40 megapixels, above what phone cameras save by default; decoding that
//! much takes at most 320 MB (16-bit RGBA), under [`MAX_DECODE_BYTES`].

/// The longest side, in pixels, an image may claim.
pub const MAX_SIDE: u32 = 16_384;
/// The most pixels an image may claim (width times height).
pub const MAX_PIXELS: u64 = 40_000_000;
/// The most memory a decoder may allocate for one image.
pub const MAX_DECODE_BYTES: u64 = 512 * 1024 * 1024;

/// Why an image's header is refused; the message is in words for the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TooLarge {
    /// A side longer than [`MAX_SIDE`].
    #[error(
        "it claims {width}x{height} pixels, more than the limit of {MAX_SIDE} a side \
         (a cover needs about 1600x2560); scale it down"
    )]
    Side {
        /// Width the header claims.
        width: u32,
        /// Height the header claims.
        height: u32,
    },
    /// More pixels than [`MAX_PIXELS`].
    #[error(
        "it claims {width}x{height} pixels ({} megapixels), more than the limit of {} \
         megapixels (a cover needs about 4); scale it down",
        u64::from(*width) * u64::from(*height) / 1_000_000,
        MAX_PIXELS / 1_000_000
    )]
    Area {
        /// Width the header claims.
        width: u32,
        /// Height the header claims.
        height: u32,
    },
}

/// Checks an image header's dimensions against [`MAX_SIDE`] and [`MAX_PIXELS`].
pub fn check_dimensions(width: u32, height: u32) -> Result<(), TooLarge> {
    let pixels = u64::from(width) * u64::from(height);
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(TooLarge::Side { width, height });
    }
    if pixels > MAX_PIXELS {
        return Err(TooLarge::Area { width, height });
    }
    Ok(())
}

/// The decoder limits every decode of a project's image runs under.
pub fn limits() -> image::Limits {
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    limits
}

fn be16(bytes: &[u8], at: usize) -> Option<usize> {
    Some(usize::from(u16::from_be_bytes([
        *bytes.get(at)?,
        *bytes.get(at + 1)?,
    ])))
}

/// Walks the JPEG's segments (skipping each by its length, and each scan's entropy-coded data
/// to the next marker) until the EOI marker. An Exif thumbnail's own EOI sits inside an APP1
/// segment and is skipped with it.
pub(super) fn jpeg_complete(bytes: &[u8]) -> bool {
    let mut at = 2; // after SOI
    loop {
        // Stray bytes before a marker are skipped, as libjpeg does (with a warning), and a
        // marker may be preceded by any number of 0xFF fill bytes.
        let Some(skip) = bytes
            .get(at..)
            .and_then(|b| b.iter().position(|&b| b == 0xFF))
        else {
            return false;
        };
        at += skip;
        while bytes.get(at) == Some(&0xFF) && bytes.get(at + 1) == Some(&0xFF) {
            at += 1;
        }
        let Some(&marker) = bytes.get(at + 1) else {
            return false;
        };
        at += 2;
        match marker {
            0xD9 => return true,
            0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let Some(length) = be16(bytes, at).filter(|l| *l >= 2) else {
            return false;
        };
        at += length;
        if marker == 0xDA {
            // Entropy-coded data: 0xFF is followed by 0x00 (a stuffed byte) or a restart
            // marker; anything else is the next marker.
            loop {
                let Some(rel) = bytes
                    .get(at..)
                    .and_then(|b| b.iter().position(|&b| b == 0xFF))
                else {
                    return false;
                };
                at += rel;
                match bytes.get(at + 1) {
                    None => return false,
                    Some(0x00 | 0xD0..=0xD7) => at += 2,
                    Some(_) => break,
                }
            }
        }
    }
}

/// Walks the PNG's chunks (length, type, data, CRC) until IEND.
pub(super) fn png_complete(bytes: &[u8]) -> bool {
    let mut at = 8; // after the signature
    while let Some(length) = bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_be_bytes)
    {
        let end = at + 12 + length as usize;
        if end > bytes.len() {
            return false;
        }
        if bytes.get(at + 4..at + 8) == Some(b"IEND") {
            return true;
        }
        at = end;
    }
    false
}

/// Walks the GIF's blocks (extensions and images, each a run of sub-blocks) until the trailer;
/// a file that ends right after a whole image, without the trailer byte, is whole too (some
/// encoders leave it out, and every decoder shows the image).
pub(super) fn gif_complete(bytes: &[u8]) -> bool {
    let table = |flags: u8| {
        if flags & 0x80 != 0 {
            3 << ((flags & 7) + 1)
        } else {
            0
        }
    };
    let Some(&flags) = bytes.get(10) else {
        return false;
    };
    let mut at = 13 + table(flags);
    // Sub-blocks: a size byte, that many bytes, until a zero size.
    let skip_sub_blocks = |mut at: usize| -> Option<usize> {
        loop {
            let size = usize::from(*bytes.get(at)?);
            at += 1 + size;
            if size == 0 {
                return Some(at);
            }
        }
    };
    let mut images = 0;
    loop {
        let next = match bytes.get(at) {
            Some(0x3B) => return true,
            None => return images > 0,
            // Extension: introducer, label, sub-blocks.
            Some(0x21) => skip_sub_blocks(at + 2),
            // Image: descriptor (10 bytes), local color table, LZW code size, sub-blocks.
            Some(0x2C) => {
                images += 1;
                bytes
                    .get(at + 9)
                    .and_then(|&flags| skip_sub_blocks(at + 10 + table(flags) + 1))
            }
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => return false,
        }
    }
}

/// A WebP file holds at least the size its RIFF header gives.
pub(super) fn webp_complete(bytes: &[u8]) -> bool {
    bytes
        .get(4..8)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .is_some_and(|size| 8 + u64::from(size) <= bytes.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::super::image::{ImageFormat, is_complete};
    use super::*;
    use image::{ImageEncoder, Rgb, RgbImage};

    fn picture() -> RgbImage {
        RgbImage::from_fn(64, 48, |x, y| {
            Rgb([(x * 4) as u8, (y * 5) as u8, (x ^ y) as u8])
        })
    }

    fn encoded(format: image::ImageFormat) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        picture().write_to(&mut out, format).expect("encode");
        out.into_inner()
    }

    #[test]
    fn whole_files_are_complete_and_every_cut_is_not() {
        for (format, codec) in [
            (ImageFormat::Jpeg, image::ImageFormat::Jpeg),
            (ImageFormat::Png, image::ImageFormat::Png),
            (ImageFormat::Gif, image::ImageFormat::Gif),
            (ImageFormat::Webp, image::ImageFormat::WebP),
        ] {
            let whole = encoded(codec);
            assert!(is_complete(format, &whole), "{format:?} whole");
            for cut in [whole.len() - 2, whole.len() * 2 / 3, whole.len() / 2, 20] {
                assert!(
                    !is_complete(format, &whole[..cut]),
                    "{format:?} cut at {cut}"
                );
            }
        }
    }

    #[test]
    fn a_jpeg_with_an_exif_thumbnail_is_judged_by_its_own_end() {
        let main = encoded(image::ImageFormat::Jpeg);
        let thumb = encoded(image::ImageFormat::Jpeg);
        // SOI, APP1 holding a whole JPEG (with its own EOI), then the main image's segments.
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE1];
        jpeg.extend_from_slice(&((thumb.len() + 2) as u16).to_be_bytes());
        jpeg.extend_from_slice(&thumb);
        jpeg.extend_from_slice(&main[2..]);
        assert!(is_complete(ImageFormat::Jpeg, &jpeg));
        let cut = &jpeg[..jpeg.len() - main.len() / 2];
        assert!(
            !is_complete(ImageFormat::Jpeg, cut),
            "the thumbnail's EOI is not the end"
        );
    }

    #[test]
    fn stray_bytes_between_jpeg_segments_and_a_missing_gif_trailer_are_tolerated() {
        let jpeg = encoded(image::ImageFormat::Jpeg);
        // Two zero bytes before the second segment's marker.
        let second = 4 + usize::from(u16::from_be_bytes([jpeg[4], jpeg[5]]));
        let mut sloppy = jpeg[..second].to_vec();
        sloppy.extend_from_slice(&[0, 0]);
        sloppy.extend_from_slice(&jpeg[second..]);
        assert!(is_complete(ImageFormat::Jpeg, &sloppy));
        let gif = encoded(image::ImageFormat::Gif);
        assert_eq!(gif.last(), Some(&0x3B));
        assert!(is_complete(ImageFormat::Gif, &gif[..gif.len() - 1]));
        assert!(!is_complete(ImageFormat::Gif, &gif[..gif.len() - 2]));
    }

    #[test]
    fn trailing_bytes_after_the_end_marker_are_fine() {
        let mut jpeg = encoded(image::ImageFormat::Jpeg);
        jpeg.extend_from_slice(b"\0\0camera padding");
        assert!(is_complete(ImageFormat::Jpeg, &jpeg));
        let mut png = Vec::new();
        image::codecs::png::PngEncoder::new(&mut png)
            .write_image(picture().as_raw(), 64, 48, image::ExtendedColorType::Rgb8)
            .expect("encode");
        png.extend_from_slice(b"junk");
        assert!(is_complete(ImageFormat::Png, &png));
    }

    #[test]
    fn dimensions_are_limited_by_side_and_by_area() {
        assert!(check_dimensions(1600, 2560).is_ok());
        assert!(check_dimensions(MAX_SIDE, 2000).is_ok());
        let e = check_dimensions(30_000, 30_000).unwrap_err().to_string();
        assert!(e.contains("30000x30000") && e.contains("16384"), "{e}");
        let e = check_dimensions(10_000, 10_000).unwrap_err().to_string();
        assert!(e.contains("100 megapixels"), "{e}");
        assert_eq!(limits().max_image_width, Some(MAX_SIDE));
    }
}
