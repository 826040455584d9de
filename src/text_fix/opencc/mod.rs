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

/// Keys of one or more files as a trie of characters, for longest-prefix lookups: a lookup
/// walks forward one character (one edge) at a time and stops at the first character no key
/// continues with. Every position of a text starts a lookup, most of which end at once, so
/// the first step is an array indexed by the character (for the Basic Multilingual Plane),
/// and a node is only a number whose flags say whether a key ends there and whether a longer
/// one goes on: a lookup reads nothing else until it finds a key. Other edges are one hash
/// map keyed by node and character.
#[derive(Debug)]
struct Table {
    /// The node of each key's first character below U+10000; 0 for none.
    first: Box<[u32]>,
    /// Every other edge: (parent node's index, character) to child node.
    edges: FxHashMap<(u32, char), u32>,
    /// A bit for each edge of `edges`, by [`edge_bit`]: most lookups in it miss, and a miss
    /// here costs less than one in the map (this stays in a fast cache; the map does not).
    edge_bits: Box<[u64]>,
    /// A bit for each character below U+10000 that starts a key.
    starts: Box<[u64]>,
    /// The candidate of the key that ends at each node index ("" where none does).
    values: Vec<&'static str>,
    /// Whether every key is one character, none of them an ideographic description one.
    single_chars: bool,
}

/// A node's flag: a key ends there.
const VALUED: u32 = 1 << 31;
/// A node's flag: a longer key goes on from there.
const INNER: u32 = 1 << 30;
/// A node's index, without its flags.
const INDEX: u32 = INNER - 1;
/// The characters the first step's array covers.
const FIRST: usize = 0x1_0000;
/// How many bits [`Table::edge_bits`] has (a power of two): some ten for each edge of the
/// largest table.
const EDGE_BITS: usize = 1 << 20;

/// The bit of an edge in [`Table::edge_bits`].
#[inline]
fn edge_bit(node: u32, c: char) -> usize {
    let h = (u64::from(node) << 21 | u64::from(c)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> (64 - EDGE_BITS.trailing_zeros())) as usize
}

/// Whether bit `i` of `bits` is set.
#[inline]
fn bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] & (1 << (i % 64)) != 0
}

