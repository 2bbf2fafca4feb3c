//! A file descriptor one thread makes readable to wake another's `poll`: an eventfd on Linux; in
//! the portable build (macOS has no eventfd) a non-blocking pipe, one more fd for the same use.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

pub struct WakeFd {
    /// The eventfd, or the pipe's read end.
    fd: OwnedFd,
    #[cfg(oh_portable)]
    write: OwnedFd,
}

impl WakeFd {
    /// A new close-on-exec, non-blocking one, or why there is none (EMFILE: out of fds).
    #[cfg(not(oh_portable))]
    pub fn new() -> io::Result<WakeFd> {
        use std::os::fd::FromRawFd;
        // SAFETY: eventfd(2) returns a new fd or -1.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the fd is new and ours.
        Ok(WakeFd { fd: unsafe { OwnedFd::from_raw_fd(fd) } })
    }

    #[cfg(oh_portable)]
    pub fn new() -> io::Result<WakeFd> {
        let (fd, write) = super::pipe::cloexec_pipe()?;
        super::pipe::set_nonblocking(fd.as_raw_fd());
        super::pipe::set_nonblocking(write.as_raw_fd());
        Ok(WakeFd { fd, write })
    }

    /// What to `poll` for POLLIN.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Makes [`WakeFd::fd`] readable (a failure only means it is readable already: the eventfd's
    /// counter or the pipe is full).
    pub fn signal(&self) {
        #[cfg(not(oh_portable))]
        let (fd, bytes) = (self.fd.as_raw_fd(), 1u64.to_ne_bytes());
        #[cfg(oh_portable)]
        let (fd, bytes) = (self.write.as_raw_fd(), [1u8]);
        // SAFETY: a write from a local buffer to our own fd.
        unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    }

    /// Makes it unreadable again, after a wake-up.
    pub fn clear(&self) {
        // One read resets an eventfd's counter; a pipe is read until empty.
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: reads into a local buffer from our own non-blocking fd.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if cfg!(not(oh_portable)) || n <= 0 {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn readable(w: &WakeFd) -> bool {
        let mut p = libc::pollfd { fd: w.fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, no wait.
        unsafe { libc::poll(&mut p, 1, 0) == 1 }
    }

    #[test]
    fn signal_makes_it_readable_and_clear_undoes_it() {
        let w = WakeFd::new().unwrap();
        assert!(!readable(&w));
        for _ in 0..3 {
            w.signal();
        }
        assert!(readable(&w));
        w.clear();
        assert!(!readable(&w), "one clear takes every signal back");
        w.signal();
        assert!(readable(&w));
    }
}
