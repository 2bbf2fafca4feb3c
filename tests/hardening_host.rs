//! Hardening, host safety (CONTRACT §1: "never changes the host's signal dispositions or
//! environment, and never lets SIGPIPE reach a host"; §3.4): no file descriptor of the library
//! leaks into a hook, the calling thread's signal mask and the process's dispositions and
//! environment are unchanged by fires, and 16 threads firing on one engine get their own answers.
//!
//! Every test holds `serial()`: they inspect process-wide state (fds, dispositions, environment).

mod common;
use common::process::*;
use common::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Our fds that are not close-on-exec, with their targets: these were inherited from whoever
/// started the test binary (cargo, a CI runner) and reach any child; they are not the library's.
fn inherited_fds() -> BTreeMap<i32, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(fd) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        // SAFETY: F_GETFD only reads the flags of an fd number.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
        if fd > 2 && flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
            let target = std::fs::read_link(entry.path()).map(|t| t.display().to_string()).unwrap_or_default();
            out.insert(fd, target);
        }
    }
    out
}

fn own_fd_targets() -> Vec<String> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_link(e.path()).ok())
        .map(|t| t.display().to_string())
        .collect()
}

/// `ls -l /proc/self/fd` or `find -fls` output to (fd, target).
fn parse_ls(text: &str) -> Vec<(i32, String)> {
    text.lines()
        .filter_map(|l| {
            let (left, target) = l.split_once(" -> ")?;
            let fd = left.split_whitespace().last()?.rsplit('/').next()?.parse().ok()?;
            Some((fd, target.to_string()))
        })
        .collect()
}

/// A keep-alive HTTP/1.1 server answering every POST with `{}`.
fn http_server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let c = connections.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            c.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut writer = stream;
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let l = line.trim_end();
                        if l.is_empty() {
                            break;
                        }
                        if let Some((k, v)) = l.split_once(':') {
                            if k.eq_ignore_ascii_case("content-length") {
                                length = v.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let answer = "{}";
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        answer.len()
                    );
                    if writer.write_all(head.as_bytes()).and_then(|_| writer.write_all(answer.as_bytes())).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, connections)
}

const LISTINGS: usize = 15;

