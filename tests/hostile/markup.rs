//! Hostile markup and EPUBs read back: nesting, ids, huge manifests, EPUBCheck runs.
