//! Hardening, processes (CONTRACT §3.4 "Timeout", "stdout and stderr", §1 `oh_hooks_free`):
//! timeouts kill the whole process group, SIGKILL follows an ignored SIGTERM after the grace,
//! no zombies after many timeouts, background hooks are drained on drop / free, a daemon holding
//! the pipes does not hold the fire, and a 100 MB flood neither blocks nor grows memory.
//!
//! Every test holds `serial()`: they count our children and measure wall time and RSS, which the
//! other tests of this binary would disturb.

mod common;
use common::process::*;
use common::*;
use oh_hooks::ffi;
use serde_json::{json, Value};
use std::ffi::{CStr, CString};
use std::time::{Duration, Instant};

/// Timeout, plus what the contract allows for the kill ("within about timeout + 0.5 s"), plus
/// scheduling slack on a loaded 2-core machine.
const KILL_SLACK: Duration = Duration::from_millis(700);

#[test]
fn timeout_kills_the_whole_process_group() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let e = one_hook(
        json!({ "command": format!("sleep 100 & echo $! > {}; sleep 100", q(&pidfile)), "timeout": 300 }),
        json!({}),
    );
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash" }));
    let took = start.elapsed();
    eprintln!("figure: timeout 300 ms with a `sleep 100 &` grandchild: fire returned after {took:?}");
    let t = trace(&o);
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(o["reason"], "hook denied (exit code)", "{o}");
    assert_eq!(t["timedOut"], true, "{o}");
    assert_eq!(t["signal"], libc::SIGTERM, "the shell dies of the SIGTERM: {o}");
    assert!(took >= Duration::from_millis(300), "returned before the timeout: {took:?}");
    assert!(took < Duration::from_millis(300) + KILL_SLACK, "fire took {took:?}");
    let grandchild = read_pid(&pidfile);
    assert!(
        wait_until(Duration::from_millis(500), || dead(grandchild)),
        "grandchild {grandchild} (`sleep 100 &`) survived the timeout: {:?}",
        proc_stat(grandchild)
    );
    assert!(children().is_empty(), "children left: {:?}", children());
}

#[test]
fn grandchild_ignoring_sigterm_gets_sigkill_after_the_grace() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    // The shell dies of SIGTERM at once; its background child ignores SIGTERM and must be
    // killed by the SIGKILL 500 ms later, although the shell is already reaped by then.
    let e = one_hook(
        json!({ "command": format!("(trap '' TERM; exec sleep 100) & echo $! > {}; sleep 100", q(&pidfile)), "timeout": 300 }),
        json!({}),
    );
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "preToolUse" }));
    let took = start.elapsed();
    assert_eq!(trace(&o)["timedOut"], true, "{o}");
    assert!(took >= Duration::from_millis(300 + 500 - 20), "SIGKILL came before the 500 ms grace: {took:?}");
    assert!(took < Duration::from_millis(300) + KILL_SLACK + Duration::from_millis(100), "fire took {took:?}");
    let grandchild = read_pid(&pidfile);
    assert!(
        wait_until(Duration::from_millis(500), || dead(grandchild)),
        "grandchild {grandchild} ignoring SIGTERM survived the SIGKILL: {:?}",
        proc_stat(grandchild)
    );
}

#[test]
fn hook_ignoring_sigterm_is_killed_after_the_grace() {
    let _g = serial();
    for (json_io, reason) in [(false, "hook denied (exit code)"), (true, "hook failed (timeout or non-zero exit)")] {
        let e = one_hook(json!({ "command": "trap '' TERM; sleep 100", "timeout": 200, "jsonIO": json_io }), json!({}));
        let start = Instant::now();
        let o = fire(&e, json!({ "event": "preToolUse" }));
        let took = start.elapsed();
        let t = trace(&o);
        eprintln!("figure: SIGTERM-ignoring hook (jsonIO {json_io}), timeout 200 ms: fire returned after {took:?}");
        assert_eq!(o["allowed"], false, "{o}");
        assert_eq!(o["reason"], reason, "{o}");
        assert_eq!(t["timedOut"], true, "{o}");
        assert_eq!(t["signal"], libc::SIGKILL, "{o}");
        assert!(took >= Duration::from_millis(200 + 500 - 20), "SIGKILL before the grace: {took:?}");
        assert!(took < Duration::from_millis(200) + KILL_SLACK, "fire took {took:?} (limit timeout + 0.7 s)");
        assert!(children().is_empty(), "children left: {:?}", children());
    }
}

