//! HTTP hooks (CONTRACT §3.5): POST the envelope, read at most `maxOutputBytes` back.
//!
//! One ureq agent per engine, created on first use and shared by every thread, so connections
//! to a hook endpoint are kept alive and reused across fires.

use std::sync::OnceLock;
use std::time::Duration;

#[derive(Default)]
pub struct HttpClient {
    agent: OnceLock<ureq::Agent>,
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
    fn agent(&self) -> &ureq::Agent {
        self.agent.get_or_init(|| {
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .max_redirects(0)
                // Hosts fire from many threads at once: keep a connection per thread alive
                // rather than ureq's default of 3 per host.
                .max_idle_connections(64)
                .max_idle_connections_per_host(16)
                .user_agent(concat!("oh-hooks/", env!("CARGO_PKG_VERSION")))
                .build()
                .into()
        })
    }

    pub fn post(&self, url: &str, body: &str, timeout: Duration, max_bytes: usize) -> Reply {
        let failed = |e: ureq::Error| Reply::Failed {
            timed_out: matches!(e, ureq::Error::Timeout(_)),
            message: e.to_string(),
        };
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
