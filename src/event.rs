//! The events of docs/config.md "Events" (and the seven of docs/dialects/claude.md "Claude Code hooks" that only Claude Code has) and which of them
//! can block. Each dialect's names for them are in its folder (`dialect/<name>/events.rs`).

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

            /// The event named `name` (its exact camelCase bytes). One comparison per event, each
            /// of a known length, which the compiler writes as a length test and a few loads (a
            /// search over [`Event::ALL`] called `memcmp` for the name of the length).
            pub fn from_bytes(name: &[u8]) -> Option<Event> {
                $(if name == $name.as_bytes() {
                    return Some(Event::$variant);
                })*
                None
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
    // Gemini CLI: model-level events no other harness has (docs/dialects/gemini.md "Gemini CLI hooks").
    BeforeModel = "beforeModel", false;
    AfterModel = "afterModel", false;
    BeforeToolSelection = "beforeToolSelection", false;
    // Cursor: its events with no engine event before (docs/dialects/cursor.md). None blocks for
    // openHarness hooks; `beforeTabFileRead` can be refused by a Cursor hook, so `fire` waits
    // for the Cursor hooks there.
    AfterAgentResponse = "afterAgentResponse", false;
    AfterAgentThought = "afterAgentThought", false;
    BeforeTabFileRead = "beforeTabFileRead", false;
    AfterTabFileEdit = "afterTabFileEdit", false;
    WorkspaceOpen = "workspaceOpen", false;
    // copilot: GitHub Copilot's events with no engine event before it (docs/dialects/copilot.md).
    UserPromptTransformed = "userPromptTransformed", false;
    PreMcpToolCall = "preMcpToolCall", false;
    ErrorOccurred = "errorOccurred", false;
}

impl Event {
    pub const COUNT: usize = Event::ALL.len();

    pub fn from_name(name: &str) -> Option<Event> {
        Event::from_bytes(name.as_bytes())
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
    fn events_four_blocking() {
        // 34 of openHarness and Claude Code, then the dialects' own: Cursor 5, Gemini CLI 3,
        // Copilot 3.
        assert_eq!(Event::COUNT, 45);
        let blocking: Vec<_> = Event::ALL.iter().filter(|e| e.is_blocking()).map(|e| e.name()).collect();
        assert_eq!(blocking, ["preToolUse", "userPromptSubmit", "permissionRequest", "elicitation"]);
        for (i, e) in Event::ALL.iter().enumerate() {
            assert_eq!(e.index(), i);
            assert_eq!(Event::from_name(e.name()), Some(*e));
        }
    }

    #[test]
    fn suggestions() {
        assert_eq!(Event::suggest("PreToolUse"), Some(Event::PreToolUse));
        assert_eq!(Event::suggest("post_tool_use"), Some(Event::PostToolUse));
        assert_eq!(Event::suggest("nonsense"), None);
    }
}
