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
/// the thread's SIGPIPE blocked around it and a SIGPIPE it raised consumed.
pub fn sendmsg_nosignal(fd: libc::c_int, msg: &libc::msghdr) -> isize {
    #[cfg(not(oh_portable))]
    // SAFETY: the caller's msghdr points at live iovecs.
    return unsafe { libc::sendmsg(fd, msg, libc::MSG_NOSIGNAL) };
    #[cfg(oh_portable)]
    {
        let mut guard = SigpipeBlock::tracked();
        // SAFETY: the caller's msghdr points at live iovecs.
        let n = unsafe { libc::sendmsg(fd, msg, 0) };
        if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EPIPE) {
            guard.epipe();
        }
        n
    }
}
