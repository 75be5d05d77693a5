//! Archives built in the test itself: zip, tar and tar.gz; traversal entries,
//! binary files, a nested top folder, truncated and non-archive inputs.

use std::io::{Cursor, Write};
use std::sync::Arc;

use sources::{Archive, ArchiveError, ArchiveFormat, RootMatch, SourceFile, SourceReader};

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
    let a = Archive::parse("x.zip", &zip_of(&[File("a.txt", b"ab\0c"), File("b.txt", &[0xff, 0xfe])])).unwrap();
    assert_eq!(a.read("a.txt"), SourceFile::Binary);
    assert_eq!(a.read("b.txt"), SourceFile::Binary);
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
