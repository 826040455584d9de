//! The structural semantics an HTML source says of its elements, checked before they reach
//! the book: `epub:type` values of the EPUB Structural Semantics Vocabulary and of the
//! Z39.98 (`z3998:`) vocabulary, `role` values of DPUB-ARIA (and `presentation`/`none`/`note`)
//! on the elements ARIA in HTML allows them on, and `<time>` values HTML accepts.
//!
//! Part of the sanitiser's first pass. A Standard Ebooks book types its chapters, names and
//! letters this way and its stylesheets select on those values, so they are kept, as are the
//! values of Standard Ebooks' own `se:` vocabulary (`se:name.vessel.ship`), which the book
//! declares as SE's toolchain does ([`crate::xml::EPUB_TYPE_PREFIXES`]). A value of another
//! vocabulary is dropped and counted, never guessed at: EPUBCheck reports undeclared prefixes
//! and roles an element may not take.

/// The EPUB Structural Semantics Vocabulary 1.1, with the deprecated terms EPUBCheck still
/// accepts (it only notes them), sorted for a binary search.
const EPUB_TERMS: [&str; 126] = [
    "abstract",
    "acknowledgments",
    "afterword",
    "annoref",
    "annotation",
    "answer",
    "answers",
    "appendix",
    "assessment",
    "assessments",
    "backlink",
    "backmatter",
    "balloon",
    "biblioentry",
    "bibliography",
    "biblioref",
    "bodymatter",
    "bridgehead",
    "case-study",
    "chapter",
    "colophon",
    "concluding-sentence",
    "conclusion",
    "contributors",
    "copyright-page",
    "cover",
    "covertitle",
    "credit",
    "credits",
    "dedication",
    "division",
    "endnote",
    "endnotes",
    "epigraph",
    "epilogue",
    "errata",
    "figure",
    "fill-in-the-blank-problem",
    "footnote",
    "footnotes",
    "foreword",
    "frontmatter",
    "fulltitle",
    "general-problem",
    "glossary",
    "glossdef",
    "glossref",
    "glossterm",
    "halftitle",
    "halftitlepage",
    "help",
    "imprimatur",
    "imprint",
    "index",
    "index-editor-note",
    "index-entry",
    "index-entry-list",
    "index-group",
    "index-headnotes",
    "index-legend",
    "index-locator",
    "index-locator-list",
    "index-locator-range",
    "index-term",
    "index-term-categories",
    "index-term-category",
    "index-xref-preferred",
    "index-xref-related",
    "introduction",
    "keyword",
    "keywords",
    "label",
    "learning-objective",
    "learning-objectives",
    "learning-outcome",
    "learning-outcomes",
    "learning-resource",
    "learning-resources",
    "learning-standard",
    "learning-standards",
    "list",
    "list-item",
    "loa",
    "loi",
    "lot",
    "lov",
    "marginalia",
    "match-problem",
    "multiple-choice-problem",
    "note",
    "noteref",
    "notice",
    "ordinal",
    "other-credits",
    "pagebreak",
    "panel",
    "panel-group",
    "part",
    "practice",
    "practices",
    "preamble",
    "preface",
    "prologue",
    "pullquote",
    "qna",
    "question",
    "rearnote",
    "rearnotes",
    "referrer",
    "revision-history",
    "seriespage",
    "sidebar",
    "sound-area",
    "subchapter",
    "subtitle",
    "table",
    "table-cell",
    "table-row",
    "text-area",
    "tip",
    "title",
    "titlepage",
    "topic-sentence",
    "true-false-problem",
    "volume",
    "warning",
];

