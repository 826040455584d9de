//! The proof that the fast reading ([`super::xml`]) builds html5ever's tree: both readings of
//! many documents compared node by node (ids, names, attributes in order, text, comments,
//! doctype, quirks mode) and, converted, byte by byte; the fast one may only decline.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use scraper::Node;

use super::{Parsed, parse_with_html5ever, without_xml_declaration, xml};
use crate::convert::markup::html::{self, html_to_xhtml};
use crate::convert::markup::test_support::Recorder;

thread_local! {
    /// Set while a test converts a page the slow way, to compare.
    pub(super) static HTML5EVER_ONLY: Cell<bool> = const { Cell::new(false) };
}

fn name(q: &html5ever::QualName) -> String {
    format!("{:?}:{}:{}", q.prefix.as_deref(), &*q.ns, &*q.local)
}

/// Everything of a parse that a later stage can read, as text.
fn dump(parsed: &Parsed) -> String {
    let mut out = format!("{:?} cut {:?}\n", parsed.html.quirks_mode, parsed.cut);
    let mut lines: Vec<_> = parsed.lines.iter().map(|(k, v)| (*k, *v)).collect();
    lines.sort();
    writeln!(out, "lines {lines:?}").unwrap();
    let root = parsed.html.tree.root();
    for node in root.descendants() {
        let depth = node.ancestors().count();
        let what = match node.value() {
            Node::Element(e) => {
                let attrs: Vec<_> = e.attrs.iter().map(|(k, v)| (name(k), &**v)).collect();
                format!("{} {attrs:?}", name(&e.name))
            }
            Node::Text(t) => format!("text {:?}", &*t.text),
            Node::Comment(c) => format!("comment {:?}", &*c.comment),
            other => format!("{other:?}"),
        };
        writeln!(out, "{}{:?} {what}", "  ".repeat(depth), node.id()).unwrap();
    }
    out
}

/// Both readings of `src`: panics where the fast one took it and built another tree, or
/// converted it otherwise. Whether it took it.
fn same_as_html5ever(src: &str) -> bool {
    let Some(fast) = xml::parse(without_xml_declaration(src), 120) else {
        return false;
    };
    let slow = parse_with_html5ever(src, 120, true);
    assert_eq!(dump(&fast), dump(&slow), "\n--- source ---\n{src}");
    let convert = |slow: bool| {
        HTML5EVER_ONLY.set(slow);
        let out = html_to_xhtml(src, &mut Recorder::default());
        HTML5EVER_ONLY.set(false);
        // Its maps in order: a hash map's order differs from one map to the next.
        out.map(|mut f| {
            let ids: BTreeMap<_, _> = f.ids.drain().collect();
            let homes: BTreeMap<_, _> = f.homes.drain().collect();
            format!("{f:?} {ids:?} {homes:?}")
        })
        .map_err(|e| e.to_string())
    };
    assert_eq!(convert(false), convert(true), "\n--- source ---\n{src}");
    true
}

/// `body` in a page as our build writes one.
fn page(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" \
         xmlns:epub=\"http://www.idpf.org/2007/ops\" lang=\"en\" xml:lang=\"en\">\n<head>\n\
         <meta charset=\"UTF-8\"/>\n<title>T</title>\n<link rel=\"stylesheet\" type=\"text/css\" \
         href=\"../styles/book.css\"/>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
}

