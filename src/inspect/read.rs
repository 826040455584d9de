//! Open any EPUB (2 or 3, ours or another tool's) and parse it into an [`Epub`]: metadata,
//! manifest, spine, nested table of contents and the zip entries ([`super::report`] puts it
//! in words).
//!
//! Used by `epubforge inspect`-style reporting and by the integration tests to look inside the
//! books the pipeline wrote. Reading stops at the first thing that makes the book unreadable
//! (no rootfile, malformed OPF); [`super::verify`] is the place that lists every problem.

use std::collections::HashMap;
#[cfg(test)]
use std::io::Cursor;
use std::io::{BufReader, Read, Seek};
use std::path::Path;

use roxmltree::{Document, Node};

use super::container::{Container, EntryInfo};
use super::href::{self, Resolved};
use super::xml::{self, attr, attr_ns, is, text_of};
use super::{InspectError, MAX_TOC_DEPTH, MAX_XML_ENTRY_BYTES, READ_BUFFER};

pub(crate) const NS_DC: &str = "http://purl.org/dc/elements/1.1/";
pub(crate) const NS_OPF: &str = "http://www.idpf.org/2007/opf";
pub(crate) const NS_OPS: &str = "http://www.idpf.org/2007/ops";
pub(crate) const CONTAINER_XML: &str = "META-INF/container.xml";
pub(crate) const NCX_MEDIA_TYPE: &str = "application/x-dtbncx+xml";

/// A parsed EPUB.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Epub {
    /// `package@version`, e.g. `3.0` or `2.0`.
    pub version: String,
    /// Entry name of the package document.
    pub opf_path: String,
    /// Package metadata.
    pub metadata: EpubMetadata,
    /// Manifest items in document order.
    pub manifest: Vec<ManifestItem>,
    /// Spine items in reading order.
    pub spine: Vec<SpineItem>,
    /// Nested table of contents, from the nav document or the NCX.
    pub toc: Vec<TocEntry>,
    /// Where [`Epub::toc`] came from.
    pub toc_source: TocSource,
    /// Every zip entry, in central-directory order.
    pub entries: Vec<EntryInfo>,
    /// Things met while reading that did not stop it (TOC cut at depth, nav fallback, ...).
    pub notes: Vec<String>,
    /// What the package document says that the fields above leave out ([`PackageExtra`]).
    pub(crate) extra: PackageExtra,
}

/// Package metadata (Dublin Core plus the EPUB 3 and calibre extras we report).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EpubMetadata {
    /// Every `dc:title`.
    pub titles: Vec<String>,
    /// Every `dc:creator`.
    pub creators: Vec<Creator>,
    /// Every `dc:language`.
    pub languages: Vec<String>,
    /// Every `dc:identifier`.
    pub identifiers: Vec<String>,
    /// The `dc:identifier` named by `package@unique-identifier`.
    pub unique_identifier: Option<String>,
    /// First `dc:publisher`.
    pub publisher: Option<String>,
    /// First `dc:date`.
    pub date: Option<String>,
    /// `meta property="dcterms:modified"`.
    pub modified: Option<String>,
    /// First `dc:description`.
    pub description: Option<String>,
    /// Every `dc:subject`.
    pub subjects: Vec<String>,
    /// First `dc:rights`.
    pub rights: Option<String>,
    /// Series name and position (EPUB 3 collection or calibre meta).
    pub series: Option<(String, Option<String>)>,
    /// Resolved entry name of the cover image.
    pub cover_href: Option<String>,
}

/// A `dc:creator`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Creator {
    /// Display name.
    pub name: String,
    /// MARC relator (`aut`, `edt`, ...), from `opf:role` or a refining `role` meta.
    pub role: Option<String>,
    /// Sort name, from `opf:file-as` or a refining `file-as` meta.
    pub file_as: Option<String>,
}

/// A manifest `item`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ManifestItem {
    /// `item@id`.
    pub id: String,
    /// The href resolved to an entry name (external URLs kept as written).
    pub href: String,
    /// `item@media-type`.
    pub media_type: String,
    /// `item@properties`, split on whitespace.
    pub properties: Vec<String>,
    /// `item@fallback`: the id of the item to use where this one's format is not supported.
    pub fallback: Option<String>,
}

/// A spine `itemref`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpineItem {
    /// `itemref@idref`.
    pub idref: String,
    /// The manifest item's resolved href, if the idref names one.
    pub href: Option<String>,
    /// False for `linear="no"`.
    pub linear: bool,
}

/// One table-of-contents entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TocEntry {
    /// Label text, whitespace collapsed.
    pub title: String,
    /// Resolved target, `entry#fragment`; empty for a heading without a link.
    pub href: String,
    /// Nested entries.
    pub children: Vec<TocEntry>,
}

