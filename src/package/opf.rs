//! The package document (`package.opf`): metadata, manifest, spine and the EPUB 2 guide.

use std::fmt::Write;

use super::{Book, Doc, DocKind, Look, locale};
use crate::project::{BookInfo, Series};
use crate::xml::{escape_attr as attr, escape_text as text};

/// Writes `package.opf`.
pub(super) fn package_document(book: &Book, look: &Look, docs: &[Doc]) -> String {
    let info = &book.info;
    let mut o = String::with_capacity(4096 + docs.len() * 160);
    let _ = write!(
        o,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="{lang}">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="book-id">{id}</dc:identifier>
"#,
        lang = attr(&info.language),
        id = text(&info.identifier),
    );
    titles(&mut o, info);
    people(&mut o, info);
    descriptive(&mut o, book);
    if let Some(series) = &info.series {
        series_meta(&mut o, series);
    }
    accessibility(&mut o, book);
    if look.vertical() {
        o.push_str("    <meta name=\"primary-writing-mode\" content=\"vertical-rl\"/>\n");
    }
    if book.cover.is_some() {
        o.push_str("    <meta name=\"cover\" content=\"cover-image\"/>\n");
    }
    o.push_str("  </metadata>\n  <manifest>\n");

    o.push_str("    <item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\n");
    manifest_common(&mut o, book, look, docs, false);
    o.push_str("  </manifest>\n");
    if look.vertical() {
        o.push_str("  <spine toc=\"ncx\" page-progression-direction=\"rtl\">\n");
    } else {
        o.push_str("  <spine toc=\"ncx\">\n");
    }
    if book.cover.is_some() {
        o.push_str("    <itemref idref=\"cover\"/>\n");
    }
    for doc in docs {
        let linear = if doc.linear() { "" } else { " linear=\"no\"" };
        let _ = writeln!(o, "    <itemref idref=\"{}\"{linear}/>", doc.id);
    }
    o.push_str("  </spine>\n");
    guide(&mut o, book, docs, Some("nav.xhtml"));
    o.push_str("</package>\n");
    o
}

/// The identifier's type (for an ISBN), the title and subtitle, and the language.
fn titles(o: &mut String, info: &BookInfo) {
    if info
        .identifier
        .to_ascii_lowercase()
        .starts_with("urn:isbn:")
    {
        o.push_str("    <meta refines=\"#book-id\" property=\"identifier-type\" scheme=\"onix:codelist5\">15</meta>\n");
    }
    let _ = writeln!(
        o,
        "    <dc:title id=\"title\">{}</dc:title>",
        text(&info.title)
    );
    o.push_str("    <meta refines=\"#title\" property=\"title-type\">main</meta>\n");
    if let Some(sub) = &info.subtitle {
        let _ = writeln!(o, "    <dc:title id=\"subtitle\">{}</dc:title>", text(sub));
        o.push_str("    <meta refines=\"#subtitle\" property=\"title-type\">subtitle</meta>\n");
    }
    let _ = writeln!(o, "    <dc:language>{}</dc:language>", text(&info.language));
}

/// Authors and contributors, with their roles and sort names.
fn people(o: &mut String, info: &BookInfo) {
    for (element, people) in [
        ("creator", &info.authors),
        ("contributor", &info.contributors),
    ] {
        for (i, p) in people.iter().enumerate() {
            let id = format!("{element}-{}", i + 1);
            let _ = writeln!(
                o,
                "    <dc:{element} id=\"{id}\">{}</dc:{element}>",
                text(&p.name)
            );
            let _ = writeln!(
                o,
                "    <meta refines=\"#{id}\" property=\"role\" scheme=\"marc:relators\">{}</meta>",
                text(&p.role)
            );
            if let Some(file_as) = &p.file_as {
                let _ = writeln!(
                    o,
                    "    <meta refines=\"#{id}\" property=\"file-as\">{}</meta>",
                    text(file_as)
                );
            }
        }
    }
}

