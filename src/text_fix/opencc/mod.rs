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

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;

/// A dictionary as a configuration names it.
#[derive(Debug)]
enum Dict {
    /// One embedded file, by OpenCC's name for it.
    File(&'static str),
    /// The longest match of any member.
    Union(&'static [Dict]),
    /// The match of the first member that has one.
    First(&'static [Dict]),
}

use Dict::{File, First, Union};

/// One configuration: its segmentation dictionary and its conversion steps.
#[derive(Debug)]
struct Spec {
    name: &'static str,
    segmentation: Option<Dict>,
    chain: &'static [Dict],
}

/// Every configuration normalises first with this.
const NORMALISE: Dict = File("CJK_Compatibility_Ideographs");

const ST_PHRASES: Dict = Union(&[
    File("STPhrases"),
    File("STPhrases_GeneratedFromRegionalPhrases"),
]);
const S2T: Dict = First(&[ST_PHRASES, File("STCharacters")]);
const T2S: Dict = First(&[
    File("TSPhrases"),
    File("TSCharactersExt"),
    File("TSCharacters"),
]);
const TW: Dict = First(&[File("TWVariantsPhrases"), File("TWVariants")]);
const TW_REV: Dict = First(&[File("TWVariantsRevPhrases"), File("TWVariantsRev")]);
const HK: Dict = First(&[File("HKVariantsPhrases"), File("HKVariants")]);
const HK_REV: Dict = First(&[File("HKVariantsRevPhrases"), File("HKVariantsRev")]);

/// OpenCC 1.4.2's configurations, as its `.json` files say (only those `convert` offers).
const SPECS: [Spec; 14] = [
    Spec {
        name: "s2t",
        segmentation: None,
        chain: &[S2T],
    },
    Spec {
        name: "t2s",
        segmentation: None,
        chain: &[T2S],
    },
    Spec {
        name: "s2tw",
        segmentation: Some(ST_PHRASES),
        chain: &[S2T, TW],
    },
    Spec {
        name: "tw2s",
        segmentation: Some(File("TSPhrases")),
        chain: &[TW_REV, T2S],
    },
    Spec {
        name: "s2twp",
        segmentation: Some(ST_PHRASES),
        chain: &[
            S2T,
            First(&[
                File("TWPhrases"),
                File("TWVariantsPhrases"),
                File("TWVariants"),
            ]),
        ],
    },
    Spec {
        name: "tw2sp",
        segmentation: Some(File("TSPhrases")),
        chain: &[
            First(&[
                File("TWPhrasesRev"),
                File("TWVariantsRevPhrases"),
                File("TWVariantsRev"),
            ]),
            T2S,
        ],
    },
    Spec {
        name: "s2hk",
        segmentation: Some(ST_PHRASES),
        chain: &[S2T, HK],
    },
    Spec {
        name: "hk2s",
        segmentation: Some(File("TSPhrases")),
        chain: &[HK_REV, T2S],
    },
    Spec {
        name: "t2tw",
        segmentation: None,
        chain: &[TW],
    },
    Spec {
        name: "tw2t",
        segmentation: None,
        chain: &[TW_REV],
    },
    Spec {
        name: "t2hk",
        segmentation: None,
        chain: &[HK],
    },
    Spec {
        name: "hk2t",
        segmentation: None,
        chain: &[HK_REV],
    },
    Spec {
        name: "t2jp",
        segmentation: None,
        chain: &[File("JPShinjitaiCharactersRev")],
    },
    Spec {
        name: "jp2t",
        segmentation: None,
        chain: &[First(&[
            File("JPShinjitaiPhrases"),
            File("JPShinjitaiCharacters"),
        ])],
    },
];

/// The text of an embedded dictionary file.
fn source(name: &str) -> &'static str {
    macro_rules! files {
        ($($file:literal),* $(,)?) => {
            match name {
                $($file => include_str!(concat!("data/", $file, ".txt")),)*
                _ => unreachable!("no OpenCC dictionary {name}"),
            }
        };
    }
    files!(
        "CJK_Compatibility_Ideographs",
        "HKVariants",
        "HKVariantsPhrases",
        "HKVariantsRev",
        "HKVariantsRevPhrases",
        "JPShinjitaiCharacters",
        "JPShinjitaiCharactersRev",
        "JPShinjitaiPhrases",
        "STCharacters",
        "STPhrases",
        "STPhrases_GeneratedFromRegionalPhrases",
        "TSCharacters",
        "TSCharactersExt",
        "TSPhrases",
        "TWPhrases",
        "TWPhrasesRev",
        "TWVariants",
        "TWVariantsPhrases",
        "TWVariantsRev",
        "TWVariantsRevPhrases",
    )
}

/// Keys of one or more files, for longest-prefix lookups: every key and every proper prefix of
/// a key is an entry, holding the key's first candidate or None for a bare prefix, so a lookup
/// walks forward one character at a time and stops at the first miss.
#[derive(Debug, Default)]
struct Table {
    entries: FxHashMap<&'static str, Option<&'static str>>,
}

impl Table {
    /// The files' keys; on a key in several, the earliest file's candidate.
    fn of(files: &[&'static str]) -> Table {
        let mut table = Table::default();
        for file in files {
            for line in source(file).lines() {
                let Some((key, values)) = line.split_once('\t') else {
                    continue;
                };
                let value = values.split(' ').next().unwrap_or("");
                if key.is_empty() {
                    continue;
                }
                for (i, _) in key.char_indices().skip(1) {
                    table.entries.entry(&key[..i]).or_insert(None);
                }
                let slot = table.entries.entry(key).or_insert(None);
                if slot.is_none() {
                    *slot = Some(value);
                }
            }
        }
        table
    }

    /// The longest key that `text` starts with: its length in bytes and its candidate.
    fn longest(&self, text: &str) -> Option<(usize, &'static str)> {
        let mut found = None;
        for (i, c) in text.char_indices() {
            let end = i + c.len_utf8();
            match self.entries.get(&text[..end]) {
                None => break,
                Some(Some(value)) => found = Some((end, *value)),
                Some(None) => {}
            }
        }
        found
    }
}

/// A dictionary ready for lookups.
#[derive(Debug)]
enum Matcher {
    Table(Arc<Table>),
    Union(Vec<Matcher>),
    First(Vec<Matcher>),
}

impl Matcher {
    /// The matcher of `dict`: a union of files is one table.
    fn of(dict: &Dict) -> Matcher {
        let mut files = Vec::new();
        if only_files(dict, &mut files) {
            return Matcher::Table(shared_table(files));
        }
        match dict {
            File(name) => Matcher::Table(shared_table(vec![name])),
            Union(members) => Matcher::Union(members.iter().map(Matcher::of).collect()),
            First(members) => Matcher::First(members.iter().map(Matcher::of).collect()),
        }
    }

    /// The longest match at the start of `text` (bytes, candidate), as the group decides.
    fn longest(&self, text: &str) -> Option<(usize, &'static str)> {
        match self {
            Matcher::Table(t) => t.longest(text),
            Matcher::First(members) => members.iter().find_map(|m| m.longest(text)),
            Matcher::Union(members) => {
                members
                    .iter()
                    .filter_map(|m| m.longest(text))
                    .fold(None, |best, m| match best {
                        Some((len, _)) if len >= m.0 => best,
                        _ => Some(m),
                    })
            }
        }
    }
}

/// Whether `dict` is a file or a union of files only (collected into `files`, in order).
fn only_files(dict: &Dict, files: &mut Vec<&'static str>) -> bool {
    match dict {
        File(name) => {
            files.push(name);
            true
        }
        Union(members) => members.iter().all(|m| only_files(m, files)),
        First(_) => false,
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
    normalise: Matcher,
    segmentation: Option<Matcher>,
    chain: Vec<Matcher>,
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
        Converter {
            normalise: Matcher::of(&NORMALISE),
            segmentation: spec.segmentation.as_ref().map(Matcher::of),
            chain: spec.chain.iter().map(Matcher::of).collect(),
        }
    }

    /// Converts `text` as OpenCC 1.4.2 does.
    pub fn convert(&self, text: &str) -> String {
        self.convert_marking(text, &mut [])
    }

    /// Converts `text`, and moves each of `marks` (byte offsets into `text`, ascending, on
    /// character boundaries) to the same place in the result. A mark inside a replaced key
    /// stays after as many characters of the replacement as of the key, when both have as
    /// many; else it goes after the replacement.
    pub fn convert_marking(&self, text: &str, marks: &mut [usize]) -> String {
        let mut normal = String::with_capacity(text.len());
        step(&self.normalise, text, &mut normal, marks);
        let mut out = String::with_capacity(normal.len() + normal.len() / 5);
        let (mut a, mut b) = (String::new(), String::new());
        let whole = [&normal[..]];
        let pieces = match &self.segmentation {
            None => whole.to_vec(),
            Some(seg) => segments(seg, &normal),
        };
        let (mut start, mut m) = (0, 0);
        for segment in pieces {
            let end = start + segment.len();
            let first = m;
            while m < marks.len() && marks[m] < end {
                marks[m] -= start;
                m += 1;
            }
            self.chain_on(segment, &mut out, [&mut a, &mut b], &mut marks[first..m]);
            start = end;
        }
        for mark in &mut marks[m..] {
            *mark = out.len();
        }
        out
    }

    /// Every step of the chain on one segment, appended to `out` (`scratch`: two buffers);
    /// `marks`, offsets into the segment, become offsets into `out`.
    fn chain_on(
        &self,
        segment: &str,
        out: &mut String,
        scratch: [&mut String; 2],
        marks: &mut [usize],
    ) {
        let [a, b] = scratch;
        let Some((last, first)) = self.chain.split_last() else {
            for mark in marks.iter_mut() {
                *mark += out.len();
            }
            out.push_str(segment);
            return;
        };
        if first.is_empty() {
            step(last, segment, out, marks);
            return;
        }
        a.clear();
        a.push_str(segment);
        for m in first {
            b.clear();
            step(m, a, b, marks);
            std::mem::swap(a, b);
        }
        step(last, a, out, marks);
    }
}

/// One conversion step over `text`, appended to `out`: the longest key at each position
/// becomes its candidate; anything else is copied (an ideographic description sequence whole).
/// `marks` (offsets into `text`, ascending) become offsets into `out`.
fn step(m: &Matcher, text: &str, out: &mut String, marks: &mut [usize]) {
    let (mut at, mut next) = (0, 0);
    while at < text.len() {
        let rest = &text[at..];
        let (len, value) = match m.longest(rest) {
            Some(found) => found,
            None => {
                let len = unmatched_len(rest);
                (len, &rest[..len])
            }
        };
        while next < marks.len() && marks[next] < at + len {
            marks[next] = out.len() + moved(&rest[..len], value, marks[next] - at);
            next += 1;
        }
        out.push_str(value);
        at += len;
    }
    for mark in &mut marks[next..] {
        *mark = out.len();
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

/// The segments of `text` by maximum forward matching: each longest match, and each run of
/// characters no key starts.
fn segments<'t>(m: &Matcher, text: &'t str) -> Vec<&'t str> {
    let mut out = Vec::new();
    let (mut run, mut at) = (0, 0);
    while at < text.len() {
        if let Some((len, _)) = m.longest(&text[at..]) {
            if run < at {
                out.push(&text[run..at]);
            }
            out.push(&text[at..at + len]);
            at += len;
            run = at;
        } else {
            at += unmatched_len(&text[at..]);
        }
    }
    if run < at {
        out.push(&text[run..]);
    }
    out
}

/// Bytes to copy at the start of `text` when no key matches there: a whole ideographic
/// description sequence, else one character.
fn unmatched_len(text: &str) -> usize {
    ids_len(text).unwrap_or_else(|| text.chars().next().map_or(text.len(), char::len_utf8))
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
