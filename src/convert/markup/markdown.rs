//! Markdown chapters -> XHTML body fragment.
//!
//! `pulldown-cmark` (CommonMark + tables, strikethrough, footnotes, task lists; no smart
//! punctuation) yields events that we render to an HTML string ourselves, so footnotes can
//! become EPUB 3 note pairs, task list markers disabled checkboxes, and bare URLs GFM's
//! extended autolinks ([`super::autolink`]). Raw HTML in the Markdown is copied through as is;
//! the whole string then goes through the HTML5 parser and the shared sanitiser, which makes it well-formed,
//! resolves images and demotes headings, exactly as for HTML chapters.

use std::collections::{HashMap, HashSet};

use super::ids;
use super::math;
use super::parse::parse_fragment;
use super::sanitize::{self, Deep, MAX_DEPTH, Warnings, sanitize};
use super::{
    Fragment, ImageResolver, MarkupError, SplitAt, TextFixer, autolink, escape_attr, escape_text,
    highlight,
};
use pulldown_cmark::{
    Alignment, CodeBlockKind, CowStr, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd,
};

/// How Markdown is converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkdownOptions {
    /// Highlight fenced code blocks that name their language (`[style] highlight`).
    pub highlight: bool,
    /// mdBook's line-hiding prefixes by language, besides Rust's (see [`super::mdbook`]).
    pub hidelines: super::mdbook::HideLines,
    /// The book's own TeX macros, expanded in its formulas (see [`super::tex_macros`]).
    pub macros: crate::project::TexMacros,
}

impl Default for MarkdownOptions {
    fn default() -> MarkdownOptions {
        MarkdownOptions {
            highlight: true,
            hidelines: Default::default(),
            macros: Default::default(),
        }
    }
}

/// [`markdown_to_xhtml_with`] with the default options.
#[cfg(test)]
pub fn markdown_to_xhtml(
    src: &str,
    images: &mut dyn ImageResolver,
) -> Result<Fragment, MarkupError> {
    markdown_to_xhtml_with(src, images, MarkdownOptions::default(), None, None)
}

