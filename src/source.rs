//! The source stage: a chapter file's bytes in, clean text out.
//!
//! Sits between `project` (which says which files and in what encoding) and `convert`. It
//! detects the encoding (BOM, 7-bit ISO-2022-JP by its escapes, strict UTF-8, then a
//! statistical guess with `chardetng` over GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR and
//! single-byte encodings), refuses to produce mojibake,
//! normalises newlines to `\n` and drops the characters XML 1.0 forbids, counting them.

use encoding_rs::{Encoding, UTF_8};

/// What to do with bytes that are not valid in the chosen encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum EncodingErrors {
    /// Stop with an error naming the byte offset (the default: never silent mojibake).
    #[default]
    Fail,
    /// Replace them with U+FFFD and go on.
    Replace,
}

/// Decoded, normalised text and what was done to get it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The text, with `\n` newlines and no XML-forbidden characters but NUL, which is left to
    /// the converters: CommonMark makes it U+FFFD, the HTML parser drops it or makes it U+FFFD
    /// by context, plain text drops it (counted in [`Decoded::nuls`]).
    pub text: String,
    /// The encoding the bytes were read as.
    pub encoding: &'static Encoding,
    /// How the encoding was chosen.
    pub detection: Detection,
    /// Forbidden control characters dropped.
    pub dropped_controls: usize,
    /// 1-based line of the first dropped control character.
    pub first_dropped_line: Option<usize>,
    /// Bytes replaced by U+FFFD: with [`EncodingErrors::Replace`], or in a file of a CJK
    /// multi-byte encoding damaged in a few places (see [`Decoded::damaged_lines`]).
    pub replaced: usize,
    /// The 1-based line of each replaced byte sequence, in order (a line once per sequence).
    pub damaged_lines: Vec<usize>,
    /// NUL characters left in `text`, and the 1-based line of the first.
    pub nuls: (usize, Option<usize>),
}

/// How the encoding of a file was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum Detection {
    /// A byte order mark said so.
    Bom,
    /// The metadata said so.
    Forced,
    /// The bytes are valid UTF-8.
    Utf8,
    /// A statistical guess.
    Guessed,
}

/// Why bytes could not become text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The bytes are not valid in the encoding that was chosen or forced.
    #[error("invalid {encoding} at byte offset {offset} (line {line})")]
    Malformed {
        /// The encoding tried.
        encoding: &'static str,
        /// Byte offset of the first bad sequence.
        offset: usize,
        /// 1-based line of that offset.
        line: usize,
        /// What to do.
        hint: String,
    },
    /// The decoded text does not look like text in any language.
    #[error(
        "decoding as {encoding} gives implausible text ({count} unlikely characters, the first at byte offset {offset})"
    )]
    Implausible {
        /// The encoding tried.
        encoding: &'static str,
        /// How many implausible characters.
        count: usize,
        /// Byte offset of the first.
        offset: usize,
    },
    /// The encoding label is unknown.
    #[error("unknown encoding \"{0}\"")]
    UnknownEncoding(String),
}

impl DecodeError {
    /// What to do about it.
    pub fn hint(&self) -> Option<String> {
        match self {
            DecodeError::Malformed { hint, .. } => Some(hint.clone()),
            DecodeError::Implausible { .. } => Some(
                "set `encoding = \"...\"` on the chapter entry if you know the encoding".into(),
            ),
            DecodeError::UnknownEncoding(_) => None,
        }
    }
}