impl Epub {
    /// A reading order for a package whose spine lists nothing (ebooklib writes one when a
    /// downloader never sets it): the manifest's XHTML documents in manifest order, the order
    /// they were added in, the navigation document left out. Empty when the spine lists
    /// something: nobody's order is replaced.
    pub fn reading_order_from_manifest(&self) -> Vec<SpineItem> {
        if !self.spine.is_empty() {
            return Vec::new();
        }
        let document = |m: &&ManifestItem| {
            matches!(m.media_type.as_str(), "application/xhtml+xml" | "text/html")
                && !m.properties.iter().any(|p| p == "nav")
        };
        self.manifest
            .iter()
            .filter(document)
            .map(|m| SpineItem {
                idref: m.id.clone(),
                href: Some(m.href.clone()),
                linear: true,
            })
            .collect()
    }
}

/// Where the table of contents was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TocSource {
    /// The EPUB 3 navigation document's `toc` nav.
    Nav,
    /// The NCX (EPUB 2, or EPUB 3 without a usable nav).
    Ncx,
    /// Neither gave any entries.
    None,
}

/// Open and parse the EPUB at `path`.
///
/// ```no_run
/// let epub = epubforge::inspect::open(std::path::Path::new("book.epub"))?;
/// println!("EPUB {}: {:?}", epub.version, epub.metadata.titles);
/// println!("{} documents in the spine, {} TOC entries", epub.spine.len(), epub.toc.len());
/// # Ok::<(), epubforge::inspect::InspectError>(())
/// ```
pub fn open(path: &Path) -> Result<Epub, InspectError> {
    let file = std::fs::File::open(path).map_err(|source| InspectError::Io {
        path: path.display().to_string(),
        source,
    })?;
    read_container(Container::new(BufReader::with_capacity(READ_BUFFER, file))?)
}

/// Parse an EPUB held in memory.
#[cfg(test)]
pub(crate) fn open_bytes(bytes: &[u8]) -> Result<Epub, InspectError> {
    read_from(Cursor::new(bytes))
}

/// Parse an EPUB from any seekable reader.
#[cfg(test)]
pub(crate) fn read_from<R: Read + Seek>(reader: R) -> Result<Epub, InspectError> {
    read_container(Container::new(reader)?)
}

/// Parse the EPUB in `container` (an [`Archive`](super::archive::Archive)'s package is
/// parsed so once, by [`Archive::package`](super::archive::Archive::package)).
pub(crate) fn read_container<R: Read + Seek>(
    mut container: Container<R>,
) -> Result<Epub, InspectError> {
    let opf_path = rootfile_path(&mut container)?;
    // The package document's tree goes before the navigation document's is built: for a
    // book of 100 000 items each is tens of megabytes.
    let package = {
        let opf_text = read_text(&mut container, &opf_path)?;
        let opf_doc = xml::parse(&opf_path, &opf_text)?;
        parse_package(&opf_path, &opf_doc)?
    };
    Ok(epub_of(container, opf_path, package))
}

/// The EPUB in `container` whose package document, the entry `opf_path`, says `package`
/// ([`parse_package`]): what [`read_container`] makes of it (its TOC read here), for a reader
/// that parsed the package document itself (`verify`'s package rules, run ahead for `fix`).
pub(crate) fn epub_of<R: Read + Seek>(
    mut container: Container<R>,
    opf_path: String,
    package: Package,
) -> Epub {
    let mut notes = Vec::new();
    let (toc, toc_source) = read_toc(&mut container, &package, &mut notes);
    Epub {
        version: package.version,
        opf_path,
        metadata: package.metadata,
        manifest: package.manifest,
        spine: package.spine,
        toc,
        toc_source,
        entries: container.entries.to_vec(),
        notes,
        extra: package.extra,
    }
}

/// Read an XML entry as text, with the size cap.
pub(crate) fn read_text<R: Read + Seek>(
    container: &mut Container<R>,
    name: &str,
) -> Result<String, InspectError> {
    let entry = container.read_entry(name, MAX_XML_ENTRY_BYTES)?;
    xml::decode_entry(name, entry)
}

/// The package document's entry name, from `META-INF/container.xml`.
pub(crate) fn rootfile_path<R: Read + Seek>(
    container: &mut Container<R>,
) -> Result<String, InspectError> {
    let text = read_text(container, CONTAINER_XML)?;
    let doc = xml::parse(CONTAINER_XML, &text)?;
    let rootfiles: Vec<Node> = doc.descendants().filter(|n| is(*n, "rootfile")).collect();
    let chosen = rootfiles
        .iter()
        .find(|n| attr(**n, "media-type") == Some("application/oebps-package+xml"))
        .or(rootfiles.first())
        .and_then(|n| attr(*n, "full-path"));
    match chosen {
        Some(p) if !p.trim().is_empty() => Ok(p.trim().to_string()),
        _ => Err(InspectError::Structure {
            entry: CONTAINER_XML.to_string(),
            message: "no rootfile with a full-path".to_string(),
        }),
    }
}

