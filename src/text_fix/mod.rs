//! The text-fix stage: what the download left in the text is cleaned before conversion.
//!
//! Sits between `source` (decoded text) and `convert` (XHTML), and is used by `build` and
//! `check` alike through [`crate::convert::chapter`]. Three steps, always in this order:
//!
//! 1. **cleanup rules** ([`rules`]): the built-in preset's ([`preset`]), then those of a
//!    `cleanup.toml` beside `metadata.toml`, then the book's own `[[cleanup]]`; written
//!    against the text as downloaded;
//! 2. **conversion** ([`chinese`]): simplified/traditional Chinese by an OpenCC
//!    configuration (OpenCC 1.4.2's own dictionaries and algorithm, `opencc`; the lines of a
//!    plain-text file that one paragraph will hold are converted as one), then quotation
//!    marks (corner brackets or curly quotes);
//! 3. **typography** ([`typography`]): CJK punctuation and spacing, or Latin smart quotes.
//!
//! A plain-text chapter is fixed line by line structure intact (a rule may remove lines, which
//! is the point); a Markdown or HTML chapter only in its text nodes, outside `code`, `pre` and
//! the like, never in its markup or attribute values. Conversion and typography never touch
//! URLs. Titles (chapter, part, volume) get the title rules, conversion and typography
//! without the removal of spaces; the book's metadata gets conversion only
//! ([`TextFix::metadata`]).
//!
//! Which lines of a plain-text file are titles: in a file split at its headings, every line
//! that is a heading as written or once the title rules have run (so that a title rule can
//! repair `正文 第一回 …` into a heading); in any other file, its first line when that is one.
//! Title rules run on those lines, text rules on all the others.

pub mod chinese;
pub mod disguise;
mod opencc;
mod preset;
pub mod rules;
pub mod typography;

use std::borrow::Cow;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use aho_corasick::{AhoCorasick, Input, MatchKind};
use regex::RegexSet;

use crate::error::{Error, Result};

pub use chinese::{Conversion, Quotes};
pub use rules::{Clock, Origin, Rule, Scope};
pub use typography::{Place, Typography};

/// Everything the stage does to a book's text, compiled once per project.
#[derive(Debug, Clone)]
pub struct TextFix {
    rules: Arc<[Rule]>,
    /// Every rule, for one pass over a text whatever the scope.
    filter: Prefilter,
    conversion: Option<Conversion>,
    quotes: Option<Quotes>,
    typography: Typography,
}

/// Finds which rules can match a text: the rules that name strings they need by one search
/// for all of those strings (a text that holds none of a rule's cannot match it), the others
/// by one pass of their patterns together.
#[derive(Debug, Clone, Default)]
struct Prefilter {
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
    fn new(rules: &[Rule]) -> Prefilter {
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
    fn candidates(&self, text: &str) -> Vec<usize> {
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

    fn is_empty(&self) -> bool {
        self.members.is_empty()
            && self.others.is_empty()
            && self.needed_by.is_empty()
            && self.bytes.is_empty()
    }
}

/// What the cleanup rules left of a plain-text file, when they changed it (both `None` when
/// they did not).
#[derive(Debug, Clone, Default)]
pub struct AfterRules {
    /// The letters and digits left, as [`crate::ledger::count`] counts them: the text
    /// ledger's count of what the rules removed.
    pub count: Option<usize>,
    /// The 1-based line of the file as written where each line of the cleaned text comes
    /// from: lines the rules removed must not shift the lines warnings and `check` cite.
    pub lines: Option<Vec<usize>>,
}

impl AfterRules {
    /// The line of the file as written for `line` (1-based) of the cleaned text.
    pub fn source_line(&self, line: usize) -> usize {
        let Some(lines) = self.lines.as_deref() else {
            return line;
        };
        match lines.get(line.wrapping_sub(1)) {
            Some(&l) => l,
            // Past the lines traced (a text the rules left ending in a line end).
            None => lines
                .last()
                .map_or(line, |&l| l + line.saturating_sub(lines.len())),
        }
    }
}

/// The chapter file a piece of text comes from.
#[derive(Debug, Clone, Copy)]
pub struct FileRef<'a> {
    /// The file.
    pub path: &'a Path,
    /// Its path relative to the project folder, `/`-separated, for `files` globs.
    pub relative: &'a str,
}

/// What the rules did, per rule, for `check`'s dry run.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Indexed like the project's rules.
    pub hits: Vec<RuleHits>,
}

