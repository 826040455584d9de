//! A lean pass over an XML entry that gives its summary without building a tree.
//!
//! It reads the tokens roxmltree reads and checks them at least as strictly (names, attribute
//! values, references, namespaces, duplicate attributes, nesting, what may stand outside the
//! root), but vouches only for the plain XML that content documents are made of. Anything past
//! that (an internal DTD subset, a non-ASCII name, an attribute value with a line break or a
//! tab, a namespace declaration out of the ordinary, a document near the node cap) makes it give
//! up with `None`: the entry is then parsed by roxmltree, which gives the same summary or the
//! error to report. So the findings do not depend on which of the two read an entry; the lean
//! pass only skips the tree and roxmltree's character-at-a-time reading of text. (On the
//! material books and their fixed versions it reads 2329 of 2330 well-formed entries.)

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::element::{Summarizer, Summary};
use super::walk::{Attr, Element};
use super::*;

const NS_XMLNS: &str = "http://www.w3.org/2000/xmlns/";
static CDATA_END: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"]]>"));
/// Namespace declarations past this many in one document are left to roxmltree (it caps the
/// distinct ones it keeps).
const MAX_DECLARATIONS: usize = 10_000;

/// The summary of the entry `entry` whose text is `text`, when the lean pass can vouch that
/// roxmltree reads it without an error; None otherwise.
pub(super) fn summarize(entry: &str, text: &str) -> Option<Summary> {
    // Each node takes at least a byte: a shorter text stays under roxmltree's node cap.
    // Every character is checked here, in one pass over the whole text: the text runs,
    // attribute values, comments and the rest need no check of their own.
    if text.len() + 2 >= xml::MAX_NODES as usize || !xml_chars(text.as_bytes()) {
        return None;
    }
    let mut scan = Scan::new(text);
    let mut summary = Summarizer::new(entry, text);
    scan.prolog()?;
    scan.root(&mut summary)?;
    scan.misc()?;
    // What `xml::parse` refuses the lean pass must refuse too. Every `<` the scan reads outside
    // a body (a comment, CDATA section, processing instruction or DOCTYPE literal) opens
    // markup, and none of it is `<!ENTITY`: without a `<` in a body the text holds none, and
    // the search of the whole text is not needed.
    let refused = scan.markup_in_body && xml::entity_declaration(text).is_some();
    (scan.pos == text.len() && !refused).then(|| summary.finish())
}

/// A namespace declaration of the start tag being read, as written: prefix, local name, value.
type Declaration<'t> = (&'t str, &'t str, Cow<'t, str>);

struct Scan<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    /// The namespace declarations in scope, outermost first: (prefix, URI), `""` the default.
    scope: Vec<(&'t str, &'t str)>,
    declarations: usize,
    /// Whether a comment, CDATA section, processing instruction or DOCTYPE literal holds a `<`.
    markup_in_body: bool,
    /// The start tag being read: its attributes (their namespaces filled in once its
    /// declarations are in scope), the prefix of each as written, its declarations.
    attrs: Vec<Attr<'t>>,
    prefixes: Vec<&'t str>,
    declared: Vec<Declaration<'t>>,
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Whether `s` starts as a name must (an ASCII letter or `_`).
fn starts_name(s: &str) -> bool {
    s.as_bytes().first().is_some_and(|&b| is_name_start(b))
}

fn is_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// [`is_name`] of every byte, looked up in the loop that reads a name.
static NAME: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.');
        b += 1;
    }
    table
};

/// The bytes an attribute value is read up to: either quote, `&`, and what leaves the value
/// to roxmltree (`<` is refused, a tab or a line break normalised).
static VALUE_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let stops = *b"\"'&<\t\n\r";
    let mut i = 0;
    while i < stops.len() {
        table[stops[i] as usize] = true;
        i += 1;
    }
    table
};

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `s` holds only characters XML allows ([`crate::xml::only_xml_bytes`]).
fn xml_chars(s: &[u8]) -> bool {
    crate::xml::only_xml_bytes(s)
}

