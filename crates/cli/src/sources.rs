//! Source text for commands that read it (`explain`, `explore`): `--src
//! DIR|ZIP|TAR.GZ`, or else the model's recorded root.

use std::path::{Path, PathBuf};

use sources::{Archive, Lossy, SourceFile, SourceReader};

use crate::Failure;

/// Source files under a directory on disk (the CLI's own reader). Bytes are
/// classified as an archive's are ([`SourceFile::decode`]): a file that is not
/// valid UTF-8 is read lossily, and [`SourceReader::read_noted`] says so.
struct DirSources {
    root: PathBuf,
}

impl SourceReader for DirSources {
    fn read(&self, path: &str) -> SourceFile {
        self.read_noted(path).0
    }

    fn read_noted(&self, path: &str) -> (SourceFile, Option<Lossy>) {
        let rel = match sources::path::normalize(path) {
            Ok(p) => p,
            Err(why) => return (SourceFile::Rejected(why), None),
        };
        match std::fs::read(self.root.join(rel)) {
            Ok(bytes) => SourceFile::decode(&bytes),
            Err(_) => (SourceFile::Missing, None),
        }
    }
}

/// Where source text comes from, and what to say about it.
pub struct Src {
    /// `None`: no source (the model's recorded root is not there and no `--src` was given).
    pub reader: Option<Box<dyn SourceReader>>,
    /// A line for stderr describing the source (root, archive match, absence).
    pub note: Option<String>,
}

impl Src {
    /// The reader, or an empty one when there is no source.
    pub fn reader_or_empty(&self) -> &dyn SourceReader {
        static EMPTY: std::sync::OnceLock<sources::MemorySources> = std::sync::OnceLock::new();
        match &self.reader {
            Some(r) => r.as_ref(),
            None => EMPTY.get_or_init(sources::MemorySources::default),
        }
    }
}

/// Opens `--src` (a directory, a .zip or a .tar.gz) or, without it, the
/// model's recorded root. `probe` is a file of the model that a directory
/// given as `--src` must hold (a wrong root is an error, not a run without
/// source).
pub fn open_sources(src: Option<&Path>, m: &model::Model, probe: Option<String>) -> Result<Src, Failure> {
    let Some(src) = src else {
        // The model's recorded root, relative to the working directory.
        let root = PathBuf::from(&m.header().root);
        if root.is_dir() {
            return Ok(Src { reader: Some(Box::new(DirSources { root })), note: None });
        }
        let note = format!("source root {} (the model's recorded root) was not found", root.display());
        return Ok(Src { reader: None, note: Some(note) });
    };
    if src.is_dir() {
        if let Some(probe) = probe {
            if !src.join(&probe).is_file() {
                return Err(Failure::Usage(format!(
                    "--src {}: the model's file {probe} is not there, so this is not the source root the model was extracted from\nhint: pass the directory that the model's anchors are relative to (the model recorded {:?})",
                    src.display(),
                    m.header().root
                )));
            }
        }
        return Ok(Src { reader: Some(Box::new(DirSources { root: src.to_owned() })), note: None });
    }
    let bytes =
        std::fs::read(src).map_err(|e| Failure::Usage(format!("--src {}: cannot be read: {e}", src.display())))?;
    let name = src.display().to_string();
    let mut archive = Archive::parse(&name, &bytes).map_err(|e| Failure::Usage(e.to_string()))?;
    let paths: Vec<&str> = m.files().iter().map(String::as_str).collect();
    let matched = archive.use_root(&paths);
    if matched.matched == 0 {
        return Err(Failure::Usage(format!(
            "--src {name}: none of the model's {} files is in this archive\nhint: the archive must hold the sources the model was extracted from",
            matched.total
        )));
    }
    let root =
        if matched.prefix.is_empty() { "the archive's top level".to_owned() } else { format!("{:?}", matched.prefix) };
    let note = format!(
        "source: {name} ({} files), root {root}: {} of the model's {} files found",
        archive.len(),
        matched.matched,
        matched.total
    );
    Ok(Src { reader: Some(Box::new(archive)), note: Some(note) })
}
