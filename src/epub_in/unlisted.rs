//! Files the zip holds but the manifest does not list: a content document or stylesheet that
//! uses one (an `<img>`, a `<link>`ed stylesheet, a `url()` in a style) would show it in most
//! readers, which read the zip, not the manifest; so each such picture, stylesheet or font
//! that a document of the book uses is carried, with a note that the manifest did not list it.
//! What no document uses (a downloader's leftovers, scripts, spreadsheets) stays out, with one
//! note that counts it.
//!
//! The caps of [`super::files`] hold: each entry at most [`MAX_ENTRY_BYTES`] inflated, the
//! whole unpack at most [`super::files::MAX_TOTAL_BYTES`], names safe to write, and only under
//! the folder the manifest's files were taken from (so that relative links still reach them).
//! A font that `encryption.xml` names is not carried: only a manifest item gives the key's
//! reading of it. Nor is a stylesheet that does not parse (a warning says so): EPUBCheck reads
//! no unlisted file, so its errors would be new in the result.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::Error;
use super::files::{Kind, Layout, MAX_ENTRY_BYTES, Written, kind_of, write_file};
use crate::diagnostic::{Code, Diagnostic};
use crate::inspect::Epub;
use crate::inspect::archive::Archive;

/// Largest document or stylesheet searched for what it uses: 16 MiB.
const MAX_SEARCHED_BYTES: u64 = 16 << 20;

/// Whether the stylesheet `bytes` parses ([`super::css_check`]), in the encoding it declares.
fn parses(bytes: &[u8]) -> bool {
    super::css_check::parses(&crate::media::css::decode(bytes).0)
}

/// What a file is by its name's extension: a picture, a stylesheet or a font, the files the
/// build carries from a document's links; None for anything else.
fn kind_by_name(entry: &str) -> Option<Kind> {
    let ext = entry.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "svg" | "webp" | "bmp" | "tif" | "tiff" | "avif" => {
            Some(Kind::Image)
        }
        "css" => Some(Kind::Stylesheet),
        "ttf" | "otf" | "woff" | "woff2" => Some(Kind::Font),
        _ => None,
    }
}

/// Carries each unlisted file ([`Written::unlisted`]) that a written document or stylesheet
/// uses (and what a carried stylesheet uses in turn), a note at each; one note counts the
/// rest. Returns the stylesheets carried (paths in the folder), for `[style] css`.
pub(super) fn carry(
    archive: &Archive,
    dir: &Path,
    book: &Epub,
    layout: &Layout,
    written: &mut Written,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<String>, Error> {
    let epub = archive.path();
    let left = std::mem::take(&mut written.unlisted);
    let mut candidates: HashMap<&str, (Kind, String)> = left
        .iter()
        .filter_map(|e| Some((e.as_str(), (kind_by_name(e)?, layout.unlisted(e)?))))
        .collect();
    // The files carried, or refused with a warning of their own.
    let mut carried: Vec<String> = Vec::new();
    let mut sheets = Vec::new();
    if !candidates.is_empty() {
        let read = |source| Error::Read {
            epub: epub.to_path_buf(),
            source,
        };
        let mut zip = archive.container().map_err(read)?;
        let hidden = super::obfuscation::read(&mut zip);
        candidates.retain(|e, _| !hidden.contains_key(*e));
        // The documents and stylesheets to search: (entry, path in the folder, a stylesheet).
        let mut queue: Vec<(String, String, bool)> = (book.manifest.iter())
            .filter(|i| matches!(kind_of(i), Kind::Document | Kind::Stylesheet))
            .filter_map(|i| {
                let local = written.local.get(&i.href)?.clone();
                Some((i.href.clone(), local, kind_of(i) == Kind::Stylesheet))
            })
            .collect();
        while let Some((entry, local, css)) = queue.pop() {
            let source = Source {
                entry: &entry,
                local: &local,
                css,
            };
            for target in used_by(dir, written, &source, &candidates) {
                let Some((kind, to)) = candidates.remove(target.as_str()) else {
                    continue;
                };
                let bytes = match zip.read_capped(&target, MAX_ENTRY_BYTES) {
                    Ok(bytes) => bytes,
                    Err(e) if e.is_fatal() => return Err(read(e)),
                    Err(_) => continue,
                };
                if kind == Kind::Stylesheet && !parses(&bytes) {
                    let why = format!(
                        "not in the manifest; {entry} uses it, but it does not parse as CSS (EPUBCheck, which read no unlisted file of the input, would refuse it in the result): not carried"
                    );
                    let d = Diagnostic::warning(Code::EpubInFile, why).at(epub.join(&target));
                    diagnostics.push(d);
                    carried.push(target);
                    continue;
                }
                written.add_total(epub, &target, bytes.len())?;
                write_file(dir, &dir.join(&to), &bytes)?;
                written.counts.add(kind);
                written.local.insert(target.clone(), to.clone());
                let why = format!(
                    "not in the manifest, but {entry} uses it (and the zip holds it): carried"
                );
                diagnostics.push(Diagnostic::note(Code::EpubInFile, why).at(epub.join(&target)));
                if kind == Kind::Stylesheet {
                    sheets.push(to.clone());
                    queue.push((target.clone(), to, true));
                }
                carried.push(target);
            }
        }
    }
    rest_note(epub, book, &left, &carried, diagnostics);
    Ok(sheets)
}

/// A document or stylesheet searched for what it uses.
struct Source<'a> {
    /// Its entry in the zip.
    entry: &'a str,
    /// Its path in the folder.
    local: &'a str,
    /// A stylesheet (else an XHTML document).
    css: bool,
}

