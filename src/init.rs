//! `epubforge init`: turns a folder of chapter files into a project by writing `metadata.toml`.
//!
//! This sits before the pipeline (project -> source -> convert -> package -> archive): it
//! writes the file the project stage reads. Chapter files (the kinds of `convert::FILE_KINDS`,
//! in the folder or one level down) are listed in natural order; each gets the title the
//! build's own conversion finds in it (`convert::chapter::title_in`: a heading line, a leading
//! `# Title`, an `<h1>`), else a title from its file name, else none (the build then numbers
//! it): init writes the titles the build would give. The language
//! is guessed from the text, the book title is the folder's name, and the cover is the image in
//! `covers/`. The optional keys are written as comments so an author can see what exists.

use std::path::{Path, PathBuf};

use crate::convert::chapter::{title_from_file_name, title_in};
use crate::convert::{FILE_KINDS, SourceKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::project::{METADATA_FILE, natural_cmp};
use crate::source::{self, Detection, EncodingErrors};

/// How much of each chapter file is read to find its title and language.
const SAMPLE_BYTES: u64 = 256 * 1024;

/// Options of [`init`].
#[derive(Debug, Clone, Copy, Default)]
pub struct InitOptions {
    /// Overwrite an existing `metadata.toml`.
    pub force: bool,
}

/// What [`init`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct InitReport {
    /// The metadata file written.
    pub metadata_path: PathBuf,
    /// The chapters listed, in order.
    pub chapters: Vec<ChapterGuess>,
    /// The language tag written.
    pub language: String,
    /// The cover written, relative to the folder.
    pub cover: Option<String>,
}

/// One chapter file as `init` understood it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChapterGuess {
    /// Path relative to the project folder, with `/` separators.
    pub file: String,
    /// The title found, if any.
    pub title: Option<String>,
    /// The encoding label to force, when the file is not UTF-8 and the encoding was guessed.
    pub encoding: Option<String>,
}

/// Why `init` wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// `metadata.toml` is already there.
    #[error("{}: already exists; not overwritten\n  hint: {EXISTS_HINT}", path.display())]
    Exists {
        /// The existing file.
        path: PathBuf,
    },
    /// The folder holds no chapter files.
    #[error(
        "{}: no chapter files here ({})",
        dir.display(),
        looked_for()
    )]
    NoChapters {
        /// The folder.
        dir: PathBuf,
    },
    /// A file or folder could not be read or written.
    #[error("{}: {action}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What we were doing.
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The kinds of file `init` looked for.
fn looked_for() -> String {
    let kinds = FILE_KINDS.map(|(ext, _)| format!(".{ext}")).join(" ");
    format!("looked for {kinds}, also one folder down")
}

const EXISTS_HINT: &str = "pass --force to replace it, or edit it by hand";

impl InitError {
    /// The error as a [`Diagnostic`].
    pub fn diagnostic(&self) -> Diagnostic {
        match self {
            InitError::Exists { path } => {
                Diagnostic::error(Code::Init, "already exists; not overwritten")
                    .at(path)
                    .hint(EXISTS_HINT)
            }
            InitError::NoChapters { dir } => {
                let message = format!("no chapter files here ({})", looked_for());
                Diagnostic::error(Code::Init, message).at(dir)
            }
            InitError::Io {
                path,
                action,
                source,
            } => Diagnostic::error(Code::Io, format!("{action}: {source}")).at(path),
        }
    }
}

/// Writes `dir/metadata.toml` for the chapter files in `dir`.
pub fn init(dir: &Path, opts: &InitOptions) -> Result<InitReport, InitError> {
    let metadata_path = dir.join(METADATA_FILE);
    if metadata_path.exists() && !opts.force {
        return Err(InitError::Exists {
            path: metadata_path,
        });
    }
    let files = find_chapter_files(dir)?;
    if files.is_empty() {
        return Err(InitError::NoChapters {
            dir: dir.to_path_buf(),
        });
    }
    let mut sample_text = String::new();
    let mut chapters = Vec::new();
    for rel in &files {
        let path = dir.join(rel);
        let (text, encoding) = read_sample(&path)?;
        if sample_text.len() < 1 << 20 {
            sample_text.push_str(&text);
        }
        let title = title_in(&path, &text).or_else(|| title_from_file_name(&path));
        chapters.push(ChapterGuess {
            file: rel.clone(),
            title,
            encoding,
        });
    }
    let language = guess_language(&sample_text).to_string();
    let cover = find_cover(dir);
    let title = folder_title(dir);
    let text = render_metadata(&title, &language, cover.as_deref(), &chapters);
    std::fs::write(&metadata_path, text).map_err(|source| InitError::Io {
        path: metadata_path.clone(),
        action: "cannot write",
        source,
    })?;
    Ok(InitReport {
        metadata_path,
        chapters,
        language,
        cover,
    })
}

