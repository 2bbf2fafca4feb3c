//! Gemini CLI's hook files and how they parse (docs/dialects/gemini.md):
//! - the `hooks` and `hooksConfig` keys of `<home>/.gemini/settings.json` (own) and of
//!   `<cwd>/.gemini/settings.json` (project, behind the trust gate);
//! - each extension's `hooks/hooks.json` (a plugin, own), with `${extensionPath}`.
//!
//! The shape is Claude Code's (event → matcher groups → handlers) plus the group's `sequential`
//! and the handler's `name`, `timeout` in **milliseconds** (default 60000) and `env`. As
//! gemini-cli's registry does (`hookRegistry.ts`), a bad group or handler is dropped alone with
//! a warning naming file, path and reason, an unknown event is skipped with a warning, and the
//! rest loads; a file that is not JSON (comments allowed in settings files) loads nothing.

use super::{event_of, match_on, MatchOn, EVENTS};
// The seam's words for what a JSON value is (`kind` names a file's kind in this file).
use crate::dialect::kind as kind_of;
use crate::event::Event;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// gemini-cli's `DEFAULT_HOOK_TIMEOUT`.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;
/// No hook waits longer than this, whatever the file says (as for every dialect).
const MAX_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;
/// Distinct regex matchers one file may compile (a hostile file cannot cost unbounded memory).
pub const MAX_REGEX_MATCHERS: usize = 1000;
/// Compiled-size limit of one matcher regex.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Which file is being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileKind {
    /// `~/.gemini/settings.json` or a file the host names: always applies.
    Own,
    /// `<cwd>/.gemini/settings.json`: read only when `cwd` is trusted.
    Project,
    /// An extension's `hooks/hooks.json`; its directory is `${extensionPath}`.
    Extension(PathBuf),
}

/// A tool-event matcher: gemini-cli's `new RegExp(matcher).test(tool_name)`, or the text
/// compared exactly when it is not a valid regex.
#[derive(Debug, Clone)]
pub enum ToolMatcher {
    Regex(Arc<fancy_regex::Regex>),
    Literal(String),
}

impl ToolMatcher {
    pub fn compile(text: &str) -> ToolMatcher {
        match fancy_regex::RegexBuilder::new(text)
            .delegate_size_limit(REGEX_SIZE_LIMIT)
            .backtrack_limit(100_000)
            .build()
        {
            Ok(re) => ToolMatcher::Regex(Arc::new(re)),
            Err(_) => ToolMatcher::Literal(text.to_string()),
        }
    }

    pub fn matches(&self, tool: &str) -> bool {
        match self {
            // A regex that gives up (backtracking limit) matches: a guard is never skipped
            // because its matcher was hard to evaluate.
            ToolMatcher::Regex(re) => re.is_match(tool).unwrap_or(true),
            ToolMatcher::Literal(t) => t == tool,
        }
    }
}

/// One Gemini command hook with its group's matcher and `sequential`.
#[derive(Debug, Clone)]
pub struct GeminiHook {
    /// The event as written in the file (`BeforeTool`).
    pub event_name: &'static str,
    pub name: Option<String>,
    /// The command text, run by `bash -c` after [`super::view::expand_command`].
    pub command: String,
    pub timeout: Duration,
    /// The handler's `env` (over the Gemini variables).
    pub env: Vec<(String, String)>,
    /// The group's matcher, trimmed; `None` when absent, empty or `*` (all).
    pub matcher: Option<String>,
    /// Compiled for tool events.
    pub tool_matcher: Option<ToolMatcher>,
    pub sequential: bool,
    pub source: PathBuf,
    pub from_project: bool,
    pub extension: Option<PathBuf>,
}

impl GeminiHook {
    /// What `hooksConfig.disabled` names: `name`, else the command (`getHookName`).
    pub fn display_name(&self) -> &str {
        self.name.as_deref().filter(|n| !n.is_empty()).unwrap_or(&self.command)
    }

