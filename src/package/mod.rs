//! The package stage: a converted [`Book`] in, the files of the EPUB out.
//!
//! Sits between `convert` (XHTML fragments) and `archive` (zip writing). It does no I/O: it
//! names every document, wraps fragments in XHTML documents with `lang`, and writes the
//! container, the package document (OPF: metadata, manifest, spine), the EPUB 3 navigation
//! document, the EPUB 2 NCX for older readers, the cover page and the stylesheet.
//!
//! We write this layer ourselves rather than use `epub-builder`: see the guide's design notes
//! (`guide/src/design-notes.md`).

mod docs;
mod epub2;
mod nav;
mod opf;
mod pages;
pub mod style;
pub mod tcy;

use std::collections::BTreeSet;

use crate::book::{
    Book, Chapter, CodeUse, Entry, Features, Image, Levels, Matter, Node, Part, Target, locale,
    piece_id, pieces, split_limit,
};
use crate::media::fonts::SubsetFont;
use crate::project::{EpubVersion, Layout, Style, WritingMode};

/// Where the package files live inside the container.
pub const ROOT: &str = "EPUB";

/// How the book is laid out and styled: `[style]`, `[layout]` and `[output] epub-version`,
/// with the files they name already read. `Look::default()` is the default book.
#[derive(Debug, Clone, Default)]
pub struct Look {
    /// Theme and typographic settings.
    pub style: Style,
    /// Generated pages, writing mode, chapter splitting.
    pub layout: Layout,
    /// EPUB 3 or EPUB 2.
    pub version: EpubVersion,
    /// User stylesheets, linked after ours in this order.
    pub user_css: Vec<Asset>,
    /// Embedded fonts, already subset; the first is the body font.
    pub fonts: Vec<SubsetFont>,
    /// Fonts a user stylesheet's `@font-face` names, carried as they are under `fonts/`
    /// (an EPUB's own fonts, which `fix` and `init` keep); each one's format is
    /// [`crate::media::CarriedFont::sniff`] of its bytes.
    pub css_fonts: Vec<Asset>,
    /// The code the book shows, styled only when there is some.
    pub code: CodeUse,
    /// The reader or store the EPUB is made for: its tables of contents follow its limits, and
    /// its frame is finished for it ([`crate::stores`]). Chapter documents are rendered for the
    /// plain EPUB and finished apart.
    pub target: Target,
}

impl Look {
    /// True for `writing-mode = "vertical-rl"`.
    pub fn vertical(&self) -> bool {
        self.layout.writing_mode == WritingMode::VerticalRl
    }

    fn epub2(&self) -> bool {
        self.version == EpubVersion::V2
    }

    /// The cover page shows the cover with a plain `img`: in EPUB 2, which old readers handle
    /// best, and for Kobo, whose cover extraction and previews take an `img` only (Kobo's
    /// EPUB guidelines, "Cover Images").
    fn cover_img(&self) -> bool {
        self.epub2() || self.target == crate::book::Target::Kobo
    }

    /// Stylesheet hrefs relative to the package document, ours first.
    fn stylesheets(&self) -> Vec<String> {
        std::iter::once("styles/book.css".to_string())
            .chain(self.user_css.iter().map(|a| format!("styles/{}", a.name)))
            .collect()
    }

    /// File name of embedded font `i` under `fonts/`.
    pub(crate) fn font_name(&self, i: usize) -> Option<String> {
        self.fonts
            .get(i)
            .map(|f| format!("font-{}.{}", i + 1, f.format.extension()))
    }
}

/// A file copied into the book as it is (a user stylesheet).
#[derive(Debug, Clone)]
pub struct Asset {
    /// File name under its folder (`styles/`).
    pub name: String,
    /// The bytes.
    pub data: Vec<u8>,
}

/// A document of the reading order with its generated file name.
#[derive(Debug)]
pub(crate) struct Doc<'a> {
    /// Manifest id, also the file stem.
    pub id: String,
    /// Path relative to the package document, e.g. `text/chapter-0001.xhtml`.
    pub href: String,
    /// Title for the TOC and `<title>`.
    pub title: String,
    /// Nesting depth, 1 for top level.
    pub depth: usize,
    /// Listed in the table of contents (false for generated pages and continuation parts).
    pub in_toc: bool,
    /// What it holds that the manifest declares.
    pub features: Features,
    /// What it holds.
    pub kind: DocKind<'a>,
}

