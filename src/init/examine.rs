//! What `init` reads off each chapter file: its encoding as the build detects it, its title,
//! whether it is split at its headings, a sample of its language, a lone file's header, the
//! site lines a download's cleanup preset removes; for the one-command build only the head
//! and tail of a big text file ([`Found::quick`]).

use std::path::Path;

use super::*;

/// How much text, over all chapters, the language is guessed from.
pub(super) const LANGUAGE_SAMPLE_BYTES: usize = 512 << 10;

/// Chapter headings a text file needs to be split at them.
pub(super) const SPLIT_MIN_HEADINGS: usize = 2;

/// What reading the chapters told about the book.
#[derive(Default)]
pub(super) struct Found {
    /// Text to guess the language from.
    pub(super) sample: String,
    /// What the first file that says anything says about the book (a Project Gutenberg
    /// header; a lone file's own title and metadata).
    pub(super) about: About,
    /// What a lone text file's first lines say (`《书名》`, `作者：某某`).
    pub(super) header: names::Header,
    /// A lone Japanese text file's Aozora header block (title, subtitle, author, translator).
    pub(super) aozora: Option<japanese::AozoraHeader>,
    /// The headings the split text files are cut at; a file not split is one chapter.
    pub(super) headings: Headings,
    /// A Markdown or HTML file is split at its headings: `headings` does not count its pieces.
    pub(super) uncounted: bool,
    /// Lines of the text files that the `web-novel` cleanup preset removes whole.
    pub(super) site_lines: usize,
    /// That preset, compiled when the first text file is read.
    pub(super) preset: Option<TextFix>,
    /// One file built in one go (`epubforge FILE`): only what the metadata needs is read off
    /// it, not what the build itself finds (its chapters, every site line), so that the
    /// one-command build costs little more than the build ([`quick_headings`]).
    pub(super) quick: bool,
}

/// Reads a planned chapter whole, as the build reads it: its encoding, title and whether it is
/// to be split (a text file with chapter headings; a Markdown or HTML file that is the book's
/// only chapter, at the level of its headings).
pub(super) fn examine(
    boundary: &Boundary,
    dir: &Path,
    p: Planned,
    lone: bool,
    found: &mut Found,
    notes: &mut Vec<Diagnostic>,
) -> ChapterGuess {
    let path = dir.join(&p.file);
    let mut kind = SourceKind::of(&path);
    let (text, encoding) = match kind {
        // The build decodes the whole file and guesses its encoding itself.
        SourceKind::Text if found.quick => (read_head(boundary, &path, notes), None),
        _ => read_whole(boundary, &path, notes),
    };
    // A `.txt` in pandoc's Markdown (a title block and `#` headings) is read as Markdown.
    let format = (kind == SourceKind::Text && SourceKind::is_pandoc_text(&text)).then(|| {
        kind = SourceKind::Markdown;
        "markdown".to_string()
    });
    if found.about.is_empty() {
        found.about = crate::convert::about::about(kind, &text, lone);
    }
    sample_language(found, &text);
    if kind == SourceKind::Text {
        read_text_header(found, (&text, &path, &p.file), lone);
    }
    let counted = match kind {
        SourceKind::Text if p.title.is_none() && found.quick => quick_headings(&text),
        SourceKind::Text if p.title.is_none() => headings(&text),
        _ => Headings::default(),
    };
    let split = match kind {
        _ if p.title.is_some() => None,
        SourceKind::Text => (counted.chapters >= SPLIT_MIN_HEADINGS).then(|| "auto".to_string()),
        _ if lone => split_level(kind, &text).map(|l| format!("h{l}")),
        _ => None,
    };
    match &split {
        Some(_) if kind == SourceKind::Text => {
            found.headings.volumes += counted.volumes;
            found.headings.chapters += counted.chapters;
        }
        // A Markdown or HTML file cut at its headings: only the build counts the pieces.
        Some(_) => found.uncounted = true,
        None => found.headings.chapters += 1,
    }
    let title = if split.is_some() {
        None
    } else {
        p.title
            .or_else(|| title_in(kind, &text))
            .or_else(|| title_from_file_name(&path))
    };
    ChapterGuess {
        file: p.file,
        title,
        encoding,
        split,
        format,
        level: p.level,
        placement: p.placement,
        linear: p.linear,
    }
}