    /// "Identical hooks run once": gemini-cli's `getHookKey`, `name:command`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.name.as_deref().unwrap_or(""), self.command)
    }

    /// Whether this hook's matcher selects a fire whose match context is `value` (the Gemini
    /// tool name, or `source`/`reason`/`trigger`); events without a context match every hook.
    pub fn selects(&self, event: Event, value: Option<&str>) -> bool {
        let Some(m) = &self.matcher else { return true };
        match (match_on(event), value) {
            (MatchOn::Nothing, _) | (_, None) => true,
            (MatchOn::ToolName, Some(tool)) => self.tool_matcher.as_ref().map_or(true, |t| t.matches(tool)),
            (MatchOn::Exact(_), Some(v)) => m == v,
        }
    }

    /// One line for `oh-hooks check`.
    pub fn describe(&self) -> String {
        let mut s = format!("command: {}", self.command);
        if let Some(n) = &self.name {
            s.push_str(&format!("  [name {n}]"));
        }
        if let Some(m) = &self.matcher {
            s.push_str(&format!("  [matcher {m}]"));
        }
        if self.sequential {
            s.push_str("  [sequential]");
        }
        s.push_str(&format!("  [timeout {} ms]", self.timeout.as_millis()));
        s.push_str(&format!("  (gemini {}: {})", self.event_name, self.source.display()));
        s
    }
}

/// One file's contribution.
#[derive(Debug, Default)]
pub struct Parsed {
    /// `hooksConfig.enabled` (`false` switches this kind's gemini hooks off).
    pub enabled: Option<bool>,
    /// `hooksConfig.disabled`: hook names switched off.
    pub disabled: Vec<String>,
    pub hooks: Vec<(Event, GeminiHook)>,
    pub warnings: Vec<String>,
}