#[test]
fn a_chapter_as_our_build_writes_it_is_read_the_fast_way() {
    let body = "<section epub:type=\"chapter\" role=\"doc-chapter\" aria-labelledby=\"t\">\n\
                <h1 id=\"t\">第2章 国的</h1>\n<p>走物&amp;席<em>诵</em>损。</p>\n\
                <p class=\"x\">a<br/>b<a href=\"#n1\" epub:type=\"noteref\">1</a></p>\n\
                <pre>\ncode\n</pre><ul>\n<li>one</li><li><p>two</p></li></ul>\n\
                <ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby><img src=\"a.png\" alt=\"\"/>\n\
                <table>\n<thead><tr><th>h</th></tr></thead>\n<tbody><tr><td>x</td><td/></tr>\n\
                </tbody><tfoot/></table><!-- note --><aside epub:type=\"footnote\" id=\"n1\"><p>n</p></aside></section>";
    assert!(same_as_html5ever(&page(body)));
    // CRLF everywhere, a byte order mark, comments and space around the parts.
    let crlf = format!("\u{feff}{}", page(body).replace('\n', "\r\n"));
    assert!(same_as_html5ever(&crlf));
    let around = page(body)
        .replace("<head>", "<!--a--><head>")
        .replace("</head>\n", "</head>\n<!--b-->\n")
        .replace("</body>\n", "</body>\n<!--c-->\n \t")
        .replace("</html>\n", "</html>\n<!--d-->\n");
    assert!(same_as_html5ever(&around));
    // No head, no doctype (quirks mode), an XHTML 1.1 or 1.0 Transitional doctype.
    let headless = "<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<body><p>x</p></body></html>";
    assert!(same_as_html5ever(headless));
    for public in ["XHTML 1.1//EN", "XHTML 1.0 Transitional//EN"] {
        let doctype = format!("<!DOCTYPE html PUBLIC \"-//W3C//DTD {public}\" \"x.dtd\">");
        assert!(same_as_html5ever(
            &page(body).replace("<!DOCTYPE html>", &doctype)
        ));
    }
}

#[test]
fn a_chapter_without_links_or_pictures_is_converted_from_a_light_tree_alike() {
    // What the converter reads off a page it builds from the reader's own tree: the head's
    // title, stylesheets and scripts, the body's types, attributes of every kind (in another
    // order than scraper keeps them), elements unwrapped or removed, text merged around
    // them, references, line breaks, comments.
    let body = "<section epub:type=\"chapter\" role=\"doc-chapter\" aria-labelledby=\"t\">\n\
                <h1 id=\"t\" class=\"a  b\">第2章 <span>国</span>的</h1>\n<p title=\"x&amp;y\" \
                dir=\"RTL\" onclick=\"f()\" onblur=\"g()\" onfocus=\"h()\" data-x=\"1\">走物&amp;席<em>诵</em>损&#x4E2D;。</p>\n\
                <h3>Deeper</h3><p>a<font>b</font>c<blink>d</blink><script>x</script>e<br/>f</p>\
                <nav role=\"navigation\"><p>Next</p></nav><div class=\"navfooter\">g</div>\
                <bdo>h</bdo><!-- note --><pre>\ncode\n</pre><h2>1.1</h2></section>";
    let page = page(body)
        .replace(
            "<head>",
            "<head><style>p{}</style><script src=\"x.js\"></script>",
        )
        .replace("<body>", "<body epub:type=\"bodymatter\">");
    for src in [page.clone(), page.replace('\n', "\r\n")] {
        assert!(html::takes_light(&src), "{src}");
        assert!(same_as_html5ever(&src));
    }
    // A link, a picture, a `<time>` send the page the way that can look around them: the
    // light reading stops where it meets one.
    let takes = crate::convert::markup::sanitize::is_light_element;
    assert!(super::parse_light(&page, 120, takes).is_some());
    for declined in [
        "<a href=\"#t\">x</a>",
        "<img src=\"a.png\" alt=\"\"/>",
        "<time>1813</time>",
    ] {
        let src = page.replace("<bdo>", &format!("{declined}<bdo>"));
        assert!(super::parse_light(&src, 120, takes).is_none(), "{declined}");
        assert!(!html::takes_light(&src), "{declined}");
        assert!(same_as_html5ever(&src));
    }
}

