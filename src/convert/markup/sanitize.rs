//! The shared HTML -> XHTML sanitiser behind both converters.
//!
//! Input is a tree from the HTML5 parser (`scraper`, which wraps `html5ever` in an arena tree,
//! so walking and dropping a 10,000-deep tree needs no recursion), or the XHTML reader's own
//! light tree of a tidy chapter whose body needs no look around its elements
//! ([`sanitize_light`]: the same build, without scraper's tree made, walked and dropped). We copy the parts we keep
//! into our own small arena ([`tree`]), then run a few iterative passes, one file each:
//!
//! 1. **build** ([`build`]): allow-list of elements ([`policy`]) and attributes ([`attrs`]);
//!    unwrap or remove the rest (what is removed with its content is counted for one warning
//!    per chapter, [`Fragment::removed`]); resolve local images, and `<object>`/`<embed>` of a
//!    local image as an `<img>`; keep Presentation MathML ([`mathml`]) and inline SVG cleaned
//!    like SVG files ([`inline_svg`]); cap the nesting depth. MathML is then repaired to its
//!    schema, and section numbers in headings spaced ([`headings`]).
//! 2. **title** ([`headings`]): take a leading heading (any level) out as the chapter title,
//!    or cut the document into pieces at its headings ([`split`]); then the text-fix stage
//!    runs on the text outside code ([`text`]).
//! 3. **structure** ([`structure`]): heading levels under the chapter's `h1` with no gap, give
//!    list items, table parts, `dt`/`dd` and `figcaption` the parents the schema wants.
//! 4. **content models** ([`content`]): blocks inside phrasing-only elements become `span`,
//!    inline elements wrapping blocks become `div` (the HTML5 parser leaves e.g. `<b><p>` alone).
//! 5. **ids and links** ([`links`], [`notes`], [`tasks`]): every heading gets an id (GitHub's
//!    slug of its text), ids become unique NCNames; `#fragment` links that point nowhere lose
//!    their href (EPUBCheck reports dangling fragments); notes are typed, checkboxes labelled.
//! 6. **serialise** ([`serialize`]) as XHTML with an explicit stack.
//!
//! URLs are judged in [`urls`], `epub:type` and `role` values in [`semantics`].

mod attrs;
mod build;
mod content;
mod headings;
mod inline_svg;
mod links;
mod mathml;
mod notes;
mod policy;
mod semantics;
mod serialize;
mod split;
mod structure;
mod tasks;
mod text;
mod tree;
mod urls;

pub(crate) use build::{is_light, is_light_element};
pub(crate) use headings::slug;
pub(crate) use split::self_href;
pub(crate) use urls::percent_decode;

use std::collections::HashMap;

use scraper::ElementRef;

use super::parse::{Light, NodeId};
use super::{Fragment, ImageResolver, MarkupError, Note};
use tree::{Elem, Kind, Node, Tree};

/// Deepest element nesting written. libxml2-based readers refuse documents deeper than 256;
/// the packager adds three levels and list repair can add one per list level.
pub(crate) const MAX_DEPTH: usize = 120;

/// What the body-walking passes need from the caller.
pub(crate) struct Options<'a> {
    /// Fallback title (HTML `<title>`) when the body does not start with an `<h1>`.
    pub head_title: Option<String>,
    /// Rewrites the text of the body outside code (the text-fix stage); None when it
    /// changes nothing.
    pub text: Option<&'a mut super::TextFixer<'a>>,
    /// Where the source nested too deep, for the warnings that say what was flattened.
    pub deep: Deep<'a>,
    /// What the Markdown renderer put before the ids it wrote (see [`super::ids::marker`]).
    pub marker: Option<&'a str>,
    /// Cut the document into pieces at its headings.
    pub split: Option<super::SplitAt<'a>>,
}

/// What the stages before the sanitiser know about deep nesting in the source.
pub(crate) struct Deep<'a> {
    /// The source line of an element, where known (the parser records the deep ones).
    pub line_of: &'a dyn Fn(NodeId) -> Option<usize>,
    /// Nesting already flattened before parsing (the Markdown renderer does its own), with
    /// the source line where it began, if known.
    pub flattened: Option<Option<usize>>,
    /// The parser closed elements nested past its own limit: the source line of the first,
    /// where known, and how many.
    pub cut: Option<(Option<usize>, usize)>,
}

/// The `epub:type` values of a source's `<body>` the book carries (see
/// [`Fragment::body_types`]).
pub(crate) fn body_types(value: &str) -> Vec<String> {
    semantics::epub_types("body", value).0
}