/// Parses one settings file or extension `hooks.json`. `env` looks up the harness's own
/// environment for the `$VAR` of settings files; `cwd`, when known, is `${workspacePath}`.
pub fn parse(
    path: &Path,
    bytes: &[u8],
    kind: &FileKind,
    cwd: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Parsed {
    let file = path.display().to_string();
    let mut parsed = Parsed::default();
    let text = String::from_utf8_lossy(bytes);
    let is_extension = matches!(kind, FileKind::Extension(_));
    // Settings files are JSON with comments (gemini-cli runs strip-json-comments first);
    // an extension's hooks.json is plain JSON.
    let text = if is_extension { text.into_owned() } else { strip_comments(&text) };
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            parsed.warnings.push(format!("{file}: not valid JSON ({e}); none of its Gemini hooks are loaded"));
            return parsed;
        }
    };
    let Value::Object(mut top) = value else {
        parsed
            .warnings
            .push(format!("{file}: the top level is not a JSON object; none of its Gemini hooks are loaded"));
        return parsed;
    };
    // Every string of a settings file has `$VAR`, `${VAR}` and `${VAR:-default}` replaced from
    // the harness's environment when it loads; an extension's only its own variables.
    match kind {
        FileKind::Extension(root) => {
            let vars = |k: &str| match k {
                "extensionPath" => Some(root.display().to_string()),
                "workspacePath" => cwd.map(|c| c.display().to_string()),
                "/" | "pathSeparator" => Some("/".to_string()),
                _ => None,
            };
            for v in top.values_mut() {
                walk_strings(v, &|s| hydrate(s, &vars));
            }
        }
        _ => {
            for v in top.values_mut() {
                walk_strings(v, &|s| resolve_env_vars(s, env));
            }
        }
    }
    if is_extension {
        if top.contains_key("hooksConfig") {
            parsed.warnings.push(format!(
                "{file}: `hooksConfig` in an extension's hooks file is ignored: only the user's own settings switch hooks off"
            ));
        }
    } else {
        read_hooks_config(&file, top.get("hooksConfig"), &mut parsed);
    }
    let hooks = match top.get("hooks") {
        None | Some(Value::Null) if !is_extension => return parsed,
        Some(Value::Object(h)) => h,
        other => {
            parsed.warnings.push(format!(
                "{file}: `hooks` is {}, expected an object of Gemini event names such as \"BeforeTool\"; no hooks loaded",
                other.map_or("missing", kind_of)
            ));
            return parsed;
        }
    };
    let mut regexes = 0usize;
    for (name, groups) in hooks {
        // `enabled`, `disabled` and `notifications` once lived here; they are not events.
        if matches!(name.as_str(), "enabled" | "disabled" | "notifications") {
            continue;
        }
        let Some(event) = event_of(name) else {
            let hint = crate::dialect::claude::events::event(name)
                .and_then(super::name_of)
                .map(|n| format!(" (Gemini CLI calls it `{n}`)"))
                .unwrap_or_default();
            let known: Vec<&str> = EVENTS.iter().map(|(n, _)| *n).collect();
            parsed.warnings.push(format!(
                "{file}: skipped `hooks.{name}`: not a Gemini CLI hook event{hint}; expected one of {}",
                known.join(", ")
            ));
            continue;
        };
        let event_name = super::name_of(event).expect("mapped");
        let Value::Array(groups) = groups else {
            parsed.warnings.push(format!(
                "{file}: skipped `hooks.{name}`: expected a list of matcher groups, found {}",
                kind_of(groups)
            ));
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let at = format!("hooks.{name}[{g}]");
            let Some(group) = group.as_object().filter(|o| o.get("hooks").is_some_and(Value::is_array)) else {
                parsed.warnings.push(format!(
                    "{file}: skipped `{at}`: expected a group {{\"matcher\": ..., \"hooks\": [...]}} with a `hooks` list"
                ));
                continue;
            };
            let matcher = match group.get("matcher") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.trim().to_string()).filter(|m| !m.is_empty() && m != "*"),
                Some(other) => {
                    parsed
                        .warnings
                        .push(format!("{file}: skipped `{at}`: `matcher` is {}, expected a string", kind_of(other)));
                    continue;
                }
            };
            let tool_matcher = match (&matcher, match_on(event)) {
                (Some(m), MatchOn::ToolName) => {
                    regexes += 1;
                    if regexes > MAX_REGEX_MATCHERS {
                        parsed.warnings.push(format!(
                            "{file}: skipped `{at}`: more than {MAX_REGEX_MATCHERS} tool matchers in one file"
                        ));
                        continue;
                    }
                    Some(ToolMatcher::compile(m))
                }
                _ => None,
            };
            let sequential = match group.get("sequential") {
                Some(Value::Bool(b)) => *b,
                None | Some(Value::Null) => false,
                // gemini-cli tests `=== true`: anything else is parallel.
                Some(other) => {
                    parsed.warnings.push(format!(
                        "{file}: `{at}.sequential` is {}, expected true or false; read as false",
                        kind_of(other)
                    ));
                    false
                }
            };
            let handlers = group["hooks"].as_array().expect("checked");
            for (h, handler) in handlers.iter().enumerate() {
                let at = format!("{at}.hooks[{h}]");
                match handler_of(handler) {
                    Ok(Handler { name, command, timeout, env, notes }) => {
                        for note in notes {
                            parsed.warnings.push(format!("{file}: `{at}`: {note}"));
                        }
                        parsed.hooks.push((
                            event,
                            GeminiHook {
                                event_name,
                                name,
                                command,
                                timeout,
                                env,
                                matcher: matcher.clone(),
                                tool_matcher: tool_matcher.clone(),
                                sequential,
                                source: path.to_path_buf(),
                                from_project: *kind == FileKind::Project,
                                extension: match kind {
                                    FileKind::Extension(root) => Some(root.clone()),
                                    _ => None,
                                },
                            },
                        ))
                    }
                    Err(why) => parsed.warnings.push(format!("{file}: skipped `{at}`: {why}")),
                }
            }
        }
    }
    parsed
}

struct Handler {
    name: Option<String>,
    command: String,
    timeout: Duration,
    env: Vec<(String, String)>,
    notes: Vec<String>,
}

