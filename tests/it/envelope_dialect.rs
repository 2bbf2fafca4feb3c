//! Envelopes that name a dialect's own event (docs/envelope.md "Dialect event names"):
//! `{"event": "BeforeTool", "dialect": "gemini", ...}` fires the engine event the name maps to,
//! through each registered dialect's event table; the errors name what was wrong. Real engine,
//! real hook processes, real files; the C ABI where the no-match shortcut could answer.

use crate::common::{engine, fire, fire_raw};
use oh_hooks::dialect::registry::REGISTRY;
use oh_hooks::envelope::tools::Kind;
use oh_hooks::{ffi, Engine, Event};
use serde_json::{json, Value};
use std::ffi::{CStr, CString};

/// A tool the engine knows by default, of `kind` (Claude Code's names, `mcp__<server>__<tool>`).
fn tool_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Shell => "Bash",
        Kind::Read => "Read",
        Kind::Write => "Write",
        Kind::Edit => "Edit",
        Kind::Fetch => "WebFetch",
        Kind::Search => "Grep",
        Kind::Glob => "Glob",
        Kind::Agent => "Task",
        Kind::Mcp => "mcp__github__create_issue",
    }
}

/// Every event name of every registered dialect fires the engine event its table maps it to:
/// an openHarness hook on every engine event writes `$OH_EVENT` (which engine event ran) to a
/// log. No dialect option is on: the names are the dialect's tables, not its files.
#[test]
fn every_dialect_event_name_fires_its_engine_event() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("events");
    let hook = json!([{ "command": format!("printf '%s\\n' \"$OH_EVENT\" >> '{}'", log.display()) }]);
    let hooks: serde_json::Map<String, Value> =
        Event::ALL.iter().map(|e| (e.name().to_string(), hook.clone())).collect();
    let e = engine(json!({ "hooks": hooks }), json!({ "waitNonBlocking": true }));
    let mut fired = 0;
    for d in REGISTRY {
        let names = d.event_names();
        assert!(!names.is_empty(), "{} has event names", d.name());
        for name in names {
            let want =
                d.event(name).unwrap_or_else(|| panic!("{}: `{name}` is in event_names but not event()", d.name()));
            let mut envelope = json!({ "event": name, "dialect": d.name(), "sessionId": "s" });
            if let Some(kind) = d.event_kinds(name).first() {
                envelope["toolName"] = json!(tool_of(*kind));
                envelope["toolInput"] = json!({ "command": "ls", "file_path": "a", "path": "a" });
            }
            let out = fire(&e, envelope.clone());
            assert!(out.get("error").is_none(), "{envelope}: {out}");
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            assert_eq!(text.lines().last(), Some(want.name()), "{envelope} fires {want}: {out}");
            fired += 1;
        }
    }
    assert!(fired >= 60, "every registered dialect's names were fired ({fired})");
    // openHarness's own names, as the native dialect.
    let out = fire(&e, json!({ "event": "turnStop", "dialect": "openHarness" }));
    assert!(out.get("error").is_none(), "{out}");
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().last(), Some("turnStop"));
}

/// The dialect's hooks see the fire as their harness would, and no hook sees `dialect`: the
/// engine reads it as it reads `event`. An openHarness jsonIO hook gets the engine's name.
#[test]
fn hooks_see_the_engine_event_and_no_dialect_key() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("stdin");
    let e = engine(
        json!({ "hooks": { "preToolUse": [{ "command": format!("cat > '{}'; echo '{{}}'", seen.display()), "jsonIO": true }] } }),
        json!({}),
    );
    for text in [
        r#"{"event":"BeforeTool","dialect":"gemini","toolName":"Bash","toolInput":{"command":"ls"}}"#,
        r#"{"dialect":"cursor","event":"beforeShellExecution","toolName":"Bash","toolInput":{"command":"ls"}}"#,
        r#"{ "event" : "preToolUse", "dialect" : "claude", "toolName" : "Bash" }"#.replace("preToolUse", "PreToolUse").as_str(),
    ] {
        let out = fire_raw(&e, text);
        assert_eq!(out["allowed"], true, "{text}: {out}");
        let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
        assert_eq!(stdin["event"], "preToolUse", "{text}: {stdin}");
        assert!(stdin.get("dialect").is_none(), "{text}: the hook saw `dialect`: {stdin}");
        assert_eq!(stdin["toolName"], "Bash", "{stdin}");
    }
}

