//! Persistent hooks (CONTRACT §3.10) with real worker processes: the line protocol, what a
//! worker sees, every supervision rule (timeout, exit, garbage, two lines, closed stdout, an
//! over-long line, SIGTERM ignored, a child holding the pipe, restart delay), concurrency up
//! to `workers` and queueing beyond, reload, eager start, trust, and free with busy workers.
//!
//! Every test holds `serial()`: they count processes and measure wall time.

mod common;
use common::process::*;
use common::*;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A worker in sh whose behaviour per request is chosen by the envelope's toolName. By default
/// it answers `<pid> <request number> <OH_TOOL_NAME or unset> <MY_VAR or unset> <cwd>` as
/// additionalContext and logs `log <n>` on stderr.
const WORKER: &str = r#"#!/bin/sh
n=0
while IFS= read -r line; do
  n=$((n+1))
  case "$line" in
    *'"toolName":"Garbage"'*) echo "hello world" ;;
    *'"toolName":"Two"'*) printf '{}\n{}\n' ;;
    *'"toolName":"Sleep"'*) echo "sleeping" >&2; sleep 30 ;;
    *'"toolName":"Exit"'*) echo "exiting" >&2; exit 3 ;;
    *'"toolName":"Close"'*) exec >&-; sleep 30 ;;
    *'"toolName":"Deaf"'*) exec <&-; printf '{}\n'; sleep 30 ;;
    *'"toolName":"Big"'*) head -c 5000 /dev/zero | tr '\0' x; echo ;;
    *'"toolName":"Blank"'*) echo; printf '\n \r\n'; printf '{"decision":"deny","reason":"after blanks"}\n' ;;
    *'"toolName":"Deny"'*) printf '{"decision":"deny","reason":"no from %s"}\n' "$$" ;;
    *) printf 'log %s\n' "$n" >&2
       printf '{"hookSpecificOutput":{"additionalContext":"%s %s %s %s %s"}}\n' "$$" "$n" "${OH_TOOL_NAME:-unset}" "${MY_VAR:-unset}" "$PWD" ;;
  esac
done
"#;

fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

struct Fixture {
    dir: tempfile::TempDir,
    worker: String,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let worker = script(dir.path(), "worker.sh", WORKER);
    Fixture { dir, worker }
}

fn pre(tool: &str) -> Value {
    json!({ "event": "preToolUse", "toolName": tool, "sessionId": "s1" })
}

/// The words of the default answer.
fn answer(o: &Value) -> Vec<String> {
    let ctx = o["additionalContext"].as_str().unwrap_or_else(|| panic!("no additionalContext: {o}"));
    ctx.split(' ').map(str::to_string).collect()
}

fn pid(o: &Value) -> i32 {
    answer(o)[0].parse().unwrap()
}

fn persistent(command: &str, extra: Value) -> Value {
    let mut entry = json!({ "command": command, "persistent": true });
    entry.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    entry
}

fn alive(pid: i32) -> bool {
    !dead(pid)
}