/// The guess for a file that chardetng took for windows-1252 only because it rules an
/// encoding out at its first bad byte: a GBK, Big5, Shift_JIS or EUC-JP download with one
/// damaged character (a real Jin Yong download has one) would be read as Latin mojibake, in
/// English, one chapter. Taken instead: the CJK encoding that reads it as mostly Han text
/// (and kana, for the Japanese encodings) with at most one bad character in a thousand (or one
/// in a shorter text).
fn cjk_despite_damage(bytes: &[u8], guessed: &'static Encoding) -> &'static Encoding {
    if guessed != encoding_rs::WINDOWS_1252 {
        return guessed;
    }
    let judged = [
        encoding_rs::GBK,
        encoding_rs::BIG5,
        encoding_rs::SHIFT_JIS,
        encoding_rs::EUC_JP,
    ]
    .map(|enc| {
        let japanese = enc == encoding_rs::SHIFT_JIS || enc == encoding_rs::EUC_JP;
        let (text, _) = enc.decode_without_bom_handling(bytes);
        let (mut han, mut bad, mut other) = (0usize, 0usize, 0usize);
        for c in text.chars().filter(|c| !c.is_whitespace() && !c.is_ascii()) {
            match c {
                '\u{FFFD}' => bad += 1,
                '\u{3400}'..='\u{9FFF}' => han += 1,
                '\u{3041}'..='\u{30FA}' if japanese => han += 1,
                _ => other += 1,
            }
        }
        (enc, han, bad, other)
    });
    judged
        .into_iter()
        .filter(|&(_, han, bad, other)| han > 2 * other && bad * 1000 <= han.max(1000))
        .min_by_key(|&(_, _, bad, _)| bad)
        .map_or(guessed, |(enc, ..)| enc)
}

/// The encoding chosen for a file's bytes, how it was chosen, the bytes after any BOM, and
/// the text when the bytes were found to be valid UTF-8 on the way (so as not to check twice).
type Chosen<'b> = (&'static Encoding, Detection, &'b [u8], Option<&'b str>);

/// Chooses the encoding of `bytes`: a BOM, else the encoding `forced`, else 7-bit
/// ISO-2022-JP by its escapes, else strict UTF-8 (damaged UTF-8 is an error unless `errors`
/// says replace), else a statistical guess.
fn choose_encoding<'b>(
    bytes: &'b [u8],
    forced: Option<&str>,
    errors: EncodingErrors,
) -> Result<Chosen<'b>, DecodeError> {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return Ok((enc, Detection::Bom, &bytes[bom_len..], None));
    }
    if let Some(label) = forced {
        let enc = Encoding::for_label(label.trim().as_bytes())
            .ok_or_else(|| DecodeError::UnknownEncoding(label.to_string()))?;
        return Ok((enc, Detection::Forced, bytes, None));
    }
    if is_iso_2022_jp(bytes) {
        return Ok((encoding_rs::ISO_2022_JP, Detection::Guessed, bytes, None));
    }
    match simdutf8::compat::from_utf8(bytes) {
        Ok(text) => Ok((UTF_8, Detection::Utf8, bytes, Some(text))),
        Err(e) if mostly_utf8(bytes) => {
            if errors == EncodingErrors::Fail {
                return Err(malformed_at(
                    UTF_8,
                    &bytes[..e.valid_up_to()],
                    e.valid_up_to(),
                    "the file is UTF-8 with damaged bytes; fix them, or add encoding-errors = \"replace\" to the chapter entry",
                ));
            }
            Ok((UTF_8, Detection::Utf8, bytes, None))
        }
        Err(_) => {
            let mut detector =
                chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
            detector.feed(bytes, true);
            let guessed = detector.guess(None, chardetng::Utf8Detection::Deny);
            let encoding = cjk_despite_damage(bytes, guessed);
            Ok((encoding, Detection::Guessed, bytes, None))
        }
    }
}

