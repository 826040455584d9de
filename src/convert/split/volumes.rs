//! A book's volumes, decided by the whole file: the passes that run once the chapters are
//! known (the `structure` passes have taken out contents lists, repeats and page markers).
//!
//! - [`one_volume_per_label`]: a volume written before every chapter of it on the chapter's
//!   own line (`第十三卷 灯火阑珊 第2040章 …`, `第二部 第四章 …`) is one volume, opened by its
//!   first line; on the later lines the volume stays as a label of the chapter's title, so
//!   that every letter of the line reaches the book.
//! - [`implied_volumes`]: where the chapter numbering starts over (`第一章` after `第四十章`)
//!   with no volume heading between, a volume starts: the text shows it only by the restart
//!   (明朝那些事儿 marks 3 of its 7 volumes). It is headed by the short lines that stand right
//!   above the new run (`贰` / `朱棣篇`), or, with none, named after the book's marked volumes
//!   (`第一部` before a `第二部`) or by its place; either way the heading is marked as
//!   implied ([`super::Heading::implied`]), which the outline shows.
//!
//! Both passes walk the heading lines once, looking at a few lines around a restart: linear
//! in the file.

use super::auto::{self, Found, Weak};
use super::{HeadingKind, HeadingLine};

/// Most lines (not blank) right above a restart that may head its volume (`贰` / `朱棣篇`).
const TITLE_LINES: usize = 2;

/// Widest such line, in columns (CJK characters count 2).
const TITLE_WIDTH: usize = 60;

/// The shape of [`opener`] lines, which the split module confirms where the chapter
/// numbering starts over rather than by their recurring.
pub(super) const OPENER: &str = "volume opener";

/// Longest volume name before an opener's chapter heading, in characters.
const MAX_OPENER_CHARS: usize = 16;

/// [`auto::weak`]'s headings, and a volume's [`opener`] line: what every weak-heading reader
/// of the split takes (here, not in `auto`, so the modules import one way).
pub(super) fn weak(line: &str) -> Option<Weak> {
    auto::weak(line).or_else(|| auto::short_enough(line).then(|| opener(line)).flatten())
}

/// `张居正2－水龙吟 第一回　邸报中…`: a volume's name (a book's name and number, a title)
/// before the first chapter of the volume, on one line: a volume and its first chapter.
pub(super) fn opener(line: &str) -> Option<Weak> {
    let (at, label) = auto::before_di(line, 2..=MAX_OPENER_CHARS)?;
    let prose = [
        '。', '，', '！', '？', '；', '“', '”', '、', ',', '!', '?', ';', '"',
    ];
    if label.contains(prose) {
        return None;
    }
    let chapter = match auto::detect_heading(line.get(at..)?).as_slice() {
        [f] if f.kind == HeadingKind::Chapter && f.number == Some(1) => f.clone(),
        _ => return None,
    };
    let volume = Found {
        kind: HeadingKind::Volume,
        title: auto::collapse_spaces(label),
        number: None,
        other: None,
        repaired: false,
    };
    Some(Weak {
        found: vec![volume, chapter],
        shape: OPENER.to_string(),
        unless: None,
    })
}

/// The unit and number of a numbered volume heading (`第二部【青云路】` gives 部 2).
fn volume_key(f: &Found) -> Option<(char, u64)> {
    (f.kind == HeadingKind::Volume)
        .then(|| Some((auto::family(&f.title).0.unit, f.number?)))
        .flatten()
}

/// A volume repeated on every chapter line of it (`第十三卷 灯火阑珊 第2040章 …`, then
/// `第十三卷 灯火阑珊 第2041章 …`) opens once: on a line holding a volume and a chapter, a
/// volume with the unit and number of the volume already open is the chapter's label (kept
/// at the start of its title), not a new volume, unless the chapter numbering starts over
/// there. A volume heading on a line of its own is left alone: `第一季 第二卷`, `第一季 第三卷`
/// are volumes of their own.
pub(super) fn one_volume_per_label(found: &mut [HeadingLine]) {
    let mut open: Option<(char, u64)> = None;
    let mut last: Option<u64> = None;
    for h in found.iter_mut() {
        let key = h.found.first().and_then(volume_key);
        let number = h.found.last().filter(|f| f.kind == HeadingKind::Chapter);
        let number = number.and_then(|f| f.number);
        // Chapters numbered anew are a new volume, whatever its label says.
        if number.is_some_and(|n| n <= 1) && last.is_some_and(|l| l >= 2) {
            open = None;
        }
        last = number.or(last);
        let combined = matches!(
            h.found.as_slice(),
            [v, c] if v.kind == HeadingKind::Volume && c.kind == HeadingKind::Chapter
        );
        if combined && key.is_some() && key == open {
            let volume = h.found.remove(0);
            let chapter = &mut h.found[0];
            chapter.title = format!("{} {}", volume.title, chapter.title);
        } else if key.is_some() {
            open = key;
        } else if h.found.iter().any(|f| f.kind == HeadingKind::Volume) {
            open = None;
        }
    }
}

