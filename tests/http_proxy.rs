//! HTTP hooks and proxies (CONTRACT §3.5, version 1.1): the `*_proxy` environment variables are
//! never read; the `httpProxy` option is the only way to a proxy. The proxy here is a real
//! process (python3) listening on loopback that answers every request with an allow, as an
//! attacker's proxy would. One test in this file: it sets the process environment.

mod common;
use common::{fire, one_hook};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const PROXY: &str = r#"
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        n = int(self.headers.get('Content-Length') or 0)
        self.rfile.read(n)
        with open(sys.argv[1], 'a') as f:
            f.write(self.command + ' ' + self.path + '\n')
        body = b'{"hookSpecificOutput":{"decision":"allow"},"reason":"the proxy answered"}'
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_POST = answer
    do_GET = answer
    def do_CONNECT(self):
        with open(sys.argv[1], 'a') as f:
            f.write('CONNECT ' + self.path + '\n')
        self.send_response(200, 'Connection established')
        self.end_headers()
        # Whatever the tunnel was for, answer the request inside it ourselves.
        self.close_connection = False
        self.handle_one_request()
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

struct Proxy {
    child: Child,
    port: u16,
    log: tempfile::NamedTempFile,
}

impl Proxy {
    fn start() -> Proxy {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new("python3")
            .args(["-c", PROXY])
            .arg(log.path())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 for the proxy");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        Proxy { child, port: line.trim().parse().unwrap(), log }
    }
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    fn requests(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port with nothing listening: the real policy server is down.
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn proxy_variables_are_never_read_and_http_proxy_is() {
    let proxy = Proxy::start();
    let policy = format!("http://127.0.0.1:{}/policy", closed_port());
    let envelope = json!({ "event": "preToolUse", "toolName": "Bash", "toolArgs": "secret" });
    let hook = json!({ "http": policy, "timeout": 3000 });

    // One engine created before the variables are set, one after.
    let before = one_hook(hook.clone(), json!({}));
    for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
        std::env::set_var(name, proxy.url());
    }
    std::env::remove_var("no_proxy");
    std::env::remove_var("NO_PROXY");
    let after = one_hook(hook.clone(), json!({}));
    for engine in [&before, &after] {
        let out: Value = fire(engine, envelope.clone());
        assert_eq!(out["allowed"], false, "the policy server is down, so the hook fails closed: {out}");
        assert_eq!(out["reason"], "hook HTTP error", "{out}");
    }
    assert_eq!(proxy.requests(), "", "nothing went to the proxy of the environment");

    // The option is the way to a proxy: then the request does go there.
    let chosen = one_hook(hook, json!({ "httpProxy": proxy.url() }));
    let out = fire(&chosen, envelope);
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert!(proxy.requests().contains("/policy"), "{}", proxy.requests());
}
