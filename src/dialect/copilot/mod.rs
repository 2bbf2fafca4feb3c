//! The GitHub Copilot dialect (README "GitHub Copilot hooks"): hooks written for the Copilot CLI
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

use crate::event::Event;

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
