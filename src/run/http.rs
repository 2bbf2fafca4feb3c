//! HTTP hooks (docs/config.md "HTTP hooks"): POST the envelope, read at most `maxOutputBytes` back.
//!
//! One ureq agent per engine, created on first use and shared by every thread, so connections
//! to a hook endpoint are kept alive and reused across fires.

use crate::os::cancel::Cancel;
use std::cell::{Cell, RefCell};
use std::io::Read;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use ureq::config::Config;
use ureq::http::header::{HeaderValue, CONTENT_TYPE};
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{Buffers, ConnectionDetails, Connector, NextTimeout, Transport};

/// Policy endpoints are usually IP literals (`http://127.0.0.1:…`): those need no lookup at all
/// and are answered here, on the calling thread. Host names are looked up by [`lookup`]: within
/// the hook's timeout (docs/config.md "HTTP hooks"), and with a bound on lookups in flight (docs/reliability.md "Reliability").
#[derive(Debug, Default)]
struct LiteralResolver(DefaultResolver);

impl Resolver for LiteralResolver {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let timeout = bound(timeout);
        match literal(uri) {
            Some(addr) => {
                let mut addrs = self.empty();
                addrs.push(addr);
                Ok(addrs)
            }
            None => {
                let (Some(scheme), Some(authority)) = (uri.scheme(), uri.authority()) else {
                    // Not a URL ureq can use: its own resolver says why.
                    return self.0.resolve(uri, config, timeout);
                };
                let Some(host_port) = DefaultResolver::host_and_port(scheme, authority) else {
                    return self.0.resolve(uri, config, timeout);
                };
                let found = lookup(host_port, *timeout.after, |a| a.to_socket_addrs().map(|i| i.collect())).map_err(
                    |e| match e {
                        Lookup::TimedOut => ureq::Error::Timeout(timeout.reason),
                        Lookup::Failed(e) => ureq::Error::Io(e),
                    },
                )?;
                let mut addrs = self.empty();
                for addr in config.ip_family().keep_wanted(found.into_iter()).take(16) {
                    // ureq keeps at most 16 addresses (its MAX_ADDRS; push panics beyond).
                    addrs.push(addr);
                }
                if addrs.is_empty() {
                    return Err(ureq::Error::HostNotFound);
                }
                Ok(addrs)
            }
        }
    }
}

/// The address of a URL whose host is an IP literal (`None`: a host name, or no host), remembered
/// per thread for the authorities it resolved last (parsing the authority again on every request
/// cost a thousand instructions).
fn literal(uri: &Uri) -> Option<SocketAddr> {
    let authority = uri.authority()?;
    let default_port = match uri.scheme_str() {
        Some("https") => 443,
        Some("http") => 80,
        _ => return None,
    };
    LITERALS.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some(&(_, _, addr)) = kept.iter().find(|(a, p, _)| *p == default_port && **a == *authority.as_str()) {
            return addr;
        }
        let host = authority.host().trim_start_matches('[').trim_end_matches(']');
        let port = authority.port_u16().unwrap_or(default_port);
        let addr = host.parse::<IpAddr>().ok().map(|ip| SocketAddr::new(ip, port));
        if kept.len() == KEPT {
            kept.remove(0);
        }
        kept.push((authority.as_str().into(), default_port, addr));
        addr
    })
}

/// Host-name lookups in flight, process-wide. `getaddrinfo` cannot be cancelled: a lookup the
/// hook's timeout gave up on still holds its thread until the system resolver gives up (its
/// timeout times attempts, seconds). Without a bound, a config naming a host whose DNS hangs
/// would leave a thread behind on every fire.
static LOOKUPS: AtomicUsize = AtomicUsize::new(0);
pub const MAX_LOOKUPS: usize = 16;

#[derive(Debug)]
pub enum Lookup {
    TimedOut,
    Failed(std::io::Error),
}

