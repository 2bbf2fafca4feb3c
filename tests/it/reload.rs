//! Live reload (CONTRACT §3.1): edits, broken edits, deletion, creation, configChange hooks,
//! forced reloads, and fires racing a reload.

use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

fn write(path: &Path, text: &str) {
    // Write then rename, as editors do, so a concurrent reader never sees half a file.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

fn outcome(e: &Engine) -> Value {
    serde_json::from_str(&e.fire(r#"{"event":"preToolUse","toolName":"Bash"}"#).to_json()).unwrap()
}

/// Fires until `pred` holds (the engine looks at its files at most every 250 ms).
fn eventually(e: &Engine, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let out = outcome(e);
        if pred(&out) {
            return out;
        }
        assert!(Instant::now() < deadline, "{what}: last outcome {out}");
        std::thread::sleep(Duration::from_millis(30));
    }
}

fn setup() -> (tempfile::TempDir, tempfile::TempDir, Engine) {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(cwd.path().join(".oh")).unwrap();
    write(&cwd.path().join(".oh/config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 0\n");
    let e = Engine::new(Some(&json!({ "cwd": cwd.path(), "home": home.path(), "trusted": true }).to_string())).unwrap();
    (home, cwd, e)
}

#[test]
fn edit_is_picked_up_by_the_fire_that_notices() {
    let (_home, cwd, e) = setup();
    assert_eq!(outcome(&e)["allowed"], true);
    write(&cwd.path().join(".oh/config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 1\n");
    let out = eventually(&e, "edit", |o| o["allowed"] == false);
    assert_eq!(out["reason"], "hook denied (exit code)");
}

#[test]
fn broken_edit_keeps_old_config_with_warning_until_fixed() {
    let (_home, cwd, e) = setup();
    let file = cwd.path().join(".oh/config.yaml");
    write(&file, "hooks:\n  preToolUse:\n    - command: exit 1\n      timeout: 0\n");
    let out = eventually(&e, "warning", |o| o.get("warnings").is_some());
    assert_eq!(out["allowed"], true, "the old config (exit 0) stays in force");
    let warning = out["warnings"][0].as_str().unwrap();
    assert!(warning.contains("hooks.preToolUse[0].timeout") && warning.contains("previous one stays"), "{warning}");
    // Still reported on later fires, until fixed.
    std::thread::sleep(Duration::from_millis(300));
    assert!(outcome(&e).get("warnings").is_some());
    write(&file, "hooks:\n  preToolUse:\n    - command: exit 1\n");
    let out = eventually(&e, "fix", |o| o["allowed"] == false);
    assert!(out.get("warnings").is_none(), "{out}");
}

#[test]
fn delete_and_create() {
    let (home, cwd, e) = setup();
    write(&cwd.path().join(".oh/config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 1\n");
    eventually(&e, "edit", |o| o["allowed"] == false);
    std::fs::remove_file(cwd.path().join(".oh/config.yaml")).unwrap();
    let out = eventually(&e, "delete", |o| o["allowed"] == true);
    assert_eq!(out["hooks"], json!([]), "no layer left: no hooks");
    // A layer file that did not exist at creation is picked up too.
    std::fs::create_dir_all(home.path().join(".oh")).unwrap();
    write(&home.path().join(".oh/config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 4\n");
    let out = eventually(&e, "create", |o| o["allowed"] == false);
    assert_eq!(out["hooks"][0]["exitCode"], 4);
}

#[test]
fn config_change_hooks_of_the_new_config_run() {
    let (_home, cwd, e) = setup();
    let marker = cwd.path().join("changed");
    write(
        &cwd.path().join(".oh/config.yaml"),
        &format!("hooks:\n  preToolUse:\n    - command: exit 1\n  configChange:\n    - command: 'printf %s \"$OH_FILE_PATH\" > {}'\n", marker.display()),
    );
    eventually(&e, "edit", |o| o["allowed"] == false);
    e.drain();
    let seen = std::fs::read_to_string(&marker).expect("configChange hook ran");
    assert!(seen.ends_with(".oh/config.yaml"), "{seen}");
}

#[test]
fn forced_reload() {
    let (_home, cwd, e) = setup();
    write(&cwd.path().join(".oh/config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 1\n");
    e.reload().unwrap();
    assert_eq!(outcome(&e)["allowed"], false, "no waiting after an explicit reload");
    write(&cwd.path().join(".oh/config.yaml"), "hooks:\n  PreToolUse: []\n");
    let err = e.reload().unwrap_err();
    assert_eq!(err.code, oh_hooks::ErrorCode::InvalidConfig);
    assert!(err.message.contains("preToolUse"), "{}", err.message);
    let out = outcome(&e);
    assert_eq!(out["allowed"], false, "old config stays");
    assert!(out["warnings"][0].as_str().unwrap().contains("unknown event"));
    // Inline configs have nothing to re-read.
    let inline = crate::common::engine(json!({ "hooks": {} }), json!({}));
    inline.reload().unwrap();
}

#[test]
fn fires_racing_reloads_see_old_or_new_never_a_mix() {
    let (_home, cwd, e) = setup();
    let file = cwd.path().join(".oh/config.yaml");
    // Two hooks that always agree within one config: both exit 0, or both exit 1.
    let config = |code: i32| {
        format!(
            "hooks:\n  preToolUse:\n    - command: exit 0\n    - command: exit {code}\n    - command: exit {code}\n"
        )
    };
    write(&file, &config(0));
    e.reload().unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let stop = &stop;
        let e = &e;
        for _ in 0..4 {
            scope.spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let out = outcome(e);
                    let hooks = out["hooks"].as_array().unwrap();
                    match out["allowed"].as_bool().unwrap() {
                        true => assert_eq!(hooks.len(), 3, "{out}"),
                        false => assert_eq!(hooks.len(), 2, "{out}"),
                    }
                    assert!(out.get("warnings").is_none(), "{out}");
                }
            });
        }
        for i in 0..12 {
            write(&file, &config(i % 2));
            if i % 3 == 0 {
                e.reload().unwrap();
            }
            std::thread::sleep(Duration::from_millis(120));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}

/// `watch: false` pins the config read at creation (issue 9 item 7: an agent denied by a policy
/// rewrote `.oh/config.local.yaml` and live reload adopted it within 250 ms). Only an explicit
/// reload reads the files again.
#[test]
fn watch_false_pins_the_config() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(cwd.path().join(".oh")).unwrap();
    let file = cwd.path().join(".oh/config.yaml");
    write(&file, "hooks:\n  preToolUse:\n    - command: exit 1\n");
    let options = json!({ "cwd": cwd.path(), "home": home.path(), "trusted": true, "watch": false });
    let e = Engine::new(Some(&options.to_string())).unwrap();
    assert_eq!(outcome(&e)["allowed"], false);
    write(&file, "disableAllHooks: true\n");
    write(&cwd.path().join(".oh/config.local.yaml"), "disableAllHooks: true\n");
    let until = Instant::now() + Duration::from_millis(1200);
    while Instant::now() < until {
        assert_eq!(outcome(&e)["allowed"], false, "the pinned config still denies");
        std::thread::sleep(Duration::from_millis(50));
    }
    e.reload().unwrap();
    assert_eq!(outcome(&e)["allowed"], true, "an explicit reload reads the files");
}

/// Issue 9 item 10: a config rewritten in place (truncate, then write) every 100 ms while
/// firing. Version 1 adopted the half-written (valid, empty) file: 98 of 600 fires ran without
/// the deny hook. A change is now adopted only once it has settled (docs/config.md, "Live reload").
///
/// The writer leaves the file empty for 20 ms each time, well inside the settle time. On a busy
/// machine its thread can be held up past the settle time between the truncate and the write
/// (`make test` runs suites side by side): the empty file then has really sat still for a
/// settle time, and adopting it is the rule, not a fault. Such an attempt proves nothing either
/// way, so it is run again, up to five times; an attempt where every empty spell stayed short
/// must have no fire without the deny hook.
#[test]
fn half_written_files_are_never_adopted() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_home, cwd, e) = setup();
    let file = cwd.path().join(".oh/config.yaml");
    let text = "hooks:\n  preToolUse:\n    - command: exit 1\n";
    write(&file, text);
    e.reload().unwrap();
    // An empty spell this long may be adopted: the settle time, less a margin for the clock
    // the file system stamps with.
    let too_long = oh_hooks::config::watch::SETTLE - Duration::from_millis(10);
    for attempt in 1..=5 {
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let writer = {
            let (stop, file) = (stop.clone(), file.clone());
            std::thread::spawn(move || {
                let mut longest = Duration::ZERO;
                while !stop.load(Ordering::Relaxed) {
                    let emptied = Instant::now();
                    let mut f = std::fs::File::create(&file).unwrap(); // truncates
                    std::thread::sleep(Duration::from_millis(20));
                    f.write_all(text.as_bytes()).unwrap();
                    drop(f);
                    longest = longest.max(emptied.elapsed());
                    std::thread::sleep(Duration::from_millis(80));
                }
                longest
            })
        };
        let mut without_deny = 0;
        for _ in 0..600 {
            if outcome(&e)["allowed"] == true {
                without_deny += 1;
            }
            std::thread::sleep(Duration::from_millis(3));
        }
        stop.store(true, Ordering::Relaxed);
        let longest = writer.join().unwrap();
        eprintln!("attempt {attempt}: fires that ran without the deny hook: {without_deny} of 600; longest empty spell {longest:?}");
        if longest < too_long {
            assert_eq!(without_deny, 0, "a half-written config was adopted");
            return;
        }
        // Back to the full file, settled, before the next attempt.
        write(&file, text);
        e.reload().unwrap();
    }
    panic!("in five attempts the writer was held up past the settle time with the file empty: the machine was too busy to test this");
}

/// Issue 16 item 20 (version 1.2): a change whose modification time is already 100 ms old when
/// a fire notices it has settled, and that very fire uses it. Before: the noticing fire only
/// started the settle timer, so a deny rule saved seconds ago was not applied to the next fires.
#[test]
fn a_settled_change_is_used_by_the_fire_that_notices() {
    let (_home, cwd, e) = setup();
    assert_eq!(outcome(&e)["allowed"], true);
    let file = cwd.path().join(".oh/config.yaml");
    write(&file, "hooks:\n  preToolUse:\n    - command: exit 1\n");
    let two_s_ago = std::time::SystemTime::now() - Duration::from_secs(2);
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(two_s_ago).unwrap();
    // The next check is due (the engine looks at most every 250 ms).
    std::thread::sleep(Duration::from_millis(300));
    let out = outcome(&e);
    assert_eq!(out["allowed"], false, "the very next fire must use the settled deny rule: {out}");
    assert_eq!(out["reason"], "hook denied (exit code)");
}
