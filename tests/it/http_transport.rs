//! HTTP hooks over the engine's own TCP layer (src/run/http_tcp.rs) against a scripted server:
//! chunked bodies, a server that trickles its answer a byte at a time, a reset in the middle of
//! a response, a kept-alive connection the server closed between requests, and bytes the server
//! sent unasked after a response (the connection must not be reused). ureq does the HTTP; these
//! check that the transport under it reports every one of these as ureq's own would.

use crate::common::*;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
enum Mode {
    Chunked,
    Trickle,
    Reset,
    CloseAfterEach,
    GarbageAfter,
    /// Reads the request and never answers (to https: the TLS handshake never completes).
    Silent,
}

/// A server that answers every request per `mode`; counts connections.
fn server(mode: Mode) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let count = connections.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            count.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || serve(stream, mode));
        }
    });
    (port, connections)
}

/// Reads one request (head and Content-Length body); false at EOF.
fn read_request(stream: &mut TcpStream) -> bool {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => buf.push(byte[0]),
            _ => return false,
        }
    }
    let head = String::from_utf8_lossy(&buf).to_ascii_lowercase();
    let length: usize =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).is_ok()
}

const DENY: &str = r#"{"decision":"deny","reason":"scripted no"}"#;

fn serve(mut stream: TcpStream, mode: Mode) {
    stream.set_nodelay(true).unwrap();
    if let Mode::Silent = mode {
        let mut sink = [0u8; 4096];
        while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
        return;
    }
    while read_request(&mut stream) {
        let plain = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{DENY}",
            DENY.len()
        );
        let ok = match mode {
            Mode::Chunked => {
                let mut text = String::from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
                stream.write_all(text.as_bytes()).unwrap();
                text.clear();
                for piece in [&DENY[..10], &DENY[10..25], &DENY[25..]] {
                    std::thread::sleep(Duration::from_millis(20));
                    let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
                    stream.write_all(chunk.as_bytes()).unwrap();
                }
                stream.write_all(b"0\r\n\r\n").is_ok()
            }
            Mode::Trickle => plain.bytes().all(|b| {
                std::thread::sleep(Duration::from_millis(3));
                stream.write_all(&[b]).is_ok()
            }),
            Mode::Reset => {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"decision\":");
                std::thread::sleep(Duration::from_millis(20));
                // SO_LINGER 0: close sends RST.
                let linger = libc::linger { l_onoff: 1, l_linger: 0 };
                // SAFETY: setsockopt on our own socket with a valid linger struct.
                unsafe {
                    libc::setsockopt(
                        std::os::fd::AsRawFd::as_raw_fd(&stream),
                        libc::SOL_SOCKET,
                        libc::SO_LINGER,
                        (&linger as *const libc::linger).cast(),
                        std::mem::size_of::<libc::linger>() as u32,
                    );
                }
                return;
            }
            Mode::CloseAfterEach => {
                let _ = stream.write_all(plain.as_bytes());
                return; // closed without `Connection: close`: the client finds out on reuse
            }
            Mode::GarbageAfter => stream.write_all(plain.as_bytes()).is_ok() && stream.write_all(b"GARBAGE").is_ok(),
            Mode::Silent => unreachable!("read_request does not return for a ClientHello"),
        };
        if !ok {
            return;
        }
    }
}

fn hook(port: u16, timeout: u64) -> oh_hooks::Engine {
    one_hook(json!({ "http": format!("http://127.0.0.1:{port}/h"), "timeout": timeout }), json!({}))
}

fn pre() -> Value {
    json!({ "event": "preToolUse", "toolName": "Bash" })
}

fn denied_by_server(o: &Value) {
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(o["reason"], "scripted no", "{o}");
    assert_eq!(trace(o)["status"], 200, "{o}");
}

fn http_error(o: &Value) {
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(o["reason"], "hook HTTP error", "{o}");
}

#[test]
fn chunked_bodies_are_read_and_the_connection_reused() {
    let (port, connections) = server(Mode::Chunked);
    let e = hook(port, 5000);
    for _ in 0..3 {
        denied_by_server(&fire(&e, pre()));
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1, "a chunked body read to its end leaves the connection reusable");
}

#[test]
fn a_trickling_server_is_waited_for_within_the_timeout_and_cut_off_after_it() {
    let (port, _) = server(Mode::Trickle);
    // ~90 bytes at 3 ms each: about 0.3 s.
    denied_by_server(&fire(&hook(port, 5000), pre()));
    let start = Instant::now();
    let o = fire(&hook(port, 100), pre());
    http_error(&o);
    assert_eq!(trace(&o)["timedOut"], true, "{o}");
    assert!(start.elapsed() < Duration::from_millis(400), "the timeout bounds a trickle: {:?}", start.elapsed());
}

/// The hook's timeout is one deadline for the whole request, TLS handshake included (the engine
/// keeps it in its transport, src/run/http.rs `bound`): a server that accepts the connection and
/// never answers the ClientHello is given up on at the deadline, as a timeout.
#[test]
fn a_tls_handshake_that_never_completes_times_out_within_the_timeout() {
    let (port, _) = server(Mode::Silent);
    let start = Instant::now();
    let o = fire(&one_hook(json!({ "http": format!("https://127.0.0.1:{port}/h"), "timeout": 200 }), json!({})), pre());
    http_error(&o);
    assert_eq!(trace(&o)["timedOut"], true, "{o}");
    assert!(trace(&o)["error"].as_str().unwrap().contains("timeout"), "{o}");
    assert!(start.elapsed() < Duration::from_millis(1500), "the timeout bounds the handshake: {:?}", start.elapsed());
}

#[test]
fn a_reset_mid_response_fails_closed() {
    let (port, _) = server(Mode::Reset);
    let e = hook(port, 5000);
    for _ in 0..2 {
        let o = fire(&e, pre());
        http_error(&o);
        assert_eq!(trace(&o)["timedOut"], false, "{o}");
    }
}

#[test]
fn a_connection_closed_by_the_server_between_requests_is_not_reused() {
    let (port, connections) = server(Mode::CloseAfterEach);
    let e = hook(port, 5000);
    for i in 1..=4 {
        // Give the server's close time to arrive, so the pooled connection is visibly dead.
        std::thread::sleep(Duration::from_millis(20));
        denied_by_server(&fire(&e, pre()));
        assert_eq!(connections.load(Ordering::SeqCst), i);
    }
}

#[test]
fn bytes_sent_unasked_after_a_response_retire_the_connection() {
    let (port, connections) = server(Mode::GarbageAfter);
    let e = hook(port, 5000);
    for i in 1..=3 {
        std::thread::sleep(Duration::from_millis(20));
        denied_by_server(&fire(&e, pre()));
        assert_eq!(connections.load(Ordering::SeqCst), i, "a connection with stray bytes was reused");
    }
}

#[test]
fn a_socks_proxy_fails_closed_instead_of_going_direct() {
    let (port, connections) = server(Mode::Chunked);
    let e = one_hook(
        json!({ "http": format!("http://127.0.0.1:{port}/h") }),
        json!({ "httpProxy": "socks5://127.0.0.1:1" }),
    );
    let o = fire(&e, pre());
    http_error(&o);
    assert!(trace(&o)["error"].as_str().unwrap().contains("SOCKS proxies are not supported"), "{o}");
    assert_eq!(connections.load(Ordering::SeqCst), 0, "the request went to the server directly");
}
