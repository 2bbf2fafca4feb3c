//! Cancelling a fire (docs/abi.md "Host callbacks", `oh_hooks_cancel`): one token per asynchronous fire, seen
//! by every wait of that fire's hooks: the command runner's `poll` loop (through an eventfd),
//! callback waits (through their condition variable) and the walk between hooks.
//!
//! The eventfd is made only when a command hook first waits under the token, so a fire that runs
//! no command costs no file descriptor.

use crate::sync::Unpoison;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::wake::WakeFd;

/// Something waiting on a condition variable that must wake when the fire is cancelled.
pub trait Wake: Send + Sync {
    fn wake(&self);
}

#[derive(Default)]
pub struct Cancel {
    /// Read without the lock on every check; written only under it.
    flag: AtomicBool,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    fd: Option<WakeFd>,
    waiters: Vec<(u64, Arc<dyn Wake>)>,
    next: u64,
}

impl Cancel {
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Cancels: every wait of the fire wakes and sees [`Cancel::is_cancelled`]. Idempotent.
    pub fn cancel(&self) {
        let waiters = {
            let mut inner = self.lock();
            if self.flag.swap(true, Ordering::SeqCst) {
                return;
            }
            if let Some(fd) = &inner.fd {
                fd.signal();
            }
            std::mem::take(&mut inner.waiters)
        };
        for (_, w) in waiters {
            w.wake();
        }
    }

    /// An fd that becomes readable on cancellation, for a `poll` loop. `None` when already
    /// cancelled, or when no eventfd can be had (then the loop only sees the flag at its next
    /// wake-up, which a hook's timeout bounds).
    pub fn fd(&self) -> Option<RawFd> {
        let mut inner = self.lock();
        if self.is_cancelled() {
            return None;
        }
        if inner.fd.is_none() {
            inner.fd = Some(super::fallback::cancel_fd()?);
        }
        inner.fd.as_ref().map(WakeFd::fd)
    }

    /// Registers a waiter to wake on cancellation. `None` when already cancelled. The returned
    /// key unregisters it ([`Cancel::forget`]).
    pub fn watch(&self, waiter: Arc<dyn Wake>) -> Option<u64> {
        let mut inner = self.lock();
        if self.is_cancelled() {
            return None;
        }
        inner.next += 1;
        let key = inner.next;
        inner.waiters.push((key, waiter));
        Some(key)
    }

    pub fn forget(&self, key: u64) {
        self.lock().waiters.retain(|(k, _)| *k != key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unpoisoned()
    }
}

/// A fire's cancellation as a wait sees it: [`Cancel`], or a stand-in in tests.
pub trait Cancellation {
    fn is_cancelled(&self) -> bool;
    /// An fd that becomes readable once cancelled, for `poll`; `None`: the flag must be looked
    /// at every so often.
    fn fd(&self) -> Option<RawFd>;
}

impl Cancellation for Cancel {
    fn is_cancelled(&self) -> bool {
        Cancel::is_cancelled(self)
    }

    fn fd(&self) -> Option<RawFd> {
        Cancel::fd(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fd_becomes_readable_and_waiters_wake() {
        struct W(AtomicBool);
        impl Wake for W {
            fn wake(&self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let c = Cancel::default();
        let fd = c.fd().unwrap();
        let w = Arc::new(W(AtomicBool::new(false)));
        let gone = Arc::new(W(AtomicBool::new(false)));
        c.watch(w.clone()).unwrap();
        let key = c.watch(gone.clone()).unwrap();
        c.forget(key);
        c.cancel();
        c.cancel();
        assert!(c.is_cancelled());
        assert!(w.0.load(Ordering::SeqCst));
        assert!(!gone.0.load(Ordering::SeqCst), "a forgotten waiter is not woken");
        let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd.
        assert_eq!(unsafe { libc::poll(&mut p, 1, 0) }, 1);
        assert!(c.fd().is_none() && c.watch(w).is_none(), "after cancel there is nothing to wait for");
    }
}
