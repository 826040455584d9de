//! The end of a build: the record of each output written, and the EPUB moved into place
//! beside its record.

use std::path::Path;

use super::{BuildOptions, Pending};
use crate::archive::Finished;
use crate::book;
use crate::convert::book::Loaded;
use crate::error::{Error, Result};
use crate::incremental::plan::{Built, Reuse};
use crate::incremental::record::{self, ChapterRecord};
use crate::project::{FileStamp, Project};
use crate::write::EntryPlan;

/// How many chapters an output laid out by `plan` copies and of how many, and with a cache,
/// the record of the output.
pub(super) fn record_of(
    project: &Project,
    opts: &BuildOptions,
    loaded: &mut Loaded,
    pending: &mut Pending,
    plan: EntryPlan,
) -> ((usize, usize), Option<record::Record>) {
    let counts = (plan.copied_chapters(), plan.docs.len());
    let record = opts.cache.then(|| {
        let titles = chapter_titles(&mut loaded.book);
        let reuse = std::mem::replace(&mut pending.reuse, Box::new(Reuse::none(project)));
        reuse.into_record(built(loaded, plan, titles))
    });
    (counts, record)
}

pub(super) fn chapter_titles(book: &mut book::Book) -> Vec<String> {
    book::chapters_mut(&mut book.contents)
        .into_iter()
        .map(|c| c.title.clone())
        .collect()
}

/// What this build wrote, for its record.
pub(super) fn built(loaded: &Loaded, plan: EntryPlan, titles: Vec<String>) -> Built<'_> {
    let chapters = titles
        .into_iter()
        .zip(plan.docs)
        .map(|(title, docs)| ChapterRecord { title, docs })
        .collect();
    Built {
        sources: &loaded.sources,
        first_chapter: &loaded.first_chapter,
        warnings: &loaded.warnings,
        chapters,
        entries: plan.frame,
        frame: plan.frame_key,
        modified: loaded.book.modified.clone(),
    }
}

/// Moves the EPUB into place and, with a build cache, saves the build's record (its body
/// serialised while the EPUB is moved, the EPUB it replaced deleted while the record is
/// saved); returns the EPUB's size. Should the EPUB not make it into place, or the record not
/// be saved, there is no record: the next build is a clean one.
pub(super) fn commit(
    finished: Finished,
    output: &Path,
    record: Option<record::Record>,
) -> Result<u64> {
    let (committed, record) = std::thread::scope(|scope| {
        let commit = scope.spawn(|| finished.commit());
        let record = record.map(|r| {
            let body = record::body_bytes(&r.body);
            (r.head, body)
        });
        (commit.join(), record)
    });
    let committed = committed.unwrap_or_else(|_| {
        Err(Error::io(
            output,
            "cannot write",
            std::io::Error::other("the writing thread panicked"),
        ))
    });
    // Stamped once in place: the move itself changes the file's status change time.
    let stamp = FileStamp::of_path(output);
    let (committed, replaced) = match committed {
        Ok(replaced) => (Ok(()), Some(replaced)),
        Err(e) => (Err(e), None),
    };
    std::thread::scope(|scope| {
        scope.spawn(move || drop(replaced));
        if let Some((mut head, body)) = record {
            head.output = stamp;
            if committed.is_err()
                || stamp.is_none()
                || record::save_parts(output, &head, &body).is_err()
            {
                record::remove(output);
            }
        }
    });
    committed?;
    Ok(stamp.map_or(0, |s| s.size))
}
