//! Imports run one way: no module imports a module that imports it back, between files or
//! between the top-level modules (`project`, `convert`, `package`…). [`reader`] reads every
//! path form Rust allows from the source, so that `cargo test` holds the line without Python
//! (`shared/tools/modcycles.py` reads `crate::` and `super::` paths by regular expression and
//! misses some of them: see `reader`'s tests).

mod reader;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module's path (`["convert", "text"]`).
pub(super) type Module = Vec<String>;

/// The command line's modules: above the pipeline, out of its graph; an import of one is an
/// edge to it all the same (see [`edges`]).
pub(super) const COMMAND_LINE: [&str; 3] = ["cli", "cmd", "bin"];

/// The pipeline's modules, by path, with what each file says about imports: `lib`, `main`,
/// the binary's modules (`cli`, `cmd`, `bin`) and test-only files (`tests`, `testutil`, a
/// `mod` under `#[cfg(test)]` and all below them) are left out.
fn modules(files: &[(String, String)]) -> BTreeMap<Module, reader::Imports> {
    let mut out = BTreeMap::new();
    let mut test_only: Vec<Module> = Vec::new();
    for (rel, text) in files {
        let Some(stem) = rel.strip_suffix(".rs") else {
            continue;
        };
        let mut path: Module = stem.split('/').map(str::to_string).collect();
        if path.last().is_some_and(|l| l == "mod") {
            path.pop();
        }
        let root = matches!(path.as_slice(), [one] if one == "lib" || one == "main");
        let module = if root { Vec::new() } else { path.clone() };
        let imports = reader::read(&module, text);
        test_only.extend(imports.test_only.iter().cloned());
        let skip = root
            || path.last().is_some_and(|l| l == "tests" || l == "testutil")
            || path
                .first()
                .is_some_and(|f| COMMAND_LINE.contains(&f.as_str()));
        if !skip && !path.is_empty() {
            out.insert(path, imports);
        }
    }
    out.retain(|m, _| !test_only.iter().any(|t| m.starts_with(t)));
    out
}

/// The modules each module imports, other than its own ancestors and descendants; an import
/// of the command line is an edge to its top-level module (`["cmd"]`).
fn edges(files: &[(String, String)]) -> BTreeMap<Module, BTreeSet<Module>> {
    let mods = modules(files);
    let owner = |path: &[String]| {
        let command_line = (path.first())
            .filter(|f| COMMAND_LINE.contains(&f.as_str()))
            .map(|f| vec![f.clone()]);
        (1..=path.len())
            .rev()
            .find(|&i| mods.contains_key(&path[..i]))
            .map(|i| path[..i].to_vec())
            .or(command_line)
    };
    let mut out = BTreeMap::new();
    for (m, imports) in &mods {
        let targets: &mut BTreeSet<Module> = out.entry(m.clone()).or_default();
        for p in imports.resolved() {
            if let Some(o) = owner(&p)
                && o != *m
                && !m.starts_with(&o)
                && !o.starts_with(m)
            {
                targets.insert(o);
            }
        }
    }
    out
}

/// The top-level modules each top-level module imports.
pub(super) fn folded(
    edges: &BTreeMap<Module, BTreeSet<Module>>,
) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (a, bs) in edges {
        let top = out.entry(a[..1].to_vec()).or_default();
        top.extend(bs.iter().filter(|b| b[0] != a[0]).map(|b| b[..1].to_vec()));
    }
    out
}

/// Every group of modules that import each other, as `a, b, c` with the imports inside it.
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<String> {
    let reach = |from: &Module| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&Module, BTreeSet<Module>> =
        edges.keys().map(|m| (m, reach(m))).collect();
    let mut placed = BTreeSet::new();
    let mut out = Vec::new();
    for (m, from_m) in &reached {
        if placed.contains(*m) || !from_m.contains(*m) {
            continue;
        }
        let group: BTreeSet<&Module> = (reached.iter())
            .filter(|(o, from_o)| from_m.contains(**o) && from_o.contains(*m))
            .map(|(o, _)| *o)
            .collect();
        let name = |m: &Module| m.join("::");
        let inside: Vec<String> = (group.iter())
            .flat_map(|a| {
                let targets = edges.get(*a).into_iter().flatten();
                targets
                    .filter(|b| group.contains(b))
                    .map(move |b| format!("{} -> {}", name(a), name(b)))
            })
            .collect();
        let names: Vec<String> = group.iter().map(|m| name(m)).collect();
        out.push(format!("{} ({})", names.join(", "), inside.join("; ")));
        placed.extend(group.into_iter().cloned());
    }
    out
}