/// Runs `resolve(host_port)` on a thread of its own and waits for it at most `within`. Fails at
/// once when [`MAX_LOOKUPS`] lookups are already in flight.
pub fn lookup<F>(host_port: String, within: Duration, resolve: F) -> Result<Vec<SocketAddr>, Lookup>
where
    F: FnOnce(&str) -> std::io::Result<Vec<SocketAddr>> + Send + 'static,
{
    struct InFlight;
    impl Drop for InFlight {
        fn drop(&mut self) {
            LOOKUPS.fetch_sub(1, Ordering::SeqCst);
        }
    }
    if LOOKUPS.fetch_add(1, Ordering::SeqCst) >= MAX_LOOKUPS {
        LOOKUPS.fetch_sub(1, Ordering::SeqCst);
        return Err(Lookup::Failed(std::io::Error::other(format!(
            "{MAX_LOOKUPS} host-name lookups are already in progress (a DNS server is not answering?)"
        ))));
    }
    let guard = InFlight;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new().name("oh-hooks-dns".into()).spawn(move || {
        let _guard = guard;
        let _ = tx.send(resolve(&host_port));
    });
    if let Err(e) = spawned {
        return Err(Lookup::Failed(e));
    }
    match rx.recv_timeout(within) {
        Ok(Ok(addrs)) => Ok(addrs),
        Ok(Err(e)) => Err(Lookup::Failed(e)),
        Err(_) => Err(Lookup::TimedOut),
    }
}

#[derive(Default)]
pub struct HttpClient {
    agent: OnceLock<ureq::Agent>,
    /// The `httpProxy` option. ureq's default config reads `http_proxy`, `HTTPS_PROXY`,
    /// `ALL_PROXY`...: whoever controls the host's environment would then receive every
    /// envelope and decide every HTTP hook, so the proxy is always set here, `None` included.
    proxy: Option<ureq::Proxy>,
}

/// The most of an answer's announced `Content-Length` allocated before its bytes arrive.
const PREALLOCATED: usize = 64 * 1024;

/// What came back.
#[derive(Debug)]
pub enum Reply {
    /// A 2xx with its body (possibly empty).
    Body(u16, Vec<u8>),
    /// Any other status, 3xx included: redirects are not followed.
    Status(u16),
    /// The body was larger than the cap.
    TooLarge(u16),
    /// No usable response: connection refused, TLS failure, timeout, protocol error.
    Failed { timed_out: bool, message: String },
}

impl HttpClient {
    pub fn new(proxy: Option<ureq::Proxy>) -> HttpClient {
        HttpClient { agent: OnceLock::new(), proxy }
    }

    fn agent(&self) -> &ureq::Agent {
        self.agent.get_or_init(|| {
            let config = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                .proxy(self.proxy.clone())
                // Hosts fire from many threads at once: keep a connection per thread alive
                // rather than ureq's default of 3 per host.
                .max_idle_connections(64)
                .max_idle_connections_per_host(16)
                .user_agent(concat!("oh-hooks/", env!("CARGO_PKG_VERSION")))
                .build();
            // ureq's default chain with our TCP layer (see `http_tcp`), each connection wrapped so
            // that a cancelled fire stops waiting for its answer.
            let connector = super::http_tcp::connector().chain(Cancellable);
            ureq::Agent::with_parts(config, connector, LiteralResolver::default())
        })
    }

    /// POSTs `body`. With `cancel`, the wait for the answer ends soon after the token fires
    /// (as a timeout: the caller reports the cancelled fire, not this hook).
    pub fn post(
        &self,
        url: &str,
        body: &str,
        headers: &[(String, String)],
        timeout: Duration,
        max_bytes: usize,
        cancel: Option<&Cancel>,
    ) -> Reply {
        let failed =
            |e: ureq::Error| Reply::Failed { timed_out: matches!(e, ureq::Error::Timeout(_)), message: e.to_string() };
        if timeout.is_zero() {
            // What ureq answers before anything else when its global timeout is zero.
            return failed(ureq::Error::Timeout(ureq::Timeout::Global));
        }
        let _scope = RequestScope::enter(cancel, Instant::now().checked_add(timeout));
        let mut request = match parsed(url) {
            Some(uri) => self.agent().post(uri),
            // ureq reports why (at `send`).
            None => self.agent().post(url),
        }
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request.send(body);
        let mut response = match response {
            Ok(r) => r,
            Err(e) => return failed(e),
        };
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Reply::Status(status);
        }
        // Read into a buffer of the announced size (no larger than the cap, nor than `PREALLOCATED`
        // on the server's word alone), so that a small answer costs one read and no regrowing.
        let announced = response.body().content_length().unwrap_or(0).min(max_bytes as u64) as usize;
        let mut bytes = Vec::with_capacity(announced.min(PREALLOCATED) + 1);
        let read = response.body_mut().with_config().limit(max_bytes as u64).reader().read_to_end(&mut bytes);
        match read.map_err(ureq::Error::from) {
            Ok(_) => Reply::Body(status, bytes),
            Err(ureq::Error::BodyExceedsLimit(_)) => Reply::TooLarge(status),
            Err(e) => failed(e),
        }
    }
}

