//! Problems found on the way, as data: a [`Diagnostic`] has a stable [`Code`], a severity, the
//! file (and line and column where there is one), a message and a hint. The build, `check` and
//! `init` all report them, and [`render`] is the one place they are put into words: a
//! compiler-style message for a terminal ([`render::text`]), the fields as they are for
//! `--format json` ([`render::json`]). Only the binary prints.
//!
//! Codes are kebab-case words that scripts (and a future `[check] ignore`) can name; they
//! never change once released. Errors that stop a command are [`crate::Error`]s, which turn
//! into the same form ([`crate::Error::diagnostic`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Error;

pub mod render;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Severity {
    /// The book cannot be built, or the EPUB is invalid.
    Error,
    /// Builds, but worth fixing.
    Warning,
    /// Not a problem: what the build will do, for review (a cleanup rule's dry run).
    Note,
}

/// Declares [`Code`]: each code once, with its doc and its printed name, from which come the
/// enum, [`Code::as_str`] and [`Code::ALL`] (by which a name is read back). The one code
/// that carries data (EPUBCheck's message id) keeps its place, so that the compact format's
/// variant numbers stay as they were.
macro_rules! codes {
    (
        $( $(#[$a:meta])* $before:ident = $bname:literal, )*
        @epubcheck $(#[$e:meta])* $special:ident(MessageId),
        $( $(#[$c:meta])* $after:ident = $aname:literal, )*
    ) => {
        /// What kind of problem: one stable name per kind.
        ///
        /// In JSON (and every human-readable format) a code is its printed string, EPUBCheck's
        /// ids included; compact formats (the build cache's postcard) keep serde's variant
        /// encoding.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[$a])* $before, )*
            $(#[$e])* $special(MessageId),
            $( $(#[$c])* $after, )*
        }

        impl Code {
            /// Every code that carries no data, in declaration order.
            pub const ALL: &[Code] = &[$(Code::$before,)* $(Code::$after,)*];

            /// The code as printed, e.g. `numbering-gap`.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Code::$before => $bname, )*
                    Code::$special(id) => id.as_str(),
                    $( Code::$after => $aname, )*
                }
            }

            /// The code printed as `name`, one of [`Code::ALL`] (not an EPUBCheck id).
            pub fn from_name(name: &str) -> Option<Code> {
                Code::ALL.iter().find(|c| c.as_str() == name).copied()
            }
        }
    };
}

codes! {
    /// A file could not be read or written.
    Io = "io",
    /// `metadata.toml` is not valid TOML, or a key is unknown or mistyped.
    MetadataSyntax = "metadata-syntax",
    /// `metadata.toml` parsed, but a value is not usable.
    Metadata = "metadata",
    /// A chapter listed in the metadata does not exist.
    MissingFile = "missing-file",
    /// A chapter file's bytes could not be turned into text, or some were replaced.
    Encoding = "encoding",
    /// Characters XML forbids were dropped.
    ControlCharacters = "control-characters",
    /// A chapter could not be converted (a missing image, `split` on a non-text file...).
    Convert = "convert",
    /// Something in a Markdown or HTML chapter was removed or changed on the way.
    Markup = "markup",
    /// Elements of a Markdown or HTML chapter were removed with their content (video, frames,
    /// remote images…): one finding per chapter, counting them. An error with `build --strict`.
    RemovedContent = "removed-content",
    /// A Markdown construct the converter does not support (pandoc's citations, raw blocks
    /// for other formats, example lists…): one finding per kind and chapter, counting them.
    UnsupportedMarkup = "unsupported-markup",
    /// Letters or digits of a chapter's source are missing from the book and no documented
    /// step removed them (the text ledger, `src/ledger.rs`): a bug to report. An error with
    /// `build --strict`.
    LostText = "lost-text",
    /// Aozora Bunko annotations (`［＃…］`) the converter does not support were removed: one
    /// finding per kind and file, counting them.
    AozoraAnnotation = "aozora-annotation",
    /// A `《` without its `》`, or a `［＃` without its `］`, in Aozora or web-novel notation:
    /// kept as written, at its line.
    AozoraUnmatched = "aozora-unmatched",
    /// A 外字 annotation names no character the JIS X 0213 table has: its description is kept
    /// in the text, at its line.
    AozoraGaiji = "aozora-gaiji",
    /// A link to something that is not a chapter of the book was removed.
    RemovedLink = "removed-link",
    /// A web page's site navigation (`<nav>`, bars of links to the previous and next pages)
    /// was left out of an HTML chapter: one note per chapter, counting the blocks.
    SiteNavigation = "site-navigation",
    /// An mdBook `{{#include}}` could not be resolved (missing, outside the project, no such
    /// anchor, too deep) and was left as written.
    Include = "include",
    /// A chapter has no text.
    EmptyChapter = "empty-chapter",
    /// A chapter has very little text.
    ShortChapter = "short-chapter",
    /// A line seems to break mid-sentence; the build joins it with the next.
    BrokenLine = "broken-line",
    /// Chapter headings skip or repeat a number.
    HeadingNumbering = "heading-numbering",
    /// `check`: a line that looks like a chapter heading (decorated, bracketed, a typo in its
    /// numeral) was not taken as one: it stays text inside the chapter before it.
    HeadingNotTaken = "heading-not-taken",
    /// `check`: a heading taken through a typo in its numeral (`第十—回` read as 第十一回):
    /// the source should be fixed.
    HeadingRepaired = "heading-repaired",
    /// `check`: a chapter far longer than the book's others (headings missed inside it?).
    LongChapter = "long-chapter",
    /// `check`: the headings of one file follow two numbering sequences that interleave (a
    /// site's page markers among the chapters).
    InterleavedNumbering = "interleaved-numbering",
    /// Chapter file names skip a number.
    NumberingGap = "numbering-gap",
    /// Two chapter files have the same number.
    NumberingDuplicate = "numbering-duplicate",
    /// Two chapters have the same text.
    DuplicateChapter = "duplicate-chapter",
    /// Two chapters have almost the same text.
    SimilarChapter = "similar-chapter",
    /// The book has no description.
    NoDescription = "no-description",
    /// The ISBN's check digit is wrong. No longer given: the load refuses an identifier that
    /// is invalid in its scheme (a `metadata-syntax` error naming the key).
    InvalidIsbn = "invalid-isbn",
    /// The cover is not an image, or readers will show it badly.
    Cover = "cover",
    /// An embedded font cannot be used, or lacks characters the book shows.
    Font = "font",
    /// Something scripted, remote or foreign was removed from an SVG image.
    Svg = "svg",
    /// Something remote or scripted was removed from a user stylesheet, or its bytes were not
    /// valid in its encoding.
    Css = "css",
    /// `init` found no chapters, or would overwrite a metadata file.
    Init = "init",
    /// One of our own structural rules for EPUBs is broken. No longer given: each rule has an
    /// `epub-…` code of its own.
    Structure = "structure",
    /// An EPUB's zip cannot be read safely (unreadable, too many entries, an entry that inflates
    /// past our caps) or names an entry twice.
    EpubZip = "epub-zip",
    /// An EPUB's `mimetype` entry is not first, not stored, or not `application/epub+zip`.
    EpubMimetype = "epub-mimetype",
    /// An XML entry of an EPUB is not well-formed.
    EpubXml = "epub-xml",
    /// `META-INF/container.xml` or the package document cannot be found or used.
    EpubPackage = "epub-package",
    /// A package's `version` is not 2.0 or 3.0.
    EpubVersion = "epub-version",
    /// A manifest item has no id or href, an id twice, a missing file, or the nav is wrong.
    EpubManifest = "epub-manifest",
    /// A file in the EPUB's zip is not listed in the manifest.
    EpubUnlistedFile = "epub-unlisted-file",
    /// A spine itemref names no manifest item.
    EpubSpine = "epub-spine",
    /// The spine lists the same manifest item twice.
    EpubSpineDuplicate = "epub-spine-duplicate",
    /// A package property uses a prefix that is neither reserved nor declared, or declares one
    /// for the Dublin Core elements.
    EpubPrefix = "epub-prefix",
    /// A manifest item or spine itemref has a property the package vocabulary does not define.
    EpubUnknownProperty = "epub-unknown-property",
    /// A `rendition:` property is repeated, has a value the spec does not define, or an
    /// itemref sets two that exclude each other.
    EpubRendition = "epub-rendition",
    /// `epub:type` where structural semantics are not allowed (the `<head>`).
    EpubSemantics = "epub-semantics",
    /// A fixed-layout document has no viewport, or one without a valid width and height.
    EpubViewport = "epub-viewport",
    /// The package metadata lacks a title, language, identifier or a valid `dcterms:modified`.
    EpubMetadata = "epub-metadata",
    /// An XHTML document's `<html>` has no `lang` or `xml:lang`.
    EpubLang = "epub-lang",
    /// The NCX disagrees with the package or is out of order.
    EpubNcx = "epub-ncx",
    /// A link or reference points to a file that is not in the zip.
    EpubMissingResource = "epub-missing-resource",
    /// A link's fragment names no id of its target.
    EpubFragment = "epub-fragment",
    /// A URL is not allowed in an EPUB or is not a valid URL: path-absolute (`/x`), `file:`, or
    /// holding characters that must be percent-encoded.
    EpubUrl = "epub-url",
    /// A resource is used by a document but not listed in the manifest.
    EpubUnlistedResource = "epub-unlisted-resource",
    /// A hyperlink or the table of contents points to a document that is not in the spine.
    EpubOutsideSpine = "epub-outside-spine",
    /// A resource in a format reading systems need not support has no fallback.
    EpubForeignResource = "epub-foreign-resource",
    /// A resource a reading system must have in the container is fetched from the network.
    EpubRemoteResource = "epub-remote-resource",
    /// EPUBCheck reported it (EPUBCheck's own findings carry its message id as their code).
    Epubcheck = "epubcheck",
    /// An environment variable has a value that cannot be used (`SOURCE_DATE_EPOCH`), or the
    /// process cannot install its Ctrl-C handler.
    Environment = "environment",
    /// What one cleanup rule does to the book (`check`'s dry run): how often it matches.
    CleanupRule = "cleanup-rule",
    /// One change a cleanup rule makes, where it makes it (the first few per rule).
    CleanupMatch = "cleanup-match",
    /// Lint: a quote or bracket left open, or closed without being opened, in a paragraph.
    UnmatchedBracket = "unmatched-bracket",
    /// Lint: text decoded with the wrong encoding somewhere (锟斤拷, 烫烫烫, `Ã©`).
    Mojibake = "mojibake",
    /// Lint: a U+FFFD replacement character in the source (a character lost before it).
    ReplacementCharacter = "replacement-character",
    /// Lint: private-use characters, which show as boxes outside the font they were made for.
    PrivateUse = "private-use",
    /// Lint: zero-width characters (zero-width space, word joiner, a BOM inside the text).
    ZeroWidth = "zero-width",
    /// Lint: the same punctuation mark twice (`，，`, `。。`), or two that never meet (`，。`).
    DoubledPunctuation = "doubled-punctuation",
    /// Lint: a paragraph that already appeared earlier in the book (a scraper's repeated page).
    RepeatedParagraph = "repeated-paragraph",
    /// Lint: a paragraph so long its line breaks were probably lost.
    LongParagraph = "long-paragraph",
    /// Lint: a line that looks like a site's boilerplate (a web address, 请收藏, 首发…).
    Boilerplate = "boilerplate",
    /// An entry of `[check] ignore` that suppressed nothing.
    UnusedIgnore = "unused-ignore",
    /// A store or reader's published limit is exceeded (Kindle's 50 MB e-mail limit...); the
    /// message names the source of the limit.
    StoreLimit = "store-limit",
    @epubcheck
    /// A finding of EPUBCheck's, under its own message id (`RSC-012`, `OPF-027`, …).
    EpubcheckMessage(MessageId),
    /// A note too short for Kobo's pop-ups (under nine characters): Kobo jumps to it instead.
    ShortNote = "short-note",
    /// `check --target apple`: an image above Apple Books' 5.6 megapixels.
    AppleImagePixels = "apple-image-pixels",
    /// `check --target google`: a cover outside Google Play's 640 to 7200 pixels.
    GoogleCoverSize = "google-cover-size",
    /// `check --target kobo`: a content document above Kobo's 10 MB.
    KoboFileSize = "kobo-file-size",
    /// `check --target kobo`: a cover page that does not show the cover with an `<img>`.
    KoboCoverImage = "kobo-cover-image",
    /// `--target kindle`: a `dc:language` not on Amazon's list of Kindle languages.
    KindleLanguage = "kindle-language",
    /// `--target kindle`: a spine whose order is not the NCX's.
    KindleSpineOrder = "kindle-spine-order",
    /// `check --target kindle`: a construct Send-to-Kindle's converter rejects or garbles (a
    /// table of contents deeper than two levels, an empty `alt`, a CSS custom property, an id
    /// on `body`).
    KindleConstruct = "kindle-construct",
    /// An input asked for more work than its budget allows (inclusions across the book, a
    /// cleanup rule's output or steps on one text): the build stops, naming the budget.
    Budget = "budget",
    /// A second numbering of heading-like lines interleaved with a text file's chapters (a
    /// site's page markers, `第1节` among `第一回`) was kept as text: one finding per file,
    /// counting them, at the first.
    PageMarkers = "page-markers",
    /// A preprocessor directive nothing here runs (`{{#each …}}`, `{{%session outline}}`) was
    /// removed from a Markdown chapter: one finding per chapter, naming them, at the first.
    UnknownDirective = "unknown-directive",
    /// A picture that cannot be read (missing, outside the project, unreadable): its alt text
    /// stands in its place. An error with `build --strict`.
    UnreadableImage = "unreadable-image",
    /// `epubforge fix`: a kind of problem the input EPUB had that the fixed one no longer
    /// has (one note per kind, with the count and the first message).
    Fixed = "fixed",
    /// `init BOOK.epub`: a file of the EPUB was not written into the project (an unsafe name,
    /// listed but missing, too large), or files in the zip are not in its manifest.
    EpubInFile = "epub-in-file",
    /// `init BOOK.epub`: something of the package document has no key in `metadata.toml` (a
    /// second title, `dc:source`, an identifier the build refuses, a date that is not a day).
    EpubInMetadata = "epub-in-metadata",
    /// `init BOOK.epub`: a spine document was not made a chapter (not XHTML, the cover page),
    /// or has no entry in the contents, or an entry points at no chapter.
    EpubInChapter = "epub-in-chapter",
    /// `init BOOK.epub`: what `inspect` noted while reading the contents (the nav fell back
    /// to the NCX, nesting cut at its depth cap).
    EpubInToc = "epub-in-toc",
    /// `init BOOK.epub --markdown`: a chapter kept as XHTML, since Markdown cannot say all
    /// it holds.
    EpubInMarkdown = "epub-in-markdown",
    /// `build --target azw3`: calibre's `ebook-convert` could not make the AZW3 (not
    /// installed, failed, stopped); the Kindle EPUB was written.
    Azw3 = "azw3",
    /// The command line asks for what cannot be done (`-o` with several books, `watch` to
    /// standard output, `--all` on a folder holding none, options that exclude each other),
    /// or an option does nothing here: exit status 2 for an error, as clap's own.
    Usage = "usage",
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_str(self.as_str())
        } else {
            // The derived (remote = "Self") serialisation.
            Code::serialize(self, s)
        }
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Code, D::Error> {
        if !d.is_human_readable() {
            return Code::deserialize(d);
        }
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let by_name = Code::from_name(&name);
        by_name
            .or_else(|| MessageId::new(&name).map(Code::EpubcheckMessage))
            .ok_or_else(|| serde::de::Error::custom(format!("unknown code `{name}`")))
    }
}

/// An EPUBCheck message id (`RSC-012`, `HTM_059`, `OPF-007c`): a few ASCII letters, digits,
/// `-` and `_`, kept inline so that [`Code`] stays `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MessageId {
    bytes: [u8; MessageId::CAP],
    len: u8,
}

impl MessageId {
    const CAP: usize = 15;

    /// The id, when `id` is one: 1 to 15 ASCII letters, digits, `-` or `_`.
    pub fn new(id: &str) -> Option<MessageId> {
        let ok = (1..=Self::CAP).contains(&id.len())
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        ok.then(|| {
            let mut bytes = [0; Self::CAP];
            bytes[..id.len()].copy_from_slice(id.as_bytes());
            MessageId {
                bytes,
                len: id.len() as u8,
            }
        })
    }

    /// The id as written by EPUBCheck.
    pub fn as_str(&self) -> &str {
        // Built from a checked ASCII `&str` only.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl std::fmt::Debug for MessageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl Serialize for MessageId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for MessageId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MessageId, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        MessageId::new(&s).ok_or_else(|| serde::de::Error::custom("not an EPUBCheck message id"))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem found: made with [`Diagnostic::error`], [`Diagnostic::warning`] or
/// [`Diagnostic::note`] and the builder methods, read by its fields.
///
/// ```
/// use epubforge::{Code, Diagnostic, Severity};
///
/// let d = Diagnostic::warning(Code::BrokenLine, "a line breaks mid-sentence")
///     .at("chapters/03.txt")
///     .line(Some(12))
///     .column(5)
///     .hint("join it with the next");
/// assert_eq!(d.severity, Severity::Warning);
/// assert_eq!(
///     d.render(None, false),
///     "warning[broken-line]: a line breaks mid-sentence\n  --> chapters/03.txt:12:5\n  = hint: join it with the next\n"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// What kind of problem.
    pub code: Code,
    /// How bad it is.
    pub severity: Severity,
    /// The file it is about (a chapter, metadata.toml, the EPUB or `book.epub/entry`).
    #[serde(default, with = "lossy_path")]
    pub path: Option<PathBuf>,
    /// 1-based line, where known.
    pub line: Option<usize>,
    /// 1-based column in characters, where known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A problem of `severity`, about no file yet.
    pub fn new(code: Code, severity: Severity, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity,
            path: None,
            line: None,
            column: None,
            message: message.into(),
            hint: None,
        }
    }

    /// A note: not a problem.
    pub fn note(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Note, message)
    }

    /// A warning.
    pub fn warning(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Warning, message)
    }

    /// An error.
    pub fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, Severity::Error, message)
    }

    /// About the file at `path`.
    pub fn at(mut self, path: impl Into<PathBuf>) -> Diagnostic {
        self.path = Some(path.into());
        self
    }

    /// At `line` (1-based), when known.
    pub fn line(mut self, line: Option<usize>) -> Diagnostic {
        self.line = line;
        self
    }

    /// At `column` (1-based, in characters) of its line.
    pub fn column(mut self, column: usize) -> Diagnostic {
        self.column = Some(column);
        self
    }

    /// With a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }
}

