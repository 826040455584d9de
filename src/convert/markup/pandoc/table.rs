//! pandoc's simple, multiline and grid tables, which no CommonMark parser reads: found in the
//! source's lines and written as HTML table markup whose cells hold Markdown between blank
//! lines (CommonMark then parses each cell's text as Markdown, inline marks and all).
//!
//! Every scan is bounded: a table candidate looks at most [`MAX_ROWS_LINES`] lines ahead for
//! its end, so a document full of dashed lines costs a constant per line.

/// How far past its start a table's closing line is looked for.
const MAX_ROWS_LINES: usize = 2000;
/// More columns than this: not a table.
const MAX_COLUMNS: usize = 100;

/// A column's alignment, as pandoc reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Align {
    Default,
    Left,
    Right,
    Center,
}

/// A table read from the source.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Table {
    aligns: Vec<Align>,
    head: Option<Vec<String>>,
    rows: Vec<Vec<String>>,
    caption: Option<String>,
    /// Cells of a grid table's body spanning columns: (row, cell, columns).
    spans: Vec<(usize, usize, usize)>,
}

/// The table starting at `lines[i]` (which follows a blank line or opens the text), and how
/// many lines it takes (its caption included).
pub(super) fn at(lines: &[&str], i: usize) -> Option<(Table, usize)> {
    let line = *lines.get(i)?;
    let (mut table, used) = if line.starts_with('+') {
        grid(lines, i)?
    } else if let Some(runs) = dash_runs(line) {
        match runs.len() {
            1 if line.trim_end().len() >= 3
                && line.starts_with('-')
                && !is_front_matter(i, line) =>
            {
                multiline_with_head(lines, i)?
            }
            n if n >= 2 => headless(lines, i, &runs)?,
            _ => return None,
        }
    } else {
        simple_with_head(lines, i)?
    };
    let (caption, more) = caption_after(lines, i + used);
    table.caption = caption;
    Some((table, used + more))
}

/// A table whose caption is written above it (`Table: …`, or `: …` where no paragraph
/// comes before it to make it a definition), then a blank line: its markup, and how many
/// lines the caption and the table took.
pub(super) fn captioned_before(lines: &[&str], i: usize) -> Option<(String, usize)> {
    let first = lines[i];
    let text = first.strip_prefix("Table:").or_else(|| {
        let before = lines[..i].iter().rev().find(|l| !blank(l));
        let after_block = before.is_none_or(|l| l.starts_with('#'));
        first.strip_prefix(": ").filter(|_| after_block)
    })?;
    let mut caption = text.trim().to_string();
    let mut j = i + 1;
    while j < lines.len() && !blank(lines[j]) && j - i < MAX_ROWS_LINES {
        caption.push('\n');
        caption.push_str(lines[j].trim());
        j += 1;
    }
    if !lines.get(j).is_some_and(|l| blank(l)) {
        return None;
    }
    let (mut table, used) = at(lines, j + 1).filter(|(t, _)| t.caption.is_none())?;
    table.caption = Some(caption);
    Some((table.html(), j + 1 - i + used))
}

/// A table indented as the content of a list item or a definition is (its caption above or
/// below it too): read without the indentation, its markup written with it, so that it
/// stays inside. How many lines it took.
pub(super) fn indented(lines: &[&str], i: usize) -> Option<(String, usize)> {
    let line = lines[i];
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent == 0 || blank(line) {
        return None;
    }
    let prefix = &line[..indent];
    let dedented = &line[indent..];
    let next = lines.get(i + 1).and_then(|l| l.strip_prefix(prefix));
    // A cheap look first: most indented lines are prose.
    let may_open = dedented.starts_with(['+', '-'])
        || dedented.starts_with("Table:")
        || dedented.starts_with(": ")
        || next.and_then(dash_runs).is_some_and(|r| r.len() >= 2);
    if !may_open {
        return None;
    }
    let view: Vec<&str> = lines[i..]
        .iter()
        .take(2 * MAX_ROWS_LINES + 2)
        .map_while(|l| l.strip_prefix(prefix).or_else(|| blank(l).then_some("")))
        .collect();
    let (html, used) =
        captioned_before(&view, 0).or_else(|| at(&view, 0).map(|(t, n)| (t.html(), n)))?;
    let mut out = String::with_capacity(html.len() + html.len() / 8);
    for l in html.split_inclusive('\n') {
        if !l.trim().is_empty() {
            out.push_str(prefix);
        }
        out.push_str(l);
    }
    Some((out, used))
}

