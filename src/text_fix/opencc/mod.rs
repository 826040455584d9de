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

use aho_corasick::{AhoCorasick, MatchKind};

mod fused;

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

/// The text of an embedded dictionary file, its lines sorted by key (by `build.rs`).
fn source(name: &str) -> &'static str {
    macro_rules! files {
        ($($file:literal),* $(,)?) => {
            match name {
                $($file => include_str!(concat!(env!("OUT_DIR"), "/opencc/", $file, ".txt")),)*
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

/// The entries of a dictionary file: each line's key and first candidate (a line is the key,
/// a tab, and candidates parted by spaces; a line without a tab is skipped).
fn entries(text: &'static str) -> impl Iterator<Item = (&'static str, &'static str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        while !rest.is_empty() {
            let b = rest.as_bytes();
            let end = memchr::memchr(b'\n', b).unwrap_or(b.len());
            let (line, bytes) = (&rest[..end], &b[..end]);
            rest = rest.get(end + 1..).unwrap_or("");
            let Some(tab) = bytes.iter().position(|&c| c == b'\t') else {
                continue;
            };
            let candidates = &bytes[tab + 1..];
            let stop = candidates.iter().position(|&c| c == b' ' || c == b'\r');
            let stop = stop.map_or(end, |i| tab + 1 + i);
            return Some((&line[..tab], &line[tab + 1..stop]));
        }
        None
    })
}

