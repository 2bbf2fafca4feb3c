#!/usr/bin/env python3
"""sessionStart / userPromptSubmitted context: the project's rules for the model."""
import json, os, sys

payload = json.load(sys.stdin)
print(json.dumps({"additionalContext": os.environ.get("CONTEXT", "Run the tests before you finish.")}))
