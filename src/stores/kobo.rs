//! Kobo kepub: every sentence of every block in a `<span class="koboSpan" id="kobo.P.S">`
//! (Kobo's highlights, bookmarks and reading position hang on them), the body wrapped in
//! `div#book-columns > div#book-inner` (the target of Kobo's pagination styles).
//!
//! The rules are kepubify's (the converter Kobo users run, MIT), restated here, with CJK
//! sentence ends added: P counts blocks (`p`, lists, tables, headings) that hold text, and
//! images, which get a span of their own; S counts the sentences of the current block; text in
//! `pre`, `script`, `style`, `audio`, `video`, `svg` and `math` is left as it is, and
//! whitespace-only text is wrapped only directly inside a `p`. A Latin sentence ends after
//! `.`, `!` or `?` (a run of them), one optional closing quote or `…`, and the spaces after;
//! a CJK one right after `。！？…` (a run of them) and any closing `」』”’）`.
//!
//! Our documents are XHTML we wrote ourselves (well-formed, attributes quoted), so they are
//! rewritten by a scan of tags and text rather than parsed into a tree and printed again.

/// Starts the body's content, inside the `body` start tag.
const OPEN: &str = "<div id=\"book-columns\"><div id=\"book-inner\">";
/// Ends it, before `</body>`.
const CLOSE: &str = "</div></div>";

/// Elements whose text is left as it is.
const VERBATIM: [&str; 7] = ["pre", "script", "style", "audio", "video", "svg", "math"];
/// Elements that start a new P (once they hold a span).
const BLOCKS: [&str; 10] = ["p", "ol", "ul", "table", "h1", "h2", "h3", "h4", "h5", "h6"];

/// A content document with its spans and wrappers; None when it has no body or has spans
/// already.
pub(crate) fn spans(doc: &str) -> Option<String> {
    if doc.contains("class=\"koboSpan\"") {
        return None;
    }
    let body = doc.find("<body")?;
    let open_end = body + doc[body..].find('>')? + 1;
    let close = doc.rfind("</body>")?;
    if close < open_end {
        return None;
    }
    let mut out = String::with_capacity(doc.len() + doc.len() / 3);
    out.push_str(&doc[..open_end]);
    out.push_str(OPEN);
    Spanner::default().run(&doc[open_end..close], &mut out);
    out.push_str(CLOSE);
    out.push_str(&doc[close..]);
    Some(out)
}

/// The counters and the open elements while a body is scanned.
#[derive(Default)]
struct Spanner<'a> {
    para: usize,
    seg: usize,
    next_para: bool,
    /// Open elements (local names).
    open: Vec<&'a str>,
    /// How many of `open` are [`VERBATIM`].
    verbatim: usize,
}

impl<'a> Spanner<'a> {
    fn run(mut self, mut rest: &'a str, out: &mut String) {
        while !rest.is_empty() {
            let Some(lt) = rest.find('<') else {
                self.text(rest, out);
                return;
            };
            self.text(&rest[..lt], out);
            rest = &rest[lt..];
            if self.verbatim == 0
                && let Some(end) = ruby_end(rest)
            {
                self.whole(&rest[..end], out);
                rest = &rest[end..];
                continue;
            }
            let end = markup_end(rest);
            self.markup(&rest[..end], out);
            rest = &rest[end..];
        }
    }

    /// A tag, comment or processing instruction, copied through (an image inside a span).
    fn markup(&mut self, tag: &'a str, out: &mut String) {
        if tag.starts_with("<!") || tag.starts_with("<?") {
            out.push_str(tag);
            return;
        }
        if let Some(name) = tag.strip_prefix("</") {
            let name = local(name.trim_end_matches('>').trim());
            if let Some(at) = self.open.iter().rposition(|&n| n == name) {
                for n in self.open.drain(at..) {
                    self.verbatim -= usize::from(VERBATIM.contains(&n));
                }
            }
            out.push_str(tag);
            return;
        }
        let name = local(tag_name(tag));
        let empty = tag.ends_with("/>");
        if name == "img" && self.verbatim == 0 {
            self.para += 1;
            self.seg = 1;
            self.next_para = false;
            self.open_span(out);
            out.push_str(tag);
            out.push_str("</span>");
            return;
        }
        if self.verbatim == 0 && BLOCKS.contains(&name) {
            self.next_para = true;
        }
        out.push_str(tag);
        if !empty {
            self.verbatim += usize::from(VERBATIM.contains(&name));
            self.open.push(name);
        }
    }

    /// Text: each sentence in a span of its own.
    fn text(&mut self, text: &str, out: &mut String) {
        if text.is_empty() {
            return;
        }
        if self.verbatim > 0 {
            out.push_str(text);
            return;
        }
        let in_p = self.open.last() == Some(&"p");
        for sentence in sentences(text) {
            if !in_p && sentence.trim().is_empty() {
                out.push_str(sentence);
                continue;
            }
            if self.next_para {
                self.para += 1;
                self.seg = 0;
                self.next_para = false;
            }
            self.seg += 1;
            self.open_span(out);
            out.push_str(sentence);
            out.push_str("</span>");
        }
    }