/// The entries of `files` (each sorted by key) in the order of their keys; of a key in
/// several, the earliest file's first.
fn merged(files: &[&'static str]) -> impl Iterator<Item = (&'static str, &'static str)> {
    let mut files: Vec<_> = files
        .iter()
        .map(|f| entries(source(f)).peekable())
        .collect();
    std::iter::from_fn(move || {
        let heads = files.iter_mut().enumerate();
        let (_, first) = heads.filter_map(|(i, f)| Some((f.peek()?.0, i))).min()?;
        files[first].next()
    })
}

/// Keys of one or more files as a trie of characters, for longest-prefix lookups: a lookup
/// walks forward one character (one edge) at a time and stops at the first character no key
/// continues with. Every position of a text starts a lookup, most of which end at once, so
/// the first step is an array indexed by the character (for the Basic Multilingual Plane),
/// and a node is only a number whose flags say whether a key ends there and whether a longer
/// one goes on: a lookup reads nothing else until it finds a key. Other edges are one hash
/// table keyed by node and character ([`Edges`]).
#[derive(Debug, Clone)]
struct Table {
    /// The node of each key's first character below U+10000; 0 for none.
    first: Box<[u32]>,
    /// Every other edge.
    edges: Edges,
    /// The first two characters of each longer key.
    pairs: Vec<(u32, u32)>,
    /// The candidate of the key that ends at each node index ("" where none does).
    values: Vec<&'static str>,
    /// Whether every key is one character, none of them an ideographic description one.
    single_chars: bool,
    /// The keys of one character from U+10000.
    far: Vec<u32>,
    /// Every two characters that follow each other in a key; None when no key has two.
    inner: Option<Pairs>,
    /// Whether some key holds white space (or what a line is trimmed of) or an ideographic
    /// description character.
    odd: bool,
    /// Whether some key is one character.
    some_single: bool,
}

/// A node's flag: a key ends there.
const VALUED: u32 = 1 << 31;
/// A node's flag: a longer key goes on from there.
const INNER: u32 = 1 << 30;
/// A node's index, without its flags.
const INDEX: u32 = INNER - 1;
/// The characters the first step's array covers.
const FIRST: usize = 0x1_0000;
/// How many bits a node's index may have in [`Edges`].
const EDGE_NODE_BITS: u32 = 20;

/// A filter of the pairs of characters that start a key: three bits for each pair, by a
/// hash, in one word of a set of some sixteen bits per pair (a power of two, at least 64):
/// one word is read per test and few lookups are made in vain (about 1% of the pairs that
/// start no key pass), and a small dictionary's filter is a few words that stay in the fastest
/// cache (the 49,800 keys of the phrases of `s2t` take 128 KiB).
#[derive(Debug, Clone)]
struct Pairs {
    words: Box<[u64]>,
    /// How far a pair's hash is shifted to index `words`.
    shift: u32,
}

impl Pairs {
    fn of(pairs: &[(u32, u32)]) -> Pairs {
        let len = (pairs.len() * 16).next_power_of_two().max(64) / 64;
        let mut filter = Pairs {
            words: vec![0; len].into_boxed_slice(),
            shift: 64 - len.trailing_zeros(),
        };
        for &(a, b) in pairs {
            let (word, mask) = filter.bits(a, b);
            filter.words[word] |= mask;
        }
        filter
    }

    /// The word of the pair `a`, `b` and its three bits in it.
    #[inline(always)]
    fn bits(&self, a: u32, b: u32) -> (usize, u64) {
        let h = (u64::from(a) << 21 | u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // The top bits choose the word (none when there is one), middle ones the three bits
        // (a product's low bits depend on the pair's low bits only).
        let word = h.checked_shr(self.shift).unwrap_or(0) as usize;
        (
            word,
            1 << ((h >> 20) & 63) | 1 << ((h >> 26) & 63) | 1 << ((h >> 32) & 63),
        )
    }

    /// Whether a key may start with `a` and `b`.
    #[inline(always)]
    fn may(&self, a: u32, b: u32) -> bool {
        let (word, mask) = self.bits(a, b);
        self.words[word] & mask == mask
    }
}

/// The key of an edge: its parent node's index and its character.
#[inline]
fn edge_key(node: u32, c: u32) -> u64 {
    u64::from(node) << 21 | u64::from(c)
}

/// The edges of a trie below its first characters, as a hash table with open addressing in
/// which each slot is one number: the edge's key, and its child's index and flags. The
/// largest table (84,000 edges) takes a megabyte, which stays in the processor's cache,
/// and a lookup reads one slot or a few neighbours.
#[derive(Debug, Clone)]
struct Edges {
    slots: Box<[u64]>,
    /// How far a key's hash is shifted to index `slots`.
    shift: u32,
}

impl Edges {
    /// The table of `edges` ([`edge_key`] and child node with flags, each key once; every
    /// index below 2^[`EDGE_NODE_BITS`]).
    fn of(edges: &[(u64, u32)]) -> Edges {
        let len = (edges.len() * 3 / 2 + 1).next_power_of_two();
        let mut table = Edges {
            slots: vec![0; len].into_boxed_slice(),
            shift: 64 - len.trailing_zeros(),
        };
        let limit = 1 << EDGE_NODE_BITS;
        for &(key, node) in edges {
            assert!((node & INDEX) < limit && key < u64::from(limit) << 21);
            let slot =
                key << 22 | u64::from(node >> 30) << EDGE_NODE_BITS | u64::from(node & INDEX);
            let mut i = table.home(key);
            while table.slots[i] != 0 {
                i = (i + 1) & (len - 1);
            }
            table.slots[i] = slot;
        }
        table
    }

    /// The slot where a lookup of `key` starts.
    #[inline]
    fn home(&self, key: u64) -> usize {
        if self.shift == 64 {
            return 0;
        }
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The child node, with its flags, of the edge `key`; 0 for none.
    #[inline]
    fn get(&self, key: u64) -> u32 {
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                return 0;
            }
            if slot >> 22 == key {
                let index = (slot & ((1 << EDGE_NODE_BITS) - 1)) as u32;
                return (((slot >> EDGE_NODE_BITS) & 3) as u32 * INNER) | index;
            }
            i = (i + 1) & (self.slots.len() - 1);
        }
    }
}

/// [`decode`] before `limit`; (0, 0) from there on.
#[inline(always)]
fn decode_before(b: &[u8], at: usize, limit: usize) -> (u32, usize) {
    if at < limit { decode(b, at) } else { (0, 0) }
}

/// The character that starts at byte `at` of `b` (valid UTF-8), as a number, and its length.
#[inline(always)]
fn decode(b: &[u8], at: usize) -> (u32, usize) {
    let x = u32::from(b[at]);
    let next = |i: usize| u32::from(b[at + i] & 0x3F);
    match x {
        0..=0x7F => (x, 1),
        0x80..=0xDF => ((x & 0x1F) << 6 | next(1), 2),
        0xE0..=0xEF => ((x & 0x0F) << 12 | next(1) << 6 | next(2), 3),
        _ => ((x & 0x07) << 18 | next(1) << 12 | next(2) << 6 | next(3), 4),
    }
}

impl Table {
    /// The files' keys; on a key in several, the earliest file's candidate.
    fn of(files: &[&'static str]) -> Table {
        // At most one node for every six bytes of a file (a key and its candidate are
        // three bytes a character, and a tab and a line end between them).
        let nodes = files.iter().map(|f| source(f).len() / 6).sum();
        Table::from_sorted(merged(files), nodes)
    }

    /// The keys and candidates of `entries`, in the order of their keys (on a key given
    /// twice, the first candidate); about `nodes` characters of keys in all. Each key shares
    /// the nodes of its first characters with the key before it, so the trie is built
    /// without looking an edge up.
    fn from_sorted<'k>(
        entries: impl Iterator<Item = (&'k str, &'static str)>,
        nodes: usize,
    ) -> Table {
        let mut table = Table {
            first: vec![0; FIRST].into_boxed_slice(),
            edges: Edges::of(&[]),
            pairs: Vec::new(),
            values: Vec::with_capacity(nodes),
            single_chars: true,
            far: Vec::new(),
            inner: None,
            odd: false,
            some_single: false,
        };
        table.values.push("");
        let mut flags = Vec::with_capacity(nodes);
        flags.push(0);
        let mut edges = Vec::with_capacity(nodes);
        let mut inner = Some(Vec::with_capacity(nodes));
        // The previous key's nodes, with the length in bytes of the prefix each ends.
        let mut path = vec![(0, 0)];
        let mut previous = "";
        for (key, value) in entries.filter(|(key, _)| !key.is_empty()) {
            debug_assert!(previous <= key, "dictionary keys come sorted");
            table.note_start(key);
            note_inner(key, &mut inner);
            let shared = key
                .bytes()
                .zip(previous.bytes())
                .take_while(|(a, b)| a == b);
            let shared = shared.count();
            path.retain(|&(len, _)| len <= shared);
            let node = table.add(key, &mut path, &mut edges, &mut flags);
            if flags[node as usize] & VALUED == 0 {
                flags[node as usize] |= VALUED;
                table.values[node as usize] = value;
            }
            previous = key;
        }
        table.odd = inner.is_none();
        table.inner = inner.filter(|p| !p.is_empty()).map(|p| Pairs::of(&p));
        // Each node's flags into every reference to it.
        let flagged = |n: u32| n | flags[n as usize];
        for n in table.first.iter_mut().filter(|n| **n != 0) {
            *n = flagged(*n);
        }
        for (_, n) in &mut edges {
            *n = flagged(*n);
        }
        table.edges = Edges::of(&edges);
        table
    }

    /// Adds the nodes of `key` after those on `path` (the nodes, with the length of the
    /// prefix each ends, that it shares with the key before it), which it extends; the
    /// key's node. `edges`: the edges below the first characters so far; `flags`: each
    /// node's flags so far (references to nodes carry none until [`Table::from_sorted`]
    /// is done).
    fn add(
        &mut self,
        key: &str,
        path: &mut Vec<(usize, u32)>,
        edges: &mut Vec<(u64, u32)>,
        flags: &mut Vec<u32>,
    ) -> u32 {
        let (mut len, mut node) = path.last().copied().unwrap_or((0, 0));
        for c in key[len..].chars() {
            flags[node as usize] |= INNER;
            let n = u32::try_from(self.values.len())
                .ok()
                .filter(|&n| n <= INDEX)
                .expect("fewer than 2^30 dictionary nodes");
            self.values.push("");
            flags.push(0);
            match c as usize {
                i if node == 0 && i < FIRST => self.first[i] = n,
                _ => edges.push((edge_key(node, c.into()), n)),
            }
            len += c.len_utf8();
            node = n;
            path.push((len, n));
        }
        node
    }

    /// Notes how `key` starts: in [`Table::far`] or [`Table::pairs`], and whether it is
    /// one character that is not an ideographic description one.
    fn note_start(&mut self, key: &str) {
        let mut chars = key.chars().map(u32::from);
        let (Some(first), second) = (chars.next(), chars.next()) else {
            return;
        };
        match second {
            None if first as usize >= FIRST => self.far.push(first),
            None => {}
            Some(second) => self.pairs.push((first, second)),
        }
        self.single_chars &= second.is_none() && !(0x2FF0..=0x2FFF).contains(&first);
        self.some_single |= second.is_none();
    }

    /// The node under the node with index `node` by `c`, with its flags; 0 for none.
    #[inline]
    fn child(&self, node: u32, c: u32) -> u32 {
        if node == 0 && (c as usize) < FIRST {
            return self.first[c as usize];
        }
        self.edges.get(edge_key(node, c))
    }

    /// The longest key that `b[at..limit]` starts with: its length in bytes and its candidate.
    #[inline]
    fn longest(&self, b: &[u8], at: usize, limit: usize) -> Option<(usize, &'static str)> {
        let (c, len) = decode(b, at);
        let mut node = self.child(0, c);
        let mut end = at + len;
        // The longest key's length and node so far: its candidate is read once, at the end.
        let mut found = None;
        while node != 0 {
            if node & VALUED != 0 {
                found = Some((end - at, node & INDEX));
            }
            if node & INNER == 0 || end >= limit {
                break;
            }
            let (c, len) = decode(b, end);
            node = self.child(node & INDEX, c);
            end += len;
        }
        found.map(|(len, node)| (len, self.values[node as usize]))
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
        match dict {
            First(members) => Matcher::First(members.iter().map(Matcher::of).collect()),
            Union(members) if !files_only(dict) => {
                Matcher::Union(members.iter().map(Matcher::of).collect())
            }
            _ => Matcher::Table(shared_table(files(dict))),
        }
    }

    /// Every table of the matcher, in order.
    fn tables<'a>(&'a self, out: &mut Vec<&'a Arc<Table>>) {
        match self {
            Matcher::Table(t) => out.push(t),
            Matcher::Union(members) | Matcher::First(members) => {
                members.iter().for_each(|m| m.tables(out));
            }
        }
    }

    /// Adds the pairs that start longer keys and the keys of one character from U+10000,
    /// of every member.
    fn add_starts(&self, pairs: &mut Vec<(u32, u32)>, far: &mut Vec<u32>) {
        match self {
            Matcher::Table(t) => {
                pairs.extend_from_slice(&t.pairs);
                far.extend_from_slice(&t.far);
            }
            Matcher::Union(members) | Matcher::First(members) => {
                members.iter().for_each(|m| m.add_starts(pairs, far));
            }
        }
    }

    /// The longest match at the start of `b[at..limit]` (bytes, candidate), as the group
    /// decides.
    fn longest(&self, b: &[u8], at: usize, limit: usize) -> Option<(usize, &'static str)> {
        match self {
            Matcher::Table(t) => t.longest(b, at, limit),
            Matcher::First(members) => members.iter().find_map(|m| m.longest(b, at, limit)),
            Matcher::Union(members) => {
                members
                    .iter()
                    .filter_map(|m| m.longest(b, at, limit))
                    .fold(None, |best, m| match best {
                        Some((len, _)) if len >= m.0 => best,
                        _ => Some(m),
                    })
            }
        }
    }
}

