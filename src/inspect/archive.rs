//! An EPUB on the disk that several readers go through in a row (`fix` checks its input with
//! our rules, the stores' limits and the text count, and unpacks it): [`Archive::inflate`]
//! inflates every entry once, in parallel, and each [`Container`] opened from it then reads an
//! entry from memory instead of inflating it again. What was not inflated ahead (an entry past
//! the caps, one that could not be read) is read from the zip as before, with the reader's own
//! cap, so that the answers and the errors are the same with or without it.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use zip::{CompressionMethod, ZipArchive};

use super::container::{Container, Entry, Index, Inflated};
use super::read::{Epub, NcxTargets};
use super::{InspectError, MAX_ENTRIES, MAX_XML_ENTRY_BYTES, READ_BUFFER};

/// Most bytes held inflated ahead for one EPUB (over all its entries), and the largest EPUB
/// file read into memory to inflate them: past these, entries are inflated when read.
const MAX_INFLATED_BYTES: u64 = 512 * 1024 * 1024;

/// The EPUB file at a path, with the entries inflated ahead when made by [`Archive::inflate`],
/// and its package once parsed ([`Archive::package`]).
#[derive(Debug, Clone)]
pub(crate) struct Archive {
    path: PathBuf,
    inflated: Option<Arc<Inflated>>,
    package: Arc<Mutex<Option<Arc<Epub>>>>,
    /// The zip's listing, once a container has made it ([`Archive::container_of`]).
    index: Arc<OnceLock<Index>>,
    /// The NCX's targets, once a reader that parsed it kept them ([`Archive::offer_ncx`]).
    ncx: Arc<OnceLock<NcxTargets>>,
}

impl Archive {
    /// The EPUB at `path`, each entry inflated when it is read (what a single reader needs).
    pub(crate) fn lazy(path: &Path) -> Archive {
        Archive {
            path: path.to_path_buf(),
            inflated: None,
            package: Arc::default(),
            index: Arc::default(),
            ncx: Arc::default(),
        }
    }

    /// The EPUB at `path` with every entry of at most [`MAX_XML_ENTRY_BYTES`] inflated now, in
    /// parallel, up to [`MAX_INFLATED_BYTES`] in all. Never fails: a file that cannot be read
    /// as a zip is left to the readers, which report it.
    pub(crate) fn inflate(path: &Path) -> Archive {
        Archive {
            path: path.to_path_buf(),
            inflated: inflate_all(path).map(Arc::new),
            package: Arc::default(),
            index: Arc::default(),
            ncx: Arc::default(),
        }
    }

    /// The EPUB at `path` just written, its entries' contents those `held` took as they were
    /// written ([`Holding`]): its zip (the central directory, the container rules) is read
    /// from the file, each entry held from memory, any other from the file.
    pub(crate) fn with_entries(path: &Path, held: Held) -> Archive {
        Archive {
            path: path.to_path_buf(),
            inflated: Some(held.0),
            package: Arc::default(),
            index: Arc::default(),
            ncx: Arc::default(),
        }
    }

    /// The entry `name` as inflated ahead, lent to whoever holds the result for as long as
    /// it does ([`crate::fs::hold`]) rather than copied; None when it was not inflated ahead.
    pub(crate) fn shared(&self, name: &str) -> Option<crate::fs::Held> {
        let store: Arc<dyn crate::fs::Shared> = self.inflated.clone()?;
        crate::fs::Held::shared(store, name)
    }

    /// The path of the EPUB.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// A buffered reader of the EPUB file.
    pub(crate) fn reader(&self) -> std::io::Result<BufReader<File>> {
        Ok(BufReader::with_capacity(
            READ_BUFFER,
            File::open(&self.path)?,
        ))
    }

    /// The zip read from `reader` (the EPUB's file), its entries read from what was inflated
    /// ahead when they were; listed once for all the containers opened on it (the first
    /// lists it, the others share its [`Index`]). A zip that cannot be listed is not kept:
    /// each reader meets the same error.
    pub(crate) fn container_of<R: Read + std::io::Seek>(
        &self,
        reader: R,
    ) -> Result<Container<R>, InspectError> {
        let mut container = match self.index.get() {
            Some(index) => Container::with_index(reader, index)?,
            None => {
                let container = Container::new(reader)?;
                // A reader that raced this one may have set it first: the same listing.
                let _ = self.index.set(container.index());
                container
            }
        };
        container.inflated = self.inflated.clone();
        Ok(container)
    }

