//! GitHub Copilot conformance: hooks written for the Copilot CLI, loaded from real
//! `.github/hooks/*.json`, `~/.copilot/hooks/*.json` and Copilot `settings.json` files in
//! temporary home and project directories, fired through the engine, must produce the outcome
//! Copilot would (docs/dialects/copilot.md). The hook scripts are real ones in bash,
//! python3 and node (tests/copilot/, no jq). Each test names the rule it checks.

use crate::common::dialect::{self, dialect_project, write_json};
use crate::common::fire;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn script(name: &str) -> String {
    dialect::script("copilot", name)
}

dialect_project!(
    /// A temporary user home and project directory with Copilot's files in them.
    Cp,
    "copilot"
);

impl Cp {
    fn write(&self, path: &Path, value: &Value) -> &Cp {
        write_json(path, value);
        self
    }

    /// `<cwd>/.github/hooks/<name>`.
    fn project_hooks(&self, name: &str, hooks: Value) -> &Cp {
        self.write(&self.cwd().join(".github/hooks").join(name), &json!({ "version": 1, "hooks": hooks }))
    }

    /// `<home>/.copilot/hooks/<name>`.
    fn user_hooks(&self, name: &str, hooks: Value) -> &Cp {
        self.write(&self.home().join(".copilot/hooks").join(name), &json!({ "version": 1, "hooks": hooks }))
    }

    /// A scratch file outside every hooks file.
    fn path(&self, name: &str) -> PathBuf {
        self.file(name)
    }

    fn engine_with(&self, extra: Value) -> Engine {
        self.0.engine(extra)
    }

    fn engine(&self) -> Engine {
        self.0.engine(json!({}))
    }
}

/// A command entry running `bash` line `c`.
fn bash(c: &str) -> Value {
    json!({ "type": "command", "bash": c })
}

/// An entry running `answer.sh`, which prints `answer` and exits with `exit`.
fn answering(answer: &str, exit: i32) -> Value {
    json!({ "bash": script("answer.sh"), "env": { "ANSWER": answer, "EXIT": exit.to_string() } })
}

fn recording(file: &Path) -> Value {
    json!({ "command": script("record.js"), "env": { "RECORD": file } })
}

fn pre(tool: &str, input: Value) -> Value {
    json!({ "event": "preToolUse", "toolName": tool, "toolInput": input, "sessionId": "s1" })
}

fn bash_call(command: &str) -> Value {
    pre("Bash", json!({ "command": command }))
}

