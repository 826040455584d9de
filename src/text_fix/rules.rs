//! Cleanup rules: `[[cleanup]]` entries (and the built-in preset) compiled, and applied to a
//! piece of text.
//!
//! A pattern is a regex in multi-line mode (`^` and `$` match at every line). It compiles with
//! the `regex` crate, which never backtracks; only a pattern that needs look-around or a
//! back-reference goes to `fancy-regex`, whose backtracking is capped (a pattern that hits
//! the cap matches nothing there rather than hanging the build). A rule applies to a whole
//! stretch of text at once, so a pattern may span lines (`\n`, `(?s)`); a line that a rule
//! leaves blank is removed. Several rules are first tried together over the text (one
//! [`regex::RegexSet`] pass): a chapter no rule matches costs one scan.
//!
//! A rule's work on one text is budgeted, because a rule is a program the book runs: the
//! chain of rules may make a text at most [`GROWTH`] times as long as it was (plus
//! [`GROWTH_SLACK`] bytes, for short titles), a look-around pattern may backtrack at most
//! [`BACKTRACK_LIMIT`] steps in one search and run at most [`FANCY_TIME`] on one chapter,
//! whatever the number of texts it is cut into (a pattern that backtracks a little less than
//! the limit for every match would otherwise take minutes). Past a budget, [`Rule::edits`]
//! gives an [`Overrun`] instead of edits.

use std::ops::Range;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How many times as long as it was the rules may make a text (over the whole chain).
pub const GROWTH: usize = 4;

/// Bytes the rules may add to any text besides [`GROWTH`] (a title of three characters may
/// become a longer one).
pub const GROWTH_SLACK: usize = 1024;

/// fancy-regex's limit on backtracking steps in one search.
pub const BACKTRACK_LIMIT: usize = 100_000;

/// How long a look-around rule may search one chapter (its text nodes or lines together).
/// Linear patterns (the `regex` crate's) need no such budget; a look-around pattern's steps
/// cannot be counted from outside fancy-regex, so its time is, between matches (each search
/// is bounded by [`BACKTRACK_LIMIT`]).
pub const FANCY_TIME: Duration = Duration::from_secs(1);

/// The time each look-around rule has spent on one chapter, against [`FANCY_TIME`].
#[derive(Debug, Default)]
pub struct Clock {
    spent: Vec<Duration>,
}

impl Clock {
    /// Rule `rule`'s time so far.
    pub(super) fn spent(&mut self, rule: usize) -> &mut Duration {
        if self.spent.len() <= rule {
            self.spent.resize(rule + 1, Duration::ZERO);
        }
        &mut self.spent[rule]
    }
}

/// The most bytes the rules may make of a text of `len` bytes.
pub fn max_len(len: usize) -> usize {
    len.saturating_mul(GROWTH).saturating_add(GROWTH_SLACK)
}

/// Why a rule's edits on a text were refused: which budget it ran past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overrun {
    /// The text would grow past this many bytes ([`max_len`] of the text the chain began with).
    Growth(usize),
    /// One search backtracked more than [`BACKTRACK_LIMIT`] steps.
    Backtracking,
    /// The searches over one chapter took more than [`FANCY_TIME`].
    Time,
}

impl std::fmt::Display for Overrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Overrun::Growth(max) => write!(
                f,
                "would make the text longer than its budget of {max} bytes ({GROWTH} times its \
                 length before the cleanup rules, plus {GROWTH_SLACK})"
            ),
            Overrun::Backtracking => write!(
                f,
                "backtracked more than its budget of {BACKTRACK_LIMIT} steps in one search"
            ),
            Overrun::Time => write!(
                f,
                "searched this chapter for longer than its budget of {} ms",
                FANCY_TIME.as_millis()
            ),
        }
    }
}

/// What text a rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The chapters' text (every line that is not a title).
    Text,
    /// Chapter, part and volume titles.
    Titles,
    /// Both.
    Both,
}

impl Scope {
    /// Whether the rule applies to text (`titles == false`) or to titles.
    pub fn covers(self, titles: bool) -> bool {
        match self {
            Scope::Both => true,
            Scope::Text => !titles,
            Scope::Titles => titles,
        }
    }
}

/// Where a rule was written, for messages and the dry run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// An entry of a TOML file, at this line.
    File {
        /// `metadata.toml` or `cleanup.toml`.
        path: PathBuf,
        /// 1-based line of the entry's `pattern`.
        line: usize,
    },
    /// A rule of a built-in preset.
    Preset {
        /// The preset's name.
        preset: &'static str,
        /// What the rule removes, in words.
        what: &'static str,
    },
}

