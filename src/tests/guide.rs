//! The user guide (`guide/`, an mdBook that epubforge builds) names everything a user can
//! write: every key `metadata.toml` accepts, as its parser lists them
//! (`crate::project::guide_keys`), in the section of the guide's `metadata.md` for its table,
//! and every diagnostic code, as the `Code` enum lists them, in `diagnostics.md`. The command
//! line is checked by the binary's own tests (`src/cli.rs`), where clap's definitions live.

use std::path::PathBuf;

use crate::diagnostic::Code;

/// A chapter of the guide.
fn chapter(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("guide/src")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text under the first heading of `text` that holds `marker`, to the next heading of the
/// same or a higher level.
fn section<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    let level = |line: &str| line.chars().take_while(|&c| c == '#').count();
    let mut lines = text.split_inclusive('\n').scan(0, |at, line| {
        let start = *at;
        *at += line.len();
        Some((start, line))
    });
    let (start, heading) = lines.find(|(_, l)| level(l) > 0 && l.contains(marker))?;
    let depth = level(heading);
    let end = lines
        .find(|(_, l)| (1..=depth).contains(&level(l)))
        .map_or(text.len(), |(at, _)| at);
    Some(&text[start..end])
}

/// Every code as printed, from the enum's own table ([`Code::ALL`]); EPUBCheck's message ids
/// are not a fixed list.
fn every_code() -> Vec<String> {
    let names: Vec<String> = Code::ALL.iter().map(|c| c.as_str().to_string()).collect();
    assert!(names.len() > 50, "{names:?}");
    names
}

#[test]
fn every_diagnostic_code_is_in_the_guide() {
    let guide = chapter("diagnostics.md");
    let missing: Vec<String> = every_code()
        .into_iter()
        .filter(|code| !guide.contains(&format!("`{code}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "codes not in guide/src/diagnostics.md: {missing:?}"
    );
}

#[test]
fn every_metadata_key_is_in_its_tables_section_of_the_guide() {
    let guide = chapter("metadata.md");
    let mut missing = Vec::new();
    for path in crate::project::guide_keys::accepted() {
        let table = &path[0];
        let heading = [format!("`[{table}]`"), format!("`[[{table}]]`")];
        let Some(text) = heading.iter().find_map(|h| section(&guide, h)) else {
            missing.push(format!("a heading for [{table}]"));
            continue;
        };
        let key = &path[path.len() - 1];
        if path.len() > 1 && !text.contains(&format!("`{key}`")) {
            missing.push(path.join("."));
        }
    }
    assert!(
        missing.is_empty(),
        "metadata.toml keys not in guide/src/metadata.md: {missing:?}"
    );
}

#[test]
fn a_section_ends_at_the_next_heading_of_its_level() {
    let text = "# A\n## B `x`\nb\n### C\nc\n## D\nd\n";
    assert_eq!(section(text, "`x`"), Some("## B `x`\nb\n### C\nc\n"));
    assert_eq!(section(text, "D"), Some("## D\nd\n"));
    assert_eq!(section(text, "nowhere"), None);
}
