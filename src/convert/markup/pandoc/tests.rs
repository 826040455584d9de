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

#[test]
fn line_blocks_keep_each_line_and_its_indentation() {
    let src = "# T\n\n| The limerick packs laughs *anatomical*\n|    Into space that is quite economical.\n| 200 Main St.\n|\n| - not a list\n  continued here\n\nAfter.\n";
    let f = convert(src);
    assert!(f.body.contains("<div class=\"line-block\">"), "{}", f.body);
    assert_eq!(count(&f.body, "<br/>"), 4, "{}", f.body);
    assert!(!f.body.contains("<ul>"), "{}", f.body);
    let text = body_text(&f);
    assert!(!text.contains("| "), "{text}");
    assert!(text.contains("\u{A0}\u{A0}\u{A0}Into space"), "{text}");
    assert!(text.contains("- not a list continued here"), "{text}");
    // A row short of its delimiter row is text to GFM, not a line block.
    let f = convert("# T\n\n| Not enough table | to be a table |\n");
    assert!(!f.body.contains("line-block"), "{}", f.body);
    // A pipe table is not a line block.
    let f = convert("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
    assert_eq!(count(&f.body, "<table"), 1, "{}", f.body);
}

#[test]
fn a_caption_written_above_its_table_is_its_caption() {
    let src = "# T\n\nTable: Prices, *above*.\n\n  Fruit   Price\n-------  ------\n  Apple     1\n\n## Next\n\n: Colon caption.\n\n+----+----+\n| a  | b  |\n+----+----+\n";
    let f = convert(src);
    assert_eq!(count(&f.body, "<table"), 2, "{}", f.body);
    assert_eq!(count(&f.body, "<caption>"), 2, "{}", f.body);
    let caption = f.body.find("<caption>").unwrap();
    let end = f.body.find("</caption>").unwrap();
    assert!(
        f.body[caption..end].contains("Prices, <em>above</em>."),
        "{}",
        f.body
    );
    let text = body_text(&f);
    assert!(
        !text.contains("Table:") && !text.contains(": Colon"),
        "{text}"
    );
}

#[test]
fn superscripts_and_subscripts_as_pandoc_reads_them() {
    let src = "# T\n\nH~2~O is 2^10^ and P~a\\ cat~, ~~struck~~, ~gfm~, [^n] 2^3 and 4^5.\n\n[^n]: A note.\n";
    let f = convert(src);
    assert!(f.body.contains("H<sub>2</sub>O"), "{}", f.body);
    assert!(f.body.contains("2<sup>10</sup>"), "{}", f.body);
    assert!(f.body.contains("P<sub>a\u{A0}cat</sub>"), "{}", f.body);
    assert!(f.body.contains("<del>struck</del>"), "{}", f.body);
    // GFM's single-tilde strikethrough, on a word of its own.
    assert!(f.body.contains("<del>gfm</del>"), "{}", f.body);
    assert!(body_text(&f).contains("2^3 and 4^5."), "{}", f.body);
    assert_eq!(count(&f.body, "epub:type=\"noteref\""), 1, "{}", f.body);
}

#[test]
fn grid_tables_with_row_and_column_spans_keep_every_word() {
    let src = "# T\n\n+------+------+------+\n| Head | Two  | Three|\n+======+======+======+\n| spans two   | x    |\n+------+------+------+\n| tall | y    | z    |\n+      +------+------+\n|      | w    | v    |\n+------+------+------+\n";
    let f = convert(src);
    assert_eq!(count(&f.body, "<table"), 1, "{}", f.body);
    assert!(f.body.contains("colspan=\"2\""), "{}", f.body);
    let text = body_text(&f);
    for word in ["Head", "spans two", "tall", "w", "v", "z"] {
        assert!(text.contains(word), "{word} in {text}");
    }
    assert!(!text.contains("+---") && !text.contains("| "), "{text}");
}

#[test]
fn a_table_inside_a_list_item_stays_in_the_item() {
    let src = "# T\n\n1.  First item:\n\n    +-----+-----+\n    | a   | b   |\n    +-----+-----+\n\n    Table: In the item.\n\n2.  Second item.\n";
    let f = convert(src);
    assert_eq!(count(&f.body, "<table"), 1, "{}", f.body);
    assert_eq!(count(&f.body, "<ol"), 1, "{}", f.body);
    let table = f.body.find("<table").unwrap();
    let item_end = f.body.find("</li>").unwrap();
    assert!(table < item_end, "{}", f.body);
    assert!(f.body.contains("In the item."), "{}", f.body);
    assert!(!body_text(&f).contains("+---"), "{}", f.body);
}

#[test]
fn warnings_cite_the_line_the_author_wrote_after_rewritten_blocks() {
    // The table and the div become many more lines of markup than the source has.
    let src = "# T\n\n+---+---+\n| a | b |\n+---+---+\n| c | d |\n+---+---+\n\n::: note\nText.\n:::\n\nThen $\\field^n$ here.\n";
    let f = convert(src);
    let line = src.lines().position(|l| l.contains("field")).unwrap() + 1;
    assert_eq!(line, 13);
    let notes = notes(&f);
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with(&format!("line {line}: "))),
        "{notes:?}"
    );
}
