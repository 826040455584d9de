//! Attribute filtering of the build pass: a kept element keeps the global attributes, the few
//! its own kind may carry (checked: numbers in range, BCP 47 language tags, `epub:type` and
//! `role` values of the vocabularies the book carries), `text-align` out of its style, and
//! nothing else. What goes is summed up in one warning per chapter
//! (the build's summary), event handlers and dropped links one by one.

use std::collections::{BTreeMap, BTreeSet};

use super::super::is_xml_char;
use super::policy::is_heading;
use super::urls::{Href, classify_href};
use super::{Elem, Warnings, semantics, shorten};

/// Attributes set aside while an element's are filtered, written after the others: a
/// language (`lang` wins over `xml:lang`), an HTML 4 anchor's `name` (an id, unless the
/// element has one), and the style (its `text-align`, else an `align` attribute's).
#[derive(Default)]
struct Deferred {
    lang: Option<String>,
    xml_lang: Option<String>,
    align: Option<&'static str>,
    style: Option<String>,
    anchor_name: Option<String>,
}

impl Deferred {
    /// Takes `key` when it is one set aside on an element `name`; false otherwise.
    fn take(&mut self, name: &'static str, key: &str, value: &str) -> bool {
        match key {
            // An HTML 4 anchor: links to it name it by `name`, which XHTML 5 lacks.
            "name" if name == "a" => self.anchor_name = non_empty(value.trim()),
            "lang" => self.lang = valid_lang(value),
            "xml:lang" => self.xml_lang = valid_lang(value),
            "style" => self.style = kept_style(name, value),
            "align"
                if matches!(name, "p" | "div" | "td" | "th" | "caption") || is_heading(name) =>
            {
                self.align = text_align_value(value);
            }
            _ => return false,
        }
        true
    }

    /// The element, with the attributes set aside added to `attrs` and all in output order.
    fn finish(self, name: &'static str, mut attrs: Vec<(&'static str, String)>) -> Elem {
        if let Some(l) = self.lang.or(self.xml_lang) {
            attrs.push(("lang", l));
        }
        if let Some(id) = self
            .anchor_name
            .filter(|_| !attrs.iter().any(|(k, _)| *k == "id"))
        {
            attrs.push(("id", id));
        }
        let align = self.align;
        if let Some(s) = self
            .style
            .or_else(|| align.map(|a| format!("text-align: {a}")))
        {
            attrs.push(("style", s));
        }
        attrs.sort_by_key(|(n, _)| attr_rank(n));
        // bdo means nothing without a direction; the schema requires one.
        let name = if name == "bdo" && !attrs.iter().any(|(k, _)| *k == "dir") {
            "span"
        } else {
            name
        };
        Elem { name, attrs }
    }
}

/// What a chapter's attributes lost, summed up in its warnings ([`Dropped::notes`]).
#[derive(Default)]
pub(super) struct Dropped {
    /// Attribute names dropped (the first 30).
    names: BTreeSet<String>,
    /// `epub:type` and `role` values of no vocabulary the book carries (or on an element
    /// that may not take them), with how often.
    types: BTreeMap<String, usize>,
}

impl Dropped {
    /// An attribute dropped by name.
    pub(super) fn name(&mut self, key: &str) {
        if self.names.len() < 30 {
            self.names.insert(shorten(key, 40));
        }
    }

    /// Counts the values of `attr` dropped, for the chapter's one warning.
    fn values(&mut self, attr: &str, dropped: Vec<String>) {
        for value in dropped {
            let key = format!("{attr}=\"{}\"", shorten(&value, 40));
            if self.types.len() < 200 || self.types.contains_key(&key) {
                *self.types.entry(key).or_default() += 1;
            }
        }
    }

    /// The notes that sum up the whole body: attributes dropped.
    pub(super) fn notes(&self, warnings: &mut Warnings) {
        if !self.names.is_empty() {
            let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
            let message = format!("dropped unsupported attributes: {}", names.join(", "));
            warnings.add(message);
        }
        if !self.types.is_empty() {
            let total: usize = self.types.values().sum();
            let listed: Vec<String> = self
                .types
                .iter()
                .take(12)
                .map(|(v, n)| format!("{v} ({n})"))
                .collect();
            let more = if self.types.len() > 12 { ", …" } else { "" };
            warnings.add(format!(
                "dropped {total} epub:type/role value(s) outside the EPUB, z3998 and DPUB-ARIA \
                 vocabularies or not allowed where they stand: {}{more}",
                listed.join(", ")
            ));
        }
    }
}

