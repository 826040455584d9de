//! A Japanese book's title and author from what the download says of itself.
//!
//! - An Aozora Bunko file opens with its header block: the lines before the first blank line
//!   (or the `-----` ruler of the notation legend) are, in order, the title, an optional
//!   subtitle or original title, the author, and optional translator or editor lines (`…訳`,
//!   `…編`, `…校訂`), as Aozora's input manual lays them out. It is read only when the file is
//!   Japanese (it has kana) and written in Aozora's format (the legend, a `底本：` line, or a
//!   `［＃…］` annotation): a Chinese download's first two lines are not a title and an author.
//! - A web novel's file name: `[作者] タイトル.txt`, `【作者】タイトル.txt`, `タイトル - 作者.txt`
//!   (split by [`super::names`]), and a narou code (`n1234ab`, `n1234ab_タイトル`) which names
//!   nothing and is dropped from the title.

/// What an Aozora header block says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AozoraHeader {
    /// The first line.
    pub title: String,
    /// The line between the title and the author, when there is one.
    pub subtitle: Option<String>,
    /// The author's line, without a romanised name after it.
    pub author: Option<String>,
    /// Translators and editors (`二葉亭四迷訳` -> `二葉亭四迷`), with their MARC role.
    pub contributors: Vec<(String, &'static str)>,
}

/// The longest line a header block holds, in characters.
const LONGEST_LINE: usize = 60;

/// Suffixes of a translator's or editor's line, longest first, with the MARC relator code.
const ROLES: [(&str, &str); 9] = [
    ("訳・注", "trl"),
    ("訳注", "trl"),
    ("翻訳", "trl"),
    ("校訂", "edt"),
    ("編訳", "trl"),
    ("編集", "edt"),
    ("訳", "trl"),
    ("譯", "trl"),
    ("編", "edt"),
];

/// Whether `text` is Japanese in Aozora Bunko's format: kana, and the notation legend, a
/// `底本：` line or a `［＃` annotation.
pub fn is_aozora(text: &str) -> bool {
    let kana = text
        .chars()
        .take(4000)
        .any(|c| matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}'));
    kana && (text.contains("【テキスト中に現れる記号について】")
        || text.contains("\n底本：")
        || text.contains("［＃"))
}

/// The header block of an Aozora Bunko file; None when `text` is not one or its first lines
/// are not a header (a sentence, an annotation, an indented paragraph, too many lines).
pub fn aozora_header(text: &str) -> Option<AozoraHeader> {
    if !is_aozora(text) {
        return None;
    }
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut lines = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        // A blank line, the legend's ruler, or an annotation line (`［＃区切り線］` in a web
        // novel saved by narou.rb) ends the block.
        if line.is_empty() || line.starts_with("-----") || line.starts_with("［＃") {
            break;
        }
        lines.push(line);
        if lines.len() > 6 {
            return None;
        }
    }
    let header_line = |l: &&str| {
        l.chars().count() <= LONGEST_LINE
            && !l.starts_with(['　', ' ', '［', '「', '【'])
            && !l.contains(['。', '《'])
    };
    if lines.is_empty() || !lines.iter().all(header_line) {
        return None;
    }
    let mut contributors = Vec::new();
    while lines.len() > 1 {
        let last = lines[lines.len() - 1];
        let Some((name, role)) = role_line(last) else {
            break;
        };
        contributors.insert(0, (name, role));
        lines.pop();
    }
    let title = lines[0].to_string();
    let author = (lines.len() > 1).then(|| author_name(lines[lines.len() - 1]));
    let subtitle = (lines.len() > 2).then(|| lines[1..lines.len() - 1].join(" "));
    Some(AozoraHeader {
        title,
        subtitle,
        author,
        contributors,
    })
}

/// A translator's or editor's line (`二葉亭四迷訳`, `森鴎外 訳`): the name and the role.
fn role_line(line: &str) -> Option<(String, &'static str)> {
    let (name, role) = ROLES
        .iter()
        .find_map(|(suffix, role)| line.strip_suffix(suffix).map(|n| (n, *role)))?;
    let name = name.trim_end_matches([' ', '　', '・']).trim();
    let n = name.chars().count();
    ((1..=20).contains(&n)).then(|| (name.to_string(), role))
}

/// An author's line without the romanised name Aozora adds after a foreign author's
/// (`イワン・ツルゲーネフ　Ivan Turgenev` -> `イワン・ツルゲーネフ`).
fn author_name(line: &str) -> String {
    if let Some((name, rest)) = line.split_once('　')
        && !name.trim().is_empty()
        && rest.chars().all(|c| c.is_ascii() || c == '　')
    {
        return name.trim().to_string();
    }
    line.trim().to_string()
}

