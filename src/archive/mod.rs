//! The archive stage: the package's entries in, an EPUB file on disk out.
//!
//! The last stage of the pipeline. `mimetype` is the first entry, stored, with no extra field;
//! every entry gets the same fixed time and permissions so the same entries always give the
//! same bytes. Entries are compressed in parallel, then appended in order. The file is written
//! to a temporary file in the target's folder and renamed over the target only once complete
//! (as zola does), so a failed or interrupted build never leaves a broken EPUB where a good one
//! was.
//!
//! [`EpubWriter`] streams: the build hands it entries batch by batch (each batch compressed in
//! parallel, then appended), and can copy entries' compressed bytes unchanged from the previous
//! EPUB ([`EpubWriter::copy_raw`]) for incremental rebuilds. Because compression is
//! deterministic and every entry's header is fixed, a copied entry is byte-identical to the one
//! a clean build would write.
//!
//! The zip container is written here rather than with the `zip` crate's writer (the crate
//! still reads archives: previous EPUBs and `inspect`). An incremental rebuild copies a few
//! thousand unchanged entries, which sit back to back in the previous EPUB: copied as whole
//! byte ranges (`std::io::copy` between files, which the kernel does on Linux) rather than entry by entry through
//! user space, this takes a rebuild of a 20 MB EPUB from about 40 ms to under 10. Zip64
//! records are written when a book has 65,535 entries or more, or passes 4 GB.

pub(crate) mod format;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use self::format::{
    CENTRAL_HEADER, DEFLATED, END_OF_DIRECTORY, LOCAL_HEADER, STORED, VERSION_DEFLATE,
    VERSION_ZIP64, ZIP64_END_OF_DIRECTORY, ZIP64_EXTRA, ZIP64_LOCATOR, central, end, local, u16_at,
    u32_at, u64_at, zip64_end, zip64_extra, zip64_locator,
};
use crate::book::Entry;
use crate::error::{Error, Result};
use crate::interrupt::{Replaced, TempFile};

/// The deflate level, on libdeflate's scale (1-12). Deflating the 500-chapter benchmark
/// slice's entries on one core (bench/run.sh) takes about 40 ms at level 1, 60 ms at level 2
/// and 95 ms with zlib's level 5 (what this writer used before); the entries come out 0.4%
/// larger than zlib's at level 1 and 1.6% smaller at level 2 (on the sample book's short
/// chapters: 1.9% larger, 1.2% smaller). Chinese text is close to incompressible beyond what
/// the fastest level finds, so the speed is worth more than the last few percent of size.
pub const LEVEL: u32 = 1;

/// Version of the bytes this writer produces for given entries; part of the build cache's
/// key, so that entries written by an older writer are never mixed into a new EPUB.
pub const FORMAT: u32 = 3;

/// MS-DOS time and date of every entry: 1980-01-01 00:00:00, the earliest a zip can hold.
const DOS_TIME: u16 = 0;
const DOS_DATE: u16 = (1 << 5) | 1;
/// General purpose flag: the name is UTF-8.
const UTF8_NAME: u16 = 1 << 11;
/// "Made by" Unix, zip 3.0; external attributes: a regular file, rw-r--r--.
const MADE_BY: u16 = (3 << 8) | 30;
const EXTERNAL_ATTRIBUTES: u32 = 0o100644 << 16;

/// An entry ready to append: compressed (or stored) with its checksum.
struct Packed<'a> {
    name: &'a str,
    method: u16,
    crc: u32,
    size: u64,
    data: Cow<'a, [u8]>,
}

fn pack(entry: &Entry) -> std::io::Result<Packed<'_>> {
    pack_bytes(&entry.name, &entry.data, entry.compress)
}

/// [`pack`] of the entry `name` holding `data`.
fn pack_bytes<'a>(name: &'a str, data: &'a [u8], compress: bool) -> std::io::Result<Packed<'a>> {
    if data.len() as u64 >= u64::from(u32::MAX) {
        return Err(std::io::Error::other(format!(
            "{name} is 4 GB or more, which an EPUB cannot hold"
        )));
    }
    let crc = crc32fast::hash(data);
    let size = data.len() as u64;
    let (method, data) = if compress {
        (DEFLATED, Cow::Owned(deflate(data)?))
    } else {
        (STORED, Cow::Borrowed(data))
    };
    Ok(Packed {
        name,
        method,
        crc,
        size,
        data,
    })
}

