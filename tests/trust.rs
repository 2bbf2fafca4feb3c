//! Workspace trust through the engine (CONTRACT §3.7): the store's rules, the option, and what
//! an untrusted directory does to each kind of hook.

mod common;
use common::stable;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::Path;

struct Project {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

fn project() -> Project {
    let p = Project { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap() };
    std::fs::create_dir_all(p.cwd.path().join(".oh")).unwrap();
    std::fs::create_dir_all(p.home.path().join(".oh")).unwrap();
    std::fs::write(
        p.cwd.path().join(".oh/config.yaml"),
        "hooks:\n  preToolUse:\n    - command: exit 1\n    - prompt: is this fine?\n  userPromptSubmit:\n    - command: exit 1\n  permissionRequest:\n    - command: exit 1\n",
    )
    .unwrap();
    p
}

impl Project {
    fn store(&self, text: &str) {
        std::fs::write(self.home.path().join(".oh/trusted-dirs.json"), text).unwrap();
    }
    fn engine(&self, extra: Value) -> Engine {
        let mut options = json!({ "cwd": self.cwd.path(), "home": self.home.path() });
        options.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        Engine::new(Some(&options.to_string())).unwrap()
    }
    fn fire(&self, extra: Value, event: &str) -> Value {
        let e = self.engine(extra);
        stable(serde_json::from_str(&e.fire(&json!({ "event": event }).to_string()).to_json()).unwrap())
    }
}

fn listed(dir: &Path) -> String {
    json!({ "trusted": [dir] }).to_string()
}

#[test]
fn no_store_file_trusts() {
    let p = project();
    let out = p.fire(json!({}), "preToolUse");
    assert_eq!(out["reason"], "hook denied (exit code)", "{out}");
}

#[test]
fn listed_directory_is_trusted() {
    let p = project();
    p.store(&listed(p.cwd.path()));
    assert_eq!(p.fire(json!({}), "preToolUse")["hooks"][0]["result"], "deny");
}

#[test]
fn unlisted_parent_listed_and_malformed_are_untrusted() {
    let p = project();
    for store in [
        listed(p.home.path()),
        listed(p.cwd.path().parent().unwrap()),
        "{not json".to_string(),
        r#"{"trusted": "everything"}"#.to_string(),
        r#"["/"]"#.to_string(),
    ] {
        p.store(&store);
        for event in ["preToolUse", "userPromptSubmit", "permissionRequest"] {
            let out = p.fire(json!({}), event);
            let first = &out["hooks"][0];
            assert_eq!(first["result"], "skipped", "{store} {event}: {out}");
            assert!(first["reason"].as_str().unwrap().starts_with("untrusted"), "{out}");
            assert!(first.get("exitCode").is_none(), "a skipped hook does not run");
        }
        // The prompt hook is not gated by trust: it still denies for want of an evaluator.
        let out = p.fire(json!({}), "preToolUse");
        assert_eq!(out["allowed"], false);
        assert_eq!(out["reason"], "prompt hook has no evaluator");
        assert_eq!(out["hooks"][1]["result"], "deny");
    }
}

#[test]
fn option_overrides_the_store() {
    let p = project();
    p.store("{not json");
    assert_eq!(p.fire(json!({ "trusted": true }), "preToolUse")["hooks"][0]["result"], "deny");
    std::fs::remove_file(p.home.path().join(".oh/trusted-dirs.json")).unwrap();
    let out = p.fire(json!({ "trusted": false }), "userPromptSubmit");
    assert_eq!(
        out,
        json!({ "allowed": true, "hooks": [ { "index": 0, "type": "command", "result": "skipped",
        "reason": "untrusted: the `trusted` option is false" } ] })
    );
}

#[test]
fn store_written_after_creation_is_noticed() {
    let p = project();
    let e = p.engine(json!({}));
    let fire = || -> Value { serde_json::from_str(&e.fire(r#"{"event":"preToolUse"}"#).to_json()).unwrap() };
    assert_eq!(fire()["hooks"][0]["result"], "deny");
    p.store(&listed(p.home.path()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while fire()["hooks"][0]["result"] != "skipped" {
        assert!(std::time::Instant::now() < deadline, "the new trust store was not noticed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