#[test]
fn one_process_answers_every_fire_one_line_each() {
    let _g = serial();
    let f = fixture();
    let e = one_hook(persistent(&f.worker, json!({})), json!({ "cwd": f.dir.path(), "env": { "MY_VAR": "mine" } }));
    let first = fire(&e, pre("Read"));
    assert_eq!(first["allowed"], true, "{first}");
    let t = trace(&first);
    assert_eq!(t["type"], "command");
    assert_eq!(t["persistent"], true, "{first}");
    assert_eq!(t["jsonIO"], true, "{first}");
    assert_eq!(t["timedOut"], false, "{first}");
    assert_eq!(t["stderr"], "log 1\n", "what the worker printed during this request: {first}");
    let words = answer(&first);
    assert_eq!(words[1], "1");
    assert_eq!(words[2], "unset", "per-event OH_* variables are not in a worker's environment");
    assert_eq!(words[3], "mine", "options env reaches the worker");
    assert_eq!(Path::new(&words[4]).canonicalize().unwrap(), f.dir.path().canonicalize().unwrap(), "runs in cwd");
    let worker = pid(&first);
    for n in 2..=20 {
        let o = fire(&e, pre("Read"));
        assert_eq!(pid(&o), worker, "the same process answers: {o}");
        assert_eq!(answer(&o)[1], n.to_string());
        assert_eq!(trace(&o)["stderr"], format!("log {n}\n"), "each request's own stderr: {o}");
    }
    let o = fire(&e, pre("Deny"));
    assert_eq!(o["allowed"], false);
    assert_eq!(o["reason"], format!("no from {worker}"));
    // Contract 1.2 changed this rule: blank lines before an answer are skipped (1.1 read the
    // first one as "no decision", which lost the deny behind it).
    let o = fire(&e, pre("Blank"));
    assert_eq!(o["allowed"], false, "blank lines before a deny are skipped: {o}");
    assert_eq!(o["reason"], "after blanks", "{o}");
    assert_eq!(pid(&fire(&e, pre("Read"))), worker, "the same worker goes on: {o}");
    assert!(alive(worker));
    drop(e);
    assert!(wait_until(Duration::from_secs(2), || dead(worker)), "free stops the worker");
    assert!(zombie_children().is_empty(), "zombies: {:?}", zombie_children());
}

/// A failure of `tool` kills the worker, fails the request like a jsonIO hook, and the next
/// fire gets a fresh process. Returns the failing outcome.
fn fails_and_recovers(tool: &str, extra: Value, options: Value) -> (Value, Duration) {
    let f = fixture();
    let mut options = options;
    options.as_object_mut().unwrap().insert("cwd".into(), json!(f.dir.path()));
    let e = one_hook(persistent(&f.worker, extra), options);
    let before = pid(&fire(&e, pre("Read")));
    let start = Instant::now();
    let o = fire(&e, pre(tool));
    let took = start.elapsed();
    assert_eq!(o["allowed"], false, "{tool}: a failed request denies on a blocking event: {o}");
    assert_eq!(trace(&o)["persistent"], true);
    assert!(
        wait_until(Duration::from_millis(1500), || dead(before)),
        "{tool}: the worker {before} was not killed: {:?}",
        proc_stat(before)
    );
    let after = fire(&e, pre("Read"));
    assert_eq!(after["allowed"], true, "{after}");
    assert_ne!(pid(&after), before, "{tool}: the next request starts a fresh worker");
    assert_eq!(answer(&after)[1], "1");
    drop(e);
    (o, took)
}

#[test]
fn a_worker_that_sleeps_past_the_timeout_is_killed() {
    let _g = serial();
    let (o, took) = fails_and_recovers("Sleep", json!({ "timeout": 300 }), json!({}));
    let t = trace(&o);
    assert_eq!(o["reason"], "hook failed (timeout or non-zero exit)", "{o}");
    assert_eq!(t["timedOut"], true, "{o}");
    assert_eq!(t["stderr"], "sleeping\n", "{o}");
    assert!(t["error"].as_str().unwrap().contains("timed out after 300 ms"), "{o}");
    assert!(took >= Duration::from_millis(300) && took < Duration::from_millis(1000), "{took:?}");
}

#[test]
fn a_worker_that_exits_fails_its_request() {
    let _g = serial();
    let (o, took) = fails_and_recovers("Exit", json!({}), json!({}));
    let t = trace(&o);
    assert_eq!(o["reason"], "hook failed (timeout or non-zero exit)", "{o}");
    assert_eq!(t["exitCode"], 3, "{o}");
    assert_eq!(t["timedOut"], false);
    assert_eq!(t["stderr"], "exiting\n", "{o}");
    assert!(t["error"].as_str().unwrap().contains("exited with code 3"), "{o}");
    assert!(took < Duration::from_millis(500), "noticed at once, not at the timeout: {took:?}");
}

