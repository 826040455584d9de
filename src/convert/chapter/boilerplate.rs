//! Project Gutenberg's header and licence, taken out of a chapter file (text or HTML, whole
//! or cut at its headings) for a page of their own after the book.
//!
//! Apart because three readings of a file need it (the conversion, `init`'s heading count and
//! the volumes a split finds), and each must read the file without the same boilerplate.

use std::borrow::Cow;

use crate::book::{Chapter, Node};
use crate::convert::{self, SourceKind};

/// A text chapter with Project Gutenberg's conventions read: its header and licence as a page
/// of their own to follow it, its illustration blocks on one line each.
pub(super) fn text<'a>(
    text: &'a str,
    kind: SourceKind,
    layout: &crate::project::Layout,
) -> (Cow<'a, str>, Option<Node>) {
    if kind != SourceKind::Text {
        return (Cow::Borrowed(text), None);
    }
    let Some(g) = convert::gutenberg::detach(text) else {
        return (convert::gutenberg::illustrations(text), None);
    };
    let body = convert::convert_text(&g.boilerplate, false).body;
    let page = page(g.licence, body, layout);
    let text = convert::gutenberg::illustrations(&g.text).into_owned();
    (Cow::Owned(text), Some(page))
}

/// An HTML chapter's Project Gutenberg header and licence blocks, taken out of its body for a
/// page of their own; its title, when it is the `<title>` PG gives its pages (`The Project
/// Gutenberg eBook of Pride and Prejudice, by Jane Austen`, also in copies without the header),
/// made the book's title.
pub(super) fn html(
    converted: &mut convert::Converted,
    layout: &crate::project::Layout,
) -> Option<Node> {
    title(converted);
    let g = convert::gutenberg::detach_html(&converted.body)?;
    converted.body = g.text;
    Some(page(g.licence, g.boilerplate, layout))
}

/// Makes the document's title the book's when it is the `<title>` Project Gutenberg gives its
/// pages (`The Project Gutenberg eBook of Pride and Prejudice, by Jane Austen`).
pub(super) fn title(converted: &mut convert::Converted) {
    if let Some(title) = converted
        .title
        .as_deref()
        .and_then(convert::gutenberg::book_title)
    {
        converted.title = Some(title);
    }
}

/// The page that holds a Project Gutenberg header and licence.
pub(super) fn page(licence: bool, body: String, layout: &crate::project::Layout) -> Node {
    let title = if licence {
        "The Project Gutenberg License"
    } else {
        "Project Gutenberg"
    };
    Node::Chapter(Chapter::new(title.to_string(), body, layout))
}

/// The Project Gutenberg header and licence of an HTML file cut at its headings, found in the
/// whole file ([`convert::gutenberg::detach_pieces`]), taken out for a page of their own; the
/// document's title, when it is the `<title>` PG gives its pages, made the book's title.
pub(super) fn pieces(
    converted: &mut convert::Converted,
    layout: &crate::project::Layout,
) -> Option<Node> {
    title(converted);
    let (boilerplate, licence) =
        convert::gutenberg::detach_pieces(&mut converted.pieces, &mut converted.homes)?;
    Some(page(licence, boilerplate, layout))
}
