//! The Gemini CLI dialect (README "Gemini CLI hooks", docs/dialects/gemini.md): the `hooks` key of
//! `~/.gemini/settings.json` and `<cwd>/.gemini/settings.json`, their `hooksConfig`, and
//! extensions' `hooks/hooks.json`, run as gemini-cli runs them.
//!
//! gemini-cli's code (`packages/core/src/hooks/`) is what its users' hooks were tested against,
//! and where its documentation says otherwise the code wins: exit 1 is a warning, any other
//! non-zero exit with text denies, JSON is obeyed on every exit code, `allow` approves nothing,
//! and a `tool_input` rewrite replaces the tool's input. Everything here is pure: no I/O, no
//! traces; the engine runs the hooks and hands each one's [`answer::Raw`] to [`answer::read`].

pub mod answer;
pub mod files;
pub mod merge;
pub mod tools;
pub mod view;

use crate::event::Event;

/// The option name, the trace's `dialect` and the `oh-hooks check --gemini` flag.
pub const NAME: &str = "gemini";

/// gemini-cli's event names and the engine events they fire on (`hookTypes` `HookEventName`).
pub const EVENTS: &[(&str, Event)] = &[
    ("BeforeTool", Event::PreToolUse),
    ("AfterTool", Event::PostToolUse),
    ("BeforeAgent", Event::UserPromptSubmit),
    ("AfterAgent", Event::TurnStop),
    ("SessionStart", Event::SessionStart),
    ("SessionEnd", Event::SessionEnd),
    ("PreCompress", Event::PreCompact),
    ("Notification", Event::Notification),
    ("BeforeModel", Event::BeforeModel),
    ("AfterModel", Event::AfterModel),
    ("BeforeToolSelection", Event::BeforeToolSelection),
];

/// The engine event of a Gemini CLI event name (exact: `beforeTool` is not one).
pub fn event_of(name: &str) -> Option<Event> {
    EVENTS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

/// Gemini CLI's name for an engine event (`hook_event_name`), when it has one.
pub fn name_of(event: Event) -> Option<&'static str> {
    EVENTS.iter().find(|(_, e)| *e == event).map(|(n, _)| *n)
}

/// Whether a Gemini hook can refuse on this event: the tool events, the prompt, the model
/// events, and the stop (where a deny means "go on with this"). On these `fire` waits for the
/// gemini hooks even where openHarness hooks cannot block.
pub fn can_block(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PostToolUse
            | Event::UserPromptSubmit
            | Event::TurnStop
            | Event::BeforeModel
            | Event::AfterModel
    )
}

/// Whether `fire` waits for this event's gemini hooks: where they can refuse, and where the
/// harness uses what they return (SessionStart's context, BeforeToolSelection's tool config).
pub fn waits(event: Event) -> bool {
    can_block(event) || matches!(event, Event::SessionStart | Event::BeforeToolSelection)
}

/// How a matcher is tested on this event (`hookPlanner.ts` `matchesContext`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchOn {
    /// A JavaScript regex on the Gemini tool name (literal when it does not compile).
    ToolName,
    /// Exact comparison with this stdin field (`source`, `reason`, `trigger`).
    Exact(&'static str),
    /// No match context: every matcher matches.
    Nothing,
}

pub fn match_on(event: Event) -> MatchOn {
    match event {
        Event::PreToolUse | Event::PostToolUse => MatchOn::ToolName,
        Event::SessionStart => MatchOn::Exact("source"),
        Event::SessionEnd => MatchOn::Exact("reason"),
        Event::PreCompact => MatchOn::Exact("trigger"),
        _ => MatchOn::Nothing,
    }
}

/// Which of an event's hooks run on one fire, in order, and whether they run one after another
/// (`hookPlanner.ts` `createExecutionPlan`): the hooks whose matcher selects `value` (see
/// [`files::GeminiHook::selects`]), identical ones (same `name:command`) once, sequential when
/// any of them comes from a group with `sequential: true`.
pub fn plan<'a>(event: Event, hooks: impl IntoIterator<Item = &'a files::GeminiHook>, value: Option<&str>) -> (Vec<usize>, bool) {
    let mut seen = std::collections::HashSet::new();
    let mut runs = Vec::new();
    let mut sequential = false;
    for (i, hook) in hooks.into_iter().enumerate() {
        if hook.selects(event, value) && seen.insert(hook.key()) {
            sequential |= hook.sequential;
            runs.push(i);
        }
    }
    (runs, sequential)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eleven_events_map_both_ways() {
        assert_eq!(EVENTS.len(), 11);
        for (n, e) in EVENTS {
            assert_eq!(event_of(n), Some(*e));
            assert_eq!(name_of(*e), Some(*n));
        }
        assert_eq!(event_of("PreToolUse"), None, "Claude Code's names are not Gemini's");
        assert_eq!(event_of("beforeTool"), None);
        assert_eq!(name_of(Event::PermissionRequest), None);
        assert!(can_block(Event::TurnStop) && !can_block(Event::SessionStart));
        assert!(waits(Event::BeforeToolSelection) && !waits(Event::Notification));
    }
}
