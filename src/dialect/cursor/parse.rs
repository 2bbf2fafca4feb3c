//! Cursor's hooks files (README "Cursor hooks", files): `<home>/.cursor/hooks.json` (own),
//! `<cwd>/.cursor/hooks.json` (project, trust-gated), the files a host names (own), and each
//! plugin's hooks, named by its `.cursor-plugin/plugin.json` `hooks` key (a path, or the hooks
//! object inline; `hooks/hooks.json` when the manifest names none).
//!
//! The flat shape: `{"version": 1, "hooks": {"<event>": [{"command", "type", "timeout",
//! "matcher", "failClosed", "loop_limit"}, …]}}`. Cursor ignores keys it does not dispatch and
//! loads the rest; oh-hooks does the same and says so: every entry that cannot run is skipped
//! with a warning naming the file, the path inside it and why, and the rest loads. A file that
//! is not a JSON object is skipped whole, with that warning. Cursor has no `disableAllHooks`.

use super::events::{self, CursorEvent};
use super::matcher::CursorMatcher;
use crate::event::Event;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Cursor's own default when a hook gives no `timeout` (a Cursor log: "Running hook 1 with
/// timeout 60000ms").
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// No hook waits longer than this, whatever the file says (as for every dialect).
pub const MAX_TIMEOUT_SECS: f64 = 24.0 * 60.0 * 60.0;
/// Follow-ups a `stop`/`subagentStop` hook may trigger per conversation without `loop_limit`.
pub const DEFAULT_LOOP_LIMIT: u64 = 5;
/// Regex matchers one file may compile (each distinct text once).
pub const MAX_REGEX_MATCHERS: usize = 1000;

/// Where a hooks file sits, which decides the working directory of its hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// `<home>/.cursor/hooks.json`: hooks run in `<home>/.cursor`.
    User,
    /// A file the host names (`files`, e.g. an enterprise file): hooks run in its directory.
    Given,
    /// `<cwd>/.cursor/hooks.json`: hooks run in the project root.
    Project,
    /// A plugin's hooks: run in the project root with `CURSOR_PLUGIN_ROOT` = `root`.
    Plugin { root: PathBuf },
}

/// What a Cursor hook runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Handler {
    /// `sh -c command`.
    Command(String),
    /// `type: "prompt"`: answered by the host's `prompt` callback with these fields.
    Prompt(Map<String, Value>),
}

/// One hook entry of a Cursor file.
#[derive(Debug, Clone)]
pub struct CursorHook {
    /// The Cursor event it is written under (a tool-specific one fires with the generic engine
    /// event: [`CursorEvent::engine`]).
    pub event: &'static CursorEvent,
    pub handler: Handler,
    /// As configured (seconds in the file); `None` takes [`DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
    pub matcher: CursorMatcher,
    pub matcher_text: Option<String>,
    /// A failure (crash, timeout, output that is not a JSON object, no output) refuses instead of
    /// letting the action through, where the event can refuse.
    pub fail_closed: bool,
    /// Follow-ups this entry may trigger per conversation; `None`: no cap (`"loop_limit": null`).
    pub loop_limit: Option<u64>,
    pub source: PathBuf,
    /// The directory the hook runs in.
    pub cwd: PathBuf,
    /// A plugin hook's plugin root (`CURSOR_PLUGIN_ROOT`).
    pub plugin_root: Option<PathBuf>,
    pub from_project: bool,
}

impl CursorHook {
    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT)
    }

    pub fn type_name(&self) -> &'static str {
        match self.handler {
            Handler::Command(_) => "command",
            Handler::Prompt(_) => "prompt",
        }
    }

    /// Identity for the trace and `check`: the event, the handler and the file.
    pub fn describe(&self) -> String {
        let mut s = match &self.handler {
            Handler::Command(c) => format!("command: {c}"),
            Handler::Prompt(_) => "prompt: (host callback `prompt`)".to_string(),
        };
        if self.event.is_tool_specific() {
            s.push_str(&format!("  [{}]", self.event.name));
        }
        if let Some(m) = &self.matcher_text {
            s.push_str(&format!("  [matcher {m}]"));
        }
        if let Some(t) = self.timeout {
            s.push_str(&format!("  [timeout {} s]", t.as_secs_f64()));
        }
        if self.fail_closed {
            s.push_str("  [failClosed]");
        }
        if self.event.continues {
            match self.loop_limit {
                Some(n) => s.push_str(&format!("  [loop_limit {n}]")),
                None => s.push_str("  [loop_limit null]"),
            }
        }
        s.push_str(&format!("  (cursor: {})", self.source.display()));
        s
    }
}

