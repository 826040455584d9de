//! OpenCC 1.4.2's conversion: its dictionaries (embedded, `data/`) and its algorithm, written
//! here from its documented behaviour, so that `[book] convert` gives exactly what the
//! reference implementation gives (the crates we tried carry older dictionaries).
//!
//! A configuration (OpenCC's `data/config/*.json`, transcribed in [`SPECS`]) is:
//! - a normalisation pass (CJK compatibility ideographs to their unified forms) over the whole
//!   text;
//! - an optional segmentation: maximum forward matching with a dictionary, where each longest
//!   match is a segment and each run of unmatched characters is one;
//! - a chain of conversion steps, each applied to every segment in turn (a segment stays one
//!   segment through the chain): at each position the longest key of the step's dictionary
//!   that starts there is replaced by its first candidate, else one character is copied.
//!
//! A dictionary is a file or a group of them: a `First` group answers with the first member
//! that has any match (OpenCC's `short_circuit`), a `Union` with the longest match of all
//! (ties to the earlier member). An ideographic description sequence (`⿰钅只`) that no key
//! starts is copied whole, so its components are never converted.
//!
//! Tables are built on first use, only for the configurations a process uses, and shared.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

mod dicts;
mod fused;
mod lookup;
mod table;

use dicts::{Dict, NORMALISE, SPECS, Spec, entries, files, source};
use lookup::{CANDIDATE, Chars, Found, LEAD, LOOK, Lookup, SINGLE, output, phrases_then_chars};
use table::{FIRST, Matcher, Pairs, Table, decode};

/// Adds the pairs of characters that follow each other in `key` to `inner`, or makes it None
/// when the key holds white space (or what a line is trimmed of) or an ideographic
/// description character.
fn note_inner(key: &str, inner: &mut Option<Vec<(u32, u32)>>) {
    let Some(pairs) = inner else { return };
    let odd = |c: char| crate::lines::is_line_space(c) || arity(c) > 0;
    if key.chars().any(odd) {
        *inner = None;
        return;
    }
    let mut chars = key.chars().map(u32::from);
    let mut prev = chars.next();
    for c in chars {
        pairs.extend(prev.map(|p| (p, c)));
        prev = Some(c);
    }
}

/// The table of `files`, built once per process (several configurations share tables).
fn shared_table(files: Vec<&'static str>) -> Arc<Table> {
    static TABLES: OnceLock<Mutex<HashMap<Vec<&'static str>, Arc<Table>>>> = OnceLock::new();
    let tables = TABLES.get_or_init(Default::default);
    if let Some(t) = tables.lock().unwrap_or_else(|e| e.into_inner()).get(&files) {
        return t.clone();
    }
    let table = Arc::new(Table::of(&files));
    let mut tables = tables.lock().unwrap_or_else(|e| e.into_inner());
    tables.entry(files).or_insert(table).clone()
}

/// A configuration ready to convert.
#[derive(Debug)]
pub struct Converter {
    normalise: Lookup,
    segmentation: Segmentation,
    chain: Vec<Lookup>,
    /// The filters of the pairs of characters that follow each other in the keys of the
    /// segmentation and the steps; None when some key holds white space or an ideographic
    /// description character.
    follows: Option<Vec<Pairs>>,
    /// The two steps in one pass, where they can be (with [`Segmentation::WithFirstStep`]).
    fused: Option<fused::Fused>,
}

/// How a configuration segments the text.
#[derive(Debug)]
enum Segmentation {
    None,
    /// By its own pass.
    Apart(Lookup),
    /// In the first step's pass: see [`Converter::segmenting_first`].
    WithFirstStep,
}