    /// The EPUB parsed as [`crate::inspect::open`] parses it (package, TOC, entries), once for
    /// all its readers: the first parses it while the others wait (the parse uses no thread
    /// pool, so waiting holds up no work it needs). A failure is not kept: each reader parses
    /// again and meets the same error, as it did when each parsed the EPUB itself.
    pub(crate) fn package(&self) -> Result<Arc<Epub>, InspectError> {
        let mut parsed = match self.package.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(epub) = parsed.as_ref() {
            return Ok(Arc::clone(epub));
        }
        let epub = Arc::new(super::read::read_container(self.container()?)?);
        *parsed = Some(Arc::clone(&epub));
        Ok(epub)
    }

    /// Keeps `epub` as [`Archive::package`]'s answer unless one is kept already: made by a
    /// reader that parsed the package document itself ([`super::read::epub_of`]), so that it
    /// is not parsed again.
    pub(crate) fn offer_package(&self, epub: impl FnOnce() -> Epub) {
        let mut parsed = match self.package.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        if parsed.is_none() {
            *parsed = Some(Arc::new(epub()));
        }
    }

    /// Keeps the targets of the NCX a reader parsed (`verify`'s NCX rules) for
    /// [`Archive::ncx_targets`]; the first kept stays.
    pub(crate) fn offer_ncx(&self, ncx: NcxTargets) {
        let _ = self.ncx.set(ncx);
    }

    /// The targets of the NCX `href` ([`super::read::ncx_targets`]) when a reader kept them
    /// ([`Archive::offer_ncx`]) for exactly `text`: what parsing `text` again would give.
    pub(crate) fn ncx_targets(&self, href: &str, text: &str) -> Option<Vec<String>> {
        let kept = self.ncx.get()?;
        (kept.href == href && kept.text == text).then(|| kept.targets.clone())
    }

    /// The entry `name` as [`Container::lend`] reads it: lent when it was inflated ahead
    /// (no zip opened then), else read from the zip.
    pub(crate) fn lend(&self, name: &str, cap: u64) -> Result<Cow<'_, Entry>, InspectError> {
        match super::container::held_entry(self.inflated.as_deref(), name, cap) {
            Some(lent) => lent,
            None => self.container()?.read_entry(name, cap).map(Cow::Owned),
        }
    }

    /// The EPUB's zip, as [`Archive::container_of`] its file; a file that cannot be opened is
    /// an [`InspectError::Io`] naming it.
    pub(crate) fn container(&self) -> Result<Container<BufReader<File>>, InspectError> {
        let reader = self.reader().map_err(|source| InspectError::Io {
            path: self.path.display().to_string(),
            source,
        })?;
        self.container_of(reader)
    }
}

/// The contents of an EPUB's entries taken as they are written, for a review of the EPUB
/// without inflating it again ([`Archive::with_entries`]); under the caps of
/// [`Archive::inflate`]: an entry past [`MAX_XML_ENTRY_BYTES`], or past
/// [`MAX_INFLATED_BYTES`] in all, is not held (its readers read it from the file).
#[derive(Default)]
pub(crate) struct Holding {
    entries: Inflated,
    bytes: u64,
}

impl Holding {
    /// Holds the entry `name`, text already known to be UTF-8.
    pub(crate) fn text(&mut self, name: &str, text: String) {
        if self.fits(text.len()) {
            self.entries.insert(name.to_string(), Entry::Text(text));
        }
    }

    /// Holds the entry `name`, checked for UTF-8 as [`Archive::inflate`] checks it.
    pub(crate) fn bytes(&mut self, name: &str, bytes: &[u8]) {
        if self.fits(bytes.len()) {
            self.entries.insert(name.to_string(), checked(bytes.into()));
        }
    }

    /// Whether `len` more bytes may be held; counted when so.
    fn fits(&mut self, len: usize) -> bool {
        let len = len as u64;
        let fits = len <= MAX_XML_ENTRY_BYTES && self.bytes + len <= MAX_INFLATED_BYTES;
        if fits {
            self.bytes += len;
        }
        fits
    }