/// A matcher with the places where a step must look it up: where the first two characters
/// of a longer key may start (by a filter of their pairs), at keys of one character whose
/// candidate is not one character, and at ideographic description characters (a sequence no
/// key starts is copied whole). Everything else is copied without a lookup: most characters
/// start some phrase, but few pairs of them do. Where only a key of one character can
/// match, its candidate is read from a table of characters without walking the dictionaries.
#[derive(Debug, Clone)]
struct Lookup {
    matcher: Matcher,
    /// What to do at each character below U+10000.
    chars: Chars,
    /// The first two characters of every longer key.
    pairs: Pairs,
    /// When every key is one character: a search for the characters that are keys or
    /// ideographic description characters, for [`Lookup::passes`].
    stops: Option<Stops>,
    /// Where the matcher is a table of phrases (no key of one character) and then tables of
    /// single characters ([`phrases_then_chars`]): the phrases, so that where none starts,
    /// a lookup reads the candidate from [`Chars`] instead of the tables of characters.
    phrases: Option<Arc<Table>>,
    /// Whether the step changes or looks further at most characters of the script it is
    /// for ([`Chars::dense`]): it then writes every character as it walks, instead of
    /// copying runs of those it leaves.
    dense: bool,
}

/// A search for the characters at which a step stops, by the first two bytes of each (in
/// UTF-8): a few such pairs of bytes are found in a text far faster than its characters are
/// walked (the search skips what cannot start one).
#[derive(Debug, Clone)]
struct Stops {
    starts: AhoCorasick,
    /// The keys of one character from U+10000 (any other character there is no stop).
    far: Vec<u32>,
}