/// Element `name` (the name it is kept under) with the attributes of the source's element
/// (`source`: its attributes' names and values, in the parser's order) it keeps, in output
/// order; what goes is counted in `dropped` or warned about.
pub(super) fn filter<'v>(
    name: &'static str,
    source: impl Iterator<Item = (&'v str, &'v str)>,
    dropped: &mut Dropped,
    warnings: &mut Warnings,
) -> Elem {
    let mut attrs: Vec<(&'static str, String)> = Vec::new();
    let mut deferred = Deferred::default();
    for (key, raw) in source {
        let value: String = match crate::xml::only_xml_chars(raw) {
            true => raw.to_string(),
            false => raw.chars().filter(|&c| is_xml_char(c)).collect(),
        };
        if deferred.take(name, key, &value) {
            continue;
        }
        if let Some(kv) = filter_attr(name, key, value, dropped, warnings) {
            attrs.push(kv);
        }
    }
    deferred.finish(name, attrs)
}

/// One attribute `key="value"` of an element kept as `name`: Some(what it keeps), None when
/// it goes (counted in `dropped` or warned about).
fn filter_attr(
    name: &'static str,
    key: &str,
    value: String,
    dropped: &mut Dropped,
    warnings: &mut Warnings,
) -> Option<(&'static str, String)> {
    match key {
        "id" => non_empty(value.trim()).map(|v| ("id", v)),
        "epub:type" => {
            let (kept, gone) = semantics::epub_types(name, &value);
            dropped.values("epub:type", gone);
            non_empty(&kept.join(" ")).map(|v| ("epub:type", v))
        }
        "role" => {
            let (kept, gone) = semantics::role(name, &value);
            dropped.values("role", gone);
            kept.map(|v| ("role", v))
        }
        "datetime" if name == "time" => {
            semantics::is_datetime(&value).then(|| ("datetime", value.trim().to_string()))
        }
        "class" => {
            non_empty(&value.split_whitespace().collect::<Vec<_>>().join(" ")).map(|v| ("class", v))
        }
        "title" => Some(("title", value)),
        "dir" => {
            let v = value.trim().to_ascii_lowercase();
            matches!(v.as_str(), "ltr" | "rtl" | "auto").then_some(("dir", v))
        }
        "href" if name == "a" => match classify_href(&value) {
            Href::Keep(v) => Some(("href", v)),
            Href::Drop(reason) => {
                warnings.add(reason);
                None
            }
        },
        _ if let Some(kept) = element_attr(name, key, &value) => kept,
        _ if let Some(kept) = aria_attr(key, &value) => kept,
        // Set by the caller (from an object's `data` too).
        "alt" | "src" | "data" | "type" if name == "img" => None,
        k if k.len() > 2 && k.starts_with("on") => {
            warnings.add(format!(
                "removed event-handler attribute {}",
                shorten(k, 40)
            ));
            None
        }
        k => {
            dropped.name(k);
            None
        }
    }
}

/// The attributes an element keeps that only some elements have (note references, list
/// numbering, table cells, image sizes), checked: Some(kept or dropped) when `key` is one of
/// them for `name`, None otherwise.
fn element_attr(name: &str, key: &str, value: &str) -> Option<Option<(&'static str, String)>> {
    Some(match key {
        "start" if name == "ol" => value
            .trim()
            .parse::<i64>()
            .ok()
            .map(|n| ("start", n.to_string())),
        "reversed" if name == "ol" => Some(("reversed", "reversed".to_string())),
        "type" if name == "ol" => matches!(value.trim(), "1" | "a" | "A" | "i" | "I")
            .then(|| ("type", value.trim().to_string())),
        "colspan" if matches!(name, "td" | "th") => {
            bounded_int(value, 1, 1000).map(|n| ("colspan", n.to_string()))
        }
        "rowspan" if matches!(name, "td" | "th") => {
            bounded_int(value, 0, 65534).map(|n| ("rowspan", n.to_string()))
        }
        "scope" if name == "th" => {
            let v = value.trim().to_ascii_lowercase();
            matches!(v.as_str(), "row" | "col" | "rowgroup" | "colgroup").then_some(("scope", v))
        }
        "span" if name == "col" => bounded_int(value, 1, 1000).map(|n| ("span", n.to_string())),
        "width" | "height" if name == "img" => {
            let k = if key == "width" { "width" } else { "height" };
            bounded_int(value, 0, 100_000).map(|n| (k, n.to_string()))
        }
        _ => return None,
    })
}

/// The ARIA attributes EPUB 3 XHTML allows on any element, checked: Some(kept or dropped)
/// when `key` is one of them, None otherwise. A label is kept when not blank; the ids that
/// `aria-labelledby` and `aria-describedby` name are checked in pass 5, which drops those no
/// element of the document has ([`super::Tree::fix_ids_and_links`]). EPUB 2's XHTML 1.1 has
/// none of them: the packager takes them out of EPUB 2 output.
fn aria_attr(key: &str, value: &str) -> Option<Option<(&'static str, String)>> {
    let idrefs = || non_empty(&value.split_whitespace().collect::<Vec<_>>().join(" "));
    Some(match key {
        "aria-label" => non_empty(value.trim()).map(|v| ("aria-label", v)),
        "aria-labelledby" => idrefs().map(|v| ("aria-labelledby", v)),
        "aria-describedby" => idrefs().map(|v| ("aria-describedby", v)),
        "aria-hidden" => {
            let v = value.trim().to_ascii_lowercase();
            matches!(v.as_str(), "true" | "false").then_some(("aria-hidden", v))
        }
        _ => return None,
    })
}

/// The attributes holding ids of the same document, checked in pass 5.
pub(super) const IDREF_ATTRS: [&str; 2] = ["aria-labelledby", "aria-describedby"];

/// What an element keeps of its style attribute: its `text-align`, or an image's width.
fn kept_style(name: &str, style: &str) -> Option<String> {
    let align = text_align_from_style(style).map(|a| format!("text-align: {a}"));
    match name {
        "img" => align.or_else(|| width_from_style(style).map(|w| format!("width: {w}"))),
        _ => align,
    }
}

/// The `width` of a style attribute when it is a plain length (an object's size in `ex`
/// carried to the image that replaces it); other CSS is not kept.
fn width_from_style(style: &str) -> Option<String> {
    style.split(';').rev().find_map(|decl| {
        let (prop, value) = decl.split_once(':')?;
        let value = value.trim().to_ascii_lowercase();
        let number_end = value
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(value.len());
        let (number, unit) = value.split_at(number_end);
        let length = number.parse::<f32>().is_ok_and(|n| n > 0.0)
            && ["px", "em", "ex", "rem", "%", "pt", "cm", "mm", "in", "vw"].contains(&unit);
        (prop.trim().eq_ignore_ascii_case("width") && length).then_some(value)
    })
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

fn bounded_int(v: &str, min: u32, max: u32) -> Option<u32> {
    v.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (min..=max).contains(n))
}

/// BCP 47-shaped tags only; EPUBCheck rejects malformed language tags.
fn valid_lang(v: &str) -> Option<String> {
    let v = v.trim();
    let mut parts = v.split('-');
    let first = parts.next()?;
    let first_ok = (1..=8).contains(&first.len()) && first.chars().all(|c| c.is_ascii_alphabetic());
    let rest_ok =
        parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    (first_ok && rest_ok).then(|| v.to_string())
}

fn text_align_value(v: &str) -> Option<&'static str> {
    match v.trim().to_ascii_lowercase().as_str() {
        "left" => Some("left"),
        "right" => Some("right"),
        "center" | "middle" => Some("center"),
        "justify" => Some("justify"),
        _ => None,
    }
}

