//! One line of Aozora Bunko or web-novel notation to XHTML: ruby (`漢字《かんじ》`,
//! `｜青空《あおぞら》`), emphasis (`《《傍点》》`), 外字 and the `［＃…］` annotations inside the
//! line.
//!
//! The line is read into [`Unit`]s, each a character or a piece already marked up (a ruby, an
//! emphasised run), so that an annotation quoting the text before it (`［＃「吾輩」に傍点］`)
//! finds that text by its characters and wraps whole units only.

use super::annotation::{self, Gaiji, Note, Style};
use crate::xml::{escape_attr, escape_text};

/// A character of the line or a piece already marked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The text as read (a ruby's base without its reading).
    pub plain: String,
    /// The XHTML.
    pub html: String,
    /// The character, when the unit is one character of the text.
    pub ch: Option<char>,
}

impl Unit {
    fn char(c: char) -> Unit {
        Unit {
            plain: c.to_string(),
            html: escape_text(&c.to_string()),
            ch: Some(c),
        }
    }

    fn markup(plain: String, html: String) -> Unit {
        Unit {
            plain,
            html,
            ch: None,
        }
    }
}

/// A line read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    /// The text, in units.
    pub units: Vec<Unit>,
    /// `［＃N字下げ］` at its start: the first line's indent and the rest's.
    pub indent: Option<(u32, u32)>,
    /// `［＃地付き］` / `［＃地からN字上げ］`: the unit it stands before and N.
    pub foot: Option<(usize, u32)>,
    /// A page break in the line.
    pub page_break: bool,
    /// A heading: level, whether it shares the line with text, and its units.
    pub heading: Option<(usize, bool, std::ops::Range<usize>)>,
    /// Block annotations (`ここから…`, `ここで…終わり`), in order.
    pub blocks: Vec<Note>,
    /// A picture in the line.
    pub picture: bool,
}

impl Line {
    /// The XHTML of units `range`.
    pub fn html(&self, range: std::ops::Range<usize>) -> String {
        self.units[range].iter().map(|u| u.html.as_str()).collect()
    }
}

/// What a line's notation could not be read as, for the warnings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Annotations removed, by kind, with counts.
    pub unsupported: std::collections::BTreeMap<String, usize>,
    /// `《` or `［＃` without its closing mark, by line number, with the mark.
    pub unmatched: Vec<(usize, &'static str)>,
    /// 外字 without a character in the table, kept as descriptions: line and description.
    pub described: Vec<(usize, String)>,
    /// Readings written.
    pub rubies: usize,
    /// Letters and digits of the annotations removed.
    pub letters: usize,
}

/// The notation a line is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Aozora Bunko: annotations, and a ruby's base the run of one script before `《`.
    Aozora,
    /// Web novels: no annotations; a base found without a bar is kanji or Latin letters, and
    /// its reading kana.
    Web,
}

/// Reads line `number` (1-based, for the report).
pub fn read(text: &str, mode: Mode, number: usize, report: &mut Report) -> Line {
    let chars: Vec<char> = text.chars().collect();
    let mut r = Reader {
        chars: &chars,
        mode,
        number,
        line: Line::default(),
        bar: None,
        open: Vec::new(),
        report,
    };
    let mut i = 0;
    while i < chars.len() {
        i = r.step(i);
    }
    let Reader { mut line, open, .. } = r;
    // A run left open closes at the end of its line.
    for (style, from) in open.into_iter().rev() {
        let end = line.units.len();
        apply(&mut line, from..end, style);
    }
    line
}

/// The text of `s` with its 外字 written as characters (what an annotation quotes).
pub fn plain(s: &str) -> String {
    let mut report = Report::default();
    let line = read(s, Mode::Aozora, 0, &mut report);
    line.units.iter().map(|u| u.plain.as_str()).collect()
}

struct Reader<'a> {
    chars: &'a [char],
    mode: Mode,
    number: usize,
    line: Line,
    /// Where a `｜` started a ruby's base: the unit index.
    bar: Option<usize>,
    /// Runs opened by an annotation and not yet closed: the style and the first unit.
    open: Vec<(Style, usize)>,
    report: &'a mut Report,
}

