//! The tokens of a chapter written as XHTML, read a byte slice at a time for
//! [`super::xml`], which builds html5ever's tree from them without html5ever.
//!
//! Only what HTML's tokenizer reads the same way is taken: lowercase ASCII names, quoted
//! attribute values, the five entities XML defines and numeric references to characters
//! HTML does not remap, comments HTML ends where XML does, a doctype without an internal
//! subset. Anything else ([`Declined`]) sends the document back to html5ever. Text and values
//! come out as HTML reads them: line breaks normalised (CRLF and CR to LF), references decoded,
//! and no tab or newline in a value turned into a space (XML's attribute normalisation).

use std::borrow::Cow;

use html5ever::{Attribute, LocalName, QualName, local_name, ns};

/// The document is not one this reading can promise to read as HTML does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Declined;

/// One token of the source.
#[derive(Debug)]
pub(super) enum Token<'a> {
    /// Character data as written (see [`decode`]).
    Text(&'a str),
    /// A start tag.
    Start(Start<'a>),
    /// An end tag's name.
    End(&'a str),
    /// A comment's data as written.
    Comment(&'a str),
    /// `<!DOCTYPE name PUBLIC "…" "…">`.
    Doctype(Doctype<'a>),
    /// `<?…>`: what HTML reads as a bogus comment, its data from the `?` to before the `>`.
    Bogus(&'a str),
}

/// A start tag: its name, its attributes (values decoded), whether written `<x/>`.
#[derive(Debug)]
pub(super) struct Start<'a> {
    pub name: &'a str,
    pub attrs: Vec<Attribute>,
    pub self_closing: bool,
}

/// A doctype's name and identifiers, as written.
#[derive(Debug)]
pub(super) struct Doctype<'a> {
    pub name: &'a str,
    pub public: Option<&'a str>,
    pub system: Option<&'a str>,
}

/// Reads tokens from a source in order.
pub(super) struct Reader<'a> {
    src: &'a str,
    pos: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `bytes` opens with `keyword`, in any case (as HTML reads a doctype's words).
fn starts_with_keyword(bytes: &[u8], keyword: &[u8]) -> bool {
    bytes
        .get(..keyword.len())
        .is_some_and(|b| b.eq_ignore_ascii_case(keyword))
}

/// A byte of a name both readings read alike (HTML lowercases ASCII, so no capitals; no
/// prefix either: `epub:switch` is one local name to HTML, a prefixed one to XML).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.')
}

/// A byte of an attribute name: `epub:type` and `xml:lang` are plain local names to HTML.
fn is_attr_name_byte(b: u8) -> bool {
    is_name_byte(b) || b == b':'
}

impl<'a> Reader<'a> {
    /// A reader at the start of `src`.
    pub(super) fn new(src: &'a str) -> Reader<'a> {
        Reader { src, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    fn at(&self, i: usize) -> u8 {
        self.bytes().get(i).copied().unwrap_or(0)
    }

    fn skip_space(&mut self) {
        while is_space(self.at(self.pos)) {
            self.pos += 1;
        }
    }

    /// The next token, or `None` at the end of the source.
    pub(super) fn next_token(&mut self) -> Result<Option<Token<'a>>, Declined> {
        let rest = &self.bytes()[self.pos..];
        if rest.is_empty() {
            return Ok(None);
        }
        if rest[0] != b'<' {
            let len = memchr::memchr(b'<', rest).unwrap_or(rest.len());
            let text = &self.src[self.pos..self.pos + len];
            self.pos += len;
            return Ok(Some(Token::Text(text)));
        }
        match rest.get(1).copied().unwrap_or(0) {
            b'/' => self.end_tag().map(Some),
            b'!' if rest.starts_with(b"<!--") => self.comment().map(Some),
            b'!' if starts_with_keyword(rest, b"<!DOCTYPE") => self.doctype().map(Some),
            b'?' => {
                let len = memchr::memchr(b'>', rest).ok_or(Declined)?;
                let data = &self.src[self.pos + 1..self.pos + len];
                self.pos += len + 1;
                Ok(Some(Token::Bogus(data)))
            }
            b if b.is_ascii_lowercase() => self.start_tag().map(Some),
            _ => Err(Declined),
        }
    }

    /// A name from `self.pos`, of the bytes `ok` accepts; it must end at a space, `/`, `>`
    /// or (for attributes) `=`.
    fn name(&mut self, ok: fn(u8) -> bool) -> Result<&'a str, Declined> {
        let start = self.pos;
        while ok(self.at(self.pos)) {
            self.pos += 1;
        }
        let end = self.at(self.pos);
        if self.pos == start || !(is_space(end) || matches!(end, b'/' | b'>' | b'=')) {
            return Err(Declined);
        }
        Ok(&self.src[start..self.pos])
    }

    fn start_tag(&mut self) -> Result<Token<'a>, Declined> {
        self.pos += 1;
        let name = self.name(is_name_byte)?;
        let mut attrs: Vec<Attribute> = Vec::new();
        loop {
            let spaced = is_space(self.at(self.pos));
            self.skip_space();
            match self.at(self.pos) {
                b'>' => {
                    self.pos += 1;
                    return Ok(Token::Start(Start {
                        name,
                        attrs,
                        self_closing: false,
                    }));
                }
                b'/' if self.at(self.pos + 1) == b'>' => {
                    self.pos += 2;
                    return Ok(Token::Start(Start {
                        name,
                        attrs,
                        self_closing: true,
                    }));
                }
                b if spaced && (b.is_ascii_lowercase() || b == b'_') => {
                    let attr = self.attribute()?;
                    // HTML keeps the first of two alike; XML has none.
                    if attrs.iter().any(|a| a.name.local == attr.name.local) {
                        return Err(Declined);
                    }
                    attrs.push(attr);
                }
                _ => return Err(Declined),
            }
        }
    }

    /// `name="value"` (or single quotes), spaces allowed around `=`.
    fn attribute(&mut self) -> Result<Attribute, Declined> {
        let name = self.name(is_attr_name_byte)?;
        self.skip_space();
        if self.at(self.pos) != b'=' {
            return Err(Declined);
        }
        self.pos += 1;
        self.skip_space();
        let quote = self.at(self.pos);
        if quote != b'"' && quote != b'\'' {
            return Err(Declined);
        }
        let start = self.pos + 1;
        let len = memchr::memchr(quote, &self.bytes()[start..]).ok_or(Declined)?;
        let raw = &self.src[start..start + len];
        self.pos = start + len + 1;
        let value = decode(raw)?;
        Ok(Attribute {
            name: QualName::new(None, ns!(), local_name(name)),
            value: value.as_ref().into(),
        })
    }

    fn end_tag(&mut self) -> Result<Token<'a>, Declined> {
        self.pos += 2;
        let name = self.name(is_name_byte)?;
        self.skip_space();
        if self.at(self.pos) != b'>' {
            return Err(Declined);
        }
        self.pos += 1;
        Ok(Token::End(name))
    }

    /// `<!--data-->`, where the data neither opens as HTML's abrupt comments do (`<!-->`,
    /// `<!--->`) nor holds `--` (XML allows none; HTML would also end at `--!>`).
    fn comment(&mut self) -> Result<Token<'a>, Declined> {
        let start = self.pos + 4;
        let rest = &self.bytes()[start..];
        let len = memchr::memmem::find(rest, b"--").ok_or(Declined)?;
        if rest.get(len + 2) != Some(&b'>') || rest.first() == Some(&b'>') {
            return Err(Declined);
        }
        if rest.starts_with(b"->") {
            return Err(Declined);
        }
        self.pos = start + len + 3;
        Ok(Token::Comment(&self.src[start..start + len]))
    }

    /// `<!DOCTYPE name>`, with `PUBLIC "…" ["…"]` or `SYSTEM "…"`; no internal subset, no
    /// `>` or line break inside an identifier.
    fn doctype(&mut self) -> Result<Token<'a>, Declined> {
        self.pos += "<!DOCTYPE".len();
        if !is_space(self.at(self.pos)) {
            return Err(Declined);
        }
        self.skip_space();
        let start = self.pos;
        while self.at(self.pos).is_ascii_alphanumeric() {
            self.pos += 1;
        }
        let name = &self.src[start..self.pos];
        self.skip_space();
        let rest = &self.bytes()[self.pos..];
        let (public, system) = if starts_with_keyword(rest, b"PUBLIC") {
            self.pos += "PUBLIC".len();
            let public = self.quoted()?;
            (Some(public), self.quoted_if_any()?)
        } else if starts_with_keyword(rest, b"SYSTEM") {
            self.pos += "SYSTEM".len();
            (None, Some(self.quoted()?))
        } else {
            (None, None)
        };
        self.skip_space();
        if name.is_empty() || self.at(self.pos) != b'>' {
            return Err(Declined);
        }
        self.pos += 1;
        Ok(Token::Doctype(Doctype {
            name,
            public,
            system,
        }))
    }

    /// Spaces, then a quoted identifier.
    fn quoted(&mut self) -> Result<&'a str, Declined> {
        if !is_space(self.at(self.pos)) {
            return Err(Declined);
        }
        self.skip_space();
        let quote = self.at(self.pos);
        if quote != b'"' && quote != b'\'' {
            return Err(Declined);
        }
        let start = self.pos + 1;
        let len = memchr::memchr(quote, &self.bytes()[start..]).ok_or(Declined)?;
        let id = &self.src[start..start + len];
        if id.bytes().any(|b| matches!(b, b'>' | b'\r' | b'\n')) {
            return Err(Declined);
        }
        self.pos = start + len + 1;
        Ok(id)
    }

    /// A second identifier after the public one, if one follows.
    fn quoted_if_any(&mut self) -> Result<Option<&'a str>, Declined> {
        let mut at = self.pos;
        while is_space(self.at(at)) {
            at += 1;
        }
        match self.at(at) {
            b'"' | b'\'' => self.quoted().map(Some),
            _ => Ok(None),
        }
    }
}

