//! Gets the look of a book ready: reads the user stylesheets, subsets the embedded fonts to the
//! characters the book shows, and draws a cover when the book has none.
//!
//! Runs between `load_book` (chapters converted) and `package` in [`crate::build`]: it needs
//! the converted text (to know which characters a font must keep) and it does I/O (fonts, CSS),
//! which the package stage does not.

use std::path::{Path, PathBuf};

use crate::book::{Book, Image};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::fs::read_limited;
use crate::media::css::NotCarried;
use crate::media::{self, FontFile, cover, fonts};
use crate::package::{self, Asset, Look};
use crate::project::{Project, WritingMode};

/// Builds the [`Look`] for `project`; gives `book` a generated cover when it has none.
pub fn prepare(project: &Project, book: &mut Book, warnings: &mut Vec<Diagnostic>) -> Result<Look> {
    let mut look = Look {
        style: project.style.clone(),
        layout: project.layout.clone(),
        version: project.epub_version,
        user_css: Vec::new(),
        fonts: Vec::new(),
        css_fonts: Vec::new(),
        code: package::code_use(book),
        target: crate::book::Target::Epub,
    };
    if book.cover.is_none() && project.layout.generated_cover {
        book.cover = Some(generated_cover(project, None, true));
    }
    look.fonts = subset_fonts(project, book, &look, warnings)?;
    // After the fonts: a stylesheet's `@font-face` may name one of them.
    let mut css_fonts = Vec::new();
    let mut carry = Carry {
        images: &mut book.images,
        fonts: &mut css_fonts,
        found: warnings,
    };
    look.user_css = user_css(project, &look, &mut carry)?;
    look.css_fonts = css_fonts.into_iter().map(|(_, font)| font).collect();
    Ok(look)
}

/// The `[style] fonts`, cut down to the characters of `book`.
fn subset_fonts(
    project: &Project,
    book: &Book,
    look: &Look,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<fonts::SubsetFont>> {
    if project.style.fonts.is_empty() {
        return Ok(Vec::new());
    }
    let chars = package::used_chars(book, look);
    let sample: String = chars.iter().collect();
    let mut subsets = Vec::new();
    for source in &project.style.fonts {
        let bytes = FontFile::open_in(&project.boundary, &source.path)?;
        let face = source
            .face
            .unwrap_or_else(|| fonts::choose_face(&bytes, &sample));
        let subset = fonts::subset_font(&bytes, face, &chars).map_err(|e| Error::Font {
            path: source.path.clone(),
            metadata: project.metadata_path.clone(),
            line: source.line,
            message: e.to_string(),
        })?;
        if !subset.missing.is_empty() {
            let message = missing_message(&subset.missing);
            warnings.push(Diagnostic::warning(Code::Font, message).at(&source.path));
        }
        subsets.push(subset);
    }
    Ok(subsets)
}

/// "the font lacks 3 characters the book uses: 'a' (U+0061), ..." listing the first few.
fn missing_message(missing: &[char]) -> String {
    const SHOWN: usize = 8;
    let listed: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|c| format!("'{c}' (U+{:04X})", *c as u32))
        .collect();
    let more = if missing.len() > SHOWN { ", ..." } else { "" };
    format!(
        "the font lacks {} character(s) the book uses: {}{more}; readers show them in another font",
        missing.len(),
        listed.join(", ")
    )
}

/// The user stylesheets as the book carries them: under file names that are safe and unique
/// in `styles/`, cleaned by [`media::css`] of what is remote or scripted (each removal warned
/// about with its file and line), with relative URLs pointing where the book keeps the files
/// they name (see [`carried`]).
fn user_css(project: &Project, look: &Look, carry: &mut Carry<'_>) -> Result<Vec<Asset>> {
    let paths = &project.style.css;
    let mut names: Vec<String> = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| {
                n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
                    && *n != "book.css"
                    && !names.iter().any(|a| a == n)
            })
            .map_or_else(|| format!("user-{}.css", i + 1), str::to_string);
        names.push(name);
    }
    let mut out = Vec::new();
    for (path, name) in paths.iter().zip(&names) {
        let bytes = (project.boundary).read_limited(path, media::MAX_CSS_BYTES, "stylesheet")?;
        let (text, note) = media::css::decode(&bytes);
        (carry.found).extend(note.map(|n| Diagnostic::warning(Code::Css, n).at(path)));
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut local = |url: &str| carried(project, look, &names, dir, url, carry);
        let cleaned = media::css::clean_stylesheet(&text, &mut local);
        (carry.found).extend(cleaned.removed.into_iter().map(|r| {
            Diagnostic::warning(Code::Css, format!("removed {}", r.what))
                .at(path)
                .line(Some(r.line as usize))
                .column(r.column as usize)
        }));
        out.push(Asset {
            name: name.clone(),
            data: cleaned.css.into_bytes(),
        });
    }
    Ok(out)
}

