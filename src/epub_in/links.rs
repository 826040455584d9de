//! Links in an unpacked EPUB's documents, rewritten where a file moves (`init --markdown`
//! renames a chapter it rewrites as Markdown).

/// A document's `href="…"` values passed through `link` (each value replaced where it is
/// written as an attribute).
pub(crate) fn relink(text: &str, link: &dyn Fn(&str) -> String) -> String {
    let html = scraper::Html::parse_document(text);
    let mut out = text.to_string();
    let mut seen = std::collections::HashSet::new();
    for e in html
        .root_element()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
    {
        let Some(href) = e.value().attr("href") else {
            continue;
        };
        let new = link(href);
        if new != href && seen.insert(href.to_string()) {
            let written = crate::xml::escape_attr(href);
            let new = crate::xml::escape_attr(&new);
            for q in ['"', '\''] {
                out = out.replace(
                    &format!("href={q}{written}{q}"),
                    &format!("href={q}{new}{q}"),
                );
            }
        }
    }
    out
}
