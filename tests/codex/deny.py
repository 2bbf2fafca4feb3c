#!/usr/bin/env python3
"""A Codex PreToolUse guard answering in JSON: denies (permissionDecision "deny" with a reason) a
Bash command containing `rm -rf` and an apply_patch that touches a `.env` file; says nothing
otherwise. `deny.py EXTRA_JSON` adds the keys of EXTRA_JSON to the answer's top level (the suite
uses it for answers Codex's strict schema would drop)."""
import json
import sys

data = json.load(sys.stdin)
tool = data.get("tool_name", "")
command = data.get("tool_input", {}).get("command", "")
why = None
if tool == "Bash" and "rm -rf" in command:
    why = "rm -rf is not allowed here"
elif tool == "apply_patch" and any(l.startswith(("*** Add File: ", "*** Update File: ")) and l.rstrip().endswith(".env")
                                   for l in command.split("\n")):
    why = "secrets files are read-only"
if why:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                  "permissionDecisionReason": why}}
    if len(sys.argv) > 1:
        out.update(json.loads(sys.argv[1]))
    print(json.dumps(out))
