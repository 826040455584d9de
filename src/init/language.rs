//! The language of a book guessed from its text: Japanese, Korean, simplified or traditional
//! Chinese by the characters only one of them uses, else English.

/// [`SIMPLIFIED_ONLY`] and [`TRADITIONAL_ONLY`] as sets, made once: searching the strings for
/// every Han character of the sample cost more than the rest of reading a download.
pub(super) fn variant_sets() -> &'static (rustc_hash::FxHashSet<char>, rustc_hash::FxHashSet<char>)
{
    static SETS: std::sync::OnceLock<(rustc_hash::FxHashSet<char>, rustc_hash::FxHashSet<char>)> =
        std::sync::OnceLock::new();
    SETS.get_or_init(|| {
        (
            SIMPLIFIED_ONLY.chars().collect(),
            TRADITIONAL_ONLY.chars().collect(),
        )
    })
}

/// A BCP 47 tag guessed from the text: `ja` when there is kana, `ko` for hangul, `zh-CN` or
/// `zh-TW` for Chinese (by characters that exist only in simplified or in traditional script),
/// else `en`.
pub fn guess_language(text: &str) -> &'static str {
    let (mut han, mut kana, mut hangul, mut latin) = (0usize, 0usize, 0usize, 0usize);
    let (mut simplified, mut traditional) = (0usize, 0usize);
    for c in text.chars() {
        match c as u32 {
            0x3040..=0x30FF | 0x31F0..=0x31FF => kana += 1,
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => hangul += 1,
            0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => {
                han += 1;
                let (simplified_only, traditional_only) = variant_sets();
                if simplified_only.contains(&c) {
                    simplified += 1;
                } else if traditional_only.contains(&c) {
                    traditional += 1;
                }
            }
            _ if c.is_alphabetic() => latin += 1,
            _ => {}
        }
    }
    let east_asian = han + kana + hangul;
    // Latin words are counted per letter, CJK per character (about one word each): weigh the
    // letters down so a CJK text quoting some English stays CJK.
    if east_asian == 0 || east_asian * 4 < latin / 2 {
        return "en";
    }
    if hangul > han && hangul >= kana {
        "ko"
    } else if kana * 20 >= east_asian {
        "ja"
    } else if traditional > simplified {
        "zh-TW"
    } else {
        "zh-CN"
    }
}

/// Common characters written only in simplified Chinese.
pub(super) const SIMPLIFIED_ONLY: &str = "这们说时来国会为对发后还过经与东马军长门见问间让从书开关头话样现实学无电进车给语听将战阵气师岁边远处条认识该这里么个们爷丝两严丧临为乐买乱争于亏云亚产亲亿仅从仑仓仪们价众优伙会伞伟传伤伦伪体余佣侠侣侥侦侧侨侩侪侬俣俦俨俩俪俭债倾偬偻偾偿傥傧储傩儿兑兖党兰关兴兹养兽冁内冈册写军农冢冯冲决况冻净凄凉凌减凑凛几凤凫凭凯击凿刍划刘则刚创删别刬刭刽刿剀剂剐剑剥剧劝办务劢动励劲劳势勋勐勚匀匦匮区医华协单卖卢卤卧卫却卺厂厅历厉压厌厍厕厢厣厦厨厩厮县参";

/// Common characters written only in traditional Chinese.
pub(super) const TRADITIONAL_ONLY: &str = "這們說時來國會為對發後還過經與東馬軍長門見問間讓從書開關頭話樣現實學無電進車給語聽將戰陣氣師歲邊遠處條認識該裏麼個爺絲兩嚴喪臨樂買亂爭於虧雲亞產親億僅崙倉儀價眾優夥傘偉傳傷倫偽體餘傭俠侶僥偵側僑儈儕儂儔儼倆儷儉債傾傯僂僨償儻儐儲儺兒兌兗黨蘭興茲養獸囅內岡冊寫農塚馮衝決況凍淨淒涼淩減湊凜幾鳳鳧憑凱擊鑿芻劃劉則剛創刪別剗剄劊劌剴劑剮劍剝劇勸辦務勱動勵勁勞勢勳勩勻匭匱區醫華協單賣盧鹵臥衛卻巹廠廳曆厲壓厭厙廁廂厴廈廚廄廝縣參";
