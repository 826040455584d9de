//! What one `［＃…］` annotation of Aozora Bunko's 注記一覧 asks for.
//!
//! An annotation either names text before it (`［＃「吾輩」に傍点］`, `［＃「一」は中見出し］`),
//! opens and closes a run in the line (`［＃傍点］…［＃傍点終わり］`), opens and closes a block
//! of lines (`［＃ここから２字下げ］` … `［＃ここで字下げ終わり］`), sets the layout of its line
//! (`［＃３字下げ］`, `［＃地付き］`, `［＃地から２字上げ］`), breaks the page (`［＃改ページ］`),
//! places a picture (`［＃挿絵（fig01.png）入る］`) or writes a character (外字, see
//! [`super::gaiji`]). Anything else is [`Note::Unsupported`], named by its kind.

/// An inline style an annotation puts on a run of text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Style {
    /// 傍点 of a kind (`sesame_dot`, `white_circle`…) or 傍線 of a kind (`underline_solid`…):
    /// `<em class="…">`.
    Mark(&'static str),
    /// 太字, 斜体, 縦中横, 罫囲み, 割り注, 横組み…: `<span class="…">`.
    Span(&'static str),
    /// 上付き小文字 / 行右小書き: `<sup>`.
    Sup,
    /// 下付き小文字 / 行左小書き: `<sub>`.
    Sub,
    /// A reading given by an annotation (`［＃「X」に「Y」のルビ］`, `…の注記］`).
    Ruby(String),
    /// A heading: level 1 (大見出し), 2 (中見出し) or 3 (小見出し), and whether it shares its
    /// line with text (同行, 窓).
    Heading(usize, bool),
}

/// One annotation, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A style on the text quoted, which the annotation follows.
    Target(String, Style),
    /// A style from here to its end annotation.
    Start(Style),
    /// The end of a style's run.
    End(Style),
    /// `ここから…`: a block of lines with these settings, and the kinds of the settings not
    /// supported (`横書き`, `中央揃え`).
    Block(Vec<Block>, Vec<String>),
    /// `ここで…終わり`: the end of the block of this kind.
    BlockEnd(BlockKind),
    /// `N字下げ` at the start of a line: the first line's indent and the rest's (`N字下げ、折り返して
    /// M字下げ`, `改行天付き、折り返してM字下げ`).
    Indent(u32, u32),
    /// `地付き` (0) or `地からN字上げ`: the rest of the line set to the foot.
    Foot(u32),
    /// 改ページ, 改丁, 改段, 改見開き.
    PageBreak,
    /// 改行 (inside 割り注).
    LineBreak,
    /// A picture: its file and its caption.
    Picture(String, String),
    /// 外字 named by its number: the character, or the description when the table has none.
    Character(Gaiji),
    /// 返り点 (`［＃レ］`, `［＃一］`) or 送り仮名 (`［＃（ト）］`) of kanbun, as written.
    Kanbun(String, bool),
    /// Anything else, by kind (the words of the annotation without what it quotes).
    Unsupported(String),
}

/// A 外字 annotation read: the character its number names, or (when the table has none, or
/// the annotation gives only a page and line of a dictionary) the description it quotes, which
/// the text then shows in its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gaiji {
    /// The character (or characters) named.
    Found(String),
    /// Not in the table: the annotation's description (`てへん＋劣`).
    Described(String),
}

/// What a block annotation sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// Lines indented `first` (the first line of each paragraph) and `rest` characters.
    Indent(u32, u32),
    /// Lines set to the foot, `n` characters up.
    Foot(u32),
    /// Lines in a style.
    Style(&'static str),
    /// Lines that make one heading of this level.
    Heading(usize),
}

/// The kind a `ここで…終わり` closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// 字下げ.
    Indent,
    /// 地付き, 字上げ.
    Foot,
    /// 太字, 罫囲み… (the class).
    Style(&'static str),
    /// 見出し.
    Heading,
}

/// 傍点 and 傍線 by name, with the class aozora2html gives them.
const MARKS: &[(&str, &str)] = &[
    ("白ゴマ傍点", "white_sesame_dot"),
    ("丸傍点", "black_circle"),
    ("白丸傍点", "white_circle"),
    ("黒三角傍点", "black_up-pointing_triangle"),
    ("白三角傍点", "white_up-pointing_triangle"),
    ("二重丸傍点", "bullseye"),
    ("蛇の目傍点", "fisheye"),
    ("ばつ傍点", "saltire"),
    ("傍点", "sesame_dot"),
    ("二重傍線", "underline_double"),
    ("傍線", "underline_solid"),
    ("鎖線", "underline_dotted"),
    ("破線", "underline_dashed"),
    ("波線", "underline_wave"),
];

