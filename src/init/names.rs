//! A book's title and author from what a download says of itself: the name of its one text
//! file, the way download sites name them (`《书名》作者：某某.txt`, `书名 作者：某某.txt`,
//! `书名-某某.txt`, `书名[www.site.org].txt`, `010 - 书名-(明)作者.txt`), and its first lines
//! (`《书名》`, `书名：…`, `作者：某某`, a line of the title alone over one of the author).
//!
//! Also read: `《书名》（精校版）作者:某某`, `书名_作者：某某`, `书名_作者` (a short Han name),
//! `书名 by Name`, `Title - Author` (a spaced dash). Site tags (`[www.site.org]`, `(奇书网)`, a
//! bare address) and a leading catalogue number are dropped from the name; a note in brackets
//! (`（校对版全本）`, `[精校]`, `【完结】`) from the title and the author; a dynasty or
//! nationality mark before the author (`(明)`, `[美]`) is not part of the name. Only `init` (and
//! the one-command build, which runs it) uses this, and only when the book is one file (else the
//! names are chapters').

/// Markers that introduce the author.
const AUTHOR_MARKS: [&str; 6] = ["作者：", "作者:", "作者_", "作者 ", " by ", " BY "];

/// Labels of a header line that gives the title (`书名：三国演义`).
const TITLE_LABELS: [&str; 3] = ["书名", "書名", "标题"];

/// Labels of a header line that gives the author (`作者：罗贯中`).
const AUTHOR_LABELS: [&str; 4] = ["作者", "著者", "原著", "作　者"];

/// Non-blank lines at the top of a file searched for header lines.
const HEADER_LINES: usize = 15;

/// The longest title or author name taken from a header line, in characters.
const LONGEST_NAME: usize = 30;

/// Words of a bracketed note about the copy, not part of a name (`[精校版]`, `（全本）`).
const NOTE_WORDS: [&str; 14] = [
    "精校", "校对", "校對", "全本", "完结", "完結", "完本", "全集", "未删", "全文", "精排", "修订",
    "txt", "TXT",
];

/// The title and, when the name gives one, the author in a file's stem. None when the name
/// says nothing more than a title that [`book_name`] would give.
pub fn title_and_author(stem: &str) -> Option<(String, Option<String>)> {
    let original = stem.trim();
    let cleaned = strip_tags(original);
    let stem = strip_number(&cleaned);
    if let Some(rest) = stem.strip_prefix('《')
        && let Some((title, after)) = rest.split_once('》')
    {
        let author = AUTHOR_MARKS
            .iter()
            .find_map(|m| after.split_once(m).map(|(_, a)| a))
            .and_then(clean_author)
            .or_else(|| Some(strip_mark(after).to_string()).filter(|a| short_han(a)));
        return clean_title(title).map(|t| (t, author));
    }
    if let Some((title, author)) = AUTHOR_MARKS.iter().find_map(|m| stem.split_once(m)) {
        let title = title.trim_end_matches(['_', '-', ' ', '　']);
        return clean_title(title).map(|t| (t, clean_author(author)));
    }
    if let Some(pair) = split_name(stem) {
        return Some(pair);
    }
    // Nothing but the title: worth saying only when tags or a number were dropped from it.
    (stem != original)
        .then(|| clean_title(stem).map(|t| (t, None)))
        .flatten()
}

/// `书名-某某` (one dash between a title and a short name), `Title - Author` (spaced),
/// `书名—某某`, and `书名_某某` where the name is clearly a short Han name.
fn split_name(stem: &str) -> Option<(String, Option<String>)> {
    let cjk = stem.chars().any(crate::lines::is_cjk);
    let (title, author) = stem
        .split_once(" - ")
        .or_else(|| {
            (cjk && stem.matches('-').count() == 1)
                .then(|| stem.split_once('-'))
                .flatten()
        })
        .or_else(|| stem.split_once('—'))
        .or_else(|| {
            let (title, author) = stem.split_once('_')?;
            let name = strip_mark(author.trim());
            (cjk && stem.matches('_').count() == 1 && short_han(name)).then_some((title, author))
        })?;
    let author = clean_author(author).filter(|a| a.chars().count() <= 20)?;
    clean_title(title).map(|t| (t, Some(author)))
}