impl Reader<'_> {
    /// Reads from `i`; returns where to go on.
    fn step(&mut self, i: usize) -> usize {
        let c = self.chars[i];
        let aozora = self.mode == Mode::Aozora;
        match c {
            '※' if aozora && self.at(i + 1, "［＃") => {
                if let Some((end, note)) = self.annotation(i + 1)
                    && let Note::Character(found) = annotation::read(&note)
                {
                    self.character(found);
                    return end;
                }
                self.push(c);
                i + 1
            }
            '［' if aozora && self.at(i + 1, "＃") => match self.annotation(i) {
                Some((end, note)) => {
                    let read = annotation::read(&note);
                    if matches!(read, Note::Unsupported(_)) {
                        self.report.letters += note.chars().filter(|c| c.is_alphanumeric()).count();
                    }
                    self.note(read);
                    end
                }
                None => {
                    self.report.unmatched.push((self.number, "［＃"));
                    self.push(c);
                    i + 1
                }
            },
            '｜' | '|' if self.is_bar(i) => {
                if self.chars.get(i + 1) == Some(&'《') {
                    // `｜《` writes the bracket itself.
                    self.push('《');
                    return i + 2;
                }
                self.bar = Some(self.line.units.len());
                i + 1
            }
            '《' => self.ruby(i),
            '(' | '（' if self.mode == Mode::Web => self.paren_ruby(i),
            _ => {
                self.push(c);
                i + 1
            }
        }
    }

    fn at(&self, i: usize, s: &str) -> bool {
        s.chars()
            .enumerate()
            .all(|(k, c)| self.chars.get(i + k) == Some(&c))
    }

    fn push(&mut self, c: char) {
        self.line.units.push(Unit::char(c));
    }

    /// The annotation whose `［` is at `i`: the index after its `］` and its text.
    fn annotation(&self, i: usize) -> Option<(usize, String)> {
        let mut depth = 0;
        for (k, &c) in self.chars.iter().enumerate().skip(i) {
            match c {
                '［' => depth += 1,
                '］' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some((k + 1, self.chars[i + 2..k].iter().collect()));
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Whether the bar at `i` marks a ruby's base: a `《` (or, for web novels, an opening
    /// parenthesis) follows on the line before any other bar or `》`.
    fn is_bar(&self, i: usize) -> bool {
        let web = self.mode == Mode::Web;
        for &c in &self.chars[i + 1..] {
            match c {
                '《' => return true,
                '(' | '（' if web => return true,
                '｜' | '|' | '》' => return false,
                _ => {}
            }
        }
        false
    }

    /// `《` at `i`: a ruby's reading, `《《…》》` emphasis, or the bracket itself.
    fn ruby(&mut self, i: usize) -> usize {
        let find = |from: usize, s: &str| {
            (from..self.chars.len()).find(|&k| {
                s.chars()
                    .enumerate()
                    .all(|(j, c)| self.chars.get(k + j) == Some(&c))
            })
        };
        if self.chars.get(i + 1) == Some(&'《')
            && let Some(end) = find(i + 2, "》》")
        {
            let inner: String = self.chars[i + 2..end].iter().collect();
            let html = format!("<em class=\"sesame_dot\">{}</em>", escape_text(&inner));
            self.line.units.push(Unit::markup(inner, html));
            return end + 2;
        }
        let Some(end) = find(i + 1, "》") else {
            if self.mode == Mode::Aozora {
                self.report.unmatched.push((self.number, "《"));
            }
            self.push('《');
            return i + 1;
        };
        let reading: String = self.chars[i + 1..end].iter().collect();
        // Without a bar, a web novel's reading is kana: `读了《红楼梦》` names a book.
        let kana = self.mode == Mode::Aozora || is_kana(&reading);
        let from = self.bar.take().or_else(|| self.base().filter(|_| kana));
        match from {
            // A reading holds no other reading: `｜漢字《かんじ｜漢字《かんじ》》` is read inside out.
            Some(from)
                if from < self.line.units.len()
                    && !reading.is_empty()
                    && !reading.contains(['《', '｜']) =>
            {
                let n = self.line.units.len();
                apply(&mut self.line, from..n, Style::Ruby(plain(&reading)));
                self.report.rubies += 1;
                end + 1
            }
            _ => {
                self.push('《');
                i + 1
            }
        }
    }

    /// Web novels' `漢字（かんじ）` and `｜漢字(かんじ)`: a reading in kana in parentheses.
    fn paren_ruby(&mut self, i: usize) -> usize {
        let close = if self.chars[i] == '(' { ')' } else { '）' };
        let end = (i + 1..self.chars.len().min(i + 22)).find(|&k| self.chars[k] == close);
        let reading: Option<String> = end.map(|e| self.chars[i + 1..e].iter().collect());
        let kana = reading.as_deref().is_some_and(is_kana);
        let from = if kana {
            self.bar.take().or_else(|| self.base())
        } else {
            None
        };
        match (from, reading, end) {
            (Some(from), Some(reading), Some(end)) if from < self.line.units.len() => {
                let n = self.line.units.len();
                apply(&mut self.line, from..n, Style::Ruby(reading));
                self.report.rubies += 1;
                end + 1
            }
            _ => {
                self.push(self.chars[i]);
                i + 1
            }
        }
    }

    /// The first unit of the base a ruby finds without a bar: the run of characters of the
    /// last one's script (kanji only for web novels).
    fn base(&self) -> Option<usize> {
        let units = &self.line.units;
        let last = script(units.last()?.ch?);
        let fits = match self.mode {
            Mode::Aozora => last != Script::Other,
            // なろう reads a kanji or a Latin run (`ＲＰＧ《あーるぴーじー》`) as a base.
            Mode::Web => matches!(last, Script::Kanji | Script::WideLatin | Script::Latin),
        };
        if !fits {
            return None;
        }
        let run = units
            .iter()
            .rev()
            .take_while(|u| u.ch.is_some_and(|c| script(c) == last))
            .count();
        Some(units.len() - run)
    }

    fn character(&mut self, found: Gaiji) {
        match found {
            Gaiji::Found(s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => self.push(c),
                    _ => self
                        .line
                        .units
                        .push(Unit::markup(s.clone(), escape_text(&s))),
                }
            }
            Gaiji::Described(description) => {
                self.report
                    .described
                    .push((self.number, description.clone()));
                let text = format!("※（{description}）");
                let html = format!("<span class=\"gaiji\">{}</span>", escape_text(&text));
                self.line.units.push(Unit::markup(text, html));
            }
        }
    }

    fn note(&mut self, note: Note) {
        let n = self.line.units.len();
        match note {
            Note::Target(target, style) => {
                let quoted = plain(&target);
                match find(&self.line.units, &quoted) {
                    Some(range) => apply(&mut self.line, range, style),
                    // A heading whose quote does not match its line is still its line.
                    None if matches!(style, Style::Heading(..)) => {
                        apply(&mut self.line, 0..n, style)
                    }
                    None => self.unsupported("「…」 not found before it"),
                }
            }
            Note::Start(style) => self.open.push((style, n)),
            Note::End(style) => match self.open.iter().rposition(|(s, _)| same(s, &style)) {
                Some(k) => {
                    let (style, from) = self.open.remove(k);
                    apply(&mut self.line, from..n, style);
                }
                None => self.unsupported("…終わり without its start"),
            },
            Note::Block(..) | Note::BlockEnd(_) => self.line.blocks.push(note),
            Note::Indent(first, rest) if n == 0 => self.line.indent = Some((first, rest)),
            Note::Indent(..) => self.unsupported("N字下げ inside a line"),
            Note::Foot(k) => self.line.foot = Some((n, k)),
            Note::PageBreak => self.line.page_break = true,
            Note::LineBreak => self
                .line
                .units
                .push(Unit::markup(String::new(), "<br/>".into())),
            Note::Picture(file, caption) => {
                let html = format!(
                    "<img src=\"{}\" alt=\"{}\"/>",
                    escape_attr(&file),
                    escape_attr(&caption)
                );
                self.line.picture = true;
                self.line.units.push(Unit::markup(String::new(), html));
            }
            Note::Character(found) => self.character(found),
            Note::Kanbun(text, okurigana) => {
                let html = match okurigana {
                    true => format!("<sup class=\"okurigana\">{}</sup>", escape_text(&text)),
                    false => format!("<sub class=\"kaeriten\">{}</sub>", escape_text(&text)),
                };
                self.line.units.push(Unit::markup(text, html));
            }
            Note::Unsupported(kind) => self.unsupported(&kind),
        }
    }

    fn unsupported(&mut self, kind: &str) {
        *self.report.unsupported.entry(kind.to_string()).or_default() += 1;
    }
}

/// Whether an end annotation closes a run of `open`.
fn same(open: &Style, end: &Style) -> bool {
    match (open, end) {
        (Style::Heading(a, _), Style::Heading(b, _)) => a == b,
        _ => open == end,
    }
}

/// The last run of whole units whose text is `quoted`.
fn find(units: &[Unit], quoted: &str) -> Option<std::ops::Range<usize>> {
    if quoted.is_empty() {
        return None;
    }
    let mut starts = Vec::with_capacity(units.len() + 1);
    let mut text = String::new();
    for u in units {
        starts.push(text.len());
        text.push_str(&u.plain);
    }
    starts.push(text.len());
    text.rmatch_indices(quoted).find_map(|(at, m)| {
        let from = starts.iter().position(|&s| s == at)?;
        let to = starts.iter().position(|&s| s == at + m.len())?;
        (from < to).then_some(from..to)
    })
}

/// Puts `style` on units `range`: wraps them into one unit, or, for a heading, marks the line.
fn apply(line: &mut Line, range: std::ops::Range<usize>, style: Style) {
    if let Style::Heading(level, shared) = style {
        line.heading = Some((level, shared, range));
        return;
    }
    if range.is_empty() {
        return;
    }
    let inner = line.html(range.clone());
    let plain: String = line.units[range.clone()]
        .iter()
        .map(|u| u.plain.as_str())
        .collect();
    let html = match &style {
        Style::Mark(class) => format!("<em class=\"{class}\">{inner}</em>"),
        Style::Span(class) => format!("<span class=\"{class}\">{inner}</span>"),
        Style::Sup => format!("<sup>{inner}</sup>"),
        Style::Sub => format!("<sub>{inner}</sub>"),
        Style::Ruby(reading) => format!("<ruby>{inner}<rt>{}</rt></ruby>", escape_text(reading)),
        Style::Heading(..) => inner,
    };
    if let Some((_, _, h)) = &mut line.heading {
        // A heading marked before: its units move with the merge.
        let removed = range.len() - 1;
        if h.start >= range.end {
            *h = h.start - removed..h.end - removed;
        } else if h.end >= range.end && h.start <= range.start {
            h.end -= removed;
        }
    }
    line.units.splice(range, [Unit::markup(plain, html)]);
}

/// Whether a reading is all kana (with `ー`, `・` and spaces).
fn is_kana(reading: &str) -> bool {
    !reading.is_empty()
        && reading.chars().all(|c| {
            matches!(script(c), Script::Hiragana | Script::Katakana)
                || matches!(c, '・' | '　' | ' ')
        })
}

/// The scripts a ruby's base is a run of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Kanji,
    Hiragana,
    Katakana,
    WideLatin,
    Latin,
    Other,
}