/// Adds the start of `text` to the sample the book's language is guessed from, up to
/// `LANGUAGE_SAMPLE_BYTES` in all.
pub(super) fn sample_language(found: &mut Found, text: &str) {
    if found.sample.len() < LANGUAGE_SAMPLE_BYTES {
        let room = LANGUAGE_SAMPLE_BYTES - found.sample.len();
        let end = (0..=room.min(text.len()))
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        found.sample.push_str(&text[..end]);
    }
}

/// What a text chapter file says of the book: a lone file's first lines (title, author, an
/// Aozora Bunko header) and the site lines a download's cleanup preset would remove.
pub(super) fn read_text_header(
    found: &mut Found,
    (text, path, file): (&str, &Path, &str),
    lone: bool,
) {
    if lone {
        found.header = names::from_first_lines(text);
        if let Some(h) = japanese::aozora_header(text) {
            found.header.title = Some(h.title.clone());
            found.header.author = h.author.clone().or(found.header.author.take());
            found.aozora = Some(h);
        }
    }
    let preset = found.preset.get_or_insert_with(web_novel_preset);
    found.site_lines += site_lines(text, path, file, preset, found.quick);
}

/// The preset a download with site lines gets.
pub(super) const PRESET: &str = "web-novel";

/// The `web-novel` cleanup preset alone, as the build runs it.
pub(super) fn web_novel_preset() -> TextFix {
    TextFix::new(Settings {
        rules: TextFix::preset(PRESET).unwrap_or_default(),
        conversion: None,
        quotes: None,
        typography: Typography::Off,
    })
}

/// How many lines of `text` holding an address (a dot or a colon) the preset removes whole: a
/// site's name or address, a download notice. Longer lines are paragraphs, which no line rule
/// removes, and are not looked at.
/// With `quick` (a file built in one go, where only whether the preset is wanted matters: the
/// build's summary says what it removed), only the first and last [`QUICK_SITE_LINES`] lines
/// are tried, where a download's site header and footer are.
pub(super) fn site_lines(
    text: &str,
    path: &Path,
    rel: &str,
    preset: &TextFix,
    quick: bool,
) -> usize {
    let file = FileRef {
        path,
        relative: rel,
    };
    // Only lines holding an address are tried: running the rules on every line of a novel
    // cost more than the build itself.
    let tried = |l: &&str| l.len() <= SITE_LINE_BYTES && l.contains(['.', '．', ':', '：']);
    let count = |lines: &mut dyn Iterator<Item = &str>| {
        lines
            .filter(tried)
            .filter(|l| preset.removes_line(l, file))
            .count()
    };
    let lines = text.lines().count();
    if !quick || lines <= 2 * QUICK_SITE_LINES {
        return count(&mut text.lines());
    }
    count(&mut text.lines().take(QUICK_SITE_LINES))
        + count(&mut text.lines().skip(lines - QUICK_SITE_LINES))
}

/// How many lines at each end of a file built in one go [`site_lines`] tries.
pub(super) const QUICK_SITE_LINES: usize = 1000;

/// Whether a text file built in one go has chapter headings to be split at: the line test of
/// the split ([`crate::convert::split::is_heading`], which names every line the whole file may
/// make a heading), stopping at the [`SPLIT_MIN_HEADINGS`]th. The build's own split decides
/// and counts them (its outline says how many); a second whole split here would cost as much
/// as the build's.
pub(super) fn quick_headings(text: &str) -> Headings {
    let mode = crate::book::SplitMode::Auto;
    let chapters = text
        .split('\n')
        .filter(|l| crate::convert::split::is_heading(l, &mode))
        .take(SPLIT_MIN_HEADINGS)
        .count();
    Headings {
        volumes: 0,
        chapters,
    }
}