/// What the package document says, before any other entry is read.
#[derive(Debug, Clone)]
pub(crate) struct Package {
    /// Its own entry name.
    pub opf_path: String,
    pub version: String,
    pub metadata: EpubMetadata,
    pub manifest: Vec<ManifestItem>,
    pub spine: Vec<SpineItem>,
    /// `spine@toc`: the NCX's manifest id.
    pub spine_toc: Option<String>,
    /// What [`Epub`]'s other fields leave out ([`PackageExtra`]).
    pub extra: PackageExtra,
    /// Manifest id -> index of its first item: a spine of 100 000 itemrefs must not search
    /// the manifest once per itemref.
    ids: HashMap<String, usize>,
}

impl Package {
    pub(crate) fn item(&self, id: &str) -> Option<&ManifestItem> {
        self.ids.get(id).and_then(|&i| self.manifest.get(i))
    }

    pub(crate) fn nav_item(&self) -> Option<&ManifestItem> {
        self.manifest
            .iter()
            .find(|m| m.properties.iter().any(|p| p == "nav"))
    }

    pub(crate) fn ncx_item(&self) -> Option<&ManifestItem> {
        self.spine_toc
            .as_deref()
            .and_then(|id| self.item(id))
            .or_else(|| {
                self.manifest
                    .iter()
                    .find(|m| m.media_type == NCX_MEDIA_TYPE)
            })
    }

    pub(crate) fn is_epub3(&self) -> bool {
        self.version.trim().starts_with('3')
    }
}

/// Parse the package document.
pub(crate) fn parse_package(opf_path: &str, doc: &Document) -> Result<Package, InspectError> {
    let root = doc.root_element();
    if !is(root, "package") {
        return Err(InspectError::Structure {
            entry: opf_path.to_string(),
            message: format!(
                "root element is <{}>, not <package>",
                root.tag_name().name()
            ),
        });
    }
    let version = attr(root, "version").unwrap_or_default().trim().to_string();
    let child = |name: &str| root.children().find(|n| is(*n, name));

    let mut manifest = Vec::new();
    if let Some(m) = child("manifest") {
        for item in m.children().filter(|n| is(*n, "item")) {
            let raw = attr(item, "href").unwrap_or_default();
            manifest.push(ManifestItem {
                id: attr(item, "id").unwrap_or_default().to_string(),
                href: resolve_href(opf_path, raw),
                media_type: attr(item, "media-type").unwrap_or_default().to_string(),
                properties: split_tokens(attr(item, "properties")),
                fallback: attr(item, "fallback").map(|f| f.trim().to_string()),
            });
        }
    }

    let mut ids = HashMap::with_capacity(manifest.len());
    for (i, item) in manifest.iter().enumerate() {
        ids.entry(item.id.clone()).or_insert(i);
    }
    let mut spine = Vec::new();
    let mut spine_toc = None;
    if let Some(s) = child("spine") {
        spine_toc = attr(s, "toc").map(str::to_string);
        for itemref in s.children().filter(|n| is(*n, "itemref")) {
            let idref = attr(itemref, "idref").unwrap_or_default().to_string();
            let href = ids
                .get(&idref)
                .and_then(|&i| manifest.get(i))
                .map(|m| m.href.clone());
            spine.push(SpineItem {
                idref,
                href,
                linear: attr(itemref, "linear").map(str::trim) != Some("no"),
            });
        }
    }

    let metadata = match child("metadata") {
        Some(m) => parse_metadata(root, m, &manifest, &ids),
        None => EpubMetadata::default(),
    };
    Ok(Package {
        opf_path: opf_path.to_string(),
        version,
        metadata,
        manifest,
        spine,
        spine_toc,
        ids,
        extra: package_extra(opf_path, doc),
    })
}

/// What the package document says of the book that [`EpubMetadata`] leaves out and `init`
/// keeps (its `metadata.toml`): read with the rest of the package ([`parse_package`]), from
/// the same tree, so that the package document is not parsed again for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PackageExtra {
    /// The first title typed `subtitle` (an EPUB 3 refinement).
    pub subtitle: Option<String>,
    /// Titles beyond the first (and the subtitle).
    pub other_titles: Vec<String>,
    /// `dc:contributor`s, with their roles and sort names (attributes or refinements).
    pub contributors: Vec<Creator>,
    /// The spine's `page-progression-direction`.
    pub direction: Option<String>,
    /// `<meta name="primary-writing-mode">`.
    pub writing_mode: Option<String>,
    /// Dublin Core elements `metadata.toml` has no key for (`dc:source "…"`), with where
    /// they are (`entry:line:col`).
    pub unkept: Vec<(String, String)>,
}

