//! What a fix repaired: inspect's rules (and EPUBCheck, when asked) on the input and on the
//! result, compared kind by kind; the letters and digits of the spine counted on both sides.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;

use memchr::memmem::{Finder, FinderRev};

use super::{FixOptions, FixReport, is_problem};
use crate::book::Target;
use crate::check::CheckReport;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::inspect::archive::Archive;
use crate::inspect::container::Entry;
use crate::inspect::{InspectError, MAX_XML_ENTRY_BYTES};
use crate::stores::limits::Store;

/// The searchers of [`holds_contents`] and [`body`], made once (each document is searched).
static NAV: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"<nav"));
static BODY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"<body"));
static BODY_END: LazyLock<FinderRev<'static>> = LazyLock::new(|| FinderRev::new(b"</body>"));

/// What the review of one EPUB found.
pub(super) struct Review {
    /// Its errors and warnings.
    pub problems: Vec<Diagnostic>,
    /// The letters and digits of its spine ([`spine_chars_of`]); None when unreadable.
    pub chars: Option<usize>,
}

/// The errors and warnings of the EPUB `epub`: our structural rules, EPUBCheck when
/// `epubcheck` gives its time limit (and it is installed), and the limits of Send-to-Kindle
/// (the store that rejects the most EPUBs people already have); and the letters and digits of
/// its spine. The package document is parsed first, once, for the package rules and for the
/// other readings ([`Archive::package`]); then the package rules and the other rules run
/// beside the stores' facts and the spine's count, and the stores' facts take the NCX's
/// order last, from the NCX the rules read ([`crate::inspect::facts::ncx_of`]) instead of
/// parsing it again.
pub(super) fn review(epub: &Archive, epubcheck: Option<Duration>) -> Review {
    let (mut report, (mut facts, chars)) = crate::inspect::verify::check_package_ahead(
        epub,
        |ahead| crate::check::check_archive(epub, epubcheck, ahead),
        || {
            rayon::join(
                || crate::inspect::facts::facts_but_ncx(epub),
                || spine_chars_of(epub).ok(),
            )
        },
    );
    // The NCX's order after the rules, which read the NCX and kept what it gives.
    if let Ok(facts) = &mut facts {
        facts.ncx = crate::inspect::facts::ncx_of(epub);
    }
    crate::store_check::review_stores(&facts, epub.path(), &[Store::Kindle], &mut report);
    report.findings.retain(is_problem);
    Review {
        problems: report.findings,
        chars,
    }
}

/// The input's problems against the result's.
pub(super) struct Compared {
    /// Per kind, how many of the input's problems the result no longer has.
    pub fixed: Vec<(Code, usize)>,
    /// One `fixed` note per kind repaired, then every problem left (with why).
    pub diagnostics: Vec<Diagnostic>,
}

/// Compares kind by kind (a kind is a code: `epub-xml`, EPUBCheck's `RSC-005`…): a kind the
/// input had more of than the result is fixed (one note, with a count and the input's first
/// message); what the result still has is listed as it is found, with a hint saying whether
/// the input had it too.
pub(super) fn compare(before: &[Diagnostic], after: &[Diagnostic]) -> Compared {
    let count = |list: &[Diagnostic]| {
        let mut by: BTreeMap<String, (Code, usize, usize)> = BTreeMap::new();
        for (i, d) in list.iter().enumerate() {
            by.entry(d.code.to_string()).or_insert((d.code, 0, i)).1 += 1;
        }
        by
    };
    let (was, is) = (count(before), count(after));
    let mut fixed = Vec::new();
    let mut diagnostics = Vec::new();
    for (name, &(code, n, first)) in &was {
        let left = is.get(name).map_or(0, |e| e.1);
        if left >= n {
            continue;
        }
        let gone = n - left;
        fixed.push((code, gone));
        let example = &before[first];
        let mut message = format!("{gone} × {name}: {}", example.message);
        if left > 0 {
            message.push_str(&format!(" ({left} left)"));
        }
        let mut note = Diagnostic::note(Code::Fixed, message);
        note.path = example.path.clone();
        diagnostics.push(note);
    }
    for d in after {
        let had = was.get(d.code.as_str()).map_or(0, |e| e.1);
        let why = match had {
            0 => "new in the fixed EPUB: a bug to report, with the input",
            _ => "the input has it too, and what it holds does not let the fix repair it",
        };
        let mut d = d.clone();
        d.hint = Some(match d.hint.take() {
            Some(h) => format!("{h}; {why}"),
            None => why.to_string(),
        });
        diagnostics.push(d);
    }
    Compared { fixed, diagnostics }
}

