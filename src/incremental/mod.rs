//! The build cache: what the last successful build of a book read and wrote, so the next build
//! can skip a book whose inputs have not changed, and reuse the compressed chapters of the
//! previous EPUB whose sources have not changed.
//!
//! Sits beside the pipeline: [`crate::build`] consults it before `source`/`convert` (to skip
//! unchanged chapters) and hands the archive stage the entries to copy raw from the previous
//! EPUB. The cache is one text file per EPUB, `<output folder>/.epubforge-cache/<file>.manifest`,
//! safe to delete. Its head (options, stamps, a digest of every input's stamp, the chapters'
//! encodings and warnings, the frame key) comes before the records, so an up-to-date check
//! reads no further. It ends with a BLAKE3 checksum of its own contents; a manifest that is
//! damaged, from another epubforge version, for other options, or for an EPUB that has since
//! been changed or removed is ignored, and the build is a clean one.
//!
//! Change detection: a file whose size and modification time (nanoseconds) are those recorded
//! is taken as unchanged without reading it, as make and cargo do. Otherwise, and for "racy"
//! files (modified less than [`RACY_SECS`] before the recorded build started, when a later
//! write could keep the same timestamp, as git handles it), the file is read and its BLAKE3
//! hash compared, so touching a file without changing it rebuilds nothing but the timestamp.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;

use crate::source::Detection;

/// The folder, beside the EPUB, that holds manifests.
pub const CACHE_DIR: &str = ".epubforge-cache";

/// A file modified this close before a build started is re-read by the next build.
pub const RACY_SECS: i128 = 2;

pub(crate) mod plan;

const MAGIC: &str = "epubforge-cache 5";

/// The encoding and detection of a chapter read as plain UTF-8, which the manifest leaves out.
pub const PLAIN: (&str, Detection) = ("UTF-8", Detection::Utf8);

/// The first 16 bytes of a BLAKE3 hash, in hex. 128 bits are far beyond what telling
/// thousands of files and settings apart needs (cargo's fingerprints have 64), and the
/// manifest of a 3000-chapter book, three hashes a chapter, is read and written on every
/// rebuild.
///
/// Kept inline rather than as a string: the cache holds a few per chapter, and each string
/// was an allocation to make, clone and free on every rebuild. [`Hash::default`] is the
/// empty hash (a file that could not be read), written as an empty field.
#[derive(Clone, Copy, PartialEq, Eq, Default, std::hash::Hash)]
pub struct Hash([u8; 32]);

impl Hash {
    /// The hex digits; empty for the empty hash.
    pub fn as_str(&self) -> &str {
        let len = if self.is_empty() { 0 } else { self.0.len() };
        // Only ASCII hex digits are ever stored (see `hex` and `parse`).
        std::str::from_utf8(&self.0[..len]).unwrap_or_default()
    }

    /// Whether this is the empty hash.
    pub fn is_empty(&self) -> bool {
        self.0[0] == 0
    }

    /// Reads a hash as the build cache writes it: 32 lowercase hex digits, or nothing.
    pub fn parse(s: &str) -> Option<Hash> {
        if s.is_empty() {
            return Some(Hash::default());
        }
        let digits: [u8; 32] = s.as_bytes().try_into().ok()?;
        digits
            .iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            .then_some(Hash(digits))
    }
}

