//! The store in a browser (wasm32 only): SQLite on the Origin Private File
//! System through the SAH-pool VFS of `sqlite-wasm-vfs`, in a **dedicated
//! Worker** (sync access handles exist nowhere else).
//!
//! ```text
//! let pool = store::opfs::install().await?;            // once per worker; idempotent
//! let name = store::store_name_for(&header.root, "model.jsonl"); // "/model-<hash>.insights.db"
//! let store = pool.open_writer(&name).await?;           // or Store::open_writer(&name)
//! // … StoreBook, runs, readers: the same API as natively …
//! store.close()?;
//! let bytes = pool.export(&name)?;                      // "download the store"
//! ```
//!
//! How a store behaves here (and not natively):
//!
//! * **Journal:** a rollback journal (`journal_mode = TRUNCATE`,
//!   `synchronous = FULL`): the wasm build has no WAL. Every
//!   [`Store::put_unit`] is one transaction flushed to OPFS before it
//!   returns.
//! * **One connection per store:** the pool does not coordinate two
//!   connections to one file, so a second [`Store`] on a name already open in
//!   this worker is refused ([`StoreError::InUse`]); so are exporting and
//!   deleting an open store.
//! * **Ownership:** there are no process ids. The pool's directory is held by
//!   one worker of the origin at a time ([`install`] fails in a second tab
//!   while the first holds it); across tabs the page holds a Web Lock per
//!   store. Runs are begun with `pid: None`, and the lock holder closes what
//!   a killed tab left open with [`Store::close_open_runs`].
//! * **Names** are flat pool names, `/<stem>-<hash>.insights.db`
//!   ([`store_name_for`]); [`OpfsPool::list`] shows exactly those.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use hashbrown::HashSet;
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;
use sqlite_wasm_rs::vfs::transfer::{DbTransfer, ExportSource};
use sqlite_wasm_rs::vfs::VfsFilesManager;
use sqlite_wasm_vfs::sahpool::{install as install_pool, OpfsSAHError, OpfsSAHPoolCfgBuilder, OpfsSAHPoolUtil};

pub use crate::paths::{is_store_name, store_name_for, STORE_NAME_SUFFIX};
use crate::{Store, StoreError};

/// The SQLite VFS name of the pool (also made SQLite's default VFS).
pub const VFS_NAME: &str = "insights-opfs";
/// The pool's directory under the origin's OPFS root.
pub const DIRECTORY: &str = ".codegraph-insights";
/// Free slots kept for a store that does not exist yet: its file and its
/// journal, twice.
const SPARE_SLOTS: usize = 4;
/// Journal companions of a store file.
const COMPANIONS: [&str; 2] = ["-journal", "-wal"];

/// The installed pool: lists, exports, imports and deletes stores, and opens
/// them with room to grow. Cheap to clone; confined to its worker.
#[derive(Clone)]
pub struct OpfsPool {
    util: OpfsSAHPoolUtil,
}

/// A store kept in the browser.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredStore {
    /// The pool name, e.g. `/model-0123456789.insights.db`: what
    /// [`Store::open_writer`] and the other [`OpfsPool`] methods take.
    pub name: String,
    /// Bytes of the database file; `None` while the store is open in this
    /// worker (ask the open [`Store`]: `page_count * page_size`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// Registers the OPFS pool as SQLite's default VFS, once per worker:
/// calling it again returns the same pool. Fails outside a dedicated worker,
/// or while another tab's worker holds the pool ([`StoreError::Opfs`]).
pub async fn install() -> Result<OpfsPool, StoreError> {
    let cfg = OpfsSAHPoolCfgBuilder::new().vfs_name(VFS_NAME).directory(DIRECTORY).build();
    let util = install_pool::<sqlite_wasm_rs::WasmOsCallback>(&cfg, true)
        .await
        .map_err(|e| pool_error(Path::new(DIRECTORY), "installing the OPFS store pool", e))?;
    let pool = OpfsPool { util };
    pool.make_room().await?;
    Ok(pool)
}

impl OpfsPool {
    /// Ensures free slots for a store that does not exist yet (the pool only
    /// grows asynchronously; SQLite opens synchronously).
    pub async fn make_room(&self) -> Result<(), StoreError> {
        let named = self.util.len().map_err(|e| self.error("", "counting the OPFS pool", e))?;
        self.util.ensure_capacity(named + SPARE_SLOTS).await.map_err(|e| self.error("", "growing the OPFS pool", e))
    }

    /// Opens (creating or migrating) a store for writing, after making room
    /// for it in the pool: [`Store::open_writer`] in a browser.
    pub async fn open_writer(&self, name: &str) -> Result<Store, StoreError> {
        self.make_room().await?;
        Store::open_writer(name)
    }