/// Converts a Markdown chapter to an XHTML body fragment.
///
/// A leading heading (`# Title`, or `## Title` as the Rust book's sections open) becomes
/// [`Fragment::title`] and leaves the body; other headings move one level down. Footnotes become `noteref`/`footnote` pairs that link both ways, with the
/// notes as `<aside>` elements at the end. The text of the body (outside code) is rewritten by
/// `text`; the document is cut into pieces at its headings when `split` says where.
/// Fails only when the resolver rejects a local image.
pub fn markdown_to_xhtml_with<'a>(
    src: &str,
    images: &mut dyn ImageResolver,
    opts: MarkdownOptions,
    mut text: Option<&'a mut TextFixer<'a>>,
    split: Option<SplitAt<'_>>,
) -> Result<Fragment, MarkupError> {
    let mut warnings = Warnings::default();
    // CommonMark: "the Unicode character U+0000 must be replaced with U+FFFD".
    let src = match src.contains('\0') {
        true => std::borrow::Cow::Owned(src.replace('\0', "\u{FFFD}")),
        false => std::borrow::Cow::Borrowed(src),
    };
    let src = super::mdbook::admonitions(&src);
    let pandoc = super::pandoc::rewrite(&src, parser_options());
    let Rendered {
        html,
        flattened,
        marker,
        hidden,
        mut highlighted,
    } = render(&pandoc.text, opts, &mut warnings, &|l| {
        pandoc.source_line(l)
    });
    let parsed = parse_fragment(&html, MAX_DEPTH as u32);
    // Lines of the rendered HTML mean nothing to the author: deep raw HTML goes unlocated.
    let deep = Deep {
        line_of: &|_| None,
        flattened: flattened.map(Some),
        cut: parsed.cut.map(|(_, count)| (None, count)),
    };
    let options = sanitize::Options {
        head_title: None,
        deep,
        marker: marker.as_deref(),
        text: text.as_deref_mut().map(|t| t as &mut TextFixer<'_>),
        split,
    };
    let mut fragment = sanitize(parsed.html.root_element(), options, images, warnings)?;
    // A highlighted block's text is code to the text-fix stage, as in the sanitiser.
    if let Some(fix) = text {
        for block in &mut highlighted {
            if let Some(fixed) = highlight::fix_text(block, &mut |t| fix(t, true)) {
                *block = fixed;
            }
        }
    }
    fragment.unsupported = pandoc.unsupported;
    fragment.hidden_letters = hidden;
    if !highlighted.is_empty() {
        fragment.body = highlight::restore(&fragment.body, &highlighted);
        for piece in &mut fragment.pieces {
            piece.body = highlight::restore(&piece.body, &highlighted);
        }
    }
    Ok(fragment)
}

struct ImageFrame {
    dest: String,
    title: String,
    alt: String,
}

/// Markdown rendered to HTML, with what the sanitiser needs to know about it.
struct Rendered {
    html: String,
    /// The source line where elements nested too deep began to be left out.
    flattened: Option<usize>,
    /// What the ids of notes and references begin with (see [`ids::marker`]), when the
    /// source can hold notes.
    marker: Option<String>,
    /// Letters and digits of the hidden code lines left out (see [`super::mdbook`]).
    hidden: usize,
    /// The highlighted code blocks, put in place of their placeholders after sanitising.
    highlighted: Vec<String>,
}

#[derive(Default)]
struct Renderer {
    /// What the ids written for notes begin with.
    marker: String,
    /// Output buffers: the body first, then one per open footnote definition.
    bufs: Vec<String>,
    /// Labels of open footnote definitions, parallel to `bufs[1..]`.
    def_labels: Vec<String>,
    defined: HashSet<String>,
    /// (key, label as written) of each first definition, in source order.
    def_order: Vec<(String, String)>,
    dup_defs: Vec<String>,
    defs: HashMap<String, String>,
    numbers: HashMap<String, usize>,
    ref_counts: HashMap<String, usize>,
    images: Vec<ImageFrame>,
    aligns: Vec<Alignment>,
    cell: usize,
    in_head: bool,
    tbody_open: bool,
    /// Text not yet written: consecutive text events, searched for autolinks together.
    pending: String,
    /// Inside a link (no autolinks there).
    link_depth: usize,
    /// Inside a code block (no autolinks there either).
    in_code: bool,
    /// Highlight fenced code naming a language.
    highlight: bool,
    /// Such a block being read: its language and its text so far.
    code: Option<(String, String)>,
    /// mdBook's line-hiding prefixes; the rule of the code block being read; the letters of
    /// the lines hidden so far.
    hidelines: super::mdbook::HideLines,
    hide: Option<super::mdbook::Hide>,
    hidden: usize,
    /// The book's own TeX macros.
    macros: crate::project::TexMacros,
    /// Highlighted blocks, each standing in the HTML as a placeholder (see
    /// [`highlight::placeholder`]); None where the source could hold a placeholder's marks.
    highlighted: Option<Vec<String>>,
    /// For each open block quote: whether it is written as an admonition's `<aside>`.
    quotes: Vec<bool>,
}

/// Renders Markdown to an HTML string (not yet well-formed: raw HTML passes through). Elements
/// nested deeper than the sanitiser keeps are left out, their content kept, so that the HTML
/// parser never sees a list nested 100 000 deep; the source line where that began comes back
/// with the HTML.
/// `source_line` gives the author's line of a line of `src` (which pandoc's constructs were
/// rewritten into).
fn render(
    src: &str,
    options: MarkdownOptions,
    warnings: &mut Warnings,
    source_line: &dyn Fn(usize) -> usize,
) -> Rendered {
    let opts = parser_options();
    let src = &*math::prepare(src, opts);
    let events = || Parser::new_ext(src, opts).into_offset_iter();
    let mut r = Renderer {
        bufs: vec![String::with_capacity(src.len() + src.len() / 4)],
        highlight: options.highlight,
        hidelines: options.hidelines,
        macros: options.macros,
        highlighted: highlight::placeholders_safe(src).then(Vec::new),
        ..Renderer::default()
    };
    // References need to know which notes are defined, possibly further down: a first pass
    // finds them, when there can be any. Events are not kept: a list nested 100 000 deep
    // makes a few hundred thousand of them.
    let notes = src.contains("[^");
    if notes {
        r.marker = ids::marker(src);
        for (e, _) in events() {
            if let Event::Start(Tag::FootnoteDefinition(label)) = e {
                r.defined.insert(label_key(&label));
            }
        }
    }
    // For each open element: whether its markup was left out.
    let mut open: Vec<bool> = Vec::new();
    let mut flattened = None;
    let mut lines = math::Lines::default();
    for (e, at) in events() {
        let left_out = match &e {
            Event::Start(tag) if makes_element(tag) => {
                let left_out = open.len() >= MAX_DEPTH;
                open.push(left_out);
                if left_out && flattened.is_none() {
                    let before = src.get(..at.start).unwrap_or_default();
                    flattened = Some(source_line(before.matches('\n').count() + 1));
                }
                left_out
            }
            Event::End(end) if ends_element(end) => {
                let left_out = open.pop() == Some(true);
                if left_out && ends_block(end) {
                    r.push("\n");
                }
                left_out
            }
            _ => false,
        };
        let at_line = |lines: &mut math::Lines| source_line(lines.line(src, at.start));
        if !r.formula(&e, &mut || at_line(&mut lines), warnings) && !left_out {
            r.event(e);
        }
    }
    let marker = notes.then(|| r.marker.clone());
    let hidden = r.hidden;
    let highlighted = r.highlighted.take().unwrap_or_default();
    Rendered {
        html: r.finish(warnings),
        flattened,
        marker,
        hidden,
        highlighted,
    }
}

/// What pulldown-cmark reads: GFM's extensions, and pandoc's definition lists and heading
/// attributes.
fn parser_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_GFM
        | Options::ENABLE_MATH
}

/// Tags written as an element around their content (not raw HTML, not the notes' separate
/// buffers, not images, whose content is their alt text).
fn makes_element(tag: &Tag<'_>) -> bool {
    !matches!(
        tag,
        Tag::HtmlBlock | Tag::MetadataBlock(_) | Tag::FootnoteDefinition(_) | Tag::Image { .. }
    )
}

/// The end of a [`makes_element`] tag.
fn ends_element(end: &TagEnd) -> bool {
    !matches!(
        end,
        TagEnd::HtmlBlock | TagEnd::MetadataBlock(_) | TagEnd::FootnoteDefinition | TagEnd::Image
    )
}

