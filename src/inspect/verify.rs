//! Our own structural checks.
