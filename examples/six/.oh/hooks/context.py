#!/usr/bin/env python3
"""openHarness userPromptSubmit (jsonIO): one line of context."""
import json
import sys

json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"additionalContext": "openHarness: run make test before a commit."}}))
