//! The fast reading of a chapter written as well-formed XHTML: the tree html5ever would build
//! for it (scraper's [`Html`], the same nodes made in the same order), without html5ever.
//!
//! html5ever reads a page a character at a time and checks every tag against the rules of
//! HTML's tree builder; in a fix of a 3000-chapter book that was most of the time spent
//! reading chapters. A chapter our own build wrote, or any tidy XHTML, uses few of those rules:
//! its tags nest as written. So [`parse`] reads the tokens ([`super::xml_read`]) and places
//! each where it is written, and declines (the caller then parses with html5ever) wherever
//! HTML would place it elsewhere or read it otherwise: a `p` opening inside a `p`'s reach, a
//! block inside a `p`, a list item whose list is not its parent, nested links or headings,
//! tables (HTML makes their implied `tbody`s), forms, SVG and MathML (their names are
//! adjusted), markup inside an element whose content HTML reads as raw text, text or
//! elements where the page's head and body do not let them stand, and anything nested deeper
//! than the sanitiser notes lines for (the depth guard and its `lines` are html5ever's).
//! What it keeps where HTML moves it: the white space between head and body goes into `html`,
//! that after `</body>` into the body, comments after it to `html` or the document; the first
//! line break of a `pre` is dropped; a page with no head gets an empty one.

use std::borrow::Cow;

use html5ever::tree_builder::{QuirksMode, TreeSink};
use html5ever::{Attribute, LocalName, local_name};
use scraper::{Html, HtmlTreeSink};

use super::sink::Sink;
use super::xml_read::{
    Declined, Doctype, Reader, Start, Token, decode, is_whitespace, local_name as local_name_of,
};
use super::{MAX_PARSE_DEPTH, Parsed};

/// Reads `src` (the XML declaration left out already, when on its first line) as html5ever
/// would, or `None` when this reading cannot promise the same tree.
pub(super) fn parse(src: &str, note_depth: u32) -> Option<Parsed> {
    // html5ever drops a byte order mark.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let sink = read(src, note_depth, HtmlTreeSink::new(document_for(src)))?;
    Some(Parsed {
        html: sink.finish(),
        cut: None,
        lines: Default::default(),
    })
}

/// Reads `src` (the XML declaration left out already, when on its first line) into `sink` as
/// html5ever would build its tree, or `None` when this reading cannot promise the same tree.
pub(super) fn read<'s, S: Sink<'s>>(src: &'s str, note_depth: u32, sink: S) -> Option<S> {
    if memchr::memchr(0, src.as_bytes()).is_some() {
        return None;
    }
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut builder = Builder {
        sink,
        open: Vec::with_capacity(16),
        mode: Mode::Initial,
        deepest: note_depth.min(MAX_PARSE_DEPTH) as usize,
        ignore_lf: false,
        pending: Pending::Nothing,
        quirks: false,
        source: std::marker::PhantomData,
    };
    let mut reader = Reader::new(src);
    loop {
        match reader.next_token() {
            Ok(Some(token)) => builder.token(token).ok()?,
            Ok(None) => break,
            Err(Declined) => return None,
        }
        if builder.sink.refused() {
            return None;
        }
    }
    if builder.mode != Mode::AfterAfterBody || !matches!(builder.pending, Pending::Nothing) {
        return None;
    }
    Some(builder.sink)
}

/// An empty document with room for the nodes of `src`: about one a `<` (an element's start
/// and end tags, the text after each), so that the tree is not copied as it grows.
fn document_for(src: &str) -> Html {
    let mut html = Html::new_document();
    let room = memchr::memchr_iter(b'<', src.as_bytes()).count() + 4;
    html.tree = ego_tree::Tree::with_capacity(scraper::Node::Document, room);
    html
}

/// Where the tree builder stands: HTML's insertion modes, those a page in order passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Initial,
    BeforeHtml,
    BeforeHead,
    InHead,
    AfterHead,
    InBody,
    AfterBody,
    AfterAfterBody,
}

