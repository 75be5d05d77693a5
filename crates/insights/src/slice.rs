//! Source slicing (docs/formats/prompts.md §6): the lines of an anchor span,
//! read through a [`sources::SourceReader`], with the middle elided beyond
//! `--max-lines`.
//!
//! * Each file is read once and cached, misses included.
//! * Lines = the text split on `\r?\n` (a lone `\r` is not a separator; a
//!   trailing newline gives a last, empty line, as JavaScript's `split`).
//! * The 1-based inclusive span is clamped to the file; the [`Slice`] keeps the
//!   span as given.
//! * `budget = max(3, maxLines)`; beyond it the slice keeps `head` lines, a
//!   marker line `// … {elided} lines elided …` and the last `tail` lines,
//!   exactly `budget` lines in all.
//! * A file that is missing, binary or refused (its path escapes the root)
//!   gives an empty, `missing` slice and is recorded in [`SourceSlicer::misses`].
//! * A file that is not valid UTF-8 is sliced from its lossy text (U+FFFD in
//!   place of the bad bytes) when the reader decodes it so, and is recorded
//!   in [`SourceSlicer::lossy_files`].

use hashbrown::HashMap;
use std::cell::RefCell;
use std::sync::Arc;

use sources::{Lossy, SourceFile, SourceReader};

/// `--max-lines` default.
pub const DEFAULT_MAX_LINES: u32 = 200;

/// The source shown for one member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// The file path, relative to the source root, as asked.
    pub file: String,
    /// The anchor span as given (1-based, inclusive; not clamped).
    pub span: (u32, u32),
    /// The shown lines joined by `\n` (`""` when missing).
    pub text: String,
    /// True when the middle was elided.
    pub truncated: bool,
    /// True when the file could not be read as text.
    pub missing: bool,
}

/// A read file: its text and the byte range of every line.
struct Lines {
    text: Arc<str>,
    lines: Vec<(usize, usize)>,
    /// The reader decoded the file lossily (not valid UTF-8).
    lossy: Option<Lossy>,
}

impl Lines {
    fn new(text: Arc<str>, lossy: Option<Lossy>) -> Lines {
        let mut lines = Vec::new();
        let bytes = text.as_bytes();
        let mut start = 0;
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'\n' {
                let end = if i > start && bytes[i - 1] == b'\r' { i - 1 } else { i };
                lines.push((start, end));
                start = i + 1;
            }
        }
        lines.push((start, bytes.len()));
        Lines { text, lines, lossy }
    }

    fn line(&self, i: usize) -> &str {
        let (s, e) = self.lines[i];
        &self.text[s..e]
    }
}

/// Why a file gave no text (kept for reporting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MissReason {
    /// No such file.
    Missing,
    /// Not text: it contains a NUL byte (a file that is merely not UTF-8 is
    /// read lossily, see [`SourceSlicer::lossy_files`]).
    Binary,
    /// The path could escape the root; the reader's reason.
    Rejected(String),
}

/// Slices sources for prompts, reading each file at most once.
pub struct SourceSlicer<'a> {
    reader: &'a dyn SourceReader,
    max_lines: u32,
    cache: RefCell<HashMap<String, Result<Arc<Lines>, MissReason>>>,
}

impl<'a> SourceSlicer<'a> {
    /// A slicer over `reader` with `--max-lines` = `max_lines`.
    pub fn new(reader: &'a dyn SourceReader, max_lines: u32) -> Self {
        SourceSlicer { reader, max_lines, cache: RefCell::new(HashMap::new()) }
    }

    /// The `--max-lines` value.
    pub fn max_lines(&self) -> u32 {
        self.max_lines
    }

    fn lines(&self, file: &str) -> Result<Arc<Lines>, MissReason> {
        if let Some(hit) = self.cache.borrow().get(file) {
            return hit.clone();
        }
        let (read, lossy) = self.reader.read_noted(file);
        let read = match read {
            SourceFile::Text(text) => Ok(Arc::new(Lines::new(text, lossy))),
            SourceFile::Missing => Err(MissReason::Missing),
            SourceFile::Binary => Err(MissReason::Binary),
            SourceFile::Rejected(reason) => Err(MissReason::Rejected(reason)),
        };
        self.cache.borrow_mut().insert(file.to_owned(), read.clone());
        read
    }

    /// The slice of `file` for the anchor span `span` (1-based, inclusive).
    pub fn slice(&self, file: &str, span: (u32, u32)) -> Slice {
        let lines = match self.lines(file) {
            Ok(lines) => lines,
            Err(_) => {
                return Slice { file: file.to_owned(), span, text: String::new(), truncated: false, missing: true }
            }
        };
        let count = lines.lines.len();
        let start = (span.0 as usize).max(1);
        let end = (span.1 as usize).min(count);
        let wanted: Vec<&str> =
            if start > end { Vec::new() } else { (start - 1..end).map(|i| lines.line(i)).collect() };
        let (text, truncated) = elide(&wanted, self.max_lines);
        Slice { file: file.to_owned(), span, text, truncated, missing: false }
    }

