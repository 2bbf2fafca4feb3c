//! One Codex file parsed into hooks (docs/dialects/codex.md "Files"). Codex deserializes a
//! `hooks.json` (or a `config.toml`'s `[hooks]` tables) in one piece into tagged structs, so a
//! handler it cannot load — an unknown or missing `type`, a `command` handler without a string
//! `command`, a `timeout` that is not a non-negative integer, an event value that is not a list,
//! an explicit `null` where a map or list belongs — makes it ignore **every hook of that file**.
//! oh-hooks does the same ([`Rejected`]: the whole file is skipped with one warning naming file,
//! path and reason; the rest of the config loads). Only `prompt` and `agent` handlers (which
//! Codex parses but does not run) and blank commands are skipped one by one, and a group whose
//! matcher does not compile is skipped with its handlers. Unknown keys and unknown event names
//! are ignored as Codex ignores them (with a warning, so nothing is silently dropped).
//! Identical handlers are kept: Codex runs each as often as it is configured.

use super::files::{format, substitute, Format};
use super::matcher::{matcher_field, CodexMatcher};
use super::{event_of, EVENTS, LATER_EVENTS, MAX_TIMEOUT};
use crate::dialect::{kind, File, Handler, Hook, Plugin, MAX_FILE_BYTES};
use crate::event::Event;
use crate::matcher::field::FieldMatcher;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

/// Distinct regex matchers one file may compile (each is a group's `matcher`; no real file comes
/// near, and the bound keeps a hostile one from costing unbounded memory).
pub const MAX_REGEX_MATCHERS: usize = 1000;

/// One Codex command handler with its group's matcher.
#[derive(Debug, Clone)]
pub struct CodexHook {
    /// The command as written (plugin `${…}` placeholders already replaced), run by the user's
    /// shell with `-c`.
    pub command: String,
    pub matcher: CodexMatcher,
    /// The same, as the engine's common hook carries it.
    pub field_matcher: FieldMatcher,
    /// The matcher as written (`None`: absent, or ignored on this event).
    pub matcher_text: Option<String>,
    /// Codex's `timeout` in seconds (at least 1), else 600.
    pub timeout: Duration,
    /// `async: true`: runs in the background and decides nothing.
    pub is_async: bool,
    pub status_message: Option<String>,
    /// The Codex event name as written (`Stop` for `turnStop`).
    pub event_name: &'static str,
    pub source: PathBuf,
    pub plugin: Option<Plugin>,
    /// Codex's hook key, `<file>:<event_label>:<group>:<handler>` (for `oh-hooks check`).
    pub key: String,
}

impl CodexHook {
    /// One line for `oh-hooks check`.
    pub fn describe(&self) -> String {
        let mut s = format!("command: {}", self.command);
        if let Some(m) = &self.matcher_text {
            s.push_str(&format!("  [matcher {m}]"));
        }
        s.push_str(&format!("  [timeout {} s]", self.timeout.as_secs()));
        if self.is_async {
            s.push_str("  [async]");
        }
        s.push_str(&format!("  (codex {}: {})", self.event_name, self.source.display()));
        s
    }
}

/// One file's contribution.
#[derive(Debug, Default)]
pub struct Parsed {
    pub hooks: Vec<(Event, CodexHook)>,
    pub warnings: Vec<String>,
}

/// The whole file is skipped, as Codex skips it; the message names file, path and reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected(pub String);

/// The parser of one load: the regex matchers of all its files, each distinct text compiled once
/// and at most [`MAX_REGEX_MATCHERS`] of them.
#[derive(Default)]
pub struct CodexParser {
    regexes: HashMap<String, (CodexMatcher, FieldMatcher)>,
}

impl crate::dialect::Parser for CodexParser {
    fn parse(&mut self, file: &File, bytes: &[u8]) -> crate::dialect::Parsed {
        match parse(file, bytes, &mut self.regexes) {
            Ok(p) => crate::dialect::Parsed {
                disable_all: None,
                hooks: p.hooks.into_iter().map(|(e, h)| (e, h.into_hook())).collect(),
                warnings: p.warnings,
            },
            Err(Rejected(why)) => crate::dialect::Parsed { warnings: vec![why], ..Default::default() },
        }
    }
}

