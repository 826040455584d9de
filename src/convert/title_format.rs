//! `[layout] title-format`: chapter titles numbered again in reading order.
//!
//! Downloaded novels number their chapters unevenly (`第十二章`, `第13章`, `012`, a chapter
//! counted twice, one missing); a format such as `第{n}章 {title}` gives every chapter the
//! number of its place in the book. It runs once the whole book is assembled (a chapter's
//! number depends on every chapter before it, and one file may hold many), on each chapter's
//! title, so that the table of contents, the navigation document, the NCX and the chapter's own
//! heading all say the same.
//!
//! `{title}` is the title without its old numbering (`第十二章 风起` gives `风起`,
//! `Chapter 3: Storm` gives `Storm`, `012 风起` gives `风起`: what the split module recognises
//! as a numbered chapter heading); a title without numbering is taken whole. An unnumbered
//! section (`序章`, `楔子`, `尾声`, `Prologue`) keeps its title and takes no number. `{n}` is
//! the number in Arabic digits, `{n:zh}` in Chinese numerals (`十二`, `一百零五`).

use crate::book::{Node, TitleFormat};

/// Renumbering is the converter's: it reads titles as `convert::split` does.
impl TitleFormat {
    /// Numbers the chapters of `contents` (parts' chapters included) in reading order.
    pub fn renumber(&self, contents: &mut [Node]) {
        let mut n = 0;
        for chapter in crate::book::chapters_mut(contents) {
            let title = chapter.title.as_str();
            let bare = match super::split::title_without_number(title) {
                Some(bare) => bare,
                None if super::split::is_unnumbered_section(title) => continue,
                None => title,
            };
            n += 1;
            let formatted = self.format(bare, n);
            if !formatted.is_empty() {
                chapter.title = formatted;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::{Chapter, Part};
    use crate::project::Layout;

    fn titles(nodes: &[Node]) -> Vec<String> {
        let mut nodes = nodes.to_vec();
        crate::book::chapters_mut(&mut nodes)
            .into_iter()
            .map(|c| c.title.clone())
            .collect()
    }

    fn chapter(title: &str) -> Node {
        Node::Chapter(Chapter::new(
            title.into(),
            "<p>x</p>".into(),
            &Layout::default(),
        ))
    }

    #[test]
    fn chapters_are_numbered_in_reading_order_without_their_old_numbers() {
        let f = TitleFormat::parse("第{n}章 {title}").unwrap();
        let mut book = vec![
            chapter("楔子"),
            chapter("第十二章 风起"),
            Node::Part(Part {
                title: "第一卷 潜龙".into(),
                intro: String::new(),
                children: vec![chapter("第13章：云涌"), chapter("第十三章")],
            }),
            chapter("015 归来"),
            chapter("风停"),
        ];
        f.renumber(&mut book);
        assert_eq!(
            titles(&book),
            [
                "楔子",
                "第1章 风起",
                "第2章 云涌",
                "第3章",
                "第4章 归来",
                "第5章 风停"
            ]
        );
        // The part's title is not a chapter's.
        assert!(matches!(&book[2], Node::Part(p) if p.title == "第一卷 潜龙"));
    }

    #[test]
    fn chinese_numerals_english_headings_and_braces() {
        let f = TitleFormat::parse("第{n:zh}回 {title}").unwrap();
        assert_eq!(f.format("风起", 12), "第十二回 风起");
        assert_eq!(f.format("风起", 105), "第一百零五回 风起");
        let f = TitleFormat::parse("{{{n}}} {title}").unwrap();
        let mut book = vec![chapter("Chapter 3: Storm"), chapter("Prologue")];
        f.renumber(&mut book);
        assert_eq!(titles(&book), ["{1} Storm", "Prologue"]);
    }

    /// A title that keeps the label before its heading (`上卷 第三回 风起`, as the split
    /// keeps it so that no letter is lost) is renumbered as the heading without the label.
    #[test]
    fn a_label_before_the_heading_goes_with_the_old_number() {
        let f = TitleFormat::parse("第{n:zh}回 {title}").unwrap();
        let mut book = vec![
            chapter("上卷 第三回 风起"),
            chapter("正文 第一回 宴桃园"),
            chapter("《红楼梦》 第五回 云涌"),
        ];
        f.renumber(&mut book);
        assert_eq!(
            titles(&book),
            ["第一回 风起", "第二回 宴桃园", "第三回 云涌"]
        );
    }

    #[test]
    fn a_bad_format_says_what_is_wrong() {
        let e = TitleFormat::parse("第{x}章").unwrap_err().to_string();
        assert!(e.contains("`{x}`"), "{e}");
        assert!(
            TitleFormat::parse("第{n章")
                .unwrap_err()
                .to_string()
                .contains("lone `{`")
        );
        assert!(
            TitleFormat::parse("第n}章")
                .unwrap_err()
                .to_string()
                .contains("lone `}`")
        );
        let none = TitleFormat::parse("第章").unwrap_err().to_string();
        assert!(none.contains("none of"), "{none}");
    }
}
