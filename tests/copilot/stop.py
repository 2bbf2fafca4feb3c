#!/usr/bin/env python3
"""agentStop: keep the agent going until a marker file says the tests pass (stop_hook_active
ends a loop)."""
import json, os, sys

payload = json.load(sys.stdin)
if payload.get("stop_hook_active"):
    sys.exit(0)
if not os.path.exists(os.environ.get("MARKER", "tests-pass")):
    print(json.dumps({"decision": "block", "reason": "The tests have not passed yet: run them."}))
