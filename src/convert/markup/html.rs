//! HTML chapters (`.html`, `.htm`, `.xhtml`) -> XHTML body fragment.
//!
//! The source is parsed as a whole document with the HTML5 parser (`scraper` over
//! `html5ever`: the same error recovery browsers use, so unclosed tags, stray end tags and
//! entities come out the way a reader of the page saw them). Only the body is kept; the head
//! supplies a fallback title and warnings for the styles and scripts it loses. The body then
//! goes through the shared sanitiser.
//!
//! A chapter written as tidy XHTML whose body holds no link, picture, embedded object, form
//! control or `<time>` (most of a novel's) is read into the XHTML reader's light tree instead
//! ([`LightPage`]), the same nodes without scraper's tree: what a fix pays for each chapter.

use scraper::ElementRef;

use super::parse::{Light, NodeId, parse_document, parse_light};
use super::sanitize::{
    Deep, MAX_DEPTH, Options, Warnings, body_types, is_light, is_light_element, sanitize,
    sanitize_light,
};
use super::{Fragment, ImageResolver, MarkupError, SplitAt, TextFixer};

/// Converts an HTML document (or a bare HTML snippet) to an XHTML body fragment.
///
/// `title` is the body's opening heading, of any level (removed from the body), or else the
/// head's `<title>`.
/// Other headings move one level down. Fails only when the resolver rejects a local image.
#[cfg(test)]
pub fn html_to_xhtml(src: &str, images: &mut dyn ImageResolver) -> Result<Fragment, MarkupError> {
    html_to_xhtml_fixed(src, images, None, None)
}