    /// A `<ruby>` element, base and readings together, in one span of its own: a span
    /// inside it would part a base from its reading.
    fn whole(&mut self, element: &str, out: &mut String) {
        if self.next_para {
            self.para += 1;
            self.seg = 0;
            self.next_para = false;
        }
        self.seg += 1;
        self.open_span(out);
        out.push_str(element);
        out.push_str("</span>");
    }

    fn open_span(&self, out: &mut String) {
        use std::fmt::Write as _;
        let _ = write!(
            out,
            "<span class=\"koboSpan\" id=\"kobo.{}.{}\">",
            self.para, self.seg
        );
    }
}

/// When `s` starts with a `<ruby>` start tag, the length of the whole element up to its
/// matching `</ruby>` (rubies nested inside counted); None otherwise, or when it is not closed.
fn ruby_end(s: &str) -> Option<usize> {
    let is_ruby = |tag: &str| local(tag_name(tag)) == "ruby" && !tag.ends_with("/>");
    if !is_ruby(&s[..markup_end(s)]) {
        return None;
    }
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(lt) = s[at..].find('<') {
        let start = at + lt;
        let end = start + markup_end(&s[start..]);
        let tag = &s[start..end];
        if let Some(name) = tag.strip_prefix("</") {
            if local(name.trim_end_matches('>').trim()) == "ruby" {
                depth -= 1;
                if depth == 0 {
                    return Some(end);
                }
            }
        } else if is_ruby(tag) {
            depth += 1;
        }
        at = end;
    }
    None
}

/// The length of the markup at the start of `s` (which starts with `<`): up to its `>`
/// outside quotes, or the end of a comment.
fn markup_end(s: &str) -> usize {
    if s.starts_with("<!--") {
        return s.find("-->").map_or(s.len(), |i| i + 3);
    }
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return i + 1,
            _ => {}
        }
    }
    s.len()
}

/// The name of a start tag (`<p class="x">` -> `p`).
fn tag_name(tag: &str) -> &str {
    let s = &tag[1..];
    let end = s
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(s.len());
    &s[..end]
}

/// A name without its prefix (`svg:svg` -> `svg`).
fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// What a character is to the sentence splitter.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    /// Ends a Latin sentence when spaces follow: `.`, `!`, `?`.
    Stop,
    /// Ends a CJK sentence where it stands: `。！？…` (and their runs).
    CjkStop,
    /// May follow a stop and stays with its sentence: a closing quote or bracket.
    Close,
    Space,
    Other,
}

fn class(c: char) -> Class {
    match c {
        '.' | '!' | '?' => Class::Stop,
        '。' | '！' | '？' | '…' | '｡' => Class::CjkStop,
        '\'' | '"' | '”' | '’' | '“' | '」' | '』' | '）' | '〉' | '》' | '】' => {
            Class::Close
        }
        ' ' | '\t' | '\n' | '\r' | '\u{c}' => Class::Space,
        _ => Class::Other,
    }
}

/// Whether `c` is a CJK ideograph, kana, or CJK punctuation (whose sentences need no spaces).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF
        | 0x20000..=0x3FFFF)
}

