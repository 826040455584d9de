//! The lay-out step of a build: every pending output's entries laid out by the write stage,
//! a chapter whose recorded documents the layout refutes converted again.

use std::path::Path;

use super::Pending;
use crate::book;
use crate::book::Target;
use crate::convert::book::Loaded;
use crate::error::{Error, Result};
use crate::incremental::Hash;
use crate::incremental::plan::Reuse;
use crate::package::Look;
use crate::project::Project;
use crate::write::{self, EntryPlan, Stale};

/// Every pending output laid out (each for its target), the chapter bodies set aside in
/// `bodies`. A chapter that one output's layout converts again (its record refuted) changes the
/// book the others were laid out for: then they are all laid out again.
pub(super) fn lay_out_all(
    project: &Project,
    loaded: &mut Loaded,
    look: &mut Look,
    todo: &mut [Pending],
    bodies: &mut [String],
) -> Result<Vec<EntryPlan>> {
    loop {
        let mut plans = Vec::with_capacity(todo.len());
        let mut converted = false;
        for pending in todo.iter_mut() {
            look.target = pending.target;
            let (plan, again) = lay_out(
                project,
                loaded,
                look,
                &mut pending.reuse,
                &pending.output,
                bodies,
            )?;
            converted |= again;
            plans.push(plan);
        }
        look.target = Target::Epub;
        if !converted || todo.len() == 1 {
            return Ok(plans);
        }
    }
}

/// Lays the book's entries out, its chapter bodies set aside in `bodies` (by chapter). A chapter
/// taken from the cache whose recorded documents the layout refutes (its name moved: a split
/// file before it gained a chapter) is converted after all, and the book laid out again; true
/// when that happened.
pub(super) fn lay_out(
    project: &Project,
    loaded: &mut Loaded,
    look: &Look,
    reuse: &mut Reuse,
    output: &Path,
    bodies: &mut [String],
) -> Result<(EntryPlan, bool)> {
    let mut converted = false;
    for _ in 0..2 {
        let mut reused: Vec<Option<&[(String, Hash)]>> = vec![None; bodies.len()];
        for (i, &k) in loaded.first_chapter.iter().enumerate() {
            if let (Some(slot), Some(docs)) = (reused.get_mut(k), reuse.docs(i)) {
                *slot = Some(docs);
            }
        }
        let stale = match write::lay_out(&loaded.book, look, &reused, reuse.previous.as_ref()) {
            Ok(plan) => return Ok((plan, converted)),
            Err(Stale(stale)) => stale,
        };
        let again: Vec<usize> = (0..loaded.first_chapter.len())
            .filter(|&i| reuse.is_reused(i) && stale.contains(&loaded.first_chapter[i]))
            .collect();
        if again.is_empty() {
            break;
        }
        again.iter().for_each(|&i| reuse.forget(i));
        loaded.convert_again(project, &again)?;
        converted = true;
        for (slot, body) in bodies.iter_mut().zip(set_aside(&mut loaded.book)) {
            if !body.is_empty() {
                *slot = body;
            }
        }
    }
    Err(Error::io(
        output,
        "cannot write",
        std::io::Error::other("the chapters' documents could not be laid out"),
    ))
}

/// Takes every chapter's body out of the book, in reading order.
pub(super) fn set_aside(book: &mut book::Book) -> Vec<String> {
    book::chapters_mut(&mut book.contents)
        .into_iter()
        .map(|c| std::mem::take(&mut c.body))
        .collect()
}