impl<'t> Scan<'t> {
    fn new(text: &'t str) -> Self {
        Scan {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            // Room for what a typical document needs, not grown a few times over in each.
            scope: Vec::with_capacity(4),
            declarations: 0,
            markup_in_body: false,
            attrs: Vec::with_capacity(8),
            prefixes: Vec::with_capacity(8),
            declared: Vec::new(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn starts(&self, s: &[u8]) -> bool {
        self.bytes
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(s))
    }

    /// Steps over `s`, which must come next.
    fn expect(&mut self, s: &[u8]) -> Option<()> {
        self.starts(s).then(|| self.pos += s.len())
    }

    /// Skips white space; whether there was any.
    fn spaces(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(is_space) {
            self.pos += 1;
        }
        self.pos > start
    }

    /// Notes a body (of a comment, CDATA section, processing instruction, DOCTYPE literal)
    /// that holds a `<`: only there can the text declare an entity unseen by the scan.
    fn body(&mut self, body: &[u8]) {
        self.markup_in_body |= memchr::memchr(b'<', body).is_some();
    }

    /// An ASCII name part (`[A-Za-z_][A-Za-z0-9_.-]*`).
    fn name_part(&mut self) -> Option<&'t str> {
        let start = self.pos;
        let rest = self.bytes.get(start..)?;
        let len = rest.iter().position(|&b| !NAME[usize::from(b)]);
        let name = self.text.get(start..start + len.unwrap_or(rest.len()))?;
        self.pos = start + name.len();
        starts_name(name).then_some(name)
    }

    /// A name with at most one prefix: (prefix or `""`, local name, as written). A name that
    /// goes on in non-ASCII letters, or with a second colon, is left to roxmltree.
    /// (One loop reads the name and its colon; the parts are checked after. Inlined into the
    /// readers of tags, which call it for every element and attribute name.)
    #[inline(always)]
    fn qname(&mut self) -> Option<(&'t str, &'t str, &'t str)> {
        let start = self.pos;
        let mut end = start;
        let mut colon = None;
        while let Some(&b) = self.bytes.get(end) {
            match b {
                _ if NAME[usize::from(b)] => {}
                b':' if colon.is_none() => colon = Some(end - start),
                b':' => return None,
                _ if b >= 0x80 => return None,
                _ => break,
            }
            end += 1;
        }
        let name = self.text.get(start..end)?;
        self.pos = end;
        let (prefix, local) = match colon {
            None => ("", name),
            Some(at) => (name.get(..at)?, name.get(at + 1..)?),
        };
        let parts = (colon.is_none() || starts_name(prefix)) && starts_name(local);
        parts.then_some((prefix, local, name))
    }

    /// A quoted literal of printable ASCII without `<` (the XML declaration's).
    fn pseudo_attribute(&mut self) -> Option<()> {
        if !self.peek().is_some_and(|b| b == b'=' || is_space(b)) {
            return None;
        }
        self.spaces();
        self.expect(b"=")?;
        self.spaces();
        let quote = self.peek().filter(|q| matches!(q, b'"' | b'\''))?;
        self.pos += 1;
        while let Some(b) = self.peek() {
            self.pos += 1;
            match b {
                _ if b == quote => return Some(()),
                b' '..=b'~' if b != b'<' => {}
                _ => return None,
            }
        }
        None
    }

    /// `<?xml version=… encoding=… standalone=…?>`, as roxmltree reads it.
    fn declaration(&mut self) -> Option<()> {
        self.pos += b"<?xml".len();
        self.spaces();
        self.expect(b"version")?;
        self.pseudo_attribute()?;
        let mut space = self.spaces();
        for name in [b"encoding".as_slice(), b"standalone"] {
            if space && self.starts(name) {
                self.pos += name.len();
                self.pseudo_attribute()?;
                space = self.spaces();
            }
        }
        self.expect(b"?>")
    }

    /// What may come before the root: the XML declaration, comments, white space, a DOCTYPE
    /// without an internal subset.
    fn prolog(&mut self) -> Option<()> {
        if self.starts(b"<?xml ") {
            self.declaration()?;
        } else if self.starts("\u{FEFF}".as_bytes()) {
            return None;
        }
        self.misc()?;
        if self.starts(b"<!DOCTYPE") {
            self.doctype()?;
            self.misc()?;
        }
        Some(())
    }

    /// `<!DOCTYPE name (PUBLIC "…" "…" | SYSTEM "…")? >`.
    fn doctype(&mut self) -> Option<()> {
        self.pos += b"<!DOCTYPE".len();
        if !self.spaces() {
            return None;
        }
        self.qname()?;
        self.spaces();
        let literals = match () {
            _ if self.starts(b"PUBLIC") => 2,
            _ if self.starts(b"SYSTEM") => 1,
            _ => 0,
        };
        if literals > 0 {
            self.pos += b"PUBLIC".len();
        }
        for _ in 0..literals {
            if !self.spaces() {
                return None;
            }
            let quote = self.peek().filter(|q| matches!(q, b'"' | b'\''))?;
            let rest = self.bytes.get(self.pos + 1..)?;
            let len = memchr::memchr(quote, rest)?;
            self.body(rest.get(..len)?);
            self.pos += 2 + len;
        }
        self.spaces();
        self.expect(b">")
    }

    /// White space, comments and processing instructions.
    fn misc(&mut self) -> Option<()> {
        loop {
            self.spaces();
            if self.starts(b"<!--") {
                self.comment()?;
            } else if self.starts(b"<?") {
                self.instruction()?;
            } else {
                return Some(());
            }
        }
    }

    /// `<?target content?>`, its target an ASCII name other than `xml` (in any case) followed
    /// by white space or `?>`.
    fn instruction(&mut self) -> Option<()> {
        self.pos += 2;
        let target = self.name_part()?;
        if target.eq_ignore_ascii_case("xml")
            || !self.peek().is_some_and(|b| b == b'?' || is_space(b))
        {
            return None;
        }
        self.spaces();
        let from = self.pos;
        let end = from + memchr::memmem::find(self.bytes.get(from..)?, b"?>")?;
        self.body(self.bytes.get(from..end)?);
        self.pos = end + 2;
        Some(())
    }

    /// `<!-- … -->`: no `--` inside, no `-` last.
    fn comment(&mut self) -> Option<()> {
        let from = self.pos + b"<!--".len();
        let end = from + memchr::memmem::find(self.bytes.get(from..)?, b"-->")?;
        let body = self.bytes.get(from..end)?;
        if memchr::memmem::find(body, b"--").is_some() || body.ends_with(b"-") {
            return None;
        }
        self.body(body);
        self.pos = end + 3;
        Some(())
    }

    /// `<![CDATA[ … ]]>`.
    fn cdata(&mut self) -> Option<()> {
        let from = self.pos + b"<![CDATA[".len();
        let end = from + CDATA_END.find(self.bytes.get(from..)?)?;
        self.body(self.bytes.get(from..end)?);
        self.pos = end + 3;
        Some(())
    }

    /// Character data up to the next `<`: allowed characters, references to the five
    /// predefined entities or to allowed characters, no `]]>`.
    /// (Its characters were checked with the whole text's; one search stops at each `<`,
    /// `&` and `>`.)
    fn text(&mut self) -> Option<()> {
        let start = self.pos;
        let rest = self.bytes.get(start..)?;
        // Most runs between two tags are empty or a line break: not worth a vector search.
        // (The first of `<`, `&` and `>` among the first four bytes, found with a plain
        // slice search: an iterator taking four of an enumeration costs twice as much.)
        let head = rest.get(..4).unwrap_or(rest);
        let first = head.iter().position(|&b| matches!(b, b'<' | b'&' | b'>'));
        if let Some(at) = first
            && head.get(at) == Some(&b'<')
        {
            self.pos = start + at;
            return Some(());
        }
        for at in memchr::memchr3_iter(b'<', b'&', b'>', rest) {
            match rest.get(at)? {
                b'<' => {
                    self.pos = start + at;
                    return Some(());
                }
                b'&' => {
                    reference(self.text.get(start + at..)?)?;
                }
                _ if at >= 2 && rest.get(at - 2..at) == Some(b"]]") => return None,
                _ => {}
            }
        }
        None
    }

    /// The root element and everything in it, each element handed to `summary` in document
    /// order.
    fn root(&mut self, summary: &mut Summarizer) -> Option<()> {
        // Each open element: its name as written, and where its declarations start in scope.
        let mut open: Vec<(&'t str, usize)> = Vec::with_capacity(16);
        self.expect(b"<")?;
        self.start_tag(summary, &mut open)?;
        while !open.is_empty() {
            // Past the text, at a `<`: what follows it says which markup this is.
            self.text()?;
            match self.bytes.get(self.pos + 1) {
                Some(b'/') => self.end_tag(&mut open)?,
                Some(b'!') if self.starts(b"<!--") => self.comment()?,
                Some(b'!') if self.starts(b"<![CDATA[") => self.cdata()?,
                Some(b'!') => return None,
                Some(b'?') => self.instruction()?,
                _ => {
                    self.pos += 1;
                    self.start_tag(summary, &mut open)?;
                }
            }
        }
        Some(())
    }

    /// `</name>`, closing the element open last: the name it was opened with, not going on
    /// in another name character (what would make it another name).
    fn end_tag(&mut self, open: &mut Vec<(&'t str, usize)>) -> Option<()> {
        let (expected, scope) = open.pop()?;
        let from = self.pos + 2;
        let end = from + expected.len();
        let same = (self.bytes.get(from..end)) == Some(expected.as_bytes());
        let goes_on =
            (self.bytes.get(end)).is_some_and(|&b| NAME[usize::from(b)] || b == b':' || b >= 0x80);
        if !same || goes_on {
            return None;
        }
        self.pos = end;
        self.spaces();
        self.expect(b">")?;
        self.scope.truncate(scope);
        Some(())
    }

    /// A start tag (or an empty element), its `<` read: its attributes read, its declarations
    /// put in scope, the element handed to `summary`; pushed on `open` unless empty.
    fn start_tag(
        &mut self,
        summary: &mut Summarizer,
        open: &mut Vec<(&'t str, usize)>,
    ) -> Option<()> {
        let start = self.pos - 1;
        let (prefix, local, name) = self.qname()?;
        let empty = self.attributes()?;
        let scope = self.scope.len();
        if !self.declared.is_empty() {
            self.declare(scope)?;
        }
        if matches!(prefix, "xml" | "xmlns") {
            return None;
        }
        let ns = namespace(&self.scope, prefix)?;
        if !self.attrs.is_empty() {
            self.resolve()?;
        }
        summary.element(&Element {
            pos: start,
            depth: open.len(),
            ns,
            local,
            attrs: &self.attrs,
        });
        match empty {
            true => self.scope.truncate(scope),
            false => open.push((name, scope)),
        }
        Some(())
    }

    /// The attributes of a start tag into `self.attrs` (namespace declarations into
    /// `self.declared`), up to and past its `>` or `/>`; whether the element is empty.
    fn attributes(&mut self) -> Option<bool> {
        self.attrs.clear();
        self.prefixes.clear();
        self.declared.clear();
        loop {
            let space = self.spaces();
            match self.peek()? {
                b'/' => {
                    self.pos += 1;
                    return self.expect(b">").map(|()| true);
                }
                b'>' => {
                    self.pos += 1;
                    return Some(false);
                }
                _ if !space => return None,
                _ => {}
            }
            let (prefix, local, _) = self.qname()?;
            self.spaces();
            self.expect(b"=")?;
            self.spaces();
            let value = self.value()?;
            if prefix == "xmlns" || local == "xmlns" {
                self.declared.push((prefix, local, value));
            } else {
                self.attrs.push(Attr {
                    ns: None,
                    local,
                    value,
                });
                self.prefixes.push(prefix);
            }
        }
    }

    /// A quoted attribute value, its references replaced. One holding a `<` is refused; white
    /// space other than spaces is normalised: left to roxmltree.
    fn value(&mut self) -> Option<Cow<'t, str>> {
        let quote = self.peek().filter(|q| matches!(q, b'"' | b'\''))?;
        let from = self.pos + 1;
        let mut references = false;
        let mut end = from;
        loop {
            let rest = self.bytes.get(end..)?;
            end += rest.iter().position(|&b| VALUE_STOP[usize::from(b)])?;
            match self.bytes.get(end)? {
                &b if b == quote => break,
                b'&' => references = true,
                b'"' | b'\'' => {}
                _ => return None,
            }
            end += 1;
        }
        self.pos = end + 1;
        let value = self.text.get(from..end)?;
        match references {
            true => expand(value),
            false => Some(Cow::Borrowed(value)),
        }
    }

    /// Puts the namespace declarations of the start tag just read in scope (`scope` is where
    /// its own start). Anything out of the ordinary is left to roxmltree.
    fn declare(&mut self, scope: usize) -> Option<()> {
        for (prefix, local, value) in &self.declared {
            let (prefix, local) = (*prefix, *local);
            // A URI written with references is left to roxmltree.
            let Cow::Borrowed(uri) = *value else {
                return None;
            };
            let declared = match (prefix, local) {
                // Bound to its own URI, `xml` is declared already (roxmltree ignores it).
                ("xmlns", "xml") if uri == NS_XML => continue,
                ("xmlns", "xml" | "xmlns") => return None,
                ("xmlns", prefix) => prefix,
                (_, "xmlns") if !prefix.is_empty() => return None,
                (_, "xmlns") => "",
                _ => continue,
            };
            let taken = (self.scope.get(scope..)?.iter()).any(|(p, _)| *p == declared);
            if taken || uri.is_empty() || uri == NS_XML || uri == NS_XMLNS {
                return None;
            }
            self.declarations += 1;
            if self.declarations > MAX_DECLARATIONS {
                return None;
            }
            self.scope.push((declared, uri));
        }
        Some(())
    }

    /// The namespace of each attribute of the start tag just read (its declarations in
    /// scope); two with the same name in the same namespace are refused.
    fn resolve(&mut self) -> Option<()> {
        for i in 0..self.attrs.len() {
            let ns = match *self.prefixes.get(i)? {
                "" => None,
                "xml" => Some(NS_XML),
                prefix => namespace(&self.scope, prefix)?,
            };
            let (before, rest) = self.attrs.split_at_mut(i);
            let attr = rest.first_mut()?;
            if (before.iter()).any(|a| a.ns == ns && a.local == attr.local) {
                return None;
            }
            attr.ns = ns;
        }
        Some(())
    }
}

/// The character a reference at the start of `s` stands for, and its length: `&amp;`,
/// `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#N;`, `&#xH;` naming a character XML allows.
fn reference(s: &str) -> Option<(char, usize)> {
    let b = s.as_bytes();
    let (c, end) = if b.get(1) == Some(&b'#') {
        let hex = b.get(2) == Some(&b'x');
        let from = if hex { 3 } else { 2 };
        let digits = (b.get(from..)?.iter())
            .take_while(|d| match hex {
                true => d.is_ascii_hexdigit(),
                false => d.is_ascii_digit(),
            })
            .count();
        let n = u32::from_str_radix(s.get(from..from + digits)?, if hex { 16 } else { 10 }).ok()?;
        let c = char::from_u32(n).unwrap_or('\u{FFFD}');
        if !xml_chars(c.encode_utf8(&mut [0; 4]).as_bytes()) {
            return None;
        }
        (c, from + digits)
    } else {
        let len = (b.get(1..)?.iter())
            .take_while(|&&d| is_name(d) || d == b':')
            .count();
        let c = match s.get(1..1 + len)? {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => return None,
        };
        (c, 1 + len)
    };
    (b.get(end) == Some(&b';')).then_some((c, end + 1))
}

/// An attribute value with its references replaced by what they stand for.
fn expand(value: &str) -> Option<Cow<'_, str>> {
    let Some(first) = memchr::memchr(b'&', value.as_bytes()) else {
        return Some(Cow::Borrowed(value));
    };
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut amp = Some(first);
    while let Some(at) = amp {
        out.push_str(rest.get(..at)?);
        let (c, len) = reference(rest.get(at..)?)?;
        out.push(c);
        rest = rest.get(at + len..)?;
        amp = memchr::memchr(b'&', rest.as_bytes());
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// The URI `prefix` names in `scope`: None for no prefix and no default namespace; a prefix
/// declared nowhere gives up (the outer None).
fn namespace<'t>(scope: &[(&'t str, &'t str)], prefix: &str) -> Option<Option<&'t str>> {
    // Most names have no prefix: two empty ones are equal without comparing their bytes. (The
    // comparison calls `bcmp` even for none, and glibc's AVX-512 `bcmp` reads an empty name's
    // pointer, which an empty literal leaves dangling, with a masked load that the processor
    // completes only in microcode: 3% of a fix's time on the bench, for nothing.)
    let same = |p: &str| p.len() == prefix.len() && (prefix.is_empty() || p == prefix);
    let uri = (scope.iter().rev())
        .find(|(p, _)| same(p))
        .map(|(_, uri)| *uri);
    match (uri, prefix.is_empty()) {
        (None, false) => None,
        (uri, _) => Some(uri),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::{CHAPTER, CONTAINER, NAV, NCX};

    /// Plain XML with most of what the rules read: a public DOCTYPE, comments, CDATA,
    /// references, namespaces (default, prefixed, redeclared), SVG links, `epub:type` in the
    /// head, a base and a viewport.
    const RICH: &str = r##"<?xml version='1.0' encoding="utf-8" standalone="no" ?>
<!-- before --><?xml-stylesheet href="a.css" type="text/css"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" 'http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd' >
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="fr" xmlns:xml="http://www.w3.org/XML/1998/namespace">
<head epub:type="x"><title epub:type="y">T &amp; &#233;&#x4E00;</title>
  <base href="../"/><base href="other/"/>
  <meta name=" ViewPort " content="width=100, height=200"/>
  <link rel="alternate stylesheet" href="style.css"/>
  <style><![CDATA[ p > a { color: red } ]]></style>
</head>
<body id="b">
  <p xml:id="x1" class='c'>第一章，“引号”。 a > b <a href="#x1">x</a><?pi data?></p>
  <a href="c.xhtml?a=1&amp;b=2#&#x78;1" title="&quot;q&apos; &lt;&gt; &#233;"/>
  <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
    <image xlink:href="../images/a.png" width="1"/><use href="#u"/>
    <a xlink:href="c.xhtml"><text>t</text></a>
  </svg>
  <e:x xmlns:e="urn:e" e:id="n" id="m"><e:y xmlns:e="urn:f" e:src="q"/></e:x>
  <img src="a.png" alt=""/><video poster="p.png" src=" "/><object data="d.svg"></object>
</body>
</html>
<!-- after -->
"##;

    fn tree(entry: &str, text: &str) -> Result<Summary, InspectError> {
        xml::parse(entry, text).map(|doc| super::super::element::of_tree(entry, &doc))
    }

    #[test]
    fn plain_documents_are_read_as_the_tree_reads_them() {
        for (entry, text) in [
            ("EPUB/text/rich.xhtml", RICH),
            ("EPUB/text/chapter_1.xhtml", CHAPTER),
            ("EPUB/nav.xhtml", NAV),
            ("EPUB/toc.ncx", NCX),
            ("META-INF/container.xml", CONTAINER),
            ("a.svg", "<svg xmlns='http://www.w3.org/2000/svg'/>"),
            (
                "b.xhtml",
                "<?xml-stylesheet href='a'?><a><?pi x?><b c='x&amp;y'/></a>",
            ),
            ("c.xhtml", "<a>]>a]] >b]]&gt;&amp;c>]</a>"),
            // `<` in bodies: markup commented out, an entity declaration without a DOCTYPE.
            (
                "d.xhtml",
                "<!DOCTYPE a SYSTEM 'a<b'><a><!-- <p> --><?pi <b>?></a>",
            ),
            (
                "e.xhtml",
                "<a><!-- <!ENTITY e 'x'> --><![CDATA[<!ENTITY]]></a>",
            ),
        ] {
            let lean =
                summarize(entry, text).unwrap_or_else(|| panic!("{entry} left to roxmltree"));
            assert_eq!(lean, tree(entry, text).unwrap(), "{entry}");
        }
        let rich = summarize("EPUB/text/rich.xhtml", RICH).unwrap().xml;
        assert_eq!(rich.links.len(), 9, "{:#?}", rich.links);
        assert!(rich.links.iter().any(|l| l.raw == "c.xhtml?a=1&b=2#x1"));
        assert_eq!(rich.head_semantics.len(), 2);
        assert_eq!(rich.base.as_deref(), Some("../"));
        assert!(rich.viewport.is_some());
        assert!(rich.ids.contains("x1") && rich.ids.contains("m") && !rich.ids.contains("n"));
    }

    #[test]
    fn what_is_out_of_the_ordinary_is_left_to_roxmltree() {
        for text in [
            "",
            "\u{FEFF}<a/>",
            "<a><?xml?></a>",
            "<a><?p<x?></a>",
            "<a xmlns:p='a&amp;b'/>",
            "<!DOCTYPE a [<!ELEMENT a ANY>]><a/>",
            "<a b='x\ny'/>",
            "<é/>",
            "<a:b:c/>",
            "<a xmlns:p=''/>",
            "<a xmlns:xml='urn:x'/>",
            "<a xmlns='x' xmlns='y'/>",
            "<p:a xmlns:p='x' xmlns:p='y'/>",
            "<xml:a/>",
        ] {
            assert!(summarize("a.xhtml", text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn what_roxmltree_refuses_the_lean_pass_refuses() {
        for text in [
            "<a>",
            "<a></b>",
            "<a/><b/>",
            "x<a/>",
            "<a/>x",
            "<a b='1' b='2'/>",
            "<a xmlns:p='u' xmlns:q='u' p:b='1' q:b='2'/>",
            "<p:a/>",
            "<a p:b='1'/>",
            "<a>]]></a>",
            "<a>x>]]>y</a>",
            "<a>&amp;]]></a>",
            "<a b='\u{1}'/>",
            "<a><!-- \u{FFFF} --></a>",
            "<a><![CDATA[\u{1}]]></a>",
            "<a>&nbsp;</a>",
            "<a>&#0;</a>",
            "<a>&#x;</a>",
            "<a>&amp</a>",
            "<a>\u{1}</a>",
            "<a>\u{FFFE}</a>",
            "<a><!-- a -- b --></a>",
            "<a><!-- a ---></a>",
            "<a b='&nbsp;'/>",
            "<a b='&#1;'/>",
            "<a b='&amp'/>",
            "<a><?xml x?></a>",
            "<a/><?xml version='1.0'?>",
            "<a b='<'/>",
            "<a b='1'c='2'/>",
            "<!DOCTYPE a><!DOCTYPE a><a/>",
            "<?xml version='1.0'encoding='x'?><a/>",
            "<!DOCTYPE a [<!ENTITY e 'x'>]><a/>",
            // Refused by `xml::parse` wherever `<!ENTITY` hides, once there is a DOCTYPE.
            "<!DOCTYPE a><a><!-- <!ENTITY e 'x'> --></a>",
            "<!DOCTYPE a><a><![CDATA[<!ENTITY e 'x'>]]></a>",
            "<!DOCTYPE a><a><?pi <!ENTITY e 'x'>?></a>",
            "<!DOCTYPE a SYSTEM '<!ENTITY e'><a/>",
            "<!DOCTYPE a PUBLIC 'p' '<!ENTITY e'><a/>",
            "<a><!-- <!DOCTYPE a --><?pi <!ENTITY?></a>",
        ] {
            assert!(tree("a.xhtml", text).is_err(), "roxmltree takes {text:?}");
            assert!(summarize("a.xhtml", text).is_none(), "{text:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// Damage anywhere in a rich document: when the lean pass vouches for the result,
        /// roxmltree reads it without an error and to the same summary.
        #[test]
        fn lean_pass_agrees_with_roxmltree_on_damaged_documents(
            at in 0usize..2048,
            len in 0usize..8,
            insert in "[<>&#;:\"'/=a-z!?\\[\\] \t\n\u{1}\u{FFFE}é第xX0-9-]{0,6}",
        ) {
            let mut start = at.min(RICH.len());
            while !RICH.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + len).min(RICH.len());
            while !RICH.is_char_boundary(end) {
                end -= 1;
            }
            let text = format!("{}{}{}", &RICH[..start], insert, &RICH[end..]);
            if let Some(lean) = summarize("EPUB/text/rich.xhtml", &text) {
                let tree = tree("EPUB/text/rich.xhtml", &text);
                proptest::prop_assert!(tree.is_ok(), "{text:?}: {:?}", tree.err());
                proptest::prop_assert_eq!(lean, tree.unwrap(), "{:?}", text);
            }
        }
    }
}
