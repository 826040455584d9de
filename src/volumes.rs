//! A long book as several books (`[output] split`): one volume per `[[parts]]` entry
//! (`"parts"`) or per run of N chapter entries (`{ chapters = N }`). Each volume is a project
//! of its own (its chapters, its title "书名 卷一", the book's title as its series and its
//! number as the series index, an identifier derived from the book's), so it is read,
//! converted, cached and rebuilt exactly as one book is: an edit rebuilds only its volume.
//!
//! A book without `[[parts]]` is cut at the volume headings that `split` finds inside its
//! text files, so a novel downloaded as one file with `第一卷`…`第三卷` in it makes three
//! books (each converts the whole file and keeps its own volume; the text before the first
//! volume goes with the first).
//!
//! Chapters before the first part go with the first volume, chapters between parts with the
//! part before them; a part cut by a `{ chapters = N }` boundary goes on under its title in
//! the next volume. `{ chapters = N }` counts chapter entries (files), not the chapters a text
//! file is split into at its headings.

use std::path::{Path, PathBuf};

use crate::book::locale::chinese_number;
use crate::project::{ChapterSource, ContentEntry, Project, Series, Volumes};

/// The volumes of `project` as projects, in order; None when the book makes fewer than two.
pub(crate) fn split(project: &Project, how: Volumes) -> Option<Vec<Project>> {
    let has_parts = (project.contents.iter()).any(|e| matches!(e, ContentEntry::Part { .. }));
    let groups = match how {
        Volumes::Parts if !has_parts => in_files(project),
        Volumes::Parts => by_parts(&project.contents),
        Volumes::Chapters(n) => by_chapters(&project.contents, n.max(1)),
    };
    if groups.len() < 2 {
        return None;
    }
    let count = groups.len();
    Some(
        groups
            .into_iter()
            .enumerate()
            .map(|(i, (contents, part))| volume(project, contents, part, i + 1, count))
            .collect(),
    )
}

/// Each part with the chapters around it; the part's title.
fn by_parts(contents: &[ContentEntry]) -> Vec<(Vec<ContentEntry>, Option<String>)> {
    let mut out: Vec<(Vec<ContentEntry>, Option<String>)> = Vec::new();
    let mut before = Vec::new();
    for entry in contents {
        match entry {
            ContentEntry::Part { title, .. } => {
                let mut entries = std::mem::take(&mut before);
                entries.push(entry.clone());
                out.push((entries, Some(title.clone())));
            }
            ContentEntry::Chapter(_) => match out.last_mut() {
                Some((entries, _)) => entries.push(entry.clone()),
                None => before.push(entry.clone()),
            },
        }
    }
    if out.is_empty() {
        return vec![(before, None)];
    }
    out
}

/// A book without `[[parts]]`: the volumes that `split` finds at the headings inside its text
/// files (`第一卷`, `Part One`), each a volume with the chapter files around it, as
/// [`by_parts`] takes them; the volume's heading as its title.
fn in_files(project: &Project) -> Vec<(Vec<ContentEntry>, Option<String>)> {
    let mut out: Vec<(Vec<ContentEntry>, Option<String>)> = Vec::new();
    let mut before = Vec::new();
    for entry in &project.contents {
        let ContentEntry::Chapter(c) = entry else {
            continue;
        };
        // A file that cannot be read has no volumes here: its build says why.
        let titles = crate::convert::chapter::volumes_in(project, c).unwrap_or_default();
        if titles.is_empty() {
            match out.last_mut() {
                Some((entries, _)) => entries.push(entry.clone()),
                None => before.push(entry.clone()),
            }
            continue;
        }
        for (k, title) in titles.into_iter().enumerate() {
            let mut entries = match k {
                0 => std::mem::take(&mut before),
                _ => Vec::new(),
            };
            let volume = ChapterSource {
                volume: u16::try_from(k + 1)
                    .ok()
                    .and_then(std::num::NonZeroU16::new),
                ..c.clone()
            };
            entries.push(ContentEntry::Chapter(volume));
            out.push((entries, Some(title)));
        }
    }
    if out.is_empty() {
        return vec![(before, None)];
    }
    out
}

/// Runs of `n` chapter entries, parts cut where a run ends.
fn by_chapters(contents: &[ContentEntry], n: usize) -> Vec<(Vec<ContentEntry>, Option<String>)> {
    let mut out: Vec<(Vec<ContentEntry>, Option<String>)> = vec![(Vec::new(), None)];
    let mut in_volume = 0;
    let mut room = |out: &mut Vec<(Vec<ContentEntry>, Option<String>)>| {
        if in_volume == n {
            out.push((Vec::new(), None));
            in_volume = 0;
        }
        in_volume += 1;
    };
    for entry in contents {
        match entry {
            ContentEntry::Chapter(_) => {
                room(&mut out);
                push(&mut out, entry.clone());
            }
            ContentEntry::Part { title, chapters } => {
                for c in chapters {
                    room(&mut out);
                    add_to_part(&mut out, title, c);
                }
            }
        }
    }
    out
}

fn push(out: &mut [(Vec<ContentEntry>, Option<String>)], entry: ContentEntry) {
    if let Some((entries, _)) = out.last_mut() {
        entries.push(entry);
    }
}

