//! Bounded access to the zip container: entry listing, capped reads, raw header bytes.
//!
//! Everything in `inspect` reads the zip through this, so the safety limits (entry count,
//! inflated size counted on the bytes actually produced) live in one place.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

use zip::{CompressionMethod, ZipArchive};

use super::{InspectError, MAX_ENTRIES};
use crate::archive::format::{CENTRAL_HEADER, LOCAL_HEADER, central, local, u16_at, u32_at};

/// One zip entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntryInfo {
    /// Entry name.
    pub name: String,
    /// Compressed size in bytes, as declared.
    pub compressed_size: u64,
    /// Uncompressed size in bytes, as declared.
    pub size: u64,
    /// `stored`, `deflated`, or another method's name.
    pub method: String,
}

/// The first local file header of the zip, as raw fields (the `mimetype` rules need them).
#[derive(Debug, Clone)]
pub(crate) struct FirstLocalHeader {
    pub signature_ok: bool,
    pub flags: u16,
    pub method: u16,
    pub extra_len: u16,
    pub name: String,
}

/// Entries inflated ahead of their readers, by name.
pub(crate) type Inflated = std::collections::HashMap<String, Entry>;

/// An entry's inflated content: text when it is UTF-8 (checked once, when it was inflated
/// ahead), else its bytes.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    /// Valid UTF-8.
    Text(String),
    /// Anything else (or not checked).
    Bytes(Vec<u8>),
}

impl Entry {
    /// The entry's bytes, `Text` or not.
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            Entry::Text(text) => text.into_bytes(),
            Entry::Bytes(bytes) => bytes,
        }
    }

    /// The entry's bytes, lent.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Entry::Text(text) => text.as_bytes(),
            Entry::Bytes(bytes) => bytes,
        }
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Entry::Text(text) => text.len(),
            Entry::Bytes(bytes) => bytes.len(),
        }
    }
}

impl crate::fs::Shared for Inflated {
    fn bytes(&self, name: &str) -> Option<&[u8]> {
        self.get(name).map(Entry::as_bytes)
    }
}

/// The listing of a zip's entries that [`Container::new`] makes (shared, not copied).
#[derive(Debug, Clone)]
pub(crate) struct Index {
    entries: Arc<Vec<EntryInfo>>,
    names: Arc<HashSet<String>>,
    duplicates: Arc<Vec<String>>,
    has_duplicates: bool,
    first_header: Option<FirstLocalHeader>,
}

/// An opened zip, with every entry listed in central-directory order.
pub(crate) struct Container<R> {
    archive: Zip<R>,
    pub entries: Arc<Vec<EntryInfo>>,
    names: Arc<HashSet<String>>,
    /// Names that occur more than once in the central directory.
    pub duplicates: Arc<Vec<String>>,
    /// The zip names some entry twice, whether or not [`Self::duplicates`] could say which.
    pub has_duplicates: bool,
    pub first_header: Option<FirstLocalHeader>,
    /// Entries inflated ahead (by an `Archive` that is read several times), read before the
    /// zip.
    pub inflated: Option<std::sync::Arc<Inflated>>,
}

impl<R: Read + Seek> Container<R> {
    /// Index the zip. Fails only when the zip itself is unreadable or too large to index.
    pub fn new(mut reader: R) -> Result<Self, InspectError> {
        let first_header = read_first_local_header(&mut reader);
        let mut archive = ZipArchive::new(reader)?;
        if archive.len() > MAX_ENTRIES {
            return Err(InspectError::TooManyEntries {
                count: archive.len(),
                cap: MAX_ENTRIES,
            });
        }
        let mut entries = Vec::with_capacity(archive.len());
        for i in 0..archive.len() {
            let entry = archive.by_index_data(i)?;
            entries.push(EntryInfo {
                name: entry.name()?.into_owned(),
                compressed_size: entry.compressed_size(),
                size: entry.size(),
                method: method_name(entry.compression()),
            });
        }
        let mut duplicates = Vec::new();
        let has_duplicates = archive.has_duplicate_names();
        if has_duplicates {
            // The archive index keeps one entry per name, so the duplicates can only be named
            // by walking the central directory ourselves.
            let cd_start = archive.central_directory_start();
            let mut reader = archive.into_inner();
            duplicates = duplicate_names(&mut reader, cd_start);
            archive = ZipArchive::new(reader)?;
        }
        let names = entries.iter().map(|e| e.name.clone()).collect();
        Ok(Container {
            archive: Zip::Open(archive),
            entries: Arc::new(entries),
            names: Arc::new(names),
            duplicates: Arc::new(duplicates),
            has_duplicates,
            first_header,
            inflated: None,
        })
    }

