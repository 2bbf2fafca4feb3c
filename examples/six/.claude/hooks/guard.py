#!/usr/bin/env python3
"""Claude Code PreToolUse guard: exit 2 blocks, stderr is the reason."""
import json
import sys

command = json.load(sys.stdin).get("tool_input", {}).get("command", "")
if "push --force" in command or "push -f" in command:
    print("Claude Code: force pushes are refused", file=sys.stderr)
    sys.exit(2)
