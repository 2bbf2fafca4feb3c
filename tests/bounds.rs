//! Bounds (CONTRACT §3.11, version 1.1; issue 9 items 8 and 9): config loading is bounded in
//! time and memory whatever YAML aliases expand to, each distinct regex is compiled once within
//! a size limit, and background hooks run on a bounded pool. Memory is the process's real peak
//! RSS (VmHWM in /proc/self/status, reset before each load), threads and processes are counted
//! in /proc.

mod common;
use common::process::{reset_hwm, serial, status_kib, thread_cpu_seconds};
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// Loads `text` as the configPath file; returns the result, the CPU seconds the load took on this
/// thread (where the engine parses the config and compiles its regexes; CPU time, so the bound
/// holds on a loaded machine; a hang still shows as the wall-clock bound below) and the peak RSS
/// growth in MiB.
fn load(text: &str) -> (Result<Engine, oh_hooks::Error>, f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, text).unwrap();
    let options = json!({ "configPath": path, "home": dir.path(), "cwd": dir.path() }).to_string();
    assert!(reset_hwm(), "the kernel lets us reset VmHWM");
    let before = status_kib("VmRSS");
    let start = Instant::now();
    let cpu = thread_cpu_seconds();
    let result = Engine::new(Some(&options));
    let took = thread_cpu_seconds() - cpu;
    let wall = start.elapsed();
    assert!(wall < Duration::from_secs(30), "a config load took {wall:?} of wall-clock time");
    let grew = status_kib("VmHWM").saturating_sub(before) as f64 / 1024.0;
    (result, took, grew)
}

fn expect_bound(name: &str, text: &str, needle: &str) {
    let (result, took, grew) = load(text);
    eprintln!("{name}: {} bytes of YAML, {took:.3} s CPU, peak RSS +{grew:.1} MiB", text.len());
    let e = result.err().unwrap_or_else(|| panic!("{name}: loaded"));
    assert_eq!(e.code, oh_hooks::ErrorCode::InvalidConfig, "{name}: {e}");
    assert!(e.message.contains(needle), "{name}: {}", e.message);
    assert!(took < 1.0, "{name}: {took} s");
    assert!(grew < 64.0, "{name}: +{grew} MiB");
}

/// Version 1: the 200 aliases compiled 200 regexes of ~12 MB each (2.4 GB; under a 1 GB limit
/// the host aborted with "memory allocation failed").
#[test]
fn regex_alias_bomb() {
    let _s = serial();
    let mut text = String::from("m: &m '/\\w{200}/'\nhooks:\n  preToolUse:\n");
    for _ in 0..200 {
        text.push_str("    - command: exit 1\n      match: *m\n");
    }
    expect_bound("\\w{200} aliased 200 times", &text, "regex size limit");
}

/// Distinct regexes each under the per-regex limit still add up to a bound.
#[test]
fn many_large_regexes() {
    let _s = serial();
    let mut text = String::from("hooks:\n  preToolUse:\n");
    for i in 0..400 {
        text.push_str(&format!("    - command: exit 1\n      match: '/\\w{{12}}{i}/'\n"));
    }
    expect_bound("400 distinct \\w{12} regexes", &text, "regexes take more than 32 MiB");
}

/// Found by the Claude Code conformance work: an 18 MB file of ordinary hooks passed every
/// budget but took 350 MB inside the YAML parser. A file over 4 MiB is refused unparsed.
#[test]
fn huge_file_is_refused_unparsed() {
    let _s = serial();
    let mut text = String::from("hooks:\n  preToolUse:\n");
    while text.len() < 18 << 20 {
        text.push_str("    - command: exit 1\n      match: Bash\n");
    }
    expect_bound("an 18 MB file of hooks", &text, "larger than 4 MiB");
}

/// The same pattern given many times is compiled once (and the config loads).
#[test]
fn one_pattern_many_times_is_compiled_once() {
    let _s = serial();
    let mut text = String::from("m: &m '/\\w{10}/'\nhooks:\n  preToolUse:\n");
    for _ in 0..2000 {
        text.push_str("    - command: exit 1\n      match: *m\n");
    }
    let (result, took, grew) = load(&text);
    eprintln!("\\w{{10}} aliased 2000 times: {took:.3} s CPU, peak RSS +{grew:.1} MiB");
    let e = result.unwrap();
    assert_eq!(e.describe()[0].1.len(), 2000);
    assert!(grew < 16.0, "+{grew} MiB: compiled more than once?");
}

