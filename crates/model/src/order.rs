//! The one string order of the product: UTF-16 code units, as JavaScript's `<`.
//!
//! Rust's `str` order (UTF-8 bytes = code points) differs from UTF-16 order
//! only when a supplementary character (U+10000 and above, two UTF-16 units
//! starting at 0xD800..0xDBFF) meets a character in U+E000..U+FFFF at the first
//! difference. This comparator finds that first difference with a byte scan
//! and only then looks at characters, so ASCII ids cost a word-by-word compare.

use std::cmp::Ordering;

/// Compares two strings by UTF-16 code units (JavaScript `a < b`).
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let common = common_prefix(ab, bb);
    if common == ab.len() || common == bb.len() {
        return ab.len().cmp(&bb.len());
    }
    // Back up to the start of the character that differs.
    let mut start = common;
    while !a.is_char_boundary(start) {
        start -= 1;
    }
    let ca = a[start..].chars().next().expect("non-empty tail") as u32;
    let cb = b[start..].chars().next().expect("non-empty tail") as u32;
    utf16_lead(ca).cmp(&utf16_lead(cb)).then(ca.cmp(&cb))
}

/// The length of the longest common prefix, compared eight bytes at a time
/// (ids share long package prefixes).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let word = |s: &[u8], i: usize| u64::from_ne_bytes(s[i..i + 8].try_into().expect("eight bytes"));
    let mut i = 0;
    while i + 8 <= n && word(a, i) == word(b, i) {
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The first UTF-16 code unit of a character.
fn utf16_lead(c: u32) -> u32 {
    if c >= 0x1_0000 {
        0xD800 + ((c - 0x1_0000) >> 10)
    } else {
        c
    }
}

/// Sorts strings (or anything that yields one) in UTF-16 order.
pub fn sort_utf16<T: AsRef<str>>(items: &mut [T]) {
    items.sort_by(|a, b| cmp_utf16(a.as_ref(), b.as_ref()));
}

/// Number of UTF-16 code units of a string (JavaScript `.length`).
pub fn utf16_len(s: &str) -> usize {
    // ASCII (most text, and most of the short pieces prompts are counted in)
    // is one unit per byte. Otherwise every character starts with one
    // non-continuation byte and takes one UTF-16 unit, except those of four
    // UTF-8 bytes (lead byte ≥ 0xF0), which take two. Counting bytes
    // vectorises; decoding characters does not.
    if s.is_ascii() {
        return s.len();
    }
    s.bytes().map(|b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(a: &str, b: &str) -> Ordering {
        a.encode_utf16().cmp(b.encode_utf16())
    }

    #[test]
    fn supplementary_sorts_before_high_bmp() {
        // The `unicode` fixture's collation pin: UTF-16 puts U+20000 before U+FF21.
        assert_eq!(cmp_utf16("𠀀Supplementary", "ＡFullwidth"), Ordering::Less);
        assert_eq!("𠀀Supplementary".cmp("ＡFullwidth"), Ordering::Greater);
        assert_eq!(cmp_utf16("\u{E000}", "\u{10000}"), Ordering::Greater);
        assert_eq!(cmp_utf16("\u{D7FF}", "\u{10000}"), Ordering::Less);
    }

    #[test]
    fn prefixes_and_equality() {
        assert_eq!(cmp_utf16("", ""), Ordering::Equal);
        assert_eq!(cmp_utf16("a", "ab"), Ordering::Less);
        assert_eq!(cmp_utf16("m/z", "m.x/a"), Ordering::Greater);
        assert_eq!(cmp_utf16("é", "é"), Ordering::Equal);
        // Differing in the second byte of a two-byte character.
        assert_eq!(cmp_utf16("é", "ê"), Ordering::Less);
        // Both supplementary, differing in a continuation byte.
        assert_eq!(cmp_utf16("\u{1F600}", "\u{1F601}"), Ordering::Less);
    }

    #[test]
    fn utf16_length_counts_surrogate_pairs() {
        assert_eq!(utf16_len("a𠀀é"), 4);
        for s in ["", "abc", "é", "€", "😀", "a😀b", "ＡFullwidth\u{10FFFF}"] {
            assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_encode_utf16(a in "\\PC{0,6}", b in "\\PC{0,6}") {
            prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
        }

        #[test]
        fn agrees_past_a_long_common_prefix(p in "\\PC{0,20}", a in "\\PC{0,4}", b in "\\PC{0,4}") {
            let (a, b) = (format!("{p}{a}"), format!("{p}{b}"));
            prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
        }

        #[test]
        fn utf16_length_of_any_text(s in "\\PC{0,30}") {
            prop_assert_eq!(utf16_len(&s), s.encode_utf16().count());
        }

        #[test]
        fn agrees_on_tricky_alphabet(
            a in proptest::collection::vec(prop::sample::select(vec!['a', 'é', '\u{E000}', '\u{FFFD}', '\u{10000}', '\u{20000}', '\u{1F600}']), 0..5),
            b in proptest::collection::vec(prop::sample::select(vec!['a', 'é', '\u{E000}', '\u{FFFD}', '\u{10000}', '\u{20000}', '\u{1F600}']), 0..5),
        ) {
            let (a, b): (String, String) = (a.into_iter().collect(), b.into_iter().collect());
            prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
        }
    }
}