/// A Gemini CLI guard and a Cursor guard (the user's own files) decide a fire named in their
/// own terms, and also one named in another dialect's terms: the name picks the engine event,
/// every dialect's hooks of that event run.
#[test]
fn guards_of_every_dialect_run_whichever_dialect_names_the_event() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let put = |path: &str, text: &str| {
        let p = home.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    put(
        ".gemini/settings.json",
        &json!({ "hooks": { "BeforeTool": [{ "matcher": "run_shell_command", "hooks": [{ "type": "command",
            "command": "if grep -q mkfs; then echo '{\"decision\":\"deny\",\"reason\":\"gemini: no mkfs\"}'; else echo '{}'; fi" }] }] } })
        .to_string(),
    );
    put(
        ".cursor/hooks.json",
        &json!({ "version": 1, "hooks": { "beforeShellExecution": [{
            "command": "if grep -q sudo; then echo '{\"permission\":\"deny\",\"agent_message\":\"cursor: no sudo\"}'; else echo '{\"permission\":\"allow\"}'; fi" }] } })
        .to_string(),
    );
    let options = json!({ "home": home.path(), "cwd": cwd.path(), "trusted": true, "cursor": true, "gemini": true });
    let e = Engine::new(Some(&options.to_string())).unwrap();
    for (event, dialect, command, reason) in [
        ("BeforeTool", "gemini", "mkfs /dev/sda1", "gemini: no mkfs"),
        ("BeforeTool", "gemini", "sudo ls", "cursor: no sudo"),
        ("beforeShellExecution", "cursor", "sudo ls", "cursor: no sudo"),
        ("beforeShellExecution", "cursor", "mkfs /dev/sda1", "gemini: no mkfs"),
        ("PreToolUse", "claude", "mkfs /dev/sda1", "gemini: no mkfs"),
        ("preToolUse", "openHarness", "sudo ls", "cursor: no sudo"),
    ] {
        let envelope =
            json!({ "event": event, "dialect": dialect, "toolName": "Bash", "toolInput": { "command": command } });
        let out = fire(&e, envelope.clone());
        assert_eq!(out["allowed"], false, "{envelope}: {out}");
        assert_eq!(out["reason"], reason, "{envelope}: {out}");
    }
    let out = fire(
        &e,
        json!({ "event": "BeforeTool", "dialect": "gemini", "toolName": "Bash", "toolInput": { "command": "ls" } }),
    );
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["hooks"].as_array().unwrap().len(), 2, "both guards ran: {out}");
}

fn error_of(e: &Engine, envelope: Value) -> (String, String) {
    let out = fire(e, envelope.clone());
    assert_eq!(out["allowed"], false, "{envelope}: {out}");
    assert_eq!(out["hooks"], json!([]), "no hook runs on a bad envelope: {out}");
    let err = &out["error"];
    (err["code"].as_str().unwrap_or_default().to_string(), err["message"].as_str().unwrap_or_default().to_string())
}

/// Each wrong `dialect` or event name is an error naming what was wrong and what is expected.
#[test]
fn bad_dialects_and_names_are_clear_errors() {
    let e = engine(json!({ "hooks": { "preToolUse": [{ "command": "exit 1" }] } }), json!({}));
    let registered: Vec<&str> = REGISTRY.iter().map(|d| d.name()).collect();

    let (code, message) = error_of(&e, json!({ "event": "BeforeTool", "dialect": "gemni", "toolName": "Bash" }));
    assert_eq!(code, "invalid_envelope");
    assert!(message.contains("unknown dialect `gemni`") && message.contains("(did you mean `gemini`?)"), "{message}");
    assert!(message.contains("\"openHarness\""), "{message}");
    for name in &registered {
        assert!(message.contains(&format!("\"{name}\"")), "{message} names {name}");
    }

    for bad in [json!(3), json!(null), json!(["gemini"]), json!({ "name": "gemini" }), json!(true)] {
        let (code, message) = error_of(&e, json!({ "event": "BeforeTool", "dialect": bad, "toolName": "Bash" }));
        assert_eq!(code, "invalid_envelope", "{bad}");
        assert!(message.contains("`dialect` must be a string"), "{bad}: {message}");
    }

    // Another dialect's (or the engine's) name of an event this dialect names otherwise.
    let (code, message) = error_of(&e, json!({ "event": "PreToolUse", "dialect": "gemini", "toolName": "Bash" }));
    assert_eq!(code, "unknown_event");
    assert!(message.contains("unknown gemini event `PreToolUse` (did you mean `BeforeTool`?)"), "{message}");
    for name in ["BeforeTool", "AfterTool", "BeforeAgent", "BeforeModel", "BeforeToolSelection"] {
        assert!(message.contains(name), "{message} lists {name}");
    }
    let (_, message) = error_of(&e, json!({ "event": "preToolUse", "dialect": "gemini", "toolName": "Bash" }));
    assert!(message.contains("(did you mean `BeforeTool`?)"), "{message}");
    let (_, message) = error_of(&e, json!({ "event": "BeforeTool", "dialect": "claude", "toolName": "Bash" }));
    assert!(message.contains("unknown claude event `BeforeTool` (did you mean `PreToolUse`?)"), "{message}");
    // A typo: the nearest of the dialect's names.
    let (code, message) = error_of(&e, json!({ "event": "BeforeTol", "dialect": "gemini", "toolName": "Bash" }));
    assert_eq!(code, "unknown_event");
    assert!(message.contains("(did you mean `BeforeTool`?)"), "{message}");
    let (_, message) =
        error_of(&e, json!({ "event": "beforeShellExecutoin", "dialect": "cursor", "toolName": "Bash" }));
    assert!(
        message.contains("(did you mean `beforeShellExecution`?)") && message.contains("beforeReadFile"),
        "{message}"
    );
    // With `dialect`, a name is that dialect's: an engine name it does not share is unknown.
    let (code, message) = error_of(&e, json!({ "event": "turnStop", "dialect": "cursor" }));
    assert_eq!(code, "unknown_event");
    assert!(message.contains("(did you mean `stop`?)"), "{message}");
    let (code, message) = error_of(&e, json!({ "event": "BeforeTool", "dialect": "openHarness", "toolName": "Bash" }));
    assert_eq!(code, "unknown_event");
    assert!(message.contains("(did you mean `preToolUse`?)"), "{message}");

    // Without `dialect`, a dialect's name is an unknown engine event, with the way to send it.
    let (code, message) = error_of(&e, json!({ "event": "BeforeTool", "toolName": "Bash" }));
    assert_eq!(code, "unknown_event");
    assert!(
        message.contains("gemini's name for `preToolUse`") && message.contains("\"dialect\":\"gemini\""),
        "{message}"
    );
}

