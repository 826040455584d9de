//! The write stage: lays the EPUB's entries out (which are rendered, which are copied from the
//! previous EPUB), then packages the chapter documents a chunk at a time and writes every
//! entry in order, so that the whole book's XHTML and its compressed entries are never held at
//! once.
//!
//! Every build writes this way, with or without a previous EPUB: a chapter's documents (one,
//! or more when it is split for size) are known from its count of pieces before its body is
//! packaged, so the layout always holds.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use crate::archive::{self, EpubWriter, PackMemo, PreviousEpub};
use crate::error::{Error, Result};
use crate::incremental::record::Body;
use crate::incremental::{self, Hash};
use crate::package::{self, Book, Entry, Look};

/// Chapter documents are packaged at most this many body bytes at a time: small enough to
/// bound memory, large enough that re-running the package stage per chunk costs little.
/// (Tiny under test, so that small books exercise the chunked path.)
const CHUNK_BYTES: usize = if cfg!(test) { 2048 } else { 2 << 20 };

/// Where every entry of the EPUB goes and which are copied from the previous one.
pub(crate) struct EntryPlan {
    /// Every entry in order; chapter documents, and entries to copy, without their data.
    entries: Vec<Entry>,
    /// The positions in `entries` of each chapter's documents.
    chapters: Vec<Range<usize>>,
    /// Whether each entry is copied from the previous EPUB (where it has the same name).
    copy: Vec<bool>,
    /// Each chapter's documents: name, and hash of what surrounds the body.
    pub docs: Vec<Vec<(String, Hash)>>,
    /// Name and hash of every other entry.
    pub frame: Vec<(String, Hash)>,
    /// [`package::frame_key`] of the book.
    pub frame_key: String,
}

/// The chapters (0-based) taken from the cache whose recorded documents the layout does not
/// vouch for: they are to be converted after all.
pub(crate) struct Stale(pub Vec<usize>);

/// Lays the book out. `reused[k]` holds the recorded documents of chapter `k` when it was
/// taken from the cache (its body is not there); `previous` is the last EPUB and its record.
pub(crate) fn lay_out(
    book: &Book,
    look: &Look,
    reused: &[Option<&[(String, Hash)]>],
    previous: Option<&(PreviousEpub, Body)>,
) -> std::result::Result<EntryPlan, Stale> {
    let frame_key = package::frame_key(book, look);
    if let Some(plan) = previous.and_then(|p| same_frame(book, look, reused, p, &frame_key)) {
        return Ok(plan);
    }
    fresh_frame(book, look, reused, previous, frame_key)
}

/// Each entry's position, by name.
fn entry_index(entries: &[Entry]) -> HashMap<&str, usize> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect()
}

/// The positions of each chapter's documents among entries indexed by `index`; None unless
/// each chapter's documents are there, back to back, in reading order.
fn positions(
    index: &HashMap<&str, usize>,
    docs: &[Vec<(String, Hash)>],
) -> Option<Vec<Range<usize>>> {
    let mut out = Vec::with_capacity(docs.len());
    let mut next = 0;
    for chapter in docs {
        let start = *index.get(chapter.first()?.0.as_str())?;
        for (i, (name, _)) in chapter.iter().enumerate() {
            if index.get(name.as_str()) != Some(&(start + i)) {
                return None;
            }
        }
        if start < next {
            return None;
        }
        next = start + chapter.len();
        out.push(start..next);
    }
    Some(out)
}

