//! The NCX rules: its `dtb:uid` against the package's identifier, its `playOrder` and its depth
//! against `dtb:depth`, and that its points name documents of the spine.

use super::*;

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
        let Ok(text) = read::read_text(container, &path) else {
            return;
        };
        let Ok(doc) = xml::parse(&path, &text) else {
            return;
        };
        self.ncx = Some(read::NcxTargets::of(&path, &doc));
        let head_meta = |name: &str| {
            doc.descendants()
                .find(|n| is(*n, "meta") && attr(*n, "name") == Some(name))
        };
        let mut locator = Locator::new(&path, &doc);
        let root_loc = locator.at(doc.root_element());
        let package_uid = package
            .metadata
            .unique_identifier
            .clone()
            .unwrap_or_default();
        match head_meta("dtb:uid") {
            None => self.error(Code::EpubNcx, root_loc.clone(), "no dtb:uid meta"),
            Some(m) => {
                let uid = attr(m, "content").unwrap_or_default().trim();
                if uid != package_uid.trim() {
                    self.error(
                        Code::EpubNcx,
                        locator.at(m),
                        format!(
                            "dtb:uid `{uid}` differs from the package identifier `{package_uid}`"
                        ),
                    );
                }
            }
        }
        let Some(nav_map) = doc.descendants().find(|n| is(*n, "navMap")) else {
            self.error(Code::EpubNcx, root_loc, "no navMap");
            return;
        };
        // Pre-order walk: a parent's depth is known before its children's, so this stays linear
        // even for a hostile NCX nested millions deep.
        let mut depths: HashMap<roxmltree::NodeId, usize> = HashMap::new();
        let mut actual_depth = 0;
        for point in nav_map.descendants().filter(|n| is(*n, "navPoint")) {
            let depth = point
                .parent()
                .and_then(|p| depths.get(&p.id()))
                .map_or(1, |d| d + 1);
            depths.insert(point.id(), depth);
            actual_depth = actual_depth.max(depth);
        }
        if let Some(m) = head_meta("dtb:depth") {
            let declared = attr(m, "content").unwrap_or_default().trim();
            if declared.parse::<usize>().ok() != Some(actual_depth) {
                self.warning(
                    Code::EpubNcx,
                    locator.at(m),
                    format!("dtb:depth is `{declared}` but the navMap nests {actual_depth} deep"),
                );
            }
        }
        self.check_play_order(&mut locator, nav_map);
    }

    /// navPoints in document order must number 1, 2, 3...; a repeat is allowed only for a
    /// point with the same target as the earlier one. An NCX with no playOrder at all passes.
    pub(super) fn check_play_order(&mut self, locator: &mut Locator, nav_map: Node) {
        let points: Vec<Node> = nav_map
            .descendants()
            .filter(|n| is(*n, "navPoint"))
            .collect();
        if points.iter().all(|p| attr(*p, "playOrder").is_none()) {
            return;
        }
        let mut seen: HashMap<u64, String> = HashMap::new();
        let mut max = 0u64;
        for p in points {
            let loc = locator.at(p);
            let src = p
                .children()
                .find(|n| is(*n, "content"))
                .and_then(|c| attr(c, "src"))
                .unwrap_or_default()
                .trim()
                .to_string();
            let Some(order) = attr(p, "playOrder").and_then(|o| o.trim().parse::<u64>().ok())
            else {
                self.error(
                    Code::EpubNcx,
                    loc,
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
                    loc,
                    format!("playOrder {order} out of sequence; expected {}", max + 1),
                );
                max = max.max(order);
            }
        }
    }
}
