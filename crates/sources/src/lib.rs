//! Source text for prompts (pure, no I/O): bytes in, files out.
//!
//! * [`SourceReader`] is the port the insights engine reads source files
//!   through, by paths relative to the model's root; [`SourceFile`] is what it
//!   answers (text, missing, binary, or a rejected path with its reason). A
//!   file that is not valid UTF-8 is still text, decoded lossily; readers
//!   report it through [`SourceReader::read_noted`] ([`Lossy`]).
//! * [`MemorySources`] is a path → text map (tests, the page's pasted files).
//! * [`Archive`] reads a zip, tar or tar.gz archive held in memory (the page's
//!   uploaded source archive), finds the folder inside it that corresponds to
//!   the model's root ([`Archive::locate_root`]) and then reads through it.
//!
//! Paths are `/`-separated and relative. A path that could escape the root
//! (`..`, absolute, a drive letter) is never looked up: it is answered
//! [`SourceFile::Rejected`] (by a reader) or reported as a skipped entry (by an
//! archive), never a panic.
//!
//! **Must never:** touch the file system or the network (bytes are pushed in);
//! inflate an archive entry past its limit; drop a file because it is not UTF-8
//! (it is read lossily and noted).

pub mod archive;
pub mod memory;
pub mod path;

use std::sync::Arc;

pub use archive::{Archive, ArchiveError, ArchiveFormat, Limits, RootMatch, SkippedEntry};
pub use memory::MemorySources;

/// The answer of a [`SourceReader`] for one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceFile {
    /// The file's text (without NUL), shared, never copied per read. A file
    /// that is not valid UTF-8 is decoded lossily (see [`SourceFile::decode`]);
    /// the reader's [`SourceReader::read_noted`] says so.
    Text(Arc<str>),
    /// No file at that path.
    Missing,
    /// The file exists but is not text: it contains a NUL byte.
    Binary,
    /// The path was not looked up because it could escape the root; the string
    /// says why (for the plan's report).
    Rejected(String),
}

/// A text file that was not valid UTF-8: its invalid byte sequences were each
/// replaced by one U+FFFD (as [`String::from_utf8_lossy`] does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lossy {
    /// How many bytes were not valid UTF-8 (and are gone from the text).
    pub bytes: usize,
    /// How many U+FFFD replacement characters stand in their place.
    pub replacements: usize,
}

impl Lossy {
    /// A line for the user about `path`, e.g.
    /// `src/Foo.java is not UTF-8: 3 bytes were replaced by U+FFFD`.
    pub fn describe(&self, path: &str) -> String {
        let bytes = if self.bytes == 1 { "1 byte was".to_owned() } else { format!("{} bytes were", self.bytes) };
        format!("{path} is not UTF-8: {bytes} replaced by U+FFFD")
    }
}

impl SourceFile {
    /// The text, if this is a text file.
    pub fn text(&self) -> Option<&Arc<str>> {
        match self {
            SourceFile::Text(t) => Some(t),
            _ => None,
        }
    }

    /// Classifies raw file bytes: binary when they hold a NUL byte, else text
    /// (lossily decoded when not valid UTF-8). [`SourceFile::decode`] also
    /// says whether bytes were replaced.
    pub fn from_bytes(bytes: &[u8]) -> SourceFile {
        SourceFile::decode(bytes).0
    }

    /// Classifies raw file bytes and says whether the text was decoded
    /// lossily. Valid UTF-8 is kept exactly (fingerprints hash the text);
    /// otherwise each maximal invalid sequence becomes one U+FFFD and the
    /// [`Lossy`] note counts them. Bytes holding a NUL are [`SourceFile::Binary`].
    pub fn decode(bytes: &[u8]) -> (SourceFile, Option<Lossy>) {
        if bytes.contains(&0) {
            return (SourceFile::Binary, None);
        }
        if let Ok(s) = std::str::from_utf8(bytes) {
            return (SourceFile::Text(Arc::from(s)), None);
        }
        let mut text = String::with_capacity(bytes.len() + 16);
        let mut lossy = Lossy { bytes: 0, replacements: 0 };
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                text.push(char::REPLACEMENT_CHARACTER);
                lossy.bytes += chunk.invalid().len();
                lossy.replacements += 1;
            }
        }
        (SourceFile::Text(Arc::from(text)), Some(lossy))
    }
}

/// The source-reading port: a file's content by its path relative to the
/// model's root. Implementations are pure lookups; the shell owns real I/O.
pub trait SourceReader {
    /// Reads one file. Never panics, whatever the path.
    fn read(&self, path: &str) -> SourceFile;

    /// Reads one file and, when its text was decoded lossily (it is not valid
    /// UTF-8), says how ([`Lossy`]). The default knows of no lossy file;
    /// readers that decode bytes ([`MemorySources`], [`Archive`], the CLI's
    /// directory reader) answer it, in one read.
    fn read_noted(&self, path: &str) -> (SourceFile, Option<Lossy>) {
        (self.read(path), None)
    }
}

impl<T: SourceReader + ?Sized> SourceReader for &T {
    fn read(&self, path: &str) -> SourceFile {
        (**self).read(path)
    }
    fn read_noted(&self, path: &str) -> (SourceFile, Option<Lossy>) {
        (**self).read_noted(path)
    }
}

impl<T: SourceReader + ?Sized> SourceReader for Box<T> {
    fn read(&self, path: &str) -> SourceFile {
        (**self).read(path)
    }
    fn read_noted(&self, path: &str) -> (SourceFile, Option<Lossy>) {
        (**self).read_noted(path)
    }
}

impl<T: SourceReader + ?Sized> SourceReader for Arc<T> {
    fn read(&self, path: &str) -> SourceFile {
        (**self).read(path)
    }
    fn read_noted(&self, path: &str) -> (SourceFile, Option<Lossy>) {
        (**self).read_noted(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_kept_exactly_and_invalid_bytes_are_replaced_and_counted() {
        let valid = "class A { String s = \"é😀\u{FFFD}\"; }\r\n";
        assert_eq!(SourceFile::decode(valid.as_bytes()), (SourceFile::Text(Arc::from(valid)), None));
        assert_eq!(SourceFile::from_bytes(valid.as_bytes()), SourceFile::Text(Arc::from(valid)));
        // Latin-1 é (one byte), a cut 3-byte sequence (two bytes), a lone continuation byte.
        let bytes = b"caf\xE9 \xE2\x82 x\x80";
        let (file, lossy) = SourceFile::decode(bytes);
        assert_eq!(file, SourceFile::Text(Arc::from("caf\u{FFFD} \u{FFFD} x\u{FFFD}")));
        assert_eq!(file, SourceFile::Text(Arc::from(String::from_utf8_lossy(bytes).as_ref())));
        assert_eq!(lossy, Some(Lossy { bytes: 4, replacements: 3 }));
        assert_eq!(
            lossy.unwrap().describe("src/Foo.java"),
            "src/Foo.java is not UTF-8: 4 bytes were replaced by U+FFFD"
        );
        assert_eq!(
            Lossy { bytes: 1, replacements: 1 }.describe("a.txt"),
            "a.txt is not UTF-8: 1 byte was replaced by U+FFFD"
        );
        assert_eq!(SourceFile::decode(b"\xFF\0"), (SourceFile::Binary, None), "a NUL still means binary");
    }
}
