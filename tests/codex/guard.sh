#!/usr/bin/env bash
# A Codex Bash guard in the shape real ones have: reads the PreToolUse input from stdin and blocks
# a destructive command with exit 2 and the reason on stderr (Codex reads no stdout then). The
# command is only ever read as data: whatever shell syntax it holds is matched, never run.
input=$(cat)
cmd=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("tool_input",{}).get("command",""))')
case "$cmd" in
  *"rm -rf"*|*"git push --force"*)
    echo "blocked by guard.sh: $cmd" >&2
    exit 2 ;;
esac
exit 0
