#!/usr/bin/env python3
"""A Codex Stop hook: keeps the turn going (`decision: "block"` with the next prompt as the
reason) until the file named by argv[1] exists; once it does, lets the turn end (no output).
`stop_hook_active` is true after a Stop hook has already blocked once in this turn: then it
lets the turn end too, as real stop gates do to avoid a loop."""
import json
import os
import sys

data = json.load(sys.stdin)
if os.path.exists(sys.argv[1]) or data.get("stop_hook_active"):
    sys.exit(0)
print(json.dumps({"decision": "block", "reason": "Run the tests before you stop: " + sys.argv[1] + " is missing."}))
