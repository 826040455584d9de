//! Tate-chu-yoko: short digit runs set upright in vertical text.
//!
//! In vertical CJK text a number such as `12` would otherwise lie on its side. A post-pass over
//! chapter XHTML wraps runs of exactly one or two ASCII digits in `<span class="tcy">`, which
//! the stylesheet sets with `text-combine-upright: all`. Only text nodes are touched (never tag
//! names, attributes, entities or comments), only in text that contains CJK, and only runs that
//! stand alone: not part of a longer number (`2026`, `3.14`, `1,000`) or of a Latin word (`v2`).

/// Wraps 1-2 digit runs of CJK text nodes of `xhtml` in `<span class="tcy">`.
pub fn tate_chu_yoko(xhtml: &str) -> String {
    let mut out = String::with_capacity(xhtml.len() + 64);
    let mut rest = xhtml;
    while !rest.is_empty() {
        let skip = if rest.starts_with("<!--") {
            rest.find("-->").map_or(rest.len(), |e| e + 3)
        } else if rest.starts_with("<![CDATA[") {
            rest.find("]]>").map_or(rest.len(), |e| e + 3)
        } else if rest.starts_with('<') {
            rest.find('>').map_or(rest.len(), |e| e + 1)
        } else {
            0
        };
        if skip > 0 {
            out.push_str(&rest[..skip]);
            rest = &rest[skip..];
            continue;
        }
        let end = rest.find('<').unwrap_or(rest.len());
        text_node(&rest[..end], &mut out);
        rest = &rest[end..];
    }
    out
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF
        | 0x20000..=0x3FFFF)
}

/// Characters that make a digit run part of something longer when next to it.
fn joins(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | ',' | '&' | '#' | ';' | '_' | '/' | ':')
}

fn text_node(text: &str, out: &mut String) {
    if !text.chars().any(is_cjk) {
        out.push_str(text);
        return;
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    let mut copied = 0;
    while i < chars.len() {
        let Some(&(start, c)) = chars.get(i) else {
            break;
        };
        if !c.is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut j = i;
        while chars.get(j).is_some_and(|&(_, d)| d.is_ascii_digit()) {
            j += 1;
        }
        let before = i.checked_sub(1).and_then(|k| chars.get(k)).map(|&(_, c)| c);
        let after = chars.get(j).map(|&(_, c)| c);
        let end = chars.get(j).map_or(text.len(), |&(o, _)| o);
        let in_entity = text[..start]
            .rfind('&')
            .is_some_and(|a| !text[a..start].contains(';'));
        if j - i <= 2 && !before.is_some_and(joins) && !after.is_some_and(joins) && !in_entity {
            out.push_str(&text[copied..start]);
            out.push_str("<span class=\"tcy\">");
            out.push_str(&text[start..end]);
            out.push_str("</span>");
            copied = end;
        }
        i = j;
    }
    out.push_str(&text[copied..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_digit_runs_in_cjk_text_are_wrapped() {
        assert_eq!(
            tate_chu_yoko("<p>第12回，共3人。</p>"),
            "<p>第<span class=\"tcy\">12</span>回，共<span class=\"tcy\">3</span>人。</p>"
        );
    }

    #[test]
    fn longer_numbers_latin_words_and_markup_are_left_alone() {
        for s in [
            "<p>公元2026年，3.14，1,000，v2版</p>",
            "<p class=\"c12\" id=\"p-12\">甲</p>",
            "<p>甲&#12354;乙</p>",
            "<!-- 12 甲 --><p>text 12 only latin</p>",
        ] {
            assert_eq!(tate_chu_yoko(s), s);
        }
    }

    #[test]
    fn text_between_tags_is_handled_per_node() {
        assert_eq!(
            tate_chu_yoko("<p>甲<b>12</b>乙</p>"),
            "<p>甲<b>12</b>乙</p>",
            "a node with no CJK of its own is left alone"
        );
        assert_eq!(
            tate_chu_yoko("<h1>第1章</h1>"),
            "<h1>第<span class=\"tcy\">1</span>章</h1>"
        );
    }
}
