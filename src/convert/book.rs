//! The whole book converted: every chapter source through [`super::chapter`] (in parallel),
//! assembled into the reading order with its parts, links between chapters rewritten, notes
//! numbered across the book, images gathered once, the cover read and the modified date
//! chosen.

use std::path::Path;
use std::time::SystemTime;

use rayon::prelude::*;

use super::chapter::{ConvertedChapter, SourceReport, convert_chapter};
use super::includes::Budget;
use super::links::LinkMap;
use super::notes::{NoteSource, ShortCandidates};
use super::outline::Origin;
use crate::book::{Book, Image, Node, Part};
use crate::diagnostic::{Code, Diagnostic};
use crate::error::{Error, Result};
use crate::project::{ChapterSource, ContentEntry, Project};

/// A book converted and ready to package, with what was learnt on the way.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The book.
    pub book: Book,
    /// What converting each chapter source reported, in reading order.
    pub sources: Vec<SourceOutcome>,
    /// The position of the first chapter each source made, among all the book's chapters.
    pub first_chapter: Vec<usize>,
    /// Problems beyond a single chapter's conversion: links between chapters, the cover, fonts.
    pub warnings: Vec<Diagnostic>,
    /// Where each node of the contents came from, in reading order (a part before its
    /// chapters): what [`super::outline::Outline::of`] needs beside the contents.
    pub origins: Vec<Origin>,
}

/// What converting one chapter source reported.
#[derive(Debug, Clone)]
pub struct SourceOutcome {
    /// How the file was decoded.
    pub report: SourceReport,
    /// Problems that did not stop its conversion.
    pub warnings: Vec<Diagnostic>,
    /// Its conversion read other files (images, includes), which the build cache does not
    /// track.
    pub reads_other_files: bool,
    /// The letters and digits of its text the book does not hold, by cause (the text ledger;
    /// none counted for a chapter taken from the build cache).
    pub removed: crate::ledger::Removed,
}

impl Loaded {
    /// What the text ledger counted as removed, by cause, over the chapters converted.
    pub fn removed(&self) -> crate::ledger::Removed {
        let mut sum = crate::ledger::Removed::default();
        self.sources.iter().for_each(|s| sum.add(&s.removed));
        sum
    }

    /// Every problem found, the chapters' first.
    pub fn all_warnings(&self) -> Vec<Diagnostic> {
        let chapters = self.sources.iter().flat_map(|s| s.warnings.iter());
        chapters.chain(&self.warnings).cloned().collect()
    }

    /// Converts the sources `again` (0-based), each of which makes one chapter and was taken
    /// from the build cache, from their files after all: the build cache could not vouch for
    /// the documents it had for them.
    pub(crate) fn convert_again(&mut self, project: &Project, again: &[usize]) -> Result<()> {
        let sources: Vec<&ChapterSource> = project.chapters().collect();
        let includes = Budget::default();
        let converted: Vec<(usize, ConvertedChapter)> = again
            .par_iter()
            .filter_map(|&i| Some((i, *sources.get(i)?)))
            .map(|(i, src)| Ok((i, convert_chapter(project, src, i + 1, &includes)?)))
            .collect::<Result<_>>()?;
        let mut chapters = crate::book::chapters_mut(&mut self.book.contents);
        for (i, c) in converted {
            let (Some(Node::Chapter(chapter)), Some(&k)) =
                (c.nodes.into_iter().next(), self.first_chapter.get(i))
            else {
                continue;
            };
            if let Some(slot) = chapters.get_mut(k) {
                **slot = chapter;
            }
            self.sources[i] = SourceOutcome {
                report: c.report,
                warnings: c.warnings,
                reads_other_files: c.reads_other_files,
                removed: c.removed,
            };
        }
        Ok(())
    }
}

/// Reads, decodes and converts every chapter, and reads the cover.
#[cfg(test)]
pub fn load_book(project: &Project, source_date_epoch: Option<i64>) -> Result<Loaded> {
    load_book_with(project, source_date_epoch, &|_, _| None)
}

/// What a build takes from its cache instead of converting: chapter `i` (0-based) from `src`,
/// as recorded, or None to convert it.
pub(crate) type Reuse<'a> = dyn Fn(usize, &ChapterSource) -> Option<ConvertedChapter> + Sync + 'a;

