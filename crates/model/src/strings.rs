//! String interning: every distinct string of a model is stored once, in one
//! buffer, and named by a `u32`. Parameters and locals repeat their method's
//! symbol; names, signatures and metric names repeat across a corpus.

use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;

/// A handle to an interned string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Str(u32);

impl Str {
    /// The raw index (dense, in first-seen order).
    pub fn index(self) -> u32 {
        self.0
    }

    /// Rebuilds a handle from [`Str::index`].
    pub(crate) fn from_raw(raw: u32) -> Str {
        Str(raw)
    }
}

/// The text of string `id`: it ends where `ends[id]` says and starts where
/// the previous one ended.
fn slice<'a>(buf: &'a str, ends: &[u32], id: u32) -> &'a str {
    let id = id as usize;
    let start = if id == 0 { 0 } else { ends[id - 1] as usize };
    &buf[start..ends[id] as usize]
}

/// The string table of a model.
#[derive(Default)]
pub struct Strings {
    buf: String,
    ends: Vec<u32>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl Strings {
    pub fn intern(&mut self, s: &str) -> Str {
        let hash = self.hasher.hash_one(s);
        if let Some(&id) = self.table.find(hash, |&id| slice(&self.buf, &self.ends, id) == s) {
            return Str(id);
        }
        let id = self.ends.len() as u32;
        self.buf.push_str(s);
        self.ends.push(self.buf.len() as u32);
        let (buf, ends, hasher) = (&self.buf, &self.ends, &self.hasher);
        self.table.insert_unique(hash, id, |&id| hasher.hash_one(slice(buf, ends, id)));
        Str(id)
    }

    pub fn get(&self, s: Str) -> &str {
        slice(&self.buf, &self.ends, s.0)
    }

    /// Looks a string up without interning it.
    pub fn find(&self, s: &str) -> Option<Str> {
        let hash = self.hasher.hash_one(s);
        self.table.find(hash, |&id| self.get(Str(id)) == s).map(|&id| Str(id))
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes held (text, offsets and the hash table), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        self.buf.capacity() + self.ends.capacity() * 4 + self.table.capacity() * 4
    }

    /// Drops spare capacity once reading is done.
    pub fn shrink(&mut self) {
        self.buf.shrink_to_fit();
        self.ends.shrink_to_fit();
        let (buf, ends, hasher) = (&self.buf, &self.ends, &self.hasher);
        self.table.shrink_to_fit(|&id| hasher.hash_one(slice(buf, ends, id)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once() {
        let mut s = Strings::default();
        let a = s.intern("alpha");
        let b = s.intern("beta");
        let e = s.intern("");
        assert_eq!(s.intern("alpha"), a);
        assert_ne!(a, b);
        assert_eq!(s.get(a), "alpha");
        assert_eq!(s.get(b), "beta");
        assert_eq!(s.get(e), "");
        assert_eq!(s.find("beta"), Some(b));
        assert_eq!(s.find("gamma"), None);
        assert_eq!(s.len(), 3);
        for i in 0..10_000 {
            s.intern(&format!("s{i}"));
        }
        s.shrink();
        assert_eq!(s.get(s.find("s9999").unwrap()), "s9999");
        assert_eq!(s.intern("alpha"), a);
    }
}
