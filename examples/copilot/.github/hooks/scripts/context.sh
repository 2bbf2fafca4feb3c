#!/usr/bin/env bash
# userPromptSubmitted: the project's conventions reach the model as additionalContext.
cat >/dev/null
rules=$(tr '\n' ' ' < "${RULES:-CONVENTIONS.md}")
python3 -c 'import json, sys; print(json.dumps({"additionalContext": "Project conventions: " + sys.argv[1].strip()}))' "$rules"
