//! Persistent hooks (docs/config.md "Persistent hooks"): a command hook whose process is started once and kept,
//! answering one envelope per line on stdin with one JSON response per line on stdout.
//!
//! A [`ProcessPool`] holds the processes ("workers") of one hook entry: started on demand up to its
//! `workers`, one request at a time each, further fires queue on a condition variable. The
//! request runs on the firing thread (no hand-off to another thread, so a request costs a
//! write, a poll and a read). Everything a worker must be watched for while no request is
//! talking to it — stderr to drain, an exit to reap, the TERM→KILL grace of a worker being
//! stopped — is done by one [`WorkerSupervisor`] thread per engine, polling every worker's fds at
//! once; it exists only once a worker has been started.
//!
//! Only the supervisor reaps worker processes. A request learns that its worker died from the
//! pidfd (or `waitid(WNOWAIT)`), which leaves the zombie in place: its pid, and so its process
//! group id, cannot be reused before the group has been signalled.

use super::command::{self, KILL_GRACE, STDERR_KEPT};
use crate::dialect::openharness::answer::{self as response, Response};
use crate::event::Event;
pub use crate::os::cancel::Cancellation;
use crate::os::child::{peek_exit, pidfd_open, reap, signal_group, wait_exit, Exit};
use crate::os::pipe::set_nonblocking;
use crate::os::spawn::EnvTemplate;
use crate::os::wake::WakeFd;
use crate::sync::Unpoison;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Workers that die before answering anything this many times in a row are restarted only
/// after a delay, which doubles with each further death up to [`BACKOFF_MAX`].
const BACKOFF_AFTER: u32 = 3;
const BACKOFF_FIRST: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// Without pidfds (kernels before 5.3, valgrind) exits are noticed by polling this often.
const EXIT_POLL: Duration = Duration::from_millis(10);
/// The most one `read` of a worker's stdout asks for.
const READ_MAX: usize = 1 << 16;
/// A worker whose stdout reached EOF is given this long to turn out to have exited.
const CLOSE_TO_EXIT: Duration = Duration::from_millis(100);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unpoisoned()
}

/// Why a request got no usable answer. Every variant fails the hook like a jsonIO failure
/// (`TooLong`: like jsonIO's output cap).
#[derive(Debug, Clone, PartialEq)]
pub enum WorkerFailure {
    /// The worker did not answer within the hook's timeout (it is killed).
    TimedOut,
    /// No worker became free within the hook's timeout (all `workers` were busy).
    QueueTimedOut,
    /// The worker exited (or was killed) before answering.
    Exited(Option<Exit>),
    /// The worker closed its stdout while alive.
    ClosedStdout,
    /// The answer line exceeded `maxOutputBytes`.
    TooLong,
    /// The answer was not one JSON line: the message says what it was.
    NotOneResponse(String),
    /// The worker could not be started (the message says why), or keeps dying and is being
    /// restarted with a delay.
    CannotStart(String),
    /// The engine is being freed, or the hook was removed by a reload, while this request queued.
    Stopped,
    /// The fire was cancelled (an asynchronous fire's token); a worker in the middle of the
    /// request is killed, since its late answer would be read as the next request's.
    Cancelled,
    /// The worker exited without reading any of the request (internal: retried or reported
    /// as `Exited`).
    Unread(Option<Exit>),
    /// The worker wrote a line before it had read any of the request: a late or extra line of
    /// an earlier request, never this one's answer (it is killed; the request is retried once
    /// on a fresh worker).
    OutOfStep,
}

/// How often a cancellable wait without an fd (the queue's condition variable) looks at the flag.
const CANCEL_CHECK: Duration = Duration::from_millis(20);

impl WorkerFailure {
    /// The trace's `error`.
    pub fn message(&self, timeout: Duration, max_bytes: usize) -> String {
        match self {
            WorkerFailure::TimedOut => format!("timed out after {} ms; the worker was killed", timeout.as_millis()),
            WorkerFailure::QueueTimedOut => {
                format!("timed out after {} ms waiting for a free worker (all are busy)", timeout.as_millis())
            }
            WorkerFailure::Exited(Some(Exit::Code(c))) => format!("the worker exited with code {c} before answering"),
            WorkerFailure::Exited(Some(Exit::Signal(s))) => format!("the worker was killed by signal {s} before answering"),
            WorkerFailure::Exited(None) | WorkerFailure::Unread(None) => "the worker exited before answering".to_string(),
            WorkerFailure::Unread(Some(e)) => WorkerFailure::Exited(Some(*e)).message(Duration::ZERO, 0),
            WorkerFailure::ClosedStdout => "the worker closed its stdout; it was killed".to_string(),
            WorkerFailure::TooLong => {
                format!("the worker's answer line exceeded maxOutputBytes ({max_bytes} bytes); it was killed")
            }
            WorkerFailure::NotOneResponse(why) => format!("{why}; the worker was killed"),
            WorkerFailure::CannotStart(why) => why.clone(),
            WorkerFailure::Cancelled => "cancelled".to_string(),
            WorkerFailure::OutOfStep => {
                "the worker wrote a line before reading the request (out of step: a late or extra answer); it was killed"
                    .to_string()
            }
            WorkerFailure::Stopped => {
                "the hook's workers were stopped (engine freed or hook removed by a reload)".to_string()
            }
        }
    }

    pub fn timed_out(&self) -> bool {
        matches!(self, WorkerFailure::TimedOut | WorkerFailure::QueueTimedOut)
    }
}

