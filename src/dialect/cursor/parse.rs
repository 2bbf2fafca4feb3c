//! Cursor's hooks files (docs/dialects/cursor.md, files): `<home>/.cursor/hooks.json` (own),
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
use crate::dialect::{
    kind, string_field, File, Handler, Hook, LayerKind, Parsed, Parser, Place, MAX_FILE_BYTES, MAX_TIMEOUT_SECS,
};
use crate::matcher::field::FieldMatcher;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Cursor's own default when a hook gives no `timeout` (a Cursor log: "Running hook 1 with
/// timeout 60000ms").
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// Follow-ups a `stop`/`subagentStop` hook may trigger per conversation without `loop_limit`.
pub const DEFAULT_LOOP_LIMIT: u64 = 5;
/// Regex matchers one load may compile (each distinct text once).
pub const MAX_REGEX_MATCHERS: usize = 1000;
/// Where a plugin names its hooks.
pub const MANIFEST: &str = ".cursor-plugin/plugin.json";

/// The Cursor event a hook was written under.
pub fn event_of(hook: &Hook) -> Option<&'static CursorEvent> {
    hook.event_name.and_then(CursorEvent::by_name)
}

/// The files the options name, in configuration order: the user's, the host's, each plugin's
/// manifest and the hooks file it names, then the project's (a project rewrite, which Cursor
/// ranks higher, comes last).
///
/// The one read a dialect makes itself: a plugin's manifest names its hooks file, so it is read
/// here (bounded like every config file). Plugins are own layers the host names; nothing of a
/// project is ever read here.
pub fn files(place: &Place) -> Vec<File> {
    files_with(place, &read_manifest)
}

