//! Web addresses and site names in disguise: the watermarks sites splice into a novel, in
//! look-alike characters and broken up by symbols so that a plain search misses them
//! (`ｗωｗ奇Qisuu書com网`, `𝒊𝒏𝙣𝒓𝙚𝒂𝒅.𝙘𝒐𝙢`, `[万卷书2酷WWW．2009w．COM]`, `w w w/xiao shu otx t.net`,
//! `！小＠说＃txt＄天＾堂＆`). Used by the `web-novel` preset (a rule of its own, run first) and
//! by `check`'s linter, so that both see the same junk.
//!
//! Matching folds each character to the Latin letter or digit it imitates: NFKC (full-width
//! forms, mathematical alphanumerics, circled letters) and a small table of Greek and Cyrillic
//! look-alikes, then lower case. Only lines holding a Latin-like character are looked at.
//! Two findings:
//!
//! - **a junk line**: a short line (a notice length) whose *skeleton* (its folded letters and
//!   Han characters, everything else dropped) holds `www`, `http` or a site's name in pieces
//!   (`小说txt天堂`), with few other Han characters (so it is not a sentence), or a line of a
//!   site notice (a site keyword) holding a disguised address: removed whole;
//! - **an address in a sentence**: a run of Latin-like characters, separators (dots, spaces,
//!   `、`, `/`…) and single Han characters spliced between, which folded starts at `www` or
//!   is a dotted name ending at a top-level domain, and is disguised (a look-alike character,
//!   a separator other than `.`, a spliced Han character): removed with the brackets around
//!   it (and what the brackets hold, when short) and the site's name glued before it
//!   (`手2机电子书`), never more. A plain `example.com` in a sentence may be the author's: the
//!   preset's line rules judge plain addresses by their line.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

/// Latin-like characters (ASCII, full-width, Greek, Cyrillic, letterlike, circled,
/// mathematical alphanumerics), as a regex class.
const LATIN_LIKE: &str = r"[0-9A-Za-z\x{FF10}-\x{FF19}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{0391}-\x{03C9}\x{0410}-\x{044F}\x{0455}\x{0456}\x{0458}\x{2100}-\x{214F}\x{24B6}-\x{24E9}\x{1D400}-\x{1D7FF}]";

/// Finds the lines worth folding.
static ANY_LATIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(LATIN_LIKE).expect("the class compiles"));

/// Top-level domains that web-novel sites use.
const TLDS: [&str; 20] = [
    "com", "net", "org", "cc", "la", "cn", "info", "me", "tw", "co", "xyz", "top", "vip", "io",
    "tv", "biz", "in", "so", "us", "hk",
];

/// What watermarks spell, on a line's skeleton (its folded letters and Han characters):
/// `www`, `http`, and the names of sites known to watermark their downloads (in pieces:
/// `！小＠说＃txt＄天＾堂＆`, `小xiaoshuo说txt天堂`).
static SITE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        "www|http|小[a-z]{0,10}说[a-z]{0,3}txt[a-z]{0,3}天堂|txt小说天堂|xiaoshuotxt|qisuu|zhuaji|\
         txt66|txtbbs|2009w|zxtxt|paipaitxt|shupengw|txt80|taoshuke",
    )
    .expect("the site pattern compiles")
});

/// The longest line removed whole, in characters: longer ones are paragraphs.
const NOTICE: usize = 120;

/// Most Han characters a junk line may hold besides the site's: two make a word of a
/// sentence (`雨停了（ｗｗｗ．ｑｉｓｕｕ．ｃｏｍ）` keeps its words).
const OTHER_HAN: usize = 2;