/// The [`PackageExtra`] of the package document `doc` (the entry `opf_path`).
fn package_extra(opf_path: &str, doc: &Document) -> PackageExtra {
    let mut locator = xml::Locator::new(opf_path, doc);
    let mut extra = PackageExtra::default();
    let refines = |id: Option<&str>, property: &str| -> Option<String> {
        let id = id?;
        doc.descendants()
            .filter(|n| is(*n, "meta") && attr(*n, "property") == Some(property))
            .find(|n| attr(*n, "refines").map(|r| r.trim_start_matches('#')) == Some(id))
            .map(text_of)
    };
    let mut first_title = true;
    for n in doc.descendants().filter(|n| n.is_element()) {
        if n.tag_name().namespace() == Some(NS_DC) {
            let value = text_of(n);
            match n.tag_name().name() {
                "title" => {
                    let subtitle =
                        refines(attr(n, "id"), "title-type").as_deref() == Some("subtitle");
                    if subtitle && extra.subtitle.is_none() {
                        extra.subtitle = Some(value);
                    } else if first_title {
                        first_title = false;
                    } else if !value.is_empty() {
                        extra.other_titles.push(value);
                    }
                }
                "contributor" if !value.is_empty() => extra.contributors.push(Creator {
                    name: value,
                    file_as: attr_ns(n, NS_OPF, "file-as")
                        .map(str::to_string)
                        .or_else(|| refines(attr(n, "id"), "file-as")),
                    role: attr_ns(n, NS_OPF, "role")
                        .map(str::to_string)
                        .or_else(|| refines(attr(n, "id"), "role")),
                }),
                "source" | "type" | "coverage" | "relation" | "format" if !value.is_empty() => {
                    extra.unkept.push((
                        format!("dc:{} \"{value}\"", n.tag_name().name()),
                        locator.at(n).to_string(),
                    ));
                }
                _ => {}
            }
        } else if is(n, "spine") {
            extra.direction = attr(n, "page-progression-direction").map(str::to_string);
        } else if is(n, "meta") && attr(n, "name") == Some("primary-writing-mode") {
            extra.writing_mode = attr(n, "content").map(str::to_string);
        }
    }
    extra
}

fn resolve_href(base: &str, raw: &str) -> String {
    match href::resolve(base, raw) {
        Some(Resolved {
            path,
            fragment: Some(f),
        }) => format!("{path}#{f}"),
        Some(Resolved { path, .. }) => path,
        None => raw.trim().to_string(),
    }
}

fn split_tokens(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The `<metadata>` element with its EPUB 3 refinements indexed, so that every lookup is one
/// step however many creators refer to one id.
struct MetaView<'a, 'input> {
    meta: Node<'a, 'input>,
    metas: Vec<Node<'a, 'input>>,
    /// `<meta refines="#id" property="p">`: the first of each (id, property) pair.
    refines: HashMap<(&'a str, &'a str), Node<'a, 'input>>,
}

impl<'a, 'input> MetaView<'a, 'input> {
    fn new(meta: Node<'a, 'input>) -> Self {
        let metas: Vec<Node> = meta.descendants().filter(|n| is(*n, "meta")).collect();
        let mut refines = HashMap::new();
        for m in &metas {
            if let (Some(target), Some(prop)) = (attr(*m, "refines"), attr(*m, "property")) {
                let id = target.trim().trim_start_matches('#');
                refines.entry((id, prop.trim())).or_insert(*m);
            }
        }
        MetaView {
            meta,
            metas,
            refines,
        }
    }

    /// The Dublin Core elements called `name`.
    fn dc(&self, name: &str) -> Vec<Node<'a, 'input>> {
        self.meta
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().namespace() == Some(NS_DC))
            .filter(|n| n.tag_name().name() == name)
            .collect()
    }

    /// The non-empty texts of the Dublin Core elements called `name`.
    fn texts(&self, name: &str) -> Vec<String> {
        self.dc(name)
            .into_iter()
            .map(text_of)
            .filter(|t| !t.is_empty())
            .collect()
    }

    fn first(&self, name: &str) -> Option<String> {
        self.texts(name).into_iter().next()
    }

    /// The value of the refinement `prop` of `node`.
    fn refined(&self, node: Node, prop: &str) -> Option<String> {
        let id = attr(node, "id")?;
        self.refines.get(&(id, prop)).map(|m| text_of(*m))
    }

    /// The first `<meta property="prop">` that refines nothing.
    fn property(&self, prop: &str) -> Option<Node<'a, 'input>> {
        self.metas
            .iter()
            .find(|m| attr(**m, "refines").is_none() && attr(**m, "property") == Some(prop))
            .copied()
    }

    /// The content of the first EPUB 2 `<meta name="name" content="…">`.
    fn named(&self, name: &str) -> Option<String> {
        self.metas
            .iter()
            .find(|m| attr(**m, "name") == Some(name))
            .and_then(|m| attr(*m, "content"))
            .map(|c| c.trim().to_string())
    }

    fn creators(&self) -> Vec<Creator> {
        self.dc("creator")
            .into_iter()
            .map(|c| Creator {
                name: text_of(c),
                role: attr_ns(c, NS_OPF, "role")
                    .map(str::to_string)
                    .or_else(|| self.refined(c, "role")),
                file_as: attr_ns(c, NS_OPF, "file-as")
                    .map(str::to_string)
                    .or_else(|| self.refined(c, "file-as")),
            })
            .collect()
    }

    /// The series and its index: EPUB 3's collection, or calibre's EPUB 2 metas.
    fn series(&self) -> Option<(String, Option<String>)> {
        match self.property("belongs-to-collection") {
            Some(c) => Some((text_of(c), self.refined(c, "group-position"))),
            None => self
                .named("calibre:series")
                .map(|s| (s, self.named("calibre:series_index"))),
        }
    }
}