/// `path:line:column: message`, escaped for a terminal (`crate::escape`): the hint and the
/// excerpt are fields of their own, which [`Diagnostic::render`] lays out.
impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(loc) = render::location(self, None) {
            write!(f, "{loc}: ")?;
        }
        f.write_str(&crate::escape::text(&self.message))
    }
}

/// A diagnostic's path as text: serde refuses a path that is not UTF-8 (JSON has no bytes), and
/// one file named so would cost the whole report; what is not UTF-8 is written as U+FFFD.
mod lossy_path {
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        path.as_ref().map(|p| p.to_string_lossy()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        Ok(Option::<String>::deserialize(d)?.map(PathBuf::from))
    }
}

/// How an [`Error`] that stops a command reads as a problem: here rather than beside the error,
/// so that the error type, which every stage returns, imports nothing of the crate.
impl Error {
    /// The error as a [`Diagnostic`] (of severity error).
    pub fn diagnostic(&self) -> Diagnostic {
        let (path, line, column) = self.place();
        let (message, hint) = self.message_and_hint();
        Diagnostic {
            code: self.code(),
            severity: Severity::Error,
            path: path.map(Path::to_path_buf),
            line,
            column,
            message,
            hint: hint.map(str::to_string),
        }
    }

    /// The code of its diagnostic.
    fn code(&self) -> Code {
        match self {
            Error::Io { .. } => Code::Io,
            Error::MetadataSyntax { .. } => Code::MetadataSyntax,
            Error::Metadata { .. } => Code::Metadata,
            Error::MissingChapter { .. } => Code::MissingFile,
            Error::Decode { .. } => Code::Encoding,
            Error::Convert { .. } | Error::UnsupportedFormat { .. } => Code::Convert,
            Error::Cover { .. } => Code::Cover,
            Error::Font { .. } => Code::Font,
            Error::Environment { .. } => Code::Environment,
            Error::ContentRemoved { .. } => Code::RemovedContent,
            Error::Budget { .. } => Code::Budget,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialise_as_they_print() {
        let rsc = Code::EpubcheckMessage(MessageId::new("RSC-012").unwrap());
        for code in [
            Code::NumberingGap,
            Code::MetadataSyntax,
            Code::Io,
            Code::EpubSpineDuplicate,
            rsc,
        ] {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{code}\""));
            assert_eq!(serde_json::from_str::<Code>(&json).unwrap(), code);
        }
        assert_eq!(rsc.to_string(), "RSC-012");
    }