/// Two to four Han characters: what a Chinese name clearly is.
fn short_han(name: &str) -> bool {
    (2..=4).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| crate::lines::is_cjk(c) && c.is_alphabetic())
}

/// The title a file's stem gives when nothing else names the book: the stem without site
/// tags, notes in brackets and a leading catalogue number (`010 - 书名[www.site.org]` -> 书名).
pub fn book_name(stem: &str) -> String {
    let title = match title_and_author(stem) {
        Some((title, _)) => title,
        None => stem.trim().to_string(),
    };
    // A trailing tag in square brackets (`[第1章]`) and words about the copy (`全集`, `合并版`).
    let mut name = title.as_str();
    for (open, close) in [('[', ']'), ('【', '】')] {
        if name.ends_with(close)
            && let Some(i) = name.rfind(open)
            && i > 0
        {
            name = name[..i].trim_end();
        }
    }
    let name = COPY_WORDS
        .iter()
        .fold(name, |n, w| n.strip_suffix(w).unwrap_or(n));
    let name = name.strip_prefix("合并版").unwrap_or(name).trim();
    match name.is_empty() {
        true => title,
        false => name.to_string(),
    }
}

/// Words at the end of a download's name that say what copy it is, not what book.
const COPY_WORDS: [&str; 5] = ["全集", "全本", "完整版", "精校版", "合集"];

/// A title without a note in brackets, `《》` or surrounding spaces; None when nothing is left
/// or only digits.
fn clean_title(t: &str) -> Option<String> {
    let t = strip_tags(t);
    let t = strip_notes(strip_number(t.trim()));
    let t = t.strip_prefix('《').unwrap_or(t);
    let t = t.strip_suffix('》').unwrap_or(t).trim();
    (!t.is_empty() && !t.chars().all(|c| c.is_ascii_digit())).then(|| t.to_string())
}

/// An author without a note in brackets after the name nor a dynasty or nationality mark
/// before it; None when nothing is left.
fn clean_author(a: &str) -> Option<String> {
    let a = strip_mark(strip_notes(a.trim()));
    (!a.is_empty() && !a.chars().all(|c| c.is_ascii_digit())).then(|| a.to_string())
}

/// The bracket pairs a note or a mark is written in.
const BRACKETS: [(char, char); 5] = [
    ('（', '）'),
    ('(', ')'),
    ('【', '】'),
    ('[', ']'),
    ('〔', '〕'),
];

/// `s` without bracketed notes at its end (`林某（精校）` -> 林某).
fn strip_notes(s: &str) -> &str {
    let mut s = s.trim();
    loop {
        let before = s;
        for (open, close) in BRACKETS {
            if s.ends_with(close)
                && let Some(i) = s.rfind(open)
                && i > 0
            {
                s = s[..i].trim_end();
            }
        }
        if s == before {
            return s;
        }
    }
}

/// Dynasties written before an author's name with a middle dot (`清·佚名`).
const DYNASTIES: [&str; 16] = [
    "先秦", "秦", "汉", "漢", "晋", "晉", "南朝", "北朝", "隋", "唐", "五代", "宋", "元", "明",
    "清", "民国",
];

