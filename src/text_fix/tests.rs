use super::*;

fn rule(pattern: &str, replace: &str, scope: Scope) -> Rule {
    let origin = Origin::File {
        path: "metadata.toml".into(),
        line: 1,
    };
    Rule::new(pattern, replace, scope, None, origin).unwrap()
}

fn fix(rules: Vec<Rule>, typography: Typography) -> TextFix {
    TextFix::new(Settings {
        rules,
        conversion: None,
        quotes: None,
        typography,
    })
}

fn file() -> FileRef<'static> {
    FileRef {
        path: Path::new("/book/1.txt"),
        relative: "1.txt",
    }
}

fn auto_heading(line: &str) -> bool {
    crate::convert::split::is_heading(line, &crate::convert::split::SplitMode::Auto)
}

#[test]
fn text_rules_skip_titles_and_title_rules_skip_text() {
    let f = fix(
        vec![
            rule("求月票", "", Scope::Text),
            rule(r"（求推荐）$", "", Scope::Titles),
        ],
        Typography::Off,
    );
    let text = "第一章 风起（求推荐）\n他说求月票（求推荐）\n第二章 云涌求月票\n";
    let out = f.text_file(text, file(), &auto_heading, true, None);
    assert_eq!(out, "第一章 风起\n他说（求推荐）\n第二章 云涌求月票\n");
    // Not split: only the first line is a title.
    let out = f.text_file(text, file(), &auto_heading, false, None);
    assert_eq!(out, "第一章 风起\n他说（求推荐）\n第二章 云涌\n");
}

#[test]
fn a_title_rule_can_make_a_heading_of_a_prefixed_line() {
    let f = TextFix::new(Settings {
        rules: TextFix::preset("web-novel").unwrap(),
        conversion: None,
        quotes: None,
        typography: Typography::Off,
    });
    let text = "    正文 第一回 宴桃园豪杰三结义 斩黄巾英雄首立功\n    更新时间:2007-11-16 7:55:51 本章字数:4804\n滚滚长江东逝水。\n";
    let out = f.text_file(text, file(), &auto_heading, true, None);
    assert_eq!(
        out,
        "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功\n滚滚长江东逝水。\n"
    );
    // A body line starting with 正文 is text: the title rule leaves it alone.
    let body = "甲。\n正文 第一次见面，他就笑了。\n";
    assert_eq!(f.text_file(body, file(), &auto_heading, true, None), body);
}

#[test]
fn typography_keeps_the_spaces_of_heading_lines() {
    let f = fix(Vec::new(), Typography::Cjk { japanese: false });
    let text = "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功\n他 说,好...\n";
    assert_eq!(
        f.text_file(text, file(), &auto_heading, true, None),
        "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功\n他说，好……\n"
    );
    assert_eq!(
        f.title("第一回 宴桃园 斩黄巾,再说", None, None),
        "第一回 宴桃园 斩黄巾，再说"
    );
}

#[test]
fn the_tally_names_files_and_source_lines_after_earlier_removals() {
    let f = fix(
        vec![
            rule("^广告$", "", Scope::Text),
            rule("坏字", "好字", Scope::Text),
        ],
        Typography::Off,
    );
    let text = "广告\n甲\n广告\n坏字\n";
    let mut tally = Tally::default();
    let out = f.text_file(text, file(), &auto_heading, false, Some(&mut tally));
    assert_eq!(out, "甲\n好字\n");
    assert_eq!(tally.hits[0].count, 2);
    let lines: Vec<_> = tally.hits[0].examples.iter().map(|e| e.line).collect();
    assert_eq!(lines, [Some(1), Some(3)]);
    assert_eq!(tally.hits[1].examples[0].line, Some(4));
    assert_eq!(tally.hits[1].examples[0].matched, "坏字");
    assert_eq!(tally.hits[1].examples[0].replaced, "好字");
}

#[test]
fn files_globs_limit_rules_to_their_chapters() {
    let mut r = rule("甲", "乙", Scope::Both);
    r.files = Some(glob::Pattern::new("vol2/*.txt").unwrap());
    let f = fix(vec![r], Typography::Off);
    assert_eq!(f.text_file("甲", file(), &auto_heading, false, None), "甲");
    let other = FileRef {
        path: Path::new("/book/vol2/1.txt"),
        relative: "vol2/1.txt",
    };
    assert_eq!(f.text_file("甲", other, &auto_heading, false, None), "乙");
    assert_eq!(f.title("甲", None, None), "甲");
}

#[test]
fn text_nodes_get_rules_conversion_and_typography() {
    let f = TextFix::new(Settings {
        rules: vec![rule("广告", "", Scope::Text)],
        conversion: Conversion::named("s2tw"),
        quotes: Some(Quotes::Corner),
        typography: Typography::Cjk { japanese: false },
    });
    assert_eq!(
        f.text_node("广告他说:“开放...”", file(), None).as_deref(),
        Some("他說:「開放……」")
    );
    assert_eq!(f.text_node("plain", file(), None), None);
}

#[test]
fn metadata_is_converted_and_the_language_follows() {
    let f = TextFix::new(Settings {
        rules: Vec::new(),
        conversion: Conversion::named("s2tw"),
        quotes: None,
        typography: Typography::Off,
    });
    let project = crate::project::Project::from_str(
        "[book]\ntitle = \"开放\"\nauthors = [\"罗贯中\"]\nlanguage = \"zh-CN\"\n\
         description = \"简介\"\nsubjects = [\"历史\"]\nseries = \"三国\"\n\
         [[chapters]]\nfile = \"Cargo.toml\"\n",
        Path::new(env!("CARGO_MANIFEST_DIR")),
        Path::new("metadata.toml"),
    )
    .unwrap();
    let mut info = project.book.clone();
    f.metadata(&mut info);
    assert_eq!(info.title, "開放");
    assert_eq!(info.authors[0].name, "羅貫中");
    assert_eq!(info.description.as_deref(), Some("簡介"));
    assert_eq!(info.subjects, ["歷史"]);
    assert_eq!(info.series.unwrap().name, "三國");
    assert_eq!(info.language, "zh-TW");
}

#[test]
fn the_stage_off_changes_nothing_and_borrows() {
    let f = TextFix::off();
    let text = "他说,好...\n正文 第一回\n";
    assert!(matches!(
        f.text_file(text, file(), &auto_heading, true, None),
        Cow::Borrowed(_)
    ));
    assert_eq!(f.title("甲,乙", None, None), "甲,乙");
}

#[test]
fn a_site_glued_to_a_paragraph_goes_and_the_paragraph_stays() {
    // shuihu-web-utf8's last line: the verse stays, the site goes.
    let f = TextFix::new(Settings {
        rules: TextFix::preset("web-novel").unwrap(),
        conversion: None,
        quotes: None,
        typography: Typography::Off,
    });
    let text = "天涯在线书库《www.tianyabook.com》\n    千古蓼埋玉地，落花啼鸟总关愁。天涯在线书库《www.tianyabook.com》\n";
    assert_eq!(
        f.text_file(text, file(), &auto_heading, false, None),
        "    千古蓼埋玉地，落花啼鸟总关愁。\n"
    );
}