/// The generated cover for a book without one, kept in the build cache when there is one.
pub(crate) fn cover_for(
    project: &Project,
    cache: bool,
    force: bool,
    output: &Path,
) -> Option<Image> {
    if project.cover.is_some() || !project.layout.generated_cover {
        return None;
    }
    let cache_dir = cache.then(|| {
        output
            .parent()
            .unwrap_or(Path::new("."))
            .join(crate::project::CACHE_DIR)
    });
    Some(generated_cover(project, cache_dir.as_deref(), force))
}

/// What the build says about the user stylesheets (what it removes from them, what it cannot
/// read), for `check`: the same cleaning, its output thrown away.
pub(crate) fn check_user_css(project: &Project) -> Result<Vec<Diagnostic>> {
    let mut warnings = Vec::new();
    let mut carry = Carry {
        images: &mut Vec::new(),
        fonts: &mut Vec::new(),
        found: &mut warnings,
    };
    user_css(project, &Look::default(), &mut carry)?;
    Ok(warnings)
}

/// What user stylesheets bring into the book besides themselves: pictures, fonts named by
/// `@font-face` that are not `[style] fonts` (by the file they were read from, with the name
/// carried under `fonts/`), and what was said on the way.
struct Carry<'a> {
    images: &'a mut Vec<Image>,
    fonts: &'a mut Vec<(PathBuf, Asset)>,
    found: &'a mut Vec<Diagnostic>,
}

/// Where a relative `url` of a user stylesheet in `dir` points in the book: another user
/// stylesheet (by its name in `names`), an embedded font, a font file of its own (carried as
/// it is, see [`css_font`]), or an image, which is read and checked as a chapter's is and
/// added to `carry.images` (what was removed from an SVG goes to `carry.found`). Anything
/// else cannot come along, and says why.
fn carried(
    project: &Project,
    look: &Look,
    names: &[String],
    dir: &Path,
    url: &str,
    carry: &mut Carry<'_>,
) -> std::result::Result<String, NotCarried> {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    let fragment = url.find('#').map_or("", |i| &url[i..]);
    let file = crate::convert::markup::percent_decode(&url[..end]);
    if file.is_empty() {
        return Err(NotCarried::NoFile);
    }
    // The project's containment check, before anything is opened or compared.
    let target = (project.boundary)
        .admit(dir, &file)
        .map_err(|outside| NotCarried::Outside(outside.sentence(&file, &project.root)))?;
    let same = |p: &Path| match (p.canonicalize(), target.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => p == target,
    };
    if let Some(i) = project.style.css.iter().position(|p| same(p)) {
        return Ok(format!("{}{fragment}", names[i]));
    }
    if let Some(i) = project.style.fonts.iter().position(|f| same(&f.path)) {
        // Named by the subset's format; `check` cleans without subsetting, and only its
        // diagnostics are kept.
        let name = look
            .font_name(i)
            .unwrap_or_else(|| format!("font-{}", i + 1));
        return Ok(format!("../fonts/{name}"));
    }
    if let Some(name) = css_font(project, &target, carry.fonts) {
        return Ok(format!("../fonts/{name}"));
    }
    let name = media::image::carry(&project.boundary, &target, carry.images, carry.found).map_err(
        |e| match e {
            media::image::ImageError::NotAnImage { .. } => NotCarried::NotCarriable,
            other => NotCarried::Image(Box::new(other)),
        },
    )?;
    Ok(format!("../images/{name}{fragment}"))
}

/// The name under `fonts/` of the font file `target` when it is one EPUB carries
/// ([`media::CarriedFont`]), read once however many rules name it; None when it is not a font
/// (or cannot be read: the image reader then says why).
fn css_font(project: &Project, target: &Path, fonts: &mut Vec<(PathBuf, Asset)>) -> Option<String> {
    if let Some((_, font)) = fonts.iter().find(|(p, _)| p == target) {
        return Some(font.name.clone());
    }
    let ext = target.extension()?.to_str()?.to_ascii_lowercase();
    if !matches!(ext.as_str(), "ttf" | "otf" | "woff" | "woff2") {
        return None;
    }
    let bytes = media::FontFile::open_in(&project.boundary, target).ok()?;
    let format = media::CarriedFont::sniff(&bytes)?;
    let stem = target
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        })
        .unwrap_or("font");
    // `font-N.*` are the subset fonts' names.
    let mut name = format!("css-{stem}.{}", format.extension());
    let mut n = 1;
    while fonts.iter().any(|(_, f)| f.name == name) {
        n += 1;
        name = format!("css-{stem}-{n}.{}", format.extension());
    }
    fonts.push((
        target.to_path_buf(),
        Asset {
            name: name.clone(),
            data: bytes.to_vec(),
        },
    ));
    Some(name)
}

