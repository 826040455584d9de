//! Aozora Bunko's notation (青空文庫 注記一覧) and web novels' (小説家になろう, カクヨム).
//!
//! Part of the convert stage. A plain-text file in Aozora notation (its legend block
//! 【テキスト中に現れる記号について】 between dashed lines, its `［＃…］` annotations, its
//! `底本：` footer) is translated here, line by line, into the XHTML the HTML converter reads:
//! `<h1>`–`<h3>` for 大/中/小見出し (so that the file is cut into parts, chapters and sections
//! at them), `<ruby>` for readings, classes for 傍点, 傍線, 字下げ, 地付き and the rest (see
//! [`annotation`], [`inline`], [`layout`]); its legend is dropped and counted, its footer made a
//! colophon page. Text in web-novel notation keeps the plain-text path and has its readings
//! and emphasis written by [`paragraph_xhtml`].

pub mod annotation;
pub mod gaiji;
pub mod inline;
pub mod layout;
pub mod marks;

use inline::{Line, Mode, Report};
use layout::Blocks;

/// An Aozora Bunko text translated to XHTML.
#[derive(Debug, Clone, Default)]
pub struct Translated {
    /// The body: the title lines, then the text, as HTML the markup converter reads.
    pub html: String,
    /// The `底本：` block at the end, one paragraph a line.
    pub colophon: Option<String>,
    /// The deepest heading level used (1 大見出し … 3 小見出し); 0 for none.
    pub deepest: usize,
    /// Headings written.
    pub headings: usize,
    /// What could not be read.
    pub report: Report,
    /// Letters and digits of the legend block, dropped.
    pub legend: usize,
    /// Annotations removed, in total.
    pub removed: usize,
}

/// Whether `text` is written in Aozora Bunko's notation: its legend block, or its
/// annotations (`［＃…］`, at least two, or one with a `底本：` footer).
pub fn is_aozora(text: &str) -> bool {
    // Most texts have neither annotations nor the legend's title: two fast searches tell.
    // The legend lies within the first lines ([`LEGEND_WITHIN`]): only those are split.
    let annotated = text.contains("［＃");
    if (annotated || text.contains(LEGEND_TITLE)) && legend(&head_lines(text)).is_some() {
        return true;
    }
    if !annotated {
        return false;
    }
    let notes = text.matches("［＃").count();
    notes >= 2 || (notes == 1 && text.lines().any(|l| l.starts_with("底本：")))
}

/// Whether a line is an Aozora Bunko heading (`一［＃「一」は中見出し］`, `［＃大見出し］…`,
/// `［＃ここから中見出し］`): what `init` counts as a chapter of a text to split.
pub fn is_heading_line(line: &str) -> bool {
    line.contains("［＃")
        && ["大見出し", "中見出し", "小見出し"].iter().any(|h| {
            line.contains(&format!("は{h}］"))
                || line.contains(&format!("［＃{h}］"))
                || line.contains(&format!("［＃ここから{h}］"))
        })
}

