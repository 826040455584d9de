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

/// The converter's reading of lines by the built-in heading rules.
const AUTO: LineReading<'static> = LineReading {
    heading: &auto_heading,
    joined: crate::convert::text::joined_lines,
};

fn auto_heading(line: &str) -> bool {
    crate::convert::split::is_heading(line, &crate::book::SplitMode::Auto)
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
    let out = f.text_file(text, file(), &AUTO, true, None).unwrap();
    assert_eq!(out, "第一章 风起\n他说（求推荐）\n第二章 云涌求月票\n");
    // Not split: only the first line is a title.
    let out = f.text_file(text, file(), &AUTO, false, None).unwrap();
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
    let out = f.text_file(text, file(), &AUTO, true, None).unwrap();
    assert_eq!(
        out,
        "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功\n滚滚长江东逝水。\n"
    );
    // A body line starting with 正文 is text: the title rule leaves it alone.
    let body = "甲。\n正文 第一次见面，他就笑了。\n";
    assert_eq!(f.text_file(body, file(), &AUTO, true, None).unwrap(), body);
}

#[test]
fn typography_keeps_the_spaces_of_heading_lines() {
    let f = fix(Vec::new(), Typography::Cjk { japanese: false });
    let text = "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功\n他 说,好...\n";
    assert_eq!(
        f.text_file(text, file(), &AUTO, true, None).unwrap(),
        "第一回 宴桃园豪杰三结义 斩黄巾英雄首立功\n他说，好……\n"
    );
    assert_eq!(
        f.title("第一回 宴桃园 斩黄巾,再说", None, None).unwrap(),
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
    let out = f
        .text_file(text, file(), &AUTO, false, Some(&mut tally))
        .unwrap();
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
    assert_eq!(f.text_file("甲", file(), &AUTO, false, None).unwrap(), "甲");
    let other = FileRef {
        path: Path::new("/book/vol2/1.txt"),
        relative: "vol2/1.txt",
    };
    assert_eq!(f.text_file("甲", other, &AUTO, false, None).unwrap(), "乙");
    assert_eq!(f.title("甲", None, None).unwrap(), "甲");
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
        f.text_node("广告他说:“开放...”", file(), None, &mut Clock::default())
            .unwrap()
            .as_deref(),
        Some("他說:「開放……」")
    );
    assert_eq!(
        f.text_node("plain", file(), None, &mut Clock::default())
            .unwrap(),
        None
    );
}

#[test]
fn a_text_fix_asked_nothing_changes_no_text_node_and_each_setting_is_seen() {
    let settings = || Settings {
        rules: Vec::new(),
        conversion: None,
        quotes: None,
        typography: Typography::Off,
    };
    let node = |f: &TextFix, t: &str| f.text_node(t, file(), None, &mut Clock::default());
    let none = TextFix::new(settings());
    assert!(none.changes_nothing());
    assert_eq!(node(&none, "广告“开放...”").unwrap(), None);
    let each = [
        Settings {
            rules: vec![rule("广告", "", Scope::Text)],
            ..settings()
        },
        Settings {
            conversion: Conversion::named("s2tw"),
            ..settings()
        },
        Settings {
            quotes: Some(Quotes::Corner),
            ..settings()
        },
        Settings {
            typography: Typography::Cjk { japanese: false },
            ..settings()
        },
    ];
    for s in each {
        let f = TextFix::new(s);
        assert!(!f.changes_nothing());
        assert!(node(&f, "广告“开放...”").unwrap().is_some());
    }
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
         cover-alt = \"封面：开放\"\n[[chapters]]\nfile = \"Cargo.toml\"\n",
        Path::new(env!("CARGO_MANIFEST_DIR")),
        Path::new("metadata.toml"),
    )
    .unwrap();
    let mut info = project.book.clone();
    f.conversion().unwrap().metadata(&mut info);
    assert_eq!(info.title, "開放");
    assert_eq!(info.authors[0].name, "羅貫中");
    assert_eq!(info.description.as_deref(), Some("簡介"));
    assert_eq!(info.subjects, ["歷史"]);
    assert_eq!(info.series.unwrap().name, "三國");
    assert_eq!(info.cover_alt.as_deref(), Some("封面：開放"));
    assert_eq!(info.language, "zh-TW");
}

#[test]
fn the_stage_off_changes_nothing_and_borrows() {
    let f = TextFix::off();
    let text = "他说,好...\n正文 第一回\n";
    assert!(matches!(
        f.text_file(text, file(), &AUTO, true, None).unwrap(),
        Cow::Borrowed(_)
    ));
    assert_eq!(f.title("甲,乙", None, None).unwrap(), "甲,乙");
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
        f.text_file(text, file(), &AUTO, false, None).unwrap(),
        "    千古蓼埋玉地，落花啼鸟总关愁。\n"
    );
}

