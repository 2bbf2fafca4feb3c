#!/bin/sh
# userPromptSubmit, jsonIO: prepend the project's standing rules to every prompt.
cat > /dev/null
printf '%s\n' '{"hookSpecificOutput":{"additionalContext":"Project rules: run `make test` before proposing a commit; never push to main."}}'
