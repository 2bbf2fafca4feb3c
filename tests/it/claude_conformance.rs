//! Claude Code conformance: hooks written for Claude Code, loaded from real `.claude/settings.json`
//! files in temporary home and project directories (and plugin `hooks/hooks.json`), fired through
//! the engine, must produce the outcome Claude Code would (docs/dialects/claude.md "Claude Code hooks"). The hook
//! scripts are real ones in bash, python3 and node (tests/claude/, no jq). Each test names the
//! behaviour of Claude Code it checks; the reference is Claude Code's hooks documentation.
//!
//! Known gaps: a feature the engine does not implement yet is marked `#[ignore = "known gap: …"]`
//! and listed in `KNOWN_GAPS` below (never skipped silently: `cargo test` reports it as ignored,
//! and `cargo test -- --ignored` runs it).

use crate::common::dialect::{self, bash, dialect_project, q, records, sh, traces_of, warnings, write, write_json};
use crate::common::fire;
use crate::common::process::serial;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Behaviour of Claude Code this suite checks that the engine does not have yet, each with the
/// test that shows it. Empty when everything is implemented.
pub const KNOWN_GAPS: &[(&str, &str)] = &[];

/// Every known gap is an ignored test of this file, and every test ignored as a known gap is
/// listed: nothing is skipped without being named here.
#[test]
fn known_gaps_are_listed_and_ignored() {
    let source = include_str!("claude_conformance.rs");
    let marker = concat!("\n#[ignore = \"known", " gap");
    let mut ignored = Vec::new();
    let mut rest = source;
    while let Some(i) = rest.find(marker) {
        rest = &rest[i..];
        let f = rest.find("fn ").unwrap() + 3;
        let name: String = rest[f..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        ignored.push(name);
        rest = &rest[f..];
    }
    let mut listed: Vec<String> = KNOWN_GAPS.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    ignored.sort();
    assert_eq!(listed, ignored, "KNOWN_GAPS and the tests marked as known gaps differ");
    for (name, why) in KNOWN_GAPS {
        println!("known gap: {name}: {why}");
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers: settings files, handlers, engines.

fn script(name: &str) -> String {
    dialect::script("claude", name)
}

/// A YAML scalar holding `s` exactly (a JSON string is a YAML double-quoted scalar).
fn yaml_str(s: &str) -> String {
    json!(s).to_string()
}

fn command(cmd: impl Into<String>) -> Value {
    json!({ "type": "command", "command": cmd.into() })
}

/// A hook that prints `stdout`, `stderr` and exits `exit` (tests/claude/answer.py).
fn answer(exit: i32, stdout: &str, stderr: &str) -> Value {
    command(sh(&["python3", &script("answer.py"), &exit.to_string(), stdout, stderr]))
}

/// A hook that answers with this JSON on stdout and exits 0.
fn json_answer(v: Value) -> Value {
    answer(0, &v.to_string(), "")
}

/// A hook that records its stdin, argv and CLAUDE_*/OH_* variables as one line of `file`.
fn record(file: &Path, tag: &str) -> Value {
    command(sh(&["node", &script("record.js"), file.to_str().unwrap(), tag]))
}

fn pre_tool(decision: &str, reason: &str) -> Value {
    json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": decision,
        "permissionDecisionReason": reason } })
}

/// Settings with one matcher group on one event.
fn settings(event: &str, matcher: &str, handlers: Vec<Value>) -> Value {
    json!({ "hooks": { event: [ { "matcher": matcher, "hooks": handlers } ] } })
}

/// Settings with several matcher groups on one event.
fn groups(event: &str, groups: Vec<(&str, Vec<Value>)>) -> Value {
    let list: Vec<Value> = groups.into_iter().map(|(m, h)| json!({ "matcher": m, "hooks": h })).collect();
    json!({ "hooks": { event: list } })
}

fn tags(file: &Path) -> Vec<String> {
    let mut t: Vec<String> = records(file).iter().map(|r| r["argv"][0].as_str().unwrap().to_string()).collect();
    t.sort();
    t
}

dialect_project!(
    /// A temporary user home and project directory with Claude Code's files in them.
    Cc,
    "claude"
);

impl Cc {
    fn user_path(&self) -> PathBuf {
        self.home.path().join(".claude/settings.json")
    }
    fn project_path(&self) -> PathBuf {
        self.cwd.path().join(".claude/settings.json")
    }
    fn local_path(&self) -> PathBuf {
        self.cwd.path().join(".claude/settings.local.json")
    }
    /// `~/.claude/settings.json`
    fn user(&self, s: &Value) {
        write_json(&self.user_path(), s);
    }
    /// `<project>/.claude/settings.json`
    fn project(&self, s: &Value) {
        write_json(&self.project_path(), s);
    }
    /// `<project>/.claude/settings.local.json`
    fn local(&self, s: &Value) {
        write_json(&self.local_path(), s);
    }
    /// `<project>/.oh/config.yaml`
    fn oh(&self, yaml: &str) {
        write(&self.cwd.path().join(".oh/config.yaml"), yaml);
    }
}

fn tool(name: &str) -> Value {
    json!({ "event": "preToolUse", "toolName": name, "toolInput": {} })
}

/// The traces of Claude Code hooks.
fn claude_traces(out: &Value) -> Vec<&Value> {
    traces_of(out, "claude")
}

fn one_claude_trace(out: &Value) -> &Value {
    let t = claude_traces(out);
    assert_eq!(t.len(), 1, "expected one Claude Code trace: {out}");
    t[0]
}

fn real_path(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

// ---------------------------------------------------------------------------------------------
// Exit codes (reference: "Exit code output").

#[test]
fn exit_2_blocks_with_stderr_as_reason() {
    let c = Cc::new();
    c.project(&settings("PreToolUse", "Bash", vec![command(sh(&["bash", &script("block-rm.sh")]))]));
    let out = c.fire(bash("rm -rf /"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert_eq!(out["reason"], "Blocked: rm -rf is not allowed here", "{out}");
    let t = one_claude_trace(&out);
    assert_eq!(t["exitCode"], 2, "{out}");
    assert_eq!(t["result"], "deny", "{out}");
    assert_eq!(t["source"], real_path(&c.project_path()), "{out}");
    assert_eq!(t["type"], "command", "{out}");

    // The same guard lets other commands through with no decision.
    let out = c.fire(bash("ls -la"));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(out.get("permissionDecision").is_none(), "{out}");
    assert_eq!(one_claude_trace(&out)["result"], "none", "{out}");
}

#[test]
fn exit_2_without_stderr_or_json_still_blocks_with_a_reason() {
    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![answer(2, "", "")]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert!(out["reason"].as_str().is_some_and(|r| !r.trim().is_empty()), "a deny must say why: {out}");
}

#[test]
fn exit_2_reason_comes_from_the_json_when_it_makes_a_blocking_decision() {
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![answer(2, &pre_tool("deny", "json reason").to_string(), "stderr reason")],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("json reason")), "{out}");

    let c = Cc::new();
    c.project(&settings("UserPromptSubmit", "", vec![answer(2, r#"{"decision":"block","reason":"no secrets"}"#, "")]));
    let out = c.fire(json!({ "event": "userPromptSubmit", "prompt": "my password is hunter2" }));
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("no secrets")), "{out}");
}

#[test]
fn exit_1_fails_open_and_the_trace_says_why() {
    let c = Cc::new();
    c.project(&settings("PreToolUse", "Bash", vec![answer(1, "", "policy script crashed")]));
    let out = c.fire(bash("rm -rf /"));
    assert_eq!(out["allowed"], true, "exit 1 is a non-blocking error in Claude Code: {out}");
    assert!(out.get("permissionDecision").is_none(), "{out}");
    let t = one_claude_trace(&out);
    assert_eq!(t["exitCode"], 1, "{out}");
    assert!(
        t["failure"].as_str().is_some_and(|f| !f.is_empty()),
        "the trace must say why it let the action through: {out}"
    );
    assert!(t["stderr"].as_str().unwrap_or("").contains("policy script crashed"), "{out}");
}

#[test]
fn json_is_read_on_every_exit_code() {
    // A schema-valid JSON object decides alone, whatever the exit code (other than 2).
    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![answer(1, &pre_tool("deny", "json decides").to_string(), "")]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "json decides", "{out}");
}

#[test]
fn a_missing_script_fails_open_but_python3_missing_py_exits_2_and_blocks() {
    // Gotcha from the reference: `sh` cannot find the file (127) → non-blocking; `python3
    // missing.py` exits 2 → a deliberate block.
    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![command("/nonexistent/hooks/guard.sh")]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(one_claude_trace(&out)["exitCode"], 127, "{out}");
    assert!(one_claude_trace(&out)["failure"].is_string(), "{out}");

    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![command("python3 /nonexistent/hooks/guard.py")]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], false, "{out}");
    assert!(out["reason"].as_str().unwrap_or("").contains("guard.py"), "python's stderr is the reason: {out}");
}

