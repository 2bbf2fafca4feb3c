#!/usr/bin/env python3
"""Copilot preToolUse guard: `toolArgs` (an object, or JSON text in older CLIs) on stdin."""
import json
import sys

args = json.load(sys.stdin).get("toolArgs") or {}
if isinstance(args, str):
    args = json.loads(args)
if "chmod 777" in args.get("command", ""):
    print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "Copilot: chmod 777 is refused"}))
