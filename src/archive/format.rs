//! The zip records an EPUB is made of, named once: signatures, fixed lengths and the offsets of
//! the fields epubforge writes and reads (as the zip crate keeps them in its `format` module).
//! The writer, the reader of previous EPUBs and `inspect` use these names; nothing else spells
//! an offset as a bare number.

/// Signature of a local file header.
pub const LOCAL_HEADER: u32 = 0x0403_4b50;
/// Signature of a central directory header.
pub const CENTRAL_HEADER: u32 = 0x0201_4b50;
/// Signature of the end of central directory record.
pub const END_OF_DIRECTORY: u32 = 0x0605_4b50;
/// Signature of the zip64 end of central directory record.
pub const ZIP64_END_OF_DIRECTORY: u32 = 0x0606_4b50;
/// Signature of the zip64 end of central directory locator.
pub const ZIP64_LOCATOR: u32 = 0x0706_4b50;
/// Header id of the zip64 extended information extra field.
pub const ZIP64_EXTRA: u16 = 0x0001;

/// Compression method: stored.
pub const STORED: u16 = 0;
/// Compression method: deflated.
pub const DEFLATED: u16 = 8;
/// "Version needed to extract": 2.0 (deflate), or 4.5 for zip64.
pub const VERSION_DEFLATE: u16 = 20;
/// See [`VERSION_DEFLATE`].
pub const VERSION_ZIP64: u16 = 45;

/// A local file header: fixed part, then the name and the extra field.
pub mod local {
    /// Length of the fixed part.
    pub const LEN: usize = 30;
    /// General purpose flags (u16).
    pub const FLAGS: usize = 6;
    /// Compression method (u16).
    pub const METHOD: usize = 8;
    /// Name length (u16).
    pub const NAME_LEN: usize = 26;
    /// Extra field length (u16).
    pub const EXTRA_LEN: usize = 28;
}

/// A central directory header: fixed part, then name, extra field and comment.
pub mod central {
    /// Length of the fixed part.
    pub const LEN: usize = 46;
    /// Compression method (u16).
    pub const METHOD: usize = 10;
    /// CRC-32 (u32).
    pub const CRC: usize = 16;
    /// Compressed size (u32).
    pub const COMPRESSED: usize = 20;
    /// Uncompressed size (u32).
    pub const SIZE: usize = 24;
    /// Name length (u16).
    pub const NAME_LEN: usize = 28;
    /// Extra field length (u16).
    pub const EXTRA_LEN: usize = 30;
    /// Comment length (u16).
    pub const COMMENT_LEN: usize = 32;
    /// Offset of the local header (u32).
    pub const OFFSET: usize = 42;
}

/// The end of central directory record (without a comment).
pub mod end {
    /// Its length.
    pub const LEN: usize = 22;
    /// Number of entries (u16).
    pub const COUNT: usize = 10;
    /// Size of the central directory (u32).
    pub const DIR_SIZE: usize = 12;
    /// Offset of the central directory (u32).
    pub const DIR_START: usize = 16;
}

/// The zip64 end of central directory record.
pub mod zip64_end {
    /// Its length.
    pub const LEN: usize = 56;
    /// The size of the rest of the record, as written in it.
    pub const REST_LEN: u64 = 44;
    /// Number of entries (u64).
    pub const COUNT: usize = 32;
    /// Size of the central directory (u64).
    pub const DIR_SIZE: usize = 40;
    /// Offset of the central directory (u64).
    pub const DIR_START: usize = 48;
}

/// The zip64 end of central directory locator.
pub mod zip64_locator {
    /// Its length.
    pub const LEN: usize = 20;
}

/// The zip64 extended information extra field as this writer makes it: the local header's
/// offset alone.
pub mod zip64_extra {
    /// Its length, header included.
    pub const LEN: usize = 12;
    /// The length of its data, as written in it.
    pub const DATA_LEN: u16 = 8;
    /// The offset (u64).
    pub const OFFSET: usize = 4;
}

/// The u16 at `at` in `bytes` (little-endian), if there.
pub fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

/// The u32 at `at` in `bytes` (little-endian), if there.
pub fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// The u64 at `at` in `bytes` (little-endian), if there.
pub fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}