// ---------------------------------------------------------------------------------------------
// JSON answers on PreToolUse (reference: "PreToolUse decision control").

#[test]
fn json_deny_ask_allow_from_a_python_guard() {
    let c = Cc::new();
    c.project(&settings("PreToolUse", "Edit|Write", vec![command(sh(&["python3", &script("protect-files.py")]))]));
    let file = |name: &str| {
        json!({ "event": "preToolUse", "toolName": "Write",
            "toolInput": { "file_path": c.cwd().join(name), "content": "x" } })
    };
    let out = c.fire(file(".env"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert_eq!(out["reason"], ".env holds secrets", "{out}");
    assert_eq!(one_claude_trace(&out)["result"], "deny", "{out}");

    let out = c.fire(file("package-lock.json"));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["permissionDecision"], "ask", "{out}");
    assert_eq!(out["reason"], "package-lock.json is generated; edit package.json instead?", "{out}");
    assert_eq!(one_claude_trace(&out)["result"], "ask", "{out}");

    let out = c.fire(file("src/main.rs"));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(out.get("permissionDecision").is_none(), "{out}");
}

#[test]
fn json_allow_keeps_its_reason() {
    let c = Cc::new();
    c.project(&settings("PreToolUse", "Read", vec![json_answer(pre_tool("allow", "reading is always fine"))]));
    let out = c.fire(tool("Read"));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert_eq!(out["reason"], "reading is always fine", "{out}");
    assert_eq!(one_claude_trace(&out)["result"], "allow", "{out}");
}

#[test]
fn json_defer() {
    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![json_answer(pre_tool("defer", "needs a human later"))]));
    let out = c.fire(bash("deploy"));
    assert_eq!(out["permissionDecision"], "defer", "{out}");
    assert_eq!(out["reason"], "needs a human later", "{out}");
    assert_eq!(out["allowed"], true, "defer is not a deny: {out}");
}

#[test]
fn deprecated_approve_and_block() {
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![json_answer(json!({ "decision": "approve", "reason": "old style ok" }))],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!((out["allowed"].clone(), out["permissionDecision"].clone()), (json!(true), json!("allow")), "{out}");

    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![json_answer(json!({ "decision": "block", "reason": "old style no" }))]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert_eq!(out["reason"], "old style no", "{out}");
}

#[test]
fn updated_input_from_a_node_hook() {
    let c = Cc::new();
    c.project(&settings("PreToolUse", "Bash", vec![command(sh(&["node", &script("rewrite.js")]))]));
    let envelope = json!({ "event": "preToolUse", "toolName": "Bash",
        "toolInput": { "command": "npm install --silent", "description": "deps", "timeout": 60000 } });
    let out = c.fire(envelope);
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert_eq!(out["reason"], "npm ci keeps the lockfile", "{out}");
    assert_eq!(
        out["updatedInput"],
        json!({ "command": "npm ci --silent", "description": "deps", "timeout": 60000 }),
        "updatedInput replaces the whole input: {out}"
    );
    // No rewrite: no key.
    let out = c.fire(bash("ls"));
    assert!(out.get("updatedInput").is_none(), "{out}");
}

#[test]
fn updated_input_is_kept_with_ask_and_dropped_with_defer() {
    // Reference: updatedInput "is honoured with allow or ask (ignored with defer)".
    let rewrite = |decision: &str| {
        json_answer(json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": decision,
            "updatedInput": { "command": "ls -a" } } }))
    };
    let c = Cc::new();
    c.project(&groups("PreToolUse", vec![("Bash", vec![rewrite("ask")]), ("Task", vec![rewrite("defer")])]));
    let out = c.fire(bash("ls"));
    assert_eq!(
        (out["permissionDecision"].clone(), out["updatedInput"].clone()),
        (json!("ask"), json!({ "command": "ls -a" })),
        "{out}"
    );
    let out = c.fire(tool("Task"));
    assert_eq!(out["permissionDecision"], "defer", "{out}");
    assert!(out.get("updatedInput").is_none(), "{out}");
}

#[test]
fn exit_2_is_not_honoured_on_permission_request() {
    // Reference: PermissionRequest decides by JSON only; exit 2 there is "not honoured".
    let c = Cc::new();
    c.project(&settings("PermissionRequest", "", vec![answer(2, "", "nope")]));
    let out = c.fire(json!({ "event": "permissionRequest", "tool_name": "Bash", "tool_input": { "command": "ls" } }));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(out.get("permissionDecision").is_none(), "{out}");
    assert!(one_claude_trace(&out)["failure"].is_string(), "the trace says it was not honoured: {out}");
}

#[test]
fn hook_specific_output_without_hook_event_name_is_an_error_that_fails_open() {
    for hso in [
        json!({ "permissionDecision": "deny", "permissionDecisionReason": "x" }),
        json!({ "hookEventName": "PostToolUse", "permissionDecision": "deny", "permissionDecisionReason": "x" }),
    ] {
        let c = Cc::new();
        c.project(&settings("PreToolUse", "", vec![json_answer(json!({ "hookSpecificOutput": hso }))]));
        let out = c.fire(bash("ls"));
        assert_eq!(out["allowed"], true, "Claude Code rejects the output and proceeds: {out}");
        assert!(out.get("permissionDecision").is_none(), "{out}");
        assert!(one_claude_trace(&out)["failure"].is_string(), "the trace must say why: {out}");
    }
}

#[test]
fn invalid_json_fails_open() {
    // Trimmed stdout that starts with `{` and ends with `}` is JSON to Claude Code; when it does
    // not parse, the hook failed (non-blocking) and its deny is lost.
    let unescaped = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "say "no""}}"#;
    for stdout in [unescaped, "{not json}", "  {\"a\": 1,}\n"] {
        let c = Cc::new();
        c.project(&settings("PreToolUse", "", vec![answer(0, stdout, "")]));
        let out = c.fire(bash("ls"));
        assert_eq!(out["allowed"], true, "{stdout}: {out}");
        assert!(out.get("permissionDecision").is_none(), "{out}");
        assert!(one_claude_trace(&out)["failure"].is_string(), "{stdout}: {out}");
    }
    // Anything else is plain text: on PreToolUse that is neither a decision nor a failure.
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![answer(0, r#"{"hookSpecificOutput": {"permissionDecision": "deny""#, "")],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(one_claude_trace(&out).get("failure").is_none(), "{out}");
}

// ---------------------------------------------------------------------------------------------
// onFailure and timeouts.

#[test]
fn on_failure_block_turns_failures_into_a_block() {
    let mut failing = vec![
        answer(1, "", "crashed"),
        command("/nonexistent/hooks/guard.sh"),
        json!({ "type": "command", "command": sh(&["bash", &script("sleep.sh"), "30"]), "timeout": 1 }),
    ];
    for h in &mut failing {
        h["onFailure"] = json!("block");
        let c = Cc::new();
        c.project(&settings("PreToolUse", "", vec![h.clone()]));
        let out = c.fire(bash("ls"));
        assert_eq!(out["allowed"], false, "{h}: {out}");
        assert_eq!(out["permissionDecision"], "deny", "{h}: {out}");
        assert!(out["reason"].as_str().is_some_and(|r| !r.is_empty()), "{out}");
    }
    // onFailure does not change a hook that succeeds.
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![json!({ "type": "command", "command": "exit 0", "onFailure": "block" })],
    ));
    assert_eq!(c.fire(bash("ls"))["allowed"], true);
}

