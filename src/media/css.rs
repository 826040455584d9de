//! User CSS (and the `style` of SVG images), cleaned of what is remote or scripted.
//!
//! A stylesheet from a stranger can fetch from the network (`@import url(http…)`, a remote
//! `@font-face` or `background`), run script in old engines (`expression()`, `-moz-binding`,
//! `behavior`, `javascript:` URLs) or name files of the machine that built the book (`file:`).
//! None of it may reach an EPUB: EPUBCheck reports remote resources as errors, and a reader
//! must not fetch or run anything the author did not put in the book.
//!
//! The stylesheet is read with `cssparser` (the tokenizer and rule grammar of Servo, which
//! recovers from errors as browsers do), and what is dropped is cut from the author's text, so
//! everything else stays exactly as written. Dropped, each with a [`Removal`] naming its line:
//! - a declaration with a remote, scripted, `file:` or path-absolute URL, or with
//!   `expression()`, and the `behavior`, `-moz-binding` and `-o-link` properties;
//! - an `@import` of anything but another stylesheet the book carries;
//! - one entry of an `@font-face` `src` list that is remote or not carried (the whole `src`
//!   when no entry is left);
//! - a rule whose prelude holds such a URL (`@-moz-document url-prefix(http…)`), and text the
//!   grammar rejects that holds one;
//! - what EPUBCheck's own CSS grammar refuses, which it would report as an error (`CSS-008`)
//!   where browsers recover: found by [`super::css_grammar`], blanked before the stylesheet
//!   is read here, and cut from the author's text like the rest.
//!
//! Kept: everything else, `@media`, `@supports`, `@page` (its margin boxes before its
//! declarations), `@keyframes`, custom properties, `!important`, `url(#id)`,
//! `data:` URLs of images and fonts, and relative URLs the caller's `local` function maps to a
//! file the book carries (an embedded font, another stylesheet, an image), rewritten to where
//! that file is in the book.

pub use super::css_url::{UrlKind, url_kind};

use super::css_grammar;
use cssparser::{
    AtRuleParser, CowRcStr, DeclarationParser, ParseError, Parser, ParserState,
    QualifiedRuleParser, RuleBodyItemParser, RuleBodyParser, StyleSheetParser, Token,
};

/// One thing [`clean_stylesheet`] or [`clean_declarations`] dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    /// The 1-based line where it started.
    pub line: u32,
    /// The 1-based column (in characters) where it started.
    pub column: u32,
    /// What it was and why it went, e.g. "`background` (remote url(http://x/a.png))".
    pub what: String,
}

/// A cleaned stylesheet and what was dropped from it.
#[derive(Debug, Clone)]
pub struct Cleaned {
    /// The CSS with the dropped parts cut out and carried URLs rewritten.
    pub css: String,
    /// What was dropped, in order.
    pub removed: Vec<Removal>,
}

/// Maps a relative URL (as written, `?query` and `#fragment` included) to where the file is in
/// the book, or says why the book does not carry it.
pub type LocalUrls<'a> = dyn FnMut(&str) -> Result<String, NotCarried> + 'a;

/// Why a URL or a piece of a stylesheet cannot stay: put in words in the warning that
/// reports what was cut.
#[derive(Debug, thiserror::Error)]
enum Unkept {
    /// A piece refused as it is (a malformed `url()`, a script, blocks nested too deeply).
    #[error("{0}")]
    Refused(&'static str),
    /// A URL of a kind a book may not hold (a web address, `file:`, `javascript:` …).
    #[error("{why} url({url})")]
    Kind {
        /// What kind of URL it is.
        why: &'static str,
        /// The URL, shortened.
        url: String,
    },
    /// A relative URL whose file does not come into the book.
    #[error("url({url}): {why}")]
    NotCarried {
        /// The URL, shortened.
        url: String,
        /// Why its file does not come along.
        why: NotCarried,
    },
}

/// Why the file a stylesheet's relative URL names does not come along into the book: put in
/// words in the note that reports the URL cut.
#[derive(Debug, thiserror::Error)]
pub enum NotCarried {
    /// The URL names no file (only a query or a fragment).
    #[error("it names no file")]
    NoFile,
    /// The file is outside the project: the containment check's sentence.
    #[error("{0}")]
    Outside(String),
    /// The file is none of what a book carries.
    #[error(
        "not an image, a font (TrueType, OpenType, WOFF, WOFF 2) or a stylesheet of [style] css"
    )]
    NotCarriable,
    /// The image could not be carried (unreadable, too large, …).
    #[error(transparent)]
    Image(Box<dyn std::error::Error + Send + Sync>),
    /// The stylesheet can bring no files at all (an SVG image's own).
    #[error("an SVG image cannot bring other files into the book")]
    InsideSvg,
}

