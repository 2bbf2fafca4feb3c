//! Copilot's hook files (docs/dialects/copilot.md, files) and how one parses.
//!
//! Own: every `*.json` of `<home>/.copilot/hooks/` (in name order) and the `hooks` key of
//! `<home>/.copilot/settings.json`. Project (read only when `cwd` is trusted): every `*.json` of
//! `<cwd>/.github/hooks/` and the `hooks` key of `<cwd>/.github/copilot/settings.json` and
//! `settings.local.json`. The files are read by the one loader of every dialect; this module
//! says which they are and parses one, purely.
//!
//! As Copilot does: in a hooks file a malformed entry is dropped alone (with a warning naming
//! the file, the path inside it and why) and its siblings load; a structural error (not JSON, a
//! `version` other than 1, `hooks` not an object, an event's value not a list) rejects the whole
//! file. In a `settings.json` the `hooks` key is strict: one bad entry rejects them all.

use super::{event_of, Mode, DEFAULT_TIMEOUT_SECS};
use crate::dialect::{kind, string_field};
use crate::dialect::{File, LayerKind, Place, Plugin};
use crate::dialect::{MAX_FILE_BYTES, MAX_TIMEOUT_SECS};
use crate::event::Event;
use crate::matcher::field::FieldMatcher;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

/// The suffix of the files a hooks directory holds.
pub const DIR_SUFFIX: &str = ".json";

/// The files to read, in order: the user's hooks directory and settings, the project's
/// directory and settings files, the host's `files` (own layers: enterprise or policy files)
/// and each plugin's hooks file (`hooks.json`, else the legacy `hooks/hooks.json`: both are
/// listed, a plugin has one). Present or not: one created later is noticed by the watcher.
pub fn files(place: &Place) -> Vec<File> {
    let file = |path: PathBuf, kind, dir: bool| File {
        path,
        kind,
        plugin: None,
        change_source: None,
        dir: dir.then_some(DIR_SUFFIX),
    };
    let mut list = Vec::new();
    if place.chosen.on {
        if let (true, Some(home)) = (place.user, place.home) {
            list.push(file(home.join(".copilot/hooks"), LayerKind::Own, true));
            list.push(file(home.join(".copilot/settings.json"), LayerKind::Own, false));
        }
        if place.project {
            list.push(file(place.cwd.join(".github/hooks"), LayerKind::Project, true));
            list.push(file(place.cwd.join(".github/copilot/settings.json"), LayerKind::Project, false));
        }
        if place.local {
            list.push(file(place.cwd.join(".github/copilot/settings.local.json"), LayerKind::Project, false));
        }
    }
    for f in &place.chosen.files {
        list.push(file(f.clone(), LayerKind::Own, false));
    }
    for p in &place.chosen.plugins {
        for name in ["hooks.json", "hooks/hooks.json"] {
            list.push(File { plugin: Some(p.clone()), ..file(p.root.join(name), LayerKind::Own, false) });
        }
    }
    list
}

/// A `settings.json` (or `settings.local.json`): its `hooks` are strict and its
/// `disableAllHooks` switches off the layer kind (a hooks file's switches off that file).
fn is_settings(file: &File) -> bool {
    file.dir.is_none()
        && file.plugin.is_none()
        && file.path.file_name().is_some_and(|n| n == "settings.json" || n == "settings.local.json")
}

/// What a Copilot hook runs.
#[derive(Debug, Clone, PartialEq)]
pub enum CopilotHandler {
    /// `bash` (else `command`): run by `bash -c`.
    Shell(String),
    /// `exec` + `args`: no shell.
    Exec { program: String, args: Vec<String> },
    /// POST the payload; `headers` values may expand the `allowedEnvVars`.
    Http { url: String, headers: Vec<(String, String)>, allowed_env_vars: Vec<String> },
}

/// A matcher, by the mode's rules. Camel: the pattern anchored (`^(?:P)$`), tested against the
/// runtime value. Pascal: Claude Code's rules (names, `*`, unanchored regex), tested against the
/// PascalCase value and Copilot's own name ([`super::tools::Named::pascal_candidates`]).
#[derive(Debug, Clone)]
pub struct CopilotMatcher {
    pub text: String,
    pub compiled: FieldMatcher,
}

