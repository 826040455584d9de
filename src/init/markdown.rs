//! `init BOOK.epub --markdown`: an unpacked chapter rewritten as Markdown, where that is
//! faithful.
//!
//! [`to_markdown`] writes the plain prose an EPUB chapter mostly is (headings, paragraphs,
//! quotations, lists, rules, code blocks, emphasis, links, pictures, line breaks) and gives up
//! on anything else (a table, a figure, a note, inline SVG or MathML, a `style`, an id on
//! something that is not a heading). What it writes is then checked by the build's own
//! conversions ([`faithful`]): the Markdown and the XHTML must give the same title, the same
//! text, the same links, pictures and ids. A chapter that fails either stays XHTML.

use std::collections::BTreeMap;

use scraper::{ElementRef, Html, Node};

/// A line break, until the paragraph's spaces are collapsed (it is no whitespace).
const BREAK: char = '\u{1}';

/// Why a chapter stays XHTML.
pub(super) type Refusal = String;

/// The chapter's body as Markdown; hrefs to other chapters go through `link`.
pub(super) fn to_markdown(xhtml: &str, link: &dyn Fn(&str) -> String) -> Result<String, Refusal> {
    let html = Html::parse_document(xhtml);
    let body = html
        .root_element()
        .children()
        .filter_map(ElementRef::wrap)
        .find(|e| e.value().name() == "body")
        .ok_or("no body")?;
    let mut out = String::new();
    blocks(body, &mut out, link)?;
    Ok(out.trim_end().to_string() + "\n")
}

const TRANSPARENT: [&str; 8] = [
    "div", "section", "article", "main", "header", "footer", "body", "span",
];

/// Whether the element's attributes say nothing Markdown loses (a class, a language, a type
/// for the chapter's section are looks and hints; an id is kept on headings only).
fn plain_attributes(e: ElementRef<'_>, allowed: &[&str]) -> Result<(), Refusal> {
    for (name, _) in e.value().attrs() {
        let ok = matches!(name, "class" | "lang" | "xml:lang" | "dir")
            || name.ends_with(":type")
            || name == "role"
            || allowed.contains(&name);
        if !ok {
            return Err(format!("<{} {name}>", e.value().name()));
        }
    }
    Ok(())
}

fn blocks(
    parent: ElementRef<'_>,
    out: &mut String,
    link: &dyn Fn(&str) -> String,
) -> Result<(), Refusal> {
    let mut run = String::new();
    for child in parent.children() {
        match child.value() {
            Node::Text(t) => run.push_str(&escape(t)),
            Node::Element(_) => {
                let e = ElementRef::wrap(child).ok_or("element")?;
                let name = e.value().name();
                if is_inline(name) {
                    inline(e, &mut run, link)?;
                    continue;
                }
                flush(&mut run, out);
                block(e, out, link)?;
            }
            _ => {}
        }
    }
    flush(&mut run, out);
    Ok(())
}

fn flush(run: &mut String, out: &mut String) {
    let text = run.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = text.replace(&format!(" {BREAK}"), &BREAK.to_string());
    let text = text.replace(&format!("{BREAK} "), &BREAK.to_string());
    let text = text.trim_matches(BREAK).replace(BREAK, "\\\n");
    if !text.is_empty() {
        out.push_str(&line_start_safe(&text));
        out.push_str("\n\n");
    }
    run.clear();
}

fn is_inline(name: &str) -> bool {
    matches!(
        name,
        "em" | "i" | "strong" | "b" | "a" | "img" | "br" | "code" | "span"
    )
}

