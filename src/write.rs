//! The write stage: lays the EPUB's entries out (which are rendered, which are copied from the
//! previous EPUB), then packages the chapter documents a chunk at a time and writes every
//! entry in order, so that the whole book's XHTML and its compressed entries are never held at
//! once.
//!
//! Every build writes this way, with or without a previous EPUB: a chapter's documents (one,
//! or more when it is split for size) are known from its count of pieces before its body is
//! packaged, so the layout always holds.
//!
//! A build for several targets writes all its EPUBs in step, each laid out on its own: a chunk's
//! chapters are rendered once, each target finishes the text (most leave most documents as
//! they are), and each distinct document is compressed once, all in one parallel pass. Writing
//! the outputs one after the other rendered every chapter, and hashed and looked up every
//! compressed document, once per target (issue 17's four targets cost 2.4 times one).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::archive::{self, EpubWriter, PackMemo, PackedEntry, PreviousEpub};
use crate::book;
use crate::book::Target;
use crate::book::{Book, Entry};
use crate::error::{Error, Result};
use crate::incremental::record::Body;
use crate::incremental::{self, Hash};
use crate::inspect::archive::{Held, Holding};
use crate::package::{self, Look};

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
    // Marked once, not looked up in every chapter's range per entry: that was quadratic, and
    // a file of 100 000 empty chapters spent seconds here.
    let mut in_chapter = vec![false; entries.len()];
    for range in &chapters {
        if let Some(marks) = in_chapter.get_mut(range.clone()) {
            marks.fill(true);
        }
    }
    let frame: Vec<(String, Hash)> = entries
        .par_iter()
        .enumerate()
        .filter(|(i, _)| !in_chapter[*i])
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

/// One EPUB the write stage writes: where it goes, its layout, the target its chapter
/// documents are finished for, and the previous EPUB its copied entries come from; with
/// `hold`, the contents of the entries it writes are held ([`Holding`]) and handed back, for
/// `fix` to review the EPUB without inflating it again.
pub(crate) struct Output<'a> {
    pub path: &'a Path,
    pub plan: &'a EntryPlan,
    pub target: Target,
    pub previous: Option<&'a mut PreviousEpub>,
    pub hold: bool,
}

impl Output<'_> {
    /// Whether this output copies chapter `k` from its previous EPUB rather than packaging it.
    fn copies(&self, k: usize) -> bool {
        let plan = self.plan;
        plan.chapters
            .get(k)
            .is_some_and(|r| plan.copy.get(r.start) == Some(&true))
    }
}

/// Writes every output laid out by its plan to its temporary file, all in step: the chapters
/// some output packages are rendered a chunk at a time from `bodies` (each chapter's body, set
/// aside from `book`), once for all outputs; each output's target finishes the text, and each
/// distinct document is compressed once ([`pack_chunk`]). Every output then gets its entries
/// in order, new or copied from its previous EPUB. With `memo`, entries of the frame another
/// output compressed already are not compressed again. Each output's written EPUB, with what
/// it held when asked to ([`Output::hold`]: all but the entries copied from its previous EPUB).
pub(crate) fn write(
    outputs: Vec<Output<'_>>,
    book: &mut Book,
    look: &Look,
    mut bodies: Vec<String>,
    memo: Option<&Arc<PackMemo>>,
) -> Result<Vec<(archive::Finished, Option<Held>)>> {
    let count = outputs.iter().map(|o| o.plan.chapters.len()).max();
    let count = count.unwrap_or(0);
    // For each chapter, the target of each output that packages it.
    let wanted: Vec<Vec<Option<Target>>> = (0..count)
        .map(|k| {
            let target = |o: &Output<'_>| (!o.copies(k)).then_some(o.target);
            outputs.iter().map(target).collect()
        })
        .collect();
    let todo: Vec<usize> = (0..count)
        .filter(|&k| wanted[k].iter().any(Option::is_some))
        .collect();
    let first = outputs
        .first()
        .map_or(PathBuf::new(), |o| o.path.to_path_buf());
    let keep = outputs.iter().position(|o| o.hold);
    let mut writing = outputs
        .into_iter()
        .map(|out| Writing::start(out, memo))
        .collect::<Result<Vec<_>>>()?;
    let mut ready = None;
    for chunk in chunks(&todo, &bodies) {
        // The last chunk is written while this one is rendered and compressed.
        let (written, packed) = rayon::join(
            || write_chunk(&mut writing, ready.take()),
            || {
                let texts = render_chunk(book, look, chunk, &mut bodies);
                pack_chunk(texts, chunk, &wanted, keep)
            },
        );
        written?;
        let mut packed = packed.map_err(|e| Error::io(&first, "cannot write", e))?;
        hold_chunk(&mut writing, &mut packed);
        ready = Some((chunk, packed));
    }
    write_chunk(&mut writing, ready)?;
    writing.into_iter().map(Writing::finish).collect()
}

