//! HTTP hooks against a real server on 127.0.0.1 (CONTRACT §3.5).

use crate::common::{engine, fire, stable, Server};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::Instant;

fn one_hook(server: &Server, path: &str, event: &str) -> oh_hooks::Engine {
    engine(
        json!({ "hooks": { event: [ { "http": server.url(path), "timeout": 500 } ] } }),
        json!({ "maxOutputBytes": 1024 }),
    )
}

fn outcome(server: &Server, path: &str) -> Value {
    stable(fire(&one_hook(server, path, "preToolUse"), json!({ "event": "preToolUse", "toolName": "Bash" })))
}

#[test]
fn allow_and_deny() {
    let s = Server::start();
    assert_eq!(
        outcome(&s, "/allow"),
        json!({ "allowed": true, "hooks": [ { "index": 0, "type": "http", "status": 200, "timedOut": false, "result": "allow" } ] })
    );
    let deny = outcome(&s, "/deny");
    assert_eq!(deny["allowed"], false);
    assert_eq!(deny["reason"], "server says no");
    assert!(deny.get("permissionDecision").is_none());
    let specific = outcome(&s, "/specific-deny");
    assert_eq!(specific["allowed"], false);
    assert_eq!(specific["permissionDecision"], "deny");
    assert_eq!(specific["reason"], "specific no");
    let allow = outcome(&s, "/specific-allow");
    assert_eq!(allow["permissionDecision"], "allow");
}

