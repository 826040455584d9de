//! XHTML content documents: the shell every document shares, chapters, part title pages and
//! the cover page.

use super::{Book, Doc, DocKind, Image, locale};
use crate::xml::{escape_attr as attr, escape_text as text};

/// A complete XHTML 5 document with `lang` and `xml:lang` on the root.
pub(crate) fn xhtml(
    lang: &str,
    title: &str,
    css_href: &str,
    body_class: Option<&str>,
    body: &str,
) -> String {
    let class = body_class
        .map(|c| format!(" class=\"{c}\""))
        .unwrap_or_default();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="{lang}" xml:lang="{lang}">
<head>
<meta charset="UTF-8"/>
<title>{title}</title>
<link rel="stylesheet" type="text/css" href="{css_href}"/>
</head>
<body{class}>
{body}</body>
</html>
"#,
        lang = attr(lang),
        title = text(title),
    )
}

/// A chapter or part title page.
pub(super) fn content_document(book: &Book, doc: &Doc) -> String {
    let lang = &book.info.language;
    let body = match doc.kind {
        DocKind::Chapter(c) => format!(
            "<section epub:type=\"chapter\" role=\"doc-chapter\" aria-labelledby=\"chapter-title\">\n<h1 id=\"chapter-title\">{}</h1>\n{}</section>\n",
            text(&c.title),
            c.body
        ),
        DocKind::Part(p) => format!(
            "<section epub:type=\"part\" role=\"doc-part\" aria-labelledby=\"part-title\">\n<h1 id=\"part-title\" class=\"part-title\">{}</h1>\n{}</section>\n",
            text(&p.title),
            p.intro
        ),
    };
    let class = match doc.kind {
        DocKind::Chapter(_) => None,
        DocKind::Part(_) => Some("part"),
    };
    xhtml(lang, doc.title, "../styles/book.css", class, &body)
}

/// The cover page: the image scaled to the screen by an SVG wrapper, which every reader honours.
pub(super) fn cover_page(book: &Book, cover: &Image) -> String {
    let words = locale::words(&book.info.language);
    let (w, h) = if cover.width > 0 && cover.height > 0 {
        (cover.width, cover.height)
    } else {
        (1600, 2560)
    };
    let alt = format!("{}: {}", words.cover, book.info.title);
    let body = format!(
        r#"<section epub:type="cover" class="cover">
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width="100%" height="100%" viewBox="0 0 {w} {h}" preserveAspectRatio="xMidYMid meet" role="img" aria-label="{alt}">
<title>{alt_text}</title>
<image width="{w}" height="{h}" xlink:href="../images/{name}"/>
</svg>
</section>
"#,
        alt = attr(&alt),
        alt_text = text(&alt),
        name = attr(&cover.name),
    );
    xhtml(
        &book.info.language,
        words.cover,
        "../styles/book.css",
        Some("cover"),
        &body,
    )
}
