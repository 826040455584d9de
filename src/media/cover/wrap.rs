//! Breaking the cover's title, subtitle and authors into lines or columns: kinsoku for CJK,
//! whole words for Latin, lines balanced, the type shrunk until it fits.

pub(super) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x2E80..=0x2FDF | 0x3000..=0x30FF | 0x3100..=0x312F
        | 0x3190..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
}

/// Characters that may not start a line (closing brackets, stops, small kana marks).
fn no_line_start(c: char) -> bool {
    "、。，．・：；？！ー」』）》〉】〕〗〙〟…‥—–-～々ゝゞヽヾぁぃぅぇぉっゃゅょァィゥェォッャュョ),.!?:;]}”’"
        .contains(c)
}

/// Characters that may not end a line (opening brackets).
fn no_line_end(c: char) -> bool {
    "「『（《〈【〔〖〘〝([{“‘".contains(c)
}

/// A Latin word may break after a hyphen or a slash ("Self-|Reliance", "Input/|Output").
fn breaks_after(previous: char, c: char) -> bool {
    matches!(previous, '-' | '/') && c.is_alphanumeric()
}

/// Break opportunities: one token per CJK character, one per Latin word (or part of a
/// hyphenated one), with kinsoku rules gluing punctuation to its neighbour. The flag says
/// whether a space precedes the token.
pub(super) fn tokens(text: &str) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = Vec::new();
    let mut space = false;
    let mut glue_next = false;
    for c in text.chars() {
        if c.is_whitespace() && c != '\u{3000}' {
            space = !out.is_empty();
            glue_next = false;
            continue;
        }
        let joins_prev = !space
            && (glue_next
                || no_line_start(c)
                || out
                    .last()
                    .and_then(|(t, _)| t.chars().last())
                    .is_some_and(|p| {
                        !is_cjk(p) && !is_cjk(c) && !no_line_end(p) && !breaks_after(p, c)
                    }));
        match out.last_mut() {
            Some((t, _)) if joins_prev => t.push(c),
            _ => out.push((c.to_string(), space)),
        }
        glue_next = no_line_end(c);
        space = false;
    }
    out
}

/// Greedy line breaking of `tokens` into lines no longer than `max` (by `measure`); a token
/// longer than `max` on its own is split per character.
pub(super) fn wrap(
    tokens: &[(String, bool)],
    max: f32,
    measure: &dyn Fn(&str) -> f32,
) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for (token, space) in tokens {
        let candidate = if line.is_empty() {
            token.clone()
        } else if *space {
            format!("{line} {token}")
        } else {
            format!("{line}{token}")
        };
        if measure(&candidate) <= max || line.is_empty() && measure(token) <= max {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if measure(token) <= max {
            line = token.clone();
        } else {
            for c in token.chars() {
                let mut next = line.clone();
                next.push(c);
                if !line.is_empty() && measure(&next) > max {
                    lines.push(std::mem::take(&mut line));
                    next = c.to_string();
                }
                line = next;
            }
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Like [`wrap`], but with the same number of lines made as even as possible, so a title does
/// not end with one orphaned character.
pub(super) fn wrap_balanced(
    tokens: &[(String, bool)],
    max: f32,
    measure: &dyn Fn(&str) -> f32,
) -> Vec<String> {
    let greedy = wrap(tokens, max, measure);
    if greedy.len() < 2 {
        return greedy;
    }
    let n = greedy.len();
    let total: f32 = greedy.iter().map(|l| measure(l)).sum();
    // Never narrower than the widest word: a narrower trial would break it in the middle.
    let mut width = (total / n as f32).max(widest(tokens, measure));
    while width < max {
        let trial = wrap(tokens, width, measure);
        if trial.len() <= n {
            return trial;
        }
        width += max * 0.02;
    }
    greedy
}

/// The smallest type a title, subtitle or author line is set in, whatever `fit` is asked for:
/// below it a word that still does not fit is broken (a 60-letter word, a URL).
pub(super) const SMALLEST_EM: f32 = 28.0;

/// The widest single token, by `measure`.
pub(super) fn widest(tokens: &[(String, bool)], measure: &dyn Fn(&str) -> f32) -> f32 {
    tokens.iter().map(|(t, _)| measure(t)).fold(0.0, f32::max)
}

/// The em size and lines for `text` in lines of `width`: fewer lines are preferred as long as
/// the size stays above 60% of `start` (a title reads better on one line at 150 px than on two
/// at 200), then sizes go down to `min` with up to `max_lines` lines. Below `min` the text is
/// set at `min` however many lines it takes. Lines break at spaces, after hyphens and between
/// CJK characters, never inside a word: the type starts no larger than the size at which the
/// longest word fits the width, and shrinks below `min` when it must (down to
/// [`SMALLEST_EM`]).
pub(super) fn fit(
    text: &str,
    start: f32,
    min: f32,
    width: f32,
    max_lines: usize,
    measure: &dyn Fn(&str, f32) -> f32,
) -> (f32, Vec<String>) {
    let toks = tokens(text);
    // `measure` is linear in the size, so the size at which the widest word just fits is one
    // division away.
    let at_one = widest(&toks, &|s: &str| measure(s, 1.0));
    let word_fits = if at_one > 0.0 {
        width / at_one * 0.999
    } else {
        start
    };
    let start = start.min(word_fits).max(SMALLEST_EM.min(start));
    let min = min.min(start);
    let floor = (start * 0.6).max(min);
    for allowed in 1..=max_lines.max(1) {
        let last = allowed == max_lines.max(1);
        let mut em = start;
        loop {
            let m = |s: &str| measure(s, em);
            let lines = wrap_balanced(&toks, width, &m);
            let fits = lines.len() <= allowed && lines.iter().all(|l| m(l) <= width + 0.5);
            if fits || last && em <= min {
                return (em, lines);
            }
            let lowest = if last { min } else { floor };
            if em <= lowest {
                break;
            }
            em = (em * 0.92).max(lowest);
        }
    }
    (min, wrap(&toks, width, &|s: &str| measure(s, min)))
}

pub(super) fn join_authors(authors: &[String]) -> String {
    let names: Vec<&str> = authors
        .iter()
        .map(|a| a.trim())
        .filter(|a| !a.is_empty())
        .collect();
    if names.iter().any(|n| n.chars().any(is_cjk)) {
        names.join("　")
    } else {
        match names.as_slice() {
            [] => String::new(),
            [one] => (*one).to_string(),
            [rest @ .., last] => format!("{} & {last}", rest.join(", ")),
        }
    }
}