fn handler_of(v: &Value) -> Result<Handler, String> {
    let Value::Object(h) = v else {
        return Err(format!(
            "expected a hook object {{\"type\": \"command\", \"command\": ...}}, found {}",
            kind_of(v)
        ));
    };
    // `validateHookConfig`: a type is required; `plugin` passes and runs as a command.
    match h.get("type") {
        Some(Value::String(t)) if t == "command" || t == "plugin" => {}
        Some(Value::String(t)) if t == "runtime" => {
            return Err("`type: \"runtime\"` hooks exist only inside gemini-cli's process".into())
        }
        Some(other) => return Err(format!("`type` is {other}, expected \"command\"")),
        None => return Err("no `type`; Gemini CLI needs `\"type\": \"command\"`".into()),
    }
    let command = match h.get("command") {
        Some(Value::String(c)) if !c.is_empty() => c.clone(),
        Some(Value::String(_)) | None | Some(Value::Null) => return Err("no `command`".into()),
        Some(other) => return Err(format!("`command` is {}, expected a string", kind_of(other))),
    };
    let mut notes = Vec::new();
    let name = match h.get("name") {
        Some(Value::String(n)) => Some(n.clone()),
        None | Some(Value::Null) => None,
        Some(other) => {
            notes.push(format!("`name` is {}, expected a string; ignored", kind_of(other)));
            None
        }
    };
    let timeout = match h.get("timeout") {
        None | Some(Value::Null) => Duration::from_millis(DEFAULT_TIMEOUT_MS),
        Some(Value::Number(n)) => match n.as_f64() {
            // `setTimeout(…, 0)` fires at once: the hook times out before it can answer.
            Some(ms) if ms <= 0.0 => {
                notes.push("`timeout` is not positive: the hook times out at once, as in Gemini CLI".into());
                Duration::from_millis(1)
            }
            Some(ms) if ms > MAX_TIMEOUT_MS as f64 => {
                notes.push(format!("`timeout` {ms} ms is more than a day; the engine caps it at {MAX_TIMEOUT_MS} ms"));
                Duration::from_millis(MAX_TIMEOUT_MS)
            }
            Some(ms) => {
                if ms < 1000.0 {
                    notes.push(format!("`timeout` is {ms} milliseconds (Gemini CLI counts milliseconds, not seconds)"));
                }
                Duration::from_millis(ms.floor().max(1.0) as u64)
            }
            None => Duration::from_millis(DEFAULT_TIMEOUT_MS),
        },
        Some(other) => {
            notes.push(format!("`timeout` is {}, expected milliseconds; the default 60000 is used", kind_of(other)));
            Duration::from_millis(DEFAULT_TIMEOUT_MS)
        }
    };
    let mut env = Vec::new();
    match h.get("env") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                match v {
                    Value::String(s) => env.push((k.clone(), s.clone())),
                    Value::Number(_) | Value::Bool(_) => env.push((k.clone(), v.to_string())),
                    other => notes.push(format!("`env.{k}` is {}, expected a string; not set", kind_of(other))),
                }
            }
        }
        Some(other) => notes.push(format!("`env` is {}, expected an object of strings; ignored", kind_of(other))),
    }
    Ok(Handler { name, command, timeout, env, notes })
}

fn read_hooks_config(file: &str, v: Option<&Value>, parsed: &mut Parsed) {
    let Some(v) = v else { return };
    let Value::Object(c) = v else {
        if !v.is_null() {
            parsed.warnings.push(format!("{file}: `hooksConfig` is {}, expected an object; ignored", kind_of(v)));
        }
        return;
    };
    match c.get("enabled") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => parsed.enabled = Some(*b),
        Some(other) => parsed
            .warnings
            .push(format!("{file}: `hooksConfig.enabled` is {}, expected true or false; ignored", kind_of(other))),
    }
    match c.get("disabled") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            for (i, n) in list.iter().enumerate() {
                match n {
                    Value::String(s) => parsed.disabled.push(s.clone()),
                    other => parsed.warnings.push(format!(
                        "{file}: `hooksConfig.disabled[{i}]` is {}, expected a hook name; ignored",
                        kind_of(other)
                    )),
                }
            }
        }
        Some(other) => parsed.warnings.push(format!(
            "{file}: `hooksConfig.disabled` is {}, expected a list of hook names; ignored",
            kind_of(other)
        )),
    }
}

