//! A bounded pool of worker threads with a bounded queue (docs/reliability.md "Reliability", version 1.1).
//!
//! Version 1 started a thread per background hook: 300 fires of a non-blocking event with two
//! slow hooks made 601 threads and 600 processes in 0.4 s. A pool caps both: at most
//! `max_threads` jobs run, at most `queue_cap` wait, and [`ThreadPool::submit`] refuses the rest so
//! the caller can count them. Threads are started on demand and leave after a few idle
//! seconds, so an idle engine holds none. Used per engine for background hooks (and meant for
//! asynchronous fires too).

use crate::sync::Unpoison;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Background hooks of one engine that run at once (each may be a process).
pub const BACKGROUND_THREADS: usize = 8;
/// Background hooks of one engine that may wait for a thread; beyond, they are dropped.
pub const BACKGROUND_QUEUE: usize = 256;
/// A worker with nothing to do for this long exits.
const IDLE_EXIT: Duration = Duration::from_secs(5);

pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// What a pool runs: a boxed closure ([`Job`]), or a type of its user's, kept in the queue as it
/// is. The second costs no allocation a job, and a refused one comes back whole, so its owner
/// needs nothing shared to take back what it moved in (an asynchronous fire's `done`).
pub trait Task: Send + 'static {
    fn run(self);
}

impl Task for Job {
    fn run(self) {
        self()
    }
}

pub struct ThreadPool<T: Task = Job> {
    shared: Arc<Shared<T>>,
}

struct Shared<T> {
    name: &'static str,
    max_threads: usize,
    queue_cap: usize,
    /// How long a worker that ran out of jobs keeps looking before it sleeps ([`ThreadPool::spinning`]).
    spin: Duration,
    /// The queue's length, readable without the lock by a spinning worker.
    queued: AtomicUsize,
    state: Mutex<State<T>>,
    /// Signalled when a job is queued or the pool shuts down.
    work: Condvar,
    /// Signalled when the pool becomes empty (nothing queued, nothing running).
    empty: Condvar,
}

struct State<T> {
    queue: VecDeque<T>,
    threads: usize,
    idle: usize,
    running: usize,
    handles: Vec<JoinHandle<()>>,
    shutdown: bool,
    dropped: u64,
    /// Idle threads that are spinning, not sleeping: a job queued while one spins needs no
    /// wake-up (no futex call), and it is taken within a microsecond.
    spinning: usize,
    /// Threads blocked in [`ThreadPool::drain`]. With the idle count, it lets the hot path skip
    /// `notify_*`: std's futex condvar makes a syscall on every notify, waiter or not, and an
    /// async fire round trip crosses the pool twice.
    draining: usize,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unpoisoned()
    }
}

impl<T: Task> ThreadPool<T> {
    pub fn new(name: &'static str, max_threads: usize, queue_cap: usize) -> ThreadPool<T> {
        let state = State {
            queue: VecDeque::new(),
            threads: 0,
            idle: 0,
            running: 0,
            handles: Vec::new(),
            shutdown: false,
            dropped: 0,
            spinning: 0,
            draining: 0,
        };
        let shared = Shared {
            name,
            max_threads: max_threads.max(1),
            queue_cap,
            spin: Duration::ZERO,
            queued: AtomicUsize::new(0),
            state: Mutex::new(state),
            work: Condvar::new(),
            empty: Condvar::new(),
        };
        ThreadPool { shared: Arc::new(shared) }
    }

    /// A worker that runs out of jobs looks for the next one for `spin` (yielding the core to
    /// others as it does) before it sleeps, one worker at a time. For job streams where each
    /// job follows the last one's completion (an asynchronous fire awaited before the next), the
    /// next job then starts without a thread wake-up: one cross-thread hand-off a round trip
    /// instead of two. The cost: at most `spin` of one core's time after the last job of a burst.
    pub fn spinning(mut self, spin: Duration) -> ThreadPool<T> {
        Arc::get_mut(&mut self.shared).expect("set before the pool is used").spin = spin;
        self
    }