#[test]
fn garbage_two_lines_and_a_closed_stdout_kill_the_worker() {
    let _g = serial();
    let (o, _) = fails_and_recovers("Garbage", json!({}), json!({}));
    assert_eq!(o["reason"], "hook failed (timeout or non-zero exit)", "{o}");
    assert!(trace(&o)["error"].as_str().unwrap().contains("not one JSON response"), "{o}");
    let (o, _) = fails_and_recovers("Two", json!({}), json!({}));
    assert!(trace(&o)["error"].as_str().unwrap().contains("more than one line"), "{o}");
    let (o, took) = fails_and_recovers("Close", json!({}), json!({}));
    assert!(trace(&o)["error"].as_str().unwrap().contains("closed its stdout"), "{o}");
    assert!(took < Duration::from_millis(500), "{took:?}");
}

/// A worker that closed its stdin (and answered) cannot read the next request, small or larger
/// than a pipe holds: that request times out, the worker is killed and the next fire gets a
/// fresh one. The engine holds the read end of every worker's stdin pipe (no SIGPIPE guard
/// around the write), so the write goes into the pipe instead of failing with EPIPE; the
/// outcome is the same.
#[test]
fn a_worker_that_closed_its_stdin_times_out_the_next_request() {
    let _g = serial();
    for size in [10, 300_000] {
        let f = fixture();
        let e = one_hook(persistent(&f.worker, json!({ "timeout": 300 })), json!({ "cwd": f.dir.path() }));
        let o = fire(&e, pre("Deaf"));
        assert_eq!(o["allowed"], true, "it answered before it stopped reading: {o}");
        let mut envelope = pre("Read");
        envelope["toolArgs"] = json!("y".repeat(size));
        let start = Instant::now();
        let o = fire(&e, envelope);
        let took = start.elapsed();
        assert_eq!(o["allowed"], false, "{size}: {o}");
        assert_eq!(trace(&o)["timedOut"], true, "{size}: {o}");
        assert!(took >= Duration::from_millis(300) && took < Duration::from_millis(1500), "{size}: {took:?}");
        let after = fire(&e, pre("Read"));
        assert_eq!(answer(&after)[1], "1", "{size}: a fresh worker: {after}");
        drop(e);
    }
}

#[test]
fn an_over_long_line_is_output_too_large() {
    let _g = serial();
    let (o, _) = fails_and_recovers("Big", json!({}), json!({ "maxOutputBytes": 1000 }));
    assert_eq!(o["reason"], "hook output exceeded maxOutputBytes", "{o}");
    assert!(trace(&o)["error"].as_str().unwrap().contains("1000 bytes"), "{o}");
}

#[test]
fn a_worker_ignoring_sigterm_gets_sigkill_after_the_grace() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let w =
        script(dir.path(), "stubborn.sh", "#!/bin/sh\ntrap '' TERM\necho $$ > pid\nwhile read l; do sleep 30; done\n");
    let e = one_hook(persistent(&w, json!({ "timeout": 200 })), json!({ "cwd": dir.path() }));
    let start = Instant::now();
    let o = fire(&e, pre("x"));
    let took = start.elapsed();
    assert_eq!(trace(&o)["timedOut"], true, "{o}");
    assert!(took < Duration::from_millis(600), "the fire does not wait for the kill: {took:?}");
    let worker = read_pid(&dir.path().join("pid"));
    std::thread::sleep(Duration::from_millis(250));
    assert!(alive(worker), "SIGTERM is ignored, so the worker lives until the SIGKILL");
    assert!(wait_until(Duration::from_millis(1500), || dead(worker)), "no SIGKILL after the grace");
    assert!(wait_until(Duration::from_secs(1), || zombie_children().is_empty()), "{:?}", zombie_children());
    drop(e);
}

