//! The archive stage: the package's entries in, an EPUB file on disk out.
//!
//! The last stage of the pipeline. `mimetype` is the first entry, stored, with no extra field;
//! every entry gets the same fixed time and permissions so the same entries always give the
//! same bytes. Entries are compressed in parallel, then appended in order. The file is written
//! to a temporary file in the target's folder (or over the EPUB replaced last time, kept for
//! the purpose: see [`Spare`]) and renamed over the target only once complete, so a failed or
//! interrupted build never leaves a broken EPUB where a good one was.
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
//! byte ranges (`copy_file_range` on Linux, in the kernel) rather than entry by entry through
//! user space, this takes a rebuild of a 20 MB EPUB from about 40 ms to under 10. Zip64
//! records are written when a book has 65,535 entries or more, or passes 4 GB.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use tempfile::NamedTempFile;

use crate::error::{Error, Result};
use crate::package::Entry;

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

const STORED: u16 = 0;
const DEFLATED: u16 = 8;
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
    if entry.data.len() as u64 >= u64::from(u32::MAX) {
        return Err(std::io::Error::other(format!(
            "{} is 4 GB or more, which an EPUB cannot hold",
            entry.name
        )));
    }
    let crc = crc32fast::hash(&entry.data);
    let (method, data) = if entry.compress {
        (DEFLATED, Cow::Owned(deflate(&entry.data)?))
    } else {
        (STORED, Cow::Borrowed(&entry.data[..]))
    };
    Ok(Packed {
        name: &entry.name,
        method,
        crc,
        size: entry.data.len() as u64,
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

fn pack_all<'a>(entries: &[&'a Entry]) -> std::io::Result<Vec<Packed<'a>>> {
    entries.par_iter().map(|e| pack(e)).collect()
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
        let mut header = Vec::with_capacity(30 + p.name.len());
        header.extend_from_slice(&u32le(0x0403_4b50));
        header.extend_from_slice(&u16le(20));
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
        let mut dir = Vec::with_capacity(self.records.len() * 80);
        for r in &self.records {
            let far = r.offset >= u64::from(u32::MAX);
            dir.extend_from_slice(&u32le(0x0201_4b50));
            dir.extend_from_slice(&u16le(MADE_BY));
            dir.extend_from_slice(&u16le(if far { 45 } else { 20 }));
            r.put_common(&mut dir);
            dir.extend_from_slice(&u16le(r.name.len() as u16));
            dir.extend_from_slice(&u16le(if far { 12 } else { 0 }));
            dir.extend_from_slice(&u16le(0)); // comment
            dir.extend_from_slice(&u16le(0)); // disk
            dir.extend_from_slice(&u16le(0)); // internal attributes
            dir.extend_from_slice(&u32le(EXTERNAL_ATTRIBUTES));
            dir.extend_from_slice(&u32le(if far { u32::MAX } else { r.offset as u32 }));
            dir.extend_from_slice(r.name.as_bytes());
            if far {
                dir.extend_from_slice(&u16le(0x0001));
                dir.extend_from_slice(&u16le(8));
                dir.extend_from_slice(&u64le(r.offset));
            }
        }
        self.put(&dir)?;
        let (count, size) = (self.records.len() as u64, dir.len() as u64);
        let zip64 = count >= 0xFFFF || start >= u64::from(u32::MAX) || size >= u64::from(u32::MAX);
        let mut end = Vec::with_capacity(98);
        if zip64 {
            let record_at = self.pos;
            end.extend_from_slice(&u32le(0x0606_4b50));
            end.extend_from_slice(&u64le(44));
            end.extend_from_slice(&u16le((3 << 8) | 45));
            end.extend_from_slice(&u16le(45));
            end.extend_from_slice(&u32le(0));
            end.extend_from_slice(&u32le(0));
            end.extend_from_slice(&u64le(count));
            end.extend_from_slice(&u64le(count));
            end.extend_from_slice(&u64le(size));
            end.extend_from_slice(&u64le(start));
            end.extend_from_slice(&u32le(0x0706_4b50));
            end.extend_from_slice(&u32le(0));
            end.extend_from_slice(&u64le(record_at));
            end.extend_from_slice(&u32le(1));
        }
        let clamp16 = |v: u64| if zip64 { 0xFFFF } else { v as u16 };
        let clamp32 = |v: u64| if zip64 { u32::MAX } else { v as u32 };
        end.extend_from_slice(&u32le(0x0605_4b50));
        end.extend_from_slice(&u16le(0));
        end.extend_from_slice(&u16le(0));
        end.extend_from_slice(&u16le(clamp16(count)));
        end.extend_from_slice(&u16le(clamp16(count)));
        end.extend_from_slice(&u32le(clamp32(size)));
        end.extend_from_slice(&u32le(clamp32(start)));
        end.extend_from_slice(&u16le(0));
        self.put(&end)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Compresses every entry (in parallel) and writes the archive to `out`.
