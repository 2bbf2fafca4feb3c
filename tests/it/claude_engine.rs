//! Claude Code hooks in the engine (CONTRACT §8): settings files and layers, the stdin Claude
//! Code hooks read, exec form and its variables, matchers and `if` rules against the event's own
//! fields, the parallel merge and its place after the openHarness walk, Stop-family blocking,
//! rewrites, failures. The conformance suite (real bash/python3/node hooks) lives beside it.

use crate::common::fire;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A project directory and a home directory, each possibly with Claude Code settings.
struct Project {
    _dir: tempfile::TempDir,
    cwd: PathBuf,
    home: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("repo");
        let home = dir.path().join("home");
        std::fs::create_dir_all(cwd.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        Project { _dir: dir, cwd, home }
    }

    fn settings(&self, hooks: Value) -> &Project {
        self.write(&self.cwd.join(".claude/settings.json"), &json!({ "hooks": hooks }));
        self
    }

    fn write(&self, path: &Path, value: &Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    }

    fn engine(&self, extra: Value) -> Engine {
        let mut options = json!({
            "cwd": self.cwd, "home": self.home, "claude": true, "trusted": true
        });
        options.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
        Engine::new(Some(&options.to_string())).unwrap_or_else(|e| panic!("engine: {e}"))
    }
}

fn command(c: &str) -> Value {
    json!({ "type": "command", "command": c })
}

fn group(matcher: Option<&str>, hooks: Vec<Value>) -> Value {
    match matcher {
        Some(m) => json!({ "matcher": m, "hooks": hooks }),
        None => json!({ "hooks": hooks }),
    }
}

fn pre(tool: &str, input: Value) -> Value {
    json!({ "event": "preToolUse", "toolName": tool, "toolInput": input })
}

#[test]
fn n_hooks_of_100_ms_run_in_parallel() {
    let n = 5;
    let p = Project::new();
    let hooks: Vec<Value> = (0..n).map(|i| command(&format!("sleep 0.1; echo {i} >/dev/null"))).collect();
    p.settings(json!({ "PreToolUse": [group(Some("Bash"), hooks)] }));
    let e = p.engine(json!({}));
    fire(&e, pre("Bash", json!({"command": "ls"}))); // warm up
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let o = fire(&e, pre("Bash", json!({"command": "ls"})));
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(o["hooks"].as_array().unwrap().len(), n, "{o}");
        assert!(o["hooks"].as_array().unwrap().iter().all(|h| h["exitCode"] == 0 && h["dialect"] == "claude"));
    }
    // A figure, not an assertion: timing on a shared machine is not a test result.
    println!("parallel merge: N = {n} Claude Code hooks of 100 ms on one event finish in {best:.0} ms (sequential would be {} ms)", n * 100);
}

#[test]
fn stdin_is_one_snake_case_line_and_claude_variables_are_set() {
    let p = Project::new();
    let out = p.cwd.join("seen");
    p.settings(json!({ "PreToolUse": [group(Some("Bash"), vec![command(&format!(
        "cat > {o}.stdin; printf '%s|%s|%s' \"$CLAUDE_PROJECT_DIR\" \"${{CLAUDE_PLUGIN_ROOT-unset}}\" \"$OH_TOOL_NAME\" > {o}.env",
        o = out.display()
    ))])] }));
    let e = p.engine(json!({ "claudeProjectDir": "/the/project" }));
    let o = fire(
        &e,
        json!({ "event": "preToolUse", "tool_name": "Bash", "tool_input": {"command": "ls -la"}, "session_id": "s1", "toolUseId": "t9" }),
    );
    assert_eq!(o["allowed"], true, "{o}");
    let stdin = std::fs::read_to_string(out.with_extension("stdin")).unwrap();
    assert!(stdin.ends_with('\n') && stdin.matches('\n').count() == 1, "one line: {stdin:?}");
    let v: Value = serde_json::from_str(&stdin).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["session_id", "cwd", "hook_event_name", "tool_name", "tool_input", "tool_use_id"], "{stdin}");
    assert_eq!(v["hook_event_name"], "PreToolUse");
    assert_eq!(v["tool_input"]["command"], "ls -la", "an object, not a string");
    assert_eq!(v["cwd"], p.cwd.display().to_string(), "cwd defaults to the engine's");
    let env = std::fs::read_to_string(out.with_extension("env")).unwrap();
    assert_eq!(env, "/the/project|unset|Bash", "CLAUDE_PROJECT_DIR, no plugin root, OH_* from the snake_case field");
}

