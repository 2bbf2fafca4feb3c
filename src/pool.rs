//! A bounded pool of engine threads (CONTRACT §3.11): work beyond `threads` queues, work beyond
//! `queue` is refused (the caller decides what refusing means). Threads start on demand and end
//! after a while idle, so an engine that never fires asynchronously costs no thread.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// An idle thread ends after this long without work.
const IDLE: Duration = Duration::from_secs(5);

pub struct Pool {
    shared: Arc<Shared>,
    name: &'static str,
    threads: usize,
    queue: usize,
}

struct Shared {
    state: Mutex<State>,
    work: Condvar,
    /// Signalled when a thread ends or the last job finishes, for [`Pool::join`].
    quiet: Condvar,
}

#[derive(Default)]
struct State {
    jobs: VecDeque<Job>,
    /// Threads alive.
    running: usize,
    /// Threads waiting for work.
    idle: usize,
    /// Jobs being run.
    busy: usize,
    closing: bool,
    handles: Vec<JoinHandle<()>>,
}

impl Pool {
    pub fn new(name: &'static str, threads: usize, queue: usize) -> Pool {
        Pool {
            shared: Arc::new(Shared { state: Mutex::default(), work: Condvar::new(), quiet: Condvar::new() }),
            name,
            threads: threads.max(1),
            queue,
        }
    }

    /// Queues `job`; gives it back when the queue is full (or no thread can be started at all).
    pub fn submit(&self, job: Job) -> Result<(), Job> {
        let mut state = self.lock();
        if state.jobs.len() >= self.queue {
            return Err(job);
        }
        state.jobs.push_back(job);
        // More queued jobs than threads waiting for one: another thread, if the bound allows.
        if state.jobs.len() > state.idle && state.running < self.threads {
            state.handles.retain(|h| !h.is_finished());
            let shared = self.shared.clone();
            match std::thread::Builder::new().name(self.name.into()).spawn(move || work(&shared)) {
                Ok(h) => {
                    state.running += 1;
                    state.handles.push(h);
                }
                Err(_) if state.running == 0 => return Err(state.jobs.pop_back().expect("just queued")),
                Err(_) => {}
            }
        }
        drop(state);
        self.shared.work.notify_one();
        Ok(())
    }

    /// Waits until the queue is empty and no job is running (jobs submitted meanwhile by
    /// running jobs are run too), then for the threads to end.
    pub fn join(&self) {
        let mut state = self.lock();
        while !state.jobs.is_empty() || state.busy > 0 {
            state = self.shared.quiet.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        state.closing = true;
        let handles = std::mem::take(&mut state.handles);
        drop(state);
        self.shared.work.notify_all();
        for h in handles {
            let _ = h.join();
        }
        self.lock().closing = false;
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn work(shared: &Shared) {
    let mut state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some(job) = state.jobs.pop_front() {
            state.busy += 1;
            drop(state);
            // A panic in a job must not take the pool's counts with it.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            state = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.busy -= 1;
            if state.busy == 0 && state.jobs.is_empty() {
                shared.quiet.notify_all();
            }
            continue;
        }
        if state.closing {
            break;
        }
        state.idle += 1;
        let (s, timeout) = shared.work.wait_timeout(state, IDLE).unwrap_or_else(PoisonError::into_inner);
        state = s;
        state.idle -= 1;
        if timeout.timed_out() && state.jobs.is_empty() {
            break;
        }
    }
    state.running -= 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn bounded_threads_bounded_queue_join_waits() {
        let pool = Pool::new("oh-hooks-test", 2, 3);
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let ran = Arc::new(AtomicUsize::new(0));
        let job = || -> Job {
            let (gate, ran) = (gate.clone(), ran.clone());
            Box::new(move || {
                let mut open = gate.0.lock().unwrap();
                while !*open {
                    open = gate.1.wait(open).unwrap();
                }
                ran.fetch_add(1, Ordering::SeqCst);
            })
        };
        let mut accepted = 0;
        for _ in 0..10 {
            if pool.submit(job()).is_ok() {
                accepted += 1;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // Two threads hold a job each; three wait in the queue; the rest were refused.
        assert_eq!(accepted, 5);
        assert!(pool.lock().running <= 2);
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        pool.join();
        assert_eq!(ran.load(Ordering::SeqCst), 5);
        assert_eq!(pool.lock().running, 0);
        // Usable again after join.
        let r = ran.clone();
        pool.submit(Box::new(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }))
        .ok()
        .unwrap();
        pool.join();
        assert_eq!(ran.load(Ordering::SeqCst), 6);
    }
}
