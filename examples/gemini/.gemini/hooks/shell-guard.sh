#!/usr/bin/env bash
# BeforeTool guard for run_shell_command: gemini-cli sends the tool call as JSON on stdin and
# obeys a JSON decision on stdout.
cmd=$(python3 -c 'import sys, json; print(json.load(sys.stdin)["tool_input"].get("command", ""))')
case "$cmd" in
  *"rm -rf"*)         echo '{"decision": "deny", "reason": "rm -rf is not allowed in this project"}' ;;
  *"push --force"*)   echo '{"decision": "ask", "reason": "force push: ask the user first"}' ;;
  *)                  echo '{}' ;;
esac
