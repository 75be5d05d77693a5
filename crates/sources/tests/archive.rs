//! Archives built in the test itself: zip, tar and tar.gz; traversal entries,
//! binary and non-UTF-8 files, a nested top folder, truncated and non-archive
//! inputs, and the size limits (a zip bomb in miniature, a lying header).

use std::io::{Cursor, Write};
use std::sync::Arc;

use sources::{Archive, ArchiveError, ArchiveFormat, Limits, RootMatch, SourceFile, SourceReader};

enum Item<'a> {
    File(&'a str, &'a [u8]),
    Dir(&'a str),
}

use Item::{Dir, File};

fn zip_of(items: &[Item]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for item in items {
        match item {
            File(name, bytes) => {
                w.start_file(*name, opts).unwrap();
                w.write_all(bytes).unwrap();
            }
            Dir(name) => w.add_directory(*name, opts).unwrap(),
        }
    }
    w.finish().unwrap().into_inner()
}

fn tar_of(items: &[Item]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for item in items {
        let mut h = tar::Header::new_gnu();
        match item {
            File(name, bytes) => {
                h.set_entry_type(tar::EntryType::Regular);
                h.set_size(bytes.len() as u64);
                h.set_mode(0o644);
                // Written raw so that traversal names survive (the builder's
                // `append_data` refuses `..`).
                set_raw_name(&mut h, name);
                h.set_cksum();
                b.append(&h, *bytes).unwrap();
            }
            Dir(name) => {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_size(0);
                h.set_mode(0o755);
                set_raw_name(&mut h, name);
                h.set_cksum();
                b.append(&h, &[][..]).unwrap();
            }
        }
    }
    b.into_inner().unwrap()
}

fn set_raw_name(h: &mut tar::Header, name: &str) {
    let field = &mut h.as_old_mut().name;
    field.fill(0);
    field[..name.len()].copy_from_slice(name.as_bytes());
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

const JAVA: &[u8] = b"package p;\nclass A {}\n";
const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];

fn sample() -> Vec<Item<'static>> {
    vec![
        Dir("repo-main/"),
        Dir("repo-main/src/"),
        File("repo-main/src/main/java/p/A.java", JAVA),
        File("repo-main/src/main/java/p/B.java", b"class B {}"),
        File("repo-main/logo.png", PNG),
        File("repo-main/README.md", b"# readme"),
        File("../evil.txt", b"pwned"),
        File("/etc/passwd", b"root"),
    ]
}

fn text(s: &str) -> SourceFile {
    SourceFile::Text(Arc::from(s))
}

fn check_sample(a: &mut Archive, format: ArchiveFormat) {
    assert_eq!(a.format(), format);
    assert_eq!(a.len(), 4, "directories ignored, traversal entries skipped: {:?}", a.paths().collect::<Vec<_>>());
    let skipped: Vec<&str> = a.skipped().iter().map(|s| s.path.as_str()).collect();
    assert_eq!(skipped, ["../evil.txt", "/etc/passwd"]);
    assert!(a.skipped()[0].reason.contains(".."));
    assert!(a.skipped()[1].reason.contains("absolute"));
    assert_eq!(a.read("repo-main/src/main/java/p/A.java"), text("package p;\nclass A {}\n"));
    assert_eq!(a.read("repo-main/logo.png"), SourceFile::Binary);
    assert_eq!(a.read("src/main/java/p/A.java"), SourceFile::Missing);
    assert!(matches!(a.read("../evil.txt"), SourceFile::Rejected(_)));

    let found = a.use_root(&["src/main/java/p/A.java", "src/main/java/p/B.java", "src/main/java/p/C.java"]);
    assert_eq!(found, RootMatch { prefix: "repo-main/".into(), matched: 2, total: 3 });
    assert_eq!(a.root(), "repo-main/");
    assert_eq!(a.read("src/main/java/p/A.java"), text("package p;\nclass A {}\n"));
    assert_eq!(a.read("src/main/java/p/B.java"), text("class B {}"));
    assert_eq!(a.read("src/main/java/p/C.java"), SourceFile::Missing);
    assert_eq!(a.read("logo.png"), SourceFile::Binary);
    assert!(matches!(a.read("../README.md"), SourceFile::Rejected(_)), "no escape from the root either");
}