/// What one request brought back.
pub struct Served {
    pub answer: Result<Response, WorkerFailure>,
    /// What the worker wrote on stderr while it served this request (at most 4 KiB).
    pub stderr: Vec<u8>,
    /// The worker's exit, when it died during the request.
    pub exit: Option<Exit>,
}

/// How to start a hook's process.
pub struct Launch<'a> {
    pub cwd: &'a std::path::Path,
    pub env: &'a EnvTemplate,
}

/// The workers of one persistent hook entry.
pub struct ProcessPool {
    command: String,
    argv: Option<Vec<String>>,
    max: usize,
    supervisor: Arc<WorkerSupervisor>,
    state: Mutex<ProcessPoolState>,
    freed: Condvar,
}

#[derive(Default)]
struct ProcessPoolState {
    idle: Vec<Worker>,
    /// Workers started and not yet retired: idle + busy.
    live: usize,
    /// No more requests: set by a reload that removed or changed the hook, and by free.
    closed: bool,
    /// Workers in a row that died without answering anything.
    streak: u32,
    /// While backing off: no new worker before this.
    retry_at: Option<Instant>,
    /// Requests waiting on `freed`: std's `notify_one` is a futex call even when nobody waits,
    /// which was one system call on every request.
    waiting: usize,
    last_death: String,
}

impl ProcessPool {
    pub fn new(
        command: &str,
        argv: Option<&[String]>,
        workers: usize,
        supervisor: Arc<WorkerSupervisor>,
    ) -> Arc<ProcessPool> {
        Arc::new(ProcessPool {
            command: command.to_string(),
            argv: argv.map(<[String]>::to_vec),
            max: workers.max(1),
            supervisor,
            state: Mutex::new(ProcessPoolState::default()),
            freed: Condvar::new(),
        })
    }

    /// `persistent: "eager"`: starts one worker now, if none runs. A failure is remembered like
    /// any death and reported by the first fire.
    pub fn start_eagerly(self: &Arc<Self>, launch: &Launch) {
        {
            let mut st = lock(&self.state);
            if st.closed || st.live > 0 {
                return;
            }
            st.live += 1;
        }
        if let Ok(worker) = self.spawn(launch) {
            self.release(worker);
        }
    }

    /// Sends one envelope line (without its `\n`) and reads the answer, within `timeout`
    /// including the wait for a free worker, and until `cancel` fires.
    pub fn request(
        self: &Arc<Self>,
        envelope: &[u8],
        timeout: Duration,
        max_bytes: usize,
        launch: &Launch,
        cancel: Option<&dyn Cancellation>,
    ) -> Served {
        let now = Instant::now();
        let deadline = now.checked_add(timeout).unwrap_or(now + Duration::from_secs(86_400));
        let mut retried = false;
        let (mut worker, result, stderr) = loop {
            let mut worker = match self.acquire(deadline, launch, cancel) {
                Ok(w) => w,
                Err(f) => return Served { answer: Err(f), stderr: Vec::new(), exit: None },
            };
            // A worker that died or wrote to stdout while idle is replaced before it is used.
            if let Some(why) = worker.stale() {
                let answered = worker.answered > 0;
                self.retire(worker, false);
                self.lost(answered, why);
                continue;
            }
            worker.proc.capture(true, std::mem::take(&mut worker.stderr_ready));
            let result = worker.exchange(envelope, deadline, max_bytes, cancel);
            let stderr = worker.proc.capture(false, result.is_err());
            // A worker that answered before and then exited without reading a byte of this
            // request ended between requests; its exit merely became visible too late. The
            // request is sent to a fresh worker, once.
            if let Err(WorkerFailure::Unread(exit)) = result {
                if worker.answered > 0 && !retried {
                    retried = true;
                    self.retire(worker, false);
                    self.lost(true, "the worker exited between requests".to_string());
                    continue;
                }
                break (worker, Err(WorkerFailure::Exited(exit)), stderr);
            }
            // Out of step: the worker never saw this request, so a fresh one gets it, once.
            if let (Err(WorkerFailure::OutOfStep), false) = (&result, retried) {
                retried = true;
                let answered = worker.answered > 0;
                self.retire(worker, false);
                self.lost(answered, WorkerFailure::OutOfStep.message(timeout, max_bytes));
                continue;
            }
            break (worker, result, stderr);
        };
        match result {
            Ok(answer) => match response::parse(&answer) {
                Response::Malformed(why) => {
                    let answered = worker.answered > 0;
                    self.retire(worker, false);
                    let failure = WorkerFailure::NotOneResponse(format!(
                        "the worker answered a line that is not one JSON response ({why})"
                    ));
                    self.lost(answered, failure.message(timeout, max_bytes));
                    Served { answer: Err(failure), stderr, exit: None }
                }
                parsed => {
                    worker.answered += 1;
                    self.release(worker);
                    Served { answer: Ok(parsed), stderr, exit: None }
                }
            },
            Err(failure) => {
                let exit = match &failure {
                    WorkerFailure::Exited(e) => *e,
                    _ => None,
                };
                let answered = worker.answered > 0;
                self.retire(worker, false);
                if failure != WorkerFailure::Cancelled {
                    self.lost(answered, failure.message(timeout, max_bytes));
                }
                Served { answer: Err(failure), stderr, exit }
            }
        }
    }

