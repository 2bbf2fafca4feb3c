#!/usr/bin/env python3
"""openHarness preToolUse guard (jsonIO): the envelope on stdin, a decision on stdout."""
import json
import sys

envelope = json.load(sys.stdin)
command = (envelope.get("toolInput") or {}).get("command", "")
if "| sh" in command or "|sh" in command:
    print(json.dumps({"decision": "deny", "reason": "openHarness: piping a download into a shell is refused"}))
else:
    print("{}")