#[cfg(test)]
pub fn write_to<W: Write>(entries: &[Entry], out: W) -> std::io::Result<W> {
    let packed = pack_all(&entries.iter().collect::<Vec<_>>())?;
    let mut zip = Zip::new(out);
    for p in &packed {
        zip.append(p)?;
    }
    zip.finish()
}

/// Writes the EPUB atomically: to a temporary file beside `path`, then renamed over it.
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
        let len = 30 + record.name.len() as u64 + record.compressed;
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
    let bad =
        |what: &str| std::io::Error::other(format!("not an EPUB written by epubforge: {what}"));
    let size = file.metadata()?.len();
    // The end record is the last 22 bytes: this writer adds no comment.
    let tail_len = size.min(22 + 20 + 56);
    let mut tail = vec![0u8; tail_len as usize];
    file.seek(SeekFrom::Start(size - tail_len))?;
    file.read_exact(&mut tail)?;
    let le16 = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
    let le32 = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]));
    let le64 = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let eocd = tail.len().checked_sub(22).ok_or_else(|| bad("too short"))?;
    if le32(&tail, eocd) != 0x0605_4b50 {
        return Err(bad("no end record"));
    }
    let (mut count, mut dir_size, mut dir_start) = (
        u64::from(le16(&tail, eocd + 10)),
        u64::from(le32(&tail, eocd + 12)),
        u64::from(le32(&tail, eocd + 16)),
    );
    if count == 0xFFFF || dir_start == u64::from(u32::MAX) {
        let z = eocd
            .checked_sub(20 + 56)
            .ok_or_else(|| bad("no zip64 end record"))?;
        if le32(&tail, z) != 0x0606_4b50 || le32(&tail, z + 56) != 0x0706_4b50 {
            return Err(bad("no zip64 end record"));
        }
        count = le64(&tail, z + 32);
        dir_size = le64(&tail, z + 40);
        dir_start = le64(&tail, z + 48);
    }
    if dir_start.checked_add(dir_size).is_none_or(|e| e > size) || count > dir_size / 46 {
        return Err(bad("central directory out of bounds"));
    }
    let mut dir = vec![0u8; dir_size as usize];
    file.seek(SeekFrom::Start(dir_start))?;
    file.read_exact(&mut dir)?;
    let mut records = Vec::with_capacity(count as usize);
    let mut at = 0usize;
    for _ in 0..count {
        if dir.len() < at + 46 || le32(&dir, at) != 0x0201_4b50 {
            return Err(bad("damaged central directory"));
        }
        let (name_len, extra_len, comment_len) = (
            le16(&dir, at + 28) as usize,
            le16(&dir, at + 30) as usize,
            le16(&dir, at + 32) as usize,
        );
        let end = at + 46 + name_len + extra_len + comment_len;
        if dir.len() < end {
            return Err(bad("damaged central directory"));
        }
        let name = std::str::from_utf8(&dir[at + 46..at + 46 + name_len])
            .map_err(|_| bad("entry name is not UTF-8"))?;
        let mut offset = u64::from(le32(&dir, at + 42));
        if offset == u64::from(u32::MAX) {
            let extra = &dir[at + 46 + name_len..at + 46 + name_len + extra_len];
            if extra.len() != 12 || le16(extra, 0) != 1 || le16(extra, 2) != 8 {
                return Err(bad("unexpected zip64 field"));
            }
            offset = le64(extra, 4);
        }
        records.push(Record {
            name: name.to_string(),
            method: le16(&dir, at + 10),
            crc: le32(&dir, at + 16),
            compressed: u64::from(le32(&dir, at + 20)),
            size: u64::from(le32(&dir, at + 24)),
            offset,
        });
        at = end;
    }
    if records.windows(2).any(|w| w[0].offset >= w[1].offset) {
        return Err(bad("entries out of order"));
    }
    Ok((records, dir_start))
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

