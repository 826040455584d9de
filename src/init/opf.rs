//! EPUB source trees for `init`: a folder holding a package document (`content.opf`), such as
//! a Standard Ebooks repository (`src/epub/content.opf`) or an unzipped EPUB.
//!
//! The package document already says what `init` otherwise guesses: the reading order (the
//! spine), the title, authors, language, identifier and description, the cover image and the
//! stylesheets. It is found through `META-INF/container.xml` (in the folder or its `src/`),
//! else as the one `.opf` file within three folders of it.

use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};

/// Largest package document or container file read.
const MAX_FILE_BYTES: u64 = 8 << 20;

/// How deep below the folder a package document is looked for without a container file.
const MAX_DEPTH: usize = 3;

const OPF_NS: &str = "http://www.idpf.org/2007/opf";
const DC_NS: &str = "http://purl.org/dc/elements/1.1/";

/// What a package document says, its paths made relative to the folder `init` runs in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpfBook {
    /// The package document, relative to the folder.
    pub opf: String,
    /// The first `dc:title`.
    pub title: Option<String>,
    /// The `dc:creator`s, in order.
    pub authors: Vec<String>,
    /// The first `dc:language`.
    pub language: Option<String>,
    /// The `dc:identifier` the package names as its unique one (else the first).
    pub identifier: Option<String>,
    /// `dc:description`, as plain text (markup in it taken out).
    pub description: Option<String>,
    /// The manifest's `cover-image` (or EPUB 2's `<meta name="cover">`).
    pub cover: Option<String>,
    /// The manifest's stylesheets, in manifest order.
    pub stylesheets: Vec<String>,
    /// The spine's XHTML documents, in reading order, with whether each is `linear`.
    pub spine: Vec<(String, bool)>,
    /// What `init` could not follow (a spine item that is not in the manifest, or not XHTML),
    /// about the package document (`opf`).
    pub notes: Vec<String>,
}

/// The EPUB source tree in `dir`, if it is one.
pub fn find(dir: &Path) -> Option<OpfBook> {
    let opf = from_container(dir).or_else(|| search(dir))?;
    let text = read_limited(&dir.join(&opf))?;
    let doc = Document::parse(&text).ok()?;
    let root = doc.root_element();
    let mut book = (root.tag_name().name() == "package").then(|| read_package(root, &opf))?;
    settle_cover(dir, &mut book);
    Some(book)
}

/// Raster pictures a cover may fall back to.
const RASTER: [&str; 3] = ["jpg", "jpeg", "png"];

/// Takes the cover that exists. A source tree may hold only the makings of its cover: Standard
/// Ebooks' `images/cover.svg` is a template (the title as `<text>` over a linked
/// `cover.jpg`) until `se build-images` draws the finished one into `src/epub/images/`. Then
/// the picture the template links (or one of the manifest cover's name in the tree's
/// `images/`) is the cover, with a note; with none, the template itself, with a note.
fn settle_cover(dir: &Path, book: &mut OpfBook) {
    let Some(cover) = book.cover.clone() else {
        return;
    };
    let path = dir.join(&cover);
    let template = match path.is_file() {
        true => template_picture(&path),
        false => None,
    };
    if path.is_file() && template.is_none() {
        return;
    }
    let stem = Path::new(&cover)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut candidates: Vec<String> = Vec::new();
    if let Some(linked) = &template {
        let base = cover.rsplit_once('/').map_or("", |(b, _)| b);
        candidates.extend(join(base, linked));
        if let Some(name) = linked.rsplit('/').next() {
            candidates.push(format!("images/{name}"));
        }
    }
    candidates.extend(RASTER.iter().map(|ext| format!("images/{stem}.{ext}")));
    let found = candidates
        .into_iter()
        .find(|c| crate::project::has_extension(Path::new(c), &RASTER) && dir.join(c).is_file());
    let what = match template.is_some() {
        true => {
            "is a template (its title is text over a linked picture, as a source tree holds it before its cover is built)"
        }
        false => "does not exist",
    };
    match found {
        Some(picture) => {
            book.notes.push(format!(
                "the cover {cover} {what}; its picture {picture} was taken: check it, or set `cover` to the finished one"
            ));
            book.cover = Some(picture);
        }
        None if template.is_some() => book.notes.push(format!(
            "the cover {cover} {what}; it was used as it is: set `cover` to the finished one"
        )),
        None => {
            book.notes
                .push(format!("the cover {cover} {what}; the book has none"));
            book.cover = None;
        }
    }
}