#[test]
fn timeout_is_in_seconds_and_a_timed_out_hook_fails_open() {
    let _serial = serial();
    let c = Cc::new();
    let h = json!({ "type": "command", "command": sh(&["bash", &script("sleep.sh"), "30",
        &pre_tool("deny", "too late").to_string()]), "timeout": 1 });
    c.project(&settings("PreToolUse", "", vec![h]));
    let engine = c.engine(json!({}));
    let start = Instant::now();
    let out = fire(&engine, bash("ls"));
    let took = start.elapsed();
    assert_eq!(out["allowed"], true, "{out}");
    let t = one_claude_trace(&out);
    assert_eq!(t["timedOut"], true, "{out}");
    assert!(t["failure"].is_string(), "{out}");
    // 1 means one second: not 1 ms, not the 600 s default.
    assert!(took >= Duration::from_millis(900), "timed out after {took:?}, before 1 s: {out}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

// ---------------------------------------------------------------------------------------------
// Context: plain stdout only where Claude Code makes it context.

#[test]
fn plain_stdout_is_context_on_user_prompt_submit_and_session_start_but_not_pre_tool_use() {
    let ctx = |rule: &str| command(sh(&["bash", &script("context.sh"), rule]));
    let c = Cc::new();
    let mut s = settings("UserPromptSubmit", "", vec![ctx("use tabs")]);
    s["hooks"]["SessionStart"] = json!([{ "matcher": "startup", "hooks": [ctx("read AGENTS.md")] }]);
    s["hooks"]["PreToolUse"] = json!([{ "matcher": "", "hooks": [ctx("never shown")] }]);
    c.project(&s);

    let out = c.fire(json!({ "event": "userPromptSubmit", "prompt": "hi" }));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["additionalContext"], "Project rule: use tabs", "{out}");

    let out = c.fire_with(json!({ "waitNonBlocking": true }), json!({ "event": "sessionStart", "source": "startup" }));
    assert_eq!(out["additionalContext"], "Project rule: read AGENTS.md", "{out}");

    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(out.get("additionalContext").is_none(), "plain stdout is not context on PreToolUse: {out}");
    assert!(one_claude_trace(&out).get("failure").is_none(), "plain text is not a failure: {out}");
}

#[test]
fn json_additional_context_on_pre_tool_use() {
    let c = Cc::new();
    let a = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": "from A" } });
    let b = json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "additionalContext": "from B" } });
    c.project(&settings("PreToolUse", "", vec![json_answer(a), json_answer(b)]));
    let out = c.fire(bash("ls"));
    let ctx = out["additionalContext"].as_str().unwrap_or_else(|| panic!("{out}"));
    assert!(ctx.contains("from A") && ctx.contains("from B"), "all context is kept: {out}");
    assert!(ctx.find("from A") < ctx.find("from B"), "in configuration order: {out}");
}

// ---------------------------------------------------------------------------------------------
// Stop and the other events Claude Code lets hooks block.

#[test]
fn stop_block_keeps_the_turn_going_and_stop_hook_active_lets_it_end() {
    let c = Cc::new();
    c.project(&json!({ "hooks": { "Stop": [ { "hooks": [ command(sh(&["python3", &script("stop-gate.py")])) ] } ] } }));
    let out = c.fire(json!({ "event": "turnStop", "stop_hook_active": false, "last_assistant_message": "done" }));
    assert_eq!(out["allowed"], false, "not allowed to stop: {out}");
    assert_eq!(out["reason"], "Run the test suite before stopping.", "{out}");

    let out = c.fire(json!({ "event": "turnStop", "stop_hook_active": true, "last_assistant_message": "done" }));
    assert_eq!(out["allowed"], true, "{out}");
    let out = c.fire(json!({ "event": "turnStop", "stopHookActive": false, "lastAssistantMessage": "all tests pass" }));
    assert_eq!(out["allowed"], true, "camelCase envelope fields reach the hook too: {out}");
}

#[test]
fn stop_exit_2_and_context_continue_subagent_stop_too() {
    let c = Cc::new();
    c.project(&json!({ "hooks": {
        "Stop": [ { "hooks": [ answer(2, "", "lint errors remain") ] } ],
        "SubagentStop": [ { "hooks": [ json_answer(json!({ "hookSpecificOutput":
            { "hookEventName": "SubagentStop", "additionalContext": "also update the changelog" } })) ] } ] } }));
    let out = c.fire(json!({ "event": "turnStop" }));
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("lint errors remain")), "{out}");
    let out = c.fire(json!({ "event": "subagentStop", "agent_type": "Explore" }));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["additionalContext"], "also update the changelog", "{out}");
}

#[test]
fn openharness_hooks_on_turn_stop_stay_non_blocking() {
    let c = Cc::new();
    c.oh("hooks:\n  turnStop:\n    - command: exit 1\n");
    c.project(&json!({ "hooks": { "Stop": [ { "hooks": [ command("exit 0") ] } ] } }));
    let out = c.fire(json!({ "event": "turnStop" }));
    assert_eq!(out["allowed"], true, "an openHarness hook cannot block turnStop: {out}");
}

#[test]
fn user_prompt_submit_block() {
    let c = Cc::new();
    c.project(&settings("UserPromptSubmit", "", vec![answer(2, "", "prompt contains a secret")]));
    let out = c.fire(json!({ "event": "userPromptSubmit", "prompt": "AKIA..." }));
    assert_eq!(
        (out["allowed"].clone(), out["reason"].clone()),
        (json!(false), json!("prompt contains a secret")),
        "{out}"
    );
}

#[test]
fn post_tool_use_block_is_feedback_not_a_block() {
    let c = Cc::new();
    c.project(&settings("PostToolUse", "Write", vec![answer(2, "", "formatting failed: run cargo fmt")]));
    let out = c.fire_with(
        json!({ "waitNonBlocking": true }),
        json!({ "event": "postToolUse", "toolName": "Write", "toolResponse": { "success": true } }),
    );
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["reason"], "formatting failed: run cargo fmt", "{out}");
}

#[test]
fn permission_request_decision_behavior() {
    let c = Cc::new();
    let deny = json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest",
        "decision": { "behavior": "deny", "message": "not on main", "interrupt": true } } });
    c.project(&settings("PermissionRequest", "Bash", vec![json_answer(deny)]));
    let out =
        c.fire(json!({ "event": "permissionRequest", "toolName": "Bash", "toolInput": { "command": "git push" } }));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert_eq!(out["reason"], "not on main", "{out}");
    assert_eq!(out["interrupt"], true, "{out}");

    let c = Cc::new();
    let perms = json!([{ "type": "addRules", "rules": [{ "toolName": "Bash", "ruleContent": "git status" }],
        "behavior": "allow", "destination": "session" }]);
    let allow = json!({ "hookSpecificOutput": { "hookEventName": "PermissionRequest",
        "decision": { "behavior": "allow", "updatedInput": { "command": "git status --short" }, "updatedPermissions": perms } } });
    c.project(&settings("PermissionRequest", "Bash", vec![json_answer(allow)]));
    let out =
        c.fire(json!({ "event": "permissionRequest", "toolName": "Bash", "toolInput": { "command": "git status" } }));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["permissionDecision"], "allow", "{out}");
    assert_eq!(out["updatedInput"], json!({ "command": "git status --short" }), "{out}");
    assert_eq!(out["updatedPermissions"], perms, "{out}");

    // No answer adds no permission decision (unlike an openHarness env-mode hook's `ask`).
    let c = Cc::new();
    c.project(&settings("PermissionRequest", "", vec![command("exit 0")]));
    let out = c.fire(json!({ "event": "permissionRequest", "toolName": "Bash" }));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(out.get("permissionDecision").is_none(), "{out}");
}

// ---------------------------------------------------------------------------------------------
// continue, stopReason, systemMessage.

#[test]
fn continue_false_stops_everything_and_beats_allow() {
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![
            json_answer(pre_tool("allow", "fine")),
            json_answer(json!({ "continue": false, "stopReason": "Budget exhausted" })),
        ],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!(out["continue"], false, "{out}");
    assert_eq!(out["stopReason"], "Budget exhausted", "{out}");
    assert_eq!(out["allowed"], false, "continue:false is not allowed on a blocking event: {out}");

    // Without continue:false the key is absent.
    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![json_answer(pre_tool("allow", "fine"))]));
    let out = c.fire(bash("ls"));
    assert!(out.get("continue").is_none() && out.get("stopReason").is_none(), "{out}");
}