/// One Copilot hook entry.
#[derive(Debug, Clone)]
pub struct CopilotHook {
    pub event: Event,
    pub mode: Mode,
    /// The event name as written (`preToolUse` or `PreToolUse`).
    pub event_name: String,
    pub handler: CopilotHandler,
    /// `None`: no matcher, or one on an event that has none (ignored, as Copilot does).
    pub matcher: Option<CopilotMatcher>,
    /// The working directory as written (relative to the project root, or absolute).
    pub cwd: Option<String>,
    /// The entry's `env`, in order (values may expand `$VAR`/`${VAR}` of the hook's environment).
    pub env: Vec<(String, String)>,
    pub timeout: Duration,
    /// Where it is: the file, and the path inside it (`hooks.preToolUse[0].hooks[1]`).
    pub source: PathBuf,
    pub at: String,
    pub plugin: Option<Plugin>,
}

impl CopilotHook {
    pub fn type_name(&self) -> &'static str {
        match self.handler {
            CopilotHandler::Http { .. } => "http",
            _ => "command",
        }
    }

    /// One line for `oh-hooks check`.
    pub fn describe(&self) -> String {
        let mut s = match &self.handler {
            CopilotHandler::Shell(c) => format!("command: {c}"),
            CopilotHandler::Exec { program, args } => {
                format!("command: {program} (exec form) {}", serde_json::to_string(args).unwrap_or_default())
            }
            CopilotHandler::Http { url, .. } => format!("http: {url}"),
        };
        if let Some(m) = &self.matcher {
            s.push_str(&format!("  [matcher {}]", m.text));
        }
        s.push_str(&format!("  [timeout {} s]", self.timeout.as_secs_f64()));
        s.push_str(&format!("  (copilot {}: {} at {})", self.event_name, self.source.display(), self.at));
        s
    }
}

/// One file's contribution.
#[derive(Debug, Default)]
pub struct Parsed {
    /// A `settings.json`'s `disableAllHooks` (a hooks file's switches off only that file).
    pub disable_all: Option<bool>,
    pub hooks: Vec<CopilotHook>,
    pub warnings: Vec<String>,
}

/// Distinct regex matchers one load may compile (each is an entry's `matcher`; the bound keeps
/// a hostile file from costing unbounded memory).
pub const MAX_REGEX_MATCHERS: usize = 1000;

/// The events whose `matcher` Copilot uses; on the others it is ignored.
fn has_matcher(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse | Event::PostToolUse | Event::PermissionRequest | Event::SubagentStart | Event::PreCompact
    ) || event == Event::Notification
}

