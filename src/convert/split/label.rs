//! A heading's title keeps everything its line says: nothing the author wrote vanishes.
//!
//! The rules that find a heading look past what stands before it (`警世通言第一卷　俞伯牙…`,
//! `上卷 第一回 …`, `《西游记》 第二回`) and past the decoration around it
//! (`◆ 《陆小凤传奇之金鹏王朝》 第一回　有四条眉毛的人 ◆`), and their titles start at `第`.
//! Once the whole file has decided which lines are headings, [`keep_whole_line`] gives each
//! title back what its line held besides: the label (a book's name, a volume word, a site's
//! word) stays as a visible prefix of the title, so the chapter's heading and its table of
//! contents entry read as the source did. Only pure decoration is left out (`◆`, `===`, `【】`
//! around the line), symbols that carry no letters; the text ledger counts letters and digits,
//! so every one of them reaches the book. A site's word the web-novel preset knows (`正文`)
//! is removed before the split by a cleanup rule, which the ledger counts as such.

use super::auto::{self, Found};

/// Closing brackets and the openers they close, for a decorated line whose title ends with a
/// bracket (`==第一章 风起（上）==` keeps its `）`).
const PAIRS: [(char, char); 8] = [
    ('(', ')'),
    ('（', '）'),
    ('[', ']'),
    ('［', '］'),
    ('【', '】'),
    ('〔', '〕'),
    ('「', '」'),
    ('『', '』'),
];

/// The trimmed line without the decoration around it: a run of decoration (and white space)
/// at its start, and when it had one, the run at its end, but for closing brackets that close
/// what the line opens. A line that does not start with decoration is returned whole.
pub(super) fn undecorated(line: &str) -> &str {
    let line = auto::trim_line(line);
    let decor = |c: char| auto::is_decoration(c) || auto::is_space(c);
    let inner = line.trim_start_matches(decor);
    if inner.len() == line.len() {
        return line;
    }
    let core = inner.trim_end_matches(decor);
    // Give back the closers of brackets left open inside, in order.
    let mut open: Vec<char> = Vec::new();
    for c in core.chars() {
        if let Some(&(o, _)) = PAIRS.iter().find(|(o, _)| *o == c) {
            open.push(o);
        } else if let Some(&(o, _)) = PAIRS.iter().find(|(_, cl)| *cl == c)
            && open.last() == Some(&o)
        {
            open.pop();
        }
    }
    let mut end = core.len();
    for c in inner[core.len()..].chars() {
        let closes = PAIRS
            .iter()
            .any(|&(o, cl)| cl == c && open.last() == Some(&o));
        if !closes {
            break;
        }
        open.pop();
        end += c.len_utf8();
    }
    &inner[..end]
}

/// Gives the headings found on `line` the text of the line they left out: what stands before
/// the first (prefixed to its title) and after the last (appended to its title), decoration
/// around the line aside (see [`undecorated`]). Titles are left as they are when they are not
/// found in the line as written (a pattern's title is the line already).
pub(super) fn keep_whole_line(line: &str, found: &mut [Found]) {
    let text = auto::collapse_spaces(undecorated(line));
    let Some(first) = found.first() else {
        return;
    };
    let Some(start) = text.find(first.title.as_str()) else {
        return;
    };
    if start > 0 {
        found[0].title.insert_str(0, &text[..start]);
    }
    // The first title, label included, now starts the text; the last is found from its end.
    let count = found.len();
    let Some(last) = found.last_mut() else {
        return;
    };
    let from = match count {
        1 => Some(0),
        _ => text.rfind(last.title.as_str()),
    };
    if let Some(from) = from
        && text[from..].starts_with(last.title.as_str())
        && let Some(rest) = text.get(from + last.title.len()..)
    {
        last.title.push_str(rest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(line: &str) -> Vec<String> {
        let mut found = auto::detect(undecorated(line));
        if found.is_empty() {
            found = super::super::volumes::weak(auto::trim_line(line))
                .map(|w| w.found)
                .unwrap_or_default();
        }
        keep_whole_line(line, &mut found);
        found.into_iter().map(|f| f.title).collect()
    }

    #[test]
    fn a_label_before_the_heading_stays_in_its_title() {
        assert_eq!(
            titles("    警世通言第一卷　俞伯牙摔琴謝知音"),
            ["警世通言第一卷 俞伯牙摔琴謝知音"]
        );
        assert_eq!(
            titles("上卷 第一回  甄士隐梦幻识通灵　贾雨村风尘怀闺秀"),
            ["上卷 第一回 甄士隐梦幻识通灵 贾雨村风尘怀闺秀"]
        );
        assert_eq!(titles("《西游记》 第二回"), ["《西游记》 第二回"]);
    }

    #[test]
    fn decoration_goes_but_the_book_name_inside_it_stays() {
        assert_eq!(
            titles("  ◆ 《陆小凤传奇之金鹏王朝》 第一回　有四条眉毛的人 ◆"),
            ["《陆小凤传奇之金鹏王朝》 第一回 有四条眉毛的人"]
        );
        assert_eq!(titles("===第一章 风起（上）==="), ["第一章 风起（上）"]);
        assert_eq!(titles("【第一章】"), ["第一章"]);
    }

    #[test]
    fn a_volume_and_a_chapter_on_one_line_keep_their_own_titles() {
        assert_eq!(
            titles("第一卷 潜龙在渊 第一章 风起"),
            ["第一卷 潜龙在渊", "第一章 风起"]
        );
        assert_eq!(
            titles("古龙 第一卷 潜龙在渊 第一章 风起"),
            ["古龙 第一卷 潜龙在渊", "第一章 风起"]
        );
    }
}
