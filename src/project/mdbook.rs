//! What an mdBook's `book.toml` beside `metadata.toml` tells the build: the folder its site
//! links are rooted in (`[book] src`, `src/` by default: a link to `/basic/array.html` is
//! `src/basic/array.md`), the path the site is served under (`[output.html] site-url`: a
//! link to `/book-name/basic/array.html` is the same page), its line-hiding prefixes
//! (`[output.html.code.hidelines]`) and the TeX macros of its math
//! (`[preprocessor.katex] macros = "macros.txt"`, mdbook-katex's file: a line
//! `\name:definition` a macro). The file is an input of the build: editing it rebuilds.
//!
//! Part of the project stage: read once when the project loads, through the project's
//! containment check; a `book.toml` that cannot be read or parsed is ignored (`init` says so
//! when it reads the same file), the book then builds as plain Markdown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::Boundary;

/// Largest `book.toml` (or macro file) read.
const MAX_BYTES: u64 = 1 << 20;

/// A book's own TeX macros: name (without its backslash) and definition, in file order.
pub type TexMacros = Arc<Vec<(String, String)>>;

/// The settings of an mdBook that the build uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MdBookSettings {
    /// The `book.toml` itself: what the chapters' conversion depends on besides their text.
    pub toml: PathBuf,
    /// The chapter folder (absolute): where a link from the site's root (`/x.html`) starts.
    pub src: PathBuf,
    /// The path the site is served under (`site-url`, `/book-name/`), with its slashes; None
    /// for the root.
    pub site_url: Option<String>,
    /// Line-hiding prefixes by language (Rust's rule applies without one).
    pub hidelines: BTreeMap<String, String>,
    /// The TeX macros its math uses (`[preprocessor.katex] macros`); none when the file
    /// cannot be read (formulas that use them then stay as code, each with a warning).
    pub macros: TexMacros,
}

#[derive(Debug, Default, Deserialize)]
struct BookToml {
    #[serde(default)]
    book: Book,
    #[serde(default)]
    output: Output,
    #[serde(default)]
    preprocessor: Preprocessors,
}

#[derive(Debug, Default, Deserialize)]
struct Preprocessors {
    katex: Option<Katex>,
}

#[derive(Debug, Default, Deserialize)]
struct Katex {
    macros: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Book {
    src: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Output {
    #[serde(default)]
    html: Html,
}

#[derive(Debug, Default, Deserialize)]
struct Html {
    #[serde(default)]
    code: Code,
    #[serde(default, rename = "site-url")]
    site_url: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Code {
    #[serde(default)]
    hidelines: BTreeMap<String, String>,
}

/// The settings of the mdBook whose `book.toml` is in `root`, if there is one that reads.
pub(crate) fn read(root: &Path, boundary: &Boundary) -> Option<MdBookSettings> {
    let path = root.join("book.toml");
    if !path.is_file() {
        return None;
    }
    let bytes = boundary.read_limited(&path, MAX_BYTES, "file").ok()?;
    // A file that does not parse gives no settings, but is still watched: fixing it rebuilds.
    let config: BookToml = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|t| toml::from_str(t).ok())
        .unwrap_or_default();
    let written = config.book.src.as_deref().unwrap_or("src");
    let src = boundary
        .admit(root, written)
        .ok()
        .filter(|p| p.is_dir())
        .unwrap_or_else(|| root.to_path_buf());
    let macros = config
        .preprocessor
        .katex
        .and_then(|k| k.macros)
        .and_then(|file| boundary.admit(root, &file).ok())
        .and_then(|path| boundary.read_limited(&path, MAX_BYTES, "file").ok())
        .map(|bytes| katex_macros(&String::from_utf8_lossy(&bytes)))
        .unwrap_or_default();
    let site_url = config.output.html.site_url.and_then(|u| site_path(&u));
    Some(MdBookSettings {
        toml: path,
        src,
        site_url,
        hidelines: config.output.html.code.hidelines,
        macros: Arc::new(macros),
    })
}

/// mdbook-katex's macro file: each line that starts with a backslash is `\name:definition`;
/// other lines are not macros.
fn katex_macros(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.strip_prefix('\\')?.split_once(':'))
        .filter(|(name, _)| !name.is_empty())
        .map(|(name, definition)| (name.to_string(), definition.trim().to_string()))
        .collect()
}

/// `site-url` as the path its links start with (`/book-name/`); None when it is the root.
fn site_path(url: &str) -> Option<String> {
    let trimmed = url.trim().trim_matches('/');
    (!trimmed.is_empty()).then(|| format!("/{trimmed}/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn book_toml_gives_the_source_root_and_hidelines() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("text")).unwrap();
        std::fs::write(
            root.join("book.toml"),
            "[book]\nauthor = \"A\"\nsrc = \"text\"\n[output.html]\nsite-url = \"/course/\"\n\
             [output.html.code.hidelines]\npython = \"~\"\n",
        )
        .unwrap();
        let boundary = Boundary::new(root, false);
        let got = read(root, &boundary).unwrap();
        assert_eq!(got.src, root.join("text"));
        assert_eq!(got.hidelines.get("python").map(String::as_str), Some("~"));
        assert_eq!(got.site_url.as_deref(), Some("/course/"));
        assert_eq!(got.toml, root.join("book.toml"));
        std::fs::write(
            root.join("book.toml"),
            "[book]\ntitle = \"T\"\n[preprocessor.katex]\nmacros = \"m.txt\"\n",
        )
        .unwrap();
        std::fs::write(
            root.join("m.txt"),
            "\\GG:{\\mathbb{G}}\n\n% note\n\\rel:\\mathcal{R}_{#1}\n",
        )
        .unwrap();
        assert_eq!(
            *read(root, &boundary).unwrap().macros,
            [
                ("GG".to_string(), "{\\mathbb{G}}".to_string()),
                ("rel".to_string(), "\\mathcal{R}_{#1}".to_string())
            ]
        );
        // No `src/`: the links start from the book's own folder.
        assert_eq!(read(root, &boundary).unwrap().src, root);
    }
}