/// Cleans a whole stylesheet (see the module docs).
pub fn clean_stylesheet(css: &str, local: &mut LocalUrls<'_>) -> Cleaned {
    let refused = css_grammar::refused(css);
    let read = css_grammar::blank(css, &refused);
    let mut cleaner = Cleaner::new(&read, local);
    cleaner.original = css;
    let mut input = Parser::new(&read);
    let mut rules = StyleSheetParser::new(&mut input, &mut cleaner);
    while let Some(item) = rules.next() {
        if let Err((_, slice, _)) = item {
            rules.parser.rejected(slice);
        }
    }
    cleaner.recheck = !cleaner.removed.is_empty() || refused.iter().any(|r| r.closes());
    cleaner.refused(refused);
    cleaner.finish()
}

/// Cleans a list of declarations, as in a `style` attribute.
pub fn clean_declarations(css: &str, local: &mut LocalUrls<'_>) -> Cleaned {
    let mut cleaner = Cleaner::new(css, local);
    let mut input = Parser::new(css);
    cleaner.body(&mut input);
    cleaner.finish()
}

/// Turns a stylesheet's bytes into text: a byte order mark or an `@charset` rule says the
/// encoding (UTF-8 otherwise), and the `@charset` rule goes, since the book's copy is UTF-8.
/// The second value is a note when bytes were not valid in that encoding.
pub fn decode(bytes: &[u8]) -> (String, Option<String>) {
    let (encoding, body) = match encoding_rs::Encoding::for_bom(bytes) {
        Some((encoding, bom)) => (encoding, &bytes[bom..]),
        None => (charset_rule(bytes).unwrap_or(encoding_rs::UTF_8), bytes),
    };
    let (text, had_errors) = encoding.decode_without_bom_handling(body);
    let mut text = text.into_owned();
    if text.starts_with("@charset \"")
        && let Some(end) = text.find("\";")
    {
        text.replace_range(..end + 2, "");
    }
    let note = had_errors.then(|| {
        format!(
            "the stylesheet is not valid {}; the bad bytes became U+FFFD",
            encoding.name()
        )
    });
    (text, note)
}

/// The encoding an opening `@charset "…";` names (UTF-16 labels mean UTF-8, as the CSS
/// standard says, since the rule itself was readable as ASCII).
fn charset_rule(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let rest = bytes.strip_prefix(b"@charset \"")?;
    let end = rest.iter().take(40).position(|&b| b == b'"')?;
    let encoding = encoding_rs::Encoding::for_label(&rest[..end])?;
    Some(
        if encoding == encoding_rs::UTF_16BE || encoding == encoding_rs::UTF_16LE {
            encoding_rs::UTF_8
        } else {
            encoding
        },
    )
}

/// A replacement of `start..end` of the source (empty: a cut).
#[derive(Debug)]
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// Something found in a run of tokens.
#[derive(Debug)]
enum Piece<'i> {
    /// A URL, with the source range of its token (`url(…)` or a string).
    Url {
        url: CowRcStr<'i>,
        start: usize,
        end: usize,
        /// A string token (in `image-set()` or `@import`), rewritten as a string.
        string: bool,
    },
    /// A comma at the top level of the run.
    Comma(usize),
    /// Something that runs script or cannot be read safely.
    Refused(&'static str),
}

/// The state of one cleaning: the source, the caller's URL mapping and what to change.
struct Cleaner<'a, 'l> {
    /// The text read (the stylesheet, with what EPUBCheck refuses blanked).
    source: &'a str,
    /// The stylesheet as written, which the edits apply to.
    original: &'a str,
    /// Where each line of `source` starts, for the line of a removal.
    line_starts: Vec<usize>,
    local: &'a mut LocalUrls<'l>,
    edits: Vec<Edit>,
    removed: Vec<Removal>,
    /// Inside an `@font-face` block, where `src` is a list of alternatives.
    in_font_face: bool,
    /// Whether to look for what EPUBCheck's grammar refuses in the result: in a whole
    /// stylesheet (not a `style` attribute), after cuts of the cleaner's own or with blocks
    /// left open at the end.
    recheck: bool,
}

impl<'a, 'l> Cleaner<'a, 'l> {
    fn new(source: &'a str, local: &'a mut LocalUrls<'l>) -> Self {
        let line_starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Cleaner {
            source,
            original: source,
            line_starts,
            local,
            edits: Vec::new(),
            removed: Vec::new(),
            in_font_face: false,
            recheck: false,
        }
    }