/// Publisher, description, subjects, rights, dates.
fn descriptive(o: &mut String, book: &Book) {
    let info = &book.info;
    if let Some(v) = &info.publisher {
        let _ = writeln!(o, "    <dc:publisher>{}</dc:publisher>", text(v));
    }
    if let Some(v) = &info.description {
        let _ = writeln!(o, "    <dc:description>{}</dc:description>", text(v));
    }
    for s in &info.subjects {
        let _ = writeln!(o, "    <dc:subject>{}</dc:subject>", text(s));
    }
    if let Some(v) = &info.rights {
        let _ = writeln!(o, "    <dc:rights>{}</dc:rights>", text(v));
    }
    if let Some(v) = &info.published {
        let _ = writeln!(o, "    <dc:date>{}</dc:date>", text(v));
    }
    let _ = writeln!(
        o,
        "    <meta property=\"dcterms:modified\">{}</meta>",
        text(&book.modified)
    );
}

/// The series, as EPUB 3 collection and as calibre's metadata.
fn series_meta(o: &mut String, series: &Series) {
    let _ = writeln!(
        o,
        "    <meta property=\"belongs-to-collection\" id=\"series\">{}</meta>",
        text(&series.name)
    );
    o.push_str("    <meta refines=\"#series\" property=\"collection-type\">series</meta>\n");
    if let Some(index) = &series.index {
        let _ = writeln!(
            o,
            "    <meta refines=\"#series\" property=\"group-position\">{}</meta>",
            text(index)
        );
    }
    calibre_series(o, series);
}

/// The accessibility metadata (EPUB Accessibility 1.1 discovery properties).
fn accessibility(o: &mut String, book: &Book) {
    let words = locale::words(&book.info.language);
    let visual = book.cover.is_some() || !book.images.is_empty();
    o.push_str("    <meta property=\"schema:accessMode\">textual</meta>\n");
    if visual {
        o.push_str("    <meta property=\"schema:accessMode\">visual</meta>\n");
    }
    o.push_str("    <meta property=\"schema:accessModeSufficient\">textual</meta>\n");
    let mut features = vec![
        "structuralNavigation",
        "tableOfContents",
        "readingOrder",
        "displayTransformability",
    ];
    if visual {
        features.push("alternativeText");
    }
    for f in features {
        let _ = writeln!(
            o,
            "    <meta property=\"schema:accessibilityFeature\">{f}</meta>"
        );
    }
    o.push_str("    <meta property=\"schema:accessibilityHazard\">none</meta>\n");
    let _ = writeln!(
        o,
        "    <meta property=\"schema:accessibilitySummary\">{}</meta>",
        text(words.summary)
    );
}

/// calibre's series metadata, which calibre reads from EPUB 2 and 3 alike.
pub(super) fn calibre_series(o: &mut String, series: &crate::project::Series) {
    let _ = writeln!(
        o,
        "    <meta name=\"calibre:series\" content=\"{}\"/>",
        attr(&series.name)
    );
    if let Some(index) = &series.index {
        let _ = writeln!(
            o,
            "    <meta name=\"calibre:series_index\" content=\"{}\"/>",
            attr(index)
        );
    }
}

