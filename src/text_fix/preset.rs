//! The built-in cleanup presets (`[text] cleanup-preset`): rules for what downloads from
//! Chinese web-novel and e-book sites carry. Opt-in, run before the book's own rules, and
//! listed in the guide (`guide/src/cleaning.md`; keep the two in step).
//!
//! Every rule removes something no author wrote: a line (or a short fragment glued to a
//! paragraph) that names a site, a download, a copyright notice of the site, a page turn; the
//! garbage that broken encodings leave. A line longer than about 120 characters is a paragraph
//! and is never removed whole by a line rule (`check` reports what the line rules saw).

use std::ops::Range;

use super::rules::Scope;

/// The words of a line that points at a site (with an address on it), as a regex alternation:
/// one list for the address rule and the disguised-address rule.
macro_rules! site_words {
    () => {
        "请访问|请登陆|请登录|请到|请关注|请收藏|更新地址|欢迎访问|欢迎光临|访问网址|网址|首发|更新最快|最快更新|书库|书屋|小说网|文学网|中文网|书城|手机阅读|手机访问|手机用户"
    };
}

/// One preset rule: what it removes (for the dry run), the pattern, the replacement, scope,
/// the longest match (in characters) it removes, and strings of which every match holds one
/// (none: not known), so that a text without any of them is not searched with the pattern.
pub(super) type PresetRule = (
    &'static str,
    &'static str,
    &'static str,
    Scope,
    Option<usize>,
    &'static [&'static str],
);

/// The longest line a line rule removes: longer ones are paragraphs.
const LINE: Option<usize> = Some(120);