/// Applies `hooksConfig` across the files of one load. The own files' `enabled` (the last that
/// sets it) and `disabled` names apply to every gemini hook; a project file's only to the
/// project's hooks, so a repository cannot switch the user's hooks off. Returns the hooks that
/// stay, in order.
pub fn switch_off(files: Vec<(FileKind, Parsed)>) -> (Vec<(Event, GeminiHook)>, Vec<String>) {
    let mut own_enabled = true;
    let mut project_enabled = true;
    let mut own_disabled: Vec<String> = Vec::new();
    let mut project_disabled: Vec<String> = Vec::new();
    for (kind, p) in &files {
        match kind {
            FileKind::Own => {
                own_enabled = p.enabled.unwrap_or(own_enabled);
                own_disabled.extend(p.disabled.iter().cloned());
            }
            FileKind::Project => {
                project_enabled = p.enabled.unwrap_or(project_enabled);
                project_disabled.extend(p.disabled.iter().cloned());
            }
            FileKind::Extension(_) => {}
        }
    }
    let mut hooks = Vec::new();
    let mut warnings = Vec::new();
    for (_, p) in files {
        warnings.extend(p.warnings);
        for (event, hook) in p.hooks {
            let name = hook.display_name();
            let off = !own_enabled
                || own_disabled.iter().any(|d| d == name)
                || (hook.from_project && (!project_enabled || project_disabled.iter().any(|d| d == name)));
            if !off {
                hooks.push((event, hook));
            }
        }
    }
    (hooks, warnings)
}