/// Parses one Copilot file. `Err`: the whole file is rejected (the message names it and why).
pub fn parse(source: &File, bytes: &[u8], matchers: &mut Matchers) -> Result<Parsed, String> {
    let file = source.path.display().to_string();
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{file}: at least {} bytes, more than the {MAX_FILE_BYTES} a Copilot hooks file may have; its hooks are not loaded",
            bytes.len()
        ));
    }
    let text = crate::response::json::text(bytes);
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{file}: not valid JSON ({e}); none of its hooks are loaded"))?;
    let Value::Object(top) = value else {
        return Err(format!(
            "{file}: the top level is {}, expected an object; none of its hooks are loaded",
            kind(&value)
        ));
    };
    let mut parsed = Parsed::default();
    match top.get("version") {
        None => {}
        Some(v) if v.as_f64() == Some(1.0) => {}
        Some(v) => {
            return Err(format!("{file}: `version` is {v}, expected 1 (Copilot: \"Invalid hook config version\"); none of its hooks are loaded"))
        }
    }
    let disable_all = match top.get("disableAllHooks") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            return Err(format!(
                "{file}: `disableAllHooks` is {}, expected true or false; none of its hooks are loaded",
                kind(other)
            ))
        }
    };
    if source.plugin.is_some() {
        if let Some(value) = disable_all {
            parsed.warnings.push(format!(
                "{file}: `disableAllHooks: {value}` ignored: a plugin's hooks file cannot switch hooks off (only your own settings and the host can)"
            ));
        }
    } else if is_settings(source) {
        parsed.disable_all = disable_all;
    } else if disable_all == Some(true) {
        // In a hooks file it switches off that file only.
        parsed.warnings.push(format!("{file}: `disableAllHooks: true`: none of this file's hooks run"));
        return Ok(parsed);
    }
    let hooks = match top.get("hooks") {
        None | Some(Value::Null) => return Ok(parsed),
        Some(Value::Object(h)) => h,
        Some(other) => {
            return Err(format!(
                "{file}: `hooks` is {}, expected an object of event names such as \"preToolUse\"; none of its hooks are loaded",
                kind(other)
            ))
        }
    };
    let mut dropped = Vec::new();
    for (name, entries) in hooks {
        let Value::Array(entries) = entries else {
            return Err(format!(
                "{file}: `hooks.{name}` is {}, expected a list of hook entries; none of its hooks are loaded",
                kind(entries)
            ));
        };
        let Some((event, mode)) = event_of(name) else {
            let hint = crate::event::Event::suggest(name)
                .and_then(|e| super::name_of(e, super::Mode::Camel))
                .map(|n| format!(" (Copilot spells it `{n}`)"))
                .unwrap_or_default();
            parsed.warnings.push(format!("{file}: skipped `hooks.{name}`: not a Copilot event{hint}"));
            continue;
        };
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("hooks.{name}[{i}]");
            let group = entry.as_object().filter(|o| o.contains_key("hooks"));
            let Some(group) = group else {
                match hook_of(entry, event, mode, name, None, matchers) {
                    Ok(hook) => parsed.hooks.push(CopilotHook { at, ..hook }),
                    Err(why) => dropped.push(format!("{file}: skipped `{at}`: {why}")),
                }
                continue;
            };
            // A Claude-style group: its matcher applies to its items, one level deep.
            let group_matcher = match group.get("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.as_str()),
                Some(other) => {
                    dropped.push(format!("{file}: skipped `{at}`: `matcher` is {}, expected a string", kind(other)));
                    continue;
                }
            };
            let Some(items) = group.get("hooks").and_then(Value::as_array) else {
                dropped.push(format!("{file}: skipped `{at}`: `hooks` of a group must be a list of hook entries"));
                continue;
            };
            for (j, item) in items.iter().enumerate() {
                let at = format!("{at}.hooks[{j}]");
                if item.as_object().is_some_and(|o| o.contains_key("hooks")) {
                    dropped
                        .push(format!("{file}: skipped `{at}`: nested hooks deeper than one level are not supported"));
                    continue;
                }
                match hook_of(item, event, mode, name, group_matcher, matchers) {
                    Ok(hook) => parsed.hooks.push(CopilotHook { at, ..hook }),
                    Err(why) => dropped.push(format!("{file}: skipped `{at}`: {why}")),
                }
            }
        }
    }
    if is_settings(source) && !dropped.is_empty() {
        // Inline hooks of a settings file are validated as a whole, as Copilot does.
        parsed.warnings.extend(dropped);
        parsed
            .warnings
            .push(format!("{file}: the `hooks` of a settings file load only when every entry is valid; none loaded"));
        parsed.hooks.clear();
        return Ok(parsed);
    }
    parsed.warnings.extend(dropped);
    for hook in &mut parsed.hooks {
        hook.source = source.path.clone();
        hook.plugin = source.plugin.clone();
    }
    Ok(parsed)
}

/// The matchers of one load's files, each distinct text compiled once.
#[derive(Default)]
pub struct Matchers {
    compiled: HashMap<(String, bool), FieldMatcher>,
    regexes: usize,
}

