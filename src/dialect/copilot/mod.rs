//! The GitHub Copilot dialect (docs/dialects/copilot.md): hooks written for the Copilot CLI
//! and cloud agent (`.github/hooks/*.json`, `~/.copilot/hooks/*.json`, the `hooks` key of
//! Copilot's `settings.json`), run by Copilot's rules.
//!
//! Data and pure functions only:
//! - here: the event names, in both casings, and which engine event each is;
//! - [`files`]: which files, and how one parses into hooks;
//! - Copilot's tool names and argument fields: its tables in `envelope/tools.rs` (`COPILOT`,
//!   `COPILOT_PASCAL`), through the host's `tools`;
//! - [`view`]: what a hook receives (the stdin of its event name's casing) and what its matcher tests;
//! - [`answer`]: how one hook's answer reads, and how a step's answers merge.
//!
//! Copilot picks the stdin by the case of the event name a hook is configured under: camelCase
//! names (`preToolUse`) get Copilot's own payload, PascalCase names (`PreToolUse`, VS Code's
//! names) VS Code's compatible payload. The answer rules are Copilot's for both.

pub mod answer;
pub mod files;
pub mod view;

use super::{Answer, Decision, Dialect, File, Handler, Hook, Parsed, Parser, Place, Raw, Site, Via, View};
use crate::envelope::tools::HostTools;
use crate::envelope::Envelope;
use crate::event::Event;
use crate::matcher::field::FieldMatcher;
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

/// A parsed entry as the engine's hook. A `bash` line is the handler's command as written (what
/// reasons and `oh-hooks check` show); [`Copilot::command`] runs it through `bash -c`, or the
/// engine starts it directly when it is a program and plain words, as bash would.
fn hook(h: files::CopilotHook) -> Hook {
    let (handler, argv) = match h.handler {
        files::CopilotHandler::Http { url, headers, allowed_env_vars } => {
            (Handler::Http { url, headers, allowed_env_vars }, None)
        }
        files::CopilotHandler::Shell(line) => {
            let words = crate::words::plain_words(&line);
            (Handler::Command { command: line, args: None }, words)
        }
        files::CopilotHandler::Exec { program, args } => {
            (Handler::Command { command: program, args: Some(args) }, None)
        }
    };
    let (matcher, matcher_text) = match h.matcher {
        Some(m) => (m.compiled, Some(m.text)),
        None => (FieldMatcher::Any, None),
    };
    Hook {
        dialect: 0,
        identity: format!("{}\0{}", h.source.display(), h.at),
        handler,
        matcher,
        matcher_text,
        if_rule: None,
        if_text: None,
        timeout: Some(h.timeout),
        is_async: false,
        fail_closed: false,
        source: h.source,
        plugin: h.plugin,
        argv,
        from_project: false,
        // The name as written (`oh-hooks check` shows it): a PascalCase one gets the view's
        // variant of that name (VS Code's payload), a camelCase one the view's own stdin.
        event_name: name_of(h.event, h.mode),
        loop_limit: None,
        cwd: h.cwd.map(std::path::PathBuf::from),
        env: h.env,
        sequential: false,
        name: None,
    }
}

/// A hook written under a PascalCase event name (VS Code's payload and Claude Code's matchers).
fn is_pascal(hook: &Hook) -> bool {
    hook.event_name.is_some_and(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
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

    fn event_names(&self) -> Vec<&'static str> {
        event_names().map(|(n, _)| n).collect()
    }

    fn can_block(&self, event: Event) -> bool {
        can_block(event)
    }

    fn variables(&self) -> &'static [&'static str] {
        VARIABLES
    }

    /// Both payloads: camelCase hooks get `stdin`, PascalCase ones the variant of the event's
    /// PascalCase name.
    fn view(&self, envelope: &Envelope, site: &Site) -> View {
        let now = now_ms();
        let camel = view::CopilotView::build(envelope, Mode::Camel, site.cwd, now, site.tools);
        let pascal = view::CopilotView::build(envelope, Mode::Pascal, site.cwd, now, site.tools);
        let event = envelope.event;
        let camel_values = camel.matcher_values(event);
        let mut pascal_values = pascal.matcher_values(event);
        // A PascalCase matcher's names also match Copilot's own name, and `Task` the sub-agent.
        if view::is_tool_event(event) {
            pascal_values.extend(camel_values.iter().filter(|v| !v.is_empty()));
            if pascal_values.first() == Some(&"Agent") {
                pascal_values.push("Task");
            }
        }
        let strings = |v: &[&str]| Value::Array(v.iter().map(|s| Value::String(s.to_string())).collect());
        let mut fields = Map::new();
        fields.insert("camel".into(), strings(&camel_values));
        fields.insert("pascal".into(), strings(&pascal_values));
        let variants = name_of(event, Mode::Pascal)
            .map(|name| super::Variant { event: name, stdin: pascal.json.clone(), matcher_value: None })
            .into_iter()
            .collect();
        View {
            stdin: camel.json,
            variants,
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
                let values = if is_pascal(hook) { &pascal } else { &camel };
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

    /// A `bash` line that is not plain words runs through `bash -c` (the engine's own shell form
    /// is `/bin/sh`), with `${COPILOT_PROJECT_DIR}` and a plugin's `${PLUGIN_ROOT}` /
    /// `${CLAUDE_PLUGIN_ROOT}` replaced in it as the CLI replaces them.
    fn command(&self, hook: &Hook, view: &View) -> Option<Vec<String>> {
        let Handler::Command { command, args: None } = &hook.handler else { return None };
        if hook.argv.is_some() {
            return None;
        }
        let mut line = command.clone();
        for (name, value) in view.vars.iter().chain(self.hook_vars(hook).iter()) {
            line = line.replace(&format!("${{{name}}}"), value);
        }
        Some(vec!["bash".to_string(), "-c".to_string(), line])
    }

    /// Hooks of one event run in order, one after another.
    fn sequential(&self, _event: Event, _hooks: &[&Hook]) -> bool {
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

    /// `modifiedArgs` under the host's field names (PascalCase hooks use the same field names).
    fn to_host_input(&self, envelope: &Envelope, tools: &HostTools, input: Value) -> Value {
        let name = ["toolName", "tool_name"]
            .iter()
            .find_map(|k| envelope.raw(k))
            .and_then(|raw| json::value(raw)?.as_str().map(|s| s.into_owned()));
        match name {
            Some(name) => crate::envelope::tools::from_dialect(&crate::envelope::tools::COPILOT, tools, &name, input),
            None => input,
        }
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
