use super::dicts::{S2T, ST_PHRASES, T2S, TW};
use super::*;

fn convert(name: &str, text: &str) -> String {
    Converter::named(name).unwrap().convert(text)
}

#[test]
fn every_configuration_builds_and_leaves_ascii_alone() {
    for name in Converter::names() {
        assert_eq!(
            convert(name, "plain text, 123."),
            "plain text, 123.",
            "{name}"
        );
    }
    assert!(Converter::named("s2hkp").is_none());
}

#[test]
fn the_longest_key_wins_and_its_first_candidate_is_used() {
    // 干 alone is 幹, the first of STCharacters' candidates; STPhrases decides 干戈 and
    // 干净 as wholes.
    assert_eq!(convert("s2t", "干"), "幹");
    assert_eq!(convert("s2t", "干戈"), "干戈");
    assert_eq!(convert("s2t", "干净"), "乾淨");
    assert_eq!(convert("t2s", "開放中文轉換"), "开放中文转换");
}

#[test]
fn compatibility_ideographs_are_normalised_first() {
    // U+F900 豈 (compatibility) is U+8C48 豈 (unified) before any conversion.
    assert_eq!(convert("t2tw", "\u{F900}"), "\u{8C48}");
}

#[test]
fn an_ideographic_description_sequence_is_copied_whole() {
    // 钅 becomes 釒 in s2t, but inside ⿰钅只 it is a component and stays.
    assert_eq!(ids_len("⿰钅只只"), Some("⿰钅只".len()));
    assert_eq!(convert("s2t", "⿰钅只"), "⿰钅只");
    // A sequence cut short, or an operator on its own, is one character.
    assert_eq!(ids_len("⿰钅"), None);
    assert_eq!(convert("s2t", "⿰钅"), "⿰釒");
    assert_eq!(ids_len("只"), None);
    assert_eq!(unmatched_len("⿰"), "⿰".len());
    // At most 16 levels: 16 nested operators are too deep, so the first is copied alone
    // and the 15 after it make a sequence (OpenCC leaves 開 alone either way).
    assert_eq!(ids_len(&format!("{}開", "⿾".repeat(16))), None);
    assert_eq!(ids_len(&format!("{}開", "⿾".repeat(15))), Some(15 * 3 + 3));
    let deep = format!("{}開", "⿾".repeat(20));
    assert_eq!(convert("t2s", &deep), deep);
}

#[test]
fn segments_are_longest_matches_and_runs_between_them() {
    let m = Lookup::new(Matcher::of(&ST_PHRASES));
    let got = segments(&m, "ab干净cd");
    assert_eq!(got, [2, 8, 10]);
}

#[test]
fn one_pass_for_segmentation_and_first_step_gives_what_two_give() {
    // s2tw, s2hk and s2twp segment and make their first step in one pass; the same
    // configurations in two passes must give the same text and marks.
    let text = "燕颔虎须，声若巨雷。干净的⿰钅只与干戈，⿰钅\n后来头发干了。\u{F900}理发";
    for name in ["s2tw", "s2hk", "s2twp"] {
        let spec = SPECS.iter().find(|s| s.name == name).unwrap();
        let fast = Converter::of(spec);
        assert!(
            matches!(fast.segmentation, Segmentation::WithFirstStep),
            "{name}"
        );
        let segmentation = spec.segmentation.as_ref().map(Matcher::of).unwrap();
        let slow = Converter {
            segmentation: Segmentation::Apart(Lookup::new(segmentation)),
            ..Converter::of(spec)
        };
        let mut marks: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let mut slow_marks = marks.clone();
        let got = fast.convert_marking(text, &mut marks);
        assert_eq!(got, slow.convert_marking(text, &mut slow_marks), "{name}");
        assert_eq!(marks, slow_marks, "{name}");
    }
    // Not where the first step's rest has longer keys, or is not the segmentation's group.
    let tw2s = SPECS.iter().find(|s| s.name == "tw2s").unwrap();
    let apart = Converter::of(tw2s).segmentation;
    assert!(matches!(apart, Segmentation::Apart(_)));
}

#[test]
fn the_second_step_fused_into_the_first_gives_what_two_passes_give() {
    // s2tw composes TWVariants into s2t's candidates and walks the text once; where a name
    // that TWVariantsPhrases keeps whole may start (林國樑, whose 樑 alone would become 梁),
    // the text goes through two passes instead.
    let spec = SPECS.iter().find(|s| s.name == "s2tw").unwrap();
    let fast = Converter::of(spec);
    let fused = fast.fused.as_ref().expect("s2tw is fused");
    assert!(fused.convert("他着急了，为什么在里面", &mut []).is_some());
    assert!(fused.convert("他叫林國樑。", &mut []).is_none());
    assert_eq!(fast.convert("他叫林國樑，林国梁。"), "他叫林國樑，林國樑。");
    let slow = Converter {
        fused: None,
        ..Converter::of(spec)
    };
    let texts = [
        "他着急了，为什么在里面？燕颔虎须，⿰钅只与干净的衣裳。\u{F900}𫃗",
        "他叫林國樑，是張棟樑的朋友。张栋梁在纯喫茶喝茶：牛驥同皁，黄东梁。為爲着",
    ];
    for text in texts {
        let mut marks: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let mut slow_marks = marks.clone();
        let got = fast.convert_marking(text, &mut marks);
        assert_eq!(got, slow.convert_marking(text, &mut slow_marks), "{text}");
        assert_eq!(marks, slow_marks, "{text}");
    }
    // s2hk's second step has too many longer keys to watch for; s2twp's change lengths.
    for name in ["s2hk", "s2twp", "s2t"] {
        let spec = SPECS.iter().find(|s| s.name == name).unwrap();
        assert!(Converter::of(spec).fused.is_none(), "{name}");
    }
}