impl Stops {
    /// The search for the characters below U+10000 at which `chars` stops and `far`; None
    /// when they start with too many pairs of bytes for a fast search.
    fn of(chars: &Chars, far: Vec<u32>) -> Option<Stops> {
        let below = (0..FIRST as u32).filter(|&c| chars.stops(c));
        let mut starts: Vec<Vec<u8>> = below
            .chain(far.iter().copied())
            .filter_map(char::from_u32)
            .map(|c| {
                let b = c.encode_utf8(&mut [0; 4]).as_bytes().to_vec();
                b[..b.len().min(2)].to_vec()
            })
            .collect();
        starts.sort_unstable();
        starts.dedup();
        if starts.len() > 64 {
            return None;
        }
        let starts = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&starts)
            .ok()?;
        Some(Stops { starts, far })
    }
}

/// A character's flag in [`Chars`]: a longer key starts with it.
const LEAD: u32 = 1 << 31;
/// A character's flag in [`Chars`]: the dictionaries must be looked up there (an
/// ideographic description character, a key of one character whose candidate is not one
/// character, any character from U+10000).
const LOOK: u32 = 1 << 30;
/// A character's flag in [`Chars`]: it is a key of one character, and its candidate (one
/// character, as the group decides where no longer key matches: the first member that has
/// it) is in the low 21 bits.
const SINGLE: u32 = 1 << 29;
/// How many characters with flags make [`Chars::dense`].
const DENSE: usize = 2000;
/// How many characters (not ASCII) of a text [`Lookup::writes_all`] looks at.
const SAMPLE: usize = 64;
/// The candidate's bits in [`Chars`].
const CANDIDATE: u32 = (1 << 21) - 1;

