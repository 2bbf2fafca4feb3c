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
    assert!(text.contains("ok: 2 hook(s) on 2 of 34 events"), "{text}");

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
