//! The stores' published limits, as warnings that name their source: what
//! `check --target kobo|kindle|apple|google` reports about the EPUB a build makes for that
//! store, and (the Kindle language) what `build --target kindle` reports. Each rule is a
//! function of [`Facts`] read from the EPUB (by `crate::inspect::facts`); none does I/O.
//!
//! | store  | rule                                                | code                 |
//! |--------|-----------------------------------------------------|----------------------|
//! | Apple  | images at most 5.6 million pixels                   | `apple-image-pixels` |
//! | Google | cover at least 640 px on its shorter side, at most 7200 px on either | `google-cover-size` |
//! | Kobo   | each XHTML file at most 10 MB                       | `kobo-file-size`     |
//! | Kobo   | the cover page shows the cover with an `<img>`      | `kobo-cover-image`   |
//! | Kindle | at most 50 MB (Send to Kindle by e-mail)            | `store-limit`        |
//! | Kindle | a `dc:language` on Amazon's list                    | `kindle-language`    |
//! | Kindle | spine order equal to the NCX's                      | `kindle-spine-order` |
//! | Kindle | TOC two levels deep, no empty `alt`, no CSS custom properties, no `body` ids | `kindle-construct` |
//! | Kindle | no MathML (its converter shows none of it)          | `kindle-construct`   |

use std::path::Path;

use crate::diagnostic::{Code, Diagnostic};

use super::Target;

/// A store `check --target` knows the limits of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Store {
    /// Kobo (its EPUB guidelines).
    Kobo,
    /// Amazon Kindle (Send to Kindle, Kindle Direct Publishing).
    Kindle,
    /// Apple Books (its asset guide).
    Apple,
    /// Google Play Books (its partner help).
    Google,
}

impl Store {
    /// Every store, in the order `check` reviews them.
    pub const ALL: [Store; 4] = [Store::Kobo, Store::Kindle, Store::Apple, Store::Google];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Store::Kobo => "kobo",
            Store::Kindle => "kindle",
            Store::Apple => "apple",
            Store::Google => "google",
        }
    }

    /// The store called `name` (case-insensitive).
    pub fn parse(name: &str) -> Option<Store> {
        Store::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The build target whose EPUB goes to this store (Google Play takes the plain EPUB).
    pub fn target(self) -> Target {
        match self {
            Store::Kobo => Target::Kobo,
            Store::Kindle => Target::Kindle,
            Store::Apple => Target::Apple,
            Store::Google => Target::Epub,
        }
    }
}

