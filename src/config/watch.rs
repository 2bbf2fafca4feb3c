//! Noticing that config files changed (docs/config.md "Live reload"): fingerprints of the watched files, read
//! at most once per interval on a coarse clock, and the rule for when a change may be adopted:
//! only once it has settled (the same fingerprints at two checks at least [`SETTLE`] apart, or,
//! version 1.2, modification times already [`SETTLE`] old when the change is noticed), so a file
//! caught between an editor's truncate and its write is never loaded, while a deny rule saved a
//! second ago applies to the very next fire.

use crate::sync::Unpoison;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Config files are looked at, on fire, at most this often.
pub const CHECK_INTERVAL: Duration = Duration::from_millis(250);

/// A changed file is adopted when its fingerprint has not changed for at least this long.
pub const SETTLE: Duration = Duration::from_millis(100);

/// The files whose changes reload the engine: the config files, then the trust store.
pub struct Watch {
    pub config_files: Vec<PathBuf>,
    pub trust_store: Option<PathBuf>,
    pub state: Mutex<State>,
    /// `coarse_now()` before which no fire looks at the files again.
    pub next_check: AtomicU64,
    /// A copy of `State::retry` that fires read without the lock.
    retrying: AtomicBool,
}

pub type Fingerprints = Vec<Option<Fingerprint>>;

/// What the watcher knows; locked by the one thread that checks.
pub struct State {
    /// The fingerprints the current config was read from.
    pub adopted: Fingerprints,
    /// Fingerprints different from `adopted`, first seen at `coarse_now()` time `.1`.
    pub pending: Option<(Fingerprints, u64)>,
    /// The last read failed (not "does not exist"): read again at the next check even if no
    /// fingerprint changed, because nothing was learnt from the failed read.
    pub retry: bool,
}

/// What a check decided.
#[derive(Debug, PartialEq)]
pub enum Check {
    /// Nothing to do.
    Unchanged,
    /// Changed, but not settled yet: look again at the next check.
    Settling,
    /// Read the files now (these fingerprints).
    Read(Fingerprints),
}

/// Enough of a file's metadata to notice an edit, a replacement, a creation or a deletion.
pub type Fingerprint = (u64, u64, i64, i64, i64, i64, u64);

