use super::*;

/// The text of each piece refused in `css`, with what replaces it when something does.
fn cuts(css: &str) -> Vec<String> {
    refused(css)
        .iter()
        .map(|r| match r.insert.as_str() {
            "" => css[r.start..r.end].to_string(),
            to => format!("{} -> {to}", &css[r.start..r.end]),
        })
        .collect()
}

fn whats(css: &str) -> Vec<String> {
    refused(css).into_iter().map(|r| r.what).collect()
}

/// Constructs EPUBCheck 5.3.0 reads without a word (each checked with it): none is refused.
#[test]
fn what_epubcheck_accepts_is_not_refused() {
    for css in [
        "@charset \"utf-8\";\n@import url(a.css) screen;\n@namespace svg \"http://www.w3.org/2000/svg\";",
        "@media screen and (max-width: 600px) { p { color: red } }",
        "@media only screen and (-webkit-min-device-pixel-ratio:0) { p { color: red } }",
        "@supports not (display: grid) { p { float: left } } @layer a, b; @layer a { p { x: y } }",
        "svg|rect { fill: red } *|* { margin: 0 } |p { color: red } * > p { color: red }",
        "p:nth-child( 2n + 1 ) { x: y } li:nth-child(-n+3) { x: y } p:lang(zh-Hant) { x: y }",
        "p::selection { x: y } ::-webkit-scrollbar { x: y } li::marker { x: y }",
        "a:not([href]) { x: y } :is(h1,h2):hover { x: y } div:has(+ p) { x: y } div:has(> img) { x: y }",
        ".a.b#c[d]:e::f { x: y } p > a + b ~ c { x: y } p>a{x:y} .中文 { x: y } .a\\:b { x: y }",
        "a[title~=\"x\"] { x: y } a[lang|=\"en\"] { x: y } a[href*=x] { x: y } a[target=_blank]{x:y}",
        "html>/**/body p { x: y } h1 /* c */ , h2 { x: y } a /* x */ b { x: y }",
        "@font-face { font-family: \"X\"; src: url(x.woff2) format(\"woff2\"); unicode-range: U+0000-00FF, U+0131; }",
        "p { font: 12px/1.5 \"Helvetica Neue\", Arial; width: calc(100% - 2em); margin: -1em auto 0 -.5em; }",
        "p { filter: progid:DXImageTransform.Microsoft.gradient(startColorstr='#80000000'); _height: 1px; color: red\\9; }",
        "p { background: url( \"a b.png\" ) } p { content: \"\\201C\"; quotes: \"\\201C\" \"\\201D\"; }",
        ":root{--a:1px;--b: calc(var(--a) * 2); --empty:;} p { margin: 0 !important; color: red ! IMPORTANT }",
        "@keyframes f { from { opacity: 0 } 50% { opacity: .5 } to { opacity: 1 } }",
        "@-webkit-keyframes x { 0% { opacity: 0 } 100% { opacity: 1 } }",
        "@page { margin: 1em } @page :first { margin: 0 } @page chapter:first { margin: 0 }",
        "@page { @top-left { content: \"x\" } @bottom-left { content: counter(page) } }",
        "@media print { @page { margin: 0 } } @font-feature-values F { @styleset { nice: 12; } }",
        "@counter-style thumbs { system: cyclic; symbols: \"*\"; suffix: \" \"; }",
        "p { color: red; } <!-- --> q { color: blue } p{} @foo bar; @bar { x: y }",
        "@viewport { width: device-width; } p { color: red;}",
    ] {
        assert_eq!(cuts(css), Vec::<String>::new(), "{css}");
    }
}

#[test]
fn rules_whose_selector_epubcheck_cannot_read_are_refused_whole() {
    // The Fidus Writer manual's `-@font-face` (a stray `-`), a stray `}`, a `\` left from a
    // comment closed early (the zh vertical sample), a comma in `:-webkit-any()`.
    assert_eq!(
        cuts("-@font-face {\n  font-family: X;\n}\np { color: red }"),
        ["-@font-face {\n  font-family: X;\n}"]
    );
    assert_eq!(
        cuts("p { color: red } }\nq { color: blue }\nr { x: y }"),
        ["}\nq { color: blue }"]
    );
    assert_eq!(
        cuts("/* a /* b */ c \\\n d */ .v { x: y } .w { x: y }"),
        ["c \\\n d */ .v { x: y }"]
    );
    assert_eq!(
        cuts(":-webkit-any(a, b) p { x: y }"),
        [":-webkit-any(a, b) p { x: y }"]
    );
    assert_eq!(
        cuts("a[href$=\".pdf\" i] { x: y } 1p { x: y }"),
        ["a[href$=\".pdf\" i] { x: y }", "1p { x: y }"]
    );
    assert!(whats("-@font-face { }")[0].contains("has `-` where EPUBCheck"));
    // Text after the last rule, here a zero-width space (d-ja-tamulabo).
    assert_eq!(cuts("p { x: y }\n\u{200B}"), ["\u{200B}"]);
}

