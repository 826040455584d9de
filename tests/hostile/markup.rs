//! Hostile markup and EPUBs read back: nesting, ids, huge manifests, EPUBCheck runs.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Run, epubforge};

/// Runs `cmd` to completion, killing it and failing the test if it is still running after
/// `limit`. The limit guards against a hang; it is many times what the fixed code needs even on
/// a loaded machine, and the code it guards against needs many times the limit.
fn finishes_within(cmd: &mut Command, limit: Duration, what: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        ok: status.success(),
        code: status.code(),
        stdout: std::fs::read_to_string(&out).unwrap(),
        stderr: std::fs::read_to_string(&err).unwrap(),
    }
}

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
    let inspect = finishes_within(
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
    let check = finishes_within(
        epubforge().args(["check", "--no-epubcheck"]).arg(&epub),
        limit.saturating_sub(start.elapsed()),
        "check of 100 000 items",
    );
    assert!(check.ok, "{}", check.stderr);
    assert!(
        check.stderr.contains("no problems found"),
        "{}",
        check.stderr
    );
}
