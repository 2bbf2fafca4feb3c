//! Pipes: making them close-on-exec, and reading and writing a child's without blocking.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A close-on-exec pipe, (read end, write end).
pub fn cloexec_pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    #[cfg(not(oh_portable))]
    // SAFETY: pipe2 writes two fds into the array.
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    // macOS has no pipe2: pipe, then FD_CLOEXEC on each end. No spawn of ours may run in between
    // (its child would inherit both ends: a hook's stdin that never sees EOF, a stdout that
    // never closes), so this holds the spawn lock exclusively.
    #[cfg(oh_portable)]
    let rc = {
        let _no_spawn = crate::sync::Unpoison::unpoisoned(SPAWNING.write());
        // SAFETY: pipe writes two fds into the array; fcntl on the fds it made.
        unsafe {
            let rc = libc::pipe(fds.as_mut_ptr());
            if rc == 0 {
                libc::fcntl(fds[0], libc::F_SETFD, libc::FD_CLOEXEC);
                libc::fcntl(fds[1], libc::F_SETFD, libc::FD_CLOEXEC);
            }
            rc
        }
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds are new and ours.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

#[cfg(oh_portable)]
static SPAWNING: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Held (shared) while a child is created: in the portable build, [`cloexec_pipe`] waits for it,
/// so no child of ours inherits a pipe end that is not close-on-exec yet. Nothing elsewhere.
pub struct SpawnGuard {
    #[cfg(oh_portable)]
    _shared: std::sync::RwLockReadGuard<'static, ()>,
}

pub fn spawning() -> SpawnGuard {
    SpawnGuard {
        #[cfg(oh_portable)]
        _shared: crate::sync::Unpoison::unpoisoned(SPAWNING.read()),
    }
}

/// Reads what is available into `buf`, keeping at most `cap` bytes and noting overflow; the
/// rest is read into a scratch buffer and dropped, so a flood never grows memory. Returns true
/// at EOF (or a read error). Bounded per call so a fast writer cannot starve the timeout check.
pub fn drain(fd: &mut Option<OwnedFd>, buf: &mut Vec<u8>, cap: usize, overflow: &mut bool) -> bool {
    let Some(fd) = fd else { return true };
    let mut scratch = [std::mem::MaybeUninit::<u8>::uninit(); 16384];
    for _ in 0..256 {
        let room = cap.saturating_sub(buf.len());
        // Nothing kept yet: read into the scratch buffer first, so an empty stream (most hooks'
        // stderr) costs no allocation.
        let into_buf = room > 0 && buf.capacity() > 0;
        let target = if into_buf {
            buf.reserve(room.min(1 << 16));
            let spare = buf.spare_capacity_mut();
            let len = spare.len().min(room);
            &mut spare[..len]
        } else {
            &mut scratch[..]
        };
        // SAFETY: reading into writable (possibly uninitialised) memory of `target.len()` bytes.
        let n = unsafe { libc::read(fd.as_raw_fd(), target.as_mut_ptr().cast(), target.len()) };
        if n == 0 {
            return true;
        }
        if n < 0 {
            return match io::Error::last_os_error().kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => false,
                _ => true,
            };
        }
        if into_buf {
            // SAFETY: read(2) initialised the first `n` bytes of the spare capacity.
            unsafe { buf.set_len(buf.len() + n as usize) };
        } else if room > 0 {
            // SAFETY: read(2) initialised the first `n` bytes of `scratch`.
            let got = unsafe { std::slice::from_raw_parts(scratch.as_ptr().cast::<u8>(), n as usize) };
            buf.extend_from_slice(&got[..got.len().min(room)]);
            *overflow |= got.len() > room;
        } else {
            *overflow = true;
        }
    }
    false
}

/// For an fd this crate just made (a pipe end, an eventfd): no other status flag is set on it,
/// so one `F_SETFL` does it without the `F_GETFL` first (the access mode is ignored by F_SETFL).
pub fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on an fd we own.
    unsafe {
        libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK);
    }
}
