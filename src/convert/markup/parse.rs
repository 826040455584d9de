//! HTML parsing with nesting bounded while the tree is built.
//!
//! html5ever keeps a stack of open elements and scans it on most tags ("is there a `p` in
//! button scope?"), so a document nested N deep costs N² steps: 100 000 nested `<div>`s (or a
//! Markdown list nested 100 000 deep, rendered) took minutes, long before the sanitiser's own
//! depth cap could act on the finished tree. So we drive the tokenizer and the tree builder
//! ourselves and sit between them ([`Guard`]): after a start tag, when the element just built
//! lies more than [`MAX_PARSE_DEPTH`] deep, the tree builder is handed its end tag at once (and
//! the author's own end tag for it is dropped later). The element stays, empty; what followed it
//! goes to its parent. The text is kept, the nesting is not, and the stack, with every scan of
//! it, stays bounded. Everything else is html5ever's ordinary work on scraper's tree.
//!
//! The tree sink in between ([`DepthSink`]) knows each element's depth, and records the source
//! line of every element deeper than the sanitiser keeps, so that its warning can say where.
//!
//! A page written as tidy XHTML is read by our own reader ([`xml`]) into scraper's tree, or,
//! for the converter, into a [`Light`] tree of the same nodes ([`parse_light`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, EndTag, StartTag, Tag, TagToken, Token, TokenSink, TokenSinkResult, Tokenizer,
    TokenizerOpts,
};
use html5ever::tree_builder::{
    ElementFlags, NodeOrText, QuirksMode, TreeBuilder, TreeBuilderOpts, TreeSink,
};
use html5ever::{Attribute, LocalName, QualName, TokenizerResult, local_name, ns};
use rustc_hash::FxHashMap;
use scraper::{Html, HtmlTreeSink};

mod sink;
mod xml;
mod xml_read;

pub(crate) use sink::{Light, LightKind};
#[cfg(test)]
mod xml_tests;

/// A node of scraper's tree, as the parser names it.
pub(crate) type NodeId = <HtmlTreeSink as TreeSink>::Handle;

/// Deepest element (counting `html` as 1) the tree builder keeps open; deeper ones are closed
/// where they open. Far beyond what the sanitiser keeps, so it only acts on pathological input,
/// and small enough that every scan of the stack is cheap.
pub(crate) const MAX_PARSE_DEPTH: u32 = 256;

/// A parsed document or fragment, and what the guard did.
pub(crate) struct Parsed {
    /// The tree.
    pub html: Html,
    /// Source line of the first element closed for depth, and how many were.
    pub cut: Option<(u64, usize)>,
    /// Source line of every element deeper than the `note_depth` given to the parse.
    pub lines: HashMap<NodeId, u64>,
}

/// Parses a whole HTML document, as [`Html::parse_document`] does; except that in a document
/// written as XHTML (see [`written_as_xhtml`]) an element written `<a id="x"/>` is empty, as
/// its author meant, where HTML's rules keep it open: `<a name="x"/>`, the anchor of many
/// Project Gutenberg books, then wrapped the rest of its paragraph, and was copied, id and
/// all, around the text after it.
///
/// A document written as XHTML is first read the fast way ([`xml::parse`]), which builds the
/// same tree when the markup is tidy and declines otherwise.
pub(crate) fn parse_document(src: &str, note_depth: u32) -> Parsed {
    let xhtml = written_as_xhtml(src);
    #[cfg(test)]
    let xhtml_fast = xhtml && !xml_tests::HTML5EVER_ONLY.get();
    #[cfg(not(test))]
    let xhtml_fast = xhtml;
    if xhtml_fast && let Some(parsed) = xml::parse(without_xml_declaration(src), note_depth) {
        return parsed;
    }
    parse_with_html5ever(src, note_depth, xhtml)
}

/// A document written as XHTML and tidy enough for [`xml::read`] (see [`parse_document`]),
/// read into a [`Light`] tree: the nodes [`parse_document`] would make, texts not copied.
/// None when [`parse_document`] must read it, or its body holds an element `takes` refuses
/// (the reading stops there).
pub(crate) fn parse_light(
    src: &str,
    note_depth: u32,
    takes: fn(&LocalName) -> bool,
) -> Option<Light<'_>> {
    #[cfg(test)]
    if xml_tests::HTML5EVER_ONLY.get() {
        return None;
    }
    if !written_as_xhtml(src) {
        return None;
    }
    let src = without_xml_declaration(src);
    // Room for a node about every 32 bytes, more than a chapter of paragraphs makes (the
    // arena grows past that; counting its tags would read the whole page once more).
    xml::read(
        src,
        note_depth,
        Light::with_capacity(src.len() / 32 + 16, takes),
    )
}

