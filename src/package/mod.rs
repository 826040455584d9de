//! The package stage: a converted [`Book`] in, the files of the EPUB out.
//!
//! Sits between `convert` (XHTML fragments) and `archive` (zip writing). It does no I/O: it
//! names every document, wraps fragments in XHTML documents with `lang`, and writes the
//! container, the package document (OPF: metadata, manifest, spine), the EPUB 3 navigation
//! document, the EPUB 2 NCX for older readers, the cover page and the stylesheet.
//!
//! We write this layer ourselves rather than use `epub-builder`: see the README's design notes.

mod docs;
mod locale;
mod nav;
mod opf;
pub mod style;

pub use locale::{chapter_title, front_title};

use crate::project::BookInfo;

/// Everything that goes into the EPUB, converted and ready to package.
#[derive(Debug, Clone)]
pub struct Book {
    /// Bibliographic data.
    pub info: BookInfo,
    /// `dcterms:modified`, as `CCYY-MM-DDThh:mm:ssZ`.
    pub modified: String,
    /// The cover image, if any.
    pub cover: Option<Image>,
    /// The reading order.
    pub contents: Vec<Node>,
    /// Images used by chapters.
    pub images: Vec<Image>,
}

/// An image file in the book.
#[derive(Debug, Clone)]
pub struct Image {
    /// File name under `EPUB/images/`.
    pub name: String,
    /// Its media type, e.g. `image/png`.
    pub media_type: &'static str,
    /// The bytes.
    pub data: Vec<u8>,
    /// Width in pixels (0 when unknown).
    pub width: u32,
    /// Height in pixels (0 when unknown).
    pub height: u32,
}

/// An entry of the reading order.
#[derive(Debug, Clone)]
pub enum Node {
    /// A chapter document.
    Chapter(Chapter),
    /// A part (volume): a title page, then its children.
    Part(Part),
}

/// A chapter: a title and its XHTML body fragment.
#[derive(Debug, Clone)]
pub struct Chapter {
    /// The chapter title, written as its `h1` and used in the TOC.
    pub title: String,
    /// Well-formed XHTML content.
    pub body: String,
}

/// A part (volume) with its own title page.
#[derive(Debug, Clone)]
pub struct Part {
    /// The part title.
    pub title: String,
    /// XHTML content shown on the title page under the title (may be empty).
    pub intro: String,
    /// Chapters (or nested parts) in the part.
    pub children: Vec<Node>,
}

/// A file of the EPUB container, in the order it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Path inside the zip.
    pub name: String,
    /// The bytes.
    pub data: Vec<u8>,
    /// Deflate it (false for `mimetype` and already-compressed images).
    pub compress: bool,
}

/// Where the package files live inside the container.
pub const ROOT: &str = "EPUB";

/// A document of the reading order with its generated file name.
#[derive(Debug)]
pub(crate) struct Doc<'a> {
    /// Manifest id, also the file stem.
    pub id: String,
    /// Path relative to the package document, e.g. `text/chapter-0001.xhtml`.
    pub href: String,
    /// Title for the TOC and `<title>`.
    pub title: &'a str,
    /// Nesting depth, 1 for top level.
    pub depth: usize,
    /// What it holds.
    pub kind: DocKind<'a>,
}

#[derive(Debug)]
pub(crate) enum DocKind<'a> {
    Chapter(&'a Chapter),
    Part(&'a Part),
}

/// Lays the reading order out as a flat list of documents, depth-first.
pub(crate) fn documents(book: &Book) -> Vec<Doc<'_>> {
    fn walk<'a>(
        nodes: &'a [Node],
        depth: usize,
        counters: &mut (usize, usize),
        out: &mut Vec<Doc<'a>>,
    ) {
        for node in nodes {
            match node {
                Node::Chapter(c) => {
                    counters.0 += 1;
                    let id = chapter_id(counters.0);
                    out.push(Doc {
                        href: format!("text/{id}.xhtml"),
                        id,
                        title: &c.title,
                        depth,
                        kind: DocKind::Chapter(c),
                    });
                }
                Node::Part(p) => {
                    counters.1 += 1;
                    let id = format!("part-{:02}", counters.1);
                    out.push(Doc {
                        href: format!("text/{id}.xhtml"),
                        id,
                        title: &p.title,
                        depth,
                        kind: DocKind::Part(p),
                    });
                    walk(&p.children, depth + 1, counters, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&book.contents, 1, &mut (0, 0), &mut out);
    out
}

/// Manifest id (and file stem) of the `n`th chapter document, 1-based.
fn chapter_id(n: usize) -> String {
    format!("chapter-{n:04}")
}

/// File name (in the `text/` folder) of the `n`th chapter document, 1-based.
pub fn chapter_file_name(n: usize) -> String {
    format!("{}.xhtml", chapter_id(n))
}

/// Writes every file of the EPUB, in container order.
pub fn package(book: &Book) -> Vec<Entry> {
    let docs = documents(book);
    let css = style::default_css(&book.info.language);
    let mut entries = vec![
        Entry {
            name: "mimetype".into(),
            data: b"application/epub+zip".to_vec(),
            compress: false,
        },
        Entry {
            name: "META-INF/container.xml".into(),
            data: container_xml().into_bytes(),
            compress: true,
        },
        Entry {
            name: format!("{ROOT}/package.opf"),
            data: opf::package_document(book, &docs).into_bytes(),
            compress: true,
        },
        Entry {
            name: format!("{ROOT}/nav.xhtml"),
            data: nav::nav_document(book, &docs).into_bytes(),
            compress: true,
        },
        Entry {
            name: format!("{ROOT}/toc.ncx"),
            data: nav::ncx(book, &docs).into_bytes(),
            compress: true,
        },
        Entry {
            name: format!("{ROOT}/styles/book.css"),
            data: css.into_bytes(),
            compress: true,
        },
    ];
    if let Some(cover) = &book.cover {
        entries.push(Entry {
            name: format!("{ROOT}/text/cover.xhtml"),
            data: docs::cover_page(book, cover).into_bytes(),
            compress: true,
        });
    }
    for doc in &docs {
        entries.push(Entry {
            name: format!("{ROOT}/{}", doc.href),
            data: docs::content_document(book, doc).into_bytes(),
            compress: true,
        });
    }
    for image in book.cover.iter().chain(&book.images) {
        entries.push(Entry {
            name: format!("{ROOT}/images/{}", image.name),
            data: image.data.clone(),
            compress: image.media_type == "image/svg+xml",
        });
    }
    entries
}

fn container_xml() -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles>
    <rootfile full-path="{ROOT}/package.opf" media-type="application/oebps-package+xml"/>
  </rootfiles>
</container>
"#
    )
}