    /// The edits applied; then what EPUBCheck's grammar refuses in the result, which only
    /// the cuts here can have brought about (a `}` left when a block left open went), cut
    /// in turn, and blocks left open at the end closed.
    fn finish(mut self) -> Cleaned {
        let mut map = Vec::new();
        let css = splice(
            self.original,
            0,
            self.original.len(),
            &mut self.edits,
            &mut map,
        );
        let left = match self.recheck {
            true => css_grammar::refused(&css),
            false => Vec::new(),
        };
        if left.is_empty() {
            return Cleaned {
                css,
                removed: self.removed,
            };
        }
        let mut edits = Vec::new();
        for r in left {
            // The line of the removal is that of the author's text.
            let (out, source) = map[map.partition_point(|&(o, _)| o <= r.start).max(1) - 1];
            let at = (source + r.start - out).min(self.original.len());
            edits.push(self.refusal(at, r));
        }
        let css = splice(&css, 0, css.len(), &mut edits, &mut Vec::new());
        Cleaned {
            css,
            removed: self.removed,
        }
    }

    /// Cuts what EPUBCheck's grammar refuses, each removal among the others by its line.
    fn refused(&mut self, refused: Vec<css_grammar::Refused>) {
        for r in refused.into_iter().filter(|r| !r.closes()) {
            let edit = self.refusal(r.start, r);
            self.edits.push(edit);
        }
    }

    /// The removal of `r` (its line that of byte `at` of the source) put among the others
    /// by its line, and the edit that makes it.
    fn refusal(&mut self, at: usize, r: css_grammar::Refused) -> Edit {
        let removal = self.removal(at, r.what);
        let after = (self.removed.iter())
            .position(|o| o.line > removal.line)
            .unwrap_or(self.removed.len());
        self.removed.insert(after, removal);
        Edit {
            start: r.start,
            end: r.end,
            text: r.insert,
        }
    }

    fn offset(&self, slice: &str) -> usize {
        (slice.as_ptr() as usize).saturating_sub(self.source.as_ptr() as usize)
    }

