//! The Claude Code dialect (docs/dialects/claude.md "Claude Code hooks"): `~/.claude/settings.json`, the project's
//! `.claude/settings.json` and `.claude/settings.local.json`, and plugins' `hooks/hooks.json`,
//! read into the engine's hook list, each hook tagged with the file it came from.
//!
//! The files are read by the one loader of every dialect ([`super::layers`]); this module says
//! which they are and parses one.
//!
//! Claude Code skips a bad entry and loads the rest of the file, and so does this reader: every
//! entry that cannot run is left out with a warning naming the file, the path inside it and
//! why (shown in each outcome's `warnings` and by `oh-hooks check`). Only `hooks` and
//! `disableAllHooks` are read; every other key belongs to Claude Code.

use super::events;
use crate::dialect::{
    kind, string_field, File, Handler, Hook, LayerKind, Parsed, Place, Plugin, MAX_FILE_BYTES, MAX_TIMEOUT_SECS,
};
use crate::event::Event;
use crate::matcher::claude::{takes_if, PermissionRule};
use crate::matcher::field::FieldMatcher;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Claude Code's default timeout for this hook on `event` (the reference's "Common fields").
pub fn default_timeout(hook: &Hook, event: Event) -> Duration {
    let secs = match (&hook.handler, event) {
        (Handler::Callback { kind: "prompt", .. }, _) => 30.0,
        (Handler::Callback { kind: "agent", .. }, _) => 60.0,
        (_, Event::SessionEnd) => 1.5,
        (_, Event::MessageDisplay) => 10.0,
        (_, Event::UserPromptSubmit | Event::PreModelSwitch | Event::PostModelSwitch) => 30.0,
        _ => 600.0,
    };
    Duration::from_secs_f64(secs)
}

pub fn timeout_for(hook: &Hook, event: Event) -> Duration {
    hook.timeout.unwrap_or_else(|| default_timeout(hook, event))
}

/// The Claude Code files to read, in order: the user's settings, the project's settings and
/// local settings, the host's own `files`, then each plugin's `hooks/hooks.json`. Present or not
/// (one created later is noticed by the watcher).
pub fn files(place: &Place) -> Vec<File> {
    let file = |path: PathBuf, kind, change_source| File { path, kind, plugin: None, change_source, dir: None };
    let mut files = Vec::new();
    if place.chosen.on {
        if let (true, Some(home)) = (place.user, place.home) {
            files.push(file(home.join(".claude/settings.json"), LayerKind::Own, Some("user_settings")));
        }
        if place.project {
            files.push(file(place.cwd.join(".claude/settings.json"), LayerKind::Project, Some("project_settings")));
        }
        if place.local {
            files.push(file(place.cwd.join(".claude/settings.local.json"), LayerKind::Project, Some("local_settings")));
        }
    }
    files.extend(place.chosen.files.iter().map(|path| file(path.clone(), LayerKind::Own, None)));
    for plugin in &place.chosen.plugins {
        files.push(File {
            path: plugin.root.join("hooks/hooks.json"),
            kind: LayerKind::Own,
            plugin: Some(plugin.clone()),
            change_source: None,
            dir: None,
        });
    }
    files
}

/// Regex matchers one load may compile; no real settings file comes near (each is a group's
/// `matcher`), and the bound keeps a hostile file from costing unbounded memory.
pub const MAX_REGEX_MATCHERS: usize = 1000;

/// The matchers of one load, each distinct text compiled once (a file that repeats a regex in
/// many groups costs one compilation).
#[derive(Default)]
pub struct Matchers {
    compiled: std::collections::HashMap<String, FieldMatcher>,
    regexes: usize,
}

impl Matchers {
    fn get(&mut self, text: &str) -> Result<FieldMatcher, String> {
        if let Some(m) = self.compiled.get(text) {
            return Ok(m.clone());
        }
        let m = FieldMatcher::parse(text)?;
        if matches!(m, FieldMatcher::Regex(_)) {
            if self.regexes >= MAX_REGEX_MATCHERS {
                return Err(format!(
                    "more than {MAX_REGEX_MATCHERS} distinct regex matchers in the Claude Code files; this one is not compiled"
                ));
            }
            self.regexes += 1;
        }
        self.compiled.insert(text.to_string(), m.clone());
        Ok(m)
    }
}