/// The picture an SVG cover links (not embeds) under `<text>` written over it, when it is such
/// a template; None for a finished cover (its picture embedded, its letters drawn as paths)
/// and for any other file.
fn template_picture(path: &Path) -> Option<String> {
    if !crate::project::has_extension(path, &["svg"]) {
        return None;
    }
    let text = read_limited(path)?;
    let doc = Document::parse(&text).ok()?;
    let has_text = doc.descendants().any(|n| n.tag_name().name() == "text");
    let linked = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "image")
        .filter_map(|n| {
            n.attributes()
                .find(|a| a.name() == "href")
                .map(|a| a.value().trim().to_string())
        })
        .find(|href| !href.starts_with("data:"));
    linked.filter(|_| has_text)
}

/// A file's text, when it is no bigger than [`MAX_FILE_BYTES`].
fn read_limited(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The package document `META-INF/container.xml` names, in `dir` or `dir/src`.
fn from_container(dir: &Path) -> Option<String> {
    for base in ["", "src"] {
        let container = dir.join(base).join("META-INF").join("container.xml");
        let Some(text) = read_limited(&container) else {
            continue;
        };
        let doc = Document::parse(&text).ok()?;
        let full = doc
            .descendants()
            .find(|n| n.tag_name().name() == "rootfile")
            .and_then(|n| n.attribute("full-path"))?;
        let rel = join(base, full)?;
        if dir.join(&rel).is_file() {
            return Some(rel);
        }
    }
    None
}

/// The one `.opf` file within [`MAX_DEPTH`] folders of `dir` (hidden folders and the build's
/// output left out); None when there is none or more than one.
fn search(dir: &Path) -> Option<String> {
    let found: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .max_depth(MAX_DEPTH + 1)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || !(name.starts_with('.') || name == crate::project::OUTPUT_FOLDER)
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| crate::project::has_extension(e.path(), &["opf"]))
        .map(|e| e.into_path())
        .take(2)
        .collect();
    match found.as_slice() {
        [one] => one
            .strip_prefix(dir)
            .ok()
            .map(|p| p.to_string_lossy().replace('\\', "/")),
        _ => None,
    }
}