/// Asks the system to start writing `file`'s dirty pages to disk now, without waiting, so
/// that the `fsync` at the end finds most of the work done (Linux; elsewhere a no-op).
fn start_writeback(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on a file descriptor we own; failure is harmless.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// The EPUB the last build replaced, kept at a path of the build's choosing (the build cache
/// keeps it beside its manifest), and what this build does with it.
///
/// Replacing a 20 MB EPUB with a new file costs the system twice: the new file's pages and
/// blocks are allocated as it is written, and the old file's are freed once it goes. A build
/// that finds the EPUB replaced last time held by nobody writes the new EPUB over it and then
/// swaps it with the target in one atomic rename, so that neither happens (an edit rebuild
/// of the 3000-chapter benchmark: about 4 ms, a tenth, faster). Otherwise the old spare is
/// deleted in the background while this build writes a new file, and the EPUB it replaces is
/// kept for the next build.
///
/// Two builds of the same book may run at once (two terminals, a watcher and a batch). The
/// spare is therefore first claimed, renamed to a name of this build's own, so that only one
/// build ever writes over it or deletes it; the other finds none.
pub struct Spare {
    path: PathBuf,
    fate: Fate,
}

enum Fate {
    /// Held by nobody else: written over at its claimed name, then swapped with the target.
    Reuse(File, PathBuf, crate::interrupt::InFlight),
    /// There was none: the path is free.
    Free,
    /// Being deleted in the background; true when the path is free again.
    Clearing(std::thread::JoinHandle<bool>),
}

impl Spare {
    /// Looks at the spare at `path` (there may be none) and claims it: it is renamed to a name
    /// of this build's own, so that a concurrent build of the same book finds no spare rather
    /// than reusing or deleting the file this one writes over. Reuses it if no other process
    /// has it open and no other name links to it, and starts deleting it in the background
    /// otherwise.
    pub fn prepare(path: PathBuf) -> Spare {
        let claim = claim_path(&path);
        let claimed =
            crate::interrupt::create_registered(|| std::fs::rename(&path, &claim).map(|()| claim));
        let clearing = match claimed {
            Ok((claim, in_flight)) => {
                if let Some(file) = unshared(&claim) {
                    return Spare {
                        path,
                        fate: Fate::Reuse(file, claim, in_flight),
                    };
                }
                (claim, Some(in_flight))
            }
            // Nothing to clear.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Spare {
                    path,
                    fate: Fate::Free,
                };
            }
            Err(_) => (path.clone(), None),
        };
        let clearing = std::thread::spawn(move || {
            let (gone, _in_flight) = clearing;
            match std::fs::remove_file(&gone) {
                Ok(()) => true,
                Err(e) => e.kind() == std::io::ErrorKind::NotFound,
            }
        });
        Spare {
            path,
            fate: Fate::Clearing(clearing),
        }
    }
}

