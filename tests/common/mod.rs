//! Helpers shared by the integration tests: engines from inline configs, outcomes as JSON
//! values, a real HTTP/1.1 server on 127.0.0.1 for HTTP hooks, and (in `process`) /proc readers
//! for the hardening tests.
#![allow(dead_code)]

pub mod dialect;
pub mod process;

use oh_hooks::Engine;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// An engine over an inline config, trusted, with extra options merged in.
pub fn engine(config: Value, extra: Value) -> Engine {
    let mut options = json!({ "trusted": true, "config": config });
    if let Value::Object(extra) = extra {
        options.as_object_mut().unwrap().extend(extra);
    }
    Engine::new(Some(&options.to_string())).unwrap_or_else(|e| panic!("engine: {e}"))
}

/// One preToolUse hook entry, as an engine.
pub fn one_hook(entry: Value, extra: Value) -> Engine {
    engine(json!({ "hooks": { "preToolUse": [entry] } }), extra)
}

pub fn fire(engine: &Engine, envelope: Value) -> Value {
    fire_raw(engine, &envelope.to_string())
}

pub fn fire_raw(engine: &Engine, text: &str) -> Value {
    serde_json::from_str(&engine.fire(text).to_json()).unwrap()
}

/// The only trace of an outcome that must have exactly one.
pub fn trace(outcome: &Value) -> &Value {
    let hooks = outcome["hooks"].as_array().unwrap_or_else(|| panic!("no hooks in {outcome}"));
    assert_eq!(hooks.len(), 1, "expected one trace: {outcome}");
    &hooks[0]
}

/// The outcome with the run-to-run varying `durationMs` removed.
pub fn stable(mut outcome: Value) -> Value {
    if let Some(hooks) = outcome.get_mut("hooks").and_then(Value::as_array_mut) {
        for h in hooks {
            h.as_object_mut().unwrap().remove("durationMs");
        }
    }
    outcome
}

/// A small HTTP/1.1 server with keep-alive. Each request's path picks a canned answer.
pub struct Server {
    pub port: u16,
    pub connections: Arc<AtomicUsize>,
    pub requests: Arc<AtomicUsize>,
}

impl Server {
    pub fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(AtomicUsize::new(0));
        let (c, r) = (connections.clone(), requests.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                c.fetch_add(1, Ordering::SeqCst);
                let r = r.clone();
                std::thread::spawn(move || serve(stream, r));
            }
        });
        Server { port, connections, requests }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{}", self.port, path)
    }
}

fn serve(stream: TcpStream, requests: Arc<AtomicUsize>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0usize;
        let mut content_type = String::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "content-type" => content_type = value.trim().to_string(),
                _ => {}
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        requests.fetch_add(1, Ordering::SeqCst);
        let path = request_line.split_whitespace().nth(1).unwrap_or("/").to_string();
        let envelope: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let (status, extra_headers, answer): (u16, &str, Vec<u8>) = match path.as_str() {
            "/allow" => (200, "", br#"{"decision":"allow"}"#.to_vec()),
            "/deny" => (200, "", br#"{"decision":"deny","reason":"server says no"}"#.to_vec()),
            "/specific-deny" => {
                (200, "", br#"{"hookSpecificOutput":{"decision":"deny","reason":"specific no"}}"#.to_vec())
            }
            "/specific-allow" => (200, "", br#"{"hookSpecificOutput":{"decision":"allow"}}"#.to_vec()),
            "/context" => (200, "", br#"{"hookSpecificOutput":{"additionalContext":"from http"}}"#.to_vec()),
            "/echo" => {
                // Answers with what it received, so tests can check the body and headers.
                let text = json!({ "hookSpecificOutput": { "additionalContext":
                    json!({"contentType": content_type, "envelope": envelope}).to_string() } });
                (200, "", text.to_string().into_bytes())
            }
            "/500" => (500, "", b"oops".to_vec()),
            "/302" => (302, "Location: /allow\r\n", Vec::new()),
            "/sleep" => {
                std::thread::sleep(Duration::from_millis(1500));
                (200, "", br#"{"decision":"allow"}"#.to_vec())
            }
            "/empty" => (200, "", Vec::new()),
            "/malformed" => (200, "", b"{not json".to_vec()),
            "/big" => (200, "", format!("{{\"reason\":\"{}\"}}", "x".repeat(4096)).into_bytes()),
            "/legacy" => (200, "", br#"{"allowed":false}"#.to_vec()),
            _ => (404, "", Vec::new()),
        };
        let head = format!(
            "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra_headers}\r\n",
            answer.len()
        );
        if writer.write_all(head.as_bytes()).and_then(|_| writer.write_all(&answer)).is_err() {
            return;
        }
    }
}