#[test]
fn continue_false_outcome_reason_is_not_a_siblings_allow_reason() {
    // continue:false is above every decision, so the outcome's reason (what a harness shows for
    // allowed:false) must be the stopping hook's, not the "fine" of an allow it overruled.
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![
            json_answer(pre_tool("allow", "fine")),
            json_answer(json!({ "continue": false, "stopReason": "Budget exhausted" })),
        ],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_ne!(out["reason"], "fine", "{out}");
}

#[test]
fn continue_false_stop_reason_falls_back_to_the_hooks_reason() {
    // The outcome's stopReason is the hook's `stopReason`, else the hook's reason, whichever way
    // the hook gave it: top-level `reason`, `permissionDecisionReason`, or stderr with exit 2.
    let cases: Vec<(Value, &str)> = vec![
        (answer(0, r#"{"continue":false,"decision":"block","reason":"top-level reason"}"#, ""), "top-level reason"),
        (
            json_answer(json!({ "continue": false, "hookSpecificOutput": { "hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "decision reason" } })),
            "decision reason",
        ),
        (answer(2, r#"{"continue":false}"#, "stderr reason"), "stderr reason"),
    ];
    for (hook, want) in cases {
        let c = Cc::new();
        c.project(&settings("PreToolUse", "", vec![hook]));
        let out = c.fire(bash("ls"));
        assert_eq!(out["continue"], false, "{out}");
        assert_eq!(out["stopReason"], want, "{out}");
    }
}

#[test]
fn system_messages_are_joined_on_blocking_and_non_blocking_events() {
    let c = Cc::new();
    let mut s = settings(
        "PreToolUse",
        "",
        vec![json_answer(json!({ "systemMessage": "first" })), json_answer(json!({ "systemMessage": "second" }))],
    );
    s["hooks"]["PostToolUse"] = json!([{ "hooks": [json_answer(json!({ "systemMessage": "formatted 3 files" }))] }]);
    c.project(&s);
    let out = c.fire(bash("ls"));
    assert_eq!(out["systemMessage"], "first\nsecond", "{out}");
    assert_eq!(out["allowed"], true, "{out}");
    let out = c.fire_with(json!({ "waitNonBlocking": true }), json!({ "event": "postToolUse", "toolName": "Edit" }));
    assert_eq!(out["systemMessage"], "formatted 3 files", "{out}");
}

// ---------------------------------------------------------------------------------------------
// Matchers (reference: "Matcher patterns").

#[test]
fn matchers_exact_lists_regex_lookahead() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let cases: Vec<(&str, &str)> = vec![
        ("Bash", "exact"),
        ("Edit|Write", "bar-list"),
        ("Read, Grep", "comma-list"),
        ("Edit.*", "regex"),
        ("mcp__memory__.*", "mcp-regex"),
        ("mcp__memory", "mcp-exact"),
        ("^(?!Read$).*", "lookahead"),
        ("bash", "lowercase"),
        ("my-tool", "hyphen"),
        ("*", "star"),
        ("", "empty"),
    ];
    c.project(&groups("PreToolUse", cases.iter().map(|(m, t)| (*m, vec![record(&rec, t)])).collect()));
    let engine = c.engine(json!({}));
    let ran = |name: &str| {
        let _ = std::fs::remove_file(&rec);
        let out = fire(&engine, tool(name));
        assert_eq!(out["allowed"], true, "{out}");
        tags(&rec)
    };
    let sorted = |mut v: Vec<&str>| {
        v.sort();
        v.into_iter().map(String::from).collect::<Vec<_>>()
    };
    assert_eq!(ran("Bash"), sorted(vec!["exact", "lookahead", "star", "empty"]));
    assert_eq!(ran("BashOutput"), sorted(vec!["lookahead", "star", "empty"]), "Bash is exact");
    assert_eq!(ran("Edit"), sorted(vec!["bar-list", "regex", "lookahead", "star", "empty"]));
    assert_eq!(ran("Write"), sorted(vec!["bar-list", "lookahead", "star", "empty"]));
    assert_eq!(ran("NotebookEdit"), sorted(vec!["regex", "lookahead", "star", "empty"]), "regexes are unanchored");
    assert_eq!(ran("Read"), sorted(vec!["comma-list", "star", "empty"]), "the lookahead excludes Read");
    assert_eq!(ran("Grep"), sorted(vec!["comma-list", "lookahead", "star", "empty"]));
    assert_eq!(ran("mcp__memory__create_entities"), sorted(vec!["mcp-regex", "lookahead", "star", "empty"]));
    assert_eq!(ran("my-tool"), sorted(vec!["hyphen", "lookahead", "star", "empty"]));
    assert_eq!(ran("my-tool-2"), sorted(vec!["lookahead", "star", "empty"]), "hyphenated names are exact");
}

#[test]
fn matchers_test_the_events_own_field() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let mut s = groups("SessionStart", vec![("resume|compact", vec![record(&rec, "resume")])]);
    s["hooks"]["Notification"] = json!([{ "matcher": "idle_prompt", "hooks": [record(&rec, "idle")] }]);
    s["hooks"]["PreCompact"] = json!([{ "matcher": "manual", "hooks": [record(&rec, "manual")] }]);
    c.project(&s);
    let engine = c.engine(json!({ "waitNonBlocking": true }));
    let ran = |envelope: Value| {
        let _ = std::fs::remove_file(&rec);
        fire(&engine, envelope);
        tags(&rec)
    };
    assert_eq!(ran(json!({ "event": "sessionStart", "source": "startup" })), Vec::<String>::new());
    assert_eq!(ran(json!({ "event": "sessionStart", "source": "resume" })), vec!["resume"]);
    assert_eq!(ran(json!({ "event": "notification", "notification_type": "permission_prompt" })), Vec::<String>::new());
    assert_eq!(ran(json!({ "event": "notification", "notificationType": "idle_prompt" })), vec!["idle"]);
    assert_eq!(ran(json!({ "event": "preCompact", "trigger": "auto" })), Vec::<String>::new());
    assert_eq!(ran(json!({ "event": "preCompact", "trigger": "manual" })), vec!["manual"]);
}

// ---------------------------------------------------------------------------------------------
// `if` permission rules.

#[test]
fn if_rules_filter_tool_calls() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let with_if = |rule: &str, tag: &str| {
        let mut h = record(&rec, tag);
        h["if"] = json!(rule);
        h
    };
    c.project(&json!({ "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [with_if("Bash(git *)", "git")] },
            { "matcher": "Edit|Write", "hooks": [with_if("Edit(src/**)", "src-edit")] } ],
        "UserPromptSubmit": [ { "hooks": [with_if("Bash(*)", "never")] } ] } }));
    let engine = c.engine(json!({}));
    let ran = |envelope: Value| {
        let _ = std::fs::remove_file(&rec);
        fire(&engine, envelope);
        tags(&rec)
    };
    assert_eq!(ran(bash("git status")), vec!["git"]);
    assert_eq!(ran(bash("ls -la")), Vec::<String>::new());
    let edit = |p: PathBuf| {
        json!({ "event": "preToolUse", "toolName": "Edit",
        "toolInput": { "file_path": p, "old_string": "a", "new_string": "b" } })
    };
    assert_eq!(ran(edit(c.cwd().join("src/main.rs"))), vec!["src-edit"]);
    assert_eq!(ran(edit(c.cwd().join("docs/guide.md"))), Vec::<String>::new());
    assert_eq!(
        ran(json!({ "event": "userPromptSubmit", "prompt": "x" })),
        Vec::<String>::new(),
        "`if` on a non-tool event never runs"
    );
}

#[test]
fn if_bash_rules_check_each_subcommand() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let mut h = record(&rec, "git");
    h["if"] = json!("Bash(git push *)");
    c.project(&settings("PreToolUse", "Bash", vec![h]));
    let engine = c.engine(json!({}));
    fire(&engine, bash("cargo test && git push origin main"));
    assert_eq!(tags(&rec), vec!["git"], "a rule matches any subcommand");
}

// ---------------------------------------------------------------------------------------------
// Merging: parallel, precedence, dedup, updatedInput order.

#[test]
fn parallel_merge_precedence_deny_defer_ask_allow() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["allow", "ask", "defer", "deny"], "deny"),
        (vec!["deny", "allow"], "deny"),
        (vec!["allow", "defer", "ask"], "defer"),
        (vec!["ask", "allow"], "ask"),
        (vec!["allow"], "allow"),
    ];
    for (answers, want) in cases {
        let c = Cc::new();
        let rec = c.file("rec.jsonl");
        let mut handlers: Vec<Value> =
            answers.iter().map(|d| json_answer(pre_tool(d, &format!("{d} reason")))).collect();
        handlers.push(record(&rec, "sibling"));
        c.project(&settings("PreToolUse", "", handlers));
        let out = c.fire(bash("ls"));
        assert_eq!(out["permissionDecision"], want, "{answers:?}: {out}");
        assert_eq!(out["allowed"], want != "deny", "{answers:?}: {out}");
        assert_eq!(out["reason"], format!("{want} reason"), "the winning decision's reason: {out}");
        assert_eq!(claude_traces(&out).len(), answers.len() + 1, "every hook runs to completion: {out}");
        assert_eq!(tags(&rec), vec!["sibling"], "a deny does not stop its siblings");
    }
}