/// Block ends: when their markup is left out, a line break still separates the words.
fn ends_block(end: &TagEnd) -> bool {
    !matches!(
        end,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
    )
}

impl Renderer {
    /// A code block's content: highlighted, else escaped. The highlighted XHTML (many short
    /// spans) goes into the HTML as a placeholder, put back after the sanitiser: parsing and
    /// sanitising the spans again cost more than highlighting them.
    fn code_block(&mut self, code: &str, lang: &str) -> String {
        let Some(lit) = self
            .highlight
            .then(|| highlight::highlight(code, lang))
            .flatten()
        else {
            return escape_text(code);
        };
        match &mut self.highlighted {
            Some(blocks) => {
                blocks.push(lit);
                highlight::placeholder(blocks.len() - 1)
            }
            None => lit,
        }
    }

    fn out(&mut self) -> &mut String {
        if self.bufs.is_empty() {
            self.bufs.push(String::new());
        }
        let last = self.bufs.len() - 1;
        &mut self.bufs[last]
    }

    fn push(&mut self, s: &str) {
        self.out().push_str(s);
    }

    fn event(&mut self, e: Event<'_>) {
        if let (Some((_, code)), Event::Text(t)) = (&mut self.code, &e) {
            code.push_str(t);
            return;
        }
        if let Event::Text(t) = &e
            && self.images.is_empty()
            && self.link_depth == 0
            && !self.in_code
        {
            self.pending.push_str(t);
            return;
        }
        self.flush_text();
        if let Some(frame) = self.images.last_mut() {
            // Inside an image everything is alt text.
            match e {
                Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                    frame.alt.push_str(&t)
                }
                Event::SoftBreak | Event::HardBreak => frame.alt.push(' '),
                Event::Start(Tag::Image {
                    dest_url, title, ..
                }) => self.images.push(ImageFrame {
                    dest: dest_url.to_string(),
                    title: title.to_string(),
                    alt: String::new(),
                }),
                Event::End(TagEnd::Image) => self.end_image(),
                _ => {}
            }
            return;
        }
        match e {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.push(&escape_text(&t)),
            Event::Code(t) => {
                let s = format!("<code>{}</code>", escape_text(&t));
                self.push(&s);
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.push(&escape_text(&t)),
            Event::Html(h) | Event::InlineHtml(h) => self.push(&h),
            Event::FootnoteReference(label) => self.footnote_ref(&label),
            Event::SoftBreak => self.push("\n"),
            Event::HardBreak => self.push("<br />\n"),
            Event::Rule => self.push("<hr />\n"),
            Event::TaskListMarker(done) => self.push(if done {
                "<input type=\"checkbox\" checked=\"\" disabled=\"\" /> "
            } else {
                "<input type=\"checkbox\" disabled=\"\" /> "
            }),
        }
    }

    /// Writes a formula as MathML (or, when the converter refuses it, as code with a warning at
    /// its `line`); false when `e` is not one, or is inside an image, whose alt text takes it.
    fn formula(
        &mut self,
        e: &Event<'_>,
        line: &mut dyn FnMut() -> usize,
        warnings: &mut Warnings,
    ) -> bool {
        let (tex, display) = match e {
            Event::InlineMath(tex) if self.images.is_empty() => (tex, false),
            Event::DisplayMath(tex) if self.images.is_empty() => (tex, true),
            _ => return false,
        };
        let formula = math::formula(tex, display, &self.macros);
        if let Some(why) = &formula.failure {
            warnings.add_at(Some(line()), math::failure_message(tex, why));
        }
        self.flush_text();
        self.push(&formula.html);
        true
    }

    /// Writes the pending text, its bare URLs and addresses as links.
    fn flush_text(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let text = std::mem::take(&mut self.pending);
        let mut out = String::with_capacity(text.len() + 16);
        let mut last = 0;
        for link in autolink::find(&text) {
            let before = text.get(last..link.range.start).unwrap_or_default();
            let shown = text.get(link.range.clone()).unwrap_or_default();
            out.push_str(&escape_text(before));
            out.push_str("<a href=\"");
            out.push_str(&escape_attr(&link.href));
            out.push_str("\">");
            out.push_str(&escape_text(shown));
            out.push_str("</a>");
            last = link.range.end;
        }
        out.push_str(&escape_text(text.get(last..).unwrap_or_default()));
        self.push(&out);
    }

