//! Cursor's events (docs/dialects/cursor.md, events): each Cursor name, the engine event it fires
//! with, and what its hooks may decide.
//!
//! Cursor's tool-specific events (`beforeShellExecution`, `beforeReadFile`, …) have no engine
//! event of their own: they fire with the generic tool event (`preToolUse`/`postToolUse`) when
//! the tool is of their kind, and a fire runs both the generic and the specific hooks, as Cursor
//! does (docs/envelope.md "Host tools").

use crate::envelope::tools::Kind;
use crate::event::Event;

/// How a Cursor event reads `permission` (Cursor's per-event output tables).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionSupport {
    /// The event has no `permission`.
    None,
    /// `allow`/`deny`; `ask` is accepted but not enforced (ignored).
    AllowDeny,
    /// `allow`/`deny`/`ask`, all enforced.
    AllowDenyAsk,
    /// `allow`/`deny`; `ask` "is not supported … and is treated as deny" (`subagentStart`).
    AskIsDeny,
}

/// One Cursor event.
#[derive(Debug, PartialEq, Eq)]
pub struct CursorEvent {
    /// As Cursor spells it (`hook_event_name`, the key in `hooks.json`).
    pub name: &'static str,
    /// The engine event it fires with.
    pub engine: Event,
    /// Tool-specific events: the tool kinds that raise it with `engine`. Empty: every fire of
    /// `engine` raises it.
    pub kinds: &'static [Kind],
    /// A hook can refuse what the event is about (a deny, exit 2, a `failClosed` failure).
    pub refuses: bool,
    /// `followup_message` continues the agent (`stop`, `subagentStop`).
    pub continues: bool,
    pub permission: PermissionSupport,
    /// What its `matcher` is tested against ([`Match`]).
    pub matcher: Match,
}

/// What an event's matcher is tested against (Cursor's "Matcher Configuration").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The tool under Cursor's name (`Shell`, `MCP:<tool>`).
    ToolName,
    /// The shell command's full text.
    Command,
    /// The MCP tool's own name.
    McpTool,
    /// The sub-agent's type (`subagent_type`).
    SubagentType,
    /// A value Cursor fixes for the event (`Read`, `Stop`, …).
    Fixed(&'static str),
    /// Cursor applies no matcher on the event: the hook always runs.
    Never,
}

const fn ev(name: &'static str, engine: Event) -> CursorEvent {
    CursorEvent {
        name,
        engine,
        kinds: &[],
        refuses: false,
        continues: false,
        permission: PermissionSupport::None,
        matcher: Match::Never,
    }
}

/// Every Cursor event; the generic one of an engine event before its tool-specific ones (the
/// order of a fire's traces).
pub const ALL: &[CursorEvent] = &[
    CursorEvent { matcher: Match::Never, ..ev("sessionStart", Event::SessionStart) },
    ev("sessionEnd", Event::SessionEnd),
    CursorEvent {
        refuses: true,
        permission: PermissionSupport::AllowDeny,
        matcher: Match::ToolName,
        ..ev("preToolUse", Event::PreToolUse)
    },
    CursorEvent {
        kinds: &[Kind::Shell],
        refuses: true,
        permission: PermissionSupport::AllowDenyAsk,
        matcher: Match::Command,
        ..ev("beforeShellExecution", Event::PreToolUse)
    },
    CursorEvent {
        kinds: &[Kind::Mcp],
        refuses: true,
        permission: PermissionSupport::AllowDenyAsk,
        matcher: Match::McpTool,
        ..ev("beforeMCPExecution", Event::PreToolUse)
    },
    CursorEvent {
        kinds: &[Kind::Read],
        refuses: true,
        permission: PermissionSupport::AllowDeny,
        matcher: Match::Fixed("Read"),
        ..ev("beforeReadFile", Event::PreToolUse)
    },
    CursorEvent { matcher: Match::ToolName, ..ev("postToolUse", Event::PostToolUse) },
    CursorEvent { kinds: &[Kind::Shell], matcher: Match::Command, ..ev("afterShellExecution", Event::PostToolUse) },
    CursorEvent { kinds: &[Kind::Mcp], matcher: Match::McpTool, ..ev("afterMCPExecution", Event::PostToolUse) },
    CursorEvent {
        kinds: &[Kind::Write, Kind::Edit],
        matcher: Match::Fixed("Write"),
        ..ev("afterFileEdit", Event::PostToolUse)
    },
    CursorEvent { matcher: Match::ToolName, ..ev("postToolUseFailure", Event::PostToolUseFailure) },
    CursorEvent {
        refuses: true,
        matcher: Match::Fixed("UserPromptSubmit"),
        ..ev("beforeSubmitPrompt", Event::UserPromptSubmit)
    },
    ev("preCompact", Event::PreCompact),
    CursorEvent { continues: true, matcher: Match::Fixed("Stop"), ..ev("stop", Event::TurnStop) },
    CursorEvent {
        refuses: true,
        permission: PermissionSupport::AskIsDeny,
        matcher: Match::SubagentType,
        ..ev("subagentStart", Event::SubagentStart)
    },
    CursorEvent { continues: true, matcher: Match::SubagentType, ..ev("subagentStop", Event::SubagentStop) },
    CursorEvent { matcher: Match::Fixed("AgentResponse"), ..ev("afterAgentResponse", Event::AfterAgentResponse) },
    CursorEvent { matcher: Match::Fixed("AgentThought"), ..ev("afterAgentThought", Event::AfterAgentThought) },
    CursorEvent {
        refuses: true,
        permission: PermissionSupport::AllowDeny,
        ..ev("beforeTabFileRead", Event::BeforeTabFileRead)
    },
    ev("afterTabFileEdit", Event::AfterTabFileEdit),
    ev("workspaceOpen", Event::WorkspaceOpen),
];