fn is_front_matter(i: usize, line: &str) -> bool {
    i == 0 && line.trim_end() == "---"
}

/// Runs of dashes in a line of only dashes and spaces, as char columns `[start, end)`.
fn dash_runs(line: &str) -> Option<Vec<(usize, usize)>> {
    let line = line.trim_end();
    if line.is_empty() || !line.chars().all(|c| c == '-' || c == ' ') {
        return None;
    }
    let mut runs = Vec::new();
    let mut start = None;
    for (col, c) in line.chars().enumerate() {
        match (c, start) {
            ('-', None) => start = Some(col),
            (' ', Some(s)) => {
                runs.push((s, col));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, line.chars().count()));
    }
    (runs.len() <= MAX_COLUMNS).then_some(runs)
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// `Header\n---- ----\nrows…` up to a blank line.
fn simple_with_head(lines: &[&str], i: usize) -> Option<(Table, usize)> {
    let head = lines[i];
    let runs = dash_runs(lines.get(i + 1)?).filter(|r| r.len() >= 2)?;
    if blank(head) || head.starts_with("    ") {
        return None;
    }
    let mut end = i + 2;
    while end < lines.len() && end - i < MAX_ROWS_LINES && !blank(lines[end]) {
        end += 1;
    }
    let mut body = &lines[i + 2..end];
    if body.last().is_some_and(|l| dash_runs(l).is_some()) {
        body = &body[..body.len() - 1];
    }
    // A header over a broken rule and no row is a setext heading's underline gone wrong
    // (`Foo\n--- -`: a paragraph and a rule, CommonMark example 88), not a table.
    if body.is_empty() {
        return None;
    }
    let aligns = aligns_from(&runs, head);
    let table = Table {
        aligns,
        head: Some(cells(&runs, &[head])),
        rows: body.iter().map(|l| cells(&runs, &[l])).collect(),
        caption: None,
        spans: Vec::new(),
    };
    Some((table, end - i))
}

/// `----` (full width), header lines, `--- ---`, rows separated by blank lines, `----`.
fn multiline_with_head(lines: &[&str], i: usize) -> Option<(Table, usize)> {
    let mut h = i + 1;
    while h < lines.len() && h - i <= 10 && dash_runs(lines[h]).is_none() {
        if blank(lines[h]) {
            return None;
        }
        h += 1;
    }
    let runs = dash_runs(lines.get(h)?).filter(|r| r.len() >= 2)?;
    if h == i + 1 {
        return None;
    }
    let close = closing_line(lines, h + 1)?;
    if dash_runs(lines[close])?.len() != 1 {
        return None;
    }
    let head_lines = &lines[i + 1..h];
    let table = Table {
        aligns: aligns_from(&runs, head_lines[0]),
        head: Some(cells(&runs, head_lines)),
        rows: row_groups(&lines[h + 1..close])
            .iter()
            .map(|g| cells(&runs, g))
            .collect(),
        caption: None,
        spans: Vec::new(),
    };
    Some((table, close + 1 - i))
}

/// A table opening with its columns' dashes: simple (a row a line) or multiline (rows
/// separated by blank lines), closed by a dashed line.
fn headless(lines: &[&str], i: usize, runs: &[(usize, usize)]) -> Option<(Table, usize)> {
    let close = closing_line(lines, i + 1)?;
    let body = &lines[i + 1..close];
    if body.iter().all(|l| blank(l)) {
        return None;
    }
    let multiline = body.iter().any(|l| blank(l));
    let rows: Vec<Vec<String>> = match multiline {
        true => row_groups(body).iter().map(|g| cells(runs, g)).collect(),
        false => body.iter().map(|l| cells(runs, &[l])).collect(),
    };
    let first = body.iter().find(|l| !blank(l)).copied().unwrap_or("");
    let table = Table {
        aligns: aligns_from(runs, first),
        head: None,
        rows,
        caption: None,
        spans: Vec::new(),
    };
    Some((table, close + 1 - i))
}

/// The next dashed line from `from`, before two blank lines in a row; one followed by text
/// is not a table's end.
fn closing_line(lines: &[&str], from: usize) -> Option<usize> {
    let mut blanks = 0;
    for (j, line) in lines.iter().enumerate().skip(from).take(MAX_ROWS_LINES) {
        if blank(line) {
            blanks += 1;
            if blanks >= 2 {
                return None;
            }
            continue;
        }
        blanks = 0;
        if dash_runs(line).is_some() {
            let after = lines.get(j + 1).copied().unwrap_or("");
            return blank(after).then_some(j);
        }
    }
    None
}

/// Lines grouped at blank lines.
fn row_groups<'a>(lines: &[&'a str]) -> Vec<Vec<&'a str>> {
    lines
        .split(|l| blank(l))
        .filter(|g| !g.is_empty())
        .map(|g| g.to_vec())
        .collect()
}

