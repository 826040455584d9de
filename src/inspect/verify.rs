//! Our own structural rules for a finished EPUB, for `epubforge check BOOK.epub` and the
//! integration tests.
//!
//! This is not EPUBCheck (see [`super::epubcheck`] for that): it checks the container and
//! package structure that our pipeline is responsible for, fast and without Java, and reports
//! every problem it finds as a [`Diagnostic`] instead of stopping at the first one.
//!
//! Deliberate leniencies, so that pandoc's and calibre's books give no false errors: `playOrder`
//! may be absent from an NCX altogether; a wrong `dtb:depth` is a warning (reading systems
//! ignore it); EPUB 2 XHTML needs only `xml:lang` (XHTML 1.1 has no `lang` attribute).

use std::collections::{HashMap, HashSet};
#[cfg(test)]
use std::io::Cursor;
use std::io::{Read, Seek};
#[cfg(test)]
use std::path::Path;

use roxmltree::{Document, Node};

use crate::diagnostic::{Code, Diagnostic};

use super::archive::Archive;
use super::container::Container;
use super::finding::{self, Place};
use super::fixed_layout;
use super::href;
use super::read::{self, CONTAINER_XML, NS_DC, Package};
use super::references::{self, Kind, Reference, XmlSummary};
use super::xml::{self, Locator, attr, is, text_of};
use super::{InspectError, MAX_XML_ENTRY_BYTES};

mod element;
mod lean;
mod ncx;
mod package;
mod summary;
mod walk;

/// XML entries are inflated this many (or this many bytes) at a time, then parsed in parallel.
const BATCH_ENTRIES: usize = 256;
const BATCH_BYTES: usize = 8 << 20;
/// Most XML we inflate in one check, over all entries: 1 GiB.
const MAX_TOTAL_XML_BYTES: u64 = 1024 * 1024 * 1024;
const MIMETYPE: &str = "mimetype";
const MIMETYPE_CONTENT: &[u8] = b"application/epub+zip";
const NS_XML: &str = "http://www.w3.org/XML/1998/namespace";
const NS_XLINK: &str = "http://www.w3.org/1999/xlink";
const NS_OPS: &str = "http://www.idpf.org/2007/ops";

/// Checks the EPUB at `path`: every problem our rules find, about an entry inside `path`
/// (`book.epub/EPUB/nav.xhtml`) or `path` itself. Never panics; an unreadable file or zip gives
/// one error.
#[cfg(test)]
pub(crate) fn verify_path(path: &Path) -> Vec<Diagnostic> {
    verify_file(path).findings
}

/// What [`verify_file`] found, and whether the EPUB is unsafe to read at all.
pub(crate) struct Verified {
    /// Every problem, about an entry inside the EPUB or the EPUB itself.
    pub findings: Vec<Diagnostic>,
    /// The EPUB cannot be read safely (an unreadable zip, more entries than we accept, an
    /// entry that inflates past our caps): what it holds was not all checked, and no other
    /// tool should be handed it (`check` does not run EPUBCheck on it).
    pub fatal: bool,
}

/// [`verify_path`], saying too whether the EPUB is unsafe to read.
#[cfg(test)]
pub(crate) fn verify_file(path: &Path) -> Verified {
    verify_archive_with(&Archive::lazy(path), None)
}

/// The package rules' findings and the package, checked ahead of the other rules by
/// [`check_package_ahead`].
pub(crate) struct PackageChecked(Verifier, Option<Package>);

/// The package rules on the EPUB of `archive`, run ahead of [`verify_archive_with`] so that
/// the package document parsed for them is the one [`Archive::package`] answers with (a
/// `fix` reviews each side with these rules and, beside them, the readers of
/// [`Archive::package`]). Once the package is parsed, the rules run beside `beside`, which
/// may read [`Archive::package`] (kept by then), and `then` takes their findings; so
/// `then(rules) ‖ beside()`. The rules are None when the zip cannot be opened:
/// [`verify_archive_with`] then meets and reports that itself.
pub(crate) fn check_package_ahead<A: Send, B: Send>(
    archive: &Archive,
    then: impl FnOnce(Option<PackageChecked>) -> A + Send,
    beside: impl FnOnce() -> B + Send,
) -> (A, B) {
    let Ok(mut container) = archive.container() else {
        return rayon::join(|| then(None), beside);
    };
    let mut rules = Verifier::default();
    let parsed = rules.package_text(&mut container);
    let doc = (parsed.as_ref()).and_then(|(opf_path, text)| xml::parse(opf_path, text).ok());
    let package = match (&parsed, &doc) {
        (Some((opf_path, _)), Some(doc)) => rules.package_of(opf_path, doc),
        _ => None,
    };
    let (Some((opf_path, _)), Some(doc), Some(package)) = (&parsed, &doc, package) else {
        return rayon::join(|| then(Some(PackageChecked(rules, None))), beside);
    };
    // The package to keep: the same steps as read::read_container's (its TOC read on).
    let kept = package.clone();
    rayon::join(
        || {
            rules.package_rules(&container, opf_path, doc, &package);
            then(Some(PackageChecked(rules, Some(package))))
        },
        || {
            if let Ok(zip) = archive.container() {
                archive.offer_package(|| read::epub_of(zip, opf_path.clone(), kept));
            }
            beside()
        },
    )
}