#[test]
fn a_child_holding_the_pipe_neither_hides_the_exit_nor_survives() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    // The background sleep inherits stdout and stderr: the worker's exit closes neither pipe.
    let w = script(
        dir.path(),
        "forks.sh",
        "#!/bin/sh\nsleep 30 &\necho $! > child\nwhile IFS= read -r l; do case \"$l\" in *Exit*) exit 4;; esac; echo '{}'; done\n",
    );
    let e = one_hook(persistent(&w, json!({ "timeout": 5000 })), json!({ "cwd": dir.path() }));
    assert_eq!(fire(&e, pre("x"))["allowed"], true);
    let child = read_pid(&dir.path().join("child"));
    let start = Instant::now();
    let o = fire(&e, pre("Exit"));
    assert!(start.elapsed() < Duration::from_secs(1), "the exit is seen by its pidfd: {:?}", start.elapsed());
    assert_eq!(trace(&o)["exitCode"], 4, "{o}");
    assert!(wait_until(Duration::from_millis(1500), || dead(child)), "the group's child survived");
    // The same at free: the worker exits on EOF, its child is killed with the group.
    assert_eq!(fire(&e, pre("x"))["allowed"], true);
    let child = read_pid(&dir.path().join("child"));
    let start = Instant::now();
    drop(e);
    assert!(start.elapsed() < Duration::from_millis(900), "free took {:?}", start.elapsed());
    assert!(wait_until(Duration::from_millis(500), || dead(child)), "the child survived free");
    assert!(wait_until(Duration::from_secs(1), || zombie_children().is_empty()), "{:?}", zombie_children());
}

#[test]
fn a_worker_that_keeps_dying_is_restarted_with_a_delay_and_fails_fast_meanwhile() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let starts = dir.path().join("starts");
    let e = one_hook(persistent(&format!("echo x >> {}; exit 1", q(&starts)), json!({})), json!({ "cwd": dir.path() }));
    let start = Instant::now();
    let mut fast = None;
    for _ in 0..10 {
        let o = fire(&e, pre("x"));
        assert_eq!(o["allowed"], false, "{o}");
        assert_eq!(o["reason"], "hook failed (timeout or non-zero exit)");
        let t = trace(&o);
        if t["error"].as_str().unwrap().contains("keeps dying") {
            fast = Some(t.clone());
        }
    }
    let burst = start.elapsed();
    let fast = fast.expect("no fire failed fast with the restart delay");
    assert!(fast["durationMs"].as_f64().unwrap() < 20.0, "{fast}");
    assert!(fast["error"].as_str().unwrap().contains("exited with code 1"), "{fast}");
    let count = || std::fs::read_to_string(&starts).unwrap_or_default().lines().count();
    let after_burst = count();
    assert!(burst < Duration::from_millis(250) && (3..=4).contains(&after_burst), "{after_burst} starts in {burst:?}");
    // After the delay it is started again, and the delay grows.
    std::thread::sleep(Duration::from_millis(300));
    fire(&e, pre("x"));
    assert_eq!(count(), after_burst + 1, "restarted after the delay");
    let o = fire(&e, pre("x"));
    assert!(trace(&o)["error"].as_str().unwrap().contains("keeps dying"), "{o}");
    std::thread::sleep(Duration::from_millis(300));
    let o = fire(&e, pre("x"));
    assert!(trace(&o)["error"].as_str().unwrap().contains("keeps dying"), "the second delay is longer: {o}");
    drop(e);
    assert!(wait_until(Duration::from_secs(1), || zombie_children().is_empty()), "{:?}", zombie_children());
}

