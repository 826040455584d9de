//! XHTML content documents: the shell every document shares, chapters (whole or in pieces),
//! part title pages, the generated pages and the cover page.

use std::borrow::Cow;

use super::{Book, Chapter, Doc, DocKind, Image, Look, epub2, locale, nav, pages, pieces, tcy};
use crate::xml::{GENERATED_ID_PREFIX as P, escape_attr as attr, escape_text as text};

/// A complete XHTML document with the book's stylesheets linked from `css_prefix` (`"../"` for
/// documents under `text/`). EPUB 3: XHTML5 with `lang` and `xml:lang` on the root. EPUB 2:
/// XHTML 1.1 with its doctype, the body downgraded to XHTML 1.1 elements.
pub(crate) fn xhtml(
    look: &Look,
    lang: &str,
    title: &str,
    css_prefix: &str,
    body_class: Option<&str>,
    body: &str,
) -> String {
    let class = body_class
        .map(|c| format!(" class=\"{c}\""))
        .unwrap_or_default();
    let links: String = look
        .stylesheets()
        .iter()
        .map(|href| {
            format!("<link rel=\"stylesheet\" type=\"text/css\" href=\"{css_prefix}{href}\"/>\n")
        })
        .collect();
    if look.epub2() {
        let head = format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="{lang}">
<head>
<meta http-equiv="Content-Type" content="application/xhtml+xml; charset=utf-8"/>
<title>{title}</title>
{links}</head>
<body{class}>
"#,
            lang = attr(lang),
            title = text(title),
        );
        return wrap(&head, &epub2::downgrade(body), "</body>\n</html>\n");
    }
    let head = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"{prefix} lang="{lang}" xml:lang="{lang}">
<head>
<meta charset="UTF-8"/>
<title>{title}</title>
{links}</head>
<body{class}>
"#,
        lang = attr(lang),
        title = text(title),
        prefix = type_prefixes(body),
    );
    wrap(&head, body, "</body>\n</html>\n")
}

/// `head`, `body` and `tail` in one string, sized for them: a chapter's body, most of a
/// document, copied once (`format!` with it among its arguments grew its string twice).
fn wrap(head: &str, body: &str, tail: &str) -> String {
    let mut out = String::with_capacity(head.len() + body.len() + tail.len());
    out.push_str(head);
    out.push_str(body);
    out.push_str(tail);
    out
}

/// Writes `nav.xhtml`: [`nav::nav_body`] in the shell.
pub(super) fn nav_document(book: &Book, look: &Look, docs: &[Doc]) -> String {
    let words = locale::words(&book.info.language);
    let body = nav::nav_body(book, look, docs);
    xhtml(
        look,
        &book.info.language,
        words.contents,
        "",
        Some("nav"),
        &body,
    )
}

/// The `epub:type` (and `role`) of a chapter's section: a chapter of the body matter, with
/// what its source typed the whole document; front or back matter only as its source typed it.
fn section_types(chapter: &Chapter) -> String {
    // `chapter` is said once, when the source's wrapping section said it too.
    let body: Vec<&str> = chapter
        .types
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "chapter")
        .collect();
    let source = match chapter.matter() {
        super::Matter::Body => body.join(" "),
        _ => chapter.types.join(" "),
    };
    match chapter.matter() {
        super::Matter::Body if source.is_empty() => {
            "epub:type=\"chapter\" role=\"doc-chapter\"".to_string()
        }
        super::Matter::Body => format!(
            "epub:type=\"chapter {}\" role=\"doc-chapter\"",
            attr(&source)
        ),
        _ => format!("epub:type=\"{}\"", attr(&source)),
    }
}

/// The declaration of the prefixes (`z3998:`, `se:`) that `epub:type` values of an HTML
/// source may use (EPUBCheck refuses an undeclared prefix), on documents that hold such a
/// value: read from the `epub:type` attributes themselves, not from the text, where
/// "because:" is no vocabulary.
fn type_prefixes(body: &str) -> String {
    const ATTR: &str = "epub:type=\"";
    let mut used = [false; crate::xml::EPUB_TYPE_PREFIXES.len()];
    for (at, _) in body.match_indices(ATTR) {
        let value = &body[at + ATTR.len()..];
        let value = value.split('"').next().unwrap_or_default();
        for term in value.split_ascii_whitespace() {
            let Some((prefix, _)) = term.split_once(':') else {
                continue;
            };
            let mut known = crate::xml::EPUB_TYPE_PREFIXES.iter();
            if let Some(i) = known.position(|(p, _)| *p == prefix) {
                used[i] = true;
            }
        }
    }
    let declared: Vec<String> = crate::xml::EPUB_TYPE_PREFIXES
        .iter()
        .zip(used)
        .filter(|(_, used)| *used)
        .map(|((prefix, uri), _)| format!("{prefix}: {uri}"))
        .collect();
    match declared.is_empty() {
        true => String::new(),
        false => format!(" epub:prefix=\"{}\"", declared.join(" ")),
    }
}

