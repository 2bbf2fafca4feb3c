#!/usr/bin/env bash
# A Gemini CLI BeforeTool guard as users write them: reads the tool call on stdin, denies
# `rm -rf` with a JSON decision, lets everything else through.
input=$(cat)
cmd=$(printf '%s' "$input" | python3 -c 'import sys, json; print(json.load(sys.stdin).get("tool_input", {}).get("command", ""))')
case "$cmd" in
  *"rm -rf"*) printf '{"decision":"deny","reason":"rm -rf is blocked by the gemini guard"}\n' ;;
  *) printf '{}\n' ;;
esac
exit 0
