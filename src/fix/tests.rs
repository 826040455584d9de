//! `fix` end to end on small EPUBs made in the test ([`crate::inspect::testutil`]), each broken
//! in known ways: the repairs reported by kind, the input untouched, the text counted equal,
//! kepub spans on every paragraph, OpenCC's conversion of the input's own text.

use std::path::{Path, PathBuf};

use super::*;
use crate::inspect::testutil::TestBook;

const CHAPTER: &str = "EPUB/text/chapter_1.xhtml";

/// The test book with a Chinese chapter of `paragraphs`, in a folder of its own.
fn chinese_book(dir: &Path, paragraphs: &[&str]) -> PathBuf {
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    let chapter = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"zh-CN\" xml:lang=\"zh-CN\">\n<head><title>第一章</title></head>\n<body>\n<h1 id=\"start\">第一章 开始</h1>\n{body}<h2 id=\"s1\">小节</h2>\n</body>\n</html>\n"
    );
    let mut book = TestBook::minimal_epub3().edit(
        "EPUB/package.opf",
        "<dc:language>en</dc:language>",
        "<dc:language>zh-CN</dc:language>",
    );
    book.entry_mut(CHAPTER).data = chapter.into_bytes();
    let path = dir.join("书.epub");
    std::fs::write(&path, book.to_zip()).unwrap();
    path
}

/// The test book broken three ways: a chapter without `lang`, no `dcterms:modified`, a file
/// the manifest does not list.
fn broken_book(dir: &Path) -> PathBuf {
    let book = TestBook::minimal_epub3()
        .edit(CHAPTER, " lang=\"en\" xml:lang=\"en\"", "")
        .edit(
            "EPUB/package.opf",
            "<meta property=\"dcterms:modified\">2024-01-02T03:04:05Z</meta>",
            "",
        )
        .add("EPUB/stray.css", b"p { margin: 0 }");
    let path = dir.join("broken.epub");
    std::fs::write(&path, book.to_zip()).unwrap();
    path
}

fn problems(epub: &Path) -> Vec<crate::Diagnostic> {
    crate::inspect::verify_path(epub)
}

#[test]
fn a_broken_epub_is_repaired_beside_itself_each_kind_reported_and_the_input_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let epub = broken_book(dir.path());
    let before = std::fs::read(&epub).unwrap();
    let found: Vec<Code> = problems(&epub).iter().map(|f| f.code).collect();
    for code in [Code::EpubLang, Code::EpubMetadata, Code::EpubUnlistedFile] {
        assert!(
            found.contains(&code),
            "the test book lacks {code}: {found:?}"
        );
    }
    let report = fix(&epub, &FixOptions::default()).unwrap();
    assert_eq!(report.status, FixStatus::Fixed);
    assert_eq!(report.outputs, [dir.path().join("broken.fixed.epub")]);
    assert_eq!(std::fs::read(&epub).unwrap(), before, "the input changed");
    assert_eq!(
        problems(&report.outputs[0]),
        [],
        "the fixed EPUB has problems"
    );
    let fixed: Vec<Code> = report.fixed.iter().map(|(c, _)| *c).collect();
    for code in [Code::EpubLang, Code::EpubMetadata, Code::EpubUnlistedFile] {
        assert!(
            fixed.contains(&code),
            "{code} not reported fixed: {fixed:?}"
        );
        let notes = report.diagnostics.iter().filter(|d| d.code == Code::Fixed);
        assert!(notes.clone().any(|d| d.message.contains(code.as_str())));
    }
    assert_eq!(report.remaining, 0);
    // Nothing lost (the drawn cover page and the input's navigation document, a chapter now,
    // only add letters).
    assert!(report.chars_before.is_some_and(|n| n > 0));
    assert!(report.chars_after >= report.chars_before);
    assert!(!report.diagnostics.iter().any(|d| d.code == Code::LostText));
}

#[test]
fn a_clean_epub_with_nothing_asked_is_already_clean_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let epub = dir.path().join("clean.epub");
    std::fs::write(&epub, TestBook::minimal_epub3().to_zip()).unwrap();
    let report = fix(&epub, &FixOptions::default()).unwrap();
    assert_eq!(report.status, FixStatus::AlreadyClean);
    assert!(report.outputs.is_empty());
    assert!(!dir.path().join("clean.fixed.epub").exists());
}

