//! Which inputs changed since the last build: by stamp first, by content when the stamp
//! differs or is too recent to trust.

use std::path::Path;

use rayon::prelude::*;

use super::record::{Body, Head, InputRecord};
use super::{Hash, hash, trusted_before};
use crate::project::FileStamp;

/// The current state of the input files, checked against the last build's records.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// One record per input, in the order given.
    pub records: Vec<InputRecord>,
    /// Whether each input is known unchanged (same content as recorded at the same position).
    pub unchanged: Vec<bool>,
}

impl Inputs {
    /// Each input with its stamp, in order.
    pub fn stamps(&self) -> Vec<(&Path, FileStamp)> {
        self.records
            .iter()
            .map(|r| (r.path.as_path(), r.stamp))
            .collect()
    }
}

/// Stamps and, where needed, hashes `paths`, comparing with the last build's records (matched
/// by position and path). A path may come with the stamp it had when the project was loaded,
/// which is used instead of looking again. Unreadable files get an empty hash and count as
/// changed: the build that follows reports the real error.
pub fn check_inputs(
    paths: &[(&Path, Option<FileStamp>)],
    previous: Option<(&Head, &Body)>,
) -> Inputs {
    let racy_after = previous.map(|(head, _)| trusted_before(head.started));
    let old_of = |i: usize, path: &Path| {
        previous
            .and_then(|(_, body)| body.inputs.get(i))
            .filter(|r| r.path == path)
    };
    // First the stamps, which usually settle everything (an up-to-date book reads no file and
    // starts no thread); then the hashes of the rest, in parallel.
    let mut records = Vec::with_capacity(paths.len());
    let mut unchanged = Vec::with_capacity(paths.len());
    let mut to_hash = Vec::new();
    for (i, &(path, known)) in paths.iter().enumerate() {
        let old = old_of(i, path);
        let st = known.or_else(|| FileStamp::of_path(path));
        if let (Some(old), Some(st), Some(racy_after)) = (old, st, racy_after)
            && old.stamp == st
            && st.newest() < racy_after
        {
            records.push(old.clone());
            unchanged.push(true);
            continue;
        }
        to_hash.push(i);
        records.push(InputRecord {
            path: path.to_path_buf(),
            stamp: st.unwrap_or(FileStamp {
                size: 0,
                mtime: 0,
                ctime: 0,
                inode: 0,
            }),
            hash: Hash::default(),
        });
        unchanged.push(false);
    }
    let hashes: Vec<Hash> = to_hash
        .par_iter()
        .map(|&i| {
            crate::fs::read(paths[i].0)
                .map(|b| hash(&b))
                .unwrap_or_default()
        })
        .collect();
    for (i, h) in to_hash.into_iter().zip(hashes) {
        let old = old_of(i, paths[i].0);
        unchanged[i] = !h.is_empty() && old.is_some_and(|o| o.hash == h);
        records[i].hash = h;
    }
    Inputs { records, unchanged }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(started: i128) -> Head {
        Head {
            options: Hash::default(),
            started,
            output: None,
            inputs: 1,
            digest: Hash::default(),
            newest: 0,
            racy: Vec::new(),
            chapters: 0,
            sources: Vec::new(),
            warnings: Vec::new(),
            quick: None,
        }
    }

    #[test]
    fn inputs_compare_by_stamp_then_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, "one").unwrap();
        let paths = [(a.as_path(), None)];
        let first = check_inputs(&paths, None);
        assert_eq!(first.unchanged, vec![false]);
        // Long after the write, so the stamp is trusted.
        let later = first.records[0].stamp.newest() + 10_000_000_000;
        let mut body = Body {
            inputs: first.records.clone(),
            ..Body::default()
        };
        assert_eq!(
            check_inputs(&paths, Some((&head(later), &body))).unchanged,
            vec![true]
        );

        // Same size, same recorded stamp, but the build started right after the write: racy,
        // so the content is compared and the change is seen.
        std::fs::write(&a, "two").unwrap();
        body.inputs[0].stamp = FileStamp::of_path(&a).unwrap();
        let racy = head(body.inputs[0].stamp.newest());
        assert_eq!(
            check_inputs(&paths, Some((&racy, &body))).unchanged,
            vec![false]
        );

        // A new stamp with the old content counts as unchanged.
        body.inputs = check_inputs(&paths, None).records;
        body.inputs[0].stamp.mtime -= 1;
        assert_eq!(
            check_inputs(&paths, Some((&head(later), &body))).unchanged,
            vec![true]
        );
    }
}
