//! Noticing that config files changed (CONTRACT §3.1): fingerprints of the watched files, read
//! at most once per interval on a coarse clock.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Config files are looked at, on fire, at most this often.
pub const CHECK_INTERVAL: Duration = Duration::from_millis(250);

/// The files whose changes reload the engine: the config files, then the trust store.
pub struct Watch {
    pub config_files: Vec<PathBuf>,
    pub trust_store: Option<PathBuf>,
    pub seen: Mutex<Vec<Option<Fingerprint>>>,
    /// `coarse_now()` before which no fire looks at the files again.
    pub next_check: AtomicU64,
}

/// Enough of a file's metadata to notice an edit, a replacement, a creation or a deletion.
pub type Fingerprint = (u64, u64, i64, i64, i64, i64, u64);

pub fn fingerprint(path: &PathBuf) -> Option<Fingerprint> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec(), m.size()))
}

/// Monotonic nanoseconds from the kernel's coarse clock: a few milliseconds of resolution is
/// plenty for a 250 ms interval, and it is the cheapest clock there is — every fire reads it.
pub fn coarse_now() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec; CLOCK_MONOTONIC_COARSE exists since Linux 2.6.32.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Watch {
    pub fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.config_files.iter().chain(self.trust_store.iter())
    }

    pub fn fingerprints(&self) -> Vec<Option<Fingerprint>> {
        self.files().map(fingerprint).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.config_files.is_empty() && self.trust_store.is_none()
    }

    /// True at most once per interval across all threads.
    pub fn due(&self) -> bool {
        let now = coarse_now();
        let next = self.next_check.load(Ordering::Relaxed);
        now >= next
            && self
                .next_check
                .compare_exchange(next, now + CHECK_INTERVAL.as_nanos() as u64, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
    }
}