/// A line for each alternative of each rule of the `web-novel` preset, as downloads write
/// them.
const PRESET_SAMPLES: [&str; 51] = [
    "甲。天涯在线书库《www.tianyabook.com》",
    "版权声明：本站所有电子书均来自网络",
    "本站所有小说均由网友提供，仅供学习交流",
    "仅供读者预览，请在下载24小时内删除",
    "不得用作商业用途",
    "请购买正版支持作者",
    "本书版权归作者所有",
    "如果侵犯您的版权，我们将立即删除",
    "本书来自某某，用户上传",
    "TXT全集下载",
    "电子书免费下载",
    "请访问 http://example.org 阅读",
    "请收藏本站：www.biquge.la",
    "手机阅读 m.example.cn",
    "小说网 example.info 更新最快",
    "首发 foo-bar.tw",
    "网址：ex.me",
    "欢迎光临 a.cc",
    "书城 x.co",
    "最快更新 y.net",
    "https://example.com/book/1.html",
    "【www.example.com】",
    "天才一秒记住本站地址",
    "记住本站域名",
    "请记住本书首发域名",
    "最新网址：无弹窗",
    "笔趣阁 顶点小说 百度搜索",
    "本站域名变更",
    "本章未完，请点击下一页继续阅读",
    "（本章完）",
    "点击下一页继续阅读",
    "------章节内容开始-------",
    "正文开始",
    "用户上传之内容结束",
    "更新时间:2007-11-16 7:55:51 本章字数:4804",
    "发布时间：2020年1月",
    "本章字数：3000",
    "--------\n\n=-=-=-=-=-",
    "________\n**********",
    "锟斤拷锟斤拷",
    "烫烫烫烫",
    "屯屯屯",
    "坏\u{FFFD}字\u{E001}",
    "零\u{200B}宽\u{2060}字\u{FEFF}",
    "正文 第一回 宴桃园",
    "他推开门ｗωｗ奇Qisuu書com网，走了进去。",
    "他是如何走向巅峰，请看《仙逆》详细信息请查阅:http://www.zhuaji.org/",
    "☆☆☆正文结束[75txt.com];更多章节请查看尾部网址☆☆☆",
    "中国手机Txt电子书",
    "Txt66.com",
    "喜书网免费小说在线阅读",
];

#[test]
fn a_preset_rule_is_tried_on_every_text_it_matches() {
    // Each alternative of each preset rule, and the download fixture's lines: wherever a
    // rule matches, the strings it needs found it.
    let lines = PRESET_SAMPLES;
    let fixture = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/web-novel/青锋录.txt"),
    )
    .unwrap();
    let (fixture, _, _) = encoding_rs::GB18030.decode(&fixture);
    let rules = TextFix::preset("web-novel").unwrap();
    let filter = Prefilter::new(&rules);
    let mut tried = vec![0; rules.len()];
    for text in lines.iter().copied().chain(fixture.lines()) {
        let candidates = filter.candidates(text);
        for (i, r) in rules.iter().enumerate() {
            if !r.all_edits(text).is_empty() {
                assert!(candidates.contains(&i), "rule {i} on {text:?}");
                tried[i] += 1;
            }
        }
    }
    // Every rule matched some line; all but two of them (characters) name what they need
    assert!(tried.iter().all(|&n| n > 0), "{tried:?}");
    // (and the disguised addresses', which finds its own candidates).
    assert_eq!(rules.iter().filter(|r| r.needs.is_empty()).count(), 3);
    // A text with none of the strings is searched for none of those rules.
    let plain = filter.candidates("滚滚长江东逝水，浪花淘尽英雄。");
    assert!(
        plain.iter().all(|&i| rules[i].needs.is_empty()),
        "{plain:?}"
    );
}

#[test]
fn chained_rules_may_make_a_text_at_most_four_times_as_long() {
    let doubling = || rule("甲", "$0$0", Scope::Text);
    let f = fix(vec![doubling(), doubling()], Typography::Off);
    let text = "甲".repeat(1000);
    let out = f.text_file(&text, file(), &AUTO, false, None).unwrap();
    assert_eq!(out.len(), 4 * text.len());
    let f = fix(vec![doubling(), doubling(), doubling()], Typography::Off);
    let e = f.text_file(&text, file(), &AUTO, false, None).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("rule `甲` (metadata.toml:1)"), "{message}");
    assert!(message.contains("budget of 13024 bytes"), "{message}");
    assert!(e.diagnostic().code == crate::diagnostic::Code::Budget);
    // A single match repeated many times is refused before it is written.
    let f = fix(
        vec![rule("(?s).+", &"$0".repeat(100), Scope::Text)],
        Typography::Off,
    );
    assert!(
        f.text_node(&text, file(), None, &mut Clock::default())
            .is_err()
    );
}