/// Whether a heading opens a run of chapters before its first number (`序章`, `楔子`,
/// `序幕`), rather than closing the one before (`尾声`, `后记`).
fn opens_a_run(h: &HeadingLine) -> bool {
    matches!(h.found.as_slice(), [f] if f.kind == HeadingKind::Chapter
        && f.number.is_none()
        && f.title.starts_with(['序', '楔', '引', '前']))
}

/// Where a run of chapters starting at heading `k` really starts: before the opening
/// headings right above it (`序幕` before `第一幕`).
fn run_start(found: &[HeadingLine], mut k: usize) -> usize {
    while k > 0 && opens_a_run(&found[k - 1]) {
        k -= 1;
    }
    k
}

/// The heading lines that start a run of chapters numbered anew with no volume heading since
/// the run before (see [`implied_volumes`]).
fn restarts(found: &[HeadingLine]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut last: Option<u64> = None;
    let mut volume_since = false;
    for (k, h) in found.iter().enumerate() {
        for f in &h.found {
            match (f.kind, f.number) {
                (HeadingKind::Volume, _) => volume_since = true,
                (HeadingKind::Chapter, Some(n)) => {
                    if n <= 1 && last.is_some_and(|l| l >= 2) && !volume_since {
                        out.push(run_start(found, k));
                    }
                    (last, volume_since) = (Some(n), false);
                }
                (HeadingKind::Chapter, None) => {}
            }
        }
    }
    out
}

/// Where the chapter numbering starts over (`第一章` after `第四十章`) with no volume heading
/// since the run before, a volume starts; and when the book so has volumes, the first run of
/// chapters is one too if nothing heads it. Each such volume is headed by the short lines
/// right above its run (at most [`TITLE_LINES`], only blank lines between them and the run,
/// none of them prose), which become its heading line; else it has no line of its own, and a
/// title made from the book's other volumes (`第一部` before `第二部`) or from its place.
pub(super) fn implied_volumes(found: &mut Vec<HeadingLine>, lines: &[&str]) {
    let starts = restarts(found);
    let first = first_run(found, !starts.is_empty());
    if starts.is_empty() && first.is_none() {
        return;
    }
    let style = VolumeStyle::of(found);
    let mut out: Vec<HeadingLine> = Vec::with_capacity(found.len() + starts.len() + 1);
    let mut next = first.iter().chain(&starts).peekable();
    let mut volumes = 0;
    for (k, h) in std::mem::take(found).into_iter().enumerate() {
        if next.next_if_eq(&&k).is_some() {
            volumes += 1;
            // The front matter above the first run has no title of the volume's.
            let floor = out.last().map_or(0, |p| p.index + p.span);
            let titled = (Some(k) != first)
                .then(|| title_lines(lines, floor, h.index))
                .flatten();
            out.push(titled.unwrap_or_else(|| HeadingLine {
                index: h.index,
                found: vec![style.volume(volumes)],
                wrapped: None,
                span: 0,
                implied: true,
                glued: None,
            }));
        }
        if h.found.iter().any(|f| f.kind == HeadingKind::Volume) {
            volumes += 1;
        }
        out.push(h);
    }
    *found = out;
}

/// Where the first run of chapters starts when it needs a volume of its own: nothing heads
/// it, and the book has volumes after it, numbered from 2 on (`第二部`, the first `第一部`
/// left out) or found by the numbering (`restarted`).
fn first_run(found: &[HeadingLine], restarted: bool) -> Option<usize> {
    let is_volume = |h: &HeadingLine| h.found.iter().any(|f| f.kind == HeadingKind::Volume);
    let numbered = |h: &HeadingLine| {
        h.found
            .iter()
            .any(|f| f.kind == HeadingKind::Chapter && f.number.is_some())
    };
    let k = found.iter().position(numbered)?;
    if found[..=k].iter().any(is_volume) {
        return None;
    }
    let next_volume = found[k..]
        .iter()
        .flat_map(|h| &h.found)
        .find(|f| f.kind == HeadingKind::Volume);
    let second = next_volume.is_some_and(|f| f.number.is_some_and(|n| n >= 2));
    (restarted || second).then(|| run_start(found, k))
}

/// The short lines right above line `end` (0-based, after `floor`) that head a volume found
/// by the numbering: at most [`TITLE_LINES`] lines, each at most [`TITLE_WIDTH`] columns,
/// with no sentence punctuation, not a heading and not a note in brackets (`（《怒海潜沙篇》
/// 完）`), only blank lines between them and `end`. The first is the heading line, the others
/// its wrapped title.
fn title_lines(lines: &[&str], floor: usize, end: usize) -> Option<HeadingLine> {
    let mut taken: Vec<usize> = Vec::new();
    for i in (floor..end).rev() {
        let line = auto::trim_line(lines[i]);
        if line.is_empty() {
            continue;
        }
        if taken.len() == TITLE_LINES || !is_title_line(line) {
            break;
        }
        taken.push(i);
    }
    // A title stands apart from the text above it, as headings do: a line glued under the
    // text (a signature `——江南`) is the text's, not the title's.
    while let Some(&top) = taken.last()
        && top > floor
        && !auto::trim_line(lines[top - 1]).is_empty()
    {
        taken.pop();
    }
    let &top = taken.last()?;
    let mut title = auto::collapse_spaces(auto::trim_line(lines[top]));
    let wrapped: Vec<String> = taken[..taken.len() - 1]
        .iter()
        .rev()
        .map(|&i| auto::collapse_spaces(auto::trim_line(lines[i])))
        .collect();
    let span = taken[0] + 1 - top;
    if !wrapped.is_empty() {
        title.push(' ');
        title.push_str(&wrapped.join(" "));
    }
    Some(HeadingLine {
        index: top,
        found: vec![Found {
            kind: HeadingKind::Volume,
            title,
            number: None,
            other: None,
            repaired: false,
        }],
        wrapped: None,
        span,
        implied: true,
        glued: None,
    })
}