impl CursorEvent {
    /// The Cursor event of `name` as written in `hooks.json` (exact, case-sensitive).
    pub fn by_name(name: &str) -> Option<&'static CursorEvent> {
        ALL.iter().find(|e| e.name == name)
    }

    /// Whether a fire of [`Self::engine`] whose tool is of `kind` raises this event.
    pub fn raised_by(&self, kind: Option<Kind>) -> bool {
        self.kinds.is_empty() || kind.is_some_and(|k| self.kinds.contains(&k))
    }

    pub fn is_tool_specific(&self) -> bool {
        !self.kinds.is_empty()
    }

    /// A refusal of this event's hooks carries a permission decision (`deny`) in the outcome;
    /// a refused prompt does not (`allowed: false` only).
    pub fn has_permission(&self) -> bool {
        self.permission != PermissionSupport::None
    }
}

/// Whether `fire` waits for the Cursor hooks of `event` although openHarness hooks cannot
/// block it: some Cursor event of it can refuse or continue the agent.
pub fn waits(event: Event) -> bool {
    ALL.iter().any(|e| e.engine == event && (e.refuses || e.continues))
}

/// The Cursor events an engine event raises (generic first), for `oh-hooks check`.
pub fn of_engine(event: Event) -> impl Iterator<Item = &'static CursorEvent> {
    ALL.iter().filter(move |e| e.engine == event)
}

/// A hint for a name Cursor does not dispatch: the Cursor spelling of a Claude Code or
/// openHarness name (`PreToolUse`, `userPromptSubmit` → `beforeSubmitPrompt`).
pub fn suggest(name: &str) -> Option<&'static str> {
    let engine =
        crate::dialect::claude::events::event(name).or_else(|| Event::from_name(name)).or_else(|| Event::suggest(name));
    if let Some(e) = engine.and_then(|e| ALL.iter().find(|c| c.engine == e && !c.is_tool_specific())) {
        return Some(e.name);
    }
    let folded: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).flat_map(char::to_lowercase).collect();
    ALL.iter().find(|e| e.name.to_lowercase() == folded).map(|e| e.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_twenty_one_events_map_as_the_reference_says() {
        assert_eq!(ALL.len(), 21);
        let names: Vec<_> = ALL.iter().map(|e| e.name).collect();
        for n in [
            "sessionStart",
            "preToolUse",
            "postToolUse",
            "postToolUseFailure",
            "beforeShellExecution",
            "afterShellExecution",
            "beforeMCPExecution",
            "afterMCPExecution",
            "beforeReadFile",
            "afterFileEdit",
            "beforeSubmitPrompt",
            "preCompact",
            "stop",
            "subagentStart",
            "subagentStop",
            "sessionEnd",
            "afterAgentResponse",
            "afterAgentThought",
            "beforeTabFileRead",
            "afterTabFileEdit",
            "workspaceOpen",
        ] {
            assert!(names.contains(&n), "{n}");
        }
        let refusing: Vec<_> = ALL.iter().filter(|e| e.refuses).map(|e| e.name).collect();
        assert_eq!(
            refusing,
            [
                "preToolUse",
                "beforeShellExecution",
                "beforeMCPExecution",
                "beforeReadFile",
                "beforeSubmitPrompt",
                "subagentStart",
                "beforeTabFileRead"
            ]
        );
        let continuing: Vec<_> = ALL.iter().filter(|e| e.continues).map(|e| e.name).collect();
        assert_eq!(continuing, ["stop", "subagentStop"]);
        assert_eq!(CursorEvent::by_name("stop").unwrap().engine, Event::TurnStop);
        assert_eq!(CursorEvent::by_name("beforeSubmitPrompt").unwrap().engine, Event::UserPromptSubmit);
        assert_eq!(CursorEvent::by_name("workspaceOpen").unwrap().engine, Event::WorkspaceOpen);
        assert_eq!(CursorEvent::by_name("PreToolUse"), None, "names are exact");
    }

    #[test]
    fn tool_specific_events_ride_on_the_generic_ones() {
        let pre: Vec<_> = of_engine(Event::PreToolUse).map(|e| e.name).collect();
        assert_eq!(pre, ["preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"]);
        let shell = CursorEvent::by_name("beforeShellExecution").unwrap();
        assert!(shell.raised_by(Some(Kind::Shell)) && !shell.raised_by(Some(Kind::Read)) && !shell.raised_by(None));
        let generic = CursorEvent::by_name("preToolUse").unwrap();
        assert!(generic.raised_by(None) && generic.raised_by(Some(Kind::Mcp)));
        let edit = CursorEvent::by_name("afterFileEdit").unwrap();
        assert!(edit.raised_by(Some(Kind::Write)) && edit.raised_by(Some(Kind::Edit)));
        assert!(waits(Event::SubagentStart) && waits(Event::TurnStop) && waits(Event::BeforeTabFileRead));
        assert!(!waits(Event::PostToolUse) && !waits(Event::SessionStart) && !waits(Event::PreCompact));
    }

    #[test]
    fn foreign_spellings_get_a_hint() {
        assert_eq!(suggest("PreToolUse"), Some("preToolUse"));
        assert_eq!(suggest("UserPromptSubmit"), Some("beforeSubmitPrompt"));
        assert_eq!(suggest("userPromptSubmit"), Some("beforeSubmitPrompt"));
        assert_eq!(suggest("Stop"), Some("stop"));
        assert_eq!(suggest("beforeshellexecution"), Some("beforeShellExecution"));
        assert_eq!(suggest("nonsense"), None);
    }
}