thread_local! {
    /// One compressor per thread: its tables are allocated once, not once per entry.
    static COMPRESSOR: std::cell::RefCell<libdeflater::Compressor> = std::cell::RefCell::new(
        libdeflater::Compressor::new(
            libdeflater::CompressionLvl::new(LEVEL as i32).unwrap_or_default(),
        ),
    );
}

/// Raw deflate of `data` (no zlib or gzip wrapper, as zip stores it).
fn deflate(data: &[u8]) -> std::io::Result<Vec<u8>> {
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        let mut out = vec![0; c.deflate_compress_bound(data.len())];
        let n = c
            .deflate_compress(data, &mut out)
            .map_err(|e| std::io::Error::other(format!("deflate failed: {e:?}")))?;
        out.truncate(n);
        Ok(out)
    })
}

fn pack_all<'a>(
    entries: &[&'a Entry],
    memo: Option<&PackMemo>,
) -> std::io::Result<Vec<Packed<'a>>> {
    match memo {
        None => entries.par_iter().map(|e| pack(e)).collect(),
        Some(memo) => entries.par_iter().map(|e| memo.pack(e)).collect(),
    }
}

/// An entry compressed ahead of its writing, owned: the write stage compresses a chunk's
/// chapter documents once, in parallel, for every output that takes them
/// ([`EpubWriter::add_packed`]).
pub struct PackedEntry {
    name: String,
    method: u16,
    crc: u32,
    size: u64,
    data: Vec<u8>,
}

impl PackedEntry {
    /// The entry `name` holding `data`, compressed, from a borrow: the caller keeps `data`.
    pub fn deflated(name: String, data: &[u8]) -> std::io::Result<PackedEntry> {
        let packed = pack_bytes(&name, data, true)?;
        let (method, crc, size) = (packed.method, packed.crc, packed.size);
        let data = packed.data.into_owned();
        Ok(PackedEntry {
            name,
            method,
            crc,
            size,
            data,
        })
    }

    /// The entry's name in the container.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn as_packed(&self) -> Packed<'_> {
        Packed {
            name: &self.name,
            method: self.method,
            crc: self.crc,
            size: self.size,
            data: Cow::Borrowed(&self.data),
        }
    }
}

/// Entries already compressed in this build, by name and content: the outputs of several
/// targets share most of their entries (a target leaves most documents as they are), which
/// are then compressed once.
#[derive(Default)]
pub struct PackMemo {
    packed: std::sync::Mutex<HashMap<(String, [u8; 32]), PackedOwned>>,
}

/// What [`PackMemo`] keeps of a compressed entry.
#[derive(Clone)]
struct PackedOwned {
    method: u16,
    crc: u32,
    data: std::sync::Arc<Vec<u8>>,
}

impl PackMemo {
    /// [`pack`], or the entry as compressed before when its name and bytes are the same.
    fn pack<'a>(&self, entry: &'a Entry) -> std::io::Result<Packed<'a>> {
        if !entry.compress {
            return pack(entry);
        }
        let key = (entry.name.clone(), *blake3::hash(&entry.data).as_bytes());
        let known = self.packed.lock().ok().and_then(|m| m.get(&key).cloned());
        if let Some(p) = known {
            return Ok(Packed {
                name: &entry.name,
                method: p.method,
                crc: p.crc,
                size: entry.data.len() as u64,
                data: Cow::Owned(p.data.as_ref().clone()),
            });
        }
        let packed = pack(entry)?;
        if let Ok(mut m) = self.packed.lock() {
            let owned = PackedOwned {
                method: packed.method,
                crc: packed.crc,
                data: std::sync::Arc::new(packed.data.to_vec()),
            };
            m.insert(key, owned);
        }
        Ok(packed)
    }
}

/// What the central directory says about one entry.
#[derive(Debug, Clone)]
struct Record {
    name: String,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    /// Offset of the local header.
    offset: u64,
}

