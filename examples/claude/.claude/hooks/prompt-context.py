#!/usr/bin/env python3
"""UserPromptSubmit hook, written for Claude Code: refuses prompts that carry an obvious secret
(JSON `decision: "block"`), otherwise prints the project's conventions as plain text, which
Claude Code (and oh-hooks) adds to the prompt as context."""
import json
import os
import re
import sys

data = json.load(sys.stdin)
prompt = data.get("prompt", "")
if re.search(r"(AKIA[0-9A-Z]{16}|-----BEGIN [A-Z ]*PRIVATE KEY-----)", prompt):
    print(json.dumps({"decision": "block",
                      "reason": "The prompt contains what looks like a credential; remove it and try again."}))
    sys.exit(0)

conventions = os.path.join(os.environ.get("CLAUDE_PROJECT_DIR", "."), "CONVENTIONS.md")
try:
    with open(conventions, encoding="utf-8") as f:
        print(f.read().strip())
except OSError:
    pass