/// Each column's text over `lines`: the characters under its dashes (and the gap before
/// them), lines joined.
fn cells(runs: &[(usize, usize)], lines: &[&str]) -> Vec<String> {
    let mut out = vec![String::new(); runs.len()];
    for line in lines {
        let chars: Vec<char> = line.chars().collect();
        for (k, cell) in out.iter_mut().enumerate() {
            let from = if k == 0 { 0 } else { runs[k].0 };
            let to = runs.get(k + 1).map_or(chars.len(), |r| r.0);
            let text: String = chars
                .get(from.min(chars.len())..to.min(chars.len()))
                .unwrap_or_default()
                .iter()
                .collect();
            let text = text.trim();
            if !text.is_empty() {
                if !cell.is_empty() {
                    cell.push('\n');
                }
                cell.push_str(text);
            }
        }
    }
    out
}

/// Alignments from where the header's (or first row's) text sits under each run of dashes.
fn aligns_from(runs: &[(usize, usize)], line: &str) -> Vec<Align> {
    let chars: Vec<char> = line.chars().collect();
    runs.iter()
        .map(|&(start, end)| {
            let inside = |c: usize| chars.get(c).is_some_and(|ch| !ch.is_whitespace());
            let left = inside(start) && (start == 0 || !inside(start - 1));
            let right = end >= 1 && inside(end - 1) && !inside(end);
            match (left, right) {
                (true, false) => Align::Left,
                (false, true) => Align::Right,
                (false, false) => Align::Center,
                (true, true) => Align::Default,
            }
        })
        .collect()
}

/// A grid table: `+---+---+` lines around rows of `| … | … |`, `+===+` under the header.
/// pandoc 3's spans are read so that no text is lost: a cell spanning columns (a bound
/// without its `|`) is one cell spanning them; a row span (a separator line broken by the
/// spanning cell) ends the row there, the cell's text staying in the first row.
fn grid(lines: &[&str], i: usize) -> Option<(Table, usize)> {
    let top = lines[i].trim_end();
    let bounds = grid_bounds(top)?;
    let mut aligns = grid_aligns(top, &bounds);
    let mut table = Table::default();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let end_row = |rows: &mut Vec<Vec<String>>, current: &mut Vec<&str>, t: &mut Table| {
        if !current.is_empty() {
            let (cells, spans) = grid_cells(&bounds, current);
            t.spans
                .extend(spans.into_iter().map(|(k, n)| (rows.len(), k, n)));
            rows.push(cells);
            current.clear();
        }
    };
    let mut j = i + 1;
    while j < lines.len() && j - i < MAX_ROWS_LINES {
        let line = lines[j].trim_end();
        if line.starts_with('+') && grid_bounds(line).is_some() {
            end_row(&mut rows, &mut current, &mut table);
            if line.contains('=') && table.head.is_none() && !rows.is_empty() {
                aligns = grid_aligns(line, &bounds);
                let head = rows.drain(..).fold(Vec::new(), merge_rows);
                table.spans.clear();
                table.head = Some(head);
            }
        } else if is_partial_separator(line) {
            end_row(&mut rows, &mut current, &mut table);
        } else if line.starts_with('|') {
            current.push(line);
        } else {
            break;
        }
        j += 1;
    }
    if !current.is_empty() || (rows.is_empty() && table.head.is_none()) {
        return None;
    }
    table.aligns = aligns;
    table.rows = rows;
    Some((table, j - i))
}

/// A separator line broken by a cell spanning rows: `+` or `|` at both ends, dashes in some
/// columns, spaces in the spanning ones.
fn is_partial_separator(line: &str) -> bool {
    line.len() >= 3
        && line.starts_with(['+', '|'])
        && line.ends_with(['+', '|'])
        && line.contains('+')
        && line.contains("--")
        && line
            .chars()
            .all(|c| matches!(c, '+' | '-' | '=' | ':' | '|' | ' '))
}