/// `s` without a dynasty or nationality mark before the name: `(明)罗贯中`, `［美］某某`,
/// `清·佚名` (a dot after a dynasty only: `玛丽·安` is a name).
fn strip_mark(s: &str) -> &str {
    let s = s.trim();
    for dynasty in DYNASTIES {
        if let Some(rest) = s.strip_prefix(dynasty)
            && let Some(name) = rest.strip_prefix(['·', '・', '.', '。'])
            && !name.trim().is_empty()
        {
            return name.trim();
        }
    }
    for (open, close) in BRACKETS.iter().chain(&[('［', '］')]) {
        if let Some(rest) = s.strip_prefix(*open)
            && let Some((mark, name)) = rest.split_once(*close)
            && (1..=3).contains(&mark.chars().count())
            && mark
                .chars()
                .all(|c| crate::lines::is_cjk(c) && c.is_alphabetic())
            && !name.trim().is_empty()
        {
            return name.trim();
        }
    }
    s
}

/// `stem` without its site tags (`[www.site.org]`, `(奇书网)`, a bare address) and notes in
/// brackets about the copy (`[精校版]`), wherever they are.
fn strip_tags(stem: &str) -> String {
    let mut out = String::with_capacity(stem.len());
    let mut rest = stem;
    'scan: while let Some(c) = rest.chars().next() {
        if let Some(&(_, close)) = BRACKETS.iter().find(|(open, _)| *open == c)
            && let Some(end) = rest[c.len_utf8()..].find(close)
        {
            let inner = &rest[c.len_utf8()..c.len_utf8() + end];
            if is_site(inner) || is_note(inner) || is_encoding(inner) {
                rest = &rest[c.len_utf8() + end + close.len_utf8()..];
                continue 'scan;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    // A bare address among words: `书名 www.qisuu.com`, `书名_www.shupengw.com`; an
    // encoding's name: `紅樓夢_Big5`, `书名-utf8`, `书名 GBK`.
    let words: Vec<String> = out
        .split(' ')
        .map(|w| drop_encodings(&drop_sites(w, '_')))
        .collect();
    let words: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !w.is_empty() && !is_site(w) && !is_encoding(w))
        .collect();
    words.join(" ").trim().to_string()
}

/// `word` without the pieces between `sep` that are addresses.
fn drop_sites(word: &str, sep: char) -> String {
    let kept: Vec<&str> = word.split(sep).filter(|w| !is_site(w)).collect();
    kept.join(&sep.to_string())
}

/// `word` without a trailing `_tag` or `-tag` naming an encoding (`紅樓夢_Big5`,
/// `书名-utf8`), however many.
fn drop_encodings(word: &str) -> String {
    let mut word = word;
    while let Some(i) = (word.char_indices().rev())
        .filter(|&(i, c)| i > 0 && matches!(c, '_' | '-'))
        .map(|(i, _)| i)
        .find(|&i| is_encoding(&word[i + 1..]))
    {
        word = &word[..i];
    }
    word.to_string()
}

/// The name of a text encoding, as download sites tag a file with it: `Big5`, `GBK`,
/// `UTF-8`, `utf8`, `GB2312`, `Unicode` (any case and width).
fn is_encoding(s: &str) -> bool {
    const NAMES: [&str; 12] = [
        "big5",
        "big5hkscs",
        "gbk",
        "gb2312",
        "gb18030",
        "utf8",
        "utf-8",
        "utf16",
        "utf-16",
        "unicode",
        "ansi",
        "utf8bom",
    ];
    let folded: String = s.trim().chars().map(fold_width).collect();
    let lower = folded.to_ascii_lowercase();
    let lower = lower.strip_suffix("编码").unwrap_or(&lower);
    NAMES.contains(&lower) || NAMES.contains(&lower.replace('_', "-").as_str())
}

/// A web address or a site's name: `www.site.org`, `qisuu.com`, `奇书网`, `书屋`.
fn is_site(s: &str) -> bool {
    let folded: String = s.trim().chars().map(fold_width).collect();
    let lower = folded.to_ascii_lowercase();
    if lower.contains("www") || lower.contains("http") {
        return true;
    }
    let domain = lower.rsplit_once('.').is_some_and(|(name, tld)| {
        (2..=6).contains(&tld.len())
            && tld.bytes().all(|b| b.is_ascii_lowercase())
            && name
                .bytes()
                .last()
                .is_some_and(|b| b.is_ascii_alphanumeric())
    });
    let site_word = ["网", "網", "书屋", "书库", "书城", "小说"]
        .iter()
        .any(|w| folded.ends_with(w));
    domain || (site_word && folded.chars().count() <= 8)
}

/// A note about the copy, not a name: `精校版`, `全本`, `TXT全集`.
fn is_note(s: &str) -> bool {
    NOTE_WORDS.iter().any(|w| s.contains(w)) || (s.ends_with('版') && s.chars().count() <= 6)
}

/// Full-width ASCII as ASCII (`ｗｗｗ．` -> `www.`).
fn fold_width(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

/// `stem` without a leading catalogue number (`010 - `, `01_`, `3.`), when a name follows.
fn strip_number(stem: &str) -> &str {
    let digits = stem
        .find(|c: char| !(c.is_ascii_digit() || ('０'..='９').contains(&c)))
        .unwrap_or(stem.len());
    if digits == 0 {
        return stem;
    }
    let after = &stem[digits..];
    let rest = after.trim_start_matches([' ', '　', '-', '_', '.', '、', '．', '—']);
    let separated = rest.len() < after.len() || rest.starts_with('《');
    let named = rest
        .chars()
        .any(|c| !(c.is_ascii_digit() || c.is_ascii_punctuation()));
    if separated && named { rest } else { stem }
}

/// What the first lines of a download say of its book.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The title: `《书名》`, `书名：…`, or a line of its own over the author's.
    pub title: Option<String>,
    /// The author: `作者：…`, `（明）某某`, `某某 著` under the title.
    pub author: Option<String>,
}

/// The title and author that the first lines of `text` give.
pub fn from_first_lines(text: &str) -> Header {
    let lines: Vec<&str> = text
        .lines()
        .take(HEADER_LINES * 4)
        .map(crate::lines::trim_line)
        .filter(|l| !l.is_empty())
        .take(HEADER_LINES)
        .collect();
    let mut header = Header::default();
    for (i, line) in lines.iter().enumerate() {
        if header.title.is_none() {
            header.title = labelled(line, &TITLE_LABELS)
                .and_then(clean_title)
                .or_else(|| quoted_title(line));
        }
        if header.author.is_none()
            && let Some((before, author)) = author_line(line)
        {
            header.author = Some(author);
            // `书名 作者：某某` on one line, or the title alone on the line before.
            let before = before.or_else(|| i.checked_sub(1).map(|j| lines[j]));
            if header.title.is_none() {
                header.title = before.filter(|t| plain_title(t)).and_then(clean_title);
            }
        }
    }
    header
}

/// The value of a `label：value` line (`：`, `:`, spaces between), if `line` is one.
fn labelled<'a>(line: &'a str, labels: &[&str]) -> Option<&'a str> {
    let rest = labels.iter().find_map(|l| line.strip_prefix(l))?;
    let rest = rest.trim_start_matches([' ', '　']);
    let value = rest.strip_prefix(['：', ':'])?;
    let value = cut_at_gap(value);
    (!value.is_empty() && value.chars().count() <= LONGEST_NAME).then_some(value)
}