impl Table {
    /// The files' keys; on a key in several, the earliest file's candidate.
    fn of(files: &[&'static str]) -> Table {
        let mut table = Table {
            first: vec![0; FIRST].into_boxed_slice(),
            edges: FxHashMap::default(),
            edge_bits: vec![0; EDGE_BITS / 64].into_boxed_slice(),
            starts: vec![0; FIRST / 64].into_boxed_slice(),
            values: vec![""],
            single_chars: true,
        };
        let mut flags = vec![0];
        for file in files {
            for line in source(file).lines() {
                let Some((key, values)) = line.split_once('\t') else {
                    continue;
                };
                if !key.is_empty() {
                    let mut chars = key.chars();
                    let one = chars
                        .next()
                        .filter(|&c| arity(c) == 0 && chars.next().is_none());
                    table.single_chars &= one.is_some();
                    let value = values.split(' ').next().unwrap_or("");
                    table.insert(key, value, &mut flags);
                }
            }
        }
        // Each node's flags into every reference to it.
        let flagged = |n: u32| n | flags[n as usize];
        for n in table.first.iter_mut().filter(|n| **n != 0) {
            *n = flagged(*n);
        }
        for (&(node, c), n) in table.edges.iter_mut() {
            *n = flagged(*n);
            let i = edge_bit(node, c);
            table.edge_bits[i / 64] |= 1 << (i % 64);
        }
        for (c, _) in table.first.iter().enumerate().filter(|(_, n)| **n != 0) {
            table.starts[c / 64] |= 1 << (c % 64);
        }
        table
    }

    /// Adds `key` with its candidate `value`, unless it is already there (`flags`: each node
    /// index's flags so far; references to nodes carry none until [`Table::of`] is done).
    fn insert(&mut self, key: &str, value: &'static str, flags: &mut Vec<u32>) {
        let mut node = 0;
        for c in key.chars() {
            flags[node as usize] |= INNER;
            let known = match c as usize {
                i if node == 0 && i < FIRST => self.first[i],
                _ => self.edges.get(&(node, c)).copied().unwrap_or(0),
            };
            node = match known {
                0 => {
                    let n = u32::try_from(self.values.len())
                        .ok()
                        .filter(|&n| n <= INDEX)
                        .expect("fewer than 2^30 dictionary nodes");
                    self.values.push("");
                    flags.push(0);
                    match c as usize {
                        i if node == 0 && i < FIRST => self.first[i] = n,
                        _ => {
                            self.edges.insert((node, c), n);
                        }
                    }
                    n
                }
                n => n & INDEX,
            };
        }
        if flags[node as usize] & VALUED == 0 {
            flags[node as usize] |= VALUED;
            self.values[node as usize] = value;
        }
    }

    /// The node under the node with index `node` by `c`, with its flags; 0 for none.
    #[inline]
    fn child(&self, node: u32, c: char) -> u32 {
        if node == 0 && (c as usize) < FIRST {
            return self.first[c as usize];
        }
        if !bit(&self.edge_bits, edge_bit(node, c)) {
            return 0;
        }
        self.edges.get(&(node, c)).copied().unwrap_or(0)
    }

    /// Whether some key may start with `c` (every character from U+10000 may).
    #[inline]
    fn may_start(&self, c: char) -> bool {
        (c as usize) >= FIRST || bit(&self.starts, c as usize)
    }

    /// The longest key that `text` starts with: its length in bytes and its candidate.
    #[inline]
    fn longest(&self, text: &str) -> Option<(usize, &'static str)> {
        let mut chars = text.char_indices();
        let (_, c) = chars.next()?;
        let mut node = self.child(0, c);
        let mut end = c.len_utf8();
        let mut found = None;
        while node != 0 {
            if node & VALUED != 0 {
                found = Some((end, self.values[(node & INDEX) as usize]));
            }
            if node & INNER == 0 {
                break;
            }
            let Some((i, c)) = chars.next() else { break };
            node = self.child(node & INDEX, c);
            end = i + c.len_utf8();
        }
        found
    }
}

/// A dictionary ready for lookups.
#[derive(Debug, Clone)]
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

    /// [`Matcher::longest`], after a look at whether any key starts with the first character.
    #[inline]
    fn lookup(&self, text: &str) -> Option<(usize, &'static str)> {
        let c = text.chars().next()?;
        if self.may_start(c) {
            self.longest(text)
        } else {
            None
        }
    }