fn parse_metadata(
    package: Node,
    meta: Node,
    manifest: &[ManifestItem],
    ids: &HashMap<String, usize>,
) -> EpubMetadata {
    let view = MetaView::new(meta);
    let unique_identifier = attr(package, "unique-identifier").and_then(|uid| {
        view.dc("identifier")
            .into_iter()
            .find(|n| attr(*n, "id") == Some(uid))
            .map(text_of)
    });
    let cover_href = manifest
        .iter()
        .find(|m| m.properties.iter().any(|p| p == "cover-image"))
        .or_else(|| {
            let id = view.named("cover")?;
            ids.get(&id).and_then(|&i| manifest.get(i))
        })
        .map(|m| m.href.clone());

    EpubMetadata {
        titles: view.texts("title"),
        creators: view.creators(),
        languages: view.texts("language"),
        identifiers: view.texts("identifier"),
        unique_identifier,
        publisher: view.first("publisher"),
        date: view.first("date"),
        modified: view.property("dcterms:modified").map(text_of),
        description: view.first("description"),
        subjects: view.texts("subject"),
        rights: view.first("rights"),
        series: view.series(),
        cover_href,
    }
}

fn read_toc<R: Read + Seek>(
    container: &mut Container<R>,
    package: &Package,
    notes: &mut Vec<String>,
) -> (Vec<TocEntry>, TocSource) {
    if package.is_epub3()
        && let Some(nav) = package.nav_item()
    {
        match read_text(container, &nav.href).and_then(|text| {
            xml::parse(&nav.href, &text).map(|doc| nav_toc(&nav.href, &doc, notes))
        }) {
            Ok(toc) if !toc.is_empty() => return (toc, TocSource::Nav),
            Ok(_) => notes.push(format!("{}: no usable toc nav", nav.href)),
            Err(e) => notes.push(format!("nav document unreadable: {e}")),
        }
    }
    if let Some(ncx) = package.ncx_item() {
        match read_text(container, &ncx.href).and_then(|text| {
            xml::parse(&ncx.href, &text).map(|doc| ncx_toc(&ncx.href, &doc, notes))
        }) {
            Ok(toc) if !toc.is_empty() => return (toc, TocSource::Ncx),
            Ok(_) => notes.push(format!("{}: empty navMap", ncx.href)),
            Err(e) => notes.push(format!("NCX unreadable: {e}")),
        }
    }
    (Vec::new(), TocSource::None)
}

/// The `<nav epub:type="toc">` of a navigation document.
pub(crate) fn toc_nav<'a, 'i>(doc: &'a Document<'i>) -> Option<Node<'a, 'i>> {
    doc.descendants().find(|n| {
        is(*n, "nav")
            && attr_ns(*n, NS_OPS, "type").is_some_and(|t| t.split_whitespace().any(|t| t == "toc"))
    })
}

fn nav_toc(nav_path: &str, doc: &Document, notes: &mut Vec<String>) -> Vec<TocEntry> {
    let Some(nav) = toc_nav(doc) else {
        return Vec::new();
    };
    let mut cut = false;
    let toc = match nav.children().find(|n| is(*n, "ol")) {
        Some(ol) => nav_list(nav_path, ol, 1, &mut cut),
        None => Vec::new(),
    };
    if cut {
        notes.push(format!(
            "{nav_path}: table of contents nested deeper than {MAX_TOC_DEPTH} levels; deeper entries dropped"
        ));
    }
    toc
}

fn nav_list(nav_path: &str, ol: Node, depth: usize, cut: &mut bool) -> Vec<TocEntry> {
    let mut out = Vec::new();
    for li in ol.children().filter(|n| is(*n, "li")) {
        let label = li.children().find(|n| is(*n, "a") || is(*n, "span"));
        let title = label
            .map(|l| {
                let t = text_of(l);
                if t.is_empty() {
                    attr(l, "title").unwrap_or_default().trim().to_string()
                } else {
                    t
                }
            })
            .unwrap_or_default();
        let href = label
            .filter(|l| is(*l, "a"))
            .and_then(|a| attr(a, "href"))
            .map(|h| resolve_href(nav_path, h))
            .unwrap_or_default();
        let children = match li.children().find(|n| is(*n, "ol")) {
            Some(_) if depth >= MAX_TOC_DEPTH => {
                *cut = true;
                Vec::new()
            }
            Some(sub) => nav_list(nav_path, sub, depth + 1, cut),
            None => Vec::new(),
        };
        out.push(TocEntry {
            title,
            href,
            children,
        });
    }
    out
}

