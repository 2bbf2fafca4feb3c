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