/// `href` (percent-encoded, relative to the folder `base`) as a path relative to the folder
/// `init` runs in; None when it leads out of it or is not a relative path.
fn join(base: &str, href: &str) -> Option<String> {
    let href = href.split(['#', '?']).next().unwrap_or(href);
    let decoded = crate::convert::markup::percent_decode(href);
    if decoded.starts_with('/') || decoded.contains(':') {
        return None;
    }
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in decoded.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Reads the metadata, manifest and spine of a package document at `opf`.
fn read_package(root: Node<'_, '_>, opf: &str) -> OpfBook {
    let base = opf.rsplit_once('/').map_or("", |(b, _)| b);
    let mut book = OpfBook {
        opf: opf.to_string(),
        ..OpfBook::default()
    };
    let child = |name: &str| {
        root.children()
            .find(|n| n.is_element() && n.tag_name().name() == name)
    };
    let unique = root.attribute("unique-identifier");
    if let Some(meta) = child("metadata") {
        read_metadata(meta, unique, &mut book);
    }
    let items: Vec<Node<'_, '_>> = child("manifest")
        .map(|m| m.children().filter(|n| is_opf(n, "item")).collect())
        .unwrap_or_default();
    let cover_id = child("metadata").and_then(|m| {
        m.children()
            .find(|n| is_opf(n, "meta") && n.attribute("name") == Some("cover"))
            .and_then(|n| n.attribute("content"))
    });
    for item in &items {
        let (Some(href), Some(media)) = (item.attribute("href"), item.attribute("media-type"))
        else {
            continue;
        };
        let props = item.attribute("properties").unwrap_or("");
        let is_cover = props.split_ascii_whitespace().any(|p| p == "cover-image")
            || (cover_id.is_some() && item.attribute("id") == cover_id);
        if is_cover && book.cover.is_none() {
            book.cover = join(base, href);
        }
        if media == "text/css"
            && let Some(css) = join(base, href)
        {
            book.stylesheets.push(css);
        }
    }
    if let Some(spine) = child("spine") {
        read_spine(spine, &items, base, &mut book);
    }
    book
}

fn is_opf(n: &Node<'_, '_>, name: &str) -> bool {
    n.is_element() && n.tag_name().name() == name && n.tag_name().namespace() == Some(OPF_NS)
}

/// Text of an element on one line, markup written inside it as text (an escaped HTML
/// description) taken out.
fn plain(n: Node<'_, '_>) -> Option<String> {
    let text: String = n
        .descendants()
        .filter(|d| d.is_text())
        .filter_map(|d| d.text())
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = out.split_whitespace().collect();
    let line = words.join(" ").replace(" ,", ",").replace(" .", ".");
    (!line.is_empty()).then_some(line)
}

fn read_metadata(meta: Node<'_, '_>, unique: Option<&str>, book: &mut OpfBook) {
    for n in meta.descendants().filter(|n| n.is_element()) {
        if n.tag_name().namespace() != Some(DC_NS) {
            continue;
        }
        let Some(value) = plain(n) else { continue };
        match n.tag_name().name() {
            "title" if book.title.is_none() => book.title = Some(value),
            "creator" if !book.authors.contains(&value) => book.authors.push(value),
            "language" if book.language.is_none() => book.language = Some(value),
            "identifier" if unique.is_some() && n.attribute("id") == unique => {
                book.identifier = Some(value);
            }
            "identifier" if book.identifier.is_none() => book.identifier = Some(value),
            "description" if book.description.is_none() => book.description = Some(value),
            _ => {}
        }
    }
}

fn read_spine(spine: Node<'_, '_>, items: &[Node<'_, '_>], base: &str, book: &mut OpfBook) {
    for itemref in spine.children().filter(|n| is_opf(n, "itemref")) {
        let idref = itemref.attribute("idref").unwrap_or("");
        let item = items.iter().find(|i| i.attribute("id") == Some(idref));
        let Some((href, media)) =
            item.and_then(|i| Some((i.attribute("href")?, i.attribute("media-type")?)))
        else {
            book.notes.push(format!(
                "spine item \"{idref}\" is not in the manifest; left out"
            ));
            continue;
        };
        let path = join(base, href).filter(|_| media == "application/xhtml+xml");
        let Some(path) = path else {
            book.notes.push(format!(
                "spine item {href} ({media}) is not a chapter file here; left out"
            ));
            continue;
        };
        let linear = itemref.attribute("linear") != Some("no");
        book.spine.push((path, linear));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPF: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="uid" version="3.0">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="other">urn:isbn:0000</dc:identifier>
    <dc:identifier id="uid">https://example.org/ebooks/a-book</dc:identifier>
    <dc:title id="title">A Book</dc:title>
    <dc:description>&lt;p&gt;&lt;i&gt;A Book&lt;/i&gt; is short.&lt;/p&gt;</dc:description>
    <dc:language>en-GB</dc:language>
    <dc:creator id="author">Ann Author</dc:creator>
  </metadata>
  <manifest>
    <item href="css/core.css" id="core.css" media-type="text/css"/>
    <item href="images/cover.jpg" id="cover.jpg" media-type="image/jpeg" properties="cover-image"/>
    <item href="text/chapter-2.xhtml" id="c2" media-type="application/xhtml+xml"/>
    <item href="text/chapter-10.xhtml" id="c10" media-type="application/xhtml+xml"/>
    <item href="text/notes.xhtml" id="notes" media-type="application/xhtml+xml"/>
    <item href="toc.xhtml" id="toc" media-type="application/xhtml+xml" properties="nav"/>
  </manifest>
  <spine>
    <itemref idref="c10"/>
    <itemref idref="c2"/>
    <itemref idref="notes" linear="no"/>
    <itemref idref="gone"/>
  </spine>
</package>"#;

    #[test]
    fn a_source_tree_is_read_through_its_container_in_spine_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let epub = dir.path().join("src/epub");
        std::fs::create_dir_all(epub.join("text")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("src/META-INF")).expect("mkdir");
        std::fs::write(
            dir.path().join("src/META-INF/container.xml"),
            r#"<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="epub/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#,
        )
        .expect("write");
        std::fs::write(epub.join("content.opf"), OPF).expect("write");
        std::fs::create_dir_all(epub.join("images")).expect("mkdir");
        std::fs::write(epub.join("images/cover.jpg"), b"jpeg").expect("write");
        let book = find(dir.path()).expect("an EPUB source tree");
        assert_eq!(book.opf, "src/epub/content.opf");
        assert_eq!(book.title.as_deref(), Some("A Book"));
        assert_eq!(book.authors, ["Ann Author"]);
        assert_eq!(book.language.as_deref(), Some("en-GB"));
        assert_eq!(
            book.identifier.as_deref(),
            Some("https://example.org/ebooks/a-book")
        );
        assert_eq!(book.description.as_deref(), Some("A Book is short."));
        assert_eq!(book.cover.as_deref(), Some("src/epub/images/cover.jpg"));
        assert_eq!(book.stylesheets, ["src/epub/css/core.css"]);
        assert_eq!(
            book.spine,
            [
                ("src/epub/text/chapter-10.xhtml".to_string(), true),
                ("src/epub/text/chapter-2.xhtml".to_string(), true),
                ("src/epub/text/notes.xhtml".to_string(), false),
            ]
        );
        assert_eq!(book.notes.len(), 1, "{:?}", book.notes);
    }

    /// A Standard Ebooks tree before `se build-images`: the manifest's cover is the template.
    #[test]
    fn a_template_cover_gives_way_to_the_picture_it_links_with_a_note() {
        let dir = tempfile::tempdir().expect("temp dir");
        let epub = dir.path().join("src/epub");
        std::fs::create_dir_all(epub.join("images")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("images")).expect("mkdir");
        let opf = OPF.replace("images/cover.jpg", "images/cover.svg");
        std::fs::write(epub.join("content.opf"), opf).expect("write");
        let template = r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 1400 2100"><image xlink:href="cover.jpg" width="1400" height="2100"/><text x="700" y="1825">A BOOK</text></svg>"#;
        std::fs::write(epub.join("images/cover.svg"), template).expect("write");
        // No picture anywhere: the template itself, said so.
        let book = find(dir.path()).expect("a source tree");
        assert_eq!(book.cover.as_deref(), Some("src/epub/images/cover.svg"));
        assert!(
            book.notes.iter().any(|n| n.contains("is a template")),
            "{:?}",
            book.notes
        );
        // The picture the template links, in the tree's own `images/`.
        std::fs::write(dir.path().join("images/cover.jpg"), b"jpeg").expect("write");
        let book = find(dir.path()).expect("a source tree");
        assert_eq!(book.cover.as_deref(), Some("images/cover.jpg"));
        // A finished cover (its picture embedded, no text) is taken as it is, with no note.
        let finished = r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 1400 2100"><image xlink:href="data:image/jpeg;base64,AAAA"/><path d="M0,0"/></svg>"#;
        std::fs::write(epub.join("images/cover.svg"), finished).expect("write");
        let book = find(dir.path()).expect("a source tree");
        assert_eq!(book.cover.as_deref(), Some("src/epub/images/cover.svg"));
        assert!(
            book.notes.iter().all(|n| !n.contains("cover")),
            "{:?}",
            book.notes
        );
        // A manifest cover that is missing: none, said so.
        std::fs::remove_file(epub.join("images/cover.svg")).expect("rm");
        std::fs::remove_file(dir.path().join("images/cover.jpg")).expect("rm");
        let book = find(dir.path()).expect("a source tree");
        assert_eq!(book.cover, None);
        assert!(book.notes.iter().any(|n| n.contains("does not exist")));
    }

    #[test]
    fn hrefs_leading_out_of_the_folder_are_refused() {
        assert_eq!(
            join("src/epub", "../../x.xhtml").as_deref(),
            Some("x.xhtml")
        );
        assert_eq!(join("src/epub", "../../../x.xhtml"), None);
        assert_eq!(join("", "/etc/passwd"), None);
        assert_eq!(join("a", "b%20c.xhtml#x").as_deref(), Some("a/b c.xhtml"));
    }
}