impl Drop for Spare {
    /// A spare claimed but not written over (the build failed, or chose another way) goes back
    /// to its path for the next build.
    fn drop(&mut self) {
        // As in the commit, the claimed name goes even when the move did nothing.
        if let Fate::Reuse(_, claim, _) = &self.fate {
            let _ = std::fs::rename(claim, &self.path);
            let _ = std::fs::remove_file(claim);
        }
    }
}

/// A name for the spare at `path` that no other build (process or thread) uses.
fn claim_path(path: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{}-{n}", std::process::id()));
    PathBuf::from(name)
}

/// `fcntl`'s command to choose the signal for a lease break (Linux, every architecture).
#[cfg(target_os = "linux")]
const F_SETSIG: libc::c_int = 10;

/// The file at `path`, opened for writing, if it is a regular file that only this process
/// has open and that has no other name: writing over it then changes nothing that anyone
/// else can see. A reader (a viewer still showing an EPUB two builds old, say) keeps it from
/// being reused. Linux only: elsewhere the spare is never reused.
#[cfg(target_os = "linux")]
fn unshared(path: &Path) -> Option<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.nlink() != 1 {
        return None;
    }
    let fd = file.as_raw_fd();
    // The system grants a write lease only while no other open file description (of any
    // process, mappings included) refers to the file. The lease is dropped at once; should
    // another process open the file in between, the break notice comes as SIGURG, which is
    // ignored, rather than SIGIO, which would end this process.
    // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
    unsafe {
        if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0
            || libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK) != 0
        {
            return None;
        }
        libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
    }
    Some(file)
}

#[cfg(not(target_os = "linux"))]
fn unshared(_path: &Path) -> Option<File> {
    None
}

/// Exchanges the files at `a` and `b` atomically (Linux `renameat2`, `RENAME_EXCHANGE`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c =
        |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both pointers are NUL-terminated strings that outlive the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// What becomes of the EPUB being replaced.
enum Replaced {
    /// Freed with its last name.
    Dropped,
    /// Kept at the path once the background deletion of the old spare, if any, is done.
    Kept(Option<std::thread::JoinHandle<bool>>, PathBuf),
    /// Swapped in: the file being written is the old spare (at its claimed name), and the
    /// replaced EPUB takes its place at the spare's path.
    Swapped(PathBuf),
}

