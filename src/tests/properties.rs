//! Property tests: arbitrary bytes and strings as `.txt`, `.md` and `.html` chapters. The build
//! either fails with an error that names the file, or gives documents that are well-formed
//! XML; from plain text no character is lost.

use crate::book;
use crate::convert::book::load_book;
use crate::package;
use crate::project::Project;
use proptest::prelude::*;

// Typography off: these properties are about the converters keeping every character;
// what typography changes on purpose is tested with it (src/text_fix).
const METADATA: &str = "[book]\ntitle = \"t\"\nauthors = [\"a\"]\nlanguage = \"zh-CN\"\n[text]\ntypography = false\n[[chapters]]\nfile = \"FILE\"\ntitle = \"固定标题\"\n";

/// Builds one chapter in memory; returns the package entries, or the error text.
fn build(name: &str, bytes: &[u8]) -> Result<Vec<book::Entry>, String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), bytes).unwrap();
    let metadata = METADATA.replace("FILE", name);
    let project = Project::from_str(&metadata, dir.path(), &dir.path().join("metadata.toml"))
        .map_err(|e| e.to_string())?;
    let loaded = load_book(&project, Some(0)).map_err(|e| e.to_string())?;
    Ok(package::package(&loaded.book))
}

fn parse(name: &str, data: &[u8]) -> String {
    let s = std::str::from_utf8(data).unwrap_or_else(|_| panic!("{name} is not UTF-8"));
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(s, opts)
        .unwrap_or_else(|e| panic!("{name} is not well-formed: {e}\n{s}"));
    doc.descendants()
        .filter(|n| n.has_tag_name("p"))
        .flat_map(|p| p.descendants().filter(|d| d.is_text()))
        .filter_map(|t| t.text())
        .collect()
}

/// Checks one build; returns the text of the chapter's paragraphs when it succeeded.
fn check(name: &str, bytes: &[u8]) -> Option<String> {
    match build(name, bytes) {
        Err(message) => {
            assert!(
                message.contains(name),
                "error does not name the file: {message}"
            );
            None
        }
        Ok(entries) => {
            let mut chapter = None;
            for e in &entries {
                if [".xhtml", ".opf", ".ncx", ".xml"]
                    .iter()
                    .any(|x| e.name.ends_with(x))
                {
                    let text = parse(&e.name, &e.data);
                    if e.name.ends_with("chapter-0001.xhtml") {
                        chapter = Some(text);
                    }
                }
            }
            Some(chapter.expect("a chapter document"))
        }
    }
}

/// Plain text: every non-blank character of the decoded input is in the output, in order.
fn check_text(bytes: &[u8]) {
    let Some(out) = check("c.txt", bytes) else {
        return;
    };
    let decoded = crate::source::decode(bytes, None, Default::default())
        .expect("the build decoded it, so can we");
    let expected: String = decoded
        .text
        .split('\n')
        .map(crate::lines::trim_line)
        .flat_map(str::chars)
        // Decoding leaves NUL to the converters; plain text drops it. Balanced underscores
        // are Project Gutenberg's italics (`_word_` becomes `<em>word</em>`): not compared.
        .filter(|c| !c.is_whitespace() && *c != '\0' && *c != '_')
        .collect();
    let got: String = out
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    assert_eq!(got, expected);
}

fn text_like() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        "[\\PC]{0,40}",
        "[，。！？“”「」、a-z ＊*◇—…\u{3000}第一二三章卷0-9]{0,30}",
        Just("第一章 风起".to_string()),
        Just("金军大营".to_string()),
        Just("\u{1}\u{7f}\u{FEFF}".to_string()),
    ];
    prop::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
}

fn markup_like() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        "[\\PC]{0,12}",
        Just("<p>".to_string()),
        Just("</div>".to_string()),
        Just("<b><i>".to_string()),
        Just("<table><tr><td>".to_string()),
        Just("&nbsp;&bogus;&#0;".to_string()),
        Just("<script>x</script>".to_string()),
        Just("<a href=\"#x\" onclick=\"y\">".to_string()),
        Just("\n\n# H\n".to_string()),
        Just("[^1]\n\n[^1]: n\n".to_string()),
        Just("| a | b |\n|---|---|\n| 1 | 2 |\n".to_string()),
        Just("<img src=\"http://x/y.png\">".to_string()),
    ];
    prop::collection::vec(token, 0..16).prop_map(|t| t.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_as_text_fail_cleanly_or_keep_every_character(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        check_text(&bytes);
    }

    #[test]
    fn text_like_input_keeps_every_character(text in text_like()) {
        check_text(text.as_bytes());
    }

    #[test]
    fn arbitrary_markdown_gives_well_formed_documents(src in markup_like(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check("c.md", src.as_bytes());
        check("c.md", &bytes);
    }

    #[test]
    fn arbitrary_html_gives_well_formed_documents(src in markup_like(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check("c.html", src.as_bytes());
        check("c.html", &bytes);
    }
}

#[test]
fn regression_heading_line_with_explicit_title_is_kept_as_text() {
    // With a title in metadata.toml, a heading-like first line is text, not dropped.
    let out = check("c.txt", "第一章 风起\n正文。".as_bytes()).unwrap();
    assert_eq!(out, "第一章 风起正文。");
}
