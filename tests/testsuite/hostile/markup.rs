//! Hostile markup and EPUBs read back: nesting, ids, huge manifests, EPUBCheck runs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::process::{is_running, wait_until};
use super::{bounded, bounded_build, finishes_within};
use crate::common::{Fixture, assert_valid, entries, epubforge};

/// A valid EPUB 3 of `docs` one-paragraph documents, each a manifest item and a spine item,
/// written with stored (uncompressed) entries so that it is quick to make.
fn wide_epub(path: &Path, docs: usize) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let mut put = |name: &str, data: &str| {
        zip.start_file(name, stored).unwrap();
        zip.write_all(data.as_bytes()).unwrap();
    };
    put("mimetype", "application/epub+zip");
    put(
        "META-INF/container.xml",
        r#"<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#,
    );
    let mut items = String::new();
    let mut refs = String::new();
    let mut toc = String::new();
    for i in 0..docs {
        items.push_str(&format!(
            "<item id=\"c{i}\" href=\"text/c{i}.xhtml\" media-type=\"application/xhtml+xml\"/>\n"
        ));
        refs.push_str(&format!("<itemref idref=\"c{i}\"/>\n"));
        toc.push_str(&format!("<li><a href=\"text/c{i}.xhtml\">{i}</a></li>\n"));
    }
    put(
        "EPUB/package.opf",
        &format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:12345678-1234-5678-1234-567812345678</dc:identifier><dc:title>Wide</dc:title><dc:language>en</dc:language><meta property="dcterms:modified">2024-01-01T00:00:00Z</meta></metadata>
<manifest>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
{items}</manifest>
<spine>
{refs}</spine>
</package>"#
        ),
    );
    let page = |title: &str, body: &str| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="en" xml:lang="en"><head><title>{title}</title></head><body>{body}</body></html>"#
        )
    };
    put(
        "EPUB/nav.xhtml",
        &page(
            "Contents",
            &format!("<nav epub:type=\"toc\" id=\"toc\"><ol>{toc}</ol></nav>"),
        ),
    );
    for i in 0..docs {
        put(
            &format!("EPUB/text/c{i}.xhtml"),
            &page(&i.to_string(), &format!("<p>Document {i}.</p>")),
        );
    }
    zip.finish().unwrap();
}

/// Issue 13, item 10: the spine's idrefs were looked up by a walk over the manifest, once per
/// itemref: `inspect` and `check` of 100 000 items took 70 s and more than 120 s.
#[test]
fn inspect_and_check_of_a_100_000_item_epub_are_linear() {
    let dir = tempfile::tempdir().unwrap();
    let epub = dir.path().join("wide.epub");
    // 99 990 documents and the nav: with the other entries, just under the 100 000 entries
    // that `inspect` accepts.
    wide_epub(&epub, 99_990);
    // Together well over 90 s before the fix (debug build); under 10 s of CPU after it.
    let limit = Duration::from_secs(90);
    let start = Instant::now();
    let inspect = bounded(
        epubforge().arg("inspect").arg(&epub),
        limit,
        "inspect of 100 000 items",
    );
    assert!(inspect.ok, "{}", inspect.stderr);
    assert!(
        inspect.stdout.contains("Spine (99990 items):")
            && inspect.stdout.contains("99990. EPUB/text/c99989.xhtml"),
        "{}",
        &inspect.stdout[..inspect.stdout.len().min(2000)]
    );
    // `check` holds the whole package and every document's facts at once: a 100 000-item
    // book is far past any real one, so its bound is twice a build's.
    let check = super::run_guarded(
        epubforge().args(["check", "--no-epubcheck"]).arg(&epub),
        limit.saturating_sub(start.elapsed()),
        "check of 100 000 items",
        Some(2 * super::MEMORY_MB),
    );
    assert!(check.ok, "{}", check.stderr);
    assert!(
        check.stderr.contains("no problems found"),
        "{}",
        check.stderr
    );
}

/// A stand-in for `java` that the EPUBCheck finder accepts (`EPUBCHECK_JAR` names a dummy jar):
/// it writes its process id to a file, then sleeps for minutes or exits at once. Commands made
/// by [`FakeJava::epubforge`] find it first on `PATH` and keep their temporary folders in a
/// folder of its own, so that a test can see what a run leaves behind.
#[cfg(unix)]
struct FakeJava {
    dir: tempfile::TempDir,
}