/// The Z39.98-2012 structural semantics vocabulary (written `z3998:term`), sorted.
const Z3998_TERMS: [&str; 201] = [
    "abbreviations",
    "acknowledgments",
    "acronym",
    "actor",
    "afterword",
    "alteration",
    "annoref",
    "annotation",
    "appendix",
    "article",
    "aside",
    "attribution",
    "author",
    "award",
    "backmatter",
    "bcc",
    "bibliography",
    "biographical-note",
    "bodymatter",
    "cardinal",
    "catalogue",
    "cc",
    "chapter",
    "citation",
    "clarification",
    "collection",
    "colophon",
    "commentary",
    "commentary-slot",
    "compound",
    "concluding-sentence",
    "conclusion",
    "continuation",
    "continuation-of",
    "contributors",
    "coordinate",
    "correction",
    "covertitle",
    "currency",
    "decimal",
    "decorative",
    "dedication",
    "diary",
    "diary-entry",
    "discography",
    "division",
    "drama",
    "dramatis-personae",
    "editor",
    "editorial-note",
    "email",
    "email-message",
    "epigraph",
    "epilogue",
    "errata",
    "essay",
    "event",
    "example",
    "family-name",
    "fiction",
    "figure",
    "filmography",
    "footnote",
    "footnotes",
    "foreword",
    "fraction",
    "from",
    "frontispiece",
    "frontmatter",
    "ftp",
    "fulltitle",
    "gallery",
    "general-editor",
    "geographic",
    "given-name",
    "glossary",
    "grant-acknowledgement",
    "grapheme",
    "halftitle",
    "halftitle-page",
    "help",
    "homograph",
    "http",
    "hymn",
    "illustration",
    "image-placeholder",
    "imprimatur",
    "imprint",
    "index",
    "initialism",
    "introduction",
    "introductory-note",
    "ip",
    "isbn",
    "keyword",
    "letter",
    "loi",
    "lot",
    "lyrics",
    "marginalia",
    "measure",
    "mixed",
    "morpheme",
    "name-title",
    "nationality",
    "non-fiction",
    "nonresolving-citation",
    "nonresolving-reference",
    "note",
    "noteref",
    "notice",
    "ordinal",
    "organization",
    "other-credits",
    "page-footer",
    "page-header",
    "pagebreak",
    "part",
    "percentage",
    "persona",
    "personal-name",
    "pgroup",
    "phone",
    "phoneme",
    "photograph",
    "phrase",
    "place",
    "plays",
    "poem",
    "poetry",
    "postal",
    "postal-code",
    "postscript",
    "practice",
    "preamble",
    "preface",
    "prefix",
    "presentation",
    "primary",
    "product",
    "production",
    "prologue",
    "promotional-copy",
    "published-works",
    "publisher-address",
    "publisher-logo",
    "range",
    "ratio",
    "rearnote",
    "rearnotes",
    "recipient",
    "recto",
    "reference",
    "republisher",
    "resolving-reference",
    "result",
    "role-description",
    "roman",
    "root",
    "salutation",
    "scene",
    "secondary",
    "section",
    "sender",
    "sentence",
    "sidebar",
    "signature",
    "song",
    "speech",
    "stage-direction",
    "stem",
    "structure",
    "subchapter",
    "subject",
    "subsection",
    "subtitle",
    "suffix",
    "surname",
    "t-form",
    "taxonomy",
    "tertiary",
    "text",
    "textbook",
    "timeline",
    "title",
    "title-page",
    "to",
    "toc",
    "topic-sentence",
    "translator",
    "translator-note",
    "truncation",
    "unit",
    "v-form",
    "valediction",
    "verse",
    "verso",
    "volume",
    "warning",
    "weight",
    "word",
];

/// Whether `term` (one `epub:type` token) is of a vocabulary the book may carry.
fn known_type(term: &str) -> bool {
    match term.split_once(':') {
        None => EPUB_TERMS.binary_search(&term).is_ok(),
        Some(("z3998", rest)) => Z3998_TERMS.binary_search(&rest).is_ok(),
        // SE's vocabulary is open (`se:name.vessel.ship`, `se:letter.dateline`): any term of
        // its spelling, lower-case words joined by dots and hyphens.
        Some(("se", rest)) => {
            !rest.is_empty()
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-.".contains(&b))
        }
        Some(_) => false,
    }
}

/// The `epub:type` tokens of `value` that are kept on `name`, and those dropped. Note terms
/// keep the sanitiser's rules for where they stand ([`note_type`]): the book's notes
/// code reads them.
pub(super) fn epub_types(name: &str, value: &str) -> (Vec<String>, Vec<String>) {
    let (mut kept, mut dropped): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for term in value.split_ascii_whitespace() {
        let is_note = matches!(
            term,
            "noteref"
                | "footnote"
                | "endnote"
                | "rearnote"
                | "footnotes"
                | "endnotes"
                | "rearnotes"
        );
        let out = if is_note {
            note_type(name, term).map(str::to_string)
        } else {
            known_type(term).then(|| term.to_string())
        };
        match out {
            Some(t) if !kept.contains(&t) => kept.push(t),
            Some(_) => {}
            None => dropped.push(term.to_string()),
        }
    }
    (kept, dropped)
}

/// Roles a `<section>` may take (ARIA in HTML).
const SECTION_ROLES: [&str; 26] = [
    "doc-abstract",
    "doc-acknowledgments",
    "doc-afterword",
    "doc-appendix",
    "doc-bibliography",
    "doc-chapter",
    "doc-colophon",
    "doc-conclusion",
    "doc-credit",
    "doc-credits",
    "doc-dedication",
    "doc-endnotes",
    "doc-epigraph",
    "doc-epilogue",
    "doc-errata",
    "doc-example",
    "doc-foreword",
    "doc-glossary",
    "doc-index",
    "doc-introduction",
    "doc-notice",
    "doc-pagelist",
    "doc-part",
    "doc-preface",
    "doc-prologue",
    "doc-qna",
];

