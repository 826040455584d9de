//! One fast scan that tells plain text from text that may hold readings or Japanese.
//!
//! Every paragraph of a plain-text chapter went through the check for web-novel readings
//! ([`super::paragraph_xhtml`]: `《` `（` `(`), and every chapter through the check for
//! Japanese paragraphs (kana on a fifth of the lines), each a character at a time: on a
//! Chinese or English novel, which has neither, a tenth of a clean build's instructions.
//! [`is_plain`] looks for all of them in one pass over the chapter's bytes that the compiler
//! runs many bytes at a time; plain text then takes the plain path at once, the rest the checks
//! as they were. (Aozora Bunko's annotations are looked for by [`super::is_aozora`] itself.)

/// How many positions are tested before the scan stops at a hit: large enough to run wide,
/// small enough to stop soon after one.
const CHUNK: usize = 32;

/// Whether `text` holds none of `《 （ (` and no kana (U+3040 to U+30FF): then no reading
/// and no Japanese paragraph can be in it.
pub fn is_plain(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(window) = bytes.get(at..at + CHUNK + 2) {
        if window_hits(window) {
            return false;
        }
        at += CHUNK;
    }
    // The last positions (fewer than a chunk and two), padded with bytes that start nothing.
    let rest = &bytes[at..];
    let mut tail = [0u8; CHUNK + 4];
    tail[..rest.len()].copy_from_slice(rest);
    !(0..rest.len()).any(|i| starts(tail[i], tail[i + 1], tail[i + 2]))
}

/// Whether a mark starts at one of the first [`CHUNK`] positions of `window` (that many bytes
/// and the two after them); a loop without branches, which the compiler runs many bytes at
/// a time.
fn window_hits(window: &[u8]) -> bool {
    let Ok(window) = <&[u8; CHUNK + 2]>::try_from(window) else {
        return true;
    };
    let mut hit = false;
    for i in 0..CHUNK {
        hit |= starts(window[i], window[i + 1], window[i + 2]);
    }
    hit
}

/// Whether the bytes `a b c` start a mark: `(`, `（` EF BC 88, `《` E3 80 8A, or kana (E3 81
/// to E3 83). UTF-8 lead bytes never occur inside another character, so these match nothing
/// else.
#[inline(always)]
fn starts(a: u8, b: u8, c: u8) -> bool {
    (a == b'(')
        | ((a == 0xE3) & (((b == 0x80) & (c == 0x8A)) | (b.wrapping_sub(0x81) < 3)))
        | ((a == 0xEF) & (b == 0xBC) & (c == 0x88))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mark_is_found_wherever_it_stands() {
        let filler = "普通的正文，没有任何标记。胆弈".repeat(12);
        assert!(is_plain(&filler));
        assert!(is_plain(""));
        let marks = ["《", "（", "(", "テ", "ぁ", "ゖ", "ァ", "ヺ", "の"];
        for mark in marks {
            // At the start, across a chunk's edge, among the last bytes, and at the end.
            for at in [
                0,
                CHUNK - 1,
                CHUNK,
                CHUNK + 1,
                filler.len() - 4,
                filler.len(),
            ] {
                let at = (0..=at)
                    .rev()
                    .find(|&i| filler.is_char_boundary(i))
                    .unwrap();
                let text = format!("{}{mark}{}", &filler[..at], &filler[at..]);
                assert!(!is_plain(&text), "{mark} at {at}");
            }
            assert!(!is_plain(mark), "{mark} alone");
        }
    }

    #[test]
    fn punctuation_sharing_the_marks_bytes_is_plain() {
        // Punctuation sharing the marks' lead bytes, the closing brackets, other brackets,
        // and ideographs whose last two bytes are a mark's (胆 E8 83 86 ends as テ does).
        for text in [
            "，。、！？：；　",
            "」」》）］】〕",
            "［【[",
            "胆弈倊",
            "a) b] c",
            "ab",
        ] {
            assert!(is_plain(text), "{text}");
        }
    }

    #[test]
    fn plain_text_reads_the_same_through_the_plain_path() {
        // What the plain path skips finds nothing in plain text: the shortcut changes no byte.
        for text in [
            "　　他说：“好。”_强调_，然后走了。\n\n***\n",
            "A _word_ here.\n",
        ] {
            assert!(is_plain(text));
            assert_eq!(
                super::super::paragraph_xhtml(text),
                crate::convert::emphasis::paragraph_xhtml(text)
            );
        }
    }
}
