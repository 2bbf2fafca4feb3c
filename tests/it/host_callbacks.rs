//! Host callbacks through the Rust API: Claude Code `prompt` hooks answered by the host function
//! registered as `prompt` (the C ABI's own tests are tests/c/test_callbacks.c).

use oh_hooks::host::{self, HostFunction};
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Answers every call at once with `answer`, keeping the requests.
struct Canned {
    answer: &'static str,
    requests: Mutex<Vec<Value>>,
}

impl HostFunction for Canned {
    fn call(&self, request: &str, call: u64) {
        self.requests.lock().unwrap().push(serde_json::from_str(request).unwrap());
        host::answer(call, Some(self.answer.as_bytes().to_vec()));
    }
}

fn claude_engine(hooks: Value) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("repo");
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    std::fs::write(cwd.join(".claude/settings.json"), json!({ "hooks": hooks }).to_string()).unwrap();
    let options = json!({ "cwd": cwd, "home": dir.path(), "claude": true, "trusted": true });
    let e = Engine::new(Some(&options.to_string())).unwrap();
    (dir, e)
}

#[test]
fn claude_prompt_hooks_ask_the_host() {
    let (_dir, e) = claude_engine(json!({ "PreToolUse": [{ "matcher": "Bash", "hooks": [
        { "type": "prompt", "prompt": "Is $ARGUMENTS safe?" }
    ] }] }));
    let before =
        crate::common::fire(&e, json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": "ls" } }));
    assert!(
        before["hooks"][0]["failure"].as_str().unwrap().contains("no host callback registered for `prompt`"),
        "{before}"
    );

    let model = Arc::new(Canned {
        answer: r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the model says no"}}"#,
        requests: Mutex::new(Vec::new()),
    });
    e.register("prompt", Some(model.clone()));
    let o = crate::common::fire(
        &e,
        json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": "rm -rf /" } }),
    );
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(o["hooks"][0]["type"], "prompt", "{o}");
    assert_eq!(o["hooks"][0]["timedOut"], false, "{o}");
    let requests = model.requests.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["hook"]["prompt"], "Is $ARGUMENTS safe?", "the hook's own fields: {}", requests[0]);
    assert_eq!(requests[0]["input"]["tool_name"], "Bash", "Claude Code's input: {}", requests[0]);
    assert_eq!(requests[0]["input"]["tool_input"]["command"], "rm -rf /");
}

#[test]
fn claude_agent_hooks_may_answer_with_a_model_verdict() {
    let (_dir, e) =
        claude_engine(json!({ "Stop": [{ "hooks": [{ "type": "agent", "prompt": "Did the tests pass?" }] }] }));
    let agent =
        Arc::new(Canned { answer: r#"{"ok": false, "reason": "2 tests fail"}"#, requests: Mutex::new(Vec::new()) });
    e.register("agent", Some(agent.clone()));
    let o = crate::common::fire(&e, json!({ "event": "turnStop", "stop_hook_active": false }));
    assert_eq!(o["allowed"], false, "ok:false on Stop keeps the turn going: {o}");
    assert_eq!(o["reason"], "2 tests fail", "{o}");
    assert_eq!(agent.requests.lock().unwrap()[0]["input"]["hook_event_name"], "Stop");
}

/// Holds every call until the gate opens, then answers `{}`; counts the calls.
struct Held {
    gate: Mutex<bool>,
    opened: std::sync::Condvar,
    calls: std::sync::atomic::AtomicUsize,
}

impl HostFunction for Held {
    fn call(&self, _request: &str, call: u64) {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut open = self.gate.lock().unwrap();
        while !*open {
            open = self.opened.wait(open).unwrap();
        }
        drop(open);
        host::answer(call, Some(b"{}".to_vec()));
    }
}

struct Records(Mutex<Vec<Value>>);

impl host::Observer for Records {
    fn observe(&self, record: &str) {
        self.0.lock().unwrap().push(serde_json::from_str(record).unwrap());
    }
}

/// The asynchronous pool's refusal (every engine thread busy, the queue full): `done` runs at once
/// on the calling thread with an `internal` outcome, the observer's record keeps the envelope,
/// and every fire that was queued still completes exactly once.
#[test]
fn an_async_fire_beyond_the_full_queue_is_refused_at_once_and_observed() {
    use oh_hooks::engine::{ASYNC_QUEUE, ASYNC_THREADS};
    use std::sync::atomic::Ordering;
    let dir = tempfile::tempdir().unwrap();
    let options = json!({ "cwd": dir.path(), "home": dir.path(), "trusted": true,
        "config": { "hooks": { "preToolUse": [{ "callback": "hold" }] } } });
    let e = Engine::new(Some(&options.to_string())).unwrap();
    let held = Arc::new(Held { gate: Mutex::new(false), opened: Default::default(), calls: Default::default() });
    e.register("hold", Some(held.clone()));
    let records = Arc::new(Records(Mutex::new(Vec::new())));
    e.observe(Some(records.clone()));
    let (tx, rx) = std::sync::mpsc::channel::<(u64, Value)>();
    let envelope = json!({ "event": "preToolUse", "toolName": "Bash" }).to_string();
    let fire = |tx: std::sync::mpsc::Sender<(u64, Value)>| {
        e.fire_async(
            Ok(envelope.clone()),
            Box::new(move |id, o| tx.send((id, serde_json::from_str(&o.to_json()).unwrap())).unwrap()),
        )
    };
    for _ in 0..ASYNC_THREADS {
        fire(tx.clone());
    }
    let start = std::time::Instant::now();
    while held.calls.load(Ordering::SeqCst) < ASYNC_THREADS {
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "every engine thread holds a call");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    for _ in 0..ASYNC_QUEUE {
        fire(tx.clone());
    }
    assert!(rx.try_recv().is_err(), "nothing completed yet");
    let refused = fire(tx.clone());
    let (id, outcome) = rx.try_recv().expect("the refused fire's done ran before fire_async returned");
    assert_eq!(id, refused);
    assert_eq!(outcome["error"]["code"], "internal", "{outcome}");
    assert!(outcome["error"]["message"].as_str().unwrap().contains("already waiting"), "{outcome}");
    assert_eq!(outcome["allowed"], false, "{outcome}");
    {
        let seen = records.0.lock().unwrap();
        assert_eq!(seen.len(), 1, "only the refused fire is recorded yet");
        assert_eq!(seen[0]["envelope"]["toolName"], "Bash", "{}", seen[0]);
        assert_eq!(seen[0]["outcome"]["error"]["code"], "internal", "{}", seen[0]);
    }
    assert!(!e.cancel(refused), "a refused fire is not pending");
    *held.gate.lock().unwrap() = true;
    held.opened.notify_all();
    let mut ids = std::collections::HashSet::new();
    for _ in 0..ASYNC_THREADS + ASYNC_QUEUE {
        let (id, outcome) = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("every queued fire completes");
        assert_eq!(outcome["allowed"], true, "{outcome}");
        assert!(ids.insert(id), "done once per fire");
    }
    drop(e);
    assert!(rx.try_recv().is_err(), "no done after the engine's free");
    assert_eq!(records.0.lock().unwrap().len(), 1 + ASYNC_THREADS + ASYNC_QUEUE);
}