#[test]
fn exec_form_substitutes_and_never_falls_back_to_a_shell() {
    let p = Project::new();
    let plugin = p.cwd.parent().unwrap().join("plugin");
    let data = p.cwd.parent().unwrap().join("plugin-data");
    std::fs::create_dir_all(plugin.join("hooks")).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    let out = p.cwd.join("args");
    p.write(
        &plugin.join("hooks/hooks.json"),
        &json!({ "description": "test plugin", "hooks": { "PreToolUse": [group(Some("Bash"), vec![
            json!({ "type": "command", "command": "sh", "args": ["-c", "printf '%s\\n' \"$0\" \"$1\" \"$CLAUDE_PLUGIN_ROOT\" \"$CLAUDE_PLUGIN_DATA\" > \"$2\"",
                "${CLAUDE_PLUGIN_ROOT}/x", "${CLAUDE_PROJECT_DIR} $HOME", out.display().to_string()] })
        ])] } }),
    );
    p.settings(json!({ "PreToolUse": [group(Some("Bash"), vec![
        json!({ "type": "command", "command": "no-such-program-anywhere", "args": ["x"] }),
        json!({ "type": "command", "command": "no-such-program-anywhere", "args": ["y"], "onFailure": "block" }),
    ])] }));
    let e = p.engine(json!({ "claudePlugins": [{ "root": plugin, "data": data }] }));
    let o = fire(&e, pre("Bash", json!({"command": "ls"})));
    let lines: Vec<String> = std::fs::read_to_string(&out).unwrap().lines().map(str::to_string).collect();
    assert_eq!(lines[0], format!("{}/x", plugin.display()));
    assert_eq!(lines[1], format!("{} $HOME", p.cwd.display()), "plain string substitution, no shell expansion");
    assert_eq!(lines[2], plugin.display().to_string());
    assert_eq!(lines[3], data.display().to_string());
    let hooks = o["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 3, "{o}");
    // Version 1.2: a plugin the host listed is an own layer, and own hooks run before the
    // project's (1.1 ran the project's settings first and plugins last).
    assert_eq!(
        hooks[0]["source"],
        plugin.join("hooks/hooks.json").display().to_string(),
        "own layers (plugins) before the project's settings"
    );
    assert!(hooks[1]["failure"].as_str().unwrap().contains("no executable"), "{o}");
    assert_eq!(hooks[1]["result"], "none", "a failure lets the action through");
    assert_eq!(hooks[2]["result"], "deny", "onFailure: block");
    assert_eq!(o["allowed"], false);
    assert!(o["reason"].as_str().unwrap().contains("onFailure"), "{o}");
}

#[test]
fn layers_trust_dedup_and_disable() {
    let p = Project::new();
    let mark = |name: &str| command(&format!("cat >/dev/null; echo {name} >> {}", p.cwd.join("ran").display()));
    p.write(
        &p.home.join(".claude/settings.json"),
        &json!({ "hooks": { "PreToolUse": [group(None, vec![mark("shared"), mark("user")])] } }),
    );
    p.settings(json!({ "PreToolUse": [group(None, vec![mark("shared"), mark("project")])] }));
    p.write(
        &p.cwd.join(".claude/settings.local.json"),
        &json!({ "hooks": { "PreToolUse": [group(None, vec![mark("local")])] } }),
    );
    let ran = || {
        let text = std::fs::read_to_string(p.cwd.join("ran")).unwrap_or_default();
        let _ = std::fs::remove_file(p.cwd.join("ran"));
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.sort();
        lines
    };
    let o = fire(&p.engine(json!({})), pre("Bash", json!({})));
    assert_eq!(ran(), ["local", "project", "shared", "user"], "identical handlers run once: {o}");
    let sources: Vec<&str> = o["hooks"].as_array().unwrap().iter().map(|h| h["source"].as_str().unwrap()).collect();
    assert!(sources[0].contains("/home/") && sources[3].ends_with("settings.local.json"), "user first: {sources:?}");

    // Untrusted: the project's files are not read; the user's hooks still run.
    let o = fire(&p.engine(json!({ "trusted": false })), pre("Bash", json!({})));
    assert_eq!(ran(), ["shared", "user"]);
    let warnings = o["warnings"].to_string();
    assert!(warnings.contains("settings.json") && warnings.contains("not loaded"), "{o}");

    // A project can switch off its own Claude Code hooks, not the user's.
    p.write(&p.cwd.join(".claude/settings.local.json"), &json!({ "disableAllHooks": true }));
    fire(&p.engine(json!({})), pre("Bash", json!({})));
    assert_eq!(ran(), ["shared", "user"]);
    // The user's switch turns everything off.
    p.write(&p.home.join(".claude/settings.json"), &json!({ "disableAllHooks": true, "hooks": {} }));
    let o = fire(&p.engine(json!({})), pre("Bash", json!({})));
    assert_eq!(ran(), Vec::<String>::new(), "{o}");
}

/// Version 1.2 (docs/dialects.md): `claude: {"files": [...], "plugins": [...]}` also reads the
/// host's own files (a managed settings file) as own layers — read however the project is
/// trusted, before the project's hooks — and the plugins as `claudePlugins` does.
#[test]
fn the_object_form_reads_the_hosts_own_files_and_plugins() {
    let p = Project::new();
    let ran_file = p.cwd.join("ran");
    let mark = |name: &str| command(&format!("cat >/dev/null; echo {name} >> {}", ran_file.display()));
    let managed = p.home.join("managed/settings.json");
    p.write(&managed, &json!({ "hooks": { "PreToolUse": [group(None, vec![mark("managed")])] } }));
    let plugin = p.home.join("plugin");
    p.write(
        &plugin.join("hooks/hooks.json"),
        &json!({ "hooks": { "PreToolUse": [group(None, vec![mark("plugin")])] } }),
    );
    p.settings(json!({ "PreToolUse": [group(None, vec![mark("project")])] }));
    let ran = || {
        let text = std::fs::read_to_string(&ran_file).unwrap_or_default();
        let _ = std::fs::remove_file(&ran_file);
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.sort();
        lines
    };
    let object = json!({ "claude": { "files": [managed], "plugins": [plugin] } });
    let o = fire(&p.engine(object.clone()), pre("Bash", json!({})));
    assert_eq!(ran(), ["managed", "plugin", "project"], "{o}");
    let sources: Vec<&str> = o["hooks"].as_array().unwrap().iter().map(|h| h["source"].as_str().unwrap()).collect();
    assert!(sources[2].ends_with("repo/.claude/settings.json"), "own layers before the project's: {sources:?}");
    let mut untrusted = object;
    untrusted["trusted"] = json!(false);
    let o = fire(&p.engine(untrusted), pre("Bash", json!({})));
    assert_eq!(ran(), ["managed", "plugin"], "the host's files are own layers: {o}");
    for (bad, says) in [
        (json!({ "claude": { "file": [] } }), "unknown key `file`"),
        (json!({ "claude": { "files": "x" } }), "`files` must be a list of paths"),
        (json!({ "claude": 1 }), "true or false"),
    ] {
        let mut options = json!({ "cwd": p.cwd, "home": p.home });
        options.as_object_mut().unwrap().extend(bad.as_object().cloned().unwrap());
        let e = Engine::new(Some(&options.to_string())).err().unwrap_or_else(|| panic!("{bad} was accepted"));
        assert!(e.message.contains(says) && e.message.contains("claude"), "{bad}: {}", e.message);
    }
}

#[test]
fn matchers_and_if_rules() {
    let p = Project::new();
    let ctx = |text: &str| {
        command(&format!("cat >/dev/null; echo '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"{text}\"}}}}'"))
    };
    p.settings(json!({ "PreToolUse": [
        group(Some("Bash"), vec![ctx("exact")]),
        group(Some("Edit|Write"), vec![ctx("list")]),
        group(Some("^(?!Read$).*"), vec![ctx("lookahead")]),
        group(Some("Bash"), vec![json!({ "type": "command", "if": "Bash(git *)", "command": "cat >/dev/null; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"git\"}}'" })]),
    ], "SessionStart": [group(Some("startup"), vec![command("cat >/dev/null; echo started fresh")])] }));
    let e = p.engine(json!({ "waitNonBlocking": true }));
    let context = |o: &Value| o["additionalContext"].as_str().unwrap_or("").to_string();
    assert_eq!(context(&fire(&e, pre("Bash", json!({"command": "ls"})))), "exact\n\nlookahead");
    assert_eq!(context(&fire(&e, pre("Bash", json!({"command": "cd x && git push"})))), "exact\n\nlookahead\n\ngit");
    assert_eq!(context(&fire(&e, pre("BashOutput", json!({})))), "lookahead", "exact names are not substrings");
    assert_eq!(context(&fire(&e, pre("Write", json!({})))), "list\n\nlookahead");
    assert_eq!(context(&fire(&e, pre("Read", json!({})))), "");
    // SessionStart matches `source`, and its plain stdout is context.
    let o = fire(&e, json!({ "event": "sessionStart", "source": "startup" }));
    assert_eq!(context(&o), "started fresh", "{o}");
    assert_eq!(fire(&e, json!({ "event": "sessionStart", "source": "resume" }))["hooks"], json!([]));
}

#[test]
fn claude_hooks_are_one_step_after_the_openharness_walk() {
    let p = Project::new();
    let seen = p.cwd.join("claude-stdin");
    p.settings(json!({ "PreToolUse": [group(Some("Bash"), vec![
        command(&format!("cat > {}; echo '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"fine\"}}}}'", seen.display())),
    ])] }));
    // openHarness hooks rewrite the input, and the Claude Code hook sees the rewrite.
    let rewrite = json!({ "command": "echo '{\"hookSpecificOutput\":{\"updatedInput\":{\"command\":\"ls -l\"}}}'", "jsonIO": true });
    let e = p.engine(json!({ "config": { "hooks": { "preToolUse": [rewrite] } } }));
    let o = fire(&e, pre("Bash", json!({"command": "ls"})));
    assert_eq!(o["permissionDecision"], "allow", "{o}");
    assert_eq!(o["reason"], "fine", "a Claude Code decision keeps its reason");
    assert_eq!(o["updatedInput"], json!({"command": "ls -l"}));
    let stdin: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(stdin["tool_input"], json!({"command": "ls -l"}), "the rewrite reached the later hook");
    assert_eq!(o["hooks"][1]["index"], 1, "indexes continue after the openHarness hooks");

    // An openHarness deny decides: the Claude Code hooks do not run.
    std::fs::remove_file(&seen).unwrap();
    let e = p.engine(json!({ "config": { "hooks": { "preToolUse": [{ "command": "exit 1" }] } } }));
    let o = fire(&e, pre("Bash", json!({})));
    assert_eq!(o["allowed"], false);
    assert_eq!(o["hooks"].as_array().unwrap().len(), 1, "{o}");
    assert!(!seen.exists());

    // An openHarness ask and a Claude Code allow: ask (deny > defer > ask > allow).
    let ask = json!({ "command": "echo '{\"hookSpecificOutput\":{\"decision\":\"ask\"}}'", "jsonIO": true });
    let e = p.engine(json!({ "config": { "hooks": { "preToolUse": [ask] } } }));
    assert_eq!(fire(&e, pre("Bash", json!({})))["permissionDecision"], "ask");
}

#[test]
fn stop_is_blocking_for_claude_code_hooks_only() {
    let p = Project::new();
    let marker = p.cwd.join("oh-ran");
    p.settings(json!({ "Stop": [group(None, vec![command(
        "read -r input; case \"$input\" in *'\"stop_hook_active\":true'*) exit 0;; esac; echo '{\"decision\":\"block\",\"reason\":\"run the tests first\",\"systemMessage\":\"still working\"}'"
    )])] }));
    let oh = json!({ "command": format!("sleep 0.2; touch {}", marker.display()) });
    let e = p.engine(json!({ "config": { "hooks": { "turnStop": [oh] } } }));
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "turnStop", "stopHookActive": false }));
    assert_eq!(o["allowed"], false, "do not stop: {o}");
    assert_eq!(o["reason"], "run the tests first");
    assert_eq!(o["systemMessage"], "still working");
    assert_eq!(o["hooks"].as_array().unwrap().len(), 1, "the openHarness hook runs in the background");
    assert!(!marker.exists() || start.elapsed().as_millis() >= 200);
    e.drain();
    assert!(marker.exists(), "the openHarness hook ran");
    let o = fire(&e, json!({ "event": "turnStop", "stop_hook_active": true }));
    assert_eq!(o["allowed"], true, "{o}");
}

