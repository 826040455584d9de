//! The settings of the text-fix stage: `[[cleanup]]` rules (in `metadata.toml` and in a
//! `cleanup.toml` beside it that several books can share), `[text]` (`cleanup-preset`,
//! `typography`, `quotes`, `convert-code`) and `[book] convert`, as written (raw) and validated into a
//! [`TextFix`].
//!
//! Part of the project stage. A pattern that does not compile is an error at the file, line
//! and column of the bad spot inside the pattern, however the TOML string was written
//! (escapes, literal or multi-line strings).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::toml_error;
use super::{BookInfo, Layout, WritingMode};
use crate::error::{Error, Result};
use crate::text_fix::{Conversion, Origin, Quotes, Rule, Scope, Settings, TextFix, Typography};

/// The file of shared cleanup rules, beside `metadata.toml`.
pub const CLEANUP_FILE: &str = "cleanup.toml";

/// `cleanup.toml` is small; anything bigger is refused rather than read.
const CLEANUP_FILE_LIMIT: u64 = 4 << 20;

/// One `[[cleanup]]` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawRule {
    pattern: Spanned<String>,
    #[serde(default)]
    replace: String,
    scope: Option<Spanned<String>>,
    files: Option<Spanned<String>>,
    max_length: Option<Spanned<i64>>,
}

/// `[text]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct RawText {
    cleanup_preset: Option<Spanned<String>>,
    typography: Option<bool>,
    quotes: Option<Spanned<String>>,
    convert_code: Option<bool>,
}

/// `cleanup.toml` as written: rules only.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CleanupFile {
    #[serde(default)]
    cleanup: Vec<Spanned<RawRule>>,
}

/// A TOML file being validated, for error positions.
struct Source<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Source<'_> {
    fn error_at(&self, offset: usize, message: String) -> Error {
        toml_error::at(self.text, offset, self.path, message)
    }
}

/// What [`validate`] needs from the metadata.
pub(super) struct Input<'a> {
    pub text: &'a str,
    pub path: &'a Path,
    pub rules: Vec<Spanned<RawRule>>,
    pub settings: RawText,
    pub convert: Option<Spanned<String>>,
    /// The shared rules file, when there is one (already checked to be inside the project).
    pub cleanup_file: Option<PathBuf>,
    /// The project folder's boundary, which the shared rules file is opened through.
    pub boundary: &'a super::Boundary,
}

/// Validates the text settings into the stage, and converts `book`'s metadata (and sets its
/// language) when the book is converted. The rules compile while the conversion builds its
/// tables for the metadata: each takes milliseconds, and the build waits for both.
pub(super) fn validate(input: Input<'_>, book: &mut BookInfo, layout: &Layout) -> Result<TextFix> {
    let meta = Source {
        text: input.text,
        path: input.path,
    };
    let conversion = conversion(input.convert.as_ref(), &meta)?;
    let language = conversion.map_or(&book.language[..], |c| c.language_of(&book.language));
    let typography = typography(language, input.settings.typography);
    let quotes = quotes(input.settings.quotes.as_ref(), typography, layout, &meta)?;
    let preset = input.settings.cleanup_preset.as_ref();
    let shared = input.cleanup_file.as_deref();
    let ((), rules) = rayon::join(
        || conversion.iter().for_each(|c| c.metadata(book)),
        || rules(preset, shared, input.boundary, input.rules, &meta),
    );
    Ok(TextFix::new(Settings {
        rules: rules?,
        conversion,
        quotes,
        typography,
    })
    .converting_code(input.settings.convert_code.unwrap_or(true)))
}

/// `[book] convert`, when there is one.
fn conversion(raw: Option<&Spanned<String>>, meta: &Source<'_>) -> Result<Option<Conversion>> {
    let Some(c) = raw else { return Ok(None) };
    let conversion = Conversion::named(c.get_ref()).ok_or_else(|| {
        meta.error_at(
            c.span().start,
            format!(
                "`[book] convert` = \"{}\" is not an OpenCC configuration; use one of: {}",
                c.get_ref().trim(),
                Conversion::names().join(", ")
            ),
        )
    })?;
    Ok(Some(conversion))
}