#[test]
fn no_library_fd_leaks_into_hooks() {
    let _g = serial();
    let inherited = inherited_fds();
    assert!(
        !inherited.values().any(|t| t.starts_with("socket:")),
        "a socket is already inheritable before any engine exists: {inherited:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let (port, connections) = http_server();
    let list = format!("ls -l /proc/self/fd > {}/\"$OH_TOOL_NAME\"", dir.path().display());
    // Commands without shell syntax are executed directly (no /bin/sh): `find -fls` lists the
    // fds without a redirection. find itself opens its output file, its cwd and /proc/self/fd.
    let cwd = tempfile::tempdir().unwrap();
    let mut hooks = vec![
        json!({ "command": list.clone(), "match": "list-env" }),
        json!({ "command": format!("cat > /dev/null; {list}"), "match": "list-json", "jsonIO": true }),
        json!({ "command": "cat > /dev/null; sleep 0.05", "match": "load", "jsonIO": true }),
        json!({ "command": "sleep 0.05", "match": "load" }),
        json!({ "http": format!("http://127.0.0.1:{port}/hook"), "match": "http" }),
        // Persistent workers (§3.10): one kept busy by the load, one started during the load
        // that lists what it inherited (its `ls` inherits the worker's fds) at every request.
        json!({ "command": "cat", "match": "load", "persistent": true, "workers": 2 }),
        json!({ "command": format!("n=0; while read l; do n=$((n+1)); ls -l /proc/self/fd > {}/list-persistent-$n; echo '{{}}'; done", dir.path().display()),
                "match": "list-persistent", "persistent": true, "workers": 1 }),
    ];
    for i in 0..LISTINGS {
        let command = format!("find /proc/self/fd/ -mindepth 1 -fls {}/list-direct-{i}", dir.path().display());
        assert!(oh_hooks::run::command::plain_words(&command).is_some(), "not a direct command: {command}");
        hooks.push(json!({ "command": command, "match": format!("/^list-direct-{i}$/") }));
    }
    let e = engine(
        json!({ "hooks": { "preToolUse": hooks, "postToolUse": [ { "command": "sleep 0.2" } ] } }),
        json!({ "cwd": cwd.path() }),
    );
    // One HTTP fire first: its keep-alive connection stays open in the engine's agent.
    assert_eq!(fire(&e, json!({ "event": "preToolUse", "toolName": "http" }))["allowed"], true);
    let stop = AtomicBool::new(false);
    let sockets_seen = AtomicUsize::new(0);
    std::thread::scope(|s| {
        // Load: other fires with hooks whose pipes and pidfds are open, HTTP fires reusing the
        // keep-alive socket, background hooks of a non-blocking event.
        for kind in ["load", "http", "post"] {
            let (e, stop) = (&e, &stop);
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let o = if kind == "post" {
                        fire(e, json!({ "event": "postToolUse", "toolName": "x" }))
                    } else {
                        fire(e, json!({ "event": "preToolUse", "toolName": kind }))
                    };
                    assert_eq!(o["allowed"], true, "{o}");
                }
            });
        }
        std::thread::sleep(Duration::from_millis(100));
        for i in 0..LISTINGS {
            for mode in ["list-env", "list-json", "list-direct", "list-persistent"] {
                let o = fire(&e, json!({ "event": "preToolUse", "toolName": format!("{mode}-{i}") }));
                assert_eq!(o["allowed"], true, "{o}");
            }
            let sockets = own_fd_targets().iter().filter(|t| t.starts_with("socket:")).count();
            sockets_seen.fetch_max(sockets, Ordering::Relaxed);
        }
        stop.store(true, Ordering::Relaxed);
    });
    drop(e);
    // listener + the server's end + the client's keep-alive end
    assert!(sockets_seen.load(Ordering::Relaxed) >= 3, "the HTTP keep-alive socket was not open during the listings");
    assert!(connections.load(Ordering::SeqCst) >= 1);

    let mut listings = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let fds = parse_ls(&text);
        assert!(fds.iter().any(|(fd, _)| *fd == 0), "unparsable listing: {text}");
        for (fd, target) in &fds {
            let lister_own = (target.starts_with("/proc/") && target.ends_with("/fd"))
                || *target == entry.path().display().to_string()
                || Path::new(target) == cwd.path();
            let ok = *fd <= 2 || lister_own || inherited.get(fd) == Some(target);
            assert!(ok, "fd {fd} -> {target} leaked into the hook ({}):\n{text}", entry.file_name().to_string_lossy());
        }
        listings += 1;
    }
    assert_eq!(listings, 4 * LISTINGS);
    if !inherited.is_empty() {
        eprintln!(
            "note: fds inherited by the test process itself (not the library's), allowed in hooks: {inherited:?}"
        );
    }
}

fn thread_mask() -> libc::sigset_t {
    // SAFETY: querying the calling thread's mask into a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_SETMASK, std::ptr::null(), &mut set);
        set
    }
}

fn members(set: &libc::sigset_t) -> Vec<i32> {
    // SAFETY: sigismember on an initialised set.
    (1..=64).filter(|s| unsafe { libc::sigismember(set, *s) } == 1).collect()
}

fn pending() -> Vec<i32> {
    // SAFETY: sigpending into a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigpending(&mut set);
        members(&set)
    }
}

fn block(signals: &[i32]) -> libc::sigset_t {
    // SAFETY: building a local set and blocking it on this thread; the old mask is returned.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in signals {
            libc::sigaddset(&mut set, *s);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        old
    }
}

fn restore(old: &libc::sigset_t) {
    // SAFETY: restoring a mask obtained from pthread_sigmask.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
    }
}

