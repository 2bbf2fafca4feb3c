//! Host tools across dialects (docs/envelope.md "Host tools"): a host whose tools are named differently
//! runs Claude Code hooks unchanged. The host here calls its shell tool `shell` and its command
//! field `cmd` (`"tools": {"shell": {"kind": "shell", "fields": {"command": "cmd"}}}`); Claude Code
//! hooks see `Bash` and `tool_input.command`, their matchers and `if` rules test `Bash`, and a
//! rewrite comes back under `cmd`. openHarness hooks keep seeing the host's own names. Real
//! engines, real settings files, real hook processes (sh, jq, python3).

use crate::common::fire_raw;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::Path;

const TOOLS: &str = r#"{"shell": {"kind": "shell", "fields": {"command": "cmd"}}}"#;

/// The stock Claude Code Bash guard: `jq -r .tool_input.command`, exit 2 on `rm -rf`.
const JQ_GUARD: &str = r#"cmd=$(jq -r '.tool_input.command // empty') || exit 2; case "$cmd" in *"rm -rf"*) echo "no rm -rf: $cmd" >&2; exit 2;; esac; exit 0"#;

/// The same guard in Python, answering with JSON.
const PY_GUARD: &str = r#"python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d.get("tool_input", {}).get("command", "")
if "rm -rf" in c:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "blocked: " + c}}))
'"#;

/// A trusted project with a Claude Code settings file (and optionally a `.oh/config.yaml`).
struct Project {
    _dir: tempfile::TempDir,
    engine: Engine,
}

fn project(claude_hooks: Value, oh: Option<&str>, tools: Option<&str>) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("repo");
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    std::fs::create_dir_all(dir.path().join("home")).unwrap();
    std::fs::write(cwd.join(".claude/settings.json"), json!({ "hooks": claude_hooks }).to_string()).unwrap();
    if let Some(oh) = oh {
        std::fs::create_dir_all(cwd.join(".oh")).unwrap();
        std::fs::write(cwd.join(".oh/config.yaml"), oh).unwrap();
    }
    let mut options = json!({ "cwd": cwd, "home": dir.path().join("home"), "claude": true, "trusted": true });
    if let Some(tools) = tools {
        options["tools"] = serde_json::from_str(tools).unwrap();
    }
    let engine = Engine::new(Some(&options.to_string())).unwrap_or_else(|e| panic!("engine: {e}"));
    Project { _dir: dir, engine }
}

fn pre_tool_use(matcher: &str, command: &str) -> Value {
    json!({ "PreToolUse": [ { "matcher": matcher, "hooks": [ { "type": "command", "command": command } ] } ] })
}

/// A Claude Code hook that appends its stdin to a file.
fn recorder(p: &Path) -> String {
    format!("cat >> '{}'", p.display())
}

fn recorded(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

const RM: &str = r#"{"event":"preToolUse","toolName":"shell","toolInput":{"cmd":"rm -rf /"}}"#;

/// The host's `shell {cmd}` reaches a stock Claude Code `Bash` guard (matcher `Bash`, jq or
/// python reading `tool_input.command`), which denies `rm -rf /`. Without `tools` the guard
/// never matched (the tool was `shell`) and `rm -rf /` ran.
#[test]
fn a_claude_code_bash_guard_denies_the_hosts_shell_tool() {
    for guard in [JQ_GUARD, PY_GUARD] {
        let p = project(pre_tool_use("Bash", guard), None, Some(TOOLS));
        let o = fire_raw(&p.engine, RM);
        assert_eq!(o["allowed"], false, "{guard}: {o}");
        assert_eq!(o["permissionDecision"], "deny", "{o}");
        assert!(o["reason"].as_str().unwrap().contains("rm -rf /"), "{o}");
        // A harmless command passes.
        let o = fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"shell","toolInput":{"cmd":"ls"}}"#);
        assert_eq!(o["allowed"], true, "{o}");
        assert_eq!(o["hooks"].as_array().unwrap().len(), 1, "the Bash matcher matched: {o}");
        // Without the option the host's tool is unknown: the Bash matcher does not match.
        let p = project(pre_tool_use("Bash", guard), None, None);
        let o = fire_raw(&p.engine, RM);
        assert_eq!((o["allowed"].clone(), o["hooks"].as_array().unwrap().len()), (json!(true), 0), "{o}");
    }
}