    /// A removal of `what`, starting at byte `offset`, with its line and column.
    fn removal(&self, offset: usize, what: String) -> Removal {
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line.saturating_sub(1)];
        let column = self
            .source
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        Removal {
            line: line as u32,
            column: column as u32 + 1,
            what,
        }
    }

    /// `end`, or just past the `delimiter` when that comes next (after spaces).
    fn through(&self, end: usize, delimiter: char) -> usize {
        let rest = &self.source[end..];
        let space = rest.len() - rest.trim_start().len();
        if rest[space..].starts_with(delimiter) {
            end + space + delimiter.len_utf8()
        } else {
            end
        }
    }

    /// Cuts `start..end`, and the `delimiter` right after it (`;` after a declaration, `}`
    /// after a block's content) when there is one, which would be left dangling.
    fn cut(&mut self, start: usize, end: usize, delimiter: Option<char>, what: String) {
        let removal = self.removal(start, what);
        self.removed.push(removal);
        let end = delimiter.map_or(end, |d| self.through(end, d));
        self.edits.push(Edit {
            start,
            end,
            text: String::new(),
        });
    }

    /// Text the grammar rejected: browsers ignore it, but a URL in it must not be left for a
    /// checker (or a lenient reader) to find.
    fn rejected(&mut self, slice: &str) {
        let mut input = Parser::new(slice);
        let pieces = walk(&mut input, false);
        let refused = pieces.iter().find_map(|p| match p {
            Piece::Refused(why) => Some((*why).to_string()),
            Piece::Url { url, .. } if url_kind(url) != UrlKind::Fragment => {
                Some(format!("url({})", short(url)))
            }
            _ => None,
        });
        if let Some(why) = refused {
            let start = self.offset(slice);
            let text = short(slice.trim());
            self.cut(
                start,
                start + slice.len(),
                None,
                format!("`{text}` ({why})"),
            );
        }
    }

    /// Runs through a block of declarations and nested rules.
    fn body(&mut self, input: &mut Parser<'_>) {
        let mut items = RuleBodyParser::new(input, self);
        while let Some(item) = items.next() {
            if let Err((_, slice, _)) = item {
                items.parser.rejected(slice);
            }
        }
    }

    /// Why `url` cannot stay, or the text to put in its place (None: keep it as it is).
    fn judge(&mut self, url: &str) -> Result<Option<String>, Unkept> {
        let kind = url_kind(url);
        if let Some(why) = kind.refusal() {
            let url = short(url);
            return Err(Unkept::Kind { why, url });
        }
        if kind != UrlKind::Relative {
            return Ok(None);
        }
        match (self.local)(url) {
            Ok(href) if href == url => Ok(None),
            Ok(href) => Ok(Some(href)),
            Err(why) => Err(Unkept::NotCarried {
                url: short(url),
                why,
            }),
        }
    }

    /// Applies the verdicts on the URLs of `pieces`: replacements as edits, or the first
    /// reason one of them cannot stay.
    fn settle<'p, 'i: 'p>(
        &mut self,
        pieces: impl IntoIterator<Item = &'p Piece<'i>>,
    ) -> Result<Vec<Edit>, Unkept> {
        let mut edits = Vec::new();
        for piece in pieces {
            match piece {
                Piece::Refused(why) => return Err(Unkept::Refused(why)),
                Piece::Url {
                    url,
                    start,
                    end,
                    string,
                } => {
                    if let Some(href) = self.judge(url)? {
                        let mut text = String::new();
                        if !*string {
                            text.push_str("url(");
                        }
                        let _ = cssparser::serialize_string(&href, &mut text);
                        if !*string {
                            text.push(')');
                        }
                        edits.push(Edit {
                            start: *start,
                            end: *end,
                            text,
                        });
                    }
                }
                Piece::Comma(_) => {}
            }
        }
        Ok(edits)
    }

    /// `src` in `@font-face` (its value from `start` to `end`): each alternative that cannot
    /// stay is cut on its own; the whole declaration goes when none is left.
    fn font_src(&mut self, pieces: &[Piece<'_>], declaration: usize, start: usize, end: usize) {
        let mut entries: Vec<(usize, usize, Vec<&Piece<'_>>)> = vec![(start, end, Vec::new())];
        for piece in pieces {
            match piece {
                Piece::Comma(at) => {
                    if let Some(last) = entries.last_mut() {
                        last.1 = *at;
                    }
                    entries.push((at + 1, end, Vec::new()));
                }
                other => {
                    if let Some(last) = entries.last_mut() {
                        last.2.push(other);
                    }
                }
            }
        }
        let mut kept = Vec::new();
        let mut cut = Vec::new();
        for (from, to, entry) in entries {
            match self.settle(entry) {
                Ok(mut edits) => {
                    let text = splice(self.source, from, to, &mut edits, &mut Vec::new());
                    kept.push((text.trim().to_string(), edits));
                }
                Err(why) => cut.push(why),
            }
        }
        if cut.is_empty() {
            self.edits
                .extend(kept.into_iter().flat_map(|(_, edits)| edits));
            return;
        }
        if kept.is_empty() {
            let why = cut.swap_remove(0);
            self.cut_declaration(declaration, end, "src", &why.to_string());
            return;
        }
        for why in cut {
            let removal = self.removal(declaration, format!("an `@font-face` src entry ({why})"));
            self.removed.push(removal);
        }
        let texts: Vec<String> = kept.into_iter().map(|(text, _)| text).collect();
        self.edits.push(Edit {
            start,
            end,
            text: format!(" {}", texts.join(", ")),
        });
    }

    fn cut_declaration(&mut self, start: usize, end: usize, name: &str, why: &str) {
        self.cut(start, end, Some(';'), format!("`{name}` ({why})"));
    }
}

/// `source[start..end]` with `edits` (inside that range) applied. Outer cuts come first where
/// two start together, so the edits inside them are skipped. `map` gets where each stretch
/// copied as it is starts, in the result and in `source`.
fn splice(
    source: &str,
    start: usize,
    end: usize,
    edits: &mut [Edit],
    map: &mut Vec<(usize, usize)>,
) -> String {
    edits.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out = String::with_capacity(end - start);
    let mut at = start;
    for edit in edits.iter() {
        if edit.start < at && edit.end > at && edit.text.is_empty() && edit.end <= end {
            // A cut that overlaps the one before: cut on to its end.
            at = edit.end;
            continue;
        }
        if edit.start < at || edit.end > end {
            continue;
        }
        map.push((out.len(), at));
        out.push_str(&source[at..edit.start]);
        out.push_str(&edit.text);
        at = edit.end;
    }
    map.push((out.len(), at));
    out.push_str(&source[at..end]);
    out
}

/// Shortened for a message.
fn short(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Functions whose string arguments are URLs.
fn takes_url_strings(name: &str) -> bool {
    [
        "image-set",
        "-webkit-image-set",
        "image",
        "cross-fade",
        "src",
    ]
    .iter()
    .any(|f| name.eq_ignore_ascii_case(f))
}

/// Every URL, top-level comma and scripted construct in the rest of `input`, nested blocks
/// included. `strings` says whether string tokens at this level are URLs.
fn walk<'i>(input: &mut Parser<'i>, strings: bool) -> Vec<Piece<'i>> {
    let mut pieces = Vec::new();
    walk_into(input, strings, &mut pieces);
    pieces
}

