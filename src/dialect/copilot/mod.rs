//! The GitHub Copilot dialect (docs/dialects/copilot.md): hooks written for the Copilot CLI
//! and cloud agent (`.github/hooks/*.json`, `~/.copilot/hooks/*.json`, the `hooks` key of
//! Copilot's `settings.json`), run by Copilot's rules.
//!
//! Data and pure functions only:
//! - here: the event names, in both casings, and which engine event each is;
//! - [`files`]: which files, and how one parses into hooks;
//! - [`tools`]: Copilot's tool names and argument fields;
//! - [`view`]: what a hook receives (the stdin of its event name's casing) and what its matcher tests;
//! - [`answer`]: how one hook's answer reads, and how a step's answers merge.
//!
//! Copilot picks the stdin by the case of the event name a hook is configured under: camelCase
//! names (`preToolUse`) get Copilot's own payload, PascalCase names (`PreToolUse`, VS Code's
//! names) VS Code's compatible payload. The answer rules are Copilot's for both.

pub mod answer;
pub mod files;
pub mod tools;
pub mod view;

use super::{Answer, Decision, Dialect, File, Handler, Hook, Parsed, Parser, Place, Raw, Site, Via, View};
use crate::envelope::Envelope;
use crate::event::Event;
use crate::matcher::claude::ClaudeMatcher;
use crate::response::json;
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The dialect's name: the option, the trace's `dialect`, `oh-hooks check --copilot`.
pub const NAME: &str = "copilot";

/// Which payload and matcher rules a hook gets: the case of the event name it is written under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `preToolUse`: Copilot's camelCase payload, anchored regex matchers.
    Camel,
    /// `PreToolUse`: VS Code's snake_case payload, Claude Code's matcher rules.
    Pascal,
}

/// Copilot's camelCase events and their engine events.
const CAMEL: &[(&str, Event)] = &[
    ("sessionStart", Event::SessionStart),
    ("sessionEnd", Event::SessionEnd),
    ("userPromptSubmitted", Event::UserPromptSubmit),
    ("userPromptTransformed", Event::UserPromptTransformed),
    ("preToolUse", Event::PreToolUse),
    ("preMcpToolCall", Event::PreMcpToolCall),
    ("postToolUse", Event::PostToolUse),
    ("postToolUseFailure", Event::PostToolUseFailure),
    ("permissionRequest", Event::PermissionRequest),
    ("agentStop", Event::TurnStop),
    ("subagentStart", Event::SubagentStart),
    ("subagentStop", Event::SubagentStop),
    ("errorOccurred", Event::ErrorOccurred),
    ("preCompact", Event::PreCompact),
    ("notification", Event::Notification),
];

/// VS Code's PascalCase names, which the CLI also reads (with VS Code's payload).
const PASCAL: &[(&str, Event)] = &[
    ("SessionStart", Event::SessionStart),
    ("SessionEnd", Event::SessionEnd),
    ("UserPromptSubmit", Event::UserPromptSubmit),
    ("PreToolUse", Event::PreToolUse),
    ("PreMcpToolCall", Event::PreMcpToolCall),
    ("PostToolUse", Event::PostToolUse),
    ("PostToolUseFailure", Event::PostToolUseFailure),
    ("PermissionRequest", Event::PermissionRequest),
    ("Stop", Event::TurnStop),
    ("SubagentStart", Event::SubagentStart),
    ("SubagentStop", Event::SubagentStop),
    ("PreCompact", Event::PreCompact),
    ("ErrorOccurred", Event::ErrorOccurred),
];

/// The engine event and mode of an event name as written in a Copilot file.
pub fn event_of(name: &str) -> Option<(Event, Mode)> {
    CAMEL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, e)| (*e, Mode::Camel))
        .or_else(|| PASCAL.iter().find(|(n, _)| *n == name).map(|(_, e)| (*e, Mode::Pascal)))
}

/// Copilot's name for an engine event in a mode (`hook_event_name`, `oh-hooks check`).
pub fn name_of(event: Event, mode: Mode) -> Option<&'static str> {
    let table = match mode {
        Mode::Camel => CAMEL,
        Mode::Pascal => PASCAL,
    };
    table.iter().find(|(_, e)| *e == event).map(|(n, _)| *n)
}

/// Every Copilot event name with its engine event (both casings), for the event-name table.
pub fn event_names() -> impl Iterator<Item = (&'static str, Event)> {
    CAMEL.iter().chain(PASCAL).copied()
}

/// Events a Copilot hook can decide: a tool call and a permission request are refused, and on a
/// stop event a block means "do not stop, continue with this" (`fire` waits for these).
pub fn can_block(event: Event) -> bool {
    matches!(event, Event::PreToolUse | Event::PermissionRequest | Event::TurnStop | Event::SubagentStop)
}