    /// An idle worker, a new one, or a wait for one until `deadline`.
    fn acquire(
        self: &Arc<Self>,
        deadline: Instant,
        launch: &Launch,
        cancel: Option<&dyn Cancellation>,
    ) -> Result<Worker, WorkerFailure> {
        let mut st = lock(&self.state);
        loop {
            if st.closed {
                return Err(WorkerFailure::Stopped);
            }
            if cancel.is_some_and(|c| c.is_cancelled()) {
                return Err(WorkerFailure::Cancelled);
            }
            if let Some(w) = st.idle.pop() {
                return Ok(w);
            }
            let now = Instant::now();
            if st.live < self.max {
                if let Some(at) = st.retry_at.filter(|at| now < *at) {
                    return Err(WorkerFailure::CannotStart(format!(
                        "the worker keeps dying ({} times in a row before answering; last: {}); not restarted for another {} ms",
                        st.streak,
                        st.last_death,
                        at.duration_since(now).as_millis().max(1)
                    )));
                }
                st.live += 1;
                drop(st);
                return self.spawn(launch);
            }
            if now >= deadline {
                return Err(WorkerFailure::QueueTimedOut);
            }
            let wait = if cancel.is_some() { (deadline - now).min(CANCEL_CHECK) } else { deadline - now };
            st.waiting += 1;
            st = self.freed.wait_timeout(st, wait).unpoisoned().0;
            st.waiting -= 1;
        }
    }

    /// Starts a worker for a place already counted in `live`; on failure the place is given
    /// back and the failure counts toward the restart delay.
    fn spawn(self: &Arc<Self>, launch: &Launch) -> Result<Worker, WorkerFailure> {
        let started = self.start(launch);
        if let Err(WorkerFailure::CannotStart(why)) = &started {
            lock(&self.state).live -= 1;
            self.freed.notify_one();
            self.lost(false, why.clone());
        }
        started
    }

    fn start(self: &Arc<Self>, launch: &Launch) -> Result<Worker, WorkerFailure> {
        let started = command::start_process(
            &self.command,
            self.argv.as_deref(),
            launch.cwd,
            launch.env,
            &[],
            Some(&[]),
            true,
            false,
            true,
        );
        let (process, _direct) = started.map_err(WorkerFailure::CannotStart)?;
        let (Some(stdin), Some(stdout), Some(stdin_reader)) = (process.stdin, process.stdout, process.stdin_reader)
        else {
            unreachable!("both pipes and the stdin reader were asked for")
        };
        for fd in [&stdin, &stdout, &process.stderr] {
            set_nonblocking(fd.as_raw_fd());
        }
        let proc = Arc::new(Proc {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            pid: process.pid,
            pidfd: pidfd_open(process.pid),
            stderr: process.stderr,
            stderr_eof: AtomicBool::new(false),
            exit_seen: AtomicBool::new(false),
            kept: Mutex::new(Kept::default()),
            pool: Arc::downgrade(self),
        });
        let worker = Worker { proc, stdin, stdin_reader, stdout, buf: Vec::new(), answered: 0, stderr_ready: false };
        if let Err(e) = self.supervisor.adopt(&worker.proc) {
            // Nobody could reap it later: end it here.
            signal_group(worker.proc.pid, libc::SIGKILL);
            reap(worker.proc.pid);
            return Err(WorkerFailure::CannotStart(format!("cannot start the thread that supervises workers: {e}")));
        }
        Ok(worker)
    }

    /// Back to the idle list, or stopped when the pool has been closed meanwhile.
    fn release(&self, worker: Worker) {
        let mut st = lock(&self.state);
        if worker.answered > 0 {
            st.streak = 0;
            st.retry_at = None;
        }
        // Under the lock: the supervisor sets `exit_seen` before it looks for the worker in the
        // idle list, so one of the two always catches a process that exited.
        if st.closed || worker.proc.exit_seen.load(Ordering::SeqCst) {
            let graceful = st.closed;
            drop(st);
            self.retire(worker, graceful);
            return;
        }
        st.idle.push(worker);
        // Checked under the lock: a request that starts waiting after it finds this worker idle.
        let wake = st.waiting > 0;
        drop(st);
        if wake {
            self.freed.notify_one();
        }
    }

    /// A worker is gone: counts toward the restart delay when it never answered.
    fn lost(&self, answered: bool, why: String) {
        let mut st = lock(&self.state);
        if answered {
            st.streak = 0;
            st.retry_at = None;
        } else {
            st.streak += 1;
            if st.streak >= BACKOFF_AFTER {
                let delay = BACKOFF_FIRST.saturating_mul(1 << (st.streak - BACKOFF_AFTER).min(16)).min(BACKOFF_MAX);
                st.retry_at = Some(Instant::now() + delay);
            }
        }
        st.last_death = why;
    }

    /// Hands a worker to the supervisor to be stopped. `graceful`: its stdin is closed and it has
    /// the grace to exit on its own; otherwise its group gets SIGTERM now. SIGKILL follows after
    /// [`KILL_GRACE`] either way if anything in the group is left.
    fn retire(&self, worker: Worker, graceful: bool) {
        let wake = {
            let mut st = lock(&self.state);
            st.live = st.live.saturating_sub(1);
            st.waiting > 0
        };
        if wake {
            self.freed.notify_one();
        }
        self.supervisor.bury(worker, graceful);
    }

    /// Stops the pool: queued requests fail, idle workers are stopped now and busy ones when
    /// their request ends. Used when a reload removes or changes the hook, and by free.
    pub fn close(&self) {
        let idle = {
            let mut st = lock(&self.state);
            st.closed = true;
            std::mem::take(&mut st.idle)
        };
        self.freed.notify_all();
        for w in idle {
            self.retire(w, true);
        }
    }

