//! The Codex dialect (docs/dialects/codex.md): OpenAI Codex CLI's hooks, run as Codex runs them.
//! Data and pure functions only: which files ([`files`]), how one parses ([`parse`]), the event
//! names ([`EVENTS`]), what a hook sees ([`input`], [`tools`]), which hooks a fire selects
//! ([`matcher`]), how an answer reads ([`answer`]) and how the answers of one step merge
//! ([`merge`]). Nothing here runs a process or reads a file.
//!
//! Codex borrows Claude Code's shape (event → matcher groups → handlers, the same stdin names and
//! answer keys), and where its rules are Claude Code's this dialect calls the Claude Code code
//! (the stdin builder, the one tolerant reader); where Codex differs — which answers it honours,
//! its strict schemas, exit 2 only with stderr, every hook at once, the last finisher's rewrite,
//! no de-duplication — the rules are written here.

pub mod answer;
pub mod files;
pub mod input;
pub mod matcher;
pub mod merge;
pub mod parse;
pub mod tools;

use crate::dialect::{Answer, Decision, Dialect, File, Hook, Parser, Place, Raw, Site, View};
use crate::envelope::tools::HostTools;
use crate::envelope::Envelope;
use crate::event::Event;
use serde_json::Value;
use std::time::Duration;

/// The variables Codex sets for plugin hooks; the host's values of these never reach a hook.
pub const VARIABLES: &[&str] = &["PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT", "PLUGIN_DATA", "CLAUDE_PLUGIN_DATA"];

pub struct Codex;

impl Dialect for Codex {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "Codex"
    }

    fn files(&self, place: &Place) -> Vec<File> {
        files::files(place)
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::new(parse::CodexParser::default())
    }

    fn event_name(&self, event: Event) -> Option<&'static str> {
        name_of(event)
    }

    fn event(&self, name: &str) -> Option<Event> {
        event_of(name)
    }

    fn can_block(&self, event: Event) -> bool {
        waits_for(event)
    }

    fn variables(&self) -> &'static [&'static str] {
        VARIABLES
    }

    fn view(&self, envelope: &Envelope, site: &Site) -> View {
        input::CodexInput::build(envelope, site.cwd, site.tools).into_view()
    }

    /// Codex's matchers against the event's field (a tool name with its aliases); UserPromptSubmit
    /// and Stop take every hook. Nothing else filters: no `if` rules, no de-duplication.
    fn select(&self, event: Event, hooks: &[&Hook], view: &View, _site: &Site) -> Vec<usize> {
        let Some(field) = matcher::matcher_field(event) else { return (0..hooks.len()).collect() };
        let value = view.get_str(field);
        let mut values: Vec<&str> = value.into_iter().collect();
        if field == "tool_name" {
            values.extend(value.map(matcher::aliases).unwrap_or_default());
        }
        let runs = |hook: &Hook| match &hook.matcher {
            crate::matcher::field::FieldMatcher::Any => true,
            m => values.iter().any(|v| m.matches(Some(v))),
        };
        (0..hooks.len()).filter(|i| runs(hooks[*i])).collect()
    }

    fn timeout(&self, hook: &Hook, _event: Event) -> Duration {
        hook.timeout.unwrap_or(DEFAULT_TIMEOUT)
    }

    fn hook_vars(&self, hook: &Hook) -> Vec<(&'static str, String)> {
        hook.plugin.as_ref().map(files::plugin_env).unwrap_or_default()
    }

    fn shell(&self, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        Some(shell(env("SHELL").as_deref()))
    }

    fn read(&self, event: Event, _hook: &Hook, raw: &Raw) -> Answer {
        answer::read(event, raw).into_answer()
    }

    fn merge(&self, event: Event, answers: &[Answer]) -> Decision {
        merge::merge(event, answers)
    }

    /// A Codex rewrite in the host's field names (an `apply_patch` back to the host's write or
    /// edit). One the host's tool cannot take is dropped: the host's input stays as it was,
    /// which is what Codex does with a hook whose answer it cannot apply.
    fn to_host_input(&self, envelope: &Envelope, host: &HostTools, input: Value) -> Value {
        let seen = input::CodexInput::build(envelope, std::path::Path::new("/"), host);
        let Some(tool) = &seen.host_tool else { return input };
        match tools::to_host(host, tool, seen.host_input.as_ref(), input.clone()) {
            Ok(v) => v,
            // The host's input as it was (untranslated, the view's own `tool_input` is it).
            Err(_) => seen.host_input.or_else(|| seen.fields.get("tool_input").cloned()).unwrap_or(input),
        }
    }
}