/// The text ledger across the fix: the result must hold at least the letters and digits of
/// the input's spine. Fewer, when the build's own ledger counted at least as many removed
/// for a documented cause (`removed`: a web page's site navigation, cleanup rules, OpenCC's
/// phrases of another length…, each named by its own warnings), is a note saying so; else a
/// `lost-text` warning.
pub(super) fn ledger(report: &FixReport, removed: &crate::ledger::Removed) -> Option<Diagnostic> {
    let (Some(before), Some(after)) = (report.chars_before, report.chars_after) else {
        return None;
    };
    let missing = before.checked_sub(after).filter(|&m| m > 0)?;
    let counted = crate::ledger::Removed {
        lost: 0,
        ..*removed
    };
    let message = format!(
        "the fixed EPUB's spine holds {after} letters and digits, the input's {before}: {missing} missing"
    );
    let d = match counted.summary() {
        Some(causes) if missing <= removed.explained() => Diagnostic::note(
            Code::LostText,
            format!("{message}, all counted: the build {causes}"),
        ),
        _ => Diagnostic::warning(Code::LostText, message).hint(
            "the warnings above say which chapters; if none does, please report it with the EPUB",
        ),
    };
    Some(d.at(&report.outputs[0]))
}

/// A build warning that says what was dropped or changed in the input's markup or stylesheets
/// (an attribute or element EPUB does not allow, a CSS rule pointing at nothing) is, in a fix,
/// a repair: a note under its own code, since the result no longer has the problem. Text that
/// went missing is not a repair: the ledger's `lost-text` stays a warning, and so does
/// everything else.
pub(super) fn as_repair(mut d: Diagnostic) -> Diagnostic {
    if d.severity == Severity::Warning && matches!(d.code, Code::Markup | Code::Css) {
        d.severity = Severity::Note;
        d.hint = Some(match d.hint.take() {
            Some(h) => format!("{h}; a repair of the input: the fixed EPUB passes without it"),
            None => "a repair of the input: the fixed EPUB passes without it".to_string(),
        });
    }
    d
}

/// `check --target`'s store limits on the EPUB each asked store gets (the plain EPUB is
/// reviewed for no store: [`review`] already holds Send-to-Kindle's).
pub(super) fn stores(outputs: &[PathBuf], opts: &FixOptions) -> Vec<Diagnostic> {
    let mut report = CheckReport::default();
    let targets = match opts.targets.is_empty() {
        true => vec![Target::Epub],
        false => opts.targets.clone(),
    };
    for (target, output) in targets.iter().zip(outputs) {
        let asked: Vec<Store> = Store::ALL
            .into_iter()
            .filter(|s| s.target() == *target && *target != Target::Epub)
            .collect();
        crate::store_check::check_epub_stores(output, &asked, &mut report);
    }
    report
        .findings
        .into_iter()
        .filter(|d| d.severity != Severity::Note)
        .collect()
}

/// The letters and digits ([`crate::ledger::count`]) of the bodies of the EPUB's spine
/// documents, the navigation document and SVG drawings left out ([`spine_documents_of`]), an
/// image's `alt` counted as text. Entries are read with inspect's size cap.
pub(super) fn spine_chars_of(epub: &Archive) -> Result<usize, InspectError> {
    let mut total = 0;
    spine_documents_of(epub, |_, xhtml| {
        total += crate::ledger::count_xhtml(body(xhtml));
    })?;
    Ok(total)
}