    /// What was held, for [`Archive::with_entries`].
    pub(crate) fn finish(self) -> Held {
        Held(Arc::new(self.entries))
    }
}

/// The entries a [`Holding`] took.
#[derive(Clone)]
pub(crate) struct Held(Arc<Inflated>);

impl Held {
    /// The entries held, by name.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> &Inflated {
        &self.0
    }
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Held({} entries)", self.0.len())
    }
}

/// Every entry of the zip at `path` of at most [`MAX_XML_ENTRY_BYTES`] inflated, the first
/// [`MAX_INFLATED_BYTES`] of them in all; None when the file is larger than that or is no zip.
fn inflate_all(path: &Path) -> Option<Inflated> {
    use rayon::prelude::*;
    let size = std::fs::metadata(path).ok()?.len();
    if size > MAX_INFLATED_BYTES {
        return None;
    }
    let bytes = read_in_halves(path, usize::try_from(size).ok()?)?;
    let zip = ZipArchive::new(Cursor::new(bytes.as_slice())).ok()?;
    if zip.len() > MAX_ENTRIES {
        return None;
    }
    let mut names: Vec<String> = (zip.file_names().filter_map(Result::ok))
        .filter(|n| !n.ends_with('/'))
        .map(|n| n.into_owned())
        .collect();
    names.sort_unstable();
    names.dedup();
    let budget = AtomicU64::new(MAX_INFLATED_BYTES);
    let inflated = names
        .par_iter()
        .map_init(
            || (zip.clone(), libdeflater::Decompressor::new(), Vec::new()),
            |(zip, inflater, scratch), name| {
                let bytes = inflate_one(zip, &bytes, name, inflater, scratch)?;
                let len = bytes.len() as u64;
                let left = budget
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(len));
                left.ok().map(|_| (name.clone(), bytes))
            },
        )
        .flatten()
        .collect();
    Some(inflated)
}

/// The `size` bytes of the file at `path`, its two halves read side by side (into memory the
/// reading is the first to touch, which the kernel hands out page by page: two threads take
/// half the time one does). None when it cannot be read whole, or has grown or shrunk since.
fn read_in_halves(path: &Path, size: usize) -> Option<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    let mut bytes = vec![0; size];
    let (first, second) = bytes.split_at_mut(size / 2);
    // Each half read through a handle of its own; the second, at the end, finds nothing more
    // (the file is as long as it was said to be).
    let read = |part: &mut [u8], at: usize, last: bool| -> Option<()> {
        let mut file = File::open(path).ok()?;
        file.seek(SeekFrom::Start(at as u64)).ok()?;
        file.read_exact(part).ok()?;
        (!last || file.read(&mut [0]).ok()? == 0).then_some(())
    };
    let (a, b) = rayon::join(|| read(first, 0, false), || read(second, size / 2, true));
    a.and(b).map(|()| bytes)
}

/// One entry of the zip (whose file is `file`) inflated, None when it cannot be read or
/// inflates past [`MAX_XML_ENTRY_BYTES`]: whole when it can be ([`inflate_whole`], into the
/// thread's `scratch`), else streamed by the zip reader. Its content is checked for UTF-8 once
/// here, so that its readers take it as text unchecked.
fn inflate_one(
    zip: &mut ZipArchive<Cursor<&[u8]>>,
    file: &[u8],
    name: &str,
    inflater: &mut libdeflater::Decompressor,
    scratch: &mut Vec<u8>,
) -> Option<Entry> {
    match inflate_whole(zip, file, name, inflater, scratch) {
        Some(bytes) => Some(checked(bytes)),
        None => Some(checked(inflate_streamed(zip, name)?.into())),
    }
}

/// An entry's content as text when it is UTF-8, else as bytes. The check is SIMD's (several
/// times faster than `String::from_utf8`'s on Chinese text), so the text is copied out rather
/// than checked again by `String::from_utf8`.
fn checked(bytes: std::borrow::Cow<'_, [u8]>) -> Entry {
    match simdutf8::basic::from_utf8(&bytes) {
        Ok(text) => Entry::Text(text.to_owned()),
        Err(_) => Entry::Bytes(bytes.into_owned()),
    }
}

