//! The EPUB's files written into the project folder, where they stay in the EPUB's own layout
//! below the package document's folder (`OEBPS/Text/ch1.xhtml` becomes `Text/ch1.xhtml`), so
//! that every relative link between them still holds.
//!
//! An entry is written only when it is safe to: each part of its name a plain file name (no
//! `..`, no root, no drive letter, no control character, no backslash), no folder on the way a
//! symlink, at most [`MAX_ENTRY_BYTES`] inflated (counted on the bytes produced) and at most
//! [`MAX_TOTAL_BYTES`] in all. The package document, the NCX and the navigation document are
//! not written: `metadata.toml` and the build replace them.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use super::{Counts, Error};
use crate::diagnostic::{Code, Diagnostic};
use crate::fs::Held;
use crate::inspect::archive::Archive;
use crate::inspect::container::Container;
use crate::inspect::{Epub, ManifestItem};

/// Largest entry written: 256 MiB.
pub(super) const MAX_ENTRY_BYTES: u64 = 256 << 20;
/// Most bytes written in all: 4 GiB.
pub(super) const MAX_TOTAL_BYTES: u64 = 4 << 30;

/// Where the EPUB's entries go in the folder.
pub(super) struct Layout {
    /// The package document's folder with its `/` (`OEBPS/`), stripped from every entry under
    /// it; empty when some entry written lies outside it.
    base: String,
}

impl Layout {
    pub(super) fn new(book: &Epub) -> Layout {
        let base = crate::inspect::href::dir_of(&book.opf_path).to_string();
        let all_under = book
            .manifest
            .iter()
            .filter(|i| !crate::inspect::href::is_external(&i.href) && safe_relative(&i.href))
            .all(|i| i.href.starts_with(&base));
        Layout {
            base: if all_under { base } else { String::new() },
        }
    }

    /// The package document's folder stripped from the entries ([`Unpacked::entries_from`]).
    ///
    /// [`Unpacked::entries_from`]: super::Unpacked::entries_from
    pub(super) fn base(&self) -> &str {
        &self.base
    }

    /// The path in the folder of the entry `entry`, relative, with `/`; None when the name is
    /// not safe to write.
    pub(super) fn local(&self, entry: &str) -> Option<String> {
        let rel = entry.strip_prefix(&self.base).unwrap_or(entry);
        safe_relative(rel).then(|| rel.to_string())
    }

    /// [`Layout::local`] for an entry the manifest does not list, which `Layout::new` did not
    /// see: None too when it lies outside the folder the others were taken from (the links to
    /// it, written relative to them, would no longer reach it).
    pub(super) fn unlisted(&self, entry: &str) -> Option<String> {
        entry.strip_prefix(&self.base)?;
        self.local(entry)
    }
}

/// Whether `rel` is a relative path of plain names only.
fn safe_relative(rel: &str) -> bool {
    !rel.is_empty()
        && rel.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && !part.contains(['\\', ':'])
                && !part.chars().any(char::is_control)
        })
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// What kind of file a manifest item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Document,
    Image,
    Stylesheet,
    Font,
    Other,
}

pub(super) fn kind_of(item: &ManifestItem) -> Kind {
    // Compared without lowercased copies: every item is looked at here, several times.
    let mt = item.media_type.as_bytes();
    let is = |name: &str| mt.eq_ignore_ascii_case(name.as_bytes());
    let starts = |prefix: &str| {
        (mt.get(..prefix.len())).is_some_and(|p| p.eq_ignore_ascii_case(prefix.as_bytes()))
    };
    let ext = item.href.rsplit_once('.').map_or("", |(_, e)| e);
    if is("application/xhtml+xml") || is("text/html") {
        Kind::Document
    } else if starts("image/") {
        Kind::Image
    } else if is("text/css") {
        Kind::Stylesheet
    } else if starts("font/")
        || mt.windows(4).any(|w| w.eq_ignore_ascii_case(b"font"))
        || is("application/vnd.ms-opentype")
        || ["ttf", "otf", "woff", "woff2"]
            .iter()
            .any(|e| ext.eq_ignore_ascii_case(e))
    {
        Kind::Font
    } else {
        Kind::Other
    }
}