/// `text` cut into sentences (which together are `text`): a Latin sentence after its stop,
/// one closing quote and the spaces after them; a CJK one after its stops and closing quotes
/// (and any spaces). Text without a stop is one sentence.
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    let mut previous = ' ';
    while let Some((_, c)) = chars.next() {
        let before = std::mem::replace(&mut previous, c);
        let cjk = match class(c) {
            Class::Stop => false,
            // An ellipsis ends a CJK sentence; in Latin text it is kepubify's closing mark.
            Class::CjkStop if c != '…' || is_cjk(before) => true,
            _ => continue,
        };
        // The rest of the run of stops, then closing quotes (one for Latin, any for CJK).
        while let Some(&(_, n)) = chars.peek() {
            match class(n) {
                Class::Stop | Class::CjkStop => {}
                _ => break,
            }
            chars.next();
        }
        let mut closes = 0;
        while let Some(&(_, n)) = chars.peek() {
            if class(n) != Class::Close || (!cjk && closes == 1) {
                break;
            }
            closes += 1;
            chars.next();
        }
        let mut spaced = false;
        while let Some(&(_, n)) = chars.peek() {
            if class(n) != Class::Space {
                break;
            }
            spaced = true;
            chars.next();
        }
        let end = chars.peek().map_or(text.len(), |&(i, _)| i);
        previous = text[..end].chars().next_back().unwrap_or(' ');
        if (cjk || spaced) && end < text.len() {
            out.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() || out.is_empty() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_sentences_end_after_their_spaces() {
        assert_eq!(
            sentences("It is a truth. Universally \u{201c}acknowledged!\u{201d} Yes?! No"),
            vec![
                "It is a truth. ",
                "Universally \u{201c}acknowledged!\u{201d} ",
                "Yes?! ",
                "No"
            ]
        );
        // No space after the stop: not an end (abbreviations in words, decimals).
        assert_eq!(sentences("e.g. 3.14 is pi."), vec!["e.g. ", "3.14 is pi."]);
        assert_eq!(sentences("   "), vec!["   "]);
        // As kepubify: an ellipsis in Latin text is a closing mark, not an end.
        assert_eq!(
            sentences("Wait\u{2026} what? Yes."),
            vec!["Wait\u{2026} what? ", "Yes."]
        );
        assert_eq!(
            sentences("consequat?\u{2026} Duis"),
            vec!["consequat?\u{2026} ", "Duis"]
        );
    }

    #[test]
    fn cjk_sentences_end_after_their_closing_quotes() {
        assert_eq!(
            sentences("玄德曰：「汝何人也？」张飞曰：「吾乃燕人。」话说天下大势……分久必合"),
            vec![
                "玄德曰：「汝何人也？」",
                "张飞曰：「吾乃燕人。」",
                "话说天下大势……",
                "分久必合"
            ]
        );
        assert_eq!(sentences("好。”他说"), vec!["好。”", "他说"]);
    }

    #[test]
    fn every_text_of_a_paragraph_is_in_a_span_and_ids_count_blocks() {
        let doc = "<html><head><title>t</title></head><body class=\"c\">\n<h1>One</h1>\n\
                   <p>A b. C <em>d.</em> E</p>\n<pre>x. y</pre>\n<p><img src=\"i.png\" alt=\"\"/></p>\n\
                   <ul>\n<li>F. G</li>\n</ul>\n</body></html>";
        let out = spans(doc).unwrap();
        assert!(out.contains("<body class=\"c\"><div id=\"book-columns\"><div id=\"book-inner\">"));
        assert!(out.ends_with("</div></div></body></html>"));
        for want in [
            "<h1><span class=\"koboSpan\" id=\"kobo.1.1\">One</span></h1>",
            "<p><span class=\"koboSpan\" id=\"kobo.2.1\">A b. </span>\
             <span class=\"koboSpan\" id=\"kobo.2.2\">C </span>\
             <em><span class=\"koboSpan\" id=\"kobo.2.3\">d.</span></em>\
             <span class=\"koboSpan\" id=\"kobo.2.4\"> E</span></p>",
            "<pre>x. y</pre>",
            "<p><span class=\"koboSpan\" id=\"kobo.3.1\"><img src=\"i.png\" alt=\"\"/></span></p>",
            "<li><span class=\"koboSpan\" id=\"kobo.4.1\">F. </span>",
        ] {
            assert!(out.contains(want), "{want}\n{out}");
        }
        // Whitespace between blocks is left alone.
        assert!(out.contains("</h1>\n<p>"), "{out}");
        assert_eq!(spans(&out), None, "spans are added once");
    }

    /// A ruby element stays whole, in one span: no span between a base and its reading.
    #[test]
    fn a_ruby_is_never_split() {
        let doc = "<html><body><p>彼は<ruby>漢字<rt>かんじ</rt></ruby>を読んだ。次。<ruby><rb>東京</rb><rp>（</rp><rt>とうきょう</rt><rp>）</rp></ruby></p></body></html>";
        let out = spans(doc).unwrap();
        assert!(
            out.contains(
                "<span class=\"koboSpan\" id=\"kobo.1.2\"><ruby>漢字<rt>かんじ</rt></ruby></span>"
            ),
            "{out}"
        );
        assert!(
            out.contains("<span class=\"koboSpan\" id=\"kobo.1.5\"><ruby><rb>東京</rb><rp>（</rp><rt>とうきょう</rt><rp>）</rp></ruby></span>"),
            "{out}"
        );
        assert!(out.contains("id=\"kobo.1.3\">を読んだ。</span>"), "{out}");
        let ruby = &out[out.find("<ruby>").unwrap()..out.find("</ruby>").unwrap()];
        assert!(!ruby.contains("koboSpan"), "{ruby}");
    }

    #[test]
    fn svg_and_math_text_and_comments_are_left_alone() {
        let doc = "<html><body><p>a<svg:svg><svg:text>b. c</svg:text></svg:svg><!-- d. e --></p></body></html>";
        let out = spans(doc).unwrap();
        assert!(out.contains("<svg:text>b. c</svg:text>"), "{out}");
        assert!(out.contains("<!-- d. e -->"), "{out}");
    }
}
