//! Finding a CJK font on this system for the generated cover, remembered in the build cache.

use std::path::{Path, PathBuf};

use super::super::fonts::face_count;

/// Finds a CJK font installed on this system: Noto CJK (Serif Bold first, it makes the best
/// titles), Source Han, WenQuanYi, then anything `fc-match` offers for Chinese if fontconfig is
/// installed. None when nothing is found.
pub fn find_system_cjk_font() -> Option<PathBuf> {
    find_cjk_font_in(&font_roots(), None, false, fc_match_cjk)
}

/// [`find_system_cjk_font`], remembered in the file `memo` (in the build cache) with the
/// modification time of every folder it searched. While none of them changed, no font was
/// added to or removed from them, and the answer is taken from `memo` instead of walking the
/// folders again: a desktop's font folders hold thousands of files, and without a font named
/// like a CJK one `fc-match` runs too, which every rebuild with a generated cover paid for.
/// A font installed outside these folders (where only `fc-match` finds it) is seen once the
/// cache is deleted, or with `search_again` (a clean build), which ignores the memo and
/// remembers the new answer.
pub fn find_system_cjk_font_remembered(memo: &Path, search_again: bool) -> Option<PathBuf> {
    find_cjk_font_in(&font_roots(), Some(memo), search_again, fc_match_cjk)
}

/// The folders searched for fonts, in order.
pub(super) fn font_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = vec![
        PathBuf::from("/usr/share/fonts"),
        PathBuf::from("/usr/local/share/fonts"),
        PathBuf::from("/System/Library/Fonts"),
        PathBuf::from("/Library/Fonts"),
    ];
    if let Some(home) = std::env::var_os("HOME") {
        let home = PathBuf::from(home);
        roots.push(home.join(".local/share/fonts"));
        roots.push(home.join(".fonts"));
    }
    roots
}

/// The modification time of a folder, as remembered (None when it does not exist).
pub(super) fn folder_time(dir: &Path) -> Option<i128> {
    let modified = std::fs::metadata(dir).and_then(|m| m.modified()).ok()?;
    Some(crate::project::nanos(modified))
}

/// The memo of [`find_cjk_font_in`], serde data: the font found (None: none), and the time of
/// every root (present or not) and every folder walked.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct FontMemo {
    /// [`FONT_MEMO_VERSION`]: a memo of any other version is searched again.
    pub(super) version: u32,
    pub(super) font: Option<PathBuf>,
    pub(super) dirs: Vec<(Option<i128>, PathBuf)>,
}

pub(super) const FONT_MEMO_VERSION: u32 = 1;

impl FontMemo {
    /// The remembered answer, while it still holds: same roots, no searched folder changed,
    /// the font still there.
    fn answer(&self, roots: &[PathBuf]) -> Option<Option<PathBuf>> {
        let same_roots = roots.iter().all(|r| self.dirs.iter().any(|(_, d)| d == r));
        let unchanged = self.dirs.iter().all(|(t, d)| folder_time(d) == *t);
        let font_there = self.font.as_deref().is_none_or(Path::is_file);
        (self.version == FONT_MEMO_VERSION && same_roots && unchanged && font_there)
            .then(|| self.font.clone())
    }
}

/// The best CJK font under `roots` (else `fallback`'s), remembered in `memo` when given and
/// taken from it unless `search_again`.
pub(super) fn find_cjk_font_in(
    roots: &[PathBuf],
    memo: Option<&Path>,
    search_again: bool,
    fallback: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    // The memo is in the build cache, which may have come with the project: read guarded.
    let remembered = memo
        .filter(|_| !search_again)
        .and_then(|m| crate::fs::read_limited(m, 1_000_000, "font memo").ok())
        .and_then(|bytes| serde_json::from_slice::<FontMemo>(&bytes).ok())
        .and_then(|m| m.answer(roots));
    if let Some(font) = remembered {
        return font;
    }
    let mut dirs: Vec<(Option<i128>, PathBuf)> = Vec::new();
    let mut best: Option<(u32, PathBuf)> = None;
    for root in roots {
        if !root.is_dir() {
            dirs.push((folder_time(root), root.clone()));
            continue;
        }
        for entry in walkdir::WalkDir::new(root)
            .max_depth(6)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
        {
            if entry.file_type().is_dir() {
                dirs.push((folder_time(entry.path()), entry.path().to_path_buf()));
                continue;
            }
            let Some(score) = cjk_font_score(entry.path()) else {
                continue;
            };
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, entry.path().to_path_buf()));
            }
        }
    }
    let found = best.map(|(_, p)| p).or_else(fallback);
    if let Some(memo) = memo {
        let remember = FontMemo {
            version: FONT_MEMO_VERSION,
            font: found.clone(),
            dirs,
        };
        // Written whole: a reader never sees half a list of folders.
        if let Ok(bytes) = serde_json::to_vec(&remember) {
            let _ = crate::interrupt::write_whole(memo, &bytes);
        }
    }
    found
}

/// Preference for a font file by its name; None if it does not look like a CJK font.
pub(super) fn cjk_font_score(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let ext_ok = [".ttc", ".otc", ".otf", ".ttf"]
        .iter()
        .any(|e| name.ends_with(e));
    if !ext_ok {
        return None;
    }
    let family = if name.starts_with("noto") && name.contains("cjk") {
        40
    } else if name.starts_with("sourcehan") || name.starts_with("source-han") {
        35
    } else if name.starts_with("wqy") {
        20
    } else {
        return None;
    };
    let serif = if name.contains("serif") { 4 } else { 0 };
    let weight = if name.contains("-bold.") {
        3
    } else if name.contains("-regular.") {
        2
    } else if name.contains("medium") || name.contains("semibold") {
        1
    } else {
        0
    };
    // A collection carries every regional face; a single-region file may be the wrong one.
    let collection = if name.ends_with(".ttc") || name.ends_with(".otc") {
        1
    } else {
        0
    };
    Some(family * 100 + serif * 10 + weight * 2 + collection)
}

pub(super) fn fc_match_cjk() -> Option<PathBuf> {
    let out = std::process::Command::new("fc-match")
        .args(["-f", "%{file}", ":lang=zh-cn"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    // fc-match always answers something; only take it if it can set Chinese.
    let bytes = super::super::FontFile::open(&path).ok()?;
    face_count(&bytes).ok()?;
    let face = ttf_parser::Face::parse(&bytes, 0).ok()?;
    face.glyph_index('中').map(|_| path)
}
