use super::*;

fn lint(text: &str) -> Vec<Diagnostic> {
    Linter::default().chapter(Path::new("a.txt"), text, SourceKind::Text, &|_| false)
}

/// (code, line, column) of each finding (the code's name leaked: a test compares it with
/// literals).
fn found(text: &str) -> Vec<(&'static str, Option<usize>, Option<usize>)> {
    lint(text)
        .iter()
        .map(|d| {
            let code: &'static str = Box::leak(d.code.as_str().into());
            (code, d.line, d.column)
        })
        .collect()
}

#[test]
fn unmatched_quotes_and_brackets_in_a_paragraph() {
    assert_eq!(found("他说：“好的。”\n（注释）《书》「是」『否』\n"), []);
    assert_eq!(
        found("他说：“好的。\n\n另一段。\n"),
        [("unmatched-bracket", Some(1), Some(4))]
    );
    assert_eq!(found("好）的\n"), [("unmatched-bracket", Some(1), Some(2))]);
    assert_eq!(found("《书名\n"), [("unmatched-bracket", Some(1), Some(1))]);
}

#[test]
fn a_quotation_going_on_in_the_next_paragraph_is_not_unmatched() {
    // Each paragraph of a long speech opens the quotation again; only the last closes it.
    assert_eq!(found("“第一段话。\n“第二段话。”\n"), []);
    assert_eq!(found("「第一段。\n「第二段。」\n"), []);
    // Brackets do not go on.
    assert_eq!(
        found("（第一段。\n（第二段。）\n"),
        [("unmatched-bracket", Some(1), Some(1))]
    );
}

#[test]
fn mojibake_signatures() {
    assert_eq!(found("这是锟斤拷乱码\n"), [("mojibake", Some(1), Some(3))]);
    assert_eq!(found("烫烫烫烫\n"), [("mojibake", Some(1), Some(1))]);
    assert_eq!(found("屯屯屯\n"), [("mojibake", Some(1), Some(1))]);
    assert_eq!(found("cafÃ© au lait\n"), [("mojibake", Some(1), Some(4))]);
    assert_eq!(found("a\u{c2}\u{a0}b\n"), [("mojibake", Some(1), Some(2))]);
    assert_eq!(
        found("it\u{e2}\u{20ac}\u{2122}s\n"),
        [("mojibake", Some(1), Some(3))]
    );
    // Real words with Ã and Â.
    assert_eq!(found("SÃO PAULO, Â la carte\n"), []);
    assert_eq!(found("烫手的山芋\n"), []);
}

#[test]
fn replacement_private_use_and_zero_width_characters_one_finding_per_line() {
    assert_eq!(
        found("好\u{fffd}的\u{fffd}\n"),
        [("replacement-character", Some(1), Some(2))]
    );
    let d = lint("甲\u{e000}乙\u{e001}\n");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::PrivateUse);
    assert_eq!(d[0].column, Some(2));
    assert!(
        d[0].message.starts_with("2 private-use"),
        "{}",
        d[0].message
    );
    assert_eq!(found("你\u{200b}好\n"), [("zero-width", Some(1), Some(2))]);
    assert_eq!(found("a\u{2060}b\n"), [("zero-width", Some(1), Some(2))]);
    // Joiners in emoji and in scripts that spell with them are not reported.
    assert_eq!(found("👨\u{200d}👩\n"), []);
    assert_eq!(found("می\u{200c}خواهم\n"), []);
}

#[test]
fn doubled_punctuation_but_not_ellipses_or_english_abbreviations() {
    assert_eq!(
        found("好，，的\n"),
        [("doubled-punctuation", Some(1), Some(2))]
    );
    assert_eq!(
        found("好。，的\n"),
        [("doubled-punctuation", Some(1), Some(2))]
    );
    assert_eq!(
        found("Yes,, he said.\n"),
        [("doubled-punctuation", Some(1), Some(4))]
    );
    assert_eq!(found("好。。。的\n"), []);
    assert_eq!(found("Wait... no.\n"), []);
    assert_eq!(found("apples, pears, etc., and more.\n"), []);
    assert_eq!(found("什么？？！！\n"), []);
}

#[test]
fn repeated_paragraphs_across_chapters_name_the_first() {
    let para = "这是一个足够长的段落，它在两章里都出现了，因为抓取网页的程序重复了一页内容。";
    let mut linter = Linter::default();
    let none = |_: &str| false;
    let first = format!("第一章\n{para}\n");
    let a = linter.chapter(Path::new("1.txt"), &first, SourceKind::Text, &none);
    assert!(a.is_empty(), "{a:?}");
    let second = format!("第二章\n别的话。\n{para}\n");
    let b = linter.chapter(Path::new("2.txt"), &second, SourceKind::Text, &none);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].code, Code::RepeatedParagraph);
    assert_eq!(b[0].line, Some(3));
    assert!(b[0].message.contains("1.txt:2"), "{}", b[0].message);
    // Short lines repeat by right.
    let c = linter.chapter(Path::new("3.txt"), "“是。”\n", SourceKind::Text, &none);
    let d = linter.chapter(Path::new("4.txt"), "“是。”\n", SourceKind::Text, &none);
    assert!(c.is_empty() && d.is_empty(), "{d:?}");
}

#[test]
fn a_paragraph_too_long_to_be_one() {
    let cjk = "字".repeat(LONG_CJK + 1);
    assert_eq!(found(&cjk), [("long-paragraph", Some(1), Some(1))]);
    assert_eq!(found(&"字".repeat(LONG_CJK)), []);
    // Latin paragraphs may be longer.
    let latin = "word ".repeat(LONG_CJK / 4);
    assert_eq!(found(&latin), []);
}

#[test]
fn boilerplate_lines_unless_the_cleanup_removes_them() {
    let text = "正文。\n本章未完，请点击下一页继续阅读\n更多好书请访问 www.example.com\n";
    assert_eq!(
        found(text),
        [
            ("boilerplate", Some(2), Some(1)),
            ("boilerplate", Some(3), Some(9))
        ]
    );
    let removed = |l: &str| l.contains("本章未完");
    let d = Linter::default().chapter(Path::new("a.txt"), text, SourceKind::Text, &removed);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].line, Some(3));
    assert_eq!(
        found("He read the www pages and e.g. http-ish words.\n"),
        []
    );
}

#[test]
fn paragraph_rules_are_for_plain_text_only() {
    let md = "[a link](https://example.com)，，\n";
    let d = Linter::default().chapter(Path::new("a.md"), md, SourceKind::Markdown, &|_| false);
    assert!(d.is_empty(), "{d:?}");
    let d = Linter::default().chapter(
        Path::new("a.md"),
        "锟斤拷\n",
        SourceKind::Markdown,
        &|_| false,
    );
    assert_eq!(d.len(), 1);
}

#[test]
fn many_findings_in_a_file_are_listed_then_counted() {
    let text = "好，，的\n".repeat(SHOWN + 3);
    let d = lint(&text);
    assert_eq!(d.len(), SHOWN + 1, "{d:?}");
    assert_eq!(d[SHOWN].line, None);
    assert!(
        d[SHOWN].message.starts_with("3 more doubled-punctuation"),
        "{}",
        d[SHOWN].message
    );
}