fn ncx_toc(ncx_path: &str, doc: &Document, notes: &mut Vec<String>) -> Vec<TocEntry> {
    let Some(map) = doc.descendants().find(|n| is(*n, "navMap")) else {
        return Vec::new();
    };
    let mut cut = false;
    let toc = ncx_points(ncx_path, map, 1, &mut cut);
    if cut {
        notes.push(format!(
            "{ncx_path}: navMap nested deeper than {MAX_TOC_DEPTH} levels; deeper entries dropped"
        ));
    }
    toc
}

fn ncx_points(ncx_path: &str, parent: Node, depth: usize, cut: &mut bool) -> Vec<TocEntry> {
    let mut out = Vec::new();
    for point in parent.children().filter(|n| is(*n, "navPoint")) {
        let title = point
            .children()
            .find(|n| is(*n, "navLabel"))
            .and_then(|l| l.children().find(|n| is(*n, "text")))
            .map(text_of)
            .unwrap_or_default();
        let href = point
            .children()
            .find(|n| is(*n, "content"))
            .and_then(|c| attr(c, "src"))
            .map(|s| resolve_href(ncx_path, s))
            .unwrap_or_default();
        let has_children = point.children().any(|n| is(n, "navPoint"));
        let children = if has_children && depth >= MAX_TOC_DEPTH {
            *cut = true;
            Vec::new()
        } else if has_children {
            ncx_points(ncx_path, point, depth + 1, cut)
        } else {
            Vec::new()
        };
        out.push(TocEntry {
            title,
            href,
            children,
        });
    }
    out
}

/// The `content` targets of an NCX in document order, as entry names (`src` resolved from the
/// NCX's entry `ncx_path`): what the stores' facts compare the spine with.
pub(crate) fn ncx_targets(ncx_path: &str, doc: &Document) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("content"))
        .filter_map(|n| href::resolve(ncx_path, n.attribute("src")?))
        .map(|r| r.path)
        .collect()
}

/// An NCX's [`ncx_targets`] with the text they were read from: `verify`'s NCX rules read
/// them (on the walk that summarises the NCX) and keep this in the
/// [`Archive`](super::archive::Archive), where the stores' facts take it instead of parsing
/// the NCX again when the entry they read holds the same text.
#[derive(Debug, Clone)]
pub(crate) struct NcxTargets {
    /// The NCX's entry name.
    pub href: String,
    /// The text parsed.
    pub text: String,
    /// Its targets.
    pub targets: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::TestBook;

    const OPF2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="bookid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:title>Old Book</dc:title>
    <dc:creator opf:role="aut" opf:file-as="Poe, Edgar">Edgar Poe</dc:creator>
    <dc:language>en</dc:language>
    <dc:identifier id="isbn">978-3-16-148410-0</dc:identifier>
    <dc:identifier id="bookid">urn:uuid:12345678-1234-5678-1234-567812345678</dc:identifier>
    <dc:publisher>Pub</dc:publisher>
    <dc:subject>Horror</dc:subject><dc:subject>Poetry</dc:subject>
    <meta name="calibre:series" content="Tales"/>
    <meta name="calibre:series_index" content="1.0"/>
    <meta name="cover" content="cover"/>
  </metadata>
  <manifest>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="c1" href="text/chapter%5F1.xhtml" media-type="application/xhtml+xml"/>
    <item id="cover" href="images/cover.png" media-type="image/png"/>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine toc="ncx"><itemref idref="c1"/></spine>
</package>
"#;

    fn epub2() -> TestBook {
        TestBook::minimal_epub3().edit("EPUB/package.opf", super::super::testutil::OPF, OPF2)
    }

    #[test]
    fn epub3_metadata_comes_from_dc_and_refining_metas() {
        let epub = open_bytes(&TestBook::minimal_epub3().to_zip()).unwrap();
        assert_eq!(epub.version, "3.0");
        assert_eq!(epub.opf_path, "EPUB/package.opf");
        let md = &epub.metadata;
        assert_eq!(md.titles, vec!["Minimal Book"]);
        assert_eq!(
            md.creators,
            vec![Creator {
                name: "Ann Writer".into(),
                role: Some("aut".into()),
                file_as: Some("Writer, Ann".into()),
            }]
        );
        assert_eq!(md.languages, vec!["en"]);
        assert_eq!(
            md.unique_identifier.as_deref(),
            Some("urn:uuid:12345678-1234-5678-1234-567812345678")
        );
        assert_eq!(md.modified.as_deref(), Some("2024-01-02T03:04:05Z"));
        assert_eq!(md.series, Some(("The Series".into(), Some("3".into()))));
        assert_eq!(md.cover_href.as_deref(), Some("EPUB/images/cover.png"));
    }

