//! Element policy of the build pass: which HTML elements are kept as they are or under
//! another name, unwrapped (their content kept) or removed with their content; which blocks
//! are a web site's navigation rather than the author's text; and the classes of elements
//! the later passes ask about (phrasing, transparent, void, heading).

use scraper::ElementRef;
use scraper::Node as PNode;

use super::urls::url_scheme;

/// Elements allowed inside phrasing-only content (plus `rb`/`rt`/`rp`, which pass 3 keeps
/// inside `ruby` only).
pub(super) fn is_phrasing(name: &str) -> bool {
    matches!(
        name,
        "a" | "abbr"
            | "b"
            | "bdi"
            | "bdo"
            | "br"
            | "cite"
            | "code"
            | "del"
            | "dfn"
            | "em"
            | "i"
            | "img"
            | "input"
            | "ins"
            | "kbd"
            | "mark"
            | "math"
            | "q"
            | "ruby"
            | "rb"
            | "rt"
            | "rp"
            | "s"
            | "samp"
            | "small"
            | "span"
            | "strong"
            | "sub"
            | "sup"
            | "time"
            | "u"
            | "var"
            | "wbr"
    )
}

/// Elements whose content model is their parent's.
pub(super) fn is_transparent(name: &str) -> bool {
    matches!(name, "a" | "ins" | "del")
}

pub(super) fn is_heading(name: &str) -> bool {
    heading_level(name).is_some()
}

pub(super) const HEADINGS: [&str; 6] = ["h1", "h2", "h3", "h4", "h5", "h6"];

/// 1 to 6 for `h1` to `h6`.
pub(super) fn heading_level(name: &str) -> Option<usize> {
    match name.as_bytes() {
        [b'h', d @ b'1'..=b'6'] => Some(usize::from(d - b'0')),
        _ => None,
    }
}

pub(super) fn is_void(name: &str) -> bool {
    matches!(name, "br" | "hr" | "img" | "input" | "wbr" | "col")
}

