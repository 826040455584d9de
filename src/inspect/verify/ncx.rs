//! The NCX rules: its `dtb:uid` against the package's identifier, its `playOrder` and its depth
//! against `dtb:depth`, and that its points name documents of the spine.
//!
//! What they read of an NCX is gathered on the walk that summarises it ([`NcxWalk`], beside
//! [`super::element::Summarizer`]), so that the NCX is not parsed into a tree again for them;
//! an NCX not summarised so (its entry not named `.ncx`) is parsed here as before.

use super::walk::{Element, each_element};
use super::*;

/// What the NCX rules and the stores' facts read of an NCX ([`NcxWalk`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NcxFacts {
    /// The text walked: kept with the targets for the other readers ([`read::NcxTargets`]).
    text: String,
    /// Where the root element starts.
    root: usize,
    /// The first `meta` named `dtb:uid`, and the first named `dtb:depth`: where each starts,
    /// and its `content`.
    uid: Option<(usize, Option<String>)>,
    depth: Option<(usize, Option<String>)>,
    /// Whether there is a `navMap`.
    nav_map: bool,
    /// The `navPoint`s in the first `navMap`, in document order.
    points: Vec<Point>,
    /// How deep they nest (a point whose parent is not one is 1 deep).
    nesting: usize,
    /// The `src` of every `content`, resolved ([`read::ncx_targets`]).
    targets: Vec<String>,
}

/// A `navPoint`: where it starts, its `playOrder`, and the `src` of its first `content` child
/// (None without such a child; `Some(None)` when that child has no `src`).
#[derive(Debug, PartialEq, Eq)]
struct Point {
    pos: usize,
    play_order: Option<String>,
    src: Option<Option<String>>,
}

/// Where the walk is with respect to the first `navMap`: before it, inside it (at this
/// depth), after it.
#[derive(Clone, Copy)]
enum Map {
    Before,
    In(usize),
    After,
}

/// The walk over an NCX's elements in document order that gathers its [`NcxFacts`].
pub(super) struct NcxWalk<'t> {
    entry: String,
    text: &'t str,
    facts: NcxFacts,
    map: Map,
    /// The open elements, outermost first: for a point of the `navMap`, its index in
    /// `facts.points` and how deep it nests.
    open: Vec<Option<(usize, usize)>>,
}

impl<'t> NcxWalk<'t> {
    /// The walk over the NCX `entry` whose text is `text`, before its first element.
    pub(super) fn new(entry: &str, text: &'t str) -> Self {
        NcxWalk {
            entry: entry.to_string(),
            text,
            facts: NcxFacts {
                text: String::new(),
                root: 0,
                uid: None,
                depth: None,
                nav_map: false,
                points: Vec::new(),
                nesting: 0,
                targets: Vec::new(),
            },
            map: Map::Before,
            open: Vec::new(),
        }
    }

    /// Takes in the next element in document order. Names are compared without their
    /// namespace, as the rules on the tree compare them ([`xml::is`]).
    pub(super) fn element(&mut self, e: &Element) {
        self.open.truncate(e.depth);
        let parent = self.open.last().copied().flatten();
        let facts = &mut self.facts;
        if e.depth == 0 {
            facts.root = e.pos;
        }
        if let Map::In(depth) = self.map
            && e.depth <= depth
        {
            self.map = Map::After;
        }
        let mut here = None;
        match e.local {
            "meta" => {
                let content = || e.attr("content").map(str::to_string);
                match e.attr("name") {
                    Some("dtb:uid") if facts.uid.is_none() => facts.uid = Some((e.pos, content())),
                    Some("dtb:depth") if facts.depth.is_none() => {
                        facts.depth = Some((e.pos, content()))
                    }
                    _ => {}
                }
            }
            "navMap" if matches!(self.map, Map::Before) => {
                facts.nav_map = true;
                self.map = Map::In(e.depth);
            }
            "navPoint" if matches!(self.map, Map::In(_)) => {
                let nesting = parent.map_or(1, |(_, n)| n + 1);
                facts.nesting = facts.nesting.max(nesting);
                here = Some((facts.points.len(), nesting));
                facts.points.push(Point {
                    pos: e.pos,
                    play_order: e.attr("playOrder").map(str::to_string),
                    src: None,
                });
            }
            "content" => {
                // Any `src`, namespaced or not, as roxmltree's `attribute("src")` finds it.
                let src = (e.attrs.iter()).find(|a| a.local == "src");
                if let Some(target) = src.and_then(|a| href::resolve(&self.entry, &a.value)) {
                    facts.targets.push(target.path);
                }
                if let Some((at, _)) = parent
                    && let Some(point) = facts.points.get_mut(at)
                    && point.src.is_none()
                {
                    point.src = Some(e.attr("src").map(|s| s.trim().to_string()));
                }
            }
            _ => {}
        }
        self.open.push(here);
    }

    /// The facts of every element taken in.
    pub(super) fn finish(mut self) -> NcxFacts {
        self.facts.text = self.text.to_string();
        self.facts
    }
}