/// The entries among `candidates` that `source` uses, in the order it names them.
fn used_by(
    dir: &Path,
    written: &Written,
    source: &Source<'_>,
    candidates: &HashMap<&str, (Kind, String)>,
) -> Vec<String> {
    let Some(text) = written.text(dir, source.local, MAX_SEARCHED_BYTES) else {
        return Vec::new();
    };
    // The cheap test before parsing: a file is named by its name, as written or escaped.
    let named = candidates.keys().any(|c| {
        let name = c.rsplit('/').next().unwrap_or(c);
        text.contains(name)
    });
    if !named && !text.contains(['%', '&']) {
        return Vec::new();
    }
    let urls = match source.css {
        true => css_urls(&text),
        false => document_urls(&text),
    };
    urls.iter()
        .filter_map(|u| crate::inspect::href::resolve(source.entry, u).map(|r| r.path))
        .filter(|p| candidates.contains_key(p.as_str()))
        .collect()
}

/// The URLs a stylesheet names (`url()`, `@import`).
fn css_urls(css: &str) -> Vec<String> {
    let mut urls = Vec::new();
    crate::media::css::clean_stylesheet(css, &mut |url: &str| {
        urls.push(url.to_string());
        Ok(url.to_string())
    });
    urls
}

/// The URLs an XHTML document names: each `src`, `href`, `poster` and `data` (an SVG
/// `<image>`'s `xlink:href` by its local name), and those of its `style` attributes and
/// `<style>` elements.
fn document_urls(text: &str) -> Vec<String> {
    let html = scraper::Html::parse_document(text);
    let mut urls = Vec::new();
    for node in html.tree.nodes() {
        let Some(e) = node.value().as_element() else {
            continue;
        };
        for (name, value) in e.attrs() {
            match name {
                "src" | "href" | "poster" | "data" => urls.push(value.to_string()),
                "style" => {
                    let mut found = Vec::new();
                    crate::media::css::clean_declarations(value, &mut |url: &str| {
                        found.push(url.to_string());
                        Ok(url.to_string())
                    });
                    urls.extend(found);
                }
                _ => {}
            }
        }
        if e.name() == "style" {
            let css: String = (node.children())
                .filter_map(|c| c.value().as_text().map(|t| t.to_string()))
                .collect();
            urls.extend(css_urls(&css));
        }
    }
    urls
}

/// One note for the unlisted files not carried: no document uses them (or they could not be
/// carried), so they stay out.
fn rest_note(
    epub: &Path,
    book: &Epub,
    left: &[String],
    carried: &[String],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let carried: HashSet<&str> = carried.iter().map(String::as_str).collect();
    let rest: Vec<&str> = (left.iter().map(String::as_str))
        .filter(|e| !carried.contains(e))
        .collect();
    let Some(first) = rest.first() else {
        return;
    };
    let why = format!(
        "{} file(s) in the zip are not in the manifest and no document uses them (or they are no picture, stylesheet or font); not written (the first: {})",
        rest.len(),
        crate::escape::value(first)
    );
    diagnostics.push(Diagnostic::note(Code::EpubInFile, why).at(epub.join(&book.opf_path)));
}