/// [`verify_file`] on the EPUB of `archive`, its entries read from what was inflated ahead;
/// the package rules' findings taken from `ahead` when they were run ahead.
pub(crate) fn verify_archive_with(archive: &Archive, ahead: Option<PackageChecked>) -> Verified {
    let mut v = match archive.reader() {
        Ok(reader) => verify_container(archive.container_of(reader), ahead),
        Err(e) => Verifier {
            findings: vec![finding::error(Code::Io, Place::zip(), e.to_string())],
            ..Verifier::default()
        },
    };
    if let Some(ncx) = v.ncx.take() {
        archive.offer_ncx(ncx);
    }
    Verified {
        findings: (v.findings.into_iter())
            .map(|d| finding::in_epub(d, archive.path()))
            .collect(),
        fatal: v.fatal,
    }
}

/// Checks an EPUB held in memory: each problem's path is its entry (`EPUB/nav.xhtml`), or none
/// for the zip as a whole.
#[cfg(test)]
pub(crate) fn verify_bytes(bytes: &[u8]) -> Vec<Diagnostic> {
    verify_reader(Cursor::new(bytes))
}

/// Checks an EPUB from any seekable reader, as [`verify_bytes`] does.
#[cfg(test)]
pub(crate) fn verify_reader<R: Read + Seek>(reader: R) -> Vec<Diagnostic> {
    verify_any(reader).findings
}

/// Every rule, in order.
#[cfg(test)]
fn verify_any<R: Read + Seek>(reader: R) -> Verifier {
    verify_container(Container::new(reader), None)
}

/// Every rule, on the zip opened (or why it could not be); the package rules' from `ahead`
/// when they were run ahead on the same zip.
fn verify_container<R: Read + Seek>(
    container: Result<Container<R>, InspectError>,
    ahead: Option<PackageChecked>,
) -> Verifier {
    let mut v = Verifier::default();
    let mut container = match container {
        Ok(c) => c,
        Err(e) => {
            v.failed(&e);
            return v;
        }
    };
    // Sized ahead for a summary per entry (most are XML): grown one at a time, the map
    // hashes its keys again each time it doubles.
    v.summaries.reserve(container.entries.len());
    v.check_mimetype(&mut container);
    for name in container.duplicates.iter() {
        v.error(
            Code::EpubZip,
            name,
            "entry name occurs more than once in the zip",
        );
    }
    if container.has_duplicates && container.duplicates.is_empty() {
        v.error(
            Code::EpubZip,
            Place::zip(),
            "an entry name occurs more than once in the zip",
        );
    }
    // The package rules run first, so that the package document's tree is gone before the
    // summaries of every other document are built (for a book of 100 000 items each takes
    // tens of megabytes); their findings are listed after the well-formedness ones.
    let (mut package_rules, package) = match ahead {
        Some(PackageChecked(rules, package)) => (rules, package),
        None => {
            let mut rules = Verifier::default();
            let package = rules.check_package(&mut container);
            (rules, package)
        }
    };
    v.summarize_xml(
        &mut container,
        package.as_ref().map(|p| p.opf_path.as_str()),
    );
    v.findings.append(&mut package_rules.findings);
    v.fatal |= package_rules.fatal;
    v.fixed_layout = std::mem::take(&mut package_rules.fixed_layout);
    v.check_viewports();
    if let Some(package) = &package {
        v.check_content_languages(package);
        v.check_head_semantics(package);
        v.check_ncx(&mut container, package);
    }
    v.check_links(&mut container, package.as_ref());
    v
}