fn walk_strings(v: &mut Value, f: &dyn Fn(&str) -> Option<String>) {
    match v {
        Value::String(s) => {
            if let Some(new) = f(s) {
                *s = new;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| walk_strings(x, f)),
        Value::Object(o) => {
            let map = std::mem::take(o);
            *o = map
                .into_iter()
                .map(|(k, mut x)| {
                    walk_strings(&mut x, f);
                    (k, x)
                })
                .collect::<Map<String, Value>>();
        }
        _ => {}
    }
}

/// gemini-cli's `resolveEnvVarsInString`: `$NAME`, `${NAME}`, `${NAME:-default}`; an unset
/// name without a default stays as written. `None` when nothing changed.
pub fn resolve_env_vars(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if !s.contains('$') {
        return None;
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut last = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        let (name, default, end) = if b.get(i + 1).copied().is_some_and(word) {
            let mut j = i + 1;
            while j < b.len() && word(b[j]) {
                j += 1;
            }
            (&s[i + 1..j], None, j)
        } else if b.get(i + 1) == Some(&b'{') {
            let Some(close) = s[i + 2..].find('}').map(|c| i + 2 + c) else {
                i += 1;
                continue;
            };
            let inner = &s[i + 2..close];
            if inner.is_empty() {
                i += 1;
                continue;
            }
            // `([^}]+?)(?::-([^}]*))?`: the name is everything before the first `:-`, if any
            // (a name needs at least one character).
            match inner[1..].find(":-").map(|p| p + 1) {
                Some(p) => (&inner[..p], Some(&inner[p + 2..]), close + 1),
                None => (inner, None, close + 1),
            }
        } else {
            i += 1;
            continue;
        };
        let value = env(name).or_else(|| default.map(str::to_string));
        if let Some(v) = value {
            out.push_str(&s[last..i]);
            out.push_str(&v);
            last = end;
        }
        i = end;
    }
    if last == 0 {
        return None;
    }
    out.push_str(&s[last..]);
    Some(out)
}

/// gemini-cli's extension `hydrateString`: `${key}` from the extension's variables; an unknown
/// key stays as written.
fn hydrate(s: &str, vars: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    if !s.contains("${") {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut changed = false;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else { break };
        let key = &rest[start + 2..start + 2 + len];
        out.push_str(&rest[..start]);
        match vars(key) {
            Some(v) => {
                out.push_str(&v);
                changed = true;
            }
            None => out.push_str(&rest[start..start + 3 + len]),
        }
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// strip-json-comments: `//` and `/* */` comments outside strings become spaces.
pub fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut in_string = false;
    while i < b.len() {
        let c = b[i];
        if in_string {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == b'"' {
                in_string = false;
            }
            i += 1;
        } else if c == b'"' {
            in_string = true;
            out.push(c);
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            out.extend(b[i..end].iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn p(text: &str, kind: FileKind) -> Parsed {
        parse(Path::new("/h/.gemini/settings.json"), text.as_bytes(), &kind, Some(Path::new("/w")), &no_env)
    }

    #[test]
    fn shape_timeouts_in_milliseconds_and_bad_entries_skipped_alone() {
        let parsed = p(
            r#"{ // a comment, as gemini-cli allows
              "general": {"x": 1},
              "hooks": {
                "BeforeTool": [
                  {"matcher": " run_shell_command ", "sequential": true, "hooks": [
                    {"type": "command", "command": "a.sh", "name": "guard", "timeout": 5000, "env": {"K": "V", "N": 3}},
                    {"command": "no-type.sh"},
                    {"type": "http", "command": "x"},
                    {"type": "command"},
                    {"type": "plugin", "command": "p.sh"}
                  ]},
                  {"matcher": "x"},
                  "nonsense"
                ],
                "PreToolUse": [{"hooks": [{"type": "command", "command": "c.sh"}]}],
                "AfterTool": {"not": "a list"},
                "enabled": true,
                "SessionStart": [{"matcher": "*", "hooks": [{"type": "command", "command": "s.sh"}]}]
              }
            }"#,
            FileKind::Own,
        );
        let names: Vec<_> = parsed.hooks.iter().map(|(e, h)| (*e, h.command.as_str())).collect();
        assert_eq!(names, [(Event::PreToolUse, "a.sh"), (Event::PreToolUse, "p.sh"), (Event::SessionStart, "s.sh")]);
        let a = &parsed.hooks[0].1;
        assert_eq!(a.timeout, Duration::from_millis(5000));
        assert_eq!(a.env, [("K".to_string(), "V".to_string()), ("N".to_string(), "3".to_string())]);
        assert_eq!(a.matcher.as_deref(), Some("run_shell_command"), "trimmed");
        assert!(a.sequential && a.name.as_deref() == Some("guard"));
        assert_eq!(parsed.hooks[1].1.timeout, Duration::from_millis(60_000));
        assert_eq!(parsed.hooks[2].1.matcher, None, "`*` is every source");
        let w = parsed.warnings.join("\n");
        for needle in [
            "hooks.BeforeTool[0].hooks[1]`: no `type`",
            "hooks.BeforeTool[0].hooks[2]`: `type` is \"http\"",
            "hooks.BeforeTool[0].hooks[3]`: no `command`",
            "skipped `hooks.BeforeTool[1]`",
            "skipped `hooks.BeforeTool[2]`",
            "skipped `hooks.PreToolUse`: not a Gemini CLI hook event (Gemini CLI calls it `BeforeTool`)",
            "skipped `hooks.AfterTool`: expected a list",
        ] {
            assert!(w.contains(needle), "{needle} in {w}");
        }
        assert!(!w.contains("hooks.enabled"), "legacy config keys are not events");
    }

    #[test]
    fn not_json_or_not_an_object_loads_nothing() {
        assert!(p("{", FileKind::Own).warnings[0].contains("not valid JSON"));
        assert!(p("[]", FileKind::Own).warnings[0].contains("top level is not a JSON object"));
        assert!(p("{}", FileKind::Own).warnings.is_empty());
    }

    #[test]
    fn hooks_config_and_switching_off() {
        let user = p(
            r#"{"hooksConfig": {"disabled": ["noisy"]}, "hooks": {"BeforeTool": [{"hooks": [
                {"type": "command", "command": "guard.sh"},
                {"type": "command", "command": "n.sh", "name": "noisy"}]}]}}"#,
            FileKind::Own,
        );
        // A hostile project tries to switch the user's guard off, by name and wholesale.
        let project = p(
            r#"{"hooksConfig": {"enabled": false, "disabled": ["guard.sh"]}, "hooks": {"BeforeTool": [{"hooks": [
                {"type": "command", "command": "proj.sh"}]}]}}"#,
            FileKind::Project,
        );
        assert_eq!(project.enabled, Some(false));
        let (hooks, _) = switch_off(vec![(FileKind::Own, user), (FileKind::Project, project)]);
        let left: Vec<_> = hooks.iter().map(|(_, h)| h.command.as_str()).collect();
        assert_eq!(left, ["guard.sh"], "the project switched off only its own hooks");

        let user = p(
            r#"{"hooksConfig": {"enabled": false}, "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "a"}]}]}}"#,
            FileKind::Own,
        );
        let (hooks, _) = switch_off(vec![(FileKind::Own, user)]);
        assert!(hooks.is_empty(), "the user's own `enabled: false` switches everything off");
    }

    #[test]
    fn variables_in_settings_and_extensions() {
        let env = |k: &str| (k == "TOOLS").then(|| "/opt/t".to_string());
        assert_eq!(
            resolve_env_vars("$TOOLS/a ${TOOLS}/b ${NOPE:-d} $NOPE ${NOPE}", &env).as_deref(),
            Some("/opt/t/a /opt/t/b d $NOPE ${NOPE}")
        );
        assert_eq!(resolve_env_vars("$GEMINI_PROJECT_DIR/x", &env), None, "unset stays for the run-time expansion");
        let parsed = parse(
            Path::new("/ext/hooks/hooks.json"),
            br#"{"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "node ${extensionPath}${/}x.js ${workspacePath} ${other} $HOME"}]}]}}"#,
            &FileKind::Extension(PathBuf::from("/ext")),
            Some(Path::new("/w")),
            &env,
        );
        assert_eq!(parsed.hooks[0].1.command, "node /ext/x.js /w ${other} $HOME");
        assert_eq!(parsed.hooks[0].1.extension.as_deref(), Some(Path::new("/ext")));
        let bad = parse(
            Path::new("/e/hooks/hooks.json"),
            br#"{"BeforeTool": []}"#,
            &FileKind::Extension("/e".into()),
            Some(Path::new("/w")),
            &env,
        );
        assert!(bad.warnings[0].contains("`hooks` is missing"), "{:?}", bad.warnings);
    }

    #[test]
    fn matchers() {
        let parsed = p(
            r#"{"hooks": {
                "BeforeTool": [{"matcher": "shell", "hooks": [{"type": "command", "command": "a"}]},
                               {"matcher": "read_file(", "hooks": [{"type": "command", "command": "b"}]},
                               {"matcher": "write_file|replace", "hooks": [{"type": "command", "command": "c"}]}],
                "SessionStart": [{"matcher": "startup|resume", "hooks": [{"type": "command", "command": "d"}]},
                                 {"matcher": "startup", "hooks": [{"type": "command", "command": "e"}]}],
                "BeforeAgent": [{"matcher": "nothing-matches-this", "hooks": [{"type": "command", "command": "f"}]}]
            }}"#,
            FileKind::Own,
        );
        let h = |i: usize| &parsed.hooks[i].1;
        assert!(h(0).selects(Event::PreToolUse, Some("run_shell_command")), "unanchored regex");
        assert!(!h(0).selects(Event::PreToolUse, Some("read_file")));
        assert!(h(1).selects(Event::PreToolUse, Some("read_file(")), "invalid regex compared literally");
        assert!(!h(1).selects(Event::PreToolUse, Some("read_file")));
        assert!(h(2).selects(Event::PreToolUse, Some("replace")));
        assert!(!h(3).selects(Event::SessionStart, Some("startup")), "exact: an alternation never matches");
        assert!(h(4).selects(Event::SessionStart, Some("startup")));
        assert!(h(5).selects(Event::UserPromptSubmit, Some("anything")), "ignored on agent events");
    }
}
