#!/usr/bin/env python3
"""BeforeAgent: the project's conventions as additionalContext (plain text would only be a
systemMessage for the user in gemini-cli)."""
import json
import os
import sys

json.load(sys.stdin)
path = os.path.join(os.environ["GEMINI_PROJECT_DIR"], "CONVENTIONS.md")
with open(path, encoding="utf-8") as f:
    rules = f.read().strip()
print(json.dumps({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": rules}}))
