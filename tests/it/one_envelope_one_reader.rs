//! No input switches a guard off (docs/envelope.md "One envelope", "Host tools", "Reading answers", "Size
//! never decides"): one envelope reaches every hook intact, every answer of every path goes through the
//! one tolerant reader, size never decides, and openHarness's `toolArgs` text reaches a stock
//! Claude Code guard as `tool_input.command`. Real engines, real hook processes, a real HTTP
//! server.

use crate::common::{engine, fire_raw, one_hook, trace};
use oh_hooks::host::{self, HostFunction};
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A project with a Claude Code settings file, trusted.
struct Claude {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
    engine: Engine,
}

fn claude(hooks: Value, extra: Value) -> Claude {
    claude_and_oh(hooks, extra, None)
}

/// [`claude`], with a project `.oh/config.yaml` too.
fn claude_and_oh(hooks: Value, extra: Value, oh: Option<&str>) -> Claude {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("repo");
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    if let Some(oh) = oh {
        std::fs::create_dir_all(cwd.join(".oh")).unwrap();
        std::fs::write(cwd.join(".oh/config.yaml"), oh).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    std::fs::write(cwd.join(".claude/settings.json"), json!({ "hooks": hooks }).to_string()).unwrap();
    let mut options = json!({ "cwd": cwd, "home": dir.path().join("home"), "claude": true, "trusted": true });
    options.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
    let engine = Engine::new(Some(&options.to_string())).unwrap();
    Claude { _dir: dir, cwd, engine }
}

fn pre_tool_use(matcher: &str, command: &str) -> Value {
    json!({ "PreToolUse": [ { "matcher": matcher, "hooks": [ { "type": "command", "command": command } ] } ] })
}

/// A shell script file (so the tests need no quoting of quotes inside JSON strings).
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// The stock Claude Code Bash guard: `jq -r .tool_input.command`, exit 2 on `rm -rf`.
const JQ_GUARD: &str = r#"cmd=$(jq -r '.tool_input.command // empty'); case "$cmd" in *"rm -rf"*) echo "no rm -rf: $cmd" >&2; exit 2;; esac; exit 0"#;

/// The same guard in Python, answering with JSON.
const PY_GUARD: &str = r#"python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d.get("tool_input", {}).get("command", "")
if "rm -rf" in c:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "blocked: " + c}}))
'"#;

// ------------------------------------------------------------------ one envelope

/// Issue 16 item 1: a lone surrogate escape, `1e999` or `-1e400` anywhere in the envelope left
/// Claude Code hooks with an empty input (`{"allowed":true,"hooks":[]}`).
#[test]
fn odd_text_in_the_envelope_reaches_claude_code_matchers_and_stdin() {
    // Python's reader takes a lone surrogate escape as Node's does (jq refuses it: a jq guard
    // should treat jq's failure as a deny, docs/envelope.md "One envelope").
    let c = claude(pre_tool_use("Bash", PY_GUARD), json!({}));
    for envelope in [
        r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf / #\ud800"}}"#,
        r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf /"},"score":1e999}"#,
        r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf /","n":-1e400}}"#,
        r#"{"event":"preToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"session_id":"\udc00"}"#,
    ] {
        let o = fire_raw(&c.engine, envelope);
        assert_eq!(o["allowed"], false, "{envelope}: {o}");
        assert_eq!(o["permissionDecision"], "deny", "{envelope}: {o}");
        assert_eq!(trace(&o)["result"], "deny", "{envelope}: {o}");
    }
    // Stdin carries every field as written: the surrogate escape and the number included.
    let record = c.cwd.join("stdin.json");
    let c2 = claude(pre_tool_use("*", &format!("cat > '{}'", record.display())), json!({}));
    let o = fire_raw(
        &c2.engine,
        r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"x \ud800"},"score":1e999,"n":-1e400}"#,
    );
    assert_eq!(o["allowed"], true, "{o}");
    let stdin = std::fs::read_to_string(&record).unwrap();
    for part in [r#""tool_name":"Bash""#, r#""tool_input":{"command":"x \ud800"}"#, r#""score":1e999"#, r#""n":-1e400"#]
    {
        assert!(stdin.contains(part), "stdin lacks {part}: {stdin}");
    }
}