fn block(
    e: ElementRef<'_>,
    out: &mut String,
    link: &dyn Fn(&str) -> String,
) -> Result<(), Refusal> {
    let name = e.value().name();
    match name {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
            plain_attributes(e, &["id"])?;
            let mut text = String::new();
            inline_children(e, &mut text, link)?;
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let level = usize::from(name.as_bytes()[1] - b'0');
            out.push_str(&"#".repeat(level));
            out.push(' ');
            out.push_str(&text);
            let inherited = e
                .parent()
                .and_then(ElementRef::wrap)
                .filter(|p| first_heading(*p) == Some(e))
                .and_then(|p| p.value().attr("id"));
            if let Some(id) = e.value().attr("id").or(inherited) {
                if !id
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
                {
                    return Err(format!("the id \"{id}\""));
                }
                out.push_str(&format!(" {{#{id}}}"));
            }
            out.push_str("\n\n");
        }
        "p" => {
            plain_attributes(e, &[])?;
            let mut text = String::new();
            inline_children(e, &mut text, link)?;
            let mut run = text;
            flush(&mut run, out);
        }
        "blockquote" => {
            plain_attributes(e, &[])?;
            let mut inner = String::new();
            blocks(e, &mut inner, link)?;
            for line in inner.trim_end().lines() {
                out.push_str(if line.is_empty() { ">" } else { "> " });
                out.push_str(line);
                out.push('\n');
            }
            out.push('\n');
        }
        "ul" | "ol" => list(e, out, link)?,
        "hr" => {
            plain_attributes(e, &[])?;
            out.push_str("* * *\n\n");
        }
        "pre" => {
            plain_attributes(e, &[])?;
            let code: String = e.text().collect();
            if code.contains("```")
                || e.descendants().any(|d| {
                    d.value()
                        .as_element()
                        .is_some_and(|x| !matches!(x.name(), "pre" | "code"))
                })
            {
                return Err("a code block with markup".into());
            }
            out.push_str("```\n");
            out.push_str(code.trim_end_matches('\n'));
            out.push_str("\n```\n\n");
        }
        n if TRANSPARENT.contains(&n) => {
            let id_to_heading = first_heading(e).is_some_and(|h| h.value().attr("id").is_none());
            plain_attributes(e, if id_to_heading { &["id"] } else { &[] })?;
            blocks(e, out, link)?;
        }
        other => return Err(format!("<{other}>")),
    }
    Ok(())
}