/// [`html_to_xhtml`], with the text of the body (outside code) rewritten by `text`, and the
/// document cut into pieces at its headings when `split` says where.
pub fn html_to_xhtml_fixed<'a>(
    src: &str,
    images: &mut dyn ImageResolver,
    text: Option<&'a mut TextFixer<'a>>,
    split: Option<SplitAt<'_>>,
) -> Result<Fragment, MarkupError> {
    if let Some(light) = parse_light(src, MAX_DEPTH as u32, is_light_element)
        && let Some(page) = LightPage::read(&light)
    {
        return Ok(light_fragment(&light, page, images, text, split));
    }
    let parsed = parse_document(src, MAX_DEPTH as u32);
    let line_of = |node: NodeId| {
        let line = parsed.lines.get(&node)?;
        usize::try_from(*line).ok()
    };
    let mut warnings = Warnings::default();
    let html = parsed.html.root_element();
    let mut head_title = None;
    let mut stylesheets = Vec::new();
    let mut body = None;
    for child in html.children().filter_map(ElementRef::wrap) {
        match child.value().name() {
            "head" => head_title = read_head(child, &mut stylesheets, &mut warnings),
            "body" if body.is_none() => body = Some(child),
            "frameset" => warnings.add("removed <frameset> element".to_string()),
            _ => {}
        }
    }
    match body {
        Some(body) => {
            let deep = Deep {
                line_of: &line_of,
                flattened: None,
                cut: parsed
                    .cut
                    .map(|(line, count)| (usize::try_from(line).ok(), count)),
            };
            let opts = Options {
                head_title,
                deep,
                marker: None,
                text: text.map(|t| t as &mut TextFixer<'_>),
                split,
            };
            let types = body
                .value()
                .attr("epub:type")
                .map(body_types)
                .unwrap_or_default();
            sanitize(body, opts, images, warnings).map(|f| with_body(f, types, stylesheets))
        }
        None => {
            warnings.add("document has no body".to_string());
            Ok(Fragment {
                title: head_title,
                stylesheets,
                warnings: warnings.finish(),
                ..Fragment::default()
            })
        }
    }
}

/// `f` with the body's own types (`types`) and the stylesheets its head links.
fn with_body(f: Fragment, mut types: Vec<String>, stylesheets: Vec<String>) -> Fragment {
    // The body's own types first, then those of the section that is the whole body, which
    // the chapter's section takes with its heading.
    for t in &f.body_types {
        if !types.contains(t) {
            types.push(t.clone());
        }
    }
    Fragment {
        body_types: types,
        stylesheets,
        ..f
    }
}

/// What the head of a page read into a light tree gives, and where its body is.
struct LightPage {
    head_title: Option<String>,
    stylesheets: Vec<String>,
    warnings: Warnings,
    body: usize,
}

impl LightPage {
    /// The page's head read as [`read_head`] reads it; None unless it has a body (one the
    /// light build takes, [`is_light`]: its reading, given [`is_light_element`], stopped at
    /// any element it does not).
    fn read(light: &Light<'_>) -> Option<LightPage> {
        let html = light.children(0).find(|&c| light.element(c).is_some())?;
        let mut page = LightPage {
            head_title: None,
            stylesheets: Vec::new(),
            warnings: Warnings::default(),
            body: 0,
        };
        for child in light.children(html) {
            match light.element(child).map(|(name, _)| &**name) {
                Some("head") => page.read_head(light, child),
                Some("body") if page.body == 0 => page.body = child,
                Some("frameset") => return None,
                _ => {}
            }
        }
        // Its reading stopped at any element of the body the light build does not take.
        debug_assert!(page.body == 0 || is_light(light, page.body));
        (page.body != 0).then_some(page)
    }

    fn read_head(&mut self, light: &Light<'_>, head: usize) {
        let mut stack = vec![head];
        while let Some(i) = stack.pop() {
            let at = stack.len();
            stack.extend(light.children(i));
            if let Some(added) = stack.get_mut(at..) {
                added.reverse();
            }
            let Some((name, attrs)) = light.element(i).filter(|_| i != head) else {
                continue;
            };
            let attr = |key: &str| {
                (attrs.iter())
                    .find(|a| &*a.name.local == key)
                    .map(|a| &*a.value)
            };
            match &**name {
                "title" if self.head_title.is_none() => {
                    let t = one_line(&light.text_of(i));
                    if !t.is_empty() {
                        self.head_title = Some(t);
                    }
                }
                "link" if attr("rel").is_some_and(names_stylesheet) => {
                    if let Some(href) = attr("href").map(str::trim) {
                        self.stylesheets.push(href.to_string());
                    }
                }
                name @ ("script" | "style" | "link") => {
                    self.warnings.add(format!("removed <{name}> element"));
                }
                _ => {}
            }
        }
    }
}

/// Whether [`html_to_xhtml_fixed`] converts `src` from a light tree.
#[cfg(test)]
pub(crate) fn takes_light(src: &str) -> bool {
    parse_light(src, MAX_DEPTH as u32, is_light_element)
        .is_some_and(|light| LightPage::read(&light).is_some())
}

/// [`html_to_xhtml_fixed`] of a page read into a light tree.
fn light_fragment<'a>(
    light: &Light<'_>,
    page: LightPage,
    images: &mut dyn ImageResolver,
    text: Option<&'a mut TextFixer<'a>>,
    split: Option<SplitAt<'_>>,
) -> Fragment {
    let opts = Options {
        head_title: page.head_title,
        deep: Deep {
            line_of: &|_| None,
            flattened: None,
            cut: None,
        },
        marker: None,
        text: text.map(|t| t as &mut TextFixer<'_>),
        split,
    };
    let types = light
        .element(page.body)
        .and_then(|(_, attrs)| attrs.iter().find(|a| &*a.name.local == "epub:type"))
        .map(|a| body_types(&a.value))
        .unwrap_or_default();
    let f = sanitize_light(light, page.body, opts, images, page.warnings);
    with_body(f, types, page.stylesheets)
}

/// What an HTML document says about itself: the `<title>`, its first `<h1>`, the authors of
/// its `<meta name="author">` / `<meta name="dc.creator">` and the language of `<html lang>`
/// (or `xml:lang`). What `init` reads from a book that is one HTML file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentAbout {
    /// The head's `<title>`, its spaces collapsed.
    pub title: Option<String>,
    /// The text of the body's first `<h1>`.
    pub h1: Option<String>,
    /// The authors named by `meta` elements, in order, each once.
    pub authors: Vec<String>,
    /// The root element's `lang` or `xml:lang`, as written.
    pub language: Option<String>,
}

/// Reads [`DocumentAbout`] from an HTML document, parsed as the converter parses it.
pub fn document_about(src: &str) -> DocumentAbout {
    let parsed = parse_document(src, MAX_DEPTH as u32);
    let html = parsed.html.root_element();
    let attr = |el: ElementRef<'_>, name: &str| {
        el.value()
            .attrs()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| one_line(v))
            .filter(|v| !v.is_empty())
    };
    let mut about = DocumentAbout {
        language: attr(html, "lang").or_else(|| attr(html, "xml:lang")),
        ..DocumentAbout::default()
    };
    // An SVG or MathML element of the same name is not the document's.
    let elements = html.descendants().filter_map(ElementRef::wrap);
    for el in elements.filter(|e| e.value().name.ns == html5ever::ns!(html)) {
        match el.value().name() {
            "title" if about.title.is_none() => {
                about.title =
                    Some(one_line(&el.text().collect::<String>())).filter(|t| !t.is_empty());
            }
            "h1" if about.h1.is_none() => {
                about.h1 = Some(one_line(&el.text().collect::<String>())).filter(|t| !t.is_empty());
            }
            "meta" => {
                let named = attr(el, "name").map(|n| n.to_ascii_lowercase());
                if matches!(named.as_deref(), Some("author" | "dc.creator"))
                    && let Some(who) = attr(el, "content")
                    && !about.authors.contains(&who)
                {
                    about.authors.push(who);
                }
            }
            _ => {}
        }
    }
    about
}