#[cfg(unix)]
impl FakeJava {
    fn new() -> FakeJava {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        let java = dir.path().join("bin/java");
        std::fs::write(
            &java,
            "#!/bin/sh\necho $$ > \"$FAKE_JAVA_PID.part\" && mv \"$FAKE_JAVA_PID.part\" \"$FAKE_JAVA_PID\"\n\
             if [ -n \"$FAKE_JAVA_SLEEP\" ]; then exec sleep 300; fi\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("epubcheck.jar"), b"not a jar").unwrap();
        FakeJava { dir }
    }

    /// `epubforge` that runs this java, which sleeps when `sleep` is true.
    fn epubforge(&self, sleep: bool) -> Command {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.dir.path().join("bin")];
        dirs.extend(std::env::split_paths(&path));
        let mut cmd = epubforge();
        cmd.env("PATH", std::env::join_paths(dirs).unwrap())
            .env("EPUBCHECK_JAR", self.dir.path().join("epubcheck.jar"))
            .env("TMPDIR", self.dir.path().join("tmp"))
            .env("FAKE_JAVA_PID", self.dir.path().join("pid"));
        if sleep {
            cmd.env("FAKE_JAVA_SLEEP", "1");
        }
        cmd
    }

    /// The process id of the java started, once it has started.
    fn pid(&self) -> Option<String> {
        let pid = std::fs::read_to_string(self.dir.path().join("pid")).ok()?;
        Some(pid.trim().to_string())
    }