#[test]
fn exit_2_routes_like_deny_in_the_merge() {
    let c = Cc::new();
    c.project(&groups(
        "PreToolUse",
        vec![("Bash", vec![json_answer(pre_tool("allow", "ok"))]), ("*", vec![answer(2, "", "blocked by group 2")])],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert_eq!(out["reason"], "blocked by group 2", "{out}");
}

#[test]
fn last_updated_input_in_configuration_order_wins() {
    let c = Cc::new();
    let rewrite = |cmd: &str| {
        json_answer(json!({ "hookSpecificOutput": { "hookEventName": "PreToolUse", "permissionDecision": "allow",
            "updatedInput": { "command": cmd } } }))
    };
    c.user(&settings("PreToolUse", "Bash", vec![rewrite("echo from user")]));
    c.project(&settings(
        "PreToolUse",
        "Bash",
        vec![rewrite("echo first"), json_answer(json!({})), rewrite("echo last")],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!(out["updatedInput"], json!({ "command": "echo last" }), "{out}");
}

#[test]
fn parallel_hooks_run_at_the_same_time() {
    // Five 100 ms hooks finish in about 100 ms, not 500 ms. The figure is printed (run with
    // --nocapture; bench/claude-parallel.sh measures it properly); only that all five ran and
    // each was traced is asserted.
    let _serial = serial();
    let c = Cc::new();
    let log = c.file("ran.txt");
    let handlers: Vec<Value> =
        (0..5).map(|i| command(format!("sleep 0.1; echo h{i} >> {}", q(log.to_str().unwrap())))).collect();
    c.project(&settings("PreToolUse", "", handlers));
    let engine = c.engine(json!({}));
    fire(&engine, bash("warm up"));
    let _ = std::fs::remove_file(&log);
    let start = Instant::now();
    let out = fire(&engine, bash("ls"));
    println!("claude parallel merge: 5 hooks of 100 ms took {:?} in one fire", start.elapsed());
    assert_eq!(claude_traces(&out).len(), 5, "{out}");
    let mut ran: Vec<String> = std::fs::read_to_string(&log).unwrap().lines().map(String::from).collect();
    ran.sort();
    assert_eq!(ran, vec!["h0", "h1", "h2", "h3", "h4"]);
}

#[test]
fn identical_handlers_in_several_files_run_once() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let s = settings("PreToolUse", "Bash", vec![record(&rec, "same")]);
    c.user(&s);
    c.project(&s);
    c.local(&s);
    let out = c.fire(bash("ls"));
    assert_eq!(claude_traces(&out).len(), 1, "{out}");
    assert_eq!(tags(&rec), vec!["same"]);

    // Different handlers in the same files all run, and they add up (the project does not
    // replace the user's hooks).
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    c.user(&settings("PreToolUse", "Bash", vec![record(&rec, "user")]));
    c.project(&settings("PreToolUse", "Bash", vec![record(&rec, "project")]));
    c.local(&settings("PreToolUse", "Bash", vec![record(&rec, "local")]));
    let out = c.fire(bash("ls"));
    assert_eq!(tags(&rec), vec!["local", "project", "user"], "{out}");
    let sources: Vec<&str> = claude_traces(&out).iter().map(|t| t["source"].as_str().unwrap()).collect();
    for p in [c.user_path(), c.project_path(), c.local_path()] {
        assert!(sources.contains(&real_path(&p).as_str()), "{p:?} not among {sources:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// openHarness and Claude Code hooks together.

#[test]
fn mixed_openharness_and_claude_hooks_on_one_event() {
    let c = Cc::new();
    c.oh(&format!(
        "hooks:\n  userPromptSubmit:\n    - command: {}\n      jsonIO: true\n",
        yaml_str(&sh(&[
            "python3",
            &script("answer.py"),
            "0",
            r#"{"hookSpecificOutput":{"additionalContext":"from openHarness"}}"#
        ]))
    ));
    c.project(&settings(
        "UserPromptSubmit",
        "",
        vec![command(sh(&["bash", &script("context.sh"), "from Claude Code"]))],
    ));
    let out = c.fire(json!({ "event": "userPromptSubmit", "prompt": "hi" }));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["hooks"].as_array().unwrap().len(), 2, "{out}");
    assert_eq!(claude_traces(&out).len(), 1, "{out}");
    let ctx = out["additionalContext"].as_str().unwrap_or_else(|| panic!("{out}"));
    let (oh, cc) = (ctx.find("from openHarness"), ctx.find("Project rule: from Claude Code"));
    assert!(oh.is_some() && cc.is_some() && oh < cc, "openHarness first, then Claude Code: {out}");
}

#[test]
fn an_openharness_deny_comes_first_and_claude_hooks_then_do_not_run() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    c.oh("hooks:\n  preToolUse:\n    - command: exit 1\n      match: Bash\n");
    c.project(&settings("PreToolUse", "Bash", vec![json_answer(pre_tool("allow", "cc says yes")), record(&rec, "cc")]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "hook denied (exit code)", "{out}");
    assert_eq!(tags(&rec), Vec::<String>::new(), "a Claude Code hook cannot overturn an openHarness deny");
}

#[test]
fn an_openharness_rewrite_reaches_the_claude_hooks_after_it() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let rewrite = r#"{"hookSpecificOutput":{"updatedPrompt":"hi (rewritten)"}}"#;
    c.oh(&format!(
        "hooks:\n  userPromptSubmit:\n    - command: {}\n      jsonIO: true\n",
        yaml_str(&sh(&["python3", &script("answer.py"), "0", rewrite]))
    ));
    c.project(&settings("UserPromptSubmit", "", vec![record(&rec, "cc")]));
    let out = c.fire(json!({ "event": "userPromptSubmit", "prompt": "hi" }));
    assert_eq!(out["updatedPrompt"], "hi (rewritten)", "{out}");
    let r = records(&rec);
    assert_eq!(r.len(), 1, "{out}");
    let stdin: Value = serde_json::from_str(r[0]["stdin"].as_str().unwrap()).unwrap();
    assert_eq!(stdin["prompt"], "hi (rewritten)", "later hooks get the rewritten prompt");
}

// ---------------------------------------------------------------------------------------------
// What a Claude Code hook receives: stdin, variables, working directory.

#[test]
fn claude_hooks_get_one_compact_snake_case_line_on_stdin() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    c.project(&settings("PreToolUse", "Bash", vec![record(&rec, "r")]));
    let envelope = json!({ "event": "preToolUse", "sessionId": "sess-1", "transcriptPath": "/tmp/t.jsonl",
        "permissionMode": "acceptEdits", "toolName": "Bash",
        "toolInput": { "command": "ls -la", "description": "list files", "someKey": "kept as is" },
        "toolUseId": "toolu_01", "customField": "passes through" });
    let out = c.fire(envelope);
    assert_eq!(out["allowed"], true, "{out}");
    let r = records(&rec);
    assert_eq!(r.len(), 1);
    let stdin = r[0]["stdin"].as_str().unwrap();
    let line = stdin.strip_suffix('\n').unwrap_or(stdin);
    assert!(!line.contains('\n'), "one line: {stdin:?}");
    let parsed: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {stdin:?}"));
    assert_eq!(serde_json::to_string(&parsed).unwrap().len(), line.len(), "compact JSON: {line}");
    assert_eq!(
        parsed,
        json!({ "session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": c.cwd(),
            "permission_mode": "acceptEdits", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": { "command": "ls -la", "description": "list files", "someKey": "kept as is" },
            "tool_use_id": "toolu_01", "custom_field": "passes through" }),
        "{line}"
    );
    // The hook runs in cwd with CLAUDE_PROJECT_DIR set and the OH_* variables of the envelope.
    assert_eq!(r[0]["cwd"], json!(c.cwd()));
    assert_eq!(r[0]["env"]["CLAUDE_PROJECT_DIR"], json!(c.cwd()));
    assert_eq!(r[0]["env"]["OH_TOOL_NAME"], "Bash");
    assert_eq!(r[0]["env"]["OH_SESSION_ID"], "sess-1");
    assert!(r[0]["env"].get("CLAUDE_PLUGIN_ROOT").is_none(), "only plugin hooks get CLAUDE_PLUGIN_ROOT");
}

#[test]
fn stdin_of_other_events_has_their_claude_code_names_and_fields() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let mut s = json!({ "hooks": {} });
    for ev in ["UserPromptSubmit", "Stop", "SessionStart", "PostToolUse"] {
        s["hooks"][ev] = json!([{ "hooks": [record(&rec, ev)] }]);
    }
    c.project(&s);
    let engine = c.engine(json!({ "waitNonBlocking": true }));
    let stdin_for = |envelope: Value| {
        let _ = std::fs::remove_file(&rec);
        fire(&engine, envelope);
        let r = records(&rec);
        assert_eq!(r.len(), 1, "{r:?}");
        serde_json::from_str::<Value>(r[0]["stdin"].as_str().unwrap()).unwrap()
    };
    let s = stdin_for(json!({ "event": "userPromptSubmit", "prompt": "fix the bug" }));
    assert_eq!((s["hook_event_name"].clone(), s["prompt"].clone()), (json!("UserPromptSubmit"), json!("fix the bug")));
    let s = stdin_for(json!({ "event": "turnStop", "stopHookActive": true }));
    assert_eq!((s["hook_event_name"].clone(), s["stop_hook_active"].clone()), (json!("Stop"), json!(true)));
    let s = stdin_for(json!({ "event": "sessionStart", "source": "resume" }));
    assert_eq!((s["hook_event_name"].clone(), s["source"].clone()), (json!("SessionStart"), json!("resume")));
    let s = stdin_for(json!({ "event": "postToolUse", "toolName": "Write", "toolInput": { "file_path": "/a" },
        "toolResponse": { "filePath": "/a", "success": true } }));
    assert_eq!(s["hook_event_name"], "PostToolUse");
    assert_eq!(s["tool_response"], json!({ "filePath": "/a", "success": true }), "values are passed unchanged");
    assert_eq!(s["cwd"], json!(c.cwd()), "cwd defaults to the engine's cwd");
    let s = stdin_for(json!({ "event": "userPromptSubmit", "prompt": "x", "cwd": "/work/elsewhere" }));
    assert_eq!(s["cwd"], "/work/elsewhere", "the envelope's cwd when the host gives one");
}

#[test]
fn bad_claude_options_are_invalid_options() {
    let c = Cc::new();
    for bad in [
        json!({ "claude": "yes" }),
        json!({ "claudePlugins": "dir" }),
        json!({ "claudePlugins": [42] }),
        json!({ "claudePlugins": [{ "root": "/x", "extra": 1 }] }),
        json!({ "claudeProjectDir": 7 }),
    ] {
        let e = c.try_engine(bad.clone()).err().unwrap_or_else(|| panic!("{bad} was accepted"));
        assert!(e.starts_with("invalid_options"), "{bad}: {e}");
    }
}

#[test]
fn snake_case_and_camel_case_envelopes_reach_both_kinds_of_hook() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    c.oh(&format!(
        "hooks:\n  preToolUse:\n    - command: {}\n      match: Bash\n",
        yaml_str(&sh(&["node", &script("record.js"), rec.to_str().unwrap(), "oh"]))
    ));
    c.project(&settings("PreToolUse", "Bash", vec![record(&rec, "cc")]));
    let engine = c.engine(json!({}));
    for envelope in [
        json!({ "event": "preToolUse", "tool_name": "Bash", "tool_input": { "command": "ls" }, "session_id": "s-9" }),
        json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": "ls" }, "sessionId": "s-9" }),
    ] {
        let _ = std::fs::remove_file(&rec);
        let out = fire(&engine, envelope.clone());
        assert_eq!(out["allowed"], true, "{out}");
        let r = records(&rec);
        assert_eq!(r.len(), 2, "both hooks matched {envelope}: {out}");
        for rec in &r {
            assert_eq!(rec["env"]["OH_TOOL_NAME"], "Bash", "{envelope}: {rec}");
            assert_eq!(rec["env"]["OH_SESSION_ID"], "s-9", "{envelope}: {rec}");
        }
        let cc = r.iter().find(|x| x["argv"][0] == "cc").unwrap();
        let stdin: Value = serde_json::from_str(cc["stdin"].as_str().unwrap()).unwrap();
        assert_eq!(stdin["tool_name"], "Bash");
        assert_eq!(stdin["tool_input"], json!({ "command": "ls" }));
        assert_eq!(stdin["session_id"], "s-9");
        assert!(stdin.get("toolName").is_none() && stdin.get("sessionId").is_none(), "{stdin}");
    }
}

#[test]
fn claude_project_dir_option() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    c.project(&settings("PreToolUse", "", vec![record(&rec, "r")]));
    let other = tempfile::tempdir().unwrap();
    c.fire_with(json!({ "claudeProjectDir": other.path() }), bash("ls"));
    assert_eq!(records(&rec)[0]["env"]["CLAUDE_PROJECT_DIR"], json!(other.path()));
}

