//! What the cache allows a build: up to date, or which chapters to take as recorded. Keys say
//! what each converted chapter depends on; a chapter is reused only when its key is the one
//! recorded.

use std::path::Path;

use crate::archive;
use crate::convert::chapter::{ConvertedChapter, SourceReport};
use crate::diagnostic::Warning;
use crate::incremental::{self, ChapterRecord, Hash, Manifest, Stamp, Summary};
use crate::package::{Chapter, Node};
use crate::project::ChapterSource;

/// What the last build of an up-to-date book reported, to report again.
pub(crate) struct Recorded {
    /// Number of chapter documents.
    pub chapters: usize,
    /// Size of the EPUB.
    pub bytes: u64,
    /// The warnings of that build.
    pub warnings: Vec<Warning>,
    /// How each chapter file was decoded.
    pub sources: Vec<SourceReport>,
}

/// The cache key of chapter `i` (0-based) read from `src`: everything its converted document
/// depends on.
pub(crate) fn chapter_key(meta_hash: &str, content: &str, src: &ChapterSource, i: usize) -> Hash {
    incremental::hash_fields(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        meta_hash.as_bytes(),
        content.as_bytes(),
        &source_key(src),
        (i + 1).to_string().as_bytes(),
    ])
}

/// How a chapter source is to be read, for its cache key: every field of [`ChapterSource`]
/// except the stamp (a touched but unchanged file is still reused). The path goes in as its
/// bytes (formatting thousands of paths with `{:?}` was a noticeable part of a rebuild).
fn source_key(src: &ChapterSource) -> Vec<u8> {
    let ChapterSource {
        path,
        title,
        line,
        encoding,
        encoding_errors,
        split,
        stamp: _,
    } = src;
    let rest = format!("{title:?} {line:?} {encoding:?} {encoding_errors:?} {split:?}");
    let path = path.as_os_str().as_encoded_bytes();
    let mut key = Vec::with_capacity(path.len() + rest.len() + 8);
    key.extend_from_slice(&(path.len() as u64).to_le_bytes());
    key.extend_from_slice(path);
    key.extend_from_slice(rest.as_bytes());
    key
}

/// The report of an up-to-date book, when the summary of its last build shows that no input
/// was touched since: same files, same stamps, none modified too close to that build.
pub(crate) fn up_to_date(
    summary: &Summary,
    paths: &[(&Path, Option<Stamp>)],
    sources: &[&ChapterSource],
) -> Option<Recorded> {
    if summary.inputs != paths.len()
        || summary.chapters != sources.len()
        || summary.newest >= incremental::trusted_before(summary.started)
    {
        return None;
    }
    let stamps = paths
        .iter()
        .map(|&(path, known)| Some((path, known.or_else(|| incremental::stamp(path))?)))
        .collect::<Option<Vec<_>>>()?;
    if incremental::inputs_digest(stamps) != summary.digest {
        return None;
    }
    let mut encodings = summary.encodings.iter().peekable();
    let mut reports = Vec::with_capacity(sources.len());
    for (i, src) in sources.iter().enumerate() {
        let (encoding, detection) = match encodings.next_if(|(at, _, _)| *at == i) {
            Some(&(_, encoding, detection)) => (encoding, detection),
            None => incremental::PLAIN,
        };
        reports.push(SourceReport {
            path: src.path.clone(),
            encoding,
            detection,
        });
    }
    let warnings = summary
        .warnings
        .iter()
        .map(|(chapter, line, message)| {
            Some(Warning {
                path: sources.get(*chapter)?.path.clone(),
                line: *line,
                message: message.clone(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Recorded {
        chapters: summary.chapters,
        bytes: summary.output.map(|o| o.size).unwrap_or(0),
        warnings,
        sources: reports,
    })
}

/// Hash of what, besides the inputs, decides the EPUB's bytes.
pub(crate) fn options_key(source_date_epoch: Option<i64>, output: &Path) -> Hash {
    incremental::hash_fields(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        format!("{:?}", source_date_epoch).as_bytes(),
        output.to_string_lossy().as_bytes(),
        format!("{} {}", archive::LEVEL, archive::FORMAT).as_bytes(),
    ])
}

/// The warnings of the last build, so an up-to-date book reports what a build would.
pub(crate) fn recorded_warnings(prev: &Manifest, sources: &[&ChapterSource]) -> Vec<Warning> {
    prev.chapters
        .iter()
        .zip(sources)
        .flat_map(|(rec, src)| {
            rec.warnings.iter().map(|(line, message)| Warning {
                path: src.path.clone(),
                line: *line,
                message: message.clone(),
            })
        })
        .collect()
}

pub(crate) fn recorded_sources(prev: &Manifest, sources: &[&ChapterSource]) -> Vec<SourceReport> {
    prev.chapters
        .iter()
        .zip(sources)
        .map(|(rec, src)| recorded_report(rec, src))
        .collect()
}

/// Only a plain-text chapter that is not split can be reused from the cache: it makes exactly
/// one document and brings no images or links along.
pub(crate) fn reusable_source(src: &ChapterSource) -> bool {
    src.split.is_none()
        && crate::convert::SourceKind::of(&src.path) == crate::convert::SourceKind::Text
}

/// A chapter as the cache recorded it, with an empty body; None if its source cannot be reused.
pub(crate) fn reused(rec: &ChapterRecord, src: &ChapterSource) -> Option<ConvertedChapter> {
    if !reusable_source(src) {
        return None;
    }
    Some(ConvertedChapter {
        nodes: vec![Node::Chapter(Chapter {
            title: rec.title.clone(),
            body: String::new(),
        })],
        images: Vec::new(),
        links: Vec::new(),
        warnings: rec
            .warnings
            .iter()
            .map(|(line, message)| Warning {
                path: src.path.clone(),
                line: *line,
                message: message.clone(),
            })
            .collect(),
        report: recorded_report(rec, src),
    })
}

fn recorded_report(rec: &ChapterRecord, src: &ChapterSource) -> SourceReport {
    SourceReport {
        path: src.path.clone(),
        encoding: rec.encoding,
        detection: rec.detection,
    }
}