    /// The worker of `id` if it is idle, taken out of the idle list (it died while idle).
    fn take_idle(&self, id: u64) -> Option<Worker> {
        let mut st = lock(&self.state);
        let at = st.idle.iter().position(|w| w.proc.id == id)?;
        Some(st.idle.swap_remove(at))
    }

    /// Processes alive now (idle + busy), for tests and `describe`.
    pub fn live(&self) -> usize {
        lock(&self.state).live
    }
}

/// A pool nobody holds any more stops its processes (the supervisor cannot hand a dead idle
/// worker back to a pool that is gone, so none may be left behind).
impl Drop for ProcessPool {
    fn drop(&mut self) {
        self.close();
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The part of a worker the supervisor watches too.
struct Proc {
    id: u64,
    pid: libc::pid_t,
    pidfd: Option<OwnedFd>,
    stderr: OwnedFd,
    stderr_eof: AtomicBool,
    /// The supervisor saw the process exit while a request held it: [`ProcessPool::release`] must not
    /// put it back on the idle list (where nobody would look at it again until the next fire).
    exit_seen: AtomicBool,
    kept: Mutex<Kept>,
    pool: Weak<ProcessPool>,
}

/// stderr as read so far: kept while a request runs, discarded between requests.
#[derive(Default)]
struct Kept {
    capturing: bool,
    bytes: Vec<u8>,
}

impl Proc {
    /// Reads what stderr has (either thread may call it; the lock orders their reads).
    fn drain_stderr(&self, kept: &mut Kept) {
        if self.stderr_eof.load(Ordering::Relaxed) {
            return;
        }
        // Not zeroed: that was 4 KiB of memset twice a request (a fifth of its instructions).
        let mut scratch = [std::mem::MaybeUninit::<u8>::uninit(); 4096];
        for _ in 0..64 {
            // SAFETY: reading into a local buffer from an fd this Proc owns.
            let n = unsafe { libc::read(self.stderr.as_raw_fd(), scratch.as_mut_ptr().cast(), scratch.len()) };
            if n > 0 {
                if kept.capturing {
                    let room = STDERR_KEPT.saturating_sub(kept.bytes.len());
                    // SAFETY: read(2) initialised the first `n` bytes.
                    let got = unsafe { std::slice::from_raw_parts(scratch.as_ptr().cast::<u8>(), n as usize) };
                    kept.bytes.extend_from_slice(&got[..got.len().min(room)]);
                }
                continue;
            }
            if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                continue;
            }
            if n == 0 || io::Error::last_os_error().kind() != io::ErrorKind::WouldBlock {
                self.stderr_eof.store(true, Ordering::Relaxed);
            }
            return;
        }
    }

    /// Starts (`true`) or ends keeping stderr for a request; ending returns what was kept.
    /// `drain`: read stderr first. A request's polls watch stderr and read it when it has bytes,
    /// so this is needed only where no poll looked last: before a request when the idle check
    /// saw bytes (which are dropped), and after a request that failed. A worker writes its
    /// stderr before the answer that wakes the request, so that poll sees and reads both.
    fn capture(&self, on: bool, drain: bool) -> Vec<u8> {
        let mut kept = lock(&self.kept);
        if drain {
            self.drain_stderr(&mut kept);
        }
        kept.capturing = on;
        std::mem::take(&mut kept.bytes)
    }

    /// Whether the process has exited, without reaping it (the supervisor reaps).
    fn exited(&self) -> Option<Option<Exit>> {
        peek_exit(self.pid)
    }

    /// [`Proc::exited`], waiting up to `limit` for it.
    fn wait_exit(&self, limit: Duration) -> Option<Option<Exit>> {
        wait_exit(self.pid, self.pidfd.as_ref(), limit)
    }
}

/// A worker as a request or the idle list holds it.
struct Worker {
    proc: Arc<Proc>,
    stdin: OwnedFd,
    /// Our copy of the read end of the worker's stdin pipe, held until the worker is stopped:
    /// a write to `stdin` then never fails with EPIPE and never raises SIGPIPE, even when the
    /// worker closed its stdin or died, so no SIGPIPE guard is needed around it (two
    /// `rt_sigprocmask` a request). Bytes of a request the worker did not read stay in the pipe
    /// (FIONREAD still counts them, see [`Worker::unread_request`]); a worker that died is seen
    /// by its pidfd (or `waitid`), as before.
    stdin_reader: OwnedFd,
    stdout: OwnedFd,
    /// stdout bytes read and not yet part of an answer.
    buf: Vec<u8>,
    answered: u64,
    /// A poll of this worker's saw bytes (or EOF) on its stderr that are not read yet.
    stderr_ready: bool,
}

impl Worker {
    /// Whether the worker died or wrote to stdout while idle: `Some(why)`. One `poll`, which
    /// also tells whether stderr has bytes to drain ([`Worker::stderr_ready`]).
    fn stale(&mut self) -> Option<String> {
        let mut fds = [
            libc::pollfd { fd: self.stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd {
                fd: self.proc.pidfd.as_ref().map_or(-1, |p| p.as_raw_fd()),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd { fd: self.stderr_fd(), events: libc::POLLIN, revents: 0 },
        ];
        // SAFETY: polls valid pollfds (a negative fd is skipped) without waiting.
        unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
        self.stderr_ready |= fds[2].revents != 0;
        if fds[0].revents & libc::POLLIN != 0 || !self.buf.is_empty() {
            return Some("the worker wrote to stdout between requests".to_string());
        }
        let hangup = fds[0].revents != 0;
        if hangup || fds[1].revents != 0 || self.proc.pidfd.is_none() {
            let exit = if hangup { self.proc.wait_exit(CLOSE_TO_EXIT) } else { self.proc.exited() };
            let Some(exit) = exit else {
                return hangup.then(|| "the worker closed its stdout while idle".to_string());
            };
            return match exit {
                Some(Exit::Code(c)) => Some(format!("the worker exited with code {c} while idle")),
                Some(Exit::Signal(s)) => Some(format!("the worker was killed by signal {s} while idle")),
                None => Some("the worker exited while idle".to_string()),
            };
        }
        None
    }

    /// The stderr pipe while it may still have bytes, else -1 (which poll skips).
    fn stderr_fd(&self) -> RawFd {
        if self.proc.stderr_eof.load(Ordering::Relaxed) {
            -1
        } else {
            self.proc.stderr.as_raw_fd()
        }
    }

    /// Writes `envelope` and a newline, and reads one answer line.
    fn exchange(
        &mut self,
        envelope: &[u8],
        deadline: Instant,
        max_bytes: usize,
        cancel: Option<&dyn Cancellation>,
    ) -> Result<Vec<u8>, WorkerFailure> {
        let cancel_fd = cancel.and_then(|c| c.fd());
        let total = envelope.len() + 1;
        let mut written = 0;
        let mut stdin_open = true;
        let mut exited: Option<Option<Exit>> = None;
        // Whether the whole request was still unread when poll last said stdout had bytes: taken
        // before any other call, because a worker that writes a stray line and then reads the
        // request does both within microseconds, and every call between the wake and the check
        // in `in_step` (a waitid where there is no pidfd, a busy machine) widens that window.
        let mut unread_at_wake = false;
        // The worker had read some of the request by a wake: it is in step, whatever comes next
        // (so [`Self::in_step`] needs no second look).
        let mut read_at_wake = false;
        loop {
            if stdin_open && written < total {
                match write_line(&self.stdin, envelope, written) {
                    Ok(n) => written += n,
                    // Not EPIPE (the read end is ours too, see `stdin_reader`): the pipe is
                    // unusable; an answer already written still counts.
                    Err(()) => stdin_open = false,
                }
            }
            if let Some(answer) = self.take_line(max_bytes)? {
                return self.in_step(answer, written, unread_at_wake, read_at_wake);
            }
            if let Some(exit) = exited {
                return Err(self.exited(exit, written));
            }
            if cancel.is_some_and(|c| c.is_cancelled()) {
                return Err(WorkerFailure::Cancelled);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(WorkerFailure::TimedOut);
            }
            // stdout, the pidfd, the cancel fd (-1: none, skipped) and stderr, stdin while the
            // line is not all written.
            let mut fds = [
                libc::pollfd { fd: self.stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd {
                    fd: self.proc.pidfd.as_ref().map_or(-1, |p| p.as_raw_fd()),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd { fd: cancel_fd.unwrap_or(-1), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: self.stderr_fd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: self.stdin.as_raw_fd(), events: libc::POLLOUT, revents: 0 },
            ];
            let nfds = if stdin_open && written < total { 5 } else { 4 };
            let mut wait = deadline - now;
            if self.proc.pidfd.is_none() {
                wait = wait.min(EXIT_POLL);
            }
            if cancel.is_some() && cancel_fd.is_none() {
                wait = wait.min(CANCEL_CHECK);
            }
            let ms = i32::try_from(wait.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
            // SAFETY: `fds` is a valid array of pollfd structs.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), nfds, ms) };
            if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                return Err(WorkerFailure::NotOneResponse(format!("poll failed: {}", io::Error::last_os_error())));
            }
            if fds[0].revents != 0 && written > 0 && !unread_at_wake && !read_at_wake {
                match self.unread_request() {
                    Some(unread) if unread == written => unread_at_wake = true,
                    Some(_) => read_at_wake = true,
                    None => {}
                }
            }
            // After the look above, which must come first (see `unread_at_wake`).
            if fds[3].revents != 0 {
                self.proc.drain_stderr(&mut lock(&self.proc.kept));
            }
            if fds[0].revents != 0 && self.read_stdout(max_bytes)? {
                // EOF: a line already read was taken above; whatever is left is no answer.
                if let Some(answer) = self.take_line(max_bytes)? {
                    return self.in_step(answer, written, unread_at_wake, read_at_wake);
                }
                // A process closes its fds a moment before it becomes waitable: EOF is often
                // the first sign of an exit.
                return Err(match self.proc.wait_exit(CLOSE_TO_EXIT.min(deadline.saturating_duration_since(now))) {
                    Some(exit) => self.exited(exit, written),
                    None => WorkerFailure::ClosedStdout,
                });
            }
            if fds[1].revents != 0 || self.proc.pidfd.is_none() {
                if let Some(exit) = self.proc.exited() {
                    // Read what it wrote before dying, then decide at the top of the loop.
                    self.read_stdout(max_bytes)?;
                    exited = Some(exit);
                }
            }
        }
    }

    /// The failure of a worker that exited: [`WorkerFailure::Unread`] when every byte written of this
    /// request is still in the pipe (and it printed nothing), so it never saw the request.
    fn exited(&self, exit: Option<Exit>, written: usize) -> WorkerFailure {
        if self.buf.is_empty() && self.unread_request() == Some(written) {
            WorkerFailure::Unread(exit)
        } else {
            WorkerFailure::Exited(exit)
        }
    }

    /// Reads what stdout has into `buf`. True at EOF.
    fn read_stdout(&mut self, max_bytes: usize) -> Result<bool, WorkerFailure> {
        loop {
            if self.buf.len() > max_bytes {
                return Err(WorkerFailure::TooLong);
            }
            let room = (max_bytes + 1 - self.buf.len()).min(READ_MAX);
            self.buf.reserve(room);
            let spare = self.buf.spare_capacity_mut();
            let len = spare.len().min(room);
            // SAFETY: reads at most `len` bytes into the Vec's spare capacity.
            let n = unsafe { libc::read(self.stdout.as_raw_fd(), spare.as_mut_ptr().cast(), len) };
            if n > 0 {
                let from = self.buf.len();
                // SAFETY: read(2) initialised the first `n` bytes of the spare capacity.
                unsafe { self.buf.set_len(from + n as usize) };
                // The answer is complete: a second line behind it is caught by the next
                // request's idle check, so no read is spent looking for one now.
                if memchr::memchr(b'\n', &self.buf[from..]).is_some() {
                    return Ok(false);
                }
                continue;
            }
            if n == 0 {
                return Ok(true);
            }
            match io::Error::last_os_error().kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return Ok(false),
                _ => return Ok(true),
            }
        }
    }

    /// A line is this request's answer only once the worker has read some of the request:
    /// while every byte written is still in the stdin pipe, the line belongs to an earlier
    /// request (a late or second answer) and would otherwise be taken as this one's.
    /// `unread_at_wake`: the same seen when poll woke for stdout (see [`Self::exchange`]).
    /// `read_at_wake`: a wake found some of it read already.
    fn in_step(
        &self,
        answer: Vec<u8>,
        written: usize,
        unread_at_wake: bool,
        read_at_wake: bool,
    ) -> Result<Vec<u8>, WorkerFailure> {
        if unread_at_wake || (!read_at_wake && written > 0 && self.unread_request() == Some(written)) {
            return Err(WorkerFailure::OutOfStep);
        }
        Ok(answer)
    }

    /// Bytes written to the worker's stdin that it has not read yet.
    fn unread_request(&self) -> Option<usize> {
        let mut unread: libc::c_int = 0;
        // SAFETY: FIONREAD writes the pipe's byte count into a local int; on a pipe it works on
        // either end.
        let rc = unsafe { libc::ioctl(self.stdin.as_raw_fd(), libc::FIONREAD, &mut unread) };
        (rc == 0).then(|| usize::try_from(unread).ok()).flatten()
    }

    /// The first complete line of `buf`, if any, blank lines before it skipped (a blank line is
    /// no answer: reading it as "no decision" lost the deny behind it). A second line after it
    /// (two answers to one request) and a line over `max_bytes` are failures.
    fn take_line(&mut self, max_bytes: usize) -> Result<Option<Vec<u8>>, WorkerFailure> {
        let blank = self.buf.iter().position(|b| !matches!(b, b'\n' | b'\r' | b' ' | b'\t')).unwrap_or(self.buf.len());
        let blank = self.buf[..blank].iter().rposition(|b| *b == b'\n').map_or(0, |nl| nl + 1);
        if blank > 0 {
            self.buf.drain(..blank);
        }
        let Some(end) = memchr::memchr(b'\n', &self.buf) else {
            return if self.buf.len() > max_bytes { Err(WorkerFailure::TooLong) } else { Ok(None) };
        };
        if end > max_bytes {
            return Err(WorkerFailure::TooLong);
        }
        if end + 1 < self.buf.len() {
            return Err(WorkerFailure::NotOneResponse(
                "the worker wrote more than one line for one request (one JSON response per line is expected)"
                    .to_string(),
            ));
        }
        // The line is copied out and `buf` keeps its capacity for the next request: handing over
        // `buf` itself (up to 64 KiB of capacity, see `read_stdout`) made every request allocate
        // and free that much again. A buffer grown past that by a long answer is let go.
        let line = self.buf[..end].to_vec();
        if self.buf.capacity() > READ_MAX {
            self.buf = Vec::new();
        } else {
            self.buf.clear();
        }
        Ok(Some(line))
    }
}

/// One non-blocking write of what is left of `line` + `\n` after `done` bytes (one `writev`,
/// no copy). `Err` when the pipe is closed.
fn write_line(fd: &OwnedFd, line: &[u8], done: usize) -> Result<usize, ()> {
    let rest = &line[done.min(line.len())..];
    let newline = if done <= line.len() { &b"\n"[..] } else { &[][..] };
    let iov = [
        libc::iovec { iov_base: rest.as_ptr() as *mut libc::c_void, iov_len: rest.len() },
        libc::iovec { iov_base: newline.as_ptr() as *mut libc::c_void, iov_len: newline.len() },
    ];
    loop {
        // SAFETY: both iovecs point into live slices; writev only reads them.
        let n = unsafe { libc::writev(fd.as_raw_fd(), iov.as_ptr(), 2) };
        if n >= 0 {
            return Ok(n as usize);
        }
        match io::Error::last_os_error().kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Ok(0),
            _ => return Err(()),
        }
    }
}

/// The engine's watcher of every worker process (see the module comment).
pub struct WorkerSupervisor {
    shared: Arc<Shared>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

struct Shared {
    /// An eventfd that wakes the thread when the set of workers changes; made with the thread.
    wake: OnceLock<WakeFd>,
    state: Mutex<SupState>,
}

#[derive(Default)]
struct SupState {
    live: Vec<Arc<Proc>>,
    dying: Vec<Dying>,
    quit: bool,
}

/// A worker being stopped: SIGKILL to its group at `kill_at` if it has not exited by then;
/// reaped once it has exited.
struct Dying {
    proc: Arc<Proc>,
    kill_at: Instant,
    killed: bool,
}

impl Default for WorkerSupervisor {
    fn default() -> WorkerSupervisor {
        WorkerSupervisor::new()
    }
}

impl WorkerSupervisor {
    /// No fd and no thread yet: both come with the first worker ([`WorkerSupervisor::adopt`]), so an
    /// engine without persistent hooks holds neither.
    pub fn new() -> WorkerSupervisor {
        WorkerSupervisor {
            shared: Arc::new(Shared { wake: OnceLock::new(), state: Mutex::new(SupState::default()) }),
            thread: Mutex::new(None),
        }
    }

    /// Starts watching a new worker (and the thread, on the first one). Out of file descriptors,
    /// it fails: the engine only ever uses fds it opened itself (docs/reliability.md "Reliability"; an earlier
    /// fallback wrapped fd 0, the host's stdin, when no eventfd could be had).
    fn adopt(&self, proc: &Arc<Proc>) -> io::Result<()> {
        {
            let mut thread = lock(&self.thread);
            if thread.is_none() {
                if self.shared.wake.get().is_none() {
                    let _ = self.shared.wake.set(WakeFd::new()?);
                }
                let shared = self.shared.clone();
                *thread = Some(
                    std::thread::Builder::new().name("oh-hooks-workers".into()).spawn(move || supervise(&shared))?,
                );
            }
        }
        lock(&self.shared.state).live.push(proc.clone());
        self.shared.wake();
        Ok(())
    }

    /// Stops a worker (see [`ProcessPool::retire`]).
    fn bury(&self, worker: Worker, graceful: bool) {
        let Worker { proc, stdin, stdin_reader, stdout, .. } = worker;
        // Closing stdin is the polite request to exit; closing stdout makes writes fail.
        drop(stdin);
        drop(stdin_reader);
        drop(stdout);
        if !graceful {
            signal_group(proc.pid, libc::SIGTERM);
        }
        {
            let mut st = lock(&self.shared.state);
            st.live.retain(|p| p.id != proc.id);
            st.dying.push(Dying { proc, kill_at: Instant::now() + KILL_GRACE, killed: false });
        }
        self.shared.wake();
    }

    /// Free: waits until every stopped worker is reaped, then ends the thread. Pools must have
    /// been closed first.
    pub fn shutdown(&self) {
        lock(&self.shared.state).quit = true;
        self.shared.wake();
        if let Some(t) = lock(&self.thread).take() {
            let _ = t.join();
        }
    }
}

impl Drop for WorkerSupervisor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Shared {
    fn wake(&self) {
        // No eventfd: no thread either, so nobody to wake.
        if let Some(fd) = self.wake.get() {
            fd.signal();
        }
    }

    fn wake_fd(&self) -> RawFd {
        self.wake.get().map_or(-1, WakeFd::fd)
    }
}

/// The supervisor thread's loop.
fn supervise(shared: &Shared) {
    // Busy workers whose exit the supervisor saw: their request thread handles it.
    let mut ignored: Vec<u64> = Vec::new();
    loop {
        let (live, dying, quit) = {
            let st = lock(&shared.state);
            let dying: Vec<(Arc<Proc>, Instant, bool)> =
                st.dying.iter().map(|d| (d.proc.clone(), d.kill_at, d.killed)).collect();
            (st.live.clone(), dying, st.quit)
        };
        ignored.retain(|id| live.iter().any(|p| p.id == *id));
        if quit && live.is_empty() && dying.is_empty() {
            return;
        }
        let now = Instant::now();
        let mut fds = vec![libc::pollfd { fd: shared.wake_fd(), events: libc::POLLIN, revents: 0 }];
        // (kind, index): 0 = stderr of live[i], 1 = pidfd of live[i], 2 = pidfd of dying[i]
        let mut what: Vec<(u8, usize)> = vec![(9, 0)];
        let mut tick = false;
        for (i, p) in live.iter().enumerate() {
            if !p.stderr_eof.load(Ordering::Relaxed) {
                fds.push(libc::pollfd { fd: p.stderr.as_raw_fd(), events: libc::POLLIN, revents: 0 });
                what.push((0, i));
            }
            if !ignored.contains(&p.id) {
                match &p.pidfd {
                    Some(fd) => {
                        fds.push(libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 });
                        what.push((1, i));
                    }
                    None => tick = true,
                }
            }
        }
        let mut wake_at: Option<Instant> = None;
        for (i, (p, kill_at, killed)) in dying.iter().enumerate() {
            if !killed {
                wake_at = Some(wake_at.map_or(*kill_at, |w| w.min(*kill_at)));
            }
            match &p.pidfd {
                Some(fd) => {
                    fds.push(libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 });
                    what.push((2, i));
                }
                None => tick = true,
            }
        }
        let mut timeout = wake_at.map(|w| w.saturating_duration_since(now));
        if tick {
            timeout = Some(timeout.map_or(EXIT_POLL, |t| t.min(EXIT_POLL)));
        }
        let ms = timeout.map_or(-1, |t| i32::try_from(t.as_micros().div_ceil(1000)).unwrap_or(i32::MAX));
        // SAFETY: `fds` is a valid array of pollfd structs whose fds the Arcs above keep open.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            std::thread::sleep(EXIT_POLL);
        }
        if fds[0].revents != 0 {
            if let Some(fd) = shared.wake.get() {
                fd.clear();
            }
        }
        let mut died: Vec<usize> = Vec::new();
        for (p, (kind, i)) in fds.iter().zip(&what).skip(1) {
            if p.revents == 0 {
                continue;
            }
            match kind {
                0 => {
                    let proc = &live[*i];
                    let mut kept = lock(&proc.kept);
                    proc.drain_stderr(&mut kept);
                }
                1 => died.push(*i),
                _ => {}
            }
        }
        if tick {
            for (i, p) in live.iter().enumerate() {
                if p.pidfd.is_none() && !ignored.contains(&p.id) && p.exited().is_some() {
                    died.push(i);
                }
            }
        }
        for i in died {
            let proc = &live[i];
            proc.exit_seen.store(true, Ordering::SeqCst);
            // Idle: stop it here. Busy: its request sees the exit and stops it.
            match proc.pool.upgrade().and_then(|pool| pool.take_idle(proc.id).map(|w| (pool, w))) {
                Some((pool, worker)) => {
                    let answered = worker.answered > 0;
                    pool.retire(worker, false);
                    pool.lost(answered, "the worker exited while idle".to_string());
                }
                None => ignored.push(proc.id),
            }
        }
        // The dying: exits, SIGKILL at the deadline, reaping.
        let now = Instant::now();
        let mut st = lock(&shared.state);
        st.dying.retain_mut(|d| {
            // The leader is reaped only after its group has been signalled, so the group id
            // cannot have been reused. Once the leader is gone, what is left of its group (a
            // child holding the pipes) is killed at once: a zombie leader counts as a member, so
            // "is anything else alive" cannot be asked cheaply.
            if d.proc.exited().is_some() {
                signal_group(d.proc.pid, libc::SIGKILL);
                reap(d.proc.pid);
                return false;
            }
            if !d.killed && now >= d.kill_at {
                signal_group(d.proc.pid, libc::SIGKILL);
                d.killed = true;
            }
            true
        });
    }
}

/// The pools of a config's persistent hooks, by event and position in the event's list.
#[derive(Default)]
pub struct ProcessPoolTable(Vec<Vec<Option<Arc<ProcessPool>>>>);

impl ProcessPoolTable {
    pub fn get(&self, event: Event, index: usize) -> Option<&Arc<ProcessPool>> {
        self.0.get(event.index())?.get(index)?.as_ref()
    }