impl std::fmt::Display for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An image of the EPUB and its size in pixels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Picture {
    /// Its entry name.
    pub name: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// What the limits look at, read from an EPUB.
#[derive(Debug, Clone, Default)]
pub(crate) struct Facts {
    /// The EPUB's size in bytes.
    pub bytes: u64,
    /// Every `dc:language`.
    pub languages: Vec<String>,
    /// Content documents (entry name, uncompressed size).
    pub documents: Vec<(String, u64)>,
    /// Raster images whose size could be read.
    pub images: Vec<Picture>,
    /// The cover image, when the package names one.
    pub cover: Option<Picture>,
    /// The cover page (the first spine document showing the cover) and whether it shows it
    /// with an `<img>`; None without a cover page.
    pub cover_page: Option<(String, bool)>,
    /// The spine, as entry names.
    pub spine: Vec<String>,
    /// The NCX's targets in order, as entry names without fragments.
    pub ncx: Vec<String>,
    /// How deep the table of contents nests.
    pub toc_depth: usize,
    /// Content documents with an image whose `alt` is empty.
    pub empty_alts: Vec<String>,
    /// Stylesheets that define or use a CSS custom property.
    pub custom_properties: Vec<String>,
    /// Content documents whose `body` has an id (links to it break in Kindle's converter).
    pub body_ids: Vec<String>,
    /// Content documents the package marks as holding MathML.
    pub mathml: Vec<String>,
}

/// Where Apple documents its image limit.
const APPLE: &str = "Apple Books Asset Guide, Images: \
                     https://help.apple.com/itc/booksassetguide/en.lproj/itca71ad3c33.html";
/// Where Google documents its cover limits.
const GOOGLE: &str = "Google Play Books Partner Center Help, Files & uploading overview: \
                      https://support.google.com/books/partner/answer/3424254";
/// Where Kobo documents its limits.
const KOBO: &str = "Kobo EPUB guidelines: https://github.com/kobolabs/epub-spec";
/// Where Amazon lists the languages of Kindle books.
const KINDLE_LANGUAGES: &str = "Kindle Direct Publishing Help, Supported Languages: \
                                https://kdp.amazon.com/en_US/help/topic/G200673300";
/// Where Amazon documents the constructs its converter takes.
const KINDLE_GUIDE: &str = "Amazon Kindle Publishing Guidelines: \
                            https://kindlegen.s3.amazonaws.com/AmazonKindlePublishingGuidelines.pdf";

/// Apple Books: images at most this many pixels.
pub(crate) const APPLE_MAX_PIXELS: u64 = 5_600_000;
/// Google Play: a cover's shorter side at least this many pixels.
pub(crate) const GOOGLE_COVER_MIN: u32 = 640;
/// Google Play: a cover's sides at most this many pixels.
pub(crate) const GOOGLE_COVER_MAX: u32 = 7200;
/// Kobo: each XHTML file at most this many bytes.
pub(crate) const KOBO_MAX_DOCUMENT: u64 = 10 * 1000 * 1000;

/// Every limit of `store` the EPUB at `epub` (described by `facts`) exceeds.
pub(crate) fn review(store: Store, facts: &Facts, epub: &Path) -> Vec<Diagnostic> {
    let found = match store {
        Store::Apple => apple_pixels(facts, epub),
        Store::Google => google_cover(facts),
        Store::Kobo => [kobo_file_size(facts, epub), kobo_cover_image(facts, epub)].concat(),
        Store::Kindle => kindle(facts, epub),
    };
    found
        .into_iter()
        .map(|d| match d.path {
            Some(_) => d,
            None => d.at(epub),
        })
        .collect()
}

/// An entry of the EPUB at `epub`, as a diagnostic's path (`book.epub/EPUB/text/c.xhtml`).
fn entry(epub: &Path, name: &str) -> std::path::PathBuf {
    epub.join(name)
}

fn apple_pixels(facts: &Facts, epub: &Path) -> Vec<Diagnostic> {
    facts
        .images
        .iter()
        .filter(|p| u64::from(p.width) * u64::from(p.height) > APPLE_MAX_PIXELS)
        .map(|p| {
            let mp = u64::from(p.width) * u64::from(p.height);
            Diagnostic::warning(
                Code::AppleImagePixels,
                format!(
                    "the image {} is {}x{} ({:.1} million pixels): Apple Books takes images of at most 5.6 \
                     million pixels ({APPLE})",
                    p.name,
                    p.width,
                    p.height,
                    mp as f64 / 1e6
                ),
            )
            .at(entry(epub, &p.name))
            .hint("scale the image down before it goes into the book")
        })
        .collect()
}

fn google_cover(facts: &Facts) -> Vec<Diagnostic> {
    let Some(cover) = &facts.cover else {
        return vec![
            Diagnostic::warning(
                Code::GoogleCoverSize,
                format!(
                    "the EPUB has no cover image: Google Play wants one in the EPUB ({GOOGLE})"
                ),
            )
            .hint("set `cover` in metadata.toml"),
        ];
    };
    let (short, long) = (cover.width.min(cover.height), cover.width.max(cover.height));
    if short >= GOOGLE_COVER_MIN && long <= GOOGLE_COVER_MAX {
        return Vec::new();
    }
    vec![
        Diagnostic::warning(
            Code::GoogleCoverSize,
            format!(
                "the cover is {}x{} pixels: Google Play takes covers of at least \
                 {GOOGLE_COVER_MIN} pixels and at most {GOOGLE_COVER_MAX} on each side ({GOOGLE})",
                cover.width, cover.height
            ),
        )
        .hint("use a cover between 640 and 7200 pixels on each side (1600x2560 is usual)"),
    ]
}

fn kobo_file_size(facts: &Facts, epub: &Path) -> Vec<Diagnostic> {
    facts
        .documents
        .iter()
        .filter(|(_, size)| *size > KOBO_MAX_DOCUMENT)
        .map(|(name, size)| {
            Diagnostic::warning(
                Code::KoboFileSize,
                format!(
                    "{name} is {:.1} MB: Kobo advises at most 10 MB per XHTML file, \
                     \"Limitations and Maximums\" ({KOBO})",
                    *size as f64 / 1e6
                ),
            )
            .at(entry(epub, name))
            .hint("lower `[layout] split-size` so long chapters are cut into smaller files")
        })
        .collect()
}

fn kobo_cover_image(facts: &Facts, epub: &Path) -> Vec<Diagnostic> {
    match &facts.cover_page {
        Some((page, false)) => vec![
            Diagnostic::warning(
                Code::KoboCoverImage,
                format!(
                    "{page} does not show the cover with an <img>: Kobo's cover extraction and \
                     previews take an <img> only, \"Cover Images\" ({KOBO})"
                ),
            )
            .at(entry(epub, page))
            .hint("build the Kobo EPUB with --target kobo, whose cover page uses an <img>"),
        ],
        _ => Vec::new(),
    }
}

fn kindle(facts: &Facts, epub: &Path) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    out.extend(super::size_warning(Target::Kindle, epub, facts.bytes));
    for language in &facts.languages {
        out.extend(kindle_language(language));
    }
    out.extend(kindle_spine_order(&facts.spine, &facts.ncx));
    out.extend(kindle_constructs(facts, epub));
    out
}

