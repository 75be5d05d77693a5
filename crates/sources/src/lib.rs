//! Source text for prompts (pure, no I/O): bytes in, files out.
//!
//! * [`SourceReader`] is the port the insights engine reads source files
//!   through, by paths relative to the model's root; [`SourceFile`] is what it
//!   answers (text, missing, binary, or a rejected path with its reason).
//! * [`MemorySources`] is a path → text map (tests, the page's pasted files).
//! * [`Archive`] reads a zip, tar or tar.gz archive held in memory (the page's
//!   uploaded source archive), finds the folder inside it that corresponds to
//!   the model's root ([`Archive::locate_root`]) and then reads through it.
//!
//! Paths are `/`-separated and relative. A path that could escape the root
//! (`..`, absolute, a drive letter) is never looked up: it is answered
//! [`SourceFile::Rejected`] (by a reader) or reported as a skipped entry (by an
//! archive), never a panic.

pub mod archive;
pub mod memory;
pub mod path;

use std::sync::Arc;

pub use archive::{Archive, ArchiveError, ArchiveFormat, RootMatch, SkippedEntry};
pub use memory::MemorySources;

/// The answer of a [`SourceReader`] for one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceFile {
    /// The file's text (valid UTF-8 without NUL), shared, never copied per read.
    Text(Arc<str>),
    /// No file at that path.
    Missing,
    /// The file exists but is not text: not UTF-8, or it contains a NUL byte.
    Binary,
    /// The path was not looked up because it could escape the root; the string
    /// says why (for the plan's report).
    Rejected(String),
}

impl SourceFile {
    /// The text, if this is a text file.
    pub fn text(&self) -> Option<&Arc<str>> {
        match self {
            SourceFile::Text(t) => Some(t),
            _ => None,
        }
    }

    /// Classifies raw file bytes: text when valid UTF-8 without NUL, else binary.
    pub fn from_bytes(bytes: &[u8]) -> SourceFile {
        if bytes.contains(&0) {
            return SourceFile::Binary;
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => SourceFile::Text(Arc::from(s)),
            Err(_) => SourceFile::Binary,
        }
    }
}

/// The source-reading port: a file's content by its path relative to the
/// model's root. Implementations are pure lookups; the shell owns real I/O.
pub trait SourceReader {
    /// Reads one file. Never panics, whatever the path.
    fn read(&self, path: &str) -> SourceFile;
}

impl<T: SourceReader + ?Sized> SourceReader for &T {
    fn read(&self, path: &str) -> SourceFile {
        (**self).read(path)
    }
}

impl<T: SourceReader + ?Sized> SourceReader for Box<T> {
    fn read(&self, path: &str) -> SourceFile {
        (**self).read(path)
    }
}

impl<T: SourceReader + ?Sized> SourceReader for Arc<T> {
    fn read(&self, path: &str) -> SourceFile {
        (**self).read(path)
    }
}