fn script(c: char) -> Script {
    match c {
        '々'
        | '〆'
        | '〇'
        | 'ヶ'
        | '仝'
        | '〻'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}' => Script::Kanji,
        '\u{20000}'..='\u{3ffff}' => Script::Kanji,
        'ぁ'..='ゖ' | 'ゝ' | 'ゞ' => Script::Hiragana,
        'ァ'..='ヺ' | 'ー' | 'ヽ' | 'ヾ' | '\u{31f0}'..='\u{31ff}' => Script::Katakana,
        // Greek and Cyrillic are full-width letters in JIS X 0208.
        'Ａ'..='Ｚ' | 'ａ'..='ｚ' | '０'..='９' | '\u{370}'..='\u{3ff}' | '\u{400}'..='\u{4ff}' => {
            Script::WideLatin
        }
        c if c.is_ascii_alphanumeric() || matches!(c, 'À'..='ž') => Script::Latin,
        _ => Script::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(text: &str, mode: Mode) -> String {
        let mut report = Report::default();
        let line = read(text, mode, 1, &mut report);
        line.html(0..line.units.len())
    }

    fn ruby(base: &str, reading: &str) -> String {
        format!("<ruby>{base}<rt>{reading}</rt></ruby>")
    }

    #[test]
    fn a_ruby_base_is_the_run_of_one_script_or_starts_at_the_bar() {
        assert_eq!(
            html("吾輩は猫《ねこ》である", Mode::Aozora),
            format!("吾輩は{}である", ruby("猫", "ねこ"))
        );
        assert_eq!(
            html("その人の記憶《きおく》", Mode::Aozora),
            format!("その人の{}", ruby("記憶", "きおく"))
        );
        assert_eq!(
            html("お｜土産物《みやげもの》だ", Mode::Aozora),
            format!("お{}だ", ruby("土産物", "みやげもの"))
        );
        assert_eq!(
            html("ＡＢＣ《エービーシー》", Mode::Aozora),
            ruby("ＡＢＣ", "エービーシー")
        );
        assert_eq!(
            html("|異世界《いせかい》へ", Mode::Web),
            format!("{}へ", ruby("異世界", "いせかい"))
        );
    }

    #[test]
    fn web_novels_read_kana_in_parentheses_after_kanji_and_leave_titles_alone() {
        assert_eq!(html("漢字（かんじ）", Mode::Web), ruby("漢字", "かんじ"));
        assert_eq!(
            html("｜ＳＦ(えすえふ)", Mode::Web),
            ruby("ＳＦ", "えすえふ")
        );
        assert_eq!(html("本（２冊）", Mode::Web), "本（２冊）");
        assert_eq!(html("读了《红楼梦》", Mode::Web), "读了《红楼梦》");
        assert_eq!(html("ひらがな《よみ》", Mode::Web), "ひらがな《よみ》");
        assert_eq!(html("｜《ここ》", Mode::Web), "《ここ》");
        assert_eq!(
            html("次の｜漢字《かんじ｜漢字《かんじ》》", Mode::Web),
            format!("次の漢字《かんじ{}》", ruby("漢字", "かんじ"))
        );
    }

    #[test]
    fn emphasis_and_quoted_annotations_wrap_their_text() {
        assert_eq!(
            html("《《傍点》》です", Mode::Web),
            "<em class=\"sesame_dot\">傍点</em>です"
        );
        assert_eq!(
            html("彼は猫《ねこ》を見た［＃「猫を見た」に傍点］", Mode::Aozora),
            format!(
                "彼は<em class=\"sesame_dot\">{}を見た</em>",
                ruby("猫", "ねこ")
            )
        );
        assert_eq!(
            html("［＃太字］強く［＃太字終わり］言う", Mode::Aozora),
            "<span class=\"futoji\">強く</span>言う"
        );
        assert_eq!(
            html("昭和29［＃「29」は縦中横］年", Mode::Aozora),
            "昭和<span class=\"tcy\">29</span>年"
        );
    }

    #[test]
    fn characters_and_unmatched_marks() {
        assert_eq!(
            html("※［＃「てへん＋劣」、第3水準1-84-77］る", Mode::Aozora),
            "\u{6318}る"
        );
        let mut report = Report::default();
        let line = read(
            "※［＃「低のへん＋舌」、ページ数-行数］《あ",
            Mode::Aozora,
            7,
            &mut report,
        );
        assert!(line.html(0..line.units.len()).contains("※（低のへん＋舌）"));
        assert_eq!(report.unmatched, vec![(7, "《")]);
        assert_eq!(report.described, vec![(7, "低のへん＋舌".to_string())]);
        let line = read("壊れた［＃注記", Mode::Aozora, 3, &mut report);
        assert_eq!(line.units.len(), 7);
        assert_eq!(report.unmatched.last(), Some(&(3, "［＃")));
    }

    #[test]
    fn headings_indents_and_unsupported_notes_mark_the_line() {
        let mut report = Report::default();
        let line = read(
            "［＃５字下げ］一［＃「一」は中見出し］",
            Mode::Aozora,
            1,
            &mut report,
        );
        assert_eq!(line.indent, Some((5, 5)));
        assert_eq!(line.heading, Some((2, false, 0..1)));
        let line = read("［＃ページの左右中央］", Mode::Aozora, 2, &mut report);
        assert!(line.units.is_empty());
        assert_eq!(report.unsupported.get("ページの左右中央"), Some(&1));
        let line = read("本文［＃地から２字上げ］署名", Mode::Aozora, 3, &mut report);
        assert_eq!(line.foot, Some((2, 2)));
    }
}