/// The cover a book without one gets, typographic: with the first configured font, else a CJK
/// font found on the system, else without text; deterministic for the same font. It is drawn from the metadata (see `media::cover`), or read
/// from `cache_dir`, where an earlier build left the cover for the same title, authors,
/// writing mode, font and epubforge version (drawing it costs a noticeable share of a
/// rebuild). A cached file that is not a whole PNG is ignored; with `redraw` the cover is drawn
/// (and cached) even when a cached one exists, as a clean build should.
pub fn generated_cover(project: &Project, cache_dir: Option<&Path>, redraw: bool) -> Image {
    let info = &project.book;
    // A clean build (`redraw`) looks for the system font again too.
    let memo = cache_dir.map(|dir| dir.join("cover-font"));
    let font_path = project
        .style
        .fonts
        .first()
        .map(|f| f.path.clone())
        .or_else(|| match &memo {
            Some(memo) => cover::find_system_cjk_font_remembered(memo, redraw),
            None => cover::find_system_cjk_font(),
        });
    let vertical = project.layout.writing_mode == WritingMode::VerticalRl;
    let authors: Vec<String> = info.authors.iter().map(|a| a.name.clone()).collect();
    let font_stamp = font_path.as_deref().and_then(|p| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (p.to_path_buf(), m.len(), m.modified().ok()))
    });
    let key = blake3::hash(
        format!(
            "{}\n{}\n{:?}\n{:?}\n{vertical}\n{font_stamp:?}",
            env!("CARGO_PKG_VERSION"),
            info.title,
            info.subtitle,
            authors
        )
        .as_bytes(),
    )
    .to_hex();
    let cached = cache_dir.map(|d| d.join(format!("cover-{}.png", &key[..16])));
    let image = |data| Image {
        name: "cover.png".into(),
        media_type: "image/png",
        data,
        width: cover::COVER_WIDTH,
        height: cover::COVER_HEIGHT,
    };
    if let Some(data) = cached
        .as_deref()
        .filter(|_| !redraw)
        .and_then(|p| cached_cover(project, p))
    {
        return image(data);
    }
    let text = cover::CoverText {
        title: &info.title,
        subtitle: info.subtitle.as_deref(),
        authors: &authors,
        vertical,
    };
    let data = draw_cover(project, font_path, &text);
    if let Some(path) = &cached {
        // A cover that cannot be cached is only drawn again next time.
        let _ = path
            .parent()
            .map(std::fs::create_dir_all)
            .and_then(Result::ok)
            .map(|_| std::fs::write(path, &data));
    }
    image(data)
}

/// The cover an earlier build left at `path`, when it is a whole PNG. The cache sits in a
/// folder the project may have come with: it is read as guarded as any input (a FIFO there
/// must not hang the build), and one inside the project as its other files are (it may link
/// out).
fn cached_cover(project: &Project, path: &Path) -> Option<Vec<u8>> {
    let (limit, what) = (media::MAX_IMAGE_BYTES, "cached cover");
    let data = if path.starts_with(&project.root) {
        project.boundary.read_limited(path, limit, what).ok()?
    } else {
        read_limited(path, limit, what).ok()?
    };
    let whole = data.starts_with(b"\x89PNG\r\n\x1a\n")
        && data.ends_with(&[0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]);
    whole.then_some(data)
}

/// Draws the cover with the font at `font_path`, if it opens. The font (a CJK collection is
/// 20-30 MB) is dropped as soon as the cover is drawn. The project's own font is a file of the
/// project; a system font is not.
fn draw_cover(
    project: &Project,
    font_path: Option<PathBuf>,
    text: &cover::CoverText<'_>,
) -> Vec<u8> {
    let font = font_path.and_then(|p| match project.style.fonts.first() {
        Some(f) if f.path == p => FontFile::open_in(&project.boundary, &p).ok(),
        _ => FontFile::open(&p).ok(),
    });
    cover::generate_cover(text, font.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_characters_are_listed_first_few_with_code_points() {
        let m = missing_message(&['甲', 'a']);
        assert!(
            m.contains("2 character(s)") && m.contains("'甲' (U+7532)"),
            "{m}"
        );
        let many: Vec<char> = ('a'..='z').collect();
        let m = missing_message(&many);
        assert!(
            m.contains("'h'") && !m.contains("'i'") && m.ends_with("another font"),
            "{m}"
        );
    }
}