/// The entry `name` read by the zip reader (as a [`Container`] reads it), None when it cannot
/// be read or inflates past [`MAX_XML_ENTRY_BYTES`] (whatever size it declares).
fn inflate_streamed(zip: &mut ZipArchive<Cursor<&[u8]>>, name: &str) -> Option<Vec<u8>> {
    super::container::inflate(zip, name, MAX_XML_ENTRY_BYTES).ok()
}

/// The entry `name` taken whole from the zip's `file`: stored, borrowed; deflated, inflated by
/// libdeflate into the first bytes of `scratch`, as many as the entry declares (several times
/// faster than the zip reader's stream; `scratch` is kept from entry to entry, so that it is
/// not zeroed for each). Its CRC-32 is checked. None whenever anything is off (encrypted,
/// another method, a declared size past [`MAX_XML_ENTRY_BYTES`], a stream that does not fill
/// that size exactly or does not end, a wrong CRC): the zip reader then reads it, so that
/// what is refused and why is as it was.
fn inflate_whole<'a>(
    zip: &mut ZipArchive<Cursor<&[u8]>>,
    file: &'a [u8],
    name: &str,
    inflater: &mut libdeflater::Decompressor,
    scratch: &'a mut Vec<u8>,
) -> Option<Cow<'a, [u8]>> {
    let index = zip.index_for_name(name)?;
    let entry = zip.by_index_raw(index).ok()?;
    if entry.encrypted() || entry.size() > MAX_XML_ENTRY_BYTES {
        return None;
    }
    let start = usize::try_from(entry.data_start()?).ok()?;
    let len = usize::try_from(entry.compressed_size()).ok()?;
    let size = usize::try_from(entry.size()).ok()?;
    let (method, crc) = (entry.compression(), entry.crc32());
    let raw = file.get(start..start.checked_add(len)?)?;
    let bytes: &[u8] = match method {
        CompressionMethod::Stored if raw.len() == size => raw,
        CompressionMethod::Deflated => {
            if scratch.len() < size {
                scratch.resize(size, 0);
            }
            let out = &mut scratch[..size];
            let n = inflater.deflate_decompress(raw, out).ok()?;
            (n == size).then_some(&*out)?
        }
        _ => return None,
    };
    (crc32fast::hash(bytes) == crc).then_some(Cow::Borrowed(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::TestBook;

    #[test]
    fn an_inflated_archive_reads_what_the_zip_holds_and_the_caps_still_hold() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.epub");
        let book = TestBook::minimal_epub3();
        std::fs::write(&path, book.to_zip()).unwrap();
        let inflated = Archive::inflate(&path);
        let held = inflated.inflated.as_ref().expect("inflated ahead");
        assert_eq!(held.len(), book.entries.len());
        assert!(matches!(held.get("EPUB/package.opf"), Some(Entry::Text(_))));
        let (mut ahead, mut lazy) = (
            inflated.container().unwrap(),
            Archive::lazy(&path).container().unwrap(),
        );
        for entry in &book.entries {
            let name = entry.name.as_str();
            assert_eq!(ahead.read_capped(name, 1 << 20).unwrap(), entry.data);
            assert_eq!(lazy.read_capped(name, 1 << 20).unwrap(), entry.data);
            // A cap smaller than the entry refuses it, from memory as from the zip.
            let small = entry.data.len() as u64 - 1;
            let refused = ahead.read_capped(name, small);
            assert!(
                matches!(refused, Err(InspectError::EntryTooLarge { .. })),
                "{name}"
            );
        }
        assert!(matches!(
            ahead.read_capped("EPUB/none.xhtml", 1 << 20),
            Err(InspectError::MissingEntry { .. })
        ));
    }

    /// The zip of `book` with `EPUB/b.css` renamed `EPUB/a.css` in place (local and central
    /// headers): a zip naming an entry twice.
    fn with_a_duplicate_name(book: &TestBook) -> Vec<u8> {
        let mut bytes = book.to_zip();
        let (from, to) = (b"EPUB/b.css", b"EPUB/a.css");
        let mut renamed = 0;
        for i in 0..bytes.len() - from.len() {
            if &bytes[i..i + from.len()] == from {
                bytes[i..i + from.len()].copy_from_slice(to);
                renamed += 1;
            }
        }
        assert_eq!(renamed, 2);
        bytes
    }

    #[test]
    fn the_zip_is_listed_once_for_every_container_and_as_a_fresh_listing_says() {
        let dir = tempfile::tempdir().unwrap();
        let book = TestBook::minimal_epub3()
            .add("EPUB/a.css", b"p{}")
            .add("EPUB/b.css", b"h1{}");
        for (name, bytes) in [
            ("plain.epub", book.to_zip()),
            ("dup.epub", with_a_duplicate_name(&book)),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let fresh = Container::new(Cursor::new(bytes.as_slice())).unwrap();
            for archive in [Archive::lazy(&path), Archive::inflate(&path)] {
                let (first, mut second) =
                    (archive.container().unwrap(), archive.container().unwrap());
                assert!(Arc::ptr_eq(&first.entries, &second.entries), "{name}");
                for c in [&first, &second] {
                    assert_eq!(*c.entries, *fresh.entries, "{name}");
                    assert_eq!(*c.duplicates, *fresh.duplicates, "{name}");
                    assert_eq!(c.has_duplicates, fresh.has_duplicates, "{name}");
                    let header = c.first_header.as_ref().map(|h| (h.name.as_str(), h.method));
                    let want = fresh
                        .first_header
                        .as_ref()
                        .map(|h| (h.name.as_str(), h.method));
                    assert_eq!(header, want, "{name}");
                    assert!(c.exists("EPUB/a.css") && !c.exists("EPUB/none.css"));
                }
                // The second reads entries through its own zip reader (or what was held).
                assert_eq!(
                    second.read_capped("mimetype", 64).unwrap(),
                    b"application/epub+zip"
                );
            }
            assert_eq!(fresh.has_duplicates, name == "dup.epub");
            assert_eq!(fresh.duplicates.len(), usize::from(name == "dup.epub"));
        }
        // A file that is no zip is listed by no one: each container meets the error.
        let path = dir.path().join("no.epub");
        std::fs::write(&path, b"not a zip").unwrap();
        let archive = Archive::lazy(&path);
        assert!(archive.container().is_err() && archive.container().is_err());
        std::fs::write(&path, book.to_zip()).unwrap();
        assert!(archive.container().is_ok());
    }

    #[test]
    fn the_package_is_parsed_once_for_every_reader_and_a_failure_each_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.epub");
        std::fs::write(&path, TestBook::minimal_epub3().to_zip()).unwrap();
        let archive = Archive::inflate(&path);
        let first = archive.package().unwrap();
        let again = archive.clone().package().unwrap();
        assert!(Arc::ptr_eq(&first, &again), "parsed again");
        let opened = crate::inspect::open(&path).unwrap();
        assert_eq!(format!("{opened:?}"), format!("{first:?}"));
        let broken = TestBook::minimal_epub3().edit("EPUB/package.opf", "</package>", "");
        std::fs::write(&path, broken.to_zip()).unwrap();
        let archive = Archive::inflate(&path);
        let message = |a: &Archive| a.package().unwrap_err().to_string();
        let expected = crate::inspect::open(&path).unwrap_err().to_string();
        assert_eq!(message(&archive), expected);
        assert_eq!(message(&archive), expected);
    }

    /// Where the central directory's header of entry `name` starts in `zip`.
    fn central_header(zip: &[u8], name: &str) -> usize {
        use crate::archive::format::{CENTRAL_HEADER, central, u16_at, u32_at};
        (0..zip.len())
            .find(|&at| {
                let len = u16_at(zip, at + central::NAME_LEN).map_or(0, usize::from);
                u32_at(zip, at) == Some(CENTRAL_HEADER)
                    && zip.get(at + central::LEN..at + central::LEN + len) == Some(name.as_bytes())
            })
            .expect("the entry's central header")
    }

    /// `zip` with the central directory's field at `field` of entry `name` made `f` of it.
    fn with_field(mut zip: Vec<u8>, name: &str, field: usize, f: impl Fn(u32) -> u32) -> Vec<u8> {
        let at = central_header(&zip, name) + field;
        let old = crate::archive::format::u32_at(&zip, at).unwrap();
        zip[at..at + 4].copy_from_slice(&f(old).to_le_bytes());
        zip
    }

    /// What one way of reading an entry read.
    type Got = Option<Vec<u8>>;

    /// Every entry of `zip` taken whole, and inflated as [`inflate_all`] does (whole, else
    /// streamed) and streamed only: the last two must agree. The scratch buffer starts larger
    /// than any entry and full of other bytes, as one kept from entry to entry is.
    fn both_ways(zip: &[u8]) -> Vec<(String, Got, Got, Got)> {
        let mut archive = ZipArchive::new(Cursor::new(zip)).unwrap();
        let mut inflater = libdeflater::Decompressor::new();
        let mut scratch = vec![0xA5; 1 << 20];
        let names: Vec<String> = (archive.file_names().filter_map(Result::ok))
            .map(|n| n.into_owned())
            .collect();
        names
            .into_iter()
            .map(|name| {
                let whole = inflate_whole(&mut archive, zip, &name, &mut inflater, &mut scratch)
                    .map(Cow::into_owned);
                let one = inflate_one(&mut archive, zip, &name, &mut inflater, &mut scratch);
                let streamed = inflate_streamed(&mut archive, &name);
                (name, whole, one.map(Entry::into_bytes), streamed)
            })
            .collect()
    }

    #[test]
    fn a_file_read_in_halves_is_the_file_and_one_of_another_length_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        for len in [0, 1, 2, 7, 4096, 100_001] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(
                read_in_halves(&path, len).as_deref(),
                Some(&bytes[..]),
                "{len}"
            );
            assert_eq!(read_in_halves(&path, len + 1), None, "{len} + 1");
            if len > 0 {
                assert_eq!(read_in_halves(&path, len - 1), None, "{len} - 1");
            }
        }
    }

    #[test]
    fn an_entry_taken_whole_is_what_the_zip_reader_reads_and_anything_off_is_left_to_it() {
        use crate::archive::format::{central, local, u16_at, u32_at};
        const CHAPTER: &str = "EPUB/text/chapter_1.xhtml";
        let zip = TestBook::minimal_epub3().to_zip();
        for (name, whole, one, streamed) in both_ways(&zip) {
            assert!(whole.is_some(), "{name} not taken whole");
            assert_eq!(one, streamed, "{name}");
            assert_eq!(whole, streamed, "{name}");
        }
        // The chapter's compressed bytes, some of them flipped.
        let header = central_header(&zip, CHAPTER);
        let offset = u32_at(&zip, header + central::OFFSET).unwrap() as usize;
        let skip = |field| usize::from(u16_at(&zip, offset + field).unwrap());
        let data = offset + local::LEN + skip(local::NAME_LEN) + skip(local::EXTRA_LEN);
        let mut corrupt = zip.clone();
        for b in &mut corrupt[data + 2..data + 12] {
            *b ^= 0x5a;
        }
        let broken = [
            ("a corrupt stream", corrupt),
            (
                "a bad CRC",
                with_field(zip.clone(), CHAPTER, central::CRC, |c| !c),
            ),
            (
                "a size too small",
                with_field(zip.clone(), CHAPTER, central::SIZE, |n| n - 7),
            ),
            (
                "a size too large",
                with_field(zip.clone(), CHAPTER, central::SIZE, |n| n + 7),
            ),
        ];
        for (what, zip) in broken {
            for (name, whole, one, streamed) in both_ways(&zip) {
                if name == CHAPTER {
                    assert_eq!(whole, None, "{what}: taken whole");
                }
                assert_eq!(one, streamed, "{what}: {name}");
            }
        }
    }

    #[test]
    fn a_file_that_is_no_zip_inflates_nothing_and_its_readers_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("not.epub");
        std::fs::write(&path, b"not a zip").unwrap();
        let archive = Archive::inflate(&path);
        assert!(archive.inflated.is_none());
        assert!(archive.container().is_err());
        let gone = Archive::inflate(&dir.path().join("missing.epub"));
        assert!(matches!(gone.container(), Err(InspectError::Io { .. })));
    }
}
