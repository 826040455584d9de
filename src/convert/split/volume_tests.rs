//! Tests of a book's volumes and repeated headings decided by the whole file, each on a small
//! text imitating a real download (named in the test's doc).

use super::*;

/// A chapter's text: a line of prose long enough not to be a heading.
const TEXT: &str =
    "　　他说了一句很长的话，又说了一句很长的话，然后走了出去，再也没有回来，只留下一盏灯。";

/// `(kind, title)` of every heading, `V`/`C` for the kind and `*` after an implied volume.
fn outline(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let found = split(&lines, &SplitMode::Auto);
    found
        .sections
        .iter()
        .filter_map(|s| s.heading.as_ref())
        .map(|h| {
            let kind = match h.kind {
                HeadingKind::Volume => "V",
                HeadingKind::Chapter => "C",
            };
            let implied = if implied(h) { "*" } else { "" };
            format!("{kind}{implied} {}", h.title)
        })
        .collect()
}

/// Whether a heading is a volume implied by the numbering.
fn implied(h: &Heading) -> bool {
    h.implied
}

/// Headings, each followed by two lines of text.
fn book(headings: &[&str]) -> String {
    let mut text = String::new();
    for h in headings {
        text.push_str(h);
        text.push('\n');
        for _ in 0..2 {
            text.push_str(TEXT);
            text.push('\n');
        }
    }
    text
}

/// 仙逆: `第十三卷 灯火阑珊 第2040章 …` on every chapter line is one volume; 邪气凛然 writes its
/// part two ways (`第二部【青云路】 第一章`, `第二部 第二章`). A volume on a line of its own
/// (盗墓笔记's `第一季 第二卷`) stays a volume each time.
#[test]
fn a_volume_repeated_on_every_chapter_line_is_one_volume() {
    let text = book(&[
        "第十三卷 灯火阑珊 第2040章 不宣于口！",
        "第十三卷 灯火阑珊 第2041章 明天",
        "第十三卷 灯火阑珊 第2042章 回首",
    ]);
    assert_eq!(
        outline(&text),
        [
            "V 第十三卷 灯火阑珊",
            "C 第2040章 不宣于口！",
            "C 第十三卷 灯火阑珊 第2041章 明天",
            "C 第十三卷 灯火阑珊 第2042章 回首",
        ]
    );
    let parts = book(&[
        "第二部【青云路】 第一章 【委任】（上）",
        "第二部【青云路】 第二章 【过场】",
        "第二部 第三章 【并非无情】",
    ]);
    let volumes = outline(&parts)
        .iter()
        .filter(|h| h.starts_with('V'))
        .count();
    assert_eq!(volumes, 1, "{:?}", outline(&parts));
    let seasons = book(&[
        "第一季 第一卷 七星鲁王",
        "第一章 血尸",
        "第二章 尸洞",
        "第一季 第二卷 怒海潜沙",
        "第一章 蛇眉铜鱼",
        "第二章 出海",
    ]);
    let volumes = outline(&seasons)
        .iter()
        .filter(|h| h.starts_with('V'))
        .count();
    assert_eq!(volumes, 2, "{:?}", outline(&seasons));
}

/// 明朝那些事儿 marks only some volumes (`第壹卷`, `第陆卷`); the others show where `第一章`
/// starts over, under a number and a title on lines of their own (`贰` / `朱棣篇`) or under
/// nothing at all.
#[test]
fn numbering_that_starts_over_implies_a_volume() {
    let mut text = book(&["第壹卷", "第一章 童年", "第二章 乞丐", "第三章 从军"]);
    text.push_str("\n贰\n\n朱棣篇\n\n");
    text.push_str(&book(&["第一章 帝王的烦恼", "第二章 削藩"]));
    text.push_str(&book(&["第一章 有冤报冤", "第二章 土木堡"]));
    text.push_str(&book(&["第肆卷", "第一章 皇帝很脆弱", "第二章 大礼议"]));
    assert_eq!(
        outline(&text),
        [
            "V 第壹卷",
            "C 第一章 童年",
            "C 第二章 乞丐",
            "C 第三章 从军",
            "V* 贰 朱棣篇",
            "C 第一章 帝王的烦恼",
            "C 第二章 削藩",
            "V* 第叁卷",
            "C 第一章 有冤报冤",
            "C 第二章 土木堡",
            "V 第肆卷",
            "C 第一章 皇帝很脆弱",
            "C 第二章 大礼议",
        ]
    );
}

/// 邪气凛然 heads its second part (`第二部【青云路】`) but not its first; 龙族 heads none of
/// its books, whose runs of chapters start with a `序幕` and end with a `尾声`.
#[test]
fn the_first_run_of_chapters_gets_a_volume_when_later_ones_have_one() {
    let text = book(&[
        "序章",
        "第一章 【混在夜总会的日子】",
        "第二章 【出来混，要讲规矩】",
        "第二部【青云路】 第一章 【委任】",
        "第二部 第二章 【过场】",
    ]);
    assert_eq!(
        outline(&text),
        [
            "V* 第一部",
            "C 序章",
            "C 第一章 【混在夜总会的日子】",
            "C 第二章 【出来混，要讲规矩】",
            "V 第二部【青云路】",
            "C 第一章 【委任】",
            "C 第二部 第二章 【过场】",
        ]
    );
    let runs = book(&[
        "序 幕 白帝城",
        "第一幕 卡塞尔之门",
        "第二幕 自由一日",
        "尾声",
        "序 幕 雨落狂流之暗",
        "第一幕 生日蛋糕",
        "第二幕 龙王",
    ]);
    assert_eq!(
        outline(&runs),
        [
            "V* 第一卷",
            "C 序 幕 白帝城",
            "C 第一幕 卡塞尔之门",
            "C 第二幕 自由一日",
            "C 尾声",
            "V* 第二卷",
            "C 序 幕 雨落狂流之暗",
            "C 第一幕 生日蛋糕",
            "C 第二幕 龙王",
        ]
    );
}