impl Converter {
    /// The configuration named `name` (one of OpenCC's, without `.json`), shared by the
    /// process and built on first use; None for a name we do not offer.
    pub fn named(name: &str) -> Option<&'static Converter> {
        static MADE: [OnceLock<Converter>; SPECS.len()] = [const { OnceLock::new() }; SPECS.len()];
        let i = SPECS.iter().position(|s| s.name == name)?;
        Some(MADE[i].get_or_init(|| Converter::of(&SPECS[i])))
    }

    /// The names of the configurations, in OpenCC's spelling.
    #[cfg(test)]
    fn names() -> impl Iterator<Item = &'static str> {
        SPECS.iter().map(|s| s.name)
    }

    fn of(spec: &Spec) -> Converter {
        let segmentation = spec.segmentation.as_ref().map(Matcher::of);
        let chain: Vec<Matcher> = spec.chain.iter().map(Matcher::of).collect();
        let mut tables = Vec::new();
        segmentation
            .iter()
            .chain(&chain)
            .for_each(|m| m.tables(&mut tables));
        // The segmentation's phrases are the first step's too: one filter each.
        let mut seen: Vec<&Arc<Table>> = Vec::new();
        tables.retain(|&t| {
            let new = !seen.iter().any(|s| Arc::ptr_eq(s, t));
            seen.push(t);
            new
        });
        let follows = (!tables.iter().any(|t| t.odd))
            .then(|| tables.iter().filter_map(|t| t.inner.clone()).collect());
        let segmentation = match segmentation {
            Some(s) if Converter::segmenting_first(Some(&s), chain.first()) => {
                Segmentation::WithFirstStep
            }
            Some(s) => Segmentation::Apart(Lookup::new(s)),
            None => Segmentation::None,
        };
        let chain: Vec<Lookup> = chain.into_iter().map(Lookup::new).collect();
        let fused = match (&segmentation, &chain[..], spec.chain) {
            (Segmentation::WithFirstStep, [first, second], [_, dict]) => {
                fused::Fused::of(first, second, dict)
            }
            _ => None,
        };
        Converter {
            normalise: Lookup::new(Matcher::of(&NORMALISE)),
            segmentation,
            chain,
            follows,
            fused,
        }
    }

    /// Whether a key may hold `a` followed by `b`, or conversion may otherwise treat the two
    /// side by side differently from the two with a line break between them (false: it
    /// converts `a` and `b` apart whether a break, or white space, parts them or not).
    pub fn may_join(&self, a: char, b: char) -> bool {
        let ids = |c: char| arity(c) > 0;
        let Some(follows) = &self.follows else {
            return true;
        };
        ids(a) || ids(b) || follows.iter().any(|f| f.may(a.into(), b.into()))
    }

    /// Whether the first step's work is known from the segmentation: when the step is a
    /// `First` group whose first dictionary is the segmentation's and has no key of one
    /// character, and whose others only have keys of one character (no ideographic
    /// description character), that dictionary matches a segment that is one of its keys as
    /// a whole, and never matches inside a run of characters that none of its keys starts
    /// (the step walks such a run character by character, as the segmentation did). So one
    /// pass of the step over the whole text both converts and segments it: a key longer than
    /// one character is a segment of its own, and what lies between such keys a run.
    /// (`s2tw`, `s2hk` and `s2twp`: the phrases are looked up once instead of twice.)
    fn segmenting_first(segmentation: Option<&Matcher>, first: Option<&Matcher>) -> bool {
        let (Some(Matcher::Table(seg)), Some(first)) = (segmentation, first) else {
            return false;
        };
        phrases_then_chars(first).is_some_and(|lead| Arc::ptr_eq(seg, &lead))
    }

    /// Converts `text` as OpenCC 1.4.2 does.
    pub fn convert(&self, text: &str) -> String {
        self.convert_marking(text, &mut [])
    }

    /// Converts `text`, and moves each of `marks` (byte offsets into `text`, ascending, on
    /// character boundaries) to the same place in the result. A mark inside a replaced key
    /// stays after as many characters of the replacement as of the key, when both have as
    /// many; else it goes after the replacement.
    ///
    /// Each step runs over the whole text at once: the segments' ends are offsets that every
    /// step moves as it moves the marks, and no key is looked up across one (OpenCC converts
    /// each segment apart).
    pub fn convert_marking(&self, text: &str, marks: &mut [usize]) -> String {
        let mut current = Cow::Borrowed(text);
        if !self.normalise.passes(text) {
            let mut out = String::with_capacity(text.len());
            step(&self.normalise, text, &mut out, &mut [], marks);
            current = Cow::Owned(out);
        }
        let mut ends = Vec::new();
        let mut chain = self.chain.iter();
        match &self.segmentation {
            Segmentation::WithFirstStep => {
                let one_pass = self.fused.as_ref().and_then(|f| f.convert(&current, marks));
                if let Some(out) = one_pass {
                    return out;
                }
                let mut out = String::with_capacity(current.len() + current.len() / 5);
                let first = chain.next().expect("a first step");
                ends = segmenting_step(first, &current, &mut out, marks);
                current = Cow::Owned(out);
            }
            Segmentation::Apart(seg) => ends = segments(seg, &current),
            Segmentation::None => {}
        }
        for m in chain {
            let mut out = String::with_capacity(current.len() + current.len() / 5);
            step(m, &current, &mut out, &mut ends, marks);
            current = Cow::Owned(out);
        }
        current.into_owned()
    }
}

