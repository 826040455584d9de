//! A dictionary file (or a union of files) as a table of keys walked one character at a time,
//! and a configuration's dictionary as a [`Matcher`] over such tables.

use std::sync::Arc;

use super::dicts::Dict::{First, Union};
use super::dicts::{files_only, merged};
use super::{Dict, files, note_inner, shared_table, source};

/// Keys of one or more files as a trie of characters, for longest-prefix lookups: a lookup
/// walks forward one character (one edge) at a time and stops at the first character no key
/// continues with. Every position of a text starts a lookup, most of which end at once, so
/// the first step is an array indexed by the character (for the Basic Multilingual Plane),
/// and a node is only a number whose flags say whether a key ends there and whether a longer
/// one goes on: a lookup reads nothing else until it finds a key. Other edges are one hash
/// table keyed by node and character ([`Edges`]).
#[derive(Debug, Clone)]
pub(super) struct Table {
    /// The node of each key's first character below U+10000; 0 for none.
    pub(super) first: Box<[u32]>,
    /// Every other edge.
    pub(super) edges: Edges,
    /// The first two characters of each longer key.
    pub(super) pairs: Vec<(u32, u32)>,
    /// The candidate of the key that ends at each node index ("" where none does).
    pub(super) values: Vec<&'static str>,
    /// Whether every key is one character, none of them an ideographic description one.
    pub(super) single_chars: bool,
    /// The keys of one character from U+10000.
    pub(super) far: Vec<u32>,
    /// Every two characters that follow each other in a key; None when no key has two.
    pub(super) inner: Option<Pairs>,
    /// Whether some key holds white space (or what a line is trimmed of) or an ideographic
    /// description character.
    pub(super) odd: bool,
    /// Whether some key is one character.
    pub(super) some_single: bool,
}

/// A node's flag: a key ends there.
pub(super) const VALUED: u32 = 1 << 31;
/// A node's flag: a longer key goes on from there.
pub(super) const INNER: u32 = 1 << 30;
/// A node's index, without its flags.
pub(super) const INDEX: u32 = INNER - 1;
/// The characters the first step's array covers.
pub(super) const FIRST: usize = 0x1_0000;
/// How many bits a node's index may have in [`Edges`].
pub(super) const EDGE_NODE_BITS: u32 = 20;

/// A filter of the pairs of characters that start a key: three bits for each pair, by a
/// hash, in one word of a set of some sixteen bits per pair (a power of two, at least 64):
/// one word is read per test and few lookups are made in vain (about 1% of the pairs that
/// start no key pass), and a small dictionary's filter is a few words that stay in the fastest
/// cache (the 49,800 keys of the phrases of `s2t` take 128 KiB).
#[derive(Debug, Clone)]
pub(super) struct Pairs {
    pub(super) words: Box<[u64]>,
    /// How far a pair's hash is shifted to index `words`.
    pub(super) shift: u32,
}

impl Pairs {
    pub(super) fn of(pairs: &[(u32, u32)]) -> Pairs {
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
    pub(super) fn bits(&self, a: u32, b: u32) -> (usize, u64) {
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
    pub(super) fn may(&self, a: u32, b: u32) -> bool {
        let (word, mask) = self.bits(a, b);
        self.words[word] & mask == mask
    }
}

/// The key of an edge: its parent node's index and its character.
#[inline]
pub(super) fn edge_key(node: u32, c: u32) -> u64 {
    u64::from(node) << 21 | u64::from(c)
}

/// The edges of a trie below its first characters, as a hash table with open addressing in
/// which each slot is one number: the edge's key, and its child's index and flags. The
/// largest table (84,000 edges) takes a megabyte, which stays in the processor's cache,
/// and a lookup reads one slot or a few neighbours.
#[derive(Debug, Clone)]
pub(super) struct Edges {
    pub(super) slots: Box<[u64]>,
    /// How far a key's hash is shifted to index `slots`.
    pub(super) shift: u32,
}

impl Edges {
    /// The table of `edges` ([`edge_key`] and child node with flags, each key once; every
    /// index below 2^[`EDGE_NODE_BITS`]).
    pub(super) fn of(edges: &[(u64, u32)]) -> Edges {
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
    pub(super) fn home(&self, key: u64) -> usize {
        if self.shift == 64 {
            return 0;
        }
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The child node, with its flags, of the edge `key`; 0 for none.
    #[inline]
    pub(super) fn get(&self, key: u64) -> u32 {
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
pub(super) fn decode_before(b: &[u8], at: usize, limit: usize) -> (u32, usize) {
    if at < limit { decode(b, at) } else { (0, 0) }
}

/// The character that starts at byte `at` of `b` (valid UTF-8), as a number, and its length.
#[inline(always)]
pub(super) fn decode(b: &[u8], at: usize) -> (u32, usize) {
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
    pub(super) fn of(files: &[&'static str]) -> Table {
        // At most one node for every six bytes of a file (a key and its candidate are
        // three bytes a character, and a tab and a line end between them).
        let nodes = files.iter().map(|f| source(f).len() / 6).sum();
        Table::from_sorted(merged(files), nodes)
    }

    /// The keys and candidates of `entries`, in the order of their keys (on a key given
    /// twice, the first candidate); about `nodes` characters of keys in all. Each key shares
    /// the nodes of its first characters with the key before it, so the trie is built
    /// without looking an edge up.
    pub(super) fn from_sorted<'k>(
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
    pub(super) fn add(
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
    pub(super) fn note_start(&mut self, key: &str) {
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
    pub(super) fn child(&self, node: u32, c: u32) -> u32 {
        if node == 0 && (c as usize) < FIRST {
            return self.first[c as usize];
        }
        self.edges.get(edge_key(node, c))
    }

    /// The longest key that `b[at..limit]` starts with: its length in bytes and its candidate.
    #[inline]
    pub(super) fn longest(
        &self,
        b: &[u8],
        at: usize,
        limit: usize,
    ) -> Option<(usize, &'static str)> {
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
pub(super) enum Matcher {
    Table(Arc<Table>),
    Union(Vec<Matcher>),
    First(Vec<Matcher>),
}

impl Matcher {
    /// The matcher of `dict`: a union of files is one table.
    pub(super) fn of(dict: &Dict) -> Matcher {
        match dict {
            First(members) => Matcher::First(members.iter().map(Matcher::of).collect()),
            Union(members) if !files_only(dict) => {
                Matcher::Union(members.iter().map(Matcher::of).collect())
            }
            _ => Matcher::Table(shared_table(files(dict))),
        }
    }

    /// Every table of the matcher, in order.
    pub(super) fn tables<'a>(&'a self, out: &mut Vec<&'a Arc<Table>>) {
        match self {
            Matcher::Table(t) => out.push(t),
            Matcher::Union(members) | Matcher::First(members) => {
                members.iter().for_each(|m| m.tables(out));
            }
        }
    }

    /// Adds the pairs that start longer keys and the keys of one character from U+10000,
    /// of every member.
    pub(super) fn add_starts(&self, pairs: &mut Vec<(u32, u32)>, far: &mut Vec<u32>) {
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
    pub(super) fn longest(
        &self,
        b: &[u8],
        at: usize,
        limit: usize,
    ) -> Option<(usize, &'static str)> {
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
