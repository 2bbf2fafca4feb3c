//! The Codex files oh-hooks reads (docs/dialects/codex.md "Files"), in configuration order:
//! the user's `<home>/.codex/hooks.json` and the `[hooks]` tables of `<home>/.codex/config.toml`
//! (own layers), the host's `files` (own), each plugin's `hooks/hooks.json` (own, with the
//! plugin's variables), then the project's `<cwd>/.codex/hooks.json` and `<cwd>/.codex/config.toml`
//! (project layers, read only when `cwd` is trusted). As Codex does per layer, `hooks.json` comes
//! before `config.toml`, and both load when both have hooks. No upward search for project
//! folders (docs/options.md "Options").
//!
//! Whether a file exists, can be read, is trusted or has changed is the one loader's business;
//! this only names the files.

use crate::dialect::{File, LayerKind, Place, Plugin};
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

/// A `.toml` file is a `config.toml`; anything else a `hooks.json`.
pub fn format(path: &Path) -> Format {
    if path.extension().is_some_and(|e| e == "toml") {
        Format::Toml
    } else {
        Format::Json
    }
}

pub fn files(place: &Place) -> Vec<File> {
    let mut list = Vec::new();
    let file = |path: PathBuf, kind| File { path, kind, plugin: None, change_source: None, dir: None };
    if place.chosen.on && place.user {
        if let Some(home) = place.home {
            list.push(file(home.join(".codex/hooks.json"), LayerKind::Own));
            list.push(file(home.join(".codex/config.toml"), LayerKind::Own));
        }
    }
    list.extend(place.chosen.files.iter().map(|path| file(path.clone(), LayerKind::Own)));
    for plugin in &place.chosen.plugins {
        list.push(File {
            path: plugin.root.join("hooks/hooks.json"),
            kind: LayerKind::Own,
            plugin: Some(plugin.clone()),
            change_source: None,
            dir: None,
        });
    }
    if place.chosen.on && place.project {
        list.push(file(place.cwd.join(".codex/hooks.json"), LayerKind::Project));
        list.push(file(place.cwd.join(".codex/config.toml"), LayerKind::Project));
    }
    list
}

/// The environment of a plugin's hooks: Codex sets both spellings of root and data.
pub fn plugin_env(plugin: &Plugin) -> Vec<(&'static str, String)> {
    let root = plugin.root.display().to_string();
    let mut env = vec![("PLUGIN_ROOT", root.clone()), ("CLAUDE_PLUGIN_ROOT", root)];
    if let Some(data) = &plugin.data {
        let data = data.display().to_string();
        env.push(("PLUGIN_DATA", data.clone()));
        env.push(("CLAUDE_PLUGIN_DATA", data));
    }
    env
}

/// Codex replaces the `${…}` placeholders of a plugin hook's command textually at load (only the
/// braced form; `$PLUGIN_ROOT` is the shell's, which sees the same value in the environment).
pub fn substitute(command: &str, plugin: &Plugin) -> String {
    let mut out = command.to_string();
    for (name, value) in plugin_env(plugin) {
        out = out.replace(&format!("${{{name}}}"), &value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Chosen;

    #[test]
    fn own_files_first_project_last_json_before_toml() {
        let chosen = Chosen {
            on: true,
            files: vec![PathBuf::from("/etc/codex/managed.toml"), PathBuf::from("/etc/codex/hooks.json")],
            plugins: vec![Plugin { root: "/plug".into(), data: None }],
            project_dir: None,
        };
        let place = |chosen| Place {
            cwd: Path::new("/w"),
            home: Some(Path::new("/h")),
            user: true,
            project: true,
            local: true,
            chosen,
        };
        let got: Vec<(String, LayerKind, Format)> = files(&place(&chosen))
            .into_iter()
            .map(|f| (f.path.display().to_string(), f.kind, format(&f.path)))
            .collect();
        assert_eq!(
            got,
            [
                ("/h/.codex/hooks.json".into(), LayerKind::Own, Format::Json),
                ("/h/.codex/config.toml".into(), LayerKind::Own, Format::Toml),
                ("/etc/codex/managed.toml".into(), LayerKind::Own, Format::Toml),
                ("/etc/codex/hooks.json".into(), LayerKind::Own, Format::Json),
                ("/plug/hooks/hooks.json".into(), LayerKind::Own, Format::Json),
                ("/w/.codex/hooks.json".into(), LayerKind::Project, Format::Json),
                ("/w/.codex/config.toml".into(), LayerKind::Project, Format::Toml),
            ]
        );
        let off = Chosen { on: false, ..chosen.clone() };
        assert_eq!(files(&place(&off)).len(), 3, "files and plugins alone");
    }

    #[test]
    fn plugin_variables() {
        let p = Plugin { root: "/p".into(), data: Some("/d".into()) };
        assert_eq!(
            substitute(
                "${PLUGIN_ROOT}/a ${CLAUDE_PLUGIN_ROOT}/b ${PLUGIN_DATA} ${CLAUDE_PLUGIN_DATA} $PLUGIN_ROOT",
                &p
            ),
            "/p/a /p/b /d /d $PLUGIN_ROOT"
        );
        let p = Plugin { root: "/p".into(), data: None };
        assert_eq!(substitute("${PLUGIN_DATA}/x", &p), "${PLUGIN_DATA}/x");
        assert_eq!(plugin_env(&p).len(), 2);
    }
}