#[test]
fn zip_archive() {
    let mut a = Archive::parse("src.zip", &zip_of(&sample())).unwrap();
    check_sample(&mut a, ArchiveFormat::Zip);
}

#[test]
fn plain_tar_archive() {
    let mut a = Archive::parse("src.tar", &tar_of(&sample())).unwrap();
    check_sample(&mut a, ArchiveFormat::Tar);
}

#[test]
fn tar_gz_archive_detected_by_content_not_name() {
    let mut a = Archive::parse("misnamed.zip", &gzip(&tar_of(&sample()))).unwrap();
    check_sample(&mut a, ArchiveFormat::TarGz);
}

#[test]
fn a_file_with_a_nul_is_binary() {
    let a = Archive::parse("x.zip", &zip_of(&[File("a.txt", b"ab\0c"), File("b.txt", &[0xff, 0, 0xfe])])).unwrap();
    assert_eq!(a.read("a.txt"), SourceFile::Binary);
    assert_eq!(a.read("b.txt"), SourceFile::Binary);
    assert_eq!(a.lossy_files().count(), 0);
}

#[test]
fn a_file_that_is_not_utf8_is_lossy_text_and_noted_in_every_format() {
    let items = [
        File("repo/src/Caf.java", b"// caf\xE9 \xE2\x82\nclass Caf {}\n"),
        File("repo/src/A.java", JAVA),
        File("repo/b.txt", &[0xff, 0xfe]),
    ];
    let tar = tar_of(&items);
    for (name, bytes) in [("x.zip", zip_of(&items)), ("x.tar", tar.clone()), ("x.tar.gz", gzip(&tar))] {
        let mut a = Archive::parse(name, &bytes).unwrap();
        assert_eq!(a.len(), 3, "{name}: kept, not dropped");
        assert_eq!(a.read("repo/src/Caf.java"), text("// caf\u{FFFD} \u{FFFD}\nclass Caf {}\n"), "{name}");
        assert_eq!(
            a.lossy_files().collect::<Vec<_>>(),
            [
                ("repo/b.txt", sources::Lossy { bytes: 2, replacements: 2 }),
                ("repo/src/Caf.java", sources::Lossy { bytes: 3, replacements: 2 })
            ],
            "{name}"
        );
        // Valid UTF-8 is read exactly as before, with no note.
        assert_eq!(a.read_noted("repo/src/A.java"), (text("package p;\nclass A {}\n"), None), "{name}");
        a.use_root(&["src/A.java", "src/Caf.java"]);
        let (file, lossy) = a.read_noted("src/Caf.java");
        assert!(file.text().is_some(), "{name}");
        assert_eq!(
            lossy.unwrap().describe("src/Caf.java"),
            "src/Caf.java is not UTF-8: 3 bytes were replaced by U+FFFD",
            "{name}"
        );
        assert_eq!(a.read_noted("src/Nope.java"), (SourceFile::Missing, None));
        assert!(matches!(a.read_noted("../b.txt"), (SourceFile::Rejected(_), None)));
    }
}

// --- size limits ----------------------------------------------------------------

const SMALL: Limits = Limits { entry: 64 * 1024, total: 256 * 1024 };

/// Zeros compress about a thousandfold: a bomb in miniature.
fn zeros(n: usize) -> Vec<u8> {
    vec![b'0'; n]
}

/// The offset of the first local file header's data in `zip` (the entry
/// written first), and the offsets of its size fields in the local header and
/// in the central directory.
struct ZipFields {
    data: usize,
    local_size: usize,
    central_size: usize,
}

