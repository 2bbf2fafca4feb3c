#!/usr/bin/env python3
"""A PreToolUse hook for Edit/Write in Claude Code's JSON style: deny edits to .env files,
ask before touching package-lock.json, say nothing otherwise (exit 0, no output)."""
import json
import os
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")


def answer(decision, reason):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "permissionDecision": decision,
                                             "permissionDecisionReason": reason}}))


if os.path.basename(path).startswith(".env"):
    answer("deny", f"{os.path.basename(path)} holds secrets")
elif os.path.basename(path) == "package-lock.json":
    answer("ask", "package-lock.json is generated; edit package.json instead?")
sys.exit(0)