/// An EPUB being written, entry by entry, to a temporary file that [`EpubWriter::finish`]
/// moves into place. Dropped unfinished, it leaves the target untouched.
pub struct EpubWriter {
    zip: Zip<BufWriter<NamedTempFile>>,
    run: Option<Run>,
    path: PathBuf,
    replaced: Replaced,
    /// A signal skips the temporary file's destructor; the interrupt handler deletes it instead.
    _in_flight: crate::interrupt::InFlight,
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
        // Registered as it is made: a signal then finds and deletes it however soon it comes.
        let created = crate::interrupt::create_registered(|| {
            tempfile::Builder::new()
                .prefix(".epubforge-")
                .suffix(".epub.tmp")
                .tempfile_in(dir)
        });
        let (tmp, in_flight) = created.map_err(|e| {
            Error::io(
                dir,
                "cannot create a temporary file in the output folder",
                e,
            )
        })?;
        Ok(EpubWriter::over(tmp, in_flight, path, Replaced::Dropped))
    }

    /// [`EpubWriter::create`], which also takes care of the EPUB replaced last time (see
    /// [`Spare`]): written over, or deleted and its path given to the EPUB this one replaces.
    pub fn create_with_spare(path: &Path, mut spare: Spare) -> Result<EpubWriter> {
        match std::mem::replace(&mut spare.fate, Fate::Free) {
            Fate::Reuse(file, claim, in_flight) => {
                match tempfile::TempPath::try_from_path(&claim) {
                    Ok(temp) => {
                        let tmp = NamedTempFile::from_parts(file, temp);
                        let replaced = Replaced::Swapped(spare.path.clone());
                        Ok(EpubWriter::over(tmp, in_flight, path, replaced))
                    }
                    Err(_) => {
                        let _ = std::fs::remove_file(&claim);
                        EpubWriter::create(path)
                    }
                }
            }
            Fate::Free => {
                let mut writer = EpubWriter::create(path)?;
                writer.replaced = Replaced::Kept(None, spare.path.clone());
                Ok(writer)
            }
            Fate::Clearing(clearing) => {
                let mut writer = EpubWriter::create(path)?;
                writer.replaced = Replaced::Kept(Some(clearing), spare.path.clone());
                Ok(writer)
            }
        }
    }

    fn over(
        tmp: NamedTempFile,
        in_flight: crate::interrupt::InFlight,
        path: &Path,
        replaced: Replaced,
    ) -> EpubWriter {
        EpubWriter {
            zip: Zip::new(BufWriter::with_capacity(1 << 20, tmp)),
            run: None,
            path: path.to_path_buf(),
            replaced,
            _in_flight: in_flight,
        }
    }

    fn write_error(&self, e: std::io::Error) -> Error {
        Error::io(&self.path, "cannot write", e)
    }

    /// Compresses `entries` in parallel and appends them in order.
    pub fn add(&mut self, entries: &[Entry]) -> Result<()> {
        self.add_refs(&entries.iter().collect::<Vec<_>>())
    }

    /// [`EpubWriter::add`] for borrowed entries.
    pub fn add_refs(&mut self, entries: &[&Entry]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let packed = pack_all(entries).map_err(|e| self.write_error(e))?;
        self.flush_run().map_err(|e| self.write_error(e))?;
        for p in &packed {
            self.zip.append(p).map_err(|e| self.write_error(e))?;
        }
        Ok(())
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
        let out = self.zip.out.get_mut().as_file_mut();
        // File to file: std hands this to `copy_file_range` where the system has it.
        let copied = std::io::copy(&mut (&run.file).take(run.len), out)?;
        start_writeback(out);
        if copied != run.len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the previous EPUB is shorter than its directory says",
            ));
        }
        Ok(())
    }

    /// Writes the central directory, flushes to disk and renames the file into place.
    pub fn finish(self) -> Result<()> {
        self.finish_writing()?.commit()
    }

    /// Writes the rest of the EPUB to its temporary file: [`Finished::commit`] then makes it
    /// durable and moves it into place (other work can go on meanwhile).
    pub fn finish_writing(mut self) -> Result<Finished> {
        self.flush_run().map_err(|e| self.write_error(e))?;
        let path = self.path.clone();
        let out = self
            .zip
            .finish()
            .map_err(|e| Error::io(&path, "cannot write", e))?;
        let tmp = out
            .into_inner()
            .map_err(|e| Error::io(&path, "cannot write", e.into_error()))?;
        let (keep, swap) = match self.replaced {
            Replaced::Dropped => (None, None),
            // Where hard links are not supported, the spare's path is given up at the commit.
            Replaced::Kept(clearing, spare) => {
                let free = clearing.is_none_or(|c| c.join().unwrap_or(false));
                (free.then_some(spare), None)
            }
            Replaced::Swapped(spare) => {
                // Written over a longer EPUB: cut off what is left of it.
                let end = tmp
                    .as_file()
                    .stream_position()
                    .and_then(|end| tmp.as_file().set_len(end));
                end.map_err(|e| Error::io(&path, "cannot write", e))?;
                (None, Some(spare))
            }
        };
        // A temporary file is private (0600); a book is an ordinary document.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = tmp
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644));
        }
        let metadata = tmp
            .as_file()
            .metadata()
            .map_err(|e| Error::io(&path, "cannot write", e))?;
        Ok(Finished {
            tmp,
            path,
            keep,
            swap,
            metadata,
            _in_flight: self._in_flight,
        })
    }
}

