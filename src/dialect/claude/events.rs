//! Claude Code's event names (docs/dialects/claude.md "Claude Code hooks") and which events its hooks may block.

use crate::event::Event;

/// Claude Code's event names (docs/dialects/claude.md "Claude Code hooks"), in [`Event::ALL`] order except that `Stop` is
/// `turnStop`. openHarness's `turnStart` has no Claude Code event.
const CLAUDE_NAMES: &[(Event, &str)] = &[
    (Event::PreToolUse, "PreToolUse"),
    (Event::UserPromptSubmit, "UserPromptSubmit"),
    (Event::PermissionRequest, "PermissionRequest"),
    (Event::Elicitation, "Elicitation"),
    (Event::SessionStart, "SessionStart"),
    (Event::SessionEnd, "SessionEnd"),
    (Event::PostToolUse, "PostToolUse"),
    (Event::PostToolUseFailure, "PostToolUseFailure"),
    (Event::PostToolBatch, "PostToolBatch"),
    (Event::UserPromptExpansion, "UserPromptExpansion"),
    (Event::PermissionDenied, "PermissionDenied"),
    (Event::FileChanged, "FileChanged"),
    (Event::CwdChanged, "CwdChanged"),
    (Event::SubagentStart, "SubagentStart"),
    (Event::SubagentStop, "SubagentStop"),
    (Event::PreCompact, "PreCompact"),
    (Event::PostCompact, "PostCompact"),
    (Event::ConfigChange, "ConfigChange"),
    (Event::Notification, "Notification"),
    (Event::TurnStop, "Stop"),
    (Event::TaskCreated, "TaskCreated"),
    (Event::TaskCompleted, "TaskCompleted"),
    (Event::WorktreeCreate, "WorktreeCreate"),
    (Event::WorktreeRemove, "WorktreeRemove"),
    (Event::ElicitationResult, "ElicitationResult"),
    (Event::InstructionsLoaded, "InstructionsLoaded"),
    (Event::StopFailure, "StopFailure"),
    (Event::Setup, "Setup"),
    (Event::TeammateIdle, "TeammateIdle"),
    (Event::MessageDisplay, "MessageDisplay"),
    (Event::DirectoryAdded, "DirectoryAdded"),
    (Event::PreModelSwitch, "PreModelSwitch"),
    (Event::PostModelSwitch, "PostModelSwitch"),
];

/// The engine event of a Claude Code event name (`Stop` → `turnStop`).
pub fn event(name: &str) -> Option<Event> {
    CLAUDE_NAMES.iter().find(|(_, n)| *n == name).map(|(e, _)| *e)
}

/// Claude Code's name for this event (`hook_event_name`); `None` for `turnStart`.
pub fn name(event: Event) -> Option<&'static str> {
    CLAUDE_NAMES.iter().find(|(e, _)| *e == event).map(|(_, n)| *n)
}

/// Claude Code's name, else the engine's (for messages).
pub fn name_or_engine(event: Event) -> &'static str {
    name(event).unwrap_or(event.name())
}

/// Whether a Claude Code hook may block this event (the reference's "can block" column):
/// on these `fire` waits for the Claude Code hooks even where openHarness hooks cannot block.
pub fn can_block(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PermissionRequest
            | Event::UserPromptSubmit
            | Event::UserPromptExpansion
            | Event::TurnStop
            | Event::SubagentStop
            | Event::TaskCreated
            | Event::TaskCompleted
            | Event::TeammateIdle
            | Event::PostToolBatch
            | Event::PreCompact
            | Event::ConfigChange
            | Event::PreModelSwitch
            | Event::Elicitation
            | Event::ElicitationResult
            | Event::WorktreeCreate
            | Event::WorktreeRemove
    )
}

/// Whether `fire` waits for this event's Claude Code hooks (blocking for either dialect).
pub fn waits(event: Event) -> bool {
    event.is_blocking() || can_block(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_names_map_both_ways() {
        // Every event of 1.1 but turnStart; the events other dialects add (appended to
        // `Event::ALL`) have no Claude Code name.
        assert_eq!(CLAUDE_NAMES.len(), 33, "every event but turnStart");
        assert!(Event::ALL[..34].iter().all(|e| name(*e).is_some() || *e == Event::TurnStart));
        for (e, n) in CLAUDE_NAMES {
            assert_eq!(event(n), Some(*e));
            assert_eq!(name(*e), Some(*n));
        }
        assert_eq!(event("Stop"), Some(Event::TurnStop));
        assert_eq!(name(Event::TurnStart), None);
        assert_eq!(event("preToolUse"), None, "Claude Code names are PascalCase");
        assert!(can_block(Event::TurnStop) && !Event::TurnStop.is_blocking());
        assert!(!waits(Event::PostToolUse));
    }
}