/// The first element inside `e`, when it is a heading.
fn first_heading(e: ElementRef<'_>) -> Option<ElementRef<'_>> {
    e.children()
        .filter_map(ElementRef::wrap)
        .next()
        .filter(|h| matches!(h.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
}

fn list(e: ElementRef<'_>, out: &mut String, link: &dyn Fn(&str) -> String) -> Result<(), Refusal> {
    plain_attributes(e, &[])?;
    let ordered = e.value().name() == "ol";
    let mut n = 0;
    for child in e.children() {
        match child.value() {
            Node::Text(t) if t.trim().is_empty() => {}
            Node::Element(_) => {
                let li = ElementRef::wrap(child).ok_or("element")?;
                if li.value().name() != "li" {
                    return Err("a list holding more than items".into());
                }
                plain_attributes(li, &[])?;
                n += 1;
                let marker = if ordered {
                    format!("{n}. ")
                } else {
                    "- ".to_string()
                };
                let mut inner = String::new();
                blocks(li, &mut inner, link)?;
                let pad = " ".repeat(marker.len());
                for (i, line) in inner.trim_end().lines().enumerate() {
                    match (i, line.is_empty()) {
                        (0, _) => out.push_str(&marker),
                        (_, true) => {}
                        _ => out.push_str(&pad),
                    }
                    out.push_str(line);
                    out.push('\n');
                }
            }
            _ => return Err("text between list items".into()),
        }
    }
    out.push('\n');
    Ok(())
}

fn inline_children(
    e: ElementRef<'_>,
    out: &mut String,
    link: &dyn Fn(&str) -> String,
) -> Result<(), Refusal> {
    for child in e.children() {
        match child.value() {
            Node::Text(t) => out.push_str(&escape(t)),
            Node::Element(_) => {
                let c = ElementRef::wrap(child).ok_or("element")?;
                if !is_inline(c.value().name()) {
                    return Err(format!("<{}> inside a line", c.value().name()));
                }
                inline(c, out, link)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn inline(
    e: ElementRef<'_>,
    out: &mut String,
    link: &dyn Fn(&str) -> String,
) -> Result<(), Refusal> {
    let name = e.value().name();
    match name {
        "em" | "i" | "strong" | "b" => {
            plain_attributes(e, &[])?;
            let mut inner = String::new();
            inline_children(e, &mut inner, link)?;
            let mark = if matches!(name, "em" | "i") {
                "*"
            } else {
                "**"
            };
            wrap(out, &inner, mark);
        }
        "code" => {
            plain_attributes(e, &[])?;
            let text: String = e.text().collect();
            if text.contains('`')
                || e.children().any(|c| c.value().is_element())
                || text.trim().is_empty()
            {
                return Err("inline code with markup or backticks".into());
            }
            out.push('`');
            out.push_str(&text);
            out.push('`');
        }
        "a" => {
            plain_attributes(e, &["href"])?;
            let mut inner = String::new();
            inline_children(e, &mut inner, link)?;
            match e.value().attr("href") {
                Some(href) if !href.contains([' ', '(', ')', '<', '>']) => {
                    out.push('[');
                    out.push_str(inner.trim());
                    out.push_str("](");
                    out.push_str(&link(href));
                    out.push(')');
                }
                Some(_) => return Err("a link Markdown cannot write".into()),
                None => out.push_str(&inner),
            }
        }
        "img" => {
            plain_attributes(e, &["src", "alt"])?;
            let src = e.value().attr("src").ok_or("a picture without src")?;
            if src.contains([' ', '(', ')', '<', '>']) {
                return Err("a picture Markdown cannot write".into());
            }
            let alt = e.value().attr("alt").unwrap_or("");
            out.push_str(&format!("![{}]({src})", escape(alt)));
        }
        "br" => out.push(BREAK),
        "span" => {
            plain_attributes(e, &[])?;
            inline_children(e, out, link)?;
        }
        other => return Err(format!("<{other}>")),
    }
    Ok(())
}

/// `inner` between `mark`s, its outer spaces kept outside them (so the marks flank words).
fn wrap(out: &mut String, inner: &str, mark: &str) {
    let trimmed = inner.trim();
    if trimmed.is_empty() {
        out.push_str(inner);
        return;
    }
    if inner.starts_with(char::is_whitespace) {
        out.push(' ');
    }
    out.push_str(mark);
    out.push_str(trimmed);
    out.push_str(mark);
    if inner.ends_with(char::is_whitespace) {
        out.push(' ');
    }
}

/// Text with every character Markdown (with our extensions: math, strikethrough, tables,
/// attributes, footnotes) could read as markup escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '['
                | ']'
                | '<'
                | '>'
                | '#'
                | '$'
                | '~'
                | '|'
                | '{'
                | '}'
                | '^'
                | '&'
                | '!'
                | '='
        ) {
            out.push('\\');
        }
        out.push(if c == '\u{a0}' { '\u{a0}' } else { c });
    }
    out
}

/// A paragraph's first characters escaped where they would open a list or a heading.
fn line_start_safe(text: &str) -> String {
    let digits = text.chars().take_while(char::is_ascii_digit).count();
    let after = text[digits..].chars().next();
    if digits > 0 && matches!(after, Some('.' | ')')) {
        return format!("{}\\{}", &text[..digits], &text[digits..]);
    }
    match text.chars().next() {
        Some('-' | '+' | ':') => format!("\\{text}"),
        _ => text.to_string(),
    }
}

/// What the build makes of a chapter, reduced to what must not change: title, text (without
/// whitespace), link targets, pictures, ids.
fn essence(c: &crate::convert::Converted) -> (Option<String>, String, BTreeMap<String, usize>) {
    let frag = Html::parse_fragment(&c.body);
    let text: String = frag
        .root_element()
        .text()
        .flat_map(str::chars)
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut marks = BTreeMap::new();
    for e in frag
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
    {
        for (key, value) in e.value().attrs() {
            if matches!(key, "href" | "src" | "alt") {
                *marks.entry(format!("[{key}={value}]")).or_default() += 1;
            }
        }
        let name = e.value().name();
        if name.starts_with('h') && name.len() == 2
            || matches!(
                name,
                "em" | "strong" | "i" | "b" | "li" | "blockquote" | "pre" | "code" | "hr"
            )
        {
            let name = match name {
                "i" => "em",
                "b" => "strong",
                n => n,
            };
            *marks.entry(name.to_string()).or_default() += 1;
        }
    }
    for id in c.ids.keys() {
        marks.insert(format!("[id={id}]"), 1);
    }
    (c.title.clone(), text, marks)
}

/// Whether the build makes the same chapter of `md` as of `xhtml`; the difference when not.
pub(super) fn faithful(xhtml: &str, md: &str) -> Result<(), Refusal> {
    // Every picture keeps its href: both conversions read the same one.
    let mut images =
        |src: &str| -> Result<String, std::convert::Infallible> { Ok(src.to_string()) };
    let from_html =
        crate::convert::convert_html(xhtml, &mut images, None, None).map_err(|e| e.to_string())?;
    let opts = crate::convert::markup::MarkdownOptions {
        highlight: false,
        ..Default::default()
    };
    let from_md = crate::convert::convert_markdown(md, &mut images, opts, None, None)
        .map_err(|e| e.to_string())?;
    let (a, b) = (essence(&from_html), essence(&from_md));
    if a.0 != b.0 {
        return Err(format!("the title would read {:?}, not {:?}", b.0, a.0));
    }
    if a.1 != b.1 {
        let at =
            a.1.chars()
                .zip(b.1.chars())
                .take_while(|(x, y)| x == y)
                .count();
        let near = |t: &str| {
            t.chars()
                .skip(at.saturating_sub(8))
                .take(24)
                .collect::<String>()
        };
        return Err(format!(
            "the text would differ: \"{}\" for \"{}\"",
            near(&b.1),
            near(&a.1)
        ));
    }
    if a.2 != b.2 {
        let diff: Vec<&String> =
            a.2.keys()
                .chain(b.2.keys())
                .filter(|k| a.2.get(*k) != b.2.get(*k))
                .take(3)
                .collect();
        return Err(format!("its markup would differ ({diff:?})"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROSE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head>
<body><section class="level1" id="sec">
<h1>Chapter <em>One</em></h1>
<p class="calibre1">It was *not* a [dark] night; 1. she said &amp; left.</p>
<p>2. A line<br/>broken, <a href="two.xhtml#x">a link</a> and <img src="../images/a.png" alt="a picture"/>.</p>
<blockquote><p>Quoted.</p></blockquote>
<ul><li>one</li><li><p>two</p></li></ul>
<h2 id="s-2">Section</h2>
<pre><code>let x = 1 * 2;</code></pre>
</section></body></html>"#;

    #[test]
    fn plain_prose_becomes_markdown_the_build_reads_back_the_same() {
        let md = to_markdown(PROSE, &|h| h.replace(".xhtml", ".md")).expect("plain prose");
        assert!(md.contains("# Chapter *One* {#sec}"), "{md}");
        assert!(md.contains("\\*not\\*"), "{md}");
        assert!(md.contains("[a link](two.md#x)"), "{md}");
        let same = to_markdown(PROSE, &|h| h.to_string()).expect("plain prose");
        faithful(PROSE, &same).expect("the same chapter either way");
    }

    #[test]
    fn a_table_or_a_styled_paragraph_stays_xhtml() {
        let table = PROSE.replace(
            "<blockquote>",
            "<table><tr><td>x</td></tr></table><blockquote>",
        );
        assert!(to_markdown(&table, &|h| h.to_string()).is_err());
        let styled = PROSE.replace("<p>2.", "<p style=\"color:red\">2.");
        assert!(to_markdown(&styled, &|h| h.to_string()).is_err());
    }

    #[test]
    fn markdown_that_reads_differently_is_caught() {
        let md = to_markdown(PROSE, &|h| h.to_string()).expect("plain prose");
        let changed = md.replace("Quoted.", "Quoted!");
        assert!(faithful(PROSE, &changed).is_err());
        let unescaped = md.replace("\\*not\\*", "*not*");
        assert!(faithful(PROSE, &unescaped).is_err());
    }
}