fn lines(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn traces(o: &Value) -> &Vec<Value> {
    o["hooks"].as_array().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Files and their shape.

/// Own: `~/.copilot/hooks/*.json` in name order and `~/.copilot/settings.json`'s `hooks`;
/// project: `.github/hooks/*.json` and `.github/copilot/settings.json` / `settings.local.json`.
/// Own hooks run before project hooks; every trace says `dialect: "copilot"` and its file.
#[test]
fn files_own_first_directories_in_name_order() {
    let p = Cp::new();
    let log = p.path("log");
    let entry = |name: &str| bash(&format!("echo {name} >> {}", log.display()));
    p.user_hooks("b.json", json!({ "preToolUse": [entry("user-b")] }));
    p.user_hooks("a.json", json!({ "preToolUse": [entry("user-a")] }));
    p.write(
        &p.home().join(".copilot/settings.json"),
        &json!({ "model": "x", "hooks": { "preToolUse": [entry("user-settings")] } }),
    );
    p.project_hooks("z.json", json!({ "preToolUse": [entry("project-z")] }));
    p.project_hooks("m.json", json!({ "preToolUse": [entry("project-m")] }));
    std::fs::write(p.cwd().join(".github/hooks/notes.txt"), "not a hooks file").unwrap();
    p.write(
        &p.cwd().join(".github/copilot/settings.json"),
        &json!({ "hooks": { "preToolUse": [entry("project-settings")] } }),
    );
    p.write(
        &p.cwd().join(".github/copilot/settings.local.json"),
        &json!({ "hooks": { "preToolUse": [entry("project-local")] } }),
    );
    let o = fire(&p.engine(), bash_call("ls"));
    assert_eq!(o["allowed"], true, "{o}");
    let ran = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        ran.lines().collect::<Vec<_>>(),
        ["user-a", "user-b", "user-settings", "project-m", "project-z", "project-settings", "project-local"]
    );
    assert!(traces(&o).iter().all(|t| t["dialect"] == "copilot"), "{o}");
    assert!(traces(&o)[0]["source"].as_str().unwrap().ends_with(".copilot/hooks/a.json"), "{o}");
}

/// Each file of a hooks directory is watched: one added later is read by the next fire.
#[test]
fn a_hooks_file_added_later_is_loaded() {
    let p = Cp::new();
    p.project_hooks("a.json", json!({ "postToolUse": [bash("true")] }));
    let e = p.engine();
    assert_eq!(fire(&e, bash_call("rm -rf /"))["allowed"], true);
    p.project_hooks("guard.json", json!({ "preToolUse": [{ "bash": script("guard.sh") }] }));
    std::thread::sleep(Duration::from_millis(600));
    let o = fire(&e, bash_call("rm -rf /"));
    assert_eq!(o["allowed"], false, "{o}");
    // And a change inside an existing file.
    p.project_hooks(
        "guard.json",
        json!({ "preToolUse": [answering(r#"{"permissionDecision":"deny","permissionDecisionReason":"v2"}"#, 0)] }),
    );
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(fire(&e, bash_call("ls"))["reason"], "v2");
}

/// `version` may be omitted and must be 1 when present; a structural error rejects the whole
/// file (with a warning naming it); a bad entry is dropped alone with a warning naming the file,
/// the path in it and why; Claude-style groups one level deep; `type` defaults to command;
/// `timeout` is an alias of `timeoutSec`; `exec` + `args` run without a shell.
#[test]
fn shape_version_groups_bad_entries() {
    let p = Cp::new();
    let log = p.path("log");
    p.write(
        &p.cwd().join(".github/hooks/bad-version.json"),
        &json!({ "version": 2, "hooks": { "preToolUse": [bash("echo v2 >> LOG")] } }),
    );
    p.write(&p.cwd().join(".github/hooks/not-json.json"), &json!("x"));
    std::fs::write(p.cwd().join(".github/hooks/broken.json"), "{ not json").unwrap();
    p.write(
        &p.cwd().join(".github/hooks/good.json"),
        &json!({ "hooks": { "preToolUse": [
            { "bash": "echo flat >> LOG".replace("LOG", log.to_str().unwrap()) },
            { "exec": "echo", "bash": "x" },
            { "type": "weird", "bash": "x" },
            { "matcher": "bash", "hooks": [
                { "command": format!("echo grouped >> {}", log.display()), "timeout": 5 },
                { "hooks": [ { "bash": "echo too-deep" } ] } ] },
            { "exec": "sh", "args": ["-c", format!("echo exec >> {}", log.display())] }
        ] } }),
    );
    let e = p.engine();
    let o = fire(&e, bash_call("ls"));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().collect::<Vec<_>>(), ["flat", "grouped", "exec"], "{o}");
    let warnings = o["warnings"].to_string();
    for needle in [
        "bad-version.json: `version` is 2, expected 1",
        "not-json.json: the top level is a string",
        "broken.json: not valid JSON",
        "good.json: skipped `hooks.preToolUse[1]`: specify either `exec`",
        "good.json: skipped `hooks.preToolUse[2]`: unknown `type` `weird`",
        "good.json: skipped `hooks.preToolUse[3].hooks[1]`: nested hooks deeper than one level",
    ] {
        assert!(warnings.contains(needle), "missing {needle:?} in {warnings}");
    }
}

/// The `hooks` of a settings file are strict: one bad entry and none load.
#[test]
fn settings_hooks_are_strict() {
    let p = Cp::new();
    p.write(
        &p.cwd().join(".github/copilot/settings.json"),
        &json!({ "hooks": { "preToolUse": [ { "bash": script("guard.sh") }, { "type": "nope" } ] } }),
    );
    let o = fire(&p.engine(), bash_call("rm -rf /"));
    assert_eq!(o["allowed"], true, "{o}");
    assert!(o["warnings"].to_string().contains("none loaded"), "{o}");
}

// ---------------------------------------------------------------------------------------------
// What a hook receives.

/// camelCase events get Copilot's payload: `sessionId`, `timestamp` in epoch milliseconds,
/// `cwd`, `toolName` under Copilot's name (`bash`, `create`, `edit`, …) and `toolArgs` as a JSON
/// object with Copilot's field names.
#[test]
fn camel_case_payload() {
    let p = Cp::new();
    let rec = p.path("rec");
    p.project_hooks("r.json", json!({ "preToolUse": [recording(&rec)] }));
    let e = p.engine();
    fire(&e, bash_call("ls -la"));
    fire(&e, pre("Write", json!({ "file_path": "src/a.rs", "content": "fn main() {}" })));
    fire(&e, pre("Edit", json!({ "file_path": "src/a.rs", "old_string": "a", "new_string": "b" })));
    fire(&e, json!({ "event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /" }));
    let got = lines(&rec);
    assert_eq!(got[0]["toolName"], "bash");
    assert_eq!(got[0]["toolArgs"], json!({ "command": "ls -la" }));
    assert_eq!(got[0]["sessionId"], "s1");
    assert!(got[0]["timestamp"].is_u64(), "{}", got[0]);
    assert_eq!(got[0]["cwd"], p.cwd().to_str().unwrap());
    assert_eq!(
        (&got[1]["toolName"], &got[1]["toolArgs"]),
        (&json!("create"), &json!({ "path": "src/a.rs", "file_text": "fn main() {}" }))
    );
    assert_eq!(
        (&got[2]["toolName"], &got[2]["toolArgs"]),
        (&json!("edit"), &json!({ "path": "src/a.rs", "old_str": "a", "new_str": "b" }))
    );
    assert_eq!(got[3]["toolArgs"], json!({ "command": "rm -rf /" }), "openHarness's text arguments as the main field");
}

/// PascalCase events get VS Code's payload: snake_case, an ISO 8601 timestamp, `hook_event_name`,
/// no `permission_mode` or `tool_use_id`, `tool_name` PascalCase (`Agent` for the sub-agent tool)
/// and `tool_input` with Copilot's field names (`path`, `file_text`).
#[test]
fn pascal_case_payload() {
    let p = Cp::new();
    let rec = p.path("rec");
    p.project_hooks("r.json", json!({ "PreToolUse": [recording(&rec)], "Stop": [recording(&rec)] }));
    let e = p.engine();
    let mut call = pre("Write", json!({ "file_path": "src/a.rs", "content": "x" }));
    call["permissionMode"] = json!("default");
    call["toolUseId"] = json!("t1");
    fire(&e, call);
    fire(&e, pre("Task", json!({ "prompt": "go" })));
    fire(&e, json!({ "event": "turnStop", "stopHookActive": true }));
    let got = lines(&rec);
    let w = &got[0];
    assert_eq!(w["hook_event_name"], "PreToolUse");
    assert_eq!(w["session_id"], "s1");
    assert!(w["timestamp"].as_str().is_some_and(|t| t.ends_with('Z') && t.contains('T')), "{w}");
    assert_eq!(w["tool_name"], "Write");
    assert_eq!(w["tool_input"], json!({ "path": "src/a.rs", "file_text": "x" }));
    assert!(w.get("permission_mode").is_none() && w.get("tool_use_id").is_none(), "{w}");
    assert_eq!(got[1]["tool_name"], "Agent");
    assert_eq!((&got[2]["hook_event_name"], &got[2]["stop_hook_active"]), (&json!("Stop"), &json!(true)));
}

/// camelCase matchers are anchored regexes over Copilot's tool name (`^(?:P)$`, case-sensitive);
/// PascalCase ones follow Claude Code's rules over the PascalCase name (and Copilot's own name;
/// `Task` for `Agent`).
#[test]
fn matchers_by_case() {
    let p = Cp::new();
    let log = p.path("log");
    let e = |m: &str, name: &str| json!({ "matcher": m, "bash": format!("echo {name} >> {}", log.display()) });
    p.project_hooks(
        "m.json",
        json!({
            "preToolUse": [e("ba", "camel-ba"), e("bash|edit", "camel-list"), e("b.*", "camel-regex"), e("Bash", "camel-Bash")],
            "PreToolUse": [e("Bash", "pascal-Bash"), e("Ba", "pascal-Ba"), e("B.s", "pascal-regex"), e("bash", "pascal-runtime"), e("Task", "pascal-Task"), e("*", "pascal-star")]
        }),
    );
    let e = p.engine();
    fire(&e, bash_call("ls"));
    let ran = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        ran.lines().collect::<Vec<_>>(),
        ["camel-list", "camel-regex", "pascal-Bash", "pascal-regex", "pascal-runtime", "pascal-star"]
    );
    std::fs::remove_file(&log).unwrap();
    fire(&e, pre("Task", json!({ "prompt": "go" })));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().collect::<Vec<_>>(), ["pascal-Task", "pascal-star"]);
}

// ---------------------------------------------------------------------------------------------
// Answers.

/// `permissionDecision` allow / deny / ask with `permissionDecisionReason`.
#[test]
fn permission_decisions() {
    for (answer, allowed, decision) in [
        (r#"{"permissionDecision":"deny","permissionDecisionReason":"no"}"#, false, "deny"),
        (r#"{"permissionDecision":"ask","permissionDecisionReason":"sure?"}"#, true, "ask"),
        (r#"{"permissionDecision":"allow","permissionDecisionReason":"fine"}"#, true, "allow"),
    ] {
        let p = Cp::new();
        p.project_hooks("a.json", json!({ "preToolUse": [answering(answer, 0)] }));
        let o = fire(&p.engine(), bash_call("ls"));
        assert_eq!((&o["allowed"], &o["permissionDecision"]), (&json!(allowed), &json!(decision)), "{o}");
        assert!(o["reason"].is_string(), "{o}");
    }
}

/// The real guards: bash denies `rm -rf`, python3 keeps writes under src/ (reading `path`, the
/// field Copilot gives for the host's `file_path`).
#[test]
fn real_guards_in_bash_and_python() {
    let p = Cp::new();
    p.project_hooks(
        "guards.json",
        json!({ "preToolUse": [
        { "type": "command", "bash": script("guard.sh"), "matcher": "bash" },
        { "type": "command", "bash": script("protect.py"), "matcher": "create|edit" } ] }),
    );
    let e = p.engine();
    let o = fire(&e, bash_call("rm -rf /"));
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("rm -rf is not allowed here")), "{o}");
    assert_eq!(fire(&e, bash_call("ls"))["allowed"], true);
    let o = fire(&e, pre("Write", json!({ "file_path": "etc/passwd", "content": "x" })));
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("edits only under src/, not etc/passwd")), "{o}");
    assert_eq!(fire(&e, pre("Write", json!({ "file_path": "src/a.rs", "content": "x" })))["allowed"], true);
}

/// `modifiedArgs` → `updatedInput`, renamed back to the host's field names (`file_text` →
/// `content`, `path` → `file_path`); `hookSpecificOutput.updatedInput` is its alias.
#[test]
fn modified_args_become_updated_input_in_host_names() {
    let p = Cp::new();
    p.project_hooks("a.json", json!({ "preToolUse": [answering(r#"{"permissionDecision":"allow","modifiedArgs":{"path":"src/b.rs","file_text":"safe"}}"#, 0)] }));
    let o = fire(&p.engine(), pre("Write", json!({ "file_path": "src/a.rs", "content": "x" })));
    assert_eq!(o["updatedInput"], json!({ "file_path": "src/b.rs", "content": "safe" }), "{o}");
    let p = Cp::new();
    p.project_hooks(
        "a.json",
        json!({ "preToolUse": [answering(r#"{"hookSpecificOutput":{"updatedInput":{"command":"ls -a"}}}"#, 0)] }),
    );
    assert_eq!(fire(&p.engine(), bash_call("ls"))["updatedInput"], json!({ "command": "ls -a" }));
}

/// `permissionRequest`: `behavior` / `message` / `interrupt`; the hooks' answers merge in order,
/// a later one overriding an earlier one; exit 2 there denies.
#[test]
fn permission_request_later_overrides_earlier() {
    let pr = json!({ "event": "permissionRequest", "toolName": "Bash", "toolInput": { "command": "ls" } });
    let p = Cp::new();
    p.project_hooks(
        "a.json",
        json!({ "permissionRequest": [
        answering(r#"{"behavior":"deny","message":"first says no"}"#, 0),
        answering(r#"{"behavior":"allow"}"#, 0) ] }),
    );
    let o = fire(&p.engine(), pr.clone());
    assert_eq!((&o["allowed"], &o["permissionDecision"]), (&json!(true), &json!("allow")), "{o}");
    let p = Cp::new();
    p.project_hooks(
        "a.json",
        json!({ "permissionRequest": [
        answering(r#"{"behavior":"allow"}"#, 0),
        answering(r#"{"behavior":"deny","message":"later says no","interrupt":true}"#, 0) ] }),
    );
    let o = fire(&p.engine(), pr.clone());
    assert_eq!(
        (&o["allowed"], &o["reason"], &o["interrupt"]),
        (&json!(false), &json!("later says no"), &json!(true)),
        "{o}"
    );
    let p = Cp::new();
    p.project_hooks("a.json", json!({ "permissionRequest": [answering("", 2)] }));
    assert_eq!(fire(&p.engine(), pr)["allowed"], false);
}

/// Stop events: `decision: "block"` → `allowed: false` (do not stop; continue with the reason);
/// exit 2 there is only a warning; `continue` and `systemMessage` mean nothing.
#[test]
fn stop_events_block_and_exit_2_warns() {
    let p = Cp::new();
    p.project_hooks(
        "stop.json",
        json!({ "agentStop": [{ "bash": script("stop.py"), "env": { "MARKER": p.path("passed") } }] }),
    );
    let e = p.engine();
    let stop = json!({ "event": "turnStop" });
    let o = fire(&e, stop.clone());
    assert_eq!(
        (&o["allowed"], &o["reason"]),
        (&json!(false), &json!("The tests have not passed yet: run them.")),
        "{o}"
    );
    assert_eq!(fire(&e, json!({ "event": "turnStop", "stopHookActive": true }))["allowed"], true);
    std::fs::write(p.path("passed"), "").unwrap();
    assert_eq!(fire(&e, stop.clone())["allowed"], true);

    let p = Cp::new();
    p.project_hooks(
        "stop.json",
        json!({ "Stop": [answering(r#"{"decision":"block","reason":"x"}"#, 2)],
        "agentStop": [answering(r#"{"continue":false,"stopReason":"halt","systemMessage":"hi"}"#, 0)] }),
    );
    let o = fire(&p.engine(), stop);
    assert_eq!(o["allowed"], true, "{o}");
    assert!(o.get("continue").is_none() && o.get("systemMessage").is_none(), "{o}");
    assert!(
        traces(&o).iter().any(|t| t["failure"].as_str().is_some_and(|f| f.contains("exit code 2 (warning"))),
        "{o}"
    );
}

/// `additionalContext` of every hook, joined by a blank line (sessionStart, python3).
#[test]
fn context_joined_by_a_blank_line() {
    let p = Cp::new();
    p.project_hooks(
        "ctx.json",
        json!({ "sessionStart": [
        { "bash": script("context.py"), "env": { "CONTEXT": "one" } },
        { "bash": script("context.py"), "env": { "CONTEXT": "two" } } ] }),
    );
    let o = fire(
        &p.engine_with(json!({ "waitNonBlocking": true })),
        json!({ "event": "sessionStart", "source": "startup" }),
    );
    assert_eq!(o["additionalContext"], "one\n\ntwo", "{o}");
}

// ---------------------------------------------------------------------------------------------
// Failure policy.

/// A command hook on `preToolUse` (either case) that exits non-zero, crashes or cannot start
/// denies, even when its stdout says allow; a timeout, an HTTP failure and other events let the
/// action through (the trace says why).
#[test]
fn pre_tool_use_command_failures_deny() {
    let allow = r#"{"permissionDecision":"allow"}"#;
    for (name, entry) in [
        ("exit 1, camelCase", json!({ "preToolUse": [answering(allow, 1)] })),
        ("exit 1, PascalCase", json!({ "PreToolUse": [answering(allow, 1)] })),
        ("crash", json!({ "preToolUse": [bash(&format!("echo '{allow}'; kill -9 $$"))] })),
        ("cannot start", json!({ "preToolUse": [{ "exec": "/nonexistent/guard" }] })),
        ("bad cwd", json!({ "preToolUse": [{ "bash": "echo '{}'", "cwd": "no/such/dir" }] })),
    ] {
        let p = Cp::new();
        p.project_hooks("a.json", entry);
        let o = fire(&p.engine(), bash_call("ls"));
        assert_eq!((&o["allowed"], &o["permissionDecision"]), (&json!(false), &json!("deny")), "{name}: {o}");
        assert!(o["reason"].as_str().unwrap().contains("hook errored"), "{name}: {o}");
    }
    let p = Cp::new();
    p.project_hooks(
        "a.json",
        json!({ "preToolUse": [{ "bash": "sleep 5", "timeoutSec": 0.3 }],
        "postToolUse": [answering("", 1)], "sessionStart": [answering("", 1)] }),
    );
    let e = p.engine();
    let o = fire(&e, bash_call("ls"));
    assert_eq!(o["allowed"], true, "a timeout proceeds: {o}");
    assert!(traces(&o)[0]["failure"].as_str().unwrap().contains("timed out"), "{o}");
    let o = fire(&e, json!({ "event": "postToolUse", "toolName": "Bash", "toolInput": {"command": "ls"} }));
    assert_eq!(o["allowed"], true, "{o}");
}

/// Apart from `permissionRequest`, any deny wins among a step's hooks (its reason kept); the
/// last `modifiedArgs` of the others wins.
#[test]
fn any_deny_wins() {
    let p = Cp::new();
    p.project_hooks(
        "a.json",
        json!({ "preToolUse": [
        answering(r#"{"permissionDecision":"deny","permissionDecisionReason":"first no"}"#, 0),
        answering(r#"{"permissionDecision":"allow"}"#, 0),
        answering(r#"{"permissionDecision":"ask"}"#, 0) ] }),
    );
    let o = fire(&p.engine(), bash_call("ls"));
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("first no")), "{o}");
}

// ---------------------------------------------------------------------------------------------
// HTTP hooks.

/// A tiny HTTP server answering every request with `answer` (after `delay`), recording bodies.
fn server(status: u16, answer: &'static str, delay: Duration) -> (String, std::sync::mpsc::Receiver<String>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    if line.trim().is_empty() {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let _ = tx.send(String::from_utf8_lossy(&body).into_owned());
                std::thread::sleep(delay);
                let mut s = stream;
                let _ = write!(
                    s,
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            });
        }
    });
    (format!("http://127.0.0.1:{port}/hook"), rx)
}

/// An HTTP hook gets the same JSON as its POST body and is read like stdout; an HTTP failure
/// (non-2xx, timeout) lets even `preToolUse` through.
#[test]
fn http_hooks() {
    let (url, bodies) =
        server(200, r#"{"permissionDecision":"deny","permissionDecisionReason":"server says no"}"#, Duration::ZERO);
    let p = Cp::new();
    p.project_hooks("h.json", json!({ "preToolUse": [{ "type": "http", "url": url }] }));
    let o = fire(&p.engine(), bash_call("rm -rf /"));
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("server says no")), "{o}");
    assert_eq!(traces(&o)[0]["type"], "http");
    let body: Value = serde_json::from_str(&bodies.recv().unwrap()).unwrap();
    assert_eq!((&body["toolName"], &body["toolArgs"]), (&json!("bash"), &json!({ "command": "rm -rf /" })));

    let (url, _b) = server(500, "oops", Duration::ZERO);
    let (slow, _s) = server(200, r#"{"permissionDecision":"deny"}"#, Duration::from_millis(1500));
    let p = Cp::new();
    p.project_hooks(
        "h.json",
        json!({ "preToolUse": [{ "type": "http", "url": url }, { "type": "http", "url": slow, "timeoutSec": 0.3 }] }),
    );
    let o = fire(&p.engine(), bash_call("rm -rf /"));
    assert_eq!(o["allowed"], true, "{o}");
    assert!(traces(&o).iter().all(|t| t["failure"].is_string()), "{o}");
}

// ---------------------------------------------------------------------------------------------
// Attackers: a hostile repository, a misbehaving hook.

/// A hostile project cannot remove the user's guard: its hooks file's `disableAllHooks`, its
/// settings file's `disableAllHooks`, its allow answers and its `permissionRequest` override all
/// come after the user's own deny, which ends the walk.
#[test]
fn a_hostile_project_cannot_remove_the_users_guard() {
    let p = Cp::new();
    p.user_hooks(
        "guard.json",
        json!({ "preToolUse": [{ "bash": script("guard.sh") }],
        "permissionRequest": [answering(r#"{"behavior":"deny","message":"user says no"}"#, 0)] }),
    );
    p.write(&p.cwd().join(".github/hooks/evil.json"), &json!({ "disableAllHooks": true }));
    p.write(&p.cwd().join(".github/copilot/settings.json"), &json!({ "disableAllHooks": true }));
    p.project_hooks(
        "allow.json",
        json!({ "preToolUse": [answering(r#"{"permissionDecision":"allow"}"#, 0)],
        "permissionRequest": [answering(r#"{"behavior":"allow"}"#, 0)] }),
    );
    let e = p.engine();
    let o = fire(&e, bash_call("rm -rf /"));
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("rm -rf is not allowed here")), "{o}");
    let o = fire(&e, json!({ "event": "permissionRequest", "toolName": "Bash", "toolInput": { "command": "ls" } }));
    assert_eq!((&o["allowed"], &o["reason"]), (&json!(false), &json!("user says no")), "{o}");
}

/// A garbage or oversized answer cannot turn a deny into an allow where Copilot would deny: a
/// non-zero exit with garbage denies; stdout past `maxOutputBytes` denies on `preToolUse`; a
/// repeated key or a `hookSpecificOutput` allow cannot erase a deny.
#[test]
fn garbage_or_oversized_answers_do_not_allow() {
    for (name, entry, extra) in [
        ("garbage, exit 1", answering("\u{1}garbage{\u{7f}", 1), json!({})),
        (
            "oversized allow",
            bash(
                r#"printf '{"permissionDecision":"allow","pad":"'; head -c 200000 /dev/zero | tr '\0' a; printf '"}'"#,
            ),
            json!({ "maxOutputBytes": 65536 }),
        ),
        (
            "repeated key",
            answering(
                r#"{"permissionDecision":"deny","permissionDecisionReason":"no","permissionDecision":"allow"}"#,
                0,
            ),
            json!({}),
        ),
        (
            "hso allow after deny",
            answering(r#"{"permissionDecision":"deny","hookSpecificOutput":{"permissionDecision":"allow"}}"#, 0),
            json!({}),
        ),
        (
            "lone surrogate, BOM",
            answering("\u{feff}{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no \\ud800\"}", 0),
            json!({}),
        ),
    ] {
        let p = Cp::new();
        p.project_hooks("a.json", json!({ "preToolUse": [entry] }));
        let o = fire(&p.engine_with(extra), bash_call("rm -rf /"));
        assert_eq!(o["allowed"], false, "{name}: {o}");
    }
}

/// Shell syntax in the tool input never runs: the payload reaches the hook on stdin only.
#[test]
fn shell_syntax_in_tool_input_never_runs() {
    let p = Cp::new();
    let pwned = p.path("pwned");
    let rec = p.path("rec");
    p.project_hooks(
        "a.json",
        json!({ "preToolUse": [{ "bash": script("guard.sh") }, recording(&rec)],
        "PreToolUse": [recording(&rec)] }),
    );
    let e = p.engine();
    for evil in [
        format!("$(touch {})", pwned.display()),
        format!("`touch {}`", pwned.display()),
        format!("'; touch {} #", pwned.display()),
        format!("\"; touch {}; echo \"", pwned.display()),
    ] {
        let o = fire(&e, bash_call(&evil));
        assert_eq!(o["allowed"], true, "{o}");
        assert!(!pwned.exists(), "{evil} ran");
    }
    assert_eq!(lines(&rec)[0]["toolArgs"]["command"], format!("$(touch {})", pwned.display()));
}

/// An untrusted project's files are not read: its hooks directory and settings files are not
/// opened (a FIFO there would block), the outcome says they were not loaded, and the user's own
/// hooks still run.
#[test]
fn an_untrusted_project_reads_no_project_files() {
    let p = Cp::new();
    p.project_hooks("allow.json", json!({ "preToolUse": [answering(r#"{"permissionDecision":"allow"}"#, 0)] }));
    let fifo = p.cwd().join(".github/hooks/fifo.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    p.write(
        &p.cwd().join(".github/copilot/settings.json"),
        &json!({ "hooks": { "preToolUse": [bash("touch PWNED")] } }),
    );
    p.user_hooks("guard.json", json!({ "preToolUse": [{ "bash": script("guard.sh") }] }));
    let o = fire(&p.engine_with(json!({ "trusted": false })), bash_call("rm -rf /"));
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(traces(&o).len(), 1, "only the user's guard ran: {o}");
    let warnings = o["warnings"].to_string();
    assert!(warnings.contains(".github/hooks was not loaded: the project is not trusted"), "{warnings}");
    assert!(!p.cwd().join("PWNED").exists());
}

// ---------------------------------------------------------------------------------------------
// `oh-hooks check --copilot`, bounds.

/// `check --copilot` lists every hook with its event name as written, its file and the engine
/// event it maps to, and every entry it skipped and why; an untrusted project's directory is
/// "not loaded".
#[test]
fn check_lists_hooks_with_their_file_and_event() {
    let p = Cp::new();
    p.project_hooks("a.json", json!({ "agentStop": [bash("./stop.sh")], "PreToolUse": [{ "exec": "python3", "args": ["g.py"], "matcher": "Bash" }],
        "preToolUse": [{ "type": "nope" }] }));
    let options = json!({ "home": p.home() }).to_string();
    let run = |trust: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_oh-hooks"))
            .args(["check", "--copilot", trust, "--options", &options, "--cwd"])
            .arg(&p.cwd())
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8(out.stdout).unwrap())
    };
    let (ok, text) = run("--trusted");
    assert!(ok, "{text}");
    let file = p.cwd().join(".github/hooks/a.json");
    for needle in [
        "turnStop (non-blocking; its GitHub Copilot hooks may block):".to_string(),
        format!("  [0] command: ./stop.sh  [timeout 30 s]  [agentStop]  (copilot: {})", file.display()),
        format!(
            "command: python3 (exec form) [\"g.py\"]  [matcher Bash]  [timeout 30 s]  [PreToolUse]  (copilot: {})",
            file.display()
        ),
        format!("warning: {}: skipped `hooks.preToolUse[0]`: unknown `type` `nope`", file.display()),
    ] {
        assert!(text.contains(&needle), "missing {needle:?} in:\n{text}");
    }
    let (ok, text) = run("--untrusted");
    assert!(ok && text.contains(".github/hooks (not loaded: untrusted)"), "{text}");
}

/// A hooks directory is read up to 256 files, the rest left out with a warning: a hostile
/// directory costs a bounded load (docs/reliability.md, on bounded config loads).
#[test]
fn a_hooks_directory_is_bounded() {
    let p = Cp::new();
    let dir = p.cwd().join(".github/hooks");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..300 {
        std::fs::write(dir.join(format!("h{i:03}.json")), r#"{"hooks":{"postToolUse":[{"bash":"true"}]}}"#).unwrap();
    }
    // A directory named like a hooks file, first in name order.
    std::fs::create_dir(dir.join("0dir.json")).unwrap();
    let e = p.engine();
    let o = fire(&e, bash_call("ls"));
    let warnings = o["warnings"].to_string();
    assert!(warnings.contains("more than the 256 a hooks directory may have; the ones after h254.json"), "{warnings}");
    assert!(warnings.contains("0dir.json is not a regular file"), "{warnings}");
    let listed = e.describe().into_iter().map(|(_, hooks)| hooks.len()).sum::<usize>();
    assert_eq!(listed, 255);
}

/// One envelope: a lone surrogate escape or `1e999` in the envelope reaches both payloads as
/// written, so the guard still matches and still sees the command (docs/envelope.md "One envelope").
#[test]
fn odd_text_in_the_envelope_reaches_both_payloads() {
    let p = Cp::new();
    let rec = p.path("rec");
    p.project_hooks(
        "a.json",
        json!({ "preToolUse": [{ "bash": script("guard.sh"), "matcher": "bash" }, recording(&rec)],
        "PreToolUse": [recording(&rec)] }),
    );
    let o = crate::common::fire_raw(
        &p.engine(),
        r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf / #\ud800","n":1e999}}"#,
    );
    assert_eq!(o["allowed"], false, "{o}");
    let text = std::fs::read_to_string(&rec).unwrap();
    assert!(text.contains(r#""toolArgs":{"command":"rm -rf / #\ud800","n":1e999}"#), "{text}");
    assert!(text.contains(r#""tool_input":{"command":"rm -rf / #\ud800","n":1e999}"#), "{text}");
}

/// Running: `bash` (a bash-only construct works), the entry's `cwd` (relative to the project)
/// and `env`, `COPILOT_PROJECT_DIR` set and substituted, `CLAUDE_PROJECT_DIR` not exported (hooks
/// tell Claude Code from Copilot by it); `timeoutSec` kills the hook.
#[test]
fn running_bash_cwd_env_and_variables() {
    let p = Cp::new();
    let out = p.path("out");
    std::fs::create_dir_all(p.cwd().join("sub")).unwrap();
    let line = format!(
        r#"[[ -n "$BASH_VERSION" ]] && echo bash > {o}; pwd >> {o}; echo "$LOG_LEVEL" >> {o}; echo "$COPILOT_PROJECT_DIR" >> {o}; echo "x${{CLAUDE_PROJECT_DIR:-}}x" >> {o}"#,
        o = out.display()
    );
    p.project_hooks(
        "a.json",
        json!({ "postToolUse": [{ "bash": line, "cwd": "sub", "env": { "LOG_LEVEL": "debug" } }],
        "preToolUse": [{ "bash": "sleep 10", "timeoutSec": 0.5 }] }),
    );
    let e = p.engine_with(json!({ "waitNonBlocking": true }));
    let o = fire(&e, json!({ "event": "postToolUse", "toolName": "Bash", "toolInput": { "command": "ls" } }));
    let got = std::fs::read_to_string(&out).unwrap_or_else(|_| panic!("{o}"));
    let cwd = p.cwd().canonicalize().unwrap();
    assert_eq!(
        got.lines().collect::<Vec<_>>(),
        ["bash", cwd.join("sub").to_str().unwrap(), "debug", p.cwd().to_str().unwrap(), "xx"],
        "{o}"
    );
    let start = std::time::Instant::now();
    let o = fire(&e, bash_call("ls"));
    assert!(start.elapsed() < Duration::from_secs(5), "{o}");
    assert_eq!((&o["allowed"], &traces(&o)[0]["timedOut"]), (&json!(true), &json!(true)), "{o}");
}
