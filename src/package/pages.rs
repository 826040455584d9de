//! The pages epubforge writes itself from the metadata: the title page, the table-of-contents
//! page and the colophon. Each returns the body fragment; `docs` wraps it in a document.

use std::fmt::Write;

use super::{Book, Doc, Look, locale};
use crate::xml::escape_text as text;

/// Names joined the way the language lists them.
fn join_names<'a>(lang: &str, names: impl Iterator<Item = &'a str>) -> String {
    let sep = match locale::primary(lang).as_str() {
        "zh" | "ja" => "、",
        _ => ", ",
    };
    names.collect::<Vec<_>>().join(sep)
}

/// Title, subtitle, authors, contributors and publisher, centred.
pub(super) fn title_page(book: &Book) -> String {
    let info = &book.info;
    let words = locale::words(&info.language);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<section epub:type=\"titlepage\" class=\"titlepage\" aria-label=\"{}\">",
        crate::xml::escape_attr(words.title_page)
    );
    let _ = writeln!(o, "<h1 class=\"title\">{}</h1>", text(&info.title));
    if let Some(sub) = &info.subtitle {
        let _ = writeln!(o, "<p class=\"subtitle\">{}</p>", text(sub));
    }
    let authors = join_names(&info.language, info.authors.iter().map(|a| a.name.as_str()));
    let _ = writeln!(o, "<p class=\"authors\">{}</p>", text(&authors));
    if !info.contributors.is_empty() {
        let names = join_names(
            &info.language,
            info.contributors.iter().map(|a| a.name.as_str()),
        );
        let _ = writeln!(o, "<p class=\"contributors\">{}</p>", text(&names));
    }
    if let Some(p) = &info.publisher {
        let _ = writeln!(o, "<p class=\"publisher\">{}</p>", text(p));
    }
    o.push_str("</section>\n");
    o
}

/// The table of contents as a page of the reading order, nested like the navigation document.
pub(super) fn toc_page(book: &Book, look: &Look, docs: &[Doc]) -> String {
    let words = locale::words(&book.info.language);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<nav epub:type=\"toc\" role=\"doc-toc\" aria-labelledby=\"toc-title\">\n<h1 id=\"toc-title\">{}</h1>",
        text(
            look.layout
                .toc_page_title
                .as_deref()
                .unwrap_or(words.contents)
        )
    );
    let listed = super::nav::entries(docs, look);
    super::nav::nested_list(&mut o, &listed, |d| {
        // Documents sit side by side under text/.
        let href = d.href.strip_prefix("text/").unwrap_or(&d.href);
        super::nav::link_or_heading(d, href)
    });
    o.push_str("</nav>\n");
    o
}

/// Publisher, rights, identifier, date and a credit line.
pub(super) fn colophon(book: &Book) -> String {
    let info = &book.info;
    let words = locale::words(&info.language);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<section epub:type=\"colophon\" role=\"doc-colophon\" class=\"colophon\" aria-labelledby=\"colophon-title\">\n<h1 id=\"colophon-title\">{}</h1>",
        text(words.colophon)
    );
    let _ = writeln!(o, "<p class=\"book-title\">{}</p>", text(&info.title));
    let authors = join_names(&info.language, info.authors.iter().map(|a| a.name.as_str()));
    let _ = writeln!(o, "<p>{}</p>", text(&authors));
    let field = |o: &mut String, label: &str, value: Option<&str>| {
        if let Some(v) = value {
            let _ = writeln!(
                o,
                "<p><span class=\"label\">{}</span> {}</p>",
                text(label),
                text(v)
            );
        }
    };
    field(&mut o, words.publisher, info.publisher.as_deref());
    field(&mut o, words.published, info.published.as_deref());
    field(&mut o, words.rights, info.rights.as_deref());
    field(&mut o, words.identifier, Some(&info.identifier));
    let _ = writeln!(o, "<p class=\"made-with\">{}</p>", text(words.made_with));
    o.push_str("</section>\n");
    o
}