    fn start(&mut self, tag: Tag<'_>) {
        let s: String = match tag {
            Tag::Paragraph => "<p>".into(),
            Tag::Heading {
                level, id, classes, ..
            } => heading_tag(level, id.as_deref(), &classes),
            Tag::BlockQuote(kind) => {
                self.quotes.push(kind.is_some());
                match kind {
                    Some(kind) => super::mdbook::alert(kind),
                    None => "<blockquote>\n".into(),
                }
            }
            Tag::CodeBlock(kind) => {
                self.in_code = true;
                if let CodeBlockKind::Fenced(info) = &kind {
                    self.hide = super::mdbook::hide_rule(info, &self.hidelines);
                }
                // The language is the info string's first word (mdBook adds `,ignore` and the like).
                let lang = match &kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split([' ', '\t', ',']).next().unwrap_or("")
                    }
                    CodeBlockKind::Indented => "",
                };
                if self.hide.is_some() {
                    self.code = Some((lang.to_string(), String::new()));
                }
                if lang.is_empty() {
                    "<pre><code>".into()
                } else {
                    if self.highlight {
                        self.code = Some((lang.to_string(), String::new()));
                    }
                    format!("<pre><code class=\"language-{}\">", escape_attr(lang))
                }
            }
            Tag::HtmlBlock | Tag::MetadataBlock(_) => String::new(),
            Tag::List(Some(1)) => "<ol>\n".into(),
            Tag::List(Some(n)) => format!("<ol start=\"{n}\">\n"),
            Tag::List(None) => "<ul>\n".into(),
            Tag::Item => "<li>".into(),
            Tag::FootnoteDefinition(label) => {
                self.def_labels.push(label.to_string());
                self.bufs.push(String::new());
                String::new()
            }
            Tag::DefinitionList => "<dl>".into(),
            Tag::DefinitionListTitle => "<dt>".into(),
            Tag::DefinitionListDefinition => "<dd>".into(),
            Tag::Table(aligns) => {
                self.aligns = aligns;
                self.tbody_open = false;
                "<table>\n".into()
            }
            Tag::TableHead => {
                self.in_head = true;
                self.cell = 0;
                "<thead><tr>".into()
            }
            Tag::TableRow => {
                self.cell = 0;
                if self.tbody_open {
                    "<tr>".into()
                } else {
                    self.tbody_open = true;
                    "<tbody>\n<tr>".into()
                }
            }
            Tag::TableCell => {
                let el = if self.in_head { "th" } else { "td" };
                let align = match self.aligns.get(self.cell) {
                    Some(Alignment::Left) => " style=\"text-align: left\"",
                    Some(Alignment::Center) => " style=\"text-align: center\"",
                    Some(Alignment::Right) => " style=\"text-align: right\"",
                    _ => "",
                };
                self.cell += 1;
                format!("<{el}{align}>")
            }
            Tag::Emphasis => "<em>".into(),
            Tag::Strong => "<strong>".into(),
            Tag::Strikethrough => "<del>".into(),
            Tag::Superscript => "<sup>".into(),
            Tag::Subscript => "<sub>".into(),
            Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            } => {
                self.link_depth += 1;
                let href = if link_type == LinkType::Email && !dest_url.starts_with("mailto:") {
                    format!("mailto:{dest_url}")
                } else {
                    dest_url.to_string()
                };
                let mut s = format!("<a href=\"{}\"", escape_attr(&href));
                if !title.is_empty() {
                    s.push_str(&format!(" title=\"{}\"", escape_attr(&title)));
                }
                s.push('>');
                s
            }
            Tag::Image {
                dest_url, title, ..
            } => {
                self.images.push(ImageFrame {
                    dest: dest_url.to_string(),
                    title: title.to_string(),
                    alt: String::new(),
                });
                String::new()
            }
        };
        self.push(&s);
    }

    fn end(&mut self, tag: TagEnd) {
        let s: String = match tag {
            TagEnd::Paragraph => "</p>\n".into(),
            TagEnd::Heading(level) => format!("</h{}>\n", level_num(level)),
            TagEnd::BlockQuote(_) => match self.quotes.pop() {
                Some(true) => "</aside>\n".into(),
                _ => "</blockquote>\n".into(),
            },
            TagEnd::CodeBlock => {
                self.in_code = false;
                let code = match self.code.take() {
                    Some((lang, code)) => {
                        let code = match self.hide.take() {
                            Some(rule) => {
                                let (shown, letters) = super::mdbook::hide_lines(&code, &rule);
                                self.hidden += letters;
                                shown
                            }
                            None => code.into(),
                        };
                        self.code_block(&code, &lang)
                    }
                    None => String::new(),
                };
                format!("{code}</code></pre>\n")
            }
            TagEnd::HtmlBlock | TagEnd::MetadataBlock(_) => String::new(),
            TagEnd::List(true) => "</ol>\n".into(),
            TagEnd::List(false) => "</ul>\n".into(),
            TagEnd::Item => "</li>\n".into(),
            TagEnd::FootnoteDefinition => {
                if self.bufs.len() > 1 {
                    let content = self.bufs.pop().unwrap_or_default();
                    if let Some(label) = self.def_labels.pop() {
                        let key = label_key(&label);
                        if self.defs.contains_key(&key) {
                            self.dup_defs.push(label);
                        } else {
                            self.def_order.push((key.clone(), label));
                            self.defs.insert(key, content);
                        }
                    }
                }
                String::new()
            }
            TagEnd::DefinitionList => "</dl>\n".into(),
            TagEnd::DefinitionListTitle => "</dt>\n".into(),
            TagEnd::DefinitionListDefinition => "</dd>\n".into(),
            TagEnd::Table => {
                let close = if self.tbody_open { "</tbody>\n" } else { "" };
                self.tbody_open = false;
                format!("{close}</table>\n")
            }
            TagEnd::TableHead => {
                self.in_head = false;
                "</tr></thead>\n".into()
            }
            TagEnd::TableRow => "</tr>\n".into(),
            TagEnd::TableCell => {
                if self.in_head {
                    "</th>".into()
                } else {
                    "</td>".into()
                }
            }
            TagEnd::Emphasis => "</em>".into(),
            TagEnd::Strong => "</strong>".into(),
            TagEnd::Strikethrough => "</del>".into(),
            TagEnd::Superscript => "</sup>".into(),
            TagEnd::Subscript => "</sub>".into(),
            TagEnd::Link => {
                self.link_depth = self.link_depth.saturating_sub(1);
                "</a>".into()
            }
            TagEnd::Image => {
                self.end_image();
                String::new()
            }
        };
        self.push(&s);
    }

    fn end_image(&mut self) {
        let Some(frame) = self.images.pop() else {
            return;
        };
        if let Some(outer) = self.images.last_mut() {
            outer.alt.push_str(&frame.alt);
            return;
        }
        let mut s = format!(
            "<img src=\"{}\" alt=\"{}\"",
            escape_attr(&frame.dest),
            escape_attr(&frame.alt)
        );
        if !frame.title.is_empty() {
            s.push_str(&format!(" title=\"{}\"", escape_attr(&frame.title)));
        }
        s.push_str(" />");
        self.push(&s);
    }

    fn footnote_ref(&mut self, label: &str) {
        let key = label_key(label);
        if !self.defined.contains(&key) {
            let s = escape_text(&format!("[^{label}]"));
            self.push(&s);
            return;
        }
        let next = self.numbers.len() + 1;
        let n = *self.numbers.entry(key.clone()).or_insert(next);
        let count = self.ref_counts.entry(key).or_insert(0);
        *count += 1;
        let id = ref_id(&self.marker, n, *count);
        let m = &self.marker;
        let s = format!(
            "<sup><a epub:type=\"noteref\" role=\"doc-noteref\" id=\"{id}\" href=\"#{m}fn-{n}\">{n}</a></sup>"
        );
        self.push(&s);
    }

    /// Joins the body and the notes, in reference order, then the never-referenced ones.
    fn finish(mut self, warnings: &mut Warnings) -> String {
        self.flush_text();
        // Unclosed definitions cannot happen with pulldown-cmark; fold them in rather than lose text.
        while self.bufs.len() > 1 {
            let tail = self.bufs.pop().unwrap_or_default();
            self.push(&tail);
        }
        let mut out = self.bufs.pop().unwrap_or_default();
        let mut referenced: Vec<(usize, String)> =
            self.numbers.iter().map(|(l, &n)| (n, l.clone())).collect();
        referenced.sort();
        for (n, label) in &referenced {
            let Some(content) = self.defs.get(label) else {
                continue;
            };
            let count = self.ref_counts.get(label).copied().unwrap_or(1);
            let refs: Vec<String> = (1..=count).map(|j| ref_id(&self.marker, *n, j)).collect();
            out.push_str(&aside(&self.marker, *n, content, &refs));
        }
        let mut next = referenced.len();
        for label in &self.dup_defs {
            warnings.add(format!("ignored second definition of footnote [^{label}]"));
        }
        for (key, label) in &self.def_order {
            if self.numbers.contains_key(key) {
                continue;
            }
            next += 1;
            warnings.add(format!("footnote [^{label}] is never referenced"));
            if let Some(content) = self.defs.get(key) {
                out.push_str(&aside(&self.marker, next, content, &[]));
            }
        }
        out
    }
}