    /// Queues a job. `Err` gives it back when the pool is saturated (every thread busy and the
    /// queue full), or when no thread can be started and none is running.
    pub fn submit(&self, job: T) -> Result<(), T> {
        let mut st = self.shared.lock();
        // Idle threads not already claimed by the jobs queued before this one (a thread woken
        // for a job is idle until it takes it).
        let free = st.idle.saturating_sub(st.queue.len());
        if free == 0 && st.threads < self.shared.max_threads {
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
        self.shared.queued.store(st.queue.len(), Ordering::Release);
        // A spinning thread takes it without being woken; wake a sleeping one only for jobs
        // the spinning ones cannot take.
        if st.idle > st.spinning && st.queue.len() > st.spinning {
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

    /// [`ThreadPool::drain`] until `deadline` (`None`: no limit). Whether the pool is empty.
    /// Never called from one of the pool's own threads (it would wait for itself).
    pub fn drain_until(&self, deadline: Option<Instant>) -> bool {
        let mut st = self.shared.lock();
        st.draining += 1;
        while !st.queue.is_empty() || st.running > 0 {
            st = match deadline {
                None => self.shared.empty.wait(st).unpoisoned(),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        break;
                    }
                    self.shared.empty.wait_timeout(st, left).unpoisoned().0
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

impl<T: Task> Drop for ThreadPool<T> {
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

fn worker<T: Task>(shared: &Shared<T>) {
    let mut st = shared.lock();
    loop {
        if let Some(job) = st.queue.pop_front() {
            shared.queued.store(st.queue.len(), Ordering::Release);
            st.running += 1;
            drop(st);
            // A panicking job must not take the worker's count with it; the job's own caller
            // has no one to report to (it is in the background), so it is only contained.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job.run()));
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
        if !shared.spin.is_zero() && st.spinning == 0 && st.draining == 0 {
            st.idle += 1;
            st.spinning += 1;
            drop(st);
            spin_for_work(shared);
            st = shared.lock();
            st.spinning -= 1;
            st.idle -= 1;
            // Looked at again under the lock: a job queued while this thread spun, whose
            // submitter saw it spinning and woke no one, is taken here.
            if !st.queue.is_empty() || st.shutdown {
                continue;
            }
        }
        st.idle += 1;
        let (next, timeout) = shared.work.wait_timeout(st, IDLE_EXIT).unpoisoned();
        st = next;
        st.idle -= 1;
        if timeout.timed_out() && st.queue.is_empty() {
            break;
        }
    }
    st.threads -= 1;
}

/// Waits up to the pool's spin time for a job to be queued, without the lock. The first
/// microseconds spin on the CPU; after that each look yields the core, so that on a machine
/// with few cores the thread about to queue the next job is not kept from running.
fn spin_for_work<T>(shared: &Shared<T>) {
    let start = Instant::now();
    let mut looks = 0u32;
    while shared.queued.load(Ordering::Acquire) == 0 {
        looks += 1;
        if looks < 64 {
            std::hint::spin_loop();
        } else {
            if start.elapsed() >= shared.spin {
                return;
            }
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn bounded_and_drained() {
        let pool: ThreadPool = ThreadPool::new("test", 2, 3);
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

    #[test]
    fn a_spinning_worker_takes_the_next_job_and_never_serializes_a_burst() {
        let pool: ThreadPool = ThreadPool::new("test", 4, 16).spinning(Duration::from_millis(200));
        // Warm: one worker exists and, having run out of jobs, spins.
        let (tx, rx) = std::sync::mpsc::channel();
        let t = tx.clone();
        pool.submit(Box::new(move || t.send(0).unwrap())).ok().unwrap();
        assert_eq!(rx.recv().unwrap(), 0);
        // Two jobs that can only finish together: the second must not wait behind the first
        // just because a spinning worker was there to take the first.
        let gate = Arc::new(std::sync::Barrier::new(2));
        for n in 1..=2 {
            let (gate, tx) = (gate.clone(), tx.clone());
            pool.submit(Box::new(move || {
                gate.wait();
                tx.send(n).unwrap();
            }))
            .ok()
            .unwrap();
        }
        let mut got: Vec<i32> =
            (0..2).map(|_| rx.recv_timeout(Duration::from_secs(10)).expect("both ran at once")).collect();
        got.sort();
        assert_eq!(got, [1, 2]);
        pool.drain();
    }
}