#[test]
fn no_zombies_after_a_thousand_timeouts() {
    let _g = serial();
    const THREADS: usize = 4;
    const PER_THREAD: usize = 250;
    let e = one_hook(json!({ "command": "sleep 5", "timeout": 20 }), json!({}));
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for _ in 0..PER_THREAD {
                    let o = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash" }));
                    let t = trace(&o);
                    assert_eq!(o["allowed"], false, "{o}");
                    assert_eq!(t["timedOut"], true, "{o}");
                    assert_eq!(t["signal"], libc::SIGTERM, "{o}");
                }
            });
        }
    });
    let took = start.elapsed();
    let zombies = zombie_children();
    let left = children();
    eprintln!(
        "figure: {} timed-out hooks (timeout 20 ms, {THREADS} threads) in {took:?}; zombies afterwards: {}; children left: {}",
        THREADS * PER_THREAD,
        zombies.len(),
        left.len()
    );
    assert!(zombies.is_empty(), "zombie children: {zombies:?}");
    assert!(left.is_empty(), "children still alive: {left:?}");
}

#[test]
fn dropping_the_engine_drains_background_hooks() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done");
    let e = engine(
        json!({ "hooks": { "postToolUse": [ { "command": format!("sleep 1; echo done > {}", q(&done)) } ] } }),
        json!({}),
    );
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "postToolUse", "toolName": "Bash" }));
    assert_eq!(o, json!({ "allowed": true, "hooks": [] }));
    assert!(start.elapsed() < Duration::from_millis(500), "a non-blocking fire waited: {:?}", start.elapsed());
    assert!(!done.exists(), "the background hook cannot have finished yet");
    drop(e);
    let took = start.elapsed();
    assert!(took >= Duration::from_millis(950), "drop returned before the hook finished: {took:?}");
    assert_eq!(std::fs::read_to_string(&done).unwrap(), "done\n", "drop did not wait for the hook");
    assert!(children().is_empty(), "children left: {:?}", children());
}

#[test]
fn oh_hooks_free_drains_background_hooks() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done");
    let options = json!({ "trusted": true, "config": { "hooks": { "sessionEnd": [
        { "command": format!("sleep 1; echo a >> {}", q(&done)) },
        { "command": format!("sleep 1; echo b >> {}", q(&done)) } ] } } });
    let options = CString::new(options.to_string()).unwrap();
    let mut error = std::ptr::null_mut();
    // SAFETY: valid NUL-terminated strings; every returned string is freed with the library's free.
    unsafe {
        let h = ffi::oh_hooks_new(options.as_ptr(), &mut error);
        assert!(!h.is_null() && error.is_null());
        let start = Instant::now();
        let out = ffi::oh_hooks_fire(h, c"{\"event\":\"sessionEnd\"}".as_ptr());
        let text = CStr::from_ptr(out).to_str().unwrap().to_string();
        ffi::oh_hooks_string_free(out);
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), json!({ "allowed": true, "hooks": [] }));
        assert!(start.elapsed() < Duration::from_millis(500));
        ffi::oh_hooks_free(h);
        assert!(start.elapsed() >= Duration::from_millis(950), "oh_hooks_free did not wait: {:?}", start.elapsed());
    }
    let mut lines: Vec<String> = std::fs::read_to_string(&done).unwrap().lines().map(String::from).collect();
    lines.sort();
    assert_eq!(lines, ["a", "b"], "both background hooks finished before oh_hooks_free returned");
    assert!(children().is_empty(), "children left: {:?}", children());
}

