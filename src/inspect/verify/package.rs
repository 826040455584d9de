//! The container and package rules: `container.xml` and its rootfile, the manifest (ids,
//! hrefs, files, the nav), files the manifest does not list, the spine and the metadata.

use super::*;

impl Verifier {
    /// Container, manifest, spine and metadata rules. Returns the package for later rules.
    pub(super) fn check_package<R: Read + Seek>(
        &mut self,
        container: &mut Container<R>,
    ) -> Option<Package> {
        let (opf_path, text) = self.package_text(container)?;
        let doc = xml::parse(&opf_path, &text).ok()?;
        let package = self.package_of(&opf_path, &doc)?;
        self.package_rules(container, &opf_path, &doc, &package);
        Some(package)
    }

    /// The package document's entry name and text, as `container.xml` names it; None when
    /// there is none to read (what is wrong reported here, or by the well-formedness pass).
    pub(super) fn package_text<R: Read + Seek>(
        &mut self,
        container: &mut Container<R>,
    ) -> Option<(String, String)> {
        if !container.exists(CONTAINER_XML) {
            self.error(Code::EpubPackage, CONTAINER_XML, "missing");
            return None;
        }
        // An unreadable or malformed container.xml or package document is reported by the
        // well-formedness pass; nothing more can be checked from it.
        let opf_path = match read::rootfile_path(container) {
            Ok(p) => p,
            Err(e @ InspectError::Structure { .. }) => {
                self.failed(&e);
                return None;
            }
            Err(_) => return None,
        };
        if !container.exists(&opf_path) {
            self.error(
                Code::EpubPackage,
                CONTAINER_XML,
                format!("rootfile `{opf_path}` is not in the zip"),
            );
            return None;
        }
        let text = read::read_text(container, &opf_path).ok()?;
        Some((opf_path, text))
    }

    /// The package read from its document `doc`; None (its error reported) when it is not one.
    pub(super) fn package_of(&mut self, opf_path: &str, doc: &Document) -> Option<Package> {
        match read::parse_package(opf_path, doc) {
            Ok(p) => Some(p),
            Err(e) => {
                self.failed(&e);
                None
            }
        }
    }

    /// The rules on the package read from `doc`.
    pub(super) fn package_rules<R: Read + Seek>(
        &mut self,
        container: &Container<R>,
        opf_path: &str,
        doc: &Document,
        package: &Package,
    ) {
        self.check_manifest(container, opf_path, doc, package);
        self.check_spine(opf_path, doc, package);
        self.check_metadata(opf_path, doc, package);
        self.findings
            .extend(crate::inspect::package_rules::check(opf_path, doc, package));
        self.fixed_layout = fixed_layout::pre_paginated(doc, package);
    }

    pub(super) fn check_manifest<R: Read + Seek>(
        &mut self,
        container: &Container<R>,
        opf_path: &str,
        doc: &Document,
        package: &Package,
    ) {
        let mut ids = HashSet::with_capacity(package.manifest.len());
        let items = doc
            .root_element()
            .children()
            .filter(|n| is(*n, "manifest"))
            .flat_map(|m| m.children().filter(|n| is(*n, "item")));
        let mut nav_count = 0;
        let mut locator = Locator::new(opf_path, doc);
        // Locations are worked out for findings only: most items have none.
        for item in items {
            let id = attr(item, "id").unwrap_or_default();
            if id.is_empty() {
                self.error(
                    Code::EpubManifest,
                    locator.at(item),
                    "manifest item without an id",
                );
            } else if !ids.insert(id) {
                self.error(
                    Code::EpubManifest,
                    locator.at(item),
                    format!("manifest id `{id}` is used more than once"),
                );
            }
            let raw = attr(item, "href").unwrap_or_default();
            match href::resolve(opf_path, raw) {
                _ if raw.trim().is_empty() => self.error(
                    Code::EpubManifest,
                    locator.at(item),
                    "manifest item without an href",
                ),
                None => {}
                Some(target) if !container.exists(&target.path) => self.error(
                    Code::EpubManifest,
                    locator.at(item),
                    format!(
                        "manifest item `{id}` points to `{}`, which is not in the zip",
                        target.path
                    ),
                ),
                Some(_) => {}
            }
            if attr(item, "properties").is_some_and(|p| p.split_whitespace().any(|p| p == "nav")) {
                nav_count += 1;
                if package.is_epub3() && nav_count == 2 {
                    self.error(
                        Code::EpubManifest,
                        locator.at(item),
                        "a second manifest item with properties `nav`; EPUB 3 allows exactly one",
                    );
                }
            }
        }
        if package.is_epub3() && nav_count == 0 {
            self.error(
                Code::EpubManifest,
                opf_path,
                "EPUB 3 needs exactly one manifest item with properties `nav`; there is none",
            );
        }
        self.check_unlisted_files(container, opf_path, package);
    }