/// Keeps only `text-align` from a style attribute: arbitrary CSS (Word's `mso-*`) is noise at
/// best and a CSS error for EPUBCheck at worst.
fn text_align_from_style(style: &str) -> Option<&'static str> {
    style.split(';').rev().find_map(|decl| {
        let (prop, value) = decl.split_once(':')?;
        if prop.trim().eq_ignore_ascii_case("text-align") {
            text_align_value(value.trim_end_matches("!important"))
        } else {
            None
        }
    })
}

/// Attributes every kept element may carry.
pub(super) fn is_global_attr(name: &str) -> bool {
    matches!(name, "id" | "class" | "lang" | "dir" | "title" | "style") || name.starts_with("aria-")
}

/// Output order of attributes, so serialisation does not depend on the parser's order.
pub(super) fn attr_rank(name: &str) -> usize {
    const ORDER: [&str; 24] = [
        "epub:type",
        "role",
        "id",
        "href",
        "src",
        "alt",
        "class",
        "lang",
        "dir",
        "title",
        "aria-label",
        "aria-labelledby",
        "aria-describedby",
        "aria-hidden",
        "style",
        "start",
        "reversed",
        "type",
        "colspan",
        "rowspan",
        "scope",
        "span",
        "width",
        "height",
    ];
    ORDER.iter().position(|n| *n == name).unwrap_or(ORDER.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_keeps_only_text_align() {
        assert_eq!(
            text_align_from_style("mso-x: 1; TEXT-ALIGN : Center"),
            Some("center")
        );
        assert_eq!(text_align_from_style("color: red"), None);
    }
}