    #[test]
    fn codes_round_trip_through_the_build_caches_compact_format() {
        let rsc = Code::EpubcheckMessage(MessageId::new("HTM_059").unwrap());
        for code in [Code::Io, Code::EpubFragment, Code::Environment, rsc] {
            let bytes = postcard::to_stdvec(&code).unwrap();
            assert_eq!(postcard::from_bytes::<Code>(&bytes).unwrap(), code);
        }
        assert!(serde_json::from_str::<Code>("\"no such code!\"").is_err());
    }

    #[test]
    fn every_code_has_one_name_that_reads_back_as_it() {
        let mut seen = std::collections::HashSet::new();
        for &code in Code::ALL {
            let name = code.as_str();
            assert!(seen.insert(name.to_string()), "{name} twice");
            let kebab =
                (name.bytes()).all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            assert!(kebab && !name.starts_with('-'), "{name}");
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(serde_json::from_str::<Code>(&json).unwrap(), code);
            let bytes = postcard::to_stdvec(&code).unwrap();
            assert_eq!(postcard::from_bytes::<Code>(&bytes).unwrap(), code);
        }
        assert!(Code::ALL.len() > 90, "{}", Code::ALL.len());
    }

    #[test]
    fn message_ids_are_short_ascii_words() {
        assert_eq!(MessageId::new("OPF-007c").unwrap().as_str(), "OPF-007c");
        assert!(MessageId::new("").is_none());
        assert!(MessageId::new("RSC 012").is_none());
        assert!(MessageId::new("A-VERY-LONG-MESSAGE-ID").is_none());
    }
}