#[test]
fn exec_form_args_substitute_claude_project_dir_without_a_shell() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let h = json!({ "type": "command", "command": "node",
        "args": [script("record.js"), rec, "exec", "${CLAUDE_PROJECT_DIR}/x", "$(touch pwned)", "*"] });
    c.project(&settings("PreToolUse", "", vec![h]));
    c.fire(bash("ls"));
    let r = records(&rec);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["argv"], json!(["exec", format!("{}/x", c.cwd().display()), "$(touch pwned)", "*"]));
    assert!(!c.cwd().join("pwned").exists(), "no shell ran");
}

#[test]
fn tool_input_is_data_never_code() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    c.project(&settings("PreToolUse", "Bash", vec![command(sh(&["bash", &script("block-rm.sh")])), record(&rec, "r")]));
    let marker = c.cwd().join("pwned");
    let cmd = format!("$(touch {m}) `touch {m}` ; touch {m} '\"", m = marker.display());
    let out = c.fire(bash(&cmd));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(!marker.exists(), "the tool input reached a shell");
    let stdin: Value = serde_json::from_str(records(&rec)[0]["stdin"].as_str().unwrap()).unwrap();
    assert_eq!(stdin["tool_input"]["command"], cmd);
}

// ---------------------------------------------------------------------------------------------
// Sources: trust, bad entries, plugins, reload.

#[test]
fn an_untrusted_projects_claude_files_are_not_loaded_but_the_users_always_apply() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    c.user(&settings("PreToolUse", "Bash", vec![command(sh(&["bash", &script("block-rm.sh")])), record(&rec, "user")]));
    c.project(&settings(
        "PreToolUse",
        "",
        vec![record(&rec, "project"), json_answer(pre_tool("allow", "repo says yes"))],
    ));
    c.local(&settings("PreToolUse", "", vec![record(&rec, "local")]));
    let engine = c.engine(json!({ "trusted": false }));
    let out = fire(&engine, bash("rm -rf /"));
    assert_eq!(out["allowed"], false, "the user's guard still blocks: {out}");
    assert_eq!(tags(&rec), vec!["user"], "{out}");
    let w = warnings(&out);
    assert!(w.contains(".claude/settings.json"), "warnings must say the project's files were not loaded: {out}");

    // Trusted: all three load.
    let _ = std::fs::remove_file(&rec);
    fire(&c.engine(json!({ "trusted": true })), bash("ls"));
    assert_eq!(tags(&rec), vec!["local", "project", "user"]);
}

#[test]
fn claude_files_are_read_only_with_the_claude_option() {
    let c = Cc::new();
    c.user(&settings("PreToolUse", "Bash", vec![command(sh(&["bash", &script("block-rm.sh")]))]));
    let out = c.fire_with(json!({ "claude": false }), bash("rm -rf /"));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["hooks"], json!([]), "{out}");
}