/// One file's contribution: hooks keyed by their engine event, in file order.
#[derive(Debug, Default)]
pub struct Parsed {
    pub hooks: Vec<(Event, CursorHook)>,
    pub warnings: Vec<String>,
}

/// The entry of one Cursor hooks file for the loader.
#[derive(Debug, Clone)]
pub struct File {
    pub path: PathBuf,
    pub role: Role,
    /// The hooks are the manifest's inline `hooks` object (`path` is the manifest).
    pub inline: bool,
}

impl File {
    pub fn is_project(&self) -> bool {
        self.role == Role::Project
    }
}

/// The files the options name, in configuration order: the user's, the host's, the plugins',
/// then the project's (a project rewrite, which Cursor ranks higher, comes last).
/// `manifest` reads a plugin's `.cursor-plugin/plugin.json` (`None`: absent or unreadable).
pub fn files(
    home: Option<&Path>,
    cwd: &Path,
    defaults: bool,
    given: &[PathBuf],
    plugins: &[PathBuf],
    manifest: &dyn Fn(&Path) -> Option<Vec<u8>>,
    warnings: &mut Vec<String>,
) -> Vec<File> {
    let mut files = Vec::new();
    if defaults {
        if let Some(home) = home {
            files.push(File { path: home.join(".cursor/hooks.json"), role: Role::User, inline: false });
        }
    }
    for path in given {
        files.push(File { path: path.clone(), role: Role::Given, inline: false });
    }
    for root in plugins {
        let at = root.join(".cursor-plugin/plugin.json");
        let (path, inline) = match manifest(&at).map(|bytes| plugin_hooks(&at, &bytes)) {
            None => (root.join("hooks/hooks.json"), false),
            Some(Ok(PluginHooks::Default)) => (root.join("hooks/hooks.json"), false),
            Some(Ok(PluginHooks::Path(p))) => (root.join(p), false),
            Some(Ok(PluginHooks::Inline)) => (at, true),
            Some(Err(why)) => {
                warnings.push(why);
                continue;
            }
        };
        files.push(File { path, role: Role::Plugin { root: root.clone() }, inline });
    }
    if defaults {
        files.push(File { path: cwd.join(".cursor/hooks.json"), role: Role::Project, inline: false });
    }
    files
}

/// What a plugin manifest says about its hooks.
#[derive(Debug, PartialEq)]
pub enum PluginHooks {
    Default,
    Path(String),
    Inline,
}

pub fn plugin_hooks(at: &Path, bytes: &[u8]) -> Result<PluginHooks, String> {
    let file = at.display();
    let top: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("{file}: not valid JSON ({e}); the plugin's hooks are not loaded"))?;
    let Value::Object(top) = top else {
        return Err(format!("{file}: the top level is not a JSON object; the plugin's hooks are not loaded"));
    };
    match top.get("hooks") {
        None | Some(Value::Null) => Ok(PluginHooks::Default),
        Some(Value::String(p)) if p.contains('\0') || p.trim().is_empty() => {
            Err(format!("{file}: `hooks` is an empty path or holds a NUL byte; the plugin's hooks are not loaded"))
        }
        Some(Value::String(p)) => Ok(PluginHooks::Path(p.clone())),
        Some(Value::Object(_)) => Ok(PluginHooks::Inline),
        Some(other) => Err(format!(
            "{file}: `hooks` is {}, expected a path to a hooks file or a hooks object; the plugin's hooks are not loaded",
            kind(other)
        )),
    }
}

