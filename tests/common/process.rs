//! Helpers for tests that watch the whole process: a per-binary lock for measurements
//! (timing, memory, children, file descriptors) and readers for /proc.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Tests that measure the whole process (children, RSS, fds, wall time) hold this, so the other
/// tests of the same binary cannot disturb the measurement.
pub fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A field of /proc/self/status in KiB (`VmRSS`, `VmHWM`).
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field).and_then(|r| r.strip_prefix(':')))
        .and_then(|r| r.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

/// CPU seconds the calling thread has used (user + system). A bound on work done on one thread
/// (a config load, a regex compile) holds whatever else the machine runs; a wall-clock bound does
/// not: `make test` runs suites side by side on 2 cores.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// Resets VmHWM to the current RSS (Linux >= 4.0). False when the kernel refuses.
pub fn reset_hwm() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// (pid, state, ppid, pgrp) of one /proc/<pid>/stat, or None when it is gone.
pub fn proc_stat(pid: i32) -> Option<(i32, char, i32, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces: parse after the last ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    let ppid = f.next()?.parse().ok()?;
    let pgrp = f.next()?.parse().ok()?;
    Some((pid, state, ppid, pgrp))
}

pub fn all_processes() -> Vec<(i32, char, i32, i32)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(proc_stat)
        .collect()
}

/// Our direct children (any state), e.g. a hook's shell that was never reaped.
pub fn children() -> Vec<(i32, char)> {
    let me = std::process::id() as i32;
    all_processes().into_iter().filter(|p| p.2 == me).map(|p| (p.0, p.1)).collect()
}

pub fn zombie_children() -> Vec<i32> {
    children().into_iter().filter(|(_, s)| *s == 'Z').map(|(p, _)| p).collect()
}

/// Not running any more: no /proc entry, or a zombie / dead entry. (This machine's PID 1 does
/// not reap orphans promptly, so a killed grandchild may linger as a zombie of PID 1.)
pub fn dead(pid: i32) -> bool {
    match proc_stat(pid) {
        None => true,
        Some((_, state, _, _)) => state == 'Z' || state == 'X',
    }
}

pub fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reads a pid a hook wrote into a file, waiting briefly for it to appear.
pub fn read_pid(path: &std::path::Path) -> i32 {
    let mut pid = None;
    wait_until(Duration::from_secs(2), || {
        pid = std::fs::read_to_string(path).ok().and_then(|s| s.trim().parse().ok());
        pid.is_some()
    });
    pid.unwrap_or_else(|| panic!("no pid in {}", path.display()))
}

pub fn kill(pid: i32, signal: i32) {
    // SAFETY: kill(2) on a pid the test's own hook started.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// The shell-quoted form of a path, for embedding in hook commands.
pub fn q(path: &std::path::Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// Runs `f` with every new fd refused with EMFILE (a real RLIMIT_NOFILE, lowered to the lowest
/// free descriptor and restored after). Process-wide: a test binary that uses it holds one test.
pub fn without_fds<T>(f: impl FnOnce() -> T) -> T {
    let mut old = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: plain syscalls on a local struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut old), 0);
        let lowest = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        assert!(lowest >= 0);
        libc::close(lowest);
        let low = libc::rlimit { rlim_cur: lowest as libc::rlim_t, rlim_max: old.rlim_max };
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &low), 0);
        assert!(std::fs::File::open("/dev/null").is_err_and(|e| e.raw_os_error() == Some(libc::EMFILE)));
    }
    let result = f();
    // SAFETY: as above.
    unsafe { assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &old), 0) };
    result
}