/// The spine's documents (what [`spine_documents_of`] leaves out left out), as (entry name,
/// text).
#[cfg(test)]
pub(super) fn spine_documents(
    epub: &std::path::Path,
) -> Result<Vec<(String, String)>, InspectError> {
    let mut documents = Vec::new();
    spine_documents_of(&Archive::lazy(epub), |href, text| {
        documents.push((href.to_string(), text.to_string()));
    })?;
    Ok(documents)
}

/// The spine's documents of the EPUB of `epub`, but the navigation document, other contents
/// pages ([`holds_contents`]), and pictures, sounds and videos ([`is_picture_or_media`]). The
/// navigation document is left out on both sides because the build writes its own from the
/// contents (a non-linear one, the IDPF test suite's, is not a page of the result); a picture
/// in the spine (an SVG drawing, a page of a pre-paginated comic) is shown on a page of its
/// own, whose `alt` is counted, and holds no text: the words of an SVG's metadata and styles
/// are no letters a reader sees.
/// A document the zip does not hold is left out;
/// one that cannot be read, or inflates past [`MAX_XML_ENTRY_BYTES`], is an error. Each is
/// handed to `visit` (entry name, text) as it is read, lent when it was inflated ahead.
fn spine_documents_of(
    epub: &Archive,
    mut visit: impl FnMut(&str, &str),
) -> Result<(), InspectError> {
    let book = epub.package()?;
    let mut zip = epub.container()?;
    let left_out: Vec<&str> = book
        .manifest
        .iter()
        .filter(|m| m.properties.iter().any(|p| p == "nav") || is_picture_or_media(&m.media_type))
        .map(|m| m.href.as_str())
        .collect();
    for href in book.spine.iter().filter_map(|s| s.href.as_deref()) {
        if left_out.contains(&href) {
            continue;
        }
        let entry = match zip.lend(href, MAX_XML_ENTRY_BYTES) {
            Ok(entry) => entry,
            Err(InspectError::MissingEntry { .. }) => continue,
            Err(e) => return Err(e),
        };
        let text = match &*entry {
            Entry::Text(text) => std::borrow::Cow::Borrowed(text.as_str()),
            Entry::Bytes(bytes) => String::from_utf8_lossy(bytes),
        };
        if !holds_contents(&text) {
            visit(href, &text);
        }
    }
    Ok(())
}

/// Whether a spine item of this media type is a picture (SVG drawings too), a sound or a
/// video: no text a reader sees, and no text to count, whatever bytes the file holds (a JPEG
/// in the spine of a pre-paginated book was counted as 298 009 letters).
fn is_picture_or_media(media_type: &str) -> bool {
    let kind = media_type.split('/').next().unwrap_or("");
    ["image", "audio", "video"]
        .iter()
        .any(|k| kind.trim().eq_ignore_ascii_case(k))
}

/// Whether an XHTML document holds a table of contents (`<nav epub:type="toc">`): a contents
/// page, which a fix makes again from the contents (the result's `toc.xhtml` beside its
/// navigation document), so it is left out on both sides as the navigation document is.
/// (Searched with `memchr`'s SIMD search: a chapter has no `<nav` and is read to its end.)
fn holds_contents(xhtml: &str) -> bool {
    NAV.find_iter(xhtml.as_bytes()).any(|at| {
        let tag = &xhtml[at..];
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        tag.find("epub:type=").is_some_and(|k| {
            let value = tag[k + 10..].trim_start_matches(['"', '\'']);
            let value = &value[..value.find(['"', '\'']).unwrap_or(value.len())];
            value.split_ascii_whitespace().any(|t| t == "toc")
        })
    })
}