/// Chapter files in `dir` and in its visible subfolders (not `build/` or `covers/`), as
/// relative `/`-separated paths in natural order.
pub fn find_chapter_files(dir: &Path) -> Result<Vec<String>, InitError> {
    let io = |source| InitError::Io {
        path: dir.to_path_buf(),
        action: "cannot list",
        source,
    };
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .max_depth(2)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            let skipped = e.depth() == 1
                && e.file_type().is_dir()
                && matches!(name.as_ref(), "build" | "covers" | "target");
            !name.starts_with('.') && !skipped
        });
    for entry in walker {
        let entry = entry.map_err(|e| io(e.into()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.path();
        if SourceKind::known(path).is_none() {
            continue;
        }
        let Ok(rel) = path.strip_prefix(dir) else {
            continue;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        out.push(rel.join("/"));
    }
    out.sort_by(|a, b| natural_cmp(a, b));
    Ok(out)
}

/// The start of a file, decoded (bad bytes replaced: a sample may end mid-character), and the
/// encoding to force when it had to be guessed.
fn read_sample(path: &Path) -> Result<(String, Option<String>), InitError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|source| InitError::Io {
        path: path.to_path_buf(),
        action: "cannot read",
        source,
    })?;
    let mut bytes = Vec::new();
    file.take(SAMPLE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|source| InitError::Io {
            path: path.to_path_buf(),
            action: "cannot read",
            source,
        })?;
    match source::decode(&bytes, None, EncodingErrors::Replace) {
        Ok(d) => {
            let forced =
                (d.detection == Detection::Guessed).then(|| d.encoding.name().to_ascii_lowercase());
            Ok((d.text, forced))
        }
        Err(_) => Ok((String::new(), None)),
    }
}

/// A BCP 47 tag guessed from the text: `ja` when there is kana, `ko` for hangul, `zh-CN` or
/// `zh-TW` for Chinese (by characters that exist only in simplified or in traditional script),
/// else `en`.
pub fn guess_language(text: &str) -> &'static str {
    let (mut han, mut kana, mut hangul, mut latin) = (0usize, 0usize, 0usize, 0usize);
    let (mut simplified, mut traditional) = (0usize, 0usize);
    for c in text.chars() {
        match c as u32 {
            0x3040..=0x30FF | 0x31F0..=0x31FF => kana += 1,
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => hangul += 1,
            0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => {
                han += 1;
                if SIMPLIFIED_ONLY.contains(c) {
                    simplified += 1;
                } else if TRADITIONAL_ONLY.contains(c) {
                    traditional += 1;
                }
            }
            _ if c.is_alphabetic() => latin += 1,
            _ => {}
        }
    }
    let east_asian = han + kana + hangul;
    // Latin words are counted per letter, CJK per character (about one word each): weigh the
    // letters down so a CJK text quoting some English stays CJK.
    if east_asian == 0 || east_asian * 4 < latin / 2 {
        return "en";
    }
    if hangul > han && hangul >= kana {
        "ko"
    } else if kana * 20 >= east_asian {
        "ja"
    } else if traditional > simplified {
        "zh-TW"
    } else {
        "zh-CN"
    }
}