/// Greek and Cyrillic letters that pass for Latin ones (after NFKC, in lower case).
const LOOK_ALIKES: [(char, char); 31] = [
    ('α', 'a'),
    ('β', 'b'),
    ('γ', 'y'),
    ('ε', 'e'),
    ('η', 'n'),
    ('ι', 'i'),
    ('κ', 'k'),
    ('μ', 'u'),
    ('ν', 'v'),
    ('ο', 'o'),
    ('ρ', 'p'),
    ('ς', 's'),
    ('τ', 't'),
    ('υ', 'u'),
    ('χ', 'x'),
    ('ω', 'w'),
    ('а', 'a'),
    ('в', 'b'),
    ('е', 'e'),
    ('к', 'k'),
    ('м', 'm'),
    ('н', 'h'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('т', 't'),
    ('у', 'y'),
    ('х', 'x'),
    ('ѕ', 's'),
    ('і', 'i'),
    ('ј', 'j'),
];

/// The ASCII letter or digit (lower case) that `c` imitates, if any.
pub fn fold(c: char) -> Option<char> {
    let ascii = |c: char| {
        let c = c.to_ascii_lowercase();
        c.is_ascii_alphanumeric().then_some(c)
    };
    if c.is_ascii() {
        return ascii(c);
    }
    let mut nfkc = std::iter::once(c).nfkc();
    let first = nfkc.next()?;
    if nfkc.next().is_some() {
        return None;
    }
    if first.is_ascii() {
        return ascii(first);
    }
    let lower = first.to_lowercase().next()?;
    LOOK_ALIKES
        .iter()
        .find(|&&(from, _)| from == lower)
        .map(|&(_, to)| to)
}

/// What a character is to the matcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Imitates this Latin letter or digit.
    Latin(char),
    /// A Han character.
    Han,
    /// Joins the pieces of a disguised address: dots, spaces, `、`, `/`, `=`...
    Joint,
    /// Anything else (brackets, sentence punctuation).
    Other,
}

fn kind(c: char) -> Kind {
    if let Some(f) = fold(c) {
        return Kind::Latin(f);
    }
    if is_han(c) {
        return Kind::Han;
    }
    match c {
        '.' | '．' | '。' | '、' | '，' | ',' | '·' | '・' | '/' | '／' | '=' | '-' | '_'
        | '＿' | ' ' | '\u{3000}' | ':' | '：' | '?' | '？' | '|' | '*' | '+' | '^' | '＾' => {
            Kind::Joint
        }
        _ => Kind::Other,
    }
}

fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3134F}')
}

/// One character of a line: where it starts (bytes, in the text), the character, its kind.
type Cell = (usize, char, Kind);

/// The junk in `text`: byte ranges to remove, in order, not overlapping. `keywords` are the
/// words of a site notice: a short line holding one and a disguised address goes whole.
pub fn find_with(text: &str, keywords: &[&str]) -> Vec<Range<usize>> {
    if text.is_ascii() {
        // Nothing disguised can be there: no look-alike, no Han character to splice.
        return Vec::new();
    }
    let mut found: Vec<Range<usize>> = Vec::new();
    let mut next_line = 0;
    for m in ANY_LATIN.find_iter(text) {
        if m.start() < next_line {
            continue;
        }
        let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
        let end = text[m.start()..]
            .find('\n')
            .map_or(text.len(), |i| m.start() + i);
        next_line = end;
        let line = text[start..end].trim_end_matches('\r');
        found.extend(in_line(line, start, keywords));
    }
    found
}

/// The junk of one line that starts at byte `base` of the text.
fn in_line(line: &str, base: usize, keywords: &[&str]) -> Vec<Range<usize>> {
    let cells: Vec<Cell> = line
        .char_indices()
        .map(|(i, c)| (base + i, c, kind(c)))
        .collect();
    let whole = base..base + line.len();
    if cells.len() <= NOTICE && junk_line(&cells) {
        return vec![whole];
    }
    let mut spans = addresses_in(&cells, line, base);
    for (a, b) in names_in(&cells) {
        let end = cells.get(b).map_or(base + line.len(), |c| c.0);
        spans.push(cells[a].0..end);
    }
    spans.sort_by_key(|r| r.start);
    spans.dedup_by(|next, kept| {
        let overlaps = next.start <= kept.end;
        if overlaps {
            kept.end = kept.end.max(next.end);
        }
        overlaps
    });
    if spans.is_empty() {
        return spans;
    }
    let notice = cells.len() <= NOTICE && {
        let mut rest = String::new();
        let mut at = base;
        for s in &spans {
            rest.push_str(&line[at - base..s.start - base]);
            at = s.end;
        }
        rest.push_str(&line[at - base..]);
        keywords.iter().any(|k| rest.contains(k)) || rest.chars().all(|c| !c.is_alphanumeric())
    };
    if notice { vec![whole] } else { spans }
}