#[test]
fn what_html_restructures_is_declined() {
    for body in [
        "<p>a<div>b</div></p>",
        "<p>a<p>b</p></p>",
        "<p><ul><li>x</li></ul></p>",
        "<ul><li>a<div><li>b</li></div></li></ul>",
        "<a href=\"#x\">a<span><a href=\"#y\">b</a></span></a>",
        "<h1>a<h2>b</h2></h1>",
        "<table><tr><td>x</td></tr></table>",
        "<form><input/></form>",
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"1\"/></svg>",
        "<p>&nbsp;</p>",
        "<p><![CDATA[x]]></p>",
        "<br></br>",
        "<img src=\"a\">x</img>",
        "<style>a &gt; b</style>",
        "<title><b>x</b></title>",
        "<b><b><b><b>x</b></b></b></b>",
        "<p><hr/></p>",
        "<rt>x</rt>",
        "<select><option>x</option></select>",
        "<epub:switch>x</epub:switch>",
        "<P>x</P>",
        "<p>x",
    ] {
        let src = page(body);
        assert!(
            xml::parse(without_xml_declaration(&src), 120).is_none(),
            "{body}"
        );
        // And html5ever reads them as ever.
        assert!(!same_as_html5ever(&src));
    }
    // Text where the head and body stand, an element the head does not hold.
    let src = page("<p>x</p>");
    for bad in [
        src.replace("<head>", "<head>x"),
        src.replace("</head>\n", "</head>x\n"),
        src.replace("</body>\n", "</body>x\n"),
        src.replace("<title>", "<p>x</p><title>"),
        src.replace("<!DOCTYPE html>", "<!DOCTYPE html [ ]>"),
    ] {
        assert!(
            xml::parse(without_xml_declaration(&bad), 120).is_none(),
            "{bad}"
        );
    }
}

#[test]
fn nesting_past_the_depth_the_guard_watches_is_declined() {
    let deep = |n: usize| page(&format!("{}x{}", "<div>".repeat(n), "</div>".repeat(n)));
    // html, body and n divs: the deepest lies n + 2 deep.
    assert!(same_as_html5ever(&deep(118)));
    assert!(xml::parse(without_xml_declaration(&deep(119)), 120).is_none());
}

/// The `#data` inputs of the html5lib tree-construction tests.
fn html5lib_inputs() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/suites/html5lib");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("html5lib suite")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    let mut inputs = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read .dat");
        for case in text.split("#data\n").skip(1) {
            let data = case.split("\n#errors").next().unwrap_or(case);
            inputs.push(data.to_string());
        }
    }
    inputs
}

#[test]
fn every_html5lib_input_as_xhtml_is_read_alike_or_declined() {
    let inputs = html5lib_inputs();
    assert!(inputs.len() > 1500, "{}", inputs.len());
    let mut taken = 0;
    for data in &inputs {
        for src in [
            page(data),
            format!("<?xml version=\"1.0\"?>\n{data}"),
            format!(
                "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>{data}</body></html>"
            ),
        ] {
            taken += usize::from(same_as_html5ever(&src));
        }
    }
    // Many are tidy enough to be taken: the comparison is not empty.
    assert!(taken > 100, "{taken}");
}

/// Text, references, comments and empty elements, taken and declined.
fn pieces() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "文字",
        " ",
        "\n",
        "\r\n",
        "\t",
        "&amp;",
        "&lt;b&gt;",
        "&#x4E00;",
        "&#65;",
        "&nbsp;",
        "&quot;",
        "\r",
        "<!--c-->",
        "<br/>",
        "<br></br>",
        "<img src=\"i.png\" alt=\"x\"/>",
        "<hr/>",
        "<wbr/>",
        "<a id=\"z\"/>",
        "<span/>",
        "<p/>",
        "<![CDATA[x]]>",
        "&#x80;",
        "<table>\n<caption>c</caption><colgroup><col/></colgroup><tbody>\n<tr><td>1</td><th/></tr>\n</tbody></table>",
        "<table><tr><td>implied tbody</td></tr></table>",
        "<table/>",
    ])
    .prop_map(str::to_string)
}

