//! The book's outline: its volumes (parts) and chapters, nested as the table of contents nests
//! them, each with the file and line where it starts and its size in characters.
//!
//! It is read off the book's contents as the conversion assembled them
//! ([`super::book::assemble`]), which the build packages and `check` reviews: the outline
//! `check` prints (and `build -v`) is the table of contents the EPUB gets, not a second guess
//! at the headings. The contents say what the entries are and how they nest (with the
//! package's own nesting rule, [`crate::book::Levels`]); the [`Origin`] of each node, which
//! the conversion records beside it, says where it came from.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::book::{Chapter, EMPTY_CHAPTER_ID, Levels, Node};

/// Where one node of the book's contents came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The chapter file (`metadata.toml` for a `[[parts]]` entry).
    pub path: PathBuf,
    /// The 1-based line where it starts, where known.
    pub line: Option<usize>,
    /// Whether its body was converted (false when the build cache gave its title only).
    pub measured: bool,
    /// It is the front matter of a split text file: the text before its first heading (a
    /// header, a blurb, a preface, a contents list), which is no chapter of the book.
    pub front: bool,
    /// A volume the text has no heading for, implied where the chapter numbering starts over
    /// ([`crate::convert::split::Heading::implied`]).
    pub implied: bool,
}

impl Origin {
    /// The origin of a node of `path` starting at `line`.
    pub fn new(path: &Path, line: Option<usize>, measured: bool) -> Origin {
        Origin {
            path: path.to_path_buf(),
            line,
            measured,
            front: false,
            implied: false,
        }
    }

    /// The same origin, marked as front matter or not.
    pub fn front(self, front: bool) -> Origin {
        Origin { front, ..self }
    }

    /// The origin marked as an implied volume, or not.
    pub fn implied(self, implied: bool) -> Origin {
        Origin { implied, ..self }
    }
}

/// What an outline entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum EntryKind {
    /// A volume or part: a title page, then the entries under it.
    Volume,
    /// A chapter.
    Chapter,
    /// The front matter of a split text file (the text before its first heading), kept in
    /// the book as a section of its own but not counted as a chapter.
    Front,
}

/// A path as JSON text, lossily.
fn lossy<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

/// One entry of the outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Entry {
    /// Volume or chapter.
    pub kind: EntryKind,
    /// Its title, as the table of contents shows it.
    pub title: String,
    /// The file it comes from (in JSON as text, bytes that are not UTF-8 as U+FFFD: serde
    /// refuses such a path, and one file named so would cost the whole report).
    #[serde(serialize_with = "lossy")]
    pub path: PathBuf,
    /// The 1-based line of that file where it starts, where known.
    pub line: Option<usize>,
    /// Characters of text in it, white space not counted (a volume: in its chapters); None
    /// when the build took the chapter from its cache without converting it.
    pub chars: Option<usize>,
    /// A volume the text has no heading for, implied where the chapter numbering starts
    /// over (its title is the short lines above the new run, or made up).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub implied: bool,
    /// The entries nested under it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Entry>,
}

/// The book's volumes and chapters, nested.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Outline {
    /// Number of volumes (parts).
    pub volumes: usize,
    /// Number of chapters (front matter not counted).
    pub chapters: usize,
    /// Number of front-matter sections (the text before the first heading of a split file).
    pub front: usize,
    /// The top-level entries.
    pub entries: Vec<Entry>,
}

/// The number of nodes in `nodes`, parts and chapters, nested ones included: how many
/// origins they have.
pub(crate) fn node_count(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Chapter(_) => 1,
            Node::Part(p) => 1 + node_count(&p.children),
        })
        .sum()
}

