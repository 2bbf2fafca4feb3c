//! One dialect's project on disk, for the conformance suites (tests/it/*_conformance.rs): a
//! temporary user home and project directory, files written into them, engines over them with
//! the dialect switched on and the project trusted, and the small readers every suite uses
//! (what a recording hook wrote, a dialect's traces, an outcome's warnings). Each suite keeps
//! only what is its dialect's own: where its files live, how its hooks and answers are written.

use oh_hooks::Engine;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A temporary user home and project directory, and engines over them with `dialect` on.
pub struct Project {
    pub home: tempfile::TempDir,
    pub cwd: tempfile::TempDir,
    /// The option that switches the dialect on (`claude`, `codex`, …).
    dialect: &'static str,
}

impl Project {
    pub fn new(dialect: &'static str) -> Project {
        Project { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap(), dialect }
    }

    pub fn cwd(&self) -> &Path {
        self.cwd.path()
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// A scratch file in the home directory, outside every hooks file.
    pub fn file(&self, name: &str) -> PathBuf {
        self.home.path().join(name)
    }

    /// The dialect on, `home` and `cwd` these directories, the project trusted; then `extra`.
    pub fn options(&self, extra: Value) -> Value {
        let mut o = json!({ self.dialect: true, "home": self.home(), "cwd": self.cwd(), "trusted": true });
        o.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
        o
    }

    pub fn try_engine(&self, extra: Value) -> Result<Engine, String> {
        Engine::new(Some(&self.options(extra).to_string())).map_err(|e| e.to_string())
    }

    pub fn engine(&self, extra: Value) -> Engine {
        self.try_engine(extra).unwrap_or_else(|e| panic!("engine: {e}"))
    }

    /// One fire through a fresh engine (the files are read at its creation).
    pub fn fire(&self, envelope: Value) -> Value {
        super::fire(&self.engine(json!({})), envelope)
    }

    pub fn fire_with(&self, extra: Value, envelope: Value) -> Value {
        super::fire(&self.engine(extra), envelope)
    }
}

/// Writes `text` to `path`, creating its directories.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes `value` to `path` as pretty JSON, creating its directories.
pub fn write_json(path: &Path, value: &Value) {
    write(path, &serde_json::to_string_pretty(value).unwrap());
}

/// A test hook script of one dialect's suite: `tests/<dir>/<name>`.
pub fn script(dir: &str, name: &str) -> String {
    format!("{}/tests/{dir}/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Single-quoted for `sh`.
pub fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A command line of these words, each single-quoted.
pub fn sh(words: &[&str]) -> String {
    words.iter().map(|w| q(w)).collect::<Vec<_>>().join(" ")
}

/// The JSON lines a recording hook wrote to `file`, in order (none when it never ran).
pub fn records(file: &Path) -> Vec<Value> {
    match std::fs::read_to_string(file) {
        Ok(text) => text.lines().map(|l| serde_json::from_str(l).unwrap()).collect(),
        Err(_) => Vec::new(),
    }
}

/// A `preToolUse` envelope for the shell tool running `command`.
pub fn bash(command: &str) -> Value {
    json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": command } })
}

/// The traces of one dialect's hooks (`"dialect": "claude"`, …).
pub fn traces_of<'a>(out: &'a Value, dialect: &str) -> Vec<&'a Value> {
    out["hooks"]
        .as_array()
        .unwrap_or_else(|| panic!("no hooks in {out}"))
        .iter()
        .filter(|t| t["dialect"] == dialect)
        .collect()
}

/// An outcome's warnings, one a line.
pub fn warnings(out: &Value) -> String {
    out["warnings"]
        .as_array()
        .map(|w| w.iter().map(|x| x.as_str().unwrap_or("")).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

/// `dialect_project!(Cc, "claude")`: a suite's own project type, a [`Project`] with that dialect
/// on (`Cc::new()`, and every method of `Project` through `Deref`), to which the suite adds where
/// its dialect's files live.
#[allow(unused_macros)] // only the conformance suites of tests/it/ use it
macro_rules! dialect_project {
    ($(#[$doc:meta])* $name:ident, $dialect:literal) => {
        $(#[$doc])*
        struct $name($crate::common::dialect::Project);

        impl std::ops::Deref for $name {
            type Target = $crate::common::dialect::Project;
            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl $name {
            fn new() -> $name {
                $name($crate::common::dialect::Project::new($dialect))
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use dialect_project;
