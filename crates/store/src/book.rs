//! The store as a record book (docs/formats/store.md §7, `StoreBook`):
//! fingerprints read once, summaries looked up the first time and memoized
//! (all of them in one scan once single lookups have cost about what the
//! scan costs), `put` committing a whole unit.

use std::cell::{Cell, RefCell};

use hashbrown::HashMap;
use insights::record::{FailureRecord, InsightRecord};
use insights::records::{RecordSource, RecordSummary};
use insights::run::RecordBook;

use crate::{RunHandle, Store, StoreError};

/// The fewest single summary lookups after which the book reads every
/// summary in one table scan; in a store of more than ten times as many
/// records, a tenth of them. A single lookup costs about what scanning ten
/// records does (on OPFS, 0.07 ms against 0.007 ms a record:
/// docs/benchmarks.md "Store on OPFS"), so a plan of a few units makes a
/// few queries, and a plan of a large store, which quotes thousands, pays
/// at most about twice what the scan alone would.
pub const BULK_AFTER: usize = 256;

/// A record book over a store.
pub struct StoreBook<'s> {
    store: &'s Store,
    fingerprints: HashMap<String, String>,
    summaries: RefCell<HashMap<String, Option<RecordSummary>>>,
    summary_reads: Cell<usize>,
    /// Every summary is in `summaries` (read in one scan).
    all_read: Cell<bool>,
    /// The scan was tried (it is tried once; if it fails, single lookups go on).
    scan_tried: Cell<bool>,
    run: Option<RunHandle>,
}

impl<'s> StoreBook<'s> {
    /// Reads every `(id, fingerprint)` pair once.
    pub fn new(store: &'s Store) -> Result<StoreBook<'s>, StoreError> {
        Ok(StoreBook {
            fingerprints: store.fingerprints()?,
            store,
            summaries: RefCell::new(HashMap::new()),
            summary_reads: Cell::new(0),
            all_read: Cell::new(false),
            scan_tried: Cell::new(false),
            run: None,
        })
    }

    /// The run that `put` and `fail` commit under.
    pub fn begin(&mut self, run: RunHandle) {
        self.run = Some(run);
    }

    /// The run begun, if any.
    pub fn run(&self) -> Option<RunHandle> {
        self.run
    }

    pub fn store(&self) -> &'s Store {
        self.store
    }

    /// Summary lookups that reached the database (not the memo); the scan
    /// of them all counts one.
    pub fn summary_reads(&self) -> usize {
        self.summary_reads.get()
    }

    /// The last error of a summary lookup is not kept: a lookup that fails
    /// reads as "not explained" (the prompt says so) and is retried next time.
    fn lookup(&self, id: &str) -> Option<RecordSummary> {
        if let Some(s) = self.summaries.borrow().get(id) {
            return s.clone();
        }
        if self.all_read.get() {
            return None;
        }
        self.summary_reads.set(self.summary_reads.get() + 1);
        if !self.scan_tried.get() && self.summary_reads.get() > BULK_AFTER.max(self.fingerprints.len() / 10) {
            self.scan_tried.set(true);
            if let Ok(all) = self.store.summaries() {
                let mut memo = self.summaries.borrow_mut();
                // What this book committed is in the scan too; what it
                // memoized as missing stays missing unless the scan has it.
                memo.extend(all.into_iter().map(|(id, s)| (id, Some(s))));
                self.all_read.set(true);
                return memo.get(id).cloned().flatten();
            }
        }
        let found = self.store.summary(id).ok()?;
        self.summaries.borrow_mut().insert(id.to_owned(), found.clone());
        found
    }

    /// Commits a finished unit (one transaction) and updates the caches;
    /// refused before [`StoreBook::begin`].
    pub fn put(&mut self, unit_id: &str, records: &[InsightRecord]) -> Result<(), StoreError> {
        let run = self.run.ok_or_else(|| StoreError::NoRun { path: self.store.path().to_owned() })?;
        self.store.put_unit(run, unit_id, records)?;
        let mut summaries = self.summaries.borrow_mut();
        for r in records {
            self.fingerprints.insert(r.id.clone(), r.fingerprint.clone());
            summaries.insert(r.id.clone(), Some(RecordSummary::of(r)));
        }
        Ok(())
    }

    /// Records a failure under the run begun.
    pub fn fail(&mut self, failure: &FailureRecord) -> Result<(), StoreError> {
        let run = self.run.ok_or_else(|| StoreError::NoRun { path: self.store.path().to_owned() })?;
        self.store.fail(run, failure)
    }
}

impl RecordSource for StoreBook<'_> {
    fn fingerprint(&self, id: &str) -> Option<String> {
        self.fingerprints.get(id).cloned()
    }
    fn summary(&self, id: &str) -> Option<RecordSummary> {
        if !self.fingerprints.contains_key(id) {
            return None;
        }
        self.lookup(id)
    }
    fn size(&self) -> usize {
        self.fingerprints.len()
    }
}

impl RecordBook for StoreBook<'_> {
    fn put(&mut self, unit_id: &str, records: &[InsightRecord]) -> Result<(), String> {
        StoreBook::put(self, unit_id, records).map_err(|e| e.to_string())
    }
    fn fail(&mut self, failure: &FailureRecord) -> Result<(), String> {
        StoreBook::fail(self, failure).map_err(|e| e.to_string())
    }
}