/// The DPUB-ARIA roles outside [`SECTION_ROLES`], which generic elements may take too.
const OTHER_DOC_ROLES: [&str; 12] = [
    "doc-backlink",
    "doc-biblioentry",
    "doc-biblioref",
    "doc-cover",
    "doc-endnote",
    "doc-footnote",
    "doc-glossref",
    "doc-noteref",
    "doc-pagebreak",
    "doc-pullquote",
    "doc-subtitle",
    "doc-tip",
];

/// Whether the `role` token `role` may stand on a kept element `name`.
fn role_fits(name: &str, role: &str) -> bool {
    let plain = matches!(role, "presentation" | "none");
    let any = |r: &str| {
        plain || r == "note" || SECTION_ROLES.contains(&r) || OTHER_DOC_ROLES.contains(&r)
    };
    match name {
        "div" | "span" | "p" | "blockquote" | "b" | "i" | "em" | "strong" | "small" | "u" => {
            any(role)
        }
        "section" => plain || role == "note" || SECTION_ROLES.contains(&role),
        "aside" => {
            plain
                || matches!(
                    role,
                    "note"
                        | "doc-dedication"
                        | "doc-example"
                        | "doc-footnote"
                        | "doc-glossary"
                        | "doc-pullquote"
                        | "doc-tip"
                )
        }
        "a" => matches!(
            role,
            "doc-backlink" | "doc-biblioref" | "doc-glossref" | "doc-noteref"
        ),
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => plain || role == "doc-subtitle",
        "hr" => plain || role == "doc-pagebreak",
        "img" => plain || role == "doc-cover",
        "li" => plain || matches!(role, "doc-biblioentry" | "doc-endnote"),
        "figure" => plain || role == "doc-example",
        _ => false,
    }
}

/// The `role` kept on `name` (the first token that fits: ARIA takes the first role it
/// knows), and the tokens dropped.
pub(super) fn role(name: &str, value: &str) -> (Option<String>, Vec<String>) {
    let mut kept = None;
    let mut dropped = Vec::new();
    for token in value.split_ascii_whitespace() {
        if kept.is_none() && role_fits(name, token) {
            kept = Some(token.to_string());
        } else if kept.as_deref() != Some(token) {
            dropped.push(token.to_string());
        }
    }
    (kept, dropped)
}

/// Whether `v` is a value HTML's `<time>` accepts: a year, month, date, yearless date, week,
/// time, local or global date and time, time-zone offset, or an ISO 8601 duration.
pub(super) fn is_datetime(v: &str) -> bool {
    let v = v.trim();
    if let Some(rest) = v.strip_prefix("--") {
        return month_day(rest);
    }
    if let Some(d) = v.strip_prefix('P') {
        return is_duration(d);
    }
    if is_zone(v) || is_time(v) {
        return true;
    }
    let (date, time) = match v.split_once(['T', ' ']) {
        Some((d, t)) => (d, Some(t)),
        None => (v, None),
    };
    match time {
        None => is_year(date) || year_month(date) || is_date(date) || is_week(date),
        Some(t) => is_date(date) && (is_time(t) || with_zone(t)),
    }
}

fn digits(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_digit())
}

fn in_range(s: &str, n: usize, lo: u32, hi: u32) -> bool {
    digits(s, n) && s.parse::<u32>().is_ok_and(|x| (lo..=hi).contains(&x))
}

fn is_year(s: &str) -> bool {
    s.len() >= 4 && s.bytes().all(|b| b.is_ascii_digit()) && s.bytes().any(|b| b != b'0')
}

fn year_month(s: &str) -> bool {
    s.rsplit_once('-')
        .is_some_and(|(y, m)| is_year(y) && in_range(m, 2, 1, 12))
}

fn month_day(s: &str) -> bool {
    s.split_once('-')
        .is_some_and(|(m, d)| in_range(m, 2, 1, 12) && in_range(d, 2, 1, 31))
}

fn is_date(s: &str) -> bool {
    s.split_once('-')
        .is_some_and(|(y, md)| is_year(y) && month_day(md))
}

fn is_week(s: &str) -> bool {
    s.split_once("-W")
        .is_some_and(|(y, w)| is_year(y) && in_range(w, 2, 1, 53))
}

fn is_time(s: &str) -> bool {
    let mut parts = s.split(':');
    let (Some(h), Some(m)) = (parts.next(), parts.next()) else {
        return false;
    };
    let seconds_ok = match parts.next() {
        None => true,
        Some(sec) => {
            let (whole, frac) = sec.split_once('.').unwrap_or((sec, "1"));
            in_range(whole, 2, 0, 59)
                && (1..=3).contains(&frac.len())
                && frac.bytes().all(|b| b.is_ascii_digit())
        }
    };
    parts.next().is_none() && in_range(h, 2, 0, 23) && in_range(m, 2, 0, 59) && seconds_ok
}