    /// Whether some key may start with `c`.
    fn may_start(&self, c: char) -> bool {
        match self {
            Matcher::Table(t) => t.may_start(c),
            Matcher::Union(members) | Matcher::First(members) => {
                members.iter().any(|m| m.may_start(c))
            }
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
    /// When the first step's first dictionary is the segmentation's, the rest of that step:
    /// see [`Converter::known_first`].
    known: Option<Matcher>,
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
        let known = Converter::known_first(segmentation.as_ref(), chain.first());
        Converter {
            normalise: Matcher::of(&NORMALISE),
            segmentation,
            chain,
            known,
        }
    }

    /// The rest of the first step when its work is known from the segmentation: when the
    /// step is a `First` group whose first dictionary is the segmentation's and whose others
    /// only have keys of one character (no ideographic description character), that
    /// dictionary matches a segment that is one of its keys as a whole, and never matches
    /// inside a run of characters that none of its keys starts (the step walks such a run
    /// character by character, as the segmentation did); so a matched segment becomes its
    /// candidate, and a run needs only the rest of the group. (`s2tw`, `s2hk` and `s2twp`:
    /// the phrases are looked up once instead of twice.)
    fn known_first(segmentation: Option<&Matcher>, first: Option<&Matcher>) -> Option<Matcher> {
        let (Some(Matcher::Table(seg)), Some(Matcher::First(members))) = (segmentation, first)
        else {
            return None;
        };
        let (Matcher::Table(lead), rest) = members.split_first()? else {
            return None;
        };
        let single = |m: &Matcher| matches!(m, Matcher::Table(t) if t.single_chars);
        (Arc::ptr_eq(seg, lead) && rest.iter().all(single)).then(|| Matcher::First(rest.to_vec()))
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
        let mut a = String::with_capacity(text.len());
        step(&self.normalise, text, &mut a, &mut [], marks);
        let mut b = String::with_capacity(a.len() + a.len() / 5);
        let mut ends = Vec::new();
        let mut chain = self.chain.iter();
        if let Some(seg) = &self.segmentation {
            let segments = segments(seg, &a);
            ends = segments.iter().map(|s| s.0).collect();
            if let Some(rest) = &self.known {
                chain.next();
                let lookup = |segment: usize, text: &str| match segments[segment].1 {
                    Some(value) => Some((text.len(), value)),
                    None => rest.lookup(text),
                };
                step_with(&a, &mut b, &mut ends, marks, lookup);
                std::mem::swap(&mut a, &mut b);
            }
        }
        for m in chain {
            b.clear();
            step(m, &a, &mut b, &mut ends, marks);
            std::mem::swap(&mut a, &mut b);
        }
        a
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

/// One conversion step over `text`, appended to `out`, by the dictionary `m`.
fn step(m: &Matcher, text: &str, out: &mut String, ends: &mut [usize], marks: &mut [usize]) {
    step_with(text, out, ends, marks, |_, rest| m.lookup(rest));
}

/// One conversion step over `text`, appended to `out`: at each position the match `lookup`
/// finds (given the segment's index and the text from there to the segment's end) becomes its
/// candidate; anything else is copied (an ideographic description sequence whole), a run of
/// it at once. `ends` (the segments' ends, ascending, the last the text's end; or none) and
/// `marks` (ascending) are offsets into `text` that become offsets into `out`.
fn step_with(
    text: &str,
    out: &mut String,
    ends: &mut [usize],
    marks: &mut [usize],
    mut lookup: impl FnMut(usize, &str) -> Option<(usize, &'static str)>,
) {
    let mut marks = Moving {
        offsets: marks,
        next: 0,
    };
    // text[copied..at] is copied as it is, when the run ends.
    let (mut at, mut copied, mut segment) = (0, 0, 0);
    let mut limit = ends.first().copied().unwrap_or(text.len());
    while at < text.len() {
        while at >= limit {
            ends[segment] = out.len() + at - copied;
            segment += 1;
            limit = ends.get(segment).copied().unwrap_or(text.len());
        }
        let rest = &text[at..limit];
        let Some((len, value)) = lookup(segment, rest) else {
            at += unmatched_len(rest);
            continue;
        };
        marks.copied(at, copied, out.len());
        out.push_str(&text[copied..at]);
        marks.replaced(at, &rest[..len], value, out.len());
        out.push_str(value);
        at += len;
        copied = at;
    }
    marks.finish(text.len(), copied, out.len());
    let mut ends = Moving {
        offsets: &mut ends[segment..],
        next: 0,
    };
    ends.finish(text.len(), copied, out.len());
    out.push_str(&text[copied..]);
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

/// The segments of `text` by maximum forward matching, as their ends: each longest match with
/// its candidate, and each run of characters no key starts.
fn segments(m: &Matcher, text: &str) -> Vec<(usize, Option<&'static str>)> {
    let mut out = Vec::new();
    let (mut run, mut at) = (0, 0);
    while at < text.len() {
        if let Some((len, value)) = m.lookup(&text[at..]) {
            if run < at {
                out.push((at, None));
            }
            at += len;
            out.push((at, Some(value)));
            run = at;
        } else {
            at += unmatched_len(&text[at..]);
        }
    }
    if run < at {
        out.push((at, None));
    }
    out
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
