#!/usr/bin/env python3
"""A Stop hook that keeps Claude working until the tests were run, and that does not loop:
when Claude is already continuing because of a Stop hook (`stop_hook_active`), it lets it stop."""
import json
import sys

data = json.load(sys.stdin)
if data.get("stop_hook_active"):
    sys.exit(0)
if "tests pass" not in data.get("last_assistant_message", ""):
    print(json.dumps({"decision": "block", "reason": "Run the test suite before stopping."}))
sys.exit(0)
