//! `metadata.toml` as written, and its validation into [`Project`]: the `[book]` table in
//! [`book`], the reading order in [`chapters`], the other tables here and in their modules.

mod book;
mod chapters;

pub(crate) use book::is_language_tag;
use book::validate_book;
use chapters::contents;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use toml::Spanned;

use super::boundary::{Boundary, Found, LookedAt, Outside};
use super::context::{Ctx, Seen};
use super::glob::Skip;
use super::{BookInfo, ContentEntry, Project};
use crate::book::Target;
use crate::error::{Error, Result};
use crate::project::Volumes;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct Metadata {
    book: Spanned<Book>,
    #[serde(default)]
    chapters: Vec<Spanned<Chapter>>,
    #[serde(default)]
    parts: Vec<Spanned<Part>>,
    #[serde(default)]
    suffix_chapters: Vec<Spanned<Chapter>>,
    #[serde(default)]
    output: Output,
    #[serde(default)]
    style: super::layout::RawStyle,
    #[serde(default)]
    layout: super::layout::RawLayout,
    #[serde(default)]
    text: super::text::RawText,
    #[serde(default)]
    cleanup: Vec<Spanned<super::text::RawRule>>,
    #[serde(default)]
    check: super::ignore::RawCheck,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Book {
    title: Spanned<String>,
    subtitle: Option<Spanned<String>>,
    authors: Spanned<Vec<RawPerson>>,
    contributors: Option<Spanned<Vec<RawPerson>>>,
    language: Spanned<String>,
    identifier: Option<Spanned<String>>,
    publisher: Option<Spanned<String>>,
    description: Option<Spanned<String>>,
    #[serde(default)]
    subjects: Vec<Spanned<String>>,
    rights: Option<Spanned<String>>,
    published: Option<Spanned<toml::value::Datetime>>,
    series: Option<Spanned<String>>,
    series_index: Option<Spanned<toml::Value>>,
    cover: Option<Spanned<String>>,
    cover_alt: Option<Spanned<String>>,
    convert: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawPerson {
    Name(String),
    Full(FullPerson),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(super) struct FullPerson {
    name: String,
    file_as: Option<String>,
    role: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Chapter {
    file: Option<Spanned<String>>,
    glob: Option<Spanned<String>>,
    title: Option<String>,
    encoding: Option<String>,
    encoding_errors: Option<String>,
    split: Option<String>,
    volume_split: Option<String>,
    level: Option<Spanned<i64>>,
    format: Option<String>,
    linear: Option<bool>,
    toc: Option<bool>,
    heading: Option<bool>,
    sections: Option<Vec<RawSection>>,
}

/// One entry of a chapter's `sections`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSection {
    /// None: a heading without a target (the entries after it nest under it).
    id: Option<String>,
    title: String,
    level: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Part {
    title: String,
    #[serde(default)]
    chapters: Vec<Spanned<Chapter>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Output {
    path: Option<Spanned<String>>,
    epub_version: Option<Spanned<i64>>,
    targets: Option<Vec<Spanned<String>>>,
    split: Option<Spanned<RawSplit>>,
}

/// `[output] split`: `"parts"` or `{ chapters = N }`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawSplit {
    Name(String),
    Chapters { chapters: i64 },
}

/// Image extensions we accept as a cover, lower case.
pub(crate) const COVER_EXTENSIONS: [&str; 6] = ["jpg", "jpeg", "png", "gif", "webp", "svg"];

pub(super) fn validate<T: Send>(
    raw: Metadata,
    text: &str,
    root: &Path,
    path: &Path,
    (opts, looked): (&super::LoadOptions, Option<Arc<LookedAt>>),
    alongside: impl FnOnce(&Path) -> T + Send,
) -> Result<(Project, Option<T>)> {
    let boundary = Boundary::new(root, opts.allow_outside_paths).with_looked(looked);
    let ctx = Ctx::new(text, root, path, boundary);
    if let Ok(meta) = std::fs::metadata(path) {
        ctx.saw(&meta);
    }
    let book_span = raw.book.span().start;
    let mut raw_book = raw.book.into_inner();
    let convert = raw_book.convert.take();
    let mut book = validate_book(raw_book, &ctx, book_span)?;
    // Checked by the build, and only when the command line names no output of its own.
    let output_at = raw.output.path.as_ref().map(|p| p.span().start);
    let output = raw.output.path.map(|p| root.join(p.into_inner()));
    // The layout and the text settings come first: a converted book's title names its EPUB.
    let mut layout = super::layout::validate_layout(raw.layout, &ctx)?;
    let raw_text = (raw.cleanup, raw.text, convert);
    let chapters = (raw.chapters, raw.parts, raw.suffix_chapters);
    let TextAndContents {
        text_fix,
        cleanup_file,
        contents,
        beside,
    } = text_and_contents(
        raw_text,
        chapters,
        &ctx,
        &mut book.0,
        &layout,
        output.as_deref(),
        alongside,
    )?;
    convert_toc_page_title(&mut layout, &text_fix)?;
    let ignore = super::ignore::validate(raw.check, ctx.text, ctx.path)?;

    let style = super::layout::validate_style(raw.style, &ctx)?;
    let epub_version = super::layout::validate_version(raw.output.epub_version, &ctx)?;
    let targets = validate_targets(raw.output.targets.unwrap_or_default(), &ctx)?;
    let volumes = raw
        .output
        .split
        .map(|s| validate_split(s, &ctx))
        .transpose()?;
    let Seen {
        ids: mut input_ids,
        globs: chapter_globs,
    } = ctx.seen.into_inner().unwrap_or_default();
    input_ids.sort_unstable();
    input_ids.dedup();
    let mdbook = super::mdbook::read(root, &ctx.boundary);
    let project = Project {
        mdbook,
        text: text_fix,
        cleanup_file,
        ignore,
        style,
        layout,
        epub_version,
        targets,
        volumes,
        root: root.to_path_buf(),
        metadata_path: path.to_path_buf(),
        book: book.0,
        contents,
        cover: book.1,
        output,
        output_at,
        boundary: ctx.boundary,
        input_ids,
        chapter_globs,
    };
    Ok((project, beside))
}

impl Skip {
    /// What globs never take in the project at `root`: its metadata file `path`, and the
    /// default output when it lies `inside` the project.
    fn of(root: &Path, path: &Path, default_output: &Path, inside: bool) -> Skip {
        Skip {
            root: root.to_path_buf(),
            metadata: path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into(),
            output: default_output
                .strip_prefix(root)
                .ok()
                .filter(|_| inside)
                .map(super::glob::slashed),
        }
    }
}

/// The text-fix stage and the chapters, with what `alongside` makes of the default output
/// when that lies inside the project. A conversion builds its tables (some milliseconds)
/// before it converts the title that names the EPUB: the chapters are listed meanwhile (what
/// globs skip does not depend on the title: they skip the default output's folder whole).
fn text_and_contents<T: Send>(
    raw_text: RawTextFix,
    chapters: RawContents,
    ctx: &Ctx,
    book: &mut BookInfo,
    layout: &super::Layout,
    output: Option<&Path>,
    alongside: impl FnOnce(&Path) -> T + Send,
) -> Result<TextAndContents<T>> {
    let mut chapters = Some(chapters);
    let list = |chapters: Option<RawContents>, skip: &Skip| {
        let (chapters, parts, suffix) = chapters.expect("the chapters are listed once");
        contents(chapters, parts, suffix, ctx, skip)
    };
    let early_skip = raw_text.2.is_some().then(|| {
        let output = super::default_output(ctx.root, &book.title, output);
        Skip::of(
            ctx.root,
            ctx.path,
            &output,
            ctx.boundary.check(&output).is_ok(),
        )
    });
    let (fixed, early) = rayon::join(
        || text_fix(raw_text, ctx, book, layout),
        || early_skip.as_ref().map(|skip| list(chapters.take(), skip)),
    );
    let (text_fix, cleanup_file) = fixed?;
    let default_output = super::default_output(ctx.root, &book.title, output);
    // The build cache beside an output that leads outside is not read: the build refuses it.
    let inside = ctx.boundary.check(&default_output).is_ok();
    let (contents, beside) = match early {
        Some(listed) => (listed, inside.then(|| alongside(&default_output))),
        None => {
            let skip = Skip::of(ctx.root, ctx.path, &default_output, inside);
            rayon::join(
                || list(chapters.take(), &skip),
                || inside.then(|| alongside(&default_output)),
            )
        }
    };
    Ok(TextAndContents {
        text_fix,
        cleanup_file,
        contents: contents?,
        beside,
    })
}

/// What [`text_and_contents`] makes.
struct TextAndContents<T> {
    text_fix: crate::text_fix::TextFix,
    cleanup_file: Option<PathBuf>,
    contents: Vec<ContentEntry>,
    beside: Option<T>,
}

/// The chapters, parts and chapters after the parts, as written.
type RawContents = (
    Vec<Spanned<Chapter>>,
    Vec<Spanned<Part>>,
    Vec<Spanned<Chapter>>,
);

/// `[[cleanup]]`, `[text]` and `[book] convert`, as written.
/// The contents page's title (an EPUB's, `init` wrote it) through the text stage, as the
/// chapters' titles are (`convert` converts it).
fn convert_toc_page_title(
    layout: &mut super::Layout,
    text_fix: &crate::text_fix::TextFix,
) -> Result<()> {
    if let Some(title) = layout.toc_page_title.as_mut() {
        *title = text_fix.title(title, None, None)?;
    }
    Ok(())
}

type RawTextFix = (
    Vec<Spanned<super::text::RawRule>>,
    super::text::RawText,
    Option<Spanned<String>>,
);

/// The text-fix stage from `[[cleanup]]`, `[text]` and `[book] convert` (`raw`), with the
/// shared `cleanup.toml` when there is one; converts `book`'s metadata when the book is.
fn text_fix(
    raw: RawTextFix,
    ctx: &Ctx,
    book: &mut BookInfo,
    layout: &super::Layout,
) -> Result<(crate::text_fix::TextFix, Option<PathBuf>)> {
    let cleanup_file = cleanup_file(ctx)?;
    let (rules, settings, convert) = raw;
    let input = super::text::Input {
        text: ctx.text,
        path: ctx.path,
        rules,
        settings,
        convert,
        cleanup_file: cleanup_file.clone(),
        boundary: &ctx.boundary,
    };
    Ok((super::text::validate(input, book, layout)?, cleanup_file))
}

/// The shared `cleanup.toml` beside `metadata.toml`, when there is one: through the same
/// containment check as every path the project names (it may be a symlink leading out), and a
/// regular file (a FIFO or a folder by that name is an error, not a file silently skipped).
fn cleanup_file(ctx: &Ctx) -> Result<Option<PathBuf>> {
    let name = super::text::CLEANUP_FILE;
    let error = |message: String, hint: &str| Error::Metadata {
        path: ctx.root.join(name),
        message,
        hint: Some(hint.into()),
    };
    let (path, found) = (ctx.boundary.admit_file(ctx.root, name)).map_err(|outside| {
        let leads = outside.describe(name, ctx.root);
        error(
            format!("the shared cleanup rules file {leads}"),
            Outside::HINT,
        )
    })?;
    match found {
        Found::File { meta, .. } => {
            ctx.saw(&meta);
            Ok(Some(path))
        }
        Found::Held(_) => Ok(Some(path)),
        Found::Missing => Ok(None),
        Found::NotRegular(kind) => Err(error(
            format!(
                "{} is {kind}, not a regular file",
                crate::escape::path(&path)
            ),
            "make cleanup.toml a file of [[cleanup]] rules, or remove it",
        )),
    }
}

/// `[output] split`: `"parts"` or `{ chapters = N }` with N at least 1.
fn validate_split(raw: Spanned<RawSplit>, ctx: &Ctx) -> Result<Volumes> {
    let at = raw.span().start;
    match raw.into_inner() {
        RawSplit::Name(name) if name == "parts" => Ok(Volumes::Parts),
        RawSplit::Chapters { chapters } if chapters >= 1 => Ok(Volumes::Chapters(
            usize::try_from(chapters).unwrap_or(usize::MAX),
        )),
        _ => Err(ctx.error_at(
            at,
            "`[output] split` is \"parts\" (a volume per [[parts]] entry) or \
             { chapters = N } (a volume every N chapters, N at least 1)",
        )),
    }
}

/// `[output] targets`: each a target's name.
fn validate_targets(raw: Vec<Spanned<String>>, ctx: &Ctx) -> Result<Vec<Target>> {
    raw.into_iter()
        .map(|name| {
            Target::parse(name.get_ref()).ok_or_else(|| {
                ctx.error_at(
                    name.span().start,
                    format!(
                        "`[output] targets`: \"{}\" is not a target (epub, kobo, kindle, apple)",
                        name.get_ref()
                    ),
                )
            })
        })
        .collect()
}
#[cfg(test)]
mod tests {
    use super::book::{default_identifier, person};
    use super::*;
    use crate::project::LoadOptions;

    const BOOK: &str = "[book]\ntitle = \"T\"\nauthors = [\"A\"]\nlanguage = \"en\"\n";

    fn load(dir: &Path, chapters: &str, allow: bool) -> Result<Project> {
        let text = format!("{BOOK}{chapters}");
        let opts = LoadOptions {
            allow_outside_paths: allow,
        };
        Project::from_str_with(&text, dir, &dir.join("metadata.toml"), &opts)
    }

    fn message(e: Error) -> String {
        e.to_string()
    }

    #[test]
    fn a_chapter_format_overrides_the_extension_and_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "% A\n\n# A").unwrap();
        let p = load(
            dir.path(),
            "[[chapters]]\nfile = \"a.txt\"\nformat = \"markdown\"\n",
            false,
        )
        .unwrap();
        let formats: Vec<_> = p.chapters().map(|c| c.format).collect();
        assert_eq!(formats, [Some(super::super::ChapterFormat::Markdown)]);
        let e = load(
            dir.path(),
            "[[chapters]]\nfile = \"a.txt\"\nformat = \"rst\"\n",
            false,
        )
        .unwrap_err();
        assert!(message(e).contains("\"markdown\", \"text\", \"html\""));
    }

    #[test]
    fn a_chapter_in_a_format_we_do_not_read_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("one.rst"), "One\n===\n").unwrap();
        std::fs::write(d.join("two.tex"), "\\chapter{Two}\n").unwrap();
        let err = load(d, "[[chapters]]\nfile = \"one.rst\"\n", false).unwrap_err();
        assert!(
            err.to_string().ends_with(
                "one.rst: reStructuredText is not supported; convert it with pandoc or docutils (rst2html) first"
            ),
            "{err}"
        );
        let err = load(d, "[[chapters]]\nglob = \"*.tex\"\n", false).unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnsupportedFormat {
                    format: "LaTeX",
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn a_chapter_level_nests_it_and_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# A").unwrap();
        let p = load(
            dir.path(),
            "[[chapters]]\nfile = \"a.md\"\n[[chapters]]\nfile = \"a.md\"\nlevel = 2\n",
            false,
        )
        .unwrap();
        let levels: Vec<usize> = p.chapters().map(|c| c.level).collect();
        assert_eq!(levels, [1, 2]);
        for (bad, says) in [
            ("level = 0", "`level` = 0 is not between 1 and 6"),
            ("level = 7", "`level` = 7 is not between 1 and 6"),
            (
                "level = 2\nsplit = \"auto\"",
                "`level` cannot be used with `split`",
            ),
        ] {
            let chapters = format!("[[chapters]]\nfile = \"a.md\"\n{bad}\n");
            let m = message(load(dir.path(), &chapters, false).unwrap_err());
            assert!(m.contains(says) && m.contains("metadata.toml:7:"), "{m}");
        }
    }

    #[test]
    fn chapter_path_leaving_project_is_refused_with_key_and_line() {
        let outer = tempfile::tempdir().unwrap();
        let dir = outer.path().join("book");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(outer.path().join("secret.txt"), "secret").unwrap();
        let err = load(&dir, "[[chapters]]\nfile = \"../secret.txt\"\n", false).unwrap_err();
        // The hint is a field of its own, not part of the message.
        let hint = err.diagnostic().hint.unwrap_or_default();
        let m = message(err);
        assert!(m.contains("metadata.toml:6:"), "{m}");
        assert!(
            m.contains("`file` = \"../secret.txt\" points outside"),
            "{m}"
        );
        assert!(hint.contains("--allow-outside-paths"), "{hint}");
        let p = load(&dir, "[[chapters]]\nfile = \"../secret.txt\"\n", true).unwrap();
        assert_eq!(p.chapters().count(), 1);
    }

    #[test]
    fn etc_passwd_absolute_and_relative_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for value in ["../../etc/passwd", "/etc/passwd"] {
            let chapters = format!("[[chapters]]\nfile = \"{value}\"\n");
            let m = message(load(dir.path(), &chapters, false).unwrap_err());
            assert!(
                m.contains("points outside the project folder"),
                "{value}: {m}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlink_pointing_out_is_refused_for_file_glob_and_cover() {
        let outer = tempfile::tempdir().unwrap();
        let dir = outer.path().join("book");
        std::fs::create_dir_all(dir.join("ch")).unwrap();
        std::fs::create_dir_all(dir.join("covers")).unwrap();
        std::fs::write(outer.path().join("secret.txt"), "secret").unwrap();
        std::fs::write(dir.join("ch/1.txt"), "one").unwrap();
        std::os::unix::fs::symlink(outer.path().join("secret.txt"), dir.join("ch/2.txt")).unwrap();
        let m = message(load(&dir, "[[chapters]]\nfile = \"ch/2.txt\"\n", false).unwrap_err());
        assert!(m.contains("points outside"), "{m}");
        let m = message(load(&dir, "[[chapters]]\nglob = \"ch/*.txt\"\n", false).unwrap_err());
        assert!(m.contains("`glob` = \"ch/2.txt\" points outside"), "{m}");
        assert!(load(&dir, "[[chapters]]\nfile = \"ch/1.txt\"\n", false).is_ok());

        std::fs::write(outer.path().join("img.png"), "x").unwrap();
        std::os::unix::fs::symlink(outer.path().join("img.png"), dir.join("covers/c.png")).unwrap();
        let m = message(load(&dir, "[[chapters]]\nfile = \"ch/1.txt\"\n", false).unwrap_err());
        assert!(m.contains("`cover`"), "{m}");
    }

    #[test]
    fn folder_listing_globs_match_what_the_glob_crate_matches() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ch")).unwrap();
        let names = [
            "1.txt",
            "10.txt",
            "2.txt",
            ".hidden.txt",
            "a.TXT",
            "b.txt.bak",
            "c.md",
            "ctxt",
            "[x].txt",
        ];
        for name in names {
            std::fs::write(dir.path().join("ch").join(name), "x").unwrap();
        }
        for pattern in ["*.txt", "*", "*txt", "c*", "?.txt", "[0-9]*.txt", "*.[tm]*"] {
            let project = load(
                dir.path(),
                &format!("[[chapters]]\nglob = \"ch/{pattern}\"\n"),
                false,
            );
            let mut listed: Vec<String> = match project {
                Ok(p) => p
                    .chapters()
                    .map(|c| c.path.file_name().unwrap().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => Vec::new(),
            };
            let glob = glob::Pattern::new(pattern).unwrap();
            let mut expected: Vec<String> = names
                .iter()
                .filter(|n| glob.matches_with(n, glob::MatchOptions::new()))
                .map(|n| n.to_string())
                .collect();
            listed.sort();
            expected.sort();
            assert_eq!(listed, expected, "{pattern}");
        }
    }

    #[test]
    fn output_path_outside_is_refused_when_it_is_used() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.txt"), "one").unwrap();
        let meta = "[[chapters]]\nfile = \"1.txt\"\n[output]\npath = \"../out.epub\"\n";
        std::fs::write(dir.path().join("metadata.toml"), format!("{BOOK}{meta}")).unwrap();
        let project = load(dir.path(), meta, false).unwrap();
        let m = message(project.output_for(None).unwrap_err());
        assert!(m.contains("metadata.toml:8:"), "{m}");
        assert!(m.contains("`[output] path` = \"../out.epub\""), "{m}");
        let typed = dir.path().join("typed.epub");
        assert_eq!(project.output_for(Some(&typed)).unwrap(), typed);
    }

    #[test]
    fn language_tags_accept_bcp47_shapes_and_reject_junk() {
        for ok in ["zh", "zh-CN", "zh-Hant-TW", "en", "ja", "yue-HK"] {
            assert!(is_language_tag(ok), "{ok}");
        }
        for bad in ["", "chinese!", "z", "zh_CN", "zh-", "中文"] {
            assert!(!is_language_tag(bad), "{bad}");
        }
    }

    #[test]
    fn default_identifier_is_stable_and_depends_on_title_and_authors() {
        let a = vec![person(RawPerson::Name("甲".into()), "aut")];
        let b = vec![person(RawPerson::Name("乙".into()), "aut")];
        assert_eq!(default_identifier("书", &a), default_identifier("书", &a));
        assert_ne!(default_identifier("书", &a), default_identifier("书", &b));
        assert_ne!(default_identifier("书", &a), default_identifier("书二", &a));
        assert!(default_identifier("书", &a).starts_with("urn:uuid:"));
    }
}