/// Every `.rs` file under `dir`, by its path relative to `root` with `/` separators.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let entries = std::fs::read_dir(dir).expect("the source folder can be listed");
    for entry in entries {
        let path = entry.expect("a listed entry").path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under the root");
            let rel: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            let text = std::fs::read_to_string(&path).expect("a source file is UTF-8");
            out.push((rel.join("/"), text));
        }
    }
}

/// The imports between this crate's modules, read once for the tests that need them.
pub(super) fn crate_edges() -> &'static BTreeMap<Module, BTreeSet<Module>> {
    static EDGES: std::sync::OnceLock<BTreeMap<Module, BTreeSet<Module>>> =
        std::sync::OnceLock::new();
    EDGES.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&root, &root, &mut files);
        edges(&files)
    })
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let edges = crate_edges();
    assert!(
        edges.len() > 100,
        "the crate's modules are read: {}",
        edges.len()
    );
    assert_eq!(
        cycles(edges),
        Vec::<String>::new(),
        "import cycles between files"
    );
    assert_eq!(
        cycles(&folded(edges)),
        Vec::<String>::new(),
        "import cycles between top-level modules"
    );
}

#[test]
fn a_back_import_is_a_cycle_between_files_and_between_top_level_modules() {
    let file = |path: &str, text: &str| (path.to_string(), text.to_string());
    let mut files = vec![
        file(
            "lib.rs",
            "mod book;\nmod convert;\nuse crate::convert::text;",
        ),
        file(
            "book/mod.rs",
            "//! The model: crate::convert is named in a comment only.\n",
        ),
        file("convert/mod.rs", "mod text;\nuse crate::book::Chapter;"),
        file("convert/text.rs", "use super::split;\n"),
        file("convert/split.rs", "use crate::{book::Node, lines};"),
        file(
            "lines.rs",
            "#[cfg(test)]\nmod tests {\n    use crate::convert::text;\n}\n",
        ),
    ];
    assert_eq!(cycles(&edges(&files)), Vec::<String>::new());
    assert_eq!(cycles(&folded(&edges(&files))), Vec::<String>::new());
    files.push(file(
        "book/names.rs",
        "pub use crate::convert::text::Block;",
    ));
    let edges = edges(&files);
    assert_eq!(
        cycles(&folded(&edges)),
        ["book, convert (book -> convert; convert -> book)"]
    );
    assert_eq!(
        cycles(&edges),
        Vec::<String>::new(),
        "no two files import each other"
    );
    files.push(file(
        "convert/text.rs",
        "use super::split;\nuse crate::book::names;",
    ));
    files.remove(3);
    let edges = self::edges(&files);
    assert_eq!(
        cycles(&edges),
        ["book::names, convert::text (book::names -> convert::text; convert::text -> book::names)"]
    );
}

#[test]
fn an_import_of_the_command_line_is_an_edge_to_it() {
    let files = vec![
        (
            "cmd/build.rs".to_string(),
            "use crate::convert;".to_string(),
        ),
        (
            "convert/mod.rs".to_string(),
            "fn f() { crate::cmd::build::run(); }".to_string(),
        ),
    ];
    let edges = edges(&files);
    assert_eq!(
        edges.keys().cloned().collect::<Vec<_>>(),
        [vec!["convert".to_string()]]
    );
    assert_eq!(
        edges[&vec!["convert".to_string()]],
        BTreeSet::from([vec!["cmd".to_string()]])
    );
}