#[test]
fn a_comment_inside_a_selector_goes_not_the_rule() {
    assert_eq!(cuts("h1/* c */{ x: y }"), ["/* c */"]);
    assert_eq!(cuts("p/* c */.x { x: y }"), ["/* c */"]);
    // Taking it out would make one name of two: the rule goes.
    assert_eq!(cuts("a/**/b { x: y }"), ["a/**/b { x: y }"]);
}

#[test]
fn a_style_rules_block_holds_only_declarations() {
    assert_eq!(
        cuts(".b { color: blue; .c { color: red } margin: 0 }"),
        [".c { color: red }"]
    );
    assert_eq!(cuts(".b { & .c { color: red } }"), ["& .c { color: red }"]);
    assert_eq!(
        cuts("p { color: red; @media print { color: blue } margin: 0 }"),
        ["@media print { color: blue }"]
    );
    assert!(whats(".b { .c { x: y } }")[0].contains("CSS nesting"));
    // Stray semicolons, IE hacks, declarations with no colon or no value, a block in a value.
    assert_eq!(cuts("p { ; color: red;; margin: 0 }"), [";", ";"]);
    assert_eq!(cuts("p { *zoom: 1; color: red }"), ["*zoom: 1;"]);
    assert_eq!(cuts("p {!important; color: red }"), ["!important;"]);
    assert_eq!(
        cuts("p { color red; margin: ; top: !important; x: y }"),
        ["color red;", "margin: ;", "top: !important;"]
    );
    assert_eq!(cuts(":root { --x: { a: b }; --y: 1 }"), ["--x: { a: b };"]);
}

#[test]
fn values_holding_what_the_grammar_refuses_are_refused() {
    assert_eq!(
        cuts("p { color: @red; width: expression(a*=b); x: calc(1px !important); top: 0 }"),
        [
            "color: @red;",
            "width: expression(a*=b);",
            "x: calc(1px !important);"
        ]
    );
    // A function left open before the `;`: the declaration, up to the block's end.
    assert_eq!(
        cuts("p { width: calc(1px; color: red }\nq { x: y }"),
        ["width: calc(1px; color: red"]
    );
    assert_eq!(
        cuts("@media @print { p { x: y } }"),
        ["@media @print { p { x: y } }"]
    );
}

#[test]
fn at_rule_blocks_hold_rules_or_declarations_as_their_start_says() {
    // `@page` read as declarations (one comes first): its margin boxes are refused …
    assert_eq!(
        cuts(
            "@page :first {\n  size: 1in;\n  @bottom-left { content: normal; }\n  @top-center {\n    content: x;\n  }\n}"
        ),
        [
            "@bottom-left { content: normal; }",
            "@top-center {\n    content: x;\n  }"
        ]
    );
    // … read as rules (a margin box first): its declarations are.
    assert_eq!(
        cuts("@page { @top-left { content: \"x\" } margin: 1em; @bottom-left { content: \"y\" } }"),
        ["margin: 1em;"]
    );
    assert!(
        whats("@page { margin: 0; @top-left { x: y } }")[0].contains("only before any declaration")
    );
    assert_eq!(
        cuts("@font-face { font-family: X; @foo { } src: local(X) }"),
        ["@foo { }"]
    );
    // `@media` holds rules whatever comes first: the declaration goes (browsers ignore it).
    assert_eq!(cuts("@media print { color: red; }"), ["color: red;"]);
    assert_eq!(cuts("@media print { p { x: y } ; }"), [";"]);
    // A rule without a block first among rules would make EPUBCheck read declarations.
    assert_eq!(
        cuts("@media print { @import x; p { x: y } }"),
        ["@import x;"]
    );
    assert_eq!(
        cuts("@media print { p { x: y } @foo x; }"),
        Vec::<String>::new()
    );
}

