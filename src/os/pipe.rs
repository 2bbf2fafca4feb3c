//! Reading and writing the pipes to a child without blocking.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// Reads what is available into `buf`, keeping at most `cap` bytes and noting overflow; the
/// rest is read into a scratch buffer and dropped, so a flood never grows memory. Returns true
/// at EOF (or a read error). Bounded per call so a fast writer cannot starve the timeout check.
pub fn drain(fd: &mut Option<OwnedFd>, buf: &mut Vec<u8>, cap: usize, overflow: &mut bool) -> bool {
    let Some(fd) = fd else { return true };
    let mut scratch = [std::mem::MaybeUninit::<u8>::uninit(); 16384];
    for _ in 0..256 {
        let room = cap.saturating_sub(buf.len());
        let target = if room > 0 {
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
        if room > 0 {
            // SAFETY: read(2) initialised the first `n` bytes of the spare capacity.
            unsafe { buf.set_len(buf.len() + n as usize) };
        } else {
            *overflow = true;
        }
    }
    false
}

pub fn set_nonblocking(fd: RawFd) {
    // SAFETY: fcntl on an fd we own.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags >= 0 {
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
    }
}