/// What one rule did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleHits {
    /// How many changes it made.
    pub count: usize,
    /// The first few, where they were.
    pub examples: Vec<Example>,
}

/// One change a rule made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The chapter file.
    pub path: PathBuf,
    /// Its line, where known.
    pub line: Option<usize>,
    /// The column (in characters) of the match in that line, where known.
    pub column: Option<usize>,
    /// The text matched.
    pub matched: String,
    /// What replaced it.
    pub replaced: String,
}

/// Examples kept per rule.
pub const EXAMPLES: usize = 3;

impl Tally {
    fn record(
        &mut self,
        rule: usize,
        file: FileRef<'_>,
        at: Option<(usize, usize)>,
        m: &str,
        r: &str,
    ) {
        if self.hits.len() <= rule {
            self.hits.resize_with(rule + 1, RuleHits::default);
        }
        let hits = &mut self.hits[rule];
        hits.count += 1;
        if hits.examples.len() < EXAMPLES {
            hits.examples.push(Example {
                path: file.path.to_path_buf(),
                line: at.map(|a| a.0),
                column: at.map(|a| a.1),
                matched: m.to_string(),
                replaced: r.to_string(),
            });
        }
    }

    /// Adds another tally's counts and examples (the chapters in reading order).
    pub fn merge(&mut self, other: Tally) {
        if self.hits.len() < other.hits.len() {
            self.hits.resize_with(other.hits.len(), RuleHits::default);
        }
        for (mine, theirs) in self.hits.iter_mut().zip(other.hits) {
            mine.count += theirs.count;
            let room = EXAMPLES.saturating_sub(mine.examples.len());
            mine.examples.extend(theirs.examples.into_iter().take(room));
        }
    }
}

/// The settings the stage is made from (validated by the project stage).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Every cleanup rule, in the order they run.
    pub rules: Vec<Rule>,
    /// Simplified/traditional conversion.
    pub conversion: Option<Conversion>,
    /// Quotation marks.
    pub quotes: Option<Quotes>,
    /// Typography.
    pub typography: Typography,
}

impl TextFix {
    /// The stage for `settings`.
    pub fn new(settings: Settings) -> TextFix {
        let rules: Arc<[Rule]> = settings.rules.into();
        TextFix {
            filter: Prefilter::new(&rules),
            rules,
            conversion: settings.conversion,
            quotes: settings.quotes,
            typography: settings.typography,
        }
    }

    /// The stage that changes nothing.
    pub fn off() -> TextFix {
        TextFix::new(Settings {
            rules: Vec::new(),
            conversion: None,
            quotes: None,
            typography: Typography::Off,
        })
    }

    /// The rules, in the order they run.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The conversion, if any.
    pub fn conversion(&self) -> Option<Conversion> {
        self.conversion
    }

    /// The built-in preset rules `name` names, compiled; None for an unknown preset.
    pub fn preset(name: &str) -> Option<Vec<Rule>> {
        let rules = preset::rules(name)?;
        let preset = preset::NAMES.iter().find(|&&n| n == name).copied()?;
        let code = preset::code_rules(name).iter().map(|&(what, find)| {
            let origin = Origin::Preset { preset, what };
            Rule::code(what, find, Scope::Text, origin)
        });
        Some(
            code.chain(
                rules
                    .iter()
                    .map(|&(what, pattern, replace, scope, max_chars, needs)| {
                        let origin = Origin::Preset { preset, what };
                        let mut rule = Rule::new(pattern, replace, scope, None, origin)
                            .expect("the built-in presets compile");
                        rule.max_chars = max_chars;
                        rule.needs = needs;
                        rule
                    }),
            )
            .collect(),
        )
    }