#[test]
fn daemon_holding_stdout_does_not_stall_the_fire() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    for json_io in [true, false] {
        let pidfile = dir.path().join(format!("daemon-{json_io}.pid"));
        // The background `sleep 30` keeps stdout (jsonIO) and stderr open after the shell exits.
        let e = one_hook(
            json!({ "command": format!("sleep 30 & echo $! > {}; echo '{{\"decision\":\"deny\",\"reason\":\"daemon answered\"}}'", q(&pidfile)), "jsonIO": json_io }),
            json!({}),
        );
        let start = Instant::now();
        let o = fire(&e, json!({ "event": "preToolUse" }));
        let took = start.elapsed();
        let daemon = read_pid(&pidfile);
        kill(daemon, libc::SIGKILL);
        eprintln!("figure: hook leaving a daemon on its pipes (jsonIO {json_io}): fire took {took:?}");
        let t = trace(&o);
        assert_eq!(t["exitCode"], 0, "{o}");
        assert_eq!(t["timedOut"], false, "{o}");
        if json_io {
            assert_eq!(o["allowed"], false, "{o}");
            assert_eq!(o["reason"], "daemon answered", "the answer printed before exit is read: {o}");
        } else {
            assert_eq!(o["allowed"], true, "{o}");
        }
        // The hook itself takes a few ms; then at most 100 ms of draining.
        assert!(took < Duration::from_millis(100 + 250), "fire stalled on the daemon's pipe: {took:?}");
    }
}

/// `yes | head -c` of this many bytes.
const FLOOD: u64 = 100_000_000;

#[test]
fn flood_on_stdout_and_stderr_neither_blocks_nor_grows_memory() {
    let _g = serial();
    let line = "x".repeat(99);
    let cmd = format!("(yes {line} | head -c {FLOOD} >&2) & yes {line} | head -c {FLOOD}; wait; exit 0");
    let e = one_hook(json!({ "command": cmd, "jsonIO": true, "timeout": 60000 }), json!({}));
    let before = status_kib("VmRSS");
    let hwm_reset = reset_hwm();
    let hwm_before = status_kib("VmHWM");
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "preToolUse" }));
    let took = start.elapsed();
    let hwm_after = status_kib("VmHWM");
    let after = status_kib("VmRSS");
    let growth = hwm_after.saturating_sub(if hwm_reset { before } else { hwm_before });
    eprintln!(
        "figure: 100 MB stdout + 100 MB stderr flood (jsonIO, maxOutputBytes 1 MiB) in {took:?}; \
         RSS {before} KiB -> {after} KiB, peak growth {growth} KiB (VmHWM reset: {hwm_reset})"
    );
    let t = trace(&o);
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(o["reason"], "hook output exceeded maxOutputBytes", "{o}");
    assert_eq!(t["timedOut"], false, "the flood blocked the hook: {o}");
    assert_eq!(t["exitCode"], 0, "{o}");
    assert!(t["stderr"].as_str().unwrap().len() <= 4096, "stderr trace over 4 KiB");
    assert!(t["stderr"].as_str().unwrap().starts_with(&line), "{o}");
    assert!(growth < 16 * 1024, "memory grew by {growth} KiB during a 200 MB flood (cap 1 MiB)");
}