/// What must follow the element just made.
#[derive(Debug, PartialEq)]
enum Pending {
    Nothing,
    /// A void element written `<img>`: its end tag, at once.
    EndOfVoid(LocalName),
    /// An element whose content HTML reads as raw text: at most one text (decoded when
    /// `rcdata`, else without `&`), then its end tag.
    RawText {
        rcdata: bool,
        text_seen: bool,
    },
}

/// How the body's rules treat a start tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Restructured, or read otherwise, by HTML: declined.
    Declined,
    /// Closes an open `p` in button scope.
    Block,
    Heading,
    /// `pre`, `listing`: a block whose first line break is dropped.
    Pre,
    /// `li` (true) or `dd`/`dt` (false): also close an open item.
    Item(bool),
    Anchor,
    Formatting,
    Void,
    /// `hr`: a void block.
    VoidBlock,
    /// A table, its parts only as HTML has them (see [`Builder::table_part`]).
    Table,
    /// Raw text; RCDATA (references decoded) when true.
    Raw(bool),
    /// `rb`, `rtc`: inside `ruby`.
    RubyBase,
    /// `rp`, `rt`: inside `ruby` or `rtc`.
    RubyText,
    Other,
}

/// Start tags HTML's tree builder restructures around, or whose content it reads otherwise:
/// declined.
const DECLINED: &[LocalName] = &[
    local_name!("html"),
    local_name!("head"),
    local_name!("body"),
    local_name!("frameset"),
    local_name!("form"),
    local_name!("plaintext"),
    local_name!("image"),
    local_name!("textarea"),
    local_name!("xmp"),
    local_name!("select"),
    local_name!("optgroup"),
    local_name!("option"),
    local_name!("math"),
    local_name!("svg"),
    local_name!("caption"),
    local_name!("col"),
    local_name!("colgroup"),
    local_name!("frame"),
    local_name!("tbody"),
    local_name!("td"),
    local_name!("tfoot"),
    local_name!("th"),
    local_name!("thead"),
    local_name!("tr"),
    local_name!("template"),
    local_name!("button"),
    local_name!("nobr"),
    local_name!("selectedcontent"),
];

/// Blocks that close a `p` open in button scope.
const BLOCKS: &[LocalName] = &[
    local_name!("p"),
    local_name!("div"),
    local_name!("section"),
    local_name!("blockquote"),
    local_name!("ul"),
    local_name!("ol"),
    local_name!("aside"),
    local_name!("article"),
    local_name!("address"),
    local_name!("center"),
    local_name!("details"),
    local_name!("dialog"),
    local_name!("dir"),
    local_name!("dl"),
    local_name!("fieldset"),
    local_name!("figcaption"),
    local_name!("figure"),
    local_name!("footer"),
    local_name!("header"),
    local_name!("hgroup"),
    local_name!("main"),
    local_name!("nav"),
    local_name!("search"),
    local_name!("summary"),
    local_name!("menu"),
];

/// Formatting elements (HTML's list of them is kept in step with the open ones).
const FORMATTING: &[LocalName] = &[
    local_name!("em"),
    local_name!("i"),
    local_name!("b"),
    local_name!("strong"),
    local_name!("code"),
    local_name!("small"),
    local_name!("s"),
    local_name!("u"),
    local_name!("big"),
    local_name!("font"),
    local_name!("strike"),
    local_name!("tt"),
];

/// Void elements (the head's among them: in the body they stand where written).
const VOIDS: &[LocalName] = &[
    local_name!("br"),
    local_name!("img"),
    local_name!("wbr"),
    local_name!("area"),
    local_name!("embed"),
    local_name!("keygen"),
    local_name!("input"),
    local_name!("param"),
    local_name!("source"),
    local_name!("track"),
    local_name!("base"),
    local_name!("basefont"),
    local_name!("bgsound"),
    local_name!("link"),
    local_name!("meta"),
];

/// Elements whose content is raw text (`noscript` too: html5ever runs with scripting on).
const RAW_TEXT: &[LocalName] = &[
    local_name!("style"),
    local_name!("script"),
    local_name!("noframes"),
    local_name!("noscript"),
    local_name!("noembed"),
    local_name!("iframe"),
];