/// A line's skeleton: its folded letters and Han characters, and for each byte of it the
/// cell it comes from.
fn skeleton(cells: &[Cell]) -> (String, Vec<usize>) {
    let mut text = String::new();
    let mut from = Vec::new();
    for (k, &(_, c, kind)) in cells.iter().enumerate() {
        let c = match kind {
            Kind::Latin(f) => f,
            Kind::Han => c,
            _ => continue,
        };
        text.push(c);
        from.extend(std::iter::repeat_n(k, c.len_utf8()));
    }
    (text, from)
}

/// Whether a line is a watermark or site line by its skeleton: `www`, `http` or a site's
/// name, and few other Han characters.
fn junk_line(cells: &[Cell]) -> bool {
    let (skeleton, _) = skeleton(cells);
    let mut named = false;
    let mut site_han = 0;
    let mut found = false;
    for m in SITE.find_iter(&skeleton) {
        found = true;
        named |= !matches!(m.as_str(), "www" | "http");
        site_han += m.as_str().chars().filter(|&c| is_han(c)).count();
    }
    let han = cells.iter().filter(|c| c.2 == Kind::Han).count();
    // A plain address on a line is the line rules' (they know its words); one in disguise,
    // or a site's name, is this rule's.
    let disguised = named || cells.iter().any(|&(_, c, k)| disguise(c, k));
    found && disguised && han - site_han <= OTHER_HAN
}

/// A site's name in pieces glued into a paragraph (`?小xiaoshuo说txt天堂建极殿后…`): cell
/// ranges, widened to the line's start when only punctuation stands before.
fn names_in(cells: &[Cell]) -> Vec<(usize, usize)> {
    let (skeleton, from) = skeleton(cells);
    let mut found = Vec::new();
    for m in SITE.find_iter(&skeleton) {
        if !m.as_str().chars().any(is_han) {
            continue;
        }
        let (start, end) = (from[m.start()], from[m.end() - 1] + 1);
        let bare = cells[..start].iter().all(|c| !c.1.is_alphanumeric());
        found.push((if bare { 0 } else { start }, end));
    }
    found
}

/// Whether a character of an address disguises it: a look-alike letter, a separator that a
/// plain address does not hold, a spliced Han character.
fn disguise(c: char, k: Kind) -> bool {
    match k {
        Kind::Latin(_) => !c.is_ascii(),
        // What a plain address holds: `http://`, dots, hyphens.
        Kind::Joint => !matches!(c, '.' | '-' | '/' | ':'),
        Kind::Han => true,
        Kind::Other => false,
    }
}

/// The disguised addresses of a line, each with what goes with it.
fn addresses_in(cells: &[Cell], line: &str, base: usize) -> Vec<Range<usize>> {
    let mut found: Vec<Range<usize>> = Vec::new();
    let mut i = 0;
    while i < cells.len() {
        if !matches!(cells[i].2, Kind::Latin(_)) {
            i += 1;
            continue;
        }
        let end = run_end(cells, i);
        if let Some((from, to)) = judge(&cells[i..end]).map(|(a, b)| (a + i, b + i)) {
            let span = widen(cells, from, to);
            let range = cells[span.0].0..cells.get(span.1).map_or(base + line.len(), |c| c.0);
            match found.last_mut() {
                Some(last) if last.end >= range.start => last.end = last.end.max(range.end),
                _ => found.push(range),
            }
        }
        i = end.max(i + 1);
    }
    found
}