#[derive(Default)]
struct Verifier {
    findings: Vec<Diagnostic>,
    /// A finding says the EPUB cannot be read safely ([`Verified::fatal`]).
    fatal: bool,
    summaries: HashMap<String, XmlSummary>,
    /// The spine documents laid out `pre-paginated`.
    fixed_layout: HashSet<String>,
    /// The targets of the NCX the NCX rules parsed, for the [`Archive`]'s other readers
    /// ([`Archive::offer_ncx`]).
    ncx: Option<read::NcxTargets>,
    /// What the NCX rules read of each NCX (by entry name) the summaries walked.
    ncx_walked: Vec<(String, ncx::NcxFacts)>,
}

/// Whether the entry `name` ends in `.` and one of `extensions` (written in lower case), in
/// any case; nothing is allocated (asked of every entry and every document summarised).
fn has_extension(name: &str, extensions: &[&str]) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, e)| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

fn is_xml_name(name: &str) -> bool {
    has_extension(name, &["opf", "ncx", "xhtml", "html", "htm", "xml", "svg"])
}

fn is_xhtml_name(name: &str) -> bool {
    has_extension(name, &["xhtml", "html", "htm"])
}

/// `CCYY-MM-DDThh:mm:ssZ`, as EPUB 3 requires for `dcterms:modified`.
fn is_epub_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

impl Verifier {
    fn error(&mut self, code: Code, place: impl Into<Place>, message: impl Into<String>) {
        self.findings.push(finding::error(code, place, message));
    }

    fn warning(&mut self, code: Code, place: impl Into<Place>, message: impl Into<String>) {
        self.findings.push(finding::warning(code, place, message));
    }

    /// `e` as a finding; fatal when the EPUB cannot be read safely past it.
    fn failed(&mut self, e: &InspectError) {
        self.fatal |= e.is_fatal();
        self.findings.push(e.finding());
    }

    fn check_mimetype<R: Read + Seek>(&mut self, container: &mut Container<R>) {
        match &container.first_header {
            Some(h) if h.signature_ok => {
                if h.name != MIMETYPE {
                    self.error(
                        Code::EpubMimetype,
                        h.name.clone(),
                        "the first zip entry must be `mimetype`",
                    );
                } else {
                    if h.flags & 1 != 0 {
                        self.error(Code::EpubMimetype, MIMETYPE, "must not be encrypted");
                    }
                    if h.method != 0 {
                        self.error(
                            Code::EpubMimetype,
                            MIMETYPE,
                            "must be stored, not compressed",
                        );
                    }
                    if h.extra_len != 0 {
                        self.error(
                            Code::EpubMimetype,
                            MIMETYPE,
                            format!(
                                "local header has a {}-byte extra field; it must have none",
                                h.extra_len
                            ),
                        );
                    }
                }
            }
            _ => self.error(
                Code::EpubMimetype,
                Place::zip(),
                "no local file header at offset 0",
            ),
        }
        match container.read_capped(MIMETYPE, 1024) {
            Ok(bytes) if bytes == MIMETYPE_CONTENT => {}
            Ok(bytes) => self.error(
                Code::EpubMimetype,
                MIMETYPE,
                format!(
                    "content is {:?}, must be exactly `application/epub+zip`",
                    String::from_utf8_lossy(&bytes)
                ),
            ),
            Err(e) => self.failed(&e),
        }
    }

    /// RSC-005 (schema): `epub:type` in the `<head>` of a manifest XHTML document.
    fn check_head_semantics(&mut self, package: &Package) {
        let mut found = Vec::new();
        for item in package.manifest.iter() {
            let Some(summary) = self.summaries.get(&item.href) else {
                continue;
            };
            for (at, element) in &summary.head_semantics {
                found.push(finding::error(
                    Code::EpubSemantics,
                    at.clone(),
                    format!(
                        "`epub:type` on <{element}>: structural semantics belong in the body, not the head"
                    ),
                ));
            }
        }
        self.findings.extend(found);
    }

    fn check_content_languages(&mut self, package: &Package) {
        let mut found = Vec::new();
        for item in package
            .manifest
            .iter()
            .filter(|m| m.media_type == "application/xhtml+xml")
        {
            let Some((loc, lang, xml_lang)) =
                (self.summaries.get(&item.href)).and_then(|s| s.html_root.as_ref())
            else {
                continue;
            };
            // Only a document with neither attribute has no language: EPUBCheck says nothing
            // either way, and Ace (axe's html-has-lang) accepts `xml:lang` in XHTML. (The
            // location is copied for a finding only.)
            if !lang && !xml_lang {
                found.push(finding::warning(
                    Code::EpubLang,
                    loc.clone(),
                    "<html> has no `lang` or `xml:lang` attribute",
                ));
            }
        }
        self.findings.extend(found);
    }