/// The rules of the `web-novel` preset, in the order they run.
pub(super) const WEB_NOVEL: [PresetRule; 20] = [
    (
        // First: a paragraph with a site glued to its end must lose the site, not be taken
        // for a line about a site by the next rule.
        "a site's name and address glued to a paragraph (天涯在线书库《www.tianyabook.com》)",
        r"[^\s。！？”」…]*?(?:书库|书屋|小说网|文学网|中文网|书城)[ \t]*[《〈(（【\[][ \t]*(?i:https?://)?(?i:www)\.[A-Za-z0-9.-]+[ \t]*[》〉)）】\]]",
        "",
        Scope::Text,
        Some(40),
        // A web address: an ASCII dot or colon, as for the two address rules below.
        &[".", ":"],
    ),
    (
        "a web address in brackets, with the site's words beside it: (www.zhuaji.org), \
         【《TXT论坛》www.txtbbs.com , 欢迎您来TXTBBS推荐好书!】",
        r"[(（\[【［〔][^()（）\[\]【】［］〔〕\n]{0,30}?(?i:https?://|www\.)[A-Za-z0-9.-]+[^()（）\[\]【】［］〔〕\n]{0,30}[)）\]】］〕]",
        "",
        Scope::Both,
        Some(80),
        &["."],
    ),
    (
        "a site's advert: a line holding two web addresses, or opening with the site's name \
         and address (TXT小说天堂  http://www.xiaoshuotxt.net，最有文艺气息的文学网站…)",
        r"^(?:.*?(?i:https?://|www\.)[A-Za-z0-9./_%?=&-]*[^A-Za-z0-9./_%?=&-].*?(?i:https?://|www\.).*|[ \t\x{3000}]*[^\s“”「」\x22]{0,12}[ \t\x{3000}]+(?i:https?://)\S+.*(?:网站|下载|阅读).*)$",
        "",
        Scope::Text,
        Some(300),
        &[".", ":"],
    ),
    (
        "site notices: download adverts, the site's copyright notice, delete-after-24-hours",
        r"^.*?(?:版权声明|本站所有|网友提供|仅供.*?(?:研究|学习|交流|预览|参考|试读)|不得用作商业用途|购买正版|版权(?:归|为).*所有|侵犯了?您的版权|将立即删除|小时内删除|本书来自|用户上传|(?:TXT|txt|电子书|小说).*下载).*$",
        "",
        Scope::Text,
        LINE,
        &[
            "版权",
            "本站所有",
            "网友提供",
            "仅供",
            "不得用作商业用途",
            "购买正版",
            "将立即删除",
            "小时内删除",
            "本书来自",
            "用户上传",
            "下载",
        ],
    ),
    (
        "lines pointing at a site: a keyword and a web address",
        concat!(
            "^.*?(?:",
            site_words!(),
            r")(?i:.*?(?:https?://|www\.|[A-Za-z0-9-]+\.(?:com|net|org|cc|la|cn|info|me|tw|co)(?-u:\b))).*$"
        ),
        "",
        Scope::Text,
        LINE,
        &[".", ":"],
    ),
    (
        "a pointer to a site glued to a paragraph's end (after the line rules, so that a short line
         pointing at a site goes whole): 详细信息请查阅:http://www.zhuaji.org/",
        r"(?:详细信息)?请(?:查阅|访问|登陆|登录|浏览)[:：]?[ \t]*(?i:https?://|www\.)[A-Za-z0-9./_%?=&-]+$",
        "",
        Scope::Text,
        Some(80),
        &[".", ":"],
    ),
    (
        "a lone web address on its own line, bare or framed (`*  http://www.speedy7.com/…  *`, \
         `Txt66.com`)",
        r"^[ \t\x{3000}《〈(（【\[☆★*#|]*(?:(?i:https?://|www\.)[^\s]+|(?i:[a-z0-9-]*[a-z][a-z0-9-]*\.)+(?i:com|net|org|cn|cc|la|info|me|tw|co)/?)[ \t\x{3000}》〉)）】\]☆★*#|]*$",
        "",
        Scope::Text,
        Some(200),
        &[".", ":"],
    ),
    (
        "a line framed by stars that marks where the site's text starts or ends, or names \
         a site: ☆☆☆正文结束[75txt.com];更多章节请查看尾部网址☆☆☆, ☆早安电子书☆",
        r"^[ \t\x{3000}]*[☆★]+[^\n☆★]{0,60}?(?:正文|内容|网址|电子书|书网|书屋|小说网|论坛|(?i:https?://|www\.|[a-z0-9-]+\.(?:com|net|org|cn)))[^\n]{0,60}?[☆★]+[ \t\x{3000}]*$",
        "",
        Scope::Text,
        Some(140),
        &["☆", "★"],
    ),
    (
        "a short line of a site's name and what it offers: 喜书网免费小说在线阅读",
        r"^[ \t\x{3000}]*[^\s，。！？“”「」]{1,8}?(?:书网|小说网|文学网|中文网|书屋|书库|书城)(?:免费|最新|全本|手机)*(?:小说|电子书|txt|TXT)?(?:在线阅读|阅读|下载)[ \t\x{3000}]*$",
        "",
        Scope::Text,
        Some(30),
        &["书网", "小说网", "文学网", "中文网", "书屋", "书库", "书城"],
    ),
    (
        "a short line naming an e-book site: 中国手机Txt电子书",
        r"^[ \t\x{3000}]*[^\s]{0,8}?(?i:txt)[^\s]{0,4}?(?:电子书|小说|书网|书屋|书库|论坛)[^\s]{0,8}[ \t\x{3000}]*$",
        "",
        Scope::Text,
        Some(40),
        &["txt", "TXT", "Txt", "tXT", "TxT", "TXt", "txT", "tXt"],
    ),
    (
        "reading-site prompts: remember the address, no pop-ups, latest chapters",
        r"^.*?(?:天才一秒记住|一秒记住|记住本站|请记住本书首发|首发网址|最新网址|无弹窗|笔趣阁|顶点小说|百度搜索|本站域名).*$",
        "",
        Scope::Text,
        LINE,
        &[
            "一秒记住",
            "记住本站",
            "记住本书首发",
            "首发网址",
            "最新网址",
            "无弹窗",
            "笔趣阁",
            "顶点小说",
            "百度搜索",
            "本站域名",
        ],
    ),
    (
        "page turns: 本章未完，请点击下一页继续阅读, (本章完)",
        r"^.*?(?:本章未完.*|[（(【\[]?本章完[)）】\]]?|请?点击下一页继续阅读.*)$",
        "",
        Scope::Text,
        Some(60),
        &["本章未完", "本章完", "点击下一页继续阅读"],
    ),
    (
        "content markers: ------章节内容开始-------, 用户上传之内容结束, ☆☆☆仙逆最新50章正文开始☆☆☆",
        r"^[ \t\x{3000}\-=—_*☆★]*[^\s☆★]{0,12}?(?:章节内容开始|正文开始|内容开始|用户上传之内容(?:开始|结束))[ \t\x{3000}\-=—_*☆★]*$",
        "",
        Scope::Text,
        Some(60),
        &["内容开始", "正文开始", "用户上传之内容"],
    ),
    (
        "update stamps: 更新时间:2007-11-16 7:55:51 本章字数:4804",
        r"^.*?(?:(?:更新|发布|发表)时间[ \t]*[:：]?[ \t]*\d{4}[-/年.]\d{1,2}.*|本章字数[ \t]*[:：][ \t]*\d+.*)$",
        "",
        Scope::Text,
        Some(80),
        &["时间", "本章字数"],
    ),
    (
        "two separator lines with nothing left between them (around a removed notice)",
        r"^[ \t]*[-=_*]{8,}[ \t]*\n(?:[ \t]*\n)*[ \t]*[-=_*]{8,}[ \t]*$",
        "",
        Scope::Text,
        None,
        &["-", "=", "_", "*"],
    ),
    (
        "mojibake: 锟斤拷 (a character lost on the way) becomes □",
        r"(?:锟斤拷)+",
        "□",
        Scope::Both,
        None,
        &["锟斤拷"],
    ),
    (
        "uninitialised memory shown as text: 烫烫烫, 屯屯屯",
        r"烫{3,}|屯{3,}",
        "",
        Scope::Both,
        None,
        &["烫烫烫", "屯屯屯"],
    ),
    (
        "U+FFFD and private-use characters (a character the download could not show) become □",
        r"[\x{FFFD}\x{E000}-\x{F8FF}]",
        "□",
        Scope::Both,
        None,
        &[],
    ),
    (
        "zero-width spaces and stray byte-order marks",
        r"[\x{200B}\x{2060}\x{FEFF}]",
        "",
        Scope::Both,
        None,
        &[],
    ),
    (
        "a site prefix before a chapter heading: 正文 第一回 … becomes 第一回 …",
        r"^[ \t\x{3000}]*正文[ \t\x{3000}]+(第)",
        "$1",
        Scope::Titles,
        None,
        &["正文"],
    ),
];

