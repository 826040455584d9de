//! An EPUB's obfuscated fonts made readable again: `META-INF/encryption.xml` names the fonts
//! whose first bytes are mixed with a key drawn from the book's identifier, so that a font
//! copied out of the zip does not work elsewhere. The project holds plain fonts (a build that
//! carries them writes no `encryption.xml`, and a key tied to the old identifier would not
//! fit the new one), so each is restored as it is written.
//!
//! Two algorithms are in use: the IDPF's (EPUB 3 and OCF 2.0.1: SHA-1 of the unique
//! identifier without its white space, over the first 1040 bytes) and Adobe's older one (the
//! 16 bytes of the identifier's UUID, over the first 1024 bytes). Anything else
//! `encryption.xml` names is encryption proper (DRM), which no key here opens.

use std::collections::HashMap;

use crate::inspect::Epub;

/// The IDPF's font obfuscation.
const IDPF: &str = "http://www.idpf.org/2008/embedding";
/// Adobe's font obfuscation.
const ADOBE: &str = "http://ns.adobe.com/pdf/enc#RC";
/// The largest `encryption.xml` read.
const MAX_ENCRYPTION_BYTES: u64 = 1 << 20;

/// How an entry of the zip is hidden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Hidden {
    /// The IDPF's obfuscation.
    Idpf,
    /// Adobe's obfuscation.
    Adobe,
    /// Another algorithm (named): encrypted, not only obfuscated.
    Encrypted(String),
}

/// The entries `META-INF/encryption.xml` names (zip entry name → how it is hidden); empty
/// when there is no such file or it cannot be read.
pub(super) fn read<R: std::io::Read + std::io::Seek>(
    zip: &mut crate::inspect::container::Container<R>,
) -> HashMap<String, Hidden> {
    const NAME: &str = "META-INF/encryption.xml";
    let mut hidden = HashMap::new();
    if !zip.exists(NAME) {
        return hidden;
    }
    let Ok(bytes) = zip.read_capped(NAME, MAX_ENCRYPTION_BYTES) else {
        return hidden;
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return hidden;
    };
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return hidden;
    };
    for data in doc
        .descendants()
        .filter(|n| n.has_tag_name("EncryptedData"))
    {
        let algorithm = data
            .descendants()
            .find(|n| n.has_tag_name("EncryptionMethod"))
            .and_then(|n| n.attribute("Algorithm"))
            .unwrap_or_default();
        let uri = data
            .descendants()
            .find(|n| n.has_tag_name("CipherReference"))
            .and_then(|n| n.attribute("URI"));
        let Some(uri) = uri else { continue };
        let how = match algorithm {
            IDPF => Hidden::Idpf,
            ADOBE => Hidden::Adobe,
            other => Hidden::Encrypted(other.to_string()),
        };
        // The URI is relative to the container's root.
        let entry = crate::convert::markup::percent_decode(uri.trim_start_matches('/'));
        hidden.insert(entry, how);
    }
    hidden
}

/// `bytes` with the obfuscation `how` undone, with the key `book`'s identifier gives; None
/// for encryption proper, or when the identifier gives no key (Adobe's needs a UUID).
pub(super) fn restore(how: &Hidden, book: &Epub, mut bytes: Vec<u8>) -> Option<Vec<u8>> {
    let (key, span): (Vec<u8>, usize) = match how {
        Hidden::Idpf => {
            let id = book.metadata.unique_identifier.as_deref()?;
            let id: String = id
                .chars()
                .filter(|c| !matches!(c, ' ' | '\t' | '\r' | '\n'))
                .collect();
            (sha1_smol::Sha1::from(id).digest().bytes().to_vec(), 1040)
        }
        Hidden::Adobe => (adobe_key(book)?, 1024),
        Hidden::Encrypted(_) => return None,
    };
    for (i, b) in bytes.iter_mut().take(span).enumerate() {
        *b ^= key[i % key.len()];
    }
    Some(bytes)
}

/// Adobe's key: the 16 bytes of the UUID in the unique identifier (or, failing that, the
/// first identifier that is a `urn:uuid:`).
fn adobe_key(book: &Epub) -> Option<Vec<u8>> {
    let uuid = |id: &str| -> Option<Vec<u8>> {
        let id = id.trim();
        let hex: String = id
            .strip_prefix("urn:uuid:")
            .unwrap_or(id)
            .chars()
            .filter(|c| *c != '-')
            .collect();
        if hex.len() != 32 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        (0..16)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
            .collect()
    };
    let md = &book.metadata;
    md.unique_identifier
        .as_deref()
        .and_then(uuid)
        .or_else(|| md.identifiers.iter().find_map(|id| uuid(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Obfuscating is the same XOR as restoring: what a maker writes.
    pub(crate) fn obfuscate(how: &Hidden, book: &Epub, bytes: &[u8]) -> Vec<u8> {
        restore(how, book, bytes.to_vec()).expect("a key")
    }

    #[test]
    fn both_obfuscations_come_back_to_the_font_and_only_their_span_is_touched() {
        let zip = crate::inspect::testutil::TestBook::minimal_epub3().to_zip();
        let mut book = crate::inspect::open_bytes(&zip).expect("the test EPUB reads");
        book.metadata.unique_identifier =
            Some(" urn:uuid:0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9\n".into());
        let font: Vec<u8> = b"OTTO"
            .iter()
            .copied()
            .chain((0..3000).map(|i| (i % 251) as u8))
            .collect();
        for (how, span) in [(Hidden::Idpf, 1040), (Hidden::Adobe, 1024)] {
            let hidden = obfuscate(&how, &book, &font);
            assert_ne!(&hidden[..4], b"OTTO", "{how:?}");
            assert_eq!(hidden[span..], font[span..], "{how:?}");
            assert_ne!(hidden[span - 16..span], font[span - 16..span], "{how:?}");
            assert_eq!(restore(&how, &book, hidden), Some(font.clone()), "{how:?}");
        }
        // The IDPF key is SHA-1 of the identifier without white space.
        let key = sha1_smol::Sha1::from("urn:uuid:0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
            .digest()
            .bytes();
        assert_eq!(obfuscate(&Hidden::Idpf, &book, &font)[0], font[0] ^ key[0]);
        assert_eq!(restore(&Hidden::Encrypted("x".into()), &book, font), None);
    }
}
