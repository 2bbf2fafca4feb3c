#!/usr/bin/env python3
"""postToolUse on Write: remind the model of the project's conventions after every edit."""
import json
import pathlib
import sys

json.load(sys.stdin)
conventions = pathlib.Path("CONVENTIONS.md")
if conventions.exists():
    print(json.dumps({"additional_context": conventions.read_text().strip()}))
