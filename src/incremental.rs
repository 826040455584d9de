//! The build cache: what the last successful build of a book read and wrote, so the next build
//! can skip a book whose inputs have not changed, and reuse the compressed chapters of the
//! previous EPUB whose sources have not changed.
//!
//! Sits beside the pipeline: [`crate::build`] consults it before `source`/`convert` (to skip
//! unchanged chapters) and hands the archive stage the entries to copy raw from the previous
//! EPUB. The cache is one text file per EPUB, `<output folder>/.epubforge-cache/<file>.manifest`,
//! safe to delete. It ends with a BLAKE3 checksum of its own contents; a manifest that is
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

/// The folder, beside the EPUB, that holds manifests.
pub const CACHE_DIR: &str = ".epubforge-cache";

/// A file modified this close before a build started is re-read by the next build.
pub const RACY_SECS: i128 = 2;

const MAGIC: &str = "epubforge-cache 1";

/// A 32-byte BLAKE3 hash, in hex.
pub type Hash = String;

/// Hashes bytes (BLAKE3, hex).
pub fn hash(data: &[u8]) -> Hash {
    blake3::hash(data).to_hex().to_string()
}

/// Hashes several fields, each length-prefixed so that no two lists give the same input.
pub fn hash_fields(fields: &[&[u8]]) -> Hash {
    let mut h = blake3::Hasher::new();
    for f in fields {
        h.update(&(f.len() as u64).to_le_bytes());
        h.update(f);
    }
    h.finalize().to_hex().to_string()
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

/// Size and modification time of a file, as recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i128,
}

/// The stamp of the file at `path`, or None when it cannot be read.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?;
    Some(Stamp {
        size: meta.len(),
        mtime: nanos(mtime),
    })
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
    pub encoding: String,
    /// How the encoding was chosen (`Debug` of `source::Detection`).
    pub detection: String,
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
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
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