/// Styles of runs and blocks that are spans, with their class.
const SPANS: &[(&str, &str)] = &[
    ("太字", "futoji"),
    ("斜体", "shatai"),
    ("縦中横", "tcy"),
    ("罫囲み", "keigakomi"),
    ("割り注", "warichu"),
    ("横組み", "yokogumi"),
    ("キャプション", "caption"),
];

/// Reads the text of one annotation (between `［＃` and `］`).
pub fn read(note: &str) -> Note {
    let note = note.trim();
    if let Some(n) = character(note) {
        return n;
    }
    if let Some(n) = quoted(note) {
        return n;
    }
    if let Some(rest) = note.strip_prefix("ここから") {
        return block(rest);
    }
    if let Some(rest) = note.strip_prefix("ここで") {
        return block_end(rest.trim_end_matches("終わり"));
    }
    if let Some(n) = line_layout(note) {
        return n;
    }
    if let Some(n) = picture(note) {
        return n;
    }
    if let Some(n) = kanbun(note) {
        return n;
    }
    if let Some(name) = note.strip_suffix("終わり")
        && let Some(style) = style(name)
    {
        return Note::End(style);
    }
    match style(note) {
        Some(style) => Note::Start(style),
        None => Note::Unsupported(kind(note)),
    }
}

