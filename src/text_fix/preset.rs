//! The built-in cleanup presets (`[text] cleanup-preset`): rules for what downloads from
//! Chinese web-novel and e-book sites carry. Opt-in, run before the book's own rules, and
//! listed in the README (keep the two in step).
//!
//! Every rule removes something no author wrote: a line (or a short fragment glued to a
//! paragraph) that names a site, a download, a copyright notice of the site, a page turn; the
//! garbage that broken encodings leave. A line longer than about 120 characters is a paragraph
//! and is never removed whole by a line rule (`check` reports what the line rules saw).

use super::rules::Scope;

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
pub(super) const WEB_NOVEL: [PresetRule; 14] = [
    (
        // First: a paragraph with a site glued to its end must lose the site, not be taken
        // for a line about a site by the next rule.
        "a site's name and address glued to a paragraph (天涯在线书库《www.tianyabook.com》)",
        r"[^\s。！？”」…]*?(?:书库|书屋|小说网|文学网|中文网|书城)[ \t]*[《〈(（【\[][ \t]*(?:https?://)?www\.[A-Za-z0-9.-]+[ \t]*[》〉)）】\]]",
        "",
        Scope::Text,
        Some(40),
        // A web address: an ASCII dot or colon, as for the two address rules below.
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
        r"^.*?(?:请访问|请登陆|请登录|请收藏|欢迎访问|欢迎光临|访问网址|网址|首发|更新最快|最快更新|书库|书屋|小说网|文学网|中文网|书城|手机阅读|手机访问|手机用户).*?(?:https?://|www\.|[A-Za-z0-9-]+\.(?:com|net|org|cc|la|cn|info|me|tw|co)(?-u:\b)).*$",
        "",
        Scope::Text,
        LINE,
        &[".", ":"],
    ),
    (
        "a lone web address on its own line",
        r"^[ \t\x{3000}《〈(（【\[]*(?:https?://|www\.)[^\s]+[ \t\x{3000}》〉)）】\]]*$",
        "",
        Scope::Text,
        Some(200),
        &[".", ":"],
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
        "content markers: ------章节内容开始-------, 用户上传之内容结束",
        r"^[ \t\x{3000}\-=—_*]*(?:章节内容开始|正文开始|内容开始|用户上传之内容(?:开始|结束))[ \t\x{3000}\-=—_*]*$",
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

/// The names of the presets, for messages.
pub(super) const NAMES: [&str; 1] = ["web-novel"];

/// The rules of the preset `name`.
pub(super) fn rules(name: &str) -> Option<&'static [PresetRule]> {
    match name {
        "web-novel" => Some(&WEB_NOVEL),
        _ => None,
    }
}