#[test]
fn concurrent_fires_use_up_to_workers_processes_and_then_queue() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let w = script(
        dir.path(),
        "slow.sh",
        "#!/bin/sh\nwhile read l; do sleep 0.3; printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}\\n' $$; done\n",
    );
    for (workers, threads, rounds) in [(2usize, 4usize, 2u32), (1, 3, 3)] {
        let e = one_hook(persistent(&w, json!({ "workers": workers })), json!({ "cwd": dir.path() }));
        let start = Instant::now();
        let pids: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| s.spawn(|| fire(&e, pre("x"))["additionalContext"].as_str().unwrap().to_string()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let took = start.elapsed();
        let mut distinct = pids.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), workers, "{threads} fires on workers: {workers} used {distinct:?}");
        let least = Duration::from_millis(300) * rounds;
        assert!(took >= least - Duration::from_millis(20), "{took:?}: more than {workers} ran at once");
        assert!(took < least + Duration::from_millis(700), "{took:?}: they did not run {workers} at once");
        drop(e);
    }
}

#[test]
fn reload_keeps_an_unchanged_worker_and_replaces_a_changed_one() {
    let _g = serial();
    let f = fixture();
    let config = f.dir.path().join("hooks.yaml");
    let write = |command: &str, comment: &str| {
        std::fs::write(
            &config,
            format!("# {comment}\nhooks:\n  preToolUse:\n    - command: {command}\n      persistent: true\n"),
        )
        .unwrap()
    };
    write(&f.worker, "one");
    let e =
        Engine::new(Some(&json!({ "configPath": config, "trusted": true, "cwd": f.dir.path() }).to_string())).unwrap();
    let first = pid(&fire(&e, pre("Read")));
    write(&f.worker, "two: the hook is unchanged");
    e.reload().unwrap();
    assert_eq!(pid(&fire(&e, pre("Read"))), first, "an unchanged hook keeps its worker");
    write(&format!("{} changed", f.worker), "three: the command changed");
    e.reload().unwrap();
    assert!(wait_until(Duration::from_millis(1500), || dead(first)), "the old worker was not stopped");
    let second = pid(&fire(&e, pre("Read")));
    assert_ne!(second, first);
    std::fs::write(&config, "hooks: {}\n").unwrap();
    e.reload().unwrap();
    assert!(wait_until(Duration::from_millis(1500), || dead(second)), "a removed hook's worker was not stopped");
    drop(e);
}

#[test]
fn eager_workers_start_at_load_and_untrusted_ones_never() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let w = script(dir.path(), "eager.sh", "#!/bin/sh\necho $$ > started\nwhile read l; do echo '{}'; done\n");
    let e = one_hook(json!({ "command": w, "persistent": "eager" }), json!({ "cwd": dir.path() }));
    let worker = read_pid(&dir.path().join("started"));
    assert!(alive(worker));
    let o = fire(&e, pre("x"));
    assert_eq!(o["allowed"], true, "{o}");
    drop(e);
    assert!(wait_until(Duration::from_secs(1), || dead(worker)));

    // A project config in a directory that is not trusted: its eager worker is never started.
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join(".oh")).unwrap();
    std::fs::write(
        project.path().join(".oh/config.yaml"),
        format!("hooks:\n  preToolUse:\n    - command: {w}\n      persistent: eager\n"),
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let e = Engine::new(Some(&json!({ "cwd": project.path(), "home": home.path(), "trusted": false }).to_string()))
        .unwrap();
    let o = fire(&e, pre("x"));
    assert_eq!(o["hooks"], json!([]), "an untrusted project's hooks are not loaded: {o}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!project.path().join("started").exists(), "an untrusted project's worker was started");
    drop(e);
}

#[test]
fn free_waits_for_busy_background_requests_then_stops_the_workers() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let log: PathBuf = dir.path().join("served");
    let w = script(
        dir.path(),
        "audit.sh",
        &format!(
            "#!/bin/sh\necho $$ >> pids\nwhile read l; do sleep 0.2; echo served >> {}; echo '{{}}'; done\n",
            q(&log)
        ),
    );
    let e = engine(
        json!({ "hooks": { "postToolUse": [ { "command": w, "persistent": true, "workers": 1 } ] } }),
        json!({ "cwd": dir.path() }),
    );
    for _ in 0..3 {
        assert_eq!(fire(&e, json!({ "event": "postToolUse", "toolName": "x" }))["allowed"], true);
    }
    let start = Instant::now();
    drop(e);
    let took = start.elapsed();
    let served = std::fs::read_to_string(&log).unwrap_or_default().lines().count();
    assert_eq!(served, 3, "every background request fired before free was served");
    assert!(took >= Duration::from_millis(450) && took < Duration::from_millis(1500), "free took {took:?}");
    let pids = std::fs::read_to_string(dir.path().join("pids")).unwrap();
    assert_eq!(pids.lines().count(), 1, "one worker served them in turn");
    let worker: i32 = pids.trim().parse().unwrap();
    assert!(wait_until(Duration::from_millis(500), || dead(worker)));
    assert!(wait_until(Duration::from_secs(1), || zombie_children().is_empty()), "{:?}", zombie_children());
}

