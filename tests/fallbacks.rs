//! The run-time fallbacks for systems older than the calls the engine prefers (src/os/fallback.rs;
//! docs/packaging.md, "The glibc floor"): with `OH_HOOKS_FORCE_FALLBACK=all`, hooks are started
//! by fork + chdir + exec instead of posix_spawn with addchdir_np (glibc before 2.29), waited
//! for by polling waitpid instead of a pidfd (Linux before 5.3), and cancelled without an eventfd.
//! Each test here checks what a hook sees and what the engine reports through those paths.
//! The wider hook suites run through them too: `OH_HOOKS_FORCE_FALLBACK=all cargo test --release
//! --test direct_exec --test hardening_process --test persistent` (tests/rust.sh does).

mod common;
use common::process::*;
use common::*;
use oh_hooks::os::cancel::Cancel;
use oh_hooks::os::spawn::{spawn, EnvTemplate, Request};
use oh_hooks::run::command::{plain_words, run, Spawn};
use serde_json::json;
use std::ffi::{CString, OsString};
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::sync::Once;
use std::time::{Duration, Instant};

/// Every test calls this first, before the engine starts anything: the variable is read once.
fn force() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::env::set_var("OH_HOOKS_FORCE_FALLBACK", "all"));
    assert_eq!(oh_hooks::os::fallback::in_use(), "", "every newer call is replaced by its fallback");
}

fn template(dir: &std::path::Path) -> EnvTemplate {
    let env = vec![(OsString::from("PATH"), OsString::from("/usr/bin:/bin"))];
    EnvTemplate::new(env.into_iter(), &[], &[], dir)
}

extern "C" fn on_usr1(_: libc::c_int) {}

/// A hook started by fork gets what posix_spawn's attributes give it: its own process group, the
/// hook's cwd, an empty signal mask, SIGPIPE and SIGTERM at their default even where the host
/// ignores them, and none of the host's signal handlers.
#[test]
fn a_forked_hook_starts_as_a_posix_spawned_one() {
    force();
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    // The host ignores SIGPIPE (Rust programs do) and SIGTERM, handles SIGUSR1 and blocks SIGUSR2.
    // SAFETY: dispositions and the mask of this test process; restored below.
    let old_mask = unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        libc::signal(libc::SIGUSR1, on_usr1 as extern "C" fn(libc::c_int) as libc::sighandler_t);
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGUSR2);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        old
    };
    let template = template(dir.path());
    let env = template.with(&[]).unwrap();
    let cwd = CString::new(dir.path().to_str().unwrap()).unwrap();
    // A relative program: found from the hook's cwd, which the child changes to before exec.
    // The last line execs, so the process that reads /proc/self is the hook itself: a `cat` forked
    // by the shell would read the shell's state while dash has every signal blocked around its
    // fork (a race that once made this test see a full mask).
    std::fs::write(
        dir.path().join("probe"),
        "#!/bin/sh\nreadlink /proc/$$/cwd\nexec cat /proc/self/stat /proc/self/status\n",
    )
    .unwrap();
    std::fs::set_permissions(dir.path().join("probe"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let argv = [CString::new("./probe").unwrap()];
    let spawned = spawn(&Request {
        program: c"./probe",
        argv: &argv,
        env: &env,
        cwd: &cwd,
        pipe_stdin: false,
        preload: &[],
        pipe_stdout: true,
        keep_writers: false,
        keep_stdin_reader: false,
    });
    // SAFETY: restores this thread's mask and the dispositions set above (SIGPIPE stays ignored,
    // as the test harness had it).
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, &old_mask, std::ptr::null_mut());
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::signal(libc::SIGUSR1, libc::SIG_DFL);
    }
    let p = spawned.unwrap();
    let mut out = String::new();
    std::fs::File::from(p.stdout.unwrap()).read_to_string(&mut out).unwrap();
    let mut status = 0;
    // SAFETY: reaps our own child.
    unsafe { libc::waitpid(p.pid, &mut status, 0) };
    assert_eq!(status, 0, "{out}");
    let mut lines = out.lines();
    assert_eq!(lines.next().unwrap(), dir.path().canonicalize().unwrap().to_str().unwrap(), "cwd: {out}");
    let stat: Vec<&str> = lines.next().unwrap().rsplit(") ").next().unwrap().split(' ').collect();
    assert_eq!(stat[2], p.pid.to_string(), "the hook leads its own process group: {out}");
    let field = |name: &str| {
        let line = out.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name} in {out}"));
        u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
    };
    let bit = |signal: i32| 1u64 << (signal - 1);
    assert_eq!(field("SigBlk:"), 0, "empty signal mask: {out}");
    assert_eq!(
        field("SigIgn:") & (bit(libc::SIGPIPE) | bit(libc::SIGTERM)),
        0,
        "SIGPIPE and SIGTERM at default: {out}"
    );
    assert_eq!(field("SigCgt:") & bit(libc::SIGUSR1), 0, "no host handler: {out}");
}