#[test]
fn failures_fail_open_and_timeouts_are_seconds() {
    let p = Project::new();
    p.settings(json!({ "UserPromptSubmit": [group(None, vec![
        json!({ "type": "command", "command": "sleep 5", "timeout": 0.3 }),
        command("echo not json >&2; exit 1"),
        command("echo '{\"continue\":false,\"stopReason\":\"quota\"}'"),
        command("echo '{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"updatedPrompt\":\"rewritten\",\"additionalContext\":\"ctx\"}}'"),
        json!({ "type": "prompt", "prompt": "is this fine? $ARGUMENTS" }),
    ])] }));
    let e = p.engine(json!({}));
    let start = Instant::now();
    let o = fire(&e, json!({ "event": "userPromptSubmit", "prompt": "hi" }));
    assert!(start.elapsed().as_secs_f64() < 4.0, "the 0.3 s timeout was honoured");
    let hooks = o["hooks"].as_array().unwrap();
    assert!(hooks[0]["failure"].as_str().unwrap().starts_with("timed out after 0.3 s"), "{o}");
    assert_eq!(hooks[1]["failure"], "non-blocking status code 1: not json");
    assert!(hooks[4]["failure"].as_str().unwrap().contains("no host callback"));
    assert_eq!(o["continue"], false, "{o}");
    assert_eq!(o["stopReason"], "quota");
    assert_eq!(o["allowed"], false, "continue:false is not allowed on a blocking event");
    assert!(o["warnings"].to_string().contains("no host callback registered for `prompt`"));
}

