#!/usr/bin/env python3
"""Codex PreToolUse guard: exit 2 blocks, stderr is the reason."""
import json
import sys

command = json.load(sys.stdin).get("tool_input", {}).get("command", "")
if "rm -rf" in command or "rm -fr" in command:
    print("Codex: recursive deletes are refused", file=sys.stderr)
    sys.exit(2)