    /// The stores kept in the browser, sorted by name (journals and files
    /// that are not stores are not listed).
    pub fn list(&self) -> Result<Vec<StoredStore>, StoreError> {
        let names = self.util.names().map_err(|e| self.error("", "listing the OPFS pool", e))?;
        let mut out = Vec::new();
        for name in names.into_iter().filter(|n| is_store_name(n)) {
            let size = match self.util.open_export(&name) {
                Ok(source) => Some(source.size()),
                Err(OpfsSAHError::FileInUse(_)) => None,
                // A journal left by a killed tab: the size is the file's own.
                Err(OpfsSAHError::RecoveryRequired(_)) => {
                    self.recover(&name)?;
                    self.util.open_export(&name).ok().map(|s| s.size())
                }
                Err(e) => return Err(self.error(&name, "measuring a store", e)),
            };
            out.push(StoredStore { name, size });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Whether a store of this name exists.
    pub fn contains(&self, name: &str) -> Result<bool, StoreError> {
        self.util.contains(name).map_err(|e| self.error(name, "looking up a store", e))
    }

    /// The bytes of a closed store ("download the store"): an ordinary SQLite
    /// file (rollback journal mode) that the CLI opens as it is. A journal
    /// left by a killed tab is rolled back first.
    pub fn export(&self, name: &str) -> Result<Vec<u8>, StoreError> {
        match self.util.export_db(name) {
            Err(OpfsSAHError::RecoveryRequired(_)) => {
                self.recover(name)?;
                self.util.export_db(name)
            }
            other => other,
        }
        .map_err(|e| self.error(name, "exporting a store", e))
    }

    /// Keeps `bytes` as the store `name`, after checking they are an insights
    /// store this program can open (a current or older format, see
    /// [`crate::check_store_image`]); an older one is migrated by the next
    /// writer. A name that exists is refused: [`OpfsPool::delete`] it first.
    /// A refusal writes nothing ([`StoreError::ImportRefused`]).
    pub async fn import(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let refuse = |reason: String| StoreError::ImportRefused { path: PathBuf::from(name), reason };
        if !is_store_name(name) {
            return Err(refuse(format!("`{}` is not a store name (/<name>{STORE_NAME_SUFFIX})", name.escape_debug())));
        }
        crate::open::check_store_image(bytes).map_err(refuse)?;
        if self.contains(name)? {
            return Err(refuse("a store of this name exists (delete it first)".into()));
        }
        self.make_room().await?;
        // Checked: signature, size and page alignment; the header's
        // read/write versions are reset to rollback mode (a native store's
        // bytes say WAL).
        self.util.import_db(name, bytes).map_err(|e| match e {
            OpfsSAHError::Transfer(t) => refuse(t.to_string()),
            e => self.error(name, "importing a store", e),
        })
    }

    /// Deletes a closed store and its journal; returns whether it existed.
    pub fn delete(&self, name: &str) -> Result<bool, StoreError> {
        let existed = self.util.remove(name).map_err(|e| self.error(name, "deleting a store", e))?;
        for suffix in COMPANIONS {
            let companion = format!("{name}{suffix}");
            self.util.remove(&companion).map_err(|e| self.error(name, "deleting a store's journal", e))?;
        }
        Ok(existed)
    }

    /// Rolls back a journal left by a killed tab: SQLite recovers a hot
    /// journal on the first read of the file.
    fn recover(&self, name: &str) -> Result<(), StoreError> {
        let _claim = Claim::take(Path::new(name))?;
        let path = Path::new(name);
        let sql = |e| StoreError::Sqlite { path: path.to_owned(), op: "recovering a store's journal", source: e };
        let conn =
            Connection::open_with_flags_and_vfs(name, OpenFlags::SQLITE_OPEN_READ_WRITE, VFS_NAME).map_err(sql)?;
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0)).map_err(sql)?;
        conn.close().map_err(|(_, e)| sql(e))
    }

    fn error(&self, name: &str, op: &'static str, e: OpfsSAHError) -> StoreError {
        pool_error(Path::new(name), op, e)
    }
}

fn pool_error(path: &Path, op: &'static str, e: OpfsSAHError) -> StoreError {
    let message = match &e {
        OpfsSAHError::FileInUse(_) => return StoreError::InUse { path: path.to_owned() },
        OpfsSAHError::FileNotFound(_) => "no store of this name".to_owned(),
        OpfsSAHError::Opfs { message, .. } if message.contains("NoModificationAllowedError") => {
            format!("the store pool is held by another tab or worker of this site ({e})")
        }
        _ => e.to_string(),
    };
    StoreError::Opfs { path: path.to_owned(), op, message }
}

/// Opens the SQLite connection of a store through the pool, refusing
/// before [`install`] (SQLite's default VFS would otherwise be memory: a
/// store that vanishes with the worker).
pub(crate) fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, StoreError> {
    let open = |message: String| StoreError::Open { path: path.to_owned(), message };
    let vfs = std::ffi::CString::new(VFS_NAME).expect("no NUL in the VFS name");
    // SAFETY: looks a VFS up by a NUL-terminated name; nothing is retained.
    if unsafe { sqlite_wasm_rs::sqlite3_vfs_find(vfs.as_ptr()) }.is_null() {
        return Err(open("the OPFS store pool is not installed in this worker (store::opfs::install)".into()));
    }
    Connection::open_with_flags_and_vfs(path, flags, VFS_NAME).map_err(|e| open(e.to_string()))
}

thread_local! {
    static OPEN: RefCell<HashSet<PathBuf>> = RefCell::new(HashSet::new());
}

/// A store file open in this worker: at most one connection per file.
#[derive(Debug)]
pub(crate) struct Claim(PathBuf);

impl Claim {
    pub(crate) fn take(path: &Path) -> Result<Claim, StoreError> {
        let path = path.to_owned();
        if OPEN.with(|open| open.borrow_mut().insert(path.clone())) {
            Ok(Claim(path))
        } else {
            Err(StoreError::InUse { path })
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        OPEN.with(|open| open.borrow_mut().remove(&self.0));
    }
}
