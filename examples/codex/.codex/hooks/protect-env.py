#!/usr/bin/env python3
"""PreToolUse guard, written for Codex: file edits reach Codex hooks as `apply_patch` with the
patch text in tool_input.command (the `Edit|Write` matcher matches apply_patch too). Deny any
patch that adds or updates a .env file."""
import json
import sys

data = json.load(sys.stdin)
patch = data["tool_input"].get("command", "")
for line in patch.splitlines():
    for head in ("*** Add File: ", "*** Update File: "):
        if line.startswith(head) and line[len(head):].split("/")[-1].startswith(".env"):
            print(json.dumps({"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": f"{line[len(head):]} holds secrets; edit it by hand."}}))
            sys.exit(0)