#[test]
fn updated_prompt_from_openharness_hooks() {
    let e = crate::common::engine(
        json!({ "hooks": { "userPromptSubmit": [
            { "command": "echo '{\"hookSpecificOutput\":{\"updatedPrompt\":\"better prompt\"}}'", "jsonIO": true },
            { "command": "printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}' \"$OH_PROMPT\"", "jsonIO": true },
        ] } }),
        json!({}),
    );
    let o = fire(&e, json!({ "event": "userPromptSubmit", "prompt": "bad prompt" }));
    assert_eq!(o["updatedPrompt"], "better prompt", "{o}");
    assert_eq!(o["additionalContext"], "better prompt", "the second hook saw the rewritten prompt");
}

#[test]
fn bad_entries_are_reported_not_fatal() {
    let p = Project::new();
    std::fs::write(
        p.cwd.join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": ["echo bare", {"type": "command", "command": "exit 2"}]}], "Bogus": []}}"#,
    )
    .unwrap();
    let e = p.engine(json!({}));
    let o = fire(&e, pre("Bash", json!({})));
    assert_eq!(o["allowed"], false, "the good entry loaded and blocks: {o}");
    let w = o["warnings"].to_string();
    assert!(w.contains("skipped `hooks.PreToolUse[0].hooks[0]`") && w.contains("skipped `hooks.Bogus`"), "{w}");
    std::fs::write(p.cwd.join(".claude/settings.json"), "{ not json").unwrap();
    let o = fire(&p.engine(json!({})), pre("Bash", json!({})));
    assert_eq!(o["allowed"], true);
    assert!(o["warnings"].to_string().contains("not valid JSON"));
}

