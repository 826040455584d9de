//! The options of `fix` written into the unpacked project's `metadata.toml` as the keys the
//! build reads (`[book] convert`, `[text]`, `[layout] writing-mode`, `[style] fonts`, a
//! `cleanup.toml`), so that they mean on an EPUB exactly what they mean in a project.
//!
//! A fix adds no pages of its own (title page, contents page, colophon are turned off: the
//! EPUB has what it has) and changes no punctuation unless asked (typography off).

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::FixOptions;
use crate::book::WritingMode;
use crate::diagnostic::{Code, Diagnostic};
use crate::project::{CLEANUP_FILE, METADATA_FILE};

/// Where `--cleanup` takes its rules from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Cleanup {
    /// A built-in preset (`web-novel`).
    Preset(String),
    /// A file of `[[cleanup]]` rules, as a `cleanup.toml` holds.
    File(PathBuf),
}

impl Cleanup {
    /// `--cleanup VALUE`: an existing file is a rules file, else a preset's name.
    pub fn parse(value: &str) -> Cleanup {
        let path = PathBuf::from(value);
        match path.is_file() {
            true => Cleanup::File(path),
            false => Cleanup::Preset(value.to_string()),
        }
    }
}

/// The options that name files or presets, checked before anything is unpacked.
pub(super) fn validate(opts: &FixOptions) -> Result<(), super::FixError> {
    let bad = |m: String| Err(super::FixError::Options(m));
    if let Some(Cleanup::Preset(name)) = &opts.cleanup
        && crate::text_fix::TextFix::preset(name).is_none()
    {
        let known = crate::text_fix::TextFix::preset_names().join(", ");
        return bad(format!(
            "--cleanup {name}: neither a file nor a preset (the presets: {known})"
        ));
    }
    for font in &opts.fonts {
        if !font.is_file() {
            return bad(format!(
                "--font {}: no such file",
                crate::escape::path(font)
            ));
        }
    }
    Ok(())
}

/// Writes `opts` into the project at `dir` (its `metadata.toml`, and the files the options
/// name copied in); an error is about the option, at the file the user named.
pub(super) fn apply(dir: &Path, opts: &FixOptions) -> Result<(), Box<Diagnostic>> {
    let path = dir.join(METADATA_FILE);
    let failed = |e: &dyn std::fmt::Display| {
        Box::new(Diagnostic::error(Code::Io, format!("cannot write the options: {e}")).at(&path))
    };
    let text = std::fs::read_to_string(&path).map_err(|e| failed(&e))?;
    let (mut table, chapters) = match head_and_chapters(&text) {
        Some(split) => split,
        None => (text.parse().map_err(|e| failed(&e))?, ""),
    };
    set_keys(&mut table, opts);
    let fonts = copy_fonts(dir, &opts.fonts)?;
    if !fonts.is_empty() {
        let style = section(&mut table, "style");
        let mut list: Vec<Value> = fonts.into_iter().map(Value::String).collect();
        if let Some(Value::Array(old)) = style.remove("fonts") {
            list.extend(old);
        }
        style.insert("fonts".into(), Value::Array(list));
    }
    if let Some(Cleanup::File(rules)) = &opts.cleanup {
        copy_rules(dir, rules)?;
    }
    let mut text = toml::to_string(&table).map_err(|e| failed(&e))?;
    if !chapters.is_empty() {
        text.push('\n');
        text.push_str(chapters);
    }
    std::fs::write(&path, text).map_err(|e| failed(&e))
}

/// The unpacked `metadata.toml` parsed up to its chapter list (the `[[chapters]]` tables the
/// unpacking writes last), and the list as written: the options never touch it, so its
/// thousands of entries are carried as they are rather than parsed and written again. None
/// when there is no clean cut (no list, or the part before it does not parse alone or names
/// chapters itself, or a table other than the list follows it, where a key the options set
/// could be defined twice): the whole is then parsed.
fn head_and_chapters(text: &str) -> Option<(Table, &str)> {
    let at = text.find("\n[[chapters]]\n")? + 1;
    let (head, chapters) = text.split_at(at);
    let other_table = |line: &str| line.starts_with('[') && line.trim_end() != "[[chapters]]";
    if chapters.lines().any(other_table) {
        return None;
    }
    let table: Table = head.parse().ok()?;
    (!table.contains_key("chapters")).then_some((table, chapters))
}