/// What the Claude Code hook reads: `tool_name` `Bash`, `tool_input` with `command`, every
/// other field passed through; the snake_case envelope spelling works the same.
#[test]
fn the_claude_code_hook_sees_bash_and_command() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("stdin");
    let p = project(pre_tool_use("*", &recorder(&record)), None, Some(TOOLS));
    fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"shell","toolInput":{"cmd":"ls -l","timeout":5}}"#);
    fire_raw(&p.engine, r#"{"event":"preToolUse","tool_name":"shell","tool_input":{"cmd":"pwd"}}"#);
    let lines = recorded(&record);
    assert_eq!(lines[0]["tool_name"], "Bash");
    assert_eq!(lines[0]["tool_input"], json!({"command": "ls -l", "timeout": 5}));
    assert_eq!(lines[1]["tool_name"], "Bash");
    assert_eq!(lines[1]["tool_input"], json!({"command": "pwd"}));
}

/// `if: "Bash(rm *)"` tests Claude Code's name and field: it matches the host's `shell`
/// `rm -rf /` and not `ls`.
#[test]
fn an_if_rule_matches_the_hosts_shell_tool() {
    let hooks = json!({ "PreToolUse": [ { "matcher": "Bash", "hooks": [
        { "type": "command", "if": "Bash(rm *)", "command": "echo 'no rm' >&2; exit 2" } ] } ] });
    let p = project(hooks, None, Some(TOOLS));
    let o = fire_raw(&p.engine, RM);
    assert_eq!(o["allowed"], false, "{o}");
    assert_eq!(o["reason"], "no rm", "{o}");
    let o = fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"shell","toolInput":{"cmd":"ls"}}"#);
    assert_eq!((o["allowed"].clone(), o["hooks"].as_array().unwrap().len()), (json!(true), 0), "{o}");
}

/// A Claude Code hook's `updatedInput: {"command": "ls"}` comes back in the outcome as
/// `{"cmd": "ls"}`.
#[test]
fn a_claude_code_rewrite_comes_back_under_the_hosts_field() {
    let rewrite = r#"cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls","timeout":5}}}'"#;
    let p = project(pre_tool_use("Bash", rewrite), None, Some(TOOLS));
    let o = fire_raw(&p.engine, RM);
    assert_eq!(o["updatedInput"], json!({"cmd": "ls", "timeout": 5}), "{o}");
    assert_eq!(o["permissionDecision"], "allow", "{o}");
    // Claude Code's own names are the identity: a Bash rewrite stays `command`.
    let p = project(pre_tool_use("Bash", rewrite), None, None);
    let o = fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf /"}}"#);
    assert_eq!(o["updatedInput"], json!({"command": "ls", "timeout": 5}), "{o}");
}