    #[test]
    fn manifest_hrefs_are_decoded_and_resolved_from_the_opf_folder() {
        let epub = open_bytes(&TestBook::minimal_epub3().to_zip()).unwrap();
        let c1 = epub.manifest.iter().find(|m| m.id == "c1").unwrap();
        assert_eq!(c1.href, "EPUB/text/chapter_1.xhtml");
        assert_eq!(epub.spine.len(), 2);
        assert_eq!(
            epub.spine[0].href.as_deref(),
            Some("EPUB/text/chapter_1.xhtml")
        );
        assert!(epub.spine[0].linear);
        assert!(!epub.spine[1].linear);
        assert_eq!(
            epub.entries.first().map(|e| e.method.as_str()),
            Some("stored")
        );
    }

    #[test]
    fn what_epub_metadata_leaves_out_is_read_from_the_same_parse() {
        let opf = super::super::testutil::OPF
            .replace(
                "<dc:title>Minimal Book</dc:title>",
                "<dc:title>Minimal Book</dc:title><dc:title id=\"sub\">A Subtitle</dc:title>\
                 <meta refines=\"#sub\" property=\"title-type\">subtitle</meta>\
                 <dc:title>Another Title</dc:title>\
                 <dc:contributor id=\"ed\">Ed Itor</dc:contributor>\
                 <meta refines=\"#ed\" property=\"role\">edt</meta>\
                 <dc:source>Print edition</dc:source>\
                 <meta name=\"primary-writing-mode\" content=\"vertical-rl\"/>",
            )
            .replace(
                "<spine toc=\"ncx\">",
                "<spine toc=\"ncx\" page-progression-direction=\"rtl\">",
            );
        let book =
            TestBook::minimal_epub3().edit("EPUB/package.opf", super::super::testutil::OPF, &opf);
        let extra = open_bytes(&book.to_zip()).unwrap().extra;
        assert_eq!(extra.subtitle.as_deref(), Some("A Subtitle"));
        assert_eq!(extra.other_titles, ["Another Title"]);
        assert_eq!(
            extra.contributors,
            [Creator {
                name: "Ed Itor".into(),
                role: Some("edt".into()),
                file_as: None,
            }]
        );
        assert_eq!(extra.direction.as_deref(), Some("rtl"));
        assert_eq!(extra.writing_mode.as_deref(), Some("vertical-rl"));
        assert_eq!(extra.unkept.len(), 1);
        assert_eq!(extra.unkept[0].0, "dc:source \"Print edition\"");
        assert!(
            extra.unkept[0].1.starts_with("EPUB/package.opf:"),
            "{:?}",
            extra.unkept
        );
    }

    #[test]
    fn epub3_toc_comes_from_nav_nested() {
        let epub = open_bytes(&TestBook::minimal_epub3().to_zip()).unwrap();
        assert_eq!(epub.toc_source, TocSource::Nav);
        assert_eq!(epub.toc.len(), 1);
        assert_eq!(epub.toc[0].title, "Chapter One");
        assert_eq!(epub.toc[0].href, "EPUB/text/chapter_1.xhtml#start");
        assert_eq!(epub.toc[0].children.len(), 1);
        assert_eq!(epub.toc[0].children[0].href, "EPUB/text/chapter_1.xhtml#s1");
    }

    #[test]
    fn epub2_reads_opf_attributes_calibre_series_meta_cover_and_ncx() {
        let epub = open_bytes(&epub2().to_zip()).unwrap();
        assert_eq!(epub.version, "2.0");
        let md = &epub.metadata;
        assert_eq!(md.creators[0].role.as_deref(), Some("aut"));
        assert_eq!(md.creators[0].file_as.as_deref(), Some("Poe, Edgar"));
        assert_eq!(md.identifiers.len(), 2);
        assert_eq!(
            md.unique_identifier.as_deref(),
            Some("urn:uuid:12345678-1234-5678-1234-567812345678")
        );
        assert_eq!(md.series, Some(("Tales".into(), Some("1.0".into()))));
        assert_eq!(md.cover_href.as_deref(), Some("EPUB/images/cover.png"));
        assert_eq!(md.subjects, vec!["Horror", "Poetry"]);
        assert_eq!(md.publisher.as_deref(), Some("Pub"));
        // The nav file is there but EPUB 2 has no nav property: the NCX is the TOC.
        assert_eq!(epub.toc_source, TocSource::Ncx);
        assert_eq!(epub.toc[0].title, "Chapter One");
        assert_eq!(epub.toc[0].children[0].title, "Section");
    }

    #[test]
    fn epub3_without_toc_nav_falls_back_to_ncx_with_a_note() {
        let book = TestBook::minimal_epub3().edit(
            "EPUB/nav.xhtml",
            "epub:type=\"toc\"",
            "epub:type=\"landmarks\"",
        );
        let epub = open_bytes(&book.to_zip()).unwrap();
        assert_eq!(epub.toc_source, TocSource::Ncx);
        assert_eq!(epub.toc.len(), 1);
        assert!(
            epub.notes.iter().any(|n| n.contains("no usable toc nav")),
            "{:?}",
            epub.notes
        );
    }