fn first_entry_fields(zip: &[u8]) -> ZipFields {
    assert_eq!(&zip[..4], b"PK\x03\x04");
    let name_len = u16::from_le_bytes([zip[26], zip[27]]) as usize;
    let extra_len = u16::from_le_bytes([zip[28], zip[29]]) as usize;
    let central = zip.windows(4).position(|w| w == b"PK\x01\x02").expect("a central directory");
    ZipFields { data: 30 + name_len + extra_len, local_size: 22, central_size: central + 24 }
}

#[test]
fn a_zip_entry_over_the_entry_limit_is_skipped_before_it_is_inflated() {
    let big = zeros(1 << 20);
    let mut zip = zip_of(&[File("repo/big.dat", &big), File("repo/A.java", JAVA)]);
    assert!(zip.len() < 16 * 1024, "highly compressible: {} bytes", zip.len());
    let a = Archive::parse_with("bomb.zip", &zip, SMALL).unwrap();
    assert_eq!(a.paths().collect::<Vec<_>>(), ["repo/A.java"]);
    assert_eq!(a.skipped().len(), 1);
    assert_eq!(a.skipped()[0].path, "repo/big.dat");
    assert_eq!(a.skipped()[0].reason, "it unpacks to more than 65536 bytes, the most one entry may");
    // Its declared size alone refuses it: with its deflate stream destroyed it
    // is still only skipped, so not one byte of it was inflated.
    let f = first_entry_fields(&zip);
    for b in &mut zip[f.data + 2..f.data + 200] {
        *b = 0xA5;
    }
    assert!(matches!(Archive::parse("bomb.zip", &zip), Err(ArchiveError::Corrupt { .. })), "inflating it fails");
    let a = Archive::parse_with("bomb.zip", &zip, SMALL).unwrap();
    assert_eq!(a.skipped()[0].path, "repo/big.dat");
    // With the default limits the same (intact) entry is kept.
    let zip = zip_of(&[File("repo/big.dat", &big)]);
    assert_eq!(Archive::parse("ok.zip", &zip).unwrap().len(), 1);
}

#[test]
fn a_zip_over_the_total_limit_is_too_large_before_it_is_inflated() {
    let part = zeros(60 * 1024);
    let items: Vec<Item> = (0..5).map(|_| File("p.dat", &part)).collect();
    let names = ["a.dat", "b.dat", "c.dat", "d.dat", "e.dat"];
    let items: Vec<Item> =
        items.into_iter().zip(names).map(|(i, n)| if let File(_, b) = i { File(n, b) } else { i }).collect();
    let zip = zip_of(&items);
    let err = Archive::parse_with("many.zip", &zip, SMALL).unwrap_err();
    assert_eq!(err, ArchiveError::TooLarge { name: "many.zip".into(), limit: 256 * 1024 });
    assert_eq!(err.to_string(), "many.zip unpacks to more than 262144 bytes; refusing to read it");
    assert_eq!(Archive::parse_with("four.zip", &zip_of(&items[..4]), SMALL).unwrap().len(), 4);
}