/// The keys the options set, and those a fix always sets.
fn set_keys(table: &mut Table, opts: &FixOptions) {
    let cjk = opts.convert.is_some() || is_cjk(table);
    let output = section(table, "output");
    for key in ["path", "targets", "split"] {
        output.remove(key);
    }
    let layout = section(table, "layout");
    for page in ["generated-cover", "title-page", "colophon"] {
        layout.insert(page.into(), Value::Boolean(false));
    }
    // A contents page stays where the EPUB had one in its reading order (the unpacking wrote
    // `toc-page = true` and its place); a fix adds none to an EPUB that had none.
    layout.entry("toc-page").or_insert(Value::Boolean(false));
    let quotes = opts.writing_mode.map(|mode| {
        let (name, quotes) = match mode {
            WritingMode::VerticalRl => ("vertical-rl", "corner"),
            WritingMode::HorizontalTb => ("horizontal-tb", "curly"),
        };
        layout.insert("writing-mode".into(), Value::String(name.into()));
        quotes
    });
    // Corner brackets are Chinese and Japanese quotation marks: an English book turned
    // vertical keeps its own.
    let quotes = quotes.filter(|_| cjk);
    let text = section(table, "text");
    text.insert("typography".into(), Value::Boolean(opts.typography));
    if let Some(quotes) = quotes {
        text.insert("quotes".into(), Value::String(quotes.into()));
    }
    if let Some(Cleanup::Preset(name)) = &opts.cleanup {
        text.insert("cleanup-preset".into(), Value::String(name.clone()));
    }
    if let Some(config) = &opts.convert {
        section(table, "book").insert("convert".into(), Value::String(config.clone()));
    }
}

/// Whether the book's language is Chinese or Japanese.
fn is_cjk(table: &Table) -> bool {
    let language = table
        .get("book")
        .and_then(|b| b.get("language"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_ascii_lowercase();
    language.starts_with("zh") || language.starts_with("ja")
}

/// The table `name` of `table`, made when missing (replaced when it is not a table).
fn section<'t>(table: &'t mut Table, name: &str) -> &'t mut Table {
    let entry = table
        .entry(name)
        .or_insert_with(|| Value::Table(Table::new()));
    if !entry.is_table() {
        *entry = Value::Table(Table::new());
    }
    match entry {
        Value::Table(t) => t,
        _ => unreachable!("made a table just above"),
    }
}

/// Copies the fonts into the project's `fix-fonts/`; their paths as `[style] fonts` names them.
fn copy_fonts(dir: &Path, fonts: &[PathBuf]) -> Result<Vec<String>, Box<Diagnostic>> {
    let folder = dir.join("fix-fonts");
    let mut names = Vec::new();
    for (i, font) in fonts.iter().enumerate() {
        let failed = |e: std::io::Error| {
            Box::new(Diagnostic::error(Code::Font, format!("cannot read the font: {e}")).at(font))
        };
        std::fs::create_dir_all(&folder).map_err(failed)?;
        let ext = font
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let name = format!("font-{i}.{ext}");
        std::fs::copy(font, folder.join(&name)).map_err(failed)?;
        names.push(format!("fix-fonts/{name}"));
    }
    Ok(names)
}