    /// What runs left in the temporary folder.
    fn leftovers(&self) -> Vec<String> {
        std::fs::read_dir(self.dir.path().join("tmp"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    }
}

#[cfg(unix)]
impl Drop for FakeJava {
    fn drop(&mut self) {
        // A failed test must not leave its sleeping java behind.
        if let Some(pid) = self.pid() {
            let _ = Command::new("kill")
                .args(["-KILL", &pid])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Issue 13, item 12: SIGTERM to `check BOOK.epub` left the java child running and its
/// temporary folder behind.
#[cfg(unix)]
#[test]
fn sigterm_to_check_stops_epubcheck_and_removes_its_folder() {
    let java = FakeJava::new();
    let epub = java.dir.path().join("book.epub");
    wide_epub(&epub, 1);
    let mut check = java
        .epubforge(true)
        .arg("check")
        .arg(&epub)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until(Duration::from_secs(60), "EPUBCheck started", || {
        assert!(check.try_wait().unwrap().is_none(), "check ended first");
        java.pid().is_some()
    });
    let pid = java.pid().unwrap();
    assert!(is_running(&pid));
    let sent = Command::new("kill")
        .args(["-TERM", &check.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let mut status = None;
    wait_until(Duration::from_secs(60), "check exited", || {
        status = check.try_wait().unwrap();
        status.is_some()
    });
    assert_eq!(status.and_then(|s| s.code()), Some(130), "{status:?}");
    wait_until(Duration::from_secs(10), "java stopped", || {
        !is_running(&pid)
    });
    assert_eq!(java.leftovers(), Vec::<String>::new());
}

/// Issue 13, item 12: EPUBCheck ran without a time limit.
#[cfg(unix)]
#[test]
fn check_stops_epubcheck_at_its_time_limit() {
    let java = FakeJava::new();
    let epub = java.dir.path().join("book.epub");
    wide_epub(&epub, 1);
    let r = finishes_within(
        java.epubforge(true)
            .args(["check", "--epubcheck-timeout", "1"])
            .arg(&epub),
        Duration::from_secs(60),
        "check with a 1 s limit on EPUBCheck",
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("did not finish within 1 s and was stopped"),
        "{}",
        r.stderr
    );
    let pid = java.pid().expect("EPUBCheck was started");
    wait_until(Duration::from_secs(10), "java stopped", || {
        !is_running(&pid)
    });
    assert_eq!(java.leftovers(), Vec::<String>::new());
}

/// Issue 13, item 12: EPUBCheck was handed an EPUB that our own rules had found to be a zip
/// bomb.
#[cfg(unix)]
#[test]
fn check_does_not_hand_a_zip_bomb_to_epubcheck() {
    let java = FakeJava::new();
    let epub = java.dir.path().join("bomb.epub");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&epub).unwrap());
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/epub+zip").unwrap();
    let deflated = zip::write::SimpleFileOptions::default().large_file(true);
    zip.start_file("META-INF/container.xml", deflated).unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..100 {
        zip.write_all(&spaces).unwrap();
    }
    zip.finish().unwrap();
    let r = finishes_within(
        java.epubforge(false).arg("check").arg(&epub),
        Duration::from_secs(60),
        "check of a zip bomb",
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("inflates to more than"), "{}", r.stderr);
    assert!(r.stderr.contains("EPUBCheck was not run"), "{}", r.stderr);
    assert_eq!(java.pid(), None, "EPUBCheck was started");
    assert_eq!(java.leftovers(), Vec::<String>::new());
}

/// Issue 13, item 9: 100 000 nested `<div>`s in an HTML chapter, or 100 000 nested list markers
/// in a Markdown chapter, took minutes: the HTML parser scans its stack of open elements on
/// most tags, and the depth cap acted only on the finished tree.
#[test]
fn chapters_nested_100_000_deep_build_quickly_keeping_their_text() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Deep\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\
         [[chapters]]\nfile = \"divs.html\"\n[[chapters]]\nfile = \"lists.md\"\n",
    );
    let n = 100_000;
    f.write(
        "divs.html",
        format!(
            "<h1>Divs</h1>\n<p>Before.</p>\n{}Deep in the divs.{}\n<p>After.</p>",
            "<div>".repeat(n),
            "</div>".repeat(n)
        ),
    );
    f.write(
        "lists.md",
        format!(
            "# Lists\n\nBefore.\n\n{}Deep in the lists.\n",
            "- ".repeat(n)
        ),
    );
    let out = f.path("out.epub");
    // Minutes before the fix; a few seconds after it, in a debug build on a busy machine.
    let r = bounded_build(
        &f,
        Duration::from_secs(60),
        "a build of chapters nested 100 000 deep",
    );
    assert!(r.ok, "{}", r.stderr);
    for (file, line) in [("divs.html", 3), ("lists.md", 5)] {
        let expected = format!("{file}:{line}: flattened elements nested deeper than 120 levels");
        assert!(
            crate::common::flat(&r.stderr).contains(&expected),
            "no {expected:?} in:\n{}",
            r.stderr
        );
    }
    let book = entries(&out);
    let text = |name: &str| String::from_utf8(book[name].clone()).unwrap();
    let divs = text("EPUB/text/chapter-0001.xhtml");
    let lists = text("EPUB/text/chapter-0002.xhtml");
    for (doc, words) in [
        (&divs, ["Before.", "Deep in the divs.", "After."]),
        (&lists, ["Before.", "Deep in the lists.", "Lists"]),
    ] {
        for w in words {
            assert!(doc.contains(w), "{w:?} vanished");
        }
    }
    assert_valid(&out);
}

/// Every element with an id in the book's chapter documents: (document, id) -> (element
/// name, its text).
fn id_targets(
    book: &std::collections::BTreeMap<String, Vec<u8>>,
) -> std::collections::HashMap<(String, String), (String, String)> {
    let mut out = std::collections::HashMap::new();
    for (name, data) in book {
        let Some(doc) = name.strip_prefix("EPUB/text/") else {
            continue;
        };
        let text = std::str::from_utf8(data).unwrap();
        let xml = roxmltree::Document::parse_with_options(
            text,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap();
        for node in xml.descendants().filter(|n| n.is_element()) {
            if let Some(id) = node.attribute("id") {
                let words: String = node
                    .descendants()
                    .filter(|d| d.is_text())
                    .filter_map(|d| d.text())
                    .collect();
                let key = (doc.to_string(), id.to_string());
                assert!(
                    out.insert(key, (node.tag_name().name().to_string(), words))
                        .is_none(),
                    "duplicate id {id} in {doc}"
                );
            }
        }
    }
    out
}

/// The element that a link in `doc` leads to (its name and text), following `href`.
fn follow(
    targets: &std::collections::HashMap<(String, String), (String, String)>,
    book: &std::collections::BTreeMap<String, Vec<u8>>,
    doc_prefix: &str,
    text: &str,
) -> (String, String) {
    for (name, data) in book {
        let Some(doc) = name.strip_prefix("EPUB/text/") else {
            continue;
        };
        if !doc.starts_with(doc_prefix) {
            continue;
        }
        let xml = std::str::from_utf8(data).unwrap();
        let xml = roxmltree::Document::parse_with_options(
            xml,
            roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            },
        )
        .unwrap();
        for a in xml.descendants().filter(|n| n.has_tag_name("a")) {
            let words: String = a
                .descendants()
                .filter(|d| d.is_text())
                .filter_map(|d| d.text())
                .collect();
            if words != text {
                continue;
            }
            let href = a.attribute("href").expect("the link kept its href");
            let (file, id) = href.split_once('#').expect("a link to an id");
            let file = if file.is_empty() { doc } else { file };
            return targets
                .get(&(file.to_string(), id.to_string()))
                .unwrap_or_else(|| panic!("{href} in {doc} leads nowhere"))
                .clone();
        }
    }
    panic!("no link {text:?} in {doc_prefix}*");
}

/// Issue 13, item 7: ids the author wrote collided with those epubforge writes. A chapter with
/// `id="chapter-title"` gave a duplicate id (EPUBCheck RSC-005); a Markdown chapter with
/// `id="fn-1"` made the note reference jump to the author's paragraph. Links across the pieces
/// of a chapter split for size, and to renamed ids in other chapters, must still arrive.
#[test]
fn author_ids_never_collide_with_generated_ones_and_links_still_arrive() {
    let f = Fixture::empty();
    f.write(
        "metadata.toml",
        "[book]\ntitle = \"Ids\"\nauthors = [\"A\"]\nlanguage = \"en\"\n\
         [layout]\nsplit-size = 10\n\
         [[chapters]]\nfile = \"a.html\"\n[[chapters]]\nfile = \"b.md\"\n",
    );
    let filler = |n: usize| {
        (0..n)
            .map(|i| format!("<p>Filler paragraph {i} of the chapter, long enough to fill a piece of it.</p>\n"))
            .collect::<String>()
    };
    f.write(
        "a.html",
        format!(
            "<h1>Alpha</h1>\n<p id=\"chapter-title\">Named chapter-title.</p>\n\
             <p id=\"epubforge-chapter-title\">Looks generated.</p>\n\
             <p><a href=\"#chapter-title\">to chapter-title</a> <a href=\"#epubforge-chapter-title\">to look-alike</a> \
             <a href=\"#far\">to far</a> <a href=\"b.md#sec\">to b sec</a> <a href=\"b.md#1st\">to b 1st</a> \
             <a href=\"b.md#missing\">to b missing</a></p>\n{}<p id=\"far\">Far away. <a href=\"#chapter-title\">back</a></p>\n",
            filler(400)
        ),
    );
    f.write(
        "b.md",
        format!(
            "# Beta\n\nA note[^1] here.\n\n<p id=\"fn-1\">Named fn-1.</p>\n\n\
             <p id=\"epubforge-fn-1\">Looks like a note.</p>\n\n<div id=\"1st\">First.</div>\n\n\
             [to my fn-1](#fn-1)\n\n{}\n<h2 id=\"sec\">Section</h2>\n\nAgain[^1], and another[^2].\n\n\
             [^1]: The note.\n[^2]: The other note.\n",
            filler(400)
        ),
    );
    let r = f.build(&[]);
    assert!(r.ok, "{}", r.stderr);
    let out = f.path("out.epub");
    let book = entries(&out);
    assert!(
        book.contains_key("EPUB/text/chapter-0001-2.xhtml")
            && book.contains_key("EPUB/text/chapter-0002-2.xhtml"),
        "the chapters were not split: {:?}",
        book.keys().collect::<Vec<_>>()
    );
    let targets = id_targets(&book);
    let to = |doc: &str, text: &str| follow(&targets, &book, doc, text);
    let named = |name: &str, words: &str| (name.to_string(), words.to_string());
    assert_eq!(
        to("chapter-0001", "to chapter-title"),
        named("p", "Named chapter-title.")
    );
    assert_eq!(
        to("chapter-0001", "to look-alike"),
        named("p", "Looks generated.")
    );
    assert_eq!(
        to("chapter-0001", "back"),
        named("p", "Named chapter-title.")
    );
    assert_eq!(to("chapter-0001", "to far"), named("p", "Far away. back"));
    assert_eq!(to("chapter-0001", "to b sec"), named("h2", "Section"));
    assert_eq!(to("chapter-0001", "to b 1st"), named("div", "First."));
    assert_eq!(to("chapter-0002", "to my fn-1"), named("p", "Named fn-1."));
    for note in ["1", "2"] {
        let (element, words) = to("chapter-0002", note);
        assert_eq!(element, "aside", "reference {note} leads to {words:?}");
    }
    // A link to an id the other chapter does not have opens that chapter instead.
    assert!(
        r.stderr
            .contains("b.md has no id \"missing\"; the link opens the chapter"),
        "{}",
        r.stderr
    );
    assert_valid(&out);
}