/// Fires that exercise every path touching signals: env mode, jsonIO reading a large envelope,
/// jsonIO exiting without reading it (EPIPE), and a timeout (SIGTERM/SIGKILL to the group).
fn signal_workout() -> Value {
    let e = engine(
        json!({ "hooks": { "preToolUse": [
            { "command": "exit 0", "match": "/^env$/" },
            { "command": "cat > /dev/null", "match": "/^read$/", "jsonIO": true },
            { "command": "exit 0", "match": "/^noread$/", "jsonIO": true },
            { "command": "trap '' TERM; sleep 10", "match": "/^timeout$/", "timeout": 50 }
        ] } }),
        json!({}),
    );
    let big = "x".repeat(4 << 20);
    let mut outcomes = Vec::new();
    for tool in ["env", "read", "noread", "noread", "timeout"] {
        let o = fire(&e, json!({ "event": "preToolUse", "toolName": tool, "toolInput": { "blob": big } }));
        let t = trace(&o);
        match tool {
            "timeout" => assert_eq!(t["timedOut"], true, "{o}"),
            _ => assert_eq!(t["exitCode"], 0, "{o}"),
        }
        outcomes.push(o);
    }
    Value::Array(outcomes)
}

#[test]
fn signal_mask_unchanged_and_no_sigpipe_left_pending() {
    let _g = serial();
    // A host mask with a few signals blocked, SIGPIPE not among them.
    let original = block(&[libc::SIGUSR1, libc::SIGUSR2, libc::SIGALRM]);
    let before = members(&thread_mask());
    assert!(before.contains(&libc::SIGUSR1) && !before.contains(&libc::SIGPIPE));
    signal_workout();
    let after = members(&thread_mask());
    let left = pending();
    restore(&original);
    assert_eq!(before, after, "the calling thread's signal mask changed");
    assert!(!left.contains(&libc::SIGPIPE), "a SIGPIPE was left pending: {left:?}");
}

#[test]
fn host_blocked_sigpipe_stays_blocked_and_its_own_pending_sigpipe_is_kept() {
    let _g = serial();
    let original = block(&[libc::SIGPIPE]);
    let before = members(&thread_mask());
    signal_workout();
    assert_eq!(members(&thread_mask()), before, "mask changed when the host had SIGPIPE blocked");
    assert!(!pending().contains(&libc::SIGPIPE), "the library's own SIGPIPE was left pending for the host");

    // A SIGPIPE the host already has pending is the host's: the library must not swallow it.
    // SAFETY: sending SIGPIPE to this thread, where it is blocked.
    unsafe {
        libc::pthread_kill(libc::pthread_self(), libc::SIGPIPE);
    }
    assert!(pending().contains(&libc::SIGPIPE));
    signal_workout();
    let still = pending().contains(&libc::SIGPIPE);
    // Consume it before restoring the mask (the test binary ignores SIGPIPE anyway).
    // SAFETY: sigtimedwait with a zero timeout on a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        while libc::sigtimedwait(&set, std::ptr::null_mut(), &zero) == libc::SIGPIPE {}
    }
    restore(&original);
    assert!(still, "the host's pending SIGPIPE was consumed by a fire");
}

#[test]
fn hooks_start_with_an_empty_signal_mask() {
    let _g = serial();
    // A host thread blocking SIGTERM must not hand a SIGTERM-proof hook to the timeout logic.
    let original = block(&[libc::SIGTERM, libc::SIGUSR1, libc::SIGPIPE]);
    let e = one_hook(
        json!({ "command": "printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}' \"$(grep -E '^Sig(Blk|Ign)' /proc/self/status | tr '\\n\\t' '  ')\"", "jsonIO": true }),
        json!({}),
    );
    let o = fire(&e, json!({ "event": "preToolUse" }));
    restore(&original);
    let text = o["additionalContext"].as_str().unwrap_or_else(|| panic!("{o}")).to_string();
    let field = |name: &str| -> u64 {
        let hex = text.split(name).nth(1).unwrap().split_whitespace().next().unwrap();
        u64::from_str_radix(hex, 16).unwrap()
    };
    let (blocked, ignored) = (field("SigBlk:"), field("SigIgn:"));
    eprintln!("figure: hook's SigBlk {blocked:016x}, SigIgn {ignored:016x} (host thread blocked TERM, USR1, PIPE)");
    assert_eq!(blocked, 0, "the hook inherited the host thread's blocked signals: {text}");
    let bit = |s: i32| 1u64 << (s - 1);
    assert_eq!(ignored & bit(libc::SIGPIPE), 0, "the hook starts with SIGPIPE ignored: {text}");
    assert_eq!(ignored & bit(libc::SIGTERM), 0, "the hook starts with SIGTERM ignored: {text}");
}

