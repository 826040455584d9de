//! The write stage of a streaming build: where every entry of the EPUB goes, which entries are
//! copied from the previous EPUB, and the chapter documents packaged a chunk at a time.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rayon::prelude::*;

use crate::archive::{self, EpubWriter, PreviousEpub};
use crate::convert::chapter::SourceReport;
use crate::diagnostic::Warning;
use crate::error::Result;
use crate::incremental::{self, ChapterRecord, Hash, Manifest};
use crate::package::{self, Book, Entry};

/// What the streaming writer leaves for the build cache.
pub(crate) struct Written {
    /// The build cache's text but for the EPUB's stamp, when asked for (see [`CacheText`]).
    pub(crate) cache_body: Option<String>,
    /// The EPUB, written but not yet moved into place.
    pub(crate) finished: archive::Finished,
}

/// What the layout decided, for the build cache's text.
#[derive(Clone, Copy)]
pub(crate) struct LaidOut<'a> {
    pub(crate) chapters: &'a [WrittenChapter],
    pub(crate) frame: &'a [(String, Hash)],
    pub(crate) frame_key: &'a str,
    pub(crate) modified: &'a str,
    pub(crate) warnings: &'a [Warning],
    pub(crate) sources: &'a [SourceReport],
}

/// Renders the build cache's body ([`Manifest::body_text`]) from the layout, while the EPUB
/// is written.
pub(crate) type CacheText<'a> = &'a (dyn Fn(LaidOut<'_>) -> String + Sync);

/// What the layout decided about one chapter document.
pub(crate) struct WrittenChapter {
    pub(crate) entry: String,
    pub(crate) shell: Hash,
    pub(crate) title: String,
}

/// Chapter documents are packaged at most this many body bytes at a time: small enough to
/// bound memory, large enough that re-running the package stage per chunk costs little.
/// (Tiny under test, so that small books exercise the chunked path.)
pub(crate) const CHUNK_BYTES: usize = if cfg!(test) { 2048 } else { 2 << 20 };

/// What a streaming build may take from the last one.
pub(crate) struct Previous<'a> {
    /// For each chapter, its record when its document can be copied.
    pub(crate) reuse: &'a [Option<&'a ChapterRecord>],
    /// The EPUB to copy from.
    pub(crate) epub: Option<PreviousEpub>,
    /// What the last build recorded of it: its other entries, frame key and chapters.
    pub(crate) manifest: Option<&'a Manifest>,
}

impl<'a> Previous<'a> {
    /// Nothing to take: every chapter is built.
    pub(crate) fn none(reuse: &'a [Option<&'a ChapterRecord>]) -> Previous<'a> {
        Previous {
            reuse,
            epub: None,
            manifest: None,
        }
    }
}

/// Where every entry of the EPUB goes and which can be copied from the previous one.
pub(crate) struct Plan {
    /// Every entry in order, chapter documents (and entries to copy) without their data.
    pub(crate) skeleton: Vec<Entry>,
    /// Each chapter's document name, shell hash and position in `skeleton`.
    pub(crate) names: Vec<String>,
    pub(crate) shells: Vec<Hash>,
    pub(crate) pos: Vec<usize>,
    /// Name and hash of every entry other than chapter documents.
    pub(crate) frame: Vec<(String, Hash)>,
    /// Whether each entry of `skeleton` is copied from the previous EPUB.
    pub(crate) copy: Vec<bool>,
}

/// Each entry's position, by name.
pub(crate) fn entry_index(entries: &[Entry]) -> HashMap<&str, usize> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect()
}

