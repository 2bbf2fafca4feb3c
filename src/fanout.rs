//! The per-fire bound on hooks running at once (docs/reliability.md "Reliability"): at most [`PER_FIRE`]
//! hook processes or threads of one fire run at a time, whatever the dialect and whether they
//! run in the fire or in the background. Every parallel fan-out of the engine goes through
//! here: [`run_all`] for hooks a fire waits for, [`Budget::turn`] for its background hooks.
//!
//! Version 1.1 gave every parallel hook a thread (and so, often, a process) of its own: a
//! settings file with 1,500 Claude Code hooks made 602 threads and 421 processes for one fire.
//! A hook waits for its turn within its own timeout: one whose timeout passes before its turn
//! comes does not run and is reported as timed out, so the fire still ends within its longest
//! hook timeout plus the kill grace.

use crate::sync::Unpoison;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

/// Hooks of one fire that run at once (processes or threads, across all dialects).
pub const PER_FIRE: usize = 16;

/// One fire's turns: shared by its foreground fan-out and its background hooks.
pub struct Budget {
    left: Mutex<usize>,
    freed: Condvar,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget { left: Mutex::new(PER_FIRE), freed: Condvar::new() }
    }
}

/// A turn: the hook may run while it is held.
pub struct Turn<'a>(&'a Budget);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        *self.0.left.lock().unpoisoned() += 1;
        self.0.freed.notify_one();
    }
}

impl Budget {
    /// Waits for a turn until `deadline` (`None`: no limit). `None` when the deadline came first.
    pub fn turn(&self, deadline: Option<Instant>) -> Option<Turn<'_>> {
        let mut left = self.left.lock().unpoisoned();
        while *left == 0 {
            left = match deadline {
                None => self.freed.wait(left).unpoisoned(),
                Some(d) => {
                    let wait = d.saturating_duration_since(Instant::now());
                    if wait.is_zero() {
                        return None;
                    }
                    self.freed.wait_timeout(left, wait).unpoisoned().0
                }
            };
        }
        *left -= 1;
        Some(Turn(self))
    }
}

/// What [`run_all`] needs to know about each job.
pub struct Jobs<'a, J, R> {
    pub jobs: &'a [J],
    /// When the job's own timeout runs out (measured from the fire's start).
    pub deadline: &'a (dyn Fn(&J) -> Option<Instant> + Sync),
    pub run: &'a (dyn Fn(&J) -> R + Sync),
    /// The job's result when its deadline passed before its turn came.
    pub late: &'a (dyn Fn(&J) -> R + Sync),
    /// The job's result when running it panicked.
    pub failed: &'a (dyn Fn(&J) -> R + Sync),
}

/// Runs every job, at most [`PER_FIRE`] at once under `budget` (the calling thread is one of
/// the runners), and returns the results in job order.
pub fn run_all<J: Sync, R: Send>(budget: &Budget, jobs: Jobs<'_, J, R>) -> Vec<R> {
    let n = jobs.jobs.len();
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let runner = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = jobs.jobs.get(i) else { break };
        let r = match budget.turn((jobs.deadline)(job)) {
            Some(_turn) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (jobs.run)(job)))
                .unwrap_or_else(|_| (jobs.failed)(job)),
            None => (jobs.late)(job),
        };
        *results[i].lock().unpoisoned() = Some(r);
    };
    if n > 1 {
        std::thread::scope(|scope| {
            for _ in 1..n.min(PER_FIRE) {
                // Fewer runners when no thread can be had: the jobs still all run.
                if std::thread::Builder::new().name("oh-hooks-hook".into()).spawn_scoped(scope, runner).is_err() {
                    break;
                }
            }
            runner();
        });
    } else {
        runner();
    }
    results
        .into_iter()
        .zip(jobs.jobs)
        .map(|(r, job)| r.into_inner().unpoisoned().unwrap_or_else(|| (jobs.failed)(job)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn at_most_per_fire_at_once_and_all_in_order() {
        let budget = Budget::default();
        let running = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let jobs: Vec<usize> = (0..100).collect();
        let run = |j: &usize| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(2));
            running.fetch_sub(1, Ordering::SeqCst);
            *j * 2
        };
        let out = run_all(
            &budget,
            Jobs { jobs: &jobs, deadline: &|_| None, run: &run, late: &|_| usize::MAX, failed: &|_| usize::MAX - 1 },
        );
        assert_eq!(out, jobs.iter().map(|j| j * 2).collect::<Vec<_>>());
        assert!(peak.load(Ordering::SeqCst) <= PER_FIRE, "peak {}", peak.load(Ordering::SeqCst));
    }

    #[test]
    fn a_job_whose_timeout_passes_in_the_queue_is_late() {
        let budget = Budget::default();
        let held: Vec<Turn> = (0..PER_FIRE).map(|_| budget.turn(None).unwrap()).collect();
        let past = Instant::now();
        let out = run_all(
            &budget,
            Jobs {
                jobs: &[1, 2],
                deadline: &|_| Some(past),
                run: &|_| "ran",
                late: &|_| "late",
                failed: &|_| "failed",
            },
        );
        assert_eq!(out, ["late", "late"]);
        drop(held);
        let out = run_all(
            &budget,
            Jobs {
                jobs: &[1],
                deadline: &|_| Some(past),
                run: &|_| panic!("x"),
                late: &|_| "late",
                failed: &|_| "failed",
            },
        );
        assert_eq!(out, ["failed"]);
    }
}