/// `name` interned: the names a chapter is mostly made of without a lookup in the table of
/// atoms (the atoms [`LocalName::from`] returns, made when compiling), the others looked up.
pub(super) fn local_name(name: &str) -> LocalName {
    match name {
        "html" => local_name!("html"),
        "head" => local_name!("head"),
        "body" => local_name!("body"),
        "title" => local_name!("title"),
        "meta" => local_name!("meta"),
        "link" => local_name!("link"),
        "p" => local_name!("p"),
        "div" => local_name!("div"),
        "span" => local_name!("span"),
        "section" => local_name!("section"),
        "article" => local_name!("article"),
        "a" => local_name!("a"),
        "em" => local_name!("em"),
        "i" => local_name!("i"),
        "b" => local_name!("b"),
        "strong" => local_name!("strong"),
        "h1" => local_name!("h1"),
        "h2" => local_name!("h2"),
        "h3" => local_name!("h3"),
        "h4" => local_name!("h4"),
        "h5" => local_name!("h5"),
        "h6" => local_name!("h6"),
        "br" => local_name!("br"),
        "img" => local_name!("img"),
        "li" => local_name!("li"),
        "ul" => local_name!("ul"),
        "ol" => local_name!("ol"),
        "sup" => local_name!("sup"),
        "sub" => local_name!("sub"),
        "blockquote" => local_name!("blockquote"),
        "hr" => local_name!("hr"),
        "pre" => local_name!("pre"),
        "code" => local_name!("code"),
        "small" => local_name!("small"),
        "nav" => local_name!("nav"),
        "aside" => local_name!("aside"),
        "figure" => local_name!("figure"),
        "figcaption" => local_name!("figcaption"),
        "table" => local_name!("table"),
        "tr" => local_name!("tr"),
        "td" => local_name!("td"),
        "th" => local_name!("th"),
        "id" => local_name!("id"),
        "class" => local_name!("class"),
        "href" => local_name!("href"),
        "lang" => local_name!("lang"),
        "src" => local_name!("src"),
        "alt" => local_name!("alt"),
        "type" => local_name!("type"),
        "rel" => local_name!("rel"),
        "charset" => local_name!("charset"),
        "content" => local_name!("content"),
        "name" => local_name!("name"),
        "style" => local_name!("style"),
        "role" => local_name!("role"),
        "xmlns" => local_name!("xmlns"),
        _ => LocalName::from(name),
    }
}