/// The dialect's name: the option, the trace's `dialect`, `oh-hooks check --codex`.
pub const NAME: &str = "codex";

/// Codex's ten events at the baseline oh-hooks follows (codex-cli 0.144–0.150), in Codex's own
/// order (its "display order": within a file, events in this order are configuration order),
/// each with the engine event it fires on.
pub const EVENTS: &[(&str, Event)] = &[
    ("PreToolUse", Event::PreToolUse),
    ("PermissionRequest", Event::PermissionRequest),
    ("PostToolUse", Event::PostToolUse),
    ("PreCompact", Event::PreCompact),
    ("PostCompact", Event::PostCompact),
    ("SessionStart", Event::SessionStart),
    ("UserPromptSubmit", Event::UserPromptSubmit),
    ("SubagentStart", Event::SubagentStart),
    ("SubagentStop", Event::SubagentStop),
    ("Stop", Event::TurnStop),
];

/// Events of later Codex releases (not in the baseline): a file naming one loads, with a warning
/// that those hooks do not run.
pub const LATER_EVENTS: &[&str] = &["SessionEnd", "Interrupt", "StopFailure", "PreModelRequest", "PostModelResponse"];

/// The engine event of a Codex event name.
pub fn event_of(name: &str) -> Option<Event> {
    EVENTS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

/// Codex's name of an engine event (`hook_event_name`), when Codex has it.
pub fn name_of(event: Event) -> Option<&'static str> {
    EVENTS.iter().find(|(_, e)| *e == event).map(|(n, _)| *n)
}

/// Whether a Codex hook may refuse or hold up this event, so `fire` waits for the Codex hooks:
/// a block (PreToolUse, PermissionRequest, UserPromptSubmit), "do not stop yet" (Stop,
/// SubagentStop) or `continue: false` before a compaction (PreCompact).
pub fn waits_for(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PermissionRequest
            | Event::UserPromptSubmit
            | Event::TurnStop
            | Event::SubagentStop
            | Event::PreCompact
    )
}

/// A handler's timeout when it gives none: Codex's 600 seconds.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// Hooks never wait longer than this, whatever the file says (as for every dialect).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// The shell a Codex command runs in: the user's shell, non-login, with `-c` (Codex core's
/// `derive_exec_args(.., login = false)`). The user's shell is `SHELL` from the hooks'
/// environment (options `env` over the host's) when it is an absolute path, else `/bin/sh`: a
/// relative or empty `SHELL` is not trusted to name a program.
pub fn shell(shell_var: Option<&str>) -> String {
    match shell_var {
        Some(s) if s.starts_with('/') && !s.contains('\0') => s.to_string(),
        _ => "/bin/sh".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_events_both_ways() {
        assert_eq!(EVENTS.len(), 10);
        for (n, e) in EVENTS {
            assert_eq!(event_of(n), Some(*e));
            assert_eq!(name_of(*e), Some(*n));
            // Codex uses Claude Code's names for the events they share.
            assert_eq!(crate::dialect::claude::events::name(*e), Some(*n));
        }
        assert_eq!(event_of("Stop"), Some(Event::TurnStop));
        assert_eq!(event_of("SessionEnd"), None);
        assert_eq!(event_of("preToolUse"), None);
        assert!(waits_for(Event::TurnStop) && !waits_for(Event::PostToolUse) && !waits_for(Event::SessionStart));
    }

    #[test]
    fn the_users_shell_non_login() {
        assert_eq!(shell(Some("/usr/bin/zsh")), "/usr/bin/zsh");
        assert_eq!(shell(Some("zsh")), "/bin/sh");
        assert_eq!(shell(Some("")), "/bin/sh");
        assert_eq!(shell(None), "/bin/sh");
    }
}