/// Adds chapter `c` of part `title` to the last volume, under that part.
fn add_to_part(out: &mut [(Vec<ContentEntry>, Option<String>)], title: &str, c: &ChapterSource) {
    let Some((entries, _)) = out.last_mut() else {
        return;
    };
    if let Some(ContentEntry::Part { title: t, chapters }) = entries.last_mut()
        && t == title
    {
        chapters.push(c.clone());
        return;
    }
    entries.push(ContentEntry::Part {
        title: title.to_string(),
        chapters: vec![c.clone()],
    });
}

/// Volume `n` of `count`: the project with these contents and its own title, series,
/// identifier and output.
fn volume(
    project: &Project,
    contents: Vec<ContentEntry>,
    part: Option<String>,
    n: usize,
    count: usize,
) -> Project {
    let mut v = project.clone();
    v.volumes = None;
    v.contents = contents;
    let book = &project.book;
    v.book.title = volume_title(&book.title, &book.language, n);
    if part.is_some() {
        v.book.subtitle = part;
    }
    v.book.series = Some(Series {
        name: book.title.clone(),
        index: Some(n.to_string()),
    });
    v.book.identifier = volume_identifier(&book.identifier, n);
    v.output = project.output.as_deref().map(|o| volume_path(o, n, count));
    v
}

/// "书名 卷一" in Chinese, "書名 第1巻" in Japanese, "Title, Volume 1" otherwise.
pub(crate) fn volume_title(title: &str, language: &str, n: usize) -> String {
    let lang = language.to_ascii_lowercase();
    if lang.starts_with("zh") {
        format!("{title} 卷{}", chinese_number(n))
    } else if lang.starts_with("ja") {
        format!("{title} 第{n}巻")
    } else {
        format!("{title}, Volume {n}")
    }
}

/// A UUID derived from the book's identifier and the volume's number: stable across builds,
/// different for each volume.
pub(crate) fn volume_identifier(identifier: &str, n: usize) -> String {
    let key = format!("{identifier}#volume-{n}");
    let id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, key.as_bytes());
    format!("urn:uuid:{id}")
}

/// `out/book.epub` -> `out/book.vol1.epub` (numbers padded to the count's width, so that the
/// files sort in order).
pub(crate) fn volume_path(path: &Path, n: usize, count: usize) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem.to_string(), format!(".{ext}")),
        _ => (name.clone(), String::new()),
    };
    let width = count.to_string().len();
    path.with_file_name(format!("{stem}.vol{n:0width$}{ext}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter(name: &str) -> ChapterSource {
        ChapterSource {
            path: PathBuf::from(name),
            title: None,
            line: None,
            encoding: None,
            encoding_errors: Default::default(),
            format: None,
            split: None,
            level: 1,
            stamp: None,
            volume: None,
            linear: true,
            toc: true,
            heading: true,
            sections: None,
        }
    }

    fn names(entries: &[ContentEntry]) -> Vec<String> {
        entries
            .iter()
            .map(|e| match e {
                ContentEntry::Chapter(c) => c.path.display().to_string(),
                ContentEntry::Part { title, chapters } => format!(
                    "{title}[{}]",
                    chapters
                        .iter()
                        .map(|c| c.path.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            })
            .collect()
    }

    fn book() -> Vec<ContentEntry> {
        vec![
            ContentEntry::Chapter(chapter("preface")),
            ContentEntry::Part {
                title: "一".into(),
                chapters: vec![chapter("a"), chapter("b"), chapter("c")],
            },
            ContentEntry::Chapter(chapter("interlude")),
            ContentEntry::Part {
                title: "二".into(),
                chapters: vec![chapter("d")],
            },
        ]
    }

    #[test]
    fn parts_take_the_chapters_around_them() {
        let v: Vec<Vec<String>> = by_parts(&book()).iter().map(|(e, _)| names(e)).collect();
        assert_eq!(
            v,
            vec![vec!["preface", "一[a b c]", "interlude"], vec!["二[d]"]]
        );
    }

    #[test]
    fn chapter_runs_cut_parts_and_keep_their_titles() {
        let v: Vec<Vec<String>> = by_chapters(&book(), 2)
            .iter()
            .map(|(e, _)| names(e))
            .collect();
        assert_eq!(
            v,
            vec![
                vec!["preface", "一[a]"],
                vec!["一[b c]"],
                vec!["interlude", "二[d]"]
            ]
        );
    }

    #[test]
    fn titles_identifiers_and_paths() {
        assert_eq!(volume_title("三国演义", "zh-CN", 1), "三国演义 卷一");
        assert_eq!(volume_title("三国演义", "zh", 12), "三国演义 卷十二");
        assert_eq!(volume_title("War", "en", 3), "War, Volume 3");
        for (n, want) in [
            (10, "十"),
            (20, "二十"),
            (105, "一百零五"),
            (1010, "一千零一十"),
        ] {
            assert_eq!(chinese_number(n), want);
        }
        let a = volume_identifier("urn:isbn:9780000000000", 1);
        assert!(a.starts_with("urn:uuid:"));
        assert_eq!(a, volume_identifier("urn:isbn:9780000000000", 1));
        assert_ne!(a, volume_identifier("urn:isbn:9780000000000", 2));
        assert_eq!(
            volume_path(Path::new("out/book.epub"), 3, 12),
            PathBuf::from("out/book.vol03.epub")
        );
    }
}