/// Parses one file (or a manifest's inline hooks). Pure: `project_dir` is where project and
/// plugin hooks run.
pub fn parse(file: &File, bytes: &[u8], project_dir: &Path) -> Parsed {
    let name = file.path.display().to_string();
    let mut parsed = Parsed::default();
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            parsed.warnings.push(format!("{name}: not valid JSON ({e}); none of its hooks are loaded"));
            return parsed;
        }
    };
    let Value::Object(mut top) = value else {
        parsed.warnings.push(format!("{name}: the top level is not a JSON object; none of its hooks are loaded"));
        return parsed;
    };
    let prefix = if file.inline {
        // The manifest's `hooks` object is itself a hooks file.
        match top.remove("hooks") {
            Some(Value::Object(inner)) => top = inner,
            _ => return parsed,
        }
        "hooks."
    } else {
        ""
    };
    match top.get("version") {
        Some(Value::Number(n)) if n.as_f64() == Some(1.0) => {}
        // Plugin hooks may omit it; Cursor's linters require it elsewhere, and Cursor loads it.
        None if matches!(file.role, Role::Plugin { .. }) => {}
        None => parsed.warnings.push(format!("{name}: no `{prefix}version` (Cursor's files say \"version\": 1); loaded as version 1")),
        Some(other) => parsed.warnings.push(format!(
            "{name}: `{prefix}version` is {}, expected 1; loaded as version 1",
            other
        )),
    }
    let hooks = match top.get("hooks") {
        None | Some(Value::Null) => return parsed,
        Some(Value::Object(h)) => h,
        Some(other) => {
            parsed.warnings.push(format!(
                "{name}: `{prefix}hooks` is {}, expected an object of Cursor event names such as \"beforeShellExecution\"; no hooks loaded",
                kind(other)
            ));
            return parsed;
        }
    };
    let (cwd, plugin_root) = match &file.role {
        Role::User => (file.path.parent().unwrap_or(Path::new("/")).to_path_buf(), None),
        Role::Given => (file.path.parent().unwrap_or(Path::new("/")).to_path_buf(), None),
        Role::Project => (project_dir.to_path_buf(), None),
        Role::Plugin { root } => (project_dir.to_path_buf(), Some(root.clone())),
    };
    let mut matchers: HashMap<String, CursorMatcher> = HashMap::new();
    for (event_name, entries) in hooks {
        let at = format!("{prefix}hooks.{event_name}");
        let Some(event) = CursorEvent::by_name(event_name) else {
            let hint = events::suggest(event_name).map(|n| format!(" (Cursor spells it `{n}`)")).unwrap_or_default();
            parsed.warnings.push(format!("{name}: skipped `{at}`: not a Cursor event, Cursor never runs it{hint}"));
            continue;
        };
        let Value::Array(entries) = entries else {
            parsed.warnings.push(format!("{name}: skipped `{at}`: expected a list of hooks, found {}", kind(entries)));
            continue;
        };
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("{at}[{i}]");
            match entry_of(entry, event, &mut matchers) {
                Ok(mut hook) => {
                    hook.source = file.path.clone();
                    hook.cwd = cwd.clone();
                    hook.plugin_root = plugin_root.clone();
                    hook.from_project = file.is_project();
                    parsed.hooks.push((event.engine, hook));
                }
                Err(why) => parsed.warnings.push(format!("{name}: skipped `{at}`: {why}")),
            }
        }
    }
    parsed
}

