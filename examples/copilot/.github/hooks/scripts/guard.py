#!/usr/bin/env python3
"""preToolUse guard (Copilot's camelCase payload): `toolArgs` is an object in current CLIs and
was a JSON string before, so both are read."""
import json
import sys

payload = json.load(sys.stdin)
tool = payload.get("toolName")
args = payload.get("toolArgs") or {}
if isinstance(args, str):
    args = json.loads(args)


def deny(reason):
    print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason}))
    sys.exit(0)


if tool == "bash":
    command = args.get("command", "")
    if "rm -rf" in command:
        deny(f"Blocked: `{command}` deletes recursively.")
    if "git push" in command and "main" in command:
        deny("Blocked: push to a branch and open a pull request instead of pushing to main.")
elif tool in ("create", "edit"):
    path = args.get("path", "")
    if not path.startswith("src/"):
        deny(f"Blocked: files may change only under src/, not {path}.")
print(json.dumps({"permissionDecision": "allow"}))