#[derive(Debug)]
pub(crate) enum DocKind<'a> {
    /// A chapter, or one piece of a chapter split for size (`first` holds the heading):
    /// chapter `number` (1-based), piece `piece` (0-based).
    Chapter {
        chapter: &'a Chapter,
        body: &'a str,
        first: bool,
        number: usize,
        piece: usize,
    },
    Part(&'a Part),
    TitlePage,
    TocPage,
    Colophon,
}

impl Doc<'_> {
    /// True for chapter and part documents of the body matter (a chapter whose source says
    /// it is front or back matter is not).
    fn is_body(&self) -> bool {
        match &self.kind {
            DocKind::Chapter { chapter, .. } => chapter.matter() == Matter::Body,
            DocKind::Part(_) => true,
            _ => false,
        }
    }

    /// Whether the spine reads it in order (only a chapter may be out of it).
    fn linear(&self) -> bool {
        !matches!(&self.kind, DocKind::Chapter { chapter, .. } if !chapter.linear)
    }

    /// A chapter whose source says it is `matter`.
    fn is_matter(&self, matter: Matter) -> bool {
        matches!(&self.kind, DocKind::Chapter { chapter, .. } if chapter.matter() == matter)
    }
}

/// Lays the reading order out as a flat list of documents, depth-first: the generated front
/// pages, chapters (split for size) and parts, then the colophon.
pub(crate) fn documents<'a>(book: &'a Book, look: &Look) -> Vec<Doc<'a>> {
    let words = locale::words(&book.info.language);
    let toc_title = look.layout.toc_page_title.as_deref();
    let generated = |id: &str, title: &str, kind| Doc {
        id: id.to_string(),
        href: format!("text/{id}.xhtml"),
        title: title.to_string(),
        depth: 1,
        in_toc: false,
        features: Features::default(),
        kind,
    };
    let mut out = Vec::new();
    if look.layout.title_page {
        out.push(generated("titlepage", &book.info.title, DocKind::TitlePage));
    }
    let front = out.len();
    walk(
        &book.contents,
        1,
        split_limit(&look.layout),
        &mut (0, 0),
        &mut out,
    );
    if look.layout.toc_page {
        // Before the chapter `toc-page-before` numbers (its first piece), else at the end.
        let before = look.layout.toc_page_before;
        let at = (before > 1)
            .then(|| {
                out.iter().position(
                    |d| matches!(d.kind, DocKind::Chapter { number, first: true, .. } if number == before),
                )
            })
            .map_or(front, |found| found.unwrap_or(out.len()));
        let mut page = generated("toc", toc_title.unwrap_or(words.contents), DocKind::TocPage);
        page.in_toc = toc_title.is_some();
        out.insert(at, page);
    }
    // A table of contents lists one entry at least: when every chapter says `toc = false`,
    // it lists them all.
    if !out.iter().any(|d| d.in_toc) {
        for d in &mut out {
            d.in_toc = matches!(d.kind, DocKind::Chapter { first: true, .. });
        }
    }
    if look.layout.colophon {
        out.push(generated("colophon", words.colophon, DocKind::Colophon));
    }
    if let Some(max) = look.target.toc_depth() {
        for doc in &mut out {
            doc.depth = doc.depth.min(max);
        }
    }
    out
}

/// The documents of `nodes` at `depth`, appended to `out`; `counters` number chapters and parts.
fn walk<'a>(
    nodes: &'a [Node],
    depth: usize,
    limit: usize,
    counters: &mut (usize, usize),
    out: &mut Vec<Doc<'a>>,
) {
    let mut levels = Levels::default();
    for node in nodes {
        match node {
            Node::Chapter(c) => {
                let depth = depth + levels.place(c.level);
                counters.0 += 1;
                // The bodies may be set aside: the count of pieces lays the book out.
                let bodies = pieces::split_body(&c.body, limit);
                for i in 0..c.pieces.max(1) {
                    let body = bodies.get(i).copied().unwrap_or("");
                    out.push(chapter_doc(c, counters.0, i, body, depth));
                }
            }
            Node::Part(p) => {
                // A chapter after a part does not nest under it.
                levels = Levels::default();
                counters.1 += 1;
                let id = format!("part-{:02}", counters.1);
                out.push(Doc {
                    href: format!("text/{id}.xhtml"),
                    id,
                    title: p.title.clone(),
                    depth,
                    in_toc: true,
                    features: Features::default(),
                    kind: DocKind::Part(p),
                });
                walk(&p.children, depth + 1, limit, counters, out);
            }
        }
    }
}