/// [`load_book`], except that a chapter `reuse` gives is not read: its title, warnings and
/// encoding come from the record, and its body is left empty.
pub(crate) fn load_book_with(
    project: &Project,
    source_date_epoch: Option<i64>,
    reuse: &Reuse<'_>,
) -> Result<Loaded> {
    let sources: Vec<&ChapterSource> = project.chapters().collect();
    // One budget for the whole book's inclusions, whichever thread converts a chapter.
    let includes = Budget::default();
    // The cover is read (and decoded, to be checked and measured) while the chapters convert.
    let mut cover_warnings = Vec::new();
    let (converted, cover) = rayon::join(
        || {
            (sources.par_iter().enumerate())
                .map(|(i, src)| match reuse(i, src) {
                    Some(c) => Ok(c),
                    None => convert_chapter(project, src, i + 1, &includes),
                })
                .collect::<Result<Vec<ConvertedChapter>>>()
        },
        || {
            (project.cover.as_ref())
                .map(|path| read_cover(&project.boundary, path, &mut cover_warnings))
                .transpose()
        },
    );
    let converted = converted?;

    let converted = converted.into_iter().map(Some).collect();
    let Assembled {
        contents,
        outcomes,
        first_chapter,
        images,
        origins,
        mut warnings,
    } = assemble(project, converted)?;
    let cover = cover?;
    warnings.append(&mut cover_warnings);
    let modified = modified_time(project, source_date_epoch)?;
    Ok(Loaded {
        book: Book {
            info: project.book.clone(),
            modified,
            cover,
            contents,
            images,
        },
        sources: outcomes,
        first_chapter,
        origins,
        warnings,
    })
}

/// The book's contents made of its converted sources, and what was learnt on the way.
pub(crate) struct Assembled {
    /// The reading order: the sources' nodes, in the parts of `[[parts]]`, titles numbered.
    pub contents: Vec<Node>,
    /// What converting each source reported (of those converted), in reading order.
    pub outcomes: Vec<SourceOutcome>,
    /// See [`Loaded::first_chapter`].
    pub first_chapter: Vec<usize>,
    /// Every image, once.
    pub images: Vec<Image>,
    /// See [`Loaded::origins`].
    pub origins: Vec<Origin>,
    /// Problems of links between chapters.
    pub warnings: Vec<Diagnostic>,
}

/// Assembles the converted sources (one per [`Project::chapters`], in order; None for one
/// that could not be converted, which `check` reports and goes on) into the book's contents:
/// `[[parts]]` around their chapters, titles numbered by `title-format`, links between
/// chapters rewritten, notes numbered across the book. The build and `check` both assemble
/// here, so the outline `check` prints is the one the build makes.
pub(crate) fn assemble(
    project: &Project,
    converted: Vec<Option<ConvertedChapter>>,
) -> Result<Assembled> {
    let sources: Vec<&ChapterSource> = project.chapters().collect();
    let mut a = Assembled {
        contents: Vec::new(),
        outcomes: Vec::new(),
        first_chapter: Vec::new(),
        images: Vec::new(),
        origins: Vec::new(),
        warnings: Vec::new(),
    };
    let mut chapters = 0;
    let mut links = LinkMap::default();
    links.site_root = Some(project.mdbook.as_ref().map_or(&project.root, |m| &m.src));
    links.site_url = project.mdbook.as_ref().and_then(|m| m.site_url.as_deref());
    let mut notes: Vec<(&Path, usize, ShortCandidates)> = Vec::new();
    let mut converted = converted.into_iter().zip(&sources);
    let mut take = |a: &mut Assembled, out: &mut Vec<Node>| {
        let Some((Some(c), src)) = converted.next() else {
            return;
        };
        a.outcomes.push(SourceOutcome {
            report: c.report,
            warnings: c.warnings,
            reads_other_files: c.reads_other_files,
            removed: c.removed,
        });
        a.first_chapter.push(chapters);
        let count = crate::book::count_chapters(&c.nodes);
        chapters += count;
        notes.push((&src.path, count, c.short_notes));
        for image in c.images {
            if !a.images.iter().any(|i| i.name == image.name) {
                a.images.push(image);
            }
        }
        let measured = !c.lines.is_empty();
        let mut lines = c.lines.into_iter();
        // Both in line order: one walk, not a search per part.
        let mut implied_at = c.headings.implied.iter().peekable();
        for (k, part) in super::outline::node_parts(&c.nodes).into_iter().enumerate() {
            let line = lines.next().flatten();
            let implied = part && line.is_some_and(|l| implied_at.next_if_eq(&&l).is_some());
            let origin = Origin::new(&src.path, line, measured)
                .front(c.front && k == 0)
                .implied(implied);
            a.origins.push(origin);
        }
        links.add(&src.path, c.links, (c.ids, c.homes), &c.nodes);
        out.extend(c.nodes);
    };
    let mut contents = Vec::new();
    for entry in &project.contents {
        match entry {
            ContentEntry::Chapter(_) => take(&mut a, &mut contents),
            ContentEntry::Part { title, chapters } => {
                a.origins
                    .push(Origin::new(&project.metadata_path, None, true));
                let mut children = Vec::new();
                for _ in chapters {
                    take(&mut a, &mut children);
                }
                contents.push(Node::Part(Part {
                    title: project.text.title(title, None, None)?,
                    intro: String::new(),
                    children,
                }));
            }
        }
    }
    if let Some(format) = &project.layout.title_format {
        format.renumber(&mut contents);
    }
    links.rewrite(&mut contents, &project.layout, &mut a.warnings);
    let notes: Vec<NoteSource> = (notes.iter())
        .map(|(path, chapters, short)| NoteSource {
            path,
            chapters: *chapters,
            short,
        })
        .collect();
    for (i, warning) in super::notes::finish(&mut contents, &project.layout, &notes) {
        a.outcomes[i].warnings.push(warning);
    }
    a.contents = contents;
    Ok(a)
}