/// Any document of the reading order. `chapters` are the book's, in reading order: the
/// links of a chapter split for size may point into the pieces of any of them.
pub(super) fn render(
    book: &Book,
    look: &Look,
    doc: &Doc,
    docs: &[Doc],
    chapters: &[&Chapter],
) -> String {
    let lang = &book.info.language;
    let (class, body) = match &doc.kind {
        DocKind::Chapter {
            chapter,
            body,
            first,
            number,
            piece,
        } => {
            let body = linked_piece(chapters, *number, *piece, body);
            let typed = section_types(chapter);
            let body = if *first && !chapter.heading {
                // The body shows its own heading (or none): the title names it for
                // assistive technology only.
                let head = format!(
                    "<section {typed} aria-label=\"{}\">\n",
                    attr(&chapter.title)
                );
                wrap(&head, &body, "</section>\n")
            } else if *first {
                let head = format!(
                    "<section {typed} aria-labelledby=\"{P}chapter-title\">\n<h1{} id=\"{P}chapter-title\">{}</h1>\n",
                    chapter
                        .title_types
                        .as_deref()
                        .map(|t| format!(" epub:type=\"{}\"", attr(t)))
                        .unwrap_or_default(),
                    text(&chapter.title),
                );
                wrap(&head, &body, "</section>\n")
            } else {
                // A continuation: no second heading, labelled for assistive technology.
                let head = format!(
                    "<section {typed} aria-label=\"{}\" class=\"continued\">\n",
                    attr(&chapter.title)
                );
                wrap(&head, &pieces::headings_from_h2(&body), "</section>\n")
            };
            let body = if look.vertical() {
                tcy::tate_chu_yoko(&body)
            } else {
                body
            };
            (None, body)
        }
        DocKind::Part(p) => (
            Some("part"),
            format!(
                "<section epub:type=\"part\" role=\"doc-part\" aria-labelledby=\"{P}part-title\">\n<h1 id=\"{P}part-title\" class=\"part-title\">{}</h1>\n{}</section>\n",
                text(&p.title),
                p.intro
            ),
        ),
        DocKind::TitlePage => (Some("titlepage"), pages::title_page(book)),
        DocKind::TocPage => (Some("toc-page"), pages::toc_page(book, look, docs)),
        DocKind::Colophon => (Some("colophon"), pages::colophon(book)),
    };
    xhtml(look, lang, &doc.title, "../", class, &body)
}

/// Piece `piece` of chapter `number` (1-based), its links to ids retargeted to the pieces that
/// hold them, in this chapter or another.
fn linked_piece<'b>(
    chapters: &[&Chapter],
    number: usize,
    piece: usize,
    body: &'b str,
) -> Cow<'b, str> {
    pieces::link_across(body, &|target, id| {
        let n = target.unwrap_or(number);
        let holder = pieces::piece_of(&chapters.get(n.checked_sub(1)?)?.anchors, id);
        // `#id` must leave a piece whose id lies elsewhere; `chapter-N.xhtml#id` names the
        // first piece, right unless the id lies further on.
        let stays = match target {
            None => holder == piece,
            Some(_) => holder == 0,
        };
        (!stays).then(|| format!("{}.xhtml#{id}", super::piece_id(n, holder)))
    })
}

/// The cover page. EPUB 3: the image scaled to the screen by an SVG wrapper, which every
/// reader honours. EPUB 2 and Kobo: a plain `img` ([`Look::cover_img`]).
pub(super) fn cover_page(book: &Book, look: &Look, cover: &Image) -> String {
    let words = locale::words(&book.info.language);
    let (w, h) = if cover.width > 0 && cover.height > 0 {
        (cover.width, cover.height)
    } else {
        (1600, 2560)
    };
    let alt = (book.info.cover_alt.clone())
        .unwrap_or_else(|| format!("{}: {}", words.cover, book.info.title));
    let body = if look.cover_img() {
        let (open, close) = match look.epub2() {
            true => ("<div class=\"cover\">", "</div>"),
            false => (
                "<section epub:type=\"cover\" class=\"cover\">",
                "</section>",
            ),
        };
        format!(
            "{open}<img src=\"../images/{name}\" alt=\"{alt}\"/>{close}\n",
            name = attr(&cover.name),
            alt = attr(&alt),
        )
    } else {
        format!(
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
        )
    };
    xhtml(
        look,
        &book.info.language,
        words.cover,
        "../",
        Some("cover"),
        &body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_declared_for_the_epub_type_values_that_use_them_not_for_text() {
        assert_eq!(type_prefixes("<p>because: so</p>"), "");
        let both = type_prefixes(
            "<p epub:type=\"z3998:salutation\">x</p><i epub:type=\"se:name.vessel.ship\">y</i>",
        );
        assert_eq!(
            both,
            " epub:prefix=\"z3998: http://www.daisy.org/z3998/2012/vocab/structure/# se: https://standardebooks.org/vocab/1.0\""
        );
        assert!(!type_prefixes("<b epub:type=\"se:x\">because: z3998:</b>").contains("z3998"));
    }
}