impl Manifest {
    /// The manifest as text, ending with a checksum line.
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(s, "{MAGIC}");
        let _ = writeln!(s, "options\t{}", self.options);
        let _ = writeln!(s, "started\t{}", self.started);
        if let Some(o) = self.output {
            let _ = writeln!(s, "output\t{}\t{}", o.size, o.mtime);
        }
        for i in &self.inputs {
            let _ = writeln!(
                s,
                "input\t{}\t{}\t{}\t{}",
                i.stamp.size,
                i.stamp.mtime,
                i.hash,
                esc(&i.path.to_string_lossy())
            );
        }
        for c in &self.chapters {
            let _ = writeln!(
                s,
                "chapter\t{}\t{}\t{}\t{}\t{}\t{}",
                c.key,
                esc(&c.entry),
                c.shell,
                esc(&c.encoding),
                esc(&c.detection),
                esc(&c.title)
            );
            for (line, message) in &c.warnings {
                let line = line.map(|l| l.to_string()).unwrap_or_else(|| "-".into());
                let _ = writeln!(s, "warning\t{line}\t{}", esc(message));
            }
        }
        let sum = hash(s.as_bytes());
        let _ = writeln!(s, "end\t{sum}");
        s
    }

    /// Parses a manifest; None when it is damaged in any way.
    pub fn parse(text: &str) -> Option<Manifest> {
        let body_end = text.rfind("end\t")?;
        let (body, end) = text.split_at(body_end);
        if end.trim_end() != format!("end\t{}", hash(body.as_bytes())) || !body.ends_with('\n') {
            return None;
        }
        let mut lines = body.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let mut m = Manifest::default();
        let mut f: Vec<&str> = Vec::with_capacity(8);
        for line in lines {
            f.clear();
            f.extend(line.split('\t'));
            match f.as_slice() {
                ["options", h] => m.options = (*h).into(),
                ["started", t] => m.started = t.parse().ok()?,
                ["output", size, mtime] => {
                    m.output = Some(Stamp {
                        size: size.parse().ok()?,
                        mtime: mtime.parse().ok()?,
                    })
                }
                ["input", size, mtime, h, path] => m.inputs.push(InputRecord {
                    path: PathBuf::from(unesc(path)?),
                    stamp: Stamp {
                        size: size.parse().ok()?,
                        mtime: mtime.parse().ok()?,
                    },
                    hash: (*h).into(),
                }),
                ["chapter", key, entry, shell, encoding, detection, title] => {
                    m.chapters.push(ChapterRecord {
                        key: (*key).into(),
                        entry: unesc(entry)?,
                        shell: (*shell).into(),
                        encoding: unesc(encoding)?,
                        detection: unesc(detection)?,
                        title: unesc(title)?,
                        warnings: Vec::new(),
                    })
                }
                ["warning", line, message] => {
                    let line = match *line {
                        "-" => None,
                        l => Some(l.parse().ok()?),
                    };
                    m.chapters
                        .last_mut()?
                        .warnings
                        .push((line, unesc(message)?));
                }
                _ => return None,
            }
        }
        Some(m)
    }

    /// Reads the manifest of the EPUB at `output`; None when missing or damaged.
    pub fn load(output: &Path) -> Option<Manifest> {
        let text = std::fs::read_to_string(manifest_path(output)).ok()?;
        Manifest::parse(&text)
    }

    /// Writes the manifest of the EPUB at `output` (atomically, so a reader never sees half).
    pub fn save(&self, output: &Path) -> std::io::Result<()> {
        let path = manifest_path(output);
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut tmp, self.to_text().as_bytes())?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
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
/// and path). Unreadable files get an empty hash and count as changed: the build that follows
/// reports the real error.
pub fn check_inputs(paths: &[&Path], previous: Option<&Manifest>) -> Inputs {
    let racy_after = previous.map(|m| m.started - RACY_SECS * 1_000_000_000);
    let (records, unchanged): (Vec<_>, Vec<_>) = paths
        .par_iter()
        .enumerate()
        .map(|(i, path)| {
            let old = previous
                .and_then(|m| m.inputs.get(i))
                .filter(|r| r.path == *path);
            let st = stamp(path);
            if let (Some(old), Some(st), Some(racy_after)) = (old, st, racy_after)
                && old.stamp == st
                && st.mtime < racy_after
            {
                return (old.clone(), true);
            }
            let h = std::fs::read(path).map(|b| hash(&b)).unwrap_or_default();
            let same = !h.is_empty() && old.is_some_and(|o| o.hash == h);
            let record = InputRecord {
                path: path.to_path_buf(),
                stamp: st.unwrap_or(Stamp { size: 0, mtime: 0 }),
                hash: h,
            };
            (record, same)
        })
        .unzip();
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
                encoding: "UTF-8".into(),
                detection: "Utf8".into(),
                warnings: vec![(Some(3), "dropped".into()), (None, "empty".into())],
            }],
        }
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
        let first = check_inputs(&[&a], None);
        assert_eq!(first.unchanged, vec![false]);
        let mut m = Manifest {
            inputs: first.records.clone(),
            // Long after the write, so the stamp is trusted.
            started: nanos(SystemTime::now()) + 10_000_000_000,
            ..Manifest::default()
        };
        assert_eq!(check_inputs(&[&a], Some(&m)).unchanged, vec![true]);

        // Same size, same recorded stamp, but the build started right after the write: racy,
        // so the content is compared and the change is seen.
        std::fs::write(&a, "two").unwrap();
        m.inputs[0].stamp = stamp(&a).unwrap();
        m.started = m.inputs[0].stamp.mtime;
        assert_eq!(check_inputs(&[&a], Some(&m)).unchanged, vec![false]);

        // A new stamp with the old content counts as unchanged.
        let now = check_inputs(&[&a], None);
        m.inputs = now.records;
        m.inputs[0].stamp.mtime -= 1;
        assert_eq!(check_inputs(&[&a], Some(&m)).unchanged, vec![true]);
    }
}