/// Decodes a chapter file's bytes. `forced` is a WHATWG encoding label from the metadata.
pub fn decode(
    bytes: &[u8],
    forced: Option<&str>,
    errors: EncodingErrors,
) -> Result<Decoded, DecodeError> {
    let (encoding, detection, body, valid) = choose_encoding(bytes, forced, errors)?;

    // Valid UTF-8 (the common case) is normalised straight from the bytes: no decoder pass.
    if encoding == UTF_8
        && let Some(text) = valid.or_else(|| simdutf8::basic::from_utf8(body).ok())
    {
        let (text, dropped_controls, first_dropped_line) =
            normalise(text).unwrap_or_else(|| (text.to_owned(), 0, None));
        return Ok(Decoded {
            nuls: count_nuls(&text),
            text,
            encoding,
            detection,
            dropped_controls,
            first_dropped_line,
            replaced: 0,
            damaged_lines: Vec::new(),
        });
    }
    // A GBK or Big5 download is often damaged in a few places (a truncated character where
    // pages were joined): read with U+FFFD there rather than refusing the novel, and warn at
    // each place. Many bad sequences mean the wrong encoding, which is still an error.
    let tolerant = errors == EncodingErrors::Fail && damage_tolerated(encoding, detection);
    let first_try = if tolerant {
        EncodingErrors::Replace
    } else {
        errors
    };
    let offset = bytes.len() - body.len();
    let (text, damage) = decode_with(encoding, body, first_try, offset)?;
    if tolerant && !damage.offsets.is_empty() && !few_enough(&text, damage.offsets.len()) {
        return Err(malformed_at(
            encoding,
            &body[..damage.first_byte],
            offset + damage.first_byte,
            &wrong_encoding_hint(encoding, Some(damage.offsets.len())),
        ));
    }
    let replaced = damage.offsets.len();
    let damaged_lines = lines_at(&text, &damage.offsets);
    if detection == Detection::Guessed
        && let Some((count, offset)) = implausible(&text)
    {
        return Err(DecodeError::Implausible {
            encoding: encoding.name(),
            count,
            offset,
        });
    }
    let (text, dropped_controls, first_dropped_line) = normalise(&text).unwrap_or((text, 0, None));
    Ok(Decoded {
        nuls: count_nuls(&text),
        text,
        encoding,
        detection,
        dropped_controls,
        first_dropped_line,
        replaced,
        damaged_lines,
    })
}

/// True when the bytes are 7-bit ISO-2022-JP (JIS, as old Japanese mail and some web-novel
/// downloads are): no byte above 0x7F, and the escape that switches to JIS X 0208
/// (`ESC $ B` or `ESC $ @`) somewhere. Such text is valid ASCII, so the UTF-8 check would take
/// it, escapes and all.
fn is_iso_2022_jp(bytes: &[u8]) -> bool {
    bytes.is_ascii() && (memmem(bytes, b"\x1b$B") || memmem(bytes, b"\x1b$@"))
}