#[test]
fn a_hostile_trusted_project_cannot_switch_off_or_outvote_the_users_hooks() {
    let c = Cc::new();
    c.user(&settings("PreToolUse", "Bash", vec![command(sh(&["bash", &script("block-rm.sh")]))]));
    // disableAllHooks in the project switches off only the project's hooks.
    c.project(&json!({ "disableAllHooks": true, "hooks": {} }));
    let out = c.fire(bash("rm -rf /"));
    assert_eq!(out["allowed"], false, "{out}");
    // An allow from the project does not beat the user's deny (deny > allow).
    c.project(&settings("PreToolUse", "*", vec![json_answer(pre_tool("allow", "trust me"))]));
    let out = c.fire(bash("rm -rf /"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
}

#[test]
fn disable_all_hooks_in_the_users_claude_settings_switches_off_every_hook() {
    let c = Cc::new();
    c.user(&json!({ "disableAllHooks": true }));
    c.oh("hooks:\n  preToolUse:\n    - command: exit 1\n");
    c.project(&settings("PreToolUse", "", vec![answer(2, "", "blocked")]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(out["hooks"], json!([]), "{out}");
}

#[test]
fn a_hostile_project_settings_file_cannot_turn_off_the_users_policy() {
    // Not JSON, the wrong shape, a huge nesting: whatever the engine does with it, the user's
    // guard must not be lost silently (either the engine refuses to start, or the guard runs).
    for text in
        ["{not json", "[1,2,3]", r#"{"hooks": "rm -rf /"}"#, &format!("{}{}", "[".repeat(100_000), "]".repeat(100_000))]
    {
        let c = Cc::new();
        c.user(&settings("PreToolUse", "Bash", vec![command(sh(&["bash", &script("block-rm.sh")]))]));
        write(&c.project_path(), text);
        match c.try_engine(json!({})) {
            Err(e) => assert!(e.contains("settings.json"), "the error names the file: {e}"),
            Ok(engine) => {
                let out = fire(&engine, bash("rm -rf /"));
                assert_eq!(out["allowed"], false, "{text:.40}: {out}");
                assert!(warnings(&out).contains("settings.json"), "{text:.40}: {out}");
            }
        }
    }
}

#[test]
fn attacker_hook_cannot_fail_open_with_exit_2() {
    // A hook that blocks with exit 2 cannot be turned into an allow by what it also prints:
    // garbage, a JSON allow, deprecated approve.
    let allow = pre_tool("allow", "ignore the exit code").to_string();
    let approve = json!({ "continue": true, "decision": "approve" }).to_string();
    exit_2_with_stdout_denies(&["garbage{{{", allow.as_str(), approve.as_str()]);
}

#[test]
fn exit_2_blocks_even_when_stdout_exceeds_max_output_bytes() {
    // A guard that dumps a large diff and exits 2 must still block: Claude Code reads stdout on
    // exit 2 only for a reason, and "even a JSON allow can't override" the block.
    exit_2_with_stdout_denies(&["x".repeat(2 << 20).as_str()]);
}

fn exit_2_with_stdout_denies(outputs: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for stdout in outputs {
        let payload = dir.path().join("payload");
        std::fs::write(&payload, stdout).unwrap();
        let c = Cc::new();
        c.project(&settings(
            "PreToolUse",
            "",
            vec![command(format!("cat {}; echo 'denied for real' >&2; exit 2", q(payload.to_str().unwrap())))],
        ));
        let out = c.fire(bash("ls"));
        assert_eq!(out["allowed"], false, "{:.60}: {out:.300}", stdout);
        assert_eq!(out["permissionDecision"], "deny", "{:.60}", stdout);
    }
}

#[test]
fn a_repeated_key_cannot_turn_a_deny_into_an_allow() {
    let text = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","permissionDecision":"allow"}}"#;
    let c = Cc::new();
    c.project(&settings("PreToolUse", "", vec![answer(0, text, "")]));
    let out = c.fire(bash("ls"));
    assert_eq!((out["allowed"].clone(), out["permissionDecision"].clone()), (json!(false), json!("deny")), "{out}");
}

#[test]
fn a_hostile_matcher_cannot_hang_the_fire() {
    // Catastrophic backtracking against a long tool name: the fire still returns promptly (the
    // 10 s bound only catches a hang) and the matcher counts as no match or a match, nothing worse.
    let c = Cc::new();
    c.project(&groups(
        "PreToolUse",
        vec![("^(a+)+$", vec![answer(2, "", "matched")]), ("(?=a)(a|aa)+b", vec![answer(2, "", "matched 2")])],
    ));
    let engine = c.engine(json!({}));
    let start = Instant::now();
    let out = fire(&engine, tool(&format!("{}!", "a".repeat(5000))));
    assert!(start.elapsed() < Duration::from_secs(10), "took {:?}: {out}", start.elapsed());
    assert!(out.get("error").is_none(), "{out}");
}

#[test]
fn a_bad_entry_is_skipped_with_a_warning_and_the_rest_loads() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let mut good = command(sh(&["bash", &script("block-rm.sh")]));
    good["description"] = json!("unknown keys are ignored");
    c.project(&json!({
        "permissions": { "allow": ["Bash(ls:*)"] },
        "model": "claude-sonnet",
        "hooks": {
            "PreToolUse": [
                "just a string",
                { "matcher": "Bash", "hooks": [ { "type": "command" } ] },
                { "matcher": "Bash", "hooks": [ { "type": "webhook", "url": "http://x" } ] },
                { "matcher": "Bash", "hooks": [ good, record(&rec, "good-2") ] } ],
            "PreToolUze": [ { "hooks": [ record(&rec, "typo-event") ] } ] } }));
    let out = c.fire(bash("rm -rf /"));
    assert_eq!(out["allowed"], false, "the good entry still loads: {out}");
    assert_eq!(tags(&rec), vec!["good-2"], "{out}");
    let w = warnings(&out);
    assert!(w.contains("settings.json"), "{out}");
    assert!(w.contains("PreToolUze"), "the unknown event is named: {out}");
    assert!(out["warnings"].as_array().unwrap().len() >= 3, "one warning per skipped entry: {out}");
}

#[test]
fn plugin_hooks_json_with_claude_plugin_root() {
    let c = Cc::new();
    let rec = c.file("rec.jsonl");
    let plugin = c.home.path().join("plugins/safety");
    write(&plugin.join("scripts/guard.sh"), &std::fs::read_to_string(script("block-rm.sh")).unwrap());
    let hooks = json!({ "description": "safety plugin", "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [
        { "type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh\"" },
        record(&rec, "env"),
        { "type": "command", "command": "node", "args": [script("record.js"), rec, "exec", "${CLAUDE_PLUGIN_ROOT}/data"] } ] } ] } });
    write(&plugin.join("hooks/hooks.json"), &hooks.to_string());
    let engine = c.engine(json!({ "claudePlugins": [plugin] }));
    let out = fire(&engine, bash("rm -rf /"));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "Blocked: rm -rf is not allowed here", "{out}");
    let sources: Vec<&Value> = claude_traces(&out).iter().map(|t| &t["source"]).collect();
    assert!(sources.iter().all(|s| *s == &json!(plugin.join("hooks/hooks.json"))), "{out}");
    let r = records(&rec);
    let env = r.iter().find(|x| x["argv"][0] == "env").unwrap();
    assert_eq!(env["env"]["CLAUDE_PLUGIN_ROOT"], json!(plugin));
    let exec = r.iter().find(|x| x["argv"][0] == "exec").unwrap();
    assert_eq!(exec["argv"][1], json!(format!("{}/data", plugin.display())));

    // {"root", "data"} also sets CLAUDE_PLUGIN_DATA.
    let data = c.home.path().join("plugin-data");
    std::fs::create_dir_all(&data).unwrap();
    let _ = std::fs::remove_file(&rec);
    fire(&c.engine(json!({ "claudePlugins": [ { "root": plugin, "data": data } ] })), bash("ls"));
    let r = records(&rec);
    let env = r.iter().find(|x| x["argv"][0] == "env").unwrap();
    assert_eq!(env["env"]["CLAUDE_PLUGIN_DATA"], json!(data));
}

