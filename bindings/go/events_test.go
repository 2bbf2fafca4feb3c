package ohhooks

// The Event* constants against the engine: every one is an event it knows (a misspelt constant
// would come back as unknown_event).

import (
	"context"
	"testing"
)

func TestEventConstants(t *testing.T) {
	h, err := New(Options{Config: map[string]any{"hooks": map[string]any{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	events := []string{
		EventPreToolUse, EventUserPromptSubmit, EventPermissionRequest, EventElicitation, EventSessionStart,
		EventSessionEnd, EventPostToolUse, EventPostToolUseFailure, EventPostToolBatch, EventUserPromptExpansion,
		EventPermissionDenied, EventFileChanged, EventCwdChanged, EventSubagentStart, EventSubagentStop,
		EventPreCompact, EventPostCompact, EventConfigChange, EventNotification, EventTurnStart, EventTurnStop,
		EventTaskCreated, EventTaskCompleted, EventWorktreeCreate, EventWorktreeRemove, EventElicitationResult,
		EventInstructionsLoaded, EventStopFailure, EventSetup, EventTeammateIdle, EventMessageDisplay,
		EventDirectoryAdded, EventPreModelSwitch, EventPostModelSwitch,
		EventBeforeModel, EventAfterModel, EventBeforeToolSelection,
	}
	for _, e := range events {
		out, err := h.Fire(context.Background(), Envelope{Event: e})
		if err != nil || out.Error != nil {
			t.Errorf("Event constant %q: %v %+v", e, err, out.Error)
		}
	}
}
