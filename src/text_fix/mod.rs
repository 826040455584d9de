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
//! is the point); a Markdown or HTML chapter only in its text nodes, never in its markup or
//! attribute values. Text inside `code`, `pre` and the like is only converted
//! ([`TextFix::code_node`]: Chinese comments and strings of a program, as OpenCC and calibre
//! convert them; `[text] convert-code = false` leaves code as written); cleanup rules,
//! quotation marks and typography never touch it. Conversion and typography never touch
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
use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, Result};

pub use chinese::{Conversion, Quotes};
pub use rules::{Clock, Origin, Rule, Scope};
pub use typography::{Place, Typography};

mod prefilter;
mod tally;

use prefilter::Prefilter;
pub use tally::Tally;
use tally::record_edits;

/// Everything the stage does to a book's text, compiled once per project.
#[derive(Debug, Clone)]
pub struct TextFix {
    rules: Arc<[Rule]>,
    /// Every rule, for one pass over a text whatever the scope.
    filter: Prefilter,
    conversion: Option<Conversion>,
    quotes: Option<Quotes>,
    typography: Typography,
    /// Whether the conversion also runs on code ([`TextFix::code_node`]).
    convert_code: bool,
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
            convert_code: true,
        }
    }

    /// The stage with the conversion running on code too (`true`, the default: OpenCC
    /// changes only Chinese characters, so identifiers stay as they are) or not on code
    /// (`[text] convert-code = false`).
    pub fn converting_code(mut self, convert_code: bool) -> TextFix {
        self.convert_code = convert_code;
        self
    }

    /// A text node inside code (`code`, `pre`, `kbd`, `samp`, `var`, `tt`) of a Markdown or
    /// HTML chapter: the conversion alone, when it runs on code; None when nothing changes.
    /// Cleanup rules, quotation marks and typography never change code.
    pub fn code_node(&self, text: &str) -> Option<String> {
        let conversion = self.conversion.filter(|_| self.convert_code)?;
        match conversion.convert(text) {
            Cow::Owned(o) => Some(o),
            Cow::Borrowed(_) => None,
        }
    }

    /// The stage that changes nothing.
    #[cfg(test)]
    pub(crate) fn off() -> TextFix {
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

    /// Whether no rule, conversion, quote style or typography is set: every text is left as
    /// it is (a fix asks for none of them unless told to; a chapter has a text node for about
    /// every paragraph).
    fn changes_nothing(&self) -> bool {
        self.rules.is_empty()
            && self.conversion.is_none()
            && self.quotes.is_none()
            && matches!(self.typography, Typography::Off)
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
        if self.changes_nothing() {
            return Ok(None);
        }
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
    #[cfg(test)]
    pub(crate) fn text_file<'a>(
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