/// Piece `piece` (0-based, holding `body`) of chapter `number` (1-based), as a document.
fn chapter_doc<'a>(
    chapter: &'a Chapter,
    number: usize,
    piece: usize,
    body: &'a str,
    depth: usize,
) -> Doc<'a> {
    let id = piece_id(number, piece);
    Doc {
        href: format!("text/{id}.xhtml"),
        id,
        title: chapter.title.clone(),
        depth,
        in_toc: piece == 0 && chapter.in_toc,
        features: chapter.features(piece),
        kind: DocKind::Chapter {
            chapter,
            body,
            first: piece == 0,
            number,
            piece,
        },
    }
}

/// Writes every file of the default EPUB 3 book.
#[cfg(test)]
pub fn package(book: &Book) -> Vec<Entry> {
    package_with(book, &Look::default())
}

/// Every character the book's documents show (text nodes of every XHTML document, the
/// generated pages included): what an embedded font must cover.
pub fn used_chars(book: &Book, look: &Look) -> BTreeSet<char> {
    let mut chars = BTreeSet::new();
    for entry in package_with(book, look) {
        if entry.name.ends_with(".xhtml") || entry.name.ends_with(".ncx") {
            collect_text_chars(&String::from_utf8_lossy(&entry.data), &mut chars);
        }
    }
    chars
}

/// Adds the characters of `xml`'s text content (outside tags, entities decoded) to `out`.
fn collect_text_chars(xml: &str, out: &mut BTreeSet<char>) {
    let mut rest = xml;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('<') {
            rest = after.find('>').map_or("", |i| &after[i + 1..]);
        } else if let Some(after) = rest.strip_prefix('&') {
            let end = after.find(';').filter(|&i| i <= 10);
            let (entity, next) = match end {
                Some(i) => (&after[..i], &after[i + 1..]),
                None => ("amp", after),
            };
            let c = match entity {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                e => e.strip_prefix('#').and_then(|n| {
                    let code = match n.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => n.parse().ok(),
                    };
                    code.and_then(char::from_u32)
                }),
            };
            out.extend(c);
            rest = next;
        } else {
            let end = rest.find(['<', '&']).unwrap_or(rest.len());
            out.extend(rest[..end].chars().filter(|c| !c.is_control()));
            rest = &rest[end..];
        }
    }
}

/// Writes every file of the EPUB, in container order, laid out and styled by `look`.
pub fn package_with(book: &Book, look: &Look) -> Vec<Entry> {
    package_entries(book, look, &documents(book, look), true)
}

/// The package without its chapter documents rendered: what a writer that renders chapters
/// itself ([`chapter_texts`]) or copies them from a previous EPUB needs first.
pub struct Frame {
    /// Every entry of [`package_with`], in order, chapter documents empty.
    pub entries: Vec<Entry>,
    /// For each chapter, its documents in order: the entry name, and everything its bytes
    /// depend on besides its body (title, language, stylesheets, writing mode, EPUB version,
    /// whether it continues a chapter split for size) as text. A build cache keeps the latter
    /// to know that a chapter it copies from a previous EPUB would be packaged the same today.
    pub chapters: Vec<Vec<(String, String)>>,
}