/// Whether a line is a web novel's page break: `［newpage］`, `[newpage]` (pixiv), `【改ページ】`.
pub fn is_page_break(line: &str) -> bool {
    let t = line.trim();
    let inner = t
        .strip_prefix('［')
        .and_then(|t| t.strip_suffix('］'))
        .or_else(|| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
        .or_else(|| t.strip_prefix('【').and_then(|t| t.strip_suffix('】')));
    inner.is_some_and(|i| i.eq_ignore_ascii_case("newpage") || i == "改ページ")
}

/// Letters and digits of the page-break lines of a text (see [`is_page_break`]): notation.
pub fn page_break_letters(text: &str) -> usize {
    text.lines()
        .filter(|l| is_page_break(l))
        .map(|l| l.chars().filter(|c| c.is_alphanumeric()).count())
        .sum()
}

/// The first [`LEGEND_WITHIN`] lines of a text, all that [`legend`] reads.
fn head_lines(text: &str) -> Vec<&str> {
    (text.split('\n').take(LEGEND_WITHIN))
        .map(|l| l.trim_end_matches('\r'))
        .collect()
}

fn lines(text: &str) -> Vec<&str> {
    text.split('\n').map(|l| l.trim_end_matches('\r')).collect()
}

/// A dashed rule of the legend block (the kind of every character first: most lines fail at
/// their first).
fn is_rule(line: &str) -> bool {
    let t = line.trim();
    t.chars().all(|c| matches!(c, '-' | '－' | '─' | '━')) && t.chars().count() >= 10
}

/// Where the legend's first rule may stand (among the first lines) and how far its second may
/// follow it.
const LEGEND_START: usize = 40;
const LEGEND_LINES: usize = 80;

/// How many of a text's first lines [`legend`] reads.
const LEGEND_WITHIN: usize = LEGEND_START + 1 + LEGEND_LINES;

/// What the legend's title says, one of the three lines after its first rule.
const LEGEND_TITLE: &str = "テキスト中に現れる記号";

/// The legend block's lines (rule to rule, both included), when the text has one near its top.
fn legend(lines: &[&str]) -> Option<std::ops::Range<usize>> {
    let start = lines.iter().take(LEGEND_START).position(|l| is_rule(l))?;
    let after = lines[start + 1..].iter().take(3);
    if !after.clone().any(|l| l.contains(LEGEND_TITLE)) {
        return None;
    }
    let end = lines[start + 1..]
        .iter()
        .take(LEGEND_LINES)
        .position(|l| is_rule(l))?;
    Some(start..start + end + 2)
}

/// Where the `底本：` footer starts, if the text has one in its last part.
fn footer(lines: &[&str], body_start: usize) -> Option<usize> {
    let at = lines.iter().rposition(|l| {
        l.trim_start().starts_with("底本：") || l.trim_start().starts_with("底本:")
    })?;
    (at >= body_start && lines.len() - at <= 60).then_some(at)
}

/// Translates an Aozora Bunko text.
pub fn translate(text: &str) -> Translated {
    let lines = lines(text);
    let mut out = Translated::default();
    let (head_end, body_start) = match legend(&lines) {
        Some(range) => {
            out.legend = lines[range.clone()]
                .iter()
                .map(|l| l.chars().filter(|c| c.is_alphanumeric()).count())
                .sum();
            (range.start, range.end)
        }
        None => (0, 0),
    };
    let end = footer(&lines, body_start).unwrap_or(lines.len());
    let mut writer = Writer::default();
    for (i, line) in lines[..head_end].iter().enumerate() {
        let read = inline::read(line.trim(), Mode::Aozora, i + 1, &mut out.report);
        if !read.units.is_empty() {
            let class = if i == 0 { "ao-title" } else { "ao-head" };
            writer.html.push_str(&format!(
                "<p class=\"{class}\">{}</p>\n",
                read.html(0..read.units.len())
            ));
        }
    }
    for (i, line) in lines.iter().enumerate().take(end).skip(body_start) {
        let mut read = inline::read(line, Mode::Aozora, i + 1, &mut out.report);
        if is_page_break(line) {
            read = Line {
                page_break: true,
                ..Line::default()
            };
        }
        writer.line(read, line, &mut out);
    }
    writer.close(&mut out);
    out.html = writer.html;
    out.colophon = colophon(&lines[end..], end, &mut out.report);
    out.removed = out.report.unsupported.values().sum();
    out
}

/// The diagnostics of a translation of the file at `path`: one per kind of annotation removed,
/// one per unmatched mark and per 外字 kept as its description, at their lines.
pub fn diagnostics(path: &std::path::Path, t: &Translated) -> Vec<crate::diagnostic::Diagnostic> {
    use crate::diagnostic::{Code, Diagnostic};
    let mut out = Vec::new();
    for (kind, n) in &t.report.unsupported {
        let message = format!("removed {n} Aozora annotation(s) not supported: ［＃{kind}］");
        out.push(Diagnostic::warning(Code::AozoraAnnotation, message).at(path));
    }
    for (line, mark) in &t.report.unmatched {
        let message = format!("{mark} is not closed on its line: kept as written");
        out.push(
            Diagnostic::warning(Code::AozoraUnmatched, message)
                .at(path)
                .line(Some(*line)),
        );
    }
    for (line, description) in &t.report.described {
        let message = format!(
            "外字 「{description}」 has no character in the JIS X 0213 table: its description is kept"
        );
        out.push(
            Diagnostic::warning(Code::AozoraGaiji, message)
                .at(path)
                .line(Some(*line)),
        );
    }
    out
}

/// Whether a line opens with a space (the indent of a paragraph).
fn starts_blank(line: &str) -> bool {
    line.starts_with(['　', ' ', '\t'])
}

/// The footer's lines, one paragraph each.
fn colophon(lines: &[&str], first: usize, report: &mut Report) -> Option<String> {
    let mut html = String::new();
    for (i, line) in lines.iter().enumerate() {
        let read = inline::read(line.trim(), Mode::Aozora, first + i + 1, report);
        if !read.units.is_empty() {
            html.push_str(&format!("<p>{}</p>\n", read.html(0..read.units.len())));
        }
    }
    (!html.is_empty()).then_some(html)
}

/// Writes the body, line by line.
#[derive(Default)]
struct Writer {
    html: String,
    blocks: Blocks,
    /// Lines of a `ここから…見出し` block: level and their XHTML.
    heading: Option<(usize, Vec<String>)>,
    /// Blank lines since the last paragraph.
    blanks: usize,
    /// A page break waits for the next paragraph or heading.
    page_break: bool,
    /// Whether the text since the last heading has a paragraph.
    text_since_heading: bool,
}

impl Writer {
    fn line(&mut self, line: Line, raw: &str, out: &mut Translated) {
        let blank_start = starts_blank(raw);
        for kind in self.blocks.start(&line) {
            *out.report.unsupported.entry(kind).or_default() += 1;
        }
        self.page_break |= line.page_break;
        if self.heading.is_none()
            && let Some(level) = self.blocks.heading()
        {
            self.heading = Some((level, Vec::new()));
        }
        if let Some((_, parts)) = &mut self.heading {
            if !line.units.is_empty() {
                parts.push(line.html(0..line.units.len()));
            }
        } else if let Some((level, shared, range)) = line.heading.clone() {
            self.write_heading(level, &line.html(range.clone()), out);
            if shared {
                let rest = Line {
                    units: [&line.units[..range.start], &line.units[range.end..]].concat(),
                    heading: None,
                    ..line.clone()
                };
                self.paragraphs(&rest, blank_start);
            }
        } else if line.units.is_empty() {
            self.blanks += usize::from(raw.trim().is_empty());
        } else {
            self.paragraphs(&line, blank_start);
        }
        let stray = self.blocks.end(&line);
        if stray > 0 {
            *out.report
                .unsupported
                .entry("ここで…終わり without its start".into())
                .or_default() += stray;
        }
        if self.blocks.heading().is_none()
            && let Some((level, parts)) = self.heading.take()
        {
            self.write_heading(level, &parts.join("\u{3000}"), out);
        }
    }

    fn write_heading(&mut self, level: usize, html: &str, out: &mut Translated) {
        let level = level.clamp(1, 3);
        let class = self.take_page_break();
        self.html
            .push_str(&format!("<h{level}{class}>{html}</h{level}>\n"));
        out.deepest = out.deepest.max(level);
        out.headings += 1;
        self.blanks = 0;
        self.text_since_heading = false;
    }

    fn take_page_break(&mut self) -> &'static str {
        match std::mem::take(&mut self.page_break) {
            true => " class=\"ao-newpage\"",
            false => "",
        }
    }

    /// The paragraphs of a line: one, or two when a `地付き` stands inside it.
    fn paragraphs(&mut self, line: &Line, blank_start: bool) {
        let n = line.units.len();
        let (cut, foot) = match line.foot {
            Some((at, up)) if at > 0 && at < n => (at, Some(up)),
            Some((_, up)) => (0, Some(up)),
            None => (0, None),
        };
        let mut first = 0;
        // The paragraph's indent is the stylesheet's: one leading space of the source goes.
        if blank_start
            && matches!(
                line.units.first().and_then(|u| u.ch),
                Some('　' | ' ' | '\t')
            )
        {
            first = 1;
        }
        if cut > 0 {
            self.paragraph(line, first..cut, None, !blank_start);
            self.paragraph(line, cut..n, foot, true);
        } else {
            self.paragraph(line, first..n, foot, !blank_start);
        }
    }

    fn paragraph(
        &mut self,
        line: &Line,
        range: std::ops::Range<usize>,
        foot: Option<u32>,
        flush: bool,
    ) {
        if range.is_empty() {
            return;
        }
        if self.text_since_heading {
            for _ in 0..self.blanks.min(3) {
                self.html.push_str("<p class=\"ao-blank\">\u{3000}</p>\n");
            }
        }
        self.blanks = 0;
        let mut classes = self.blocks.classes(line, foot, flush);
        if std::mem::take(&mut self.page_break) {
            classes.push("ao-newpage".into());
        }
        let class = match classes.is_empty() {
            true => String::new(),
            false => format!(" class=\"{}\"", classes.join(" ")),
        };
        self.html
            .push_str(&format!("<p{class}>{}</p>\n", line.html(range)));
        self.text_since_heading = true;
    }

    /// Writes a heading block left open at the end of the text.
    fn close(&mut self, out: &mut Translated) {
        if let Some((level, parts)) = self.heading.take() {
            self.write_heading(level, &parts.join("\u{3000}"), out);
        }
    }
}

/// A paragraph of plain text as XHTML, with the readings and emphasis of web-novel notation
/// (`｜漢字《かんじ》`, `漢字《かんじ》`, `漢字（かんじ）` in kana, `《《傍点》》`) and Project
/// Gutenberg's `_italics_` (see [`super::emphasis`]) when it has none.
pub fn paragraph_xhtml(text: &str) -> String {
    if !text.contains(['《', '（', '(']) {
        return super::emphasis::paragraph_xhtml(text);
    }
    let mut report = Report::default();
    let line = inline::read(text, Mode::Web, 0, &mut report);
    if report.rubies == 0 && !line.units.iter().any(|u| u.ch.is_none()) {
        return super::emphasis::paragraph_xhtml(text);
    }
    line.html(0..line.units.len())
}

#[cfg(test)]
mod tests;