impl std::ops::Deref for Hash {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for Hash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for Hash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

fn hex(hash: blake3::Hash) -> Hash {
    let mut digits = [0; 32];
    digits.copy_from_slice(&hash.to_hex().as_bytes()[..32]);
    Hash(digits)
}

/// Hashes bytes (BLAKE3, hex).
pub fn hash(data: &[u8]) -> Hash {
    hex(blake3::hash(data))
}

/// Hashes several fields, each length-prefixed so that no two lists give the same input.
pub fn hash_fields(fields: &[&[u8]]) -> Hash {
    let mut h = blake3::Hasher::new();
    for f in fields {
        h.update(&(f.len() as u64).to_le_bytes());
        h.update(f);
    }
    hex(h.finalize())
}

/// One hash of every input's path and stamp, in order: equal digests mean no input was
/// touched, which lets an up-to-date book be recognised without comparing record by record.
pub fn inputs_digest<'a>(inputs: impl IntoIterator<Item = (&'a Path, Stamp)>) -> Hash {
    // Laid out in one buffer and hashed at once: the same digest as feeding the hasher line
    // by line, but BLAKE3 hashes a long input many chunks at a time (6000 short updates took
    // about 3% of a no-op rebuild's CPU).
    let inputs = inputs.into_iter();
    let mut bytes = Vec::with_capacity(inputs.size_hint().0 * 96);
    for (path, stamp) in inputs {
        let path = path.as_os_str().as_encoded_bytes();
        bytes.extend_from_slice(&((8 + 16 + path.len()) as u64).to_le_bytes());
        bytes.extend_from_slice(&stamp.size.to_le_bytes());
        bytes.extend_from_slice(&stamp.mtime.to_le_bytes());
        bytes.extend_from_slice(path);
    }
    hex(blake3::hash(&bytes))
}

/// Where the manifest of the EPUB at `output` lives.
pub fn manifest_path(output: &Path) -> PathBuf {
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "book.epub".into());
    dir.join(CACHE_DIR).join(format!("{name}.manifest"))
}

/// Where the EPUB replaced by the last build of `output` is kept until the next build writes:
/// that build writes over it (see [`crate::archive::Spare`]), or deletes it in the background
/// if someone else holds it. It takes as much disk as the EPUB, and is safe to delete.
pub fn spare_path(output: &Path) -> PathBuf {
    let mut path = manifest_path(output);
    path.set_extension("replaced");
    path
}

/// Writes a file of the build cache whole: to a temporary file beside it (creating the folder,
/// and deleted if the process is interrupted), then moved into place, so that a reader never
/// sees half of it.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let (mut tmp, _in_flight) =
        crate::interrupt::create_registered(|| tempfile::NamedTempFile::new_in(dir))?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Size and modification time of a file, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i128,
}

impl From<crate::project::FileStamp> for Stamp {
    fn from(s: crate::project::FileStamp) -> Stamp {
        Stamp {
            size: s.size,
            mtime: nanos(s.modified),
        }
    }
}

/// The stamp of the file at `path`, or None when it cannot be read.
pub fn stamp(path: &Path) -> Option<Stamp> {
    crate::project::FileStamp::of(&std::fs::metadata(path).ok()?).map(Stamp::from)
}

/// Stamps at or after this time are not trusted by a build that started at `started` (both
/// nanoseconds since the epoch): such files are compared by content (see [`RACY_SECS`]).
pub fn trusted_before(started: i128) -> i128 {
    started - RACY_SECS * 1_000_000_000
}

/// Nanoseconds since the epoch (negative before it).
pub fn nanos(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// One input file as the last build saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRecord {
    /// The file.
    pub path: PathBuf,
    /// Its stamp when read.
    pub stamp: Stamp,
    /// BLAKE3 of its bytes.
    pub hash: Hash,
}

/// What the last build learnt about one chapter source, enough to reuse it without reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChapterRecord {
    /// Hash of everything the converted chapter depends on (see `build`).
    pub key: Hash,
    /// Its entry in the EPUB.
    pub entry: String,
    /// Hash of its document as packaged with an empty body: catches any change in what the
    /// package stage puts around the body (title, language, position...).
    pub shell: Hash,
    /// The chapter title.
    pub title: String,
    /// The encoding it was read with (WHATWG name).
    pub encoding: &'static str,
    /// How the encoding was chosen.
    pub detection: Detection,
    /// Warnings, as (line, message).
    pub warnings: Vec<(Option<usize>, String)>,
}

/// The cache file of one EPUB.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Manifest {
    /// Hash of the epubforge version and the build options.
    pub options: Hash,
    /// When that build started (ns since the epoch).
    pub started: i128,
    /// The EPUB written, as left by that build.
    pub output: Option<Stamp>,
    /// Every input file: metadata, cover, then chapter files in reading order.
    pub inputs: Vec<InputRecord>,
    /// One record per chapter source, in reading order.
    pub chapters: Vec<ChapterRecord>,
    /// Name and hash of every other entry of the EPUB (package document, navigation...).
    pub entries: Vec<(String, Hash)>,
    /// [`crate::package::frame_key`] of that build's book (empty: not known).
    pub frame: String,
    /// That book's `dcterms:modified`, which the frame key leaves out.
    pub modified: String,
}