/// Whether `needle` occurs in `haystack`.
fn memmem(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Whether a file read as `encoding` may have a few bad byte sequences replaced without
/// `encoding-errors = "replace"`: the CJK multi-byte encodings, guessed or named (init writes
/// the guess into metadata.toml, and the build after it must read the file the same way).
fn damage_tolerated(encoding: &'static Encoding, detection: Detection) -> bool {
    let cjk = [
        encoding_rs::GBK,
        encoding_rs::GB18030,
        encoding_rs::BIG5,
        encoding_rs::SHIFT_JIS,
        encoding_rs::EUC_JP,
        encoding_rs::EUC_KR,
    ];
    matches!(detection, Detection::Guessed | Detection::Forced) && cjk.contains(&encoding)
}

/// At most one bad sequence in a thousand CJK characters (as [`cjk_despite_damage`] judges),
/// or one in a shorter CJK text: damage, not the wrong encoding.
fn few_enough(text: &str, bad: usize) -> bool {
    let cjk = text
        .chars()
        .filter(|c| matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7AF}'))
        .count();
    cjk > 0 && bad * 1000 <= cjk.max(1000)
}

/// What to do when the bytes are not in the encoding tried (`bad` sequences of them).
fn wrong_encoding_hint(encoding: &'static Encoding, bad: Option<usize>) -> String {
    let what = match bad {
        Some(n) => format!("{n} byte sequences are not valid {}", encoding.name()),
        None => format!("the bytes here are not valid {}", encoding.name()),
    };
    format!(
        "{what}: the file is in another encoding, or damaged; name its encoding with `encoding = \"...\"` on the file's [[chapters]] entry in metadata.toml (`epubforge init` writes one), or accept the damage (U+FFFD for each bad sequence) with encoding-errors = \"replace\""
    )
}

/// The 1-based line of each byte offset of `text` (sorted), counting `\r\n`, `\r` and `\n`
/// as line ends, as [`normalise`] makes them.
fn lines_at(text: &str, offsets: &[usize]) -> Vec<usize> {
    let bytes = text.as_bytes();
    let (mut line, mut from) = (1, 0);
    offsets
        .iter()
        .map(|&at| {
            for i in from..at.min(bytes.len()) {
                let lone_cr = bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
                line += usize::from(bytes[i] == b'\n' || lone_cr);
            }
            from = from.max(at);
            line
        })
        .collect()
}

/// True when the bytes look like UTF-8 with a few damaged sequences rather than another
/// encoding: valid multi-byte sequences far outnumber invalid bytes.
fn mostly_utf8(bytes: &[u8]) -> bool {
    let (mut valid, mut invalid) = (0usize, 0usize);
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                valid += s.chars().filter(|c| !c.is_ascii()).count();
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                valid += std::str::from_utf8(good)
                    .map(|s| s.chars().filter(|c| !c.is_ascii()).count())
                    .unwrap_or(0);
                let skip = e.error_len().unwrap_or(bad.len()).max(1);
                invalid += 1;
                rest = &bad[skip.min(bad.len())..];
            }
        }
    }
    valid >= 3 && invalid * 10 <= valid
}

/// Where [`decode_with`] replaced bad byte sequences.
struct Damage {
    /// Byte offset in the decoded text of each U+FFFD put in.
    offsets: Vec<usize>,
    /// Byte offset in the body of the first bad sequence (0 when none).
    first_byte: usize,
}

fn decode_with(
    encoding: &'static Encoding,
    body: &[u8],
    errors: EncodingErrors,
    body_offset: usize,
) -> Result<(String, Damage), DecodeError> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(
        decoder
            .max_utf8_buffer_length(body.len())
            .unwrap_or(body.len() * 3),
    );
    let mut read = 0;
    let mut damage = Damage {
        offsets: Vec::new(),
        first_byte: 0,
    };
    loop {
        let (result, n) =
            decoder.decode_to_string_without_replacement(&body[read..], &mut out, true);
        read += n;
        match result {
            encoding_rs::DecoderResult::InputEmpty => break,
            encoding_rs::DecoderResult::OutputFull => {
                out.reserve(body.len() - read + 16);
            }
            encoding_rs::DecoderResult::Malformed(bad, _) => {
                let at = read.saturating_sub(bad as usize);
                if errors == EncodingErrors::Fail {
                    return Err(malformed_at(
                        encoding,
                        &body[..at],
                        body_offset + at,
                        &wrong_encoding_hint(encoding, None),
                    ));
                }
                if damage.offsets.is_empty() {
                    damage.first_byte = at;
                }
                damage.offsets.push(out.len());
                out.push('\u{FFFD}');
            }
        }
    }
    Ok((out, damage))
}

fn malformed_at(
    encoding: &'static Encoding,
    before: &[u8],
    offset: usize,
    hint: &str,
) -> DecodeError {
    DecodeError::Malformed {
        encoding: encoding.name(),
        offset,
        line: before.iter().filter(|&&b| b == b'\n').count() + 1,
        hint: hint.to_string(),
    }
}

/// Counts characters that real text in a guessed encoding does not contain: C1 controls,
/// private-use characters and U+FFFD. Returns their number and the byte offset (in the UTF-8
/// text) of the first when there are too many to be chance.
fn implausible(text: &str) -> Option<(usize, usize)> {
    let mut count = 0;
    let mut first = None;
    for (i, c) in text.char_indices() {
        if matches!(c as u32, 0x80..=0x9F | 0xE000..=0xF8FF | 0xFFFD) {
            count += 1;
            first.get_or_insert(i);
        }
    }
    let total = text.chars().count().max(1);
    (count > 0 && count * 1000 > total).then(|| (count, first.unwrap_or(0)))
}