impl CodexHook {
    /// The engine's common hook: always run by the user's shell (`argv: None`), never
    /// de-duplicated (each configured handler has its own identity, Codex's hook key).
    pub fn into_hook(self) -> Hook {
        Hook {
            dialect: 0,
            handler: Handler::Command { command: self.command, args: None },
            matcher: self.field_matcher,
            matcher_text: self.matcher_text,
            if_rule: None,
            if_text: None,
            timeout: Some(self.timeout),
            is_async: self.is_async,
            fail_closed: false,
            source: self.source,
            plugin: self.plugin,
            argv: None,
            identity: self.key,
            from_project: false,
            event_name: None,
            loop_limit: None,
            cwd: None,
            env: Vec::new(),
            sequential: false,
            name: None,
        }
    }
}

pub fn parse(
    file: &File,
    bytes: &[u8],
    regexes: &mut HashMap<String, (CodexMatcher, FieldMatcher)>,
) -> Result<Parsed, Rejected> {
    let name = file.path.display().to_string();
    let reject = |at: &str, why: String| {
        let at = if at.is_empty() { String::new() } else { format!("`{at}`: ") };
        Rejected(format!("{name}: none of its Codex hooks are loaded (Codex ignores the whole file): {at}{why}"))
    };
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(reject(
            "",
            format!("at least {} bytes, more than the {MAX_FILE_BYTES} a hooks file may have", bytes.len()),
        ));
    }
    let mut parsed = Parsed::default();
    let file_format = format(&file.path);
    let (top, hooks_at) = match file_format {
        Format::Json => {
            let value: Value =
                serde_json::from_slice(bytes).map_err(|e| reject("", format!("not valid JSON ({e})")))?;
            (value, "hooks")
        }
        Format::Toml => {
            let text = std::str::from_utf8(bytes).map_err(|e| reject("", format!("not UTF-8 text ({e})")))?;
            let table: toml::Table = text
                .parse()
                .map_err(|e: toml::de::Error| reject("", format!("not valid TOML ({})", e.message().trim())))?;
            let value = Value::Object(table.into_iter().map(|(k, v)| (k, from_toml(v))).collect());
            // Codex's switch for its own hooks. Read as `disableAllHooks` it would switch off
            // every dialect's hooks, the user's openHarness guards included; the host turns
            // Codex hooks on and off with the `codex` option instead.
            if let Some(features) = value.get("features").and_then(Value::as_object) {
                for key in ["hooks", "codex_hooks"] {
                    if features.get(key) == Some(&Value::Bool(false)) {
                        parsed.warnings.push(format!(
                            "{name}: `features.{key} = false` is Codex's own switch and is not applied: the host runs Codex hooks while its `codex` option is on"
                        ));
                    }
                }
            }
            (value, "hooks")
        }
    };
    let Value::Object(top) = top else {
        return Err(reject("", format!("the top level is {}, expected an object", kind(&top))));
    };
    let events = match top.get(hooks_at) {
        None => return Ok(parsed),
        Some(Value::Object(events)) => events,
        Some(other) => return Err(reject(hooks_at, format!("is {}, expected an object of event names", kind(other)))),
    };
    for key in events.keys() {
        if event_of(key).is_some() || (file_format == Format::Toml && key == "state") {
            continue;
        }
        let why = if LATER_EVENTS.contains(&key.as_str()) {
            "an event of a Codex release later than the one oh-hooks follows; its hooks do not run".to_string()
        } else {
            let hint = EVENTS
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(key))
                .map(|(n, _)| format!(" (Codex spells it `{n}`)"))
                .unwrap_or_default();
            format!("not a Codex event{hint}; Codex ignores it")
        };
        parsed.warnings.push(format!("{name}: `hooks.{key}`: {why}"));
    }
    // Every hook is built first and kept only when the whole file loads.
    let mut hooks = Vec::new();
    let mut warnings = Vec::new();
    for (event_name, event) in EVENTS {
        let Some(groups) = events.get(*event_name) else { continue };
        let at = format!("hooks.{event_name}");
        let Value::Array(groups) = groups else {
            return Err(reject(&at, format!("is {}, expected a list of matcher groups", kind(groups))));
        };
        let label = snake(event_name);
        for (g, group) in groups.iter().enumerate() {
            let at = format!("{at}[{g}]");
            let Value::Object(group) = group else {
                return Err(reject(&at, format!("is {}, expected a matcher group object", kind(group))));
            };
            let matcher_text = match group.get("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => {
                    return Err(reject(&format!("{at}.matcher"), format!("is {}, expected a string", kind(other))))
                }
            };
            let handlers: &[Value] = match group.get("hooks") {
                None => &[],
                Some(Value::Array(h)) => h,
                Some(other) => {
                    return Err(reject(
                        &format!("{at}.hooks"),
                        format!("is {}, expected a list of handlers", kind(other)),
                    ))
                }
            };
            let mut built = Vec::new();
            for (h, handler) in handlers.iter().enumerate() {
                let at = format!("{at}.hooks[{h}]");
                match handler_of(handler).map_err(|(key, why)| reject(&join(&at, key), why))? {
                    Entry::Command { command, timeout, is_async, status_message } => {
                        if command.trim().is_empty() {
                            warnings.push(format!("{name}: skipped `{at}`: `command` is empty (Codex skips it)"));
                            continue;
                        }
                        let command = match &file.plugin {
                            Some(p) => substitute(&command, p),
                            None => command,
                        };
                        built.push(CodexHook {
                            command,
                            matcher: CodexMatcher::Any,
                            field_matcher: FieldMatcher::Any,
                            matcher_text: None,
                            timeout,
                            is_async,
                            status_message,
                            event_name,
                            source: file.path.clone(),
                            plugin: file.plugin.clone(),
                            key: format!("{}:{label}:{g}:{h}", file.path.display()),
                        });
                    }
                    Entry::Unsupported(type_name) => warnings.push(format!(
                        "{name}: skipped `{at}`: `{type_name}` hooks are not supported by Codex yet (Codex skips them too)"
                    )),
                }
            }
            // UserPromptSubmit and Stop take no matcher: Codex replaces it by "none" before
            // validating, so any string (even `[`) matches everything there.
            let (matcher, matcher_text) = match (matcher_field(*event), matcher_text) {
                (None, Some(text)) => {
                    // `""` and `"*"` mean "every fire" anyway: only a real filter is worth a word.
                    if !text.is_empty() && text != "*" {
                        warnings.push(format!(
                            "{name}: `{at}.matcher` `{text}` is ignored: Codex runs {event_name} hooks for every fire"
                        ));
                    }
                    ((CodexMatcher::Any, FieldMatcher::Any), None)
                }
                (_, None) => ((CodexMatcher::Any, FieldMatcher::Any), None),
                (Some(_), Some(text)) => {
                    let compiled = match regexes.get(&text) {
                        Some(m) => Ok(m.clone()),
                        None => CodexMatcher::parse(&text).and_then(|m| {
                            let engine = m.to_engine(&text)?;
                            if matches!(m, CodexMatcher::Regex(_)) {
                                if regexes.len() >= MAX_REGEX_MATCHERS {
                                    return Err(format!(
                                        "more than {MAX_REGEX_MATCHERS} distinct regex matchers in the Codex files; this one is not compiled"
                                    ));
                                }
                                regexes.insert(text.clone(), (m.clone(), engine.clone()));
                            }
                            Ok((m, engine))
                        }),
                    };
                    match compiled {
                        Ok(m) => (m, Some(text)),
                        Err(why) => {
                            warnings.push(format!("{name}: skipped `{at}` and its {} hooks: {why}", built.len()));
                            continue;
                        }
                    }
                }
            };
            for mut hook in built {
                hook.matcher = matcher.0.clone();
                hook.field_matcher = matcher.1.clone();
                hook.matcher_text = matcher_text.clone();
                hooks.push((*event, hook));
            }
        }
    }
    parsed.hooks = hooks;
    parsed.warnings.extend(warnings);
    Ok(parsed)
}