/// An exec that fails comes back as the spawn's error, as posix_spawn reports it, and leaves
/// no child behind; so does a cwd that cannot be entered.
#[test]
fn exec_and_chdir_failures_are_errors_with_no_child_left() {
    force();
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let template = template(dir.path());
    let env = template.with(&[]).unwrap();
    let argv = [CString::new("x").unwrap()];
    let cwd = CString::new(dir.path().to_str().unwrap()).unwrap();
    let missing_dir = CString::new(dir.path().join("gone").to_str().unwrap()).unwrap();
    std::fs::write(dir.path().join("noexec"), "#!/bin/sh\n").unwrap();
    for (program, cwd, errno) in [
        (c"/nonexistent/program", &cwd, libc::ENOENT),
        (c"./noexec", &cwd, libc::EACCES),
        (c"/bin/true", &missing_dir, libc::ENOENT),
    ] {
        let r = spawn(&Request {
            program,
            argv: &argv,
            env: &env,
            cwd,
            pipe_stdin: true,
            preload: &[],
            pipe_stdout: true,
            keep_writers: false,
            keep_stdin_reader: false,
        });
        let err = r.err().unwrap_or_else(|| panic!("{program:?} in {cwd:?} started"));
        assert_eq!(err.raw_os_error(), Some(errno), "{program:?} in {cwd:?}: {err}");
    }
    assert!(zombie_children().is_empty(), "no child left: {:?}", zombie_children());
}

/// Through the engine: a command hook's exit is noticed by polling (no pidfd) as quickly as a
/// person notices, its timeout still kills it, and its answer is read as usual.
#[test]
fn hooks_answer_exit_and_time_out_without_a_pidfd() {
    force();
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let e = engine(
        json!({ "hooks": { "preToolUse": [
            { "match": "Deny", "command": "echo '{\"decision\":\"deny\",\"reason\":\"no\"}'", "jsonIO": true },
            { "match": "Slow", "command": "sleep 30", "timeout": 300 },
        ] } }),
        json!({ "cwd": dir.path() }),
    );
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "preToolUse", "toolName": "Deny" }));
    assert_eq!(o["allowed"], false, "{o}");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "preToolUse", "toolName": "Slow" }));
    assert_eq!(trace(&o)["timedOut"], true, "{o}");
    assert!(start.elapsed() < Duration::from_secs(5), "the timeout kills it: {:?}", start.elapsed());
    assert!(wait_until(Duration::from_secs(5), || zombie_children().is_empty()), "reaped");
}

/// A persistent worker, started by fork and watched without a pidfd, answers, and is replaced
/// after it exits. (Its supervisor needs an eventfd: Linux 2.6.27, below the floor.)
#[test]
fn persistent_workers_run_through_the_fallbacks() {
    force();
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.sh");
    std::fs::write(
        &worker,
        "#!/bin/sh\nwhile IFS= read -r line; do\n  case \"$line\" in *Exit*) exit 3 ;; esac\n  printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}\\n' \"$$\"\ndone\n",
    )
    .unwrap();
    std::fs::set_permissions(&worker, std::fs::Permissions::from_mode(0o755)).unwrap();
    let e = one_hook(json!({ "command": worker, "persistent": true, "timeout": 2000 }), json!({ "cwd": dir.path() }));
    let first = fire(&e, json!({ "event": "preToolUse", "toolName": "Read" }));
    let pid = first["additionalContext"].as_str().unwrap_or_else(|| panic!("{first}")).to_string();
    let again = fire(&e, json!({ "event": "preToolUse", "toolName": "Read" }));
    assert_eq!(again["additionalContext"], pid.as_str(), "the same worker: {again}");
    fire(&e, json!({ "event": "preToolUse", "toolName": "Exit" }));
    let after = fire(&e, json!({ "event": "preToolUse", "toolName": "Read" }));
    let new_pid = after["additionalContext"].as_str().unwrap_or_else(|| panic!("{after}"));
    assert_ne!(new_pid, pid, "a new worker after the exit: {after}");
    drop(e);
    assert!(wait_until(Duration::from_secs(5), || dead(pid.parse().unwrap())), "the first worker is gone");
}

/// Cancelling a fire whose token has no eventfd: the command loop polls the flag, so the hook
/// stops at once rather than at its timeout. Run in a process of its own with only the eventfd
/// fallback forced: with the pidfd one too, the loop's 5 ms exit polling would hide it.
#[test]
fn a_cancelled_hook_stops_without_an_eventfd() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "cancel_with_only_the_eventfd_fallback", "--ignored", "--nocapture"])
        .env("OH_HOOKS_FORCE_FALLBACK", "eventfd")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
}

#[test]
#[ignore = "run by a_cancelled_hook_stops_without_an_eventfd in its own process"]
fn cancel_with_only_the_eventfd_fallback() {
    // The portable build has none of the newer calls to begin with.
    let expected = if cfg!(feature = "portable") { "" } else { "pidfd chdir" };
    assert_eq!(oh_hooks::os::fallback::in_use(), expected, "only the eventfd fallback forced");
    let dir = tempfile::tempdir().unwrap();
    let env = template(dir.path());
    let cancel = std::sync::Arc::new(Cancel::default());
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            cancel.cancel();
        })
    };
    let start = Instant::now();
    let argv = plain_words("sleep 30");
    let finished = run(&Spawn {
        command: "sleep 30",
        argv: argv.as_deref(),
        exec_form: false,
        cwd: dir.path(),
        env: &env,
        vars: &[],
        stdin: None,
        capture_stdout: false,
        max_stdout: 1 << 20,
        timeout: Duration::from_secs(20),
        cancel: Some(&cancel),
    });
    canceller.join().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "stopped by the cancel, not the 20 s timeout: {:?}",
        start.elapsed()
    );
    assert_eq!(finished.error.as_deref(), Some("cancelled"), "{:?}", finished.error);
}