    /// Files in the zip that are not part of the publication: a warning each (EPUBCheck's
    /// OPF-003 is a usage note, not a warning, so this stays one).
    pub(super) fn check_unlisted_files<R: Read + Seek>(
        &mut self,
        container: &Container<R>,
        opf_path: &str,
        package: &Package,
    ) {
        let listed: HashSet<&str> = package.manifest.iter().map(|m| m.href.as_str()).collect();
        for e in container.entries.iter() {
            let name = e.name.as_str();
            if name == MIMETYPE
                || name.starts_with("META-INF/")
                || name == opf_path
                || name.ends_with('/')
                || listed.contains(name)
            {
                continue;
            }
            self.warning(
                Code::EpubUnlistedFile,
                name,
                "in the zip but not in the manifest",
            );
        }
    }

    pub(super) fn check_spine(&mut self, opf_path: &str, doc: &Document, package: &Package) {
        let itemrefs = doc
            .root_element()
            .children()
            .filter(|n| is(*n, "spine"))
            .flat_map(|s| s.children().filter(|n| is(*n, "itemref")));
        let mut locator = Locator::new(opf_path, doc);
        for itemref in itemrefs {
            let idref = attr(itemref, "idref").unwrap_or_default();
            if package.item(idref).is_none() {
                self.error(
                    Code::EpubSpine,
                    locator.at(itemref),
                    format!("spine itemref `{idref}` names no manifest item"),
                );
            }
        }
    }

    pub(super) fn check_metadata(&mut self, opf_path: &str, doc: &Document, package: &Package) {
        let root = doc.root_element();
        let mut locator = Locator::new(opf_path, doc);
        let root_loc = locator.at(root);
        let metadata = root.children().find(|n| is(*n, "metadata"));
        let Some(metadata) = metadata else {
            self.error(Code::EpubMetadata, root_loc, "no <metadata> element");
            return;
        };
        let meta_loc = locator.at(metadata);
        let dc_nonempty = |name: &str| {
            metadata.descendants().any(|n| {
                n.is_element()
                    && n.tag_name().namespace() == Some(NS_DC)
                    && n.tag_name().name() == name
                    && !text_of(n).is_empty()
            })
        };
        match attr(root, "unique-identifier") {
            None => self.error(
                Code::EpubMetadata,
                root_loc,
                "package has no unique-identifier attribute",
            ),
            Some(uid)
                if package
                    .metadata
                    .unique_identifier
                    .as_deref()
                    .is_none_or(str::is_empty) =>
            {
                self.error(
                    Code::EpubMetadata,
                    root_loc,
                    format!("unique-identifier `{uid}` names no non-empty dc:identifier"),
                )
            }
            Some(_) => {}
        }
        if !dc_nonempty("title") {
            self.error(Code::EpubMetadata, meta_loc.clone(), "no dc:title");
        }
        if !dc_nonempty("language") {
            self.error(Code::EpubMetadata, meta_loc.clone(), "no dc:language");
        }
        if package.is_epub3() {
            let modified: Vec<Node> = metadata
                .children()
                .filter(|n| {
                    is(*n, "meta")
                        && attr(*n, "refines").is_none()
                        && attr(*n, "property").map(str::trim) == Some("dcterms:modified")
                })
                .collect();
            match modified.as_slice() {
                [] => self.error(
                    Code::EpubMetadata,
                    meta_loc,
                    "EPUB 3 needs a meta property=\"dcterms:modified\"",
                ),
                [one] => {
                    let value = text_of(*one);
                    if !is_epub_timestamp(&value) {
                        self.error(
                            Code::EpubMetadata,
                            locator.at(*one),
                            format!(
                                "dcterms:modified `{value}` is not in the form CCYY-MM-DDThh:mm:ssZ"
                            ),
                        );
                    }
                }
                [_, second, ..] => self.error(
                    Code::EpubMetadata,
                    locator.at(*second),
                    "more than one dcterms:modified",
                ),
            }
        }
    }
}
