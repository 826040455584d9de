//! Which cleanup rules can match a text, found in one pass: the strings rules need searched
//! for together, the other rules' patterns run as one set.
//!
//! Apart from the stage because it is an index over the rules, built once per project, that
//! the stage only asks; a rule it cannot tell about is always tried, so it never changes what
//! the rules do, only how many are tried.

use aho_corasick::{AhoCorasick, Input, MatchKind};
use regex::RegexSet;

use super::Rule;

/// Finds which rules can match a text: the rules that name strings they need by one search
/// for all of those strings (a text that holds none of a rule's cannot match it), the others
/// by one pass of their patterns together.
#[derive(Debug, Clone, Default)]
pub(super) struct Prefilter {
    /// The patterns of the other rules, together.
    set: Option<RegexSet>,
    /// For each pattern of `set`, its rule's index.
    members: Vec<usize>,
    /// Rules neither can tell about (look-around): always tried.
    others: Vec<usize>,
    /// Every string of several bytes some rule needs, longest first.
    needs: Option<AhoCorasick>,
    /// For each string of `needs`, the rules that need it or a part of it (found where it
    /// is found: a match hides the shorter ones inside it).
    needed_by: Vec<Vec<usize>>,
    /// Strings of one byte some rules need: each set of them with the rules that need one
    /// of the set.
    bytes: Vec<(Vec<u8>, Vec<usize>)>,
}

impl Prefilter {
    pub(super) fn new(rules: &[Rule]) -> Prefilter {
        let mut filter = Prefilter::default();
        let mut patterns = Vec::new();
        let mut needed: Vec<(&str, usize)> = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            if !r.needs.is_empty() {
                let (bytes, longer): (Vec<&str>, Vec<&str>) =
                    r.needs.iter().partition(|s| s.len() == 1);
                if !bytes.is_empty() {
                    filter.add_bytes(bytes.concat().into_bytes(), i);
                }
                needed.extend(longer.into_iter().map(|s| (s, i)));
                continue;
            }
            match r.plain() {
                Some(re) => {
                    filter.members.push(i);
                    patterns.push(re.as_str().to_string());
                }
                None => filter.others.push(i),
            }
        }
        // Each pattern compiled alone; together they may pass the size limit, and then
        // every rule is simply tried.
        filter.set = RegexSet::new(&patterns).ok();
        if filter.set.is_none() {
            filter.others.append(&mut filter.members);
        }
        filter.add_needs(needed);
        filter.others.sort_unstable();
        filter.others.dedup();
        filter
    }

    /// Notes that rule `rule` needs one of `bytes` (one search serves the rules that need the
    /// same bytes).
    fn add_bytes(&mut self, mut bytes: Vec<u8>, rule: usize) {
        bytes.sort_unstable();
        bytes.dedup();
        match self.bytes.iter_mut().find(|(b, _)| *b == bytes) {
            Some((_, rules)) => rules.push(rule),
            None => self.bytes.push((bytes, vec![rule])),
        }
    }

    /// Sets up the search for the strings of several bytes that rules need (string, rule).
    fn add_needs(&mut self, mut needed: Vec<(&str, usize)>) {
        // Longest first: where several start at one place, the first found is the longest.
        needed.sort_by_key(|n| std::cmp::Reverse(n.0.len()));
        self.needs = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(needed.iter().map(|n| n.0))
            .ok();
        self.needed_by = needed
            .iter()
            .map(|&(s, _)| {
                let parts = needed.iter().filter(|n| s.contains(n.0));
                parts.map(|n| n.1).collect()
            })
            .collect();
        if self.needs.is_none() {
            self.others.extend(self.needed_by.drain(..).flatten());
        }
    }

    /// The rules that may match `text`, in order.
    pub(super) fn candidates(&self, text: &str) -> Vec<usize> {
        let mut found: Vec<usize> = self.others.clone();
        if let Some(set) = &self.set {
            found.extend(set.matches(text).iter().map(|k| self.members[k]));
        }
        if let Some(needs) = &self.needs {
            // From the start of each match on: the longest match at each place where one
            // starts (a search for them all at once, far faster than an overlapping one).
            let mut at = 0;
            while let Some(m) = needs.find(Input::new(text).range(at..)) {
                found.extend_from_slice(&self.needed_by[m.pattern().as_usize()]);
                at = m.start() + 1;
            }
        }
        let has = |bytes: &[u8]| {
            let t = text.as_bytes();
            bytes.chunks(3).any(|c| match *c {
                [a] => memchr::memchr(a, t).is_some(),
                [a, b] => memchr::memchr2(a, b, t).is_some(),
                [a, b, c, ..] => memchr::memchr3(a, b, c, t).is_some(),
                [] => false,
            })
        };
        let bytes = self.bytes.iter().filter(|(b, _)| has(b));
        found.extend(bytes.flat_map(|(_, rules)| rules));
        found.sort_unstable();
        found.dedup();
        found
    }

    pub(super) fn is_empty(&self) -> bool {
        self.members.is_empty()
            && self.others.is_empty()
            && self.needed_by.is_empty()
            && self.bytes.is_empty()
    }
}