/// A compiled cleanup rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pattern: Pattern,
    /// The pattern as written.
    pub source: String,
    replace: String,
    /// What the rule applies to.
    pub scope: Scope,
    /// Only chapter files whose path (relative to the project folder) matches.
    pub files: Option<glob::Pattern>,
    /// A match longer than this many characters is left alone (`max-length`): a line rule
    /// then never removes a paragraph that merely mentions its keyword.
    pub max_chars: Option<usize>,
    /// Strings of which every match holds one (a built-in rule's, known by hand; empty when
    /// not known): a text that holds none of them is not searched with the pattern.
    pub needs: &'static [&'static str],
    /// Where it was written.
    pub origin: Origin,
}

#[derive(Debug, Clone)]
enum Pattern {
    Plain(regex::Regex),
    Fancy(Box<fancy_regex::Regex>),
    /// A built-in rule written as code (a preset's matcher that folds look-alike characters
    /// before it matches): the edits it makes to a text.
    Code(Finder),
}

/// A built-in rule's matcher written as code: the edits it makes to a text.
pub(super) type Finder = fn(&str) -> Vec<(Range<usize>, String)>;

/// Why a pattern does not compile: the byte offset in the pattern as written, and what is
/// wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// Byte offset in the pattern.
    pub offset: usize,
    /// The compiler's explanation.
    pub message: String,
}

/// Prepended to every pattern: `^` and `$` match at lines.
const FLAGS: &str = "(?m)";

impl Rule {
    /// Compiles a rule. `replace` may name capture groups (`$1`, `${name}`).
    pub fn new(
        source: &str,
        replace: &str,
        scope: Scope,
        files: Option<glob::Pattern>,
        origin: Origin,
    ) -> Result<Rule, PatternError> {
        Ok(Rule {
            pattern: compile(source)?,
            source: source.to_string(),
            replace: replace.to_string(),
            scope,
            files,
            max_chars: None,
            needs: &[],
            origin,
        })
    }

    /// Whether the rule applies to the chapter file at `file` (relative to the project
    /// folder, `/`-separated); None for a title that comes from no file.
    pub fn applies_to(&self, file: Option<&str>) -> bool {
        match (&self.files, file) {
            (None, _) => true,
            (Some(glob), Some(file)) => glob.matches(file),
            (Some(_), None) => false,
        }
    }

    /// A built-in rule whose matcher is `find` (described by `source`, for messages).
    pub(super) fn code(source: &str, find: Finder, scope: Scope, origin: Origin) -> Rule {
        Rule {
            pattern: Pattern::Code(find),
            source: source.to_string(),
            replace: String::new(),
            scope,
            files: None,
            max_chars: None,
            needs: &[],
            origin,
        }
    }

    /// Whether the pattern can run through a [`regex::RegexSet`].
    pub(super) fn plain(&self) -> Option<&regex::Regex> {
        match &self.pattern {
            Pattern::Plain(re) => Some(re),
            Pattern::Fancy(_) | Pattern::Code(_) => None,
        }
    }

    /// The changes the rule makes to `text`: byte range and replacement, in order, each a
    /// real change (a match replaced by itself is not one); an [`Overrun`] when they would make
    /// the text longer than `max_len` bytes or the search runs past its budget (`spent`: the
    /// rule's time so far on this chapter, which the search adds to).
    pub fn edits(
        &self,
        text: &str,
        max_len: usize,
        spent: &mut Duration,
    ) -> Result<Vec<(Range<usize>, String)>, Overrun> {
        let mut edits = Edits::new(text, max_len, self.max_chars);
        let expand = self.replace.contains('$');
        // What one replacement may hold: the template, and the match once per `$`.
        let per_match = |m: usize| {
            let refs = self.replace.matches('$').count();
            self.replace.len().saturating_add(refs.saturating_mul(m))
        };
        match &self.pattern {
            Pattern::Code(find) => return Ok(find(text)),
            Pattern::Plain(re) if expand => {
                for caps in re.captures_iter(text) {
                    let m = caps.get(0).expect("group 0 always matches");
                    edits.check_bound(m.range(), per_match(m.len()))?;
                    let mut r = String::new();
                    caps.expand(&self.replace, &mut r);
                    edits.push(m.range(), r)?;
                }
            }
            Pattern::Plain(re) => {
                for m in re.find_iter(text) {
                    edits.push(m.range(), self.replace.clone())?;
                }
            }
            Pattern::Fancy(re) => {
                if *spent > FANCY_TIME {
                    return Err(Overrun::Time);
                }
                let (started, before) = (Instant::now(), *spent);
                for caps in re.captures_iter(text) {
                    // fancy-regex's runtime errors are its limits: backtracking steps, stack.
                    let caps = caps.map_err(|_| Overrun::Backtracking)?;
                    *spent = before + started.elapsed();
                    if *spent > FANCY_TIME {
                        return Err(Overrun::Time);
                    }
                    let m = caps.get(0).expect("group 0 always matches");
                    let mut r = String::new();
                    if expand {
                        edits.check_bound(m.range(), per_match(m.range().len()))?;
                        caps.expand(&self.replace, &mut r);
                    } else {
                        r.push_str(&self.replace);
                    }
                    edits.push(m.range(), r)?;
                }
                *spent = before + started.elapsed();
            }
        }
        Ok(edits.edits)
    }