/// The files written: entry name → path in the folder, and how many of each kind; with
/// [`Mode::Hold`], the spine's documents are not written but held here (path in the folder →
/// bytes).
#[derive(Debug, Default)]
pub(super) struct Written {
    pub local: HashMap<String, String>,
    pub counts: Counts,
    pub held: HashMap<String, Held>,
    /// The pages made for the spine's pictures, SVG or bitmap ([`picture_pages`]): entry name
    /// of the picture → path in the folder of its page.
    pub pages: HashMap<String, String>,
    /// The bytes written (or held) so far, against [`MAX_TOTAL_BYTES`].
    pub total: u64,
    /// The zip's files the manifest does not list ([`super::unlisted`] carries those used).
    pub unlisted: Vec<String>,
}

impl Written {
    /// Counts `len` more bytes (of the entry `name`) written; an error past [`MAX_TOTAL_BYTES`].
    pub(super) fn add_total(&mut self, epub: &Path, name: &str, len: usize) -> Result<(), Error> {
        self.total += len as u64;
        if self.total > MAX_TOTAL_BYTES {
            return Err(Error::Read {
                epub: epub.to_path_buf(),
                source: crate::inspect::InspectError::EntryTooLarge {
                    name: name.to_string(),
                    cap: MAX_TOTAL_BYTES,
                },
            });
        }
        Ok(())
    }

    /// The text of the file at `local` (relative to `dir`), held or written, if it is at most
    /// `cap` bytes and UTF-8.
    pub(super) fn text(&self, dir: &Path, local: &str, cap: u64) -> Option<String> {
        if let Some(held) = self.held.get(local) {
            let bytes = held.bytes();
            return (bytes.len() as u64 <= cap)
                .then(|| String::from_utf8(bytes.to_vec()).ok())
                .flatten();
        }
        let path = dir.join(local);
        if std::fs::metadata(&path).ok()?.len() > cap {
            return None;
        }
        std::fs::read_to_string(path).ok()
    }

    /// The size in bytes of the file at `local` (relative to `dir`), held or written; 0 when
    /// it cannot be read.
    pub(super) fn size(&self, dir: &Path, local: &str) -> u64 {
        match self.held.get(local) {
            Some(held) => held.bytes().len() as u64,
            None => std::fs::metadata(dir.join(local)).map_or(0, |m| m.len()),
        }
    }
}

/// Where the spine's documents go: into the folder ([`super::unpack`]), or held in memory for
/// a build that reads them from there ([`super::unpack_holding`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Write,
    Hold,
}

/// Makes `dir` when missing; refuses one that holds anything unless `force`.
pub(super) fn prepare(dir: &Path, force: bool) -> Result<(), Error> {
    let io = |source| Error::Write {
        path: dir.to_path_buf(),
        source,
    };
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => Err(io(std::io::Error::other("not a folder"))),
        Ok(_) => {
            let occupied = std::fs::read_dir(dir).map_err(io)?.next().is_some();
            if occupied && !force {
                return Err(Error::NotEmpty {
                    dir: dir.to_path_buf(),
                });
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(io)
        }
        Err(e) => Err(io(e)),
    }
}

/// Whether the manifest item is one the build writes anew (package, NCX, nav).
fn replaced(book: &Epub, item: &ManifestItem) -> bool {
    item.href == book.opf_path
        || item.media_type == "application/x-dtbncx+xml"
        || item.properties.iter().any(|p| p == "nav")
}

