//! The TCP layer under HTTP hooks: ureq's connector chain (CONNECT proxies, TLS, pooling, HTTP
//! framing: chunked bodies, resets, trickling servers all stay ureq's) with this transport in
//! place of ureq's `TcpTransport`.
//!
//! Why: on a kept-alive loopback request ureq's transport made ten system calls besides the one
//! send and one receive that the request needs. It probes the pooled connection twice (when it
//! is taken and when it is returned), each time as set-non-blocking, read, set-blocking; it sets
//! `SO_SNDTIMEO` and `SO_RCVTIMEO` on every request, because the hook's timeout is a deadline and
//! so a different remaining time each call; and it sends the request head and body as two
//! segments. Here the socket stays non-blocking and waits in `poll` with the remaining time; a
//! probe is one `recv(MSG_PEEK | MSG_DONTWAIT)`; and one transmitted buffer is held back until
//! the next one or the first read, so head and body leave in one `sendmsg`.

use super::http::bound;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};
use ureq::unversioned::transport::{
    Buffers, ConnectProxyConnector, ConnectionDetails, Connector, Either, LazyBuffers, NextTimeout, RustlsConnector,
    ShutdownHandle, Transport,
};
use ureq::{Error, ProxyProtocol, Timeout};

/// ureq's default chain with this TCP layer: CONNECT proxy, TCP, TLS (rustls), ending in a boxed
/// transport as `DefaultConnector`'s does, so more links can follow it the same way.
pub fn connector() -> impl Connector<(), Out = Box<dyn Transport>> {
    ().chain(ConnectProxyConnector::default()).chain(TcpConnector).chain(RustlsConnector::default()).chain(Boxed)
}

#[derive(Debug)]
struct Boxed;

impl<In: Transport> Connector<In> for Boxed {
    type Out = Box<dyn Transport>;

    fn connect(&self, _: &ConnectionDetails, chained: Option<In>) -> Result<Option<Self::Out>, Error> {
        Ok(chained.map(|t| Box::new(t) as Box<dyn Transport>))
    }
}

/// Opens the TCP connection (directly or to a proxy; a CONNECT proxy's tunnel and TLS are the
/// next links of the chain).
#[derive(Debug, Default)]
pub struct TcpConnector;

impl<In: Transport> Connector<In> for TcpConnector {
    type Out = Either<In, TcpTransport>;

    fn connect(&self, details: &ConnectionDetails, chained: Option<In>) -> Result<Option<Self::Out>, Error> {
        if chained.is_some() {
            return Ok(chained.map(Either::A));
        }
        if let Some(proxy) = details.config.proxy() {
            if matches!(
                proxy.protocol(),
                ProxyProtocol::Socks4 | ProxyProtocol::Socks4A | ProxyProtocol::Socks5 | ProxyProtocol::Socks5h
            ) {
                // Never around the proxy: a request the user routed through one must not go direct.
                return Err(Error::Io(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "SOCKS proxies are not supported for HTTP hooks; use an http:// or https:// proxy",
                )));
            }
        }
        let deadline = deadline(bound(details.timeout));
        let stream = connect(details.addrs.iter().copied(), deadline)?;
        if details.config.no_delay() {
            stream.set_nodelay(true)?;
        }
        stream.set_nonblocking(true)?;
        let buffers = LazyBuffers::new(details.config.input_buffer_size(), details.config.output_buffer_size());
        let transport =
            TcpTransport { stream: Arc::new(stream), buffers, held: Vec::new(), sent: false, just_read: false };
        (details.register_shutdown)(Arc::downgrade(&transport.stream) as Weak<dyn ShutdownHandle>)?;
        Ok(Some(Either::B(transport)))
    }
}

/// When `timeout` runs out; `None`: never.
fn deadline(timeout: NextTimeout) -> Option<Instant> {
    if timeout.after.is_not_happening() {
        return None;
    }
    let now = Instant::now();
    Some(now.checked_add(*timeout.after).unwrap_or(now + Duration::from_secs(86_400)))
}

/// Tries each address in turn within the one deadline.
fn connect(addrs: impl Iterator<Item = SocketAddr>, deadline: Option<Instant>) -> Result<TcpStream, Error> {
    let mut last = None;
    for addr in addrs {
        let attempt = match deadline {
            None => TcpStream::connect(addr),
            Some(d) => match d.checked_duration_since(Instant::now()).filter(|t| !t.is_zero()) {
                Some(left) => TcpStream::connect_timeout(&addr, left),
                None => return Err(Error::Timeout(Timeout::Connect)),
            },
        };
        match attempt {
            Ok(s) => return Ok(s),
            Err(e) if e.kind() == io::ErrorKind::TimedOut || e.kind() == io::ErrorKind::WouldBlock => {
                return Err(Error::Timeout(Timeout::Connect))
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.map_or_else(|| Error::Io(io::Error::new(io::ErrorKind::NotFound, "no address to connect to")), Error::Io))
}

pub struct TcpTransport {
    /// In an `Arc` so the agent's shutdown handle can shut the socket down from another thread.
    stream: Arc<TcpStream>,
    buffers: LazyBuffers,
    /// A transmitted buffer not yet sent (see the module comment).
    held: Vec<u8>,
    /// Something was sent since the last read: the answer cannot be there yet, so the next
    /// read waits in `poll` first instead of trying `recv` in vain.
    sent: bool,
    /// Nothing happened since the last read. The pool probes a connection when it is returned
    /// (right after the response was read) and again when it is taken for the next request; the
    /// second probe sees everything the first would, so the first is answered without a syscall.
    /// (Bytes that arrived with the response are in ureq's input buffer, which it checks itself.)
    just_read: bool,
}

impl std::fmt::Debug for TcpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TcpTransport").field("peer", &self.stream.peer_addr().ok()).finish()
    }
}