/// Languages Amazon lists for Kindle books (its KDP help, "Supported Languages"), as the
/// primary subtags of BCP 47 (Alsatian `gsw`, Provençal `pro`, the Frisians `fy`, `frr`,
/// `frs`). Chinese in either script: KDP took Chinese books from 2020, and Kindle devices have
/// long read Simplified Chinese (Amazon's own store in China sold it).
const KINDLE_LANGUAGE_TAGS: [&str; 41] = [
    "af", "gsw", "ar", "eu", "nb", "br", "ca", "kw", "co", "da", "nl", "frs", "en", "fi", "fr",
    "fy", "gl", "de", "gu", "hi", "is", "ga", "it", "ja", "lb", "ml", "gv", "mr", "frr", "no",
    "nn", "pt", "pro", "rm", "sco", "gd", "es", "sv", "ta", "cy", "zh",
];

/// True when Amazon lists `tag` among the languages of Kindle books.
fn kindle_supports(tag: &str) -> bool {
    let lower = tag.trim().to_ascii_lowercase();
    let primary = lower.split(['-', '_']).next().unwrap_or_default();
    KINDLE_LANGUAGE_TAGS.contains(&primary)
}

/// The warning for a book in `language` sent to Kindle, when Amazon does not list it.
pub(crate) fn kindle_language(language: &str) -> Option<Diagnostic> {
    if kindle_supports(language) {
        return None;
    }
    Some(
        Diagnostic::warning(
            Code::KindleLanguage,
            format!(
                "the book's language `{language}` is not on Amazon's list of languages for Kindle \
                 books ({KINDLE_LANGUAGES}): the Kindle store may refuse it"
            ),
        )
        .hint("check the list before publishing; a device still shows the text"),
    )
}

/// The warning when the NCX does not follow the spine: an NCX target earlier in the spine
/// than the one before it, or not in it at all.
pub(crate) fn kindle_spine_order(spine: &[String], ncx: &[String]) -> Option<Diagnostic> {
    let mut first_at = std::collections::HashMap::with_capacity(spine.len());
    for (i, s) in spine.iter().enumerate() {
        first_at.entry(s.as_str()).or_insert(i);
    }
    let mut last = 0;
    for target in ncx {
        let at = first_at.get(target.as_str()).copied();
        match at {
            Some(at) if at >= last => last = at,
            _ => {
                return Some(
                    Diagnostic::warning(
                        Code::KindleSpineOrder,
                        format!(
                            "the NCX lists {target} out of the spine's order: Kindle wants the \
                             table of contents in reading order ({KINDLE_GUIDE})"
                        ),
                    )
                    .hint("build the Kindle EPUB with --target kindle"),
                );
            }
        }
    }
    None
}

