//! pandoc Markdown through the whole Markdown conversion: what comes out of each construct.

use crate::convert::markup::Fragment;
use crate::convert::markup::markdown_to_xhtml;
use crate::convert::markup::test_support::*;

fn convert(src: &str) -> Fragment {
    let f = markdown_to_xhtml(src, &mut Recorder::default()).expect("converts");
    assert_well_formed(&f);
    f
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn definition_lists_with_blank_lines_indented_paragraphs_and_tildes_become_dl() {
    let src =
        "# T\n\nTerm 1\n\n:   Definition 1\n\n    More of it.\n\nTerm 2\n  ~ Tilde definition\n";
    let f = convert(src);
    assert_eq!(count(&f.body, "<dt>"), 2, "{}", f.body);
    assert_eq!(count(&f.body, "<dd>"), 2, "{}", f.body);
    assert!(!f.body.contains("<pre>"), "{}", f.body);
    assert!(!body_text(&f).contains(":   "), "{}", f.body);
}

#[test]
fn fenced_divs_keep_their_ids_and_classes_and_markdown_inside() {
    let src = "# T\n\n::: {#warn .note}\nInside *md*\n\n:::: Inner\nDeeper\n::::\n:::\n\n::: open\nNever closed\n";
    let f = convert(src);
    assert!(
        f.body.contains("<div id=\"warn\" class=\"note\">"),
        "{}",
        f.body
    );
    assert!(f.body.contains("<div class=\"Inner\">"), "{}", f.body);
    assert!(f.body.contains("<em>md</em>"), "{}", f.body);
    assert!(!body_text(&f).contains(":::"), "{}", f.body);
}

#[test]
fn bracketed_spans_keep_ids_and_classes_and_anchors() {
    let f = convert("# T\n\nA [small *caps*]{#s .smallcaps} and []{#here} an anchor.\n");
    assert!(
        f.body
            .contains("<span id=\"s\" class=\"smallcaps\">small <em>caps</em></span>")
    );
    assert!(f.body.contains("id=\"here\""), "{}", f.body);
    assert!(!body_text(&f).contains("]{"), "{}", f.body);
}

#[test]
fn inline_notes_become_footnotes_numbered_with_the_others() {
    let src = "# T\n\nFirst.[^a] Then inline.^[An *inline*\nnote, [with] brackets.] End.\n\n[^a]: Defined.\n";
    let f = convert(src);
    assert_eq!(count(&f.body, "epub:type=\"noteref\""), 2, "{}", f.body);
    assert_eq!(count(&f.body, "<aside"), 2, "{}", f.body);
    let text = body_text(&f);
    assert!(text.contains("An inline note, [with] brackets."), "{text}");
    assert!(!text.contains("^["), "{text}");
    let first = f.body.find("Defined.").unwrap();
    assert!(first < f.body.find("An <em>inline</em>").unwrap());
}

#[test]
fn simple_multiline_and_grid_tables_become_tables() {
    let src = "# T\n\n  Right     Left\n-------     ------\n     12     *a*\n\nTable: Simple.\n\n\
-------------------\n Name   Note\n------ ------------\n one    two\n        lines\n\n three  four\n-------------------\n\n\
+-----+---------+\n| a   | b       |\n+=====+=========+\n| *x* | - l     |\n|     | - m     |\n+-----+---------+\n";
    let f = convert(src);
    assert_eq!(count(&f.body, "<table"), 3, "{}", f.body);
    assert!(
        f.body.contains("<th style=\"text-align: right\">"),
        "{}",
        f.body
    );
    assert!(f.body.contains("<caption>"), "{}", f.body);
    assert!(f.body.contains("<li>m</li>"), "{}", f.body);
    let text = body_text(&f);
    for raw in ["+---", "+===", "------", "| a"] {
        assert!(!text.contains(raw), "{raw} in {text}");
    }
    assert!(text.contains("two\nlines"), "{text}");
}

#[test]
fn code_keeps_pandoc_syntax_as_written() {
    let src = "# T\n\nSee `^[x]` here.\n\n    (@) An example, as code.\n\n```\n::: {.x}\n[a]{#b}\n```\n\n    +---+---+\n    | a | b |\n    +---+---+\n";
    let f = convert(src);
    assert!(f.body.contains("<code>^[x]</code>"), "{}", f.body);
    assert!(f.body.contains("::: {.x}\n[a]{#b}"), "{}", f.body);
    assert!(f.body.contains("| a | b |"), "{}", f.body);
    assert!(!f.body.contains("<table"), "{}", f.body);
}

#[test]
fn unsupported_constructs_are_counted_once_per_kind() {
    let src = "# T\n\nSee [@doe99] and [@roe01, p. 3].\n\n```{=latex}\n\\newpage\n```\n\n```{=html}\n<hr class=\"x\"/>\n```\n\n(@) An example.\n";
    let f = convert(src);
    let notes: Vec<&str> = f.unsupported.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(
        notes.iter().any(|n| n.contains("2 × citations")),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n.contains("{=latex}")), "{notes:?}");
    assert!(!body_text(&f).contains("newpage"), "{}", f.body);
    assert!(f.body.contains("<hr class=\"x\"/>"), "{}", f.body);
}

#[test]
fn attributes_on_headings_pictures_and_links_never_show() {
    let src = "# T\n\n## Options {#opts .wide}\n\n## Notes {-}\n\n![p](a.png){width=50%} [l](#opts){.x}\n";
    let f = convert(src);
    assert!(
        f.body.contains("<h2 id=\"opts\" class=\"wide\">"),
        "{}",
        f.body
    );
    assert!(!body_text(&f).contains('{'), "{}", f.body);
}

#[test]
fn the_first_line_of_an_indented_code_block_is_code_too() {
    let f = convert("# T\n\nSo:\n\n    (@) first\n    ^[x] and [a]{#b}\n");
    assert!(f.unsupported.is_empty(), "{:?}", f.unsupported);
    assert!(f.body.contains("(@) first\n^[x] and [a]{#b}"), "{}", f.body);
}

#[test]
fn a_div_inside_a_definition_stays_in_it() {
    // pandoc's manual: the list of input formats is a div inside an option's definition.
    let src = "# T\n\n`-f` *FORMAT*\n\n:   Specify input format:\n\n    ::: {#input-formats}\n    - `asciidoc`\n    - `xml`\n    :::\n\n    Extensions can be enabled.\n\nAfter.\n";
    let f = convert(src);
    assert!(!body_text(&f).contains(":::"), "{}", f.body);
    let dd = f.body.find("<dd>").unwrap();
    let div = f.body.find("<div id=\"input-formats\">").expect(&f.body);
    let end = f.body.find("</dd>").unwrap();
    assert!(dd < div && div < end, "{}", f.body);
    assert!(
        f.body[..end].contains("Extensions can be enabled."),
        "{}",
        f.body
    );
}

#[test]
fn a_lone_colon_after_a_paragraph_is_text_not_an_empty_definition() {
    // Norvig's PAIP: a sentence, then a line holding only its colon, then code.
    let f = convert("# T\n\nall we have to do is redefine the list\n:\n\n```lisp\n(x)\n```\n");
    assert!(!f.body.contains("<dl>"), "{}", f.body);
    assert!(body_text(&f).contains("list\n:"), "{}", f.body);
}