impl Record {
    fn flags(&self) -> u16 {
        if self.name.is_ascii() { 0 } else { UTF8_NAME }
    }

    /// The fields local and central headers share, from the flags to the sizes.
    fn put_common(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&u16le(self.flags()));
        out.extend_from_slice(&u16le(self.method));
        out.extend_from_slice(&u16le(DOS_TIME));
        out.extend_from_slice(&u16le(DOS_DATE));
        out.extend_from_slice(&u32le(self.crc));
        // Both below 4 GB: `pack` refuses larger entries, and deflate grows data by a few
        // bytes at most.
        out.extend_from_slice(&u32le(self.compressed as u32));
        out.extend_from_slice(&u32le(self.size as u32));
    }
}

/// A zip container written front to back: local headers and data, then the central directory.
struct Zip<W: Write> {
    out: W,
    /// Bytes written so far.
    pos: u64,
    records: Vec<Record>,
}

fn u16le(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}

fn u32le(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

fn u64le(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

impl<W: Write> Zip<W> {
    fn new(out: W) -> Zip<W> {
        Zip {
            out,
            pos: 0,
            records: Vec::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.out.write_all(bytes)?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    /// Appends an entry: its local header (no extra field), then its data.
    fn append(&mut self, p: &Packed<'_>) -> std::io::Result<()> {
        let name_len = u16::try_from(p.name.len())
            .map_err(|_| std::io::Error::other(format!("entry name too long: {}", p.name)))?;
        let record = Record {
            name: p.name.to_string(),
            method: p.method,
            crc: p.crc,
            compressed: p.data.len() as u64,
            size: p.size,
            offset: self.pos,
        };
        let mut header = Vec::with_capacity(local::LEN + p.name.len());
        header.extend_from_slice(&u32le(LOCAL_HEADER));
        header.extend_from_slice(&u16le(VERSION_DEFLATE));
        record.put_common(&mut header);
        header.extend_from_slice(&u16le(name_len));
        header.extend_from_slice(&u16le(0));
        header.extend_from_slice(p.name.as_bytes());
        self.put(&header)?;
        self.put(&p.data)?;
        self.records.push(record);
        Ok(())
    }

    /// Writes the central directory and its end records (zip64 ones when needed).
    fn finish(mut self) -> std::io::Result<W> {
        let start = self.pos;
        let dir = central_directory(&self.records);
        self.put(&dir)?;
        let end = end_records(self.records.len() as u64, dir.len() as u64, start, self.pos);
        self.put(&end)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The central directory: one header per record, a zip64 extra field for an entry whose
/// local header lies beyond 4 GB.
fn central_directory(records: &[Record]) -> Vec<u8> {
    let mut dir = Vec::with_capacity(records.len() * (central::LEN + 40));
    for r in records {
        let far = r.offset >= u64::from(u32::MAX);
        dir.extend_from_slice(&u32le(CENTRAL_HEADER));
        dir.extend_from_slice(&u16le(MADE_BY));
        dir.extend_from_slice(&u16le(if far { VERSION_ZIP64 } else { VERSION_DEFLATE }));
        r.put_common(&mut dir);
        dir.extend_from_slice(&u16le(r.name.len() as u16));
        let extra_len = if far { zip64_extra::LEN as u16 } else { 0 };
        dir.extend_from_slice(&u16le(extra_len));
        dir.extend_from_slice(&u16le(0)); // comment
        dir.extend_from_slice(&u16le(0)); // disk
        dir.extend_from_slice(&u16le(0)); // internal attributes
        dir.extend_from_slice(&u32le(EXTERNAL_ATTRIBUTES));
        dir.extend_from_slice(&u32le(if far { u32::MAX } else { r.offset as u32 }));
        dir.extend_from_slice(r.name.as_bytes());
        if far {
            dir.extend_from_slice(&u16le(ZIP64_EXTRA));
            dir.extend_from_slice(&u16le(zip64_extra::DATA_LEN));
            dir.extend_from_slice(&u64le(r.offset));
        }
    }
    dir
}

/// The end records of a directory of `count` entries and `size` bytes starting at `start` and
/// followed by these records at `at`: zip64 ones first when a field overflows.
fn end_records(count: u64, size: u64, start: u64, at: u64) -> Vec<u8> {
    let zip64 = count >= 0xFFFF || start >= u64::from(u32::MAX) || size >= u64::from(u32::MAX);
    let mut end = Vec::with_capacity(zip64_end::LEN + zip64_locator::LEN + end::LEN);
    if zip64 {
        end.extend_from_slice(&u32le(ZIP64_END_OF_DIRECTORY));
        end.extend_from_slice(&u64le(zip64_end::REST_LEN));
        end.extend_from_slice(&u16le((3 << 8) | VERSION_ZIP64));
        end.extend_from_slice(&u16le(VERSION_ZIP64));
        end.extend_from_slice(&u32le(0)); // this disk
        end.extend_from_slice(&u32le(0)); // the directory's disk
        end.extend_from_slice(&u64le(count));
        end.extend_from_slice(&u64le(count));
        end.extend_from_slice(&u64le(size));
        end.extend_from_slice(&u64le(start));
        end.extend_from_slice(&u32le(ZIP64_LOCATOR));
        end.extend_from_slice(&u32le(0)); // the record's disk
        end.extend_from_slice(&u64le(at));
        end.extend_from_slice(&u32le(1)); // disks
    }
    let clamp16 = |v: u64| if zip64 { 0xFFFF } else { v as u16 };
    let clamp32 = |v: u64| if zip64 { u32::MAX } else { v as u32 };
    end.extend_from_slice(&u32le(END_OF_DIRECTORY));
    end.extend_from_slice(&u16le(0)); // this disk
    end.extend_from_slice(&u16le(0)); // the directory's disk
    end.extend_from_slice(&u16le(clamp16(count)));
    end.extend_from_slice(&u16le(clamp16(count)));
    end.extend_from_slice(&u32le(clamp32(size)));
    end.extend_from_slice(&u32le(clamp32(start)));
    end.extend_from_slice(&u16le(0)); // comment
    end
}

/// Compresses every entry (in parallel) and writes the archive to `out`.
#[cfg(test)]
pub fn write_to<W: Write>(entries: &[Entry], out: W) -> std::io::Result<W> {
    let packed = pack_all(&entries.iter().collect::<Vec<_>>(), None)?;
    let mut zip = Zip::new(out);
    for p in &packed {
        zip.append(p)?;
    }
    zip.finish()
}

/// Writes the EPUB atomically: to a temporary file beside `path`, then renamed over it.
#[cfg(test)]
pub fn write_epub(entries: &[Entry], path: &Path) -> Result<()> {
    let mut writer = EpubWriter::create(path)?;
    writer.add(entries)?;
    writer.finish()
}

/// One entry of the previous EPUB: where its local header and data lie, and its record.
#[derive(Debug, Clone)]
struct Span {
    /// Offset of the local header.
    start: u64,
    /// Length of local header, name, extra field and data.
    len: u64,
    record: Record,
}

/// The previous EPUB, opened to copy compressed entries from.
pub struct PreviousEpub {
    file: File,
    /// Tells runs from different previous EPUBs apart.
    id: u64,
    spans: HashMap<String, Span>,
    /// How many entries it has, copyable or not.
    entries: usize,
}

impl PreviousEpub {
    /// Whether entry `name` is there and can be copied.
    pub fn contains(&self, name: &str) -> bool {
        self.spans.contains_key(name)
    }

    /// The names of its entries in their order; None unless every one can be copied.
    pub fn names(&self) -> Option<impl Iterator<Item = &str>> {
        if self.spans.len() != self.entries {
            return None;
        }
        let mut order: Vec<(u64, &str)> = self
            .spans
            .iter()
            .map(|(name, span)| (span.start, name.as_str()))
            .collect();
        order.sort_unstable();
        Some(order.into_iter().map(|(_, name)| name))
    }
}

/// Opens an EPUB written earlier, to copy entries from with [`EpubWriter::copy_raw`].
///
/// Reads only the central directory (the EPUB was written by this module: entries back to
/// back, local headers without extra fields). An entry can be copied only when its record
/// agrees with where the next entry starts; asking for any other is an error, after which the
/// build starts clean.
pub fn open_previous(path: &Path) -> Result<PreviousEpub> {
    let mut file = File::open(path).map_err(|e| Error::io(path, "cannot open", e))?;
    let (records, end) =
        read_directory(&mut file).map_err(|e| Error::io(path, "cannot read", e))?;
    let nexts: Vec<u64> = records
        .iter()
        .skip(1)
        .map(|r| r.offset)
        .chain([end])
        .collect();
    let entries = records.len();
    let mut spans = HashMap::with_capacity(records.len());
    for (record, next) in records.into_iter().zip(nexts) {
        let len = local::LEN as u64 + record.name.len() as u64 + record.compressed;
        if record.offset.checked_add(len) == Some(next) {
            spans.insert(
                record.name.clone(),
                Span {
                    start: record.offset,
                    len,
                    record,
                },
            );
        }
    }
    static OPENED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(PreviousEpub {
        file,
        id,
        spans,
        entries,
    })
}

/// The central directory's records in file order, and where the directory starts.
fn read_directory(file: &mut File) -> std::io::Result<(Vec<Record>, u64)> {
    let (count, dir_size, dir_start) = read_end(file)?;
    let size = file.metadata()?.len();
    if dir_start.checked_add(dir_size).is_none_or(|e| e > size)
        || count > dir_size / central::LEN as u64
    {
        return Err(not_ours("central directory out of bounds"));
    }
    let mut dir = vec![0u8; dir_size as usize];
    file.seek(SeekFrom::Start(dir_start))?;
    file.read_exact(&mut dir)?;
    let mut records = Vec::with_capacity(count as usize);
    let mut at = 0usize;
    for _ in 0..count {
        let (record, next) = read_central_header(&dir, at)?;
        records.push(record);
        at = next;
    }
    if records.windows(2).any(|w| w[0].offset >= w[1].offset) {
        return Err(not_ours("entries out of order"));
    }
    Ok((records, dir_start))
}

fn not_ours(what: &str) -> std::io::Error {
    std::io::Error::other(format!("not an EPUB written by epubforge: {what}"))
}

/// The entry count, size and offset of the central directory, from the end records (which
/// this writer ends the file with: it adds no comment).
fn read_end(file: &mut File) -> std::io::Result<(u64, u64, u64)> {
    let size = file.metadata()?.len();
    let tail_len = size.min((end::LEN + zip64_locator::LEN + zip64_end::LEN) as u64);
    let mut tail = vec![0u8; tail_len as usize];
    file.seek(SeekFrom::Start(size - tail_len))?;
    file.read_exact(&mut tail)?;
    let eocd = tail
        .len()
        .checked_sub(end::LEN)
        .ok_or_else(|| not_ours("too short"))?;
    if u32_at(&tail, eocd) != Some(END_OF_DIRECTORY) {
        return Err(not_ours("no end record"));
    }
    let field = |at| -> std::io::Result<u64> {
        let small = if at == end::COUNT {
            u16_at(&tail, eocd + at).map(u64::from)
        } else {
            u32_at(&tail, eocd + at).map(u64::from)
        };
        small.ok_or_else(|| not_ours("short end record"))
    };
    let (count, dir_size, dir_start) = (
        field(end::COUNT)?,
        field(end::DIR_SIZE)?,
        field(end::DIR_START)?,
    );
    if count != 0xFFFF && dir_start != u64::from(u32::MAX) {
        return Ok((count, dir_size, dir_start));
    }
    let z = eocd
        .checked_sub(zip64_locator::LEN + zip64_end::LEN)
        .ok_or_else(|| not_ours("no zip64 end record"))?;
    if u32_at(&tail, z) != Some(ZIP64_END_OF_DIRECTORY)
        || u32_at(&tail, z + zip64_end::LEN) != Some(ZIP64_LOCATOR)
    {
        return Err(not_ours("no zip64 end record"));
    }
    let field = |at| u64_at(&tail, z + at).ok_or_else(|| not_ours("short zip64 end record"));
    Ok((
        field(zip64_end::COUNT)?,
        field(zip64_end::DIR_SIZE)?,
        field(zip64_end::DIR_START)?,
    ))
}

/// The central directory header at `at` of `dir`, and where the next one starts.
fn read_central_header(dir: &[u8], at: usize) -> std::io::Result<(Record, usize)> {
    let damaged = || not_ours("damaged central directory");
    if u32_at(dir, at) != Some(CENTRAL_HEADER) || dir.len() < at + central::LEN {
        return Err(damaged());
    }
    let u16f = |f| u16_at(dir, at + f).ok_or_else(damaged);
    let u32f = |f| u32_at(dir, at + f).ok_or_else(damaged);
    let name_len = usize::from(u16f(central::NAME_LEN)?);
    let extra_len = usize::from(u16f(central::EXTRA_LEN)?);
    let comment_len = usize::from(u16f(central::COMMENT_LEN)?);
    let name_at = at + central::LEN;
    let next = name_at + name_len + extra_len + comment_len;
    if dir.len() < next {
        return Err(damaged());
    }
    let name = std::str::from_utf8(&dir[name_at..name_at + name_len])
        .map_err(|_| not_ours("entry name is not UTF-8"))?;
    let mut offset = u64::from(u32f(central::OFFSET)?);
    if offset == u64::from(u32::MAX) {
        let extra = &dir[name_at + name_len..name_at + name_len + extra_len];
        if extra.len() != zip64_extra::LEN
            || u16_at(extra, 0) != Some(ZIP64_EXTRA)
            || u16_at(extra, 2) != Some(zip64_extra::DATA_LEN)
        {
            return Err(not_ours("unexpected zip64 field"));
        }
        offset = u64_at(extra, zip64_extra::OFFSET).ok_or_else(damaged)?;
    }
    let record = Record {
        name: name.to_string(),
        method: u16f(central::METHOD)?,
        crc: u32f(central::CRC)?,
        compressed: u64::from(u32f(central::COMPRESSED)?),
        size: u64::from(u32f(central::SIZE)?),
        offset,
    };
    Ok((record, next))
}

/// Entries of a previous EPUB waiting to be copied: consecutive there, so copied at once.
struct Run {
    /// The previous EPUB (its own handle) and which one it is.
    file: File,
    source: u64,
    /// Offset in the previous EPUB.
    from: u64,
    len: u64,
}

/// An EPUB being written, entry by entry, to a temporary file in the target's folder that
/// [`Finished::commit`] moves into place. Dropped unfinished, it leaves the target untouched
/// and deletes the temporary file.
pub struct EpubWriter {
    zip: Zip<BufWriter<TempFile>>,
    run: Option<Run>,
    path: PathBuf,
    memo: Option<std::sync::Arc<PackMemo>>,
}

impl EpubWriter {
    /// Starts writing the EPUB that will end up at `path`, creating its folder.
    pub fn create(path: &Path) -> Result<EpubWriter> {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::io(dir, "cannot create the output folder", e))?;
        let tmp = TempFile::create(dir, ".epub.tmp").map_err(|e| {
            Error::io(
                dir,
                "cannot create a temporary file in the output folder",
                e,
            )
        })?;
        Ok(EpubWriter {
            zip: Zip::new(BufWriter::with_capacity(1 << 20, tmp)),
            run: None,
            path: path.to_path_buf(),
            memo: None,
        })
    }

    /// Shares compressed entries with the other outputs of the build through `memo`.
    pub fn share(&mut self, memo: std::sync::Arc<PackMemo>) {
        self.memo = Some(memo);
    }

    fn write_error(&self, e: std::io::Error) -> Error {
        Error::io(&self.path, "cannot write", e)
    }

    /// Compresses `entries` in parallel and appends them in order.
    #[cfg(test)]
    pub fn add(&mut self, entries: &[Entry]) -> Result<()> {
        self.add_refs(&entries.iter().collect::<Vec<_>>())
    }

    /// [`EpubWriter::add`] for borrowed entries.
    pub fn add_refs(&mut self, entries: &[&Entry]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let packed = pack_all(entries, self.memo.as_deref()).map_err(|e| self.write_error(e))?;
        self.flush_run().map_err(|e| self.write_error(e))?;
        for p in &packed {
            self.zip.append(p).map_err(|e| self.write_error(e))?;
        }
        Ok(())
    }

    /// Appends an entry compressed beforehand.
    pub fn add_packed(&mut self, entry: &PackedEntry) -> Result<()> {
        self.flush_run().map_err(|e| self.write_error(e))?;
        self.zip
            .append(&entry.as_packed())
            .map_err(|e| self.write_error(e))
    }

    /// Appends the entry `name` of `previous` as it is, without decompressing it. Entries that
    /// follow each other in `previous` are copied in one go when the next entry is added or
    /// the EPUB is finished. An entry can be copied once: it is no longer in `previous` after.
    pub fn copy_raw(&mut self, previous: &mut PreviousEpub, name: &str) -> Result<()> {
        // Each entry is copied once: its record moves over rather than being cloned.
        let Some(span) = previous.spans.remove(name) else {
            return Err(self.write_error(std::io::Error::other(format!(
                "the previous EPUB has no entry {name} to copy"
            ))));
        };
        let contiguous = self
            .run
            .as_ref()
            .is_some_and(|r| r.source == previous.id && r.from + r.len == span.start);
        if !contiguous {
            self.flush_run().map_err(|e| self.write_error(e))?;
            let file = previous.file.try_clone().map_err(|e| self.write_error(e))?;
            self.run = Some(Run {
                file,
                source: previous.id,
                from: span.start,
                len: 0,
            });
        }
        if let Some(run) = &mut self.run {
            run.len += span.len;
        }
        let mut record = span.record;
        record.offset = self.zip.pos;
        self.zip.pos += span.len;
        self.zip.records.push(record);
        Ok(())
    }

    /// Copies the pending run of previous entries, after whatever is buffered.
    fn flush_run(&mut self) -> std::io::Result<()> {
        let Some(mut run) = self.run.take() else {
            return Ok(());
        };
        self.zip.out.flush()?;
        run.file.seek(SeekFrom::Start(run.from))?;
        let out = self.zip.out.get_mut().file_mut();
        // File to file: std hands this to the kernel (`copy_file_range`) where it can.
        let copied = std::io::copy(&mut (&run.file).take(run.len), out)?;
        if copied != run.len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the previous EPUB is shorter than its directory says",
            ));
        }
        Ok(())
    }

    /// Writes the central directory, flushes to disk and renames the file into place.
    #[cfg(test)]
    pub fn finish(self) -> Result<()> {
        self.finish_writing()?.commit().map(drop)
    }

    /// Writes the rest of the EPUB to its temporary file: [`Finished::commit`] then makes it
    /// durable and moves it into place.
    pub fn finish_writing(mut self) -> Result<Finished> {
        self.flush_run().map_err(|e| self.write_error(e))?;
        let path = self.path;
        let out = self
            .zip
            .finish()
            .map_err(|e| Error::io(&path, "cannot write", e))?;
        let tmp = out
            .into_inner()
            .map_err(|e| Error::io(&path, "cannot write", e.into_error()))?;
        // A temporary file is private (0600); a book is an ordinary document.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = tmp
                .file()
                .set_permissions(std::fs::Permissions::from_mode(0o644));
        }
        Ok(Finished { tmp, path })
    }
}

/// An EPUB written to its temporary file, not yet in place.
pub struct Finished {
    tmp: TempFile,
    path: PathBuf,
}

impl Finished {
    /// Moves the EPUB into place, atomically: swapped with the EPUB already there, or renamed
    /// there (see [`TempFile::persist_output`]). Returns the EPUB it replaced, which is deleted
    /// when dropped.
    ///
    /// The file is not flushed to disk first (as mdBook and zola do not): a flush cost an edit
    /// rebuild of the benchmark novel 50 to 100 ms, two thirds of its time, and guards only
    /// against the machine itself crashing in the seconds after a build. A failed, interrupted
    /// or killed build never touches the target either way.
    pub fn commit(self) -> Result<Replaced> {
        let path = self.path;
        // Checked again at the last moment: a FIFO or device put there during the build.
        crate::fs::check_replaceable(&path)?;
        self.tmp
            .persist_output(&path)
            .map_err(|e| Error::io(&path, "cannot move the finished EPUB into place", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, data: &str, compress: bool) -> Entry {
        Entry {
            name: name.into(),
            data: data.as_bytes().to_vec(),
            compress,
        }
    }

    fn sample() -> Vec<Entry> {
        vec![
            entry("mimetype", "application/epub+zip", false),
            entry("a.xhtml", &"<p>甲乙丙丁</p>\n".repeat(200), true),
            entry("b.xhtml", &"<p>戊己庚辛</p>\n".repeat(300), true),
        ]
    }

    #[test]
    fn raw_copied_entries_give_the_same_bytes_as_compressing_again() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first.epub");
        write_epub(&sample(), &first).unwrap();

        let second = dir.path().join("second.epub");
        let mut previous = open_previous(&first).unwrap();
        let mut w = EpubWriter::create(&second).unwrap();
        w.add(&sample()[..1]).unwrap();
        w.copy_raw(&mut previous, "a.xhtml").unwrap();
        w.add(&sample()[2..]).unwrap();
        w.finish().unwrap();

        let a = std::fs::read(&first).unwrap();
        let b = std::fs::read(&second).unwrap();
        assert!(a.len() > 100);
        assert_eq!(a, b);
    }

    #[test]
    fn runs_of_copied_entries_around_a_new_one_give_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let entries: Vec<Entry> = (0..50)
            .map(|i| {
                entry(
                    &format!("t/{i}.xhtml"),
                    &format!("<p>第{i}章</p>\n").repeat(i + 1),
                    i > 0,
                )
            })
            .collect();
        let first = dir.path().join("first.epub");
        write_epub(&entries, &first).unwrap();

        let second = dir.path().join("second.epub");
        let mut previous = open_previous(&first).unwrap();
        let mut w = EpubWriter::create(&second).unwrap();
        for (i, e) in entries.iter().enumerate() {
            if i == 20 || i == 49 {
                w.add(std::slice::from_ref(e)).unwrap();
            } else {
                w.copy_raw(&mut previous, &e.name).unwrap();
            }
        }
        w.finish().unwrap();
        assert_eq!(
            std::fs::read(&first).unwrap(),
            std::fs::read(&second).unwrap()
        );
    }

    #[test]
    fn more_than_65535_entries_get_zip64_records_that_readers_accept() {
        let entries: Vec<Entry> = (0..70_000)
            .map(|i| entry(&format!("e/{i}.txt"), &format!("{i}"), i % 2 == 0))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.epub");
        write_epub(&entries, &path).unwrap();
        let mut zip = zip::ZipArchive::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(zip.len(), 70_000);
        for i in [0usize, 65_534, 65_535, 69_999] {
            let mut text = String::new();
            zip.by_name(&format!("e/{i}.txt"))
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            assert_eq!(text, i.to_string());
        }
        // And our own reader of previous EPUBs finds every entry.
        let previous = open_previous(&path).unwrap();
        assert_eq!(previous.spans.len(), 70_000);
    }

    #[test]
    fn a_damaged_previous_epub_is_refused_not_misread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("first.epub");
        write_epub(&sample(), &path).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(bytes.len() - 5);
        std::fs::write(&path, &bytes).unwrap();
        assert!(open_previous(&path).is_err());
        std::fs::write(&path, b"PK\x05\x06 not a zip at all").unwrap();
        assert!(open_previous(&path).is_err());
    }

    #[test]
    fn copying_a_missing_entry_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("first.epub");
        write_epub(&sample(), &first).unwrap();
        let mut previous = open_previous(&first).unwrap();
        let mut w = EpubWriter::create(&dir.path().join("x.epub")).unwrap();
        assert!(w.copy_raw(&mut previous, "nope.xhtml").is_err());
    }

    #[test]
    fn an_unfinished_writer_leaves_the_old_file_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.epub");
        std::fs::write(&path, b"old").unwrap();
        let mut w = EpubWriter::create(&path).unwrap();
        w.add(&sample()).unwrap();
        drop(w);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
    }
}