    /// [`Rule::edits`] without `max-length`, within the budget of a text as long as `text`.
    #[cfg(test)]
    pub(super) fn all_edits(&self, text: &str) -> Vec<(Range<usize>, String)> {
        let rule = Rule {
            max_chars: None,
            ..self.clone()
        };
        rule.edits(text, max_len(text.len()), &mut Duration::default())
            .unwrap_or_default()
    }
}

/// The edits of one rule on one text, as they are found, and the length they make it.
struct Edits<'t> {
    text: &'t str,
    edits: Vec<(Range<usize>, String)>,
    /// The text's length after the edits so far.
    len: usize,
    max_len: usize,
    max_chars: Option<usize>,
}

impl<'t> Edits<'t> {
    fn new(text: &'t str, max_len: usize, max_chars: Option<usize>) -> Edits<'t> {
        Edits {
            text,
            edits: Vec::new(),
            len: text.len(),
            max_len,
            max_chars,
        }
    }

    /// Refuses, before it is written, a replacement of the match at `range` that may hold
    /// `bound` bytes when that would pass twice the budget (written, it is measured exactly).
    fn check_bound(&self, range: Range<usize>, bound: usize) -> Result<(), Overrun> {
        let at_most = (self.len - range.len()).saturating_add(bound);
        match at_most > self.max_len.saturating_mul(2) {
            true => Err(Overrun::Growth(self.max_len)),
            false => Ok(()),
        }
    }

    /// Keeps a real change that `max-length` allows, within the budget.
    fn push(&mut self, range: Range<usize>, r: String) -> Result<(), Overrun> {
        let text = self.text;
        if text.get(range.clone()) == Some(r.as_str()) {
            return Ok(());
        }
        // Bytes first: a match of at most `max` bytes has at most `max` characters.
        if let Some(max) = self.max_chars
            && range.len() > max
            && text[range.clone()].chars().count() > max
        {
            return Ok(());
        }
        self.len = self.len - range.len() + r.len();
        if self.len > self.max_len {
            return Err(Overrun::Growth(self.max_len));
        }
        self.edits.push((range, r));
        Ok(())
    }
}

/// Compiles a pattern with the `regex` crate, or with `fancy-regex` when it needs
/// look-around or back-references.
fn compile(source: &str) -> Result<Pattern, PatternError> {
    let full = format!("{FLAGS}{source}");
    match regex::Regex::new(&full) {
        Ok(re) => return Ok(Pattern::Plain(re)),
        Err(regex::Error::CompiledTooBig(limit)) => {
            return Err(PatternError {
                offset: 0,
                message: format!("the pattern is too big (it compiles past {limit} bytes)"),
            });
        }
        Err(_) => {}
    }
    let ast_error = regex_syntax::ast::parse::Parser::new().parse(&full).err();
    let needs_fancy = match &ast_error {
        Some(e) => matches!(
            e.kind(),
            regex_syntax::ast::ErrorKind::UnsupportedLookAround
                | regex_syntax::ast::ErrorKind::UnsupportedBackreference
        ),
        None => false,
    };
    if !needs_fancy {
        let (offset, message) = match ast_error {
            Some(e) => (e.span().start.offset, e.kind().to_string()),
            None => match regex_syntax::Parser::new().parse(&full) {
                Err(regex_syntax::Error::Translate(e)) => {
                    (e.span().start.offset, e.kind().to_string())
                }
                _ => (FLAGS.len(), "the pattern is not a valid regex".to_string()),
            },
        };
        return Err(PatternError {
            offset: offset.saturating_sub(FLAGS.len()).min(source.len()),
            message,
        });
    }
    fancy_regex::RegexBuilder::new(&full)
        .backtrack_limit(BACKTRACK_LIMIT)
        .build()
        .map(|re| Pattern::Fancy(Box::new(re)))
        .map_err(|e| PatternError {
            offset: fancy_offset(&e)
                .saturating_sub(FLAGS.len())
                .min(source.len()),
            message: e.to_string(),
        })
}

fn fancy_offset(e: &fancy_regex::Error) -> usize {
    match e {
        fancy_regex::Error::ParseError(offset, _) => *offset,
        _ => FLAGS.len(),
    }
}

/// The text after `edits` (from [`Rule::edits`], in order) are made, with every line they
/// leave blank removed. With `origin` (the source line number of each line of `text`), also
/// the source line number of each line of the result.
pub fn apply_edits(
    text: &str,
    edits: &[(Range<usize>, String)],
    origin: Option<&[usize]>,
) -> (String, Option<Vec<usize>>) {
    let mut w = Writer {
        out: String::with_capacity(text.len()),
        line_start: 0,
        touched: false,
        in_line: 0,
        first_in_line: 0,
        origin,
        new_origin: origin.map(|_| Vec::new()),
    };
    let mut pos = 0;
    for (range, replacement) in edits {
        w.copy(&text[pos..range.start]);
        w.touched = true;
        let matched = &text[range.clone()];
        if w.origin.is_some() {
            w.in_line += matched.matches('\n').count();
        }
        w.push_replacement(replacement);
        pos = range.end;
    }
    w.copy(&text[pos..]);
    w.finish()
}

/// Writes the result of [`apply_edits`], ending lines as it goes.
struct Writer<'a> {
    out: String,
    /// Where the current output line starts.
    line_start: usize,
    /// Whether an edit touched the current output line.
    touched: bool,
    /// The input line being read (0-based), counted only with `origin`.
    in_line: usize,
    /// The input line the current output line started in.
    first_in_line: usize,
    origin: Option<&'a [usize]>,
    new_origin: Option<Vec<usize>>,
}