    /// The names of the built-in presets.
    pub fn preset_names() -> &'static [&'static str] {
        &preset::NAMES
    }

    /// A title (of a chapter, part or volume, from `file` when it comes from one): the title
    /// rules, conversion and typography; an error when a rule runs past its budget.
    pub fn title(
        &self,
        title: &str,
        file: Option<FileRef<'_>>,
        tally: Option<&mut Tally>,
    ) -> Result<String> {
        let cleaned = self.clean_title(title, file, tally)?;
        Ok(self.finish(&cleaned, Place::Title).into_owned())
    }

    /// The title rules on one title; unchanged when none applies.
    fn clean_title<'a>(
        &self,
        title: &'a str,
        file: Option<FileRef<'_>>,
        tally: Option<&mut Tally>,
    ) -> Result<Cow<'a, str>> {
        if !self.rules.iter().any(|r| r.scope.covers(true)) {
            return Ok(Cow::Borrowed(title));
        }
        let which = self.which(true, file);
        let mut clock = Clock::default();
        let cleaned = apply_rules(&self.rules, &which, title, (file, 0), tally, &mut clock)
            .map_err(|e| self.overrun_error(e, file, 0))?;
        Ok(cleaned.map_or(Cow::Borrowed(title), Cow::Owned))
    }

    /// The error for a rule that ran past its budget on a text of `file` starting at `line`
    /// (0: not known).
    fn overrun_error(&self, e: RuleOverrun, file: Option<FileRef<'_>>, line: usize) -> Error {
        let rule = &self.rules[e.rule];
        let (named, written_in) = match &rule.origin {
            Origin::File { path, line } => (
                format!(
                    "the cleanup rule `{}` ({}:{line})",
                    rule.source,
                    path.display()
                ),
                Some(path),
            ),
            Origin::Preset { preset, what } => {
                (format!("the {preset} preset's rule for {what}"), None)
            }
        };
        let path = file.map(|f| f.path.to_path_buf());
        Error::Budget {
            line: (line > 0 && path.is_some()).then_some(line),
            path: path.or(written_in.cloned()).unwrap_or_default(),
            message: format!("{named} {}; the build stops", e.overrun),
            hint: Some(RULE_BUDGET_HINT.into()),
        }
    }

    /// The rules for titles (or text) that apply to `file`.
    fn which<'a>(&'a self, titles: bool, file: Option<FileRef<'a>>) -> Which<'a> {
        Which {
            fix: self,
            titles,
            file: file.map(|f| f.relative),
            known: None,
        }
    }

    /// The rules that may match `text` and apply to the file, whatever their scope.
    fn applicable(&self, text: &str, file: Option<&str>) -> Vec<usize> {
        if self.filter.is_empty() {
            return Vec::new();
        }
        let mut found = self.filter.candidates(text);
        found.retain(|&i| self.rules[i].applies_to(file));
        found
    }

    /// Conversion, quotation marks and typography on one line or text node.
    fn finish<'a>(&self, text: &'a str, place: Place) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        if let Some(c) = self.conversion
            && let Cow::Owned(o) = c.convert(&out)
        {
            out = Cow::Owned(o);
        }
        if let Some(q) = self.quotes
            && let Cow::Owned(o) = q.apply(&out)
        {
            out = Cow::Owned(o);
        }
        if let Cow::Owned(o) = self.typography.apply(&out, place) {
            out = Cow::Owned(o);
        }
        out
    }

    /// A text node of a Markdown or HTML chapter: text rules, conversion, typography; None
    /// when nothing changes; an error when a rule runs past its budget (`clock`: the rules'
    /// time on the chapter's text nodes so far).
    pub fn text_node(
        &self,
        text: &str,
        file: FileRef<'_>,
        tally: Option<&mut Tally>,
        clock: &mut Clock,
    ) -> Result<Option<String>> {
        let which = self.which(false, Some(file));
        let cleaned = apply_rules(&self.rules, &which, text, (Some(file), 0), tally, clock)
            .map_err(|e| self.overrun_error(e, Some(file), 0))?;
        let cleaned = cleaned.as_deref().unwrap_or(text);
        Ok(match self.finish(cleaned, Place::Body) {
            Cow::Owned(o) => Some(o),
            Cow::Borrowed(_) if cleaned.len() != text.len() || cleaned != text => {
                Some(cleaned.to_string())
            }
            Cow::Borrowed(_) => None,
        })
    }

    /// Whether the text rules that apply to `file` remove `line` (leave nothing of it): what
    /// the cleanup takes out, `check`'s linter does not report again.
    pub fn removes_line(&self, line: &str, file: FileRef<'_>) -> bool {
        if self.filter.is_empty() {
            return false;
        }
        let which = Which {
            fix: self,
            titles: false,
            file: Some(file.relative),
            known: None,
        };
        // A rule past its budget removes nothing here; the build reports it.
        let mut clock = Clock::default();
        apply_rules(&self.rules, &which, line, (None, 0), None, &mut clock)
            .is_ok_and(|s| s.is_some_and(|s| s.trim().is_empty()))
    }

    /// A plain-text chapter file's decoded text. `lines` says whether a line is a heading
    /// (by the file's `split` rules) and which lines a paragraph joins; `split` whether the file is split at its headings (else
    /// only its first line can be a title). An error when a rule runs past its budget.
    pub fn text_file<'a>(
        &self,
        text: &'a str,
        file: FileRef<'_>,
        lines: &LineReading<'_>,
        split: bool,
        tally: Option<&mut Tally>,
    ) -> Result<Cow<'a, str>> {
        let mut after = AfterRules::default();
        self.text_file_counted(text, file, (lines, split), tally, &mut after)
    }

    /// [`TextFix::text_file`], also telling in `after_rules` what the cleanup rules left when
    /// they changed the text: the text ledger's count, and where each line came from.
    pub fn text_file_counted<'a>(
        &self,
        text: &'a str,
        file: FileRef<'_>,
        (lines, split): (&LineReading<'_>, bool),
        tally: Option<&mut Tally>,
        after_rules: &mut AfterRules,
    ) -> Result<Cow<'a, str>> {
        let heading = lines.heading;
        let cleaned = self
            .clean_file(text, file, heading, split, tally)
            .map_err(|(e, line)| self.overrun_error(e, Some(file), line))?;
        after_rules.count = cleaned.as_ref().map(|c| crate::ledger::count(&c.0));
        let cleaned: Cow<'a, str> = match cleaned {
            Some((t, origins)) => {
                after_rules.lines = Some(origins);
                Cow::Owned(t)
            }
            None => Cow::Borrowed(text),
        };
        Ok(self.convert_file(cleaned, lines))
    }

    /// Conversion, quotation marks and typography on a plain-text file's cleaned text.
    fn convert_file<'a>(&self, cleaned: Cow<'a, str>, lines: &LineReading<'_>) -> Cow<'a, str> {
        if self.conversion.is_none() && self.quotes.is_none() && self.typography == Typography::Off
        {
            return cleaned;
        }
        // Converted whole (one call, with the lines the paragraphs will join taken as one),
        // then typography line by line.
        let mut converted = cleaned;
        if let Some(c) = self.conversion
            && let Cow::Owned(o) = c.convert_file(&converted, lines)
        {
            converted = Cow::Owned(o);
        }
        if let Some(q) = self.quotes
            && let Cow::Owned(o) = q.apply(&converted)
        {
            converted = Cow::Owned(o);
        }
        if self.typography == Typography::Off {
            return converted;
        }
        self.typography_by_line(converted, lines.heading)
    }

    /// Typography on each line of `text` that holds something it might change (the rest are
    /// not looked at again); written out only when a line changes.
    fn typography_by_line<'a>(
        &self,
        text: Cow<'a, str>,
        heading: &dyn Fn(&str) -> bool,
    ) -> Cow<'a, str> {
        let mut out: Option<String> = None;
        let mut copied = 0;
        let mut from = 0;
        let candidates = typography::Candidates::new(self.typography, &text);
        while let Some(at) = candidates.next_from(from) {
            let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
            let line = &text[start..end];
            if crate::lines::picture(line).is_some() {
                from = end;
                continue;
            }
            let place = if line.contains(' ') && heading(line) {
                Place::Title
            } else {
                Place::Body
            };
            if let Cow::Owned(fixed) = self.typography.apply(line, place) {
                let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 64));
                o.push_str(&text[copied..start]);
                o.push_str(&fixed);
                copied = end;
            }
            from = end;
        }
        match out {
            Some(mut o) => {
                o.push_str(&text[copied..]);
                Cow::Owned(o)
            }
            None => text,
        }
    }

    /// The cleanup rules on a plain-text file: title rules on its title lines, text rules on
    /// the rest. None when nothing changes, else the text and the source line (1-based) of
    /// each of its lines; a rule past its budget, with the first line of the text it ran on.
    fn clean_file(
        &self,
        text: &str,
        file: FileRef<'_>,
        heading: &dyn Fn(&str) -> bool,
        split: bool,
        mut tally: Option<&mut Tally>,
    ) -> std::result::Result<Option<Cleaned>, (RuleOverrun, usize)> {
        let found = self.applicable(text, Some(file.relative));
        let text_rules = Which {
            known: Some(&found),
            ..self.which(false, Some(file))
        };
        let title_rules = self.which(true, Some(file));
        let may_title = found.iter().any(|&i| self.rules[i].scope.covers(true));
        if !may_title && !found.iter().any(|&i| self.rules[i].scope.covers(false)) {
            return Ok(None);
        }
        // One clock for the file: a look-around rule's time budget is for all its lines.
        let clock = RefCell::new(Clock::default());
        let may_title = may_title.then_some(&title_rules);
        let titles = self.title_lines(text, (split, heading), may_title, &clock);
        let clock = &mut clock.borrow_mut();
        if titles.is_empty() {
            let fixed = apply_rules_traced(
                &self.rules,
                &text_rules,
                text,
                (Some(file), 1),
                tally,
                clock,
            )
            .map_err(|e| (e, 1))?;
            return Ok(fixed.map(|(t, lines)| (t, lines.unwrap_or_default())));
        }
        let lines: Vec<&str> = text.split('\n').collect();
        let mut pieces: Vec<Cow<'_, str>> = Vec::new();
        let mut origins: Vec<usize> = Vec::new();
        let mut changed = false;
        let mut start = 0;
        for &t in titles.iter().chain(std::iter::once(&lines.len())) {
            if start < t {
                let body = lines[start..t].join("\n");
                let fixed = apply_rules_traced(
                    &self.rules,
                    &text_rules,
                    &body,
                    (Some(file), start + 1),
                    tally.as_deref_mut(),
                    clock,
                )
                .map_err(|e| (e, start + 1))?;
                changed |= fixed.is_some();
                push_body((&mut pieces, &mut origins), body, fixed, start + 1..=t);
            }
            if let Some(&line) = lines.get(t) {
                let fixed = apply_rules(
                    &self.rules,
                    &title_rules,
                    line,
                    (Some(file), t + 1),
                    tally.as_deref_mut(),
                    clock,
                )
                .map_err(|e| (e, t + 1))?;
                changed |= fixed.is_some();
                // A title the rules emptied goes.
                if fixed.as_deref().is_none_or(|f| !f.trim().is_empty()) {
                    origins.push(t + 1);
                    pieces.push(fixed.map_or(Cow::Borrowed(line), Cow::Owned));
                }
            }
            start = t + 1;
        }
        Ok(changed.then(|| (pieces.join("\n"), origins)))
    }
}