/// Text or an attribute value as HTML reads it: CRLF and CR as LF, and the references both
/// readings decode alike; `None` (declined) for a reference only one of them knows
/// (`&nbsp;`), one without its `;`, and numeric ones HTML remaps (0, 0x80–0x9F, surrogates).
pub(super) fn decode(raw: &str) -> Result<Cow<'_, str>, Declined> {
    let bytes = raw.as_bytes();
    let Some(first) = memchr::memchr2(b'&', b'\r', bytes) else {
        return Ok(Cow::Borrowed(raw));
    };
    let mut out = String::with_capacity(raw.len());
    out.push_str(&raw[..first]);
    let mut i = first;
    while i < bytes.len() {
        let next = memchr::memchr2(b'&', b'\r', &bytes[i..]).map_or(bytes.len(), |n| i + n);
        out.push_str(&raw[i..next]);
        i = next;
        match bytes.get(i) {
            Some(b'\r') => {
                out.push('\n');
                i += if bytes.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
            }
            Some(_) => {
                let len = memchr::memchr(b';', &bytes[i..]).filter(|&n| n <= 12);
                let len = len.ok_or(Declined)?;
                out.push(reference(&raw[i + 1..i + len])?);
                i += len + 1;
            }
            None => {}
        }
    }
    Ok(Cow::Owned(out))
}

