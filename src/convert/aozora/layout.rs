//! The layout of Aozora Bunko's lines: the blocks open (`［＃ここから２字下げ］` …
//! `［＃ここで字下げ終わり］`) and what a line says of itself, as the classes of its paragraph.
//! The stylesheet (`package::style`) gives the classes their CSS, for horizontal and vertical
//! writing alike.

use super::annotation::{Block, BlockKind, Note};
use super::inline::Line;

/// The deepest indent or foot distance given its own class; more is written as this.
pub const MAX_STEP: u32 = 10;

/// The blocks open at a line.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    open: Vec<Block>,
}

impl Blocks {
    /// Opens the blocks a line starts; returns the kinds of settings not supported.
    pub fn start(&mut self, line: &Line) -> Vec<String> {
        let mut unsupported = Vec::new();
        for note in &line.blocks {
            if let Note::Block(settings, skipped) = note {
                self.open.extend(settings.iter().copied());
                unsupported.extend(skipped.iter().cloned());
            }
        }
        unsupported
    }

    /// Closes the blocks a line ends; returns how many ends closed nothing.
    pub fn end(&mut self, line: &Line) -> usize {
        let mut stray = 0;
        for note in &line.blocks {
            if let Note::BlockEnd(kind) = note {
                let at = self.open.iter().rposition(|b| closes(*kind, b));
                match at {
                    Some(at) => {
                        self.open.remove(at);
                    }
                    None => stray += 1,
                }
            }
        }
        stray
    }

    /// The level of the heading block open, if one is.
    pub fn heading(&self) -> Option<usize> {
        self.open.iter().rev().find_map(|b| match b {
            Block::Heading(level) => Some(*level),
            _ => None,
        })
    }

    /// The classes of a paragraph of `line` (its text from unit `foot_part` on when the line
    /// is cut at a `地付き`): indent, foot, styles; `flush` when it did not open with a space.
    pub fn classes(&self, line: &Line, foot: Option<u32>, flush: bool) -> Vec<String> {
        let mut classes = Vec::new();
        let indent = line.indent.or_else(|| {
            self.open.iter().rev().find_map(|b| match b {
                Block::Indent(first, rest) => Some((*first, *rest)),
                _ => None,
            })
        });
        let foot = foot.or_else(|| {
            self.open.iter().rev().find_map(|b| match b {
                Block::Foot(n) => Some(*n),
                _ => None,
            })
        });
        let mut indent_set = false;
        if let Some((first, rest)) = indent.filter(|_| foot.is_none()) {
            if rest > 0 {
                classes.push(format!("jisage_{}", rest.min(MAX_STEP)));
            }
            if first < rest {
                classes.push(format!("hang_{}", (rest - first).min(MAX_STEP)));
                indent_set = true;
            } else if first > rest {
                classes.push(format!("ti_{}", (first - rest).min(MAX_STEP)));
                indent_set = true;
            }
        }
        if let Some(n) = foot {
            classes.push(format!("chitsuki_{}", n.min(MAX_STEP)));
        }
        if flush && !indent_set {
            classes.push("ao-flush".into());
        }
        for b in &self.open {
            if let Block::Style(class) = b {
                classes.push((*class).to_string());
            }
        }
        classes
    }
}

/// Whether an end of `kind` closes block `b`.
fn closes(kind: BlockKind, b: &Block) -> bool {
    match (kind, b) {
        (BlockKind::Indent, Block::Indent(..))
        | (BlockKind::Foot, Block::Foot(_))
        | (BlockKind::Heading, Block::Heading(_)) => true,
        (BlockKind::Style(a), Block::Style(b)) => a == *b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::aozora::inline::{Mode, Report, read};

    fn line(text: &str) -> Line {
        read(text, Mode::Aozora, 1, &mut Report::default())
    }

    #[test]
    fn blocks_indent_their_lines_until_their_end() {
        let mut blocks = Blocks::default();
        let start = line("［＃ここから改行天付き、折り返して２字下げ］");
        assert!(blocks.start(&start).is_empty());
        let text = line("さと　　船はもう");
        assert_eq!(blocks.classes(&text, None, true), ["jisage_2", "hang_2"]);
        assert_eq!(blocks.end(&line("［＃ここで字下げ終わり］")), 0);
        assert_eq!(blocks.classes(&text, None, false), Vec::<String>::new());
        assert_eq!(blocks.end(&line("［＃ここで字下げ終わり］")), 1);
    }

    #[test]
    fn a_line_indent_and_a_foot_win_over_the_block() {
        let mut blocks = Blocks::default();
        blocks.start(&line("［＃ここから３字下げ、太字］"));
        assert_eq!(
            blocks.classes(&line("［＃５字下げ］一"), None, true),
            ["jisage_5", "ao-flush", "futoji"]
        );
        assert_eq!(
            blocks.classes(&line("署名"), Some(0), true),
            ["chitsuki_0", "ao-flush", "futoji"]
        );
    }
}