pub(crate) fn read_cover(
    boundary: &crate::project::Boundary,
    path: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Image> {
    let data = boundary.read_limited(path, crate::media::MAX_IMAGE_BYTES, "cover")?;
    let prepared = crate::media::image::prepare_cover(&data, path).map_err(|e| Error::Cover {
        path: path.to_path_buf(),
        message: e
            .to_string()
            .trim_start_matches(&format!("{}: ", crate::escape::path(path)))
            .to_string(),
    })?;
    for message in prepared.warnings {
        warnings.push(Diagnostic::warning(Code::Cover, message).at(path));
    }
    let info = prepared.info;
    Ok(Image {
        name: format!("cover.{}", info.format.extension()),
        media_type: info.format.media_type(),
        data: prepared.bytes,
        width: info.width,
        height: info.height,
    })
}

/// `dcterms:modified`: from `SOURCE_DATE_EPOCH`, else the newest input's modification time.
fn modified_time(project: &Project, source_date_epoch: Option<i64>) -> Result<String> {
    let secs = match source_date_epoch {
        Some(s) => s,
        None => {
            // Chapters found by a glob come with the stamp of the folder listing.
            // A project made in memory (the one-command build) has no metadata file.
            let metadata = Some(&project.metadata_path).filter(|m| m.exists());
            let inputs = metadata
                .map(|m| (m, None))
                .into_iter()
                .chain(project.chapters().map(|c| (&c.path, c.stamp)))
                .chain(project.cover.iter().map(|p| (p, None)))
                .chain(project.style.css.iter().map(|p| (p, None)))
                .chain(project.style.fonts.iter().map(|f| (&f.path, None)));
            let mut newest = (SystemTime::UNIX_EPOCH, project.metadata_path.as_path());
            for (path, stamp) in inputs {
                let modified = match stamp {
                    Some(stamp) => Some(stamp.modified()),
                    None => std::fs::metadata(path)
                        .map_err(|e| Error::io(path, "cannot read", e))?
                        .modified()
                        .ok(),
                };
                if let Some(m) = modified.filter(|&m| m > newest.0) {
                    newest = (m, path);
                }
            }
            let secs = newest.0.duration_since(SystemTime::UNIX_EPOCH);
            match secs.ok().and_then(|d| i64::try_from(d.as_secs()).ok()) {
                Some(secs) if crate::project::modified_date(secs).is_some() => secs,
                _ => {
                    return Err(Error::io(
                        newest.1,
                        "cannot date the book",
                        std::io::Error::other(
                            "its modification time is past the year 9999; touch the file, or set SOURCE_DATE_EPOCH",
                        ),
                    ));
                }
            }
        }
    };
    // SOURCE_DATE_EPOCH was checked when it was read; a library caller's value is checked here.
    crate::project::modified_date(secs).ok_or_else(|| Error::Environment {
        variable: crate::project::SOURCE_DATE_EPOCH,
        message: format!("{secs} is not in the years 0 to 9999"),
        hint: None,
    })
}