/// The character `&name;` stands for, `name` given without `&` and `;`.
fn reference(name: &str) -> Result<char, Declined> {
    let number = match name.as_bytes() {
        [b'#', b'x' | b'X', hex @ ..]
            if !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit) =>
        {
            u32::from_str_radix(&name[2..], 16).map_err(|_| Declined)?
        }
        [b'#', dec @ ..] if !dec.is_empty() && dec.iter().all(u8::is_ascii_digit) => {
            name[1..].parse::<u32>().map_err(|_| Declined)?
        }
        _ => {
            return match name {
                "lt" => Ok('<'),
                "gt" => Ok('>'),
                "amp" => Ok('&'),
                "quot" => Ok('"'),
                "apos" => Ok('\''),
                _ => Err(Declined),
            };
        }
    };
    if number == 0 || (0x80..=0x9f).contains(&number) {
        return Err(Declined);
    }
    char::from_u32(number).ok_or(Declined)
}

/// Whether text is all HTML whitespace (what the tree builder ignores or moves between the
/// parts of a page).
pub(super) fn is_whitespace(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r'))
}

#[cfg(test)]
mod tests {

    #[test]
    fn common_names_are_the_atoms_a_lookup_gives() {
        let names = [
            "html",
            "head",
            "body",
            "title",
            "meta",
            "link",
            "p",
            "div",
            "span",
            "section",
            "article",
            "a",
            "em",
            "i",
            "b",
            "strong",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "br",
            "img",
            "li",
            "ul",
            "ol",
            "sup",
            "sub",
            "blockquote",
            "hr",
            "pre",
            "code",
            "small",
            "nav",
            "aside",
            "figure",
            "figcaption",
            "table",
            "tr",
            "td",
            "th",
            "id",
            "class",
            "href",
            "lang",
            "src",
            "alt",
            "type",
            "rel",
            "charset",
            "content",
            "name",
            "style",
            "role",
            "xmlns",
        ];
        for name in names
            .into_iter()
            .chain(["epub:type", "xml:lang", "x-made-up"])
        {
            let atom = local_name(name);
            assert_eq!(atom, LocalName::from(name), "{name}");
            assert_eq!(&*atom, name);
        }
    }
    use super::*;

    fn tokens(src: &str) -> Result<Vec<String>, Declined> {
        let mut reader = Reader::new(src);
        let mut out = Vec::new();
        while let Some(token) = reader.next_token()? {
            out.push(match token {
                Token::Start(s) => {
                    let attrs: Vec<String> = s
                        .attrs
                        .iter()
                        .map(|a| format!("{}={}", &*a.name.local, &*a.value))
                        .collect();
                    format!(
                        "<{} {}{}>",
                        s.name,
                        attrs.join(" "),
                        ["", "/"][s.self_closing as usize]
                    )
                }
                other => format!("{other:?}"),
            });
        }
        Ok(out)
    }

    #[test]
    fn tokens_come_out_as_html_reads_them() {
        let got =
            tokens("<p class='a\tb\r\nc' epub:type=\"x&amp;y\">t&#x4E00;&lt;</p><br/>").unwrap();
        assert_eq!(
            got,
            [
                "<p class=a\tb\nc epub:type=x&y>",
                "Text(\"t&#x4E00;&lt;\")",
                "End(\"p\")",
                "<br />"
            ]
        );
        assert_eq!(decode("a\r\nb\rc&#19968;&#x41;").unwrap(), "a\nb\nc一A");
        let doctype = tokens("<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.1//EN\" 'x.dtd'>");
        assert!(doctype.unwrap()[0].contains("public: Some(\"-//W3C//DTD XHTML 1.1//EN\")"));
    }

    #[test]
    fn what_html_reads_otherwise_is_declined() {
        for src in [
            "<P>",
            "<p CLASS=\"a\">",
            "<p class=a>",
            "<p a=\"1\" a=\"2\">",
            "<svg:svg>",
            "<p a=\"1\"b=\"2\">",
            "<!-->",
            "<!--->",
            "<!--a--b-->",
            "<!--a--->",
            "<![CDATA[x]]>",
            "<!DOCTYPE html [<!ENTITY x \"y\">]>",
            "<br / >",
            "</p x>",
            "< p>",
        ] {
            assert!(tokens(src).is_err(), "{src}");
        }
        for text in [
            "&nbsp;",
            "&amp",
            "&#0;",
            "&#x80;",
            "&#xD800;",
            "&#x110000;",
            "&;",
        ] {
            assert!(decode(text).is_err(), "{text}");
        }
    }
}
