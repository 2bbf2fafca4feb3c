//! All six dialects at once (README "Dialects"; issue 19 "Done when"): the project
//! examples/six has one guard and one context hook of each of openHarness, Claude Code, Codex,
//! Cursor, GitHub Copilot and Gemini CLI. One engine with every dialect on gets every deny (each
//! guard refuses a different command), every context in one outcome, and the user's own hooks of
//! every dialect before any project hook. Real files, real hook processes, the real engine.

use oh_hooks::dialect::registry::REGISTRY;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/six")
}

/// Every registered dialect turned on, over `home`.
fn engine(home: &Path) -> Engine {
    let mut options = json!({ "home": home, "cwd": project(), "trusted": true });
    for d in REGISTRY {
        options[d.name()] = json!(true);
    }
    Engine::new(Some(&options.to_string())).unwrap_or_else(|e| panic!("engine: {e}"))
}

fn fire_file(e: &Engine, name: &str) -> Value {
    let text = std::fs::read_to_string(project().join("envelopes").join(name)).unwrap();
    serde_json::from_str(&e.fire(&text).to_json()).unwrap()
}

fn dialects(out: &Value) -> Vec<String> {
    out["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["dialect"].as_str().unwrap_or("openHarness").to_string())
        .collect()
}

#[test]
fn the_example_turns_on_every_registered_dialect() {
    let names: Vec<&str> = REGISTRY.iter().map(|d| d.name()).collect();
    assert_eq!(
        names,
        ["claude", "codex", "cursor", "copilot", "gemini"],
        "the walk order of docs/config.md \"Merging\""
    );
}

/// Each command is refused by the guard of one dialect, with that guard's reason; the steps
/// before it ran and let it through, none after it ran (a deny ends the walk).
#[test]
fn every_dialects_guard_denies_its_command() {
    let home = tempfile::tempdir().unwrap();
    let e = engine(home.path());
    for (file, dialect, reason) in [
        ("curl-sh.json", "openHarness", "openHarness: piping a download into a shell is refused"),
        ("force-push.json", "claude", "Claude Code: force pushes are refused"),
        ("rm-rf.json", "codex", "Codex: recursive deletes are refused"),
        ("sudo.json", "cursor", "Cursor: sudo is refused"),
        ("chmod-777.json", "copilot", "Copilot: chmod 777 is refused"),
        ("mkfs.json", "gemini", "Gemini CLI: formatting a disk is refused"),
    ] {
        let out = fire_file(&e, file);
        assert_eq!(out["allowed"], false, "{file}: {out}");
        assert_eq!(out["reason"], reason, "{file}: {out}");
        let ran = dialects(&out);
        assert_eq!(ran.last().map(String::as_str), Some(dialect), "{file}: the denying step is the last: {out}");
        let last = out["hooks"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["result"], "deny", "{file}: {out}");
        assert!(out.get("error").is_none() && out.get("warnings").is_none(), "{file}: {out}");
    }
    // A command none refuses: all six guards ran, in walk order, and it goes through.
    let out = fire_file(&e, "ls.json");
    assert_eq!(out["allowed"], true, "{out}");
    assert_eq!(dialects(&out), ["openHarness", "claude", "codex", "cursor", "copilot", "gemini"], "{out}");
}

/// One prompt: each dialect's context hook adds its line; the outcome carries all six, in walk
/// order.
#[test]
fn every_dialects_context_in_one_outcome() {
    let home = tempfile::tempdir().unwrap();
    let out = fire_file(&engine(home.path()), "prompt.json");
    assert_eq!(out["allowed"], true, "{out}");
    let context = out["additionalContext"].as_str().unwrap_or_else(|| panic!("no context: {out}"));
    let lines: Vec<&str> = context.split("\n\n").collect();
    assert_eq!(
        lines,
        [
            "openHarness: run make test before a commit.",
            "Claude Code: never force-push.",
            "Codex: keep patches small.",
            "Cursor: format with rustfmt.",
            "Copilot: open a pull request, never push to main.",
            "Gemini CLI: explain each change.",
        ],
        "{out}"
    );
    assert_eq!(dialects(&out), ["openHarness", "claude", "codex", "cursor", "copilot", "gemini"]);
}

fn put(base: &Path, file: &str, text: &str) {
    let path = base.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The user's own hooks of every dialect (each only writes its name to a log) run before any
/// hook of the project, whichever dialect: the steps are own openHarness, own claude, …, own
/// gemini, then the project's in the same order. And a project guard still denies after them.
#[test]
fn own_hooks_of_every_dialect_run_before_any_project_hook() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("order");
    let note = |name: &str| format!("echo {name} >> '{}'", log.display());
    let h = home.path();
    put(h, ".oh/config.yaml", &format!("hooks:\n  preToolUse:\n    - command: \"{}\"\n", note("own-openHarness")));
    let group = |cmd: String| json!([{ "matcher": "Bash", "hooks": [{ "type": "command", "command": cmd }] }]);
    put(h, ".claude/settings.json", &json!({ "hooks": { "PreToolUse": group(note("own-claude")) } }).to_string());
    put(h, ".codex/hooks.json", &json!({ "hooks": { "PreToolUse": group(note("own-codex")) } }).to_string());
    put(
        h,
        ".cursor/hooks.json",
        &json!({ "version": 1, "hooks": { "preToolUse": [{ "command": note("own-cursor") }] } }).to_string(),
    );
    put(
        h,
        ".copilot/hooks/own.json",
        &json!({ "version": 1, "hooks": { "preToolUse": [{ "type": "command", "bash": note("own-copilot") }] } })
            .to_string(),
    );
    put(
        h,
        ".gemini/settings.json",
        &json!({ "hooks": { "BeforeTool": [{ "hooks": [{ "type": "command", "command": note("own-gemini") }] }] } })
            .to_string(),
    );
    let e = engine(h);
    let out = fire_file(&e, "ls.json");
    assert_eq!(out["allowed"], true, "{out}");
    let traces = out["hooks"].as_array().unwrap();
    assert_eq!(traces.len(), 12, "six own hooks, six project guards: {out}");
    let order = ["openHarness", "claude", "codex", "cursor", "copilot", "gemini"];
    for (i, t) in traces.iter().enumerate() {
        let dialect = t["dialect"].as_str().unwrap_or("openHarness");
        assert_eq!(dialect, order[i % 6], "step {i}: {out}");
        let own = i < 6;
        match t["source"].as_str() {
            Some(source) => assert_eq!(source.starts_with(&*h.to_string_lossy()), own, "step {i}: {t}"),
            // openHarness's traces: the own hook is env mode, the project's jsonIO.
            None => assert_eq!(t.get("jsonIO").is_none(), own, "step {i}: {t}"),
        }
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    let want: Vec<String> = order.iter().map(|d| format!("own-{d}")).collect();
    assert_eq!(logged.lines().collect::<Vec<_>>(), want, "each own hook ran once, in walk order");
    // A project guard after all six own steps.
    let out = fire_file(&e, "mkfs.json");
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "Gemini CLI: formatting a disk is refused", "{out}");
    assert_eq!(out["hooks"].as_array().unwrap().len(), 12, "{out}");
}
