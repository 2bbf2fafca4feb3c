#!/usr/bin/env python3
"""Cursor beforeShellExecution guard: `command` on stdin, `permission` on stdout."""
import json
import sys

command = json.load(sys.stdin).get("command", "")
if command.startswith("sudo ") or " sudo " in command:
    print(json.dumps({"permission": "deny", "agent_message": "Cursor: sudo is refused", "user_message": "sudo is refused"}))
else:
    print(json.dumps({"permission": "allow"}))