impl Writer<'_> {
    /// Copies untouched input, which may hold line ends.
    fn copy(&mut self, mut seg: &str) {
        while let Some(i) = seg.find('\n') {
            self.out.push_str(&seg[..i]);
            self.end_line(true);
            seg = &seg[i + 1..];
            if self.origin.is_none()
                && let Some(j) = seg.rfind('\n')
            {
                // Whole untouched lines: copied at once.
                self.out.push_str(&seg[..=j]);
                self.line_start = self.out.len();
                seg = &seg[j + 1..];
            }
        }
        self.out.push_str(seg);
    }

    /// Writes a replacement, whose line ends start output lines of their own.
    fn push_replacement(&mut self, mut r: &str) {
        while let Some(i) = r.find('\n') {
            self.out.push_str(&r[..i]);
            self.end_line(false);
            self.touched = true;
            r = &r[i + 1..];
        }
        self.out.push_str(r);
    }

    /// Ends the current output line: removed when an edit left it blank. `input` says
    /// whether the line end comes from the input (the next input line starts).
    fn end_line(&mut self, input: bool) {
        let blank = self.out[self.line_start..].trim().is_empty();
        if self.touched && blank {
            self.out.truncate(self.line_start);
        } else {
            self.out.push('\n');
            self.record_line();
        }
        if input {
            self.in_line += 1;
        }
        self.line_start = self.out.len();
        self.touched = false;
        self.first_in_line = self.in_line;
    }

    fn record_line(&mut self) {
        if let (Some(origin), Some(new)) = (self.origin, self.new_origin.as_mut()) {
            let at = origin
                .get(self.first_in_line)
                .or(origin.last())
                .copied()
                .unwrap_or(1);
            new.push(at);
        }
    }

    fn finish(mut self) -> (String, Option<Vec<usize>>) {
        let blank = self.out[self.line_start..].trim().is_empty();
        if self.touched && blank {
            self.out.truncate(self.line_start);
            // The line before keeps its end: the text still ends as it did.
        } else {
            self.record_line();
        }
        (self.out, self.new_origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(pattern: &str, replace: &str) -> Rule {
        let origin = Origin::File {
            path: "metadata.toml".into(),
            line: 1,
        };
        Rule::new(pattern, replace, Scope::Text, None, origin).unwrap()
    }

    fn run(pattern: &str, replace: &str, text: &str) -> String {
        let r = rule(pattern, replace);
        apply_edits(text, &edits(&r, text), None).0
    }

    fn edits(r: &Rule, text: &str) -> Vec<(Range<usize>, String)> {
        r.edits(text, max_len(text.len()), &mut Duration::default())
            .unwrap()
    }

    #[test]
    fn a_line_left_blank_is_removed_and_others_keep_their_shape() {
        let text = "第一段。\n本章未完，请点击下一页继续阅读\n第二段。\n";
        assert_eq!(run("本章未完.*", "", text), "第一段。\n第二段。\n");
        // Removing part of a line keeps the line.
        assert_eq!(run("（求月票）", "", "好。（求月票）\n"), "好。\n");
        // Blank lines no rule touched stay.
        assert_eq!(run("广告", "", "甲\n\n广告\n\n乙"), "甲\n\n\n乙");
        // The last line, without a line end.
        assert_eq!(run("^广告$", "", "甲\n广告"), "甲\n");
    }

    #[test]
    fn replacements_use_capture_groups_and_multi_line_anchors() {
        assert_eq!(
            run(r"^正文\s+(第.+)$", "$1", "正文 第一回 甲\n乙\n"),
            "第一回 甲\n乙\n"
        );
        assert_eq!(
            run(r"(?P<a>\d+)年", "${a} 年", "1999年与2000年"),
            "1999 年与2000 年"
        );
    }

    #[test]
    fn look_around_goes_to_fancy_regex() {
        let r = rule(r"(?<=[。！？])\s+(?=[“「])", "");
        assert!(r.plain().is_none());
        let text = "他走了。  “等等。”";
        assert_eq!(
            apply_edits(text, &edits(&r, text), None).0,
            "他走了。“等等。”"
        );
        assert!(rule("a+", "").plain().is_some());
    }

    #[test]
    fn patterns_may_span_lines() {
        let text = "甲\n版权声明：本站\n所有电子书\n乙\n";
        assert_eq!(run(r"(?s)版权声明.*?电子书\n", "", text), "甲\n乙\n");
    }

    #[test]
    fn a_match_replaced_by_itself_is_no_edit() {
        let r = rule("甲", "甲");
        assert!(edits(&r, "甲乙甲").is_empty());
        assert!(edits(&rule("^", ""), "甲\n\n乙").is_empty());
    }

    #[test]
    fn bad_patterns_name_the_position_in_the_pattern() {
        let e = compile("abc(def").unwrap_err();
        assert_eq!(e.offset, 3, "{e:?}");
        let e = compile("a{2,1}").unwrap_err();
        assert!(e.offset <= 6, "{e:?}");
        let e = compile(r"(?<=a+)b\").unwrap_err();
        assert!(e.offset > 0 && e.offset <= 9, "{e:?}");
        let e = compile(r"\p{Nope}").unwrap_err();
        assert_eq!(e.offset, 0, "{e:?}");
    }

    #[test]
    fn origins_follow_removed_lines() {
        let r = rule("^删$", "");
        let text = "一\n删\n三\n删\n五";
        let (out, origin) = apply_edits(text, &edits(&r, text), Some(&[1, 2, 3, 4, 5]));
        assert_eq!(out, "一\n三\n五");
        assert_eq!(origin.unwrap(), [1, 3, 5]);
    }

    #[test]
    fn a_match_longer_than_max_length_is_left_alone() {
        let mut r = rule("^.*广告.*$", "");
        r.max_chars = Some(6);
        let text = "看广告\n这一段很长的正文里提到了广告二字\n";
        assert_eq!(
            apply_edits(text, &edits(&r, text), None).0,
            "这一段很长的正文里提到了广告二字\n"
        );
    }

    #[test]
    fn files_globs_choose_chapters() {
        let mut r = rule("x", "");
        r.files = Some(glob::Pattern::new("vol1/*.txt").unwrap());
        assert!(r.applies_to(Some("vol1/001.txt")));
        assert!(!r.applies_to(Some("vol2/001.txt")));
        assert!(!r.applies_to(None));
    }
}