/// The kind of an unsupported annotation: its words without what it quotes or counts.
fn kind(note: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in note.chars() {
        match c {
            '「' => {
                depth += 1;
                if depth == 1 {
                    out.push_str("「…」");
                }
            }
            '」' => depth -= 1,
            _ if depth > 0 => {}
            c if c.is_ascii_digit() || ('０'..='９').contains(&c) => {
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A 外字 annotation: one with a JIS X 0213 number or a code point.
fn character(note: &str) -> Option<Note> {
    let numbered = note.contains("水準")
        || note.contains("U+")
        || note.contains("u+")
        || (note.contains('、') && note.matches('-').count() >= 2);
    let described = note.contains("ページ数-行数") || note.ends_with("字形");
    if !numbered && !described {
        return None;
    }
    let description = match (note.find('「'), note.rfind('」')) {
        (Some(a), Some(b)) if a < b => note[a + '「'.len_utf8()..b].to_string(),
        _ => note.split('、').next().unwrap_or(note).to_string(),
    };
    Some(Note::Character(match super::gaiji::named(note) {
        Some(found) => Gaiji::Found(found),
        None => Gaiji::Described(description),
    }))
}

/// `「X」に傍点`, `「X」は中見出し`, `「X」に「Y」のルビ`: a style on quoted text.
fn quoted(note: &str) -> Option<Note> {
    let body = note.strip_prefix('「')?;
    let end = closing_quote(body)?;
    let target = body[..end].to_string();
    let rest = &body[end + '」'.len_utf8()..];
    let what = rest
        .strip_prefix("の左に")
        .or_else(|| rest.strip_prefix('に'))
        .or_else(|| rest.strip_prefix('は'))?;
    if let Some(reading) = what.strip_prefix('「') {
        let end = closing_quote(reading)?;
        let tail = &reading[end + '」'.len_utf8()..];
        if matches!(tail, "のルビ" | "の注記") {
            return Some(Note::Target(
                target,
                Style::Ruby(reading[..end].to_string()),
            ));
        }
        return None;
    }
    style(what).map(|s| Note::Target(target, s))
}

/// The byte offset of the `」` that closes the quote `s` starts inside.
fn closing_quote(s: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '「' => depth += 1,
            '」' if depth == 0 => return Some(i),
            '」' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A style by its name in an annotation.
fn style(name: &str) -> Option<Style> {
    if let Some(level) = heading(name) {
        let shared = name.starts_with("同行") || name.starts_with("窓");
        return Some(Style::Heading(level, shared));
    }
    if let Some((_, class)) = MARKS.iter().find(|(n, _)| *n == name) {
        return Some(Style::Mark(class));
    }
    if let Some((_, class)) = SPANS.iter().find(|(n, _)| *n == name) {
        return Some(Style::Span(class));
    }
    match name {
        "上付き小文字" | "行右小書き" => Some(Style::Sup),
        "下付き小文字" | "行左小書き" => Some(Style::Sub),
        _ => size(name).map(Style::Span),
    }
}

/// `N段階大きな文字` / `N段階小さな文字`: the class of that size.
fn size(name: &str) -> Option<&'static str> {
    const BIG: [&str; 3] = ["ao-big-1", "ao-big-2", "ao-big-3"];
    const SMALL: [&str; 3] = ["ao-small-1", "ao-small-2", "ao-small-3"];
    let (n, rest) = number(name)?;
    let steps = (n.clamp(1, 3) - 1) as usize;
    match rest {
        "段階大きな文字" => Some(BIG[steps]),
        "段階小さな文字" => Some(SMALL[steps]),
        _ => None,
    }
}

/// 大見出し 1, 中見出し 2, 小見出し 3, also in their 同行 and 窓 forms.
fn heading(name: &str) -> Option<usize> {
    let name = name
        .strip_prefix("同行")
        .or_else(|| name.strip_prefix("窓"))
        .unwrap_or(name);
    ["大見出し", "中見出し", "小見出し"]
        .iter()
        .position(|h| *h == name)
        .map(|i| i + 1)
}

/// A number written in ASCII or full-width digits (or kanji numerals) at the start of `s`, and
/// what follows it.
fn number(s: &str) -> Option<(u32, &str)> {
    let mut n = 0u32;
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let d = match c {
            '0'..='9' => c as u32 - '0' as u32,
            '０'..='９' => c as u32 - '０' as u32,
            _ => match "〇一二三四五六七八九".chars().position(|k| k == c) {
                Some(d) => d as u32,
                None => break,
            },
        };
        n = n.saturating_mul(10).saturating_add(d);
        end = i + c.len_utf8();
    }
    (end > 0).then(|| (n, &s[end..]))
}

/// `ここから…`: the settings of a block, separated by `、`.
fn block(rest: &str) -> Note {
    let parts: Vec<&str> = rest.split('、').map(str::trim).collect();
    let mut settings = Vec::new();
    let mut unsupported = Vec::new();
    let mut i = 0;
    while i < parts.len() {
        let part = parts[i];
        let fold = parts.get(i + 1).and_then(|p| p.strip_prefix("折り返して"));
        let fold = fold.and_then(|f| number(f).filter(|(_, r)| *r == "字下げ"));
        let first = match part {
            "改行天付き" => Some(0),
            _ => number(part).filter(|(_, r)| *r == "字下げ").map(|(n, _)| n),
        };
        if let Some(first) = first {
            let rest = fold.map_or(first, |(n, _)| n);
            settings.push(Block::Indent(first, rest));
            i += if fold.is_some() { 2 } else { 1 };
            continue;
        }
        if let Some(Note::Foot(n)) = line_layout(part) {
            settings.push(Block::Foot(n));
        } else if let Some(level) = heading(part) {
            settings.push(Block::Heading(level));
        } else if let Some(Style::Span(class) | Style::Mark(class)) = style(part) {
            settings.push(Block::Style(class));
        } else if !part.is_empty() {
            unsupported.push(kind(&format!("ここから{part}")));
        }
        i += 1;
    }
    Note::Block(settings, unsupported)
}

/// `ここで…終わり`: which block it closes.
fn block_end(name: &str) -> Note {
    let kind = match name {
        "字下げ" => BlockKind::Indent,
        "地付き" | "字上げ" => BlockKind::Foot,
        n if heading(n).is_some() => BlockKind::Heading,
        n => match style(n) {
            Some(Style::Span(class) | Style::Mark(class)) => BlockKind::Style(class),
            _ => return Note::Unsupported(kind(&format!("ここで{name}終わり"))),
        },
    };
    Note::BlockEnd(kind)
}

/// The annotations that set their line: `N字下げ`, `地付き`, `地からN字上げ`, breaks.
fn line_layout(note: &str) -> Option<Note> {
    match note {
        "地付き" => return Some(Note::Foot(0)),
        "改ページ" | "改丁" | "改段" | "改見開き" => return Some(Note::PageBreak),
        "改行" => return Some(Note::LineBreak),
        _ => {}
    }
    if let Some(up) = note.strip_prefix("地から") {
        return number(up)
            .filter(|(_, r)| *r == "字上げ")
            .map(|(n, _)| Note::Foot(n));
    }
    let (first, fold) = note.split_once('、').unwrap_or((note, ""));
    let first = match first {
        "改行天付き" => 0,
        _ => number(first).filter(|(_, r)| *r == "字下げ")?.0,
    };
    let rest = match fold.strip_prefix("折り返して") {
        Some(f) => number(f).filter(|(_, r)| *r == "字下げ")?.0,
        None if fold.is_empty() && note != "改行天付き" => first,
        None => return None,
    };
    Some(Note::Indent(first, rest))
}

/// `挿絵（fig01.png、横321×縦450）入る`, `説明（fig.png）入る`: the file and the caption.
fn picture(note: &str) -> Option<Note> {
    let body = note.strip_suffix("入る")?.strip_suffix('）')?;
    let open = body.rfind('（')?;
    let caption = body[..open].trim();
    let inside = &body[open + '（'.len_utf8()..];
    let file = inside.split('、').next()?.trim();
    let image = [".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"]
        .iter()
        .any(|e| file.to_ascii_lowercase().ends_with(e));
    image.then(|| Note::Picture(file.to_string(), caption.to_string()))
}

/// 返り点 (`レ`, `一`, `上レ`, `甲`…) and 送り仮名 in parentheses (`（ト）`).
fn kanbun(note: &str) -> Option<Note> {
    if let Some(kana) = note.strip_prefix('（').and_then(|n| n.strip_suffix('）')) {
        return (!kana.is_empty()).then(|| Note::Kanbun(kana.to_string(), true));
    }
    let marks = "一二三四上中下甲乙丙丁天地人レ";
    let all =
        !note.is_empty() && note.chars().count() <= 3 && note.chars().all(|c| marks.contains(c));
    all.then(|| Note::Kanbun(note.to_string(), false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_styles_name_their_text() {
        assert_eq!(
            read("「吾輩」に傍点"),
            Note::Target("吾輩".into(), Style::Mark("sesame_dot"))
        );
        assert_eq!(
            read("「一」は中見出し"),
            Note::Target("一".into(), Style::Heading(2, false))
        );
        assert_eq!(
            read("「第一」は同行小見出し"),
            Note::Target("第一".into(), Style::Heading(3, true))
        );
        assert_eq!(
            read("「鼻」の左に白丸傍点"),
            Note::Target("鼻".into(), Style::Mark("white_circle"))
        );
        assert_eq!(
            read("「青空」に「あおぞら」のルビ"),
            Note::Target("青空".into(), Style::Ruby("あおぞら".into()))
        );
        assert_eq!(
            read("「29」は縦中横"),
            Note::Target("29".into(), Style::Span("tcy"))
        );
    }

    #[test]
    fn runs_blocks_and_lines() {
        assert_eq!(read("傍点"), Note::Start(Style::Mark("sesame_dot")));
        assert_eq!(read("太字終わり"), Note::End(Style::Span("futoji")));
        assert_eq!(
            read("ここから２字下げ"),
            Note::Block(vec![Block::Indent(2, 2)], vec![])
        );
        assert_eq!(
            read("ここから改行天付き、折り返して１字下げ"),
            Note::Block(vec![Block::Indent(0, 1)], vec![])
        );
        assert_eq!(
            read("ここから４字下げ、横書き、中央揃え、罫囲み"),
            Note::Block(
                vec![Block::Indent(4, 4), Block::Style("keigakomi")],
                vec!["ここから横書き".into(), "ここから中央揃え".into()]
            )
        );
        assert_eq!(
            read("ここで字下げ終わり"),
            Note::BlockEnd(BlockKind::Indent)
        );
        assert_eq!(
            read("ここから中見出し"),
            Note::Block(vec![Block::Heading(2)], vec![])
        );
        assert_eq!(
            read("ここで中見出し終わり"),
            Note::BlockEnd(BlockKind::Heading)
        );
        assert_eq!(read("５字下げ"), Note::Indent(5, 5));
        assert_eq!(read("改行天付き、折り返して１字下げ"), Note::Indent(0, 1));
        assert_eq!(read("２字下げ、折り返して３字下げ"), Note::Indent(2, 3));
        assert_eq!(read("地から３字上げ"), Note::Foot(3));
        assert_eq!(read("地付き"), Note::Foot(0));
        assert_eq!(read("改丁"), Note::PageBreak);
        assert_eq!(read("中見出し"), Note::Start(Style::Heading(2, false)));
    }

    #[test]
    fn pictures_characters_and_the_rest() {
        assert_eq!(
            read("挿絵（fig01.png、横321×縦450）入る"),
            Note::Picture("fig01.png".into(), "挿絵".into())
        );
        assert_eq!(
            read("「てへん＋劣」、第3水準1-84-77"),
            Note::Character(Gaiji::Found("\u{6318}".into()))
        );
        assert_eq!(
            read("「低のへん＋舌」、ページ数-行数"),
            Note::Character(Gaiji::Described("低のへん＋舌".into()))
        );
        assert_eq!(read("レ"), Note::Kanbun("レ".into(), false));
        assert_eq!(read("（ト）"), Note::Kanbun("ト".into(), true));
        assert_eq!(
            read("「旦」は底本では「且」"),
            Note::Unsupported("「…」は底本では「…」".into())
        );
        assert_eq!(
            read("ページの左右中央"),
            Note::Unsupported("ページの左右中央".into())
        );
    }
}
