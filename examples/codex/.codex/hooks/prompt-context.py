#!/usr/bin/env python3
"""UserPromptSubmit hook, written for Codex: plain stdout becomes context for the model."""
import json
import pathlib
import sys

json.load(sys.stdin)
print(pathlib.Path("CONVENTIONS.md").read_text().strip())