/// The rules of the `web-novel` preset written as code, run before [`WEB_NOVEL`]'s: what they
/// remove and their matcher.
pub(super) const WEB_NOVEL_CODE: [(&str, CodeMatcher); 1] = [(
    "web addresses and site names in disguise (ｗωｗ奇Qisuu書com网, 𝒊𝒏𝙣𝒓𝙚𝒂𝒅.𝙘𝒐𝙢, \
     [万卷书2酷WWW．2009w．COM], ！小＠说＃txt＄天＾堂＆; any case and width), and the short \
     lines that hold one",
    disguised_addresses,
)];

/// The junk of [`super::disguise`] in `text` removed.
fn disguised_addresses(text: &str) -> Vec<(Range<usize>, String)> {
    let words = site_words();
    let found = super::disguise::find_with(text, &words);
    found.into_iter().map(|r| (r, String::new())).collect()
}

/// The words of a line that points at a site, one by one.
fn site_words() -> Vec<&'static str> {
    site_words!().split('|').collect()
}

/// The names of the presets, for messages.
pub(super) const NAMES: [&str; 1] = ["web-novel"];

/// The rules of the preset `name`.
pub(super) fn rules(name: &str) -> Option<&'static [PresetRule]> {
    match name {
        "web-novel" => Some(&WEB_NOVEL),
        _ => None,
    }
}

/// The rules of the preset `name` written as code (run before its others).
pub(super) fn code_rules(name: &str) -> &'static [(&'static str, CodeMatcher)] {
    match name {
        "web-novel" => &WEB_NOVEL_CODE,
        _ => &[],
    }
}

use super::rules::Finder as CodeMatcher;