/// Common characters written only in simplified Chinese.
const SIMPLIFIED_ONLY: &str = "这们说时来国会为对发后还过经与东马军长门见问间让从书开关头话样现实学无电进车给语听将战阵气师岁边远处条认识该这里么个们爷丝两严丧临为乐买乱争于亏云亚产亲亿仅从仑仓仪们价众优伙会伞伟传伤伦伪体余佣侠侣侥侦侧侨侩侪侬俣俦俨俩俪俭债倾偬偻偾偿傥傧储傩儿兑兖党兰关兴兹养兽冁内冈册写军农冢冯冲决况冻净凄凉凌减凑凛几凤凫凭凯击凿刍划刘则刚创删别刬刭刽刿剀剂剐剑剥剧劝办务劢动励劲劳势勋勐勚匀匦匮区医华协单卖卢卤卧卫却卺厂厅历厉压厌厍厕厢厣厦厨厩厮县参";

/// Common characters written only in traditional Chinese.
const TRADITIONAL_ONLY: &str = "這們說時來國會為對發後還過經與東馬軍長門見問間讓從書開關頭話樣現實學無電進車給語聽將戰陣氣師歲邊遠處條認識該裏麼個爺絲兩嚴喪臨樂買亂爭於虧雲亞產親億僅崙倉儀價眾優夥傘偉傳傷倫偽體餘傭俠侶僥偵側僑儈儕儂儔儼倆儷儉債傾傯僂僨償儻儐儲儺兒兌兗黨蘭興茲養獸囅內岡冊寫農塚馮衝決況凍淨淒涼淩減湊凜幾鳳鳧憑凱擊鑿芻劃劉則剛創刪別剗剄劊劌剴劑剮劍剝劇勸辦務勱動勵勁勞勢勳勩勻匭匱區醫華協單賣盧鹵臥衛卻巹廠廳曆厲壓厭厙廁廂厴廈廚廄廝縣參";

/// The image in `covers/`: the only one, or the one named `cover.*` among several.
fn find_cover(dir: &Path) -> Option<String> {
    let entries = std::fs::read_dir(dir.join("covers")).ok()?;
    let mut images: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| crate::project::has_extension(Path::new(n), &crate::project::COVER_EXTENSIONS))
        .collect();
    images.sort_by(|a, b| natural_cmp(a, b));
    let chosen = if images.len() == 1 {
        images.pop()
    } else {
        images
            .into_iter()
            .find(|n| n.to_ascii_lowercase().starts_with("cover."))
    }?;
    Some(format!("covers/{chosen}"))
}

