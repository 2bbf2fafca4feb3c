#!/usr/bin/env bash
# A PreToolUse guard written the way most public Claude Code hooks are: read the one-line JSON
# on stdin with `read -r` (no jq), look for the Bash command by plain text, and block
# `rm -rf` with exit 2 and the reason on stderr. It relies on Claude Code's stdin being one
# line of compact JSON, which is exactly what the conformance suite checks.
read -r input
case "$input" in
*'"command":"rm -rf'*)
    echo "Blocked: rm -rf is not allowed here" >&2
    exit 2
    ;;
esac
exit 0
