//! HTTP hooks (CONTRACT §3.5): POST the envelope, read at most `maxOutputBytes` back.
//!
//! One ureq agent per engine, created on first use and shared by every thread, so connections
//! to a hook endpoint are kept alive and reused across fires.

use std::net::{IpAddr, SocketAddr};
use std::sync::OnceLock;
use std::time::Duration;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

/// ureq's resolver starts a thread for every request that has a timeout, so that a slow DNS
/// lookup can be abandoned. Policy endpoints are usually IP literals (`http://127.0.0.1:…`):
/// those need no lookup at all and are answered here, on the calling thread. Host names go to
/// the default resolver.
#[derive(Debug, Default)]
struct LiteralResolver(DefaultResolver);

impl Resolver for LiteralResolver {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let literal = uri.authority().and_then(|a| {
            let host = a.host().trim_start_matches('[').trim_end_matches(']');
            let port = a.port_u16().or_else(|| match uri.scheme_str() {
                Some("https") => Some(443),
                Some("http") => Some(80),
                _ => None,
            })?;
            Some(SocketAddr::new(host.parse::<IpAddr>().ok()?, port))
        });
        match literal {
            Some(addr) => {
                let mut addrs = self.empty();
                addrs.push(addr);
                Ok(addrs)
            }
            None => self.0.resolve(uri, config, timeout),
        }
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
            ureq::Agent::with_parts(config, DefaultConnector::default(), LiteralResolver::default())
        })
    }

    pub fn post(&self, url: &str, body: &str, timeout: Duration, max_bytes: usize) -> Reply {
        let failed =
            |e: ureq::Error| Reply::Failed { timed_out: matches!(e, ureq::Error::Timeout(_)), message: e.to_string() };
        let response = self
            .agent()
            .post(url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .header("Content-Type", "application/json")
            .send(body);
        let mut response = match response {
            Ok(r) => r,
            Err(e) => return failed(e),
        };
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Reply::Status(status);
        }
        match response.body_mut().with_config().limit(max_bytes as u64).read_to_vec() {
            Ok(bytes) => Reply::Body(status, bytes),
            Err(ureq::Error::BodyExceedsLimit(_)) => Reply::TooLarge(status),
            Err(e) => failed(e),
        }
    }
}