/// A tool-specific event fires the generic tool event only for a tool of its kind: named
/// without one, the hooks written for it would silently not run, so it is an error.
#[test]
fn a_tool_specific_event_needs_a_tool_of_its_kind() {
    let e = engine(
        json!({ "hooks": { "preToolUse": [{ "command": "exit 1" }] } }),
        json!({ "tools": { "shell": "shell" } }),
    );
    let (code, message) = error_of(
        &e,
        json!({ "event": "beforeShellExecution", "dialect": "cursor", "toolInput": { "command": "sudo ls" } }),
    );
    assert_eq!(code, "invalid_envelope");
    assert!(message.contains("fires `preToolUse` for a shell tool, but the envelope has no `toolName`"), "{message}");
    let (_, message) =
        error_of(&e, json!({ "event": "beforeShellExecution", "dialect": "cursor", "toolName": "Read" }));
    assert!(message.contains("`toolName` is \"Read\", a read tool"), "{message}");
    let (_, message) = error_of(&e, json!({ "event": "beforeReadFile", "dialect": "cursor", "toolName": "my_reader" }));
    assert!(message.contains("a tool of no known kind") && message.contains("option `tools`"), "{message}");
    // A host tool listed with the kind is one.
    let out = fire(
        &e,
        json!({ "event": "beforeShellExecution", "dialect": "cursor", "toolName": "shell", "toolInput": { "command": "ls" } }),
    );
    assert_eq!(out["allowed"], false, "the openHarness hook ran (exit 1 denies): {out}");
    assert!(out.get("error").is_none(), "{out}");
}

fn fire_c(c: *mut ffi::OhHooks, text: &str) -> Value {
    let t = CString::new(text).unwrap();
    // SAFETY: a live engine and a NUL-terminated envelope.
    let out = unsafe { ffi::oh_hooks_fire(c, t.as_ptr()) };
    // SAFETY: the library returned a NUL-terminated string that is ours to free.
    let s = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string();
    unsafe { ffi::oh_hooks_string_free(out) };
    serde_json::from_str(&s).unwrap()
}

/// Through the C ABI, where the no-match shortcut answers most fires: an envelope with
/// `dialect` is left to the general path, so a dialect's name that maps to an event with no
/// hook is allowed, and an engine name that dialect lacks is still an error (the shortcut,
/// reading only `event`, would have allowed it).
#[test]
fn the_no_match_shortcut_leaves_dialect_envelopes_to_the_general_path() {
    let options = CString::new(r#"{"trusted":true,"config":{"hooks":{"postToolUse":[{"command":"true"}]}}}"#).unwrap();
    // SAFETY: NUL-terminated options, no error slot.
    let c = unsafe { ffi::oh_hooks_new(options.as_ptr(), std::ptr::null_mut()) };
    assert!(!c.is_null());
    let plain = r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"ls"}}"#;
    assert_eq!(fire_c(c, plain), json!({ "allowed": true, "hooks": [] }));
    let out = fire_c(c, r#"{"event":"BeforeTool","dialect":"gemini","toolName":"Bash"}"#);
    assert_eq!(out, json!({ "allowed": true, "hooks": [] }), "BeforeTool is preToolUse, which has no hook");
    for text in [
        r#"{"event":"preToolUse","dialect":"gemini","toolName":"Bash"}"#,
        r#"{"event":"preToolUse","toolName":"Bash","dialect":"nope"}"#,
        r#"{"event":"preToolUse","toolName":"Bash","dialect":7}"#,
        r#"{"event":"preToolUse","dialect":"cursor"}"#.replace("preToolUse", "beforeShellExecution").as_str(),
    ] {
        let out = fire_c(c, text);
        assert_eq!(out["allowed"], false, "{text}: {out}");
        assert!(out["error"]["code"].is_string(), "{text}: {out}");
    }
    // SAFETY: freed once.
    unsafe { ffi::oh_hooks_free(c) };
}
