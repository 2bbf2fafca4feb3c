#!/usr/bin/env python3
"""A Copilot guard in python3: file writes only under src/ (reads `path` from toolArgs or
tool_input, Copilot's field name in both payloads), and no secrets in created files."""
import json, sys

payload = json.load(sys.stdin)
args = payload.get("toolArgs", payload.get("tool_input")) or {}
if isinstance(args, str):  # Copilot CLIs before late August 2026 sent a JSON string
    args = json.loads(args)
tool = payload.get("toolName", payload.get("tool_name"))
path = args.get("path", "")
if tool in ("create", "edit", "Write", "Edit") and not path.startswith("src/"):
    print(json.dumps({"permissionDecision": "deny",
                      "permissionDecisionReason": f"edits only under src/, not {path}"}))
elif "password=" in args.get("file_text", ""):
    print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "a secret"}))