impl crate::dialect::Parser for Matchers {
    fn parse(&mut self, file: &File, bytes: &[u8]) -> Parsed {
        let mut warnings = Vec::new();
        let mut parsed = parse(&file.path, bytes, file.plugin.as_ref(), self, &mut warnings);
        parsed.warnings = warnings;
        parsed
    }
}

/// Parses one settings or `hooks.json` file; every problem is a warning in `warnings`.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    plugin: Option<&Plugin>,
    matchers: &mut Matchers,
    warnings: &mut Vec<String>,
) -> Parsed {
    let file = path.display().to_string();
    let mut parsed = Parsed::default();
    // Settings files are small; a huge one (a hostile repository's) is not parsed at all.
    if bytes.len() as u64 > MAX_FILE_BYTES {
        warnings.push(format!(
            "{file}: at least {} bytes, more than the {MAX_FILE_BYTES} a Claude Code settings file may have; its hooks are not loaded",
            bytes.len()
        ));
        return parsed;
    }
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            warnings.push(format!("{file}: not valid JSON ({e}); none of its hooks are loaded"));
            return parsed;
        }
    };
    let Value::Object(top) = value else {
        warnings.push(format!("{file}: the top level is not a JSON object; none of its hooks are loaded"));
        return parsed;
    };
    match top.get("disableAllHooks") {
        None => {}
        Some(Value::Bool(b)) => parsed.disable_all = Some(*b),
        Some(other) => {
            warnings.push(format!("{file}: `disableAllHooks` is {}, expected true or false; ignored", kind(other)))
        }
    }
    let hooks = match top.get("hooks") {
        None | Some(Value::Null) => return parsed,
        Some(Value::Object(h)) => h,
        Some(other) => {
            warnings.push(format!(
                "{file}: `hooks` is {}, expected an object of event names such as \"PreToolUse\"; no hooks loaded",
                kind(other)
            ));
            return parsed;
        }
    };
    for (name, groups) in hooks {
        let Some(event) = events::event(name) else {
            let hint = Event::from_name(name)
                .and_then(events::name)
                .map(|n| format!(" (Claude Code spells it `{n}`)"))
                .unwrap_or_default();
            warnings.push(format!("{file}: skipped `hooks.{name}`: unknown Claude Code event{hint}"));
            continue;
        };
        let Value::Array(groups) = groups else {
            if !groups.is_null() {
                warnings.push(format!(
                    "{file}: skipped `hooks.{name}`: expected a list of matcher groups, found {}",
                    kind(groups)
                ));
            }
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let at = format!("hooks.{name}[{g}]");
            let skip = |warnings: &mut Vec<String>, at: &str, why: String| {
                warnings.push(format!("{file}: skipped `{at}`: {why}"));
            };
            let Value::Object(group) = group else {
                skip(
                    warnings,
                    &at,
                    format!(
                        "expected a matcher group object {{\"matcher\": ..., \"hooks\": [...]}}, found {}",
                        kind(group)
                    ),
                );
                continue;
            };
            for key in group.keys() {
                if key != "matcher" && key != "hooks" {
                    warnings.push(format!(
                        "{file}: `{at}.{key}` is not a matcher group key (expected `matcher`, `hooks`); ignored"
                    ));
                }
            }
            let matcher_text = match group.get("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => {
                    skip(warnings, &at, format!("`matcher` is {}, expected a string", kind(other)));
                    continue;
                }
            };
            let matcher = match matchers.get(matcher_text.as_deref().unwrap_or("")) {
                Ok(m) => m,
                Err(why) => {
                    skip(warnings, &at, why);
                    continue;
                }
            };
            let handlers = match group.get("hooks") {
                Some(Value::Array(h)) => h,
                other => {
                    let found = other.map_or("nothing".to_string(), |o| kind(o).to_string());
                    skip(warnings, &at, format!("`hooks` must be a list of handlers, found {found}"));
                    continue;
                }
            };
            for (h, handler) in handlers.iter().enumerate() {
                let at = format!("{at}.hooks[{h}]");
                match handler_of(handler, event, &file, &at, warnings) {
                    Ok(mut hook) => {
                        hook.matcher = matcher.clone();
                        hook.matcher_text = matcher_text.clone();
                        hook.source = path.to_path_buf();
                        hook.plugin = plugin.cloned();
                        if let Some(p) = plugin {
                            hook.identity.push_str(&format!("\0plugin {}", p.root.display()));
                        }
                        parsed.hooks.push((event, hook));
                    }
                    Err(why) => skip(warnings, &at, why),
                }
            }
        }
    }
    parsed
}

