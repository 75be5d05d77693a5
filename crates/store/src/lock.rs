//! One writer per store, natively: an operating-system lock on the file
//! `<store>-lock` beside the store, taken without waiting when a writer
//! opens the store and held until the [`crate::Store`] is dropped (process
//! exit and `kill -9` release it too: the kernel drops the lock with the
//! file descriptor).
//!
//! The lock file holds the holder's process id as text, so a refused writer
//! can name the process it lost to. A clean close removes it (one file
//! stays beside the model); a killed writer leaves it, unlocked, for the
//! next to take. Removal cannot let two writers in: a writer that locked a
//! file checks that the path still names that very file (same device and
//! inode) and starts again if it was removed or replaced meanwhile.
//!
//! Readers never take it: a reader is not blocked by a writer (WAL).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::StoreError;

/// The lock file of a store: `<store>-lock` (beside SQLite's `-wal` / `-shm`).
pub fn lock_path_for(store: &Path) -> PathBuf {
    let mut s = store.as_os_str().to_owned();
    s.push("-lock");
    PathBuf::from(s)
}

/// A held writer lock; released (and its file removed) when dropped.
#[derive(Debug)]
pub struct WriterLock {
    file: File,
    path: PathBuf,
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Removed while still locked, and only if the path is still this file
        // (`take` never keeps a lock on a removed file).
        if same_file(&self.path, &self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = self.file.unlock();
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(path: &Path, _file: &File) -> bool {
    path.exists()
}

impl WriterLock {
    /// Takes the lock of `store` without waiting. Refused with
    /// [`StoreError::Locked`] (naming the holder's pid when it wrote one)
    /// while another open store holds it — in this process or another.
    pub fn take(store: &Path) -> Result<WriterLock, StoreError> {
        let path = lock_path_for(store);
        // A few rounds at most: each one lost means another writer removed the file just then.
        for _ in 0..16 {
            if let Some(lock) = Self::try_take(store, &path)? {
                return Ok(lock);
            }
        }
        Err(StoreError::Locked { path: store.to_owned(), pid: None })
    }

    /// One attempt: `None` when the file locked was removed meanwhile.
    fn try_take(store: &Path, path: &Path) -> Result<Option<WriterLock>, StoreError> {
        let path = path.to_owned();
        let io = |op: &'static str| {
            let path = path.clone();
            move |source| StoreError::Io { path, op, source }
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io("opening the writer lock"))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                // The holder writes its pid just after it locks: give it a moment.
                let mut pid = None;
                for _ in 0..50 {
                    let mut text = String::new();
                    let _ = file.seek(SeekFrom::Start(0)).and_then(|_| file.read_to_string(&mut text));
                    pid = text.trim().parse::<u32>().ok();
                    if pid.is_some() {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                return Err(StoreError::Locked { path: store.to_owned(), pid });
            }
            Err(TryLockError::Error(e)) => return Err(io("taking the writer lock")(e)),
        }
        if !same_file(&path, &file) {
            return Ok(None);
        }
        // Ours: say who holds it (best effort: on a full disk the lock still holds).
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(format!("{}\n", std::process::id()).as_bytes()));
        Ok(Some(WriterLock { file, path }))
    }
}
