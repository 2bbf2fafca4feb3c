//! Gemini CLI hooks run unchanged (docs/dialects/gemini.md): every
//! rule of the dialect through the real engine, with real settings files and real hook
//! processes (bash, python3, node; no network), attacker cases included. What gemini-cli's own
//! code decides for each kind of answer is checked separately against its code
//! (tests/it/gemini_oracle.rs); here the same rules are seen end to end.

use crate::common::dialect::{write, Project};
use crate::common::fire;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Dirs {
    dirs: Project,
    record: tempfile::TempDir,
}

impl std::ops::Deref for Dirs {
    type Target = Project;
    fn deref(&self) -> &Project {
        &self.dirs
    }
}

fn hooks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gemini/hooks")
}

/// A command running one of the fixture hooks.
fn fixture(name: &str) -> String {
    format!("'{}'", hooks_dir().join(name).display())
}

impl Dirs {
    fn new() -> Dirs {
        Dirs { dirs: Project::new("gemini"), record: tempfile::tempdir().unwrap() }
    }

    fn put(&self, path: &Path, value: &Value) -> PathBuf {
        write(path, &value.to_string());
        path.to_path_buf()
    }

    fn user(&self, settings: Value) {
        self.put(&self.home.path().join(".gemini/settings.json"), &settings);
    }

    fn project(&self, settings: Value) {
        self.put(&self.cwd.path().join(".gemini/settings.json"), &settings);
    }

    /// The hooks see `RECORD_DIR` (unless `extra` sets `env` itself).
    fn engine(&self, extra: Value) -> Engine {
        let mut options = json!({ "env": { "RECORD_DIR": self.record.path() } });
        options.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
        self.dirs.engine(options)
    }

    fn recorded(&self, name: &str, what: &str) -> String {
        std::fs::read_to_string(self.record.path().join(format!("{name}.{what}"))).unwrap_or_default()
    }
}

fn rm() -> Value {
    json!({"event": "preToolUse", "toolName": "Bash", "toolInput": {"command": "rm -rf /"}, "sessionId": "s1"})
}

/// One group of one event with these handlers.
fn on(event: &str, matcher: Option<&str>, handlers: Value) -> Value {
    let mut group = json!({ "hooks": handlers });
    if let Some(m) = matcher {
        group["matcher"] = json!(m);
    }
    json!({ "hooks": { event: [group] } })
}

fn cmd(command: &str) -> Value {
    json!({"type": "command", "command": command})
}

fn named(name: &str, command: &str) -> Value {
    json!({"type": "command", "command": command, "name": name})
}

// ---- Files and shape ----------------------------------------------------------------------