/// The texts of a packed chunk's documents kept for the output that holds its entries, moved
/// into its [`Holding`].
fn hold_chunk(writing: &mut [Writing<'_>], packed: &mut [Vec<DocVersions>]) {
    let Some(holding) = writing.iter_mut().find_map(|w| w.holding.as_mut()) else {
        return;
    };
    for doc in packed.iter_mut().flatten() {
        if let (Some(text), Some(first)) = (doc.kept.take(), doc.versions.first()) {
            holding.text(first.name(), text);
        }
    }
}

/// A chunk's chapters and their documents as [`pack_chunk`] made them.
type PackedChunk<'a> = (&'a [usize], Vec<Vec<DocVersions>>);

/// Writes a packed chunk (if any) to every output.
fn write_chunk(writing: &mut [Writing<'_>], chunk: Option<PackedChunk<'_>>) -> Result<()> {
    let Some((chunk, packed)) = chunk else {
        return Ok(());
    };
    for (o, w) in writing.iter_mut().enumerate() {
        w.write_chunk(o, chunk, &packed)?;
    }
    Ok(())
}

/// An output being written: its writer, the next of its plan's entries to write, and what it
/// holds of them when asked to.
struct Writing<'a> {
    out: Output<'a>,
    writer: EpubWriter,
    cursor: usize,
    holding: Option<Holding>,
}