impl Matchers {
    fn get(&mut self, text: &str, mode: Mode) -> Result<FieldMatcher, String> {
        let camel = mode == Mode::Camel;
        if let Some(m) = self.compiled.get(&(text.to_string(), camel)) {
            return Ok(m.clone());
        }
        let m = if camel {
            // The whole value must match: the pattern anchored, as Copilot compiles it.
            FieldMatcher::parse(&format!("^(?:{text})$"))
                .map_err(|_| format!("matcher `{text}` is not a valid regular expression; the entry is skipped"))?
        } else {
            FieldMatcher::parse(text)?
        };
        if matches!(m, FieldMatcher::Regex(_)) {
            if self.regexes >= MAX_REGEX_MATCHERS {
                return Err(format!("more than {MAX_REGEX_MATCHERS} distinct regex matchers in the Copilot files"));
            }
            self.regexes += 1;
        }
        self.compiled.insert((text.to_string(), camel), m.clone());
        Ok(m)
    }
}

fn hook_of(
    value: &Value,
    event: Event,
    mode: Mode,
    event_name: &str,
    group_matcher: Option<&str>,
    matchers: &mut Matchers,
) -> Result<CopilotHook, String> {
    let Value::Object(h) = value else {
        return Err(format!(
            "expected a hook entry such as {{\"type\": \"command\", \"bash\": \"...\"}}, found {}",
            kind(value)
        ));
    };
    let string = |key: &str| string_field(h, key);
    let strings = |key: &str| -> Result<Vec<String>, String> {
        match h.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) if !s.contains('\0') => Ok(s.clone()),
                    other => Err(format!("`{key}` must be a list of strings, found {}", kind(other))),
                })
                .collect(),
            Some(other) => Err(format!("`{key}` is {}, expected a list of strings", kind(other))),
        }
    };
    let object_of_strings = |key: &str| -> Result<Vec<(String, String)>, String> {
        match h.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) if !s.contains('\0') && (key != "env" || is_name(k)) => Ok((k.clone(), s.clone())),
                    Value::String(_) => {
                        Err(format!("`{key}.{k}` cannot be set (a NUL byte, or a name that is not a variable name)"))
                    }
                    other => Err(format!("`{key}.{k}` is {}, expected a string", kind(other))),
                })
                .collect(),
            Some(other) => Err(format!("`{key}` is {}, expected an object of strings", kind(other))),
        }
    };
    let type_name = string("type")?.unwrap_or_else(|| "command".to_string());
    let handler = match type_name.as_str() {
        "command" => {
            let bash = string("bash")?.filter(|s| !s.trim().is_empty());
            let command = string("command")?.filter(|s| !s.trim().is_empty());
            let powershell = string("powershell")?.filter(|s| !s.trim().is_empty());
            match string("exec")? {
                Some(_) if bash.is_some() || command.is_some() || powershell.is_some() => {
                    return Err("specify either `exec` (with `args`) or `bash`/`powershell`/`command`, not both".into())
                }
                Some(program) if program.trim().is_empty() => return Err("`exec` is empty".into()),
                Some(program) => CopilotHandler::Exec { program, args: strings("args")? },
                None => match bash.or(command) {
                    Some(line) => CopilotHandler::Shell(line),
                    None if powershell.is_some() => {
                        return Err(
                            "only `powershell` is given: nothing runs on Linux or macOS (add `bash` or `command`)"
                                .into(),
                        )
                    }
                    None => return Err("no `bash`, `command` or `exec`: nothing to run".into()),
                },
            }
        }
        "http" => {
            let url = string("url")?.filter(|u| !u.trim().is_empty()).ok_or("`url` is missing or empty")?;
            check_url(&url)?;
            CopilotHandler::Http {
                url,
                headers: object_of_strings("headers")?,
                allowed_env_vars: strings("allowedEnvVars")?,
            }
        }
        "prompt" => return Err(
            "a `prompt` entry submits its text as a user message, which is the host's to do; oh-hooks does not run it"
                .into(),
        ),
        other => return Err(format!("unknown `type` `{other}`; expected \"command\" or \"http\"")),
    };
    // `timeout` is an alias, used only when `timeoutSec` is absent.
    let timeout_key = if h.get("timeoutSec").is_some_and(|v| !v.is_null()) { "timeoutSec" } else { "timeout" };
    let timeout = match h.get(timeout_key) {
        None | Some(Value::Null) => Duration::from_secs(DEFAULT_TIMEOUT_SECS),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs > 0.0 && secs.is_finite() => Duration::from_secs_f64(secs.min(MAX_TIMEOUT_SECS)),
            _ => return Err(format!("`{timeout_key}` is {n}; expected a positive number of seconds")),
        },
        Some(other) => {
            return Err(format!("`{timeout_key}` is {}, expected a positive number of seconds", kind(other)))
        }
    };
    // An entry's own matcher, else its group's.
    let matcher_text = match string("matcher")? {
        Some(m) => Some(m),
        None => group_matcher.map(str::to_string),
    };
    let matcher = match matcher_text.filter(|m| !m.is_empty()) {
        Some(text) if has_matcher(event) => Some(CopilotMatcher { compiled: matchers.get(&text, mode)?, text }),
        _ => None,
    };
    Ok(CopilotHook {
        event,
        mode,
        event_name: event_name.to_string(),
        handler,
        matcher,
        cwd: string("cwd")?,
        env: object_of_strings("env")?,
        timeout,
        source: PathBuf::new(),
        at: String::new(),
        plugin: None,
    })
}