/// A plugin manifest's bytes, bounded like every config file; `None` when absent or unreadable
/// (the loader reads the manifest itself too, as an entry, and reports a read error then).
fn read_manifest(path: &Path) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path).ok()?.take(MAX_FILE_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// [`files`] with the manifest reader given (tests).
pub fn files_with(place: &Place, manifest: &dyn Fn(&Path) -> Option<Vec<u8>>) -> Vec<File> {
    let file = |path: PathBuf, kind, plugin| File { path, kind, plugin, change_source: None, dir: None };
    let mut files = Vec::new();
    if let (true, true, Some(home)) = (place.chosen.on, place.user, place.home) {
        files.push(file(home.join(".cursor/hooks.json"), LayerKind::Own, None));
    }
    for path in &place.chosen.files {
        files.push(file(path.clone(), LayerKind::Own, None));
    }
    for plugin in &place.chosen.plugins {
        let at = plugin.root.join(MANIFEST);
        // The manifest is an entry of its own: its inline hooks, its warnings, and a change to
        // it reloads.
        files.push(file(at.clone(), LayerKind::Own, Some(plugin.clone())));
        let named =
            match manifest(&at).map(|bytes| plugin_hooks(&at, &bytes)) {
                None | Some(Ok(PluginHooks::Default)) => Some(plugin.root.join("hooks/hooks.json")),
                // `./hooks/x.json` (as manifests write it) names `<root>/hooks/x.json`.
                Some(Ok(PluginHooks::Path(p))) => Some(plugin.root.join(
                    Path::new(&p).components().filter(|c| *c != std::path::Component::CurDir).collect::<PathBuf>(),
                )),
                Some(Ok(PluginHooks::Inline) | Err(_)) => None,
            };
        if let Some(path) = named {
            files.push(file(path, LayerKind::Own, Some(plugin.clone())));
        }
    }
    if place.chosen.on && place.project {
        files.push(file(place.cwd.join(".cursor/hooks.json"), LayerKind::Project, None));
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

fn is_manifest(file: &File) -> bool {
    file.plugin.as_ref().is_some_and(|p| file.path == p.root.join(MANIFEST))
}

/// One load's parser: a regex repeated across entries and files is compiled once, and one load
/// compiles at most [`MAX_REGEX_MATCHERS`].
#[derive(Default)]
pub struct CursorParser {
    matchers: HashMap<String, CursorMatcher>,
    regexes: usize,
}

impl Parser for CursorParser {
    fn parse(&mut self, file: &File, bytes: &[u8]) -> Parsed {
        parse(file, bytes, self)
    }
}

/// Parses one file (or a manifest's inline hooks). Pure.
pub fn parse(file: &File, bytes: &[u8], parser: &mut CursorParser) -> Parsed {
    let name = file.path.display().to_string();
    let mut parsed = Parsed::default();
    if bytes.len() as u64 > MAX_FILE_BYTES {
        parsed.warnings.push(format!(
            "{name}: at least {} bytes, more than the {MAX_FILE_BYTES} a Cursor hooks file may have; its hooks are not loaded",
            bytes.len()
        ));
        return parsed;
    }
    let manifest = is_manifest(file);
    if manifest {
        // Only an inline hooks object is read here; a path names a file that is an entry itself.
        if let Err(why) = plugin_hooks(&file.path, bytes) {
            parsed.warnings.push(why);
            return parsed;
        }
    }
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
    let prefix = if manifest {
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
        None if file.plugin.is_some() => {}
        None => parsed
            .warnings
            .push(format!("{name}: no `{prefix}version` (Cursor's files say \"version\": 1); loaded as version 1")),
        Some(other) => {
            parsed.warnings.push(format!("{name}: `{prefix}version` is {other}, expected 1; loaded as version 1"))
        }
    }
    if top.contains_key("disableAllHooks") {
        parsed.warnings.push(format!("{name}: `{prefix}disableAllHooks` is not a Cursor setting; ignored"));
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
    // Project and plugin hooks run in the project directory (the engine's `cwd`); the user's
    // and the host's files' hooks in the file's own directory (`~/.cursor` for the user's).
    let cwd = (file.kind == LayerKind::Own && file.plugin.is_none())
        .then(|| file.path.parent().unwrap_or(Path::new("/")).to_path_buf());
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
            match entry_of(entry, event, parser) {
                Ok(mut hook) => {
                    // Every entry runs as often as configured: one written under both
                    // `preToolUse` and `beforeShellExecution` runs twice, as in Cursor.
                    hook.identity = format!("cursor\0{name}\0{at}");
                    hook.source = file.path.clone();
                    hook.plugin = file.plugin.clone();
                    hook.cwd = cwd.clone();
                    hook.from_project = file.kind == LayerKind::Project;
                    parsed.hooks.push((event.engine, hook));
                }
                Err(why) => parsed.warnings.push(format!("{name}: skipped `{at}`: {why}")),
            }
        }
    }
    parsed
}

fn entry_of(value: &Value, event: &'static CursorEvent, parser: &mut CursorParser) -> Result<Hook, String> {
    let Value::Object(h) = value else {
        return Err(format!("expected a hook object such as {{\"command\": \"...\"}}, found {}", kind(value)));
    };
    let string = |key: &str| string_field(h, key);
    let handler = match string("type")?.as_deref() {
        None | Some("command") => {
            let command = string("command")?
                .filter(|c| !c.trim().is_empty())
                .ok_or("`command` is missing or empty; expected the shell command to run")?;
            Handler::Command { command, args: None }
        }
        Some("prompt") => {
            string("prompt")?.filter(|p| !p.trim().is_empty()).ok_or("a prompt hook needs a non-empty `prompt`")?;
            let mut fields = Map::new();
            for key in ["prompt", "model"] {
                if let Some(v) = h.get(key).filter(|v| !v.is_null()) {
                    fields.insert(key.to_string(), v.clone());
                }
            }
            Handler::Callback { kind: "prompt", fields }
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
        Some(text) => match parser.matchers.get(text) {
            Some(m) => m.clone(),
            None => {
                let m = CursorMatcher::parse(text)?;
                if m.is_regex() {
                    if parser.regexes >= MAX_REGEX_MATCHERS {
                        return Err(format!(
                            "more than {MAX_REGEX_MATCHERS} distinct regex matchers in the Cursor files; this one is not compiled"
                        ));
                    }
                    parser.regexes += 1;
                }
                parser.matchers.insert(text.clone(), m.clone());
                m
            }
        },
    };
    let argv = match &handler {
        Handler::Command { command, .. } => crate::words::plain_words(command),
        _ => None,
    };
    Ok(Hook {
        dialect: 0,
        handler,
        matcher: match matcher {
            CursorMatcher::Any => FieldMatcher::Any,
            CursorMatcher::Regex(re) => FieldMatcher::Regex(re),
        },
        matcher_text,
        if_rule: None,
        if_text: None,
        timeout,
        is_async: false,
        fail_closed,
        source: PathBuf::new(),
        plugin: None,
        argv,
        identity: String::new(),
        from_project: false,
        event_name: Some(event.name),
        loop_limit: if event.continues { loop_limit } else { None },
        cwd: None,
        env: Vec::new(),
        sequential: false,
        name: None,
    })
}

/// Whether `hook`'s matcher lets it run for `value` (Cursor's unanchored regex; `None`: the
/// event has no matcher, and it runs).
pub fn matches(hook: &Hook, value: Option<&str>) -> bool {
    match (&hook.matcher, value) {
        (_, None) | (FieldMatcher::Any, _) => true,
        (FieldMatcher::Regex(re), Some(v)) => CursorMatcher::Regex(re.clone()).matches(Some(v)),
        (FieldMatcher::Names(names), Some(v)) => names.iter().any(|n| n == v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::{Chosen, Plugin};
    use crate::event::Event;

    fn parse_as(kind: LayerKind, plugin: Option<Plugin>, text: &str) -> Parsed {
        let file = File { path: PathBuf::from("/p/.cursor/hooks.json"), kind, plugin, change_source: None, dir: None };
        parse(&file, text.as_bytes(), &mut CursorParser::default())
    }

    #[test]
    fn the_flat_shape_with_every_field() {
        let p = parse_as(
            LayerKind::Project,
            None,
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
        assert_eq!(h.event_name, Some("beforeShellExecution"));
        assert_eq!(h.handler, Handler::Command { command: "./guard.sh".into(), args: None });
        assert_eq!(h.argv.as_deref(), Some(&["./guard.sh".to_string()][..]));
        assert_eq!(h.timeout, Some(Duration::from_secs(10)));
        assert!(h.fail_closed && h.from_project);
        assert!(matches(h, Some("curl x")) && !matches(h, Some("ls")));
        assert_eq!(h.cwd, None, "project hooks run in the project directory");
        assert_eq!(p.hooks[1].0, Event::TurnStop);
        assert_eq!(p.hooks[1].1.loop_limit, None);
        assert_eq!(p.hooks[2].1.loop_limit, Some(5));
        assert_eq!(p.hooks[3].1.loop_limit, Some(2));
        assert_eq!(p.hooks[4].1.type_name(), "prompt");
        assert_ne!(p.hooks[1].1.identity, p.hooks[2].1.identity);
    }

    #[test]
    fn bad_entries_are_skipped_with_file_path_and_reason() {
        let p = parse_as(
            LayerKind::Own,
            None,
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
        assert_eq!(p.hooks[0].1.cwd.as_deref(), Some(Path::new("/p/.cursor")), "user hooks run in ~/.cursor");
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
        let p = parse_as(LayerKind::Project, None, "{not json");
        assert!(p.hooks.is_empty() && p.warnings[0].contains("not valid JSON"));
        let p = parse_as(LayerKind::Project, None, "[1]");
        assert!(p.warnings[0].contains("top level is not a JSON object"));
        let p = parse_as(LayerKind::Project, None, r#"{"hooks": [], "disableAllHooks": true}"#);
        assert!(p.warnings.iter().any(|w| w.contains("no `version`")));
        assert!(p.warnings.iter().any(|w| w.contains("`disableAllHooks` is not a Cursor setting")));
        assert!(p.warnings.iter().any(|w| w.contains("`hooks` is a list, expected an object")));
        assert_eq!(p.disable_all, None);
        let plugin = Plugin { root: "/plug".into(), data: None };
        let p = parse_as(LayerKind::Own, Some(plugin), r#"{"hooks": {"stop": [{"command": "x"}]}}"#);
        assert!(p.warnings.is_empty(), "plugin files may omit version: {:?}", p.warnings);
        assert_eq!(p.hooks[0].1.cwd, None, "plugin hooks run in the project directory");
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
            "/a/.cursor-plugin/plugin.json" => Some(br#"{"hooks": "./h.json"}"#.to_vec()),
            "/b/.cursor-plugin/plugin.json" => Some(br#"{"hooks": {"version": 1, "hooks": {}}}"#.to_vec()),
            _ => None,
        };
        let plugin = |r: &str| Plugin { root: r.into(), data: None };
        let chosen = Chosen {
            on: true,
            files: vec!["/etc/cursor/hooks.json".into()],
            plugins: vec![plugin("/a"), plugin("/b"), plugin("/c")],
            project_dir: None,
        };
        let place = Place {
            cwd: Path::new("/p"),
            home: Some(Path::new("/home")),
            user: true,
            project: true,
            local: true,
            chosen: &chosen,
        };
        let f = files_with(&place, &manifests);
        let paths: Vec<_> = f.iter().map(|f| (f.path.to_str().unwrap(), f.kind)).collect();
        assert_eq!(
            paths,
            [
                ("/home/.cursor/hooks.json", LayerKind::Own),
                ("/etc/cursor/hooks.json", LayerKind::Own),
                ("/a/.cursor-plugin/plugin.json", LayerKind::Own),
                ("/a/h.json", LayerKind::Own),
                ("/b/.cursor-plugin/plugin.json", LayerKind::Own),
                ("/c/.cursor-plugin/plugin.json", LayerKind::Own),
                ("/c/hooks/hooks.json", LayerKind::Own),
                ("/p/.cursor/hooks.json", LayerKind::Project),
            ]
        );
        let inline = &f[4];
        let p = parse(
            inline,
            br#"{"name":"b","hooks":{"hooks":{"stop":[{"command":"x"}, 5]}}}"#,
            &mut CursorParser::default(),
        );
        assert_eq!(p.hooks.len(), 1);
        assert!(p.warnings[0].contains("skipped `hooks.hooks.stop[1]`"), "{:?}", p.warnings);
        let p = parse(&f[2], br#"{"hooks": "h.json"}"#, &mut CursorParser::default());
        assert!(p.hooks.is_empty() && p.warnings.is_empty(), "a path names another entry");
        let p = parse(&f[2], b"{oops", &mut CursorParser::default());
        assert!(p.warnings[0].contains("the plugin's hooks are not loaded"));
    }
}