/// The plan of a rebuild whose frame is the last one's (same [`package::frame_key`]): the
/// previous EPUB's entries in their order, every one copied but the chapters to package
/// again, and the package document when the modified date moved. None when the previous
/// EPUB or its records do not allow it.
pub(crate) fn same_frame(
    last: &Previous<'_>,
    key: &str,
    book: &Book,
    look: &package::Look,
    chapters: usize,
) -> Option<Plan> {
    let (epub, manifest) = (last.epub.as_ref()?, last.manifest?);
    if key.is_empty() || key != manifest.frame || manifest.chapters.len() != chapters {
        return None;
    }
    let mut skeleton: Vec<Entry> = epub
        .names()?
        .map(|name| Entry {
            name: name.to_string(),
            data: Vec::new(),
            compress: true,
        })
        .collect();
    let index = entry_index(&skeleton);
    let pos = manifest
        .chapters
        .iter()
        .map(|r| index.get(r.entry.as_str()).copied())
        .collect::<Option<Vec<usize>>>()?;
    if pos.windows(2).any(|w| w[0] >= w[1])
        || skeleton.len() != chapters + manifest.entries.len()
        || manifest
            .entries
            .iter()
            .any(|(name, _)| !index.contains_key(name.as_str()))
    {
        return None;
    }
    let mut copy = vec![true; skeleton.len()];
    for (k, rec) in last.reuse.iter().enumerate() {
        if rec.is_none() {
            copy[pos[k]] = false;
        }
    }
    let mut frame = manifest.entries.clone();
    if book.modified != manifest.modified {
        let opf = package::package_document(book, look);
        let at = *index.get(opf.name.as_str())?;
        let (_, hash) = frame.iter_mut().find(|(name, _)| *name == opf.name)?;
        *hash = incremental::hash(&opf.data);
        copy[at] = false;
        drop(index);
        skeleton[at] = opf;
    }
    Some(Plan {
        names: manifest.chapters.iter().map(|r| r.entry.clone()).collect(),
        shells: manifest.chapters.iter().map(|r| r.shell).collect(),
        pos,
        frame,
        copy,
        skeleton,
    })
}

/// The plan of a build whose frame is rendered: copies only what provably has the bytes the
/// last build wrote. None when a reused chapter's document would not be packaged the same.
pub(crate) fn fresh_frame(book: &Book, look: &package::Look, last: &Previous<'_>) -> Option<Plan> {
    let package::Frame {
        entries: skeleton,
        chapters: chapter_docs,
    } = package::frame(book, look);
    let (names, shells): (Vec<String>, Vec<Hash>) = chapter_docs
        .into_par_iter()
        .map(|(name, shell)| (name, incremental::hash(shell.as_bytes())))
        .unzip();
    let index = entry_index(&skeleton);
    let pos = names
        .iter()
        .map(|n| index.get(n.as_str()).copied())
        .collect::<Option<Vec<usize>>>()?;
    if names.len() != last.reuse.len() || pos.windows(2).any(|w| w[0] >= w[1]) {
        return None;
    }
    for (k, rec) in last.reuse.iter().enumerate() {
        if let Some(rec) = rec
            && (rec.entry != names[k] || rec.shell != shells[k] || last.epub.is_none())
        {
            return None;
        }
    }
    let chapter_positions: HashSet<usize> = pos.iter().copied().collect();
    // The other entries (package document, navigation, stylesheet, images...) are copied too
    // when their bytes are those the last build wrote.
    let frame: Vec<(String, Hash)> = skeleton
        .par_iter()
        .enumerate()
        .filter(|(idx, _)| !chapter_positions.contains(idx))
        .map(|(_, e)| (e.name.clone(), incremental::hash(&e.data)))
        .collect();
    let mut copy = vec![false; skeleton.len()];
    if let Some(prev) = &last.epub {
        for (k, rec) in last.reuse.iter().enumerate() {
            if rec.is_some() {
                copy[pos[k]] = true;
            }
        }
        let before: HashMap<&str, &str> = last
            .manifest
            .map_or(&[][..], |m| &m.entries[..])
            .iter()
            .map(|(name, hash)| (name.as_str(), hash.as_str()))
            .collect();
        for (name, hash) in &frame {
            if before.get(name.as_str()) == Some(&hash.as_str())
                && let Some(&idx) = index.get(name.as_str())
            {
                copy[idx] = true;
            }
        }
        if (0..skeleton.len()).any(|i| copy[i] && !prev.contains(&skeleton[i].name)) {
            return None;
        }
    }
    drop(index);
    Some(Plan {
        skeleton,
        names,
        shells,
        pos,
        frame,
        copy,
    })
}

