//! The Codex files oh-hooks reads (docs/dialects/codex.md "Files"), in configuration order:
//! the user's `<home>/.codex/hooks.json` and the `[hooks]` tables of `<home>/.codex/config.toml`
//! (own layers), the host's `files` (own), each plugin's `hooks/hooks.json` (own, with the
//! plugin's variables), then the project's `<cwd>/.codex/hooks.json` and `<cwd>/.codex/config.toml`
//! (project layers, read only when `cwd` is trusted). As Codex does per layer, `hooks.json` comes
//! before `config.toml`, and both load when both have hooks. No upward search for project
//! folders (README "Options").
//!
//! Whether a file exists, can be read, is trusted or has changed is the one loader's business;
//! this only names the files.

use crate::config::layers::Kind;
use crate::options::ClaudePlugin;
use std::path::{Path, PathBuf};

/// How a Codex file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `hooks.json`: `{"hooks": {"<Event>": [groups]}}`.
    Json,
    /// `config.toml`: its `[hooks]` tables (and `[features] hooks`); every other table is
    /// Codex's.
    Toml,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CodexFile {
    pub path: PathBuf,
    pub kind: Kind,
    pub format: Format,
    /// A plugin's `hooks/hooks.json`: its hooks get `PLUGIN_ROOT`/`CLAUDE_PLUGIN_ROOT` and the
    /// `_DATA` pair.
    pub plugin: Option<ClaudePlugin>,
}

/// What the `codex` option asks for.
#[derive(Debug, Clone, Default)]
pub struct Wanted<'a> {
    /// `codex: true` (or the object form): the user's and the project's files.
    pub on: bool,
    /// The user layer and the project layers may each be switched off by option `layers`.
    pub user: bool,
    pub project: bool,
    /// `{"files": [...]}`: own layers the host names (enterprise, managed).
    pub files: &'a [PathBuf],
    pub plugins: &'a [ClaudePlugin],
}

pub fn files(home: Option<&Path>, cwd: &Path, wanted: &Wanted) -> Vec<CodexFile> {
    let mut list = Vec::new();
    let file = |path: PathBuf, kind, format| CodexFile { path, kind, format, plugin: None };
    if wanted.on && wanted.user {
        if let Some(home) = home {
            list.push(file(home.join(".codex/hooks.json"), Kind::Own, Format::Json));
            list.push(file(home.join(".codex/config.toml"), Kind::Own, Format::Toml));
        }
    }
    for path in wanted.files {
        let format = if path.extension().is_some_and(|e| e == "toml") { Format::Toml } else { Format::Json };
        list.push(file(path.clone(), Kind::Own, format));
    }
    for plugin in wanted.plugins {
        list.push(CodexFile {
            path: plugin.root.join("hooks/hooks.json"),
            kind: Kind::Own,
            format: Format::Json,
            plugin: Some(plugin.clone()),
        });
    }
    if wanted.on && wanted.project {
        list.push(file(cwd.join(".codex/hooks.json"), Kind::Project, Format::Json));
        list.push(file(cwd.join(".codex/config.toml"), Kind::Project, Format::Toml));
    }
    list
}

/// The environment of a plugin's hooks: Codex sets both spellings of root and data.
pub fn plugin_env(plugin: &ClaudePlugin) -> Vec<(String, String)> {
    let root = plugin.root.display().to_string();
    let mut env = vec![("PLUGIN_ROOT".to_string(), root.clone()), ("CLAUDE_PLUGIN_ROOT".to_string(), root)];
    if let Some(data) = &plugin.data {
        let data = data.display().to_string();
        env.push(("PLUGIN_DATA".to_string(), data.clone()));
        env.push(("CLAUDE_PLUGIN_DATA".to_string(), data));
    }
    env
}

/// Codex replaces the `${…}` placeholders of a plugin hook's command textually at load (only the
/// braced form; `$PLUGIN_ROOT` is the shell's, which sees the same value in the environment).
pub fn substitute(command: &str, plugin: &ClaudePlugin) -> String {
    let mut out = command.to_string();
    for (name, value) in plugin_env(plugin) {
        out = out.replace(&format!("${{{name}}}"), &value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_files_first_project_last_json_before_toml() {
        let plugins = [ClaudePlugin { root: "/plug".into(), data: None }];
        let extra = [PathBuf::from("/etc/codex/managed.toml"), PathBuf::from("/etc/codex/hooks.json")];
        let wanted = Wanted { on: true, user: true, project: true, files: &extra, plugins: &plugins };
        let got: Vec<(String, Kind, Format)> = files(Some(Path::new("/h")), Path::new("/w"), &wanted)
            .into_iter()
            .map(|f| (f.path.display().to_string(), f.kind, f.format))
            .collect();
        assert_eq!(
            got,
            [
                ("/h/.codex/hooks.json".into(), Kind::Own, Format::Json),
                ("/h/.codex/config.toml".into(), Kind::Own, Format::Toml),
                ("/etc/codex/managed.toml".into(), Kind::Own, Format::Toml),
                ("/etc/codex/hooks.json".into(), Kind::Own, Format::Json),
                ("/plug/hooks/hooks.json".into(), Kind::Own, Format::Json),
                ("/w/.codex/hooks.json".into(), Kind::Project, Format::Json),
                ("/w/.codex/config.toml".into(), Kind::Project, Format::Toml),
            ]
        );
        let off = Wanted { plugins: &plugins, ..Wanted::default() };
        assert_eq!(files(Some(Path::new("/h")), Path::new("/w"), &off).len(), 1, "plugins alone");
    }

    #[test]
    fn plugin_variables() {
        let p = ClaudePlugin { root: "/p".into(), data: Some("/d".into()) };
        assert_eq!(
            substitute(
                "${PLUGIN_ROOT}/a ${CLAUDE_PLUGIN_ROOT}/b ${PLUGIN_DATA} ${CLAUDE_PLUGIN_DATA} $PLUGIN_ROOT",
                &p
            ),
            "/p/a /p/b /d /d $PLUGIN_ROOT"
        );
        let p = ClaudePlugin { root: "/p".into(), data: None };
        assert_eq!(substitute("${PLUGIN_DATA}/x", &p), "${PLUGIN_DATA}/x");
        assert_eq!(plugin_env(&p).len(), 2);
    }
}