/// A text the rules changed, with the source line of each of its lines when they are known.
type Traced = (String, Option<Vec<usize>>);

/// A file the rules changed, with the source line of each of its lines.
type Cleaned = (String, Vec<usize>);

/// Appends a piece of text between title lines as the rules left it (`fixed`, with the source
/// line of each of its lines; None: unchanged, on source lines `lines`) to a file's pieces,
/// and its lines' source lines to `origins`. A piece the rules emptied adds nothing.
fn push_body(
    (pieces, origins): (&mut Vec<Cow<'_, str>>, &mut Vec<usize>),
    body: String,
    fixed: Option<Traced>,
    lines: std::ops::RangeInclusive<usize>,
) {
    match fixed {
        Some((f, _)) if f.is_empty() && !body.is_empty() => {}
        Some((f, from)) => {
            origins.extend(from.unwrap_or_default());
            pieces.push(Cow::Owned(f));
        }
        None => {
            origins.extend(lines);
            pieces.push(Cow::Owned(body));
        }
    }
}

const RULE_BUDGET_HINT: &str = "a replacement that repeats the match ($0$0) grows the text at every rule that follows; a look-around pattern with nested repetition backtracks: simplify the rule, or limit it with `max-length` or `files`";

/// A rule that ran past its budget on a text: its index among the rules, and which budget.
#[derive(Debug, Clone, Copy)]
struct RuleOverrun {
    rule: usize,
    overrun: rules::Overrun,
}

impl TextFix {
    /// The 0-based indices of a plain-text file's title lines: headings as written, or once
    /// `title_rules` (when they may apply) have run. A title rule past its budget makes no
    /// heading; it is reported where it runs on the line as a title, or as text.
    fn title_lines(
        &self,
        text: &str,
        (split, heading): (bool, &dyn Fn(&str) -> bool),
        title_rules: Option<&Which<'_>>,
        clock: &RefCell<Clock>,
    ) -> Vec<usize> {
        let is_title = |line: &str| {
            heading(line)
                || title_rules.is_some_and(|rules| {
                    let mut clock = clock.borrow_mut();
                    apply_rules(&self.rules, rules, line, (None, 0), None, &mut clock)
                        .is_ok_and(|t| t.is_some_and(|t| heading(&t)))
                })
        };
        title_lines(text, split, &is_title)
    }
}

/// The 0-based indices of a plain-text file's title lines.
fn title_lines(text: &str, split: bool, is_title: &dyn Fn(&str) -> bool) -> Vec<usize> {
    let mut found = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if is_title(line) {
            found.push(i);
        }
        if !split {
            break;
        }
    }
    found
}