#[test]
fn additional_context_and_request_shape() {
    let s = Server::start();
    let out = outcome(&s, "/context");
    assert_eq!(out["allowed"], true);
    assert_eq!(out["additionalContext"], "from http");
    let e = one_hook(&s, "/echo", "userPromptSubmit");
    let out = fire(&e, json!({ "prompt": "hi", "event": "userPromptSubmit", "n": 1.5 }));
    let seen: Value = serde_json::from_str(out["additionalContext"].as_str().unwrap()).unwrap();
    assert_eq!(seen["contentType"], "application/json");
    // event first, then the fields in the order received
    assert_eq!(seen["envelope"].to_string(), r#"{"event":"userPromptSubmit","prompt":"hi","n":1.5}"#);
}

#[test]
fn failures_fail_closed() {
    let s = Server::start();
    let reason = |path: &str| outcome(&s, path)["reason"].as_str().unwrap_or("").to_string();
    assert_eq!(reason("/500"), "hook HTTP 500");
    assert_eq!(reason("/404"), "hook HTTP 404");
    assert_eq!(reason("/302"), "hook HTTP 302", "redirects are not followed");
    assert_eq!(reason("/malformed"), "hook HTTP malformed response");
    assert_eq!(reason("/big"), "hook HTTP response too large");
    assert_eq!(reason("/legacy"), "hook denied");
    for path in ["/500", "/302", "/malformed", "/big", "/legacy"] {
        assert_eq!(outcome(&s, path)["allowed"], false, "{path}");
    }
    let empty = outcome(&s, "/empty");
    assert_eq!(empty["allowed"], true);
    assert_eq!(empty["hooks"][0]["result"], "none");
}

#[test]
fn timeout_and_refused() {
    let s = Server::start();
    let start = Instant::now();
    let out = outcome(&s, "/sleep");
    let took = start.elapsed();
    assert_eq!(out["allowed"], false);
    assert_eq!(out["reason"], "hook HTTP error");
    assert_eq!(out["hooks"][0]["timedOut"], true);
    assert!(took.as_millis() < 1400, "the 500 ms timeout held: {took:?}");

    // A port nobody listens on: bind, learn the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let e =
        engine(json!({ "hooks": { "preToolUse": [ { "http": format!("http://127.0.0.1:{port}/x") } ] } }), json!({}));
    let out = stable(fire(&e, json!({ "event": "preToolUse" })));
    assert_eq!(out["reason"], "hook HTTP error");
    assert_eq!(out["hooks"][0]["timedOut"], false);
    assert!(!out["hooks"][0]["error"].as_str().unwrap().is_empty());
}

#[test]
fn one_connection_reused_across_fires() {
    let s = Server::start();
    let e = one_hook(&s, "/allow", "preToolUse");
    for _ in 0..50 {
        assert_eq!(fire(&e, json!({ "event": "preToolUse" }))["allowed"], true);
    }
    assert_eq!(s.requests.load(Ordering::SeqCst), 50);
    assert_eq!(s.connections.load(Ordering::SeqCst), 1, "keep-alive: one connection for 50 fires");
}

#[test]
fn eight_threads_at_once() {
    let s = Server::start();
    let e = engine(
        json!({ "hooks": { "preToolUse": [ { "http": s.url("/deny"), "match": "Bash" }, { "http": s.url("/context") } ] } }),
        json!({}),
    );
    std::thread::scope(|scope| {
        for t in 0..8 {
            let e = &e;
            scope.spawn(move || {
                for i in 0..25 {
                    let tool = if (t + i) % 2 == 0 { "Bash" } else { "Read" };
                    let out = fire(e, json!({ "event": "preToolUse", "toolName": tool }));
                    if tool == "Bash" {
                        assert_eq!(out["allowed"], false);
                        assert_eq!(out["reason"], "server says no");
                    } else {
                        assert_eq!(out["allowed"], true);
                        assert_eq!(out["additionalContext"], "from http");
                    }
                }
            });
        }
    });
    assert_eq!(s.requests.load(Ordering::SeqCst), 200);
    assert!(
        s.connections.load(Ordering::SeqCst) <= 16,
        "connections are pooled: {}",
        s.connections.load(Ordering::SeqCst)
    );
}

#[test]
fn http_hooks_run_on_non_blocking_events_too() {
    let s = Server::start();
    let e = engine(
        json!({ "hooks": { "postToolUse": [ { "http": s.url("/deny") } ] } }),
        json!({ "waitNonBlocking": true }),
    );
    let out = stable(fire(&e, json!({ "event": "postToolUse" })));
    assert_eq!(out["allowed"], true, "non-blocking: decisions ignored");
    assert_eq!(out["hooks"][0]["result"], "deny");
    assert_eq!(s.requests.load(Ordering::SeqCst), 1);
}

/// https goes through rustls with the webpki roots: a server whose certificate no public
/// authority signed is refused during the handshake, and the hook fails closed. (A positive
/// https test would need a way to trust a test root, which the options do not offer.)
#[test]
fn https_with_an_untrusted_certificate_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl is needed for the https test (Debian package openssl)");
    assert!(made.status.success(), "openssl req: {}", String::from_utf8_lossy(&made.stderr));
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = std::process::Command::new("openssl")
        .args(["s_server", "-quiet", "-www", "-accept", &port.to_string(), "-cert"])
        .arg(&cert)
        .arg("-key")
        .arg(&key)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until it listens.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "openssl s_server did not start");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let e =
        engine(json!({ "hooks": { "preToolUse": [ { "http": format!("https://127.0.0.1:{port}/") } ] } }), json!({}));
    let out = stable(fire(&e, json!({ "event": "preToolUse" })));
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "hook HTTP error", "{out}");
    let error = out["hooks"][0]["error"].as_str().unwrap().to_lowercase();
    assert!(error.contains("certificate") || error.contains("unknownissuer") || error.contains("tls"), "{error}");
}

/// Host names are looked up on the engine's bounded lookup path (within the hook's timeout).
#[test]
fn host_names_are_resolved() {
    let s = Server::start();
    let url = format!("http://localhost:{}/deny", s.port);
    let e = engine(json!({ "hooks": { "preToolUse": [ { "http": url, "timeout": 2000 } ] } }), json!({}));
    let out = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash" }));
    assert_eq!(out["reason"], "server says no", "{out}");
    let url = "http://no-such-host.invalid/x";
    let e = engine(json!({ "hooks": { "preToolUse": [ { "http": url, "timeout": 2000 } ] } }), json!({}));
    let out = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash" }));
    assert_eq!(out["reason"], "hook HTTP error", "{out}");
}