impl<'a> Writing<'a> {
    /// Starts writing `out`, sharing the frame's compressed entries through `memo`.
    fn start(out: Output<'a>, memo: Option<&Arc<PackMemo>>) -> Result<Writing<'a>> {
        let mut writer = EpubWriter::create(out.path)?;
        if let Some(memo) = memo {
            writer.share(Arc::clone(memo));
        }
        let holding = out.hold.then(Holding::default);
        Ok(Writing {
            out,
            writer,
            cursor: 0,
            holding,
        })
    }

    /// Writes the entries up to the end of the last chapter of `chunk`: the documents of its
    /// chapters this output (the `o`th) packages from `packed` (by chapter of the chunk), the
    /// rest as the plan says.
    fn write_chunk(
        &mut self,
        o: usize,
        chunk: &[usize],
        packed: &[Vec<DocVersions>],
    ) -> Result<()> {
        let plan = self.out.plan;
        let mut fresh: HashMap<usize, &PackedEntry> = HashMap::new();
        for (&k, docs) in chunk.iter().zip(packed) {
            if self.out.copies(k) {
                continue;
            }
            let range = match plan.chapters.get(k) {
                Some(range) if range.len() == docs.len() => range.clone(),
                _ => return Err(layout_mismatch(self.out.path)),
            };
            for (at, doc) in range.zip(docs) {
                match doc.taken_by(o) {
                    Some(entry) if entry.name() == plan.entries[at].name => fresh.insert(at, entry),
                    _ => return Err(layout_mismatch(self.out.path)),
                };
            }
        }
        let last = chunk.last().and_then(|&k| plan.chapters.get(k));
        let end = last.map_or(self.cursor, |r| r.end);
        let next = |i: usize| match fresh.get(&i) {
            Some(p) => Next::Packed(p),
            None => Next::Entry(&plan.entries[i]),
        };
        let range = self.cursor..end;
        write_range(
            &mut self.writer,
            range,
            next,
            &plan.copy,
            self.out.previous.as_deref_mut(),
            self.holding.as_mut(),
        )?;
        self.cursor = end;
        Ok(())
    }

    /// Writes the entries after the last chapter, then the directory.
    fn finish(mut self) -> Result<(archive::Finished, Option<Held>)> {
        let plan = self.out.plan;
        let rest = self.cursor..plan.entries.len();
        let next = |i: usize| Next::Entry(&plan.entries[i]);
        let (copy, previous) = (&plan.copy, self.out.previous);
        write_range(
            &mut self.writer,
            rest,
            next,
            copy,
            previous,
            self.holding.as_mut(),
        )?;
        let finished = self.writer.finish_writing()?;
        Ok((finished, self.holding.map(Holding::finish)))
    }
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

/// The documents of the chapters of `chunk` (name and XHTML, by chapter), as the plain EPUB
/// has them: their bodies go back into the book to be rendered, and are freed right after.
fn render_chunk(
    book: &mut Book,
    look: &Look,
    chunk: &[usize],
    bodies: &mut [String],
) -> Vec<Vec<Xhtml>> {
    let mut slots = book::chapters_mut(&mut book.contents);
    for &k in chunk {
        if let (Some(slot), Some(body)) = (slots.get_mut(k), bodies.get_mut(k)) {
            slot.body = std::mem::take(body);
        }
    }
    drop(slots);
    // On a pool thread, so its allocations reuse the memory freed by earlier chunks' bodies
    // (which were allocated by pool threads) rather than growing another arena.
    let texts = rayon::scope(|_| package::chapter_texts(book, look, chunk));
    let mut slots = book::chapters_mut(&mut book.contents);
    for &k in chunk {
        if let Some(slot) = slots.get_mut(k) {
            slot.body = String::new();
        }
    }
    texts
}

/// A document's name in the container and its XHTML.
type Xhtml = (String, String);

/// One chapter document as the outputs take it: its distinct versions, compressed, and which
/// version each output takes (None: that output copies the chapter); and the text of the
/// version the output that holds its entries takes, if any.
struct DocVersions {
    versions: Vec<PackedEntry>,
    taken: Vec<Option<usize>>,
    kept: Option<String>,
}

impl DocVersions {
    fn taken_by(&self, output: usize) -> Option<&PackedEntry> {
        let v = (*self.taken.get(output)?)?;
        self.versions.get(v)
    }
}

/// Every document of the chunk (`texts`, by chapter of `chunk`) finished for the target of
/// each output that packages its chapter (`wanted`, by chapter) and compressed, in parallel: a document that a target
/// leaves as it is is the same version for every such output, compressed once. The text
/// output `keep` takes is kept.
fn pack_chunk(
    texts: Vec<Vec<Xhtml>>,
    chunk: &[usize],
    wanted: &[Vec<Option<Target>>],
    keep: Option<usize>,
) -> std::io::Result<Vec<Vec<DocVersions>>> {
    let wanted = chunk
        .iter()
        .map(|&k| wanted.get(k).map_or(&[][..], Vec::as_slice));
    let sizes: Vec<usize> = texts.iter().map(Vec::len).collect();
    let docs: Vec<(Xhtml, &[Option<Target>])> = texts
        .into_iter()
        .zip(wanted)
        .flat_map(|(docs, targets)| docs.into_iter().map(move |d| (d, targets)))
        .collect();
    let mut packed = docs
        .into_par_iter()
        .map(|(doc, targets)| versions(doc, targets, keep))
        .collect::<std::io::Result<Vec<_>>>()?
        .into_iter();
    Ok(sizes
        .into_iter()
        .map(|n| packed.by_ref().take(n).collect())
        .collect())
}

/// The versions of document `name` with XHTML `text` that `targets` (one per output; None
/// for an output that does not take it) want, compressed; the text output `keep` takes kept.
fn versions(
    (name, text): (String, String),
    targets: &[Option<Target>],
    keep: Option<usize>,
) -> std::io::Result<DocVersions> {
    let finished: Vec<Option<Option<String>>> = targets
        .iter()
        .map(|t| t.map(|t| t.finish_text(&name, &text)))
        .collect();
    let mut kept = None;
    // Compressed; the text kept when output `keeper` is the one that holds, else dropped.
    let mut pack = |text: String, keeper: Option<usize>| {
        let packed = PackedEntry::deflated(name.clone(), text.as_bytes());
        if keeper.is_some() && keeper == keep {
            kept = Some(text);
        }
        packed
    };
    let mut versions = Vec::new();
    let plain = finished.iter().any(|f| matches!(f, Some(None)));
    if plain {
        let keeper = keep.filter(|&k| matches!(finished.get(k), Some(Some(None))));
        versions.push(pack(text, keeper)?);
    }
    let mut taken = Vec::with_capacity(finished.len());
    for (o, f) in finished.into_iter().enumerate() {
        taken.push(match f {
            None => None,
            Some(None) => Some(0),
            Some(Some(own)) => {
                versions.push(pack(own, Some(o))?);
                Some(versions.len() - 1)
            }
        });
    }
    Ok(DocVersions {
        versions,
        taken,
        kept,
    })
}

fn layout_mismatch(output: &Path) -> Error {
    Error::io(
        output,
        "cannot write",
        std::io::Error::other("a chapter's documents are not those the layout planned"),
    )
}

/// The next entry to write: to be compressed, or compressed already.
enum Next<'a> {
    Entry(&'a Entry),
    Packed(&'a PackedEntry),
}

/// Writes entries `range` in order: those marked in `copy` copied raw from the previous EPUB
/// (under the same name), those compressed already as they are, the rest compressed in
/// parallel batches (and held by `holding`, when there is one).
fn write_range<'a>(
    writer: &mut EpubWriter,
    range: Range<usize>,
    next: impl Fn(usize) -> Next<'a>,
    copy: &[bool],
    mut previous: Option<&mut PreviousEpub>,
    mut holding: Option<&mut Holding>,
) -> Result<()> {
    let mut batch: Vec<&Entry> = Vec::new();
    for i in range {
        let entry = next(i);
        match (copy.get(i), previous.as_deref_mut(), entry) {
            (Some(true), Some(prev), entry) => {
                writer.add_refs(&batch)?;
                batch.clear();
                let name = match entry {
                    Next::Entry(e) => e.name.as_str(),
                    Next::Packed(p) => p.name(),
                };
                writer.copy_raw(prev, name)?;
            }
            (_, _, Next::Packed(p)) => {
                writer.add_refs(&batch)?;
                batch.clear();
                writer.add_packed(p)?;
            }
            (_, _, Next::Entry(e)) => {
                if let Some(holding) = holding.as_deref_mut() {
                    holding.bytes(&e.name, &e.data);
                }
                batch.push(e);
            }
        }
    }
    writer.add_refs(&batch)
}