/// Writes every manifest item that is in the zip (but the package, NCX and nav) into `dir`; what cannot be written is a diagnostic.
pub(super) fn write(
    archive: &Archive,
    dir: &Path,
    book: &Epub,
    layout: &Layout,
    mode: Mode,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Written, Error> {
    let epub = archive.path();
    let mut zip = archive.container().map_err(|source| Error::Read {
        epub: epub.to_path_buf(),
        source,
    })?;
    let mut written = Written::default();
    let hidden = super::obfuscation::read(&mut zip);
    let spine: std::collections::HashSet<&str> = book
        .spine
        .iter()
        .filter_map(|s| s.href.as_deref())
        .collect();
    // Sized ahead: grown an item at a time, each map hashes its keys again as it doubles.
    written.local.reserve(book.manifest.len());
    if mode == Mode::Hold {
        written.held.reserve(spine.len());
    }
    let mut folders = HashSet::new();
    for item in &book.manifest {
        if crate::inspect::href::is_external(&item.href) || replaced(book, item) {
            continue;
        }
        let Some(local) = layout.local(&item.href) else {
            diagnostics.push(skipped(
                epub,
                &item.href,
                "the entry's name is not a safe path in a folder; not written".into(),
            ));
            continue;
        };
        let kind = kind_of(item);
        let held =
            mode == Mode::Hold && kind == Kind::Document && spine.contains(item.href.as_str());
        // A document held is lent from the entries inflated ahead, when it is one of them.
        let bytes = match held.then(|| archive.shared(&item.href)).flatten() {
            Some(lent) => lent,
            None => match read_item(&mut zip, epub, item, diagnostics)? {
                Some(bytes) => match hidden.get(&item.href) {
                    Some(how) => match revealed(epub, book, item, how, bytes, diagnostics) {
                        Some(bytes) => Held::Bytes(bytes),
                        None => continue,
                    },
                    None => Held::Bytes(bytes),
                },
                None => continue,
            },
        };
        written.add_total(epub, &item.href, bytes.bytes().len())?;
        if held {
            // Its folder is made: a picture beside it is reached through it (`Text/../x.png`).
            make_held_folders(dir, &dir.join(&local), &mut folders)?;
            written.held.insert(local.clone(), bytes);
        } else {
            write_file(dir, &dir.join(&local), bytes.bytes())?;
        }
        written.counts.add(kind);
        written.local.insert(item.href.clone(), local);
    }
    let names = zip.entries.iter().map(|e| e.name.as_str());
    written.unlisted = unlisted_entries(book, names);
    Ok(written)
}

/// A page for each picture of the spine: an SVG document (a drawing the reader shows as a
/// page, as the IDPF's svg-in-spine sample has) or a bitmap (a comic's pages, JPEG items in the
/// spine of a pre-paginated book, as the IDPF's haruko-jpeg has): an XHTML document beside the
/// picture that shows it whole (`<img>`, so the build checks and carries it, and what it
/// draws, as any picture), its `alt` the contents' title for it, else its file's name. Written
/// or held as `mode` says; recorded in [`Written::pages`], each with a note.
pub(super) fn picture_pages(
    dir: &Path,
    book: &Epub,
    written: &mut Written,
    mode: Mode,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(), Error> {
    let items: HashMap<&str, &ManifestItem> = (book.manifest.iter())
        .map(|i| (i.href.as_str(), i))
        .collect();
    let taken: std::collections::HashSet<String> = written.local.values().cloned().collect();
    for href in book.spine.iter().filter_map(|s| s.href.as_deref()) {
        // By its media type's prefix, as `kind_of` has it (without its lowercased copies: a
        // spine of 3000 chapters is looked at here).
        let picture = |i: &&&ManifestItem| {
            (i.media_type.get(..6)).is_some_and(|p| p.eq_ignore_ascii_case("image/"))
        };
        let Some(item) = items.get(href).filter(picture) else {
            continue;
        };
        let Some(svg) = written.local.get(href) else {
            continue;
        };
        if written.pages.contains_key(href) {
            continue;
        }
        let stem = stem_of(svg);
        let page = (0..)
            .map(|n| match n {
                0 => format!("{stem}.xhtml"),
                n => format!("{stem}-page-{n}.xhtml"),
            })
            .find(|p| !taken.contains(p) && !written.pages.values().any(|v| v == p))
            .unwrap_or_default();
        let name = svg.rsplit('/').next().unwrap_or(svg);
        let alt = toc_title(&book.toc, href).unwrap_or_else(|| stem_of(name).to_string());
        let xhtml = svg_page(name, &alt);
        match mode {
            Mode::Hold => {
                make_folders(dir, &dir.join(&page))?;
                written
                    .held
                    .insert(page.clone(), Held::Bytes(xhtml.into_bytes()));
            }
            Mode::Write => write_file(dir, &dir.join(&page), xhtml.as_bytes())?,
        }
        let why = match item.media_type.eq_ignore_ascii_case("image/svg+xml") {
            true => format!(
                "{href} is an SVG document in the spine: it is the page {page}, which shows it as a picture"
            ),
            false => format!(
                "{href} ({}) is a picture in the spine: it is the page {page}, which shows it",
                item.media_type
            ),
        };
        diagnostics.push(Diagnostic::note(Code::EpubInChapter, why));
        written.pages.insert(href.to_string(), page);
    }
    Ok(())
}

/// `path` without its file's extension (`Images/01.jpg` → `Images/01`).
fn stem_of(path: &str) -> &str {
    let name_at = path.rfind('/').map_or(0, |i| i + 1);
    match path[name_at..].rfind('.') {
        Some(dot) if dot > 0 => &path[..name_at + dot],
        _ => path,
    }
}

/// The title of the first contents entry that points at `href` (at its whole file).
fn toc_title(toc: &[crate::inspect::TocEntry], href: &str) -> Option<String> {
    toc.iter().find_map(|e| {
        let path = e.href.split('#').next().unwrap_or(&e.href);
        (path == href)
            .then(|| e.title.clone())
            .or_else(|| toc_title(&e.children, href))
    })
}

/// The XHTML page that shows the SVG file `name` (beside it) as a picture with `alt`.
fn svg_page(name: &str, alt: &str) -> String {
    let src: String = name
        .chars()
        .map(|c| {
            match c.is_ascii() && !c.is_ascii_alphanumeric() && !"-._~!$'()*+,;=@".contains(c) {
                true => format!("%{:02X}", c as u32),
                false => c.to_string(),
            }
        })
        .collect();
    let src = crate::xml::escape_attr(&src);
    let alt = crate::xml::escape_attr(alt);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n\
         <html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head><title>{alt}</title></head>\n\
         <body>\n<img src=\"{src}\" alt=\"{alt}\"/>\n</body>\n</html>\n"
    )
}

/// The font `item` that `encryption.xml` says is hidden (`how`), made readable, with a note
/// saying so; None, with a warning saying why, when it cannot be: encrypted (DRM), no key in
/// the identifier, or what comes out is no font. What is not a font is left as it is.
fn revealed(
    epub: &Path,
    book: &Epub,
    item: &ManifestItem,
    how: &super::obfuscation::Hidden,
    bytes: Vec<u8>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Vec<u8>> {
    use super::obfuscation::Hidden;
    if kind_of(item) != Kind::Font {
        return Some(bytes);
    }
    let why = match how {
        Hidden::Encrypted(algorithm) => format!(
            "the font is encrypted ({}), not only obfuscated: no key opens it; not written (the book's stylesheets fall back to the reader's fonts)",
            crate::escape::value(algorithm)
        ),
        _ => match super::obfuscation::restore(how, book, bytes) {
            Some(font) if crate::media::CarriedFont::sniff(&font).is_some() => {
                let note = "the font was obfuscated (META-INF/encryption.xml); it is kept de-obfuscated, and the result needs no encryption.xml";
                diagnostics.push(Diagnostic::note(Code::EpubInFile, note).at(epub.join(&item.href)));
                return Some(font);
            }
            Some(_) => "the font's obfuscation is not undone by the key the book's identifier gives (no font comes out); not written".to_string(),
            None => "the font is obfuscated with Adobe's key, and the book's identifier holds no UUID to make it from; not written".to_string(),
        },
    };
    diagnostics.push(skipped(epub, &item.href, why));
    None
}

/// A note at each font the manifest lists that no stylesheet names (its file name appears in
/// none): a reader would not show it, and the build carries only the fonts a stylesheet's
/// `@font-face` names (pandoc's `--epub-embed-font` without a rule of the user's).
pub(super) fn unnamed_fonts(
    epub: &Path,
    dir: &Path,
    book: &Epub,
    written: &Written,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let sheets: Vec<String> = (book.manifest.iter())
        .filter(|i| kind_of(i) == Kind::Stylesheet)
        .filter_map(|i| written.local.get(&i.href))
        .filter_map(|local| written.text(dir, local, crate::media::MAX_CSS_BYTES))
        .collect();
    for item in book.manifest.iter().filter(|i| kind_of(i) == Kind::Font) {
        if !written.local.contains_key(&item.href) {
            continue;
        }
        let name = item.href.rsplit('/').next().unwrap_or(&item.href);
        if !sheets.iter().any(|css| css.contains(name)) {
            let why = "no stylesheet of the book names this font in an @font-face, so no reader shows it; not carried";
            diagnostics.push(Diagnostic::note(Code::EpubInFile, why).at(epub.join(&item.href)));
        }
    }
}

/// A manifest entry that is not carried: a warning at the entry.
fn skipped(epub: &Path, entry: &str, why: String) -> Diagnostic {
    Diagnostic::warning(Code::EpubInFile, why).at(epub.join(entry))
}

/// The bytes of a manifest item, capped; None (with a warning) when the zip lacks it or it
/// cannot be read, an error when the zip itself fails.
fn read_item<R: std::io::Read + std::io::Seek>(
    zip: &mut Container<R>,
    epub: &Path,
    item: &ManifestItem,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Option<Vec<u8>>, Error> {
    if !zip.exists(&item.href) {
        let why = "listed in the manifest but not in the zip; not written";
        diagnostics.push(skipped(epub, &item.href, why.into()));
        return Ok(None);
    }
    match zip.read_capped(&item.href, MAX_ENTRY_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e)
            if e.is_fatal() && !matches!(e, crate::inspect::InspectError::EntryTooLarge { .. }) =>
        {
            Err(Error::Read {
                epub: epub.to_path_buf(),
                source: e,
            })
        }
        Err(e) => {
            let why = format!("{}; not written", e.message());
            diagnostics.push(skipped(epub, &item.href, why));
            Ok(None)
        }
    }
}

impl Counts {
    /// One more file of this kind.
    pub(super) fn add(&mut self, kind: Kind) {
        match kind {
            Kind::Document => self.chapters += 1,
            Kind::Image => self.images += 1,
            Kind::Stylesheet => self.stylesheets += 1,
            Kind::Font => self.fonts += 1,
            Kind::Other => self.other += 1,
        }
    }
}

/// The zip's files that the manifest does not list (but the package document, `mimetype`
/// and `META-INF/`), in the zip's order.
fn unlisted_entries<'z>(book: &Epub, entries: impl Iterator<Item = &'z str>) -> Vec<String> {
    let listed: HashSet<&str> = book.manifest.iter().map(|i| i.href.as_str()).collect();
    entries
        .filter(|n| !n.ends_with('/') && *n != "mimetype" && !n.starts_with("META-INF/"))
        .filter(|n| *n != book.opf_path && !listed.contains(n))
        .map(str::to_string)
        .collect()
}

/// Writes `bytes` to `path` inside `dir`, making its folders; no folder on the way, and not
/// the file itself, may be a symlink.
pub(super) fn write_file(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), Error> {
    make_folders(dir, path)?;
    std::fs::write(path, bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// [`make_folders`] for a file held in memory, not written (so that what is at its own path
/// does not matter): its folder is made and checked once, for the first file held in it.
fn make_held_folders(dir: &Path, path: &Path, made: &mut HashSet<PathBuf>) -> Result<(), Error> {
    let folder = path.parent().unwrap_or(dir);
    if !made.contains(folder) {
        make_folders(dir, path)?;
        made.insert(folder.to_path_buf());
    }
    Ok(())
}

/// Makes the folders of `path` inside `dir`; no folder on the way, and not the file itself,
/// may be a symlink.
fn make_folders(dir: &Path, path: &Path) -> Result<(), Error> {
    let io = |p: &Path, source| Error::Write {
        path: p.to_path_buf(),
        source,
    };
    let rel = path
        .strip_prefix(dir)
        .map_err(|_| io(path, std::io::Error::other("outside the project folder")))?;
    let mut at = PathBuf::from(dir);
    let parts: Vec<Component<'_>> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        let Component::Normal(name) = part else {
            return Err(io(path, std::io::Error::other("not a plain path")));
        };
        at.push(name);
        let last = i + 1 == parts.len();
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(io(&at, std::io::Error::other("a symlink; not followed")));
            }
            Ok(meta) if !last && !meta.is_dir() => {
                return Err(io(&at, std::io::Error::other("not a folder")));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !last {
                    std::fs::create_dir(&at).map_err(|e| io(&at, e))?;
                }
            }
            Err(e) => return Err(io(&at, e)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_climb_out_or_name_a_root_are_not_safe() {
        for bad in [
            "../x",
            "a/../../x",
            "/etc/passwd",
            "C:/x",
            "a\\..\\b",
            "a//b",
            "",
            "a/./b",
            "a\u{1}b",
        ] {
            assert!(!safe_relative(bad), "{bad:?} taken");
        }
        for good in ["Text/ch1.xhtml", "a b/c%20d.png", "章节/第一章.xhtml"] {
            assert!(safe_relative(good), "{good:?} refused");
        }
    }

    #[test]
    fn a_kind_is_told_by_media_type_or_font_extension_in_any_case() {
        let item = |href: &str, media_type: &str| ManifestItem {
            id: "i".into(),
            href: href.into(),
            media_type: media_type.into(),
            properties: Vec::new(),
            fallback: None,
        };
        let cases = [
            ("a.xhtml", "Application/XHTML+XML", Kind::Document),
            ("a.htm", "TEXT/HTML", Kind::Document),
            ("a.png", "Image/PNG", Kind::Image),
            ("a.css", "Text/CSS", Kind::Stylesheet),
            ("a.bin", "Font/woff2", Kind::Font),
            ("a.bin", "application/x-Font-TTF", Kind::Font),
            ("a.bin", "application/VND.MS-OPENTYPE", Kind::Font),
            ("f/a.WOFF2", "application/octet-stream", Kind::Font),
            ("a.ttf.txt", "text/plain", Kind::Other),
            ("a.xml", "application/xml", Kind::Other),
            ("a", "imag", Kind::Other),
        ];
        for (href, media_type, kind) in cases {
            assert_eq!(
                kind_of(&item(href, media_type)),
                kind,
                "{href} {media_type}"
            );
        }
    }

    /// Builds the project in `dir` into `out` (the date fixed).
    fn build(dir: &Path, out: &Path) -> Vec<u8> {
        let project = crate::Project::load(dir).expect("the unpacked project loads");
        let opts = crate::BuildOptions {
            output: Some(out.to_path_buf()),
            source_date_epoch: Some(1_700_000_000),
            ..crate::BuildOptions::default()
        };
        project.build(&opts).expect("the unpacked project builds");
        std::fs::read(out).expect("the EPUB built")
    }

    #[test]
    fn chapters_held_in_memory_build_the_same_epub_as_chapters_written() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let epub = tmp.path().join("book.epub");
        let book = crate::inspect::testutil::TestBook::minimal_epub3();
        std::fs::write(&epub, book.to_zip()).expect("write the EPUB");
        let written = tmp.path().join("written");
        let options = super::super::UnpackOptions::new();
        let a = super::super::unpack(&epub, &written, &options).expect("unpacked");
        let from_disk = build(&written, &tmp.path().join("a.epub"));
        // Read from the zip, or lent from the entries inflated ahead.
        for (i, archive) in [Archive::lazy(&epub), Archive::inflate(&epub)]
            .iter()
            .enumerate()
        {
            let held = tmp.path().join(format!("held{i}"));
            let (b, chapters) =
                super::super::unpack_holding(archive, &held, &options).expect("unpacked, held");
            assert_eq!(chapters.len(), a.chapters.len());
            for chapter in &a.chapters {
                assert!(written.join(&chapter.file).is_file());
                let file = &chapter.file;
                assert!(!held.join(file).exists(), "{file} written");
                let bytes = std::fs::read(written.join(file)).expect("read");
                let kept = chapters.get(file).expect("held");
                assert_eq!(kept.bytes(), bytes);
                assert_eq!(matches!(kept, Held::Shared(..)), i == 1, "{kept:?}");
            }
            let toml = |p: &Path| std::fs::read_to_string(p).expect("metadata.toml");
            assert_eq!(toml(&a.metadata_path), toml(&b.metadata_path));
            assert!(b.counts == a.counts && held.join("images/cover.png").is_file());
            let holding = crate::fs::hold(&held, chapters);
            let from_memory = build(&held, &tmp.path().join(format!("b{i}.epub")));
            drop(holding);
            assert!(from_disk == from_memory, "the two EPUBs differ");
            assert!(
                crate::Project::load(&held).is_err(),
                "released: the chapters are gone"
            );
        }
    }

    #[test]
    fn a_file_is_not_written_through_a_symlinked_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), dir.path().join("Text")).expect("symlink");
            let err = write_file(dir.path(), &dir.path().join("Text/ch1.xhtml"), b"x");
            assert!(err.is_err());
            assert!(!outside.path().join("ch1.xhtml").exists());
        }
        write_file(dir.path(), &dir.path().join("Images/a/b.png"), b"png").expect("written");
        assert_eq!(
            std::fs::read(dir.path().join("Images/a/b.png")).expect("read"),
            b"png"
        );
    }
}