/// Display width, counting characters from U+1100 up (CJK, full-width forms) as 2.
fn width(text: &str) -> usize {
    text.chars()
        .map(|c| if c < '\u{1100}' { 1 } else { 2 })
        .sum()
}

/// `n` in Chinese numerals (`十二`, `二十一`), in Arabic digits from 100 on: a volume's
/// number.
fn to_chinese(n: u64) -> String {
    const DIGITS: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
    let digit = |d: u64| DIGITS[d as usize].to_string();
    match n {
        0..=9 => digit(n),
        10..=19 => format!("十{}", if n > 10 { digit(n % 10) } else { String::new() }),
        20..=99 if n.is_multiple_of(10) => format!("{}十", digit(n / 10)),
        20..=99 => format!("{}十{}", digit(n / 10), digit(n % 10)),
        _ => n.to_string(),
    }
}

/// Whether a trimmed line may be a volume's title: short, no sentence punctuation, not a
/// heading, not a note in brackets.
fn is_title_line(line: &str) -> bool {
    const PROSE: [char; 14] = [
        '。', '，', '！', '？', '；', '…', '!', '?', ';', ',', '“', '”', '"', '、',
    ];
    auto::short_enough(line)
        && width(line) <= TITLE_WIDTH
        && !line.contains(PROSE)
        && !line.starts_with(['（', '(', '[', '【', '<', '＜'])
        && auto::detect(line).is_empty()
}

/// How the book's own volume headings are written (`第二部`, `第陆卷`), to name a volume the
/// text leaves unmarked in the same way.
struct VolumeStyle {
    /// The unit of the book's numbered volumes, `卷` when it has none.
    unit: char,
    /// Their numerals: formal (`壹贰`), Arabic or plain Chinese.
    numerals: Numerals,
}

/// How a volume number is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Numerals {
    Chinese,
    Formal,
    Arabic,
}

impl VolumeStyle {
    /// The style of the first numbered `第…` volume heading of the book.
    fn of(found: &[HeadingLine]) -> VolumeStyle {
        let marked = found
            .iter()
            .flat_map(|h| &h.found)
            .filter(|f| f.kind == HeadingKind::Volume && f.number.is_some())
            .find_map(|f| {
                let text = f.title.strip_prefix('第')?;
                let numerals = match text.chars().next()? {
                    c if c.is_ascii_digit() => Numerals::Arabic,
                    '壹' | '贰' | '貳' | '叁' | '參' | '肆' | '伍' | '陆' | '陸' | '柒' | '捌'
                    | '玖' | '拾' => Numerals::Formal,
                    _ => Numerals::Chinese,
                };
                Some((auto::family(&f.title).0.unit, numerals))
            });
        let (unit, numerals) = marked.unwrap_or(('卷', Numerals::Chinese));
        // Named after the book's volumes only when their numbers are their places (with the
        // ones to be implied, at most one before each): `第一季 第二卷`, `第一季 第三卷` are
        // not the first, second... 季.
        let numbers: Vec<u64> = found
            .iter()
            .flat_map(|h| &h.found)
            .filter(|f| f.kind == HeadingKind::Volume)
            .filter_map(|f| f.number)
            .collect();
        let places = numbers.windows(2).all(|w| w[1] > w[0]);
        match places {
            true => VolumeStyle { unit, numerals },
            false => VolumeStyle {
                unit: '卷',
                numerals: Numerals::Chinese,
            },
        }
    }

    /// The heading of the `n`th volume (1-based), which the text does not write.
    fn volume(&self, n: usize) -> Found {
        let n = n as u64;
        let number = match self.numerals {
            Numerals::Arabic => n.to_string(),
            Numerals::Chinese => to_chinese(n),
            Numerals::Formal => to_chinese(n)
                .chars()
                .map(|c| match c {
                    '一' => '壹',
                    '二' => '贰',
                    '三' => '叁',
                    '四' => '肆',
                    '五' => '伍',
                    '六' => '陆',
                    '七' => '柒',
                    '八' => '捌',
                    '九' => '玖',
                    '十' => '拾',
                    c => c,
                })
                .collect(),
        };
        Found {
            kind: HeadingKind::Volume,
            title: format!("第{number}{}", self.unit),
            number: None,
            other: None,
            repaired: false,
        }
    }
}