/// Element names, those HTML restructures around among them.
const NAMES: &[&str] = &[
    "p",
    "div",
    "span",
    "a",
    "b",
    "i",
    "em",
    "strong",
    "h1",
    "h2",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "pre",
    "blockquote",
    "section",
    "aside",
    "ruby",
    "rt",
    "rp",
    "table",
    "tbody",
    "tr",
    "td",
    "th",
    "thead",
    "caption",
    "colgroup",
    "code",
    "small",
    "sup",
    "q",
    "object",
    "button",
    "nobr",
    "style",
    "script",
    "title",
    "svg",
    "math",
    "select",
    "option",
    "form",
    "listing",
    "figure",
    "figcaption",
    "nav",
    "header",
    "u",
    "s",
    "font",
    "iframe",
    "noscript",
    "textarea",
    "xmp",
    "address",
    "center",
    "menu",
    "summary",
    "details",
];

/// Attributes: a value with a tab, a line break and a reference among them.
const ATTRIBUTES: &[&str] = &[
    "",
    " class=\"c\"",
    " id=\"x\" epub:type=\"footnote\"",
    " title=\"a\tb\nc &amp; d\"",
    " xml:lang='zh'",
    " href=\"#x\" class=\"c\"",
];

/// Markup mixing what the fast reading takes with what it declines.
fn markup() -> impl Strategy<Value = String> {
    let leaf = prop::collection::vec(pieces(), 0..4).prop_map(|v| v.concat());
    leaf.prop_recursive(5, 48, 4, |inner| {
        let names = prop::sample::select(NAMES);
        let attrs = prop::sample::select(ATTRIBUTES);
        (names, attrs, prop::collection::vec(inner, 0..4))
            .prop_map(|(name, attrs, kids)| format!("<{name}{attrs}>{}</{name}>", kids.concat()))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn generated_xhtml_is_read_alike_or_declined(body in markup(), around in 0..4usize) {
        let src = match around {
            0 => page(&body),
            1 => page(&body).replace("<!DOCTYPE html>\n", ""),
            2 => page(&body).replace("\n", "\r\n").replace("</body>", "</body><!--e-->"),
            _ => format!("<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>{body}</body></html>"),
        };
        same_as_html5ever(&src);
    }
}

#[test]
fn the_generated_markup_is_often_taken() {
    // The proptest above compares only what the fast reading takes: make sure that is much.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = markup();
    let (mut taken, mut light) = (0, 0);
    for _ in 0..400 {
        let body = strategy.new_tree(&mut runner).expect("value").current();
        taken += usize::from(same_as_html5ever(&page(&body)));
        light += usize::from(html::takes_light(&page(&body)));
    }
    assert!(taken > 40, "{taken}");
    // And converted from a light tree, as often as not.
    assert!(light > 20, "{light}");
}

/// Every `.xhtml` / `.html` file under the folder `XHTML_CORPUS` names (unpacked EPUBs, say):
/// both readings compared on each, and how many the fast one took. Run by hand:
/// `XHTML_CORPUS=DIR cargo test --lib xhtml_corpus -- --ignored --nocapture`.
#[test]
#[ignore = "needs a folder of pages in XHTML_CORPUS"]
fn an_xhtml_corpus_is_read_alike_or_declined() {
    let dir = std::env::var("XHTML_CORPUS").expect("XHTML_CORPUS");
    let (mut taken, mut declined, mut xhtml) = (0, 0, 0);
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let path = entry.expect("entry").into_path();
        let page = path
            .extension()
            .is_some_and(|e| e == "xhtml" || e == "html");
        let Some(src) = page.then(|| std::fs::read_to_string(&path).ok()).flatten() else {
            continue;
        };
        xhtml += usize::from(super::written_as_xhtml(&src));
        match same_as_html5ever(&src) {
            true => taken += 1,
            false => declined += 1,
        }
    }
    eprintln!("{taken} taken, {declined} declined ({xhtml} written as XHTML)");
    assert!(taken > 0);
}
