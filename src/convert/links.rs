//! Links between chapter files, rewritten to the documents those files became.

use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic};
use crate::package::{self, Chapter, Node};

/// Links between chapter files (`[next](ch2.md#scene)`), rewritten to the documents those
/// files became. Links to anything else inside the book folder cannot work in an EPUB and are
/// removed with a warning.
#[derive(Default)]
pub(crate) struct LinkMap<'a> {
    /// Source path -> number of its first chapter document. Made canonical only when some
    /// chapter has links to resolve: most books have none, and resolving thousands of paths
    /// costs a noticeable part of a rebuild.
    targets: Vec<(&'a Path, usize)>,
    /// Chapter number -> (source path, links in its body).
    pending: Vec<(usize, &'a Path, Vec<String>)>,
    chapters: usize,
}

impl<'a> LinkMap<'a> {
    pub(crate) fn add(&mut self, path: &'a Path, links: Vec<String>, nodes: &[Node]) {
        let first = self.chapters + 1;
        self.chapters += package::count_chapters(nodes);
        self.targets.push((path, first));
        if !links.is_empty() {
            self.pending.push((first, path, links));
        }
    }

    pub(crate) fn rewrite(&self, contents: &mut [Node], warnings: &mut Vec<Diagnostic>) {
        if self.pending.is_empty() {
            return;
        }
        let targets: Vec<(PathBuf, usize)> = self
            .targets
            .iter()
            .filter_map(|(path, doc)| Some((path.canonicalize().ok()?, *doc)))
            .collect();
        let mut n = 0;
        rewrite_nodes(contents, &mut n, &mut |number, chapter| {
            let Some((_, path, links)) = self.pending.iter().find(|p| p.0 == number) else {
                return;
            };
            for link in links {
                let (file, fragment) = match link.split_once('#') {
                    Some((f, frag)) => (f, Some(frag)),
                    None => (link.as_str(), None),
                };
                let target = path
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(file)
                    .canonicalize()
                    .ok()
                    .and_then(|real| targets.iter().find(|t| t.0 == real));
                let old = format!("href=\"{}\"", crate::xml::escape_attr(link));
                let new = match target {
                    Some((_, doc)) => {
                        let mut href = package::chapter_file_name(*doc);
                        if let Some(frag) = fragment {
                            href.push('#');
                            href.push_str(frag);
                        }
                        format!("href=\"{}\"", crate::xml::escape_attr(&href))
                    }
                    None => {
                        let message =
                            format!("removed link to \"{link}\": it is not a chapter of the book");
                        warnings.push(Diagnostic::warning(Code::RemovedLink, message).at(*path));
                        String::new()
                    }
                };
                chapter.body = chapter.body.replace(&old, &new);
            }
        });
    }
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