/// The longest line [`site_lines`] looks at, in bytes (the preset's 120 characters, in UTF-8).
pub(super) const SITE_LINE_BYTES: usize = 120 * 4;

/// How much of a text file built in one go is read for its metadata.
pub(super) const QUICK_HEAD_BYTES: u64 = 1 << 20;

/// The first [`QUICK_HEAD_BYTES`] of a text file built in one go, decoded (the encoding guessed
/// from them, cut after a line break so that no character is cut: a line break is never part
/// of a multi-byte character in UTF-8, GBK, Big5 or Shift_JIS), or the whole file when
/// shorter: what its metadata needs (title, author, language, whether it has headings, a site
/// header). The build reads and decodes the whole file itself; reading it twice cost the
/// one-command build a fifth of its time.
pub(super) fn read_head(boundary: &Boundary, path: &Path, notes: &mut Vec<Diagnostic>) -> String {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = boundary.open(path).and_then(|file| {
        file.take(QUICK_HEAD_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| crate::error::Error::io(path, "cannot read", e))
    });
    if let Err(e) = read {
        notes.push(super::note_of(&e));
        return String::new();
    }
    let utf16 = bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]);
    let cut = bytes.len() as u64 == QUICK_HEAD_BYTES;
    if cut {
        let end = match utf16 {
            true => bytes.len() & !1,
            false => memchr::memrchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1),
        };
        bytes.truncate(end);
    }
    let Ok(head) = crate::source::decode(&bytes, None, EncodingErrors::Replace) else {
        return String::new();
    };
    let mut text = head.text;
    if cut && !utf16 {
        text.push_str(&read_tail(boundary, path, head.encoding.name()));
    }
    text
}

/// How much of the end of a long text file built in one go is read for its site lines: a
/// download's footer (`Txt66.com`, `声明：本电子书仅供…`) is as telling as its header.
pub(super) const QUICK_TAIL_BYTES: u64 = 64 << 10;

/// The last [`QUICK_TAIL_BYTES`] of a text file, from its first line break on, decoded as
/// `encoding` (the head's), after a line break; empty when it cannot be read.
pub(super) fn read_tail(boundary: &Boundary, path: &Path, encoding: &str) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let mut bytes = Vec::new();
    let read = boundary.open(path).ok().and_then(|mut file| {
        let len = file.metadata().ok()?.len();
        let from = len.saturating_sub(QUICK_TAIL_BYTES).max(QUICK_HEAD_BYTES);
        file.seek(SeekFrom::Start(from)).ok()?;
        file.take(QUICK_TAIL_BYTES).read_to_end(&mut bytes).ok()
    });
    let Some(start) = read.and_then(|_| memchr::memchr(b'\n', &bytes)) else {
        return String::new();
    };
    crate::source::decode(&bytes[start..], Some(encoding), EncodingErrors::Replace)
        .map(|d| d.text)
        .unwrap_or_default()
}

/// A chapter file's text, decoded as the build decodes it (`convert::chapter::decode_file`),
/// and the encoding to write when the build guesses it (the same guess, from the same bytes).
/// A file the build could not decode is read with its bad bytes replaced, for its title, and
/// noted.
pub(super) fn read_whole(
    boundary: &Boundary,
    path: &Path,
    notes: &mut Vec<Diagnostic>,
) -> (String, Option<String>) {
    match decode_file(boundary, path, None, EncodingErrors::Fail) {
        Ok(d) => {
            let guessed = d.detection == Detection::Guessed;
            (
                d.text,
                guessed.then(|| d.encoding.name().to_ascii_lowercase()),
            )
        }
        Err(e) => {
            let replaced = decode_file(boundary, path, None, EncodingErrors::Replace);
            notes.push(super::note_of(&e));
            (replaced.map(|d| d.text).unwrap_or_default(), None)
        }
    }
}