/// The folder's own name as the book title.
fn folder_title(dir: &Path) -> String {
    let real = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    real.file_name()
        .map(|n| n.to_string_lossy().trim().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "Untitled".to_string())
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The text of the metadata file.
pub fn render_metadata(
    title: &str,
    language: &str,
    cover: Option<&str>,
    chapters: &[ChapterGuess],
) -> String {
    let author = if language.starts_with("zh") {
        "佚名"
    } else {
        "Unknown"
    };
    let mut out = String::new();
    out.push_str("# Written by `epubforge init`. Edit freely; `epubforge check` reviews it,\n");
    out.push_str(
        "# `epubforge build` makes the EPUB. Paths are relative to this file's folder.\n\n",
    );
    out.push_str("[book]\n");
    out.push_str(&format!("title = {}\n", quote(title)));
    out.push_str(&format!(
        "authors = [{}]  # replace with the real author(s)\n",
        quote(author)
    ));
    out.push_str(&format!(
        "language = {}  # guessed from the text\n",
        quote(language)
    ));
    if let Some(cover) = cover {
        out.push_str(&format!("cover = {}\n", quote(cover)));
    }
    out.push_str(
        "\
# Optional keys:
# subtitle = \"...\"
# description = \"A blurb; reading apps and stores show it.\"
# publisher = \"...\"
# published = 2026-01-31
# subjects = [\"fiction\"]
# identifier = \"urn:isbn:9780306406157\"   # default: a stable urn:uuid from title and authors
# series = \"...\"
# series-index = 1
# rights = \"...\"
# contributors = [{ name = \"...\", role = \"trl\" }]   # trl translator, edt editor, ill illustrator
# cover = \"covers/cover.jpg\"

# [output]
# path = \"build/book.epub\"

# Each chapter: `file` (or `glob = \"chapters/*.txt\"`), optional `title`, and for files that
# are not UTF-8 `encoding = \"gb18030\"` (and `encoding-errors = \"replace\"` for damaged bytes).
# Chapters can also be grouped: [[parts]] title = \"...\" with [[parts.chapters]] under it.
",
    );
    for c in chapters {
        out.push_str("\n[[chapters]]\n");
        out.push_str(&format!("file = {}\n", quote(&c.file)));
        if let Some(t) = &c.title {
            out.push_str(&format!("title = {}\n", quote(t)));
        }
        if let Some(e) = &c.encoding {
            out.push_str(&format!("encoding = {}\n", quote(e)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_guess_tells_scripts_apart() {
        assert_eq!(guess_language("这是一个关于战争的故事，他们说。"), "zh-CN");
        assert_eq!(guess_language("這是一個關於戰爭的故事，他們說。"), "zh-TW");
        assert_eq!(guess_language("これは戦争の物語です。彼らは言った。"), "ja");
        assert_eq!(guess_language("이것은 전쟁에 관한 이야기입니다."), "ko");
        assert_eq!(guess_language("It was a dark and stormy night."), "en");
        assert_eq!(guess_language(""), "en");
        assert_eq!(
            guess_language("他说：“OK, let's go.” 然后离开了这里。"),
            "zh-CN"
        );
    }

    #[test]
    fn titles_are_found_as_the_build_finds_them() {
        let txt = Path::new("a.txt");
        assert_eq!(
            title_in(txt, "\n\n  第一章　风起\n正文").as_deref(),
            Some("第一章 风起")
        );
        assert_eq!(title_in(txt, "他翻到第三章，看了很久。\n"), None);
        assert_eq!(title_in(txt, "正文\n第二章 云涌"), None);
        assert_eq!(
            title_in(Path::new("a.md"), "# The Start\n\ntext").as_deref(),
            Some("The Start")
        );
        // HTML titles itself as the build reads it (init used to leave HTML untitled).
        assert_eq!(
            title_in(Path::new("a.html"), "<h1>The Start</h1><p>text</p>").as_deref(),
            Some("The Start")
        );
        assert_eq!(title_in(txt, ""), None);
    }

    #[test]
    fn chapter_files_are_listed_in_natural_order_skipping_covers_and_build() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "10.txt",
            "2.txt",
            "1.md",
            "notes.pdf",
            "covers/c.txt",
            "build/x.txt",
        ] {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::write(d.join(f), "x").unwrap();
        }
        std::fs::create_dir_all(d.join("part2")).unwrap();
        std::fs::write(d.join("part2/3.html"), "x").unwrap();
        assert_eq!(
            find_chapter_files(d).unwrap(),
            ["1.md", "2.txt", "10.txt", "part2/3.html"]
        );
    }

    #[test]
    fn init_writes_loadable_metadata_and_refuses_to_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("001.txt"), "第一章 开端\n这是第一章的正文。\n").unwrap();
        std::fs::write(d.join("002_the_end.txt"), "他们说完了。\n").unwrap();
        let report = init(d, &InitOptions::default()).unwrap();
        assert_eq!(report.language, "zh-CN");
        let project = crate::project::Project::load(d).unwrap();
        let titles: Vec<_> = project.chapters().map(|c| c.title.clone()).collect();
        assert_eq!(
            titles,
            [Some("第一章 开端".to_string()), Some("the end".to_string())]
        );
        assert_eq!(project.book.language, "zh-CN");
        let before = std::fs::read(d.join(METADATA_FILE)).unwrap();
        assert!(matches!(
            init(d, &InitOptions::default()),
            Err(InitError::Exists { .. })
        ));
        assert_eq!(std::fs::read(d.join(METADATA_FILE)).unwrap(), before);
        assert!(init(d, &InitOptions { force: true }).is_ok());
    }

    #[test]
    fn titles_with_quotes_are_escaped() {
        let c = ChapterGuess {
            file: "a\"b.txt".into(),
            title: Some("He said \"hi\"\\".into()),
            encoding: None,
        };
        let text = render_metadata("T \"x\"", "en", None, &[c]);
        let v: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(v["book"]["title"].as_str(), Some("T \"x\""));
        assert_eq!(v["chapters"][0]["title"].as_str(), Some("He said \"hi\"\\"));
    }
}