/// How many NUL characters `text` holds, and the 1-based line of the first.
fn count_nuls(text: &str) -> (usize, Option<usize>) {
    let Some(first) = memchr::memchr(0, text.as_bytes()) else {
        return (0, None);
    };
    let count = memchr::memchr_iter(0, text.as_bytes()).count();
    let line = 1 + text.as_bytes()[..first]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    (count, Some(line))
}

/// Whether [`normalise`] would leave `bytes` as they are: no C0 control but NUL, tab and
/// newline (a carriage return included), and no U+FFFE or U+FFFF (`EF BF BE`, `EF BF BF`).
/// Read without stopping at the first control, so that the loop is vectorised; and `EF BF`,
/// which starts only U+FFC0..U+FFFF, is rare where `EF` (full-width punctuation) is not.
fn is_clean(bytes: &[u8]) -> bool {
    let control = |b: u8| b < 0x20 && !matches!(b, 0 | b'\t' | b'\n');
    let next = bytes.get(1..).unwrap_or_default();
    let pair = bytes
        .iter()
        .zip(next)
        .fold(false, |any, (&a, &b)| any | (a == 0xEF && b == 0xBF));
    let nonchar = pair
        && bytes
            .windows(3)
            .any(|w| matches!(w, [0xEF, 0xBF, 0xBE | 0xBF]));
    let controls = bytes.iter().fold(false, |any, &b| any | control(b));
    !controls && !nonchar
}

