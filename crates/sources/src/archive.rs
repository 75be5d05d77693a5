//! [`Archive`]: a zip, tar or tar.gz source archive unpacked in memory.
//!
//! The format is recognized by its magic bytes, never by the file name. Every
//! regular file is kept as text or marked binary; directories are ignored;
//! entries that are links, use an unsupported compression, whose path could
//! escape the root (`..`, absolute), or that unpack to more than
//! [`MAX_ENTRY_BYTES`] are reported in [`Archive::skipped`]. A file that is not
//! valid UTF-8 is kept as lossily decoded text and listed in
//! [`Archive::lossy_files`]. A damaged or unknown input is an [`ArchiveError`]
//! naming the file and what was expected; an archive unpacking to more than
//! [`MAX_UNPACKED_BYTES`] is [`ArchiveError::TooLarge`]. Sizes declared in
//! entry headers are a first check only: every entry is inflated through a
//! reader that stops at the limit, so a header that lies cannot make this
//! module hold more. No input makes this module panic.
//!
//! Source archives usually wrap the tree in a top folder (`repo-main/…`) while
//! model paths are relative to the model's root: [`Archive::locate_root`]
//! finds that folder and [`Archive::use_root`] makes reads go through it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::io::{Cursor, Read};

use crate::{path, Lossy, SourceFile, SourceReader};

/// Upper bound on the bytes an archive may unpack to (all entries together, and
/// the tar inside a gzip stream): guards the page against decompression bombs.
pub const MAX_UNPACKED_BYTES: u64 = 1 << 30;

/// Upper bound on the bytes one entry may unpack to; a larger entry is skipped
/// (no source file a prompt could show is that large), after inflating at
/// most this many bytes plus one.
pub const MAX_ENTRY_BYTES: u64 = 64 << 20;

/// The unpacking limits of [`Archive::parse_with`]; [`Limits::default`] is
/// [`MAX_ENTRY_BYTES`] per entry and [`MAX_UNPACKED_BYTES`] in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes one entry may unpack to; a larger entry is skipped
    /// (an [`Archive::skipped`] entry saying so).
    pub entry: u64,
    /// The most bytes the archive may unpack to: all entries together, the
    /// bytes inflated for skipped oversized entries included, and the tar
    /// inside a gzip stream. Beyond it, [`ArchiveError::TooLarge`].
    pub total: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { entry: MAX_ENTRY_BYTES, total: MAX_UNPACKED_BYTES }
    }
}

/// The container formats recognized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveFormat {
    /// PKZIP (stored or deflated entries).
    Zip,
    /// Plain (ustar, GNU or v7) tar.
    Tar,
    /// A tar inside a gzip stream.
    TarGz,
}

impl fmt::Display for ArchiveFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::Tar => "tar",
            ArchiveFormat::TarGz => "tar.gz",
        })
    }
}

/// Why bytes could not be read as an archive. Every message names the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// Zero bytes.
    #[error("{name} is empty; expected a zip, tar or tar.gz archive")]
    Empty { name: String },
    /// The bytes carry no known archive signature.
    #[error("{name} is not a zip, tar or tar.gz archive")]
    NotAnArchive { name: String },
    /// A gzip stream whose content is not a tar archive.
    #[error("{name} is gzip-compressed but does not contain a tar archive; expected a tar.gz")]
    GzipWithoutTar { name: String },
    /// The signature matched but the content is damaged or truncated.
    #[error("{name} is a damaged {format} archive: {detail}")]
    Corrupt { name: String, format: ArchiveFormat, detail: String },
    /// Unpacking would exceed [`MAX_UNPACKED_BYTES`] (or [`Limits::total`]).
    #[error("{name} unpacks to more than {limit} bytes; refusing to read it")]
    TooLarge { name: String, limit: u64 },
}

/// An archive entry that was not kept, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEntry {
    /// The entry's name as stored in the archive.
    pub path: String,
    /// Why it was skipped (path escape, link, unsupported compression, …).
    pub reason: String,
}

/// The result of [`Archive::locate_root`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootMatch {
    /// The folder inside the archive that plays the model's root: `""` (the
    /// archive's top) or a path ending with `/` (`"repo-main/"`).
    pub prefix: String,
    /// How many distinct model paths exist under that prefix.
    pub matched: usize,
    /// How many distinct model paths were asked about.
    pub total: usize,
}

/// A source archive unpacked in memory; reads go through [`Archive::root`].
#[derive(Debug, Clone)]
pub struct Archive {
    name: String,
    format: ArchiveFormat,
    files: BTreeMap<String, SourceFile>,
    /// Kept files that were not valid UTF-8 (full paths).
    lossy: BTreeMap<String, Lossy>,
    skipped: Vec<SkippedEntry>,
    root: String,
    limits: Limits,
}