/// Where the run of Latin-like characters, joints and single spliced Han characters that
/// starts at `i` ends (exclusive), at its last Latin-like character.
fn run_end(cells: &[Cell], i: usize) -> usize {
    let mut last = i;
    let mut j = i + 1;
    while j < cells.len() {
        match cells[j].2 {
            Kind::Latin(_) => last = j,
            Kind::Joint => {}
            Kind::Han if !matches!(cells.get(j + 1).map(|c| c.2), Some(Kind::Han) | None) => {}
            _ => break,
        }
        j += 1;
    }
    last + 1
}

/// The address in a run (cells, starting at a Latin-like one): from its `www`, else from the
/// start of the dotted name that ends at a top-level domain, to the run's end or the domain;
/// only when disguised. Indices into `run`, end exclusive.
fn judge(run: &[Cell]) -> Option<(usize, usize)> {
    let letters: Vec<(usize, char)> = run
        .iter()
        .enumerate()
        .filter_map(|(k, c)| match c.2 {
            Kind::Latin(f) => Some((k, f)),
            _ => None,
        })
        .collect();
    let folded: String = letters.iter().map(|l| l.1).collect();
    let (from, to) = if let Some(p) = folded.find("www") {
        (letters[p].0, run.len())
    } else {
        dotted(run)?
    };
    let disguised = run[from..to].iter().any(|&(_, c, k)| disguise(c, k))
        || odd_dot(run)
        || odd_case(&run[from..to]);
    (disguised && folded.len() >= 6).then_some((from, to))
}

/// Whether a letter in upper case follows one in lower case (`wWw.ZhuaJi.oRg`): no site
/// writes its address so, a watermark does (`Www.Qisuu.Com` is a site's own spelling).
fn odd_case(run: &[Cell]) -> bool {
    run.windows(2)
        .any(|w| w[0].1.is_ascii_lowercase() && w[1].1.is_ascii_uppercase())
}

/// Whether the run ends at a top-level domain that follows something other than a dot
/// (`www-xiaoshuotxt-net`).
fn odd_dot(run: &[Cell]) -> bool {
    let Some(end) = run.iter().rposition(|c| matches!(c.2, Kind::Latin(_))) else {
        return false;
    };
    let start = run[..=end]
        .iter()
        .rposition(|c| !matches!(c.2, Kind::Latin(_)))
        .map_or(0, |k| k + 1);
    let name: String = run[start..=end]
        .iter()
        .filter_map(|c| match c.2 {
            Kind::Latin(f) => Some(f),
            _ => None,
        })
        .collect();
    start > 0
        && TLDS.contains(&name.as_str())
        && run[start - 1].2 == Kind::Joint
        && run[start - 1].1 != '.'
}

/// A dotted name ending at a top-level domain in a run: groups of letters joined by one
/// joint each, the last a domain, at least two groups.
fn dotted(run: &[Cell]) -> Option<(usize, usize)> {
    // Groups of letters: (start, end, letters).
    let mut groups: Vec<(usize, usize, String)> = Vec::new();
    for (k, c) in run.iter().enumerate() {
        if let Kind::Latin(f) = c.2 {
            match groups.last_mut() {
                Some(g) if g.1 == k => {
                    g.1 = k + 1;
                    g.2.push(f);
                }
                _ => groups.push((k, k + 1, f.to_string())),
            }
        }
    }
    let tld = groups.iter().rposition(|g| TLDS.contains(&g.2.as_str()))?;
    (tld >= 1).then(|| (groups[0].0, groups[tld].1))
}