#[derive(Clone, Copy)]
pub(super) enum Action {
    Keep(&'static str),
    Unwrap,
    /// Drop the element and its content; `true` adds a warning.
    Remove(bool),
    Img,
    /// `<object>`, `<embed>`: an image, or removed.
    Embedded,
    /// `<input>`: a checkbox, or removed.
    Input,
    /// `<audio>`, `<video>`: removed, their fallback content (what a reader without them
    /// shows) kept in their place.
    Media,
}

/// The elements kept as they are, in sorted order (for a binary search).
const KEPT: [&str; 59] = [
    "a",
    "address",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "cite",
    "col",
    "colgroup",
    "dd",
    "del",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "ins",
    "kbd",
    "li",
    "mark",
    "nav",
    "ol",
    "p",
    "q",
    "rb",
    "rp",
    "rt",
    "ruby",
    "samp",
    "section",
    "small",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "time",
    "tr",
    "u",
    "var",
    "wbr",
];

pub(super) fn classify(local: &str) -> Action {
    use Action::*;
    if let Ok(i) = KEPT.binary_search(&local) {
        return Keep(KEPT[i]);
    }
    match local {
        "abbr" | "acronym" => Keep("abbr"),
        "code" | "tt" => Keep("code"),
        "pre" | "listing" | "xmp" | "plaintext" => Keep("pre"),
        "s" | "strike" => Keep("s"),
        "span" | "big" | "blink" | "nobr" | "label" | "button" | "output" | "meter"
        | "progress" | "data" => Keep("span"),
        "ul" | "dir" | "menu" => Keep("ul"),
        // Sectioning and interactive wrappers whose content-model rules (no nested header,
        // one main, summary first in details, ...) we do not want to police: a div is always valid.
        "center" | "main" | "header" | "footer" | "hgroup" | "search" | "dialog" | "details"
        | "summary" | "fieldset" | "legend" | "form" | "marquee" | "multicol" => Keep("div"),
        "img" | "image" => Img,
        "object" | "embed" => Embedded,
        "input" => Input,
        "font" | "html" | "body" | "picture" | "canvas" | "map" | "slot" => Unwrap,
        "script" | "style" | "iframe" | "applet" | "noscript" | "noembed" | "template"
        | "frame" | "frameset" | "noframes" | "link" | "select" | "textarea" | "datalist"
        | "keygen" | "title" => Remove(true),
        "audio" | "video" => Media,
        "meta" | "base" | "basefont" | "head" | "area" | "source" | "track" | "param"
        | "option" | "optgroup" | "spacer" => Remove(false),
        _ => Unwrap,
    }
}

/// A web page's navigation: a `<nav>` (SICP's `Next: 1.2, Prev: Chapter 1, Up: …` bars), an
/// element with `role="navigation"`, or DocBook's `navheader`/`navfooter` blocks. Links to the
/// site's other pages mean nothing in a book, whose reader pages on and has a contents list.
/// A page's own contents list (a `<nav>` whose links all lead into the page, as the chapters
/// of the EPUB 3 specification open) is the author's text, and stays; so is a block without a
/// link (a JSX example's `<nav> <Home/> …` left as raw HTML by calibre), which navigates
/// nowhere.
pub(super) fn is_site_navigation(el: ElementRef<'_>) -> bool {
    let e = el.value();
    // Read off the attributes as written (no name interned to look one up).
    let attr = |name: &'static str| e.attrs().filter(move |(k, _)| *k == name).map(|(_, v)| v);
    let marked = ((e.name() == "nav" || attr("role").any(|r| r == "navigation"))
        && !is_page_contents(el))
        || attr("class")
            .flat_map(str::split_ascii_whitespace)
            .any(|c| matches!(c, "navheader" | "navfooter"));
    (marked && has_link(el)) || is_link_bar(el)
}

/// Whether a link (an `<a>` with an `href`) is inside `el`.
fn has_link(el: ElementRef<'_>) -> bool {
    el.descendants().any(|n| match n.value() {
        PNode::Element(e) => e.name() == "a" && e.attr("href").is_some(),
        _ => false,
    })
}

/// Whether a navigation block lists places in its own page: it has links, and every one is
/// a `#fragment`.
fn is_page_contents(el: ElementRef<'_>) -> bool {
    let mut hrefs = el.descendants().filter_map(|n| match n.value() {
        PNode::Element(e) if e.name() == "a" => e.attr("href"),
        _ => None,
    });
    let mut any = false;
    hrefs.all(|h| {
        any = true;
        h.trim_start().starts_with('#')
    }) && any
}

/// Words of a bar of links between a site's pages (`Next: 1.2, Previous: 1, Up: 1
/// [Contents][Index]`), outside its links.
const NAV_WORDS: [&str; 10] = [
    "next", "previous", "prev", "up", "home", "contents", "index", "top", "back", "forward",
];

/// A block of links to a site's other pages and nothing else but the words that name them
/// ([`NAV_WORDS`]) and punctuation: what a generated page repeats at its top and bottom when
/// it has no `<nav>` (Texinfo's older `<div class="header">`). At least two links, one of the
/// words, no picture, heading or formula; and each link named by one of the words, before it
/// (`Next: <a>1.2</a>`) or as its text (`[<a>Contents</a>]`). A book's contents list under a
/// `CONTENTS` label (Project Gutenberg's, one link per chapter) names one link at most: it is
/// the author's text, and stays.
fn is_link_bar(el: ElementRef<'_>) -> bool {
    if !matches!(
        el.value().name(),
        "p" | "div" | "header" | "footer" | "table" | "ul" | "center"
    ) {
        return false;
    }
    // At least two links or none of the rest: most paragraphs have none (most hold no
    // element at all), and their text is then not read word by word.
    if !el.children().any(|c| c.value().is_element()) {
        return false;
    }
    let anchors = el.descendants().filter(|n| match n.value() {
        PNode::Element(e) => e.name() == "a",
        _ => false,
    });
    if anchors.take(2).count() < 2 {
        return false;
    }
    let (mut links, mut labels, mut named) = (0, 0, false);
    for node in el.descendants() {
        match node.value() {
            PNode::Element(e) if e.name() == "a" => {
                let other_page = e
                    .attr("href")
                    .is_some_and(|h| !h.starts_with('#') && url_scheme(h).is_none());
                if !other_page {
                    return false;
                }
                links += 1;
                let text: String =
                    ElementRef::wrap(node).map_or(String::new(), |a| a.text().collect());
                labels += usize::from(is_nav_word(&text));
            }
            PNode::Element(e)
                if is_heading(e.name()) || matches!(e.name(), "img" | "svg" | "math") =>
            {
                return false;
            }
            PNode::Text(t)
                if !node
                    .ancestors()
                    .any(|a| ElementRef::wrap(a).is_some_and(|a| a.value().name() == "a")) =>
            {
                for word in t
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    if !is_nav_word(word) {
                        return false;
                    }
                    named = true;
                    labels += 1;
                }
            }
            _ => {}
        }
    }
    links >= 2 && named && labels >= links
}

/// Whether `text` (outside punctuation and spaces) is one of [`NAV_WORDS`].
fn is_nav_word(text: &str) -> bool {
    let word = text.trim_matches(|c: char| !c.is_alphanumeric());
    // Each character lowers to one or more: a word of more characters than the longest of
    // the words is none of them (and a paragraph's text is not lowered whole to say so).
    if word.chars().nth(NAV_WORD_MAX_CHARS).is_some() {
        return false;
    }
    NAV_WORDS.contains(&word.to_lowercase().as_str())
}

/// The length of the longest of [`NAV_WORDS`], in characters.
const NAV_WORD_MAX_CHARS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nav_words_are_known_in_any_case_and_longer_words_are_not() {
        assert!(
            NAV_WORDS
                .iter()
                .all(|w| w.chars().count() <= NAV_WORD_MAX_CHARS)
        );
        assert!(
            NAV_WORDS
                .iter()
                .any(|w| w.chars().count() == NAV_WORD_MAX_CHARS)
        );
        assert!(is_nav_word("[Previous]") && is_nav_word("NEXT:"));
        // The Kelvin sign lowers to an ASCII k.
        assert!(is_nav_word("Bac\u{212A}"));
        assert!(!is_nav_word("Previously") && !is_nav_word("第一章的正文很长很长"));
    }

    #[test]
    fn kept_elements_are_sorted_for_the_binary_search() {
        assert!(KEPT.windows(2).all(|w| w[0] < w[1]));
        assert!(matches!(classify("blockquote"), Action::Keep("blockquote")));
        assert!(matches!(classify("tt"), Action::Keep("code")));
    }
}