impl Archive {
    /// Unpacks `bytes` (a zip, tar or tar.gz, detected by magic bytes) with
    /// the default [`Limits`]. `name` is only used in error messages.
    pub fn parse(name: &str, bytes: &[u8]) -> Result<Archive, ArchiveError> {
        Archive::parse_with(name, bytes, Limits::default())
    }

    /// [`Archive::parse`] with other unpacking limits (tests, or a page that
    /// wants a smaller budget).
    pub fn parse_with(name: &str, bytes: &[u8], limits: Limits) -> Result<Archive, ArchiveError> {
        let format = detect(bytes).map_err(|e| e.named(name))?;
        let mut archive = Archive {
            name: name.to_owned(),
            format,
            files: BTreeMap::new(),
            lossy: BTreeMap::new(),
            skipped: Vec::new(),
            root: String::new(),
            limits,
        };
        match format {
            ArchiveFormat::Zip => archive.read_zip(bytes)?,
            ArchiveFormat::Tar => archive.read_tar(bytes)?,
            ArchiveFormat::TarGz => {
                let tar = gunzip(bytes, limits.total).map_err(|detail| match detail {
                    Gunzip::TooLarge => ArchiveError::TooLarge { name: name.to_owned(), limit: limits.total },
                    Gunzip::Corrupt(detail) => ArchiveError::Corrupt { name: name.to_owned(), format, detail },
                })?;
                if !looks_like_tar(&tar) {
                    return Err(ArchiveError::GzipWithoutTar { name: name.to_owned() });
                }
                archive.read_tar(&tar)?;
            }
        }
        Ok(archive)
    }

    /// The name given to [`Archive::parse`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The detected container format.
    pub fn format(&self) -> ArchiveFormat {
        self.format
    }

    /// Number of files kept (text and binary).
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when the archive holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Every kept file path (full, ignoring the root), in byte order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Entries that were not kept, in archive order.
    pub fn skipped(&self) -> &[SkippedEntry] {
        &self.skipped
    }

    /// Every kept file that is not valid UTF-8 and was decoded lossily (full
    /// path, ignoring the root; byte order), with what was replaced. Reads
    /// answer the same through [`SourceReader::read_noted`].
    pub fn lossy_files(&self) -> impl Iterator<Item = (&str, Lossy)> {
        self.lossy.iter().map(|(p, l)| (p.as_str(), *l))
    }

    /// The folder reads go through: `""` or a prefix ending with `/`.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Makes reads go through `prefix` (`"repo-main"` and `"repo-main/"` are the
    /// same; `""` is the archive's top). An escaping prefix is refused.
    pub fn set_root(&mut self, prefix: &str) -> Result<(), String> {
        if matches!(prefix, "" | "." | "./") {
            self.root.clear();
            return Ok(());
        }
        let mut p = path::normalize(prefix)?;
        p.push('/');
        self.root = p;
        Ok(())
    }

    /// Finds the folder under which most of `model_paths` exist.
    ///
    /// Every archive file whose path ends with a model path (at a `/`
    /// boundary) proposes the folder before that suffix. The winner has the
    /// most distinct model paths present under it; ties go to the shortest
    /// prefix, then the byte-smallest. With no match at all the prefix is `""`.
    /// Model paths that could escape the root never match (they still count
    /// in `total`).
    pub fn locate_root(&self, model_paths: &[&str]) -> RootMatch {
        let mut by_base: HashMap<&str, Vec<&str>> = HashMap::new();
        for p in self.files.keys() {
            by_base.entry(basename(p)).or_default().push(p);
        }
        let mut seen: HashSet<String> = HashSet::new();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for raw in model_paths {
            let norm = path::normalize(raw);
            let key = match &norm {
                Ok(p) => p.clone(),
                Err(_) => format!("\0{raw}"),
            };
            if !seen.insert(key) {
                continue;
            }
            let Ok(model_path) = norm else { continue };
            let Some(candidates) = by_base.get(basename(&model_path)) else { continue };
            let mut prefixes: Vec<&str> = candidates
                .iter()
                .filter_map(|full| {
                    let prefix = full.strip_suffix(model_path.as_str())?;
                    (prefix.is_empty() || prefix.ends_with('/')).then_some(prefix)
                })
                .collect();
            prefixes.sort_unstable();
            prefixes.dedup();
            for prefix in prefixes {
                *counts.entry(prefix).or_default() += 1;
            }
        }
        let best =
            counts.into_iter().min_by(|(pa, ca), (pb, cb)| cb.cmp(ca).then(pa.len().cmp(&pb.len())).then(pa.cmp(pb)));
        let (prefix, matched) = best.map(|(p, c)| (p.to_owned(), c)).unwrap_or_default();
        RootMatch { prefix, matched, total: seen.len() }
    }