    fn check_viewports(&mut self) {
        let mut fixed: Vec<&String> = self.fixed_layout.iter().collect();
        fixed.sort();
        for entry in fixed {
            // A document missing or malformed is reported already.
            if let Some(summary) = self.summaries.get(entry) {
                let found = fixed_layout::check_viewport(entry, summary.viewport.as_ref());
                self.findings.extend(found);
            }
        }
    }

    fn check_links<R: Read + Seek>(
        &mut self,
        container: &mut Container<R>,
        package: Option<&Package>,
    ) {
        let stylesheets = package
            .map(|p| summary::stylesheets(container, p))
            .unwrap_or_default();
        let found = references::check(
            &self.summaries,
            &stylesheets,
            |p| container.exists(p),
            package,
        );
        self.findings.extend(found);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::inspect::testutil::TestBook;

    const OPF: &str = "EPUB/package.opf";
    const CHAPTER: &str = "EPUB/text/chapter_1.xhtml";
    const NCX: &str = "EPUB/toc.ncx";

    fn check(book: &TestBook) -> Vec<Diagnostic> {
        verify_bytes(&book.to_zip())
    }

    /// `entry:line:column` of a finding, as far as it has them.
    fn location(f: &Diagnostic) -> String {
        crate::diagnostic::render::location(f, None).unwrap_or_default()
    }

    /// The book must give exactly one finding; return it.
    fn only(findings: &[Diagnostic]) -> &Diagnostic {
        assert_eq!(findings.len(), 1, "expected one finding, got {findings:#?}");
        &findings[0]
    }

    fn assert_one(book: TestBook, severity: Severity, place: &str, message: &str) {
        let findings = check(&book);
        let f = only(&findings);
        assert_eq!(f.severity, severity, "{f}");
        assert!(location(f).starts_with(place), "location of {f}");
        assert!(f.message.contains(message), "message of {f}");
    }

    fn minimal() -> TestBook {
        TestBook::minimal_epub3()
    }

    #[test]
    fn the_package_rules_run_ahead_find_what_they_find_in_turn_and_the_package_is_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let books = [
            minimal(),
            minimal().remove("META-INF/container.xml"),
            minimal().edit(OPF, "<manifest>", "<manifest><bad"),
            minimal().edit(OPF, "<itemref idref=\"c1\"/>", "<itemref idref=\"c9\"/>"),
            minimal().edit(OPF, " properties=\"nav\"", ""),
            minimal().remove(NCX).remove(CHAPTER),
            minimal().remove("EPUB/nav.xhtml"),
        ];
        for (i, book) in books.iter().enumerate() {
            let path = dir.path().join(format!("{i}.epub"));
            std::fs::write(&path, book.to_zip()).unwrap();
            let alone = verify_file(&path).findings;
            let archive = Archive::inflate(&path);
            let then = |ahead: Option<PackageChecked>| {
                assert!(ahead.is_some(), "{i}");
                verify_archive_with(&archive, ahead)
            };
            let (verified, ()) = check_package_ahead(&archive, then, || ());
            assert_eq!(verified.findings, alone, "{i}");
            // The package kept is the one the EPUB's own reading makes, or the same error.
            let fresh = Container::new(std::fs::File::open(&path).unwrap());
            let fresh = format!("{:?}", fresh.and_then(read::read_container));
            let kept = archive.package().map(|epub| read::Epub::clone(&epub));
            assert_eq!(format!("{kept:?}"), fresh, "{i}");
        }
        // The rules that find something on the package did find it on these.
        let zipped = |i: usize| verify_bytes(&books[i].to_zip());
        assert!((1..books.len() - 2).all(|i| !zipped(i).is_empty()));
    }

    /// The code of the one finding `book` gives.
    fn code_of(book: TestBook) -> Code {
        only(&check(&book)).code
    }