fn walk_into<'i>(input: &mut Parser<'i>, strings: bool, pieces: &mut Vec<Piece<'i>>) {
    loop {
        let start = input.position().byte_index();
        let Ok(token) = input.next_including_whitespace_and_comments() else {
            return;
        };
        let token = token.clone();
        let end = input.position().byte_index();
        match token {
            Token::UnquotedUrl(url) => pieces.push(Piece::Url {
                url,
                start,
                end,
                string: false,
            }),
            Token::QuotedString(url) if strings => pieces.push(Piece::Url {
                url,
                start,
                end,
                string: true,
            }),
            Token::BadUrl(_) => pieces.push(Piece::Refused("a malformed url()")),
            Token::Comma => pieces.push(Piece::Comma(start)),
            Token::Function(name) if name.eq_ignore_ascii_case("url") => {
                let url = input.parse_nested_block(|p| {
                    let url = p.expect_string_cloned().ok();
                    while p.next_including_whitespace_and_comments().is_ok() {}
                    Ok::<_, ParseError<()>>(url)
                });
                match url {
                    Ok(Some(url)) => pieces.push(Piece::Url {
                        url,
                        start,
                        end: input.position().byte_index(),
                        string: false,
                    }),
                    _ => pieces.push(Piece::Refused("a malformed url()")),
                }
            }
            Token::Function(name)
                if name.eq_ignore_ascii_case("expression")
                    || name.eq_ignore_ascii_case("-moz-binding") =>
            {
                pieces.push(Piece::Refused("script: expression()"));
            }
            Token::Function(name) => {
                let strings = takes_url_strings(&name);
                nested(input, strings, pieces);
            }
            Token::ParenthesisBlock | Token::SquareBracketBlock | Token::CurlyBracketBlock => {
                nested(input, false, pieces);
            }
            _ => {}
        }
    }
}

fn nested<'i>(input: &mut Parser<'i>, strings: bool, pieces: &mut Vec<Piece<'i>>) {
    let inner = input.parse_nested_block(|p| {
        let mut inner = Vec::new();
        walk_into(p, strings, &mut inner);
        // Commas inside a function are not the list's.
        inner.retain(|piece| !matches!(piece, Piece::Comma(_)));
        Ok::<_, ParseError<()>>(inner)
    });
    match inner {
        Ok(inner) => pieces.extend(inner),
        Err(_) => pieces.push(Piece::Refused("blocks nested too deeply")),
    }
}

/// Properties that bind script (Mozilla XBL, IE behaviours, Opera links).
fn scripted_property(name: &str) -> bool {
    [
        "behavior",
        "-ms-behavior",
        "-moz-binding",
        "-o-link",
        "-o-link-source",
    ]
    .iter()
    .any(|p| name.eq_ignore_ascii_case(p))
}

/// Properties an EPUB style sheet must not hold (EPUBCheck CSS-001): the text's direction is
/// the markup's (`dir`), which the book sets from its language. Web pages and EPUB 2 books
/// (calibre's GitBook exports) carry them.
fn bidi_property(name: &str) -> bool {
    name.eq_ignore_ascii_case("direction") || name.eq_ignore_ascii_case("unicode-bidi")
}

/// Why [`bidi_property`]'s declarations are cut.
const BIDI_WHY: &str = "not allowed in an EPUB style sheet; the book's `dir` sets the direction";

impl<'i> DeclarationParser<'i> for Cleaner<'_, '_> {
    type Declaration = ();
    type Error = ();

    fn parse_value(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
        declaration_start: &ParserState,
    ) -> Result<(), ParseError<()>> {
        let start = declaration_start.position().byte_index();
        let pieces = walk(input, false);
        let end = input.position().byte_index();
        if scripted_property(&name) {
            self.cut_declaration(start, end, &name, "script binding");
        } else if bidi_property(&name) {
            self.cut_declaration(start, end, &name, BIDI_WHY);
        } else if self.in_font_face && name.eq_ignore_ascii_case("src") {
            let value = start + value_offset(&self.source[start..end]);
            self.font_src(&pieces, start, value, end);
        } else {
            match self.settle(&pieces) {
                Ok(edits) => self.edits.extend(edits),
                Err(why) => self.cut_declaration(start, end, &name, &why.to_string()),
            }
        }
        Ok(())
    }
}

/// Where a declaration's value starts: after the name and the colon.
fn value_offset(declaration: &str) -> usize {
    declaration.find(':').map_or(0, |i| i + 1)
}

/// An at-rule's name, what its prelude holds, and where the prelude ends.
struct Prelude<'i> {
    name: CowRcStr<'i>,
    pieces: Vec<Piece<'i>>,
    end: usize,
}

impl<'i> AtRuleParser<'i> for Cleaner<'_, '_> {
    type Prelude = Prelude<'i>;
    type AtRule = ();
    type Error = ();