/// Offsets into a step's input, ascending, moved to the same places in its output as the
/// step goes.
struct Moving<'a> {
    offsets: &'a mut [usize],
    /// The first offset not moved yet.
    next: usize,
}

impl Moving<'_> {
    /// The first offset not moved yet; `usize::MAX` when none is left.
    #[inline]
    fn peek(&self) -> usize {
        self.offsets.get(self.next).copied().unwrap_or(usize::MAX)
    }

    /// Moves the offsets before `at`, which fall in text copied unchanged from input offset
    /// `copied` to output offset `out`.
    fn copied(&mut self, at: usize, copied: usize, out: usize) {
        while self.next < self.offsets.len() && self.offsets[self.next] < at {
            self.offsets[self.next] = out + self.offsets[self.next] - copied;
            self.next += 1;
        }
    }

    /// Moves the offsets inside `key`, at input offset `at`, replaced by `value` at output
    /// offset `out`.
    fn replaced(&mut self, at: usize, key: &str, value: &str, out: usize) {
        while self.next < self.offsets.len() && self.offsets[self.next] < at + key.len() {
            self.offsets[self.next] = out + moved(key, value, self.offsets[self.next] - at);
            self.next += 1;
        }
    }

    /// Moves the rest: those at the end of the input go to the end of the output.
    fn finish(&mut self, len: usize, copied: usize, out: usize) {
        self.copied(len, copied, out);
        let end = out + len - copied;
        for offset in &mut self.offsets[self.next..] {
            *offset = end;
        }
    }
}

/// One conversion step over `text`, appended to `out`, by `lookup`: at each position the
/// longest match becomes its candidate; anything else is copied (an ideographic description
/// sequence whole), a run of it at once. `ends` (the segments' ends, ascending, the last the
/// text's end; or none) and `marks` (ascending) are offsets into `text` that become offsets
/// into `out`.
fn step(lookup: &Lookup, text: &str, out: &mut String, ends: &mut [usize], marks: &mut [usize]) {
    let mut out = Output::new(lookup, text, out, marks);
    let mut at = 0;
    for segment in 0..ends.len().max(1) {
        let limit = ends.get(segment).copied().unwrap_or(text.len());
        while let Some((found, what)) = lookup.next(text, at, limit, Some(&mut out)) {
            at = found + out.found(found, what);
        }
        at = limit;
        if let Some(end) = ends.get_mut(segment) {
            *end = out.offset(at);
        }
    }
    out.finish();
}

/// The segmentation and the first step in one pass, where [`Converter::segmenting_first`]
/// says that they can be: `text` converted into `out`, `marks` moved, and the segments' ends
/// in `out` returned.
fn segmenting_step(
    lookup: &Lookup,
    text: &str,
    out: &mut String,
    marks: &mut [usize],
) -> Vec<usize> {
    let mut out = Output::new(lookup, text, out, marks);
    let mut ends = Vec::new();
    // The current run of characters that no phrase starts, from `run`.
    let (mut at, mut run) = (0, 0);
    while let Some((found, what)) = lookup.next(text, at, text.len(), Some(&mut out)) {
        let phrase = matches!(what, Found::Key(len, _) if len > decode(text.as_bytes(), found).1);
        if phrase && run < found {
            ends.push(out.offset(found));
        }
        at = found + out.found(found, what);
        if phrase {
            ends.push(out.offset(at));
            run = at;
        }
    }
    if run < text.len() {
        ends.push(out.offset(text.len()));
    }
    out.finish();
    ends
}

/// A step's output as it is written: what the input holds is copied a run at a time, and
/// the marks move with it.
struct Output<'a> {
    text: &'a str,
    out: &'a mut String,
    marks: Moving<'a>,
    /// text[copied..] is not written yet.
    copied: usize,
    /// Whether the walk writes every character ([`Lookup::writes_all`]).
    writes_all: bool,
}

