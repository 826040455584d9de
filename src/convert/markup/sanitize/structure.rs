//! Pass 3, structure: the parents the schema wants for list items, `dt`/`dd`, table parts,
//! `figcaption` and ruby annotations. Content in a list outside its items gets an item of its
//! own; whatever cannot be mended keeps its text under a neutral name (`div`, `span`).

use super::{Elem, Kind, Node, Tree};

impl Tree<'_> {
    /// Pass 3: parent/child rules of lists, tables, figures, ruby.
    pub(super) fn fix_structure(&mut self) {
        // (node, inside a caption): the Schematron forbids tables in captions.
        let mut stack = Vec::with_capacity(self.nodes.len());
        stack.push((0usize, false));
        while let Some((i, in_caption)) = stack.pop() {
            let Some(name) = self.name(i) else {
                // The root, or a removed node: only its children can need a repair.
                if let Some(n) = self.nodes.get(i) {
                    stack.extend(self.elements_of(&n.children).map(|c| (c, in_caption)));
                }
                continue;
            };
            if name == "math" {
                continue; // repaired by its own pass
            }
            if name == "table" && in_caption {
                self.rename(i, "div");
            }
            if let Some(name) = self.name(i) {
                let parent = self.nodes.get(i).map(|n| n.parent).unwrap_or(0);
                let pname = self.name(parent).unwrap_or("");
                let wrong_parent = match name {
                    "li" => !matches!(pname, "ul" | "ol"),
                    "dt" | "dd" => pname != "dl",
                    "tr" => !matches!(pname, "thead" | "tbody" | "tfoot" | "table"),
                    "td" | "th" => pname != "tr",
                    "thead" | "tbody" | "tfoot" | "caption" | "colgroup" => pname != "table",
                    "col" => pname != "colgroup",
                    "figcaption" => pname != "figure",
                    "rb" | "rt" | "rp" => pname != "ruby",
                    _ => false,
                };
                if wrong_parent {
                    match name {
                        "col" => self.remove(i),
                        "rb" | "rt" | "rp" => self.rename(i, "span"),
                        _ => self.rename(i, "div"),
                    }
                }
                match self.name(i) {
                    Some("ul" | "ol") => self.wrap_list_items(i),
                    Some("dl") => self.check_dl(i),
                    Some("table") => self.order_table(i),
                    Some("thead" | "tbody" | "tfoot") => self.keep_only(i, &["tr"]),
                    Some("tr") => self.keep_only(i, &["td", "th"]),
                    Some("colgroup") => self.keep_only(i, &["col"]),
                    Some("figure") => self.check_figure(i),
                    Some("ruby") => self.check_ruby(i),
                    _ => {}
                }
            }
            let child_in_caption = in_caption || self.name(i) == Some("caption");
            if let Some(n) = self.nodes.get(i) {
                stack.extend(self.elements_of(&n.children).map(|c| (c, child_in_caption)));
            }
        }
    }

    /// Wraps each run of non-`li` content in a list into its own `li`.
    fn wrap_list_items(&mut self, list: usize) {
        let old = self.children(list);
        let mut new = Vec::with_capacity(old.len());
        let mut run: Vec<usize> = Vec::new();
        for c in old {
            if self.name(c) == Some("li") {
                self.flush_run(list, &mut run, &mut new);
                new.push(c);
            } else if run.is_empty() && self.is_blank_text(c) {
                new.push(c);
            } else {
                run.push(c);
            }
        }
        self.flush_run(list, &mut run, &mut new);
        if let Some(n) = self.nodes.get_mut(list) {
            n.children = new;
        }
    }

    fn flush_run(&mut self, list: usize, run: &mut Vec<usize>, new: &mut Vec<usize>) {
        if run.is_empty() {
            return;
        }
        if run.iter().all(|&c| self.is_blank_text(c)) {
            new.append(run);
            return;
        }
        let li = self.nodes.len();
        for &c in run.iter() {
            if let Some(n) = self.nodes.get_mut(c) {
                n.parent = li;
            }
        }
        self.nodes.push(Node {
            kind: Kind::Element(Elem {
                name: "li",
                attrs: Vec::new(),
            }),
            parent: list,
            children: std::mem::take(run),
        });
        new.push(li);
    }

    /// A `dl` must be groups of `dt`+ then `dd`+; anything else becomes plain `div`s.
    fn check_dl(&mut self, dl: usize) {
        let mut seen_dt = false;
        let mut last: Option<&str> = None;
        let mut ok = true;
        for c in self.children(dl) {
            if self.is_blank_text(c) {
                continue;
            }
            match self.name(c) {
                Some("dt") => seen_dt = true,
                Some("dd") if seen_dt => {}
                _ => ok = false,
            }
            last = self.name(c);
        }
        if ok && (last.is_none() || last == Some("dd")) {
            return;
        }
        self.rename(dl, "div");
        for c in self.children(dl) {
            if matches!(self.name(c), Some("dt" | "dd")) {
                self.rename(c, "div");
            }
        }
    }

    /// Table children in schema order: caption, colgroup*, thead, tbody*/tr*, tfoot.
    fn order_table(&mut self, table: usize) {
        let mut caption = Vec::new();
        let mut colgroups = Vec::new();
        let mut thead = Vec::new();
        let mut body = Vec::new();
        let mut tfoot = Vec::new();
        let mut has_tbody = false;
        let mut has_tr = false;
        for c in self.children(table) {
            match self.name(c) {
                Some("caption") if caption.is_empty() => caption.push(c),
                Some("colgroup") => colgroups.push(c),
                Some("thead") if thead.is_empty() => thead.push(c),
                Some("tfoot") if tfoot.is_empty() => tfoot.push(c),
                Some("thead" | "tfoot" | "tbody") => {
                    self.rename(c, "tbody");
                    has_tbody = true;
                    body.push(c);
                }
                Some("tr") => {
                    has_tr = true;
                    body.push(c);
                }
                _ if self.is_blank_text(c) => {}
                _ => self.remove(c),
            }
        }
        if has_tbody && has_tr {
            // Mixing bare rows and row groups is invalid; bare rows cannot occur from the
            // HTML5 parser, so dropping them only guards against our own renaming.
            body.retain(|&c| self.name(c) != Some("tr"));
        }
        let mut new = caption;
        new.extend(colgroups);
        new.extend(thead);
        new.extend(body);
        new.extend(tfoot);
        if let Some(n) = self.nodes.get_mut(table) {
            n.children = new;
        }
    }

    fn keep_only(&mut self, i: usize, allowed: &[&str]) {
        for c in self.children(i) {
            let ok = self.name(c).is_some_and(|n| allowed.contains(&n)) || self.is_blank_text(c);
            if !ok {
                self.remove(c);
            }
        }
    }

    /// `figcaption` must be the first or last child of its `figure`, and only one.
    fn check_figure(&mut self, fig: usize) {
        let kids: Vec<usize> = self
            .children(fig)
            .into_iter()
            .filter(|&c| !self.is_blank_text(c))
            .collect();
        let first = kids.first().copied();
        let last = kids.last().copied();
        let mut kept = false;
        for &c in &kids {
            if self.name(c) == Some("figcaption") {
                if !kept && (Some(c) == first || Some(c) == last) {
                    kept = true;
                } else {
                    self.rename(c, "div");
                }
            }
        }
    }

    /// `ruby` must be groups of base text followed by `rt` or `rp rt rp` annotations;
    /// anything else loses its ruby markup (the text stays).
    fn check_ruby(&mut self, ruby: usize) {
        let mut state = 0u8;
        for c in self.children(ruby) {
            if self.is_blank_text(c) {
                continue;
            }
            state = match (state, self.name(c)) {
                (1 | 2, Some("rt")) | (4, Some("rp")) => 2,
                (1 | 2, Some("rp")) => 3,
                (3, Some("rt")) => 4,
                (0..=2, Some(n)) if n != "rt" && n != "rp" => 1,
                (0..=2, None) => 1,
                _ => 5,
            };
        }
        if state == 2 {
            return;
        }
        self.rename(ruby, "span");
        for c in self.children(ruby) {
            if matches!(self.name(c), Some("rb" | "rt" | "rp")) {
                self.rename(c, "span");
            }
        }
    }
}
