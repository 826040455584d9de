//! The module diagram in `guide/src/architecture.md` is the code's: every top-level module of
//! the pipeline stands in it once, and every import points down its layers, or along an arrow
//! drawn inside a layer. The diagram is the `text` block after the sentence that says
//! "Imports point down these layers"; a line of it is a layer, written as
//!
//! ```text
//! look → package → media · convert → media     a comment, after two spaces or more
//! book · lines · ledger ·                       (a layer whose modules end in `·`, `,` or
//! archive · xml                                 `→` goes on at the next line's start)
//! ```
//!
//! `a → b, c` lets `a` import `b` and `c` (and, further along the arrows, what they may);
//! modules apart (`·`) in one layer import neither each other nor anything above.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::imports::{COMMAND_LINE, Module, crate_edges, folded};

/// The diagram read: each top-level module's layer (0 the top line), and the arrows drawn.
#[derive(Debug, Default)]
struct Diagram {
    layer: BTreeMap<String, usize>,
    arrows: BTreeSet<(String, String)>,
    /// Names drawn more than once.
    twice: Vec<String>,
}

/// The lines of the `text` block after the line that says "Imports point down these layers".
fn diagram_block(guide: &str) -> Vec<&str> {
    let after = guide
        .split_once("Imports point down these layers")
        .map_or("", |(_, rest)| rest);
    let Some((_, block)) = after.split_once("```text\n") else {
        return Vec::new();
    };
    block.split("\n```").next().unwrap_or("").lines().collect()
}

/// Reads the diagram's layers and arrows.
fn read(lines: &[&str]) -> Diagram {
    let mut d = Diagram::default();
    let mut layer = 0;
    let mut pending = String::new();
    for line in lines {
        if line.starts_with(' ') || line.trim().is_empty() {
            continue;
        }
        let column = line.split("  ").next().unwrap_or("").trim();
        pending.push(' ');
        pending.push_str(column);
        if !column.ends_with(['·', ',', '→']) {
            d.add_layer(&pending, layer);
            pending.clear();
            layer += 1;
        }
    }
    d.add_layer(&pending, layer);
    d
}

impl Diagram {
    /// One layer: groups apart (`·`), each a chain of lists joined by arrows.
    fn add_layer(&mut self, column: &str, layer: usize) {
        for group in column.split('·').map(str::trim).filter(|g| !g.is_empty()) {
            let lists: Vec<Vec<String>> = (group.split('→'))
                .map(|l| (l.split(',').map(str::trim)).filter(|n| !n.is_empty()))
                .map(|names| names.map(str::to_string).collect())
                .collect();
            for (i, list) in lists.iter().enumerate() {
                for name in list {
                    if self.layer.insert(name.clone(), layer).is_some() {
                        self.twice.push(name.clone());
                    }
                    for later in lists[i + 1..].iter().flatten() {
                        self.arrows.insert((name.clone(), later.clone()));
                    }
                }
            }
        }
    }
}

/// Every import the diagram does not allow, and every module it leaves out or names wrongly.
fn problems(d: &Diagram, graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    let mut out: Vec<String> = d
        .twice
        .iter()
        .map(|n| format!("{n}: drawn twice"))
        .collect();
    for m in graph.keys() {
        if !d.layer.contains_key(&m[0]) {
            out.push(format!("{}: not in the diagram", m[0]));
        }
    }
    for name in d.layer.keys() {
        if !graph.contains_key(&vec![name.clone()]) {
            out.push(format!("{name}: in the diagram, not a top-level module"));
        }
    }
    for (a, bs) in graph {
        for b in bs {
            if COMMAND_LINE.contains(&b[0].as_str()) {
                out.push(format!("{} imports {}: the command line", a[0], b[0]));
            }
            let (Some(la), Some(lb)) = (d.layer.get(&a[0]), d.layer.get(&b[0])) else {
                continue;
            };
            let along = d.arrows.contains(&(a[0].clone(), b[0].clone()));
            if lb < la || (lb == la && !along) {
                out.push(format!("{} imports {}: {}", a[0], b[0], where_(*la, *lb)));
            }
        }
    }
    out
}

fn where_(from: usize, to: usize) -> &'static str {
    if to < from {
        "a higher layer"
    } else {
        "the same layer, with no arrow drawn"
    }
}

