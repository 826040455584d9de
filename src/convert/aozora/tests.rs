use super::*;

const SAMPLE: &str = "こころ\n夏目漱石\n\n-------------------------------------------------------\n【テキスト中に現れる記号について】\n\n《》：ルビ\n（例）私《わたくし》\n-------------------------------------------------------\n\n［＃改ページ］\n［＃５字下げ］上　先生と私［＃「上　先生と私」は大見出し］\n\n［＃５字下げ］一［＃「一」は中見出し］\n\n　私《わたくし》はその人を常に先生と呼んでいた。\n「そうですか」\n\n［＃ここから２字下げ］\n引用の行\n［＃ここで字下げ終わり］\n［＃ページの左右中央］\n［＃５字下げ］二［＃「二」は中見出し］\n\n　本文［＃地付き］署名\n\n\n\n底本：「こころ」新潮文庫、新潮社\n入力：某\n";

#[test]
fn an_aozora_text_is_known_by_its_legend_or_its_annotations() {
    assert!(is_aozora(SAMPLE));
    assert!(is_aozora("本文［＃傍点］強く［＃傍点終わり］"));
    assert!(!is_aozora("普通の本文。《红楼梦》\n第一章\n"));
    assert!(!is_aozora("一つだけ［＃注］"));
}

#[test]
fn headings_readings_layout_and_the_footer() {
    let t = translate(SAMPLE);
    let html = &t.html;
    assert!(
        html.starts_with("<p class=\"ao-title\">こころ</p>\n<p class=\"ao-head\">夏目漱石</p>\n"),
        "{html}"
    );
    assert!(!html.contains("テキスト中に現れる記号"));
    assert!(t.legend > 10, "{}", t.legend);
    assert!(
        html.contains("<h1 class=\"ao-newpage\">上　先生と私</h1>"),
        "{html}"
    );
    assert!(
        html.contains("<h2>一</h2>") && html.contains("<h2>二</h2>"),
        "{html}"
    );
    assert_eq!((t.deepest, t.headings), (2, 3));
    assert!(
        html.contains("<p><ruby>私<rt>わたくし</rt></ruby>はその人を常に先生と呼んでいた。</p>")
    );
    assert!(
        html.contains("<p class=\"ao-flush\">「そうですか」</p>"),
        "{html}"
    );
    assert!(
        html.contains("<p class=\"jisage_2 ao-flush\">引用の行</p>"),
        "{html}"
    );
    assert!(
        html.contains("<p>本文</p>\n<p class=\"chitsuki_0 ao-flush\">署名</p>"),
        "{html}"
    );
    for mark in ["《", "》", "｜", "［＃", "底本"] {
        assert!(!html.contains(mark), "{mark} in {html}");
    }
    assert_eq!(
        t.colophon.as_deref(),
        Some("<p>底本：「こころ」新潮文庫、新潮社</p>\n<p>入力：某</p>\n")
    );
    assert_eq!(t.report.unsupported.get("ページの左右中央"), Some(&1));
    assert_eq!(t.removed, 1);
}

#[test]
fn a_heading_block_and_a_shared_heading() {
    let text = "題\n\n［＃ここから中見出し］\n第一\n出発\n［＃ここで中見出し終わり］\n本文\n窓の見出し［＃「窓の見出し」は窓小見出し］続く文\n";
    let t = translate(text);
    assert!(t.html.contains("<h2>第一\u{3000}出発</h2>"), "{}", t.html);
    assert!(
        t.html
            .contains("<h3>窓の見出し</h3>\n<p class=\"ao-flush\">続く文</p>"),
        "{}",
        t.html
    );
    assert_eq!(t.deepest, 3);
}

#[test]
fn web_novel_paragraphs_get_their_readings_and_emphasis() {
    assert_eq!(
        paragraph_xhtml("｜魔法《まほう》と《《秘密》》"),
        "<ruby>魔法<rt>まほう</rt></ruby>と<em class=\"sesame_dot\">秘密</em>"
    );
    assert_eq!(paragraph_xhtml("读《红楼梦》(上)"), "读《红楼梦》(上)");
    assert_eq!(
        paragraph_xhtml("_what_ & 《x》"),
        "<em>what</em> &amp; 《x》"
    );
}

#[test]
fn page_break_lines_of_web_novels() {
    for line in ["［newpage］", "[newpage]", "【改ページ】", " [NEWPAGE] "] {
        assert!(is_page_break(line), "{line}");
    }
    assert!(!is_page_break("newpage") && !is_page_break("［改ページしない］"));
    assert_eq!(page_break_letters("a\n［newpage］\nb\n【改ページ】\n"), 11);
    let t = translate("題\n［＃傍点］x［＃傍点終わり］\n本文\n[newpage]\n次\n");
    assert!(
        t.html.contains("<p class=\"ao-flush ao-newpage\">次</p>"),
        "{}",
        t.html
    );
}

/// Whether `text` is Aozora's, read the slow way: every line split, the annotations counted.
fn is_aozora_reading_everything(text: &str) -> bool {
    if legend(&lines(text)).is_some() {
        return true;
    }
    let notes = text.matches("［＃").count();
    notes >= 2 || (notes == 1 && text.lines().any(|l| l.starts_with("底本：")))
}

#[test]
fn the_quick_reading_of_is_aozora_agrees_with_reading_everything() {
    let rule = "-".repeat(20);
    let legend_at = |before: usize, inside: usize| {
        let lines = "本文\n".repeat(before);
        let body = "《》：ルビ\n".repeat(inside);
        format!("{lines}{rule}\n【テキスト中に現れる記号について】\n{body}{rule}\n本文\n")
    };
    let texts = [
        SAMPLE.to_string(),
        legend_at(0, 2),
        legend_at(39, 78),
        legend_at(39, 79),
        legend_at(40, 2),
        legend_at(39, 200),
        "本文［＃傍点］".to_string(),
        "本文［＃傍点］\n底本：某\n".to_string(),
        "普通的正文。\n".repeat(300),
    ];
    for text in &texts {
        assert_eq!(
            is_aozora(text),
            is_aozora_reading_everything(text),
            "{text}"
        );
    }
    // Both kinds of answer are among them.
    assert!(texts.iter().any(|t| is_aozora(t)) && texts.iter().any(|t| !is_aozora(t)));
}