    fn parse_prelude(
        &mut self,
        name: CowRcStr<'i>,
        input: &mut Parser<'i>,
    ) -> Result<Prelude<'i>, ParseError<()>> {
        // `@import "x.css"` names its file with a string; `@namespace` URLs are only names.
        let strings = name.eq_ignore_ascii_case("import");
        let mut pieces = walk(input, strings);
        if name.eq_ignore_ascii_case("namespace") {
            pieces.clear();
        }
        Ok(Prelude {
            name,
            pieces,
            end: input.position().byte_index(),
        })
    }

    fn rule_without_block(&mut self, prelude: Prelude<'i>, start: &ParserState) -> Result<(), ()> {
        let start = start.position().byte_index();
        if prelude.name.eq_ignore_ascii_case("charset") {
            // Only valid first, and the book's copy is UTF-8 whatever it said.
            let end = self.through(prelude.end, ';');
            self.edits.push(Edit {
                start,
                end,
                text: String::new(),
            });
            return Ok(());
        }
        match self.settle(&prelude.pieces) {
            Ok(edits) => self.edits.extend(edits),
            Err(why) => {
                let what = format!("@{} ({why})", prelude.name);
                self.cut(start, prelude.end, Some(';'), what);
            }
        }
        Ok(())
    }

    fn parse_block(
        &mut self,
        prelude: Prelude<'i>,
        start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<(), ParseError<()>> {
        let font_face = prelude.name.eq_ignore_ascii_case("font-face");
        let outer = std::mem::replace(&mut self.in_font_face, font_face);
        self.body(input);
        self.in_font_face = outer;
        // `@document` applies its rules to pages at the web addresses it names.
        let verdict = if prelude.name.eq_ignore_ascii_case("document")
            || prelude.name.eq_ignore_ascii_case("-moz-document")
        {
            Err(Unkept::Refused("rules for web addresses"))
        } else {
            self.settle(&prelude.pieces)
        };
        match verdict {
            Ok(edits) => self.edits.extend(edits),
            Err(why) => {
                let start = start.position().byte_index();
                let what = format!("@{} rule ({why})", prelude.name);
                self.cut(start, input.position().byte_index(), Some('}'), what);
            }
        }
        Ok(())
    }
}

impl<'i> QualifiedRuleParser<'i> for Cleaner<'_, '_> {
    type Prelude = Vec<Piece<'i>>;
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<Vec<Piece<'i>>, ParseError<()>> {
        Ok(walk(input, false))
    }

    fn parse_block(
        &mut self,
        prelude: Vec<Piece<'i>>,
        start: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<(), ParseError<()>> {
        let outer = std::mem::replace(&mut self.in_font_face, false);
        self.body(input);
        self.in_font_face = outer;
        if let Err(why) = self.settle(&prelude) {
            let start = start.position().byte_index();
            let end = input.position().byte_index();
            self.cut(start, end, Some('}'), format!("a rule ({why})"));
        }
        Ok(())
    }
}

impl<'i> RuleBodyItemParser<'i, (), ()> for Cleaner<'_, '_> {
    fn parse_declarations(&self) -> bool {
        true
    }