/// An EPUB written to its temporary file, not yet in place.
pub struct Finished {
    tmp: NamedTempFile,
    path: PathBuf,
    /// Where to keep the replaced EPUB, as a hard link.
    keep: Option<PathBuf>,
    /// Swap with the target rather than move over it, and keep the replaced EPUB here.
    swap: Option<PathBuf>,
    metadata: std::fs::Metadata,
    _in_flight: crate::interrupt::InFlight,
}

impl Finished {
    /// The finished file's metadata: its size, and the modification time it keeps once moved.
    pub fn metadata(&self) -> &std::fs::Metadata {
        &self.metadata
    }

    /// Flushes the EPUB to disk and renames it over the target.
    pub fn commit(self) -> Result<()> {
        let path = self.path;
        self.tmp
            .as_file()
            .sync_all()
            .map_err(|e| Error::io(&path, "cannot write", e))?;
        // Where there is no target to swap with, or no exchange, it is moved over it below.
        if let Some(spare) = &self.swap
            && exchange(self.tmp.path(), &path).is_ok()
        {
            // The claimed name now holds the replaced EPUB: moved back to the spare's path,
            // it is the next build's spare. The claimed name is then deleted, in case it is
            // still there: the move does nothing when a concurrent build has just linked the
            // same file to the spare's path.
            let claimed = self.tmp.into_temp_path();
            let _ = std::fs::rename(&claimed, spare);
            drop(claimed);
            return Ok(());
        }
        if let Some(spare) = &self.keep {
            let _ = std::fs::hard_link(&path, spare);
        }
        self.tmp
            .persist(&path)
            .map_err(|e| Error::io(&path, "cannot move the finished EPUB into place", e.error))?;
        Ok(())
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

    #[test]
    fn a_spare_written_over_is_swapped_in_and_an_unfinished_one_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.epub");
        let spare = dir.path().join("book.epub.replaced");
        let expected = write_to(&sample(), Vec::new()).unwrap();
        // Longer than the EPUB written over it: the rest must go.
        std::fs::write(&spare, vec![b'x'; expected.len() * 3]).unwrap();
        std::fs::write(&path, b"old").unwrap();
        let mut w = EpubWriter::create_with_spare(&path, Spare::prepare(spare.clone())).unwrap();
        w.add(&sample()).unwrap();
        w.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        // Swapped where the system can; otherwise moved over the old EPUB.
        if cfg!(target_os = "linux") {
            assert_eq!(std::fs::read(&spare).unwrap(), b"old");
        }

        // Dropped unfinished: the EPUB in place is untouched and the spare, half written
        // over, is gone.
        let mut w = EpubWriter::create_with_spare(&path, Spare::prepare(spare.clone())).unwrap();
        w.add(&sample()[..1]).unwrap();
        drop(w);
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        assert!(!spare.exists());
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_claimed_spare_is_hidden_from_other_builds_and_returned_when_unused() {
        let dir = tempfile::tempdir().unwrap();
        let spare = dir.path().join("book.epub.replaced");
        std::fs::write(&spare, b"old book").unwrap();
        let first = Spare::prepare(spare.clone());
        // Reused where leases are granted (Linux); otherwise being deleted.
        let reused = matches!(first.fate, Fate::Reuse(..));
        // A second build finds no spare while the first holds it: it neither reuses nor
        // deletes the file the first one may be writing over.
        let second = Spare::prepare(spare.clone());
        assert!(matches!(second.fate, Fate::Free));
        drop(second);
        assert!(!spare.exists());
        // Not written over: back where it was, nothing else left.
        drop(first);
        if reused {
            assert_eq!(std::fs::read(&spare).unwrap(), b"old book");
            assert_eq!(names(dir.path()), ["book.epub.replaced"]);
        }
    }
}