/// Text on one line: runs of white space made one space, characters XML does not allow left out.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match crate::xml::only_xml_chars(word) {
            true => out.push_str(word),
            false => out.extend(word.chars().filter(|&c| super::is_xml_char(c))),
        }
    }
    out
}

/// Returns the `<title>` text, gathers the stylesheets the head links (the book links its
/// own: [`stylesheets_not_carried`] says which of these it lacks) and warns about other head
/// content that will not reach the book.
fn read_head(
    head: ElementRef<'_>,
    stylesheets: &mut Vec<String>,
    warnings: &mut Warnings,
) -> Option<String> {
    let mut title = None;
    for el in head.descendants().filter_map(ElementRef::wrap) {
        match el.value().name() {
            "title" if title.is_none() => {
                let t = one_line(&el.text().collect::<String>());
                if !t.is_empty() {
                    title = Some(t);
                }
            }
            "link" if is_stylesheet(el) => {
                if let Some(href) = el.value().attr("href").map(str::trim) {
                    stylesheets.push(href.to_string());
                }
            }
            name @ ("script" | "style" | "link") => {
                warnings.add(format!("removed <{name}> element"));
            }
            _ => {}
        }
    }
    title
}

/// Whether a `<link>` links a stylesheet (`rel="stylesheet"`, any case, among other words).
fn is_stylesheet(link: ElementRef<'_>) -> bool {
    link.value().attr("rel").is_some_and(names_stylesheet)
}

/// Whether a `rel` value names a stylesheet (among other words, in any case).
fn names_stylesheet(rel: &str) -> bool {
    rel.split_ascii_whitespace()
        .any(|w| w.eq_ignore_ascii_case("stylesheet"))
}

/// The stylesheets an HTML chapter at `chapter` links (`hrefs`, as written) that are not among
/// the book's own (`css`, `[style] css`, which `init` fills from an EPUB source tree's
/// manifest): what its look loses. A link to one the book carries loses nothing, and says
/// nothing; a remote one is never carried.
pub fn stylesheets_not_carried(
    chapter: &std::path::Path,
    hrefs: &[String],
    css: &[std::path::PathBuf],
) -> Vec<String> {
    let dir = chapter.parent().unwrap_or(std::path::Path::new(""));
    let carried: Vec<_> = css.iter().map(|c| lexical(c)).collect();
    hrefs
        .iter()
        .filter(|href| {
            let path = href.split(['#', '?']).next().unwrap_or_default();
            let local = !path.is_empty() && !path.contains(':') && !path.starts_with('/');
            let decoded = super::percent_decode(path);
            !(local && carried.contains(&lexical(&dir.join(&decoded))))
        })
        .cloned()
        .collect()
}

