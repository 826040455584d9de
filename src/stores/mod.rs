//! Targets: the readers and stores a build makes an EPUB for, and what each needs changed.
//!
//! One build reads and converts the book once; each target is then a transformation of the
//! packaged documents, in a module of its own and without I/O: [`kobo`] (sentence spans for
//! highlights and reading position, the pagination wrappers), [`kindle`] (a table of contents
//! two levels deep, no empty `alt`, no CSS custom properties), [`apple`] (the display-options
//! file that makes Apple Books honour embedded fonts). The plain EPUB is the base every other
//! target starts from, so a chapter document a target leaves alone is the same bytes in every
//! output, compressed once ([`crate::write`]).
//!
//! Chapter documents go through [`Target::finish_text`] one by one, as the writer packages
//! them a chunk at a time; everything else (package document, navigation, stylesheets, extra
//! files) through [`Target::finish_frame`].

pub(crate) mod apple;
pub(crate) mod kindle;
pub(crate) mod kobo;
pub(crate) mod limits;

use std::borrow::Cow;

use crate::book::{Entry, Target};

/// What each target changes of the plain EPUB: here, beside the transformations, while
/// [`Target`] itself is a value every stage reads (`crate::book`).
impl Target {
    /// An entry of the plain EPUB as this target wants it (Borrowed when unchanged): a
    /// content document, the package document, a stylesheet. Chapter documents come one by
    /// one as the writer packages them; the rest with the frame ([`Target::finish_frame`]).
    pub(crate) fn finish(self, entry: &Entry) -> Cow<'_, Entry> {
        let changed = match std::str::from_utf8(&entry.data) {
            Ok(text) => self.finish_text(&entry.name, text),
            Err(_) => None,
        };
        match changed {
            Some(text) => Cow::Owned(Entry {
                name: entry.name.clone(),
                data: text.into_bytes(),
                compress: entry.compress,
            }),
            None => Cow::Borrowed(entry),
        }
    }

    /// [`Target::finish`] of an entry owned.
    pub(crate) fn finish_owned(self, entry: Entry) -> Entry {
        match self.finish(&entry) {
            Cow::Owned(finished) => finished,
            Cow::Borrowed(_) => entry,
        }
    }

    /// The text of entry `name` as this target wants it; None when unchanged.
    pub(crate) fn finish_text(self, name: &str, text: &str) -> Option<String> {
        let content = is_content_document(name);
        match self {
            Target::Epub => None,
            Target::Kobo if content => kobo::spans(text),
            Target::Kindle if content => kindle::alts(text),
            Target::Kindle if name.ends_with(".css") => kindle::no_custom_properties(text),
            Target::Apple if content => apple::text_arrows(text),
            _ => None,
        }
    }

    /// Files this target adds to the container (Apple's display options when the book embeds
    /// `fonts`), written after `META-INF/container.xml`.
    pub(crate) fn extras(self, fonts: bool) -> Vec<Entry> {
        match self {
            Target::Apple => apple::extras(fonts),
            _ => Vec::new(),
        }
    }

    /// Every entry of the frame (`entries`, in container order; chapter documents among them
    /// still empty, left alone) finished for this target, its extra files added.
    pub(crate) fn finish_frame(self, entries: &mut Vec<Entry>, fonts: bool) {
        if self == Target::Epub {
            return;
        }
        for entry in entries.iter_mut() {
            if entry.data.is_empty() {
                continue;
            }
            if let Cow::Owned(finished) = self.finish(entry) {
                *entry = finished;
            }
        }
        let at = entries
            .iter()
            .position(|e| e.name == CONTAINER)
            .map_or(entries.len(), |i| i + 1);
        entries.splice(at..at, self.extras(fonts));
    }
}

/// The targets a build writes: those asked for on the command line, else those of the
/// project, else the plain EPUB; each once, in the order first given.
pub(crate) fn chosen(asked: &[Target], project: &[Target]) -> Vec<Target> {
    let from = if asked.is_empty() { project } else { asked };
    let mut out: Vec<Target> = Vec::with_capacity(from.len().max(1));
    for &t in from {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    if out.is_empty() {
        out.push(Target::Epub);
    }
    out
}

/// Send-to-Kindle's e-mail limit, in bytes.
pub(crate) const KINDLE_EMAIL_LIMIT: u64 = 50 * 1000 * 1000;

/// The warning a written EPUB of `bytes` deserves for its target: a Kindle EPUB above the
/// e-mail limit.
pub(crate) fn size_warning(
    target: Target,
    output: &std::path::Path,
    bytes: u64,
) -> Option<crate::diagnostic::Diagnostic> {
    if target != Target::Kindle || bytes <= KINDLE_EMAIL_LIMIT {
        return None;
    }
    Some(
        crate::diagnostic::Diagnostic::warning(
            crate::diagnostic::Code::StoreLimit,
            format!(
                "the Kindle EPUB is {:.1} MB: Send to Kindle by e-mail takes at most 50 MB \
                 (Amazon, \"Send to Kindle\" help page)",
                bytes as f64 / 1e6
            ),
        )
        .at(output),
    )
}

/// The warnings a written EPUB of `bytes` in `language` deserves for its target: a Kindle
/// EPUB above the e-mail limit ([`size_warning`]) or in a language Amazon does not list.
pub(crate) fn output_warnings(
    target: Target,
    output: &std::path::Path,
    bytes: u64,
    language: &str,
) -> Vec<crate::diagnostic::Diagnostic> {
    let mut out: Vec<_> = size_warning(target, output, bytes).into_iter().collect();
    if target == Target::Kindle {
        out.extend(limits::kindle_language(language).map(|d| d.at(output)));
    }
    out
}

/// True for the warnings of [`output_warnings`]: those of one output, not of the book.
pub(crate) fn is_output_warning(code: crate::diagnostic::Code) -> bool {
    use crate::diagnostic::Code;
    matches!(code, Code::StoreLimit | Code::KindleLanguage)
}

/// The container file every EPUB has.
pub(crate) const CONTAINER: &str = "META-INF/container.xml";

/// True for a content document of the reading order (not the navigation document): what
/// a target finishes as it finishes chapters.
pub(crate) fn is_content_document(name: &str) -> bool {
    name.ends_with(".xhtml") && !name.ends_with("/nav.xhtml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_suffixes_end_in_epub() {
        for t in Target::ALL {
            assert_eq!(Target::parse(t.name()), Some(t));
            assert_eq!(Target::parse(&t.name().to_uppercase()), Some(t));
            assert!(t.suffix().ends_with(".epub"));
        }
        assert_eq!(Target::parse("mobi"), None);
        assert_eq!(Target::Kobo.suffix(), ".kepub.epub");
    }
}
