//! Hostile and unlucky projects (issue: nothing gets out, nothing hangs): each test pins one
//! hole a project from a stranger could open, and fails if it opens again. A build must end in
//! a valid EPUB or a clear error naming the file: never a panic, an abort, a hang, unbounded
//! memory, or a read or write outside the project folder.

#[path = "../common/mod.rs"]
mod common;

mod markup;
mod media;
mod paths;