/// Where the streaming writer puts each entry.
pub(crate) struct Layout<'a> {
    /// The chapters to package (the others are copied), in reading order.
    pub(crate) todo: &'a [usize],
    /// Each chapter's position among the entries.
    pub(crate) pos: &'a [usize],
    /// Each entry's position, by name.
    pub(crate) index: &'a HashMap<&'a str, usize>,
    /// Every entry, chapter documents empty.
    pub(crate) skeleton: &'a [Entry],
    /// Whether each entry is copied from the previous EPUB (where it has the same name).
    pub(crate) copy: &'a [bool],
}

/// Packages the chapters to do a chunk at a time and writes every entry, new or copied. None
/// when a chapter turns out split for size, which the layout did not foresee.
pub(crate) fn write_streaming(
    output: &Path,
    layout: &Layout<'_>,
    book: &mut Book,
    look: &package::Look,
    bodies: &mut [String],
    previous: &mut Option<PreviousEpub>,
    spare: Option<archive::Spare>,
) -> Result<Option<archive::Finished>> {
    let Layout {
        todo,
        pos,
        index,
        skeleton,
        copy,
    } = *layout;
    let mut writer = match spare {
        Some(spare) => EpubWriter::create_with_spare(output, spare)?,
        None => EpubWriter::create(output)?,
    };
    let mut cursor = 0;
    let mut i = 0;
    while i < todo.len() {
        let mut j = i;
        let mut bytes = 0;
        while let Some(&k) = todo.get(j) {
            let len = bodies.get(k).map_or(0, String::len);
            if j > i && bytes + len > CHUNK_BYTES {
                break;
            }
            bytes += len;
            j += 1;
        }
        let chunk = &todo[i..j];
        {
            let mut slots = package::chapters_mut(&mut book.contents);
            for &k in chunk {
                if let (Some(slot), Some(body)) = (slots.get_mut(k), bodies.get_mut(k)) {
                    slot.body = std::mem::take(body);
                }
            }
        }
        // On a pool thread, so its allocations reuse the memory freed by earlier chunks'
        // bodies (which were allocated by pool threads) rather than growing another arena.
        let docs = rayon::scope(|_| package::chapter_documents(book, look, chunk));
        {
            // Each body is needed only for its own document: free it now.
            let mut slots = package::chapters_mut(&mut book.contents);
            for &k in chunk {
                if let Some(slot) = slots.get_mut(k) {
                    slot.body = String::new();
                }
            }
        }
        // A body split for size adds documents: the frame no longer holds.
        let Some(docs) = docs.filter(|d| d.len() == chunk.len()) else {
            return Ok(None);
        };
        let mut fresh: HashMap<usize, Entry> = HashMap::with_capacity(docs.len());
        for doc in docs {
            match index.get(doc.name.as_str()) {
                Some(&idx) => fresh.insert(idx, doc),
                None => return Ok(None),
            };
        }
        let last = chunk.last().map_or(cursor, |&k| pos[k] + 1);
        write_range(
            &mut writer,
            cursor..last,
            |idx| fresh.get(&idx).unwrap_or(&skeleton[idx]),
            copy,
            previous,
        )?;
        cursor = last;
        i = j;
    }
    write_range(
        &mut writer,
        cursor..skeleton.len(),
        |idx| &skeleton[idx],
        copy,
        previous,
    )?;
    writer.finish_writing().map(Some)
}

/// Writes entries `range` in order: those marked in `copy` copied raw from the previous EPUB
/// (under the same name), the rest compressed in parallel batches.
pub(crate) fn write_range<'a>(
    writer: &mut EpubWriter,
    range: std::ops::Range<usize>,
    entry: impl Fn(usize) -> &'a Entry,
    copy: &[bool],
    previous: &mut Option<PreviousEpub>,
) -> Result<()> {
    let mut batch: Vec<&Entry> = Vec::new();
    for idx in range {
        match (copy.get(idx), previous.as_mut()) {
            (Some(true), Some(prev)) => {
                writer.add_refs(&batch)?;
                batch.clear();
                writer.copy_raw(prev, &entry(idx).name)?;
            }
            _ => batch.push(entry(idx)),
        }
    }
    writer.add_refs(&batch)
}