/// Issue 16 item 1, second half: the envelope after an openHarness `updatedInput` rewrite was
/// parsed again, emptied by the same text, and reached the Claude Code hooks without `toolName`.
#[test]
fn the_envelope_after_a_rewrite_keeps_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let rewrite = script(
        dir.path(),
        "rewrite.sh",
        r#"cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"updatedInput":{"command":"rm -rf /"}}}'"#,
    );
    let oh = format!("hooks:\n  preToolUse:\n    - command: {rewrite}\n      jsonIO: true\n");
    let c = claude_and_oh(pre_tool_use("Bash", PY_GUARD), json!({}), Some(&oh));
    let o = fire_raw(
        &c.engine,
        r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"ls"},"note":"\ud800","n":1e999}"#,
    );
    assert_eq!(o["allowed"], false, "the Claude Code guard sees the rewritten command: {o}");
    assert_eq!(o["hooks"].as_array().unwrap().len(), 2, "{o}");
    assert_eq!(o["reason"], "blocked: rm -rf /", "{o}");
}

/// Issue 16 item 5: an `OH_*` variable whose field holds a lone surrogate was unset, so an
/// env-mode guard allowed `rm -rf / #\ud800`; it is set with U+FFFD in its place.
#[test]
fn a_variable_with_a_lone_surrogate_is_set_with_u_fffd() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("args");
    let guard = format!(
        r#"printf '%s' "$OH_TOOL_ARGS" > '{}'; case "$OH_TOOL_ARGS" in *"rm -rf"*) exit 1;; esac"#,
        out.display()
    );
    let e = one_hook(json!({ "command": guard }), json!({}));
    let o = fire_raw(&e, r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf / #\ud800"}"#);
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "rm -rf / #\u{FFFD}");
    // OH_PROMPT and effort.level too.
    let guard = format!(r#"printf '%s|%s' "$OH_PROMPT" "$OH_EFFORT" > '{}'"#, out.display());
    let e = engine(json!({ "hooks": { "userPromptSubmit": [ { "command": guard } ] } }), json!({}));
    let o = fire_raw(&e, r#"{"event":"userPromptSubmit","prompt":"a\udfffb","effort":{"level":"x\ud800","n":1e999}}"#);
    assert_eq!(o["allowed"], true, "{o}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "a\u{FFFD}b|x\u{FFFD}");
}

/// Issue 22 item 1: the README's envelope (`toolArgs` as text) reached a stock Claude Code Bash
/// guard with no `tool_input`, so `rm -rf /` was allowed. The text is now the tool kind's main
/// field (`command` for Bash).
#[test]
fn tool_args_text_reaches_stock_claude_code_guards_as_tool_input_command() {
    let envelope = r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf /"}"#;
    for guard in [JQ_GUARD, PY_GUARD] {
        let c = claude(pre_tool_use("Bash", guard), json!({}));
        let o = fire_raw(&c.engine, envelope);
        assert_eq!(o["allowed"], false, "{guard}: {o}");
        assert_eq!(o["permissionDecision"], "deny", "{o}");
        assert!(o["reason"].as_str().unwrap().contains("rm -rf /"), "{o}");
    }
    // Other kinds get their own main field; an unknown tool keeps `tool_args` only; JSON text of
    // an object is still the input (1.1).
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("stdin");
    let c = claude(pre_tool_use("*", &format!("cat >> '{}'", record.display())), json!({}));
    for (tool, args) in
        [("Read", "/etc/passwd"), ("WebFetch", "http://x"), ("Grep", "secret"), ("Task", "go"), ("MyTool", "z")]
    {
        fire_raw(&c.engine, &json!({ "event": "preToolUse", "toolName": tool, "toolArgs": args }).to_string());
    }
    fire_raw(&c.engine, r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"{\"command\": \"ls\"}"}"#);
    let lines: Vec<Value> =
        std::fs::read_to_string(&record).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let inputs: Vec<&Value> = lines.iter().map(|l| &l["tool_input"]).collect();
    assert_eq!(
        inputs,
        [
            // Claude Code's Read field (contract 1.2 host tools: each dialect's own field names).
            &json!({"file_path": "/etc/passwd"}),
            &json!({"url": "http://x"}),
            &json!({"pattern": "secret"}),
            &json!({"prompt": "go"}),
            &Value::Null,
            &json!({"command": "ls"})
        ]
    );
    assert_eq!(lines[4]["tool_args"], "z");
    // `if` rules read it too.
    let c = claude(
        json!({ "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "if": "Bash(rm *)", "command": "echo no >&2; exit 2" } ] } ] }),
        json!({}),
    );
    assert_eq!(fire_raw(&c.engine, envelope)["allowed"], false);
}

// ------------------------------------------------------------------ one reader: Claude Code

const DENY_SURROGATE: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked: rm -rf / #\ud800"}}"#;

/// Issue 16 item 2: a Claude Code deny whose reason holds a lone surrogate escape (what Python's
/// `json.dumps` writes for one) was unparseable, and the call proceeded.
#[test]
fn a_claude_code_deny_with_a_lone_surrogate_denies() {
    let dir = tempfile::tempdir().unwrap();
    let hook = script(dir.path(), "h.sh", &format!("cat >/dev/null; printf '%s' '{DENY_SURROGATE}'"));
    let c = claude(pre_tool_use("Bash", &hook), json!({}));
    let o = fire_raw(&c.engine, r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf /"}}"#);
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(o["reason"], "blocked: rm -rf / #\u{FFFD}", "{o}");
    // The echoing Python guard with a real lone surrogate in its input.
    let c = claude(pre_tool_use("Bash", PY_GUARD), json!({}));
    let o =
        fire_raw(&c.engine, r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf / #\ud800"}}"#);
    assert_eq!(o["allowed"], false, "{o}");
}

/// Issue 16 items 19 and 9: a leading byte-order mark, and a repeated `hookSpecificOutput` (a
/// later allow object or `null`), turned a Claude Code deny into an allow or into nothing.
#[test]
fn a_claude_code_deny_with_a_bom_or_a_repeated_object_denies() {
    let dir = tempfile::tempdir().unwrap();
    let deny = r#"{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}"#;
    let allow = r#"{"hookEventName":"PreToolUse","permissionDecision":"allow"}"#;
    for (name, body) in [
        ("bom", format!("\\357\\273\\277{{\"hookSpecificOutput\":{deny}}}")),
        ("repeated-allow", format!("{{\"hookSpecificOutput\":{deny},\"hookSpecificOutput\":{allow}}}")),
        ("repeated-null", format!("{{\"hookSpecificOutput\":{deny},\"hookSpecificOutput\":null}}")),
        ("repeated-decision", "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecision\":\"allow\",\"hookEventName\":\"Other\"}}".to_string()),
        ("invalid-utf8", "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"cut \\342\\202\"}}".to_string()),
    ] {
        let hook = script(dir.path(), name, &format!("cat >/dev/null; printf '{}'", body.replace('%', "%%")));
        let c = claude(pre_tool_use("Bash", &hook), json!({}));
        let o = fire_raw(&c.engine, r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf /"}}"#);
        assert_eq!(o["allowed"], false, "{name}: {o}");
        assert_eq!(o["permissionDecision"], "deny", "{name}: {o}");
        assert!(trace(&o).get("failure").is_none(), "{name}: {o}");
    }
}

/// Issue 16 item 3: padding the tool input past `maxOutputBytes` made an echoing guard's deny
/// count as "proceed" (`pad=1100000: allowed=True failure=stdout exceeded maxOutputBytes`).
#[test]
fn an_overflowing_claude_code_answer_blocks() {
    let c = claude(pre_tool_use("Bash", PY_GUARD), json!({}));
    let pad = "x".repeat(1_100_000);
    let o = fire_raw(
        &c.engine,
        &json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": format!("rm -rf / #{pad}") } })
            .to_string(),
    );
    assert_eq!(o["allowed"], false, "{}", &o.to_string()[..400.min(o.to_string().len())]);
    assert_eq!(o["permissionDecision"], "deny");
    let t = trace(&o);
    assert_eq!(t["result"], "deny");
    assert!(t["failure"].as_str().unwrap().contains("exceeded maxOutputBytes"), "{t}");
    assert!(o["reason"].as_str().unwrap().contains("not read, so it blocks"), "{}", o["reason"]);
    // Below the cap the guard's own reason; on an event it cannot block, overflow stays a failure.
    let o = fire_raw(&c.engine, r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf /"}}"#);
    assert_eq!(o["reason"], "blocked: rm -rf /");
    let c = claude(
        json!({ "PostToolUse": [ { "hooks": [ { "type": "command", "command": "head -c 2000000 /dev/zero | tr '\\0' ' '" } ] } ] }),
        json!({ "waitNonBlocking": true }),
    );
    let o = fire_raw(&c.engine, r#"{"event":"postToolUse","toolName":"Bash"}"#);
    assert_eq!(o["allowed"], true, "{o}");
}

// ------------------------------------------------------------------ one reader: openHarness paths

const OH_DENY_CUT: &[u8] = b"{\"decision\":\"deny\",\"reason\":\"cut \xe2\x82\"}";

/// Issue 16 item 11 (jsonIO and persistent workers), item 19 and 2 for openHarness answers:
/// invalid UTF-8 made the answer malformed (no decision); a BOM too; a lone surrogate in the
/// reason lost the reason.
#[test]
fn openharness_jsonio_and_persistent_answers_are_read_whatever_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cut"), OH_DENY_CUT).unwrap();
    std::fs::write(dir.path().join("bom"), b"\xef\xbb\xbf{\"decision\":\"deny\",\"reason\":\"bom\"}").unwrap();
    std::fs::write(dir.path().join("surrogate"), br#"{"decision":"deny","reason":"rm \ud800"}"#).unwrap();
    std::fs::write(
        dir.path().join("repeated"),
        br#"{"hookSpecificOutput":{"decision":"deny","reason":"r"},"hookSpecificOutput":null}"#,
    )
    .unwrap();
    let want = [("cut", "cut \u{FFFD}"), ("bom", "bom"), ("surrogate", "rm \u{FFFD}"), ("repeated", "r")];
    for (file, reason) in want {
        let path = dir.path().join(file).display().to_string();
        let e = one_hook(json!({ "command": format!("cat >/dev/null; cat '{path}'"), "jsonIO": true }), json!({}));
        let o = fire_raw(&e, r#"{"event":"preToolUse","toolName":"Bash"}"#);
        assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!(reason)), "jsonIO {file}: {o}");
        // A persistent worker answering the same, one line per request.
        let worker =
            script(dir.path(), &format!("w-{file}"), &format!("while read -r line; do cat '{path}'; echo; done"));
        let e = one_hook(json!({ "command": worker, "persistent": true }), json!({}));
        for _ in 0..2 {
            let o = fire_raw(&e, r#"{"event":"preToolUse","toolName":"Bash"}"#);
            assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!(reason)), "persistent {file}: {o}");
        }
    }
}

/// Answers every call with `bytes`.
struct Bytes(&'static [u8]);

impl HostFunction for Bytes {
    fn call(&self, _request: &str, call: u64) {
        host::answer(call, Some(self.0.to_vec()));
    }
}

/// Item 11 for callbacks and HTTP hooks.
#[test]
fn callback_and_http_answers_are_read_whatever_the_bytes() {
    let e = one_hook(json!({ "callback": "canUseTool" }), json!({}));
    e.register("canUseTool", Some(Arc::new(Bytes(OH_DENY_CUT))));
    let o = fire_raw(&e, r#"{"event":"preToolUse","toolName":"Bash"}"#);
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("cut \u{FFFD}")), "callback: {o}");

    let url = serve_bytes(OH_DENY_CUT);
    let e = one_hook(json!({ "http": url }), json!({}));
    let o = fire_raw(&e, r#"{"event":"preToolUse","toolName":"Bash"}"#);
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("cut \u{FFFD}")), "http: {o}");

    // A Claude Code HTTP hook answering with a byte-order mark.
    let url = serve_bytes(
        b"\xef\xbb\xbf{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"http no\"}}",
    );
    let c = claude(json!({ "PreToolUse": [ { "hooks": [ { "type": "http", "url": url } ] } ] }), json!({}));
    let o = fire_raw(&c.engine, r#"{"event":"preToolUse","toolName":"Bash"}"#);
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("http no")), "claude http: {o}");
}

/// An HTTP server on 127.0.0.1 answering every POST with `body`; its URL.
fn serve_bytes(body: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
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
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 {
                            return;
                        }
                        let h = h.trim_end();
                        if h.is_empty() {
                            break;
                        }
                        if let Some((n, v)) = h.split_once(':') {
                            if n.eq_ignore_ascii_case("content-length") {
                                length = v.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut b = vec![0; length];
                    if reader.read_exact(&mut b).is_err() {
                        return;
                    }
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        body.len()
                    );
                    if writer.write_all(head.as_bytes()).and_then(|_| writer.write_all(body)).is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}/")
}