/// OpenCC's algorithm as plainly as it can be written: every position looked up in full, each
/// segment converted apart.
fn plainly(spec: &Spec, text: &str) -> String {
    fn step(m: &Matcher, text: &str) -> String {
        let (mut out, mut at) = (String::new(), 0);
        while at < text.len() {
            let len = match m.longest(text.as_bytes(), at, text.len()) {
                Some((len, value)) => {
                    out.push_str(value);
                    len
                }
                None => {
                    let len = unmatched_len(&text[at..]);
                    out.push_str(&text[at..at + len]);
                    len
                }
            };
            at += len;
        }
        out
    }
    let text = step(&Matcher::of(&NORMALISE), text);
    let mut cuts = vec![0];
    if let Some(dict) = &spec.segmentation {
        let m = Matcher::of(dict);
        let mut at = 0;
        while at < text.len() {
            match m.longest(text.as_bytes(), at, text.len()) {
                Some((len, _)) => {
                    cuts.extend([at, at + len]);
                    at += len;
                }
                None => at += unmatched_len(&text[at..]),
            }
        }
    }
    cuts.push(text.len());
    cuts.dedup();
    let chain: Vec<Matcher> = spec.chain.iter().map(Matcher::of).collect();
    let segment = |w: &[usize]| {
        chain
            .iter()
            .fold(text[w[0]..w[1]].to_string(), |t, m| step(m, &t))
    };
    cuts.windows(2).map(segment).collect()
}

#[test]
fn the_filters_skip_only_what_no_key_starts() {
    // Every 7th key of every dictionary, with its candidate, between characters no key
    // starts, beside ideographic description sequences, compatibility ideographs and
    // characters beyond U+FFFF: what every configuration makes of it must be what the plain
    // algorithm makes, key by key.
    let mut text = String::new();
    for (i, file) in SPECS
        .iter()
        .flat_map(|s| s.chain)
        .flat_map(files)
        .enumerate()
    {
        for line in source(file).lines().skip(i % 7).step_by(7) {
            let (key, value) = line.split_once('\t').unwrap();
            text.push_str(key);
            text.push_str(["", "a", "，", "⿰钅只", "\u{F900}", "𠀀"][text.len() % 6]);
            text.push_str(value.split(' ').next().unwrap());
        }
    }
    text.push_str("⿰钅");
    for spec in &SPECS {
        let got = Converter::of(spec).convert(&text);
        assert!(got == plainly(spec, &text), "{}", spec.name);
    }
}

#[test]
fn every_key_is_found_whole_with_the_earliest_files_candidate() {
    // The tables are built from the keys in order (build.rs sorts each file), sharing the
    // nodes of each key with the one before it: every key must lead to its own candidate.
    let groups: [&[&str]; 3] = [
        &["STPhrases", "STPhrases_GeneratedFromRegionalPhrases"],
        &["TSPhrases", "TSCharacters"],
        &["TWPhrases", "TWVariantsPhrases", "TWVariants"],
    ];
    for files in groups {
        let table = Table::of(files);
        let mut want = HashMap::new();
        for file in files {
            for (key, value) in entries(source(file)) {
                want.entry(key).or_insert(value);
            }
        }
        for (key, value) in want {
            let found = table.longest(key.as_bytes(), 0, key.len());
            assert_eq!(found, Some((key.len(), value)), "{key} in {files:?}");
        }
    }
}

#[test]
fn a_first_group_stops_at_the_first_member_with_a_match_a_union_takes_the_longest() {
    let first = Matcher::of(&S2T);
    // STPhrases has no key at 干 followed by x, so STCharacters answers for 干 alone.
    let longest = |m: &Matcher, text: &str| m.longest(text.as_bytes(), 0, text.len());
    assert_eq!(longest(&first, "干x").map(|(n, _)| n), Some("干".len()));
    let union = Matcher::of(&ST_PHRASES);
    assert_eq!(longest(&union, "干净x").map(|(n, _)| n), Some("干净".len()));
}

