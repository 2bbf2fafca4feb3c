//! No read error is a verdict, for every dialect's files (docs/reliability.md "Reliability"; issue 16 item
//! 8): a Claude Code settings file that exists and cannot be read is `io_error` at creation, as
//! an `.oh/` file is; during a reload the old config (with its guard) stays, a warning says so,
//! and the file is read again at the next check. Before, it was skipped with a warning and never
//! read again, so the user's `~/.claude/settings.json` guard was gone.
//!
//! The tests run as root, which reads a mode-000 file anyway: the test thread drops
//! CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from its own effective set (capabilities are per
//! thread, so other tests are not affected) and gets a real EACCES. The engine reads its files
//! on the creating and on the firing thread.

use oh_hooks::Engine;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAP_V3: u32 = 0x2008_0522;
const DAC: u32 = (1 << 1) | (1 << 2); // CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH

/// While alive, this thread reads files by their mode bits, as a user would (root included).
struct NoDacOverride([CapData; 2]);

impl NoDacOverride {
    fn new() -> NoDacOverride {
        let mut data = [CapData::default(); 2];
        let mut header = CapHeader { version: CAP_V3, pid: 0 };
        // SAFETY: capget/capset with a v3 header and two data structs, for this thread only.
        unsafe {
            assert_eq!(libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()), 0);
            let saved = data;
            data[0].effective &= !DAC;
            assert_eq!(libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()), 0);
            NoDacOverride(saved)
        }
    }
}

impl Drop for NoDacOverride {
    fn drop(&mut self) {
        let mut header = CapHeader { version: CAP_V3, pid: 0 };
        // SAFETY: as above; restores the effective set saved (still permitted).
        unsafe { assert_eq!(libc::syscall(libc::SYS_capset, &mut header, self.0.as_ptr()), 0) };
    }
}

struct Dirs {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

impl Dirs {
    /// A user whose `~/.claude/settings.json` blocks every Bash call, and a trusted project
    /// with an `.oh/config.yaml` that adds nothing.
    fn new() -> Dirs {
        let d = Dirs { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap() };
        std::fs::create_dir_all(d.home.path().join(".claude")).unwrap();
        std::fs::create_dir_all(d.cwd.path().join(".oh")).unwrap();
        let guard = json!({ "hooks": { "PreToolUse": [{ "matcher": "Bash", "hooks": [
            { "type": "command", "command": "echo 'blocked by the user' >&2; exit 2" }] }] } });
        std::fs::write(d.settings(), guard.to_string()).unwrap();
        std::fs::write(d.cwd.path().join(".oh/config.yaml"), "hooks: {}\n").unwrap();
        d
    }

    fn settings(&self) -> PathBuf {
        self.home.path().join(".claude/settings.json")
    }

    fn options(&self) -> String {
        json!({ "cwd": self.cwd.path(), "home": self.home.path(), "claude": true, "trusted": true }).to_string()
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn fire(e: &Engine) -> Value {
    let envelope = json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": "rm -rf /" } });
    serde_json::from_str(&e.fire(&envelope.to_string()).to_json()).unwrap()
}

#[test]
fn unreadable_claude_settings_are_an_io_error_at_creation() {
    let d = Dirs::new();
    chmod(&d.settings(), 0o000);
    let created = {
        let _user = NoDacOverride::new();
        assert!(std::fs::read(d.settings()).is_err(), "the test thread still reads a mode-000 file");
        Engine::new(Some(&d.options()))
    };
    match created {
        Ok(e) => panic!("created without the user's guard; a fire gives {}", fire(&e)),
        Err(err) => {
            assert_eq!(err.code.as_str(), "io_error", "{err}");
            assert!(err.message.contains(&d.settings().display().to_string()), "{err}");
            assert!(err.message.contains("Permission denied"), "{err}");
        }
    }
    // A directory in the file's place cannot be read either.
    chmod(&d.settings(), 0o644);
    std::fs::remove_file(d.settings()).unwrap();
    std::fs::create_dir(d.settings()).unwrap();
    let err = Engine::new(Some(&d.options())).err().expect("created without the user's settings");
    assert_eq!(err.code.as_str(), "io_error", "{err}");
    assert!(err.message.contains("not a regular file"), "{err}");
}

#[test]
fn unreadable_claude_settings_during_a_reload_keep_the_guard_and_are_retried() {
    let d = Dirs::new();
    let e = Engine::new(Some(&d.options())).unwrap();
    let out = fire(&e);
    assert_eq!(out["allowed"], false, "{out}");
    {
        let _user = NoDacOverride::new();
        // The mode change is a change to notice (its ctime); the reload cannot read the file.
        chmod(&d.settings(), 0o000);
        for i in 0..4 {
            std::thread::sleep(Duration::from_millis(300));
            let out = fire(&e);
            assert_eq!(out["allowed"], false, "fire {i} while the file cannot be read lost the guard: {out}");
            assert_eq!(out["reason"], "blocked by the user", "{out}");
            let warnings = out["warnings"].to_string();
            assert!(
                warnings.contains("read again at the next check") && warnings.contains("Permission denied"),
                "fire {i}: {out}"
            );
        }
    }
    // Readable again (nothing changed on disk: the mode is still 000, but this thread may read
    // it): the next check reads it again because the last read failed.
    std::thread::sleep(Duration::from_millis(300));
    let out = fire(&e);
    assert_eq!(out["allowed"], false, "{out}");
    assert!(out.get("warnings").is_none(), "the failed read was retried and succeeded: {out}");
    chmod(&d.settings(), 0o644);
}

#[test]
fn an_unreadable_cursor_hooks_file_is_an_io_error_at_creation() {
    let d = Dirs::new();
    let hooks = d.home.path().join(".cursor/hooks.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    std::fs::write(&hooks, r#"{"version":1,"hooks":{"beforeShellExecution":[{"command":"exit 2"}]}}"#).unwrap();
    chmod(&hooks, 0o000);
    let options = json!({ "cwd": d.cwd.path(), "home": d.home.path(), "cursor": true, "trusted": true }).to_string();
    let created = {
        let _user = NoDacOverride::new();
        Engine::new(Some(&options))
    };
    match created {
        Ok(e) => panic!("created without the user's Cursor guard; a fire gives {}", fire(&e)),
        Err(err) => {
            assert_eq!(err.code.as_str(), "io_error", "{err}");
            assert!(err.message.contains(&hooks.display().to_string()), "{err}");
        }
    }
}