#[test]
fn a_zip_whose_header_lies_about_its_size_is_stopped() {
    // Declared: 100 bytes (local header and central directory agree), actual: 1 MiB.
    let big = zeros(1 << 20);
    let mut zip = zip_of(&[File("repo/liar.dat", &big), File("repo/A.java", JAVA)]);
    let f = first_entry_fields(&zip);
    for at in [f.local_size, f.central_size] {
        assert_eq!(u32::from_le_bytes(zip[at..at + 4].try_into().unwrap()), 1 << 20);
        zip[at..at + 4].copy_from_slice(&100u32.to_le_bytes());
    }
    // Inflating stops one byte past what the header declared (the zip reader
    // checks it; our own reader stops at the limits besides, see the unit
    // test of `read_capped`): the damaged archive is refused, not held.
    for limits in [SMALL, Limits::default(), Limits { entry: 64 * 1024, total: 100 }] {
        let err = Archive::parse_with("liar.zip", &zip, limits).unwrap_err();
        assert!(
            matches!(&err, ArchiveError::Corrupt { detail, .. } if detail.contains("repo/liar.dat")),
            "{limits:?}: {err:?}"
        );
    }
    // A declared size over the entry limit is believed: skipped, not inflated.
    let a = Archive::parse_with("liar.zip", &zip, Limits { entry: 50, total: 1 << 30 }).unwrap();
    assert_eq!(a.skipped()[0].path, "repo/liar.dat");
    assert_eq!(a.paths().collect::<Vec<_>>(), ["repo/A.java"]);
}

#[test]
fn tar_entries_obey_the_same_limits() {
    let big = zeros(100 * 1024);
    let tar = tar_of(&[File("repo/big.dat", &big), File("repo/A.java", JAVA)]);
    for (name, bytes) in [("x.tar", tar.clone()), ("x.tar.gz", gzip(&tar))] {
        let a = Archive::parse_with(name, &bytes, SMALL).unwrap();
        assert_eq!(a.paths().collect::<Vec<_>>(), ["repo/A.java"], "{name}");
        assert_eq!(a.skipped()[0].reason, "it unpacks to more than 65536 bytes, the most one entry may");
    }
    let parts: Vec<Vec<u8>> = (0..5).map(|_| zeros(60 * 1024)).collect();
    let names = ["a", "b", "c", "d", "e"];
    let items: Vec<Item> = names.iter().zip(&parts).map(|(n, p)| File(n, p)).collect();
    let tar = tar_of(&items);
    let err = Archive::parse_with("many.tar", &tar, SMALL).unwrap_err();
    assert_eq!(err, ArchiveError::TooLarge { name: "many.tar".into(), limit: 256 * 1024 });
    // The gzip stream itself is bounded by the total first.
    let err = Archive::parse_with("many.tar.gz", &gzip(&tar), SMALL).unwrap_err();
    assert_eq!(err, ArchiveError::TooLarge { name: "many.tar.gz".into(), limit: 256 * 1024 });
}

#[test]
fn root_location_prefers_most_matches_then_shortest_prefix() {
    let items = [
        File("top/src/A.java", b"1"),
        File("top/src/B.java", b"2"),
        File("top/copy/src/A.java", b"3"),
        File("top/copy/src/B.java", b"4"),
        File("top/copy/src/C.java", b"5"),
        File("other/src/A.java", b"6"),
    ];
    let a = Archive::parse("x.zip", &zip_of(&items)).unwrap();
    // Three matches under top/copy/ beat two under top/.
    assert_eq!(
        a.locate_root(&["src/A.java", "src/B.java", "src/C.java"]),
        RootMatch { prefix: "top/copy/".into(), matched: 3, total: 3 }
    );
    // A tie (two each under top/ and top/copy/) goes to the shorter prefix;
    // duplicates in the input count once.
    assert_eq!(
        a.locate_root(&["src/A.java", "src/B.java", "src/A.java"]),
        RootMatch { prefix: "top/".into(), matched: 2, total: 2 }
    );
    // A tie between same-length prefixes goes to the byte-smaller one.
    let b = Archive::parse("y.zip", &zip_of(&[File("b/A.java", b""), File("a/A.java", b"")])).unwrap();
    assert_eq!(b.locate_root(&["A.java"]), RootMatch { prefix: "a/".into(), matched: 1, total: 1 });
    // Suffixes only match at a folder boundary: `xsrc/A.java` is not under a root.
    let c = Archive::parse("z.zip", &zip_of(&[File("xsrc/A.java", b"")])).unwrap();
    assert_eq!(c.locate_root(&["src/A.java", "../x"]), RootMatch { prefix: "".into(), matched: 0, total: 2 });
    // Files at the top: the empty prefix.
    let d = Archive::parse("d.zip", &zip_of(&[File("src/A.java", b"")])).unwrap();
    assert_eq!(d.locate_root(&["src/A.java"]), RootMatch { prefix: "".into(), matched: 1, total: 1 });
}