fn entry_of(
    value: &Value,
    event: &'static CursorEvent,
    matchers: &mut HashMap<String, CursorMatcher>,
) -> Result<CursorHook, String> {
    let Value::Object(h) = value else {
        return Err(format!("expected a hook object such as {{\"command\": \"...\"}}, found {}", kind(value)));
    };
    let string = |key: &str| -> Result<Option<String>, String> {
        match h.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.contains('\0') => Err(format!("`{key}` contains a NUL byte")),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!("`{key}` is {}, expected a string", kind(other))),
        }
    };
    let handler = match string("type")?.as_deref() {
        None | Some("command") => {
            let command = string("command")?
                .filter(|c| !c.trim().is_empty())
                .ok_or("`command` is missing or empty; expected the shell command to run")?;
            Handler::Command(command)
        }
        Some("prompt") => {
            string("prompt")?.filter(|p| !p.trim().is_empty()).ok_or("a prompt hook needs a non-empty `prompt`")?;
            let mut fields = Map::new();
            for key in ["prompt", "model"] {
                if let Some(v) = h.get(key).filter(|v| !v.is_null()) {
                    fields.insert(key.to_string(), v.clone());
                }
            }
            Handler::Prompt(fields)
        }
        Some(other) => return Err(format!("`type` is \"{other}\", expected \"command\" or \"prompt\"")),
    };
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => {
            let secs = n.as_f64().unwrap_or(f64::INFINITY);
            if !(secs > 0.0) {
                return Err(format!("`timeout` is {n}, expected a number of seconds above 0"));
            }
            Some(Duration::from_secs_f64(secs.min(MAX_TIMEOUT_SECS)))
        }
        Some(other) => return Err(format!("`timeout` is {}, expected a number of seconds", kind(other))),
    };
    let fail_closed = match h.get("failClosed") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`failClosed` is {}, expected true or false", kind(other))),
    };
    let loop_limit = match h.get("loop_limit") {
        None => Some(DEFAULT_LOOP_LIMIT),
        Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(other) => {
            return Err(format!("`loop_limit` is {other}, expected a whole number of follow-ups or null (no cap)"))
        }
    };
    let matcher_text = string("matcher")?;
    let matcher = match &matcher_text {
        None => CursorMatcher::Any,
        Some(text) => match matchers.get(text) {
            Some(m) => m.clone(),
            None => {
                let m = CursorMatcher::parse(text)?;
                if m.is_regex() && matchers.values().filter(|m| m.is_regex()).count() >= MAX_REGEX_MATCHERS {
                    return Err(format!(
                        "more than {MAX_REGEX_MATCHERS} distinct regex matchers in one file; this one is not compiled"
                    ));
                }
                matchers.insert(text.clone(), m.clone());
                m
            }
        },
    };
    Ok(CursorHook {
        event,
        handler,
        timeout,
        matcher,
        matcher_text,
        fail_closed,
        loop_limit,
        source: PathBuf::new(),
        cwd: PathBuf::new(),
        plugin_root: None,
        from_project: false,
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(role: Role, text: &str) -> Parsed {
        let file = File { path: PathBuf::from("/p/.cursor/hooks.json"), role, inline: false };
        parse(&file, text.as_bytes(), Path::new("/p"))
    }

    #[test]
    fn the_flat_shape_with_every_field() {
        let p = parse_text(
            Role::Project,
            r#"{"version": 1, "$schema": "x", "hooks": {
                "beforeShellExecution": [{"command": "./guard.sh", "type": "command", "timeout": 10,
                                          "matcher": "curl|wget", "failClosed": true, "description": "d"}],
                "stop": [{"command": "s", "loop_limit": null}, {"command": "t"}, {"command": "u", "loop_limit": 2}],
                "preToolUse": [{"type": "prompt", "prompt": "is $ARGUMENTS safe?", "model": "fast"}]
            }}"#,
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.hooks.len(), 5);
        let (e, h) = &p.hooks[0];
        assert_eq!(*e, Event::PreToolUse, "a tool-specific event fires with the generic one");
        assert_eq!(h.event.name, "beforeShellExecution");
        assert_eq!(h.handler, Handler::Command("./guard.sh".into()));
        assert_eq!(h.timeout, Some(Duration::from_secs(10)));
        assert!(h.fail_closed && h.from_project);
        assert!(h.matcher.matches(Some("curl x")) && !h.matcher.matches(Some("ls")));
        assert_eq!(h.cwd, Path::new("/p"));
        assert_eq!(p.hooks[1].0, Event::TurnStop);
        assert_eq!(p.hooks[1].1.loop_limit, None);
        assert_eq!(p.hooks[2].1.loop_limit, Some(5));
        assert_eq!(p.hooks[3].1.loop_limit, Some(2));
        assert_eq!(p.hooks[4].1.type_name(), "prompt");
        assert_eq!(p.hooks[4].1.timeout(), DEFAULT_TIMEOUT);
    }

    #[test]
    fn bad_entries_are_skipped_with_file_path_and_reason() {
        let p = parse_text(
            Role::User,
            r#"{"version": 1, "hooks": {
                "beforeShellExecution": [
                    "echo", {}, {"command": ""}, {"command": 3}, {"command": "a", "timeout": "10"},
                    {"command": "a", "timeout": 0}, {"command": "a", "type": "http"},
                    {"command": "a", "matcher": "("}, {"command": "a", "failClosed": "yes"},
                    {"command": "a", "loop_limit": -1}, {"command": "ok"}, {"type": "prompt"},
                    {"command": "a\u0000b"}
                ],
                "userPromptSubmit": [{"command": "x"}],
                "PreToolUse": [{"command": "x"}],
                "stop": {"command": "x"}
            }}"#,
        );
        assert_eq!(p.hooks.len(), 1, "only the good entry: {:?}", p.warnings);
        assert_eq!(p.hooks[0].1.cwd, Path::new("/p/.cursor"), "user hooks run in ~/.cursor");
        let w = p.warnings.join("\n");
        for want in [
            "/p/.cursor/hooks.json: skipped `hooks.beforeShellExecution[0]`: expected a hook object",
            "`hooks.beforeShellExecution[1]`: `command` is missing or empty",
            "`hooks.beforeShellExecution[2]`: `command` is missing or empty",
            "`hooks.beforeShellExecution[3]`: `command` is a number, expected a string",
            "`hooks.beforeShellExecution[4]`: `timeout` is a string, expected a number of seconds",
            "`hooks.beforeShellExecution[5]`: `timeout` is 0, expected a number of seconds above 0",
            "`hooks.beforeShellExecution[6]`: `type` is \"http\", expected \"command\" or \"prompt\"",
            "`hooks.beforeShellExecution[7]`: matcher `(` is not a valid regular expression",
            "`hooks.beforeShellExecution[8]`: `failClosed` is a string, expected true or false",
            "`hooks.beforeShellExecution[9]`: `loop_limit` is -1, expected a whole number",
            "`hooks.beforeShellExecution[11]`: a prompt hook needs a non-empty `prompt`",
            "`hooks.beforeShellExecution[12]`: `command` contains a NUL byte",
            "skipped `hooks.userPromptSubmit`: not a Cursor event, Cursor never runs it (Cursor spells it `beforeSubmitPrompt`)",
            "skipped `hooks.PreToolUse`: not a Cursor event, Cursor never runs it (Cursor spells it `preToolUse`)",
            "skipped `hooks.stop`: expected a list of hooks, found an object",
        ] {
            assert!(w.contains(want), "missing {want:?} in\n{w}");
        }
    }

    #[test]
    fn whole_file_errors_and_version() {
        let p = parse_text(Role::Project, "{not json");
        assert!(p.hooks.is_empty() && p.warnings[0].contains("not valid JSON"));
        let p = parse_text(Role::Project, "[1]");
        assert!(p.warnings[0].contains("top level is not a JSON object"));
        let p = parse_text(Role::Project, r#"{"hooks": []}"#);
        assert!(p.warnings.iter().any(|w| w.contains("no `version`")));
        assert!(p.warnings.iter().any(|w| w.contains("`hooks` is a list, expected an object")));
        let p = parse_text(Role::Plugin { root: "/plug".into() }, r#"{"hooks": {"stop": [{"command": "x"}]}}"#);
        assert!(p.warnings.is_empty(), "plugin files may omit version: {:?}", p.warnings);
        assert_eq!(p.hooks[0].1.plugin_root.as_deref(), Some(Path::new("/plug")));
        assert_eq!(p.hooks[0].1.cwd, Path::new("/p"), "plugin hooks run in the project directory");
    }

    #[test]
    fn plugin_manifests_name_their_hooks() {
        let at = Path::new("/plug/.cursor-plugin/plugin.json");
        assert_eq!(plugin_hooks(at, br#"{"name": "x"}"#), Ok(PluginHooks::Default));
        assert_eq!(
            plugin_hooks(at, br#"{"hooks": "hooks/hooks-cursor.json"}"#),
            Ok(PluginHooks::Path("hooks/hooks-cursor.json".into()))
        );
        assert_eq!(plugin_hooks(at, br#"{"hooks": {"hooks": {}}}"#), Ok(PluginHooks::Inline));
        assert!(plugin_hooks(at, br#"{"hooks": 3}"#).unwrap_err().contains("expected a path to a hooks file"));
        let manifests = |p: &Path| match p.to_str().unwrap() {
            "/a/.cursor-plugin/plugin.json" => Some(br#"{"hooks": "h.json"}"#.to_vec()),
            "/b/.cursor-plugin/plugin.json" => Some(br#"{"hooks": {"version": 1, "hooks": {}}}"#.to_vec()),
            _ => None,
        };
        let mut w = Vec::new();
        let f = files(
            Some(Path::new("/home")),
            Path::new("/p"),
            true,
            &["/etc/cursor/hooks.json".into()],
            &["/a".into(), "/b".into(), "/c".into()],
            &manifests,
            &mut w,
        );
        let paths: Vec<_> = f.iter().map(|f| (f.path.to_str().unwrap(), f.inline)).collect();
        assert_eq!(
            paths,
            [
                ("/home/.cursor/hooks.json", false),
                ("/etc/cursor/hooks.json", false),
                ("/a/h.json", false),
                ("/b/.cursor-plugin/plugin.json", true),
                ("/c/hooks/hooks.json", false),
                ("/p/.cursor/hooks.json", false),
            ]
        );
        let inline = File { path: "/b/.cursor-plugin/plugin.json".into(), role: Role::Plugin { root: "/b".into() }, inline: true };
        let p = parse(&inline, br#"{"name":"b","hooks":{"hooks":{"stop":[{"command":"x"}, 5]}}}"#, Path::new("/p"));
        assert_eq!(p.hooks.len(), 1);
        assert!(p.warnings[0].contains("skipped `hooks.hooks.stop[1]`"), "{:?}", p.warnings);
    }
}
