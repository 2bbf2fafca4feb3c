//! The SIGPIPE guard: writing to a child that stopped reading must not kill the host.

/// Blocks SIGPIPE on this thread while we write to a hook's stdin, so a hook that exits
/// without reading cannot kill a host with the default disposition; on drop, a SIGPIPE we
/// caused is consumed and the thread's mask restored. The process-wide disposition is never
/// touched.
pub struct SigpipeBlock {
    old: libc::sigset_t,
    set: libc::sigset_t,
    was_pending: bool,
    /// Whether a write may have raised SIGPIPE (always assumed unless [`SigpipeBlock::tracked`]).
    raised: bool,
}

impl SigpipeBlock {
    pub fn new() -> SigpipeBlock {
        SigpipeBlock::block(true)
    }

    /// For a caller that reports every EPIPE with [`SigpipeBlock::epipe`]: when none happened,
    /// dropping it costs only the mask restore.
    pub fn tracked() -> SigpipeBlock {
        SigpipeBlock::block(false)
    }

    pub fn epipe(&mut self) {
        self.raised = true;
    }

    fn block(raised: bool) -> SigpipeBlock {
        // SAFETY: sigset operations on local, initialised sets.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGPIPE);
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            // A SIGPIPE can be pending here only if this thread was blocking it already (else it
            // would have been delivered): only then is there a host's SIGPIPE to leave alone.
            let was_pending = libc::sigismember(&old, libc::SIGPIPE) == 1 && {
                let mut pending: libc::sigset_t = std::mem::zeroed();
                libc::sigpending(&mut pending);
                libc::sigismember(&pending, libc::SIGPIPE) == 1
            };
            SigpipeBlock { old, set, was_pending, raised }
        }
    }
}