/// Footnote labels match case-insensitively (GFM), which pulldown-cmark follows when it
/// decides that a reference has a definition.
fn label_key(label: &str) -> String {
    label.to_lowercase()
}

fn ref_id(marker: &str, n: usize, occurrence: usize) -> String {
    if occurrence <= 1 {
        format!("{marker}fnref-{n}")
    } else {
        format!("{marker}fnref-{n}-{occurrence}")
    }
}

/// One note. Its number comes first and is the link back to the (first) reference, as
/// Kindle's pop-ups and readers without pop-ups (which show notes in line) want it; a note
/// referenced more than once links back to the other references with ↩ at its end.
fn aside(marker: &str, n: usize, content: &str, refs: &[String]) -> String {
    let mut body = content.trim_end().to_string();
    let label = match refs.first() {
        Some(first) => {
            format!("<a class=\"footnote-label\" href=\"#{first}\" role=\"doc-backlink\">{n}</a>. ")
        }
        None => format!("<span class=\"footnote-label\">{n}.</span> "),
    };
    if let Some(rest) = body.strip_prefix("<p>") {
        body = format!("<p>{label}{rest}");
    } else {
        body = format!("<p>{label}</p>\n{body}");
    }
    let backs: Vec<String> = refs
        .iter()
        .skip(1)
        .map(|id| format!("<a href=\"#{id}\" role=\"doc-backlink\">\u{21A9}</a>"))
        .collect();
    if !backs.is_empty() {
        let backs = backs.join(" ");
        match body.strip_suffix("</p>") {
            Some(head) => body = format!("{head} {backs}</p>"),
            None => body = format!("{body}\n<p>{backs}</p>"),
        }
    }
    format!(
        "<aside epub:type=\"footnote\" role=\"doc-footnote\" id=\"{marker}fn-{n}\">\n{body}\n</aside>\n"
    )
}