/// `\r\n` and `\r` to `\n`; drops C0 controls other than tab, newline and NUL (see
/// [`Decoded::text`]), and U+FFFE/U+FFFF.
/// Returns the text, how many characters were dropped and the 1-based line of the first; or
/// `None` when the text is already clean.
///
/// Works on bytes: every character it changes is ASCII or starts with the byte 0xEF, which in
/// UTF-8 only ever begins a character, so the text is cut at character boundaries.
fn normalise(text: &str) -> Option<(String, usize, Option<usize>)> {
    /// Bytes that may start a character to change: C0 controls but NUL, tab and newline, and
    /// 0xEF (U+FFFE and U+FFFF start with it, as do full-width punctuation marks, kept).
    static ATTENTION: [bool; 256] = {
        let mut t = [false; 256];
        let mut b = 1;
        while b < 0x20 {
            t[b] = b != b'\t' as usize && b != b'\n' as usize;
            b += 1;
        }
        t[0xEF] = true;
        t
    };
    let bytes = text.as_bytes();
    if is_clean(bytes) {
        return None;
    }
    let mut i = bytes.iter().position(|&b| ATTENTION[usize::from(b)])?;
    let mut out = String::new();
    let mut dropped = 0;
    let mut first_line = None;
    let mut kept = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !ATTENTION[usize::from(b)] {
            i += 1;
            continue;
        }
        let skip = match b {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
            b'\r' => 1,
            0xEF if matches!(bytes.get(i + 1..i + 3), Some([0xBF, 0xBE | 0xBF])) => 3,
            0xEF => {
                i += 1;
                continue;
            }
            _ => 1,
        };
        if out.is_empty() {
            out.reserve(text.len());
        }
        out.push_str(&text[kept..i]);
        if b == b'\r' {
            out.push('\n');
        } else {
            dropped += 1;
            first_line.get_or_insert_with(|| 1 + out.bytes().filter(|&c| c == b'\n').count());
        }
        i += skip;
        kept = i;
    }
    if kept == 0 {
        return None;
    }
    out.push_str(&text[kept..]);
    Some((out, dropped, first_line))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "魏军接下来的突围也在大汗的预料之中，东胡骑兵全部脱掉沉重的铁甲。\n“四哥。”就在金兀术借酒浇愁的时候。\n";

    #[test]
    fn utf8_with_bom_and_crlf_is_normalised() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(SAMPLE.replace('\n', "\r\n").as_bytes());
        let d = decode(&bytes, None, EncodingErrors::Fail).unwrap();
        assert_eq!(d.text, SAMPLE);
        assert_eq!(d.detection, Detection::Bom);
    }

    #[test]
    fn lone_cr_newlines_become_lf() {
        let d = decode("a\rb\r\nc".as_bytes(), None, EncodingErrors::Fail).unwrap();
        assert_eq!(d.text, "a\nb\nc");
    }

    #[test]
    fn gbk_bytes_are_detected_as_gbk_family() {
        let (bytes, _, _) = encoding_rs::GBK.encode(SAMPLE);
        let d = decode(&bytes, None, EncodingErrors::Fail).unwrap();
        assert_eq!(d.text, SAMPLE);
        assert_eq!(d.detection, Detection::Guessed);
        assert!(
            ["GBK", "gb18030"].contains(&d.encoding.name()),
            "{}",
            d.encoding.name()
        );
    }

    /// Regression (鹿鼎记 and 飞狐外传 from a Jin Yong collection): one damaged character made
    /// chardetng rule GBK out, and the whole novel was read as windows-1252 mojibake.
    #[test]
    fn a_gbk_download_with_one_damaged_character_is_still_read_as_gbk() {
        let text = SAMPLE.repeat(30);
        let (half, _, _) = encoding_rs::GBK.encode(&text);
        let bytes = [&half[..], &[0x81, 0x20][..], &half[..]].concat();
        let d = decode(&bytes, None, EncodingErrors::Replace).unwrap();
        assert!(
            ["GBK", "gb18030"].contains(&d.encoding.name()),
            "{}",
            d.encoding.name()
        );
        assert_eq!(d.replaced, 1, "{}", d.text);
    }

    /// Real bytes: the head of an Aozora Bunko file as it is distributed (Shift_JIS, CRLF),
    /// and the same text in EUC-JP and in 7-bit ISO-2022-JP (see the fixtures' README).
    const AOZORA_SJIS: &[u8] = include_bytes!("../tests/fixtures/japanese/genkaku_sanbo.sjis.txt");
    const AOZORA_EUC: &[u8] = include_bytes!("../tests/fixtures/japanese/genkaku_sanbo.eucjp.txt");
    const AOZORA_JIS: &[u8] = include_bytes!("../tests/fixtures/japanese/genkaku_sanbo.jis.txt");

    #[test]
    fn japanese_encodings_are_detected_from_real_bytes() {
        for (bytes, want) in [
            (AOZORA_SJIS, "Shift_JIS"),
            (AOZORA_EUC, "EUC-JP"),
            (AOZORA_JIS, "ISO-2022-JP"),
        ] {
            let d = decode(bytes, None, EncodingErrors::Fail).unwrap();
            assert_eq!(d.encoding.name(), want);
            assert!(
                d.text.starts_with("玄鶴山房\n芥川龍之介\n"),
                "{want}: {}",
                d.text
            );
            assert!(
                d.text.contains("洒落《しゃれ》でもあるまい。」\n"),
                "{want}"
            );
            assert!(!d.text.contains(['\r', '\u{1b}', '\u{FFFD}']), "{want}");
        }
    }

    #[test]
    fn plain_ascii_is_not_taken_for_iso_2022_jp() {
        let d = decode(b"a $B line\nand (B another\n", None, EncodingErrors::Fail).unwrap();
        assert_eq!(d.encoding.name(), "UTF-8");
    }

    /// A Shift_JIS file with one damaged two-byte character is still read as Shift_JIS (with
    /// the damage replaced when asked), not as Latin mojibake.
    #[test]
    fn a_shift_jis_file_with_one_damaged_character_is_still_shift_jis() {
        let at = AOZORA_SJIS.len() / 2;
        let at = at + AOZORA_SJIS[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let bytes = [&AOZORA_SJIS[..at], &[0x85, 0x40][..], &AOZORA_SJIS[at..]].concat();
        let d = decode(&bytes, None, EncodingErrors::Replace).unwrap();
        assert_eq!(d.encoding.name(), "Shift_JIS");
        assert!(d.replaced <= 1, "{}", d.replaced);
        assert!(d.text.starts_with("玄鶴山房"), "{}", d.text);
    }

    /// A GBK or Big5 download damaged in a few places is read (U+FFFD there) without
    /// `encoding-errors = "replace"`, and says on which lines; guessed or named the same.
    #[test]
    fn a_cjk_download_damaged_in_a_few_places_is_read_with_the_damaged_lines() {
        let traditional = "魏軍接下來的突圍也在大汗的預料之中，東胡騎兵全部脫掉沉重的鐵甲。\n“四哥。”就在金兀術借酒澆愁的時候。\n";
        for (enc, sample) in [(encoding_rs::GBK, SAMPLE), (encoding_rs::BIG5, traditional)] {
            let text = sample.repeat(20);
            let (para, _, _) = enc.encode(&text);
            let mut bytes = para.to_vec();
            for _ in 0..3 {
                bytes.extend_from_slice(&[0x81, b'\r', b'\n']);
                bytes.extend_from_slice(&para);
            }
            let lines: Vec<usize> = (1..=3).map(|k| 1 + 41 * k - 1).collect();
            for forced in [None, Some(enc.name())] {
                let d = decode(&bytes, forced, EncodingErrors::Fail).unwrap();
                assert_eq!(d.encoding.name(), enc.name(), "{forced:?}");
                assert_eq!(d.replaced, 3, "{forced:?}");
                assert_eq!(d.damaged_lines, lines, "{forced:?}");
                assert_eq!(d.text.matches('\u{FFFD}').count(), 3);
                let line = d.text.split('\n').nth(lines[0] - 1).unwrap();
                assert_eq!(line, "\u{FFFD}", "{forced:?}");
            }
        }
    }

    /// Bad sequences everywhere are the wrong encoding, not damage: still an error, and the
    /// hint says how many and what to do.
    #[test]
    fn a_file_damaged_everywhere_in_the_named_encoding_is_an_error() {
        let (line, _, _) = encoding_rs::GBK.encode(SAMPLE);
        let bytes = [&line[..], &[0x81, 0x20][..]].concat().repeat(50);
        let err = decode(&bytes, Some("gbk"), EncodingErrors::Fail).unwrap_err();
        let hint = err.hint().unwrap();
        assert!(hint.contains("byte sequences are not valid GBK"), "{hint}");
        assert!(hint.contains("[[chapters]]"), "{hint}");
        assert!(
            matches!(err, DecodeError::Malformed { line: 3, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn big5_bytes_are_detected() {
        let text = "魏軍接下來的突圍也在大汗的預料之中，東胡騎兵全部脫掉沉重的鐵甲，換上輕甲甚至不披甲。\n";
        let (bytes, _, _) = encoding_rs::BIG5.encode(text);
        let d = decode(&bytes, None, EncodingErrors::Fail).unwrap();
        assert_eq!(d.text, text);
        assert_eq!(d.encoding.name(), "Big5");
    }

    #[test]
    fn utf16le_with_bom_is_read() {
        let mut bytes = vec![0xFF, 0xFE];
        for u in SAMPLE.encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        assert_eq!(
            decode(&bytes, None, EncodingErrors::Fail).unwrap().text,
            SAMPLE
        );
    }

    #[test]
    fn damaged_utf8_is_an_error_with_offset_not_a_guess() {
        let mut bytes = SAMPLE.as_bytes().to_vec();
        bytes.insert(9, 0xFF);
        let err = decode(&bytes, None, EncodingErrors::Fail).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Malformed {
                    offset: 9,
                    encoding: "UTF-8",
                    line: 1,
                    ..
                }
            ),
            "{err:?}"
        );
        let d = decode(&bytes, None, EncodingErrors::Replace).unwrap();
        assert_eq!(d.replaced, 1);
        assert_eq!(d.text.replace('\u{FFFD}', ""), SAMPLE);
    }

    #[test]
    fn utf8_forced_or_marked_goes_through_the_decoder_only_when_damaged() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice("一\r\n二".as_bytes());
        for forced in [None, Some("utf-8")] {
            let d = decode(&bytes, forced, EncodingErrors::Fail).unwrap();
            assert_eq!((d.text.as_str(), d.replaced), ("一\n二", 0), "{forced:?}");
        }
        bytes.push(0xFF);
        let err = decode(&bytes, Some("utf-8"), EncodingErrors::Fail).unwrap_err();
        assert!(
            matches!(err, DecodeError::Malformed { offset: 11, .. }),
            "{err:?}"
        );
        let d = decode(&bytes, Some("utf-8"), EncodingErrors::Replace).unwrap();
        assert_eq!((d.text.as_str(), d.replaced), ("一\n二\u{FFFD}", 1));
    }

    #[test]
    fn forced_encoding_that_does_not_fit_reports_offset() {
        let err = decode(SAMPLE.as_bytes(), Some("shift_jis"), EncodingErrors::Fail).unwrap_err();
        assert!(
            matches!(
                err,
                DecodeError::Malformed {
                    encoding: "Shift_JIS",
                    ..
                }
            ),
            "{err:?}"
        );
    }

    /// The character-by-character definition `normalise` must agree with.
    fn normalise_by_chars(text: &str) -> (String, usize, Option<usize>) {
        let (mut out, mut dropped, mut first, mut line) = (String::new(), 0, None, 1);
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\r' | '\n' => {
                    if c == '\r' && chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    out.push('\n');
                    line += 1;
                }
                '\t' | '\0' => out.push(c),
                c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                    dropped += 1;
                    first.get_or_insert(line);
                }
                c => out.push(c),
            }
        }
        (out, dropped, first)
    }

    #[test]
    fn byte_normalisation_agrees_with_the_character_definition() {
        let cases = [
            "",
            "纯文本，没有要改的。\n第二行\t制表",
            "\r\r\n\n\r",
            "一\r\n二\u{1}三\r四\u{1F}",
            "\u{FFFE}头\u{FFFF}\u{FFFD}\u{FEFF}\u{FFEE}尾\u{EFFF}",
            "\u{0}",
            "abc\u{FFFF}",
            "末尾\u{EF00}\u{F000}\u{FFBF}",
            "\u{FFC0}，\u{FFFF}",
            "，\u{FFC0}\u{FFFD}\u{0}",
        ];
        for case in cases {
            let want = normalise_by_chars(case);
            let got = normalise(case).unwrap_or_else(|| (case.to_string(), 0, None));
            assert_eq!(got, want, "{case:?}");
            assert_eq!(normalise(case).is_none(), want.0 == case, "{case:?}");
        }
    }

    #[test]
    fn control_characters_are_dropped_and_counted_with_line() {
        let d = decode(
            "一\n二\u{1}三\u{7}\t四".as_bytes(),
            None,
            EncodingErrors::Fail,
        )
        .unwrap();
        assert_eq!(d.text, "一\n二三\t四");
        assert_eq!(d.dropped_controls, 2);
        assert_eq!(d.first_dropped_line, Some(2));
    }

    #[test]
    fn nul_is_left_to_the_converters_and_counted() {
        let d = decode("一\n二\0三\0".as_bytes(), None, EncodingErrors::Fail).unwrap();
        assert_eq!(d.text, "一\n二\0三\0");
        assert_eq!((d.dropped_controls, d.nuls), (0, (2, Some(2))));
    }
}