/// `value` up to a wide gap (two spaces, a tab, an ideographic space): `作者：某某  字数：…`.
fn cut_at_gap(value: &str) -> &str {
    let value = value.trim();
    let end = ["  ", "\t", "　"]
        .iter()
        .filter_map(|g| value.find(g))
        .min()
        .unwrap_or(value.len());
    value[..end].trim()
}

/// `《书名》` alone on its line, or followed by a note or the author (`《书名》作者：某某`).
fn quoted_title(line: &str) -> Option<String> {
    let line = strip_tags(line);
    let rest = line.strip_prefix('《')?;
    let (title, after) = rest.split_once('》')?;
    let after = strip_notes(after.trim());
    let alone = after.is_empty()
        || strip_tags(after).is_empty()
        || AUTHOR_MARKS.iter().any(|m| after.starts_with(m.trim()));
    (alone && title.chars().count() <= LONGEST_NAME)
        .then(|| clean_title(title))
        .flatten()
}

/// Signatures after an author's name (`罗贯中 著`, `馮夢龍 編著`).
const SIGNED: [&str; 6] = ["编著", "編著", "编纂", "編纂", "著", "撰"];

/// The author a line gives, and the title before it when the line holds both (`书名 作者：某某`,
/// `书名   某某 著`, `[书名 / 某某 著]`): `作者：某某`, `（明）罗贯中`, `罗贯中 著`.
fn author_line(line: &str) -> Option<(Option<&str>, String)> {
    let line = unbracketed(line);
    if let Some((title, rest)) = line.split_once('/')
        && let Some((None, author)) = author_line(rest.trim())
    {
        return Some((Some(title.trim()), author));
    }
    if let Some(value) = labelled(line, &AUTHOR_LABELS) {
        return name(value).map(|a| (None, a));
    }
    for mark in ["作者：", "作者:"] {
        if let Some((before, value)) = line.split_once(mark) {
            let before = before.trim_end_matches([' ', '　', '_', '-']);
            if plain_title(before) {
                return name(cut_at_gap(value)).map(|a| (Some(before), a));
            }
        }
    }
    let signed = SIGNED
        .iter()
        .find_map(|s| line.strip_suffix(s))
        .map(str::trim);
    if let Some(signed) = signed {
        // `书名   某某 著`: the title, a wide gap, the name.
        let (before, who) = match last_gap(signed) {
            Some(i) => (Some(signed[..i].trim()), signed[i..].trim()),
            None => (None, signed),
        };
        let n = who.chars().count();
        let fits = (2..=8).contains(&n) && !who.starts_with('第') && !has_sentence_punctuation(who);
        return fits
            .then(|| name(who).map(|a| (before.filter(|b| !b.is_empty()), a)))
            .flatten();
    }
    let short = line.chars().count() <= 12 && !has_sentence_punctuation(line);
    let marked = strip_mark(line) != line.trim();
    (short && marked)
        .then(|| name(line).map(|a| (None, a)))
        .flatten()
}

