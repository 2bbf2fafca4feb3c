#!/usr/bin/env python3
"""Gemini CLI BeforeTool guard: `tool_input` on stdin, `decision` on stdout."""
import json
import sys

command = json.load(sys.stdin).get("tool_input", {}).get("command", "")
if "mkfs" in command:
    print(json.dumps({"decision": "deny", "reason": "Gemini CLI: formatting a disk is refused"}))
else:
    print("{}")