/// 邪气凛然 repeats 86 headings in a second form a few lines below (`第五章 【很有“创意”的
/// 骗子】` then a bare `第五章`; two titles for one number with nothing between); 祖训 has one
/// update title for two chapters (`第一章庶女代嫁 第二章中毒`) whose headings follow below.
#[test]
fn a_heading_repeated_in_a_second_form_counts_once() {
    let text = "第四章 【痛并快乐的滋味】\n正文。\n\n第五章 【很有“创意”的骗子】\n\n第五章\n\n\
                正文。\n第六章 【乔乔调戏我……】\n\n第六章乔乔和我\n正文。\n\
                第七章 【好人，我配么？】\n正文。\n";
    assert_eq!(
        outline(text),
        [
            "C 第四章 【痛并快乐的滋味】",
            "C 第五章 【很有“创意”的骗子】",
            "C 第六章乔乔和我",
            "C 第七章 【好人，我配么？】",
        ]
    );
    let update = [
        "第一章庶女代嫁 第二章中毒",
        "更新时间2010-1-7 14:12:12  字数：3315",
        "",
        "\u{3000}祖训",
        "\u{3000}\u{3000}第一章：庶女代嫁",
        "正文。",
        "\u{3000}\u{3000}第二章：中毒",
        "正文。",
        "第三章 元帕",
        "正文。",
    ]
    .join("\n");
    assert_eq!(
        outline(&update),
        ["C 第一章：庶女代嫁", "C 第二章：中毒", "C 第三章 元帕"]
    );
}

/// 张居正 opens each volume on its first chapter's line, differently each time
/// (`第一卷：木兰歌 第一回…`, `张居正2－水龙吟 第一回…`, `张居正3－金缕曲第 一 回…` repeated
/// without the name below a watermark), ends one with `第三卷终`, and lists its volumes as
/// `卷一：木兰歌` in a contents list at the top.
#[test]
fn a_volume_name_on_its_first_chapter_line_opens_the_volume() {
    let mut text = String::from(
        "简介和目录\n卷一：木兰歌\n第一回　病皇帝早朝生妄症\n第二回　述病情太医藏隐曲\n第三回　主事钻营买通名妓\n卷二：水龙吟\n第一回　邸报中连篇诳鬼话\n\n",
    );
    text.push_str(&book(&[
        "第一卷：木兰歌 第一回　病皇帝早朝生妄症",
        "第二回　述病情太医藏隐曲",
        "第三回　主事钻营买通名妓",
        "张居正2－水龙吟 第一回　邸报中连篇诳鬼话",
        "第二回　说娈童",
    ]));
    text.push_str("第三卷终\n\n张居正3－金缕曲第 一 回 李国舅弄玄扮妖道\n\n小..说..t.xt..天.堂\n第 一 回 李国舅弄玄扮妖道\n");
    text.push_str(TEXT);
    text.push('\n');
    text.push_str(&book(&["第 二 回 挂诗匾弄玄为邀宠"]));
    assert_eq!(
        outline(&text),
        [
            "V 第一卷：木兰歌",
            "C 第一回 病皇帝早朝生妄症",
            "C 第二回 述病情太医藏隐曲",
            "C 第三回 主事钻营买通名妓",
            "V 张居正2－水龙吟",
            "C 第一回 邸报中连篇诳鬼话",
            "C 第二回 说娈童",
            "V 张居正3－金缕曲",
            "C 第 一 回 李国舅弄玄扮妖道",
            "C 第 二 回 挂诗匾弄玄为邀宠",
        ]
    );
}

/// A hostile file: 120 000 heading lines that start over every four lines and repeat one
/// volume on two of each four, split in one pass (a hang guard, with no time limit of its
/// own): an implied volume per restart, and the repeated volume opened once per run.
#[test]
fn many_restarts_and_repeated_volumes_split_in_one_pass() {
    let mut text = String::new();
    for k in 0..30_000 {
        text.push_str(&book(&[&format!("第一章 甲{k}"), "第二章 乙"]));
        text.push_str(&book(&["第一卷 灯火 第三章 丙", "第一卷 灯火 第四章 丁"]));
    }
    let lines: Vec<&str> = text.lines().collect();
    let found = split(&lines, &SplitMode::Auto);
    let volumes: Vec<&Heading> = (found.sections.iter())
        .filter_map(|s| s.heading.as_ref())
        .filter(|h| h.kind == HeadingKind::Volume)
        .collect();
    let implied = volumes.iter().filter(|h| implied(h)).count();
    // Each run of 第一章, 第二章 under an implied volume; each 第一卷 opens one, once.
    assert_eq!((volumes.len(), implied), (2 * 30_000, 30_000));
}