    /// Every file that gave no text, sorted (UTF-16 order), distinct.
    pub fn misses(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.cache.borrow().iter().filter(|(_, r)| r.is_err()).map(|(f, _)| f.clone()).collect();
        out.sort_by(|a, b| model::cmp_utf16(a, b));
        out
    }

    /// Every file that gave no text, with the reason, sorted like [`Self::misses`].
    pub fn miss_reasons(&self) -> Vec<(String, MissReason)> {
        let mut out: Vec<(String, MissReason)> =
            self.cache.borrow().iter().filter_map(|(f, r)| r.as_ref().err().map(|e| (f.clone(), e.clone()))).collect();
        out.sort_by(|a, b| model::cmp_utf16(&a.0, &b.0));
        out
    }

    /// Every file read so far whose text was decoded lossily (it is not valid
    /// UTF-8: its slices show U+FFFD where bytes were replaced), with what was
    /// replaced, sorted (UTF-16 order), distinct. Print each with
    /// [`Lossy::describe`]: `src/Foo.java is not UTF-8: 3 bytes were replaced by U+FFFD`.
    pub fn lossy_files(&self) -> Vec<(String, Lossy)> {
        let mut out: Vec<(String, Lossy)> = self
            .cache
            .borrow()
            .iter()
            .filter_map(|(f, r)| r.as_ref().ok().and_then(|l| l.lossy).map(|l| (f.clone(), l)))
            .collect();
        out.sort_by(|a, b| model::cmp_utf16(&a.0, &b.0));
        out
    }

    /// How many distinct files were asked of the reader.
    pub fn files_read(&self) -> usize {
        self.cache.borrow().len()
    }
}