/// Several header rows of a grid table are one, their cells' lines joined.
fn merge_rows(mut acc: Vec<String>, row: Vec<String>) -> Vec<String> {
    if acc.is_empty() {
        return row;
    }
    let mut row = row.into_iter();
    for (a, r) in acc.iter_mut().zip(row.by_ref()) {
        if !r.is_empty() {
            a.push('\n');
            a.push_str(&r);
        }
    }
    // A row with more cells (the other spans columns) keeps them all.
    acc.extend(row);
    acc
}

/// The char columns of the `+`s of a grid table's separator line.
fn grid_bounds(line: &str) -> Option<Vec<usize>> {
    let ok = line.len() >= 3
        && line.starts_with('+')
        && line.ends_with('+')
        && line.chars().all(|c| matches!(c, '+' | '-' | '=' | ':'))
        && (line.contains('-') || line.contains('='));
    if !ok {
        return None;
    }
    let bounds: Vec<usize> = line
        .chars()
        .enumerate()
        .filter(|&(_, c)| c == '+')
        .map(|(col, _)| col)
        .collect();
    (bounds.len() >= 2 && bounds.len() <= MAX_COLUMNS + 1).then_some(bounds)
}

fn grid_aligns(line: &str, bounds: &[usize]) -> Vec<Align> {
    let chars: Vec<char> = line.chars().collect();
    bounds
        .windows(2)
        .map(|w| {
            let left = chars.get(w[0] + 1) == Some(&':');
            let right = chars.get(w[1].saturating_sub(1)) == Some(&':');
            match (left, right) {
                (true, true) => Align::Center,
                (true, false) => Align::Left,
                (false, true) => Align::Right,
                (false, false) => Align::Default,
            }
        })
        .collect()
}

/// The cells of one grid row: the text between the column bounds of each line, the lines
/// of a cell kept as lines (a cell holds blocks: lists, paragraphs), their common
/// indentation taken off. A bound that no line of the row marks with `|` is inside a cell
/// spanning columns: with the cells, (cell, columns) of each such span.
fn grid_cells(bounds: &[usize], lines: &[&str]) -> (Vec<String>, Vec<(usize, usize)>) {
    let rows: Vec<Vec<char>> = lines.iter().map(|l| l.chars().collect()).collect();
    let marked = |b: usize| {
        rows.iter()
            .all(|chars| matches!(chars.get(b), Some('|' | '+')))
    };
    let last = bounds.len() - 1;
    let kept: Vec<usize> = (0..bounds.len())
        .filter(|&k| k == 0 || k == last || marked(bounds[k]))
        .collect();
    let mut cells: Vec<Vec<String>> = vec![Vec::new(); kept.len() - 1];
    let mut spans = Vec::new();
    for (k, w) in kept.windows(2).enumerate() {
        if w[1] - w[0] > 1 {
            spans.push((k, w[1] - w[0]));
        }
        for chars in &rows {
            let from = (bounds[w[0]] + 1).min(chars.len());
            let to = bounds[w[1]].min(chars.len());
            let text: String = chars[from..to].iter().collect();
            cells[k].push(text.trim_end_matches([' ', '|']).to_string());
        }
    }
    (cells.into_iter().map(|c| dedent(&c)).collect(), spans)
}

fn dedent(lines: &[String]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let kept: Vec<&str> = lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect();
    kept.join("\n").trim_matches('\n').to_string()
}

/// `Table: …` or `: …` after one blank line: the caption, and how many lines it took.
fn caption_after(lines: &[&str], after: usize) -> (Option<String>, usize) {
    let (Some(gap), Some(first)) = (lines.get(after), lines.get(after + 1)) else {
        return (None, 0);
    };
    let text = first
        .strip_prefix("Table:")
        .or_else(|| first.strip_prefix(": "));
    let (true, Some(text)) = (blank(gap), text) else {
        return (None, 0);
    };
    let mut caption = text.trim().to_string();
    let mut j = after + 2;
    while j < lines.len() && !blank(lines[j]) && j - after < MAX_ROWS_LINES {
        caption.push('\n');
        caption.push_str(lines[j].trim());
        j += 1;
    }
    (Some(caption), j - after)
}