/// A fingerprint of everything [`frame`] and the chapter documents' names and shells depend
/// on: the book without its chapter bodies and its `modified` date, and the look. Equal keys
/// mean an identical frame but for the package document, the one entry showing `modified`
/// (see [`package_document`]), so a rebuild can take the last frame instead of rendering it.
pub fn frame_key(book: &Book, look: &Look) -> String {
    use std::io::Write as _;
    let Book {
        info,
        modified: _,
        cover,
        contents,
        images,
    } = book;
    let Look {
        style,
        layout,
        version,
        user_css,
        fonts,
        css_fonts,
        code,
        target,
    } = look;
    let mut h = blake3::Hasher::new();
    // Debug shows every field of these small settings, including any added later.
    let _ = write!(
        h,
        "{}\n{info:?}\n{style:?}\n{layout:?}\n{version:?}\n{code:?}\n{target:?}\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut bytes = |tag: &str, data: &[u8]| {
        h.update(tag.as_bytes());
        h.update(&(data.len() as u64).to_le_bytes());
        h.update(data);
    };
    for (i, image) in cover.iter().chain(images).enumerate() {
        let Image {
            name,
            media_type,
            data,
            width,
            height,
        } = image;
        let tag = if i == 0 && cover.is_some() {
            "cover"
        } else {
            "image"
        };
        bytes(
            tag,
            format!("{name}\n{media_type}\n{width}x{height}").as_bytes(),
        );
        bytes("data", data);
    }
    for Asset { name, data } in user_css {
        bytes("css", name.as_bytes());
        bytes("data", data);
    }
    for Asset { name, data } in css_fonts {
        bytes("css-font", name.as_bytes());
        bytes("data", data);
    }
    for font in fonts {
        let SubsetFont {
            bytes: data,
            format,
            family,
            weight,
            italic,
            glyphs,
            missing,
        } = font;
        bytes(
            "font",
            format!("{format:?} {family} {weight} {italic} {glyphs} {missing:?}").as_bytes(),
        );
        bytes("data", data);
    }
    let mut stack = vec![contents.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            // Anchors, like bodies, show in chapter documents only.
            Some(Node::Chapter(Chapter {
                title,
                body: _,
                pieces,
                anchors: _,
                level,
                features,
                sections,
                types,
                linear,
                in_toc,
                heading,
                sections_given: _,
                title_types: _,
            })) => {
                bytes("linear", &[u8::from(*linear)]);
                bytes("page", &[u8::from(*in_toc), u8::from(*heading)]);
                bytes("chapter", title.as_bytes());
                // They type the chapter's section and move the landmarks.
                bytes("types", types.join(" ").as_bytes());
                bytes("sections", format!("{sections:?}").as_bytes());
                bytes("pieces", &pieces.to_le_bytes());
                bytes("level", &level.to_le_bytes());
                bytes("features", format!("{features:?}").as_bytes());
            }
            Some(Node::Part(Part {
                title,
                intro,
                children,
            })) => {
                bytes("part", title.as_bytes());
                bytes("intro", intro.as_bytes());
                stack.push(children.iter());
            }
            None => {
                stack.pop();
                bytes("end", &[]);
            }
        }
    }
    h.finalize().to_hex()[..32].to_string()
}

/// The package document's entry name.
pub const PACKAGE_DOCUMENT: &str = "EPUB/package.opf";

