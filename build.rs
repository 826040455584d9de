//! Sorts each OpenCC dictionary (`src/text_fix/opencc/data/*.txt`) by key into `OUT_DIR`,
//! where `src/text_fix/opencc` embeds it: a trie is built from sorted keys in one pass, each
//! key sharing the nodes of the one before it, without a hash table to find them (the
//! dictionaries are kept as OpenCC ships them, in its order).

use std::env;
use std::fs;
use std::path::Path;

fn main() {
    let data = Path::new("src/text_fix/opencc/data");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", data.display());
    let out = Path::new(&env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("opencc");
    fs::create_dir_all(&out).expect("OUT_DIR can be written");
    let entries = fs::read_dir(data).expect("the OpenCC dictionaries are in the source tree");
    for entry in entries {
        let path = entry.expect("the dictionary folder can be read").path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let text = fs::read_to_string(&path).expect("an OpenCC dictionary is UTF-8 text");
        let mut lines: Vec<&str> = text.lines().filter(|l| l.contains('\t')).collect();
        // Stable: of a key given twice, the first line stays first.
        lines.sort_by(|a, b| key(a).cmp(key(b)));
        let mut sorted = lines.join("\n");
        sorted.push('\n');
        let name = path.file_name().expect("a file has a name");
        fs::write(out.join(name), sorted).expect("OUT_DIR can be written");
    }
}

/// The key of a dictionary line: what comes before the tab.
fn key(line: &str) -> &str {
    line.split_once('\t').map_or(line, |(key, _)| key)
}