/// The start tag of a heading, with the id and classes its author gave (`## Options
/// {#options .note}`, as mdBook and pandoc read it): a heading without an id gets one later.
fn heading_tag(level: HeadingLevel, id: Option<&str>, classes: &[CowStr<'_>]) -> String {
    let mut s = format!("<h{}", level_num(level));
    if let Some(id) = id.filter(|id| !id.is_empty()) {
        s.push_str(&format!(" id=\"{}\"", escape_attr(id)));
    }
    if !classes.is_empty() {
        let joined: Vec<&str> = classes.iter().map(|c| c.as_ref()).collect();
        s.push_str(&format!(" class=\"{}\"", escape_attr(&joined.join(" "))));
    }
    s.push('>');
    s
}

fn level_num(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::markup::test_support::*;
    use std::collections::HashSet;

    fn convert(src: &str) -> Fragment {
        let f = markdown_to_xhtml(src, &mut Recorder::default()).expect("converts");
        assert_well_formed(&f);
        f
    }

    const SAMPLE: &str = "# The Title\n\nIntro with ~~struck~~ text[^one] and again[^one], then[^Two].\n\n\
| Left | Mid | Right |\n|:-----|:---:|------:|\n| a    | b   | c     |\n\n## Section\n\n\
![A *picture*](images/pic%201.png \"cap\")\n\n[^one]: First note.\n[^two]: Second\n\n    with code\n";

    #[test]
    fn the_note_number_is_the_backlink_first_in_the_note() {
        let f = convert(SAMPLE);
        let xml = wrap(&f.body);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let asides: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("aside"))
            .collect();
        assert_eq!(asides.len(), 2);
        for (i, aside) in asides.iter().enumerate() {
            let p = aside.first_element_child().unwrap();
            let first = p.first_child().unwrap();
            assert!(first.has_tag_name("a"), "{:?}", first);
            assert_eq!(first.attribute("role"), Some("doc-backlink"));
            assert_eq!(first.text(), Some((i + 1).to_string().as_str()));
            let back = first.attribute("href").unwrap().strip_prefix('#').unwrap();
            let r = doc
                .descendants()
                .find(|n| n.attribute("id") == Some(back))
                .unwrap();
            assert_eq!(r.text(), Some((i + 1).to_string().as_str()));
        }
        // The note referenced twice links back to its second reference with an arrow.
        let arrows = doc
            .descendants()
            .filter(|n| n.is_element() && n.text() == Some("\u{21A9}"))
            .count();
        assert_eq!(arrows, 1);
    }

    #[test]
    fn footnotes_table_strikethrough_structure() {
        let f = convert(SAMPLE);
        assert_eq!(f.title.as_deref(), Some("The Title"));
        let xml = wrap(&f.body);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        const EPUB: &str = "http://www.idpf.org/2007/ops";
        let ids: HashSet<&str> = doc
            .descendants()
            .filter_map(|n| n.attribute("id"))
            .collect();
        let noterefs: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute((EPUB, "type")) == Some("noteref"))
            .collect();
        assert_eq!(noterefs.len(), 3);
        for r in &noterefs {
            assert_eq!(r.tag_name().name(), "a");
            assert_eq!(r.parent().map(|p| p.tag_name().name()), Some("sup"));
            assert_eq!(r.attribute("role"), Some("doc-noteref"));
            let target = r.attribute("href").unwrap().strip_prefix('#').unwrap();
            let aside = doc
                .descendants()
                .find(|n| n.attribute("id") == Some(target))
                .unwrap();
            assert_eq!(aside.tag_name().name(), "aside");
            assert_eq!(aside.attribute((EPUB, "type")), Some("footnote"));
            assert_eq!(aside.attribute("role"), Some("doc-footnote"));
        }
        // The first note is referenced twice: both references have their own id.
        assert_eq!(noterefs[0].attribute("href"), noterefs[1].attribute("href"));
        assert_ne!(noterefs[0].attribute("id"), noterefs[1].attribute("id"));
        let backlinks: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("role") == Some("doc-backlink"))
            .collect();
        assert_eq!(backlinks.len(), 3);
        for b in &backlinks {
            let target = b.attribute("href").unwrap().strip_prefix('#').unwrap();
            assert!(ids.contains(target), "back link to missing {target}");
            let r = doc
                .descendants()
                .find(|n| n.attribute("id") == Some(target))
                .unwrap();
            assert_eq!(r.attribute((EPUB, "type")), Some("noteref"));
        }
        // Notes come after the body text, in reference order; the case-insensitive label matched.
        let notes: Vec<String> = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "aside")
            .map(|n| n.descendants().filter_map(|t| t.text()).collect())
            .collect();
        assert!(
            notes[0].contains("First note.") && notes[1].contains("with code"),
            "{notes:?}"
        );
        assert!(
            doc.descendants()
                .any(|n| n.tag_name().name() == "del" && n.text() == Some("struck"))
        );
        let table = doc
            .descendants()
            .find(|n| n.tag_name().name() == "table")
            .unwrap();
        let parts: Vec<&str> = table
            .children()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name())
            .collect();
        assert_eq!(parts, ["thead", "tbody"]);
        let th: Vec<_> = table
            .descendants()
            .filter(|n| n.tag_name().name() == "th")
            .collect();
        assert_eq!(th[0].attribute("style"), Some("text-align: left"));
        assert_eq!(th[1].attribute("style"), Some("text-align: center"));
        assert_eq!(th[2].attribute("style"), Some("text-align: right"));
        // "## Section" goes right below the chapter's own h1, which is not in the body.
        assert!(
            f.body.contains("<h2 id=\"section\">Section</h2>")
                && !f.body.contains("<h1")
                && !f.body.contains("<h3")
        );
        let img = doc
            .descendants()
            .find(|n| n.tag_name().name() == "img")
            .unwrap();
        assert_eq!(img.attribute("alt"), Some("A picture"));
        assert_eq!(img.attribute("title"), Some("cap"));
    }

    #[test]
    fn image_resolver_gets_decoded_src_once_per_image() {
        let mut r = Recorder::default();
        let f = markdown_to_xhtml(
            "![x](pics/a%20b.png) ![](pics/a%20b.png)\n\n![y](<c d.jpg>)",
            &mut r,
        )
        .unwrap();
        assert_eq!(r.calls, ["pics/a b.png", "c d.jpg"]);
        assert_eq!(f.images.len(), 2);
        assert_eq!(f.images[0].src, "pics/a b.png");
        assert_eq!(f.images[0].href, "../images/pics/a_b.png");
        assert!(
            f.body
                .contains("<img src=\"../images/pics/a_b.png\" alt=\"\"/>"),
            "{}",
            f.body
        );
    }

    #[test]
    fn an_image_the_resolver_refuses_leaves_its_alt_text() {
        let mut r = Recorder {
            fail_on: Some("missing one.png".into()),
            ..Recorder::default()
        };
        let f = markdown_to_xhtml("text ![the map](missing%20one.png)", &mut r).unwrap();
        assert_eq!(f.body, "<p>text the map</p>\n");
        assert!(f.images.is_empty());
    }

    #[test]
    fn remote_image_removed_with_warning_keeping_alt() {
        let mut r = Recorder::default();
        let f = markdown_to_xhtml(
            "See ![the logo](https://example.com/logo.png) here.",
            &mut r,
        )
        .unwrap();
        assert!(r.calls.is_empty());
        assert_eq!(f.body.trim(), "<p>See the logo here.</p>");
        assert_eq!(
            notes(&f),
            ["removed remote image https://example.com/logo.png"]
        );
    }

    #[test]
    fn raw_html_is_made_well_formed() {
        let f = convert("Before\n\n<div><p>unclosed <b>bold</div>\n\nafter <span>inline *md*\n");
        assert_eq!(
            body_text(&f).replace('\n', ""),
            "Beforeunclosed boldafter inline md"
        );
        assert!(f.body.contains("<b>bold</b>"), "{}", f.body);
    }

    #[test]
    fn undefined_footnote_stays_literal_and_unreferenced_note_is_kept() {
        let f = convert("Text[^missing].\n\n[^lonely]: Nobody cites me.\n");
        assert!(f.body.starts_with("<p>Text[^missing].</p>"), "{}", f.body);
        assert!(f.body.contains("Nobody cites me."));
        assert!(
            notes(&f)
                .iter()
                .any(|w| w == "footnote [^lonely] is never referenced")
        );
    }

    #[test]
    fn heading_attributes_give_the_id_and_classes() {
        let f =
            convert("Intro\n\n## Options {#options .note}\n\n## Plain {#}\n\nSee [x](#options).\n");
        assert!(
            f.body
                .contains("<h2 id=\"options\" class=\"note\">Options</h2>"),
            "{}",
            f.body
        );
        assert!(f.body.contains("<h2 id=\"plain\">Plain</h2>"), "{}", f.body);
        assert!(f.body.contains("href=\"#options\""), "{}", f.body);
    }

    #[test]
    fn title_only_when_document_starts_with_h1() {
        let f = convert("\n  \n# Title *here*\n\n# Another\n\ntext");
        assert_eq!(f.title.as_deref(), Some("Title here"));
        assert_eq!(f.body, "<h2 id=\"another\">Another</h2>\n<p>text</p>\n");
        let f = convert("Para first\n\n# Heading\n\n###### Six\n");
        assert_eq!(f.title, None);
        // Under the chapter's h1 with no level skipped.
        assert_eq!(
            f.body,
            "<p>Para first</p>\n<h2 id=\"heading\">Heading</h2>\n<h3 id=\"six\">Six</h3>\n"
        );
    }

    #[test]
    fn a_leading_heading_of_any_level_is_the_title() {
        // The Rust book's sections open with `## Installation`; the title is plain text.
        let f = convert("## Installation of `rustup` **now**\n\ntext");
        assert_eq!(f.title.as_deref(), Some("Installation of rustup now"));
        assert_eq!(f.body, "<p>text</p>\n");
    }

    #[test]
    fn markdown_text_is_preserved_in_order() {
        let src = "Alpha & <beta>\n\n* one\n* two `co<de>`\n\n> quote **bold**\n\n1. x\n2. y\n";
        let f = convert(src);
        assert_eq!(
            body_text(&f).replace('\n', ""),
            "Alpha & onetwo co<de>quote boldxy"
        );
    }

    #[test]
    fn note_ids_never_collide_with_the_authors() {
        let f = convert(
            "Note[^1].\n\n<p id=\"fn-1\">Mine.</p>\n\n<p id=\"epubforge-fn-1\">Also mine.</p>\n\n\
             [mine](#fn-1) [also](#epubforge-fn-1)\n\n[^1]: The note.\n",
        );
        let xml = wrap(&f.body);
        let doc = roxmltree::Document::parse(&xml).unwrap();
        let by_id = |id: &str| {
            let found: Vec<_> = doc
                .descendants()
                .filter(|n| n.attribute("id") == Some(id))
                .collect();
            assert_eq!(found.len(), 1, "id {id} in {}", f.body);
            found[0]
        };
        let href = |text: &str| {
            doc.descendants()
                .find(|n| n.has_tag_name("a") && n.text() == Some(text))
                .and_then(|a| a.attribute("href"))
                .and_then(|h| h.strip_prefix('#'))
                .unwrap()
        };
        assert_eq!(by_id(href("1")).tag_name().name(), "aside");
        assert_eq!(by_id(href("mine")).text(), Some("Mine."));
        assert_eq!(by_id(href("also")).text(), Some("Also mine."));
        assert_eq!(href("1"), "epubforge-fn-1");
        assert_eq!(href("also"), "id-epubforge-fn-1");
    }

    #[test]
    fn lists_nested_past_the_cap_lose_their_markup_not_their_text() {
        let src = format!(
            "Intro\n\n{}deep *text*\n\n[^n]\n\n[^n]: note\n",
            "- ".repeat(5_000)
        );
        let f = convert(&src);
        assert!(body_text(&f).contains("deep text"), "{}", body_text(&f));
        assert!(
            f.body.matches("<ul>").count() <= MAX_DEPTH / 2,
            "{}",
            &f.body[..300]
        );
        assert!(f.body.contains("<aside"), "the note survives");
        assert_eq!(
            notes(&f),
            ["line 3: flattened elements nested deeper than 120 levels"]
        );
    }

    #[test]
    fn gfm_task_lists_become_disabled_checkboxes() {
        let f = convert("- [ ] foo\n- [x] bar\n\n* [@] not a task\n");
        assert_eq!(
            f.body,
            "<ul>\n<li><input type=\"checkbox\" disabled=\"\" aria-labelledby=\"epubforge-task-1\"/><span id=\"epubforge-task-1\"> foo</span></li>\n\
             <li><input type=\"checkbox\" checked=\"\" disabled=\"\" aria-labelledby=\"epubforge-task-2\"/><span id=\"epubforge-task-2\"> bar</span></li>\n</ul>\n\
             <ul>\n<li>[@] not a task</li>\n</ul>\n"
        );
        assert!(f.removed.is_empty());
    }

    #[test]
    fn a_task_is_labelled_by_its_own_text_not_its_nested_tasks() {
        let f = convert("- [ ] parent *task*\n  - [x] child\n- [ ]\n");
        assert_eq!(
            f.body,
            "<ul>\n<li><input type=\"checkbox\" disabled=\"\" aria-labelledby=\"epubforge-task-1\"/>\
             <span id=\"epubforge-task-1\"> parent <em>task</em></span><ul>\n\
             <li><input type=\"checkbox\" checked=\"\" disabled=\"\" aria-labelledby=\"epubforge-task-2\"/>\
             <span id=\"epubforge-task-2\"> child</span></li>\n</ul>\n</li>\n\
             <li id=\"epubforge-task-3\"><input type=\"checkbox\" disabled=\"\" aria-labelledby=\"epubforge-task-3\"/> </li>\n</ul>\n"
        );
    }

    #[test]
    fn bare_urls_become_links_outside_links_and_code() {
        let f = convert(
            "Visit www.commonmark.org/help, **or http://x.org**.\n\n[www.a.org](b.md) `www.c.org`\n\n    www.d.org\n\nMail a.b@c.d_e.org.",
        );
        assert_eq!(
            f.body,
            "<p>Visit <a href=\"http://www.commonmark.org/help\">www.commonmark.org/help</a>, <strong>or <a href=\"http://x.org\">http://x.org</a></strong>.</p>\n\
             <p><a href=\"b.md\">www.a.org</a> <code>www.c.org</code></p>\n<pre><code>www.d.org\n</code></pre>\n\
             <p>Mail <a href=\"mailto:a.b@c.d_e.org\">a.b@c.d_e.org</a>.</p>\n"
        );
    }

    #[test]
    fn fenced_code_naming_a_language_is_highlighted_unless_turned_off() {
        let src = "```rust,ignore\nfn main() {} // <done>\n```\n\n```\nplain <x>\n```\n";
        let f = convert(src);
        assert!(
            f.body
                .starts_with("<pre><code class=\"language-rust\"><span class=\"hl-k\">fn</span>"),
            "{}",
            f.body
        );
        assert!(
            f.body.contains("<span class=\"hl-c\">// &lt;done&gt;"),
            "{}",
            f.body
        );
        assert!(
            f.body.contains("<pre><code>plain &lt;x&gt;\n</code></pre>"),
            "{}",
            f.body
        );
        let plain = markdown_to_xhtml_with(
            src,
            &mut Recorder::default(),
            MarkdownOptions {
                highlight: false,
                ..Default::default()
            },
            None,
            None,
        )
        .unwrap();
        assert!(
            plain.body.starts_with(
                "<pre><code class=\"language-rust\">fn main() {} // &lt;done&gt;\n</code></pre>"
            ),
            "{}",
            plain.body
        );
    }

    #[test]
    fn nul_becomes_the_replacement_character() {
        let f = convert("a\0b\n");
        assert_eq!(f.body, "<p>a\u{FFFD}b</p>\n");
    }

    #[test]
    fn deeply_nested_blockquotes_do_not_overflow() {
        let f = convert(&format!("{} deep", ">".repeat(10_000)));
        assert_eq!(body_text(&f).trim(), "deep");
    }
}