    /// [`Archive::locate_root`], then reads go through the found prefix.
    pub fn use_root(&mut self, model_paths: &[&str]) -> RootMatch {
        let found = self.locate_root(model_paths);
        self.root = found.prefix.clone();
        found
    }

    fn corrupt(&self, detail: impl fmt::Display) -> ArchiveError {
        ArchiveError::Corrupt { name: self.name.clone(), format: self.format, detail: detail.to_string() }
    }

    fn too_large(&self) -> ArchiveError {
        ArchiveError::TooLarge { name: self.name.clone(), limit: self.limits.total }
    }

    fn skip_oversized(&mut self, path: impl Into<String>) {
        let reason = format!("it unpacks to more than {} bytes, the most one entry may", self.limits.entry);
        self.skip(path, reason);
    }

    fn skip(&mut self, path: impl Into<String>, reason: impl Into<String>) {
        self.skipped.push(SkippedEntry { path: path.into(), reason: reason.into() });
    }

    fn keep(&mut self, raw_name: &str, bytes: &[u8]) {
        match path::normalize(raw_name) {
            Ok(key) => {
                let (file, lossy) = SourceFile::decode(bytes);
                match lossy {
                    Some(l) => self.lossy.insert(key.clone(), l),
                    None => self.lossy.remove(&key),
                };
                self.files.insert(key, file);
            }
            Err(reason) => self.skip(raw_name, reason),
        }
    }

    fn read_zip(&mut self, bytes: &[u8]) -> Result<(), ArchiveError> {
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| self.corrupt(e))?;
        let mut budget = self.limits.total;
        for i in 0..zip.len() {
            let stored_name = zip
                .name_for_index(i)
                .and_then(Result::ok)
                .map(std::borrow::Cow::into_owned)
                .unwrap_or_else(|| format!("#{i}"));
            let mut file = match zip.by_index(i) {
                Ok(f) => f,
                Err(
                    e @ (zip::result::ZipError::UnsupportedArchive(_)
                    | zip::result::ZipError::CompressionMethodNotSupported(_)
                    | zip::result::ZipError::InvalidPassword),
                ) => {
                    self.skip(stored_name, format!("cannot be read by this build: {e}"));
                    continue;
                }
                Err(e) => return Err(self.corrupt(format_args!("entry `{stored_name}`: {e}"))),
            };
            if file.is_dir() {
                continue;
            }
            let entry_name = match file.name() {
                Ok(n) => n.into_owned(),
                Err(e) => {
                    drop(file);
                    self.skip(stored_name, format!("its name cannot be decoded: {e}"));
                    continue;
                }
            };
            if file.is_symlink() {
                drop(file);
                self.skip(entry_name, "a symbolic link, not a file");
                continue;
            }
            // The declared size first (nothing inflated), then a reader that
            // stops one byte past the limit whatever the header says.
            let declared = file.size();
            let entry_limit = self.limits.entry;
            if declared > entry_limit {
                drop(file);
                self.skip_oversized(entry_name);
                continue;
            }
            if declared > budget {
                return Err(self.too_large());
            }
            let cap = entry_limit.min(budget);
            let (content, read) = read_capped(&mut file, declared, cap);
            drop(file);
            let inflated = content.len() as u64;
            if inflated > cap {
                if inflated > budget {
                    return Err(self.too_large());
                }
                // Over the entry limit (its header lied): dropped, but what was
                // inflated counts against the archive's budget.
                budget -= inflated;
                self.skip_oversized(entry_name);
                continue;
            }
            if let Err(e) = read {
                return Err(self.corrupt(format_args!("entry `{entry_name}`: {e}")));
            }
            budget -= inflated;
            self.keep(&entry_name, &content);
        }
        Ok(())
    }

    fn read_tar(&mut self, bytes: &[u8]) -> Result<(), ArchiveError> {
        let mut budget = self.limits.total;
        let mut tar = tar::Archive::new(bytes);
        let entries = tar.entries().map_err(|e| self.corrupt(e))?;
        for entry in entries {
            let mut entry = entry.map_err(|e| self.corrupt(e))?;
            let entry_name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
            let kind = entry.header().entry_type();
            if kind.is_dir() {
                continue;
            }
            if kind.is_symlink() || kind.is_hard_link() {
                self.skip(entry_name, "a link, not a file");
                continue;
            }
            if !(kind.is_file() || kind.is_contiguous()) {
                if !(kind.is_pax_global_extensions() || kind.is_pax_local_extensions() || kind.is_gnu_longname()) {
                    self.skip(entry_name, "not a regular file");
                }
                continue;
            }
            if std::str::from_utf8(&entry.path_bytes()).is_err() {
                self.skip(entry_name, "its name is not UTF-8");
                continue;
            }
            // A tar entry holds exactly its declared size (it is how the
            // reader finds the next header), and its bytes are already in
            // memory; the limits are checked on it, reads are bounded anyway.
            let declared = entry.size();
            if declared > self.limits.entry {
                self.skip_oversized(entry_name);
                continue;
            }
            if declared > budget {
                return Err(self.too_large());
            }
            let mut content = Vec::with_capacity(declared.min(1 << 20) as usize);
            (&mut entry)
                .take(declared)
                .read_to_end(&mut content)
                .map_err(|e| self.corrupt(format_args!("entry `{entry_name}`: {e}")))?;
            budget -= content.len() as u64;
            if (content.len() as u64) < declared {
                return Err(self.corrupt(format_args!(
                    "entry `{entry_name}` is cut short ({} of {declared} bytes)",
                    content.len()
                )));
            }
            self.keep(&entry_name, &content);
        }
        Ok(())
    }
}

