//! Workspace trust and layers through the engine (CONTRACT §2, §3.7, version 1.1): the store's
//! rules and the option decide whether the project's files are read at all; the user's own
//! layers always apply; hooks add up, the user's first; a project can switch off only its own.

use crate::common::stable;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::Path;

struct Project {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

const PROJECT: &str = "hooks:\n  preToolUse:\n    - command: exit 1\n    - prompt: is this fine?\n  userPromptSubmit:\n    - command: exit 1\n  permissionRequest:\n    - command: exit 1\n";

fn project() -> Project {
    let p = Project { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap() };
    std::fs::create_dir_all(p.cwd.path().join(".oh")).unwrap();
    std::fs::create_dir_all(p.home.path().join(".oh")).unwrap();
    p.write_project(PROJECT);
    p
}

impl Project {
    fn store(&self, text: &str) {
        std::fs::write(self.home.path().join(".oh/trusted-dirs.json"), text).unwrap();
    }
    fn write_user(&self, text: &str) {
        std::fs::write(self.home.path().join(".oh/config.yaml"), text).unwrap();
    }
    fn write_project(&self, text: &str) {
        std::fs::write(self.cwd.path().join(".oh/config.yaml"), text).unwrap();
    }
    fn write_local(&self, text: &str) {
        std::fs::write(self.cwd.path().join(".oh/config.local.yaml"), text).unwrap();
    }
    fn engine(&self, extra: Value) -> Engine {
        let mut options = json!({ "cwd": self.cwd.path(), "home": self.home.path() });
        options.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        Engine::new(Some(&options.to_string())).unwrap_or_else(|e| panic!("{e}"))
    }
    fn fire(&self, extra: Value, event: &str) -> Value {
        let e = self.engine(extra);
        stable(serde_json::from_str(&e.fire(&json!({ "event": event }).to_string()).to_json()).unwrap())
    }
    fn not_loaded(&self, why: &str) -> Value {
        json!([format!("{} exists and was not loaded: {why}", self.cwd.path().join(".oh/config.yaml").display())])
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
fn untrusted_project_is_not_loaded_and_says_so() {
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
            assert_eq!(out["allowed"], true, "{store} {event}: {out}");
            assert_eq!(out["hooks"], json!([]), "no project hook is traced (not even the prompt hook): {out}");
            let warning = out["warnings"][0].as_str().unwrap();
            assert!(warning.contains("exists and was not loaded: untrusted"), "{warning}");
        }
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
        json!({ "allowed": true, "hooks": [], "warnings": p.not_loaded("untrusted: the `trusted` option is false") })
    );
}

/// Issue 9 item 5: version 1 skipped the user's own hooks in an untrusted directory, so the
/// repository the user trusts least switched their guard off.
#[test]
fn own_layers_run_in_an_untrusted_directory() {
    let p = project();
    p.store(&listed(p.home.path()));
    p.write_user("hooks:\n  preToolUse:\n    - command: echo user >&2; exit 1\n");
    let out = p.fire(json!({}), "preToolUse");
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["hooks"][0]["stderr"], "user\n");
    assert_eq!(out["hooks"].as_array().unwrap().len(), 1, "the project's hooks are not loaded: {out}");
    // The inline config and configPath are own layers too.
    let inline = json!({ "trusted": false, "config": { "hooks": { "preToolUse": [ { "command": "exit 1" } ] } } });
    assert_eq!(p.fire(inline, "preToolUse")["hooks"][0]["result"], "deny");
    let file = p.home.path().join("policy.yaml");
    std::fs::write(&file, "hooks:\n  preToolUse:\n    - command: exit 1\n").unwrap();
    assert_eq!(p.fire(json!({ "trusted": false, "configPath": file }), "preToolUse")["hooks"][0]["result"], "deny");
}

/// Version 1 merged shallowly: a project `hooks:` replaced the user's whole.
#[test]
fn hooks_add_up_user_first() {
    let p = project();
    p.write_user("hooks:\n  preToolUse:\n    - command: echo user >&2\n");
    p.write_project("hooks:\n  preToolUse:\n    - command: echo project >&2\n");
    p.write_local("hooks:\n  preToolUse:\n    - command: echo local >&2\n");
    let out = p.fire(json!({ "trusted": true }), "preToolUse");
    let order: Vec<(&Value, &Value)> =
        out["hooks"].as_array().unwrap().iter().map(|h| (&h["index"], &h["stderr"])).collect();
    assert_eq!(
        order,
        [(&json!(0), &json!("user\n")), (&json!(1), &json!("project\n")), (&json!(2), &json!("local\n"))],
        "{out}"
    );
}

