//! Runs of empty chapters in a split text file share one document.
//!
//! A heading with no text under it is kept (its title is the author's) and warned about. Alone
//! it stays a chapter of its own, but a run of them (a download whose paid chapters are
//! missing, a list of headings, a hostile file where every line is one) would give each an
//! XHTML document holding only its heading: pages of nothing to page through, and a package of
//! 100 000 documents that takes seconds and hundreds of megabytes to lay out. So the first of
//! a run carries the headings of the others in its body, each an `h1` with an id the package
//! lists in the table of contents beside it ([`crate::book::EMPTY_CHAPTER_ID`]): the table
//! of contents keeps every entry at its place and level, and the document is cut for size like
//! any long chapter. The warnings name every empty chapter, and the first says what was done.

use super::Piece;
use crate::book::EMPTY_CHAPTER_ID;
use crate::xml::{escape_attr, escape_text};

/// `pieces` with every run of two or more empty chapters (next to each other, under the same
/// volume) made one chapter holding their headings; warns about each empty chapter through
/// `warn` (its line and message), in reading order.
pub(super) fn join(pieces: Vec<Piece>, warn: &mut dyn FnMut(Option<usize>, String)) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    // Where the run being built starts in `out`, and the lines and titles of those it took in.
    let mut run: Option<(usize, Vec<(usize, String)>)> = None;
    for piece in pieces {
        let (title, line) = match &piece {
            Piece::Chapter { title, line, body } if is_empty(body) => (title, *line),
            _ => {
                finish(run.take(), &out, warn);
                // A picture and no text: a chapter without words, of its own.
                if let Piece::Chapter { title, line, body } = &piece
                    && body.paragraphs == 0
                {
                    warn(Some(*line), format!("chapter \"{title}\" is empty"));
                }
                out.push(piece);
                continue;
            }
        };
        match run.as_mut() {
            Some((host, joined)) => {
                if let Some(Piece::Chapter { body, .. }) = out.get_mut(*host) {
                    body.body.push_str(&heading(title, line));
                }
                joined.push((line, title.clone()));
            }
            None => {
                run = Some((out.len(), Vec::new()));
                out.push(piece);
            }
        }
    }
    finish(run, &out, warn);
    out
}

/// A chapter body with no text and nothing else.
fn is_empty(body: &super::Converted) -> bool {
    body.paragraphs == 0 && body.body.trim().is_empty()
}

/// The heading of an empty chapter in the body of the first of its run.
fn heading(title: &str, line: usize) -> String {
    format!(
        "<h1 id=\"{}\">{}</h1>\n",
        escape_attr(&format!("{EMPTY_CHAPTER_ID}{line}")),
        escape_text(title)
    )
}

/// Warns about the chapters of a run that ended: the first saying how many joined it, then
/// each of those.
fn finish(
    run: Option<(usize, Vec<(usize, String)>)>,
    out: &[Piece],
    warn: &mut dyn FnMut(Option<usize>, String),
) {
    let Some((host, joined)) = run else {
        return;
    };
    if let Some(Piece::Chapter { title, line, .. }) = out.get(host) {
        let others = match joined.len() {
            0 => String::new(),
            1 => ", and so is the one after it: their headings share a document, both listed \
                  in the table of contents"
                .to_string(),
            n => format!(
                ", and so are the {n} after it: their headings share a document, each listed \
                 in the table of contents"
            ),
        };
        let message = format!("chapter \"{title}\" is empty{others}");
        warn(Some(*line), message);
    }
    for (line, title) in joined {
        warn(Some(line), format!("chapter \"{title}\" is empty"));
    }
}