#[test]
fn config_errors_name_the_entry() {
    for (entry, needle) in [
        (json!({ "command": "x", "persistent": "yes" }), "\"eager\""),
        (json!({ "command": "x", "persistent": 1 }), "true, false or \"eager\""),
        (json!({ "command": "x", "workers": 2 }), "add `persistent: true`"),
        (json!({ "command": "x", "persistent": false, "workers": 2 }), "add `persistent: true`"),
        (json!({ "command": "x", "persistent": true, "workers": 0 }), "found 0"),
        (json!({ "command": "x", "persistent": true, "workers": 65 }), "at most 64"),
        (json!({ "command": "x", "persistent": true, "workers": 1.5 }), "positive integer"),
        (json!({ "command": "x", "persistent": true, "jsonIO": false }), "`jsonIO: false` contradicts"),
        (json!({ "http": "http://127.0.0.1:1/", "persistent": true }), "only to `command` hooks"),
    ] {
        let options = json!({ "trusted": true, "config": { "hooks": { "preToolUse": [entry] } } });
        let e = Engine::new(Some(&options.to_string())).err().unwrap_or_else(|| panic!("accepted {entry}"));
        assert!(e.message.contains(needle), "{entry}: {}", e.message);
        assert!(e.path.as_deref().unwrap_or("").starts_with("hooks.preToolUse[0]"), "{entry}: {:?}", e.path);
    }
}

#[test]
fn a_worker_that_exits_right_after_answering_is_reaped_without_another_fire() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let w = script(
        dir.path(),
        "once.sh",
        "#!/bin/sh\nread l\nprintf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}\\n' $$\nexit 0\n",
    );
    let e = one_hook(persistent(&w, json!({})), json!({ "cwd": dir.path() }));
    let mut pids = Vec::new();
    for _ in 0..20 {
        let o = fire(&e, pre("x"));
        assert_eq!(o["allowed"], true, "an answer followed by an exit is still an answer: {o}");
        pids.push(o["additionalContext"].as_str().unwrap().parse::<i32>().unwrap());
    }
    pids.dedup();
    assert_eq!(pids.len(), 20, "each fire needed a fresh process");
    // Nobody fires again: the supervisor alone must reap the last one.
    assert!(
        wait_until(Duration::from_secs(2), || zombie_children().is_empty() && children().is_empty()),
        "left behind: {:?}",
        children()
    );
    drop(e);
}

/// A worker out of step (docs/reliability.md "Reliability", issue 16 item 16): it answers each request, then
/// writes a late stray `allow` line. That line used to be read as the next request's answer, so
/// `rm -rf /` fired right after a harmless call was allowed, 5 times of 5. Now a line written
/// before the worker read the request is no answer: the worker is killed and the request goes
/// to a fresh one, which denies.
///
/// The worker waits a second after its stray line before it reads on: the line protocol has no
/// request ids, so a stray line is known as one only while the request it would answer is still
/// unread (docs/decisions.md, "Out of step"). Without that pause the test raced the engine's
/// wake-up against the worker's next `read` and failed on a loaded machine (`make test` runs
/// suites side by side); without the out-of-step check it still fails every round.
#[test]
fn a_late_stray_line_is_never_the_next_answer() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let w = script(
        dir.path(),
        "late.sh",
        r#"#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    *rm*) echo '{"decision":"deny","reason":"no rm"}' ;;
    *) echo '{}' ;;
  esac
  sleep 0.3
  echo '{"decision":"allow"}'
  sleep 1