fn render_package_document(book: &Book, look: &Look, docs: &[Doc<'_>]) -> String {
    if look.epub2() {
        epub2::package_document(book, look, docs)
    } else {
        opf::package_document(book, look, docs)
    }
}

/// The package document alone, as [`frame`] renders it: the one entry of the frame that shows
/// `book.modified`.
pub fn package_document(book: &Book, look: &Look) -> Entry {
    Entry {
        name: PACKAGE_DOCUMENT.into(),
        data: render_package_document(book, look, &documents(book, look)).into_bytes(),
        compress: true,
    }
}

/// Lays the book out and renders everything but the chapter documents.
pub fn frame(book: &Book, look: &Look) -> Frame {
    let docs = documents(book, look);
    let sheets = look.stylesheets().join(" ");
    let mut chapters: Vec<Vec<(String, String)>> = Vec::new();
    for doc in &docs {
        let DocKind::Chapter { first, .. } = doc.kind else {
            continue;
        };
        let shell = format!(
            "{}\u{1f}{}\u{1f}{sheets}\u{1f}{:?}\u{1f}{}\u{1f}{first}\u{1f}{}",
            doc.title,
            book.info.language,
            look.version,
            look.vertical(),
            look.target,
        );
        let named = (format!("{ROOT}/{}", doc.href), shell);
        match chapters.last_mut() {
            Some(pieces) if !first => pieces.push(named),
            _ => chapters.push(vec![named]),
        }
    }
    Frame {
        entries: package_entries(book, look, &docs, false),
        chapters,
    }
}

fn package_entries(book: &Book, look: &Look, docs: &[Doc<'_>], chapters: bool) -> Vec<Entry> {
    let css = style::stylesheet(&book.info.language, look);
    let entry = |name: String, data: Vec<u8>, compress: bool| Entry {
        name,
        data,
        compress,
    };
    let mut entries = vec![
        entry("mimetype".into(), b"application/epub+zip".to_vec(), false),
        entry(
            "META-INF/container.xml".into(),
            container_xml().into_bytes(),
            true,
        ),
    ];
    // The package document, the navigation and the NCX each list every document: for a book
    // of thousands of chapters they are worth writing side by side.
    let ((opf, nav), ncx) = rayon::join(
        || {
            if look.epub2() {
                (render_package_document(book, look, docs), None)
            } else {
                rayon::join(
                    || render_package_document(book, look, docs),
                    || Some(docs::nav_document(book, look, docs)),
                )
            }
        },
        || nav::ncx(book, look, docs),
    );
    entries.push(entry(PACKAGE_DOCUMENT.into(), opf.into_bytes(), true));
    if let Some(nav) = nav {
        entries.push(entry(format!("{ROOT}/nav.xhtml"), nav.into_bytes(), true));
    }
    entries.push(entry(format!("{ROOT}/toc.ncx"), ncx.into_bytes(), true));
    entries.push(entry(
        format!("{ROOT}/styles/book.css"),
        css.into_bytes(),
        true,
    ));
    for asset in &look.user_css {
        entries.push(entry(
            format!("{ROOT}/styles/{}", asset.name),
            asset.data.clone(),
            true,
        ));
    }
    if let Some(cover) = &book.cover {
        entries.push(entry(
            format!("{ROOT}/text/cover.xhtml"),
            docs::cover_page(book, look, cover).into_bytes(),
            true,
        ));
    }
    {
        use rayon::prelude::*;
        let all = all_chapters(book);
        let rendered: Vec<Entry> = docs
            .par_iter()
            .map(|doc| {
                let data = match doc.kind {
                    DocKind::Chapter { .. } if !chapters => Vec::new(),
                    _ => docs::render(book, look, doc, docs, &all).into_bytes(),
                };
                entry(format!("{ROOT}/{}", doc.href), data, true)
            })
            .collect();
        entries.extend(rendered);
    }
    for image in book.cover.iter().chain(&book.images) {
        entries.push(entry(
            format!("{ROOT}/images/{}", image.name),
            image.data.clone(),
            image.media_type == "image/svg+xml",
        ));
    }
    for (i, font) in look.fonts.iter().enumerate() {
        if let Some(name) = look.font_name(i) {
            entries.push(entry(
                format!("{ROOT}/fonts/{name}"),
                font.bytes.clone(),
                true,
            ));
        }
    }
    for font in &look.css_fonts {
        // WOFF and WOFF 2 are compressed already.
        let deflate = font.name.ends_with(".ttf") || font.name.ends_with(".otf");
        entries.push(entry(
            format!("{ROOT}/fonts/{}", font.name),
            font.data.clone(),
            deflate,
        ));
    }
    entries
}

/// The documents of chapters `wanted` (0-based, in reading order), every piece of a chapter
/// split for size, exactly as [`package_with`] writes them (rendered in parallel): name in the
/// container and XHTML, grouped by chapter. The write stage finishes the text for each target
/// ([`crate::stores`]) before it becomes an entry.
///
/// Only chapter documents depend on chapter bodies: the package document, the navigation and
/// the generated pages depend on titles, file names and each chapter's count of pieces. So a
/// writer that streams a big book can package its [`frame`] (bodies set aside) once, then
/// just the chapters of each chunk.
pub(crate) fn chapter_texts(
    book: &Book,
    look: &Look,
    wanted: &[usize],
) -> Vec<Vec<(String, String)>> {
    use rayon::prelude::*;
    let chapters = all_chapters(book);
    let limit = split_limit(&look.layout);
    wanted
        .par_iter()
        .filter_map(|&k| Some((k, *chapters.get(k)?)))
        .map(|(k, chapter)| {
            let bodies = pieces::split_body(&chapter.body, limit);
            debug_assert_eq!(bodies.len(), chapter.pieces, "{}", chapter.title);
            bodies
                .into_iter()
                .enumerate()
                .map(|(i, body)| {
                    let doc = chapter_doc(chapter, k + 1, i, body, 1);
                    // A chapter document shows only the others' file names and anchors: no
                    // need to lay them all out.
                    let text = docs::render(book, look, &doc, &[], &chapters);
                    (format!("{ROOT}/{}", doc.href), text)
                })
                .collect()
        })
        .collect()
}

/// [`chapter_texts`] as entries, in order.
#[cfg(test)]
fn chapter_documents(book: &Book, look: &Look, wanted: &[usize]) -> Vec<Entry> {
    chapter_texts(book, look, wanted)
        .into_iter()
        .flatten()
        .map(|(name, text)| Entry {
            name,
            data: text.into_bytes(),
            compress: true,
        })
        .collect()
}

/// The book's chapters, depth-first: the order of [`documents`].
fn all_chapters(book: &Book) -> Vec<&Chapter> {
    fn collect<'a>(nodes: &'a [Node], out: &mut Vec<&'a Chapter>) {
        for node in nodes {
            match node {
                Node::Chapter(c) => out.push(c),
                Node::Part(p) => collect(&p.children, out),
            }
        }
    }
    let mut chapters = Vec::new();
    collect(&book.contents, &mut chapters);
    chapters
}

/// The code the chapters of `book` show, all together.
pub fn code_use(book: &Book) -> CodeUse {
    let mut all = CodeUse::default();
    let mut stack = vec![book.contents.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(Node::Chapter(c)) => {
                for f in &c.features {
                    all = all.union(f.code);
                }
            }
            Some(Node::Part(p)) => stack.push(p.children.iter()),
            None => {
                stack.pop();
            }
        }
    }
    all
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::chapters_mut;

    fn book(bodies: &[&str]) -> Book {
        book_with(bodies, &Layout::default())
    }

    fn book_with(bodies: &[&str], layout: &Layout) -> Book {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "甲").unwrap();
        let project = crate::project::Project::from_str(
            "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n[[chapters]]\nfile = \"a.txt\"\n",
            dir.path(),
            &dir.path().join("metadata.toml"),
        )
        .unwrap();
        Book {
            info: project.book,
            modified: "2024-01-01T00:00:00Z".into(),
            cover: None,
            contents: bodies
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    Node::Chapter(Chapter::new(
                        format!("第{}章", i + 1),
                        b.to_string(),
                        layout,
                    ))
                })
                .collect(),
            images: Vec::new(),
        }
    }

    #[test]
    fn front_and_back_matter_of_the_source_move_the_landmarks_and_type_the_section() {
        let mut b = book(&["<p>a</p>", "<p>b</p>", "<p>c</p>"]);
        let types = [
            vec!["frontmatter"],
            vec!["bodymatter", "z3998:fiction"],
            vec!["backmatter"],
        ];
        for (node, t) in b.contents.iter_mut().zip(types) {
            if let Node::Chapter(c) = node {
                c.types = t.iter().map(|s| s.to_string()).collect();
            }
        }
        let entries = package_with(&b, &Look::default());
        let text = |name: &str| {
            let e = entries.iter().find(|e| e.name.ends_with(name)).unwrap();
            String::from_utf8(e.data.clone()).unwrap()
        };
        let nav = text("nav.xhtml");
        for landmark in [
            "<a epub:type=\"frontmatter\" href=\"text/chapter-0001.xhtml\">",
            "<a epub:type=\"bodymatter\" href=\"text/chapter-0002.xhtml\">",
            "<a epub:type=\"backmatter\" href=\"text/chapter-0003.xhtml\">",
        ] {
            assert!(nav.contains(landmark), "{landmark} in {nav}");
        }
        assert!(
            text("chapter-0001.xhtml")
                .contains("<section epub:type=\"frontmatter\" aria-labelledby")
        );
        let body = text("chapter-0002.xhtml");
        assert!(
            body.contains(
                "<section epub:type=\"chapter bodymatter z3998:fiction\" role=\"doc-chapter\""
            ),
            "{body}"
        );
        assert!(body.contains("epub:prefix=\"z3998: "), "{body}");
        if let Some(Node::Chapter(c)) = b.contents.get_mut(2) {
            c.linear = false;
        }
        let epub2 = Look {
            version: EpubVersion::V2,
            ..Look::default()
        };
        for look in [Look::default(), epub2] {
            let entries = package_with(&b, &look);
            let opf = entries.iter().find(|e| e.name.ends_with(".opf")).unwrap();
            let opf = String::from_utf8(opf.data.clone()).unwrap();
            assert!(
                opf.contains("<itemref idref=\"chapter-0003\" linear=\"no\"/>"),
                "{opf}"
            );
            assert!(opf.contains("<itemref idref=\"chapter-0002\"/>"), "{opf}");
        }
    }

    #[test]
    fn chapter_levels_nest_the_contents_one_step_at_a_time() {
        let mut b = book(&["", "", "", "", "", ""]);
        let levels = [2, 2, 4, 3, 1, 2];
        for (node, level) in b.contents.iter_mut().zip(levels) {
            if let Node::Chapter(c) = node {
                c.level = level;
            }
        }
        let part = Part {
            title: "卷".into(),
            intro: String::new(),
            children: vec![Node::Chapter(
                Chapter::new("甲".into(), String::new(), &Layout::default()).at_level(2),
            )],
        };
        b.contents.insert(5, Node::Part(part));
        let look = Look::default();
        let depths: Vec<(String, usize)> = documents(&b, &look)
            .iter()
            .filter(|d| d.in_toc)
            .map(|d| (d.title.clone(), d.depth))
            .collect();
        let want = [
            ("第1章", 1),
            ("第2章", 1),
            ("第3章", 2),
            ("第4章", 2),
            ("第5章", 1),
            ("卷", 1),
            ("甲", 2),
            ("第6章", 1),
        ];
        let want: Vec<(String, usize)> = want.iter().map(|(t, d)| (t.to_string(), *d)).collect();
        assert_eq!(depths, want);
        let entries = package_with(&b, &look);
        let ncx = entries
            .iter()
            .find(|e| e.name.ends_with("toc.ncx"))
            .unwrap();
        let ncx = String::from_utf8(ncx.data.clone()).unwrap();
        assert!(
            ncx.contains("<meta name=\"dtb:depth\" content=\"2\"/>"),
            "{ncx}"
        );
        let nav = entries
            .iter()
            .find(|e| e.name.ends_with("nav.xhtml"))
            .unwrap();
        let opts = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        let nav = std::str::from_utf8(&nav.data).unwrap();
        let doc = roxmltree::Document::parse_with_options(nav, opts).unwrap();
        // Every list is an item's child: no `<ol>` directly inside an `<ol>`.
        for ol in doc.descendants().filter(|n| n.has_tag_name("ol")) {
            let parent = ol.parent_element().unwrap();
            assert!(!parent.has_tag_name("ol"), "{nav}");
        }
    }

    #[test]
    fn kindle_contents_are_two_levels_deep() {
        let mut b = book(&["", "", "", ""]);
        for (node, level) in b.contents.iter_mut().zip([1, 2, 3, 4]) {
            if let Node::Chapter(c) = node {
                c.level = level;
            }
        }
        let depth = |target| {
            let look = Look {
                target,
                ..Look::default()
            };
            documents(&b, &look).iter().map(|d| d.depth).max()
        };
        assert_eq!(depth(Target::Epub), Some(4));
        assert_eq!(depth(Target::Kindle), Some(2));
        let look = Look {
            target: Target::Kindle,
            ..Look::default()
        };
        let ncx = package_with(&b, &look)
            .into_iter()
            .find(|e| e.name.ends_with("toc.ncx"))
            .unwrap();
        let ncx = String::from_utf8(ncx.data).unwrap();
        assert!(
            ncx.contains("<meta name=\"dtb:depth\" content=\"2\"/>"),
            "{ncx}"
        );
    }

    #[test]
    fn only_chapter_documents_depend_on_bodies() {
        let look = Look::default();
        let empty = package_with(&book(&["", "", ""]), &look);
        let full_book = book(&["<p>甲</p>\n", "<p>乙</p>\n", "<p>丙</p>\n"]);
        let full = package_with(&full_book, &look);
        assert_eq!(empty.len(), full.len());
        let differ: Vec<&str> = empty
            .iter()
            .zip(&full)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| a.name.as_str())
            .collect();
        assert_eq!(
            differ,
            [
                "EPUB/text/chapter-0001.xhtml",
                "EPUB/text/chapter-0002.xhtml",
                "EPUB/text/chapter-0003.xhtml"
            ]
        );

        // ... and chapter_documents renders those exactly as package_with does.
        let docs = chapter_documents(&full_book, &look, &[0, 2]);
        let expected: Vec<Entry> = full
            .iter()
            .filter(|e| e.name.ends_with("-0001.xhtml") || e.name.ends_with("-0003.xhtml"))
            .cloned()
            .collect();
        assert_eq!(docs, expected);

        // A chapter split for size makes several documents, known before it is packaged:
        // the frame, with every body set aside, has them all.
        let mut small = Look::default();
        small.layout.split_size = 2048;
        let long = "<p>长段落。</p>\n".repeat(400);
        let split_book = book_with(&["<p>甲</p>\n", &long], &small.layout);
        let all = package_with(&split_book, &small);
        assert!(all.len() > package_with(&book(&["<p>甲</p>\n", &long]), &look).len());
        let pieces: Vec<Entry> = all
            .iter()
            .filter(|e| e.name.contains("chapter-0002"))
            .cloned()
            .collect();
        assert!(pieces.len() > 2, "{}", pieces.len());
        assert_eq!(chapter_documents(&split_book, &small, &[1]), pieces);
        let mut set_aside = split_book.clone();
        for c in chapters_mut(&mut set_aside.contents) {
            c.body.clear();
        }
        let names = |entries: &[Entry]| entries.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&frame(&set_aside, &small).entries), names(&all));
    }

    #[test]
    fn the_frame_key_follows_everything_but_chapter_bodies() {
        let look = Look::default();
        let base = book(&["<p>甲</p>\n", "<p>乙</p>\n"]);
        let key = frame_key(&base, &look);
        // Bodies are not part of the frame...
        assert_eq!(key, frame_key(&book(&["<p>改</p>\n", ""]), &look));
        // ...and that is sound: the frame rendered without them is the same.
        let frame_of = |b: &Book, l: &Look| {
            let mut b = b.clone();
            for node in &mut b.contents {
                if let Node::Chapter(c) = node {
                    c.body.clear();
                }
            }
            frame(&b, l).entries
        };
        assert_eq!(
            frame_of(&base, &look),
            frame_of(&book(&["<p>改</p>\n", ""]), &look),
            "the frame does not depend on bodies"
        );
        // Everything else that the frame shows changes the key.
        let mut changes: Vec<(&str, Book, Look)> = Vec::new();
        let mut b = base.clone();
        if let Node::Chapter(c) = &mut b.contents[1] {
            c.title = "第二章 新".into();
        }
        changes.push(("a title", b, look.clone()));
        let mut b = base.clone();
        b.contents.push(Node::Chapter(Chapter::new(
            "第3章".into(),
            String::new(),
            &look.layout,
        )));
        changes.push(("a chapter more", b, look.clone()));
        let mut b = base.clone();
        let first = b.contents.remove(0);
        b.contents.insert(
            0,
            Node::Part(Part {
                title: "第一卷".into(),
                intro: String::new(),
                children: vec![first],
            }),
        );
        changes.push(("a part", b, look.clone()));
        let mut b = base.clone();
        b.info.description = Some("简介".into());
        changes.push(("the description", b, look.clone()));
        // The modified date shows in the package document alone, which is rendered apart.
        let mut b = base.clone();
        b.modified = "2025-01-01T00:00:00Z".into();
        assert_eq!(frame_key(&b, &look), key);
        let (before, after) = (frame_of(&base, &look), frame_of(&b, &look));
        let differ: Vec<&str> = before
            .iter()
            .zip(&after)
            .filter(|(x, y)| x != y)
            .map(|(x, _)| x.name.as_str())
            .collect();
        assert_eq!(differ, [PACKAGE_DOCUMENT]);
        assert!(after.contains(&package_document(&b, &look)));
        let mut v2 = look.clone();
        v2.version = EpubVersion::V2;
        assert!(frame_of(&b, &v2).contains(&package_document(&b, &v2)));
        let mut b = base.clone();
        b.cover = Some(Image {
            name: "cover.png".into(),
            media_type: "image/png",
            data: vec![1, 2, 3],
            width: 1,
            height: 1,
        });
        changes.push(("a cover", b.clone(), look.clone()));
        if let Some(cover) = &mut b.cover {
            cover.data[0] = 9;
        }
        changes.push(("the cover's bytes", b, look.clone()));
        let mut l = look.clone();
        l.layout.writing_mode = WritingMode::VerticalRl;
        changes.push(("the writing mode", base.clone(), l));
        let mut l = look.clone();
        l.user_css.push(Asset {
            name: "a.css".into(),
            data: b"p{}".to_vec(),
        });
        changes.push(("a stylesheet", base.clone(), l));
        let mut keys = vec![key.clone()];
        for (what, b, l) in &changes {
            let changed = frame_key(b, l);
            assert_ne!(changed, key, "{what}");
            assert_ne!(
                frame_of(b, l),
                frame_of(&base, &look),
                "{what} shows in the frame"
            );
            keys.push(changed);
        }
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), changes.len() + 1);
    }

    #[test]
    fn text_chars_skip_markup_and_decode_entities() {
        let mut chars = BTreeSet::new();
        collect_text_chars(
            "<p class=\"zz\">甲&amp;&#x4E59;<b>丙</b>&#19969;\n</p>",
            &mut chars,
        );
        assert_eq!(chars.into_iter().collect::<String>(), "&丁丙乙甲");
    }
}