impl Table {
    /// The table as HTML block markup, each non-empty cell's Markdown between blank lines.
    pub fn html(&self) -> String {
        let mut s = String::from("\n<table>\n");
        if let Some(caption) = &self.caption {
            s.push_str(&format!("<caption>\n\n{caption}\n\n</caption>\n"));
        }
        if let Some(head) = &self.head {
            s.push_str("<thead>\n");
            self.row(&mut s, head, "th", &[]);
            s.push_str("</thead>\n");
        }
        s.push_str("<tbody>\n");
        // Spans come in the order of their rows.
        let mut spans = self.spans.iter().peekable();
        for (r, row) in self.rows.iter().enumerate() {
            let mut mine = Vec::new();
            while let Some(&(_, k, n)) = spans.next_if(|&&(at, _, _)| at == r) {
                mine.push((k, n));
            }
            self.row(&mut s, row, "td", &mine);
        }
        s.push_str("</tbody>\n</table>\n\n");
        s
    }

    /// One row; `spans` are (cell, columns) of its cells spanning several columns.
    fn row(&self, s: &mut String, cells: &[String], tag: &str, spans: &[(usize, usize)]) {
        s.push_str("<tr>\n");
        let mut column = 0;
        for (k, cell) in cells.iter().enumerate() {
            let span = spans
                .iter()
                .find(|&&(at, _)| at == k)
                .map_or(1, |&(_, n)| n);
            let align = match self.aligns.get(column) {
                Some(Align::Left) => " style=\"text-align: left\"",
                Some(Align::Right) => " style=\"text-align: right\"",
                Some(Align::Center) => " style=\"text-align: center\"",
                _ => "",
            };
            column += span;
            let open = match span {
                1 => format!("<{tag}{align}>"),
                n => format!("<{tag}{align} colspan=\"{n}\">"),
            };
            match cell.trim().is_empty() {
                true => s.push_str(&format!("{open}</{tag}>\n")),
                false => s.push_str(&format!("{open}\n\n{cell}\n\n</{tag}>\n")),
            }
        }
        s.push_str("</tr>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(src: &str) -> (Table, usize) {
        let lines: Vec<&str> = src.lines().collect();
        at(&lines, 0).expect("a table")
    }

    #[test]
    fn simple_table_with_header_and_caption() {
        let src = "  Right     Left     Center     Default\n-------     ------ ----------   -------\n     12     12        12            12\n    123     123       123          123\n\nTable: Demo.\n\nafter";
        let (t, used) = table(src);
        assert_eq!(used, 6);
        assert_eq!(
            t.aligns,
            [Align::Right, Align::Left, Align::Center, Align::Default]
        );
        assert_eq!(t.head.as_ref().unwrap()[3], "Default");
        assert_eq!(t.rows[1], ["123", "123", "123", "123"]);
        assert_eq!(t.caption.as_deref(), Some("Demo."));
    }

    #[test]
    fn multiline_table_joins_the_lines_of_a_cell() {
        let src = "----------------------\n Centered   Left\n  Header    Aligned\n----------- ----------\n   First    Example of\n            two lines.\n\n  Second    Another.\n----------------------\n";
        let (t, used) = table(src);
        assert_eq!(used, 9);
        assert_eq!(t.head.as_ref().unwrap()[0], "Centered\nHeader");
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[0][1], "Example of\ntwo lines.");
    }

    #[test]
    fn grid_table_keeps_blocks_in_cells() {
        let src = "+---------+----------------+\n| Fruit   | Advantages     |\n+=========+================+\n| Bananas | - wrapper      |\n|         | - bright color |\n+---------+----------------+\n";
        let (t, used) = table(src);
        assert_eq!(used, 6);
        assert_eq!(t.head.as_ref().unwrap()[1], "Advantages");
        assert_eq!(t.rows[0][1], "- wrapper\n- bright color");
    }

    #[test]
    fn a_rule_or_a_heading_underline_is_not_a_table() {
        let lines = ["---", "", "text"];
        assert!(at(&lines, 0).is_none());
        let lines = ["Title", "-----", "", "text"];
        assert!(at(&lines, 0).is_none());
        let lines = ["---", "title: x", "--- ---", "body"];
        assert!(at(&lines, 0).is_none());
        let lines = ["Foo", "--- -", ""];
        assert!(at(&lines, 0).is_none());
    }
}
