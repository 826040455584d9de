//! The book model: what every stage hands the next. The converted book (`Book`, its `Node`s,
//! `Chapter`s, `Part`s and `Image`s), the files of the container (`Entry`), and the value
//! types the stages read from the project (`BookInfo`, `Layout`, `Style`, `Target`, the split
//! modes). A leaf, as mdBook keeps `Book` and `Chapter` in its bottom crate: it imports no
//! stage, so that `project`, `convert`, `look`, `package` and the writers all depend on it and
//! never on each other's internals.

mod info;
mod layout;
pub(crate) mod locale;
pub(crate) mod pieces;
pub(crate) mod split_mode;
mod target;
mod title_format;

pub use info::{BookInfo, Person, Series};
pub use layout::{
    DEFAULT_SPLIT_KB, DEFAULT_TOC_DEPTH, EpubVersion, FontSource, Layout, Style, Theme, WritingMode,
};
pub(crate) use locale::{chapter_title, front_title, primary as primary_language};
pub(crate) use pieces::{EMPTY_CHAPTER_ID, Href, chapter_number, rewrite_hrefs};
pub use split_mode::SplitMode;
pub(crate) use target::KINDLE_TOC_DEPTH;
pub use target::Target;
pub use title_format::TitleFormat;

/// Everything that goes into the EPUB, converted and ready to package.
#[derive(Debug, Clone)]
pub struct Book {
    /// Bibliographic data.
    pub info: BookInfo,
    /// `dcterms:modified`, as `CCYY-MM-DDThh:mm:ssZ`.
    pub modified: String,
    /// The cover image, if any.
    pub cover: Option<Image>,
    /// The reading order.
    pub contents: Vec<Node>,
    /// Images used by chapters.
    pub images: Vec<Image>,
}

/// An image file in the book.
#[derive(Debug, Clone)]
pub struct Image {
    /// File name under `EPUB/images/`.
    pub name: String,
    /// Its media type, e.g. `image/png`.
    pub media_type: &'static str,
    /// The bytes.
    pub data: Vec<u8>,
    /// Width in pixels (0 when unknown).
    pub width: u32,
    /// Height in pixels (0 when unknown).
    pub height: u32,
}

/// An entry of the reading order.
#[derive(Debug, Clone)]
pub enum Node {
    /// A chapter document.
    Chapter(Chapter),
    /// A part (volume): a title page, then its children.
    Part(Part),
}

/// A chapter: a title and its XHTML body fragment.
#[derive(Debug, Clone)]
pub struct Chapter {
    /// The chapter title, written as its `h1` and used in the TOC.
    pub title: String,
    /// Well-formed XHTML content.
    pub body: String,
    /// How many documents the body makes: more than one when it is split for size (see
    /// [`Chapter::reflow`]). Known before the body is packaged, or even read: the package
    /// layout (names, spine, navigation) follows from it, so a writer can lay the book out
    /// with its bodies set aside, or taken from the build cache unread.
    pub pieces: usize,
    /// When split for size: which piece holds each id past the first (`(id, piece)`, sorted),
    /// for links to those ids (see [`pieces::link_across`]).
    pub anchors: Vec<(String, usize)>,
    /// Level in the table of contents among its siblings: 1, or more to nest under the chapter
    /// before it (an mdBook sub-chapter). A level more than one below the entry before it is
    /// read as one below.
    pub level: usize,
    /// What each of those documents holds that its manifest item declares (MathML, inline
    /// SVG), known with `pieces` for the same reason. Empty means none in any (plain text).
    pub features: Vec<Features>,
    /// The headings of the body that have an id, in order: what `[layout] toc-depth` puts into
    /// the table of contents under the chapter.
    pub sections: Vec<Section>,
    /// The `epub:type` values its source gave the whole document (an HTML `<body
    /// epub:type="frontmatter z3998:fiction">`): they stay on the chapter's section and say
    /// where it stands ([`Chapter::matter`]). Empty for most chapters.
    pub types: Vec<String>,
    /// In the spine's reading order (false: `linear="no"`, reached by links and the contents).
    pub linear: bool,
    /// Listed in the table of contents (false: a page the contents do not name).
    pub in_toc: bool,
    /// Its document opens with an `h1` of [`Chapter::title`] (false: the body shows its own
    /// heading, or none, and the title names it in the contents only).
    pub heading: bool,
    /// `sections` were given (the source's contents entries), not found in the body.
    pub sections_given: bool,
    /// The `epub:type` of the source heading its title comes from (`z3998:roman`): its `h1`
    /// carries it.
    pub title_types: Option<String>,
}

/// Where a chapter stands in the book, as its source says (EPUB's `frontmatter`,
/// `bodymatter`, `backmatter`): what the landmarks point at and how its section is typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matter {
    /// Before the main text (a title page, an imprint, a dedication).
    Front,
    /// The main text: every chapter whose source does not say otherwise.
    Body,
    /// After the main text (notes, a colophon, a licence).
    Back,
}