    #[test]
    fn each_rule_has_its_own_stable_code() {
        let stored = |mut b: TestBook| {
            b.entry_mut("mimetype").stored = false;
            b
        };
        assert_eq!(code_of(stored(minimal())), Code::EpubMimetype);
        let no_id = minimal().edit(CHAPTER, r##"href="#s1""##, r##"href="#nowhere""##);
        assert_eq!(code_of(no_id), Code::EpubFragment);
        let gone = minimal().edit(CHAPTER, r##"href="#s1""##, r#"href="gone.xhtml""#);
        assert_eq!(code_of(gone), Code::EpubMissingResource);
        let no_lang = minimal().edit(CHAPTER, r#" lang="en" xml:lang="en""#, "");
        assert_eq!(code_of(no_lang), Code::EpubLang);
        let bad_xml = minimal().edit(CHAPTER, "</body>", "</bdy>");
        assert_eq!(code_of(bad_xml), Code::EpubXml);
        let stray = minimal().add("EPUB/stray.css", b"p{}");
        assert_eq!(code_of(stray), Code::EpubUnlistedFile);
        let no_title = minimal().edit(OPF, "<dc:title>Minimal Book</dc:title>", "");
        assert_eq!(code_of(no_title), Code::EpubMetadata);
    }

    #[test]
    fn minimal_valid_epub3_has_no_findings() {
        assert_eq!(check(&minimal()), vec![]);
    }

    #[test]
    fn mimetype_not_first_is_an_error() {
        let mut book = minimal();
        let first = book.entries.remove(0);
        book.entries.push(first);
        assert_one(
            book,
            Severity::Error,
            "META-INF/container.xml",
            "first zip entry must be `mimetype`",
        );
    }

    #[test]
    fn compressed_mimetype_is_an_error() {
        let mut book = minimal();
        book.entry_mut("mimetype").stored = false;
        assert_one(book, Severity::Error, "mimetype", "must be stored");
    }

    #[test]
    fn mimetype_with_trailing_newline_is_an_error() {
        let mut book = minimal();
        book.entry_mut("mimetype").data = b"application/epub+zip\n".to_vec();
        assert_one(book, Severity::Error, "mimetype", "must be exactly");
    }

    #[test]
    fn mimetype_extra_field_is_an_error() {
        let mut book = minimal();
        book.entry_mut("mimetype").extra_field = true;
        assert_one(book, Severity::Error, "mimetype", "extra field");
    }

    #[test]
    fn missing_container_xml_is_an_error() {
        let book = minimal().remove("META-INF/container.xml");
        assert_one(book, Severity::Error, "META-INF/container.xml", "missing");
    }

    #[test]
    fn container_pointing_to_a_missing_opf_is_an_error() {
        let book = minimal().edit(
            "META-INF/container.xml",
            "EPUB/package.opf",
            "EPUB/other.opf",
        );
        // The real OPF is now an unlisted entry too; that is the warning, not a second error.
        let findings = check(&book);
        let errors: Vec<_> = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert_eq!(errors.len(), 1, "{findings:#?}");
        assert!(
            errors[0]
                .message
                .contains("rootfile `EPUB/other.opf` is not in the zip")
        );
    }

    #[test]
    fn malformed_xhtml_is_an_error_with_line_and_column() {
        let book = minimal().edit(CHAPTER, "</body>", "</bdy>");
        let findings = check(&book);
        let f = only(&findings);
        assert_eq!(f.severity, Severity::Error);
        // `</bdy>` is on line 10 of the chapter.
        assert_eq!(location(f), "EPUB/text/chapter_1.xhtml:10:1", "{f}");
        assert!(f.message.contains("bdy"), "{f}");
    }

    #[test]
    fn manifest_item_missing_from_zip_is_an_error() {
        let book = minimal().edit(
            OPF,
            "</manifest>",
            r#"<item id="css" href="style.css" media-type="text/css"/></manifest>"#,
        );
        assert_one(
            book,
            Severity::Error,
            "EPUB/package.opf:",
            "`EPUB/style.css`, which is not in the zip",
        );
    }

    #[test]
    fn zip_entry_missing_from_manifest_is_a_warning() {
        let book = minimal().add("EPUB/stray.css", b"p{}");
        assert_one(
            book,
            Severity::Warning,
            "EPUB/stray.css",
            "not in the manifest",
        );
    }

    #[test]
    fn spine_idref_without_manifest_item_is_an_error() {
        let book = minimal().edit(
            OPF,
            r#"<itemref idref="c1"/>"#,
            r#"<itemref idref="c1"/><itemref idref="c9"/>"#,
        );
        assert_one(
            book,
            Severity::Error,
            "EPUB/package.opf:",
            "`c9` names no manifest item",
        );
    }

    #[test]
    fn duplicate_manifest_id_is_an_error() {
        let book = minimal().edit(OPF, r#"<item id="cover""#, r#"<item id="c1""#);
        assert_one(
            book,
            Severity::Error,
            "EPUB/package.opf:",
            "`c1` is used more than once",
        );
    }

    #[test]
    fn epub3_without_nav_item_is_an_error() {
        let book = minimal().edit(OPF, r#" properties="nav""#, "");
        assert_one(book, Severity::Error, "EPUB/package.opf", "there is none");
    }

    #[test]
    fn epub3_with_two_nav_items_is_an_error() {
        let book = minimal().edit(
            OPF,
            r#"href="text/chapter%5F1.xhtml" media-type="application/xhtml+xml""#,
            r#"href="text/chapter%5F1.xhtml" media-type="application/xhtml+xml" properties="nav""#,
        );
        assert_one(
            book,
            Severity::Error,
            "EPUB/package.opf:",
            "a second manifest item",
        );
    }

    #[test]
    fn unique_identifier_naming_no_identifier_is_an_error() {
        let book = minimal().edit(
            OPF,
            r#"unique-identifier="uid""#,
            r#"unique-identifier="isbn""#,
        );
        // The NCX still matches nothing then: dtb:uid is compared with the (absent) identifier.
        let findings = check(&book);
        assert!(
            findings
                .iter()
                .any(|f| location(f).starts_with("EPUB/package.opf:2:")
                    && f.message
                        .contains("`isbn` names no non-empty dc:identifier")),
            "{findings:#?}"
        );
        assert!(findings.iter().all(|f| f.severity == Severity::Error));
        assert_eq!(findings.len(), 2, "{findings:#?}");
    }

    #[test]
    fn missing_title_is_an_error() {
        let book = minimal().edit(OPF, "<dc:title>Minimal Book</dc:title>", "");
        assert_one(book, Severity::Error, "EPUB/package.opf:", "no dc:title");
    }

    #[test]
    fn missing_language_is_an_error() {
        let book = minimal().edit(OPF, "<dc:language>en</dc:language>", "");
        assert_one(book, Severity::Error, "EPUB/package.opf:", "no dc:language");
    }

    #[test]
    fn missing_modified_is_an_error_in_epub3() {
        let book = minimal().edit(
            OPF,
            r#"<meta property="dcterms:modified">2024-01-02T03:04:05Z</meta>"#,
            "",
        );
        assert_one(
            book,
            Severity::Error,
            "EPUB/package.opf:",
            "dcterms:modified",
        );
    }

    #[test]
    fn modified_without_seconds_and_zulu_is_an_error() {
        let book = minimal().edit(OPF, "2024-01-02T03:04:05Z", "2024-01-02T03:04");
        assert_one(
            book,
            Severity::Error,
            "EPUB/package.opf:12:5",
            "CCYY-MM-DDThh:mm:ssZ",
        );
    }

    #[test]
    fn xhtml_without_lang_is_a_warning() {
        let book = minimal().edit(CHAPTER, r#" lang="en" xml:lang="en""#, "");
        assert_one(
            book,
            Severity::Warning,
            "EPUB/text/chapter_1.xhtml:3:1",
            "`lang` or `xml:lang`",
        );
    }

    #[test]
    fn xhtml_with_only_xml_lang_or_only_lang_is_clean() {
        let only_xml = minimal().edit(CHAPTER, r#" lang="en" xml:lang="en""#, r#" xml:lang="en""#);
        assert_eq!(check(&only_xml), vec![]);
        let only_lang = minimal().edit(CHAPTER, r#" lang="en" xml:lang="en""#, r#" lang="en""#);
        assert_eq!(check(&only_lang), vec![]);
    }

    #[test]
    fn structural_semantics_in_the_head_are_an_error() {
        let book = minimal().edit(
            CHAPTER,
            "<title>",
            r#"<title xmlns:epub="http://www.idpf.org/2007/ops" epub:type="footnote">"#,
        );
        let f = only(&check(&book)).clone();
        assert_eq!(f.code, Code::EpubSemantics, "{f}");
        assert!(f.message.contains("<title>"), "{f}");
        // In the body they are what they are for.
        let body = minimal().edit(
            CHAPTER,
            "<h2 ",
            r#"<h2 xmlns:epub="http://www.idpf.org/2007/ops" epub:type="subchapter" "#,
        );
        assert_eq!(check(&body), vec![]);
    }

    #[test]
    fn media_fragments_and_cfis_are_not_taken_for_ids() {
        for fragment in [
            "xywh=percent:0,0,100,43.5",
            "t=10,20",
            "epubcfi(/6/4!/4/2)",
            "svgView(viewBox(0,0,1,1))",
        ] {
            let book = minimal().edit(
                CHAPTER,
                r##"href="#s1""##,
                &format!(r#"href="chapter%5F1.xhtml#{fragment}""#),
            );
            assert_eq!(check(&book), vec![], "{fragment}");
        }
    }

    #[test]
    fn links_resolve_against_base_href() {
        // An external base takes every relative link out of the container.
        let external = minimal()
            .edit(
                CHAPTER,
                "<head>",
                r#"<head><base href="https://example.org/wiki/"/>"#,
            )
            .edit(CHAPTER, r##"href="#s1""##, r#"href="/wiki/Page""#);
        assert_eq!(check(&external), vec![]);
        // A relative base moves them inside it.
        let relative = minimal()
            .edit(CHAPTER, "<head>", r#"<head><base href="../"/>"#)
            .edit(
                CHAPTER,
                r##"href="#s1""##,
                r##"href="text/chapter%5F1.xhtml#s1""##,
            )
            .edit(
                CHAPTER,
                r#"src="../images/cover.png""#,
                r#"src="images/cover.png""#,
            )
            .edit(CHAPTER, r#"href="../nav.xhtml""#, r#"href="nav.xhtml""#);
        assert_eq!(check(&relative), vec![]);
    }

    #[test]
    fn link_to_missing_entry_is_an_error() {
        let book = minimal().edit(CHAPTER, r##"href="#s1""##, r#"href="chapter%5F2.xhtml""#);
        assert_one(
            book,
            Severity::Error,
            "EPUB/text/chapter_1.xhtml:7:",
            "`EPUB/text/chapter_2.xhtml`, which is not in the zip",
        );
    }

    #[test]
    fn link_to_missing_fragment_is_an_error() {
        let book = minimal().edit(CHAPTER, r##"href="#s1""##, r##"href="#nowhere""##);
        assert_one(
            book,
            Severity::Error,
            "EPUB/text/chapter_1.xhtml:7:",
            "has no id `nowhere`",
        );
    }

    #[test]
    fn nav_link_to_missing_fragment_is_an_error() {
        let book = minimal().edit("EPUB/nav.xhtml", "#s1\"", "#s2\"");
        assert_one(book, Severity::Error, "EPUB/nav.xhtml:", "has no id `s2`");
    }

    #[test]
    fn ncx_content_src_to_missing_entry_is_an_error() {
        let book = minimal().edit(NCX, "chapter%5F1.xhtml#s1", "chapter1.xhtml#s1");
        assert_one(
            book,
            Severity::Error,
            "EPUB/toc.ncx:",
            "`EPUB/text/chapter1.xhtml`, which is not in the zip",
        );
    }

    #[test]
    fn ncx_play_order_gap_is_an_error() {
        let book = minimal().edit(NCX, r#"playOrder="2""#, r#"playOrder="3""#);
        assert_one(
            book,
            Severity::Error,
            "EPUB/toc.ncx:",
            "playOrder 3 out of sequence; expected 2",
        );
    }

    #[test]
    fn ncx_shared_play_order_for_the_same_target_is_allowed() {
        let book = minimal()
            .edit(NCX, r#"playOrder="2""#, r#"playOrder="1""#)
            .edit(NCX, "chapter%5F1.xhtml#s1", "chapter%5F1.xhtml#start");
        assert_eq!(check(&book), vec![]);
    }

    #[test]
    fn ncx_without_any_play_order_is_allowed() {
        let book = minimal()
            .edit(NCX, r#" playOrder="1""#, "")
            .edit(NCX, r#" playOrder="2""#, "");
        assert_eq!(check(&book), vec![]);
    }

    #[test]
    fn ncx_depth_mismatch_is_a_warning() {
        let book = minimal().edit(NCX, r#"content="2""#, r#"content="1""#);
        assert_one(book, Severity::Warning, "EPUB/toc.ncx:5:", "nests 2 deep");
    }

    #[test]
    fn ncx_uid_differing_from_package_identifier_is_an_error() {
        let book = minimal().edit(NCX, "urn:uuid:12345678", "urn:uuid:00000000");
        assert_one(
            book,
            Severity::Error,
            "EPUB/toc.ncx:4:",
            "differs from the package identifier",
        );
    }

    #[test]
    fn duplicate_zip_entry_names_are_an_error() {
        let book = minimal()
            .add("EPUB/a.css", b"p{}")
            .add("EPUB/b.css", b"h1{}");
        let mut bytes = book.to_zip();
        // Rename b.css to a.css in place (local and central headers): same length, same CRCs.
        let (from, to) = (b"EPUB/b.css", b"EPUB/a.css");
        let mut i = 0;
        let mut renamed = 0;
        while i + from.len() <= bytes.len() {
            if &bytes[i..i + from.len()] == from {
                bytes[i..i + from.len()].copy_from_slice(to);
                renamed += 1;
            }
            i += 1;
        }
        assert_eq!(
            renamed, 2,
            "the name should be in one local and one central header"
        );
        let findings = verify_bytes(&bytes);
        let dup: Vec<_> = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert_eq!(dup.len(), 1, "{findings:#?}");
        assert_eq!(location(dup[0]), "EPUB/a.css");
        assert!(dup[0].message.contains("more than once"));
    }

    #[test]
    fn deeply_nested_xml_and_ncx_do_not_overflow_or_stall() {
        let levels = 100_000;
        let chapter_body = format!("{}{}", "<div>".repeat(levels), "</div>".repeat(levels));
        let point = r#"<navPoint><navLabel><text>x</text></navLabel><content src="text/chapter%5F1.xhtml"/>"#;
        let nav_map = format!("{}{}", point.repeat(levels), "</navPoint>".repeat(levels));
        let book = minimal()
            .edit(CHAPTER, "<p>See", &format!("{chapter_body}<p>See"))
            .edit(NCX, "<navMap>", &format!("<navMap>{nav_map}"));
        let findings = check(&book);
        // The deep NCX has no playOrder on its own points and a depth far beyond dtb:depth.
        assert!(
            findings
                .iter()
                .any(|f| f.message.contains(&format!("nests {levels} deep"))),
            "{:?}",
            findings
                .iter()
                .map(|f| f.to_string())
                .take(5)
                .collect::<Vec<_>>()
        );
        // Reading the same book (deep chapter, deep NCX) still works.
        let epub = super::super::read::open_bytes(&book.to_zip()).unwrap();
        assert_eq!(epub.toc_source, super::super::read::TocSource::Nav);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Arbitrary damage to the package, NCX, nav or a chapter never panics `verify`,
        /// `read` or `render_text`.
        #[test]
        fn damaged_entries_never_panic(
            which in 0usize..4,
            at in 0usize..4096,
            len in 0usize..64,
            insert in "[<>&#\"'/a-z:%;\\[\\] =\n-]{0,12}",
        ) {
            let names = [OPF, NCX, "EPUB/nav.xhtml", CHAPTER];
            let name = names[which];
            let mut book = minimal();
            let entry = book.entry_mut(name);
            let text = String::from_utf8(entry.data.clone()).unwrap();
            let mut start = at.min(text.len());
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + len).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            entry.data = format!("{}{}{}", &text[..start], insert, &text[end..]).into_bytes();
            let bytes = book.to_zip();
            let _ = verify_bytes(&bytes);
            let _ = super::super::read::open_bytes(&bytes).map(|e| super::super::report::render_text(&e));
        }
    }

    #[test]
    fn not_a_zip_gives_one_fatal_error() {
        let verified = verify_any(Cursor::new(b"PK\x03\x04 not really"));
        assert!(verified.fatal);
        assert_eq!(only(&verified.findings).severity, Severity::Error);
        assert_eq!(only(&verified.findings).path, None, "the zip as a whole");
    }

    #[test]
    fn unreadable_path_gives_one_error_naming_it() {
        let findings = verify_path(Path::new("/nonexistent/book.epub"));
        let f = only(&findings);
        assert_eq!(f.path.as_deref(), Some(Path::new("/nonexistent/book.epub")));
        assert_eq!(f.code, Code::Io);
    }

    fn epub2_book() -> TestBook {
        let opf2 = crate::inspect::testutil::OPF
            .replace(r#"version="3.0""#, r#"version="2.0""#)
            .replace(r#" properties="nav""#, "");
        minimal().edit(OPF, crate::inspect::testutil::OPF, &opf2)
    }

    #[test]
    fn epub2_xhtml11_named_entities_are_not_errors() {
        let book = epub2_book()
            .edit(
                CHAPTER,
                "<!DOCTYPE html>",
                r#"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">"#,
            )
            .edit(CHAPTER, "See <a", "See&nbsp;&eacute; <a");
        assert_eq!(check(&book), vec![]);
        // Without the XHTML 1.1 DTD the same reference is undeclared: an error.
        let bare = epub2_book().edit(CHAPTER, "See <a", "See&nbsp; <a");
        assert_one(
            bare,
            Severity::Error,
            "EPUB/text/chapter_1.xhtml:7:",
            "nbsp",
        );
    }

    #[test]
    fn epub2_needs_only_xml_lang_and_no_nav() {
        let opf2 = crate::inspect::testutil::OPF
            .replace(r#"version="3.0""#, r#"version="2.0""#)
            .replace(r#" properties="nav""#, "");
        let book = minimal()
            .edit(OPF, crate::inspect::testutil::OPF, &opf2)
            .edit(CHAPTER, r#" lang="en" xml:lang="en""#, r#" xml:lang="en""#);
        assert_eq!(check(&book), vec![]);
    }
}