#[test]
fn env_mode_stderr_flood_is_drained() {
    let _g = serial();
    let e = one_hook(
        json!({ "command": format!("yes 0123456789 | head -c {FLOOD} >&2; yes | head -c {FLOOD}"), "timeout": 60000 }),
        json!({}),
    );
    let before = status_kib("VmRSS");
    let hwm_reset = reset_hwm();
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "preToolUse" }));
    let took = start.elapsed();
    let growth = status_kib("VmHWM").saturating_sub(before);
    eprintln!("figure: env-mode 100 MB stderr + 100 MB stdout flood in {took:?}; peak RSS growth {growth} KiB (reset {hwm_reset})");
    let t = trace(&o);
    assert_eq!(o["allowed"], true, "{o}");
    assert_eq!(t["exitCode"], 0, "{o}");
    assert_eq!(t["timedOut"], false, "{o}");
    assert_eq!(t["stderr"].as_str().unwrap().len(), 4096, "{o}");
    assert!(growth < 16 * 1024, "memory grew by {growth} KiB");
}

/// Our open fds and what they point at (the read_dir's own fd excluded).
fn fd_targets() -> Vec<(String, String)> {
    let mut fds: Vec<(String, String)> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            Some((
                e.file_name().to_string_lossy().to_string(),
                std::fs::read_link(e.path()).ok()?.display().to_string(),
            ))
        })
        .filter(|(_, target)| !target.starts_with("/proc/"))
        .collect();
    fds.sort();
    fds
}

/// Persistent workers (§3.10) that time out, exit, write garbage and flood stderr, from four
/// threads: no zombie while the engine lives (the supervisor reaps), none and no fd after free,
/// and an idle worker's stderr flood never blocks it.
#[test]
fn persistent_workers_leave_no_zombie_and_no_fd() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.sh");
    std::fs::write(
        &worker,
        r#"#!/bin/sh
yes idle-noise | head -c 200000 >&2
while IFS= read -r line; do
  case "$line" in
    *'"toolName":"Sleep"'*) sleep 5 ;;
    *'"toolName":"Exit"'*) exit 1 ;;
    *'"toolName":"Garbage"'*) echo garbage ;;
    *) yes | head -c 100000 >&2; echo '{}' ;;
  esac
done
"#,
    )
    .unwrap();
    std::fs::set_permissions(&worker, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // Process-wide once: the shared /dev/null that spawns use.
    fire(&one_hook(json!({ "command": "true" }), json!({})), json!({ "event": "preToolUse" }));
    let fds_before = fd_targets();
    let e = one_hook(
        json!({ "command": worker, "persistent": true, "workers": 3, "timeout": 100 }),
        json!({ "cwd": dir.path() }),
    );
    let start = Instant::now();
    let tools = ["Read", "Sleep", "Read", "Exit", "Read", "Garbage", "Read", "Read"];
    std::thread::scope(|s| {
        for t in 0..4 {
            let e = &e;
            s.spawn(move || {
                for i in 0..40 {
                    let tool = tools[(i + t) % tools.len()];
                    let o = fire(e, json!({ "event": "preToolUse", "toolName": tool }));
                    let trace = trace(&o);
                    assert_eq!(trace["persistent"], true, "{o}");
                    if tool == "Read" && trace["result"] == "none" {
                        assert!(trace["stderr"].as_str().unwrap().len() <= 4096, "{o}");
                    } else if tool != "Read" {
                        assert_eq!(o["allowed"], false, "{tool}: {o}");
                    }
                }
            });
        }
    });
    let took = start.elapsed();
    // Workers stopped with SIGTERM get 500 ms before the SIGKILL; the supervisor reaps them.
    let settled = wait_until(Duration::from_secs(2), || zombie_children().is_empty());
    eprintln!(
        "figure: 160 persistent fires (timeouts, exits, garbage, stderr floods) in {took:?}; zombies settled: {settled}; live children: {}",
        children().len()
    );
    assert!(settled, "zombie children while the engine lives: {:?}", zombie_children());
    assert!(children().len() <= 3, "more workers than `workers: 3`: {:?}", children());
    drop(e);
    assert!(children().is_empty(), "children after free: {:?}", children());
    assert_eq!(fd_targets(), fds_before, "fds left open after free");
}