#[test]
fn claude_settings_are_reloaded_when_they_change() {
    let _serial = serial();
    let c = Cc::new();
    c.project(&settings("PreToolUse", "Bash", vec![command("exit 0")]));
    let engine = c.engine(json!({}));
    assert_eq!(fire(&engine, bash("ls"))["allowed"], true);
    std::thread::sleep(Duration::from_millis(50));
    c.project(&settings("PreToolUse", "Bash", vec![answer(2, "", "now blocked")]));
    let start = Instant::now();
    let mut last = Value::Null;
    while start.elapsed() < Duration::from_secs(5) {
        last = fire(&engine, bash("ls"));
        if last["allowed"] == false {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(last["reason"], "now blocked", "{last}");
}

#[test]
fn async_hooks_decide_nothing() {
    let c = Cc::new();
    let h = json!({ "type": "command", "command": "echo no >&2; exit 2", "async": true });
    c.project(&settings("PreToolUse", "", vec![h]));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(out.get("permissionDecision").is_none(), "{out}");
}

#[test]
fn prompt_and_agent_hooks_without_a_callback_are_skipped_with_a_warning() {
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![
            json!({ "type": "prompt", "prompt": "Is this safe? $ARGUMENTS" }),
            json!({ "type": "agent", "prompt": "Check it" }),
        ],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], true, "Claude Code skips a hook it cannot run: {out}");
    assert!(warnings(&out).contains("prompt"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// The CLI.

#[test]
fn cli_fire_claude_and_check() {
    let c = Cc::new();
    c.project(&json!({ "hooks": { "PreToolUse": [
        { "matcher": "Bash", "hooks": [ { "type": "command", "command": sh(&["bash", &script("block-rm.sh")]) } ] },
        { "matcher": "Bash", "hooks": [ { "type": "command" } ] } ] } }));
    let opts = json!({ "home": c.home.path() }).to_string();
    let cli = || {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_oh-hooks"));
        cmd.env("HOME", c.home.path());
        cmd
    };
    let out = cli()
        .args(["fire", "--claude", "--trusted", "--options", &opts, "--cwd"])
        .arg(c.cwd())
        .arg(bash("rm -rf /").to_string())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text} {}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Blocked: rm -rf is not allowed here"), "{text}");

    let out =
        cli().args(["check", "--claude", "--trusted", "--options", &opts, "--cwd"]).arg(c.cwd()).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("block-rm.sh"), "check lists every Claude Code hook: {text}");
    assert!(text.contains(&real_path(&c.project_path())), "with its source file: {text}");
    assert!(text.to_lowercase().contains("skip"), "and every entry it skipped: {text}");
}

// ---------------------------------------------------------------------------------------------
// HTTP hooks: the same JSON as the POST body, headers with allowed variables, fail open.

/// A request as the server saw it: lower-cased header names with values, and the body.
type Request = (Vec<(String, String)>, String);

/// A one-request-per-connection HTTP server that records each request's headers and body and
/// answers by path: /deny (a Claude Code deny), /500, /empty.
struct Http {
    port: u16,
    seen: std::sync::Arc<std::sync::Mutex<Vec<Request>>>,
}

impl Http {
    fn start() -> Http {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                if reader.read_line(&mut first).unwrap_or(0) == 0 {
                    continue;
                }
                let mut headers = Vec::new();
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim_end().is_empty() {
                        break;
                    }
                    let (k, v) = line.trim_end().split_once(':').unwrap_or((line.trim_end(), ""));
                    headers.push((k.to_ascii_lowercase(), v.trim().to_string()));
                }
                let length = headers.iter().find(|h| h.0 == "content-length").map_or(0, |h| h.1.parse().unwrap_or(0));
                let mut body = vec![0u8; length];
                let _ = reader.read_exact(&mut body);
                log.lock().unwrap().push((headers, String::from_utf8_lossy(&body).into_owned()));
                let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
                let (status, answer) = match path.as_str() {
                    "/deny" => (200, pre_tool("deny", "server says no").to_string()),
                    "/empty" => (200, String::new()),
                    _ => (500, "oops".to_string()),
                };
                let mut w = stream;
                let _ = write!(
                    w,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
            }
        });
        Http { port, seen }
    }
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

#[test]
fn http_hooks_post_claude_codes_json_with_allowed_variables_in_headers() {
    let server = Http::start();
    let c = Cc::new();
    let h = json!({ "type": "http", "url": server.url("/deny"),
        "headers": { "Authorization": "Bearer $MY_TOKEN", "X-Other": "${SECRET_NOT_ALLOWED}" },
        "allowedEnvVars": ["MY_TOKEN"] });
    c.project(&settings("PreToolUse", "Bash", vec![h]));
    let out = c.fire_with(
        json!({ "env": { "MY_TOKEN": "t0k3n", "SECRET_NOT_ALLOWED": "s3cret" } }),
        json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": "ls" }, "sessionId": "s-1" }),
    );
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "server says no", "{out}");
    assert_eq!(one_claude_trace(&out)["type"], "http", "{out}");
    let seen = server.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let (headers, body) = &seen[0];
    let header = |n: &str| headers.iter().find(|h| h.0 == n).map(|h| h.1.clone());
    assert_eq!(header("authorization").as_deref(), Some("Bearer t0k3n"));
    assert!(!format!("{headers:?}").contains("s3cret"), "only allowedEnvVars are interpolated: {headers:?}");
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!(body["hook_event_name"], "PreToolUse", "{body}");
    assert_eq!(body["tool_input"], json!({ "command": "ls" }), "{body}");
    assert_eq!(body["session_id"], "s-1", "{body}");
}

#[test]
fn http_hook_errors_fail_open_unlike_openharness_http_hooks() {
    let server = Http::start();
    for path in ["/500", "/empty"] {
        let c = Cc::new();
        c.project(&settings("PreToolUse", "", vec![json!({ "type": "http", "url": server.url(path) })]));
        let out = c.fire(bash("ls"));
        assert_eq!(out["allowed"], true, "{path}: {out}");
        assert!(out.get("permissionDecision").is_none(), "{out}");
    }
    // A refused connection too.
    let c = Cc::new();
    c.project(&settings(
        "PreToolUse",
        "",
        vec![json!({ "type": "http", "url": "http://127.0.0.1:9/x", "timeout": 2 })],
    ));
    let out = c.fire(bash("ls"));
    assert_eq!(out["allowed"], true, "{out}");
    assert!(one_claude_trace(&out)["failure"].is_string(), "{out}");
}

// ---------------------------------------------------------------------------------------------
// prompt hooks answered by the host (the model verdict {ok, reason, impossible}).

struct Verdict(&'static str);

impl oh_hooks::host::HostFunction for Verdict {
    fn call(&self, _request: &str, call: u64) {
        oh_hooks::host::answer(call, Some(self.0.as_bytes().to_vec()));
    }
}

#[test]
fn prompt_hook_verdicts_mean_what_they_mean_in_claude_code() {
    // Reference "Response schema": ok:false denies on PreToolUse; on Stop it keeps the turn
    // going with the reason, unless `impossible` says the goal cannot be reached.
    let c = Cc::new();
    let mut s = settings("PreToolUse", "Bash", vec![json!({ "type": "prompt", "prompt": "Is $ARGUMENTS safe?" })]);
    s["hooks"]["Stop"] = json!([{ "hooks": [{ "type": "prompt", "prompt": "Is the task done? $ARGUMENTS" }] }]);
    c.project(&s);
    let cases: Vec<(&'static str, Value, Value)> = vec![
        (r#"{"ok": false, "reason": "deletes the repo"}"#, bash("rm -rf ."), json!([false, "deletes the repo"])),
        (r#"{"ok": true}"#, bash("ls"), json!([true, null])),
        (
            r#"{"ok": false, "reason": "tests not run"}"#,
            json!({ "event": "turnStop" }),
            json!([false, "tests not run"]),
        ),
        (r#"{"ok": false, "reason": "cannot", "impossible": true}"#, json!({ "event": "turnStop" }), json!([true])),
    ];
    let mut wrong = Vec::new();
    for (verdict, envelope, want) in cases {
        let engine = c.engine(json!({}));
        engine.register("prompt", Some(std::sync::Arc::new(Verdict(verdict))));
        let out = fire(&engine, envelope.clone());
        if out["allowed"] != want[0] || (want[0] == false && out["reason"] != want[1]) {
            wrong.push(format!("{verdict} on {envelope}: want {want}, got {out}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
