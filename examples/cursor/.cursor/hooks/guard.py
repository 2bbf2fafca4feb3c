#!/usr/bin/env python3
"""beforeShellExecution: refuse destructive commands, ask before merging, allow the rest.

Cursor gives the command's full text in `command`; the answer is one flat JSON object.
With "failClosed": true in hooks.json, a crash of this script refuses the command too.
"""
import json
import re
import sys

command = json.load(sys.stdin).get("command", "")
if re.search(r"\brm\s+-[a-zA-Z]*[rf][a-zA-Z]*\s+(/|~)", command) or "git push --force" in command:
    print(json.dumps({
        "permission": "deny",
        "user_message": f"Blocked: {command}",
        "agent_message": "This command destroys data. Find a safer way, or ask the user to run it.",
    }))
elif re.search(r"\bgh\s+pr\s+merge\b", command):
    print(json.dumps({"permission": "ask", "user_message": "Merge a pull request?"}))
else:
    print(json.dumps({"permission": "allow"}))