/// For each node of `nodes`, depth-first (a part before its chapters, as origins are kept),
/// whether it is a part.
pub(crate) fn node_parts(nodes: &[Node]) -> Vec<bool> {
    fn walk(nodes: &[Node], out: &mut Vec<bool>) {
        for n in nodes {
            match n {
                Node::Chapter(_) => out.push(false),
                Node::Part(p) => {
                    out.push(true);
                    walk(&p.children, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(nodes, &mut out);
    out
}

impl Outline {
    /// The outline of the book's `contents`, whose nodes came from `origins` (in reading
    /// order, a part before its chapters, as the build records them while it assembles the
    /// book), with the size of each entry.
    pub(crate) fn of(contents: &[Node], origins: &[Origin]) -> Outline {
        Outline::measured(contents, origins, true)
    }

    /// [`Outline::of`], the sizes counted only when `sizes` is on (else every entry's
    /// [`Entry::chars`] is None): counting reads every chapter's text again, which a build
    /// that does not show the outline need not pay for.
    pub(crate) fn measured(contents: &[Node], origins: &[Origin], sizes: bool) -> Outline {
        let mut origins = origins.iter();
        let entries = walk(contents, &mut origins, sizes);
        let mut outline = Outline {
            entries,
            ..Outline::default()
        };
        let (volumes, chapters, front) =
            outline.iter().fold((0, 0, 0), |(v, c, f), e| match e.kind {
                EntryKind::Volume => (v + 1, c, f),
                EntryKind::Chapter => (v, c + 1, f),
                EntryKind::Front => (v, c, f + 1),
            });
        (outline.volumes, outline.chapters, outline.front) = (volumes, chapters, front);
        outline
    }

    /// `40 chapters`, `40 chapters + front matter`: the count of chapters as a summary says
    /// it, front matter apart (a header, blurb and contents list are no chapter).
    pub fn chapters_summary(&self) -> String {
        let chapters = match self.chapters {
            1 => "1 chapter".to_string(),
            n => format!("{n} chapters"),
        };
        match self.front {
            0 => chapters,
            _ => format!("{chapters} + front matter"),
        }
    }

    /// Every entry, depth-first (a volume before its chapters).
    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        let mut stack: Vec<std::slice::Iter<'_, Entry>> = vec![self.entries.iter()];
        std::iter::from_fn(move || {
            loop {
                let top = stack.last_mut()?;
                match top.next() {
                    Some(e) => {
                        stack.push(e.children.iter());
                        return Some(e);
                    }
                    None => {
                        stack.pop();
                    }
                }
            }
        })
    }

    /// The outline as text, an entry a line, indented by nesting: its title, then
    /// `file:line` (paths shown without `base`) and its size.
    pub fn render(&self, base: Option<&Path>) -> String {
        let front = match self.front {
            0 => "",
            _ => " + front matter",
        };
        let mut out = format!(
            "outline: {} volume(s), {} chapter(s){front}\n",
            self.volumes, self.chapters
        );
        let mut stack: Vec<(std::slice::Iter<'_, Entry>, usize)> = vec![(self.entries.iter(), 0)];
        while let Some((top, depth)) = stack.last_mut() {
            let depth = *depth;
            let Some(e) = top.next() else {
                stack.pop();
                continue;
            };
            let path = base
                .and_then(|b| e.path.strip_prefix(b).ok())
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(&e.path);
            let place = match e.line {
                Some(l) => format!("{}:{l}", path.display()),
                None => path.display().to_string(),
            };
            let size = match e.chars {
                Some(0) if e.kind != EntryKind::Volume => "empty".to_string(),
                Some(n) => format!("{n} chars"),
                None => "size not known (from the build cache)".to_string(),
            };
            let size = match e.implied {
                true => {
                    format!("{size}, implied: no volume heading, the chapter numbers start over")
                }
                false => size,
            };
            let indent = "  ".repeat(depth + 1);
            let title = printable(&e.title);
            let front = match e.kind {
                EntryKind::Front => "front matter, ",
                _ => "",
            };
            let _ = writeln!(out, "{indent}{title}  ({front}{place}, {size})");
            stack.push((e.children.iter(), depth + 1));
        }
        out
    }
}

/// A title as one line a terminal shows as it is: control characters (escape sequences,
/// line breaks) written as `\u{…}`.
fn printable(title: &str) -> String {
    title
        .chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The entries of `nodes`, nested as the package nests them.
fn walk(nodes: &[Node], origins: &mut std::slice::Iter<'_, Origin>, sizes: bool) -> Vec<Entry> {
    let mut levels = Levels::default();
    let mut placed: Vec<(usize, Entry)> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let origin = origins.next();
        let (path, line, measured, front) = origin
            .map_or((PathBuf::new(), None, false, false), |o| {
                (o.path.clone(), o.line, o.measured && sizes, o.front)
            });
        let implied = origin.is_some_and(|o| o.implied);
        match node {
            Node::Chapter(c) => {
                let nesting = levels.place(c.level);
                let joined = joined_empty_chapters(c, &path, measured);
                let in_joined: usize = joined.iter().map(|e| run_chars(&e.title)).sum();
                let entry = Entry {
                    kind: match front {
                        true => EntryKind::Front,
                        false => EntryKind::Chapter,
                    },
                    title: c.title.clone(),
                    path,
                    line,
                    chars: measured.then(|| text_chars(&c.body).saturating_sub(in_joined)),
                    implied: false,
                    children: Vec::new(),
                };
                placed.push((nesting, entry));
                placed.extend(joined.into_iter().map(|e| (nesting, e)));
            }
            Node::Part(p) => {
                // A chapter after a part does not nest under it.
                levels = Levels::default();
                let children = walk(&p.children, origins, sizes);
                let chars = total_chars(&children);
                let entry = Entry {
                    kind: EntryKind::Volume,
                    title: p.title.clone(),
                    path,
                    line,
                    chars,
                    implied,
                    children,
                };
                placed.push((0, entry));
            }
        }
    }
    nest(placed)
}

/// The empty chapters whose headings share the document of `chapter` (the first of their
/// run, see `convert::empty_runs`), as the entries beside it that the table of contents lists:
/// each at the line its id records, empty.
fn joined_empty_chapters(chapter: &Chapter, path: &Path, measured: bool) -> Vec<Entry> {
    (chapter.sections.iter())
        .filter(|s| s.level == 1)
        .map(|s| Entry {
            kind: EntryKind::Chapter,
            title: s.title.clone(),
            path: path.to_path_buf(),
            line: s
                .id
                .strip_prefix(EMPTY_CHAPTER_ID)
                .and_then(|l| l.parse().ok()),
            chars: measured.then_some(0),
            implied: false,
            children: Vec::new(),
        })
        .collect()
}

/// Characters in `entries` and the chapters nested under them (a volume's are its total).
fn total_chars(entries: &[Entry]) -> Option<usize> {
    entries
        .iter()
        .map(|e| match e.kind {
            EntryKind::Volume => e.chars,
            EntryKind::Chapter | EntryKind::Front => Some(e.chars? + total_chars(&e.children)?),
        })
        .sum()
}

/// Entries with their nesting (each at most one below the one before) as a tree.
fn nest(placed: Vec<(usize, Entry)>) -> Vec<Entry> {
    let mut top: Vec<Entry> = Vec::new();
    for (nesting, entry) in placed {
        let mut list = &mut top;
        for _ in 0..nesting {
            if list.is_empty() {
                break;
            }
            let last = list.len() - 1;
            list = &mut list[last].children;
        }
        list.push(entry);
    }
    top
}

/// Characters of text in an XHTML fragment, white space not counted: what is outside its
/// tags, an entity or character reference counting as one.
pub(crate) fn text_chars(xhtml: &str) -> usize {
    let bytes = xhtml.as_bytes();
    let (mut n, mut i) = (0, 0);
    while i < bytes.len() {
        let stop = memchr::memchr2(b'<', b'&', &bytes[i..]).map_or(bytes.len(), |j| i + j);
        n += run_chars(&xhtml[i..stop]);
        let Some(&mark) = bytes.get(stop) else {
            break;
        };
        // An entity or character reference counts as one character; a tag as none.
        n += usize::from(mark == b'&');
        let end = if mark == b'&' { b';' } else { b'>' };
        i = memchr::memchr(end, &bytes[stop..]).map_or(bytes.len(), |j| stop + j + 1);
    }
    n
}

/// Characters of a run of text, white space not counted. Counted by bytes (a character at its
/// first byte, which the compiler runs many at a time); the few non-ASCII white-space
/// characters (U+0085, U+00A0, U+1680, U+2000-U+205F, U+3000) are then looked for by their
/// first bytes and taken off.
fn run_chars(run: &str) -> usize {
    let bytes = run.as_bytes();
    let all = bytes
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80 && !b.is_ascii_whitespace())
        .count();
    let spaces = memchr::memchr3_iter(0xC2, 0xE2, 0xE3, bytes)
        .chain(memchr::memchr_iter(0xE1, bytes))
        .filter(|&i| run[i..].chars().next().is_some_and(char::is_whitespace))
        .count();
    all - spaces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::{Chapter, Part};
    use crate::project::Layout;

    fn chapter(title: &str, body: &str, level: usize) -> Node {
        Node::Chapter(Chapter::new(title.into(), body.into(), &Layout::default()).at_level(level))
    }

    #[test]
    fn text_is_counted_without_tags_and_white_space() {
        assert_eq!(text_chars("<p>甲 乙</p>\n<p class=\"x\">a &amp; b</p>"), 5);
        assert_eq!(text_chars(""), 0);
    }

    #[test]
    fn volumes_hold_their_chapters_and_levels_nest_as_the_package_nests_them() {
        let contents = vec![
            chapter("序", "<p>前言</p>", 1),
            Node::Part(Part {
                title: "第一卷".into(),
                intro: String::new(),
                children: vec![
                    chapter("第一章", "<p>一二三</p>", 1),
                    chapter("1.1", "<p>四</p>", 2),
                    chapter("第二章", "", 1),
                ],
            }),
            chapter("后记", "<p>完</p>", 1),
        ];
        let f = Path::new("book.txt");
        let lines = [1, 3, 4, 6, 9, 12];
        let origins: Vec<Origin> = lines
            .iter()
            .map(|&l| Origin::new(f, Some(l), true))
            .collect();
        let outline = Outline::of(&contents, &origins);
        assert_eq!((outline.volumes, outline.chapters), (1, 5));
        let shape: Vec<(&str, Option<usize>, Option<usize>)> = outline
            .iter()
            .map(|e| (e.title.as_str(), e.line, e.chars))
            .collect();
        assert_eq!(
            shape,
            [
                ("序", Some(1), Some(2)),
                ("第一卷", Some(3), Some(4)),
                ("第一章", Some(4), Some(3)),
                ("1.1", Some(6), Some(1)),
                ("第二章", Some(9), Some(0)),
                ("后记", Some(12), Some(1)),
            ]
        );
        assert_eq!(outline.entries[1].children[0].children[0].title, "1.1");
        let text = outline.render(None);
        assert!(
            text.starts_with("outline: 1 volume(s), 5 chapter(s)\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  第一卷  (book.txt:3, 4 chars)\n"),
            "{text}"
        );
        assert!(
            text.contains("\n      1.1  (book.txt:6, 1 chars)\n"),
            "{text}"
        );
        assert!(
            text.contains("\n    第二章  (book.txt:9, empty)\n"),
            "{text}"
        );
    }
    /// Issue 26: the text before a 40-卷 book's first heading (header, blurb, preface,
    /// contents list) was counted as a 41st chapter.
    #[test]
    fn front_matter_is_counted_apart_from_the_chapters() {
        let contents = vec![
            chapter("簡介", "<p>警世通言</p>", 1),
            chapter("第一卷", "<p>甲</p>", 1),
            chapter("第二卷", "<p>乙</p>", 1),
        ];
        let f = Path::new("book.txt");
        let origins = [
            Origin::new(f, Some(1), true).front(true),
            Origin::new(f, Some(5), true),
            Origin::new(f, Some(9), true),
        ];
        let outline = Outline::of(&contents, &origins);
        assert_eq!((outline.chapters, outline.front), (2, 1));
        assert_eq!(outline.entries[0].kind, EntryKind::Front);
        assert_eq!(outline.chapters_summary(), "2 chapters + front matter");
        let text = outline.render(None);
        assert!(
            text.starts_with("outline: 0 volume(s), 2 chapter(s) + front matter\n"),
            "{text}"
        );
        assert!(
            text.contains("簡介  (front matter, book.txt:1, 4 chars)"),
            "{text}"
        );
        let json = serde_json::to_value(&outline).unwrap();
        assert_eq!(json["chapters"], 2);
        assert_eq!(json["front"], 1);
        assert_eq!(json["entries"][0]["kind"], "front");
    }

    #[test]
    fn sizes_are_counted_only_when_asked_for() {
        let contents = vec![chapter("序", "<p>前言</p>", 1)];
        let origins = [Origin::new(Path::new("a.txt"), Some(1), true)];
        let sized = Outline::measured(&contents, &origins, true);
        assert_eq!(sized.entries[0].chars, Some(2));
        let shape = Outline::measured(&contents, &origins, false);
        assert_eq!(shape.entries[0].chars, None);
        assert_eq!((shape.chapters, shape.entries[0].line), (1, Some(1)));
    }
}