/// Manifest items shared by EPUB 3 and EPUB 2: the NCX, the stylesheets, the cover, the
/// documents, the images and the fonts. EPUB 2 uses the older font media types its readers
/// know, and no item properties.
pub(super) fn manifest_common(o: &mut String, book: &Book, look: &Look, docs: &[Doc], epub2: bool) {
    // EPUB 3 marks the cover image and the SVG cover page; EPUB 2 has no such properties.
    let (image_props, page_props) = match (epub2, look.cover_img()) {
        (true, _) => ("", ""),
        (false, true) => (" properties=\"cover-image\"", ""),
        (false, false) => (" properties=\"cover-image\"", " properties=\"svg\""),
    };
    o.push_str("    <item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/>\n");
    o.push_str("    <item id=\"css\" href=\"styles/book.css\" media-type=\"text/css\"/>\n");
    if let Some(cover) = &book.cover {
        let _ = writeln!(
            o,
            "    <item id=\"cover-image\" href=\"images/{}\" media-type=\"{}\"{image_props}/>",
            attr(&cover.name),
            cover.media_type
        );
        let _ = writeln!(
            o,
            "    <item id=\"cover\" href=\"text/cover.xhtml\" media-type=\"application/xhtml+xml\"{page_props}/>"
        );
    }
    for (i, asset) in look.user_css.iter().enumerate() {
        let _ = writeln!(
            o,
            "    <item id=\"user-css-{}\" href=\"styles/{}\" media-type=\"text/css\"/>",
            i + 1,
            attr(&asset.name)
        );
    }
    for doc in docs {
        let props = match doc.features.properties() {
            Some(p) if !epub2 => format!(" properties=\"{p}\""),
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "    <item id=\"{}\" href=\"{}\" media-type=\"application/xhtml+xml\"{props}/>",
            doc.id, doc.href
        );
    }
    for (i, image) in book.images.iter().enumerate() {
        let _ = writeln!(
            o,
            "    <item id=\"image-{}\" href=\"images/{}\" media-type=\"{}\"/>",
            i + 1,
            attr(&image.name),
            image.media_type
        );
    }
    for (i, font) in look.fonts.iter().enumerate() {
        let Some(name) = look.font_name(i) else {
            continue;
        };
        let media_type = match (epub2, font.format.extension()) {
            (true, "otf") => "application/vnd.ms-opentype",
            (true, "ttf") => "application/x-font-truetype",
            _ => font.media_type(),
        };
        let _ = writeln!(
            o,
            "    <item id=\"font-{}\" href=\"fonts/{name}\" media-type=\"{media_type}\"/>",
            i + 1
        );
    }
    for (i, font) in look.css_fonts.iter().enumerate() {
        let Some(format) = crate::media::CarriedFont::sniff(&font.data) else {
            continue;
        };
        let _ = writeln!(
            o,
            "    <item id=\"css-font-{}\" href=\"fonts/{}\" media-type=\"{}\"/>",
            i + 1,
            attr(&font.name),
            format.media_type(epub2)
        );
    }
}

/// The EPUB 2 guide (still read by Kindle conversion and old readers): cover, title page, TOC,
/// start of the text. `nav` is the TOC document when there is no TOC page.
pub(super) fn guide(o: &mut String, book: &Book, docs: &[Doc], nav: Option<&str>) {
    let words = locale::words(&book.info.language);
    o.push_str("  <guide>\n");
    if book.cover.is_some() {
        let _ = writeln!(
            o,
            "    <reference type=\"cover\" title=\"{}\" href=\"text/cover.xhtml\"/>",
            attr(words.cover)
        );
    }
    if let Some(t) = docs.iter().find(|d| matches!(d.kind, DocKind::TitlePage)) {
        let _ = writeln!(
            o,
            "    <reference type=\"title-page\" title=\"{}\" href=\"{}\"/>",
            attr(words.title_page),
            t.href
        );
    }
    let toc = docs
        .iter()
        .find(|d| matches!(d.kind, DocKind::TocPage))
        .map(|d| d.href.as_str())
        .or(nav);
    if let Some(href) = toc {
        let _ = writeln!(
            o,
            "    <reference type=\"toc\" title=\"{}\" href=\"{href}\"/>",
            attr(words.contents)
        );
    }
    if let Some(first) = docs.iter().find(|d| d.is_body()) {
        let _ = writeln!(
            o,
            "    <reference type=\"text\" title=\"{}\" href=\"{}\"/>",
            attr(words.start),
            first.href
        );
    }
    if let Some(c) = docs.iter().find(|d| matches!(d.kind, DocKind::Colophon)) {
        let _ = writeln!(
            o,
            "    <reference type=\"colophon\" title=\"{}\" href=\"{}\"/>",
            attr(words.colophon),
            c.href
        );
    }
    o.push_str("  </guide>\n");
}