/// The plan of a rebuild whose frame is the last one's (same frame key): the previous EPUB's
/// entries in their order, every one copied but the chapters to package again, and the
/// package document when the modified date moved. None when the previous EPUB or its record
/// do not allow it.
fn same_frame(
    book: &Book,
    look: &Look,
    reused: &[Option<&[(String, Hash)]>],
    (epub, last): &(PreviousEpub, Body),
    key: &str,
) -> Option<EntryPlan> {
    let docs: Vec<Vec<(String, Hash)>> = last
        .sources
        .iter()
        .flat_map(|s| s.chapters.iter().map(|c| c.docs.clone()))
        .collect();
    if key != last.frame || docs.len() != reused.len() {
        return None;
    }
    let mut entries: Vec<Entry> = epub
        .names()?
        .map(|name| Entry {
            name: name.to_string(),
            data: Vec::new(),
            compress: true,
        })
        .collect();
    let index = entry_index(&entries);
    let chapters = positions(&index, &docs)?;
    let in_chapters: usize = chapters.iter().map(|r| r.len()).sum();
    if entries.len() != in_chapters + last.entries.len()
        || last
            .entries
            .iter()
            .any(|(name, _)| !index.contains_key(name.as_str()))
    {
        return None;
    }
    let mut copy = vec![true; entries.len()];
    for (range, reuse) in chapters.iter().zip(reused) {
        if reuse.is_none() {
            copy[range.clone()].fill(false);
        }
    }
    let mut frame = last.entries.clone();
    if book.modified != last.modified {
        let opf = look
            .target
            .finish_owned(package::package_document(book, look));
        let at = *index.get(opf.name.as_str())?;
        let (_, hash) = frame.iter_mut().find(|(name, _)| *name == opf.name)?;
        *hash = incremental::hash(&opf.data);
        copy[at] = false;
        drop(index);
        entries[at] = opf;
    }
    Some(EntryPlan {
        entries,
        chapters,
        copy,
        docs,
        frame,
        frame_key: key.to_string(),
    })
}

/// The plan of a build whose frame is rendered: copies only what provably has the bytes the
/// last build wrote. Refused when a reused chapter's documents would not be packaged the same.
fn fresh_frame(
    book: &Book,
    look: &Look,
    reused: &[Option<&[(String, Hash)]>],
    previous: Option<&(PreviousEpub, Body)>,
    frame_key: String,
) -> std::result::Result<EntryPlan, Stale> {
    let package::Frame {
        mut entries,
        chapters: chapter_docs,
    } = package::frame(book, look);
    look.target
        .finish_frame(&mut entries, !look.fonts.is_empty());
    let docs: Vec<Vec<(String, Hash)>> = chapter_docs
        .into_par_iter()
        .map(|docs| {
            docs.into_iter()
                .map(|(name, shell)| (name, incremental::hash(shell.as_bytes())))
                .collect()
        })
        .collect();
    let index = entry_index(&entries);
    let chapters = positions(&index, &docs).ok_or_else(|| Stale(Vec::new()))?;
    let epub = previous.map(|(epub, _)| epub);
    let stale: Vec<usize> = (0..docs.len())
        .filter(|&k| match reused.get(k).copied().flatten() {
            Some(recorded) => {
                recorded != docs[k].as_slice()
                    || !epub.is_some_and(|e| docs[k].iter().all(|(n, _)| e.contains(n)))
            }
            None => false,
        })
        .collect();
    if !stale.is_empty() {
        return Err(Stale(stale));
    }
    let mut copy = vec![false; entries.len()];
    for (range, reuse) in chapters.iter().zip(reused) {
        if reuse.is_some() {
            copy[range.clone()].fill(true);
        }
    }
    // The other entries (package document, navigation, stylesheet, images...) are copied too
    // when their bytes are those the last build wrote.
    let in_chapter = |i: usize| chapters.iter().any(|r| r.contains(&i));
    let frame: Vec<(String, Hash)> = entries
        .par_iter()
        .enumerate()
        .filter(|(i, _)| !in_chapter(*i))
        .map(|(_, e)| (e.name.clone(), incremental::hash(&e.data)))
        .collect();
    if let Some((epub, last)) = previous {
        let before: HashMap<&str, &Hash> =
            last.entries.iter().map(|(n, h)| (n.as_str(), h)).collect();
        for (name, hash) in &frame {
            if before.get(name.as_str()) == Some(&hash)
                && epub.contains(name)
                && let Some(&i) = index.get(name.as_str())
            {
                copy[i] = true;
            }
        }
    }
    drop(index);
    Ok(EntryPlan {
        entries,
        chapters,
        copy,
        docs,
        frame,
        frame_key,
    })
}

impl EntryPlan {
    /// How many chapters are copied rather than packaged.
    pub fn copied_chapters(&self) -> usize {
        self.chapters
            .iter()
            .filter(|r| self.copy.get(r.start) == Some(&true))
            .count()
    }
}