/// [`parse_document`] by html5ever alone.
fn parse_with_html5ever(src: &str, note_depth: u32, xhtml: bool) -> Parsed {
    let sink = DepthSink::new(HtmlTreeSink::new(Html::new_document()), note_depth, src);
    let builder = TreeBuilder::new(sink, TreeBuilderOpts::default());
    run(
        builder,
        TokenizerOpts::default(),
        without_xml_declaration(src),
        xhtml,
    )
}

/// `src` without the XML declaration (`<?xml version="1.0"?>`) it opens with, when that ends
/// on its first line: HTML reads it as a comment before the document, one character at a
/// time, and no stage reads that comment. The line break after it stays, so every line
/// keeps its number.
fn without_xml_declaration(src: &str) -> &str {
    if !src.starts_with("<?") {
        return src;
    }
    // What HTML's bogus comment takes: up to the first `>`.
    match src.find(['>', '\n', '\r']) {
        Some(end) if src.as_bytes().get(end) == Some(&b'>') => src.get(end + 1..).unwrap_or(src),
        _ => src,
    }
}

/// Whether a document is written as XHTML: an XML declaration, an XHTML doctype or the XHTML
/// namespace on its `<html>`, before its `<body>` (or in its first 4 KiB).
fn written_as_xhtml(src: &str) -> bool {
    let end = (0..=src.len().min(4096))
        .rev()
        .find(|&i| src.is_char_boundary(i));
    let head = &src[..end.unwrap_or(0)];
    // An XML declaration first (as every page our build writes opens) says it at once.
    let first = head.trim_start_matches('\u{feff}').trim_start();
    if first
        .get(..5)
        .is_some_and(|d| d.eq_ignore_ascii_case("<?xml"))
    {
        return true;
    }
    let head = &head[..head.find("<body").unwrap_or(head.len())];
    let lower = head.to_ascii_lowercase();
    lower
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with("<?xml")
        || lower.contains("dtd xhtml")
        || lower.contains("xmlns=\"http://www.w3.org/1999/xhtml\"")
}

/// Parses an HTML fragment in the context of a `<body>`, as [`Html::parse_fragment`] does.
pub(crate) fn parse_fragment(src: &str, note_depth: u32) -> Parsed {
    let sink = DepthSink::new(HtmlTreeSink::new(Html::new_fragment()), note_depth, src);
    let context = html5ever::tree_builder::create_element(
        &sink,
        QualName::new(None, ns!(html), local_name!("body")),
        Vec::new(),
    );
    let builder = TreeBuilder::new_for_fragment(sink, context, None, TreeBuilderOpts::default());
    let opts = TokenizerOpts {
        initial_state: Some(builder.tokenizer_state_for_context_elem(false)),
        ..TokenizerOpts::default()
    };
    run(builder, opts, src, false)
}

fn run(
    builder: TreeBuilder<NodeId, DepthSink>,
    opts: TokenizerOpts,
    src: &str,
    xhtml: bool,
) -> Parsed {
    let guard = Guard {
        builder,
        swallow: RefCell::new(HashMap::new()),
        cut: Cell::new(None),
        xhtml,
    };
    let tokenizer = Tokenizer::new(guard, opts);
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(src));
    // A script "blocks" the tokenizer until it has run, and a `<meta charset>` stops it to
    // offer a change of encoding; we run no script and the text is decoded already, so carry
    // on until the input is done (stopping there dropped everything after `<meta charset>`).
    while !matches!(tokenizer.feed(&input), TokenizerResult::Done) {}
    tokenizer.end();
    let Guard { builder, cut, .. } = tokenizer.sink;
    let sink = builder.sink;
    let lines = sink.lines.take();
    Parsed {
        html: sink.inner.finish(),
        cut: cut.get(),
        lines,
    }
}