#[test]
fn in_place_replaces_the_input_only_when_the_fix_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let epub = broken_book(dir.path());
    let opts = FixOptions {
        in_place: true,
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    assert_eq!(report.outputs, std::slice::from_ref(&epub));
    assert_eq!(problems(&epub), []);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "a temporary file was left beside the input");

    let junk = dir.path().join("junk.epub");
    std::fs::write(&junk, b"not a zip at all").unwrap();
    assert!(fix(&junk, &opts).is_err());
    assert_eq!(std::fs::read(&junk).unwrap(), b"not a zip at all");
}

#[test]
fn an_earlier_fix_at_the_output_is_replaced_whole_and_nothing_is_left_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let epub = broken_book(dir.path());
    let out = dir.path().join("out.epub");
    std::fs::write(&out, b"an earlier, different file").unwrap();
    let opts = FixOptions {
        output: Some(out.clone()),
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    assert_eq!(report.outputs, std::slice::from_ref(&out));
    assert_eq!(problems(&out), []);
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names, [epub.file_name().unwrap(), out.file_name().unwrap()]);
}
#[test]
fn kobo_puts_every_paragraph_in_kobo_spans_beside_the_input_as_a_kepub() {
    let dir = tempfile::tempdir().unwrap();
    let epub = chinese_book(
        dir.path(),
        &["他说：“走吧。”她没有回答。", "第二段，很短。"],
    );
    let opts = FixOptions {
        targets: vec![Target::Kobo],
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    assert_eq!(report.outputs, [dir.path().join("书.fixed.kepub.epub")]);
    let mut paragraphs = 0;
    for (name, xhtml) in review::spine_documents(&report.outputs[0]).unwrap() {
        for p in xhtml
            .split("<p")
            .skip(1)
            .filter(|p| p.starts_with(['>', ' ']))
        {
            let p = &p[..p.find("</p>").unwrap_or(p.len())];
            paragraphs += 1;
            assert!(
                p.contains("koboSpan"),
                "{name}: a paragraph without a kobo span: {p}"
            );
        }
    }
    assert!(paragraphs >= 2, "{paragraphs} paragraphs");
    assert_eq!(problems(&report.outputs[0]), []);
}

/// Everything a reader sees as text, whitespace left out: the spine's bodies (headings too,
/// not the label of a cover page's picture), the table of contents' titles, the book's titles
/// and authors.
fn seen_text(epub: &Path) -> String {
    let mut out = String::new();
    for (_, xhtml) in review::spine_documents(epub).unwrap() {
        let mut body = &xhtml[xhtml.find("<body").unwrap()..];
        let picture = body.find("<svg").zip(body.find("</svg>"));
        let unlabelled = picture.map(|(a, b)| format!("{}{}", &body[..a], &body[b..]));
        if let Some(text) = &unlabelled {
            body = text;
        }
        let mut inside = false;
        for c in body.chars() {
            match c {
                '<' => inside = true,
                '>' => inside = false,
                c if !inside && !c.is_whitespace() => out.push(c),
                _ => {}
            }
        }
    }
    let book = crate::inspect::open(epub).unwrap();
    fn titles(toc: &[crate::inspect::TocEntry], out: &mut String) {
        for e in toc {
            out.push('|');
            out.push_str(&e.title);
            titles(&e.children, out);
        }
    }
    titles(&book.toc, &mut out);
    let creators = book.metadata.creators.iter().map(|c| &c.name);
    for t in book.metadata.titles.iter().chain(creators) {
        out.push('|');
        out.push_str(t);
    }
    out.retain(|c| !c.is_whitespace());
    out
}

#[test]
fn convert_s2tw_gives_opencc_s2tw_of_the_input_text_headings_toc_and_metadata_too() {
    let dir = tempfile::tempdir().unwrap();
    let paragraphs = ["这里的头发和发展都要转换。", "后来他们去了台湾的软件公司。"];
    let epub = chinese_book(dir.path(), &paragraphs);
    // The book as such books come: the contents name the chapter as its heading does.
    let mut book = TestBook::minimal_epub3();
    for (name, from, to) in [
        (
            "EPUB/package.opf",
            "<dc:language>en</dc:language>",
            "<dc:language>zh-CN</dc:language>",
        ),
        ("EPUB/package.opf", "Minimal Book", "简体书"),
        ("EPUB/package.opf", ">Ann Writer<", ">冯梦龙<"),
        ("EPUB/nav.xhtml", "Chapter  One", "第一章 开始"),
        ("EPUB/nav.xhtml", ">Section<", ">小节<"),
    ] {
        book = book.edit(name, from, to);
    }
    book.entry_mut(CHAPTER).data = zip_entry(&epub, CHAPTER);
    std::fs::write(&epub, book.to_zip()).unwrap();
    let opts = FixOptions {
        convert: Some("s2tw".into()),
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    let s2tw = crate::text_fix::Conversion::named("s2tw").unwrap();
    let before = seen_text(&epub);
    let want = s2tw.convert(&before);
    assert_ne!(before, want, "the test text has nothing to convert");
    assert!(before.contains("第一章开始|小节|简体书|冯梦龙"), "{before}");
    assert_eq!(seen_text(&report.outputs[0]), want);
    let book = crate::inspect::open(&report.outputs[0]).unwrap();
    assert_eq!(book.metadata.languages, ["zh-TW"]);
}

#[test]
fn a_heading_the_contents_name_otherwise_is_kept_and_converted_too() {
    let dir = tempfile::tempdir().unwrap();
    let epub = chinese_book(dir.path(), &["后来他们去了台湾。"]);
    let opts = FixOptions {
        convert: Some("s2tw".into()),
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    let text = seen_text(&report.outputs[0]);
    assert!(text.contains("第一章開始"), "{text}");
    assert!(!text.contains("开始"), "{text}");
}

/// The bytes of one entry of the EPUB at `epub`.
fn zip_entry(epub: &Path, name: &str) -> Vec<u8> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(epub).unwrap()).unwrap();
    let mut data = Vec::new();
    std::io::Read::read_to_end(&mut zip.by_name(name).unwrap(), &mut data).unwrap();
    data
}

#[test]
fn a_fix_adds_no_cover_and_no_text_the_input_did_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let book = TestBook::minimal_epub3()
        .remove("EPUB/images/cover.png")
        .edit(
            "EPUB/package.opf",
            "\n    <item id=\"cover\" href=\"images/cover.png\" media-type=\"image/png\" properties=\"cover-image\"/>",
            "",
        )
        .edit(CHAPTER, "<p><img src=\"../images/cover.png\" alt=\"cover\"/> ", "<p>");
    let epub = dir.path().join("bare.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    let opts = FixOptions {
        force: true,
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    let out = crate::inspect::open(&report.outputs[0]).unwrap();
    let pictures: Vec<&str> = (out.manifest.iter())
        .filter(|m| m.media_type.starts_with("image/"))
        .map(|m| m.href.as_str())
        .collect();
    assert_eq!(pictures, Vec::<&str>::new(), "a cover was drawn");
    assert_eq!(report.chars_before, report.chars_after);
    assert_eq!(seen_text(&report.outputs[0]), seen_text(&epub));
}

#[cfg(feature = "cli")]
#[test]
fn a_library_is_fixed_in_parallel_and_a_bad_epub_does_not_stop_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let good = broken_book(dir.path());
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    let clean = dir.path().join("sub/clean.epub");
    std::fs::write(&clean, TestBook::minimal_epub3().to_zip()).unwrap();
    let bad = dir.path().join("sub/bad.epub");
    std::fs::write(&bad, b"PK not really").unwrap();
    let epubs = find_epubs(dir.path());
    assert_eq!(epubs, [good.clone(), bad.clone(), clean.clone()]);
    let seen = std::sync::atomic::AtomicUsize::new(0);
    let outcomes = fix_all(&epubs, &FixOptions::default(), 2, &|_| {
        seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(seen.into_inner(), 3);
    let status: Vec<_> = outcomes
        .iter()
        .map(|o| o.result.as_ref().map(|r| r.status).ok())
        .collect();
    assert_eq!(
        status,
        [Some(FixStatus::Fixed), None, Some(FixStatus::AlreadyClean)]
    );
    assert!(dir.path().join("broken.fixed.epub").is_file());
    assert_eq!(
        find_epubs(dir.path()).len(),
        3,
        "a fix's output is not fixed again"
    );
}

#[test]
fn send_to_kindle_repairs_come_out_right_in_the_kindle_epub() {
    let dir = tempfile::tempdir().unwrap();
    // No XML declaration, an empty `alt`, an `<img>` straight in `<body>`, a language tag
    // Amazon's list does not hold as written (`ZH-cn`).
    let chapter = "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"zh-CN\" xml:lang=\"zh-CN\">\n<head><title>一</title></head>\n<body>\n<h1 id=\"start\">第一章</h1>\n<img src=\"../images/cover.png\" alt=\"\"/>\n<p>正文在这里。</p>\n<h2 id=\"s1\">小节</h2>\n</body>\n</html>\n";
    let mut book = TestBook::minimal_epub3().edit(
        "EPUB/package.opf",
        "<dc:language>en</dc:language>",
        "<dc:language>ZH-cn</dc:language>",
    );
    book.entry_mut(CHAPTER).data = chapter.as_bytes().to_vec();
    let epub = dir.path().join("kindle.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    let opts = FixOptions {
        targets: vec![Target::Kindle],
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    let out = &report.outputs[0];
    let left: Vec<Code> = review::review(&crate::inspect::archive::Archive::lazy(out), None)
        .problems
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(left, [], "Send-to-Kindle still finds problems");
    for (name, xhtml) in review::spine_documents(out).unwrap() {
        assert!(
            xhtml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"),
            "{name} has no XML declaration"
        );
        assert!(!xhtml.contains("alt=\"\""), "{name} has an empty alt");
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..roxmltree::ParsingOptions::default()
        };
        let doc = roxmltree::Document::parse_with_options(&xhtml, options).unwrap();
        let stray = doc
            .descendants()
            .filter(|n| n.has_tag_name("body"))
            .any(|body| {
                body.children()
                    .any(|c| c.is_element() && c.tag_name().name() == "img")
            });
        assert!(!stray, "{name}: <img> outside a block");
    }
    let language = crate::inspect::open(out).unwrap().metadata.languages;
    assert!(language[0].eq_ignore_ascii_case("zh-CN"), "{language:?}");
}

#[test]
fn what_the_fix_cannot_repair_is_found_in_the_result_and_listed_as_left() {
    // A table of contents three levels deep: the plain EPUB keeps it (only `--target kindle`
    // flattens it), and Send-to-Kindle's limits, applied to the result, still find it.
    let dir = tempfile::tempdir().unwrap();
    let book = TestBook::minimal_epub3()
        .edit(
            CHAPTER,
            "<h2 id=\"s1\">Section</h2>",
            "<h2 id=\"s1\">Section</h2>\n<p>Some text.</p>\n<h3 id=\"s2\">Deeper</h3>\n<p>More text.</p>",
        )
        .edit(
            "EPUB/nav.xhtml",
            "#s1\">Section</a></li>",
            "#s1\">Section</a><ol><li><a href=\"text/chapter%5F1.xhtml#s2\">Deeper</a></li></ol></li>",
        );
    let epub = dir.path().join("deep.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    // What the review of the result lists as left (the build's own warnings aside).
    let left = |report: &FixReport| -> Vec<Code> {
        let hint = |d: &&Diagnostic| {
            d.hint
                .as_deref()
                .is_some_and(|h| h.contains("input has it too"))
        };
        report
            .diagnostics
            .iter()
            .filter(hint)
            .map(|d| d.code)
            .collect()
    };
    for force in [false, true] {
        let opts = FixOptions {
            force,
            ..FixOptions::default()
        };
        let report = fix(&epub, &opts).unwrap();
        assert_eq!(report.status, FixStatus::Fixed, "force {force}");
        assert_eq!(
            report.remaining, 1,
            "force {force}: {:#?}",
            report.diagnostics
        );
        assert_eq!(left(&report), [Code::KindleConstruct], "force {force}");
    }
}

/// The book of `epub` built as a fix builds it (`opts`), holding its first EPUB's entries;
/// that EPUB's path and what was held.
fn built_holding(
    epub: &Path,
    opts: &FixOptions,
    work: &Path,
) -> (PathBuf, crate::inspect::archive::Held) {
    let dirs = Dirs {
        project: work.join("book"),
        staged: work.join("out"),
        entries: OnceLock::new(),
    };
    let prepared = prepare(&Archive::inflate(epub), &dirs, opts, true).unwrap();
    let Prepared::Built(_, mut built) = prepared else {
        panic!("{}: not built", epub.display());
    };
    let held = built.held.take().expect("the first EPUB's entries held");
    (built.output.clone(), held)
}

#[test]
fn the_result_reviewed_from_the_entries_the_build_held_is_reviewed_as_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let paragraphs = ["第一段。", "第二段，有“引号”。"];
    let deep = TestBook::minimal_epub3()
        .edit(
            CHAPTER,
            "<h2 id=\"s1\">Section</h2>",
            "<h2 id=\"s1\">Section</h2>\n<p>Some text.</p>\n<h3 id=\"s2\">Deeper</h3>\n<p>More.</p>",
        )
        .edit(
            "EPUB/nav.xhtml",
            "#s1\">Section</a></li>",
            "#s1\">Section</a><ol><li><a href=\"text/chapter%5F1.xhtml#s2\">Deeper</a></li></ol></li>",
        );
    let deep_path = dir.path().join("deep.epub");
    std::fs::write(&deep_path, deep.to_zip()).unwrap();
    let kobo = FixOptions {
        targets: vec![Target::Kobo, Target::Epub],
        ..FixOptions::default()
    };
    let cases = [
        (broken_book(dir.path()), FixOptions::default()),
        (chinese_book(dir.path(), &paragraphs), kobo),
        (deep_path, FixOptions::default()),
    ];
    let mut problems_seen = 0;
    for (i, (epub, opts)) in cases.iter().enumerate() {
        let work = dir.path().join(format!("work{i}"));
        let (out, held) = built_holding(epub, opts, &work);
        // What was held is what the zip holds, and (the entries being small) all of it.
        let mut zip = Archive::lazy(&out).container().unwrap();
        let names: Vec<String> = zip.entries.iter().map(|e| e.name.clone()).collect();
        assert_eq!(held.entries().len(), names.len(), "{}", out.display());
        for name in &names {
            let entry = held.entries().get(name).expect(name).clone();
            assert_eq!(entry.into_bytes(), zip.read_capped(name, 1 << 24).unwrap());
        }
        let from_file = review::review(&Archive::inflate(&out), None);
        let from_held = review::review(&Archive::with_entries(&out, held), None);
        assert_eq!(from_held.problems, from_file.problems, "{}", out.display());
        assert_eq!(from_held.chars, from_file.chars);
        assert!(from_held.chars.is_some_and(|n| n > 0));
        problems_seen += from_held.problems.len();
    }
    assert!(
        problems_seen > 0,
        "one result has a problem left to compare"
    );
}

/// The test book with its chapter's `<h1 id="start">Chapter One</h1>` replaced by `heading`.
fn book_with_heading(dir: &Path, heading: &str) -> PathBuf {
    let book =
        TestBook::minimal_epub3().edit(CHAPTER, "<h1 id=\"start\">Chapter One</h1>", heading);
    let epub = dir.join("pictured.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    epub
}

/// The fixed EPUB's chapter documents, joined.
fn fixed_text(epub: &Path) -> String {
    let opts = FixOptions {
        force: true,
        ..FixOptions::default()
    };
    let report = fix(epub, &opts).unwrap();
    assert_eq!(
        problems(&report.outputs[0]),
        [],
        "the fixed EPUB has problems"
    );
    let docs = review::spine_documents(&report.outputs[0]).unwrap();
    docs.into_iter().map(|(_, x)| x).collect()
}

#[test]
fn a_heading_that_is_only_a_picture_stays_a_picture_heading_titled_by_its_alt() {
    // IDPF mymedia_lite's first page: `<h1 class="imgttl"><img alt="ガリ版の話"/></h1>`.
    let dir = tempfile::tempdir().unwrap();
    let epub = book_with_heading(
        dir.path(),
        "<h1 id=\"start\" class=\"imgttl\"><img src=\"../images/cover.png\" alt=\"Chapter One\"/></h1>",
    );
    let text = fixed_text(&epub);
    let h1 = text.find("<h1").expect("no h1");
    let h1 = &text[h1..h1 + text[h1..].find("</h1>").unwrap()];
    assert!(
        h1.contains("<img") && h1.contains("alt=\"Chapter One\""),
        "{h1}"
    );
    assert!(!h1.contains(">Chapter One"), "the alt became words: {h1}");
    assert!(!text.contains("heading-picture"), "{text}");
    // The contents still name the chapter by the alt.
    let nav = crate::inspect::open(&dir.path().join("pictured.fixed.epub")).unwrap();
    assert_eq!(nav.toc[0].title, "Chapter One");

    // A heading with words and a picture keeps its words as the heading.
    let dir = tempfile::tempdir().unwrap();
    let epub = book_with_heading(
        dir.path(),
        "<h1 id=\"start\"><img src=\"../images/cover.png\" alt=\"ornament\"/>Chapter One</h1>",
    );
    let text = fixed_text(&epub);
    assert!(text.contains(">Chapter One</h1>"), "{text}");
    assert!(text.contains("alt=\"ornament\""), "{text}");
}

#[test]
fn a_note_of_the_epub_gains_no_number_but_a_way_back() {
    // IDPF moby-dick-mo's preface: a numbered reference, a note without a number.
    let dir = tempfile::tempdir().unwrap();
    let book = TestBook::minimal_epub3()
        .edit(
            CHAPTER,
            "<html xmlns=\"http://www.w3.org/1999/xhtml\"",
            "<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\"",
        )
        .edit(
            CHAPTER,
            "<h2 id=\"s1\">Section</h2>",
            "<h2 id=\"s1\">Section</h2>\n<p>A pound, a unit of currency.<a epub:type=\"noteref\" href=\"#n1\">7</a></p>\n<aside epub:type=\"footnote\" id=\"n1\">\n<p>These have been corrected.</p>\n</aside>",
        );
    let epub = dir.path().join("noted.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    let text = fixed_text(&epub);
    let words: String = (text.split('<'))
        .filter_map(|t| t.split_once('>').map(|(_, w)| w))
        .collect();
    assert_eq!(
        words.matches('7').count(),
        1,
        "the note gained its number: {text}"
    );
    let note = text.find("id=\"n1\"").expect("the note is gone");
    let note = &text[note..note + text[note..].find("</aside>").unwrap()];
    assert!(
        note.contains("role=\"doc-backlink\">\u{21A9}</a>"),
        "{note}"
    );
}

#[test]
fn a_cover_that_is_no_picture_leaves_the_book_without_a_cover_not_unfixed() {
    // A Royal Road archiver's `cover.jpg` of raw pixels: the build refused the whole book.
    let dir = tempfile::tempdir().unwrap();
    let mut book = TestBook::minimal_epub3();
    book.entry_mut("EPUB/images/cover.png").data = vec![7u8; 4096];
    let epub = dir.path().join("raw-cover.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    let opts = FixOptions {
        force: true,
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    assert_eq!(
        problems(&report.outputs[0]),
        [],
        "the fixed EPUB has problems"
    );
    let said =
        |d: &Diagnostic| d.code == Code::EpubInMetadata && d.message.contains("not a picture");
    assert!(
        report.diagnostics.iter().any(said),
        "{:#?}",
        report.diagnostics
    );
    let out = crate::inspect::open(&report.outputs[0]).unwrap();
    assert_eq!(out.metadata.cover_href, None);
    assert!(report.chars_after >= report.chars_before);
}

#[test]
fn convert_converts_the_title_the_contents_give_the_contents_page_too() {
    // novel-download's output: the contents name their own page "我的电子书标题".
    let dir = tempfile::tempdir().unwrap();
    let epub = chinese_book(dir.path(), &["这是第一章的内容。"]);
    // Its Chinese chapter, in the minimal book whose contents list the contents page.
    let zipped = std::fs::read(&epub).unwrap();
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zipped)).unwrap();
    let mut chapter = String::new();
    std::io::Read::read_to_string(&mut archive.by_name(CHAPTER).unwrap(), &mut chapter).unwrap();
    let book = TestBook::minimal_epub3()
        .edit(
            "EPUB/package.opf",
            "<dc:language>en</dc:language>",
            "<dc:language>zh-CN</dc:language>",
        )
        .edit(
            "EPUB/package.opf",
            "<itemref idref=\"nav\" linear=\"no\"/>",
            "<itemref idref=\"nav\"/>",
        )
        .edit(
            "EPUB/nav.xhtml",
            "</li>\n    </ol>",
            "</li>\n      <li><a href=\"nav.xhtml\">我的电子书目录</a></li>\n    </ol>",
        );
    let mut book = book;
    book.entry_mut(CHAPTER).data = chapter.into_bytes();
    std::fs::write(&epub, book.to_zip()).unwrap();
    let opts = FixOptions {
        convert: Some("s2tw".into()),
        force: true,
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    let out = crate::inspect::open(&report.outputs[0]).unwrap();
    let titles: Vec<&str> = out.toc.iter().map(|e| e.title.as_str()).collect();
    assert!(titles.contains(&"我的電子書目錄"), "{titles:?}");
    assert!(!titles.contains(&"我的电子书目录"), "{titles:?}");
}

#[test]
fn an_epub_whose_package_is_no_xml_is_refused_with_the_code_and_place_init_gives() {
    let dir = tempfile::tempdir().unwrap();
    // chapturn's shape: element names that are no XML names.
    let book = TestBook::minimal_epub3().edit("EPUB/package.opf", "<metadata ", "<{DC}metadata ");
    let epub = dir.path().join("broken.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    let opts = FixOptions {
        force: true,
        ..FixOptions::default()
    };
    let fixed = fix(&epub, &opts).unwrap_err().diagnostic();
    let unpacked = crate::epub_in::unpack(&epub, &dir.path().join("book"), &Default::default());
    let Err(crate::epub_in::Error::Read { epub: at, source }) = unpacked else {
        panic!("init read the broken package");
    };
    let init = source.diagnostic(&at);
    assert_eq!(fixed.code, Code::EpubXml);
    assert_eq!(
        (fixed.code, &fixed.path, fixed.line),
        (init.code, &init.path, init.line)
    );
    assert!(!epub.with_file_name("broken.fixed.epub").exists());
}

#[test]
fn what_the_build_says_of_a_file_of_the_project_is_said_of_its_entry_in_the_epub() {
    let dir = tempfile::tempdir().unwrap();
    let book = TestBook::minimal_epub3()
        .edit(
            "EPUB/package.opf",
            "</manifest>",
            "<item id=\"css\" href=\"css/a.css\" media-type=\"text/css\"/></manifest>",
        )
        .edit(
            CHAPTER,
            "<head><title>Chapter One</title></head>",
            "<head><title>Chapter One</title><link rel=\"stylesheet\" href=\"../css/a.css\"/></head>",
        )
        .add("EPUB/css/a.css", b"p { margin: 0 }\n-@font-face { font-family: x }\n");
    let epub = dir.path().join("styled.epub");
    std::fs::write(&epub, book.to_zip()).unwrap();
    let opts = FixOptions {
        output: Some(dir.path().join("out.epub")),
        force: true,
        ..FixOptions::default()
    };
    let report = fix(&epub, &opts).unwrap();
    let cut = (report.diagnostics.iter())
        .find(|d| d.code == Code::Css)
        .unwrap_or_else(|| panic!("no css note: {:#?}", report.diagnostics));
    assert_eq!(cut.path.as_deref(), Some(&*epub.join("EPUB/css/a.css")));
    assert_eq!(cut.line, Some(2));
}