#[test]
fn set_root_normalizes_and_refuses_escapes() {
    let mut a = Archive::parse("x.zip", &zip_of(&[File("r/A.java", b"a")])).unwrap();
    a.set_root("r").unwrap();
    assert_eq!(a.root(), "r/");
    assert_eq!(a.read("A.java"), text("a"));
    a.set_root("").unwrap();
    assert_eq!(a.root(), "");
    assert!(a.set_root("../r").is_err());
}

#[test]
fn non_archives_are_clear_errors() {
    let e = Archive::parse("x.zip", b"hello, this is plain text").unwrap_err();
    assert_eq!(e, ArchiveError::NotAnArchive { name: "x.zip".into() });
    assert_eq!(e.to_string(), "x.zip is not a zip, tar or tar.gz archive");
    assert_eq!(
        Archive::parse("e.tar", b"").unwrap_err().to_string(),
        "e.tar is empty; expected a zip, tar or tar.gz archive"
    );
    let e = Archive::parse("g.tgz", &gzip(b"just some text, not a tar")).unwrap_err();
    assert_eq!(e, ArchiveError::GzipWithoutTar { name: "g.tgz".into() });
}

#[test]
fn truncated_archives_are_clear_errors() {
    let zip = zip_of(&sample());
    let e = Archive::parse("cut.zip", &zip[..zip.len() / 2]).unwrap_err();
    assert!(matches!(&e, ArchiveError::Corrupt { format: ArchiveFormat::Zip, .. }), "{e:?}");
    assert!(e.to_string().starts_with("cut.zip is a damaged zip archive: "), "{e}");

    let tar = tar_of(&[File("a/big.txt", &[b'x'; 5000])]);
    let e = Archive::parse("cut.tar", &tar[..2048]).unwrap_err();
    assert!(matches!(&e, ArchiveError::Corrupt { format: ArchiveFormat::Tar, .. }), "{e:?}");
    assert!(e.to_string().starts_with("cut.tar is a damaged tar archive: "), "{e}");

    let gz = gzip(&tar_of(&sample()));
    let e = Archive::parse("cut.tar.gz", &gz[..gz.len() / 2]).unwrap_err();
    assert!(matches!(&e, ArchiveError::Corrupt { format: ArchiveFormat::TarGz, .. }), "{e:?}");
}

#[test]
fn an_empty_zip_is_an_empty_archive() {
    let a = Archive::parse("empty.zip", &zip_of(&[])).unwrap();
    assert!(a.is_empty());
    assert_eq!(a.locate_root(&["A.java"]), RootMatch { prefix: "".into(), matched: 0, total: 1 });
}

#[cfg(not(target_arch = "wasm32"))]
mod no_panic {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = Archive::parse("random.bin", &bytes);
        }

        #[test]
        fn damaged_archives_never_panic(
            which in 0usize..3,
            cut in 0usize..4000,
            flips in proptest::collection::vec((0usize..4000, any::<u8>()), 0..8),
        ) {
            let tar = tar_of(&sample());
            let mut bytes = match which { 0 => zip_of(&sample()), 1 => tar, _ => gzip(&tar) };
            for (at, b) in flips {
                let n = bytes.len();
                bytes[at % n] ^= b;
            }
            bytes.truncate(cut.min(bytes.len()));
            if let Ok(a) = Archive::parse("damaged", &bytes) {
                let _ = a.read("repo-main/src/main/java/p/A.java");
                let _ = a.locate_root(&["src/main/java/p/A.java"]);
            }
        }
    }
}