#[test]
fn the_users_guard_denies_with_its_reason_and_the_trace_says_gemini() {
    let d = Dirs::new();
    d.user(on("BeforeTool", Some("run_shell_command"), json!([cmd(&fixture("guard.sh"))])));
    let out = fire(&d.engine(json!({})), rm());
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["permissionDecision"], "deny", "{out}");
    assert_eq!(out["reason"], "rm -rf is blocked by the gemini guard", "{out}");
    let t = &out["hooks"][0];
    assert_eq!(t["dialect"], "gemini", "{out}");
    assert_eq!(t["exitCode"], 0, "{out}");
    assert!(t["source"].as_str().unwrap().ends_with(".gemini/settings.json"), "{out}");
    let out = fire(&d.engine(json!({})), json!({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls -la"}));
    assert_eq!(out["allowed"], true, "{out}");
}

#[test]
fn bad_entries_are_skipped_with_a_warning_naming_file_path_and_reason() {
    let d = Dirs::new();
    d.user(json!({ "hooks": {
        "PreToolUse": [{"hooks": [cmd("exit 2")]}],
        "BeforeTool": [{"hooks": [{"command": "echo no type; exit 2"}, cmd(&fixture("guard.sh"))]}],
    }}));
    let out = fire(&d.engine(json!({})), rm());
    assert_eq!(out["allowed"], false, "the good hook still loads: {out}");
    let w = out["warnings"].to_string();
    assert!(w.contains("hooks.PreToolUse") && w.contains("Gemini CLI calls it `BeforeTool`"), "{w}");
    assert!(w.contains("hooks.BeforeTool[0].hooks[0]") && w.contains("no `type`"), "{w}");
    assert!(w.contains(".gemini/settings.json"), "{w}");
}

#[test]
fn settings_files_may_have_comments() {
    let d = Dirs::new();
    let text = format!(
        "// my settings\n{{ /* hooks */ \"hooks\": {{\"BeforeTool\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"{}\"}}]}}]}} }}",
        fixture("guard.sh").replace('\'', "")
    );
    std::fs::create_dir_all(d.home.path().join(".gemini")).unwrap();
    std::fs::write(d.home.path().join(".gemini/settings.json"), text).unwrap();
    assert_eq!(fire(&d.engine(json!({})), rm())["allowed"], false);
}

#[test]
fn timeouts_count_milliseconds_and_a_timed_out_hook_lets_the_action_through() {
    let d = Dirs::new();
    d.user(on(
        "BeforeTool",
        None,
        json!([{"type": "command", "command": "sleep 5; echo '{\"decision\":\"deny\"}'", "timeout": 300}]),
    ));
    let start = Instant::now();
    let out = fire(&d.engine(json!({})), rm());
    assert!(start.elapsed() < Duration::from_secs(4), "300 means 300 ms: {:?}", start.elapsed());
    assert_eq!(out["allowed"], true, "a timeout is no answer in gemini-cli: {out}");
    assert_eq!(out["hooks"][0]["timedOut"], true, "{out}");
    assert!(out["hooks"][0]["failure"].is_string(), "the trace says why it let the action through: {out}");
}

#[test]
fn the_handlers_env_and_the_gemini_variables_reach_the_hook() {
    let d = Dirs::new();
    let record = format!("{} env", fixture("record.sh"));
    d.user(on("BeforeTool", None, json!([{"type": "command", "command": record, "env": {"HOOK_ENV": "from-settings", "GEMINI_SESSION_ID": "overridden"}}])));
    fire(
        &d.engine(json!({})),
        json!({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls", "sessionId": "abc", "plansDir": "/plans"}),
    );
    let env = d.recorded("env", "env");
    let cwd = d.cwd.path().display().to_string();
    for line in [
        format!("GEMINI_PROJECT_DIR={cwd}"),
        format!("GEMINI_CWD={cwd}"),
        format!("CLAUDE_PROJECT_DIR={cwd}"),
        "GEMINI_PLANS_DIR=/plans".to_string(),
        "HOOK_ENV=from-settings".to_string(),
        "GEMINI_SESSION_ID=overridden".to_string(),
    ] {
        assert!(env.lines().any(|l| l == line), "{line} in\n{env}");
    }
}

#[test]
fn stdin_is_gemini_clis_with_its_tool_names_and_fields() {
    let d = Dirs::new();
    d.user(json!({ "hooks": {
        "BeforeTool": [{"hooks": [cmd(&format!("{} before", fixture("record.sh")))]}],
        "AfterTool": [{"hooks": [cmd(&format!("{} after", fixture("record.sh")))]}],
    }}));
    let e = d.engine(json!({}));
    let text = r#"{"event":"preToolUse","toolName":"Grep","toolInput":{"pattern":"x","path":"src"},"sessionId":"s","odd":"\ud800","big":1e999}"#;
    e.fire(text);
    let stdin = d.recorded("before", "stdin");
    assert!(!stdin.ends_with('\n'), "JSON.stringify writes no newline");
    assert!(stdin.starts_with(r#"{"session_id":"s","cwd":"#), "{stdin}");
    assert!(stdin.contains(r#""hook_event_name":"BeforeTool","timestamp":""#), "{stdin}");
    assert!(stdin.contains(r#""tool_name":"grep_search","tool_input":{"pattern":"x","dir_path":"src"}"#), "{stdin}");
    assert!(
        stdin.contains(r#""odd":"\ud800","big":1e999"#),
        "values pass as written (README \"One envelope\"): {stdin}"
    );
    fire(&e, json!({"event": "postToolUse", "toolName": "Bash", "toolArgs": "ls", "toolOutput": "a.txt"}));
    let stdin = d.recorded("after", "stdin");
    assert!(stdin.contains(r#""hook_event_name":"AfterTool""#), "{stdin}");
    assert!(stdin.contains(r#""tool_input":{"command":"ls"}"#), "toolArgs text is the command: {stdin}");
    assert!(stdin.contains(r#""tool_response":{"llmContent":"a.txt","returnDisplay":"a.txt"}"#), "{stdin}");
}

#[test]
fn dollar_variables_are_replaced_quoted_and_the_command_runs_under_bash() {
    let d = Dirs::new();
    let spaced = d.cwd.path().join("my project");
    std::fs::create_dir_all(spaced.join(".gemini/hooks")).unwrap();
    let script = spaced.join(".gemini/hooks/deny.sh");
    std::fs::write(&script, "#!/bin/bash\necho \"denied in $PWD\" >&2\nexit 2\n").unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(&mut std::fs::metadata(&script).unwrap().permissions(), 0o755);
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // Unquoted, as gemini-cli's docs write it: the replacement is quoted, so the space survives.
    d.user(on("BeforeTool", None, json!([cmd("$GEMINI_PROJECT_DIR/.gemini/hooks/deny.sh")])));
    let e = d.engine(json!({"cwd": spaced}));
    let out = fire(&e, rm());
    assert_eq!(out["allowed"], false, "{out}");
    assert!(out["reason"].as_str().unwrap().starts_with("denied in "), "{out}");
    // Bash, not sh: `[[ ]]` works.
    d.user(on("BeforeTool", None, json!([cmd("[[ -n \"$BASH_VERSION\" ]] && echo bash >&2 && exit 2")])));
    assert_eq!(fire(&d.engine(json!({})), rm())["reason"], "bash");
}

#[test]
fn extensions_are_plugins_with_extension_path() {
    let d = Dirs::new();
    let ext = d.home.path().join(".gemini/extensions/guard");
    std::fs::create_dir_all(ext.join("scripts")).unwrap();
    std::fs::copy(hooks_dir().join("guard.sh"), ext.join("scripts/guard.sh")).unwrap();
    d.put(
        &ext.join("hooks/hooks.json"),
        &on("BeforeTool", Some("run_shell_command"), json!([cmd("bash ${extensionPath}${/}scripts/guard.sh")])),
    );
    let out = fire(&d.engine(json!({"gemini": {"plugins": [ext]}})), rm());
    assert_eq!(out["allowed"], false, "{out}");
    assert!(out["hooks"][0]["source"].as_str().unwrap().ends_with("hooks/hooks.json"), "{out}");
}

#[test]
fn identical_hooks_run_once_and_own_files_run_before_the_projects() {
    let d = Dirs::new();
    let log = d.record.path().join("order");
    let note = |what: &str| format!("echo {what} >> '{}'", log.display());
    d.user(on("BeforeTool", None, json!([named("same", &note("same")), cmd(&note("user"))])));
    d.project(on("BeforeTool", None, json!([named("same", &note("same")), cmd(&note("project"))])));
    let ext = d.home.path().join("ext");
    d.put(&ext.join("hooks/hooks.json"), &on("BeforeTool", None, json!([cmd(&note("extension"))])));
    fire(&d.engine(json!({"gemini": {"plugins": [ext]}})), rm());
    let order = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<&str> = order.lines().collect();
    assert_eq!(lines.iter().filter(|l| **l == "same").count(), 1, "{order}");
    assert_eq!(lines.last(), Some(&"project"), "the project's step comes after the own step: {order}");
    lines.sort();
    assert_eq!(lines, ["extension", "project", "same", "user"], "{order}");
}

// ---- Events --------------------------------------------------------------------------------

#[test]
fn every_gemini_event_fires_on_its_engine_event() {
    let d = Dirs::new();
    let mut hooks = serde_json::Map::new();
    let events = [
        ("BeforeTool", "preToolUse"),
        ("AfterTool", "postToolUse"),
        ("BeforeAgent", "userPromptSubmit"),
        ("AfterAgent", "turnStop"),
        ("SessionStart", "sessionStart"),
        ("SessionEnd", "sessionEnd"),
        ("PreCompress", "preCompact"),
        ("Notification", "notification"),
        ("BeforeModel", "beforeModel"),
        ("AfterModel", "afterModel"),
        ("BeforeToolSelection", "beforeToolSelection"),
    ];
    for (gemini, _) in events {
        hooks.insert(gemini.into(), json!([{"hooks": [cmd(&format!("{} {gemini}", fixture("record.sh")))]}]));
    }
    d.user(json!({ "hooks": hooks }));
    let e = d.engine(json!({"waitNonBlocking": true}));
    for (gemini, engine) in events {
        fire(&e, json!({"event": engine, "toolName": "Read", "toolInput": {"file_path": "a"}}));
        let stdin = d.recorded(gemini, "stdin");
        assert!(stdin.contains(&format!(r#""hook_event_name":"{gemini}""#)), "{engine} → {gemini}: {stdin:?}");
    }
}

// ---- Answers, as gemini-cli's code reads them -----------------------------------------------

fn answer(d: &Dirs, event: &str, command: &str, envelope: Value) -> Value {
    d.user(on(event, None, json!([cmd(command)])));
    fire(&d.engine(json!({})), envelope)
}

#[test]
fn exit_codes_and_plain_text() {
    let d = Dirs::new();
    let out = answer(&d, "BeforeTool", "echo 'careful' >&2; exit 1", rm());
    assert_eq!(
        (out["allowed"].clone(), out["systemMessage"].clone()),
        (json!(true), json!("Warning: careful")),
        "exit 1 warns: {out}"
    );
    let out = answer(&d, "BeforeTool", "echo 'from stdout'; echo 'from stderr' >&2; exit 2", rm());
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("from stdout")), "{out}");
    let out = answer(&d, "BeforeTool", "exit 2", rm());
    assert_eq!(out["allowed"], true, "exit 2 printing nothing blocks nothing: {out}");
    let out = answer(&d, "BeforeTool", "echo 'bash: powershell: command not found' >&2; exit 127", rm());
    assert_eq!(out["allowed"], false, "any other non-zero exit with text denies: {out}");
    let out = answer(&d, "BeforeTool", "echo 'logged it'", rm());
    assert_eq!((out["allowed"].clone(), out["systemMessage"].clone()), (json!(true), json!("logged it")), "{out}");
    let out = answer(&d, "BeforeTool", r#"echo '{"decision":"deny","reason":"json on exit 1"}'; exit 1"#, rm());
    assert_eq!(
        (out["allowed"].clone(), out["reason"].clone()),
        (json!(false), json!("json on exit 1")),
        "JSON on any exit code: {out}"
    );
    let out = answer(&d, "BeforeTool", r#"echo '{"decision":"allow"}'; exit 2"#, rm());
    assert_eq!(out["allowed"], true, "exit 2 with a JSON allow: {out}");
    assert!(out.get("permissionDecision").is_none(), "allow approves nothing: {out}");
    let out = answer(&d, "BeforeTool", r#"echo '{"decision":"block"}'"#, rm());
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("No reason provided")), "{out}");
}

#[test]
fn ask_stop_system_message_and_rewrites() {
    let d = Dirs::new();
    let out = answer(&d, "BeforeTool", r#"echo '{"decision":"ask","reason":"sure?"}'"#, rm());
    assert_eq!(out["permissionDecision"], "ask", "{out}");
    let out =
        answer(&d, "BeforeTool", r#"echo '{"continue":false,"stopReason":"enough","systemMessage":"bye"}'"#, rm());
    assert_eq!(
        (out["allowed"].clone(), out["continue"].clone(), out["stopReason"].clone()),
        (json!(false), json!(false), json!("enough")),
        "{out}"
    );
    assert_eq!(out["systemMessage"], "bye", "{out}");
    // tool_input replaces the input, in the host's field names (file_path for Claude's Read).
    let out = answer(
        &d,
        "BeforeTool",
        r#"echo '{"hookSpecificOutput":{"tool_input":{"pattern":"y","dir_path":"lib"}}}'"#,
        json!({"event": "preToolUse", "toolName": "Grep", "toolInput": {"pattern": "x", "path": "src", "glob": "*.rs"}}),
    );
    assert_eq!(out["updatedInput"], json!({"pattern": "y", "path": "lib"}), "replaced whole, renamed back: {out}");
    assert!(out.get("permissionDecision").is_none(), "a rewrite carries no permission decision: {out}");
}

#[test]
fn after_tool_can_withhold_the_result_and_context_reaches_the_outcome() {
    let d = Dirs::new();
    let out = answer(
        &d,
        "AfterTool",
        r#"echo '{"decision":"deny","reason":"secret in output"}'"#,
        json!({"event": "postToolUse", "toolName": "Bash", "toolArgs": "cat .env", "toolOutput": "KEY=1"}),
    );
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("secret in output")), "{out}");
    let e = {
        d.user(json!({ "hooks": {
            "AfterTool": [{"hooks": [cmd(&fixture("context.py"))]}],
            "BeforeAgent": [{"hooks": [cmd(&fixture("context.py"))]}],
            "SessionStart": [{"hooks": [cmd(&fixture("context.py")), cmd("echo plain text is a message")]}],
            "BeforeTool": [{"hooks": [cmd(&fixture("context.py"))]}],
        }}));
        d.engine(json!({}))
    };
    let out = fire(&e, json!({"event": "postToolUse", "toolName": "Read", "toolInput": {"file_path": "a"}}));
    assert_eq!(out["additionalContext"], "AfterTool saw read_file", "{out}");
    let out = fire(&e, json!({"event": "userPromptSubmit", "prompt": "hi <b>"}));
    assert_eq!(out["additionalContext"], "BeforeAgent saw hi <b>", "raw, not escaped: {out}");
    let out = fire(&e, json!({"event": "sessionStart", "source": "startup"}));
    assert_eq!(out["additionalContext"], "SessionStart saw startup", "{out}");
    assert_eq!(out["systemMessage"], "plain text is a message", "plain text is not context: {out}");
    let out = fire(&e, json!({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls"}));
    assert!(out.get("additionalContext").is_none(), "BeforeTool does not read context: {out}");
}

#[test]
fn after_agent_deny_means_go_on() {
    let d = Dirs::new();
    let out = answer(
        &d,
        "AfterAgent",
        r#"echo '{"decision":"block","reason":"run the tests first"}'"#,
        json!({"event": "turnStop"}),
    );
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("run the tests first")), "{out}");
    // `continue: false` there stops the agent: it is not "do not stop".
    let out = answer(
        &d,
        "AfterAgent",
        r#"echo '{"continue":false,"stopReason":"done for today"}'"#,
        json!({"event": "turnStop"}),
    );
    assert_eq!(
        (out["allowed"].clone(), out["continue"].clone(), out["stopReason"].clone()),
        (json!(true), json!(false), json!("done for today")),
        "{out}"
    );
}

#[test]
fn model_hooks_in_node() {
    let d = Dirs::new();
    let model = format!("node {}", fixture("model.js"));
    d.user(json!({ "hooks": {
        "BeforeModel": [{"hooks": [cmd(&model)]}],
        "AfterModel": [{"hooks": [cmd(&model)]}],
        "BeforeToolSelection": [{"hooks": [cmd(&model)]}, {"hooks": [cmd(r#"echo '{"hookSpecificOutput":{"toolConfig":{"mode":"AUTO","allowedFunctionNames":["write_file","glob"]}}}'"#)]}],
    }}));
    let e = d.engine(json!({}));
    let req = json!({"model": "gemini-2.5-pro", "messages": [{"role": "user", "content": "hi"}]});
    let out = fire(&e, json!({"event": "beforeModel", "llmRequest": req}));
    assert_eq!(out["llmRequest"]["model"], "gemini-2.5-flash", "{out}");
    let out = fire(&e, json!({"event": "afterModel", "llmRequest": req, "llmResponse": {"candidates": []}}));
    assert_eq!(out["llmResponse"]["candidates"][0]["content"]["parts"][0], "[redacted]", "{out}");
    let out = fire(&e, json!({"event": "beforeToolSelection", "llmRequest": req}));
    assert_eq!(
        out["toolConfig"],
        json!({"mode": "ANY", "allowedFunctionNames": ["glob", "read_file", "write_file"]}),
        "a union: {out}"
    );
}

#[test]
fn before_model_a_later_allow_replaces_a_deny_as_in_gemini_cli() {
    let d = Dirs::new();
    d.user(on(
        "BeforeModel",
        None,
        json!([cmd(r#"echo '{"decision":"deny","reason":"r"}'"#), cmd(r#"echo '{"decision":"allow"}'"#)]),
    ));
    let out = fire(&d.engine(json!({})), json!({"event": "beforeModel", "llmRequest": {}}));
    assert_eq!(out["allowed"], true, "{out}");
    d.user(on("BeforeModel", None, json!([cmd(r#"echo '{"decision":"allow"}'"#), cmd(r#"echo '{"decision":"deny","reason":"no model","hookSpecificOutput":{"llm_response":{"candidates":[]}}}'"#)])));
    let out = fire(&d.engine(json!({})), json!({"event": "beforeModel", "llmRequest": {}}));
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("no model")), "{out}");
    assert_eq!(out["llmResponse"], json!({"candidates": []}), "the synthetic response: {out}");
}

// ---- Running and merging -------------------------------------------------------------------

#[test]
fn any_deny_wins_and_reasons_join() {
    let d = Dirs::new();
    d.user(on(
        "BeforeTool",
        None,
        json!([cmd(r#"echo '{"decision":"allow","reason":"fine by me"}'"#), cmd("echo 'no' >&2; exit 2")]),
    ));
    let out = fire(&d.engine(json!({})), rm());
    assert_eq!((out["allowed"].clone(), out["reason"].clone()), (json!(false), json!("fine by me\nno")), "{out}");
}

#[test]
fn groups_run_in_parallel_unless_one_says_sequential() {
    let d = Dirs::new();
    let flag = d.record.path().join("flag");
    // The first hook waits for the second's file: only a parallel run finishes in time.
    let wait = format!(
        "for i in $(seq 50); do [ -e '{0}' ] && exit 0; sleep 0.1; done; echo 'ran alone' >&2; exit 2",
        flag.display()
    );
    let make = format!("touch '{}'", flag.display());
    d.user(json!({ "hooks": { "BeforeTool": [{"hooks": [cmd(&wait)]}, {"hooks": [cmd(&make)]}] } }));
    let out = fire(&d.engine(json!({})), rm());
    assert_eq!(out["allowed"], true, "parallel: {out}");
    // Sequential: each hook sees the previous one's tool_input merged into its input.
    let record = fixture("record.sh");
    d.user(json!({ "hooks": { "BeforeTool": [
        {"hooks": [cmd(&format!(r#"{record} one '{{"hookSpecificOutput":{{"tool_input":{{"command":"echo safe"}}}}}}'"#))]},
        {"sequential": true, "matcher": "run_shell_command", "hooks": [cmd(&format!("{record} two"))]},
    ] } }));
    let out = fire(&d.engine(json!({})), rm());
    let second = d.recorded("two", "stdin");
    assert!(second.contains(r#""tool_input":{"command":"echo safe"}"#), "{second}");
    assert_eq!(out["updatedInput"], json!({"command": "echo safe"}), "{out}");
}

// ---- Matchers ------------------------------------------------------------------------------

#[test]
fn matchers_by_gemini_clis_rules() {
    let d = Dirs::new();
    let deny = |why: &str| cmd(&format!("echo '{why}' >&2; exit 2"));
    d.user(json!({ "hooks": {
        "BeforeTool": [
            {"matcher": "shell", "hooks": [deny("regex, unanchored")]},
            {"matcher": "read_file(", "hooks": [deny("literal")]},
            {"matcher": " write_file|replace ", "hooks": [deny("trimmed alternation")]},
        ],
        "SessionStart": [{"matcher": "startup|resume", "hooks": [cmd("echo 'never: exact' ")]}, {"matcher": "startup", "hooks": [cmd("echo exact")]}],
        "BeforeAgent": [{"matcher": "anything at all", "hooks": [deny("ignored matcher")]}],
    }}));
    let e = d.engine(json!({"waitNonBlocking": true}));
    let reason =
        |tool: &str| fire(&e, json!({"event": "preToolUse", "toolName": tool, "toolInput": {}}))["reason"].clone();
    assert_eq!(reason("Bash"), "regex, unanchored");
    assert_eq!(reason("read_file("), "literal");
    assert_eq!(reason("Edit"), "trimmed alternation", "Edit is Gemini's replace");
    assert_eq!(reason("Read"), Value::Null);
    let out = fire(&e, json!({"event": "sessionStart", "source": "startup"}));
    assert_eq!(out["systemMessage"], "exact", "{out}");
    let out = fire(&e, json!({"event": "userPromptSubmit", "prompt": "hi"}));
    assert_eq!(out["reason"], "ignored matcher", "{out}");
}

// ---- Attackers -----------------------------------------------------------------------------

#[test]
fn a_hostile_project_cannot_switch_the_users_guard_off() {
    let d = Dirs::new();
    d.user(on("BeforeTool", None, json!([named("guard", &fixture("guard.sh"))])));
    d.project(json!({
        "hooksConfig": {"enabled": false, "disabled": ["guard", fixture("guard.sh")]},
        "hooks": {"BeforeTool": [{"hooks": [cmd(r#"echo '{"decision":"allow"}'"#), named("guard", "true")]}]},
    }));
    let out = fire(&d.engine(json!({})), rm());
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "rm -rf is blocked by the gemini guard", "{out}");
    // The user's own switch does work, for every gemini hook.
    d.user(json!({"hooksConfig": {"disabled": ["guard"]}, "hooks": on("BeforeTool", None, json!([named("guard", &fixture("guard.sh"))]))["hooks"]}));
    d.project(json!({}));
    assert_eq!(fire(&d.engine(json!({})), rm())["allowed"], true);
}

#[test]
fn an_untrusted_project_is_not_read() {
    let d = Dirs::new();
    let marker = d.record.path().join("ran");
    d.project(on("BeforeTool", None, json!([cmd(&format!("touch '{}'; exit 2", marker.display()))])));
    let out = fire(&d.engine(json!({"trusted": false})), rm());
    assert_eq!(out["allowed"], true, "{out}");
    assert!(!marker.exists());
    assert!(out["warnings"].to_string().contains("not loaded"), "{out}");
}

#[test]
fn garbage_or_oversized_answers_never_turn_a_deny_into_an_allow() {
    let d = Dirs::new();
    for (why, command) in [
        ("repeated key", r#"echo '{"decision":"deny","reason":"r","decision":"allow"}'"#),
        ("lone surrogate", r#"echo '{"decision":"deny","reason":"\ud800"}'"#),
        ("byte-order mark", r#"printf '\xef\xbb\xbf{"decision":"block","reason":"bom"}'"#),
        ("invalid UTF-8", r#"printf '{"decision":"deny","reason":"\xff"}'"#),
        ("NaN on exit 2", r#"echo '{"decision":"allow","n":NaN}'; exit 2"#),
        ("oversized", "head -c 200000 /dev/zero | tr '\\0' ' '; echo '{\"decision\":\"deny\"}'"),
    ] {
        let out = {
            d.user(on("BeforeTool", None, json!([cmd(command)])));
            fire(&d.engine(json!({"maxOutputBytes": 100000})), rm())
        };
        assert_eq!(out["allowed"], false, "{why}: {out}");
    }
}

#[test]
fn shell_syntax_in_the_envelope_never_runs() {
    let d = Dirs::new();
    let pwned = d.record.path().join("pwned");
    let p = pwned.display();
    d.user(on(
        "BeforeTool",
        None,
        json!([cmd("cat > /dev/null; echo \"$GEMINI_SESSION_ID $GEMINI_CWD $GEMINI_PLANS_DIR\" >&2; exit 2")]),
    ));
    let evil = format!("$(touch {p}); `touch {p}`; touch {p}");
    let out = fire(
        &d.engine(json!({})),
        json!({
            "event": "preToolUse", "toolName": "Bash", "toolInput": {"command": evil}, "sessionId": evil, "plansDir": format!("x' ; touch {p} ; '"),
        }),
    );
    assert_eq!(out["allowed"], false, "{out}");
    assert!(!pwned.exists(), "text of the envelope ran as shell: {out}");
    assert!(out["reason"].as_str().unwrap().starts_with(&evil), "the values arrive as text: {out}");
}

// ---- The one loader: reload and read errors (docs/reliability.md "Reliability") ---------------------------

#[test]
fn a_settings_file_written_later_is_picked_up_and_one_that_cannot_be_read_is_an_error() {
    let d = Dirs::new();
    let e = d.engine(json!({}));
    assert_eq!(fire(&e, rm())["allowed"], true);
    d.user(on("BeforeTool", None, json!([cmd(&fixture("guard.sh"))])));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let out = fire(&e, rm());
        if out["allowed"] == false {
            assert_eq!(out["reason"], "rm -rf is blocked by the gemini guard", "{out}");
            break;
        }
        assert!(Instant::now() < deadline, "the new settings were never read: {out}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A directory where the settings file should be: not "no hooks", an error at creation.
    let d = Dirs::new();
    std::fs::create_dir_all(d.home.path().join(".gemini/settings.json")).unwrap();
    let options = json!({"cwd": d.cwd.path(), "home": d.home.path(), "gemini": true, "trusted": true});
    let err = Engine::new(Some(&options.to_string())).err().expect("an unreadable settings file is an error");
    assert!(err.to_string().contains("settings.json"), "{err}");
}