/// Runs the rules of one scope in order over `text` (whose first line is line `first_line` of
/// `file`); None when nothing changes. With a tally, records each change. The chain is paid
/// for from one budget: every text it makes is at most [`rules::max_len`] of `text`; the time
/// of look-around rules goes on `clock`.
fn apply_rules(
    rules: &[Rule],
    which: &Which<'_>,
    text: &str,
    at: (Option<FileRef<'_>>, usize),
    tally: Option<&mut Tally>,
    clock: &mut Clock,
) -> std::result::Result<Option<String>, RuleOverrun> {
    apply_rules_traced(rules, which, text, at, tally, clock).map(|r| r.map(|(t, _)| t))
}

/// [`apply_rules`], also giving, when the text starts at a known line (`first_line` > 0),
/// the source line of each line of the result: a rule that removes lines must not shift the
/// line numbers that the split, `check` and the warnings cite.
fn apply_rules_traced(
    rules: &[Rule],
    which: &Which<'_>,
    text: &str,
    (file, first_line): (Option<FileRef<'_>>, usize),
    mut tally: Option<&mut Tally>,
    clock: &mut Clock,
) -> std::result::Result<Option<Traced>, RuleOverrun> {
    let max_len = rules::max_len(text.len());
    let mut current: Option<String> = None;
    let mut origin: Option<Vec<usize>> = None;
    let trace = |now: &str| -> Vec<usize> {
        (0..=now.matches('\n').count())
            .map(|k| first_line + k)
            .collect()
    };
    let mut candidates = which.initial(text);
    let mut k = 0;
    while let Some(&i) = candidates.get(k) {
        k += 1;
        let now = current.as_deref().unwrap_or(text);
        let edits = rules[i]
            .edits(now, max_len, clock.spent(i))
            .map_err(|overrun| RuleOverrun { rule: i, overrun })?;
        if edits.is_empty() {
            continue;
        }
        if first_line > 0 && origin.is_none() {
            origin = Some(trace(now));
        }
        if let (Some(t), Some(f)) = (tally.as_deref_mut(), file) {
            let lines = origin.get_or_insert_with(|| trace(now));
            record_edits(t, i, f, now, &edits, lines, first_line > 0);
        }
        let (fixed, new_origin) = rules::apply_edits(now, &edits, origin.as_deref());
        if new_origin.is_some() {
            origin = new_origin;
        }
        // A rule may make a later one match (two separators left side by side): the rules
        // after this one are chosen again on the new text.
        candidates = which.candidates(&fixed);
        candidates.retain(|&c| c > i);
        k = 0;
        current = Some(fixed);
    }
    Ok(current.map(|c| (c, origin.filter(|_| first_line > 0))))
}

/// The rules of one scope that apply to one file.
struct Which<'a> {
    fix: &'a TextFix,
    titles: bool,
    file: Option<&'a str>,
    /// The rules that may match a text this one is part of (one scan of a whole file serves
    /// its pieces).
    known: Option<&'a [usize]>,
}

impl Which<'_> {
    fn candidates(&self, text: &str) -> Vec<usize> {
        let mut found = self.fix.applicable(text, self.file);
        found.retain(|&i| self.fix.rules[i].scope.covers(self.titles));
        found
    }

    /// The rules to try first on `text`.
    fn initial(&self, text: &str) -> Vec<usize> {
        match self.known {
            Some(known) => known
                .iter()
                .copied()
                .filter(|&i| self.fix.rules[i].scope.covers(self.titles))
                .collect(),
            None => self.candidates(text),
        }
    }
}