/// Writes the EPUB laid out by `plan` to its temporary file: the chapters not copied are
/// packaged a chunk at a time from `bodies` (each chapter's body, set aside from `book`), and
/// every entry is written in order, new or copied from `previous`. With `memo`, entries
/// another output of the build compressed already are not compressed again.
pub(crate) fn write(
    output: &Path,
    plan: &EntryPlan,
    book: &mut Book,
    look: &Look,
    mut bodies: Vec<String>,
    (mut previous, memo): (Option<&mut PreviousEpub>, Option<&Arc<PackMemo>>),
) -> Result<archive::Finished> {
    let todo: Vec<usize> = (0..plan.chapters.len())
        .filter(|&k| plan.copy.get(plan.chapters[k].start) != Some(&true))
        .collect();
    let mut writer = EpubWriter::create(output)?;
    if let Some(memo) = memo {
        writer.share(Arc::clone(memo));
    }
    let mut cursor = 0;
    for chunk in chunks(&todo, &bodies) {
        let docs = package_chunk(book, look, chunk, &mut bodies);
        let mut fresh: HashMap<usize, Entry> = HashMap::with_capacity(docs.len());
        let mut docs = docs.into_iter();
        for &k in chunk {
            for at in plan.chapters[k].clone() {
                match docs.next() {
                    Some(doc) if doc.name == plan.entries[at].name => fresh.insert(at, doc),
                    _ => return Err(layout_mismatch(output)),
                };
            }
        }
        let end = chunk.last().map_or(cursor, |&k| plan.chapters[k].end);
        write_range(
            &mut writer,
            cursor..end,
            |i| fresh.get(&i).unwrap_or(&plan.entries[i]),
            &plan.copy,
            previous.as_deref_mut(),
        )?;
        cursor = end;
    }
    let rest = cursor..plan.entries.len();
    write_range(
        &mut writer,
        rest,
        |i| &plan.entries[i],
        &plan.copy,
        previous,
    )?;
    writer.finish_writing()
}

/// `todo` cut into runs of chapters whose bodies add up to about [`CHUNK_BYTES`].
fn chunks<'a>(todo: &'a [usize], bodies: &[String]) -> Vec<&'a [usize]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut bytes = 0;
    for (j, &k) in todo.iter().enumerate() {
        let len = bodies.get(k).map_or(0, String::len);
        if j > start && bytes + len > CHUNK_BYTES {
            out.push(&todo[start..j]);
            start = j;
            bytes = 0;
        }
        bytes += len;
    }
    if start < todo.len() {
        out.push(&todo[start..]);
    }
    out
}

/// The documents of the chapters of `chunk`, in order: their bodies go back into the book to
/// be packaged, and are freed right after.
fn package_chunk(
    book: &mut Book,
    look: &Look,
    chunk: &[usize],
    bodies: &mut [String],
) -> Vec<Entry> {
    let mut slots = package::chapters_mut(&mut book.contents);
    for &k in chunk {
        if let (Some(slot), Some(body)) = (slots.get_mut(k), bodies.get_mut(k)) {
            slot.body = std::mem::take(body);
        }
    }
    drop(slots);
    // On a pool thread, so its allocations reuse the memory freed by earlier chunks' bodies
    // (which were allocated by pool threads) rather than growing another arena.
    let docs = rayon::scope(|_| package::chapter_documents(book, look, chunk));
    let docs: Vec<Entry> = docs
        .into_par_iter()
        .map(|doc| look.target.finish_owned(doc))
        .collect();
    let mut slots = package::chapters_mut(&mut book.contents);
    for &k in chunk {
        if let Some(slot) = slots.get_mut(k) {
            slot.body = String::new();
        }
    }
    docs
}

fn layout_mismatch(output: &Path) -> Error {
    Error::io(
        output,
        "cannot write",
        std::io::Error::other("a chapter's documents are not those the layout planned"),
    )
}

/// Writes entries `range` in order: those marked in `copy` copied raw from the previous EPUB
/// (under the same name), the rest compressed in parallel batches.
fn write_range<'a>(
    writer: &mut EpubWriter,
    range: Range<usize>,
    entry: impl Fn(usize) -> &'a Entry,
    copy: &[bool],
    mut previous: Option<&mut PreviousEpub>,
) -> Result<()> {
    let mut batch: Vec<&Entry> = Vec::new();
    for i in range {
        match (copy.get(i), previous.as_deref_mut()) {
            (Some(true), Some(prev)) => {
                writer.add_refs(&batch)?;
                batch.clear();
                writer.copy_raw(prev, &entry(i).name)?;
            }
            _ => batch.push(entry(i)),
        }
    }
    writer.add_refs(&batch)
}