fn kind(name: &LocalName) -> Kind {
    let is = |set: &[LocalName]| set.contains(name);
    match *name {
        local_name!("span") => Kind::Other,
        local_name!("h1")
        | local_name!("h2")
        | local_name!("h3")
        | local_name!("h4")
        | local_name!("h5")
        | local_name!("h6") => Kind::Heading,
        local_name!("pre") | local_name!("listing") => Kind::Pre,
        local_name!("li") => Kind::Item(true),
        local_name!("dd") | local_name!("dt") => Kind::Item(false),
        local_name!("a") => Kind::Anchor,
        local_name!("hr") => Kind::VoidBlock,
        local_name!("table") => Kind::Table,
        local_name!("title") => Kind::Raw(true),
        local_name!("rb") | local_name!("rtc") => Kind::RubyBase,
        local_name!("rp") | local_name!("rt") => Kind::RubyText,
        _ if is(BLOCKS) => Kind::Block,
        _ if is(FORMATTING) => Kind::Formatting,
        _ if is(VOIDS) => Kind::Void,
        _ if is(RAW_TEXT) => Kind::Raw(false),
        _ if is(DECLINED) => Kind::Declined,
        _ => Kind::Other,
    }
}

/// Elements that bound the button scope a `p` is looked for in.
fn bounds_button_scope(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("applet")
            | local_name!("caption")
            | local_name!("html")
            | local_name!("table")
            | local_name!("td")
            | local_name!("th")
            | local_name!("marquee")
            | local_name!("object")
            | local_name!("template")
            | local_name!("button")
    )
}

/// Special elements (other than `address`, `div`, `p`) that stop the search for an open list
/// item to close: those of HTML's list that can stand open in a page this reading takes.
fn stops_item_search(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("applet")
            | local_name!("article")
            | local_name!("aside")
            | local_name!("blockquote")
            | local_name!("body")
            | local_name!("center")
            | local_name!("dd")
            | local_name!("details")
            | local_name!("dialog")
            | local_name!("dir")
            | local_name!("dl")
            | local_name!("dt")
            | local_name!("fieldset")
            | local_name!("figcaption")
            | local_name!("figure")
            | local_name!("footer")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("header")
            | local_name!("hgroup")
            | local_name!("html")
            | local_name!("li")
            | local_name!("listing")
            | local_name!("main")
            | local_name!("marquee")
            | local_name!("menu")
            | local_name!("nav")
            | local_name!("object")
            | local_name!("ol")
            | local_name!("pre")
            | local_name!("search")
            | local_name!("section")
            | local_name!("summary")
            | local_name!("ul")
    )
}

fn is_heading(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
    )
}

struct Builder<'s, S: Sink<'s>> {
    sink: S,
    /// The open elements, `html` first.
    open: Vec<(S::Handle, LocalName)>,
    mode: Mode,
    /// Depth past which html5ever's guard would note lines or cut (declined).
    deepest: usize,
    /// A `pre` just opened: a line break opening the next text is dropped.
    ignore_lf: bool,
    pending: Pending,
    /// The page is in quirks mode (no doctype): a table does not close a `p`.
    quirks: bool,
    source: std::marker::PhantomData<&'s str>,
}

/// Elements inside which HTML reads a table's rules, not the body's.
fn is_table_part(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("table")
            | local_name!("thead")
            | local_name!("tbody")
            | local_name!("tfoot")
            | local_name!("tr")
            | local_name!("colgroup")
    )
}