/// Records the changes of rule `rule` on `now` (whose lines come from source lines `lines`).
fn record_edits(
    tally: &mut Tally,
    rule: usize,
    file: FileRef<'_>,
    now: &str,
    edits: &[(std::ops::Range<usize>, String)],
    lines: &[usize],
    located: bool,
) {
    for (range, replacement) in edits {
        // Only examples are placed: placing every change would read the text once for each.
        let placed = tally
            .hits
            .get(rule)
            .is_none_or(|h| h.examples.len() < EXAMPLES);
        let at = (located && placed)
            .then(|| {
                let before = &now[..range.start];
                let line = before.matches('\n').count();
                let column = before[before.rfind('\n').map_or(0, |k| k + 1)..]
                    .chars()
                    .count()
                    + 1;
                lines.get(line).map(|&l| (l, column))
            })
            .flatten();
        tally.record(rule, file, at, &now[range.clone()], replacement);
    }
}

/// How the converter reads a plain-text file's lines, as far as this stage needs it: which
/// lines are headings (by the file's `split` rules), and which the paragraph rule joins onto
/// the line before them (a conversion sees a sentence broken across lines whole). The
/// converter hands it in (`convert::chapter`): text fixing runs before conversion and does
/// not import it.
#[derive(Clone, Copy)]
pub struct LineReading<'a> {
    /// Whether a line is a heading.
    pub heading: &'a dyn Fn(&str) -> bool,
    /// The 1-based numbers of the lines of a text that its paragraphs join onto the line
    /// before them (`convert::text::joined_lines`).
    pub joined: fn(&str) -> Vec<usize>,
}

#[cfg(test)]
mod tests;
