//! A book's title and author from the name of its one text file, the way download sites name
//! them: `《书名》作者：某某.txt`, `书名 作者：某某.txt`, `书名-某某.txt`.
//!
//! Also read: `《书名》` alone, `《书名》（精校版）作者:某某`, `书名_作者：某某`, `书名 by Name`,
//! `Title - Author` (a spaced dash). A trailing note in brackets (`（校对版全本）`, `[精校]`,
//! `【完结】`) is dropped from the author. Only `init` uses it, and only when the folder holds one
//! chapter file (else the names are chapters').

/// Markers that introduce the author.
const AUTHOR_MARKS: [&str; 6] = ["作者：", "作者:", "作者_", "作者 ", " by ", " BY "];

/// The title and, when the name gives one, the author in a file's stem.
pub fn title_and_author(stem: &str) -> Option<(String, Option<String>)> {
    let stem = stem.trim();
    if let Some(rest) = stem.strip_prefix('《')
        && let Some((title, after)) = rest.split_once('》')
    {
        let author = AUTHOR_MARKS
            .iter()
            .find_map(|m| after.split_once(m).map(|(_, a)| a))
            .and_then(clean_author);
        return clean_title(title).map(|t| (t, author));
    }
    if let Some((title, author)) = AUTHOR_MARKS.iter().find_map(|m| stem.split_once(m)) {
        let title = title.trim_end_matches(['_', '-', ' ', '　']);
        return clean_title(title).map(|t| (t, clean_author(author)));
    }
    // `书名-某某`: one dash between a title and a short name; `Title - Author` spaced.
    let (title, author) = stem
        .split_once(" - ")
        .or_else(|| {
            let cjk = stem.chars().any(crate::convert::text::is_cjk);
            (cjk && stem.matches('-').count() == 1)
                .then(|| stem.split_once('-'))
                .flatten()
        })
        .or_else(|| stem.split_once('—'))?;
    let author = clean_author(author).filter(|a| a.chars().count() <= 20)?;
    clean_title(title).map(|t| (t, Some(author)))
}

fn clean_title(t: &str) -> Option<String> {
    let t = t.trim();
    (!t.is_empty() && !t.chars().all(|c| c.is_ascii_digit())).then(|| t.to_string())
}

/// An author without a trailing note in brackets; None when nothing is left.
fn clean_author(a: &str) -> Option<String> {
    let mut a = a.trim();
    loop {
        let before = a;
        for (open, close) in [('（', '）'), ('(', ')'), ('【', '】'), ('[', ']')] {
            if a.ends_with(close)
                && let Some(i) = a.rfind(open)
            {
                a = a[..i].trim_end();
            }
        }
        if a == before {
            break;
        }
    }
    (!a.is_empty() && !a.chars().all(|c| c.is_ascii_digit())).then(|| a.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(s: &str) -> Option<(String, Option<String>)> {
        title_and_author(s)
    }

    fn pair(t: &str, a: &str) -> Option<(String, Option<String>)> {
        Some((t.to_string(), Some(a.to_string())))
    }

    #[test]
    fn the_shapes_download_sites_use() {
        assert_eq!(both("《青锋录》作者：林某"), pair("青锋录", "林某"));
        assert_eq!(
            both("《青锋录》（校对版全本）作者:林某"),
            pair("青锋录", "林某")
        );
        assert_eq!(both("《青锋录》作者：林某（精校）"), pair("青锋录", "林某"));
        assert_eq!(both("青锋录 作者：林某"), pair("青锋录", "林某"));
        assert_eq!(both("青锋录_作者：林某[完结]"), pair("青锋录", "林某"));
        assert_eq!(both("青锋录-林某"), pair("青锋录", "林某"));
        assert_eq!(
            both("Pride and Prejudice - Jane Austen"),
            pair("Pride and Prejudice", "Jane Austen")
        );
        assert_eq!(
            both("Moby Dick by Herman Melville"),
            pair("Moby Dick", "Herman Melville")
        );
        assert_eq!(both("《三国演义》"), Some(("三国演义".to_string(), None)));
    }

    #[test]
    fn names_that_say_nothing_of_an_author() {
        assert_eq!(both("三国演义"), None);
        assert_eq!(both("2701-0"), None);
        assert_eq!(both("pg1342"), None);
        assert_eq!(both("one-two-three"), None);
        assert_eq!(both("第一章-风起-上"), None);
    }
}