/// Copilot's default timeout, seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// The variables Copilot sets for its hooks; the host's values of these never reach a hook.
/// `CLAUDE_PROJECT_DIR` is not among them: Copilot does not export it to repository hooks (and
/// hooks tell Claude Code from Copilot by it).
pub const VARIABLES: &[&str] =
    &["COPILOT_PROJECT_DIR", "PLUGIN_ROOT", "COPILOT_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"];

/// Runs an entry with a working directory or variables of its own: `bash -c WRAP copilot-hook
/// <cwd> <n> <name> <value>... shell <line>` (or `exec <program> <args>...`). Data, not an
/// engine change: every Copilot command runs through bash anyway. A `cd` that fails is a
/// failure to start (on `preToolUse`, a deny).
const WRAP: &str = r#"d=$1; n=$2; shift 2
while [ "$n" -gt 0 ]; do export -- "$1=$2" || exit 1; shift 2; n=$((n - 1)); done
if [ -n "$d" ]; then cd -- "$d" || exit 1; fi
if [ "$1" = shell ]; then exec bash -c "$2"; fi
shift; exec "$@""#;

pub struct Copilot;

/// One load's parser: the regex bound is over all of Copilot's files of the load.
#[derive(Default)]
struct CopilotParser(files::Matchers);

impl Parser for CopilotParser {
    fn parse(&mut self, file: &File, bytes: &[u8]) -> Parsed {
        match files::parse(file, bytes, &mut self.0) {
            Err(why) => Parsed { warnings: vec![why], ..Parsed::default() },
            Ok(p) => Parsed {
                disable_all: p.disable_all,
                hooks: p.hooks.into_iter().map(|h| (h.event, hook(h))).collect(),
                warnings: p.warnings,
            },
        }
    }
}

