//! Whether a stylesheet parses as CSS (the syntax of CSS Syntax Level 3, by `cssparser`):
//! every rule a selector or an at-rule with its block, every declaration `name: value`. A
//! stylesheet the manifest does not list was never read by EPUBCheck on the input; carried
//! into the book, it would be, and one that does not parse (a rule `{!important; …}`, a
//! stray character after the last `}`) would be a `CSS-008` error the input did not have.

use cssparser::{
    AtRuleParser, CowRcStr, DeclarationParser, ParseError, Parser, ParserState,
    QualifiedRuleParser, RuleBodyItemParser, RuleBodyParser, StyleSheetParser,
};

/// Rules at the top of a stylesheet, and in a block that holds rules or declarations.
struct Rules;

type Failed = ParseError<()>;

/// Every token up to the end of what `input` is limited to (a prelude, a value).
fn skip(input: &mut Parser<'_>) {
    while input.next().is_ok() {}
}

/// A block's contents: declarations and nested rules, each of which must parse.
fn body<'i>(input: &mut Parser<'i>) -> Result<(), Failed> {
    let mut rules = Rules;
    for item in RuleBodyParser::new(input, &mut rules) {
        item.map_err(|(e, _, _)| e)?;
    }
    Ok(())
}

impl<'i> QualifiedRuleParser<'i> for Rules {
    type Prelude = ();
    type QualifiedRule = ();
    type Error = ();

    fn parse_prelude(&mut self, input: &mut Parser<'i>) -> Result<(), Failed> {
        skip(input);
        Ok(())
    }

    fn parse_block(
        &mut self,
        _: (),
        _: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<(), Failed> {
        body(input)
    }
}

impl<'i> AtRuleParser<'i> for Rules {
    type Prelude = ();
    type AtRule = ();
    type Error = ();

    fn parse_prelude(&mut self, _: CowRcStr<'i>, input: &mut Parser<'i>) -> Result<(), Failed> {
        skip(input);
        Ok(())
    }

    fn rule_without_block(&mut self, _: (), _: &ParserState) -> Result<(), ()> {
        Ok(())
    }

    fn parse_block(
        &mut self,
        _: (),
        _: &ParserState,
        input: &mut Parser<'i>,
    ) -> Result<(), Failed> {
        body(input)
    }
}

impl<'i> DeclarationParser<'i> for Rules {
    type Declaration = ();
    type Error = ();

    fn parse_value(
        &mut self,
        _: CowRcStr<'i>,
        input: &mut Parser<'i>,
        _: &ParserState,
    ) -> Result<(), Failed> {
        skip(input);
        Ok(())
    }
}

impl<'i> RuleBodyItemParser<'i, (), ()> for Rules {
    fn parse_declarations(&self) -> bool {
        true
    }

    fn parse_qualified(&self) -> bool {
        true
    }
}

/// Whether `css` parses: no rule or declaration of it is malformed.
pub(super) fn parses(css: &str) -> bool {
    let mut input = Parser::new(css);
    let mut rules = Rules;
    StyleSheetParser::new(&mut input, &mut rules).all(|rule| rule.is_ok())
}

#[cfg(test)]
mod tests {
    use super::parses;

    #[test]
    fn malformed_rules_and_declarations_do_not_parse() {
        for good in [
            "p { color: red; margin: 0 !important }",
            "@charset \"utf-8\";\n@import url(a.css);\n@media screen { p { color: red } }",
            "@font-face { font-family: X; src: url(x.ttf) }\n/* a comment */",
            "",
        ] {
            assert!(parses(good), "{good:?} refused");
        }
        for bad in [
            "div.sgc-4 {!important; background-color: #4E9ABE; color: #fff;}",
            "div.sgc-1 {important; background-color: #4E9ABE;}",
            "p { color: red }\u{200B}",
            "@media screen { p { ; color } }",
        ] {
            assert!(!parses(bad), "{bad:?} taken");
        }
    }
}