/// The cleanup rules, compiled in the order they run: the preset's, the shared file's, then
/// the book's own.
fn rules(
    preset: Option<&Spanned<String>>,
    shared: Option<&Path>,
    boundary: &super::Boundary,
    own: Vec<Spanned<RawRule>>,
    meta: &Source<'_>,
) -> Result<Vec<Rule>> {
    let mut rules = Vec::new();
    if let Some(p) = preset {
        let name = p.get_ref().trim();
        let preset = TextFix::preset(name).ok_or_else(|| {
            meta.error_at(
                p.span().start,
                format!(
                    "`[text] cleanup-preset` = \"{name}\" is not a preset; the presets are: {}",
                    TextFix::preset_names().join(", ")
                ),
            )
        })?;
        rules.extend(preset);
    }
    if let Some(path) = shared {
        rules.extend(shared_rules(boundary, path)?);
    }
    for r in own {
        rules.push(rule(r, meta)?);
    }
    Ok(rules)
}

/// CJK typography for Chinese unless turned off; for Japanese and Latin only when asked for.
fn typography(language: &str, asked: Option<bool>) -> Typography {
    let primary = crate::book::primary_language(language);
    match (primary.as_str(), asked) {
        (_, Some(false)) => Typography::Off,
        ("zh", _) => Typography::Cjk { japanese: false },
        // Japanese is kept as written (`!?` half-width is set upright in vertical text, `…`
        // and `―` are the author's): its typography only when asked for.
        ("ja", Some(true)) => Typography::Cjk { japanese: true },
        ("ja", None) => Typography::Off,
        (_, Some(true)) => Typography::Latin,
        (_, None) => Typography::Off,
    }
}

/// `quotes` as written; without it, corner brackets for a vertical CJK book.
fn quotes(
    raw: Option<&Spanned<String>>,
    typography: Typography,
    layout: &Layout,
    meta: &Source<'_>,
) -> Result<Option<Quotes>> {
    let Some(q) = raw else {
        let vertical = layout.writing_mode == WritingMode::VerticalRl;
        let cjk = matches!(typography, Typography::Cjk { .. });
        return Ok((vertical && cjk).then_some(Quotes::Corner));
    };
    match q.get_ref().trim() {
        "corner" => Ok(Some(Quotes::Corner)),
        "curly" => Ok(Some(Quotes::Curly)),
        "none" => Ok(None),
        other => Err(meta.error_at(
            q.span().start,
            format!("`[text] quotes` = \"{other}\" is not one of \"corner\", \"curly\", \"none\""),
        )),
    }
}

/// The rules of `cleanup.toml`, opened through the project folder's `boundary`.
fn shared_rules(boundary: &super::Boundary, path: &Path) -> Result<Vec<Rule>> {
    let bytes = boundary.read_limited(path, CLEANUP_FILE_LIMIT, "cleanup rules")?;
    let text = String::from_utf8(bytes).map_err(|e| Error::Metadata {
        path: path.to_path_buf(),
        message: format!(
            "{CLEANUP_FILE} is not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ),
        hint: Some("save it as UTF-8".into()),
    })?;
    let raw: CleanupFile =
        toml::from_str(&text).map_err(|e| toml_error::to_error(&e, &text, path))?;
    let source = Source { text: &text, path };
    raw.cleanup.into_iter().map(|r| rule(r, &source)).collect()
}

/// One `[[cleanup]]` entry, compiled.
fn rule(raw: Spanned<RawRule>, file: &Source<'_>) -> Result<Rule> {
    let entry = raw.span().start;
    let raw = raw.into_inner();
    let scope = match raw
        .scope
        .as_ref()
        .map(|s| (s.get_ref().trim(), s.span().start))
    {
        None | Some(("text", _)) => Scope::Text,
        Some(("titles", _)) => Scope::Titles,
        Some(("both", _)) => Scope::Both,
        Some((other, at)) => {
            return Err(file.error_at(
                at,
                format!("`scope` = \"{other}\" is not one of \"text\", \"titles\", \"both\""),
            ));
        }
    };
    let files = match &raw.files {
        None => None,
        Some(g) => Some(glob::Pattern::new(g.get_ref()).map_err(|e| {
            file.error_at(
                g.span().start,
                format!("`files` = \"{}\" is not a valid glob: {e}", g.get_ref()),
            )
        })?),
    };
    let pattern = raw.pattern.get_ref();
    let span = raw.pattern.span();
    if pattern.is_empty() {
        return Err(file.error_at(entry, "a [[cleanup]] entry has an empty `pattern`".into()));
    }
    let origin = Origin::File {
        path: file.path.to_path_buf(),
        line: toml_error::locate(file.text, span.start).0,
    };
    let max_chars = match &raw.max_length {
        None => None,
        Some(m) => Some(
            usize::try_from(*m.get_ref())
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    file.error_at(
                        m.span().start,
                        "`max-length` must be a positive number of characters".into(),
                    )
                })?,
        ),
    };
    let mut rule = Rule::new(pattern, &raw.replace, scope, files, origin).map_err(|e| {
        let token = file.text.get(span.clone()).unwrap_or("");
        let at = span.start + source_offset(token, e.offset);
        let position = pattern.get(..e.offset).map_or(1, |p| p.chars().count() + 1);
        file.error_at(
            at,
            format!(
                "`pattern` is not a valid regex: {} (at character {position} of the pattern)",
                e.message
            ),
        )
    })?;
    rule.max_chars = max_chars;
    Ok(rule)
}

