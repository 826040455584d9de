//! Hostile paths: containment of every path key, output placement, globs, loading, watch.