fn kindle_constructs(facts: &Facts, epub: &Path) -> Vec<Diagnostic> {
    let construct = |path: std::path::PathBuf, what: String| {
        Diagnostic::warning(
            Code::KindleConstruct,
            format!("{what}: Send to Kindle's converter rejects or garbles it ({KINDLE_GUIDE})"),
        )
        .at(path)
        .hint("build the Kindle EPUB with --target kindle, which removes it")
    };
    let mut out = Vec::new();
    if facts.toc_depth > super::kindle::TOC_DEPTH {
        let what = format!(
            "the table of contents is {} levels deep, Kindle shows two",
            facts.toc_depth
        );
        out.push(construct(epub.to_path_buf(), what));
    }
    for name in &facts.empty_alts {
        out.push(construct(
            entry(epub, name),
            "an image with an empty alt".into(),
        ));
    }
    for name in &facts.custom_properties {
        out.push(construct(entry(epub, name), "CSS custom properties".into()));
    }
    for name in &facts.body_ids {
        out.push(construct(
            entry(epub, name),
            "an id on `body`, a link target".into(),
        ));
    }
    out.extend(kindle_mathml(facts, epub));
    out
}

/// One warning for the MathML of a book sent to Kindle: Amazon's converter does not render
/// it, so readers see the formulas' bare characters (or nothing).
fn kindle_mathml(facts: &Facts, epub: &Path) -> Option<Diagnostic> {
    let first = facts.mathml.first()?;
    let more = match facts.mathml.len() {
        1 => String::new(),
        n => format!(" and {} other documents", n - 1),
    };
    Some(
        Diagnostic::warning(
            Code::KindleConstruct,
            format!(
                "{first}{more} hold MathML: Kindle cannot show MathML, its readers see the \
                 formulas' characters run together ({KINDLE_GUIDE})"
            ),
        )
        .at(entry(epub, first))
        .hint(
            "for Kindle, give the formulas as images, or keep the TeX readable as code \
             (every formula's TeX is in its `alttext`)",
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stores::KINDLE_EMAIL_LIMIT;

    fn codes(found: &[Diagnostic]) -> Vec<&str> {
        found.iter().map(|d| d.code.as_str()).collect()
    }

    fn picture(name: &str, width: u32, height: u32) -> Picture {
        Picture {
            name: name.into(),
            width,
            height,
        }
    }

    #[test]
    fn apple_warns_above_five_point_six_megapixels_only() {
        let mut facts = Facts {
            images: vec![picture("a.png", 2000, 2800), picture("b.jpg", 1600, 2560)],
            ..Facts::default()
        };
        assert!(review(Store::Apple, &facts, Path::new("b.epub")).is_empty());
        facts.images.push(picture("big.jpg", 2000, 2801));
        let found = review(Store::Apple, &facts, Path::new("b.epub"));
        assert_eq!(codes(&found), ["apple-image-pixels"]);
        assert!(
            found[0].message.contains("big.jpg") && found[0].message.contains("help.apple.com")
        );
    }

    #[test]
    fn google_wants_a_cover_between_640_and_7200_pixels() {
        let at = |w, h| Facts {
            cover: Some(picture("cover.jpg", w, h)),
            ..Facts::default()
        };
        let epub = Path::new("b.epub");
        for (w, h) in [(640, 1000), (1600, 2560), (7200, 640)] {
            assert!(review(Store::Google, &at(w, h), epub).is_empty(), "{w}x{h}");
        }
        for (w, h) in [(639, 1000), (1600, 7201), (500, 500)] {
            let found = review(Store::Google, &at(w, h), epub);
            assert_eq!(codes(&found), ["google-cover-size"], "{w}x{h}");
            assert!(found[0].message.contains("support.google.com"));
        }
        let none = review(Store::Google, &Facts::default(), epub);
        assert_eq!(codes(&none), ["google-cover-size"]);
    }

    #[test]
    fn kobo_warns_on_big_files_and_a_cover_without_img() {
        let mut facts = Facts {
            documents: vec![("EPUB/text/a.xhtml".into(), KOBO_MAX_DOCUMENT)],
            cover_page: Some(("EPUB/text/cover.xhtml".into(), true)),
            ..Facts::default()
        };
        let epub = Path::new("b.epub");
        assert!(review(Store::Kobo, &facts, epub).is_empty());
        facts
            .documents
            .push(("EPUB/text/b.xhtml".into(), KOBO_MAX_DOCUMENT + 1));
        facts.cover_page = Some(("EPUB/text/cover.xhtml".into(), false));
        let found = review(Store::Kobo, &facts, epub);
        assert_eq!(codes(&found), ["kobo-file-size", "kobo-cover-image"]);
        assert!(
            found
                .iter()
                .all(|d| d.message.contains("kobolabs/epub-spec"))
        );
        assert!(found[0].message.contains("b.xhtml"));
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn kindle_checks_size_language_order_and_constructs() {
        let fine = Facts {
            bytes: KINDLE_EMAIL_LIMIT,
            languages: names(&["en-GB"]),
            spine: names(&["c.xhtml", "a.xhtml", "b.xhtml"]),
            ncx: names(&["a.xhtml", "a.xhtml", "b.xhtml"]),
            toc_depth: 2,
            ..Facts::default()
        };
        let epub = Path::new("b.epub");
        assert!(review(Store::Kindle, &fine, epub).is_empty());
        let bad = Facts {
            bytes: KINDLE_EMAIL_LIMIT + 1,
            languages: names(&["ka"]),
            ncx: names(&["b.xhtml", "a.xhtml"]),
            toc_depth: 3,
            empty_alts: names(&["EPUB/text/a.xhtml"]),
            custom_properties: names(&["EPUB/styles/book.css"]),
            body_ids: names(&["EPUB/text/b.xhtml"]),
            ..fine.clone()
        };
        let found = review(Store::Kindle, &bad, epub);
        assert_eq!(
            codes(&found),
            [
                "store-limit",
                "kindle-language",
                "kindle-spine-order",
                "kindle-construct",
                "kindle-construct",
                "kindle-construct",
                "kindle-construct"
            ]
        );
        assert!(found[1].message.contains("kdp.amazon.com"));
        assert_eq!(
            found[4].path.as_deref(),
            Some(Path::new("b.epub/EPUB/text/a.xhtml"))
        );
    }

    #[test]
    fn kindle_warns_once_that_it_cannot_show_mathml() {
        let epub = Path::new("b.epub");
        assert!(review(Store::Kindle, &Facts::default(), epub).is_empty());
        let math = Facts {
            mathml: names(&["EPUB/text/a.xhtml", "EPUB/text/b.xhtml"]),
            ..Facts::default()
        };
        let found = review(Store::Kindle, &math, epub);
        assert_eq!(codes(&found), ["kindle-construct"]);
        assert!(
            found[0]
                .message
                .starts_with("EPUB/text/a.xhtml and 1 other documents hold MathML: Kindle cannot"),
            "{}",
            found[0].message
        );
        assert_eq!(
            found[0].path.as_deref(),
            Some(Path::new("b.epub/EPUB/text/a.xhtml"))
        );
    }

    #[test]
    fn kindle_languages_follow_amazons_list() {
        for ok in [
            "en", "de-AT", "ja", "zh-Hant", "zh-TW", "zh-CN", "zh", "pt-BR", "hi",
        ] {
            assert!(kindle_language(ok).is_none(), "{ok}");
        }
        for not in ["ka", "ko", "el", "tlh"] {
            assert!(kindle_language(not).is_some(), "{not}");
        }
    }

    #[test]
    fn stores_parse_back_and_map_to_targets() {
        for s in Store::ALL {
            assert_eq!(Store::parse(s.name()), Some(s));
        }
        assert_eq!(Store::Google.target(), Target::Epub);
        assert_eq!(Store::parse("nook"), None);
    }
}
