//! A validated `[layout] title-format` (`第{n}章 {title}`): parsed when the project is
//! loaded; the converter renumbers the chapters with it (`convert::title_format`).

/// A validated `title-format`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleFormat {
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Number,
    Chinese,
    Title,
}

/// What is wrong with a title format; the message is in words for the author.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TitleFormatError {
    /// A `{` or `}` (the brace) that opens or closes nothing.
    #[error("a lone `{0}`; write `{{{{` or `}}}}` for a brace")]
    LoneBrace(String),
    /// A `{…}` that is not one of the fields.
    #[error("`{{{0}}}` is not {{n}}, {{n:zh}} or {{title}}")]
    UnknownField(String),
    /// No field at all: every chapter would have the same title.
    #[error("it has none of {{n}}, {{n:zh}} and {{title}}")]
    NoField,
}

impl TitleFormat {
    /// Parses a format; the error says what is wrong (an unknown `{…}`, a brace left open).
    pub fn parse(format: &str) -> Result<TitleFormat, TitleFormatError> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut rest = format;
        while let Some(i) = rest.find(['{', '}']) {
            text.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            if let Some(tail) = after.strip_prefix(&rest[i..=i]) {
                // `{{` and `}}` are the braces themselves.
                text.push_str(&rest[i..=i]);
                rest = tail;
                continue;
            }
            let Some(end) = after.find('}').filter(|_| rest[i..].starts_with('{')) else {
                return Err(TitleFormatError::LoneBrace(rest[i..=i].to_string()));
            };
            let piece = match &after[..end] {
                "n" => Piece::Number,
                "n:zh" => Piece::Chinese,
                "title" => Piece::Title,
                other => return Err(TitleFormatError::UnknownField(other.to_string())),
            };
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            pieces.push(piece);
            rest = &after[end + 1..];
        }
        text.push_str(rest);
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        if !pieces.iter().any(|p| !matches!(p, Piece::Text(_))) {
            return Err(TitleFormatError::NoField);
        }
        Ok(TitleFormat { pieces })
    }

    /// The title of chapter number `n` whose title (without numbering) is `title`, spaces
    /// around it trimmed.
    pub fn format(&self, title: &str, n: usize) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Number => out.push_str(&n.to_string()),
                Piece::Chinese => out.push_str(&super::locale::chinese_number(n)),
                Piece::Title => out.push_str(title),
            }
        }
        out.trim().to_string()
    }
}