#[test]
fn a_pattern_past_fancy_regexs_backtracking_limit_is_an_error_not_a_silent_stop() {
    let f = fix(
        vec![rule("(?:(?=a)(?:a|aa))+x", "", Scope::Text)],
        Typography::Off,
    );
    let e = f
        .text_file(&"a".repeat(60), file(), &AUTO, false, None)
        .unwrap_err();
    assert!(e.to_string().contains("backtracked more than"), "{e}");
}

#[test]
fn the_web_novel_preset_finds_addresses_in_any_case_width_or_disguise() {
    // Issue 26, item 5: real downloads write the site in other cases and widths, and splice
    // look-alike watermarks into sentences; the sentence around stays.
    let f = TextFix::new(Settings {
        rules: TextFix::preset("web-novel").unwrap(),
        conversion: None,
        quotes: None,
        typography: Typography::Off,
    });
    let text = "第一章 风起\n\
                Www.Qisuu.Com\n\
                请访问Www.Qisuu.Com阅读\n\
                ｗｗｗ．ｑｉｓｕｕ．ｃｏｍ\n\
                手机阅读：ｍ．ｑｉｓｕｕ．ｃｏｍ\n\
                他推开门ｗωｗ奇Qisuu書com网，走了进去。\n\
                这一夜𝒊𝒏𝙣𝒓𝙚𝒂𝒅.𝙘𝒐𝙢风很大。\n\
                他打开了google.com看新闻。\n";
    let out = f.text_file(text, file(), &AUTO, true, None).unwrap();
    assert_eq!(
        out,
        "第一章 风起\n他推开门，走了进去。\n这一夜风很大。\n他打开了google.com看新闻。\n"
    );
}

#[test]
fn the_web_novel_preset_removes_the_footers_and_banners_downloads_end_and_start_with() {
    // Classes left after the preset on real downloads: a web address framed by an asterisk
    // box's sides (紅樓夢 speedy7), star-framed lines naming the site (仙逆 75txt, 笑傲江湖
    // 早安电子书), a lone bare domain and a short e-book site name (碧血剑 Txt66). An address
    // in dialogue and a sentence that merely holds a domain stay.
    let f = TextFix::new(Settings {
        rules: TextFix::preset("web-novel").unwrap(),
        conversion: None,
        quotes: None,
        typography: Typography::Off,
    });
    let text = "*************************\n\
                *                       *\n\
                *  精緻甲版 - 特別奉獻  *\n\
                *  http://www.speedy7.com/cn/redmansions.htm  *\n\
                *  此電子檔可隨意傳播。 *\n\
                *************************\n\
                \n\
                第一回 甲\n\
                “去www.cassell.org看看。”他说。\n\
                ☆☆☆正文结束[75txt.com];更多章节请查看尾部网址☆☆☆ \n\
                ☆早安电子书☆\n\
                中国手机Txt电子书\n\
                喜书网免费小说在线阅读\n\
                更多更新免费电子书请关注www.wmtxt.com\n\
                \n\
                Txt66.com\n\
                他说google.com不好用。\n";
    let out = f.text_file(text, file(), &AUTO, true, None).unwrap();
    assert_eq!(
        out,
        "*************************\n\
         *                       *\n\
         *  精緻甲版 - 特別奉獻  *\n\
         *  此電子檔可隨意傳播。 *\n\
         *************************\n\
         \n\
         第一回 甲\n“去www.cassell.org看看。”他说。\n\n他说google.com不好用。\n"
    );
}

#[test]
fn code_gets_the_conversion_alone_unless_turned_off() {
    let rules = vec![rule("规则", "", Scope::Text)];
    let converting = TextFix::new(Settings {
        rules,
        conversion: Conversion::named("s2tw"),
        quotes: Some(Quotes::Corner),
        typography: Typography::Cjk { japanese: false },
    });
    // Converted; the rule, the corner quotes and CJK typography leave code alone.
    assert_eq!(
        converting.code_node("// 转码“规则”,见...").as_deref(),
        Some("// 轉碼“規則”,見...")
    );
    assert_eq!(converting.code_node("let a = 1;"), None);
    let kept = converting.clone().converting_code(false);
    assert_eq!(kept.code_node("// 转码"), None);
    assert_eq!(fix(Vec::new(), Typography::Off).code_node("// 转码"), None);
}