    /// The zip of `reader` indexed as `index` says: the same file as the container `index` was
    /// taken from ([`Container::index`]), opened again, so that its entries are not listed,
    /// named and dropped once per reader (eight times in a `fix`'s review). Its central
    /// directory is read when an entry that was not inflated ahead is first read ([`Zip`]).
    pub fn with_index(reader: R, index: &Index) -> Result<Self, InspectError> {
        Ok(Container {
            archive: Zip::Unread(reader),
            entries: Arc::clone(&index.entries),
            names: Arc::clone(&index.names),
            duplicates: Arc::clone(&index.duplicates),
            has_duplicates: index.has_duplicates,
            first_header: index.first_header.clone(),
            inflated: None,
        })
    }

    /// What [`Container::new`] read of the zip besides the zip reader, for
    /// [`Container::with_index`].
    pub fn index(&self) -> Index {
        Index {
            entries: Arc::clone(&self.entries),
            names: Arc::clone(&self.names),
            duplicates: Arc::clone(&self.duplicates),
            has_duplicates: self.has_duplicates,
            first_header: self.first_header.clone(),
        }
    }

    /// Whether an entry of exactly this name exists.
    pub fn exists(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Inflate one entry, refusing once more than `cap` bytes have come out.
    pub fn read_capped(&mut self, name: &str, cap: u64) -> Result<Vec<u8>, InspectError> {
        self.read_entry(name, cap).map(Entry::into_bytes)
    }

    /// [`Container::read_capped`], as text when the entry was inflated ahead and found UTF-8
    /// then (so that it is not checked again).
    pub fn read_entry(&mut self, name: &str, cap: u64) -> Result<Entry, InspectError> {
        self.lend(name, cap).map(Cow::into_owned)
    }

    /// [`Container::read_entry`], an entry inflated ahead lent rather than copied.
    pub fn lend(&mut self, name: &str, cap: u64) -> Result<Cow<'_, Entry>, InspectError> {
        lend_from(self.inflated.as_deref(), &mut self.archive, name, cap)
    }

    /// [`Container::lend`], lent from `held` (what [`Container::inflated`] holds, taken out
    /// first), so that several entries can be held at once while the container reads others.
    pub fn lend_held<'h>(
        &mut self,
        held: Option<&'h Inflated>,
        name: &str,
        cap: u64,
    ) -> Result<Cow<'h, Entry>, InspectError> {
        lend_from(held, &mut self.archive, name, cap)
    }
}

/// The entry `name` of `held` when it is there (refused over `cap`), else inflated from the zip.
fn lend_from<'h, R: Read + Seek>(
    held: Option<&'h Inflated>,
    archive: &mut Zip<R>,
    name: &str,
    cap: u64,
) -> Result<Cow<'h, Entry>, InspectError> {
    match held_entry(held, name, cap) {
        Some(lent) => lent,
        None => inflate(archive.open()?, name, cap).map(|b| Cow::Owned(Entry::Bytes(b))),
    }
}

/// The entry `name` as `held` lends it (refused over `cap`); None when it is not held and
/// must be read from the zip.
pub(crate) fn held_entry<'h>(
    held: Option<&'h Inflated>,
    name: &str,
    cap: u64,
) -> Option<Result<Cow<'h, Entry>, InspectError>> {
    let entry = held?.get(name)?;
    Some(match entry.len() as u64 > cap {
        true => Err(InspectError::EntryTooLarge {
            name: name.to_string(),
            cap,
        }),
        false => Ok(Cow::Borrowed(entry)),
    })
}

/// A container's zip reader: its central directory read (4 M instructions for a zip of 3000
/// entries) only when an entry is read from it, not when every entry a reader asks for was
/// inflated ahead. A reader opened again on a zip already listed ([`Container::with_index`])
/// meets no error listing it again, the file being the same.
enum Zip<R> {
    /// The central directory read.
    Open(ZipArchive<R>),
    /// Not read yet.
    Unread(R),
    /// Reading it failed (that error was returned then).
    Failed,
}