/// What a step does at each character below U+10000: its flags ([`LEAD`], [`LOOK`],
/// [`SINGLE`]) and a candidate, one number each, so that a step reads one number for most
/// characters.
#[derive(Debug, Clone)]
struct Chars(Box<[u32]>);

impl Chars {
    /// The characters of `matcher`, whose longer keys start with `pairs`.
    fn of(matcher: &Matcher, pairs: &[(u32, u32)]) -> Chars {
        let mut tables = Vec::new();
        matcher.tables(&mut tables);
        let mut chars = vec![0; FIRST];
        for (c, flags) in chars.iter_mut().enumerate() {
            let value = tables.iter().find_map(|t| {
                let node = t.first[c];
                (node & VALUED != 0).then(|| t.values[(node & INDEX) as usize])
            });
            let mut value = value.map(str::chars);
            *flags = match value.as_mut().map(|v| (v.next(), v.next())) {
                // A character that stays itself (了) needs nothing done.
                Some((Some(one), None)) if u32::from(one) == c as u32 => 0,
                Some((Some(one), None)) => SINGLE | u32::from(one),
                Some(_) => LOOK,
                None => 0,
            };
        }
        (0x2FF0..=0x2FFF).for_each(|c| chars[c] |= LOOK);
        for &(a, _) in pairs {
            if let Some(flags) = chars.get_mut(a as usize) {
                *flags |= LEAD;
            }
        }
        Chars(chars.into_boxed_slice())
    }

    /// The flags and candidate of `c`.
    #[inline(always)]
    fn get(&self, c: u32) -> u32 {
        self.0.get(c as usize).copied().unwrap_or(LOOK)
    }

    /// Whether so many characters have flags that a text in the script the step is for
    /// holds few runs of characters without (the first steps of `s2t` and `t2s`, some 4,000
    /// characters each; a step of variants or phrases has a few hundred). Where they are
    /// many, a walk that writes each character as it goes beats one that copies runs:
    /// whether a character has flags is as good as random, and a wrong guess stalls the
    /// processor longer than a character takes to write.
    fn dense(&self) -> bool {
        self.0.iter().filter(|&&flags| flags != 0).count() >= DENSE
    }

