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
        // SAFETY: as above; sigtimedwait with a zero timeout never blocks.
        unsafe {
            if self.raised && !self.was_pending {
                let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
                while libc::sigtimedwait(&self.set, std::ptr::null_mut(), &zero) == libc::SIGPIPE {}
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}
