//! What a URL in a stylesheet (or an SVG, or markup) points at, read as browsers read it,
//! for deciding what may stay in a book: [`url_kind`].

/// What a URL points at, for deciding what may stay in a book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlKind {
    /// `#id`: something in the same document.
    Fragment,
    /// A `data:` URL; `allowed` when it holds a raster image or a font.
    Data {
        /// An image (PNG, JPEG, GIF, WebP) or font media type.
        allowed: bool,
    },
    /// A relative URL: a file beside the one that names it.
    Relative,
    /// A path-absolute (`/x`) URL, which means nothing inside an EPUB.
    Absolute,
    /// `http:`, `https:`, `//host` and any other scheme that fetches.
    Remote,
    /// `javascript:`, `vbscript:` and the like.
    Script,
    /// `file:` or a drive letter: a file of the machine that built the book.
    File,
}

impl UrlKind {
    /// Why a URL of this kind cannot stay, or None if it can (fragments, allowed data).
    pub fn refusal(&self) -> Option<&'static str> {
        match self {
            UrlKind::Fragment | UrlKind::Data { allowed: true } | UrlKind::Relative => None,
            UrlKind::Data { allowed: false } => Some("a data: URL of a type a book cannot hold"),
            UrlKind::Absolute => Some("a path-absolute URL"),
            UrlKind::Remote => Some("remote"),
            UrlKind::Script => Some("script"),
            UrlKind::File => Some("a file: URL"),
        }
    }
}

/// Classifies `url` the way a browser reads it: tabs and newlines inside are ignored, and
/// leading and trailing spaces and control characters.
pub fn url_kind(url: &str) -> UrlKind {
    let url: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if url.starts_with('#') {
        return UrlKind::Fragment;
    }
    if url.starts_with("//") || url.starts_with("\\\\") {
        return UrlKind::Remote;
    }
    if url.starts_with('/') || url.starts_with('\\') {
        return UrlKind::Absolute;
    }
    let scheme_end = url.find(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)));
    let scheme = match scheme_end {
        Some(end) if end > 0 && url[end..].starts_with(':') => url[..end].to_ascii_lowercase(),
        _ => return UrlKind::Relative,
    };
    match scheme.as_str() {
        "data" => UrlKind::Data {
            allowed: data_type_allowed(&url[5..]),
        },
        "javascript" | "vbscript" | "livescript" | "mocha" => UrlKind::Script,
        "file" => UrlKind::File,
        s if s.len() == 1 => UrlKind::File,
        _ => UrlKind::Remote,
    }
}

/// Raster images and fonts; not SVG or HTML, which can carry script.
fn data_type_allowed(rest: &str) -> bool {
    let media_type = rest
        .split([';', ','])
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        media_type.as_str(),
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    ) || media_type.starts_with("font/")
        || media_type.starts_with("application/font-")
        || media_type.starts_with("application/x-font-")
        || media_type == "application/vnd.ms-opentype"
}