/// A manifest's content, borrowed: what a build renders its cache text from without copying
/// thousands of records into a [`Manifest`] first.
pub struct ManifestParts<'a> {
    /// As in [`Manifest`].
    pub options: &'a str,
    /// As in [`Manifest`].
    pub started: i128,
    /// As in [`Manifest`].
    pub inputs: &'a [InputRecord],
    /// One line per chapter record.
    pub chapters: Vec<ChapterLine<'a>>,
    /// As in [`Manifest`].
    pub entries: &'a [(String, Hash)],
    /// As in [`Manifest`].
    pub frame: &'a str,
    /// As in [`Manifest`].
    pub modified: &'a str,
}

/// A [`ChapterRecord`], borrowed.
pub struct ChapterLine<'a> {
    /// As in [`ChapterRecord`].
    pub key: &'a str,
    /// As in [`ChapterRecord`].
    pub entry: &'a str,
    /// As in [`ChapterRecord`].
    pub shell: &'a str,
    /// As in [`ChapterRecord`].
    pub title: &'a str,
    /// As in [`ChapterRecord`].
    pub encoding: &'static str,
    /// As in [`ChapterRecord`].
    pub detection: Detection,
    /// As in [`ChapterRecord`].
    pub warnings: Vec<(Option<usize>, &'a str)>,
}

impl ManifestParts<'_> {
    /// [`Manifest::body_text`] of these parts.
    pub fn body_text(&self) -> String {
        use std::fmt::Write as _;
        // Thousands of records: pushed field by field, escaping only what needs it.
        let mut s = String::with_capacity(
            1024 + self.inputs.len() * 160 + self.chapters.len() * 240 + self.entries.len() * 120,
        );
        let _ = writeln!(s, "options\t{}", self.options);
        let _ = writeln!(s, "started\t{}", self.started);
        let digest = inputs_digest(self.inputs.iter().map(|i| (i.path.as_path(), i.stamp)));
        let newest = self.inputs.iter().map(|i| i.stamp.mtime).max().unwrap_or(0);
        let _ = writeln!(s, "digest\t{}\t{newest}\t{digest}", self.inputs.len());
        let _ = write!(s, "frame\t{}\t", self.frame);
        push_esc(&mut s, self.modified);
        s.push('\n');
        let _ = writeln!(s, "chapters\t{}", self.chapters.len());
        for (at, c) in self.chapters.iter().enumerate() {
            if (c.encoding, c.detection) != PLAIN {
                let _ = write!(s, "encoding\t{at}\t");
                push_esc(&mut s, c.encoding);
                s.push('\t');
                s.push_str(c.detection.name());
                s.push('\n');
            }
        }
        for (at, c) in self.chapters.iter().enumerate() {
            for (line, message) in &c.warnings {
                match line {
                    Some(l) => {
                        let _ = write!(s, "warning\t{at}\t{l}\t");
                    }
                    None => {
                        let _ = write!(s, "warning\t{at}\t-\t");
                    }
                }
                push_esc(&mut s, message);
                s.push('\n');
            }
        }
        for i in self.inputs {
            let _ = write!(s, "input\t{}\t{}\t", i.stamp.size, i.stamp.mtime);
            s.push_str(&i.hash);
            s.push('\t');
            push_esc(&mut s, &i.path.to_string_lossy());
            s.push('\n');
        }
        for c in &self.chapters {
            s.push_str("chapter\t");
            s.push_str(c.key);
            s.push('\t');
            push_esc(&mut s, c.entry);
            s.push('\t');
            s.push_str(c.shell);
            s.push('\t');
            push_esc(&mut s, c.title);
            s.push('\n');
        }
        for (name, h) in self.entries {
            s.push_str("entry\t");
            s.push_str(h);
            s.push('\t');
            push_esc(&mut s, name);
            s.push('\n');
        }
        s
    }
}