impl Drop for SigpipeBlock {
    fn drop(&mut self) {
        if self.raised && !self.was_pending {
            consume_pending(&self.set);
        }
        // SAFETY: restores the mask saved in `block`.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}

/// Takes every pending SIGPIPE off this thread (it is blocked here), without waiting.
#[cfg(not(oh_portable))]
fn consume_pending(set: &libc::sigset_t) {
    let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: sigtimedwait with a zero timeout never blocks.
    while unsafe { libc::sigtimedwait(set, std::ptr::null_mut(), &zero) } == libc::SIGPIPE {}
}

/// The same with POSIX calls only (macOS has no sigtimedwait): `sigwait` blocks, so it is called
/// only while `sigpending` shows a SIGPIPE to take.
#[cfg(oh_portable)]
fn consume_pending(set: &libc::sigset_t) {
    // SAFETY: sigset operations on local sets; sigwait returns at once for a pending signal.
    unsafe {
        loop {
            let mut pending: libc::sigset_t = std::mem::zeroed();
            if libc::sigpending(&mut pending) != 0 || libc::sigismember(&pending, libc::SIGPIPE) != 1 {
                return;
            }
            let mut got: libc::c_int = 0;
            if libc::sigwait(set, &mut got) != 0 {
                return;
            }
        }
    }
}

/// `sendmsg` that cannot raise SIGPIPE: MSG_NOSIGNAL (Linux, the BSDs); in the portable build,
/// the thread's SIGPIPE blocked around it and a SIGPIPE it raised consumed. The bytes sent, or
/// the error (read before the guard's own calls can change errno).
pub fn sendmsg_nosignal(fd: libc::c_int, msg: &libc::msghdr) -> std::io::Result<usize> {
    #[cfg(oh_portable)]
    let mut guard = SigpipeBlock::tracked();
    #[cfg(oh_portable)]
    let flags = 0;
    #[cfg(not(oh_portable))]
    let flags = libc::MSG_NOSIGNAL;
    // SAFETY: the caller's msghdr points at live iovecs.
    let n = unsafe { libc::sendmsg(fd, msg, flags) };
    if n >= 0 {
        return Ok(n as usize);
    }
    let error = std::io::Error::last_os_error();
    #[cfg(oh_portable)]
    if error.raw_os_error() == Some(libc::EPIPE) {
        guard.epipe();
    }
    Err(error)
}

/// Writes `record` whole to `fd` (a pipe, for `oh_hooks_fire_async_fd`) without raising SIGPIPE:
/// one `write`, which a pipe makes atomic for up to `PIPE_BUF` bytes, so records written by
/// several threads never interleave. A full pipe is waited for (`poll`), whether or not it is
/// non-blocking: dropping the record would leave its reader waiting forever. For any thread: the
/// thread's SIGPIPE is blocked around the write (two `rt_sigprocmask`), and its mask restored.
pub fn write_record(fd: libc::c_int, record: &[u8]) -> std::io::Result<()> {
    let mut guard = SigpipeBlock::tracked();
    let written = write_whole(fd, record);
    if is_epipe(&written) {
        guard.epipe();
    }
    written
}

/// [`write_record`] for a thread the engine owns (an asynchronous fire's worker), which runs no
/// code of the host's but its host functions: SIGPIPE is blocked on it at its first record and
/// stays blocked, so later records cost no signal-mask calls. Unlike checking for a host that
/// ignores SIGPIPE, this holds whatever the host does meanwhile to the disposition: a blocked
/// SIGPIPE is only made pending on this thread, and taken off again here. Threads spawned
/// from it inherit the mask; hook processes never do (spawn empties their mask).
pub fn write_record_on_own_thread(fd: libc::c_int, record: &[u8]) -> std::io::Result<()> {
    thread_local! {
        static BLOCKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    let set = sigpipe_set();
    if !BLOCKED.get() {
        // SAFETY: blocks one signal on this thread; `set` is an initialised local set.
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
        BLOCKED.set(true);
    }
    let written = write_whole(fd, record);
    if is_epipe(&written) {
        consume_pending(&set);
    }
    written
}

fn sigpipe_set() -> libc::sigset_t {
    // SAFETY: sigset operations on a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        set
    }
}

fn is_epipe(r: &std::io::Result<()>) -> bool {
    matches!(r, Err(e) if e.raw_os_error() == Some(libc::EPIPE))
}

/// The write of [`write_record`], SIGPIPE already kept off by the caller.
fn write_whole(fd: libc::c_int, record: &[u8]) -> std::io::Result<()> {
    loop {
        // SAFETY: `record` is valid for its length; a bad `fd` is an error, not UB.
        let n = unsafe { libc::write(fd, record.as_ptr().cast(), record.len()) };
        if n >= 0 {
            return if n as usize == record.len() {
                Ok(())
            } else {
                Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "a short write: fd is not a pipe"))
            };
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => {}
            Some(code) if code == libc::EAGAIN || code == libc::EWOULDBLOCK => {
                let mut p = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
                // SAFETY: one valid pollfd. POLLERR/POLLHUP (the reader is gone) also return, and
                // the next write says EPIPE.
                unsafe { libc::poll(&mut p, 1, -1) };
            }
            _ => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A socket write to a peer that is gone fails with EPIPE and does not kill a process whose
    /// SIGPIPE is at its default (a C host's): MSG_NOSIGNAL, or the guard in the portable build.
    /// Run in a process of its own, since it changes the process-wide disposition.
    #[test]
    fn a_send_to_a_closed_socket_does_not_kill_the_host() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "os::sigpipe::tests::send_with_sigpipe_at_default", "--ignored", "--nocapture"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && text.contains("1 passed"), "{:?}: {text}", out.status);
    }

    #[test]
    #[ignore = "run by a_send_to_a_closed_socket_does_not_kill_the_host in its own process"]
    fn send_with_sigpipe_at_default() {
        let mut fds = [0; 2];
        // SAFETY: the disposition of this process of its own; a socketpair into a local array,
        // one end closed.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            assert_eq!(libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr()), 0);
            libc::close(fds[1]);
        }
        let byte = [1u8];
        let mut iov = libc::iovec { iov_base: byte.as_ptr() as *mut libc::c_void, iov_len: 1 };
        // SAFETY: a zeroed msghdr is valid; it points at one iovec into a live slice.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        assert_eq!(sendmsg_nosignal(fds[0], &msg).map_err(|e| e.raw_os_error()), Err(Some(libc::EPIPE)));
    }
}