#[test]
fn a_changed_settings_file_runs_claude_config_change_hooks_with_its_source() {
    let p = Project::new();
    let marker = p.cwd.join("changed");
    let hooks = |n: u32| {
        json!({ "ConfigChange": [group(Some("project_settings"), vec![command(&format!(
            "read -r input; printf '%s' \"$input\" > {}; : {n}", marker.display()
        ))])], "PreToolUse": [] })
    };
    p.settings(hooks(1));
    let e = p.engine(json!({}));
    std::thread::sleep(std::time::Duration::from_millis(300));
    p.settings(hooks(2));
    let start = Instant::now();
    while !marker.exists() && start.elapsed().as_secs() < 10 {
        fire(&e, json!({ "event": "sessionStart" }));
        e.drain();
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(&marker).expect("the ConfigChange hook ran")).unwrap();
    assert_eq!(input["hook_event_name"], "ConfigChange");
    assert_eq!(input["source"], "project_settings");
    assert_eq!(input["file_path"], p.cwd.join(".claude/settings.json").display().to_string());
}

#[test]
fn hostile_settings_files_cost_little() {
    let p = Project::new();
    // Larger than any settings file: not parsed.
    let big = format!("{{\"hooks\": {{}}, \"x\": \"{}\"}}", "a".repeat(5 << 20));
    std::fs::write(p.cwd.join(".claude/settings.json"), big).unwrap();
    let o = fire(&p.engine(json!({})), pre("Bash", json!({})));
    assert!(o["warnings"].to_string().contains("bytes, more than"), "{o}");
    // A FIFO in a settings file's place is refused without blocking.
    std::fs::remove_file(p.cwd.join(".claude/settings.json")).unwrap();
    let fifo = p.cwd.join(".claude/settings.json");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Version 1.2 (no read error is a verdict, for every dialect): like an `.oh/` file, it is
    // an `io_error` at creation (1.1 skipped the file with a "cannot be read" warning).
    let start = Instant::now();
    let options = json!({ "cwd": p.cwd, "home": p.home, "claude": true, "trusted": true }).to_string();
    let err = Engine::new(Some(&options)).err().expect("a FIFO settings file is an io_error");
    assert!(start.elapsed().as_secs() < 5);
    assert_eq!(err.code.as_str(), "io_error", "{err}");
    assert!(err.message.contains("not a regular file"), "{err}");
    // A pathological regex matcher is bounded per match.
    std::fs::remove_file(&fifo).unwrap();
    p.settings(json!({ "PreToolUse": [group(Some("^(a+)+$"), vec![command("exit 2")])] }));
    let start = Instant::now();
    let o = fire(&p.engine(json!({})), pre(&format!("{}b", "a".repeat(64)), json!({})));
    assert_eq!(o["allowed"], true, "{o}");
    println!("catastrophic matcher on a 65-character name: {:.1} ms", start.elapsed().as_secs_f64() * 1000.0);
}

#[test]
fn async_hooks_decide_nothing_even_when_waited_for() {
    let p = Project::new();
    p.settings(json!({ "PreToolUse": [group(None, vec![
        json!({ "type": "command", "command": "echo blocked >&2; echo '{\"systemMessage\":\"noted\"}'; exit 2", "async": true }),
    ])] }));
    let o = fire(&p.engine(json!({})), pre("Bash", json!({})));
    assert_eq!(o, json!({ "allowed": true, "hooks": [] }), "in the background, not traced");
    let o = fire(&p.engine(json!({ "waitNonBlocking": true })), pre("Bash", json!({})));
    assert_eq!(o["allowed"], true, "{o}");
    assert_eq!(o["hooks"][0]["result"], "none");
    assert_eq!(o["systemMessage"], "noted");
}