/// An address (cells `from..to`) widened to what goes with it: the site's name glued before it
/// (a few characters back to its first Latin-like one and one Han character before that, as
/// `手2机电子书`), the `网` after it, and the brackets around it with what they hold when
/// short. Returns cell indices, end exclusive.
fn widen(cells: &[Cell], from: usize, to: usize) -> (usize, usize) {
    let mut to = to;
    while to < cells.len() && matches!(cells[to].1, '网' | '網' | '站') && to - from < 40 {
        to += 1;
    }
    let (from, to) = bracketed(cells, from, to);
    // Back over the glued name: no punctuation, at most 12 characters.
    let mut k = from;
    let mut first_latin = None;
    while k > 0 && from - k < 12 {
        match cells[k - 1].2 {
            Kind::Latin(_) => first_latin = Some(k - 1),
            Kind::Han => {}
            _ => break,
        }
        k -= 1;
    }
    let from = match first_latin {
        Some(f) if f > k && cells[f - 1].2 == Kind::Han => f - 1,
        Some(f) => f,
        None => from,
    };
    (name_before(cells, from), to)
}

/// Where the site's name in brackets right before `from` starts (`[*爪丶机*书屋*] wwW.…`);
/// `from` when there is none.
fn name_before(cells: &[Cell], from: usize) -> usize {
    const OPEN: &str = "([【［（《〈";
    const CLOSE: &str = ")]】］）》〉";
    let mut k = from;
    while k > 0 && cells[k - 1].2 == Kind::Joint {
        k -= 1;
    }
    if k == 0 || !CLOSE.contains(cells[k - 1].1) {
        return from;
    }
    let open = (k.saturating_sub(16)..k - 1)
        .rev()
        .take_while(|&j| !"。！？".contains(cells[j].1))
        .find(|&j| OPEN.contains(cells[j].1));
    open.unwrap_or(from)
}

/// `from..to` with the brackets around it, and what they hold when that is short (the
/// site's name: `[万卷书2酷WWW．2009w．COM]`).
fn bracketed(cells: &[Cell], from: usize, to: usize) -> (usize, usize) {
    const OPEN: &str = "([【［（《〈";
    const CLOSE: &str = ")]】］）》〉";
    let open = (from.saturating_sub(16)..from)
        .rev()
        .take_while(|&k| !CLOSE.contains(cells[k].1) && !"。！？".contains(cells[k].1))
        .find(|&k| OPEN.contains(cells[k].1));
    let close = (to..cells.len().min(to + 16))
        .take_while(|&k| !OPEN.contains(cells[k].1) && !"。！？".contains(cells[k].1))
        .find(|&k| CLOSE.contains(cells[k].1));
    match (open, close) {
        (Some(o), Some(c)) => (o, c + 1),
        // A bracket left open: the site's name after it goes with the address.
        (Some(o), None) => (o, to),
        _ => (from, to),
    }
}