impl<'s, S: Sink<'s>> Builder<'s, S> {
    fn token(&mut self, token: Token<'s>) -> Result<(), Declined> {
        let ignore_lf = std::mem::take(&mut self.ignore_lf);
        match std::mem::replace(&mut self.pending, Pending::Nothing) {
            Pending::Nothing => {}
            Pending::EndOfVoid(name) => {
                // `</br>` makes another `br` in HTML; other void end tags are dropped.
                return match token {
                    Token::End(end) if *end == *name && name != local_name!("br") => Ok(()),
                    _ => Err(Declined),
                };
            }
            Pending::RawText { rcdata, text_seen } => {
                return self.raw_text(token, rcdata, text_seen);
            }
        }
        match token {
            Token::Text(raw) => {
                let text = match (ignore_lf, decode(raw)?) {
                    (true, Cow::Borrowed(t)) => Cow::Borrowed(t.strip_prefix('\n').unwrap_or(t)),
                    (true, Cow::Owned(t)) => match t.strip_prefix('\n') {
                        Some(rest) => Cow::Owned(rest.to_string()),
                        None => Cow::Owned(t),
                    },
                    (false, text) => text,
                };
                self.text(text)
            }
            Token::Start(start) => self.start(start),
            Token::End(name) => self.end(name),
            Token::Comment(data) => self.comment(&decode_newlines(data)?),
            Token::Doctype(doctype) if self.mode == Mode::Initial => self.doctype(&doctype),
            Token::Bogus(data) if matches!(self.mode, Mode::Initial | Mode::BeforeHtml) => {
                self.comment(&decode_newlines(data)?)
            }
            Token::Doctype(_) | Token::Bogus(_) => Err(Declined),
        }
    }

    fn top(&self) -> Result<&(S::Handle, LocalName), Declined> {
        self.open.last().ok_or(Declined)
    }

    fn text(&mut self, text: Cow<'s, str>) -> Result<(), Declined> {
        if text.is_empty() {
            return Ok(());
        }
        let parent = match self.mode {
            // HTML moves text out of a table, save space between its parts.
            Mode::InBody if !is_table_part(&self.top()?.1) || is_whitespace(&text) => self.top()?.0,
            _ if !is_whitespace(&text) => return Err(Declined),
            Mode::Initial | Mode::BeforeHtml | Mode::BeforeHead => return Ok(()),
            // In the head, between head and body (`html`), after the body (the body,
            // still open).
            Mode::InBody
            | Mode::InHead
            | Mode::AfterHead
            | Mode::AfterBody
            | Mode::AfterAfterBody => self.top()?.0,
        };
        self.sink.text(parent, text);
        Ok(())
    }

    fn comment(&mut self, data: &str) -> Result<(), Declined> {
        let parent = match self.mode {
            Mode::Initial | Mode::BeforeHtml | Mode::AfterAfterBody => self.sink.document(),
            Mode::AfterBody => self.open.first().ok_or(Declined)?.0,
            _ => self.top()?.0,
        };
        self.sink.comment(parent, data);
        Ok(())
    }

    fn doctype(&mut self, doctype: &Doctype<'_>) -> Result<(), Declined> {
        let quirks = quirks_of(doctype)?;
        let name = doctype.name.to_ascii_lowercase();
        self.sink.doctype(
            &name,
            doctype.public.unwrap_or_default(),
            doctype.system.unwrap_or_default(),
        );
        self.sink.quirks(quirks);
        self.mode = Mode::BeforeHtml;
        Ok(())
    }

    /// Makes an element at the current node (pushed when it stays open); declined past the
    /// depth the guard watches.
    fn insert(
        &mut self,
        name: LocalName,
        attrs: Vec<Attribute>,
        open: bool,
    ) -> Result<(), Declined> {
        if self.open.len() + 1 > self.deepest {
            return Err(Declined);
        }
        let parent = match self.open.last() {
            Some((node, _)) => *node,
            None => self.sink.document(),
        };
        let node = self.sink.element(parent, name.clone(), attrs);
        if open {
            self.open.push((node, name));
        }
        Ok(())
    }

    fn start(&mut self, start: Start<'_>) -> Result<(), Declined> {
        let name = local_name_of(start.name);
        let closed = start.self_closing;
        match (self.mode, &name) {
            (Mode::InBody, _) => self.body_start(name, start.attrs, closed),
            (Mode::Initial, &local_name!("html")) => {
                // No doctype: quirks mode.
                self.sink.quirks(QuirksMode::Quirks);
                self.quirks = true;
                self.mode = Mode::BeforeHtml;
                self.start(start)
            }
            (Mode::BeforeHtml, &local_name!("html")) if !closed => {
                self.insert(name, start.attrs, true)?;
                self.mode = Mode::BeforeHead;
                Ok(())
            }
            (Mode::BeforeHead, &local_name!("head")) if !closed => {
                self.insert(name, start.attrs, true)?;
                self.mode = Mode::InHead;
                Ok(())
            }
            (Mode::BeforeHead, &local_name!("body")) => {
                // No head: HTML makes an empty one.
                self.insert(local_name!("head"), Vec::new(), false)?;
                self.mode = Mode::AfterHead;
                self.start(start)
            }
            (Mode::AfterHead, &local_name!("body")) if !closed => {
                self.insert(name, start.attrs, true)?;
                self.mode = Mode::InBody;
                Ok(())
            }
            (Mode::InHead, _) => match name {
                local_name!("base")
                | local_name!("basefont")
                | local_name!("bgsound")
                | local_name!("link")
                | local_name!("meta") => self.void(name, start.attrs, closed),
                local_name!("title") => self.raw(name, start.attrs, closed, true),
                local_name!("style")
                | local_name!("script")
                | local_name!("noframes")
                | local_name!("noscript") => self.raw(name, start.attrs, closed, false),
                // Anything else ends the head in HTML.
                _ => Err(Declined),
            },
            _ => Err(Declined),
        }
    }

    fn void(
        &mut self,
        name: LocalName,
        attrs: Vec<Attribute>,
        closed: bool,
    ) -> Result<(), Declined> {
        self.insert(name.clone(), attrs, false)?;
        if !closed {
            self.pending = Pending::EndOfVoid(name);
        }
        Ok(())
    }

    fn raw(
        &mut self,
        name: LocalName,
        attrs: Vec<Attribute>,
        closed: bool,
        rcdata: bool,
    ) -> Result<(), Declined> {
        self.insert(name, attrs, !closed)?;
        if !closed {
            self.pending = Pending::RawText {
                rcdata,
                text_seen: false,
            };
        }
        Ok(())
    }

    /// A token inside an element whose content is raw text.
    fn raw_text(
        &mut self,
        token: Token<'s>,
        rcdata: bool,
        text_seen: bool,
    ) -> Result<(), Declined> {
        match token {
            Token::Text(raw) if !text_seen && (rcdata || !raw.contains('&')) => {
                let text = decode(raw)?;
                let parent = self.top()?.0;
                self.sink.text(parent, text);
                self.pending = Pending::RawText {
                    rcdata,
                    text_seen: true,
                };
                Ok(())
            }
            Token::End(name) if *self.top()?.1 == *name => {
                self.open.pop();
                Ok(())
            }
            _ => Err(Declined),
        }
    }

    /// A start tag in the body, by HTML's rules for it.
    fn body_start(
        &mut self,
        name: LocalName,
        attrs: Vec<Attribute>,
        closed: bool,
    ) -> Result<(), Declined> {
        let top = &self.top()?.1;
        if is_table_part(top) {
            return self.table_part(name, attrs, closed);
        }
        let kind = kind(&name);
        let closes_p = match kind {
            Kind::Block | Kind::Heading | Kind::Pre | Kind::Item(_) | Kind::VoidBlock => true,
            Kind::Table => !self.quirks,
            _ => false,
        };
        if closes_p && self.p_in_button_scope() {
            return Err(Declined);
        }
        let ok = match kind {
            Kind::Declined => false,
            Kind::Heading => !is_heading(top),
            Kind::Item(list) => !self.open_item(list),
            Kind::Anchor => !self.open.iter().any(|(_, n)| *n == local_name!("a")),
            // HTML keeps at most three alike open in its list of formatting elements.
            Kind::Formatting => self.open.iter().filter(|(_, n)| *n == name).count() < 3,
            Kind::RubyBase => *top == local_name!("ruby"),
            Kind::RubyText => matches!(*top, local_name!("ruby") | local_name!("rtc")),
            _ => true,
        };
        if !ok {
            return Err(Declined);
        }
        match kind {
            Kind::Void | Kind::VoidBlock => self.void(name, attrs, closed),
            Kind::Raw(rcdata) => self.raw(name, attrs, closed, rcdata),
            _ => {
                self.insert(name, attrs, !closed)?;
                self.ignore_lf = kind == Kind::Pre && !closed;
                Ok(())
            }
        }
    }

    /// A start tag where a table's part is the current node: only the parts that stand
    /// there as written (HTML makes a `tbody` for a `tr` in a `table`, a `tr` for a `td` in a
    /// `tbody`, and moves anything else out of the table).
    fn table_part(
        &mut self,
        name: LocalName,
        attrs: Vec<Attribute>,
        closed: bool,
    ) -> Result<(), Declined> {
        let top = &self.top()?.1;
        let ok = match (top, &name) {
            (
                &local_name!("table"),
                &local_name!("caption")
                | &local_name!("colgroup")
                | &local_name!("thead")
                | &local_name!("tbody")
                | &local_name!("tfoot"),
            ) => true,
            (
                &local_name!("thead") | &local_name!("tbody") | &local_name!("tfoot"),
                &local_name!("tr"),
            ) => true,
            (&local_name!("tr"), &local_name!("td") | &local_name!("th")) => true,
            (&local_name!("colgroup"), &local_name!("col")) => {
                return self.void(name, attrs, closed);
            }
            _ => false,
        };
        if !ok {
            return Err(Declined);
        }
        self.insert(name, attrs, !closed)
    }

    fn p_in_button_scope(&self) -> bool {
        for (_, name) in self.open.iter().rev() {
            if *name == local_name!("p") {
                return true;
            }
            if bounds_button_scope(name) {
                return false;
            }
        }
        false
    }

    /// Whether a new list item (`li` when `list`, else `dd`/`dt`) would close an open one.
    fn open_item(&self, list: bool) -> bool {
        for (_, name) in self.open.iter().rev() {
            let item = match list {
                true => *name == local_name!("li"),
                false => matches!(*name, local_name!("dd") | local_name!("dt")),
            };
            if item {
                return true;
            }
            if stops_item_search(name) {
                return false;
            }
        }
        false
    }

    fn end(&mut self, name: &str) -> Result<(), Declined> {
        if self.mode == Mode::AfterBody && name == "html" {
            self.mode = Mode::AfterAfterBody;
            return Ok(());
        }
        let (_, top) = self.top()?;
        if **top != *name {
            return Err(Declined);
        }
        match self.mode {
            // `</body>` leaves the body open: what follows goes into it.
            Mode::InBody if name == "body" => self.mode = Mode::AfterBody,
            Mode::InBody => {
                self.open.pop();
            }
            Mode::InHead if name == "head" => {
                self.open.pop();
                self.mode = Mode::AfterHead;
            }
            _ => return Err(Declined),
        }
        Ok(())
    }
}