    fn deep_ncx(levels: usize) -> String {
        let mut s = String::from(
            r#"<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>"#,
        );
        for i in 0..levels {
            s.push_str(&format!(
                r#"<navPoint id="p{i}"><navLabel><text>L{i}</text></navLabel><content src="text/chapter%5F1.xhtml"/>"#
            ));
        }
        s.push_str(&"</navPoint>".repeat(levels));
        s.push_str("</navMap></ncx>");
        s
    }

    #[test]
    fn toc_nesting_is_cut_at_the_depth_cap_with_a_note() {
        let book = epub2().edit(
            "EPUB/toc.ncx",
            super::super::testutil::NCX,
            &deep_ncx(MAX_TOC_DEPTH + 10),
        );
        let epub = open_bytes(&book.to_zip()).unwrap();
        let mut depth = 0;
        let mut level = &epub.toc;
        while let Some(first) = level.first() {
            depth += 1;
            level = &first.children;
        }
        assert_eq!(depth, MAX_TOC_DEPTH);
        assert!(
            epub.notes
                .iter()
                .any(|n| n.contains("deeper entries dropped"))
        );
    }

    #[test]
    fn missing_rootfile_is_a_structure_error_naming_container_xml() {
        let book = TestBook::minimal_epub3().edit(
            "META-INF/container.xml",
            r#"full-path="EPUB/package.opf""#,
            "",
        );
        let err = open_bytes(&book.to_zip()).unwrap_err();
        assert_eq!(err.place().to_string(), "META-INF/container.xml");
    }

    #[test]
    fn malformed_opf_error_names_entry_line_and_column() {
        let book = TestBook::minimal_epub3().edit("EPUB/package.opf", "</spine>", "</spin>");
        let err = open_bytes(&book.to_zip()).unwrap_err();
        assert!(
            err.place().to_string().starts_with("EPUB/package.opf:"),
            "{err}"
        );
        assert!(matches!(err, InspectError::Xml { line, .. } if line > 1));
    }

    #[test]
    fn not_a_zip_is_a_zip_error() {
        assert!(matches!(open_bytes(b"hello"), Err(InspectError::Zip(_))));
    }

    #[test]
    fn zip_bomb_entry_is_refused_at_the_cap_without_inflating_it_all() {
        use std::io::Write;
        // 65 MiB of one repeated byte deflates to ~65 KiB: a small file that would inflate past
        // the cap.
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("mimetype", stored).unwrap();
        zip.write_all(b"application/epub+zip").unwrap();
        let deflated = zip::write::SimpleFileOptions::default().compression_level(Some(1));
        zip.start_file(CONTAINER_XML, deflated).unwrap();
        let chunk = vec![b' '; 1 << 20];
        for _ in 0..65 {
            zip.write_all(&chunk).unwrap();
        }
        let bytes = zip.finish().unwrap().into_inner();
        assert!(
            bytes.len() < 1 << 20,
            "bomb should be small, is {}",
            bytes.len()
        );
        match open_bytes(&bytes) {
            Err(InspectError::EntryTooLarge { name, cap }) => {
                assert_eq!(name, CONTAINER_XML);
                assert_eq!(cap, MAX_XML_ENTRY_BYTES);
            }
            other => panic!("expected EntryTooLarge, got {other:?}"),
        }
        // Memory: `read_capped` stops after cap + 1 bytes, whatever the header declares.
        let mut container = Container::new(Cursor::new(&bytes)).unwrap();
        let err = container.read_capped(CONTAINER_XML, 1000).unwrap_err();
        assert!(matches!(err, InspectError::EntryTooLarge { cap: 1000, .. }));
    }

    #[test]
    fn render_text_shows_metadata_spine_toc_tree_and_sizes() {
        let epub = open_bytes(&TestBook::minimal_epub3().to_zip()).unwrap();
        let text = crate::inspect::report::render_text(&epub);
        assert!(text.contains("Title:       Minimal Book"), "{text}");
        assert!(
            text.contains("Creator:     Ann Writer (role aut, file-as Writer, Ann)"),
            "{text}"
        );
        assert!(text.contains("Series:      The Series #3"), "{text}");
        assert!(
            text.contains("    1. EPUB/text/chapter_1.xhtml\n"),
            "{text}"
        );
        assert!(text.contains("[non-linear]"), "{text}");
        assert!(
            text.contains("\n  Chapter One  -> EPUB/text/chapter_1.xhtml#start\n    Section  -> "),
            "{text}"
        );
        assert!(text.contains("  images        1"), "{text}");
        assert!(text.contains("  total         7"), "{text}");
        assert!(text.contains("compressed to"), "{text}");
    }
}