/// Issue 9 item 7's attack: the agent writes `.oh/config.local.yaml` with `disableAllHooks`.
#[test]
fn a_project_can_switch_off_only_its_own_hooks() {
    let p = project();
    p.write_user("hooks:\n  preToolUse:\n    - command: echo user >&2; exit 1\n");
    p.write_local("disableAllHooks: true\n");
    let out = p.fire(json!({ "trusted": true }), "preToolUse");
    assert_eq!(out["allowed"], false, "the user's deny still runs: {out}");
    assert_eq!(out["hooks"].as_array().unwrap().len(), 1, "the project's own hooks are off: {out}");
    assert_eq!(out["hooks"][0]["stderr"], "user\n");
    // disableAllHooks in an own layer disables everything.
    p.write_local("");
    p.write_user("disableAllHooks: true\n");
    assert_eq!(p.fire(json!({ "trusted": true }), "preToolUse"), json!({ "allowed": true, "hooks": [] }));
}

/// Issue 9 item 6: version 1 parsed an untrusted project's files before looking at trust, so a
/// config symlinked to a secret had the secret's text copied into the creation error (and a
/// regex bomb aborted the host).
#[test]
fn untrusted_files_are_not_opened() {
    let p = project();
    p.store(&listed(p.home.path()));
    let secret = p.home.path().join("credentials");
    std::fs::write(&secret, "https://me:hunter2-SECRET@github.com\n").unwrap();
    std::fs::remove_file(p.cwd.path().join(".oh/config.yaml")).unwrap();
    std::os::unix::fs::symlink(&secret, p.cwd.path().join(".oh/config.yaml")).unwrap();
    // A FIFO would block whoever opens it without O_NONBLOCK; here nobody opens it at all.
    let fifo = p.cwd.path().join(".oh/config.local.yaml");
    assert_eq!(unsafe { libc::mkfifo(std::ffi::CString::new(fifo.to_str().unwrap()).unwrap().as_ptr(), 0o600) }, 0);
    let e = p.engine(json!({}));
    let out = e.fire(r#"{"event":"preToolUse"}"#).to_json();
    assert!(!out.contains("hunter2"), "{out}");
    assert!(out.contains("config.local.yaml exists and was not loaded"), "{out}");
    // Trusted, the same files are read and refused (which is how version 1 leaked the text).
    let err = Engine::new(Some(&json!({ "cwd": p.cwd.path(), "home": p.home.path(), "trusted": true }).to_string()));
    assert!(err.is_err());
}

#[test]
fn store_written_after_creation_is_noticed() {
    let p = project();
    let e = p.engine(json!({}));
    let fire = || -> Value { serde_json::from_str(&e.fire(r#"{"event":"preToolUse"}"#).to_json()).unwrap() };
    assert_eq!(fire()["hooks"][0]["result"], "deny");
    p.store(&listed(p.home.path()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while fire()["hooks"] != json!([]) {
        assert!(std::time::Instant::now() < deadline, "the new trust store was not noticed");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(fire()["warnings"][0].as_str().unwrap().contains("was not loaded"));
}

/// Run in the home directory, the project file is the user's file: read once, as the user's.
#[test]
fn home_as_cwd_reads_the_file_once() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".oh")).unwrap();
    std::fs::write(home.path().join(".oh/config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 0\n").unwrap();
    let e = Engine::new(Some(&json!({ "cwd": home.path(), "home": home.path() }).to_string())).unwrap();
    let out: Value = serde_json::from_str(&e.fire(r#"{"event":"preToolUse"}"#).to_json()).unwrap();
    assert_eq!(out["hooks"].as_array().unwrap().len(), 1, "{out}");
}

/// Trust withdrawn in the same change as a broken own layer: the old config stays for the
/// user's hooks, but the project's hooks go even so.
#[test]
fn withdrawn_trust_drops_project_hooks_even_when_the_reload_fails() {
    let p = project();
    p.store(&listed(p.cwd.path()));
    p.write_user("hooks:\n  preToolUse:\n    - command: echo user >&2\n");
    let e = p.engine(json!({}));
    let fire = || -> Value { serde_json::from_str(&e.fire(r#"{"event":"preToolUse"}"#).to_json()).unwrap() };
    let before = fire();
    assert_eq!(before["hooks"].as_array().unwrap().len(), 2, "the user's, then the project's deny: {before}");
    p.store(&listed(p.home.path()));
    p.write_user("hooks:\n  preToolUse:\n    - command: x\n      timeout: 0\n");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    let out = loop {
        let out = fire();
        if out.get("warnings").is_some() {
            break out;
        }
        assert!(std::time::Instant::now() < deadline, "the change was not noticed: {out}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(out["hooks"].as_array().unwrap().len(), 1, "only the user's old hook: {out}");
    assert_eq!(out["hooks"][0]["stderr"], "user\n");
    assert!(out["warnings"][0].as_str().unwrap().contains("previous one stays"), "{out}");
}
