//! The readers and stores a build makes an EPUB for: the value every stage reads. What each
//! target changes of the plain EPUB lives with the transformations, in `crate::stores`.

/// A reader or store an EPUB is made for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Target {
    /// A plain EPUB 3 for any reader.
    #[default]
    Epub,
    /// A Kobo kepub (`.kepub.epub`): sentence spans, the pagination wrappers.
    Kobo,
    /// An EPUB that Send-to-Kindle's converter takes as it is (and calibre turns into AZW3).
    Kindle,
    /// Apple Books: embedded fonts honoured, notes as pop-ups.
    Apple,
}

impl Target {
    /// Every target, in the order outputs are written.
    pub const ALL: [Target; 4] = [Target::Epub, Target::Kobo, Target::Kindle, Target::Apple];

    /// The name used on the command line and in `[output] targets`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Epub => "epub",
            Target::Kobo => "kobo",
            Target::Kindle => "kindle",
            Target::Apple => "apple",
        }
    }

    /// The target called `name` (case-insensitive).
    pub fn parse(name: &str) -> Option<Target> {
        Target::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The end of the file name of this target's EPUB: `.epub`, `.kepub.epub` (what Kobo
    /// devices recognise), `.kindle.epub`, `.apple.epub`.
    pub fn suffix(self) -> &'static str {
        match self {
            Target::Epub => ".epub",
            Target::Kobo => ".kepub.epub",
            Target::Kindle => ".kindle.epub",
            Target::Apple => ".apple.epub",
        }
    }

    /// How deep this target's tables of contents may nest (Kindle: two levels).
    pub(crate) fn toc_depth(self) -> Option<usize> {
        match self {
            Target::Kindle => Some(KINDLE_TOC_DEPTH),
            _ => None,
        }
    }
}

/// How deep Kindle's tables of contents may nest: Send-to-Kindle flattens anything deeper.
pub(crate) const KINDLE_TOC_DEPTH: usize = 2;

impl Target {
    /// Where this target's EPUB goes when several are built beside `base` (the plain EPUB's
    /// path): `base` without its `.epub`, then [`Target::suffix`].
    pub fn output_beside(self, base: &std::path::Path) -> std::path::PathBuf {
        let name = base
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = match name.len().checked_sub(5) {
            Some(at) if name.is_char_boundary(at) && name[at..].eq_ignore_ascii_case(".epub") => {
                &name[..at]
            }
            _ => name.as_str(),
        };
        base.with_file_name(format!("{stem}{}", self.suffix()))
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