/// Reads `r` to its end, or to one byte past `cap`, whichever comes first:
/// however much the entry really holds, at most `cap + 1` bytes are inflated
/// and kept. `declared` (the header's size, not trusted) only sizes the first
/// allocation. The caller tells "over the cap" by a length above `cap`.
fn read_capped(r: &mut dyn Read, declared: u64, cap: u64) -> (Vec<u8>, std::io::Result<usize>) {
    let mut content = Vec::with_capacity(declared.min(cap).min(1 << 20) as usize);
    let read = r.take(cap.saturating_add(1)).read_to_end(&mut content);
    (content, read)
}

impl SourceReader for Archive {
    fn read(&self, path: &str) -> SourceFile {
        self.read_noted(path).0
    }

    fn read_noted(&self, path: &str) -> (SourceFile, Option<Lossy>) {
        match path::normalize(path) {
            Ok(key) => {
                let full = format!("{}{key}", self.root);
                (self.files.get(&full).cloned().unwrap_or(SourceFile::Missing), self.lossy.get(&full).copied())
            }
            Err(reason) => (SourceFile::Rejected(reason), None),
        }
    }
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// A detection failure before the archive has a name attached.
enum Unrecognized {
    Empty,
    Unknown,
}

impl Unrecognized {
    fn named(self, name: &str) -> ArchiveError {
        let name = name.to_owned();
        match self {
            Unrecognized::Empty => ArchiveError::Empty { name },
            Unrecognized::Unknown => ArchiveError::NotAnArchive { name },
        }
    }
}

fn detect(bytes: &[u8]) -> Result<ArchiveFormat, Unrecognized> {
    if bytes.is_empty() {
        return Err(Unrecognized::Empty);
    }
    if bytes.len() >= 4 && bytes[..2] == *b"PK" && matches!((bytes[2], bytes[3]), (3, 4) | (5, 6) | (7, 8)) {
        return Ok(ArchiveFormat::Zip);
    }
    if bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b {
        return Ok(ArchiveFormat::TarGz);
    }
    if looks_like_tar(bytes) {
        return Ok(ArchiveFormat::Tar);
    }
    Err(Unrecognized::Unknown)
}

/// A tar starts with a 512-byte header carrying `ustar` at offset 257 (POSIX
/// and GNU) or, for old v7 archives, a valid header checksum; an all-zero
/// first block is an empty tar.
fn looks_like_tar(bytes: &[u8]) -> bool {
    if bytes.len() < 512 {
        return false;
    }
    let header = &bytes[..512];
    if &header[257..262] == b"ustar" {
        return true;
    }
    if header.iter().all(|b| *b == 0) {
        return true;
    }
    let stored = std::str::from_utf8(&header[148..156])
        .ok()
        .map(|s| s.trim_matches(|c: char| c == '\0' || c == ' '))
        .filter(|s| !s.is_empty())
        .and_then(|s| u32::from_str_radix(s, 8).ok());
    let computed: u32 =
        header.iter().enumerate().map(|(i, b)| if (148..156).contains(&i) { 32 } else { u32::from(*b) }).sum();
    stored == Some(computed)
}

enum Gunzip {
    TooLarge,
    Corrupt(String),
}

fn gunzip(bytes: &[u8], limit: u64) -> Result<Vec<u8>, Gunzip> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| Gunzip::Corrupt(format!("the gzip stream cannot be decompressed: {e}")))?;
    if out.len() as u64 > limit {
        return Err(Gunzip::TooLarge);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_entry_is_read_only_to_one_byte_past_the_cap() {
        // An entry whose header says 10 bytes and that never ends.
        let (content, read) = read_capped(&mut std::io::repeat(b'0'), 10, 4096);
        assert!(read.is_ok());
        assert_eq!(content.len(), 4097);
        assert!(content.capacity() < 2 * 4097, "the declared size sized the first allocation only");
        let (content, _) = read_capped(&mut &b"short"[..], 1 << 40, 4096);
        assert_eq!((content.as_slice(), content.capacity() <= 1 << 20), (&b"short"[..], true));
    }
}