/// The rewritten envelope the later steps receive carries the host's field: a project
/// openHarness hook after the user's Claude Code rewrite sees `toolInput.cmd`, and a project
/// Claude Code hook after it sees `command` again.
#[test]
fn later_steps_receive_the_rewrite_under_the_hosts_field() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("repo");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(cwd.join(".claude")).unwrap();
    std::fs::create_dir_all(cwd.join(".oh")).unwrap();
    let rewrite = r#"cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"rm -rf /tmp/x"}}}'"#;
    std::fs::write(home.join(".claude/settings.json"), json!({ "hooks": pre_tool_use("Bash", rewrite) }).to_string())
        .unwrap();
    let oh_seen = dir.path().join("oh");
    let oh = format!("hooks:\n  preToolUse:\n    - command: \"cat > '{}'\"\n      jsonIO: true\n", oh_seen.display());
    std::fs::write(cwd.join(".oh/config.yaml"), oh).unwrap();
    std::fs::write(cwd.join(".claude/settings.json"), json!({ "hooks": pre_tool_use("Bash", JQ_GUARD) }).to_string())
        .unwrap();
    let options = json!({ "cwd": cwd, "home": home, "claude": true, "trusted": true, "tools": serde_json::from_str::<Value>(TOOLS).unwrap() });
    let engine = Engine::new(Some(&options.to_string())).unwrap();
    let o = fire_raw(&engine, r#"{"event":"preToolUse","toolName":"shell","toolInput":{"cmd":"ls"}}"#);
    // The project Claude Code guard saw the user's rewrite as `command` and denied it.
    assert_eq!(o["allowed"], false, "{o}");
    assert!(o["reason"].as_str().unwrap().contains("rm -rf /tmp/x"), "{o}");
    // The openHarness hook between them saw the host's names.
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(&oh_seen).unwrap()).unwrap();
    assert_eq!(seen["toolName"], "shell", "{seen}");
    assert_eq!(seen["toolInput"], json!({"cmd": "rm -rf /tmp/x"}), "{seen}");
}

/// A tool neither listed nor known passes under its own name, its input as given; Claude Code's
/// own names still work beside a `tools` option.
#[test]
fn an_unknown_tool_passes_under_its_own_name() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("stdin");
    let p = project(pre_tool_use("*", &recorder(&record)), None, Some(TOOLS));
    fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"my_tool","toolInput":{"cmd":"x","command":"y"}}"#);
    fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"z"}}"#);
    let lines = recorded(&record);
    assert_eq!(
        (&lines[0]["tool_name"], &lines[0]["tool_input"]),
        (&json!("my_tool"), &json!({"cmd": "x", "command": "y"}))
    );
    assert_eq!((&lines[1]["tool_name"], &lines[1]["tool_input"]), (&json!("Bash"), &json!({"command": "z"})));
    // A matcher on the host's name of an unknown tool matches it; `Bash` does not.
    let p = project(pre_tool_use("my_tool", "echo no >&2; exit 2"), None, Some(TOOLS));
    assert_eq!(fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"my_tool"}"#)["allowed"], false);
    let p = project(pre_tool_use("Bash", "echo no >&2; exit 2"), None, Some(TOOLS));
    assert_eq!(fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"my_tool"}"#)["allowed"], true);
}

/// openHarness hooks see the host's names: `match: shell` matches, the jsonIO stdin and the
/// `OH_TOOL_NAME` variable say `shell`, `toolInput` keeps `cmd`.
#[test]
fn openharness_hooks_still_see_the_hosts_names() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("seen");
    let oh = format!(
        "hooks:\n  preToolUse:\n    - match: shell\n      command: \"cat > '{0}'; printf '%s' \\\"$OH_TOOL_NAME\\\" > '{0}.name'\"\n      jsonIO: true\n    - match: Bash\n      command: \"exit 1\"\n",
        seen.display()
    );
    let p = project(json!({}), Some(&oh), Some(TOOLS));
    let o = fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"shell","toolInput":{"cmd":"ls"}}"#);
    assert_eq!(o["allowed"], true, "the `Bash` openHarness hook did not match: {o}");
    assert_eq!(o["hooks"].as_array().unwrap().len(), 1, "{o}");
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!((&stdin["toolName"], &stdin["toolInput"]), (&json!("shell"), &json!({"cmd": "ls"})));
    assert_eq!(std::fs::read_to_string(format!("{}.name", seen.display())).unwrap(), "shell");
}