/// The junk in `text` that `check` reports: what the `web-novel` preset's rule for it finds
/// (without the site notices' words, which only decide how much of a line goes).
pub fn find(text: &str) -> Vec<Range<usize>> {
    find_with(text, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn removed(text: &str) -> String {
        let mut out = text.to_string();
        for r in find_with(text, &["请访问", "首发", "手机阅读"])
            .into_iter()
            .rev()
        {
            out.replace_range(r, "");
        }
        out
    }

    #[test]
    fn folds_full_width_greek_and_mathematical_letters() {
        assert_eq!(fold('Ｗ'), Some('w'));
        assert_eq!(fold('ω'), Some('w'));
        assert_eq!(fold('𝒊'), Some('i'));
        assert_eq!(fold('𝙘'), Some('c'));
        assert_eq!(fold('ⓜ'), Some('m'));
        assert_eq!(fold('奇'), None);
        assert_eq!(fold('，'), None);
    }

    #[test]
    fn a_spliced_watermark_leaves_the_sentence_around_it() {
        for (text, left) in [
            (
                "他推开门ｗωｗ奇Qisuu書com网，走了进去。",
                "他推开门，走了进去。",
            ),
            ("这一夜𝒊𝒏𝙣𝒓𝙚𝒂𝒅.𝙘𝒐𝙢风很大。", "这一夜风很大。"),
            ("雨停了（ｗｗｗ．ｑｉｓｕｕ．ｃｏｍ）。", "雨停了。"),
            (
                "她叫着：“水……”[万卷书2酷WWW．2009w．COM] ",
                "她叫着：“水……” ",
            ),
            (
                "“年羹尧！”［万卷书2库·手机电子书-wＷw．2009w．cＯm］",
                "“年羹尧！”",
            ),
            (
                "觉得，手2机电子书WWW．2009w．COM只要不贪赃",
                "觉得，只要不贪赃",
            ),
            (
                "大吃一惊。2009w手机电2子书网[www．2009w．com]他脱口就说",
                "大吃一惊。他脱口就说",
            ),
            (
                "水势凶险，(万卷书3库-Www．2009w．Com)请不要",
                "水势凶险，请不要",
            ),
        ] {
            assert_eq!(removed(text), left, "{text}");
        }
    }

    #[test]
    fn watermark_lines_go_whole() {
        for text in [
            "ＷＷＷ.xiＡosＨuoＴＸＴ.net",
            "　小＿说  txt 天+堂",
            "！小＠说＃txt＄天＾堂＆",
            "《小说t》xt天堂",
            "w w w/xiao shu otx t.netxiaoshuotxt。com",
            "wwＷ。xiaoshuotxt=nett，xt，小，说，天，堂",
            "www.xiaoshuotxt.net**t*xt小*说**天*堂",
            "ＷＷＷ.xiＡosＨuoＴＸＴ.net（／t／／xt｜小／／说／//天//堂）",
            "www、xiaoshuotxt.net",
            "ｗｗｗ．ｑｉｓｕｕ．ｃｏｍ",
            "请访问ｗｗｗ．ｑｉｓｕｕ．ｃｏｍ",
            "手机阅读：ｍ．ｑｉｓｕｕ．ｃｏｍ",
        ] {
            assert_eq!(removed(text), "", "{text}");
        }
        assert_eq!(removed("甲\n！小＠说＃txt＄天＾堂＆\n乙"), "甲\n\n乙");
    }

    #[test]
    fn site_names_in_pieces_go() {
        assert_eq!(
            removed("?小xiaoshuo说txt天堂建极殿后的云台"),
            "建极殿后的云台"
        );
        for (text, left) in [
            (
                "使得大地渐渐有了黑暗。[爪*机丶书*屋 wWw.ZhuaJi.org",
                "使得大地渐渐有了黑暗。",
            ),
            (
                "在三座古祖雕像下方。(爪讥书屋 wWw.zhuaJi.org每一个",
                "在三座古祖雕像下方。每一个",
            ),
            (
                "轮回。[*爪丶机*书屋*] wwW.ZhuaJi.oRg......到底",
                "轮回。......到底",
            ),
        ] {
            assert_eq!(removed(text), left, "{text}");
        }
        // (Lines of a Chinese text: a text all in ASCII is not looked at.)
        for line in [
            "www-xiaoshuotxt-net",
            "xiaoshuotxt",
            "小xiaoshuo说txt天堂",
            "Txt66.com",
        ] {
            assert_eq!(removed(&format!("甲\n{line}\n乙")), "甲\n\n乙", "{line}");
        }
    }

    #[test]
    fn real_text_stays() {
        for text in [
            "他打开了google.com看新闻。",
            "www.qisuu.com",
            "A区B栋的门开着。",
            "α粒子穿过了金箔。",
            "他在ＱＱ群里说话。",
            "第3章 风起",
            "Ｃ和小Ｍ都来了。",
            "上有天堂，下有苏杭。",
            "2007年，他在Ｎ市读书。",
            "恺撒打开浏览器输入“www.cassell.edu”。",
            "“www.cassell.edu.jp”，卡塞尔学院的日本语网站。",
        ] {
            assert_eq!(removed(text), text, "{text}");
        }
    }
}
