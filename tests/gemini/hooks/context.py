#!/usr/bin/env python3
"""A Gemini CLI context hook: SessionStart, BeforeAgent and AfterTool answers carry
hookSpecificOutput.additionalContext naming the event and what it saw."""
import json
import sys

data = json.load(sys.stdin)
event = data["hook_event_name"]
seen = data.get("source") or data.get("prompt") or data.get("tool_name") or ""
print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": f"{event} saw {seen}"}}))