enum Entry {
    Command {
        command: String,
        timeout: Duration,
        is_async: bool,
        status_message: Option<String>,
    },
    /// `prompt` or `agent`: parsed, not run.
    Unsupported(&'static str),
}

/// A handler as Codex's tagged enum reads it; the error names the key (`""`: the handler).
fn handler_of(value: &Value) -> Result<Entry, (&'static str, String)> {
    let Value::Object(h) = value else {
        return Err((
            "",
            format!("is {}, expected a handler object {{\"type\": \"command\", \"command\": ...}}", kind(value)),
        ));
    };
    let type_name = match h.get("type") {
        None => {
            return Err((
                "type",
                "is missing; expected \"command\" (Codex also parses \"prompt\" and \"agent\")".to_string(),
            ))
        }
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Err(("type", format!("is {}, expected \"command\"", kind(other)))),
    };
    match type_name {
        "command" => {}
        "prompt" => return Ok(Entry::Unsupported("prompt")),
        "agent" => return Ok(Entry::Unsupported("agent")),
        other => {
            return Err((
                "type",
                format!("is `{other}`, which Codex does not know; expected \"command\", \"prompt\" or \"agent\""),
            ))
        }
    }
    let command = match h.get("command") {
        None => return Err(("command", "is missing".to_string())),
        Some(Value::String(s)) if s.contains('\0') => return Err(("command", "contains a NUL byte".to_string())),
        Some(Value::String(s)) => s.clone(),
        Some(other) => return Err(("command", format!("is {}, expected a string", kind(other)))),
    };
    let optional_string = |key: &'static str| match h.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err((key, format!("is {}, expected a string", kind(other)))),
    };
    optional_string("commandWindows")?;
    optional_string("command_windows")?;
    let status_message = optional_string("statusMessage")?;
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => super::DEFAULT_TIMEOUT,
        Some(Value::Number(n)) => match n.as_u64() {
            // Codex: `max(1)`, so 0 means one second.
            Some(secs) => Duration::from_secs(secs.max(1)).min(MAX_TIMEOUT),
            None => return Err(("timeout", format!("is {n}, expected a whole number of seconds (0 or more)"))),
        },
        Some(other) => return Err(("timeout", format!("is {}, expected a whole number of seconds", kind(other)))),
    };
    let is_async = match h.get("async") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(("async", format!("is {}, expected true or false", kind(other)))),
    };
    Ok(Entry::Command { command, timeout, is_async, status_message })
}