const COMMON_KEYS: &[&str] = &["type", "if", "timeout", "statusMessage", "once", "onFailure"];

fn handler_of(value: &Value, event: Event, file: &str, at: &str, warnings: &mut Vec<String>) -> Result<Hook, String> {
    let Value::Object(h) = value else {
        return Err(format!(
            "expected a handler object such as {{\"type\": \"command\", \"command\": \"...\"}}, found {}",
            kind(value)
        ));
    };
    let string = |key: &str| string_field(h, key);
    let flag = |key: &str| -> Result<bool, String> {
        match h.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!("`{key}` is {}, expected true or false", kind(other))),
        }
    };
    let required = |key: &str| -> Result<String, String> {
        string(key)?.filter(|s| !s.trim().is_empty()).ok_or_else(|| format!("`{key}` is missing or empty"))
    };
    let type_name = string("type")?
        .ok_or("`type` is missing; expected \"command\", \"http\", \"prompt\", \"agent\" or \"mcp_tool\"")?;
    let (handler, own_keys): (Handler, &[&str]) = match type_name.as_str() {
        "command" => {
            let command = required("command")?;
            let args = match h.get("args") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|a| match a {
                            Value::String(s) if !s.contains('\0') => Ok(s.clone()),
                            other => Err(format!("`args` must be a list of strings, found {}", kind(other))),
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                Some(other) => return Err(format!("`args` is {}, expected a list of strings", kind(other))),
            };
            if let Some(shell) = string("shell")? {
                if shell == "powershell" && args.is_none() {
                    return Err("`shell: \"powershell\"` is not supported (hooks run with `sh -c`)".to_string());
                }
            }
            (Handler::Command { command, args }, &["command", "args", "async", "asyncRewake", "shell"])
        }
        "http" => {
            let url = required("url")?;
            let lower = url.to_ascii_lowercase();
            let host = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://"));
            if !host.is_some_and(|h| !h.is_empty() && !h.starts_with('/')) {
                return Err(format!("`url` `{url}` is not an http:// or https:// URL with a host"));
            }
            let headers = match h.get("headers") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(map)) => map
                    .iter()
                    .map(|(k, v)| match v {
                        Value::String(s) => Ok((k.clone(), s.clone())),
                        other => Err(format!("header `{k}` is {}, expected a string", kind(other))),
                    })
                    .collect::<Result<_, _>>()?,
                Some(other) => return Err(format!("`headers` is {}, expected an object of strings", kind(other))),
            };
            let allowed_env_vars = match h.get("allowedEnvVars") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| {
                        v.as_str().map(str::to_string).ok_or("`allowedEnvVars` must be a list of names".to_string())
                    })
                    .collect::<Result<_, _>>()?,
                Some(other) => return Err(format!("`allowedEnvVars` is {}, expected a list of names", kind(other))),
            };
            (Handler::Http { url, headers, allowed_env_vars }, &["url", "headers", "allowedEnvVars"])
        }
        kind_name @ ("prompt" | "agent" | "mcp_tool") => {
            let kind: &'static str = match kind_name {
                "prompt" => "prompt",
                "agent" => "agent",
                _ => "mcp_tool",
            };
            if kind == "mcp_tool" {
                required("server")?;
                required("tool")?;
            } else {
                required("prompt")?;
            }
            let fields: Map<String, Value> =
                h.iter().filter(|(k, _)| *k != "type").map(|(k, v)| (k.clone(), v.clone())).collect();
            (Handler::Callback { kind, fields }, &["prompt", "model", "continueOnBlock", "server", "tool", "input"])
        }
        other => {
            return Err(format!(
                "unknown handler type `{other}`; expected \"command\", \"http\", \"prompt\", \"agent\" or \"mcp_tool\""
            ))
        }
    };
    for key in h.keys() {
        if !COMMON_KEYS.contains(&key.as_str()) && !own_keys.contains(&key.as_str()) {
            warnings.push(format!("{file}: `{at}.{key}` is not a field of a {type_name} hook; ignored"));
        }
    }
    let if_text = string("if")?;
    let if_rule = if_text.as_deref().map(PermissionRule::parse).transpose()?;
    if if_rule.is_some() && !takes_if(event) {
        warnings.push(format!(
            "{file}: `{at}` has `if`, which only tool events take; on {} it never runs",
            events::name_or_engine(event)
        ));
    }
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(secs) if secs > 0.0 && secs.is_finite() => Some(Duration::from_secs_f64(secs.min(MAX_TIMEOUT_SECS))),
            _ => return Err(format!("`timeout` is {n}; expected a positive number of seconds")),
        },
        Some(other) => return Err(format!("`timeout` is {}, expected a positive number of seconds", kind(other))),
    };
    let on_failure_block = match string("onFailure")?.as_deref() {
        None | Some("allow") => false,
        Some("block") => true,
        Some(other) => return Err(format!("`onFailure` is `{other}`; expected \"block\" (or \"allow\")")),
    };
    let is_async = matches!(handler, Handler::Command { .. }) && (flag("async")? || flag("asyncRewake")?);
    let argv = match &handler {
        Handler::Command { command, args: None } => crate::words::plain_words(command),
        _ => None,
    };
    let identity = {
        let sorted: std::collections::BTreeMap<&String, &Value> = h.iter().collect();
        serde_json::to_string(&sorted).unwrap_or_default()
    };
    Ok(Hook {
        dialect: 0,
        handler,
        matcher: FieldMatcher::Any,
        matcher_text: None,
        if_rule,
        if_text,
        timeout,
        is_async,
        fail_closed: on_failure_block,
        source: PathBuf::new(),
        plugin: None,
        argv,
        identity,
        from_project: false,
        event_name: None,
        loop_limit: None,
        cwd: None,
        env: Vec::new(),
        sequential: false,
        name: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> (Parsed, Vec<String>) {
        let mut warnings = Vec::new();
        let parsed = parse(
            Path::new("/p/.claude/settings.json"),
            text.as_bytes(),
            None,
            &mut Matchers::default(),
            &mut warnings,
        );
        (parsed, warnings)
    }

    #[test]
    fn reads_the_reference_example() {
        let (p, w) = parse_text(
            r#"{"model": "x", "permissions": {}, "hooks": {"PreToolUse": [{"matcher": "Bash",
                "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh", "timeout": 60}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh", "args": ["--x"]}]}]}}"#,
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(p.hooks.len(), 2);
        let (event, hook) = &p.hooks[0];
        assert_eq!(*event, Event::PreToolUse);
        assert_eq!(hook.timeout, Some(Duration::from_secs(60)));
        assert!(hook.matcher.matches(Some("Bash")) && !hook.matcher.matches(Some("BashOutput")));
        assert_eq!(hook.source, Path::new("/p/.claude/settings.json"));
        assert_eq!(p.hooks[1].0, Event::TurnStop);
        assert!(matches!(&p.hooks[1].1.handler, Handler::Command { args: Some(a), .. } if a == &["--x"]));
    }

    #[test]
    fn bad_entries_are_skipped_and_the_rest_loads() {
        let (p, w) = parse_text(
            r#"{"hooks": {
                "PreToolUse": [
                  {"matcher": "Bash", "hooks": [
                     "echo bare string",
                     {"type": "command"},
                     {"type": "command", "command": "ok-1", "timeout": "5"},
                     {"type": "command", "command": "ok-2", "description": "x"},
                     {"type": "weird", "command": "x"},
                     {"type": "command", "command": "x", "if": "Bash("}
                  ]},
                  {"matcher": 5, "hooks": [{"type": "command", "command": "x"}]},
                  {"matcher": "(", "hooks": [{"type": "command", "command": "x"}]}
                ],
                "preToolUse": [{"hooks": [{"type": "command", "command": "x"}]}],
                "Nonsense": [],
                "PostToolUse": {"hooks": []}
            }}"#,
        );
        let commands: Vec<_> = p
            .hooks
            .iter()
            .map(|(_, h)| match &h.handler {
                Handler::Command { command, .. } => command.as_str(),
                _ => "?",
            })
            .collect();
        assert_eq!(commands, ["ok-2"]);
        let all = w.join("\n");
        for needle in [
            "skipped `hooks.PreToolUse[0].hooks[0]`: expected a handler object",
            "skipped `hooks.PreToolUse[0].hooks[1]`: `command` is missing",
            "skipped `hooks.PreToolUse[0].hooks[2]`: `timeout` is a string",
            "`hooks.PreToolUse[0].hooks[3].description` is not a field of a command hook; ignored",
            "unknown handler type `weird`",
            "`if` rule `Bash(` is not a permission rule",
            "skipped `hooks.PreToolUse[1]`: `matcher` is a number",
            "skipped `hooks.PreToolUse[2]`: matcher `(` is not a valid regular expression",
            "skipped `hooks.preToolUse`: unknown Claude Code event (Claude Code spells it `PreToolUse`)",
            "skipped `hooks.Nonsense`: unknown Claude Code event",
            "skipped `hooks.PostToolUse`: expected a list of matcher groups",
        ] {
            assert!(all.contains(needle), "missing {needle:?} in:\n{all}");
        }
        assert!(all.contains("/p/.claude/settings.json"));
    }

    #[test]
    fn whole_file_problems() {
        let (p, w) = parse_text("{not json");
        assert!(p.hooks.is_empty() && w[0].contains("not valid JSON"));
        let (_, w) = parse_text("[1]");
        assert!(w[0].contains("not a JSON object"));
        let (p, w) = parse_text(r#"{"disableAllHooks": true, "hooks": null}"#);
        assert_eq!(p.disable_all, Some(true));
        assert!(w.is_empty());
    }

    #[test]
    fn regex_matchers_are_bounded_and_shared() {
        let groups: Vec<serde_json::Value> = (0..MAX_REGEX_MATCHERS + 5)
            .map(
                |i| serde_json::json!({"matcher": format!("^t{i}.*$"), "hooks": [{"type": "command", "command": "x"}]}),
            )
            .chain(
                (0..100).map(
                    |_| serde_json::json!({"matcher": "^same.*$", "hooks": [{"type": "command", "command": "x"}]}),
                ),
            )
            .collect();
        let text = serde_json::json!({"hooks": {"PreToolUse": groups}}).to_string();
        let (p, w) = parse_text(&text);
        assert_eq!(p.hooks.len(), MAX_REGEX_MATCHERS, "the repeated regex was over the bound too: {}", w.len());
        assert_eq!(w.len(), 105);
        assert!(w[0].contains("more than 1000 distinct regex matchers"), "{}", w[0]);
        let text = serde_json::json!({"hooks": {"PreToolUse": [
            {"matcher": "^same.*$", "hooks": [{"type": "command", "command": "a"}]},
            {"matcher": "^same.*$", "hooks": [{"type": "command", "command": "b"}]}]}})
        .to_string();
        let mut m = Matchers::default();
        let p = parse(Path::new("/x"), text.as_bytes(), None, &mut m, &mut Vec::new());
        assert_eq!((p.hooks.len(), m.regexes), (2, 1), "one compilation for a repeated pattern");
    }

    #[test]
    fn timeouts_and_types() {
        let (p, w) = parse_text(
            r#"{"hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": "a"},
                {"type": "command", "command": "b", "timeout": 0.5, "onFailure": "block", "async": true},
                {"type": "http", "url": "http://127.0.0.1:1/x", "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"]},
                {"type": "prompt", "prompt": "Is this ok? $ARGUMENTS"},
                {"type": "command", "command": "c", "timeout": 0},
                {"type": "http", "url": "ftp://x"}
            ]}]}}"#,
        );
        assert_eq!(p.hooks.len(), 4, "{w:?}");
        let hooks: Vec<&Hook> = p.hooks.iter().map(|(_, h)| h).collect();
        assert_eq!(timeout_for(hooks[0], Event::UserPromptSubmit), Duration::from_secs(30));
        assert_eq!(timeout_for(hooks[0], Event::PreToolUse), Duration::from_secs(600));
        assert_eq!(hooks[1].timeout, Some(Duration::from_millis(500)));
        assert!(hooks[1].fail_closed && hooks[1].is_async);
        assert_eq!(hooks[2].type_name(), "http");
        assert_eq!(hooks[3].type_name(), "prompt");
        assert_eq!(timeout_for(hooks[3], Event::PreToolUse), Duration::from_secs(30));
        assert!(w.iter().any(|w| w.contains("`timeout` is 0")));
        assert!(w.iter().any(|w| w.contains("not an http:// or https:// URL")));
    }
}