impl<R: Read + Seek> Zip<R> {
    /// The zip, its central directory read now when it was not yet.
    fn open(&mut self) -> Result<&mut ZipArchive<R>, InspectError> {
        if let Zip::Unread(_) = self
            && let Zip::Unread(reader) = std::mem::replace(self, Zip::Failed)
        {
            *self = Zip::Open(ZipArchive::new(reader)?);
        }
        match self {
            Zip::Open(archive) => Ok(archive),
            _ => Err(InspectError::Zip(zip::result::ZipError::InvalidArchive(
                "the zip could not be read".into(),
            ))),
        }
    }
}

/// Inflate one entry from the zip, refusing once more than `cap` bytes have come out.
pub(super) fn inflate<R: Read + Seek>(
    archive: &mut ZipArchive<R>,
    name: &str,
    cap: u64,
) -> Result<Vec<u8>, InspectError> {
    let file = match archive.by_name(name) {
        Ok(file) => file,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(InspectError::MissingEntry {
                name: name.to_string(),
            });
        }
        Err(e) => {
            return Err(InspectError::EntryRead {
                name: name.to_string(),
                source: std::io::Error::other(e),
            });
        }
    };
    // The declared size is not trusted: `take` bounds what we actually inflate. It only
    // sizes the buffer (up to 1 MiB), which spares small entries a probing read.
    let hint = file.size().min(cap).min(1 << 20);
    let mut buf = Vec::with_capacity(usize::try_from(hint).unwrap_or(0) + 1);
    file.take(cap.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|source| InspectError::EntryRead {
            name: name.to_string(),
            source,
        })?;
    if buf.len() as u64 > cap {
        return Err(InspectError::EntryTooLarge {
            name: name.to_string(),
            cap,
        });
    }
    Ok(buf)
}

fn method_name(method: CompressionMethod) -> String {
    match method {
        CompressionMethod::Stored => "stored".to_string(),
        CompressionMethod::Deflated => "deflated".to_string(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// Read the local file header at offset 0: signature, flags (6), method (8), name length (26),
/// extra length (28), name (30..).
fn read_first_local_header<R: Read + Seek>(reader: &mut R) -> Option<FirstLocalHeader> {
    reader.seek(SeekFrom::Start(0)).ok()?;
    let mut fixed = [0u8; local::LEN];
    reader.read_exact(&mut fixed).ok()?;
    let name_len = u16_at(&fixed, local::NAME_LEN)?;
    let mut name = vec![0u8; usize::from(name_len)];
    reader.read_exact(&mut name).ok()?;
    Some(FirstLocalHeader {
        signature_ok: u32_at(&fixed, 0)? == LOCAL_HEADER,
        flags: u16_at(&fixed, local::FLAGS)?,
        method: u16_at(&fixed, local::METHOD)?,
        extra_len: u16_at(&fixed, local::EXTRA_LEN)?,
        name: String::from_utf8_lossy(&name).into_owned(),
    })
}

/// Walk the central directory from `start` and return every name seen more than once.
fn duplicate_names<R: Read + Seek>(reader: &mut R, start: u64) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut reported = HashSet::new();
    let mut dups = Vec::new();
    if reader.seek(SeekFrom::Start(start)).is_err() {
        return dups;
    }
    for _ in 0..=MAX_ENTRIES {
        let mut fixed = [0u8; central::LEN];
        if reader.read_exact(&mut fixed).is_err() {
            break;
        }
        let (Some(sig), Some(name_len), Some(extra_len), Some(comment_len)) = (
            u32_at(&fixed, 0),
            u16_at(&fixed, central::NAME_LEN),
            u16_at(&fixed, central::EXTRA_LEN),
            u16_at(&fixed, central::COMMENT_LEN),
        ) else {
            break;
        };
        if sig != CENTRAL_HEADER {
            break;
        }
        let mut name = vec![0u8; usize::from(name_len)];
        if reader.read_exact(&mut name).is_err() {
            break;
        }
        let name = String::from_utf8_lossy(&name).into_owned();
        if !seen.insert(name.clone()) && reported.insert(name.clone()) {
            dups.push(name);
        }
        let skip = i64::from(extra_len) + i64::from(comment_len);
        if reader.seek(SeekFrom::Current(skip)).is_err() {
            break;
        }
    }
    dups
}