fn join(at: &str, key: &str) -> String {
    if key.is_empty() {
        at.to_string()
    } else {
        format!("{at}.{key}")
    }
}

/// Codex's snake_case event label of its hook keys (`PreToolUse` → `pre_tool_use`).
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// TOML values as the JSON values the one walker reads. A float stays a float (so a `timeout`
/// of `5.0` is refused, as Codex's `u64` refuses it); a date is text.
fn from_toml(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => {
            serde_json::Number::from_f64(f).map_or_else(|| Value::String(f.to_string()), Value::Number)
        }
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(from_toml).collect()),
        toml::Value::Table(t) => Value::Object(t.into_iter().map(|(k, v)| (k, from_toml(v))).collect::<Map<_, _>>()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::LayerKind;
    use std::path::Path;

    fn file(path: &str) -> File {
        File { path: PathBuf::from(path), kind: LayerKind::Own, plugin: None, change_source: None, dir: None }
    }

    fn parse(file: &File, bytes: &[u8]) -> Result<Parsed, Rejected> {
        super::parse(file, bytes, &mut HashMap::new())
    }

    fn json(text: &str) -> Result<Parsed, Rejected> {
        parse(&file("/h/.codex/hooks.json"), text.as_bytes())
    }

    fn commands(p: &Parsed) -> Vec<(&str, &str)> {
        p.hooks.iter().map(|(e, h)| (e.name(), h.command.as_str())).collect()
    }

    #[test]
    fn reads_the_reference_example() {
        let p = json(
            r#"{"description": "ignored", "hooks": {"PreToolUse": [{"matcher": "Bash|apply_patch", "hooks": [
                {"type": "command", "command": "python3 .codex/hooks/check.py", "commandWindows": "py -3 x",
                 "timeout": 30, "async": false, "statusMessage": "Checking command", "__failproofai_hook__": true}]}],
               "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]}}"#,
        )
        .unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(commands(&p), [("preToolUse", "python3 .codex/hooks/check.py"), ("turnStop", "./stop.sh")]);
        let h = &p.hooks[0].1;
        assert_eq!(h.timeout, Duration::from_secs(30));
        assert!(h.matcher.matches(&["apply_patch"]) && !h.matcher.matches(&["Read"]));
        assert_eq!(h.key, "/h/.codex/hooks.json:pre_tool_use:0:0");
        assert_eq!(p.hooks[1].1.timeout, Duration::from_secs(600), "Codex's default");
        assert_eq!(p.hooks[1].1.event_name, "Stop");
    }

    #[test]
    fn a_handler_codex_cannot_load_rejects_the_whole_file() {
        let good = r#"{"type": "command", "command": "guard.sh"}"#;
        for (bad, at, why) in [
            (r#"{"type": "http", "url": "http://x"}"#, "hooks.PreToolUse[0].hooks[1].type", "is `http`"),
            (r#"{"command": "x"}"#, "hooks.PreToolUse[0].hooks[1].type", "is missing"),
            (r#"{"type": 5, "command": "x"}"#, "hooks.PreToolUse[0].hooks[1].type", "is a number"),
            (
                r#"{"type": "command", "command": "x", "timeout": 5.0}"#,
                "hooks.PreToolUse[0].hooks[1].timeout",
                "is 5.0",
            ),
            (r#"{"type": "command", "command": "x", "timeout": -1}"#, "hooks.PreToolUse[0].hooks[1].timeout", "is -1"),
            (
                r#"{"type": "command", "command": "x", "timeout": "5"}"#,
                "hooks.PreToolUse[0].hooks[1].timeout",
                "is a string",
            ),
            (r#"{"type": "command"}"#, "hooks.PreToolUse[0].hooks[1].command", "is missing"),
            (r#"{"type": "command", "command": ["x"]}"#, "hooks.PreToolUse[0].hooks[1].command", "is a list"),
            (r#"{"type": "command", "command": "x", "async": null}"#, "hooks.PreToolUse[0].hooks[1].async", "is null"),
            (r#""echo hi""#, "hooks.PreToolUse[0].hooks[1]", "is a string"),
        ] {
            let text = format!(r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Bash", "hooks": [{good}, {bad}]}}]}}}}"#);
            let Rejected(msg) = json(&text).unwrap_err();
            assert!(msg.starts_with("/h/.codex/hooks.json: none of its Codex hooks are loaded"), "{msg}");
            assert!(msg.contains(&format!("`{at}`: {why}")), "{bad}: {msg}");
        }
        for (text, at) in [
            (r#"{"hooks": null}"#, "`hooks`"),
            (r#"{"hooks": []}"#, "`hooks`"),
            (r#"{"hooks": {"PreToolUse": null}}"#, "`hooks.PreToolUse`"),
            (r#"{"hooks": {"Stop": {"hooks": []}}}"#, "`hooks.Stop`"),
            (r#"{"hooks": {"Stop": [{"hooks": null}]}}"#, "`hooks.Stop[0].hooks`"),
            (r#"{"hooks": {"Stop": [{"matcher": 1, "hooks": []}]}}"#, "`hooks.Stop[0].matcher`"),
            (r#"{"hooks": {"Stop": ["x"]}}"#, "`hooks.Stop[0]`"),
            ("[1]", "the top level is a list"),
            ("{not json", "not valid JSON"),
        ] {
            let Rejected(msg) = json(text).unwrap_err();
            assert!(msg.contains(at), "{text}: {msg}");
        }
    }

    #[test]
    fn prompt_agent_blank_and_bad_matchers_are_skipped_one_by_one() {
        let p = json(
            r#"{"hooks": {
                "PreToolUse": [
                  {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "ok?"}, {"type": "command", "command": "a"},
                                                 {"type": "agent", "prompt": "x"}, {"type": "command", "command": "  "}]},
                  {"matcher": "(", "hooks": [{"type": "command", "command": "never"}]},
                  {"matcher": "(?=x)", "hooks": [{"type": "command", "command": "never2"}]},
                  {"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}]}
                ],
                "UserPromptSubmit": [{"matcher": "[", "hooks": [{"type": "command", "command": "u"}]}],
                "SessionEnd": [{"hooks": [{"type": "command", "command": "later"}]}],
                "pretooluse": [],
                "Nonsense": 5
            }}"#,
        )
        .unwrap();
        assert_eq!(
            commands(&p),
            [("preToolUse", "a"), ("preToolUse", "a"), ("userPromptSubmit", "u")],
            "identical handlers both kept: Codex runs each as configured"
        );
        assert!(p.hooks[2].1.matcher.matches(&[]), "a matcher on UserPromptSubmit is ignored, even `[`");
        let quiet =
            json(r#"{"hooks": {"Stop": [{"matcher": "*", "hooks": [{"type": "command", "command": "s"}]}]}}"#).unwrap();
        assert!(quiet.warnings.is_empty(), "{:?}", quiet.warnings);
        let all = p.warnings.join("\n");
        for needle in [
            "skipped `hooks.PreToolUse[0].hooks[0]`: `prompt` hooks are not supported",
            "skipped `hooks.PreToolUse[0].hooks[2]`: `agent` hooks",
            "skipped `hooks.PreToolUse[0].hooks[3]`: `command` is empty",
            "skipped `hooks.PreToolUse[1]` and its 1 hooks: matcher `(` is not a valid Rust regex",
            "skipped `hooks.PreToolUse[2]` and its 1 hooks: matcher `(?=x)`",
            "`hooks.UserPromptSubmit[0].matcher` `[` is ignored",
            "`hooks.SessionEnd`: an event of a Codex release later",
            "`hooks.pretooluse`: not a Codex event (Codex spells it `PreToolUse`)",
            "`hooks.Nonsense`: not a Codex event",
        ] {
            assert!(all.contains(needle), "missing {needle:?} in:\n{all}");
        }
    }

    #[test]
    fn timeouts_zero_is_one_second_and_huge_is_capped() {
        let p = json(
            r#"{"hooks": {"Stop": [{"hooks": [{"type":"command","command":"a","timeout":0},
            {"type":"command","command":"b","timeout":18446744073709551615}]}]}}"#,
        )
        .unwrap();
        assert_eq!(p.hooks[0].1.timeout, Duration::from_secs(1));
        assert_eq!(p.hooks[1].1.timeout, MAX_TIMEOUT);
    }

    #[test]
    fn config_toml_hooks_tables_and_the_feature_switch() {
        let text = r#"
model = "gpt-5"
[features]
hooks = false

[[hooks.PreToolUse]]
matcher = "^Bash$"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "guard.sh"
timeout = 5

[hooks.state."/h/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "abc"
"#;
        let p = parse(&file("/h/.codex/config.toml"), text.as_bytes()).unwrap();
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("`features.hooks = false` is Codex's own switch and is not applied"));
        assert_eq!(commands(&p), [("preToolUse", "guard.sh")]);
        assert_eq!(p.hooks[0].1.timeout, Duration::from_secs(5));
        let bad =
            "[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"x\"\ntimeout = 5.0\n";
        let Rejected(msg) = parse(&file("/c.toml"), bad.as_bytes()).unwrap_err();
        assert!(msg.contains("`hooks.PreToolUse[0].hooks[0].timeout`: is 5.0"), "{msg}");
        let Rejected(msg) = parse(&file("/c.toml"), b"[hooks\n").unwrap_err();
        assert!(msg.contains("not valid TOML"), "{msg}");
        let p = parse(&file("/c.toml"), b"model = 'x'\n").unwrap();
        assert!(p.hooks.is_empty() && p.warnings.is_empty());
    }

    #[test]
    fn plugin_placeholders_are_replaced_at_load() {
        let f = File {
            path: PathBuf::from("/p/hooks/hooks.json"),
            kind: LayerKind::Own,
            plugin: Some(Plugin { root: Path::new("/p").into(), data: Some(Path::new("/d").into()) }),
            change_source: None,
            dir: None,
        };
        let p = parse(&f, br#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"${PLUGIN_ROOT}/s.sh ${CLAUDE_PLUGIN_DATA}"}]}]}}"#)
            .unwrap();
        assert_eq!(p.hooks[0].1.command, "/p/s.sh /d");
        assert!(p.hooks[0].1.plugin.is_some());
    }

    #[test]
    fn regex_matchers_are_bounded_per_file() {
        let groups: Vec<Value> = (0..MAX_REGEX_MATCHERS + 3)
            .map(
                |i| serde_json::json!({"matcher": format!("^t{i}.*$"), "hooks": [{"type": "command", "command": "x"}]}),
            )
            .collect();
        let p = json(&serde_json::json!({"hooks": {"PreToolUse": groups}}).to_string()).unwrap();
        assert_eq!(p.hooks.len(), MAX_REGEX_MATCHERS);
        assert_eq!(p.warnings.len(), 3);
    }
}