/// Adds the rules file's rules to the project's `cleanup.toml` (after any it has).
fn copy_rules(dir: &Path, rules: &Path) -> Result<(), Box<Diagnostic>> {
    let failed = |e: std::io::Error| {
        Box::new(
            Diagnostic::error(Code::CleanupRule, format!("cannot read the rules: {e}")).at(rules),
        )
    };
    let added = std::fs::read_to_string(rules).map_err(failed)?;
    let target = dir.join(CLEANUP_FILE);
    let mut text = std::fs::read_to_string(&target).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&added);
    std::fs::write(&target, text).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(opts: &FixOptions) -> Table {
        let mut table: Table =
            "[book]\ntitle = \"书\"\nlanguage = \"zh-CN\"\n[output]\npath = \"x.epub\"\n"
                .parse()
                .unwrap();
        set_keys(&mut table, opts);
        table
    }

    #[test]
    fn a_plain_fix_adds_no_pages_changes_no_punctuation_and_drops_the_projects_output() {
        let t = applied(&FixOptions::default());
        assert_eq!(t["layout"]["generated-cover"].as_bool(), Some(false));
        assert_eq!(t["layout"]["title-page"].as_bool(), Some(false));
        assert_eq!(t["layout"]["toc-page"].as_bool(), Some(false));
        assert_eq!(t["text"]["typography"].as_bool(), Some(false));
        assert!(t["output"].get("path").is_none());
        assert!(t["book"].get("convert").is_none());
    }

    #[test]
    fn the_options_reach_the_keys_and_the_chapter_list_is_kept_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(METADATA_FILE);
        let list = "[[chapters]]\nfile = \"a.xhtml\"\nsections = [\n  { title = \"x\", level = 2 },\n]\n\n[[chapters]]\nfile = \"b.xhtml\"\n";
        let head = "[book]\ntitle = \"[[chapters]]\"\n[output]\npath = \"x.epub\"\n\n";
        let opts = FixOptions {
            convert: Some("s2tw".into()),
            ..FixOptions::default()
        };
        let sources = [
            format!("{head}{list}"),
            // A cut inside a string: the whole is parsed.
            format!("description = \"\"\"\n[[chapters]]\nfile = \"no\"\"\"\"\n{list}"),
            // A table after the list, which the options may set too: the whole is parsed.
            format!("{head}{list}[text]\ntypography = false\n"),
        ];
        for (i, source) in sources.iter().enumerate() {
            std::fs::write(&path, source).unwrap();
            apply(dir.path(), &opts).unwrap();
            let text = std::fs::read_to_string(&path).unwrap();
            let whole: Table = text.parse().unwrap();
            let mut expected: Table = source.parse().unwrap();
            set_keys(&mut expected, &opts);
            assert_eq!(whole, expected, "{text}");
            assert_eq!(text.ends_with(list), i == 0, "{text}");
        }
    }

    #[test]
    fn a_contents_page_the_epub_had_in_its_reading_order_stays() {
        let mut table: Table = "[book]\ntitle = \"书\"\n[layout]\ntoc-page = true\n"
            .parse()
            .unwrap();
        set_keys(&mut table, &FixOptions::default());
        assert_eq!(table["layout"]["toc-page"].as_bool(), Some(true));
        assert_eq!(table["layout"]["title-page"].as_bool(), Some(false));
    }

    #[test]
    fn vertical_brings_corner_quotes_and_horizontal_curly_ones() {
        let vertical = FixOptions {
            writing_mode: Some(WritingMode::VerticalRl),
            convert: Some("s2tw".into()),
            cleanup: Some(Cleanup::Preset("web-novel".into())),
            typography: true,
            ..FixOptions::default()
        };
        let t = applied(&vertical);
        assert_eq!(t["layout"]["writing-mode"].as_str(), Some("vertical-rl"));
        assert_eq!(t["text"]["quotes"].as_str(), Some("corner"));
        assert_eq!(t["text"]["typography"].as_bool(), Some(true));
        assert_eq!(t["text"]["cleanup-preset"].as_str(), Some("web-novel"));
        assert_eq!(t["book"]["convert"].as_str(), Some("s2tw"));
        let horizontal = FixOptions {
            writing_mode: Some(WritingMode::HorizontalTb),
            ..FixOptions::default()
        };
        let t = applied(&horizontal);
        assert_eq!(t["layout"]["writing-mode"].as_str(), Some("horizontal-tb"));
        assert_eq!(t["text"]["quotes"].as_str(), Some("curly"));
        let mut english: Table = "[book]\nlanguage = \"en\"\n".parse().unwrap();
        set_keys(&mut english, &vertical_only());
        assert!(english["text"].get("quotes").is_none());
    }

    fn vertical_only() -> FixOptions {
        FixOptions {
            writing_mode: Some(WritingMode::VerticalRl),
            ..FixOptions::default()
        }
    }

    #[test]
    fn an_unknown_preset_or_a_missing_font_is_refused_before_anything_is_unpacked() {
        let opts = FixOptions {
            cleanup: Some(Cleanup::parse("no-such-preset")),
            ..FixOptions::default()
        };
        assert!(
            validate(&opts)
                .unwrap_err()
                .to_string()
                .contains("web-novel")
        );
        let opts = FixOptions {
            fonts: vec![PathBuf::from("/no/such/font.otf")],
            ..FixOptions::default()
        };
        assert!(validate(&opts).is_err());
    }
}
