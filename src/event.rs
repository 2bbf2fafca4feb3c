//! The events of README "Events" (and the seven of README "Claude Code hooks" that only Claude Code has), which of them
//! can block, and how Claude Code names them and decides on them.

use std::fmt;

macro_rules! events {
    ($($variant:ident = $name:literal, $blocking:literal;)*) => {
        /// A hook event. The discriminant indexes per-event tables (`Event::COUNT` entries).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Event { $($variant),* }

        impl Event {
            /// Every event, in the order of the contract's table (blocking ones first).
            pub const ALL: &'static [Event] = &[$(Event::$variant),*];

            /// The exact camelCase name used in configs and envelopes.
            pub fn name(self) -> &'static str {
                match self { $(Event::$variant => $name),* }
            }

            /// Whether hooks of this event may deny (`allowed: false`).
            pub fn is_blocking(self) -> bool {
                match self { $(Event::$variant => $blocking),* }
            }
        }
    };
}

events! {
    PreToolUse = "preToolUse", true;
    UserPromptSubmit = "userPromptSubmit", true;
    PermissionRequest = "permissionRequest", true;
    Elicitation = "elicitation", true;
    SessionStart = "sessionStart", false;
    SessionEnd = "sessionEnd", false;
    PostToolUse = "postToolUse", false;
    PostToolUseFailure = "postToolUseFailure", false;
    PostToolBatch = "postToolBatch", false;
    UserPromptExpansion = "userPromptExpansion", false;
    PermissionDenied = "permissionDenied", false;
    FileChanged = "fileChanged", false;
    CwdChanged = "cwdChanged", false;
    SubagentStart = "subagentStart", false;
    SubagentStop = "subagentStop", false;
    PreCompact = "preCompact", false;
    PostCompact = "postCompact", false;
    ConfigChange = "configChange", false;
    Notification = "notification", false;
    TurnStart = "turnStart", false;
    TurnStop = "turnStop", false;
    TaskCreated = "taskCreated", false;
    TaskCompleted = "taskCompleted", false;
    WorktreeCreate = "worktreeCreate", false;
    WorktreeRemove = "worktreeRemove", false;
    ElicitationResult = "elicitationResult", false;
    InstructionsLoaded = "instructionsLoaded", false;
    StopFailure = "stopFailure", false;
    Setup = "setup", false;
    TeammateIdle = "teammateIdle", false;
    MessageDisplay = "messageDisplay", false;
    DirectoryAdded = "directoryAdded", false;
    PreModelSwitch = "preModelSwitch", false;
    PostModelSwitch = "postModelSwitch", false;
    // copilot: GitHub Copilot's events with no engine event before it (README "GitHub Copilot hooks").
    UserPromptTransformed = "userPromptTransformed", false;
    PreMcpToolCall = "preMcpToolCall", false;
    ErrorOccurred = "errorOccurred", false;
}

impl Event {
    pub const COUNT: usize = Event::ALL.len();

    pub fn from_name(name: &str) -> Option<Event> {
        Event::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// The event a misspelt name most likely meant: same letters ignoring case, `_` and `-`
    /// (`PreToolUse`, `pre_tool_use` → `preToolUse`).
    pub fn suggest(name: &str) -> Option<Event> {
        let wanted = fold(name);
        Event::ALL.iter().copied().find(|e| fold(e.name()) == wanted)
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// Claude Code's event names (README "Claude Code hooks"), in [`Event::ALL`] order except that `Stop` is
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

impl Event {
    /// The engine event of a Claude Code event name (`Stop` → `turnStop`).
    pub fn from_claude_name(name: &str) -> Option<Event> {
        CLAUDE_NAMES.iter().find(|(_, n)| *n == name).map(|(e, _)| *e)
    }

    /// Claude Code's name for this event (`hook_event_name`); `None` for `turnStart`.
    pub fn claude_name(self) -> Option<&'static str> {
        CLAUDE_NAMES.iter().find(|(e, _)| *e == self).map(|(_, n)| *n)
    }

    /// Whether a Claude Code hook may block this event (the reference's "can block" column):
    /// on these `fire` waits for the Claude Code hooks even where openHarness hooks cannot block.
    pub fn claude_can_block(self) -> bool {
        matches!(
            self,
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
    pub fn waits_for_claude(self) -> bool {
        self.is_blocking() || self.claude_can_block()
    }
}

fn fold(name: &str) -> String {
    name.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_four_events_four_blocking() {
        // 34 of version 1.1, and Copilot's three of version 1.2.
        assert_eq!(Event::COUNT, 37);
        let blocking: Vec<_> = Event::ALL.iter().filter(|e| e.is_blocking()).map(|e| e.name()).collect();
        assert_eq!(blocking, ["preToolUse", "userPromptSubmit", "permissionRequest", "elicitation"]);
        for (i, e) in Event::ALL.iter().enumerate() {
            assert_eq!(e.index(), i);
            assert_eq!(Event::from_name(e.name()), Some(*e));
        }
    }

    #[test]
    fn claude_names_map_both_ways() {
        // Every event but turnStart and the ones only another dialect has (version 1.2).
        let others = [Event::UserPromptTransformed, Event::PreMcpToolCall, Event::ErrorOccurred];
        assert_eq!(CLAUDE_NAMES.len(), Event::COUNT - 1 - others.len(), "every event but turnStart");
        for (e, n) in CLAUDE_NAMES {
            assert_eq!(Event::from_claude_name(n), Some(*e));
            assert_eq!(e.claude_name(), Some(*n));
        }
        assert_eq!(Event::from_claude_name("Stop"), Some(Event::TurnStop));
        assert_eq!(Event::TurnStart.claude_name(), None);
        assert_eq!(Event::from_claude_name("preToolUse"), None, "Claude Code names are PascalCase");
        assert!(Event::TurnStop.claude_can_block() && !Event::TurnStop.is_blocking());
        assert!(!Event::PostToolUse.waits_for_claude());
    }

    #[test]
    fn suggestions() {
        assert_eq!(Event::suggest("PreToolUse"), Some(Event::PreToolUse));
        assert_eq!(Event::suggest("post_tool_use"), Some(Event::PostToolUse));
        assert_eq!(Event::suggest("nonsense"), None);
    }
}
