//! EPUBCheck.