thread_local! {
    /// The token of the fire this thread is running an HTTP hook for. ureq runs a request on the
    /// calling thread from start to end, so the transport reads it there; [`RequestScope`] keeps
    /// the pointer valid (set only for the duration of `post`, which borrows the token).
    static CANCEL: Cell<*const Cancel> = const { Cell::new(std::ptr::null()) };
    /// When the HTTP hook this thread is running times out (`None`: never), read by [`bound`].
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// The hook's timeout is one deadline for the whole request: lookup, connect, TLS, sending, the
/// answer's head and its body. ureq can keep it (`timeout_global`), but only in a configuration
/// of the request's own: a copy of the agent's whole `Config` made, boxed and dropped on every
/// request (some 4,500 instructions of a 50,000-instruction loopback fire). Every wait of a
/// request is in this module's resolver or in `http_tcp`'s connector and transport, so the
/// deadline is kept there instead, read from the thread, and a request that runs out of it fails
/// as ureq's would: `Error::Timeout(Timeout::Global)` (or `Connect` while connecting).
pub(super) fn bound(timeout: NextTimeout) -> NextTimeout {
    match DEADLINE.with(Cell::get) {
        None => timeout,
        Some(deadline) => {
            let left = deadline.saturating_duration_since(Instant::now());
            if timeout.after.is_not_happening() || left < *timeout.after {
                NextTimeout { after: left.into(), reason: ureq::Timeout::Global, ..timeout }
            } else {
                timeout
            }
        }
    }
}

/// Sets this thread's [`CANCEL`] and [`DEADLINE`] for one request; restores them when dropped.
struct RequestScope(*const Cancel, Option<Instant>);

impl RequestScope {
    fn enter(cancel: Option<&Cancel>, deadline: Option<Instant>) -> RequestScope {
        let cancel = CANCEL.with(|c| c.replace(cancel.map_or(std::ptr::null(), |c| c as *const Cancel)));
        RequestScope(cancel, DEADLINE.with(|d| d.replace(deadline)))
    }
}

impl Drop for RequestScope {
    fn drop(&mut self) {
        CANCEL.with(|c| c.set(self.0));
        DEADLINE.with(|d| d.set(self.1));
    }
}

thread_local! {
    /// The URLs this thread posted to last, parsed: a hook posts to the same URL on every fire.
    static URIS: RefCell<Vec<(Box<str>, Uri)>> = const { RefCell::new(Vec::new()) };
    /// [`literal`]'s answers: (authority, the scheme's default port, address).
    static LITERALS: RefCell<Vec<(Box<str>, u16, Option<SocketAddr>)>> = const { RefCell::new(Vec::new()) };
}

/// How many parsed URLs (and resolved authorities) each thread keeps.
const KEPT: usize = 8;

/// `url` parsed (cloning a parsed `Uri` shares its bytes); `None` when it does not parse.
fn parsed(url: &str) -> Option<Uri> {
    URIS.with(|uris| {
        let mut uris = uris.borrow_mut();
        if let Some((_, uri)) = uris.iter().find(|(u, _)| **u == *url) {
            return Some(uri.clone());
        }
        let uri = Uri::try_from(url).ok()?;
        if uris.len() == KEPT {
            uris.remove(0);
        }
        uris.push((url.into(), uri.clone()));
        Some(uri)
    })
}

fn cancelled() -> bool {
    // SAFETY: a non-null pointer was set by a `RequestScope` still alive on this thread, whose
    // `post` borrows the token.
    CANCEL.with(|c| unsafe { c.get().as_ref() }.is_some_and(Cancel::is_cancelled))
}

/// While a cancellable request waits for the server, it wakes this often to look at its token.
const CANCEL_CHECK: Duration = Duration::from_millis(20);

/// The outermost connector: wraps every connection (plain or TLS) in [`CancellableTransport`].
#[derive(Debug)]
struct Cancellable;

impl<In: Transport> Connector<In> for Cancellable {
    type Out = CancellableTransport<In>;

    fn connect(&self, _: &ConnectionDetails, chained: Option<In>) -> Result<Option<Self::Out>, ureq::Error> {
        Ok(chained.map(CancellableTransport))
    }
}

/// Waits for input in slices of [`CANCEL_CHECK`] when the request is cancellable, and gives up
/// with a timeout once the token has fired. Without a token it is the inner transport.
#[derive(Debug)]
struct CancellableTransport<T>(T);

impl<T: Transport> Transport for CancellableTransport<T> {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.0.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.0.transmit_output(amount, timeout)
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, ureq::Error> {
        if CANCEL.with(|c| c.get().is_null()) {
            return self.0.await_input(timeout);
        }
        let timeout = bound(timeout);
        let now = std::time::Instant::now();
        let end = now.checked_add(*timeout.after).unwrap_or(now + Duration::from_secs(86_400));
        loop {
            if cancelled() {
                return Err(ureq::Error::Timeout(timeout.reason));
            }
            let left = end.saturating_duration_since(std::time::Instant::now());
            let slice = NextTimeout { after: left.min(CANCEL_CHECK).into(), ..timeout };
            match self.0.await_input(slice) {
                Err(ureq::Error::Timeout(_)) if left > CANCEL_CHECK => continue,
                other => return other,
            }
        }
    }

    fn is_open(&mut self) -> bool {
        self.0.is_open()
    }

    fn is_tls(&self) -> bool {
        self.0.is_tls()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A lookup that hangs (a DNS server that does not answer) is given up after the timeout,
    /// and hanging lookups cannot pile up threads beyond the bound.
    #[test]
    fn lookups_are_bounded_in_time_and_number() {
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release_rx = std::sync::Arc::new(std::sync::Mutex::new(release_rx));
        let hang = |rx: std::sync::Arc<std::sync::Mutex<std::sync::mpsc::Receiver<()>>>| {
            move |_: &str| {
                let _ = rx.lock().unwrap().recv_timeout(Duration::from_secs(10));
                Ok(Vec::new())
            }
        };
        let start = Instant::now();
        let first = lookup("slow.example:80".into(), Duration::from_millis(200), hang(release_rx.clone()));
        assert!(matches!(first, Err(Lookup::TimedOut)), "{first:?}");
        assert!(start.elapsed() < Duration::from_millis(1000), "{:?}", start.elapsed());
        for _ in 1..MAX_LOOKUPS {
            let _ = lookup("slow.example:80".into(), Duration::from_millis(1), hang(release_rx.clone()));
        }
        let busy = lookup("slow.example:80".into(), Duration::from_secs(5), |_| Ok(Vec::new()));
        assert!(matches!(&busy, Err(Lookup::Failed(e)) if e.to_string().contains("already in progress")), "{busy:?}");
        for _ in 0..MAX_LOOKUPS {
            release_tx.send(()).unwrap();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while LOOKUPS.load(Ordering::SeqCst) > 0 {
            assert!(Instant::now() < deadline, "lookups did not finish");
            std::thread::sleep(Duration::from_millis(10));
        }
        let ok =
            lookup("fast.example:80".into(), Duration::from_secs(1), |_| Ok(vec!["127.0.0.1:80".parse().unwrap()]));
        assert_eq!(ok.unwrap().len(), 1);
    }
}
