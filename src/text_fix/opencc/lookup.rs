//! A step's lookups: where in a text a step must look its dictionary up at all, and what it
//! makes of a character without walking the dictionary.

use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};

use super::table::{INDEX, VALUED, decode_before};
use super::{FIRST, Matcher, Output, Pairs, Table, decode, unmatched_len};

/// A matcher with the places where a step must look it up: where the first two characters
/// of a longer key may start (by a filter of their pairs), at keys of one character whose
/// candidate is not one character, and at ideographic description characters (a sequence no
/// key starts is copied whole). Everything else is copied without a lookup: most characters
/// start some phrase, but few pairs of them do. Where only a key of one character can
/// match, its candidate is read from a table of characters without walking the dictionaries.
#[derive(Debug, Clone)]
pub(super) struct Lookup {
    pub(super) matcher: Matcher,
    /// What to do at each character below U+10000.
    pub(super) chars: Chars,
    /// The first two characters of every longer key.
    pub(super) pairs: Pairs,
    /// When every key is one character: a search for the characters that are keys or
    /// ideographic description characters, for [`Lookup::passes`].
    pub(super) stops: Option<Stops>,
    /// Where the matcher is a table of phrases (no key of one character) and then tables of
    /// single characters ([`phrases_then_chars`]): the phrases, so that where none starts,
    /// a lookup reads the candidate from [`Chars`] instead of the tables of characters.
    pub(super) phrases: Option<Arc<Table>>,
    /// Whether the step changes or looks further at most characters of the script it is
    /// for ([`Chars::dense`]): it then writes every character as it walks, instead of
    /// copying runs of those it leaves.
    pub(super) dense: bool,
}

/// A search for the characters at which a step stops, by the first two bytes of each (in
/// UTF-8): a few such pairs of bytes are found in a text far faster than its characters are
/// walked (the search skips what cannot start one).
#[derive(Debug, Clone)]
pub(super) struct Stops {
    pub(super) starts: AhoCorasick,
    /// The keys of one character from U+10000 (any other character there is no stop).
    pub(super) far: Vec<u32>,
}

impl Stops {
    /// The search for the characters below U+10000 at which `chars` stops and `far`; None
    /// when they start with too many pairs of bytes for a fast search.
    pub(super) fn of(chars: &Chars, far: Vec<u32>) -> Option<Stops> {
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
pub(super) const LEAD: u32 = 1 << 31;
/// A character's flag in [`Chars`]: the dictionaries must be looked up there (an
/// ideographic description character, a key of one character whose candidate is not one
/// character, any character from U+10000).
pub(super) const LOOK: u32 = 1 << 30;
/// A character's flag in [`Chars`]: it is a key of one character, and its candidate (one
/// character, as the group decides where no longer key matches: the first member that has
/// it) is in the low 21 bits.
pub(super) const SINGLE: u32 = 1 << 29;
/// How many characters with flags make [`Chars::dense`].
pub(super) const DENSE: usize = 2000;
/// How many characters (not ASCII) of a text [`Lookup::writes_all`] looks at.
pub(super) const SAMPLE: usize = 64;
/// The candidate's bits in [`Chars`].
pub(super) const CANDIDATE: u32 = (1 << 21) - 1;

/// What a step does at each character below U+10000: its flags ([`LEAD`], [`LOOK`],
/// [`SINGLE`]) and a candidate, one number each, so that a step reads one number for most
/// characters.
#[derive(Debug, Clone)]
pub(super) struct Chars(pub(super) Box<[u32]>);

impl Chars {
    /// The characters of `matcher`, whose longer keys start with `pairs`.
    pub(super) fn of(matcher: &Matcher, pairs: &[(u32, u32)]) -> Chars {
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
    pub(super) fn get(&self, c: u32) -> u32 {
        self.0.get(c as usize).copied().unwrap_or(LOOK)
    }

    /// Whether so many characters have flags that a text in the script the step is for
    /// holds few runs of characters without (the first steps of `s2t` and `t2s`, some 4,000
    /// characters each; a step of variants or phrases has a few hundred). Where they are
    /// many, a walk that writes each character as it goes beats one that copies runs:
    /// whether a character has flags is as good as random, and a wrong guess stalls the
    /// processor longer than a character takes to write.
    pub(super) fn dense(&self) -> bool {
        self.0.iter().filter(|&&flags| flags != 0).count() >= DENSE
    }

    /// Whether a step does something at `c` whatever follows it.
    pub(super) fn stops(&self, c: u32) -> bool {
        self.get(c) & (LOOK | SINGLE) != 0
    }
}

/// The character a step makes of `c` where no longer key starts (`flags`: its flags in the
/// step's [`Chars`], without [`LOOK`]).
#[inline(always)]
pub(super) fn output(flags: u32, c: u32) -> u32 {
    if flags & SINGLE != 0 {
        flags & CANDIDATE
    } else {
        c
    }
}

/// What a step does at a place.
#[derive(Debug, Clone, Copy)]
pub(super) enum Found {
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
    pub(super) fn new(matcher: Matcher) -> Lookup {
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
    pub(super) fn passes(&self, text: &str) -> bool {
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
    pub(super) fn next(
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
    pub(super) fn writes_all(&self, text: &str) -> bool {
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
    pub(super) fn next_writing(
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
    pub(super) fn next_copying(
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
    pub(super) fn starts_pair(&self, flags: u32, c: u32, after: u32) -> bool {
        (flags & LEAD != 0) & (after != 0) & self.pairs.may(c, after)
    }

    /// What `b[at..limit]` starts with: a key, else what to copy.
    pub(super) fn at(&self, text: &str, at: usize, limit: usize) -> Found {
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
pub(super) fn phrases_then_chars(matcher: &Matcher) -> Option<Arc<Table>> {
    let Matcher::First(members) = matcher else {
        return None;
    };
    let (Matcher::Table(phrases), rest) = members.split_first()? else {
        return None;
    };
    let single = |m: &Matcher| matches!(m, Matcher::Table(t) if t.single_chars);
    (!phrases.some_single && rest.iter().all(single)).then(|| phrases.clone())
}
