//! The engine only ever uses, writes to or closes file descriptors it opened itself (docs/reliability.md
//! "Reliability", issue 16 item 7). An engine created while the process is out of file
//! descriptors (a real RLIMIT_NOFILE) used to adopt fd 0, the host's stdin, as the wake-up fd of
//! its persistent-worker supervisor: it read the host's input from it and closed it at free.
//! One test in this file: the limit is process-wide.

mod common;
use common::process::without_fds;
use serde_json::json;
use std::os::fd::RawFd;

const HOST_INPUT: &[u8] = b"the host's own stdin: 0123456789abcdef\n";

/// What is in the pipe now (non-blocking), or `None` when fd 0 is closed.
fn read_fd0() -> Option<Vec<u8>> {
    // SAFETY: fcntl and read on fd 0 into a local buffer.
    unsafe {
        if libc::fcntl(0, libc::F_GETFD) < 0 {
            return None;
        }
        let flags = libc::fcntl(0, libc::F_GETFL);
        libc::fcntl(0, libc::F_SETFL, flags | libc::O_NONBLOCK);
        let mut buf = vec![0u8; 4096];
        let n = libc::read(0, buf.as_mut_ptr().cast(), buf.len());
        buf.truncate(n.max(0) as usize);
        Some(buf)
    }
}

#[test]
fn out_of_fds_the_hosts_fd0_is_never_used() {
    // fd 0 becomes a pipe this test owns, holding the "host's input".
    let mut p = [0 as RawFd; 2];
    // SAFETY: pipe2 into a local array; dup2 onto fd 0, which this test process owns.
    unsafe {
        assert_eq!(libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC), 0);
        assert_eq!(libc::dup2(p[0], 0), 0);
        libc::close(p[0]);
        assert_eq!(libc::write(p[1], HOST_INPUT.as_ptr().cast(), HOST_INPUT.len()), HOST_INPUT.len() as isize);
    }
    let worker = "while read -r line; do echo '{\"decision\":\"deny\",\"reason\":\"worker\"}'; done";
    let options = json!({
        "trusted": true,
        "config": { "hooks": { "preToolUse": [{ "command": worker, "persistent": true }] } },
    })
    .to_string();

    // A: created without fds, used once they are back.
    let engine = without_fds(|| oh_hooks::Engine::new(Some(&options)))
        .unwrap_or_else(|e| panic!("creation needs no fd for an engine whose workers start later: {e}"));
    let out = common::fire(&engine, json!({"event": "preToolUse", "toolName": "Bash"}));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["hooks"][0]["reason"], "worker", "the worker answered once fds were back: {out}");
    drop(engine);

    // B: created and fired without fds: the worker cannot start, and the hook fails saying why.
    let engine = without_fds(|| oh_hooks::Engine::new(Some(&options))).unwrap();
    let out = without_fds(|| common::fire(&engine, json!({"event": "preToolUse", "toolName": "Bash"})));
    assert_eq!(out["allowed"], false, "a hook that cannot run denies a blocking event: {out}");
    let error = out["hooks"][0]["error"].as_str().unwrap_or_default().to_string();
    assert!(error.contains("open files") || error.contains("descriptor"), "the reason names the shortage: {out}");
    drop(engine);

    let left = read_fd0();
    // SAFETY: closes the write end this test opened.
    unsafe { libc::close(p[1]) };
    let left = left.expect("fd 0 must still be open after the engines were freed");
    assert_eq!(
        String::from_utf8_lossy(&left),
        String::from_utf8_lossy(HOST_INPUT),
        "nothing of the host's stdin may have been read by the engine"
    );
}
