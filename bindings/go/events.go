// Event names for Envelope.Event, like the Code* and Decision* ones: the openHarness events
// the engine knows. The first four are blocking (a hook can deny them); the others are observed.

package ohhooks

// Event names.
const (
	EventPreToolUse          = "preToolUse"
	EventUserPromptSubmit    = "userPromptSubmit"
	EventPermissionRequest   = "permissionRequest"
	EventElicitation         = "elicitation"
	EventSessionStart        = "sessionStart"
	EventSessionEnd          = "sessionEnd"
	EventPostToolUse         = "postToolUse"
	EventPostToolUseFailure  = "postToolUseFailure"
	EventPostToolBatch       = "postToolBatch"
	EventUserPromptExpansion = "userPromptExpansion"
	EventPermissionDenied    = "permissionDenied"
	EventFileChanged         = "fileChanged"
	EventCwdChanged          = "cwdChanged"
	EventSubagentStart       = "subagentStart"
	EventSubagentStop        = "subagentStop"
	EventPreCompact          = "preCompact"
	EventPostCompact         = "postCompact"
	EventConfigChange        = "configChange"
	EventNotification        = "notification"
	EventTurnStart           = "turnStart"
	EventTurnStop            = "turnStop"
	EventTaskCreated         = "taskCreated"
	EventTaskCompleted       = "taskCompleted"
	EventWorktreeCreate      = "worktreeCreate"
	EventWorktreeRemove      = "worktreeRemove"
	EventElicitationResult   = "elicitationResult"
	EventInstructionsLoaded  = "instructionsLoaded"
	// Claude Code's events that openHarness has no name for (docs/dialects/claude.md "Claude Code hooks").
	EventStopFailure     = "stopFailure"
	EventSetup           = "setup"
	EventTeammateIdle    = "teammateIdle"
	EventMessageDisplay  = "messageDisplay"
	EventDirectoryAdded  = "directoryAdded"
	EventPreModelSwitch  = "preModelSwitch"
	EventPostModelSwitch = "postModelSwitch"
	// Gemini CLI's model events (docs/dialects/gemini.md).
	EventBeforeModel         = "beforeModel"
	EventAfterModel          = "afterModel"
	EventBeforeToolSelection = "beforeToolSelection"
	// Cursor's events with no engine event before (docs/dialects/cursor.md).
	EventAfterAgentResponse = "afterAgentResponse"
	EventAfterAgentThought  = "afterAgentThought"
	EventBeforeTabFileRead  = "beforeTabFileRead"
	EventAfterTabFileEdit   = "afterTabFileEdit"
	EventWorkspaceOpen      = "workspaceOpen"
)
