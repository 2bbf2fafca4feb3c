//! What the engine uses from the OS that is newer than its floor (glibc 2.17, Linux 3.10: what
//! the shipped packages are built for, see docs/packaging.md), detected at run time, each with
//! its fallback:
//!
//! | used                                         | needs             | fallback                                |
//! | -------------------------------------------- | ----------------- | --------------------------------------- |
//! | `pidfd_open` (raw syscall: no glibc symbol)  | Linux 5.3         | poll `waitpid` every few milliseconds    |
//! | `posix_spawn_file_actions_addchdir_np`       | glibc 2.29        | fork, chdir and exec ([`super::spawn`]) |
//! | `eventfd` for a fire's cancel token          | Linux 2.6.27      | the command loop polls the flag (10 ms) |
//!
//! `addchdir_np` is looked up with `dlsym`, never linked by name: a reference to it would carry
//! the symbol version GLIBC_2.29 and stop the library from loading on an older glibc at all.
//!
//! The `portable` cargo feature (and any target other than Linux) builds the fallbacks in: no
//! pidfd, no eventfd (a pipe wakes a `poll`, see [`super::wake`]), no `addchdir_np` and nothing
//! else outside POSIX (pipe + FD_CLOEXEC for pipe2, sigwait for sigtimedwait, SIGPIPE blocked
//! around a socket write for MSG_NOSIGNAL), so a macOS or BSD build runs code the tests ran:
//! `make test` runs the hook suites once more with `--features portable`.
//!
//! `OH_HOOKS_FORCE_FALLBACK` (read once per process) takes the fallbacks on a system that has
//! the newer call, so the tests run the hooks through them: a comma-separated list of `pidfd`,
//! `chdir`, `eventfd`, or `all`. It changes how a hook is started and waited for, never what
//! the engine decides.

use std::ffi::{c_char, c_int};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::wake::WakeFd;

const PIDFD: u8 = 1;
const CHDIR: u8 = 2;
const EVENTFD: u8 = 4;

/// The fallbacks `OH_HOOKS_FORCE_FALLBACK` asks for.
fn forced() -> u8 {
    static FORCED: OnceLock<u8> = OnceLock::new();
    *FORCED.get_or_init(|| parse(&std::env::var("OH_HOOKS_FORCE_FALLBACK").unwrap_or_default()))
}

fn parse(value: &str) -> u8 {
    value.split(',').map(str::trim).fold(0, |bits, name| match name {
        "pidfd" => bits | PIDFD,
        "chdir" => bits | CHDIR,
        "eventfd" => bits | EVENTFD,
        "all" => bits | PIDFD | CHDIR | EVENTFD,
        _ => bits,
    })
}

/// Which paths this process takes, for tests and diagnostics: e.g. `"pidfd chdir eventfd"`
/// when every newer call is in use, `""` in the portable build.
#[doc(hidden)]
pub fn in_use() -> String {
    if cfg!(oh_portable) {
        return String::new();
    }
    let mut parts = Vec::new();
    if forced() & PIDFD == 0 && !PIDFD_MISSING.load(Ordering::Relaxed) {
        parts.push("pidfd");
    }
    if addchdir().is_some() {
        parts.push("chdir");
    }
    if forced() & EVENTFD == 0 {
        parts.push("eventfd");
    }
    parts.join(" ")
}

/// Set once `pidfd_open` said ENOSYS (a kernel before 5.3, or valgrind): not asked again.
static PIDFD_MISSING: AtomicBool = AtomicBool::new(false);

/// A pidfd becomes readable when the process exits: the loop can sleep in `poll` instead of
/// polling `waitpid`. `None` on kernels without pidfd_open (before 5.3), or when forced.
#[cfg(oh_portable)]
pub fn pidfd_open(_pid: i32) -> Option<OwnedFd> {
    None
}

#[cfg(not(oh_portable))]
pub fn pidfd_open(pid: i32) -> Option<OwnedFd> {
    use std::os::fd::{FromRawFd, RawFd};
    if forced() & PIDFD != 0 || PIDFD_MISSING.load(Ordering::Relaxed) {
        return None;
    }
    // SAFETY: a plain syscall (glibc's wrapper is 2.36's); on success it returns a new fd that
    // we then own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS) {
            PIDFD_MISSING.store(true, Ordering::Relaxed);
        }
        return None;
    }
    // SAFETY: the fd is new and owned by nobody else. pidfds are close-on-exec.
    Some(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// The wake-up fd of a cancel token: `None` when forced (or out of fds), for the command loop's
/// polling fallback. (The persistent workers' supervisor needs its fd and fails without one.)
pub(crate) fn cancel_fd() -> Option<WakeFd> {
    if forced() & EVENTFD != 0 {
        return None;
    }
    WakeFd::new().ok()
}

pub(crate) type AddChdir = unsafe extern "C" fn(*mut libc::posix_spawn_file_actions_t, *const c_char) -> c_int;

/// glibc's `posix_spawn_file_actions_addchdir_np` (2.29), `None` on an older glibc or when forced:
/// the spawn then forks, changes directory and execs itself.
pub(crate) fn addchdir() -> Option<AddChdir> {
    static FOUND: OnceLock<Option<AddChdir>> = OnceLock::new();
    *FOUND.get_or_init(|| {
        if forced() & CHDIR != 0 || cfg!(oh_portable) {
            return None;
        }
        // SAFETY: dlsym with RTLD_DEFAULT and a constant name; a non-null result is the
        // function of that name, whose C signature is the one AddChdir spells.
        unsafe {
            let f = libc::dlsym(libc::RTLD_DEFAULT, c"posix_spawn_file_actions_addchdir_np".as_ptr());
            (!f.is_null()).then(|| std::mem::transmute::<*mut libc::c_void, AddChdir>(f))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_force_variable_names_each_fallback() {
        assert_eq!(parse(""), 0);
        assert_eq!(parse("pidfd"), PIDFD);
        assert_eq!(parse("chdir, eventfd"), CHDIR | EVENTFD);
        assert_eq!(parse("all"), PIDFD | CHDIR | EVENTFD);
        assert_eq!(parse("nonsense"), 0);
    }

    #[test]
    #[cfg(not(oh_portable))]
    fn this_glibc_has_addchdir_np() {
        // The machine that builds and tests is newer than glibc 2.29; on an older one the
        // lookup finds nothing and the fork path runs.
        if forced() & CHDIR == 0 {
            assert!(addchdir().is_some());
        }
    }
}