    /// Whether a step does something at `c` whatever follows it.
    fn stops(&self, c: u32) -> bool {
        self.get(c) & (LOOK | SINGLE) != 0
    }
}

/// The character a step makes of `c` where no longer key starts (`flags`: its flags in the
/// step's [`Chars`], without [`LOOK`]).
#[inline(always)]
fn output(flags: u32, c: u32) -> u32 {
    if flags & SINGLE != 0 {
        flags & CANDIDATE
    } else {
        c
    }
}

/// What a step does at a place.
#[derive(Debug, Clone, Copy)]
enum Found {
    /// Replace a key (its length in bytes) with its candidate.
    Key(usize, &'static str),
    /// Replace one character (its length in bytes) with another: a key of one character
    /// whose candidate the table of characters holds.
    Char(usize, u32),
    /// Copy what no key starts (its length in bytes). Where a lookup answers from its table
    /// of characters, also a key of one character that stays itself.
    Copy(usize),
}

impl Lookup {
    fn new(matcher: Matcher) -> Lookup {
        let (mut pairs, mut far) = (Vec::new(), Vec::new());
        matcher.add_starts(&mut pairs, &mut far);
        let chars = Chars::of(&matcher, &pairs);
        let stops = if pairs.is_empty() {
            Stops::of(&chars, far)
        } else {
            None
        };
        Lookup {
            dense: chars.dense(),
            phrases: phrases_then_chars(&matcher),
            matcher,
            chars,
            pairs: Pairs::of(&pairs),
            stops,
        }
    }

    /// Whether the lookup would leave `text` as it is, found by looking only at the
    /// characters that start like one at which it stops ([`Stops`]); false when that cannot
    /// be told so.
    fn passes(&self, text: &str) -> bool {
        let Some(stops) = &self.stops else {
            return false;
        };
        let b = text.as_bytes();
        // A match starts a character (its first byte is no continuation byte).
        stops.starts.find_iter(text).all(|m| {
            let (c, _) = decode(b, m.start());
            let stop = if (c as usize) < FIRST {
                self.chars.stops(c)
            } else {
                stops.far.contains(&c)
            };
            !stop
        })
    }

    /// The first place from `at`, before `limit`, where a key starts or an ideographic
    /// description sequence is to be copied whole, with what to do there; None when there
    /// is none (the rest is copied as it is). With `out`, a key of one character is
    /// replaced there and then, and the walk goes on.
    #[inline]
    fn next(
        &self,
        text: &str,
        at: usize,
        limit: usize,
        out: Option<&mut Output>,
    ) -> Option<(usize, Found)> {
        match out {
            Some(out) if out.writes_all => self.next_writing(text, at, limit, out),
            out => self.next_copying(text, at, limit, out),
        }
    }

    /// Whether a walk over `text` is to write every character it passes
    /// ([`Lookup::next_writing`]): when the step is dense ([`Chars::dense`]) and the text is
    /// in the script it is for, which a sample of its first characters tells (at least one
    /// in four has flags; `t2s` over a simplified text has few, and copies runs faster).
    fn writes_all(&self, text: &str) -> bool {
        if !self.dense {
            return false;
        }
        let sample = text.chars().filter(|c| !c.is_ascii()).take(SAMPLE);
        let (seen, flagged) = sample.fold((0, 0), |(seen, flagged), c| {
            (
                seen + 1,
                flagged + usize::from(self.chars.get(c.into()) != 0),
            )
        });
        flagged * 4 >= seen
    }

    /// [`Lookup::next`] for a text that [`Lookup::writes_all`], writing each character it
    /// passes to `out`.
    #[inline]
    fn next_writing(
        &self,
        text: &str,
        mut at: usize,
        limit: usize,
        out: &mut Output,
    ) -> Option<(usize, Found)> {
        let b = text.as_bytes();
        if at >= limit {
            return None;
        }
        out.catch_up(at);
        // The output in a local (its length stays in a register), and the next mark's
        // offset: a mark is moved when the walk reaches it.
        let mut buf = std::mem::take(&mut *out.out);
        let mut mark = out.marks.peek();
        let (mut c, mut len) = decode(b, at);
        let found = loop {
            let next = at + len;
            let (after, after_len) = decode_before(b, next, limit);
            let flags = self.chars.get(c);
            // No branch on the flags but where the walk stops (rare): whether a character
            // has some is as good as random.
            if self.starts_pair(flags, c, after) || flags & LOOK != 0 {
                break Some(at);
            }
            let value = output(flags, c);
            if mark < next {
                out.marks.copied(next, at, buf.len());
                mark = out.marks.peek();
            }
            buf.push(char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER));
            if after_len == 0 {
                break None;
            }
            (at, c, len) = (next, after, after_len);
        };
        *out.out = buf;
        match found {
            Some(at) => {
                out.copied = at;
                Some((at, self.at(text, at, limit)))
            }
            None => {
                out.copied = limit;
                None
            }
        }
    }