/// Comment data as HTML reads it: line breaks normalised, nothing decoded.
fn decode_newlines(data: &str) -> Result<std::borrow::Cow<'_, str>, Declined> {
    if memchr::memchr(b'\r', data.as_bytes()).is_none() {
        return Ok(std::borrow::Cow::Borrowed(data));
    }
    Ok(data.replace("\r\n", "\n").replace('\r', "\n").into())
}

/// The quirks mode html5ever sets for a doctype; declined for any but `html`, with no public
/// identifier or an XHTML one.
fn quirks_of(doctype: &Doctype<'_>) -> Result<QuirksMode, Declined> {
    if !doctype.name.eq_ignore_ascii_case("html") {
        return Err(Declined);
    }
    let system = doctype.system.map(str::to_ascii_lowercase);
    if system.as_deref() == Some("http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd") {
        return Err(Declined);
    }
    let Some(public) = doctype.public.map(str::to_ascii_lowercase) else {
        return Ok(QuirksMode::NoQuirks);
    };
    if !public.starts_with("-//w3c//dtd xhtml ") {
        return Err(Declined);
    }
    let limited = [
        "-//w3c//dtd xhtml 1.0 frameset//",
        "-//w3c//dtd xhtml 1.0 transitional//",
    ];
    Ok(match limited.iter().any(|p| public.starts_with(p)) {
        true => QuirksMode::LimitedQuirks,
        false => QuirksMode::NoQuirks,
    })
}
