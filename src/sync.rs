//! Locks that outlive a panic.
//!
//! A hook's callback, an observer or a `done` of the host may panic on an engine thread while
//! one of the engine's locks is held. With poisoning, that one panic would become a panic of
//! every later fire and of `oh_hooks_free` (docs/reliability.md "Reliability": nothing crashes). What these
//! locks guard — counters, maps, queues, slots — is changed in single steps, never left
//! half-updated across a call that can panic, so the guard is taken as it is.

use std::sync::{LockResult, PoisonError};

/// `lock()`, `read()`, `write()`, `wait()`… whether or not a thread panicked while holding it.
pub trait Unpoison<G> {
    fn unpoisoned(self) -> G;
}

impl<G> Unpoison<G> for LockResult<G> {
    fn unpoisoned(self) -> G {
        self.unwrap_or_else(PoisonError::into_inner)
    }
}
