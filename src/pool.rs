//! A bounded pool of worker threads with a bounded queue (CONTRACT §3.11, version 1.1).
//!
//! Version 1 started a thread per background hook: 300 fires of a non-blocking event with two
//! slow hooks made 601 threads and 600 processes in 0.4 s. A pool caps both: at most
//! `max_threads` jobs run, at most `queue_cap` wait, and [`Pool::submit`] refuses the rest so
//! the caller can count them. Threads are started on demand and leave after a few idle
//! seconds, so an idle engine holds none. Used per engine for background hooks (and meant for
//! asynchronous fires too).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Background hooks of one engine that run at once (each may be a process).
pub const BACKGROUND_THREADS: usize = 8;
/// Background hooks of one engine that may wait for a thread; beyond, they are dropped.
pub const BACKGROUND_QUEUE: usize = 256;
/// A worker with nothing to do for this long exits.
const IDLE_EXIT: Duration = Duration::from_secs(5);

pub type Job = Box<dyn FnOnce() + Send + 'static>;

pub struct Pool {
    shared: Arc<Shared>,
}

struct Shared {
    name: &'static str,
    max_threads: usize,
    queue_cap: usize,
    state: Mutex<State>,
    /// Signalled when a job is queued or the pool shuts down.
    work: Condvar,
    /// Signalled when the pool becomes empty (nothing queued, nothing running).
    empty: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    threads: usize,
    idle: usize,
    running: usize,
    handles: Vec<JoinHandle<()>>,
    shutdown: bool,
    dropped: u64,
    /// Threads blocked in [`Pool::drain`]. With the idle count, it lets the hot path skip
    /// `notify_*`: std's futex condvar makes a syscall on every notify, waiter or not, and an
    /// async fire round trip crosses the pool twice.
    draining: usize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Pool {
    pub fn new(name: &'static str, max_threads: usize, queue_cap: usize) -> Pool {
        let shared = Shared {
            name,
            max_threads: max_threads.max(1),
            queue_cap,
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            empty: Condvar::new(),
        };
        Pool { shared: Arc::new(shared) }
    }

    /// Queues a job. `Err` gives it back when the pool is saturated (every thread busy and the
    /// queue full), or when no thread can be started and none is running.
    pub fn submit(&self, job: Job) -> Result<(), Job> {
        let mut st = self.shared.lock();
        if st.idle == 0 && st.threads < self.shared.max_threads {
            // Reap workers that exited, so a long-running host does not accumulate handles.
            let (done, alive): (Vec<_>, Vec<_>) = st.handles.drain(..).partition(|h| h.is_finished());
            st.handles = alive;
            drop(done);
            let shared = self.shared.clone();
            match std::thread::Builder::new().name(self.shared.name.into()).spawn(move || worker(&shared)) {
                Ok(h) => {
                    st.threads += 1;
                    st.handles.push(h);
                }
                Err(_) if st.threads == 0 => {
                    st.dropped += 1;
                    return Err(job);
                }
                Err(_) => {}
            }
        }
        // Room: the queue, plus the threads that are not running a job (they take one at once).
        if st.queue.len() >= self.shared.queue_cap + st.threads.saturating_sub(st.running) {
            st.dropped += 1;
            return Err(job);
        }
        st.queue.push_back(job);
        if st.idle > 0 {
            self.shared.work.notify_one();
        }
        Ok(())
    }

    /// Jobs refused since the pool was created.
    pub fn dropped(&self) -> u64 {
        self.shared.lock().dropped
    }

    /// Waits until nothing is queued or running.
    pub fn drain(&self) {
        self.drain_until(None);
    }

    /// [`Pool::drain`] until `deadline` (`None`: no limit). Whether the pool is empty.
    /// Never called from one of the pool's own threads (it would wait for itself).
    pub fn drain_until(&self, deadline: Option<Instant>) -> bool {
        let mut st = self.shared.lock();
        st.draining += 1;
        while !st.queue.is_empty() || st.running > 0 {
            st = match deadline {
                None => self.shared.empty.wait(st).unwrap_or_else(PoisonError::into_inner),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    self.shared.empty.wait_timeout(st, left).unwrap_or_else(PoisonError::into_inner).0
                }
            };
        }
        st.draining -= 1;
        st.queue.is_empty() && st.running == 0
    }

    /// Whether the calling thread is one of this pool's workers.
    fn on_own_thread(&self) -> bool {
        let me = std::thread::current().id();
        self.shared.lock().handles.iter().any(|h| h.thread().id() == me)
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Dropped by one of its own jobs (the job held the last reference to the pool's owner):
        // draining would wait for that job, that is, for itself. The engine's free drains its
        // pools before it lets go, so this is only a guard.
        if !self.on_own_thread() {
            self.drain();
        }
        let handles = {
            let mut st = self.shared.lock();
            st.shutdown = true;
            std::mem::take(&mut st.handles)
        };
        self.shared.work.notify_all();
        let me = std::thread::current().id();
        for h in handles {
            if h.thread().id() != me {
                let _ = h.join();
            }
        }
    }
}

fn worker(shared: &Shared) {
    let mut st = shared.lock();
    loop {
        if let Some(job) = st.queue.pop_front() {
            st.running += 1;
            drop(st);
            // A panicking job must not take the worker's count with it; the job's own caller
            // has no one to report to (it is in the background), so it is only contained.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            st = shared.lock();
            st.running -= 1;
            if st.queue.is_empty() && st.running == 0 && st.draining > 0 {
                shared.empty.notify_all();
            }
            continue;
        }
        if st.shutdown {
            break;
        }
        st.idle += 1;
        let (next, timeout) = shared.work.wait_timeout(st, IDLE_EXIT).unwrap_or_else(PoisonError::into_inner);
        st = next;
        st.idle -= 1;
        if timeout.timed_out() && st.queue.is_empty() {
            break;
        }
    }
    st.threads -= 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn bounded_and_drained() {
        let pool = Pool::new("test", 2, 3);
        let ran = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let mut refused = 0;
        for _ in 0..10 {
            let (ran, gate) = (ran.clone(), gate.clone());
            let job: Job = Box::new(move || {
                let mut open = gate.0.lock().unwrap();
                while !*open {
                    open = gate.1.wait(open).unwrap();
                }
                ran.fetch_add(1, Ordering::SeqCst);
            });
            if pool.submit(job).is_err() {
                refused += 1;
            }
        }
        assert_eq!(refused, 5, "2 running + 3 queued, the rest refused");
        assert_eq!(pool.dropped(), 5);
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        pool.drain();
        assert_eq!(ran.load(Ordering::SeqCst), 5);
        assert!(pool.submit(Box::new(|| panic!("contained"))).is_ok());
        pool.drain();
    }
}
