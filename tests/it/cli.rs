//! The `oh-hooks` command: fire's exit status and outcome, check's listing and errors.

use std::io::Write;
use std::process::{Command, Stdio};

fn cli() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oh-hooks"))
}

fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".oh")).unwrap();
    std::fs::write(dir.path().join(".oh/config.yaml"), config).unwrap();
    dir
}

const CONFIG: &str =
    "hooks:\n  preToolUse:\n    - command: exit 1\n      match: Bash\n  postToolUse:\n    - command: exit 0\n";

#[test]
fn fire_exit_status_allowed_denied_error() {
    let dir = project(CONFIG);
    let run = |envelope: &str| {
        let out = cli().args(["fire", "--trusted", "--cwd"]).arg(dir.path()).arg(envelope).output().unwrap();
        (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, out) = run(r#"{"event":"preToolUse","toolName":"Read"}"#);
    assert_eq!((code, out.trim()), (0, r#"{"allowed":true,"hooks":[]}"#));
    let (code, out) = run(r#"{"event":"preToolUse","toolName":"Bash"}"#);
    assert_eq!(code, 1);
    assert!(out.contains(r#""reason":"hook denied (exit code)""#), "{out}");
    let (code, out) = run(r#"{"event":"nope"}"#);
    assert_eq!(code, 2);
    assert!(out.contains("unknown_event"), "{out}");
}

#[test]
fn fire_reads_stdin_and_config_file() {
    let dir = project(CONFIG);
    let mut child = cli()
        .args(["fire", "--trusted", "--config"])
        .arg(dir.path().join(".oh/config.yaml"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(br#"{"event":"preToolUse","toolName":"Bash"}"#).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn check_lists_hooks_and_explains_errors() {
    let dir = project(CONFIG);
    let out = cli().args(["check", "--trusted", "--cwd"]).arg(dir.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("preToolUse (blocking):\n  [0] command: exit 1  [match Bash]"), "{text}");
    assert!(text.contains("postToolUse (non-blocking):"), "{text}");
    // Every engine event is counted (34 in 1.1; version 1.2's dialects add theirs).
    let all = oh_hooks::event::Event::COUNT;
    assert!(text.contains(&format!("ok: 2 hook(s) on 2 of {all} events")), "{text}");

    let bad = project("hooks:\n  preToolUse:\n    - command: x\n      matcher: Bash\n");
    let out = cli().args(["check", "--cwd"]).arg(bad.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 4") && err.contains("did you mean `match`"), "{err}");
    assert!(err.contains("     4 |       matcher: Bash"), "the offending line is shown: {err}");
}

#[test]
fn bad_usage_is_exit_2() {
    assert_eq!(cli().output().unwrap().status.code(), Some(2));
    assert_eq!(cli().args(["fire", "--bogus"]).output().unwrap().status.code(), Some(2));
    assert_eq!(cli().args(["check", "--options", "{\"nope\":1}"]).output().unwrap().status.code(), Some(2));
}

#[test]
fn help_is_usage_on_stdout_with_success() {
    for args in [&["--help"][..], &["-h"], &["help"], &["fire", "--help"], &["check", "-h"]] {
        let out = cli().args(args).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text.starts_with("Usage:") && text.contains("oh-hooks fire"), "{args:?}: {text}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
    // A mistake still gets the usage, on stderr, with status 2.
    let out = cli().arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8(out.stderr).unwrap().contains("unknown command --bogus"));
}

#[test]
fn check_says_when_no_config_file_was_found() {
    let empty = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = cli().args(["check", "--cwd"]).arg(empty.path()).env("HOME", home.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("no config file found"), "{text}");
    let dir = project(CONFIG);
    let text = String::from_utf8(cli().args(["check", "--cwd"]).arg(dir.path()).output().unwrap().stdout).unwrap();
    assert!(!text.contains("no config file found"), "{text}");
}

#[test]
fn fire_from_a_pipe_prints_no_prompt() {
    // The "reading the envelope from standard input" notice is for a terminal only; piped input
    // (how harnesses call it) keeps stderr clean.
    let dir = project(CONFIG);
    let mut child = cli()
        .args(["fire", "--trusted", "--cwd"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(br#"{"event":"preToolUse","toolName":"Read"}"#).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn fire_on_a_terminal_says_it_reads_stdin() {
    // `script` (util-linux) gives the command a terminal; its input ends at once.
    let cmd = format!("{} fire --trusted", env!("CARGO_BIN_EXE_oh-hooks"));
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    child.stdin.take().unwrap().write_all(b"\n").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("oh-hooks fire on a terminal did not end when its input did");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("reading the envelope from standard input"), "{text}");
}

#[test]
fn check_lists_the_callbacks_the_host_must_register() {
    let dir = project(
        "hooks:\n  preToolUse:\n    - callback: canUseTool\n    - prompt: Safe?\n  postToolUse:\n    - callback: audit\n    - callback: canUseTool\n",
    );
    let text = String::from_utf8(cli().args(["check", "--trusted", "--cwd"]).arg(dir.path()).output().unwrap().stdout)
        .unwrap();
    assert!(text.contains("  [0] callback: canUseTool\n"), "{text}");
    assert!(text.contains("callbacks the host must register: audit, canUseTool, prompt ("), "{text}");
    let plain = project(CONFIG);
    let text =
        String::from_utf8(cli().args(["check", "--trusted", "--cwd"]).arg(plain.path()).output().unwrap().stdout)
            .unwrap();
    assert!(!text.contains("callbacks the host must register"), "{text}");
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    // `oh-hooks --help | grep -q Usage`: the reader goes away before the writer is done.
    let mut child = cli().arg("--help").stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn check_marks_persistent_hooks_and_starts_none() {
    let dir = project(
        "hooks:\n  preToolUse:\n    - command: echo started > started; cat\n      persistent: true\n      match: Bash\n  \
         postToolUse:\n    - command: cat\n      persistent: true\n      workers: 1\n",
    );
    let out = cli().args(["check", "--trusted", "--cwd"]).arg(dir.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("  [match Bash]  [persistent, 4 workers]"), "{text}");
    assert!(text.contains("[0] command: cat  [persistent, 1 worker]"), "{text}");
    assert!(!dir.path().join("started").exists(), "check started a lazy worker");
}

/// Issue 9 item 11: other dialects' matchers were literal substrings/globs that never matched,
/// and `check` said ok. Now `check` and every outcome warn, naming the form that means it.
#[test]
fn check_warns_about_other_dialects_matchers() {
    let dir = project(
        "hooks:\n  preToolUse:\n    - command: exit 1\n      match: Edit|Write\n    - command: exit 1\n      match: Bash(rm:*)\n    - command: exit 1\n      match: ^Bash$\n    - command: exit 1\n      match: Bash\n",
    );
    let out = cli().args(["check", "--trusted", "--cwd"]).arg(dir.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    let warnings: Vec<&str> = text.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 3, "{text}");
    assert!(
        warnings[0].contains("hooks.preToolUse[0].match") && warnings[0].contains("write `/Edit|Write/`"),
        "{text}"
    );
    assert!(warnings[1].contains("permission rule") && warnings[1].contains("write `Bash`"), "{text}");
    assert!(warnings[2].contains("write `/^Bash$/`"), "{text}");
    let out = cli()
        .args(["fire", "--trusted", "--cwd"])
        .arg(dir.path())
        .arg(r#"{"event":"preToolUse","toolName":"Write"}"#)
        .output()
        .unwrap();
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["warnings"].as_array().unwrap().len(), 3, "{outcome}");
}

#[test]
fn check_says_an_untrusted_project_file_is_not_loaded() {
    let dir = project(CONFIG);
    let out = cli().args(["check", "--untrusted", "--cwd"]).arg(dir.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("config.yaml (not loaded: untrusted)"), "{text}");
    assert!(text.contains("exists and was not loaded"), "{text}");
    assert!(text.contains("ok: 0 hook(s)"), "{text}");
}

/// A config using `callback:` can be tried from a shell: `--callback NAME=JSON` answers every call
/// of NAME (and `prompt` for prompt hooks) with that JSON.
#[test]
fn fire_answers_callbacks_given_on_the_command_line() {
    let dir = project("hooks:\n  preToolUse:\n    - callback: canUseTool\n    - prompt: Is this safe?\n");
    let run = |extra: &[&str]| {
        let out = cli()
            .args(["fire", "--trusted", "--cwd"])
            .arg(dir.path())
            .args(extra)
            .arg(r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf /"}"#)
            .output()
            .unwrap();
        (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let (code, out, _) = run(&[]);
    assert_eq!(code, 1, "nothing registered: {out}");
    assert!(out.contains("no callback registered for canUseTool"), "{out}");

    let (code, out, _) = run(&["--callback", r#"canUseTool={"decision":"deny","reason":"no rm"}"#]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(r#""reason":"no rm""#), "{out}");

    // null: no decision; then the prompt evaluator decides.
    let (code, out, _) = run(&["--callback", "canUseTool=null", "--callback", r#"prompt={"decision":"deny"}"#]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(r#""reason":"denied by prompt hook `Is this safe?`""#), "{out}");
    let (code, out, _) = run(&["--callback", "canUseTool=null", "--callback", "prompt={}"]);
    assert_eq!(code, 0, "{out}");

    for (args, needle) in [
        (&["--callback", "canUseTool"][..], "--callback needs NAME=JSON"),
        (&["--callback", "canUseTool={nope"], "--callback canUseTool: the answer is not valid JSON"),
        (&["--callback", "=null"], "needs a name"),
        (&["--callback", "a=null", "--callback", "a={}"], "--callback a is given twice"),
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = cli().args(["check", "--callback", "a=null"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("--callback is for fire"));
}

#[test]
fn fire_with_no_envelope_says_so() {
    let dir = project(CONFIG);
    let mut child = cli()
        .args(["fire", "--trusted", "--cwd"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no envelope given (standard input was empty)"), "{err}");
    assert!(!err.contains("EOF while parsing"), "{err}");
    let out = cli().args(["fire", "--trusted", "--cwd"]).arg(dir.path()).arg(" ").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("no envelope given (the ENVELOPE argument is empty)"));
}

/// `--config` and `--cwd` together: the file's hooks, run in DIR (the usage shows both as usable).
#[test]
fn config_and_cwd_together() {
    let dir = project(CONFIG);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("c.yaml"), "hooks:\n  preToolUse:\n    - command: pwd >&2; exit 1\n").unwrap();
    let out = cli()
        .args(["fire", "--trusted", "--config"])
        .arg(elsewhere.path().join("c.yaml"))
        .arg("--cwd")
        .arg(dir.path())
        .arg(r#"{"event":"preToolUse","toolName":"Read"}"#)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{text}");
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    assert!(text.contains(&cwd.display().to_string()), "the hook ran in --cwd: {text}");
    let usage = String::from_utf8(cli().arg("--help").output().unwrap().stdout).unwrap();
    assert!(usage.contains("[--config FILE] [--cwd DIR]") && !usage.contains("--config FILE | --cwd DIR"), "{usage}");
}

/// Trust is open by default (openHarness's rule), and check says so with the way to restrict it.
#[test]
fn check_says_why_a_project_is_trusted() {
    let dir = project(CONFIG);
    let home = tempfile::tempdir().unwrap();
    let check = |extra: &[&str]| {
        let out = cli().args(["check", "--cwd"]).arg(dir.path()).args(extra).env("HOME", home.path()).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let store = home.path().join(".oh/trusted-dirs.json");
    let text = check(&[]);
    let want = format!(
        "trust: trusted: no {}, so every project is trusted (openHarness's rule); list directories there, or pass trusted (--untrusted, \"trusted\": false), to restrict\n",
        store.display()
    );
    assert!(text.contains(&want), "{text}");
    assert!(check(&["--trusted"]).contains("trust: trusted: the `trusted` option is true (--trusted)\n"));
    std::fs::create_dir_all(store.parent().unwrap()).unwrap();
    std::fs::write(&store, serde_json::json!({ "trusted": [dir.path()] }).to_string()).unwrap();
    let text = check(&[]);
    assert!(
        text.contains(&format!("trust: trusted: {} is listed in {}", dir.path().display(), store.display())),
        "{text}"
    );
}

/// Paths in messages are the real files: `app/../../bad/.oh/config.yaml` is named as `/…/bad/.oh/config.yaml`.
#[test]
fn error_paths_are_normalised() {
    let root = tempfile::tempdir().unwrap();
    let bad = root.path().join("badproject/.oh");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("config.yaml"), "hooks:\n  preToolUse:\n    - commnd: x\n").unwrap();
    let app = root.path().join("x/app");
    std::fs::create_dir_all(&app).unwrap();
    let out = cli().args(["check", "--trusted", "--cwd", "../../badproject"]).current_dir(&app).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    let real = std::fs::canonicalize(root.path()).unwrap().join("badproject/.oh/config.yaml");
    assert!(err.contains(&format!("invalid config in {} line 3", real.display())), "{err}");
    assert!(!err.contains(".."), "{err}");
    // --config with .. too.
    let out = cli().args(["check", "--config", "../../badproject/.oh/config.yaml"]).current_dir(&app).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&real.display().to_string()) && !err.contains(".."), "{err}");
}

/// Issue 16 item 12: `oh-hooks check` on a trusted project with an eager persistent worker.
/// Before: the worker started (the repository's code ran and wrote its marker). Now check
/// reads and reports, and starts nothing.
#[test]
fn check_starts_no_eager_worker() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".oh")).unwrap();
    let marker = dir.path().join("ran");
    std::fs::write(
        dir.path().join(".oh/config.yaml"),
        format!(
            "hooks:\n  preToolUse:\n    - command: \"touch {}; while read l; do echo '{{}}'; done\"\n      persistent: eager\n",
            marker.display()
        ),
    )
    .unwrap();
    // No trust store in `home`: every project is trusted, as on a fresh machine.
    let out = cli()
        .args(["check", "--cwd"])
        .arg(dir.path())
        .args(["--options", &format!(r#"{{"home":"{}"}}"#, home.path().display())])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("persistent eager"), "{text}");
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(!marker.exists(), "oh-hooks check started the repository's eager worker");
}

/// Issue 16 item 18: an untrusted project's `.claude` files are listed as not read. Before:
/// `(read)`, though they were not opened.
#[test]
fn check_says_untrusted_claude_files_were_not_read() {
    let dir = project(CONFIG);
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let hooks = r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"exit 2"}]}]}}"#;
    std::fs::write(dir.path().join(".claude/settings.json"), hooks).unwrap();
    std::fs::write(dir.path().join(".claude/settings.local.json"), hooks).unwrap();
    let out = cli()
        .args(["check", "--claude", "--untrusted", "--cwd"])
        .arg(dir.path())
        .args(["--options", &format!(r#"{{"home":"{}"}}"#, home.path().display())])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for file in [".claude/settings.json", ".claude/settings.local.json"] {
        let path = dir.path().join(file).display().to_string();
        let line =
            text.lines().find(|l| l.starts_with(&format!("config: {path} "))).unwrap_or_else(|| panic!("{text}"));
        assert!(line.ends_with("(not loaded: untrusted)"), "{line}\n{text}");
    }
    assert!(text.contains("ok: 0 hook(s)"), "{text}");
}

#[test]
fn a_dialect_flag_keeps_the_object_form_of_its_option() {
    // `--cursor` with `{"cursor": {"plugins": [...]}}`: the plugin's hooks still load.
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("plugin");
    std::fs::create_dir_all(plugin.join("hooks")).unwrap();
    std::fs::write(
        plugin.join("hooks/hooks.json"),
        r#"{"hooks": {"beforeShellExecution": [{"command": "echo no >&2; exit 2"}]}}"#,
    )
    .unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let options = serde_json::json!({ "home": home, "cursor": { "plugins": [plugin] } }).to_string();
    let out = cli()
        .args(["fire", "--cursor", "--trusted", "--cwd"])
        .arg(dir.path())
        .args(["--options", &options, r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"ls"}}"#])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(r#""reason":"no""#), "{stdout}");
}

/// The CLI's engine reads the environment when its first hook starts (`Engine::new_late_env`),
/// not at creation: a hook still sees the CLI's environment, `PWD` set to `--cwd`, the options'
/// `env`, and no inherited `OH_*` variable an envelope may set.
#[test]
fn fire_hooks_see_the_environment_read_late() {
    let dir = project(concat!(
        "hooks:\n  preToolUse:\n",
        "    - command: test \"$CLI_LATE_ENV\" = from-parent && test \"$PWD\" = \"$WANT_PWD\" ",
        "&& test \"$FROM_OPTIONS\" = yes && test -z \"$OH_PROMPT\" || exit 1\n",
    ));
    let real = std::fs::canonicalize(dir.path()).unwrap();
    let out = cli()
        .env("CLI_LATE_ENV", "from-parent")
        .env("WANT_PWD", &real)
        .env("OH_PROMPT", "stale")
        .args(["fire", "--trusted", "--options", r#"{"env":{"FROM_OPTIONS":"yes"}}"#, "--cwd"])
        .arg(&real)
        .arg(r#"{"event":"preToolUse","toolName":"Bash"}"#)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(r#""exitCode":0"#), "the hook ran and passed: {text}");
}

/// The CLI is linked as a fixed-address executable, not a PIE (build.rs, docs/decisions.md
/// "The CLI is not a PIE"): its start-up applies no relative relocations. ELF `e_type` at
/// byte 16: 2 is `ET_EXEC`, 3 `ET_DYN` (a PIE).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_cli_binary_is_not_a_pie() {
    use std::io::Read;
    let mut head = [0u8; 18];
    std::fs::File::open(env!("CARGO_BIN_EXE_oh-hooks")).unwrap().read_exact(&mut head).unwrap();
    assert_eq!(&head[..4], b"\x7fELF");
    assert_eq!(u16::from_le_bytes([head[16], head[17]]), 2, "e_type ET_EXEC (2), not ET_DYN (3, a PIE)");
}
