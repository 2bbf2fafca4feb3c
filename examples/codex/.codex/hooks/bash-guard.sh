#!/usr/bin/env bash
# PreToolUse guard, written for Codex: block destructive shell commands. Codex blocks on exit 2
# only when stderr says why, and then reads nothing on stdout.
cmd=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"].get("command",""))')
case "$cmd" in
  *"rm -rf /"*|*"rm -rf ~"*|*"git push --force"*)
    echo "Blocked by bash-guard.sh: '$cmd' is destructive." >&2
    exit 2 ;;
esac