done
"#,
    );
    let e = one_hook(persistent(&w, json!({ "timeout": 5000 })), json!({ "cwd": dir.path() }));
    let mut allowed = 0;
    for round in 0..5 {
        let harmless = fire(&e, json!({ "event": "preToolUse", "toolName": "Read", "toolArgs": {"path": "x"} }));
        assert_eq!(harmless["allowed"], true, "round {round}: {harmless}");
        let rm = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash", "toolArgs": {"command": "rm -rf /"} }));
        if rm["allowed"] == true {
            allowed += 1;
        }
        // Usually the fresh worker's deny; when the late line and the real answer arrive in one
        // read, the two lines fail the request (a deny too).
        let reason = rm["reason"].as_str().unwrap_or("");
        assert!(reason == "no rm" || reason == "hook failed (timeout or non-zero exit)", "round {round}: {rm}");
        std::thread::sleep(Duration::from_millis(400));
    }
    eprintln!("rm -rf / allowed {allowed} of 5");
    assert_eq!(allowed, 0);
}

/// Blank lines before a deny are skipped (issue 16 item 16: the first blank line was read as
/// "no decision" and the deny behind it lost), also when they come in their own writes.
#[test]
fn blank_lines_before_a_deny_are_skipped() {
    let _g = serial();
    let dir = tempfile::tempdir().unwrap();
    let w = script(
        dir.path(),
        "blank.sh",
        "#!/bin/sh\nwhile IFS= read -r line; do echo; sleep 0.05; printf ' \\r\\n'; sleep 0.05; echo '{\"decision\":\"deny\",\"reason\":\"late deny\"}'; done\n",
    );
    let e = one_hook(persistent(&w, json!({})), json!({ "cwd": dir.path() }));
    for _ in 0..3 {
        let o = fire(&e, pre("Bash"));
        assert_eq!(o["allowed"], false, "{o}");
        assert_eq!(o["reason"], "late deny", "{o}");
    }
}

/// The read system calls of the firing thread per request, from /proc/thread-self/io (a count,
/// whatever the machine's load): one, the answer. stderr is read only when a poll of the request
/// saw bytes there (the supervisor drains it between requests); it used to be read before and
/// after every request, three reads a request.
#[test]
fn a_request_reads_its_answer_and_nothing_else() {
    let _g = serial();
    let Ok(_) = std::fs::read_to_string("/proc/thread-self/io") else {
        eprintln!("skipped: no /proc/thread-self/io (no task I/O accounting)");
        return;
    };
    let syscr = || -> u64 {
        let io = std::fs::read_to_string("/proc/thread-self/io").unwrap();
        io.lines().find_map(|l| l.strip_prefix("syscr: ")).unwrap().trim().parse().unwrap()
    };
    let f = fixture();
    let e = one_hook(persistent("cat", json!({})), json!({ "cwd": f.dir.path() }));
    let o = fire(&e, pre("Read"));
    assert_eq!(trace(&o)["persistent"], true, "{o}");
    // Reading /proc/thread-self/io is itself one read (or two) of this thread: measured empty.
    let (a, b) = (syscr(), syscr());
    let own = b - a;
    let before = syscr();
    for _ in 0..50 {
        let o = fire(&e, pre("Read"));
        assert_eq!(o["allowed"], true, "{o}");
    }
    let reads = syscr() - before - own;
    assert!(
        reads <= 60,
        "{reads} read calls for 50 requests (one each expected, a few more if an answer came in parts)"
    );
}