/// The byte offset in a TOML string token (quotes included) of byte `value_offset` of the
/// string's value: escapes in basic strings take more room than the characters they stand
/// for; a multi-line string drops a line end right after its opening quotes.
pub(super) fn source_offset(token: &str, value_offset: usize) -> usize {
    let (open, basic) = if token.starts_with("\"\"\"") {
        (3, true)
    } else if token.starts_with("'''") {
        (3, false)
    } else if token.starts_with('"') {
        (1, true)
    } else {
        (1, false)
    };
    let mut raw = open;
    if open == 3 {
        if token[raw..].starts_with("\r\n") {
            raw += 2;
        } else if token[raw..].starts_with('\n') {
            raw += 1;
        }
    }
    let mut value = 0;
    let bytes = token.as_bytes();
    while value < value_offset && raw < token.len() {
        let c = token[raw..].chars().next().unwrap_or(' ');
        if basic && c == '\\' {
            let (raw_len, value_len) = escape(&token[raw..]);
            raw += raw_len;
            value += value_len;
        } else {
            raw += c.len_utf8();
            value += c.len_utf8();
        }
        if raw >= bytes.len() {
            break;
        }
    }
    raw.min(token.len())
}

/// One escape at the start of `s` (which starts with `\`): its length in the source and the
/// length in bytes of what it stands for.
fn escape(s: &str) -> (usize, usize) {
    let hex = |n: usize| {
        let code = s
            .get(2..2 + n)
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        let len = code.and_then(char::from_u32).map_or(1, char::len_utf8);
        (2 + n, len)
    };
    match s.as_bytes().get(1) {
        Some(b'u') => hex(4),
        Some(b'U') => hex(8),
        Some(b'x') => hex(2),
        _ => (2, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_offsets_follow_escapes_and_string_kinds() {
        // Value `a\d(` : the `(` is byte 3 of the value.
        assert_eq!(source_offset(r#""a\\d(""#, 3), 5);
        assert_eq!(source_offset(r"'a\d('", 3), 4);
        assert_eq!(source_offset("'''\na\\d('''", 3), 7);
        assert_eq!(source_offset(r#""\u00e9(""#, 2), 7);
        assert_eq!(source_offset(r#""本章(""#, 6), 7);
    }

    fn load(extra: &str) -> Result<crate::project::Project> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let text = format!(
            "[book]\ntitle = \"书\"\nauthors = [\"某\"]\nlanguage = \"zh-CN\"\n{extra}\n\
             [[chapters]]\nfile = \"Cargo.toml\"\n"
        );
        crate::project::Project::from_str(&text, root, &root.join("metadata.toml"))
    }

    #[test]
    fn a_bad_pattern_is_an_error_at_its_position() {
        let e = load("[[cleanup]]\npattern = \"本章\\\\d(未完\"\n").unwrap_err();
        let Error::MetadataSyntax {
            line,
            column,
            message,
            ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(*line, 6, "{e}");
        // `pattern = "本章\\d(未完"`: the `(` is the 17th character of the line.
        assert_eq!(*column, 17, "{e}");
        assert!(
            message.contains("at character 5 of the pattern"),
            "{message}"
        );
    }

    #[test]
    fn unknown_settings_are_refused_with_the_choices() {
        let e = load("[text]\ncleanup-preset = \"web\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("web-novel"), "{e}");
        let e = load("[text]\nquotes = \"round\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"corner\""), "{e}");
        let e = load("[[cleanup]]\npattern = \"a\"\nscope = \"title\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"titles\""), "{e}");
    }

    #[test]
    fn typography_defaults_follow_the_language() {
        assert_eq!(
            typography("zh-TW", None),
            Typography::Cjk { japanese: false }
        );
        assert_eq!(typography("ja", None), Typography::Off);
        assert_eq!(
            typography("ja", Some(true)),
            Typography::Cjk { japanese: true }
        );
        assert_eq!(typography("zh-CN", Some(false)), Typography::Off);
        assert_eq!(typography("en", None), Typography::Off);
        assert_eq!(typography("en-GB", Some(true)), Typography::Latin);
    }
}