/// `path` with its `.` and `..` steps taken (without asking the file system); `path` itself
/// when it has none (paths compare by their components, which it then has already).
fn lexical(path: &std::path::Path) -> std::borrow::Cow<'_, std::path::Path> {
    use std::path::Component;
    let step = |c: &Component<'_>| matches!(c, Component::CurDir | Component::ParentDir);
    if !path.components().any(|c| step(&c)) {
        return path.into();
    }
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::markup::test_support::*;

    fn convert(src: &str) -> Fragment {
        let f = html_to_xhtml(src, &mut Recorder::default()).expect("converts");
        assert_well_formed(&f);
        f
    }

    #[test]
    fn epub_type_and_role_values_of_known_vocabularies_survive_and_others_are_counted() {
        let f = convert(
            "<body><section epub:type=\"chapter\" role=\"doc-chapter\"><h2>I</h2>\
             <p><abbr epub:type=\"z3998:name-title\">Mr.</abbr> <i epub:type=\"se:name.vessel.ship\">Nautilus</i> \
             <b epub:type=\"ex:name.vessel.ship\">X</b> <i epub:type=\"ex:name.vessel.ship\">Y</i></p>\
             <footer role=\"presentation\"><p epub:type=\"z3998:signature\">Jane</p></footer></section></body>",
        );
        assert!(
            f.body
                .contains("<section epub:type=\"chapter\" role=\"doc-chapter\""),
            "{}",
            f.body
        );
        assert!(
            f.body
                .contains("<abbr epub:type=\"z3998:name-title\">Mr.</abbr>"),
            "{}",
            f.body
        );
        assert!(
            f.body
                .contains("<div role=\"presentation\"><p epub:type=\"z3998:signature\">"),
            "{}",
            f.body
        );
        // Standard Ebooks' own vocabulary stays (the document declares it); another drops.
        assert!(
            f.body
                .contains("<i epub:type=\"se:name.vessel.ship\">Nautilus</i>"),
            "{}",
            f.body
        );
        assert!(f.body.contains("<b>X</b>"), "{}", f.body);
        let warned: Vec<&str> = f.warnings.iter().map(|n| n.message.as_str()).collect();
        assert!(
            warned
                .iter()
                .any(|w| w.starts_with("dropped 2 epub:type/role value(s)")
                    && w.contains("epub:type=\"ex:name.vessel.ship\" (2)")),
            "{warned:?}"
        );
    }

    #[test]
    fn the_body_says_where_the_document_stands_in_the_book() {
        let f = convert(
            "<html><body epub:type=\"backmatter z3998:non-fiction ex:x\"><p>Notes.</p></body></html>",
        );
        assert_eq!(f.body_types, ["backmatter", "z3998:non-fiction"]);
        let f = convert(
            "<body><section><h2 epub:type=\"z3998:ordinal z3998:roman\">IV</h2><p>x</p></section></body>",
        );
        assert_eq!(f.title.as_deref(), Some("IV"));
        assert_eq!(f.title_types.as_deref(), Some("z3998:ordinal z3998:roman"));
    }

    /// Standard Ebooks' title page hides its heading (its picture shows the title) with
    /// `section[epub|type~="titlepage"] h1`: the chapter's own section must say `titlepage`.
    #[test]
    fn the_section_that_is_the_whole_body_gives_its_types_with_its_heading() {
        let f = convert(
            "<body epub:type=\"frontmatter\">\n<section epub:type=\"titlepage\" id=\"t\">\
             <h1 epub:type=\"title\">A Book</h1><p>By Ann.</p><img alt=\"\" src=\"t.svg\"/></section>\n</body>",
        );
        assert_eq!(f.title.as_deref(), Some("A Book"));
        assert_eq!(f.body_types, ["frontmatter", "titlepage"]);
        // A section among others is not the document's.
        let f = convert(
            "<body><section epub:type=\"titlepage\"><h1>A</h1></section><p>more</p></body>",
        );
        assert!(f.body_types.is_empty(), "{:?}", f.body_types);
    }

    #[test]
    fn stylesheet_links_are_gathered_and_only_those_the_book_lacks_are_named() {
        let f = convert(
            "<html><head><link href=\"../css/core.css\" rel=\"stylesheet\" type=\"text/css\"/>\
             <link rel=\"Alternate StyleSheet\" href=\"../css/se.css\"/><link rel=\"icon\" href=\"i.png\"/>\
             </head><body><p>x</p></body></html>",
        );
        assert_eq!(f.stylesheets, ["../css/core.css", "../css/se.css"]);
        let warned: Vec<&str> = f.warnings.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(warned, ["removed <link> element"]);
        let chapter = std::path::Path::new("/b/src/epub/text/one.xhtml");
        let css = [std::path::PathBuf::from("/b/src/epub/css/core.css")];
        let lost = stylesheets_not_carried(
            chapter,
            &[
                "../css/core.css".to_string(),
                "./../css/se.css".to_string(),
                "https://x.org/a.css".to_string(),
            ],
            &css,
        );
        assert_eq!(lost, ["./../css/se.css", "https://x.org/a.css"]);
    }

    #[test]
    fn time_elements_keep_their_datetime_and_a_bare_year_gets_one() {
        let f = convert(
            "<p><time datetime=\"2014-05-25T00:00:00Z\">May 25</time>, <time>1813</time>, \
             <time>last spring</time>, <time datetime=\"soon\">x</time></p>",
        );
        assert_eq!(
            f.body,
            "<p><time datetime=\"2014-05-25T00:00:00Z\">May 25</time>, <time datetime=\"1813\">1813</time>, \
             <span>last spring</span>, <span>x</span></p>"
        );
    }

    #[test]
    fn named_anchors_become_ids_and_links_to_them_keep_working() {
        let f = convert(
            "<p><a href=\"#sec2\">See below</a>.</p><p><a name=\"sec2\"></a>Here.</p>\
             <p><a name=\"both\" id=\"own\">x</a> <a href=\"#own\">y</a></p>",
        );
        assert_eq!(
            f.body,
            "<p><a href=\"#sec2\">See below</a>.</p><p><a id=\"sec2\"></a>Here.</p>\
             <p><a id=\"own\">x</a> <a href=\"#own\">y</a></p>"
        );
    }

    #[test]
    fn a_meta_charset_does_not_end_the_document() {
        let f = convert(
            "<html><head><meta charset=\"utf-8\"><title>T</title></head><body><p>One</p></body></html>",
        );
        assert_eq!(f.body, "<p>One</p>");
    }

    #[test]
    fn broken_markup_is_closed_and_voids_self_close() {
        let f = convert("<p>one<br>two<p>three <b>bold <i>both</b> after<img src=a.png>");
        assert_eq!(
            f.body,
            "<p>one<br/>two</p><p>three <b>bold <i>both</i></b><i> after<img src=\"../images/a.png\" alt=\"a\"/></i></p>"
        );
    }

    #[test]
    fn entities_become_characters_and_markup_chars_are_escaped() {
        let f = convert("<p>a&nbsp;b&mdash;c &amp; &lt;tag&gt; &quot;q&quot; &#169; &bogus;</p>");
        assert_eq!(
            f.body,
            "<p>a\u{A0}b\u{2014}c &amp; &lt;tag&gt; \"q\" \u{A9} &amp;bogus;</p>"
        );
    }

    #[test]
    fn scripts_handlers_and_javascript_urls_are_removed_with_warnings() {
        let f = convert(
            "<html><head><script>h()</script><style>p{}</style></head><body>\
             <p onclick=\"evil()\">x<script>alert(1)</script></p>\
             <a href=\"javascript:alert(2)\">link</a><iframe src=\"x\"></iframe></body></html>",
        );
        assert_eq!(f.body, "<p>x</p><a>link</a>");
        assert_eq!(
            f.removed,
            [("<script>".to_string(), 1), ("<iframe>".to_string(), 1)]
        );
        for w in [
            "removed <script> element",
            "removed <style> element",
            "removed event-handler attribute onclick",
            "removed javascript: URL",
        ] {
            assert!(
                notes(&f).iter().any(|x| x == w),
                "missing {w:?} in {:?}",
                notes(&f)
            );
        }
    }

    #[test]
    fn word_html_junk_is_unwrapped_and_attributes_dropped() {
        let src = r#"<html xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="urn:x">
<head><meta name=Generator content="Microsoft Word 15"><title>Word Doc</title>
<!--[if gte mso 9]><xml><o:DocumentProperties></o:DocumentProperties></xml><![endif]--></head>
<body lang=EN-US style='tab-interval:36.0pt'>
<p class=MsoNormal align=center style='margin:0cm;mso-line-height:1'><span lang=EN-GB style='font-size:12pt'><font face="Times">Hello<o:p></o:p></font></span></p>
<center><p class=MsoNormal>Centred<![if !supportLists]>x<![endif]></p></center>
</body></html>"#;
        let f = convert(src);
        assert_eq!(f.title.as_deref(), Some("Word Doc"));
        assert!(!f.body.contains("o:p") && !f.body.contains("font") && !f.body.contains("mso"));
        assert!(f.body.contains(
            "<p class=\"MsoNormal\" style=\"text-align: center\"><span lang=\"EN-GB\">Hello</span></p>"
        ), "{}", f.body);
        assert!(
            f.body
                .contains("<div><p class=\"MsoNormal\">Centredx</p></div>"),
            "{}",
            f.body
        );
        assert!(
            notes(&f)
                .iter()
                .any(|w| w == "unwrapped unknown element <o:p>")
        );
    }

    #[test]
    fn deep_nesting_is_flattened_without_overflow() {
        let src = format!(
            "<p>a</p>\n{}deep{}",
            "<div>".repeat(10_000),
            "</div>".repeat(10_000)
        );
        let f = convert(&src);
        assert_eq!(body_text(&f), "a\ndeep");
        assert_eq!(f.body.matches("<div>").count(), 120);
        assert_eq!(
            notes(&f),
            ["line 2: flattened elements nested deeper than 120 levels"]
        );
        let spans = format!("<p>{}x", "<b><i>".repeat(5_000));
        convert(&spans);
    }

    #[test]
    fn title_from_leading_h1_else_head_and_headings_under_it_with_no_gap() {
        let f = convert(
            "<title>Head</title><body><div>\n<h1>Real <em>Title</em></h1><h1>Next</h1><h3>c</h3>",
        );
        assert_eq!(f.title.as_deref(), Some("Real Title"));
        assert_eq!(
            f.body,
            "<div>\n<h2 id=\"next\">Next</h2><h3 id=\"c\">c</h3></div>"
        );
        let f = convert("<title>Head</title><p>intro</p><h1>Late</h1>");
        assert_eq!(f.title.as_deref(), Some("Head"));
        assert_eq!(f.body, "<p>intro</p><h2 id=\"late\">Late</h2>");
        // SICP's pages: an h3 title, h4 sections, an h5 below them.
        let f = convert("<h3>1.1 Elements</h3><h4>1.1.1 A</h4><h5>x</h5><h4>1.1.2 B</h4>");
        assert_eq!(
            f.body,
            "<h2 id=\"id-111-a\">1.1.1 A</h2><h3 id=\"x\">x</h3><h2 id=\"id-112-b\">1.1.2 B</h2>"
        );
    }

    #[test]
    fn ids_made_unique_and_valid_and_links_follow() {
        let f = convert(
            "<p id=\"1st\">a</p><p id=\"1st\">b</p><p id=\"ok\">c</p>\
             <a href=\"#1st\">x</a><a href=\"#nowhere\">y</a><a href=\"ch2.html#s\">z</a>",
        );
        assert_eq!(
            f.body,
            "<p id=\"id-1st\">a</p><p>b</p><p id=\"ok\">c</p><a href=\"#id-1st\">x</a><a>y</a><a href=\"ch2.html#s\">z</a>"
        );
        assert_eq!(f.links, vec!["ch2.html#s".to_string()]);
        assert!(
            notes(&f)
                .iter()
                .any(|w| w.starts_with("dropped duplicate id"))
        );
    }

    #[test]
    fn content_models_repaired() {
        let f =
            convert("<!DOCTYPE html><b><p>x</p></b><span><div>y</div></span><h2><div>z</div></h2>");
        assert_eq!(
            f.body,
            "<div><p>x</p></div><div><div>y</div></div><h2 id=\"z\"><span>z</span></h2>"
        );
        // Quirks mode (no doctype) lets a table sit inside a p.
        let f = convert("<p>a<table><tr><td>t</td></tr></table>");
        assert_eq!(
            f.body,
            "<div>a<table><tbody><tr><td>t</td></tr></tbody></table></div>"
        );
        let f = convert("<ul>text<li>i</li><p>p</p></ul><li>stray</li><dl><dd>d</dd></dl>");
        assert_eq!(
            f.body,
            "<ul><li>text</li><li>i</li><li><p>p</p></li></ul><div>stray</div><div><div>d</div></div>"
        );
    }

    #[test]
    fn schematron_descendant_rules_found_by_epubcheck_runs() {
        // Each of these failed EPUBCheck 5.3.0 on random tag soup before the fix.
        let f = convert(
            "<a href=\"#t\" id=\"t\">x<table><tr><td><a href=\"#t\">in</a></td></tr></table></a>",
        );
        assert_eq!(f.body.matches("<a ").count(), 1, "{}", f.body);
        let f = convert("<dfn>x<table><tr><td><dfn>y</dfn></td></tr></table></dfn>");
        assert_eq!(f.body.matches("<dfn>").count(), 1, "{}", f.body);
        let f = convert("<table><caption>c<table><tr><td>t</td></tr></table></caption></table>");
        assert_eq!(f.body.matches("<table>").count(), 1, "{}", f.body);
        let f =
            convert("<ruby>no annotation</ruby><ruby>base<rp>(</rp><rt>ok</rt><rp>)</rp></ruby>");
        assert_eq!(
            f.body,
            "<span>no annotation</span><ruby>base<rp>(</rp><rt>ok</rt><rp>)</rp></ruby>"
        );
        // A no-break space is text, not inter-element whitespace: it needs an li.
        let f = convert("<ul>&nbsp;<li>i</li></ul>");
        assert_eq!(f.body, "<ul><li>\u{A0}</li><li>i</li></ul>");
    }

    #[test]
    fn remote_and_data_images_removed_keeping_alt() {
        let mut r = Recorder::default();
        let f = html_to_xhtml(
            "<p><img src=\"https://x.org/a.png\" alt=\"remote\"><img src=\"data:image/png;base64,AAAA\" alt=\"d\"><img src=\"pics/a%20b.png?v=1\"></p>",
            &mut r,
        )
        .unwrap();
        // Without an alt, its file's name is the alt (an empty one Send-to-Kindle rejects).
        assert_eq!(
            f.body,
            "<p>remoted<img src=\"../images/pics/a_b.png\" alt=\"a b\"/></p>"
        );
        assert_eq!(r.calls, vec!["pics/a b.png".to_string()]);
        assert!(
            notes(&f)
                .iter()
                .any(|w| w == "removed remote image https://x.org/a.png")
        );
    }

    const MATHML: &str = "http://www.w3.org/1998/Math/MathML";

    #[test]
    fn mathml_is_kept_with_the_attributes_its_elements_allow() {
        let f = convert(
            "<p>For example, <math xmlns=\"http://www.w3.org/1998/Math/MathML\" display=\"block\" style=\"x\">\
             <mrow class=\"c\" stretchy=\"true\"><mi mathvariant=\"normal\">x</mi><mo stretchy=\"false\" onclick=\"a()\">+</mo>\
             <mn>1</mn></mrow></math> is small.</p>",
        );
        assert_eq!(
            f.body,
            format!(
                "<p>For example, <math xmlns=\"{MATHML}\" display=\"block\"><mrow class=\"c\"><mi mathvariant=\"normal\">x</mi><mo stretchy=\"false\">+</mo><mn>1</mn></mrow></math> is small.</p>"
            )
        );
        assert!(f.removed.is_empty(), "{:?}", f.removed);
        // XHTML read as HTML keeps prefixed names whole; the prefix is read back.
        let f = convert(
            "<html xmlns:m=\"http://www.w3.org/1998/Math/MathML\"><body><p><m:math><m:msup><m:mi>y</m:mi><m:mn>2</m:mn></m:msup></m:math></p></body></html>",
        );
        assert_eq!(
            f.body,
            format!("<p><math xmlns=\"{MATHML}\"><msup><mi>y</mi><mn>2</mn></msup></math></p>")
        );
    }

    #[test]
    fn broken_mathml_is_repaired_to_the_schema() {
        let f = convert(
            "<p><math><mfrac><mi>a</mi></mfrac>loose<mi>b<mrow>c</mrow></mi>\
             <mtable><mi>x</mi></mtable><annotation-xml><svg></svg></annotation-xml></math></p>",
        );
        assert_eq!(
            f.body,
            format!(
                "<p><math xmlns=\"{MATHML}\"><mrow><mi>a</mi></mrow><mtext>loose</mtext><mi>bc</mi><mrow><mi>x</mi></mrow></math></p>"
            )
        );
        assert_eq!(f.removed, [("<annotation-xml>".to_string(), 1)]);
    }

    #[test]
    fn objects_and_embeds_of_local_images_become_images() {
        let mut r = Recorder::default();
        let f = html_to_xhtml(
            "<figure><object style=\"width: 20.38ex; height: 20.46ex;\" data=\"fig/Fig1.1.svg\" type=\"image/svg+xml\">SVG</object>\
             <figcaption>Figure 1.1</figcaption></figure><p><embed src=\"b.png\" title=\"Plan\"></p>",
            &mut r,
        )
        .unwrap();
        assert_eq!(
            f.body,
            "<figure><img src=\"../images/fig/Fig1.1.svg\" alt=\"SVG\" style=\"width: 20.38ex\"/><figcaption>Figure 1.1</figcaption></figure><p><img src=\"../images/b.png\" alt=\"Plan\" title=\"Plan\"/></p>"
        );
        assert_eq!(r.calls, ["fig/Fig1.1.svg", "b.png"]);
        assert!(f.removed.is_empty() && f.warnings.is_empty(), "{f:?}");
    }

    #[test]
    fn notes_marked_by_their_list_or_role_are_typed_as_notes() {
        // Standard Ebooks' endnotes, and pandoc's.
        let f = convert(
            "<p><a href=\"#note-1\" id=\"noteref-1\" epub:type=\"noteref\">1</a>\
             <a href=\"#fn1\" id=\"fnref1\" role=\"doc-noteref\"><sup>2</sup></a></p>\
             <section epub:type=\"endnotes\"><ol><li id=\"note-1\"><p>One.</p>\
             <ol><li id=\"inner\">Not a note.</li></ol></li></ol></section>\
             <section role=\"doc-endnotes\"><ol><li id=\"fn1\"><p>Two.</p></li></ol></section>\
             <ol><li id=\"plain\">A list.</li></ol>",
        );
        assert!(
            f.body.contains(
                "<a epub:type=\"noteref\" role=\"doc-noteref\" id=\"fnref1\" href=\"#fn1\">"
            ),
            "{}",
            f.body
        );
        assert!(
            f.body.contains("<li epub:type=\"endnote\" id=\"note-1\">"),
            "{}",
            f.body
        );
        assert!(
            f.body.contains("<li epub:type=\"endnote\" id=\"fn1\">"),
            "{}",
            f.body
        );
        assert!(f.body.contains("<li id=\"inner\">"), "{}", f.body);
        assert!(f.body.contains("<li id=\"plain\">"), "{}", f.body);
    }

    #[test]
    fn project_gutenbergs_notes_are_typed_by_their_classes() {
        let f = convert(
            "<p>Text<a id=\"FNanchor_1\" href=\"#Footnote_1\" class=\"fnanchor\">[1]</a>.</p>\
             <div class=\"footnote\"><p><a id=\"Footnote_1\" href=\"#FNanchor_1\" class=\"label\">[1]</a> \
             The note.</p></div><div class=\"footnote\"><p>No reference here.</p></div>",
        );
        assert_eq!(
            f.body,
            "<p>Text<a epub:type=\"noteref\" id=\"FNanchor_1\" href=\"#Footnote_1\" class=\"fnanchor\">[1]</a>.</p>\
             <aside epub:type=\"footnote\" id=\"Footnote_1\" class=\"footnote\"><p><a href=\"#FNanchor_1\" class=\"label\">[1]</a> \
             The note.</p></aside><div class=\"footnote\"><p>No reference here.</p></div>"
        );
    }

    #[test]
    fn what_cannot_be_kept_is_counted_and_fallback_content_stays() {
        let f = convert(
            "<object data=\"movie.swf\">Fallback <b>text</b></object><video src=\"a.mp4\"></video>\
             <p><video></video><img src=\"http://x.org/a.png\" alt=\"remote\"><iframe></iframe>\
             <audio controls src=\"a.mp3\"><source src=\"a.ogg\"/><track src=\"a.vtt\"/>No <i>sound</i></audio>\
             <input type=\"text\"><input type=\"checkbox\" checked> done</p>",
        );
        // An audio player's fallback is the text a reader without one shows (Readium's
        // epub30-test-0140 lost 420 letters of it).
        assert_eq!(
            f.body,
            "Fallback <b>text</b><p>remoteNo <i>sound</i><input type=\"checkbox\" checked=\"\" disabled=\"\" aria-labelledby=\"epubforge-task-1\"/><span id=\"epubforge-task-1\"> done</span></p>"
        );
        let removed: Vec<(&str, usize)> = f.removed.iter().map(|(w, n)| (w.as_str(), *n)).collect();
        assert_eq!(
            removed,
            [
                ("<object>", 1),
                ("<video>", 2),
                ("<img>", 1),
                ("<iframe>", 1),
                ("<audio>", 1),
                ("<input>", 1)
            ]
        );
    }

    #[test]
    fn inline_svg_is_cleaned_and_its_ids_kept_unique() {
        let drawing = "<svg viewBox=\"0 0 10 10\" onload=\"x()\"><linearGradient id=\"g\"></linearGradient>\
                       <rect width=\"5\" height=\"5\" fill=\"url(#g)\"/><script>alert(1)</script></svg>";
        let f = convert(&format!("<p id=\"g\">a{drawing}</p><p>{drawing}</p>"));
        assert!(
            !f.body.contains("script") && !f.body.contains("onload"),
            "{}",
            f.body
        );
        assert_eq!(
            f.body
                .matches("<svg xmlns=\"http://www.w3.org/2000/svg\"")
                .count(),
            2
        );
        let ids: Vec<&str> = f
            .body
            .match_indices(" id=\"")
            .map(|(at, _)| f.body[at + 5..].split('"').next().unwrap())
            .collect();
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(ids.len(), 3, "{}", f.body);
        assert_eq!(unique.len(), 3, "{}", f.body);
        // Each drawing's fill still points at its own gradient.
        for id in &ids[1..] {
            assert!(
                f.body.contains(&format!("url(#{id})")),
                "{id} in {}",
                f.body
            );
        }
        assert!(
            notes(&f).iter().any(|w| w.contains("<script> ×1")),
            "{:?}",
            notes(&f)
        );
    }

    #[test]
    fn images_from_a_site_root_are_removed_keeping_their_alt() {
        let mut r = Recorder::default();
        let f = html_to_xhtml("<p><img src=\"/url\" alt=\"foo\"></p>", &mut r).unwrap();
        assert_eq!(f.body, "<p>foo</p>");
        assert!(r.calls.is_empty());
        assert_eq!(f.removed, [("<img>".to_string(), 1)]);
    }

    #[test]
    fn nul_is_dropped_or_replaced_as_html_parsing_does() {
        let f = convert(
            "<p title=\"a\0b\">c\0d<svg><text>e\0f</text></svg></p><textarea>\0</textarea>",
        );
        assert!(
            f.body.starts_with("<p title=\"a\u{FFFD}b\">cd<svg"),
            "{}",
            f.body
        );
        assert!(f.body.contains("<text>e\u{FFFD}f</text>"), "{}", f.body);
    }

    #[test]
    fn one_line_collapses_space_and_leaves_out_what_xml_forbids() {
        assert_eq!(one_line("  a\t\n b  "), "a b");
        // A word of forbidden characters only still counts as a word.
        assert_eq!(one_line("\u{1} a \u{1}b\u{FFFE} \u{1}"), " a b ");
        assert_eq!(one_line(""), "");
    }

    #[test]
    fn body_text_preserved_in_order() {
        let src = "<html><head><title>t</title></head><body>Intro &amp; more<div><p>Para <b>one<i> two</b> three</p>\
                   <script>drop me</script><table><tr><td>cell</td><td>c2</td></tr></table>\
                   <ul><li>item<o:p>junk-free</o:p></ul><font>font text</font><center>mid</center>\
                   <style>x{}</style>tail\u{1}end</body></html>";
        let f = convert(src);
        let expected = "Intro & morePara one two threecellc2itemjunk-freefont textmidtailend";
        assert_eq!(body_text(&f), expected);
    }
}