/// The `<body>` of an XHTML document (all of it when there is none).
fn body(xhtml: &str) -> &str {
    let bytes = xhtml.as_bytes();
    let start = BODY
        .find(bytes)
        .and_then(|at| xhtml[at..].find('>').map(|k| at + k + 1))
        .unwrap_or(0);
    let end = BODY_END
        .rfind(bytes)
        .filter(|&e| e >= start)
        .unwrap_or(xhtml.len());
    &xhtml[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(code: Code, message: &str) -> Diagnostic {
        Diagnostic::error(code, message)
    }

    #[test]
    fn a_contents_page_is_a_page_holding_a_toc_nav() {
        assert!(holds_contents(
            "<body><nav epub:type=\"toc\" role=\"doc-toc\"><h1>目录</h1></nav></body>"
        ));
        assert!(holds_contents("<nav id='x' epub:type='landmarks toc'>"));
        assert!(holds_contents(
            "<nav epub:type=\"landmarks\"></nav><p>目录</p><nav epub:type=\"toc\"></nav>"
        ));
        assert!(!holds_contents(
            "<body><nav epub:type=\"landmarks\"><p>toc</p></nav></body>"
        ));
        assert!(!holds_contents(
            "<body><p>Contents: <a href='a.xhtml'>A</a></p></body>"
        ));
    }

    #[test]
    fn a_kind_the_result_no_longer_has_is_fixed_with_its_count_and_what_is_left_says_why() {
        let before = [
            d(Code::EpubXml, "not well-formed"),
            d(Code::EpubXml, "not well-formed"),
            d(Code::EpubLang, "no lang"),
            d(Code::EpubFragment, "no such id"),
        ];
        let after = [d(Code::EpubFragment, "no such id"), d(Code::EpubNcx, "bad")];
        let c = compare(&before, &after);
        assert_eq!(c.fixed, vec![(Code::EpubLang, 1), (Code::EpubXml, 2)]);
        let fixed: Vec<&str> = c
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::Fixed)
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(
            fixed,
            ["1 × epub-lang: no lang", "2 × epub-xml: not well-formed"]
        );
        let left: Vec<_> = c
            .diagnostics
            .iter()
            .filter(|d| d.code != Code::Fixed)
            .collect();
        assert_eq!(left.len(), 2);
        assert!(
            left[0]
                .hint
                .as_deref()
                .unwrap()
                .contains("input has it too")
        );
        assert!(
            left[1]
                .hint
                .as_deref()
                .unwrap()
                .contains("new in the fixed EPUB")
        );
    }

    #[test]
    fn a_kind_partly_repaired_counts_what_went_and_says_what_is_left() {
        let before = [
            d(Code::EpubUrl, "a"),
            d(Code::EpubUrl, "b"),
            d(Code::EpubUrl, "c"),
        ];
        let c = compare(&before, &before[..1]);
        assert_eq!(c.fixed, vec![(Code::EpubUrl, 2)]);
        assert_eq!(c.diagnostics[0].message, "2 × epub-url: a (1 left)");
    }

    #[test]
    fn the_body_alone_is_counted() {
        let x = "<html><head><title>Title words</title></head><body class=\"x\"><p>ab 12</p></body></html>";
        assert_eq!(crate::ledger::count_xhtml(body(x)), 4);
        assert_eq!(body("<p>no body</p>"), "<p>no body</p>");
    }

    #[test]
    fn the_ledger_leaves_out_the_navigation_document_and_svg_drawings_of_the_spine() {
        use crate::inspect::testutil::{CHAPTER, TestBook};
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 9 9\">\
                   <metadata>Inkscape words</metadata><text>Drawn</text></svg>";
        // The test book's spine holds its nav, `linear="no"`, as the IDPF test suite's does.
        let book = TestBook::minimal_epub3()
            .add("EPUB/page.svg", svg.as_bytes())
            .edit(
                "EPUB/package.opf",
                "<item id=\"ncx\"",
                "<item id=\"p\" href=\"page.svg\" media-type=\"image/svg+xml\"/><item id=\"ncx\"",
            )
            .edit(
                "EPUB/package.opf",
                "<itemref idref=\"c1\"/>",
                "<itemref idref=\"c1\"/><itemref idref=\"p\"/>",
            );
        assert!(crate::inspect::testutil::OPF.contains("<itemref idref=\"nav\" linear=\"no\"/>"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.epub");
        std::fs::write(&path, book.to_zip()).unwrap();
        let chars = spine_chars_of(&Archive::lazy(&path)).unwrap();
        assert_eq!(chars, crate::ledger::count_xhtml(body(CHAPTER)));
    }

    #[test]
    fn a_picture_in_the_spine_is_no_text_to_count() {
        use crate::inspect::testutil::{CHAPTER, TestBook};
        // Bytes that read as letters when taken for text, as a JPEG's do.
        let jpeg: Vec<u8> = b"\xff\xd8\xff\xe0JFIFabcdefghij0123456789\xff\xd9".to_vec();
        let book = TestBook::minimal_epub3()
            .add("EPUB/p1.jpg", &jpeg)
            .edit(
                "EPUB/package.opf",
                "<item id=\"ncx\"",
                "<item id=\"p1\" href=\"p1.jpg\" media-type=\"image/jpeg\"/><item id=\"ncx\"",
            )
            .edit(
                "EPUB/package.opf",
                "<itemref idref=\"c1\"/>",
                "<itemref idref=\"c1\"/><itemref idref=\"p1\"/>",
            );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.epub");
        std::fs::write(&path, book.to_zip()).unwrap();
        let chars = spine_chars_of(&Archive::lazy(&path)).unwrap();
        assert_eq!(chars, crate::ledger::count_xhtml(body(CHAPTER)));
        assert!(is_picture_or_media(" Image/PNG") && is_picture_or_media("video/mp4"));
        assert!(!is_picture_or_media("application/xhtml+xml"));
    }

    #[test]
    fn letters_the_build_counted_as_removed_are_a_note_and_only_the_rest_is_lost_text() {
        let report = |before, after| FixReport {
            input: "in.epub".into(),
            status: super::super::FixStatus::Fixed,
            outputs: vec!["out.epub".into()],
            found: 0,
            fixed: Vec::new(),
            remaining: 0,
            chars_before: Some(before),
            chars_after: Some(after),
            diagnostics: Vec::new(),
            timings: Vec::new(),
        };
        let nav = |n| crate::ledger::Removed {
            site_navigation: n,
            ..Default::default()
        };
        let counted = ledger(&report(100, 85), &nav(15)).unwrap();
        assert_eq!(
            (counted.code, counted.severity),
            (Code::LostText, Severity::Note)
        );
        assert!(
            counted.message.contains("15 missing, all counted"),
            "{}",
            counted.message
        );
        assert!(
            counted.message.contains("15 in site navigation"),
            "{}",
            counted.message
        );
        let lost = ledger(&report(100, 80), &nav(15)).unwrap();
        assert_eq!(
            (lost.code, lost.severity),
            (Code::LostText, Severity::Warning)
        );
        let lost_too = ledger(&report(100, 85), &crate::ledger::Removed::default()).unwrap();
        assert_eq!(lost_too.severity, Severity::Warning);
        assert!(ledger(&report(100, 100), &nav(15)).is_none());
    }

    #[test]
    fn a_dropped_attribute_is_a_repair_and_lost_text_stays_a_warning() {
        let dropped = Diagnostic::warning(Code::Markup, "dropped unsupported attributes: target");
        let repaired = as_repair(dropped);
        assert_eq!(repaired.severity, Severity::Note);
        assert_eq!(repaired.code, Code::Markup);
        assert!(repaired.hint.as_deref().unwrap().contains("a repair"));
        for code in [Code::LostText, Code::SiteNavigation] {
            let kept = as_repair(Diagnostic::warning(code, "text went"));
            assert_eq!(kept.severity, Severity::Warning, "{code}");
        }
    }
}