/// Version 1: a 1 MB string aliased 400 times used 785 MB.
#[test]
fn string_alias_bomb() {
    let _s = serial();
    let mut text = format!("big: &big \"{}\"\nhooks:\n  preToolUse:\n", "a".repeat(1 << 20));
    for _ in 0..400 {
        text.push_str("    - command: *big\n");
    }
    expect_bound("1 MiB string aliased 400 times", &text, "expands to more than 16 MiB");
    // Nested aliases (a billion laughs: 10^9 nodes) under a key the engine does not read are
    // skipped without being expanded.
    let mut text = String::from("l0: &l0 [{command: x}, {command: x}, {command: x}, {command: x}, {command: x}, {command: x}, {command: x}, {command: x}, {command: x}, {command: x}]\n");
    for i in 1..9 {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    text.push_str("laughs: *l8\nhooks:\n  preToolUse: *l0\n");
    let (result, took, grew) = load(&text);
    eprintln!("billion laughs: {took:.3} s CPU, peak RSS +{grew:.1} MiB");
    assert_eq!(result.unwrap().describe()[0].1.len(), 10);
    assert!(took < 1.0 && grew < 64.0);
}

/// A real 1 MiB config of ordinary hooks loads within the bounds.
#[test]
fn one_mebibyte_of_hooks_loads() {
    let _s = serial();
    let mut text = String::from("hooks:\n  preToolUse:\n");
    let mut i = 0;
    while text.len() < 1 << 20 {
        text.push_str(&format!(
            "    - command: ./hooks/check-{i}.sh --strict\n      match: Tool{i}\n      timeout: 5000\n"
        ));
        i += 1;
    }
    let (result, took, grew) = load(&text);
    eprintln!("1 MiB of {i} ordinary hooks: {took:.3} s CPU, peak RSS +{grew:.1} MiB");
    result.unwrap();
    assert!(took < 1.0 && grew < 64.0);
}

/// The engine's background threads (by name, from /proc/self/task/*/comm: the test harness's own
/// threads for the other tests of this file come and go meanwhile).
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "oh-hooks-bg")
        .count()
}

/// Version 1: 300 fires of a non-blocking event with two slow hooks made 601 threads and 600
/// processes in 0.4 s.
#[test]
fn background_hooks_are_bounded() {
    let _s = serial();
    let config = json!({ "hooks": { "postToolUse": [ { "command": "sleep 0.3" }, { "command": "sleep 0.3" } ] } });
    let e = Engine::new(Some(&json!({ "trusted": true, "config": config }).to_string())).unwrap();
    let base = threads();
    let mut peak_threads = 0;
    let mut peak_children = 0;
    let mut dropped = 0u64;
    let start = Instant::now();
    for _ in 0..300 {
        let out: Value =
            serde_json::from_str(&e.fire(r#"{"event":"postToolUse","toolName":"Bash"}"#).to_json()).unwrap();
        assert_eq!(out["allowed"], true);
        if let Some(w) = out["warnings"].as_array() {
            for w in w {
                let w = w.as_str().unwrap();
                if let Some(n) = w.strip_prefix("background queue full: ") {
                    dropped += n.split_whitespace().next().unwrap().parse::<u64>().unwrap();
                }
            }
        }
        peak_threads = peak_threads.max(threads() - base);
        peak_children = peak_children.max(common::process::children().len());
    }
    let fired = start.elapsed();
    eprintln!(
        "300 fires x 2 slow background hooks in {:.2} s: peak {peak_threads} more threads, {peak_children} child processes, {dropped} hooks dropped",
        fired.as_secs_f64()
    );
    assert!(peak_threads <= oh_hooks::thread_pool::BACKGROUND_THREADS, "{peak_threads} threads");
    assert!(peak_children <= oh_hooks::thread_pool::BACKGROUND_THREADS, "{peak_children} processes");
    assert!(dropped > 0, "the queue overflowed and the drops are counted in warnings");
    assert!(dropped as usize <= 600 - oh_hooks::thread_pool::BACKGROUND_QUEUE, "{dropped}");
    let drain = Instant::now();
    drop(e);
    eprintln!("drop waited {:.2} s for the queued hooks", drain.elapsed().as_secs_f64());
    assert!(drain.elapsed() < Duration::from_secs(120));
}