/// Elements the tree builder never keeps open (an end tag for `br` would even make another).
fn is_void(name: &LocalName) -> bool {
    matches!(
        &**name,
        "area"
            | "base"
            | "basefont"
            | "bgsound"
            | "br"
            | "col"
            | "embed"
            | "frame"
            | "hr"
            | "image"
            | "img"
            | "input"
            | "keygen"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

/// Between the tokenizer and the tree builder: closes elements that open too deep, and in a
/// document written as XHTML those written self-closed.
struct Guard {
    builder: TreeBuilder<NodeId, DepthSink>,
    /// End tags still to drop, by name: one for each element closed early.
    swallow: RefCell<HashMap<LocalName, usize>>,
    cut: Cell<Option<(u64, usize)>>,
    /// Whether `<x/>` closes `x`.
    xhtml: bool,
}

impl Guard {
    /// After a start tag named `name`: closes the element it made if that lies too deep.
    fn bound(&self, name: &LocalName, line: u64) {
        let sink = &self.builder.sink;
        let Some((node, depth)) = sink.last.get() else {
            return;
        };
        if depth <= MAX_PARSE_DEPTH || is_void(name) {
            return;
        }
        let made = sink.inner.elem_name(&node);
        // Foreign elements written `<x/>` are closed already; anything else is not ours.
        if !made.local.eq_ignore_ascii_case(name) || (made.ns != ns!(html) && self.self_closed()) {
            return;
        }
        drop(made);
        self.close(name, line);
        *self.swallow.borrow_mut().entry(name.clone()).or_default() += 1;
        let (first, count) = self.cut.get().unwrap_or((line, 0));
        self.cut.set(Some((first, count + 1)));
    }

    fn self_closed(&self) -> bool {
        self.builder.sink.last_self_closing.get()
    }

    /// Hands the tree builder the end tag of `name`, as if written at `line`.
    fn close(&self, name: &LocalName, line: u64) {
        let end = Tag {
            kind: EndTag,
            name: name.clone(),
            self_closing: false,
            attrs: Vec::new(),
            had_duplicate_attributes: false,
        };
        let _ = self.builder.process_token(TagToken(end), line);
    }

    /// After a start tag named `name` written self-closed in a document written as XHTML:
    /// closes the HTML element it made (not one whose content is raw text, which the
    /// tokenizer is already reading as such). Whether it did.
    fn close_self_closed(&self, name: &LocalName, line: u64) -> bool {
        let raw = matches!(
            &**name,
            "script"
                | "style"
                | "textarea"
                | "title"
                | "xmp"
                | "iframe"
                | "noembed"
                | "noframes"
                | "noscript"
                | "plaintext"
        );
        if !self.xhtml || !self.self_closed() || is_void(name) || raw {
            return false;
        }
        let sink = &self.builder.sink;
        let Some((node, _)) = sink.last.get() else {
            return false;
        };
        let made = sink.inner.elem_name(&node);
        if made.ns != ns!(html) || !made.local.eq_ignore_ascii_case(name) {
            return false;
        }
        drop(made);
        self.close(name, line);
        true
    }
}

impl TokenSink for Guard {
    type Handle = NodeId;

    fn process_token(&self, token: Token, line: u64) -> TokenSinkResult<NodeId> {
        let start = match &token {
            TagToken(tag) if tag.kind == EndTag => {
                let mut swallow = self.swallow.borrow_mut();
                if let Some(n) = swallow.get_mut(&tag.name).filter(|n| **n > 0) {
                    *n -= 1;
                    return TokenSinkResult::Continue;
                }
                None
            }
            TagToken(tag) if tag.kind == StartTag => {
                self.builder.sink.last_self_closing.set(tag.self_closing);
                Some(tag.name.clone())
            }
            _ => None,
        };
        self.builder.sink.last.set(None);
        let result = self.builder.process_token(token, line);
        if let (Some(name), TokenSinkResult::RawData(_) | TokenSinkResult::Plaintext) =
            (&start, &result)
            && self.xhtml
            && self.self_closed()
        {
            // `<iframe src="…"/>`, `<script src="…"/>` in XHTML: an empty element, not raw
            // text running to the end of the page (IDPF's epub30-test-0100 lost the rest of a
            // page so). Closed at once, and the tokenizer reads on as usual.
            self.close(name, line);
            return TokenSinkResult::Continue;
        }
        if let (Some(name), TokenSinkResult::Continue) = (start, &result)
            && !self.close_self_closed(&name, line)
        {
            self.bound(&name, line);
        }
        result
    }

    fn end(&self) {
        self.builder.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.builder
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// scraper's tree sink, plus the depth of every element and the lines of the deep ones.
struct DepthSink {
    inner: HtmlTreeSink,
    /// Depth of each element placed in the tree (the document is 0): looked up at every
    /// node the tree builder places, so hashed the fast way (a node id is a small number).
    depths: RefCell<FxHashMap<NodeId, u32>>,
    /// The element placed last, and its depth.
    last: Cell<Option<(NodeId, u32)>>,
    /// Whether the start tag being built was written `<x/>`.
    last_self_closing: Cell<bool>,
    line: Cell<u64>,
    note_depth: u32,
    lines: RefCell<HashMap<NodeId, u64>>,
}

impl DepthSink {
    /// The sink for parsing `src`, its depth map sized for the elements such a source
    /// usually holds (one in 32 bytes; at most 4096 set aside ahead) so that it is seldom
    /// grown while the tree is built.
    fn new(inner: HtmlTreeSink, note_depth: u32, src: &str) -> DepthSink {
        let room = (src.len() / 32).min(4096);
        DepthSink {
            inner,
            depths: RefCell::new(FxHashMap::with_capacity_and_hasher(
                room,
                Default::default(),
            )),
            last: Cell::new(None),
            last_self_closing: Cell::new(false),
            line: Cell::new(1),
            note_depth,
            lines: RefCell::new(HashMap::new()),
        }
    }

    fn depth(&self, node: &NodeId) -> u32 {
        self.depths.borrow().get(node).copied().unwrap_or(0)
    }

    /// Records where an element went, at the depth `depth` says (asked only for an
    /// element); text and comments are not tracked.
    fn placed(&self, child: &NodeOrText<NodeId>, depth: impl FnOnce() -> u32) {
        let NodeOrText::AppendNode(node) = child else {
            return;
        };
        let depth = depth();
        let mut depths = self.depths.borrow_mut();
        let Some(slot) = depths.get_mut(node) else {
            return;
        };
        *slot = depth;
        self.last.set(Some((*node, depth)));
        if depth > self.note_depth {
            self.lines.borrow_mut().insert(*node, self.line.get());
        }
    }
}

impl TreeSink for DepthSink {
    type Handle = NodeId;
    type Output = Html;
    type ElemName<'a> = <HtmlTreeSink as TreeSink>::ElemName<'a>;

    fn finish(self) -> Html {
        self.inner.finish()
    }

    fn parse_error(&self, msg: std::borrow::Cow<'static, str>) {
        self.inner.parse_error(msg);
    }

    fn get_document(&self) -> NodeId {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Self::ElemName<'a> {
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let node = self.inner.create_element(name, attrs, flags);
        self.depths.borrow_mut().insert(node, 0);
        node
    }

    fn create_comment(&self, text: StrTendril) -> NodeId {
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> NodeId {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        self.placed(&child, || self.depth(parent) + 1);
        self.inner.append(parent, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        // Beside `element` when it has a parent (a foster-parented table), else in `prev_element`.
        let depth = || match self.depth(element) {
            0 => self.depth(prev_element) + 1,
            d => d,
        };
        self.placed(&child, depth);
        self.inner
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn mark_script_already_started(&self, node: &NodeId) {
        self.inner.mark_script_already_started(node);
    }

    fn pop(&self, node: &NodeId) {
        self.inner.pop(node);
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        self.placed(&new_node, || self.depth(sibling));
        self.inner.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&self, target: &NodeId, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs);
    }

    fn associate_with_form(
        &self,
        target: &NodeId,
        form: &NodeId,
        nodes: (&NodeId, Option<&NodeId>),
    ) {
        self.inner.associate_with_form(target, form, nodes);
    }

    fn remove_from_parent(&self, target: &NodeId) {
        self.inner.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        self.inner.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &NodeId) -> bool {
        self.inner
            .is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&self, line_number: u64) {
        self.line.set(line_number);
        self.inner.set_current_line(line_number);
    }

    fn allow_declarative_shadow_roots(&self, intended_parent: &NodeId) -> bool {
        self.inner.allow_declarative_shadow_roots(intended_parent)
    }

    fn attach_declarative_shadow(
        &self,
        location: &NodeId,
        template: &NodeId,
        attrs: &[Attribute],
    ) -> bool {
        self.inner
            .attach_declarative_shadow(location, template, attrs)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &NodeId) {
        self.inner
            .maybe_clone_an_option_into_selectedcontent(option);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(html: &Html) -> String {
        html.root_element().text().collect()
    }

    #[test]
    fn normal_documents_parse_as_scraper_parses_them() {
        let src = "<!DOCTYPE html><title>t</title><p>a<b>b<p>c</b>d<table><td>x</table>\
                   <svg><circle/><foreignObject><p>f</p></foreignObject></svg><br></br>";
        let ours = parse_document(src, 120);
        assert_eq!(ours.html.html(), Html::parse_document(src).html());
        assert_eq!(ours.cut, None);
        let ours = parse_fragment(src, 120);
        assert_eq!(ours.html.html(), Html::parse_fragment(src).html());
    }

    #[test]
    fn in_a_document_written_as_xhtml_a_self_closed_element_is_empty() {
        let body = "<body><h3><a id=\"x\" /><a id=\"y\" />Title</h3><p>after</p>\
                    <div class=\"c\"/><p>last</p><script src=\"s.js\"/></body></html>";
        let xhtml = format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \
             \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd\">\n\
             <html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t</title></head>{body}"
        );
        let out = parse_document(&xhtml, 120).html.html();
        assert!(
            out.contains(r#"<h3><a id="x"></a><a id="y"></a>Title</h3><p>after</p>"#),
            "{out}"
        );
        assert!(out.contains(r#"<div class="c"></div><p>last</p>"#), "{out}");
        // An element whose content is raw text, self-closed, is empty too: what follows stays.
        for raw in [
            "iframe src=\"v.html\"",
            "script src=\"s.js\"",
            "textarea",
            "noscript",
            "style",
        ] {
            let page = xhtml.replace("<p>after</p>", &format!("<{raw}/><p>after</p>"));
            let out = parse_document(&page, 120).html.html();
            assert!(out.contains("<p>after</p>"), "{raw}: {out}");
        }
        assert_eq!(out.matches("id=\"y\"").count(), 1, "{out}");
        // The declaration is left out before parsing, its line kept.
        assert_eq!(
            without_xml_declaration(&xhtml),
            xhtml.replacen("<?xml version=\"1.0\"?>", "", 1)
        );
        assert_eq!(without_xml_declaration("<?xml\n?><p>"), "<?xml\n?><p>");
        assert_eq!(without_xml_declaration("<p>a</p>"), "<p>a</p>");
        // As HTML, the same markup keeps HTML's rules.
        let html = format!("<!DOCTYPE html><html><head><title>t</title></head>{body}");
        let ours = parse_document(&html, 120);
        assert_eq!(ours.html.html(), Html::parse_document(&html).html());
        assert!(written_as_xhtml("\u{feff}<?xml version='1.0'?><html>"));
        assert!(written_as_xhtml(" \n<?XML version='1.0'?><html>"));
        assert!(!written_as_xhtml(
            "<!DOCTYPE html><html><body>DTD XHTML</body>"
        ));
        // Only within the first 4 KiB, and before the body.
        assert!(!written_as_xhtml(&format!("{}<?xml ?>", " ".repeat(4093))));
        assert!(!written_as_xhtml("<html><body><?xml ?>"));
        assert!(written_as_xhtml(
            "<html><head><!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.1//EN\">"
        ));
    }

    #[test]
    fn nesting_past_the_limit_is_closed_where_it_opens_and_the_text_kept() {
        let n = 2_000;
        let src = format!(
            "<div>\n{}deep<p>para</p>{}after",
            "<div>".repeat(n),
            "</div>".repeat(n)
        );
        let parsed = parse_document(&src, 120);
        let (line, count) = parsed.cut.expect("cut");
        assert_eq!(line, 2);
        // html and body hold the first levels; the `p` inside is closed too.
        assert!(count > n - MAX_PARSE_DEPTH as usize, "{count}");
        assert_eq!(text_of(&parsed.html), "\ndeepparaafter");
        let deepest = parsed
            .html
            .root_element()
            .descendants()
            .filter_map(scraper::ElementRef::wrap)
            .map(|e| e.ancestors().count())
            .max();
        // Ancestors count the document node; the deepest elements are those closed, empty.
        assert_eq!(deepest, Some(MAX_PARSE_DEPTH as usize + 1));
        assert!(parsed.lines.len() > n - 120, "{}", parsed.lines.len());
    }

    #[test]
    fn deep_self_closing_html_tags_are_bounded_too() {
        // `<div/>` opens a div in HTML.
        let src = format!("{}x", "<div/>".repeat(5_000));
        let parsed = parse_fragment(&src, 120);
        assert!(parsed.cut.is_some());
        assert_eq!(text_of(&parsed.html), "x");
    }
}