/// A parsed entry as the engine's hook.
fn hook(h: files::Hook) -> Hook {
    let (handler, shown, argv) = match h.handler {
        files::Handler::Http { url, headers, allowed_env_vars } => {
            (Handler::Http { url: url.clone(), headers, allowed_env_vars }, url, None)
        }
        command => {
            let (mut args, shown) = match &command {
                files::Handler::Shell(line) => (vec!["shell".to_string(), line.clone()], line.clone()),
                files::Handler::Exec { program, args } => {
                    let mut words = vec!["exec".to_string(), program.clone()];
                    words.extend(args.iter().cloned());
                    (words, format!("{program} {}", args.join(" ")).trim_end().to_string())
                }
                files::Handler::Http { .. } => unreachable!(),
            };
            let plain = match &command {
                files::Handler::Shell(line) if h.cwd.is_none() && h.env.is_empty() => crate::words::plain_words(line),
                _ => None,
            };
            let handler = if let (Some(_), files::Handler::Shell(line)) = (&plain, &command) {
                // A program and plain words: started directly, as bash would start it (no shell
                // in between: ~1 ms less per hook). Should the direct start fail (a script
                // without `#!`), the engine's shell fallback runs the same line.
                Handler::Command { command: line.clone(), args: None }
            } else if h.cwd.is_none() && h.env.is_empty() {
                match command {
                    files::Handler::Shell(line) => {
                        Handler::Command { command: "bash".into(), args: Some(vec!["-c".into(), line]) }
                    }
                    files::Handler::Exec { program, args } => Handler::Command { command: program, args: Some(args) },
                    files::Handler::Http { .. } => unreachable!(),
                }
            } else {
                let mut words = vec![
                    "-c".to_string(),
                    WRAP.to_string(),
                    "copilot-hook".to_string(),
                    h.cwd.clone().unwrap_or_default(),
                    h.env.len().to_string(),
                ];
                for (k, v) in &h.env {
                    words.push(k.clone());
                    words.push(v.clone());
                }
                words.append(&mut args);
                Handler::Command { command: "bash".into(), args: Some(words) }
            };
            (handler, shown, plain)
        }
    };
    let (matcher, matcher_text) = match h.matcher {
        Some(m) => (m.compiled, Some(m.text)),
        None => (ClaudeMatcher::Any, None),
    };
    Hook {
        dialect: 0,
        handler,
        matcher,
        matcher_text,
        if_rule: None,
        if_text: None,
        timeout: Some(h.timeout),
        is_async: false,
        fail_closed: false,
        identity: format!("{}\0{}\0{shown}", h.source.display(), h.at),
        source: h.source,
        plugin: h.plugin,
        argv,
        from_project: false,
        event_name: Some(h.event_name),
        written: Some(shown.clone()),
        variant: match h.mode {
            Mode::Camel => 0,
            Mode::Pascal => 1,
        },
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

impl Dialect for Copilot {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "GitHub Copilot"
    }

    fn files(&self, place: &Place) -> Vec<File> {
        files::files(place)
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::<CopilotParser>::default()
    }

    fn event_name(&self, event: Event) -> Option<&'static str> {
        name_of(event, Mode::Camel).or_else(|| name_of(event, Mode::Pascal))
    }

    fn event(&self, name: &str) -> Option<Event> {
        event_of(name).map(|(e, _)| e)
    }

    fn can_block(&self, event: Event) -> bool {
        can_block(event)
    }

    fn variables(&self) -> &'static [&'static str] {
        VARIABLES
    }

    /// Both payloads: camelCase hooks get `stdin`, PascalCase ones `variants[0]`.
    fn view(&self, envelope: &Envelope, site: &Site) -> View {
        let now = now_ms();
        let camel = view::View::build(envelope, Mode::Camel, site.cwd, now);
        let pascal = view::View::build(envelope, Mode::Pascal, site.cwd, now);
        let values = |v: &view::View| {
            Value::Array(v.matcher_values(envelope.event).into_iter().map(|s| Value::String(s.to_string())).collect())
        };
        let mut fields = Map::new();
        fields.insert("camel".into(), values(&camel));
        fields.insert("pascal".into(), values(&pascal));
        View {
            stdin: camel.json,
            variants: vec![pascal.json],
            fields,
            vars: vec![("COPILOT_PROJECT_DIR", site.project_dir.display().to_string())],
        }
    }

    /// Each hook's matcher against its mode's values (any one matching runs it).
    fn select(&self, _event: Event, hooks: &[&Hook], view: &View, _site: &Site) -> Vec<usize> {
        let values = |key: &str| -> Vec<&str> {
            view.fields
                .get(key)
                .and_then(Value::as_array)
                .map_or(Vec::new(), |a| a.iter().filter_map(Value::as_str).collect())
        };
        let (camel, pascal) = (values("camel"), values("pascal"));
        (0..hooks.len())
            .filter(|i| {
                let hook = hooks[*i];
                let values = if hook.variant == 0 { &camel } else { &pascal };
                values.iter().any(|v| hook.matcher.matches(Some(v)))
            })
            .collect()
    }

    fn timeout(&self, hook: &Hook, _event: Event) -> Duration {
        hook.timeout.unwrap_or(Duration::from_secs(DEFAULT_TIMEOUT_SECS))
    }

    fn hook_vars(&self, hook: &Hook) -> Vec<(&'static str, String)> {
        let Some(plugin) = &hook.plugin else { return Vec::new() };
        let root = plugin.root.display().to_string();
        let mut vars =
            vec![("PLUGIN_ROOT", root.clone()), ("COPILOT_PLUGIN_ROOT", root.clone()), ("CLAUDE_PLUGIN_ROOT", root)];
        vars.extend(plugin.data.as_ref().map(|d| ("CLAUDE_PLUGIN_DATA", d.display().to_string())));
        vars
    }

    /// Hooks of one event run in order, one after another.
    fn sequential(&self, _event: Event) -> bool {
        true
    }

    fn read(&self, event: Event, hook: &Hook, raw: &Raw) -> Answer {
        let via = match raw.via {
            Via::Http { .. } => answer::Via::Http,
            _ if matches!(hook.handler, Handler::Http { .. }) => answer::Via::Http,
            _ => answer::Via::Command,
        };
        // `raw.name` is the hook as written (`Hook::written`).
        answer::read(event, via, raw).into_answer()
    }

    fn merge(&self, event: Event, answers: &[Answer]) -> Decision {
        answer::merge(event, answers)
    }

    /// `modifiedArgs` under the host's field names.
    fn to_host_input(&self, envelope: &Envelope, input: Value) -> Value {
        let tool = ["toolName", "tool_name"]
            .iter()
            .find_map(|k| envelope.raw(k))
            .and_then(|raw| json::value(raw)?.as_str().map(|s| tools::named(&s)));
        view::to_host(tool.as_ref(), input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_casings_map_to_one_engine_event() {
        assert_eq!(event_of("agentStop"), Some((Event::TurnStop, Mode::Camel)));
        assert_eq!(event_of("Stop"), Some((Event::TurnStop, Mode::Pascal)));
        assert_eq!(event_of("userPromptSubmitted"), Some((Event::UserPromptSubmit, Mode::Camel)));
        assert_eq!(event_of("UserPromptSubmit"), Some((Event::UserPromptSubmit, Mode::Pascal)));
        assert_eq!(event_of("userPromptSubmit"), None, "Copilot's camelCase name is userPromptSubmitted");
        assert_eq!(event_of("AgentStop"), None, "VS Code's names, not capitalised camelCase ones");
        for (name, event) in event_names() {
            let (e, mode) = event_of(name).unwrap();
            assert_eq!(e, event);
            assert_eq!(name_of(event, mode), Some(name));
        }
        assert_eq!(name_of(Event::Notification, Mode::Pascal), None);
        assert!(can_block(Event::TurnStop) && !can_block(Event::UserPromptSubmit));
    }
}