/// `[书名 / 某某 著]`, `『书名/作者:某某』` and `【…】` without their brackets.
fn unbracketed(line: &str) -> &str {
    for (open, close) in [
        ('[', ']'),
        ('【', '】'),
        ('［', '］'),
        ('『', '』'),
        ('「', '」'),
    ] {
        if let Some(inner) = line.strip_prefix(open).and_then(|l| l.strip_suffix(close))
            && !inner.contains([open, close])
        {
            return inner.trim();
        }
    }
    line
}

/// Where the last wide gap (two spaces, a tab, an ideographic space) in `s` starts.
fn last_gap(s: &str) -> Option<usize> {
    ["  ", "\t", "　"].iter().filter_map(|g| s.rfind(g)).max()
}

/// An author's name as a header line writes it: no sentence in it (`作者：周楫，字清源…` is a
/// biography), no year glued to it (`遇瑾2014`).
fn name(value: &str) -> Option<String> {
    if has_sentence_punctuation(value) || value.chars().count() > LONGEST_NAME {
        return None;
    }
    let author = clean_author(value)?;
    let han = author
        .chars()
        .any(|c| crate::lines::is_cjk(c) && c.is_alphabetic());
    let trimmed = match han {
        true => author.trim_end_matches(|c: char| c.is_ascii_digit()),
        false => &author,
    };
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// Words of a site's line about the download, never in the line of a title alone.
const SITE_LINE_WORDS: [&str; 9] = [
    "本书", "整理", "下载", "www", "http", "简介", "更新", "来自", "提供",
];

/// A line that can be a title on its own: short, no sentence punctuation, no address, not a
/// site's line about the download.
fn plain_title(line: &str) -> bool {
    let n = line.chars().count();
    (1..=LONGEST_NAME).contains(&n)
        && !has_sentence_punctuation(line)
        && !is_site(line)
        && !SITE_LINE_WORDS.iter().any(|w| line.contains(w))
}

fn has_sentence_punctuation(line: &str) -> bool {
    line.contains(['。', '，', '！', '？', '；', ',', '!', '?', ';', '：', ':'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(s: &str) -> Option<(String, Option<String>)> {
        title_and_author(s)
    }

    fn pair(t: &str, a: &str) -> Option<(String, Option<String>)> {
        Some((t.to_string(), Some(a.to_string())))
    }

    fn title(t: &str) -> Option<(String, Option<String>)> {
        Some((t.to_string(), None))
    }

    #[test]
    fn the_shapes_download_sites_use() {
        assert_eq!(both("《青锋录》作者：林某"), pair("青锋录", "林某"));
        assert_eq!(
            both("《青锋录》（校对版全本）作者:林某"),
            pair("青锋录", "林某")
        );
        assert_eq!(both("《青锋录》作者：林某（精校）"), pair("青锋录", "林某"));
        assert_eq!(both("青锋录 作者：林某"), pair("青锋录", "林某"));
        assert_eq!(both("青锋录_作者：林某[完结]"), pair("青锋录", "林某"));
        assert_eq!(both("青锋录-林某"), pair("青锋录", "林某"));
        assert_eq!(
            both("Pride and Prejudice - Jane Austen"),
            pair("Pride and Prejudice", "Jane Austen")
        );
        assert_eq!(
            both("Moby Dick by Herman Melville"),
            pair("Moby Dick", "Herman Melville")
        );
        assert_eq!(both("《三国演义》"), title("三国演义"));
        assert_eq!(both("《别和她说话》遇瑾"), pair("别和她说话", "遇瑾"));
        assert_eq!(both("《三国演义》全本精校小说"), title("三国演义"));
    }

    #[test]
    fn site_tags_numbers_and_dynasty_marks_are_not_names() {
        assert_eq!(both("三国演义[www.qisuu.org]"), title("三国演义"));
        assert_eq!(both("三国演义【Ｗｗｗ．Qisuu．Com】"), title("三国演义"));
        assert_eq!(both("三国演义(奇书网)"), title("三国演义"));
        assert_eq!(both("三国演义 www.qisuu.com"), title("三国演义"));
        assert_eq!(
            both("010 - 三国演义-(明)罗贯中"),
            pair("三国演义", "罗贯中")
        );
        assert_eq!(both("三国演义-（明）罗贯中"), pair("三国演义", "罗贯中"));
        assert_eq!(both("三国演义_罗贯中"), pair("三国演义", "罗贯中"));
        assert_eq!(both("三国演义[精校版]"), title("三国演义"));
        // Issue 26: `紅樓夢_Big5.txt` was titled `紅樓夢_Big5`.
        assert_eq!(book_name("紅樓夢_Big5"), "紅樓夢");
        assert_eq!(book_name("紅樓夢_GBK"), "紅樓夢");
        assert_eq!(book_name("红楼梦_utf8"), "红楼梦");
        assert_eq!(book_name("红楼梦(UTF-8)"), "红楼梦");
        assert_eq!(book_name("红楼梦[txt80]"), "红楼梦");
        assert_eq!(book_name("红楼梦 GB2312"), "红楼梦");
        assert_eq!(book_name("红楼梦-utf-8"), "红楼梦");
        assert_eq!(both("红楼梦-utf8"), title("红楼梦"));
        assert_eq!(book_name("010 - 三国演义[www.qisuu.org]"), "三国演义");
        assert_eq!(book_name("三国演义"), "三国演义");
        assert_eq!(book_name("三国演义[第1章]"), "三国演义");
        assert_eq!(book_name("陆小凤传奇全集"), "陆小凤传奇");
        assert_eq!(book_name("合并版亮剑"), "亮剑");
        assert_eq!(book_name("人生的枷锁_www.shupengw.com"), "人生的枷锁");
        assert_eq!(both("《说唐》作者：清·佚名"), pair("说唐", "佚名"));
        assert_eq!(
            both("《喻世明言》(《古今小說》)作者：[明]馮夢龍"),
            pair("喻世明言", "馮夢龍")
        );
    }

    #[test]
    fn names_that_say_nothing_of_an_author() {
        assert_eq!(both("三国演义"), None);
        assert_eq!(both("2701-0"), None);
        assert_eq!(both("pg1342"), None);
        assert_eq!(both("one-two-three"), None);
        assert_eq!(both("第一章-风起-上"), None);
        // Not clearly a name after the underscore.
        assert_eq!(both("三国演义_第一卷到第十卷"), None);
        assert_eq!(book_name("2701-0"), "2701-0");
    }

    fn header(text: &str) -> (Option<String>, Option<String>) {
        let h = from_first_lines(text);
        (h.title, h.author)
    }

    #[test]
    fn the_first_lines_of_a_download_name_the_book() {
        let prose = "\n　　话说天下大势，分久必合，合久必分。\n";
        for (top, title, author) in [
            (
                "《三国演义》\n作者：罗贯中\n内容简介：",
                Some("三国演义"),
                Some("罗贯中"),
            ),
            (
                "书名：三国演义\n作者:罗贯中",
                Some("三国演义"),
                Some("罗贯中"),
            ),
            (
                "三国演义\n作者：（明）罗贯中",
                Some("三国演义"),
                Some("罗贯中"),
            ),
            ("三国演义\n（明）罗贯中", Some("三国演义"), Some("罗贯中")),
            ("三国演义\n罗贯中 著", Some("三国演义"), Some("罗贯中")),
            ("三国演义 作者：罗贯中", Some("三国演义"), Some("罗贯中")),
            ("《三国演义》作者：罗贯中", Some("三国演义"), Some("罗贯中")),
            (
                "-----\n本书由奇书网整理\n《三国演义》（精校版）\n作者：罗贯中  字数：60万",
                Some("三国演义"),
                Some("罗贯中"),
            ),
            ("第一回 宴桃园豪杰三结义", None, None),
            ("《论语》有云，学而时习之。", None, None),
            ("三国演义", None, None),
            ("本书由奇书网整理\n作者：罗贯中", None, Some("罗贯中")),
            ("第一编\n第一章 开端", None, None),
            ("醒世恆言 \n馮夢龍 編著 ", Some("醒世恆言"), Some("馮夢龍")),
            (
                "二刻拍案驚奇   作者：凌濛初",
                Some("二刻拍案驚奇"),
                Some("凌濛初"),
            ),
            ("聊齋誌異   蒲松齡　著　 ", Some("聊齋誌異"), Some("蒲松齡")),
            (
                "　　[红楼梦 / 曹雪芹 著 ]\n书籍介绍:",
                Some("红楼梦"),
                Some("曹雪芹"),
            ),
            (
                "【全本精校】《盗墓笔记》作者：南派三叔【1-8部+番外】",
                Some("盗墓笔记"),
                Some("南派三叔"),
            ),
            ("《暗示》\n\n作者：遇瑾2014", Some("暗示"), Some("遇瑾")),
            (
                " 0201《警世通言》作者：馮夢龍",
                Some("警世通言"),
                Some("馮夢龍"),
            ),
            ("西湖二集\n作者：編纂者：周楫，字清源，杭州人。", None, None),
        ] {
            let expected = (title.map(String::from), author.map(String::from));
            assert_eq!(header(&format!("{top}{prose}")), expected, "{top}");
        }
    }
}
