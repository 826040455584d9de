//! Links between chapter files, rewritten to the documents those files became.
//!
//! A link's fragment names an id as the author wrote it in the target file; the sanitiser may
//! have renamed that id (made it valid, unique, or kept it clear of the ids epubforge writes),
//! so the fragment follows the target's id map. A fragment the target does not have is
//! dropped: the link then opens the chapter. Which piece of a chapter split for size holds the
//! id is the package stage's business: here every link names the chapter's first document.
//!
//! mdBook books link to the pages mdBook makes (`ch03-01-variables.html`, `index.html` for a
//! `README.md`, `cli/` for `cli/README.md`): such a link goes to the chapter made from the
//! Markdown file. Only real links are rewritten, on the element's `href`, never text that
//! shows one (a code span reading `<a href="two.md">`). A link from the site's root
//! (`/basic/array.html#x`, as mdBook serves the book) starts from the book's chapter folder
//! (`book.toml`'s `src`), else from the project folder; so does one under the path the site
//! is served from (`/book-name/basic/array.html` when `site-url` is `/book-name/`).

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::markup::percent_decode;
use crate::book::{self, Chapter, Href, Node};
use crate::diagnostic::{Code, Diagnostic};
use crate::project::Layout;

/// Links between chapter files (`[next](ch2.md#scene)`), rewritten to the documents those
/// files became. Links to anything else inside the book folder cannot work in an EPUB and are
/// removed with a warning.
#[derive(Default)]
pub(crate) struct LinkMap<'a> {
    /// Source path -> number of its first chapter document. Made canonical only when some
    /// chapter has links to resolve: most books have none, and resolving thousands of paths
    /// costs a noticeable part of a rebuild.
    targets: Vec<(&'a Path, usize)>,
    /// Number of a source's first chapter -> its ids as written -> as its body has them.
    ids: HashMap<usize, HashMap<String, String>>,
    /// Number of the first chapter of a source cut at its headings -> which of its chapters
    /// holds each id as written.
    homes: HashMap<usize, HashMap<String, usize>>,
    /// Number of a source's first chapter -> (source path, links in its bodies, how many
    /// chapters it made).
    pending: BTreeMap<usize, (&'a Path, Vec<String>, usize)>,
    chapters: usize,
    /// Where a link from the site's root (`/x.html`) starts.
    pub(crate) site_root: Option<&'a Path>,
    /// The path the site is served under (`/book-name/`), which such a link may start with.
    pub(crate) site_url: Option<&'a str>,
}

/// A source's links, each resolved to its new href (None: removed).
type Resolved = HashMap<String, Option<String>>;

impl<'a> LinkMap<'a> {
    pub(crate) fn add(
        &mut self,
        path: &'a Path,
        links: Vec<String>,
        (ids, homes): (HashMap<String, String>, HashMap<String, usize>),
        nodes: &[Node],
    ) {
        let first = self.chapters + 1;
        let count = book::count_chapters(nodes);
        self.chapters += count;
        self.targets.push((path, first));
        if !ids.is_empty() {
            self.ids.insert(first, ids);
        }
        if !homes.is_empty() {
            self.homes.insert(first, homes);
        }
        if !links.is_empty() {
            self.pending.insert(first, (path, links, count));
        }
    }

    /// Rewrites every pending link in `contents`; a chapter whose body changed is measured
    /// again for splitting under `layout`.
    pub(crate) fn rewrite(
        &self,
        contents: &mut [Node],
        layout: &Layout,
        warnings: &mut Vec<Diagnostic>,
    ) {
        if self.pending.is_empty() {
            return;
        }
        let targets: HashMap<PathBuf, usize> = self
            .targets
            .iter()
            .filter_map(|(path, doc)| Some((crate::fs::real_path(path)?, *doc)))
            .collect();
        let mut n = 0;
        let mut memo: HashMap<usize, Resolved> = HashMap::new();
        rewrite_nodes(contents, &mut n, &mut |number, chapter| {
            let Some((&first, (path, links, count))) = self.pending.range(..=number).next_back()
            else {
                return;
            };
            if number >= first + count {
                return;
            }
            let resolved = memo.entry(first).or_insert_with(|| {
                links
                    .iter()
                    .map(|link| (link.clone(), self.resolve(path, link, &targets, warnings)))
                    .collect()
            });
            let body = book::rewrite_hrefs(&chapter.body, &mut |href| match resolved.get(href)? {
                Some(new) => Some(Href::To(new.clone())),
                None => Some(Href::Remove),
            });
            if let Cow::Owned(body) = body {
                chapter.body = body;
                chapter.reflow(layout);
            }
        });
    }

    /// Where `link`, found in `path`, points in the book; None (with a warning) when it is not
    /// a chapter of the book.
    fn resolve(
        &self,
        path: &Path,
        link: &str,
        targets: &HashMap<PathBuf, usize>,
        warnings: &mut Vec<Diagnostic>,
    ) -> Option<String> {
        let (file, fragment) = match link.split_once('#') {
            Some((f, frag)) => (f, Some(frag)),
            None => (link, None),
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let rooted;
        let file = match self.site_url.and_then(|site| file.strip_prefix(site)) {
            Some(rest) => {
                rooted = format!("/{rest}");
                rooted.as_str()
            }
            None => file,
        };
        let (dir, file) = match (file.strip_prefix('/'), self.site_root) {
            (Some(rest), Some(root)) if !rest.starts_with('/') => (root, rest),
            _ => (dir, file),
        };
        let target = candidates(&percent_decode(file))
            .into_iter()
            .filter_map(|f| crate::fs::real_path(&dir.join(f)))
            .find_map(|real| targets.get(&real).copied());
        let Some(doc) = target else {
            let message = format!("removed link to \"{link}\": it is not a chapter of the book");
            warnings.push(Diagnostic::warning(Code::RemovedLink, message).at(path));
            return None;
        };
        let Some(frag) = fragment.filter(|f| !f.is_empty()) else {
            return Some(book::chapter_file_name(doc));
        };
        let ids = self.ids.get(&doc);
        let key = [frag.to_string(), percent_decode(frag)]
            .into_iter()
            .find(|k| ids.is_some_and(|ids| ids.contains_key(k)));
        let Some((key, id)) = key.and_then(|k| Some((k.clone(), ids?.get(&k)?))) else {
            let message = format!(
                "link to \"{link}\": {file} has no id \"{frag}\"; the link opens the chapter"
            );
            warnings.push(Diagnostic::warning(Code::RemovedLink, message).at(path));
            return Some(book::chapter_file_name(doc));
        };
        let home = self.homes.get(&doc).and_then(|h| h.get(&key)).copied();
        Some(format!(
            "{}#{id}",
            book::chapter_file_name(doc + home.unwrap_or(0))
        ))
    }
}

/// The files a link to `file` may mean: the file itself, then for a page mdBook makes the
/// Markdown file it makes it from (`ch01.html` from `ch01.md`, `index.html` and `dir/` from
/// `README.md`).
fn candidates(file: &str) -> Vec<String> {
    let mut out = vec![file.to_string()];
    let (folder, name) = match file.rsplit_once('/') {
        Some((folder, name)) => (format!("{folder}/"), name),
        None => (String::new(), file),
    };
    if name.is_empty() || name == "index.html" || name == "index.htm" {
        out.push(format!("{folder}README.md"));
        out.push(format!("{folder}index.md"));
    } else if let Some(stem) = name
        .strip_suffix(".html")
        .or_else(|| name.strip_suffix(".htm"))
    {
        out.push(format!("{folder}{stem}.md"));
    }
    out
}

fn rewrite_nodes(nodes: &mut [Node], n: &mut usize, f: &mut dyn FnMut(usize, &mut Chapter)) {
    for node in nodes {
        match node {
            Node::Chapter(c) => {
                *n += 1;
                f(*n, c);
            }
            Node::Part(p) => rewrite_nodes(&mut p.children, n, f),
        }
    }
}