/// The title and author in a Japanese web novel's file name: `[作者] タイトル`,
/// `【作者】タイトル`, `n1234ab タイトル` (a narou code, dropped). None when the name has none
/// of these forms (`タイトル - 作者` is read by [`super::names`]).
pub fn web_novel_name(stem: &str) -> Option<(String, Option<String>)> {
    let stem = stem.trim();
    if !stem
        .chars()
        .any(|c| matches!(c, '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}'))
    {
        return None;
    }
    for (open, close) in [('[', ']'), ('【', '】'), ('［', '］')] {
        if let Some(rest) = stem.strip_prefix(open)
            && let Some((author, title)) = rest.split_once(close)
        {
            let (author, title) = (author.trim(), without_narou_code(title.trim()));
            let n = author.chars().count();
            if (1..=20).contains(&n) && !title.is_empty() {
                return Some((title.to_string(), Some(author.to_string())));
            }
        }
    }
    let title = without_narou_code(stem);
    (title != stem && !title.is_empty()).then(|| (title.to_string(), None))
}

/// `stem` without a leading narou code (`n1234ab`, then `_`, `-` or a space): the site's
/// number for the novel, not its name.
fn without_narou_code(stem: &str) -> &str {
    let Some(rest) = stem.strip_prefix(['n', 'N']) else {
        return stem;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after = &rest[digits..];
    let letters = after.len()
        - after
            .trim_start_matches(|c: char| c.is_ascii_lowercase())
            .len();
    if !(4..=5).contains(&digits) || !(1..=2).contains(&letters) {
        return stem;
    }
    let after = &after[letters..];
    let title = after.trim_start_matches(['_', '-', ' ', '　']);
    match after.is_empty() || title.len() < after.len() {
        true => title,
        false => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEGEND: &str = "\n-------------------------------------------------------\n【テキスト中に現れる記号について】\n\n《》：ルビ\n-------------------------------------------------------\n\n　本文《ほんぶん》です。\n";

    fn header(first: &str) -> Option<AozoraHeader> {
        aozora_header(&format!("{first}{LEGEND}"))
    }

    #[test]
    fn title_and_author_are_the_first_two_lines() {
        let h = header("羅生門\n芥川龍之介\n").unwrap();
        assert_eq!(h.title, "羅生門");
        assert_eq!(h.author.as_deref(), Some("芥川龍之介"));
        assert_eq!((h.subtitle, h.contributors.len()), (None, 0));
    }

    /// The real layout of a translation (あいびき): title, author with the romanised name,
    /// translator.
    #[test]
    fn a_translator_line_is_a_contributor_and_the_romanised_name_is_dropped() {
        let h = header("あいびき\nイワン・ツルゲーネフ　Ivan Turgenev\n二葉亭四迷訳\n").unwrap();
        assert_eq!(h.title, "あいびき");
        assert_eq!(h.author.as_deref(), Some("イワン・ツルゲーネフ"));
        assert_eq!(h.contributors, vec![("二葉亭四迷".to_string(), "trl")]);
    }

    #[test]
    fn a_line_between_title_and_author_is_the_subtitle() {
        let h = header("吾輩は猫である\n――ある名もなき猫の記録\n夏目漱石\n").unwrap();
        assert_eq!(h.subtitle.as_deref(), Some("――ある名もなき猫の記録"));
        assert_eq!(h.author.as_deref(), Some("夏目漱石"));
    }

    /// narou.rb's layout: title, author, then a ruler annotation with no blank line before.
    #[test]
    fn a_narou_download_header_ends_at_its_ruler() {
        let text = "無職転生\n理不尽な孫の手\n［＃区切り線］\nあらすじ：\n　本文です。\n";
        let h = aozora_header(text).unwrap();
        assert_eq!(
            (h.title.as_str(), h.author.as_deref()),
            ("無職転生", Some("理不尽な孫の手"))
        );
    }

    #[test]
    fn without_aozora_evidence_or_kana_nothing_is_read() {
        // A Chinese download: two short lines, a blank, text; no kana, no notation.
        assert_eq!(
            aozora_header("三国演义\n罗贯中\n\n　　第一回［＃］\n"),
            None
        );
        // Japanese, but nothing says Aozora.
        assert_eq!(
            aozora_header("羅生門\n芥川龍之介\n\n　ある日のことである。\n"),
            None
        );
        // Aozora, but the file opens with a paragraph.
        assert_eq!(header("　ある日の暮方の事である。\n"), None);
    }

    #[test]
    fn web_novel_file_names() {
        let pair = |t: &str, a: &str| Some((t.to_string(), Some(a.to_string())));
        assert_eq!(
            web_novel_name("[理不尽な孫の手] 無職転生"),
            pair("無職転生", "理不尽な孫の手")
        );
        assert_eq!(
            web_novel_name("【伏瀬】転生したらスライムだった件"),
            pair("転生したらスライムだった件", "伏瀬")
        );
        assert_eq!(
            web_novel_name("n4830bu_本好きの下剋上"),
            Some(("本好きの下剋上".to_string(), None))
        );
        assert_eq!(web_novel_name("n4830bu"), None);
        assert_eq!(web_novel_name("[精校] 书名"), None);
        assert_eq!(web_novel_name("novel 2024"), None);
        assert_eq!(web_novel_name("[www.site.com] title"), None);
    }
}
