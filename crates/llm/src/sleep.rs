//! Waiting between attempts, injectable so that tests never wait.

use std::cell::RefCell;
use std::rc::Rc;

use insights::complete::LocalFuture;

/// Resolves after `ms` milliseconds.
pub trait Sleeper {
    fn sleep(&self, ms: u64) -> LocalFuture<'_, ()>;
}

impl<S: Sleeper + ?Sized> Sleeper for &S {
    fn sleep(&self, ms: u64) -> LocalFuture<'_, ()> {
        (**self).sleep(ms)
    }
}

impl<S: Sleeper + ?Sized> Sleeper for Rc<S> {
    fn sleep(&self, ms: u64) -> LocalFuture<'_, ()> {
        (**self).sleep(ms)
    }
}

/// Records every requested pause and returns at once. Clones share the record.
#[derive(Clone, Debug, Default)]
pub struct RecordingSleeper {
    slept: Rc<RefCell<Vec<u64>>>,
}

impl RecordingSleeper {
    pub fn new() -> RecordingSleeper {
        RecordingSleeper::default()
    }

    /// Every pause asked for, in milliseconds, in order.
    pub fn slept(&self) -> Vec<u64> {
        self.slept.borrow().clone()
    }
}

impl Sleeper for RecordingSleeper {
    fn sleep(&self, ms: u64) -> LocalFuture<'_, ()> {
        self.slept.borrow_mut().push(ms);
        Box::pin(std::future::ready(()))
    }
}