/// Runs the whole sanitiser over `root`'s children and returns the finished fragment.
pub(crate) fn sanitize(
    root: ElementRef<'_>,
    opts: Options,
    images: &mut dyn ImageResolver,
    warnings: Warnings,
) -> Result<Fragment, MarkupError> {
    let built = build::run(root, &opts.deep, images, warnings)?;
    Ok(finish(built, opts))
}

/// [`sanitize`] of the children of `body` in a light tree (one [`is_light`] accepts).
pub(crate) fn sanitize_light(
    light: &Light<'_>,
    body: usize,
    opts: Options,
    images: &mut dyn ImageResolver,
    warnings: Warnings,
) -> Fragment {
    let built = build::run_light(light, body, &opts.deep, images, warnings);
    finish(built, opts)
}

/// The passes after the build, and the fragment they make.
fn finish(built: build::Built<'_>, opts: Options) -> Fragment {
    let mut warnings = built.warnings;
    let mut tree = Tree {
        nodes: built.nodes,
        title_ids: Vec::new(),
        title_types: None,
        wrapper_types: Vec::new(),
        text_is_xml: true,
    };
    tree.fix_mathml();
    tree.space_section_numbers();
    let cuts = opts.split.map(|at| tree.cut(at.level));
    let title = match cuts {
        Some(_) => None,
        None => tree.take_title(),
    };
    if let Some(fix) = opts.text {
        tree.fix_text(fix);
    }
    let tops: Vec<usize> = cuts
        .as_ref()
        .map_or(vec![0], |cuts| cuts.iter().map(|c| c.node).collect());
    // A chapter whose only heading was taken out as its title has none left to level.
    if tree.has_heading() {
        for top in tops {
            tree.level_headings(top);
        }
    }
    tree.fix_structure();
    tree.fix_content_models();
    let homes = match (&cuts, opts.split) {
        (Some(cuts), Some(at)) => tree.link_pieces(cuts, at.file),
        _ => HashMap::new(),
    };
    let (links, ids) = tree.fix_ids_and_links(opts.marker, &mut warnings);
    let title_types = tree.title_types.take().filter(|_| title.is_some());
    let wrapper_types = std::mem::take(&mut tree.wrapper_types);
    let (body, pieces) = tree.bodies(cuts);
    Fragment {
        title_types,
        title_is_heading: title.is_some(),
        title: title.or(opts.head_title),
        body,
        images: built.image_uses,
        links,
        ids,
        warnings: warnings.finish(),
        removed: built.removed,
        pieces,
        homes,
        site_navigation: built.site_nav,
        unsupported: Vec::new(),
        hidden_letters: 0,
        body_types: wrapper_types,
        stylesheets: Vec::new(),
    }
}

/// Ordered, de-duplicated warnings with repeat counts.
#[derive(Default)]
pub(crate) struct Warnings {
    list: Vec<(Option<usize>, String, usize)>,
    index: HashMap<(Option<usize>, String), usize>,
}

impl Warnings {
    pub(crate) fn add(&mut self, msg: String) {
        self.add_at(None, msg);
    }

    /// A warning about source line `line`, where known.
    pub(crate) fn add_at(&mut self, line: Option<usize>, msg: String) {
        let key = (line, msg);
        if let Some(&i) = self.index.get(&key) {
            if let Some(entry) = self.list.get_mut(i) {
                entry.2 += 1;
            }
            return;
        }
        self.index.insert(key.clone(), self.list.len());
        self.list.push((key.0, key.1, 1));
    }

    pub(crate) fn finish(self) -> Vec<Note> {
        self.list
            .into_iter()
            .map(|(line, m, n)| Note {
                line,
                message: if n > 1 { format!("{m} ({n} times)") } else { m },
            })
            .collect()
    }
}