pub fn fingerprint(path: &PathBuf) -> Option<Fingerprint> {
    let m = std::fs::metadata(path).ok()?;
    if m.is_dir() {
        return Some(directory_fingerprint(path, &m));
    }
    Some((m.dev(), m.ino(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec(), m.size()))
}

/// A watched directory (a dialect's `hooks/*.json`): an edit of a file in it changes no metadata
/// of the directory, so its fingerprint folds in each entry's (the newest mtime and ctime, and a
/// hash of every name with its inode, mtime and size). At most [`MAX_DIR_ENTRIES`] entries are
/// looked at: the loader reads no more files than that of one directory either.
fn directory_fingerprint(path: &PathBuf, m: &std::fs::Metadata) -> Fingerprint {
    use std::hash::{Hash, Hasher};
    let mut newest = (m.mtime(), m.mtime_nsec());
    let mut changed = (m.ctime(), m.ctime_nsec());
    let mut hash = std::collections::hash_map::DefaultHasher::new();
    if let Ok(listing) = std::fs::read_dir(path) {
        let mut entries: Vec<(std::ffi::OsString, Option<Fingerprint>)> = listing
            .take(MAX_DIR_ENTRIES)
            .filter_map(Result::ok)
            .map(|e| {
                let p = e.path();
                let f = std::fs::metadata(&p)
                    .ok()
                    .map(|m| (m.dev(), m.ino(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec(), m.size()));
                (e.file_name(), f)
            })
            .collect();
        entries.sort();
        for (name, f) in &entries {
            name.hash(&mut hash);
            f.hash(&mut hash);
            if let Some((_, _, ms, mn, cs, cn, _)) = f {
                newest = newest.max((*ms, *mn));
                changed = changed.max((*cs, *cn));
            }
        }
    }
    (m.dev(), m.ino(), newest.0, newest.1, changed.0, changed.1, hash.finish())
}

/// Entries of one watched directory looked at per check (above the loader's bound).
pub const MAX_DIR_ENTRIES: usize = 1024;

/// The clock [`coarse_now`] reads. On Linux the kernel's coarse clock: a few milliseconds of
/// resolution is plenty for a 250 ms interval, and it is the cheapest clock there is — every fire
/// reads it. macOS and the BSDs have no `CLOCK_MONOTONIC_COARSE`, so the portable build (the
/// `portable` feature, and every target other than Linux: src/os/fallback.rs) reads the plain
/// monotonic clock, which POSIX requires.
#[cfg(not(oh_portable))]
const CLOCK: libc::clockid_t = libc::CLOCK_MONOTONIC_COARSE;
#[cfg(oh_portable)]
const CLOCK: libc::clockid_t = libc::CLOCK_MONOTONIC;

/// Monotonic nanoseconds from `CLOCK`.
pub fn coarse_now() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec; CLOCK_MONOTONIC_COARSE exists since Linux
    // 2.6.32 and CLOCK_MONOTONIC everywhere POSIX is.
    unsafe { libc::clock_gettime(CLOCK, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Watch {
    pub fn files(&self) -> impl Iterator<Item = &PathBuf> {
        self.config_files.iter().chain(self.trust_store.iter())
    }

    pub fn fingerprints(&self) -> Fingerprints {
        self.files().map(fingerprint).collect()
    }

    pub fn new(config_files: Vec<PathBuf>, trust_store: Option<PathBuf>) -> Watch {
        let watch = Watch {
            config_files,
            trust_store,
            state: Mutex::new(State { adopted: Vec::new(), pending: None, retry: false }),
            next_check: AtomicU64::new(coarse_now() + CHECK_INTERVAL.as_nanos() as u64),
            retrying: AtomicBool::new(false),
        };
        // Fingerprints before the first read: an edit racing it is then seen by the next check.
        watch.state.lock().unpoisoned().adopted = watch.fingerprints();
        watch
    }

    pub fn is_empty(&self) -> bool {
        self.config_files.is_empty() && self.trust_store.is_none()
    }

    /// Whether the files should be read now. A change is read only once its fingerprints are
    /// the same at two checks at least [`SETTLE`] apart; a failed read is retried as it is.
    pub fn check(&self, state: &mut State) -> Check {
        let now = self.fingerprints();
        if now == state.adopted {
            state.pending = None;
            return if state.retry { Check::Read(now) } else { Check::Unchanged };
        }
        let t = coarse_now();
        if self.settled_on_disk(&state.adopted, &now) {
            return Check::Read(now);
        }
        match &state.pending {
            Some((seen, since)) if *seen == now && t.saturating_sub(*since) >= SETTLE.as_nanos() as u64 => {
                Check::Read(now)
            }
            Some((seen, _)) if *seen == now => Check::Settling,
            _ => {
                state.pending = Some((now, t));
                Check::Settling
            }
        }
    }

    /// Version 1.2: every file that differs from `old` exists and was last modified at least
    /// [`SETTLE`] ago, so it has settled already and need not wait for a second check. A
    /// deletion (no modification time to judge by) or a time in the future waits as before.
    fn settled_on_disk(&self, old: &Fingerprints, new: &Fingerprints) -> bool {
        let Ok(wall) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) else { return false };
        let wall = wall.as_nanos() as i128;
        let mut any = false;
        for (i, fp) in new.iter().enumerate() {
            if old.get(i) == Some(fp) {
                continue;
            }
            any = true;
            let Some((_, _, secs, nsecs, ..)) = fp else { return false };
            let mtime = *secs as i128 * 1_000_000_000 + *nsecs as i128;
            if wall - mtime < SETTLE.as_nanos() as i128 {
                return false;
            }
        }
        any
    }

    /// The first config file whose fingerprint differs between the two lists.
    pub fn changed_file(&self, old: &Fingerprints, new: &Fingerprints) -> Option<PathBuf> {
        self.config_files.iter().zip(old.iter().zip(new.iter())).find(|(_, (a, b))| a != b).map(|(p, _)| p.clone())
    }

    pub fn set_retry(&self, state: &mut State, retry: bool) {
        state.retry = retry;
        self.retrying.store(retry, Ordering::Relaxed);
    }

    /// The last read failed and must be retried.
    pub fn retrying(&self) -> bool {
        self.retrying.load(Ordering::Relaxed)
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unpoisoned()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The portable build reads the clock every POSIX system has; Linux keeps the coarse one.
    #[test]
    fn the_clock_is_the_one_the_build_can_read_and_it_moves_forward() {
        #[cfg(oh_portable)]
        assert_eq!(CLOCK, libc::CLOCK_MONOTONIC);
        #[cfg(not(oh_portable))]
        assert_eq!(CLOCK, libc::CLOCK_MONOTONIC_COARSE);
        let a = coarse_now();
        std::thread::sleep(std::time::Duration::from_millis(30));
        let b = coarse_now();
        assert!(a > 0 && b > a && b - a >= 20_000_000, "{a} then {b}");
    }
}