    pub fn insert(&mut self, event: Event, index: usize, pool: Arc<ProcessPool>) {
        if self.0.len() <= event.index() {
            self.0.resize_with(event.index() + 1, Vec::new);
        }
        let list = &mut self.0[event.index()];
        if list.len() <= index {
            list.resize_with(index + 1, || None);
        }
        list[index] = Some(pool);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token like an asynchronous fire's: a flag and, optionally, an eventfd.
    struct Token {
        flag: AtomicBool,
        fd: Option<WakeFd>,
    }

    impl Token {
        fn new(with_fd: bool) -> Arc<Token> {
            let fd = with_fd.then(|| WakeFd::new().unwrap());
            Arc::new(Token { flag: AtomicBool::new(false), fd })
        }

        fn cancel(&self) {
            self.flag.store(true, Ordering::SeqCst);
            if let Some(fd) = &self.fd {
                fd.signal();
            }
        }
    }

    impl Cancellation for Token {
        fn is_cancelled(&self) -> bool {
            self.flag.load(Ordering::SeqCst)
        }
        fn fd(&self) -> Option<RawFd> {
            self.fd.as_ref().map(WakeFd::fd)
        }
    }

    fn env() -> EnvTemplate {
        EnvTemplate::new(std::env::vars_os(), &[], &[], std::path::Path::new("/"))
    }

    /// Cancelling ends a request in the worker (with and without an fd to poll) and one waiting
    /// in the queue, at once rather than at the 10 s timeout; the busy worker is killed.
    #[test]
    fn cancel_ends_a_running_and_a_queued_request() {
        let env = env();
        let launch = Launch { cwd: std::path::Path::new("/"), env: &env };
        let supervisor = Arc::new(WorkerSupervisor::new());
        let pool = ProcessPool::new("while read l; do sleep 30; done", None, 1, supervisor.clone());
        for with_fd in [true, false] {
            let token = Token::new(with_fd);
            let t = token.clone();
            let canceller = std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                t.cancel();
            });
            let start = Instant::now();
            let served = pool.request(b"{}", Duration::from_secs(10), 1 << 20, &launch, Some(&*token));
            canceller.join().unwrap();
            assert_eq!(served.answer.err(), Some(WorkerFailure::Cancelled), "with fd: {with_fd}");
            assert!(start.elapsed() < Duration::from_secs(2), "took {:?}", start.elapsed());
        }
        // The queue: one request holds the only worker, a second waits for it and is cancelled.
        let busy = Token::new(true);
        std::thread::scope(|s| {
            let (pool, launch, busy) = (&pool, &launch, &busy);
            let holder = s.spawn(move || pool.request(b"{}", Duration::from_secs(10), 1 << 20, launch, Some(&**busy)));
            std::thread::sleep(Duration::from_millis(200));
            let queued = Token::new(false);
            let q = queued.clone();
            let canceller = s.spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                q.cancel();
            });
            let start = Instant::now();
            let served = pool.request(b"{}", Duration::from_secs(10), 1 << 20, launch, Some(&*queued));
            assert_eq!(served.answer.err(), Some(WorkerFailure::Cancelled));
            assert!(start.elapsed() < Duration::from_secs(1), "queued cancel took {:?}", start.elapsed());
            canceller.join().unwrap();
            busy.cancel();
            assert_eq!(holder.join().unwrap().answer.err(), Some(WorkerFailure::Cancelled));
        });
        pool.close();
        supervisor.shutdown();
        assert_eq!(lock(&supervisor.shared.state).live.len(), 0);
    }
}
