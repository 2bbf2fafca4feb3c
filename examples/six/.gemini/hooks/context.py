#!/usr/bin/env python3
"""Gemini CLI BeforeAgent: one line of context."""
import json
import sys

json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "Gemini CLI: explain each change."}}))