/// openHarness's `toolArgs` text for a listed shell tool reaches the Claude Code hook as
/// `tool_input.command`, and the guard denies; a read tool's text is Claude Code's `file_path`.
#[test]
fn tool_args_text_of_a_listed_shell_tool_reaches_the_claude_code_hook_as_command() {
    let envelope = r#"{"event":"preToolUse","toolName":"shell","toolArgs":"rm -rf /"}"#;
    for guard in [JQ_GUARD, PY_GUARD] {
        let p = project(pre_tool_use("Bash", guard), None, Some(TOOLS));
        let o = fire_raw(&p.engine, envelope);
        assert_eq!(o["allowed"], false, "{guard}: {o}");
        assert!(o["reason"].as_str().unwrap().contains("rm -rf /"), "{o}");
    }
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("stdin");
    let tools = r#"{"shell": {"kind": "shell", "fields": {"command": "cmd"}}, "open": {"kind": "read", "fields": {"path": "filename"}}}"#;
    let p = project(pre_tool_use("*", &recorder(&record)), None, Some(tools));
    fire_raw(&p.engine, envelope);
    fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"open","toolArgs":"/etc/shadow"}"#);
    fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"open","toolInput":{"filename":"/etc/shadow","limit":3}}"#);
    let lines = recorded(&record);
    assert_eq!((&lines[0]["tool_name"], &lines[0]["tool_input"]), (&json!("Bash"), &json!({"command": "rm -rf /"})));
    assert_eq!(
        (&lines[1]["tool_name"], &lines[1]["tool_input"]),
        (&json!("Read"), &json!({"file_path": "/etc/shadow"}))
    );
    assert_eq!(lines[2]["tool_input"], json!({"file_path": "/etc/shadow", "limit": 3}));
    // `Read(...)` rules read the renamed path.
    let hooks = json!({ "PreToolUse": [ { "matcher": "Read", "hooks": [
        { "type": "command", "if": "Read(//etc/**)", "command": "echo 'not /etc' >&2; exit 2" } ] } ] });
    let p = project(hooks, None, Some(tools));
    let o = fire_raw(&p.engine, r#"{"event":"preToolUse","toolName":"open","toolInput":{"filename":"/etc/shadow"}}"#);
    assert_eq!(o["allowed"], false, "{o}");
}

/// A field that passes through under the name the renamed field takes cannot shadow it: the
/// guard reads the `cmd` the host's tool runs, not a decoy `command` beside it.
#[test]
fn a_decoy_command_field_cannot_hide_the_hosts_command() {
    for text in [
        r#"{"event":"preToolUse","toolName":"shell","toolInput":{"cmd":"rm -rf /","command":"ls"}}"#,
        r#"{"event":"preToolUse","toolName":"shell","toolInput":{"command":"ls","cmd":"rm -rf /"}}"#,
    ] {
        for guard in [JQ_GUARD, PY_GUARD] {
            let p = project(pre_tool_use("Bash", guard), None, Some(TOOLS));
            let o = fire_raw(&p.engine, text);
            assert_eq!(o["allowed"], false, "{text} {guard}: {o}");
        }
    }
}

/// Bad `tools` options are refused at creation with an error naming the tool, what was wrong
/// and what was expected.
#[test]
fn bad_tools_options_are_refused_with_a_clear_error() {
    for (tools, want) in [
        (json!({"shell": "terminal"}), "option `tools`: tool `shell`: unknown kind `terminal`; expected one of shell, read, write, edit, fetch, search, glob, agent, mcp"),
        (json!({"shell": {"kind": "shell", "fields": {"argv": "cmd"}}}), "option `tools`: tool `shell`: `argv` is not a field of kind shell; expected command or cwd"),
        (json!(["shell"]), "option `tools`: expected an object"),
        (json!({"shell": {"kind": "shell", "fields": "cmd"}}), "`fields` must be an object mapping canonical fields (command, cwd)"),
        (json!({"shell": 1}), "tool `shell` is a number; expected a kind"),
    ] {
        let options = json!({ "tools": tools }).to_string();
        let e = Engine::new(Some(&options)).err().unwrap_or_else(|| panic!("{options} was accepted"));
        let e: Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(e["code"], "invalid_options", "{e}");
        assert!(e["message"].as_str().unwrap().contains(want), "{options}: {e}");
    }
}