#[test]
fn timeout_sigterm_reaches_a_hook_fired_from_a_thread_that_blocks_sigterm() {
    let _g = serial();
    // Hosts that handle signals on one thread (sigwait, signalfd) block SIGTERM on all others.
    // The timeout's SIGTERM must still end the hook at the timeout (CONTRACT §3.4), not only
    // the SIGKILL 500 ms later.
    let original = block(&[libc::SIGTERM]);
    let e = one_hook(json!({ "command": "sleep 100", "timeout": 200 }), json!({}));
    let start = std::time::Instant::now();
    let o = fire(&e, json!({ "event": "preToolUse" }));
    let took = start.elapsed();
    restore(&original);
    let t = trace(&o);
    eprintln!("figure: hook fired from a thread blocking SIGTERM, timeout 200 ms: {took:?}, trace {t}");
    assert_eq!(t["timedOut"], true, "{o}");
    assert_eq!(
        t["signal"],
        libc::SIGTERM,
        "the hook ignored the timeout's SIGTERM (it inherited a blocked SIGTERM): {o}"
    );
    assert!(
        took < Duration::from_millis(200 + 300),
        "fire took {took:?}: only the SIGKILL after the grace ended the hook"
    );
}

/// Restores a signal disposition on drop (also when the test fails).
struct Disposition(i32, libc::sigaction);

impl Disposition {
    fn ignore(signal: i32) -> Disposition {
        // SAFETY: installing SIG_IGN and keeping the old action to restore.
        unsafe {
            let mut new: libc::sigaction = std::mem::zeroed();
            let mut old: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = libc::SIG_IGN;
            assert_eq!(libc::sigaction(signal, &new, &mut old), 0);
            Disposition(signal, old)
        }
    }
}

impl Drop for Disposition {
    fn drop(&mut self) {
        // SAFETY: restoring the action saved by `ignore`.
        unsafe {
            libc::sigaction(self.0, &self.1, std::ptr::null_mut());
        }
    }
}

#[test]
fn timeout_sigterm_reaches_a_hook_when_the_host_ignores_sigterm() {
    let _g = serial();
    // A host started with SIGTERM ignored (nohup-style supervisors, some daemons). Ignored
    // dispositions survive exec, so unless the spawn resets them the hook ignores the timeout's
    // SIGTERM too.
    let o = {
        let _ignored = Disposition::ignore(libc::SIGTERM);
        let e = one_hook(json!({ "command": "sleep 100", "timeout": 200 }), json!({}));
        fire(&e, json!({ "event": "preToolUse" }))
    };
    let t = trace(&o);
    eprintln!("figure: host ignoring SIGTERM, hook `sleep 100`, timeout 200 ms: trace {t}");
    assert_eq!(t["timedOut"], true, "{o}");
    assert_eq!(t["signal"], libc::SIGTERM, "the hook inherited the host's ignored SIGTERM: {o}");
}

fn disposition(signal: i32) -> (usize, i32, Vec<i32>) {
    // SAFETY: querying (not changing) a disposition into a local struct.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(signal, std::ptr::null(), &mut old), 0);
        (old.sa_sigaction, old.sa_flags, members(&old.sa_mask))
    }
}