/// A heading inside a chapter.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Section {
    /// 2 to 6: its `h2` to `h6` (the chapter's own heading is its `h1`); 1 for the heading of
    /// an empty chapter that shares the document ([`EMPTY_CHAPTER_ID`]), or a given entry into
    /// the chapter's document at the chapter's own level, listed beside it.
    pub level: usize,
    /// Its id; empty for a heading-only contents entry (a source's `<span>` over the entries
    /// nested under it), which has no target of its own.
    pub id: String,
    /// Its text.
    pub title: String,
}

impl Chapter {
    /// A chapter at level 1 with the number of documents its body makes under `layout`.
    pub fn new(title: String, body: String, layout: &Layout) -> Chapter {
        let mut chapter = Chapter {
            title,
            body,
            pieces: 1,
            anchors: Vec::new(),
            level: 1,
            features: Vec::new(),
            sections: Vec::new(),
            types: Vec::new(),
            linear: true,
            in_toc: true,
            heading: true,
            sections_given: false,
            title_types: None,
        };
        chapter.reflow(layout);
        chapter
    }

    /// The chapter at `level` in the table of contents.
    pub fn at_level(self, level: usize) -> Chapter {
        Chapter { level, ..self }
    }

    /// The chapter with the `epub:type` values its source gave the whole document.
    pub fn with_types(self, types: Vec<String>) -> Chapter {
        Chapter { types, ..self }
    }

    /// The chapter in the reading order or out of it (`linear = false`).
    pub fn with_linear(self, linear: bool) -> Chapter {
        Chapter { linear, ..self }
    }

    /// The chapter listed in the contents or not (`toc = false`), opening with the build's
    /// heading or showing its own (`heading = false`).
    pub fn with_page(self, in_toc: bool, heading: bool) -> Chapter {
        Chapter {
            in_toc,
            heading,
            ..self
        }
    }

    /// The chapter with the contents entries under it given (each id one its body holds, as
    /// the conversion resolves them, or none for a heading-only entry), in place of its
    /// headings; unchanged when None.
    pub fn with_sections(mut self, given: Option<Vec<Section>>) -> Chapter {
        if let Some(given) = given {
            self.sections = given;
            self.sections_given = true;
        }
        self
    }

    /// The chapter whose `h1` carries the `epub:type` of its source heading.
    pub fn with_title_types(self, title_types: Option<String>) -> Chapter {
        Chapter {
            title_types,
            ..self
        }
    }

    /// Front, body or back matter, as the source says; body matter when it says nothing.
    pub fn matter(&self) -> Matter {
        let has = |t: &str| self.types.iter().any(|x| x == t);
        if has("frontmatter") {
            Matter::Front
        } else if has("backmatter") {
            Matter::Back
        } else {
            Matter::Body
        }
    }

    /// Cuts the body again (after it changed): its count of pieces, their ids and what each
    /// holds.
    pub fn reflow(&mut self, layout: &Layout) {
        let bodies = pieces::split_body(&self.body, split_limit(layout));
        self.pieces = bodies.len();
        self.anchors = pieces::anchors(&bodies);
        if !self.sections_given {
            self.sections = pieces::sections(&self.body);
        }
        let features: Vec<Features> = bodies.iter().map(|b| Features::of(b)).collect();
        self.features = if features.iter().all(|f| *f == Features::default()) {
            Vec::new()
        } else {
            features
        };
    }

    /// What the `i`th document of the chapter holds.
    pub(crate) fn features(&self, i: usize) -> Features {
        self.features.get(i).copied().unwrap_or_default()
    }
}

/// What a content document holds that EPUB 3 wants declared on its manifest item (MathML,
/// inline SVG), and the code the stylesheet styles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Features {
    /// MathML (`properties="mathml"`).
    pub mathml: bool,
    /// Inline SVG (`properties="svg"`).
    pub svg: bool,
    /// What code the document shows.
    pub code: CodeUse,
}

/// Code in a document or a book: whether there is any, and which highlighting classes of
/// [`CODE_CLASSES`] it uses (bit `i` for the `i`th), so that only those get CSS.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CodeUse {
    /// `<pre>`, `<code>`, `<kbd>` or `<samp>`.
    pub any: bool,
    /// Highlighting classes used.
    pub classes: u8,
}

impl CodeUse {
    /// What `a` and `b` use together.
    pub fn union(self, other: CodeUse) -> CodeUse {
        CodeUse {
            any: self.any || other.any,
            classes: self.classes | other.classes,
        }
    }
}

impl Features {
    /// What an XHTML body fragment written by the converters holds, in one pass over its tags
    /// (text and attribute values are escaped there, so a `<` always opens a tag).
    pub fn of(body: &str) -> Features {
        let mut f = Features::default();
        for at in memchr::memchr_iter(b'<', body.as_bytes()) {
            let tag = body.get(at + 1..).unwrap_or_default();
            let name_end = tag
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(tag.len());
            match tag.get(..name_end).unwrap_or_default() {
                "math" => f.mathml = true,
                "svg" => f.svg = true,
                "pre" | "code" | "kbd" | "samp" => f.code.any = true,
                "span" => {
                    let class = tag
                        .strip_prefix("span class=\"")
                        .and_then(|rest| rest.split('"').next());
                    if let Some(i) = CODE_CLASSES.iter().position(|(c, ..)| Some(*c) == class) {
                        f.code.classes |= 1 << i;
                    }
                }
                _ => {}
            }
        }
        f
    }