fn is_zone(s: &str) -> bool {
    if s == "Z" {
        return true;
    }
    let Some(rest) = s.strip_prefix(['+', '-']) else {
        return false;
    };
    let (h, m) = rest
        .split_once(':')
        .unwrap_or((rest.get(..2).unwrap_or(""), rest.get(2..).unwrap_or("")));
    in_range(h, 2, 0, 23) && in_range(m, 2, 0, 59)
}

/// A time followed by a zone (`12:00:00Z`, `09:30+01:00`).
fn with_zone(s: &str) -> bool {
    match s.find(['Z', '+', '-']) {
        Some(i) => is_time(&s[..i]) && is_zone(&s[i..]),
        None => false,
    }
}

/// The part of an ISO 8601 duration after `P`: `3D`, `T1H30M`, `2DT4.5S`.
fn is_duration(d: &str) -> bool {
    let (days, time) = match d.split_once('T') {
        Some((a, b)) => (a, Some(b)),
        None => (d, None),
    };
    let units = |s: &str, allowed: &str| {
        let mut num = String::new();
        let mut used = String::new();
        for c in s.chars() {
            if c.is_ascii_digit() || (c == '.' && allowed.contains('S')) {
                num.push(c);
            } else if allowed.contains(c) && !num.is_empty() && !used.contains(c) {
                used.push(c);
                num.clear();
            } else {
                return None;
            }
        }
        num.is_empty().then_some(used.len())
    };
    let day_units = if days.is_empty() {
        Some(0)
    } else {
        units(days, "D")
    };
    let time_units = time.map(|t| units(t, "HMS"));
    match (day_units, time_units) {
        (Some(d), None) => d > 0,
        (Some(_), Some(Some(t))) => t > 0,
        _ => false,
    }
}

/// The `epub:type` a note's markup keeps: `noteref` on a link; `footnote` and `endnote` on a
/// note (`aside` or list item), which is what Kobo's readers open as a pop-up (its EPUB
/// guidelines, "Footnotes/Endnotes"); `footnotes`/`endnotes` on the list or section holding
/// them. The deprecated `rearnote(s)` some tools still write become `endnote(s)`.
fn note_type(name: &str, value: &str) -> Option<&'static str> {
    match (name, value) {
        ("a", "noteref") => Some("noteref"),
        ("aside" | "li", "footnote") => Some("footnote"),
        ("aside" | "li", "endnote" | "rearnote") => Some("endnote"),
        ("section" | "ol" | "ul", "footnotes") => Some("footnotes"),
        ("section" | "ol" | "ul", "endnotes" | "rearnotes") => Some("endnotes"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabularies_are_sorted_for_the_binary_search() {
        assert!(EPUB_TERMS.windows(2).all(|w| w[0] < w[1]));
        assert!(Z3998_TERMS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn epub_z3998_and_se_terms_are_kept_and_other_vocabularies_dropped() {
        let (kept, dropped) = epub_types(
            "p",
            "z3998:salutation se:letter.dateline bogus title se:Bad ex:thing",
        );
        assert_eq!(kept, ["z3998:salutation", "se:letter.dateline", "title"]);
        assert_eq!(dropped, ["bogus", "se:Bad", "ex:thing"]);
        let (kept, dropped) = epub_types("span", "noteref");
        assert!(kept.is_empty());
        assert_eq!(dropped, ["noteref"]);
    }

    #[test]
    fn roles_stand_only_where_aria_in_html_allows_them() {
        assert_eq!(
            role("section", "doc-chapter").0.as_deref(),
            Some("doc-chapter")
        );
        assert_eq!(role("aside", "doc-chapter").0, None);
        assert_eq!(
            role("h2", "doc-subtitle").0.as_deref(),
            Some("doc-subtitle")
        );
        assert_eq!(
            role("div", "presentation").0.as_deref(),
            Some("presentation")
        );
        assert_eq!(role("div", "navigation banner").1, ["navigation", "banner"]);
    }

    #[test]
    fn datetimes_are_the_forms_html_accepts() {
        for ok in [
            "1813",
            "2014-05",
            "2014-05-25",
            "--05-25",
            "2014-W21",
            "12:00",
            "12:00:30.5",
            "2014-05-25T00:00:00Z",
            "2014-05-25 10:00+01:00",
            "+0100",
            "PT1H30M",
            "P3D",
        ] {
            assert!(is_datetime(ok), "{ok}");
        }
        for bad in [
            "",
            "May 1813",
            "13",
            "2014-13",
            "2014-05-32",
            "25:00",
            "P",
            "PT",
            "1813 AD",
        ] {
            assert!(!is_datetime(bad), "{bad}");
        }
    }
}
