#!/usr/bin/env bash
# A PreToolUse guard that leaves the choosing to its `if` rule: whenever it runs it reads its
# input and blocks with exit 2, so "the call was denied" means "the engine ran the hook".
read -r input
echo "guard ran" >&2
exit 2