    /// The manifest item's `properties` value, if any.
    pub(crate) fn properties(self) -> Option<&'static str> {
        match (self.mathml, self.svg) {
            (true, true) => Some("mathml svg"),
            (true, false) => Some("mathml"),
            (false, true) => Some("svg"),
            (false, false) => None,
        }
    }
}

/// A part (volume) with its own title page.
#[derive(Debug, Clone)]
pub struct Part {
    /// The part title.
    pub title: String,
    /// XHTML content shown on the title page under the title (may be empty).
    pub intro: String,
    /// Chapters (or nested parts) in the part.
    pub children: Vec<Node>,
}

/// A file of the EPUB container, in the order it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Path inside the zip.
    pub name: String,
    /// The bytes.
    pub data: Vec<u8>,
    /// Deflate it (false for `mimetype` and already-compressed images).
    pub compress: bool,
}

/// The syntax-highlighting classes the Markdown converter writes, with their colour for any
/// page and for a dark one. The first set has a relative luminance of 0.17: 4.8:1 against white
/// and 4.4:1 against black, so it reads on a light page, on a reader's dark page, and on a page
/// a night mode inverts (Kobo's); the dark set (luminance 0.25: 6:1 on black, still 3.5:1 on
/// white where a renderer reports a dark scheme and paints white, as calibre's may) is used
/// under `prefers-color-scheme: dark` and Apple Books' night theme. No backgrounds, so every
/// reading mode keeps its own.
pub const CODE_CLASSES: [(&str, &str, &str); 7] = [
    ("hl-c", "#677482", "#7d8a98"), // comments (also italic)
    ("hl-s", "#268326", "#2e9d2e"), // strings
    ("hl-f", "#2670d8", "#4c89df"), // functions, macros
    ("hl-t", "#a3640d", "#c27810"), // types, tags
    ("hl-a", "#b05c1f", "#d36d25"), // attributes, parameters
    ("hl-n", "#c8471d", "#e26137"), // numbers, constants
    ("hl-k", "#b03fc7", "#c064d2"), // keywords
];

/// Chapter levels turned into nesting: a chapter nests under the nearest chapter before it of
/// a lower level, one step deeper, and sits beside one of its own level. Levels skipped
/// (`1` then `3`) or missing at the start (`2` first) give no empty steps.
#[derive(Default)]
pub(crate) struct Levels {
    /// The open levels, lowest first: (level asked for, nesting given).
    open: Vec<(usize, usize)>,
}

impl Levels {
    /// How deep (0 for the top) a chapter of `level` goes.
    pub(crate) fn place(&mut self, level: usize) -> usize {
        while self.open.last().is_some_and(|&(l, _)| l > level) {
            self.open.pop();
        }
        let nesting = match self.open.last() {
            Some(&(l, n)) if l == level => {
                self.open.pop();
                n
            }
            Some(&(_, n)) => n + 1,
            None => 0,
        };
        self.open.push((level, nesting));
        nesting
    }
}

/// The largest body of one chapter document: the XHTML shell and heading take about 1 KB,
/// and pieces of a chapter split for size stay under `split-size` with them.
pub(crate) fn split_limit(layout: &Layout) -> usize {
    layout.split_size.saturating_sub(1024).max(1024)
}

/// Manifest id (and file stem) of the `n`th chapter document, 1-based.
pub(crate) fn chapter_id(n: usize) -> String {
    format!("chapter-{n:04}")
}

/// Manifest id (and file stem) of piece `piece` (0-based) of the `n`th chapter, 1-based: the
/// chapter's own for the first piece.
pub(crate) fn piece_id(n: usize, piece: usize) -> String {
    match piece {
        0 => chapter_id(n),
        _ => format!("{}-{}", chapter_id(n), piece + 1),
    }
}

/// File name (in the `text/` folder) of the `n`th chapter document, 1-based.
pub fn chapter_file_name(n: usize) -> String {
    format!("{}.xhtml", chapter_id(n))
}

/// The chapters of `nodes`, depth-first: the order of [`documents`].
pub(crate) fn chapters_mut(nodes: &mut [Node]) -> Vec<&mut Chapter> {
    let mut out = Vec::new();
    let mut stack: Vec<std::slice::IterMut<'_, Node>> = vec![nodes.iter_mut()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(Node::Chapter(c)) => out.push(c),
            Some(Node::Part(p)) => stack.push(p.children.iter_mut()),
            None => {
                stack.pop();
            }
        }
    }
    out
}

pub(crate) fn count_chapters(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|n| match n {
            Node::Chapter(_) => 1,
            Node::Part(p) => count_chapters(&p.children),
        })
        .sum()
}
