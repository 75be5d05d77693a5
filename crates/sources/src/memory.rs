//! [`MemorySources`]: source files held in a path → text map, for tests and
//! for files handed to the page one by one.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::{path, Lossy, SourceFile, SourceReader};

/// An in-memory source tree: normalized relative path → file content.
#[derive(Debug, Clone, Default)]
pub struct MemorySources {
    files: BTreeMap<String, SourceFile>,
    /// Files added from bytes that are not valid UTF-8.
    lossy: BTreeMap<String, Lossy>,
}

impl MemorySources {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a text file. A path that could escape the root is
    /// refused with the reason.
    pub fn insert(&mut self, path: &str, text: impl Into<Arc<str>>) -> Result<(), String> {
        let key = path::normalize(path)?;
        self.lossy.remove(&key);
        self.files.insert(key, SourceFile::Text(text.into()));
        Ok(())
    }

    /// Adds (or replaces) a file from raw bytes, classified as text or binary
    /// ([`SourceFile::decode`]: text that is not valid UTF-8 is decoded
    /// lossily and listed in [`MemorySources::lossy_files`]).
    pub fn insert_bytes(&mut self, path: &str, bytes: &[u8]) -> Result<(), String> {
        let key = path::normalize(path)?;
        let (file, lossy) = SourceFile::decode(bytes);
        match lossy {
            Some(l) => self.lossy.insert(key.clone(), l),
            None => self.lossy.remove(&key),
        };
        self.files.insert(key, file);
        Ok(())
    }

    /// Every held file that was decoded lossily, in byte order of its path.
    pub fn lossy_files(&self) -> impl Iterator<Item = (&str, Lossy)> {
        self.lossy.iter().map(|(p, l)| (p.as_str(), *l))
    }

    /// Builder form of [`MemorySources::insert`]; panics on an escaping path
    /// (meant for tests with literal paths).
    pub fn with(mut self, path: &str, text: &str) -> Self {
        self.insert(path, text).expect("a relative path");
        self
    }

    /// Number of files held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no file is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The held paths, in byte order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

impl SourceReader for MemorySources {
    fn read(&self, path: &str) -> SourceFile {
        match path::normalize(path) {
            Ok(key) => self.files.get(&key).cloned().unwrap_or(SourceFile::Missing),
            Err(reason) => SourceFile::Rejected(reason),
        }
    }

    fn read_noted(&self, path: &str) -> (SourceFile, Option<Lossy>) {
        match path::normalize(path) {
            Ok(key) => (self.files.get(&key).cloned().unwrap_or(SourceFile::Missing), self.lossy.get(&key).copied()),
            Err(reason) => (SourceFile::Rejected(reason), None),
        }
    }
}

impl<'a> FromIterator<(&'a str, &'a str)> for MemorySources {
    /// Collects `(path, text)` pairs; pairs with an escaping path are dropped.
    fn from_iter<I: IntoIterator<Item = (&'a str, &'a str)>>(iter: I) -> Self {
        let mut m = MemorySources::new();
        for (p, t) in iter {
            let _ = m.insert(p, t);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_lossy_text_missing_binary_and_rejected() {
        let mut m = MemorySources::new().with("src/A.java", "class A {}");
        m.insert_bytes("img.png", &[0x89, b'P', b'N', b'G', 0, 1]).unwrap();
        m.insert_bytes("latin1.txt", &[b'a', 0xE9, b'b']).unwrap();
        assert_eq!(m.read("src/A.java"), SourceFile::Text(Arc::from("class A {}")));
        assert_eq!(m.read("./src//A.java").text().map(|t| &**t), Some("class A {}"));
        assert_eq!(m.read("src/B.java"), SourceFile::Missing);
        assert_eq!(m.read("img.png"), SourceFile::Binary);
        assert_eq!(m.read("latin1.txt"), SourceFile::Text(Arc::from("a\u{FFFD}b")));
        assert_eq!(m.read_noted("./latin1.txt").1, Some(Lossy { bytes: 1, replacements: 1 }));
        assert_eq!(m.read_noted("src/A.java").1, None);
        assert_eq!(m.lossy_files().collect::<Vec<_>>(), [("latin1.txt", Lossy { bytes: 1, replacements: 1 })]);
        m.insert_bytes("latin1.txt", b"ab").unwrap();
        assert_eq!(m.lossy_files().count(), 0, "replaced by valid text");
        assert!(matches!(m.read("../secret"), SourceFile::Rejected(r) if r.contains("..")));
        assert!(matches!(m.read("/etc/passwd"), SourceFile::Rejected(_)));
        assert!(m.insert("../x", "no").is_err());
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn reads_share_the_text() {
        let m: MemorySources = [("a.txt", "hello")].into_iter().collect();
        let (SourceFile::Text(a), SourceFile::Text(b)) = (m.read("a.txt"), m.read("a.txt")) else { panic!() };
        assert!(Arc::ptr_eq(&a, &b));
    }
}