/// `s` cut to `max` characters, with `…` when cut.
pub(super) fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(src: &str) -> Fragment {
        let f = super::super::markdown_to_xhtml(
            src,
            &mut super::super::test_support::Recorder::default(),
        )
        .expect("converts");
        super::super::test_support::assert_well_formed(&f);
        f
    }

    #[test]
    fn site_navigation_is_left_out_with_one_note() {
        let f = super::super::html_to_xhtml(
            "<body><nav class=\"header\"><a href=\"1.2.html\">Next: 1.2</a></nav><h3>1.1 T</h3>\
             <p>Text.</p><div class=\"navfooter\"><a href=\"x.html\">Prev</a></div>\
             <div role=\"navigation\"><a href=\"u.html\">Up</a></div></body>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("1.1 T"));
        assert_eq!(f.body, "<p>Text.</p>");
        assert!(f.links.is_empty());
        assert_eq!(f.site_navigation.len(), 3);
        // Each named, with its letters for the text ledger.
        let said: Vec<(&str, usize)> = (f.site_navigation.iter())
            .map(|n| (n.text.as_str(), n.letters))
            .collect();
        assert_eq!(said, [("Next: 1.2", 6), ("Prev", 4), ("Up", 2)]);
        assert!(f.removed.is_empty(), "not content the reader loses");
        // Without <nav>: a bar of links to the site's pages, as older Texinfo writes it.
        let f = super::super::html_to_xhtml(
            "<body><div class=\"header\"><p>Next: <a href=\"1.2.html\">1.2</a>, Previous: \
             <a href=\"1.html\">1</a> [<a href=\"index.html\">Contents</a>]</p></div><h3>1.1 T</h3>\
             <p>Next: <a href=\"a.html\">the story</a> and <a href=\"b.html\">more</a>.</p>\
             <p><a href=\"#x\">Up</a> <a href=\"c.html\">Next</a></p></body>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.site_navigation.len(), 1);
        assert_eq!(f.title.as_deref(), Some("1.1 T"));
        assert!(
            f.body.contains("the story") && f.body.contains(">Up<"),
            "{}",
            f.body
        );
    }

    #[test]
    fn a_page_opening_with_links_is_titled_by_its_first_heading_and_numbers_stay_words() {
        // SICP's pages: a "jump to top" arrow and anchors before the heading, the section number
        // and title in spans of their own.
        let f = super::super::html_to_xhtml(
            "<head><title>SICP 2e: 1.1</title></head><body><section>\
             <span class=\"top jump\" title=\"Jump to top\"><a href=\"#pagetop\">⇡</a></span>\
             <a id=\"pagetop\"></a><h3><span class=\"secnum\">1.1</span>\
             <span class=\"sectitle\">The Elements</span></h3><p>Text.</p></section></body>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("1.1 The Elements"));
        assert!(f.title_is_heading);
        // A drop cap is no number; text before the heading keeps the page's <title>.
        let f = super::super::html_to_xhtml(
            "<title>Site</title><h1><span>T</span>he End</h1>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("The End"));
        let f = super::super::html_to_xhtml(
            "<title>Site</title><p>Intro.</p><h1>Late</h1>",
            &mut super::super::test_support::Recorder::default(),
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("Site"));
        assert!(!f.title_is_heading);
    }

    #[test]
    fn every_heading_gets_a_unique_id_clear_of_the_authors() {
        let f = md(
            "# Title\n\n## Usage\n\n## Usage\n\n<p id=\"notes\">x</p>\n\n## Notes\n\n\
             ## Title\n\n## 第二节\n\n[u](#usage-1) [t](#title) [n](#notes-1) [c](#第二节)\n",
        );
        assert!(f.body.contains("<h2 id=\"usage\">Usage</h2>"), "{}", f.body);
        assert!(f.body.contains("<h2 id=\"usage-1\">Usage</h2>"));
        assert!(f.body.contains("<p id=\"notes\">x</p>"));
        assert!(f.body.contains("<h2 id=\"notes-1\">Notes</h2>"));
        // The title's slug is taken by the title: a later heading like it is numbered.
        assert!(f.body.contains("<h2 id=\"title-1\">Title</h2>"));
        assert!(f.body.contains("<h2 id=\"第二节\">第二节</h2>"));
        assert!(f.body.contains("href=\"#usage-1\""));
        assert!(f.body.contains("href=\"#notes-1\""));
        assert!(f.body.contains("href=\"#第二节\""));
        // A link to the heading taken out as the title goes to the chapter's own heading.
        assert!(
            f.body.contains("href=\"#epubforge-chapter-title\""),
            "{}",
            f.body
        );
        assert_eq!(
            f.ids.get("title").map(String::as_str),
            Some("epubforge-chapter-title")
        );
        assert!(
            super::super::test_support::notes(&f).is_empty(),
            "{:?}",
            f.warnings
        );
    }

    #[test]
    fn a_heading_id_of_the_authors_is_kept_and_a_digit_slug_made_valid() {
        let f = md("Intro\n\n<h2 id=\"mine\">Mine</h2>\n\n## 1.2 Two\n\n[a](#mine) [b](#12-two)\n");
        assert!(f.body.contains("<h2 id=\"mine\">Mine</h2>"), "{}", f.body);
        assert!(f.body.contains("<h2 id=\"id-12-two\">1.2 Two</h2>"));
        assert!(f.body.contains("href=\"#id-12-two\""));
    }

    fn html(src: &str) -> Fragment {
        let f =
            super::super::html_to_xhtml(src, &mut super::super::test_support::Recorder::default())
                .expect("converts");
        super::super::test_support::assert_well_formed(&f);
        f
    }

    #[test]
    fn a_pages_own_contents_list_stays_with_its_text() {
        // The chapters of the EPUB 3 specification open with a <nav> of links into the page.
        let f = html(
            "<body><h1>Spec</h1><nav class=\"toc\" id=\"toc\"><p><strong>Table of Contents\
             </strong></p><ol><li><a href=\"#a\">1. A</a></li><li><ol><li><a href=\"#b\">1.1. B\
             </a></li></ol></li></ol></nav><h2 id=\"a\">A</h2><h3 id=\"b\">B</h3></body>",
        );
        assert_eq!(f.site_navigation.len(), 0);
        assert!(
            f.body.starts_with(
                "<nav id=\"toc\" class=\"toc\"><p><strong>Table of Contents</strong></p><ol>\
                 <li><a href=\"#a\">1. A</a></li><li><ol><li><a href=\"#b\">1.1. B</a></li></ol>\
                 </li></ol></nav>"
            ),
            "{}",
            f.body
        );
        assert!(f.removed.is_empty());
        // Its heading is not the chapter's title; where sectioning may not stand, a div.
        let f = html(
            "<nav><h2>Contents</h2><ul><li><a href=\"#x\">X</a></li></ul></nav><h1 id=\"x\">X</h1>\
             <table><tr><th><nav><a href=\"#x\">Up</a></nav></th></tr></table>",
        );
        assert_eq!(f.title, None);
        assert!(f.body.contains("Contents</h2><ul>"), "{}", f.body);
        assert!(
            f.body.contains("<th><div><a href=\"#x\">Up</a></div></th>"),
            "{}",
            f.body
        );
        // Links to other pages make it the site's navigation still.
        let f = html("<nav><a href=\"#top\">Top</a> <a href=\"2.html\">Next</a></nav><p>T</p>");
        assert_eq!((f.site_navigation.len(), f.body.as_str()), (1, "<p>T</p>"));
    }

    #[test]
    fn a_navigation_block_without_a_link_is_text() {
        // calibre left a JSX example as raw HTML (b-calibre-md-es6tutorial): `<nav>` there
        // navigates nowhere, and its words are the author's.
        let f = html(
            "<p>return (</p><nav>\n    <Home/>\n    {\n      do {\n        if (loggedIn) {\n\
             <LogoutButton/>\n        }\n      }\n    }\n  </nav><p>)</p>\
             <div role=\"navigation\">Up <a id=\"x\">here</a></div>\
             <table><tr><td><nav>do it</nav></td></tr></table>",
        );
        assert!(f.site_navigation.is_empty(), "{:?}", f.site_navigation);
        let text = super::super::test_support::body_text(&f);
        for kept in ["do", "loggedIn", "Up", "here", "do it"] {
            assert!(text.contains(kept), "{kept} missing from {}", f.body);
        }
        assert!(f.body.contains("<nav>"), "{}", f.body);
    }

    #[test]
    fn a_books_contents_list_into_other_pages_is_no_link_bar() {
        // Project Gutenberg's EPUBs (ebookmaker) cut the book into files: its CONTENTS block
        // links into the others, one chapter a link, under one label.
        let f = html(
            "<blockquote><div><p class=\"toc\"><big>CONTENTS</big></p>\
             <p class=\"toc\"><a href=\"h-0.html#c1\">Chapter 1</a></p>\
             <p class=\"toc\"><a href=\"h-1.html#c2\">Chapter 2</a></p>\
             <p class=\"toc\"><a href=\"h-1.html#c3\">Chapter 3</a></p></div></blockquote>",
        );
        assert_eq!(f.site_navigation.len(), 0, "{}", f.body);
        assert!(
            f.body.contains("CONTENTS") && f.body.contains("Chapter 3"),
            "{}",
            f.body
        );
        // A bar whose links are each named, before or by their text, is still one.
        let f = html(
            "<div><p>Up: <a href=\"1.html\">1</a> [<a href=\"c.html\">Contents</a>]\
             [<a href=\"i.html\">Index</a>]</p></div><p>T</p>",
        );
        assert_eq!((f.site_navigation.len(), f.body.as_str()), (1, "<p>T</p>"));
    }

    #[test]
    fn an_inline_svgs_local_pictures_are_carried_and_a_lost_one_is_removed_content() {
        // IDPF's sous-le-vent: a full-page picture drawn by an inline SVG's `<image>`.
        let src = "<p>Before</p><svg xmlns=\"http://www.w3.org/2000/svg\" \
                   xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 10 10\">\
                   <image width=\"10\" height=\"10\" xlink:href=\"../Image/img%203.jpg\"/>\
                   <image href=\"../Image/img%203.jpg\"/><image href=\"gone.png\"/>\
                   <image href=\"https://example.com/x.png\"/></svg>\
                   <svg><image href=\"../Image/img-4.jpg\"/></svg>";
        let mut images = super::super::test_support::Recorder {
            fail_on: Some("gone.png".to_string()),
            ..Default::default()
        };
        let f = super::super::html_to_xhtml(src, &mut images).unwrap();
        super::super::test_support::assert_well_formed(&f);
        // Each picture read once, carried as an `<img>`'s is, and drawn from the book.
        assert_eq!(
            images.calls,
            ["../Image/img 3.jpg", "gone.png", "../Image/img-4.jpg"]
        );
        let carried: Vec<(&str, &str)> = (f.images.iter())
            .map(|i| (i.src.as_str(), i.href.as_str()))
            .collect();
        assert_eq!(
            carried,
            [
                ("../Image/img 3.jpg", "../images/../Image/img_3.jpg"),
                ("../Image/img-4.jpg", "../images/../Image/img-4.jpg"),
            ]
        );
        assert_eq!(
            f.body
                .matches("xlink:href=\"../images/../Image/img_3.jpg\"")
                .count(),
            2,
            "{}",
            f.body
        );
        assert!(
            f.body
                .contains("xlink:href=\"../images/../Image/img-4.jpg\"")
        );
        // What cannot be carried goes as removed content (a warning), not as a markup repair.
        assert_eq!(
            f.removed,
            [
                (
                    "<image> of an <svg> with a file beside the SVG (gone.png)".to_string(),
                    1
                ),
                (
                    "<image> of an <svg> with remote href (https://example.com/x.png)".to_string(),
                    1
                ),
            ]
        );
        let notes = super::super::test_support::notes(&f);
        assert!(!notes.iter().any(|n| n.contains("<image>")), "{notes:?}");
    }

    #[test]
    fn text_is_written_escaped_and_a_fixed_texts_forbidden_characters_dropped() {
        // The build keeps only XML characters (the reference's control goes); a text the
        // text-fix stage returns may hold others, which the writing drops.
        let mut fixer = |t: &str, _code: bool| t.contains('x').then(|| t.replace('x', "\u{1}<\r"));
        let f = super::super::html_to_xhtml_fixed(
            "<p>a &amp; b &lt;c&gt; &#1;d\u{FFFE}</p><p>x &amp;</p>",
            &mut super::super::test_support::Recorder::default(),
            Some(&mut fixer),
            None,
        )
        .expect("converts");
        assert_eq!(f.body, "<p>a &amp; b &lt;c&gt; d</p><p>&lt;&#13; &amp;</p>");
        let f =
            html("<p>a &amp; b &lt;c&gt; &#13;d</p><p>长一些的文字，长一些的文字 &amp; 更多</p>");
        assert_eq!(
            f.body,
            "<p>a &amp; b &lt;c&gt; &#13;d</p><p>长一些的文字，长一些的文字 &amp; 更多</p>"
        );
    }

    #[test]
    fn ruby_bases_are_kept_inside_ruby() {
        let f = html(
            "<p><ruby><rb>東京</rb><rp>(</rp><rt>とうきょう</rt><rp>)</rp></ruby>\
             <ruby><rb>漢</rb><rt>かん</rt><rb>字</rb><rt>じ</rt></ruby> <rb>x</rb></p>",
        );
        assert!(
            f.body.contains(
                "<ruby><rb>東京</rb><rp>(</rp><rt>とうきょう</rt><rp>)</rp></ruby>\
                 <ruby><rb>漢</rb><rt>かん</rt><rb>字</rb><rt>じ</rt></ruby> <span>x</span>"
            ),
            "{}",
            f.body
        );
        assert!(
            super::super::test_support::notes(&f).is_empty(),
            "{:?}",
            f.warnings
        );
    }
}