/// A variable name a shell can export: a letter or `_`, then letters, digits and `_`.
fn is_name(k: &str) -> bool {
    k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `https://`, or `http://` to this machine only (Copilot allows plain HTTP only to localhost).
fn check_url(url: &str) -> Result<(), String> {
    let lower = url.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("https://") {
        if !rest.is_empty() && !rest.starts_with('/') {
            return Ok(());
        }
    }
    if let Some(rest) = lower.strip_prefix("http://") {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        let name = if host.starts_with('[') {
            host.split(']').next().map(|h| &h[1..]).unwrap_or("")
        } else {
            host.split(':').next().unwrap_or("")
        };
        if name == "localhost" || name.starts_with("127.") || name == "::1" {
            return Ok(());
        }
        return Err(format!(
            "`url` `{url}`: Copilot sends hook requests over https:// (plain http:// only to localhost)"
        ));
    }
    Err(format!("`url` `{url}` is not an https:// URL with a host"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn source(settings: bool) -> File {
        let name = if settings { "/p/.github/copilot/settings.json" } else { "/p/.github/hooks/guard.json" };
        File { path: PathBuf::from(name), kind: LayerKind::Project, plugin: None, change_source: None, dir: None }
    }

    fn parse_text(text: &str) -> Result<Parsed, String> {
        parse(&source(false), text.as_bytes(), &mut Matchers::default())
    }

    fn commands(p: &Parsed) -> Vec<String> {
        p.hooks
            .iter()
            .map(|h| match &h.handler {
                CopilotHandler::Shell(c) => c.clone(),
                CopilotHandler::Exec { program, .. } => format!("exec {program}"),
                CopilotHandler::Http { url, .. } => url.clone(),
            })
            .collect()
    }

    #[test]
    fn the_reference_example() {
        let p = parse_text(
            r#"{"version": 1, "hooks": {"preToolUse": [
                {"type": "command", "bash": "./scripts/check.sh", "powershell": "./scripts/check.ps1",
                 "cwd": ".", "env": {"LOG_LEVEL": "info"}, "timeoutSec": 15, "matcher": "bash|edit", "comment": "x"},
                {"matcher": "Bash", "hooks": [{"command": "./scripts/guard.sh", "timeout": 10}]},
                {"type": "command", "exec": "python3", "args": ["tools/guard.py"]},
                {"type": "http", "url": "https://hooks.example.com/copilot", "headers": {"X-Token": "$TOKEN"},
                 "allowedEnvVars": ["TOKEN"], "timeoutSec": 10}],
              "Stop": [{"command": "./stop.sh"}]}}"#,
        )
        .unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            commands(&p),
            [
                "./scripts/check.sh",
                "./scripts/guard.sh",
                "exec python3",
                "https://hooks.example.com/copilot",
                "./stop.sh"
            ]
        );
        let h = &p.hooks[0];
        assert_eq!((h.event, h.mode, h.timeout), (Event::PreToolUse, Mode::Camel, Duration::from_secs(15)));
        assert_eq!(h.env, [("LOG_LEVEL".to_string(), "info".to_string())]);
        assert_eq!(h.cwd.as_deref(), Some("."));
        assert_eq!(h.at, "hooks.preToolUse[0]");
        assert_eq!(h.source, Path::new("/p/.github/hooks/guard.json"));
        let m = &h.matcher.as_ref().unwrap().compiled;
        assert!(m.matches(Some("bash")) && m.matches(Some("edit")));
        assert!(!m.matches(Some("bash2")) && !m.matches(Some("Bash")), "anchored and case-sensitive");
        assert_eq!(p.hooks[1].at, "hooks.preToolUse[1].hooks[0]");
        assert_eq!(p.hooks[1].timeout, Duration::from_secs(10), "`timeout` is an alias");
        assert_eq!(p.hooks[1].matcher.as_ref().unwrap().text, "Bash", "the group's matcher");
        assert_eq!(p.hooks[3].type_name(), "http");
        assert_eq!(p.hooks[4].timeout, Duration::from_secs(30), "default 30 s");
        assert_eq!((p.hooks[4].event, p.hooks[4].mode), (Event::TurnStop, Mode::Pascal));
    }

    #[test]
    fn a_bad_entry_is_dropped_alone() {
        let p = parse_text(
            r#"{"hooks": {"preToolUse": [
                "echo bare",
                {"bash": "ok-1"},
                {"type": "command"},
                {"exec": "x", "bash": "y"},
                {"powershell": "Write-Host"},
                {"type": "weird", "bash": "x"},
                {"type": "http"},
                {"type": "http", "url": "http://example.com/x"},
                {"bash": "x", "timeoutSec": "5"},
                {"bash": "x", "matcher": "("},
                {"bash": "x", "env": {"A": 1}},
                {"matcher": "bash", "hooks": [{"bash": "ok-2"}, {"hooks": [{"bash": "deep"}]}]},
                {"bash": "ok-3", "timeoutSec": 5, "timeout": "ignored"}],
              "sessionStart": [{"type": "prompt", "prompt": "/plan"}],
              "nonsense": [{"bash": "x"}]}}"#,
        )
        .unwrap();
        assert_eq!(commands(&p), ["ok-1", "ok-2", "ok-3"]);
        let all = p.warnings.join("\n");
        for needle in [
            "skipped `hooks.preToolUse[0]`: expected a hook entry",
            "skipped `hooks.preToolUse[2]`: no `bash`, `command` or `exec`",
            "skipped `hooks.preToolUse[3]`: specify either `exec`",
            "skipped `hooks.preToolUse[4]`: only `powershell`",
            "skipped `hooks.preToolUse[5]`: unknown `type` `weird`",
            "skipped `hooks.preToolUse[6]`: `url` is missing",
            "skipped `hooks.preToolUse[7]`: `url` `http://example.com/x`",
            "skipped `hooks.preToolUse[8]`: `timeoutSec` is a string",
            "skipped `hooks.preToolUse[9]`: matcher `(` is not a valid regular expression",
            "skipped `hooks.preToolUse[10]`: `env.A` is a number",
            "skipped `hooks.preToolUse[11].hooks[1]`: nested hooks deeper than one level",
            "skipped `hooks.sessionStart[0]`: a `prompt` entry",
            "skipped `hooks.nonsense`: not a Copilot event",
        ] {
            assert!(all.contains(needle), "missing {needle:?} in:\n{all}");
        }
        assert!(all.contains("/p/.github/hooks/guard.json"));
    }

    #[test]
    fn structural_errors_reject_the_file() {
        for (text, why) in [
            ("{not json", "not valid JSON"),
            ("[1]", "the top level is a list"),
            (r#"{"version": 2, "hooks": {}}"#, "`version` is 2, expected 1"),
            (r#"{"hooks": []}"#, "`hooks` is a list"),
            (r#"{"hooks": {"preToolUse": {"bash": "x"}}}"#, "`hooks.preToolUse` is an object"),
            (r#"{"disableAllHooks": "yes"}"#, "`disableAllHooks` is a string"),
        ] {
            let e = parse_text(text).unwrap_err();
            assert!(e.contains(why) && e.contains("/p/.github/hooks/guard.json"), "{text}: {e}");
        }
        assert!(parse_text(r#"{"hooks": {}}"#).unwrap().hooks.is_empty(), "version may be omitted");
        let huge = vec![b' '; MAX_FILE_BYTES as usize + 1];
        assert!(parse(&source(false), &huge, &mut Matchers::default()).unwrap_err().contains("bytes"));
    }

    #[test]
    fn disable_all_hooks_by_file() {
        let text = r#"{"disableAllHooks": true, "hooks": {"preToolUse": [{"bash": "x"}]}}"#;
        let p = parse_text(text).unwrap();
        assert!(p.hooks.is_empty() && p.disable_all.is_none(), "a hooks file switches off itself only");
        let p = parse(&source(true), text.as_bytes(), &mut Matchers::default()).unwrap();
        assert_eq!(p.disable_all, Some(true), "a settings file's switch is the layer's");
        let plugin = File { plugin: Some(Plugin { root: "/pl".into(), data: None }), ..source(false) };
        let p = parse(&plugin, text.as_bytes(), &mut Matchers::default()).unwrap();
        assert_eq!((p.hooks.len(), p.disable_all), (1, None));
        assert!(p.warnings[0].contains("cannot switch hooks off"));
    }

    #[test]
    fn settings_hooks_are_strict() {
        let text = r#"{"model": "x", "hooks": {"preToolUse": [{"bash": "good"}, {"type": "bad"}]}}"#;
        let p = parse(&source(true), text.as_bytes(), &mut Matchers::default()).unwrap();
        assert!(p.hooks.is_empty());
        assert!(p.warnings.iter().any(|w| w.contains("none loaded")));
        assert_eq!(parse_text(text).unwrap().hooks.len(), 1, "a hooks file keeps the good sibling");
    }

    #[test]
    fn matchers_by_mode_and_event() {
        let p = parse_text(
            r#"{"hooks": {
                "PreToolUse": [{"matcher": "Bash|Edit", "bash": "a"}, {"matcher": "B.s", "bash": "b"}, {"matcher": "*", "bash": "c"}],
                "preToolUse": [{"matcher": "ba", "bash": "d"}, {"matcher": ".*", "bash": "e"}],
                "userPromptSubmitted": [{"matcher": "nothing", "bash": "f"}]}}"#,
        )
        .unwrap();
        let m = |i: usize| p.hooks[i].matcher.as_ref().map(|m| m.compiled.clone());
        let pascal_names = m(0).unwrap();
        assert!(pascal_names.matches(Some("Bash")) && !pascal_names.matches(Some("BashOutput")));
        assert!(m(1).unwrap().matches(Some("Bash")), "Claude Code's regexes are unanchored");
        assert!(m(2).unwrap().matches(Some("anything")));
        assert!(!m(3).unwrap().matches(Some("bash")), "camelCase matchers are anchored");
        assert!(m(4).unwrap().matches(Some("bash")));
        assert!(m(5).is_none(), "ignored on an event without a matcher");
    }

    #[test]
    fn files_in_order() {
        let chosen = crate::dialect::Chosen {
            on: true,
            files: vec![PathBuf::from("/etc/p.json")],
            plugins: vec![Plugin { root: "/pl".into(), data: None }],
            project_dir: None,
        };
        let place = Place {
            cwd: Path::new("/w"),
            home: Some(Path::new("/h")),
            user: true,
            project: true,
            local: true,
            chosen: &chosen,
        };
        let list = files(&place);
        let paths: Vec<String> = list.iter().map(|s| s.path.display().to_string()).collect();
        assert_eq!(
            paths,
            [
                "/h/.copilot/hooks",
                "/h/.copilot/settings.json",
                "/w/.github/hooks",
                "/w/.github/copilot/settings.json",
                "/w/.github/copilot/settings.local.json",
                "/etc/p.json",
                "/pl/hooks.json",
                "/pl/hooks/hooks.json"
            ]
        );
        assert!(
            list[0].dir.is_some()
                && list[1].dir.is_none()
                && is_settings(&list[1])
                && list[2].kind == LayerKind::Project
        );
        assert_eq!(list[5].kind, LayerKind::Own);
        let off = crate::dialect::Chosen::default();
        assert!(files(&Place { chosen: &off, ..place }).is_empty());
    }
}