impl TcpTransport {
    fn fd(&self) -> RawFd {
        self.stream.as_raw_fd()
    }

    fn flush(&mut self, timeout: NextTimeout) -> Result<(), Error> {
        if self.held.is_empty() {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        let result = send_all(self.fd(), &[&held], timeout.for_write());
        self.held = held;
        self.held.clear();
        self.sent = true;
        result
    }
}

impl Transport for TcpTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), Error> {
        self.just_read = false;
        if self.held.is_empty() {
            self.held.extend_from_slice(&self.buffers.output()[..amount]);
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        let fd = self.fd();
        let result = send_all(fd, &[&held, &self.buffers.output()[..amount]], bound(timeout).for_write());
        self.held = held;
        self.held.clear();
        self.sent = true;
        result
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, Error> {
        let timeout = bound(timeout);
        self.flush(timeout)?;
        let timeout = timeout.for_read();
        if timeout.after.is_zero() {
            return Err(Error::Timeout(timeout.reason));
        }
        let deadline = deadline(timeout);
        let fd = self.fd();
        let mut wait_first = std::mem::replace(&mut self.sent, false);
        loop {
            if wait_first && !ready(fd, libc::POLLIN, deadline)? {
                return Err(Error::Timeout(timeout.reason));
            }
            let buf = self.buffers.input_append_buf();
            // SAFETY: receives into a live, writable buffer of `buf.len()` bytes.
            let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n >= 0 {
                self.buffers.input_appended(n as usize);
                self.just_read = n > 0;
                return Ok(n > 0);
            }
            match io::Error::last_os_error() {
                e if e.kind() == io::ErrorKind::Interrupted => wait_first = false,
                e if e.kind() == io::ErrorKind::WouldBlock => wait_first = true,
                e => return Err(Error::Io(e)),
            }
        }
    }

    /// Open means: nothing to read and not closed. Bytes the server sent unasked (or a
    /// previous body not read to its end) make a connection unusable, as in ureq.
    fn is_open(&mut self) -> bool {
        if std::mem::replace(&mut self.just_read, false) {
            return true;
        }
        let mut byte = 0u8;
        // SAFETY: peeks at most one byte into a local.
        let n = unsafe { libc::recv(self.fd(), (&mut byte as *mut u8).cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
        n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock
    }
}

/// Waits until `fd` is ready for `events`; false when `deadline` passed first.
fn ready(fd: RawFd, events: i16, deadline: Option<Instant>) -> Result<bool, Error> {
    loop {
        let ms = match deadline {
            None => -1,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Ok(false);
                }
                i32::try_from(left.as_micros().div_ceil(1000)).unwrap_or(i32::MAX)
            }
        };
        let mut p = libc::pollfd { fd, events, revents: 0 };
        // SAFETY: polls one valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, ms) };
        if n > 0 {
            return Ok(true);
        }
        if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return Err(Error::Io(io::Error::last_os_error()));
        }
    }
}

/// Sends every part, in order, with one `sendmsg` when the socket takes it all.
/// `MSG_NOSIGNAL`: a peer that closed must not raise SIGPIPE in the host.
fn send_all(fd: RawFd, parts: &[&[u8]], timeout: NextTimeout) -> Result<(), Error> {
    if timeout.after.is_zero() {
        return Err(Error::Timeout(timeout.reason));
    }
    let deadline = deadline(timeout);
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut done = 0;
    while done < total {
        // The iovecs of what is left.
        let mut iov: [libc::iovec; 2] = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; 2];
        let mut count = 0;
        let mut skip = done;
        for part in parts.iter().take(2) {
            if skip >= part.len() {
                skip -= part.len();
                continue;
            }
            let rest = &part[skip..];
            skip = 0;
            iov[count] = libc::iovec { iov_base: rest.as_ptr() as *mut libc::c_void, iov_len: rest.len() };
            count += 1;
        }
        // SAFETY: a zeroed msghdr is valid; it points at `count` iovecs into live slices.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = iov.as_mut_ptr();
        msg.msg_iovlen = count as _;
        let error = match crate::os::sigpipe::sendmsg_nosignal(fd, &msg) {
            Ok(n) => {
                done += n;
                continue;
            }
            Err(e) => e,
        };
        match error {
            e if e.kind() == io::ErrorKind::Interrupted => {}
            e if e.kind() == io::ErrorKind::WouldBlock => {
                if !ready(fd, libc::POLLOUT, deadline)? {
                    return Err(Error::Timeout(timeout.reason));
                }
            }
            e => return Err(Error::Io(e)),
        }
    }
    Ok(())
}
