//! Every key `metadata.toml` accepts, as its parser says, for the test that the guide names
//! each one (`crate::tests::guide`).
//!
//! The keys are not copied from the structs by hand: they are asked of serde. A table written
//! with `deny_unknown_fields` answers an unknown key with "unknown field `x`, expected one of
//! `a`, `b`…", so the walk writes a probe key at every place a table may stand and reads the
//! list back, then tries each key it learns as a table and as an array of tables in turn. An
//! untagged enum (a value that is a string or a table) swallows that answer: its table is
//! asked directly, and the walk fails on an untagged enum it does not know, so that a new one
//! cannot hide its keys.

use std::collections::BTreeSet;

use serde::de::DeserializeOwned;

use super::raw::Metadata;

/// A key no table has: written to make the parser list the keys it expected.
const PROBE: &str = "zzz-probe";

/// One accepted key: the path of tables above it (`["chapters", "file"]` is `file` in a
/// `[[chapters]]` entry) ending with the key itself.
pub(crate) type KeyPath = Vec<String>;

/// What the parser answered to a probe at some place.
enum Answer {
    /// A table that lists its keys.
    Keys(Vec<String>),
    /// A value that is an untagged enum, by the enum's name: it does not list its keys.
    Untagged(String),
    /// Not a table (a string, a number, a value taking anything).
    Other,
}

/// Every key `metadata.toml` accepts, with the tables above it.
pub(crate) fn accepted() -> Vec<KeyPath> {
    let mut found = BTreeSet::new();
    walk(&[], &mut found);
    found.into_iter().collect()
}

/// The keys of the table at `path`, and of every table below them, into `found`.
fn walk(path: &[Step], found: &mut BTreeSet<KeyPath>) {
    let (keys, untagged) = match path.is_empty() {
        true => (
            keys_of(&answer(&probe_at(&[], &format!("{PROBE} = 1")))),
            false,
        ),
        false => keys_at(path),
    };
    for key in keys {
        let mut key_path: KeyPath = path.iter().map(|s| s.name.clone()).collect();
        key_path.push(key.clone());
        found.insert(key_path);
        // Below an untagged enum every probe gets the enum's answer again: its table is the
        // last one down.
        if untagged {
            continue;
        }
        for array in [false, true] {
            let mut below = path.to_vec();
            below.push(Step {
                name: key.clone(),
                array,
            });
            if let Answer::Keys(_) | Answer::Untagged(_) = answer(&probe_at(&below, "")) {
                walk(&below, found);
            }
        }
    }
}

/// The keys of the table at `path` (its last step): listed by serde, or asked of the table an
/// untagged enum holds (then true).
fn keys_at(path: &[Step]) -> (Vec<String>, bool) {
    match answer(&probe_at(path, "")) {
        Answer::Keys(keys) => (keys, false),
        Answer::Untagged(name) => (untagged_keys(&name), true),
        Answer::Other => (Vec::new(), false),
    }
}

/// The keys of the table inside the untagged enum `name`. Each arm asks the parser, except
/// `RawSplit`, whose table does not deny unknown keys: there the key is checked to be taken.
fn untagged_keys(name: &str) -> Vec<String> {
    match name {
        "RawPerson" => keys_of_type::<super::raw::FullPerson>(),
        "RawFont" => keys_of_type::<super::layout::FullFont>(),
        "RawIgnore" => keys_of_type::<super::ignore::FullIgnore>(),
        "RawSplit" => {
            let taken = answer(&probe_at(&[], "[output]\nsplit = { chapters = 2 }"));
            assert!(
                matches!(taken, Answer::Other),
                "[output] split = {{ chapters = N }} is not taken"
            );
            vec!["chapters".into()]
        }
        other => {
            panic!("metadata.toml has a new untagged enum `{other}`: teach guide_keys its keys")
        }
    }
}

/// The keys a table of type `T` lists when given a probe key.
fn keys_of_type<T: DeserializeOwned + std::fmt::Debug>() -> Vec<String> {
    let err = toml::from_str::<T>(&format!("{PROBE} = 1")).expect_err("the probe is unknown");
    keys_of(&classify(err.message()))
}

fn keys_of(answer: &Answer) -> Vec<String> {
    match answer {
        Answer::Keys(keys) => keys.clone(),
        _ => panic!("the top of metadata.toml did not list its keys"),
    }
}

/// One table on the way down: a key, written as a table or as an array of tables.
#[derive(Clone)]
struct Step {
    name: String,
    array: bool,
}

/// A `metadata.toml` with `rest` at the top, or a probe key in the table at `path` (inline
/// tables and arrays, so that one line reaches any depth).
fn probe_at(path: &[Step], rest: &str) -> String {
    if path.is_empty() {
        return rest.to_string();
    }
    let mut value = format!("{{ {PROBE} = 1 }}");
    for step in path.iter().skip(1).rev() {
        value = wrap(step, value);
    }
    let first = &path[0];
    let inner = match first.array {
        true => format!("[{value}]"),
        false => value,
    };
    format!("{} = {inner}\n", first.name)
}

fn wrap(step: &Step, value: String) -> String {
    match step.array {
        true => format!("{{ {} = [{value}] }}", step.name),
        false => format!("{{ {} = {value} }}", step.name),
    }
}

/// What the parser says of `text`.
fn answer(text: &str) -> Answer {
    match toml::from_str::<Metadata>(text) {
        Ok(_) => Answer::Other,
        Err(err) => classify(err.message()),
    }
}

/// serde's words for an unknown key (the list of expected ones) or an untagged enum.
fn classify(message: &str) -> Answer {
    let unknown = format!("unknown field `{PROBE}`");
    if let Some(rest) = message.strip_prefix(&unknown) {
        // "expected one of `a`, `b`", "expected `a`" or "there are no fields".
        // toml's own markers for spans and dates are not keys anyone writes.
        let keys = rest
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|k| !k.starts_with("$__"));
        return Answer::Keys(keys.map(String::from).collect());
    }
    let untagged = "data did not match any variant of untagged enum ";
    match message.find(untagged) {
        Some(at) => Answer::Untagged(
            message[at + untagged.len()..]
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string(),
        ),
        None => Answer::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_finds_keys_at_every_depth_and_inside_untagged_values() {
        let keys = accepted();
        let has = |path: &[&str]| keys.iter().any(|k| k == path);
        assert!(has(&["book", "title"]), "{keys:?}");
        assert!(has(&["parts", "chapters", "file"]), "{keys:?}");
        assert!(has(&["book", "authors", "file-as"]), "{keys:?}");
        assert!(has(&["style", "fonts", "face"]), "{keys:?}");
        assert!(has(&["check", "ignore", "line"]), "{keys:?}");
        assert!(has(&["output", "split", "chapters"]), "{keys:?}");
        assert!(!keys.iter().any(|k| k.iter().any(|s| s == PROBE)));
    }
}