#[test]
fn signal_dispositions_unchanged() {
    let _g = serial();
    let signals = [libc::SIGPIPE, libc::SIGCHLD, libc::SIGTERM, libc::SIGINT, libc::SIGHUP];
    let before: Vec<_> = signals.iter().map(|s| disposition(*s)).collect();
    signal_workout();
    // Also through the FFI, whose first call installs the library's (quiet) panic hook.
    // SAFETY: NULL options (defaults), NULL error slot; the engine is freed.
    unsafe {
        let h = oh_hooks::ffi::oh_hooks_new(std::ptr::null(), std::ptr::null_mut());
        assert!(!h.is_null());
        oh_hooks::ffi::oh_hooks_string_free(oh_hooks::ffi::oh_hooks_fire(h, c"{\"event\":\"sessionStart\"}".as_ptr()));
        oh_hooks::ffi::oh_hooks_free(h);
    }
    let after: Vec<_> = signals.iter().map(|s| disposition(*s)).collect();
    assert_eq!(before, after, "a signal disposition changed (order: PIPE, CHLD, TERM, INT, HUP)");
}

#[test]
fn environment_unchanged() {
    let _g = serial();
    let before: Vec<_> = std::env::vars_os().collect();
    let e = engine(
        json!({ "hooks": { "preToolUse": [ { "command": "test \"$OH_TOOL_NAME\" = Bash && test \"$EXTRA\" = 1", "jsonIO": true } ] } }),
        json!({ "env": { "EXTRA": "1", "OH_TOOL_NAME": "stale" } }),
    );
    let o = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash", "sessionId": "s", "prompt": "p" }));
    assert_eq!(trace(&o)["exitCode"], 0, "{o}");
    signal_workout();
    drop(e);
    let after: Vec<_> = std::env::vars_os().collect();
    assert_eq!(before, after, "the process environment changed");
}

#[test]
fn sixteen_threads_on_one_engine_get_their_own_outcomes() {
    let _g = serial();
    let e = engine(
        json!({ "hooks": { "preToolUse": [
            // Answers with the tool name it saw in its environment, after checking stdin agrees.
            { "command": "read -r line; case \"$line\" in *\"\\\"toolName\\\":\\\"$OH_TOOL_NAME\\\"\"*) printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}' \"$OH_TOOL_NAME\";; *) echo '{\"decision\":\"deny\",\"reason\":\"stdin and env disagree\"}';; esac",
              "match": "t", "jsonIO": true },
            { "command": "case \"$OH_TOOL_NAME\" in *-odd) exit 3;; esac", "match": "t" },
            { "prompt": "never reached for odd tools", "match": "-even-never" }
        ] } }),
        json!({}),
    );
    let fires = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..16 {
            let (e, fires) = (&e, &fires);
            s.spawn(move || {
                for i in 0..12 {
                    let parity = if (t + i) % 2 == 0 { "even" } else { "odd" };
                    let tool = format!("t{t}-{i}-{parity}");
                    let o = fire(e, json!({ "event": "preToolUse", "toolName": tool }));
                    if parity == "even" {
                        assert_eq!(o["allowed"], true, "{tool}: {o}");
                        assert_eq!(o["additionalContext"], tool.as_str(), "{tool} got another fire's answer: {o}");
                        assert_eq!(o["hooks"].as_array().unwrap().len(), 2, "{o}");
                    } else {
                        assert_eq!(o["allowed"], false, "{tool}: {o}");
                        assert_eq!(o["reason"], "hook denied (exit code)", "{tool}: {o}");
                        assert!(o.get("additionalContext").is_none(), "context survives a deny: {o}");
                        assert_eq!(o["hooks"][1]["exitCode"], 3, "{o}");
                    }
                    // A fire that matches nothing, interleaved.
                    assert_eq!(
                        fire(e, json!({ "event": "preToolUse", "toolName": "zzz" })),
                        json!({ "allowed": true, "hooks": [] })
                    );
                    fires.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(fires.load(Ordering::Relaxed), 16 * 12);
    assert!(zombie_children().is_empty());
}
