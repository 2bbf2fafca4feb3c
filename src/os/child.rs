//! A child process after it started: its exit status, waiting for it (with a pidfd where the
//! kernel has one), and signals to the process group it leads.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

pub use super::fallback::pidfd_open;

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

/// What a non-blocking wait found.
pub enum Reaped {
    Running,
    Done(Exit),
    /// The status cannot be read (ECHILD: a host that ignores SIGCHLD reaps for us).
    Lost(io::Error),
}

/// A non-blocking `waitpid` for our own child: reaps it when it has exited.
pub fn try_reap(pid: libc::pid_t) -> Reaped {
    let mut status = 0;
    // SAFETY: a non-blocking wait for our own child.
    match unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } {
        0 => Reaped::Running,
        got if got == pid => Reaped::Done(if libc::WIFEXITED(status) {
            Exit::Code(libc::WEXITSTATUS(status))
        } else {
            Exit::Signal(libc::WTERMSIG(status))
        }),
        _ => match io::Error::last_os_error() {
            e if e.kind() == io::ErrorKind::Interrupted => Reaped::Running,
            e => Reaped::Lost(e),
        },
    }
}

/// Waits for our own child (after SIGKILL, or already exited).
pub fn reap(pid: libc::pid_t) {
    let mut status = 0;
    loop {
        // SAFETY: waits for our own child.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// `Some(exit)` when `pid` has exited (its status, when readable), without reaping it: the
/// zombie keeps its pid, and so its process group id, from being reused.
pub fn peek_exit(pid: libc::pid_t) -> Option<Option<Exit>> {
    // SAFETY: a zeroed siginfo is a valid out-parameter for waitid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid on our own child with WNOWAIT leaves it waitable.
    let rc = unsafe {
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT)
    };
    if rc != 0 {
        // ECHILD: already reaped (a host that ignores SIGCHLD reaps for us): it is gone.
        return Some(None);
    }
    // SAFETY: waitid filled `info` (si_pid 0 when the child has not exited).
    let (who, code, status) = unsafe { (info.si_pid(), info.si_code, info.si_status()) };
    if who == 0 {
        return None;
    }
    Some(Some(if code == libc::CLD_EXITED { Exit::Code(status) } else { Exit::Signal(status) }))
}

/// [`peek_exit`], waiting up to `limit` for it: on the pidfd when there is one, else polling.
pub fn wait_exit(pid: libc::pid_t, pidfd: Option<&OwnedFd>, limit: Duration) -> Option<Option<Exit>> {
    let until = Instant::now() + limit;
    loop {
        if let Some(exit) = peek_exit(pid) {
            return Some(exit);
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        match pidfd {
            Some(fd) => {
                let mut p = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
                let ms = i32::try_from(left.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
                // SAFETY: polls one valid pollfd.
                unsafe { libc::poll(&mut p, 1, ms) };
            }
            None => std::thread::sleep(left.min(Duration::from_millis(1))),
        }
    }
}

pub fn signal_group(pgid: i32, signal: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group the hook leads.
    unsafe {
        libc::kill(-pgid, signal);
    }
}

pub fn group_alive(pgid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(-pgid, 0) == 0 }
}