#[test]
fn what_the_scanner_refuses_goes_with_its_rule_or_declaration() {
    assert_eq!(
        cuts("p { content: \"abc\n; color: red }\nq { x: y }"),
        ["content: \"abc\n;"]
    );
    assert_eq!(
        cuts("p { background: url(\"a.png\" x) }\nq { x: y }"),
        ["background: url(\"a.png\" x)"]
    );
    assert!(whats("p { background: url(\"a.png\" x) }")[0].contains("malformed url()"));
    assert_eq!(cuts("p { x: y } /* left open"), ["/* left open"]);
    assert_eq!(cuts("@import \"a.css\""), ["@import \"a.css\""]);
}

#[test]
fn a_string_ending_in_an_escaped_backslash_is_respelled_not_cut() {
    // EPUBCheck's scanner reads on past the quote after `\\`.
    assert_eq!(
        cuts("p { content: \"a\\\\\"; }\nq { x: y }"),
        ["\\\\ -> \\5c "]
    );
    assert_eq!(cuts("p { content: \"\\\\a\"; }"), Vec::<String>::new());
    assert_eq!(cuts("p { content: \"\\\"\"; }"), Vec::<String>::new());
}

#[test]
fn blocks_left_open_at_the_end_are_closed() {
    assert_eq!(cuts("p { color: red"), [" -> }"]);
    assert_eq!(cuts("@media print { p { color: red"), [" -> }}"]);
    // An open string goes with its declaration, and the block is closed.
    assert_eq!(
        cuts("p { color: red; content: \"ab"),
        ["content: \"ab", " -> }"]
    );
    assert_eq!(cuts("p { color:"), ["color:", " -> }"]);
}

#[test]
fn deep_nesting_is_refused_without_running_out_of_stack() {
    let n = 100_000;
    let media = format!(
        "{}p {{ x: y }}{}\nq {{ x: y }}",
        "@media x {".repeat(n),
        "}".repeat(n)
    );
    let got = refused(&media);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].what.contains("nested too deeply"), "{}", got[0].what);
    assert!(media[got[0].end..].contains("q { x: y }"));
    let value = format!(
        "p {{ x: {}1{} }} q {{ x: y }}",
        "(".repeat(n),
        ")".repeat(n)
    );
    assert_eq!(cuts(&value).len(), 1);
    assert!(cuts(&value)[0].starts_with("x: (((("));
    let selector = format!(
        "{}p{} {{ x: y }} q {{ x: y }}",
        ":not(".repeat(n),
        ")".repeat(n)
    );
    assert_eq!(cuts(&selector).len(), 1);
    assert!(cuts(&selector)[0].ends_with(") { x: y }"));
}

/// Pieces of stylesheets, good and bad, for [`cleaned_stylesheets_hold_nothing_refused`].
fn fragment() -> impl proptest::strategy::Strategy<Value = &'static str> {
    proptest::sample::select(vec![
        "p",
        ".a",
        "#b",
        "a:hover",
        "::before",
        ":not(",
        ":nth-child(2n+1)",
        "[x=\"y\"]",
        "&",
        "*",
        ">",
        "+",
        ",",
        " ",
        "\n",
        "{",
        "}",
        ";",
        ":",
        "(",
        ")",
        "color",
        "red",
        "--x",
        "!important",
        "@media print",
        "@page",
        "@top-left",
        "@font-face",
        "@keyframes k",
        "@import \"a.css\"",
        "50%",
        "from",
        "url(a.png)",
        "url(\"b\" x)",
        "calc(1px",
        "-",
        "/*",
        "*/",
        "/* c */",
        "\"s\"",
        "\"\\\\\"",
        "\"open",
        "\\",
        "*=",
        "<!--",
        "-->",
        "1em",
        "\u{200B}",
        "margin: 0;",
        "p { color: red }",
        "@media x {",
        "@page { margin: 0;",
        // What the cleaner itself cuts: remote and scripted URLs, rules for web addresses.
        "url(http://x/a.png)",
        "@-moz-document url-prefix(http://x) {",
        "expression(",
        "direction: rtl;",
        "@import url(http://x/a.css);",
        "src: url(http://x/f.woff)",
    ])
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(512))]

    /// The cleaner's output holds nothing EPUBCheck's grammar refuses: cutting what it
    /// refuses leaves a stylesheet that it reads through, whatever came in.
    #[test]
    fn cleaned_stylesheets_hold_nothing_refused(
        parts in proptest::collection::vec(fragment(), 0..40)
    ) {
        let css = parts.concat();
        let cleaned = crate::media::css::clean_stylesheet(&css, &mut |_| {
            Err(crate::media::css::NotCarried::NotCarriable)
        });
        let left = refused(&cleaned.css);
        proptest::prop_assert!(left.is_empty(), "{css:?}\n-> {:?}\nleft {left:?}", cleaned.css);
    }
}
