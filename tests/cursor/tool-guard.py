#!/usr/bin/env python3
"""A preToolUse guard: denies Shell calls with `rm -rf`, rewrites `ls` to `ls -la`, allows the rest."""
import json
import sys

data = json.load(sys.stdin)
tool = data.get("tool_name")
inp = data.get("tool_input") or {}
if tool == "Shell" and "rm -rf" in str(inp.get("command", "")):
    print(json.dumps({"permission": "deny", "agent_message": "rm -rf is not allowed here", "user_message": "blocked rm -rf"}))
elif tool == "Shell" and inp.get("command") == "ls":
    print(json.dumps({"permission": "allow", "updated_input": dict(inp, command="ls -la")}))
else:
    print(json.dumps({"permission": "allow"}))