impl Verifier {
    pub(super) fn check_ncx<R: Read + Seek>(
        &mut self,
        container: &mut Container<R>,
        package: &Package,
    ) {
        let Some(ncx) = package.ncx_item() else {
            return;
        };
        let path = ncx.href.clone();
        if !self.summaries.contains_key(&path) {
            return; // missing or malformed: already reported
        }
        let walked = (self.ncx_walked.iter()).position(|(name, _)| *name == path);
        let facts = match walked {
            Some(at) => self.ncx_walked.swap_remove(at).1,
            None => {
                let Ok(text) = read::read_text(container, &path) else {
                    return;
                };
                let Ok(doc) = xml::parse(&path, &text) else {
                    return;
                };
                let mut walk = NcxWalk::new(&path, &text);
                each_element(&doc, |e| walk.element(e));
                walk.finish()
            }
        };
        self.check_ncx_facts(&path, &facts, package);
        self.ncx = Some(read::NcxTargets {
            href: path,
            text: facts.text,
            targets: facts.targets,
        });
    }

    /// The NCX rules on what they read of the NCX `path` ([`NcxFacts`]).
    fn check_ncx_facts(&mut self, path: &str, facts: &NcxFacts, package: &Package) {
        let mut locator = Locator::of_text(path, &facts.text);
        let root_loc = locator.place(facts.root);
        let package_uid = package
            .metadata
            .unique_identifier
            .clone()
            .unwrap_or_default();
        match &facts.uid {
            None => self.error(Code::EpubNcx, root_loc.clone(), "no dtb:uid meta"),
            Some((at, content)) => {
                let uid = content.as_deref().unwrap_or_default().trim();
                if uid != package_uid.trim() {
                    self.error(
                        Code::EpubNcx,
                        locator.place(*at),
                        format!(
                            "dtb:uid `{uid}` differs from the package identifier `{package_uid}`"
                        ),
                    );
                }
            }
        }
        if !facts.nav_map {
            self.error(Code::EpubNcx, root_loc, "no navMap");
            return;
        }
        if let Some((at, content)) = &facts.depth {
            let declared = content.as_deref().unwrap_or_default().trim();
            let actual_depth = facts.nesting;
            if declared.parse::<usize>().ok() != Some(actual_depth) {
                self.warning(
                    Code::EpubNcx,
                    locator.place(*at),
                    format!("dtb:depth is `{declared}` but the navMap nests {actual_depth} deep"),
                );
            }
        }
        self.check_play_order(&mut locator, &facts.points);
    }

    /// navPoints in document order must number 1, 2, 3...; a repeat is allowed only for a
    /// point with the same target as the earlier one. An NCX with no playOrder at all passes.
    fn check_play_order(&mut self, locator: &mut Locator, points: &[Point]) {
        if points.iter().all(|p| p.play_order.is_none()) {
            return;
        }
        let mut seen: HashMap<u64, &str> = HashMap::new();
        let mut max = 0u64;
        for p in points {
            let src = p
                .src
                .as_ref()
                .and_then(|s| s.as_deref())
                .unwrap_or_default();
            let order = (p.play_order.as_deref()).and_then(|o| o.trim().parse::<u64>().ok());
            let Some(order) = order else {
                self.error(
                    Code::EpubNcx,
                    locator.place(p.pos),
                    "navPoint without a numeric playOrder (others have one)",
                );
                continue;
            };
            if order == max + 1 {
                max = order;
                seen.insert(order, src);
            } else if seen.get(&order).is_some_and(|s| *s == src) {
                // Same target as an earlier point: sharing its playOrder is allowed.
            } else {
                self.error(
                    Code::EpubNcx,
                    locator.place(p.pos),
                    format!("playOrder {order} out of sequence; expected {}", max + 1),
                );
                max = max.max(order);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::{NCX, TestBook};

    const NAME: &str = "EPUB/toc.ncx";

    /// The NCX findings (message, line and column) of `book`, its NCX named `name`.
    fn ncx_findings(mut book: TestBook, name: &str) -> Vec<(String, String)> {
        if name != NAME {
            book.entry_mut(NAME).name = name.into();
            let href = name.trim_start_matches("EPUB/");
            book = book.edit(
                "EPUB/package.opf",
                "href=\"toc.ncx\"",
                &format!("href=\"{href}\""),
            );
        }
        let findings = verify_bytes(&book.to_zip());
        (findings.iter().filter(|f| f.code == Code::EpubNcx))
            .map(|f| {
                let at = crate::diagnostic::render::location(f, None).unwrap_or_default();
                (f.message.clone(), at.replace(name, "NCX"))
            })
            .collect()
    }

    #[test]
    fn the_rules_read_an_ncx_walked_as_they_read_one_parsed_again() {
        let damaged: [&[(&str, &str)]; 6] = [
            &[(r#"playOrder="2""#, r#"playOrder="3""#)],
            &[(r#" playOrder="2""#, "")],
            &[(r#"content="2""#, r#"content="1""#)],
            &[("urn:uuid:12345678", "urn:uuid:00000000")],
            &[("dtb:uid", "dtb:x")],
            &[("<navMap>", "<list>"), ("</navMap>", "</list>")],
        ];
        for edits in damaged {
            let book = || {
                (edits.iter()).fold(TestBook::minimal_epub3(), |b, (from, to)| {
                    b.edit(NAME, from, to)
                })
            };
            let walked = ncx_findings(book(), NAME);
            assert!(!walked.is_empty(), "{edits:?}: {NCX}");
            assert_eq!(walked, ncx_findings(book(), "EPUB/toc.xml"), "{edits:?}");
        }
    }
}