impl<'a> Output<'a> {
    /// The output of `lookup` over `text`, written to `out`, with `marks` to move.
    fn new(
        lookup: &Lookup,
        text: &'a str,
        out: &'a mut String,
        marks: &'a mut [usize],
    ) -> Output<'a> {
        Output {
            text,
            out,
            marks: Moving {
                offsets: marks,
                next: 0,
            },
            copied: 0,
            writes_all: lookup.writes_all(text),
        }
    }

    /// Does what a lookup `found` at input offset `at`: writes the text up to it and the
    /// candidate of a key, or leaves what is to be copied for later. The input's length
    /// it covers.
    #[inline]
    fn found(&mut self, at: usize, what: Found) -> usize {
        match what {
            Found::Key(len, value) => {
                self.replace(at, len, value);
                len
            }
            Found::Char(len, value) => {
                self.replace_char(at, len, value);
                len
            }
            Found::Copy(len) => len,
        }
    }

    /// Writes the text up to input offset `at`, then the character `value` for the one
    /// character (`len` bytes) there.
    #[inline]
    fn replace_char(&mut self, at: usize, len: usize, value: u32) {
        let (text, out) = (self.text, &mut *self.out);
        self.marks.copied(at, self.copied, out.len());
        out.push_str(&text[self.copied..at]);
        // A mark there (none falls inside a character) goes where the candidate starts.
        self.marks.copied(at + len, at, out.len());
        out.push(char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER));
        self.copied = at + len;
    }

    /// Writes the text up to input offset `at`.
    #[inline]
    fn catch_up(&mut self, at: usize) {
        if self.copied < at {
            self.marks.copied(at, self.copied, self.out.len());
            self.out.push_str(&self.text[self.copied..at]);
            self.copied = at;
        }
    }

    /// Writes the text up to input offset `at`, then `value` for the `len` bytes there.
    #[inline]
    fn replace(&mut self, at: usize, len: usize, value: &str) {
        let (text, out) = (self.text, &mut *self.out);
        self.marks.copied(at, self.copied, out.len());
        out.push_str(&text[self.copied..at]);
        self.marks
            .replaced(at, &text[at..at + len], value, out.len());
        out.push_str(value);
        self.copied = at + len;
    }

    /// Where input offset `at` (not inside a replaced key) falls in the output.
    fn offset(&self, at: usize) -> usize {
        self.out.len() + at - self.copied
    }

    /// Writes the rest of the input and moves the rest of the marks.
    fn finish(mut self) {
        let len = self.text.len();
        self.marks.finish(len, self.copied, self.out.len());
        self.out.push_str(&self.text[self.copied..]);
    }
}

/// Where an offset `inside` the replaced `key` falls in its replacement `value`.
fn moved(key: &str, value: &str, inside: usize) -> usize {
    if inside == 0 {
        return 0;
    }
    let before = key[..inside].chars().count();
    if key.chars().count() != value.chars().count() {
        return value.len();
    }
    value
        .char_indices()
        .nth(before)
        .map_or(value.len(), |(i, _)| i)
}

/// The segments of `text` by maximum forward matching, as their ends: each longest match,
/// and each run of characters no key starts.
fn segments(lookup: &Lookup, text: &str) -> Vec<usize> {
    let mut ends = Vec::new();
    let (mut run, mut at) = (0, 0);
    while let Some((found, what)) = lookup.next(text, at, text.len(), None) {
        match what {
            Found::Key(len, _) | Found::Char(len, _) => {
                if run < found {
                    ends.push(found);
                }
                at = found + len;
                ends.push(at);
                run = at;
            }
            Found::Copy(len) => at = found + len,
        }
    }
    if run < text.len() {
        ends.push(text.len());
    }
    ends
}

/// Bytes to copy at the start of `text` when no key matches there: a whole ideographic
/// description sequence, else one character.
fn unmatched_len(text: &str) -> usize {
    match text.chars().next() {
        None => 0,
        Some(c) if arity(c) == 0 => c.len_utf8(),
        Some(c) => ids_len(text).unwrap_or(c.len_utf8()),
    }
}

/// How many operands an ideographic description character takes (0: not one).
fn arity(c: char) -> usize {
    match c {
        '\u{2FF2}' | '\u{2FF3}' => 3,
        '\u{2FFE}' | '\u{2FFF}' => 1,
        '\u{2FF0}'..='\u{2FFD}' => 2,
        _ => 0,
    }
}

/// The length in bytes of the complete ideographic description sequence `text` starts with:
/// an operator and its operands, each a character or a sequence, at most 16 levels deep and
/// 64 characters long. None when `text` does not start with an operator, or the sequence is
/// cut short or too big.
fn ids_len(text: &str) -> Option<usize> {
    /// Consumes one operand or sequence at `text[at..]`; `count` counts characters.
    fn operand(text: &str, at: usize, depth: usize, count: &mut usize) -> Option<usize> {
        if depth == 0 || *count >= 64 {
            return None;
        }
        let c = text[at..].chars().next()?;
        *count += 1;
        let mut end = at + c.len_utf8();
        for _ in 0..arity(c) {
            end = operand(text, end, depth - 1, count)?;
        }
        Some(end)
    }
    let first = text.chars().next()?;
    if arity(first) == 0 {
        return None;
    }
    operand(text, 0, 16, &mut 0)
}

#[cfg(test)]
mod tests;
