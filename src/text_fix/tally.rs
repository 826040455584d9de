//! What the cleanup rules did, per rule, with the first few changes and where they were: the
//! tally `check`'s dry run reports.
//!
//! Apart from the stage because a build keeps no tally: only `check` asks for one, and the
//! stage records into it only when it is given one.

use std::path::PathBuf;

use super::FileRef;

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
}

/// Records the changes of rule `rule` on `now` (whose lines come from source lines `lines`).
pub(super) fn record_edits(
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