/// Appends `s` with backslash, tab, newline and carriage return escaped (all ASCII, so the
/// text is cut at character boundaries).
fn push_esc(out: &mut String, s: &str) {
    let mut kept = 0;
    for (i, b) in s.bytes().enumerate() {
        let escaped = match b {
            b'\\' => "\\\\",
            b'\t' => "\\t",
            b'\n' => "\\n",
            b'\r' => "\\r",
            _ => continue,
        };
        out.push_str(&s[kept..i]);
        out.push_str(escaped);
        kept = i + 1;
    }
    out.push_str(&s[kept..]);
}

fn unesc(s: &str) -> Option<String> {
    if !s.contains('\\') {
        return Some(s.to_owned());
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// What an up-to-date check needs from a manifest, read without parsing its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// As in [`Manifest`].
    pub options: Hash,
    /// As in [`Manifest`].
    pub started: i128,
    /// As in [`Manifest`].
    pub output: Option<Stamp>,
    /// Number of input records.
    pub inputs: usize,
    /// [`inputs_digest`] of the input records.
    pub digest: Hash,
    /// The newest input modification time recorded.
    pub newest: i128,
    /// Number of chapter records.
    pub chapters: usize,
    /// Encoding and detection of each chapter record not read as plain UTF-8, by index.
    pub encodings: Vec<(usize, &'static str, Detection)>,
    /// The warnings of the chapter records, by index: (chapter, line, message).
    pub warnings: Vec<(usize, Option<usize>, String)>,
}

/// One line of a manifest's head: what the summary reads, written before the records.
enum Head<'a> {
    Options(Hash),
    Started(i128),
    Output(Stamp),
    Digest {
        inputs: usize,
        newest: i128,
        digest: Hash,
    },
    Chapters(usize),
    /// The frame key and the modified date.
    Frame(&'a str, String),
    /// A chapter not read as plain UTF-8: (chapter, encoding, detection).
    Encoding(usize, &'static str, Detection),
    /// (chapter, line, message).
    Warning(usize, Option<usize>, String),
    /// The first record: the head is over.
    Record,
}

impl<'a> Head<'a> {
    /// None when the line is damaged or unknown.
    fn parse(line: &'a str) -> Option<Head<'a>> {
        let (kind, rest) = line.split_once('\t')?;
        let mut f = rest.split('\t');
        let mut next = || f.next();
        Some(match kind {
            "input" | "chapter" | "entry" => Head::Record,
            "options" => Head::Options(Hash::parse(rest)?),
            "started" => Head::Started(rest.parse().ok()?),
            "output" => Head::Output(Stamp {
                size: next()?.parse().ok()?,
                mtime: next()?.parse().ok()?,
            }),
            "digest" => Head::Digest {
                inputs: next()?.parse().ok()?,
                newest: next()?.parse().ok()?,
                digest: Hash::parse(next()?)?,
            },
            "chapters" => Head::Chapters(rest.parse().ok()?),
            "frame" => Head::Frame(next()?, unesc(next()?)?),
            "encoding" => Head::Encoding(
                next()?.parse().ok()?,
                encoding_rs::Encoding::for_label(unesc(next()?)?.as_bytes())?.name(),
                Detection::from_name(next()?)?,
            ),
            "warning" => {
                let at = next()?.parse().ok()?;
                let line = match next()? {
                    "-" => None,
                    l => Some(l.parse().ok()?),
                };
                Head::Warning(at, line, unesc(next()?)?)
            }
            _ => return None,
        })
    }
}

/// Where the body of a manifest's text lies (between its magic line and its checksum line),
/// or None when the checksum does not match or the magic is not this version's.
fn verified_body(text: &str) -> Option<std::ops::Range<usize>> {
    let (body, end) = text.split_at(text.rfind("end\t")?);
    if end.trim_end() != format!("end\t{}", hash(body.as_bytes())) || !body.ends_with('\n') {
        return None;
    }
    body.strip_prefix(MAGIC)?.strip_prefix('\n')?;
    Some(MAGIC.len() + 1..body.len())
}

/// A manifest file's text, checksum verified, to summarise or parse in full.
pub struct ManifestText {
    text: String,
    body: std::ops::Range<usize>,
}

impl ManifestText {
    /// Reads the manifest of the EPUB at `output`; None when missing or damaged.
    pub fn load(output: &Path) -> Option<ManifestText> {
        let text = std::fs::read_to_string(manifest_path(output)).ok()?;
        let body = verified_body(&text)?;
        Some(ManifestText { text, body })
    }

    fn body(&self) -> &str {
        &self.text[self.body.clone()]
    }

    /// The head, the chapters' encodings and warnings: the lines before the first record
    /// (thousands of records are not even looked at).
    pub fn summary(&self) -> Option<Summary> {
        let mut m = Summary {
            options: Hash::default(),
            started: 0,
            output: None,
            inputs: 0,
            digest: Hash::default(),
            newest: 0,
            chapters: 0,
            encodings: Vec::new(),
            warnings: Vec::new(),
        };
        let mut chapters = None;
        for line in self.body().lines() {
            match Head::parse(line)? {
                Head::Options(h) => m.options = h,
                Head::Started(t) => m.started = t,
                Head::Output(o) => m.output = Some(o),
                Head::Digest {
                    inputs,
                    newest,
                    digest,
                } => {
                    m.inputs = inputs;
                    m.newest = newest;
                    m.digest = digest;
                }
                Head::Chapters(n) => chapters = Some(n),
                Head::Frame(..) => {}
                Head::Encoding(at, encoding, detection) => {
                    m.encodings.push((at, encoding, detection))
                }
                Head::Warning(at, line, message) => m.warnings.push((at, line, message)),
                Head::Record => break,
            }
        }
        m.chapters = chapters?;
        let in_order = |a: &[usize]| a.windows(2).all(|w| w[0] <= w[1]);
        let encoded: Vec<usize> = m.encodings.iter().map(|e| e.0).collect();
        let warned: Vec<usize> = m.warnings.iter().map(|w| w.0).collect();
        (in_order(&encoded)
            && in_order(&warned)
            && encoded.last().is_none_or(|&i| i < m.chapters)
            && warned.last().is_none_or(|&i| i < m.chapters))
        .then_some(m)
    }

    /// The whole manifest (its checksum was verified on loading).
    pub fn parse(&self) -> Option<Manifest> {
        Manifest::parse_body(self.body())
    }
}

impl Manifest {
    /// The manifest as text, ending with a checksum line.
    pub fn to_text(&self) -> String {
        Manifest::text_with(&self.body_text(), self.output)
    }

    /// The manifest file's text from a [`Manifest::body_text`] and the stamp of the EPUB
    /// written, which is known last: the body can be rendered while the EPUB is written.
    pub fn text_with(body: &str, output: Option<Stamp>) -> String {
        use std::fmt::Write as _;
        let mut s = String::with_capacity(body.len() + 200);
        let _ = writeln!(s, "{MAGIC}");
        if let Some(o) = output {
            let _ = writeln!(s, "output\t{}\t{}", o.size, o.mtime);
        }
        s.push_str(body);
        let sum = hash(s.as_bytes());
        let _ = writeln!(s, "end\t{sum}");
        s
    }

    /// Every line of the text except the magic line, the output stamp and the checksum.
    pub fn body_text(&self) -> String {
        ManifestParts {
            options: &self.options,
            started: self.started,
            inputs: &self.inputs,
            chapters: self
                .chapters
                .iter()
                .map(|c| ChapterLine {
                    key: &c.key,
                    entry: &c.entry,
                    shell: &c.shell,
                    title: &c.title,
                    encoding: c.encoding,
                    detection: c.detection,
                    warnings: c.warnings.iter().map(|(l, m)| (*l, m.as_str())).collect(),
                })
                .collect(),
            entries: &self.entries,
            frame: &self.frame,
            modified: &self.modified,
        }
        .body_text()
    }

    /// Parses a manifest; None when it is damaged in any way.
    #[cfg(test)]
    pub fn parse(text: &str) -> Option<Manifest> {
        Manifest::parse_body(&text[verified_body(text)?])
    }

    /// Parses the head and the records of a verified body.
    fn parse_body(body: &str) -> Option<Manifest> {
        let mut m = Manifest::default();
        let (mut chapters, mut encodings, mut warnings) = (None, Vec::new(), Vec::new());
        let mut f: Vec<&str> = Vec::with_capacity(8);
        for line in body.lines() {
            f.clear();
            f.extend(line.split('\t'));
            match f.as_slice() {
                ["input", size, mtime, h, path] => m.inputs.push(InputRecord {
                    path: PathBuf::from(unesc(path)?),
                    stamp: Stamp {
                        size: size.parse().ok()?,
                        mtime: mtime.parse().ok()?,
                    },
                    hash: Hash::parse(h)?,
                }),
                ["chapter", key, entry, shell, title] => m.chapters.push(ChapterRecord {
                    key: Hash::parse(key)?,
                    entry: unesc(entry)?,
                    shell: Hash::parse(shell)?,
                    title: unesc(title)?,
                    encoding: PLAIN.0,
                    detection: PLAIN.1,
                    warnings: Vec::new(),
                }),
                ["entry", h, name] => m.entries.push((unesc(name)?, Hash::parse(h)?)),
                _ => match Head::parse(line)? {
                    Head::Options(h) => m.options = h,
                    Head::Started(t) => m.started = t,
                    Head::Output(o) => m.output = Some(o),
                    Head::Digest { .. } => {}
                    Head::Chapters(n) => chapters = Some(n),
                    Head::Frame(key, modified) => (m.frame, m.modified) = (key.into(), modified),
                    Head::Encoding(at, encoding, detection) => {
                        encodings.push((at, encoding, detection))
                    }
                    Head::Warning(at, line, message) => warnings.push((at, line, message)),
                    Head::Record => return None,
                },
            }
        }
        if chapters? != m.chapters.len() {
            return None;
        }
        for (at, encoding, detection) in encodings {
            let c = m.chapters.get_mut(at)?;
            (c.encoding, c.detection) = (encoding, detection);
        }
        for (at, line, message) in warnings {
            m.chapters.get_mut(at)?.warnings.push((line, message));
        }
        Some(m)
    }

    /// Writes the manifest of the EPUB at `output` (atomically, so a reader never sees half).
    pub fn save(&self, output: &Path) -> std::io::Result<()> {
        Manifest::save_text(&self.to_text(), output)
    }

    /// [`Manifest::save`] for a manifest already turned into text.
    pub fn save_text(text: &str, output: &Path) -> std::io::Result<()> {
        write_whole(&manifest_path(output), text.as_bytes())
    }

    /// Removes the manifest of the EPUB at `output`, if any.
    pub fn remove(output: &Path) {
        let _ = std::fs::remove_file(manifest_path(output));
    }
}

/// The current state of the input files, checked against the previous manifest.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// One record per input, in the same order as given.
    pub records: Vec<InputRecord>,
    /// Whether each input is known unchanged (same content as recorded at the same position).
    pub unchanged: Vec<bool>,
}

/// Stamps and, where needed, hashes `paths`, comparing with `previous` (matched by position
/// and path). A path may come with the stamp it had when the project was loaded, which is
/// used instead of looking again. Unreadable files get an empty hash and count as changed:
/// the build that follows reports the real error.
pub fn check_inputs(paths: &[(&Path, Option<Stamp>)], previous: Option<&Manifest>) -> Inputs {
    let racy_after = previous.map(|m| trusted_before(m.started));
    let old_of = |i: usize, path: &Path| {
        previous
            .and_then(|m| m.inputs.get(i))
            .filter(|r| r.path == path)
    };
    // First the stamps, which usually settle everything (an up-to-date book reads no file and
    // starts no thread); then the hashes of the rest, in parallel.
    let mut records = Vec::with_capacity(paths.len());
    let mut unchanged = Vec::with_capacity(paths.len());
    let mut to_hash = Vec::new();
    for (i, &(path, known)) in paths.iter().enumerate() {
        let old = old_of(i, path);
        let st = known.or_else(|| stamp(path));
        if let (Some(old), Some(st), Some(racy_after)) = (old, st, racy_after)
            && old.stamp == st
            && st.mtime < racy_after
        {
            records.push(old.clone());
            unchanged.push(true);
            continue;
        }
        to_hash.push(i);
        records.push(InputRecord {
            path: path.to_path_buf(),
            stamp: st.unwrap_or(Stamp { size: 0, mtime: 0 }),
            hash: Hash::default(),
        });
        unchanged.push(false);
    }
    let hashes: Vec<Hash> = to_hash
        .par_iter()
        .map(|&i| {
            std::fs::read(paths[i].0)
                .map(|b| hash(&b))
                .unwrap_or_default()
        })
        .collect();
    for (i, h) in to_hash.into_iter().zip(hashes) {
        let old = old_of(i, paths[i].0);
        unchanged[i] = !h.is_empty() && old.is_some_and(|o| o.hash == h);
        records[i].hash = h;
    }
    Inputs { records, unchanged }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            options: hash(b"o"),
            started: 1_700_000_000_000_000_000,
            output: Some(Stamp {
                size: 10,
                mtime: 20,
            }),
            inputs: vec![InputRecord {
                path: "/a b/metadata.toml".into(),
                stamp: Stamp { size: 1, mtime: -2 },
                hash: hash(b"x"),
            }],
            chapters: vec![ChapterRecord {
                key: hash(b"k"),
                entry: "EPUB/text/chapter-0001.xhtml".into(),
                shell: hash(b"s"),
                title: "第1章\t\\ 风起\n".into(),
                encoding: "UTF-8",
                detection: Detection::Utf8,
                warnings: vec![(Some(3), "dropped".into()), (None, "empty\r\\n\t".into())],
            }],
            entries: vec![("EPUB/nav.xhtml".into(), hash(b"n"))],
            frame: hash(b"f").to_string(),
            modified: "2024-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn hashes_read_back_as_written_and_refuse_anything_else() {
        let h = hash(b"x");
        assert_eq!(h.len(), 32);
        assert_eq!(Hash::parse(&h), Some(h));
        assert_eq!(h.to_string(), blake3::hash(b"x").to_hex()[..32]);
        let empty = Hash::parse("").unwrap();
        assert!(empty.is_empty() && empty.as_str().is_empty() && !h.is_empty());
        assert_eq!(empty, Hash::default());
        for bad in [
            &h[..31],
            &h.to_uppercase(),
            &format!("{}g", &h[..31]),
            &format!("{h}0"),
        ] {
            assert_eq!(Hash::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_inputs_digest_is_the_hash_of_length_prefixed_lines() {
        // The definition the build cache's digest line has always had: each input as a line
        // (size, mtime, path) fed to the hasher after its length.
        let inputs = [
            (
                Path::new("metadata.toml"),
                Stamp {
                    size: 12,
                    mtime: -3,
                },
            ),
            (
                Path::new("章/一.txt"),
                Stamp {
                    size: u64::MAX,
                    mtime: i128::MAX,
                },
            ),
            (Path::new(""), Stamp { size: 0, mtime: 0 }),
        ];
        let mut h = blake3::Hasher::new();
        for (path, stamp) in inputs {
            let mut line = stamp.size.to_le_bytes().to_vec();
            line.extend_from_slice(&stamp.mtime.to_le_bytes());
            line.extend_from_slice(path.as_os_str().as_encoded_bytes());
            h.update(&(line.len() as u64).to_le_bytes());
            h.update(&line);
        }
        assert_eq!(inputs_digest(inputs), hex(h.finalize()));
        assert_ne!(
            inputs_digest(inputs),
            inputs_digest(inputs[..2].iter().copied())
        );
    }

    #[test]
    fn the_summary_reads_the_head_and_the_report_without_the_records() {
        let mut m = sample();
        m.chapters.push(ChapterRecord {
            encoding: "GBK",
            detection: Detection::Guessed,
            warnings: vec![(None, "gap".into())],
            ..m.chapters[0].clone()
        });
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("book.epub");
        m.save(&output).unwrap();
        let text = ManifestText::load(&output).unwrap();
        assert_eq!(text.parse(), Some(m.clone()));
        let summary = text.summary().unwrap();
        assert_eq!(summary.options, m.options);
        assert_eq!(summary.output, m.output);
        assert_eq!((summary.inputs, summary.chapters), (1, 2));
        assert_eq!(summary.newest, -2);
        assert_eq!(
            summary.digest,
            inputs_digest(m.inputs.iter().map(|i| (i.path.as_path(), i.stamp)))
        );
        assert_eq!(summary.encodings, [(1, "GBK", Detection::Guessed)]);
        assert_eq!(
            summary.warnings,
            [
                (0, Some(3), "dropped".into()),
                (0, None, "empty\r\\n\t".into()),
                (1, None, "gap".into())
            ]
        );
        // A touched input changes the digest.
        let touched = Stamp { size: 1, mtime: -1 };
        assert_ne!(
            summary.digest,
            inputs_digest([(m.inputs[0].path.as_path(), touched)])
        );
        // A damaged file is not summarised.
        let path = manifest_path(&output);
        let damaged = std::fs::read_to_string(&path)
            .unwrap()
            .replace("GBK", "GB2");
        std::fs::write(&path, damaged).unwrap();
        assert!(ManifestText::load(&output).is_none());
    }

    #[test]
    fn the_summary_stops_where_the_records_start() {
        let m = sample();
        let body = m.body_text();
        let records = body.find("input\t").unwrap();
        assert!(body[..records].contains("chapters\t1\n"));
        // Records the summary must not even look at: damaged, but checksummed.
        let text = Manifest::text_with(
            &format!("{}chapter\tdamaged\n{}", &body[..records], &body[records..]),
            m.output,
        );
        let dir = tempfile::tempdir().unwrap();
        let output = dir.path().join("book.epub");
        std::fs::create_dir_all(manifest_path(&output).parent().unwrap()).unwrap();
        std::fs::write(manifest_path(&output), &text).unwrap();
        let loaded = ManifestText::load(&output).unwrap();
        assert!(loaded.parse().is_none());
        let summary = loaded.summary().unwrap();
        assert_eq!((summary.chapters, summary.warnings.len()), (1, 2));
        // The frame key is kept.
        let back = Manifest::parse(&m.to_text()).unwrap();
        assert_eq!((back.frame, back.modified), (m.frame, m.modified));
    }

    #[test]
    fn a_manifest_reads_back_as_written() {
        let m = sample();
        assert_eq!(Manifest::parse(&m.to_text()), Some(m));
    }

    #[test]
    fn a_damaged_manifest_is_rejected() {
        let text = sample().to_text();
        assert!(Manifest::parse(&text.replace("chapter-0001", "chapter-0002")).is_none());
        assert!(Manifest::parse(&text[..text.len() / 2]).is_none());
        assert!(Manifest::parse("").is_none());
        assert!(Manifest::parse("garbage\tend\t").is_none());
    }

    #[test]
    fn inputs_compare_by_stamp_then_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        std::fs::write(&a, "one").unwrap();
        let first = check_inputs(&[(a.as_path(), None)], None);
        assert_eq!(first.unchanged, vec![false]);
        let mut m = Manifest {
            inputs: first.records.clone(),
            // Long after the write, so the stamp is trusted.
            started: nanos(SystemTime::now()) + 10_000_000_000,
            ..Manifest::default()
        };
        assert_eq!(
            check_inputs(&[(a.as_path(), None)], Some(&m)).unchanged,
            vec![true]
        );

        // Same size, same recorded stamp, but the build started right after the write: racy,
        // so the content is compared and the change is seen.
        std::fs::write(&a, "two").unwrap();
        m.inputs[0].stamp = stamp(&a).unwrap();
        m.started = m.inputs[0].stamp.mtime;
        assert_eq!(
            check_inputs(&[(a.as_path(), None)], Some(&m)).unchanged,
            vec![false]
        );

        // A new stamp with the old content counts as unchanged.
        let now = check_inputs(&[(a.as_path(), None)], None);
        m.inputs = now.records;
        m.inputs[0].stamp.mtime -= 1;
        assert_eq!(
            check_inputs(&[(a.as_path(), None)], Some(&m)).unchanged,
            vec![true]
        );
    }
}
