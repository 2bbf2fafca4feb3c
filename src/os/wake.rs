//! A file descriptor one thread makes readable to wake another's `poll`: an eventfd.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

pub struct WakeFd {
    fd: OwnedFd,
}

impl WakeFd {
    /// A new close-on-exec, non-blocking one, or why there is none (EMFILE: out of fds).
    pub fn new() -> io::Result<WakeFd> {
        // SAFETY: eventfd(2) returns a new fd or -1.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the fd is new and ours.
        Ok(WakeFd { fd: unsafe { OwnedFd::from_raw_fd(fd) } })
    }

    /// What to `poll` for POLLIN.
    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Makes [`WakeFd::fd`] readable (a failure only means it is readable already).
    pub fn signal(&self) {
        let one: u64 = 1;
        // SAFETY: an 8-byte write from a local to our eventfd.
        unsafe { libc::write(self.fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
    }

    /// Makes it unreadable again, after a wake-up.
    pub fn clear(&self) {
        let mut v: u64 = 0;
        // SAFETY: reads the eventfd's 8-byte counter into a local.
        unsafe { libc::read(self.fd.as_raw_fd(), (&mut v as *mut u64).cast(), 8) };
    }
}