    fn parse_qualified(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_files(_: &str) -> Result<String, NotCarried> {
        Err(NotCarried::NotCarriable)
    }

    fn clean(css: &str) -> Cleaned {
        clean_stylesheet(css, &mut no_files)
    }

    fn whats(c: &Cleaned) -> Vec<String> {
        c.removed
            .iter()
            .map(|r| format!("{}: {}", r.line, r.what))
            .collect()
    }

    #[test]
    fn legitimate_css_is_kept_byte_for_byte() {
        let css = "@charset \"UTF-8\";\n/* a comment */\n@namespace epub url(http://www.idpf.org/2007/ops);\n\
            body { color: #333; background: linear-gradient(to right, red, blue); }\n\
            @media (max-width: 600px) { p { margin: 0 } }\n\
            @supports (display: grid) { .g { display: grid; } }\n\
            @page { margin: 1em; }\n\
            @keyframes fade { from { opacity: 0 } to { opacity: 1 } }\n\
            .a { fill: url(#grad); } :root { --main: #333; --none:; }\n\
            @page :first { @top-left { content: \"x\" } }\n\
            h1 { color: red !important; } h1 /* a comment */ , h2 { margin: 0 }\n\
            p::before { content: \"url(http://not-a-url)\"; }\n\
            .d { background: url(data:image/png;base64,iVBORw0KGgo=) }\n";
        let out = clean(css);
        assert_eq!(out.css, css, "{:?}", out.removed);
        assert!(out.removed.is_empty());
    }

    #[test]
    fn remote_and_scripted_constructs_are_cut_each_with_its_line() {
        let css = "@import url(http://evil.example/a.css);\n\
            @import \"https://evil.example/b.css\" screen;\n\
            p { color: red; background: url(http://evil.example/x.png) no-repeat; margin: 0 }\n\
            div { width: expression(alert(1)); -moz-binding: url(x.xml#b); behavior: url(a.htc) }\n\
            a { background-image: url('javascript:alert(1)') }\n\
            b { background: url(file:///etc/passwd) }\n\
            i { list-style: url(//cdn.example/dot.png) }\n\
            u { cursor: url(\"  java\\9 script:alert(1)\"), auto }\n";
        let out = clean(css);
        let got = whats(&out);
        assert_eq!(got.len(), 10, "{got:#?}");
        assert!(got[0].starts_with("1: @import (remote url(http://evil.example/a.css))"));
        assert!(got[1].starts_with("2: @import (remote url(https://"));
        assert!(got[2].starts_with("3: `background` (remote url(http://evil.example/x.png))"));
        assert!(
            got[3].starts_with("4: `width` (script: expression())"),
            "{}",
            got[3]
        );
        assert!(got[4].starts_with("4: `-moz-binding` (script binding)"));
        assert!(got[5].starts_with("4: `behavior` (script binding)"));
        assert!(got[6].starts_with("5: `background-image` (script url("));
        assert!(got[7].starts_with("6: `background` (a file: URL"));
        assert!(got[8].starts_with("7: `list-style` (remote url(//cdn"));
        // The cursor's URL hides `javascript:` behind a CSS escape of a tab: still script.
        assert!(got[9].starts_with("8: `cursor` (script url("), "{}", got[9]);
        for gone in [
            "http",
            "expression",
            "binding",
            "behavior",
            "javascript",
            "file:",
            "//cdn",
        ] {
            assert!(!out.css.contains(gone), "{gone} left in:\n{}", out.css);
        }
        assert!(
            out.css.contains("p { color: red;  margin: 0 }"),
            "{}",
            out.css
        );
    }

    #[test]
    fn local_urls_are_rewritten_to_what_the_book_carries_or_cut() {
        let css = "@import url(other.css);\n\
            @font-face { font-family: Body; src: local(\"Body\"), url(fonts/body.woff2) format(\"woff2\"), url(http://x/body.woff) format(\"woff\"); }\n\
            @font-face { font-family: Gone; src: url(http://x/gone.woff); }\n\
            .hero { background: url(\"img/hero.png\") }\n\
            .lost { background: url(img/lost.png) }\n";
        let mut local = |url: &str| match url {
            "other.css" => Ok("other.css".to_string()),
            "fonts/body.woff2" => Ok("../fonts/font-1.otf".to_string()),
            "img/hero.png" => Ok("../images/img-0123.png".to_string()),
            _ => Err(NotCarried::NotCarriable),
        };
        let out = clean_stylesheet(css, &mut local);
        assert!(
            out.css.starts_with("@import url(other.css);"),
            "{}",
            out.css
        );
        assert!(
            out.css
                .contains("src: local(\"Body\"), url(\"../fonts/font-1.otf\") format(\"woff2\");"),
            "{}",
            out.css
        );
        assert!(
            out.css.contains("@font-face { font-family: Gone;  }"),
            "{}",
            out.css
        );
        assert!(
            out.css
                .contains("background: url(\"../images/img-0123.png\")")
        );
        assert!(out.css.contains(".lost { }"), "{}", out.css);
        let got = whats(&out);
        assert_eq!(got.len(), 3, "{got:#?}");
        assert!(
            got[0].starts_with("2: an `@font-face` src entry (remote"),
            "{}",
            got[0]
        );
        assert!(got[1].starts_with("3: `src` (remote"), "{}", got[1]);
        assert!(got[2].contains("url(img/lost.png): not an image, a font"));
    }

    #[test]
    fn rules_whose_prelude_fetches_and_rejected_text_with_urls_go() {
        let css = "@-moz-document url-prefix(http://evil.example/) { body { color: red } }\n\
            p { color red url(http://evil.example/x) }\n\
            q { color: blue }\n";
        let out = clean(css);
        assert!(!out.css.contains("evil"), "{}", out.css);
        assert!(out.css.contains("q { color: blue }"), "{}", out.css);
        assert_eq!(out.removed.len(), 2, "{:#?}", out.removed);
    }

    #[test]
    fn direction_properties_are_cut_as_epubcheck_forbids_them() {
        // calibre's EPUB 2 exports of GitBook books carry `direction: ltr` (EPUBCheck CSS-001).
        let out = clean(".a { direction: ltr; color: red }\n.b { Unicode-Bidi: embed }\n");
        assert_eq!(out.css, ".a {  color: red }\n.b { }\n", "{:?}", out.removed);
        let got = whats(&out);
        assert_eq!(got.len(), 2, "{got:#?}");
        assert!(
            got[0].starts_with("1: `direction` (not allowed"),
            "{}",
            got[0]
        );
        assert!(
            got[1].starts_with("2: `Unicode-Bidi` (not allowed"),
            "{}",
            got[1]
        );
    }

    #[test]
    fn what_epubcheck_refuses_is_cut_each_with_its_line() {
        // The Fidus Writer manual's stylesheet, shortened: a stray `-` before `@font-face`,
        // margin boxes after a declaration of `@page`, a remote URL; then CSS nesting.
        let css = "@charset \"UTF-8\";\n\
            -@font-face {\n  font-family: X;\n  src: url(../fonts/x.ttf);\n}\n\
            @page :first {\n  size: 159mm 229mm;\n  background: url(https://x.example/c.jpg);\n\
            \x20 @bottom-left { content: normal; }\n  margin-top: 3mm;\n}\n\
            .b { color: blue; .c { color: red } }\n\
            q { color: green }\n";
        let out = clean(css);
        assert_eq!(
            out.css,
            "@charset \"UTF-8\";\n\n@page :first {\n  size: 159mm 229mm;\n  \n  \n  margin-top: 3mm;\n}\n\
             .b { color: blue;  }\nq { color: green }\n"
        );
        let got = whats(&out);
        assert_eq!(got.len(), 4, "{got:#?}");
        assert!(
            got[0].starts_with("2: `-@font-face { …` (4 lines: "),
            "{}",
            got[0]
        );
        assert!(got[0].contains("has `-` where EPUBCheck"), "{}", got[0]);
        assert!(got[1].starts_with("8: `background` (remote"), "{}", got[1]);
        assert!(
            got[2].starts_with("9: `@bottom-left { content: normal; }`"),
            "{}",
            got[2]
        );
        assert!(
            got[3].starts_with("12: `.c { color: red }` (a rule nested"),
            "{}",
            got[3]
        );
    }

    #[test]
    fn a_block_left_open_is_closed_even_when_the_cleaner_cut_what_held_it() {
        let out = clean("p { color: red");
        assert_eq!(out.css, "p { color: red}");
        assert!(whats(&out)[0].starts_with("1: nothing, but closed the block"));
        // The `@media` goes for its malformed url() (an escaped `url(`), its block left open
        // with it: no `}` is added to close what is no longer there.
        let out = clean("q { x: y }\n@media print \\url(a.png) { p { color: red }");
        assert_eq!(out.css, "q { x: y }\n", "{:?}", out.removed);
        let out =
            clean("@media print { @-moz-document url-prefix(http://x) { p { x: y } } @foo; }");
        assert_eq!(out.css, "@media print {   }", "{:?}", out.removed);
        assert!(whats(&out)[1].contains("`@foo;`"), "{:?}", out.removed);
    }

    #[test]
    fn declarations_of_a_style_attribute_are_cleaned() {
        let out = clean_declarations(
            "fill: url(#g); stroke: url(http://x/p#q); opacity: .5",
            &mut no_files,
        );
        assert_eq!(out.css, "fill: url(#g);  opacity: .5");
        assert_eq!(out.removed.len(), 1);
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowing() {
        let css = format!(
            "p {{ width: {}1{} }} q {{ color: red }}",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let out = clean(&css);
        assert!(out.css.contains("q { color: red }"), "{}", out.css);
        assert!(!out.css.contains("(((("));
    }

    #[test]
    fn urls_are_classified_as_browsers_read_them() {
        assert_eq!(url_kind("#a"), UrlKind::Fragment);
        assert_eq!(url_kind("img/a.png"), UrlKind::Relative);
        assert_eq!(url_kind("a.png?x=1:2"), UrlKind::Relative);
        assert_eq!(url_kind("/etc/passwd"), UrlKind::Absolute);
        assert_eq!(url_kind("HTTPS://x"), UrlKind::Remote);
        assert_eq!(url_kind("//x/y"), UrlKind::Remote);
        assert_eq!(url_kind(" java\tscript:alert(1)"), UrlKind::Script);
        assert_eq!(url_kind("C:\\Windows\\x.png"), UrlKind::File);
        assert_eq!(url_kind("file:///x"), UrlKind::File);
        assert_eq!(
            url_kind("data:image/png;base64,AA"),
            UrlKind::Data { allowed: true }
        );
        assert_eq!(
            url_kind("data:font/woff2;base64,AA"),
            UrlKind::Data { allowed: true }
        );
        assert_eq!(
            url_kind("data:image/svg+xml,<svg/>"),
            UrlKind::Data { allowed: false }
        );
        assert_eq!(
            url_kind("data:text/html,x"),
            UrlKind::Data { allowed: false }
        );
    }

    #[test]
    fn encodings_are_read_and_the_charset_rule_dropped() {
        let (text, note) = decode(b"@charset \"iso-8859-1\";\np::after { content: \"\xE9\" }");
        assert_eq!(text, "\np::after { content: \"\u{e9}\" }");
        assert!(note.is_none());
        let (text, note) = decode(b"\xEF\xBB\xBFp { }");
        assert_eq!((text.as_str(), note), ("p { }", None));
        let (_, note) = decode(b"p { content: \"\xFF\" }");
        assert!(note.is_some_and(|n| n.contains("UTF-8")));
    }
}
