//! Well-formedness of every XML entry, and the summary of each (ids, references, `lang`,
//! viewport, `epub:type` in the head) that the later rules read instead of the documents:
//! entries are inflated a batch at a time and parsed in parallel.

use super::*;
use std::borrow::Cow;

use super::element::Summary;
use crate::inspect::container::Entry;

/// An entry read for the parse (or why it could not be), lent when it was inflated ahead.
type Lent<'h> = Result<Cow<'h, Entry>, InspectError>;

impl Verifier {
    /// Well-formedness of every XML entry but `skip` (the package document, when the package
    /// rules parsed it already), and the summaries the later rules need. Entries are inflated
    /// in order, a batch at a time, and each batch parsed in parallel: for a book of 100 000
    /// documents parsing is half the work.
    pub(super) fn summarize_xml<R: Read + Seek>(
        &mut self,
        container: &mut Container<R>,
        skip: Option<&str>,
    ) {
        // The listing is shared: the names are borrowed from it, each copied once, for its
        // summary's key.
        let entries = std::sync::Arc::clone(&container.entries);
        let names = (entries.iter().map(|e| e.name.as_str()))
            .filter(|n| !n.ends_with('/') && is_xml_name(n) && Some(*n) != skip);
        // What was inflated ahead is lent, not copied, to the parallel parse.
        let held = container.inflated.clone();
        let mut seen = HashSet::new();
        let mut budget = MAX_TOTAL_XML_BYTES;
        let mut batch = Vec::new();
        let mut batch_bytes = 0;
        for name in names {
            if !seen.insert(name) {
                continue;
            }
            let name = name.to_string();
            let cap = budget.min(MAX_XML_ENTRY_BYTES);
            let read = container.lend_held(held.as_deref(), &name, cap);
            if let Err(InspectError::EntryTooLarge { .. }) = read
                && cap < MAX_XML_ENTRY_BYTES
            {
                self.summarize_batch(batch);
                self.fatal = true;
                self.error(
                    Code::EpubZip,
                    name,
                    "not checked: the XML in this EPUB inflates to more than 1 GiB in all",
                );
                return;
            }
            let size = read.as_ref().map_or(0, |e| e.len());
            budget = budget.saturating_sub(size as u64);
            batch_bytes += size;
            batch.push((name, read));
            if batch.len() >= BATCH_ENTRIES || batch_bytes >= BATCH_BYTES {
                self.summarize_batch(std::mem::take(&mut batch));
                batch_bytes = 0;
            }
        }
        self.summarize_batch(batch);
    }

    /// Parses and summarises entries read by [`Verifier::summarize_xml`], in parallel; findings
    /// keep the entries' order.
    pub(super) fn summarize_batch(&mut self, batch: Vec<(String, Lent<'_>)>) {
        use rayon::prelude::*;
        let done: Vec<(String, Result<Summary, InspectError>)> = batch
            .into_par_iter()
            .map(|(name, read)| {
                let summary = read.and_then(|entry| {
                    let text = xml::decode_lent(&name, entry)?;
                    summarize(&name, &text)
                });
                (name, summary)
            })
            .collect();
        for (name, summary) in done {
            match summary {
                Ok(Summary { xml, ncx }) => {
                    if let Some(ncx) = ncx {
                        self.ncx_walked.push((name.clone(), ncx));
                    }
                    self.summaries.insert(name, xml);
                }
                Err(e) => self.failed(&e),
            }
        }
    }
}

/// What the stylesheets of the manifest load, as summaries with no ids. One unreadable is
/// skipped: the rules on its references cannot be applied, and nothing else depends on it.
pub(super) fn stylesheets<R: Read + Seek>(
    container: &mut Container<R>,
    package: &Package,
) -> HashMap<String, XmlSummary> {
    let mut out = HashMap::new();
    for item in package
        .manifest
        .iter()
        .filter(|m| m.media_type == "text/css")
    {
        let Ok(bytes) = container.read_capped(&item.href, MAX_XML_ENTRY_BYTES) else {
            continue;
        };
        let css = String::from_utf8_lossy(&bytes);
        let summary = XmlSummary {
            ids: HashSet::new(),
            links: references::css_references(&css),
            base: None,
            viewport: None,
            head_semantics: Vec::new(),
            html_root: None,
        };
        out.insert(item.href.clone(), summary);
    }
    out
}

/// The summary of one XML entry and whether it is well-formed: the lean scan when it can
/// vouch for the text, else roxmltree's tree (and its error, for a malformed one).
pub(super) fn summarize(entry: &str, text: &str) -> Result<Summary, InspectError> {
    match super::lean::summarize(entry, text) {
        Some(summary) => Ok(summary),
        None => xml::parse(entry, text).map(|doc| super::element::of_tree(entry, &doc)),
    }
}