#[test]
fn the_module_diagram_in_the_guide_is_the_code_s() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("guide/src/architecture.md"))
        .expect("the architecture chapter");
    let diagram = read(&diagram_block(&guide));
    assert!(diagram.layer.len() > 10, "the diagram is read: {diagram:?}");
    let graph = folded(crate_edges());
    let shown: Vec<String> = (graph.iter())
        .map(|(a, bs)| {
            let bs: Vec<&str> = bs.iter().map(|b| b[0].as_str()).collect();
            format!("{} -> {}", a[0], bs.join(", "))
        })
        .collect();
    assert_eq!(
        problems(&diagram, &graph),
        Vec::<String>::new(),
        "the imports between top-level modules:\n{}",
        shown.join("\n")
    );
}

/// The crate documentation's text (`//!` lines of `src/lib.rs`), one line each.
fn crate_docs(lib: &str) -> String {
    (lib.lines())
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l).trim_end()))
        .collect()
}

/// The lines of the first `text` block of `doc`.
fn first_text_block(doc: &str) -> Vec<&str> {
    (doc.split_once("```text\n"))
        .and_then(|(_, block)| block.split("\n```").next())
        .map_or(Vec::new(), |b| b.lines().map(str::trim_end).collect())
}

/// One picture of the pipeline: the crate documentation draws the guide's chain of stages
/// and its checked diagram of layers, line for line.
#[test]
fn the_crate_docs_draw_the_guide_s_diagram() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("guide/src/architecture.md"))
        .expect("the architecture chapter");
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).expect("the crate root");
    let docs = crate_docs(&lib);
    let ours: Vec<&str> = diagram_block(&docs)
        .into_iter()
        .map(str::trim_end)
        .collect();
    let guide_s: Vec<&str> = diagram_block(&guide)
        .into_iter()
        .map(str::trim_end)
        .collect();
    assert!(
        guide_s.len() > 5,
        "the guide's diagram is read: {guide_s:?}"
    );
    assert_eq!(
        ours, guide_s,
        "src/lib.rs draws other layers than guide/src/architecture.md: copy the guide's"
    );
    let chain = first_text_block(&guide);
    assert!(chain.len() == 1 && chain[0].contains(" → "), "{chain:?}");
    assert_eq!(
        first_text_block(&docs),
        chain,
        "the chain of stages differs"
    );
}

#[test]
fn an_import_up_across_or_beside_the_arrows_is_a_problem() {
    let lines = [
        "build · check                  commands",
        "look → package → media,        the stages, on",
        "stores · convert → media       two lines",
        "                               (a comment alone)",
        "book · lines ·                 leaves",
        "xml",
    ];
    let d = read(&lines);
    assert_eq!(d.layer["stores"], 1);
    assert_eq!(d.layer["xml"], 2);
    assert!(d.arrows.contains(&("look".into(), "stores".into())));
    assert!(!d.arrows.contains(&("look".into(), "convert".into())));
    assert_eq!(d.twice, ["media"]);
    let m = |n: &str| vec![n.to_string()];
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for n in [
            "build", "check", "look", "package", "media", "stores", "convert", "book",
        ] {
            g.entry(m(n)).or_default();
        }
        for n in ["lines", "xml"] {
            g.entry(m(n)).or_default();
        }
        for (a, b) in pairs {
            g.entry(m(a)).or_default().insert(m(b));
        }
        g
    };
    let fine = [
        ("build", "look"),
        ("look", "media"),
        ("package", "stores"),
        ("convert", "xml"),
    ];
    let twice = ["media: drawn twice"];
    assert_eq!(problems(&d, &graph(&fine)), twice);
    let swapped = lines.map(|l| l.replace("stores · convert → media", "stores · convert"));
    let d = read(&swapped.each_ref().map(String::as_str));
    assert_eq!(problems(&d, &graph(&fine)), Vec::<String>::new());
    assert_eq!(
        problems(&d, &graph(&[("media", "look")])),
        ["media imports look: the same layer, with no arrow drawn"]
    );
    assert_eq!(
        problems(&d, &graph(&[("look", "convert"), ("xml", "book")])),
        [
            "look imports convert: the same layer, with no arrow drawn",
            "xml imports book: the same layer, with no arrow drawn"
        ]
    );
    assert_eq!(
        problems(&d, &graph(&[("book", "look"), ("package", "look")])),
        [
            "book imports look: a higher layer",
            "package imports look: the same layer, with no arrow drawn"
        ]
    );
    assert_eq!(
        problems(&d, &graph(&[("build", "cmd")])),
        ["build imports cmd: the command line"]
    );
    let mut missing = graph(&[]);
    missing.insert(m("fix"), BTreeSet::new());
    missing.remove(&m("xml"));
    assert_eq!(
        problems(&d, &missing),
        [
            "fix: not in the diagram",
            "xml: in the diagram, not a top-level module"
        ]
    );
}
