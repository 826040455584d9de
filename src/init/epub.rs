//! `epubforge init BOOK.epub [DIR]`: an EPUB unpacked into an editable project
//! ([`crate::epub_in::unpack`]), in `DIR` or a folder named after the EPUB beside it, its
//! chapters rewritten as Markdown with `--markdown` where Markdown says all they hold.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::markdown;
use crate::diagnostic::{Code, Diagnostic};
use crate::epub_in::{self, UnpackOptions, Unpacked};

/// Options of [`init_epub`].
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct EpubInitOptions {
    /// Write into a folder that is not empty.
    pub force: bool,
    /// Chapters as Markdown where that is faithful.
    pub markdown: bool,
}

/// The folder an EPUB is unpacked into by default: its name without `.epub`, beside it.
pub fn default_folder(epub: &Path) -> PathBuf {
    let stem = epub
        .file_stem()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "book".into());
    epub.with_file_name(stem)
}

/// Unpacks `epub` into `dir` (default: `default_folder`).
///
/// ```no_run
/// use epubforge::{EpubInitOptions, init_epub};
///
/// let mut opts = EpubInitOptions::default();
/// opts.markdown = true;
/// let unpacked = init_epub(std::path::Path::new("book.epub"), None, &opts)?;
/// println!("wrote {}", unpacked.metadata_path.display());
/// # Ok::<(), epubforge::UnpackError>(())
/// ```
pub fn init_epub(
    epub: &Path,
    dir: Option<&Path>,
    opts: &EpubInitOptions,
) -> Result<Unpacked, epub_in::Error> {
    let dir = dir.map_or_else(|| default_folder(epub), Path::to_path_buf);
    let mut unpacked = epub_in::unpack(epub, &dir, &UnpackOptions::new().force(opts.force))?;
    if opts.markdown {
        rewrite_as_markdown(&dir, &mut unpacked)?;
    }
    Ok(unpacked)
}

/// Rewrites the chapters of `unpacked` (in `dir`) as Markdown where that is faithful; the
/// others stay XHTML, each with a note. Links to a rewritten chapter follow it.
fn rewrite_as_markdown(dir: &Path, unpacked: &mut Unpacked) -> Result<(), epub_in::Error> {
    let write_err = |path: &Path, source| epub_in::Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let identity = |h: &str| h.to_string();
    let mut texts: Vec<Option<String>> = Vec::new();
    let mut converted: HashSet<String> = HashSet::new();
    for c in &unpacked.chapters {
        let path = dir.join(&c.file);
        let text = std::fs::read_to_string(&path).ok();
        let why = match (&text, markdown_name(&c.file)) {
            (None, _) => Some("it is not UTF-8 text".to_string()),
            (_, None) => Some("its name does not say HTML".to_string()),
            (Some(_), Some(md)) if dir.join(&md).exists() => Some(format!("{md} exists")),
            (Some(t), Some(_)) => markdown::to_markdown(t, &identity)
                .and_then(|md| markdown::faithful(t, &md))
                .err(),
        };
        match why {
            None => {
                converted.insert(c.file.clone());
            }
            Some(why) => unpacked.diagnostics.push(
                Diagnostic::note(
                    Code::EpubInMarkdown,
                    format!("kept as XHTML: Markdown cannot say all it holds ({why})"),
                )
                .at(path),
            ),
        }
        texts.push(text);
    }
    let metadata = std::fs::read_to_string(&unpacked.metadata_path)
        .map_err(|e| write_err(&unpacked.metadata_path, e))?;
    let mut metadata = metadata;
    for (c, text) in unpacked.chapters.iter_mut().zip(texts) {
        let Some(text) = text else { continue };
        let from = c.file.clone();
        let link = |href: &str| follow(&from, href, &converted);
        let path = dir.join(&c.file);
        if let (true, Some(md_name)) = (converted.contains(&c.file), markdown_name(&c.file)) {
            let Ok(md) = markdown::to_markdown(&text, &link) else {
                continue;
            };
            let md_path = dir.join(&md_name);
            std::fs::write(&md_path, md).map_err(|e| write_err(&md_path, e))?;
            std::fs::remove_file(&path).map_err(|e| write_err(&path, e))?;
            metadata = metadata.replacen(
                &format!("file = {}\n", toml::Value::String(c.file.clone())),
                &format!("file = {}\n", toml::Value::String(md_name.clone())),
                1,
            );
            c.file = md_name;
        } else if !converted.is_empty() {
            let relinked = epub_in::links::relink(&text, &link);
            if relinked != text {
                std::fs::write(&path, relinked).map_err(|e| write_err(&path, e))?;
            }
        }
    }
    std::fs::write(&unpacked.metadata_path, metadata)
        .map_err(|e| write_err(&unpacked.metadata_path, e))
}

/// `text/ch1.xhtml` → `text/ch1.md`; None for a name without an HTML extension.
fn markdown_name(file: &str) -> Option<String> {
    let (stem, ext) = file.rsplit_once('.')?;
    ["xhtml", "html", "htm", "xht"]
        .contains(&ext.to_ascii_lowercase().as_str())
        .then(|| format!("{stem}.md"))
}

/// `href`, found in the chapter `from`, pointed at the Markdown file when it names a chapter
/// that became one.
fn follow(from: &str, href: &str, converted: &HashSet<String>) -> String {
    let Some(target) = crate::inspect::href::resolve(from, href) else {
        return href.to_string();
    };
    let (path, fragment) = href
        .split_once('#')
        .map_or((href, None), |(p, f)| (p, Some(f)));
    if path.is_empty() || !converted.contains(&target.path) {
        return href.to_string();
    }
    let new = markdown_name(path).unwrap_or_else(|| path.to_string());
    match fragment {
        Some(f) => format!("{new}#{f}"),
        None => new,
    }
}
