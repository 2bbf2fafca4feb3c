#!/usr/bin/env python3
"""Copilot userPromptSubmitted: one line of context."""
import json
import sys

json.load(sys.stdin)
print(json.dumps({"additionalContext": "Copilot: open a pull request, never push to main."}))