/// For each configuration, text where the `ferrous-opencc` crate we used before differed from
/// OpenCC 1.4.2 (in 三国演义, 水浒传, the sample book or the dictionaries' own keys), with
/// OpenCC 1.4.2's output (the PyPI package's).
const AGAINST_THE_OLD_CRATE: [(&str, &str, &str); 28] = [
    ("s2t", "都不敢想象。", "都不敢想像。"),
    ("s2t", "宜。昔呂后因握重", "宜。昔呂後因握重"),
    ("t2s", "騎二千，逕取東北", "骑二千，径取东北"),
    ("t2s", "鞍下馬，逕入館驛", "鞍下马，径入馆驿"),
    ("s2tw", "很难想象，就算", "很難想像，就算"),
    ("s2tw", "青蛇，從梁上飛將", "青蛇，從梁上飛將"),
    ("tw2s", "知道说什么是好。", "知道说什么是好。"),
    ("tw2s", "伤不管多么惨重，", "伤不管多么惨重，"),
    ("s2twp", "都不敢想象。", "都不敢想像。"),
    ("s2twp", "青蛇，從梁上飛將", "青蛇，從梁上飛將"),
    ("tw2sp", "不会有什么汉人在", "不会有什么汉人在"),
    ("tw2sp", "伤不管多么惨重，", "伤不管多么惨重，"),
    ("s2hk", "很难想象，就算", "很難想像，就算"),
    ("s2hk", "宜。昔呂后因握重", "宜。昔呂後因握重"),
    ("hk2s", "騎二千，逕取東北", "骑二千，径取东北"),
    ("hk2s", "夫劉陶，逕到帝前", "夫刘陶，径到帝前"),
    ("t2tw", "樑", "梁"),
    ("t2tw", "純喫茶", "純喫茶"),
    ("tw2t", "知道说什么是好。", "知道说什麼是好。"),
    ("tw2t", "伤不管多么惨重，", "伤不管多麼惨重，"),
    ("t2hk", "建羣街", "建群街"),
    ("t2hk", "啟思中學", "啓思中學"),
    ("hk2t", "，每军州才驻几百", "，每军州才驻几百"),
    ("hk2t", "败兵，这才是完颜", "败兵，这才是完颜"),
    ("t2jp", "人的尸体填满了，", "人的尸体塡满了，"),
    ("t2jp", "多高，价值反而是", "多高，价値反而是"),
    ("jp2t", "帐，根本没有人算", "帐，根本没有人算"),
    ("jp2t", "又硬，且没有直接", "又硬，且没有直接"),
];

#[test]
fn every_configuration_gives_what_opencc_1_4_2_gives_where_the_old_crate_did_not() {
    for (name, text, want) in AGAINST_THE_OLD_CRATE {
        assert_eq!(convert(name, text), want, "{name} of {text}");
    }
    let covered: Vec<&str> = AGAINST_THE_OLD_CRATE.iter().map(|r| r.0).collect();
    for name in Converter::names() {
        assert!(covered.contains(&name), "{name} has no case");
    }
}

#[test]
fn marks_follow_the_text_through_the_conversion() {
    let s2tw = Converter::named("s2tw").unwrap();
    // Between 虎 and 须 inside the key 虎须; before 声; at the end.
    let text = "燕颔虎须，声";
    let mut marks = [
        text.find('须').unwrap(),
        text.find('声').unwrap(),
        text.len(),
    ];
    let out = s2tw.convert_marking(text, &mut marks);
    assert_eq!(out, "燕頷虎鬚，聲");
    assert_eq!(
        marks,
        [out.find('鬚').unwrap(), out.find('聲').unwrap(), out.len()]
    );
}

#[test]
fn a_walk_that_writes_every_character_gives_what_one_that_copies_runs_gives() {
    // Phrases, single characters (䑽 and 鰊 become characters from U+10000, longer in
    // UTF-8), unchanged ones, a description sequence, a character from U+10000, ASCII and a
    // line break; marks at every character.
    let texts = [
        (
            S2T,
            "䑽燕颔虎须，声若巨雷。干净的⿰钅只与干戈，abc\n后来头发干了。𫃗理发",
        ),
        (T2S, "鰊乾淨的頭髮，後來⿰釒只與干戈。臺灣\n𫃗"),
    ];
    for &(ref dict, text) in &texts {
        let mut lookup = Lookup::new(Matcher::of(dict));
        assert!(lookup.writes_all(text));
        let walk = |lookup: &Lookup| {
            let mut marks: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            let mut out = String::new();
            step(lookup, text, &mut out, &mut [], &mut marks);
            (out, marks)
        };
        let dense = walk(&lookup);
        assert_ne!(dense.0, text);
        lookup.dense = false;
        assert_eq!(dense, walk(&lookup), "{text}");
    }
    assert!(!Lookup::new(Matcher::of(&TW)).dense);
    // A text in the other script is walked copying runs: t2s over simplified text leaves
    // most characters as they are.
    let t2s = Lookup::new(Matcher::of(&T2S));
    assert!(t2s.writes_all(texts[1].1));
    assert!(!t2s.writes_all("这个人说的话我们都不知道，他们也没有去过那里。"));
}
