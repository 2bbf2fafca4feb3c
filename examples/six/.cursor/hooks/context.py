#!/usr/bin/env python3
"""Cursor beforeSubmitPrompt: the prompt goes on, with one line of context."""
import json
import sys

json.load(sys.stdin)
print(json.dumps({"continue": True, "additional_context": "Cursor: format with rustfmt."}))
