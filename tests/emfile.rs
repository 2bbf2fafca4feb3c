//! A read error is never a verdict (CONTRACT §3.1, §3.7, version 1.1; issue 9 item 1): the
//! process runs out of file descriptors for real (RLIMIT_NOFILE lowered to the lowest free fd)
//! while a fire notices a changed file, or while the engine is created; once fds are back, the
//! project's deny hook runs again. Version 1 stored "untrusted" from the EMFILE and skipped the
//! hook until some file changed again. One test in this file: the limit is process-wide.

mod common;
use common::process::without_fds;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

fn fire(e: &Engine) -> Value {
    serde_json::from_str(&e.fire(r#"{"event":"preToolUse","toolName":"Bash"}"#).to_json()).unwrap()
}

/// Rewrites a file with the same text (a new inode and mtime: a change to notice).
fn touch(path: &Path) {
    let text = std::fs::read(path).unwrap();
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// Fires until the project's deny hook runs, for at most 3 s; returns how long it took.
fn deny_comes_back(e: &Engine, case: &str) -> Duration {
    let start = Instant::now();
    loop {
        let out = fire(e);
        if out["hooks"][0]["result"] == "deny" {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{case}: fds are back, the deny hook still does not run: {out}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

struct Dirs {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

fn dirs(store: bool) -> Dirs {
    let d = Dirs { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap() };
    std::fs::create_dir_all(d.cwd.path().join(".oh")).unwrap();
    std::fs::create_dir_all(d.home.path().join(".oh")).unwrap();
    std::fs::write(d.cwd.path().join(".oh/config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 1\n").unwrap();
    if store {
        std::fs::write(d.home.path().join(".oh/trusted-dirs.json"), json!({ "trusted": [d.cwd.path()] }).to_string())
            .unwrap();
    }
    d
}

#[test]
fn emfile_is_never_remembered_as_untrusted() {
    // A and B: a fire notices a changed file (the trust store / the project config) while the
    // process has no fd to spare.
    for (case, store, changed) in [
        ("A: trust store rewritten", true, ".oh/trusted-dirs.json"),
        ("B: no store, config rewritten", false, ".oh/config.yaml"),
    ] {
        let d = dirs(store);
        let e = Engine::new(Some(&json!({ "cwd": d.cwd.path(), "home": d.home.path() }).to_string())).unwrap();
        assert_eq!(fire(&e)["hooks"][0]["result"], "deny", "{case}");
        let base = if store { d.home.path() } else { d.cwd.path() };
        touch(&base.join(changed));
        std::thread::sleep(Duration::from_millis(300));
        without_fds(|| {
            // Two checks, so the change has settled and is read (and the read fails).
            for _ in 0..3 {
                fire(&e);
                std::thread::sleep(Duration::from_millis(300));
            }
        });
        let took = deny_comes_back(&e, case);
        eprintln!("{case}: the deny hook ran again {} ms after fds came back", took.as_millis());
    }

    // C: the engine is created while the trust store cannot be read (D: with `watch: false`,
    // which pins the files but not a verdict that was never reached).
    for (case, watch) in [("C: created without fds", true), ("D: created without fds, watch: false", false)] {
        let d = dirs(true);
        let options =
            json!({ "cwd": d.cwd.path(), "home": d.home.path(), "layers": ["project", "local"], "watch": watch })
                .to_string();
        let e = without_fds(|| Engine::new(Some(&options))).unwrap_or_else(|e| panic!("{case}: creation failed: {e}"));
        let out = fire(&e);
        assert_eq!(out["allowed"], true, "untrusted for now: {out}");
        assert!(out["warnings"].to_string().contains("could not be read"), "{out}");
        let took = deny_comes_back(&e, case);
        eprintln!("{case}: first outcome {out}; the deny hook ran {} ms after fds came back", took.as_millis());
    }

    // E (issue 16 item 8): every dialect's files obey the same rule. The user's Claude Code
    // settings cannot be read at creation: `io_error`, as for `.oh/` files. Version 1.1 created
    // the engine without them (a warning) and never read them again: the guard was gone.
    let d = dirs(false);
    std::fs::create_dir_all(d.home.path().join(".claude")).unwrap();
    std::fs::write(
        d.home.path().join(".claude/settings.json"),
        json!({ "hooks": { "PreToolUse": [{ "hooks": [{ "type": "command", "command": "exit 2" }] }] } }).to_string(),
    )
    .unwrap();
    let options = json!({ "cwd": d.cwd.path(), "home": d.home.path(), "config": {}, "claude": true, "trusted": true })
        .to_string();
    match without_fds(|| Engine::new(Some(&options))) {
        Ok(e) => panic!("E: created without the user's Claude Code settings: {}", fire(&e)),
        Err(err) => {
            assert_eq!(err.code.as_str(), "io_error", "E: {err}");
            assert!(err.message.contains(".claude/settings.json"), "E: {err}");
            eprintln!("E: created without fds: {err}");
        }
    }
    let e = Engine::new(Some(&options)).unwrap();
    assert_eq!(fire(&e)["allowed"], false, "E: with fds the guard denies");
}
