//! Writes a deterministic code-heavy Markdown book for benchmarks: one `.md` per chapter under
//! `OUTDIR/chapters/`, each a few paragraphs around fenced code blocks that name their language
//! (Rust, Python, TOML, JavaScript, C, shell, JSON, YAML in turn), and a `metadata.toml` that
//! globs them.
//!
//! `cargo run --release --example gen_code -- OUTDIR [chapters] [blocks-per-chapter]`
//! (defaults: 120 chapters of 20 blocks, 2400 blocks of 8 to 40 lines). The same arguments
//! always give the same bytes.

use std::fmt::Write as _;
use std::path::PathBuf;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: tiny, fast and the same everywhere.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const NAMES: [&str; 12] = [
    "count", "parse", "reader", "total", "value", "index", "buffer", "chapter", "title", "width",
    "offset", "entry",
];

/// One line of code in `lang`, built from `rng`.
fn line(lang: &str, rng: &mut Rng) -> String {
    let a = NAMES[rng.below(NAMES.len())];
    let b = NAMES[rng.below(NAMES.len())];
    let n = rng.below(1000);
    match (lang, rng.below(4)) {
        ("rust", 0) => format!("    let {a} = {b}.iter().map(|x| x * {n}).sum::<usize>();"),
        ("rust", 1) => format!("    // {a} is the {b} of the chapter ({n} at most)"),
        ("rust", 2) => format!("    if {a} > {n} {{ return Err(Error::Too(\"{b}\")); }}"),
        ("rust", _) => format!("    println!(\"{{}} {{:?}}\", {a}, Some({n}u32));"),
        ("python", 0) => format!("    {a} = [x * {n} for x in {b} if x]"),
        ("python", 1) => format!("    # {a}: the {b} so far"),
        ("python", 2) => format!("    if {a} > {n}:\n        raise ValueError(\"{b}\")"),
        ("python", _) => format!("    print(f\"{{{a}}} {{{b}!r}}\", {n})"),
        ("toml", 0) => format!("{a} = {n}"),
        ("toml", 1) => format!("# {a} and {b}"),
        ("toml", 2) => format!("[{a}.{b}]"),
        ("toml", _) => format!("{a} = [\"{b}\", \"x{n}\"]"),
        ("javascript", 0) => format!("  const {a} = {b}.map((x) => x * {n});"),
        ("javascript", 1) => format!("  // {a} holds the {b}"),
        ("javascript", 2) => format!("  if ({a} > {n}) {{ throw new Error(`{b}`); }}"),
        ("javascript", _) => format!("  console.log({a}, '{b}', {n});"),
        ("c", 0) => format!("    size_t {a} = {b}[{n}] + sizeof(int);"),
        ("c", 1) => format!("    /* {a}: the {b} */"),
        ("c", 2) => format!("    if ({a} > {n}) return -1;"),
        ("c", _) => format!("    printf(\"%zu %s\\n\", {a}, \"{b}\");"),
        ("bash", 0) => format!("{a}=$(wc -l < \"{b}.txt\")"),
        ("bash", 1) => format!("# {a} of {b}"),
        ("bash", 2) => format!("if [ \"${a}\" -gt {n} ]; then echo \"{b}\"; fi"),
        ("bash", _) => format!("for f in {b}/*.md; do cp \"$f\" /tmp/{a}; done"),
        ("json", _) => format!("  \"{a}{n}\": [\"{b}\", {n}, true, null],"),
        (_, 0) => format!("{a}: {n}"),
        (_, 1) => format!("# {a} and {b}"),
        (_, 2) => format!("{a}:\n  - {b}\n  - \"x{n}\""),
        (_, _) => format!("{a}: {{ {b}: {n} }}"),
    }
}

/// One fenced block in `lang`, 8 to 40 lines.
fn block(lang: &str, rng: &mut Rng) -> String {
    let mut out = format!("```{lang}\n");
    let (open, close) = match lang {
        "rust" => ("fn run() -> Result<(), Error> {", "}"),
        "python" => ("def run():", ""),
        "javascript" => ("function run() {", "}"),
        "c" => ("int run(void) {", "}"),
        "json" => ("{", "  \"end\": 0\n}"),
        _ => ("", ""),
    };
    if !open.is_empty() {
        let _ = writeln!(out, "{open}");
    }
    for _ in 0..8 + rng.below(33) {
        let _ = writeln!(out, "{}", line(lang, rng));
    }
    if !close.is_empty() {
        let _ = writeln!(out, "{close}");
    }
    out.push_str("```\n");
    out
}

const LANGS: [&str; 8] = [
    "rust",
    "python",
    "toml",
    "javascript",
    "c",
    "bash",
    "json",
    "yaml",
];

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next().map(PathBuf::from) else {
        eprintln!("usage: gen_code OUTDIR [chapters] [blocks-per-chapter]");
        std::process::exit(2);
    };
    let chapters: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(120);
    let blocks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let dir = out.join("chapters");
    std::fs::create_dir_all(&dir).expect("create the output folder");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut total = 0usize;
    for n in 1..=chapters {
        let mut text = format!("# Chapter {n}\n\n");
        for k in 0..blocks {
            let lang = LANGS[(n + k) % LANGS.len()];
            let _ = writeln!(
                text,
                "Step {k} of chapter {n} reads the {} and writes the {}.\n",
                NAMES[rng.below(NAMES.len())],
                NAMES[rng.below(NAMES.len())]
            );
            text.push_str(&block(lang, &mut rng));
            text.push('\n');
        }
        total += text.len();
        std::fs::write(dir.join(format!("{n:04}.md")), text).expect("write a chapter");
    }
    std::fs::write(
        out.join("metadata.toml"),
        format!(
            "[book]\ntitle = \"Code {chapters}\"\nauthors = [\"Bench\"]\nlanguage = \"en\"\n\
             identifier = \"urn:uuid:6f1c2d3e-0000-4000-8000-c0de{chapters:08}\"\n\n\
             [[chapters]]\nglob = \"chapters/*.md\"\n"
        ),
    )
    .expect("write metadata.toml");
    eprintln!(
        "{chapters} chapters, {} code blocks, {total} bytes in {}",
        chapters * blocks,
        out.display()
    );
}
