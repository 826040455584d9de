//! How heading lines are recognised (`split`, `volume_split`): a setting the project
//! validates and the converter applies.

use regex::Regex;

/// How heading lines are recognised.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SplitMode {
    /// The built-in rules for Chinese and English headings.
    Auto,
    /// User patterns: a line whose trimmed text matches `chapter` is a chapter heading, one
    /// matching `volume` a volume heading (the volume pattern is tried first). Blank lines are
    /// never headings, even for a pattern such as `^$`.
    Pattern {
        /// Matches chapter heading lines.
        chapter: Regex,
        /// Matches volume heading lines, when the book has volumes.
        volume: Option<Regex>,
    },
    /// A Markdown or HTML file cut before every heading of this level (1 for `h1`, from
    /// `split = "h1"` to `"h6"`) and above, as pandoc's `--epub-chapter-level`: each heading
    /// starts a chapter. Plain text has no such headings.
    Headings(usize),
}

/// A `split` or `volume_split` setting that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    /// The setting is not a valid regex; the source holds the regex crate's explanation.
    #[error("`{setting}` is not a valid regex: {source}")]
    BadPattern {
        /// Which setting: `split` or `volume_split`.
        setting: &'static str,
        /// The regex compiler's error, which quotes the pattern and points at the problem.
        #[source]
        source: regex::Error,
    },
    /// `split` is empty, which would make every line a chapter.
    #[error("`split` is empty; use \"auto\" or a regex that matches chapter heading lines")]
    EmptyPattern,
    /// A volume regex was given while chapters are found automatically.
    #[error(
        "`volume_split` needs `split` to be a regex too; with `split = \"auto\"` volumes are \
         found automatically, so remove `volume_split` or give a chapter regex"
    )]
    VolumePatternWithAuto,
    /// A volume regex was given with a heading level.
    #[error(
        "`volume_split` cannot be used with `split = \"h1\"`…`\"h6\"`: a Markdown or HTML \
         file is cut at headings of that level and above, and higher headings nest the lower \
         ones in the table of contents"
    )]
    VolumePatternWithHeadings,
}

/// 1 to 6 for a `split` of `"h1"` to `"h6"` (any case, surrounding spaces ignored).
fn heading_level(split: &str) -> Option<usize> {
    let split = split.trim();
    let digit = split
        .strip_prefix('h')
        .or_else(|| split.strip_prefix('H'))?;
    match digit {
        "1" | "2" | "3" | "4" | "5" | "6" => digit.parse().ok(),
        _ => None,
    }
}

impl SplitMode {
    /// Builds the mode from the `split` and `volume_split` settings of metadata.toml.
    ///
    /// `split` is `"auto"` (any case, surrounding spaces ignored) or a chapter regex.
    /// `volume_split` is a volume regex; an empty value or `"auto"` alongside `split = "auto"`
    /// means none is given. A volume regex next to `split = "auto"` is refused rather than
    /// silently ignored.
    pub fn from_config(split: &str, volume_split: Option<&str>) -> Result<SplitMode, SplitError> {
        let volume_split = volume_split.filter(|v| !v.trim().is_empty());
        if let Some(level) = heading_level(split) {
            return match volume_split {
                Some(_) => Err(SplitError::VolumePatternWithHeadings),
                None => Ok(SplitMode::Headings(level)),
            };
        }
        if split.trim().eq_ignore_ascii_case("auto") {
            return match volume_split {
                Some(v) if !v.trim().eq_ignore_ascii_case("auto") => {
                    Err(SplitError::VolumePatternWithAuto)
                }
                _ => Ok(SplitMode::Auto),
            };
        }
        if split.is_empty() {
            return Err(SplitError::EmptyPattern);
        }
        let chapter = Regex::new(split).map_err(|source| SplitError::BadPattern {
            setting: "split",
            source,
        })?;
        let volume = volume_split
            .map(|v| {
                Regex::new(v).map_err(|source| SplitError::BadPattern {
                    setting: "volume_split",
                    source,
                })
            })
            .transpose()?;
        Ok(SplitMode::Pattern { chapter, volume })
    }
}
