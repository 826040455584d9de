//! The configurations OpenCC 1.4.2 ships (`data/config/*.json`, transcribed) and the embedded
//! dictionary files they name, read as (key, candidates) entries.

/// A dictionary as a configuration names it.
#[derive(Debug)]
pub(super) enum Dict {
    /// One embedded file, by OpenCC's name for it.
    File(&'static str),
    /// The longest match of any member.
    Union(&'static [Dict]),
    /// The match of the first member that has one.
    First(&'static [Dict]),
}

use Dict::{File, First, Union};

/// One configuration: its segmentation dictionary and its conversion steps.
#[derive(Debug)]
pub(super) struct Spec {
    pub(super) name: &'static str,
    pub(super) segmentation: Option<Dict>,
    pub(super) chain: &'static [Dict],
}

/// Every configuration normalises first with this.
pub(super) const NORMALISE: Dict = File("CJK_Compatibility_Ideographs");

pub(super) const ST_PHRASES: Dict = Union(&[
    File("STPhrases"),
    File("STPhrases_GeneratedFromRegionalPhrases"),
]);
pub(super) const S2T: Dict = First(&[ST_PHRASES, File("STCharacters")]);
pub(super) const T2S: Dict = First(&[
    File("TSPhrases"),
    File("TSCharactersExt"),
    File("TSCharacters"),
]);
pub(super) const TW: Dict = First(&[File("TWVariantsPhrases"), File("TWVariants")]);
pub(super) const TW_REV: Dict = First(&[File("TWVariantsRevPhrases"), File("TWVariantsRev")]);
pub(super) const HK: Dict = First(&[File("HKVariantsPhrases"), File("HKVariants")]);
pub(super) const HK_REV: Dict = First(&[File("HKVariantsRevPhrases"), File("HKVariantsRev")]);

/// OpenCC 1.4.2's configurations, as its `.json` files say (only those `convert` offers).
pub(super) const SPECS: [Spec; 14] = [
    Spec {
        name: "s2t",
        segmentation: None,
        chain: &[S2T],
    },
    Spec {
        name: "t2s",
        segmentation: None,
        chain: &[T2S],
    },
    Spec {
        name: "s2tw",
        segmentation: Some(ST_PHRASES),
        chain: &[S2T, TW],
    },
    Spec {
        name: "tw2s",
        segmentation: Some(File("TSPhrases")),
        chain: &[TW_REV, T2S],
    },
    Spec {
        name: "s2twp",
        segmentation: Some(ST_PHRASES),
        chain: &[
            S2T,
            First(&[
                File("TWPhrases"),
                File("TWVariantsPhrases"),
                File("TWVariants"),
            ]),
        ],
    },
    Spec {
        name: "tw2sp",
        segmentation: Some(File("TSPhrases")),
        chain: &[
            First(&[
                File("TWPhrasesRev"),
                File("TWVariantsRevPhrases"),
                File("TWVariantsRev"),
            ]),
            T2S,
        ],
    },
    Spec {
        name: "s2hk",
        segmentation: Some(ST_PHRASES),
        chain: &[S2T, HK],
    },
    Spec {
        name: "hk2s",
        segmentation: Some(File("TSPhrases")),
        chain: &[HK_REV, T2S],
    },
    Spec {
        name: "t2tw",
        segmentation: None,
        chain: &[TW],
    },
    Spec {
        name: "tw2t",
        segmentation: None,
        chain: &[TW_REV],
    },
    Spec {
        name: "t2hk",
        segmentation: None,
        chain: &[HK],
    },
    Spec {
        name: "hk2t",
        segmentation: None,
        chain: &[HK_REV],
    },
    Spec {
        name: "t2jp",
        segmentation: None,
        chain: &[File("JPShinjitaiCharactersRev")],
    },
    Spec {
        name: "jp2t",
        segmentation: None,
        chain: &[First(&[
            File("JPShinjitaiPhrases"),
            File("JPShinjitaiCharacters"),
        ])],
    },
];

/// The text of an embedded dictionary file, its lines sorted by key (by `build.rs`).
pub(super) fn source(name: &str) -> &'static str {
    macro_rules! files {
        ($($file:literal),* $(,)?) => {
            match name {
                $($file => include_str!(concat!(env!("OUT_DIR"), "/opencc/", $file, ".txt")),)*
                _ => unreachable!("no OpenCC dictionary {name}"),
            }
        };
    }
    files!(
        "CJK_Compatibility_Ideographs",
        "HKVariants",
        "HKVariantsPhrases",
        "HKVariantsRev",
        "HKVariantsRevPhrases",
        "JPShinjitaiCharacters",
        "JPShinjitaiCharactersRev",
        "JPShinjitaiPhrases",
        "STCharacters",
        "STPhrases",
        "STPhrases_GeneratedFromRegionalPhrases",
        "TSCharacters",
        "TSCharactersExt",
        "TSPhrases",
        "TWPhrases",
        "TWPhrasesRev",
        "TWVariants",
        "TWVariantsPhrases",
        "TWVariantsRev",
        "TWVariantsRevPhrases",
    )
}

/// The entries of a dictionary file: each line's key and first candidate (a line is the key,
/// a tab, and candidates parted by spaces; a line without a tab is skipped).
pub(super) fn entries(text: &'static str) -> impl Iterator<Item = (&'static str, &'static str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        while !rest.is_empty() {
            let b = rest.as_bytes();
            let end = memchr::memchr(b'\n', b).unwrap_or(b.len());
            let (line, bytes) = (&rest[..end], &b[..end]);
            rest = rest.get(end + 1..).unwrap_or("");
            let Some(tab) = bytes.iter().position(|&c| c == b'\t') else {
                continue;
            };
            let candidates = &bytes[tab + 1..];
            let stop = candidates.iter().position(|&c| c == b' ' || c == b'\r');
            let stop = stop.map_or(end, |i| tab + 1 + i);
            return Some((&line[..tab], &line[tab + 1..stop]));
        }
        None
    })
}

/// The entries of `files` (each sorted by key) in the order of their keys; of a key in
/// several, the earliest file's first.
pub(super) fn merged(files: &[&'static str]) -> impl Iterator<Item = (&'static str, &'static str)> {
    let mut files: Vec<_> = files
        .iter()
        .map(|f| entries(source(f)).peekable())
        .collect();
    std::iter::from_fn(move || {
        let heads = files.iter_mut().enumerate();
        let (_, first) = heads.filter_map(|(i, f)| Some((f.peek()?.0, i))).min()?;
        files[first].next()
    })
}

/// The files of a dictionary, in order.
pub(super) fn files(dict: &Dict) -> Vec<&'static str> {
    match dict {
        File(name) => vec![name],
        Union(members) | First(members) => members.iter().flat_map(files).collect(),
    }
}

/// Whether `dict` is a file or a union of files only.
pub(super) fn files_only(dict: &Dict) -> bool {
    match dict {
        File(_) => true,
        Union(members) => members.iter().all(files_only),
        First(_) => false,
    }
}