    /// [`Lookup::next`] copying runs of characters without flags.
    #[inline]
    fn next_copying(
        &self,
        text: &str,
        mut at: usize,
        limit: usize,
        mut out: Option<&mut Output>,
    ) -> Option<(usize, Found)> {
        let b = text.as_bytes();
        if at >= limit {
            return None;
        }
        let (mut c, mut len) = decode(b, at);
        loop {
            // Each character is decoded once: as the one after `c` for the pair filter, then
            // as the next to walk.
            let next = at + len;
            let (after, after_len) = decode_before(b, next, limit);
            let flags = self.chars.get(c);
            if flags != 0 {
                let pair = self.starts_pair(flags, c, after);
                match out.as_deref_mut() {
                    Some(out) if !pair && flags & LOOK == 0 => {
                        out.replace_char(at, len, output(flags, c));
                    }
                    None if !pair && flags & (LOOK | SINGLE) == 0 => {}
                    _ => return Some((at, self.at(text, at, limit))),
                }
            }
            if after_len == 0 {
                return None;
            }
            (at, c, len) = (next, after, after_len);
        }
    }

    /// Whether a longer key may start with `c` (whose flags are `flags`) and `after` (0 at
    /// the end: no key holds U+0000), by the filter of pairs; no branch, the answer is as
    /// good as random.
    #[inline(always)]
    fn starts_pair(&self, flags: u32, c: u32, after: u32) -> bool {
        (flags & LEAD != 0) & (after != 0) & self.pairs.may(c, after)
    }

    /// What `b[at..limit]` starts with: a key, else what to copy.
    fn at(&self, text: &str, at: usize, limit: usize) -> Found {
        let b = text.as_bytes();
        if let Some(phrases) = &self.phrases {
            if let Some((len, value)) = phrases.longest(b, at, limit) {
                return Found::Key(len, value);
            }
            let (c, len) = decode(b, at);
            let flags = self.chars.get(c);
            if flags & LOOK == 0 {
                return match flags & SINGLE {
                    0 => Found::Copy(len),
                    _ => Found::Char(len, flags & CANDIDATE),
                };
            }
        }
        match self.matcher.longest(b, at, limit) {
            Some((len, value)) => Found::Key(len, value),
            None => {
                let (c, len) = decode(b, at);
                match c {
                    0x2FF0..=0x2FFF => Found::Copy(unmatched_len(&text[at..limit])),
                    _ => Found::Copy(len),
                }
            }
        }
    }
}

/// The table of phrases of `matcher` when it is a `First` group of a table without keys of
/// one character and then tables of only such keys (the first step of `s2t`, `s2tw`...):
/// where no phrase starts, what the group makes of a character is what [`Chars`] holds for
/// it, unless it has [`LOOK`].
fn phrases_then_chars(matcher: &Matcher) -> Option<Arc<Table>> {
    let Matcher::First(members) = matcher else {
        return None;
    };
    let (Matcher::Table(phrases), rest) = members.split_first()? else {
        return None;
    };
    let single = |m: &Matcher| matches!(m, Matcher::Table(t) if t.single_chars);
    (!phrases.some_single && rest.iter().all(single)).then(|| phrases.clone())
}

/// The files of a dictionary, in order.
fn files(dict: &Dict) -> Vec<&'static str> {
    match dict {
        File(name) => vec![name],
        Union(members) | First(members) => members.iter().flat_map(files).collect(),
    }
}

/// Whether `dict` is a file or a union of files only.
fn files_only(dict: &Dict) -> bool {
    match dict {
        File(_) => true,
        Union(members) => members.iter().all(files_only),
        First(_) => false,
    }
}

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