/// The elision rule: at most `budget = max(3, max_lines)` lines; beyond, the
/// first `head`, the marker, the last `tail`. Returns the text and whether it
/// was truncated.
pub fn elide(wanted: &[&str], max_lines: u32) -> (String, bool) {
    let budget = (max_lines as usize).max(3);
    if wanted.len() <= budget {
        return (wanted.join("\n"), false);
    }
    let tail = (budget / 4).min(20);
    let head = budget - tail - 1;
    let elided = wanted.len() - head - tail;
    let mut shown: Vec<&str> = Vec::with_capacity(budget);
    shown.extend_from_slice(&wanted[..head]);
    let marker = format!("// \u{2026} {elided} lines elided \u{2026}");
    shown.push(&marker);
    shown.extend_from_slice(&wanted[wanted.len() - tail..]);
    (shown.join("\n"), true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sources::MemorySources;
    use std::cell::Cell;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}")).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn exact_lines_of_a_span() {
        let src = MemorySources::new().with("T.java", &numbered(100));
        let s = SourceSlicer::new(&src, 200).slice("T.java", (3, 5));
        assert_eq!(
            s,
            Slice {
                file: "T.java".into(),
                span: (3, 5),
                text: "line 3\nline 4\nline 5".into(),
                truncated: false,
                missing: false
            }
        );
    }

    #[test]
    fn long_spans_elide_the_middle() {
        let src = MemorySources::new().with("T.java", &numbered(100));
        let s = SourceSlicer::new(&src, 40).slice("T.java", (1, 100));
        let lines: Vec<&str> = s.text.split('\n').collect();
        assert_eq!(lines.len(), 40);
        assert_eq!(lines[0], "line 1");
        assert_eq!(lines[28], "line 29");
        assert_eq!(lines[29], "// \u{2026} 61 lines elided \u{2026}");
        assert_eq!(lines[30], "line 91");
        assert_eq!(lines[39], "line 100");
        assert!(s.truncated);
    }

    #[test]
    fn budget_is_at_least_three_lines() {
        let wanted = ["a", "b", "c", "d", "e"];
        // budget 3: tail 0, head 2, marker.
        assert_eq!(elide(&wanted, 0), ("a\nb\n// \u{2026} 3 lines elided \u{2026}".into(), true));
        assert_eq!(elide(&wanted[..3], 1), ("a\nb\nc".into(), false));
        // The tail never exceeds 20 lines.
        let many: Vec<String> = (1..=1000).map(|i| i.to_string()).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let (text, truncated) = elide(&many, 200);
        let lines: Vec<&str> = text.split('\n').collect();
        assert!(truncated);
        assert_eq!(lines.len(), 200);
        assert_eq!(lines[178], "179");
        assert_eq!(lines[179], "// \u{2026} 801 lines elided \u{2026}");
        assert_eq!(lines[180], "981");
    }

    #[test]
    fn crlf_splits_and_lone_cr_does_not() {
        let src = MemorySources::new().with("W.java", "a\r\nb\rc\nd\n");
        let slicer = SourceSlicer::new(&src, 200);
        assert_eq!(slicer.slice("W.java", (1, 2)).text, "a\nb\rc");
        // The trailing newline gives a fourth, empty line.
        assert_eq!(slicer.slice("W.java", (1, 99)).text, "a\nb\rc\nd\n");
        assert_eq!(slicer.slice("W.java", (4, 4)).text, "");
    }

    #[test]
    fn overrunning_spans_are_clamped_and_kept_as_given() {
        let src = MemorySources::new().with("S.java", "a\nb");
        let slicer = SourceSlicer::new(&src, 200);
        let s = slicer.slice("S.java", (2, 9));
        assert_eq!((s.text.as_str(), s.span, s.missing), ("b", (2, 9), false));
        assert_eq!(slicer.slice("S.java", (0, 1)).text, "a");
        let empty = slicer.slice("S.java", (5, 3));
        assert_eq!((empty.text.as_str(), empty.truncated, empty.missing), ("", false, false));
    }

    struct Counting<'a> {
        inner: &'a MemorySources,
        reads: Cell<usize>,
    }

    impl SourceReader for Counting<'_> {
        fn read(&self, path: &str) -> SourceFile {
            self.reads.set(self.reads.get() + 1);
            self.inner.read(path)
        }
    }

    #[test]
    fn each_file_is_read_once_and_misses_are_listed() {
        let src = MemorySources::new().with("A.java", &numbered(10));
        let counting = Counting { inner: &src, reads: Cell::new(0) };
        let slicer = SourceSlicer::new(&counting, 200);
        let a1 = slicer.slice("A.java", (1, 2));
        let b1 = slicer.slice("B.java", (1, 2));
        let a2 = slicer.slice("A.java", (3, 4));
        let b2 = slicer.slice("B.java", (5, 6));
        assert_eq!(counting.reads.get(), 2, "2 reads for 4 slices over 2 files");
        assert!(!a1.missing && !a2.missing);
        assert_eq!(
            b1,
            Slice { file: "B.java".into(), span: (1, 2), text: String::new(), truncated: false, missing: true }
        );
        assert!(b2.missing);
        assert_eq!(slicer.misses(), ["B.java"]);
        assert_eq!(slicer.files_read(), 2);
    }

    #[test]
    fn binary_and_escaping_files_are_misses_with_reasons() {
        let mut src = MemorySources::new();
        src.insert_bytes("bin.dat", &[0, 1, 2]).unwrap();
        let slicer = SourceSlicer::new(&src, 200);
        assert!(slicer.slice("bin.dat", (1, 1)).missing);
        assert!(slicer.slice("../x.java", (1, 1)).missing);
        assert!(slicer.slice("a/😀.java", (1, 1)).missing);
        assert!(slicer.slice("a/～.java", (1, 1)).missing);
        assert_eq!(slicer.misses(), ["../x.java", "a/😀.java", "a/～.java", "bin.dat"]);
        let reasons = slicer.miss_reasons();
        assert!(matches!(&reasons[0].1, MissReason::Rejected(r) if r.contains("..")));
        assert_eq!(reasons[3].1, MissReason::Binary);
        assert_eq!(reasons[1].1, MissReason::Missing);
    }

    #[test]
    fn a_file_that_is_not_utf8_is_sliced_lossily_and_listed() {
        let mut src = MemorySources::new().with("ok/A.java", "class A {}\n");
        src.insert_bytes("b/Caf\u{e9}.java", b"// caf\xE9\nclass B {}\n").unwrap();
        src.insert_bytes("a/Latin.java", b"\xE2\x82x\n").unwrap();
        let slicer = SourceSlicer::new(&src, 200);
        let s = slicer.slice("b/Caf\u{e9}.java", (1, 2));
        assert_eq!((s.text.as_str(), s.missing), ("// caf\u{FFFD}\nclass B {}", false));
        assert_eq!(slicer.slice("ok/A.java", (1, 1)).text, "class A {}");
        assert_eq!(slicer.lossy_files().len(), 1, "only files read so far");
        slicer.slice("a/Latin.java", (1, 1));
        let lossy = slicer.lossy_files();
        assert_eq!(
            lossy,
            [
                ("a/Latin.java".to_owned(), Lossy { bytes: 2, replacements: 1 }),
                ("b/Caf\u{e9}.java".to_owned(), Lossy { bytes: 1, replacements: 1 })
            ]
        );
        assert_eq!(lossy[0].1.describe(&lossy[0].0), "a/Latin.java is not UTF-8: 2 bytes were replaced by U+FFFD");
        assert!(slicer.misses().is_empty(), "a lossy file is not a miss");
        // A reader that does not note lossy decoding: the text is used, nothing listed.
        let counting = Counting { inner: &src, reads: Cell::new(0) };
        let plain = SourceSlicer::new(&counting, 200);
        assert!(!plain.slice("a/Latin.java", (1, 1)).missing);
        assert!(plain.lossy_files().is_empty());
    }
}
