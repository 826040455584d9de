//! Files in a book's folder that `init` never lists as chapters although their kind is a
//! chapter file's: a repository's licence and change log (`LICENSE.md`, `COPYING`,
//! `CHANGELOG.txt`), and an EPUB's navigation document (`toc.xhtml`, whose links the book's
//! own table of contents replaces).

use std::io::Read as _;
use std::path::Path;

/// File stems (any extension, any case) of a repository's own papers.
const PAPERS: [(&str, &str); 6] = [
    ("license", "a licence"),
    ("licence", "a licence"),
    ("copying", "a licence"),
    ("unlicense", "a licence"),
    ("changelog", "a change log"),
    ("changes", "a change log"),
];

/// How much of an HTML file is read to see whether it is a navigation document.
const NAV_PEEK_BYTES: u64 = 64 << 10;

/// Why `file` (relative to `dir`) is not a chapter, if it is not.
pub(super) fn not_a_chapter(dir: &Path, file: &str) -> Option<&'static str> {
    let path = Path::new(file);
    let stem = path.file_stem()?.to_str()?.to_ascii_lowercase();
    if let Some((_, why)) = PAPERS.iter().find(|(s, _)| *s == stem) {
        return Some(why);
    }
    let html = crate::convert::SourceKind::of(path) == crate::convert::SourceKind::Html;
    (html && is_navigation_document(&dir.join(path))).then_some("a navigation document")
}

/// Whether an HTML file holds an EPUB table of contents (`<nav epub:type="toc">`).
fn is_navigation_document(path: &Path) -> bool {
    let mut head = Vec::new();
    let read = std::fs::File::open(path)
        .and_then(|f| f.take(NAV_PEEK_BYTES).read_to_end(&mut head))
        .is_ok();
    let text = String::from_utf8_lossy(&head);
    read && text.match_indices("<nav").any(|(i, _)| {
        let tag = &text[i..];
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        tag.contains("epub:type=\"toc\"") || tag.contains("role=\"doc-toc\"")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn licences_change_logs_and_navigation_documents_are_not_chapters() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("toc.xhtml"),
            "<html><body><nav id=\"toc\" epub:type=\"toc\"><ol><li><a href=\"a.xhtml\">A</a></li></ol></nav></body></html>",
        )
        .expect("write");
        std::fs::write(dir.path().join("a.xhtml"), "<p>Text <nav>x</nav></p>").expect("write");
        assert_eq!(not_a_chapter(dir.path(), "LICENSE.md"), Some("a licence"));
        assert_eq!(
            not_a_chapter(dir.path(), "docs/COPYING.txt"),
            Some("a licence")
        );
        assert_eq!(
            not_a_chapter(dir.path(), "CHANGELOG.md"),
            Some("a change log")
        );
        assert_eq!(
            not_a_chapter(dir.path(), "toc.xhtml"),
            Some("a navigation document")
        );
        assert_eq!(not_a_chapter(dir.path(), "a.xhtml"), None);
        assert_eq!(not_a_chapter(dir.path(), "licensed-to-kill.md"), None);
    }
}
